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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selftest.h"

#define FST_MAX_FD 1024
#define FST_MAX_CHILDREN 64
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
	struct fst_child *children[FST_MAX_CHILDREN];
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

void fst_require_(struct fst_ctx *ctx, enum fsn_feature f, const char *file, int line) {
	const struct fsn_feature_result *r;
	char reason[512];

	if ((unsigned)f >= _FSN_FEAT_MAX)
		fst_fail_(ctx, file, line, "fst_require: unknown feature %d", (int)f);
	if (!ctx->probe) {
		snprintf(reason, sizeof(reason), "needs %s: feature probe failed on %s: %s",
			 fsn_feature_description(f), ctx->fs, ctx->priv->env->probe_error);
		skip_with(ctx, FST_SKIP_OTHER, reason);
	}
	r = &ctx->probe->feat[f];
	if (r->support == FSN_SUPPORTED)
		return;
	snprintf(reason, sizeof(reason), "needs %s: %s (%s)", fsn_feature_description(f),
		 fsn_support_name(r->support), fst_errname(r->error));
	/* Only "the kernel or this filesystem cannot" is a feature skip; a
	 * probe that failed for another reason must not hide a case. */
	if (r->support == FSN_UNSUPPORTED_KERNEL || r->support == FSN_UNSUPPORTED_FS)
		skip_with(ctx, FST_SKIP_FEATURE, reason);
	skip_with(ctx, FST_SKIP_OTHER, reason);
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

static bool get_obj(struct fst_ctx *ctx, const char *path, struct fst_obj *o, int *err) {
	struct {
		struct file_handle fh;
		unsigned char bytes[FSN_HANDLE_MAX];
	} h;
	struct stat st;
	struct statfs sfs;
	int mnt_id;

	memset(o, 0, sizeof(*o));
	snprintf(o->label, sizeof(o->label), "%s", path);
	if (fstatat(ctx->workfd, path, &st, 0) < 0) {
		*err = errno;
		return false;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	h.fh.handle_bytes = FSN_HANDLE_MAX;
	if (name_to_handle_at(ctx->workfd, path, &h.fh, &mnt_id, 0) == 0 &&
	    statfs(path, &sfs) == 0 && h.fh.handle_bytes <= FSN_HANDLE_MAX) {
		o->has_fid = true;
		memcpy(o->fid.fsid, &sfs.f_fsid, sizeof(o->fid.fsid));
		o->fid.handle_bytes = h.fh.handle_bytes;
		o->fid.handle_type = h.fh.handle_type;
		memcpy(o->fid.f_handle, h.fh.f_handle, h.fh.handle_bytes);
	}
	return true;
}

struct fst_obj fst_obj_(struct fst_ctx *ctx, const char *path, const char *file, int line) {
	struct fst_obj o;
	int err = 0;

	if (!get_obj(ctx, path, &o, &err))
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

struct fst_events *fst_read_(struct fst_ctx *ctx, int fd, bool keep_fds, const char *file,
			     int line) {
	struct fst_priv *pr = ctx->priv;
	struct fst_events *evs = ctx_calloc(ctx, 1, sizeof(*evs));
	struct fst_event *arr = NULL;
	size_t cap = 0;
	unsigned init_flags;
	enum fd_kind kind = fd_kind_of(ctx, fd, &init_flags);
	int fl = fcntl(fd, F_GETFL);

	if (kind == FD_UNKNOWN)
		fst_fail_(ctx, file, line, "fd %d is neither a fanotify nor an inotify fd", fd);
	if (fl < 0 || !(fl & O_NONBLOCK))
		fst_fail_(ctx, file, line,
			  "fd %d is blocking; create groups with fst_fan_init()/fst_inotify()", fd);
	if (!pr->readbuf)
		pr->readbuf = ctx_calloc(ctx, 1, FST_READ_BUF);

	for (;;) {
		ssize_t n = read(fd, pr->readbuf, FST_READ_BUF);
		size_t off = 0;
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break; /* nothing else queued: the proof of emptiness */
			fst_fail_(ctx, file, line, "read(fd %d): %s", fd, fst_errname(errno));
		}
		if (n == 0)
			fst_fail_(ctx, file, line, "read(fd %d) returned 0", fd);

		for (;;) {
			struct fsn_event ev;
			struct fst_event *e;

			if (kind == FD_FANOTIFY)
				r = fsn_decode_fanotify(pr->readbuf, (size_t)n, &off, &ev);
			else
				r = fsn_decode_inotify(pr->readbuf, (size_t)n, &off, &ev);
			if (r == 0)
				break;
			if (r < 0)
				fst_fail_(ctx, file, line,
					  "fd %d: malformed event at offset %zu of %zd bytes: %s",
					  fd, off, n, fst_errname(r));
			if (evs->n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct fst_event *na = realloc(arr, ncap * sizeof(*na));

				if (!na)
					fst_fail_(ctx, file, line, "out of memory");
				arr = na;
				cap = ncap;
			}
			e = &arr[evs->n++];
			memset(e, 0, sizeof(*e));
			e->ev = ev;
			copy_name(ev.name, e->name_buf, sizeof(e->name_buf), &e->ev.name);
			copy_name(ev.old_name, e->old_name_buf, sizeof(e->old_name_buf),
				  &e->ev.old_name);
			copy_name(ev.new_name, e->new_name_buf, sizeof(e->new_name_buf),
				  &e->ev.new_name);
			if (kind == FD_FANOTIFY && ev.fd >= 0) {
				char proc[64];
				ssize_t l;

				e->had_fd = true;
				e->has_stat = fstat(ev.fd, &e->st) == 0;
				snprintf(proc, sizeof(proc), "/proc/self/fd/%d", ev.fd);
				l = readlink(proc, e->fdpath, sizeof(e->fdpath) - 1);
				e->fdpath[l > 0 ? l : 0] = '\0';
				if (!keep_fds && !(ev.mask & FST_PERM_MASK)) {
					close(ev.fd);
					e->ev.fd = -1;
				}
			}
			if (kind == FD_FANOTIFY && (ev.has & FSN_HAS_PIDFD) && ev.pidfd >= 0 &&
			    !keep_fds) {
				/* pidfds, like event fds, are closed unless kept */
				close(ev.pidfd);
				e->ev.pidfd = FAN_NOPIDFD;
			}
		}
	}
	/* The array moved with every realloc(): point the names at their final
	 * buffers only now. */
	for (size_t i = 0; i < evs->n; i++) {
		struct fst_event *e = &arr[i];

		e->ev.name = e->ev.name ? e->name_buf : NULL;
		e->ev.old_name = e->ev.old_name ? e->old_name_buf : NULL;
		e->ev.new_name = e->ev.new_name ? e->new_name_buf : NULL;
	}
	evs->e = ctx_track(ctx, arr ? (void *)arr : calloc(1, sizeof(*arr)));
	return evs;
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                 */
/* ------------------------------------------------------------------------ */

static bool resolve_exp_obj(struct fst_ctx *ctx, const char *path, const struct fst_obj *given,
			    struct fst_obj *out, bool *missing) {
	int err;

	*missing = false;
	if (given) {
		*out = *given;
		return true;
	}
	if (!path)
		return false;
	if (!get_obj(ctx, path, out, &err)) {
		snprintf(out->label, sizeof(out->label), "%s (%s)", path, fst_errname(err));
		*missing = true;
	}
	return true;
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

struct exp_resolved {
	bool has_obj, obj_missing;
	struct fst_obj obj;
	bool has_dir, dir_missing;
	struct fst_obj dir;
};

/* A label for an actual object: the expected object it equals, if any. */
static const char *label_for(const struct exp_resolved *res, size_t n, bool by_fid,
			     const struct fsn_fid *fid, dev_t dev, ino_t ino) {
	for (size_t i = 0; i < n; i++) {
		const struct fst_obj *cand[2] = { res[i].has_obj ? &res[i].obj : NULL,
						  res[i].has_dir ? &res[i].dir : NULL };
		for (int k = 0; k < 2; k++) {
			const struct fst_obj *o = cand[k];

			if (!o || (k == 0 ? res[i].obj_missing : res[i].dir_missing))
				continue;
			if (by_fid ? (o->has_fid && fid_equal(&o->fid, fid))
				   : (o->dev == dev && o->ino == ino))
				return o->label;
		}
	}
	return NULL;
}

static void print_exp(struct fst_ctx *ctx, enum fd_kind kind, size_t i, const struct fst_exp *x,
		      const struct exp_resolved *r) {
	char nb[300];

	if (kind == FD_INOTIFY) {
		diag(ctx, "    [%zu] wd=%d %s", i, x->wd,
		     fst_mask_str(FSN_MASK_INOTIFY_EVENT, x->mask));
	} else {
		diag(ctx, "    [%zu] %s", i, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, x->mask));
		if (x->nofd)
			diag(ctx, " fd=FAN_NOFD");
		if (r->has_obj)
			diag(ctx, " obj=%s", r->obj.label);
		if (r->has_dir)
			diag(ctx, " dir=%s", r->dir.label);
		if (x->pid == 0)
			diag(ctx, " pid=%d (self)", (int)ctx->pid);
		else if (x->pid != FST_ANY_PID)
			diag(ctx, " pid=%d", (int)x->pid);
	}
	if (x->name)
		diag(ctx, " name=\"%s\"", fst_escape(x->name, nb, sizeof(nb)));
	diag(ctx, "\n");
}

static void print_act(struct fst_ctx *ctx, enum fd_kind kind, size_t i, const struct fst_event *e,
		      const struct exp_resolved *res, size_t nres) {
	const struct fsn_event *ev = &e->ev;
	char nb[300], fb[160];
	const char *l;

	if (kind == FD_INOTIFY) {
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
		} else if (ev->fd == FAN_NOFD)
			diag(ctx, " fd=FAN_NOFD");
		else
			diag(ctx, " fd=%d (%s)", ev->fd, fst_errname(ev->fd));
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
		diag(ctx, " pid=%d%s", (int)ev->pid, ev->pid == ctx->pid ? " (self)" : "");
	}
	if (ev->name)
		diag(ctx, " name=\"%s\"", fst_escape(ev->name, nb, sizeof(nb)));
	diag(ctx, "\n");
}

/* Compare one event; on mismatch write why into why and return false. */
static bool match_one(struct fst_ctx *ctx, enum fd_kind kind, unsigned init_flags,
		      const struct fst_event *e, const struct fst_exp *x,
		      const struct exp_resolved *r, char *why, size_t wl) {
	const struct fsn_event *ev = &e->ev;
	enum fsn_mask_kind kmask =
	    kind == FD_INOTIFY ? FSN_MASK_INOTIFY_EVENT : FSN_MASK_FANOTIFY_EVENT;
	char nb[300], nb2[300];

	if (ev->mask != x->mask) {
		snprintf(why, wl, "mask is %s, expected %s", fst_mask_str(kmask, ev->mask),
			 fst_mask_str(kmask, x->mask));
		return false;
	}
	if (x->name && (!ev->name || strcmp(ev->name, x->name) != 0)) {
		snprintf(why, wl, "name is %s, expected \"%s\"",
			 ev->name ? fst_strdupf(ctx, "\"%s\"", fst_escape(ev->name, nb, sizeof(nb)))
				  : "absent",
			 fst_escape(x->name, nb2, sizeof(nb2)));
		return false;
	}
	if (!x->name && ev->name) {
		snprintf(why, wl, "has name \"%s\", expected none",
			 fst_escape(ev->name, nb, sizeof(nb)));
		return false;
	}
	if (kind == FD_INOTIFY) {
		if (x->wd != 0 && ev->wd != x->wd) {
			snprintf(why, wl, "wd is %d, expected %d", ev->wd, x->wd);
			return false;
		}
		return true;
	}

	/* fanotify */
	if (x->pid != FST_ANY_PID) {
		pid_t want = x->pid == 0 ? ctx->pid : x->pid;

		if (ev->pid != want) {
			snprintf(why, wl, "pid is %d, expected %d", (int)ev->pid, (int)want);
			return false;
		}
	}
	if (x->nofd && e->had_fd) {
		snprintf(why, wl, "has an event fd, expected FAN_NOFD");
		return false;
	}
	if (r->has_obj) {
		if (r->obj_missing) {
			snprintf(why, wl, "cannot resolve the expected object %s", r->obj.label);
			return false;
		}
		if (init_flags & FAN_REPORT_FID) {
			if (!(ev->has & FSN_HAS_FID)) {
				snprintf(why, wl, "has no FID record, expected %s", r->obj.label);
				return false;
			}
			if (!r->obj.has_fid) {
				snprintf(why, wl, "expected object %s has no file handle",
					 r->obj.label);
				return false;
			}
			if (!fid_equal(&ev->fid, &r->obj.fid)) {
				snprintf(why, wl, "FID is not that of %s", r->obj.label);
				return false;
			}
		} else if (!x->nofd) {
			if (!e->had_fd) {
				snprintf(why, wl, "has no event fd (fd %d), expected %s", ev->fd,
					 r->obj.label);
				return false;
			}
			if (!e->has_stat || e->st.st_dev != r->obj.dev ||
			    e->st.st_ino != r->obj.ino) {
				snprintf(why, wl, "event fd is %s, expected %s",
					 fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)),
					 r->obj.label);
				return false;
			}
		}
	} else if (!x->nofd && !(init_flags & (FAN_REPORT_FID | FAN_REPORT_DIR_FID)) &&
		   !e->had_fd) {
		snprintf(why, wl, "has no event fd (fd %d)", ev->fd);
		return false;
	}
	if (r->has_dir) {
		if (r->dir_missing) {
			snprintf(why, wl, "cannot resolve the expected directory %s", r->dir.label);
			return false;
		}
		if (!(ev->has & FSN_HAS_DFID)) {
			snprintf(why, wl, "has no DFID record, expected %s", r->dir.label);
			return false;
		}
		if (!r->dir.has_fid || !fid_equal(&ev->dfid, &r->dir.fid)) {
			snprintf(why, wl, "DFID is not that of %s", r->dir.label);
			return false;
		}
	}
	return true;
}

