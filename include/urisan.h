/*
 * urisan.h - defensive RFC 3986 URI parser and sanitiser.
 *
 * Conventions, stated once for the whole API:
 *  - Every input is (pointer, length). The library never calls strlen on
 *    it and never reads in[len]; an embedded NUL is just a byte. A pointer
 *    may be NULL only when its length is 0.
 *  - Results point into the caller's buffer as spans (offset, length).
 *    A component that is absent has off == URISAN_ABSENT; an empty one
 *    has len == 0 and a real offset.
 *  - Nothing in the library allocates memory, recurses, or keeps state
 *    between calls. Every entry point runs in time linear in its input.
 *  - Functions that write text (urisan_policy_format, urisan_format_ip,
 *    urisan_decision_format, urisan_reasons_format, urisan_resolve,
 *    urisan_normalize, urisan_check_base) take (buf, cap), always set *needed to the length
 *    of the text, NOT counting a terminating NUL, and return
 *    URISAN_E_NOSPACE when the text does not fit (nothing is written
 *    then). The text is NUL-terminated when there is room for the NUL:
 *    pass cap >= *needed + 1 to get a C string; with cap == *needed the
 *    text fits exactly and no NUL is written.
 *  - Error codes and flag bits are ABI: append only, never renumbered.
 */
#ifndef URISAN_H
#define URISAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(URISAN_BUILDING) && defined(__GNUC__)
#define URISAN_API __attribute__((visibility("default")))
#else
#define URISAN_API
#endif

/* Version. URISAN_VERSION ("MAJOR.MINOR.PATCH"), URISAN_VERSION_MAJOR,
   _MINOR, _PATCH and URISAN_VERSION_NUMBER (MAJOR*10000 + MINOR*100 +
   PATCH) come from meson's project version: the installed urisan.h
   (generated at build time, tools/gen_flat_header.py) has them here; in
   the source tree they are in the generated urisan_version.h. The
   soname follows the ABI (README "Library versions"). */
/* The version of the library actually loaded, e.g. "0.2.0". */
URISAN_API const char *urisan_version(void);

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/* URISAN_STATUS(UPPER, lower, value, message) */
#define URISAN_STATUS_LIST(X)                                                 \
    X(OK,              ok,               0, "no error")                       \
    X(NOSPACE,         nospace,          1, "output buffer too small")        \
    X(TOO_LONG,        too_long,         2, "a length bound was hit")         \
    X(BAD_SCHEME,      bad_scheme,       3, "invalid character in scheme")    \
    X(MISSING_SCHEME,  missing_scheme,   4, "colon in first segment without a scheme") \
    X(BAD_USERINFO,    bad_userinfo,     5, "invalid character in userinfo")  \
    X(BAD_HOST,        bad_host,         6, "invalid character in host")      \
    X(BAD_IPV6,        bad_ipv6,         7, "invalid IPv6 address")           \
    X(BAD_IPVFUTURE,   bad_ipvfuture,    8, "invalid IPvFuture literal")      \
    X(BAD_ZONE_ID,     bad_zone_id,      9, "invalid IPv6 zone id")           \
    X(BAD_IP_LITERAL,  bad_ip_literal,  10, "invalid IP literal")             \
    X(BAD_PORT,        bad_port,        11, "invalid character in port")      \
    X(PORT_RANGE,      port_range,      12, "port above 65535")               \
    X(HOST_LENGTH,     host_length,     13, "host name longer than 255 bytes")\
    X(LABEL_LENGTH,    label_length,    14, "host label longer than 63 bytes")\
    X(BAD_PATH,        bad_path,        15, "invalid character in path")      \
    X(BAD_QUERY,       bad_query,       16, "invalid character in query")     \
    X(BAD_FRAGMENT,    bad_fragment,    17, "invalid character in fragment")  \
    X(BAD_ESCAPE,      bad_escape,      18, "percent not followed by two hex digits") \
    X(BASE_NOT_ABSOLUTE, base_not_absolute, 19, "base is not an absolute URI") \
    X(ABOVE_ROOT,      above_root,      20, "dot segments climb above the root") \
    X(BAD_ARGUMENT,    bad_argument,    21, "invalid argument")               \
    X(UNSAFE_OUTPUT,   unsafe_output,   22, "result would re-parse differently") \
    X(BAD_POLICY,      bad_policy,      23, "invalid policy")                 \
    X(TOO_MANY,        too_many,        24, "too many results")

typedef enum {
#define URISAN_X_(U, l, v, m) URISAN_E_##U = v,
    URISAN_STATUS_LIST(URISAN_X_)
#undef URISAN_X_
    URISAN_STATUS_COUNT_
} urisan_status;
#define URISAN_OK URISAN_E_OK

/* "too_long" etc.; "unknown" for a value outside the list. */
URISAN_API const char *urisan_status_name(urisan_status s);
/* One-line English message for the code. */
URISAN_API const char *urisan_status_message(urisan_status s);

typedef struct {
    urisan_status code;
    size_t offset;   /* byte offset in the input where it was detected */
    unsigned input;  /* which input: 0 = the (first) URI, 1 = the second
                        (the reference of resolve, b of equivalent) */
} urisan_error;

/* ------------------------------------------------------------------ */
/* Limits (urisan(1), INPUT and POLICY: limit)                         */
/* ------------------------------------------------------------------ */

typedef struct {
    size_t max_uri;       /* whole input, bytes            (8192) */
    size_t max_scheme;    /* scheme, bytes                   (64) */
    size_t max_userinfo;  /* userinfo, bytes               (1024) */
    size_t max_host;      /* host, bytes                    (255) */
    size_t max_label;     /* one reg-name label, bytes       (63) */
    size_t max_segments;  /* path segments, a count        (1024) */
} urisan_limits;

/* No limit may be raised above this, whatever the caller asks. */
#define URISAN_HARD_CEILING ((size_t)1 << 20)

/* The defaults, the figures above. */
URISAN_API void urisan_limits_default(urisan_limits *lim);

/* ------------------------------------------------------------------ */
/* Parsing (RFC 3986 section 3)                                        */
/* ------------------------------------------------------------------ */

#define URISAN_ABSENT ((size_t)-1)

typedef struct {
    size_t off, len; /* into the caller's input; off == URISAN_ABSENT: absent */
} urisan_span;

static inline int urisan_span_present(urisan_span s) { return s.off != URISAN_ABSENT; }

typedef enum {
    URISAN_HOST_NONE = 0,   /* no authority at all */
    URISAN_HOST_EMPTY,      /* authority with an empty host ("file:///") */
    URISAN_HOST_REG_NAME,
    URISAN_HOST_IPV4,       /* strict dotted-decimal (RFC 3986 3.2.2) */
    URISAN_HOST_IPV6,
    URISAN_HOST_IPV6_ZONE,  /* IPv6 with an RFC 6874 zone id */
    URISAN_HOST_IPVFUTURE,
    URISAN_HOST_INVALID     /* a host starting with "[" that is no valid
                               IP-literal (other bad hosts stay REG_NAME
                               and make the URI invalid) */
} urisan_host_type;

/* "reg-name", "ipv4", "ipv6", "ipv6-zone", "ipvfuture", "empty",
   "invalid"; NULL for URISAN_HOST_NONE. */
URISAN_API const char *urisan_host_type_name(urisan_host_type t);

