/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c — small helpers shared by the benchmark subcommands: clocks and
 * removal of the private scratch directory.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "bench-private.h"

uint64_t bench_now_ns(clockid_t clk) {
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bench_env_enter(char *base, size_t len, const char *tmpl) {
	if (unshare(CLONE_NEWNS) < 0)
		return negative_errno();
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return negative_errno();
	snprintf(base, len, "%s", tmpl);
	if (!mkdtemp(base))
		return negative_errno();
	if (mount("fsn-bench", base, "tmpfs", 0, "mode=0700,size=4m") < 0)
		return negative_errno();
	return 0;
}

void bench_env_teardown(const char *base) {
	char path[4096];
	struct dirent *de;
	DIR *d;

	/* Not created (still the mkdtemp template), or never set. */
	if (!base || !base[0] || strchr(base, 'X'))
		return;
	/* The tmpfs mounts sit on directories directly below base; they live
	 * in the benchmark's private mount namespace, but the directories are
	 * on the host's /tmp: detach each mount, then remove the directories. */
	(void)umount2(base, MNT_DETACH);
	d = opendir(base);
	if (d) {
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
			(void)umount2(path, MNT_DETACH);
			(void)rmdir(path);
		}
		closedir(d);
	}
	(void)rmdir(base);
}

int bench_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max || s[0] == '-') {
		if (max == UINT64_MAX)
			fprintf(stderr, "fsn-bench: invalid %s '%s' (at least %" PRIu64 ")\n", what,
				s, min);
		else
			fprintf(stderr, "fsn-bench: invalid %s '%s' (%" PRIu64 "..%" PRIu64 ")\n",
				what, s, min, max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}
