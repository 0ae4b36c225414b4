/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-ov.c — fsn-selftest cases of the OV group: overflow, limits,
 * errors (OV01-OV08 in semantics.md).
 *
 * OV01/OV02: the notification queue is bounded by max_queued_events
 * (/proc/sys/fs/fanotify/, /proc/sys/fs/inotify/; read, never changed).
 * fsnotify_insert_event() (fs/notify/notification.c) queues exactly that
 * many events, then the group's one preallocated overflow event, and drops
 * everything else until the queue has been read. The cases generate that
 * many events that cannot merge (distinct names, or alternating masks for
 * inotify, whose inotify_merge() only compares with the last event) and
 * check every one of them, in order, then the single overflow event.
 *
 * OV03: fanotify_init() / fanotify_mark() / inotify argument checks
 * (fanotify_user.c: fanotify_init, do_fanotify_mark,
 * fanotify_events_supported, fanotify_test_fsid, fanotify_test_fid). Each
 * refused call is paired with the closest call that is accepted.
 *
 * OV04: marks added and removed, groups closed, files unlinked, while
 * several processes generate events, for a bounded wall-clock time; then
 * everyone must have finished and fresh and long-lived groups must get
 * exactly their events.
 *
 * OV06: the per-user limits of groups and marks (ucounts), in the init user
 * namespace as a uid of the case's own, and in a user namespace the case
 * creates and whose own limits it sets (the init namespace's sysctls are
 * only read). OV07: a group created without CAP_SYS_ADMIN keeps reporting
 * as unprivileged when its creator regains the capability. OV08: the
 * FD_CLOEXEC / O_NONBLOCK flags of the group fd and of the event fds.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <grp.h>
#include <unistd.h>

#include "selftest.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static long read_sysctl(struct fst_ctx *ctx, const char *path) {
	long v = fst_read_sysctl(ctx, path);

	/* the default is 16384; a queue this long cannot be filled in a second */
	if (v > 262144)
		fst_skip(ctx, "%s is %ld, too many events to generate quickly", path, v);
	return v;
}

/* n hard links d/l<i> of f, i in [from, to) */
static void make_links(struct fst_ctx *ctx, const char *d, long from, long to) {
	char p[PATH_MAX];

	for (long i = from; i < to; i++) {
		snprintf(p, sizeof(p), "%s/l%ld", d, i);
		if (linkat(ctx->workfd, "f", ctx->workfd, p, 0) < 0)
			fst_fail(ctx, "link f %s: %s", p, fst_errname(errno));
	}
}

/*
 * A queue of max_queued_events events is too long to hold at once: read it
 * one read() at a time (fst_read_batch()) and match each batch with the
 * shared matcher, event idx against what exp_at() says it must be; then,
 * if given, check() looks at the event itself. Returns the number of
 * events read (the queue is empty afterwards).
 */
struct stream {
	/* fill x for event idx; name: a buffer for the expected name */
	void (*exp_at)(void *arg, long idx, struct fst_exp *x, char *name, size_t nlen);
	void (*check)(struct fst_ctx *ctx, void *arg, long idx, const struct fst_event *e);
	void *arg;
};

#define NAME_LEN 32

static long expect_stream(struct fst_ctx *ctx, int fd, const struct stream *s) {
	long idx = 0;

	for (;;) {
		struct fst_events *ev = fst_read_batch(ctx, fd);
		struct fst_exp *x;
		char(*names)[NAME_LEN];

		if (ev->n == 0) {
			fst_release(ctx, ev);
			return idx;
		}
		x = calloc(ev->n, sizeof(*x));
		names = calloc(ev->n, sizeof(*names));
		if (!x || !names)
			fst_fail(ctx, "out of memory");
		for (size_t i = 0; i < ev->n; i++)
			s->exp_at(s->arg, idx + (long)i, &x[i], names[i], NAME_LEN);
		fst_match_(ctx, fd, ev, x, ev->n, fst_strdupf(ctx, "queue from event %ld on", idx),
			   __FILE__, __LINE__);
		for (size_t i = 0; s->check && i < ev->n; i++)
			s->check(ctx, s->arg, idx + (long)i, &ev->e[i]);
		idx += (long)ev->n;
		free(x);
		free(names);
		fst_release(ctx, ev);
	}
}

/* ------------------------------------------------------------------------ */
/* OV01: fanotify queue overflow                                            */
/* ------------------------------------------------------------------------ */

/* CREATE events of d/l<i> in a DFID_NAME group: event idx < limit must be
 * CREATE [DFID_NAME d "l<first+idx>"], from the case process; then (limit
 * >= 0) the overflow event: FAN_Q_OVERFLOW, pid 0, no record. fd_error: the
 * fd of every event (FAN_REPORT_FD_ERROR: -EBADF); 0 = FAN_NOFD. */
struct create_check {
	struct fst_obj d;
	long first, limit;
	int fd_error;
};

static void create_exp(void *arg, long idx, struct fst_exp *x, char *name, size_t nlen) {
	const struct create_check *c = arg;

	if (c->limit >= 0 && idx >= c->limit)
		*x = (struct fst_exp){ .mask = FAN_Q_OVERFLOW, .pid = FST_PID_ZERO };
	else {
		snprintf(name, nlen, "l%ld", c->first + idx);
		*x = (struct fst_exp){ .mask = FAN_CREATE, .dobj = &c->d, .name = name };
	}
	x->nofd = !c->fd_error;
	x->fd_error = c->fd_error;
}

static void overflow_dfid_name(struct fst_ctx *ctx, unsigned extra, int fd_error) {
	struct create_check c = { .fd_error = fd_error };
	const struct stream s = { .exp_at = create_exp, .arg = &c };
	long max, n;
	int g, h;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	max = read_sysctl(ctx, "/proc/sys/fs/fanotify/max_queued_events");
	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, "other", "o");
	FST_SYS(ctx, mkdir("d", 0755));
	c.d = fst_obj(ctx, "d");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | extra);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_CREATE, "d");
	/* another group, unaffected by g's overflow */
	h = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, h, FAN_MARK_ADD, FAN_OPEN, "other");

	/* max events fit; 16 more are dropped behind one overflow event */
	make_links(ctx, "d", 0, max + 16);
	fst_open_close(ctx, "other", O_RDONLY);
	c.limit = max;
	n = expect_stream(ctx, g, &s);
	if (n != max + 1)
		fst_fail(ctx, "read %ld events, expected %ld CREATE + 1 overflow", n, max);
	FST_EXPECT(ctx, h, FST_FAN(FAN_OPEN, "other"));

	/* drained: the next event is queued normally, no second overflow */
	make_links(ctx, "d", max + 16, max + 17);
	c.first = max + 16;
	c.limit = -1;
	n = expect_stream(ctx, g, &s);
	if (n != 1)
		fst_fail(ctx, "after draining: %ld events, expected 1 CREATE", n);
	FST_EXPECT_NONE(ctx, h);
}

static void ov01_overflow_one_event_in_order(struct fst_ctx *ctx) {
	overflow_dfid_name(ctx, 0, 0);
}

/* With FAN_REPORT_FD_ERROR, events without an fd (FID groups, overflow)
 * report -EBADF instead of FAN_NOFD, which would read as -EPERM. */
static void ov01_overflow_fd_error_ebadf(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	overflow_dfid_name(ctx, FAN_REPORT_FD_ERROR, -EBADF);
}

/* fd mode: OPEN of d/l<i> (all hard links of one inode, distinct dentries,
 * so they do not merge): an event fd of the file, whose path ends in
 * /l<i>; then the overflow event (FAN_NOFD, pid 0). */
struct open_check {
	struct fst_obj f;
	long limit;
	int fd_error; /* of the overflow event (FAN_REPORT_FD_ERROR); 0 = FAN_NOFD */
};

static void open_exp(void *arg, long idx, struct fst_exp *x, char *name, size_t nlen) {
	const struct open_check *c = arg;

	if (idx >= c->limit)
		*x = (struct fst_exp){ .mask = FAN_Q_OVERFLOW,
				       .pid = FST_PID_ZERO,
				       .nofd = !c->fd_error,
				       .fd_error = c->fd_error };
	else
		*x = (struct fst_exp){ .mask = FAN_OPEN, .obj = &c->f };
}

static void open_check_path(struct fst_ctx *ctx, void *arg, long idx, const struct fst_event *e) {
	const struct open_check *c = arg;
	size_t l = strlen(e->fdpath), wl;
	char want[32];

	if (idx >= c->limit)
		return;
	snprintf(want, sizeof(want), "/l%ld", idx);
	wl = strlen(want);
	if (l < wl || strcmp(e->fdpath + l - wl, want) != 0)
		fst_fail(ctx, "event %ld: event fd is %s, expected .../d%s (order or loss)", idx,
			 e->fdpath, want);
}

static void overflow_fd_mode(struct fst_ctx *ctx, unsigned extra, int fd_error) {
	struct open_check c = { .fd_error = fd_error };
	const struct stream s = { .exp_at = open_exp, .check = open_check_path, .arg = &c };
	char p[64];
	long max, n;
	int g;

	max = read_sysctl(ctx, "/proc/sys/fs/fanotify/max_queued_events");
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	make_links(ctx, "d", 0, max + 16);
	c.f = fst_obj(ctx, "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | extra);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	for (long i = 0; i < max + 16; i++) {
		snprintf(p, sizeof(p), "d/l%ld", i);
		fst_open_close(ctx, p, O_RDONLY);
	}
	c.limit = max;
	n = expect_stream(ctx, g, &s);
	if (n != max + 1)
		fst_fail(ctx, "read %ld events, expected %ld OPEN + 1 overflow", n, max);
	fst_open_close(ctx, "d/l0", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/l0"));
}

static void ov01_overflow_fd_mode(struct fst_ctx *ctx) {
	overflow_fd_mode(ctx, 0, 0);
}

/* LTP fanotify05: an fd-mode group with FAN_REPORT_FD_ERROR: the queued
 * events keep their event fds (in order), the one overflow event has no
 * file and reports -EBADF instead of FAN_NOFD. */
static void ov01_overflow_fd_mode_fd_error(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	overflow_fd_mode(ctx, FAN_REPORT_FD_ERROR, -EBADF);
}

static void ov01_unlimited_queue_no_overflow(struct fst_ctx *ctx) {
	struct create_check c = { .limit = -1 };
	const struct stream s = { .exp_at = create_exp, .arg = &c };
	long max, n;
	int g;

	fst_require(ctx, FSN_FEAT_UNLIMITED_QUEUE);
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	max = read_sysctl(ctx, "/proc/sys/fs/fanotify/max_queued_events");
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	c.d = fst_obj(ctx, "d");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_UNLIMITED_QUEUE);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_CREATE, "d");
	make_links(ctx, "d", 0, max + 64);
	n = expect_stream(ctx, g, &s);
	if (n != max + 64)
		fst_fail(ctx, "FAN_UNLIMITED_QUEUE: read %ld events, expected %ld", n, max + 64);
}

/* ------------------------------------------------------------------------ */
/* OV02: inotify queue overflow                                             */
/* ------------------------------------------------------------------------ */

/* Event idx < limit: IN_CREATE "c<first+idx>" (names) or, alternating,
 * IN_OPEN / IN_CLOSE_NOWRITE without a name, all on wd and with cookie 0;
 * then (limit >= 0) one IN_Q_OVERFLOW with wd -1. */
struct in_check {
	int wd;
	long limit;
	bool names;
	long first;
};

static void in_exp(void *arg, long idx, struct fst_exp *x, char *name, size_t nlen) {
	const struct in_check *c = arg;

	if (c->limit >= 0 && idx >= c->limit)
		*x = (struct fst_exp)FST_IN(IN_Q_OVERFLOW, -1, NULL);
	else if (c->names) {
		snprintf(name, nlen, "c%ld", c->first + idx);
		*x = (struct fst_exp)FST_IN(IN_CREATE, c->wd, name);
	} else
		*x = (struct fst_exp)FST_IN((c->first + idx) % 2 ? IN_CLOSE_NOWRITE : IN_OPEN,
					    c->wd, NULL);
}

