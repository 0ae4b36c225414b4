/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-mk.c — fsn-selftest cases of the MK group: marks, delivery and mark
 * types (MK01-MK10 in semantics.md).
 *
 * Inode, mount and sb marks; what each of them sees through which mount;
 * how unread events merge (fanotify_merge() in fs/notify/fanotify/fanotify.c,
 * inotify_merge() in fs/notify/inotify/inotify_fsnotify.c); FAN_ONDIR,
 * FAN_OPEN_EXEC, FAN_MARK_FLUSH / DONT_FOLLOW / ONLYDIR; the lifetime of
 * inotify watches (IN_UNMOUNT, IN_IGNORED, IN_ONESHOT, IN_EXCL_UNLINK);
 * rename cookies and FAN_RENAME records; the order of a dirent event and
 * the name change it reports; and the marks as /proc/<pid>/fdinfo shows
 * them. Every case reads after every step, asserts the exact events and
 * pairs each "nothing here" with a positive control.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selftest.h"

#define FAN_OAMC (FAN_OPEN | FAN_ACCESS | FAN_MODIFY | FAN_CLOSE)

/* A FAN_REPORT_DFID_NAME group, for dirent events. */
static int dfid_name_group(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	return fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
}

/* ------------------------------------------------------------------------ */
/* A stepping child: one file operation per command, so that each event a   */
/* child causes is read (and its pid checked) before the next one happens.  */
/* ------------------------------------------------------------------------ */

struct stepper_arg {
	char path[PATH_MAX];
	int sock;
};

struct stepper {
	struct fst_child *c;
	int sock;
};

/* Runs in the child: no fst_* helpers. */
static int stepper_fn(void *arg) {
	struct stepper_arg *a = arg;
	int fd = -1;
	char op, b[16];

	for (;;) {
		unsigned char res = 0;

		if (read(a->sock, &op, 1) != 1)
			return EIO;
		switch (op) {
		case 'o': /* open read-write */
			fd = open(a->path, O_RDWR | O_CLOEXEC);
			if (fd < 0)
				res = (unsigned char)errno;
			break;
		case 'r':
			if (pread(fd, b, sizeof(b), 0) < 0)
				res = (unsigned char)errno;
			break;
		case 'w':
			if (pwrite(fd, "child", 5, 0) != 5)
				res = EIO;
			break;
		case 'c':
			if (close(fd) < 0)
				res = (unsigned char)errno;
			fd = -1;
			break;
		case 'q': return 0;
		default: return EINVAL;
		}
		if (write(a->sock, &res, 1) != 1)
			return EIO;
	}
}

static struct stepper stepper_start(struct fst_ctx *ctx, const char *path) {
	struct stepper_arg a;
	struct stepper s;
	int sv[2];

	FST_SYS(ctx, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	snprintf(a.path, sizeof(a.path), "%s/%s", ctx->work, path);
	a.sock = sv[1];
	s.c = fst_spawn(ctx, fst_strdupf(ctx, "stepper(%s)", path), stepper_fn, &a, sv[1]);
	fst_close(ctx, sv[1]);
	s.sock = sv[0];
	return s;
}

#define step(ctx, s, op) step_(ctx, s, op, __FILE__, __LINE__)
static void step_(struct fst_ctx *ctx, struct stepper *s, char op, const char *file, int line) {
	struct pollfd p = { .fd = s->sock, .events = POLLIN };
	unsigned char res;
	int r;

	if (write(s->sock, &op, 1) != 1)
		fst_fail_(ctx, file, line, "stepper: sending '%c': %s", op, fst_errname(errno));
	do
		r = poll(&p, 1, FST_WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		fst_fail_(ctx, file, line, "stepper: no answer to '%c' within %d ms", op,
			  FST_WAIT_MS);
	if (read(s->sock, &res, 1) != 1)
		fst_fail_(ctx, file, line, "stepper: no result for '%c' (child died?)", op);
	if (res)
		fst_fail_(ctx, file, line, "stepper: '%c' failed in the child: %s", op,
			  fst_errname(res));
}

static void stepper_stop(struct fst_ctx *ctx, struct stepper *s) {
	char q = 'q';

	FST_SYS(ctx, write(s->sock, &q, 1));
	fst_child_expect(ctx, s->c, 0);
	fst_close(ctx, s->sock);
}

/* ------------------------------------------------------------------------ */
/* MK01: inode, mount and sb marks: the events of a file, in order, pid     */
/* ------------------------------------------------------------------------ */

/*
 * The case's own open/write/read/close, then the same by a stepping child:
 * each event is read before the next operation, with its pid. The event fd
 * of the first OPEN is kept: it is open read-only and reads the file's
 * content as it is now, also after a later write.
 */
static void oamc_sequence(struct fst_ctx *ctx, unsigned type, const char *target) {
	struct fst_events *ev;
	struct stepper s;
	char b[16] = "";
	int g, fd, efd;

	fst_write_file(ctx, "f", "old!");
	fst_write_file(ctx, "other", "o");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | type, FAN_OAMC, target);

	fd = fst_open(ctx, "f", O_RDWR);
	ev = fst_read_keep(ctx, g);
	FST_MATCH(ctx, g, ev, FST_FAN(FAN_OPEN, "f"));
	efd = ev->e[0].ev.fd;
	ck_assert_int_eq(FST_SYS(ctx, fcntl(efd, F_GETFL)) & O_ACCMODE, O_RDONLY);
	ck_assert_int_eq(FST_SYS(ctx, pread(efd, b, sizeof(b) - 1, 0)), 4);
	ck_assert_str_eq(b, "old!");

	ck_assert_int_eq(FST_SYS(ctx, pwrite(fd, "new!", 4, 0)), 4);
	FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "f"));
	/* the event fd is the file itself, not a snapshot */
	memset(b, 0, sizeof(b));
	ck_assert_int_eq(FST_SYS(ctx, read(efd, b, sizeof(b) - 1)), 4);
	ck_assert_str_eq(b, "new!");
	fst_close(ctx, efd);
	FST_EXPECT_NONE(ctx, g);

	fst_read1(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "f"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "f"));
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "f"));

	/* the same operations by another process carry its pid */
	s = stepper_start(ctx, "f");
	step(ctx, &s, 'o');
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN, .path = "f", .pid = s.c->pid });
	step(ctx, &s, 'r');
	FST_EXPECT(ctx, g, { .mask = FAN_ACCESS, .path = "f", .pid = s.c->pid });
	step(ctx, &s, 'w');
	FST_EXPECT(ctx, g, { .mask = FAN_MODIFY, .path = "f", .pid = s.c->pid });
	step(ctx, &s, 'c');
	FST_EXPECT(ctx, g, { .mask = FAN_CLOSE_WRITE, .path = "f", .pid = s.c->pid });
	stepper_stop(ctx, &s);
	FST_EXPECT_NONE(ctx, g);

	/* a new event fd reads what the child wrote */
	fd = fst_open(ctx, "f", O_RDONLY);
	ev = fst_read_keep(ctx, g);
	FST_MATCH(ctx, g, ev, FST_FAN(FAN_OPEN, "f"));
	memset(b, 0, sizeof(b));
	ck_assert_int_eq(FST_SYS(ctx, pread(ev->e[0].ev.fd, b, sizeof(b) - 1, 0)), 5);
	ck_assert_str_eq(b, "child");
	fst_close(ctx, ev->e[0].ev.fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "f"));

	if (type == 0) {
		/* control for the inode mark's scope: a sibling is silent */
		fst_open_close(ctx, "other", O_RDWR);
		FST_EXPECT_NONE(ctx, g);
	} else {
		/* mount and sb marks see every file of their scope */
		fd = fst_open(ctx, "other", O_RDWR);
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "other"));
		fst_close(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_WRITE, "other"));
	}
}

static void mk01_inode_mark_sequence(struct fst_ctx *ctx) {
	oamc_sequence(ctx, 0, "f");
}

static void mk01_mount_mark_sequence(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	oamc_sequence(ctx, FAN_MARK_MOUNT, ".");
}

static void mk01_sb_mark_sequence(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	oamc_sequence(ctx, FAN_MARK_FILESYSTEM, ".");
}

/* FID groups: the same events, FAN_NOFD and the file's FID; and one fd
 * group holding all three mark types gets each event exactly once. */
static void mk01_fid_groups_nofd(struct fst_ctx *ctx) {
	static const unsigned types[3] = { 0, FAN_MARK_MOUNT, FAN_MARK_FILESYSTEM };
	struct stepper s;
	int gf[3], all, fd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "data");
	for (int i = 0; i < 3; i++) {
		gf[i] = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
		fst_mark(ctx, gf[i], FAN_MARK_ADD | types[i], FAN_OAMC, i ? "." : "f");
	}
	all = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, all, FAN_MARK_ADD, FAN_OAMC, "f");
	fst_mark(ctx, all, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OAMC, ".");
	fst_mark(ctx, all, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OAMC, ".");

#define EXPECT_ALL(mask_, pid_)                                                                    \
	do {                                                                                       \
		for (int i_ = 0; i_ < 3; i_++)                                                     \
			FST_EXPECT(ctx, gf[i_],                                                    \
				   { .mask = (mask_), .path = "f", .pid = (pid_), .nofd = true }); \
		FST_EXPECT(ctx, all, { .mask = (mask_), .path = "f", .pid = (pid_) });             \
	} while (0)

	fd = fst_open(ctx, "f", O_RDWR);
	EXPECT_ALL(FAN_OPEN, 0);
	fst_write1(ctx, fd);
	EXPECT_ALL(FAN_MODIFY, 0);
	fst_read1(ctx, fd);
	EXPECT_ALL(FAN_ACCESS, 0);
	fst_close(ctx, fd);
	EXPECT_ALL(FAN_CLOSE_WRITE, 0);

	s = stepper_start(ctx, "f");
	step(ctx, &s, 'o');
	EXPECT_ALL(FAN_OPEN, s.c->pid);
	step(ctx, &s, 'r');
	EXPECT_ALL(FAN_ACCESS, s.c->pid);
	step(ctx, &s, 'w');
	EXPECT_ALL(FAN_MODIFY, s.c->pid);
	step(ctx, &s, 'c');
	EXPECT_ALL(FAN_CLOSE_WRITE, s.c->pid);
	stepper_stop(ctx, &s);
