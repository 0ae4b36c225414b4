/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attrcache.c — the last seen attributes of files, by object, bounded
 * (attrcache.h), reading them with statx(2), and looking at the objects
 * of events by their handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "attrcache.h"
#include "fsn-util.h"

struct attrcache_entry {
	struct fsn_hnode node; /* in map, by dev and ino */
	struct lru_link lru;
	struct record_attrs a;
};

static uint64_t key_hash(uint64_t dev, uint64_t ino) {
	uint64_t k[2] = { dev, ino };

	return hash_block(HASH_INIT, k, sizeof(k));
}

static struct attrcache_entry *find(const struct attrcache *c, uint64_t dev, uint64_t ino,
				    uint64_t h) {
	for (struct fsn_hnode *n = fsn_hmap_chain(&c->map, h); n; n = n->next) {
		struct attrcache_entry *e = container_of(n, struct attrcache_entry, node);

		if (n->hash == h && e->a.dev == dev && e->a.ino == ino)
			return e;
	}
	return NULL;
}

static void drop(struct attrcache *c, struct attrcache_entry *e) {
	lru_unlink(&e->lru);
	fsn_hmap_remove(&c->map, &e->node);
	free(e);
	c->n--;
}

static struct attrcache_entry *oldest(const struct attrcache *c) {
	return container_of(c->lru.prev, struct attrcache_entry, lru);
}

void attrcache_init(struct attrcache *c, size_t max) {
	*c = (struct attrcache){ .max = max };
	lru_init(&c->lru);
}

void attrcache_done(struct attrcache *c) {
	while (c->n > 0)
		drop(c, oldest(c));
	fsn_hmap_done(&c->map);
}

void attrcache_set_max(struct attrcache *c, size_t max) {
	c->max = max;
	while (c->n > c->max) {
		drop(c, oldest(c));
		c->forgotten++;
	}
}

/* The same object: the same birth, where both know theirs. */
static bool same_birth(const struct record_attrs *a, const struct record_attrs *b) {
	return !a->has_btime || !b->has_btime ||
	       (a->btime_sec == b->btime_sec && a->btime_nsec == b->btime_nsec);
}

bool attrcache_swap(struct attrcache *c, const struct record_attrs *now, bool fresh,
		    struct record_attrs *before) {
	uint64_t h = key_hash(now->dev, now->ino);
	struct attrcache_entry *e = find(c, now->dev, now->ino, h);
	bool known = false;

	if (e) {
		known = !fresh && same_birth(&e->a, now);
		if (known)
			*before = e->a;
		e->a = *now;
		lru_touch(&c->lru, &e->lru);
		return known;
	}
	if (c->max == 0)
		return false;
	e = calloc(1, sizeof(*e));
	if (!e)
		return false; /* (not kept: its next record says what it is, not was) */
	e->a = *now;
	if (fsn_hmap_put(&c->map, &e->node, h) < 0) {
		free(e);
		return false;
	}
	lru_touch(&c->lru, &e->lru);
	c->n++;
	attrcache_set_max(c, c->max);
	return false;
}

int attrs_read(int dirfd, const char *name, struct record_attrs *ret) {
	struct statx stx;
	bool self = !name || !name[0];

	if (statx(dirfd, self ? "" : name,
		  AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (self ? AT_EMPTY_PATH : 0),
		  STATX_BASIC_STATS | STATX_BTIME, &stx) < 0)
		return -errno;
	attrs_from_statx(&stx, ret);
	return 0;
}

void attrs_from_statx(const struct statx *sx, struct record_attrs *ret) {
	*ret = (struct record_attrs){
		.type = sx->stx_mode & S_IFMT,
		.mode = sx->stx_mode & 07777,
		.uid = sx->stx_uid,
		.gid = sx->stx_gid,
		.size = sx->stx_size,
		.mtime_sec = sx->stx_mtime.tv_sec,
		.mtime_nsec = sx->stx_mtime.tv_nsec,
		.ctime_sec = sx->stx_ctime.tv_sec,
		.ctime_nsec = sx->stx_ctime.tv_nsec,
		.ino = sx->stx_ino,
		.nlink = sx->stx_nlink,
		.dev = makedev(sx->stx_dev_major, sx->stx_dev_minor),
		.has_btime = (sx->stx_mask & STATX_BTIME) != 0,
		.btime_sec = sx->stx_btime.tv_sec,
		.btime_nsec = sx->stx_btime.tv_nsec,
	};
}

/* ---- looking at events' objects ---- */

static void names_forget(struct attr_lookup *l, int dir) {
	for (unsigned k = 0; k < ATTR_NAMES; k++)
		if (dir < 0 || l->names[k].dir == dir)
			l->names[k].dir = -1;
}

