/*
 * mime.c - the MIME parts of a mail message (GMime 3), for liburisan-mail
 * (urisan(1), EXTRACT; doc/mail.md), and the library's init/shutdown.
 *
 * Kept out of the core library: it allocates, and depends on GMime, GLib
 * and libpsl. GMime's parser bounds the nesting of multiparts itself
 * (MAX_LEVEL); the walk over the parts is iterative (GMimePartIter).
 */
#include "mail_internal.h"
#include "attach.h"

#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>
#include <libpsl.h>

#include "urisan_host.h"
#ifdef URISAN_HAVE_READERS
#include "isolate.h"
#endif

/* ------------------------------------------------------------------ */
/* init / shutdown                                                     */
/* ------------------------------------------------------------------ */

static bool mail_ready;

void urisan_mail_init(void)
{
    if (mail_ready)
        return;
    g_mime_init();
    urisan_host_init();   /* the Public Suffix List: the host layer's */
    mail_ready = true;
}

void urisan_mail_shutdown(void)
{
    if (!mail_ready)
        return;
    g_mime_shutdown();
#ifdef URISAN_HAVE_READERS
    rd_stop();            /* the zygote and its workers reaped */
#endif
    mail_ready = false;
}

const psl_ctx_t *mail_psl(void)
{
    urisan_mail_init();
    return urisan_host_psl();
}

/* ------------------------------------------------------------------ */
/* MIME                                                                */
/* ------------------------------------------------------------------ */

static bool charset_is_utf8(const char *cs)
{
    return g_ascii_strcasecmp(cs, "utf-8") == 0 || g_ascii_strcasecmp(cs, "utf8") == 0 ||
           g_ascii_strcasecmp(cs, "us-ascii") == 0 || g_ascii_strcasecmp(cs, "ascii") == 0;
}

/* A part's bytes: never NULL data, also when the part is empty (an empty
   GByteArray has no buffer), so readers may take data + offset and memcmp
   on it. */
static GByteArray *part_bytes_new(void)
{
    return g_byte_array_sized_new(64);
}

/*
 * The part's content as the reader sees it: transfer encoding undone by
 * the data wrapper (quoted-printable soft breaks joined, base64 decoded),
 * then the charset converted to UTF-8. An unknown charset is left alone:
 * its bytes reach the JSON writer, which escapes what is not UTF-8.
 */
static GByteArray *decode_part(GMimePart *part)
{
    GMimeDataWrapper *w = g_mime_part_get_content(part);
    GByteArray *arr = part_bytes_new();
    GMimeStream *mem = g_mime_stream_mem_new_with_byte_array(arr);
    g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
    if (w == NULL) {
        g_object_unref(mem);
        return arr;
    }
    GMimeStream *out = mem, *filtered = NULL;
    const char *cs = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "charset");
    if (cs != NULL && !charset_is_utf8(cs)) {
        GMimeFilter *f = g_mime_filter_charset_new(cs, "UTF-8");
        if (f != NULL) {
            filtered = g_mime_stream_filter_new(mem);
            g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), f);
            g_object_unref(f);
            out = filtered;
        }
    }
    g_mime_data_wrapper_write_to_stream(w, out);
    if (filtered != NULL) {
        g_mime_stream_flush(filtered);
        g_object_unref(filtered);
    }
    g_object_unref(mem);
    return arr;
}

/* IMAP-style part number: the body of a single-part message is "1". */
static char *part_path(GMimePartIter *it)
{
    char *p = g_mime_part_iter_get_path(it);
    if (p == NULL || strcmp(p, "0") == 0) {
        g_free(p);
        return g_strdup("1");
    }
    return p;
}

/*
 * The header fields a reader sees as text, each value as the
 * client shows it: unfolded and RFC 2047 encoded-words decoded to UTF-8
 * (g_mime_header_get_value). Unstructured text (RFC 5322 3.6.5, RFC 2045
 * Content-Description, Thread-Topic, Organization), the address fields
 * (a URL in a display name: From: "www.bank.example" <x@evil.example>;
 * bare addresses are no hits) and the RFC 2369 list fields, whose URLs a
 * client offers as buttons.
 */
static const char *const text_fields[] = {
    "Subject", "Comments", "Keywords", "Content-Description", "Thread-Topic", "Organization",
    "From", "Sender", "Reply-To", "To", "Cc",
    "List-Help", "List-Unsubscribe", "List-Subscribe", "List-Post", "List-Owner", "List-Archive",
};