#undef EXPECT_ALL
	for (int i = 0; i < 3; i++)
		FST_EXPECT_NONE(ctx, gf[i]);
	FST_EXPECT_NONE(ctx, all);
}

/* ------------------------------------------------------------------------ */
/* MK02: sb and inode marks see every mount, a mount mark only its own      */
/* ------------------------------------------------------------------------ */

/* Read one event from g and check that its fd is path (through that mount). */
#define EXPECT_VIA(ctx, g, mask, obj, via) expect_via(ctx, g, mask, obj, via, __FILE__, __LINE__)
static void expect_via(struct fst_ctx *ctx, int g, uint64_t mask, const char *obj, const char *via,
		       const char *file, int line) {
	struct fst_events *ev = fst_read(ctx, g);

	fst_match_(ctx, g, ev, (const struct fst_exp[]){ FST_FAN(mask, obj) }, 1, "group", file,
		   line);
	if (strcmp(ev->e[0].fdpath, via) != 0)
		fst_fail_(ctx, file, line, "event fd is %s, expected %s (the mount used)",
			  ev->e[0].fdpath, via);
}

static void mk02_bind_mount_scope(struct fst_ctx *ctx) {
	const char *b;
	char orig[PATH_MAX], via_b[PATH_MAX];
	int gi, gm, gb, gs;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	b = fst_bind(ctx, "d", "b");
	snprintf(orig, sizeof(orig), "%s/d/f", ctx->work);
	snprintf(via_b, sizeof(via_b), "%s/f", b);

	gi = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gi, FAN_MARK_ADD, FAN_OPEN, "d/f");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, ".");
	gb = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gb, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, b);
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, b);

	/* through the original mount */
	fst_open_close(ctx, "d/f", O_RDONLY);
	EXPECT_VIA(ctx, gi, FAN_OPEN, "d/f", orig);
	EXPECT_VIA(ctx, gm, FAN_OPEN, "d/f", orig);
	FST_EXPECT_NONE(ctx, gb);
	EXPECT_VIA(ctx, gs, FAN_OPEN, "d/f", orig);

	/* the same file through the bind mount */
	fst_open_close(ctx, via_b, O_RDONLY);
	EXPECT_VIA(ctx, gi, FAN_OPEN, "d/f", via_b);
	FST_EXPECT_NONE(ctx, gm);
	EXPECT_VIA(ctx, gb, FAN_OPEN, "d/f", via_b);
	EXPECT_VIA(ctx, gs, FAN_OPEN, "d/f", via_b);

	/* once more, to catch a scope decided by the first mount used */
	fst_open_close(ctx, "d/f", O_RDONLY);
	EXPECT_VIA(ctx, gi, FAN_OPEN, "d/f", orig);
	EXPECT_VIA(ctx, gm, FAN_OPEN, "d/f", orig);
	FST_EXPECT_NONE(ctx, gb);
	EXPECT_VIA(ctx, gs, FAN_OPEN, "d/f", orig);
}

/* A mount mark ends at a mount point: the filesystem mounted below it is
 * another mount (and another sb), invisible to the mount and sb marks and
 * to an inode mark on the covered directory. */
static void mk02_nested_mount_scope(struct fst_ctx *ctx) {
	int gm, gs, gd, gin, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("sub", 0755));
	fst_write_file(ctx, "f", "f");
	gd = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gd, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "sub");
	FST_SYS(ctx, mount("fsn-inner", "sub", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m"));
	fst_write_file(ctx, "sub/g", "g");

	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, ".");
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	gin = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gin, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, "sub");

	fd = fst_open(ctx, "sub/g", O_RDONLY);
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT_NONE(ctx, gd);
	FST_EXPECT(ctx, gin, FST_FAN(FAN_OPEN, "sub/g"));
	fst_close(ctx, fd);

	/* controls on the outer mount */
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "f"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "f"));
	FST_EXPECT_NONE(ctx, gin);
	FST_SYS(ctx, umount("sub"));
	fst_write_file(ctx, "sub/h", "h");
	FST_EXPECT(ctx, gd, FST_FAN(FAN_OPEN, "sub/h"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "sub/h"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "sub/h"));
	FST_EXPECT_NONE(ctx, gin);
}

/*
 * A bind mount with marks of its own (a mount mark for notification, one
 * for permission) of a filesystem that other groups watch (inode and sb
 * marks; notification and permission): unmounting it, then closing the
 * unmounted marks' groups, leaves the other groups' events and permission
 * questions as they were (LTP fanotify16's sub-mount case, and the count
 * of permission watchers, which the unmounted mount's mark was part of).
 */
static void mk02_unmount_marked_bind(struct fst_ctx *ctx) {
	struct fst_child *c;
	const char *b;
	char via_b[PATH_MAX];
	int gb, gbp, gi, gs, gp;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	b = fst_bind(ctx, "d", "b");
	snprintf(via_b, sizeof(via_b), "%s/f", b);
	gb = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gb, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, b);
	/* (a higher class: asked before gp, a defined order) */
	gbp = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, gbp, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_PERM, b);
	gi = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gi, FAN_MARK_ADD, FAN_OPEN, "d/f");
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	gp = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, gp, FAN_MARK_ADD, FAN_OPEN_PERM, "d/f");

	/* through the bind mount: every group */
	c = fst_spawn_open(ctx, via_b, O_RDONLY);
	fst_answer(ctx, gbp, c, FAN_OPEN_PERM, "d/f", FAN_ALLOW);
	fst_answer(ctx, gp, c, FAN_OPEN_PERM, "d/f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, gb, { .mask = FAN_OPEN, .path = "d/f", .pid = c->pid });
	FST_EXPECT(ctx, gi, { .mask = FAN_OPEN, .path = "d/f", .pid = c->pid });
	FST_EXPECT(ctx, gs, { .mask = FAN_OPEN, .path = "d/f", .pid = c->pid });

	/* the bind mount gone: its groups hear nothing, the others all */
	FST_SYS(ctx, umount(b));
	for (int closed = 0; closed < 2; closed++) {
		if (closed) {
			fst_close(ctx, gb);
			fst_close(ctx, gbp);
		}
		c = fst_spawn_open(ctx, "d/f", O_RDONLY);
		fst_answer(ctx, gp, c, FAN_OPEN_PERM, "d/f", FAN_ALLOW);
		fst_child_expect(ctx, c, 0);
		FST_EXPECT(ctx, gi, { .mask = FAN_OPEN, .path = "d/f", .pid = c->pid });
		FST_EXPECT(ctx, gs, { .mask = FAN_OPEN, .path = "d/f", .pid = c->pid });
		c = fst_spawn_open(ctx, "d/f", O_RDONLY);
		fst_answer(ctx, gp, c, FAN_OPEN_PERM, "d/f", FAN_DENY);
		fst_child_expect(ctx, c, EPERM);
		FST_EXPECT_NONE(ctx, gi);
		FST_EXPECT_NONE(ctx, gs);
		FST_EXPECT_NONE(ctx, gp);
		if (!closed) {
			FST_EXPECT_NONE(ctx, gb);
			FST_EXPECT_NONE(ctx, gbp);
		}
	}
}

/* ------------------------------------------------------------------------ */
/* MK03: merging of unread events                                           */
/* ------------------------------------------------------------------------ */

/*
 * fanotify_merge(): an event merges into a queued, unread event of the same
 * group with the same object (fd mode: the same mount and dentry), the same
 * pid and the same FAN_ONDIR-ness, wherever it is in the queue; the masks
 * are ORed and the event keeps its place. Once read, nothing merges.
 */
static void mk03_merge_fd_mode(struct fst_ctx *ctx) {
	const char *b;
	struct fst_child *c;
	char via_b[PATH_MAX];
	int g, fa, fb;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	b = fst_bind(ctx, ".", "b");
	snprintf(via_b, sizeof(via_b), "%s/a", b);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OAMC, "b");

	/* open + close unread: one event */
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "a"));

	/* interleaved objects: each merges into its own first event */
	fa = fst_open(ctx, "a", O_RDONLY);
	fb = fst_open(ctx, "b", O_RDWR);
	fst_read1(ctx, fa);
	fst_write1(ctx, fb);
	fst_close(ctx, fa);
	fst_close(ctx, fb);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE, "a"),
		   FST_FAN(FAN_OPEN | FAN_MODIFY | FAN_CLOSE_WRITE, "b"));

	/* read in between: no merge with an event already read */
	fa = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_read1(ctx, fa);
	fst_read1(ctx, fa);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "a"));

	/* another pid: no merge; our close still merges into our open */
	fst_open_close(ctx, "b", O_RDONLY);
	c = fst_spawn_open(ctx, fst_strdupf(ctx, "%s/b", ctx->work), O_RDONLY);
	fst_child_expect(ctx, c, 0);
	fst_close(ctx, fa);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "b"),
		   { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .path = "b", .pid = c->pid },
		   FST_FAN(FAN_CLOSE_NOWRITE, "a"));

	/* another mount: another path, no merge in fd mode */
	fst_open_close(ctx, "a", O_RDONLY);
	fst_open_close(ctx, via_b, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "a"),
		   FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "a"));
}

/* FID groups merge by FID: the same file through two mounts is one
 * object; DFID_NAME events by directory + name; dirent events on a
 * subdirectory never merge with those on a non-directory. */