static void ov02_inotify_overflow_last(struct fst_ctx *ctx) {
	struct in_check c = { 0 };
	const struct stream s = { .exp_at = in_exp, .arg = &c };
	long max, n;
	int in, in2, wd2;

	max = read_sysctl(ctx, "/proc/sys/fs/inotify/max_queued_events");
	fst_write_file(ctx, "f", "f");
	in = fst_inotify(ctx);
	c.wd = fst_watch(ctx, in, "f", IN_OPEN | IN_CLOSE_NOWRITE);
	/* another instance: identical consecutive events merge, no overflow */
	in2 = fst_inotify(ctx);
	wd2 = fst_watch(ctx, in2, "f", IN_CLOSE_NOWRITE);

	/* OPEN, CLOSE_NOWRITE alternate: nothing merges; max + 16 events */
	for (long i = 0; i < max / 2 + 8; i++)
		fst_open_close(ctx, "f", O_RDONLY);
	c.limit = max;
	n = expect_stream(ctx, in, &s);
	if (n != max + 1)
		fst_fail(ctx, "read %ld events, expected %ld + 1 IN_Q_OVERFLOW", n, max);
	FST_EXPECT(ctx, in2, FST_IN(IN_CLOSE_NOWRITE, wd2, NULL));

	/* drained: events flow again, no second overflow */
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, c.wd, NULL), FST_IN(IN_CLOSE_NOWRITE, c.wd, NULL));
	FST_EXPECT(ctx, in2, FST_IN(IN_CLOSE_NOWRITE, wd2, NULL));
}

static void ov02_inotify_overflow_names(struct fst_ctx *ctx) {
	struct in_check c = { .names = true };
	const struct stream s = { .exp_at = in_exp, .arg = &c };
	char p[64];
	long max, n;
	int in;

	max = read_sysctl(ctx, "/proc/sys/fs/inotify/max_queued_events");
	FST_SYS(ctx, mkdir("d", 0755));
	in = fst_inotify(ctx);
	c.wd = fst_watch(ctx, in, "d", IN_CREATE);
	for (long i = 0; i < max + 16; i++) {
		snprintf(p, sizeof(p), "d/c%ld", i);
		FST_SYS(ctx, mknodat(ctx->workfd, p, S_IFREG | 0644, 0));
	}
	c.limit = max;
	n = expect_stream(ctx, in, &s);
	if (n != max + 1)
		fst_fail(ctx, "read %ld events, expected %ld IN_CREATE + 1 overflow", n, max);
	FST_SYS(ctx, mknodat(ctx->workfd, "d/last", S_IFREG | 0644, 0));
	FST_EXPECT(ctx, in, FST_IN(IN_CREATE, c.wd, "last"));
}

/* ------------------------------------------------------------------------ */
/* OV03: argument checks                                                    */
/* ------------------------------------------------------------------------ */

#define INIT_ERR(ctx, flags, ev, err) init_err(ctx, flags, ev, err, #flags, __FILE__, __LINE__)
static void init_err(struct fst_ctx *ctx, unsigned flags, unsigned ev, int err, const char *fs,
		     const char *file, int line) {
	int fd = fanotify_init(flags | FAN_CLOEXEC, ev);
	int e = errno;

	if (fd >= 0) {
		close(fd);
		if (err)
			fst_fail_(ctx, file, line, "fanotify_init(%s) succeeded, expected %s", fs,
				  fst_errname(err));
		return;
	}
	if (e != err)
		fst_fail_(ctx, file, line, "fanotify_init(%s) failed with %s, expected %s", fs,
			  fst_errname(e), err ? fst_errname(err) : "success");
}

static void ov03_init_invalid_flags(struct fst_ctx *ctx) {
	INIT_ERR(ctx, FAN_CLASS_NOTIF, O_RDONLY, 0);
	INIT_ERR(ctx, 0x80000000, O_RDONLY, EINVAL); /* unknown flag */
	INIT_ERR(ctx, FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT, O_RDONLY, EINVAL); /* class 3 */
	INIT_ERR(ctx, FAN_CLASS_NOTIF, O_RDONLY | O_CREAT, EINVAL); /* not an event_f_flag */
	INIT_ERR(ctx, FAN_CLASS_NOTIF, O_ACCMODE, EINVAL);          /* access mode 3 */
	INIT_ERR(ctx, FAN_CLASS_NOTIF, O_RDWR | O_NOATIME | O_LARGEFILE, 0);
	if (fst_has(ctx, FSN_FEAT_REPORT_PIDFD) && fst_has(ctx, FSN_FEAT_REPORT_TID)) {
		int fd = fanotify_init(FAN_REPORT_TID | FAN_REPORT_PIDFD | FAN_CLOEXEC, O_RDONLY);
		int e = errno;

		INIT_ERR(ctx, FAN_REPORT_PIDFD, O_RDONLY, 0);
		/* TID|PIDFD: EINVAL before Linux 7.2, valid since (thread
		 * pidfds, checked by id04_pidfd_tid_exclusive); either way the
		 * same with FID reporting */
		if (fd >= 0)
			close(fd);
		else if (e != EINVAL)
			fst_fail(ctx,
				 "fanotify_init(FAN_REPORT_TID|FAN_REPORT_PIDFD): %s, expected "
				 "EINVAL (before Linux 7.2) or success",
				 fst_errname(e));
		fst_log(ctx, "FAN_REPORT_TID|FAN_REPORT_PIDFD: %s",
			fd >= 0 ? "valid (Linux 7.2 or later)" : "EINVAL (before Linux 7.2)");
		INIT_ERR(ctx, FAN_REPORT_TID | FAN_REPORT_PIDFD | FAN_REPORT_DFID_NAME, O_RDONLY,
			 fd >= 0 ? 0 : EINVAL);
	}
}

static void ov03_init_fid_combinations(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_CLASS_CONTENT);
	/* the documented combinations */
	INIT_ERR(ctx, FAN_REPORT_FID, O_RDONLY, 0);
	INIT_ERR(ctx, FAN_REPORT_DIR_FID, O_RDONLY, 0);
	INIT_ERR(ctx, FAN_REPORT_DIR_FID | FAN_REPORT_FID, O_RDONLY, 0);
	INIT_ERR(ctx, FAN_REPORT_DFID_NAME, O_RDONLY, 0);
	INIT_ERR(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID, O_RDONLY, 0);
	/* a name needs the directory */
	INIT_ERR(ctx, FAN_REPORT_NAME, O_RDONLY, EINVAL);
	INIT_ERR(ctx, FAN_REPORT_NAME | FAN_REPORT_FID, O_RDONLY, EINVAL);
	/* FID reporting is for notification groups only */
	INIT_ERR(ctx, FAN_CLASS_CONTENT, O_RDONLY, 0);
	INIT_ERR(ctx, FAN_CLASS_CONTENT | FAN_REPORT_FID, O_RDONLY, EINVAL);
	INIT_ERR(ctx, FAN_CLASS_CONTENT | FAN_REPORT_DIR_FID, O_RDONLY, EINVAL);
	INIT_ERR(ctx, FAN_CLASS_PRE_CONTENT | FAN_REPORT_DFID_NAME, O_RDONLY, EINVAL);
	INIT_ERR(ctx, FAN_CLASS_PRE_CONTENT | FAN_REPORT_FID, O_RDONLY, EINVAL);
}

/* FAN_REPORT_TARGET_FID needs the name and the FID (split from
 * ov03_init_fid_combinations, which does not need Linux 5.17). */
static void ov03_init_target_fid_combinations(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_TARGET_FID);
	INIT_ERR(ctx, FAN_REPORT_DFID_NAME_TARGET, O_RDONLY, 0);
	INIT_ERR(ctx, FAN_REPORT_TARGET_FID, O_RDONLY, EINVAL);
	INIT_ERR(ctx, FAN_REPORT_TARGET_FID | FAN_REPORT_DFID_NAME, O_RDONLY, EINVAL);
	INIT_ERR(ctx, FAN_REPORT_TARGET_FID | FAN_REPORT_DIR_FID | FAN_REPORT_FID, O_RDONLY,
		 EINVAL);
}

static void ov03_mark_invalid_flags(struct fst_ctx *ctx) {
	int g, in;

	fst_write_file(ctx, "f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, 0x80000000 | FAN_MARK_ADD, FAN_OPEN, "f", EINVAL); /* unknown flag */
	FST_MARK_ERR(ctx, g, 0, FAN_OPEN, "f", EINVAL);                         /* no command */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_REMOVE, FAN_OPEN, "f", EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, 0, "f", EINVAL); /* empty mask */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, (1ULL << 32) | FAN_OPEN, "f", EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_Q_OVERFLOW, "f", EINVAL); /* not an input bit */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, 0x80000000, "f", EINVAL);     /* unknown event bit */
	FST_MARK_ERR(ctx, g, FAN_MARK_FLUSH | FAN_MARK_ONLYDIR, 0, NULL, EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_FLUSH | FAN_MARK_ADD, FAN_OPEN, "f", EINVAL);
	/* FAN_MARK_MOUNT|FAN_MARK_FILESYSTEM is the mount-namespace type (or,
	 * before it, no type at all): not for a path */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM, FAN_OPEN, "f",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_REMOVE, FAN_OPEN, "f", ENOENT); /* no such mark */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN, "missing", ENOENT);
	FST_MARK_ERR(ctx, -1, FAN_MARK_ADD, FAN_OPEN, "f", EBADF);
	in = fst_inotify(ctx);
	FST_MARK_ERR(ctx, in, FAN_MARK_ADD, FAN_OPEN, "f", EINVAL); /* not a fanotify fd */
	FST_SYS_ERR(ctx, fanotify_mark(g, FAN_MARK_ADD, FAN_OPEN, -1, "f"), EBADF);
	/* controls: each fixed call works, and the mark does its job */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_FLUSH, 0, NULL, 0);
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f", 0);
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "f"));
	FST_MARK_ERR(ctx, g, FAN_MARK_REMOVE, FAN_OPEN, "f", 0);
}

/* Permission and pre-content events need a group of that class. */
static void ov03_mark_perm_needs_class(struct fst_ctx *ctx) {
	int gn, gc;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_write_file(ctx, "f", "f");
	gn = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	gc = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_OPEN_PERM, "f", EINVAL);
	FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_ACCESS_PERM, "f", EINVAL);
	FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM, "f", EINVAL);
	FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_PRE_ACCESS, "f", EINVAL);
	FST_MARK_ERR(ctx, gc, FAN_MARK_ADD, FAN_PRE_ACCESS, "f", EINVAL);
	FST_MARK_ERR(ctx, gc, FAN_MARK_ADD, FAN_OPEN_PERM, "f", 0);
	FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_OPEN, "f", 0);
}

/* Events without a path to open (dirent, attrib, *_SELF) need a FID group,
 * and a FID group cannot have them on a mount mark. */
static void ov03_mark_fid_only_events(struct fst_ctx *ctx) {
	const uint64_t fid_only[] = { FAN_CREATE, FAN_DELETE,      FAN_MOVED_FROM, FAN_MOVED_TO,
				      FAN_ATTRIB, FAN_DELETE_SELF, FAN_MOVE_SELF };
	int g, gf;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	for (size_t i = 0; i < sizeof(fid_only) / sizeof(fid_only[0]); i++) {
		uint64_t m = fid_only[i];

		FST_MARK_ERR(ctx, g, FAN_MARK_ADD, m, "d", EINVAL);
		FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, "d", EINVAL);
		FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_MOUNT, m, "d", EINVAL);
		FST_MARK_ERR(ctx, gf, FAN_MARK_ADD, m, "d", 0);
		FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, "d", 0);
	}
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_CLOSE, "d", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_CLOSE, "d", 0);
}

/* FAN_RENAME needs FAN_REPORT_NAME. */
static void ov03_mark_rename_needs_name(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	FST_SYS(ctx, mkdir("d", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_RENAME, "d", EINVAL);
	fst_close(ctx, g);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DIR_FID | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_RENAME, "d", EINVAL);
	fst_close(ctx, g);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_RENAME, "d", EINVAL);
	fst_close(ctx, g);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_RENAME, "d", 0);
}

static void ov03_mark_onlydir_enotdir(struct fst_ctx *ctx) {
	int g, fd;

	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, symlink("d", "ld"));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, "f", ENOTDIR);
	/* the link itself (DONT_FOLLOW) is not a directory either */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR | FAN_MARK_DONT_FOLLOW, FAN_OPEN, "ld",
		     ENOTDIR);
	/* by fd (path NULL) */
	fd = fst_open(ctx, "f", O_RDONLY);
	FST_SYS_ERR(ctx, fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, fd, NULL),
		    ENOTDIR);
	fst_close(ctx, fd);
	/* controls */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN | FAN_ONDIR, "ld", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN | FAN_ONDIR, "d", 0);
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
}

