/*
 * scan.c - urisan_mail_scan (include/urisan_mail.h): the MIME walk
 * (mime.c) feeds each decoded part to the text scan (urisan_extract_with)
 * or the HTML scan (html.c); every link is parsed and analysed by the
 * core once (the URI a browser opens for it: a relative one resolved, one
 * written in Unicode converted), its link text judged by linktext.c, then
 * decided once - by the caller's hook, else the host layer's
 * urisan_judge_link_decide - right before it goes to the sink.
 */
#include "mail_internal.h"

#include "attach.h"
#include "html.h"
#include "unwrap.h"
#include "urisan_host.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIT_BATCH 256

typedef struct {
    const urisan_policy *pol;
    const urisan_mail_limits *lim;
    const urisan_mail_sink *sink;
    const urisan_link_hooks *hooks; /* the caller's decision; NULL: the core's */
    urisan_mail_result *res;
    urisan_hit hits[HIT_BATCH];
    urisan_link_keeper keep; /* the parse and analysis of each text hit,
                                kept for its decision when delivered */
    char *scratch;
    size_t scap;
    bool stopped;        /* a callback returned false */
    const char *attachment; /* the file name of the part being read */
    bool conflict;       /* the part's head has two values of a field that
                            changes its reading: mime_conflict on each of
                            its links */
    size_t off_base;     /* added to the offsets of text hits (a reader's
                            value inside its file) */
    unsigned page;       /* the PDF page of what a reader reports, 0: none
                            (mail_out_page) */
} scan_ctx;

/* Where a reader of a part reports (attach.h). */
struct mail_out {
    scan_ctx *c;
    const char *part;
};

const char *urisan_mail_source_name(urisan_mail_source s)
{
    switch (s) {
    case URISAN_MAIL_SRC_TEXT: return "text";
    case URISAN_MAIL_SRC_HTML_HREF: return "html-href";
    case URISAN_MAIL_SRC_HTML_SRC: return "html-src";
    case URISAN_MAIL_SRC_HTML_ACTION: return "html-action";
    case URISAN_MAIL_SRC_HTML_FORMACTION: return "html-formaction";
    case URISAN_MAIL_SRC_HEADER: return "header";
    case URISAN_MAIL_SRC_HTML_BACKGROUND: return "html-background";
    case URISAN_MAIL_SRC_HTML_SRCSET: return "html-srcset";
    case URISAN_MAIL_SRC_HTML_PING: return "html-ping";
    case URISAN_MAIL_SRC_HTML_POSTER: return "html-poster";
    case URISAN_MAIL_SRC_HTML_DATA: return "html-data";
    case URISAN_MAIL_SRC_HTML_CITE: return "html-cite";
    case URISAN_MAIL_SRC_HTML_LONGDESC: return "html-longdesc";
    case URISAN_MAIL_SRC_HTML_MANIFEST: return "html-manifest";
    case URISAN_MAIL_SRC_HTML_CODEBASE: return "html-codebase";
    case URISAN_MAIL_SRC_HTML_CLASSID: return "html-classid";
    case URISAN_MAIL_SRC_HTML_ARCHIVE: return "html-archive";
    case URISAN_MAIL_SRC_HTML_LOWSRC: return "html-lowsrc";
    case URISAN_MAIL_SRC_HTML_DYNSRC: return "html-dynsrc";
    case URISAN_MAIL_SRC_HTML_ITEMTYPE: return "html-itemtype";
    case URISAN_MAIL_SRC_HTML_PROFILE: return "html-profile";
    case URISAN_MAIL_SRC_HTML_ICON: return "html-icon";
    case URISAN_MAIL_SRC_CSS_URL: return "css-url";
    case URISAN_MAIL_SRC_CSS_IMPORT: return "css-import";
    case URISAN_MAIL_SRC_HTML_TEXT: return "html-text";
    case URISAN_MAIL_SRC_SHORTCUT_URL: return "shortcut-url";
    case URISAN_MAIL_SRC_SHORTCUT_ICON: return "shortcut-icon";
    case URISAN_MAIL_SRC_SHORTCUT_EXEC: return "shortcut-exec";
    case URISAN_MAIL_SRC_ICS_URL: return "ics-url";
    case URISAN_MAIL_SRC_ICS_ATTACH: return "ics-attach";
    case URISAN_MAIL_SRC_ICS_DESCRIPTION: return "ics-description";
    case URISAN_MAIL_SRC_ICS_LOCATION: return "ics-location";
    case URISAN_MAIL_SRC_META_REFRESH: return "meta-refresh";
    case URISAN_MAIL_SRC_SVG_ANIMATE: return "svg-animate";
    case URISAN_MAIL_SRC_OBJECT_PARAM: return "object-param";
    case URISAN_MAIL_SRC_PDF_URI: return "pdf-uri";
    case URISAN_MAIL_SRC_PDF_LAUNCH: return "pdf-launch";
    case URISAN_MAIL_SRC_PDF_GOTOR: return "pdf-gotor";
    case URISAN_MAIL_SRC_PDF_SUBMIT: return "pdf-submit";
    case URISAN_MAIL_SRC_PDF_JS: return "pdf-js";
    case URISAN_MAIL_SRC_OOXML_EXTERNAL: return "ooxml-external";
    case URISAN_MAIL_SRC_OOXML_HYPERLINK: return "ooxml-hyperlink";
    case URISAN_MAIL_SRC_OOXML_TEMPLATE: return "ooxml-template";
    case URISAN_MAIL_SRC_OOXML_OLE: return "ooxml-ole";
    case URISAN_MAIL_SRC_QR: return "qr";
    case URISAN_MAIL_SRC_OOXML_FIELD: return "ooxml-field";
    }
    return NULL;
}