static void mk03_merge_fid_mode(struct fst_ctx *ctx) {
	const char *b;
	char via_b[PATH_MAX];
	int gf, gn, gd, fa;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_REPORT_DIR_FID);
	gn = dfid_name_group(ctx);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/a", "aaaa");
	fst_write_file(ctx, "d/b", "bbbb");
	b = fst_bind(ctx, "d", "b");
	snprintf(via_b, sizeof(via_b), "%s/a", b);

	gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OAMC, "d/a");
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OAMC, "d/b");
	fst_mark(ctx, gn, FAN_MARK_ADD,
		 FAN_OAMC | FAN_EVENT_ON_CHILD | FAN_CREATE | FAN_DELETE | FAN_ONDIR, "d");
	gd = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DIR_FID);
	fst_mark(ctx, gd, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE | FAN_ONDIR, "d");

	fst_open_close(ctx, "d/a", O_RDONLY);
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .path = "d/a", .nofd = true });
	FST_EXPECT(ctx, gn, { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .dir = "d", .name = "a" });

	/* two mounts, one FID: merged (unlike fd mode) */
	fa = fst_open(ctx, "d/a", O_RDONLY);
	fst_open_close(ctx, via_b, O_RDONLY);
	fst_read1(ctx, fa);
	fst_open_close(ctx, "d/b", O_RDONLY);
	fst_close(ctx, fa);
	FST_EXPECT(
	    ctx, gf,
	    { .mask = FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE, .path = "d/a", .nofd = true },
	    { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .path = "d/b", .nofd = true });
	FST_EXPECT(ctx, gn,
		   { .mask = FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE, .dir = "d", .name = "a" },
		   { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .dir = "d", .name = "b" });

	/* create+delete of a file and of a directory of the same name: the
	 * file's dirent and open/close events are one object (dir + name), the
	 * directory's never merge with them */
	fst_open_close(ctx, "d/x", O_WRONLY | O_CREAT);
	FST_SYS(ctx, unlink("d/x"));
	FST_SYS(ctx, mkdir("d/x", 0755));
	FST_SYS(ctx, rmdir("d/x"));
	FST_EXPECT(ctx, gn,
		   { .mask = FAN_CREATE | FAN_OPEN | FAN_CLOSE_WRITE | FAN_DELETE,
		     .dir = "d",
		     .name = "x" },
		   { .mask = FAN_CREATE | FAN_DELETE | FAN_ONDIR, .dir = "d", .name = "x" });
	/* without names, all dirent events of one directory are one object */
	FST_EXPECT(ctx, gd, { .mask = FAN_CREATE | FAN_DELETE, .dir = "d" },
		   { .mask = FAN_CREATE | FAN_DELETE | FAN_ONDIR, .dir = "d" });
	fst_open_close(ctx, "d/y", O_WRONLY | O_CREAT);
	fst_open_close(ctx, "d/z", O_WRONLY | O_CREAT);
	FST_EXPECT(ctx, gn,
		   { .mask = FAN_CREATE | FAN_OPEN | FAN_CLOSE_WRITE, .dir = "d", .name = "y" },
		   { .mask = FAN_CREATE | FAN_OPEN | FAN_CLOSE_WRITE, .dir = "d", .name = "z" });
	FST_EXPECT(ctx, gd, { .mask = FAN_CREATE, .dir = "d" });
}

/* inotify merges only with the last queued event, and only an identical
 * one (same wd, mask, cookie and name). */
static void mk03_inotify_tail_merge(struct fst_ctx *ctx) {
	int in, wd, wa, fd;

	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, ".", IN_MODIFY | IN_ACCESS);
	wa = fst_watch(ctx, in, "a", IN_MODIFY | IN_ACCESS);
	fd = fst_open(ctx, "b", O_RDWR);
	fst_write1(ctx, fd);
	fst_write1(ctx, fd);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "b"));
	fst_write1(ctx, fd);
	fst_read1(ctx, fd);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "b"), FST_IN(IN_ACCESS, wd, "b"),
		   FST_IN(IN_MODIFY, wd, "b"));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, in);

	/* a file watched itself and through its parent: two events per
	 * write (parent's with the name first), which alternate at the tail,
	 * so none merges */
	fd = fst_open(ctx, "a", O_RDWR);
	fst_write1(ctx, fd);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, "a"), FST_IN(IN_MODIFY, wa, NULL),
		   FST_IN(IN_MODIFY, wd, "a"), FST_IN(IN_MODIFY, wa, NULL));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
}

/* Permission events are never merged: two threads of one process (same
 * pid, same file) each get their own FAN_OPEN_PERM and answer, while
 * their FAN_OPEN notifications merge into one. */
struct two_opens {
	char path[PATH_MAX];
	int err[2];
};

static void *opener(void *arg) {
	struct two_opens *t = arg;
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);

	t->err[1] = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int two_thread_open(void *arg) {
	struct two_opens *t = arg;
	pthread_t th;
	int fd;

	if (pthread_create(&th, NULL, opener, t) != 0)
		return EAGAIN;
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	t->err[0] = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	pthread_join(th, NULL);
	return t->err[0] ? t->err[0] : t->err[1];
}

static void mk03_perm_never_merge(struct fst_ctx *ctx) {
	struct fst_event *perm[2];
	struct fst_child *c;
	struct two_opens t;
	size_t n = 0;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_write_file(ctx, "f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_OPEN | FAN_CLOSE_NOWRITE, "f");
	snprintf(t.path, sizeof(t.path), "%s/f", ctx->work);
	c = fst_spawn(ctx, "two threads open(f)", two_thread_open, &t, -1);

	/* both threads block: two events, unread together, not merged */
	while (n < 2) {
		struct fst_events *ev;

		fst_wait_readable(ctx, g, FST_WAIT_MS);
		ev = fst_read(ctx, g);
		for (size_t i = 0; i < ev->n; i++) {
			struct fst_events one = { 1, &ev->e[i] };

			if (n == 2)
				fst_fail(ctx, "more than two permission events");
			FST_MATCH(ctx, g, &one,
				  { .mask = FAN_OPEN_PERM, .path = "f", .pid = c->pid });
			perm[n++] = &ev->e[i];
		}
	}
	ck_assert_int_ne(perm[0]->ev.fd, perm[1]->ev.fd);
	fst_child_blocked_n(ctx, c, 2); /* both threads wait */
	FST_EXPECT_NONE(ctx, g);
	fst_respond(ctx, g, perm[0], FAN_ALLOW);
	fst_child_blocked_n(ctx, c, 1); /* the other one still waits */
	fst_respond(ctx, g, perm[1], FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	/* the notification events of the same two opens merge */
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .path = "f", .pid = c->pid });
}

/* ------------------------------------------------------------------------ */
/* MK04: FAN_ONDIR                                                          */
/* ------------------------------------------------------------------------ */

static void getdents_once(struct fst_ctx *ctx, int fd) {
	char buf[4096];

	FST_SYS(ctx, syscall(SYS_getdents64, fd, buf, sizeof(buf)));
}

/* fd mode: events on a directory need FAN_ONDIR in the mark, and are
 * reported without it (fanotify_group_event_mask() strips event flags). */
static void mk04_ondir_fd_mode(struct fst_ctx *ctx) {
	int ga, gb, gm, gs, in, wd, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	ga = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, ga, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE, "d");
	fst_mark(ctx, ga, FAN_MARK_ADD, FAN_OPEN, "d/f");
	gb = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gb, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE | FAN_ONDIR, "d");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, ".");
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_ONDIR, ".");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "d", IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE);

	fd = fst_open(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT_NONE(ctx, ga);
	FST_EXPECT(ctx, gb, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN | IN_ISDIR, wd, NULL));
	getdents_once(ctx, fd);
	FST_EXPECT_NONE(ctx, ga);
	FST_EXPECT(ctx, gb, FST_FAN(FAN_ACCESS, "d"));
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS | IN_ISDIR, wd, NULL));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, ga);
	FST_EXPECT(ctx, gb, FST_FAN(FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_NOWRITE | IN_ISDIR, wd, NULL));
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);

	/* controls: a file gets to the groups without FAN_ONDIR */
	fst_open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, ga, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, gb);
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, "f"), FST_IN(IN_CLOSE_NOWRITE, wd, "f"));

	/* adding FAN_ONDIR to an existing mark takes effect at once */
	fst_mark(ctx, ga, FAN_MARK_ADD, FAN_ONDIR, "d");
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, ga, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "d"));
	FST_EXPECT(ctx, gs, FST_FAN(FAN_OPEN, "d"));
	/* and removing it too */
	fst_mark(ctx, gs, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_ONDIR, ".");
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT_NONE(ctx, gs);
	FST_EXPECT(ctx, ga, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "d"));
}

