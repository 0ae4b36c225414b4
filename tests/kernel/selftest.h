/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * selftest.h — the case API of fsn-selftest, the kernel fsnotify
 * conformance suite (tests/kernel/).
 *
 * A case is a function that gets a struct fst_ctx: it runs forked (Check's
 * CK_FORK), in its own mount namespace, with the filesystem under test
 * freshly mounted and an empty work directory on it as its cwd. It places
 * marks with raw syscalls (fst_fan_init(), fst_mark(), fst_inotify(),
 * fst_watch()), performs operations, and asserts the exact events with
 * FST_EXPECT() / FST_EXPECT_NONE(), which read everything queued right now
 * (non-blocking) and end with a read that returned EAGAIN.
 *
 * Every helper that can fail aborts the case with a message naming the
 * caller's file:line; helpers never return errors unless their name ends
 * in _err. Nothing here sleeps to synchronise: the kernel queues
 * notification events before the syscall that caused them returns. The
 * only waits are bounded polls for other processes (FST_WAIT_MS).
 *
 * See tests/kernel/README.md for how to add a case.
 */
#pragma once

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fsn.h"
#include "fsn-uapi.h"

#define _fst_printf_(a, b) __attribute__((format(printf, a, b)))
#define _fst_noreturn_ __attribute__((noreturn))

/* ------------------------------------------------------------------------ */
/* Case registry                                                            */
/* ------------------------------------------------------------------------ */

/* Filesystems a case runs on (struct fst_case.fs). */
enum {
	FST_TMPFS = 1u << 0,
	FST_EXT4 = 1u << 1,
	FST_XFS = 1u << 2,
	FST_BTRFS = 1u << 3,
	/* filesystem-dependent: run on every selected filesystem */
	FST_ALL_FS = FST_TMPFS | FST_EXT4 | FST_XFS | FST_BTRFS,
	/* filesystem-independent: run once, on tmpfs */
	FST_ONCE = FST_TMPFS,
};

struct fst_ctx;

struct fst_case {
	const char *name; /* unique, [a-z0-9_], starts with the group: "fp02_..." */
	void (*fn)(struct fst_ctx *ctx);
	const char *ids;  /* semantics IDs it covers: "FP02,FP01" */
	unsigned fs;      /* FST_* filesystems */
	unsigned timeout; /* seconds; 0 = the default (--timeout) */
	const char *desc; /* one line */
};

