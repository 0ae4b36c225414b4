/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-ig.c — fsn-selftest cases of the IG group: ignore masks
 * (IG01-IG11 in semantics.md), and how a group's marks combine their
 * masks per mark (IG10: FAN_ONDIR never crosses marks).
 *
 * An ignore mask is applied per group, across all the marks of that group
 * that an event iterates (send_to_group() in fs/notify/fsnotify.c,
 * fanotify_group_event_mask() in fs/notify/fanotify/fanotify.c, with
 * fsnotify_effective_ignore_mask() in include/linux/fsnotify_backend.h
 * deciding whether a mark's ignore mask applies to a directory or to a
 * child reported to its parent). Each case puts an ignoring group next to
 * a group that does not ignore (or next to an object that is not ignored),
 * and reads after every step, so that an ignore applied too widely, too
 * narrowly, to the wrong group or not cleared/kept as it should shows as
 * an exact event mismatch.
 *
 * Notes on the kernel rules these cases depend on:
 *  - a legacy ignore mask (FAN_MARK_IGNORED_MASK) drops FAN_ONDIR and
 *    FAN_EVENT_ON_CHILD; it always applies to directory events, and to
 *    children only when the mark's own mask has FAN_EVENT_ON_CHILD;
 *  - FAN_MARK_IGNORE keeps the two flags and obeys them; on a directory,
 *    mount or filesystem it needs FAN_MARK_IGNORED_SURV_MODIFY;
 *  - without SURV_MODIFY any FS_MODIFY that iterates the mark clears its
 *    ignore mask (both styles);
 *  - an ignore mask (without SURV_MODIFY) is not added to an inode open
 *    for write, so files are only opened for write after the ignore mark.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selftest.h"

/* ------------------------------------------------------------------------ */
/* Local helpers                                                            */
/* ------------------------------------------------------------------------ */

static void open_close_dir(struct fst_ctx *ctx, const char *path) {
	fst_open_close(ctx, path, O_RDONLY | O_DIRECTORY);
}

/* The inode mark of g on path (fdinfo): its user flags, mask and ignore
 * mask, and its inode, sb and file handle. */
#define EXPECT_MARK(ctx, g, path, fl, m, ig)                                                       \
	FST_EXPECT_FDINFO_HAS(ctx, g, fst_fdi_inode(ctx, path, true, fl, m, ig))

/* g has no inode mark on path (by inode number). */
#define EXPECT_NO_MARK(ctx, g, path) expect_no_mark(ctx, g, path, __FILE__, __LINE__)
static void expect_no_mark(struct fst_ctx *ctx, int g, const char *path, const char *file,
			   int line) {
	struct fst_fdi mi;

	if (fst_fdinfo_find_(ctx, g, fst_obj_(ctx, path, true, file, line).ino, &mi, file, line))
		fst_fail_(ctx, file, line,
			  "the group still has a mark on %s (mflags 0x%x mask 0x%x ignored_mask "
			  "0x%x)",
			  path, mi.mflags, mi.mask, mi.ignored);
}

/* ------------------------------------------------------------------------ */
/* IG01: legacy vs new-style ignore masks, SURV_MODIFY                      */
/* ------------------------------------------------------------------------ */

/* A write clears an ignore mask without SURV_MODIFY, but only the one on
 * the written inode. style: FAN_MARK_IGNORED_MASK (legacy) or
 * FAN_MARK_IGNORE. */
static void cleared_by_modify(struct fst_ctx *ctx, unsigned style) {
	int g, fa, fb;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "b");
	fst_mark(ctx, g, FAN_MARK_ADD | style, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD | style, FAN_OPEN, "b");

	fst_open_close(ctx, "a", O_RDONLY);
	fst_open_close(ctx, "b", O_RDONLY);
	fa = fst_open(ctx, "a", O_WRONLY);
	fb = fst_open(ctx, "b", O_WRONLY);
	FST_EXPECT_NONE(ctx, g);

	/* the write to a clears a's ignore mask only */
	fst_write1(ctx, fa);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_open_close(ctx, "b", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* then the write to b clears b's */
	fst_write1(ctx, fb);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fa);
	fst_close(ctx, fb);
	FST_EXPECT_NONE(ctx, g);
}

static void ig01_cleared_by_modify(struct fst_ctx *ctx) {
	cleared_by_modify(ctx, FAN_MARK_IGNORED_MASK);
}

static void ig01_cleared_by_modify_new_style(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	cleared_by_modify(ctx, FAN_MARK_IGNORE);
}

/* One write clears the ignore masks of every group on the inode (inode and
 * mount mark groups alike), except the mark with SURV_MODIFY. */
static void ig01_modify_clears_each_group(struct fst_ctx *ctx) {
	int gi, gm, gs, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_write_file(ctx, "a", "aaaa");
	gi = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gi, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, gi, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, ".");
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "a");

	fd = fst_open(ctx, "a", O_RDWR);
	FST_EXPECT_NONE(ctx, gi);
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, gi);
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);

	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, gi, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT_NONE(ctx, gs);
	fst_close(ctx, fd);
}

/* SURV_MODIFY keeps the ignore mask through writes; removing ignore bits
 * brings exactly those events back. style: FAN_MARK_IGNORED_MASK (legacy)
 * or FAN_MARK_IGNORE. */
static void surv_modify_and_remove(struct fst_ctx *ctx, unsigned style) {
	const uint64_t ign = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int g, fd;

	fst_write_file(ctx, "a", "aaaa");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "a");
	fst_mark(ctx, g, FAN_MARK_ADD | style | FAN_MARK_IGNORED_SURV_MODIFY, ign, "a");

	fd = fst_open(ctx, "a", O_RDWR);
	fst_write1(ctx, fd);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* remove only OPEN from the ignore mask: CLOSE_NOWRITE stays ignored */
	fst_mark(ctx, g, FAN_MARK_REMOVE | style, FAN_OPEN, "a");
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);

	fst_mark(ctx, g, FAN_MARK_REMOVE | style, FAN_CLOSE_NOWRITE, "a");
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
}

static void ig01_surv_modify_and_remove(struct fst_ctx *ctx) {
	surv_modify_and_remove(ctx, FAN_MARK_IGNORED_MASK);
}

static void ig01_surv_modify_and_remove_new_style(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	surv_modify_and_remove(ctx, FAN_MARK_IGNORE);
}

/* The mark API rules between the two styles, and that a refused update
 * leaves the existing ignore mask in force. */
static void ig01_style_rules(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	fst_write_file(ctx, "c", "c");
	fst_write_file(ctx, "e", "e");
	FST_SYS(ctx, mkdir("d", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");

	/* both styles at once */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a",
		     EINVAL);
	/* new style on a directory, a mount, a filesystem needs SURV_MODIFY */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "d", EISDIR);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE, FAN_OPEN, ".",
		     EINVAL);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_IGNORE, FAN_OPEN, ".",
		     EINVAL);
	/* new style keeps event flags, which a file cannot have */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN | FAN_ONDIR, "c", ENOTDIR);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN | FAN_EVENT_ON_CHILD, "c",
		     ENOTDIR);
	/* ... the legacy style silently drops them */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN | FAN_ONDIR, "c");
	EXPECT_MARK(ctx, g, "c", 0, 0, FAN_OPEN);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, "d");
	EXPECT_MARK(ctx, g, "d", FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, 0,
		    FAN_OPEN | FAN_ONDIR);

	/* a: new style, then a legacy update is a downgrade */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "a");
	EXPECT_MARK(ctx, g, "a", FAN_MARK_IGNORE, 0, FAN_OPEN);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "a", EEXIST);
	/* b: SURV_MODIFY cannot be dropped by a new-style update */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, "b");
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE, "b", EEXIST);
	EXPECT_MARK(ctx, g, "b", FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, 0, FAN_OPEN);
	/* e: legacy, then new style is an upgrade; then legacy is refused */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "e");
	EXPECT_MARK(ctx, g, "e", 0, 0, FAN_OPEN);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE, "e");
	EXPECT_MARK(ctx, g, "e", FAN_MARK_IGNORE, 0, FAN_OPEN | FAN_CLOSE_NOWRITE);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "e", EEXIST);

	/* the refused updates changed nothing: a, b, c, e are still ignored */
	fst_open_close(ctx, "a", O_RDONLY);
	fst_open_close(ctx, "b", O_RDONLY);
	fst_open_close(ctx, "c", O_RDONLY);
	fst_open_close(ctx, "e", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	/* control: the same group's filesystem mark sees another file */
	fst_write_file(ctx, "f", NULL);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "f"));
}

/*
 * The MODIFY cycle on a filesystem (sb) mark (LTP fanotify01's filesystem
 * mark variants): a legacy ignore mask in the sb mark is cleared by the
 * next write to any file of the filesystem, one with SURV_MODIFY survives
 * it, and removing the ignore bits (FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK)
 * brings the events back. flags: the group's report flags.
 */
static void sb_ignore_modify_cycle(struct fst_ctx *ctx, unsigned flags) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE | FAN_MODIFY;
	const unsigned sb = FAN_MARK_FILESYSTEM;
	int g, fd;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | flags);
	fst_mark(ctx, g, FAN_MARK_ADD | sb, m, ".");

	/* legacy: CLOSE_NOWRITE ignored on every file of the filesystem */
	fst_mark(ctx, g, FAN_MARK_ADD | sb | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, ".");
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_sb(ctx, ".", 0, m, FAN_CLOSE_NOWRITE));
	for (int i = 0; i < 2; i++) {
		const char *p = i ? "b" : "a";

		fd = fst_open(ctx, p, O_RDONLY);
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, p));
		fst_close(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
	}
	/* a write to b clears it: a's close is back */
	fd = fst_open(ctx, "b", O_WRONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "b"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "b"));
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_sb(ctx, ".", 0, m, 0));
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));

	/* SURV_MODIFY: OPEN and CLOSE stay ignored through a write */
	fst_mark(ctx, g, FAN_MARK_ADD | sb | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN | FAN_CLOSE, ".");
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fd = fst_open(ctx, "b", O_WRONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "b"));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_FDINFO(
	    ctx, g, fst_fdi_sb(ctx, ".", FAN_MARK_IGNORED_SURV_MODIFY, m, FAN_OPEN | FAN_CLOSE));
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* removing the ignore bits brings both events back */
	fst_mark(ctx, g, FAN_MARK_REMOVE | sb | FAN_MARK_IGNORED_MASK, FAN_OPEN | FAN_CLOSE, ".");
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
}

