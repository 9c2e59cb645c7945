/* A program against the installed urisan.h alone (pkg-config urisan):
   tests/install_test.py (`meson install`) and tools/deb-check.sh (the
   Debian packages) build and run it. Exit 0: the core decides. */
#include <stdio.h>
#include <string.h>
#include <urisan.h>

int main(void)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    const char *s = "javascript:alert(1)";
    if (urisan_check(s, strlen(s), NULL, &u, &r, &d) != URISAN_OK)
        return 2;
    printf("urisan %s: %s %s\n", urisan_version(), s, urisan_verdict_name(d.verdict));
    return d.verdict == URISAN_DENY ? 0 : 1;
}
