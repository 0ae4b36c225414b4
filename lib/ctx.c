/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ctx.c — the context: one epoll fd over the fanotify groups and the inotify
 * fd, marks combined per kernel object, and dispatch (read until EAGAIN,
 * decode, hand out, close event fds, allow unanswered permission events).
 *
 * Marks and objects. Every fsn_ctx_add_mark() call is one struct fsn_mark.
 * Marks on the same kernel object (same group, mark type and inode / mount /
 * filesystem; for inotify the same wd) share one struct fsn_obj, which
 * remembers what the kernel was told: the union of its marks' masks and
 * ignore masks. Adding a mark sends FAN_MARK_ADD with the new union (always,
 * so a kernel mark that went away is placed again); removing one sends
 * FAN_MARK_REMOVE for exactly the bits no remaining mark needs.
 *
 * Reaching an object again. The kernel is always told about an object
 * through "/proc/self/fd/N" of an O_PATH fd (never the caller's path, which
 * may have been renamed or replaced since): the path of a mark is opened
 * once when it is added; to change an object's mask later it is found again
 * by its file handle (open_by_handle_at() on the context's mount fd, when
 * privileged) or by the absolute paths its marks had, and used only if it is
 * still the same object (dev/ino and handle, mount id, or dev). No fd is
 * kept per object: an O_PATH fd would pin the dentry and delay
 * IN_DELETE_SELF / FAN_DELETE_SELF and IN_IGNORED until it is closed. If an
 * object cannot be reached any more (renamed away), its kernel mask keeps
 * the bits of removed marks until its group is closed (inotify events no
 * remaining mark asked for are filtered out by dispatch).
 *
 * Groups are created on the first mark with their (class, report, tag) and
 * leave the context when their last object goes. A taken permission event
 * (struct fsn_perm) holds a reference, so the group fd then stays open until
 * it is answered; everything else queued in such a group is answered
 * FAN_ALLOW and closed when it leaves the context.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>

#include "ctx-private.h"

/* inotify flags that only steer the lookup or the add call; the object's
 * kernel mask is always set from the union without them */
#define IN_CALL_FLAGS (IN_DONT_FOLLOW | IN_ONLYDIR | IN_MASK_ADD | IN_MASK_CREATE)

/* event flags the kernel drops from a legacy ignored mask */
#define FAN_EVENT_FLAGS (FAN_EVENT_ON_CHILD | FAN_ONDIR)

#define KNOWN_MARK_FLAGS                                                                           \
	(FSN_MARK_F_DONT_FOLLOW | FSN_MARK_F_ONLYDIR | FSN_MARK_F_EVICTABLE |                      \
	 FSN_MARK_F_LEGACY_IGNORE | FSN_MARK_F_IGNORE_NO_SURV)

/* fanotify_init() flags the caller must not pass in spec.report */
#define FAN_INIT_RESERVED (FAN_CLOEXEC | FAN_NONBLOCK | FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT)

#define PROC_FD_PATH_MAX (sizeof("/proc/self/fd/") + 3 * sizeof(int))

static const char *const mark_type_name[_FSN_MARK_TYPE_MAX] = {
	[FSN_MARK_INODE] = "inode",
	[FSN_MARK_MOUNT] = "mount",
	[FSN_MARK_FILESYSTEM] = "filesystem",
	[FSN_MARK_INOTIFY] = "inotify",
};

/* ------------------------------------------------------------------------ */
/* logging                                                                  */
/* ------------------------------------------------------------------------ */

void fsn_ctx_log(struct fsn_ctx *ctx, int priority, const char *fmt, ...) {
	_cleanup_free_ char *big = NULL;
	char small[512];
	va_list ap;
	int n;

	if (!ctx || !ctx->log_fn)
		return;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		big = malloc((size_t)n + 1);
		if (big) {
			va_start(ap, fmt);
			vsnprintf(big, (size_t)n + 1, fmt, ap);
			va_end(ap);
		}
	}
	ctx->log_fn(ctx->log_userdata, priority, big ? big : small);
}

/* Paths are bytes an attacker may have chosen: non-printable bytes, '"' and
 * '\' become \xNN in log lines. Returns a malloc'd string or NULL. */
static char *escape_path(const char *s) {
	size_t n = strlen(s);
	char *out, *p;

	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	out = p = malloc(n * 4 + 1);
	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\' || c == '"')
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p = '\0';
	return out;
}

static void format_mask(enum fsn_mask_kind kind, uint64_t mask, char *buf, size_t len) {
	if (mask == 0 || fsn_mask_format(kind, mask, buf, len) < 0)
		snprintf(buf, len, "0x%" PRIx64, mask);
}

/* One line naming the path, the mark type, the masks and the reason. */
static void log_mark_failure(struct fsn_ctx *ctx, const struct fsn_mark_spec *spec, int r,
			     const char *why) {
	enum fsn_mask_kind kind =
	    spec->type == FSN_MARK_INOTIFY ? FSN_MASK_INOTIFY_EVENT : FSN_MASK_FANOTIFY_EVENT;
	_cleanup_free_ char *path = NULL;
	char mask[256], ignore[256] = "", ebuf[128];
	const char *type =
	    (unsigned)spec->type < _FSN_MARK_TYPE_MAX ? mark_type_name[spec->type] : "invalid";

	if (!ctx || !ctx->log_fn)
		return;
	path = spec->path ? escape_path(spec->path) : NULL;
	format_mask(kind, spec->mask, mask, sizeof(mask));
	if (spec->ignore)
		format_mask(FSN_MASK_FANOTIFY_EVENT, spec->ignore, ignore, sizeof(ignore));
	fsn_ctx_log(ctx, LOG_ERR, "cannot place %s mark on \"%s\" (mask %s%s%s): %s%s%s", type,
		    path ? path : "?", mask, spec->ignore ? ", ignore " : "", ignore,
		    why ? why : "", why ? ": " : "", strerror_r(-r, ebuf, sizeof(ebuf)));
}

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