/* Directory-only bits on a non-directory inode mark: refused (ENOTDIR)
 * with the v5.17+ APIs (FAN_RENAME, a TARGET_FID group; FAN_MARK_IGNORE:
 * ov03_mark_ignore_dir_bits_on_file),
 * still accepted with the old ones (fanotify_events_supported()). */
static void ov03_mark_dir_bits_on_file(struct fst_ctx *ctx) {
	int gn, gt, g;

	/* the legacy half runs wherever DFID_NAME does (5.9); the strict
	 * halves where FAN_RENAME (5.17) and TARGET_FID (5.17) do */
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, "f2", "f");
	fst_write_file(ctx, "f3", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	gn = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	if (fst_has(ctx, FSN_FEAT_EVENT_RENAME)) {
		FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_RENAME, "f", ENOTDIR);
		FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_RENAME, "d", 0);
	}
	FST_MARK_ERR(ctx, gn, FAN_MARK_ADD, FAN_CREATE, "f", 0); /* legacy: accepted */
	if (fst_has(ctx, FSN_FEAT_REPORT_TARGET_FID)) {
		gt = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET);
		FST_MARK_ERR(ctx, gt, FAN_MARK_ADD, FAN_CREATE, "f", ENOTDIR);
		FST_MARK_ERR(ctx, gt, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "f", ENOTDIR);
		FST_MARK_ERR(ctx, gt, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR, "f", ENOTDIR);
		FST_MARK_ERR(ctx, gt, FAN_MARK_ADD, FAN_OPEN, "f", 0);
		FST_MARK_ERR(ctx, gt, FAN_MARK_ADD, FAN_CREATE | FAN_ONDIR, "d", 0);
	}
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	/* the legacy ignore mask just drops the flags */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN | FAN_ONDIR, "f2", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, "f3", 0);
}

/* The same strictness with FAN_MARK_IGNORE (Linux 6.0; split from
 * ov03_mark_dir_bits_on_file, whose 5.17 APIs do not need it). */
static void ov03_mark_ignore_dir_bits_on_file(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN | FAN_ONDIR, "f", ENOTDIR);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_EVENT_ON_CHILD,
		     "f", ENOTDIR);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "f", 0);
}

/* FAN_MARK_IGNORE: not with FAN_MARK_IGNORED_MASK; without SURV_MODIFY not
 * on mount and sb marks (EINVAL) nor on a directory (EISDIR). */
static void ov03_mark_ignore_combinations(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, "f2", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "f",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_MOUNT, FAN_OPEN, ".",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_FILESYSTEM, FAN_OPEN, ".",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "d", EISDIR);
	/* with SURV_MODIFY each is accepted; a file needs no SURV_MODIFY */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV | FAN_MARK_MOUNT, FAN_OPEN, ".",
		     0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV | FAN_MARK_FILESYSTEM, FAN_OPEN,
		     ".", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, "d", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "f", 0);
	/* an ignore mark cannot be downgraded to the legacy semantics */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "f", EEXIST);
	/* nor lose SURV_MODIFY */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, "f2", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "f2", EEXIST);
	/* removing an ignore needs no SURV_MODIFY */
	FST_MARK_ERR(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN, "d", 0);
}

/* The dirent events (FANOTIFY_DIRENT_EVENTS): about a directory's entries. */
static const uint64_t dirent_bits[] = { FAN_CREATE, FAN_DELETE, FAN_MOVED_FROM, FAN_MOVED_TO,
					FAN_RENAME };

/*
 * LTP fanotify14: the new-style ignore (FAN_MARK_IGNORE, here with
 * FAN_MARK_IGNORED_SURV_MODIFY) is strict about directory-only bits: a dirent
 * event in the ignore mask of a non-directory inode mark is ENOTDIR, the same
 * on a directory is accepted, and so is an sb ignore placed through the
 * file's path (the mark is the filesystem's, not the file's), which then
 * hides the group's DELETE of an entry elsewhere on that filesystem.
 */
static void ov03_mark_ignore_dirent_on_file(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("e", 0755));
	fst_write_file(ctx, "d/x", "x");
	fst_write_file(ctx, "d/y", "y");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_DELETE, "d");
	FST_SYS(ctx, unlink("d/x"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE, .dir = "d", .name = "x" });
	for (size_t i = 0; i < sizeof(dirent_bits) / sizeof(dirent_bits[0]); i++) {
		uint64_t m = dirent_bits[i];

		FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, m, "f", ENOTDIR);
		FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, m, "e", 0);
		FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV | FAN_MARK_FILESYSTEM, m,
			     "f", 0);
	}
	/* the sb ignore (through f) hides d's DELETE; d's mark is still there */
	FST_SYS(ctx, unlink("d/y"));
	FST_EXPECT_NONE(ctx, g);
	FST_MARK_ERR(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE_SURV | FAN_MARK_FILESYSTEM,
		     FAN_DELETE, "f", 0);
	fst_write_file(ctx, "d/z", "z");
	FST_SYS(ctx, unlink("d/z"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE, .dir = "d", .name = "z" });
}

/*
 * LTP fanotify14: in a FAN_REPORT_TARGET_FID group every dirent event on a
 * non-directory inode mark is ENOTDIR (FAN_CREATE is in
 * ov03_mark_dir_bits_on_file); on a directory it is accepted, and so is an
 * sb mark placed through the file's path, which then reports the DELETE of
 * an entry elsewhere on that filesystem, with the deleted child's FID.
 */
static void ov03_mark_target_dirent_on_file(struct fst_ctx *ctx) {
	struct fst_obj x;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_TARGET_FID);
	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("e", 0755));
	fst_write_file(ctx, "d/x", "x");
	x = fst_obj(ctx, "d/x");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET);
	for (size_t i = 0; i < sizeof(dirent_bits) / sizeof(dirent_bits[0]); i++) {
		uint64_t m = dirent_bits[i];

		FST_MARK_ERR(ctx, g, FAN_MARK_ADD, m, "f", ENOTDIR);
		FST_MARK_ERR(ctx, g, FAN_MARK_ADD, m, "e", 0);
		FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, "f", 0);
	}
	FST_EXPECT_NONE(ctx, g);
	FST_SYS(ctx, unlink("d/x"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE, .dir = "d", .name = "x", .obj = &x });
}

/* Mark types: FAN_FS_ERROR only on sb marks. */
static void ov03_mark_type_restrictions(struct fst_ctx *ctx) {
	int gf;

	fst_require(ctx, FSN_FEAT_EVENT_FS_ERROR);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD, FAN_FS_ERROR, "d", EINVAL);
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_FS_ERROR, "d", EINVAL);
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR, "d", 0);
}

/* EVICTABLE only on inode marks, and not as a downgrade of an existing
 * mark (split from ov03_mark_type_restrictions, whose FAN_FS_ERROR
 * requirement it does not share). */
static void ov03_mark_evictable_inode_only(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_MARK_EVICTABLE);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_MOUNT, FAN_OPEN, "d",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_FILESYSTEM, FAN_OPEN, "d",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_OPEN, "d", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f", 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_OPEN, "f", EEXIST);
}

/*
 * A minimal FUSE server (child process): answers INIT, GETATTR of the
 * root and STATFS (all zeros: f_fsid 0), ENOSYS to everything else. It
 * gives this case a filesystem of its own with a zero fsid and exportable
 * file handles, which is what fanotify_test_fsid() refuses with ENODEV.
 */
static void fuse_reply(int fd, uint64_t unique, int err, const void *body, size_t len) {
	unsigned char b[256];
	struct fuse_out_header o = { .len = (uint32_t)(sizeof(o) + len),
				     .error = err,
				     .unique = unique };

	memcpy(b, &o, sizeof(o));
	if (len)
		memcpy(b + sizeof(o), body, len);
	if (write(fd, b, o.len) < 0)
		_exit(4);
}

static int fuse_serve(void *arg) {
	static unsigned char buf[1 << 17];
	int fd = *(int *)arg;

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct fuse_in_header in;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(in))
			return 0; /* unmounted or aborted */
		memcpy(&in, buf, sizeof(in));
		switch (in.opcode) {
		case FUSE_INIT: {
			struct fuse_init_in ii;
			struct fuse_init_out o;

			memcpy(&ii, buf + sizeof(in), sizeof(ii));
			memset(&o, 0, sizeof(o));
			o.major = FUSE_KERNEL_VERSION;
			o.minor = ii.minor < FUSE_KERNEL_MINOR_VERSION ? ii.minor
								       : FUSE_KERNEL_MINOR_VERSION;
			o.max_readahead = ii.max_readahead;
			o.max_write = 4096;
			fuse_reply(fd, in.unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o;

			memset(&o, 0, sizeof(o));
			o.attr_valid = 3600;
			o.attr.ino = FUSE_ROOT_ID;
			o.attr.mode = S_IFDIR | 0755;
			o.attr.nlink = 2;
			fuse_reply(fd, in.unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_STATFS: {
			struct fuse_statfs_out o;

			memset(&o, 0, sizeof(o));
			o.st.bsize = 4096;
			o.st.frsize = 4096;
			o.st.namelen = 255;
			fuse_reply(fd, in.unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET: break;
		default: fuse_reply(fd, in.unique, -ENOSYS, NULL, 0);
		}
	}
}

static const char *fuse_mount(struct fst_ctx *ctx) {
	char *p = fst_strdupf(ctx, "%s/fuse", ctx->scratch);
	char opts[128];
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fst_skip(ctx, "no FUSE: open /dev/fuse: %s", fst_errname(errno));
	FST_SYS(ctx, mkdir(p, 0755));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fsn-fuse", p, "fuse", MS_NOSUID | MS_NODEV, opts) < 0)
		fst_skip(ctx, "no FUSE: mount: %s", fst_errname(errno));
	fst_spawn(ctx, "fuse server", fuse_serve, &fd, fd);
	close(fd);
	return p;
}

static const char *zero_fsid_fuse(struct fst_ctx *ctx) {
	const char *fu = fuse_mount(ctx);
	struct statfs s;

	FST_SYS(ctx, statfs(fu, &s));
	if (s.f_fsid.__val[0] || s.f_fsid.__val[1])
		fst_fail(ctx, "the FUSE mount has f_fsid %08x.%08x, expected 0",
			 (unsigned)s.f_fsid.__val[0], (unsigned)s.f_fsid.__val[1]);
	return fu;
}

/* ENODEV: a filesystem with a zero fsid (FUSE) cannot have sb or mount
 * marks of a FID group; an fd-mode group needs no fsid. */
static void ov03_enodev_exdev_zero_fsid(struct fst_ctx *ctx) {
	const char *fu;
	int g, gfd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	fu = zero_fsid_fuse(ctx);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, fu, ENODEV);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, fu, ENODEV);
	/* an fd-mode group needs no fsid */
	gfd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, gfd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, fu, 0);
	FST_MARK_ERR(ctx, gfd, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_OPEN, fu, 0);
	/* the refusals left the FID group usable */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f");
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "f"));
	FST_EXPECT_NONE(ctx, gfd);
}

/* EXDEV: an inode mark on a zero-fsid filesystem is accepted with a "weak"
 * fsid (Linux 6.8), but one group cannot mix it with marks of a real fsid,
 * either way (split from ov03_enodev_exdev_zero_fsid, whose ENODEV needs
 * no weak fsids). */
static void ov03_exdev_weak_fsid(struct fst_ctx *ctx) {
	const char *fu;
	int g, g2;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_write_file(ctx, "f", "f");
	fu = zero_fsid_fuse(ctx);
	/* an inode mark with a weak (zero) fsid: Linux 6.8 */
	fst_require_at(ctx, fu, FSN_FEAT_MARK_FID);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR, fu, 0);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f", EXDEV);
	g2 = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g2, FAN_MARK_ADD, FAN_OPEN, "f", 0);
	FST_MARK_ERR(ctx, g2, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR, fu, EXDEV);
	/* the surviving marks still work */
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "f"));
	FST_EXPECT_NONE(ctx, g);
}

