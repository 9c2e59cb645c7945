/*
 * handlers.c - the one table of handler schemes (flag handler_scheme):
 * schemes whose link, clicked in a mail reader or a browser, hands the
 * rest of the URL to a local program, which starts and opens, runs or
 * loads the resource the link names (a remote document, a share, a
 * help file, an installer, a remote desktop). A mail reader's user cannot
 * tell such a link from a web link. Each row names what the program does
 * and a public source (a CVE, a vendor's documentation, a security
 * advisory or write-up). `urisan policy show` lists the table; the
 * `mail` profile denies handler_scheme, the default policy and `proxy`
 * report it (doc/policy.md "Handler schemes").
 *
 * The table is data, looked up by a linear scan for a scheme that is not
 * a WHATWG special one (analyze_scheme.h); test_flags checks each name is
 * a lower-case scheme of the RFC 3986 grammar and appears once.
 */
#include "risk.h"

typedef struct {
    const char *name;
    const char *what;
    const char *source;
} handler_row;

static const handler_row handlers[] = {
    {"firefoxurl", "starts Firefox with the rest of the URL as its command line",
     "CVE-2007-3670 (Firefox, via Internet Explorer)"},
    {"hcp", "Windows Help and Support Center loads the named help page",
     "CVE-2010-1885 (MS10-042)"},
    {"its", "the HTML Help viewer loads a compiled help file, remote too",
     "CVE-2004-0380 (MS04-013)"},
    {"itms-services", "iOS installs an app from the manifest URL it names",
     "Apple: Distribute proprietary in-house apps to Apple devices"},
    {"jnlp", "Java Web Start downloads and runs the remote application",
     "Oracle: Java Web Start (JNLP) documentation; CVE-2010-0886"},
    {"microsoft-edge", "opens the URL in Edge whatever the default browser",
     "Microsoft: the microsoft-edge: URI scheme (Launch Edge from a link)"},
    {"mk", "mk:@MSITStore: the HTML Help viewer loads a remote help file",
     "CVE-2004-0380 (MS04-013)"},
    {"ms-access", "Access opens a remote database", "Microsoft: Office URI Schemes"},
    {"ms-appinstaller", "App Installer installs a package from a URL",
     "CVE-2021-43890 (disabled by Microsoft in December 2023)"},
    {"ms-cxh", "starts the Windows account setup host", "CVE-2023-32214 (Firefox)"},
    {"ms-cxh-full", "starts the Windows account setup host", "CVE-2023-32214 (Firefox)"},
    {"ms-excel", "Excel opens a remote workbook", "Microsoft: Office URI Schemes"},
    {"ms-infopath", "InfoPath opens a remote form", "Microsoft: Office URI Schemes"},
    {"ms-its", "the HTML Help viewer loads a remote compiled help file",
     "CVE-2004-0380 (MS04-013)"},
    {"ms-msdt", "the Microsoft Support Diagnostic Tool runs a troubleshooter",
     "CVE-2022-30190 (Follina)"},
    {"ms-officecmd", "starts an Office application with a command line",
     "Positive Security, Windows 10 RCE: the exploit is in the link (December 2021)"},
    {"ms-powerpoint", "PowerPoint opens a remote presentation", "Microsoft: Office URI Schemes"},
    {"ms-project", "Project opens a remote plan", "Microsoft: Office URI Schemes"},
    {"ms-publisher", "Publisher opens a remote publication", "Microsoft: Office URI Schemes"},
    {"ms-settings", "opens a Windows Settings page without a prompt",
     "Microsoft: Launch the Windows Settings app (the ms-settings: URI scheme)"},
    {"ms-spd", "SharePoint Designer opens a remote site", "Microsoft: Office URI Schemes"},
    {"ms-visio", "Visio opens a remote drawing", "Microsoft: Office URI Schemes"},
    {"ms-word", "Word opens a remote document", "Microsoft: Office URI Schemes"},
    {"mhtml", "MSHTML (Internet Explorer's engine) loads the remote page",
     "CVE-2024-38112 (Void Banshee)"},
    {"rdp", "the Remote Desktop client connects to the host it names",
     "Microsoft: Remote Desktop URI scheme"},
    {"search", "Windows Explorer searches a remote share; its SMB login leaks the NTLM hash",
     "Huntress's 2026 report of the search: handler coerced to a UNC path"},
    {"search-ms", "Windows Explorer shows a remote share as local search results",
     "MS08-075; Trellix, Beyond File Search (July 2023)"},
    {"smb", "Windows Explorer opens a remote share (NTLM credentials sent)",
     "CVE-2023-23397 (the forced-authentication class)"},
    {"steam", "the Steam client runs the command the URL names",
     "ReVuln, 2012: Steam Browser Protocol Insecurity"},
    {"telnet", "starts a terminal client connected to the host it names",
     "RFC 4248 (the telnet URI scheme)"},
    {"vnc", "a VNC viewer connects to the host it names", "RFC 7869 (the vnc URI scheme)"},
    {"zoommtg", "the Zoom client joins the meeting the URL names",
     "Zoom: the zoommtg: URL scheme (Zoom developer documentation)"},
};

#define HANDLER_ROWS (sizeof handlers / sizeof handlers[0])

scheme_row urisan_scheme_unlisted(const char *s, size_t n, unsigned fold)
{
    char lower[HANDLER_NAME_MAX + 1]; /* longer than every row's name (test_policy) */
    scheme_row row = {"", 0, SCH_OTHER, 0, -1};
    if (n < sizeof lower) {
        for (size_t i = 0; i < n; i++)
            lower[i] = (char)(fold ? lower_ascii((unsigned char)s[i]) : (unsigned char)s[i]);
        if (urisan_handler_find(lower, n))
            row.bits = SCHEME_HANDLER;
    }
    return row;
}

bool urisan_handler_find(const char *lower, size_t n)
{
    if (n < 2)
        return false;
    for (size_t i = 0; i < HANDLER_ROWS; i++) {
        const char *h = handlers[i].name;
        if (h[0] != lower[0])
            continue;
        size_t k = 0;
        while (k < n && h[k] != '\0' && h[k] == lower[k]) /* a NUL in the input ends no name */
            k++;
        if (k == n && h[k] == '\0')
            return true;
    }
    return false;
}

URISAN_API const char *urisan_handler_scheme(size_t i, const char **what, const char **source)
{
    if (i >= HANDLER_ROWS)
        return NULL;
    if (what != NULL)
        *what = handlers[i].what;
    if (source != NULL)
        *source = handlers[i].source;
    return handlers[i].name;
}
