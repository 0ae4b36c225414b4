/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-util.c — the "util" suite: daemon/util.c's struct strmap, the hash
 * map the planner and the reload diff rely on for O(1) lookups: byte keys
 * (composite keys with NUL bytes inside), several values under one key in
 * order, growth past many rehashes with every entry still found.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "util.h"

START_TEST(test_strmap_basic) {
	struct strmap m = { 0 };
	static const char k1[] = "a\0b", k2[] = "a\0c";

	ck_assert_ptr_null(strmap_get(&m, "x", 1)); /* an empty map */
	ck_assert_ptr_null(strmap_value_str(&m, "x"));
	ck_assert_int_eq(strmap_put(&m, k1, sizeof(k1), (void *)1), 0);
	ck_assert_int_eq(strmap_put(&m, k2, sizeof(k2), (void *)2), 0);
	ck_assert_ptr_eq(strmap_value(&m, k1, sizeof(k1)), (void *)1);
	ck_assert_ptr_eq(strmap_value(&m, k2, sizeof(k2)), (void *)2);
	/* "a" alone is another key than "a\0b" */
	ck_assert_ptr_null(strmap_value(&m, "a", 1));
	ck_assert_ptr_null(strmap_value(&m, k1, 2));
	ck_assert_uint_eq(m.n, 2);
	strmap_done(&m);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_ptr_null(strmap_get(&m, k1, sizeof(k1)));
}
END_TEST

/* Equal keys: the last put first, strmap_next() to the ones before, in
 * order, also after the table grew (rehashes keep the order). */
START_TEST(test_strmap_duplicates) {
	struct strmap m = { 0 };
	char keys[3000][16];
	struct strmap_entry *e;
	uintptr_t want = 5;

	for (uintptr_t i = 1; i <= 5; i++)
		ck_assert_int_eq(strmap_put_str(&m, "/same/path", (void *)i), 0);
	for (size_t i = 0; i < 3000; i++) { /* many rehashes */
		snprintf(keys[i], sizeof(keys[i]), "/k/%zu", i);
		ck_assert_int_eq(strmap_put_str(&m, keys[i], (void *)(uintptr_t)(i + 100)), 0);
	}
	for (e = strmap_get(&m, "/same/path", strlen("/same/path")); e; e = strmap_next(e))
		ck_assert_ptr_eq(e->value, (void *)want--);
	ck_assert_uint_eq(want, 0);
	for (size_t i = 0; i < 3000; i++)
		ck_assert_ptr_eq(strmap_value_str(&m, keys[i]), (void *)(uintptr_t)(i + 100));
	ck_assert_ptr_null(strmap_value_str(&m, "/k/3000"));
	ck_assert_uint_eq(m.n, 3005);
	ck_assert_uint_ge(m.n_buckets, m.n); /* about one entry per bucket */
	strmap_done(&m);
}
END_TEST

Suite *fsn_suite_util(void) {
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("strmap");

	tcase_add_test(tc, test_strmap_basic);
	tcase_add_test(tc, test_strmap_duplicates);
	suite_add_tcase(s, tc);
	return s;
}
