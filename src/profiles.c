/*
 * profiles.c - the built-in profiles (doc/policy.md "Profiles"): named
 * policies for the three deployments, written in the policy language so
 * that `urisan policy show --profile NAME` prints exactly what applies.
 * Each rule carries the attack it stops. Pure data: policy.c parses them.
 */
#include "risk.h"
#include "profile_brands.inc"

#include <string.h>

/* The mail profile's text is longer than the 4095 bytes C11 promises a
   string literal (5.2.4.1); GCC and clang, the compilers meson.build
   builds with, take any length. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif

/*
 * Data lists shared by the profiles (one list per concept; each profile
 * that needs one pastes the same text). Every entry is a place no
 * fetcher, proxy or mail reader should be taken to, whatever the URL
 * looks like otherwise.
 */

/* Public wildcard-DNS and DNS-rebinding services: a name under them
   resolves to the address its labels spell (127.0.0.1.nip.io,
   127-0-0-1.sslip.io and 7f000001.nip.io are 127.0.0.1; localtest.me,
   lvh.me, local.gd, localhost.direct and all their subdomains are
   127.0.0.1; 7f000001.c0a80001.rbndr.us and make-127-0-0-1-rr.1u.ms
   alternate between the addresses they name). No URL-level check sees
   the address, so the services are named. */
#define LIST_WILDCARD_DNS                                                           \
    "# public wildcard-DNS and DNS-rebinding services: 127.0.0.1.nip.io,\n"          \
    "# 7f000001.nip.io, 127-0-0-1.sslip.io, localtest.me resolve to 127.0.0.1\n"    \
    "deny-host .nip.io .sslip.io .xip.io .xip.name .localtest.me .lvh.me\n"          \
    "deny-host .vcap.me .lacolhost.com .traefik.me .localho.st .local.gd\n"          \
    "deny-host .localhost.direct .rbndr.us .rebind.network .1u.ms\n"

/* Cloud metadata services that neither a link-local address nor an
   internal name gives away: the names GCP (/etc/hosts "metadata") and
   EC2 ("instance-data") give them, Tencent Cloud's public name for
   169.254.0.23, Equinix Metal's (Packet) public service that answers
   for the asking machine; AWS IMDS and EKS Pod Identity over IPv6
   (fd00:ec2::254, fd00:ec2::23, ULA) and Alibaba Cloud (100.100.100.200,
   CGNAT) - private ranges a forward proxy otherwise reaches - and
   Azure's WireServer 168.63.129.16, a public address only the VM's host
   answers. */
#define LIST_METADATA                                                               \
    "# cloud metadata services by name and address: GCP \"metadata\", EC2\n"          \
    "# \"instance-data\", Tencent, Equinix Metal; AWS IMDS over IPv6, EKS Pod\n"       \
    "# Identity, Alibaba Cloud, Azure WireServer\n"                                   \
    "deny-host metadata instance-data metadata.tencentyun.com\n"                       \
    "deny-host metadata.packet.net metadata.platformequinix.com\n"                     \
    "deny-ip fd00:ec2::254/128 fd00:ec2::23/128 100.100.100.200/32 168.63.129.16/32\n"

/* An IP literal must be an address: [v1.127.0.0.1] (IPvFuture) is no
   address any client connects to (browsers and curl refuse it, Python
   looks the text up as a name). Every IPv4 and IPv6 address is in these
   two ranges, so only a literal without an address fails them. */
#define LIST_IP_IS_ADDRESS                                                          \
    "# [v1.127.0.0.1] (IPvFuture): no address any client connects to\n"              \
    "allow-ip 0.0.0.0/0 ::/0\n"

/* Windows protocol handlers that advisories name as phishing or
   code-execution vectors (doc/policy.md "Profiles" gives each one's
   advisory): a mail reader's click hands the rest of the link to a local
   program. ms-msdt (CVE-2022-30190, Follina); search-ms (MS08-075, and
   the 2022-2023 campaigns that show a remote share as local search
   results); search (the same share trick, NTLM hash leak); ms-officecmd
   (Positive Security's 2021 one-click RCE through Teams); ms-word,
   ms-excel, ms-powerpoint (Office URI schemes: "ofe|u|URL" opens a
   remote document for editing, the ms-msdt and remote-template chains
   start there); mhtml (CVE-2024-38112, Void Banshee: MSHTML opened from a
   link); smb (forced NTLM authentication to the attacker's share, as in
   CVE-2023-23397); ms-settings (opens Settings pages without a prompt);
   ms-cxh and ms-cxh-full (CVE-2023-32214); ms-appinstaller
   (CVE-2021-43890: installs a package from a URL, disabled by Microsoft
   in December 2023 after the campaigns). */