void urisan_mail_hit_row(urisan_link_row *row, const urisan_mail_hit *h)
{
    memset(row, 0, sizeof *row);
    row->uri = h->uri;
    row->uri_len = h->uri_len;
    row->part = h->part;
    row->offset = h->offset;
    row->length = h->length;
    row->context = urisan_mail_source_name(h->source);
    row->display = h->display;
    row->display_len = h->display_len;
    row->form = h->has_form ? h->form : 0;
    row->flags = h->flags;
    row->dec = h->decision;
    row->header = h->header;
    row->written = h->written;
    row->written_len = h->written_len;
    row->attachment = h->attachment;
    row->rewriter = h->rewriter;
    row->page = h->page;
}

void urisan_mail_diag_row(urisan_link_row *row, const urisan_mail_diag *d)
{
    memset(row, 0, sizeof *row);
    row->part = d->part != NULL ? d->part : "raw";
    row->context = "limit";
    row->flags = d->flags;
    row->dec = d->decision;
    row->limit = urisan_mail_limit_name(d->limit);
    row->limit_message = d->message;
    row->attachment = d->attachment;
}

const char *urisan_mail_limit_name(urisan_mail_limit l)
{
    switch (l) {
    case URISAN_MAIL_LIMIT_DEPTH: return "depth";
    case URISAN_MAIL_LIMIT_HTML: return "html_mem";
    case URISAN_MAIL_LIMIT_HEADERS: return "headers";
    case URISAN_MAIL_LIMIT_HEADER_SIZE: return "header_size";
    case URISAN_MAIL_LIMIT_PARAMS: return "params";
    case URISAN_MAIL_LIMIT_PARTS: return "parts";
    case URISAN_MAIL_LIMIT_DECODED: return "decoded";
    case URISAN_MAIL_LIMIT_HTML_SIZE: return "html_size";
    case URISAN_MAIL_LIMIT_BOUNDARIES: return "boundaries";
    case URISAN_MAIL_LIMIT_PARAMS_TOTAL: return "params_total";
    case URISAN_MAIL_LIMIT_READER: return "reader";
    }
    return NULL;
}

void urisan_mail_limits_default(urisan_mail_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->max_depth = 64;               /* far below GMime's MAX_LEVEL, 1024 */
    lim->max_html_mem = (size_t)256 << 20;
    lim->max_headers = 1000;
    lim->max_header_bytes = (size_t)64 << 10;
    lim->max_params = 64;
    lim->max_parts = 1000;
    lim->max_decoded = (size_t)128 << 20;
    lim->max_html = (size_t)32 << 20;
    lim->max_boundary_ratio = 8;
    lim->max_params_total = 4096;
}

/* The one decision of a link (or of a limit reached): the caller's hook,
   else the host layer's (this thread's context). rep->flags: the link's
   flags, the decision's added. */
static void decide_link(const scan_ctx *c, const char *in, size_t len, const urisan_uri *u,
                        urisan_report *rep, const char *display, size_t dlen,
                        urisan_decision *dec)
{
    if (c->conflict) /* readers disagree on the part: a fact of the link */
        rep->flags |= URISAN_F(MIME_CONFLICT);
    if (c->hooks != NULL && c->hooks->decide != NULL) {
        c->hooks->decide(c->hooks->decide_ctx, c->pol, in, len, u, rep, display, dlen, dec);
    } else {
        urisan_link_judge lj = { NULL, NULL };
        urisan_judge_link_decide(&lj, c->pol, in, len, u, rep, display, dlen, dec);
    }
}

/* A link written in Unicode (the analysis *rep of h->uri has non_ascii):
   the URI a browser opens for it (urisan_link_opened) is what is decided, parsed and
   analysed into *u and *rep, and h->written keeps the text as written.
   *conv: the converted URI, freed by the caller (free); NULL when h is
   as written (not written in Unicode, or not convertible). */
