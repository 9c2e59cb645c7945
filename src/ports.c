/*
 * ports.c - the one table of registered default ports (SPEC 3, "Default
 * ports"; IANA service names). nondefault_port, normalisation (RFC 3986
 * 6.2.3: drop the default port) and the policy all read it from here; a
 * policy's default-port lines are consulted first.
 */
#include "risk.h"

static const struct {
    const char *scheme; /* lower-case */
    unsigned short port;
} default_ports[] = {
    {"http", 80},      {"https", 443},   {"ws", 80},       {"wss", 443},
    {"ftp", 21},       {"gopher", 70},   {"telnet", 23},   {"nntp", 119},
    {"news", 119},     {"wais", 210},    {"prospero", 1525}, {"ldap", 389},
    {"ldaps", 636},    {"imap", 143},    {"pop", 110},     {"smtp", 25},
    {"ssh", 22},       {"sftp", 22},     {"rtsp", 554},    {"sip", 5060},
    {"sips", 5061},    {"git", 9418},    {"dict", 2628},   {"tftp", 69},
    /* beyond the SPEC minimum: defaults fixed by the scheme's own RFC */
    {"snews", 563},    /* RFC 5538 2.2 */
    {"rsync", 873},    /* RFC 5781 2 */
    {"rtsps", 322},    /* RFC 7826 19.2 */
    {"coap", 5683},    {"coaps", 5684},  /* RFC 7252 6.1, 6.2 */
};

URISAN_API int urisan_default_port(const char *scheme, size_t len)
{
    if (scheme == NULL || len == 0)
        return -1;
    for (size_t i = 0; i < sizeof default_ports / sizeof default_ports[0]; i++) {
        if (urisan_ieq(scheme, len, default_ports[i].scheme))
            return default_ports[i].port;
    }
    return -1;
}
