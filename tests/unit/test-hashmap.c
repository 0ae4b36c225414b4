/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-hashmap.c — the "hashmap" suite: shared/hashmap.c, the one hash
 * table of lib and daemon. Put, look up and remove (also a node that is
 * not in the table); growth across many rehashes with every node still
 * found; the nodes of one key newest first, also after the table grew
 * (the daemon's strmap relies on it); iteration that visits every node
 * exactly once, also while it removes the nodes it visited.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fsn-util.h"
#include "hashmap.h"
#include "unit.h"

struct item {
	struct fsn_hnode node;
	unsigned key;
	unsigned seq; /* order of its put */
	unsigned visits;
};

static uint64_t key_hash(unsigned key) {
	return hash_bytes(HASH_INIT, &key, sizeof(key));
}

/* The newest node of key, or NULL. */
static struct item *lookup(const struct fsn_hmap *m, unsigned key) {
	uint64_t h = key_hash(key);

	for (struct fsn_hnode *n = fsn_hmap_chain(m, h); n; n = n->next) {
		struct item *it = container_of(n, struct item, node);

		if (n->hash == h && it->key == key)
			return it;
	}
	return NULL;
}

static void put(struct fsn_hmap *m, struct item *it, unsigned key, unsigned seq) {
	*it = (struct item){ .key = key, .seq = seq };
	ck_assert_int_eq(fsn_hmap_put(m, &it->node, key_hash(key)), 0);
}

START_TEST(test_hmap_basic) {
	struct fsn_hmap m = { 0 };
	struct item a, b, c, stranger = { .key = 9 };

	/* an empty table, never allocated */
	ck_assert_ptr_null(fsn_hmap_chain(&m, key_hash(1)));
	ck_assert_ptr_null(fsn_hmap_first(&m));
	fsn_hmap_remove(&m, &stranger.node);
	ck_assert_uint_eq(fsn_hmap_size(&m), 0);

	put(&m, &a, 1, 0);
	put(&m, &b, 2, 1);
	put(&m, &c, 3, 2);
	ck_assert_uint_eq(fsn_hmap_size(&m), 3);
	ck_assert_ptr_eq(lookup(&m, 1), &a);
	ck_assert_ptr_eq(lookup(&m, 2), &b);
	ck_assert_ptr_eq(lookup(&m, 3), &c);
	ck_assert_ptr_null(lookup(&m, 4));

	fsn_hmap_remove(&m, &b.node);
	ck_assert_uint_eq(fsn_hmap_size(&m), 2);
	ck_assert_ptr_null(lookup(&m, 2));
	ck_assert_ptr_eq(lookup(&m, 1), &a);
	ck_assert_ptr_eq(lookup(&m, 3), &c);
	/* a node that is not in the table: nothing happens */
	stranger.node.hash = key_hash(9);
	fsn_hmap_remove(&m, &stranger.node);
	fsn_hmap_remove(&m, &b.node);
	ck_assert_uint_eq(fsn_hmap_size(&m), 2);

	fsn_hmap_done(&m);
	ck_assert_uint_eq(fsn_hmap_size(&m), 0);
	ck_assert_ptr_null(lookup(&m, 1));
	/* and usable again */
	put(&m, &b, 2, 3);
	ck_assert_ptr_eq(lookup(&m, 2), &b);
	fsn_hmap_done(&m);
}
END_TEST

#define MANY 20000

/* Past many rehashes: every node found, about one a bucket. */
START_TEST(test_hmap_growth) {
	struct fsn_hmap m = { 0 };
	struct item *v = calloc(MANY, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (unsigned i = 0; i < MANY; i++) {
		put(&m, &v[i], i, i);
		ck_assert_uint_le(fsn_hmap_size(&m), m.n_buckets);
	}
	ck_assert_uint_eq(fsn_hmap_size(&m), MANY);
	ck_assert_uint_ge(m.n_buckets, MANY / 2);
	ck_assert_uint_eq(m.n_buckets & (m.n_buckets - 1), 0); /* a power of two */
	for (unsigned i = 0; i < MANY; i++)
		ck_assert_ptr_eq(lookup(&m, i), &v[i]);
	ck_assert_ptr_null(lookup(&m, MANY));
	/* half of them out: the others still there */
	for (unsigned i = 0; i < MANY; i += 2)
		fsn_hmap_remove(&m, &v[i].node);
	ck_assert_uint_eq(fsn_hmap_size(&m), MANY / 2);
	for (unsigned i = 0; i < MANY; i++)
		ck_assert_ptr_eq(lookup(&m, i), i % 2 ? &v[i] : NULL);
	fsn_hmap_done(&m);
	free(v);
}
END_TEST

/* The nodes of one key: newest first in their chain, before and after the
 * table grew under them. */
static void assert_newest_first(const struct fsn_hmap *m, unsigned key, unsigned n) {
	uint64_t h = key_hash(key);
	unsigned want = n;

	for (struct fsn_hnode *x = fsn_hmap_chain(m, h); x; x = x->next) {
		struct item *it = container_of(x, struct item, node);

		if (x->hash != h || it->key != key)
			continue;
		ck_assert_uint_gt(want, 0);
		ck_assert_uint_eq(it->seq, --want);
	}
	ck_assert_uint_eq(want, 0);
}

START_TEST(test_hmap_same_key_order) {
	struct fsn_hmap m = { 0 };
	struct item same[7], *v = calloc(MANY, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (unsigned i = 0; i < ELEMENTSOF(same); i++)
		put(&m, &same[i], 424242, i);
	assert_newest_first(&m, 424242, ELEMENTSOF(same));
	for (unsigned i = 0; i < MANY; i++) /* many rehashes */
		put(&m, &v[i], i, 0);
	assert_newest_first(&m, 424242, ELEMENTSOF(same));
	/* the newest out: the one before it is the newest */
	fsn_hmap_remove(&m, &same[6].node);
	assert_newest_first(&m, 424242, 6);
	fsn_hmap_done(&m);
	free(v);
}
END_TEST

/* Every node once (n of them, keys 0..n-1), removing each visited one when
 * remove: the table is empty then. */
static void assert_visits_each_once(struct fsn_hmap *m, struct item *v, unsigned n, bool remove) {
	unsigned seen = 0;

	for (unsigned i = 0; i < n; i++)
		v[i].visits = 0;
	for (struct fsn_hnode *x = fsn_hmap_first(m), *next; x; x = next) {
		struct item *it = container_of(x, struct item, node);

		next = fsn_hmap_next(m, x);
		ck_assert_uint_lt(it->key, n);
		ck_assert_ptr_eq(it, &v[it->key]);
		it->visits++;
		seen++;
		if (remove)
			fsn_hmap_remove(m, x);
	}
	ck_assert_uint_eq(seen, n);
	for (unsigned i = 0; i < n; i++)
		ck_assert_uint_eq(v[i].visits, 1);
	if (remove)
		ck_assert_uint_eq(fsn_hmap_size(m), 0);
}

START_TEST(test_hmap_iterate) {
	struct fsn_hmap m = { 0 };
	struct item *v = calloc(MANY, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	put(&m, &v[0], 0, 0);
	assert_visits_each_once(&m, v, 1, false);
	for (unsigned i = 1; i < MANY; i++)
		put(&m, &v[i], i, i);
	assert_visits_each_once(&m, v, MANY, false);
	assert_visits_each_once(&m, v, MANY, true);
	ck_assert_ptr_null(fsn_hmap_first(&m));
	fsn_hmap_done(&m);
	free(v);
}
END_TEST

/* One hash for every key (a worst case): a single chain, still right. */
START_TEST(test_hmap_one_chain) {
	struct fsn_hmap m = { 0 };
	struct item v[100];
	unsigned n = 0;

	for (unsigned i = 0; i < ELEMENTSOF(v); i++) {
		v[i] = (struct item){ .key = i };
		ck_assert_int_eq(fsn_hmap_put(&m, &v[i].node, 7), 0);
	}
	for (struct fsn_hnode *x = fsn_hmap_chain(&m, 7); x; x = x->next)
		ck_assert_uint_eq(container_of(x, struct item, node)->key, ELEMENTSOF(v) - ++n);
	ck_assert_uint_eq(n, ELEMENTSOF(v));
	assert_visits_each_once(&m, v, ELEMENTSOF(v), true);
	fsn_hmap_done(&m);
}
END_TEST

static void hashmap_suite(Suite *s) {
	TCase *tc = tcase_create("hashmap");

	tcase_add_test(tc, test_hmap_basic);
	tcase_add_test(tc, test_hmap_growth);
	tcase_add_test(tc, test_hmap_same_key_order);
	tcase_add_test(tc, test_hmap_iterate);
	tcase_add_test(tc, test_hmap_one_chain);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("hashmap", hashmap_suite);