static void pend_clear(struct fsn_ctx *ctx) {
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

/* Events of these groups carry no fd: the reader thread may hold them. */
static bool group_drainable(const struct fsn_group *g) {
	return g->klass == FSN_CLASS_NOTIF && (g->report & (FAN_REPORT_FID | FAN_REPORT_DIR_FID)) &&
	       !(g->report & FAN_REPORT_PIDFD);
}

/* *in_reader: whether the reader thread reads it now. */
static int source_watch(struct fsn_ctx *ctx, unsigned src, int fd, bool drainable,
			bool *in_reader) {
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = src };

	*in_reader = drainable && fsn_reader_running(ctx->reader) &&
		     fsn_reader_add(ctx->reader, src, fd) == 0;
	if (*in_reader)
		return 0;
	return epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, fd, &ee) < 0 ? negative_errno() : 0;
}

/* Before fd is closed: nobody reads it any more; what the reader thread
 * queued of it is dropped (the events of drainable sources own nothing). */
static void source_unwatch(struct fsn_ctx *ctx, unsigned src, int fd) {
	(void)epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, fd, NULL);
	if (ctx->reader)
		fsn_reader_remove(ctx->reader, src, true);
	if (ctx->chunk && ctx->chunk->src == src) {
		fsn_reader_done(ctx->reader, ctx->chunk);
		ctx->chunk = NULL;
		if (ctx->pend_len == 0)
			pend_unsignal(ctx);
	}
}

/* Move a drainable source to the reader thread (to_reader) or back to
 * the context's epoll set; one that cannot be moved stays where it is. */
static void source_move(struct fsn_ctx *ctx, unsigned src, int fd, bool *in_reader,
			bool to_reader) {
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = src };

	if (fd < 0 || *in_reader == to_reader)
		return;
	if (to_reader) {
		if (fsn_reader_add(ctx->reader, src, fd) < 0)
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
		if (group_drainable(g))
			source_move(ctx, g->id, g->fd, &g->in_reader, to_reader);
	source_move(ctx, 0, ctx->ifd, &ctx->ifd_in_reader, to_reader);
}

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

