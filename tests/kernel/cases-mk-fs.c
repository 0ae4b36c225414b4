/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-mk-fs.c — fsn-selftest cases of the MK group on filesystems a case
 * mounts itself: overlayfs over the filesystem under test (MK11) and tracefs
 * (MK12), in semantics.md.
 *
 * Overlayfs: an event on an overlay file reaches each mark once and names
 * the object that mark is on — the overlay's inode for marks on the
 * overlay, the real (lower or upper) file for marks on a layer, which since
 * Linux 6.5 gets the events of the real file overlayfs opens in its place
 * (backing files, fs/overlayfs/file.c: ovl_open_realfile()); FID groups get
 * the fsid and handle of that object (overlayfs encodes non-decodable
 * handles for inode marks since 6.6, decodable ones with nfs_export=on);
 * inotify watches on overlay objects survive copy-up and a cache drop
 * (fs/overlayfs/inode.c: ovl_get_inode() finds the watched inode again).
 * tracefs: a mount mark gets every write to a tracefs file once, also for a
 * dynamic event's files, whose event fds may be closed after the event is
 * gone (kernel/trace/trace_events.c, CVE-2023-52879).
 *
 * The layers (l, u, w) are directories of the work directory, the overlay
 * is mounted on o next to them: "l/f" is the lower file, "o/f" the same
 * file through the overlay. Every case reads after every step.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selftest.h"

/* ------------------------------------------------------------------------ */
/* Overlayfs                                                                */
/* ------------------------------------------------------------------------ */

/* The layer directories; populate l and u, then ovl_mount(). */
static void ovl_layers(struct fst_ctx *ctx) {
	FST_SYS(ctx, mkdir("l", 0755));
	FST_SYS(ctx, mkdir("u", 0755));
	FST_SYS(ctx, mkdir("w", 0755));
	FST_SYS(ctx, mkdir("o", 0755));
}

/* Mount the overlay of l (lower) and u (upper) on o, with more options
 * (NULL: none). A kernel without overlayfs is a feature skip. */
static void ovl_mount(struct fst_ctx *ctx, const char *more) {
	const char *opts =
	    fst_strdupf(ctx, "lowerdir=%s/l,upperdir=%s/u,workdir=%s/w%s%s", ctx->work, ctx->work,
			ctx->work, more ? "," : "", more ? more : "");

	if (mount("fsn-ovl", "o", "overlay", 0, opts) == 0)
		return;
	if (errno == ENODEV)
		fst_skip_feature(ctx, "the overlay filesystem (mount: ENODEV)");
	fst_skip(ctx, "overlayfs refuses layers on %s (%s): %s", ctx->fs, opts, fst_errname(errno));
}

/* Drop unused dentries and inodes (2): global, but harmless. */
static void drop_caches(struct fst_ctx *ctx) {
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		fst_skip(ctx, "cannot open /proc/sys/vm/drop_caches: %s", fst_errname(errno));
	if (write(fd, "2", 1) != 1)
		fst_skip(ctx, "writing /proc/sys/vm/drop_caches: %s", fst_errname(errno));
	close(fd);
}

static const unsigned fan_prio[] = { FAN_CLASS_PRE_CONTENT, FAN_CLASS_CONTENT, FAN_CLASS_NOTIF };

/*
 * A write to an overlay file reaches a mount mark on the overlay once
 * (overlayfs used to report its real file's write again, through the
 * overlay's path). Three groups in each class with that mount mark; the
 * CONTENT and NOTIF ones also ignore MODIFY on the file (surviving it):
 * each PRE_CONTENT group gets exactly one MODIFY per write, the others
 * nothing (LTP fanotify06, the overlay variant).
 */
