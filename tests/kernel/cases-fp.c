/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-fp.c — fsn-selftest cases of the FP group: the fast path, "is
 * anybody watching?" (FP01-FP12 in semantics.md).
 *
 * The hooks on every read/write/open return early when nothing watches
 * (include/linux/fsnotify.h, fsnotify() and __fsnotify_parent() in
 * fs/notify/fsnotify.c). Each case pairs "nothing is reported here" with a
 * positive control that proves the same group does get the same kind of
 * event where it asked, and reads after every step so that a lost, extra
 * or misattributed event shows as a count or object mismatch rather than
 * being hidden by event merging.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "selftest.h"

#define FAN_OAMC (FAN_OPEN | FAN_ACCESS | FAN_MODIFY | FAN_CLOSE)
/* what only FID groups can see: directory entry and attribute changes */
#define FAN_DIRENT_ATTRIB                                                                          \
	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ATTRIB | FAN_MODIFY |       \
	 FAN_ONDIR)

/* A FAN_REPORT_DFID_NAME group, for cases that need dirent events. */
static int fid_group(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	return fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
}

/* Every kind of operation on objects in dir (which holds a file "f"):
 * read, write, open, close, create, attrib, rename, link, unlink, mkdir,
 * rmdir, truncate. */
static void ops_in(struct fst_ctx *ctx, const char *dir) {
	char f[256], n[256], m[256], l[256], s[256], d[256], b[8];
	int fd;

	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(n, sizeof(n), "%s/new", dir);
	snprintf(m, sizeof(m), "%s/moved", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	snprintf(s, sizeof(s), "%s/sym", dir);
	snprintf(d, sizeof(d), "%s/sub", dir);

	fd = fst_open(ctx, f, O_RDWR);
	FST_SYS(ctx, write(fd, "data", 4));
	FST_SYS(ctx, pread(fd, b, 4, 0));
	FST_SYS(ctx, ftruncate(fd, 2));
	fst_close(ctx, fd);
	fd = fst_open(ctx, f, O_RDONLY);
	FST_SYS(ctx, read(fd, b, sizeof(b)));
	fst_close(ctx, fd);
	fst_open_close(ctx, n, O_WRONLY | O_CREAT);
	FST_SYS(ctx, fchmodat(ctx->workfd, n, 0600, 0));
	FST_SYS(ctx, utimensat(ctx->workfd, n, NULL, 0));
	FST_SYS(ctx, renameat(ctx->workfd, n, ctx->workfd, m));
	FST_SYS(ctx, linkat(ctx->workfd, m, ctx->workfd, l, 0));
	FST_SYS(ctx, symlinkat("f", ctx->workfd, s));
	FST_SYS(ctx, unlinkat(ctx->workfd, l, 0));
	FST_SYS(ctx, unlinkat(ctx->workfd, s, 0));
	FST_SYS(ctx, unlinkat(ctx->workfd, m, 0));
	FST_SYS(ctx, mkdirat(ctx->workfd, d, 0755));
	FST_SYS(ctx, unlinkat(ctx->workfd, d, AT_REMOVEDIR));
	FST_SYS(ctx, truncate(f, 1));
}

/* ------------------------------------------------------------------------ */
/* FP01: no marks on the object, its parent, its mount or its filesystem    */
/* ------------------------------------------------------------------------ */

static void fp01_unwatched_dir_silent(struct fst_ctx *ctx) {
	int g, gf, in, wd, fd;

	FST_SYS(ctx, mkdir("watched", 0755));
	FST_SYS(ctx, mkdir("quiet", 0755));
	fst_write_file(ctx, "watched/f", "w");
	fst_write_file(ctx, "quiet/f", "q");

	gf = fid_group(ctx);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_DIRENT_ATTRIB | FAN_EVENT_ON_CHILD, "watched");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_ONDIR | FAN_EVENT_ON_CHILD, "watched");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "watched/f");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "watched", IN_ALL_EVENTS);

	ops_in(ctx, "quiet");
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_NONE(ctx, gf);
	FST_EXPECT_NONE(ctx, in);

	/* control: the same groups see the watched sibling directory */
	fd = fst_open(ctx, "watched/f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "watched/f"));
	FST_EXPECT_NONE(ctx, gf);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "f"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "watched/f"));
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_NOWRITE, wd, "f"));
	FST_SYS(ctx, chmod("watched/f", 0600));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .dir = "watched", .name = "f" });
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, "f"));
	FST_SYS(ctx, unlink("watched/f"));
	FST_EXPECT(ctx, gf, { .mask = FAN_DELETE, .dir = "watched", .name = "f" });
	FST_EXPECT(ctx, in, FST_IN(IN_DELETE, wd, "f"));
	FST_EXPECT_NONE(ctx, g);
}

static void fp01_other_fs_marks_silent(struct fst_ctx *ctx) {
	const char *aux = fst_mount_tmpfs(ctx, "aux");
	char af[256];
	int g, gf, in, wd, fd;

	snprintf(af, sizeof(af), "%s/f", aux);
	fst_write_file(ctx, af, "a");
	FST_SYS(ctx, mkdir("quiet", 0755));
	fst_write_file(ctx, "quiet/f", "q");

	/* inode, mount and filesystem marks, all on another filesystem */
	gf = fid_group(ctx);
	fst_mark(ctx, gf, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_DIRENT_ATTRIB, aux);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, af);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OAMC | FAN_ONDIR, aux);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OAMC | FAN_ONDIR, aux);
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, aux, IN_ALL_EVENTS);

	ops_in(ctx, "quiet");
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_NONE(ctx, gf);
	FST_EXPECT_NONE(ctx, in);

	/* control: one event per operation on the marked filesystem, even
	 * with three marks of the group matching */
	fd = fst_open(ctx, af, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, af));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "f"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, af));
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_NOWRITE, wd, "f"));
	FST_SYS(ctx, rename(af, fst_strdupf(ctx, "%s/g", aux)));
	FST_EXPECT(ctx, gf, { .mask = FAN_MOVED_FROM, .dir = aux, .name = "f" },
		   { .mask = FAN_MOVED_TO, .dir = aux, .name = "g" });
	FST_EXPECT(ctx, in, FST_IN(IN_MOVED_FROM, wd, "f"), FST_IN(IN_MOVED_TO, wd, "g"));
	FST_EXPECT_NONE(ctx, g);
}

static void fp01_other_mount_silent(struct fst_ctx *ctx) {
	const char *b;
	char bf[256];
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "d");
	b = fst_bind(ctx, "d", "b");
	snprintf(bf, sizeof(bf), "%s/f", b);

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OAMC | FAN_ONDIR, b);

	/* the same objects through the original mount: nothing */
	ops_in(ctx, "d");
	FST_EXPECT_NONE(ctx, g);

	/* control: through the marked bind mount */
	fd = fst_open(ctx, bf, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/f"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
}

