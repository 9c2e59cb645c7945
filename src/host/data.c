/*
 * data.c - what every context of liburisan-host reads: ICU's spoof
 * checker (Unicode TR39) and the Public Suffix List (libpsl), loaded once
 * a process and only read after that. The Public Suffix List here is the
 * one every part of urisan reads (liburisan-mail too: urisan_host_psl).
 */
#include "host_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static USpoofChecker *spoof;
static psl_ctx_t *psl_loaded;      /* ours to free */
static const psl_ctx_t *psl_list;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t psl_once = PTHREAD_ONCE_INIT;

/* The system's Public Suffix List as text (Debian's package publicsuffix). */
#ifndef URISAN_PSL_FILE
#define URISAN_PSL_FILE "/usr/share/publicsuffix/public_suffix_list.dat"
#endif
static unsigned caches_off;

/* URISAN_BENCH_CACHES_OFF (host_internal.h): the comma-separated names,
   in a measurement build (-Dbench_switches=true) only. */
static void read_caches_off(void)
{
#ifdef URISAN_BENCH_SWITCHES
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = { {"memo", HOST_OFF_MEMO}, {"last", HOST_OFF_LAST}, {"skeleton", HOST_OFF_SKELETON} };
    const char *v = getenv("URISAN_BENCH_CACHES_OFF");
    while (v != NULL && *v != '\0') {
        size_t n = strcspn(v, ",");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == n && memcmp(names[i].name, v, n) == 0)
                caches_off |= names[i].bit;
        v += n + (v[n] == ',');
    }
#endif
}

/*
 * The Public Suffix List, on its first use (a process that never asks for
 * a registrable domain never reads it): the system's list as text, which
 * libpsl keeps as a sorted table (a look-up is a binary search, cheaper
 * than a walk of its compiled DAFSA form; the text is read once a
 * process; what each costs: doc/bench.md "The host layer per URL");
 * without that file, the newer of the system's compiled list and the one
 * built into libpsl.
 */
static void load_psl(void)
{
    psl_loaded = psl_load_file(URISAN_PSL_FILE);
    if (psl_loaded == NULL)
        psl_loaded = psl_latest(NULL);
    psl_list = psl_loaded ? psl_loaded : psl_builtin();
}

static void load(void)
{
    UErrorCode st = U_ZERO_ERROR;
    USpoofChecker *sc = uspoof_open(&st);
    if (U_SUCCESS(st)) {
        uspoof_setRestrictionLevel(sc, USPOOF_MODERATELY_RESTRICTIVE);
        uspoof_setChecks(sc, USPOOF_RESTRICTION_LEVEL | USPOOF_MIXED_NUMBERS, &st);
    }
    if (U_SUCCESS(st))
        spoof = sc;
    else if (sc != NULL)
        uspoof_close(sc);
    if (spoof != NULL)
        host_skeleton_init(spoof);
    read_caches_off();
}

URISAN_API bool urisan_host_init(void)
{
    pthread_once(&once, load);
    return spoof != NULL;
}

URISAN_API void urisan_host_shutdown(void)
{
    /* Only at exit, after every context is freed. */
    pthread_once(&once, load);
    if (spoof != NULL)
        uspoof_close(spoof);
    if (psl_loaded != NULL)
        psl_free(psl_loaded);
    spoof = NULL;
    psl_loaded = NULL;
    psl_list = NULL;
}

unsigned host_caches_off(void)
{
    pthread_once(&once, load);
    return caches_off;
}

const USpoofChecker *host_spoof(void)
{
    pthread_once(&once, load);
    return spoof;
}

const psl_ctx_t *host_psl(void)
{
    pthread_once(&psl_once, load_psl);
    return psl_list;
}

URISAN_API const struct psl_ctx_st *urisan_host_psl(void)
{
    return host_psl();
}