static void mk11_overlay_mount_mark_once(struct fst_ctx *ctx) {
	int g[3][3], fd;

	ovl_layers(ctx);
	ovl_mount(ctx, NULL);
	fst_write_file(ctx, "o/f", NULL);
	for (unsigned p = 0; p < 3; p++)
		for (unsigned i = 0; i < 3; i++) {
			g[p][i] = fst_fan_init(ctx, fan_prio[p]);
			fst_mark(ctx, g[p][i], FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY, "o/f");
			if (p > 0)
				fst_mark(ctx, g[p][i],
					 FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
					     FAN_MARK_IGNORED_SURV_MODIFY,
					 FAN_MODIFY, "o/f");
		}
	fd = fst_open(ctx, "o/f", O_WRONLY);
	for (int round = 0; round < 2; round++) {
		fst_write1(ctx, fd);
		for (unsigned i = 0; i < 3; i++)
			FST_EXPECT(ctx, g[0][i], FST_FAN(FAN_MODIFY, "o/f"));
		for (unsigned p = 1; p < 3; p++)
			for (unsigned i = 0; i < 3; i++)
				FST_EXPECT_NONE(ctx, g[p][i]);
	}
	fst_close(ctx, fd);
}

/*
 * The permission twin of mk11_overlay_mount_mark_once: a second event of
 * one operation would merge into the first unread notification event, a
 * permission event cannot (PE02). A CONTENT group with an OPEN_PERM and
 * ACCESS_PERM mount mark on the overlay: an open of an overlay file asks
 * once (not again for the real file overlayfs opens in its place), a read
 * asks once, and a deny fails the open; nothing else is asked.
 */
static void mk11_overlay_mount_mark_perm_once(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	ovl_layers(ctx);
	fst_write_file(ctx, "l/lf", "f");
	ovl_mount(ctx, NULL);
	fst_write_file(ctx, "o/f", "f");
	p = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM | FAN_ACCESS_PERM, "o");
	/* an upper file (written through the overlay) and a lower one */
	for (int lower = 0; lower < 2; lower++) {
		const char *f = lower ? "o/lf" : "o/f";

		c = fst_spawn_read(ctx, f);
		fst_answer(ctx, p, c, FAN_OPEN_PERM, f, FAN_ALLOW);
		fst_answer(ctx, p, c, FAN_ACCESS_PERM, f, FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, p);
		c = fst_spawn_open(ctx, f, O_RDONLY);
		fst_answer(ctx, p, c, FAN_OPEN_PERM, f, FAN_DENY);
		fst_child_expect(ctx, c, EPERM);
		FST_EXPECT_NONE(ctx, p);
	}
}

/* An overlay over a lower file and directory (lf, ld) and an upper file and
 * directory (uf, ud), FID marks allowed on it: a FID group for them. */
static int ovl_four_objects_fid(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	ovl_layers(ctx);
	fst_write_file(ctx, "l/lf", "f");
	FST_SYS(ctx, mkdir("l/ld", 0755));
	fst_write_file(ctx, "u/uf", "f");
	FST_SYS(ctx, mkdir("u/ud", 0755));
	ovl_mount(ctx, NULL);
	fst_require_at(ctx, "o", FSN_FEAT_MARK_FID);
	return fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
}

/*
 * A file and a directory of one layer (layer "l" or "u"), opened and
 * closed through the overlay: the FID group g (inode marks on them, or an
 * sb mark on the layer's filesystem) gets OPEN and CLOSE_NOWRITE of the
 * real object (its fsid and handle), once each; quiet (if >= 0) nothing.
 */
static void ovl_layer_open_close(struct fst_ctx *ctx, const char *layer, int g, int quiet) {
	for (unsigned k = 0; k < 2; k++) {
		const uint64_t dir = k ? FAN_ONDIR : 0;
		const char *real = fst_strdupf(ctx, "%s/%s", layer, k ? "d" : "f");
		int fd = fst_open(ctx, k ? "o/d" : "o/f", O_RDONLY | (k ? O_DIRECTORY : 0));

		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | dir, real));
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE | dir, real));
		if (quiet >= 0)
			FST_EXPECT_NONE(ctx, quiet);
	}
}

/* f and d in layer, the overlay mounted: a FID group. Overlayfs reports a
 * real file's events to marks on its layer since Linux 6.5. */
static int ovl_layer_setup(struct fst_ctx *ctx, const char *layer) {
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require_kernel(ctx, 6, 5,
			   "overlayfs's real files report to marks on the layers (bc2473c90fca)");
	ovl_layers(ctx);
	fst_write_file(ctx, fst_strdupf(ctx, "%s/f", layer), "f");
	FST_SYS(ctx, mkdir(fst_strdupf(ctx, "%s/d", layer), 0755));
	ovl_mount(ctx, NULL);
	return fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
}

