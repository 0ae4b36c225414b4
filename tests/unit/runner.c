/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runner.c — the one Check runner for the unit suite.
 *
 * Suites register themselves (FSN_UNIT_SUITE() in unit.h): the runner
 * reads their records from the section fsn_unit_suites and runs them in
 * the order of their names. A suite that needs root is skipped with its
 * reason when not run as root. A forked test that exits with status 77
 * (fsn_test_skip()) counts as skipped. The last line is "N passed, N
 * failed, N skipped"; the exit status is 0 (all passed), 1 (a failure) or
 * 77 (everything skipped).
 *
 * Usage: fsn-unit [SUITE...]   (default: all suites)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

/* Where the linker put the FSN_UNIT_SUITE() records of every file. */
extern const struct fsn_unit_suite *const __start_fsn_unit_suites[];
extern const struct fsn_unit_suite *const __stop_fsn_unit_suites[];

static int by_name(const void *a, const void *b) {
	const struct fsn_unit_suite *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Every registered suite, sorted by name: the order they run in, whatever
 * the link order. NULL (with the reason on stderr) if two have one name. */
static const struct fsn_unit_suite **sorted_suites(size_t *n) {
	size_t len = (size_t)(__stop_fsn_unit_suites - __start_fsn_unit_suites);
	const struct fsn_unit_suite **v = calloc(len + 1, sizeof(*v));

	if (!v) {
		fprintf(stderr, "out of memory\n");
		return NULL;
	}
	memcpy(v, __start_fsn_unit_suites, len * sizeof(*v));
	qsort(v, len, sizeof(*v), by_name);
	for (size_t i = 1; i < len; i++)
		if (strcmp(v[i - 1]->name, v[i]->name) == 0) {
			fprintf(stderr, "two suites are named %s\n", v[i]->name);
			free(v);
			return NULL;
		}
	*n = len;
	return v;
}

static bool wanted(const char *name, int argc, char **argv) {
	if (argc <= 1)
		return true;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

/* Check reports a forked test's exit(77) as an error with this message. */
static bool is_skip(TestResult *tr) {
	char expected[64];

	if (tr_rtype(tr) != CK_ERROR)
		return false;
	snprintf(expected, sizeof(expected), "Early exit with return value %d",
		 FSN_TEST_SKIP_STATUS);
	return tr_msg(tr) && strcmp(tr_msg(tr), expected) == 0;
}

int main(int argc, char **argv) {
	unsigned passed = 0, failed = 0, skipped = 0;
	const struct fsn_unit_suite **suites;
	size_t n_suites;

	suites = sorted_suites(&n_suites);
	if (!suites)
		return 1;
	for (size_t i = 0; i < n_suites; i++) {
		const struct fsn_unit_suite *e = suites[i];
		SRunner *sr;
		Suite *s;
		TestResult **results;
		int n;

		if (!wanted(e->name, argc, argv))
			continue;
		if (e->needs_root && geteuid() != 0) {
			printf("SKIP suite %s: needs root (CAP_SYS_ADMIN for fanotify)\n", e->name);
			skipped++;
			continue;
		}

		s = suite_create(e->name);
		e->add(s);
		sr = srunner_create(s);
		srunner_run_all(sr, CK_ENV);
		n = srunner_ntests_run(sr);
		results = srunner_results(sr);
		for (int j = 0; j < n; j++) {
			if (tr_rtype(results[j]) == CK_PASS)
				passed++;
			else if (is_skip(results[j])) {
				printf("SKIP %s:%s\n", e->name, tr_tcname(results[j]));
				skipped++;
			} else
				failed++;
		}
		free(results);
		srunner_free(sr);
	}
	free(suites);

	printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
	if (failed > 0)
		return 1;
	if (passed == 0 && skipped > 0)
		return 77;
	return 0;
}
