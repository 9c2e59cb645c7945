/*
 * urisan_host.h - liburisan-host: a host as a reader sees it, and the one
 * decision of every front end (pkg-config name "urisan-host").
 *
 * A library beside the core, as liburisan-mail is: liburisan stays
 * libc-only and allocation-free; THIS LIBRARY ALLOCATES (its contexts,
 * and inside ICU, libidn2 and libpsl). It is built when ICU, libidn2 and
 * libpsl are found. It owns:
 *   - the UTS #46 form of a host (libidn2, non-transitional) and whether
 *     UTS #46 maps a code point of it beyond case (flag host_uts46);
 *   - the Unicode TR39 (UTS #39) skeleton, mixed-script and confusable
 *     judgement of its labels (ICU's spoof checker; flag homograph);
 *   - the protected names of a policy (protect-host) a host imitates:
 *     an IDN one (flag homograph) or an all-ASCII one (flag lookalike);
 *   - zero-width, bidi and other default-ignorable characters in a host
 *     or a link text (flag invisible_char);
 *   - the registrable domain of a host (the Public Suffix List, libpsl:
 *     the one list every part of urisan reads, urisan_host_psl);
 *   - the decision: urisan_judge parses, analyses (the core library),
 *     adds the host's flags and decides once under a policy.
 *
 * Every front end (the urisan command's check, extract, milter, serve and
 * squid-acl, the Python module) calls urisan_judge, or hands
 * urisan_judge_link_decide to the code that finds links, and prints what
 * it gives:
 *
 *     urisan_host_ctx *ctx = urisan_host_ctx_new();   // once a thread
 *     urisan_judgement j;
 *     while (read(&in, &len)) {
 *         urisan_judge(ctx, in, len, pol, 0, &j);
 *         print(j.dec.verdict, j.rep.flags, j.hv);
 *     }
 *     urisan_host_ctx_free(ctx);
 *
 * Every call that takes a context accepts NULL for this thread's own
 * (urisan_host_ctx_thread()); when not even that can be had (no memory)
 * the input is denied with flag invalid and urisan_judge returns
 * URISAN_E_NOSPACE: it fails closed.
 *
 * Threads: a context is used by one thread at a time (it holds the memo of
 * hosts already viewed and the last host's view, which it writes on every
 * call); give each thread its own (urisan_host_ctx_thread() makes one a
 * thread on first use). Threads that judge parts of one input can share
 * one memo of views instead (urisan_host_ctx_new_sharing: each thread
 * still has a context of its own, and a host viewed by one is not viewed
 * again by another). The data the contexts read - ICU's spoof data,
 * the Public Suffix List, the tables made from them - is loaded once a
 * process, on the first urisan_host_ctx_new (or urisan_host_init), and
 * only read after that, by every context at once.
 *
 * Conventions as in urisan.h: pointers are non-NULL unless their length
 * is 0; nothing is read outside in[0..len).
 */
#ifndef URISAN_HOST_H
#define URISAN_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "urisan.h"

/* URISAN_API marks the exports while the library is built (the source
   tree's urisan.h); the installed urisan.h is flat and has none, and a
   program that uses the library needs none. */
#ifndef URISAN_API
#define URISAN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Hosts longer than this (bytes, percent-decoded) are not examined: DNS
   names are at most 253 bytes; a U-label form is at most ~4x that. */
#define URISAN_HOSTVIEW_MAX 1024

/* Why a host is a homograph (bits of urisan_hostview.why). */
enum {
    URISAN_HOSTVIEW_MIXED_SCRIPT = 1u << 0,  /* a label mixes scripts beyond
                                                TR39 "moderately restrictive" */
    URISAN_HOSTVIEW_CONFUSABLE = 1u << 1,    /* a non-ASCII label whose
                                                skeleton is an ASCII label */
    URISAN_HOSTVIEW_MIXED_NUMBERS = 1u << 2, /* digits of more than one system */
};

