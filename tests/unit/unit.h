/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h — what the unit test files share: how a suite registers itself
 * with the runner (runner.c), the skip status, and helpers (unit-util.c).
 */
#pragma once

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

/* A suite as the runner finds it: the name "fsn-unit NAME" selects (Check's
 * suite name too), the function that adds its test cases, and whether it
 * needs root (else it is skipped, saying so). */
struct fsn_unit_suite {
	const char *name;
	void (*add)(Suite *s);
	bool needs_root;
};

/*
 * Register a suite, at file scope after its function:
 *
 *	static void mask_suite(Suite *s) {
 *		TCase *tc = tcase_create("mask");
 *		...
 *		suite_add_tcase(s, tc);
 *	}
 *	FSN_UNIT_SUITE("mask", mask_suite);
 *
 * A pointer to the suite's record goes into the ELF section
 * fsn_unit_suites, which the linker brackets with __start_fsn_unit_suites
 * and __stop_fsn_unit_suites: the runner finds every suite linked in, and
 * adding one takes its file and a line in meson.build. Pointers, not the
 * records, so that nothing pads the section between entries.
 */
#define FSN_UNIT_SUITE(name, fn) FSN_UNIT_SUITE_(name, fn, false)
/* The same for a suite that needs root (CAP_SYS_ADMIN for fanotify). */
#define FSN_UNIT_SUITE_ROOT(name, fn) FSN_UNIT_SUITE_(name, fn, true)

#define FSN_UNIT_SUITE_(name_, fn_, needs_root_)                                                   \
	static const struct fsn_unit_suite fsn_unit_suite_##fn_ = { (name_), fn_, (needs_root_) }; \
	static const struct fsn_unit_suite *const fsn_unit_suite_ptr_##fn_                         \
	    __attribute__((section("fsn_unit_suites"), used)) = &fsn_unit_suite_##fn_

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
/* dir/name written with text (made, or truncated first). */
void test_write(const char *dir, const char *name, const char *text);
/* tmpl with every "what" replaced by "with" (malloc'd). */
char *test_subst(const char *tmpl, const char *what, const char *with);
/* The config text tmpl, "@D@" standing for dir, written to dir/test.conf and
 * loaded; a config that does not load fails the test (its errors on stderr). */
struct config;
struct config *test_config_load(const char *dir, const char *tmpl);

/* Whether tests run forked (CK_FORK is not "no": a skip is possible). */
bool test_forked(void);
/* Whether a skip is a failure (FSN_TESTS_MUST_RUN=1, as in CI). */
bool test_must_run(void);

/* A counter of the system calls thread tid makes from now on (a perf
 * event on the raw_syscalls:sys_enter tracepoint; tracefs is mounted if it
 * is not, so call it in a mount namespace of the test's own): an fd, or
 * -errno (-ENOENT: no such tracepoint), for the caller to skip on. */
int test_syscall_counter(pid_t tid);
/* What the counter counted so far (UINT64_MAX: unreadable). It does not
 * ck_assert, nor must the code measured: each assertion is a write. */
uint64_t test_syscall_count(int fd);