static void ig01_sb_ignore_modify_cycle(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	sb_ignore_modify_cycle(ctx, 0);
}

static void ig01_sb_ignore_modify_cycle_fid(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	sb_ignore_modify_cycle(ctx, FAN_REPORT_FID);
}

/* ------------------------------------------------------------------------ */
/* IG02: an inode ignore mask vs the same group's mount and sb marks         */
/* ------------------------------------------------------------------------ */

/* style: FAN_MARK_IGNORED_MASK (legacy) or FAN_MARK_IGNORE. */
static void inode_ignore_mount_sb(struct fst_ctx *ctx, unsigned style) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int gm, gs, go, gi, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");

	/* gm: a mount mark and an ignore-only inode mark on a */
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, m, ".");
	fst_mark(ctx, gm, FAN_MARK_ADD | style, FAN_OPEN, "a");
	/* gs: an sb mark, and an inode mark on a with the same events and the
	 * ignore mask in the same mark */
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, gs, FAN_MARK_ADD, m, "a");
	fst_mark(ctx, gs, FAN_MARK_ADD | style, FAN_OPEN, "a");
	/* other groups, no ignore masks: an sb mark, an inode mark */
	go = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, go, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	gi = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gi, FAN_MARK_ADD, m, "a");

	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT(ctx, go, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, gi, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_CLOSE_NOWRITE, "a")); /* once: sb + inode mark */
	FST_EXPECT(ctx, go, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	FST_EXPECT(ctx, gi, FST_FAN(FAN_CLOSE_NOWRITE, "a"));

	/* the sibling is not ignored */
	fd = fst_open(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "b"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "b"));
	FST_EXPECT(ctx, go, FST_FAN(FAN_OPEN, "b"));
	FST_EXPECT_NONE(ctx, gi);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "b"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_CLOSE_NOWRITE, "b"));
	FST_EXPECT(ctx, go, FST_FAN(FAN_CLOSE_NOWRITE, "b"));
	FST_EXPECT_NONE(ctx, gi);
}

static void ig02_inode_ignore_mount_sb(struct fst_ctx *ctx) {
	inode_ignore_mount_sb(ctx, FAN_MARK_IGNORED_MASK);
}

static void ig02_inode_ignore_mount_sb_new_style(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	inode_ignore_mount_sb(ctx, FAN_MARK_IGNORE);
}

/* An ignore mark on a directory hides dirent events in it from the same
 * group's sb mark (FID group); FAN_ONDIR decides about subdirectories. */
static void ig02_dir_ignore_dirent_sb(struct fst_ctx *ctx) {
	const uint64_t m = FAN_CREATE | FAN_DELETE | FAN_ATTRIB | FAN_ONDIR;
	int g, go;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("e", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_CREATE | FAN_ATTRIB, "d");
	go = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	fst_mark(ctx, go, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");

	fst_write_file(ctx, "d/f", NULL);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT(ctx, go, { .mask = FAN_CREATE, .dir = "d", .name = "f" });
	fst_write_file(ctx, "e/f", NULL);
	FST_EXPECT(ctx, g, { .mask = FAN_CREATE, .dir = "e", .name = "f" });
	FST_EXPECT(ctx, go, { .mask = FAN_CREATE, .dir = "e", .name = "f" });
	/* ATTRIB of the child is the child's event: d's ignore (no
	 * EVENT_ON_CHILD) does not apply */
	FST_SYS(ctx, chmod("d/f", 0600));
	FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB, .dir = "d", .name = "f" });
	FST_EXPECT(ctx, go, { .mask = FAN_ATTRIB, .dir = "d", .name = "f" });
	FST_SYS(ctx, unlink("d/f"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE, .dir = "d", .name = "f" });
	FST_EXPECT(ctx, go, { .mask = FAN_DELETE, .dir = "d", .name = "f" });

	/* a subdirectory's creation is a directory event: not ignored
	 * without FAN_ONDIR in the ignore mask */
	FST_SYS(ctx, mkdir("d/s", 0755));
	FST_EXPECT(ctx, g, { .mask = FAN_CREATE | FAN_ONDIR, .dir = "d", .name = "s" });
	FST_EXPECT(ctx, go, { .mask = FAN_CREATE | FAN_ONDIR, .dir = "d", .name = "s" });
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_CREATE | FAN_ONDIR, "d");
	FST_SYS(ctx, mkdir("d/t", 0755));
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT(ctx, go, { .mask = FAN_CREATE | FAN_ONDIR, .dir = "d", .name = "t" });
	FST_SYS(ctx, rmdir("d/t"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE | FAN_ONDIR, .dir = "d", .name = "t" });
	FST_EXPECT(ctx, go, { .mask = FAN_DELETE | FAN_ONDIR, .dir = "d", .name = "t" });
	fst_write_file(ctx, "d/g", NULL);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT(ctx, go, { .mask = FAN_CREATE, .dir = "d", .name = "g" });
}

/* ------------------------------------------------------------------------ */
/* IG03: a mount ignore mask, through that mount only                       */
/* ------------------------------------------------------------------------ */

/* ign: FAN_MARK_IGNORE_SURV, or the legacy FAN_MARK_IGNORED_MASK |
 * FAN_MARK_IGNORED_SURV_MODIFY (which runs before 6.0 too). */
static void mount_ignore_bind(struct fst_ctx *ctx, unsigned ign) {
	const unsigned rm = ign & (FAN_MARK_IGNORE | FAN_MARK_IGNORED_MASK);
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	const char *b;
	char bf[256];
	int g, h, k, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	if (ign & FAN_MARK_IGNORE)
		fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "data");
	b = fst_bind(ctx, "d", "b");
	snprintf(bf, sizeof(bf), "%s/f", b);

	/* g: sb mark, inode mark, ignore OPEN on the bind mount B */
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "d/f");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | ign, FAN_OPEN, b);
	/* h: another group, no ignore */
	h = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, h, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	/* k: an sb ignore mask: through every mount */
	k = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, k, FAN_MARK_ADD, m, "d/f");
	fst_mark(ctx, k, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, b);
	fst_mark(ctx, k, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | ign, FAN_OPEN, ".");

	for (int i = 0; i < 2; i++) {
		/* through B: hidden from g (sb and inode mark alike), not from h */
		fd = fst_open(ctx, bf, O_RDONLY);
		FST_EXPECT_NONE(ctx, g);
		FST_EXPECT(ctx, h, FST_FAN(FAN_OPEN, "d/f"));
		FST_EXPECT_NONE(ctx, k);
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
		FST_EXPECT_NONE(ctx, h);
		FST_EXPECT(ctx, k, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));

		/* through the original mount: not hidden from g */
		fd = fst_open(ctx, "d/f", O_RDONLY);
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
		FST_EXPECT(ctx, h, FST_FAN(FAN_OPEN, "d/f"));
		FST_EXPECT_NONE(ctx, k);
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
		FST_EXPECT_NONE(ctx, h);
		FST_EXPECT(ctx, k, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	}

	/* removing the mount ignore brings B's events back to g */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_MOUNT | rm, FAN_OPEN, b);
	fd = fst_open(ctx, bf, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, h, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, k);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	FST_EXPECT_NONE(ctx, h);
	FST_EXPECT(ctx, k, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
}

static void ig03_mount_ignore_bind(struct fst_ctx *ctx) {
	mount_ignore_bind(ctx, FAN_MARK_IGNORE_SURV);
}

static void ig03_mount_ignore_bind_legacy(struct fst_ctx *ctx) {
	mount_ignore_bind(ctx, FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY);
}

/* A legacy mount ignore mask is cleared by a write through that mount, not
 * by a write to the same file through another mount. */
static void ig03_legacy_mount_ignore_cleared(struct fst_ctx *ctx) {
	const char *b;
	char bf[256];
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "data");
	b = fst_bind(ctx, "d", "b");
	snprintf(bf, sizeof(bf), "%s/f", b);

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORED_MASK, FAN_OPEN, b);

	fst_open_close(ctx, bf, O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));

	/* a write through the original mount leaves B's ignore mask alone */
	fd = fst_open(ctx, "d/f", O_WRONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, bf, O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* a write through B clears it */
	fd = fst_open(ctx, bf, O_WRONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, bf, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
}

/* ------------------------------------------------------------------------ */
/* IG04: parent ignore masks, EVENT_ON_CHILD and ONDIR                      */
/* ------------------------------------------------------------------------ */

static void make_tree(struct fst_ctx *ctx) {
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/f", "f");
	fst_write_file(ctx, "d/s/f", "g");
}

/* New style: each combination of EVENT_ON_CHILD and ONDIR in an ignore mark
 * on d, one group each, all watching OPEN|ONDIR on the mount. */
static void ig04_parent_ignore_flags(struct fst_ctx *ctx) {
	static const uint64_t flags[4] = { 0, FAN_EVENT_ON_CHILD, FAN_ONDIR,
					   FAN_EVENT_ON_CHILD | FAN_ONDIR };
	/* what each group sees, per operation: 1 = reported */
	static const bool sees_file[4] = { 1, 0, 1, 0 };  /* d/f (child) */
	static const bool sees_sub[4] = { 1, 1, 1, 0 };   /* d/s (child dir) */
	static const bool sees_self[4] = { 1, 1, 0, 0 };  /* d itself */
	static const bool sees_grand[4] = { 1, 1, 1, 1 }; /* d/s/f */
	const struct {
		const char *path;
		bool dir;
		const bool *sees;
	} ops[] = { { "d/f", false, sees_file },
		    { "d/s", true, sees_sub },
		    { "d", true, sees_self },
		    { "d/s/f", false, sees_grand } };
	int g[4];

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	make_tree(ctx);
	for (int i = 0; i < 4; i++) {
		g[i] = fst_fan_init(ctx, FAN_CLASS_NOTIF);
		fst_mark(ctx, g[i], FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_ONDIR, ".");
		fst_mark(ctx, g[i], FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | flags[i], "d");
		fst_log(ctx, "g[%d] = fd %d ignores %s on d", i, g[i],
			fst_mask_str(FSN_MASK_FANOTIFY_EVENT, FAN_OPEN | flags[i]));
	}
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		fst_log(ctx, "open %s", ops[o].path);
		if (ops[o].dir)
			open_close_dir(ctx, ops[o].path);
		else
			fst_open_close(ctx, ops[o].path, O_RDONLY);
		for (int i = 0; i < 4; i++) {
			if (ops[o].sees[i])
				FST_EXPECT(ctx, g[i], FST_FAN(FAN_OPEN, ops[o].path));
			else
				FST_EXPECT_NONE(ctx, g[i]);
		}
	}
}