/* A host as a reader sees it. Every text is NUL-terminated UTF-8. */
typedef struct {
    bool is_name;                  /* a reg-name host (not an IP literal) */
    bool idn;                      /* a label is non-ASCII or an A-label */
    char unicode[URISAN_HOSTVIEW_MAX];    /* U-labels ("" if !is_name) */
    char skeleton[4 * URISAN_HOSTVIEW_MAX]; /* TR39 skeleton of unicode */
    char ascii[URISAN_HOSTVIEW_MAX];      /* A-labels, lower case */
    char registrable[URISAN_HOSTVIEW_MAX]; /* PSL registrable domain of
                                              ascii; "" when none */
    char imitates[URISAN_HOSTVIEW_MAX];   /* the protected name (protect-host)
                                             the host imitates, judged for
                                             the policy imitation_of names;
                                             "" when none */
    unsigned why;                  /* URISAN_HOSTVIEW_* */
    bool invisible;                /* zero-width or bidi control in it */
    bool uts46;                    /* UTS #46 removes or maps a code point
                                      of it beyond case (host_uts46) */
    urisan_flags flags;            /* homograph, invisible_char, host_uts46 */
    unsigned char internal;        /* the library's own bookkeeping of the
                                      view: callers leave it alone */
    size_t unicode_len, skeleton_len, imitates_len, registrable_len;
    /* What the host is to a policy's protected names (protect-host): the
       urisan_policy_protected_id of the policy judged (0: none judged
       yet: a view as urisan_host_view gives it), and URISAN_F(HOMOGRAPH)
       or URISAN_F(LOOKALIKE) when the host imitates one (imitates names
       it), else 0. flags above are the view's own: the TR39 homograph of
       a policy that protects no name. */
    uint64_t imitation_of;
    urisan_flags imitation;
} urisan_hostview;

typedef struct urisan_host_ctx urisan_host_ctx;

/* Load ICU's spoof data (once a process; the first urisan_host_ctx_new
   does it too; the Public Suffix List is read on its first use,
   urisan_host_psl). false: ICU's spoof checker could not be opened: hosts
   then get no homograph judgement. */
URISAN_API bool urisan_host_init(void);
/* Free what urisan_host_init loaded: at exit, after every context is
   freed and every thread that used one is done. */
URISAN_API void urisan_host_shutdown(void);

/* A context: the memo of hosts already viewed (a fixed table of 4 MiB,
   taken from the system as it is touched) and the view of the last
   host. NULL: no memory. */
URISAN_API urisan_host_ctx *urisan_host_ctx_new(void);
URISAN_API void urisan_host_ctx_free(urisan_host_ctx *ctx);
/*
 * A context that shares its memo of views with other contexts, each used
 * by a thread of its own: with NULL, a new memo (4 MiB, as
 * urisan_host_ctx_new's); else with's memo (with made by this call).
 * Only the memo is shared; each context keeps its own last host's view,
 * and is used by one thread at a time.
 * Free each context with urisan_host_ctx_free, in any order: the memo
 * goes with the last. Every answer is the one a context of its own gives.
 * NULL: no memory, or with is not a sharing context.
 *
 * The shared memo's thread safety: a look-up takes no lock (it reads an
 * entry between two reads of a sequence number, and an entry being
 * written counts as a miss: the host is viewed again); keeping a new
 * host takes a mutex of the memo (once a distinct host). Contexts of
 * their own take no lock at all.
 */
URISAN_API urisan_host_ctx *urisan_host_ctx_new_sharing(urisan_host_ctx *with);
/* This thread's context: made on the first call in a thread, freed when
   the thread ends. NULL: no memory. */
URISAN_API urisan_host_ctx *urisan_host_ctx_thread(void);

/* The Public Suffix List of the whole project (a psl_ctx_t *; loaded on
   the first call, once a process): the system's list as text
   (/usr/share/publicsuffix/public_suffix_list.dat, package publicsuffix)
   read by libpsl, whose look-ups in it (binary searches) cost less than
   in its compiled form; without that file, the newer of the system's compiled
   list and libpsl's built-in one. */
URISAN_API const struct psl_ctx_st *urisan_host_psl(void);

/*
 * The view of a host as written (percent-escapes allowed). false: it is
 * no host name (empty, an IP address, WHATWG's IPv4 forms, too long,
 * a byte no host name has); *hv is filled either way.
 */
