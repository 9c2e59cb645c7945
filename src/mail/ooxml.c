/*
 * ooxml.c - the links of an Office Open XML file (readers.h): .docx,
 * .xlsx, .pptx and their macro variants, read with libzip and libxml2.
 *
 * What Word, Excel and PowerPoint fetch or open (ECMA-376 Part 2, 9.3
 * relationships): every relationship of every *.rels member whose
 * TargetMode is External, by its type: hyperlink (a link the reader
 * clicks), attachedTemplate (the template Word loads when the document
 * opens, the "remote template" technique), oleObject, frame, package and
 * externalLinkPath (an OLE link or linked file), any other external
 * target. Then the field codes of Word's parts (w:instrText, w:fldSimple
 * w:instr: HYPERLINK, INCLUDEPICTURE, INCLUDETEXT name a URL), read as
 * text.
 *
 * libzip inflates (no inflate of our own); each member is read up to
 * the decompressed bound. XML is read by libxml2's stream reader without
 * network (XML_PARSE_NONET) and without entity substitution; a member
 * with a document type declaration is refused (no Office part has one,
 * and it is where entity expansion attacks live).
 */
#define _GNU_SOURCE 1 /* memmem */
#include "readers.h"

#include <libxml/xmlreader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define XML_OPTS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA)

typedef struct {
    const rd_bounds *b;
    rd_emit *e;
    rd_status st;
    size_t inflated;
    bool stop;
} ox_ctx;

static void note(ox_ctx *c, rd_status st, const char *msg)
{
    if (st > c->st)
        c->st = st;
    c->e->note(c->e, st, msg);
    if (st == RD_LIMIT)
        c->stop = true;
}