/* A ramfs of the case's own, with a file f; returns its path. */
static const char *ramfs_with_file(struct fst_ctx *ctx) {
	char *ram = fst_strdupf(ctx, "%s/ramfs", ctx->scratch);
	char *rf = fst_strdupf(ctx, "%s/f", ram);
	int fd;

	FST_SYS(ctx, mkdir(ram, 0755));
	FST_SYS(ctx, mount("fsn-ramfs", ram, "ramfs", MS_NOSUID | MS_NODEV, "mode=0755"));
	fd = FST_SYS(ctx, open(rf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	close(fd);
	return ram;
}

/* A filesystem whose file handles cannot be decoded (ramfs) cannot have
 * sb/mount marks of a FID group: EOPNOTSUPP since 6.8 (weak fsids), ENODEV
 * before; both say "this filesystem cannot" (split from
 * ov03_unsupported_filesystems: it needs no inode mark there). */
static void ov03_ramfs_fid_sb_mount(struct fst_ctx *ctx) {
	const char *ram;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	ram = ramfs_with_file(ctx);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	for (int i = 0; i < 2; i++) {
		unsigned type = i ? FAN_MARK_MOUNT : FAN_MARK_FILESYSTEM;
		int e = fst_mark_err(ctx, g, FAN_MARK_ADD | type, FAN_OPEN, ram);

		if (e != -EOPNOTSUPP && e != -ENODEV)
			fst_fail(ctx,
				 "%s mark of a FID group on ramfs: %s, expected EOPNOTSUPP "
				 "(or ENODEV before Linux 6.8)",
				 i ? "mount" : "filesystem", fst_errname(e));
	}
	/* an fd-mode group can */
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ram, 0);
}

/* A FID group's inode mark where file handles cannot be decoded (ramfs):
 * accepted, and the event carries the AT_HANDLE_FID handle. */
static void ov03_unsupported_filesystems(struct fst_ctx *ctx) {
	const char *rf;
	struct fst_obj ro;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	rf = fst_strdupf(ctx, "%s/f", ramfs_with_file(ctx));
	/* an inode mark where file handles cannot be decoded (AT_HANDLE_FID) */
	fst_require_at(ctx, rf, FSN_FEAT_MARK_FID);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD, FAN_OPEN, rf, 0);
	fst_open_close(ctx, rf, O_RDONLY);
	/* its FID is the non-decodable one name_to_handle_at(AT_HANDLE_FID)
	 * gives (with statfs() f_fsid) */
	ro = fst_obj(ctx, rf);
	if (!ro.fid_only)
		fst_fail(ctx, "ramfs: name_to_handle_at() without AT_HANDLE_FID did not fail");
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN, .obj = &ro });
}

/* procfs refuses permission events (EINVAL), takes notification ones; on a
 * procfs mount of the case's own (split from ov03_unsupported_filesystems:
 * it needs no FID marks on ramfs). */
static void ov03_procfs_no_perm_events(struct fst_ctx *ctx) {
	char *proc = fst_strdupf(ctx, "%s/proc", ctx->scratch);
	char *pv = fst_strdupf(ctx, "%s/version", proc);
	int gc;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	FST_SYS(ctx, mkdir(proc, 0755));
	FST_SYS(ctx, mount("fsn-proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
	gc = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	FST_MARK_ERR(ctx, gc, FAN_MARK_ADD, FAN_OPEN_PERM, pv, EINVAL);
	FST_MARK_ERR(ctx, gc, FAN_MARK_ADD, FAN_ACCESS_PERM, pv, EINVAL);
	FST_MARK_ERR(ctx, gc, FAN_MARK_ADD, FAN_OPEN, pv, 0);
	fst_open_close(ctx, pv, O_RDONLY);
	FST_EXPECT(ctx, gc, FST_FAN(FAN_OPEN, pv));
}

/*
 * OV05: objects of kernel-internal pseudo filesystems (pipefs, sockfs),
 * reached through /proc/self/fd/N: sb and mount marks fail with EINVAL
 * (fanotify_events_supported(): the path's mount is the kernel-internal
 * one, SB_NOUSER), and an inode mark is accepted. Needs nothing but
 * fanotify: its own case, so that no other feature's skip hides it (it used
 * to sit in ov03_unsupported_filesystems, behind ramfs FID marks).
 */
static void ov05_pseudo_fs_marks(struct fst_ctx *ctx) {
	static const char *const kinds[] = { "pipe", "socket" };
	int p[2], sv[2];

	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	FST_SYS(ctx, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	for (int k = 0; k < 2; k++) {
		char pp[64];
		int gd;

		snprintf(pp, sizeof(pp), "/proc/self/fd/%d", k ? sv[0] : p[0]);
		gd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
		if (fst_mark_err(ctx, gd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_ACCESS, pp) !=
		    -EINVAL)
			fst_fail(ctx, "filesystem mark on a %s: not EINVAL", kinds[k]);
		if (fst_mark_err(ctx, gd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ACCESS, pp) != -EINVAL)
			fst_fail(ctx, "mount mark on a %s: not EINVAL", kinds[k]);
		FST_MARK_ERR(ctx, gd, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, pp, 0);
	}
}

/* OV05 in a FID group: sb and mount marks on a pipe fail with EINVAL there
 * too, an inode mark gets the pipe's FAN_MODIFY with its (AT_HANDLE_FID)
 * file handle. */
static void ov05_pipe_fid(struct fst_ctx *ctx) {
	struct fst_obj po;
	char pp[64];
	int p[2], gf;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", p[0]);
	fst_require_at(ctx, pp, FSN_FEAT_MARK_FID);
	gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_ACCESS, pp, EINVAL);
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ACCESS, pp, EINVAL);
	FST_MARK_ERR(ctx, gf, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, pp, 0);
	FST_SYS(ctx, write(p[1], "x", 1));
	po = fst_obj(ctx, pp);
	FST_EXPECT(ctx, gf, { .mask = FAN_MODIFY, .obj = &po });
}

/*
 * Without CAP_SYS_ADMIN (uid 65534, no capabilities): only notification
 * groups with FID reporting, no admin-only flags, inode marks only, and
 * only on readable objects; the pid of other processes' events is 0
 * (copy_event_to_user(), FANOTIFY_UNPRIV).
 */
struct unpriv {
	int step_err[16];
	int nstep;
	pid_t self, grandchild;
	ssize_t len; /* what its group read, raw: decoded by the case */
	unsigned char buf[4096];
};

enum {
	U_INIT_NOTIF,
	U_INIT_CONTENT,
	U_INIT_UNLIMITED,
	U_INIT_TID,
	U_INIT_PIDFD,
	U_INIT_FID,
	U_MARK_MOUNT,
	U_MARK_SB,
	U_MARK_SECRET,
	U_MARK_PUB,
	U_COUNT,
};

static const struct {
	const char *what;
	int want;
} unpriv_expect[U_COUNT] = {
	[U_INIT_NOTIF] = { "fanotify_init(FAN_CLASS_NOTIF)", EPERM },
	[U_INIT_CONTENT] = { "fanotify_init(FAN_CLASS_CONTENT|FAN_REPORT_FID)", EPERM },
	[U_INIT_UNLIMITED] = { "fanotify_init(FAN_REPORT_FID|FAN_UNLIMITED_QUEUE)", EPERM },
	[U_INIT_TID] = { "fanotify_init(FAN_REPORT_FID|FAN_REPORT_TID)", EPERM },
	[U_INIT_PIDFD] = { "fanotify_init(FAN_REPORT_FID|FAN_REPORT_PIDFD)", EPERM },
	[U_INIT_FID] = { "fanotify_init(FAN_REPORT_FID)", 0 },
	[U_MARK_MOUNT] = { "mount mark", EPERM },
	[U_MARK_SB] = { "filesystem mark", EPERM },
	[U_MARK_SECRET] = { "inode mark on a 0600 root file", EACCES },
	[U_MARK_PUB] = { "inode mark on a 0644 file", 0 },
};

static int try_init(unsigned flags) {
	int fd = fanotify_init(flags | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int child_unpriv(void *arg) {
	struct unpriv *u = arg;
	pid_t gc;
	int g, fd;

	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		return errno;
	u->step_err[U_INIT_NOTIF] = try_init(FAN_CLASS_NOTIF);
	u->step_err[U_INIT_CONTENT] = try_init(FAN_CLASS_CONTENT | FAN_REPORT_FID);
	u->step_err[U_INIT_UNLIMITED] = try_init(FAN_REPORT_FID | FAN_UNLIMITED_QUEUE);
	u->step_err[U_INIT_TID] = try_init(FAN_REPORT_FID | FAN_REPORT_TID);
	u->step_err[U_INIT_PIDFD] = try_init(FAN_REPORT_FID | FAN_REPORT_PIDFD);
	g = fanotify_init(FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);
	u->step_err[U_INIT_FID] = g < 0 ? errno : 0;
	u->nstep = U_INIT_FID + 1;
	if (g < 0)
		return 0;
#define UMARK(i, flags, path)                                                                      \
	u->step_err[i] = fanotify_mark(g, flags, FAN_OPEN, AT_FDCWD, path) < 0 ? errno : 0
	UMARK(U_MARK_MOUNT, FAN_MARK_ADD | FAN_MARK_MOUNT, ".");
	UMARK(U_MARK_SB, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, ".");
	UMARK(U_MARK_SECRET, FAN_MARK_ADD, "secret");
	UMARK(U_MARK_PUB, FAN_MARK_ADD, "pub");
#undef UMARK
	u->nstep = U_COUNT;
	/* its own open, then another process's */
	u->self = getpid();
	fd = open("pub", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	gc = fork();
	if (gc == 0) {
		fd = open("pub", O_RDONLY | O_CLOEXEC);
		_exit(fd < 0 ? 1 : 0);
	}
	u->grandchild = gc;
	if (gc > 0)
		waitpid(gc, NULL, 0);
	u->len = read(g, u->buf, sizeof(u->buf));
	close(g);
	return 0;
}

static void ov03_unprivileged(struct fst_ctx *ctx) {
	struct fst_events *ev;
	struct unpriv *u;
	struct fst_child *c;
	struct fst_obj pub;

	fst_write_file(ctx, "pub", "p");
	fst_write_file(ctx, "secret", "s");
	FST_SYS(ctx, chmod("secret", 0600));
	FST_SYS(ctx, fchmod(ctx->workfd, 0755));
	pub = fst_obj(ctx, "pub");
	u = fst_shared(ctx, sizeof(*u));
	c = fst_spawn(ctx, "unprivileged fanotify", child_unpriv, u, -1);
	fst_child_expect(ctx, c, 0);
	for (int i = 0; i < U_COUNT; i++)
		if (i >= u->nstep || u->step_err[i] != unpriv_expect[i].want)
			fst_fail(ctx, "unprivileged %s: %s, expected %s", unpriv_expect[i].what,
				 i >= u->nstep ? "not reached" : fst_errname(u->step_err[i]),
				 unpriv_expect[i].want ? fst_errname(unpriv_expect[i].want)
						       : "success");
	/* its own event has its pid, another process's pid 0; no fd; a FID */
	if (u->len <= 0)
		fst_fail(ctx, "unprivileged group: read() returned %zd", u->len);
	ev = fst_decode(ctx, false, FAN_REPORT_FID, u->buf, (size_t)u->len);
	FST_MATCH(ctx, -1, ev, { .mask = FAN_OPEN, .obj = &pub, .pid = u->self, .nofd = true },
		  { .mask = FAN_OPEN, .obj = &pub, .pid = FST_PID_ZERO, .nofd = true });
	munmap(u, sizeof(*u));
}

/*
 * LTP fanotify18: the exact rules for a caller without CAP_SYS_ADMIN
 * (fanotify_init(): FANOTIFY_ADMIN_INIT_FLAGS, fid_mode). Beyond
 * ov03_unprivileged: both permission classes, FAN_UNLIMITED_MARKS (and
 * FAN_REPORT_FD_ERROR, which is for fd-mode groups) are EPERM even with FID
 * reporting; either FID bit is enough (FAN_REPORT_DIR_FID alone is a FID
 * group); such a group takes an inode mark with every notification event.
 */
struct unpriv_try {
	unsigned flags; /* fanotify_init() flags; 0 ends the list */
	uint64_t mark;  /* then an inode mark on "d" with this mask (0: none) */
	int want_init, want_mark;
	int got_init, got_mark; /* filled in by the child */
	bool done;
};

static int child_unpriv_try(void *arg) {
	struct unpriv_try *t = arg;

	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		return errno;
	for (; t->flags; t++) {
		int g = fanotify_init(t->flags | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);

		t->got_init = g < 0 ? errno : 0;
		if (g >= 0 && t->mark)
			t->got_mark =
			    fanotify_mark(g, FAN_MARK_ADD, t->mark, AT_FDCWD, "d") < 0 ? errno : 0;
		if (g >= 0)
			close(g);
		t->done = true;
	}
	return 0;
}

static void check_unpriv_tries(struct fst_ctx *ctx, struct unpriv_try *tries, size_t n) {
	struct unpriv_try *t;

	t = fst_shared(ctx, n * sizeof(*t));
	memcpy(t, tries, n * sizeof(*t));
	fst_child_expect(ctx, fst_spawn(ctx, "unprivileged fanotify_init", child_unpriv_try, t, -1),
			 0);
	for (size_t i = 0; t[i].flags; i++) {
		const char *fl = fst_mask_str(FSN_MASK_FANOTIFY_INIT, t[i].flags);

		if (!t[i].done)
			fst_fail(ctx, "unprivileged fanotify_init(%s): not reached", fl);
		if (t[i].got_init != t[i].want_init)
			fst_fail(ctx, "unprivileged fanotify_init(%s): %s, expected %s", fl,
				 fst_errname(t[i].got_init),
				 t[i].want_init ? fst_errname(t[i].want_init) : "success");
		if (t[i].mark && !t[i].got_init && t[i].got_mark != t[i].want_mark)
			fst_fail(ctx,
				 "unprivileged fanotify_init(%s), inode mark %s: %s, expected %s",
				 fl, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, t[i].mark),
				 fst_errname(t[i].got_mark),
				 t[i].want_mark ? fst_errname(t[i].want_mark) : "success");
	}
	munmap(t, n * sizeof(*t));
}

static void ov03_unprivileged_init_rules(struct fst_ctx *ctx) {
	const uint64_t all = FAN_ACCESS | FAN_MODIFY | FAN_CLOSE | FAN_OPEN | FAN_ATTRIB |
			     FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_DELETE_SELF | FAN_MOVE_SELF |
			     FAN_ONDIR | FAN_EVENT_ON_CHILD;
	struct unpriv_try tries[] = {
		{ .flags = FAN_CLASS_PRE_CONTENT | FAN_REPORT_FID, .want_init = EPERM },
		{ .flags = FAN_CLASS_CONTENT | FAN_REPORT_DIR_FID, .want_init = EPERM },
		{ .flags = FAN_UNLIMITED_MARKS | FAN_REPORT_FID, .want_init = EPERM },
		{ .flags = FAN_UNLIMITED_MARKS | FAN_REPORT_DFID_NAME, .want_init = EPERM },
		{ .flags = FAN_REPORT_DIR_FID, .mark = all },
		{ .flags = FAN_REPORT_FID, .mark = all },
		{ .flags = FAN_REPORT_DFID_NAME, .mark = all },
		/* FAN_REPORT_NAME without DIR_FID is invalid for anyone: EINVAL
		 * comes before the privilege check */
		{ .flags = FAN_REPORT_NAME, .want_init = EINVAL },
		{ .flags = FAN_REPORT_NAME | FAN_REPORT_FID, .want_init = EINVAL },
		{ .flags = FAN_REPORT_FID | FAN_REPORT_FD_ERROR, .want_init = EPERM },
		{ 0 },
	};
	size_t n = sizeof(tries) / sizeof(tries[0]);

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, fchmod(ctx->workfd, 0755));
	/* FAN_REPORT_FD_ERROR (Linux 6.13) only where the kernel has it */
	if (!fst_has(ctx, FSN_FEAT_REPORT_FD_ERROR)) {
		tries[n - 2] = (struct unpriv_try){ 0 };
		n--;
	}
	check_unpriv_tries(ctx, tries, n);
}

static void ov03_inotify_errors(struct fst_ctx *ctx) {
	int in, wd;

	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, symlink("d", "ld"));
	FST_SYS_ERR(ctx, inotify_init1(0x1234), EINVAL);
	in = fst_inotify(ctx);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", 0), -EINVAL);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_MASK_ADD | IN_MASK_CREATE | IN_OPEN),
			 -EINVAL);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_ONLYDIR | IN_OPEN), -ENOTDIR);
	ck_assert_int_eq(fst_watch_err(ctx, in, "ld", IN_ONLYDIR | IN_DONT_FOLLOW | IN_OPEN),
			 -ENOTDIR);
	ck_assert_int_eq(fst_watch_err(ctx, in, "missing", IN_OPEN), -ENOENT);
	ck_assert_int_eq(fst_watch_err(ctx, ctx->workfd, "f", IN_OPEN), -EINVAL);
	ck_assert_int_eq(fst_watch_err(ctx, -1, "f", IN_OPEN), -EBADF);
	FST_SYS_ERR(ctx, inotify_rm_watch(in, 12345), EINVAL);
	wd = fst_watch(ctx, in, "f", IN_OPEN);
	if (fst_has(ctx, FSN_FEAT_INOTIFY_MASK_CREATE))
		ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_MASK_CREATE | IN_OPEN), -EEXIST);
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, NULL));
	ck_assert_int_eq(fst_watch(ctx, in, "ld", IN_ONLYDIR | IN_OPEN), wd + 1);
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN | IN_ISDIR, wd + 1, NULL));
}