typedef struct {
    /* The tolerant split (RFC 3986 Appendix B). */
    urisan_span scheme, userinfo, host, port, path, query, fragment;
    urisan_span zone;           /* zone id inside an IPv6 host (raw, after "%25") */
    urisan_host_type host_type;
    uint8_t ip[16];             /* IPV4: ip[0..3]; IPV6(+zone): all 16 bytes */
    uint32_t port_value;        /* numeric port, or URISAN_NO_PORT when the port
                                   is absent, empty, not all digits, or > 65535 */
    size_t segments;            /* number of path segments */
    int valid;                  /* 1: a valid RFC 3986 URI-reference */
    urisan_error error;         /* first validation error (code OK when valid) */
} urisan_uri;
/* ABI (0.2.0): urisan_uri has only the public fields above; 0.1.x carried
   three private ones after them (its size and layout changed, so the
   soname is liburisan.so.0.2; NEWS). urisan_check hands the parse's
   summary to the analysis internally; urisan_parse then urisan_analyze
   each read the input themselves. */

#define URISAN_NO_PORT UINT32_MAX

/*
 * Split and validate in[0..len). lim may be NULL (defaults).
 * Returns URISAN_OK when the input is a valid URI-reference, otherwise
 * the first error (also stored in out->error and *err when err != NULL).
 * Except for URISAN_E_TOO_LONG and URISAN_E_BAD_ARGUMENT, out always holds
 * the complete tolerant split. On URISAN_E_TOO_LONG every component is
 * absent and nothing past the bound was read.
 */
URISAN_API urisan_status urisan_parse(const char *in, size_t len,
                                      const urisan_limits *lim,
                                      urisan_uri *out, urisan_error *err);

/* ------------------------------------------------------------------ */
/* Risk flags (urisan(1), FLAGS)                                       */
/* ------------------------------------------------------------------ */

typedef uint64_t urisan_flags;

typedef enum {
#define URISAN_FLAG(U, l, bit) URISAN_FLAG_##U = bit,
#include "urisan_flags.def"
#undef URISAN_FLAG
    URISAN_FLAG_COUNT_
} urisan_flag;

#define URISAN_F(name) ((urisan_flags)1 << URISAN_FLAG_##name)

/* The flags the core library never sets: the host layer (liburisan-host,
   urisan_host.h) judges them. A build without it refuses a policy that
   denies or flags one (urisan_policy_parse_refuse). */
#define URISAN_HOST_FLAGS \
    (URISAN_F(HOMOGRAPH) | URISAN_F(INVISIBLE_CHAR) | URISAN_F(HOST_UTS46) | \
     URISAN_F(LOOKALIKE) | URISAN_F(BRAND_MISPLACED))

/* "escaped_crlf" etc.; NULL for a bit that names no flag. */
URISAN_API const char *urisan_flag_name(urisan_flag f);
/* Bit number of a flag name (exact, lower-case), or -1. */
URISAN_API int urisan_flag_from_name(const char *name, size_t len);

/* ------------------------------------------------------------------ */
/* Policy (urisan(1), POLICY; doc/policy.md)                           */
/* ------------------------------------------------------------------ */

typedef struct urisan_policy urisan_policy;

/* A policy lives in caller memory of urisan_policy_size() bytes, aligned
   for any object type (malloc'd or max_align_t). */
URISAN_API size_t urisan_policy_size(void);
/* Fill *p with the built-in default policy. */
URISAN_API void urisan_policy_init(urisan_policy *p);
/*
 * Apply a policy file's text on top of *p (call urisan_policy_init first).
 * On a mistake returns URISAN_E_BAD_POLICY, sets *line (1-based) and
 * *msg (static string), and leaves *p in an unspecified but safe state.
 */
URISAN_API urisan_status urisan_policy_parse(urisan_policy *p,
                                             const char *text, size_t len,
                                             size_t *line, const char **msg);
/* The limits of p (NULL: the defaults). When they are the defaults the
   pointer is urisan_policy_limits(NULL)'s. */
URISAN_API const urisan_limits *urisan_policy_limits(const urisan_policy *p);

/* Where a policy text went wrong (urisan_policy_parse_ex). */
typedef struct {
    size_t line;       /* 1-based line; 0 when the mistake is no line's */
    size_t column;     /* 1-based byte column of the word; 0 with no word */
    const char *msg;   /* static English text, without the word */
    size_t word_off;   /* the offending word: text[word_off..+word_len) */
    size_t word_len;   /* 0: the message names no word */
} urisan_policy_error;

/*
 * urisan_policy_parse with the column and the word of a mistake: a
 * front end prints "FILE:LINE:COLUMN: MSG 'WORD'" (doc/policy.md).
 * err may be NULL.
 */
URISAN_API urisan_status urisan_policy_parse_ex(urisan_policy *p,
                                                const char *text, size_t len,
                                                urisan_policy_error *err);

/*
 * urisan_policy_parse_ex refusing the flags in refuse: a `deny` or `flag`
 * line that names one of them (FLAG or nested:FLAG; not `all`, not a
 * built-in profile's lines) is a mistake at that word. A front end built
 * without the host layer passes URISAN_HOST_FLAGS: it never sets them, so
 * a rule on them would load as a silent no-op.
 */
URISAN_API urisan_status urisan_policy_parse_refuse(urisan_policy *p,
                                                    const char *text, size_t len,
                                                    urisan_flags refuse,
                                                    urisan_policy_error *err);

/* The i-th `protect-host` name of *p (lower case, A-labels, not
   NUL-terminated, *len bytes); NULL after the last. p NULL: the default
   policy, which protects none. */
URISAN_API const char *urisan_policy_protected(const urisan_policy *p, size_t i,
                                               size_t *len);
/* A number that names *p's list of protected names: 0 when it has none;
   two lists with the same names in the same order have the same number
   (a hash: a cache of what the host layer makes from the list keys on
   it). */
URISAN_API uint64_t urisan_policy_protected_id(const urisan_policy *p);

/*
 * Built-in profiles (doc/policy.md): named policies for a deployment,
 * written in the policy language. urisan_policy_profile fills *p with
 * profile name[0..len) ("default", "proxy", "ssrf", "mail"); an unknown
 * name is URISAN_E_BAD_POLICY and leaves *p the default policy.
 * urisan_profile_name(i) enumerates them (NULL after the last);
 * urisan_profile_text gives the policy text of one (NULL: unknown).
 */
URISAN_API urisan_status urisan_policy_profile(urisan_policy *p,
                                               const char *name, size_t len);
URISAN_API const char *urisan_profile_name(size_t i);
URISAN_API const char *urisan_profile_text(const char *name, size_t len);

/*
 * The handler schemes (flag handler_scheme; doc/policy.md "Handler
 * schemes"): schemes whose link starts a local program that opens, runs
 * or loads what the link names (ms-word:, search-ms:, ms-msdt: ...).
 * urisan_handler_scheme(i, &what, &source) gives row i's scheme name,
 * what the program does and a public source (a CVE, an advisory, the
 * vendor's documentation); NULL after the last row. what and source may
 * be NULL.
 */
URISAN_API const char *urisan_handler_scheme(size_t i, const char **what, const char **source);

/* A policy holds at most this many `deny-ip` ranges and as many
   `allow-ip` ranges (doc/policy.md "Address rules"); one more is a parse
   error ("too many deny-ip entries"), never a silent truncation. */
#define URISAN_POLICY_MAX_IP_RANGES 1024

/* The policy *p in the policy language: every directive that differs
   from an empty file, one per line; urisan_policy_parse of the text on a
   fresh policy gives the same verdicts. *needed always set. */
URISAN_API urisan_status urisan_policy_format(const urisan_policy *p,
                                              char *buf, size_t cap,
                                              size_t *needed);

typedef struct {
    urisan_flags flags;
    int ip_family;      /* 0: no address; 4 or 6 */
    uint8_t ip[16];     /* the de-obfuscated address of the host */
} urisan_report;

/*
 * Risk analysis of a parsed input (uri from urisan_parse of the same
 * in/len, the bytes unchanged since). pol may be NULL (default policy:
 * its dangerous-scheme list and port table). Spans of uri are checked
 * against len before use, so a uri that does not fit gives a wrong
 * report, never a read outside in[0..len).
 */