#define LIST_WINDOWS_HANDLERS                                                       \
    "# Windows protocol handlers named by advisories: ms-msdt (CVE-2022-30190),\n"    \
    "# search-ms and search (remote share shown as local files), ms-officecmd,\n"   \
    "# Office URI schemes, mhtml (CVE-2024-38112), smb (NTLM leak), ms-settings,\n"  \
    "# ms-cxh (CVE-2023-32214), ms-appinstaller (CVE-2021-43890)\n"                 \
    "dangerous-scheme ms-msdt search-ms search ms-officecmd\n"                      \
    "dangerous-scheme ms-word ms-excel ms-powerpoint mhtml smb ms-settings\n"       \
    "dangerous-scheme ms-cxh ms-cxh-full ms-appinstaller\n"

/* Platforms where anyone publishes a page, a file or a form under the
   platform's name, and the places phishing pages live for that reason
   (the registrable domain is the platform's, so no reputation of the
   sender's own domain applies). Sources: the Public Suffix List's
   private section lists pages.dev, r2.dev, web.app, firebaseapp.com,
   github.io, gitlab.io, netlify.app, vercel.app, glitch.me,
   herokuapp.com, onrender.com, fly.dev, workers.dev, repl.co,
   appspot.com, azurewebsites.net, blogspot.com, wixsite.com, carrd.co,
   framer.app, framer.website, s3.amazonaws.com, dweb.link,
   cloudflare-ipfs.com, trycloudflare.com and ngrok.io as names under
   which each customer gets a name of its own; the providers' own
   documentation names the rest: Azure Storage static websites and blobs
   (*.web.core.windows.net, *.blob.core.windows.net), Google Cloud
   Storage and Firebase Storage (storage.googleapis.com,
   firebasestorage.googleapis.com), SharePoint Online and OneDrive
   (*.sharepoint.com, 1drv.ms), Google Sites, Docs and Forms
   (sites.google.com, docs.google.com, forms.gle), Microsoft Forms
   (forms.office.com), the site builders Weebly, Webflow, GoDaddy,
   Square, Strikingly, Jimdo, WordPress.com and 000webhost, and the IPFS
   gateways (ipfs.io, Pinata's gateway.pinata.cloud and mypinata.cloud,
   nftstorage.link, w3s.link). */
#define LIST_USER_CONTENT                                                                 \
    "# platforms where anyone publishes a page, file or form under the\n"                   \
    "# platform's name (Public Suffix List private section, the providers'\n"            \
    "# documentation): a sender's page there borrows the platform's name\n"              \
    "user-content-host .pages.dev .r2.dev .web.app .firebaseapp.com .github.io .gitlab.io\n" \
    "user-content-host .netlify.app .vercel.app .glitch.me .herokuapp.com .onrender.com\n" \
    "user-content-host .fly.dev .workers.dev .repl.co .appspot.com .azurewebsites.net\n"   \
    "user-content-host .blogspot.com .wixsite.com .carrd.co .framer.app .framer.website\n" \
    "user-content-host .weebly.com .webflow.io .godaddysites.com .square.site\n"           \
    "user-content-host .mystrikingly.com .jimdosite.com .wordpress.com .000webhostapp.com\n" \
    "user-content-host .web.core.windows.net .blob.core.windows.net .sharepoint.com 1drv.ms\n" \
    "user-content-host storage.googleapis.com firebasestorage.googleapis.com .s3.amazonaws.com\n" \
    "user-content-host sites.google.com docs.google.com forms.gle forms.office.com\n"      \
    "user-content-host .ipfs.io .dweb.link .cloudflare-ipfs.com gateway.pinata.cloud\n"    \
    "user-content-host .mypinata.cloud .nftstorage.link .w3s.link .trycloudflare.com .ngrok.io\n"

/* Link shorteners: the link names the service, not where it goes (the
   services' own sites: Bitly bit.ly, X t.co, TinyURL, is.gd and v.gd,
   Hootsuite ow.ly, Buffer buff.ly, Rebrandly rebrand.ly, Cuttly cutt.ly,
   shorturl.at, rb.gy, t.ly, tiny.cc, s.id, LinkedIn lnkd.in, Google's
   retired goo.gl, QR Code Generator qrco.de). */
#define LIST_SHORTENERS                                                                   \
    "# link shorteners (the services' own sites): the link hides where it goes\n"         \
    "shortener-host bit.ly t.co tinyurl.com is.gd v.gd ow.ly buff.ly rebrand.ly cutt.ly\n" \
    "shortener-host shorturl.at rb.gy t.ly tiny.cc s.id lnkd.in goo.gl qrco.de\n"

