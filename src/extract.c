/*
 * extract.c - URI references in free text (urisan(1), EXTRACT; doc/extract.md).
 *
 * The delimiting rules are the seed draft's Appendix E ("Recommendations
 * for Delimiting URI in Context") and Appendix F ("Abbreviated URIs"):
 *
 *   <...>    any scheme; may be wrapped over lines (the line breaks and
 *            the white space around them are dropped); "URL:" may lead.
 *   "..."    a URI with no white space inside.
 *   bare     "scheme://..." (or a few well-known schemes without "//"),
 *            ended by white space, a control byte, '<', '>', '"' or a
 *            closing bracket ')', ']' or '}' with no opening partner in
 *            the URI before it, less trailing punctuation (Thunderbird's
 *            linkifier, mozTXTToHTMLConv FindURLEnd, ends a URL at ']'
 *            and at a ')' that no '(' opened: the quote header
 *            "[mailto:a@b.example]On behalf of" links mailto:a@b.example).
 *   www.     a host starting with "www." or "ftp." and no scheme
 *            (Appendix F; Thunderbird's abbreviated URLs), analysed as
 *            the "http://" or "ftp://" URI a client completes it to.
 *
 * One forward pass; each candidate either becomes a hit or hands the scan
 * on to a later position, and the only re-scanned bytes are those of a
 * failed <...> or "..." candidate, which the bare rule reads once more, so
 * the work is O(len). No allocation, no recursion.
 */
#include "internal.h"
#include "schemes.h"

typedef struct {
    const char *t;
    size_t len;
    const urisan_policy *pol;
    size_t max_uri;
    size_t max_scheme;
    urisan_hit *hits;
    size_t cap, n;
    char *scr;
    size_t scap, sused;
    bool more;      /* the text goes on past len (urisan_extract_more) */
    bool starved;   /* a read reached len while more: undecided */
    const urisan_link_hooks *hooks; /* the caller's decision; NULL: none */
} ex_ctx;

/* What a candidate came to. */
typedef enum { EX_NONE, EX_HIT, EX_FULL } ex_res;

/* Bytes that end a bare URI: white space, controls and the delimiters of
   Appendix E. Everything else, non-ASCII included, is part of it: a
   reader's linkifier is no stricter, and the analysis flags the rest. */
static bool ends_bare(unsigned char c)
{
    return cc_is(c, CC_WS | CC_CTL) || c == '<' || c == '>' || c == '"';
}

static bool is_ws(unsigned char c) { return cc_is(c, CC_WS); }

/* Is p at or past the end of the text? When the text goes on (more),
   the candidate being read needs bytes not here yet: it is starved, and
   its outcome is not used (urisan_extract_more). */
static bool end_at(ex_ctx *x, size_t p)
{
    if (p < x->len)
        return false;
    if (x->more)
        x->starved = true;
    return true;
}

/* Length of a scheme at p ("ALPHA *( ALPHA / DIGIT / + - . )") that is
   followed by ':', or 0. *run is where the run of scheme characters ends
   (the caller skips it whatever the outcome). */
static size_t scheme_at(ex_ctx *x, size_t p, size_t *run)
{
    size_t q = p;
    if (!end_at(x, p) && cc_is((unsigned char)x->t[p], CC_ALPHA))
        while (!end_at(x, q) && cc_is((unsigned char)x->t[q], CC_SCHEME))
            q++;
    *run = q;
    if (q == p || q >= x->len || x->t[q] != ':' || q - p > x->max_scheme)
        return 0;
    return q - p;
}

static bool prefix_ieq(ex_ctx *x, size_t p, const char *lit, size_t n)
{
    if (n <= x->len - p)
        return urisan_ieq(x->t + p, n, lit);
    /* the text ends inside lit: a byte here that differs decides */
    for (size_t i = p; i < x->len; i++) {
        unsigned char c = (unsigned char)x->t[i];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)lit[i - p])
            return false;
    }
    (void)end_at(x, x->len); /* the rest decides */
    return false;
}

