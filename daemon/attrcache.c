/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attrcache.c — the last seen attributes of files, by object, bounded
 * (attrcache.h), and reading them with statx(2).
 */
#include <errno.h>
#include <fcntl.h>
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
	*ret = (struct record_attrs){
		.type = stx.stx_mode & S_IFMT,
		.mode = stx.stx_mode & 07777,
		.uid = stx.stx_uid,
		.gid = stx.stx_gid,
		.size = stx.stx_size,
		.mtime_sec = stx.stx_mtime.tv_sec,
		.mtime_nsec = stx.stx_mtime.tv_nsec,
		.ctime_sec = stx.stx_ctime.tv_sec,
		.ctime_nsec = stx.stx_ctime.tv_nsec,
		.ino = stx.stx_ino,
		.nlink = stx.stx_nlink,
		.dev = makedev(stx.stx_dev_major, stx.stx_dev_minor),
		.has_btime = (stx.stx_mask & STATX_BTIME) != 0,
		.btime_sec = stx.stx_btime.tv_sec,
		.btime_nsec = stx.stx_btime.tv_nsec,
	};
	return 0;
}
