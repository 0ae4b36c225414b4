/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-fidcache.c — the "fidcache" suite: struct fsn_fidcache, the bounded
 * (tag, FID) -> path LRU map behind fsn_ctx_fid_path() and
 * fsn_ctx_event_dir_path(); internal to libfsn (fidcache-private.h, the
 * static library). Pure memory: no privileges needed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "fidcache-private.h"
#include "fsn.h"
#include "unit.h"

/* A FID of 8 handle bytes that differs from fid(m) for every m != n; the
 * bytes of f_handle past handle_bytes are junk on purpose (they must not
 * count). */
static struct fsn_fid fid(unsigned n) {
	struct fsn_fid f;

	memset(&f, 0xa5, sizeof(f));
	f.fsid[0] = 0x1234;
	f.fsid[1] = 0x5678;
	f.handle_type = 1;
	f.handle_bytes = 8;
	memset(f.f_handle, 0, 8);
	memcpy(f.f_handle, &n, sizeof(n));
	return f;
}

static struct fsn_fidcache *cache(size_t max) {
	struct fsn_fidcache *c = NULL;

	ck_assert_int_eq(fsn_fidcache_new(max, &c), 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(fsn_fidcache_size(c), 0);
	return c;
}

static void put(struct fsn_fidcache *c, unsigned tag, unsigned n, const char *path) {
	struct fsn_fid f = fid(n);

	ck_assert_int_eq(fsn_fidcache_put(c, tag, &f, path), 0);
}

/* The path of (tag, fid(n)) is want (NULL: none). */
static void expect(struct fsn_fidcache *c, unsigned tag, unsigned n, const char *want) {
	struct fsn_fid f = fid(n);
	const char *got = fsn_fidcache_get(c, tag, &f);

	if (!want)
		ck_assert_msg(!got, "tag %u fid %u: got \"%s\", want none", tag, n, got);
	else {
		ck_assert_msg(got, "tag %u fid %u: got none, want \"%s\"", tag, n, want);
		ck_assert_str_eq(got, want);
	}
}

/* (tag, fid(n)) -> path: what to put, or what to expect (NULL: none). */
struct entry {
	unsigned tag, n;
	const char *path;
};

#define PUT_ALL(c, tab)                                                                            \
	for (size_t i_ = 0; i_ < sizeof(tab) / sizeof((tab)[0]); i_++)                             \
	put((c), (tab)[i_].tag, (tab)[i_].n, (tab)[i_].path)
#define EXPECT_ALL(c, tab)                                                                         \
	for (size_t i_ = 0; i_ < sizeof(tab) / sizeof((tab)[0]); i_++)                             \
	expect((c), (tab)[i_].tag, (tab)[i_].n, (tab)[i_].path)

START_TEST(test_put_get) {
	struct fsn_fidcache *c = cache(16);
	struct fsn_fid f = fid(1), other;
	char path[] = "/srv/data";

	ck_assert_int_eq(fsn_fidcache_put(c, 0, &f, path), 0);
	path[1] = 'X'; /* the cache has its own copy */
	expect(c, 0, 1, "/srv/data");
	expect(c, 0, 2, NULL);
	ck_assert_uint_eq(fsn_fidcache_size(c), 1);

	/* only fsid, type, length and the used bytes make the key */
	other = fid(1);
	memset(other.f_handle + 8, 0x11, FSN_HANDLE_MAX - 8);
	ck_assert_str_eq(fsn_fidcache_get(c, 0, &other), "/srv/data");
	other = fid(1);
	other.fsid[1]++;
	ck_assert_ptr_null(fsn_fidcache_get(c, 0, &other));
	other = fid(1);
	other.handle_type = 2;
	ck_assert_ptr_null(fsn_fidcache_get(c, 0, &other));
	other = fid(1);
	other.handle_bytes = 9;
	ck_assert_ptr_null(fsn_fidcache_get(c, 0, &other));
	ck_assert_uint_eq(fsn_fidcache_size(c), 1);
	ck_assert_ptr_null(fsn_fidcache_free(c));
}
END_TEST

START_TEST(test_update) {
	static const struct entry updated[] = { { 0, 1, "/new/name" }, { 0, 2, "/two" } };
	struct fsn_fidcache *c = cache(16);

	put(c, 0, 1, "/old");
	put(c, 0, 2, "/two");
	put(c, 0, 1, "/new/name");
	EXPECT_ALL(c, updated);
	ck_assert_uint_eq(fsn_fidcache_size(c), 2);
	put(c, 0, 1, "/new/name"); /* the same again */
	EXPECT_ALL(c, updated);
	ck_assert_uint_eq(fsn_fidcache_size(c), 2);
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_tags_apart) {
	static const struct entry apart[] = { { 1, 7, "/group/one" }, { 2, 7, "/group/two" } };
	/* updating one tag's entry leaves the other's */
	static const struct entry moved[] = {
		{ 1, 7, "/group/one" },
		{ 2, 7, "/group/two/moved" },
		{ 0, 7, NULL },
	};
	struct fsn_fidcache *c = cache(16);

	PUT_ALL(c, apart);
	EXPECT_ALL(c, apart);
	expect(c, 0, 7, NULL);
	ck_assert_uint_eq(fsn_fidcache_size(c), 2);
	put(c, 2, 7, "/group/two/moved");
	EXPECT_ALL(c, moved);
	ck_assert_uint_eq(fsn_fidcache_size(c), 2);
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_lru_eviction) {
	struct fsn_fidcache *c = cache(3);

	put(c, 0, 1, "/1");
	put(c, 0, 2, "/2");
	put(c, 0, 3, "/3");
	ck_assert_uint_eq(fsn_fidcache_size(c), 3);

	/* a get makes 1 the most recently used: 2 is the oldest */
	expect(c, 0, 1, "/1");
	put(c, 0, 4, "/4");
	ck_assert_uint_eq(fsn_fidcache_size(c), 3);
	expect(c, 0, 2, NULL);

	/* a put of an existing key refreshes it too: now 1 is the oldest */
	put(c, 0, 3, "/3");
	put(c, 0, 4, "/4b");
	put(c, 0, 5, "/5");
	ck_assert_uint_eq(fsn_fidcache_size(c), 3);
	expect(c, 0, 1, NULL);
	expect(c, 0, 3, "/3");
	expect(c, 0, 4, "/4b");
	expect(c, 0, 5, "/5");

	/* the bound holds across tags */
	put(c, 9, 1, "/other-tag");
	ck_assert_uint_eq(fsn_fidcache_size(c), 3);
	expect(c, 0, 3, NULL);
	fsn_fidcache_free(c);

	/* max 1: every new key replaces the last */
	c = cache(1);
	put(c, 0, 1, "/1");
	put(c, 0, 2, "/2");
	ck_assert_uint_eq(fsn_fidcache_size(c), 1);
	expect(c, 0, 1, NULL);
	expect(c, 0, 2, "/2");
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_many) {
	enum { N = 5000 };
	struct fsn_fidcache *c = cache(N);
	char path[32];

	for (unsigned i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/d/%u", i);
		put(c, i % 3, i, path);
	}
	ck_assert_uint_eq(fsn_fidcache_size(c), N);
	for (unsigned i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/d/%u", i);
		expect(c, i % 3, i, path);
		expect(c, (i + 1) % 3, i, NULL);
	}
	/* all were used in order 0..N-1: 0 goes first */
	put(c, 0, N, "/d/new");
	ck_assert_uint_eq(fsn_fidcache_size(c), N);
	expect(c, 0, 0, NULL);
	expect(c, 1, 1, "/d/1");
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_forget_path) {
	static const struct entry tree[] = {
		{ 0, 1, "/a" }, { 0, 2, "/a/b" }, { 0, 3, "/a/b/c" }, { 0, 4, "/ab" },
		{ 0, 5, "/b" }, { 0, 6, "/" },    { 1, 7, "/a/x" }, /* another tag */
	};
	/* after forgetting "/a" of tag 0 */
	static const struct entry no_a[] = {
		{ 0, 1, NULL }, { 0, 2, NULL }, { 0, 3, NULL },   { 0, 4, "/ab" },
		{ 0, 5, "/b" }, { 0, 6, "/" },  { 1, 7, "/a/x" },
	};
	/* after forgetting "/a/b" of tag 0: what is above it stays */
	static const struct entry no_ab[] = {
		{ 0, 1, "/a" }, { 0, 2, NULL }, { 0, 3, NULL }, { 0, 4, "/ab" }, { 1, 7, "/a/x" },
	};
	/* after forgetting "/" of tag 0: all of tag 0, "/" itself included */
	static const struct entry none[] = {
		{ 0, 1, NULL }, { 0, 2, NULL }, { 0, 3, NULL },   { 0, 4, NULL },
		{ 0, 5, NULL }, { 0, 6, NULL }, { 1, 7, "/a/x" },
	};
	struct fsn_fidcache *c = cache(64);

	PUT_ALL(c, tree);
	fsn_fidcache_forget_path(c, 0, "/a");
	EXPECT_ALL(c, no_a);
	ck_assert_uint_eq(fsn_fidcache_size(c), 4);

	PUT_ALL(c, tree);
	fsn_fidcache_forget_path(c, 0, "/a/b");
	EXPECT_ALL(c, no_ab);
	ck_assert_uint_eq(fsn_fidcache_size(c), 5);

	/* a trailing slash does not count */
	PUT_ALL(c, tree);
	fsn_fidcache_forget_path(c, 0, "/a/");
	EXPECT_ALL(c, no_a);

	PUT_ALL(c, tree);
	fsn_fidcache_forget_path(c, 0, "/");
	EXPECT_ALL(c, none);
	ck_assert_uint_eq(fsn_fidcache_size(c), 1);

	/* nothing of the tag there, or nothing to forget: nothing happens */
	fsn_fidcache_forget_path(c, 0, "/a");
	fsn_fidcache_forget_path(c, 3, "/");
	fsn_fidcache_forget_path(c, 1, "/a/x/y");
	fsn_fidcache_forget_path(c, 1, NULL);
	fsn_fidcache_forget_path(NULL, 1, "/");
	EXPECT_ALL(c, none);
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_forget_fid) {
	static const struct entry tree[] = {
		{ 0, 1, "/a" },                       /* the directory */
		{ 0, 2, "/a/b" },                     /* below it */
		{ 0, 3, "/a/b/c" },                   /* further below */
		{ 0, 4, "/a" },                       /* another object that had the same path */
		{ 0, 5, "/ab" },    { 1, 6, "/a/b" }, /* another tag */
	};
	static const struct entry after[] = {
		{ 0, 1, NULL }, { 0, 2, NULL },  { 0, 3, NULL },
		{ 0, 4, "/a" }, { 0, 5, "/ab" }, { 1, 6, "/a/b" },
	};
	struct fsn_fidcache *c = cache(64);
	struct fsn_fid dir = fid(1), unknown = fid(99);

	PUT_ALL(c, tree);
	fsn_fidcache_forget_fid(c, 0, &dir);
	EXPECT_ALL(c, after);
	ck_assert_uint_eq(fsn_fidcache_size(c), 3);

	/* unknown, gone already, NULL: nothing happens */
	fsn_fidcache_forget_fid(c, 0, &unknown);
	fsn_fidcache_forget_fid(c, 0, &dir);
	fsn_fidcache_forget_fid(c, 0, NULL);
	fsn_fidcache_forget_fid(NULL, 0, &dir);
	EXPECT_ALL(c, after);
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_forget_tag_and_clear) {
	static const struct entry some[] = {
		{ 1, 1, "/x" },
		{ 1, 2, "/y" },
		{ 2, 1, "/x" },
		{ 3, 3, "/z" },
	};
	static const struct entry no_1[] = {
		{ 1, 1, NULL },
		{ 1, 2, NULL },
		{ 2, 1, "/x" },
		{ 3, 3, "/z" },
	};
	static const struct entry none[] = {
		{ 1, 1, NULL },
		{ 1, 2, NULL },
		{ 2, 1, NULL },
		{ 3, 3, NULL },
	};
	struct fsn_fidcache *c = cache(64);

	PUT_ALL(c, some);
	fsn_fidcache_forget_tag(c, 1);
	EXPECT_ALL(c, no_1);
	ck_assert_uint_eq(fsn_fidcache_size(c), 2);
	fsn_fidcache_forget_tag(c, 42);
	fsn_fidcache_forget_tag(NULL, 2);
	EXPECT_ALL(c, no_1);

	fsn_fidcache_clear(c);
	fsn_fidcache_clear(NULL);
	ck_assert_uint_eq(fsn_fidcache_size(c), 0);
	EXPECT_ALL(c, none);
	/* still usable */
	PUT_ALL(c, some);
	EXPECT_ALL(c, some);
	fsn_fidcache_free(c);
}
END_TEST

/* The stats of c. */
static struct fsn_fidcache_stats stats(const struct fsn_fidcache *c) {
	struct fsn_fidcache_stats st;

