/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-pc.c — fsn-selftest cases of the PC group: parent and child
 * (FS_EVENT_ON_CHILD), PC01-PC08 in semantics.md.
 *
 * An event on a non-directory (or, with FAN_ONDIR, a subdirectory) is
 * offered to its parent's marks by fsnotify_parent() / __fsnotify_parent()
 * (include/linux/fsnotify.h, fs/notify/fsnotify.c): the parent's inode
 * marks are iterated as FSNOTIFY_ITER_TYPE_PARENT next to the child's own
 * inode, mount and sb marks, and fsnotify_iter_select_report_types() drops
 * a parent mark that does not itself ask for FS_EVENT_ON_CHILD. The
 * parent's i_fsnotify_mask is the union of every group's marks, so one
 * group's EVENT_ON_CHILD makes the fast path deliver child events to the
 * slow path for all of them: each case here checks that exactly the marks
 * that asked get the event, exactly once, with the right object and name.
 *
 * Every step is read right away (unread events on one object merge), and
 * every "nothing here" has a positive control in the same group.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selftest.h"

#define FAN_OAMC (FAN_OPEN | FAN_ACCESS | FAN_MODIFY | FAN_CLOSE)

/* ------------------------------------------------------------------------ */
/* Local helpers                                                            */
/* ------------------------------------------------------------------------ */

/* Open and close a directory (no readdir): OPEN, then CLOSE_NOWRITE. */
static int open_dir(struct fst_ctx *ctx, const char *path) {
	return fst_open(ctx, path, O_RDONLY | O_DIRECTORY);
}

/* Read directory entries: ACCESS on the directory. */
static void read_dir(struct fst_ctx *ctx, int dfd) {
	char buf[4096];

	FST_SYS(ctx, syscall(SYS_getdents64, dfd, buf, sizeof(buf)));
}

/* A FID-reporting group with flags (FAN_REPORT_FID, _DIR_FID, _DFID_NAME
 * ...), after checking this filesystem supports it. */
static int fid_group(struct fst_ctx *ctx, unsigned flags) {
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	if (flags & FAN_REPORT_DIR_FID)
		fst_require(ctx, FSN_FEAT_REPORT_DIR_FID);
	if (flags & FAN_REPORT_NAME)
		fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	return fst_fan_init(ctx, FAN_CLASS_NOTIF | flags);
}

/* The child is blocked on exactly one permission event (mask, path) in g:
 * answer it. */
#define PERM_ANSWER(ctx, g, c, mask, path, response) fst_answer(ctx, g, c, mask, path, response)

/* The child must finish with result 0 without g being asked anything. */
#define NOT_BLOCKED(ctx, g, c) fst_child_not_blocked(ctx, c, g)

/* ------------------------------------------------------------------------ */
/* PC01: EVENT_ON_CHILD brings the children's events; removing only it     */
/* stops them and keeps the directory's own                                 */
/* ------------------------------------------------------------------------ */

static void pc01_child_events_fd(struct fst_ctx *ctx) {
	int g, fd, dfd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");

	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "d/c"));
	dfd = open_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	read_dir(ctx, dfd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d"));
	fst_close(ctx, dfd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d"));

	/* only the flag goes: no child event of any kind */
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	fd = fst_open(ctx, "d/c", O_RDWR);
	fst_read1(ctx, fd);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	/* the directory's own events stay, one by one */
	dfd = open_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	read_dir(ctx, dfd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d"));
	fst_close(ctx, dfd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d"));

	/* the event bits were kept: the flag alone brings every one back */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "d/c"));
}

/* A FAN_REPORT_FID group: the child's FID; dirent events are the
 * directory's own events and stay without EVENT_ON_CHILD. */
static void pc01_child_events_fid(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	g = fid_group(ctx, FAN_REPORT_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	fst_mark(ctx, g, FAN_MARK_ADD,
		 FAN_OAMC | FAN_ATTRIB | FAN_CREATE | FAN_DELETE | FAN_ONDIR | FAN_EVENT_ON_CHILD,
		 "d");

	FST_SYS(ctx, chmod("d/c", 0600));
	FST_EXPECT(ctx, g, FST_FAN(FAN_ATTRIB, "d/c"));
	FST_SYS(ctx, truncate("d/c", 4)); /* a dentry-only hook: no path */
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "d/c"));
	FST_SYS(ctx, mknodat(ctx->workfd, "d/n", S_IFREG | 0644, 0));
	FST_EXPECT(ctx, g, FST_FAN(FAN_CREATE, "d"));
	FST_SYS(ctx, chmod("d", 0700));
	FST_EXPECT(ctx, g, FST_FAN(FAN_ATTRIB | FAN_ONDIR, "d"));

	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	FST_SYS(ctx, chmod("d/c", 0644));
	FST_SYS(ctx, truncate("d/c", 2));
	fd = fst_open(ctx, "d/c", O_RDWR);
	fst_write1(ctx, fd);
	fst_read1(ctx, fd);
	fst_close(ctx, fd);
	FST_SYS(ctx, chmod("d/n", 0600));
	FST_EXPECT_NONE(ctx, g);
	/* the directory's own: dirent events and its attributes */
	FST_SYS(ctx, unlink("d/n"));
	FST_EXPECT(ctx, g, FST_FAN(FAN_DELETE, "d"));
	FST_SYS(ctx, mknodat(ctx->workfd, "d/m", S_IFREG | 0644, 0));
	FST_EXPECT(ctx, g, FST_FAN(FAN_CREATE, "d"));
	FST_SYS(ctx, chmod("d", 0755));
	FST_EXPECT(ctx, g, FST_FAN(FAN_ATTRIB | FAN_ONDIR, "d"));

	fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	FST_SYS(ctx, chmod("d/m", 0600));
	FST_EXPECT(ctx, g, FST_FAN(FAN_ATTRIB, "d/m"));
}

/* The parent is the directory the child is in now: rename moves the
 * dentry's "parent watched" state along (d_move() -> fsnotify_update_flags()). */