/* ------------------------------------------------------------------------ */
/* FP02: an inode mark on A, nothing from sibling B                         */
/* ------------------------------------------------------------------------ */

static void fp02_inode_mark_sibling(struct fst_ctx *ctx) {
	int g, fd;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "a");

	fd = fst_open(ctx, "b", O_RDWR);
	fst_write1(ctx, fd);
	fst_read1(ctx, fd);
	fst_close(ctx, fd);
	fst_open_close(ctx, "b", O_RDONLY);
	FST_SYS(ctx, truncate("b", 1));
	FST_EXPECT_NONE(ctx, g);

	fd = fst_open(ctx, "a", O_RDWR);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "a"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "a"));
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
}

static void fp02_inode_watch_sibling_inotify(struct fst_ctx *ctx) {
	int in, wd, fd;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "a", IN_ALL_EVENTS);

	fd = fst_open(ctx, "b", O_RDWR);
	fst_write1(ctx, fd);
	fst_read1(ctx, fd);
	fst_close(ctx, fd);
	FST_SYS(ctx, chmod("b", 0600));
	FST_SYS(ctx, rename("b", "b2"));
	FST_SYS(ctx, unlink("b2"));
	FST_EXPECT_NONE(ctx, in);

	fd = fst_open(ctx, "a", O_RDWR);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, NULL));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wd, NULL));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_WRITE, wd, NULL));
	FST_SYS(ctx, chmod("a", 0600));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, NULL));
}

static void fp02_asked_bits_only(struct fst_ctx *ctx) {
	int g, fa, fb;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_MODIFY, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS, "b");

	fa = fst_open(ctx, "a", O_RDWR);
	fst_read1(ctx, fa);
	FST_EXPECT_NONE(ctx, g);
	fst_write1(ctx, fa);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "a"));
	fst_close(ctx, fa);
	FST_EXPECT_NONE(ctx, g);

	fb = fst_open(ctx, "b", O_RDWR);
	fst_write1(ctx, fb);
	FST_EXPECT_NONE(ctx, g);
	fst_read1(ctx, fb);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "b"));
	fst_close(ctx, fb);
	FST_EXPECT_NONE(ctx, g);
}

static void fp02_two_groups_two_files(struct fst_ctx *ctx) {
	int g1, g2, in, wa, fd;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	g2 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g1, FAN_MARK_ADD, FAN_OPEN | FAN_MODIFY, "a");
	fst_mark(ctx, g2, FAN_MARK_ADD, FAN_OPEN | FAN_MODIFY, "b");
	in = fst_inotify(ctx);
	wa = fst_watch(ctx, in, "a", IN_OPEN | IN_MODIFY);

	fd = fst_open(ctx, "a", O_RDWR);
	FST_EXPECT(ctx, g1, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT_NONE(ctx, g2);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wa, NULL));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g1, FST_FAN(FAN_MODIFY, "a"));
	FST_EXPECT_NONE(ctx, g2);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wa, NULL));
	fst_close(ctx, fd);

	fd = fst_open(ctx, "b", O_RDWR);
	FST_EXPECT_NONE(ctx, g1);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "b"));
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g1);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_MODIFY, "b"));
	FST_EXPECT_NONE(ctx, in);
	fst_close(ctx, fd);
}

/* ------------------------------------------------------------------------ */
/* FP03: children cached before the parent is watched                       */
/* ------------------------------------------------------------------------ */

static void fp03_cached_child_open_fd(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	fd = fst_open(ctx, "d/c", O_RDWR); /* dentry cached, file open */

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD,
		 FAN_MODIFY | FAN_ACCESS | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "d/c"));
}

static void fp03_cached_child_inotify(struct fst_ctx *ctx) {
	int in, wd, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	fd = fst_open(ctx, "d/c", O_RDWR);

	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "d", IN_MODIFY | IN_ACCESS | IN_CLOSE_WRITE);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wd, "c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_WRITE, wd, "c"));
}

static void fp03_cached_child_lookup(struct fst_ctx *ctx) {
	struct stat st;
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	FST_SYS(ctx, stat("d/c", &st)); /* dentry cached, nothing open */

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_EVENT_ON_CHILD, "d");
	fd = fst_open(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/c"));
	/* and a child created after the mark */
	fst_write_file(ctx, "d/n", "n");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/n"));
}

static void fp03_second_group_on_child(struct fst_ctx *ctx) {
	int a, b, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);

	/* group a watches the directory, but not its children */
	a = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, a, FAN_MARK_ADD, FAN_MODIFY, "d");
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, a);

	/* group b adds interest in children to the same directory */
	b = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, b, FST_FAN(FAN_MODIFY, "d/c"));
	FST_EXPECT_NONE(ctx, a);

	fst_mark(ctx, b, FAN_MARK_REMOVE, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, b);
	FST_EXPECT_NONE(ctx, a);
}

static void fp03_on_child_flag_added_later(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_MODIFY, "d");
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	/* only the flag is added to the existing mark */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
}

/* ------------------------------------------------------------------------ */
/* FP04: removing the parent's interest stops child events                  */
/* ------------------------------------------------------------------------ */

#define CYCLES 5

static void fp04_parent_mark_cycles(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);

	for (int i = 0; i < CYCLES; i++) {
		fst_write1(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
		fst_mark(ctx, g, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
		fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	}
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
}

static void fp04_on_child_bit_cycles(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	/* fd-mode groups need FAN_ONDIR to get directory events but are
	 * never shown it in the event mask */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_MODIFY | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");

	for (int i = 0; i < CYCLES; i++) {
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
		fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));

		fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
		fst_write1(ctx, fd);
		fst_open_close(ctx, "d/c", O_RDONLY);
		FST_EXPECT_NONE(ctx, g);
		/* the directory's own events stay */
		fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));

		fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	}
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
}

static void fp04_inotify_rm_watch_cycles(struct fst_ctx *ctx) {
	int in, fd, prev = 0;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);
	in = fst_inotify(ctx);

	for (int i = 0; i < CYCLES; i++) {
		int wd = fst_watch(ctx, in, "d", IN_MODIFY);

		ck_assert_int_ne(wd, prev);
		prev = wd;
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"));
		fst_rm_watch(ctx, in, wd);
		FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wd, NULL));
		fst_write1(ctx, fd);
		FST_EXPECT_NONE(ctx, in);
	}
}

static void fp04_stale_flag_other_group(struct fst_ctx *ctx) {
	int a, b, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);

	a = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, a, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	b = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_MODIFY, "d"); /* no EVENT_ON_CHILD */
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_ACCESS, "d/c");

	fst_write1(ctx, fd);
	FST_EXPECT(ctx, a, FST_FAN(FAN_MODIFY, "d/c"));
	FST_EXPECT_NONE(ctx, b);

	fst_mark(ctx, a, FAN_MARK_REMOVE, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, a);
	FST_EXPECT_NONE(ctx, b);
	fst_read1(ctx, fd);
	FST_EXPECT_NONE(ctx, a);
	FST_EXPECT(ctx, b, FST_FAN(FAN_ACCESS, "d/c"));

	fst_mark(ctx, a, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, a, FST_FAN(FAN_MODIFY, "d/c"));
	FST_EXPECT_NONE(ctx, b);
}

