/*
 * readers_main.c - urisan-readers: the process in which liburisan-mail
 * reads PDF, Office Open XML and image attachments (zygote.c,
 * SECURITY.md "Attachment readers"). liburisan-mail starts it with its
 * control socket as descriptor 3 and the argument --zygote; it is not a
 * program to run by hand.
 */
#include "isolate.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
    int type = 0;
    socklen_t len = sizeof type;
    if (argc != 2 || strcmp(argv[1], "--zygote") != 0 ||
        getsockopt(RD_ZYGOTE_FD, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
        type != SOCK_SEQPACKET) {
        fprintf(stderr, "urisan-readers: the reader process of liburisan-mail, started by it "
                        "(--zygote, with its control socket as descriptor %d); not a program "
                        "to run by hand\n", RD_ZYGOTE_FD);
        return 2;
    }
    return rd_zygote_main(RD_ZYGOTE_FD);
}
