/*
 * version.c - urisan_version(): the version of the library that is
 * loaded, which may differ from the URISAN_VERSION a program was
 * compiled with (the soname only changes with the ABI).
 */
#include "urisan.h"
#include "urisan_version.h"

const char *urisan_version(void)
{
    return URISAN_VERSION;
}