static void fp04_group_close_cycles(struct fst_ctx *ctx) {
	int l, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);
	l = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* long-lived: an inode mark on the child */
	fst_mark(ctx, l, FAN_MARK_ADD, FAN_MODIFY, "d/c");

	for (int i = 0; i < CYCLES; i++) {
		int g = fst_fan_init(ctx, FAN_CLASS_NOTIF);

		fst_mark(ctx, g, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
		FST_EXPECT(ctx, l, FST_FAN(FAN_MODIFY, "d/c"));
		fst_close(ctx, g);
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, l, FST_FAN(FAN_MODIFY, "d/c"));
	}
}

/* ------------------------------------------------------------------------ */
/* FP05: mask updates take effect on the next operation                     */
/* ------------------------------------------------------------------------ */

static void mask_updates(struct fst_ctx *ctx, unsigned type, const char *target) {
	int g, fd;

	fst_write_file(ctx, "a", "abc");
	fd = fst_open(ctx, "a", O_RDWR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);

	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_MODIFY, target);
	fst_read1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "a"));

	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_ACCESS, target);
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "a"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "a"));

	fst_mark(ctx, g, FAN_MARK_REMOVE | type, FAN_MODIFY, target);
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "a"));

	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_OPEN, target);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));

	/* the mask becomes empty: the mark is gone */
	fst_mark(ctx, g, FAN_MARK_REMOVE | type, FAN_ACCESS | FAN_OPEN, target);
	fst_write1(ctx, fd);
	fst_read1(ctx, fd);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_MODIFY, target);
	fst_read1(ctx, fd);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "a"));
}

static void fp05_inode_mask_update(struct fst_ctx *ctx) {
	mask_updates(ctx, 0, "a");
}

static void fp05_mount_mask_update(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	mask_updates(ctx, FAN_MARK_MOUNT, ".");
}

static void fp05_sb_mask_update(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	mask_updates(ctx, FAN_MARK_FILESYSTEM, ".");
}

static void fp05_parent_mask_update(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	fd = fst_open(ctx, "d/c", O_RDWR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	fst_read1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS, "d");
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_MODIFY, "d");
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
}

static void fp05_inotify_mask_update(struct fst_ctx *ctx) {
	int in, wd, fd;

	fst_write_file(ctx, "a", "abc");
	fd = fst_open(ctx, "a", O_RDWR);
	in = fst_inotify(ctx);

	wd = fst_watch(ctx, in, "a", IN_MODIFY);
	fst_read1(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL));

	/* replace the mask */
	ck_assert_int_eq(fst_watch(ctx, in, "a", IN_ACCESS), wd);
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wd, NULL));

	/* add to it */
	ck_assert_int_eq(fst_watch(ctx, in, "a", IN_MODIFY | IN_MASK_ADD), wd);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wd, NULL));
}

/* ------------------------------------------------------------------------ */
/* FP06: MODIFY clears a legacy ignore mask, even if nobody asks for MODIFY */
/* ------------------------------------------------------------------------ */

static void fp06_modify_clears_ignore(struct fst_ctx *ctx) {
	int g, fd;

	fst_write_file(ctx, "a", "abc");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");

	fd = fst_open(ctx, "a", O_RDWR);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_write1(ctx, fd); /* not reported (no MODIFY in the mask), but clears the ignore mask */
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
}

/* The group's only interest is a mount or sb mark with OPEN; the file has
 * an inode mark with nothing but a legacy ignore mask. Nothing asks for
 * MODIFY, yet the write must reach the group to clear the ignore mask. */
static void ignore_cleared_via(struct fst_ctx *ctx, unsigned type) {
	int g, fd;

	fst_write_file(ctx, "a", "abc");
	fst_write_file(ctx, "b", "abc");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_OPEN, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");

	fst_open_close(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fd = fst_open(ctx, "a", O_RDWR); /* after the ignore mark: see below */
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
}

static void fp06_modify_clears_ignore_mount(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	ignore_cleared_via(ctx, FAN_MARK_MOUNT);
}

static void fp06_modify_clears_ignore_sb(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	ignore_cleared_via(ctx, FAN_MARK_FILESYSTEM);
}

static void fp06_surv_modify_keeps_ignore(struct fst_ctx *ctx) {
	int g, fd;

	fst_write_file(ctx, "a", "abc");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "a");

	fd = fst_open(ctx, "a", O_RDWR);
	fst_write1(ctx, fd);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
}

/* A legacy ignore mask (without SURV_MODIFY) is not even added to an inode
 * that is open for write: the next write would clear it anyway
 * (fanotify_add_inode_mark()). fanotify_mark() still succeeds. */
static void fp06_ignore_skipped_open_for_write(struct fst_ctx *ctx) {
	int g, fd;

	fst_write_file(ctx, "a", "abc");
	fd = fst_open(ctx, "a", O_WRONLY);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	/* with SURV_MODIFY it is added and applies */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "a");
	fst_open_close(ctx, "a", O_RDONLY);
	fst_write1(ctx, fd);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* FP07: anonymous pipes                                                    */
/* ------------------------------------------------------------------------ */

static int watch_pipe(struct fst_ctx *ctx, int in, int pfd, uint32_t mask) {
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	return fst_watch(ctx, in, p, mask);
}

static void pipe_io(struct fst_ctx *ctx, const int p[2], bool check, int in, int wd) {
	char b[4];

	FST_SYS(ctx, write(p[1], "ab", 2));
	if (check)
		FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL));
	FST_SYS(ctx, read(p[0], b, 2));
	if (check)
		FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wd, NULL));
}

static void fp07_pipe_unwatched_silent(struct fst_ctx *ctx) {
	int p1[2], p2[2], in, wd;

	FST_SYS(ctx, pipe2(p1, O_CLOEXEC));
	FST_SYS(ctx, pipe2(p2, O_CLOEXEC));
	in = fst_inotify(ctx);
	wd = watch_pipe(ctx, in, p2[0], IN_ALL_EVENTS);

	pipe_io(ctx, p1, false, in, 0);
	FST_EXPECT_NONE(ctx, in);
	pipe_io(ctx, p2, true, in, wd);
}

static void fp07_pipe_watch_add_remove(struct fst_ctx *ctx) {
	int p[2], in, wd, wd2;

	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	in = fst_inotify(ctx);
	wd = watch_pipe(ctx, in, p[1], IN_MODIFY | IN_ACCESS); /* either end: one inode */
	pipe_io(ctx, p, true, in, wd);
	fst_rm_watch(ctx, in, wd);
	FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wd, NULL));
	pipe_io(ctx, p, false, in, 0);
	FST_EXPECT_NONE(ctx, in);
	wd2 = watch_pipe(ctx, in, p[0], IN_MODIFY | IN_ACCESS);
	pipe_io(ctx, p, true, in, wd2);
}

