/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.c — see mounts.h.
 *
 * /proc/self/mountinfo is always readable (POLLIN), so libev cannot watch
 * it directly: it is registered for EPOLLPRI in an epoll instance of its
 * own, whose fd the loop watches for reading. The kernel's poll of the
 * file reports EPOLLPRI once per change and resets it, so nothing spins.
 */
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "fsn-util.h"
#include "log.h"
#include "mounts.h"
#include "util.h"

/* A change is read this long after its first sign: a burst of mounts (a
 * container starting) is one read. */
#define MOUNTS_SETTLE 0.05

struct mountwatch {
	struct ev_loop *loop;
	int fd;   /* /proc/self/mountinfo */
	int epfd; /* it, for EPOLLPRI */
	ev_io io;
	ev_timer settle;
	mountwatch_fn fn;
	void *userdata;
	struct mount_entry *v; /* the table as last read, sorted by id */
	size_t n;
	char *buf; /* for reading it */
	size_t cap;
};

void mount_entries_free(struct mount_entry *v, size_t n) {
	for (size_t i = 0; i < n; i++)
		free(v[i].point);
	free(v);
}

/* The field at *p (up to a space or the line's end), unescaped into a new
 * string when want; *p moves past it and the space. */
static const char *field(const char **p, const char *end, char **want) {
	const char *s = *p, *e = s;

	while (e < end && *e != ' ' && *e != '\n')
		e++;
	*p = e < end && *e == ' ' ? e + 1 : e;
	if (want) {
		char *o = malloc((size_t)(e - s) + 1), *q = o;

		if (!o)
			return NULL;
		for (const char *c = s; c < e; c++) {
			if (*c == '\\' && e - c >= 4 && c[1] >= '0' && c[1] <= '3' && c[2] >= '0' &&
			    c[2] <= '7' && c[3] >= '0' && c[3] <= '7') {
				*q++ = (char)((c[1] - '0') * 64 + (c[2] - '0') * 8 + (c[3] - '0'));
				c += 3;
			} else
				*q++ = *c;
		}
		*q = '\0';
		*want = o;
	}
	return s;
}