/* FID groups report FAN_ONDIR in the event mask of directory events. */
static void mk04_ondir_fid_mode(struct fst_ctx *ctx) {
	struct fst_obj eo, fo;
	int gf, gfn, gn, gno, fd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	gn = dfid_name_group(ctx);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "f", "f");
	gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR, "d");
	gfn = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gfn, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "d");
	fst_mark(ctx, gfn, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "f");
	fst_mark(ctx, gn, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE | FAN_ONDIR, "d");
	gno = dfid_name_group(ctx);
	fst_mark(ctx, gno, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE, "d");

	fd = fst_open(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, gf, { .mask = FAN_OPEN | FAN_ONDIR, .path = "d", .nofd = true });
	FST_EXPECT_NONE(ctx, gfn);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, gf, { .mask = FAN_CLOSE_NOWRITE | FAN_ONDIR, .path = "d", .nofd = true });
	FST_EXPECT_NONE(ctx, gfn);
	fd = fst_open(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gfn, { .mask = FAN_OPEN, .path = "f", .nofd = true });
	fst_close(ctx, fd);
	FST_EXPECT(ctx, gfn, { .mask = FAN_CLOSE_NOWRITE, .path = "f", .nofd = true });

	FST_SYS(ctx, mkdir("d/s", 0755));
	FST_EXPECT(ctx, gn, { .mask = FAN_CREATE | FAN_ONDIR, .dir = "d", .name = "s" });
	FST_EXPECT_NONE(ctx, gno);
	fst_open_close(ctx, "d/g", O_WRONLY | O_CREAT);
	FST_EXPECT(ctx, gn, { .mask = FAN_CREATE, .dir = "d", .name = "g" });
	FST_EXPECT(ctx, gno, { .mask = FAN_CREATE, .dir = "d", .name = "g" });
	FST_SYS(ctx, rmdir("d/s"));
	FST_EXPECT(ctx, gn, { .mask = FAN_DELETE | FAN_ONDIR, .dir = "d", .name = "s" });
	FST_EXPECT_NONE(ctx, gno);
	FST_SYS(ctx, unlink("d/g"));
	FST_EXPECT(ctx, gn, { .mask = FAN_DELETE, .dir = "d", .name = "g" });
	FST_EXPECT(ctx, gno, { .mask = FAN_DELETE, .dir = "d", .name = "g" });
	FST_EXPECT_NONE(ctx, gf);
	FST_EXPECT_NONE(ctx, gfn);

	/* a directory's own MOVE_SELF / DELETE_SELF carry FAN_ONDIR too, and
	 * need it (inotify strips IN_ISDIR from these two: mk07_rmdir_self) */
	FST_SYS(ctx, mkdir("e", 0755));
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_MOVE_SELF | FAN_DELETE_SELF | FAN_ONDIR, "e");
	fst_mark(ctx, gfn, FAN_MARK_ADD, FAN_MOVE_SELF | FAN_DELETE_SELF, "e");
	fst_mark(ctx, gfn, FAN_MARK_ADD, FAN_MOVE_SELF | FAN_DELETE_SELF, "f");
	eo = fst_obj(ctx, "e");
	fo = fst_obj(ctx, "f");
	FST_SYS(ctx, rename("e", "e2"));
	FST_EXPECT(ctx, gf, { .mask = FAN_MOVE_SELF | FAN_ONDIR, .obj = &eo, .nofd = true });
	FST_EXPECT_NONE(ctx, gfn);
	FST_SYS(ctx, rmdir("e2"));
	FST_EXPECT(ctx, gf, { .mask = FAN_DELETE_SELF | FAN_ONDIR, .obj = &eo, .nofd = true });
	FST_EXPECT_NONE(ctx, gfn);
	FST_SYS(ctx, rename("f", "f2"));
	FST_EXPECT(ctx, gfn, { .mask = FAN_MOVE_SELF, .obj = &fo, .nofd = true });
	FST_SYS(ctx, unlink("f2"));
	FST_EXPECT(ctx, gfn, { .mask = FAN_DELETE_SELF, .obj = &fo, .nofd = true });
	FST_EXPECT_NONE(ctx, gf);
}

/* ------------------------------------------------------------------------ */
/* MK05: FAN_OPEN_EXEC                                                      */
/* ------------------------------------------------------------------------ */

static void mk05_open_exec(struct fst_ctx *ctx) {
	struct fst_child *c;
	int ga, gx, go, gm;

	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_copy_true(ctx, "true", 0755);
	fst_copy_true(ctx, "noexec", 0644);
	ga = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, ga, FAN_MARK_ADD, FAN_OPEN | FAN_OPEN_EXEC, "true");
	fst_mark(ctx, ga, FAN_MARK_ADD, FAN_OPEN | FAN_OPEN_EXEC, "noexec");
	gx = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gx, FAN_MARK_ADD, FAN_OPEN_EXEC, "true");
	go = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, go, FAN_MARK_ADD, FAN_OPEN, "true");
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_OPEN_EXEC, ".");

	c = fst_spawn_exec(ctx, fst_strdupf(ctx, "%s/true", ctx->work));
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, ga, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "true", .pid = c->pid });
	FST_EXPECT(ctx, gx, { .mask = FAN_OPEN_EXEC, .path = "true", .pid = c->pid });
	FST_EXPECT(ctx, go, { .mask = FAN_OPEN, .path = "true", .pid = c->pid });
	FST_EXPECT(ctx, gm, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "true", .pid = c->pid });

	/* a plain open is FAN_OPEN only */
	fst_open_close(ctx, "true", O_RDONLY);
	FST_EXPECT(ctx, ga, FST_FAN(FAN_OPEN, "true"));
	FST_EXPECT_NONE(ctx, gx);
	FST_EXPECT(ctx, go, FST_FAN(FAN_OPEN, "true"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "true"));

	/* an execve refused before the open: no event at all */
	c = fst_spawn_exec(ctx, fst_strdupf(ctx, "%s/noexec", ctx->work));
	fst_child_expect(ctx, c, EACCES);
	FST_EXPECT_NONE(ctx, ga);
	FST_EXPECT_NONE(ctx, gm);
	fst_open_close(ctx, "noexec", O_RDONLY);
	FST_EXPECT(ctx, ga, FST_FAN(FAN_OPEN, "noexec"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "noexec"));
	FST_EXPECT_NONE(ctx, gx);
	FST_EXPECT_NONE(ctx, go);
}

/* A script: the script and then its interpreter are opened for exec. */
static void mk05_script_exec(struct fst_ctx *ctx) {
	struct fst_child *c;
	int g, gx;

	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	fst_copy_true(ctx, "true", 0755);
	fst_write_file(ctx, "script", fst_strdupf(ctx, "#!%s/true\n", ctx->work));
	FST_SYS(ctx, chmod("script", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_OPEN_EXEC, "true");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_OPEN_EXEC, "script");
	gx = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gx, FAN_MARK_ADD, FAN_OPEN_EXEC, "script");

	c = fst_spawn_exec(ctx, fst_strdupf(ctx, "%s/script", ctx->work));
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, g, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "script", .pid = c->pid },
		   { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "true", .pid = c->pid });
	FST_EXPECT(ctx, gx, { .mask = FAN_OPEN_EXEC, .path = "script", .pid = c->pid });
}

/* ------------------------------------------------------------------------ */
/* MK06: FAN_MARK_FLUSH, FAN_MARK_DONT_FOLLOW, FAN_MARK_ONLYDIR             */
/* ------------------------------------------------------------------------ */

static void mk06_flush_by_type(struct fst_ctx *ctx) {
	const char *b, *aux;
	char bf[PATH_MAX], af[PATH_MAX];
	int g, g2, in, wd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "a", "a");
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	FST_SYS(ctx, mkdir("m", 0755));
	fst_write_file(ctx, "m/f", "f");
	b = fst_bind(ctx, "m", "b");
	snprintf(bf, sizeof(bf), "%s/f", b);
	aux = fst_mount_tmpfs(ctx, "aux");
	snprintf(af, sizeof(af), "%s/x", aux);
	fst_write_file(ctx, af, "x");

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, b);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, aux);
	g2 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g2, FAN_MARK_ADD, FAN_OPEN, "a");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "a", IN_OPEN);

	/* the four scopes, before */
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	fst_open_close(ctx, bf, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "m/f"));
	fst_open_close(ctx, af, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, af));
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, NULL));

	FST_EXPECT_FDINFO(ctx, g, fst_fdi_inode(ctx, "a", true, 0, FAN_OPEN, 0),
			  fst_fdi_inode(ctx, "d", true, 0, FAN_OPEN | FAN_EVENT_ON_CHILD, 0),
			  fst_fdi_mount(ctx, b, 0, FAN_OPEN, 0),
			  fst_fdi_sb(ctx, aux, 0, FAN_OPEN, 0));

	/* FLUSH alone: inode marks only, of this group only */
	fst_mark(ctx, g, FAN_MARK_FLUSH, 0, NULL);
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_mount(ctx, b, 0, FAN_OPEN, 0),
			  fst_fdi_sb(ctx, aux, 0, FAN_OPEN, 0));
	fst_open_close(ctx, "a", O_RDONLY);
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, NULL));
	fst_open_close(ctx, bf, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "m/f"));
	fst_open_close(ctx, af, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, af));

	/* FLUSH | MOUNT: the mount mark goes, the sb mark stays */
	fst_mark(ctx, g, FAN_MARK_FLUSH | FAN_MARK_MOUNT, 0, NULL);
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_sb(ctx, aux, 0, FAN_OPEN, 0));
	fst_open_close(ctx, bf, O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_open_close(ctx, af, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, af));

	/* FLUSH | FILESYSTEM: the last one */
	fst_mark(ctx, g, FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM, 0, NULL);
	FST_EXPECT_FDINFO_NONE(ctx, g);
	fst_open_close(ctx, af, O_RDONLY);
	fst_open_close(ctx, bf, O_RDONLY);
	fst_open_close(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wd, NULL));

	/* the group still works: a new mark on the flushed parent */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	FST_EXPECT_NONE(ctx, g2);
}

static void mk06_dont_follow(struct fst_ctx *ctx) {
	struct fst_obj lo;
	int gl, gt, gf;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, symlink("f", "l"));
	gl = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gl, FAN_MARK_ADD | FAN_MARK_DONT_FOLLOW, FAN_OPEN, "l");
	gt = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gt, FAN_MARK_ADD, FAN_OPEN, "l");
	FST_EXPECT_FDINFO(ctx, gl, fst_fdi_inode(ctx, "l", false, 0, FAN_OPEN, 0));
	FST_EXPECT_FDINFO(ctx, gt, fst_fdi_inode(ctx, "f", true, 0, FAN_OPEN, 0));

	/* opening through the link opens the target: only gt */
	fst_open_close(ctx, "l", O_RDONLY);
	FST_EXPECT_NONE(ctx, gl);
	FST_EXPECT(ctx, gt, FST_FAN(FAN_OPEN, "f"));

	/* events on the link inode itself reach the DONT_FOLLOW mark */
	gf = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gf, FAN_MARK_ADD | FAN_MARK_DONT_FOLLOW, FAN_ATTRIB | FAN_DELETE_SELF, "l");
	fst_mark(ctx, gf, FAN_MARK_ADD, FAN_ATTRIB, "f");
	lo = fst_obj_nofollow(ctx, "l"); /* the link itself */
	FST_SYS(ctx, fchownat(ctx->workfd, "l", 0, 0, AT_SYMLINK_NOFOLLOW));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .obj = &lo, .nofd = true });
	FST_SYS(ctx, fchownat(ctx->workfd, "l", 0, 0, 0));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB, .path = "f", .nofd = true });
	FST_SYS(ctx, unlink("l"));
	FST_EXPECT(ctx, gf, { .mask = FAN_ATTRIB | FAN_DELETE_SELF, .obj = &lo, .nofd = true });
	FST_EXPECT_FDINFO(ctx, gf, fst_fdi_inode(ctx, "f", true, 0, FAN_ATTRIB, 0));
	FST_EXPECT_NONE(ctx, gl);
	FST_EXPECT_NONE(ctx, gt);
}

