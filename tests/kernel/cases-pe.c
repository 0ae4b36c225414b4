/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-pe.c — fsn-selftest cases of the PE group: permission and
 * pre-content events (PE01-PE08 in semantics.md).
 *
 * Every operation that can block runs in a child (fst_spawn*): the case
 * process itself never opens, reads or executes a file a permission mark
 * covers. "Blocked" is proven, not assumed: after the event was read, the
 * child (or thread) must be seen sleeping in fanotify's wait for the
 * response (/proc/<tid>/stat state D, wchan in fanotify code) within
 * FST_WAIT_MS (fst_child_blocked()), and a child that finishes first is a
 * failure. Every wait is a bounded poll; a child that stays blocked becomes
 * a failure naming it.
 *
 * Kernel behaviour these cases rely on (checked on 6.18):
 *  - fsnotify_open_perm() sends FS_OPEN_EXEC_PERM and then FS_OPEN_PERM as
 *    two fsnotify() calls: an execve gives two permission events, each to
 *    every group in priority order, while a notification group gets one
 *    FAN_OPEN|FAN_OPEN_EXEC event.
 *  - fsnotify_pre_content() reports the page-aligned cover of the access:
 *    offset = round_down(pos, PAGE_SIZE), count = round_up(pos + len,
 *    PAGE_SIZE) - offset (not clamped to i_size); mmap reports the mapped
 *    range. read() sends FAN_PRE_ACCESS and then FAN_ACCESS_PERM; write()
 *    and mmap() only FAN_PRE_ACCESS; open() none. truncate() and
 *    ftruncate() ask for the empty range at the new size, open(O_TRUNC)
 *    nothing; fallocate() asks in every mode; the copy paths ask of both
 *    ends; io_uring asks once per attempt (IOSQE_ASYNC: one).
 *  - FAN_DENY_ERRNO(e) is EINVAL unless the group is FAN_CLASS_PRE_CONTENT
 *    and e is EIO, EPERM, EBUSY, ETXTBSY, EAGAIN, ENOSPC or EDQUOT; a
 *    rejected response leaves the event pending.
 *  - Page faults ask no pre-content event, also inside a read or write
 *    whose buffer maps the watched file. execve of a script reads it once
 *    (kernel_read() of BINPRM_BUF_SIZE bytes at 0: one PRE_ACCESS); an ELF
 *    program is read and mapped a binary-dependent number of times.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selftest.h"

/* Size of one fd-mode fanotify event without info records. */
#define EV_LEN ((int)sizeof(struct fanotify_event_metadata))

#define FILE_DATA "0123456789abcdef"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t page_size(void) {
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A file of n bytes of FILE_DATA repeated. */
static void write_big(struct fst_ctx *ctx, const char *path, size_t n) {
	char *b = fst_strdupf(ctx, "%*s", (int)n, "");

	for (size_t i = 0; i < n; i++)
		b[i] = FILE_DATA[i % (sizeof(FILE_DATA) - 1)];
	fst_write_file(ctx, path, b);
}

/* path's size is want (stat(): no event). */
#define EXPECT_SIZE(ctx, path, want) expect_size(ctx, path, want, __FILE__, __LINE__)
static void expect_size(struct fst_ctx *ctx, const char *path, off_t want, const char *file,
			int line) {
	struct stat st;

	if (stat(path, &st) < 0)
		fst_fail_(ctx, file, line, "stat %s: %s", path, fst_errname(-errno));
	if (st.st_size != want)
		fst_fail_(ctx, file, line, "%s: size %lld, expected %lld", path,
			  (long long)st.st_size, (long long)want);
}

/* Read everything queued on fd: exactly one event (mask, path) per pid in
 * pids, in any order (concurrent children). */
#define EXPECT_BY_PID(ctx, fd, mask, path, pids, n)                                                \
	expect_by_pid(ctx, fd, mask, path, pids, n, __FILE__, __LINE__)
static struct fst_events *expect_by_pid(struct fst_ctx *ctx, int fd, uint64_t mask,
					const char *path, const pid_t *pids, size_t n,
					const char *file, int line) {
	struct fst_events *evs = fst_read_(ctx, fd, false, file, line);
	struct fst_exp x[16];
	bool used[16] = { false };

	if (n > 16)
		fst_fail_(ctx, file, line, "expect_by_pid: too many pids");
	for (size_t i = 0; i < n; i++)
		x[i] = (struct fst_exp){ .mask = mask, .path = path, .pid = pids[i] };
	/* Order the expectations like the events, by pid; anything unmatched
	 * keeps its place and makes fst_match_() explain the difference. */
	if (evs->n == n) {
		struct fst_exp y[16];
		bool ok = true;

		for (size_t i = 0; i < n && ok; i++) {
			size_t k;

			for (k = 0; k < n; k++)
				if (!used[k] && pids[k] == evs->e[i].ev.pid)
					break;
			if (k == n)
				ok = false;
			else {
				used[k] = true;
				y[i] = x[k];
			}
		}
		if (ok)
			memcpy(x, y, n * sizeof(x[0]));
	}
	fst_match_(ctx, fd, evs, x, n, "group (events in any order)", file, line);
	return evs;
}

/* Operations a child performs; the result is 0 or the errno of the step
 * that failed. */
enum pe_op_kind {
	OP_OPEN,  /* open(O_RDONLY), close */
	OP_READ,  /* open(O_RDONLY), pread(len at off) */
	OP_WRITE, /* open(O_WRONLY), pwrite(len at off) */
	OP_MMAP,  /* open(O_RDONLY), mmap(len at off, PROT_READ, MAP_SHARED), touch, munmap */
	/* open(O_RDONLY), then len at off into another file ("sink", in the
	 * case's directory) or a pipe: */
	OP_COPY,        /* copy_file_range() to sink */
	OP_SENDFILE,    /* sendfile() to sink */
	OP_SPLICE,      /* splice() to a pipe */
	OP_SPLICE_IN,   /* len bytes written to a pipe, splice()d into the file at off */
	OP_TRUNCATE,    /* truncate(path, off): no open */
	OP_FTRUNCATE,   /* open(O_WRONLY), ftruncate(off) */
	OP_OPEN_TRUNC,  /* open(O_WRONLY | O_TRUNC), close */
	OP_FALLOCATE,   /* open(O_WRONLY), fallocate(mode, off, len) */
	OP_URING_READ,  /* open(O_RDONLY), an io_uring IORING_OP_READ of len at off */
	OP_URING_WRITE, /* open(O_WRONLY), an io_uring IORING_OP_WRITE of len at off */
};

struct pe_op {
	enum pe_op_kind kind;
	char path[PATH_MAX];
	off_t off;
	size_t len;
	int mode; /* OP_FALLOCATE's */
};

/* OP_COPY, OP_SENDFILE, OP_SPLICE from fd: 0 or errno. */
static int copy_out(const struct pe_op *o, int fd) {
	loff_t in = o->off, out = 0;
	off_t soff = o->off;
	int p[2], sink = -1, r = 0;
	ssize_t n = -1;

	if (o->kind == OP_SPLICE ? pipe2(p, O_CLOEXEC) < 0
				 : (sink = open("sink", O_WRONLY | O_CLOEXEC)) < 0)
		return errno;
	if (o->kind == OP_COPY)
		n = copy_file_range(fd, &in, sink, &out, o->len, 0);
	else if (o->kind == OP_SENDFILE)
		n = sendfile(sink, fd, &soff, o->len);
	else
		n = splice(fd, &in, p[1], NULL, o->len, 0);
	if (n < 0)
		r = errno;
	else if ((size_t)n != o->len)
		r = EIO;
	if (o->kind == OP_SPLICE) {
		close(p[0]);
		close(p[1]);
	} else
		close(sink);
	return r;
}

/* OP_SPLICE_IN into fd: 0 or errno. */
static int splice_in(const struct pe_op *o, int fd) {
	static char buf[1 << 16];
	loff_t out = o->off;
	ssize_t n;
	int p[2], r = 0;

	if (o->len > sizeof(buf) || pipe2(p, O_CLOEXEC) < 0)
		return o->len > sizeof(buf) ? EINVAL : errno;
	memset(buf, 'S', o->len);
	if (write(p[1], buf, o->len) != (ssize_t)o->len)
		r = errno ? errno : EIO;
	else if ((n = splice(p[0], NULL, fd, &out, o->len, 0)) < 0)
		r = errno;
	else if ((size_t)n != o->len)
		r = EIO;
	close(p[0]);
	close(p[1]);
	return r;
}

/* One io_uring request (IORING_OP_READ or IORING_OP_WRITE of len bytes of
 * buf at off on fd), waited for: its result (bytes or -errno), or -errno of
 * the ring's set-up. Raw system calls: no liburing. IOSQE_ASYNC: one
 * attempt, by an io-wq worker that may block (inline, a non-blocking
 * attempt the filesystem refuses with -EAGAIN is retried by a worker, and
 * the retry asks again: btrfs always, xfs sometimes, for a write). */
static int uring_rw(int fd, uint8_t opcode, void *buf, size_t len, off_t off) {
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	char *sq, *cq;
	unsigned *tail, idx;
	int ring, res;

	ring = (int)syscall(__NR_io_uring_setup, 1, &p);
	if (ring < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		res = -errno;
		close(ring);
		return res;
	}
	tail = (unsigned *)(sq + p.sq_off.tail);
	idx = *tail & *(unsigned *)(sq + p.sq_off.ring_mask);
	sqes[idx] = (struct io_uring_sqe){ .opcode = opcode,
					   .flags = IOSQE_ASYNC,
					   .fd = fd,
					   .addr = (uint64_t)(uintptr_t)buf,
					   .len = (uint32_t)len,
					   .off = (uint64_t)off };
	((unsigned *)(sq + p.sq_off.array))[idx] = idx;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
		res = -errno;
		close(ring);
		return res;
	}
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	res = cqes[__atomic_load_n((unsigned *)(cq + p.cq_off.head), __ATOMIC_ACQUIRE) &
		   *(unsigned *)(cq + p.cq_off.ring_mask)]
		  .res;
	close(ring);
	return res;
}

/* A ring can be set up here, else the case skips. */
static void require_io_uring(struct fst_ctx *ctx) {
	struct io_uring_params up = { 0 };
	int ring = (int)syscall(__NR_io_uring_setup, 1, &up);

	if (ring < 0 && errno == ENOSYS)
		fst_skip_feature(ctx, "io_uring (a kernel built without CONFIG_IO_URING)");
	if (ring < 0)
		fst_skip(ctx, "io_uring_setup: %s (kernel.io_uring_disabled set?)",
			 fst_errname(-errno));
	close(ring);
}

static int open_flags(enum pe_op_kind kind) {
	switch (kind) {
	case OP_WRITE:
	case OP_SPLICE_IN:
	case OP_FTRUNCATE:
	case OP_FALLOCATE:
	case OP_URING_WRITE: return O_WRONLY;
	case OP_OPEN_TRUNC: return O_WRONLY | O_TRUNC;
	default: return O_RDONLY;
	}
}

static int child_op(void *arg) {
	static char buf[1 << 16];
	const struct pe_op *o = arg;
	int fd, r = 0;

	if (o->kind == OP_TRUNCATE)
		return truncate(o->path, o->off) < 0 ? errno : 0;
	fd = open(o->path, open_flags(o->kind) | O_CLOEXEC);
	if (fd < 0)
		return errno;
	switch (o->kind) {
	case OP_OPEN:
	case OP_OPEN_TRUNC:
	case OP_TRUNCATE: break;
	case OP_FTRUNCATE:
		if (ftruncate(fd, o->off) < 0)
			r = errno;
		break;
	case OP_FALLOCATE:
		if (fallocate(fd, o->mode, o->off, (off_t)o->len) < 0)
			r = errno;
		break;
	case OP_SPLICE_IN: r = splice_in(o, fd); break;
	case OP_URING_READ:
	case OP_URING_WRITE: {
		int n;

		if (o->len > sizeof(buf)) {
			r = EINVAL;
			break;
		}
		memset(buf, 'U', o->len);
		n = uring_rw(fd, o->kind == OP_URING_READ ? IORING_OP_READ : IORING_OP_WRITE, buf,
			     o->len, o->off);
		r = n < 0 ? -n : (size_t)n == o->len ? 0 : EIO;
		break;
	}
	case OP_READ:
		if (pread(fd, buf, o->len, o->off) < 0)
			r = errno;
		break;
	case OP_WRITE:
		memset(buf, 'W', o->len);
		if (pwrite(fd, buf, o->len, o->off) != (ssize_t)o->len)
			r = errno ? errno : EIO;
		break;
	case OP_COPY:
	case OP_SENDFILE:
	case OP_SPLICE: r = copy_out(o, fd); break;
	case OP_MMAP: {
		volatile const char *m = mmap(NULL, o->len, PROT_READ, MAP_SHARED, fd, o->off);

		if (m == MAP_FAILED) {
			r = errno;
			break;
		}
		for (size_t i = 0; i < o->len; i += 4096)
			(void)m[i];
		munmap((void *)m, o->len);
		break;
	}
	}
	close(fd);
	return r;
}