/* ------------------------------------------------------------------------ */
/* OV04: races                                                              */
/* ------------------------------------------------------------------------ */

#define RACE_MS 500
#define RACE_WORKERS 5

struct race {
	struct timespec end;
	long iters[RACE_WORKERS];
	long events[RACE_WORKERS]; /* events the churners read */
	char msg[RACE_WORKERS][160];
};

struct race_arg {
	struct race *r;
	int id;
};

static bool race_over(const struct race *r) {
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec > r->end.tv_sec ||
	       (t.tv_sec == r->end.tv_sec && t.tv_nsec >= r->end.tv_nsec);
}

/* Run the workers for RACE_MS (times --soak); each must be done shortly after the
 * deadline, with result 0, having run at least once. Returns their shared
 * record (MAP_SHARED; munmap() it). */
static struct race *race_run(struct fst_ctx *ctx, const fst_child_fn *fns,
			     const char *const *names) {
	struct race_arg args[RACE_WORKERS];
	struct fst_child *c[RACE_WORKERS];
	struct race *r;

	r = fst_shared(ctx, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &r->end);
	r->end.tv_sec += (time_t)(ctx->soak * RACE_MS / 1000);
	r->end.tv_nsec += (long)(ctx->soak * RACE_MS % 1000) * 1000000L;
	r->end.tv_sec += r->end.tv_nsec / 1000000000L;
	r->end.tv_nsec %= 1000000000L;
	for (int i = 0; i < RACE_WORKERS; i++) {
		args[i].r = r;
		args[i].id = i;
		c[i] = fst_spawn(ctx, names[i], fns[i], &args[i], -1);
	}
	/* everyone finishes shortly after the deadline, without error */
	for (int i = 0; i < RACE_WORKERS; i++) {
		int res = fst_child_wait(ctx, c[i], (int)ctx->soak * RACE_MS + FST_WAIT_MS);

		fst_log(ctx, "%s: %ld iterations, %ld events read", names[i], r->iters[i],
			r->events[i]);
		if (res != 0)
			fst_fail(ctx, "%s failed: %s", names[i], r->msg[i]);
		if (r->iters[i] < 1)
			fst_fail(ctx, "%s did not run", names[i]);
	}
	return r;
}

/* Record why a worker failed (with errno) and return the errno. */
static int race_fail(struct race_arg *a, const char *fmt, ...) _fst_printf_(2, 3);
static int race_fail(struct race_arg *a, const char *fmt, ...) {
	int e = errno;
	char what[120];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(a->r->msg[a->id], sizeof(a->r->msg[0]), "%s: %s", what, fst_errname(e));
	return e ? e : EIO;
}

/* Drain a group: read until EAGAIN, closing event fds. Errors other than
 * EAGAIN are failures (an fd that cannot be opened would be one). */
static int drain_fan(int g, long *count) {
	unsigned char buf[8192];

	for (;;) {
		ssize_t n = read(g, buf, sizeof(buf));

		if (n < 0)
			return errno == EAGAIN ? 0 : errno;
		if (n == 0)
			return EIO;
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct fanotify_event_metadata) <= n;) {
			struct fanotify_event_metadata m;

			memcpy(&m, buf + off, sizeof(m));
			if (m.event_len < sizeof(m))
				return EBADMSG;
			if (m.fd >= 0)
				close(m.fd);
			off += m.event_len;
			(*count)++;
		}
	}
}

/* Files come and go: create, write, read, rename across directories,
 * link, chmod, truncate, unlink, mkdir/rmdir; names are the worker's own. */
static int race_io(void *arg) {
	struct race_arg *a = arg;
	char f[64], g[64], l[64], x[64], b[8];

	while (!race_over(a->r)) {
		long i = a->r->iters[a->id]++;
		int fd;

		snprintf(f, sizeof(f), "d/w%d_%ld", a->id, i);
		snprintf(g, sizeof(g), "d/s/w%d_%ld", a->id, i);
		snprintf(l, sizeof(l), "d/l%d_%ld", a->id, i);
		snprintf(x, sizeof(x), "d/s/x%d_%ld", a->id, i);
		fd = open(f, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return race_fail(a, "create %s", f);
		if (write(fd, "data", 4) != 4 || pread(fd, b, 4, 0) != 4 || ftruncate(fd, 1) < 0)
			return race_fail(a, "io on %s", f);
		if (rename(f, g) < 0 || link(g, l) < 0 || chmod(l, 0600) < 0)
			return race_fail(a, "rename/link/chmod %s", g);
		if (unlink(g) < 0 || unlink(l) < 0) /* still open: DELETE_SELF at close */
			return race_fail(a, "unlink %s", g);
		close(fd);
		if (mkdir(x, 0755) < 0 || rmdir(x) < 0)
			return race_fail(a, "mkdir/rmdir %s", x);
	}
	return 0;
}

/* What the fanotify churners may use besides FID modes and mount and sb
 * marks: set by the case from fst_has() (older kernels churn without). */
static bool race_evictable = true, race_target_fid = true;

/* fanotify groups of every reporting mode come and go with inode (also
 * evictable), mount and sb marks on the directories where the io workers
 * work; some are read, some flushed, some closed with events queued. */
static int race_fanotify(void *arg) {
	static const unsigned modes[] = { 0, FAN_REPORT_FID, FAN_REPORT_DFID_NAME,
					  FAN_REPORT_DFID_NAME_TARGET, FAN_REPORT_DIR_FID };
	const unsigned evictable = race_evictable ? FAN_MARK_EVICTABLE : 0;
	struct race_arg *a = arg;

	while (!race_over(a->r)) {
		long i = a->r->iters[a->id]++;
		unsigned mode = modes[i % 5] == FAN_REPORT_DFID_NAME_TARGET && !race_target_fid
				    ? FAN_REPORT_DFID_NAME
				    : modes[i % 5];
		uint64_t m = FAN_OPEN | FAN_CLOSE | FAN_MODIFY | FAN_ACCESS | FAN_ONDIR;
		int g = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | mode,
				      O_RDONLY | O_CLOEXEC);
		int e;

		if (g < 0)
			return race_fail(a, "fanotify_init(0x%x)", mode);
		if (mode)
			m |= FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_ATTRIB | FAN_DELETE_SELF;
		if (fanotify_mark(g, FAN_MARK_ADD, m | FAN_EVENT_ON_CHILD, AT_FDCWD, "d") < 0 ||
		    fanotify_mark(g, FAN_MARK_ADD | evictable, m | FAN_EVENT_ON_CHILD, AT_FDCWD,
				  "d/s") < 0)
			return race_fail(a, "inode marks, mode 0x%x", mode);
		if (i % 3 == 0 && fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
						m & ~FAN_ONDIR, AT_FDCWD, ".") < 0)
			return race_fail(a, "sb mark, mode 0x%x", mode);
		if (i % 3 == 1 &&
		    fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_MOUNT,
				  FAN_OPEN | FAN_CLOSE | FAN_MODIFY, AT_FDCWD, ".") < 0)
			return race_fail(a, "mount mark, mode 0x%x", mode);
		if (i % 2) {
			struct pollfd p = { .fd = g, .events = POLLIN };

			poll(&p, 1, 2); /* let some events come */
		}
		if (i % 2 && (e = drain_fan(g, &a->r->events[a->id])) != 0) {
			errno = e;
			return race_fail(a, "read, mode 0x%x", mode);
		}
		if (fanotify_mark(g, FAN_MARK_REMOVE, FAN_MODIFY, AT_FDCWD, "d") < 0)
			return race_fail(a, "remove bits");
		if (i % 4 == 0 && fanotify_mark(g, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) < 0)
			return race_fail(a, "flush");
		if (i % 4 == 1 && (e = drain_fan(g, &a->r->events[a->id])) != 0) {
			errno = e;
			return race_fail(a, "read after remove, mode 0x%x", mode);
		}
		close(g); /* often with events still queued */
	}
	return 0;
}