/* ------------------------------------------------------------------------ */
/* FP08: every data path reaches the hook                                   */
/* ------------------------------------------------------------------------ */

/*
 * src and dst are open (O_RDWR) before any mark; four watchers on them:
 * gi: inode marks (fd mode), gm: a mount mark (fd mode), gf: a filesystem
 * mark in a FAN_REPORT_FID group, in: inotify watches for every event.
 * Hooks that pass a path reach all four; hooks that pass only a dentry
 * (truncate: notify_change() -> fsnotify_change()) reach no mount mark
 * and no fd-mode group, which needs a path to open an event fd.
 */
struct dp {
	int sfd, dfd;
	int gi, gm, gf, in;
	int ws, wd;
};

static struct dp dp_setup(struct fst_ctx *ctx) {
	struct dp d;
	char content[8192];

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	for (size_t i = 0; i < sizeof(content) - 1; i++)
		content[i] = (char)('a' + i % 26);
	content[sizeof(content) - 1] = '\0';
	fst_write_file(ctx, "src", content);
	fst_write_file(ctx, "dst", "old content");
	d.sfd = fst_open(ctx, "src", O_RDWR);
	d.dfd = fst_open(ctx, "dst", O_RDWR);
	d.gi = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, d.gi, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, "src");
	fst_mark(ctx, d.gi, FAN_MARK_ADD, FAN_ACCESS | FAN_MODIFY, "dst");
	d.gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, d.gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ACCESS | FAN_MODIFY, ".");
	d.gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, d.gf, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_ACCESS | FAN_MODIFY, ".");
	d.in = fst_inotify(ctx);
	d.ws = fst_watch(ctx, d.in, "src", IN_ALL_EVENTS);
	d.wd = fst_watch(ctx, d.in, "dst", IN_ALL_EVENTS);
	return d;
}

#define DP_EXPECT(ctx, d, fmask, path, imask, wd)                                                  \
	do {                                                                                       \
		FST_EXPECT(ctx, (d)->gi, FST_FAN(fmask, path));                                    \
		FST_EXPECT(ctx, (d)->gm, FST_FAN(fmask, path));                                    \
		FST_EXPECT(ctx, (d)->gf, FST_FAN(fmask, path));                                    \
		FST_EXPECT(ctx, (d)->in, FST_IN(imask, wd, NULL));                                 \
	} while (0)

/* a dentry-only hook: FID group and inotify only */
#define DP_EXPECT_NOPATH(ctx, d, fmask, path, imask, wd)                                           \
	do {                                                                                       \
		FST_EXPECT_NONE(ctx, (d)->gi);                                                     \
		FST_EXPECT_NONE(ctx, (d)->gm);                                                     \
		FST_EXPECT(ctx, (d)->gf, FST_FAN(fmask, path));                                    \
		FST_EXPECT(ctx, (d)->in, FST_IN(imask, wd, NULL));                                 \
	} while (0)

#define DP_EXPECT_NONE(ctx, d)                                                                     \
	do {                                                                                       \
		FST_EXPECT_NONE(ctx, (d)->gi);                                                     \
		FST_EXPECT_NONE(ctx, (d)->gm);                                                     \
		FST_EXPECT_NONE(ctx, (d)->gf);                                                     \
		FST_EXPECT_NONE(ctx, (d)->in);                                                     \
	} while (0)

/*
 * src read and dst written by one call (copy_file_range(), sendfile()),
 * pinned per kernel. From 6.8 each is reported once, at the end: ACCESS on
 * src, then MODIFY on dst. Before, the copy went through do_splice_direct(),
 * whose write reports dst's MODIFY from inside the copy, and the call
 * reports ACCESS and MODIFY again at the end: MODIFY, ACCESS, MODIFY, which
 * fanotify merges to MODIFY, ACCESS (a queued event of the same object and
 * process takes the new bits) and inotify keeps (it merges an event only
 * with the last one queued). A copy_file_range() the filesystem clones
 * (xfs, btrfs: reflink, seen by FIEMAP) never splices: once, in either.
 */
static void dp_expect_copy(struct fst_ctx *ctx, const struct dp *d) {
	bool twice = !fst_kernel_at_least(6, 8) && !fst_extent_shared(ctx, d->dfd);
	const int fan[] = { d->gi, d->gm, d->gf };

	fst_log(ctx, "this kernel: dst's MODIFY %s",
		twice ? "inside the copy and at the end" : "once");
	for (size_t i = 0; i < sizeof(fan) / sizeof(fan[0]); i++) {
		if (twice)
			FST_EXPECT(ctx, fan[i], FST_FAN(FAN_MODIFY, "dst"),
				   FST_FAN(FAN_ACCESS, "src"));
		else
			FST_EXPECT(ctx, fan[i], FST_FAN(FAN_ACCESS, "src"),
				   FST_FAN(FAN_MODIFY, "dst"));
	}
	if (twice)
		FST_EXPECT(ctx, d->in, FST_IN(IN_MODIFY, d->wd, NULL),
			   FST_IN(IN_ACCESS, d->ws, NULL), FST_IN(IN_MODIFY, d->wd, NULL));
	else
		FST_EXPECT(ctx, d->in, FST_IN(IN_ACCESS, d->ws, NULL),
			   FST_IN(IN_MODIFY, d->wd, NULL));
}