#define SPAWN_OP(ctx, kind, path, off, len)                                                        \
	spawn_op(ctx, kind, path, off, len, 0, __FILE__, __LINE__)
#define SPAWN_FALLOCATE(ctx, path, mode, off, len)                                                 \
	spawn_op(ctx, OP_FALLOCATE, path, off, len, mode, __FILE__, __LINE__)
static struct fst_child *spawn_op(struct fst_ctx *ctx, enum pe_op_kind kind, const char *path,
				  off_t off, size_t len, int mode, const char *file, int line) {
	static const char *const names[] = {
		"open",       "pread",     "pwrite",        "mmap",           "copy_file_range",
		"sendfile",   "splice",    "splice in",     "truncate",       "ftruncate",
		"open trunc", "fallocate", "io_uring read", "io_uring write",
	};
	struct pe_op o = { .kind = kind, .off = off, .len = len, .mode = mode };

	snprintf(o.path, sizeof(o.path), "%s", path);
	return fst_spawn_(
	    ctx,
	    kind == OP_OPEN ? fst_strdupf(ctx, "open(%s)", path)
	    : kind == OP_FALLOCATE
		? fst_strdupf(ctx, "fallocate(%s, mode %#x, %zu at %lld)", path, (unsigned)mode,
			      len, (long long)off)
		: fst_strdupf(ctx, "%s(%s, %zu at %lld)", names[kind], path, len, (long long)off),
	    child_op, &o, -1, file, line);
}

/* ------------------------------------------------------------------------ */
/* PE01: OPEN_PERM, ACCESS_PERM, OPEN_EXEC_PERM on every mark type          */
/* ------------------------------------------------------------------------ */

enum pe_mark { PM_INODE, PM_MOUNT, PM_SB, PM_PARENT };

/*
 * Files: d/f (data) and d/t (/bin/true). For each of the three permission
 * events a fresh CONTENT group with one mark of the given type: the
 * operation blocks on exactly one event, ALLOW lets it through, DENY makes
 * it fail with EPERM; the same operation on a file the mark does not cover
 * (ctl/f, ctl/t) neither blocks nor queues anything.
 */
static void perm_each_event_class(struct fst_ctx *ctx, enum pe_mark type, unsigned klass) {
	static const uint64_t masks[] = { FAN_OPEN_PERM, FAN_ACCESS_PERM, FAN_OPEN_EXEC_PERM };
	const char *ctl;
	unsigned mflags = FAN_MARK_ADD;
	uint64_t extra = 0;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	FST_SYS(ctx, mkdir("d", 0755));
	write_big(ctx, "d/f", 100);
	fst_copy_true(ctx, "d/t", 0755);

	switch (type) {
	case PM_INODE: /* a sibling */
		FST_SYS(ctx, mkdir("d/s", 0755));
		ctl = "d/s";
		break;
	case PM_PARENT: /* a grandchild */
		FST_SYS(ctx, mkdir("d/sub", 0755));
		ctl = "d/sub";
		extra = FAN_EVENT_ON_CHILD;
		break;
	case PM_MOUNT: /* the same inodes through another mount */
		fst_require(ctx, FSN_FEAT_MARK_MOUNT);
		mflags |= FAN_MARK_MOUNT;
		ctl = fst_bind(ctx, "d", "bind");
		break;
	case PM_SB: /* another filesystem */
		fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
		mflags |= FAN_MARK_FILESYSTEM;
		ctl = fst_mount_tmpfs(ctx, "aux");
		break;
	}
	if (type == PM_INODE || type == PM_PARENT || type == PM_SB) {
		write_big(ctx, fst_strdupf(ctx, "%s/f", ctl), 100);
		fst_copy_true(ctx, fst_strdupf(ctx, "%s/t", ctl), 0755);
	}

	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		uint64_t mask = masks[i];
		bool exec = mask == FAN_OPEN_EXEC_PERM;
		const char *obj = exec ? "d/t" : "d/f";
		const char *target = type == PM_INODE ? obj : type == PM_PARENT ? "d" : ".";
		const char *cobj = fst_strdupf(ctx, "%s/%s", ctl, exec ? "t" : "f");
		struct fst_child *c;
		int g = fst_fan_init(ctx, klass);

		fst_log(ctx, "-- %s", fst_mask_str(FSN_MASK_FANOTIFY_EVENT, mask));
		fst_mark(ctx, g, mflags, mask | extra, target);

		for (int deny = 0; deny <= 1; deny++) {
			c = exec                    ? fst_spawn_exec(ctx, obj)
			    : mask == FAN_OPEN_PERM ? SPAWN_OP(ctx, OP_OPEN, obj, 0, 0)
						    : SPAWN_OP(ctx, OP_READ, obj, 0, 10);
			fst_answer(ctx, g, c, mask, obj, deny ? FAN_DENY : FAN_ALLOW);
			if (deny)
				fst_child_expect(ctx, c, EPERM);
			else if (exec)
				fst_child_expect(ctx, c, 0);
			else
				fst_child_expect(ctx, c, 0);
			FST_EXPECT_NONE(ctx, g);
		}

		/* control: an object outside the mark */
		c = exec                    ? fst_spawn_exec(ctx, cobj)
		    : mask == FAN_OPEN_PERM ? SPAWN_OP(ctx, OP_OPEN, cobj, 0, 0)
					    : SPAWN_OP(ctx, OP_READ, cobj, 0, 10);
		if (exec)
			fst_child_expect(ctx, c, 0);
		else
			fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, g);
		fst_close(ctx, g);
	}
}

static void perm_each_event(struct fst_ctx *ctx, enum pe_mark type) {
	perm_each_event_class(ctx, type, FAN_CLASS_CONTENT);
}

/* The same with a FAN_CLASS_PRE_CONTENT group as the only permission
 * watcher: its class asks the classic permission events like a CONTENT
 * group (a kernel that counts only CONTENT groups as permission watchers
 * lets the operations through unasked). */
static void perm_each_event_pre_content(struct fst_ctx *ctx, enum pe_mark type) {
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	perm_each_event_class(ctx, type, FAN_CLASS_PRE_CONTENT);
}

static void pe01_pre_content_class_inode(struct fst_ctx *ctx) {
	perm_each_event_pre_content(ctx, PM_INODE);
}

static void pe01_pre_content_class_mount(struct fst_ctx *ctx) {
	perm_each_event_pre_content(ctx, PM_MOUNT);
}

static void pe01_pre_content_class_sb(struct fst_ctx *ctx) {
	perm_each_event_pre_content(ctx, PM_SB);
}

static void pe01_inode_mark(struct fst_ctx *ctx) {
	perm_each_event(ctx, PM_INODE);
}

static void pe01_mount_mark(struct fst_ctx *ctx) {
	perm_each_event(ctx, PM_MOUNT);
}

static void pe01_sb_mark(struct fst_ctx *ctx) {
	perm_each_event(ctx, PM_SB);
}

static void pe01_parent_mark(struct fst_ctx *ctx) {
	perm_each_event(ctx, PM_PARENT);
}

/*
 * A parent mark without FAN_EVENT_ON_CHILD covers the directory, not its
 * children: open, read and execve of files in it neither block nor queue
 * anything (LTP fanotify03, "parent not watching children"). The control:
 * the same mark with FAN_EVENT_ON_CHILD added asks for each of them.
 */
static void pe01_parent_without_on_child(struct fst_ctx *ctx) {
	const uint64_t mask = FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM;
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	FST_SYS(ctx, mkdir("d", 0755));
	write_big(ctx, "d/f", 100);
	fst_copy_true(ctx, "d/t", 0755);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, mask, "d");

	/* the exec completes (the program ran and exited 0), nothing asked */
	c = fst_spawn_exec(ctx, "d/t");
	fst_child_not_blocked(ctx, c, g);
	c = SPAWN_OP(ctx, OP_READ, "d/f", 0, 10);
	fst_child_not_blocked(ctx, c, g);

	/* control: with FAN_EVENT_ON_CHILD the same operations are asked */
	fst_mark(ctx, g, FAN_MARK_ADD, mask | FAN_EVENT_ON_CHILD, "d");
	c = fst_spawn_exec(ctx, "d/t");
	fst_answer(ctx, g, c, FAN_OPEN_EXEC_PERM, "d/t", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
	c = SPAWN_OP(ctx, OP_READ, "d/f", 0, 10);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "d/f", FAN_ALLOW);
	fst_answer(ctx, g, c, FAN_ACCESS_PERM, "d/f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
}

/* Child c's read: true when it waits for an answer in g (the event
 * comes), false when it finishes unasked; a failure if neither happens
 * within FST_WAIT_MS. */
static bool read_asks(struct fst_ctx *ctx, int g, struct fst_child *c) {
	struct pollfd p[2] = { { .fd = g, .events = POLLIN }, { .fd = c->rfd, .events = POLLIN } };

	if (poll(p, 2, FST_WAIT_MS) <= 0)
		fst_fail(ctx, "%s: neither asked nor done within %d ms", c->what, FST_WAIT_MS);
	return (p[0].revents & POLLIN) != 0;
}

/*
 * A file opened before a group marks it for FAN_ACCESS_PERM, with a
 * permission watcher elsewhere on the filesystem at open time (z:
 * FAN_OPEN_PERM on another file) and without any. Kernels differ, and a
 * distribution's backport moves a kernel from one to the other, so the
 * case tells which this one is from the first read (with z, and without),
 * then holds the other mark types' reads to it:
 * - asked (mainline up to 6.13): each mark type (an inode mark, a parent
 *   mark with FAN_EVENT_ON_CHILD, a mount mark, a filesystem mark) asks;
 *   its mark removed, the read is not asked; added again, it is, and a
 *   deny fails it with EPERM;
 * - decided at open (6.14, file_set_fsnotify_mode_from_watchers(); seen
 *   in Debian's 6.12 too): no mark type asks, with or without z, while
 *   the same read through a file opened after the mark is asked (the
 *   control).
 * A kernel that asks for some mark types and not others, or loses the
 * marks of files opened later, fails here.
 */
