/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsn-util.h — the small helpers lib/, daemon/, bench/ and tests/ share:
 * attributes, ELEMENTSOF(), container_of(), _cleanup_ and steal_*(),
 * -errno, programs beside the running one (exe_relative()), the FNV-1a
 * hash of every hash table (FID comparison is libfsn's public
 * fsn_fid_equal()). Header only. Internal: shared/ is on the include path
 * of the project's own targets, never installed, and nothing here is part
 * of libfsn's API.
 */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* The struct type whose member ptr points to (an intrusive node's owner). */
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

static inline void freep(void *p) {
	free(*(void **)p);
}

static inline void closep(int *fd) {
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

/* For a FILE * read from: one written to is closed by hand, its fclose()
 * checked (the data may only fail to reach the file there). */
static inline void fclosep(FILE **f) {
	if (*f) {
		int saved = errno;
		fclose(*f);
		errno = saved;
	}
}

static inline void closedirp(DIR **d) {
	if (*d) {
		int saved = errno;
		closedir(*d);
		errno = saved;
	}
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Return *p and set it to NULL: hand an object out of a _cleanup_ scope. */
#define steal_ptr(p)                                                                               \
	__extension__({                                                                            \
		__typeof__(*(p)) _tmp = *(p);                                                      \
		*(p) = NULL;                                                                       \
		_tmp;                                                                              \
	})

/* Same for an fd: return it and set the variable to -1. */
#define steal_fd(fd)                                                                               \
	__extension__({                                                                            \
		int _tmp = *(fd);                                                                  \
		*(fd) = -1;                                                                        \
		_tmp;                                                                              \
	})

/* Close if >= 0, return -1, preserve errno. */
static inline int safe_close(int fd) {
	if (fd >= 0) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return -1;
}

/* -errno of the last failed call, never 0 (a failed call that left errno at 0
 * is reported as -EIO). */
static inline int negative_errno(void) {
	return errno > 0 ? -errno : -EIO;
}

/* rel (e.g. "../bench/fsn-bench") beside the running program: its
 * directory + "/" + rel into buf. Returns 0, or -1 when /proc/self/exe
 * cannot be read or buf is too small. (Programs of the build tree find each
 * other this way.) */
static inline int exe_relative(const char *rel, char *buf, size_t len) {
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return (size_t)snprintf(buf, len, "%s/%s", exe, rel) < len ? 0 : -1;
}

/* A recency order (the caches' LRU lists): an intrusive circular list
 * whose head is a link of its own, next the most recently used, prev the
 * least; an entry not in it has NULL links. */
struct lru_link {
	struct lru_link *prev, *next;
};

static inline void lru_init(struct lru_link *head) {
	head->prev = head->next = head;
}

static inline void lru_unlink(struct lru_link *l) {
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = NULL;
}

/* l made the most recently used (linked already, or not yet). */
static inline void lru_touch(struct lru_link *head, struct lru_link *l) {
	if (l->next)
		lru_unlink(l);
	l->prev = head;
	l->next = head->next;
	head->next->prev = l;
	head->next = l;
}

/* FNV-1a (64 bit) of n bytes, continuing from h: start with HASH_INIT, the
 * offset basis. Its low bits are weak for short keys: a table that masks
 * them folds the high bits in first. */
#define HASH_INIT UINT64_C(0xcbf29ce484222325)

static inline uint64_t hash_bytes(uint64_t h, const void *data, size_t n) {
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* A key of n bytes hashed in one piece, eight bytes a step, seeded with
 * seed: for keys that are never hashed in parts (hash_block() of a part
 * and then the rest is not the hash of the whole, as hash_bytes()'s is).
 * About eight times fewer multiplications than hash_bytes(), and all the
 * bits mixed (a table may mask the low ones). */
static inline uint64_t hash_block(uint64_t seed, const void *data, size_t n) {
	const unsigned char *p = data;
	uint64_t h = seed ^ (n * UINT64_C(0x9e3779b97f4a7c15)), w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	if (n > 0) {
		w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
	}
	h ^= h >> 33; /* murmur3's fmix64 */
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}