URISAN_API bool urisan_host_view(urisan_host_ctx *ctx, const char *host, size_t len,
                      urisan_hostview *hv);
/* The view of the host of uri[0..len) (parsed with the default limits);
   a mailto: URI's host is its first address's domain (urisan_mailto_domain). */
URISAN_API bool urisan_host_view_uri(urisan_host_ctx *ctx, const char *uri, size_t len,
                          urisan_hostview *hv);
/* The flags this library gives the host of uri[0..len) as a link's
   (urisan_judge_link_decide): its view's, and those of a mailto: URI's every
   address. What a nested URL's host adds to the union `deny nested:FLAG`
   judges (urisan_judge), and what `check --json` lists for it. ctx NULL:
   this thread's; no memory: every flag (fail closed). */
URISAN_API urisan_flags urisan_host_flags_uri(urisan_host_ctx *ctx, const char *uri, size_t len);
/* The flags a nested URL (urisan_nested's callback) is listed with, as
   `check --json` lists it: its analysis' and its host's
   (urisan_host_flags_uri). Every door's list of nested URLs uses this. */
URISAN_API urisan_flags urisan_nested_flags(urisan_host_ctx *ctx, const urisan_nested_url *nu);
/* The same under pol's protected names (protect-host: homograph and
   lookalike mean imitating one of them; pol NULL: none, as above). */
URISAN_API urisan_flags urisan_host_flags_uri_policy(urisan_host_ctx *ctx,
                                                     const urisan_policy *pol,
                                                     const char *uri, size_t len);
/* urisan_nested_flags under pol's protected names (pol NULL: none). */
URISAN_API urisan_flags urisan_nested_flags_policy(urisan_host_ctx *ctx,
                                                   const urisan_policy *pol,
                                                   const urisan_nested_url *nu);
/* Does text[0..len) (UTF-8) hold a zero-width, bidi control or other
   invisible character (U+200B-200F, U+202A-202E, U+2060-2064,
   U+2066-2069, U+FEFF, U+061C, U+180E, U+00AD, U+034F)? Invalid UTF-8 is
   skipped byte by byte. */
URISAN_API bool urisan_host_has_invisible(const char *text, size_t len);

/* ------------------------------------------------------------------ */
/* The decision                                                        */
/* ------------------------------------------------------------------ */

/* The flags this library sets: URISAN_HOST_FLAGS (urisan.h). */