/* Inode marks of a FID group on a layer's file and directory get their
 * events through the overlay as the real objects (LTP fanotify13,
 * variants 1 and 2, inode marks). */
static void ovl_fid_layer_inode(struct fst_ctx *ctx, const char *layer) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR;
	int g = ovl_layer_setup(ctx, layer);

	fst_mark(ctx, g, FAN_MARK_ADD, m, fst_strdupf(ctx, "%s/f", layer));
	fst_mark(ctx, g, FAN_MARK_ADD, m, fst_strdupf(ctx, "%s/d", layer));
	ovl_layer_open_close(ctx, layer, g, -1);
	FST_EXPECT_NONE(ctx, g);
}

/* An sb mark of a FID group on a layer's filesystem gets them too; a mount
 * mark on the layer's mount gets nothing of them (overlayfs opens the real
 * file through a private mount of its own), but the layer's own opens
 * (LTP fanotify13, variants 1 and 2, filesystem and mount marks). */
static void ovl_fid_layer_sb(struct fst_ctx *ctx, const char *layer) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR;
	const char *real = fst_strdupf(ctx, "%s/f", layer);
	int g, gm;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	g = ovl_layer_setup(ctx, layer);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, layer);
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, m, layer);
	ovl_layer_open_close(ctx, layer, g, gm);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, real, O_RDONLY);
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, real));
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, real));
}

static void mk11_overlay_fid_lower_inode(struct fst_ctx *ctx) {
	ovl_fid_layer_inode(ctx, "l");
}

static void mk11_overlay_fid_lower_sb(struct fst_ctx *ctx) {
	ovl_fid_layer_sb(ctx, "l");
}

static void mk11_overlay_fid_upper_inode(struct fst_ctx *ctx) {
	ovl_fid_layer_inode(ctx, "u");
}

static void mk11_overlay_fid_upper_sb(struct fst_ctx *ctx) {
	ovl_fid_layer_sb(ctx, "u");
}

/*
 * Inode marks of a FID group on overlay objects — a file and a directory
 * from the lower layer, and from the upper one — report the overlay's fsid
 * and the overlay's (non-decodable) handle, what name_to_handle_at() with
 * AT_HANDLE_FID gives on the overlay path, once per event (LTP fanotify13,
 * variants 3 and 4).
 */
static void mk11_overlay_fid_inode_marks(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR;
	static const char *const names[] = { "lf", "ld", "uf", "ud" };
	int g;

	g = ovl_four_objects_fid(ctx);
	for (unsigned k = 0; k < 4; k++)
		fst_mark(ctx, g, FAN_MARK_ADD, m, fst_strdupf(ctx, "o/%s", names[k]));
	for (unsigned k = 0; k < 4; k++) {
		const char *p = fst_strdupf(ctx, "o/%s", names[k]);
		const uint64_t dir = names[k][1] == 'd' ? FAN_ONDIR : 0;
		int fd = fst_open(ctx, p, O_RDONLY | (dir ? O_DIRECTORY : 0));

		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | dir, p));
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE | dir, p));
	}
	FST_EXPECT_NONE(ctx, g);
}

/*
 * FAN_DELETE_SELF of overlay objects removed through the overlay (a lower
 * file and directory: whiteouts; an upper file and directory: gone), on
 * inode marks of a FID group: each reports the overlay handle it had, from
 * an inode that no dentry refers to any more (LTP fanotify13, its last
 * case, variants 3 and 4).
 */