static void iri_form(const scan_ctx *c, urisan_mail_hit *h, urisan_uri *u, urisan_report *rep,
                     char **conv)
{
    size_t n = 0;
    *conv = NULL;
    if (!(rep->flags & URISAN_F(NON_ASCII)) ||
        (*conv = urisan_link_opened(h->uri, h->uri_len, &n)) == NULL)
        return;
    h->written = h->uri;
    h->written_len = h->uri_len;
    h->uri = *conv;
    h->uri_len = n;
    urisan_parse_analyze(h->uri, h->uri_len, c->pol, u, NULL, rep);
}

static bool deliver(scan_ctx *c, const urisan_mail_hit *h)
{
    urisan_mail_hit with;
    if (c->attachment != NULL || c->page != 0) {
        with = *h;
        with.attachment = c->attachment;
        with.page = c->page;
        h = &with;
    }
    if (h->decision.verdict > c->res->worst)
        c->res->worst = h->decision.verdict;
    c->res->hits++;
    if (!c->sink->on_hit(c->sink->ctx, h)) {
        c->stopped = true;
        return false;
    }
    return true;
}

#define UNWRAP_DEPTH 3 /* a rewritten link rewritten again: read through */

/* A link a rewriting service wrapped (unwrap.c: Safe Links, Proofpoint
   URL Defense, Barracuda, Google's redirector ...): the destination the
   service sends the reader to takes its place, parsed and analysed into
   *u and *rep (then converted when written in Unicode), so that the
   destination is judged and the wrapper's own host is not held against
   it; written keeps the link as written, rewriter names the (outermost)
   service. *own: what the caller frees (g_free). false: no wrapper. */
static bool unwrapped(const scan_ctx *c, const urisan_uri *pu, urisan_mail_hit *h, urisan_uri *u,
                      urisan_report *rep, char **own)
{
    *own = NULL;
    /* pu: the parse of h->uri; a host of no service (nearly every link)
       is told at once */
    size_t hn = pu->host.len;
    while (hn > 0 && h->uri[pu->host.off + hn - 1] == '.')
        hn--;
    if (pu->host_type != URISAN_HOST_REG_NAME || !mail_unwrap_host(h->uri + pu->host.off, hn))
        return false;
    bool any = false;
    for (unsigned k = 0; k < UNWRAP_DEPTH; k++) {
        char *d = NULL;
        size_t dn = 0;
        const char *name = mail_unwrap(h->uri, h->uri_len, &d, &dn);
        if (name == NULL)
            break;
        if (!any) {
            if (h->written == NULL) {
                h->written = h->uri;
                h->written_len = h->uri_len;
            }
            h->rewriter = name;
        }
        any = true;
        g_free(*own);
        *own = d;
        h->uri = d;
        h->uri_len = dn;
    }
    if (!any)
        return false;
    urisan_parse_analyze(h->uri, h->uri_len, c->pol, u, NULL, rep);
    size_t cn = 0;
    char *conv = (rep->flags & URISAN_F(NON_ASCII)) ? urisan_link_opened(h->uri, h->uri_len, &cn)
                                                     : NULL;
    if (conv != NULL) { /* malloc'd: *own is GLib's */
        g_free(*own);
        *own = g_strndup(conv, cn);
        free(conv);
        h->uri = *own;
        h->uri_len = cn;
        urisan_parse_analyze(h->uri, h->uri_len, c->pol, u, NULL, rep);
    }
    return true;
}

/* A limit reached: recorded, judged (flag mail_limit) and told to the
   sink. */
static bool limit_reached(scan_ctx *c, urisan_mail_limit l, const char *part, const char *msg,
                          size_t value, size_t max)
{
    c->res->limits |= 1u << l;
    urisan_mail_diag dg;
    memset(&dg, 0, sizeof dg);
    dg.limit = l;
    dg.part = part;
    dg.message = msg;
    dg.value = value;
    dg.max = max;
    dg.attachment = c->attachment;
    urisan_uri u;
    urisan_report rep;
    memset(&rep, 0, sizeof rep);
    urisan_parse("", 0, NULL, &u, NULL);
    rep.flags = URISAN_F(MAIL_LIMIT);
    decide_link(c, "", 0, &u, &rep, NULL, 0, &dg.decision);
    dg.flags = rep.flags;
    if (dg.decision.verdict > c->res->worst)
        c->res->worst = dg.decision.verdict;
    if (c->sink->on_diag == NULL)
        return true;
    if (!c->sink->on_diag(c->sink->ctx, &dg)) {
        c->stopped = true;
        return false;
    }
    return true;
}

/* The UNC paths of a text (unc.c): each a file: link whose host is
   judged; written keeps the path as written. */