/* urisan_judge options. */
#define URISAN_JUDGE_VIEW 1u  /* view every host name (hv), not only those
                                 that can carry the flags above (an IDN host,
                                 a mailto: address's domain) */

typedef struct {
    urisan_uri uri;            /* the parse of the input (policy's limits) */
    urisan_report rep;         /* analysis + this library's flags */
    urisan_decision dec;       /* the decision under the policy */
    const urisan_hostview *hv; /* the view of the host (in the context,
                                  valid until its next call); NULL: not
                                  viewed (no IDN host, no mailto: domain,
                                  no URISAN_JUDGE_VIEW) */
    bool host_name;            /* hv is a host name's view */
} urisan_judgement;

/*
 * The one decision: urisan_parse_analyze of in[0..len) under pol (NULL:
 * the default policy), the host judgement of its host (an IDN host or the
 * domains of a mailto: URI's addresses: homograph, invisible_char,
 * host_uts46), and urisan_decide once on the whole. With host_uts46 the
 * policy's host and address rules also judge the host's UTS #46 form: a
 * deny-host or allow-host that denies it denies. Returns the parse's
 * status; *j always filled.
 */
URISAN_API urisan_status urisan_judge(urisan_host_ctx *ctx, const char *in, size_t len,
                           const urisan_policy *pol, unsigned opts,
                           urisan_judgement *j);

/*
 * The same for an input the caller analysed already (j->rep: its report,
 * e.g. urisan_check_base's for a resolved reference, whose flags are
 * kept): in[0..len) is the URI judged; j->uri is set to its parse under
 * pol's limits. The host judgement and the decision as urisan_judge's.
 */
URISAN_API void urisan_judge_report(urisan_host_ctx *ctx, const char *in, size_t len,
                         const urisan_policy *pol, unsigned opts,
                         urisan_judgement *j);

/*
 * urisan_check_base (urisan.h: a reference judged by where it leads),
 * then the host judgement of the URI it judged - the resolved one, or ref
 * as written when it cannot be resolved - and the decision, as
 * urisan_judge_report. j->uri is the parse of ref as written (what
 * `urisan check --base` shows); buf, cap, *needed and err as
 * urisan_check_base's (URISAN_E_NOSPACE: call again with cap >= *needed).
 */
URISAN_API urisan_status urisan_judge_base(urisan_host_ctx *ctx, const char *base, size_t blen,
                                           const char *ref, size_t rlen,
                                           const urisan_policy *pol, unsigned opts,
                                           char *buf, size_t cap, size_t *needed,
                                           urisan_judgement *j, urisan_error *err);

/*
 * A link found in text or mail, decided once: the urisan_link_decide_fn
 * (urisan.h) of this library, for urisan_extract_with and liburisan-mail's
 * urisan_mail_scan_with:
 *
 *     urisan_link_judge lj = { ctx, &hv };     // hv: the link's host view
 *     urisan_link_hooks hk = { urisan_judge_link_decide, &lj };
 *     urisan_mail_scan_with(msg, len, pol, &lim, &hk, &sink, &res);
 *
 * To the link's flags (rep->flags: the core's analysis, and what the
 * finder adds, link_text_mismatch) it adds the host judgement of in's
 * host (and of a mailto: URI's every address) and of the link text
 * display[0..dlen) (invisible_char), then decides once under pol, in one
 * urisan_decide_with: a nested URL's host is judged when a nested rule
 * names this library's flags, and the host lists meet the form a browser
 * resolves of the link's host and of a nested URL's. No memory: flag
 * invalid, denied (fail closed).
 */
typedef struct {
    urisan_host_ctx *ctx;      /* NULL: this thread's context */
    urisan_hostview *hv;       /* where the view of the link's host goes
                                  (overwritten by each link); NULL: none
                                  kept */
} urisan_link_judge;

URISAN_API void urisan_judge_link_decide(void *judge, const urisan_policy *pol,
                                         const char *in, size_t len, const urisan_uri *uri,
                                         urisan_report *rep, const char *display, size_t dlen,
                                         urisan_decision *dec);

/*
 * A request judged as the origin receives it: the URI a gateway forwards,
 * rebuilt from the request's parts by urisan_request_uri (urisan.h: the
 * Host field's grammar, absolute-form and its Host, CONNECT,
 * asterisk-form, the forwarded headers of t's trust order; t NULL: the
 * target with Host alone) into buf[0..cap), then urisan_judge of it
 * under pol, plus require-authority's rule (a URI with no host - a
 * trusted X-Original-URL or an absolute-form target without one - is
 * denied: not_absolute, no_authority). A request with no URI to judge
 * (reason not URISAN_REQUEST_OK) is denied: j.dec a deny with no flag
 * and no rule, j.uri an empty split that is not valid; reason names the
 * part rejected ("bad_host_header"). Returns the status of urisan_judge
 * (the parse's) when a URI was judged, URISAN_OK when the request was
 * rejected, URISAN_E_BAD_ARGUMENT when r is NULL (denied, no_uri).
 */
typedef struct {
    urisan_judgement j;              /* the decision (always a deny unless
                                        reason is URISAN_REQUEST_OK) */
    urisan_request_reason reason;    /* URISAN_REQUEST_OK, or the part rejected */
    urisan_request_source source;    /* the source taken */
    size_t uri_len;                  /* the URI judged, buf[0..uri_len) */
} urisan_request_judgement;

URISAN_API urisan_status urisan_judge_request(urisan_host_ctx *ctx, const urisan_request *r,
                                              const urisan_request_trust *t,
                                              const urisan_policy *pol, unsigned opts,
                                              char *buf, size_t cap,
                                              urisan_request_judgement *out);

/*
 * A link as a mail reader's client opens it. A link written in Unicode
 * (an IRI, RFC 3987) is opened as a URI: the host of a WHATWG special
 * scheme (http, https, ftp, ws, wss, file) converted by UTS #46 to
 * A-labels (libidn2, non-transitional), every other non-ASCII byte
 * percent-encoded as UTF-8 (RFC 3987 3.1). urisan_link_opened returns that
 * URI (malloc'd, *out_len its length; the caller frees it), or NULL when
 * the link is read as written: it is plain ASCII, a relative reference,
 * not UTF-8, holds a hidden character (control, format, Default_Ignorable,
 * unassigned, private use) or a separator (U+00A0, U+2028 ...), a host IDNA refuses or one UTS #46 would
 * change beyond case and NFC (fullwidth, compatibility, ignored code
 * points: the flags host_uts46 and invisible_char report those on the
 * written form), or memory ran out. Every mail door (liburisan-mail,
 * `urisan extract`, the Python and Lua modules, the rspamd plugin) reads
 * links through it, so `https://bücher.de/` is judged as
 * `https://xn--bcher-kva.de/` (idn) everywhere.
 *
 * urisan_link_read_opened: the same for a link in[0..len) whose parse and
 * analysis are *uri and *rep: when rep has non_ascii and the link
 * converts, the URI opened is returned (as above) and parsed and analysed
 * under pol into *uri and *rep; else NULL and nothing changed.
 */
URISAN_API char *urisan_link_opened(const char *in, size_t len, size_t *out_len);
URISAN_API char *urisan_link_read_opened(const urisan_policy *pol, const char *in, size_t len,
                                         urisan_uri *uri, urisan_report *rep, size_t *out_len);

/*
 * A link urisan_extract_with found in text, its parse and analysis kept
 * by urisan_link_keep (f), decided once as a mail reader's client opens
 * it: urisan_link_read_opened, then urisan_judge_link_decide. h->uri,
 * h->uri_len, h->flags and h->decision become the URI judged, its flags
 * and its decision; *written the text as written when the link was
 * converted (NULL, 0 else). Returns the URI opened (h->uri; free() it
 * when done with h) or NULL. The free-text doors (`urisan extract`, the
 * Python and Lua modules' extract) decide each hit with it.
 */
URISAN_API char *urisan_judge_text_link(urisan_link_judge *lj, const urisan_policy *pol,
                                        urisan_hit *h, const urisan_link_facts *f,
                                        const char **written, size_t *written_len);

/* urisan_policy_origin_uri as this layer decides (--explain): the
   deny-host entry behind host_denied or nested_host_denied is found in
   the form a browser resolves too (ctx NULL: this thread's context). */
URISAN_API size_t urisan_judge_origin(urisan_host_ctx *ctx, const urisan_policy *pol,
                                      const char *in, size_t len, urisan_origin_kind kind,
                                      unsigned bit, const char **profile);

/* Is the TR39 skeleton of hv worth showing beside the host (the key
   host_skeleton of `check --json`, `extract --json`, the Python and Lua
   modules)? When the host is an IDN or flags (the input's) has homograph
   or lookalike; an ASCII name's skeleton ("www.exarnple.corn") only
   looks as if the host were garbled. */
URISAN_API bool urisan_host_skeleton_shown(const urisan_hostview *hv, urisan_flags flags);

/* The host's part of r (urisan.h "The result of one URI, described
   once"), from hv (NULL: no view): the forms of the keys host_unicode,
   host_skeleton, host_imitates and registrable_domain - null where the
   host is no name and, but for host_unicode, where a form is ""; the
   skeleton only where urisan_host_skeleton_shown for r->rep->flags, or
   with skeleton_always - and the flags r's nested URLs are listed with
   (urisan_nested_flags_policy in ctx). r->rep is read. */
URISAN_API void urisan_result_host(urisan_result *r, urisan_host_ctx *ctx,
                                   const urisan_hostview *hv, int skeleton_always);
/* The host's part of a link's row (urisan.h "The row of one link found,
   described once"): the forms of hv as urisan_result_host gives them,
   the skeleton judged by row->flags (hv NULL: all null). The row points
   into hv: read it while hv is kept. */
URISAN_API void urisan_link_row_host(urisan_link_row *row, const urisan_hostview *hv,
                                     int skeleton_always);

#ifdef __cplusplus
}
#endif

#endif /* URISAN_HOST_H */