static void pe01_marked_after_open(struct fst_ctx *ctx) {
	static const struct {
		unsigned type;
		uint64_t extra;
		const char *target, *name;
	} marks[] = {
		{ 0, 0, "d/f", "inode" },
		{ 0, FAN_EVENT_ON_CHILD, "d", "parent" },
		{ FAN_MARK_MOUNT, 0, ".", "mount" },
		{ FAN_MARK_FILESYSTEM, 0, ".", "filesystem" },
	};
	struct fst_child *c;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	write_big(ctx, "d/f", 10);
	write_big(ctx, "other", 10);
	for (int with_z = 0; with_z < 2; with_z++) {
		int z = with_z ? fst_fan_init(ctx, FAN_CLASS_CONTENT) : -1, fd;
		int mode = -1; /* 1: asked, 0: decided at open; -1: not known yet */

		if (with_z)
			fst_mark(ctx, z, FAN_MARK_ADD, FAN_OPEN_PERM, "other");
		fd = fst_open(ctx, "d/f", O_RDONLY);
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			unsigned type = marks[i].type;
			uint64_t mask = FAN_ACCESS_PERM | marks[i].extra;
			int g = fst_fan_init(ctx, FAN_CLASS_CONTENT);

			fst_log(ctx, "-- %s mark, %s", marks[i].name,
				with_z ? "a watcher elsewhere at open" : "no watcher at open");
			fst_mark(ctx, g, FAN_MARK_ADD | type, mask, marks[i].target);
			c = fst_spawn_read_fd(ctx, fd);
			if (mode < 0) {
				mode = read_asks(ctx, g, c);
				fst_log(ctx, "this kernel, %s: %s",
					with_z ? "a watcher at open" : "none at open",
					mode ? "an open file is asked" : "decided at open");
			} else if (read_asks(ctx, g, c) != mode)
				fst_fail(ctx,
					 "%s mark, %s: the read through the open file %s, "
					 "unlike with the first mark",
					 marks[i].name,
					 with_z ? "a watcher at open" : "none at open",
					 mode ? "was not asked" : "was asked");
			if (!mode) {
				fst_child_expect(ctx, c, 0);
				FST_EXPECT_NONE(ctx, g);
				c = SPAWN_OP(ctx, OP_READ, "d/f", 0, 1); /* (opened now) */
				fst_answer(ctx, g, c, FAN_ACCESS_PERM, "d/f", FAN_DENY);
				fst_child_expect(ctx, c, EPERM);
				FST_EXPECT_NONE(ctx, g);
				fst_close(ctx, g);
				continue;
			}
			fst_answer(ctx, g, c, FAN_ACCESS_PERM, "d/f", FAN_ALLOW);
			fst_child_expect(ctx, c, 0);
			FST_EXPECT_NONE(ctx, g);
			fst_mark(ctx, g, FAN_MARK_REMOVE | type, mask, marks[i].target);
			c = fst_spawn_read_fd(ctx, fd);
			fst_child_not_blocked(ctx, c, g);
			fst_mark(ctx, g, FAN_MARK_ADD | type, mask, marks[i].target);
			c = fst_spawn_read_fd(ctx, fd);
			fst_answer(ctx, g, c, FAN_ACCESS_PERM, "d/f", FAN_DENY);
			fst_child_expect(ctx, c, EPERM);
			FST_EXPECT_NONE(ctx, g);
			fst_close(ctx, g);
		}
		fst_close(ctx, fd);
		if (with_z) {
			FST_EXPECT_NONE(ctx, z);
			fst_close(ctx, z);
		}
	}
}

/*
 * Reads that are not read(): copy_file_range() and sendfile() from the file
 * into another, splice() into a pipe ask FAN_ACCESS_PERM of the source,
 * once each, before any byte moves; ALLOW lets them copy, DENY fails them
 * with EPERM (the sink stays empty). Before 6.8 (2a33e2ddc6eb, "splice:
 * remove permission hook from do_splice_direct()") sendfile() and a
 * copy_file_range() the filesystem does not clone (FIEMAP shows no shared
 * extent) ask a second time, from do_splice_direct(), once the first is
 * allowed: exactly twice there, exactly once from 6.8 on.
 */
static void pe01_copy_paths_access_perm(struct fst_ctx *ctx) {
	static const enum pe_op_kind ops[] = { OP_COPY, OP_SENDFILE, OP_SPLICE };
	bool once = fst_kernel_at_least(6, 8), again;
	struct fst_child *c;
	struct stat st;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	write_big(ctx, "s", 8192);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS_PERM, "s");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		fst_write_file(ctx, "sink", "");
		c = SPAWN_OP(ctx, ops[i], "s", 0, 4096);
		fst_answer(ctx, g, c, FAN_ACCESS_PERM, "s", FAN_DENY);
		fst_child_expect(ctx, c, EPERM);
		FST_EXPECT_NONE(ctx, g);
		FST_SYS(ctx, stat("sink", &st));
		ck_assert_int_eq(st.st_size, 0);
		c = SPAWN_OP(ctx, ops[i], "s", 0, 4096);
		fst_answer(ctx, g, c, FAN_ACCESS_PERM, "s", FAN_ALLOW);
		again = ops[i] != OP_SPLICE && read_asks(ctx, g, c);
		if (again)
			fst_answer(ctx, g, c, FAN_ACCESS_PERM, "s", FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, g);
		FST_SYS(ctx, stat("sink", &st));
		ck_assert_int_eq(st.st_size, ops[i] == OP_SPLICE ? 0 : 4096);
		if (ops[i] != OP_SPLICE) {
			int fd = fst_open(ctx, "sink", O_RDONLY);
			bool twice = !once && !fst_extent_shared(ctx, fd);

			fst_close(ctx, fd);
			if (again != twice)
				fst_fail(
				    ctx, "%s asked FAN_ACCESS_PERM %s, expected %s on this kernel",
				    c->what, again ? "twice" : "once", twice ? "twice" : "once");
		}
	}
}

/* A child's readdir of arg: open the directory, one getdents64(); 0 or
 * errno. */
static int child_readdir(void *arg) {
	char buf[4096];
	int fd = open((const char *)arg, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_getdents64, fd, buf, sizeof(buf)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* child c ended with EPERM (deny) or 0; nothing more on the permission
 * group p; on the notification group n nothing (deny) or exactly mask on
 * f by c. */
#define EXPECT_DONE(ctx, c, p, n, deny, mask)                                                      \
	expect_done(ctx, c, p, n, deny, mask, __FILE__, __LINE__)
static void expect_done(struct fst_ctx *ctx, struct fst_child *c, int p, int n, bool deny,
			uint64_t mask, const char *file, int line) {
	const struct fst_exp x = { .mask = mask, .path = "f", .pid = c->pid };

	fst_child_expect_(ctx, c, deny ? EPERM : 0, file, line);
	fst_expect_(ctx, p, NULL, 0, "permission group", file, line);
	fst_expect_(ctx, n, &x, deny ? 0 : 1, "notification group", file, line);
}

/*
 * io_uring's reads ask FAN_ACCESS_PERM as read(2) does (io_read() calls
 * rw_verify_area()), once with IOSQE_ASYNC, for the submitting process; a
 * deny completes the request with -EPERM and no FAN_ACCESS. Its writes ask
 * nothing of a CONTENT group and give FAN_MODIFY. (The pre-content half:
 * pe05_io_uring_range.)
 */
static void pe01_io_uring_access_perm(struct fst_ctx *ctx) {
	struct fst_child *c;
	int g, n;

	require_io_uring(ctx);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	write_big(ctx, "f", 8192);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS_PERM, "f");
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, "f");

	for (int deny = 1; deny >= 0; deny--) {
		c = SPAWN_OP(ctx, OP_URING_READ, "f", 100, 5000);
		fst_answer(ctx, g, c, FAN_ACCESS_PERM, "f", deny ? FAN_DENY : FAN_ALLOW);
		EXPECT_DONE(ctx, c, g, n, deny, FAN_ACCESS);
	}
	c = SPAWN_OP(ctx, OP_URING_WRITE, "f", 8000, 500);
	EXPECT_DONE(ctx, c, g, n, false, FAN_MODIFY);
	EXPECT_SIZE(ctx, "f", 8500);
}

/*
 * A readdir asks FAN_ACCESS_PERM of the directory (with FAN_ONDIR), by an
 * inode mark on it and by a filesystem mark: the getdents64() waits for the
 * answer, ALLOW lets it list, DENY fails it with EPERM. Without FAN_ONDIR
 * in the mask the directory's readdir is neither asked nor blocked.
 */
static void pe01_readdir_access_perm(struct fst_ctx *ctx) {
	static char dir[] = "d";
	struct fst_child *c;

	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	for (int sb = 0; sb < 2; sb++) {
		unsigned type = sb ? FAN_MARK_FILESYSTEM : 0;
		const char *target = sb ? "." : "d";
		int g = fst_fan_init(ctx, FAN_CLASS_CONTENT);

		fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_ACCESS_PERM, target);
		c = fst_spawn(ctx, "readdir(d)", child_readdir, dir, -1);
		fst_child_not_blocked(ctx, c, g);
		fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_ONDIR, target);
		c = fst_spawn(ctx, "readdir(d)", child_readdir, dir, -1);
		fst_answer(ctx, g, c, FAN_ACCESS_PERM, "d", FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, g);
		c = fst_spawn(ctx, "readdir(d)", child_readdir, dir, -1);
		fst_answer(ctx, g, c, FAN_ACCESS_PERM, "d", FAN_DENY);
		fst_child_expect(ctx, c, EPERM);
		FST_EXPECT_NONE(ctx, g);
		close(g);
	}
}

/*
 * An execve asks a group that has FAN_OPEN_PERM but not FAN_OPEN_EXEC_PERM
 * for FAN_OPEN_PERM alone, and a deny there fails the execve with EPERM
 * before the program is read: with FAN_ACCESS_PERM in the mask too, no
 * ACCESS_PERM follows (LTP fanotify03, "inode mark, FAN_OPEN_PERM |
 * FAN_ACCESS_PERM events").
 */
static void pe01_exec_open_perm(struct fst_ctx *ctx) {
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_copy_true(ctx, "t", 0755);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "t");

	c = fst_spawn_exec(ctx, "t");
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "t", FAN_ALLOW);
	fst_child_expect(ctx, c, 0); /* the program ran */
	FST_EXPECT_NONE(ctx, g);

	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS_PERM, "t");
	c = fst_spawn_exec(ctx, "t");
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "t", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* PE02: no merging, one bit and one response per event                     */
/* ------------------------------------------------------------------------ */

static void pe02_one_bit_per_event(struct fst_ctx *ctx) {
	struct fst_child *c;
	int g, n;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	write_big(ctx, "f", 100);
	fst_copy_true(ctx, "t", 0755);

	/* open + read: OPEN_PERM, then ACCESS_PERM, each answered alone */
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ACCESS_PERM, "f");
	c = SPAWN_OP(ctx, OP_READ, "f", 0, 10);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
	fst_answer(ctx, g, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, g);

	/* execve: OPEN_EXEC_PERM, then OPEN_PERM; the notification group gets
	 * the two bits in one event, once both were allowed */
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM | FAN_OPEN_PERM, "t");
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_OPEN | FAN_OPEN_EXEC, "t");
	c = fst_spawn_exec(ctx, "t");
	fst_answer(ctx, g, c, FAN_OPEN_EXEC_PERM, "t", FAN_ALLOW);
	FST_EXPECT_NONE(ctx, n);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "t", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, n, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "t", .pid = c->pid });
	FST_EXPECT_NONE(ctx, g);

	/* the second event denied: execve fails, nothing was opened */
	c = fst_spawn_exec(ctx, "t");
	fst_answer(ctx, g, c, FAN_OPEN_EXEC_PERM, "t", FAN_ALLOW);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "t", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_NONE(ctx, n);
}

struct thr_arg {
	const char *path;
	int result;
};

static void *thr_open(void *p) {
	struct thr_arg *a = p;
	int fd = open(a->path, O_RDONLY | O_CLOEXEC);

	a->result = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Two threads open path at once. Result: bits 0-7 allowed opens, 8-15
 * EPERM, 16-23 anything else. */
static int child_two_threads(void *arg) {
	struct thr_arg a[2] = { { arg, -1 }, { arg, -1 } };
	pthread_t t[2];
	int ok = 0, eperm = 0, other = 0;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thr_open, &a[i]) != 0)
			return 1 << 16;
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (a[i].result == 0)
			ok++;
		else if (a[i].result == EPERM)
			eperm++;
		else
			other++;
	}
	return ok | eperm << 8 | other << 16;
}

/* Two threads of one process (same pid, same file, same mask): with the
 * first event still unread when the second is queued, notification events
 * merge (the control group n gets one FAN_OPEN for two opens); permission
 * events must not. */
static void pe02_threads_not_merged(struct fst_ctx *ctx) {
	struct fst_events *e;
	struct fst_child *c;
	int g, n, r;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_OPEN, "f");

	for (int deny = 1; deny >= 0; deny--) {
		c = fst_spawn(ctx, "two threads open(f)", child_two_threads, (void *)"f", -1);
		/* both events queued, none read */
		fst_child_blocked_queued(ctx, c, 2, g, 2 * EV_LEN);
		e = FST_EXPECT(ctx, g, { .mask = FAN_OPEN_PERM, .path = "f", .pid = c->pid },
			       { .mask = FAN_OPEN_PERM, .path = "f", .pid = c->pid });
		ck_assert_int_ne(e->e[0].ev.fd, e->e[1].ev.fd);

		/* each event has its own response: one thread is answered ... */
		fst_respond(ctx, g, &e->e[0], deny ? FAN_DENY : FAN_ALLOW);
		fst_child_blocked_n(ctx, c, 1); /* ... the other still waits */
		FST_EXPECT_NONE(ctx, g);
		fst_respond(ctx, g, &e->e[1], FAN_ALLOW);
		r = fst_child_wait(ctx, c, FST_WAIT_MS);
		if (r != (deny ? 1 | 1 << 8 : 2))
			fst_fail(ctx, "threads: %d allowed, %d EPERM, %d other; expected %s",
				 r & 0xff, (r >> 8) & 0xff, (r >> 16) & 0xff,
				 deny ? "1 allowed and 1 EPERM" : "2 allowed");
		FST_EXPECT_NONE(ctx, g);
		/* one FAN_OPEN: one open allowed, or two merged */
		FST_EXPECT(ctx, n, { .mask = FAN_OPEN, .path = "f", .pid = c->pid });
	}
}

