/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture.c — the context a case runs in: the per-case fixture (a private
 * mount namespace, a scratch tmpfs, the filesystem under test freshly
 * mounted, an empty work directory as the cwd) and its teardown, memory
 * owned by the case, and the way back to the runner (selftest.c) through
 * the MAP_SHARED slot: diagnostics, failing, skipping and the feature
 * requirements; message formatting (errno names, escaped names, masks).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftest-private.h"

/* The one case this process runs, for the few places without a ctx. */
static struct fst_ctx *cur_ctx;

/* ------------------------------------------------------------------------ */
/* Memory owned by the case                                                 */
/* ------------------------------------------------------------------------ */

void *fst_track(struct fst_ctx *ctx, void *p) {
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

void *fst_calloc(struct fst_ctx *ctx, size_t n, size_t size) {
	return fst_track(ctx, calloc(n ? n : 1, size));
}

/* Free memory of the case before it ends (the most recent first). */
void fst_free(struct fst_ctx *ctx, void *p) {
	struct fst_priv *pr = ctx->priv;

	for (size_t i = pr->n_allocs; p && i-- > 0;)
		if (pr->allocs[i] == p) {
			pr->allocs[i] = pr->allocs[--pr->n_allocs];
			free(p);
			return;
		}
}

static const char *last_file; /* of fst_checkpoint(), reset per case */
static int last_line;

void fst_checkpoint(const char *file, int line) {
	if (file == last_file && line == last_line)
		return;
	last_file = file;
	last_line = line;
	_mark_point(file, line);
}

long fst_read_sysctl(struct fst_ctx *ctx, const char *path) {
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long v;

	if (fd < 0)
		fst_fail(ctx, "open %s: %s", path, fst_errname(errno));
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		fst_fail(ctx, "read %s: %s", path, fst_errname(errno));
	close(fd);
	v = strtol(buf, NULL, 10);
	if (v <= 0)
		fst_fail(ctx, "%s: %ld", path, v);
	return v;
}

bool fst_extent_shared(struct fst_ctx *ctx, int fd) {
	_Alignas(
	    struct fiemap) char buf[sizeof(struct fiemap) + sizeof(struct fiemap_extent)] = { 0 };
	struct fiemap *m = (struct fiemap *)buf;

	m->fm_length = FIEMAP_MAX_OFFSET;
	m->fm_flags = FIEMAP_FLAG_SYNC;
	m->fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, m) < 0) {
		if (errno == EOPNOTSUPP || errno == ENOTTY)
			return false;
		fst_fail(ctx, "FS_IOC_FIEMAP: %s", fst_errname(errno));
	}
	return m->fm_mapped_extents > 0 && (m->fm_extents[0].fe_flags & FIEMAP_EXTENT_SHARED);
}

int fst_write_sysctl(const char *path, long value) {
	char v[32];
	int fd = open(path, O_WRONLY | O_CLOEXEC), n = snprintf(v, sizeof(v), "%ld", value);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, v, (size_t)n);
	close(fd);
	return w == n ? 0 : -1;
}

