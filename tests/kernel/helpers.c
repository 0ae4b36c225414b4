/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * helpers.c — what a case runs with: the per-case fixture (private mount
 * namespace, fresh filesystem, work directory), raw mark helpers, the event
 * reader and exact-match assertions, child processes for permission events,
 * and the skip/fail plumbing back to the runner (selftest.c) through the
 * MAP_SHARED slot.
 *
 * Everything here runs in the forked case process. Failures go through
 * Check's _ck_assert_failed() with the caller's file:line; the long
 * explanation (event lists) goes to the shared diagnostics buffer, which the
 * runner prints even when Check only reports a timeout or a signal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selftest.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200 /* 6.5: a handle to identify, not to open, the object */
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

#define FST_MAX_FD 1024
#define FST_MAX_CHILDREN 64 /* alive at once */
#define FST_READ_BUF (64 * 1024)

/* Event bits whose event fd must stay open until answered. */
#define FST_PERM_MASK (FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM | FAN_PRE_ACCESS)

enum fd_kind {
	FD_UNKNOWN = 0,
	FD_FANOTIFY,
	FD_INOTIFY,
};

struct fd_info {
	enum fd_kind kind;
	unsigned init_flags;
};

struct fst_priv {
	const struct fst_fs_env *env;
	struct fst_shared *shared;
	void **allocs;
	size_t n_allocs, cap_allocs;
	struct fd_info fds[FST_MAX_FD];
	struct fst_child *children[FST_MAX_CHILDREN]; /* not yet reaped by a helper */
	size_t n_children;
	unsigned char *readbuf;
};

/* Tell Check where the case is, so a timeout or a crash names the last
 * helper call site of the case rather than the runner. */
static void checkpoint(const char *file, int line) {
	_mark_point(file, line);
}

/* The one case this process runs, for the few places without a ctx. */
static struct fst_ctx *cur_ctx;

/* ------------------------------------------------------------------------ */
/* Memory owned by the case                                                 */
/* ------------------------------------------------------------------------ */

static void *ctx_track(struct fst_ctx *ctx, void *p) {
	struct fst_priv *pr = ctx->priv;

	if (!p)
		fst_fail(ctx, "out of memory");
	if (pr->n_allocs == pr->cap_allocs) {
		size_t cap = pr->cap_allocs ? pr->cap_allocs * 2 : 32;
		void **n = realloc(pr->allocs, cap * sizeof(*n));

		if (!n) {
			free(p);
			fst_fail(ctx, "out of memory");
		}
		pr->allocs = n;
		pr->cap_allocs = cap;
	}
	pr->allocs[pr->n_allocs++] = p;
	return p;
}

static void *ctx_calloc(struct fst_ctx *ctx, size_t n, size_t size) {
	return ctx_track(ctx, calloc(n ? n : 1, size));
}

/* Free memory of the case before it ends (the most recent first). */
static void ctx_free(struct fst_ctx *ctx, void *p) {
	struct fst_priv *pr = ctx->priv;

	for (size_t i = pr->n_allocs; p && i-- > 0;)
		if (pr->allocs[i] == p) {
			pr->allocs[i] = pr->allocs[--pr->n_allocs];
			free(p);
			return;
		}
}

char *fst_strdupf(struct fst_ctx *ctx, const char *fmt, ...) {
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		s = NULL;
	return ctx_track(ctx, s);
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */
/* ------------------------------------------------------------------------ */

const char *fst_errname(int err) {
	static char buf[4][32];
	static unsigned idx;
	const char *n;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "0";
	n = strerrorname_np(err);
	if (n)
		return n;
	idx = (idx + 1) % 4;
	snprintf(buf[idx], sizeof(buf[idx]), "errno %d", err);
	return buf[idx];
}

static void diag_vappend(struct fst_shared *sh, const char *fmt, va_list ap) {
	size_t room;
	int n;

	if (!sh)
		return;
	room = sizeof(sh->diag) - sh->diag_len;
	if (room <= 1) {
		sh->diag_truncated = true;
		return;
	}
	n = vsnprintf(sh->diag + sh->diag_len, room, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		sh->diag_len = sizeof(sh->diag) - 1;
		sh->diag_truncated = true;
	} else
		sh->diag_len += (size_t)n;
}

static void diag(struct fst_ctx *ctx, const char *fmt, ...) _fst_printf_(2, 3);
static void diag(struct fst_ctx *ctx, const char *fmt, ...) {
	va_list ap;

	va_start(ap, fmt);
	diag_vappend(ctx->priv->shared, fmt, ap);
	va_end(ap);
}

void fst_log(struct fst_ctx *ctx, const char *fmt, ...) {
	va_list ap;

	va_start(ap, fmt);
	diag_vappend(ctx->priv->shared, fmt, ap);
	va_end(ap);
	diag(ctx, "\n");
}

static void kill_children(struct fst_ctx *ctx) {
	struct fst_priv *pr = ctx->priv;

	for (size_t i = 0; i < pr->n_children; i++) {
		struct fst_child *c = pr->children[i];

		if (c->reaped)
			continue;
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->reaped = true;
	}
}

void fst_fail_(struct fst_ctx *ctx, const char *file, int line, const char *fmt, ...) {
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!ctx)
		ctx = cur_ctx;
	if (ctx && ctx->priv)
		kill_children(ctx);
	_ck_assert_failed(file, line, "Failed", "%s", msg);
}

static void skip_with(struct fst_ctx *ctx, enum fst_skip_kind kind, const char *reason) {
	struct fst_shared *sh = ctx->priv->shared;

	sh->skip_kind = kind;
	snprintf(sh->skip_reason, sizeof(sh->skip_reason), "%s", reason);
	kill_children(ctx);
	fflush(NULL);
	_exit(77);
}

void fst_skip(struct fst_ctx *ctx, const char *fmt, ...) {
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	skip_with(ctx, FST_SKIP_OTHER, reason);
	_exit(77); /* not reached */
}

/* Skip unless r says supported: a feature skip when the kernel or the
 * filesystem cannot (where: "" or " on <object>"). */
static void require_result(struct fst_ctx *ctx, enum fsn_feature f,
			   const struct fsn_feature_result *r, const char *where) {
	char reason[600];

	if (r->support == FSN_SUPPORTED)
		return;
	snprintf(reason, sizeof(reason), "needs %s%s: %s (%s)", fsn_feature_description(f), where,
		 fsn_support_name(r->support), fst_errname(r->error));
	/* Only "the kernel or this filesystem cannot" is a feature skip; a
	 * probe that failed for another reason must not hide a case. */
	if (r->support == FSN_UNSUPPORTED_KERNEL || r->support == FSN_UNSUPPORTED_FS)
		skip_with(ctx, FST_SKIP_FEATURE, reason);
	skip_with(ctx, FST_SKIP_OTHER, reason);
}

void fst_require_(struct fst_ctx *ctx, enum fsn_feature f, const char *file, int line) {
	char reason[512];

	if ((unsigned)f >= _FSN_FEAT_MAX)
		fst_fail_(ctx, file, line, "fst_require: unknown feature %d", (int)f);
	if (!ctx->probe) {
		snprintf(reason, sizeof(reason), "needs %s: feature probe failed on %s: %s",
			 fsn_feature_description(f), ctx->fs, ctx->priv->env->probe_error);
		skip_with(ctx, FST_SKIP_OTHER, reason);
	}
	require_result(ctx, f, &ctx->probe->feat[f], "");
}

void fst_require_at_(struct fst_ctx *ctx, const char *path, enum fsn_feature f, const char *file,
		     int line) {
	struct fsn_probe p;
	char where[300];
	int r;

	if ((unsigned)f >= _FSN_FEAT_MAX)
		fst_fail_(ctx, file, line, "fst_require_at: unknown feature %d", (int)f);
	r = fsn_probe_path(path, &p);
	if (r < 0)
		fst_fail_(ctx, file, line, "probing %s: %s", path, fst_errname(r));
	snprintf(where, sizeof(where), " on %s", path);
	require_result(ctx, f, &p.feat[f], where);
}

void fst_require_kernel_(struct fst_ctx *ctx, unsigned major, unsigned minor, const char *why,
			 const char *file, int line) {
	struct utsname u;
	unsigned ma, mi;
	char reason[600];

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		fst_fail_(ctx, file, line, "cannot tell the kernel version (uname)");
	if (ma > major || (ma == major && mi >= minor))
		return;
	snprintf(reason, sizeof(reason), "needs Linux %u.%u or later (this is %s): %s", major,
		 minor, u.release, why);
	skip_with(ctx, FST_SKIP_FEATURE, reason);
}

void fst_sys_err_(struct fst_ctx *ctx, long ret, int saved_errno, int want, const char *what,
		  const char *file, int line) {
	if (ret >= 0)
		fst_fail_(ctx, file, line, "%s succeeded (returned %ld), expected %s", what, ret,
			  fst_errname(want));
	if (saved_errno != want)
		fst_fail_(ctx, file, line, "%s failed with %s, expected %s", what,
			  fst_errname(saved_errno), fst_errname(want));
}

const char *fst_escape(const char *s, char *buf, size_t len) {
	size_t pos = 0;

	if (len == 0)
		return buf;
	for (; s && *s && pos + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '"') {
			buf[pos++] = '\\';
			buf[pos++] = (char)c;
		} else if (c >= 0x20 && c < 0x7f)
			buf[pos++] = (char)c;
		else
			pos += (size_t)snprintf(buf + pos, len - pos, "\\x%02x", c);
	}
	if (s && *s && pos + 4 <= len) {
		memcpy(buf + pos, "...", 3);
		pos += 3;
	}
	buf[pos] = '\0';
	return buf;
}

const char *fst_mask_str(enum fsn_mask_kind kind, uint64_t mask) {
	static char bufs[8][320];
	static unsigned idx;
	char names[256];
	char *b;
	int r;

	idx = (idx + 1) % 8;
	b = bufs[idx];
	r = fsn_mask_format(kind, mask, names, sizeof(names));
	if (r < 0 || mask == 0)
		snprintf(b, sizeof(bufs[idx]), "0x%" PRIx64, mask);
	else
		snprintf(b, sizeof(bufs[idx]), "%s (0x%" PRIx64 ")", names, mask);
	return b;
}