void attr_lookup_init(struct attr_lookup *l) {
	*l = (struct attr_lookup){ 0 };
	for (unsigned i = 0; i < ATTR_DIRS; i++)
		l->dirs[i].fd = -1;
	names_forget(l, -1);
}

void attr_lookup_end(struct attr_lookup *l) {
	for (unsigned i = 0; i < ATTR_DIRS; i++)
		l->dirs[i].fd = safe_close(l->dirs[i].fd);
	names_forget(l, -1);
}

/* Directory fid opened (O_PATH), or the one this dispatch opened already:
 * its index in l->dirs, or -errno. */
static int lookup_dir(struct attr_lookup *l, struct fsn_ctx *ctx, const struct fsn_fid *fid) {
	unsigned i;
	int fd;

	for (i = 0; i < ATTR_DIRS; i++)
		if (l->dirs[i].fd >= 0 && fsn_fid_equal(&l->dirs[i].fid, fid))
			return (int)i;
	fd = fsn_ctx_fid_open(ctx, fid, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return fd;
	i = l->next_dir;
	l->next_dir = (l->next_dir + 1) % ATTR_DIRS;
	safe_close(l->dirs[i].fd);
	names_forget(l, (int)i);
	l->dirs[i].fid = *fid;
	l->dirs[i].fd = fd;
	return (int)i;
}

/* Entry name of directory fid, looked at once per dispatch. */
static int lookup_entry(struct attr_lookup *l, struct fsn_ctx *ctx, const struct fsn_fid *fid,
			const char *name, struct record_attrs *ret) {
	int dir = lookup_dir(l, ctx, fid);
	unsigned k;

	if (dir < 0)
		return dir;
	for (k = 0; k < ATTR_NAMES; k++)
		if (l->names[k].dir == dir && strcmp(l->names[k].name, name) == 0) {
			*ret = l->names[k].a;
			return l->names[k].r;
		}
	k = l->next_name;
	l->next_name = (l->next_name + 1) % ATTR_NAMES;
	l->names[k].r = attrs_read(l->dirs[dir].fd, name, &l->names[k].a);
	l->names[k].dir = strlen(name) < sizeof(l->names[k].name) ? dir : -1;
	snprintf(l->names[k].name, sizeof(l->names[k].name), "%s", name);
	*ret = l->names[k].a;
	return l->names[k].r;
}

/* Fanotify event ev's object: a directory's entry (*name non-NULL: the
 * new one of a rename) or fid's object itself; false: no handle. */
static bool event_object(const struct fsn_event *ev, const struct fsn_fid **fid,
			 const char **name) {
	*fid = NULL;
	*name = NULL;
	if (ev->has & FSN_HAS_NEW) {
		*fid = &ev->new_dfid;
		*name = ev->new_name;
	} else if (ev->has & FSN_HAS_DFID) {
		*fid = &ev->dfid;
		*name = (ev->has & FSN_HAS_NAME) ? ev->name : NULL;
	} else if (ev->has & FSN_HAS_FID)
		*fid = &ev->fid;
	if (*name && strcmp(*name, ".") == 0)
		*name = NULL; /* the directory's own event */
	return *fid != NULL;
}

/* The entry is gone already, an event read with this one says (a storm's
 * file created, written, renamed, deleted: no lookup of a name that is
 * gone, nor of one that another file took since). */
static bool taken_later(struct fsn_ctx *ctx, const struct fsn_fid *fid, const char *name) {
	return name && fsn_ctx_name_taken_later(ctx, fid, name) > 0;
}

int attr_lookup_event(struct attr_lookup *l, struct fsn_ctx *ctx, const struct fsn_event *ev,
		      struct record_attrs *ret) {
	const struct fsn_fid *fid;
	const char *name;
	_cleanup_close_ int fd = -1;

	if (!event_object(ev, &fid, &name) || taken_later(ctx, fid, name))
		return -ENOENT;
	if (name)
		return lookup_entry(l, ctx, fid, name, ret);
	fd = fsn_ctx_fid_open(ctx, fid, O_PATH);
	if (fd < 0)
		return fd;
	return attrs_read(fd, NULL, ret);
}

int attr_lookup_open(struct attr_lookup *l, struct fsn_ctx *ctx, const struct fsn_event *ev) {
	const struct fsn_fid *fid;
	const char *name;
	int dir, fd;

	if (!event_object(ev, &fid, &name) || taken_later(ctx, fid, name))
		return -ENOENT;
	if (!name)
		return fsn_ctx_fid_open(ctx, fid, O_PATH);
	dir = lookup_dir(l, ctx, fid);
	if (dir < 0)
		return dir;
	fd = openat(l->dirs[dir].fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
