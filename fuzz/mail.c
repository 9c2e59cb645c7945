/*
 * fuzz/mail.c - liburisan-mail (src/mail): the GMime walk (mime.c), the
 * HTML link scan (html.c), the link-text judgement (linktext.c) and the
 * public entry urisan_mail_scan, on hostile messages and hostile HTML.
 *
 * Invariants:
 *  1. every link lies inside its part: the attribute value's offset is in
 *     the part, the decoded URL and display text lie in the scan's
 *     buffers, a display text is at most HTML_DISPLAY_MAX bytes and has no
 *     leading, trailing or doubled ASCII white space;
 *  2. a decoded URL has no leading or trailing byte <= 0x20;
 *  3. scanning the same HTML twice gives the same links (no state leaks
 *     between scans);
 *  4. text parts go through urisan_extract with every hit inside the part;
 *  5. the link-text judgement is a pure function: the same answer twice.
 *  6. urisan_mail_scan: every hit has a part, a named source and a URI
 *     inside its length; res.hits counts the hits delivered; a limit
 *     reached is told to on_diag and sets URISAN_MAIL_LIMIT; a link
 *     written in Unicode is judged as an all-ASCII URI;
 *  7. urisan_mail_scan_with calls its decision hook once for each hit and
 *     each limit, right before the sink gets it, and a hook deciding as
 *     the core does gives urisan_mail_scan's hits and worst verdict.
 * The raw input is also scanned as HTML on its own, so the tokenizer is
 * fuzzed without a MIME wrapper.
 */
#include "fuzz_util.h"

#include "html.h"
#include "urisan_host.h"
#include "mail_internal.h"

static void check_links(const char *h, size_t n)
{
    html_doc a, b;
    html_doc_init(&a, (size_t)64 << 20);
    html_doc_init(&b, (size_t)64 << 20);
    bool oka = html_scan(&a, h, n);
    bool okb = html_scan(&b, h, n);
    FUZZ_ASSERT(oka == okb && a.n == b.n, "two scans of one HTML text differ");
    for (size_t k = 0; k < a.n; k++) {
        const html_link *l = &a.links[k];
        FUZZ_ASSERT(l->off <= n, "link %zu: value offset %zu past the part (%zu)", k, l->off, n);
        FUZZ_ASSERT(l->url <= a.text.len && l->url_len <= a.text.len - l->url,
                    "link %zu: url outside the text buffer", k);
        if (l->url_len > 0) {
            FUZZ_ASSERT((unsigned char)a.text.p[l->url] > 0x20 &&
                            (unsigned char)a.text.p[l->url + l->url_len - 1] > 0x20,
                        "link %zu: url not trimmed", k);
        }
        const html_link *m = &b.links[k];
        FUZZ_ASSERT(l->attr == m->attr && l->off == m->off && l->url_len == m->url_len &&
                        memcmp(html_url(&a, l), html_url(&b, m), l->url_len) == 0 &&
                        l->has_display == m->has_display && l->display_len == m->display_len,
                    "link %zu differs between two scans", k);
        if (!l->has_display)
            continue;
        FUZZ_ASSERT(l->display <= a.disp.len && l->display_len <= a.disp.len - l->display,
                    "link %zu: display outside its buffer", k);
        FUZZ_ASSERT(l->display_len <= HTML_DISPLAY_MAX, "link %zu: display of %zu bytes", k,
                    l->display_len);
        const char *d = html_display(&a, l);
        for (size_t i = 0; i < l->display_len; i++) {
            bool sp = d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r' || d[i] == '\f';
            if (!sp)
                continue;
            FUZZ_ASSERT(d[i] == ' ' && i > 0 && i + 1 < l->display_len && d[i + 1] != ' ',
                        "link %zu: display white space not collapsed", k);
        }
        const char *url = html_url(&a, l);
        bool j1 = urisan_mail_link_text_mismatch(d, l->display_len, url, l->url_len);
        bool j2 = urisan_mail_link_text_mismatch(d, l->display_len, url, l->url_len);
        FUZZ_ASSERT(j1 == j2, "link %zu: link-text judgement not deterministic", k);
    }
    html_doc_free(&a);
    html_doc_free(&b);
}