/* A path for messages: relative to the work directory when inside it. */
static const char *short_path(struct fst_ctx *ctx, const char *p) {
	size_t wl = strlen(ctx->work), sl = strlen(ctx->scratch);

	if (strncmp(p, ctx->work, wl) == 0 && p[wl] == '/')
		return p + wl + 1;
	if (strcmp(p, ctx->work) == 0)
		return ".";
	if (strncmp(p, ctx->scratch, sl) == 0 && p[sl] == '/')
		return fst_strdupf(ctx, "<scratch>/%s", p + sl + 1);
	return p;
}

/* ------------------------------------------------------------------------ */
/* Files and mounts                                                         */
/* ------------------------------------------------------------------------ */

void fst_write_file_(struct fst_ctx *ctx, const char *path, const char *content, const char *file,
		     int line) {
	size_t len = content ? strlen(content) : 0;
	int fd = openat(ctx->workfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		fst_fail_(ctx, file, line, "create %s: %s", path, fst_errname(errno));
	if (len > 0 && write(fd, content, len) != (ssize_t)len)
		fst_fail_(ctx, file, line, "write %s: %s", path, fst_errname(errno));
	if (close(fd) < 0)
		fst_fail_(ctx, file, line, "close %s: %s", path, fst_errname(errno));
}

int fst_open_(struct fst_ctx *ctx, const char *path, int flags, const char *file, int line) {
	int fd = openat(ctx->workfd, path, flags | O_CLOEXEC, 0644);

	checkpoint(file, line);
	if (fd < 0)
		fst_fail_(ctx, file, line, "open %s: %s", path, fst_errname(errno));
	return fd;
}

static void mkdir_p1(struct fst_ctx *ctx, const char *path, const char *file, int line) {
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		fst_fail_(ctx, file, line, "mkdir %s: %s", path, fst_errname(errno));
}

/* Helper mounts live next to "mnt" (the filesystem under test) in scratch. */
static void check_scratch_name(struct fst_ctx *ctx, const char *name, const char *file, int line) {
	if (!*name || strchr(name, '/') || strcmp(name, "mnt") == 0 || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		fst_fail_(ctx, file, line,
			  "bad scratch mount name '%s' (reserved or not one component)", name);
}

const char *fst_mount_tmpfs_(struct fst_ctx *ctx, const char *name, const char *file, int line) {
	char *p;

	check_scratch_name(ctx, name, file, line);
	p = fst_strdupf(ctx, "%s/%s", ctx->scratch, name);

	mkdir_p1(ctx, p, file, line);
	if (mount("fsn-aux", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64m") < 0)
		fst_fail_(ctx, file, line, "mount tmpfs on %s: %s", p, fst_errname(errno));
	return p;
}

const char *fst_bind_(struct fst_ctx *ctx, const char *src, const char *name, const char *file,
		      int line) {
	char *s, *p;
	struct stat st;

	check_scratch_name(ctx, name, file, line);
	s = src[0] == '/' ? fst_strdupf(ctx, "%s", src) : fst_strdupf(ctx, "%s/%s", ctx->work, src);
	p = fst_strdupf(ctx, "%s/%s", ctx->scratch, name);

	if (stat(s, &st) < 0)
		fst_fail_(ctx, file, line, "bind source %s: %s", s, fst_errname(errno));
	if (S_ISDIR(st.st_mode))
		mkdir_p1(ctx, p, file, line);
	else {
		int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			fst_fail_(ctx, file, line, "bind target %s: %s", p, fst_errname(errno));
		close(fd);
	}
	if (mount(s, p, NULL, MS_BIND, NULL) < 0)
		fst_fail_(ctx, file, line, "bind mount %s on %s: %s", s, p, fst_errname(errno));
	return p;
}

/* ------------------------------------------------------------------------ */
/* Small file operations                                                    */
/* ------------------------------------------------------------------------ */

void fst_write1_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	checkpoint(file, line);
	if (write(fd, "x", 1) != 1)
		fst_fail_(ctx, file, line, "write(fd %d, 1 byte): %s", fd, fst_errname(errno));
}

void fst_read1_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	char b;

	checkpoint(file, line);
	if (pread(fd, &b, 1, 0) < 0)
		fst_fail_(ctx, file, line, "pread(fd %d, 1 byte): %s", fd, fst_errname(errno));
}

void fst_open_close_(struct fst_ctx *ctx, const char *path, int flags, const char *file, int line) {
	fst_close_(ctx, fst_open_(ctx, path, flags, file, line), file, line);
}

void fst_copy_true_(struct fst_ctx *ctx, const char *path, mode_t mode, const char *file,
		    int line) {
	static const char *const srcs[] = { "/bin/true", "/usr/bin/true" };
	char buf[65536];
	struct statvfs sv;
	int in = -1, out;
	ssize_t n;

	checkpoint(file, line);
	if (statvfs(ctx->work, &sv) < 0)
		fst_fail_(ctx, file, line, "statvfs %s: %s", ctx->work, fst_errname(errno));
	if (sv.f_flag & ST_NOEXEC)
		fst_fail_(ctx, file, line, "%s is mounted noexec: execve cannot be tested",
			  ctx->work);
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]) && in < 0; i++)
		in = open(srcs[i], O_RDONLY | O_CLOEXEC);
	if (in < 0)
		fst_skip(ctx, "no /bin/true to copy: %s", fst_errname(errno));
	out = openat(ctx->workfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		fst_fail_(ctx, file, line, "create %s: %s", path, fst_errname(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			fst_fail_(ctx, file, line, "copy /bin/true to %s: %s", path,
				  fst_errname(errno));
	if (n < 0)
		fst_fail_(ctx, file, line, "read /bin/true: %s", fst_errname(errno));
	close(in);
	if (fchmod(out, mode) < 0 || close(out) < 0)
		fst_fail_(ctx, file, line, "chmod/close %s: %s", path, fst_errname(errno));
}

int fst_queued_bytes_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	int n = 0;

	checkpoint(file, line);
	if (ioctl(fd, FIONREAD, &n) < 0)
		fst_fail_(ctx, file, line, "ioctl(fd %d, FIONREAD): %s", fd, fst_errname(errno));
	return n;
}

/* ------------------------------------------------------------------------ */
/* Groups and marks                                                         */
/* ------------------------------------------------------------------------ */

static void remember_fd(struct fst_ctx *ctx, int fd, enum fd_kind kind, unsigned flags) {
	if (fd >= 0 && fd < FST_MAX_FD) {
		ctx->priv->fds[fd].kind = kind;
		ctx->priv->fds[fd].init_flags = flags;
	}
}

int fst_fan_init_(struct fst_ctx *ctx, unsigned flags, unsigned event_f_flags, const char *file,
		  int line) {
	int fd = fanotify_init(flags | FAN_CLOEXEC | FAN_NONBLOCK, event_f_flags);

	checkpoint(file, line);
	if (fd < 0)
		fst_fail_(ctx, file, line, "fanotify_init(%s) failed: %s",
			  fst_mask_str(FSN_MASK_FANOTIFY_INIT, flags), fst_errname(errno));
	remember_fd(ctx, fd, FD_FANOTIFY, flags);
	return fd;
}

int fst_mark_err(struct fst_ctx *ctx, int fd, unsigned flags, uint64_t mask, const char *path) {
	if (fanotify_mark(fd, flags, mask, ctx->workfd, path) < 0)
		return -errno;
	return 0;
}

void fst_mark_(struct fst_ctx *ctx, int fd, unsigned flags, uint64_t mask, const char *path,
	       const char *file, int line) {
	int r = fst_mark_err(ctx, fd, flags, mask, path);

	checkpoint(file, line);
	if (r < 0)
		fst_fail_(ctx, file, line, "fanotify_mark(%s, %s, %s) failed: %s",
			  fst_mask_str(FSN_MASK_FANOTIFY_MARK, flags),
			  fst_mask_str(FSN_MASK_FANOTIFY_EVENT, mask), path ? path : "<work dir>",
			  fst_errname(r));
}

void fst_mark_expect_(struct fst_ctx *ctx, int fd, unsigned flags, uint64_t mask, const char *path,
		      int err, const char *flags_str, const char *mask_str, const char *file,
		      int line) {
	int r = fst_mark_err(ctx, fd, flags, mask, path);

	checkpoint(file, line);
	if (r != -err)
		fst_fail_(ctx, file, line, "fanotify_mark(%s, %s, %s) returned %s, expected %s",
			  flags_str, mask_str, path ? path : "NULL", r ? fst_errname(r) : "0",
			  err ? fst_errname(err) : "0");
}

int fst_inotify_(struct fst_ctx *ctx, const char *file, int line) {
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		fst_fail_(ctx, file, line, "inotify_init1: %s", fst_errname(errno));
	remember_fd(ctx, fd, FD_INOTIFY, 0);
	return fd;
}

int fst_watch_err(struct fst_ctx *ctx, int fd, const char *path, uint32_t mask) {
	int wd = inotify_add_watch(fd, path, mask);

	return wd < 0 ? -errno : wd;
}

int fst_watch_(struct fst_ctx *ctx, int fd, const char *path, uint32_t mask, const char *file,
	       int line) {
	int wd = fst_watch_err(ctx, fd, path, mask);

	checkpoint(file, line);
	if (wd < 0)
		fst_fail_(ctx, file, line, "inotify_add_watch(%s, %s) failed: %s", path,
			  fst_mask_str(FSN_MASK_INOTIFY_EVENT, mask), fst_errname(wd));
	return wd;
}

void fst_rm_watch_(struct fst_ctx *ctx, int fd, int wd, const char *file, int line) {
	checkpoint(file, line);
	if (inotify_rm_watch(fd, wd) < 0)
		fst_fail_(ctx, file, line, "inotify_rm_watch(%d) failed: %s", wd,
			  fst_errname(errno));
}

void fst_close_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	checkpoint(file, line);
	if (close(fd) < 0)
		fst_fail_(ctx, file, line, "close(%d) failed: %s", fd, fst_errname(errno));
	remember_fd(ctx, fd, FD_UNKNOWN, 0);
}

/* ------------------------------------------------------------------------ */
/* Object identity                                                          */
/* ------------------------------------------------------------------------ */

/* One open(O_PATH) of path, and everything else through that fd: the
 * inode, the fsid and the handle are of one object, whatever a symlink or
 * a concurrent rename does. */