static void pe02_two_processes_out_of_order(struct fst_ctx *ctx) {
	struct fst_event *e1, *e2;
	struct fst_child *c1, *c2;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	c1 = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	e1 = fst_perm_event(ctx, g, c1, FAN_OPEN_PERM, "f");
	c2 = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	e2 = fst_perm_event(ctx, g, c2, FAN_OPEN_PERM, "f");
	fst_child_blocked_n(ctx, c1, 1);

	/* the later event answered first: only its process moves */
	fst_respond(ctx, g, e2, FAN_DENY);
	fst_child_expect(ctx, c2, EPERM);
	fst_child_blocked_n(ctx, c1, 1);
	FST_EXPECT_NONE(ctx, g);
	fst_respond(ctx, g, e1, FAN_ALLOW);
	fst_child_expect(ctx, c1, 0);
	FST_EXPECT_NONE(ctx, g);
}

/* Write a raw response; 0 or -errno. */
static int respond_raw(int g, int fd, uint32_t response) {
	struct fanotify_response r = { .fd = fd, .response = response };

	if (write(g, &r, sizeof(r)) != sizeof(r))
		return -errno;
	return 0;
}

static void pe02_one_response_per_event(struct fst_ctx *ctx) {
	struct fst_event *e, *eb;
	struct fst_child *c, *cb;
	int g, gb, fd;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);
	write_big(ctx, "b", 100);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	gb = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, gb, FAN_MARK_ADD, FAN_OPEN_PERM, "b");

	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	e = fst_perm_event(ctx, g, c, FAN_OPEN_PERM, "f");
	cb = SPAWN_OP(ctx, OP_OPEN, "b", 0, 0);
	eb = fst_perm_event(ctx, gb, cb, FAN_OPEN_PERM, "b");
	fd = e->ev.fd;

	/* not a verdict: rejected, the event stays pending */
	ck_assert_int_eq(respond_raw(g, fd, 0), -EINVAL);
	ck_assert_int_eq(respond_raw(g, fd, FAN_ALLOW | FAN_DENY), -EINVAL);
	/* no such pending event in this group: the fd of another group's
	 * event, a fd that is no event at all */
	ck_assert_int_eq(respond_raw(g, eb->ev.fd, FAN_DENY), -ENOENT);
	ck_assert_int_eq(respond_raw(g, ctx->workfd, FAN_DENY), -ENOENT);
	fst_child_blocked_n(ctx, c, 1);
	fst_child_blocked_n(ctx, cb, 1);

	/* the first valid answer decides; a second one finds nothing */
	ck_assert_int_eq(respond_raw(g, fd, FAN_ALLOW), 0);
	ck_assert_int_eq(respond_raw(g, fd, FAN_DENY), -ENOENT);
	fst_child_expect(ctx, c, 0);
	FST_SYS(ctx, close(fd));
	e->ev.fd = -1;
	FST_EXPECT_NONE(ctx, g);

	/* the other group's event was untouched by all of this */
	fst_child_blocked_n(ctx, cb, 1);
	fst_respond(ctx, gb, eb, FAN_DENY);
	fst_child_expect(ctx, cb, EPERM);
	FST_EXPECT_NONE(ctx, gb);
}

/* ------------------------------------------------------------------------ */
/* PE03: closing a group releases its blocked processes                     */
/* ------------------------------------------------------------------------ */

static void pe03_close_releases_all(struct fst_ctx *ctx) {
	struct fst_child *c[3];
	struct fst_event *e0;
	pid_t pids[3];
	int g, n, fd0;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_OPEN, "f");
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	/* one event read and unanswered, two never read */
	c[0] = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	e0 = fst_perm_event(ctx, g, c[0], FAN_OPEN_PERM, "f");
	fd0 = e0->ev.fd;
	c[1] = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	c[2] = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	for (int i = 0; i < 3; i++) {
		fst_child_blocked_n(ctx, c[i], 1);
		pids[i] = c[i]->pid;
	}
	ck_assert_int_eq(fst_queued_bytes(ctx, g), 2 * EV_LEN);
	FST_EXPECT_NONE(ctx, n);

	fst_close(ctx, g);
	for (int i = 0; i < 3; i++)
		fst_child_expect(ctx, c[i], 0);
	EXPECT_BY_PID(ctx, n, FAN_OPEN, "f", pids, 3);
	FST_SYS(ctx, close(fd0));

	/* nothing blocks any more */
	c[0] = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_child_expect(ctx, c[0], 0);
	FST_EXPECT(ctx, n, { .mask = FAN_OPEN, .path = "f", .pid = c[0]->pid });
}

static void pe03_close_passes_to_next_group(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p, cg;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	write_big(ctx, "f", 100);
	cg = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, cg, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	/* closing the first group is its "allow": the next group is still
	 * asked, and its deny is final */
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_perm_event(ctx, p, c, FAN_OPEN_PERM, "f");
	FST_EXPECT_NONE(ctx, cg);
	fst_close(ctx, p);
	fst_answer(ctx, cg, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, cg);
}

/* Child c's open(path) waits in both groups a and b (same priority: the
 * kernel asks them in an order of its own): each is answered FAN_ALLOW as
 * it asks, and the open succeeds. */
static void allow_in_both(struct fst_ctx *ctx, int a, int b, struct fst_child *c,
			  const char *path) {
	struct pollfd p[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
	int r = poll(p, 2, FST_WAIT_MS);

	if (r <= 0)
		fst_fail(ctx, "open(%s): neither permission group was asked (poll: %d)", path, r);
	fst_answer(ctx, (p[0].revents & POLLIN) ? a : b, c, FAN_OPEN_PERM, path, FAN_ALLOW);
	fst_answer(ctx, (p[0].revents & POLLIN) ? b : a, c, FAN_OPEN_PERM, path, FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, a);
	FST_EXPECT_NONE(ctx, b);
}

/*
 * Two FAN_CLASS_CONTENT groups with FAN_OPEN_PERM on one object (an inode,
 * the mount, the filesystem) and a notification group beside them: an open
 * asks both. One group closed, the other is still asked; its mark removed,
 * nobody is asked and the open goes through. The notification group sees
 * every open. A count of permission watchers that drops both marks with
 * the first, or keeps one after the last, breaks this.
 */
static void two_groups_one_removed(struct fst_ctx *ctx, unsigned type, const char *target) {
	struct fst_child *c;
	int a, b, n;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require_mark_type(ctx, type);
	write_big(ctx, "f", 10);
	a = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	b = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, a, FAN_MARK_ADD | type, FAN_OPEN_PERM, target);
	fst_mark(ctx, b, FAN_MARK_ADD | type, FAN_OPEN_PERM, target);
	fst_mark(ctx, n, FAN_MARK_ADD | type, FAN_OPEN, target);

	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	allow_in_both(ctx, a, b, c, "f");
	FST_EXPECT(ctx, n, { .mask = FAN_OPEN, .path = "f", .pid = c->pid });

	fst_close(ctx, a);
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer(ctx, b, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, b);
	FST_EXPECT_NONE(ctx, n); /* (a denied open is no open) */

	fst_mark(ctx, b, FAN_MARK_REMOVE | type, FAN_OPEN_PERM, target);
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_child_not_blocked(ctx, c, b);
	FST_EXPECT(ctx, n, { .mask = FAN_OPEN, .path = "f", .pid = c->pid });
}

static void pe03_two_groups_inode(struct fst_ctx *ctx) {
	two_groups_one_removed(ctx, 0, "f");
}

static void pe03_two_groups_mount(struct fst_ctx *ctx) {
	two_groups_one_removed(ctx, FAN_MARK_MOUNT, ".");
}

static void pe03_two_groups_sb(struct fst_ctx *ctx) {
	two_groups_one_removed(ctx, FAN_MARK_FILESYSTEM, ".");
}

struct churn_arg {
	char file[PATH_MAX];
	char dir[PATH_MAX];
	int stop_fd;
	volatile int *iterations; /* shared with the case */
};

/* Create, mark and destroy permission groups until stop_fd hangs up (or a
 * bounded number of rounds). Their marks make openers block on them too;
 * closing releases them. Returns 0 or the errno of a failed call. */
static int child_churn(void *p) {
	const struct churn_arg *a = p;

	for (int i = 0; i < 200000; i++) {
		struct pollfd pf = { .fd = a->stop_fd, .events = POLLIN };
		static const unsigned types[] = { 0, FAN_MARK_MOUNT, FAN_MARK_FILESYSTEM };
		unsigned t = types[i % 3];
		int g;

		if (poll(&pf, 1, 0) != 0)
			return 0;
		g = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);
		if (g < 0)
			return errno;
		if (fanotify_mark(g, FAN_MARK_ADD | t, FAN_OPEN_PERM | FAN_ACCESS_PERM, AT_FDCWD,
				  t ? a->dir : a->file) < 0) {
			int e = errno;

			close(g);
			return e;
		}
		close(g);
		(*a->iterations)++;
	}
	return 0;
}

#define CHURN_ROUNDS 8 /* 3 children a round (reaped each round) */

/*
 * Is the churner's close() waiting for our waiters? A task waiting for a
 * permission response pins the marks at its position in every mark list
 * of the object (fsnotify_prepare_user_wait()), also other groups' marks,
 * and their groups' fsnotify_destroy_group() waits for those pins
 * (user_waits). So a churn group whose mark sat next to ours cannot finish
 * closing until our group answers or goes; waiting for the churner then
 * would deadlock. Seen as state D in fsnotify_destroy_group (symbolic
 * wchan), or without symbolic wchan as state D for stuck_ms in a row.
 */
static bool churn_waits_for_us(pid_t pid, int *d_ms) {
	char w[64];

	if (fst_task_state(pid, 0, w, sizeof(w)) != 'D') {
		*d_ms = 0;
		return false;
	}
	/* a prefix: LTO builds name it fsnotify_destroy_group.llvm.NNN */
	if (strncmp(w, "fsnotify_destroy_group", 22) == 0)
		return true;
	return fst_wchan_numeric(w) && ++*d_ms >= 1000;
}

static void pe03_close_during_group_churn(struct fst_ctx *ctx) {
	struct churn_arg a;
	struct fst_child *churn;
	int stop[2], pinned = 0;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	write_big(ctx, "f", 100);
	snprintf(a.file, sizeof(a.file), "%s/f", ctx->work);
	snprintf(a.dir, sizeof(a.dir), "%s", ctx->work);
	a.iterations = fst_shared(ctx, sizeof(int));
	FST_SYS(ctx, pipe2(stop, O_CLOEXEC));
	a.stop_fd = stop[0];
	churn = fst_spawn(ctx, "group churn", child_churn, &a, stop[0]);
	FST_SYS(ctx, close(stop[0]));

	for (int round = 0; round < CHURN_ROUNDS; round++) {
		struct fst_child *c[3];
		pid_t pids[3];
		int g, it0;

		g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
		fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
		for (int i = 0; i < 3; i++) {
			c[i] = SPAWN_OP(ctx, OP_READ, "f", 0, 10);
			pids[i] = c[i]->pid;
		}
		/* all three end up waiting in g (after any churn group they
		 * met on the way, which releases them when it goes) */
		for (int ms = 0; fst_queued_bytes(ctx, g) < 3 * EV_LEN; ms++) {
			if (ms >= FST_WAIT_MS)
				fst_fail(ctx, "round %d: %d bytes queued after %d ms, expected %d",
					 round, fst_queued_bytes(ctx, g), FST_WAIT_MS, 3 * EV_LEN);
			poll(NULL, 0, 1);
		}
		for (int i = 0; i < 3; i++)
			fst_child_blocked_n(ctx, c[i], 1);
		/* odd rounds: the events were read (access list), even: not */
		if (round % 2)
			EXPECT_BY_PID(ctx, g, FAN_OPEN_PERM, "f", pids, 3);
		else
			ck_assert_int_eq(fst_queued_bytes(ctx, g), 3 * EV_LEN);
		/* other groups are created and destroyed while ours holds
		 * three waiters: at least two whole cycles (bounded), unless
		 * the churner's close waits for our waiters (see above): then
		 * closing ours must release it too */
		it0 = *a.iterations;
		for (int ms = 0, d_ms = 0; *a.iterations < it0 + 2; ms++) {
			if (churn_waits_for_us(churn->pid, &d_ms)) {
				pinned++;
				break;
			}
			if (ms >= FST_WAIT_MS)
				fst_fail(ctx, "round %d: the churner made %d group(s) in %d ms",
					 round, *a.iterations - it0, FST_WAIT_MS);
			poll(NULL, 0, 1);
		}
		fst_close(ctx, g);
		for (int i = 0; i < 3; i++)
			fst_child_expect(ctx, c[i], 0);
	}
	fst_log(ctx,
		"%d rounds, %d churn groups; in %d round(s) a churn group's close waited for "
		"our waiters",
		CHURN_ROUNDS, *a.iterations, pinned);
	FST_SYS(ctx, close(stop[1]));
	fst_child_expect(ctx, churn, 0);
	munmap((void *)a.iterations, sizeof(int));
}

