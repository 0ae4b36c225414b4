/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-util.c — helpers shared by the unit test files:
 * temporary directories, tree removal, path joining, template substitution,
 * loading a config text.
 */
#include <errno.h>
#include <ftw.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "conf.h"
#include "unit.h"

void test_tmpdir(char *dir, size_t len) {
	char tmpl[] = "/tmp/fsn-unit-XXXXXX";
	char *real;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_uint_lt(strlen(real), len);
	strcpy(dir, real);
	free(real);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
	return remove(path) < 0 ? -1 : 0;
}

void test_rm_tree(const char *dir) {
	ck_assert_msg(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == 0,
		      "cannot remove %s", dir);
}

void test_join(char *out, size_t len, const char *dir, const char *name) {
	ck_assert_int_lt(snprintf(out, len, "%s/%s", dir, name), (int)len);
}

void test_write(const char *dir, const char *name, const char *text) {
	char path[PATH_MAX];
	FILE *f;

	test_join(path, sizeof(path), dir, name);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

char *test_subst(const char *tmpl, const char *what, const char *with) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	for (const char *p = tmpl; *p;) {
		const char *hit = strstr(p, what);

		if (!hit) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(hit - p), f);
		fputs(with, f);
		p = hit + strlen(what);
	}
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

struct config *test_config_load(const char *dir, const char *tmpl) {
	char *text = test_subst(tmpl, "@D@", dir), path[PATH_MAX];
	struct config_errors e = { 0 };
	struct config *c = NULL;
	FILE *f;

	test_join(path, sizeof(path), dir, "test.conf");
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(text);
	if (config_load(path, &c, &e) < 0) {
		config_errors_print(&e, stderr);
		ck_abort_msg("the test's config does not load");
	}
	config_errors_clear(&e);
	return c;
}

int test_syscall_counter(pid_t tid) {
	static const char *const files[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
	};
	long id = -1;
	int fd;

	if (access(files[0], R_OK) < 0)
		(void)mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && id < 0; i++) {
		FILE *f = fopen(files[i], "re");

		if (f) {
			if (fscanf(f, "%ld", &id) != 1)
				id = -1;
			fclose(f);
		}
	}
	if (id < 0)
		return -ENOENT;
	attr.config = (uint64_t)id;
	fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

uint64_t test_syscall_count(int fd) {
	uint64_t v = 0;

	/* (no ck_assert: Check writes to its pipe for each, which would count) */
	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : UINT64_MAX;
}

bool test_forked(void) {
	const char *e = getenv("CK_FORK");

	return !e || strcmp(e, "no") != 0;
}

bool test_must_run(void) {
	const char *e = getenv("FSN_TESTS_MUST_RUN");

	return e && strcmp(e, "1") == 0;
}