static bool get_obj(struct fst_ctx *ctx, const char *path, bool follow, struct fst_obj *o,
		    int *err) {
	struct {
		struct file_handle fh;
		unsigned char bytes[FSN_HANDLE_MAX];
	} h;
	struct stat st;
	struct statfs sfs;
	int mnt_id, fd, r;

	memset(o, 0, sizeof(*o));
	snprintf(o->label, sizeof(o->label), "%s%s", path, follow ? "" : " (the symlink)");
	fd = openat(ctx->workfd, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		*err = errno;
		return false;
	}
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0) {
		*err = errno;
		close(fd);
		return false;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	h.fh.handle_bytes = FSN_HANDLE_MAX;
	r = name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH);
	if (r < 0 && errno == EOPNOTSUPP) {
		/* not exportable (ramfs, pipes): the identifying handle, which is
		 * what fanotify reports for such an object */
		h.fh.handle_bytes = FSN_HANDLE_MAX;
		r = name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH | AT_HANDLE_FID);
		o->fid_only = r == 0;
	}
	close(fd);
	if (r == 0 && h.fh.handle_bytes <= FSN_HANDLE_MAX) {
		o->has_fid = true;
		memcpy(o->fid.fsid, &sfs.f_fsid, sizeof(o->fid.fsid));
		o->fid.handle_bytes = h.fh.handle_bytes;
		o->fid.handle_type = h.fh.handle_type;
		memcpy(o->fid.f_handle, h.fh.f_handle, h.fh.handle_bytes);
	}
	return true;
}

struct fst_obj fst_obj_(struct fst_ctx *ctx, const char *path, bool follow, const char *file,
			int line) {
	struct fst_obj o;
	int err = 0;

	checkpoint(file, line);
	if (!get_obj(ctx, path, follow, &o, &err))
		fst_fail_(ctx, file, line, "stat %s: %s", path, fst_errname(err));
	return o;
}

static bool fid_equal(const struct fsn_fid *a, const struct fsn_fid *b) {
	return a->fsid[0] == b->fsid[0] && a->fsid[1] == b->fsid[1] &&
	       a->handle_bytes == b->handle_bytes && a->handle_type == b->handle_type &&
	       memcmp(a->f_handle, b->f_handle, a->handle_bytes) == 0;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

static enum fd_kind fd_kind_of(struct fst_ctx *ctx, int fd, unsigned *init_flags) {
	char proc[64], link[128];
	ssize_t n;

	if (fd >= 0 && fd < FST_MAX_FD && ctx->priv->fds[fd].kind != FD_UNKNOWN) {
		*init_flags = ctx->priv->fds[fd].init_flags;
		return ctx->priv->fds[fd].kind;
	}
	*init_flags = 0;
	if (fd < 0)
		return FD_UNKNOWN;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, link, sizeof(link) - 1);
	if (n < 0)
		return FD_UNKNOWN;
	link[n] = '\0';
	if (strstr(link, "fanotify"))
		return FD_FANOTIFY;
	if (strstr(link, "inotify"))
		return FD_INOTIFY;
	return FD_UNKNOWN;
}

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

	checkpoint(file, line);
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
	c->evs = ctx_calloc(ctx, 1, sizeof(*c->evs));
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
	c->evs->e = ctx_track(ctx, c->arr ? (void *)c->arr : calloc(1, sizeof(*c->arr)));
	return c->evs;
}

