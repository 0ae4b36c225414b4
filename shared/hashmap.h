/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hashmap.h — the one hash table of lib and daemon (hashmap.c): intrusive
 * and chained. Nodes live inside the caller's structs (container_of() in
 * fsn-util.h gets the struct back); the table owns only its bucket array.
 * Callers hash their keys (hash_bytes() in fsn-util.h) and compare them
 * themselves. Internal: built as the static library fsn-hashmap, linked
 * into libfsn with hidden visibility (no fsn_hmap_* symbol is exported)
 * and into the daemon.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct fsn_hnode {
	struct fsn_hnode *next; /* the bucket's chain */
	uint64_t hash;
};

struct fsn_hmap {
	struct fsn_hnode **buckets;
	size_t n_buckets; /* 0 or a power of two */
	size_t n_entries;
};

/* Insert node under hash. Grows the table when it gets full; -ENOMEM only
 * when not even the first bucket array could be allocated. A chain holds
 * the nodes put last first, also across growth: of the nodes put under
 * one key, a lookup that walks the chain meets the newest first. */
int fsn_hmap_put(struct fsn_hmap *m, struct fsn_hnode *node, uint64_t hash);
/* Unlink a node that is in the table (one that is not: nothing). */
void fsn_hmap_remove(struct fsn_hmap *m, struct fsn_hnode *node);
/* First node of hash's chain (walk ->next and compare ->hash and the key);
 * NULL for an empty chain. */
struct fsn_hnode *fsn_hmap_chain(const struct fsn_hmap *m, uint64_t hash);
/* Every node once, in no particular order: fsn_hmap_first(), then
 * fsn_hmap_next() until NULL. The node at hand may be removed once its
 * next was taken; nothing may be put meanwhile. */
struct fsn_hnode *fsn_hmap_first(const struct fsn_hmap *m);
struct fsn_hnode *fsn_hmap_next(const struct fsn_hmap *m, const struct fsn_hnode *node);
/* Free the bucket array (not the nodes); the table is empty and usable. */
void fsn_hmap_done(struct fsn_hmap *m);

static inline size_t fsn_hmap_size(const struct fsn_hmap *m) {
	return m->n_entries;
}
