/*
 * mailbox.h - the messages of an mbox file (mboxrd/mboxo From-line
 * escaping) or a Maildir directory, for `urisan extract --mail`.
 */
#ifndef URISAN_CLI_MAILBOX_H
#define URISAN_CLI_MAILBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "stream.h"

typedef struct {
    size_t index;            /* 1-based, in file (mbox) or name order */
    const char *file;        /* the mbox or the Maildir file */
    char message_id[256];    /* Message-ID header value, "" if none */
    const char *data;        /* the message (mbox: envelope line removed,
                                ">From " lines unescaped) */
    size_t len;
    size_t too_large;        /* mbox read from a stream: 0, or the size of
                                a message above its bound (data then holds
                                only the bytes kept, for the Message-ID) */
} mailbox_msg;

/* false: stop. */
typedef bool (*mailbox_fn)(void *ctx, const mailbox_msg *m);
/* Read a Maildir file (malloc'd); false after telling why. */
typedef bool (*mailbox_read_fn)(void *ctx, const char *path, char **data, size_t *len);

/* The data starts with an mbox "From " line. */
bool mailbox_is_mbox(const char *data, size_t len);
/* path is a directory with cur/ and new/. */
bool mailbox_is_maildir(const char *path);

/* Each message of the mbox read from s (its window holds the start of
   the file, which starts "From "), one at a time: memory is the largest
   message, up to max bytes (a larger one is handed out with too_large
   set, and the next are read). The messages are those the whole file
   holds, as the comment of mailbox.c describes. 1: all read; 0: fn stopped;
   -1: a read error (printed). */
int mailbox_each_mbox_stream(const char *file, cli_stream *s, size_t max, mailbox_fn fn,
                             void *ctx);

/* Each file of dir/new then dir/cur. 0, or -1 (a directory could not be
   listed, or fn stopped). */
int mailbox_each_maildir(const char *dir, mailbox_read_fn rd, mailbox_fn fn, void *ctx);

#endif