static void mk06_onlydir(struct fst_ctx *ctx) {
	int g, in, wd;

	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, symlink("d", "ld"));
	FST_SYS(ctx, symlink("f", "lf"));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);

	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, "f"),
			 -ENOTDIR);
	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, "lf"),
			 -ENOTDIR);
	ck_assert_int_eq(fst_mark_err(ctx, g,
				      FAN_MARK_ADD | FAN_MARK_ONLYDIR | FAN_MARK_DONT_FOLLOW,
				      FAN_OPEN | FAN_ONDIR, "ld"),
			 -ENOTDIR);
	FST_EXPECT_FDINFO_NONE(ctx, g);
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* a directory, also through a symlink that is followed */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN | FAN_ONDIR, "ld");
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_inode(ctx, "d", true, 0, FAN_OPEN | FAN_ONDIR, 0));
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	/* the same flags on a file still fail with the directory marked */
	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN, "f"),
			 -ENOTDIR);
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* inotify: IN_ONLYDIR, IN_DONT_FOLLOW */
	in = fst_inotify(ctx);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_OPEN | IN_ONLYDIR), -ENOTDIR);
	ck_assert_int_eq(fst_watch_err(ctx, in, "lf", IN_OPEN | IN_ONLYDIR), -ENOTDIR);
	FST_EXPECT_FDINFO_NONE(ctx, in);
	wd = fst_watch(ctx, in, "lf", IN_ATTRIB | IN_OPEN | IN_DONT_FOLLOW);
	FST_EXPECT_FDINFO(ctx, in, fst_fdi_watch(ctx, wd, "lf", false, IN_ATTRIB | IN_OPEN));
	fst_open_close(ctx, "lf", O_RDONLY);
	FST_EXPECT_NONE(ctx, in);
	FST_SYS(ctx, fchownat(ctx->workfd, "lf", 0, 0, AT_SYMLINK_NOFOLLOW));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wd, NULL));
}

/* ------------------------------------------------------------------------ */
/* MK07: inotify watch lifetime                                             */
/* ------------------------------------------------------------------------ */

static void mk07_unmount(struct fst_ctx *ctx) {
	const char *aux, *b;
	char af[PATH_MAX];
	int in1, in2, w1, w2;

	aux = fst_mount_tmpfs(ctx, "aux");
	snprintf(af, sizeof(af), "%s/f", aux);
	fst_write_file(ctx, af, "f");
	b = fst_bind(ctx, aux, "b");
	in1 = fst_inotify(ctx);
	w1 = fst_watch(ctx, in1, aux, IN_OPEN | IN_DELETE_SELF);
	in2 = fst_inotify(ctx);
	w2 = fst_watch(ctx, in2, af, IN_OPEN);

	fst_open_close(ctx, af, O_RDONLY);
	FST_EXPECT(ctx, in1, FST_IN(IN_OPEN, w1, "f"));
	FST_EXPECT(ctx, in2, FST_IN(IN_OPEN, w2, NULL));

	/* unmounting one of two mounts of the filesystem: nothing */
	FST_SYS(ctx, umount(b));
	FST_EXPECT_NONE(ctx, in1);
	FST_EXPECT_NONE(ctx, in2);
	fst_open_close(ctx, af, O_RDONLY);
	FST_EXPECT(ctx, in1, FST_IN(IN_OPEN, w1, "f"));
	FST_EXPECT(ctx, in2, FST_IN(IN_OPEN, w2, NULL));

	/* the last one: IN_UNMOUNT (asked or not; with IN_ISDIR for a
	 * directory, unlike IN_DELETE_SELF) then IN_IGNORED, for each watch */
	FST_SYS(ctx, umount(aux));
	FST_EXPECT(ctx, in1, FST_IN(IN_UNMOUNT | IN_ISDIR, w1, NULL), FST_IN(IN_IGNORED, w1, NULL));
	FST_EXPECT(ctx, in2, FST_IN(IN_UNMOUNT, w2, NULL), FST_IN(IN_IGNORED, w2, NULL));
	FST_SYS_ERR(ctx, inotify_rm_watch(in1, w1), EINVAL);
	FST_EXPECT_FDINFO_NONE(ctx, in1);
	FST_EXPECT_FDINFO_NONE(ctx, in2);
}

static void mk07_rmdir_self(struct fst_ctx *ctx) {
	int ip, is, ion, wp, ws, won;

	FST_SYS(ctx, mkdir("sub", 0755));
	FST_SYS(ctx, mkdir("sub2", 0755));
	ip = fst_inotify(ctx);
	wp = fst_watch(ctx, ip, ".", IN_DELETE);
	is = fst_inotify(ctx);
	ws = fst_watch(ctx, is, "sub", IN_ALL_EVENTS);
	ion = fst_inotify(ctx);
	won = fst_watch(ctx, ion, "sub2", IN_CREATE);

	/* no IN_ISDIR with IN_MOVE_SELF / IN_DELETE_SELF (inotify masks it
	 * out of these two for compatibility; fanotify reports FAN_ONDIR) */
	FST_SYS(ctx, rename("sub", "subx"));
	FST_EXPECT(ctx, is, FST_IN(IN_MOVE_SELF, ws, NULL));
	FST_EXPECT_NONE(ctx, ip);
	FST_SYS(ctx, rmdir("subx"));
	FST_EXPECT(ctx, is, FST_IN(IN_DELETE_SELF, ws, NULL), FST_IN(IN_IGNORED, ws, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE | IN_ISDIR, wp, "subx"));
	FST_SYS_ERR(ctx, inotify_rm_watch(is, ws), EINVAL);
	FST_EXPECT_FDINFO_NONE(ctx, is);

	/* a watch that did not ask for IN_DELETE_SELF still gets IN_IGNORED */
	fst_open_close(ctx, "sub2/x", O_WRONLY | O_CREAT);
	FST_EXPECT(ctx, ion, FST_IN(IN_CREATE, won, "x"));
	FST_SYS(ctx, unlink("sub2/x"));
	FST_SYS(ctx, rmdir("sub2"));
	FST_EXPECT(ctx, ion, FST_IN(IN_IGNORED, won, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE | IN_ISDIR, wp, "sub2"));
}

static void mk07_unlink_self(struct fst_ctx *ctx) {
	int ip, in, wp, wf, wh, wo, wn, fd;

	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, "h1", "h");
	FST_SYS(ctx, link("h1", "h2"));
	fst_write_file(ctx, "o", "o");
	fst_write_file(ctx, "n", "n");
	ip = fst_inotify(ctx);
	wp = fst_watch(ctx, ip, ".", IN_DELETE);
	in = fst_inotify(ctx);
	wf = fst_watch(ctx, in, "f", IN_ALL_EVENTS);
	wh = fst_watch(ctx, in, "h1", IN_ALL_EVENTS);
	wo = fst_watch(ctx, in, "o", IN_ALL_EVENTS);
	wn = fst_watch(ctx, in, "n", IN_OPEN);

	FST_SYS(ctx, unlink("f"));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wf, NULL), FST_IN(IN_DELETE_SELF, wf, NULL),
		   FST_IN(IN_IGNORED, wf, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE, wp, "f"));

	/* one of two links: only the link count changes */
	FST_SYS(ctx, unlink("h1"));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wh, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE, wp, "h1"));
	FST_SYS(ctx, unlink("h2"));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wh, NULL), FST_IN(IN_DELETE_SELF, wh, NULL),
		   FST_IN(IN_IGNORED, wh, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE, wp, "h2"));

	/* still open: the inode goes (and the watch with it) at the last close */
	fd = fst_open(ctx, "o", O_RDONLY);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN, wo, NULL));
	FST_SYS(ctx, unlink("o"));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wo, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE, wp, "o"));
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wo, NULL));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_NOWRITE, wo, NULL), FST_IN(IN_DELETE_SELF, wo, NULL),
		   FST_IN(IN_IGNORED, wo, NULL));

	/* a watch without ATTRIB/DELETE_SELF: IN_IGNORED only */
	FST_SYS(ctx, unlink("n"));
	FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wn, NULL));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE, wp, "n"));
	FST_EXPECT_FDINFO(ctx, ip, fst_fdi_watch(ctx, wp, ".", true, IN_DELETE));
	FST_EXPECT_FDINFO_NONE(ctx, in);
}

static void mk07_oneshot(struct fst_ctx *ctx) {
	int i1, i2, id, w1, w2, wd, fd;

	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	i1 = fst_inotify(ctx);
	w1 = fst_watch(ctx, i1, "f", IN_MODIFY | IN_ONESHOT);
	i2 = fst_inotify(ctx);
	w2 = fst_watch(ctx, i2, "f", IN_MODIFY);
	id = fst_inotify(ctx);
	wd = fst_watch(ctx, id, "d", IN_CREATE | IN_ONESHOT);

	/* an event the watch did not ask for does not use it up */
	fd = fst_open(ctx, "f", O_RDWR);
	fst_read1(ctx, fd);
	FST_EXPECT_NONE(ctx, i1);
	FST_EXPECT_NONE(ctx, i2);
	FST_EXPECT_FDINFO(ctx, i1, fst_fdi_watch(ctx, w1, "f", true, IN_MODIFY | IN_ONESHOT));

	fst_write1(ctx, fd);
	FST_EXPECT(ctx, i1, FST_IN(IN_MODIFY, w1, NULL), FST_IN(IN_IGNORED, w1, NULL));
	FST_EXPECT(ctx, i2, FST_IN(IN_MODIFY, w2, NULL));
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, i1);
	FST_EXPECT(ctx, i2, FST_IN(IN_MODIFY, w2, NULL));
	FST_SYS_ERR(ctx, inotify_rm_watch(i1, w1), EINVAL);
	FST_EXPECT_FDINFO_NONE(ctx, i1);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, i2);

	/* on a directory, a child event uses it up too */
	fst_open_close(ctx, "d/a", O_WRONLY | O_CREAT);
	FST_EXPECT(ctx, id, FST_IN(IN_CREATE, wd, "a"), FST_IN(IN_IGNORED, wd, NULL));
	fst_open_close(ctx, "d/b", O_WRONLY | O_CREAT);
	FST_EXPECT_NONE(ctx, id);
}