static bool is_text_field(const char *name)
{
    for (size_t k = 0; k < sizeof text_fields / sizeof text_fields[0]; k++)
        if (g_ascii_strcasecmp(name, text_fields[k]) == 0)
            return true;
    return false;
}

/* The text fields of one head (the message's or an attached message's),
   in order, as parts with header set. false: fn stopped the walk. */
static bool walk_headers(GMimeObject *o, const char *path, mail_part_fn fn, void *ctx)
{
    GMimeHeaderList *hl = g_mime_object_get_header_list(o);
    int n = hl != NULL ? g_mime_header_list_get_count(hl) : 0;
    for (int i = 0; i < n; i++) {
        GMimeHeader *h = g_mime_header_list_get_header_at(hl, i);
        const char *name = h != NULL ? g_mime_header_get_name(h) : NULL;
        if (name == NULL || !is_text_field(name))
            continue;
        const char *v = g_mime_header_get_value(h);
        if (v == NULL || *v == '\0')
            continue;
        mail_part mp = { .path = path, .text = v, .len = strlen(v), .header = name };
        if (!fn(ctx, &mp))
            return false;
    }
    return true;
}

/* What one walk has counted so far, against the limits. */
typedef struct {
    size_t parts, decoded;
    GMimeObject *message; /* the message head (Content-Base) */
} walk_count;

/* After one part: go on with the next, stop at a limit (hit set) or stop
   because fn said so. */
typedef enum { PART_NEXT, PART_LIMIT, PART_STOPPED } part_step;

/* Count the part o at path against the depth and parts limits; true when
   one is reached (hit set). */
static bool part_over_limits(GMimeObject *o, GMimeContentType *ct, const char *path,
                             const urisan_mail_limits *lim, walk_count *wc, mail_limit_hit *hit)
{
    size_t max_depth = lim->max_depth;
    size_t depth = 1;
    for (const char *q = path; *q; q++)
        depth += *q == '.';
    /* GMime stops descending at its nesting limit (MAX_LEVEL,
       1024): what lies deeper is a container left unparsed or
       lost. Hiding a link down there must not hide it from us. */
    if (depth >= max_depth ||
        (GMIME_IS_PART(o) && ct != NULL &&
         (g_mime_content_type_is_type(ct, "multipart", "*") ||
          g_mime_content_type_is_type(ct, "message", "rfc822"))))
        mail_set_hit(hit, URISAN_MAIL_LIMIT_DEPTH, depth, max_depth);
    if (++wc->parts > lim->max_parts)
        mail_set_hit(hit, URISAN_MAIL_LIMIT_PARTS, wc->parts, lim->max_parts);
    return hit->limit >= 0;
}

/* The base URL of a part's relative links its headers give: RFC 2110
   Content-Base, else an absolute RFC 2557 Content-Location, of the part
   itself, else of the message head; NULL when none. */
static const char *header_base(GMimeObject *o)
{
    static const char *const fields[] = { "Content-Base", "Content-Location" };
    for (size_t k = 0; k < 2; k++) {
        const char *v = g_mime_object_get_header(o, fields[k]);
        if (v == NULL)
            continue;
        while (*v == ' ' || *v == '\t' || *v == '"') /* RFC 2110 quotes it */
            v++;
        const char *c = v;
        while (g_ascii_isalnum(*c) || *c == '+' || *c == '-' || *c == '.')
            c++;
        if (c > v && g_ascii_isalpha(*v) && *c == ':')
            return v;
    }
    return NULL;
}

/* ---- duplicate header fields that change the reading ---- */

#define DUP_MAX 4 /* values of one field read, at most */

/* The fields whose second occurrence changes how a part is read: GMime
   takes one, another reader (Python's email, some clients) another. */
enum { DUP_TYPE, DUP_ENCODING, DUP_DISPOSITION, DUP_FIELDS_ };

typedef struct {
    const char *v[DUP_FIELDS_][DUP_MAX];
    size_t n[DUP_FIELDS_];
} dup_fields;

static bool value_eq(const char *a, const char *b)
{
    while (*a == ' ' || *a == '\t')
        a++;
    while (*b == ' ' || *b == '\t')
        b++;
    return g_ascii_strcasecmp(a, b) == 0;
}

