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
	/* Upstream commits whose behaviour the case guards (the one that
	 * introduced it, or the fix that restored it): 12-character linux.git
	 * ids separated by blanks, each with its subject in commits.c; NULL if
	 * none is known. Shown by --list and with a failure. */
	const char *commits;
};

#define FST_CASE(fn_, ids_, fs_, desc_)                                                            \
	{ #fn_, fn_, ids_, fs_, 0, desc_, NULL }
#define FST_CASE_TIMEOUT(fn_, ids_, fs_, secs_, desc_)                                             \
	{ #fn_, fn_, ids_, fs_, secs_, desc_, NULL }
/* The same, naming the commits the case guards: "e730558adffb 55bf882c7f13". */
#define FST_CASE_GIT(fn_, ids_, fs_, commits_, desc_)                                              \
	{ #fn_, fn_, ids_, fs_, 0, desc_, commits_ }
#define FST_CASE_TIMEOUT_GIT(fn_, ids_, fs_, secs_, commits_, desc_)                               \
	{ #fn_, fn_, ids_, fs_, secs_, desc_, commits_ }

/* commits.c: the subject of every commit a case names, ended by {}. */
struct fst_commit {
	const char *id;      /* 12 hex digits */
	const char *subject; /* its first line, as in linux.git */
};
extern const struct fst_commit fst_commits[];

/* One table per group, each in its own file (cases-fp.c ...), ended by {}. */
extern const struct fst_case fst_cases_fp[];
extern const struct fst_case fst_cases_pc[];
extern const struct fst_case fst_cases_ig[];
extern const struct fst_case fst_cases_pe[];
extern const struct fst_case fst_cases_mk[];
extern const struct fst_case fst_cases_id[];
extern const struct fst_case fst_cases_ov[];
extern const struct fst_case fst_cases_in[];
extern const struct fst_case fst_cases_mk_fs[];

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
	/* --soak N: a race case runs its race N times as long (its timeout
	 * grows to match); 1 by default */
	unsigned soak;
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

/*
 * For a part of a case that needs f while the rest does not: true when the
 * probe says f works here; false when this kernel or filesystem lacks it
 * (logged: the part is left out, the rest runs). Below the feature's floor
 * only: a kernel at or above it that refuses f fails the case as
 * fst_require() does (a regression never hides as a left-out part), and a
 * probe that failed for another reason skips the case.
 */
#define fst_has(ctx, f) fst_has_(ctx, f, __FILE__, __LINE__)
bool fst_has_(struct fst_ctx *ctx, enum fsn_feature f, const char *file, int line);

/* fst_require() of what a mark of this type needs: FAN_MARK_MOUNT mount
 * marks, FAN_MARK_FILESYSTEM filesystem marks, FAN_MARK_INODE nothing. */
#define fst_require_mark_type(ctx, type) fst_require_mark_type_(ctx, type, __FILE__, __LINE__)
void fst_require_mark_type_(struct fst_ctx *ctx, unsigned type, const char *file, int line);

/* fst_require() for another object than the filesystem under test (a
 * subvolume, a FUSE or ramfs mount the case made): probes path now. */
#define fst_require_at(ctx, path, f) fst_require_at_(ctx, path, f, __FILE__, __LINE__)
void fst_require_at_(struct fst_ctx *ctx, const char *path, enum fsn_feature f, const char *file,
		     int line);

/*
 * For behaviour a kernel version added that no probe can tell apart from a
 * regression (a probe doing what the case checks would hide the bug the
 * case is there to catch): a feature skip on kernels before major.minor,
 * "needs Linux M.N or later (this is <release>): <why>". Later kernels
 * must pass.
 */
#define fst_require_kernel(ctx, major, minor, why)                                                 \
	fst_require_kernel_(ctx, major, minor, why, __FILE__, __LINE__)
void fst_require_kernel_(struct fst_ctx *ctx, unsigned major, unsigned minor, const char *why,
			 const char *file, int line);

/* Whether the running kernel is major.minor or later (uname): for what a
 * case pins per release, where no probe can tell (see
 * fst_require_kernel()). */
bool fst_kernel_at_least(unsigned major, unsigned minor);

/* A feature skip for what this kernel was built without, told by an error
 * nothing else gives: mount() answering ENODEV for a filesystem type, a
 * tracefs file that a kernel option adds missing (ENOENT). The reason is
 * "needs <what>". Everything else is fst_skip() or a failure. */
_fst_noreturn_ void fst_skip_feature(struct fst_ctx *ctx, const char *fmt, ...) _fst_printf_(2, 3);

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

/*
 * A block device of the case's own, for a filesystem the case may break
 * (corrupt, abort) without touching the one under test: a sparse image of
 * size_mib MiB in the scratch tmpfs on a free loop device, which goes away
 * when the case ends. Returns the device path (owned by ctx); make a
 * filesystem on it with fst_exec_tool() ("mkfs.ext4") and mount it on a
 * directory of ctx->scratch. No loop device is a skip (a failure with
 * FSN_TESTS_MUST_RUN=1).
 */
#define fst_loop_image(ctx, size_mib) fst_loop_image_(ctx, size_mib, __FILE__, __LINE__)
const char *fst_loop_image_(struct fst_ctx *ctx, unsigned size_mib, const char *file, int line);

/*
 * Run a program with its arguments (a NULL-terminated list of strings
 * follows prog), searched in PATH, /usr/local/sbin, /usr/sbin and /sbin,
 * stdin /dev/null. A program that is not installed is a skip (a failure
 * with FSN_TESTS_MUST_RUN=1); one that does not exit 0 fails the case with
 * the start of its output.
 */
#define fst_exec_tool(ctx, ...) fst_exec_tool_(ctx, __FILE__, __LINE__, __VA_ARGS__, (char *)NULL)
void fst_exec_tool_(struct fst_ctx *ctx, const char *file, int line, const char *prog, ...);

/* A limit or setting under /proc/sys: a positive integer, or the case
 * fails naming the file. */
long fst_read_sysctl(struct fst_ctx *ctx, const char *path);
/* Write value to a /proc/sys file: 0, or -1 with errno. Safe in a child
 * (it touches no ctx). */
int fst_write_sysctl(const char *path, long value);

/* Whether the first extent of fd's file shares its blocks with another
 * file (FIEMAP_EXTENT_SHARED): a copy_file_range() the filesystem made
 * by cloning (reflink) rather than by copying. False where FIEMAP is not
 * supported (tmpfs). */
bool fst_extent_shared(struct fst_ctx *ctx, int fd);

/* size zeroed bytes shared with the case's children (fst_spawn()): an
 * anonymous MAP_SHARED mapping, gone when the case's process ends (or
 * munmap() it); fails the case when it cannot be made. */
void *fst_shared(struct fst_ctx *ctx, size_t size);

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

/* fanotify_mark() must return exactly -err (err 0: succeed); else fail with
 * the call as written and both results. */
#define FST_MARK_ERR(ctx, fd, flags, mask, path, err)                                              \
	fst_mark_expect_(ctx, fd, flags, mask, path, err, #flags, #mask, __FILE__, __LINE__)
void fst_mark_expect_(struct fst_ctx *ctx, int fd, unsigned flags, uint64_t mask, const char *path,
		      int err, const char *flags_str, const char *mask_str, const char *file,
		      int line);

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
/* Small file operations (each fails the case with the caller's file:line)  */
/* ------------------------------------------------------------------------ */

/* write(fd, "x", 1): a MODIFY. */
#define fst_write1(ctx, fd) fst_write1_(ctx, fd, __FILE__, __LINE__)
void fst_write1_(struct fst_ctx *ctx, int fd, const char *file, int line);

/* pread(fd, 1 byte at 0): an ACCESS (of a non-empty file). */
#define fst_read1(ctx, fd) fst_read1_(ctx, fd, __FILE__, __LINE__)
void fst_read1_(struct fst_ctx *ctx, int fd, const char *file, int line);

/* open(path, flags) and close at once: OPEN, then CLOSE_(NO)WRITE. */
#define fst_open_close(ctx, path, flags) fst_open_close_(ctx, path, flags, __FILE__, __LINE__)
void fst_open_close_(struct fst_ctx *ctx, const char *path, int flags, const char *file, int line);

/*
 * Write a program that exits 0 to path (relative to the work directory)
 * with the given mode, for execve cases: the copy is an object of the
 * filesystem under test. It is true.c, built static without libc and
 * embedded (x86_64, aarch64), else a copy of /bin/true (or /usr/bin/true).
 * Do it before any mark exists (the case process must not open a file a
 * permission mark covers). Fails if the work directory is mounted noexec;
 * skips if there is no program to copy.
 */
#define fst_copy_true(ctx, path, mode) fst_copy_true_(ctx, path, mode, __FILE__, __LINE__)
void fst_copy_true_(struct fst_ctx *ctx, const char *path, mode_t mode, const char *file, int line);

/* Bytes queued (unread) on a group: ioctl(FIONREAD). */
#define fst_queued_bytes(ctx, fd) fst_queued_bytes_(ctx, fd, __FILE__, __LINE__)
int fst_queued_bytes_(struct fst_ctx *ctx, int fd, const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Object identity                                                          */
/* ------------------------------------------------------------------------ */

/* What an event can be compared with: the inode (for fanotify event fds)
 * and the FID (fsid + handle, for FAN_REPORT_*FID groups). */
struct fst_obj {
	dev_t dev;
	ino_t ino;
	bool has_fid;  /* a file handle was available */
	bool fid_only; /* ... only with AT_HANDLE_FID (EOPNOTSUPP without: not
			* decodable, e.g. ramfs, pipes), which is what fanotify
			* reports for such objects */
	struct fsn_fid fid;
	char label[128];
};

/*
 * Capture the identity of path now (e.g. before it is unlinked). Every part
 * comes from one open(O_PATH) of the object: st_dev/st_ino (fstat), the
 * fsid (fstatfs) and the handle (name_to_handle_at(AT_EMPTY_PATH), falling
 * back to AT_HANDLE_FID on EOPNOTSUPP). fst_obj() follows a final symlink,
 * like open() and fanotify_mark() without FAN_MARK_DONT_FOLLOW;
 * fst_obj_nofollow() is the symlink itself (FAN_MARK_DONT_FOLLOW marks).
 * An expectation's .path/.dir is resolved like fst_obj(), when matching.
 */
#define fst_obj(ctx, path) fst_obj_(ctx, path, true, __FILE__, __LINE__)
#define fst_obj_nofollow(ctx, path) fst_obj_(ctx, path, false, __FILE__, __LINE__)
struct fst_obj fst_obj_(struct fst_ctx *ctx, const char *path, bool follow, const char *file,
			int line);

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
	bool inotify;        /* how they were decoded (for fst_decode()d buffers) */
	unsigned init_flags; /* fanotify_init() flags of the group */
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

/*
 * One read() of at most 64 KiB: the events it returned (n == 0: the queue
 * is empty, read() gave EAGAIN). For queues too long to hold at once (the
 * overflow cases): match each batch, then fst_release() it.
 */
#define fst_read_batch(ctx, fd) fst_read_batch_(ctx, fd, __FILE__, __LINE__)
struct fst_events *fst_read_batch_(struct fst_ctx *ctx, int fd, const char *file, int line);

/*
 * Decode a buffer read elsewhere (e.g. by a child without privileges) as
 * a group with init_flags would have (inotify: an inotify fd). Event fds in
 * it are not the case's: they are neither fstat()ed nor closed. Match the
 * result with FST_MATCH(ctx, -1, events, ...).
 */
#define fst_decode(ctx, inotify, init_flags, buf, len)                                             \
	fst_decode_(ctx, inotify, init_flags, buf, len, __FILE__, __LINE__)
struct fst_events *fst_decode_(struct fst_ctx *ctx, bool inotify, unsigned init_flags,
			       const void *buf, size_t len, const char *file, int line);

/* Free events read earlier (otherwise they live until the case ends). */
void fst_release(struct fst_ctx *ctx, struct fst_events *events);

/* Wait (poll, bounded by ms) until fd is readable; fails the case with
 * "no event on <fd> within N ms" otherwise. */
#define fst_wait_readable(ctx, fd, ms) fst_wait_readable_(ctx, fd, ms, __FILE__, __LINE__)
void fst_wait_readable_(struct fst_ctx *ctx, int fd, int ms, const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Expectations                                                             */
/* ------------------------------------------------------------------------ */

#define FST_ANY_PID ((pid_t)-1)  /* .pid: not compared */
#define FST_PID_ZERO ((pid_t)-2) /* .pid: must be 0 (overflow, unprivileged groups) */

/* .cookie_of: the cookie is not 0 and equals that of event n of the same
 * list (n < this event's index). */
#define FST_COOKIE_OF(n) ((n) + 1)

/* .any: opt-outs for the rare expectation that does not care (not compared,
 * neither presence nor value). */
enum {
	FST_ANY_FID = 1u << 0,  /* the FID record */
	FST_ANY_DIR = 1u << 1,  /* the DFID record */
	FST_ANY_NAME = 1u << 2, /* the name (fanotify record or inotify name) */
};

/*
 * One expected event. Every field is compared exactly, and so is what an
 * expectation leaves out:
 *   mask   the whole mask, bit for bit.
 *   path / obj   fanotify: the object — the event fd's inode (fd-mode
 *          groups) or the FID record (any FID-reporting group: FAN_REPORT_FID,
 *          _DIR_FID, _DFID_NAME ...). path is resolved when matching
 *          (fst_obj(): relative to the work directory, following symlinks).
 *   dir / dobj   fanotify: the DFID record (DFID or DFID_NAME).
 *          One kernel rule is built in: a FAN_REPORT_DIR_FID group without
 *          FAN_REPORT_FID and FAN_REPORT_NAME reports the parent of an event
 *          on a non-directory (no dirent bit, no FAN_ONDIR in the mask) in a
 *          record of type FID, not DFID (copy_info_records_to_user());
 *          there .dir is compared with that FID record, which must be the
 *          only one (pinned by id03_records_dir_fid, id03_dir_fid_type_merge
 *          on the raw records, pc07_fid_flavours through this matcher).
 *   name   the name of the DFID_NAME record, or the inotify name;
 *          NULL = the event must carry no name.
 *   old_dir / old_dobj, old_name, new_dir / new_dobj, new_name   FAN_RENAME:
 *          the OLD_DFID_NAME / NEW_DFID_NAME records.
 *   range, range_offset, range_count   pre-content events: the RANGE record.
 *   The info records must be exactly the expected ones, in every fanotify
 *   group: a FID record exactly when path/obj is given (FID-reporting
 *   groups), a DFID record exactly when dir/dobj is, a name exactly when
 *   name is, OLD/NEW records exactly when old_* / new_* are, a RANGE record
 *   exactly when range is set, a PIDFD record exactly when the group has
 *   FAN_REPORT_PIDFD, an ERROR record exactly for FAN_FS_ERROR; an unknown
 *   record always fails. .any lists opt-outs (FST_ANY_*).
 *   wd     inotify: the watch descriptor (watches are >= 1; 0 = unchecked).
 *   cookie / cookie_of   inotify: cookie non-zero = exactly this cookie;
 *          cookie_of = FST_COOKIE_OF(n): non-zero, the one of event n of this
 *          list; neither: IN_MOVED_FROM/IN_MOVED_TO need a non-zero cookie,
 *          every other event 0.
 *   pid    fanotify: 0 = the case process; FST_PID_ZERO = pid 0;
 *          FST_ANY_PID = unchecked; else exactly this pid.
 *   nofd   fanotify: the event fd is exactly FAN_NOFD.
 *   fd_error   fanotify (FAN_REPORT_FD_ERROR): the event fd is exactly this
 *          negative errno (-EROFS ...).
 *   Neither nofd nor fd_error: an fd-mode group must have given an event
 *   fd, a FID-reporting group must not have.
 */
struct fst_exp {
	uint64_t mask;
	const char *path;
	const struct fst_obj *obj;
	const char *dir;
	const struct fst_obj *dobj;
	const char *name;
	const char *old_dir;
	const struct fst_obj *old_dobj;
	const char *old_name;
	const char *new_dir;
	const struct fst_obj *new_dobj;
	const char *new_name;
	bool range;
	uint64_t range_offset;
	uint64_t range_count;
	int wd;
	uint32_t cookie;
	int cookie_of;
	pid_t pid;
	bool nofd;
	int fd_error;
	unsigned any; /* FST_ANY_* */
};

#define FST_FAN(mask_, path_)                                                                      \
	{ .mask = (mask_), .path = (path_) }
#define FST_IN(mask_, wd_, name_)                                                                  \
	{ .mask = (mask_), .wd = (wd_), .name = (name_) }

/*
 * The FAN_PRE_ACCESS event of process pid on path for an access of len
 * bytes at pos: its RANGE record is the page-aligned cover of the access,
 * round_down(pos) .. round_up(pos + len), not clamped to the file size
 * (fsnotify_pre_content()).
 */
struct fst_exp fst_pre_access(const char *path, pid_t pid, uint64_t pos, uint64_t len);
/* The same for child c, as a pointer (for fst_perm_event_x(), fst_allow_all()). */
#define FST_PRE_ACCESS(c, path, pos, len)                                                          \
	((const struct fst_exp[]){ fst_pre_access(path, (c)->pid, pos, len) })

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

/*
 * The same as a set: every event read matches one of the expectations and
 * every expectation matches an event read, in any order, identical events
 * repeated or not. Only where no kernel defines the order or the number
 * (pin them per kernel where it does: see dp_expect_copy() in cases-fp.c).
 * No cookie_of.
 */
#define FST_EXPECT_SET(ctx, fd, ...)                                                               \
	fst_expect_set_(ctx, fd, (const struct fst_exp[]){ __VA_ARGS__ },                          \
			sizeof((const struct fst_exp[]){ __VA_ARGS__ }) / sizeof(struct fst_exp),  \
			#fd, __FILE__, __LINE__)
struct fst_events *fst_expect_set_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
				   const char *what, const char *file, int line);

/* Compare events already read (e.g. with fst_read_keep()) the same way. fd
 * names the group (its flags decide how to compare); -1 for fst_decode()d
 * events, which carry their flags. */
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
/* Marks as /proc/self/fdinfo/<group> shows them                            */
/* ------------------------------------------------------------------------ */

enum {
	FST_FDI_INODE = 'i', /* "fanotify ino:..."  */
	FST_FDI_MOUNT = 'm', /* "fanotify mnt_id:..." */
	FST_FDI_SB = 's',    /* "fanotify sdev:..." */
	FST_FDI_WATCH = 'w', /* "inotify wd:..." */
};

/* One mark line. */
struct fst_fdi {
	int kind;               /* FST_FDI_* */
	unsigned long long ino; /* FST_FDI_INODE, FST_FDI_WATCH */
	unsigned sdev;          /* FST_FDI_INODE, _SB, _WATCH (kernel dev_t of the sb) */
	int mnt_id;             /* FST_FDI_MOUNT */
	int wd;                 /* FST_FDI_WATCH */
	unsigned mflags, mask, ignored;
	bool has_fh; /* inode marks and watches */
	unsigned fh_bytes;
	int fh_type;
	char fh_hex[2 * FSN_HANDLE_MAX + 1];
	char label[160]; /* expected entries: what was marked */
};

/* Every mark line of fd's fdinfo (at most max); fails on a mark line it
 * cannot parse. Reading fdinfo looks no inode up (it can tell whether an
 * evictable mark is gone without bringing its inode back). */
#define fst_fdinfo_read(ctx, fd, out, max) fst_fdinfo_read_(ctx, fd, out, max, __FILE__, __LINE__)
size_t fst_fdinfo_read_(struct fst_ctx *ctx, int fd, struct fst_fdi *out, size_t max,
			const char *file, int line);

/* The inode mark (or watch) line of fd on inode number ino, if any. */
#define fst_fdinfo_find(ctx, fd, ino, out) fst_fdinfo_find_(ctx, fd, ino, out, __FILE__, __LINE__)
bool fst_fdinfo_find_(struct fst_ctx *ctx, int fd, unsigned long long ino, struct fst_fdi *out,
		      const char *file, int line);

/* Expected lines, from the object that was marked: inode number, the sb's
 * dev_t (from /proc/self/mountinfo: not st_dev, which is a subvolume's on
 * btrfs), the file handle (follow: the symlink's target). */
#define fst_fdi_inode(ctx, path, follow, mflags, mask, ignored)                                    \
	fst_fdi_inode_(ctx, path, follow, mflags, mask, ignored, __FILE__, __LINE__)
struct fst_fdi fst_fdi_inode_(struct fst_ctx *ctx, const char *path, bool follow, unsigned mflags,
			      unsigned mask, unsigned ignored, const char *file, int line);
#define fst_fdi_watch(ctx, wd, path, follow, mask)                                                 \
	fst_fdi_watch_(ctx, wd, path, follow, mask, __FILE__, __LINE__)
struct fst_fdi fst_fdi_watch_(struct fst_ctx *ctx, int wd, const char *path, bool follow,
			      unsigned mask, const char *file, int line);
#define fst_fdi_mount(ctx, path, mflags, mask, ignored)                                            \
	fst_fdi_mount_(ctx, path, mflags, mask, ignored, __FILE__, __LINE__)
struct fst_fdi fst_fdi_mount_(struct fst_ctx *ctx, const char *path, unsigned mflags, unsigned mask,
			      unsigned ignored, const char *file, int line);
#define fst_fdi_sb(ctx, path, mflags, mask, ignored)                                               \
	fst_fdi_sb_(ctx, path, mflags, mask, ignored, __FILE__, __LINE__)
struct fst_fdi fst_fdi_sb_(struct fst_ctx *ctx, const char *path, unsigned mflags, unsigned mask,
			   unsigned ignored, const char *file, int line);

/* fdinfo of fd lists exactly these marks (in any order: the kernel lists
 * the group's marks newest first, which is not part of the contract); with
 * all = false: at least these (other marks of the group are not looked at). */
#define FST_EXPECT_FDINFO(ctx, fd, ...)                                                            \
	fst_expect_fdinfo_(ctx, fd, true, (const struct fst_fdi[]){ __VA_ARGS__ },                 \
			   sizeof((const struct fst_fdi[]){ __VA_ARGS__ }) /                       \
			       sizeof(struct fst_fdi),                                             \
			   __FILE__, __LINE__)
#define FST_EXPECT_FDINFO_HAS(ctx, fd, ...)                                                        \
	fst_expect_fdinfo_(ctx, fd, false, (const struct fst_fdi[]){ __VA_ARGS__ },                \
			   sizeof((const struct fst_fdi[]){ __VA_ARGS__ }) /                       \
			       sizeof(struct fst_fdi),                                             \
			   __FILE__, __LINE__)
#define FST_EXPECT_FDINFO_NONE(ctx, fd)                                                            \
	fst_expect_fdinfo_(ctx, fd, true, NULL, 0, __FILE__, __LINE__)
void fst_expect_fdinfo_(struct fst_ctx *ctx, int fd, bool all, const struct fst_fdi *exp, size_t n,
			const char *file, int line);

/* ------------------------------------------------------------------------ */
/* Child processes                                                          */
/* ------------------------------------------------------------------------ */

/* Runs in a forked child: return 0 or a positive errno. Never call ck_*
 * or fst_* failing helpers there. The child's fds are closed except
 * keep_fd (and 0-2), so its exit cannot delay CLOSE events of the case. */
typedef int (*fst_child_fn)(void *arg);

struct fst_child {
	pid_t pid;
	char what[128];
	int rfd;        /* result pipe */
	int pidfd;      /* for bounded waits; -1 if pidfd_open() is missing */
	bool exec;      /* fst_spawn_exec(): success leaves no result, only the exit status */
	bool done;      /* result read (or the pipe closed) */
	bool no_result; /* the pipe closed without a result (exec: the exec succeeded) */
	int result;     /* 0 or errno (exec: 0 = the program ran and exited 0) */
	int status;     /* wait status once reaped */
	bool reaped;
};

/* At most 64 children live at once (reaped ones free their slot). The
 * struct stays valid (pid, result, status) until the case ends. */
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

/* execve(path, {path, NULL}, {NULL}). Result 0 means the exec succeeded and
 * the program exited with status 0 (fst_child_wait() checks the status: a
 * child that ends without a result and status 0 is a failure); else the
 * errno of execve. */
#define fst_spawn_exec(ctx, path) fst_spawn_exec_(ctx, path, __FILE__, __LINE__)
struct fst_child *fst_spawn_exec_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line);

/* Wait at most ms for the child's result and exit; fails the case with
 * "child <what> still blocked after N ms", if it was killed by a signal,
 * exited with a non-zero status or ended without a result (except an exec
 * child whose program exited 0). Returns the result (0/errno). */
#define fst_child_wait(ctx, c, ms) fst_child_wait_(ctx, c, ms, __FILE__, __LINE__)
int fst_child_wait_(struct fst_ctx *ctx, struct fst_child *c, int ms, const char *file, int line);

/* Wait (FST_WAIT_MS) and fail unless the child's result is err (0 or an
 * errno such as EPERM): "child open(f): result 0, expected EPERM". */
#define fst_child_expect(ctx, c, err) fst_child_expect_(ctx, c, err, __FILE__, __LINE__)
void fst_child_expect_(struct fst_ctx *ctx, struct fst_child *c, int err, const char *file,
		       int line);

/* SIGKILL the child and reap it (its slot is free again). */
#define fst_child_kill(ctx, c) fst_child_kill_(ctx, c, __FILE__, __LINE__)
void fst_child_kill_(struct fst_ctx *ctx, struct fst_child *c, const char *file, int line);

/*
 * Prove that the child is blocked in the kernel waiting for permission
 * responses: poll (1 ms steps, bounded by FST_WAIT_MS) until exactly n of
 * its tasks sleep in fanotify's wait for a response (/proc/<pid>/task/<tid>/
 * stat state D and wchan in fanotify code; a kernel without symbolic wchan
 * counts on state D). Polling is the only way: the kernel sends no
 * notification when a task starts waiting, and having read the event does
 * not mean the task has gone to sleep yet. Fails at once if the child
 * produces its result (it was not blocked), and names the tasks' states if
 * the count never settles at n. fst_child_blocked(): n = 1.
 */
/* The state letter of task tid of pid (tid 0: the process; R, S, D, ...)
 * from /proc, its wchan into wchan (wlen bytes); 0 when it is gone. */
char fst_task_state(pid_t pid, pid_t tid, char *wchan, size_t wlen);
/* A wchan without a symbol ("", "0", "0x...", an address): the kernel has
 * no KALLSYMS, or hides it; only the state can be trusted then. */
bool fst_wchan_numeric(const char *wchan);

/* Poll (1 ms steps, bounded by FST_WAIT_MS) until the child sleeps (state
 * S) in read() of fd, as /proc/<pid>/syscall says (where the kernel has no
 * such file: state S alone). Fails if the child finishes first or never
 * sleeps there: its read() did not block. */
#define fst_child_in_read(ctx, c, fd) fst_child_in_read_(ctx, c, fd, __FILE__, __LINE__)
void fst_child_in_read_(struct fst_ctx *ctx, struct fst_child *c, int fd, const char *file,
			int line);

#define fst_child_blocked(ctx, c) fst_child_blocked_(ctx, c, 1, __FILE__, __LINE__)
#define fst_child_blocked_n(ctx, c, n) fst_child_blocked_(ctx, c, n, __FILE__, __LINE__)
void fst_child_blocked_(struct fst_ctx *ctx, struct fst_child *c, int n, const char *file,
			int line);
/* The same, and until group g's queue holds exactly bytes (FIONREAD): that
 * n tasks sleep in fanotify code does not prove their events are queued
 * (on PREEMPT_RT a task waiting for a spinlock on its way there is in
 * state D too). */
#define fst_child_blocked_queued(ctx, c, n, g, bytes)                                              \
	fst_child_blocked_queued_(ctx, c, n, g, bytes, __FILE__, __LINE__)
void fst_child_blocked_queued_(struct fst_ctx *ctx, struct fst_child *c, int n, int g, int bytes,
			       const char *file, int line);

/* The child must finish with result 0 without fanotify group g being asked
 * anything: if g gets an event first, fail at once listing it (rather than
 * time out); then g must have nothing queued. */
#define fst_child_not_blocked(ctx, c, g) fst_child_not_blocked_(ctx, c, g, __FILE__, __LINE__)
void fst_child_not_blocked_(struct fst_ctx *ctx, struct fst_child *c, int g, const char *file,
			    int line);

/* ------------------------------------------------------------------------ */
/* Permission events                                                        */
/* ------------------------------------------------------------------------ */

/* Answer a permission event (FAN_ALLOW, FAN_DENY, FAN_DENY_ERRNO(e) ...) and
 * close its event fd. */
#define fst_respond(ctx, fanfd, e, response)                                                       \
	fst_respond_(ctx, fanfd, e, response, __FILE__, __LINE__)
void fst_respond_(struct fst_ctx *ctx, int fanfd, struct fst_event *e, uint32_t response,
		  const char *file, int line);

/*
 * Child c blocks on exactly one permission event in group g: wait for it
 * (FST_WAIT_MS), assert it is exactly *x and nothing else is queued in g,
 * that every group in quiet[] has nothing queued (c can wait for one group
 * at a time: the others cannot have been asked yet), and that c is blocked
 * (fst_child_blocked()). Returns the event (its fd open: fst_respond() it).
 */
struct fst_event *fst_perm_event_(struct fst_ctx *ctx, int g, struct fst_child *c,
				  const struct fst_exp *x, const int *quiet, size_t nquiet,
				  const char *file, int line);

/* The usual expectation of a permission event: mask on path, by child c. */
#define FST_PERM(c, mask_, path_)                                                                  \
	(&(const struct fst_exp){ .mask = (mask_), .path = (path_), .pid = (c)->pid })

#define fst_perm_event(ctx, g, c, mask_, path_)                                                    \
	fst_perm_event_(ctx, g, c, FST_PERM(c, mask_, path_), NULL, 0, __FILE__, __LINE__)
/* Any expectation (e.g. fst_pre_access()). */
#define fst_perm_event_x(ctx, g, c, x) fst_perm_event_(ctx, g, c, x, NULL, 0, __FILE__, __LINE__)

/* Any expectation, and group other must have nothing while c waits for g. */
#define fst_perm_event_alone_x(ctx, g, other, c, x)                                                \
	fst_perm_event_(ctx, g, c, x, (const int[]){ other }, 1, __FILE__, __LINE__)

/* fst_perm_event(), then answer it with response. */
#define fst_answer(ctx, g, c, mask_, path_, response)                                              \
	fst_respond_(ctx, g, fst_perm_event(ctx, g, c, mask_, path_), response, __FILE__, __LINE__)
/* fst_perm_event_x(), then answer it with response. */
#define fst_answer_x(ctx, g, c, x, response)                                                       \
	fst_respond_(ctx, g, fst_perm_event_x(ctx, g, c, x), response, __FILE__, __LINE__)
/* The same, and group other must have nothing while c waits for g. */
#define fst_answer_alone(ctx, g, other, c, mask_, path_, response)                                 \
	fst_respond_(ctx, g,                                                                       \
		     fst_perm_event_(ctx, g, c, FST_PERM(c, mask_, path_), (const int[]){ other }, \
				     1, __FILE__, __LINE__),                                       \
		     response, __FILE__, __LINE__)

/* Wait (FST_WAIT_MS) until one of the n groups has an event; its index. */
#define fst_wait_any(ctx, gs, n) fst_wait_any_(ctx, gs, n, __FILE__, __LINE__)
size_t fst_wait_any_(struct fst_ctx *ctx, const int *gs, size_t n, const char *file, int line);

/*
 * Child c asks each of the n groups exactly once for a permission event,
 * x (e.g. FST_PERM(c, FAN_OPEN_PERM, "f")): answer each with FAN_ALLOW, in
 * the order the kernel asks — by class, FAN_CLASS_PRE_CONTENT before
 * FAN_CLASS_CONTENT (the class fst_fan_init() was given), in any order
 * within a class — each while every other group has nothing queued; then
 * c must finish with result 0 and no group may have anything left.
 */
#define fst_allow_all(ctx, c, gs, n, x) fst_allow_all_(ctx, c, gs, n, x, __FILE__, __LINE__)
void fst_allow_all_(struct fst_ctx *ctx, struct fst_child *c, const int *gs, size_t n,
		    const struct fst_exp *x, const char *file, int line);