/* inotify instances come and go with watches on the directories. */
static int race_inotify(void *arg) {
	struct race_arg *a = arg;
	unsigned char buf[8192];

	while (!race_over(a->r)) {
		long i = a->r->iters[a->id]++;
		int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), w1, w2;

		if (in < 0)
			return race_fail(a, "inotify_init1");
		w1 = inotify_add_watch(in, "d", IN_ALL_EVENTS);
		w2 = inotify_add_watch(in, "d/s", IN_ALL_EVENTS | (i % 2 ? IN_EXCL_UNLINK : 0));
		if (w1 < 0 || w2 < 0)
			return race_fail(a, "inotify_add_watch");
		if (i % 2) {
			struct pollfd p = { .fd = in, .events = POLLIN };
			ssize_t n;

			poll(&p, 1, 2);
			n = read(in, buf, sizeof(buf));

			if (n < 0 && errno != EAGAIN)
				return race_fail(a, "read");
			a->r->events[a->id] += n > 0;
		}
		if (inotify_rm_watch(in, w2) < 0)
			return race_fail(a, "inotify_rm_watch");
		close(in);
	}
	return 0;
}

static void ov04_mark_churn_race(struct fst_ctx *ctx) {
	static const fst_child_fn fns[RACE_WORKERS] = { race_io, race_io, race_fanotify,
							race_fanotify, race_inotify };
	static const char *const names[RACE_WORKERS] = { "io 0", "io 1", "fanotify churn 0",
							 "fanotify churn 1", "inotify churn" };
	struct race *r;
	struct fst_obj d;
	int l, lf, in, wd, gn;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	/* (the churn of older kernels: without evictable marks and TARGET_FID) */
	race_evictable = fst_has(ctx, FSN_FEAT_MARK_EVICTABLE);
	race_target_fid = fst_has(ctx, FSN_FEAT_REPORT_TARGET_FID);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "stable", "s");
	d = fst_obj(ctx, "d");
	/* long-lived groups: one on an untouched file, one on d itself */
	l = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, l, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "stable");
	lf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, lf, FAN_MARK_ADD, FAN_ATTRIB | FAN_ONDIR, "d");

	/* the churners must meet events, else the race proved nothing: on a
	 * slow machine (a VM under emulation) a race of RACE_MS may pass
	 * without; it runs again then, a few times */
	for (int attempt = 1;; attempt++) {
		r = race_run(ctx, fns, names);
		if (r->events[2] + r->events[3] > 0 && r->events[4] > 0)
			break;
		if (attempt == 5)
			fst_fail(ctx, "the churners read no events during the race (%d races)",
				 attempt);
		fst_log(ctx, "race %d: the churners read no events; once more", attempt);
		munmap(r, sizeof(*r));
	}

	/* the long-lived groups saw nothing of the race, and still work */
	FST_EXPECT_NONE(ctx, l);
	FST_EXPECT_NONE(ctx, lf);
	fst_open_close(ctx, "stable", O_RDONLY);
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "stable"));
	FST_SYS(ctx, chmod("d", 0700));
	FST_EXPECT(ctx, lf, { .mask = FAN_ATTRIB | FAN_ONDIR, .obj = &d });
	/* each still has exactly its one mark (fdinfo) */
	FST_EXPECT_FDINFO(ctx, l,
			  fst_fdi_inode(ctx, "stable", true, 0, FAN_OPEN | FAN_CLOSE_NOWRITE, 0));
	FST_EXPECT_FDINFO(ctx, lf, fst_fdi_inode(ctx, "d", true, 0, FAN_ATTRIB | FAN_ONDIR, 0));

	/* fresh groups on the raced directories get exactly their events */
	gn = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gn, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD | FAN_ONDIR, "d/s");
	fst_mark(ctx, gn, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, ".");
	fst_mark(ctx, gn, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "d/s", IN_CREATE | IN_OPEN);
	fst_write_file(ctx, "d/s/after", "a");
	FST_EXPECT(ctx, gn, FST_FAN(FAN_OPEN, "d/s/after"));
	FST_EXPECT(ctx, in, FST_IN(IN_CREATE, wd, "after"), FST_IN(IN_OPEN, wd, "after"));
	FST_EXPECT_NONE(ctx, l);
	munmap(r, sizeof(*r));
}

/* Permission groups come and go (answering some events, closing with
 * others pending) while processes open, read and unlink files: every
 * blocked opener must be released, nobody may hang. */
static int race_opener(void *arg) {
	struct race_arg *a = arg;
	char p[64], b[4];

	while (!race_over(a->r)) {
		long i = a->r->iters[a->id]++;
		int fd;

		snprintf(p, sizeof(p), "d/o%d_%ld", a->id, i % 8);
		fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return race_fail(a, "open %s", p);
		if (write(fd, "ab", 2) != 2 || pread(fd, b, 2, 0) < 0)
			return race_fail(a, "io %s", p);
		close(fd);
		if (i % 3 == 0 && unlink(p) < 0)
			return race_fail(a, "unlink %s", p);
	}
	return 0;
}

static int race_perm(void *arg) {
	struct race_arg *a = arg;
	unsigned char buf[4096];

	while (!race_over(a->r)) {
		long i = a->r->iters[a->id]++;
		int g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
				      O_RDONLY | O_CLOEXEC);
		unsigned flags = i % 2 ? FAN_MARK_FILESYSTEM : 0;
		uint64_t m = FAN_OPEN_PERM | FAN_ACCESS_PERM | (flags ? 0 : FAN_EVENT_ON_CHILD);

		if (g < 0)
			return race_fail(a, "fanotify_init(CONTENT)");
		if (fanotify_mark(g, FAN_MARK_ADD | flags, m, AT_FDCWD, "d") < 0)
			return race_fail(a, "permission mark");
		/* answer what comes for a few rounds; leave the rest pending */
		for (int k = 0; k < (int)(i % 4); k++) {
			struct pollfd p = { .fd = g, .events = POLLIN };
			ssize_t n;

			if (poll(&p, 1, 2) <= 0)
				continue;
			n = read(g, buf, sizeof(buf));
			if (n < 0 && errno != EAGAIN)
				return race_fail(a, "read permission events");
			for (ssize_t off = 0; n > 0 && off < n;) {
				struct fanotify_event_metadata m2;
				struct fanotify_response resp;

				memcpy(&m2, buf + off, sizeof(m2));
				resp.fd = m2.fd;
				resp.response = FAN_ALLOW;
				/* every other event stays unanswered until the close */
				if (m2.fd >= 0 && (off / (ssize_t)m2.event_len) % 2 == 0 &&
				    write(g, &resp, sizeof(resp)) != sizeof(resp))
					return race_fail(a, "respond");
				if (m2.fd >= 0)
					close(m2.fd);
				off += m2.event_len;
				a->r->events[a->id]++;
			}
		}
		close(g); /* releases everything still pending, allowed */
	}
	return 0;
}

static void ov04_perm_group_close_race(struct fst_ctx *ctx) {
	static const fst_child_fn fns[RACE_WORKERS] = { race_opener, race_opener, race_opener,
							race_perm, race_perm };
	static const char *const names[RACE_WORKERS] = { "opener 0", "opener 1", "opener 2",
							 "permission group 0",
							 "permission group 1" };
	struct fst_child *c;
	struct race *r;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	r = race_run(ctx, fns, names);
	if (r->events[3] + r->events[4] == 0)
		fst_fail(ctx, "no permission event was read during the race");
	/* no permission mark is left: an open does not block */
	fst_child_expect(ctx, fst_spawn_open(ctx, "d/f", O_RDONLY), 0);
	/* and a new permission group works */
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "d/f");
	c = fst_spawn_open(ctx, "d/f", O_RDONLY);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "d/f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
	munmap(r, sizeof(*r));
}

/* ------------------------------------------------------------------------ */
/* OV06: per-user limits of groups and marks                                */
/* ------------------------------------------------------------------------ */

/* (The limits under /proc/sys must exist: Linux 5.13 made them sysctls,
 * together with fanotify for users without CAP_SYS_ADMIN.) */

/* What a limit child saw; filled in by the child, checked by the case. */
struct limits {
	long max;                 /* the limit it worked with */
	long made;                /* groups (marks) made before the first refusal */
	int refused;              /* the errno of that refusal */
	int notif;                /* fanotify_init(FAN_CLASS_NOTIF) there: errno */
	int again, again_refused; /* after giving one back: one more, then refused */
	char msg[160];            /* set up failed: why */
};

static int limits_fail(struct limits *l, const char *what) {
	int e = errno;

	snprintf(l->msg, sizeof(l->msg), "%s: %s", what, fst_errname(e));
	return e ? e : EIO;
}

static int fid_group(void) {
	return fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK,
			     O_RDONLY);
}

/* Make FID groups until refused (at most max + 1), give one back, make
 * one more, which must be the last. */
static int groups_until_refused(struct limits *l) {
	static int fds[4096];
	long n = 0;

	if (l->max + 1 > (long)(sizeof(fds) / sizeof(fds[0])))
		return limits_fail(l, "limit too high for this case");
	for (; n <= l->max; n++) {
		fds[n] = fid_group();
		if (fds[n] < 0)
			break;
	}
	l->made = n;
	l->refused = n <= l->max ? errno : 0;
	if (n > 0) {
		int g;

		close(fds[n - 1]);
		g = fid_group();
		l->again = g < 0 ? errno : 0;
		l->again_refused = fid_group() < 0 ? errno : 0;
	}
	return 0;
}

/* In the init user namespace, as a uid of its own (so that nobody else's
 * groups count): max_user_groups FID groups, then EMFILE. */
/* Room for l->max + 16 fds, then become a uid of this child's own (so
 * that nobody else's groups count), without capabilities. */
static int become_fresh_uid(struct limits *l) {
	uid_t uid = 100000000 + (uid_t)getpid();
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return limits_fail(l, "getrlimit");
	if (r.rlim_cur < (rlim_t)l->max + 16) {
		r.rlim_cur = (rlim_t)l->max + 16;
		if (r.rlim_max < r.rlim_cur)
			r.rlim_max = r.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			return limits_fail(l, "setrlimit(RLIMIT_NOFILE)");
	}
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		return limits_fail(l, "setresuid");
	return 0;
}

static int child_user_groups(void *arg) {
	struct limits *l = arg;
	int r = become_fresh_uid(l);

	return r ? r : groups_until_refused(l);
}

static void expect_groups_limit(struct fst_ctx *ctx, const struct limits *l, const char *where) {
	if (l->made != l->max || l->refused != EMFILE)
		fst_fail(ctx, "%s: %ld FID groups, then %s; expected %ld, then EMFILE", where,
			 l->made, l->refused ? fst_errname(l->refused) : "no refusal", l->max);
	if (l->again != 0 || l->again_refused != EMFILE)
		fst_fail(ctx, "%s: after closing one group: %s, then %s; expected success, EMFILE",
			 where, fst_errname(l->again), fst_errname(l->again_refused));
}

static void limits_run(struct fst_ctx *ctx, const char *what, fst_child_fn fn, struct limits *l) {
	struct fst_child *c = fst_spawn(ctx, what, fn, l, -1);
	int r = fst_child_wait(ctx, c, FST_WAIT_MS);

	/* EINVAL: a kernel without user namespaces (CONFIG_USER_NS), a
	 * feature it lacks; anything else (EPERM: a policy) is not */
	if (r && strncmp(l->msg, "unshare", 7) == 0 && strstr(l->msg, ": EINVAL"))
		fst_skip_feature(ctx, "user namespaces (CONFIG_USER_NS): %s", l->msg);
	if (r && strncmp(l->msg, "unshare", 7) == 0)
		fst_skip(ctx, "no user namespace: %s", l->msg);
	if (r)
		fst_fail(ctx, "%s: %s", what, l->msg);
}

