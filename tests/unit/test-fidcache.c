/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-fidcache.c — the "fidcache" suite: struct fsn_fidcache, the bounded
 * (tag, FID) -> path LRU map behind fsn_ctx_fid_path() and
 * fsn_ctx_event_dir_path(); internal to libfsn (fidcache-private.h, the
 * static library). Pure memory: no privileges needed.
 */
#include <errno.h>
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
	tcase_add_test(tc, test_invalid);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("fidcache", fidcache_suite);
