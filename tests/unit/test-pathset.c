/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-pathset.c — the "pathset" suite: daemon/pathset.c, which decides
 * for exclusions, policy scopes and decision paths whether a set covers a
 * path. Each kind of entry alone, at the root and below it; names that
 * share a prefix without being below ("/a/bc" is not under "/a/b");
 * patterns; and, over every path of a small tree and random sets, the same
 * answers as path_in() taken entry by entry (what the daemon did before).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathset.h"
#include "unit.h"
#include "util.h"

START_TEST(test_pathset_empty) {
	struct pathset s = { 0 };

	ck_assert(pathset_empty(&s));
	ck_assert(!pathset_has(&s, "/"));
	ck_assert(!pathset_has(&s, "/a"));
	ck_assert(!pathset_has(&s, NULL));
	ck_assert_int_eq(pathset_add(&s, "a/b", PATHSET_TREE), -EINVAL);
	ck_assert(pathset_empty(&s));
	pathset_done(&s);
}
END_TEST

START_TEST(test_pathset_tree) {
	struct pathset s = { 0 };

	ck_assert_int_eq(pathset_add(&s, "/a/b", PATHSET_TREE), 0);
	ck_assert(!pathset_empty(&s));
	ck_assert(pathset_has(&s, "/a/b"));
	ck_assert(pathset_has(&s, "/a/b/c"));
	ck_assert(pathset_has(&s, "/a/b/c/d/e"));
	ck_assert(!pathset_has(&s, "/a"));
	ck_assert(!pathset_has(&s, "/"));
	ck_assert(!pathset_has(&s, "/a/bc"));
	ck_assert(!pathset_has(&s, "/a/bc/d"));
	ck_assert(!pathset_has(&s, "/a/c/b"));
	ck_assert(!pathset_has(&s, "/x/a/b"));
	pathset_done(&s);
}
END_TEST

START_TEST(test_pathset_kinds) {
	struct pathset s = { 0 };

	ck_assert_int_eq(pathset_add(&s, "/self", PATHSET_SELF), 0);
	ck_assert_int_eq(pathset_add(&s, "/kids", PATHSET_CHILDREN), 0);
	ck_assert_int_eq(pathset_add(&s, "/below", PATHSET_BELOW), 0);
	ck_assert(pathset_has(&s, "/self"));
	ck_assert(!pathset_has(&s, "/self/x"));
	ck_assert(!pathset_has(&s, "/kids"));
	ck_assert(pathset_has(&s, "/kids/x"));
	ck_assert(!pathset_has(&s, "/kids/x/y"));
	ck_assert(!pathset_has(&s, "/below"));
	ck_assert(pathset_has(&s, "/below/x"));
	ck_assert(pathset_has(&s, "/below/x/y"));
	/* added again: the union */
	ck_assert_int_eq(pathset_add(&s, "/kids", PATHSET_SELF), 0);
	ck_assert(pathset_has(&s, "/kids"));
	ck_assert(pathset_has(&s, "/kids/x"));
	ck_assert(!pathset_has(&s, "/kids/x/y"));
	pathset_done(&s);
}
END_TEST

START_TEST(test_pathset_root) {
	static const struct {
		unsigned cover;
		bool root, child, grandchild;
	} cases[] = {
		{ PATHSET_SELF, true, false, false },
		{ PATHSET_CHILDREN, false, true, false },
		{ PATHSET_BELOW, false, true, true },
		{ PATHSET_TREE, true, true, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pathset s = { 0 };

		ck_assert_int_eq(pathset_add(&s, "/", cases[i].cover), 0);
		ck_assert_msg(pathset_has(&s, "/") == cases[i].root, "case %zu", i);
		ck_assert_msg(pathset_has(&s, "/x") == cases[i].child, "case %zu", i);
		ck_assert_msg(pathset_has(&s, "/x/y") == cases[i].grandchild, "case %zu", i);
		pathset_done(&s);
	}
}
END_TEST

START_TEST(test_pathset_patterns) {
	struct pathset s = { 0 };

	ck_assert_int_eq(pathset_add_pattern(&s, "*.log"), 0);
	ck_assert_int_eq(pathset_add_pattern(&s, "/srv/cache"), 0);
	ck_assert(pathset_has(&s, "/var/x.log"));
	ck_assert(pathset_has(&s, "/var/a/b.log")); /* '*' also matches '/' */
	ck_assert(!pathset_has(&s, "/var/x.log2"));
	ck_assert(pathset_has(&s, "/srv/cache"));
	ck_assert(pathset_has(&s, "/srv/cache/x"));
	ck_assert(!pathset_has(&s, "/srv/cached"));
	/* a tree walk prunes by paths only */
	ck_assert(!pathset_has_path(&s, "/var/x.log"));
	ck_assert(pathset_has_path(&s, "/srv/cache/x"));
	pathset_done(&s);
}
END_TEST

/* What the daemon decided before, entry by entry. */
static bool reference(char *const *paths, const unsigned *cover, size_t n, const char *path) {
	for (size_t i = 0; i < n; i++) {
		if ((cover[i] & PATHSET_SELF) && strcmp(path, paths[i]) == 0)
			return true;
		if ((cover[i] & PATHSET_BELOW) && path_in(path, paths[i], true, false))
			return true;
		if ((cover[i] & PATHSET_CHILDREN) && path_in(path, paths[i], false, false))
			return true;
	}
	return false;
}

START_TEST(test_pathset_as_path_in) {
	/* every path of a small tree whose names share prefixes */
	static const char *const names[] = { "a", "ab", "b" };
	char *all[1 + 3 + 9 + 27];
	size_t n_all = 0;

	all[n_all++] = strdup("/");
	for (size_t i = 0; i < 3; i++) {
		char p[64];

		snprintf(p, sizeof(p), "/%s", names[i]);
		all[n_all++] = strdup(p);
		for (size_t j = 0; j < 3; j++) {
			snprintf(p, sizeof(p), "/%s/%s", names[i], names[j]);
			all[n_all++] = strdup(p);
			for (size_t k = 0; k < 3; k++) {
				snprintf(p, sizeof(p), "/%s/%s/%s", names[i], names[j], names[k]);
				all[n_all++] = strdup(p);
			}
		}
	}
	srand(1);
	for (unsigned round = 0; round < 2000; round++) {
		struct pathset s = { 0 };
		char *paths[4];
		unsigned cover[4];
		size_t n = 1 + (size_t)rand() % 4;

		for (size_t i = 0; i < n; i++) {
			paths[i] = all[(size_t)rand() % n_all];
			cover[i] = 1 + (unsigned)rand() % 7;
			ck_assert_int_eq(pathset_add(&s, paths[i], cover[i]), 0);
		}
		for (size_t q = 0; q < n_all; q++)
			ck_assert_msg(pathset_has(&s, all[q]) == reference(paths, cover, n, all[q]),
				      "round %u: %s", round, all[q]);
		pathset_done(&s);
	}
	for (size_t i = 0; i < n_all; i++)
		free(all[i]);
}
END_TEST

static void pathset_suite(Suite *s) {
	TCase *tc = tcase_create("pathset");

	tcase_add_test(tc, test_pathset_empty);
	tcase_add_test(tc, test_pathset_tree);
	tcase_add_test(tc, test_pathset_kinds);
	tcase_add_test(tc, test_pathset_root);
	tcase_add_test(tc, test_pathset_patterns);
	tcase_add_test(tc, test_pathset_as_path_in);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("pathset", pathset_suite);