static bool on_part(void *ctx, const mail_part *p)
{
    (void)ctx;
    FUZZ_ASSERT(p->path != NULL && p->path[0] != '\0', "part without a path");
    FUZZ_ASSERT(p->header == NULL || (p->header[0] != '\0' && !p->html &&
                                      strstr(p->path, "HEADER") != NULL),
                "header field %s: no name, or not in a HEADER section", p->path);
    if (p->html) {
        char *copy = fuzz_dup_part(p->text, p->len);
        check_links(copy, p->len);
        free(copy);
        return true;
    }
    char *copy = fuzz_dup_part(p->text, p->len);
    size_t scap = urisan_extract_scratch_size(NULL);
    char *scr = malloc(scap);
    if (scr == NULL)
        abort();
    urisan_hit hits[64];
    size_t start = 0;
    for (;;) {
        size_t n = 0, next = 0;
        urisan_status st = urisan_extract(copy, p->len, start, NULL, hits, 64, &n, scr, scap, &next);
        FUZZ_ASSERT(st == URISAN_OK || st == URISAN_E_TOO_MANY, "part %s: status %s", p->path,
                    fuzz_status(st));
        for (size_t k = 0; k < n; k++)
            FUZZ_ASSERT(hits[k].off <= p->len && hits[k].len <= p->len - hits[k].off,
                        "part %s: hit outside the part", p->path);
        if (st == URISAN_OK)
            break;
        FUZZ_ASSERT(next > start, "part %s: no progress", p->path);
        start = next;
    }
    free(scr);
    free(copy);
    return true;
}

typedef struct {
    size_t hits, diags;
    size_t calls;   /* of the decision hook (urisan_mail_scan_with) */
    bool hooked;
} scan_count;

/* A decision hook that decides as urisan_mail_scan does without one (the
   host layer's urisan_judge_link_decide: a text link's homograph host is
   flagged by it, not by the core alone), and counts its calls. */
static void count_decide(void *ctx, const urisan_policy *pol, const char *in, size_t len,
                         const urisan_uri *u, urisan_report *rep, const char *display,
                         size_t dlen, urisan_decision *out)
{
    ((scan_count *)ctx)->calls++;
    urisan_link_judge lj = { NULL, NULL };
    urisan_judge_link_decide(&lj, pol, in, len, u, rep, display, dlen, out);
}

/* With the hook: one call since the last hit or limit, this one's. */
static void one_call_before(const scan_count *sc)
{
    FUZZ_ASSERT(!sc->hooked || sc->calls == sc->hits + sc->diags,
                "%zu decisions for %zu hits and %zu limits", sc->calls, sc->hits, sc->diags);
}

/* The row the doors write of a hit or a limit (urisan_link_row_keys):
   every key is read; a text or a name has its bytes, and a key present
   only with a value is present exactly when it has one. */
static void check_row(const urisan_link_row *row)
{
    size_t n;
    const urisan_result_key *keys = urisan_link_row_keys(&n);
    for (size_t i = 0; i < n; i++) {
        urisan_rvalue v;
        urisan_link_row_value(row, &keys[i], &v);
        FUZZ_ASSERT((v.kind != URISAN_RV_TEXT && v.kind != URISAN_RV_NAME) || v.s != NULL,
                    "row key %s: a text without bytes", keys[i].name);
        FUZZ_ASSERT(keys[i].shown != URISAN_RS_SET ||
                    urisan_link_row_present(row, &keys[i]) == (v.kind != URISAN_RV_NULL),
                    "row key %s: present and value disagree", keys[i].name);
    }
}