/* Legacy: the ignore mask applies to children only if the mark's own mask
 * has EVENT_ON_CHILD, and always to directories (ONDIR is dropped). */
static void ig04_legacy_parent_ignore(struct fst_ctx *ctx) {
	int l0, l1;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	make_tree(ctx);
	/* l0: an ignore-only mark on d */
	l0 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, l0, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, l0, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");
	/* l1: a mark on d watching children (CLOSE_WRITE) with the same ignore */
	l1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, l1, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, l1, FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, l1, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");

	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, l1);
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT_NONE(ctx, l1);
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT_NONE(ctx, l1);
	fst_open_close(ctx, "d/s/f", O_RDONLY);
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/s/f"));
	FST_EXPECT(ctx, l1, FST_FAN(FAN_OPEN, "d/s/f"));

	/* swap EVENT_ON_CHILD between the two marks */
	fst_mark(ctx, l0, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, l1, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT(ctx, l1, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT(ctx, l1, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT_NONE(ctx, l1);
}

/* Another group watching d's children makes the child events go through
 * d's marks; ignore masks that do not apply to children must stay
 * without effect (the check is per mark, not per inode). a1: a new-style
 * ignore without EVENT_ON_CHILD; b watches d's children. */
static void ig04_other_group_on_child(struct fst_ctx *ctx) {
	int a1, b;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	make_tree(ctx);
	a1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, a1, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, a1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, "d");
	b = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");

	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, a1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, a1, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d"));

	/* control: with EVENT_ON_CHILD added, a1's ignore applies to children */
	fst_mark(ctx, a1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/s"));
	/* and b going away does not change what a1 ignores */
	fst_close(ctx, b);
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, a1);
}

/* The same with a2's legacy ignore in a mark on d that does not watch
 * children (it asks for d's CLOSE_WRITE): it hides d's own open only. */
static void ig04_other_group_on_child_legacy(struct fst_ctx *ctx) {
	int a2, b;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	make_tree(ctx);
	a2 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, a2, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, a2, FAN_MARK_ADD, FAN_CLOSE_WRITE, "d");
	fst_mark(ctx, a2, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "d");
	b = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");

	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, a2);
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d"));
	/* b going away does not change what a2 ignores */
	fst_close(ctx, b);
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, a2);
}

/* One mark on d that watches OPEN of d and its children (files and
 * subdirectories) and has an ignore mask in the same mark: the ignore
 * applies to each kind of event exactly as its flags (new style) or the
 * legacy rules say. */
static void ig04_watching_parent_own_ignore(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD;
	int n1, n2;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	make_tree(ctx);
	n1 = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* ignores d itself only */
	fst_mark(ctx, n1, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, n1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, "d");
	n2 = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* ignores non-dir children only */
	fst_mark(ctx, n2, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, n2, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");

	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, n2);
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d"));
	/* control: a grandchild is nobody's child here */
	fst_open_close(ctx, "d/s/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT_NONE(ctx, n2);
	/* control: without the ignore masks each group gets all three */
	fst_mark(ctx, n1, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN | FAN_ONDIR, "d");
	fst_mark(ctx, n2, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d"));
}

/* The legacy style of the same: the ignore in a mark watching d's children
 * and subdirectories applies to everything. */
static void ig04_watching_parent_own_ignore_legacy(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD;
	int l;

	make_tree(ctx);
	l = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, l, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, l, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "d");

	fst_open_close(ctx, "d/f", O_RDONLY);
	open_close_dir(ctx, "d/s");
	open_close_dir(ctx, "d");
	fst_open_close(ctx, "d/s/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, l);
	/* control: without the ignore mask it gets all three */
	fst_mark(ctx, l, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN, "d"));
	fst_open_close(ctx, "d/s/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, l);
}

/* The child is open (dentry cached) before an ignore-only parent mark with
 * EVENT_ON_CHILD is added: the ignore applies at once; removing the mark
 * restores the events; several cycles, in one style (legacy: the flag in
 * the mark's mask). */
static void cached_child_cycles(struct fst_ctx *ctx, bool legacy) {
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	fd = fst_open(ctx, "d/c", O_RDWR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_ACCESS | FAN_MODIFY, ".");

	for (int i = 0; i < 4; i++) {
		fst_read1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
		if (legacy) {
			fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
			fst_mark(ctx, g,
				 FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
				     FAN_MARK_IGNORED_SURV_MODIFY,
				 FAN_ACCESS, "d");
		} else {
			fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
				 FAN_ACCESS | FAN_EVENT_ON_CHILD, "d");
		}
		fst_read1(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
		fst_read1(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
		if (legacy) {
			/* emptying a legacy ignore mask destroys a mark whose
			 * mask has only event flags left (the flags are in the
			 * umask of a legacy removal) */
			fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_ACCESS, "d");
		} else {
			fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE,
				 FAN_ACCESS | FAN_EVENT_ON_CHILD, "d");
		}
		EXPECT_NO_MARK(ctx, g, "d");
	}
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
}

static void ig04_cached_child_cycles(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	cached_child_cycles(ctx, false);
}

static void ig04_cached_child_cycles_legacy(struct fst_ctx *ctx) {
	cached_child_cycles(ctx, true);
}

/* A legacy parent ignore mask (mark with EVENT_ON_CHILD) is cleared by a
 * child's write, which iterates the parent's mark; SURV_MODIFY keeps it. */
static void ig04_legacy_parent_cleared_by_child(struct fst_ctx *ctx) {
	int g, fd, fe;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("e", 0755));
	fst_write_file(ctx, "d/c", "c");
	fst_write_file(ctx, "e/c", "c");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "e");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "e");

	fd = fst_open(ctx, "d/c", O_WRONLY);
	fe = fst_open(ctx, "e/c", O_WRONLY);
	fst_open_close(ctx, "d/c", O_RDONLY);
	fst_open_close(ctx, "e/c", O_RDONLY);
	open_close_dir(ctx, "d");
	open_close_dir(ctx, "e");
	FST_EXPECT_NONE(ctx, g);

	fst_write1(ctx, fd);
	fst_write1(ctx, fe);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_open_close(ctx, "e/c", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	/* the directory's own opens: d's ignore mask is gone, e's is not */
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	open_close_dir(ctx, "e");
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, fd);
	fst_close(ctx, fe);
}

/*
 * IG09, the other side of ig04_legacy_parent_cleared_by_child: a parent mark
 * that does not watch children (no EVENT_ON_CHILD) is not the child's
 * business. The child's write leaves the parent's legacy ignore mask alone
 * (the directory's own opens stay ignored, in a group where a filesystem
 * mark reports them and in one with only that inode mark), and the inode
 * mark gets none of the child's events.
 */
static void ig09_child_leaves_unwatching_parent(struct fst_ctx *ctx) {
	int gs, gi, fd;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	/* gs: a filesystem mark reports opens; d ignores its own */
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");
	/* gi: only d's inode mark, for its own modify and opens, ignoring opens */
	gi = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gi, FAN_MARK_ADD, FAN_MODIFY | FAN_OPEN | FAN_ONDIR, "d");
	fst_mark(ctx, gi, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");

	fd = fst_open(ctx, "d/c", O_WRONLY);
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "d/c"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT_NONE(ctx, gi);

	/* the child's write: nothing for the parent's mark, its ignore mask stays */
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT_NONE(ctx, gi);
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT_NONE(ctx, gi);
	/* the child's own opens are still reported by the filesystem mark */
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "d/c"));
	FST_EXPECT_NONE(ctx, gi);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT_NONE(ctx, gi);
}

/*
 * IG04 with an inode mark reporting (LTP fanotify10: "ignore events on file
 * created inside a parent watching children", and "don't ignore ... not
 * watching children"): the file's own mark asks for OPEN, its parent has
 * an ignore mask for OPEN. The ignore hides the file's event exactly when
 * it applies to children: new style with FAN_EVENT_ON_CHILD in the ignore
 * mask (n1; n0 without), legacy with FAN_EVENT_ON_CHILD in the parent
 * mark's mask (l1; l0 without). The parent marks also ask for other
 * events, which must neither change that nor leak: n1 the directory's
 * own close (FAN_CLOSE | FAN_ONDIR, not its children's), n0 its
 * children's CLOSE_WRITE. c has only the inode mark.
 */
static void ig04_parent_ignore_inode_mark(struct fst_ctx *ctx) {
	int n1, n0, l1, l0, c, fd;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	n1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, n1, FAN_MARK_ADD, FAN_CLOSE | FAN_ONDIR, "d");
	n0 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n0, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, "d");
	fst_mark(ctx, n0, FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD | FAN_ONDIR, "d");
	l1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, l1, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "d");
	fst_mark(ctx, l1, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	l0 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, l0, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "d");
	c = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n1, FAN_MARK_ADD, FAN_OPEN, "d/f");
	fst_mark(ctx, n0, FAN_MARK_ADD, FAN_OPEN, "d/f");
	fst_mark(ctx, l1, FAN_MARK_ADD, FAN_OPEN, "d/f");
	fst_mark(ctx, l0, FAN_MARK_ADD, FAN_OPEN, "d/f");
	fst_mark(ctx, c, FAN_MARK_ADD, FAN_OPEN, "d/f");

	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT(ctx, n0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, l1);
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, c, FST_FAN(FAN_OPEN, "d/f"));
	fd = fst_open(ctx, "d/f", O_WRONLY);
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT(ctx, n0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, l1);
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, c, FST_FAN(FAN_OPEN, "d/f"));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT(ctx, n0, FST_FAN(FAN_CLOSE_WRITE, "d/f"));
	FST_EXPECT_NONE(ctx, l1);
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT_NONE(ctx, c);
	/* the directory itself: only n1 asked for its close */
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT_NONE(ctx, n0);
	FST_EXPECT_NONE(ctx, l1);
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT_NONE(ctx, c);

	/* control: without the ignore masks n1 and l1 get the open once */
	fst_mark(ctx, n1, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, l1, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, n0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, l1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, c, FST_FAN(FAN_OPEN, "d/f"));
}

