/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dispatch.c — fsn_ctx_dispatch(): read every ready source until EAGAIN
 * (or take what the reader thread read), decode, hand each event to the
 * callback, then close its fds and allow a permission event the callback
 * neither answered nor took. Also where the sources are read: the inotify
 * fd (source 0) and the groups' fds, in the context's epoll set or the
 * reader thread's (fsn_ctx_set_reader()); events read but not handed out
 * (a callback's error), kept with the context's fd readable; the fd
 * budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <syslog.h>

#include "ctx-private.h"

/* ------------------------------------------------------------------------ */
/* events read but not handed out                                          */
/* ------------------------------------------------------------------------ */

/* epoll data of the pending eventfd (groups are 1.., inotify 0) */
#define PEND_EPOLL_ID UINT64_MAX

/* Keep buf[off, len) of source src for the next dispatch, and keep the
 * context's fd readable meanwhile: the kernel fds are drained, so without
 * this a caller polling fsn_ctx_get_fd() would not come back. */
static void pend_signal(struct fsn_ctx *ctx) {
	const uint64_t one = 1;

	if (ctx->pend_efd < 0) {
		struct epoll_event ee = { .events = EPOLLIN, .data.u64 = PEND_EPOLL_ID };
		int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		if (efd < 0 || epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, efd, &ee) < 0) {
			char ebuf[128];

			fsn_ctx_log(ctx, LOG_WARNING,
				    "cannot signal undispatched events on the context fd: %s",
				    strerror_r(errno, ebuf, sizeof(ebuf)));
			safe_close(efd);
			return;
		}
		ctx->pend_efd = efd;
	}
	/* cannot fail short of a counter overflow, which also reads readable */
	if (write(ctx->pend_efd, &one, sizeof(one)) < 0)
		return;
}

static void pend_unsignal(struct fsn_ctx *ctx) {
	uint64_t v;

	/* EAGAIN when it was not set: fine */
	if (ctx->pend_efd >= 0 && read(ctx->pend_efd, &v, sizeof(v)) < 0)
		return;
}

static void pend_set(struct fsn_ctx *ctx, unsigned src, size_t off, size_t len) {
	ctx->pend_src = src;
	ctx->pend_off = off;
	ctx->pend_len = len;
	pend_signal(ctx);
}

void fsn_ctx_pend_clear(struct fsn_ctx *ctx) {
	ctx->pend_len = 0;
	if (!ctx->chunk)
		pend_unsignal(ctx);
}

/* ------------------------------------------------------------------------ */
/* sources: the inotify fd (0) and the groups' fds, in the context's epoll  */
/* set or the reader thread's                                               */
/* ------------------------------------------------------------------------ */

/* epoll data of the reader thread's eventfd */
#define READER_EPOLL_ID (UINT64_MAX - 1)

/* *in_reader: whether the reader thread reads it now. */
int fsn_ctx_source_watch(struct fsn_ctx *ctx, unsigned src, int fd, bool drainable, bool pidfds,
			 struct fsn_queue_count *q, bool *in_reader) {
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = src };

	*in_reader = drainable && fsn_reader_running(ctx->reader) &&
		     fsn_reader_add(ctx->reader, src, fd, pidfds, q) == 0;
	if (*in_reader)
		return 0;
	return epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, fd, &ee) < 0 ? negative_errno() : 0;
}

/* Before fd is closed: nobody reads it any more; what the reader thread
 * queued of it is dropped (the events of drainable sources own nothing). */
void fsn_ctx_source_unwatch(struct fsn_ctx *ctx, unsigned src, int fd) {
	(void)epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, fd, NULL);
	if (ctx->reader)
		fsn_reader_remove(ctx->reader, src, true);
	if (ctx->chunk && ctx->chunk->src == src) {
		fsn_chunk_close_pidfds(ctx->budget, ctx->chunk);
		fsn_reader_done(ctx->reader, ctx->chunk);
		ctx->chunk = NULL;
		if (ctx->pend_len == 0)
			pend_unsignal(ctx);
	}
}