static void fp08_write(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);

	ck_assert_int_eq(FST_SYS(ctx, write(d.dfd, "new", 3)), 3);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_pwrite(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);

	ck_assert_int_eq(FST_SYS(ctx, pwrite(d.dfd, "new", 3, 100)), 3);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_writev(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char a[] = "one", b[] = "two";
	struct iovec iov[2] = { { a, 3 }, { b, 3 } };

	ck_assert_int_eq(FST_SYS(ctx, writev(d.dfd, iov, 2)), 6);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_pwritev2(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char a[] = "one", b[] = "two";
	struct iovec iov[2] = { { a, 3 }, { b, 3 } };

	ck_assert_int_eq(FST_SYS(ctx, pwritev2(d.dfd, iov, 2, 0, 0)), 6);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
	ck_assert_int_eq(FST_SYS(ctx, pwritev2(d.dfd, iov, 2, -1, RWF_APPEND)), 6);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_splice_to_file(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	loff_t off = 0;
	int p[2];

	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	FST_SYS(ctx, write(p[1], "spliced", 7));
	ck_assert_int_eq(FST_SYS(ctx, splice(p[0], NULL, d.dfd, &off, 7, 0)), 7);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_copy_file_range(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	loff_t oi = 0, oo = 0;

	ck_assert_int_eq(FST_SYS(ctx, copy_file_range(d.sfd, &oi, d.dfd, &oo, 4096, 0)), 4096);
	dp_expect_copy(ctx, &d);
}

static void fp08_sendfile_to_file(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	off_t off = 0;

	ck_assert_int_eq(FST_SYS(ctx, sendfile(d.dfd, d.sfd, &off, 4096)), 4096);
	dp_expect_copy(ctx, &d);
}

static void fp08_truncate(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);

	FST_SYS(ctx, truncate("dst", 3));
	DP_EXPECT_NOPATH(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_ftruncate(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);

	FST_SYS(ctx, ftruncate(d.dfd, 3));
	DP_EXPECT_NOPATH(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_fallocate(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);

	FST_SYS(ctx, fallocate(d.dfd, 0, 0, 65536));
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_read(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char b[100];

	ck_assert_int_eq(FST_SYS(ctx, read(d.sfd, b, sizeof(b))), sizeof(b));
	DP_EXPECT(ctx, &d, FAN_ACCESS, "src", IN_ACCESS, d.ws);
}

static void fp08_pread(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char b[100];

	ck_assert_int_eq(FST_SYS(ctx, pread(d.sfd, b, sizeof(b), 1000)), sizeof(b));
	DP_EXPECT(ctx, &d, FAN_ACCESS, "src", IN_ACCESS, d.ws);
}

static void fp08_readv(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char a[10], b[10];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };

	ck_assert_int_eq(FST_SYS(ctx, readv(d.sfd, iov, 2)), 20);
	DP_EXPECT(ctx, &d, FAN_ACCESS, "src", IN_ACCESS, d.ws);
}

static void fp08_splice_from_file(struct fst_ctx *ctx) {
	struct dp d;
	loff_t off = 0;
	int p[2];

	/* before 6.5, fs/splice.c called no fsnotify hook for splice() */
	fst_require_kernel(ctx, 6, 5,
			   "splice() from a file reports ACCESS since 6.5 (\"splice: report "
			   "related fsnotify events\")");
	d = dp_setup(ctx);

	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	ck_assert_int_eq(FST_SYS(ctx, splice(d.sfd, &off, p[1], NULL, 100, 0)), 100);
	DP_EXPECT(ctx, &d, FAN_ACCESS, "src", IN_ACCESS, d.ws);
}

static void fp08_sendfile_source(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	off_t off = 0;
	int p[2];

	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	ck_assert_int_eq(FST_SYS(ctx, sendfile(p[1], d.sfd, &off, 100)), 100);
	DP_EXPECT(ctx, &d, FAN_ACCESS, "src", IN_ACCESS, d.ws);
}

/* One special file's data events, told apart (fanotify would merge an
 * ACCESS into a queued MODIFY of the same file): gd has d's mark with
 * FAN_EVENT_ON_CHILD, gs the file's own, in has d's watch (wd) and the
 * file's (wf). */
struct special {
	int gd, gs, in, wd;
};

static void special_expect(struct fst_ctx *ctx, const struct special *s, uint32_t fmask,
			   const char *path, uint32_t imask, int wf) {
	FST_EXPECT_NONE(ctx, s->gd);
	FST_EXPECT(ctx, s->gs, FST_FAN(fmask, path));
	FST_EXPECT(ctx, s->in, FST_IN(imask, wf, NULL));
}

static void special_none(struct fst_ctx *ctx, const struct special *s) {
	FST_EXPECT_NONE(ctx, s->gd);
	FST_EXPECT_NONE(ctx, s->gs);
	FST_EXPECT_NONE(ctx, s->in);
}

/*
 * Special files in a watched directory: reads and writes of a FIFO and of
 * character devices (null and zero, made with mknod) report MODIFY for a
 * write and ACCESS for a read that returned bytes to a mark or watch on
 * the file itself, and nothing to the directory's watchers (a FID group's
 * FAN_EVENT_ON_CHILD mark, an inotify watch), unlike a regular file's. A
 * read of /dev/null returns nothing and reports nothing.
 */
static void fp08_special_files(struct fst_ctx *ctx) {
	static const char *const files[] = { "d/p", "d/z", "d/n" };
	const uint64_t mask = FAN_ACCESS | FAN_MODIFY;
	struct special s;
	int wf[3], fd;
	char b[16];

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkfifo("d/p", 0644));
	FST_SYS(ctx, mknod("d/z", S_IFCHR | 0666, makedev(1, 5)));
	FST_SYS(ctx, mknod("d/n", S_IFCHR | 0666, makedev(1, 3)));
	s.gd = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, s.gd, FAN_MARK_ADD, mask | FAN_EVENT_ON_CHILD, "d");
	s.gs = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	s.in = fst_inotify(ctx);
	s.wd = fst_watch(ctx, s.in, "d", IN_ACCESS | IN_MODIFY);
	for (int i = 0; i < 3; i++) {
		fst_mark(ctx, s.gs, FAN_MARK_ADD, mask, files[i]);
		wf[i] = fst_watch(ctx, s.in, files[i], IN_ACCESS | IN_MODIFY);
	}

	/* the FIFO, both ends in one O_RDWR open (it does not wait) */
	fd = fst_open(ctx, "d/p", O_RDWR);
	special_none(ctx, &s);
	ck_assert_int_eq(FST_SYS(ctx, write(fd, "x", 1)), 1);
	special_expect(ctx, &s, FAN_MODIFY, "d/p", IN_MODIFY, wf[0]);
	ck_assert_int_eq(FST_SYS(ctx, read(fd, b, 1)), 1);
	special_expect(ctx, &s, FAN_ACCESS, "d/p", IN_ACCESS, wf[0]);
	fst_close(ctx, fd);
	special_none(ctx, &s);

	/* zero: reads return bytes, writes are taken */
	fd = fst_open(ctx, "d/z", O_RDWR);
	ck_assert_int_eq(FST_SYS(ctx, read(fd, b, sizeof(b))), sizeof(b));
	special_expect(ctx, &s, FAN_ACCESS, "d/z", IN_ACCESS, wf[1]);
	ck_assert_int_eq(FST_SYS(ctx, write(fd, b, sizeof(b))), sizeof(b));
	special_expect(ctx, &s, FAN_MODIFY, "d/z", IN_MODIFY, wf[1]);
	fst_close(ctx, fd);

	/* null: a write is taken, a read returns nothing: no ACCESS */
	fd = fst_open(ctx, "d/n", O_RDWR);
	ck_assert_int_eq(FST_SYS(ctx, write(fd, b, sizeof(b))), sizeof(b));
	special_expect(ctx, &s, FAN_MODIFY, "d/n", IN_MODIFY, wf[2]);
	ck_assert_int_eq(FST_SYS(ctx, read(fd, b, sizeof(b))), 0);
	special_none(ctx, &s);
	fst_close(ctx, fd);
	special_none(ctx, &s);
}

static void fp08_mmap_write_silent(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, d.dfd, 0);

	if (m == MAP_FAILED)
		fst_fail(ctx, "mmap dst: %s", fst_errname(errno));
	memcpy(m, "mapped", 6);
	FST_SYS(ctx, msync(m, 4096, MS_SYNC));
	FST_SYS(ctx, munmap(m, 4096));
	DP_EXPECT_NONE(ctx, &d);
	/* control */
	fst_write1(ctx, d.dfd);
	DP_EXPECT(ctx, &d, FAN_MODIFY, "dst", IN_MODIFY, d.wd);
}

static void fp08_mmap_read_silent(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, d.sfd, 0);
	char sum = 0;

	if (m == MAP_FAILED)
		fst_fail(ctx, "mmap src: %s", fst_errname(errno));
	for (size_t i = 0; i < 8191; i += 512)
		sum = (char)(sum + m[i]);
	ck_assert_int_ne(sum, 0);
	FST_SYS(ctx, munmap((void *)m, 8192));
	DP_EXPECT_NONE(ctx, &d);
}