/*
 * Does "scheme:" at p (scheme length sl) start a URI in running text?
 * A bare word followed by ':' usually is not one ("Note:", "Re:"), and a
 * single letter is a drive ("C:\dir"), so: "//" or "\\" after the colon
 * (a '/' or '\' for the special schemes), or a special scheme (WHATWG:
 * "http:evil" still opens a host) or one the scheme table marks
 * SCHEME_IN_TEXT (the opaque ones mail carries, and the dangerous ones,
 * reported so a scanner sees them).
 */
static bool bare_scheme_ok(ex_ctx *x, size_t p, size_t sl)
{
    size_t c = p + sl + 1; /* after the colon */
    if (sl < 2 || end_at(x, c) || ends_bare((unsigned char)x->t[c]))
        return false;
    unsigned char a = (unsigned char)x->t[c];
    /* "File::Spec", "Data::Dumper": a module path, no link a mail
       client makes (a scheme's body never starts with ':') */
    if (a == ':')
        return false;
    bool slash = (a == '/' || a == '\\');
    if (slash && !end_at(x, c + 1) &&
        (x->t[c + 1] == '/' || x->t[c + 1] == '\\'))
        return true;
    const scheme_row *row = urisan_scheme_find(x->t + p, sl);
    return row != NULL && (row->kind == SCH_SPECIAL || (row->bits & SCHEME_IN_TEXT));
}

/* "www." or "ftp." + a letter or digit at p: an abbreviated URI
   (Appendix F; Thunderbird completes "ftp." names to ftp://, as it
   completes "www." ones to http://, mozTXTToHTMLConv
   CompleteAbbreviatedURL). */
static bool www_at(ex_ctx *x, size_t p)
{
    return (prefix_ieq(x, p, "www.", 4) || prefix_ieq(x, p, "ftp.", 4)) && !end_at(x, p + 4) &&
           cc_is((unsigned char)x->t[p + 4], CC_ALPHA | CC_DIGIT);
}

/* Bytes before "www." that make it part of something else: an address
   (user@www...), a path (/www.), a query (?u=www.) ... */
static bool www_boundary(const ex_ctx *x, size_t p)
{
    if (p == 0)
        return true;
    unsigned char b = (unsigned char)x->t[p - 1];
    if (cc_is(b, CC_SCHEME))
        return false;
    switch (b) {
    case '@': case '/': case '\\': case ':': case '%': case '_': case '~':
    case '=': case '&': case '?': case '#':
        return false;
    default:
        return true;
    }
}

/* Trailing bytes of a bare URI that are the sentence's, not the URI's. */
static size_t trailing_punct(const char *t, size_t s, size_t e)
{
    unsigned char c = (unsigned char)t[e - 1];
    switch (c) {
    case '.': case ',': case ';': case ':': case '!': case '?': case '\'':
    case '`': case '*':
        return 1;
    default:
        break;
    }
    /* Two- and three-byte UTF-8 punctuation: U+00BB >>, U+2019 ', U+201D ",
       U+2026 ..., U+203A >, U+3001, U+3002 (ideographic comma, full stop),
       U+300D, U+FF09, U+FF0C (fullwidth bracket and comma). */
    if (e - s >= 2 && (unsigned char)t[e - 2] == 0xC2 && c == 0xBB)
        return 2;
    if (e - s >= 3) {
        unsigned a = (unsigned char)t[e - 3], b = (unsigned char)t[e - 2];
        if (a == 0xE2 && b == 0x80 && (c == 0x99 || c == 0x9D || c == 0xA6 || c == 0xBA))
            return 3;
        if (a == 0xE3 && b == 0x80 && (c == 0x81 || c == 0x82 || c == 0x8D))
            return 3;
        if (a == 0xEF && b == 0xBC && (c == 0x89 || c == 0x8C))
            return 3;
    }
    return 0;
}

/* End of the bare URI in t[s..e): trailing punctuation and closing
   brackets without a partner inside the URI are left out, so
   "(see http://h/a_(b))." keeps "http://h/a_(b)". */
