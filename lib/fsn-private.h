/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsn-private.h — what the library's own .c files share beyond
 * shared/fsn-util.h: the export marker, small utilities and the internal
 * parts of the context that several files touch.
 */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsn-uapi.h"
#include "fsn-util.h"
#include "fsn.h"

/* Public API functions are marked; everything else is hidden
 * (-fvisibility=hidden plus the version script). */
#define _public_ __attribute__((visibility("default")))

/* snprintf-like appending used by the formatters: writes what fits into
 * buf[0..len) at *pos, always NUL terminates when len > 0, and advances
 * *pos by the full length the text needs. */
void fsn_append(char *buf, size_t len, size_t *pos, const char *fmt, ...) _printf_(4, 5);

/* Errno name ("EOPNOTSUPP"), or NULL for unknown values. */
const char *fsn_errno_name(int err);

/* fsn_decode_fanotify() in one pass over the info records: the same
 * results and checks, but on failure *ev may be set in part (for a caller
 * that drops a malformed event and what follows it: the dispatch). */
int fsn_decode_fanotify_once(const void *buf, size_t len, size_t *offset, struct fsn_event *ev);

/* ---- internal context API shared by the context's files (ctx-private.h) ---- */

/* Log through the context's callback, if any (priority as syslog). */
void fsn_ctx_log(struct fsn_ctx *ctx, int priority, const char *fmt, ...) _printf_(3, 4);

/* Test hooks (hidden; the unit tests link the static library): the inotify
 * fd (-1 before the first watch) and a group's fanotify fd, to read their
 * /proc/self/fdinfo; whether an inotify
 * mark's watch is gone (IN_IGNORED was dispatched). */
int fsn_ctx_inotify_fd(const struct fsn_ctx *ctx);
int fsn_group_fd(const struct fsn_group *g);
bool fsn_mark_is_dead(const struct fsn_mark *mark);