static struct fsn_group *group_by_id(const struct fsn_ctx *ctx, unsigned id) {
	for (struct fsn_group *g = ctx->groups; g; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

static struct fsn_group *group_find(const struct fsn_ctx *ctx, enum fsn_class klass,
				    uint32_t report, uint32_t tag) {
	for (struct fsn_group *g = ctx->groups; g; g = g->next)
		if (g->klass == klass && g->report == report && g->tag == tag)
			return g;
	return NULL;
}

/* ---- the kernel queue's length (fsn_ctx_set_queue_max()) ---- */

#define FANOTIFY_QUEUE_SYSCTL "/proc/sys/fs/fanotify/max_queued_events"
#define INOTIFY_QUEUE_SYSCTL "/proc/sys/fs/inotify/max_queued_events"

/* (one thread of the process at a time between setting and restoring) */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

struct queue_len {
	const char *file;
	unsigned old; /* what to write back; 0: nothing */
	unsigned len; /* what the group will get */
};

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
 * length, under the lock (released by queue_len_end()). file NULL: an
 * unlimited queue, nothing to do. */
static void queue_len_begin(struct fsn_ctx *ctx, const char *file, struct queue_len *q) {
	unsigned cur = 0;
	int r;

	*q = (struct queue_len){ .file = file };
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

static void queue_len_end(struct queue_len *q) {
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
	/* (what the context holds was counted in the budget it had) */
	if (ctx->cur || ctx->pend_len > 0)
		return -EBUSY;
	fsn_fd_budget_ref(b);
	fsn_fd_budget_unref(ctx->budget);
	ctx->budget = b;
	return 0;
}

_public_ bool fsn_ctx_is_drained(const struct fsn_ctx *ctx) {
	return ctx && ctx->pend_len == 0 && !ctx->chunk && !ctx->fd_starved &&
	       (!ctx->reader || fsn_reader_idle(ctx->reader));
}

_public_ unsigned fsn_ctx_get_inotify_queue_max(const struct fsn_ctx *ctx) {
	return ctx && ctx->ifd >= 0 ? ctx->ifd_queue : 0;
}

_public_ unsigned fsn_ctx_get_n_groups(const struct fsn_ctx *ctx) {
	unsigned n = 0;

	for (const struct fsn_group *g = ctx ? ctx->groups : NULL; g; g = g->next)
		n++;
	return n;
}

static int group_new(struct fsn_ctx *ctx, enum fsn_class klass, uint32_t report, uint32_t tag,
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
	struct queue_len q;
	bool audit = false;
	int err = 0;

	queue_len_begin(ctx, (report & FAN_UNLIMITED_QUEUE) ? NULL : FANOTIFY_QUEUE_SYSCTL, &q);
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
	queue_len_end(&q);
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
	err = source_watch(ctx, g->id, fd, group_drainable(g), &g->in_reader);
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
static void release_events(struct fsn_fd_budget *b, struct fsn_group *g, const void *buf,
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
		release_events(b, g, buf, 0, (size_t)n);
	}
}

/* Take a group out of the context (its last object went, or the context is
 * freed) and drop the context's reference. */
static void group_detach(struct fsn_ctx *ctx, struct fsn_group *g) {
	struct fsn_group **p;

	source_unwatch(ctx, g->id, g->fd);
	for (p = &ctx->groups; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	g->next = NULL;
	if (ctx->pend_len > 0 && ctx->pend_src == g->id) {
		release_events(ctx->budget, g, ctx->buf, ctx->pend_off, ctx->pend_len);
		pend_clear(ctx);
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

_public_ bool fsn_ctx_has_inotify(const struct fsn_ctx *ctx) {
	return ctx && ctx->ifd >= 0;
}

_public_ int fsn_group_get_queued(const struct fsn_group *g) {
	int n = 0;

	if (!g || g->fd < 0)
		return -EINVAL;
	if (ioctl(g->fd, FIONREAD, &n) < 0)
		return negative_errno();
	return n / (int)FAN_EVENT_METADATA_LEN;
}

_public_ int fsn_ctx_get_inotify_queued_bytes(const struct fsn_ctx *ctx) {
	int n = 0;

	if (!ctx)
		return -EINVAL;
	if (ctx->ifd < 0)
		return -ENOENT;
	if (ioctl(ctx->ifd, FIONREAD, &n) < 0)
		return negative_errno();
	return n;
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
/* objects                                                                  */
/* ------------------------------------------------------------------------ */

/* What identifies the object an O_PATH fd refers to. */
struct obj_id {
	dev_t dev;
	ino_t ino;
	uint64_t mnt_id;
	bool has_handle;
	struct fsn_fid handle; /* fsid is always set */
};

static int obj_id_from_fd(int fd, enum fsn_mark_type type, struct obj_id *ret) {
	struct obj_id id = { 0 };
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	id.dev = st.st_dev;
	id.ino = st.st_ino;

	/* Not every filesystem gives handles (procfs, pipefs ...): then the
	 * object is known by dev/ino alone. */
	if (fsn_fid_from_fd(fd, &id.handle) == 0)
		id.has_handle = true;
	else {
		r = fsn_fsid_from_fd(fd, id.handle.fsid);
		if (r < 0)
			return r;
	}

	if (type == FSN_MARK_MOUNT) {
		struct statx sx;

		if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0)
			return negative_errno();
		if (!(sx.stx_mask & STATX_MNT_ID))
			return -EOPNOTSUPP;
		id.mnt_id = sx.stx_mnt_id;
	}
	*ret = id;
	return 0;
}

static bool obj_matches(const struct fsn_obj *o, const struct obj_id *id) {
	switch (o->type) {
	case FSN_MARK_INODE:
	case FSN_MARK_INOTIFY:
		if (o->dev != id->dev || o->ino != id->ino)
			return false;
		/* the handle carries the generation: a reused inode number differs */
		return !o->has_handle || !id->has_handle || fsn_fid_equal(&o->handle, &id->handle);
	case FSN_MARK_MOUNT: return o->mnt_id == id->mnt_id;
	case FSN_MARK_FILESYSTEM: return o->dev == id->dev;
	default: return false;
	}
}

static uint64_t obj_key_hash(unsigned group_id, enum fsn_mark_type type, const struct obj_id *id) {
	struct {
		uint64_t group_id, type, dev, ino, mnt_id;
	} k = { group_id, (uint64_t)type, 0, 0, 0 };

	switch (type) {
	case FSN_MARK_INODE:
		k.dev = id->dev;
		k.ino = id->ino;
		break;
	case FSN_MARK_MOUNT: k.mnt_id = id->mnt_id; break;
	default: k.dev = id->dev; break;
	}
	return hash_bytes(HASH_INIT, &k, sizeof(k));
}

static uint64_t wd_hash(int wd) {
	return hash_bytes(HASH_INIT, &wd, sizeof(wd));
}

static struct fsn_obj *obj_find(const struct fsn_ctx *ctx, const struct fsn_group *g,
				enum fsn_mark_type type, const struct obj_id *id) {
	uint64_t h = obj_key_hash(g->id, type, id);

	for (struct fsn_hnode *n = fsn_hmap_chain(&ctx->objs_by_key, h); n; n = n->next) {
		struct fsn_obj *o = container_of(n, struct fsn_obj, by_key);

		if (n->hash == h && o->group == g && o->type == type && obj_matches(o, id))
			return o;
	}
	return NULL;
}

static struct fsn_obj *obj_by_wd(const struct fsn_ctx *ctx, int wd) {
	uint64_t h = wd_hash(wd);

	for (struct fsn_hnode *n = fsn_hmap_chain(&ctx->objs_by_wd, h); n; n = n->next) {
		struct fsn_obj *o = container_of(n, struct fsn_obj, by_wd);

		if (n->hash == h && o->wd == wd && !o->dead)
			return o;
	}
	return NULL;
}

/* A new object, linked into the context (and its key or wd table). */
static int obj_new(struct fsn_ctx *ctx, struct fsn_group *g, enum fsn_mark_type type,
		   const struct obj_id *id, int wd, struct fsn_obj **ret) {
	struct fsn_obj *o = calloc(1, sizeof(*o));
	int r;

	if (!o)
		return -ENOMEM;
	o->group = g;
	o->type = type;
	o->dev = id->dev;
	o->ino = id->ino;
	o->mnt_id = id->mnt_id;
	o->has_handle = id->has_handle;
	o->handle = id->handle;
	o->wd = wd;
	if (type == FSN_MARK_INOTIFY)
		r = fsn_hmap_put(&ctx->objs_by_wd, &o->by_wd, wd_hash(wd));
	else
		r = fsn_hmap_put(&ctx->objs_by_key, &o->by_key, obj_key_hash(g->id, type, id));
	if (r < 0) {
		free(o);
		return r;
	}
	if (g) {
		g->n_objs++;
		if (type == FSN_MARK_FILESYSTEM)
			g->moves_known = false;
	}
	o->next = ctx->objs;
	if (ctx->objs)
		ctx->objs->prev = o;
	ctx->objs = o;
	*ret = o;
	return 0;
}

/* Mark an inotify object dead: its wd is gone in the kernel. */
static void obj_kill(struct fsn_ctx *ctx, struct fsn_obj *o) {
	if (o->dead)
		return;
	o->dead = true;
	fsn_hmap_remove(&ctx->objs_by_wd, &o->by_wd);
}

/* Free an object without telling the kernel; the caller did or need not. */
static void obj_free(struct fsn_ctx *ctx, struct fsn_obj *o) {
	struct fsn_group *g = o->group;

	if (o->type == FSN_MARK_INOTIFY)
		obj_kill(ctx, o);
	else
		fsn_hmap_remove(&ctx->objs_by_key, &o->by_key);
	if (o->prev)
		o->prev->next = o->next;
	else
		ctx->objs = o->next;
	if (o->next)
		o->next->prev = o->prev;
	if (o->has_mount)
		fsn_ctx_mount_unref(ctx, o->handle.fsid);
	if (g && o->type == FSN_MARK_FILESYSTEM)
		g->moves_known = false;
	free(o);
	if (g && --g->n_objs == 0)
		group_detach(ctx, g);
}

/* Marks stay in the order they were added ("the first mark" is the oldest). */
static void obj_link_mark(struct fsn_obj *o, struct fsn_mark *m) {
	m->obj = o;
	m->prev = o->marks_tail;
	m->next = NULL;
	if (o->marks_tail)
		o->marks_tail->next = m;
	else
		o->marks = m;
	o->marks_tail = m;
	o->n_marks++;
}

static void obj_unlink_mark(struct fsn_obj *o, struct fsn_mark *m) {
	if (m->prev)
		m->prev->next = m->next;
	else
		o->marks = m->next;
	if (m->next)
		m->next->prev = m->prev;
	else
		o->marks_tail = m->prev;
	m->prev = m->next = NULL;
	m->obj = NULL;
	o->n_marks--;
}

static int open_flags(const struct fsn_mark_spec *spec) {
	bool inotify = spec->type == FSN_MARK_INOTIFY;
	int flags = O_PATH | O_CLOEXEC;

	if ((spec->flags & FSN_MARK_F_DONT_FOLLOW) || (inotify && (spec->mask & IN_DONT_FOLLOW)))
		flags |= O_NOFOLLOW;
	if ((spec->flags & FSN_MARK_F_ONLYDIR) || (inotify && (spec->mask & IN_ONLYDIR)))
		flags |= O_DIRECTORY;
	return flags;
}

static int try_reach(const struct fsn_obj *o, const struct fsn_mark *m) {
	_cleanup_close_ int fd = -1;
	struct obj_id id;

	if (!m->abspath)
		return -ENOENT;
	fd = open(m->abspath, open_flags(&m->spec));
	if (fd < 0)
		return negative_errno();
	if (obj_id_from_fd(fd, o->type, &id) < 0 || !obj_matches(o, &id))
		return -ESTALE;
	return take_fd(&fd);
}

/* An O_PATH fd on the object, found again (see the top of the file), or
 * -ESTALE if it cannot be reached any more. `gone` is a mark that just left
 * the object; its path is worth a try too. */
static int obj_open(struct fsn_ctx *ctx, const struct fsn_obj *o, const struct fsn_mark *gone) {
	int mfd = fsn_ctx_mount_fd(ctx, o->handle.fsid);
	struct obj_id id;

	if (mfd >= 0 && (o->has_handle || o->type == FSN_MARK_FILESYSTEM)) {
		_cleanup_close_ int fd = -1;

		if (o->type == FSN_MARK_FILESYSTEM)
			fd = fcntl(mfd, F_DUPFD_CLOEXEC, 3);
		else if (o->type != FSN_MARK_MOUNT)
			fd = fsn_fid_open(mfd, &o->handle, O_PATH | O_CLOEXEC);
		if (fd >= 0 && obj_id_from_fd(fd, o->type, &id) == 0 && obj_matches(o, &id))
			return take_fd(&fd);
	}

	for (const struct fsn_mark *m = o->marks; m; m = m->next) {
		int fd = try_reach(o, m);

		if (fd >= 0)
			return fd;
	}
	return gone ? try_reach(o, gone) : -ESTALE;
}

/* ------------------------------------------------------------------------ */
/* fanotify marks                                                           */
/* ------------------------------------------------------------------------ */

static unsigned type_flag(enum fsn_mark_type type) {
	switch (type) {
	case FSN_MARK_MOUNT: return FAN_MARK_MOUNT;
	case FSN_MARK_FILESYSTEM: return FAN_MARK_FILESYSTEM;
	default: return FAN_MARK_INODE;
	}
}

static unsigned ignore_add_flags(enum fsn_ignore_mode mode) {
	switch (mode) {
	case FSN_IGN_NEW: return FAN_MARK_IGNORE_SURV;
	case FSN_IGN_LEGACY_SURV: return FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY;
	default: return FAN_MARK_IGNORED_MASK;
	}
}

static unsigned ignore_remove_flags(enum fsn_ignore_mode mode) {
	return mode == FSN_IGN_NEW ? FAN_MARK_IGNORE : FAN_MARK_IGNORED_MASK;
}

static int fan_mark(const struct fsn_obj *o, unsigned flags, uint64_t mask, int fd) {
	char path[PROC_FD_PATH_MAX];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (fanotify_mark(o->group->fd, flags | type_flag(o->type), mask, AT_FDCWD, path) < 0)
		return negative_errno();
	return 0;
}

/*
 * Bring the kernel mark of o (reached through fd) from (o->kmask,
 * o->kignore) to (mask, ignore). With force, the full unions are added even
 * if no bit is new (places the mark again if the kernel dropped it). Adding
 * is all or nothing; removing goes on past errors (ENOENT: the kernel mark
 * is gone already, e.g. its inode was deleted) and returns the first one.
 */
static int fan_update(struct fsn_obj *o, int fd, uint64_t mask, uint64_t ignore,
		      enum fsn_ignore_mode mode, unsigned add_flags, bool force) {
	uint64_t add_mask = mask & ~o->kmask, add_ignore = ignore & ~o->kignore;
	uint64_t del_mask = o->kmask & ~mask, del_ignore = o->kignore & ~ignore;
	int r, ret = 0;

	if (mask && (add_mask || force)) {
		r = fan_mark(o, FAN_MARK_ADD | add_flags, mask, fd);
		if (r < 0)
			return r;
	}
	if (ignore && (add_ignore || force)) {
		r = fan_mark(o, FAN_MARK_ADD | add_flags | ignore_add_flags(mode), ignore, fd);
		if (r < 0) {
			if (add_mask)
				(void)fan_mark(o, FAN_MARK_REMOVE, add_mask, fd);
			return r;
		}
	}
	if (del_ignore) {
		r = fan_mark(o, FAN_MARK_REMOVE | ignore_remove_flags(o->ign_mode), del_ignore, fd);
		if (r < 0 && r != -ENOENT && ret == 0)
			ret = r;
	}
	if (del_mask) {
		r = fan_mark(o, FAN_MARK_REMOVE, del_mask, fd);
		if (r < 0 && r != -ENOENT && ret == 0)
			ret = r;
	}

	if (o->type == FSN_MARK_FILESYSTEM && o->kmask != mask)
		o->group->moves_known = false;
	o->kmask = mask;
	o->kignore = ignore;
	if (ignore && o->ign_mode == FSN_IGN_NONE)
		o->ign_mode = mode;
	return ret;
}

static int add_fanotify(struct fsn_ctx *ctx, struct fsn_mark *m, int fd, const struct obj_id *id,
			const char **why) {
	const struct fsn_mark_spec *spec = &m->spec;
	enum fsn_ignore_mode mode = FSN_IGN_NONE;
	struct fsn_group *g;
	struct fsn_obj *o;
	bool created = false, evictable;
	unsigned add_flags;
	int r;

	g = group_find(ctx, spec->klass, spec->report, spec->group_tag);
	if (!g) {
		r = group_new(ctx, spec->klass, spec->report, spec->group_tag, &g);
		if (r < 0) {
			*why = "fanotify_init";
			return r;
		}
	}

	m->mask = spec->mask;
	m->ignore = spec->ignore;
	if (m->ignore) {
		if (spec->flags & FSN_MARK_F_IGNORE_NO_SURV)
			mode = FSN_IGN_LEGACY;
		else if ((spec->flags & FSN_MARK_F_LEGACY_IGNORE) || ctx->ignore_new == 0)
			mode = FSN_IGN_LEGACY_SURV;
		else
			mode = FSN_IGN_NEW;
		if (mode != FSN_IGN_NEW)
			m->ignore &= ~(uint64_t)FAN_EVENT_FLAGS;
	}
	if (!m->mask && !m->ignore) {
		r = -EINVAL;
		*why = "empty mask";
		goto fail;
	}

	o = obj_find(ctx, g, spec->type, id);
	if (o && m->ignore && o->ign_mode != FSN_IGN_NONE && o->ign_mode != mode) {
		/* the kernel cannot mix ignore styles on one mark either */
		r = -EEXIST;
		*why = "an ignore mask of another style is already on this object";
		goto fail;
	}
	if (!o) {
		r = obj_new(ctx, g, spec->type, id, -1, &o);
		if (r < 0)
			goto fail;
		created = true;
		/* before the mark: opening the mount root is an open our
		 * own new mark would otherwise report. Only groups that
		 * report file handles need it: a permission group never
		 * opens anything (a caller answering permission events from
		 * another thread would otherwise wait for itself here, when
		 * a second group of its marks the same filesystem) */
		if ((g->report & (FAN_REPORT_FID | FAN_REPORT_DIR_FID)) &&
		    fsn_ctx_mount_ref(ctx, fd, m->abspath, o->handle.fsid) == 0)
			o->has_mount = true;
	}

	/* The kernel mark is evictable only while every mark on it is; an
	 * evictable one is upgraded by adding without the flag, never back. */
	evictable = (spec->flags & FSN_MARK_F_EVICTABLE) && (created || o->kevictable);
	add_flags = evictable ? FAN_MARK_EVICTABLE : 0;

	r = fan_update(o, fd, o->kmask | m->mask, o->kignore | m->ignore,
		       o->ign_mode != FSN_IGN_NONE ? o->ign_mode : mode, add_flags, true);
	if (r == -EINVAL && mode == FSN_IGN_NEW && ctx->ignore_new != 1 &&
	    o->ign_mode == FSN_IGN_NONE) {
		/* A kernel without FAN_MARK_IGNORE (before 6.0): legacy. */
		uint64_t legacy = m->ignore & ~(uint64_t)FAN_EVENT_FLAGS;

		if (m->mask || legacy) {
			r = fan_update(o, fd, o->kmask | m->mask, o->kignore | legacy,
				       FSN_IGN_LEGACY_SURV, add_flags, true);
			if (r == 0) {
				ctx->ignore_new = 0;
				m->ignore = legacy;
				mode = FSN_IGN_LEGACY_SURV;
				fsn_ctx_log(ctx, LOG_DEBUG,
					    "FAN_MARK_IGNORE refused, using FAN_MARK_IGNORED_MASK");
			}
		}
	} else if (r == 0 && mode == FSN_IGN_NEW)
		ctx->ignore_new = 1;
	if (r < 0) {
		*why = "fanotify_mark";
		if (created)
			obj_free(ctx, o); /* also detaches g if this was its only object */
		return r;
	}

	if (created || !(spec->flags & FSN_MARK_F_EVICTABLE))
		o->kevictable = evictable;
	m->ign_mode = mode;
	obj_link_mark(o, m);
	return 0;

fail:
	if (g->n_objs == 0)
		group_detach(ctx, g);
	return r;
}

/* After mark `gone` left o (o may have no marks left now). */
static int remove_fanotify(struct fsn_ctx *ctx, struct fsn_obj *o, const struct fsn_mark *gone) {
	_cleanup_close_ int fd = -1;
	uint64_t mask = 0, ignore = 0;

	for (const struct fsn_mark *m = o->marks; m; m = m->next) {
		mask |= m->mask;
		ignore |= m->ignore;
	}
	if (mask == o->kmask && ignore == o->kignore)
		return 0;

	fd = obj_open(ctx, o, gone);
	if (fd < 0) {
		fsn_ctx_log(ctx, LOG_DEBUG,
			    "fanotify group %u: marked object not reachable any more, its kernel "
			    "mark keeps mask 0x%" PRIx64 " ignore 0x%" PRIx64,
			    o->group->id, o->kmask, o->kignore);
		return 0;
	}
	return fan_update(o, fd, mask, ignore, o->ign_mode, 0, false);
}

/* ------------------------------------------------------------------------ */
/* inotify watches                                                          */
/* ------------------------------------------------------------------------ */

static int inotify_watch(const struct fsn_ctx *ctx, int fd, uint32_t mask) {
	char path[PROC_FD_PATH_MAX];
	int wd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(ctx->ifd, path, mask);
	return wd < 0 ? negative_errno() : wd;
}

static int add_inotify(struct fsn_ctx *ctx, struct fsn_mark *m, int fd, const struct obj_id *id,
		       const char **why) {
	const struct fsn_mark_spec *spec = &m->spec;
	struct fsn_obj *o;
	uint32_t call;
	int wd, r;

	if (spec->ignore || spec->mask > UINT32_MAX ||
	    (spec->flags &
	     (FSN_MARK_F_EVICTABLE | FSN_MARK_F_LEGACY_IGNORE | FSN_MARK_F_IGNORE_NO_SURV))) {
		*why = "not an inotify mask or flag";
		return -EINVAL;
	}

	if (ctx->ifd < 0) {
		struct queue_len q;
		int ifd;

		queue_len_begin(ctx, INOTIFY_QUEUE_SYSCTL, &q);
		ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		r = ifd < 0 ? negative_errno() : 0;
		queue_len_end(&q);
		if (ifd < 0) {
			*why = "inotify_init1";
			return r;
		}
		ctx->ifd_queue = q.len;
		r = source_watch(ctx, 0, ifd, true, &ctx->ifd_in_reader);
		if (r < 0) {
			safe_close(ifd);
			*why = "epoll_ctl";
			return r;
		}
		ctx->ifd = ifd;
	}

	m->mask = spec->mask & ~(uint64_t)IN_CALL_FLAGS;
	/* IN_MASK_ADD: the kernel ORs our bits into a watch that other marks
	 * share (so the union stays right without reading it back); with
	 * IN_MASK_CREATE the caller wants EEXIST for a watched inode. */
	call = (uint32_t)m->mask | ((spec->mask & IN_MASK_CREATE) ? IN_MASK_CREATE : IN_MASK_ADD);
	wd = inotify_watch(ctx, fd, call);
	if (wd < 0) {
		*why = "inotify_add_watch";
		return wd;
	}

	o = obj_by_wd(ctx, wd);
	if (!o) {
		r = obj_new(ctx, NULL, FSN_MARK_INOTIFY, id, wd, &o);
		if (r < 0) {
			(void)inotify_rm_watch(ctx->ifd, wd);
			return r;
		}
	}
	o->kmask |= m->mask;
	obj_link_mark(o, m);
	return 0;
}

static int remove_inotify(struct fsn_ctx *ctx, struct fsn_obj *o, const struct fsn_mark *gone) {
	_cleanup_close_ int fd = -1;
	uint64_t mask = 0;
	int wd;

	if (o->dead)
		return 0;
	if (o->n_marks == 0) {
		obj_kill(ctx, o);
		/* EINVAL: the watch went already, its IN_IGNORED is queued */
		if (inotify_rm_watch(ctx->ifd, o->wd) < 0 && errno != EINVAL)
			return negative_errno();
		return 0;
	}

	for (const struct fsn_mark *m = o->marks; m; m = m->next)
		mask |= m->mask;
	if (mask == o->kmask)
		return 0;
	fd = obj_open(ctx, o, gone);
	if (fd < 0) {
		/* dispatch hands out only what a remaining mark asked for */
		fsn_ctx_log(
		    ctx, LOG_DEBUG,
		    "inotify watch %d: object not reachable any more, keeps mask 0x%" PRIx64, o->wd,
		    o->kmask);
		return 0;
	}
	wd = inotify_watch(ctx, fd, (uint32_t)mask); /* replaces the mask */
	if (wd < 0)
		return wd;
	if (wd != o->wd) {
		/* the watch was gone and this made a new one: take it away again */
		(void)inotify_rm_watch(ctx->ifd, wd);
		return 0;
	}
	o->kmask = mask;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* marks                                                                    */
/* ------------------------------------------------------------------------ */

static struct fsn_mark *mark_free(struct fsn_mark *m) {
	if (m) {
		free((char *)m->spec.path);
		free(m->abspath);
		free(m);
	}
	return NULL;
}

static inline void mark_freep(struct fsn_mark **m) {
	mark_free(*m);
}

_public_ int fsn_ctx_add_mark(struct fsn_ctx *ctx, const struct fsn_mark_spec *spec,
			      struct fsn_mark **ret) {
	_cleanup_(mark_freep) struct fsn_mark *m = NULL;
	_cleanup_close_ int fd = -1;
	const char *why = NULL;
	struct obj_id id;
	int r;

	if (!ctx || !spec)
		return -EINVAL;
	if ((unsigned)spec->type >= _FSN_MARK_TYPE_MAX || !spec->path ||
	    (spec->flags & ~KNOWN_MARK_FLAGS) ||
	    (spec->type != FSN_MARK_INOTIFY &&
	     ((unsigned)spec->klass >= _FSN_CLASS_MAX || (spec->report & FAN_INIT_RESERVED)))) {
		log_mark_failure(ctx, spec, -EINVAL, "invalid mark spec");
		return -EINVAL;
	}

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->spec = *spec;
	m->spec.path = strdup(spec->path);
	if (!m->spec.path)
		return -ENOMEM;

	fd = openat(spec->dirfd, spec->path, open_flags(spec));
	if (fd < 0) {
		r = negative_errno();
		log_mark_failure(ctx, spec, r, NULL);
		return r;
	}
	r = obj_id_from_fd(fd, spec->type, &id);
	if (r < 0) {
		log_mark_failure(ctx, spec, r, "cannot identify the object");
		return r;
	}
	{
		char path[PATH_MAX];

		/* only used to reach the object again; fine to go without */
		if (fsn_fd_path(fd, path, sizeof(path), NULL) >= 0 && path[0] == '/')
			m->abspath = strdup(path);
	}

	if (spec->type == FSN_MARK_INOTIFY)
		r = add_inotify(ctx, m, fd, &id, &why);
	else
		r = add_fanotify(ctx, m, fd, &id, &why);
	if (r < 0) {
		log_mark_failure(ctx, spec, r, why);
		return r;
	}

	if (ret)
		*ret = m;
	m = NULL; /* owned by its object now */
	return 0;
}

_public_ int fsn_ctx_remove_mark(struct fsn_ctx *ctx, struct fsn_mark *mark) {
	struct fsn_obj *o;
	int r;

	if (!mark)
		return 0;
	if (!ctx)
		return -EINVAL;

	o = mark->obj;
	obj_unlink_mark(o, mark);
	if (o->type == FSN_MARK_INOTIFY)
		r = remove_inotify(ctx, o, mark);
	else
		r = remove_fanotify(ctx, o, mark);
	if (r < 0) {
		_cleanup_free_ char *path = escape_path(mark->spec.path);
		char ebuf[128];

		fsn_ctx_log(ctx, LOG_WARNING, "removing %s mark on \"%s\": %s",
			    mark_type_name[o->type], path ? path : "?",
			    strerror_r(-r, ebuf, sizeof(ebuf)));
	}
	if (o->n_marks == 0)
		obj_free(ctx, o);
	mark_free(mark);
	if (!ctx->cur)
		fsn_ctx_mounts_release(ctx); /* (obj_open() may have opened one) */
	return r;
}

_public_ void *fsn_mark_get_userdata(const struct fsn_mark *mark) {
	return mark ? mark->spec.userdata : NULL;
}

_public_ const struct fsn_mark_spec *fsn_mark_get_spec(const struct fsn_mark *mark) {
	return mark ? &mark->spec : NULL;
}

_public_ struct fsn_group *fsn_mark_get_group(const struct fsn_mark *mark) {
	return mark && mark->obj ? mark->obj->group : NULL;
}

_public_ int fsn_mark_get_fid(const struct fsn_mark *mark, struct fsn_fid *ret) {
	const struct fsn_obj *o = mark ? mark->obj : NULL;

	if (!o || !ret)
		return -EINVAL;
	if (!o->has_handle) {
		*ret = (struct fsn_fid){ .fsid = { o->handle.fsid[0], o->handle.fsid[1] } };
		return -ENODATA;
	}
	*ret = o->handle;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* context                                                                  */
/* ------------------------------------------------------------------------ */

_public_ int fsn_ctx_new(struct fsn_ctx **ret) {
	struct fsn_ctx *ctx;

	if (!ret)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->ifd = -1;
	ctx->pend_efd = -1;
	ctx->proc_fd_dir = -1;
	ctx->ignore_new = -1;
	ctx->next_group_id = 1;
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epfd < 0) {
		int r = negative_errno();

		free(ctx);
		return r;
	}
	ctx->buf = aligned_alloc(64, FSN_READ_BUF_SIZE);
	if (!ctx->buf || fsn_fidcache_new(FSN_FID_CACHE_MAX, &ctx->fidcache) < 0) {
		free(ctx->buf);
		safe_close(ctx->epfd);
		free(ctx);
		return -ENOMEM;
	}
	*ret = ctx;
	return 0;
}

_public_ struct fsn_ctx *fsn_ctx_free(struct fsn_ctx *ctx) {
	if (!ctx)
		return NULL;

	/* (first: it reads the fds closed below) */
	fsn_reader_stop(ctx->reader);
	/* Closing the fds drops every kernel mark and watch; only the
	 * bookkeeping goes here. Groups leave with their last object,
	 * answering what was read but not handed out. */
	while (ctx->objs) {
		struct fsn_obj *o = ctx->objs;

		while (o->marks) {
			struct fsn_mark *m = o->marks;

			obj_unlink_mark(o, m);
			mark_free(m);
		}
		obj_free(ctx, o);
	}
	while (ctx->groups)
		group_detach(ctx, ctx->groups);
	ctx->pend_len = 0; /* inotify events own nothing */
	if (ctx->chunk)
		fsn_reader_done(ctx->reader, ctx->chunk);
	ctx->reader = fsn_reader_free(ctx->reader);

	fsn_answers_free(&ctx->answers);
	fsn_fd_budget_unref(ctx->budget);
	safe_close(ctx->pend_efd);
	safe_close(ctx->ifd);
	safe_close(ctx->proc_fd_dir);
	safe_close(ctx->epfd);
	fsn_ctx_paths_done(ctx);
	fsn_hmap_done(&ctx->objs_by_key);
	fsn_hmap_done(&ctx->objs_by_wd);
	free(ctx->buf);
	free(ctx);
	return NULL;
}

_public_ void fsn_ctx_set_log(struct fsn_ctx *ctx, fsn_log_fn fn, void *userdata) {
	if (!ctx)
		return;
	ctx->log_fn = fn;
	ctx->log_userdata = userdata;
}

_public_ int fsn_ctx_get_fd(const struct fsn_ctx *ctx) {
	return ctx ? ctx->epfd : -EINVAL;
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
	o = obj_by_wd(ctx, ev->wd);
	if (!o)
		return false;
	for (struct fsn_mark *m = o->marks; m; m = m->next)
		if (!bits || (m->mask & bits)) {
			ev->mark = m;
			break;
		}
	if (!ev->mark)
		return false;
	if (ev->mask & IN_IGNORED)
		obj_kill(ctx, o); /* before the callback: removing the mark must not touch the wd */
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

/* Hand out the events in buf[*off, len) read from source src (group g, or
 * the inotify fd when src == 0); *off: where it stopped (a callback's
 * error: the rest is the caller's to keep). The answers of its permission
 * events are written as one when it ends (dispatch_buffer()). */
static int dispatch_events(struct fsn_ctx *ctx, const void *buf, unsigned src, struct fsn_group *g,
			   size_t *offp, size_t len, fsn_event_fn fn, void *userdata, int *count) {
	size_t off = *offp;

	while (off < len) {
		struct fsn_pending_event pe = { .perm_fd = -1, .group = g };
		size_t next = off;
		int r;

		if (g)
			r = fsn_decode_fanotify(buf, len, &next, &pe.ev);
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
			release_events(ctx->budget, g, buf, off, len);
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
			g = fsn_group_ref(group_by_id(ctx, c->src));
			if (!g) { /* (it left: its chunks went with it) */
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
		struct fsn_group *g = failed_src ? group_by_id(ctx, failed_src) : NULL;
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
		g = group_by_id(ctx, src);
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
		struct fsn_group *g = src ? fsn_group_ref(group_by_id(ctx, src)) : NULL;
		size_t off = ctx->pend_off, len = ctx->pend_len;

		pend_clear(ctx);
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

/* ------------------------------------------------------------------------ */
/* internal accessors for the unit tests                                    */
/* ------------------------------------------------------------------------ */

int fsn_ctx_inotify_fd(const struct fsn_ctx *ctx) {
	return ctx ? ctx->ifd : -1;
}

int fsn_group_fd(const struct fsn_group *g) {
	return g ? g->fd : -1;
}

bool fsn_mark_is_dead(const struct fsn_mark *mark) {
	return mark && mark->obj && mark->obj->dead;
}