static void pc01_child_moved_in_out(struct fst_ctx *ctx) {
	int g, in, wd, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("o", 0755));
	fst_write_file(ctx, "o/c", "c");
	fd = fst_open(ctx, "o/c", O_RDWR); /* cached and open before any mark */
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "d", IN_MODIFY);

	for (int i = 0; i < 3; i++) {
		fst_write1(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
		FST_EXPECT_NONE(ctx, in);
		FST_SYS(ctx, rename("o/c", "d/c"));
		FST_EXPECT_NONE(ctx, g);
		FST_EXPECT_NONE(ctx, in);
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
		FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"));
		FST_SYS(ctx, rename("d/c", "o/c"));
		FST_EXPECT_NONE(ctx, g);
		FST_EXPECT_NONE(ctx, in);
	}
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_NONE(ctx, in);
}

/* A file with two names: the parent is the directory of the path used. */
static void pc01_hardlink_parent_of_path(struct fst_ctx *ctx) {
	int gf, g, fd;

	FST_SYS(ctx, mkdir("a", 0755));
	FST_SYS(ctx, mkdir("b", 0755));
	fst_write_file(ctx, "a/f", "f");
	FST_SYS(ctx, link("a/f", "b/l"));
	gf = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OPEN | FAN_ATTRIB | FAN_EVENT_ON_CHILD, "a");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "b");

	fst_open_close(ctx, "a/f", O_RDONLY);
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN, .path = "a/f", .dir = "a", .name = "f" });
	FST_EXPECT_NONE(ctx, g);
	FST_SYS(ctx, chmod("a/f", 0600));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .path = "a/f", .dir = "a", .name = "f" });

	fd = fst_open(ctx, "b/l", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a/f")); /* the same inode */
	FST_EXPECT_NONE(ctx, gf);
	FST_SYS(ctx, fchmod(fd, 0644));
	FST_SYS(ctx, chmod("b/l", 0640));
	FST_EXPECT_NONE(ctx, gf);
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, fd);

	/* marking b too: the same inode reported under each parent's name */
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "b");
	fst_open_close(ctx, "b/l", O_RDONLY);
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN, .path = "a/f", .dir = "b", .name = "l" });
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b/l"));
	fst_open_close(ctx, "a/f", O_RDONLY);
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN, .path = "a/f", .dir = "a", .name = "f" });
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* PC02: no EVENT_ON_CHILD, no child event of any class                     */
/* ------------------------------------------------------------------------ */

static void pc02_no_on_child_notif(struct fst_ctx *ctx) {
	int g, gf, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_ONDIR, "d");
	gf = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OAMC | FAN_ATTRIB | FAN_CREATE | FAN_DELETE | FAN_ONDIR,
		 "d");

	fd = fst_open(ctx, "d/c", O_RDWR);
	fst_read1(ctx, fd);
	fst_write1(ctx, fd);
	FST_SYS(ctx, ftruncate(fd, 3));
	FST_SYS(ctx, fchmod(fd, 0600));
	fst_close(ctx, fd);
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_SYS(ctx, chmod("d/c", 0644));
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT_NONE(ctx, gf);

	/* control: the same marks report the directory's own events */
	fd = open_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d", .name = "." });
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT(ctx, gf, { .mask = FAN_CLOSE_NOWRITE | FAN_ONDIR, .dir = "d", .name = "." });
	FST_SYS(ctx, mknodat(ctx->workfd, "d/n", S_IFREG | 0644, 0));
	FST_EXPECT(ctx, gf, { .mask = FAN_CREATE, .dir = "d", .name = "n" });
	FST_EXPECT_NONE(ctx, g);
	FST_SYS(ctx, chmod("d", 0700));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d", .name = "." });

	/* and the children's once asked for */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN, .path = "d/c", .dir = "d", .name = "c" });
	FST_SYS(ctx, fchmod(fd, 0600));
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .path = "d/c", .dir = "d", .name = "c" });
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "d/c"));
	FST_EXPECT(ctx, gf, { .mask = FAN_CLOSE_WRITE, .path = "d/c", .dir = "d", .name = "c" });
}

/* Permission marks on a parent without EVENT_ON_CHILD, also while another
 * group makes the parent watch its children (the parent's inode mask then
 * has OPEN_PERM, ACCESS_PERM and EVENT_ON_CHILD, from two groups). */
static void pc02_no_on_child_perm(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p, n;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "data");
	p = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_ONDIR, "d");

	NOT_BLOCKED(ctx, p, fst_spawn_read(ctx, "d/c"));
	/* control: the directory itself is asked about */
	c = fst_spawn_open(ctx, "d", O_RDONLY | O_DIRECTORY);
	PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);

	/* n reads only ACCESS: the child's OPEN and ACCESS would merge */
	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_ACCESS | FAN_EVENT_ON_CHILD, "d");
	c = fst_spawn_read(ctx, "d/c");
	NOT_BLOCKED(ctx, p, c);
	FST_EXPECT(ctx, n, { .mask = FAN_ACCESS, .path = "d/c", .pid = c->pid });

	/* p asks for its children too: now every child open and read waits */
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	c = fst_spawn_read(ctx, "d/c");
	PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d/c", FAN_ALLOW);
	PERM_ANSWER(ctx, p, c, FAN_ACCESS_PERM, "d/c", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT(ctx, n, { .mask = FAN_ACCESS, .path = "d/c", .pid = c->pid });

	/* and stops again with the flag */
	fst_mark(ctx, p, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	c = fst_spawn_read(ctx, "d/c");
	NOT_BLOCKED(ctx, p, c);
	FST_EXPECT(ctx, n, { .mask = FAN_ACCESS, .path = "d/c", .pid = c->pid });
}

/*
 * Pre-content: whether an open file gets the pre-content hooks at all is
 * decided at open (6.14's file_set_fsnotify_mode_from_watchers() also
 * looked at the parent's mask; later kernels only at whether the
 * filesystem has pre-content watchers); the read's FAN_PRE_ACCESS goes through
 * fsnotify_parent() and must skip a parent mark without EVENT_ON_CHILD,
 * also once another group makes the parent watch its children.
 */
static void pc02_no_on_child_pre_content(struct fst_ctx *ctx) {
	struct fst_child *c;
	struct fst_exp x;
	int p, n;

	fst_require(ctx, FSN_FEAT_PRE_ACCESS);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "data");
	p = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_PRE_ACCESS, "d");

	NOT_BLOCKED(ctx, p, fst_spawn_read(ctx, "d/c"));

	n = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, n, FAN_MARK_ADD, FAN_ACCESS | FAN_EVENT_ON_CHILD, "d");
	c = fst_spawn_read(ctx, "d/c");
	NOT_BLOCKED(ctx, p, c);
	FST_EXPECT(ctx, n, { .mask = FAN_ACCESS, .path = "d/c", .pid = c->pid });

	/* control: with the flag, the child's read waits for the answer */
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	c = fst_spawn_read(ctx, "d/c");
	x = fst_pre_access("d/c", c->pid, 0, 1); /* a 1-byte read at 0: the first page */
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, &x), FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT(ctx, n, { .mask = FAN_ACCESS, .path = "d/c", .pid = c->pid });

	/* a denied pre-content event fails the child's read */
	c = fst_spawn_read(ctx, "d/c");
	x = fst_pre_access("d/c", c->pid, 0, 1);
	fst_respond(ctx, p, fst_perm_event_x(ctx, p, c, &x), FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);
	FST_EXPECT_NONE(ctx, n);
}