/* The distinct values of Content-Type, Content-Transfer-Encoding and
   Content-Disposition in o's head; true when one of them has two. */
static bool dup_scan(GMimeObject *o, dup_fields *df)
{
    static const char *const names[DUP_FIELDS_] = {
        "Content-Type", "Content-Transfer-Encoding", "Content-Disposition" };
    memset(df, 0, sizeof *df);
    GMimeHeaderList *hl = g_mime_object_get_header_list(o);
    int n = hl != NULL ? g_mime_header_list_get_count(hl) : 0;
    bool dup = false;
    for (int i = 0; i < n; i++) {
        GMimeHeader *h = g_mime_header_list_get_header_at(hl, i);
        const char *name = h != NULL ? g_mime_header_get_name(h) : NULL;
        const char *v = h != NULL ? g_mime_header_get_raw_value(h) : NULL;
        if (name == NULL || v == NULL)
            continue;
        for (unsigned f = 0; f < DUP_FIELDS_; f++) {
            if (g_ascii_strcasecmp(name, names[f]) != 0)
                continue;
            bool seen = false;
            for (size_t k = 0; k < df->n[f] && !seen; k++)
                seen = value_eq(df->v[f][k], v);
            if (!seen && df->n[f] < DUP_MAX)
                df->v[f][df->n[f]++] = v;
            dup |= df->n[f] > 1;
        }
    }
    return dup;
}

/* The part's content decoded with transfer encoding enc (no charset
   conversion): another reader's reading of a second CTE field. */
static GByteArray *decode_as(GMimePart *part, GMimeContentEncoding enc)
{
    GByteArray *arr = part_bytes_new();
    GMimeDataWrapper *w = g_mime_part_get_content(part);
    GMimeStream *raw = w != NULL ? g_mime_data_wrapper_get_stream(w) : NULL;
    if (raw == NULL)
        return arr;
    GMimeStream *mem = g_mime_stream_mem_new_with_byte_array(arr);
    g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
    GMimeDataWrapper *alt = g_mime_data_wrapper_new_with_stream(raw, enc);
    g_mime_data_wrapper_write_to_stream(alt, mem);
    g_object_unref(alt);
    g_object_unref(mem);
    return arr;
}

/* A part whose head has two values of a field that changes the reading:
   read again under each other value (the other fields as GMime reads
   them), each reading that differs from GMime's (first, *main, its
   bytes arr, which this frees) handed to fn with conflict set. */
static part_step walk_readings(GMimeObject *o, const dup_fields *df, const mail_part *main,
                               GByteArray *arr, const urisan_mail_limits *lim,
                               mail_part_fn fn, void *ctx, walk_count *wc, mail_limit_hit *hit)
{
    GMimePart *part = GMIME_PART(o);
    GMimeContentType *ct0 = g_mime_object_get_content_type(o);
    char *type0 = ct0 != NULL ? g_mime_content_type_get_mime_type(ct0) : g_strdup("text/plain");
    const char *name0 = main->attachment;
    bool attached0 = name0 != NULL || g_mime_part_is_attachment(part);
    part_step step = PART_NEXT;
    for (unsigned f = 0; f < DUP_FIELDS_ && step == PART_NEXT; f++) {
        for (size_t k = 0; k < df->n[f] && df->n[f] > 1 && step == PART_NEXT; k++) {
            const char *v = df->v[f][k];
            char *type = g_strdup(type0);
            const char *name = name0;
            bool attached = attached0;
            GMimeContentType *ct = NULL;
            GMimeContentDisposition *cd = NULL;
            GByteArray *bytes = arr;
            if (f == DUP_TYPE) {
                ct = g_mime_content_type_parse(NULL, v);
                g_free(type);
                type = g_mime_content_type_get_mime_type(ct);
                const char *nm = g_mime_content_type_get_parameter(ct, "name");
                if (nm != NULL && name == NULL)
                    name = nm;
            } else if (f == DUP_DISPOSITION) {
                cd = g_mime_content_disposition_parse(NULL, v);
                const char *fn_ = g_mime_content_disposition_get_parameter(cd, "filename");
                if (fn_ != NULL)
                    name = fn_;
                attached = name != NULL || g_mime_content_disposition_is_attachment(cd);
            } else {
                while (*v == ' ' || *v == '\t')
                    v++;
                bytes = decode_as(part, g_mime_content_encoding_from_string(v));
            }
            bool text = g_ascii_strncasecmp(type, "text/", 5) == 0;
            unsigned kinds = text && !attached ? mail_sniff(NULL, type, NULL, 0, false)
                                               : mail_sniff(name, type, (const char *)bytes->data,
                                                            bytes->len, attached);
            if (kinds == 0 && text && !attached)
                kinds = MAIL_KIND_BIT(MAIL_KIND_TEXT);
            bool same = kinds == main->kinds && bytes->len == main->len &&
                        memcmp(bytes->data, main->text, main->len) == 0 &&
                        g_strcmp0(name, main->attachment) == 0;
            if (kinds != 0 && !same) {
                wc->decoded += bytes->len;
                if (wc->decoded > lim->max_decoded) {
                    mail_set_hit(hit, URISAN_MAIL_LIMIT_DECODED, wc->decoded, lim->max_decoded);
                    step = PART_LIMIT;
                } else {
                    mail_part mp = *main;
                    mp.kinds = kinds;
                    mp.html = (kinds & MAIL_KIND_BIT(MAIL_KIND_HTML)) != 0;
                    mp.attachment = name;
                    mp.text = (const char *)bytes->data;
                    mp.len = bytes->len;
                    if (!fn(ctx, &mp))
                        step = PART_STOPPED;
                }
            }
            if (bytes != arr)
                g_byte_array_free(bytes, TRUE);
            if (ct != NULL)
                g_object_unref(ct);
            if (cd != NULL)
                g_object_unref(cd);
            g_free(type);
        }
    }
    g_free(type0);
    g_byte_array_free(arr, TRUE);
    return step;
}

