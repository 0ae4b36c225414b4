/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dcache.h — directory paths by file handle, per fanotify group: the path
 * a directory's handle resolved to, kept until the group reports that the
 * directory (or one above it) moved or went. Resolving a handle costs
 * open_by_handle_at() and a readlink() per event; a storm of events in a
 * few directories needs it once per directory.
 *
 * Only correct for a group that sees every directory rename on that
 * filesystem (a filesystem mark with FAN_MOVED_FROM | FAN_ONDIR) and only
 * in the order of that group's own queue: hence one cache per group (the
 * key includes the group's id), forgotten entirely when the group's queue
 * overflows.
 */
#pragma once

#include <stddef.h>

#include "fsn.h"

struct dcache;

/* At most max entries (least recently used go first). */
int dcache_new(size_t max, struct dcache **ret);
struct dcache *dcache_free(struct dcache *c);

/* The cached path of fid in group, NULL if none. Valid until the next call. */
const char *dcache_get(struct dcache *c, unsigned group, const struct fsn_fid *fid);
void dcache_put(struct dcache *c, unsigned group, const struct fsn_fid *fid, const char *path);
/* A directory at path moved or went: forget it and everything below it. */
void dcache_forget_below(struct dcache *c, unsigned group, const char *path);
/* The group lost events (overflow): forget all of it. */
void dcache_forget_group(struct dcache *c, unsigned group);
size_t dcache_size(const struct dcache *c);
