/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c — see util.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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

static size_t strmap_bucket(const struct strmap *m, uint64_t h) {
	return (size_t)(h ^ (h >> 29) ^ (h >> 47)) & (m->n_buckets - 1);
}

int strmap_put(struct strmap *m, const void *key, size_t klen, void *value) {
	struct strmap_entry *e;
	size_t b;

	if (m->n >= m->n_buckets) {
		size_t nb = m->n_buckets ? 2 * m->n_buckets : 64;
		struct strmap_entry **v = calloc(nb, sizeof(*v));
		struct strmap old = *m;

		if (!v && !m->buckets)
			return -ENOMEM;
		if (v) {
			m->buckets = v;
			m->n_buckets = nb;
			/* oldest first, so equal keys keep their order */
			for (size_t i = 0; i < old.n_buckets; i++) {
				struct strmap_entry *rev = NULL, *n;

				for (e = old.buckets[i]; e; e = n) {
					n = e->next;
					e->next = rev;
					rev = e;
				}
				for (e = rev; e; e = n) {
					n = e->next;
					b = strmap_bucket(m, e->hash);
					e->next = m->buckets[b];
					m->buckets[b] = e;
				}
			}
			free(old.buckets);
		}
	}
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	*e = (struct strmap_entry){
		.hash = hash_bytes(HASH_INIT, key, klen), .key = key, .klen = klen, .value = value
	};
	b = strmap_bucket(m, e->hash);
	e->next = m->buckets[b];
	m->buckets[b] = e;
	m->n++;
	return 0;
}

static struct strmap_entry *strmap_from(struct strmap_entry *e, uint64_t h, const void *key,
					size_t klen) {
	for (; e; e = e->next)
		if (e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
	return NULL;
}

struct strmap_entry *strmap_get_hashed(const struct strmap *m, const void *key, size_t klen,
				       uint64_t hash) {
	if (m->n == 0)
		return NULL;
	return strmap_from(m->buckets[strmap_bucket(m, hash)], hash, key, klen);
}

struct strmap_entry *strmap_get(const struct strmap *m, const void *key, size_t klen) {
	if (m->n == 0)
		return NULL; /* (not even hashed) */
	return strmap_get_hashed(m, key, klen, hash_bytes(HASH_INIT, key, klen));
}

struct strmap_entry *strmap_next(const struct strmap_entry *e) {
	return strmap_from(e->next, e->hash, e->key, e->klen);
}

void *strmap_value(const struct strmap *m, const void *key, size_t klen) {
	struct strmap_entry *e = strmap_get(m, key, klen);

	return e ? e->value : NULL;
}

void strmap_done(struct strmap *m) {
	for (size_t i = 0; i < m->n_buckets; i++)
		for (struct strmap_entry *e = m->buckets[i], *n; e; e = n) {
			n = e->next;
			free(e);
		}
	free(m->buckets);
	*m = (struct strmap){ 0 };
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
