/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * group.c — the context's fanotify groups: one per distinct (class, report
 * flags, tag) its marks ask for, made on the first such mark with the
 * kernel queue length the context asks for (fsn_ctx_set_queue_max(): the
 * sysctl set around fanotify_init(), and around inotify_init1() for the
 * inotify instance), and their accessors.
 *
 * Groups leave the context when their last object goes (mark.c). A taken
 * permission event (struct fsn_perm) holds a reference, so the group fd
 * then stays open until it is answered; everything else queued in such a
 * group is answered FAN_ALLOW and closed when it leaves the context.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <syslog.h>

#include "ctx-private.h"

/* ------------------------------------------------------------------------ */
/* groups                                                                   */
/* ------------------------------------------------------------------------ */

struct fsn_group *fsn_group_ref(struct fsn_group *g) {
	if (g)
		g->n_ref++;
	return g;
}

void fsn_group_unref(struct fsn_group *g) {
	if (!g || --g->n_ref > 0)
		return;
	safe_close(g->fd);
	free(g->moves);
	free(g);
}

struct fsn_group *fsn_group_by_id(const struct fsn_ctx *ctx, unsigned id) {
	for (struct fsn_group *g = ctx->groups; g; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

struct fsn_group *fsn_group_find(const struct fsn_ctx *ctx, enum fsn_class klass, uint32_t report,
				 uint32_t tag) {
	for (struct fsn_group *g = ctx->groups; g; g = g->next)
		if (g->klass == klass && g->report == report && g->tag == tag)
			return g;
	return NULL;
}

/* Events of these groups carry no fd: the reader thread may hold them
 * (a pidfd too, while the context's fd budget has room for it: else it
 * closes it as it reads, fsn_pidfds_ration()). */
bool fsn_group_drainable(const struct fsn_group *g) {
	return g->klass == FSN_CLASS_NOTIF && (g->report & (FAN_REPORT_FID | FAN_REPORT_DIR_FID));
}

/* ---- the kernel queue's length (fsn_ctx_set_queue_max()) ---- */

/* (one thread of the process at a time between setting and restoring) */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

static int sysctl_read(const char *file, unsigned *ret) {
	char buf[32];
	_cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? negative_errno() : -EIO;
	buf[n] = '\0';
	return sscanf(buf, "%u", ret) == 1 ? 0 : -EIO;
}

static int sysctl_write(const char *file, unsigned v) {
	char buf[32];
	_cleanup_close_ int fd = open(file, O_WRONLY | O_CLOEXEC);
	int n = snprintf(buf, sizeof(buf), "%u\n", v);

	if (fd < 0)
		return negative_errno();
	return write(fd, buf, (size_t)n) == n ? 0 : negative_errno();
}

/* Before creating a group (or instance): the sysctl set to the context's
 * length, under the lock (released by fsn_queue_len_end()). file NULL: an
 * unlimited queue, nothing to do. */
void fsn_queue_len_begin(struct fsn_ctx *ctx, const char *file, struct fsn_queue_len *q) {
	unsigned cur = 0;
	int r;

	*q = (struct fsn_queue_len){ .file = file };
	if (!file)
		return;
	pthread_mutex_lock(&queue_lock);
	if (sysctl_read(file, &cur) == 0)
		q->len = cur;
	if (ctx->queue_max == 0 || ctx->queue_max == cur)
		return;
	r = sysctl_write(file, ctx->queue_max);
	if (r < 0) {
		if (!ctx->queue_warned) {
			char ebuf[128];

			ctx->queue_warned = true;
			fsn_ctx_log(ctx, LOG_WARNING,
				    "cannot set %s to %u (%s): kernel queues get the system's %u "
				    "events",
				    file, ctx->queue_max, strerror_r(-r, ebuf, sizeof(ebuf)), cur);
		}
		return;
	}
	q->old = cur;
	q->len = ctx->queue_max;
}

void fsn_queue_len_end(struct fsn_queue_len *q) {
	if (!q->file)
		return;
	if (q->old)
		(void)sysctl_write(q->file, q->old);
	pthread_mutex_unlock(&queue_lock);
}

_public_ int fsn_ctx_set_queue_max(struct fsn_ctx *ctx, unsigned n) {
	if (!ctx)
		return -EINVAL;
	ctx->queue_max = n;
	return 0;
}

_public_ unsigned fsn_group_get_queue_max(const struct fsn_group *g) {
	return g ? g->queue_max : 0;
}

_public_ unsigned fsn_ctx_get_n_groups(const struct fsn_ctx *ctx) {
	unsigned n = 0;

	for (const struct fsn_group *g = ctx ? ctx->groups : NULL; g; g = g->next)
		n++;
	return n;
}

int fsn_group_new(struct fsn_ctx *ctx, enum fsn_class klass, uint32_t report, uint32_t tag,
		  struct fsn_group **ret) {
	static const unsigned class_flag[_FSN_CLASS_MAX] = {
		[FSN_CLASS_NOTIF] = FAN_CLASS_NOTIF,
		[FSN_CLASS_CONTENT] = FAN_CLASS_CONTENT,
		[FSN_CLASS_PRE_CONTENT] = FAN_CLASS_PRE_CONTENT,
	};
	const unsigned event_f_flags = O_RDONLY | O_CLOEXEC | O_LARGEFILE;
	unsigned flags = FAN_CLOEXEC | FAN_NONBLOCK | class_flag[klass] | report;
	_cleanup_close_ int fd = -1;
	struct fsn_group *g;
	struct fsn_queue_len q;
	bool audit = false;
	int err = 0;

	fsn_queue_len_begin(ctx, (report & FAN_UNLIMITED_QUEUE) ? NULL : FANOTIFY_QUEUE_SYSCTL, &q);
	/* Permission groups are asked for FAN_ENABLE_AUDIT so FAN_AUDIT
	 * responses work; without CAP_AUDIT_WRITE or CONFIG_AUDITSYSCALL
	 * they are created without it. */
	if (klass != FSN_CLASS_NOTIF) {
		fd = fanotify_init(flags | FAN_ENABLE_AUDIT, event_f_flags);
		if (fd < 0 && errno != EINVAL && errno != EPERM)
			err = negative_errno();
		audit = fd >= 0;
	}
	if (fd < 0 && err == 0) {
		fd = fanotify_init(flags, event_f_flags);
		if (fd < 0)
			err = negative_errno();
	}
	fsn_queue_len_end(&q);
	if (err < 0)
		return err;
	/* (a permission group's answers need it; without it they are written
	 * one by one) */
	if (klass != FSN_CLASS_NOTIF)
		(void)fsn_answers_alloc(&ctx->answers);

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct fsn_group){
		.ctx = ctx,
		.id = ctx->next_group_id,
		.n_ref = 1,
		.fd = -1,
		.klass = klass,
		.report = report,
		.tag = tag,
		.audit = audit,
		.queue_max = (report & FAN_UNLIMITED_QUEUE) ? 0 : q.len,
	};
	err = fsn_ctx_source_watch(ctx, g->id, fd, fsn_group_drainable(g),
				   (g->report & FAN_REPORT_PIDFD) != 0, &g->q, &g->in_reader);
	if (err < 0) {
		free(g);
		return err;
	}
	g->fd = take_fd(&fd);
	ctx->next_group_id++;
	g->next = ctx->groups;
	ctx->groups = g;
	*ret = g;
	return 0;
}

/* Answer and close the (not handed out) fanotify events in buf[off, len),
 * whose fds budget b counts. */
void fsn_group_release_events(struct fsn_fd_budget *b, struct fsn_group *g, const void *buf,
			      size_t off, size_t len) {
	struct fsn_event ev;

	while (fsn_decode_fanotify(buf, len, &off, &ev) > 0) {
		if (fsn_mask_is_perm(ev.mask) && ev.fd >= 0)
			(void)fsn_perm_write(g, ev.fd, FSN_ALLOW, 0, false);
		if (ev.fd >= 0)
			safe_close(ev.fd);
		if ((ev.has & FSN_HAS_PIDFD) && ev.pidfd >= 0)
			safe_close(ev.pidfd);
		fsn_fd_budget_release(b, fsn_event_fds(g, &ev));
	}
}

/* Read what is queued in a group that leaves the context but stays open, and
 * answer it: nobody would read it any more. Uses its own buffer, since the
 * context's may hold events being dispatched; no more events at once than
 * there are fds for (what cannot be read now is answered FAN_ALLOW by the
 * kernel when the group's fd closes). */
static void drain_group(struct fsn_fd_budget *b, struct fsn_group *g) {
	_Alignas(struct fanotify_event_metadata) unsigned char buf[8192];

	for (;;) {
		unsigned reserved;
		size_t len = fsn_group_read_len(b, g, sizeof(buf), &reserved);
		ssize_t n;

		if (len == 0)
			return;
		n = read(g->fd, buf, len);
		fsn_fd_budget_read_done(b, g, buf, n > 0 ? (size_t)n : 0, reserved);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		fsn_group_release_events(b, g, buf, 0, (size_t)n);
	}
}

/* Take a group out of the context (its last object went, or the context is
 * freed) and drop the context's reference. */
void fsn_group_detach(struct fsn_ctx *ctx, struct fsn_group *g) {
	struct fsn_group **p;

	fsn_ctx_source_unwatch(ctx, g->id, g->fd);
	for (p = &ctx->groups; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	g->next = NULL;
	if (ctx->pend_len > 0 && ctx->pend_src == g->id) {
		fsn_group_release_events(ctx->budget, g, ctx->buf, ctx->pend_off, ctx->pend_len);
		fsn_ctx_pend_clear(ctx);
	}
	g->ctx = NULL;
	fsn_fidcache_forget_tag(ctx->fidcache, g->id); /* its directory paths */
	if (g->n_ref > 1)
		drain_group(ctx->budget, g);
	fsn_group_unref(g);
}

_public_ struct fsn_group *fsn_ctx_next_group(const struct fsn_ctx *ctx,
					      const struct fsn_group *g) {
	if (!ctx)
		return NULL;
	return g ? g->next : ctx->groups;
}

_public_ int fsn_group_get_queued(const struct fsn_group *g) {
	int n = 0;

	if (!g || g->fd < 0)
		return -EINVAL;
	if (ioctl(g->fd, FIONREAD, &n) < 0)
		return negative_errno();
	return n / (int)FAN_EVENT_METADATA_LEN;
}

_public_ unsigned fsn_group_get_id(const struct fsn_group *g) {
	return g ? g->id : 0;
}

_public_ int fsn_group_get_fd(const struct fsn_group *g) {
	return g ? g->fd : -EINVAL;
}

_public_ enum fsn_class fsn_group_get_class(const struct fsn_group *g) {
	return g ? g->klass : FSN_CLASS_NOTIF;
}

_public_ uint32_t fsn_group_get_report(const struct fsn_group *g) {
	return g ? g->report : 0;
}

_public_ uint32_t fsn_group_get_tag(const struct fsn_group *g) {
	return g ? g->tag : 0;
}

/* ------------------------------------------------------------------------ */
/* internal accessors for the unit tests                                    */
/* ------------------------------------------------------------------------ */

int fsn_group_fd(const struct fsn_group *g) {
	return g ? g->fd : -1;
}
