/*
 * attach.c - what a reader's system opens a MIME part as (attach.h): by
 * its file name, its declared type and its first bytes; and the table of
 * readers by kind.
 *
 * The content rules follow the WHATWG MIME Sniffing standard where it
 * has one: the HTML signatures of 7.1 ("<!DOCTYPE HTML", "<HTML", "<A" ...
 * after white space, a tag-terminating byte after them), the "binary data
 * byte" of 3 that tells text from binary, the image signatures of 6.1.
 * A PDF reader accepts "%PDF-" anywhere in the first 1024 bytes (Adobe's
 * PDF reference, "File Header" implementation note).
 */
#include "attach.h"

#include <string.h>

const mail_reader_fn mail_readers[MAIL_KIND_COUNT_] = {
    [MAIL_KIND_CALENDAR] = mail_read_calendar,
    [MAIL_KIND_SHORTCUT] = mail_read_shortcut,
    [MAIL_KIND_PDF] = mail_read_pdf,
    [MAIL_KIND_OOXML] = mail_read_ooxml,
    [MAIL_KIND_IMAGE] = mail_read_image,
};

const char *mail_kind_name(mail_kind k)
{
    static const char *const names[MAIL_KIND_COUNT_] = {
        "text", "html", "calendar", "shortcut", "pdf", "ooxml", "image",
    };
    return (unsigned)k < MAIL_KIND_COUNT_ ? names[k] : NULL;
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

/* s[0..n) equals lit (lower case) ignoring ASCII case. */
static bool ieq(const char *s, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++)
        if (lit[i] == '\0' || lower((unsigned char)s[i]) != (unsigned char)lit[i])
            return false;
    return lit[i] == '\0';
}

/* s starts with lit (lower case) ignoring ASCII case. */
static bool istarts(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && ieq(s, k, lit);
}

/* ---- by file name ---- */

static const struct {
    const char *ext;
    mail_kind kind;
} by_ext[] = {
    { "html", MAIL_KIND_HTML },   { "htm", MAIL_KIND_HTML },     { "shtml", MAIL_KIND_HTML },
    { "xhtml", MAIL_KIND_HTML },  { "xht", MAIL_KIND_HTML },     { "svg", MAIL_KIND_HTML },
    { "hta", MAIL_KIND_HTML },
    { "url", MAIL_KIND_SHORTCUT }, { "webloc", MAIL_KIND_SHORTCUT },
    { "desktop", MAIL_KIND_SHORTCUT }, { "website", MAIL_KIND_SHORTCUT },
    { "ics", MAIL_KIND_CALENDAR }, { "ical", MAIL_KIND_CALENDAR },
    { "icalendar", MAIL_KIND_CALENDAR }, { "ifb", MAIL_KIND_CALENDAR },
    { "vcs", MAIL_KIND_CALENDAR },
    { "txt", MAIL_KIND_TEXT },    { "text", MAIL_KIND_TEXT },    { "csv", MAIL_KIND_TEXT },
    { "log", MAIL_KIND_TEXT },    { "md", MAIL_KIND_TEXT },
    { "pdf", MAIL_KIND_PDF },
    { "docx", MAIL_KIND_OOXML },  { "docm", MAIL_KIND_OOXML },   { "dotx", MAIL_KIND_OOXML },
    { "dotm", MAIL_KIND_OOXML },  { "xlsx", MAIL_KIND_OOXML },   { "xlsm", MAIL_KIND_OOXML },
    { "xltx", MAIL_KIND_OOXML },  { "xltm", MAIL_KIND_OOXML },   { "xlam", MAIL_KIND_OOXML },
    { "pptx", MAIL_KIND_OOXML },  { "pptm", MAIL_KIND_OOXML },   { "potx", MAIL_KIND_OOXML },
    { "potm", MAIL_KIND_OOXML },  { "ppsx", MAIL_KIND_OOXML },   { "ppsm", MAIL_KIND_OOXML },
    { "png", MAIL_KIND_IMAGE },   { "jpg", MAIL_KIND_IMAGE },    { "jpeg", MAIL_KIND_IMAGE },
    { "jpe", MAIL_KIND_IMAGE },   { "jfif", MAIL_KIND_IMAGE },   { "gif", MAIL_KIND_IMAGE },
    { "webp", MAIL_KIND_IMAGE },
};