static void mk11_overlay_fid_delete_self(struct fst_ctx *ctx) {
	static const char *const names[] = { "lf", "ld", "uf", "ud" };
	struct fst_obj o[4];
	int g;

	g = ovl_four_objects_fid(ctx);
	for (unsigned k = 0; k < 4; k++) {
		const char *p = fst_strdupf(ctx, "o/%s", names[k]);

		o[k] = fst_obj(ctx, p);
		fst_mark(ctx, g, FAN_MARK_ADD, FAN_DELETE_SELF | FAN_ONDIR, p);
	}
	for (unsigned k = 0; k < 4; k++) {
		const char *p = fst_strdupf(ctx, "o/%s", names[k]);
		const bool dir = names[k][1] == 'd';

		if (dir)
			FST_SYS(ctx, rmdir(p));
		else
			FST_SYS(ctx, unlink(p));
		FST_EXPECT(ctx, g,
			   { .mask = FAN_DELETE_SELF | (dir ? FAN_ONDIR : 0), .obj = &o[k] });
	}
	FST_EXPECT_NONE(ctx, g);
}

/*
 * Without nfs_export, overlayfs cannot decode its file handles: a FID
 * group's mount and sb marks on the overlay are refused with EOPNOTSUPP
 * (fanotify_test_fid()), while the same marks of an fd-mode group are
 * placed and get the overlay's events (LTP fanotify13, variants 3 and 4:
 * the mark types it finds refused).
 */
static void mk11_overlay_fid_sb_refused(struct fst_ctx *ctx) {
	int g, gfd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	ovl_layers(ctx);
	fst_write_file(ctx, "l/f", "f");
	ovl_mount(ctx, NULL);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, "o", EOPNOTSUPP);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, "o", EOPNOTSUPP);
	gfd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gfd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, "o");
	fst_mark(ctx, gfd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CLOSE_NOWRITE, "o");
	fst_open_close(ctx, "o/f", O_RDONLY);
	FST_EXPECT(ctx, gfd, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "o/f"));
	FST_EXPECT_NONE(ctx, g);
}

/*
 * With index=on,nfs_export=on overlayfs decodes its file handles: a FID
 * group's sb mark on the overlay is placed, and reports the overlay's
 * fsid and its decodable handle (name_to_handle_at() without
 * AT_HANDLE_FID), for a lower and an upper file (fanotify13's variants
 * 3 and 4 with the sb mark it finds refused without nfs_export).
 */
static void mk11_overlay_fid_sb_nfs_export(struct fst_ctx *ctx) {
	struct fst_obj lf, uf;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	ovl_layers(ctx);
	fst_write_file(ctx, "l/lf", "f");
	fst_write_file(ctx, "u/uf", "f");
	ovl_mount(ctx, "index=on,nfs_export=on");
	lf = fst_obj(ctx, "o/lf");
	uf = fst_obj(ctx, "o/uf");
	fst_log(ctx, "o/lf: handle %s, o/uf: handle %s", lf.fid_only ? "FID only" : "decodable",
		uf.fid_only ? "FID only" : "decodable");
	if (lf.fid_only || uf.fid_only)
		fst_skip(ctx, "overlayfs on %s cannot decode its handles with nfs_export=on",
			 ctx->fs);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_CLOSE_NOWRITE, "o");
	fst_open_close(ctx, "o/lf", O_RDONLY);
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .obj = &lf });
	fst_open_close(ctx, "o/uf", O_RDONLY);
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .obj = &uf });
}

/*
 * inotify: a watch on an overlay directory from the lower layer survives
 * a cache drop and the directory's copy-up (chmod makes it a merge
 * directory): the directory's ATTRIB, its child's OPEN, CLOSE_WRITE and
 * ATTRIB (a touch, which copies the child up) reach the watch, nothing
 * else (LTP inotify07).
 */
static void mk11_overlay_inotify_dir_copy_up(struct fst_ctx *ctx) {
	const struct timespec now[2] = { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_NOW } };
	int in, wd, fd;

	ovl_layers(ctx);
	FST_SYS(ctx, mkdir("l/d", 0755));
	fst_write_file(ctx, "l/d/f", NULL);
	ovl_mount(ctx, NULL);
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "o/d", IN_ALL_EVENTS);
	drop_caches(ctx); /* the overlay's dentry goes; the watch pins the inode */
	FST_SYS(ctx, chmod("o/d", 0700));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB | IN_ISDIR, wd, NULL));
	FST_SYS(ctx, chmod("o/d", 0755));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB | IN_ISDIR, wd, NULL));
	fd = fst_open(ctx, "o/d/f", O_WRONLY | O_CREAT);
	fst_close(ctx, fd);
	FST_SYS(ctx, utimensat(ctx->workfd, "o/d/f", now, 0));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "f"), FST_IN(IN_CLOSE_WRITE, wd, "f"),
		   FST_IN(IN_ATTRIB, wd, "f"));
}