URISAN_API urisan_status urisan_analyze(const char *in, size_t len,
                                        const urisan_uri *uri,
                                        const urisan_policy *pol,
                                        urisan_report *out);

/*
 * urisan_parse under pol's limits (pol NULL: the defaults) and then
 * urisan_analyze of the same input, in one call: the parse hands what it
 * saw of the bytes to the analysis, which then need not read them again
 * (urisan_check does the same, then decides). Returns the parse's status;
 * uri, err (may be NULL) and out are filled as the two calls fill them.
 */
URISAN_API urisan_status urisan_parse_analyze(const char *in, size_t len,
                                              const urisan_policy *pol,
                                              urisan_uri *uri, urisan_error *err,
                                              urisan_report *out);

/*
 * Nested URLs (doc/policy.md "Nested URLs"): a query or fragment
 * parameter name=value ("&" or ";" apart) whose value, percent-decoded
 * once - or twice when only that makes it one - is an absolute URI or a
 * network-path reference ("//h", "/\h", "\\h"). urisan_analyze sets
 * nested_url when the URI has one; urisan_nested parses and analyses each
 * of them, and those nested in them up to the policy's nested-depth (1 by
 * default, at most URISAN_NESTED_MAX_DEPTH), and gives the union of their
 * flags (what `deny nested:FLAG` judges; urisan_decide computes it itself
 * when the policy has such a rule). No allocation, no recursion, linear.
 */
#define URISAN_NESTED_MAX_DEPTH 3
/* The scratch urisan_decide gives urisan_nested (on its stack); a value
   that must be decoded and does not fit is judged too_long + invalid. */
#define URISAN_NESTED_SCRATCH 8192

typedef struct {
    unsigned depth;       /* 1: a parameter of the URI itself; 2: of a depth-1 URL ... */
    unsigned decodes;     /* percent-decodings applied to the value: 1, or 2 */
    int incomplete;       /* 1: the decoded value did not fit the scratch: not
                             analysed, flags too_long + invalid, uri the raw value */
    const char *name;     /* the parameter name as written */
    size_t name_len;
    const char *uri;      /* the nested URL as analysed (decoded) */
    size_t uri_len;
    urisan_report report; /* its analysis (flags, address) */
} urisan_nested_url;

typedef struct {
    urisan_flags flags;   /* union of the flags of every nested URL */
    size_t count;         /* nested URLs analysed (every depth) */
    unsigned depth;       /* deepest level reached (0: none) */
} urisan_nested_report;

/* Called once per nested URL, parents before children; name and uri point
   into in or scratch and are valid during the call only. */
typedef void (*urisan_nested_fn)(void *ctx, const urisan_nested_url *n);

/* uri from urisan_parse of in/len; pol may be NULL (depth 1, default
   limits); scratch[0..cap) holds decoded values (cap 0: only values
   without escapes are analysed). fn may be NULL. */
URISAN_API urisan_status urisan_nested(const char *in, size_t len,
                                       const urisan_uri *uri,
                                       const urisan_policy *pol,
                                       char *scratch, size_t cap,
                                       urisan_nested_fn fn, void *ctx,
                                       urisan_nested_report *out);

/* Text of the report's address ("127.0.0.1", "::1"); *needed always set. */
URISAN_API urisan_status urisan_format_ip(const urisan_report *r,
                                          char *buf, size_t cap,
                                          size_t *needed);

typedef enum {
    URISAN_ALLOW = 0,
    URISAN_FLAGGED = 1,
    URISAN_DENY = 2
} urisan_verdict;

/* Reasons that are policy rules rather than flags. */
#define URISAN_REASON_LIST(X)                   \
    X(SCHEME_NOT_ALLOWED, scheme_not_allowed, 0) \
    X(PORT_NOT_ALLOWED,   port_not_allowed,   1) \
    X(HOST_DENIED,        host_denied,        2) \
    X(HOST_NOT_ALLOWED,   host_not_allowed,   3) \
    X(NOT_ABSOLUTE,       not_absolute,       4) \
    X(NO_AUTHORITY,       no_authority,       5) \
    X(IP_DENIED,          ip_denied,          6) \
    X(IP_NOT_ALLOWED,     ip_not_allowed,     7) \
    X(NESTED_HOST_DENIED, nested_host_denied, 8) \
    X(NESTED_IP_DENIED,   nested_ip_denied,   9) \
    X(RESOLVED_IP_DENIED, resolved_ip_denied, 10) \
    X(DNS_NXDOMAIN,       dns_nxdomain,       11) \
    X(DNS_SERVFAIL,       dns_servfail,       12) \
    X(DNS_TIMEOUT,        dns_timeout,        13) \
    X(DNS_FAILED,         dns_failed,         14)

typedef enum {
#define URISAN_X_(U, l, b) URISAN_REASON_##U = b,
    URISAN_REASON_LIST(URISAN_X_)
#undef URISAN_X_
    URISAN_REASON_COUNT_
} urisan_rule_reason;

URISAN_API const char *urisan_rule_reason_name(urisan_rule_reason r);

/*
 * Which rule of a policy a reason of its decision comes from (`urisan
 * check --explain`). kind and bit name the reason: a flag among
 * urisan_decision.deny_flags (URISAN_ORIGIN_DENY_FLAG) or flag_flags
 * (URISAN_ORIGIN_FLAG_FLAG), or a urisan_rule_reason (URISAN_ORIGIN_RULE).
 * Returns the line of the policy text (the last urisan_policy_parse or
 * urisan_policy_parse_ex into p) that last set the flag's rule - for
 * nested_url the flag's own rule when the policy denies (or reports) it,
 * else the last `deny nested:` (`flag nested:`) line - or that first
 * wrote the list or switch the rule reason reads. Returns 0 when the rule
 * comes from a built-in profile, whose name *profile is set to in either
 * case ("default": the built-in default policy every policy starts as;
 * profile may be NULL). p NULL: 0 and "default". No allocation.
 */
typedef enum {
    URISAN_ORIGIN_DENY_FLAG = 0,
    URISAN_ORIGIN_FLAG_FLAG = 1,
    URISAN_ORIGIN_RULE = 2
} urisan_origin_kind;

URISAN_API size_t urisan_policy_origin(const urisan_policy *p, urisan_origin_kind kind,
                                       unsigned bit, const char **profile);
/*
 * urisan_policy_origin for one URI in[0..len) (as given to urisan_decide):
 * for the rule reasons host_denied, ip_denied, nested_host_denied and
 * nested_ip_denied the line of the deny-host or deny-ip entry that
 * matched it (the first in the list's order that matches, as
 * urisan_decide reads the list; 0 and *profile when that entry is the
 * profile's), so `deny-host a.example` on line 2 and `deny-host
 * b.example` on line 5 name line 5 for b.example. Every other reason, and
 * a URI no entry matches as written (a host only its UTS #46 form
 * matches: urisan_policy_origin_with), as urisan_policy_origin. Parses
 * in again: for an explanation, not the hot path. No allocation.
 */
URISAN_API size_t urisan_policy_origin_uri(const urisan_policy *p, const char *in, size_t len,
                                           urisan_origin_kind kind, unsigned bit,
                                           const char **profile);
/* "allow", "flag", "deny" */
URISAN_API const char *urisan_verdict_name(urisan_verdict v);

typedef struct {
    urisan_verdict verdict;
    urisan_flags deny_flags;   /* flags that caused the deny */
    urisan_flags flag_flags;   /* flags that were only reported */
    unsigned rules;            /* bit set of urisan_rule_reason that denied */
} urisan_decision;