/* A waiter killed before its event is read takes the event with it; one
 * killed after leaves an event that can still be answered, once. */
static void pe03_killed_waiter(struct fst_ctx *ctx) {
	struct fst_events *e;
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_child_blocked_queued(ctx, c, 1, g, EV_LEN);
	fst_child_kill(ctx, c);
	ck_assert_int_eq(fst_queued_bytes(ctx, g), 0);
	FST_EXPECT_NONE(ctx, g);

	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_wait_readable(ctx, g, FST_WAIT_MS);
	e = FST_EXPECT(ctx, g, { .mask = FAN_OPEN_PERM, .path = "f", .pid = c->pid });
	fst_child_blocked_n(ctx, c, 1);
	fst_child_kill(ctx, c);
	ck_assert_int_eq(respond_raw(g, e->e[0].ev.fd, FAN_ALLOW), 0);
	ck_assert_int_eq(respond_raw(g, e->e[0].ev.fd, FAN_ALLOW), -ENOENT);
	fst_close(ctx, e->e[0].ev.fd);
	FST_EXPECT_NONE(ctx, g);

	/* control: the group still works */
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* PE04: FAN_DENY_ERRNO                                                     */
/* ------------------------------------------------------------------------ */

static const int deny_errnos[] = { EIO, EPERM, EBUSY, ETXTBSY, EAGAIN, ENOSPC, EDQUOT };

static void pe04_deny_errno_returned(struct fst_ctx *ctx) {
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_DENY_ERRNO);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	write_big(ctx, "f", 100);
	fst_copy_true(ctx, "t", 0755);
	g = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	for (size_t i = 0; i < sizeof(deny_errnos) / sizeof(deny_errnos[0]); i++) {
		c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
		fst_answer(ctx, g, c, FAN_OPEN_PERM, "f", FAN_DENY_ERRNO(deny_errnos[i]));
		fst_child_expect(ctx, c, deny_errnos[i]);
		FST_EXPECT_NONE(ctx, g);
	}
	/* FAN_DENY_ERRNO(0) is a plain deny */
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer(ctx, g, c, FAN_OPEN_PERM, "f", FAN_DENY_ERRNO(0));
	fst_child_expect(ctx, c, EPERM);
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_OPEN_PERM, "f");

	/* read: the open goes through, the read gets the errno */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS_PERM, "f");
	c = SPAWN_OP(ctx, OP_READ, "f", 0, 10);
	fst_answer(ctx, g, c, FAN_ACCESS_PERM, "f", FAN_DENY_ERRNO(EIO));
	fst_child_expect(ctx, c, EIO);
	FST_EXPECT_NONE(ctx, g);

	/* execve */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM, "t");
	c = fst_spawn_exec(ctx, "t");
	fst_answer(ctx, g, c, FAN_OPEN_EXEC_PERM, "t", FAN_DENY_ERRNO(ETXTBSY));
	fst_child_expect(ctx, c, ETXTBSY);
	FST_EXPECT_NONE(ctx, g);
}

static void pe04_deny_errno_refused(struct fst_ctx *ctx) {
	static const int bad[] = { EINVAL, ENOENT, EACCES, EROFS, EINTR, ENOMEM, 255 };
	struct fst_event *e;
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_DENY_ERRNO);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);

	/* a CONTENT group: no custom errno at all */
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	e = fst_perm_event(ctx, g, c, FAN_OPEN_PERM, "f");
	for (size_t i = 0; i < sizeof(deny_errnos) / sizeof(deny_errnos[0]); i++)
		ck_assert_int_eq(respond_raw(g, e->ev.fd, FAN_DENY_ERRNO(deny_errnos[i])), -EINVAL);
	fst_child_blocked_n(ctx, c, 1); /* still pending */
	fst_respond(ctx, g, e, FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, g);

	/* a PRE_CONTENT group: only the listed errnos, only with FAN_DENY */
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	g = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	e = fst_perm_event(ctx, g, c, FAN_OPEN_PERM, "f");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (respond_raw(g, e->ev.fd, FAN_DENY_ERRNO(bad[i])) != -EINVAL)
			fst_fail(ctx, "FAN_DENY_ERRNO(%s) was not refused with EINVAL",
				 fst_errname(bad[i]));
	ck_assert_int_eq(respond_raw(g, e->ev.fd, FAN_ALLOW | (FAN_DENY_ERRNO(EIO) & ~FAN_DENY)),
			 -EINVAL);
	fst_child_blocked_n(ctx, c, 1); /* still pending */
	fst_respond(ctx, g, e, FAN_DENY_ERRNO(EDQUOT));
	fst_child_expect(ctx, c, EDQUOT);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* PE05: pre-content events                                                 */
/* ------------------------------------------------------------------------ */

static void pe05_mark_fs_support(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p;

	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	write_big(ctx, "f", 100);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkfifo("fifo", 0644));
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);

	if (strcmp(ctx->fs, "tmpfs") == 0) {
		/* FAN_DENY_ERRNO came with pre-content events (6.14): a kernel
		 * with it knows FAN_PRE_ACCESS, so tmpfs itself must refuse */
		fst_require(ctx, FSN_FEAT_DENY_ERRNO);
		ck_assert_int_eq(fst_mark_err(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, "f"),
				 -EOPNOTSUPP);
		ck_assert_int_eq(
		    fst_mark_err(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS | FAN_EVENT_ON_CHILD, "d"),
		    -EOPNOTSUPP);
		ck_assert_int_eq(
		    fst_mark_err(ctx, p, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_PRE_ACCESS, "."),
		    -EOPNOTSUPP);
		ck_assert_int_eq(
		    fst_mark_err(ctx, p, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_PRE_ACCESS, "."),
		    -EOPNOTSUPP);
		ck_assert_int_eq(
		    fst_mark_err(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_PRE_ACCESS, "f"),
		    -EOPNOTSUPP);
		/* FAN_ONDIR is refused before the filesystem is looked at */
		ck_assert_int_eq(
		    fst_mark_err(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS | FAN_ONDIR, "d"), -EINVAL);
	} else {
		fst_require(ctx, FSN_FEAT_PRE_ACCESS);
		fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, "f");
		fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS | FAN_EVENT_ON_CHILD, "d");
		fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_PRE_ACCESS, ".");
		fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_PRE_ACCESS, ".");
		/* only regular files and directories; no FAN_ONDIR */
		ck_assert_int_eq(fst_mark_err(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, "fifo"),
				 -EINVAL);
		ck_assert_int_eq(
		    fst_mark_err(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS | FAN_ONDIR, "d"), -EINVAL);
		fst_mark(ctx, p, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_PRE_ACCESS, ".");
		fst_mark(ctx, p, FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_PRE_ACCESS, ".");
	}

	/* control: the same group takes and delivers ordinary permission
	 * events on this filesystem */
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer(ctx, p, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
}

/*
 * Only a FAN_CLASS_PRE_CONTENT group may ask for pre-content events: a
 * FAN_CLASS_NOTIF or FAN_CLASS_CONTENT group's FAN_PRE_ACCESS mark is
 * EINVAL on every mark type, also together with bits the class may have,
 * and before the filesystem is looked at (tmpfs: EINVAL, not EOPNOTSUPP).
 * The control: a PRE_CONTENT group gets the same marks (EOPNOTSUPP where
 * the filesystem cannot have them).
 */
static void pe05_pre_access_needs_class(struct fst_ctx *ctx) {
	static const struct {
		unsigned flags;
		uint64_t extra;
		const char *target;
	} marks[] = {
		{ 0, 0, "f" },
		{ 0, FAN_EVENT_ON_CHILD, "d" },
		{ FAN_MARK_MOUNT, 0, "." },
		{ FAN_MARK_FILESYSTEM, 0, "." },
	};
	const struct fsn_feature_result *r =
	    ctx->probe ? &ctx->probe->feat[FSN_FEAT_PRE_ACCESS] : NULL;
	int gn, gc, p, want;

	/* A kernel without pre-content events refuses the unknown bit with
	 * the same EINVAL in every class: it must know FAN_PRE_ACCESS (a
	 * filesystem that cannot have the mark is fine, the class comes
	 * first). */
	if (!r || r->support != FSN_UNSUPPORTED_FS)
		fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	want = r->support == FSN_SUPPORTED ? 0 : -r->error;
	write_big(ctx, "f", 100);
	FST_SYS(ctx, mkdir("d", 0755));
	gn = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	gc = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		unsigned fl = FAN_MARK_ADD | marks[i].flags;
		uint64_t m = FAN_PRE_ACCESS | marks[i].extra;
		const char *t = marks[i].target;

		fst_log(ctx, "-- mark %zu on %s", i, t);
		FST_MARK_ERR(ctx, gn, fl, m, t, EINVAL);
		FST_MARK_ERR(ctx, gn, fl, m | FAN_OPEN, t, EINVAL);
		FST_MARK_ERR(ctx, gc, fl, m, t, EINVAL);
		FST_MARK_ERR(ctx, gc, fl, m | FAN_OPEN_PERM, t, EINVAL);
		ck_assert_int_eq(fst_mark_err(ctx, p, fl, m, t), want);
	}
	/* the refused marks were not added in part: each group has none */
	FST_EXPECT_FDINFO_NONE(ctx, gn);
	FST_EXPECT_FDINFO_NONE(ctx, gc);
}

/* A PRE_CONTENT group with PRE_ACCESS|ACCESS_PERM on f (4 pages + 100). */
static int pre_group(struct fst_ctx *ctx, uint64_t mask) {
	int p;

	fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	write_big(ctx, "f", 4 * page_size() + 100);
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, mask, "f");
	return p;
}

/* child pread(len at pos): PRE_ACCESS (range) answered with r1, then, if
 * allowed, ACCESS_PERM answered with r2. */
#define PREAD_STEP(ctx, p, pos, len, r1, r2, want)                                                 \
	pread_step(ctx, p, pos, len, r1, r2, want, __FILE__, __LINE__)
static void pread_step(struct fst_ctx *ctx, int p, off_t pos, size_t len, uint32_t r1, uint32_t r2,
		       int want, const char *file, int line) {
	struct fst_child *c = spawn_op(ctx, OP_READ, "f", pos, len, 0, file, line);
	struct fst_event *e;

	e = fst_perm_event_(ctx, p, c, FST_PRE_ACCESS(c, "f", (uint64_t)pos, len), NULL, 0, file,
			    line);
	fst_respond_(ctx, p, e, r1, file, line);
	if (r1 == FAN_ALLOW) { /* no RANGE record, no other record */
		e = fst_perm_event_(ctx, p, c, FST_PERM(c, FAN_ACCESS_PERM, "f"), NULL, 0, file,
				    line);
		fst_respond_(ctx, p, e, r2, file, line);
	}
	fst_child_expect_(ctx, c, want, file, line);
	fst_expect_(ctx, p, NULL, 0, "pre-content group", file, line);
}

