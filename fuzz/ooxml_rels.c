/*
 * fuzz/ooxml_rels.c - the Office Open XML glue (src/mail/ooxml.c: libzip
 * members, the .rels relationships and Word field codes read by libxml2's
 * stream reader); the input is one zip file. The body and its invariants:
 * fuzz/readers_fuzz.h.
 */
#define RD_FUZZ_READER rd_ooxml
#include "readers_fuzz.h"