static bool scan_unc(scan_ctx *c, const char *part, const char *t, size_t len,
                     urisan_mail_source source, const char *header, const html_doc *vis)
{
    size_t pos = 0;
    mail_unc u;
    while (mail_unc_next(t, len, &pos, &u)) {
        urisan_mail_hit r;
        memset(&r, 0, sizeof r);
        r.part = part;
        r.source = source;
        r.header = header;
        r.offset = c->off_base + (vis != NULL ? html_vis_offset(vis, u.off) : u.off);
        r.length = u.len;
        char *buf = g_malloc(u.len + 8);
        r.uri = buf;
        r.uri_len = mail_unc_uri(t, &u, buf, u.len + 8);
        urisan_uri pu;
        urisan_report rep;
        urisan_parse_analyze(r.uri, r.uri_len, c->pol, &pu, NULL, &rep);
        char *conv = NULL;
        iri_form(c, &r, &pu, &rep, &conv); /* a host written in Unicode */
        r.written = t + u.off;             /* the path as written, either way */
        r.written_len = u.len;
        decide_link(c, r.uri, r.uri_len, &pu, &rep, NULL, 0, &r.decision);
        r.flags = rep.flags;
        bool ok = deliver(c, &r);
        free(conv);
        g_free(buf);
        if (!ok)
            return false;
    }
    return true;
}

/* A text part (or the visible text of an HTML part, vis): every hit of
   urisan_extract_with, batch after batch, its parse and analysis kept
   (urisan_link_keep) and decided as it is delivered, so that what the
   caller's hook keeps of a link (a host view) is the link's the sink
   gets next. */
static bool scan_text(scan_ctx *c, const char *part, const char *t, size_t len,
                      urisan_mail_source source, const char *header, const html_doc *vis)
{
    size_t start = 0;
    const urisan_link_hooks keep = { urisan_link_keep, &c->keep };
    for (;;) {
        size_t n = 0, next = start;
        c->keep.n = 0;
        urisan_status st = urisan_extract_with(t, len, start, 0, c->pol, &keep, c->hits,
                                               HIT_BATCH, &n, c->scratch, c->scap, &next);
        if (c->keep.n != n) /* urisan_extract_with decides each hit stored, once */
            abort();
        for (size_t k = 0; k < n; k++) {
            const urisan_hit *h = &c->hits[k];
            urisan_mail_hit r;
            memset(&r, 0, sizeof r);
            r.part = part;
            r.source = source;
            r.header = header;
            r.offset = c->off_base + (vis != NULL ? html_vis_offset(vis, h->off) : h->off);
            r.length = h->len;
            r.uri = h->uri;
            r.uri_len = h->uri_len;
            r.has_form = true;
            r.form = h->form;
            const urisan_uri *u = &c->keep.facts[k].uri;
            urisan_report rep = c->keep.facts[k].rep;
            urisan_uri cu, wu;
            char *conv = NULL, *uw = NULL;
            iri_form(c, &r, &cu, &rep, &conv);
            if (conv != NULL)
                u = &cu;
            if (unwrapped(c, u, &r, &wu, &rep, &uw))
                u = &wu;
            decide_link(c, r.uri, r.uri_len, u, &rep, NULL, 0, &r.decision);
            r.flags = rep.flags;
            bool ok = deliver(c, &r);
            g_free(uw);
            free(conv);
            if (!ok)
                return false;
        }
        if (st != URISAN_E_TOO_MANY || next <= start)
            return scan_unc(c, part, t, len, source, header, vis);
        start = next;
    }
}

/* The source of an HTML link by its attribute (html.h's order). */
static urisan_mail_source html_source(html_attr a)
{
    static const urisan_mail_source src[HTML_ATTR_COUNT_] = {
        [HTML_HREF] = URISAN_MAIL_SRC_HTML_HREF,
        [HTML_SRC] = URISAN_MAIL_SRC_HTML_SRC,
        [HTML_ACTION] = URISAN_MAIL_SRC_HTML_ACTION,
        [HTML_FORMACTION] = URISAN_MAIL_SRC_HTML_FORMACTION,
        [HTML_BACKGROUND] = URISAN_MAIL_SRC_HTML_BACKGROUND,
        [HTML_SRCSET] = URISAN_MAIL_SRC_HTML_SRCSET,
        [HTML_PING] = URISAN_MAIL_SRC_HTML_PING,
        [HTML_POSTER] = URISAN_MAIL_SRC_HTML_POSTER,
        [HTML_DATA] = URISAN_MAIL_SRC_HTML_DATA,
        [HTML_CITE] = URISAN_MAIL_SRC_HTML_CITE,
        [HTML_LONGDESC] = URISAN_MAIL_SRC_HTML_LONGDESC,
        [HTML_MANIFEST] = URISAN_MAIL_SRC_HTML_MANIFEST,
        [HTML_CODEBASE] = URISAN_MAIL_SRC_HTML_CODEBASE,
        [HTML_CLASSID] = URISAN_MAIL_SRC_HTML_CLASSID,
        [HTML_ARCHIVE] = URISAN_MAIL_SRC_HTML_ARCHIVE,
        [HTML_LOWSRC] = URISAN_MAIL_SRC_HTML_LOWSRC,
        [HTML_DYNSRC] = URISAN_MAIL_SRC_HTML_DYNSRC,
        [HTML_ITEMTYPE] = URISAN_MAIL_SRC_HTML_ITEMTYPE,
        [HTML_PROFILE] = URISAN_MAIL_SRC_HTML_PROFILE,
        [HTML_ICON] = URISAN_MAIL_SRC_HTML_ICON,
        [HTML_STYLE] = URISAN_MAIL_SRC_CSS_URL, /* never a link's attr */
        [HTML_CSS_URL] = URISAN_MAIL_SRC_CSS_URL,
        [HTML_CSS_IMPORT] = URISAN_MAIL_SRC_CSS_IMPORT,
        [HTML_REFRESH] = URISAN_MAIL_SRC_META_REFRESH,
        [HTML_ANIMATE] = URISAN_MAIL_SRC_SVG_ANIMATE,
        [HTML_PARAM] = URISAN_MAIL_SRC_OBJECT_PARAM,
        [HTML_SRCDOC] = URISAN_MAIL_SRC_HTML_SRC, /* never a hit: a document */
    };
    return src[a];
}