static void pe05_read_range(struct fst_ctx *ctx) {
	uint64_t pg = page_size();
	struct fst_child *c;
	int p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM);

	/* a few bytes inside one page, across pages, starting unaligned */
	PREAD_STEP(ctx, p, 0, 10, FAN_ALLOW, FAN_ALLOW, 0);
	PREAD_STEP(ctx, p, (off_t)pg + 904, 100, FAN_ALLOW, FAN_ALLOW, 0);
	PREAD_STEP(ctx, p, 100, 2 * pg, FAN_ALLOW, FAN_ALLOW, 0);
	/* beyond the end of the file: the range is not clamped */
	PREAD_STEP(ctx, p, (off_t)(8 * pg + 10), 100, FAN_ALLOW, FAN_ALLOW, 0);

	/* deny at the pre-content event: no ACCESS_PERM follows */
	PREAD_STEP(ctx, p, 0, 10, FAN_DENY, 0, EPERM);
	/* deny at the legacy event */
	PREAD_STEP(ctx, p, 0, 10, FAN_ALLOW, FAN_DENY, EPERM);
	if (fst_has(ctx, FSN_FEAT_DENY_ERRNO))
		PREAD_STEP(ctx, p, 0, 10, FAN_DENY_ERRNO(EIO), 0, EIO);

	/* closing the group with a pre-content event pending allows it */
	c = SPAWN_OP(ctx, OP_READ, "f", 0, 10);
	fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 0, 10));
	fst_close(ctx, p);
	fst_child_expect(ctx, c, 0);
}

static void pe05_write_range(struct fst_ctx *ctx) {
	uint64_t pg = page_size();
	struct fst_event *e;
	struct fst_child *c;
	char b[8];
	int p, n, fd;

	/* ACCESS_PERM in the mask too: a write must not ask for it */
	p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM);
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_MODIFY, "f");

	/* denied: EPERM, the file unchanged, no MODIFY */
	c = SPAWN_OP(ctx, OP_WRITE, "f", (off_t)pg + 10, 5);
	e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", pg + 10, 5));
	fst_respond(ctx, p, e, FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, n);

	/* allowed, across a page boundary: written, MODIFY */
	c = SPAWN_OP(ctx, OP_WRITE, "f", (off_t)(2 * pg - 2), 5);
	e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 2 * pg - 2, 5));
	FST_EXPECT_NONE(ctx, n);
	fst_respond(ctx, p, e, FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT(ctx, n, { .mask = FAN_MODIFY, .path = "f", .pid = c->pid });

	/* the content, read once nothing watches any more */
	fst_close(ctx, p);
	fd = fst_open(ctx, "f", O_RDONLY);
	ck_assert_int_eq(FST_SYS(ctx, pread(fd, b, 5, (off_t)pg + 10)), 5);
	ck_assert_int_ne(b[0], 'W'); /* the denied write did not happen */
	ck_assert_int_eq(FST_SYS(ctx, pread(fd, b, 5, (off_t)(2 * pg - 2))), 5);
	ck_assert(memcmp(b, "WWWWW", 5) == 0);
	fst_close(ctx, fd);
}

static void pe05_mmap_range(struct fst_ctx *ctx) {
	uint64_t pg = page_size();
	struct fst_event *e;
	struct fst_child *c;
	int p;

	/* ACCESS_PERM in the mask too: mmap gives only pre-content events */
	p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM);

	c = SPAWN_OP(ctx, OP_MMAP, "f", (off_t)pg, pg + 904);
	e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", pg, pg + 904));
	fst_respond(ctx, p, e, FAN_ALLOW);
	fst_child_expect(ctx, c, 0); /* the child also touched every page */
	FST_EXPECT_NONE(ctx, p);

	c = SPAWN_OP(ctx, OP_MMAP, "f", 0, 3 * pg);
	e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 0, 3 * pg));
	fst_respond(ctx, p, e, FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
}

/* child truncate(2) or ftruncate(2) of f to size: one PRE_ACCESS, the
 * cover of the empty range at size, answered r; nothing else; the child's
 * result want and f's size after. */
#define TRUNC_STEP(ctx, p, kind, size, r, want, after)                                             \
	trunc_step(ctx, p, kind, size, r, want, after, __FILE__, __LINE__)
static void trunc_step(struct fst_ctx *ctx, int p, enum pe_op_kind kind, off_t size, uint32_t r,
		       int want, off_t after, const char *file, int line) {
	struct fst_child *c = spawn_op(ctx, kind, "f", size, 0, 0, file, line);
	struct fst_event *e;

	e = fst_perm_event_(ctx, p, c, FST_PRE_ACCESS(c, "f", (uint64_t)size, 0), NULL, 0, file,
			    line);
	fst_respond_(ctx, p, e, r, file, line);
	fst_child_expect_(ctx, c, want, file, line);
	fst_expect_(ctx, p, NULL, 0, "pre-content group", file, line);
	expect_size(ctx, "f", after, file, line);
}

/*
 * truncate(2) and ftruncate(2) ask FAN_PRE_ACCESS (fsnotify_truncate_perm())
 * for the empty range at the new size: its page-aligned cover is the page
 * the new end falls in, or nothing at a page boundary (count 0); down, up
 * and to the same size alike; never FAN_ACCESS_PERM. A deny fails it with
 * EPERM and leaves the size. open(O_TRUNC) asks nothing: truncating to zero
 * leaves no content to fill.
 */
static void pe05_truncate_range(struct fst_ctx *ctx) {
	const off_t pg = (off_t)page_size();
	struct fst_child *c;
	int p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM); /* f: 4 pages + 100 */

	TRUNC_STEP(ctx, p, OP_TRUNCATE, pg + 904, FAN_ALLOW, 0, pg + 904);        /* down */
	TRUNC_STEP(ctx, p, OP_FTRUNCATE, 9 * pg + 10, FAN_ALLOW, 0, 9 * pg + 10); /* up */
	TRUNC_STEP(ctx, p, OP_TRUNCATE, 2 * pg, FAN_ALLOW, 0, 2 * pg);  /* a page boundary */
	TRUNC_STEP(ctx, p, OP_FTRUNCATE, 2 * pg, FAN_ALLOW, 0, 2 * pg); /* the same size */
	TRUNC_STEP(ctx, p, OP_TRUNCATE, 10, FAN_DENY, EPERM, 2 * pg);
	TRUNC_STEP(ctx, p, OP_FTRUNCATE, 10, FAN_DENY, EPERM, 2 * pg);

	c = SPAWN_OP(ctx, OP_OPEN_TRUNC, "f", 0, 0);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	EXPECT_SIZE(ctx, "f", 0);
}

/*
 * fallocate(2) asks FAN_PRE_ACCESS for the cover of [off, off + len) in
 * every mode (vfs_fallocate(): the write hook, before the filesystem looks
 * at the mode), never FAN_ACCESS_PERM; a deny fails it with EPERM before
 * the filesystem does anything. Allowed, the filesystem does its part: an
 * allocation past the end grows the file, KEEP_SIZE and PUNCH_HOLE do not,
 * and the punched bytes read as zeros (read once nothing watches).
 */
static void pe05_fallocate_range(struct fst_ctx *ctx) {
	static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
				     FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				     FALLOC_FL_ZERO_RANGE };
	const off_t pg = (off_t)page_size(), size0 = 4 * pg + 100;
	struct fst_child *c;
	char b[8];
	int p, fd;

	p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		/* denied: an allocation past the end would have grown f */
		c = SPAWN_FALLOCATE(ctx, "f", modes[i], 4 * pg + 904, (size_t)(2 * pg));
		fst_answer_x(ctx, p, c,
			     FST_PRE_ACCESS(c, "f", 4 * page_size() + 904, 2 * page_size()),
			     FAN_DENY);
		fst_child_expect(ctx, c, EPERM);
		FST_EXPECT_NONE(ctx, p);
		EXPECT_SIZE(ctx, "f", size0);
	}
	/* allowed, each inside the file but the first */
	c = SPAWN_FALLOCATE(ctx, "f", 0, 4 * pg + 904, (size_t)(2 * pg));
	fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 4 * page_size() + 904, 2 * page_size()),
		     FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	EXPECT_SIZE(ctx, "f", 6 * pg + 904);
	for (size_t i = 1; i < sizeof(modes) / sizeof(modes[0]); i++) {
		c = SPAWN_FALLOCATE(ctx, "f", modes[i], pg + 10, (size_t)pg);
		fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "f", page_size() + 10, page_size()),
			     FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, p);
		EXPECT_SIZE(ctx, "f", 6 * pg + 904);
	}
	fst_close(ctx, p);
	fd = fst_open(ctx, "f", O_RDONLY);
	ck_assert_int_eq(FST_SYS(ctx, pread(fd, b, sizeof(b), 2 * pg)), (ssize_t)sizeof(b));
	ck_assert(memcmp(b, "\0\0\0\0\0\0\0\0", sizeof(b)) == 0); /* punched, zeroed */
	ck_assert_int_eq(FST_SYS(ctx, pread(fd, b, sizeof(b), 0)), (ssize_t)sizeof(b));
	ck_assert(memcmp(b, FILE_DATA, sizeof(b)) == 0); /* before the range: as it was */
	fst_close(ctx, fd);
}

/*
 * The copy paths ask FAN_PRE_ACCESS of both ends, each with the cover of
 * its own range, in the order rw_verify_area() is called: copy_file_range
 * and sendfile the source (then its FAN_ACCESS_PERM), then the target;
 * splice from the file the source only; splice into the file the target
 * only. A deny of the target's event fails the call with EPERM and leaves
 * the target as it was.
 */
static void pe05_copy_paths_range(struct fst_ctx *ctx) {
	static const enum pe_op_kind out[] = { OP_COPY, OP_SENDFILE };
	const uint64_t pg = page_size();
	off_t sink_size = 100;
	struct fst_child *c;
	int p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM); /* f: 4 pages + 100 */

	write_big(ctx, "sink", 100);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS | FAN_ACCESS_PERM, "sink");
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		for (int deny = 1; deny >= 0; deny--) {
			/* from f at pg + 100, 5000 bytes; to sink at 0 */
			c = SPAWN_OP(ctx, out[i], "f", (off_t)pg + 100, 5000);
			fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "f", pg + 100, 5000), FAN_ALLOW);
			fst_answer(ctx, p, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
			fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "sink", 0, 5000),
				     deny ? FAN_DENY : FAN_ALLOW);
			fst_child_expect(ctx, c, deny ? EPERM : 0);
			FST_EXPECT_NONE(ctx, p);
			if (!deny)
				sink_size = 5000;
			EXPECT_SIZE(ctx, "sink", sink_size);
		}
	}
	c = SPAWN_OP(ctx, OP_SPLICE, "f", 10, 100);
	fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 10, 100), FAN_ALLOW);
	fst_answer(ctx, p, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);

	c = SPAWN_OP(ctx, OP_SPLICE_IN, "sink", 3 * (off_t)pg - 2, 5);
	fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "sink", 3 * pg - 2, 5), FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
	EXPECT_SIZE(ctx, "sink", sink_size);
	c = SPAWN_OP(ctx, OP_SPLICE_IN, "sink", 3 * (off_t)pg - 2, 5);
	fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "sink", 3 * pg - 2, 5), FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	EXPECT_SIZE(ctx, "sink", 3 * (off_t)pg + 3);
}

/*
 * io_uring's reads and writes ask what read(2) and write(2) ask
 * (io_read()/io_write() call rw_verify_area()), once per attempt; with
 * IOSQE_ASYNC there is one, by an io-wq worker, reported with the
 * submitting process's id: IORING_OP_READ FAN_PRE_ACCESS with the cover of its range, then
 * FAN_ACCESS_PERM, and FAN_ACCESS once read; IORING_OP_WRITE FAN_PRE_ACCESS
 * only, then FAN_MODIFY. A deny completes the request with -EPERM: nothing
 * read or written, no FAN_ACCESS or FAN_MODIFY.
 */
static void pe05_io_uring_range(struct fst_ctx *ctx) {
	const uint64_t pg = page_size();
	struct fst_event *e;
	struct fst_child *c;
	int p, n;

	require_io_uring(ctx);
	p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM); /* f: 4 pages + 100 */
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, "f");

	for (int deny = 1; deny >= 0; deny--) {
		c = SPAWN_OP(ctx, OP_URING_READ, "f", (off_t)pg + 100, 5000);
		fst_answer_x(ctx, p, c, FST_PRE_ACCESS(c, "f", pg + 100, 5000), FAN_ALLOW);
		fst_answer(ctx, p, c, FAN_ACCESS_PERM, "f", deny ? FAN_DENY : FAN_ALLOW);
		EXPECT_DONE(ctx, c, p, n, deny, FAN_ACCESS);

		c = SPAWN_OP(ctx, OP_URING_WRITE, "f", 4 * (off_t)pg + 50, 100);
		e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 4 * pg + 50, 100));
		FST_EXPECT_NONE(ctx, n);
		fst_respond(ctx, p, e, deny ? FAN_DENY : FAN_ALLOW);
		EXPECT_DONE(ctx, c, p, n, deny, FAN_MODIFY);
		EXPECT_SIZE(ctx, "f", deny ? 4 * (off_t)pg + 100 : 4 * (off_t)pg + 150);
	}
}

