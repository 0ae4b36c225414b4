/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hashmap.c — the intrusive chained hash table of hashmap.h: libfsn's
 * lookups (objects by key, inotify watches by wd, mount fds by fsid, the
 * FID path cache) and the daemon's (its string map, inotify marks by
 * inode, a recursive mark's sub-watches by path).
 */
#include <errno.h>
#include <stdlib.h>

#include "hashmap.h"

#define HMAP_MIN_BUCKETS 16

/* Fold the high bits in: FNV's low bits are weak for short keys. */
static size_t bucket_of(const struct fsn_hmap *m, uint64_t hash) {
	return (size_t)((hash ^ (hash >> 29) ^ (hash >> 47)) & (m->n_buckets - 1));
}

/* Each old chain is moved oldest first, so that a new chain, too, holds
 * the nodes of one hash newest first. */
static void rehash(struct fsn_hmap *m, size_t n_buckets) {
	struct fsn_hnode **nb = calloc(n_buckets, sizeof(*nb));
	struct fsn_hmap tmp = { .buckets = nb, .n_buckets = n_buckets };

	if (!nb)
		return; /* keep the old, fuller table */
	for (size_t i = 0; i < m->n_buckets; i++) {
		struct fsn_hnode *rev = NULL, *n, *next;

		for (n = m->buckets[i]; n; n = next) {
			next = n->next;
			n->next = rev;
			rev = n;
		}
		for (n = rev; n; n = next) {
			size_t b = bucket_of(&tmp, n->hash);

			next = n->next;
			n->next = nb[b];
			nb[b] = n;
		}
	}
	free(m->buckets);
	m->buckets = nb;
	m->n_buckets = n_buckets;
}

int fsn_hmap_put(struct fsn_hmap *m, struct fsn_hnode *node, uint64_t hash) {
	size_t b;

	if (m->n_buckets == 0) {
		m->buckets = calloc(HMAP_MIN_BUCKETS, sizeof(*m->buckets));
		if (!m->buckets)
			return -ENOMEM;
		m->n_buckets = HMAP_MIN_BUCKETS;
	} else if (m->n_entries >= m->n_buckets && m->n_buckets <= SIZE_MAX / 2 / sizeof(void *))
		rehash(m, m->n_buckets * 2);

	node->hash = hash;
	b = bucket_of(m, hash);
	node->next = m->buckets[b];
	m->buckets[b] = node;
	m->n_entries++;
	return 0;
}

void fsn_hmap_remove(struct fsn_hmap *m, struct fsn_hnode *node) {
	struct fsn_hnode **p;

	if (m->n_buckets == 0)
		return;
	for (p = &m->buckets[bucket_of(m, node->hash)]; *p; p = &(*p)->next)
		if (*p == node) {
			*p = node->next;
			node->next = NULL;
			m->n_entries--;
			return;
		}
}

struct fsn_hnode *fsn_hmap_chain(const struct fsn_hmap *m, uint64_t hash) {
	if (m->n_buckets == 0)
		return NULL;
	return m->buckets[bucket_of(m, hash)];
}

/* The first node of bucket b or a later one. */
static struct fsn_hnode *first_from(const struct fsn_hmap *m, size_t b) {
	for (; b < m->n_buckets; b++)
		if (m->buckets[b])
			return m->buckets[b];
	return NULL;
}

struct fsn_hnode *fsn_hmap_first(const struct fsn_hmap *m) {
	return first_from(m, 0);
}

struct fsn_hnode *fsn_hmap_next(const struct fsn_hmap *m, const struct fsn_hnode *node) {
	if (node->next)
		return node->next;
	return first_from(m, bucket_of(m, node->hash) + 1);
}

void fsn_hmap_done(struct fsn_hmap *m) {
	free(m->buckets);
	*m = (struct fsn_hmap){ 0 };
}
