/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.c — reading a group: everything queued right now (non-blocking,
 * the last read() returned EAGAIN), one read() at a time, or a buffer read
 * by another process, decoded by libfsn's decoders into events the case
 * owns. Event fds (and pidfds) are fstat()ed and closed unless kept or a
 * permission event's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selftest-private.h"

#define FST_READ_BUF (64 * 1024)

/* Event bits whose event fd must stay open until answered. */
#define FST_PERM_MASK (FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM | FAN_PRE_ACCESS)

static void copy_name(const char *src, char *dst, size_t len, const char **ptr) {
	if (!src) {
		*ptr = NULL;
		return;
	}
	snprintf(dst, len, "%s", src);
	*ptr = dst;
}

void fst_wait_readable_(struct fst_ctx *ctx, int fd, int ms, const char *file, int line) {
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	fst_checkpoint(file, line);
	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		fst_fail_(ctx, file, line, "poll(fd %d): %s", fd, fst_errname(errno));
	if (r == 0)
		fst_fail_(ctx, file, line, "no event on fd %d within %d ms", fd, ms);
}

/* Events being collected: the array grows with realloc(), so names are
 * pointed at their buffers only in events_done(). */
struct collect {
	struct fst_events *evs;
	struct fst_event *arr;
	size_t cap;
};

static void collect_start(struct fst_ctx *ctx, struct collect *c, bool inotify,
			  unsigned init_flags) {
	memset(c, 0, sizeof(*c));
	c->evs = fst_calloc(ctx, 1, sizeof(*c->evs));
	c->evs->inotify = inotify;
	c->evs->init_flags = init_flags;
}

/*
 * Decode n bytes of buf into c. own_fds: the buffer was read by this
 * process, whose event fds (and pidfds) are fstat()ed and closed unless
 * keep_fds or a permission event's; otherwise they are not touched.
 */
static void collect_buf(struct fst_ctx *ctx, struct collect *c, const unsigned char *buf, size_t n,
			bool own_fds, bool keep_fds, const char *file, int line) {
	struct fst_events *evs = c->evs;
	size_t off = 0;

	for (;;) {
		struct fanotify_event_metadata md;
		struct fsn_event ev;
		struct fst_event *e;
		size_t at = off;
		int r;

		if (evs->inotify)
			r = fsn_decode_inotify(buf, n, &off, &ev);
		else
			r = fsn_decode_fanotify(buf, n, &off, &ev);
		if (r == 0)
			break;
		if (r < 0)
			fst_fail_(ctx, file, line, "malformed event at offset %zu of %zu bytes: %s",
				  off, n, fst_errname(r));
		if (!evs->inotify) {
			/* the decoder accepts longer metadata (a future ABI); the
			 * kernel under test writes version 3's, 24 bytes */
			memcpy(&md, buf + at, sizeof(md));
			if (md.metadata_len != sizeof(md))
				fst_fail_(ctx, file, line,
					  "event at offset %zu: metadata_len %u, expected %zu", at,
					  md.metadata_len, sizeof(md));
		}
		if (evs->n == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 16;
			struct fst_event *na = realloc(c->arr, ncap * sizeof(*na));

			if (!na)
				fst_fail_(ctx, file, line, "out of memory");
			c->arr = na;
			c->cap = ncap;
		}
		e = &c->arr[evs->n++];
		memset(e, 0, sizeof(*e));
		e->ev = ev;
		copy_name(ev.name, e->name_buf, sizeof(e->name_buf), &e->ev.name);
		copy_name(ev.old_name, e->old_name_buf, sizeof(e->old_name_buf), &e->ev.old_name);
		copy_name(ev.new_name, e->new_name_buf, sizeof(e->new_name_buf), &e->ev.new_name);
		if (evs->inotify)
			continue;
		if (ev.fd >= 0) {
			e->had_fd = true;
			if (own_fds) {
				char proc[64];
				ssize_t l;

				e->has_stat = fstat(ev.fd, &e->st) == 0;
				snprintf(proc, sizeof(proc), "/proc/self/fd/%d", ev.fd);
				l = readlink(proc, e->fdpath, sizeof(e->fdpath) - 1);
				e->fdpath[l > 0 ? l : 0] = '\0';
				if (!keep_fds && !(ev.mask & FST_PERM_MASK)) {
					close(ev.fd);
					e->ev.fd = -1;
				}
			} else
				snprintf(e->fdpath, sizeof(e->fdpath), "fd %d of another process",
					 ev.fd);
		}
		if (own_fds && (ev.has & FSN_HAS_PIDFD) && ev.pidfd >= 0 && !keep_fds) {
			/* pidfds, like event fds, are closed unless kept */
			close(ev.pidfd);
			e->ev.pidfd = FAN_NOPIDFD;
		}
	}
}

static struct fst_events *collect_done(struct fst_ctx *ctx, struct collect *c) {
	for (size_t i = 0; i < c->evs->n; i++) {
		struct fst_event *e = &c->arr[i];

		e->ev.name = e->ev.name ? e->name_buf : NULL;
		e->ev.old_name = e->ev.old_name ? e->old_name_buf : NULL;
		e->ev.new_name = e->ev.new_name ? e->new_name_buf : NULL;
	}
	c->evs->e = fst_track(ctx, c->arr ? (void *)c->arr : calloc(1, sizeof(*c->arr)));
	return c->evs;
}

