/*
 * hostview.h - a host as a reader sees it (issue 15): the Unicode form of
 * its IDN labels (libidn2), the Unicode TR39 homograph signals and
 * skeleton (ICU's spoof checker), its registrable domain (libpsl), and
 * zero-width / bidi control characters in a host or a link text.
 *
 * Built into the command when ICU, libidn2 and libpsl are found
 * (URISAN_HAVE_HOSTVIEW). Kept out of the core library: it allocates and
 * depends on ICU. Thread-safe after hostview_init() (the milter calls it
 * before its threads start; the first call of any function does it too).
 */
#ifndef URISAN_CLI_HOSTVIEW_H
#define URISAN_CLI_HOSTVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "urisan.h"
#include "json.h"

/* Hosts longer than this (bytes, percent-decoded) are not examined: DNS
   names are at most 253 bytes; a U-label form is at most ~4x that. */
#define HOSTVIEW_HOST_MAX 1024

/* Why a host is a homograph (bits of hostview.why). */
enum {
    HOSTVIEW_MIXED_SCRIPT = 1u << 0,  /* a label mixes scripts beyond TR39
                                         "moderately restrictive" */
    HOSTVIEW_CONFUSABLE   = 1u << 1,  /* a non-ASCII label whose skeleton
                                         is an ASCII label: it looks like
                                         one (whole-script or same-script) */
    HOSTVIEW_MIXED_NUMBERS = 1u << 2, /* digits of more than one system */
};

typedef struct {
    bool is_name;                  /* a reg-name host (not an IP literal) */
    bool idn;                      /* a label is non-ASCII or an A-label */
    char unicode[HOSTVIEW_HOST_MAX];   /* U-labels, UTF-8 ("" if !is_name) */
    char skeleton[4 * HOSTVIEW_HOST_MAX]; /* TR39 skeleton of unicode */
    char ascii[HOSTVIEW_HOST_MAX];     /* A-labels, lower case */
    char registrable[HOSTVIEW_HOST_MAX]; /* PSL registrable domain of
                                           ascii; "" when none */
    char imitates[HOSTVIEW_HOST_MAX];  /* HOSTVIEW_CONFUSABLE: the host with
                                          each confusable label replaced by
                                          the ASCII label it looks like */
    unsigned why;                  /* HOSTVIEW_* */
    bool invisible;                /* zero-width or bidi control in it */
    bool uts46;                    /* UTS #46 removes or maps a code point
                                      of it beyond case (host_uts46) */
    urisan_flags flags;            /* homograph, invisible_char */
    bool skeleton_table;           /* skeleton is hostview_skeleton_ascii
                                      of ascii (a plain ASCII host) */
    bool json_plain;               /* unicode, skeleton, imitates and
                                      registrable are printable ASCII
                                      without '"' or '\\': each is its
                                      own JSON text (json_quote_plain).
                                      false: not known to be */
    /* strlen of unicode, skeleton, imitates and registrable, set with
       them by every call that fills hv (the writers copy, never count) */
    size_t unicode_len, skeleton_len, imitates_len, registrable_len;
} hostview;

/* Load ICU's spoof data and the Public Suffix List once. false: ICU
   could not be opened (then hosts get no homograph judgement). */
bool hostview_init(void);
void hostview_shutdown(void);

/*
 * Examine the host of uri[0..len) (parsed with urisan_parse; a host of a
 * URI without authority - mailto: - is its address's domain). false: the
 * URI has no host name to show (no host, an IP literal, too long).
 */
bool hostview_uri(const char *uri, size_t len, hostview *hv);
/* The same for a URI the caller parsed already: u is what
   urisan_parse(uri, len, NULL, ...) (the default limits) gave. */
bool hostview_uri_parsed(const char *uri, size_t len, const urisan_uri *u, hostview *hv);

/* Does hostview_uri_parsed view a mailto: address's domain here (uri
   has no host; its path is the address list)? The library sets no idn
   flag there, so its homograph, invisible_char and host_uts46 are for
   the command to look for. */