/* Move a drainable source to the reader thread (to_reader) or back to
 * the context's epoll set; one that cannot be moved stays where it is. */
static void source_move(struct fsn_ctx *ctx, unsigned src, int fd, bool pidfds,
			struct fsn_queue_count *q, bool *in_reader, bool to_reader) {
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = src };

	if (fd < 0 || *in_reader == to_reader)
		return;
	if (to_reader) {
		if (fsn_reader_add(ctx->reader, src, fd, pidfds, q) < 0)
			return;
		(void)epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, fd, NULL);
		*in_reader = true;
	} else {
		/* (what it queued stays: dispatch hands it out before reading fd) */
		fsn_reader_remove(ctx->reader, src, false);
		(void)epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, fd, &ee);
		*in_reader = false;
	}
}

static void sources_move(struct fsn_ctx *ctx, bool to_reader) {
	for (struct fsn_group *g = ctx->groups; g; g = g->next)
		if (fsn_group_drainable(g))
			source_move(ctx, g->id, g->fd, (g->report & FAN_REPORT_PIDFD) != 0, &g->q,
				    &g->in_reader, to_reader);
	source_move(ctx, 0, ctx->ifd, false, &ctx->ifd_q, &ctx->ifd_in_reader, to_reader);
}

_public_ int fsn_ctx_set_reader(struct fsn_ctx *ctx, size_t max_bytes) {
	int r;

	if (!ctx)
		return -EINVAL;
	if (max_bytes == 0) {
		if (fsn_reader_running(ctx->reader)) {
			sources_move(ctx, false);
			fsn_reader_stop(ctx->reader); /* (its chunks are still handed out) */
		}
		return 0;
	}
	if (fsn_reader_running(ctx->reader)) {
		fsn_reader_set_max(ctx->reader, max_bytes);
		return 0;
	}
	if (ctx->reader) { /* stopped before: a new one (the old one's chunks first) */
		if (ctx->chunk || !fsn_reader_idle(ctx->reader))
			return -EBUSY;
		ctx->reader = fsn_reader_free(ctx->reader);
	}
	r = fsn_reader_new(max_bytes, ctx->epfd, READER_EPOLL_ID, &ctx->reader);
	if (r < 0)
		return r;
	fsn_reader_set_budget(ctx->reader, ctx->budget);
	sources_move(ctx, true);
	return 0;
}

_public_ int fsn_ctx_get_reader_stats(const struct fsn_ctx *ctx, struct fsn_reader_stats *ret) {
	if (!ctx || !ret)
		return -EINVAL;
	*ret = (struct fsn_reader_stats){ 0 };
	if (ctx->reader)
		fsn_reader_get_stats(ctx->reader, ret);
	return 0;
}

_public_ bool fsn_ctx_fd_starved(const struct fsn_ctx *ctx) {
	return ctx && ctx->fd_starved;
}

_public_ int fsn_ctx_set_fd_budget(struct fsn_ctx *ctx, struct fsn_fd_budget *b) {
	if (!ctx)
		return -EINVAL;
	/* (what the context holds was counted in the budget it had: events
	 * handed out, pending, or read by the reader thread) */
	if (ctx->cur || ctx->pend_len > 0 || ctx->chunk ||
	    (ctx->reader && !fsn_reader_idle(ctx->reader)))
		return -EBUSY;
	fsn_fd_budget_ref(b);
	if (ctx->reader)
		fsn_reader_set_budget(ctx->reader, b);
	fsn_fd_budget_unref(ctx->budget);
	ctx->budget = b;
	return 0;
}

/* Nothing readable in epfd now. */
static bool epoll_quiet(int epfd) {
	struct epoll_event ee[4];

	return epoll_wait(epfd, ee, (int)(sizeof(ee) / sizeof(ee[0])), 0) == 0;
}

uint64_t fsn_queue_units(bool fan, const void *buf, size_t n) {
	uint64_t k = 0;

	if (!fan)
		return n;
	for (size_t off = 0; off + FAN_EVENT_METADATA_LEN <= n; k++) {
		uint32_t len;

		memcpy(&len, (const char *)buf + off, sizeof(len)); /* (event_len) */
		if (len < FAN_EVENT_METADATA_LEN)
			break;
		off += len;
	}
	return k;
}