static void mk07_excl_unlink(struct fst_ctx *ctx) {
	int ied, ief, ind, inf, wed, wef, wnd, wnf, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	ied = fst_inotify(ctx);
	wed = fst_watch(ctx, ied, "d", IN_MODIFY | IN_DELETE | IN_EXCL_UNLINK);
	ief = fst_inotify(ctx);
	wef = fst_watch(ctx, ief, "d/f", IN_MODIFY | IN_EXCL_UNLINK);
	ind = fst_inotify(ctx);
	wnd = fst_watch(ctx, ind, "d", IN_MODIFY | IN_DELETE);
	inf = fst_inotify(ctx);
	wnf = fst_watch(ctx, inf, "d/f", IN_MODIFY);

	fd = fst_open(ctx, "d/f", O_RDWR);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, ied, FST_IN(IN_MODIFY, wed, "f"));
	FST_EXPECT(ctx, ief, FST_IN(IN_MODIFY, wef, NULL));
	FST_EXPECT(ctx, ind, FST_IN(IN_MODIFY, wnd, "f"));
	FST_EXPECT(ctx, inf, FST_IN(IN_MODIFY, wnf, NULL));

	FST_SYS(ctx, unlink("d/f"));
	FST_EXPECT(ctx, ied, FST_IN(IN_DELETE, wed, "f"));
	FST_EXPECT(ctx, ind, FST_IN(IN_DELETE, wnd, "f"));
	FST_EXPECT_NONE(ctx, ief);
	FST_EXPECT_NONE(ctx, inf);

	/* after the unlink: nothing for the IN_EXCL_UNLINK watches */
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, ied);
	FST_EXPECT_NONE(ctx, ief);
	FST_EXPECT(ctx, ind, FST_IN(IN_MODIFY, wnd, "f"));
	FST_EXPECT(ctx, inf, FST_IN(IN_MODIFY, wnf, NULL));

	fst_close(ctx, fd);
	FST_EXPECT(ctx, ief, FST_IN(IN_IGNORED, wef, NULL));
	FST_EXPECT(ctx, inf, FST_IN(IN_IGNORED, wnf, NULL));
	FST_EXPECT_NONE(ctx, ied);
	FST_EXPECT_NONE(ctx, ind);

	/* a new file in the directory is reported again */
	fd = fst_open(ctx, "d/g", O_RDWR | O_CREAT);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, ied, FST_IN(IN_MODIFY, wed, "g"));
	FST_EXPECT(ctx, ind, FST_IN(IN_MODIFY, wnd, "g"));
}

/* ------------------------------------------------------------------------ */
/* MK08: rename                                                             */
/* ------------------------------------------------------------------------ */

/* MOVED_FROM then MOVED_TO, one cookie, not 0; returns the cookie. */
#define EXPECT_MOVE(ctx, in, wfrom, from, wto, to, isdir)                                          \
	FST_EXPECT(ctx, in, FST_IN(IN_MOVED_FROM | ((isdir) ? IN_ISDIR : 0), wfrom, from),         \
		   { .mask = IN_MOVED_TO | ((isdir) ? IN_ISDIR : 0),                               \
		     .wd = (wto),                                                                  \
		     .name = (to),                                                                 \
		     .cookie_of = FST_COOKIE_OF(0) })                                              \
	    ->e[0]                                                                                 \
	    .ev.cookie

static void mk08_inotify_cookies(struct fst_ctx *ctx) {
	uint32_t c[4];
	int in, is, it, w1, w2, wa, wt;

	FST_SYS(ctx, mkdir("d1", 0755));
	FST_SYS(ctx, mkdir("d2", 0755));
	FST_SYS(ctx, mkdir("d1/sd", 0755));
	fst_write_file(ctx, "d1/a", "a");
	fst_write_file(ctx, "d1/t", "t");
	in = fst_inotify(ctx);
	w1 = fst_watch(ctx, in, "d1", IN_MOVE | IN_CREATE | IN_DELETE);
	w2 = fst_watch(ctx, in, "d2", IN_MOVE | IN_CREATE | IN_DELETE);
	is = fst_inotify(ctx);
	wa = fst_watch(ctx, is, "d1/a", IN_ALL_EVENTS);
	it = fst_inotify(ctx);
	wt = fst_watch(ctx, it, "d1/t", IN_ALL_EVENTS);

	FST_SYS(ctx, rename("d1/a", "d1/b"));
	c[0] = EXPECT_MOVE(ctx, in, w1, "a", w1, "b", false);
	FST_EXPECT(ctx, is, FST_IN(IN_MOVE_SELF, wa, NULL));

	FST_SYS(ctx, rename("d1/b", "d2/c"));
	c[1] = EXPECT_MOVE(ctx, in, w1, "b", w2, "c", false);
	FST_EXPECT(ctx, is, FST_IN(IN_MOVE_SELF, wa, NULL));

	/* over an existing name: no IN_DELETE, the victim's watch ends */
	FST_SYS(ctx, rename("d2/c", "d1/t"));
	c[2] = EXPECT_MOVE(ctx, in, w2, "c", w1, "t", false);
	FST_EXPECT(ctx, is, FST_IN(IN_MOVE_SELF, wa, NULL));
	FST_EXPECT(ctx, it, FST_IN(IN_ATTRIB, wt, NULL), FST_IN(IN_DELETE_SELF, wt, NULL),
		   FST_IN(IN_IGNORED, wt, NULL));

	FST_SYS(ctx, rename("d1/sd", "d2/sd"));
	c[3] = EXPECT_MOVE(ctx, in, w1, "sd", w2, "sd", true);
	FST_EXPECT_NONE(ctx, is);

	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (c[i] == c[j])
				fst_fail(ctx, "renames %d and %d share cookie %u", i, j, c[i]);
	/* the moved file's watch follows it */
	FST_EXPECT_FDINFO(ctx, is, fst_fdi_watch(ctx, wa, "d1/t", true, IN_ALL_EVENTS));
	FST_EXPECT_FDINFO_NONE(ctx, it);
}

/* FAN_RENAME: OLD_DFID_NAME for a match on the old directory, NEW_DFID_NAME
 * for a match on the new one, both for an sb mark (fanotify_alloc_event()):
 * exactly the records given (NULL od / nd: none). */
#define RENAME(od, on, nd, nn)                                                                     \
	{ .mask = FAN_RENAME, .old_dir = (od), .old_name = (on), .new_dir = (nd), .new_name = (nn) }
#define EXPECT_RENAME(ctx, g, od, on, nd, nn) FST_EXPECT(ctx, g, RENAME(od, on, nd, nn))

static void mk08_fan_rename_records(struct fst_ctx *ctx) {
	int gboth, gold, gnew, gsb, gmv;

	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	FST_SYS(ctx, mkdir("d1", 0755));
	FST_SYS(ctx, mkdir("d2", 0755));
	FST_SYS(ctx, mkdir("d3", 0755));
	fst_write_file(ctx, "d1/a", "a");
	fst_write_file(ctx, "d1/x", "x");
	fst_write_file(ctx, "d2/t", "t");
	fst_write_file(ctx, "d3/p", "p");
	gboth = dfid_name_group(ctx);
	fst_mark(ctx, gboth, FAN_MARK_ADD, FAN_RENAME, "d1");
	fst_mark(ctx, gboth, FAN_MARK_ADD, FAN_RENAME, "d2");
	gold = dfid_name_group(ctx);
	fst_mark(ctx, gold, FAN_MARK_ADD, FAN_RENAME, "d1");
	gnew = dfid_name_group(ctx);
	fst_mark(ctx, gnew, FAN_MARK_ADD, FAN_RENAME, "d2");
	gsb = dfid_name_group(ctx);
	fst_mark(ctx, gsb, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_RENAME, ".");
	gmv = dfid_name_group(ctx);
	fst_mark(ctx, gmv, FAN_MARK_ADD, FAN_RENAME | FAN_MOVE | FAN_DELETE, "d1");
	fst_mark(ctx, gmv, FAN_MARK_ADD, FAN_RENAME | FAN_MOVE | FAN_DELETE, "d2");

	/* across directories */
	FST_SYS(ctx, rename("d1/a", "d2/b"));
	EXPECT_RENAME(ctx, gboth, "d1", "a", "d2", "b");
	EXPECT_RENAME(ctx, gold, "d1", "a", NULL, NULL);
	EXPECT_RENAME(ctx, gnew, NULL, NULL, "d2", "b");
	EXPECT_RENAME(ctx, gsb, "d1", "a", "d2", "b");
	FST_EXPECT(ctx, gmv, RENAME("d1", "a", "d2", "b"),
		   { .mask = FAN_MOVED_FROM, .dir = "d1", .name = "a" },
		   { .mask = FAN_MOVED_TO, .dir = "d2", .name = "b" });

	/* within one directory */
	FST_SYS(ctx, rename("d1/x", "d1/y"));
	EXPECT_RENAME(ctx, gboth, "d1", "x", "d1", "y");
	EXPECT_RENAME(ctx, gold, "d1", "x", "d1", "y");
	FST_EXPECT_NONE(ctx, gnew);
	EXPECT_RENAME(ctx, gsb, "d1", "x", "d1", "y");
	FST_EXPECT(ctx, gmv, RENAME("d1", "x", "d1", "y"),
		   { .mask = FAN_MOVED_FROM, .dir = "d1", .name = "x" },
		   { .mask = FAN_MOVED_TO, .dir = "d1", .name = "y" });

	/* over an existing name: no FAN_DELETE for the victim */
	FST_SYS(ctx, rename("d2/b", "d2/t"));
	EXPECT_RENAME(ctx, gboth, "d2", "b", "d2", "t");
	FST_EXPECT_NONE(ctx, gold);
	EXPECT_RENAME(ctx, gnew, "d2", "b", "d2", "t");
	EXPECT_RENAME(ctx, gsb, "d2", "b", "d2", "t");
	FST_EXPECT(ctx, gmv, RENAME("d2", "b", "d2", "t"),
		   { .mask = FAN_MOVED_FROM, .dir = "d2", .name = "b" },
		   { .mask = FAN_MOVED_TO, .dir = "d2", .name = "t" });

	/* an unmarked directory: the sb mark only */
	FST_SYS(ctx, rename("d3/p", "d3/q"));
	EXPECT_RENAME(ctx, gsb, "d3", "p", "d3", "q");
	FST_EXPECT_NONE(ctx, gboth);
	FST_EXPECT_NONE(ctx, gold);
	FST_EXPECT_NONE(ctx, gnew);
	FST_EXPECT_NONE(ctx, gmv);
}