mail_kind mail_kind_by_name(const char *name)
{
    if (name == NULL)
        return MAIL_KIND_COUNT_;
    size_t n = strlen(name);
    /* Windows drops trailing dots and spaces from a file name
       ("invoice.html. " is invoice.html) */
    while (n > 0 && (name[n - 1] == '.' || name[n - 1] == ' '))
        n--;
    size_t dot = n;
    while (dot > 0 && name[dot - 1] != '.' && name[dot - 1] != '/' && name[dot - 1] != '\\')
        dot--;
    if (dot == 0 || name[dot - 1] != '.')
        return MAIL_KIND_COUNT_;
    for (size_t k = 0; k < sizeof by_ext / sizeof by_ext[0]; k++)
        if (ieq(name + dot, n - dot, by_ext[k].ext))
            return by_ext[k].kind;
    return MAIL_KIND_COUNT_;
}

/* ---- by declared type ---- */

static const struct {
    const char *type; /* lower case; a trailing '*' matches any rest */
    mail_kind kind;
} by_type[] = {
    { "text/html", MAIL_KIND_HTML },
    { "application/xhtml+xml", MAIL_KIND_HTML },
    { "image/svg+xml", MAIL_KIND_HTML },
    { "application/hta", MAIL_KIND_HTML },
    { "text/calendar", MAIL_KIND_CALENDAR },
    { "application/ics", MAIL_KIND_CALENDAR },
    { "text/x-vcalendar", MAIL_KIND_CALENDAR },
    { "application/internet-shortcut", MAIL_KIND_SHORTCUT },
    { "application/x-url", MAIL_KIND_SHORTCUT },
    { "application/x-mswinurl", MAIL_KIND_SHORTCUT },
    { "wwwserver/redirection", MAIL_KIND_SHORTCUT },
    { "application/x-desktop", MAIL_KIND_SHORTCUT },
    { "application/pdf", MAIL_KIND_PDF },
    { "application/x-pdf", MAIL_KIND_PDF },
    { "application/vnd.openxmlformats-officedocument.*", MAIL_KIND_OOXML },
    { "application/vnd.ms-word.*", MAIL_KIND_OOXML },
    { "application/vnd.ms-excel.*", MAIL_KIND_OOXML },
    { "application/vnd.ms-powerpoint.*", MAIL_KIND_OOXML },
    { "image/png", MAIL_KIND_IMAGE },
    { "image/jpeg", MAIL_KIND_IMAGE },
    { "image/pjpeg", MAIL_KIND_IMAGE },
    { "image/gif", MAIL_KIND_IMAGE },
    { "image/webp", MAIL_KIND_IMAGE },
    { "text/*", MAIL_KIND_TEXT },
};

static mail_kind kind_by_type(const char *type)
{
    if (type == NULL)
        return MAIL_KIND_COUNT_;
    size_t n = strlen(type);
    for (size_t k = 0; k < sizeof by_type / sizeof by_type[0]; k++) {
        const char *t = by_type[k].type;
        size_t tn = strlen(t);
        if (t[tn - 1] == '*') {
            char pre[64];
            if (tn - 1 >= sizeof pre)
                continue;
            memcpy(pre, t, tn - 1);
            pre[tn - 1] = '\0';
            if (istarts(type, n, pre))
                return by_type[k].kind;
        } else if (ieq(type, n, t)) {
            return by_type[k].kind;
        }
    }
    return MAIL_KIND_COUNT_;
}

/* ---- by content ---- */

#define SNIFF_MAX 1024

/* WHATWG MIME Sniffing 3: a binary data byte. */
static bool is_binary_byte(unsigned char c)
{
    return c <= 0x08 || c == 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f);
}

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* WHATWG MIME Sniffing 7.1: the HTML signatures, each followed by a
   tag-terminating byte (space or '>'). */