struct fsn_queue_mark {
	size_t n;
	struct {
		unsigned src;
		uint64_t target;
	} at[];
};

static int queued_units(int fd, bool fan, uint64_t *ret) {
	int n = 0;

	if (ioctl(fd, FIONREAD, &n) < 0)
		return negative_errno();
	*ret = fan ? (uint64_t)n / FAN_EVENT_METADATA_LEN : (uint64_t)n;
	return 0;
}

_public_ int fsn_ctx_queue_mark(struct fsn_ctx *ctx, struct fsn_queue_mark **ret) {
	struct fsn_queue_mark *m;
	size_t n = 1;
	int r = 0;

	if (!ctx || !ret)
		return -EINVAL;
	for (struct fsn_group *g = ctx->groups; g; g = g->next)
		n++;
	m = calloc(1, sizeof(*m) + n * sizeof(m->at[0]));
	if (!m)
		return -ENOMEM;
	/* what was read so far and what waits in the kernel, with no read in
	 * between (the thread's reads wait; dispatch's are this thread's) */
	if (ctx->reader)
		fsn_reader_hold_io(ctx->reader, true);
	if (ctx->ifd >= 0 && (r = queued_units(ctx->ifd, false, &m->at[m->n].target)) == 0) {
		m->at[m->n].target += atomic_load_explicit(&ctx->ifd_q.read, memory_order_relaxed);
		m->at[m->n++].src = 0;
	}
	for (struct fsn_group *g = ctx->groups; r == 0 && g; g = g->next)
		if ((r = queued_units(g->fd, true, &m->at[m->n].target)) == 0) {
			m->at[m->n].target +=
			    atomic_load_explicit(&g->q.read, memory_order_relaxed);
			m->at[m->n++].src = g->id;
		}
	if (ctx->reader)
		fsn_reader_hold_io(ctx->reader, false);
	if (r < 0) {
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

_public_ bool fsn_ctx_queue_passed(const struct fsn_ctx *ctx, const struct fsn_queue_mark *m) {
	if (!ctx || !m)
		return false;
	for (size_t i = 0; i < m->n; i++) {
		const struct fsn_group *g =
		    m->at[i].src ? fsn_group_by_id(ctx, m->at[i].src) : NULL;
		const struct fsn_queue_count *q = g ? &g->q : &ctx->ifd_q;

		/* (a group that left took its queue along) */
		if ((m->at[i].src == 0 || g) && q->handed < m->at[i].target)
			return false;
	}
	return true;
}

_public_ struct fsn_queue_mark *fsn_queue_mark_free(struct fsn_queue_mark *m) {
	free(m);
	return NULL;
}

_public_ bool fsn_ctx_is_drained(const struct fsn_ctx *ctx) {
	/* the cheap tests first (a storm: no system call); then the
	 * context's own set (the sources read here, the reader thread's
	 * eventfd, the pending one): none readable; the reader's last */
	return ctx && ctx->pend_len == 0 && !ctx->chunk && !ctx->fd_starved &&
	       (!ctx->reader || fsn_reader_idle(ctx->reader)) && epoll_quiet(ctx->epfd) &&
	       (!ctx->reader || fsn_reader_drained(ctx->reader));
}

/* ------------------------------------------------------------------------ */
/* dispatch                                                                 */
/* ------------------------------------------------------------------------ */

/* Find the mark an inotify event belongs to; false: drop the event (its
 * watch was removed, or no remaining mark asked for these bits). */
static bool inotify_route(struct fsn_ctx *ctx, struct fsn_event *ev) {
	uint32_t bits = (uint32_t)ev->mask & IN_ALL_EVENTS;
	struct fsn_obj *o;

	if (ev->wd < 0)
		return true; /* IN_Q_OVERFLOW */
	o = fsn_obj_by_wd(ctx, ev->wd);
	if (!o)
		return false;
	for (struct fsn_mark *m = o->marks; m; m = m->next)
		if (!bits || (m->mask & bits)) {
			ev->mark = m;
			break;
		}
	if (!ev->mark)
		return false;
	/* before the callback: removing the mark must not touch the wd */
	if (ev->mask & IN_IGNORED)
		fsn_obj_kill(ctx, o);
	return true;
}

/* After the callback: allow what it neither answered nor took, close fds. */
static void event_done(struct fsn_ctx *ctx, struct fsn_pending_event *pe) {
	bool kept;

	if (pe->perm_fd >= 0 && !pe->answered && !fsn_answer_queue(ctx, pe, FSN_ALLOW)) {
		int r = fsn_perm_write(pe->group, pe->perm_fd, FSN_ALLOW, 0, false);

		if (r < 0) {
			char ebuf[128];

			fsn_ctx_log(ctx, LOG_ERR, "fanotify group %u: allowing event fd %d: %s",
				    pe->group->id, pe->perm_fd, strerror_r(-r, ebuf, sizeof(ebuf)));
		}
	}
	if (pe->ev.source != FSN_SOURCE_FANOTIFY)
		return;
	kept = fsn_answer_keeps_fd(ctx, pe);

	if (pe->ev.fd >= 0 && !kept)
		safe_close(pe->ev.fd);
	if ((pe->ev.has & FSN_HAS_PIDFD) && pe->ev.pidfd >= 0)
		safe_close(pe->ev.pidfd);
	/* closed, taken by the callback, or counted on: by a taken permission
	 * event's struct fsn_perm, or by the queued answers (closed with them) */
	fsn_fd_budget_release(ctx->budget, pe->n_held - pe->fd_to_perm - (kept && pe->n_held > 0));
}

/* A pending event's own fields; its event is the decoder's. */
_Static_assert(sizeof(struct fsn_pending_event) == sizeof(struct fsn_event) + 56 ||
		   sizeof(void *) != 8,
	       "struct fsn_pending_event changed: set the new field in pe_init()");
static void pe_init(struct fsn_pending_event *pe, struct fsn_group *g, const void *buf,
		    size_t len) {
	pe->group = g;
	pe->perm_fd = -1;
	pe->answered = false;
	pe->n_held = 0;
	pe->fd_to_perm = false;
	pe->queued = false;
	pe->flushed = false;
	pe->queue_idx = 0;
	pe->buf = buf;
	pe->next = 0;
	pe->len = len;
}

/* Hand out the events in buf[*off, len) read from source src (group g, or
 * the inotify fd when src == 0); *off: where it stopped (a callback's
 * error: the rest is the caller's to keep). The answers of its permission
 * events are written as one when it ends (dispatch_buffer()). */
static int dispatch_events(struct fsn_ctx *ctx, const void *buf, unsigned src, struct fsn_group *g,
			   size_t *offp, size_t len, fsn_event_fn fn, void *userdata, int *count) {
	size_t off = *offp;

	while (off < len) {
		/* (its event is set whole by the decoder: not zeroed first, it
		 * is 700 bytes, most of them room for handles) */
		struct fsn_pending_event pe;
		size_t next = off;
		int r;

		pe_init(&pe, g, buf, len);

		if (g)
			r = fsn_decode_fanotify_once(buf, len, &next, &pe.ev);
		else
			r = fsn_decode_inotify(buf, len, &next, &pe.ev);
		if (r == 0)
			break;
		if (r < 0) {
			/* Nothing after it can be trusted, not even its fds:
			 * they stay open, and permission events stay unanswered
			 * until the group is closed. */
			if (g)
				fsn_ctx_log(ctx, LOG_ERR,
					    "fanotify group %u: malformed event at offset %zu of "
					    "%zu bytes read, dropping the rest of the read",
					    g->id, off, len);
			else
				fsn_ctx_log(ctx, LOG_ERR,
					    "inotify: malformed event at offset %zu of %zu bytes "
					    "read, dropping the rest of the read",
					    off, len);
			*offp = len;
			return 0;
		}

		/* (handed out, or dropped here: taken from the queue either way) */
		if (g)
			g->q.handed++;
		else
			ctx->ifd_q.handed += next - off;
		if (g) {
			pe.ev.group = g;
			if (fsn_mask_is_perm(pe.ev.mask) && pe.ev.fd >= 0)
				pe.perm_fd = pe.ev.fd;
			if (ctx->budget)
				pe.n_held = fsn_event_fds(g, &pe.ev);
		} else if (!inotify_route(ctx, &pe.ev)) {
			off = next;
			continue;
		}

		pe.next = next;
		ctx->cur = &pe;
		r = fn(ctx, &pe.ev, userdata);
		if (g)
			fsn_ctx_dir_cache_after(ctx, g, &pe.ev);
		ctx->cur = NULL;
		(*count)++;
		event_done(ctx, &pe);
		off = next;

		if (g && !g->ctx) {
			/* the callback removed the group's last mark */
			fsn_answers_flush(ctx);
			fsn_group_release_events(ctx->budget, g, buf, off, len);
			*offp = len;
			return r < 0 ? r : 0;
		}
		if (r < 0) {
			*offp = off;
			return r;
		}
	}
	*offp = len;
	return 0;
}

static int dispatch_buffer(struct fsn_ctx *ctx, const void *buf, unsigned src, struct fsn_group *g,
			   size_t *offp, size_t len, fsn_event_fn fn, void *userdata, int *count) {
	int r = dispatch_events(ctx, buf, src, g, offp, len, fn, userdata, count);

	fsn_answers_flush(ctx);
	return r;
}

/* The context's buffer: what a callback's error left is kept (pend_set()). */
static int dispatch_ctx_buffer(struct fsn_ctx *ctx, unsigned src, struct fsn_group *g, size_t off,
			       size_t len, fsn_event_fn fn, void *userdata, int *count) {
	int r = dispatch_buffer(ctx, ctx->buf, src, g, &off, len, fn, userdata, count);

	if (r < 0 && off < len)
		pend_set(ctx, src, off, len);
	return r;
}

/* The chunks the reader thread queued, oldest first; a chunk a callback's
 * error stopped in is kept (ctx->chunk) for the next dispatch. */
static int dispatch_chunks(struct fsn_ctx *ctx, fsn_event_fn fn, void *userdata, int *count) {
	unsigned failed_src;
	int r = 0;

	for (;;) {
		struct fsn_chunk *c = ctx->chunk ? ctx->chunk : fsn_reader_take(ctx->reader);
		struct fsn_group *g = NULL;
		size_t off;

		if (!c)
			break;
		if (ctx->chunk) {
			ctx->chunk = NULL;
			if (ctx->pend_len == 0)
				pend_unsignal(ctx);
		}
		if (c->src) {
			g = fsn_group_ref(fsn_group_by_id(ctx, c->src));
			if (!g) { /* (it left: its chunks went with it) */
				fsn_chunk_close_pidfds(ctx->budget, c);
				fsn_reader_done(ctx->reader, c);
				continue;
			}
		}
		off = c->off;
		r = dispatch_buffer(ctx, c->data, c->src, g, &off, c->len, fn, userdata, count);
		if (r < 0 && off < c->len && (!g || g->ctx)) {
			c->off = off;
			ctx->chunk = c;
			pend_signal(ctx);
			fsn_group_unref(g);
			return r;
		}
		fsn_group_unref(g);
		fsn_reader_done(ctx->reader, c);
		if (r < 0)
			return r;
	}
	/* a source the thread could not read goes back to dispatch, which
	 * reads it (and reports why) */
	r = fsn_reader_failed(ctx->reader, &failed_src);
	if (r < 0) {
		struct fsn_group *g = failed_src ? fsn_group_by_id(ctx, failed_src) : NULL;
		struct epoll_event ee = { .events = EPOLLIN, .data.u64 = failed_src };
		int fd = g ? g->fd : failed_src == 0 ? ctx->ifd : -1;
		char ebuf[128];

		fsn_ctx_log(ctx, LOG_WARNING, "reader thread: reading %s %u: %s; read in dispatch",
			    failed_src ? "fanotify group" : "inotify fd", failed_src,
			    strerror_r(-r, ebuf, sizeof(ebuf)));
		if (fd >= 0)
			(void)epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, fd, &ee);
		if (g)
			g->in_reader = false;
		else if (failed_src == 0)
			ctx->ifd_in_reader = false;
	}
	return 0;
}

static int dispatch_source(struct fsn_ctx *ctx, unsigned src, fsn_event_fn fn, void *userdata,
			   int *count) {
	struct fsn_group *g = NULL;
	int fd, r = 0;

	if (src == 0)
		fd = ctx->ifd;
	else {
		g = fsn_group_by_id(ctx, src);
		if (!g)
			return 0; /* left the context during this dispatch */
		fd = g->fd;
		fsn_group_ref(g);
	}

	while (fd >= 0) {
		unsigned reserved = 0;
		size_t len = g ? fsn_group_read_len(ctx->budget, g, FSN_READ_BUF_SIZE, &reserved)
			       : FSN_READ_BUF_SIZE;
		ssize_t n;

		if (len == 0) {
			ctx->fd_starved = true;
			/* no fd left for an event's fd: leave the events queued
			 * until the caller closes some (answers pending ones) */
			if (!ctx->warned_no_fds) {
				ctx->warned_no_fds = true;
				fsn_ctx_log(
				    ctx, LOG_WARNING,
				    "fanotify group %u: no free file descriptor for an event's fd "
				    "(RLIMIT_NOFILE, or the fd budget spent): its events wait in "
				    "the "
				    "kernel queue",
				    src);
			}
			break;
		}
		n = read(fd, ctx->buf, len);
		if (g)
			fsn_fd_budget_read_done(ctx->budget, g, ctx->buf, n > 0 ? (size_t)n : 0,
						reserved);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				char ebuf[128];

				r = negative_errno();
				fsn_ctx_log(ctx, LOG_ERR, "reading %s %u: %s",
					    g ? "fanotify group" : "inotify fd", src,
					    strerror_r(-r, ebuf, sizeof(ebuf)));
			}
			break;
		}
		if (n == 0)
			break;
		atomic_fetch_add_explicit(g ? &g->q.read : &ctx->ifd_q.read,
					  fsn_queue_units(g != NULL, ctx->buf, (size_t)n),
					  memory_order_relaxed);
		r = dispatch_ctx_buffer(ctx, src, g, 0, (size_t)n, fn, userdata, count);
		if (r < 0 || (g && !g->ctx))
			break;
		/* A short read emptied the queue (reads return every whole
		 * event that fits): no read just to hear EAGAIN. What arrived
		 * since keeps the fd, and so the context's epoll fd, readable.
		 * A read bounded by the free fds that used its room may have
		 * left events: read again (or learn that none is free). */
		if ((size_t)n < FSN_READ_BUF_SIZE / 2 &&
		    !(len < FSN_READ_BUF_SIZE / 2 && len - (size_t)n < 2 * FAN_EVENT_METADATA_LEN))
			break;
	}
	fsn_group_unref(g);
	return r;
}