/*
 * The reasons of a decision, deny reasons apart from flag-only ones:
 * "denied:R,R...;flagged:F,F..." - the denying flags (bit order), then
 * the rules that denied (reason order); after ";" the flags only
 * reported. Either part is left out when empty; an allowed URI gives ""
 * (*needed 0). The same text as `urisan check` and the Squid helper's
 * log= show. *needed is always set; URISAN_E_NOSPACE when cap is short.
 */
URISAN_API urisan_status urisan_decision_format(const urisan_decision *d,
                                                char *buf, size_t cap,
                                                size_t *needed);

/*
 * A list of reasons alone: the names of the flags f (bit order), then of
 * the rules (a bit set of urisan_rule_reason, reason order), joined by
 * ",": "homograph,idn,no_authority"; "" (*needed 0) for none. The lists
 * inside urisan_decision_format's text, and those of serve's
 * X-Urisan-Deny-Reasons / X-Urisan-Flag-Reasons headers, the Squid
 * helper's message and the Lua module's verdict: urisan_reasons_format(
 * d.deny_flags, d.rules, ...) for a denied decision's, (d.flag_flags, 0,
 * ...) for the flags only reported. Bits with no name are left out.
 * *needed is always set; URISAN_E_NOSPACE when cap is short;
 * URISAN_E_BAD_ARGUMENT when needed is NULL.
 */
URISAN_API urisan_status urisan_reasons_format(urisan_flags f, unsigned rules,
                                               char *buf, size_t cap,
                                               size_t *needed);

URISAN_API void urisan_decide(const char *in, size_t len,
                              const urisan_uri *uri,
                              const urisan_report *rep,
                              const urisan_policy *pol,
                              urisan_decision *out);

/*
 * More flags of a nested URL than the core's analysis gives it: the host
 * layer's judgement of its host (urisan_host.h: homograph, invisible_char,
 * host_uts46 - URISAN_HOST_FLAGS; other bits are ignored). Called by
 * urisan_decide_more for each reading of each nested URL it analyses,
 * uri[0..len) the text a client follows (decoded, valid during the call
 * only), when the policy has a `deny nested:FLAG` or `flag nested:FLAG`
 * rule on one of those flags; a value too long to decode counts as having
 * all of them (fail closed).
 */
typedef urisan_flags (*urisan_nested_more_fn)(void *ctx, const char *uri, size_t len);

/* urisan_decide, the union that `deny nested:FLAG` judges taking what
   more (NULL: nothing) gives each nested URL. The host layer's decision
   (urisan_judge) calls it; urisan_decide is this with more NULL. */
URISAN_API void urisan_decide_more(const char *in, size_t len,
                                   const urisan_uri *uri,
                                   const urisan_report *rep,
                                   const urisan_policy *pol,
                                   urisan_nested_more_fn more, void *mctx,
                                   urisan_decision *out);

/*
 * The host a client resolves for host[0..n) - a URI's host as written, or
 * a nested URL's as decoded, percent-escapes and all - when that is
 * another name: UTS #46 processing (percent-decoding, mapping, A-labels),
 * which the host layer does (urisan_host.h). Writes it to out[0..cap)
 * (no NUL needed) and returns its length; 0: the host as written is what
 * a client resolves, or it is no name (an IP literal is the analysis'
 * own); URISAN_HOST_MAP_FAILED: it could not be told (no memory, longer
 * than cap), and the host then counts as in every deny-host list and in
 * no allow-host list (fail closed). Asked only about a host with a
 * non-ASCII byte or a percent-escape, and only under a policy with
 * deny-host or allow-host entries.
 */
typedef size_t (*urisan_host_map_fn)(void *ctx, const char *host, size_t n, char *out,
                                     size_t cap);
#define URISAN_HOST_MAP_FAILED SIZE_MAX
#define URISAN_MAPPED_HOST_MAX 256   /* cap: a DNS name (253) and more */

/* What urisan_decide_with asks its caller; a NULL function: nothing. */
typedef struct {
    urisan_nested_more_fn more;   /* as urisan_decide_more */
    void *more_ctx;
    urisan_host_map_fn map;       /* the host a client resolves */
    void *map_ctx;
} urisan_decide_hooks;

/* urisan_decide asking hooks (NULL: urisan_decide): nested rules take
   what more gives (urisan_decide_more); deny-host and allow-host judge,
   besides the host as written, the form map gives - a URI passes them
   only when both forms pass - and deny-host judges each nested URL's
   host the same way. The host layer's one decision (urisan_judge) is
   this call: a host written in fullwidth letters, with a zero-width
   space, percent-encoded or as U-labels meets `deny-host evil.example
   xn--bcher-kva.de` in the form a browser resolves. */
URISAN_API void urisan_decide_with(const char *in, size_t len,
                                   const urisan_uri *uri,
                                   const urisan_report *rep,
                                   const urisan_policy *pol,
                                   const urisan_decide_hooks *hooks,
                                   urisan_decision *out);

/* urisan_policy_origin_uri with the hosts also in the form hooks' map
   gives (hooks NULL: urisan_policy_origin_uri): the entry behind a
   host_denied that only the form a browser resolves matched. The host
   layer's urisan_judge_origin passes its own map. */
URISAN_API size_t urisan_policy_origin_with(const urisan_policy *p, const char *in, size_t len,
                                            urisan_origin_kind kind, unsigned bit,
                                            const urisan_decide_hooks *hooks,
                                            const char **profile);

/* 1 when p has deny-host or allow-host entries (which a host map,
   urisan_decide_with, can concern), else 0 (p NULL: the default policy,
   which has none). */
URISAN_API int urisan_policy_lists_hosts(const urisan_policy *p);

/* 1 when a `deny nested:FLAG` or `flag nested:FLAG` rule of p names a
   flag of f, else 0 (p NULL: the default policy, which has none). */
URISAN_API int urisan_policy_judges_nested(const urisan_policy *p, urisan_flags f);

/*
 * The address rule (doc/policy.md "Address rules", "Names that resolve
 * inside" in SECURITY.md): one address a client is about to connect to -
 * family 4 (addr[0..4)) or 6 (addr[0..16)), in network byte order - judged
 * as urisan_decide judges a host that is that address written as an IP
 * literal: its address classes (ip_loopback ... ip_broadcast, and
 * ip_embedded with the classes of the IPv4 address an IPv4-mapped,
 * -compatible, NAT64, 6to4 or Teredo address carries) against the
 * policy's deny and flag rules, its deny-ip and allow-ip ranges, and the
 * deny-host entries that are addresses. The same code judges the literal
 * (one implementation). pol NULL: the default policy. out is always
 * filled; a family other than 4 or 6 is URISAN_E_BAD_ARGUMENT and
 * denied (deny_flags invalid). No allocation.
 */
typedef struct {
    urisan_verdict verdict;
    urisan_flags class_flags;  /* the address's classes (ip_loopback ..., ip_embedded) */
    urisan_flags deny_flags;   /* the classes that denied it */
    urisan_flags flag_flags;   /* the classes only reported */
    unsigned rules;            /* ip_denied, ip_not_allowed, host_denied */
} urisan_addr_decision;

URISAN_API urisan_status urisan_judge_addr(const urisan_policy *pol, int family,
                                           const uint8_t *addr,
                                           urisan_addr_decision *out);

/* parse + analyze + decide with the policy's limits (pol NULL: default). */
URISAN_API urisan_status urisan_check(const char *in, size_t len,
                                      const urisan_policy *pol,
                                      urisan_uri *uri, urisan_report *rep,
                                      urisan_decision *dec);