static void fp08_zero_length_silent(struct fst_ctx *ctx) {
	struct dp d = dp_setup(ctx);
	char b[16];

	ck_assert_int_eq(FST_SYS(ctx, write(d.dfd, "", 0)), 0);
	ck_assert_int_eq(FST_SYS(ctx, pread(d.sfd, b, sizeof(b), 1 << 20)), 0); /* past EOF */
	ck_assert_int_eq(FST_SYS(ctx, read(d.sfd, b, 0)), 0);
	DP_EXPECT_NONE(ctx, &d);
}

/* ------------------------------------------------------------------------ */
/* FP09-FP12: permission events                                             */
/* ------------------------------------------------------------------------ */

/* The child must be blocked on exactly one permission event (mask, path)
 * in group g and nothing else: answer it with response. */
#define PERM_ANSWER(ctx, g, c, mask, path, response) fst_answer(ctx, g, c, mask, path, response)

/* open(path) in a child neither blocks nor queues anything in g. */
#define OPEN_NOT_BLOCKED(ctx, g, path)                                                             \
	fst_child_not_blocked(ctx, fst_spawn_open(ctx, path, O_RDONLY), g)

/* open(path) in a child blocks on OPEN_PERM in g; allowed, it succeeds. */
#define OPEN_BLOCKED(ctx, g, path)                                                                 \
	do {                                                                                       \
		struct fst_child *c_ = fst_spawn_open(ctx, path, O_RDONLY);                        \
		fst_answer(ctx, g, c_, FAN_OPEN_PERM, path, FAN_ALLOW);                            \
		fst_child_expect(ctx, c_, 0);                                                      \
		FST_EXPECT_NONE(ctx, g);                                                           \
	} while (0)

static void fp09_perm_other_fs_not_blocked(struct fst_ctx *ctx) {
	const char *aux;
	char af[256];
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	aux = fst_mount_tmpfs(ctx, "aux");
	snprintf(af, sizeof(af), "%s/f", aux);
	fst_write_file(ctx, af, "aux");
	fst_write_file(ctx, "f", "here");

	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM | FAN_ACCESS_PERM, aux);

	/* the filesystem under test has no permission watcher */
	OPEN_NOT_BLOCKED(ctx, g, "f");
	c = fst_spawn_read(ctx, "f");
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g);

	/* control: the marked one blocks */
	OPEN_BLOCKED(ctx, g, af);
}

static void fp09_perm_this_fs_not_other(struct fst_ctx *ctx) {
	const char *aux;
	char af[256];
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	aux = fst_mount_tmpfs(ctx, "aux");
	snprintf(af, sizeof(af), "%s/f", aux);
	fst_write_file(ctx, af, "aux");
	fst_write_file(ctx, "f", "here");

	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");

	OPEN_NOT_BLOCKED(ctx, g, af);
	c = fst_spawn_open(ctx, "f", O_RDONLY);
	PERM_ANSWER(ctx, g, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
}

static void fp09_perm_inode_scope(struct fst_ctx *ctx) {
	const char *aux;
	char af[256];
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	aux = fst_mount_tmpfs(ctx, "aux");
	snprintf(af, sizeof(af), "%s/f", aux);
	fst_write_file(ctx, af, "aux");
	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, "g", "g");

	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM, "f");

	OPEN_NOT_BLOCKED(ctx, g, "g"); /* same filesystem, same directory */
	OPEN_NOT_BLOCKED(ctx, g, af);  /* another filesystem */
	OPEN_BLOCKED(ctx, g, "f");
}

/* One permission mark of the given type, nothing else on the filesystem. */
static void perm_one_mark(struct fst_ctx *ctx, unsigned type, uint64_t extra, const char *target) {
	struct fst_child *c;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_write_file(ctx, "f", "data");
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_OPEN_PERM | FAN_ACCESS_PERM | extra, target);

	c = fst_spawn_read(ctx, "f");
	PERM_ANSWER(ctx, g, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
	PERM_ANSWER(ctx, g, c, FAN_ACCESS_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g);

	c = fst_spawn_open(ctx, "f", O_RDONLY);
	PERM_ANSWER(ctx, g, c, FAN_OPEN_PERM, "f", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, g);
}

static void fp10_perm_inode_only(struct fst_ctx *ctx) {
	perm_one_mark(ctx, 0, 0, "f");
}

static void fp10_perm_mount_only(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	perm_one_mark(ctx, FAN_MARK_MOUNT, 0, ".");
}

static void fp10_perm_sb_only(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	perm_one_mark(ctx, FAN_MARK_FILESYSTEM, 0, ".");
}

static void fp10_perm_parent_only(struct fst_ctx *ctx) {
	perm_one_mark(ctx, 0, FAN_EVENT_ON_CHILD, ".");
}

static void remove_cycles(struct fst_ctx *ctx, unsigned type, const char *target) {
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_write_file(ctx, "f", "data");
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	for (int i = 0; i < 3; i++) {
		fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_OPEN_PERM, target);
		OPEN_BLOCKED(ctx, g, "f");
		fst_mark(ctx, g, FAN_MARK_REMOVE | type, FAN_OPEN_PERM, target);
		OPEN_NOT_BLOCKED(ctx, g, "f");
	}
}

static void fp11_remove_perm_inode(struct fst_ctx *ctx) {
	remove_cycles(ctx, 0, "f");
}

static void fp11_remove_perm_mount(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	remove_cycles(ctx, FAN_MARK_MOUNT, ".");
}

static void fp11_remove_perm_sb(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	remove_cycles(ctx, FAN_MARK_FILESYSTEM, ".");
}

static void fp11_close_perm_group(struct fst_ctx *ctx) {
	int other;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "data");
	/* a notification group stays, to see that nothing else is reported */
	other = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, other, FAN_MARK_ADD, FAN_CLOSE_NOWRITE, "f");

	for (int i = 0; i < 3; i++) {
		int g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
		struct fst_child *c;
		struct fst_event *e;

		fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
		c = fst_spawn_open(ctx, "f", O_RDONLY);
		e = fst_perm_event(ctx, g, c, FAN_OPEN_PERM, "f");
		/* closing the group unanswered releases the child, allowed */
		fst_close(ctx, g);
		fst_child_expect(ctx, c, 0);
		fst_close(ctx, e->ev.fd);
		FST_EXPECT(ctx, other, { .mask = FAN_CLOSE_NOWRITE, .path = "f", .pid = c->pid });

		c = fst_spawn_open(ctx, "f", O_RDONLY);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT(ctx, other, { .mask = FAN_CLOSE_NOWRITE, .path = "f", .pid = c->pid });
	}
}