bool hostview_mail_domain(const char *uri, const urisan_uri *u);

/* The same for a host given as it is written (percent-escapes allowed). */
bool hostview_host(const char *host, size_t len, hostview *hv);

/*
 * The view of the last host one stream of lines asked about, kept by its
 * reader (issue 17: in a log, half the lines name the host of the line
 * before). A host whose bytes are the last one's is not looked at again:
 * hv and name stay as they are. serial changes whenever hv does, and is
 * never the same twice in a thread (0: nothing viewed yet), so a writer
 * may keep text made from hv under it.
 */
#define HOSTVIEW_LAST_KEY 64   /* longer hosts are viewed each time */
typedef struct {
    hostview hv;
    bool name;                 /* what the view of key returned */
    size_t klen;               /* key[0..klen): the host; SIZE_MAX: none */
    char key[HOSTVIEW_LAST_KEY];
    uint64_t serial;
} hostview_last;

/* Start hl empty. */
void hostview_last_init(hostview_last *hl);

/* hostview_uri_parsed into hl->hv, unless the host is hl's last one. */
bool hostview_uri_last(const char *uri, const urisan_uri *u, hostview_last *hl);

/* p[0..n): bytes that will start a later line (cli_each_input_ahead).
   Guess its host without a parse (the common "scheme://host" in its
   first 48 bytes: after "://", before '/', '?' or '#', after the last
   '@', before a ':') and ask for its memo entry now, so that it is in
   the cache when that line's view is looked up (a line whose host
   differs from the line before waited for memory there). A hint:
   nothing is kept, no view changes. */
void hostview_prefetch_ahead(const char *p, size_t n);

/* hostview_host without its shortcuts: every host through libidn2 and
   ICU, every registrable domain from libpsl (no cache). The same answer,
   slower; tests compare the two. */
bool hostview_host_full(const char *host, size_t len, hostview *hv);

/* The TR39 skeleton of an ASCII host h[0..n) from a table of each byte's
   (as ICU writes it; "" when it does not fit in cap): false when a byte
   has none there. *jplain: the skeleton is its own JSON text. */
bool hostview_skeleton_ascii(const char *h, size_t n, char *out, size_t cap, bool *jplain);

/* Does text[0..len) (UTF-8) hold a zero-width or bidi control character
   (U+200B-200F, U+202A-202E, U+2060-2064, U+2066-2069, U+FEFF, U+061C,
   U+180E, U+00AD, U+034F)? Invalid UTF-8 is skipped byte by byte. */
bool hostview_has_invisible(const char *text, size_t len);

/* The flags above (homograph, invisible_char) for a link: its host, and
   the link text when display is not NULL. hv may be NULL. */
urisan_flags hostview_link_flags(const char *uri, size_t len,
                                 const char *display, size_t dlen, hostview *hv);

/* JSON keys of a host (null when hv is NULL or no name): host_unicode,
   host_skeleton, host_imitates (null unless confusable),
   registrable_domain. Needs json.h's writer. */
void hostview_json(json_w *w, const hostview *hv);

/* A link's extra flags, judged by the policy like any flag: adds f to
   rep and decides again (urisan_decide) when f adds anything. With
   host_uts46 in f, the policy's host rules also judge the host's UTS #46
   form (issue 18): a deny-host or allow-host that denies it denies. */
void hostview_redecide(const char *uri, size_t len, urisan_flags f,
                       const urisan_policy *pol, urisan_report *rep,
                       urisan_decision *dec);

/* A link found by extraction (flags and decision from the library):
   add homograph / invisible_char of its host and link text, and decide
   again under pol when they add anything. hv: scratch, or NULL. */
void hostview_judge_link(const urisan_policy *pol, const char *uri, size_t len,
                         const char *display, size_t dlen, urisan_flags *flags,
                         urisan_decision *dec, hostview *hv);

#endif