/*
 * A reference judged by where it leads: ref resolved against base (RFC
 * 3986 5.2, strict, ".." above the root dropped, both parsed with the
 * policy's limits), the resolved URI written to buf[0..*needed) (*needed
 * always set). uri: the parse of ref as written. The flags in rep are the
 * union of the facts about ref, about the resolved URI and about the merged
 * path before dot removal (dot_above_root); the scheme/host/port/address
 * rules and host_ip judge the resolved URI. A reference that cannot be
 * resolved (a base that is no absolute URI, an invalid ref, no room in buf)
 * is judged as written with flag invalid, and the status and *err say why
 * (err->input: 0 base, 1 ref; URISAN_E_NOSPACE: call again with cap >=
 * *needed). rep and dec are always filled. uri, rep, dec, needed and err
 * may be NULL; with dec NULL no decision is taken, only the facts (what
 * a caller that decides itself needs: liburisan-host's urisan_judge_base
 * adds its host judgement and decides once). `urisan check --base`
 * prints this.
 */
URISAN_API urisan_status urisan_check_base(const char *base, size_t blen,
                                           const char *ref, size_t rlen,
                                           const urisan_policy *pol,
                                           char *buf, size_t cap, size_t *needed,
                                           urisan_uri *uri, urisan_report *rep,
                                           urisan_decision *dec, urisan_error *err);

/*
 * The domains of a mailto: URI's addresses (RFC 6068 2: "to" is
 * addresses "," apart; an address's domain is what follows its last
 * "@", which a quoted local part may also hold). uri: the parse of
 * in[0..len), a mailto: URI without a host. Call with *pos = 0, then
 * again while it returns 1: each call sets *domain (a span of in) to the
 * domain of the next address that has an "@". 0: no address is left, or
 * in is no mailto: URI.
 */
URISAN_API int urisan_mailto_domain(const char *in, size_t len, const urisan_uri *uri,
                                    size_t *pos, urisan_span *domain);

/* ------------------------------------------------------------------ */
/* Default ports                                                       */
/* ------------------------------------------------------------------ */

/* Registered default port of a scheme (case-insensitive), or -1. */
URISAN_API int urisan_default_port(const char *scheme, size_t len);

/* ------------------------------------------------------------------ */
/* Resolution, normalisation, equivalence (RFC 3986 sections 5, 6)     */
/* ------------------------------------------------------------------ */

typedef enum {
    URISAN_ABOVE_ROOT_CLAMP = 0, /* RFC 3986: "/../g" -> "/g" */
    URISAN_ABOVE_ROOT_KEEP,      /* RFC 2396: keep the excess ".." */
    URISAN_ABOVE_ROOT_REJECT     /* URISAN_E_ABOVE_ROOT */
} urisan_above_root;

typedef struct {
    int non_strict;                 /* RFC 3986 5.2.2: "http:g" is relative */
    urisan_above_root above_root;
    const urisan_limits *limits;    /* NULL: defaults */
} urisan_resolve_opts;

/*
 * RFC 3986 5.2 resolution of ref against base (which must be an absolute
 * URI). opt may be NULL (strict, clamp, default limits). *flags (may be
 * NULL) receives DOT_SEGMENTS/DOT_ABOVE_ROOT as judged on the merged path.
 */
URISAN_API urisan_status urisan_resolve(const char *base, size_t blen,
                                        const char *ref, size_t rlen,
                                        const urisan_resolve_opts *opt,
                                        char *buf, size_t cap, size_t *needed,
                                        urisan_flags *flags,
                                        urisan_error *err);

/* RFC 3986 6.2.2 + 6.2.3 normal form. Idempotent. */
URISAN_API urisan_status urisan_normalize(const char *in, size_t len,
                                          const urisan_limits *lim,
                                          char *buf, size_t cap,
                                          size_t *needed, urisan_error *err);

/*
 * *equal = 1 when a and b are equal after normalisation. work is scratch
 * space; *needed reports the size it must have (URISAN_E_NOSPACE).
 */
URISAN_API urisan_status urisan_equivalent(const char *a, size_t alen,
                                           const char *b, size_t blen,
                                           const urisan_limits *lim,
                                           char *work, size_t cap,
                                           size_t *needed, int *equal,
                                           urisan_error *err);

/* ------------------------------------------------------------------ */
/* Extraction from free text (urisan(1), EXTRACT)                      */
/* ------------------------------------------------------------------ */

/*
 * How a hit was written: bits of urisan_hit.form. The delimiting rules
 * are those of RFC 2396 Appendix E and F (RFC 3986 Appendix C);
 * doc/extract.md has the details and the heuristics.
 */
#define URISAN_HIT_ANGLE          (1u << 0) /* inside <...>: any scheme */
#define URISAN_HIT_QUOTED         (1u << 1) /* inside "..." */
#define URISAN_HIT_URL_PREFIX     (1u << 2) /* after "URL:" (RFC 2396 E) */
#define URISAN_HIT_WRAPPED        (1u << 3) /* <...> over lines: the line
                                               breaks and the white space
                                               around them are dropped, uri
                                               is in scratch */
#define URISAN_HIT_HYPHEN_BREAK   (1u << 4) /* a line of it ended right after
                                               "-": the hyphen may be a
                                               typesetter's (RFC 2396 E) */
#define URISAN_HIT_HYPHEN_DROPPED (1u << 5) /* the second reading of a
                                               HYPHEN_BREAK hit: those
                                               hyphens left out */
#define URISAN_HIT_ABBREVIATED    (1u << 6) /* "www." or "ftp." form
                                               without a scheme (Appendix
                                               F): uri is "http://" (for
                                               "ftp.": "ftp://") + the text
                                               (the text alone when longer
                                               than max_uri: too_long
                                               anyway) */
#define URISAN_HIT_TRIMMED        (1u << 7) /* trailing punctuation, or a
                                               closing bracket without an
                                               opening one in the URI (and
                                               what follows it), was left
                                               out */

typedef struct {
    size_t off, len;          /* the URI as written in the text: delimiters,
                                 "URL:" and left-out punctuation excluded;
                                 a WRAPPED hit includes its line breaks */
    const char *uri;          /* the URI a reader would open: text + off,
                                 or in scratch (WRAPPED, ABBREVIATED) */
    size_t uri_len;
    unsigned form;            /* URISAN_HIT_* bits */
    urisan_flags flags;       /* urisan_analyze of uri */
    urisan_decision decision; /* urisan_decide of uri under the policy */
} urisan_hit;

/* Scratch that always holds the assembled text of one hit (and of its
   HYPHEN_DROPPED twin) for a given max_uri. */
#define URISAN_EXTRACT_SCRATCH(max_uri) (2 * ((size_t)(max_uri) + 8))

/* URISAN_EXTRACT_SCRATCH of the policy's max_uri (pol NULL: default). */
URISAN_API size_t urisan_extract_scratch_size(const urisan_policy *pol);

/*
 * Find URI references in text[start..len) (urisan(1), EXTRACT) and store up to
 * cap hits (cap >= 2: a HYPHEN_BREAK hit and its HYPHEN_DROPPED twin are
 * stored together) in text order, with *count set to how many. Each hit
 * is analysed and decided under pol (NULL: the default policy; its limits
 * apply). scratch (scratch_cap bytes, may be NULL when 0) holds assembled
 * URIs; hits point into it, so it must outlive them and not be reused
 * before they are read.
 *
 * *next is where to continue. Returns
 *   URISAN_OK           the text was scanned to the end (*next == len);
 *   URISAN_E_TOO_MANY   hits or scratch were full: call again with
 *                       start = *next for the rest; no hit is lost or
 *                       repeated, and the results equal one big call;
 *   URISAN_E_NOSPACE    not even the first hit fits in scratch_cap (which
 *                       is below urisan_extract_scratch_size); *next is
 *                       where that hit begins;
 *   URISAN_E_BAD_ARGUMENT  start > len, cap < 2, or a NULL pointer.
 * Linear time in len - start; nothing is read past len.
 */