static int dispatch(struct fsn_ctx *ctx, fsn_event_fn fn, void *userdata);

_public_ int fsn_ctx_dispatch(struct fsn_ctx *ctx, fsn_event_fn fn, void *userdata) {
	int r;

	if (!ctx || !fn)
		return -EINVAL;
	if (ctx->cur)
		return -EBUSY; /* called from a callback */
	/* set by any source this dispatch leaves queued for want of fds */
	ctx->fd_starved = false;
	r = dispatch(ctx, fn, userdata);
	/* the mount fds event paths needed: closed until the next batch, so
	 * no filesystem stays busy for an umount */
	fsn_ctx_mounts_release(ctx);
	return r;
}

static int dispatch(struct fsn_ctx *ctx, fsn_event_fn fn, void *userdata) {
	struct epoll_event ee[64];
	int count = 0, n, r;

	if (ctx->pend_len > 0) {
		unsigned src = ctx->pend_src;
		struct fsn_group *g = src ? fsn_group_ref(fsn_group_by_id(ctx, src)) : NULL;
		size_t off = ctx->pend_off, len = ctx->pend_len;

		fsn_ctx_pend_clear(ctx);
		/* (a group that left took its pending events along) */
		r = src == 0 || g ? dispatch_ctx_buffer(ctx, src, g, off, len, fn, userdata, &count)
				  : 0;
		fsn_group_unref(g);
		if (r < 0)
			return r;
	}

	if (ctx->reader) {
		r = dispatch_chunks(ctx, fn, userdata, &count);
		if (r < 0)
			return r;
	}

	/* One source (e.g. one permission group): read it, the epoll_wait()
	 * would only name it. */
	if (ctx->ifd < 0 && ctx->groups && !ctx->groups->next && !ctx->groups->in_reader) {
		r = dispatch_source(ctx, ctx->groups->id, fn, userdata, &count);
		return r < 0 ? r : count;
	}
	n = epoll_wait(ctx->epfd, ee, (int)ELEMENTSOF(ee), 0);
	if (n < 0)
		return errno == EINTR ? count : negative_errno();
	for (int i = 0; i < n; i++) {
		if (ee[i].data.u64 == PEND_EPOLL_ID || ee[i].data.u64 == READER_EPOLL_ID)
			continue; /* handled above */
		r = dispatch_source(ctx, (unsigned)ee[i].data.u64, fn, userdata, &count);
		if (r < 0)
			return r;
	}
	return count;
}

