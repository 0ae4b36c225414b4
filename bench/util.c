/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c — small helpers shared by the benchmark subcommands: clocks and
 * removal of the private scratch directory.
 */
#include <dirent.h>
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