URISAN_API urisan_status urisan_extract(const char *text, size_t len,
                                        size_t start,
                                        const urisan_policy *pol,
                                        urisan_hit *hits, size_t cap,
                                        size_t *count,
                                        char *scratch, size_t scratch_cap,
                                        size_t *next);

/*
 * urisan_extract over a stream read piece by piece. more 0: exactly
 * urisan_extract. more non-zero: the text goes on past len, so a candidate
 * whose outcome needs a byte at or past len is left undecided: the call
 * stops there and returns URISAN_OK with *next at its first byte
 * (*next < len), and none of its hits. Call again, once more text has
 * arrived, with a buffer that holds the text from *next - 1 on (the byte
 * before a start decides whether a word starts there; start 0 means the
 * start of the whole text) and start at the same byte. Every hit a call
 * returns is the one urisan_extract returns for the whole text, with off
 * relative to the buffer. A candidate reads at most 4 * max_uri + 256
 * bytes, except runs with no white space, control byte, '<', '>' or '"'
 * (a bare URI) and runs of blanks after "URL:", which are read to their
 * end: the caller bounds what it keeps.
 */
URISAN_API urisan_status urisan_extract_more(const char *text, size_t len,
                                             size_t start, int more,
                                             const urisan_policy *pol,
                                             urisan_hit *hits, size_t cap,
                                             size_t *count,
                                             char *scratch, size_t scratch_cap,
                                             size_t *next);

/*
 * The decision of a link found in text or mail, taken by the caller:
 * in[0..len) the URI, uri its parse under pol's limits, rep its analysis
 * plus what the finder knows of it (liburisan-mail: link_text_mismatch),
 * display[0..dlen) the link text (NULL: none). The function may add
 * flags to rep->flags (they are the link's flags then) and fills *out:
 * the link's one decision under pol (urisan_decide, or
 * urisan_decide_with with hooks of its own). The host layer's
 * urisan_judge_link_decide (urisan_host.h) is one: its host judgement
 * folded in before the one decision.
 */
typedef void (*urisan_link_decide_fn)(void *ctx, const urisan_policy *pol,
                                      const char *in, size_t len,
                                      const urisan_uri *uri, urisan_report *rep,
                                      const char *display, size_t dlen,
                                      urisan_decision *out);

/* What urisan_extract_with (and liburisan-mail's urisan_mail_scan_with)
   asks its caller; decide NULL: urisan_decide, as without hooks. */
typedef struct {
    urisan_link_decide_fn decide;
    void *decide_ctx;
} urisan_link_hooks;

/*
 * urisan_extract_more with the decision of each hit taken by hooks
 * (NULL: urisan_decide, which is urisan_extract_more): each hit is
 * parsed and analysed once, then hooks->decide is called once for it,
 * in the order the hits are stored and before the call returns; a hit's
 * flags and decision are what it left in rep->flags and *out. A candidate
 * left undecided (more) or not stored (hits or scratch full) is not
 * decided.
 */
URISAN_API urisan_status urisan_extract_with(const char *text, size_t len,
                                             size_t start, int more,
                                             const urisan_policy *pol,
                                             const urisan_link_hooks *hooks,
                                             urisan_hit *hits, size_t cap,
                                             size_t *count,
                                             char *scratch, size_t scratch_cap,
                                             size_t *next);

/*
 * For a caller that decides each hit of urisan_extract_with when it
 * delivers it (so that what its decision keeps of a link - a host view -
 * is that link's): urisan_link_keep, as the hook with a keeper as its
 * context, keeps each hit's parse and report in facts[n++] and leaves the
 * hit undecided (decision all zero; flags the analysis'). Set n to 0
 * before each call; after it n equals *count, and facts[k] is hit k's.
 * A hit past cap is counted but not kept.
 */
typedef struct {
    urisan_uri uri;
    urisan_report rep;
} urisan_link_facts;

typedef struct {
    urisan_link_facts *facts;  /* room for cap hits */
    size_t cap;
    size_t n;                  /* hits kept (or counted past cap) */
} urisan_link_keeper;

URISAN_API void urisan_link_keep(void *keeper, const urisan_policy *pol,
                                 const char *in, size_t len,
                                 const urisan_uri *uri, urisan_report *rep,
                                 const char *display, size_t dlen,
                                 urisan_decision *out);


/* ------------------------------------------------------------------ */
/* A request as a gateway has it                                       */
/* ------------------------------------------------------------------ */

/*
 * The URI a gateway is about to forward, rebuilt from the parts of an
 * HTTP request (RFC 9110, RFC 9112) so that no part can move a byte into
 * another component: values are copied, never decoded, and every part is
 * checked before it is used. urisan_judge_request (urisan_host.h) judges
 * what this rebuilds; every gateway door (`urisan serve`, squid-acl, the
 * Lua and Python modules) calls that one, never a URI put together by
 * hand. No allocation, linear in the parts' lengths.
 *
 * The header fields read (names matched ASCII case-insensitively). Host
 * is the request's own (HTTP/2 and HTTP/3: :authority); the others are
 * those a trusted gateway sends with the original request's URI.
 */
#define URISAN_REQUEST_HEADER_LIST(X)                 \
    X(ORIGINAL_URL,    "X-Original-URL")              \
    X(ORIGINAL_URI,    "X-Original-URI")              \
    X(ORIGINAL_HOST,   "X-Original-Host")             \
    X(ORIGINAL_PROTO,  "X-Original-Proto")            \
    X(FORWARDED_URI,   "X-Forwarded-Uri")             \
    X(FORWARDED_HOST,  "X-Forwarded-Host")            \
    X(FORWARDED_PROTO, "X-Forwarded-Proto")           \
    X(HOST,            "Host")

typedef enum {
#define URISAN_X_(U, name) URISAN_REQH_##U,
    URISAN_REQUEST_HEADER_LIST(URISAN_X_)
#undef URISAN_X_
    URISAN_REQH_COUNT_
} urisan_request_header;

/* Where the URI comes from, in a trust order (`urisan serve --trust`). */
#define URISAN_REQUEST_SOURCE_LIST(X)        \
    X(ORIGINAL_URL,  "original-url")         \
    X(ORIGINAL_URI,  "original-uri")         \
    X(FORWARDED_URI, "forwarded-uri")        \
    X(TARGET,        "target")

typedef enum {
#define URISAN_X_(U, name) URISAN_REQSRC_##U,
    URISAN_REQUEST_SOURCE_LIST(URISAN_X_)
#undef URISAN_X_
    URISAN_REQSRC_COUNT_
} urisan_request_source;

/* Why a request has no URI to judge: the part rejected, the deny reason
   of urisan_judge_request. ABI: append only, never renumbered. */
#define URISAN_REQUEST_REASON_LIST(X)                                             \
    X(OK,             "ok",               0)  /* a URI was rebuilt */            \
    X(NO_SOURCE,      "no_uri",           1)  /* no trusted source present */    \
    X(DUPLICATE,      "duplicate_header", 2)  /* Host or a header used, twice */ \
    X(BAD_HOST,       "bad_host_header",  3)  /* not uri-host [":" port] */      \
    X(NO_HOST,        "no_host_header",   4)  /* the source has no host */       \
    X(BAD_PROTO,      "bad_proto_header", 5)  /* the scheme is not a scheme */   \
    X(BAD_PATH,       "bad_uri_header",   6)  /* the target or URI header is
                                                 not origin-form */              \
    X(OUTSIDE_PREFIX, "outside_prefix",   7)  /* target without strip_prefix */  \
    X(TOO_LONG,       "too_long",         8)  /* longer than the buffer */       \
    X(HOST_MISMATCH,  "host_mismatch",    9)  /* an absolute-form target whose
                                                 authority is not the Host */    \
    X(AUTHORITY_FORM, "authority_form",  10)  /* CONNECT: a tunnel, no URI */    \
    X(ASTERISK_FORM,  "asterisk_form",   11)  /* OPTIONS *: no URI */            \
    X(BAD_METHOD,     "bad_method",      12)  /* the method is not a token */