/* A leaf part: decoded, read as what the reader's system opens it as
   (attach.h mail_sniff: its file name, declared type and first bytes),
   counted against max_decoded when it is read, and handed to fn. An
   inline text part without a file name is read by its type alone, as
   before, without looking at its bytes first. */
static part_step walk_leaf(GMimeObject *o, GMimeContentType *ct, const char *path,
                           const urisan_mail_limits *lim, mail_part_fn fn, void *ctx,
                           walk_count *wc, mail_limit_hit *hit)
{
    GMimePart *part = GMIME_PART(o);
    const char *name = g_mime_part_get_filename(part);
    bool attached = name != NULL || g_mime_part_is_attachment(part);
    bool text = ct == NULL || g_mime_content_type_is_type(ct, "text", "*");
    char *type = ct != NULL ? g_mime_content_type_get_mime_type(ct) : NULL;
    unsigned kinds = 0;
    if (text && !attached) {
        kinds = mail_sniff(NULL, type != NULL ? type : "text/plain", NULL, 0, false);
        if (kinds == 0)
            kinds = MAIL_KIND_BIT(MAIL_KIND_TEXT);
    }
    GByteArray *arr = NULL;
    if (kinds == 0) {
        /* an attachment or a part of another type: its bytes too */
        arr = decode_part(part);
        kinds = mail_sniff(name, type, (const char *)arr->data, arr->len, attached);
        if (kinds == 0) {
            g_free(type);
            g_byte_array_free(arr, TRUE);
            return PART_NEXT;
        }
    } else {
        arr = decode_part(part);
    }
    g_free(type);
    wc->decoded += arr->len;
    if (wc->decoded > lim->max_decoded) {
        mail_set_hit(hit, URISAN_MAIL_LIMIT_DECODED, wc->decoded, lim->max_decoded);
        g_byte_array_free(arr, TRUE);
        return PART_LIMIT;
    }
    dup_fields df;
    bool conflict = dup_scan(o, &df);
    mail_part mp;
    memset(&mp, 0, sizeof mp);
    mp.path = path;
    mp.conflict = conflict;
    mp.kinds = kinds;
    mp.html = (kinds & MAIL_KIND_BIT(MAIL_KIND_HTML)) != 0;
    mp.attachment = name;
    mp.base = header_base(o);
    if (mp.base == NULL && wc->message != NULL)
        mp.base = header_base(wc->message);
    mp.text = (const char *)arr->data;
    mp.len = arr->len;
    bool ok = fn(ctx, &mp);
    if (ok && conflict)
        return walk_readings(o, &df, &mp, arr, lim, fn, ctx, wc, hit);
    g_byte_array_free(arr, TRUE);
    return ok ? PART_NEXT : PART_STOPPED;
}