/* ------------------------------------------------------------------------ */
/* PC03: one event per group, however many of its marks match               */
/* ------------------------------------------------------------------------ */

static void pc03_parent_and_inode_mark(struct fst_ctx *ctx) {
	int g, gf, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "d/c");
	gf = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OAMC | FAN_ATTRIB | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OAMC | FAN_ATTRIB, "d/c");

#define BOTH(m)                                                                                    \
	do {                                                                                       \
		FST_EXPECT(ctx, g, FST_FAN(m, "d/c"));                                             \
		FST_EXPECT(ctx, gf, { .mask = (m), .path = "d/c", .dir = "d", .name = "c" });      \
	} while (0)

	fd = fst_open(ctx, "d/c", O_RDWR);
	BOTH(FAN_OPEN);
	fst_read1(ctx, fd);
	BOTH(FAN_ACCESS);
	fst_write1(ctx, fd);
	BOTH(FAN_MODIFY);
	fst_close(ctx, fd);
	BOTH(FAN_CLOSE_WRITE);
	FST_SYS(ctx, chmod("d/c", 0600));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .path = "d/c", .dir = "d", .name = "c" });
	FST_EXPECT_NONE(ctx, g);

	/* split the interest: each bit is asked by one mark only */
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_ACCESS | FAN_CLOSE, "d");
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_MODIFY | FAN_OPEN, "d/c");
	fst_mark(ctx, gf, FAN_MARK_REMOVE, FAN_ACCESS | FAN_CLOSE, "d");
	fst_mark(ctx, gf, FAN_MARK_REMOVE, FAN_MODIFY | FAN_OPEN, "d/c");
	fd = fst_open(ctx, "d/c", O_RDWR); /* OPEN: parent mark only */
	BOTH(FAN_OPEN);
	fst_read1(ctx, fd); /* ACCESS: child mark only */
	BOTH(FAN_ACCESS);
	fst_write1(ctx, fd); /* MODIFY: parent mark only */
	BOTH(FAN_MODIFY);
	fst_close(ctx, fd); /* CLOSE_WRITE: child mark only */
	BOTH(FAN_CLOSE_WRITE);
#undef BOTH
}

static void pc03_parent_mount_sb(struct fst_ctx *ctx) {
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	fst_write_file(ctx, "t", "top");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OAMC, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OAMC, ".");

	for (int i = 0; i < 2; i++) {
		/* the child of the marked parent, then a file elsewhere */
		const char *f = i == 0 ? "d/c" : "t";

		fd = fst_open(ctx, f, O_RDWR);
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, f));
		fst_read1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, f));
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, f));
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, f));
	}
	/* no ONDIR anywhere: the directory itself is not reported */
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT_NONE(ctx, g);

	/* the inode mark too, then without the parent's flag: still one each */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "d/c");
	fd = fst_open(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/c"));
}

/* A DFID_NAME+FID group with parent, inode, mount and sb marks: one event
 * per operation, carrying the parent, the name and the child. */
static void pc03_fid_all_mark_types(struct fst_ctx *ctx) {
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT); /* FID filesystem marks */
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	g = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_ATTRIB | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_ATTRIB, "d/c");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OAMC, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OAMC | FAN_ATTRIB, ".");

#define ONE(m) FST_EXPECT(ctx, g, { .mask = (m), .path = "d/c", .dir = "d", .name = "c" })
	fd = fst_open(ctx, "d/c", O_RDWR);
	ONE(FAN_OPEN);
	fst_read1(ctx, fd);
	ONE(FAN_ACCESS);
	fst_write1(ctx, fd);
	ONE(FAN_MODIFY);
	FST_SYS(ctx, fchmod(fd, 0600));
	ONE(FAN_ATTRIB);
	fst_close(ctx, fd);
	ONE(FAN_CLOSE_WRITE);
	FST_SYS(ctx, truncate("d/c", 1)); /* no path: the mount mark cannot match */
	ONE(FAN_MODIFY);
#undef ONE
}

/* Permission events are never merged: a second request for the same
 * operation would show as a second event after the first answer. */
