/* A program against the installed urisan_host.h (pkg-config urisan-host):
   the one decision sees an IDN host as a reader does (its U-labels,
   libidn2). Built and
   run by tests/install_test.py and tools/deb-check.sh. */
#include <stdio.h>
#include <string.h>
#include <urisan_host.h>

int main(void)
{
    const char *s = "https://xn--bcher-kva.de/angebote";
    urisan_judgement j;
    urisan_host_ctx *ctx = urisan_host_ctx_new();
    if (ctx == NULL)
        return 2;
    if (urisan_judge(ctx, s, strlen(s), NULL, URISAN_JUDGE_VIEW, &j) != URISAN_OK)
        return 3;
    int ok = j.hv != NULL && strcmp(j.hv->unicode, "b\xc3\xbc" "cher.de") == 0 &&
             (j.rep.flags & URISAN_F(IDN)) && j.dec.verdict != URISAN_DENY;
    printf("urisan-host: %s -> %s %s\n", s, j.hv ? j.hv->unicode : "(no view)",
           urisan_verdict_name(j.dec.verdict));
    urisan_host_ctx_free(ctx);
    urisan_host_shutdown();
    return ok ? 0 : 1;
}