#define FST_CASE(fn_, ids_, fs_, desc_)                                                            \
	{ #fn_, fn_, ids_, fs_, 0, desc_ }
#define FST_CASE_TIMEOUT(fn_, ids_, fs_, secs_, desc_)                                             \
	{ #fn_, fn_, ids_, fs_, secs_, desc_ }

/* One table per group, each in its own file (cases-fp.c ...), ended by {}. */
extern const struct fst_case fst_cases_fp[];
extern const struct fst_case fst_cases_pc[];
extern const struct fst_case fst_cases_ig[];
extern const struct fst_case fst_cases_pe[];
extern const struct fst_case fst_cases_mk[];
extern const struct fst_case fst_cases_id[];
extern const struct fst_case fst_cases_ov[];

/* ------------------------------------------------------------------------ */
/* The context a case gets                                                  */
/* ------------------------------------------------------------------------ */

struct fst_priv;

struct fst_ctx {
	const struct fst_case *tc;
	const char *fs;                /* "tmpfs", "ext4", "xfs", "btrfs" */
	const char *mnt;               /* mount point of the filesystem under test */
	const char *work;              /* the case's empty directory on it (absolute) */
	int workfd;                    /* O_DIRECTORY fd of work; work is also the cwd */
	const char *scratch;           /* private tmpfs for helper mounts (fst_mount_tmpfs) */
	pid_t pid;                     /* getpid() of the case process */
	const struct fsn_probe *probe; /* features of this filesystem; NULL if the probe failed */
	bool verbose;
	struct fst_priv *priv; /* harness-internal */
};

/* Bounded wait for other processes (children, permission events). */
#define FST_WAIT_MS 5000

/* ------------------------------------------------------------------------ */
/* Failing, skipping, logging                                               */
/* ------------------------------------------------------------------------ */

/* Fail the case with a message (printf format). Never returns. */
#define fst_fail(ctx, ...) fst_fail_(ctx, __FILE__, __LINE__, __VA_ARGS__)
_fst_noreturn_ void fst_fail_(struct fst_ctx *ctx, const char *file, int line, const char *fmt, ...)
    _fst_printf_(4, 5);

/*
 * Skip unless the feature probe (run once per filesystem, before any case)
 * says this filesystem and kernel support f. The reason is
 * "needs <description>: <support> (<ERRNO>)". A feature skip is never
 * turned into a failure by FSN_TESTS_MUST_RUN=1.
 */
#define fst_require(ctx, f) fst_require_(ctx, f, __FILE__, __LINE__)
void fst_require_(struct fst_ctx *ctx, enum fsn_feature f, const char *file, int line);

/* Any other skip. With FSN_TESTS_MUST_RUN=1 it is reported as a failure
 * ("skipped a supported case: <reason>"). Never returns. */
_fst_noreturn_ void fst_skip(struct fst_ctx *ctx, const char *fmt, ...) _fst_printf_(2, 3);

/* A diagnostic line, shown with -v and whenever the case fails. */
void fst_log(struct fst_ctx *ctx, const char *fmt, ...) _fst_printf_(2, 3);

/* Evaluate a syscall-like expression; fail with its text and errno if it
 * returns a negative value. Yields the value. */
#define FST_SYS(ctx, expr)                                                                         \
	__extension__({                                                                            \
		__typeof__(expr) _fst_r = (expr);                                                  \
		if (_fst_r < 0)                                                                    \
			fst_fail_(ctx, __FILE__, __LINE__, "%s failed: %s", #expr,                 \
				  fst_errname(errno));                                             \
		_fst_r;                                                                            \
	})

/* Expect a syscall-like expression to fail with exactly err. */
#define FST_SYS_ERR(ctx, expr, err)                                                                \
	__extension__({                                                                            \
		long _fst_r = (long)(expr);                                                        \
		int _fst_e = errno;                                                                \
		fst_sys_err_(ctx, _fst_r, _fst_e, err, #expr, __FILE__, __LINE__);                 \
	})
void fst_sys_err_(struct fst_ctx *ctx, long ret, int saved_errno, int want, const char *what,
		  const char *file, int line);

/* "ENOENT" (or the number), "0" for 0. Accepts positive and negative values. */
const char *fst_errname(int err);

/* ------------------------------------------------------------------------ */
/* Environment: files, mounts                                               */
/* ------------------------------------------------------------------------ */

/* Create (or truncate) path with content (may be NULL = empty). */
#define fst_write_file(ctx, path, content) fst_write_file_(ctx, path, content, __FILE__, __LINE__)
void fst_write_file_(struct fst_ctx *ctx, const char *path, const char *content, const char *file,
		     int line);

/* open() relative to the work directory; fails the case on error. */
#define fst_open(ctx, path, flags) fst_open_(ctx, path, flags, __FILE__, __LINE__)
int fst_open_(struct fst_ctx *ctx, const char *path, int flags, const char *file, int line);

/* Mount a fresh tmpfs on <scratch>/<name> (another filesystem than the one
 * under test); returns its absolute path (owned by ctx). */
#define fst_mount_tmpfs(ctx, name) fst_mount_tmpfs_(ctx, name, __FILE__, __LINE__)
const char *fst_mount_tmpfs_(struct fst_ctx *ctx, const char *name, const char *file, int line);

/* Bind-mount src (relative to work, or absolute) on <scratch>/<name>: the
 * same filesystem through another mount. Returns the absolute path. */
#define fst_bind(ctx, src, name) fst_bind_(ctx, src, name, __FILE__, __LINE__)
const char *fst_bind_(struct fst_ctx *ctx, const char *src, const char *name, const char *file,
		      int line);

/* printf into memory owned by ctx (freed when the case ends). */
char *fst_strdupf(struct fst_ctx *ctx, const char *fmt, ...) _fst_printf_(2, 3);

/* ------------------------------------------------------------------------ */
/* Groups and marks: raw syscalls, exactly as written                       */
/* ------------------------------------------------------------------------ */

/* fanotify_init(flags | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY|O_LARGEFILE|O_CLOEXEC);
 * fails the case with the errno. The group's flags are remembered so that
 * FST_EXPECT() knows how to compare objects (event fd or FID). */
#define fst_fan_init(ctx, flags)                                                                   \
	fst_fan_init_(ctx, flags, O_RDONLY | O_LARGEFILE | O_CLOEXEC, __FILE__, __LINE__)
#define fst_fan_init2(ctx, flags, event_f_flags)                                                   \
	fst_fan_init_(ctx, flags, event_f_flags, __FILE__, __LINE__)
int fst_fan_init_(struct fst_ctx *ctx, unsigned flags, unsigned event_f_flags, const char *file,
		  int line);

/* fanotify_mark(fd, flags, mask, workfd, path): path relative to the work
 * directory (or absolute; NULL = the work directory itself). fst_mark()
 * fails the case on error; fst_mark_err() returns 0 or -errno. */
#define fst_mark(ctx, fd, flags, mask, path)                                                       \
	fst_mark_(ctx, fd, flags, mask, path, __FILE__, __LINE__)
void fst_mark_(struct fst_ctx *ctx, int fd, unsigned flags, uint64_t mask, const char *path,
	       const char *file, int line);
int fst_mark_err(struct fst_ctx *ctx, int fd, unsigned flags, uint64_t mask, const char *path);

/* inotify_init1(IN_NONBLOCK | IN_CLOEXEC). */
#define fst_inotify(ctx) fst_inotify_(ctx, __FILE__, __LINE__)
int fst_inotify_(struct fst_ctx *ctx, const char *file, int line);

/* inotify_add_watch(fd, path, mask) (path relative to work); returns the wd. */
#define fst_watch(ctx, fd, path, mask) fst_watch_(ctx, fd, path, mask, __FILE__, __LINE__)
int fst_watch_(struct fst_ctx *ctx, int fd, const char *path, uint32_t mask, const char *file,
	       int line);
int fst_watch_err(struct fst_ctx *ctx, int fd, const char *path, uint32_t mask); /* wd or -errno */
#define fst_rm_watch(ctx, fd, wd) fst_rm_watch_(ctx, fd, wd, __FILE__, __LINE__)
void fst_rm_watch_(struct fst_ctx *ctx, int fd, int wd, const char *file, int line);

/* Close a group (or any fd); closing a fanotify group releases its blocked
 * processes. Fails the case if close() fails. */
#define fst_close(ctx, fd) fst_close_(ctx, fd, __FILE__, __LINE__)
void fst_close_(struct fst_ctx *ctx, int fd, const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Object identity                                                          */
/* ------------------------------------------------------------------------ */

/* What an event can be compared with: the inode (for fanotify event fds)
 * and the FID (fsid + handle, for FAN_REPORT_*FID groups). */
struct fst_obj {
	dev_t dev;
	ino_t ino;
	bool has_fid; /* name_to_handle_at() worked (not for pipes) */
	struct fsn_fid fid;
	char label[128];
};

/* Capture the identity of path now (e.g. before it is unlinked). */
#define fst_obj(ctx, path) fst_obj_(ctx, path, __FILE__, __LINE__)
struct fst_obj fst_obj_(struct fst_ctx *ctx, const char *path, const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Reading events                                                           */
/* ------------------------------------------------------------------------ */

/* One event read from a fanotify or inotify fd. ev.name/old_name/new_name
 * point into the owned buffers below. */
struct fst_event {
	struct fsn_event ev;
	bool had_fd;      /* fanotify: the kernel gave an event fd (ev.fd is -1 once closed) */
	bool has_stat;    /* fanotify event fd >= 0 and fstat() worked */
	struct stat st;   /* of the event fd */
	char fdpath[256]; /* readlink of the event fd (for messages) */
	char name_buf[256];
	char old_name_buf[256];
	char new_name_buf[256];
};

struct fst_events {
	size_t n;
	struct fst_event *e; /* owned by ctx */
};

/*
 * Read every event queued on fd right now; never blocks (the fd must be
 * O_NONBLOCK: fst_fan_init()/fst_inotify() make it so). The last read()
 * returned EAGAIN. Event fds are fstat()ed and closed, except those of
 * permission events (answer them with fst_respond()) or, with
 * fst_read_keep(), all of them. The result is owned by ctx.
 */
#define fst_read(ctx, fd) fst_read_(ctx, fd, false, __FILE__, __LINE__)
#define fst_read_keep(ctx, fd) fst_read_(ctx, fd, true, __FILE__, __LINE__)
struct fst_events *fst_read_(struct fst_ctx *ctx, int fd, bool keep_fds, const char *file,
			     int line);

/* Wait (poll, bounded by ms) until fd is readable; fails the case with
 * "no event on <fd> within N ms" otherwise. */
#define fst_wait_readable(ctx, fd, ms) fst_wait_readable_(ctx, fd, ms, __FILE__, __LINE__)
void fst_wait_readable_(struct fst_ctx *ctx, int fd, int ms, const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Expectations                                                             */
/* ------------------------------------------------------------------------ */

#define FST_ANY_PID ((pid_t)-1)

/*
 * One expected event. Every field is compared exactly:
 *   mask   the whole mask, bit for bit.
 *   path / obj   fanotify: the object — the event fd's inode (fd mode) or
 *          the FID record (FAN_REPORT_FID groups). NULL and no obj: not
 *          compared. path is resolved (stat, name_to_handle_at) when
 *          matching, relative to the work directory.
 *   dir / dobj   fanotify groups with FAN_REPORT_DIR_FID: the DFID record.
 *   name   the name record (fanotify DFID_NAME) or the inotify name;
 *          NULL = the event must carry no name.
 *   wd     inotify: the watch descriptor (watches are >= 1; 0 = unchecked).
 *   pid    fanotify: 0 = the case process; FST_ANY_PID = unchecked.
 *   nofd   fanotify fd mode: the event carries FAN_NOFD.
 */
struct fst_exp {
	uint64_t mask;
	const char *path;
	const struct fst_obj *obj;
	const char *dir;
	const struct fst_obj *dobj;
	const char *name;
	int wd;
	pid_t pid;
	bool nofd;
};

#define FST_FAN(mask_, path_)                                                                      \
	{ .mask = (mask_), .path = (path_) }
#define FST_IN(mask_, wd_, name_)                                                                  \
	{ .mask = (mask_), .wd = (wd_), .name = (name_) }

/*
 * Read everything queued on fd (fst_read()) and assert it is exactly the
 * listed events in this order and nothing else. On a mismatch the case
 * fails naming the call site, and the expected and actual event lists
 * (masks as names, names escaped) go to the case's diagnostics. Returns
 * the events read (e.g. to answer permission events).
 */
#define FST_EXPECT(ctx, fd, ...)                                                                   \
	fst_expect_(ctx, fd, (const struct fst_exp[]){ __VA_ARGS__ },                              \
		    sizeof((const struct fst_exp[]){ __VA_ARGS__ }) / sizeof(struct fst_exp), #fd, \
		    __FILE__, __LINE__)
#define FST_EXPECT_NONE(ctx, fd) fst_expect_(ctx, fd, NULL, 0, #fd, __FILE__, __LINE__)
struct fst_events *fst_expect_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
			       const char *what, const char *file, int line);

/* Compare events already read (e.g. with fst_read_keep()) the same way. */
#define FST_MATCH(ctx, fd, events, ...)                                                            \
	fst_match_(ctx, fd, events, (const struct fst_exp[]){ __VA_ARGS__ },                       \
		   sizeof((const struct fst_exp[]){ __VA_ARGS__ }) / sizeof(struct fst_exp), #fd,  \
		   __FILE__, __LINE__)
void fst_match_(struct fst_ctx *ctx, int fd, const struct fst_events *events,
		const struct fst_exp *exp, size_t n, const char *what, const char *file, int line);

/* Format a mask as names ("open,close_write (0x21)") in a rotating static
 * buffer. kind: FSN_MASK_FANOTIFY_EVENT, FSN_MASK_INOTIFY_EVENT, ... */
const char *fst_mask_str(enum fsn_mask_kind kind, uint64_t mask);

/* Escape a filename for messages: printable ASCII as is, the rest \xHH. */
const char *fst_escape(const char *s, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Permission events: child processes and responses                        */
/* ------------------------------------------------------------------------ */

/* Runs in a forked child: return 0 or a positive errno. Never call ck_*
 * or fst_* failing helpers there. The child's fds are closed except
 * keep_fd (and 0-2), so its exit cannot delay CLOSE events of the case. */
typedef int (*fst_child_fn)(void *arg);

struct fst_child {
	pid_t pid;
	char what[128];
	int rfd;    /* result pipe */
	int pidfd;  /* for bounded waits; -1 if pidfd_open() is missing */
	bool done;  /* result read */
	int result; /* 0 or errno (exec: 0 = exec succeeded) */
	int status; /* wait status once reaped */
	bool reaped;
};

#define fst_spawn(ctx, what, fn, arg, keep_fd)                                                     \
	fst_spawn_(ctx, what, fn, arg, keep_fd, __FILE__, __LINE__)
struct fst_child *fst_spawn_(struct fst_ctx *ctx, const char *what, fst_child_fn fn, void *arg,
			     int keep_fd, const char *file, int line);

/* open(path, flags) in a child, then close; result 0 or errno. */
#define fst_spawn_open(ctx, path, flags) fst_spawn_open_(ctx, path, flags, __FILE__, __LINE__)
struct fst_child *fst_spawn_open_(struct fst_ctx *ctx, const char *path, int flags,
				  const char *file, int line);

/* open(path, O_RDONLY), read(1 byte), close in a child. */
#define fst_spawn_read(ctx, path) fst_spawn_read_(ctx, path, __FILE__, __LINE__)
struct fst_child *fst_spawn_read_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line);

/* read(fd, 1 byte) on an fd the case holds (e.g. an event fd). */
#define fst_spawn_read_fd(ctx, fd) fst_spawn_read_fd_(ctx, fd, __FILE__, __LINE__)
struct fst_child *fst_spawn_read_fd_(struct fst_ctx *ctx, int fd, const char *file, int line);

/* execve(path, {path, NULL}, {NULL}); result 0 means exec succeeded. */
#define fst_spawn_exec(ctx, path) fst_spawn_exec_(ctx, path, __FILE__, __LINE__)
struct fst_child *fst_spawn_exec_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line);

/* Wait at most ms for the child's result and exit; fails the case with
 * "child <what> still blocked after N ms". Returns the result (0/errno). */
#define fst_child_wait(ctx, c, ms) fst_child_wait_(ctx, c, ms, __FILE__, __LINE__)
int fst_child_wait_(struct fst_ctx *ctx, struct fst_child *c, int ms, const char *file, int line);

/* Wait (FST_WAIT_MS) and fail unless the child's result is err (0 or an
 * errno such as EPERM): "child open(f): result 0, expected EPERM". */
#define fst_child_expect(ctx, c, err) fst_child_expect_(ctx, c, err, __FILE__, __LINE__)
void fst_child_expect_(struct fst_ctx *ctx, struct fst_child *c, int err, const char *file,
		       int line);

/* Fail the case if the child has already produced its result (it must be
 * blocked in the kernel waiting for a permission response). */
#define fst_child_blocked(ctx, c) fst_child_blocked_(ctx, c, __FILE__, __LINE__)
void fst_child_blocked_(struct fst_ctx *ctx, struct fst_child *c, const char *file, int line);

/* Answer a permission event (FAN_ALLOW, FAN_DENY, FAN_DENY_ERRNO(e) ...) and
 * close its event fd. */
#define fst_respond(ctx, fanfd, e, response)                                                       \
	fst_respond_(ctx, fanfd, e, response, __FILE__, __LINE__)
void fst_respond_(struct fst_ctx *ctx, int fanfd, struct fst_event *e, uint32_t response,
		  const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Harness internals shared by selftest.c and helpers.c                    */
/* ------------------------------------------------------------------------ */

enum fst_skip_kind {
	FST_SKIP_NONE = 0,
	FST_SKIP_FEATURE, /* the probe says unsupported: never a failure */
	FST_SKIP_OTHER,   /* anything else: a failure with FSN_TESTS_MUST_RUN=1 */
};

/* MAP_SHARED memory the forked case writes and the runner reads. */
struct fst_shared {
	int skip_kind;
	char skip_reason[512];
	size_t diag_len;
	bool diag_truncated;
	char diag[64 * 1024];
};

/* Filled by the runner before forking; what a case's fixture needs. */
struct fst_fs_env {
	const char *fs;                /* "tmpfs", ... */
	const char *fstype;            /* mount(2) type */
	const char *dev;               /* loop device, NULL for tmpfs */
	const char *base;              /* per-run directory each case mounts its scratch tmpfs on */
	const struct fsn_probe *probe; /* NULL if the probe failed */
	char probe_error[128];         /* why, if it failed */
	bool verbose;
};

/* Run one case in the current (forked) process: fixture, case, teardown. */
void fst_run_case(const struct fst_case *tc, const struct fst_fs_env *env,
		  struct fst_shared *shared);
