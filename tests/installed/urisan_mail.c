/* A program against the installed urisan_mail.h (pkg-config urisan-mail):
   the links of a message, each decided. Built and run by
   tests/install_test.py and tools/deb-check.sh. */
#include <stdio.h>
#include <string.h>
#include <urisan_mail.h>

static bool on_hit(void *ctx, const urisan_mail_hit *hit)
{
    int *flagged = ctx;
    printf("urisan-mail: part %s: %.*s %s\n", hit->part, (int)hit->uri_len, hit->uri,
           urisan_verdict_name(hit->decision.verdict));
    *flagged += hit->decision.verdict == URISAN_FLAGGED;
    return true;
}

int main(void)
{
    const char *msg = "From: a@example.org\r\nSubject: hi\r\n\r\n"
                      "see http://127.0.0.1/admin and http://example.org/\r\n";
    int flagged = 0;
    urisan_mail_sink sink = {on_hit, NULL, &flagged};
    urisan_mail_result res;
    urisan_mail_init();
    urisan_mail_status st = urisan_mail_scan(msg, strlen(msg), NULL, NULL, &sink, &res);
    urisan_mail_shutdown();
    return st == URISAN_MAIL_OK && res.hits == 2 && flagged == 1 ? 0 : 1;
}