#define MAX_USER_GROUPS "/proc/sys/fs/fanotify/max_user_groups"
#define NS_MAX_GROUPS "/proc/sys/user/max_fanotify_groups"
#define NS_MAX_MARKS "/proc/sys/user/max_fanotify_marks"
#define UNPRIV_WHY "fanotify without CAP_SYS_ADMIN and its per-user limits (sysctls)"

/* LTP fanotify17: fs.fanotify.max_user_groups, in the init user namespace. */
static void ov06_max_user_groups(struct fst_ctx *ctx) {
	struct limits *l;

	fst_require_kernel(ctx, 5, 13, UNPRIV_WHY);
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	l = fst_shared(ctx, sizeof(*l));
	l->max = fst_read_sysctl(ctx, MAX_USER_GROUPS);
	limits_run(ctx, "groups of a fresh uid", child_user_groups, l);
	expect_groups_limit(ctx, l, "a fresh uid in the init user namespace");
	munmap(l, sizeof(*l));
}

#define NS_GROUPS 4
#define NS_MARKS 3

/* A new user namespace, its own limits set; in it fd mode is EPERM (no
 * CAP_SYS_ADMIN in the init namespace), FID groups are allowed. */
static int enter_userns(struct limits *l, const char *path, long max) {
	int g;

	if (unshare(CLONE_NEWUSER) < 0)
		return limits_fail(l, "unshare(CLONE_NEWUSER)");
	if (fst_write_sysctl(path, max) < 0)
		return limits_fail(l, path);
	l->max = max;
	g = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
	l->notif = g < 0 ? errno : 0;
	if (g >= 0)
		close(g);
	return 0;
}

static int child_userns_groups(void *arg) {
	struct limits *l = arg;
	int r = enter_userns(l, NS_MAX_GROUPS, NS_GROUPS);

	return r ? r : groups_until_refused(l);
}

/* Marks count per user (namespace) over all its groups: two groups, f0..f
 * marked until refused, an update of an existing mark is no new mark, a
 * removed mark gives its place back. */
static int child_userns_marks(void *arg) {
	struct limits *l = arg;
	int r = enter_userns(l, NS_MAX_MARKS, NS_MARKS);
	int g[2];
	char p[32];
	long n = 0;

	if (r)
		return r;
	g[0] = fid_group();
	g[1] = fid_group();
	if (g[0] < 0 || g[1] < 0)
		return limits_fail(l, "fanotify_init(FAN_REPORT_FID)");
	for (; n <= l->max; n++) {
		snprintf(p, sizeof(p), "f%ld", n);
		if (fanotify_mark(g[n % 2], FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, p) < 0)
			break;
	}
	l->made = n;
	l->refused = n <= l->max ? errno : 0;
	if (fanotify_mark(g[0], FAN_MARK_ADD, FAN_CLOSE_NOWRITE, AT_FDCWD, "f0") < 0)
		return limits_fail(l, "adding a bit to the mark of f0");
	if (fanotify_mark(g[0], FAN_MARK_REMOVE, FAN_OPEN | FAN_CLOSE_NOWRITE, AT_FDCWD, "f0") < 0)
		return limits_fail(l, "removing the mark of f0");
	snprintf(p, sizeof(p), "f%d", NS_MARKS);
	l->again = fanotify_mark(g[1], FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, p) < 0 ? errno : 0;
	snprintf(p, sizeof(p), "f%d", NS_MARKS + 1);
	l->again_refused = fanotify_mark(g[0], FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, p) < 0 ? errno : 0;
	return 0;
}

/* Whether this kernel has user namespaces: root's unshare() in a child
 * (EINVAL without CONFIG_USER_NS: limits_run() skips the feature). A
 * fresh uid's unshare() fails with EPERM there too: its refusal alone
 * cannot tell a kernel without the feature from a policy. */
static int child_userns_probe(void *arg) {
	return unshare(CLONE_NEWUSER) < 0 ? limits_fail(arg, "unshare(CLONE_NEWUSER)") : 0;
}

/* FID groups made in a user namespace by fn (with l->max = max_user_groups
 * when global): fd mode EPERM there, the limit then EMFILE, and neither
 * limit of the init namespace changed. */
static void userns_groups(struct fst_ctx *ctx, const char *what, fst_child_fn fn, bool global,
			  const char *where) {
	struct limits *l;
	long init_ns, init_user;

	fst_require_kernel(ctx, 5, 13, UNPRIV_WHY);
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	init_ns = fst_read_sysctl(ctx, NS_MAX_GROUPS);
	init_user = fst_read_sysctl(ctx, MAX_USER_GROUPS);
	l = fst_shared(ctx, sizeof(*l));
	limits_run(ctx, "a user namespace of root's", child_userns_probe, l);
	memset(l, 0, sizeof(*l));
	l->max = global ? init_user : 0;
	limits_run(ctx, what, fn, l);
	if (l->notif != EPERM)
		fst_fail(ctx,
			 "fanotify_init(FAN_CLASS_NOTIF) in a user namespace: %s, expected EPERM",
			 fst_errname(l->notif));
	expect_groups_limit(ctx, l, where);
	/* the init namespace's limits are its own */
	if (fst_read_sysctl(ctx, NS_MAX_GROUPS) != init_ns)
		fst_fail(ctx, "the init namespace's %s changed", NS_MAX_GROUPS);
	if (fst_read_sysctl(ctx, MAX_USER_GROUPS) != init_user)
		fst_fail(ctx, "%s changed", MAX_USER_GROUPS);
	munmap(l, sizeof(*l));
}

/* LTP fanotify17: user.max_fanotify_groups of a child user namespace. */
static void ov06_userns_max_groups(struct fst_ctx *ctx) {
	userns_groups(ctx, "groups in a user namespace", child_userns_groups, false,
		      "a user namespace whose max_fanotify_groups is 4");
}

/* A fresh uid (l->max: the init namespace's max_user_groups) creates a
 * user namespace and sets its max_fanotify_groups NS_GROUPS above that:
 * the init namespace's limit, counted for the namespace's creator, binds. */
static int child_userns_global_groups(void *arg) {
	struct limits *l = arg;
	long global = l->max;
	int r = become_fresh_uid(l);

	if (!r)
		r = enter_userns(l, NS_MAX_GROUPS, global + NS_GROUPS);
	if (r)
		return r;
	l->max = global;
	return groups_until_refused(l);
}

/*
 * LTP fanotify17, its global limit in a user namespace: a namespace's
 * limit adds to its parents', never replaces them. A fresh uid's child
 * namespace allows max_user_groups + 4 groups, yet its creator gets
 * exactly the init namespace's max_user_groups, then EMFILE; one closed
 * gives its place back. Neither sysctl of the init namespace changes.
 */
static void ov06_userns_global_groups(struct fst_ctx *ctx) {
	userns_groups(ctx, "groups in a fresh uid's user namespace", child_userns_global_groups,
		      true, "a user namespace allowing more than its parent");
}

/* LTP fanotify17: user.max_fanotify_marks of a child user namespace. */
static void ov06_userns_max_marks(struct fst_ctx *ctx) {
	struct limits *l;
	long init;

	fst_require_kernel(ctx, 5, 13, UNPRIV_WHY);
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	for (int i = 0; i <= NS_MARKS + 1; i++) {
		char p[16];

		snprintf(p, sizeof(p), "f%d", i);
		fst_write_file(ctx, p, "f");
	}
	FST_SYS(ctx, fchmod(ctx->workfd, 0755));
	init = fst_read_sysctl(ctx, NS_MAX_MARKS);
	l = fst_shared(ctx, sizeof(*l));
	limits_run(ctx, "marks in a user namespace", child_userns_marks, l);
	if (l->made != NS_MARKS || l->refused != ENOSPC)
		fst_fail(ctx, "%ld marks in two FID groups, then %s; expected %d, then ENOSPC",
			 l->made, l->refused ? fst_errname(l->refused) : "no refusal", NS_MARKS);
	if (l->again != 0 || l->again_refused != ENOSPC)
		fst_fail(ctx, "after removing one mark: %s, then %s; expected success, ENOSPC",
			 fst_errname(l->again), fst_errname(l->again_refused));
	if (fst_read_sysctl(ctx, NS_MAX_MARKS) != init)
		fst_fail(ctx, "the init namespace's %s changed", NS_MAX_MARKS);
	munmap(l, sizeof(*l));
}

/* ------------------------------------------------------------------------ */
/* OV07: a group made without CAP_SYS_ADMIN stays unprivileged              */
/* ------------------------------------------------------------------------ */

/*
 * LTP fanotify19: the group is created while the case process has dropped
 * its effective uid (and so its effective capabilities) to 65534; the
 * process regains them before the events and the read. What the group
 * reports was fixed when it was created (FANOTIFY_UNPRIV): pid 0 for
 * another process's event and no event fd, the process's own pid for its
 * own events. A group created privileged (same flags) is the control.
 */
static void ov07_unpriv_group_privileged_reader(struct fst_ctx *ctx) {
	struct fst_child *c;
	int gu, gp, gfd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, fchmod(ctx->workfd, 0755));
	gp = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gp, FAN_MARK_ADD, FAN_OPEN, "f");
	FST_SYS(ctx, seteuid(65534));
	/* unprivileged now: fd mode is refused */
	FST_SYS_ERR(ctx, fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY), EPERM);
	gu = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gu, FAN_MARK_ADD, FAN_OPEN, "f");
	FST_SYS(ctx, seteuid(0));
	/* privileged again: fd mode works */
	gfd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_close(ctx, gfd);

	c = fst_spawn_open(ctx, "f", O_RDONLY);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, gu, { .mask = FAN_OPEN, .path = "f", .pid = FST_PID_ZERO, .nofd = true });
	FST_EXPECT(ctx, gp, { .mask = FAN_OPEN, .path = "f", .pid = c->pid, .nofd = true });
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gu, { .mask = FAN_OPEN, .path = "f", .nofd = true });
	FST_EXPECT(ctx, gp, { .mask = FAN_OPEN, .path = "f", .nofd = true });
}

/* ------------------------------------------------------------------------ */
/* OV08: the group fd's own flags                                           */
/* ------------------------------------------------------------------------ */

/* FD_CLOEXEC and O_NONBLOCK of fd: exactly cloexec, nonblock. */
static void expect_fd_flags(struct fst_ctx *ctx, int fd, bool cloexec, bool nonblock,
			    const char *what) {
	int fdf = FST_SYS(ctx, fcntl(fd, F_GETFD));
	int fl = FST_SYS(ctx, fcntl(fd, F_GETFL));

	if (!!(fdf & FD_CLOEXEC) != cloexec)
		fst_fail(ctx, "%s: FD_CLOEXEC is %s", what, fdf & FD_CLOEXEC ? "set" : "clear");
	if (!!(fl & O_NONBLOCK) != nonblock)
		fst_fail(ctx, "%s: O_NONBLOCK is %s", what, fl & O_NONBLOCK ? "set" : "clear");
}

/*
 * LTP fanotify08: FAN_CLOEXEC sets FD_CLOEXEC on the group fd, FAN_NONBLOCK
 * O_NONBLOCK (an empty group's read() is EAGAIN), each exactly when asked;
 * event_f_flags (which are for the event fds) change neither.
 */
static void ov08_fanotify_init_fd_flags(struct fst_ctx *ctx) {
	for (unsigned i = 0; i < 6; i++) {
		unsigned fl = (i & 1 ? FAN_CLOEXEC : 0) | (i & 2 ? FAN_NONBLOCK : 0);
		unsigned ef = i & 4 ? O_RDONLY | O_CLOEXEC | O_NONBLOCK : O_RDONLY;
		char what[96], b[64];
		int fd = fanotify_init(FAN_CLASS_NOTIF | fl, ef);

		snprintf(what, sizeof(what), "fanotify_init(%s, %s)",
			 fl ? fst_mask_str(FSN_MASK_FANOTIFY_INIT, fl) : "0",
			 ef == O_RDONLY ? "O_RDONLY" : "O_RDONLY|O_CLOEXEC|O_NONBLOCK");
		if (fd < 0)
			fst_fail(ctx, "%s: %s", what, fst_errname(errno));
		expect_fd_flags(ctx, fd, fl & FAN_CLOEXEC, fl & FAN_NONBLOCK, what);
		if (fl & FAN_NONBLOCK)
			FST_SYS_ERR(ctx, read(fd, b, sizeof(b)), EAGAIN);
		fst_close(ctx, fd);
	}
}