static void fp11_two_groups_remove_one(struct fst_ctx *ctx) {
	struct fst_child *c;
	int a, b;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "data");
	a = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	b = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, a, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	fst_mark(ctx, b, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	/* both groups are asked, one after the other (each alone) */
	c = fst_spawn_open(ctx, "f", O_RDONLY);
	fst_allow_all(ctx, c, ((const int[]){ a, b }), 2, FST_PERM(c, FAN_OPEN_PERM, "f"));

	fst_mark(ctx, b, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	OPEN_BLOCKED(ctx, a, "f");
	FST_EXPECT_NONE(ctx, b);

	fst_mark(ctx, a, FAN_MARK_REMOVE, FAN_OPEN_PERM, "f");
	OPEN_NOT_BLOCKED(ctx, a, "f");
	FST_EXPECT_NONE(ctx, b);

	fst_mark(ctx, b, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	OPEN_BLOCKED(ctx, b, "f");
	FST_EXPECT_NONE(ctx, a);
}

static void fp12_event_fd_read_silent(struct fst_ctx *ctx) {
	struct fst_events *ev;
	char b[16] = "";
	int g, gm, fd, efd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_write_file(ctx, "a", "content");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "a");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_ACCESS | FAN_CLOSE, ".");

	fd = fst_open(ctx, "a", O_RDONLY);
	ev = fst_read_keep(ctx, g);
	FST_MATCH(ctx, g, ev, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "a"));
	efd = ev->e[0].ev.fd;

	/* reading and closing the event fd is invisible to every group */
	ck_assert_int_eq(FST_SYS(ctx, pread(efd, b, sizeof(b) - 1, 0)), 7);
	ck_assert_str_eq(b, "content");
	FST_SYS(ctx, read(efd, b, sizeof(b)));
	fst_close(ctx, efd);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_NONE(ctx, gm);

	/* control: the same operations through an ordinary fd */
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "a"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_ACCESS, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
}