struct read_twice {
	const char *path;
	int go_fd;
};

/* open, pread 1 byte, wait for a byte on go_fd, pread again. */
static int child_read_twice(void *arg) {
	const struct read_twice *a = arg;
	char b;
	int fd = open(a->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || pread(fd, &b, 1, 0) < 0)
		return errno;
	if (read(a->go_fd, &b, 1) != 1)
		return EPIPE;
	if (pread(fd, &b, 1, 0) < 0)
		return errno;
	close(fd);
	return 0;
}

/* PRE_ACCESS through each mark type (the open-time check that enables
 * pre-content events on a file looks at inode, mount, sb and parent). */
static void pe05_mark_types(struct fst_ctx *ctx) {
	static const struct {
		unsigned flags;
		uint64_t extra;
		const char *target;
		enum fsn_feature feat;
	} marks[] = {
		{ 0, 0, "d/f", FSN_FEAT_MARK_INODE },
		{ FAN_MARK_MOUNT, 0, ".", FSN_FEAT_MARK_MOUNT },
		{ FAN_MARK_FILESYSTEM, 0, ".", FSN_FEAT_MARK_FILESYSTEM },
		{ 0, FAN_EVENT_ON_CHILD, "d", FSN_FEAT_MARK_INODE },
	};
	struct read_twice a = { .path = "d/f" };
	struct fst_event *e;
	struct fst_child *c;
	int p, go[2];

	fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/sub", 0755));
	write_big(ctx, "d/f", 100);
	write_big(ctx, "d/sub/g", 100);

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		fst_require(ctx, marks[i].feat);
		p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
		fst_mark(ctx, p, FAN_MARK_ADD | marks[i].flags, FAN_PRE_ACCESS | marks[i].extra,
			 marks[i].target);
		fst_log(ctx, "-- mark %zu on %s", i, marks[i].target);

		c = SPAWN_OP(ctx, OP_READ, "d/f", 10, 20);
		e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "d/f", 10, 20));
		fst_respond(ctx, p, e, FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, p);

		if (marks[i].flags == 0) { /* inode, parent: a grandchild is outside */
			c = SPAWN_OP(ctx, OP_READ, "d/sub/g", 10, 20);
			fst_child_expect(ctx, c, 0);
			FST_EXPECT_NONE(ctx, p);
		}

		/* a file opened while marked: its read blocks while the mark
		 * is there, and no longer once the mark is removed */
		FST_SYS(ctx, pipe2(go, O_CLOEXEC));
		a.go_fd = go[0];
		c = fst_spawn(ctx, "open(d/f), pread, wait, pread", child_read_twice, &a, go[0]);
		FST_SYS(ctx, close(go[0]));
		e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "d/f", 0, 1));
		fst_respond(ctx, p, e, FAN_ALLOW);
		fst_mark(ctx, p, FAN_MARK_REMOVE | marks[i].flags, FAN_PRE_ACCESS | marks[i].extra,
			 marks[i].target);
		FST_SYS(ctx, write(go[1], "g", 1));
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, p);
		FST_SYS(ctx, close(go[1]));
		fst_close(ctx, p);
	}
}

/* ------------------------------------------------------------------------ */
/* PE06: several permission groups, priority order, one deny is final       */
/* ------------------------------------------------------------------------ */

static void pe06_pre_content_first(struct fst_ctx *ctx) {
	struct fst_child *c;
	int cg, p, n;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	write_big(ctx, "f", 100);
	/* the CONTENT group is created and marked first */
	cg = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, cg, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_OPEN, "f");
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	/* both allow: PRE_CONTENT asked first, then CONTENT, then FAN_OPEN */
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
	FST_EXPECT_NONE(ctx, n);
	fst_answer_alone(ctx, cg, p, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, n, { .mask = FAN_OPEN, .path = "f", .pid = c->pid });
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, cg);

	/* the first group denies: the second is never asked */
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, cg);
	FST_EXPECT_NONE(ctx, n);
	FST_EXPECT_NONE(ctx, p);

	/* the first allows, the second denies */
	c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
	fst_answer_alone(ctx, cg, p, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, n);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, cg);
}

/* p (PRE_CONTENT) and cg (CONTENT) each have one mark on the path to
 * d/t; an execve asks p and cg for OPEN_EXEC_PERM, then p and cg for
 * OPEN_PERM, each while the other group has nothing; deny is final. */
static void exec_order(struct fst_ctx *ctx, unsigned pflags, uint64_t pextra, const char *ptarget,
		       unsigned cflags, uint64_t cextra, const char *ctarget) {
	const uint64_t mask = FAN_OPEN_EXEC_PERM | FAN_OPEN_PERM;
	struct fst_child *c;
	int p, cg;

	cg = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, cg, FAN_MARK_ADD | cflags, mask | cextra, ctarget);
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD | pflags, mask | pextra, ptarget);

	c = fst_spawn_exec(ctx, "d/t");
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_EXEC_PERM, "d/t", FAN_ALLOW);
	fst_answer_alone(ctx, cg, p, c, FAN_OPEN_EXEC_PERM, "d/t", FAN_ALLOW);
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_PERM, "d/t", FAN_ALLOW);
	fst_answer_alone(ctx, cg, p, c, FAN_OPEN_PERM, "d/t", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, cg);

	/* p denies the first event: cg is never asked */
	c = fst_spawn_exec(ctx, "d/t");
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_EXEC_PERM, "d/t", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, cg);
	FST_EXPECT_NONE(ctx, p);

	/* cg denies the first event: p's OPEN_PERM never comes */
	c = fst_spawn_exec(ctx, "d/t");
	fst_answer_alone(ctx, p, cg, c, FAN_OPEN_EXEC_PERM, "d/t", FAN_ALLOW);
	fst_answer_alone(ctx, cg, p, c, FAN_OPEN_EXEC_PERM, "d/t", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, cg);

	fst_close(ctx, p);
	fst_close(ctx, cg);
}

static void pe06_order_across_mark_types(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_copy_true(ctx, "d/t", 0755);

	fst_log(ctx, "-- PRE_CONTENT on the parent, CONTENT on the filesystem");
	exec_order(ctx, 0, FAN_EVENT_ON_CHILD, "d", FAN_MARK_FILESYSTEM, 0, ".");
	fst_log(ctx, "-- PRE_CONTENT on the mount, CONTENT on the inode");
	exec_order(ctx, FAN_MARK_MOUNT, 0, ".", 0, 0, "d/t");
	fst_log(ctx, "-- PRE_CONTENT on the filesystem, CONTENT on the parent");
	exec_order(ctx, FAN_MARK_FILESYSTEM, 0, ".", 0, FAN_EVENT_ON_CHILD, "d");
	fst_log(ctx, "-- PRE_CONTENT on the inode, CONTENT on the mount");
	exec_order(ctx, 0, 0, "d/t", FAN_MARK_MOUNT, 0, ".");
}

/* Two CONTENT groups: asked one after the other in an unspecified order;
 * whichever comes first and denies, the other is never asked. */
static void pe06_same_class_deny_final(struct fst_ctx *ctx) {
	int a, b, n;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	write_big(ctx, "f", 100);
	a = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, a, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	b = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, b, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_OPEN, "f");

	for (int round = 0; round < 4; round++) {
		bool deny = round >= 2;
		struct fst_child *c = SPAWN_OP(ctx, OP_OPEN, "f", 0, 0);
		int first = fst_wait_any(ctx, ((const int[]){ a, b }), 2) == 0 ? a : b;
		int second = first == a ? b : a;

		fst_log(ctx, "round %d: group %s asked first", round, first == a ? "a" : "b");
		fst_answer_alone(ctx, first, second, c, FAN_OPEN_PERM, "f",
				 deny ? FAN_DENY : FAN_ALLOW);
		if (deny) {
			fst_child_expect(ctx, c, EPERM);
			FST_EXPECT_NONE(ctx, second);
			FST_EXPECT_NONE(ctx, n);
		} else {
			FST_EXPECT_NONE(ctx, n);
			fst_answer_alone(ctx, second, first, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
			fst_child_expect(ctx, c, 0);
			FST_EXPECT(ctx, n, { .mask = FAN_OPEN, .path = "f", .pid = c->pid });
		}
		FST_EXPECT_NONE(ctx, a);
		FST_EXPECT_NONE(ctx, b);
	}
}

/* A read with a PRE_CONTENT group (PRE_ACCESS|ACCESS_PERM) and a CONTENT
 * group (ACCESS_PERM): PRE_ACCESS, then ACCESS_PERM in priority order. */
static void pe06_pre_access_first(struct fst_ctx *ctx) {
	struct fst_event *e;
	struct fst_child *c;
	int p, cg;

	p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM);
	cg = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, cg, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ACCESS_PERM, ".");

	c = SPAWN_OP(ctx, OP_READ, "f", 5, 10);
	e = fst_perm_event_alone_x(ctx, p, cg, c, FST_PRE_ACCESS(c, "f", 5, 10));
	fst_respond(ctx, p, e, FAN_ALLOW);
	fst_answer_alone(ctx, p, cg, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
	fst_answer_alone(ctx, cg, p, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, cg);

	/* the PRE_CONTENT group denies ACCESS_PERM: cg is not asked */
	c = SPAWN_OP(ctx, OP_READ, "f", 5, 10);
	fst_respond(ctx, p, fst_perm_event_alone_x(ctx, p, cg, c, FST_PRE_ACCESS(c, "f", 5, 10)),
		    FAN_ALLOW);
	fst_answer_alone(ctx, p, cg, c, FAN_ACCESS_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, cg);
	FST_EXPECT_NONE(ctx, p);
}

/*
 * Reading a pre-content event's own fd (what an HSM does to fill the file)
 * asks nothing and does not block: the event fd is FMODE_NONOTIFY (LTP
 * fanotify24 reads every event fd). Done by a child while the event is
 * pending, so that a kernel that does ask fails the case instead of
 * hanging it; the pending read itself is the positive control.
 */
static void pe05_event_fd_read(struct fst_ctx *ctx) {
	struct fst_child *c, *r;
	struct fst_event *e;
	int p = pre_group(ctx, FAN_PRE_ACCESS | FAN_ACCESS_PERM);

	c = SPAWN_OP(ctx, OP_READ, "f", 5, 10);
	e = fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 5, 10));
	r = fst_spawn_read_fd(ctx, e->ev.fd);
	fst_child_not_blocked(ctx, r, p);
	fst_child_blocked(ctx, c);
	fst_respond(ctx, p, e, FAN_ALLOW);
	fst_answer(ctx, p, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
}

/* ------------------------------------------------------------------------ */
/* PE07: page faults give no pre-content event                              */
/* ------------------------------------------------------------------------ */

struct fault_arg {
	char path[PATH_MAX];
	size_t pg;
};

/*
 * On f (104 pages, sparse beyond the first: no page of the mappings is in
 * the page cache), each step a syscall asking one PRE_ACCESS:
 *   mmap 2 pages at page 100, PROT_READ, MAP_PRIVATE (the write's buffer);
 *   pwrite 1 byte at page 1 from that buffer: faults page 100 in;
 *   mmap 1 page at page 102, PROT_READ|PROT_WRITE, MAP_PRIVATE;
 *   pread 10 bytes at page 2 into it: faults page 102 in (copy on write).
 */
static int child_fault_buffers(void *arg) {
	const struct fault_arg *a = arg;
	const size_t pg = a->pg;
	char *in, *out;
	int fd = open(a->path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errno;
	in = mmap(NULL, 2 * pg, PROT_READ, MAP_PRIVATE, fd, (off_t)(100 * pg));
	if (in == MAP_FAILED)
		return errno;
	if (pwrite(fd, in, 1, (off_t)pg) != 1)
		return errno ? errno : EIO;
	out = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)(102 * pg));
	if (out == MAP_FAILED)
		return errno;
	if (pread(fd, out, 10, (off_t)(2 * pg)) != 10)
		return errno ? errno : EIO;
	munmap(in, 2 * pg);
	munmap(out, pg);
	close(fd);
	return 0;
}

