/*
 * fuzz/pdf_links.c - the PDF link walk (src/mail/pdf.c: pages,
 * annotations, actions and their /Next chains, the catalog, form fields,
 * the JavaScript name tree, the object sweep, page images to the QR
 * decoder) with qpdf underneath; the input is one PDF file. The body and
 * its invariants: fuzz/readers_fuzz.h.
 */
#define RD_FUZZ_READER rd_pdf
#include "readers_fuzz.h"