/*
 * IG09 while another group watches the directory's children (LTP
 * fanotify09, "Events on non-dir child with ignore mask on parent"): w's
 * parent mark with FAN_EVENT_ON_CHILD makes every child event visit d's
 * marks, those of the other groups too. Their marks on d do not watch
 * children (m: ignore-only, next to a mount mark; p: asks for d's own
 * close), so the child's write gets them nothing and leaves their legacy
 * ignore masks (without SURV_MODIFY) in place: d's own close stays
 * ignored. w gets the child's MODIFY once.
 */
static void ig09_other_group_watches_children(struct fst_ctx *ctx) {
	int w, m, p, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	w = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, w, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	m = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, m, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_CLOSE_NOWRITE | FAN_ONDIR, ".");
	fst_mark(ctx, m, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "d");
	p = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_MODIFY | FAN_CLOSE_NOWRITE | FAN_ONDIR, "d");
	fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "d");

	fd = fst_open(ctx, "d/c", O_WRONLY);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, w, FST_FAN(FAN_MODIFY, "d/c"));
	FST_EXPECT_NONE(ctx, m);
	FST_EXPECT_NONE(ctx, p);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, w);
	FST_EXPECT_NONE(ctx, m);
	FST_EXPECT_NONE(ctx, p);
	EXPECT_MARK(ctx, m, "d", 0, 0, FAN_CLOSE_NOWRITE);
	EXPECT_MARK(ctx, p, "d", 0, FAN_MODIFY | FAN_CLOSE_NOWRITE | FAN_ONDIR, FAN_CLOSE_NOWRITE);
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, w);
	FST_EXPECT_NONE(ctx, m);
	FST_EXPECT_NONE(ctx, p);

	/* the child's own close: m's mount mark, not p's mark on d */
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT_NONE(ctx, w);
	FST_EXPECT(ctx, m, FST_FAN(FAN_CLOSE_NOWRITE, "d/c"));
	FST_EXPECT_NONE(ctx, p);
	/* control: without the ignore masks d's close is reported */
	fst_mark(ctx, m, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "d");
	fst_mark(ctx, p, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "d");
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, w);
	FST_EXPECT(ctx, m, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT(ctx, p, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
}

/* ------------------------------------------------------------------------ */
/* IG11: ignore masks in a FID group with names (DFID_NAME | FID)           */
/* ------------------------------------------------------------------------ */

enum { M_INODE, M_PARENT, M_MOUNT, M_SB, M_TYPES };
static const char *const m_type_name[M_TYPES] = { "inode", "parent", "mount", "sb" };

/* Does a mark of type t (on d/f, on d, on the bind mount b, on the
 * filesystem) see an open of file in directory dir, through b or not? */
static bool m_covers(int t, const char *dir, const char *file, bool via_b) {
	switch (t) {
	case M_INODE: return strcmp(file, "d/f") == 0;
	case M_PARENT: return strcmp(dir, "d") == 0;
	case M_MOUNT: return via_b;
	default: return true;
	}
}

/* Place a mark of type t: FAN_OPEN asked (ignore false) or ignored. */
static void m_place(struct fst_ctx *ctx, int g, int t, bool ignore, const char *b) {
	const unsigned ig = ignore ? FAN_MARK_IGNORE_SURV : 0;

	switch (t) {
	case M_INODE: fst_mark(ctx, g, FAN_MARK_ADD | ig, FAN_OPEN, "d/f"); break;
	case M_PARENT:
		fst_mark(ctx, g, FAN_MARK_ADD | ig, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
		break;
	case M_MOUNT: fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | ig, FAN_OPEN, b); break;
	default: fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | ig, FAN_OPEN, "."); break;
	}
}

/*
 * LTP fanotify10's FAN_REPORT_DFID_NAME_FID groups: one group per
 * (reporting mark, ignore mark) pair of inode (d/f), parent (d, with
 * FAN_EVENT_ON_CHILD), mount (the bind mount b of the work directory) and
 * filesystem marks, the ignore in the new style. A group reports an open
 * exactly when its reporting mark sees it and its ignore mark does not
 * cover it; the event carries the file, its directory and its name. In a
 * DFID_NAME group every non-directory mark is sent its children's events
 * with the parent (fanotify_mark_add_to_mask() adds FS_EVENT_ON_CHILD), so
 * the parent's ignore mask is merged with mount and sb marks here on a
 * path fd-mode groups do not take. Opens of d/f, d/h (d's other child) and
 * e/g (elsewhere), each through b and through the original mount.
 */
static void ig11_ignore_matrix_dfid_name_fid(struct fst_ctx *ctx) {
	static const struct {
		const char *dir, *file, *name;
	} files[] = { { "d", "d/f", "f" }, { "d", "d/h", "h" }, { "e", "e/g", "g" } };
	int g[M_TYPES][M_TYPES];
	const char *b;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("e", 0755));
	fst_write_file(ctx, "d/f", "f");
	fst_write_file(ctx, "d/h", "h");
	fst_write_file(ctx, "e/g", "g");
	b = fst_bind(ctx, ".", "b");
	for (int r = 0; r < M_TYPES; r++) {
		for (int i = 0; i < M_TYPES; i++) {
			g[r][i] = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
							FAN_REPORT_FID);
			m_place(ctx, g[r][i], r, false, b);
			m_place(ctx, g[r][i], i, true, b);
		}
	}

	for (int via_b = 0; via_b < 2; via_b++) {
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			const char *path =
			    via_b ? fst_strdupf(ctx, "%s/%s", b, files[f].file) : files[f].file;

			fst_log(ctx, "open %s", path);
			fst_open_close(ctx, path, O_RDONLY);
			for (int r = 0; r < M_TYPES; r++) {
				for (int i = 0; i < M_TYPES; i++) {
					fst_log(ctx, "  group: %s mark, %s ignore", m_type_name[r],
						m_type_name[i]);
					if (m_covers(r, files[f].dir, files[f].file, via_b) &&
					    !m_covers(i, files[f].dir, files[f].file, via_b))
						FST_EXPECT(ctx, g[r][i],
							   { .mask = FAN_OPEN,
							     .path = files[f].file,
							     .dir = files[f].dir,
							     .name = files[f].name });
					else
						FST_EXPECT_NONE(ctx, g[r][i]);
				}
			}
		}
	}
}

/* ------------------------------------------------------------------------ */
/* IG05: ignore masks in every priority class                               */
/* ------------------------------------------------------------------------ */

static const unsigned classes[3] = { FAN_CLASS_NOTIF, FAN_CLASS_CONTENT, FAN_CLASS_PRE_CONTENT };

/* style: FAN_MARK_IGNORED_MASK (legacy) or FAN_MARK_IGNORE. */
static void notif_events_each_class(struct fst_ctx *ctx, unsigned style) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int ig[3], n[3], fd;

	fst_require(ctx, FSN_FEAT_CLASS_CONTENT);
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	for (int c = 0; c < 3; c++) {
		ig[c] = fst_fan_init(ctx, classes[c]);
		fst_mark(ctx, ig[c], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
		fst_mark(ctx, ig[c], FAN_MARK_ADD | style, FAN_OPEN, "a");
		n[c] = fst_fan_init(ctx, classes[c]);
		fst_mark(ctx, n[c], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	}

	fd = fst_open(ctx, "a", O_RDONLY);
	for (int c = 0; c < 3; c++) {
		FST_EXPECT_NONE(ctx, ig[c]);
		FST_EXPECT(ctx, n[c], FST_FAN(FAN_OPEN, "a"));
	}
	fst_close(ctx, fd);
	for (int c = 0; c < 3; c++) {
		FST_EXPECT(ctx, ig[c], FST_FAN(FAN_CLOSE_NOWRITE, "a"));
		FST_EXPECT(ctx, n[c], FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	}
	fd = fst_open(ctx, "b", O_RDONLY);
	for (int c = 0; c < 3; c++) {
		FST_EXPECT(ctx, ig[c], FST_FAN(FAN_OPEN, "b"));
		FST_EXPECT(ctx, n[c], FST_FAN(FAN_OPEN, "b"));
	}
	fst_close(ctx, fd);
	for (int c = 0; c < 3; c++) {
		FST_EXPECT(ctx, ig[c], FST_FAN(FAN_CLOSE_NOWRITE, "b"));
		FST_EXPECT(ctx, n[c], FST_FAN(FAN_CLOSE_NOWRITE, "b"));
	}
}

static void ig05_notif_events_each_class(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	notif_events_each_class(ctx, FAN_MARK_IGNORE);
}

static void ig05_notif_events_each_class_legacy(struct fst_ctx *ctx) {
	notif_events_each_class(ctx, FAN_MARK_IGNORED_MASK);
}

/* Permission events: a CONTENT and a PRE_CONTENT group ignoring OPEN_PERM
 * on a are not asked (the open does not wait for them); the groups that do
 * not ignore are asked exactly once, in class order. */
static void perm_ignore_each_class(struct fst_ctx *ctx, unsigned style) {
	struct fst_child *c;
	int gs[4], ic, ip;

	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	ic = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, ic, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	fst_mark(ctx, ic, FAN_MARK_ADD | style, FAN_OPEN_PERM, "a");
	ip = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, ip, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	fst_mark(ctx, ip, FAN_MARK_ADD | style, FAN_OPEN_PERM, "a");

	/* only ignoring groups: the open of a is not blocked at all */
	fst_child_expect(ctx, fst_spawn_open(ctx, "a", O_RDONLY), 0);
	FST_EXPECT_NONE(ctx, ic);
	FST_EXPECT_NONE(ctx, ip);

	gs[0] = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, gs[0], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	gs[1] = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, gs[1], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	c = fst_spawn_open(ctx, "a", O_RDONLY);
	fst_allow_all(ctx, c, gs, 2, FST_PERM(c, FAN_OPEN_PERM, "a"));
	FST_EXPECT_NONE(ctx, ic);
	FST_EXPECT_NONE(ctx, ip);

	/* control: all four are asked for b */
	gs[2] = ic;
	gs[3] = ip;
	c = fst_spawn_open(ctx, "b", O_RDONLY);
	fst_allow_all(ctx, c, gs, 4, FST_PERM(c, FAN_OPEN_PERM, "b"));
}

static void ig05_perm_ignore_each_class(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	perm_ignore_each_class(ctx, FAN_MARK_IGNORE);
}

static void ig05_perm_ignore_each_class_legacy(struct fst_ctx *ctx) {
	perm_ignore_each_class(ctx, FAN_MARK_IGNORED_MASK);
}

/* Pre-content events: FAN_PRE_ACCESS ignored on a for one group only. */
static void ig05_pre_access_ignore(struct fst_ctx *ctx) {
	struct fst_child *c;
	struct fst_exp x;
	int gs[2], ip;

	fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "a", "content of a");
	fst_write_file(ctx, "b", "content of b");
	ip = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, ip, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_PRE_ACCESS, ".");
	fst_mark(ctx, ip, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_PRE_ACCESS, "a");

	fst_child_expect(ctx, fst_spawn_read(ctx, "a"), 0);
	FST_EXPECT_NONE(ctx, ip);

	gs[0] = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, gs[0], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_PRE_ACCESS, ".");
	/* (a 1-byte read at 0: the RANGE is the first page) */
	c = fst_spawn_read(ctx, "a");
	x = fst_pre_access("a", c->pid, 0, 1);
	fst_allow_all(ctx, c, gs, 1, &x);
	FST_EXPECT_NONE(ctx, ip);

	gs[1] = ip;
	c = fst_spawn_read(ctx, "b");
	x = fst_pre_access("b", c->pid, 0, 1);
	fst_allow_all(ctx, c, gs, 2, &x);

	/* the legacy style too */
	fst_mark(ctx, gs[0], FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_PRE_ACCESS, "b");
	c = fst_spawn_read(ctx, "b");
	x = fst_pre_access("b", c->pid, 0, 1);
	fst_allow_all(ctx, c, gs + 1, 1, &x);
	FST_EXPECT_NONE(ctx, gs[0]);
}