/* ------------------------------------------------------------------------ */
/* MK09: once the event is read, the name change it reports has happened    */
/* ------------------------------------------------------------------------ */

/* Names churned: 150 per pass, --soak passes (LTP inotify: 9999 in all;
 * `--soak 67` churns as many). */
#define CHURN_N 150
#define CHURN_TOTAL(ctx) (CHURN_N * (int)(ctx)->soak)

struct churn_arg {
	char dir[PATH_MAX];
	int n;
};

/* Runs in the child: c<i> created, d<i> unlinked, r<i> renamed to s<i>. */
static int churn_fn(void *arg) {
	struct churn_arg *a = arg;
	char p[PATH_MAX + 16], q[PATH_MAX + 16];

	for (int i = 0; i < a->n; i++) {
		int fd;

		snprintf(p, sizeof(p), "%s/c%d", a->dir, i);
		fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return errno;
		close(fd);
		snprintf(p, sizeof(p), "%s/d%d", a->dir, i);
		if (unlink(p) < 0)
			return errno;
		snprintf(p, sizeof(p), "%s/r%d", a->dir, i);
		snprintf(q, sizeof(q), "%s/s%d", a->dir, i);
		if (rename(p, q) < 0)
			return errno;
	}
	return 0;
}

static void churn_setup(struct fst_ctx *ctx) {
	FST_SYS(ctx, mkdir("z", 0755));
	for (int i = 0; i < CHURN_TOTAL(ctx); i++) {
		fst_write_file(ctx, fst_strdupf(ctx, "z/d%d", i), NULL);
		fst_write_file(ctx, fst_strdupf(ctx, "z/r%d", i), NULL);
	}
}

/* While a child churns, read each event as soon as it is queued and look
 * the name up at once: created and moved-to names open, deleted and
 * moved-from names are gone (ENOENT). */
static void churn_and_check(struct fst_ctx *ctx, int g, bool fan, int wd) {
	static const uint32_t in_masks[4] = { IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO };
	static const uint64_t fan_masks[4] = { FAN_CREATE, FAN_DELETE, FAN_MOVED_FROM,
					       FAN_MOVED_TO };
	static const char pfx[4] = { 'c', 'd', 'r', 's' };
	struct churn_arg a;
	struct fst_child *c;
	size_t seen = 0, total = 4 * (size_t)CHURN_TOTAL(ctx);
	uint32_t cookie = 0;

	FST_EXPECT_NONE(ctx, g);
	snprintf(a.dir, sizeof(a.dir), "%s/z", ctx->work);
	a.n = CHURN_TOTAL(ctx);
	c = fst_spawn(ctx, "churn(z)", churn_fn, &a, -1);
	while (seen < total) {
		struct fst_events *ev;

		fst_wait_readable(ctx, g, FST_WAIT_MS);
		ev = fst_read(ctx, g);
		for (size_t i = 0; i < ev->n; i++, seen++) {
			int k = (int)(seen % 4), fd;
			char *name = fst_strdupf(ctx, "%c%zu", pfx[k], seen / 4);
			char *path = fst_strdupf(ctx, "z/%s", name);
			bool want = k == 0 || k == 3;
			struct fst_events one = { 1, &ev->e[i] };

			if (seen >= total)
				FST_MATCH(ctx, g, &one, { .mask = 0 });
			if (fan)
				FST_MATCH(ctx, g, &one,
					  { .mask = fan_masks[k],
					    .dir = "z",
					    .name = name,
					    .pid = c->pid });
			else /* MOVED_TO: the cookie of the MOVED_FROM before it */
				FST_MATCH(ctx, g, &one,
					  { .mask = in_masks[k],
					    .wd = wd,
					    .name = name,
					    .cookie = k == 3 ? cookie : 0 });
			fd = openat(ctx->workfd, path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				close(fd);
			else if (errno != ENOENT)
				fst_fail(ctx, "open %s: %s", path, fst_errname(errno));
			if ((fd >= 0) != want)
				fst_fail(ctx, "event %zu (%s \"%s\") read, but open(%s) %s", seen,
					 fst_mask_str(fan ? FSN_MASK_FANOTIFY_EVENT
							  : FSN_MASK_INOTIFY_EVENT,
						      ev->e[i].ev.mask),
					 name, path, fd >= 0 ? "succeeds" : "fails with ENOENT");
			if (!fan && k == 2) /* non-zero: FST_MATCH() checked it */
				cookie = ev->e[i].ev.cookie;
		}
	}
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g);
}

static void mk09_inotify_names_settled(struct fst_ctx *ctx) {
	int in, wd;

	churn_setup(ctx);
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "z", IN_CREATE | IN_DELETE | IN_MOVE);
	churn_and_check(ctx, in, false, wd);
}

static void mk09_fanotify_names_settled(struct fst_ctx *ctx) {
	int g;

	g = dfid_name_group(ctx);
	churn_setup(ctx);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE | FAN_MOVE, "z");
	churn_and_check(ctx, g, true, 0);
}

/* ------------------------------------------------------------------------ */
/* MK10: fdinfo shows each mark as set                                      */
/* ------------------------------------------------------------------------ */

static void mk10_fdinfo_fanotify(struct fst_ctx *ctx) {
	struct fst_fdi fi, di, mi, si;
	int g, wfd, efd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	FST_EXPECT_FDINFO_NONE(ctx, g);

	/* inode mark on a file: EVENT_ON_CHILD is dropped, the rest kept */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_MODIFY, "f");
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_inode(ctx, "f", true, 0, FAN_OPEN | FAN_MODIFY, 0));
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS | FAN_EVENT_ON_CHILD, "f");
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_MODIFY, "f");
	FST_EXPECT_FDINFO(ctx, g, fst_fdi_inode(ctx, "f", true, 0, FAN_OPEN | FAN_ACCESS, 0));
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_CLOSE_WRITE, "f");
	FST_EXPECT_FDINFO(ctx, g,
			  fst_fdi_inode(ctx, "f", true, 0, FAN_OPEN | FAN_ACCESS, FAN_CLOSE_WRITE));
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_CLOSE_NOWRITE, "f");
	fi = fst_fdi_inode(ctx, "f", true, FAN_MARK_IGNORED_SURV_MODIFY, FAN_OPEN | FAN_ACCESS,
			   FAN_CLOSE);
	FST_EXPECT_FDINFO(ctx, g, fi);

	/* directory, mount and sb marks next to it */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	di = fst_fdi_inode(ctx, "d", true, 0, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, 0);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT,
		 FAN_OPEN | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, ".");
	mi = fst_fdi_mount(ctx, ".", 0, FAN_OPEN | FAN_CLOSE_WRITE, 0);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_MODIFY | FAN_ONDIR, ".");
	si = fst_fdi_sb(ctx, ".", 0, FAN_MODIFY | FAN_ONDIR, 0);
	FST_EXPECT_FDINFO(ctx, g, fi, di, mi, si);

	/* calls that fail change nothing */
	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_REMOVE, FAN_OPEN, "d/.."), -ENOENT);
	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_MODIFY, "f"),
			 -ENOTDIR);
	if (fst_has(ctx, FSN_FEAT_MARK_IGNORE)) {
		ck_assert_int_eq(
		    fst_mark_err(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "d"), -EISDIR);
		ck_assert_int_eq(fst_mark_err(ctx, g,
					      FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE,
					      FAN_OPEN, "."),
				 -EINVAL);
	}
	/* a legacy ignore mask is not added while the file is open for write
	 * (fanotify_mark() returns 0 nevertheless) */
	wfd = fst_open(ctx, "f", O_WRONLY);
	FST_SYS(ctx, fanotify_mark(g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_MODIFY, ctx->workfd,
				   "f"));
	fst_close(ctx, wfd);
	FST_EXPECT_FDINFO(ctx, g, fi, di, mi, si);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_MODIFY, "f");
	fi.ignored |= FAN_MODIFY;
	FST_EXPECT_FDINFO(ctx, g, fi, di, mi, si);

	/* removals: a mark stays while any bit (even only FAN_ONDIR or an
	 * ignore mask) is left */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_OPEN | FAN_CLOSE_WRITE, ".");
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_MODIFY, ".");
	si.mask = FAN_ONDIR;
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_OPEN | FAN_ACCESS, "f");
	fi.mask = 0;
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_OPEN, "d");
	di.mask = FAN_ONDIR | FAN_EVENT_ON_CHILD;
	FST_EXPECT_FDINFO(ctx, g, fi, di, si);
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_CLOSE | FAN_MODIFY, "f");
	fst_mark(ctx, g, FAN_MARK_REMOVE, FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");
	FST_EXPECT_FDINFO(ctx, g, si);
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_ONDIR, ".");
	FST_EXPECT_FDINFO_NONE(ctx, g);
	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_REMOVE, FAN_OPEN, "f"), -ENOENT);

	/* an evictable mark and a new-style ignore mask show their mflags */
	if (fst_has(ctx, FSN_FEAT_MARK_EVICTABLE)) {
		efd = fst_open(ctx, "f", O_RDONLY); /* keeps the inode in memory */
		fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_OPEN, "f");
		FST_EXPECT_FDINFO(ctx, g,
				  fst_fdi_inode(ctx, "f", true, FAN_MARK_EVICTABLE, FAN_OPEN, 0));
		fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f");
		FST_EXPECT_FDINFO(ctx, g, fst_fdi_inode(ctx, "f", true, 0, FAN_OPEN, 0));
		fst_close(ctx, efd);
	}
	if (fst_has(ctx, FSN_FEAT_MARK_IGNORE)) {
		fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, "d");
		FST_EXPECT_FDINFO(
		    ctx, g, fst_fdi_inode(ctx, "f", true, 0, FAN_OPEN, 0),
		    fst_fdi_inode(ctx, "d", true, FAN_MARK_IGNORE_SURV, 0, FAN_OPEN | FAN_ONDIR));
	}
}

