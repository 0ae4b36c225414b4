/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdinfo.c — the marks of a group as /proc/self/fdinfo/<group> shows them:
 * the mark lines parsed, the expected lines made from the marked object
 * (inode number and handle, the mount id, the superblock's dev_t from
 * /proc/self/mountinfo), and FST_EXPECT_FDINFO().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "selftest-private.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

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

	fst_checkpoint(file, line);
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