static void emit(ox_ctx *c, rd_kind k, const char *s, size_t n)
{
    if (c->stop || n == 0)
        return;
    if (c->e->count >= c->b->max_found) {
        note(c, RD_LIMIT, "Office: more links than the bound of one file");
        return;
    }
    if (!c->e->found(c->e, k, 0, s, n))
        c->stop = true;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* The kind of an external relationship by its Type URI's last segment. */
static rd_kind rel_kind(const char *type)
{
    if (type == NULL)
        return RD_OOXML_EXTERNAL;
    if (ends_with(type, "/hyperlink"))
        return RD_OOXML_HYPERLINK;
    if (ends_with(type, "/attachedTemplate") || ends_with(type, "/subDocument"))
        return RD_OOXML_TEMPLATE;
    if (ends_with(type, "/oleObject") || ends_with(type, "/frame") ||
        ends_with(type, "/package") || ends_with(type, "/externalLinkPath"))
        return RD_OOXML_OLE;
    return RD_OOXML_EXTERNAL;
}

/* A member, inflated by libzip, at most the bound; NULL: not read (told). */
static char *member(ox_ctx *c, zip_t *z, zip_uint64_t i, size_t *len)
{
    zip_stat_t st;
    if (zip_stat_index(z, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        note(c, RD_BROKEN, "Office: a zip member not readable");
        return NULL;
    }
    if (st.size > c->b->max_inflated - c->inflated) {
        note(c, RD_LIMIT, "Office: more decompressed bytes than the bound");
        return NULL;
    }
    zip_file_t *f = zip_fopen_index(z, i, 0);
    char *buf = f != NULL ? malloc((size_t)st.size + 1) : NULL;
    if (buf == NULL) {
        if (f != NULL)
            zip_fclose(f);
        note(c, RD_BROKEN, "Office: a zip member not readable");
        return NULL;
    }
    zip_int64_t got = zip_fread(f, buf, st.size);
    zip_fclose(f);
    if (got < 0 || (zip_uint64_t)got != st.size) {
        free(buf);
        note(c, RD_BROKEN, "Office: a zip member not readable (bad data or CRC)");
        return NULL;
    }
    c->inflated += (size_t)got;
    buf[got] = '\0';
    *len = (size_t)got;
    return buf;
}

static xmlTextReaderPtr xml_open(ox_ctx *c, const char *d, size_t n)
{
    if (n > 0x7fffffff || memmem(d, n, "<!DOCTYPE", 9) != NULL) {
        note(c, RD_BROKEN, "Office: an XML part with a document type declaration");
        return NULL;
    }
    xmlTextReaderPtr r = xmlReaderForMemory(d, (int)n, NULL, NULL, XML_OPTS);
    if (r == NULL)
        note(c, RD_BROKEN, "Office: an XML part not readable");
    return r;
}

/* The external relationships of one .rels part. */
static void rels(ox_ctx *c, const char *d, size_t n)
{
    xmlTextReaderPtr r = xml_open(c, d, n);
    if (r == NULL)
        return;
    int rc;
    while (!c->stop && (rc = xmlTextReaderRead(r)) == 1) {
        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
            continue;
        const xmlChar *name = xmlTextReaderConstLocalName(r);
        if (name == NULL || strcmp((const char *)name, "Relationship") != 0)
            continue;
        xmlChar *mode = xmlTextReaderGetAttribute(r, BAD_CAST "TargetMode");
        if (mode != NULL && strcmp((const char *)mode, "External") == 0) {
            xmlChar *type = xmlTextReaderGetAttribute(r, BAD_CAST "Type");
            xmlChar *target = xmlTextReaderGetAttribute(r, BAD_CAST "Target");
            if (target != NULL)
                emit(c, rel_kind((const char *)type), (const char *)target,
                     strlen((const char *)target));
            xmlFree(type);
            xmlFree(target);
        }
        xmlFree(mode);
    }
    if (!c->stop && rc < 0)
        note(c, RD_BROKEN, "Office: a relationships part not well-formed");
    xmlFreeTextReader(r);
}

/* Word's field codes: the text of w:instrText, w:fldSimple's w:instr. */
static void fields(ox_ctx *c, const char *d, size_t n)
{
    if (memmem(d, n, "instr", 5) == NULL)
        return;
    xmlTextReaderPtr r = xml_open(c, d, n);
    if (r == NULL)
        return;
    bool in_instr = false;
    while (!c->stop && xmlTextReaderRead(r) == 1) {
        int t = xmlTextReaderNodeType(r);
        const xmlChar *name = xmlTextReaderConstLocalName(r);
        if (t == XML_READER_TYPE_ELEMENT && name != NULL) {
            if (strcmp((const char *)name, "instrText") == 0) {
                in_instr = !xmlTextReaderIsEmptyElement(r);
            } else if (strcmp((const char *)name, "fldSimple") == 0) {
                xmlChar *v = xmlTextReaderGetAttribute(r, BAD_CAST "w:instr");
                if (v != NULL)
                    emit(c, RD_OOXML_FIELD, (const char *)v, strlen((const char *)v));
                xmlFree(v);
            }
        } else if (t == XML_READER_TYPE_END_ELEMENT) {
            in_instr = false;
        } else if (in_instr && (t == XML_READER_TYPE_TEXT ||
                                t == XML_READER_TYPE_SIGNIFICANT_WHITESPACE)) {
            const xmlChar *v = xmlTextReaderConstValue(r);
            if (v != NULL)
                emit(c, RD_OOXML_FIELD, (const char *)v, strlen((const char *)v));
        }
    }
    xmlFreeTextReader(r);
}

rd_status rd_ooxml(const unsigned char *d, size_t n, const rd_bounds *b, rd_emit *e)
{
    ox_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.e = e;
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(d, n, 0, &ze);
    zip_t *z = src != NULL ? zip_open_from_source(src, ZIP_RDONLY, &ze) : NULL;
    if (z == NULL) {
        if (src != NULL)
            zip_source_free(src);
        zip_error_fini(&ze);
        e->note(e, RD_BROKEN, "Office: not a readable zip file");
        return RD_BROKEN;
    }
    zip_error_fini(&ze);
    zip_int64_t count = zip_get_num_entries(z, 0);
    if (count > 0 && (zip_uint64_t)count > b->max_entries) {
        note(&c, RD_LIMIT, "Office: more zip members than the bound");
        c.stop = false; /* the members below the bound are still read */
        count = (zip_int64_t)b->max_entries;
    }
    for (zip_int64_t i = 0; i < count && !c.stop; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (name == NULL)
            continue;
        bool is_rels = ends_with(name, ".rels");
        bool is_word = strncmp(name, "word/", 5) == 0 && ends_with(name, ".xml");
        if (!is_rels && !is_word)
            continue;
        size_t len = 0;
        char *m = member(&c, z, (zip_uint64_t)i, &len);
        if (m == NULL)
            continue;
        if (is_rels)
            rels(&c, m, len);
        else
            fields(&c, m, len);
        free(m);
    }
    zip_close(z);
    return c.st;
}
