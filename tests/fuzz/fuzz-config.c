/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-config.c — the fuzz target of the config loader (daemon/conf*.c),
 * and its replay program.
 *
 * An input is up to three files, separated by lines "@@@": main.conf,
 * a.conf, b.conf, written to a private directory (under $TMPDIR, else
 * /tmp; removed at exit) that also holds what a hostile include would
 * name: dir/ (a directory), fifo (a FIFO), empty (an empty file).
 * Loading main.conf must come back (never exit, never hang on the FIFO)
 * with 0 and a config that has rules, or with -EINVAL and at least one
 * error, every error with a file and a message (never -ENOMEM: nothing
 * runs out here); nothing leaks (ASan).
 *
 * Built with -DFSN_LIBFUZZER it is a libFuzzer target (meson -Dfuzz=true,
 * CC=clang) that loads with CONFIG_LOAD_IN_PROCESS: no child process
 * parses the files first, so libFuzzer sees the whole load (a child's
 * parse is lost to its coverage, and a fork per file held it to 20 to
 * 40 runs a second). libconfig leaks what it read of a file that does not
 * parse (why the daemon has the child): allocations made inside
 * libconfig are this target's LSan suppression, every other leak is a
 * finding. Since that leak would make libFuzzer run its leak check after
 * most inputs (about 6 times slower, until it gives up after 1000), the
 * target starts libFuzzer with -detect_leaks=0 unless the command line
 * says otherwise: leaks are then found by LSan at exit (a FAIL with the
 * stack, without the input) and per input by the replay under ASan.
 *
 * Without it, it links replay.c:
 *
 *   fuzz-config-replay FILE|DIR...
 *
 * and loads each input both ways: as the daemon does (config_load(),
 * leaks checked under ASan) and in-process (libconfig's leak not counted:
 * LSan is off around it), and checks that they agree (the same result,
 * the same errors at the same file:line, the same rules), so what the
 * fuzzer sees is what the daemon does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "replay.h"

static const char *const names[] = { "main.conf", "a.conf", "b.conf", "fifo", "empty" };
static char dir[PATH_MAX - 64];

/* At exit: the private directory and what is in it. */
static void cleanup(void) {
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/dir", dir);
	rmdir(p);
	rmdir(dir);
}

/* The private directory with its fixed entries, once per process. */
static int setup(void) {
	const char *tmp = getenv("TMPDIR");
	char p[PATH_MAX];
	int fd;

	if (dir[0])
		return 0;
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(dir, sizeof(dir), "%s/fsn-fuzz-config-XXXXXX", tmp) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -errno;
	}
	atexit(cleanup);
	snprintf(p, sizeof(p), "%s/dir", dir);
	if (mkdir(p, 0755) < 0)
		return -errno;
	snprintf(p, sizeof(p), "%s/fifo", dir);
	if (mkfifo(p, 0644) < 0)
		return -errno;
	snprintf(p, sizeof(p), "%s/empty", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int write_part(const char *name, const uint8_t *data, size_t size) {
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	if (!f)
		return -errno;
	if (size > 0 && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) == 0 ? 0 : -errno;
}

/* What one load gave must be consistent. Never -ENOMEM: no allocation
 * fails here, and the loader also says it when it ran out of fds (as a
 * file including itself three times did, before includes were bounded). */
static int check_result(int r, const struct config *c, const struct config_errors *errs) {
	CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		CHECK(c && c->n_rules > 0 && errs->n == 0);
		for (size_t i = 0; i < c->n_rules; i++)
			CHECK(c->rules[i].name && c->rules[i].n_paths > 0);
	} else {
		CHECK(!c && errs->n > 0);
		for (size_t i = 0; i < errs->n; i++)
			CHECK(errs->v[i].file && errs->v[i].msg);
	}
	return 0;
}

#ifdef FSN_LIBFUZZER
/* libconfig's allocations (its leak of a file that does not parse). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
	return "leak:libconfig.so\n";
}

/* (and no table of them at exit) */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
	return "print_suppressions=0";
}

/* -detect_leaks=0 first, so that a -detect_leaks on the command line,
 * parsed after it, wins. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
	static char flag[] = "-detect_leaks=0";
	char **v = calloc((size_t)*argc + 2, sizeof(char *));

	if (!v || *argc < 1) {
		free(v);
		return 0;
	}
	v[0] = (*argv)[0];
	v[1] = flag;
	memcpy(v + 2, *argv + 1, (size_t)(*argc - 1) * sizeof(char *));
	*argv = v;
	*argc += 1;
	fprintf(stderr, "INFO: fuzz-config: -detect_leaks=0 unless given (libconfig leaks on "
			"input that does not parse); LSan still checks at exit\n");
	return 0;
}
#else
/* LSan's switch, when there is LSan (ASan builds). */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static bool same_str(const char *a, const char *b) {
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The daemon's load and the in-process one agree. */
static int check_same(int r, const struct config *c, const struct config_errors *errs, int r2,
		      const struct config *c2, const struct config_errors *errs2) {
	CHECK(r == r2);
	CHECK(errs->n == errs2->n);
	for (size_t i = 0; i < errs->n; i++) {
		CHECK(same_str(errs->v[i].file, errs2->v[i].file));
		CHECK(errs->v[i].line == errs2->v[i].line);
		CHECK(same_str(errs->v[i].msg, errs2->v[i].msg));
	}
	CHECK(!c == !c2);
	if (c) {
		CHECK(c->n_rules == c2->n_rules && c->n_outputs == c2->n_outputs);
		for (size_t i = 0; i < c->n_rules; i++)
			CHECK(same_str(c->rules[i].name, c2->rules[i].name) &&
			      c->rules[i].n_paths == c2->rules[i].n_paths);
		for (size_t i = 0; i < c->n_outputs; i++)
			CHECK(same_str(c->outputs[i].name, c2->outputs[i].name));
	}
	return 0;
}
#endif

int fuzz_one(const uint8_t *data, size_t size) {
	struct config_errors errs = { 0 };
	struct config *c = NULL;
	const uint8_t *p = data, *end = data + size;
	char path[PATH_MAX];
	int r;

	CHECK(setup() == 0);
	for (size_t i = 0; i < 3; i++) {
		const uint8_t *sep = NULL;

		for (const uint8_t *q = p; q + 4 <= end && !sep; q++)
			if (memcmp(q, "@@@\n", 4) == 0 && (q == data || q[-1] == '\n'))
				sep = q;
		CHECK(write_part(names[i], p, (size_t)((sep && i < 2 ? sep : end) - p)) == 0);
		p = sep && i < 2 ? sep + 4 : end;
	}
	snprintf(path, sizeof(path), "%s/main.conf", dir);
#ifdef FSN_LIBFUZZER
	r = config_load_flags(path, CONFIG_LOAD_IN_PROCESS, &c, &errs);
	CHECK(check_result(r, c, &errs) == 0);
#else
	{
		struct config_errors errs2 = { 0 };
		struct config *c2 = NULL;
		int r2, k;

		r = config_load(path, &c, &errs);
		CHECK(check_result(r, c, &errs) == 0);
		if (__lsan_disable)
			__lsan_disable();
		r2 = config_load_flags(path, CONFIG_LOAD_IN_PROCESS, &c2, &errs2);
		if (__lsan_enable)
			__lsan_enable();
		k = check_same(r, c, &errs, r2, c2, &errs2);
		config_free(c2);
		config_errors_clear(&errs2);
		CHECK(k == 0);
	}
#endif
	config_free(c);
	config_errors_clear(&errs);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (fuzz_one(data, size) < 0)
		abort();
	return 0;
}