static size_t trim_bare(const char *t, size_t s, size_t e)
{
    /* opens/closes of (), [], {} */
    size_t open[3] = {0, 0, 0}, close[3] = {0, 0, 0};
    for (size_t i = s; i < e; i++) {
        switch (t[i]) {
        case '(': open[0]++; break;
        case ')': close[0]++; break;
        case '[': open[1]++; break;
        case ']': close[1]++; break;
        case '{': open[2]++; break;
        case '}': close[2]++; break;
        default: break;
        }
    }
    while (e > s) {
        size_t k = trailing_punct(t, s, e);
        if (k) {
            e -= k;
            continue;
        }
        int b = t[e - 1] == ')' ? 0 : t[e - 1] == ']' ? 1 : t[e - 1] == '}' ? 2 : -1;
        if (b < 0 || close[b] <= open[b])
            break;
        close[b]--;
        e--;
    }
    return e;
}

/* Analyse, decide (the caller's hook, else urisan_decide) and store one
   hit; EX_FULL when hits are full. */
static ex_res add_hit(ex_ctx *x, size_t off, size_t len, const char *uri,
                      size_t ulen, unsigned form)
{
    if (x->n >= x->cap)
        return EX_FULL;
    urisan_hit *h = &x->hits[x->n++];
    urisan_uri u;
    urisan_report rep;
    h->off = off;
    h->len = len;
    h->uri = uri;
    h->uri_len = ulen;
    h->form = form;
    (void)urisan_check_facts(uri, ulen, x->pol, &u, &rep);
    if (x->hooks != NULL && x->hooks->decide != NULL)
        x->hooks->decide(x->hooks->decide_ctx, x->pol, uri, ulen, &u, &rep, NULL, 0,
                         &h->decision);
    else
        urisan_decide(uri, ulen, &u, &rep, x->pol, &h->decision);
    h->flags = rep.flags;
    return EX_HIT;
}

/* Copy the URI t[s..e) into scratch: with prefix pre, the white space
   dropped, and, when drop_hyphen, the '-' that ends a line dropped too. */
static size_t assemble(ex_ctx *x, size_t s, size_t e, const char *pre,
                       bool drop_hyphen)
{
    char *o = x->scr + x->sused;
    size_t n = 0;
    for (; pre && *pre; pre++)
        o[n++] = *pre;
    for (size_t i = s; i < e; i++) {
        unsigned char c = (unsigned char)x->t[i];
        if (is_ws(c))
            continue;
        if (drop_hyphen && c == '-' && i + 1 < e && is_ws((unsigned char)x->t[i + 1]))
            continue;
        o[n++] = (char)c;
    }
    return n;
}

/*
 * Store the hit t[s..e) (form bits in form). The URI is the text itself
 * unless it was wrapped or abbreviated, in which case it is assembled in
 * scratch; a hyphen break adds the HYPHEN_DROPPED twin. Assembled text is
 * at most max_uri + 7 bytes (the caller bounds e - s), so
 * URISAN_EXTRACT_SCRATCH(max_uri) always holds a hit and its twin.
 */
static ex_res emit(ex_ctx *x, size_t s, size_t e, size_t content, unsigned form)
{
    /* a candidate that read to the end of a text that goes on is
       undecided (extract_scan drops it): not analysed, not decided */
    if (x->starved)
        return EX_NONE;
    const char *pre = NULL;
    size_t plen = 0;
    /* Longer than max_uri, the text itself is analysed (too_long). */
    if ((form & URISAN_HIT_ABBREVIATED) && content <= x->max_uri) {
        bool ftp = (x->t[s] | 0x20) == 'f';
        pre = ftp ? "ftp://" : "http://";
        plen = ftp ? 6 : 7;
    }
    if (!(form & URISAN_HIT_WRAPPED) && pre == NULL)
        return add_hit(x, s, e - s, x->t + s, e - s, form);

    bool twin = (form & URISAN_HIT_HYPHEN_BREAK) != 0;
    size_t need = (plen + content) * (twin ? 2 : 1);
    if (x->n + (twin ? 2 : 1) > x->cap || need > x->scap - x->sused)
        return EX_FULL;
    const char *u1 = x->scr + x->sused;
    size_t n1 = assemble(x, s, e, pre, false);
    x->sused += n1;
    (void)add_hit(x, s, e - s, u1, n1, form);
    if (twin) {
        const char *u2 = x->scr + x->sused;
        size_t n2 = assemble(x, s, e, pre, true);
        x->sused += n2;
        (void)add_hit(x, s, e - s, u2, n2, form | URISAN_HIT_HYPHEN_DROPPED);
    }
    return EX_HIT;
}