/* One part of the tree at path: the limits, an attached message's head,
   a leaf part's body. */
static part_step walk_part(GMimeObject *o, const char *path, const urisan_mail_limits *lim,
                           mail_part_fn fn, void *ctx, walk_count *wc, mail_limit_hit *hit)
{
    GMimeContentType *ct = g_mime_object_get_content_type(o);
    if (part_over_limits(o, ct, path, lim, wc, hit))
        return PART_LIMIT;
    if (GMIME_IS_MESSAGE_PART(o)) {
        /* an attached message: its head, "2.HEADER" (RFC 3501 6.4.5) */
        GMimeMessage *am = g_mime_message_part_get_message(GMIME_MESSAGE_PART(o));
        char *hpath = g_strdup_printf("%s.HEADER", path);
        bool ok = am == NULL || walk_headers(GMIME_OBJECT(am), hpath, fn, ctx);
        g_free(hpath);
        if (!ok)
            return PART_STOPPED;
    }
    if (!GMIME_IS_PART(o))
        return PART_NEXT; /* multiparts and attached messages: their
                             children come next */
    return walk_leaf(o, ct, path, lim, fn, ctx, wc, hit);
}

/* Every part of m in order, until a limit (hit set) or fn stops. */
static mail_walk_status walk_parts(GMimeMessage *m, const urisan_mail_limits *lim,
                                   mail_part_fn fn, void *ctx, mail_limit_hit *hit)
{
    mail_walk_status rc = MAIL_WALK_OK;
    walk_count wc = { 0, 0, GMIME_OBJECT(m) };
    GMimePartIter *it = g_mime_part_iter_new(GMIME_OBJECT(m));
    if (g_mime_part_iter_is_valid(it)) {
        do {
            char *path = part_path(it);
            part_step step = walk_part(g_mime_part_iter_get_current(it), path, lim, fn, ctx,
                                       &wc, hit);
            g_free(path);
            if (step == PART_STOPPED)
                rc = MAIL_WALK_STOPPED;
            if (step != PART_NEXT)
                break;
        } while (g_mime_part_iter_next(it));
    }
    g_mime_part_iter_free(it);
    return rc;
}

/* The message GMime parses from data, or NULL. */
static GMimeMessage *parse_message(const char *data, size_t len)
{
    GMimeStream *s = g_mime_stream_mem_new_with_buffer(data, len);
    GMimeParser *p = g_mime_parser_new_with_stream(s);
    g_object_unref(s);
    GMimeMessage *m = g_mime_parser_construct_message(p, NULL);
    g_object_unref(p);
    return m;
}

mail_walk_status mail_walk(const char *data, size_t len, const urisan_mail_limits *lim,
                           mail_part_fn fn, void *ctx, mail_limit_hit *hit)
{
    urisan_mail_init();
    hit->limit = -1;
    mail_pre_scan(data, len, lim, hit);
    if (hit->limit >= 0) {
        /* Fail closed: GMime never sees it; every link of the raw bytes. */
        mail_part raw = { .path = "raw", .text = data, .len = len,
                          .kinds = MAIL_KIND_BIT(MAIL_KIND_TEXT) };
        return fn(ctx, &raw) ? MAIL_WALK_LIMIT : MAIL_WALK_STOPPED;
    }
    GMimeMessage *m = parse_message(data, len);
    if (m == NULL)
        return MAIL_WALK_NOT_MESSAGE;

    if (!walk_headers(GMIME_OBJECT(m), "HEADER", fn, ctx)) {
        g_object_unref(m);
        return MAIL_WALK_STOPPED;
    }
    mail_walk_status rc = walk_parts(m, lim, fn, ctx, hit);
    g_object_unref(m);
    if (rc == MAIL_WALK_OK && hit->limit >= 0) {
        /* Fail closed: every link the raw bytes show, and the limit. */
        mail_part raw = { .path = "raw", .text = data, .len = len,
                          .kinds = MAIL_KIND_BIT(MAIL_KIND_TEXT) };
        if (!fn(ctx, &raw))
            return MAIL_WALK_STOPPED;
        return MAIL_WALK_LIMIT;
    }
    return rc;
}
