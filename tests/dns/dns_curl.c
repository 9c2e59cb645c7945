/*
 * dns_curl.c - the libcurl helper (include/urisan_curl.h) fetching each URL
 * of its arguments: "ok CODE PINNED BODY" or "refused STAGE URL WHY", one
 * line each. Driven by dns_curl_test.py (a DNS server and origins).
 *
 * usage: dns_curl DNS_SERVER POLICY_TEXT URL...
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan_curl.h"

typedef struct {
    char buf[4096];
    size_t n;
} body;

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    body *b = ud;
    size_t n = size * nmemb;
    size_t k = n < sizeof b->buf - 1 - b->n ? n : sizeof b->buf - 1 - b->n;
    memcpy(b->buf + b->n, p, k);
    b->n += k;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: dns_curl DNS_SERVER POLICY_TEXT URL...\n");
        return 2;
    }
    urisan_policy *pol = malloc(urisan_policy_size());
    urisan_policy_init(pol);
    size_t line = 0;
    const char *msg = NULL;
    if (urisan_policy_parse(pol, argv[2], strlen(argv[2]), &line, &msg) != URISAN_OK) {
        fprintf(stderr, "policy:%zu: %s\n", line, msg);
        return 2;
    }
    urisan_resolver_opts o;
    memset(&o, 0, sizeof o);
    o.servers = argv[1];
    o.timeout_ms = 300;
    o.tries = 1;
    urisan_resolver *r = urisan_resolver_new(&o, &msg);
    if (r == NULL) {
        fprintf(stderr, "resolver: %s\n", msg);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    for (int i = 3; i < argc; i++) {
        CURL *h = curl_easy_init();
        urisan_curl_guard g;
        memset(&g, 0, sizeof g);
        g.resolver = r;
        g.pol = pol;
        g.max_hops = 3;
        urisan_curl_setup(h, &g);
        body b = {{0}, 0};
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
        CURLcode rc = urisan_curl_perform(h, argv[i], &g);
        long code = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        if (g.refused)
            printf("refused %d %s %s\n", g.stage, g.refused_url, g.why);
        else if (rc != CURLE_OK)
            printf("error %d %s\n", (int)rc, curl_easy_strerror(rc));
        else
            printf("ok %ld %s %.*s\n", code, g.pinned, (int)b.n, b.buf);
        fflush(stdout);
        curl_easy_cleanup(h);
    }
    curl_global_cleanup();
    urisan_resolver_free(r);
    free(pol);
    return 0;
}