/*
 * inotify: a watch on an overlay file from the lower layer survives a
 * cache drop and the file's copy-up (chmod): ATTRIB, then a write's OPEN
 * and CLOSE_WRITE reach it; touching the real lower and upper files
 * directly reaches it not (LTP inotify08).
 */
static void mk11_overlay_inotify_file_copy_up(struct fst_ctx *ctx) {
	const struct timespec now[2] = { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_NOW } };
	int in, wd, fd;

	ovl_layers(ctx);
	fst_write_file(ctx, "l/f", NULL);
	ovl_mount(ctx, NULL);
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "o/f", IN_ATTRIB | IN_OPEN | IN_CLOSE_WRITE);
	drop_caches(ctx);
	FST_SYS(ctx, chmod("o/f", 0600));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, NULL));
	FST_SYS(ctx, chmod("o/f", 0644));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, NULL));
	fd = fst_open(ctx, "o/f", O_WRONLY | O_TRUNC);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, NULL), FST_IN(IN_CLOSE_WRITE, wd, NULL));
	/* the real files are other inodes */
	fst_open_close(ctx, "l/f", O_WRONLY);
	FST_SYS(ctx, utimensat(ctx->workfd, "l/f", now, 0));
	fst_open_close(ctx, "u/f", O_WRONLY);
	FST_SYS(ctx, utimensat(ctx->workfd, "u/f", now, 0));
	FST_EXPECT_NONE(ctx, in);
}

/* ------------------------------------------------------------------------ */
/* tracefs                                                                  */
/* ------------------------------------------------------------------------ */

/* tracefs mounted on <scratch>/tracefs (one superblock for every mount of
 * it: a mount mark on this mount sees only what goes through it). */
static const char *tracefs_mount(struct fst_ctx *ctx) {
	const char *t = fst_strdupf(ctx, "%s/tracefs", ctx->scratch);

	FST_SYS(ctx, mkdir(t, 0755));
	if (mount("fsn-tracefs", t, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		if (errno == ENODEV)
			fst_skip_feature(ctx, "tracefs (mount: ENODEV)");
		fst_fail(ctx, "mount tracefs on %s: %s", t, fst_errname(errno));
	}
	return t;
}

/* open(path, O_WRONLY | O_APPEND), write s, close: 0 or -errno (tracefs
 * writes whose failure must not skip the clean-up). O_APPEND, never
 * O_TRUNC: truncating uprobe_events removes every uprobe event. */
static int trace_write(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	e = n < 0 ? -errno : (size_t)n == strlen(s) ? 0 : -EIO;
	close(fd);
	return e;
}

/* The identity of a tracefs file an fd-mode event is compared with (its
 * inode), or -errno: never fails, so that the clean-up still runs. */
static int trace_obj(const char *path, struct fst_obj *o) {
	struct stat st;

	memset(o, 0, sizeof(*o));
	if (stat(path, &st) < 0)
		return -errno;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	snprintf(o->label, sizeof(o->label), "%s", path);
	return 0;
}

/*
 * A mount mark with FAN_MODIFY on tracefs gets each write to a tracefs
 * file once, the file as its event fd, with the writer's pid: two writes
 * to error_log, which tracefs accepts and ignores (opened without O_TRUNC,
 * which would clear the log: nothing global changes) (LTP fanotify25, its
 * writes).
 */
static void mk12_tracefs_modify_once(struct fst_ctx *ctx) {
	const char *t = tracefs_mount(ctx);
	const char *log = fst_strdupf(ctx, "%s/error_log", t);
	int g, err;

	if (access(log, F_OK) < 0)
		fst_skip_feature(ctx, "tracefs's error_log (CONFIG_TRACING, Linux 5.2): %s: %s",
				 log, fst_errname(errno));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY, t);
	for (int i = 0; i < 2; i++) {
		err = trace_write(log, "fsn-selftest\n");
		if (err < 0)
			fst_fail(ctx, "write %s: %s", log, fst_errname(err));
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, log));
	}
	/* a read is no MODIFY */
	fst_open_close(ctx, log, O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
}