static void mk10_fdinfo_inotify(struct fst_ctx *ctx) {
	int in, in2, wf, wd, wg, w2, fd;

	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, "g", "g");
	FST_SYS(ctx, link("f", "f2"));
	FST_SYS(ctx, mkdir("d", 0755));
	in = fst_inotify(ctx);
	FST_EXPECT_FDINFO_NONE(ctx, in);

	wf = fst_watch(ctx, in, "f", IN_OPEN | IN_MODIFY);
	FST_EXPECT_FDINFO(ctx, in, fst_fdi_watch(ctx, wf, "f", true, IN_OPEN | IN_MODIFY));
	/* adding again replaces the mask, same wd, through any name */
	ck_assert_int_eq(fst_watch(ctx, in, "f2", IN_ACCESS), wf);
	FST_EXPECT_FDINFO(ctx, in, fst_fdi_watch(ctx, wf, "f", true, IN_ACCESS));
	fd = fst_open(ctx, "f", O_RDWR);
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
	fst_read1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_ACCESS, wf, NULL));
	/* IN_MASK_ADD ORs */
	ck_assert_int_eq(fst_watch(ctx, in, "f", IN_MODIFY | IN_MASK_ADD), wf);
	FST_EXPECT_FDINFO(ctx, in, fst_fdi_watch(ctx, wf, "f", true, IN_ACCESS | IN_MODIFY));
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wf, NULL));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
	if (fst_has(ctx, FSN_FEAT_INOTIFY_MASK_CREATE))
		ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_OPEN | IN_MASK_CREATE), -EEXIST);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_OPEN | IN_ONLYDIR), -ENOTDIR);

	/* flags kept in the mask: IN_EXCL_UNLINK, IN_ONESHOT (not ONLYDIR) */
	wd = fst_watch(ctx, in, "d", IN_ALL_EVENTS | IN_EXCL_UNLINK | IN_ONLYDIR);
	wg = fst_watch(ctx, in, "g", IN_ATTRIB | IN_ONESHOT);
	in2 = fst_inotify(ctx);
	w2 = fst_watch(ctx, in2, "f", IN_CLOSE_WRITE);
	FST_EXPECT_FDINFO(ctx, in, fst_fdi_watch(ctx, wf, "f", true, IN_ACCESS | IN_MODIFY),
			  fst_fdi_watch(ctx, wd, "d", true, IN_ALL_EVENTS | IN_EXCL_UNLINK),
			  fst_fdi_watch(ctx, wg, "g", true, IN_ATTRIB | IN_ONESHOT));
	FST_EXPECT_FDINFO(ctx, in2, fst_fdi_watch(ctx, w2, "f", true, IN_CLOSE_WRITE));

	/* removal: IN_IGNORED, and the line goes */
	fst_rm_watch(ctx, in, wf);
	FST_EXPECT(ctx, in, FST_IN(IN_IGNORED, wf, NULL));
	FST_EXPECT_FDINFO(ctx, in,
			  fst_fdi_watch(ctx, wd, "d", true, IN_ALL_EVENTS | IN_EXCL_UNLINK),
			  fst_fdi_watch(ctx, wg, "g", true, IN_ATTRIB | IN_ONESHOT));
	FST_EXPECT_FDINFO(ctx, in2, fst_fdi_watch(ctx, w2, "f", true, IN_CLOSE_WRITE));
	FST_SYS(ctx, chmod("g", 0600));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wg, NULL), FST_IN(IN_IGNORED, wg, NULL));
	FST_EXPECT_FDINFO(ctx, in,
			  fst_fdi_watch(ctx, wd, "d", true, IN_ALL_EVENTS | IN_EXCL_UNLINK));
	FST_EXPECT_NONE(ctx, in2);
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_mk[] = {
	FST_CASE(mk01_inode_mark_sequence, "MK01", FST_ALL_FS,
		 "inode mark: open/modify/access/close in order, own and child pid, event fd "
		 "reads the current content"),
	FST_CASE(mk01_mount_mark_sequence, "MK01", FST_ALL_FS,
		 "mount mark: the same sequence, and every file of the mount"),
	FST_CASE_GIT(mk01_sb_mark_sequence, "MK01", FST_ALL_FS, "d54f4fba889b",
		     "sb mark: the same sequence, and every file of the filesystem"),
	FST_CASE_GIT(
	    mk01_fid_groups_nofd, "MK01", FST_ALL_FS, "a8b13aa20afb",
	    "FID groups (inode/mount/sb): FAN_NOFD + FID; fd group with all 3 marks: once"),
	FST_CASE_GIT(mk02_bind_mount_scope, "MK02", FST_ALL_FS, "d54f4fba889b",
		     "inode and sb marks through both mounts, a mount mark only through its own"),
	FST_CASE(mk02_nested_mount_scope, "MK02", FST_ALL_FS,
		 "mount/sb/parent marks stop at a mount point; the inner mount's own mark sees it"),
	FST_CASE(
	    mk02_unmount_marked_bind, "MK02", FST_ALL_FS,
	    "a marked bind mount unmounted, its groups closed: the others' events and asks stay"),
	FST_CASE(mk03_merge_fd_mode, "MK03", FST_ALL_FS,
		 "fd mode: unread events merge per object+pid+mount, in place; read ones do not"),
	FST_CASE_GIT(mk03_merge_fid_mode, "MK03", FST_ALL_FS, "e7fce6d94cc1",
		     "FID modes: merge by FID across mounts, by dir+name, never dir with non-dir"),
	FST_CASE(mk03_inotify_tail_merge, "MK03", FST_ONCE,
		 "inotify merges only identical events at the tail of the queue"),
	FST_CASE(mk03_perm_never_merge, "MK03", FST_ALL_FS,
		 "two threads, one pid: two FAN_OPEN_PERM, two answers; their FAN_OPEN merge"),
	FST_CASE_GIT(mk04_ondir_fd_mode, "MK04", FST_ALL_FS, "55bf882c7f13",
		     "fd mode: dir events need FAN_ONDIR (inode/mount/sb), reported without it"),
	FST_CASE_GIT(mk04_ondir_fid_mode, "MK04", FST_ALL_FS, "e7fce6d94cc1",
		     "FID modes: FAN_ONDIR needed and reported, for open/close and create/delete"),
	FST_CASE(mk05_open_exec, "MK05", FST_ALL_FS,
		 "execve: OPEN|OPEN_EXEC per mask; plain open: OPEN; refused execve: nothing"),
	FST_CASE(mk05_script_exec, "MK05", FST_ALL_FS,
		 "script execve: the script, then its interpreter, each OPEN|OPEN_EXEC"),
	FST_CASE(
	    mk06_flush_by_type, "MK06,MK10", FST_ALL_FS,
	    "FLUSH removes this group's inode marks; FLUSH|MOUNT, FLUSH|FILESYSTEM the others"),
	FST_CASE(mk06_dont_follow, "MK06,MK10", FST_ALL_FS,
		 "DONT_FOLLOW marks the symlink inode: its ATTRIB/DELETE_SELF, not the target's"),
	FST_CASE(mk06_onlydir, "MK06,MK10", FST_ONCE,
		 "FAN_MARK_ONLYDIR / IN_ONLYDIR fail with ENOTDIR on a file and add nothing"),
	FST_CASE(mk07_unmount, "MK07", FST_ONCE,
		 "last unmount: IN_UNMOUNT then IN_IGNORED per watch; a bind unmount: nothing"),
	FST_CASE(
	    mk07_rmdir_self, "MK07", FST_ALL_FS,
	    "rmdir: DELETE_SELF then IGNORED on the dir's watch, IN_DELETE|IN_ISDIR on parent"),
	FST_CASE(mk07_unlink_self, "MK07", FST_ALL_FS,
		 "unlink: ATTRIB, DELETE_SELF, IGNORED; hard links and open files defer the end"),
	FST_CASE_GIT(
	    mk07_oneshot, "MK07,MK10", FST_ALL_FS, "a32e697cda27",
	    "IN_ONESHOT: the first matching event, then IGNORED; non-matching ones do not count"),
	FST_CASE(
	    mk07_excl_unlink, "MK07", FST_ALL_FS,
	    "IN_EXCL_UNLINK: no events from an unlinked open file; plain watches still get them"),
	FST_CASE(mk08_inotify_cookies, "MK08", FST_ALL_FS,
		 "MOVED_FROM/MOVED_TO share one non-zero cookie, distinct per rename"),
	FST_CASE_GIT(
	    mk08_fan_rename_records, "MK08", FST_ALL_FS, "8cc3b1ccd930",
	    "FAN_RENAME: old/new DFID_NAME records per matching dir mark, both for sb marks"),
	FST_CASE_GIT(
	    mk09_inotify_names_settled, "MK09", FST_ALL_FS, "a37d9a17f099",
	    "inotify: a read CREATE/MOVED_TO name opens, a DELETE/MOVED_FROM name is ENOENT"),
	FST_CASE_GIT(mk09_fanotify_names_settled, "MK09", FST_ALL_FS, "a37d9a17f099",
		     "fanotify DFID_NAME: the same, with the child's pid"),
	FST_CASE(mk10_fdinfo_fanotify, "MK10", FST_ALL_FS,
		 "fdinfo: inode/mount/sb marks' mflags, mask, ignored mask through updates"),
	FST_CASE_GIT(mk10_fdinfo_inotify, "MK10", FST_ALL_FS, "a32e697cda27",
		     "fdinfo: inotify watches' masks through replace, IN_MASK_ADD and removal"),
	{ 0 },
};