typedef enum {
#define URISAN_X_(U, name, v) URISAN_REQUEST_##U = v,
    URISAN_REQUEST_REASON_LIST(URISAN_X_)
#undef URISAN_X_
    URISAN_REQUEST_REASON_COUNT_
} urisan_request_reason;

typedef struct {
    const char *p;     /* NULL: absent */
    size_t len;
    unsigned count;    /* how many times the field came (2: more than once) */
} urisan_request_field;

typedef struct {
    urisan_request_field h[URISAN_REQH_COUNT_];  /* header fields */
    const char *scheme;   /* the connection's scheme ("https"); NULL:
                             X-Forwarded-Proto, else "http" */
    size_t scheme_len;
    const char *target;   /* the request-target as received; NULL: none */
    size_t target_len;
    const char *method;   /* NULL: GET */
    size_t method_len;
} urisan_request;

typedef struct {
    urisan_request_source order[URISAN_REQSRC_COUNT_];  /* first present wins */
    size_t n;                                           /* sources in order[] */
    const char *strip_prefix;   /* target source: the prefix the gateway adds
                                   (NULL: none; an absolute-form target is
                                   then not taken) */
    size_t strip_len;
} urisan_request_trust;

/* "X-Original-URL", "original-url", "bad_host_header"; "unknown" outside
   the lists. */
URISAN_API const char *urisan_request_header_name(urisan_request_header h);
URISAN_API const char *urisan_request_source_name(urisan_request_source s);
URISAN_API const char *urisan_request_reason_name(urisan_request_reason r);
/* The header id of name[0..len) (ASCII case-insensitive), or -1. */
URISAN_API int urisan_request_header_id(const char *name, size_t len);

/* An empty request: no field, no target, no scheme, no method. */
URISAN_API void urisan_request_init(urisan_request *r);
/* Record one received header field; a field not in the list is ignored.
   The first value is kept, later ones only counted. */
URISAN_API void urisan_request_add(urisan_request *r, const char *name, size_t nlen,
                                   const char *val, size_t vlen);

/* The trust of a gateway judging its own request: the target alone (with
   Host or :authority), no forwarded header. */
URISAN_API void urisan_request_trust_init(urisan_request_trust *t);
/* A trust order: comma-separated source names, each at most once, at
   least one. URISAN_E_BAD_ARGUMENT on a mistake, with *bad_off and
   *bad_len the offending word (the whole list when it is empty). */
URISAN_API urisan_status urisan_request_trust_parse(const char *list, size_t len,
                                                    urisan_request_trust *t,
                                                    size_t *bad_off, size_t *bad_len);

/*
 * The URI to judge, into buf[0..cap), *len its length (0 unless OK);
 * *used the source taken (set whenever one was present). t NULL: the
 * target alone. The first trusted source present wins:
 *   original-url   X-Original-URL, as is;
 *   original-uri   X-Original-Proto (else X-Forwarded-Proto, else http)
 *                  "://" X-Original-Host X-Original-URI;
 *   forwarded-uri  X-Forwarded-Proto (else http) "://" X-Forwarded-Host
 *                  X-Forwarded-Uri;
 *   target         the request's own: its method is checked first (a
 *                  token, RFC 9110 5.6.2; CONNECT's authority-form is a
 *                  tunnel and asterisk-form "*" names no resource: both
 *                  refused); an absolute-form target (RFC 9112 3.2.2) as
 *                  is, its authority equal to Host's when Host is present
 *                  (ASCII case aside, a scheme's default port written or
 *                  not); else the scheme (r->scheme, else
 *                  X-Forwarded-Proto, else http) "://" Host, then the
 *                  origin-form target (less strip_prefix).
 * A host field (Host, X-Original-Host, X-Forwarded-Host) is RFC 9110
 * 7.2's uri-host [":" port]: not empty, no / ? # @ \ (they end the
 * authority or split off a userinfo, RFC 3986 3.2; "\" to WHATWG
 * parsers), no comma (a list: a gateway may take one element and the
 * origin another), no space, control or DEL; bytes >= 0x80 are kept (the
 * host layer judges them). A field used that came more than once is
 * duplicate_header. A path must start with "/" (origin-form, RFC 9112
 * 3.2.1).
 */
URISAN_API urisan_request_reason urisan_request_uri(const urisan_request *r,
                                                    const urisan_request_trust *t,
                                                    char *buf, size_t cap, size_t *len,
                                                    urisan_request_source *used);

/* ------------------------------------------------------------------ */
/* The result of one URI, described once                               */
/* ------------------------------------------------------------------ */

/*
 * What every door gives for one URI - a line of `urisan check --json`,
 * the Python module's check() dict, the Lua module's check() table - is
 * one list of keys (doc/output.md, doc/urisan-output.schema.json): each
 * key's name, JSON type, when it is present, and how its value is read
 * from the decision and the host's forms (urisan_result_value). A front
 * end walks the list in order and writes each value in its own form, so
 * a key added to the list appears in every door.
 */
typedef enum {
    URISAN_RV_NULL = 0,
    URISAN_RV_BOOL,     /* b */
    URISAN_RV_UINT,     /* u */
    URISAN_RV_TEXT,     /* a string of any bytes: s[0..n) */
    URISAN_RV_NAME,     /* a string: s[0..n), a library name (printable ASCII
                           without '"' or '\\') */
    URISAN_RV_NAMES,    /* an array of names: the flags of first, the rule
                           reasons of rules, the flags of last, each in bit
                           order */
    URISAN_RV_ERROR,    /* an object {"code": the status name of err.code,
                           "offset": err.offset, "message": its message} */
    URISAN_RV_OBJECT,   /* an object: the keys key->sub of the same result */
    URISAN_RV_NESTED,   /* an array of objects, one a nested URL
                           (urisan_result_nested), of the keys key->sub */
    URISAN_RV_FRONT,    /* what the front end writes itself (the command's
                           line, lineno, explain, resolve) */
    URISAN_RV_FORMS     /* an array of names: the URISAN_HIT_* bits of u,
                           in bit order (urisan_hit_form_name) */
} urisan_rv_kind;

typedef struct {
    urisan_rv_kind kind;
    int b;                      /* URISAN_RV_BOOL: 0 or 1 */
    uint64_t u;
    const char *s;
    size_t n;
    urisan_flags first, last;   /* URISAN_RV_NAMES */
    unsigned rules;
    urisan_error err;           /* URISAN_RV_ERROR */
    char text[64];              /* where s points for a text made here (host_ip) */
} urisan_rvalue;

/* When a key is in a result: every bit of urisan_result_key.when is in
   the front end's mode. */
#define URISAN_RK_BASE 1u     /* a base was given (check --base, check(base=)) */
#define URISAN_RK_HOST 2u     /* the front end decides with liburisan-host */
#define URISAN_RK_LOG 4u      /* the command read a log line (--format) */
#define URISAN_RK_EXPLAIN 8u  /* the command's --explain */
#define URISAN_RK_RESOLVE 16u /* the command's --resolve (liburisan-net) */
#define URISAN_RK_MAILBOX 32u /* the command read a mailbox (mbox, Maildir):
                                 a row's message (urisan_link_row_keys) */

/* urisan_result_key.shown */
#define URISAN_RS_ALWAYS 0u   /* in every result of its mode */
#define URISAN_RS_NAMED 1u    /* only when asked for by name (--fields) */
#define URISAN_RS_NESTED 2u   /* only when the flags have nested_url */
#define URISAN_RS_SET 3u      /* only when its value is not null (a row's
                                 header, written, page ...) */

/* What a value is read from (urisan_result_key.reads): a front end may
   keep what it wrote of a key and write it again for a result that has
   the same of these. */
