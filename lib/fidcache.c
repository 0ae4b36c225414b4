/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fidcache.c — struct fsn_fidcache (see fidcache-private.h; internal, not
 * exported): a bounded map (tag, FID) -> path, an intrusive hash table
 * (hashmap.c) for lookups plus a list in order of use for eviction and for
 * the forget_* walks.
 *
 * User: the context's FID -> path cache (path.c): tag 0 the path an object
 * had, for when it has gone; a fanotify group's id the directory paths
 * fsn_ctx_event_dir_path() serves for that group.
 */
#include "ctx-private.h"

/* A link of the circular list in order of use; the cache's own link is the
 * list head, so no link is ever NULL. */
struct lru_link {
	struct lru_link *prev, *next;
};

struct fidcache_entry {
	struct fsn_hnode node;
	struct lru_link lru;
	unsigned tag;
	struct fsn_fid fid;
	char *path;
};

struct fsn_fidcache {
	struct fsn_hmap map;
	struct lru_link lru; /* next: most recently used, prev: least */
	size_t n, max;
};

static uint64_t key_hash(unsigned tag, const struct fsn_fid *fid) {
	uint64_t h = hash_bytes(HASH_INIT, &tag, sizeof(tag));

	h = hash_bytes(h, fid->fsid, sizeof(fid->fsid));
	h = hash_bytes(h, &fid->handle_type, sizeof(fid->handle_type));
	h = hash_bytes(h, &fid->handle_bytes, sizeof(fid->handle_bytes));
	return hash_bytes(h, fid->f_handle, fid->handle_bytes);
}

/* fid must have handle_bytes <= FSN_HANDLE_MAX (checked by the callers). */
/* h: key_hash(tag, fid) */
static struct fidcache_entry *find(const struct fsn_fidcache *c, unsigned tag,
				   const struct fsn_fid *fid, uint64_t h) {
	for (struct fsn_hnode *n = fsn_hmap_chain(&c->map, h); n; n = n->next) {
		struct fidcache_entry *e = container_of(n, struct fidcache_entry, node);

		if (n->hash == h && e->tag == tag && fsn_fid_equal(&e->fid, fid))
			return e;
	}
	return NULL;
}

static struct fidcache_entry *entry_of(struct lru_link *l) {
	return container_of(l, struct fidcache_entry, lru);
}

/* Make e the most recently used (e may be linked or not yet). */
static void touch(struct fsn_fidcache *c, struct fidcache_entry *e) {
	if (e->lru.next) {
		e->lru.prev->next = e->lru.next;
		e->lru.next->prev = e->lru.prev;
	}
	e->lru.prev = &c->lru;
	e->lru.next = c->lru.next;
	c->lru.next->prev = &e->lru;
	c->lru.next = &e->lru;
}

static void drop(struct fsn_fidcache *c, struct fidcache_entry *e) {
	fsn_hmap_remove(&c->map, &e->node);
	e->lru.prev->next = e->lru.next;
	e->lru.next->prev = e->lru.prev;
	c->n--;
	free(e->path);
	free(e);
}

/* Whether path is below dir ("dir/..."), or dir itself if self. One trailing
 * slash of dir does not count, so "/" is above every absolute path. */
static bool path_below(const char *path, const char *dir, bool self) {
	size_t n = strlen(dir);

	if (n > 0 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || (self && path[n] == '\0'));
}

/* Drop the entries of tag whose path is below dir (or dir, if self); with no
 * dir, every entry of tag. */
static void forget(struct fsn_fidcache *c, unsigned tag, const char *dir, bool self) {
	for (struct lru_link *l = c->lru.next, *next; l != &c->lru; l = next) {
		struct fidcache_entry *e = entry_of(l);

		next = l->next;
		if (e->tag == tag && (!dir || path_below(e->path, dir, self)))
			drop(c, e);
	}
}

int fsn_fidcache_new(size_t max, struct fsn_fidcache **ret) {
	struct fsn_fidcache *c;

	if (max == 0 || !ret)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->max = max;
	c->lru.prev = c->lru.next = &c->lru;
	*ret = c;
	return 0;
}

void fsn_fidcache_clear(struct fsn_fidcache *c) {
	if (!c)
		return;
	while (c->lru.next != &c->lru)
		drop(c, entry_of(c->lru.next));
}

struct fsn_fidcache *fsn_fidcache_free(struct fsn_fidcache *c) {
	if (!c)
		return NULL;
	fsn_fidcache_clear(c);
	fsn_hmap_done(&c->map);
	free(c);
	return NULL;
}

const char *fsn_fidcache_get(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid) {
	struct fidcache_entry *e;

	if (!c || !fid || fid->handle_bytes > FSN_HANDLE_MAX)
		return NULL;
	e = find(c, tag, fid, key_hash(tag, fid));
	if (!e)
		return NULL;
	touch(c, e);
	return e->path;
}

int fsn_fidcache_put(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid,
		     const char *path) {
	struct fidcache_entry *e;
	uint64_t h;
	int r;

	if (!c || !fid || !path || fid->handle_bytes > FSN_HANDLE_MAX)
		return -EINVAL;

	h = key_hash(tag, fid);
	e = find(c, tag, fid, h);
	if (e) {
		if (strcmp(e->path, path) != 0) {
			char *copy = strdup(path);

			if (!copy) {
				drop(c, e); /* never keep the old path instead */
				return -ENOMEM;
			}
			free(e->path);
			e->path = copy;
		}
		touch(c, e);
		return 0;
	}

	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return -ENOMEM;
	}
	e->tag = tag;
	memcpy(e->fid.fsid, fid->fsid, sizeof(e->fid.fsid));
	e->fid.handle_bytes = fid->handle_bytes;
	e->fid.handle_type = fid->handle_type;
	memcpy(e->fid.f_handle, fid->f_handle, fid->handle_bytes);

	r = fsn_hmap_put(&c->map, &e->node, h);
	if (r < 0) {
		free(e->path);
		free(e);
		return r;
	}
	/* only now that it is in: a failed insert evicts nothing */
	if (c->n >= c->max)
		drop(c, entry_of(c->lru.prev));
	touch(c, e);
	c->n++;
	return 0;
}

void fsn_fidcache_forget_fid(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid) {
	struct fidcache_entry *e;
	char *dir;

	if (!c || !fid || fid->handle_bytes > FSN_HANDLE_MAX)
		return;
	e = find(c, tag, fid, key_hash(tag, fid));
	if (!e)
		return;
	dir = e->path;
	e->path = NULL;
	drop(c, e);
	forget(c, tag, dir, false);
	free(dir);
}

void fsn_fidcache_forget_path(struct fsn_fidcache *c, unsigned tag, const char *path) {
	if (c && path)
		forget(c, tag, path, true);
}

void fsn_fidcache_forget_tag(struct fsn_fidcache *c, unsigned tag) {
	if (c)
		forget(c, tag, NULL, false);
}

size_t fsn_fidcache_size(const struct fsn_fidcache *c) {
	return c ? c->n : 0;
}