static bool on_hit(void *ctx, const urisan_mail_hit *h)
{
    scan_count *sc = ctx;
    sc->hits++;
    one_call_before(sc);
    FUZZ_ASSERT(h->part != NULL && h->part[0] != '\0', "hit without a part");
    FUZZ_ASSERT(urisan_mail_source_name(h->source) != NULL, "hit with source %d", (int)h->source);
    FUZZ_ASSERT(h->uri != NULL || h->uri_len == 0, "hit without a URI");
    FUZZ_ASSERT(h->display != NULL || h->display_len == 0, "display length without text");
    FUZZ_ASSERT(h->decision.verdict <= URISAN_DENY, "verdict %d", (int)h->decision.verdict);
    /* a link written in Unicode is judged as an all-ASCII URI; one that
       cannot be converted (not UTF-8, hidden characters) is judged as
       written, and raw non-ASCII is invalid (fail closed); a relative
       link with no base goes nowhere: no_base alone */
    for (size_t i = 0; i < h->uri_len; i++)
        FUZZ_ASSERT((unsigned char)h->uri[i] < 0x80 ||
                    (h->flags & (URISAN_F(INVALID) | URISAN_F(NO_BASE))),
                    "byte %zu >= 0x80 in a URI judged without invalid", i);
    urisan_link_row row;
    urisan_mail_hit_row(&row, h);
    check_row(&row);
    return true;
}

static bool on_diag(void *ctx, const urisan_mail_diag *d)
{
    scan_count *sc = ctx;
    sc->diags++;
    one_call_before(sc);
    FUZZ_ASSERT(urisan_mail_limit_name(d->limit) != NULL && d->message != NULL,
                "diagnostic without a limit name or message");
    urisan_link_row row;
    urisan_mail_diag_row(&row, d);
    check_row(&row);
    return true;
}

static void check_scan(const char *in, size_t size)
{
    scan_count sc = { 0, 0, 0, false };
    urisan_mail_sink sink = { on_hit, on_diag, &sc };
    urisan_mail_result res;
    urisan_mail_status st = urisan_mail_scan(in, size, NULL, NULL, &sink, &res);
    FUZZ_ASSERT(st == URISAN_MAIL_OK || st == URISAN_MAIL_LIMIT || st == URISAN_MAIL_NOT_MESSAGE,
                "urisan_mail_scan status %d", (int)st);
    FUZZ_ASSERT(res.hits == sc.hits, "res.hits %zu, %zu delivered", res.hits, sc.hits);
    FUZZ_ASSERT((st == URISAN_MAIL_LIMIT) == (res.limits != 0) &&
                    (res.limits == 0) == (sc.diags == 0),
                "limits 0x%x, status %d, %zu diagnostics", res.limits, (int)st, sc.diags);
    scan_count hc = { 0, 0, 0, true };
    urisan_mail_sink hsink = { on_hit, on_diag, &hc };
    const urisan_link_hooks hk = { count_decide, &hc };
    urisan_mail_result hres;
    urisan_mail_status hst = urisan_mail_scan_with(in, size, NULL, NULL, &hk, &hsink, &hres);
    FUZZ_ASSERT(hst == st && hres.hits == res.hits && hres.limits == res.limits &&
                    hres.worst == res.worst && hc.calls == hc.hits + hc.diags,
                "with a hook: status %d, %zu hits, worst %d, %zu decisions", (int)hst, hres.hits,
                (int)hres.worst, hc.calls);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* (and gcc then knows the copy is initialised) */
    char *in = fuzz_dup(data, size);
    urisan_mail_limits flim;
    urisan_mail_limits_default(&flim);
    mail_limit_hit fhit;
    (void)mail_walk(in, size, &flim, on_part, NULL, &fhit);
    check_scan(in, size);
    check_links(in, size);
    /* The judgement on arbitrary text: first line shown, rest as href. */
    size_t alen, blen;
    const char *b;
    fuzz_split_nl(in, size, &alen, &b, &blen);
    bool j1 = urisan_mail_link_text_mismatch(in, alen, b, blen);
    bool j2 = urisan_mail_link_text_mismatch(in, alen, b, blen);
    FUZZ_ASSERT(j1 == j2, "link-text judgement not deterministic");
    fuzz_done(in);
    return 0;
}