void fst_match_(struct fst_ctx *ctx, int fd, const struct fst_events *events,
		const struct fst_exp *exp, size_t n, const char *what, const char *file, int line) {
	unsigned init_flags;
	enum fd_kind kind = fd_kind_of(ctx, fd, &init_flags);
	struct exp_resolved *res = ctx_calloc(ctx, n, sizeof(*res));
	char why[600] = "";
	size_t bad = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		res[i].has_obj =
		    resolve_exp_obj(ctx, exp[i].path, exp[i].obj, &res[i].obj, &res[i].obj_missing);
		res[i].has_dir =
		    resolve_exp_obj(ctx, exp[i].dir, exp[i].dobj, &res[i].dir, &res[i].dir_missing);
	}
	for (size_t i = 0; i < n && i < events->n; i++) {
		if (!match_one(ctx, kind, init_flags, &events->e[i], &exp[i], &res[i], why,
			       sizeof(why))) {
			bad = i;
			break;
		}
	}
	if (bad == SIZE_MAX && n == events->n)
		return;

	diag(ctx, "%s:%d: %s (%s fd %d): expected %zu event%s:\n", file, line, what,
	     kind == FD_INOTIFY ? "inotify" : "fanotify", fd, n, n == 1 ? "" : "s");
	if (n == 0)
		diag(ctx, "    (none)\n");
	for (size_t i = 0; i < n; i++)
		print_exp(ctx, kind, i, &exp[i], &res[i]);
	diag(ctx, "  got %zu:\n", events->n);
	if (events->n == 0)
		diag(ctx, "    (none)\n");
	for (size_t i = 0; i < events->n; i++)
		print_act(ctx, kind, i, &events->e[i], res, n);

	if (bad != SIZE_MAX)
		fst_fail_(ctx, file, line, "%s: event %zu of %zu: %s", what, bad, events->n, why);
	fst_fail_(ctx, file, line, "%s: expected %zu event%s, got %zu", what, n, n == 1 ? "" : "s",
		  events->n);
}