static void pc03_perm_once(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_ACCESS);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "data");
	p = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ACCESS_PERM, "d/c");
	fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM | FAN_ACCESS_PERM, ".");
	fst_mark(ctx, p, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM | FAN_ACCESS_PERM, ".");

	c = fst_spawn_read(ctx, "d/c");
	PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d/c", FAN_ALLOW);
	PERM_ANSWER(ctx, p, c, FAN_ACCESS_PERM, "d/c", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);

	c = fst_spawn_open(ctx, "d/c", O_RDONLY);
	PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d/c", FAN_DENY);
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, p);

	/* only the parent's mark left */
	fst_mark(ctx, p, FAN_MARK_REMOVE, FAN_OPEN_PERM | FAN_ACCESS_PERM, "d/c");
	fst_mark(ctx, p, FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_OPEN_PERM | FAN_ACCESS_PERM, ".");
	fst_mark(ctx, p, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM | FAN_ACCESS_PERM,
		 ".");
	c = fst_spawn_open(ctx, "d/c", O_RDONLY);
	PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d/c", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, p);
}

/* ------------------------------------------------------------------------ */
/* PC04: several groups on one parent, each gets what it asked              */
/* ------------------------------------------------------------------------ */

static void pc04_groups_each_own(struct fst_ctx *ctx) {
	int a, b, c, d, in, wd, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "0123456789");
	a = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, a, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	b = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_OPEN | FAN_MODIFY | FAN_ACCESS | FAN_ONDIR, "d");
	c = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, c, FAN_MARK_ADD, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	d = fid_group(ctx, FAN_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	fst_mark(ctx, d, FAN_MARK_ADD, FAN_ATTRIB | FAN_CREATE | FAN_ONDIR, "d");
	in = fst_inotify(ctx); /* inotify always watches children */
	wd = fst_watch(ctx, in, "d", IN_ATTRIB);

	fd = fst_open(ctx, "d/f", O_RDWR);
	FST_EXPECT(ctx, a, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, b);
	FST_EXPECT_NONE(ctx, c);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, c, FST_FAN(FAN_MODIFY, "d/f"));
	FST_EXPECT_NONE(ctx, a);
	FST_EXPECT_NONE(ctx, b);
	fst_read1(ctx, fd);
	FST_SYS(ctx, fchmod(fd, 0600));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, "f"));
	FST_EXPECT_NONE(ctx, a);
	FST_EXPECT_NONE(ctx, b);
	FST_EXPECT_NONE(ctx, c);
	FST_EXPECT_NONE(ctx, d);
	fst_close(ctx, fd);

	/* controls: the directory's own events reach b and d */
	fd = open_dir(ctx, "d");
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT_NONE(ctx, a);
	read_dir(ctx, fd);
	FST_EXPECT(ctx, b, FST_FAN(FAN_ACCESS, "d"));
	fst_close(ctx, fd);
	FST_SYS(ctx, chmod("d", 0700));
	FST_EXPECT(ctx, d, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d", .name = "." });
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB | IN_ISDIR, wd, NULL));
	FST_SYS(ctx, mknodat(ctx->workfd, "d/n", S_IFREG | 0644, 0));
	FST_EXPECT(ctx, d, { .mask = FAN_CREATE, .dir = "d", .name = "n" });

	/* the child-watching groups go, one by one */
	fst_close(ctx, a);
	fd = fst_open(ctx, "d/f", O_RDWR);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, c, FST_FAN(FAN_MODIFY, "d/f"));
	FST_EXPECT_NONE(ctx, b);
	fst_mark(ctx, c, FAN_MARK_REMOVE, FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");
	fst_write1(ctx, fd);
	FST_SYS(ctx, fchmod(fd, 0644));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, "f"));
	fst_rm_watch(ctx, in, wd);
	FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wd, NULL));
	fst_write1(ctx, fd);
	FST_SYS(ctx, fchmod(fd, 0600));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, b);
	FST_EXPECT_NONE(ctx, c);
	FST_EXPECT_NONE(ctx, d);
	FST_EXPECT_NONE(ctx, in);
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d"));
}

/* An inotify watch (whose marks always ask for children) on the same
 * directory as a fanotify mark without EVENT_ON_CHILD, in both orders. */
static void pc04_inotify_does_not_leak(struct fst_ctx *ctx) {
	int g, in, wd, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	in = fst_inotify(ctx);

	for (int order = 0; order < 2; order++) {
		g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
		if (order == 0)
			wd = fst_watch(ctx, in, "d", IN_OPEN | IN_MODIFY | IN_ACCESS | IN_CLOSE);
		fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC | FAN_ONDIR, "d");
		if (order == 1)
			wd = fst_watch(ctx, in, "d", IN_OPEN | IN_MODIFY | IN_ACCESS | IN_CLOSE);

		fd = fst_open(ctx, "d/c", O_RDWR);
		FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "c"));
		fst_write1(ctx, fd);
		FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"));
		fst_read1(ctx, fd);
		FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wd, "c"));
		fst_close(ctx, fd);
		FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_WRITE, wd, "c"));
		FST_EXPECT_NONE(ctx, g);

		/* control: the directory's own */
		fd = open_dir(ctx, "d");
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
		FST_EXPECT(ctx, in, FST_IN(IN_OPEN | IN_ISDIR, wd, NULL));
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
		FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_NOWRITE | IN_ISDIR, wd, NULL));

		fst_rm_watch(ctx, in, wd);
		FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wd, NULL));
		fd = fst_open(ctx, "d/c", O_RDWR);
		fst_write1(ctx, fd);
		fst_close(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
		FST_EXPECT_NONE(ctx, in);
		fst_close(ctx, g);
	}
}

/* ------------------------------------------------------------------------ */
/* PC05: subdirectories are children only with FAN_ONDIR                    */
/* ------------------------------------------------------------------------ */

static void pc05_subdir_needs_ondir(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/f", "f");
	fst_write_file(ctx, "d/s/g", "g"); /* a grandchild: never d's child */
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_EVENT_ON_CHILD, "d");

	fst_open_close(ctx, "d/s", O_RDONLY | O_DIRECTORY);
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	fst_open_close(ctx, "d/s/g", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fd = fst_open(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));

	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ONDIR, "d");
	fd = open_dir(ctx, "d/s");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/s"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/s"));
	fd = open_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	fst_open_close(ctx, "d/s/g", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* ONDIR without EVENT_ON_CHILD: the directory itself only */
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/s", O_RDONLY | O_DIRECTORY);
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fd = open_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
}