/* Descriptors this process may still open (RLIMIT_NOFILE minus those open). */
static long free_fds(struct fst_ctx *ctx, const char *file, int line) {
	struct rlimit rl;
	DIR *d = opendir("/proc/self/fd");
	long open_fds = 0;

	if (!d || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		fst_fail_(ctx, file, line, "counting open fds: %s", fst_errname(errno));
	while (readdir(d))
		open_fds++;
	closedir(d); /* counted ".", ".." and its own fd: a little margin */
	return (long)rl.rlim_cur - open_fds;
}

/* How much one read() of a fanotify group may ask for. In fd mode every
 * event the kernel copies gets a new fd (and a pidfd with
 * FAN_REPORT_PIDFD); when it cannot make one (EMFILE) it drops that event
 * unless the group has FAN_REPORT_FD_ERROR (doc/semantics.md, OV01). So a
 * read never has room for more events than there are free fds: the
 * smallest event is its metadata alone. */
static size_t read_len(struct fst_ctx *ctx, enum fd_kind kind, unsigned init_flags,
		       const char *file, int line) {
	const unsigned fid_modes = FAN_REPORT_FID | FAN_REPORT_DIR_FID | FAN_REPORT_NAME;
	long per_event_fds = init_flags & FAN_REPORT_PIDFD ? 2 : 1, n;

	if (kind != FD_FANOTIFY || (init_flags & fid_modes) || (init_flags & FAN_REPORT_FD_ERROR))
		return FST_READ_BUF;
	n = (free_fds(ctx, file, line) - 4) / per_event_fds;
	if (n < 1)
		fst_fail_(ctx, file, line,
			  "no free fd for an event's fd (RLIMIT_NOFILE reached): the case keeps "
			  "too many open");
	if (n > (long)(FST_READ_BUF / FAN_EVENT_METADATA_LEN))
		return FST_READ_BUF;
	return (size_t)n * FAN_EVENT_METADATA_LEN;
}

/* One read() into the case's buffer: bytes read, 0 for EAGAIN. */
static size_t read_once(struct fst_ctx *ctx, int fd, enum fd_kind kind, unsigned init_flags,
			const char *file, int line) {
	struct fst_priv *pr = ctx->priv;
	size_t len = read_len(ctx, kind, init_flags, file, line);

	if (!pr->readbuf)
		pr->readbuf = fst_calloc(ctx, 1, FST_READ_BUF);
	for (;;) {
		ssize_t n = read(fd, pr->readbuf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0; /* nothing else queued: the proof of emptiness */
		if (n < 0)
			fst_fail_(ctx, file, line, "read(fd %d): %s", fd, fst_errname(errno));
		if (n == 0)
			fst_fail_(ctx, file, line, "read(fd %d) returned 0", fd);
		return (size_t)n;
	}
}

static enum fd_kind group_of(struct fst_ctx *ctx, int fd, unsigned *init_flags, const char *file,
			     int line) {
	enum fd_kind kind = fst_fd_kind(ctx, fd, init_flags);
	int fl = fcntl(fd, F_GETFL);

	if (kind == FD_UNKNOWN)
		fst_fail_(ctx, file, line, "fd %d is neither a fanotify nor an inotify fd", fd);
	if (fl < 0 || !(fl & O_NONBLOCK))
		fst_fail_(ctx, file, line,
			  "fd %d is blocking; create groups with fst_fan_init()/fst_inotify()", fd);
	return kind;
}

struct fst_events *fst_read_(struct fst_ctx *ctx, int fd, bool keep_fds, const char *file,
			     int line) {
	unsigned init_flags;
	enum fd_kind kind = group_of(ctx, fd, &init_flags, file, line);
	struct collect c;
	size_t n;

	collect_start(ctx, &c, kind == FD_INOTIFY, init_flags);
	while ((n = read_once(ctx, fd, kind, init_flags, file, line)) > 0)
		collect_buf(ctx, &c, ctx->priv->readbuf, n, true, keep_fds, file, line);
	return collect_done(ctx, &c);
}

struct fst_events *fst_read_batch_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	unsigned init_flags;
	enum fd_kind kind = group_of(ctx, fd, &init_flags, file, line);
	struct collect c;
	size_t n;

	collect_start(ctx, &c, kind == FD_INOTIFY, init_flags);
	n = read_once(ctx, fd, kind, init_flags, file, line);
	collect_buf(ctx, &c, ctx->priv->readbuf, n, true, false, file, line);
	return collect_done(ctx, &c);
}

struct fst_events *fst_decode_(struct fst_ctx *ctx, bool inotify, unsigned init_flags,
			       const void *buf, size_t len, const char *file, int line) {
	struct collect c;

	collect_start(ctx, &c, inotify, init_flags);
	collect_buf(ctx, &c, buf, len, false, false, file, line);
	return collect_done(ctx, &c);
}

void fst_release(struct fst_ctx *ctx, struct fst_events *events) {
	fst_free(ctx, events->e);
	fst_free(ctx, events);
}