/* Whether ev (a dirent event) names dfid's entry name (either side of a
 * FAN_RENAME). */
static bool names_entry(const struct fsn_event *ev, const struct fsn_fid *dfid, const char *name) {
	return ((ev->has & FSN_HAS_NAME) && (ev->has & FSN_HAS_DFID) &&
		strcmp(ev->name, name) == 0 && fsn_fid_equal(&ev->dfid, dfid)) ||
	       ((ev->has & FSN_HAS_OLD) && strcmp(ev->old_name, name) == 0 &&
		fsn_fid_equal(&ev->old_dfid, dfid)) ||
	       ((ev->has & FSN_HAS_NEW) && strcmp(ev->new_name, name) == 0 &&
		fsn_fid_equal(&ev->new_dfid, dfid));
}

_public_ int fsn_ctx_name_taken_later(struct fsn_ctx *ctx, const struct fsn_fid *dfid,
				      const char *name) {
	const uint64_t out = FAN_DELETE | FAN_MOVED_FROM, in = FAN_CREATE | FAN_MOVED_TO;
	const struct fsn_pending_event *pe;
	size_t off;

	if (!ctx || !dfid || !name)
		return -EINVAL;
	pe = ctx->cur;
	if (!pe || !pe->group || !pe->buf)
		return 0;
	off = pe->next;
	for (unsigned i = 0; i < FSN_LATER_WINDOW && off + FAN_EVENT_METADATA_LEN <= pe->len; i++) {
		struct fanotify_event_metadata md;
		struct fsn_event ev;
		size_t at = off;

		memcpy(&md, (const char *)pe->buf + off, sizeof(md));
		if (md.event_len < sizeof(md) || md.event_len > pe->len - off)
			return 0;
		off += md.event_len;
		/* (a merge of out and in bits: which came first is not known) */
		if (!(md.mask & FAN_RENAME) &&
		    (!(md.mask & (out | in)) || ((md.mask & out) && (md.mask & in))))
			continue;
		if (fsn_decode_fanotify(pe->buf, pe->len, &at, &ev) == 1 &&
		    names_entry(&ev, dfid, name))
			return 1;
	}
	return 0;
}

_public_ int fsn_event_take_fd(struct fsn_event *ev) {
	int fd;

	if (!ev)
		return -EINVAL;
	if (ev->fd < 0)
		return -EBADF;
	fd = ev->fd;
	ev->fd = -1;
	return fd;
}
