/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dcache.c — see dcache.h. A chained hash by (group, fid) and an LRU list. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcache.h"
#include "util.h"

struct dentry {
	struct dentry *hnext;
	struct dentry *prev, *next; /* LRU: first = most recently used */
	unsigned group;
	struct fsn_fid fid; /* handle_bytes used */
	char *path;
	size_t hash;
};

struct dcache {
	struct dentry **buckets;
	size_t n_buckets, n, max;
	struct dentry *first, *last;
};

static size_t fid_hash(unsigned group, const struct fsn_fid *fid) {
	uint64_t h = hash_bytes(HASH_INIT, &group, sizeof(group));

	h = hash_bytes(h, fid->fsid, sizeof(fid->fsid));
	h = hash_bytes(h, &fid->handle_type, sizeof(fid->handle_type));
	return (size_t)hash_bytes(h, fid->f_handle,
				  fid->handle_bytes < FSN_HANDLE_MAX ? fid->handle_bytes
								     : FSN_HANDLE_MAX);
}

static bool same(const struct dentry *d, unsigned group, const struct fsn_fid *fid) {
	return d->group == group && d->fid.fsid[0] == fid->fsid[0] &&
	       d->fid.fsid[1] == fid->fsid[1] && d->fid.handle_type == fid->handle_type &&
	       d->fid.handle_bytes == fid->handle_bytes &&
	       memcmp(d->fid.f_handle, fid->f_handle, fid->handle_bytes) == 0;
}

int dcache_new(size_t max, struct dcache **ret) {
	struct dcache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->n_buckets = 1;
	while (c->n_buckets < max)
		c->n_buckets <<= 1;
	c->buckets = calloc(c->n_buckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return -ENOMEM;
	}
	c->max = max ? max : 1;
	*ret = c;
	return 0;
}

static void lru_unlink(struct dcache *c, struct dentry *d) {
	if (d->prev)
		d->prev->next = d->next;
	else
		c->first = d->next;
	if (d->next)
		d->next->prev = d->prev;
	else
		c->last = d->prev;
	d->prev = d->next = NULL;
}

static void lru_front(struct dcache *c, struct dentry *d) {
	d->next = c->first;
	d->prev = NULL;
	if (c->first)
		c->first->prev = d;
	c->first = d;
	if (!c->last)
		c->last = d;
}

static void drop(struct dcache *c, struct dentry *d) {
	for (struct dentry **p = &c->buckets[d->hash & (c->n_buckets - 1)]; *p; p = &(*p)->hnext)
		if (*p == d) {
			*p = d->hnext;
			break;
		}
	lru_unlink(c, d);
	c->n--;
	free(d->path);
	free(d);
}

struct dcache *dcache_free(struct dcache *c) {
	if (!c)
		return NULL;
	while (c->first)
		drop(c, c->first);
	free(c->buckets);
	free(c);
	return NULL;
}

static struct dentry *find(struct dcache *c, unsigned group, const struct fsn_fid *fid, size_t h) {
	for (struct dentry *d = c->buckets[h & (c->n_buckets - 1)]; d; d = d->hnext)
		if (d->hash == h && same(d, group, fid))
			return d;
	return NULL;
}

const char *dcache_get(struct dcache *c, unsigned group, const struct fsn_fid *fid) {
	struct dentry *d;

	if (!c || fid->handle_bytes > FSN_HANDLE_MAX)
		return NULL;
	d = find(c, group, fid, fid_hash(group, fid));
	if (!d)
		return NULL;
	if (d != c->first) {
		lru_unlink(c, d);
		lru_front(c, d);
	}
	return d->path;
}

void dcache_put(struct dcache *c, unsigned group, const struct fsn_fid *fid, const char *path) {
	size_t h;
	struct dentry *d;
	char *p;

	if (!c || fid->handle_bytes > FSN_HANDLE_MAX)
		return;
	h = fid_hash(group, fid);
	d = find(c, group, fid, h);
	p = strdup(path);
	if (!p)
		return;
	if (d) {
		free(d->path);
		d->path = p;
		return;
	}
	if (c->n >= c->max)
		drop(c, c->last);
	d = calloc(1, sizeof(*d));
	if (!d) {
		free(p);
		return;
	}
	d->group = group;
	d->fid = *fid;
	d->path = p;
	d->hash = h;
	d->hnext = c->buckets[h & (c->n_buckets - 1)];
	c->buckets[h & (c->n_buckets - 1)] = d;
	lru_front(c, d);
	c->n++;
}

void dcache_forget_below(struct dcache *c, unsigned group, const char *path) {
	struct dentry *next;

	for (struct dentry *d = c ? c->first : NULL; d; d = next) {
		next = d->next;
		if (d->group == group && path_in(d->path, path, true, true))
			drop(c, d);
	}
}

void dcache_forget_group(struct dcache *c, unsigned group) {
	struct dentry *next;

	for (struct dentry *d = c ? c->first : NULL; d; d = next) {
		next = d->next;
		if (d->group == group)
			drop(c, d);
	}
}

size_t dcache_size(const struct dcache *c) {
	return c ? c->n : 0;
}