void *fst_shared(struct fst_ctx *ctx, size_t size) {
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fst_fail(ctx, "mmap(%zu bytes, MAP_SHARED): %s", size, fst_errname(errno));
	return p; /* (anonymous memory is zeroed) */
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
	return fst_track(ctx, s);
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

static void diag_vappend(struct fst_shared *sh, const char *fmt, va_list ap) _fst_printf_(2, 0);
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

void fst_diag(struct fst_ctx *ctx, const char *fmt, ...) {
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
	fst_diag(ctx, "\n");
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

void fst_skip_feature(struct fst_ctx *ctx, const char *fmt, ...) {
	char what[500], reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(reason, sizeof(reason), "needs %s", what);
	skip_with(ctx, FST_SKIP_FEATURE, reason);
	_exit(77); /* not reached */
}

/* Skip unless r says supported: a feature skip when the kernel or the
 * filesystem cannot (where: "" or " on <object>"), but a failure when this
 * kernel is at or above the feature's floor on fs (the filesystem under
 * test; NULL: another object, no floor). */
static void require_result(struct fst_ctx *ctx, enum fsn_feature f,
			   const struct fsn_feature_result *r, const char *where, const char *fs,
			   const char *file, int line) {
	const struct fst_floor *fl;
	char reason[600];

	if (r->support == FSN_SUPPORTED)
		return;
	snprintf(reason, sizeof(reason), "needs %s%s: %s (%s)", fsn_feature_description(f), where,
		 fsn_support_name(r->support), fst_errname(r->error));
	fl = fs && (r->support == FSN_UNSUPPORTED_KERNEL || r->support == FSN_UNSUPPORTED_FS)
		 ? fst_floor_applies(f, fs)
		 : NULL;
	if (fl)
		fst_fail_(ctx, file, line,
			  "regression: %s; Linux %u.%u and later support it on %s (%s%s%s%s%s); "
			  "a kernel built without it%s%s%s: FSN_SELFTEST_NO_FLOOR=%s",
			  reason, fl->major, fl->minor, fl->fs ? fl->fs : "every filesystem",
			  fl->commit ? "commit " : "", fl->commit ? fl->commit : "",
			  fl->commit ? " \"" : "", fst_floor_subject(fl), fl->commit ? "\"" : "",
			  fl->config ? " (" : "", fl->config ? fl->config : "",
			  fl->config ? ")" : "", fsn_feature_name(f));
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
	require_result(ctx, f, &ctx->probe->feat[f], "", ctx->fs, file, line);
}

bool fst_has_(struct fst_ctx *ctx, enum fsn_feature f, const char *file, int line) {
	const struct fsn_feature_result *r;

	if ((unsigned)f >= _FSN_FEAT_MAX)
		fst_fail_(ctx, file, line, "fst_has: unknown feature %d", (int)f);
	r = ctx->probe ? &ctx->probe->feat[f] : NULL;
	if (r && r->support == FSN_SUPPORTED)
		return true;
	if (r && (r->support == FSN_UNSUPPORTED_KERNEL || r->support == FSN_UNSUPPORTED_FS) &&
	    !fst_floor_applies(f, ctx->fs)) {
		fst_log(ctx, "%s:%d: left out: needs %s: %s (%s)", file, line,
			fsn_feature_description(f), fsn_support_name(r->support),
			fst_errname(r->error));
		return false;
	}
	fst_require_(ctx, f, file, line); /* fails (a floor) or skips (no probe) */
	return true;
}

void fst_require_mark_type_(struct fst_ctx *ctx, unsigned type, const char *file, int line) {
	if (type == FAN_MARK_MOUNT)
		fst_require_(ctx, FSN_FEAT_MARK_MOUNT, file, line);
	else if (type == FAN_MARK_FILESYSTEM)
		fst_require_(ctx, FSN_FEAT_MARK_FILESYSTEM, file, line);
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
	require_result(ctx, f, &p.feat[f], where, NULL, file, line);
}

bool fst_kernel_at_least(unsigned major, unsigned minor) {
	struct utsname u;
	unsigned ma, mi;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		return true; /* (the newest behaviour: a failure names it) */
	return ma > major || (ma == major && mi >= minor);
}

void fst_require_kernel_(struct fst_ctx *ctx, unsigned major, unsigned minor, const char *why,
			 const char *file, int line) {
	struct utsname u;
	char reason[600];

	if (fst_kernel_at_least(major, minor))
		return;
	if (uname(&u) < 0)
		fst_fail_(ctx, file, line, "cannot tell the kernel version (uname)");
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

/* /proc/sys/kernel/tainted, or -1 when it cannot be read. */
static long kernel_tainted(void) {
	char buf[32] = "";
	int fd = open("/proc/sys/kernel/tainted", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Taint bits a case must not add, with their letters (the kernel's
 * Documentation/admin-guide/tainted-kernels.rst): a WARN() (W), an oops
 * (D), a bad page (B). As LTP's fanotify25 does, a case during which the
 * kernel warned fails, whatever it saw. */
static const struct {
	long bit;
	char letter;
	const char *what;
} taints[] = {
	{ 1L << 9, 'W', "a kernel warning (WARN)" },
	{ 1L << 7, 'D', "a kernel oops or BUG" },
	{ 1L << 5, 'B', "a bad page" },
};

static void check_taint(struct fst_ctx *ctx, long before) {
	long after = kernel_tainted();
	char what[256] = "";
	size_t pos = 0;

	if (before < 0 || after < 0)
		return; /* (no procfs value: nothing to compare) */
	for (size_t i = 0; i < sizeof(taints) / sizeof(taints[0]); i++)
		if ((after & taints[i].bit) && !(before & taints[i].bit) && pos < sizeof(what))
			pos += (size_t)snprintf(what + pos, sizeof(what) - pos, "%s%c: %s",
						pos ? ", " : "", taints[i].letter, taints[i].what);
	if (pos)
		fst_fail(ctx,
			 "the kernel became tainted during the case (%s; /proc/sys/kernel/tainted "
			 "%ld -> %ld): see dmesg",
			 what, before, after);
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
		.soak = env->soak ? env->soak : 1,
		.priv = pr,
	};
	long tainted = kernel_tainted(); /* (before anything the case does) */

	if (!pr)
		ck_abort_msg("out of memory");
	pr->env = env;
	pr->shared = shared;
	last_file = NULL;
	cur_ctx = &ctx;
	setup(&ctx);
	tc->fn(&ctx);
	teardown(&ctx);
	if (env->taint_after) {
		/* (the kernel only adds the bits written: W until the next boot) */
		int fd = open("/proc/sys/kernel/tainted", O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "512\n", 4) != 4)
			fst_fail(&ctx,
				 "--taint-after-case: cannot write /proc/sys/kernel/tainted: %s",
				 fst_errname(errno));
		close(fd);
	}
	check_taint(&ctx, tainted);
	cur_ctx = NULL;
	free(pr);
}