/* ------------------------------------------------------------------------ */
/* IG06: evictable ignore marks                                             */
/* ------------------------------------------------------------------------ */

/* Evictable -> normal upgrade, the refused downgrades, and an empty mask
 * destroying the mark (after which an evictable mark can be added anew). */
static void ig06_evictable_upgrade_downgrade(struct fst_ctx *ctx) {
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_EVICTABLE);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_CLOSE_NOWRITE, ".");

	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, FAN_OPEN, "a");
	EXPECT_MARK(ctx, g, "a", FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, 0, FAN_OPEN);
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));

	/* upgrade: the same mark, no longer evictable, still ignoring */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "a");
	EXPECT_MARK(ctx, g, "a", FAN_MARK_IGNORE, 0, FAN_OPEN);
	/* downgrade: refused, whatever it adds; nothing changes */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE,
		     "a", EEXIST);
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_ACCESS, "a", EEXIST);
	EXPECT_MARK(ctx, g, "a", FAN_MARK_IGNORE, 0, FAN_OPEN);
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));

	/* b: a normal mark first; an evictable ignore update is refused and
	 * adds no ignore mask */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS, "b");
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, FAN_OPEN, "b",
		     EEXIST);
	EXPECT_MARK(ctx, g, "b", 0, FAN_ACCESS, 0);
	fd = fst_open(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "b"));
	/* only inode marks can be evictable */
	FST_MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_EVICTABLE, FAN_ACCESS,
		     ".", EINVAL);

	/* an empty mask destroys a's mark: OPEN is back, and a new evictable
	 * mark can be added (the old, non-evictable one would refuse it) */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN, "a");
	EXPECT_NO_MARK(ctx, g, "a");
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, FAN_OPEN, "a");
	EXPECT_MARK(ctx, g, "a", FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, 0, FAN_OPEN);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	/* b's mark loses its last bit too */
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_ACCESS, "b");
	EXPECT_NO_MARK(ctx, g, "b");
}

static void drop_caches(struct fst_ctx *ctx) {
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		fst_skip(ctx, "cannot open /proc/sys/vm/drop_caches: %s", fst_errname(errno));
	if (write(fd, "2", 1) != 1)
		fst_skip(ctx, "writing /proc/sys/vm/drop_caches: %s", fst_errname(errno));
	close(fd);
}

#define EVICT_TRIES 10

/*
 * Inode eviction. e has an evictable ignore mark and nothing else holds
 * its inode; so has the directory d (ignoring its children's opens); u has
 * one that was upgraded to a normal mark (which pins the inode); p has an
 * evictable one but is held open. drop_caches (2: dentries and inodes
 * only, harmless) is the only way to evict an inode that is still linked.
 * On the disk filesystems nothing but the marks refers to e's and d's
 * clean inodes, so they must go within EVICT_TRIES drops (normally the
 * first; a mark that wrongly pins its inode fails here). tmpfs pins every
 * dentry, so nothing is evicted there. Either way an ignore mask applies
 * exactly while its mark exists (fdinfo), and u and p keep theirs.
 * mark_type is the reporting mark of the group: FAN_MARK_FILESYSTEM or
 * FAN_MARK_MOUNT, on the work directory. ign is how the ignore masks are
 * set: FAN_MARK_IGNORE_SURV (6.0) or, as LTP's fanotify23 does, the legacy
 * FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY (5.19, with
 * evictable marks); fdinfo shows FAN_MARK_IGNORE for the first only.
 */
static void evictable_evicted(struct fst_ctx *ctx, unsigned mark_type, unsigned ign) {
	const unsigned shown = (ign & FAN_MARK_IGNORE) | FAN_MARK_IGNORED_SURV_MODIFY;
	const unsigned fl = FAN_MARK_EVICTABLE | shown;
	/* a legacy ignore mask ignores FAN_EVENT_ON_CHILD: d's never hides
	 * its children's events (IG04) */
	const bool hides_children = (ign & FAN_MARK_IGNORE) != 0;
	const bool tmpfs = strcmp(ctx->fs, "tmpfs") == 0;
	ino_t ino_e, ino_d;
	bool have_e = true, have_d = true;
	int g, pfd, tries;

	fst_require(ctx, FSN_FEAT_MARK_EVICTABLE);
	if (ign & FAN_MARK_IGNORE)
		fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_require_mark_type(ctx, mark_type);
	fst_write_file(ctx, "e", NULL);
	fst_write_file(ctx, "u", NULL);
	fst_write_file(ctx, "p", NULL);
	fst_write_file(ctx, "x", NULL);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", NULL);
	ino_e = fst_obj(ctx, "e").ino;
	ino_d = fst_obj(ctx, "d").ino;
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | mark_type, FAN_OPEN, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | ign, FAN_OPEN, "e");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | ign, FAN_OPEN | FAN_EVENT_ON_CHILD,
		 "d");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | ign, FAN_OPEN, "u");
	fst_mark(ctx, g, FAN_MARK_ADD | ign, FAN_OPEN, "u");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | ign, FAN_OPEN, "p");
	pfd = fst_open(ctx, "p", O_RDONLY);
	fst_open_close(ctx, "e", O_RDONLY);
	fst_open_close(ctx, "u", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "d/c", O_RDONLY);
	if (hides_children)
		FST_EXPECT_NONE(ctx, g);
	else
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_open_close(ctx, "x", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "x"));

	FST_SYS(ctx, syncfs(ctx->workfd)); /* clean inodes can be evicted */
	for (tries = 1; tries <= (tmpfs ? 1 : EVICT_TRIES) && (have_e || have_d); tries++) {
		drop_caches(ctx);
		/* fdinfo does not look the inodes up again */
		have_e = fst_fdinfo_find(ctx, g, ino_e, NULL);
		have_d = fst_fdinfo_find(ctx, g, ino_d, NULL);
	}
	fst_log(ctx, "%s: after %d drop_caches: e %s, d %s", ctx->fs, tries - 1,
		have_e ? "cached" : "evicted", have_d ? "cached" : "evicted");
	if (!tmpfs && (have_e || have_d))
		fst_fail(ctx,
			 "%s: inode of %s not evicted after %d drop_caches although only an "
			 "evictable mark refers to it",
			 ctx->fs, have_e ? "e" : "d", EVICT_TRIES);

	/* pinned inodes keep their marks, and the marks keep applying */
	EXPECT_MARK(ctx, g, "u", shown, 0, FAN_OPEN);
	EXPECT_MARK(ctx, g, "p", fl, 0, FAN_OPEN);
	fst_open_close(ctx, "u", O_RDONLY);
	fst_open_close(ctx, "p", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* an ignore mask applies exactly as long as its mark exists */
	fst_open_close(ctx, "e", O_RDONLY);
	if (have_e) {
		FST_EXPECT_NONE(ctx, g);
		EXPECT_MARK(ctx, g, "e", fl, 0, FAN_OPEN);
	} else {
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "e"));
		EXPECT_NO_MARK(ctx, g, "e");
	}
	fst_open_close(ctx, "d/c", O_RDONLY);
	if (have_d) {
		if (hides_children)
			FST_EXPECT_NONE(ctx, g);
		else
			FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
		/* (the legacy mask does not keep FAN_EVENT_ON_CHILD) */
		EXPECT_MARK(ctx, g, "d", fl, 0,
			    FAN_OPEN | (hides_children ? FAN_EVENT_ON_CHILD : 0));
	} else {
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
		EXPECT_NO_MARK(ctx, g, "d");
	}
	fst_close(ctx, pfd);
	FST_EXPECT_NONE(ctx, g);
}

/* The filesystem mark reports what the ignore marks no longer hide. */
static void ig06_evictable_evicted(struct fst_ctx *ctx) {
	evictable_evicted(ctx, FAN_MARK_FILESYSTEM, FAN_MARK_IGNORE_SURV);
}

/* The same with legacy ignore masks (FAN_MARK_IGNORED_MASK): the evictable
 * half runs on kernels without FAN_MARK_IGNORE (5.19). */
static void ig06_evictable_evicted_legacy(struct fst_ctx *ctx) {
	evictable_evicted(ctx, FAN_MARK_FILESYSTEM,
			  FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY);
}

/* The same with a mount mark reporting (LTP fanotify10: "don't ignore
 * mount events created on file with evicted ignore mark", and inside a
 * parent with one). */
static void ig06_evictable_evicted_mount(struct fst_ctx *ctx) {
	evictable_evicted(ctx, FAN_MARK_MOUNT, FAN_MARK_IGNORE_SURV);
}

/* ------------------------------------------------------------------------ */
/* IG07: OPEN vs OPEN_EXEC                                                  */
/* ------------------------------------------------------------------------ */