/* Bare URI or www. form starting at s: runs to a byte that ends_bare,
   less trailing punctuation. *resume: where the scan goes on. */
static ex_res bare_from(ex_ctx *x, size_t s, size_t body_min, unsigned form,
                        size_t *resume)
{
    size_t e = s, open[3] = {0, 0, 0};
    bool closed = false; /* ended at a closing bracket with no partner */
    while (!end_at(x, e) && !ends_bare((unsigned char)x->t[e])) {
        int b = -1;
        switch (x->t[e]) {
        case '(': open[0]++; break;
        case '[': open[1]++; break;
        case '{': open[2]++; break;
        case ')': b = 0; break;
        case ']': b = 1; break;
        case '}': b = 2; break;
        default: break;
        }
        if (b >= 0) {
            if (open[b] == 0) {
                closed = true;
                break;
            }
            open[b]--;
        }
        e++;
    }
    size_t te = trim_bare(x->t, s, e);
    if (te < e || closed)
        form |= URISAN_HIT_TRIMMED;
    *resume = e;
    if (te < s + body_min)
        return EX_NONE;
    return emit(x, s, te, te - s, form);
}

/* Smallest bare body: "scheme:" and one byte that is not a slash, so the
   bare words "http://" and "file:///" of a sentence are no hits. */
static size_t scheme_body_min(ex_ctx *x, size_t s, size_t sl)
{
    size_t i = s + sl + 1;
    while (!end_at(x, i) && (x->t[i] == '/' || x->t[i] == '\\'))
        i++;
    return i - s + 1;
}

/* A letter at i after a non-scheme byte: "scheme:", "URL:" or "www.". */
static ex_res try_word(ex_ctx *x, size_t i, size_t *resume)
{
    size_t run;
    size_t sl = scheme_at(x, i, &run);
    *resume = run;
    if (sl == 3 && urisan_ieq(x->t + i, 3, "url")) {
        /* Appendix E: "URL:" with or without a trailing space. */
        size_t p = i + 4;
        while (!end_at(x, p) && (x->t[p] == ' ' || x->t[p] == '\t'))
            p++;
        size_t r2, sl2 = scheme_at(x, p, &r2);
        if (sl2 && !end_at(x, p + sl2 + 1) && !ends_bare((unsigned char)x->t[p + sl2 + 1]))
            return bare_from(x, p, scheme_body_min(x, p, sl2), URISAN_HIT_URL_PREFIX, resume);
        if (www_at(x, p))
            return bare_from(x, p, 5, URISAN_HIT_URL_PREFIX | URISAN_HIT_ABBREVIATED, resume);
        *resume = p > i + 4 ? p : i + 4;
        return EX_NONE;
    }
    if (sl && bare_scheme_ok(x, i, sl))
        return bare_from(x, i, scheme_body_min(x, i, sl), 0, resume);
    if (www_at(x, i) && www_boundary(x, i))
        return bare_from(x, i, 5, URISAN_HIT_ABBREVIATED, resume);
    return EX_NONE;
}