static bool html_signature(const char *s, size_t n)
{
    static const char *const sig[] = {
        "<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font",
        "<table", "<a", "<style", "<title", "<b", "<body", "<br", "<p", "<!--",
    };
    for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++) {
        size_t l = strlen(sig[k]);
        if (n > l && ieq(s, l, sig[k]) && (s[l] == ' ' || s[l] == '>' || s[l] == '\t' ||
                                            s[l] == '\n' || s[l] == '\r' || s[l] == '\f'))
            return true;
    }
    return false;
}

/* s[0..n) holds lit (lower case) ignoring ASCII case. */
static bool icontains(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    for (size_t i = 0; i + l <= n; i++)
        if (lower((unsigned char)s[i]) == (unsigned char)lit[0] && ieq(s + i, l, lit))
            return true;
    return false;
}

static mail_kind kind_by_content(const char *d, size_t n)
{
    size_t m = n < SNIFF_MAX ? n : SNIFF_MAX;
    if (m == 0)
        return MAIL_KIND_TEXT; /* an empty body (data may be NULL) */
    const unsigned char *u = (const unsigned char *)d;
    /* WHATWG MIME Sniffing 6.1: image signatures */
    if ((m >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) ||
        (m >= 3 && u[0] == 0xff && u[1] == 0xd8 && u[2] == 0xff) ||
        (m >= 6 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0)) ||
        (m >= 14 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBPVP", 6) == 0))
        return MAIL_KIND_IMAGE;
    if (m >= 4 && memcmp(d, "PK\x03\x04", 4) == 0)
        return MAIL_KIND_OOXML;
    for (size_t i = 0; i + 5 <= m; i++)
        if (d[i] == '%' && memcmp(d + i, "%PDF-", 5) == 0)
            return MAIL_KIND_PDF;
    bool binary = false;
    for (size_t i = 0; i < m && !binary; i++)
        binary = is_binary_byte(u[i]);
    if (binary)
        return MAIL_KIND_COUNT_;
    size_t i = 0;
    if (m >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf)
        i = 3; /* UTF-8 byte order mark */
    while (i < m && is_ws(u[i]))
        i++;
    const char *s = d + i;
    size_t k = m - i;
    if (istarts(s, k, "begin:vcalendar"))
        return MAIL_KIND_CALENDAR;
    if (istarts(s, k, "[internetshortcut]") || istarts(s, k, "[{000214a0-") ||
        istarts(s, k, "[desktop entry]") ||
        ((istarts(s, k, "<?xml") || istarts(s, k, "<!doctype plist") ||
          istarts(s, k, "<plist")) && icontains(s, k, "<plist")))
        return MAIL_KIND_SHORTCUT;
    if (html_signature(s, k))
        return MAIL_KIND_HTML;
    /* XML that is an SVG or XHTML document (a prolog or doctype first) */
    if ((istarts(s, k, "<?xml") || istarts(s, k, "<!doctype")) &&
        (icontains(s, k, "<svg") || icontains(s, k, "<html")))
        return MAIL_KIND_HTML;
    if (istarts(s, k, "<svg"))
        return MAIL_KIND_HTML;
    return MAIL_KIND_TEXT;
}

unsigned mail_sniff(const char *name, const char *type, const char *data, size_t n,
                    bool named_or_attached)
{
    unsigned set = 0;
    mail_kind t = kind_by_type(type);
    if (t != MAIL_KIND_COUNT_)
        set |= MAIL_KIND_BIT(t);
    /* an inline text part without a name is shown by its type */
    bool by_label_only = !named_or_attached && t != MAIL_KIND_COUNT_ &&
                         type != NULL && istarts(type, strlen(type), "text/");
    if (!by_label_only) {
        mail_kind k = mail_kind_by_name(name);
        if (k != MAIL_KIND_COUNT_)
            set |= MAIL_KIND_BIT(k);
        k = kind_by_content(data, n);
        if (k != MAIL_KIND_COUNT_ && (k != MAIL_KIND_TEXT || set == 0))
            set |= MAIL_KIND_BIT(k);
    }
    /* a reader of another kind reads the links the text would show */
    if (set & ~MAIL_KIND_BIT(MAIL_KIND_TEXT))
        set &= ~MAIL_KIND_BIT(MAIL_KIND_TEXT);
    return set;
}