/* One read() into the case's buffer: bytes read, 0 for EAGAIN. */
static size_t read_once(struct fst_ctx *ctx, int fd, const char *file, int line) {
	struct fst_priv *pr = ctx->priv;

	if (!pr->readbuf)
		pr->readbuf = ctx_calloc(ctx, 1, FST_READ_BUF);
	for (;;) {
		ssize_t n = read(fd, pr->readbuf, FST_READ_BUF);

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
	enum fd_kind kind = fd_kind_of(ctx, fd, init_flags);
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
	while ((n = read_once(ctx, fd, file, line)) > 0)
		collect_buf(ctx, &c, ctx->priv->readbuf, n, true, keep_fds, file, line);
	return collect_done(ctx, &c);
}

struct fst_events *fst_read_batch_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	unsigned init_flags;
	enum fd_kind kind = group_of(ctx, fd, &init_flags, file, line);
	struct collect c;
	size_t n;

	collect_start(ctx, &c, kind == FD_INOTIFY, init_flags);
	n = read_once(ctx, fd, file, line);
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
	ctx_free(ctx, events->e);
	ctx_free(ctx, events);
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                 */
/* ------------------------------------------------------------------------ */

struct fst_exp fst_pre_access(const char *path, pid_t pid, uint64_t pos, uint64_t len) {
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = pos / pg * pg, end = (pos + len + pg - 1) / pg * pg;

	return (struct fst_exp){ .mask = FAN_PRE_ACCESS,
				 .path = path,
				 .pid = pid,
				 .range = true,
				 .range_offset = off,
				 .range_count = end - off };
}

/* An expected object: given (obj), or resolved from a path now. */
struct res {
	bool has, missing;
	struct fst_obj obj;
};

static void resolve(struct fst_ctx *ctx, const char *path, const struct fst_obj *given,
		    struct res *r) {
	int err;

	memset(r, 0, sizeof(*r));
	if (given) {
		r->has = true;
		r->obj = *given;
		return;
	}
	if (!path)
		return;
	r->has = true;
	if (!get_obj(ctx, path, true, &r->obj, &err)) {
		snprintf(r->obj.label, sizeof(r->obj.label), "%s (%s)", path, fst_errname(err));
		r->missing = true;
	}
}

/* The expected objects of one expectation. */
struct exp_resolved {
	struct res o, d, od, nd; /* object, dir, old dir, new dir */
};

enum { N_RES = 4 };

static const struct res *res_at(const struct exp_resolved *r, int k) {
	const struct res *all[N_RES] = { &r->o, &r->d, &r->od, &r->nd };

	return all[k];
}

static void fmt_fid(const struct fsn_fid *f, char *buf, size_t len) {
	size_t pos;

	pos = (size_t)snprintf(buf, len, "fsid %08x.%08x type %d ", (unsigned)f->fsid[0],
			       (unsigned)f->fsid[1], f->handle_type);
	for (uint32_t i = 0; i < f->handle_bytes && i < 24 && pos + 3 < len; i++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%02x", f->f_handle[i]);
	if (f->handle_bytes > 24 && pos + 4 < len)
		snprintf(buf + pos, len - pos, "...");
}

/* A label for an actual object: the expected object it equals, if any. */
static const char *label_for(const struct exp_resolved *res, size_t n, bool by_fid,
			     const struct fsn_fid *fid, dev_t dev, ino_t ino) {
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < N_RES; k++) {
			const struct res *r = res_at(&res[i], k);

			if (!r->has || r->missing)
				continue;
			if (by_fid ? (r->obj.has_fid && fid_equal(&r->obj.fid, fid))
				   : (r->obj.dev == dev && r->obj.ino == ino))
				return r->obj.label;
		}
	return NULL;
}

/* Info records that the matcher knows (FSN_HAS_*), as "FID+DFID+NAME". */
static const char *records_str(struct fst_ctx *ctx, uint32_t has) {
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = { { FSN_HAS_FID, "FID" },           { FSN_HAS_DFID, "DFID" },
		      { FSN_HAS_NAME, "NAME" },         { FSN_HAS_OLD, "OLD_DFID_NAME" },
		      { FSN_HAS_NEW, "NEW_DFID_NAME" }, { FSN_HAS_RANGE, "RANGE" },
		      { FSN_HAS_PIDFD, "PIDFD" },       { FSN_HAS_ERROR, "ERROR" },
		      { FSN_HAS_MNT, "MNT" },           { FSN_HAS_UNKNOWN_INFO, "UNKNOWN" } };
	char b[160] = "";
	size_t pos = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (has & names[i].bit)
			pos += (size_t)snprintf(b + pos, sizeof(b) - pos, "%s%s", pos ? "+" : "",
						names[i].name);
	return fst_strdupf(ctx, "%s", pos ? b : "none");
}

#define FST_DIRENT_MASK (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)
#define FST_KNOWN_RECORDS                                                                          \
	(FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_NAME | FSN_HAS_OLD | FSN_HAS_NEW | FSN_HAS_PIDFD |   \
	 FSN_HAS_ERROR | FSN_HAS_RANGE | FSN_HAS_MNT)

static bool fid_group(unsigned init_flags) {
	return init_flags & (FAN_REPORT_FID | FAN_REPORT_DIR_FID);
}

/*
 * A FAN_REPORT_DIR_FID group without FAN_REPORT_FID and FAN_REPORT_NAME
 * reports the parent of an event on a non-directory (no dirent bit, no
 * FAN_ONDIR) in a record of type FID: copy_info_records_to_user() picks
 * DFID for the single record only for dirent events and events on a
 * directory. fanotify_init(2) says DFID; id03_records_dir_fid and
 * id03_dir_fid_type_merge pin what the kernel does.
 */
static bool dir_in_fid_record(unsigned init_flags, uint64_t mask) {
	return (init_flags & FAN_REPORT_DIR_FID) &&
	       !(init_flags & (FAN_REPORT_FID | FAN_REPORT_NAME)) &&
	       !(mask & (FST_DIRENT_MASK | FAN_ONDIR));
}

/* The info records expectation x asks for (FSN_HAS_*). */
static uint32_t wanted_records(unsigned init_flags, const struct fst_exp *x,
			       const struct exp_resolved *r) {
	bool quirk = dir_in_fid_record(init_flags, x->mask);
	uint32_t want = 0;

	if (r->o.has && fid_group(init_flags))
		want |= FSN_HAS_FID;
	if (r->d.has)
		want |= quirk ? FSN_HAS_FID : FSN_HAS_DFID;
	if (x->name)
		want |= FSN_HAS_NAME;
	if (r->od.has || x->old_name)
		want |= FSN_HAS_OLD;
	if (r->nd.has || x->new_name)
		want |= FSN_HAS_NEW;
	if (x->range)
		want |= FSN_HAS_RANGE;
	if (init_flags & FAN_REPORT_PIDFD)
		want |= FSN_HAS_PIDFD;
	if (x->mask & FAN_FS_ERROR)
		want |= FSN_HAS_ERROR;
	if (init_flags & FAN_REPORT_MNT)
		want |= FSN_HAS_MNT;
	return want;
}

static uint32_t cared_records(const struct fst_exp *x) {
	uint32_t care = FST_KNOWN_RECORDS;

	if (x->any & FST_ANY_FID)
		care &= ~(uint32_t)FSN_HAS_FID;
	if (x->any & FST_ANY_DIR)
		care &= ~(uint32_t)FSN_HAS_DFID;
	if (x->any & FST_ANY_NAME)
		care &= ~(uint32_t)FSN_HAS_NAME;
	return care;
}

/* A name as a message: "\"n\"" or "none". */
static const char *qname(struct fst_ctx *ctx, const char *s) {
	char nb[300];

	return s ? fst_strdupf(ctx, "\"%s\"", fst_escape(s, nb, sizeof(nb))) : "none";
}

static bool name_eq(const char *a, const char *b) {
	return a ? b && strcmp(a, b) == 0 : !b;
}

/* A FID of the event (what) against an expected object. */
static bool fid_is(const struct fsn_fid *fid, const struct res *r, const char *what, char *why,
		   size_t wl) {
	if (r->missing) {
		snprintf(why, wl, "cannot resolve the expected object %s", r->obj.label);
		return false;
	}
	if (!r->obj.has_fid) {
		snprintf(why, wl, "the expected object %s has no file handle", r->obj.label);
		return false;
	}
	if (!fid_equal(fid, &r->obj.fid)) {
		snprintf(why, wl, "%s is not that of %s", what, r->obj.label);
		return false;
	}
	return true;
}

static const char *fd_str(struct fst_ctx *ctx, int fd) {
	if (fd == FAN_NOFD)
		return "FAN_NOFD";
	return fst_strdupf(ctx, "%d (-%s)", fd, fst_errname(fd));
}

static bool match_inotify(struct fst_ctx *ctx, const struct fst_events *evs, size_t i,
			  const struct fst_exp *x, char *why, size_t wl) {
	const struct fsn_event *ev = &evs->e[i].ev;

	if (x->path || x->obj || x->dir || x->dobj || x->old_dir || x->old_dobj || x->old_name ||
	    x->new_dir || x->new_dobj || x->new_name || x->range || x->pid || x->nofd ||
	    x->fd_error) {
		snprintf(why, wl, "(bad expectation) fanotify fields in an inotify expectation");
		return false;
	}
	if (!(x->any & FST_ANY_NAME) && !name_eq(ev->name, x->name)) {
		snprintf(why, wl, "name is %s, expected %s", qname(ctx, ev->name),
			 qname(ctx, x->name));
		return false;
	}
	if (x->wd != 0 && ev->wd != x->wd) {
		snprintf(why, wl, "wd is %d, expected %d", ev->wd, x->wd);
		return false;
	}
	if (x->cookie_of) {
		size_t k = (size_t)(x->cookie_of - 1);

		if (x->cookie_of < 0 || k >= i) {
			snprintf(why, wl,
				 "(bad expectation) cookie_of names event %d, not an earlier one",
				 x->cookie_of - 1);
			return false;
		}
		if (ev->cookie == 0 || ev->cookie != evs->e[k].ev.cookie) {
			snprintf(why, wl,
				 "cookie is %u, expected the non-zero cookie of event %zu (%u)",
				 ev->cookie, k, evs->e[k].ev.cookie);
			return false;
		}
	} else if (x->cookie) {
		if (ev->cookie != x->cookie) {
			snprintf(why, wl, "cookie is %u, expected %u", ev->cookie, x->cookie);
			return false;
		}
	} else if (ev->mask & (IN_MOVED_FROM | IN_MOVED_TO)) {
		if (ev->cookie == 0) {
			snprintf(why, wl, "cookie is 0, expected a non-zero one (a move)");
			return false;
		}
	} else if (ev->cookie != 0) {
		snprintf(why, wl, "cookie is %u, expected 0 (not a move)", ev->cookie);
		return false;
	}
	return true;
}

/* Compare event i of evs with x; on mismatch write why and return false. */
static bool match_one(struct fst_ctx *ctx, bool inotify, unsigned init_flags,
		      const struct fst_events *evs, size_t i, const struct fst_exp *x,
		      const struct exp_resolved *r, char *why, size_t wl) {
	const struct fst_event *e = &evs->e[i];
	const struct fsn_event *ev = &e->ev;
	enum fsn_mask_kind kmask = inotify ? FSN_MASK_INOTIFY_EVENT : FSN_MASK_FANOTIFY_EVENT;
	bool fidg = fid_group(init_flags);
	uint32_t want, got, care;
	char nb[300];

	if (ev->mask != x->mask) {
		snprintf(why, wl, "mask is %s, expected %s", fst_mask_str(kmask, ev->mask),
			 fst_mask_str(kmask, x->mask));
		return false;
	}
	if (inotify)
		return match_inotify(ctx, evs, i, x, why, wl);
	if (x->wd || x->cookie || x->cookie_of) {
		snprintf(why, wl, "(bad expectation) inotify fields in a fanotify expectation");
		return false;
	}

	/* the event fd */
	if (x->fd_error || x->nofd) {
		int want_fd = x->fd_error ? x->fd_error : FAN_NOFD;

		if (e->had_fd || ev->fd != want_fd) {
			snprintf(why, wl, "fd is %s, expected %s",
				 e->had_fd ? fst_strdupf(ctx, "an event fd (%s)",
							 fst_escape(short_path(ctx, e->fdpath), nb,
								    sizeof(nb)))
					   : fd_str(ctx, ev->fd),
				 fd_str(ctx, want_fd));
			return false;
		}
	} else if (fidg && e->had_fd) {
		snprintf(why, wl, "has an event fd (%s) in a FID-reporting group",
			 fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)));
		return false;
	} else if (!fidg && !e->had_fd) {
		snprintf(why, wl, "has no event fd (fd %s)", fd_str(ctx, ev->fd));
		return false;
	}

	/* the pid */
	if (x->pid != FST_ANY_PID) {
		pid_t want_pid = x->pid == 0 ? ctx->pid : x->pid == FST_PID_ZERO ? 0 : x->pid;

		if (ev->pid != want_pid) {
			snprintf(why, wl, "pid is %d, expected %d", (int)ev->pid, (int)want_pid);
			return false;
		}
	}

	/* which records */
	if (ev->has & FSN_HAS_UNKNOWN_INFO) {
		snprintf(why, wl, "carries an info record of an unknown type");
		return false;
	}
	want = wanted_records(init_flags, x, r);
	care = cared_records(x);
	got = ev->has & FST_KNOWN_RECORDS;
	if ((got & care) != (want & care)) {
		uint32_t extra = got & care & ~want, missing = want & care & ~got;

		snprintf(why, wl, "records are %s, expected %s (%s%s%s%s%s)", records_str(ctx, got),
			 records_str(ctx, want & care), extra ? "extra " : "",
			 extra ? records_str(ctx, extra) : "", extra && missing ? ", " : "",
			 missing ? "missing " : "", missing ? records_str(ctx, missing) : "");
		return false;
	}

	/* what they hold */
	if (r->o.has && !(x->any & FST_ANY_FID)) {
		if (fidg) {
			if (!fid_is(&ev->fid, &r->o, "the FID record", why, wl))
				return false;
		} else if (e->had_fd) {
			if (r->o.missing) {
				snprintf(why, wl, "cannot resolve the expected object %s",
					 r->o.obj.label);
				return false;
			}
			if (!e->has_stat || e->st.st_dev != r->o.obj.dev ||
			    e->st.st_ino != r->o.obj.ino) {
				snprintf(why, wl, "event fd is %s, expected %s",
					 fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)),
					 r->o.obj.label);
				return false;
			}
		}
	}
	if (r->d.has && !(x->any & FST_ANY_DIR)) {
		if (dir_in_fid_record(init_flags, x->mask)) {
			if (!fid_is(&ev->fid, &r->d,
				    "the FID record (a DIR_FID group's parent of a non-directory)",
				    why, wl))
				return false;
		} else if (!fid_is(&ev->dfid, &r->d, "the DFID record", why, wl))
			return false;
	}
	if (!(x->any & FST_ANY_NAME) && !name_eq(ev->name, x->name)) {
		snprintf(why, wl, "name is %s, expected %s", qname(ctx, ev->name),
			 qname(ctx, x->name));
		return false;
	}
	if (want & FSN_HAS_OLD) {
		if (r->od.has && !fid_is(&ev->old_dfid, &r->od, "the OLD_DFID_NAME dir", why, wl))
			return false;
		if (!name_eq(ev->old_name, x->old_name)) {
			snprintf(why, wl, "OLD_DFID_NAME name is %s, expected %s",
				 qname(ctx, ev->old_name), qname(ctx, x->old_name));
			return false;
		}
	}
	if (want & FSN_HAS_NEW) {
		if (r->nd.has && !fid_is(&ev->new_dfid, &r->nd, "the NEW_DFID_NAME dir", why, wl))
			return false;
		if (!name_eq(ev->new_name, x->new_name)) {
			snprintf(why, wl, "NEW_DFID_NAME name is %s, expected %s",
				 qname(ctx, ev->new_name), qname(ctx, x->new_name));
			return false;
		}
	}
	if (x->range &&
	    (ev->range_offset != x->range_offset || ev->range_count != x->range_count)) {
		snprintf(why, wl,
			 "RANGE is offset %llu count %llu, expected offset %llu count %llu",
			 (unsigned long long)ev->range_offset, (unsigned long long)ev->range_count,
			 (unsigned long long)x->range_offset, (unsigned long long)x->range_count);
		return false;
	}
	return true;
}