/* style: FAN_MARK_IGNORED_MASK (legacy) or FAN_MARK_IGNORE. */
static void open_vs_open_exec(struct fst_ctx *ctx, unsigned style) {
	const uint64_t m = FAN_OPEN | FAN_OPEN_EXEC;
	struct fst_child *c;
	int g1, g2, g3;

	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_copy_true(ctx, "prog", 0755);
	/* g1: inode mark, ignores OPEN; g2: sb mark, ignores OPEN_EXEC;
	 * g3: sb mark, no ignore */
	g1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g1, FAN_MARK_ADD, m, "prog");
	fst_mark(ctx, g1, FAN_MARK_ADD | style, FAN_OPEN, "prog");
	g2 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g2, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, g2, FAN_MARK_ADD | style, FAN_OPEN_EXEC, "prog");
	g3 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g3, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");

	c = fst_spawn_exec(ctx, "./prog");
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, g1, { .mask = FAN_OPEN_EXEC, .path = "prog", .pid = c->pid });
	FST_EXPECT(ctx, g2, { .mask = FAN_OPEN, .path = "prog", .pid = c->pid });
	FST_EXPECT(ctx, g3, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "prog", .pid = c->pid });

	fst_open_close(ctx, "prog", O_RDONLY);
	FST_EXPECT_NONE(ctx, g1);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "prog"));
	FST_EXPECT(ctx, g3, FST_FAN(FAN_OPEN, "prog"));

	/* ignoring both: nothing from the exec for g1 */
	fst_mark(ctx, g1, FAN_MARK_ADD | style, FAN_OPEN_EXEC, "prog");
	c = fst_spawn_exec(ctx, "./prog");
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g1);
	FST_EXPECT(ctx, g2, { .mask = FAN_OPEN, .path = "prog", .pid = c->pid });
	FST_EXPECT(ctx, g3, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "prog", .pid = c->pid });
}

static void ig07_open_vs_open_exec(struct fst_ctx *ctx) {
	open_vs_open_exec(ctx, FAN_MARK_IGNORED_MASK);
}

static void ig07_open_vs_open_exec_new_style(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	open_vs_open_exec(ctx, FAN_MARK_IGNORE);
}

/* style: FAN_MARK_IGNORE or FAN_MARK_IGNORED_MASK (legacy, before 6.0). */
static void open_perm_vs_exec_perm(struct fst_ctx *ctx, unsigned style) {
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	if (style == FAN_MARK_IGNORE)
		fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_copy_true(ctx, "prog", 0755);
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM,
		 ".");

	/* control, no ignore: OPEN_EXEC_PERM, then OPEN_PERM */
	c = fst_spawn_exec(ctx, "./prog");
	fst_answer(ctx, g, c, FAN_OPEN_EXEC_PERM, "prog", FAN_ALLOW);
	fst_allow_all(ctx, c, &g, 1, FST_PERM(c, FAN_OPEN_PERM, "prog"));

	/* ignore OPEN_PERM: the exec still asks OPEN_EXEC_PERM */
	fst_mark(ctx, g, FAN_MARK_ADD | style, FAN_OPEN_PERM, "prog");
	c = fst_spawn_exec(ctx, "./prog");
	fst_allow_all(ctx, c, &g, 1, FST_PERM(c, FAN_OPEN_EXEC_PERM, "prog"));
	fst_child_expect(ctx, fst_spawn_open(ctx, "prog", O_RDONLY), 0);
	FST_EXPECT_NONE(ctx, g);

	/* ignore OPEN_EXEC_PERM instead: the exec still asks OPEN_PERM */
	fst_mark(ctx, g, FAN_MARK_REMOVE | style, FAN_OPEN_PERM, "prog");
	fst_mark(ctx, g, FAN_MARK_ADD | style, FAN_OPEN_EXEC_PERM, "prog");
	c = fst_spawn_exec(ctx, "./prog");
	fst_allow_all(ctx, c, &g, 1, FST_PERM(c, FAN_OPEN_PERM, "prog"));
	c = fst_spawn_open(ctx, "prog", O_RDONLY);
	fst_allow_all(ctx, c, &g, 1, FST_PERM(c, FAN_OPEN_PERM, "prog"));

	/* both: the exec is not blocked at all */
	fst_mark(ctx, g, FAN_MARK_ADD | style, FAN_OPEN_PERM, "prog");
	fst_child_expect(ctx, fst_spawn_exec(ctx, "./prog"), 0);
	FST_EXPECT_NONE(ctx, g);
}

static void ig07_open_perm_vs_exec_perm(struct fst_ctx *ctx) {
	open_perm_vs_exec_perm(ctx, FAN_MARK_IGNORE);
}

static void ig07_open_perm_vs_exec_perm_legacy(struct fst_ctx *ctx) {
	open_perm_vs_exec_perm(ctx, FAN_MARK_IGNORED_MASK);
}

/*
 * A mount ignore of FAN_OPEN leaves an exec's FAN_OPEN_EXEC (LTP
 * fanotify10: "ignore exec inode events created on a specific mount
 * point", "ignore exec fs events created on a specific mount point"): gi
 * reports with an inode mark, gs with a filesystem mark, both ignore OPEN
 * on the bind mount b (gi new style, gs legacy); go has no ignore. Through
 * the original mount nothing is ignored.
 */
static void ig07_mount_ignore_open_exec(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_OPEN_EXEC;
	struct fst_child *c;
	const char *b, *bprog;
	int gi, gs, go;

	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_copy_true(ctx, "d/prog", 0755);
	b = fst_bind(ctx, "d", "b");
	bprog = fst_strdupf(ctx, "%s/prog", b);
	/* gi (new style) where FAN_MARK_IGNORE exists; gs, go everywhere */
	gi = fst_has(ctx, FSN_FEAT_MARK_IGNORE) ? fst_fan_init(ctx, FAN_CLASS_NOTIF) : -1;
	if (gi >= 0) {
		fst_mark(ctx, gi, FAN_MARK_ADD, m, "d/prog");
		fst_mark(ctx, gi, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE_SURV, FAN_OPEN,
			 b);
	}
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORED_MASK, FAN_OPEN, b);
	go = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, go, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");

	c = fst_spawn_exec(ctx, bprog);
	fst_child_expect(ctx, c, 0);
	if (gi >= 0)
		FST_EXPECT(ctx, gi, { .mask = FAN_OPEN_EXEC, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, gs, { .mask = FAN_OPEN_EXEC, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, go, { .mask = m, .path = "d/prog", .pid = c->pid });
	fst_open_close(ctx, bprog, O_RDONLY);
	if (gi >= 0)
		FST_EXPECT_NONE(ctx, gi);
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT(ctx, go, FST_FAN(FAN_OPEN, "d/prog"));

	/* the original mount: OPEN is not ignored */
	c = fst_spawn_exec(ctx, "d/prog");
	fst_child_expect(ctx, c, 0);
	if (gi >= 0)
		FST_EXPECT(ctx, gi, { .mask = m, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, gs, { .mask = m, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, go, { .mask = m, .path = "d/prog", .pid = c->pid });
}

/*
 * The same with a parent mark reporting (LTP fanotify10: "ignore child exec
 * events created on a specific mount point"): gp and gl watch the
 * children of d (OPEN and OPEN_EXEC) and ignore OPEN on the mount of the
 * work directory (gp new style, gl legacy); go does not ignore. Through
 * the bind mount b the mount ignore does not apply.
 */
static void ig07_parent_mark_open_exec(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_OPEN_EXEC;
	struct fst_child *c;
	const char *b;
	int gp, gl, go;

	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_copy_true(ctx, "d/prog", 0755);
	b = fst_bind(ctx, "d", "b");
	/* gp (new style) where FAN_MARK_IGNORE exists; gl, go everywhere */
	gp = fst_has(ctx, FSN_FEAT_MARK_IGNORE) ? fst_fan_init(ctx, FAN_CLASS_NOTIF) : -1;
	if (gp >= 0) {
		fst_mark(ctx, gp, FAN_MARK_ADD, m | FAN_EVENT_ON_CHILD, "d");
		fst_mark(ctx, gp, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE_SURV, FAN_OPEN,
			 ".");
	}
	gl = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gl, FAN_MARK_ADD, m | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, gl, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORED_MASK, FAN_OPEN, ".");
	go = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, go, FAN_MARK_ADD, m | FAN_EVENT_ON_CHILD, "d");

	c = fst_spawn_exec(ctx, "d/prog");
	fst_child_expect(ctx, c, 0);
	if (gp >= 0)
		FST_EXPECT(ctx, gp, { .mask = FAN_OPEN_EXEC, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, gl, { .mask = FAN_OPEN_EXEC, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, go, { .mask = m, .path = "d/prog", .pid = c->pid });
	fst_open_close(ctx, "d/prog", O_RDONLY);
	if (gp >= 0)
		FST_EXPECT_NONE(ctx, gp);
	FST_EXPECT_NONE(ctx, gl);
	FST_EXPECT(ctx, go, FST_FAN(FAN_OPEN, "d/prog"));

	/* through b: another mount, OPEN is not ignored */
	c = fst_spawn_exec(ctx, fst_strdupf(ctx, "%s/prog", b));
	fst_child_expect(ctx, c, 0);
	if (gp >= 0)
		FST_EXPECT(ctx, gp, { .mask = m, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, gl, { .mask = m, .path = "d/prog", .pid = c->pid });
	FST_EXPECT(ctx, go, { .mask = m, .path = "d/prog", .pid = c->pid });
}

/* ------------------------------------------------------------------------ */
/* IG08: FAN_RENAME ignored on an intermediate directory                    */
/* ------------------------------------------------------------------------ */

/*
 * Read g and expect a FAN_RENAME (old dir + name, new dir + name, as an sb
 * mark reports it) followed by MOVED_FROM and MOVED_TO; with rename false,
 * only the latter two. isdir adds FAN_ONDIR to every mask.
 */
#define EXPECT_MOVE(ctx, g, rename, isdir, od, on, nd, nn)                                         \
	expect_move(ctx, g, rename, isdir, od, on, nd, nn, __FILE__, __LINE__)
static void expect_move(struct fst_ctx *ctx, int g, bool rename, bool isdir, const char *od,
			const char *on, const char *nd, const char *nn, const char *file,
			int line) {
	const uint64_t dir = isdir ? FAN_ONDIR : 0;
	const struct fst_exp x[3] = {
		{ .mask = FAN_RENAME | dir,
		  .old_dir = od,
		  .old_name = on,
		  .new_dir = nd,
		  .new_name = nn },
		{ .mask = FAN_MOVED_FROM | dir, .dir = od, .name = on },
		{ .mask = FAN_MOVED_TO | dir, .dir = nd, .name = nn },
	};

	fst_expect_(ctx, g, rename ? x : x + 1, rename ? 3 : 2, "rename group", file, line);
}

static int rename_group(struct fst_ctx *ctx) {
	int g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);

	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
		 FAN_RENAME | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, ".");
	return g;
}

/* Files: the ignore on the old directory, then on the new one, hides
 * FAN_RENAME only; on the grandparent or another directory it hides
 * nothing. */
static void ig08_rename_ignore_old_new_dir(struct fst_ctx *ctx) {
	int g, h;

	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("top", 0755));
	FST_SYS(ctx, mkdir("top/src", 0755));
	FST_SYS(ctx, mkdir("top/dst", 0755));
	FST_SYS(ctx, mkdir("top/other", 0755));
	fst_write_file(ctx, "top/src/f1", NULL);
	fst_write_file(ctx, "top/src/f2", NULL);
	fst_write_file(ctx, "top/other/x", NULL);
	g = rename_group(ctx);
	h = rename_group(ctx);

	/* ignore on the old directory */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME, "top/src");
	FST_SYS(ctx, rename("top/src/f1", "top/dst/f1"));
	EXPECT_MOVE(ctx, g, false, false, "top/src", "f1", "top/dst", "f1");
	EXPECT_MOVE(ctx, h, true, false, "top/src", "f1", "top/dst", "f1");
	/* and within it */
	FST_SYS(ctx, rename("top/src/f2", "top/src/f3"));
	EXPECT_MOVE(ctx, g, false, false, "top/src", "f2", "top/src", "f3");
	EXPECT_MOVE(ctx, h, true, false, "top/src", "f2", "top/src", "f3");
	/* control: a rename elsewhere */
	FST_SYS(ctx, rename("top/other/x", "top/other/y"));
	EXPECT_MOVE(ctx, g, true, false, "top/other", "x", "top/other", "y");
	EXPECT_MOVE(ctx, h, true, false, "top/other", "x", "top/other", "y");

	/* ignore on the new directory only */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_RENAME, "top/src");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME, "top/dst");
	FST_SYS(ctx, rename("top/src/f3", "top/dst/f3"));
	EXPECT_MOVE(ctx, g, false, false, "top/src", "f3", "top/dst", "f3");
	EXPECT_MOVE(ctx, h, true, false, "top/src", "f3", "top/dst", "f3");
	FST_SYS(ctx, rename("top/dst/f1", "top/other/f1"));
	EXPECT_MOVE(ctx, g, false, false, "top/dst", "f1", "top/other", "f1");
	EXPECT_MOVE(ctx, h, true, false, "top/dst", "f1", "top/other", "f1");

	/* ignore on the grandparent only: not an object of the rename */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_RENAME, "top/dst");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME | FAN_EVENT_ON_CHILD,
		 "top");
	FST_SYS(ctx, rename("top/other/f1", "top/src/f1"));
	EXPECT_MOVE(ctx, g, true, false, "top/other", "f1", "top/src", "f1");
	EXPECT_MOVE(ctx, h, true, false, "top/other", "f1", "top/src", "f1");
}

