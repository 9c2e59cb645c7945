/* Every installed header at once, in the order a program may include
   them (tests/install_test.py and tools/deb-check.sh also compile each
   one alone and in the other orders). */
#include <urisan_mail.h>
#include <urisan_net.h>
#include <urisan_host.h>
#include <urisan.h>

int main(void)
{
    return URISAN_MAIL_OK + (int)URISAN_OK + (urisan_host_has_invisible("a", 1) ? 1 : 0) +
           (urisan_dns_status_name(URISAN_DNS_OK)[0] == 0);
}