static void fp12_perm_event_fd_read(struct fst_ctx *ctx) {
	struct fst_child *c, *r;
	struct fst_event *e;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_write_file(ctx, "a", "content");
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ACCESS_PERM, "a");

	c = fst_spawn_open(ctx, "a", O_RDONLY);
	e = fst_perm_event(ctx, g, c, FAN_OPEN_PERM, "a");

	/* reading the permission event's fd must not ask for ACCESS_PERM:
	 * done by a child, so that a kernel that does ask cannot hang us */
	r = fst_spawn_read_fd(ctx, e->ev.fd);
	fst_child_expect(ctx, r, 0);
	FST_EXPECT_NONE(ctx, g);

	fst_respond(ctx, g, e, FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_fp[] = {
	FST_CASE(fp01_unwatched_dir_silent, "FP01", FST_ALL_FS,
		 "every operation in an unwatched sibling directory: no fanotify/inotify event"),
	FST_CASE(fp01_other_fs_marks_silent, "FP01", FST_ALL_FS,
		 "inode+mount+sb marks and a watch on another fs: nothing from this one"),
	FST_CASE(fp01_other_mount_silent, "FP01,MK02", FST_ALL_FS,
		 "mount mark on a bind mount: nothing through the original mount"),
	FST_CASE(fp02_inode_mark_sibling, "FP02", FST_ALL_FS,
		 "inode mark on a: sibling b silent, a gives open/modify/access/close"),
	FST_CASE(fp02_inode_watch_sibling_inotify, "FP02", FST_ALL_FS,
		 "inotify watch on a: sibling b silent, a gives each event without name"),
	FST_CASE(fp02_asked_bits_only, "FP02", FST_ALL_FS,
		 "MODIFY-only mark on a, ACCESS-only on b: exactly the asked bits"),
	FST_CASE(fp02_two_groups_two_files, "FP02", FST_ALL_FS,
		 "two groups on two files and a watch: each sees only its own file"),
	FST_CASE(fp03_cached_child_open_fd, "FP03", FST_ALL_FS,
		 "child open before the parent mark: writes/reads/close via the old fd reported"),
	FST_CASE(fp03_cached_child_inotify, "FP03", FST_ALL_FS,
		 "child open before the parent watch: inotify reports it with its name"),
	FST_CASE(fp03_cached_child_lookup, "FP03", FST_ALL_FS,
		 "child looked up (stat) before the parent mark: its open is reported"),
	FST_CASE_GIT(
	    fp03_second_group_on_child, "FP03,FP04,PC04", FST_ALL_FS, "54a307ba8d3c e730558adffb",
	    "second group adds EVENT_ON_CHILD to a watched dir: only it gets child events"),
	FST_CASE(fp03_on_child_flag_added_later, "FP03,FP05", FST_ALL_FS,
		 "EVENT_ON_CHILD added to an existing parent mark: cached child reported"),
	FST_CASE(fp04_parent_mark_cycles, "FP04", FST_ALL_FS,
		 "add/remove the parent mark 5 times: child events follow exactly"),
	FST_CASE(fp04_on_child_bit_cycles, "FP04,PC01", FST_ALL_FS,
		 "remove/re-add only EVENT_ON_CHILD 5 times: child events stop, dir's stay"),
	FST_CASE(fp04_inotify_rm_watch_cycles, "FP04", FST_ALL_FS,
		 "add/rm an inotify dir watch 5 times: IN_IGNORED, then child events stop"),
	FST_CASE_GIT(
	    fp04_stale_flag_other_group, "FP04,PC04", FST_ALL_FS, "54a307ba8d3c e730558adffb",
	    "after removing group a's child interest, b's plain dir mark gets no child event"),
	FST_CASE(fp04_group_close_cycles, "FP04", FST_ALL_FS,
		 "create/close a parent-watching group 5 times; a child inode mark stays exact"),
	FST_CASE(fp05_inode_mask_update, "FP05", FST_ALL_FS,
		 "inode mark: bits added and removed take effect on the next operation"),
	FST_CASE(fp05_mount_mask_update, "FP05", FST_ALL_FS,
		 "mount mark: bits added and removed take effect on the next operation"),
	FST_CASE(fp05_sb_mask_update, "FP05", FST_ALL_FS,
		 "filesystem mark: bits added and removed take effect on the next operation"),
	FST_CASE(fp05_parent_mask_update, "FP05", FST_ALL_FS,
		 "parent mark with EVENT_ON_CHILD: child events follow the updated mask"),
	FST_CASE(fp05_inotify_mask_update, "FP05", FST_ALL_FS,
		 "inotify: replacing and IN_MASK_ADD-ing a watch's mask takes effect at once"),
	FST_CASE(fp06_modify_clears_ignore, "FP06,IG01", FST_ALL_FS,
		 "a write clears a legacy ignore mask of a mark that does not ask for MODIFY"),
	FST_CASE_GIT(fp06_modify_clears_ignore_mount, "FP06,IG01,IG02", FST_ALL_FS, "8edc6e1688fc",
		     "write clears an ignore-only inode mark; the mount mark's OPEN comes back"),
	FST_CASE(fp06_modify_clears_ignore_sb, "FP06,IG01,IG02", FST_ALL_FS,
		 "write clears an ignore-only inode mark; the sb mark's OPEN comes back"),
	FST_CASE(fp06_surv_modify_keeps_ignore, "FP06,IG01", FST_ALL_FS,
		 "IGNORED_SURV_MODIFY survives a write; removing the ignore bit restores OPEN"),
	FST_CASE(fp06_ignore_skipped_open_for_write, "FP06,IG01", FST_ALL_FS,
		 "legacy ignore mask not added while the file is open for write; SURV_MODIFY is"),
	FST_CASE(fp07_pipe_unwatched_silent, "FP07", FST_ONCE,
		 "I/O on an unwatched pipe: nothing; on a watched pipe: IN_MODIFY, IN_ACCESS"),
	FST_CASE(fp07_pipe_watch_add_remove, "FP07", FST_ONCE,
		 "inotify watch on a pipe via /proc/self/fd: events, IN_IGNORED, silence, again"),
	FST_CASE(fp08_write, "FP08", FST_ALL_FS,
		 "write() -> MODIFY (inode, mount, sb+FID marks, inotify)"),
	FST_CASE(fp08_pwrite, "FP08", FST_ALL_FS, "pwrite() -> MODIFY"),
	FST_CASE(fp08_writev, "FP08", FST_ALL_FS, "writev() -> MODIFY"),
	FST_CASE(fp08_pwritev2, "FP08", FST_ALL_FS,
		 "pwritev2() at an offset and RWF_APPEND -> MODIFY"),
	FST_CASE(fp08_splice_to_file, "FP08", FST_ALL_FS, "splice() pipe -> file: MODIFY"),
	FST_CASE(fp08_copy_file_range, "FP08", FST_ALL_FS,
		 "copy_file_range(): ACCESS on the source, then MODIFY on the target"),
	FST_CASE(fp08_sendfile_to_file, "FP08", FST_ALL_FS,
		 "sendfile() file -> file: ACCESS on the source, then MODIFY on the target"),
	FST_CASE(fp08_truncate, "FP08", FST_ALL_FS,
		 "truncate() -> MODIFY to FID group and inotify (no path: not to fd-mode/mount)"),
	FST_CASE(fp08_ftruncate, "FP08", FST_ALL_FS,
		 "ftruncate() -> MODIFY to FID group and inotify (no path: not to fd-mode/mount)"),
	FST_CASE(fp08_fallocate, "FP08", FST_ALL_FS, "fallocate() -> MODIFY"),
	FST_CASE(fp08_read, "FP08", FST_ALL_FS, "read() -> ACCESS"),
	FST_CASE(fp08_pread, "FP08", FST_ALL_FS, "pread() -> ACCESS"),
	FST_CASE(fp08_readv, "FP08", FST_ALL_FS, "readv() -> ACCESS"),
	FST_CASE(fp08_splice_from_file, "FP08", FST_ALL_FS, "splice() file -> pipe: ACCESS"),
	FST_CASE(fp08_sendfile_source, "FP08", FST_ALL_FS, "sendfile() file -> pipe: ACCESS"),
	FST_CASE(fp08_special_files, "FP08,PC01", FST_ALL_FS,
		 "FIFO, zero, null nodes: MODIFY, ACCESS to the file's marks, none to the dir's"),
	FST_CASE(fp08_mmap_write_silent, "FP08", FST_ALL_FS,
		 "writes through a shared mapping + msync: no event"),
	FST_CASE(fp08_mmap_read_silent, "FP08", FST_ALL_FS, "reads through a mapping: no event"),
	FST_CASE(fp08_zero_length_silent, "FP08", FST_ALL_FS,
		 "zero-length write, read at/after EOF: no event"),
	FST_CASE(fp09_perm_other_fs_not_blocked, "FP09", FST_ALL_FS,
		 "OPEN/ACCESS_PERM sb mark on another tmpfs: opens here neither block nor queue"),
	FST_CASE(fp09_perm_this_fs_not_other, "FP09", FST_ALL_FS,
		 "OPEN_PERM sb mark here: another fs is not blocked; here DENY gives EPERM"),
	FST_CASE(fp09_perm_inode_scope, "FP09", FST_ALL_FS,
		 "OPEN_PERM inode mark: sibling and other-fs opens do not block, the file does"),
	FST_CASE(fp10_perm_inode_only, "FP10", FST_ALL_FS,
		 "only an inode permission mark: OPEN_PERM and ACCESS_PERM block, DENY works"),
	FST_CASE(fp10_perm_mount_only, "FP10", FST_ALL_FS,
		 "only a mount permission mark: OPEN_PERM and ACCESS_PERM block, DENY works"),
	FST_CASE(fp10_perm_sb_only, "FP10", FST_ALL_FS,
		 "only a filesystem permission mark: OPEN_PERM and ACCESS_PERM block, DENY works"),
	FST_CASE(fp10_perm_parent_only, "FP10", FST_ALL_FS,
		 "only a parent permission mark with EVENT_ON_CHILD: child opens/reads block"),
	FST_CASE(fp11_remove_perm_inode, "FP11", FST_ALL_FS,
		 "inode OPEN_PERM mark removed: opens stop blocking; re-added: block (3 cycles)"),
	FST_CASE(fp11_remove_perm_mount, "FP11", FST_ALL_FS,
		 "mount OPEN_PERM mark removed: opens stop blocking; re-added: block (3 cycles)"),
	FST_CASE(fp11_remove_perm_sb, "FP11", FST_ALL_FS,
		 "sb OPEN_PERM mark removed: opens stop blocking; re-added: block (3 cycles)"),
	FST_CASE_GIT(fp11_close_perm_group, "FP11,PE03", FST_ALL_FS, "96d41019e3ac 05f0e38724e8",
		     "closing the only permission group releases the blocked open; then no block"),
	FST_CASE(fp11_two_groups_remove_one, "FP11", FST_ALL_FS,
		 "inode + sb permission groups: removing one keeps the other blocking"),
	FST_CASE(fp12_event_fd_read_silent, "FP12", FST_ALL_FS,
		 "reading/closing a fanotify event fd: no ACCESS/CLOSE in any group"),
	FST_CASE(fp12_perm_event_fd_read, "FP12", FST_ALL_FS,
		 "reading a permission event's fd asks no ACCESS_PERM and does not block"),
	{ 0 },
};