/* "default": the built-in policy (urisan(1), POLICY), nothing on top. */
static const char profile_default[] =
    "# default: the built-in policy. It denies the flags below (and mail_limit,\n"
    "# mail only); internal_name and single_label are allowed (listed among\n"
    "# the flags, the verdict stays allow); every other flag makes it flag\n"
    "deny invalid too_long escaped_crlf escaped_nul ctl_raw dot_above_root\n"
    "deny password dangerous_scheme ambiguous_authority ip_obfuscated\n";

/* "proxy": a forward proxy's URL check (Squid external ACL helper). */
static const char profile_proxy[] =
    "# proxy: what a forward proxy should never forward (Squid squid-acl)\n"
    "# Squid's \"-\", an empty value and relative references are no request\n"
    "# a proxy can judge: refuse them (squid-acl reads CONNECT's host:port\n"
    "# as https://host:port)\n"
    "require-authority\n"
    "# only the schemes a web proxy speaks; gopher:, dict:, file: ... are\n"
    "# the classic cross-protocol SSRF smuggling schemes\n"
    "allow-scheme http https ftp ws wss\n"
    "# request smuggling and header injection through the URL\n"
    "deny invalid too_long escaped_crlf escaped_nul ctl_raw whitespace\n"
    "# path traversal past the origin server's root\n"
    "deny dot_above_root\n"
    "# credentials in the URL and parser confusion about the host\n"
    "deny password dangerous_scheme ambiguous_authority\n"
    "# an address spelled so that filters miss it (0x7f.1, 2130706433)\n"
    "deny ip_obfuscated\n"
    "# the proxy's own host (127/8, localhost), the cloud metadata service\n"
    "# (169.254.169.254), and addresses no server answers from: special\n"
    "# purpose, multicast, broadcast (IANA special-purpose registries)\n"
    "deny ip_loopback ip_link_local ip_reserved ip_multicast ip_broadcast internal_name\n"
    "# intranet hosts a forward proxy may legitimately reach: reported only\n"
    "flag ip_private single_label\n"
    LIST_WILDCARD_DNS
    LIST_METADATA
    LIST_IP_IS_ADDRESS
    "# URLs nested in parameters: nested_url is reported, their flags judge\n"
    "# nothing - a redirect to one comes back through the proxy as a request\n"
    "# of its own and is judged then; the deny-host and deny-ip lists above\n"
    "# judge them as they judge every URL (nested_host_denied, nested_ip_denied),\n"
    "# at the host a client reaches (?u=http:\\\\127.0.0.1.nip.io/), three\n"
    "# levels deep; a chain that goes deeper is reported\n"
    "nested-depth 3\n"
    "flag nested_deep\n";

/* "ssrf": a server that fetches URLs it was given. */
static const char profile_ssrf[] =
    "# ssrf: server-side fetchers, webhooks, link previews - only public\n"
    "# web servers on the standard ports\n"
    "# a fetcher needs an absolute URL with a host\n"
    "require-authority\n"
    "# gopher:, dict:, file:, ldap: ... reach internal services\n"
    "allow-scheme http https\n"
    "# :6379 (Redis), :25 (SMTP), :11211 (memcached) ...: cross-protocol\n"
    "allow-port 80 443\n"
    "# request smuggling, header injection, traversal, parser confusion\n"
    "deny invalid too_long escaped_crlf escaped_nul escaped_ctl ctl_raw whitespace\n"
    "deny dot_above_root encoded_slash double_encoding overlong_utf8\n"
    "deny dangerous_scheme ambiguous_authority\n"
    "# a path that starts with \"//\": a network-path reference to a\n"
    "# fetcher that joins it to its base (another host)\n"
    "deny double_slash_path\n"
    "# credentials: http://user@internal/ and the \"@\" confusion\n"
    "deny userinfo password\n"
    "# every address that is not public: loopback (the fetcher itself),\n"
    "# RFC 1918/CGNAT/ULA (the internal network), link-local (cloud\n"
    "# metadata at 169.254.169.254, fe80::), and any spelling of them\n"
    "deny ip_obfuscated ip_loopback ip_private ip_link_local\n"
    "# special-purpose, multicast and broadcast addresses (IANA registries),\n"
    "# and IPv6 that carries an IPv4 address ([::ffff:127.0.0.1], 6to4\n"
    "# [2002:7f00:1::], NAT64, Teredo) - filters that read only IPv4 miss it\n"
    "deny ip_reserved ip_multicast ip_broadcast ip_embedded\n"
    "# names that resolve inside: localhost, *.local, *.internal\n"
    "# (metadata.google.internal), *.home.arpa ..., and one-label names\n"
    "# (metadata, instance-data) that a search domain completes\n"
    "deny internal_name single_label\n"
    LIST_WILDCARD_DNS
    LIST_METADATA
    LIST_IP_IS_ADDRESS
    "# cluster-internal names: kubernetes.default.svc (the Kubernetes API),\n"
    "# *.consul (HashiCorp Consul DNS); no public TLD is named so\n"
    "deny-host .svc .consul kubernetes.default\n"
    "# URLs nested in parameters (?next=, ?url=, #u=, decoded once or\n"
    "# twice): an open redirect or a second fetch takes the fetcher there,\n"
    "# so they answer to the same address and name rules, three levels deep;\n"
    "# the deny-host and deny-ip lists above judge them too\n"
    "# (?url=http://127.0.0.1.nip.io/),\n"
    "# and a port other than the scheme's (?url=http://example.org:6379/)\n"
    "nested-depth 3\n"
    "# a chain that goes deeper than that is not followed: refused\n"
    "deny nested_deep\n"
    "deny nested:ip_loopback nested:ip_private nested:ip_link_local nested:ip_obfuscated\n"
    "deny nested:ip_reserved nested:ip_multicast nested:ip_broadcast nested:ip_embedded\n"
    "deny nested:internal_name nested:single_label nested:userinfo nested:password\n"
    "deny nested:dangerous_scheme nested:ambiguous_authority nested:invalid nested:too_long\n"
    "deny nested:nondefault_port\n";

