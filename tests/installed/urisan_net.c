/* A program against the installed urisan_net.h (pkg-config urisan-net):
   the address rule judges an IPv4-mapped loopback address as the
   loopback address it carries, without a lookup. Built and run by
   tests/install_test.py and tools/deb-check.sh. */
#include <stdio.h>
#include <urisan_net.h>

int main(void)
{
    const unsigned char a[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
    urisan_policy *p = NULL; /* the default policy: reported, not denied */
    urisan_addr_decision d;
    if (urisan_judge_addr(p, 6, a, &d) != URISAN_OK)
        return 3;
    int ok = (d.class_flags & URISAN_F(IP_LOOPBACK)) && d.verdict == URISAN_FLAGGED;
    printf("urisan-net: ::ffff:127.0.0.1 -> %s\n", urisan_verdict_name(d.verdict));
    return ok ? 0 : 1;
}
