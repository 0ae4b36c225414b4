/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runner.c — the one Check runner for the unit suite.
 *
 * Suites are registered in the table below. A suite that needs root is
 * skipped with its reason when not run as root. A forked test that exits
 * with status 77 (fsn_test_skip()) counts as skipped. The last line is
 * "N passed, N failed, N skipped"; the exit status is 0 (all passed), 1 (a
 * failure) or 77 (everything skipped).
 *
 * Usage: fsn-unit [SUITE...]   (default: all suites)
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

struct suite_entry {
	const char *name;
	Suite *(*make)(void);
	bool needs_root;
};

static const struct suite_entry suites[] = {
	/* clang-format off */
	{ "mask", fsn_suite_mask, false },
	{ "probe", fsn_suite_probe, false },
	{ "decode", fsn_suite_decode, false },
	{ "path", fsn_suite_path, false },
	{ "fidcache", fsn_suite_fidcache, false },
	{ "ctx", fsn_suite_ctx, false },
	{ "ctx-fanotify", fsn_suite_ctx_fanotify, true },
	{ "config", fsn_suite_config, false },
	{ "plan", fsn_suite_plan, false },
	{ "util", fsn_suite_util, false },
	{ "escape", fsn_suite_escape, false },
	{ "policy", fsn_suite_policy, false },
	/* clang-format on */
};

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

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		const struct suite_entry *e = &suites[i];
		SRunner *sr;
		TestResult **results;
		int n;

		if (!wanted(e->name, argc, argv))
			continue;
		if (e->needs_root && geteuid() != 0) {
			printf("SKIP suite %s: needs root (CAP_SYS_ADMIN for fanotify)\n", e->name);
			skipped++;
			continue;
		}

		sr = srunner_create(e->make());
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

	printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
	if (failed > 0)
		return 1;
	if (passed == 0 && skipped > 0)
		return 77;
	return 0;
}
