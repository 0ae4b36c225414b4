/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ops.c — what a case does with raw syscalls, each failing with the
 * caller's file:line: files and helper mounts (another tmpfs, a bind mount
 * in the scratch tmpfs, a loop device of the case's own), programs a case
 * runs (mkfs, debugfs), one-byte operations, fanotify groups and marks,
 * inotify watches. The init flags of the groups made here are remembered
 * for reading and matching (fst_fd_kind()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "loopdev.h"
#include "selftest-private.h"

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

	fst_checkpoint(file, line);
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

const char *fst_loop_image_(struct fst_ctx *ctx, unsigned size_mib, const char *file, int line) {
	char dev[32];
	int img, fd, r;

	img = open(ctx->scratch, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (img < 0)
		fst_fail_(ctx, file, line, "image file in %s: %s", ctx->scratch,
			  fst_errname(errno));
	if (ftruncate(img, (off_t)size_mib << 20) < 0)
		fst_fail_(ctx, file, line, "image size %u MiB: %s", size_mib, fst_errname(errno));
	r = loop_attach(img, dev, sizeof(dev), &fd);
	close(img);
	if (r < 0)
		fst_skip(ctx, "no loop device: %s", fst_errname(r));
	/* fd stays open until the case ends: the device with it (autoclear) */
	return fst_strdupf(ctx, "%s", dev);
}

void fst_exec_tool_(struct fst_ctx *ctx, const char *file, int line, const char *prog, ...) {
	char path[512], out[512], *argv[16], *nl;
	size_t n = 0;
	va_list ap;
	int r;

	fst_checkpoint(file, line);
	if (!find_tool(prog, path, sizeof(path)))
		fst_skip(ctx, "%s not found", prog);
	argv[n++] = path;
	va_start(ap, prog);
	for (char *a; (a = va_arg(ap, char *)) != NULL;) {
		if (n + 1 == sizeof(argv) / sizeof(argv[0]))
			fst_fail_(ctx, file, line, "%s: too many arguments", prog);
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	r = fst_run_tool(argv, out, sizeof(out));
	if (r < 0) {
		nl = strchr(out, '\n');
		if (nl)
			*nl = '\0';
		fst_fail_(ctx, file, line, "%s %s failed (%s): %s", prog, n > 1 ? argv[n - 1] : "",
			  fst_errname(r), out);
	}
}

/* ------------------------------------------------------------------------ */
/* Small file operations                                                    */
/* ------------------------------------------------------------------------ */

void fst_write1_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	fst_checkpoint(file, line);
	if (write(fd, "x", 1) != 1)
		fst_fail_(ctx, file, line, "write(fd %d, 1 byte): %s", fd, fst_errname(errno));
}

void fst_read1_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	char b;

	fst_checkpoint(file, line);
	if (pread(fd, &b, 1, 0) < 0)
		fst_fail_(ctx, file, line, "pread(fd %d, 1 byte): %s", fd, fst_errname(errno));
}

void fst_open_close_(struct fst_ctx *ctx, const char *path, int flags, const char *file, int line) {
	fst_close_(ctx, fst_open_(ctx, path, flags, file, line), file, line);
}

#ifdef FST_TRUE_ELF
extern const unsigned char fst_true_elf[]; /* true.c, built static (true-bytes.c) */
extern const size_t fst_true_elf_len;
#endif

/* Write the program to out: the embedded true.c, else /bin/true's bytes.
 * 0, -1 with errno (a failed write), or 1 with errno: no /bin/true. */
static int write_true(int out) {
#ifdef FST_TRUE_ELF
	return write(out, fst_true_elf, fst_true_elf_len) == (ssize_t)fst_true_elf_len ? 0 : -1;
#else
	static const char *const srcs[] = { "/bin/true", "/usr/bin/true" };
	char buf[65536];
	int in = -1, r = 0;
	ssize_t n;

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]) && in < 0; i++)
		in = open(srcs[i], O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return 1;
	while (r == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		r = write(out, buf, (size_t)n) == n ? 0 : -1;
	if (r == 0 && n < 0)
		r = -1;
	close(in);
	return r;
#endif
}

void fst_copy_true_(struct fst_ctx *ctx, const char *path, mode_t mode, const char *file,
		    int line) {
	struct statvfs sv;
	int out, r;

	fst_checkpoint(file, line);
	if (statvfs(ctx->work, &sv) < 0)
		fst_fail_(ctx, file, line, "statvfs %s: %s", ctx->work, fst_errname(errno));
	if (sv.f_flag & ST_NOEXEC)
		fst_fail_(ctx, file, line, "%s is mounted noexec: execve cannot be tested",
			  ctx->work);
	out = openat(ctx->workfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		fst_fail_(ctx, file, line, "create %s: %s", path, fst_errname(errno));
	r = write_true(out);
	if (r > 0)
		fst_skip(ctx, "no /bin/true to copy: %s", fst_errname(errno));
	if (r < 0)
		fst_fail_(ctx, file, line, "write the program to %s: %s", path, fst_errname(errno));
	if (fchmod(out, mode) < 0 || close(out) < 0)
		fst_fail_(ctx, file, line, "chmod/close %s: %s", path, fst_errname(errno));
}

int fst_queued_bytes_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	int n = 0;

	fst_checkpoint(file, line);
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

enum fd_kind fst_fd_kind(struct fst_ctx *ctx, int fd, unsigned *init_flags) {
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

int fst_fan_init_(struct fst_ctx *ctx, unsigned flags, unsigned event_f_flags, const char *file,
		  int line) {
	int fd = fanotify_init(flags | FAN_CLOEXEC | FAN_NONBLOCK, event_f_flags);

	fst_checkpoint(file, line);
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

	fst_checkpoint(file, line);
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

	fst_checkpoint(file, line);
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

	fst_checkpoint(file, line);
	if (wd < 0)
		fst_fail_(ctx, file, line, "inotify_add_watch(%s, %s) failed: %s", path,
			  fst_mask_str(FSN_MASK_INOTIFY_EVENT, mask), fst_errname(wd));
	return wd;
}

void fst_rm_watch_(struct fst_ctx *ctx, int fd, int wd, const char *file, int line) {
	fst_checkpoint(file, line);
	if (inotify_rm_watch(fd, wd) < 0)
		fst_fail_(ctx, file, line, "inotify_rm_watch(%d) failed: %s", wd,
			  fst_errname(errno));
}

void fst_close_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	fst_checkpoint(file, line);
	if (close(fd) < 0)
		fst_fail_(ctx, file, line, "close(%d) failed: %s", fd, fst_errname(errno));
	remember_fd(ctx, fd, FD_UNKNOWN, 0);
}