	fsn_fidcache_get_stats(c, &st);
	ck_assert_uint_eq(st.entries, fsn_fidcache_size(c));
	return st;
}

START_TEST(test_forget_subtree_exactly) {
	static const struct entry tree[] = {
		{ 0, 1, "/a" },      { 0, 2, "/a/b" },    { 0, 3, "/a/b/c" },  { 0, 4, "/a/b/c/d" },
		{ 0, 5, "/a/bc" },   { 0, 6, "/a/bc/x" }, { 0, 7, "/a/b-" },   { 0, 8, "/a/b/" },
		{ 0, 9, "/a/b//e" }, { 0, 10, "/a/ab" },  { 1, 11, "/a/b/c" },
	};
	/* "/a/b" and below gone; "/a/bc", "/a/b-" (a common name prefix)
	 * and what is above stay */
	static const struct entry no_b[] = {
		{ 0, 1, "/a" },    { 0, 2, NULL },      { 0, 3, NULL },      { 0, 4, NULL },
		{ 0, 5, "/a/bc" }, { 0, 6, "/a/bc/x" }, { 0, 7, "/a/b-" },   { 0, 8, NULL },
		{ 0, 9, NULL },    { 0, 10, "/a/ab" },  { 1, 11, "/a/b/c" },
	};
	/* forget_fid of "/a/b": what is strictly below, and it */
	static const struct entry fid_b[] = {
		{ 0, 1, "/a" },    { 0, 2, NULL },      { 0, 3, NULL },      { 0, 4, NULL },
		{ 0, 5, "/a/bc" }, { 0, 6, "/a/bc/x" }, { 0, 7, "/a/b-" },   { 0, 8, NULL },
		{ 0, 9, NULL },    { 0, 10, "/a/ab" },  { 1, 11, "/a/b/c" },
	};
	/* "/a/bc" alone: "/a/b" and its subtree stay */
	static const struct entry no_bc[] = {
		{ 0, 1, "/a" },      { 0, 2, "/a/b" },   { 0, 3, "/a/b/c" },  { 0, 4, "/a/b/c/d" },
		{ 0, 5, NULL },      { 0, 6, NULL },     { 0, 7, "/a/b-" },   { 0, 8, "/a/b/" },
		{ 0, 9, "/a/b//e" }, { 0, 10, "/a/ab" }, { 1, 11, "/a/b/c" },
	};
	struct fsn_fidcache *c = cache(64);
	struct fsn_fid a = fid(1), b = fid(2);

	PUT_ALL(c, tree);
	fsn_fidcache_forget_path(c, 0, "/a/b");
	EXPECT_ALL(c, no_b);
	ck_assert_uint_eq(fsn_fidcache_size(c), 6);

	fsn_fidcache_clear(c);
	PUT_ALL(c, tree);
	fsn_fidcache_forget_fid(c, 0, &b);
	EXPECT_ALL(c, fid_b);

	fsn_fidcache_clear(c);
	PUT_ALL(c, tree);
	fsn_fidcache_forget_path(c, 0, "/a/bc");
	EXPECT_ALL(c, no_bc);

	/* a path that is only a prefix of names, or not there: nothing */
	fsn_fidcache_forget_path(c, 0, "/a/b/c/");
	fsn_fidcache_forget_path(c, 0, "/a/b/c/d/e");
	fsn_fidcache_forget_path(c, 0, "/a/b-/x");
	fsn_fidcache_forget_path(c, 0, "/a/a");
	expect(c, 0, 4, NULL);
	expect(c, 0, 3, NULL);
	expect(c, 0, 7, "/a/b-");
	expect(c, 0, 1, "/a");

	/* a FID whose path has a trailing slash: "/a/" is strictly below
	 * "/a", so another FID with that very path goes too */
	fsn_fidcache_clear(c);
	put(c, 0, 1, "/a/");
	put(c, 0, 2, "/a/");
	put(c, 0, 3, "/a//x");
	put(c, 0, 4, "/ab");
	put(c, 0, 5, "/b");
	fsn_fidcache_forget_fid(c, 0, &a);
	expect(c, 0, 2, NULL);
	expect(c, 0, 3, NULL);
	expect(c, 0, 4, "/ab");
	expect(c, 0, 5, "/b");
	fsn_fidcache_free(c);
}
END_TEST

/* The entry of a directory goes (evicted); what was cached below it stays,
 * and forgetting the directory's path still finds it. */
START_TEST(test_evict_parent) {
	struct fsn_fidcache *c = cache(4);
	struct fsn_fid a = fid(1);

	put(c, 0, 1, "/a");
	put(c, 0, 2, "/a/b");
	put(c, 0, 3, "/a/b/c");
	put(c, 0, 4, "/a/bc");
	put(c, 0, 5, "/x"); /* evicts "/a" */
	expect(c, 0, 1, NULL);
	expect(c, 0, 2, "/a/b");
	expect(c, 0, 3, "/a/b/c");
	expect(c, 0, 4, "/a/bc");
	ck_assert_uint_eq(fsn_fidcache_size(c), 4);

	fsn_fidcache_forget_fid(c, 0, &a); /* gone: nothing */
	ck_assert_uint_eq(fsn_fidcache_size(c), 4);
	fsn_fidcache_forget_path(c, 0, "/a/b");
	expect(c, 0, 2, NULL);
	expect(c, 0, 3, NULL);
	expect(c, 0, 4, "/a/bc");
	expect(c, 0, 5, "/x");
	fsn_fidcache_forget_path(c, 0, "/a");
	expect(c, 0, 4, NULL);
	ck_assert_uint_eq(fsn_fidcache_size(c), 1);

	/* the entries below evicted one by one: the index goes with them */
	put(c, 0, 1, "/d");
	put(c, 0, 2, "/d/e");
	put(c, 0, 3, "/d/e/f");
	for (unsigned i = 10; i < 14; i++) {
		char path[16];

		snprintf(path, sizeof(path), "/y/%u", i);
		put(c, 0, i, path);
	}
	expect(c, 0, 2, NULL);
	expect(c, 0, 3, NULL);
	ck_assert_uint_eq(stats(c).nodes, 1 + 1 + 4); /* root, "/y", 4 leaves */
	fsn_fidcache_clear(c);
	ck_assert_uint_eq(stats(c).nodes, 0);
	fsn_fidcache_free(c);
}
END_TEST

/* A directory moved: its entry gets the new path (a put), its old path
 * is forgotten (as fsn_ctx_dir_cache_after() does), then the new one. */
START_TEST(test_move_then_forget) {
	static const struct entry moved[] = {
		{ 0, 1, "/a" }, { 0, 2, "/z/b" }, { 0, 3, NULL },
		{ 0, 4, NULL }, { 0, 5, "/z" },   { 0, 6, "/a/bc" },
	};
	struct fsn_fidcache *c = cache(16);
	struct fsn_fid b = fid(2);

	put(c, 0, 1, "/a");
	put(c, 0, 2, "/a/b");
	put(c, 0, 3, "/a/b/c");
	put(c, 0, 4, "/a/b/c/d");
	put(c, 0, 5, "/z");
	put(c, 0, 6, "/a/bc");
	put(c, 0, 2, "/z/b"); /* the move, as resolved again */
	fsn_fidcache_forget_path(c, 0, "/a/b");
	EXPECT_ALL(c, moved);
	ck_assert_uint_eq(fsn_fidcache_size(c), 4);

	/* below its new path, then it (by FID) */
	put(c, 0, 3, "/z/b/c");
	put(c, 0, 7, "/z/bc");
	fsn_fidcache_forget_fid(c, 0, &b);
	expect(c, 0, 2, NULL);
	expect(c, 0, 3, NULL);
	expect(c, 0, 7, "/z/bc");
	expect(c, 0, 5, "/z");

	/* moved back and forth: the same entry, one node each time */
	put(c, 0, 2, "/a/b");
	put(c, 0, 2, "/z/b");
	put(c, 0, 2, "/a/b");
	expect(c, 0, 2, "/a/b");
	fsn_fidcache_forget_path(c, 0, "/z");
	expect(c, 0, 2, "/a/b");
	expect(c, 0, 5, NULL);
	expect(c, 0, 7, NULL);
	fsn_fidcache_forget_path(c, 0, "/");
	ck_assert_uint_eq(fsn_fidcache_size(c), 0);
	ck_assert_uint_eq(stats(c).nodes, 0);
	fsn_fidcache_free(c);
}
END_TEST

/* Forgetting costs what is forgotten, not what the cache holds: a cache
 * of 60000 unrelated entries, a subtree of 12 forgotten 200 times (by
 * path, by FID, by tag), counted in visited entries and index nodes. */
START_TEST(test_forget_cost) {
	enum { UNRELATED = 60000, SUB = 12, ROUNDS = 200 };
	struct fsn_fidcache *c = cache(65536);
	struct fsn_fidcache_stats before, after;
	struct fsn_fid top = fid(UNRELATED);
	char path[64];

	for (unsigned i = 0; i < UNRELATED; i++) {
		/* the same tag and names that share prefixes with the subtree */
		snprintf(path, sizeof(path), "/srv/d%u/f%u", i % 300, i);
		put(c, 0, i, path);
	}
	for (unsigned r = 0; r < ROUNDS; r++) {
		unsigned tag = r % 3 == 2 ? 5 : 0;

		/* (a name that "/srv/d1" and "/srv/d1x" are prefixes of) */
		put(c, tag, UNRELATED, "/srv/d1b");
		for (unsigned i = 1; i < SUB; i++) {
			snprintf(path, sizeof(path), "/srv/d1b/sub/%u", i);
			put(c, tag, UNRELATED + i, path);
		}
		ck_assert_uint_eq(fsn_fidcache_size(c), UNRELATED + SUB);
		before = stats(c);
		if (r % 3 == 0)
			fsn_fidcache_forget_path(c, 0, "/srv/d1b");
		else if (r % 3 == 1)
			fsn_fidcache_forget_fid(c, 0, &top);
		else
			fsn_fidcache_forget_tag(c, 5);
		after = stats(c);
		ck_assert_uint_eq(fsn_fidcache_size(c), UNRELATED);
		/* each entry and node of the subtree once, and its top */
		ck_assert_msg(after.visits - before.visits <= 2 * SUB + 2,
			      "round %u: %" PRIu64 " visits to forget %d entries", r,
			      after.visits - before.visits, SUB);
		ck_assert_uint_ge(after.visits - before.visits, SUB);
	}
	/* nothing of the unrelated entries went, and a miss visits nothing */
	before = stats(c);
	fsn_fidcache_forget_path(c, 0, "/srv/d1b");
	fsn_fidcache_forget_path(c, 0, "/srv/d");
	fsn_fidcache_forget_path(c, 0, "/srv/d1/f");
	fsn_fidcache_forget_path(c, 0, "/srv/d1/f1/x");
	fsn_fidcache_forget_fid(c, 0, &top);
	fsn_fidcache_forget_tag(c, 5);
	after = stats(c);
	ck_assert_uint_eq(after.visits, before.visits);
	ck_assert_uint_eq(fsn_fidcache_size(c), UNRELATED);
	expect(c, 0, 1, "/srv/d1/f1");
	expect(c, 0, UNRELATED - 1, "/srv/d299/f59999");
	/* the index: at most two nodes per path, and a root */
	ck_assert_uint_le(after.nodes, 2 * (size_t)UNRELATED + 1);
	fsn_fidcache_free(c);
}
END_TEST

/*
 * The cache against a model of its contract, the walk over every entry it
 * replaced: random puts, gets and forgets on paths made of the components
 * "", "a", "ab" and "b" (so names that are prefixes of others, empty
 * components, trailing slashes, relative paths), in a cache small enough to
 * evict; every key compared after each step, the index's size bounded.
 */
enum { M_TAGS = 3, M_FIDS = 24, M_MAX = 40, M_STEPS = 6000 };

struct model {
	char path[M_TAGS][M_FIDS][16];
	bool has[M_TAGS][M_FIDS];
	uint64_t used[M_TAGS][M_FIDS], clock;
	size_t n;
};

/* the old walk's test: path is below dir (or dir, if self) */
static bool model_below(const char *path, const char *dir, bool self) {
	size_t n = strlen(dir);

	if (n > 0 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || (self && path[n] == '\0'));
}

static void model_forget(struct model *m, unsigned tag, const char *dir, bool self) {
	for (unsigned i = 0; i < M_FIDS; i++)
		if (m->has[tag][i] && model_below(m->path[tag][i], dir, self)) {
			m->has[tag][i] = false;
			m->n--;
		}
}

static void model_put(struct model *m, unsigned tag, unsigned i, const char *path) {
	if (!m->has[tag][i] && m->n == M_MAX) {
		unsigned ot = 0, oi = 0;
		uint64_t oldest = UINT64_MAX;

		for (unsigned t = 0; t < M_TAGS; t++)
			for (unsigned j = 0; j < M_FIDS; j++)
				if (m->has[t][j] && m->used[t][j] < oldest) {
					oldest = m->used[t][j];
					ot = t;
					oi = j;
				}
		m->has[ot][oi] = false;
		m->n--;
	}
	if (!m->has[tag][i])
		m->n++;
	m->has[tag][i] = true;
	snprintf(m->path[tag][i], sizeof(m->path[tag][i]), "%s", path);
	m->used[tag][i] = ++m->clock;
}

static uint32_t rnd(uint32_t *state) {
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

static void random_path(uint32_t *state, char *buf, size_t len) {
	static const char *const comp[] = { "", "a", "ab", "b" };
	unsigned n = 1 + rnd(state) % 4;
	size_t pos = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < n; k++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", k ? "/" : "",
					comp[rnd(state) % 4]);
}

START_TEST(test_model) {
	struct fsn_fidcache *c = cache(M_MAX);
	struct model *m = calloc(1, sizeof(*m));
	uint32_t state = 0x9e3779b9u;
	char path[16];

	ck_assert_ptr_nonnull(m);
	for (unsigned step = 0; step < M_STEPS; step++) {
		unsigned op = rnd(&state) % 100, tag = rnd(&state) % M_TAGS,
			 i = rnd(&state) % M_FIDS;
		struct fsn_fid f = fid(i);
		struct fsn_fidcache_stats st;

		random_path(&state, path, sizeof(path));
		if (op < 55) {
			put(c, tag, i, path);
			model_put(m, tag, i, path);
		} else if (op < 75) {
			const char *got = fsn_fidcache_get(c, tag, &f);

			ck_assert_int_eq(!!got, m->has[tag][i]);
			if (got) {
				ck_assert_str_eq(got, m->path[tag][i]);
				m->used[tag][i] = ++m->clock;
			}
		} else if (op < 88) {
			fsn_fidcache_forget_path(c, tag, path);
			model_forget(m, tag, path, true);
		} else if (op < 98) {
			fsn_fidcache_forget_fid(c, tag, &f);
			if (m->has[tag][i]) {
				char dir[16];

				memcpy(dir, m->path[tag][i], sizeof(dir));
				m->has[tag][i] = false;
				m->n--;
				model_forget(m, tag, dir, false);
			}
		} else {
			fsn_fidcache_forget_tag(c, tag);
			for (unsigned j = 0; j < M_FIDS; j++)
				if (m->has[tag][j]) {
					m->has[tag][j] = false;
					m->n--;
				}
		}

		/* compared without a get, which would reorder the cache */
		st = stats(c);
		ck_assert_msg(st.entries == m->n, "step %u: %zu entries, model %zu", step,
			      st.entries, m->n);
		ck_assert_msg(st.nodes <= 2 * st.entries + M_TAGS,
			      "step %u: %zu nodes for %zu entries", step, st.nodes, st.entries);
		if (step % 16 == 0) {
			for (unsigned t = 0; t < M_TAGS; t++)
				for (unsigned j = 0; j < M_FIDS; j++) {
					expect(c, t, j, m->has[t][j] ? m->path[t][j] : NULL);
					if (m->has[t][j])
						m->used[t][j] = ++m->clock;
				}
		}
	}
	fsn_fidcache_clear(c);
	ck_assert_uint_eq(stats(c).nodes, 0);
	free(m);
	fsn_fidcache_free(c);
}
END_TEST

START_TEST(test_invalid) {
	struct fsn_fidcache *c = NULL;
	struct fsn_fid big = fid(1), ok = fid(1);

	ck_assert_int_eq(fsn_fidcache_new(0, &c), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(fsn_fidcache_new(4, NULL), -EINVAL);

	c = cache(4);
	big.handle_bytes = FSN_HANDLE_MAX + 1;
	ck_assert_int_eq(fsn_fidcache_put(c, 0, &big, "/too/big"), -EINVAL);
	ck_assert_ptr_null(fsn_fidcache_get(c, 0, &big));
	fsn_fidcache_forget_fid(c, 0, &big);
	ck_assert_int_eq(fsn_fidcache_put(c, 0, NULL, "/p"), -EINVAL);
	ck_assert_int_eq(fsn_fidcache_put(c, 0, &ok, NULL), -EINVAL);
	ck_assert_int_eq(fsn_fidcache_put(NULL, 0, &ok, "/p"), -EINVAL);
	ck_assert_ptr_null(fsn_fidcache_get(c, 0, NULL));
	ck_assert_ptr_null(fsn_fidcache_get(NULL, 0, &ok));
	ck_assert_uint_eq(fsn_fidcache_size(c), 0);

	/* the largest handle is fine */
	big.handle_bytes = FSN_HANDLE_MAX;
	ck_assert_int_eq(fsn_fidcache_put(c, 0, &big, "/max"), 0);
	ck_assert_str_eq(fsn_fidcache_get(c, 0, &big), "/max");
	ck_assert_uint_eq(fsn_fidcache_size(c), 1);

	ck_assert_ptr_null(fsn_fidcache_free(c));
	ck_assert_ptr_null(fsn_fidcache_free(NULL));
	ck_assert_uint_eq(fsn_fidcache_size(NULL), 0);
}
END_TEST

static void fidcache_suite(Suite *s) {
	TCase *tc = tcase_create("fidcache");

	tcase_add_test(tc, test_put_get);
	tcase_add_test(tc, test_update);
	tcase_add_test(tc, test_tags_apart);
	tcase_add_test(tc, test_lru_eviction);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_forget_path);
	tcase_add_test(tc, test_forget_fid);
	tcase_add_test(tc, test_forget_tag_and_clear);
	tcase_add_test(tc, test_forget_subtree_exactly);
	tcase_add_test(tc, test_evict_parent);
	tcase_add_test(tc, test_move_then_forget);
	tcase_add_test(tc, test_forget_cost);
	tcase_add_test(tc, test_model);
	tcase_add_test(tc, test_invalid);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("fidcache", fidcache_suite);