/* '"' at i: a URI that runs to the next '"' with no white space. */
static ex_res try_quote(ex_ctx *x, size_t i, size_t *resume)
{
    size_t p = i + 1, run;
    unsigned form = URISAN_HIT_QUOTED;
    *resume = i + 1;
    if (prefix_ieq(x, p, "url:", 4)) {
        p += 4;
        while (!end_at(x, p) && x->t[p] == ' ')
            p++;
        form |= URISAN_HIT_URL_PREFIX;
    }
    size_t sl = scheme_at(x, p, &run);
    if (sl) {
        /* Without "URL:", quotes are common in prose: the bare rule. */
        if (!(form & URISAN_HIT_URL_PREFIX) && !bare_scheme_ok(x, p, sl))
            return EX_NONE;
    } else {
        if (!www_at(x, p))
            return EX_NONE;
        form |= URISAN_HIT_ABBREVIATED;
    }
    size_t q = p;
    while (!end_at(x, q) && !ends_bare((unsigned char)x->t[q]))
        q++;
    if (q >= x->len || x->t[q] != '"')
        return EX_NONE;
    size_t min = sl ? scheme_body_min(x, p, sl) : 5;
    if (q < p + min)
        return EX_NONE;
    ex_res r = emit(x, p, q, q - p, form);
    if (r == EX_HIT)
        *resume = q + 1;
    return r;
}

/* '<' at i: any scheme, "URL:" allowed, wrapped over lines allowed. */
static ex_res try_angle(ex_ctx *x, size_t i, size_t *resume)
{
    size_t p = i + 1, run;
    unsigned form = URISAN_HIT_ANGLE;
    *resume = i + 1;
    if (prefix_ieq(x, p, "url:", 4)) {
        p += 4;
        while (!end_at(x, p) && (x->t[p] == ' ' || x->t[p] == '\t'))
            p++;
        form |= URISAN_HIT_URL_PREFIX;
    }
    size_t sl = scheme_at(x, p, &run);
    if (!sl) {
        if (!www_at(x, p))
            return EX_NONE;
        form |= URISAN_HIT_ABBREVIATED;
    }
    /* Raw bytes read are bounded: white space of a wrap counts too. */
    size_t bound = x->max_uri * 4 + 256;
    size_t q = p, content = 0, last = p;
    bool hyphen_pending = false;
    for (;;) {
        if (q - p > bound || content > x->max_uri || end_at(x, q))
            return EX_NONE;
        unsigned char c = (unsigned char)x->t[q];
        if (c == '>')
            break;
        if (c == '<')
            return EX_NONE;
        if (is_ws(c)) {
            /* Appendix E: white space added to break a long URI across
               lines is ignored. A run with no line break is a space of
               the sentence (no URI here); two line breaks end a
               paragraph. */
            size_t r = q, breaks = 0;
            while (r - p <= bound && !end_at(x, r) && is_ws((unsigned char)x->t[r])) {
                if (x->t[r] == '\n' || (x->t[r] == '\r' && (end_at(x, r + 1) || x->t[r + 1] != '\n')))
                    breaks++;
                r++;
            }
            if (breaks != 1)
                return EX_NONE;
            form |= URISAN_HIT_WRAPPED;
            /* "-" then a line break: the hyphen may be the typesetter's
               (judged once the URI goes on after the break). */
            hyphen_pending = (x->t[q - 1] == '-');
            q = r;
            continue;
        }
        if (cc_is(c, CC_CTL))
            return EX_NONE;
        if (hyphen_pending)
            form |= URISAN_HIT_HYPHEN_BREAK;
        hyphen_pending = false;
        content++;
        last = q + 1;
        q++;
    }
    size_t min = sl ? sl + 2 : 5;
    if (content < min)
        return EX_NONE;
    /* The hit ends at its last URI byte: white space before '>' is out. */
    ex_res r = emit(x, p, last, content, form);
    if (r == EX_HIT)
        *resume = q + 1;
    return r;
}

URISAN_API size_t urisan_extract_scratch_size(const urisan_policy *pol)
{
    urisan_limits lim;
    urisan_limits_effective(pol ? urisan_policy_limits(pol) : NULL, &lim);
    return URISAN_EXTRACT_SCRATCH(lim.max_uri);
}

/* urisan_extract, urisan_extract_more and urisan_extract_with: more says
   whether the text goes on past len; hooks: the caller's decision. */