struct fst_events *fst_expect_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
			       const char *what, const char *file, int line) {
	struct fst_events *evs = fst_read_(ctx, fd, false, file, line);

	checkpoint(file, line);
	fst_match_(ctx, fd, evs, exp, n, what, file, line);
	return evs;
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

struct fst_child *fst_spawn_(struct fst_ctx *ctx, const char *what, fst_child_fn fn, void *arg,
			     int keep_fd, const char *file, int line) {
	struct fst_priv *pr = ctx->priv;
	struct fst_child *c;
	int p[2];
	pid_t pid;

	checkpoint(file, line);
	if (pr->n_children >= FST_MAX_CHILDREN)
		fst_fail_(ctx, file, line, "too many children");
	c = ctx_calloc(ctx, 1, sizeof(*c));
	snprintf(c->what, sizeof(c->what), "%s", what);
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

	snprintf(a.path, sizeof(a.path), "%s", path);
	return fst_spawn_(ctx, fst_strdupf(ctx, "execve(%s)", path), child_exec, &a, -1, file,
			  line);
}

static int elapsed_ms(const struct timespec *t0) {
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
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
			c->result = 0; /* exec succeeded (the pipe was O_CLOEXEC), or it died */
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
		if (c->pidfd >= 0)
			close(c->pidfd);
		c->pidfd = -1;
		if (WIFSIGNALED(c->status))
			fst_fail_(ctx, file, line, "child %s killed by signal %d", c->what,
				  WTERMSIG(c->status));
	}
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

void fst_child_blocked_(struct fst_ctx *ctx, struct fst_child *c, const char *file, int line) {
	struct pollfd p = { .fd = c->rfd, .events = POLLIN };

	if (c->done || poll(&p, 1, 0) != 0)
		fst_fail_(ctx, file, line,
			  "child %s is not blocked: it already finished before the response",
			  c->what);
}

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
