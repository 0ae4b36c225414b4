/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * heldspool.c — held event records on disk (heldspool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heldspool.h"
#include "util.h"

#define SPOOL_NAME "held"
#define SPOOL_MAX (64u << 20) /* a previous run's file read back at most */

struct heldspool {
	int fd;
	size_t n_held; /* lines H without their D, this run */
};

/* s in hex (an empty s: "-", so that the field still has a token) */
static char *hex(const char *s) {
	size_t n = strlen(s);
	char *h = malloc(2 * n + 2);

	if (h && n == 0)
		strcpy(h, "-");
	else if (h)
		hex_encode(s, n, h);
	return h;
}

static int nibble(char c) {
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A hex token decoded in place (it shrinks); false: not hex. */
static bool unhex(char *s) {
	size_t n = strlen(s), o = 0;

	if (strcmp(s, "-") == 0) {
		*s = '\0';
		return true;
	}
	if (n % 2)
		return false;
	for (size_t i = 0; i < n; i += 2) {
		int a = nibble(s[i]), b = nibble(s[i + 1]);

		if (a < 0 || b < 0)
			return false;
		s[o++] = (char)(a << 4 | b);
	}
	s[o] = '\0';
	return memchr(s, '\0', o) == NULL;
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The previous run's lines: each H without its D to fn, in order. */
static void replay(char *text, void (*fn)(void *arg, const struct held_entry *h), void *arg) {
	size_t n_done = 0, cap = 0;
	uint64_t *done = NULL, id;
	char *line, *save = NULL;

	/* first the ids let go */
	for (char *p = text; (p = strstr(p, "D ")); p += 2)
		if ((p == text || p[-1] == '\n') && sscanf(p, "D %" SCNu64, &id) == 1) {
			if (n_done == cap) {
				uint64_t *d =
				    realloc(done, (cap = cap ? 2 * cap : 64) * sizeof(*d));

				if (!d)
					break;
				done = d;
			}
			done[n_done++] = id;
		}
	if (n_done)
		qsort(done, n_done, sizeof(*done), cmp_u64);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char rule[4096], path[2 * 4096 + 2];
		struct held_entry h = { 0 };
		unsigned long long t, m;
		int pid;

		if (sscanf(line, "H %" SCNu64 " %llu %llx %d %4095s %8193s", &id, &t, &m, &pid,
			   rule, path) != 6 ||
		    !unhex(rule) || !unhex(path) ||
		    (n_done && bsearch(&id, done, n_done, sizeof(*done), cmp_u64)))
			continue;
		h.time_usec = t;
		h.mask = m;
		h.pid = pid;
		h.rule = rule;
		h.path = path;
		fn(arg, &h);
	}
	free(done);
}

struct heldspool *heldspool_open(const char *state_dir,
				 void (*fn)(void *arg, const struct held_entry *h), void *arg,
				 char *err, size_t errlen) {
	struct heldspool *s;
	int dfd = state_dir_open(state_dir, err, errlen), fd;
	off_t size;

	if (dfd < 0)
		return NULL;
	fd = state_file_open(dfd, state_dir, SPOOL_NAME, O_APPEND, err, errlen);
	close(dfd);
	if (fd < 0)
		return NULL;
	size = lseek(fd, 0, SEEK_END);
	if (size > 0 && fn) {
		size_t n = size > SPOOL_MAX ? SPOOL_MAX : (size_t)size, got = 0;
		char *text = malloc(n + 1);
		ssize_t r = 0;

		while (text && got < n && (r = pread(fd, text + got, n - got, (off_t)got)) > 0)
			got += (size_t)r;
		if (text) {
			text[got] = '\0';
			replay(text, fn, arg);
		}
		free(text);
	}
	if (ftruncate(fd, 0) < 0 || !(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, "%s/" SPOOL_NAME ": %s", state_dir, strerror(errno));
		close(fd);
		return NULL;
	}
	s->fd = fd;
	return s;
}

struct heldspool *heldspool_close(struct heldspool *s) {
	if (s) {
		close(s->fd);
		free(s);
	}
	return NULL;
}

static int write_line(struct heldspool *s, const char *buf, size_t n) {
	ssize_t r = write(s->fd, buf, n);

	return r == (ssize_t)n ? 0 : r < 0 ? -errno : -EIO;
}

int heldspool_add(struct heldspool *s, uint64_t id, const struct held_entry *h) {
	char *rule = hex(h->rule ? h->rule : ""), *path = hex(h->path ? h->path : ""), *line = NULL;
	int n = -1, r;

	if (rule && path)
		n = asprintf(&line, "H %" PRIu64 " %llu %llx %d %s %s\n", id,
			     (unsigned long long)h->time_usec, (unsigned long long)h->mask,
			     (int)h->pid, rule, path);
	free(rule);
	free(path);
	if (n < 0)
		return -ENOMEM;
	r = write_line(s, line, (size_t)n);
	free(line);
	if (r == 0)
		s->n_held++;
	return r;
}

void heldspool_done(struct heldspool *s, uint64_t id) {
	char line[32];
	int n = snprintf(line, sizeof(line), "D %" PRIu64 "\n", id);

	if (s->n_held == 0)
		return;
	/* (nothing held any more: empty, so that the file never grows) */
	if (--s->n_held == 0)
		(void)!ftruncate(s->fd, 0);
	else
		(void)write_line(s, line, (size_t)n);
}