/* The subdirectory's own mark and the parent's, in one group: one event. */
/* The permission twin of pc05_subdir_no_duplicate: a notification event
 * asked twice would merge into one unread event, a permission event cannot
 * (PE02). The subdirectory's own OPEN_PERM mark and its parent's
 * (ON_CHILD, ONDIR) in one group: opening it asks once; a deny fails it;
 * through the parent only, still once. */
static void pc05_subdir_perm_once(struct fst_ctx *ctx) {
	struct fst_child *c;
	int p;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	p = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, p, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR, "d/s");
	for (int parent_only = 0; parent_only < 2; parent_only++) {
		if (parent_only)
			fst_mark(ctx, p, FAN_MARK_REMOVE, FAN_OPEN_PERM | FAN_ONDIR, "d/s");
		c = fst_spawn_open(ctx, "d/s", O_RDONLY | O_DIRECTORY);
		PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d/s", FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT_NONE(ctx, p);
		c = fst_spawn_open(ctx, "d/s", O_RDONLY | O_DIRECTORY);
		PERM_ANSWER(ctx, p, c, FAN_OPEN_PERM, "d/s", FAN_DENY);
		fst_child_expect(ctx, c, EPERM);
		FST_EXPECT_NONE(ctx, p);
	}
}

static void pc05_subdir_no_duplicate(struct fst_ctx *ctx) {
	int g, gf, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR, "d/s");
	gf = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OPEN | FAN_ATTRIB | FAN_ONDIR | FAN_EVENT_ON_CHILD,
		 "d");
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OPEN | FAN_ATTRIB | FAN_ONDIR, "d/s");

	fd = open_dir(ctx, "d/s");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/s"));
	/* an event on a directory reports the directory itself, as "." */
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d/s", .name = "." });
	FST_SYS(ctx, fchmod(fd, 0700));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d/s", .name = "." });
	fst_close(ctx, fd);

	/* through the parent only */
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_OPEN | FAN_ONDIR, "d/s");
	fst_mark(ctx, gf, FAN_MARK_REMOVE, FAN_OPEN | FAN_ATTRIB | FAN_ONDIR, "d/s");
	fd = open_dir(ctx, "d/s");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d/s", .name = "." });
	FST_SYS(ctx, fchmod(fd, 0755));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d/s", .name = "." });
	fst_close(ctx, fd);

	/* through the subdirectory's own mark only */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR, "d/s");
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_ONDIR, "d");
	fst_open_close(ctx, "d/s", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d/s", .name = "." });
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN, .path = "d/f", .dir = "d", .name = "f" });
}

/* FID group: subdirectory attributes through the parent need ONDIR; the
 * subdirectory's dirent events are not the parent's. */
static void pc05_subdir_fid(struct fst_ctx *ctx) {
	int g;

	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/f", "f");
	g = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ATTRIB | FAN_CREATE | FAN_DELETE | FAN_EVENT_ON_CHILD,
		 "d");

	FST_SYS(ctx, chmod("d/s", 0700));
	FST_SYS(ctx, mkdir("d/t", 0755));
	FST_SYS(ctx, rmdir("d/t"));
	FST_SYS(ctx, mknodat(ctx->workfd, "d/s/x", S_IFREG | 0644, 0));
	FST_SYS(ctx, chmod("d/s/x", 0600));
	FST_EXPECT_NONE(ctx, g);
	FST_SYS(ctx, chmod("d/f", 0600));
	FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB, .path = "d/f", .dir = "d", .name = "f" });
	FST_SYS(ctx, mknodat(ctx->workfd, "d/n", S_IFREG | 0644, 0));
	/* dirent events: the child's FID only with FAN_REPORT_TARGET_FID */
	FST_EXPECT(ctx, g, { .mask = FAN_CREATE, .dir = "d", .name = "n" });

	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ONDIR, "d");
	FST_SYS(ctx, chmod("d/s", 0755));
	FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d/s", .name = "." });
	FST_SYS(ctx, mkdir("d/t", 0755));
	FST_EXPECT(ctx, g, { .mask = FAN_CREATE | FAN_ONDIR, .dir = "d", .name = "t" });
	FST_SYS(ctx, rmdir("d/t"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE | FAN_ONDIR, .dir = "d", .name = "t" });
	/* still nothing from inside the subdirectory */
	FST_SYS(ctx, unlink("d/s/x"));
	FST_SYS(ctx, mkdir("d/s/y", 0755));
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* PC06: inotify parent and child watches                                   */
/* ------------------------------------------------------------------------ */

static void pc06_inotify_parent_and_child(struct fst_ctx *ctx) {
	int in, wd, wc, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "d", IN_OPEN | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE);
	wc = fst_watch(ctx, in, "d/c", IN_MODIFY | IN_ATTRIB | IN_ACCESS);
	ck_assert_int_ne(wd, wc);

	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"), FST_IN(IN_MODIFY, wc, NULL));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wc, NULL));
	FST_SYS(ctx, fchmod(fd, 0600));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, "c"), FST_IN(IN_ATTRIB, wc, NULL));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_WRITE, wd, "c"));
	/* a subdirectory is a child too, with IN_ISDIR */
	fst_open_close(ctx, "d/s", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN | IN_ISDIR, wd, "s"));

	/* the child's watch removed: the parent's stays as it was */
	fst_rm_watch(ctx, in, wc);
	FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wc, NULL));
	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"));
	fst_read1(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_WRITE, wd, "c"));

	/* the parent's removed, the child's back: no names */
	wc = fst_watch(ctx, in, "d/c", IN_MODIFY | IN_ATTRIB | IN_ACCESS);
	fst_rm_watch(ctx, in, wd);
	FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wd, NULL));
	fd = fst_open(ctx, "d/c", O_RDWR);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wc, NULL));
	FST_SYS(ctx, fchmod(fd, 0644));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wc, NULL));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
}

/* Two inotify instances and a fanotify group, each with its own masks on
 * the parent and the child. */