/* The event fds' flags come from event_f_flags (O_CLOEXEC, O_NONBLOCK), and
 * only from them. */
static void ov08_event_fd_flags(struct fst_ctx *ctx) {
	fst_write_file(ctx, "f", "f");
	for (unsigned i = 0; i < 4; i++) {
		unsigned ef = O_RDONLY | (i & 1 ? O_CLOEXEC : 0) | (i & 2 ? O_NONBLOCK : 0);
		int g = fst_fan_init2(ctx, FAN_CLASS_NOTIF, ef);
		struct fst_events *ev;
		char what[64];

		fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f");
		fst_open_close(ctx, "f", O_RDONLY);
		ev = fst_read_keep(ctx, g);
		FST_MATCH(ctx, g, ev, FST_FAN(FAN_OPEN, "f"));
		snprintf(what, sizeof(what), "event fd, event_f_flags 0%o", ef);
		expect_fd_flags(ctx, ev->e[0].ev.fd, ef & O_CLOEXEC, ef & O_NONBLOCK, what);
		fst_close(ctx, ev->e[0].ev.fd);
		fst_close(ctx, g);
	}
}

/* In a child: one read() of a blocking fanotify group: exactly one
 * CLOSE_WRITE event of pid by (its fd closed). 0, the errno of read(), or
 * EPROTO for anything else. */
struct blocked_read {
	int fd;
	pid_t by;
};

static int read_close_write(void *arg) {
	const struct blocked_read *b = arg;
	union {
		struct fanotify_event_metadata m;
		char buf[4096];
	} u;
	ssize_t n = read(b->fd, u.buf, sizeof(u.buf));

	if (n < 0)
		return errno;
	if (u.m.fd >= 0 && (size_t)n >= sizeof(u.m))
		close(u.m.fd);
	if ((size_t)n < sizeof(u.m) || u.m.event_len != (size_t)n || u.m.mask != FAN_CLOSE_WRITE ||
	    u.m.pid != b->by)
		return EPROTO;
	return 0;
}

/* A reader asleep in read() of a fanotify group (no FAN_NONBLOCK) is woken
 * by the event and gets exactly it: a lost wake-up in fanotify_read() (the
 * wait_woken() loop, the wake_up() of the queue) leaves it asleep. */
static void ov09_blocked_read_woken(struct fst_ctx *ctx) {
	struct blocked_read b = { .by = getpid() };
	struct fst_child *c;
	int fd;

	fst_write_file(ctx, "f", "f");
	b.fd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_SYS(ctx, fcntl(b.fd, F_SETFL, 0)); /* (a reader that waits) */
	fst_mark(ctx, b.fd, FAN_MARK_ADD, FAN_CLOSE_WRITE, "f");
	c = fst_spawn(ctx, "read(fanotify fd)", read_close_write, &b, b.fd);
	fst_child_in_read(ctx, c, b.fd);
	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	fst_child_expect(ctx, c, 0);
	FST_SYS(ctx, fcntl(b.fd, F_SETFL, O_NONBLOCK));
	FST_EXPECT_NONE(ctx, b.fd);
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_ov[] = {
	FST_CASE(ov01_overflow_one_event_in_order, "OV01", FST_ONCE,
		 "max_queued_events CREATEs in order, then exactly one Q_OVERFLOW (FAN_NOFD)"),
	FST_CASE_GIT(ov01_overflow_fd_error_ebadf, "OV01,ID05", FST_ONCE, "522249f05c55",
		     "REPORT_FD_ERROR: the same overflow, every fd -EBADF instead of FAN_NOFD"),
	FST_CASE(ov01_overflow_fd_mode, "OV01", FST_ONCE,
		 "fd mode: max_queued_events OPENs (distinct links) in order, one overflow"),
	FST_CASE(ov01_overflow_fd_mode_fd_error, "OV01,ID05", FST_ONCE,
		 "fd mode + REPORT_FD_ERROR: OPENs with their fds in order, one overflow -EBADF"),
	FST_CASE(ov01_unlimited_queue_no_overflow, "OV01", FST_ONCE,
		 "FAN_UNLIMITED_QUEUE: max_queued_events + 64 events, all kept, in order"),
	FST_CASE(ov02_inotify_overflow_last, "OV02", FST_ONCE,
		 "inotify: max_queued_events events then one IN_Q_OVERFLOW (wd -1) last"),
	FST_CASE(ov02_inotify_overflow_names, "OV02", FST_ONCE,
		 "inotify: named IN_CREATEs in order up to the limit, one overflow, resumes"),
	FST_CASE(ov03_init_invalid_flags, "OV03", FST_ONCE,
		 "fanotify_init: unknown flags, class 3, bad event_f_flags -> EINVAL"),
	FST_CASE(ov03_init_fid_combinations, "OV03", FST_ONCE,
		 "fanotify_init: NAME w/o DIR_FID, FID with a permission class -> EINVAL"),
	FST_CASE_GIT(ov03_init_target_fid_combinations, "OV03", FST_ONCE, "d61fd650e9d2",
		     "fanotify_init: TARGET_FID without NAME, DIR_FID and FID -> EINVAL"),
	FST_CASE(ov03_mark_invalid_flags, "OV03", FST_ONCE,
		 "fanotify_mark: bad flags/mask/command/fd -> EINVAL/EBADF/ENOENT"),
	FST_CASE_GIT(ov03_mark_perm_needs_class, "OV03", FST_ONCE, "4f8afa33817a",
		     "permission bits on a NOTIF group, PRE_ACCESS on CONTENT -> EINVAL"),
	FST_CASE(ov03_mark_fid_only_events, "OV03", FST_ONCE,
		 "dirent/attrib/self events: EINVAL in fd mode and on FID mount marks"),
	FST_CASE_GIT(ov03_mark_rename_needs_name, "OV03", FST_ONCE, "8cc3b1ccd930",
		     "FAN_RENAME without FAN_REPORT_NAME -> EINVAL"),
	FST_CASE(ov03_mark_onlydir_enotdir, "OV03", FST_ONCE,
		 "FAN_MARK_ONLYDIR on a file, a symlink (DONT_FOLLOW), a file fd -> ENOTDIR"),
	FST_CASE_GIT(
	    ov03_mark_dir_bits_on_file, "OV03", FST_ONCE, "ceaf69f8eadc 8698e3bab4dd",
	    "dir-only bits on a file mark: ENOTDIR with RENAME/TARGET_FID, legacy accepts"),
	FST_CASE_GIT(ov03_mark_ignore_dir_bits_on_file, "OV03", FST_ONCE, "8698e3bab4dd",
		     "FAN_MARK_IGNORE with ONDIR/EVENT_ON_CHILD on a file -> ENOTDIR"),
	FST_CASE_GIT(ov03_mark_ignore_combinations, "OV03", FST_ONCE, "e252f2ed1c8c",
		     "FAN_MARK_IGNORE: +IGNORED_MASK/mount/sb -> EINVAL, dir -> EISDIR w/o SURV"),
	FST_CASE_GIT(ov03_mark_ignore_dirent_on_file, "OV03", FST_ONCE, "ceaf69f8eadc 8698e3bab4dd",
		     "IGNORE_SURV dirent bits: file -> ENOTDIR; dir, sb mark via the file -> ok"),
	FST_CASE_GIT(ov03_mark_target_dirent_on_file, "OV03", FST_ONCE, "ceaf69f8eadc 8698e3bab4dd",
		     "TARGET_FID dirent bits: file -> ENOTDIR; dir, sb mark via the file -> ok"),
	FST_CASE(ov03_mark_type_restrictions, "OV03", FST_ONCE, "FS_ERROR only on sb marks"),
	FST_CASE(ov03_mark_evictable_inode_only, "OV03", FST_ONCE,
		 "EVICTABLE only on new inode marks: mount/sb -> EINVAL, downgrade -> EEXIST"),
	FST_CASE(ov03_enodev_exdev_zero_fsid, "OV03", FST_ONCE,
		 "FUSE (zero fsid): FID sb/mount -> ENODEV; fd-mode sb mark works"),
	FST_CASE_GIT(ov03_exdev_weak_fsid, "OV03", FST_ONCE, "30ad1938326b",
		     "FUSE (zero fsid): weak-fsid inode mark; weak+strong in one group -> EXDEV"),
	FST_CASE(ov03_ramfs_fid_sb_mount, "OV03", FST_ONCE,
		 "ramfs: FID sb/mount -> EOPNOTSUPP (ENODEV before 6.8); fd mode works"),
	FST_CASE(ov03_unsupported_filesystems, "OV03", FST_ONCE,
		 "ramfs: a FID inode mark works, with the AT_HANDLE_FID handle"),
	FST_CASE(ov03_procfs_no_perm_events, "OV03", FST_ONCE,
		 "procfs: OPEN_PERM/ACCESS_PERM -> EINVAL, OPEN works"),
	FST_CASE_GIT(ov05_pseudo_fs_marks, "OV05", FST_ONCE, "69562eb0bd3e",
		     "pipe and socket via /proc/self/fd: sb/mount -> EINVAL, inode marks work"),
	FST_CASE_GIT(ov05_pipe_fid, "OV05", FST_ONCE, "69562eb0bd3e",
		     "pipe, FID group: sb/mount -> EINVAL; inode mark: MODIFY with the pipe's FID"),
	FST_CASE_GIT(ov03_unprivileged, "OV03,ID04", FST_ONCE, "a8b98c808eab 7cea2a3c505e",
		     "uid 65534: EPERM for admin flags/mount/sb marks, EACCES; pid 0 for others"),
	FST_CASE(ov03_unprivileged_init_rules, "OV03", FST_ONCE,
		 "uid 65534: PRE_CONTENT/CONTENT/UNLIMITED_MARKS/FD_ERROR -> EPERM, DIR_FID ok"),
	FST_CASE_GIT(ov03_inotify_errors, "OV03", FST_ONCE, "4d97f7d53da7",
		     "inotify: empty mask, MASK_ADD|MASK_CREATE, ONLYDIR, bad fds -> errors"),
	FST_CASE_TIMEOUT_GIT(
	    ov04_mark_churn_race, "OV04", FST_ALL_FS, 20, "8f2f3eb59dff d90a10e2444b",
	    "0.5 s of mark/group churn (all modes) during file churn: no hang, clean"),
	FST_CASE_TIMEOUT_GIT(
	    ov04_perm_group_close_race, "OV04", FST_ALL_FS, 20, "96d41019e3ac 05f0e38724e8",
	    "0.5 s of permission groups closing with pending events: nobody hangs"),
	FST_CASE(ov06_max_user_groups, "OV06", FST_ONCE,
		 "a fresh uid: max_user_groups FID groups, then EMFILE; a closed one frees"),
	FST_CASE(ov06_userns_max_groups, "OV06", FST_ONCE,
		 "user namespace, its max_fanotify_groups 4: 4 FID groups, EMFILE; fd mode EPERM"),
	FST_CASE(ov06_userns_global_groups, "OV06", FST_ONCE,
		 "a uid's user namespace allowing more: the init namespace's limit binds"),
	FST_CASE(ov06_userns_max_marks, "OV06", FST_ONCE,
		 "user namespace, its max_fanotify_marks 3: 3 marks over 2 groups, ENOSPC"),
	FST_CASE_GIT(ov07_unpriv_group_privileged_reader, "OV07,ID04", FST_ONCE, "a8b98c808eab",
		     "group made at euid 65534, read as root: pid 0, FAN_NOFD for other processes"),
	FST_CASE(ov08_fanotify_init_fd_flags, "OV08", FST_ONCE,
		 "FAN_CLOEXEC -> FD_CLOEXEC, FAN_NONBLOCK -> O_NONBLOCK, exactly when asked"),
	FST_CASE(ov09_blocked_read_woken, "OV09", FST_ALL_FS,
		 "a reader asleep in read() of a fanotify group is woken with the event"),
	FST_CASE(ov08_event_fd_flags, "OV08", FST_ONCE,
		 "event fds: FD_CLOEXEC/O_NONBLOCK exactly from event_f_flags"),
	{ 0 },
};