/* "mail": links in messages (extract --mail, the milter). */
static const char profile_mail[] =
    "# mail: links in messages, judged for the reader who clicks them\n"
    "# script and local-file links\n"
    "deny dangerous_scheme\n"
    LIST_WINDOWS_HANDLERS
    "# a link that starts a local program which opens, runs or loads what\n"
    "# the link names (ms-word:, ms-its:, hcp:, jnlp:, telnet: ...: the\n"
    "# handler table, `urisan policy show` lists it with its sources)\n"
    "deny handler_scheme nested:handler_scheme\n"
    "# http://bank.com@evil.example/: the name before \"@\" is a decoy\n"
    "deny userinfo password\n"
    "# hosts the reader cannot read, and hosts parsers disagree about\n"
    "deny ip_obfuscated ambiguous_authority\n"
    "# a link into the reader's own machine or network (localhost, *.local)\n"
    "deny internal_name ip_loopback ip_link_local\n"
    LIST_WILDCARD_DNS
    "# header injection and hidden bytes\n"
    "deny invalid too_long escaped_crlf escaped_nul ctl_raw dot_above_root\n"
    "# redirectors and trackers (?url=, ?u=): the link goes on to the\n"
    "# nested URL, so it answers to the same rules about where it goes\n"
    "deny nested:dangerous_scheme nested:userinfo nested:password nested:ip_obfuscated\n"
    "deny nested:ambiguous_authority nested:internal_name nested:ip_loopback\n"
    "deny nested:ip_link_local\n"
    "# three levels deep; a chain that goes deeper is not followed: refused\n"
    "nested-depth 3\n"
    "deny nested_deep\n"
    "# impersonation: the brands phishing imitates most (Check Point, Vade and\n"
    "# Cloudflare reports); a host whose letters a reader takes for one of\n"
    "# them: an IDN one is refused, an all-ASCII one (paypa1.com) flagged\n"
    LIST_IMPERSONATED_BRANDS
    "deny homograph\n"
    "flag lookalike\n"
    LIST_USER_CONTENT
    LIST_SHORTENERS
    "# each signal alone is common in legitimate mail (a newsletter on its\n"
    "# own hosting platform, a shortened link, a sub-brand's name): flagged\n"
    "flag user_content shortener brand_misplaced\n"
    "# together they are what phishing looks like and newsletters rarely do:\n"
    "# a protected brand's name on a platform page (paypal-login.web.app),\n"
    "# link text that names one site over a link to a\n"
    "# platform page or a brand's name placed elsewhere, a look-alike\n"
    "# brand on a platform\n"
    "deny-combined brand_misplaced user_content\n"
    "deny-combined link_text_mismatch user_content\n"
    "deny-combined link_text_mismatch brand_misplaced\n"
    "deny-combined lookalike user_content\n"
    "# a part whose head has two Content-Type, Content-Transfer-Encoding or\n"
    "# Content-Disposition values: readers disagree, so the sender chooses\n"
    "deny mime_conflict\n";

static const struct {
    const char *name;
    const char *text;
} profiles[] = {
    {"default", profile_default},
    {"proxy", profile_proxy},
    {"ssrf", profile_ssrf},
    {"mail", profile_mail},
};

URISAN_API const char *urisan_profile_name(size_t i)
{
    return i < sizeof profiles / sizeof profiles[0] ? profiles[i].name : NULL;
}

URISAN_API const char *urisan_profile_text(const char *name, size_t len)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strlen(profiles[i].name) == len && memcmp(profiles[i].name, name, len) == 0)
            return profiles[i].text;
    return NULL;
}
