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

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>

#include "fsn-record.h"
#include "fsn-util.h"
#include "fsn.h"
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

/*
 * Looking at the objects of events (struct attr_lookup): an event's entry
 * by its directory's handle and its name (the new one of a rename), or
 * the object by its own handle; no path is walked, no symbolic link
 * followed. A directory is opened once per dispatch and a name looked at
 * once (a storm's file has several records in one dispatch: create,
 * modify, close_write, all read together); attr_lookup_end() when the
 * dispatch ends closes them (no mount kept busy). An entry an event read
 * with this one takes away (deleted, renamed, replaced:
 * fsn_ctx_name_taken_later()) is gone without a lookup: a lookup would
 * fail, or find another file.
 */
#define ATTR_DIRS 4
#define ATTR_NAMES 8
struct attr_lookup {
	struct {
		struct fsn_fid fid;
		int fd; /* -1: none */
	} dirs[ATTR_DIRS];
	unsigned next_dir;
	struct {
		int dir; /* index in dirs; -1: none */
		int r;   /* attrs_read()'s */
		struct record_attrs a;
		char name[NAME_MAX + 1];
	} names[ATTR_NAMES];
	unsigned next_name;
};

void attr_lookup_init(struct attr_lookup *l);
void attr_lookup_end(struct attr_lookup *l);
/* Fanotify event ev's object, with ctx's mount fds: 0 or -errno. */
int attr_lookup_event(struct attr_lookup *l, struct fsn_ctx *ctx, const struct fsn_event *ev,
		      struct record_attrs *ret);
/* Fanotify event ev's object opened O_PATH (close-on-exec; a symbolic link
 * itself, never what it points to), found the same way: the fd or -errno. */
int attr_lookup_open(struct attr_lookup *l, struct fsn_ctx *ctx, const struct fsn_event *ev);

/* Why a file of an event could not be looked at or opened (-errno of the
 * lookups below, or of opening it): "gone" (it is not there any more),
 * "error" (anything else). */
static inline const char *lookup_failure(int err) {
	return err == -ENOENT || err == -ESTALE ? "gone" : "error";
}

/* A statx(2) result (STATX_BASIC_STATS | STATX_BTIME) as attributes. */
struct statx;
void attrs_from_statx(const struct statx *stx, struct record_attrs *ret);

/* The attributes of dirfd's entry name (NULL or "": dirfd's object
 * itself), never through a symbolic link (statx(2), AT_SYMLINK_NOFOLLOW):
 * 0 or -errno. */
int attrs_read(int dirfd, const char *name, struct record_attrs *ret);