/*
 * A page fault on a mapping of a watched file gives no FAN_PRE_ACCESS when
 * it happens inside a write() or read() whose user buffer is that mapping
 * (LTP fanotify24: the write's input buffer is an mmap of the watched file
 * at page 100, which must not deadlock). Each syscall asks exactly its own
 * event; a fault event would come before the next one.
 */
static void pe07_fault_in_user_buffer(struct fst_ctx *ctx) {
	const uint64_t pg = page_size();
	struct fault_arg a = { .pg = pg };
	struct fst_child *c;
	int p, fd;

	fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	write_big(ctx, "f", 100);
	fd = fst_open(ctx, "f", O_WRONLY);
	FST_SYS(ctx, ftruncate(fd, (off_t)(104 * pg)));
	fst_close(ctx, fd);
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, "f");

	snprintf(a.path, sizeof(a.path), "f");
	c = fst_spawn(ctx, "mmap(f), pwrite/pread with the mapping as buffer", child_fault_buffers,
		      &a, -1);
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 100 * pg, 2 * pg)),
		    FAN_ALLOW);
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", pg, 1)), FAN_ALLOW);
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 102 * pg, pg)),
		    FAN_ALLOW);
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "f", 2 * pg, 10)),
		    FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
}

/* ------------------------------------------------------------------------ */
/* PE08: executing a file open for write                                    */
/* ------------------------------------------------------------------------ */

/*
 * execve of a file open for write is ETXTBSY, unless the executable is
 * watched for pre-content events when the exec opens it: an HSM must be
 * able to write the file while filling it, so such an exec does not deny
 * writers (LTP fanotify24: ETXTBSY when "parent not watching children",
 * success with an inode FAN_PRE_ACCESS mark). The executable is a script
 * (its interpreter t is not watched): the exec reads it once, one
 * PRE_ACCESS of its first 256 bytes (BINPRM_BUF_SIZE); /bin/true itself
 * would be read and mapped a binary-dependent number of times.
 */
static void pe08_exec_open_for_write(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p, w;

	fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	fst_copy_true(ctx, "t", 0755);
	fst_write_file(ctx, "s", fst_strdupf(ctx, "#!%s/t\n", ctx->work));
	FST_SYS(ctx, chmod("s", 0755));
	w = fst_open(ctx, "s", O_WRONLY);

	/* not watched at all */
	c = fst_spawn_exec(ctx, "s");
	fst_child_expect(ctx, c, ETXTBSY);

	/* a pre-content group whose mark does not cover s */
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, ".");
	c = fst_spawn_exec(ctx, "s");
	fst_child_expect(ctx, c, ETXTBSY);
	FST_EXPECT_NONE(ctx, p);

	/* s watched: the exec runs while s is open for write */
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, "s");
	c = fst_spawn_exec(ctx, "s");
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, FST_PRE_ACCESS(c, "s", 0, 256)), FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);

	/* the watch removed: ETXTBSY again */
	fst_mark(ctx, p, FAN_MARK_REMOVE, FAN_PRE_ACCESS, "s");
	c = fst_spawn_exec(ctx, "s");
	fst_child_expect(ctx, c, ETXTBSY);
	FST_EXPECT_NONE(ctx, p);
	fst_close(ctx, w);
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_pe[] = {
	FST_CASE(pe01_inode_mark, "PE01", FST_ALL_FS,
		 "inode marks: OPEN/ACCESS/OPEN_EXEC_PERM block, ALLOW passes, DENY gives EPERM"),
	FST_CASE(pe01_mount_mark, "PE01", FST_ALL_FS,
		 "mount marks: the three permission events block, ALLOW/DENY; other mount free"),
	FST_CASE(pe01_sb_mark, "PE01", FST_ALL_FS,
		 "sb marks: the three permission events block, ALLOW/DENY; other fs free"),
	FST_CASE(pe01_parent_mark, "PE01", FST_ALL_FS,
		 "parent marks (EVENT_ON_CHILD): the three block, ALLOW/DENY; grandchild free"),
	FST_CASE_GIT(pe01_parent_without_on_child, "PE01", FST_ALL_FS, "e730558adffb",
		     "parent mark without EVENT_ON_CHILD: open/read/execve of a child not asked"),
	FST_CASE(pe01_pre_content_class_inode, "PE01", FST_ALL_FS,
		 "a PRE_CONTENT-class group alone, inode marks: the three permission events"),
	FST_CASE(pe01_pre_content_class_mount, "PE01", FST_ALL_FS,
		 "a PRE_CONTENT-class group alone, mount marks: the three permission events"),
	FST_CASE(pe01_pre_content_class_sb, "PE01", FST_ALL_FS,
		 "a PRE_CONTENT-class group alone, sb marks: the three permission events"),
	FST_CASE(
	    pe01_marked_after_open, "PE01", FST_ALL_FS,
	    "a file open before its ACCESS_PERM mark (z watching elsewhere): each mark type asks"),
	FST_CASE_GIT(
	    pe01_copy_paths_access_perm, "PE01", FST_ALL_FS, "2a33e2ddc6eb",
	    "copy_file_range/sendfile/splice ask ACCESS_PERM of the source once; DENY: EPERM"),
	FST_CASE(pe01_readdir_access_perm, "PE01", FST_ALL_FS,
		 "readdir asks ACCESS_PERM of a directory (ONDIR; inode and sb mark), DENY: EPERM"),
	FST_CASE(pe01_exec_open_perm, "PE01,PE02", FST_ALL_FS,
		 "execve under OPEN_PERM only: FAN_OPEN_PERM alone; DENY fails it, no ACCESS_PERM"),
	FST_CASE(pe02_one_bit_per_event, "PE02", FST_ALL_FS,
		 "open+read and execve: one event per permission bit, each answered alone"),
	FST_CASE(pe02_threads_not_merged, "PE02", FST_ALL_FS,
		 "two threads of one process open a file: two events, DENY one, ALLOW the other"),
	FST_CASE(pe02_two_processes_out_of_order, "PE02", FST_ALL_FS,
		 "two blocked openers answered in reverse order: each gets its own answer"),
	FST_CASE(pe02_one_response_per_event, "PE02", FST_ONCE,
		 "invalid/foreign responses leave the event pending; a second answer is ENOENT"),
	FST_CASE_GIT(
	    pe03_close_releases_all, "PE03", FST_ALL_FS, "96d41019e3ac 05f0e38724e8",
	    "closing a group with one read and two unread events allows all three openers"),
	FST_CASE(
	    pe03_close_passes_to_next_group, "PE03,PE06", FST_ALL_FS,
	    "closing the first permission group hands the event to the next one, which denies"),
	FST_CASE(
	    pe03_two_groups_inode, "PE03", FST_ALL_FS,
	    "two OPEN_PERM groups on an inode: both asked, one closed, then none once removed"),
	FST_CASE(pe03_two_groups_mount, "PE03", FST_ALL_FS,
		 "two OPEN_PERM groups on a mount: both asked, one closed, then none once removed"),
	FST_CASE(pe03_two_groups_sb, "PE03", FST_ALL_FS,
		 "two OPEN_PERM groups on an sb: both asked, one closed, then none once removed"),
	FST_CASE_TIMEOUT_GIT(pe03_close_during_group_churn, "PE03", FST_ALL_FS, 30,
			     "96d41019e3ac 05f0e38724e8",
			     "group close releases blocked readers while other groups come and go"),
	FST_CASE(pe03_killed_waiter, "PE03", FST_ONCE,
		 "a killed waiter's unread event vanishes; a read one is answered once"),
	FST_CASE_GIT(pe04_deny_errno_returned, "PE04", FST_ALL_FS, "b4b2ff4f61de",
		     "FAN_DENY_ERRNO(e) of a PRE_CONTENT group: open/read/execve fail with e"),
	FST_CASE_GIT(
	    pe04_deny_errno_refused, "PE04", FST_ONCE, "b4b2ff4f61de",
	    "FAN_DENY_ERRNO is EINVAL in a CONTENT group and for other errnos; event stays"),
	FST_CASE_GIT(pe05_mark_fs_support, "PE05", FST_ALL_FS, "4f8afa33817a",
		     "tmpfs refuses FAN_PRE_ACCESS marks (EOPNOTSUPP); ext4/xfs/btrfs take them"),
	FST_CASE_GIT(pe05_pre_access_needs_class, "PE05", FST_ALL_FS, "4f8afa33817a",
		     "FAN_PRE_ACCESS in a NOTIF or CONTENT group: EINVAL on every mark type"),
	FST_CASE_GIT(
	    pe05_read_range, "PE05,PE04,PE03", FST_ALL_FS, "4f8afa33817a 870499bc1d4d b4b2ff4f61de",
	    "pread: PRE_ACCESS with the page-aligned range, then ACCESS_PERM; deny, errno"),
	FST_CASE_GIT(
	    pe05_write_range, "PE05", FST_ALL_FS, "4f8afa33817a 870499bc1d4d",
	    "pwrite: PRE_ACCESS with the range, no ACCESS_PERM; DENY leaves the file as is"),
	FST_CASE_GIT(pe05_mmap_range, "PE05", FST_ALL_FS,
		     "066e053fe208 28bba2c2935e 4f8afa33817a 870499bc1d4d",
		     "mmap: PRE_ACCESS with the mapped range, no ACCESS_PERM; DENY fails mmap"),
	FST_CASE(pe01_io_uring_access_perm, "PE01", FST_ALL_FS,
		 "io_uring read asks ACCESS_PERM once (IOSQE_ASYNC), DENY: -EPERM; write nothing"),
	FST_CASE_GIT(
	    pe05_truncate_range, "PE05", FST_ALL_FS, "4f8afa33817a 870499bc1d4d",
	    "truncate/ftruncate: PRE_ACCESS at the new size, no ACCESS_PERM; O_TRUNC: none"),
	FST_CASE_GIT(
	    pe05_fallocate_range, "PE05", FST_ALL_FS, "4f8afa33817a 870499bc1d4d",
	    "fallocate, every mode: PRE_ACCESS with the range; DENY before the filesystem"),
	FST_CASE_GIT(
	    pe05_copy_paths_range, "PE05", FST_ALL_FS, "4f8afa33817a 870499bc1d4d",
	    "copy_file_range/sendfile/splice: PRE_ACCESS of source and target, each range"),
	FST_CASE_GIT(
	    pe05_io_uring_range, "PE05", FST_ALL_FS, "4f8afa33817a 870499bc1d4d",
	    "io_uring read/write: PRE_ACCESS (+ACCESS_PERM for reads) as read/write; deny"),
	FST_CASE_GIT(pe05_mark_types, "PE05", FST_ALL_FS, "4f8afa33817a",
		     "PRE_ACCESS through inode, mount, sb and parent marks; stops when removed"),
	FST_CASE_GIT(pe05_event_fd_read, "PE05,FP12", FST_ALL_FS, "4f8afa33817a",
		     "reading a pending PRE_ACCESS event's fd asks nothing and does not block"),
	FST_CASE(pe06_pre_content_first, "PE06", FST_ALL_FS,
		 "PRE_CONTENT group asked before a CONTENT group created earlier; deny is final"),
	FST_CASE(pe06_order_across_mark_types, "PE06", FST_ALL_FS,
		 "execve: EXEC_PERM p,c then OPEN_PERM p,c across parent/sb/mount/inode marks"),
	FST_CASE(pe06_same_class_deny_final, "PE06", FST_ALL_FS,
		 "two CONTENT groups: both asked once if allowed; the first deny ends it"),
	FST_CASE_GIT(
	    pe06_pre_access_first, "PE06,PE05", FST_ALL_FS, "4f8afa33817a",
	    "read: PRE_ACCESS, then ACCESS_PERM of PRE_CONTENT and CONTENT groups in order"),
	FST_CASE_GIT(pe07_fault_in_user_buffer, "PE07", FST_ALL_FS, "4f8afa33817a",
		     "write/read whose buffer maps the watched file: no PRE_ACCESS for the fault"),
	FST_CASE(pe08_exec_open_for_write, "PE08", FST_ALL_FS,
		 "execve of a file open for write: ETXTBSY unless it has a pre-content watch"),
	{ 0 },
};