bool mail_has_scheme(const char *s, size_t n)
{
    if (n == 0 || !g_ascii_isalpha(s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == ':')
            return true;
        if (!g_ascii_isalnum(s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return false;
    }
    return false;
}

/* The document's base URL: the href of its first <base href> (HTML
   "document base URL"), read as the WHATWG URL parser reads it - ASCII
   TAB, LF and CR removed wherever they are ("ht&#9;tp://"), leading and
   trailing C0 controls and spaces removed, and for a special scheme
   (http, https, ws, wss, ftp, file) every '\\' a '/' ("http:\\\\127.0.0.1\\")
   - into buf, when that is absolute; else none. */
static bool doc_base(const html_doc *d, char *buf, size_t cap, const char **base, size_t *blen)
{
    for (size_t k = 0; k < d->n; k++) {
        const html_link *l = &d->links[k];
        if (!l->base)
            continue;
        const char *u = html_url(d, l);
        size_t n = l->url_len, w = 0;
        if (n > cap)
            return false;
        for (size_t i = 0; i < n; i++)
            if (u[i] != '\t' && u[i] != '\n' && u[i] != '\r')
                buf[w++] = u[i];
        size_t a = 0;
        while (a < w && (unsigned char)buf[a] <= 0x20)
            a++;
        while (w > a && (unsigned char)buf[w - 1] <= 0x20)
            w--;
        if (!mail_has_scheme(buf + a, w - a))
            return false;
        size_t colon = (size_t)((const char *)memchr(buf + a, ':', w - a) - buf);
        static const char *const special[] = { "http", "https", "ws", "wss", "ftp", "file" };
        for (size_t q = 0; q < sizeof special / sizeof special[0]; q++) {
            if (colon - a == strlen(special[q]) &&
                g_ascii_strncasecmp(buf + a, special[q], colon - a) == 0) {
                for (size_t i = colon; i < w; i++)
                    if (buf[i] == '\\')
                        buf[i] = '/';
            }
        }
        *base = buf + a;
        *blen = w - a;
        return true;
    }
    return false;
}

/* The URI a browser opens for the link h->uri: a relative reference
   resolved against the document's base (RFC 3986 5.2), then a link
   written in Unicode converted (urisan_link_opened); h->written keeps it as written.
   *own: what the caller frees (free). */
static void html_target(urisan_mail_hit *h, const char *base, size_t blen, char **own)
{
    const char *u = h->uri;
    size_t n = h->uri_len;
    *own = NULL;
    if (base != NULL && !mail_has_scheme(u, n) && n < ((size_t)1 << 20)) {
        size_t cap = blen + n + 16, need = 0;
        char *buf = malloc(cap);
        if (buf != NULL && urisan_resolve(base, blen, u, n, NULL, buf, cap, &need, NULL, NULL) == URISAN_OK) {
            *own = buf;
            u = buf;
            n = need;
        } else {
            free(buf);
        }
    }
    size_t cn = 0;
    char *conv = urisan_link_opened(u, n, &cn);
    if (conv != NULL) {
        free(*own);
        *own = conv;
        u = conv;
        n = cn;
    }
    if (*own != NULL) {
        h->written = h->uri;
        h->written_len = h->uri_len;
        h->uri = u;
        h->uri_len = n;
    }
}

/* A network-path reference ("//host", "\\\\host": a host all the
   same; Outlook opens a UNC path) */
static bool network_path(const char *s, size_t n)
{
    return n >= 2 && (s[0] == '/' || s[0] == '\\') && (s[1] == '/' || s[1] == '\\');
}

/* One link of an HTML part: the URI a browser opens for it parsed and
   analysed once, its text judged, decided once and delivered. The value
   is read as the WHATWG URL parser reads it first (attr.c: white space
   stripped and removed, the parser's percent-encoding), then resolved
   against the base and converted from Unicode; written keeps the value
   as written. A relative link with no base goes nowhere (no_base). */
static bool html_hit(scan_ctx *c, const char *part, const html_doc *d, const html_link *l,
                     const char *base, size_t blen)
{
    urisan_mail_hit r;
    memset(&r, 0, sizeof r);
    r.part = part;
    r.source = html_source(l->attr);
    r.offset = c->off_base + l->off;
    r.length = l->url_len;
    const char *value = html_url(d, l);
    size_t vlen = l->url_len, clen = 0;
    bool split = false;
    char *clean = l->base ? NULL : mail_attr_url(value, vlen, &clen, &split);
    r.uri = clean != NULL ? clean : value;
    r.uri_len = clean != NULL ? clen : vlen;
    if (l->has_display) {
        r.display = html_display(d, l);
        r.display_len = l->display_len;
    }
    char *own = NULL;
    urisan_uri u;
    urisan_report rep;
    bool relative = !l->base && !mail_has_scheme(r.uri, r.uri_len);
    if (relative && base != NULL)
        html_target(&r, base, blen, &own); /* relative: resolved first */
    urisan_parse_analyze(r.uri, r.uri_len, c->pol, &u, NULL, &rep);
    if (!l->base && own == NULL && (rep.flags & URISAN_F(NON_ASCII))) {
        html_target(&r, NULL, 0, &own); /* written in Unicode: that form */
        if (own != NULL)
            urisan_parse_analyze(r.uri, r.uri_len, c->pol, &u, NULL, &rep);
    }
    if (clean != NULL) { /* the value as written, before the parser's reading */
        r.written = value;
        r.written_len = vlen;
    }
    /* A relative link in a document without a base: the reader's client
       resolves it against the message itself (Thunderbird's mailbox: URL,
       about:blank), so it opens nothing on the web. It is reported with
       no_base alone: what its text would be as a URI is no fact about a
       link anyone opens. A network-path reference names a host: judged. */
    if (relative && base == NULL && !network_path(r.uri, r.uri_len))
        rep.flags = URISAN_F(NO_BASE);
    /* a tab or newline the parser removed inside the scheme or the host */
    if (split)
        rep.flags |= URISAN_F(WHITESPACE);
    char *uw = NULL;
    urisan_uri pu = u;
    unwrapped(c, &pu, &r, &u, &rep, &uw); /* a rewritten link: its destination */
    /* A fact about the link, judged by the policy like any flag. */
    if (r.display != NULL &&
        urisan_mail_link_text_mismatch(r.display, r.display_len, r.uri, r.uri_len))
        rep.flags |= URISAN_F(LINK_TEXT_MISMATCH);
    decide_link(c, r.uri, r.uri_len, &u, &rep, r.display, r.display_len, &r.decision);
    r.flags = rep.flags;
    bool ok = deliver(c, &r);
    g_free(uw);
    free(own);
    free(clean);
    return ok;
}

/* An HTML document t[0..len) at c->off_base in its part: every attribute
   and style sheet URL, with the text of each link, then the URLs of its
   visible text; its relative links resolved against its own <base>, else
   against base (an enclosing document's). Then, when conds, the content
   of each conditional comment, read as an HTML document of its own with
   this one's base (Outlook for Windows renders it: "<!--[if mso]><v:
   roundrect href=...>"); a comment holds no complete comment, so one
   level is all there is. */
#define SRCDOC_DEPTH 3 /* iframes in iframes read: a bound on the work, at
                          most SRCDOC_DEPTH + 1 times the part */

static bool scan_html_doc(scan_ctx *c, const char *part, const char *t, size_t len,
                          const char *base, size_t blen, bool conds, unsigned depth)
{
    html_doc d;
    html_doc_init(&d, c->lim->max_html_mem);
    bool ok = true;
    if (!html_scan(&d, t, len)) /* the links found are still reported */
        ok = limit_reached(c, URISAN_MAIL_LIMIT_HTML, part,
                           "an HTML part has more links than the memory bound; the rest "
                           "were not scanned", d.n, c->lim->max_html_mem);
    const char *own = NULL;
    size_t olen = 0;
    char bbuf[2048]; /* a longer base is not read: its links as written */
    if (doc_base(&d, bbuf, sizeof bbuf, &own, &olen)) {
        base = own;
        blen = olen;
    }
    for (size_t k = 0; k < d.n && ok; k++) {
        const html_link *l = &d.links[k];
        if (l->attr != HTML_SRCDOC) {
            ok = html_hit(c, part, &d, l, base, blen);
            continue;
        }
        /* <iframe srcdoc>: a document of its own, whose relative links a
           browser resolves against this one's base (HTML "fallback base
           URL" of an iframe srcdoc document); offsets within it */
        if (depth >= SRCDOC_DEPTH) {
            ok = limit_reached(c, URISAN_MAIL_LIMIT_DEPTH, part,
                               "iframe srcdoc documents nested too deep; the innermost "
                               "was not scanned", depth + 1, SRCDOC_DEPTH);
            continue;
        }
        size_t saved = c->off_base;
        c->off_base = saved + l->off;
        ok = scan_html_doc(c, part, html_url(&d, l), l->url_len, base, blen, true, depth + 1);
        c->off_base = saved;
    }
    /* a URL in text needs ':' (a scheme, "URL:"), '.' ("www.") or '\\'
       (UNC): text with none of them has none */
    if (ok && d.vis.len > 0 &&
        (memchr(d.vis.p, ':', d.vis.len) != NULL || memchr(d.vis.p, '.', d.vis.len) != NULL ||
         memchr(d.vis.p, '\\', d.vis.len) != NULL))
        ok = scan_text(c, part, d.vis.p, d.vis.len, URISAN_MAIL_SRC_HTML_TEXT, NULL, &d);
    for (size_t k = 0; conds && k < d.nconds && ok; k++) {
        size_t a = d.conds[2 * k], b = d.conds[2 * k + 1];
        size_t saved = c->off_base;
        c->off_base = saved + a;
        ok = scan_html_doc(c, part, t + a, b - a, base, blen, false, depth);
        c->off_base = saved;
    }
    html_doc_free(&d);
    return ok;
}

/* An HTML part; base: the base URL of its headers, or NULL. */
static bool scan_html(scan_ctx *c, const char *part, const char *t, size_t len,
                      const char *base)
{
    /* up to a closing quote (RFC 2110's quoted form) or white space */
    return scan_html_doc(c, part, t, len, base, base != NULL ? strcspn(base, "\" \t\r\n") : 0,
                         true, 0);
}

/* An HTML document: by the HTML reader, or as text when it is larger than
   max_html (a limit told). */
static bool read_html(scan_ctx *c, const char *part, const char *t, size_t len,
                      const char *base)
{
    if (len > c->lim->max_html) {
        if (!limit_reached(c, URISAN_MAIL_LIMIT_HTML_SIZE, part,
                           "an HTML part larger than the limit was scanned as text",
                           len, c->lim->max_html))
            return false;
        return scan_text(c, part, t, len, URISAN_MAIL_SRC_TEXT, NULL, NULL);
    }
    return scan_html(c, part, t, len, base);
}

/* ---- what the readers of attachments report through (attach.h) ---- */

bool mail_out_link(mail_out *o, const mail_found *f)
{
    scan_ctx *c = o->c;
    urisan_mail_hit r;
    memset(&r, 0, sizeof r);
    r.part = o->part;
    r.source = f->source;
    r.offset = f->offset;
    r.length = f->length;
    r.uri = f->uri;
    r.uri_len = f->uri_len;
    r.display = f->display;
    r.display_len = f->display_len;
    r.written = f->written;
    r.written_len = f->written_len;
    urisan_uri u;
    urisan_report rep;
    char *conv = NULL, *uw = NULL;
    urisan_parse_analyze(r.uri, r.uri_len, c->pol, &u, NULL, &rep);
    if (f->written == NULL) { /* as written: the form a browser opens */
        iri_form(c, &r, &u, &rep, &conv); /* written in Unicode: that form */
        urisan_uri pu = u;
        unwrapped(c, &pu, &r, &u, &rep, &uw); /* a rewritten link: its destination */
    }
    if (r.display != NULL &&
        urisan_mail_link_text_mismatch(r.display, r.display_len, r.uri, r.uri_len))
        rep.flags |= URISAN_F(LINK_TEXT_MISMATCH);
    decide_link(c, r.uri, r.uri_len, &u, &rep, r.display, r.display_len, &r.decision);
    r.flags = rep.flags;
    bool ok = deliver(c, &r);
    g_free(uw);
    g_free(conv);
    return ok;
}

bool mail_out_text(mail_out *o, const char *t, size_t n, urisan_mail_source src, size_t base)
{
    scan_ctx *c = o->c;
    size_t saved = c->off_base;
    c->off_base = base;
    bool ok = scan_text(c, o->part, t, n, src, NULL, NULL);
    c->off_base = saved;
    return ok;
}

bool mail_out_html(mail_out *o, const char *t, size_t n)
{
    return read_html(o->c, o->part, t, n, NULL);
}

bool mail_out_limit(mail_out *o, urisan_mail_limit l, const char *msg, size_t value, size_t max)
{
    return limit_reached(o->c, l, o->part, msg, value, max);
}

void mail_out_page(mail_out *o, unsigned page) { o->c->page = page; }

const char *mail_out_attachment(const mail_out *o) { return o->c->attachment; }
const char *mail_out_part(const mail_out *o) { return o->part; }

/* A part: read as each kind in its set (attach.h), HTML and text by this
   file, the others by mail_readers[]. */
static bool on_part(void *ctx, const mail_part *p)
{
    scan_ctx *c = ctx;
    if (p->header != NULL) /* a header field: its value as text */
        return scan_text(c, p->path, p->text, p->len, URISAN_MAIL_SRC_HEADER, p->header, NULL);
    c->res->parts++;
    c->attachment = p->attachment;
    c->conflict = p->conflict;
    mail_out o = { c, p->path };
    bool ok = true;
    if (p->kinds & MAIL_KIND_BIT(MAIL_KIND_HTML))
        ok = read_html(c, p->path, p->text, p->len, p->base);
    if (ok && (p->kinds & MAIL_KIND_BIT(MAIL_KIND_TEXT)))
        ok = scan_text(c, p->path, p->text, p->len, URISAN_MAIL_SRC_TEXT, NULL, NULL);
    for (unsigned k = MAIL_KIND_CALENDAR; ok && k < MAIL_KIND_COUNT_; k++)
        if ((p->kinds & MAIL_KIND_BIT(k)) && mail_readers[k] != NULL)
            ok = mail_readers[k](&o, p->text, p->len);
    c->attachment = NULL;
    c->conflict = false;
    c->page = 0;
    return ok;
}

urisan_mail_status urisan_mail_scan(const char *msg, size_t len,
                                    const urisan_policy *pol,
                                    const urisan_mail_limits *lim,
                                    const urisan_mail_sink *sink,
                                    urisan_mail_result *res)
{
    return urisan_mail_scan_with(msg, len, pol, lim, NULL, sink, res);
}

urisan_mail_status urisan_mail_scan_with(const char *msg, size_t len,
                                         const urisan_policy *pol,
                                         const urisan_mail_limits *lim,
                                         const urisan_link_hooks *hooks,
                                         const urisan_mail_sink *sink,
                                         urisan_mail_result *res)
{
    urisan_mail_result local;
    urisan_mail_limits deflim;
    if (res == NULL)
        res = &local;
    memset(res, 0, sizeof *res);
    if (lim == NULL) {
        urisan_mail_limits_default(&deflim);
        lim = &deflim;
    }
    if (msg == NULL)
        msg = "";
    scan_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return URISAN_MAIL_NOMEM;
    c->pol = pol;
    c->lim = lim;
    c->sink = sink;
    c->hooks = hooks;
    c->res = res;
    c->scap = urisan_extract_scratch_size(pol);
    c->scratch = malloc(c->scap);
    c->keep.facts = malloc(HIT_BATCH * sizeof *c->keep.facts);
    c->keep.cap = HIT_BATCH;
    if (c->scratch == NULL || c->keep.facts == NULL) {
        free(c->scratch);
        free(c->keep.facts);
        free(c);
        return URISAN_MAIL_NOMEM;
    }
    mail_limit_hit hit;
    mail_walk_status ws = mail_walk(msg, len, lim, on_part, c, &hit);
    urisan_mail_status st = URISAN_MAIL_OK;
    if (ws == MAIL_WALK_NOT_MESSAGE) {
        st = URISAN_MAIL_NOT_MESSAGE;
    } else if (ws == MAIL_WALK_STOPPED || c->stopped) {
        st = URISAN_MAIL_STOPPED;
    } else {
        if (ws == MAIL_WALK_LIMIT) {
            static const char *const what[] = {
                [URISAN_MAIL_LIMIT_DEPTH] = "MIME parts nested too deep (or too many multiparts)",
                [URISAN_MAIL_LIMIT_HTML] = "",
                [URISAN_MAIL_LIMIT_HEADERS] = "too many header fields",
                [URISAN_MAIL_LIMIT_HEADER_SIZE] = "a header field too large",
                [URISAN_MAIL_LIMIT_PARAMS] = ("too many parameters in a Content-Type or "
                                              "Content-Disposition field"),
                [URISAN_MAIL_LIMIT_PARTS] = "too many MIME parts",
                [URISAN_MAIL_LIMIT_DECODED] = "too many decoded bytes",
                [URISAN_MAIL_LIMIT_HTML_SIZE] = "",
                [URISAN_MAIL_LIMIT_BOUNDARIES] = ("too many lines that start with \"--\" "
                                                  "inside nested multiparts"),
                [URISAN_MAIL_LIMIT_PARAMS_TOTAL] = ("too many parameters in the Content-Type "
                                                    "and Content-Disposition fields"),
            };
            char msgbuf[200];
            snprintf(msgbuf, sizeof msgbuf, "%s (%zu, limit %zu): the raw message was scanned "
                     "as text (part \"raw\")", what[hit.limit], hit.value, hit.max);
            if (!limit_reached(c, (urisan_mail_limit)hit.limit, "raw", msgbuf, hit.value, hit.max))
                st = URISAN_MAIL_STOPPED;
        }
        if (st == URISAN_MAIL_OK && res->limits != 0)
            st = URISAN_MAIL_LIMIT;
    }
    free(c->scratch);
    free(c->keep.facts);
    free(c);
    return st;
}