#define URISAN_RR_INPUT 1u     /* in, len and its parse (uri) */
#define URISAN_RR_FLAGS 2u     /* rep->flags */
#define URISAN_RR_REPORT 4u    /* the rest of rep (the address) */
#define URISAN_RR_DECISION 8u  /* *dec */
#define URISAN_RR_HOST 16u     /* the host's forms */
#define URISAN_RR_BASE 32u     /* resolved, rlen, rerr */
#define URISAN_RR_LENGTH 64u   /* full_len, truncated */
#define URISAN_RR_NESTED 128u  /* the nested URLs (a walk of the URI) */

typedef struct urisan_result_key {
    const char *name;
    const char *type;         /* its JSON Schema type: "string", "boolean",
                                 "integer", "array", "object", or two with
                                 '|' ("string|null") */
    unsigned when;            /* URISAN_RK_* */
    unsigned shown;           /* URISAN_RS_* */
    unsigned stage;           /* 0: of the parse, 1: of the analysis,
                                 2: of the decision (the Python module's
                                 parse(), analyse(), check()) */
    unsigned reads;           /* URISAN_RR_* */
    const struct urisan_result_key *sub;   /* URISAN_RV_OBJECT, _NESTED */
    size_t nsub;
    unsigned id;              /* what urisan_result_value reads */
} urisan_result_key;

/* One URI's result: what urisan_result_value reads. */
typedef struct {
    const char *in;             /* the input as written */
    size_t len;
    size_t full_len;            /* its length before a reader cut it */
    int truncated;              /* 1: it was cut (full_len > len) */
    const urisan_uri *uri;      /* in's parse */
    const urisan_report *rep;
    const urisan_decision *dec;
    const urisan_policy *pol;   /* the nested URLs' depth (NULL: default) */
    const char *resolved;       /* with a base: where in leads; NULL: not */
    size_t rlen;                /* resolved (rerr: why) */
    urisan_error rerr;
    /* host_unicode, host_skeleton, host_imitates, registrable_domain:
       NULL is null (liburisan-host's urisan_result_host sets them) */
    const char *host_form[4];
    size_t host_form_len[4];
    /* the flags a nested URL is listed with; NULL: its analysis' */
    urisan_flags (*nested_flags)(void *arg, const urisan_policy *pol,
                                 const urisan_nested_url *nu);
    void *nested_arg;
} urisan_result;

/* The keys of a result, in order (*n: how many). */
URISAN_API const urisan_result_key *urisan_result_keys(size_t *n);
/* The key of that name among keys[0..n), or NULL. */
URISAN_API const urisan_result_key *urisan_result_key_named(const urisan_result_key *keys,
                                                            size_t n, const char *name,
                                                            size_t len);
/* Is key k in r's result, its mode aside (URISAN_RS_NESTED: r's flags
   have nested_url)? 1 or 0. */
URISAN_API int urisan_result_present(const urisan_result *r, const urisan_result_key *k);
/* The value of key k (of urisan_result_keys, or a sub key of an object)
   of r. */
URISAN_API void urisan_result_value(const urisan_result *r, const urisan_result_key *k,
                                    urisan_rvalue *v);

/* At most this many nested URLs are listed (the first in the library's
   order: parents before children, left to right); "nested_capped" says
   when there were more. */
#define URISAN_RESULT_NESTED_MAX 16

/* The nested URLs of r's URI (the resolved one with a base): fn for each
   of the first URISAN_RESULT_NESTED_MAX, with the flags it is listed
   with; returns how many there are (0: none, or the walk failed). */
typedef void (*urisan_result_nested_fn)(void *arg, const urisan_nested_url *nu,
                                        urisan_flags flags);
URISAN_API size_t urisan_result_nested(const urisan_result *r, urisan_result_nested_fn fn,
                                       void *arg);
/* The value of sub key k of the "nested" key for one nested URL. */
URISAN_API void urisan_nested_value(const urisan_nested_url *nu, urisan_flags flags,
                                    const urisan_result_key *k, urisan_rvalue *v);

/* ------------------------------------------------------------------ */
/* The row of one link found, described once                           */
/* ------------------------------------------------------------------ */

/*
 * What every door gives for one link that extraction finds - a line of
 * `urisan extract --json` (free text, or a mail message with --mail),
 * a dict of the Python module's extract() and extract_mail(), a table of
 * the Lua module's - is one list of keys too (doc/output.md,
 * doc/urisan-output.schema.json), of the same type as a result's:
 * urisan_link_row_keys. Their stage is 0, reads URISAN_RR_FLAGS or
 * URISAN_RR_DECISION for the keys read from those alone (else 0); when
 * and shown are as above (URISAN_RS_SET: a key present only with a value, as "header"
 * or "page"). A row is filled from a free-text hit (urisan_link_row_hit),
 * from a mail hit or a mail limit reached (liburisan-mail's
 * urisan_mail_hit_row, urisan_mail_diag_row), its host's forms by
 * liburisan-host's urisan_link_row_host; urisan_link_row_value reads each
 * key's value. A front end walks the list in order and writes each value
 * in its own form, so a key added to the list appears in every door.
 */
typedef struct {
    const char *uri;            /* what a reader opens; NULL: null (a row
                                   that is no link: a mail limit) */
    size_t uri_len;
    const char *part;           /* a mail part's number ("1", "2.1", "raw");
                                   NULL: free text, part 0 */
    size_t offset, length;      /* where the link is written */
    const char *context;        /* "text", a mail source's name
                                   (urisan_mail_source_name), "limit" */
    const char *display;        /* a link's visible text; NULL: null */
    size_t display_len;
    unsigned form;              /* URISAN_HIT_* bits */
    urisan_flags flags;
    urisan_decision dec;        /* the one decision of the link */
    /* host_unicode, host_skeleton, host_imitates, registrable_domain:
       NULL is null (liburisan-host's urisan_link_row_host sets them) */
    const char *host_form[4];
    size_t host_form_len[4];
    const char *limit;          /* a mail limit's name; NULL: none */
    const char *limit_message;  /* its message (with limit) */
    const char *header;         /* a header field's name; NULL: none */
    const char *written;        /* the link as written when uri is not it
                                   (a link written in Unicode, a rewritten
                                   link, a UNC path); NULL: none */
    size_t written_len;
    const char *attachment;     /* the part's file name; NULL: none */
    const char *rewriter;       /* the rewriting service; NULL: none */
    unsigned page;              /* a PDF's page, 1-based; 0: none */
} urisan_link_row;

/* The keys of a row, in order (*n: how many); the key's id is what
   urisan_link_row_value reads. */
URISAN_API const urisan_result_key *urisan_link_row_keys(size_t *n);
/* A free-text hit's row (urisan_extract_more, urisan_extract_with):
   part 0, context "text", no display; every other key unset. The
   offset is the hit's in the text given. */
URISAN_API void urisan_link_row_hit(urisan_link_row *row, const urisan_hit *h);
/* Is key k in row's line, its mode aside (URISAN_RS_SET: its value is
   not null)? 1 or 0. */
URISAN_API int urisan_link_row_present(const urisan_link_row *row, const urisan_result_key *k);
/* The value of key k (of urisan_link_row_keys) of row. */
URISAN_API void urisan_link_row_value(const urisan_link_row *row, const urisan_result_key *k,
                                      urisan_rvalue *v);
/* "angle", "quoted", "url_prefix", "wrapped", "hyphen_break",
   "hyphen_dropped", "abbreviated", "trimmed": the name of URISAN_HIT_*
   bit number bit (a row's "form"); NULL past the last. */
URISAN_API const char *urisan_hit_form_name(unsigned bit);

#ifdef __cplusplus
}
#endif

#endif /* URISAN_H */
