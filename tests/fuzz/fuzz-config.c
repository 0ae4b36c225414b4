/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-config.c — the fuzz target of the config loader (daemon/conf*.c),
 * and its replay program.
 *
 * An input is up to three files, separated by lines "@@@": main.conf,
 * a.conf, b.conf, written to a private directory that also holds what a
 * hostile include would name: dir/ (a directory), fifo (a FIFO), empty (an
 * empty file). config_load(main.conf) must come back (never exit, never
 * hang on the FIFO) with 0 and a config that has rules, or with -EINVAL
 * and at least one error, every error with a file and a message; nothing
 * leaks (ASan).
 *
 * Built with -DFSN_LIBFUZZER it is a libFuzzer target (meson -Dfuzz=true,
 * CC=clang); without it, it links replay.c:
 *
 *   fuzz-config-replay FILE|DIR...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "replay.h"

static char dir[64];

/* The private directory with its fixed entries, once per process. */
static int setup(void) {
	char p[128];
	int fd;

	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/fsn-fuzz-config-XXXXXX");
	if (!mkdtemp(dir))
		return -errno;
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
	char p[128];
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

int fuzz_one(const uint8_t *data, size_t size) {
	static const char *const names[] = { "main.conf", "a.conf", "b.conf" };
	struct config_errors errs = { 0 };
	struct config *c = NULL;
	const uint8_t *p = data, *end = data + size;
	char path[128];
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
	r = config_load(path, &c, &errs);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0) {
		CHECK(c && c->n_rules > 0 && errs.n == 0);
		for (size_t i = 0; i < c->n_rules; i++)
			CHECK(c->rules[i].name && c->rules[i].n_paths > 0);
	} else {
		CHECK(!c && (errs.n > 0 || r == -ENOMEM));
		for (size_t i = 0; i < errs.n; i++)
			CHECK(errs.v[i].file && errs.v[i].msg);
	}
	config_free(c);
	config_errors_clear(&errs);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (fuzz_one(data, size) < 0)
		abort();
	return 0;
}