static void print_exp(struct fst_ctx *ctx, bool inotify, unsigned init_flags, size_t i,
		      const struct fst_exp *x, const struct exp_resolved *r) {
	char nb[300];

	if (inotify) {
		diag(ctx, "    [%zu] wd=%d %s", i, x->wd,
		     fst_mask_str(FSN_MASK_INOTIFY_EVENT, x->mask));
		if (x->cookie_of)
			diag(ctx, " cookie=(that of [%d])", x->cookie_of - 1);
		else if (x->cookie)
			diag(ctx, " cookie=%u", x->cookie);
	} else {
		diag(ctx, "    [%zu] %s", i, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, x->mask));
		if (x->fd_error)
			diag(ctx, " fd=%s", fd_str(ctx, x->fd_error));
		else if (x->nofd)
			diag(ctx, " fd=FAN_NOFD");
		if (r->o.has)
			diag(ctx, " obj=%s", r->o.obj.label);
		if (r->d.has)
			diag(ctx, " %s=%s",
			     dir_in_fid_record(init_flags, x->mask) ? "fid(dir)" : "dir",
			     r->d.obj.label);
		if (r->od.has || x->old_name)
			diag(ctx, " old=%s/%s", r->od.has ? r->od.obj.label : "?",
			     x->old_name ? fst_escape(x->old_name, nb, sizeof(nb)) : "");
		if (r->nd.has || x->new_name)
			diag(ctx, " new=%s/%s", r->nd.has ? r->nd.obj.label : "?",
			     x->new_name ? fst_escape(x->new_name, nb, sizeof(nb)) : "");
		if (x->range)
			diag(ctx, " range=%llu+%llu", (unsigned long long)x->range_offset,
			     (unsigned long long)x->range_count);
		if (x->pid == 0)
			diag(ctx, " pid=%d (self)", (int)ctx->pid);
		else if (x->pid == FST_PID_ZERO)
			diag(ctx, " pid=0");
		else if (x->pid != FST_ANY_PID)
			diag(ctx, " pid=%d", (int)x->pid);
		diag(ctx, " records=%s",
		     records_str(ctx, wanted_records(init_flags, x, r) & cared_records(x)));
	}
	if (x->name)
		diag(ctx, " name=\"%s\"", fst_escape(x->name, nb, sizeof(nb)));
	if (x->any)
		diag(ctx, " (not compared:%s%s%s)", x->any & FST_ANY_FID ? " FID" : "",
		     x->any & FST_ANY_DIR ? " DFID" : "", x->any & FST_ANY_NAME ? " name" : "");
	diag(ctx, "\n");
}

static void print_act(struct fst_ctx *ctx, bool inotify, size_t i, const struct fst_event *e,
		      const struct exp_resolved *res, size_t nres) {
	const struct fsn_event *ev = &e->ev;
	char nb[300], fb[160];
	const char *l;

	if (inotify) {
		diag(ctx, "    [%zu] wd=%d %s", i, ev->wd,
		     fst_mask_str(FSN_MASK_INOTIFY_EVENT, ev->mask));
		if (ev->cookie)
			diag(ctx, " cookie=%u", ev->cookie);
	} else {
		diag(ctx, "    [%zu] %s", i, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, ev->mask));
		if (e->had_fd) {
			diag(ctx, " fd=%s", fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)));
			if (e->has_stat) {
				l = label_for(res, nres, false, NULL, e->st.st_dev, e->st.st_ino);
				diag(ctx, " [dev %u:%u ino %llu%s%s]", major(e->st.st_dev),
				     minor(e->st.st_dev), (unsigned long long)e->st.st_ino,
				     l ? " = " : "", l ? l : "");
			}
		} else
			diag(ctx, " fd=%s", fd_str(ctx, ev->fd));
		if (ev->has & FSN_HAS_FID) {
			l = label_for(res, nres, true, &ev->fid, 0, 0);
			fmt_fid(&ev->fid, fb, sizeof(fb));
			diag(ctx, " fid=%s", l ? l : fb);
		}
		if (ev->has & FSN_HAS_DFID) {
			l = label_for(res, nres, true, &ev->dfid, 0, 0);
			fmt_fid(&ev->dfid, fb, sizeof(fb));
			diag(ctx, " dfid=%s", l ? l : fb);
		}
		if (ev->has & FSN_HAS_OLD) {
			l = label_for(res, nres, true, &ev->old_dfid, 0, 0);
			fmt_fid(&ev->old_dfid, fb, sizeof(fb));
			diag(ctx, " old=%s/%s", l ? l : fb,
			     fst_escape(ev->old_name, nb, sizeof(nb)));
		}
		if (ev->has & FSN_HAS_NEW) {
			l = label_for(res, nres, true, &ev->new_dfid, 0, 0);
			fmt_fid(&ev->new_dfid, fb, sizeof(fb));
			diag(ctx, " new=%s/%s", l ? l : fb,
			     fst_escape(ev->new_name, nb, sizeof(nb)));
		}
		if (ev->has & FSN_HAS_RANGE)
			diag(ctx, " range=%llu+%llu", (unsigned long long)ev->range_offset,
			     (unsigned long long)ev->range_count);
		if (ev->has & FSN_HAS_PIDFD)
			diag(ctx, " pidfd=%d", ev->pidfd);
		if (ev->has & FSN_HAS_ERROR)
			diag(ctx, " error=%d count=%u", (int)ev->error, ev->error_count);
		diag(ctx, " pid=%d%s", (int)ev->pid, ev->pid == ctx->pid ? " (self)" : "");
		diag(ctx, " records=%s", records_str(ctx, ev->has));
	}
	if (ev->name)
		diag(ctx, " name=\"%s\"", fst_escape(ev->name, nb, sizeof(nb)));
	diag(ctx, "\n");
}

/*
 * Set matching: every event matches one of the expectations and every
 * expectation is matched by an event. why gets the first event that
 * matches none, or the first expectation no event matched.
 */
static bool match_set(struct fst_ctx *ctx, bool inotify, unsigned init_flags,
		      const struct fst_events *evs, const struct fst_exp *exp,
		      const struct exp_resolved *res, size_t n, char *why, size_t wl) {
	bool *seen = ctx_calloc(ctx, n ? n : 1, sizeof(*seen));
	bool ok = true;
	char w[600], scratch[600];

	for (size_t i = 0; i < evs->n && ok; i++) {
		bool any = false;

		for (size_t k = 0; k < n; k++)
			if (match_one(ctx, inotify, init_flags, evs, i, &exp[k], &res[k],
				      k ? scratch : w, sizeof(w)))
				any = seen[k] = true;
		if (!any) {
			snprintf(why, wl,
				 "event %zu of %zu matches none of the expected events (against "
				 "[0]: %.400s)",
				 i, evs->n, w);
			ok = false;
		}
	}
	for (size_t k = 0; k < n && ok; k++)
		if (!seen[k]) {
			snprintf(why, wl, "no event matches expected event %zu", k);
			ok = false;
		}
	ctx_free(ctx, seen);
	return ok;
}

static void match_events(struct fst_ctx *ctx, int fd, const struct fst_events *events,
			 const struct fst_exp *exp, size_t n, bool ordered, const char *what,
			 const char *file, int line) {
	unsigned init_flags;
	enum fd_kind kind = fd_kind_of(ctx, fd, &init_flags);
	bool inotify = kind == FD_INOTIFY;
	struct exp_resolved *res;
	char why[600] = "";
	size_t bad = SIZE_MAX;

	if (kind == FD_UNKNOWN) { /* fst_decode()d events carry their group's flags */
		inotify = events->inotify;
		init_flags = events->init_flags;
	}
	res = ctx_calloc(ctx, n, sizeof(*res));
	for (size_t i = 0; i < n; i++) {
		resolve(ctx, exp[i].path, exp[i].obj, &res[i].o);
		resolve(ctx, exp[i].dir, exp[i].dobj, &res[i].d);
		resolve(ctx, exp[i].old_dir, exp[i].old_dobj, &res[i].od);
		resolve(ctx, exp[i].new_dir, exp[i].new_dobj, &res[i].nd);
	}
	if (ordered) {
		for (size_t i = 0; i < n && i < events->n; i++) {
			if (!match_one(ctx, inotify, init_flags, events, i, &exp[i], &res[i], why,
				       sizeof(why))) {
				bad = i;
				break;
			}
		}
	} else {
		for (size_t k = 0; k < n; k++)
			if (exp[k].cookie_of)
				fst_fail_(
				    ctx, file, line,
				    "(bad expectation) cookie_of needs the ordered FST_EXPECT");
		if (n &&
		    match_set(ctx, inotify, init_flags, events, exp, res, n, why, sizeof(why))) {
			ctx_free(ctx, res);
			return;
		}
		bad = 0;
	}
	if (bad == SIZE_MAX && n == events->n) {
		ctx_free(ctx, res);
		return;
	}

	diag(ctx, "%s:%d: %s (%s fd %d): expected %zu event%s%s:\n", file, line, what,
	     inotify ? "inotify" : "fanotify", fd, n, n == 1 ? "" : "s",
	     ordered ? "" : ", as a set (any order, repeats)");
	if (n == 0)
		diag(ctx, "    (none)\n");
	for (size_t i = 0; i < n; i++)
		print_exp(ctx, inotify, init_flags, i, &exp[i], &res[i]);
	diag(ctx, "  got %zu:\n", events->n);
	if (events->n == 0)
		diag(ctx, "    (none)\n");
	for (size_t i = 0; i < events->n; i++)
		print_act(ctx, inotify, i, &events->e[i], res, n);

	if (!ordered)
		fst_fail_(ctx, file, line, "%s: %s", what, n ? why : "(bad expectation) empty set");
	if (bad != SIZE_MAX)
		fst_fail_(ctx, file, line, "%s: event %zu of %zu: %s", what, bad, events->n, why);
	fst_fail_(ctx, file, line, "%s: expected %zu event%s, got %zu", what, n, n == 1 ? "" : "s",
		  events->n);
}

void fst_match_(struct fst_ctx *ctx, int fd, const struct fst_events *events,
		const struct fst_exp *exp, size_t n, const char *what, const char *file, int line) {
	match_events(ctx, fd, events, exp, n, true, what, file, line);
}

struct fst_events *fst_expect_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
			       const char *what, const char *file, int line) {
	struct fst_events *evs = fst_read_(ctx, fd, false, file, line);

	checkpoint(file, line);
	match_events(ctx, fd, evs, exp, n, true, what, file, line);
	return evs;
}

struct fst_events *fst_expect_set_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
				   const char *what, const char *file, int line) {
	struct fst_events *evs = fst_read_(ctx, fd, false, file, line);

	checkpoint(file, line);
	match_events(ctx, fd, evs, exp, n, false, what, file, line);
	return evs;
}

/* ------------------------------------------------------------------------ */
/* fdinfo                                                                   */
/* ------------------------------------------------------------------------ */

