/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h — the suites of the unit test runner (tests/unit/runner.c) and
 * helpers the test files share.
 */
#pragma once

#include <check.h>
#include <stdlib.h>

/* Each test-*.c file provides one or more of these. */
Suite *fsn_suite_mask(void);
Suite *fsn_suite_probe(void);
Suite *fsn_suite_decode(void);
Suite *fsn_suite_path(void);
Suite *fsn_suite_fidcache(void);
Suite *fsn_suite_ctx(void);
Suite *fsn_suite_ctx_fanotify(void);
/* the daemon's pieces (daemon/) */
Suite *fsn_suite_config(void);
Suite *fsn_suite_plan(void);
Suite *fsn_suite_util(void);
Suite *fsn_suite_escape(void);
Suite *fsn_suite_policy(void);

/* Exit status a forked test uses to say "skipped"; the runner counts it
 * as a skip, not a failure (see runner.c). */
#define FSN_TEST_SKIP_STATUS 77

/* Skip the running test with a reason (printed to stderr). Only valid in a
 * forked test (CK_FORK=yes, the default). */
#define fsn_test_skip(...)                                                                         \
	do {                                                                                       \
		fprintf(stderr, "SKIP %s: ", __func__);                                            \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		exit(FSN_TEST_SKIP_STATUS);                                                        \
	} while (0)

/* Helpers shared by the test files (unit-util.c); they ck_assert on failure. */

/* A fresh directory under /tmp, canonical path, removed by test_rm_tree(). */
void test_tmpdir(char *dir, size_t len);
/* Remove a directory tree (no symlinks followed, no shell). */
void test_rm_tree(const char *dir);
/* out = dir + "/" + name, asserting it fits. */
void test_join(char *out, size_t len, const char *dir, const char *name);
/* tmpl with every "what" replaced by "with" (malloc'd). */
char *test_subst(const char *tmpl, const char *what, const char *with);
/* The config text tmpl, "@D@" standing for dir, written to dir/test.conf and
 * loaded; a config that does not load fails the test (its errors on stderr). */
struct config;
struct config *test_config_load(const char *dir, const char *tmpl);