/* Directories: the new-style ignore needs FAN_ONDIR to hide a directory's
 * FAN_RENAME. */
static void ig08_rename_ignore_dir_ondir(struct fst_ctx *ctx) {
	int g, h;

	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("src", 0755));
	FST_SYS(ctx, mkdir("dst", 0755));
	FST_SYS(ctx, mkdir("src/sub", 0755));
	fst_write_file(ctx, "src/f", NULL);
	g = rename_group(ctx);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME, "src");
	h = rename_group(ctx);

	FST_SYS(ctx, rename("src/sub", "dst/sub"));
	EXPECT_MOVE(ctx, g, true, true, "src", "sub", "dst", "sub");
	EXPECT_MOVE(ctx, h, true, true, "src", "sub", "dst", "sub");
	FST_SYS(ctx, rename("src/f", "dst/f"));
	EXPECT_MOVE(ctx, g, false, false, "src", "f", "dst", "f");
	EXPECT_MOVE(ctx, h, true, false, "src", "f", "dst", "f");

	/* with FAN_ONDIR; src is now the new directory */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME | FAN_ONDIR, "src");
	FST_SYS(ctx, rename("dst/sub", "src/sub"));
	EXPECT_MOVE(ctx, g, false, true, "dst", "sub", "src", "sub");
	EXPECT_MOVE(ctx, h, true, true, "dst", "sub", "src", "sub");
	/* control: a directory renamed within dst */
	FST_SYS(ctx, mkdir("dst/a", 0755));
	FST_SYS(ctx, rename("dst/a", "dst/b"));
	EXPECT_MOVE(ctx, g, true, true, "dst", "a", "dst", "b");
	EXPECT_MOVE(ctx, h, true, true, "dst", "a", "dst", "b");
}

/* The legacy ignore hides a directory's FAN_RENAME anyway (it always
 * applies to directories), as old and as new directory. */
static void ig08_rename_ignore_dir_legacy(struct fst_ctx *ctx) {
	int l, h;

	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	FST_SYS(ctx, mkdir("src", 0755));
	FST_SYS(ctx, mkdir("dst", 0755));
	FST_SYS(ctx, mkdir("src/sub", 0755));
	fst_write_file(ctx, "src/f", NULL);
	l = rename_group(ctx);
	fst_mark(ctx, l, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_RENAME, "src");
	h = rename_group(ctx);

	FST_SYS(ctx, rename("src/sub", "dst/sub"));
	EXPECT_MOVE(ctx, l, false, true, "src", "sub", "dst", "sub");
	EXPECT_MOVE(ctx, h, true, true, "src", "sub", "dst", "sub");
	FST_SYS(ctx, rename("src/f", "dst/f"));
	EXPECT_MOVE(ctx, l, false, false, "src", "f", "dst", "f");
	EXPECT_MOVE(ctx, h, true, false, "src", "f", "dst", "f");
	FST_SYS(ctx, rename("dst/sub", "src/sub"));
	EXPECT_MOVE(ctx, l, false, true, "dst", "sub", "src", "sub");
	EXPECT_MOVE(ctx, h, true, true, "dst", "sub", "src", "sub");
	/* control: a directory renamed within dst */
	FST_SYS(ctx, mkdir("dst/a", 0755));
	FST_SYS(ctx, rename("dst/a", "dst/b"));
	EXPECT_MOVE(ctx, l, true, true, "dst", "a", "dst", "b");
	EXPECT_MOVE(ctx, h, true, true, "dst", "a", "dst", "b");
}

/* ------------------------------------------------------------------------ */
/* IG10: FAN_ONDIR of one mark does not extend another mark of the group    */
/* ------------------------------------------------------------------------ */

/*
 * LTP fanotify09, "Events on non-dir child and subdir with both parent and
 * mount marks" and "... parent and subdir marks": a subdirectory's close
 * (FAN_CLOSE_NOWRITE) is asked for by a mark without FAN_ONDIR (gm: the
 * mount mark; gs: the subdirectory's own inode mark), and the group's
 * parent mark has FAN_ONDIR but no FAN_EVENT_ON_CHILD (and asks only
 * MODIFY): not reported. w asks it properly (ONDIR and EVENT_ON_CHILD)
 * and gets it once, and the child's MODIFY. Then FAN_ONDIR on the
 * asking marks themselves brings the event.
 */
static void ig10_subdir_ondir_two_marks(struct fst_ctx *ctx) {
	int w, gm, gs, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/f", "f");
	w = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, w, FAN_MARK_ADD | FAN_MARK_MOUNT,
		 FAN_CLOSE_NOWRITE | FAN_ONDIR | FAN_EVENT_ON_CHILD, ".");
	fst_mark(ctx, w, FAN_MARK_ADD, FAN_MODIFY | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_CLOSE_NOWRITE, ".");
	fst_mark(ctx, gm, FAN_MARK_ADD, FAN_MODIFY | FAN_ONDIR, "d");
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD, FAN_CLOSE_NOWRITE, "d/s");
	fst_mark(ctx, gs, FAN_MARK_ADD, FAN_MODIFY | FAN_ONDIR, "d");

	fd = fst_open(ctx, "d/f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, w, FST_FAN(FAN_MODIFY, "d/f"));
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, w, FST_FAN(FAN_CLOSE_NOWRITE, "d/s"));
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);
	/* control: a file's close reaches gm's mount mark */
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, w, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	FST_EXPECT_NONE(ctx, gs);

	/* FAN_ONDIR where the close is asked: reported, once */
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ONDIR, ".");
	fst_mark(ctx, gs, FAN_MARK_ADD, FAN_ONDIR, "d/s");
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, w, FST_FAN(FAN_CLOSE_NOWRITE, "d/s"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "d/s"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_CLOSE_NOWRITE, "d/s"));
}

/*
 * LTP fanotify09, "Events on non-dir child and parent with both parent and
 * mount marks": the directory's own close, asked for by a mark without
 * FAN_ONDIR while another mark of the group on it has FAN_ONDIR for other
 * events. gm: mount mark CLOSE_NOWRITE, d's mark MODIFY | ONDIR; gr the
 * other way round: d's mark CLOSE_NOWRITE, the mount mark MODIFY | ONDIR.
 * Neither is reported; w (ONDIR with the close) is.
 */