static int entry_cmp(const void *a, const void *b) {
	const struct mount_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int mountinfo_parse(const char *text, size_t len, struct mount_entry **ret, size_t *ret_n) {
	const char *p = text, *end = text + len;
	struct mount_entry *v = NULL;
	size_t n = 0, cap = 0;

	while (p < end) {
		const char *line_end = memchr(p, '\n', (size_t)(end - p));
		_cleanup_free_ char *point = NULL;
		const char *q = p;
		char *num_end;
		unsigned long long id;
		dev_t dev = 0;

		if (!line_end)
			line_end = end;
		/* "ID PARENT MAJ:MIN ROOT POINT ..." */
		id = strtoull(q, &num_end, 10);
		if (num_end != q && *num_end == ' ') {
			unsigned maj = 0, min = 0;

			q = num_end + 1;
			field(&q, line_end, NULL);
			if (sscanf(q, "%u:%u", &maj, &min) == 2)
				dev = makedev(maj, min);
			for (int f = 0; f < 2; f++)
				field(&q, line_end, NULL);
			if (q < line_end && field(&q, line_end, &point) == NULL) {
				mount_entries_free(v, n);
				return -ENOMEM;
			}
		}
		if (point && point[0] == '/') {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 64;
				struct mount_entry *nv = realloc(v, c * sizeof(*nv));

				if (!nv) {
					mount_entries_free(v, n);
					return -ENOMEM;
				}
				v = nv;
				cap = c;
			}
			v[n++] = (struct mount_entry){ .id = id,
						       .dev = dev,
						       .point = steal_ptr(&point) };
		}
		p = line_end + 1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), entry_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

const struct mount_entry *mount_entries_find(const struct mount_entry *v, size_t n, uint64_t id) {
	struct mount_entry key = { .id = id };

	return n ? bsearch(&key, v, n, sizeof(*v), entry_cmp) : NULL;
}

/* The whole file (seq_file: read from 0 until EOF). */
static ssize_t read_table(struct mountwatch *mw) {
	size_t len = 0;

	if (lseek(mw->fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (mw->cap - len < 4096) {
			size_t c = mw->cap ? 2 * mw->cap : 65536;
			char *b = realloc(mw->buf, c);

			if (!b)
				return -ENOMEM;
			mw->buf = b;
			mw->cap = c;
		}
		k = read(mw->fd, mw->buf + len, mw->cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return (ssize_t)len;
		len += (size_t)k;
	}
}

void mountwatch_refresh(struct mountwatch *mw) {
	_cleanup_free_ struct mount_entry *gone = NULL, *added = NULL;
	struct mount_entry *v;
	size_t n, n_gone = 0, n_added = 0, i = 0, j = 0;
	ssize_t len = read_table(mw);
	int r;

	if (len < 0) {
		log_warning("reading /proc/self/mountinfo: %s", strerror((int)-len));
		return;
	}
	r = mountinfo_parse(mw->buf, (size_t)len, &v, &n);
	if (r < 0) {
		log_warning("reading /proc/self/mountinfo: %s", strerror(-r));
		return;
	}
	/* (the entries themselves stay in v and mw->v: the vectors of the
	 * callback only point at them) */
	gone = malloc((mw->n + 1) * sizeof(*gone));
	added = malloc((n + 1) * sizeof(*added));
	if (!gone || !added) {
		mount_entries_free(v, n);
		log_warning("reading /proc/self/mountinfo: %s", strerror(ENOMEM));
		return;
	}
	while (i < mw->n || j < n) {
		if (j == n || (i < mw->n && mw->v[i].id < v[j].id))
			gone[n_gone++] = mw->v[i++];
		else if (i == mw->n || v[j].id < mw->v[i].id)
			added[n_added++] = v[j++];
		else if (strcmp(mw->v[i].point, v[j].point) != 0) {
			/* moved (mount --move): gone from there, come here */
			gone[n_gone++] = mw->v[i++];
			added[n_added++] = v[j++];
		} else {
			i++;
			j++;
		}
	}
	if ((n_gone || n_added) && mw->fn)
		mw->fn(gone, n_gone, added, n_added, mw->userdata);
	mount_entries_free(mw->v, mw->n);
	mw->v = v;
	mw->n = n;
}

static void on_settle(struct ev_loop *loop, ev_timer *w, int revents) {
	mountwatch_refresh(w->data);
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents) {
	struct mountwatch *mw = w->data;
	struct epoll_event evs[4];

	/* (the kernel's poll has reset the change already) */
	while (epoll_wait(mw->epfd, evs, 4, 0) > 0)
		;
	if (!ev_is_active(&mw->settle))
		ev_timer_start(loop, &mw->settle);
}

static inline void mountwatch_freep(struct mountwatch **mw) {
	mountwatch_free(*mw);
}

int mountwatch_new(struct ev_loop *loop, mountwatch_fn fn, void *userdata,
		   struct mountwatch **ret) {
	_cleanup_(mountwatch_freep) struct mountwatch *mw = calloc(1, sizeof(*mw));
	struct epoll_event ev = { .events = EPOLLPRI };
	ssize_t len;
	int r;

	if (!mw)
		return -ENOMEM;
	mw->loop = loop;
	mw->epfd = -1;
	mw->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mw->fd < 0)
		return -errno;
	mw->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (mw->epfd < 0 || epoll_ctl(mw->epfd, EPOLL_CTL_ADD, mw->fd, &ev) < 0)
		return -errno;
	/* (reading it also consumes the "changed" of its opening) */
	len = read_table(mw);
	if (len < 0)
		return (int)len;
	r = mountinfo_parse(mw->buf, (size_t)len, &mw->v, &mw->n);
	if (r < 0)
		return r;
	while (epoll_wait(mw->epfd, &ev, 1, 0) > 0)
		;
	mw->fn = fn;
	mw->userdata = userdata;
	ev_io_init(&mw->io, on_io, mw->epfd, EV_READ);
	mw->io.data = mw;
	ev_timer_init(&mw->settle, on_settle, MOUNTS_SETTLE, 0.);
	mw->settle.data = mw;
	ev_io_start(loop, &mw->io);
	*ret = steal_ptr(&mw);
	return 0;
}

struct mountwatch *mountwatch_free(struct mountwatch *mw) {
	if (!mw)
		return NULL;
	if (mw->loop) {
		ev_io_stop(mw->loop, &mw->io);
		ev_timer_stop(mw->loop, &mw->settle);
	}
	if (mw->epfd >= 0)
		close(mw->epfd);
	if (mw->fd >= 0)
		close(mw->fd);
	mount_entries_free(mw->v, mw->n);
	free(mw->buf);
	free(mw);
	return NULL;
}

bool mountwatch_lookup(const struct mountwatch *mw, const char *path, uint64_t *ret_id,
		       dev_t *ret_dev) {
	const struct mount_entry *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; mw && i < mw->n; i++) {
		const struct mount_entry *m = &mw->v[i];
		size_t len = strlen(m->point);

		/* (ids grow with time: on one point the later wins) */
		if (path_in(path, m->point, true, true) && (!best || len >= best_len)) {
			best = m;
			best_len = len;
		}
	}
	if (!best)
		return false;
	*ret_id = best->id;
	*ret_dev = best->dev;
	return true;
}

const char *mountwatch_point(const struct mountwatch *mw, uint64_t id) {
	const struct mount_entry *m = mw ? mount_entries_find(mw->v, mw->n, id) : NULL;

	return m ? m->point : NULL;
}
