/*
 * names.h - the analysis' cheap first look at a reg-name for names.c
 * (internal_name, single_label): most names end in a two- or three-letter
 * label after a dot, which is neither one label nor an internal name
 * (".lan" aside), so two byte compares decide them inline; every other
 * name goes to urisan_name_flags_raw.
 */
#ifndef URISAN_NAMES_H
#define URISAN_NAMES_H

#include "risk.h"

/*
 * The host in[hs..he), a reg-name (not an address) without "%": a "%"
 * could decode to a dot ("localhost.%2e"), which the byte test below
 * would not see. A last byte of "." (trailing dots are removed before
 * judging), "n" or "N" (".lan") takes the full look: these are exactly
 * the bytes 0x21..0x7E whose low five bits are 0x0E.
 */
static inline urisan_flags urisan_name_flags_nopct(const char *in, size_t hs, size_t he)
{
    size_t n = he - hs;
    if (n >= 4 && ((unsigned char)in[he - 1] & 0x1F) != 0x0E &&
        (in[he - 3] == '.' || in[he - 4] == '.'))
        return 0;
    return urisan_name_flags_raw(in + hs, n);
}

#endif