static void ig10_dir_ondir_two_marks(struct fst_ctx *ctx) {
	int w, gm, gr, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	w = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, w, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_CLOSE_NOWRITE | FAN_ONDIR, ".");
	fst_mark(ctx, w, FAN_MARK_ADD, FAN_MODIFY | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_CLOSE_NOWRITE, ".");
	fst_mark(ctx, gm, FAN_MARK_ADD, FAN_MODIFY | FAN_ONDIR, "d");
	gr = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gr, FAN_MARK_ADD, FAN_CLOSE_NOWRITE, "d");
	fst_mark(ctx, gr, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY | FAN_ONDIR, ".");

	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, w, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gr);
	/* controls: a file's close and modify */
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, w, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	FST_EXPECT_NONE(ctx, gr);
	fd = fst_open(ctx, "d/f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, w, FST_FAN(FAN_MODIFY, "d/f"));
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT(ctx, gr, FST_FAN(FAN_MODIFY, "d/f"));

	/* FAN_ONDIR where the close is asked: reported */
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ONDIR, ".");
	fst_mark(ctx, gr, FAN_MARK_ADD, FAN_ONDIR, "d");
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, w, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT(ctx, gr, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_ig[] = {
	FST_CASE(ig01_cleared_by_modify, "IG01", FST_ALL_FS,
		 "a write clears the legacy ignore mask of that inode only"),
	FST_CASE_GIT(
	    ig01_cleared_by_modify_new_style, "IG01", FST_ALL_FS, "e252f2ed1c8c",
	    "a write clears the new-style ignore mask (no SURV_MODIFY) of that inode only"),
	FST_CASE(ig01_modify_clears_each_group, "IG01,IG02", FST_ALL_FS,
		 "one write clears the ignore masks of an inode-mark and a mount-mark group"),
	FST_CASE(ig01_surv_modify_and_remove, "IG01", FST_ALL_FS,
		 "legacy SURV_MODIFY survives writes; removing ignore bits brings just them back"),
	FST_CASE_GIT(ig01_surv_modify_and_remove_new_style, "IG01", FST_ALL_FS, "e252f2ed1c8c",
		     "the same with FAN_MARK_IGNORE_SURV and FAN_MARK_REMOVE | FAN_MARK_IGNORE"),
	FST_CASE(ig01_sb_ignore_modify_cycle, "IG01", FST_ALL_FS,
		 "sb mark: legacy ignore cleared by any write, SURV_MODIFY kept, removal restores"),
	FST_CASE(ig01_sb_ignore_modify_cycle_fid, "IG01,IG11", FST_ALL_FS,
		 "the same sb ignore MODIFY cycle in a FAN_REPORT_FID group"),
	FST_CASE_GIT(
	    ig01_style_rules, "IG01", FST_ONCE, "8698e3bab4dd e252f2ed1c8c",
	    "legacy/new-style update rules (EEXIST, EISDIR, ENOTDIR, EINVAL); no side effect"),
	FST_CASE_GIT(
	    ig02_inode_ignore_mount_sb, "IG02", FST_ALL_FS, "8edc6e1688fc 9bdda4e9cf2d",
	    "legacy inode ignore hides the group's mount and sb mark events; others unaffected"),
	FST_CASE_GIT(ig02_inode_ignore_mount_sb_new_style, "IG02", FST_ALL_FS,
		     "8edc6e1688fc 9bdda4e9cf2d e252f2ed1c8c",
		     "the same with a new-style (FAN_MARK_IGNORE) inode ignore"),
	FST_CASE_GIT(ig02_dir_ignore_dirent_sb, "IG02,IG04", FST_ALL_FS,
		     "9bdda4e9cf2d 2f02fd3fa13e",
		     "dir ignore hides CREATE from the group's sb mark; subdirs only with ONDIR"),
	FST_CASE_GIT(
	    ig03_mount_ignore_bind, "IG03,IG02", FST_ALL_FS, "9bdda4e9cf2d",
	    "mount ignore on bind mount B: hidden through B only; sb ignore: through both"),
	FST_CASE_GIT(ig03_mount_ignore_bind_legacy, "IG03,IG02", FST_ALL_FS, "9bdda4e9cf2d",
		     "the same with legacy ignore masks (FAN_MARK_IGNORED_MASK, before 6.0)"),
	FST_CASE(ig03_legacy_mount_ignore_cleared, "IG03,IG01", FST_ALL_FS,
		 "a legacy mount ignore is cleared by a write through that mount only"),
	FST_CASE_GIT(
	    ig04_parent_ignore_flags, "IG04", FST_ALL_FS, "2f02fd3fa13e e252f2ed1c8c",
	    "new-style parent ignore x {-, EVENT_ON_CHILD, ONDIR, both}: file, subdir, self"),
	FST_CASE_GIT(
	    ig04_legacy_parent_ignore, "IG04", FST_ALL_FS, "2f02fd3fa13e",
	    "legacy parent ignore: children only with EVENT_ON_CHILD in the mark, dirs always"),
	FST_CASE_GIT(ig04_other_group_on_child, "IG04", FST_ALL_FS, "e730558adffb",
		     "another group watching children does not make a non-child ignore apply"),
	FST_CASE_GIT(ig04_other_group_on_child_legacy, "IG04", FST_ALL_FS, "e730558adffb",
		     "the same for a legacy ignore in a mark not watching children"),
	FST_CASE_GIT(ig04_watching_parent_own_ignore, "IG04", FST_ALL_FS, "2f02fd3fa13e",
		     "parent mark watching children + new-style ignore in the same mark: per flag"),
	FST_CASE_GIT(ig04_watching_parent_own_ignore_legacy, "IG04", FST_ALL_FS, "2f02fd3fa13e",
		     "parent mark watching children + legacy ignore in the same mark: everything"),
	FST_CASE_GIT(ig04_cached_child_cycles, "IG04", FST_ALL_FS, "2f02fd3fa13e",
		     "new-style ignore-only parent mark added/removed 4 times under an open child"),
	FST_CASE_GIT(ig04_cached_child_cycles_legacy, "IG04", FST_ALL_FS, "2f02fd3fa13e",
		     "the same with a legacy ignore (EVENT_ON_CHILD in the mark's mask)"),
	FST_CASE(ig04_legacy_parent_cleared_by_child, "IG04,IG01", FST_ALL_FS,
		 "a child's write clears the legacy parent ignore mask; SURV_MODIFY keeps it"),
	FST_CASE_GIT(
	    ig09_child_leaves_unwatching_parent, "IG09,IG01", FST_ALL_FS, "e730558adffb",
	    "a child's write keeps the legacy ignore of a parent mark not watching children"),
	FST_CASE(ig04_parent_ignore_inode_mark, "IG04", FST_ALL_FS,
		 "parent ignore hides the child's inode-mark OPEN only if it applies to children"),
	FST_CASE_GIT(ig09_other_group_watches_children, "IG09,IG01", FST_ALL_FS, "e730558adffb",
		     "another group watching children: a child's write keeps d's legacy ignores"),
	FST_CASE_GIT(ig11_ignore_matrix_dfid_name_fid, "IG11,IG02,IG03,IG04", FST_ALL_FS,
		     "9bdda4e9cf2d",
		     "DFID_NAME|FID: inode/parent/mount/sb ignore x reporting mark, 6 opens"),
	FST_CASE_GIT(ig05_notif_events_each_class, "IG05", FST_ALL_FS, "8edc6e1688fc",
		     "NOTIF, CONTENT, PRE_CONTENT groups: new-style inode ignore hides OPEN"),
	FST_CASE_GIT(ig05_notif_events_each_class_legacy, "IG05", FST_ALL_FS, "8edc6e1688fc",
		     "the same with a legacy inode ignore"),
	FST_CASE(ig05_perm_ignore_each_class, "IG05", FST_ALL_FS,
		 "OPEN_PERM ignored by a CONTENT and a PRE_CONTENT group: not asked, not blocked"),
	FST_CASE(ig05_perm_ignore_each_class_legacy, "IG05", FST_ALL_FS,
		 "the same with legacy OPEN_PERM ignore masks"),
	FST_CASE_GIT(ig05_pre_access_ignore, "IG05", FST_ALL_FS, "4f8afa33817a",
		     "FAN_PRE_ACCESS ignored on one file by one group; the others are asked once"),
	FST_CASE_GIT(ig06_evictable_upgrade_downgrade, "IG06", FST_ONCE, "7d5e005d9825",
		     "evictable -> normal upgrade, downgrade EEXIST, empty mask destroys the mark"),
	FST_CASE_GIT(ig06_evictable_evicted, "IG06", FST_ALL_FS, "7d5e005d9825",
		     "drop_caches: an evicted inode's evictable ignore is gone; pinned ones stay"),
	FST_CASE_GIT(ig06_evictable_evicted_legacy, "IG06", FST_ALL_FS, "7d5e005d9825",
		     "the same with legacy ignore masks (FAN_MARK_IGNORED_MASK, before 6.0)"),
	FST_CASE(ig06_evictable_evicted_mount, "IG06", FST_ALL_FS,
		 "the same with a mount mark reporting: evicted ignores stop hiding its events"),
	FST_CASE(ig07_open_vs_open_exec, "IG07", FST_ALL_FS,
		 "legacy: ignoring OPEN leaves OPEN_EXEC of an exec, and the reverse"),
	FST_CASE(ig07_open_vs_open_exec_new_style, "IG07", FST_ALL_FS,
		 "the same with new-style (FAN_MARK_IGNORE) ignore masks"),
	FST_CASE(ig07_open_perm_vs_exec_perm, "IG07", FST_ALL_FS,
		 "ignoring OPEN_PERM leaves OPEN_EXEC_PERM of an exec, and the reverse"),
	FST_CASE(ig07_open_perm_vs_exec_perm_legacy, "IG07", FST_ALL_FS,
		 "the same with legacy ignore masks (FAN_MARK_IGNORED_MASK, before 6.0)"),
	FST_CASE_GIT(ig07_mount_ignore_open_exec, "IG07,IG03", FST_ALL_FS, "9bdda4e9cf2d",
		     "mount ignore of OPEN: an exec through it gives OPEN_EXEC to inode/sb marks"),
	FST_CASE_GIT(ig07_parent_mark_open_exec, "IG07,IG03", FST_ALL_FS, "2f02fd3fa13e",
		     "parent mark + mount ignore of OPEN: the child's exec gives OPEN_EXEC only"),
	FST_CASE_GIT(
	    ig08_rename_ignore_old_new_dir, "IG08", FST_ALL_FS, "8cc3b1ccd930",
	    "FAN_RENAME ignored on the old or new dir: MOVED_FROM/TO stay; not on grandparent"),
	FST_CASE_GIT(ig08_rename_ignore_dir_ondir, "IG08", FST_ALL_FS, "8cc3b1ccd930",
		     "a directory's FAN_RENAME: a new-style ignore hides it only with ONDIR"),
	FST_CASE_GIT(ig08_rename_ignore_dir_legacy, "IG08", FST_ALL_FS, "8cc3b1ccd930",
		     "a directory's FAN_RENAME: a legacy ignore hides it anyway"),
	FST_CASE_GIT(ig10_subdir_ondir_two_marks, "IG10,PC05", FST_ALL_FS, "b469e7e47c8a",
		     "subdir close: a mark without ONDIR + the parent's ONDIR (no ON_CHILD): none"),
	FST_CASE_GIT(ig10_dir_ondir_two_marks, "IG10,MK04", FST_ALL_FS, "55bf882c7f13",
		     "dir close asked without ONDIR, ONDIR in another mark of the group: none"),
	{ 0 },
};