static int mnt_id_of(struct fst_ctx *ctx, const char *path, const char *file, int line) {
	struct statx stx;

	if (statx(ctx->workfd, path, 0, STATX_MNT_ID, &stx) < 0)
		fst_fail_(ctx, file, line, "statx(%s): %s", path, fst_errname(errno));
	if (!(stx.stx_mask & STATX_MNT_ID))
		fst_fail_(ctx, file, line, "statx(%s): no STATX_MNT_ID", path);
	return (int)stx.stx_mnt_id;
}

/*
 * The superblock's s_dev as fdinfo prints it (kernel dev_t: major << 20 |
 * minor), from the mount's line in /proc/self/mountinfo. Not st_dev: on
 * btrfs st_dev is the subvolume's anonymous device, not the sb's.
 */
static unsigned sb_kdev(struct fst_ctx *ctx, const char *path, const char *file, int line) {
	int id = mnt_id_of(ctx, path, file, line);
	unsigned ma, mi;
	char buf[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		fst_fail_(ctx, file, line, "open /proc/self/mountinfo: %s", fst_errname(errno));
	while (fgets(buf, sizeof(buf), f)) {
		int lid, parent;

		if (sscanf(buf, "%d %d %u:%u", &lid, &parent, &ma, &mi) == 4 && lid == id) {
			fclose(f);
			return (ma << 20) | mi;
		}
	}
	fclose(f);
	fst_fail_(ctx, file, line, "mount %d of %s not in /proc/self/mountinfo", id, path);
}

static void fdi_fmt(const struct fst_fdi *m, char *b, size_t len) {
	switch (m->kind) {
	case FST_FDI_INODE:
		snprintf(b, len, "fanotify ino:%llx sdev:%x mflags:%x mask:%x ignored_mask:%x%s%s",
			 m->ino, m->sdev, m->mflags, m->mask, m->ignored,
			 m->has_fh ? " f_handle:" : "", m->has_fh ? m->fh_hex : "");
		break;
	case FST_FDI_MOUNT:
		snprintf(b, len, "fanotify mnt_id:%x mflags:%x mask:%x ignored_mask:%x", m->mnt_id,
			 m->mflags, m->mask, m->ignored);
		break;
	case FST_FDI_SB:
		snprintf(b, len, "fanotify sdev:%x mflags:%x mask:%x ignored_mask:%x", m->sdev,
			 m->mflags, m->mask, m->ignored);
		break;
	default:
		snprintf(b, len, "inotify wd:%x ino:%llx sdev:%x mask:%x ignored_mask:%x%s%s",
			 m->wd, m->ino, m->sdev, m->mask, m->ignored, m->has_fh ? " f_handle:" : "",
			 m->has_fh ? m->fh_hex : "");
	}
}

/* " fhandle-bytes:%x fhandle-type:%x f_handle:%s" at the end of a line */
static bool parse_fh(const char *s, struct fst_fdi *m) {
	const char *p = strstr(s, " fhandle-bytes:");

	if (!p)
		return false;
	if (sscanf(p, " fhandle-bytes:%x fhandle-type:%x f_handle:%256s", &m->fh_bytes,
		   (unsigned *)&m->fh_type, m->fh_hex) != 3)
		return false;
	m->has_fh = true;
	return true;
}

size_t fst_fdinfo_read_(struct fst_ctx *ctx, int fd, struct fst_fdi *out, size_t max,
			const char *file, int line) {
	char path[64], buf[512];
	size_t n = 0;
	FILE *f;

	checkpoint(file, line);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		fst_fail_(ctx, file, line, "open %s: %s", path, fst_errname(errno));
	while (fgets(buf, sizeof(buf), f)) {
		struct fst_fdi m = { 0 };
		bool ok;

		buf[strcspn(buf, "\n")] = '\0';
		if (strncmp(buf, "fanotify flags:", 15) == 0)
			continue;
		if (strncmp(buf, "fanotify ino:", 13) == 0) {
			m.kind = FST_FDI_INODE;
			ok = sscanf(buf,
				    "fanotify ino:%llx sdev:%x mflags:%x mask:%x ignored_mask:%x",
				    &m.ino, &m.sdev, &m.mflags, &m.mask, &m.ignored) == 5 &&
			     parse_fh(buf, &m);
		} else if (strncmp(buf, "fanotify mnt_id:", 16) == 0) {
			m.kind = FST_FDI_MOUNT;
			ok = sscanf(buf, "fanotify mnt_id:%x mflags:%x mask:%x ignored_mask:%x",
				    (unsigned *)&m.mnt_id, &m.mflags, &m.mask, &m.ignored) == 4;
		} else if (strncmp(buf, "fanotify sdev:", 14) == 0) {
			m.kind = FST_FDI_SB;
			ok = sscanf(buf, "fanotify sdev:%x mflags:%x mask:%x ignored_mask:%x",
				    &m.sdev, &m.mflags, &m.mask, &m.ignored) == 4;
		} else if (strncmp(buf, "inotify wd:", 11) == 0) {
			m.kind = FST_FDI_WATCH;
			ok = sscanf(buf, "inotify wd:%x ino:%llx sdev:%x mask:%x ignored_mask:%x",
				    (unsigned *)&m.wd, &m.ino, &m.sdev, &m.mask, &m.ignored) == 5 &&
			     parse_fh(buf, &m);
		} else if (strncmp(buf, "fanotify ", 9) == 0 || strncmp(buf, "inotify ", 8) == 0) {
			ok = false;
		} else
			continue; /* pos:, flags:, mnt_id:, ino: of the group file itself */
		if (!ok) {
			fclose(f);
			fst_fail_(ctx, file, line, "fd %d: unexpected fdinfo line \"%s\"", fd, buf);
		}
		if (n == max) {
			fclose(f);
			fst_fail_(ctx, file, line, "fd %d: more than %zu marks in fdinfo", fd, max);
		}
		out[n++] = m;
	}
	fclose(f);
	return n;
}

#define FST_FDI_MAX 16

bool fst_fdinfo_find_(struct fst_ctx *ctx, int fd, unsigned long long ino, struct fst_fdi *out,
		      const char *file, int line) {
	struct fst_fdi all[FST_FDI_MAX];
	size_t n = fst_fdinfo_read_(ctx, fd, all, FST_FDI_MAX, file, line);

	for (size_t i = 0; i < n; i++)
		if ((all[i].kind == FST_FDI_INODE || all[i].kind == FST_FDI_WATCH) &&
		    all[i].ino == ino) {
			if (out)
				*out = all[i];
			return true;
		}
	return false;
}

struct fst_fdi fst_fdi_inode_(struct fst_ctx *ctx, const char *path, bool follow, unsigned mflags,
			      unsigned mask, unsigned ignored, const char *file, int line) {
	struct fst_fdi m = {
		.kind = FST_FDI_INODE, .mflags = mflags, .mask = mask, .ignored = ignored
	};
	struct fst_obj o = fst_obj_(ctx, path, follow, file, line);

	if (!o.has_fid)
		fst_fail_(ctx, file, line, "%s: no file handle", path);
	m.ino = o.ino;
	m.sdev = sb_kdev(ctx, path, file, line);
	m.has_fh = true;
	m.fh_bytes = o.fid.handle_bytes;
	m.fh_type = o.fid.handle_type;
	for (unsigned i = 0; i < o.fid.handle_bytes; i++)
		snprintf(m.fh_hex + 2 * i, 3, "%02x", o.fid.f_handle[i]);
	snprintf(m.label, sizeof(m.label), "inode %s", o.label);
	return m;
}

struct fst_fdi fst_fdi_watch_(struct fst_ctx *ctx, int wd, const char *path, bool follow,
			      unsigned mask, const char *file, int line) {
	struct fst_fdi m = fst_fdi_inode_(ctx, path, follow, 0, mask, 0, file, line);

	m.kind = FST_FDI_WATCH;
	m.wd = wd;
	snprintf(m.label, sizeof(m.label), "watch %d on %s", wd, path);
	return m;
}

struct fst_fdi fst_fdi_mount_(struct fst_ctx *ctx, const char *path, unsigned mflags, unsigned mask,
			      unsigned ignored, const char *file, int line) {
	struct fst_fdi m = {
		.kind = FST_FDI_MOUNT, .mflags = mflags, .mask = mask, .ignored = ignored
	};

	m.mnt_id = mnt_id_of(ctx, path, file, line);
	snprintf(m.label, sizeof(m.label), "mount of %s", path);
	return m;
}

struct fst_fdi fst_fdi_sb_(struct fst_ctx *ctx, const char *path, unsigned mflags, unsigned mask,
			   unsigned ignored, const char *file, int line) {
	struct fst_fdi m = {
		.kind = FST_FDI_SB, .mflags = mflags, .mask = mask, .ignored = ignored
	};

	m.sdev = sb_kdev(ctx, path, file, line);
	snprintf(m.label, sizeof(m.label), "filesystem of %s", path);
	return m;
}

static bool fdi_eq(const struct fst_fdi *a, const struct fst_fdi *b) {
	if (a->kind != b->kind || a->mflags != b->mflags || a->mask != b->mask ||
	    a->ignored != b->ignored)
		return false;
	switch (a->kind) {
	case FST_FDI_MOUNT: return a->mnt_id == b->mnt_id;
	case FST_FDI_SB: return a->sdev == b->sdev;
	case FST_FDI_WATCH:
		if (a->wd != b->wd)
			return false;
		/* fall through */
	default:
		return a->ino == b->ino && a->sdev == b->sdev && a->has_fh == b->has_fh &&
		       a->fh_bytes == b->fh_bytes && a->fh_type == b->fh_type &&
		       strcmp(a->fh_hex, b->fh_hex) == 0;
	}
}

void fst_expect_fdinfo_(struct fst_ctx *ctx, int fd, bool all, const struct fst_fdi *exp, size_t n,
			const char *file, int line) {
	struct fst_fdi act[FST_FDI_MAX];
	bool used[FST_FDI_MAX] = { false };
	size_t na = fst_fdinfo_read_(ctx, fd, act, FST_FDI_MAX, file, line);
	size_t bad = SIZE_MAX;
	char b[400];

	for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
		size_t j;

		for (j = 0; j < na; j++)
			if (!used[j] && fdi_eq(&exp[i], &act[j]))
				break;
		if (j == na)
			bad = i;
		else
			used[j] = true;
	}
	if (bad == SIZE_MAX && (!all || na == n))
		return;
	fst_log(ctx, "%s:%d: fdinfo of fd %d: expected %s%zu mark%s:", file, line, fd,
		all ? "" : "at least ", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		fdi_fmt(&exp[i], b, sizeof(b));
		fst_log(ctx, "    [%zu] %s  (%s)", i, b, exp[i].label);
	}
	fst_log(ctx, "  got %zu:", na);
	for (size_t j = 0; j < na; j++) {
		fdi_fmt(&act[j], b, sizeof(b));
		fst_log(ctx, "    [%zu] %s", j, b);
	}
	if (bad != SIZE_MAX)
		fst_fail_(ctx, file, line, "fdinfo of fd %d: no line for expected [%zu] %s", fd,
			  bad, exp[bad].label);
	fst_fail_(ctx, file, line, "fdinfo of fd %d: %zu mark lines, expected %zu", fd, na, n);
}

