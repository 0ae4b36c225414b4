/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memcg.c — a memory cgroup per consumer: the kernel memory its queued
 * events take (see memcg.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsn-util.h"
#include "memcg.h"
#include "util.h"

/* A cgroup file's text (they report a size of 0 or 4096: read to EOF). */
static int read_small(const char *path, char *buf, size_t len) {
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t have = 0;

	if (fd < 0)
		return negative_errno();
	while (have + 1 < len) {
		ssize_t n = read(fd, buf + have, len - 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			break;
		have += (size_t)n;
	}
	buf[have] = '\0';
	return 0;
}

static int write_small(const char *path, const char *text) {
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0)
		return negative_errno();
	return write(fd, text, len) == (ssize_t)len ? 0 : negative_errno();
}

static bool has_word(const char *text, const char *word) {
	size_t len = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += len)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/* The mount point of the memory controller: a v1 "memory" hierarchy, or a
 * cgroup2 mount whose root hands memory to its children. */
static int find_mount(char *ret, size_t len, int *ret_version, const char **why) {
	char path[256], text[512];
	struct mntent ent, *e;
	char buf[1024];
	FILE *f = setmntent("/proc/self/mounts", "re");
	int version = 0;

	*why = "no memory cgroup mounted";
	if (!f)
		return -ENOENT;
	while ((e = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (strcmp(e->mnt_type, "cgroup") == 0 && hasmntopt(e, "memory")) {
			snprintf(ret, len, "%s", e->mnt_dir);
			version = 1;
			break;
		}
		if (strcmp(e->mnt_type, "cgroup2") == 0 && version == 0) {
			snprintf(path, sizeof(path), "%s/cgroup.subtree_control", e->mnt_dir);
			if (read_small(path, text, sizeof(text)) == 0 && has_word(text, "memory")) {
				snprintf(ret, len, "%s", e->mnt_dir);
				version = 2; /* (a v1 memory hierarchy, later, wins) */
			} else {
				*why = "cgroup2 without memory for its children";
			}
		}
	}
	endmntent(f);
	*ret_version = version;
	return version ? 0 : -ENOENT;
}

/* The cgroup's kernel memory now, in bytes. */
static int kernel_bytes(const struct bench_memcg *m, uint64_t *ret) {
	char path[320], text[8192];
	const char *p;
	int r;

	if (m->version == 1) {
		snprintf(path, sizeof(path), "%s/memory.kmem.usage_in_bytes", m->dir);
		r = read_small(path, text, sizeof(text));
		if (r == 0 && sscanf(text, "%" SCNu64, ret) != 1)
			r = -EINVAL;
		return r;
	}
	snprintf(path, sizeof(path), "%s/memory.stat", m->dir);
	r = read_small(path, text, sizeof(text));
	if (r < 0)
		return r;
	p = strncmp(text, "kernel ", 7) == 0 ? text : strstr(text, "\nkernel ");
	if (!p)
		p = strncmp(text, "slab ", 5) == 0 ? text : strstr(text, "\nslab ");
	if (!p)
		return -EINVAL;
	p += *p == '\n';
	return sscanf(strchr(p, ' '), "%" SCNu64, ret) == 1 ? 0 : -EINVAL;
}

int bench_memcg_create(struct bench_memcg *m, const char *tag) {
	char mnt[128];
	int r;

	*m = (struct bench_memcg){ .sampler = -1 };
	r = find_mount(mnt, sizeof(mnt), &m->version, &m->why);
	if (r < 0)
		return r;
	snprintf(m->dir, sizeof(m->dir), "%s/fsn-bench-%d-%s", mnt, (int)getpid(), tag);
	(void)rmdir(m->dir); /* (a leftover of a run that was killed) */
	if (mkdir(m->dir, 0700) < 0) {
		r = negative_errno();
		m->why = "cannot create a memory cgroup";
		m->dir[0] = '\0';
		return r;
	}
	return 0;
}

int bench_memcg_join_self(const struct bench_memcg *m) {
	char path[320];

	if (!m->dir[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/cgroup.procs", m->dir);
	return write_small(path, "0");
}

static void sampler_main(const struct bench_memcg *m, uint64_t *peak) {
	const struct timespec ts = { .tv_nsec = BENCH_MEMCG_SAMPLE_MS * 1000000L };

	for (;;) {
		uint64_t v;

		if (kernel_bytes(m, &v) == 0 && v > __atomic_load_n(peak, __ATOMIC_RELAXED))
			__atomic_store_n(peak, v, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
	}
}

int bench_memcg_arm(struct bench_memcg *m) {
	char path[320];
	int r;

	if (!m->dir[0])
		return -ENOENT;
	r = kernel_bytes(m, &m->base);
	if (r < 0)
		return r;
	if (m->version == 1) {
		snprintf(path, sizeof(path), "%s/memory.kmem.max_usage_in_bytes", m->dir);
		return write_small(path, "0");
	}
	if (!m->peak) {
		m->peak = mmap(NULL, sizeof(*m->peak), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m->peak == MAP_FAILED) {
			m->peak = NULL;
			return negative_errno();
		}
	}
	*m->peak = m->base;
	m->sampler = fork();
	if (m->sampler < 0)
		return negative_errno();
	if (m->sampler == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sampler_main(m, m->peak);
	}
	return 0;
}

int bench_memcg_peak(struct bench_memcg *m, uint64_t *ret) {
	char path[320], text[64];
	uint64_t peak;
	int r;

	if (!m->dir[0])
		return -ENOENT;
	if (m->version == 1) {
		snprintf(path, sizeof(path), "%s/memory.kmem.max_usage_in_bytes", m->dir);
		r = read_small(path, text, sizeof(text));
		if (r < 0)
			return r;
		if (sscanf(text, "%" SCNu64, &peak) != 1)
			return -EINVAL;
	} else {
		if (m->sampler <= 0)
			return -ESRCH;
		peak = __atomic_load_n(m->peak, __ATOMIC_RELAXED);
	}
	*ret = peak > m->base ? peak - m->base : 0;
	return 0;
}

void bench_memcg_destroy(struct bench_memcg *m) {
	if (m->sampler > 0) {
		kill(m->sampler, SIGKILL);
		(void)bench_wait_pid(m->sampler);
		m->sampler = -1;
	}
	if (m->peak)
		munmap(m->peak, sizeof(*m->peak));
	m->peak = NULL;
	if (m->dir[0])
		(void)rmdir(m->dir);
	m->dir[0] = '\0';
}
