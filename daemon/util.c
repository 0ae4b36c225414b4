/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c — see util.h. */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

bool path_in(const char *path, const char *dir, bool recursive, bool self) {
	size_t n = strlen(dir);
	const char *rest;

	if (n == 1 && dir[0] == '/')
		n = 0;
	if (strncmp(path, dir, n) != 0)
		return false;
	rest = path + n;
	if (*rest == '\0' || (n == 0 && strcmp(rest, "/") == 0))
		return self;
	if (*rest != '/' || rest[1] == '\0')
		return false;
	return recursive || !strchr(rest + 1, '/');
}

bool is_glob(const char *s) {
	return strpbrk(s, "*?[") != NULL;
}

char *canonical(const char *path) {
	char *c = realpath(path, NULL);

	return c ? c : strdup(path);
}

ssize_t read_small(const char *path, char *buf, size_t len) {
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

void strv_free(char **v, size_t n) {
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

char **strv_copy(char *const *v, size_t n) {
	char **c = calloc(n + 1, sizeof(char *));

	for (size_t i = 0; c && i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			strv_free(c, i);
			return NULL;
		}
	return c;
}

int strmap_put(struct strmap *m, const void *key, size_t klen, void *value) {
	struct strmap_entry *e = malloc(sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	*e = (struct strmap_entry){ .key = key, .klen = klen, .value = value };
	r = fsn_hmap_put(&m->map, &e->node, hash_bytes(HASH_INIT, key, klen));
	if (r < 0)
		free(e);
	return r;
}

/* The first entry of key from chain node n on. */
static struct strmap_entry *strmap_from(const struct fsn_hnode *n, uint64_t h, const void *key,
					size_t klen) {
	for (; n; n = n->next) {
		struct strmap_entry *e = container_of(n, struct strmap_entry, node);

		if (n->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
	}
	return NULL;
}

struct strmap_entry *strmap_get_hashed(const struct strmap *m, const void *key, size_t klen,
				       uint64_t hash) {
	return strmap_from(fsn_hmap_chain(&m->map, hash), hash, key, klen);
}

struct strmap_entry *strmap_get(const struct strmap *m, const void *key, size_t klen) {
	if (fsn_hmap_size(&m->map) == 0)
		return NULL; /* (not even hashed) */
	return strmap_get_hashed(m, key, klen, hash_bytes(HASH_INIT, key, klen));
}

struct strmap_entry *strmap_next(const struct strmap_entry *e) {
	return strmap_from(e->node.next, e->node.hash, e->key, e->klen);
}

void *strmap_value(const struct strmap *m, const void *key, size_t klen) {
	struct strmap_entry *e = strmap_get(m, key, klen);

	return e ? e->value : NULL;
}

size_t strmap_size(const struct strmap *m) {
	return fsn_hmap_size(&m->map);
}

void strmap_done(struct strmap *m) {
	for (struct fsn_hnode *n = fsn_hmap_first(&m->map), *next; n; n = next) {
		next = fsn_hmap_next(&m->map, n);
		free(container_of(n, struct strmap_entry, node));
	}
	fsn_hmap_done(&m->map);
}

static uint64_t now_usec(clockid_t id) {
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t now_realtime_usec(void) {
	return now_usec(CLOCK_REALTIME);
}

uint64_t now_monotonic_usec(void) {
	return now_usec(CLOCK_MONOTONIC);
}

uint64_t now_monotonic_sec(void) {
	return now_usec(CLOCK_MONOTONIC_COARSE) / 1000000u;
}

int thread_start(pthread_t *t, void *(*fn)(void *), void *arg) {
	sigset_t all, old;
	int k;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	k = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -k;
}

void hex_encode(const void *data, size_t n, char *out) {
	static const char digits[] = "0123456789abcdef";
	const unsigned char *d = data;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

int reopen_for_reading(int fd) {
	char p[64];
	int r;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	r = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOATIME);
	if (r < 0 && errno == EPERM)
		r = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return r < 0 ? -errno : r;
}

int state_dir_open(const char *dir, char *err, size_t errlen) {
	struct stat st;
	int fd, r;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-r));
		return r;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-r));
		safe_close(fd);
		return r;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen,
			 "%s: not a directory of root's that only root may write to (owner %u, "
			 "mode %04o)",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		safe_close(fd);
		return -EPERM;
	}
	return fd;
}

int state_file_open(int dfd, const char *dir, const char *name, int flags, char *err,
		    size_t errlen) {
	/* (O_NONBLOCK: a FIFO there does not hang the open) */
	int fd = openat(dfd, name,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags,
			0600),
	    r;
	const char *sep = dir ? "/" : "";
	struct stat st;

	if (!dir)
		dir = "";
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s%s%s: %s", dir, sep, name, strerror(-r));
		safe_close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		snprintf(err, errlen, "%s%s%s: not a regular file of root's with one link", dir,
			 sep, name);
		safe_close(fd);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s%s%s: chmod: %s", dir, sep, name, strerror(-r));
		safe_close(fd);
		return r;
	}
	return fd;
}