/* ------------------------------------------------------------------------ */
/* Children                                                                 */
/* ------------------------------------------------------------------------ */

static void close_all_but(int a, int b) {
	int keep[2] = { a < b ? a : b, a < b ? b : a };
	unsigned from = 3;

	for (int i = 0; i < 2; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from && close_range(from, (unsigned)keep[i] - 1, 0) < 0)
			for (int fd = (int)from; fd < keep[i]; fd++)
				close(fd);
		from = (unsigned)keep[i] + 1;
	}
	if (close_range(from, ~0U, 0) < 0)
		for (int fd = (int)from; fd < 4096; fd++)
			close(fd);
}

static void child_close_fds(struct fst_child *c) {
	if (c->rfd >= 0)
		close(c->rfd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->rfd = -1;
	c->pidfd = -1;
}

/* A reaped child's slot is free again (its struct stays valid). */
static void child_release(struct fst_ctx *ctx, struct fst_child *c) {
	struct fst_priv *pr = ctx->priv;

	child_close_fds(c);
	for (size_t i = 0; i < pr->n_children; i++)
		if (pr->children[i] == c) {
			pr->children[i] = pr->children[--pr->n_children];
			return;
		}
}

struct fst_child *fst_spawn_(struct fst_ctx *ctx, const char *what, fst_child_fn fn, void *arg,
			     int keep_fd, const char *file, int line) {
	struct fst_priv *pr = ctx->priv;
	struct fst_child *c;
	int p[2];
	pid_t pid;

	checkpoint(file, line);
	if (pr->n_children >= FST_MAX_CHILDREN) /* children the case reaped itself */
		for (size_t i = pr->n_children; i-- > 0;)
			if (pr->children[i]->reaped)
				child_release(ctx, pr->children[i]);
	if (pr->n_children >= FST_MAX_CHILDREN)
		fst_fail_(ctx, file, line, "more than %d children alive", FST_MAX_CHILDREN);
	c = ctx_calloc(ctx, 1, sizeof(*c));
	snprintf(c->what, sizeof(c->what), "%s", what);
	c->rfd = c->pidfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		fst_fail_(ctx, file, line, "pipe2: %s", fst_errname(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fst_fail_(ctx, file, line, "fork: %s", fst_errname(errno));
	if (pid == 0) {
		int r;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		close_all_but(p[1], keep_fd);
		r = fn(arg);
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	c->pid = pid;
	c->rfd = p[0];
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	pr->children[pr->n_children++] = c;
	fst_log(ctx, "spawned %s: pid %d", c->what, (int)pid);
	return c;
}

struct open_arg {
	char path[PATH_MAX];
	int flags;
	int fd;
	bool read;
};

static int child_open(void *arg) {
	struct open_arg *a = arg;
	char b;
	int fd = open(a->path, a->flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (a->read && read(fd, &b, 1) < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int child_read_fd(void *arg) {
	struct open_arg *a = arg;
	char b;

	if (pread(a->fd, &b, 1, 0) < 0)
		return errno;
	return 0;
}

static int child_exec(void *arg) {
	struct open_arg *a = arg;
	char *argv[] = { a->path, NULL };
	char *envp[] = { NULL };

	execve(a->path, argv, envp);
	return errno;
}

struct fst_child *fst_spawn_open_(struct fst_ctx *ctx, const char *path, int flags,
				  const char *file, int line) {
	struct open_arg a = { .flags = flags };

	snprintf(a.path, sizeof(a.path), "%s", path);
	return fst_spawn_(ctx, fst_strdupf(ctx, "open(%s)", path), child_open, &a, -1, file, line);
}

struct fst_child *fst_spawn_read_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line) {
	struct open_arg a = { .flags = O_RDONLY, .read = true };

	snprintf(a.path, sizeof(a.path), "%s", path);
	return fst_spawn_(ctx, fst_strdupf(ctx, "open+read(%s)", path), child_open, &a, -1, file,
			  line);
}

struct fst_child *fst_spawn_read_fd_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	struct open_arg a = { .fd = fd };

	return fst_spawn_(ctx, fst_strdupf(ctx, "read(fd %d)", fd), child_read_fd, &a, fd, file,
			  line);
}

struct fst_child *fst_spawn_exec_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line) {
	struct open_arg a = { 0 };
	struct fst_child *c;

	snprintf(a.path, sizeof(a.path), "%s", path);
	c = fst_spawn_(ctx, fst_strdupf(ctx, "execve(%s)", path), child_exec, &a, -1, file, line);
	c->exec = true;
	return c;
}

static int elapsed_ms(const struct timespec *t0) {
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

static const char *status_str(struct fst_ctx *ctx, int status) {
	if (WIFEXITED(status))
		return fst_strdupf(ctx, "exit status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return fst_strdupf(ctx, "killed by signal %d", WTERMSIG(status));
	return fst_strdupf(ctx, "wait status 0x%x", status);
}

int fst_child_wait_(struct fst_ctx *ctx, struct fst_child *c, int ms, const char *file, int line) {
	struct timespec t0;
	int r;

	checkpoint(file, line);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!c->done) {
		struct pollfd p = { .fd = c->rfd, .events = POLLIN };
		ssize_t n;

		do
			r = poll(&p, 1, ms);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			fst_fail_(ctx, file, line, "child %s still blocked after %d ms", c->what,
				  ms);
		n = read(c->rfd, &c->result, sizeof(c->result));
		if (n == 0)
			c->no_result =
			    true; /* exec succeeded (the pipe was O_CLOEXEC), or it died */
		else if (n != sizeof(c->result))
			fst_fail_(ctx, file, line, "child %s: bad result (%zd bytes)", c->what, n);
		c->done = true;
		close(c->rfd);
		c->rfd = -1;
	}
	if (!c->reaped) {
		if (c->pidfd >= 0) {
			struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
			int left = ms - elapsed_ms(&t0);

			do
				r = poll(&p, 1, left > 0 ? left : 0);
			while (r < 0 && errno == EINTR);
			if (r == 0)
				fst_fail_(ctx, file, line, "child %s did not exit within %d ms",
					  c->what, ms);
		}
		if (waitpid(c->pid, &c->status, 0) < 0)
			fst_fail_(ctx, file, line, "waitpid(%s): %s", c->what, fst_errname(errno));
		c->reaped = true;
		child_release(ctx, c);
	}
	/* the result counts only if the child then exited normally */
	if (WIFSIGNALED(c->status))
		fst_fail_(ctx, file, line, "child %s killed by signal %d", c->what,
			  WTERMSIG(c->status));
	if (c->no_result) {
		/* no result: only an execve that ran its program, which exited 0 */
		if (!c->exec)
			fst_fail_(ctx, file, line, "child %s ended without a result (%s)", c->what,
				  status_str(ctx, c->status));
		if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
			fst_fail_(ctx, file, line,
				  "child %s: the exec succeeded, but the program ended with %s, "
				  "expected exit status 0",
				  c->what, status_str(ctx, c->status));
		c->result = 0;
	} else if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
		fst_fail_(ctx, file, line, "child %s: %s after its result", c->what,
			  status_str(ctx, c->status));
	fst_log(ctx, "child %s: result %s", c->what, fst_errname(c->result));
	return c->result;
}

void fst_child_expect_(struct fst_ctx *ctx, struct fst_child *c, int err, const char *file,
		       int line) {
	int r = fst_child_wait_(ctx, c, FST_WAIT_MS, file, line);

	if (r != err)
		fst_fail_(ctx, file, line, "child %s: result %s, expected %s", c->what,
			  fst_errname(r), fst_errname(err));
}

void fst_child_kill_(struct fst_ctx *ctx, struct fst_child *c, const char *file, int line) {
	checkpoint(file, line);
	if (c->reaped)
		return;
	if (kill(c->pid, SIGKILL) < 0)
		fst_fail_(ctx, file, line, "kill(%s): %s", c->what, fst_errname(errno));
	if (waitpid(c->pid, &c->status, 0) < 0)
		fst_fail_(ctx, file, line, "waitpid(%s): %s", c->what, fst_errname(errno));
	c->reaped = true;
	c->done = true;
	child_release(ctx, c);
}

/* Up to len - 1 bytes of a small file, NUL-terminated ("" when unreadable). */
static void read_small(const char *path, char *buf, size_t len) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[r > 0 ? r : 0] = '\0';
}

char fst_task_state(pid_t pid, pid_t tid, char *wchan, size_t wlen) {
	char p[64], b[512], *rp;

	if (tid)
		snprintf(p, sizeof(p), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	else
		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	read_small(p, b, sizeof(b));
	rp = strrchr(b, ')');
	if (!rp || !rp[1] || !rp[2])
		return 0;
	memcpy(p + strlen(p) - 4, "wchan", 6);
	read_small(p, wchan, wlen);
	return rp[2];
}

bool fst_wchan_numeric(const char *w) {
	return w[0] == '\0' || strncmp(w, "0x", 2) == 0 || (w[0] >= '0' && w[0] <= '9');
}

/* How many tasks of pid sleep in fanotify's wait for a permission response:
 * state D (TASK_KILLABLE) with wchan in fanotify code. A kernel without
 * symbolic wchan ("0x..." or a bare address) counts on state D alone.
 * Writes the tasks' "tid:state/wchan" into state; -1 if pid is gone. */
static int n_waiting(pid_t pid, char *state, size_t slen) {
	char p[PATH_MAX], w[128];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	if (!d) {
		snprintf(state, slen, "gone");
		return -1;
	}
	state[0] = '\0';
	while ((de = readdir(d))) {
		char st;

		if (de->d_name[0] == '.')
			continue;
		st = fst_task_state(pid, atoi(de->d_name), w, sizeof(w));
		if (!st)
			continue;
		snprintf(state + strlen(state), slen - strlen(state), "%s%s:%c/%s",
			 state[0] ? " " : "", de->d_name, st, w[0] ? w : "?");
		if (st == 'D' && (strncmp(w, "fanotify", 8) == 0 || fst_wchan_numeric(w)))
			n++;
	}
	closedir(d);
	return n;
}

void fst_child_blocked_(struct fst_ctx *ctx, struct fst_child *c, int n, const char *file,
			int line) {
	char state[512] = "";
	struct timespec t0;
	int got = -1;

	checkpoint(file, line);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = c->rfd, .events = POLLIN };

		if (c->done || poll(&p, 1, 0) != 0)
			fst_fail_(ctx, file, line,
				  "child %s is not blocked: it finished before the response",
				  c->what);
		got = n_waiting(c->pid, state, sizeof(state));
		if (got == n)
			return;
		if (elapsed_ms(&t0) >= FST_WAIT_MS)
			break;
		/* 1 ms steps up to the deadline; returns at once if the child
		 * produces its result meanwhile */
		poll(&p, 1, 1);
	}
	fst_fail_(ctx, file, line,
		  "child %s: %d task(s) waiting for a permission response after %d ms, expected "
		  "%d (tasks: %s)",
		  c->what, got, FST_WAIT_MS, n, state);
}

void fst_child_not_blocked_(struct fst_ctx *ctx, struct fst_child *c, int g, const char *file,
			    int line) {
	struct pollfd p[2] = { { .fd = g, .events = POLLIN }, { .fd = c->rfd, .events = POLLIN } };
	int r;

	checkpoint(file, line);
	if (!c->done) {
		do
			r = poll(p, 2, FST_WAIT_MS);
		while (r < 0 && errno == EINTR);
		if (p[0].revents & POLLIN)
			fst_expect_(ctx, g, NULL, 0, "group that must not be asked", file, line);
	}
	fst_child_expect_(ctx, c, 0, file, line);
	fst_expect_(ctx, g, NULL, 0, "group that must not be asked", file, line);
}

/* ------------------------------------------------------------------------ */
/* Permission events                                                        */
/* ------------------------------------------------------------------------ */

void fst_respond_(struct fst_ctx *ctx, int fanfd, struct fst_event *e, uint32_t response,
		  const char *file, int line) {
	struct fanotify_response r = { .fd = e->ev.fd, .response = response };

	checkpoint(file, line);
	if (e->ev.fd < 0)
		fst_fail_(ctx, file, line, "fst_respond: the event has no open fd (mask %s)",
			  fst_mask_str(FSN_MASK_FANOTIFY_EVENT, e->ev.mask));
	if (write(fanfd, &r, sizeof(r)) != sizeof(r))
		fst_fail_(ctx, file, line, "writing response 0x%x for fd %d: %s", response,
			  e->ev.fd, fst_errname(errno));
	close(e->ev.fd);
	e->ev.fd = -1;
}

struct fst_event *fst_perm_event_(struct fst_ctx *ctx, int g, struct fst_child *c,
				  const struct fst_exp *x, const int *quiet, size_t nquiet,
				  const char *file, int line) {
	struct fst_events *e;

	fst_wait_readable_(ctx, g, FST_WAIT_MS, file, line);
	e = fst_expect_(ctx, g, x, 1, "permission group", file, line);
	for (size_t i = 0; i < nquiet; i++)
		fst_expect_(ctx, quiet[i], NULL, 0, "another group while the child waits", file,
			    line);
	fst_child_blocked_(ctx, c, 1, file, line);
	return &e->e[0];
}

#define FST_MAX_GROUPS 16

size_t fst_wait_any_(struct fst_ctx *ctx, const int *gs, size_t n, const char *file, int line) {
	struct pollfd p[FST_MAX_GROUPS];
	int r;

	checkpoint(file, line);
	if (n > FST_MAX_GROUPS)
		fst_fail_(ctx, file, line, "fst_wait_any: more than %d groups", FST_MAX_GROUPS);
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = gs[i], .events = POLLIN };
	do
		r = poll(p, n, FST_WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		fst_fail_(ctx, file, line, "poll: %s", fst_errname(errno));
	for (size_t i = 0; i < n && r > 0; i++)
		if (p[i].revents & POLLIN)
			return i;
	fst_fail_(ctx, file, line, "no event in any of %zu groups within %d ms", n, FST_WAIT_MS);
}

/* FAN_CLASS_* of a group: the order in which permission groups are asked. */
static unsigned group_class(struct fst_ctx *ctx, int fd) {
	unsigned flags;

	fd_kind_of(ctx, fd, &flags);
	return flags & (FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT);
}

static const char *class_str(unsigned cl) {
	return cl == FAN_CLASS_PRE_CONTENT ? "PRE_CONTENT"
	       : cl == FAN_CLASS_CONTENT   ? "CONTENT"
					   : "NOTIF";
}

void fst_allow_all_(struct fst_ctx *ctx, struct fst_child *c, const int *gs, size_t n,
		    const struct fst_exp *x, const char *file, int line) {
	bool done[FST_MAX_GROUPS] = { false };
	int quiet[FST_MAX_GROUPS];

	if (n > FST_MAX_GROUPS)
		fst_fail_(ctx, file, line, "fst_allow_all: more than %d groups", FST_MAX_GROUPS);
	for (size_t k = 0; k < n; k++) {
		size_t i = fst_wait_any_(ctx, gs, n, file, line), nq = 0;

		if (done[i]) /* asked twice: fails, listing the event */
			fst_expect_(ctx, gs[i], NULL, 0, "group asked a second time", file, line);
		for (size_t j = 0; j < n; j++) {
			if (!done[j] && group_class(ctx, gs[j]) > group_class(ctx, gs[i]))
				fst_fail_(ctx, file, line,
					  "child %s: group %zu (%s) asked before group %zu (%s)",
					  c->what, i, class_str(group_class(ctx, gs[i])), j,
					  class_str(group_class(ctx, gs[j])));
			if (j != i)
				quiet[nq++] = gs[j];
		}
		fst_respond_(ctx, gs[i], fst_perm_event_(ctx, gs[i], c, x, quiet, nq, file, line),
			     FAN_ALLOW, file, line);
		done[i] = true;
	}
	fst_child_expect_(ctx, c, 0, file, line);
	for (size_t i = 0; i < n; i++)
		fst_expect_(ctx, gs[i], NULL, 0, "permission group after the answers", file, line);
}

/* ------------------------------------------------------------------------ */
/* Fixture                                                                  */
/* ------------------------------------------------------------------------ */

static void setup(struct fst_ctx *ctx) {
	const struct fst_fs_env *env = ctx->priv->env;
	char *mnt, *tmpl;

	if (unshare(CLONE_NEWNS) < 0)
		fst_fail(ctx, "setup: unshare(CLONE_NEWNS): %s", fst_errname(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fst_fail(ctx, "setup: making / private: %s", fst_errname(errno));
	/* A fresh scratch tmpfs over the run's base directory, visible only in
	 * this namespace: helper mounts and the test mount point live there. */
	if (mount("fsn-scratch", env->base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") <
	    0)
		fst_fail(ctx, "setup: mount scratch tmpfs on %s: %s", env->base,
			 fst_errname(errno));
	ctx->scratch = env->base;
	mnt = fst_strdupf(ctx, "%s/mnt", env->base);
	if (mkdir(mnt, 0755) < 0)
		fst_fail(ctx, "setup: mkdir %s: %s", mnt, fst_errname(errno));
	if (!env->dev) {
		if (mount("fsn-test", mnt, "tmpfs", 0, "mode=0755,size=256m") < 0)
			fst_fail(ctx, "setup: mount tmpfs on %s: %s", mnt, fst_errname(errno));
	} else if (mount(env->dev, mnt, env->fstype, 0, NULL) < 0)
		fst_fail(ctx, "setup: mount %s (%s) on %s: %s", env->dev, env->fstype, mnt,
			 fst_errname(errno));
	ctx->mnt = mnt;
	tmpl = fst_strdupf(ctx, "%s/%s.XXXXXX", mnt, ctx->tc->name);
	if (!mkdtemp(tmpl))
		fst_fail(ctx, "setup: mkdtemp %s: %s", tmpl, fst_errname(errno));
	ctx->work = tmpl;
	ctx->workfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ctx->workfd < 0 || chdir(tmpl) < 0)
		fst_fail(ctx, "setup: open/chdir %s: %s", tmpl, fst_errname(errno));
	ctx->pid = getpid();
	if (env->verbose)
		fst_log(ctx, "%s: work directory %s (pid %d)", ctx->fs, ctx->work, (int)ctx->pid);
}

static void teardown(struct fst_ctx *ctx) {
	struct fst_priv *pr = ctx->priv;

	kill_children(ctx);
	for (size_t i = 0; i < pr->n_children; i++) {
		struct fst_child *c = pr->children[i];

		if (c->rfd >= 0)
			close(c->rfd);
		if (c->pidfd >= 0)
			close(c->pidfd);
	}
	if (ctx->workfd >= 0)
		close(ctx->workfd);
	for (size_t i = 0; i < pr->n_allocs; i++)
		free(pr->allocs[i]);
	free(pr->allocs);
	pr->allocs = NULL;
	pr->n_allocs = 0;
}

void fst_run_case(const struct fst_case *tc, const struct fst_fs_env *env,
		  struct fst_shared *shared) {
	struct fst_priv *pr = calloc(1, sizeof(*pr));
	struct fst_ctx ctx = {
		.tc = tc,
		.fs = env->fs,
		.workfd = -1,
		.scratch = env->base,
		.work = "",
		.probe = env->probe,
		.verbose = env->verbose,
		.priv = pr,
	};

	if (!pr)
		ck_abort_msg("out of memory");
	pr->env = env;
	pr->shared = shared;
	cur_ctx = &ctx;
	setup(&ctx);
	tc->fn(&ctx);
	teardown(&ctx);
	cur_ctx = NULL;
	free(pr);
}
