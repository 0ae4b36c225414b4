/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attrcache.h — what files were when the daemon last saw them (a rule's
 * attributes: fsnotifyd.conf(5)), so that a record can say what a file is
 * now and what it was: "mode 0755 -> 4755". Keyed by the object (device,
 * inode number, and birth time where the filesystem keeps one, so that a
 * number a new file reuses is not taken for the old file), bounded: when
 * full, the object seen least recently is forgotten, and its next record
 * says attrs_before null. Main thread only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsn-record.h"
#include "fsn-util.h"
#include "hashmap.h"

struct attrcache {
	struct fsn_hmap map;
	struct lru_link lru; /* next: seen most recently, prev: least */
	size_t n, max;
	uint64_t forgotten; /* objects forgotten for room */
};

/* An empty cache of at most max objects (0: none are kept). */
void attrcache_init(struct attrcache *c, size_t max);
void attrcache_done(struct attrcache *c);
/* A new bound (a reload): the least recently seen go until it holds. */
void attrcache_set_max(struct attrcache *c, size_t max);

/* now's object as it was last seen, into *before: true, or false when not
 * known (never seen, forgotten, or fresh: a file just created, whatever
 * was kept under its number); now is kept as the latest either way. */
bool attrcache_swap(struct attrcache *c, const struct record_attrs *now, bool fresh,
		    struct record_attrs *before);

/* The attributes of dirfd's entry name (NULL or "": dirfd's object
 * itself), never through a symbolic link (statx(2), AT_SYMLINK_NOFOLLOW):
 * 0 or -errno. */
int attrs_read(int dirfd, const char *name, struct record_attrs *ret);