static void pc06_inotify_other_groups(struct fst_ctx *ctx) {
	int i1, i2, w1, w2, w2c, g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	i1 = fst_inotify(ctx);
	w1 = fst_watch(ctx, i1, "d", IN_MODIFY);
	i2 = fst_inotify(ctx);
	w2 = fst_watch(ctx, i2, "d", IN_ACCESS);
	w2c = fst_watch(ctx, i2, "d/c", IN_MODIFY | IN_CLOSE_WRITE);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS | FAN_EVENT_ON_CHILD, "d");

	fd = fst_open(ctx, "d/c", O_RDWR);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	FST_EXPECT_NONE(ctx, i1);
	FST_EXPECT_NONE(ctx, i2);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, i1, FST_IN(IN_MODIFY, w1, "c"));
	FST_EXPECT(ctx, i2, FST_IN(IN_MODIFY, w2c, NULL));
	FST_EXPECT_NONE(ctx, g);
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, i2, FST_IN(IN_ACCESS, w2, "c"));
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
	FST_EXPECT_NONE(ctx, i1);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, i2, FST_IN(IN_CLOSE_WRITE, w2c, NULL));
	FST_EXPECT_NONE(ctx, i1);
	FST_EXPECT_NONE(ctx, g);

	/* i1 widens its parent watch: i2 and g are unchanged */
	ck_assert_int_eq(fst_watch(ctx, i1, "d", IN_MODIFY | IN_CLOSE_WRITE | IN_MASK_ADD), w1);
	fd = fst_open(ctx, "d/c", O_WRONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, i1, FST_IN(IN_MODIFY, w1, "c"));
	FST_EXPECT(ctx, i2, FST_IN(IN_MODIFY, w2c, NULL));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, i1, FST_IN(IN_CLOSE_WRITE, w1, "c"));
	FST_EXPECT(ctx, i2, FST_IN(IN_CLOSE_WRITE, w2c, NULL));
	FST_EXPECT_NONE(ctx, g);
}

/*
 * PC09: what one group asked for never changes the record shape another
 * gets. On the same write: a file's own inotify watch gets IN_MODIFY without
 * a name while a DFID_NAME group has an sb mark on the filesystem (which
 * gets the parent and the name), an fd-mode group's inode mark on the file
 * gets an fd and no info record, a FAN_REPORT_FID group's inode mark the
 * file's FID alone. The reverse on a child: the directory's inotify watch
 * gets the name while a FID group without names marks the child itself.
 */
static void pc09_record_shape_per_group(struct fst_ctx *ctx) {
	int in, wf, wd, gn, gm, gf, gd, fd;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	gn = fid_group(ctx, FAN_REPORT_DFID_NAME);
	fst_mark(ctx, gn, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_MODIFY, ".");
	gm = fid_group(ctx, FAN_REPORT_DFID_NAME);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY, ".");
	gf = fid_group(ctx, FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_MODIFY, "f");
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_MODIFY, "d/c");
	gd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gd, FAN_MARK_ADD, FAN_MODIFY, "f");
	in = fst_inotify(ctx);
	wf = fst_watch(ctx, in, "f", IN_MODIFY);
	wd = fst_watch(ctx, in, "d", IN_MODIFY);

	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wf, NULL));
	FST_EXPECT(ctx, gn, { .mask = FAN_MODIFY, .dir = ".", .name = "f" });
	FST_EXPECT(ctx, gm, { .mask = FAN_MODIFY, .dir = ".", .name = "f" });
	FST_EXPECT(ctx, gf, { .mask = FAN_MODIFY, .path = "f" });
	FST_EXPECT(ctx, gd, FST_FAN(FAN_MODIFY, "f"));

	fd = fst_open(ctx, "d/c", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "c"));
	FST_EXPECT(ctx, gn, { .mask = FAN_MODIFY, .dir = "d", .name = "c" });
	FST_EXPECT(ctx, gm, { .mask = FAN_MODIFY, .dir = "d", .name = "c" });
	FST_EXPECT(ctx, gf, { .mask = FAN_MODIFY, .path = "d/c" });
	FST_EXPECT_NONE(ctx, gd);
}

/* ------------------------------------------------------------------------ */
/* PC07: FID groups: parent fid + child name; the directory itself is "."  */
/* ------------------------------------------------------------------------ */

static void pc07_dfid_name(struct fst_ctx *ctx) {
	int g, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	g = fid_group(ctx, FAN_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	fst_mark(ctx, g, FAN_MARK_ADD,
		 FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ATTRIB | FAN_CREATE | FAN_DELETE | FAN_ONDIR |
		     FAN_EVENT_ON_CHILD,
		 "d");

	fd = fst_open(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN, .dir = "d", .name = "c" });
	FST_SYS(ctx, fchmod(fd, 0600));
	FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB, .dir = "d", .name = "c" });
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, { .mask = FAN_CLOSE_NOWRITE, .dir = "d", .name = "c" });

	fd = open_dir(ctx, "d");
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d", .name = "." });
	FST_SYS(ctx, fchmod(fd, 0700));
	FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d", .name = "." });
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, { .mask = FAN_CLOSE_NOWRITE | FAN_ONDIR, .dir = "d", .name = "." });

	/* dirent events name the entry, not "." */
	FST_SYS(ctx, mknodat(ctx->workfd, "d/n", S_IFREG | 0644, 0));
	FST_EXPECT(ctx, g, { .mask = FAN_CREATE, .dir = "d", .name = "n" });
	FST_SYS(ctx, unlink("d/n"));
	FST_EXPECT(ctx, g, { .mask = FAN_DELETE, .dir = "d", .name = "n" });

	/* a renamed child is reported under its new name */
	FST_SYS(ctx, rename("d/c", "d/r"));
	FST_EXPECT_NONE(ctx, g); /* MOVED_* not asked */
	FST_SYS(ctx, chmod("d/r", 0644));
	FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB, .dir = "d", .name = "r" });
}

