/*
 * fuzz/image_sniff.c - the image reader (src/mail/image.c: signature
 * sniffing, libpng, libjpeg-turbo, giflib, libwebp to 8-bit gray), the QR
 * decoder glue (qr.c, zbar) and the attachment sniffing (mail_sniff, attach.c); the input is
 * one image file. The body and its invariants: fuzz/readers_fuzz.h.
 */
#define RD_FUZZ_READER rd_image
#include "readers_fuzz.h"