/*
 * The permission twin of mk12_tracefs_modify_once (a second MODIFY of one
 * write would merge into the first unread one; permission events cannot,
 * PE02): an OPEN_PERM and ACCESS_PERM mount mark on tracefs asks once for
 * each open of error_log, for writing or reading, and once for a read; a
 * deny fails the open.
 */
static void mk12_tracefs_perm_once(struct fst_ctx *ctx) {
	const char *t = tracefs_mount(ctx);
	const char *log = fst_strdupf(ctx, "%s/error_log", t);
	struct fst_child *c;
	int p;

	if (access(log, F_OK) < 0)
		fst_skip_feature(ctx, "tracefs's error_log (CONFIG_TRACING, Linux 5.2): %s: %s",
				 log, fst_errname(errno));
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	p = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM | FAN_ACCESS_PERM, t);
	c = fst_spawn_open(ctx, log, O_WRONLY | O_APPEND);
	fst_answer(ctx, p, c, FAN_OPEN_PERM, log, FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	c = fst_spawn_read(ctx, log);
	fst_answer(ctx, p, c, FAN_OPEN_PERM, log, FAN_ALLOW);
	fst_answer(ctx, p, c, FAN_ACCESS_PERM, log, FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	c = fst_spawn_open(ctx, log, O_WRONLY | O_APPEND);
	fst_answer(ctx, p, c, FAN_OPEN_PERM, log, FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
}

/*
 * A dynamic event's enable file stays open in an event fd after the event
 * is removed, then the fd is closed: the path of CVE-2023-52879 (a NULL
 * dereference on that close before Linux 6.7). A uprobe event on a copy
 * of /bin/true is defined, written 0 (disabled: arming the probe costs
 * tens of ms and is not part of the path) and removed through
 * uprobe_events, with a FAN_MODIFY mount mark on tracefs: each write is
 * one MODIFY of its file; the event fd of the enable write is held over
 * the removal and closed after it (LTP fanotify25, with a uprobe for its
 * kprobe).
 */
static void mk12_tracefs_event_fd_outlives_event(struct fst_ctx *ctx) {
	const char *t, *ue, *name, *enable, *def;
	struct fst_events *e[3];
	struct fst_obj oue, oen;
	int g, err[3], oerr;

	fst_copy_true(ctx, "true", 0755);
	t = tracefs_mount(ctx);
	ue = fst_strdupf(ctx, "%s/uprobe_events", t);
	if (access(ue, F_OK) < 0)
		fst_skip_feature(ctx, "uprobe events (CONFIG_UPROBE_EVENTS): %s: %s", ue,
				 fst_errname(errno));
	name = fst_strdupf(ctx, "fsn_selftest_%d", (int)ctx->pid);
	enable = fst_strdupf(ctx, "%s/events/uprobes/%s/enable", t, name);
	def = fst_strdupf(ctx, "p:uprobes/%s %s/true:0x0\n", name, ctx->work);
	oue = fst_obj(ctx, ue);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY, t);

	err[0] = trace_write(ue, def);
	e[0] = fst_read(ctx, g);
	if (err[0] < 0)
		fst_fail(ctx, "defining the uprobe event (%s): %s", def, fst_errname(err[0]));
	/* nothing fails until the event is removed */
	oerr = trace_obj(enable, &oen);
	err[1] = trace_write(enable, "0");
	e[1] = fst_read_keep(ctx, g);
	err[2] = trace_write(ue, fst_strdupf(ctx, "-:uprobes/%s\n", name));
	e[2] = fst_read(ctx, g);
	/* the enable file's event fd, closed after the event is gone */
	for (size_t k = 0; k < e[1]->n; k++)
		if (e[1]->e[k].ev.fd >= 0) {
			fst_close(ctx, e[1]->e[k].ev.fd);
			e[1]->e[k].ev.fd = -1;
		}
	if (err[2] < 0 && trace_write(ue, fst_strdupf(ctx, "-:uprobes/%s\n", name)) < 0)
		fst_log(ctx, "the uprobe event %s could not be removed", name);
	if (oerr < 0)
		fst_fail(ctx, "stat %s: %s", enable, fst_errname(oerr));
	for (unsigned i = 1; i < 3; i++)
		if (err[i] < 0)
			fst_fail(ctx, "write %s: %s", i == 1 ? enable : ue, fst_errname(err[i]));
	FST_MATCH(ctx, g, e[0], { .mask = FAN_MODIFY, .obj = &oue });
	FST_MATCH(ctx, g, e[1], { .mask = FAN_MODIFY, .obj = &oen });
	FST_MATCH(ctx, g, e[2], { .mask = FAN_MODIFY, .obj = &oue });
	FST_EXPECT_NONE(ctx, g);
}

const struct fst_case fst_cases_mk_fs[] = {
	FST_CASE_GIT(mk11_overlay_mount_mark_once, "MK11,IG02", FST_ALL_FS,
		     "8edc6e1688fc d989903058a8",
		     "overlay: a mount mark gets each write once; inode ignores apply"),
	FST_CASE(mk11_overlay_mount_mark_perm_once, "MK11,PE02", FST_ALL_FS,
		 "overlay: an OPEN_PERM/ACCESS_PERM mount mark is asked once per open, read"),
	FST_CASE_GIT(mk11_overlay_fid_lower_inode, "MK11,ID01", FST_ALL_FS, "bc2473c90fca",
		     "overlay: FID inode marks on the lower layer report the real object"),
	FST_CASE_GIT(mk11_overlay_fid_lower_sb, "MK11,ID01,MK02", FST_ALL_FS, "bc2473c90fca",
		     "overlay: a FID sb mark on the lower layer reports it; its mount mark not"),
	FST_CASE_GIT(mk11_overlay_fid_upper_inode, "MK11,ID01", FST_ALL_FS, "bc2473c90fca",
		     "overlay: FID inode marks on the upper layer report the real object"),
	FST_CASE_GIT(mk11_overlay_fid_upper_sb, "MK11,ID01,MK02", FST_ALL_FS, "bc2473c90fca",
		     "overlay: a FID sb mark on the upper layer reports it; its mount mark not"),
	FST_CASE_GIT(mk11_overlay_fid_inode_marks, "MK11,ID01", FST_ALL_FS, "16aac5ad1fa9",
		     "overlay: FID inode marks on the overlay report the overlay's handle"),
	FST_CASE_GIT(mk11_overlay_fid_delete_self, "MK11,ID02", FST_ALL_FS, "c45beebfde34",
		     "overlay: DELETE_SELF reports the overlay handle of the removed object"),
	FST_CASE(mk11_overlay_fid_sb_refused, "MK11,OV03", FST_ALL_FS,
		 "overlay without nfs_export: FID mount and sb marks refused (EOPNOTSUPP)"),
	FST_CASE(mk11_overlay_fid_sb_nfs_export, "MK11,ID01", FST_ALL_FS,
		 "overlay with nfs_export=on: a FID sb mark reports decodable handles"),
	FST_CASE_GIT(mk11_overlay_inotify_dir_copy_up, "MK11", FST_ALL_FS, "31747eda41ef",
		     "overlay: a directory watch survives drop_caches and copy-up"),
	FST_CASE_GIT(mk11_overlay_inotify_file_copy_up, "MK11", FST_ALL_FS, "764baba80168",
		     "overlay: a file watch survives drop_caches and copy-up; layers apart"),
	FST_CASE(mk12_tracefs_modify_once, "MK12,MK01", FST_ONCE,
		 "tracefs: a FAN_MODIFY mount mark gets each write once"),
	FST_CASE(mk12_tracefs_perm_once, "MK12,PE02", FST_ONCE,
		 "tracefs: an OPEN_PERM/ACCESS_PERM mount mark is asked once per open, read"),
	FST_CASE_GIT(mk12_tracefs_event_fd_outlives_event, "MK12", FST_ONCE, "bb32500fb9b7",
		     "tracefs: event fds of a removed dynamic event's file close safely"),
	{ 0 },
};