static urisan_status extract_scan(const char *text, size_t len, size_t start, int more,
                                  const urisan_policy *pol, const urisan_link_hooks *hooks,
                                  urisan_hit *hits, size_t cap,
                                  size_t *count, char *scratch, size_t scratch_cap,
                                  size_t *next)
{
    if (count)
        *count = 0;
    if (next)
        *next = start;
    if (count == NULL || next == NULL || hits == NULL || cap < 2 ||
        start > len || (text == NULL && len != 0) ||
        (scratch == NULL && scratch_cap != 0))
        return URISAN_E_BAD_ARGUMENT;

    ex_ctx x;
    urisan_limits lim;
    urisan_limits_effective(pol ? urisan_policy_limits(pol) : NULL, &lim);
    x.t = text;
    x.len = len;
    x.pol = pol;
    x.max_uri = lim.max_uri;
    x.max_scheme = lim.max_scheme;
    x.hits = hits;
    x.cap = cap;
    x.n = 0;
    x.scr = scratch;
    x.scap = scratch_cap;
    x.sused = 0;
    x.more = more;
    x.starved = false;
    x.hooks = hooks;

    size_t i = start;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        size_t resume = i + 1, n0 = x.n, s0 = x.sused;
        ex_res r = EX_NONE;
        if (c == '<')
            r = try_angle(&x, i, &resume);
        else if (c == '"')
            r = try_quote(&x, i, &resume);
        else if (cc_is(c, CC_ALPHA) && (i == 0 || !cc_is((unsigned char)text[i - 1], CC_SCHEME)))
            r = try_word(&x, i, &resume);
        if (x.starved) { /* needs the text after len: undecided, from i */
            x.n = n0;
            x.sused = s0;
            *count = x.n;
            *next = i;
            return URISAN_OK;
        }
        if (r == EX_FULL) {
            *count = x.n;
            *next = i;
            return x.n == 0 ? URISAN_E_NOSPACE : URISAN_E_TOO_MANY;
        }
        i = resume > i ? resume : i + 1; /* every branch advances */
    }
    *count = x.n;
    *next = len;
    return URISAN_OK;
}

URISAN_API urisan_status urisan_extract(const char *text, size_t len,
                                        size_t start,
                                        const urisan_policy *pol,
                                        urisan_hit *hits, size_t cap,
                                        size_t *count,
                                        char *scratch, size_t scratch_cap,
                                        size_t *next)
{
    return extract_scan(text, len, start, false, pol, NULL, hits, cap, count, scratch,
                        scratch_cap, next);
}

URISAN_API urisan_status urisan_extract_more(const char *text, size_t len,
                                             size_t start, int more,
                                             const urisan_policy *pol,
                                             urisan_hit *hits, size_t cap,
                                             size_t *count,
                                             char *scratch, size_t scratch_cap,
                                             size_t *next)
{
    return extract_scan(text, len, start, more != 0, pol, NULL, hits, cap, count, scratch,
                        scratch_cap, next);
}

URISAN_API void urisan_link_keep(void *keeper, const urisan_policy *pol, const char *in,
                                 size_t len, const urisan_uri *uri, urisan_report *rep,
                                 const char *display, size_t dlen, urisan_decision *out)
{
    urisan_link_keeper *k = keeper;
    (void)pol;
    (void)in;
    (void)len;
    (void)display;
    (void)dlen;
    if (k->n < k->cap) {
        k->facts[k->n].uri = *uri;
        k->facts[k->n].rep = *rep;
    }
    k->n++;
    memset(out, 0, sizeof *out); /* decided when the caller delivers it */
}

URISAN_API urisan_status urisan_extract_with(const char *text, size_t len,
                                             size_t start, int more,
                                             const urisan_policy *pol,
                                             const urisan_link_hooks *hooks,
                                             urisan_hit *hits, size_t cap,
                                             size_t *count,
                                             char *scratch, size_t scratch_cap,
                                             size_t *next)
{
    return extract_scan(text, len, start, more != 0, pol, hooks, hits, cap, count, scratch,
                        scratch_cap, next);
}