/* The records of each FID flavour for one child event and one event of the
 * directory itself, all groups watching the same directory. */
static void pc07_fid_flavours(struct fst_ctx *ctx) {
	struct fst_events *e;
	int gf, gd, gn, gnf;
	const uint64_t m = FAN_ATTRIB | FAN_ONDIR | FAN_EVENT_ON_CHILD;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	gf = fid_group(ctx, FAN_REPORT_FID);
	gd = fid_group(ctx, FAN_REPORT_DIR_FID);
	gn = fid_group(ctx, FAN_REPORT_DFID_NAME);
	gnf = fid_group(ctx, FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, gd, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, gn, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, gnf, FAN_MARK_ADD, m, "d");

	FST_SYS(ctx, chmod("d/c", 0600));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .path = "d/c" });
	/* DIR_FID alone: the parent's fid, in a record of type FID (the
	 * single-record case of copy_info_records_to_user()); the matcher
	 * requires exactly that FID record, and no DFID record, for .dir */
	e = FST_EXPECT(ctx, gd, { .mask = FAN_ATTRIB, .dir = "d" });
	ck_assert_uint_eq(e->e[0].ev.has, FSN_HAS_FID);
	FST_EXPECT(ctx, gn, { .mask = FAN_ATTRIB, .dir = "d", .name = "c" });
	FST_EXPECT(ctx, gnf, { .mask = FAN_ATTRIB, .path = "d/c", .dir = "d", .name = "c" });

	FST_SYS(ctx, chmod("d", 0700));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB | FAN_ONDIR, .path = "d" });
	FST_EXPECT(ctx, gd, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d" });
	FST_EXPECT(ctx, gn, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d", .name = "." });
	FST_EXPECT(ctx, gnf, { .mask = FAN_ATTRIB | FAN_ONDIR, .dir = "d", .name = "." });
}

/* ------------------------------------------------------------------------ */
/* PC08: one event with the child, not a second one for mount/sb marks     */
/* ------------------------------------------------------------------------ */

static void pc08_parent_and_sb_fd(struct fst_ctx *ctx) {
	int g, s, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/c", "c");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_CLOSE | FAN_ONDIR, ".");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	/* another group with only an sb mark sees the same single events */
	s = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, s, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_CLOSE | FAN_ONDIR, ".");

#define BOTH(m, p)                                                                                 \
	do {                                                                                       \
		FST_EXPECT(ctx, g, FST_FAN(m, p));                                                 \
		FST_EXPECT(ctx, s, FST_FAN(m, p));                                                 \
	} while (0)
	for (int i = 0; i < 2; i++) {
		fd = fst_open(ctx, "d/c", O_RDONLY);
		BOTH(FAN_OPEN, "d/c");
		fst_close(ctx, fd);
		BOTH(FAN_CLOSE_NOWRITE, "d/c");
		fd = open_dir(ctx, "d/s");
		BOTH(FAN_OPEN, "d/s");
		fst_close(ctx, fd);
		BOTH(FAN_CLOSE_NOWRITE, "d/s");
		fd = open_dir(ctx, "d");
		BOTH(FAN_OPEN, "d");
		fst_close(ctx, fd);
		BOTH(FAN_CLOSE_NOWRITE, "d");
		/* second round: a mount mark as well */
		fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_CLOSE | FAN_ONDIR,
			 ".");
	}
#undef BOTH
}

/*
 * A DFID_NAME group with only an sb mark gets the parent and the name
 * without any parent mark (FAN_REPORT_DIR_FID adds EVENT_ON_CHILD to sb,
 * mount and non-directory marks: fsnotify_event_needs_parent()). Adding a
 * parent mark in the same group, and another group's parent mark, must
 * not add a second event or change the records.
 */
static void pc08_sb_dfid_name(struct fst_ctx *ctx) {
	int g, o, fd;

	fst_require(ctx, FSN_FEAT_EVENT_DIRENT); /* FID filesystem marks */
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/s", 0755));
	fst_write_file(ctx, "d/c", "c");
	g = fid_group(ctx, FAN_REPORT_DFID_NAME);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ATTRIB | FAN_ONDIR,
		 ".");
	o = fst_fan_init(ctx, FAN_CLASS_NOTIF);

	for (int step = 0; step < 3; step++) {
		if (step == 1) /* the same group marks the parent */
			fst_mark(ctx, g, FAN_MARK_ADD,
				 FAN_OPEN | FAN_ATTRIB | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
		if (step == 2) /* another group watches the parent's children */
			fst_mark(ctx, o, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");

		fd = fst_open(ctx, "d/c", O_RDONLY);
		FST_EXPECT(ctx, g, { .mask = FAN_OPEN, .dir = "d", .name = "c" });
		if (step == 2)
			FST_EXPECT(ctx, o, FST_FAN(FAN_OPEN, "d/c"));
		FST_SYS(ctx, fchmod(fd, 0600 + step));
		FST_EXPECT(ctx, g, { .mask = FAN_ATTRIB, .dir = "d", .name = "c" });
		fst_close(ctx, fd);
		/* directories: themselves as ".", never their parent + name */
		fd = open_dir(ctx, "d/s");
		FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d/s", .name = "." });
		fst_close(ctx, fd);
		fd = open_dir(ctx, "d");
		FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_ONDIR, .dir = "d", .name = "." });
		fst_close(ctx, fd);
		FST_EXPECT_NONE(ctx, o);
	}
}

/* A mount mark and a parent mark in one fd-mode group, the file reached
 * through a bind mount of the parent: one event, the child's. */
static void pc08_parent_and_mount_bind(struct fst_ctx *ctx) {
	const char *b;
	char bc[256];
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	b = fst_bind(ctx, "d", "b");
	snprintf(bc, sizeof(bc), "%s/c", b);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_MODIFY, b);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_MODIFY | FAN_EVENT_ON_CHILD, "d");

	fd = fst_open(ctx, bc, O_RDWR); /* both marks */
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_close(ctx, fd);
	fd = fst_open(ctx, "d/c", O_RDWR); /* the parent mark only */
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_close(ctx, fd);

	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	fd = fst_open(ctx, "d/c", O_RDWR); /* nothing */
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fd = fst_open(ctx, bc, O_RDWR); /* the mount mark only */
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
	fst_close(ctx, fd);
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_pc[] = {
	FST_CASE(pc01_child_events_fd, "PC01", FST_ALL_FS,
		 "EVENT_ON_CHILD: child open/access/modify/close; without it only the dir's own"),
	FST_CASE(pc01_child_events_fid, "PC01", FST_ALL_FS,
		 "FID group: child attrib/modify/open/close; dirent events stay without ON_CHILD"),
	FST_CASE(pc01_child_moved_in_out, "PC01", FST_ALL_FS,
		 "a child renamed into a watched dir is reported, renamed out is not (3 cycles)"),
	FST_CASE(pc01_hardlink_parent_of_path, "PC01,PC07", FST_ALL_FS,
		 "hard link in two dirs: the parent of the path used, with that dir's name"),
	FST_CASE_GIT(pc02_no_on_child_notif, "PC02", FST_ALL_FS, "e730558adffb",
		     "parent marks without ON_CHILD (fd and FID): no child event; dir's own stay"),
	FST_CASE_GIT(pc02_no_on_child_perm, "PC02,PC04", FST_ALL_FS, "e730558adffb",
		     "OPEN/ACCESS_PERM parent mark without ON_CHILD: child never blocks, even when "
		     "another group watches children"),
	FST_CASE_GIT(
	    pc02_no_on_child_pre_content, "PC02,PC04", FST_ALL_FS, "e730558adffb 4f8afa33817a",
	    "PRE_ACCESS parent mark without ON_CHILD: child read never blocks; with it, it does"),
	FST_CASE_GIT(pc03_parent_and_inode_mark, "PC03,PC07", FST_ALL_FS,
		     "497b0c5a7c06 f367a62a7cad",
		     "parent (ON_CHILD) + child inode mark in one group: one event per operation"),
	FST_CASE_GIT(
	    pc03_parent_mount_sb, "PC03,PC08", FST_ALL_FS, "54a307ba8d3c 497b0c5a7c06",
	    "parent + mount + sb (+ inode) marks in one fd group: one event per operation"),
	FST_CASE_GIT(
	    pc03_fid_all_mark_types, "PC03,PC07,PC08", FST_ALL_FS,
	    "497b0c5a7c06 f367a62a7cad 7372e79c9eb9 7e8283af6ede",
	    "DFID_NAME+FID group with parent/inode/mount/sb marks: one event, parent+name+child"),
	FST_CASE_GIT(pc03_perm_once, "PC03,PC08", FST_ALL_FS, "497b0c5a7c06",
		     "OPEN/ACCESS_PERM on parent+inode+mount+sb: asked exactly once per operation"),
	FST_CASE_GIT(
	    pc04_groups_each_own, "PC04", FST_ALL_FS, "54a307ba8d3c e730558adffb",
	    "four fanotify groups and inotify on one dir: each gets exactly its own events"),
	FST_CASE(pc04_inotify_does_not_leak, "PC04,PC06", FST_ALL_FS,
		 "inotify dir watch + fanotify dir mark without ON_CHILD, both orders"),
	FST_CASE_GIT(pc05_subdir_needs_ondir, "PC05", FST_ALL_FS, "b469e7e47c8a 55bf882c7f13",
		     "subdir opens reach the parent mark only with ONDIR; grandchildren never"),
	FST_CASE_GIT(
	    pc05_subdir_perm_once, "PC05,PC03", FST_ALL_FS, "b469e7e47c8a",
	    "subdir's own OPEN_PERM mark + parent's: asked once; through the parent, once"),
	FST_CASE_GIT(pc05_subdir_no_duplicate, "PC05,PC03,PC07", FST_ALL_FS,
		     "b469e7e47c8a f367a62a7cad",
		     "subdir's own mark + parent's: one event, the subdir as \".\""),
	FST_CASE_GIT(
	    pc05_subdir_fid, "PC05,PC07", FST_ALL_FS, "b469e7e47c8a",
	    "FID group: subdir attrib/mkdir/rmdir need ONDIR; nothing from inside the subdir"),
	FST_CASE_GIT(pc06_inotify_parent_and_child, "PC06", FST_ALL_FS, "fecc4559780d",
		     "inotify dir + file watch: dir's event with name, file's without, own masks"),
	FST_CASE_GIT(pc06_inotify_other_groups, "PC06,PC04", FST_ALL_FS, "fecc4559780d",
		     "two inotify instances + fanotify: each watch only its own mask"),
	FST_CASE_GIT(
	    pc07_dfid_name, "PC07", FST_ALL_FS, "929943b38daf",
	    "DFID_NAME: child events dir+name, the dir's own \".\", dirent events the entry"),
	FST_CASE(pc07_fid_flavours, "PC07", FST_ALL_FS,
		 "FID, DIR_FID, DFID_NAME, DFID_NAME+FID: records of a child and a dir event"),
	FST_CASE_GIT(pc08_parent_and_sb_fd, "PC08,PC03", FST_ALL_FS,
		     "54a307ba8d3c b469e7e47c8a 55bf882c7f13",
		     "fd group, parent + sb (+ mount) marks: one event with the child/subdir/dir"),
	FST_CASE_GIT(pc08_sb_dfid_name, "PC08,PC07", FST_ALL_FS, "7372e79c9eb9 5128063739d2",
		     "DFID_NAME sb mark: parent+name without parent marks; same with them, once"),
	FST_CASE_GIT(pc08_parent_and_mount_bind, "PC08,PC03", FST_ALL_FS, "54a307ba8d3c",
		     "mount mark on a bind mount + parent mark: one event with the child"),
	FST_CASE(pc09_record_shape_per_group, "PC09", FST_ALL_FS,
		 "inotify, fd-mode, FID and DFID_NAME groups on one write: each its own shape"),
	{ 0 },
};
