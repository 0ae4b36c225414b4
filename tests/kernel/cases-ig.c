/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-ig.c — fsn-selftest cases of the IG group: ignore masks
 * (IG01-IG08 in semantics.md).
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
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "selftest.h"

/* ------------------------------------------------------------------------ */
/* Local helpers                                                            */
/* ------------------------------------------------------------------------ */

static void wr(struct fst_ctx *ctx, int fd) {
	FST_SYS(ctx, write(fd, "x", 1));
}

static void rd(struct fst_ctx *ctx, int fd) {
	char b;

	FST_SYS(ctx, pread(fd, &b, 1, 0));
}

static void open_close(struct fst_ctx *ctx, const char *path, int flags) {
	fst_close(ctx, fst_open(ctx, path, flags));
}

static void open_close_dir(struct fst_ctx *ctx, const char *path) {
	open_close(ctx, path, O_RDONLY | O_DIRECTORY);
}

/* One inode mark line of /proc/self/fdinfo/<g>. */
struct mark_info {
	bool found;
	unsigned mflags, mask, ignored;
};

/*
 * Look up the inode mark of group g on inode number ino in the group's
 * fdinfo ("fanotify ino:%lx sdev:%x mflags:%x mask:%x ignored_mask:%x").
 * Only the inode number is compared (btrfs reports another st_dev than
 * the superblock's s_dev); the callers' groups mark one filesystem only.
 * Reading fdinfo does not look the inode up, so it can tell whether an
 * evictable mark is gone without bringing its inode back.
 */
static struct mark_info inode_mark_info(struct fst_ctx *ctx, int g, ino_t ino) {
	struct mark_info mi = { 0 };
	char p[64], line[512];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", g);
	f = fopen(p, "re");
	if (!f)
		fst_fail(ctx, "open %s: %s", p, fst_errname(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long i;
		unsigned dev, fl, m, ig;

		if (sscanf(line, "fanotify ino:%lx sdev:%x mflags:%x mask:%x ignored_mask:%x", &i,
			   &dev, &fl, &m, &ig) == 5 &&
		    (ino_t)i == ino) {
			mi.found = true;
			mi.mflags = fl;
			mi.mask = m;
			mi.ignored = ig;
		}
	}
	fclose(f);
	return mi;
}

static ino_t ino_of(struct fst_ctx *ctx, const char *path) {
	struct stat st;

	FST_SYS(ctx, fstatat(ctx->workfd, path, &st, 0));
	return st.st_ino;
}

/* Assert the inode mark of g on path: its user flags, mask and ignore mask. */
#define EXPECT_MARK(ctx, g, path, fl, m, ig)                                                       \
	expect_mark(ctx, g, path, fl, m, ig, __FILE__, __LINE__)
static void expect_mark(struct fst_ctx *ctx, int g, const char *path, unsigned fl, unsigned m,
			unsigned ig, const char *file, int line) {
	struct mark_info mi = inode_mark_info(ctx, g, ino_of(ctx, path));

	if (!mi.found)
		fst_fail_(ctx, file, line, "no inode mark of the group on %s in fdinfo", path);
	if (mi.mflags != fl || mi.mask != m || mi.ignored != ig)
		fst_fail_(ctx, file, line,
			  "mark on %s: mflags 0x%x mask 0x%x ignored_mask 0x%x, expected mflags "
			  "0x%x mask 0x%x ignored_mask 0x%x",
			  path, mi.mflags, mi.mask, mi.ignored, fl, m, ig);
}

#define EXPECT_NO_MARK(ctx, g, path) expect_no_mark(ctx, g, path, __FILE__, __LINE__)
static void expect_no_mark(struct fst_ctx *ctx, int g, const char *path, const char *file,
			   int line) {
	struct mark_info mi = inode_mark_info(ctx, g, ino_of(ctx, path));

	if (mi.found)
		fst_fail_(ctx, file, line,
			  "the group still has a mark on %s (mflags 0x%x mask 0x%x ignored_mask "
			  "0x%x)",
			  path, mi.mflags, mi.mask, mi.ignored);
}

/* Expect fanotify_mark() to fail with exactly err (a positive errno). */
#define MARK_ERR(ctx, g, flags, mask, path, err)                                                   \
	mark_err(ctx, g, flags, mask, path, err, #flags, __FILE__, __LINE__)
static void mark_err(struct fst_ctx *ctx, int g, unsigned flags, uint64_t mask, const char *path,
		     int err, const char *what, const char *file, int line) {
	int r = fst_mark_err(ctx, g, flags, mask, path);

	if (r != -err)
		fst_fail_(ctx, file, line, "fanotify_mark(%s, %s, %s) returned %s, expected %s",
			  what, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, mask), path ? path : ".",
			  r == 0 ? "success" : fst_errname(-r), fst_errname(err));
}

/*
 * The child c asks each group in gs[] (classes prio[]) exactly once for a
 * permission event mask on path: answer every one with FAN_ALLOW, in the
 * order the kernel asks (a lower class only after every higher one was
 * answered), then the child completes and nothing else is queued.
 */
#define MAX_GROUPS 8
static void answer_each(struct fst_ctx *ctx, const int *gs, const int *prio, size_t n,
			struct fst_child *c, uint64_t mask, const char *path) {
	bool done[MAX_GROUPS] = { false };

	ck_assert_uint_le(n, MAX_GROUPS);
	for (size_t k = 0; k < n; k++) {
		struct pollfd p[MAX_GROUPS];
		size_t i;
		int r;

		for (i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = gs[i], .events = POLLIN };
		do
			r = poll(p, n, FST_WAIT_MS);
		while (r < 0 && errno == EINTR);
		if (r <= 0)
			fst_fail(ctx,
				 "child %s: %zu of %zu groups asked, then nothing within %d ms",
				 c->what, k, n, FST_WAIT_MS);
		for (i = 0; i < n && !(p[i].revents & POLLIN); i++)
			;
		if (i == n)
			fst_fail(ctx, "poll on the permission groups: no POLLIN (revents 0x%x)",
				 p[0].revents);
		if (done[i])
			FST_EXPECT_NONE(ctx, gs[i]); /* asked twice: fails, listing the event */
		for (size_t j = 0; j < n; j++)
			if (!done[j] && prio[j] > prio[i])
				fst_fail(ctx,
					 "group %zu (class %d) asked before group %zu (class %d)",
					 i, prio[i], j, prio[j]);
		{
			struct fst_events *e =
			    FST_EXPECT(ctx, gs[i], { .mask = mask, .path = path, .pid = c->pid });

			fst_child_blocked(ctx, c);
			fst_respond(ctx, gs[i], &e->e[0], FAN_ALLOW);
		}
		done[i] = true;
	}
	fst_child_expect(ctx, c, 0);
	for (size_t i = 0; i < n; i++)
		FST_EXPECT_NONE(ctx, gs[i]);
}

/* Copy /bin/true (or another small executable) to path, mode 0755. */
static void copy_executable(struct fst_ctx *ctx, const char *path) {
	static const char *const srcs[] = { "/bin/true", "/usr/bin/true", "/bin/sh" };
	char buf[65536];
	int in = -1, out;
	ssize_t n;

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]) && in < 0; i++)
		in = open(srcs[i], O_RDONLY | O_CLOEXEC);
	if (in < 0)
		fst_skip(ctx, "no executable to copy (/bin/true): %s", fst_errname(errno));
	out =
	    FST_SYS(ctx, openat(ctx->workfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755));
	while ((n = FST_SYS(ctx, read(in, buf, sizeof(buf)))) > 0)
		if (write(out, buf, (size_t)n) != n)
			fst_fail(ctx, "copy to %s: %s", path, fst_errname(errno));
	close(in);
	fst_close(ctx, out);
}

/* ------------------------------------------------------------------------ */
/* IG01: legacy vs new-style ignore masks, SURV_MODIFY                      */
/* ------------------------------------------------------------------------ */

/* A write clears a legacy and a new-style ignore mask (both without
 * SURV_MODIFY), but only the one on the written inode. */
static void ig01_cleared_by_modify(struct fst_ctx *ctx) {
	int g, fa, fb;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "b");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "b");

	open_close(ctx, "a", O_RDONLY);
	open_close(ctx, "b", O_RDONLY);
	fa = fst_open(ctx, "a", O_WRONLY);
	fb = fst_open(ctx, "b", O_WRONLY);
	FST_EXPECT_NONE(ctx, g);

	/* the write to a clears a's ignore mask only */
	wr(ctx, fa);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	open_close(ctx, "b", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* the new-style ignore mask without SURV_MODIFY is cleared too */
	wr(ctx, fb);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fa);
	fst_close(ctx, fb);
	FST_EXPECT_NONE(ctx, g);
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
	wr(ctx, fd);
	FST_EXPECT_NONE(ctx, gi);
	FST_EXPECT_NONE(ctx, gm);
	FST_EXPECT_NONE(ctx, gs);

	open_close(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, gi, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT(ctx, gm, FST_FAN(FAN_OPEN, "a"));
	FST_EXPECT_NONE(ctx, gs);
	fst_close(ctx, fd);
}

/* SURV_MODIFY keeps both styles through writes; removing ignore bits brings
 * exactly those events back. */
static void ig01_surv_modify_and_remove(struct fst_ctx *ctx) {
	const uint64_t ign = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "b");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY, ign,
		 "a");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, ign, "b");

	for (int i = 0; i < 2; i++) {
		const char *p = i ? "b" : "a";

		fd = fst_open(ctx, p, O_RDWR);
		wr(ctx, fd);
		wr(ctx, fd);
		fst_close(ctx, fd);
		open_close(ctx, p, O_RDONLY);
		FST_EXPECT_NONE(ctx, g);
	}

	/* remove only OPEN from the ignore masks: CLOSE_NOWRITE stays ignored */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN, "b");
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	fd = fst_open(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);

	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "a");
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE, "b");
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "a"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));
	fd = fst_open(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "b"));
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
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a",
		 EINVAL);
	/* new style on a directory, a mount, a filesystem needs SURV_MODIFY */
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "d", EISDIR);
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE, FAN_OPEN, ".", EINVAL);
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_IGNORE, FAN_OPEN, ".",
		 EINVAL);
	/* new style keeps event flags, which a file cannot have */
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN | FAN_ONDIR, "c", ENOTDIR);
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN | FAN_EVENT_ON_CHILD, "c",
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
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_CLOSE_NOWRITE, "a", EEXIST);
	/* b: SURV_MODIFY cannot be dropped by a new-style update */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, "b");
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE, "b", EEXIST);
	EXPECT_MARK(ctx, g, "b", FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, 0, FAN_OPEN);
	/* e: legacy, then new style is an upgrade; then legacy is refused */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "e");
	EXPECT_MARK(ctx, g, "e", 0, 0, FAN_OPEN);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE, "e");
	EXPECT_MARK(ctx, g, "e", FAN_MARK_IGNORE, 0, FAN_OPEN | FAN_CLOSE_NOWRITE);
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "e", EEXIST);

	/* the refused updates changed nothing: a, b, c, e are still ignored */
	open_close(ctx, "a", O_RDONLY);
	open_close(ctx, "b", O_RDONLY);
	open_close(ctx, "c", O_RDONLY);
	open_close(ctx, "e", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	/* control: the same group's filesystem mark sees another file */
	fst_write_file(ctx, "f", NULL);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "f"));
}

/* ------------------------------------------------------------------------ */
/* IG02: an inode ignore mask vs the same group's mount and sb marks         */
/* ------------------------------------------------------------------------ */

static void ig02_inode_ignore_mount_sb(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int gm, gs, go, gi, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "a", "aaaa");
	fst_write_file(ctx, "b", "bbbb");

	/* gm: a mount mark and a new-style ignore-only inode mark on a */
	gm = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_MOUNT, m, ".");
	fst_mark(ctx, gm, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "a");
	/* gs: an sb mark, and an inode mark on a with the same events and a
	 * legacy ignore mask in the same mark */
	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, gs, FAN_MARK_ADD, m, "a");
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN, "a");
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

static void ig03_mount_ignore_bind(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	const char *b;
	char bf[256];
	int g, h, k, fd;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "data");
	b = fst_bind(ctx, "d", "b");
	snprintf(bf, sizeof(bf), "%s/f", b);

	/* g: sb mark, inode mark, ignore OPEN on the bind mount B */
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "d/f");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT | FAN_MARK_IGNORE_SURV, FAN_OPEN, b);
	/* h: another group, no ignore */
	h = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, h, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	/* k: an sb ignore mask: through every mount */
	k = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, k, FAN_MARK_ADD, m, "d/f");
	fst_mark(ctx, k, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, b);
	fst_mark(ctx, k, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_IGNORE_SURV, FAN_OPEN, ".");

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
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_MOUNT | FAN_MARK_IGNORE, FAN_OPEN, b);
	fd = fst_open(ctx, bf, O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, h, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, k);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
	FST_EXPECT_NONE(ctx, h);
	FST_EXPECT(ctx, k, FST_FAN(FAN_CLOSE_NOWRITE, "d/f"));
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

	open_close(ctx, bf, O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));

	/* a write through the original mount leaves B's ignore mask alone */
	fd = fst_open(ctx, "d/f", O_WRONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/f"));
	wr(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, bf, O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* a write through B clears it */
	fd = fst_open(ctx, bf, O_WRONLY);
	FST_EXPECT_NONE(ctx, g);
	wr(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, bf, O_RDONLY);
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
			open_close(ctx, ops[o].path, O_RDONLY);
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

	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, l1);
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT_NONE(ctx, l1);
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, l0);
	FST_EXPECT_NONE(ctx, l1);
	open_close(ctx, "d/s/f", O_RDONLY);
	FST_EXPECT(ctx, l0, FST_FAN(FAN_OPEN, "d/s/f"));
	FST_EXPECT(ctx, l1, FST_FAN(FAN_OPEN, "d/s/f"));

	/* swap EVENT_ON_CHILD between the two marks */
	fst_mark(ctx, l0, FAN_MARK_ADD, FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, l1, FAN_MARK_REMOVE, FAN_EVENT_ON_CHILD, "d");
	open_close(ctx, "d/f", O_RDONLY);
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
 * without effect (the check is per mark, not per inode). */
static void ig04_other_group_on_child(struct fst_ctx *ctx) {
	int a1, a2, b;

	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	make_tree(ctx);
	a1 = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* new style, no EVENT_ON_CHILD */
	fst_mark(ctx, a1, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, a1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, "d");
	a2 = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* legacy, mark without EVENT_ON_CHILD */
	fst_mark(ctx, a2, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_ONDIR, ".");
	fst_mark(ctx, a2, FAN_MARK_ADD, FAN_CLOSE_WRITE, "d");
	fst_mark(ctx, a2, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "d");
	b = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, b, FAN_MARK_ADD, FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD, "d");

	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, a1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, a1, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT_NONE(ctx, a2);
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d"));

	/* control: with EVENT_ON_CHILD added, a1's ignore applies to children */
	fst_mark(ctx, a1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, b, FST_FAN(FAN_OPEN, "d/s"));
	/* and b going away does not change what a1 and a2 ignore */
	fst_close(ctx, b);
	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, a1);
	FST_EXPECT(ctx, a2, FST_FAN(FAN_OPEN, "d/f"));
}

/* One mark on d that watches OPEN of d and its children (files and
 * subdirectories) and has an ignore mask in the same mark: the ignore
 * applies to each kind of event exactly as its flags (new style) or the
 * legacy rules say. */
static void ig04_watching_parent_own_ignore(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_ONDIR | FAN_EVENT_ON_CHILD;
	int n1, n2, l;

	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	make_tree(ctx);
	n1 = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* ignores d itself only */
	fst_mark(ctx, n1, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, n1, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_ONDIR, "d");
	n2 = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* ignores non-dir children only */
	fst_mark(ctx, n2, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, n2, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	l = fst_fan_init(ctx, FAN_CLASS_NOTIF); /* legacy: everything */
	fst_mark(ctx, l, FAN_MARK_ADD, m, "d");
	fst_mark(ctx, l, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY,
		 FAN_OPEN, "d");

	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT_NONE(ctx, n2);
	FST_EXPECT_NONE(ctx, l);
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT_NONE(ctx, l);
	open_close_dir(ctx, "d");
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT_NONE(ctx, l);
	/* control: a grandchild is nobody's child here */
	open_close(ctx, "d/s/f", O_RDONLY);
	FST_EXPECT_NONE(ctx, n1);
	FST_EXPECT_NONE(ctx, n2);
	FST_EXPECT_NONE(ctx, l);
	/* control: without the ignore masks each group gets all three */
	fst_mark(ctx, n1, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN | FAN_ONDIR, "d");
	fst_mark(ctx, n2, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, l, FAN_MARK_REMOVE | FAN_MARK_IGNORED_MASK, FAN_OPEN, "d");
	open_close(ctx, "d/f", O_RDONLY);
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d/f"));
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN, "d/f"));
	open_close_dir(ctx, "d/s");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d/s"));
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN, "d/s"));
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, n1, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT(ctx, n2, FST_FAN(FAN_OPEN, "d"));
	FST_EXPECT(ctx, l, FST_FAN(FAN_OPEN, "d"));
}

/* The child is open (dentry cached) before an ignore-only parent mark with
 * EVENT_ON_CHILD is added: the ignore applies at once; removing the mark
 * restores the events; several cycles, alternating the two styles. */
static void ig04_cached_child_cycles(struct fst_ctx *ctx) {
	int g, fd;

	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "0123456789");
	fd = fst_open(ctx, "d/c", O_RDWR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_ACCESS | FAN_MODIFY, ".");

	for (int i = 0; i < 4; i++) {
		bool legacy = i % 2;

		rd(ctx, fd);
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
		rd(ctx, fd);
		FST_EXPECT_NONE(ctx, g);
		wr(ctx, fd);
		FST_EXPECT(ctx, g, FST_FAN(FAN_MODIFY, "d/c"));
		rd(ctx, fd);
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
	rd(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_ACCESS, "d/c"));
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
	open_close(ctx, "d/c", O_RDONLY);
	open_close(ctx, "e/c", O_RDONLY);
	open_close_dir(ctx, "d");
	open_close_dir(ctx, "e");
	FST_EXPECT_NONE(ctx, g);

	wr(ctx, fd);
	wr(ctx, fe);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, "d/c", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
	open_close(ctx, "e/c", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	/* the directory's own opens: d's ignore mask is gone, e's is not */
	open_close_dir(ctx, "d");
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d"));
	open_close_dir(ctx, "e");
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, fd);
	fst_close(ctx, fe);
}

/* ------------------------------------------------------------------------ */
/* IG05: ignore masks in every priority class                               */
/* ------------------------------------------------------------------------ */

static const unsigned classes[3] = { FAN_CLASS_NOTIF, FAN_CLASS_CONTENT, FAN_CLASS_PRE_CONTENT };

static void ig05_notif_events_each_class(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int ig[3], n[3], fd;

	fst_require(ctx, FSN_FEAT_CLASS_CONTENT);
	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	for (int c = 0; c < 3; c++) {
		ig[c] = fst_fan_init(ctx, classes[c]);
		fst_mark(ctx, ig[c], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
		fst_mark(ctx, ig[c],
			 FAN_MARK_ADD | (c == 1 ? FAN_MARK_IGNORED_MASK : FAN_MARK_IGNORE),
			 FAN_OPEN, "a");
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

/* Permission events: a CONTENT and a PRE_CONTENT group ignoring OPEN_PERM
 * on a are not asked (the open does not wait for them); the groups that do
 * not ignore are asked exactly once, in class order. */
static void ig05_perm_ignore_each_class(struct fst_ctx *ctx) {
	int gs[4], prio[4] = { 1, 2, 1, 2 };
	int ic, ip;

	fst_require(ctx, FSN_FEAT_CLASS_PRE_CONTENT);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	ic = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, ic, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	fst_mark(ctx, ic, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN_PERM, "a");
	ip = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, ip, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	fst_mark(ctx, ip, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN_PERM, "a");

	/* only ignoring groups: the open of a is not blocked at all */
	fst_child_expect(ctx, fst_spawn_open(ctx, "a", O_RDONLY), 0);
	FST_EXPECT_NONE(ctx, ic);
	FST_EXPECT_NONE(ctx, ip);

	gs[0] = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	fst_mark(ctx, gs[0], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	gs[1] = fst_fan_init(ctx, FAN_CLASS_PRE_CONTENT);
	fst_mark(ctx, gs[1], FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, ".");
	answer_each(ctx, gs, prio, 2, fst_spawn_open(ctx, "a", O_RDONLY), FAN_OPEN_PERM, "a");
	FST_EXPECT_NONE(ctx, ic);
	FST_EXPECT_NONE(ctx, ip);

	/* control: all four are asked for b */
	gs[2] = ic;
	gs[3] = ip;
	answer_each(ctx, gs, prio, 4, fst_spawn_open(ctx, "b", O_RDONLY), FAN_OPEN_PERM, "b");
}

/* Pre-content events: FAN_PRE_ACCESS ignored on a for one group only. */
static void ig05_pre_access_ignore(struct fst_ctx *ctx) {
	int gs[2], prio[2] = { 2, 2 };
	int ip;

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
	answer_each(ctx, gs, prio, 1, fst_spawn_read(ctx, "a"), FAN_PRE_ACCESS, "a");
	FST_EXPECT_NONE(ctx, ip);

	gs[1] = ip;
	answer_each(ctx, gs, prio, 2, fst_spawn_read(ctx, "b"), FAN_PRE_ACCESS, "b");

	/* the legacy style too */
	fst_mark(ctx, gs[0], FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_PRE_ACCESS, "b");
	answer_each(ctx, gs + 1, prio, 1, fst_spawn_read(ctx, "b"), FAN_PRE_ACCESS, "b");
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
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, FAN_CLOSE_NOWRITE,
		 "a", EEXIST);
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE, FAN_ACCESS, "a", EEXIST);
	EXPECT_MARK(ctx, g, "a", FAN_MARK_IGNORE, 0, FAN_OPEN);
	fd = fst_open(ctx, "a", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "a"));

	/* b: a normal mark first; an evictable ignore update is refused and
	 * adds no ignore mask */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_ACCESS, "b");
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE, FAN_OPEN, "b",
		 EEXIST);
	EXPECT_MARK(ctx, g, "b", 0, FAN_ACCESS, 0);
	fd = fst_open(ctx, "b", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "b"));
	fst_close(ctx, fd);
	FST_EXPECT(ctx, g, FST_FAN(FAN_CLOSE_NOWRITE, "b"));
	/* only inode marks can be evictable */
	MARK_ERR(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_EVICTABLE, FAN_ACCESS, ".",
		 EINVAL);

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
	open_close(ctx, "a", O_RDONLY);
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
 */
static void ig06_evictable_evicted(struct fst_ctx *ctx) {
	const unsigned fl = FAN_MARK_EVICTABLE | FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY;
	const bool tmpfs = strcmp(ctx->fs, "tmpfs") == 0;
	ino_t ino_e, ino_d;
	bool have_e = true, have_d = true;
	int g, pfd, tries;

	fst_require(ctx, FSN_FEAT_MARK_EVICTABLE);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "e", NULL);
	fst_write_file(ctx, "u", NULL);
	fst_write_file(ctx, "p", NULL);
	fst_write_file(ctx, "x", NULL);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", NULL);
	ino_e = ino_of(ctx, "e");
	ino_d = ino_of(ctx, "d");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE_SURV, FAN_OPEN, "e");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE_SURV,
		 FAN_OPEN | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE_SURV, FAN_OPEN, "u");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_OPEN, "u");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_EVICTABLE | FAN_MARK_IGNORE_SURV, FAN_OPEN, "p");
	pfd = fst_open(ctx, "p", O_RDONLY);
	open_close(ctx, "e", O_RDONLY);
	open_close(ctx, "d/c", O_RDONLY);
	open_close(ctx, "u", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);
	open_close(ctx, "x", O_RDONLY);
	FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "x"));

	FST_SYS(ctx, syncfs(ctx->workfd)); /* clean inodes can be evicted */
	for (tries = 1; tries <= (tmpfs ? 1 : EVICT_TRIES) && (have_e || have_d); tries++) {
		drop_caches(ctx);
		/* fdinfo does not look the inodes up again */
		have_e = inode_mark_info(ctx, g, ino_e).found;
		have_d = inode_mark_info(ctx, g, ino_d).found;
	}
	fst_log(ctx, "%s: after %d drop_caches: e %s, d %s", ctx->fs, tries - 1,
		have_e ? "cached" : "evicted", have_d ? "cached" : "evicted");
	if (!tmpfs && (have_e || have_d))
		fst_fail(ctx,
			 "%s: inode of %s not evicted after %d drop_caches although only an "
			 "evictable mark refers to it",
			 ctx->fs, have_e ? "e" : "d", EVICT_TRIES);

	/* pinned inodes keep their marks, and the marks keep applying */
	EXPECT_MARK(ctx, g, "u", FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY, 0, FAN_OPEN);
	EXPECT_MARK(ctx, g, "p", fl, 0, FAN_OPEN);
	open_close(ctx, "u", O_RDONLY);
	open_close(ctx, "p", O_RDONLY);
	FST_EXPECT_NONE(ctx, g);

	/* an ignore mask applies exactly as long as its mark exists */
	open_close(ctx, "e", O_RDONLY);
	if (have_e) {
		FST_EXPECT_NONE(ctx, g);
		EXPECT_MARK(ctx, g, "e", fl, 0, FAN_OPEN);
	} else {
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "e"));
		EXPECT_NO_MARK(ctx, g, "e");
	}
	open_close(ctx, "d/c", O_RDONLY);
	if (have_d) {
		FST_EXPECT_NONE(ctx, g);
		EXPECT_MARK(ctx, g, "d", fl, 0, FAN_OPEN | FAN_EVENT_ON_CHILD);
	} else {
		FST_EXPECT(ctx, g, FST_FAN(FAN_OPEN, "d/c"));
		EXPECT_NO_MARK(ctx, g, "d");
	}
	fst_close(ctx, pfd);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* IG07: OPEN vs OPEN_EXEC                                                  */
/* ------------------------------------------------------------------------ */

static void ig07_open_vs_open_exec(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_OPEN_EXEC;
	struct fst_child *c;
	int g1, g2, g3;

	fst_require(ctx, FSN_FEAT_EVENT_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	copy_executable(ctx, "prog");
	/* g1: inode mark, ignores OPEN; g2: sb mark, ignores OPEN_EXEC;
	 * g3: sb mark, no ignore */
	g1 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g1, FAN_MARK_ADD, m, "prog");
	fst_mark(ctx, g1, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN, "prog");
	g2 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g2, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");
	fst_mark(ctx, g2, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN_EXEC, "prog");
	g3 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g3, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, m, ".");

	c = fst_spawn_exec(ctx, "./prog");
	fst_child_expect(ctx, c, 0);
	FST_EXPECT(ctx, g1, { .mask = FAN_OPEN_EXEC, .path = "prog", .pid = c->pid });
	FST_EXPECT(ctx, g2, { .mask = FAN_OPEN, .path = "prog", .pid = c->pid });
	FST_EXPECT(ctx, g3, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "prog", .pid = c->pid });

	open_close(ctx, "prog", O_RDONLY);
	FST_EXPECT_NONE(ctx, g1);
	FST_EXPECT(ctx, g2, FST_FAN(FAN_OPEN, "prog"));
	FST_EXPECT(ctx, g3, FST_FAN(FAN_OPEN, "prog"));

	/* ignoring both: nothing from the exec for g1 */
	fst_mark(ctx, g1, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN_EXEC, "prog");
	c = fst_spawn_exec(ctx, "./prog");
	fst_child_expect(ctx, c, 0);
	FST_EXPECT_NONE(ctx, g1);
	FST_EXPECT(ctx, g2, { .mask = FAN_OPEN, .path = "prog", .pid = c->pid });
	FST_EXPECT(ctx, g3, { .mask = FAN_OPEN | FAN_OPEN_EXEC, .path = "prog", .pid = c->pid });
}

static void ig07_open_perm_vs_exec_perm(struct fst_ctx *ctx) {
	int gs[1], prio[1] = { 1 };
	struct fst_child *c;
	struct fst_events *e;
	int g;

	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_require(ctx, FSN_FEAT_PERM_OPEN_EXEC);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	copy_executable(ctx, "prog");
	g = fst_fan_init(ctx, FAN_CLASS_CONTENT);
	gs[0] = g;
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM,
		 ".");

	/* control, no ignore: OPEN_EXEC_PERM, then OPEN_PERM */
	c = fst_spawn_exec(ctx, "./prog");
	fst_wait_readable(ctx, g, FST_WAIT_MS);
	e = FST_EXPECT(ctx, g, { .mask = FAN_OPEN_EXEC_PERM, .path = "prog", .pid = c->pid });
	fst_child_blocked(ctx, c);
	fst_respond(ctx, g, &e->e[0], FAN_ALLOW);
	answer_each(ctx, gs, prio, 1, c, FAN_OPEN_PERM, "prog");

	/* ignore OPEN_PERM: the exec still asks OPEN_EXEC_PERM */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN_PERM, "prog");
	answer_each(ctx, gs, prio, 1, fst_spawn_exec(ctx, "./prog"), FAN_OPEN_EXEC_PERM, "prog");
	fst_child_expect(ctx, fst_spawn_open(ctx, "prog", O_RDONLY), 0);
	FST_EXPECT_NONE(ctx, g);

	/* ignore OPEN_EXEC_PERM instead: the exec still asks OPEN_PERM */
	fst_mark(ctx, g, FAN_MARK_REMOVE | FAN_MARK_IGNORE, FAN_OPEN_PERM, "prog");
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN_EXEC_PERM, "prog");
	answer_each(ctx, gs, prio, 1, fst_spawn_exec(ctx, "./prog"), FAN_OPEN_PERM, "prog");
	answer_each(ctx, gs, prio, 1, fst_spawn_open(ctx, "prog", O_RDONLY), FAN_OPEN_PERM, "prog");

	/* both: the exec is not blocked at all */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE, FAN_OPEN_PERM, "prog");
	fst_child_expect(ctx, fst_spawn_exec(ctx, "./prog"), 0);
	FST_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* IG08: FAN_RENAME ignored on an intermediate directory                    */
/* ------------------------------------------------------------------------ */

static bool fid_eq(const struct fsn_fid *a, const struct fsn_fid *b) {
	return a->fsid[0] == b->fsid[0] && a->fsid[1] == b->fsid[1] &&
	       a->handle_type == b->handle_type && a->handle_bytes == b->handle_bytes &&
	       memcmp(a->f_handle, b->f_handle, a->handle_bytes) == 0;
}

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
	struct fst_exp x[3] = {
		{ .mask = FAN_RENAME | dir },
		{ .mask = FAN_MOVED_FROM | dir, .dir = od, .name = on },
		{ .mask = FAN_MOVED_TO | dir, .dir = nd, .name = nn },
	};
	struct fst_events *ev = fst_read_(ctx, g, false, file, line);
	const struct fsn_event *r;
	struct fst_obj o, n;

	fst_match_(ctx, g, ev, rename ? x : x + 1, rename ? 3 : 2, "rename group", file, line);
	if (!rename)
		return;
	r = &ev->e[0].ev;
	o = fst_obj_(ctx, od, file, line);
	n = fst_obj_(ctx, nd, file, line);
	if (!(r->has & FSN_HAS_OLD) || !(r->has & FSN_HAS_NEW))
		fst_fail_(ctx, file, line, "FAN_RENAME without old and new records (has 0x%x)",
			  r->has);
	if (!fid_eq(&r->old_dfid, &o.fid) || strcmp(r->old_name ? r->old_name : "", on) != 0)
		fst_fail_(ctx, file, line, "FAN_RENAME old record is not %s/%s (name \"%s\")", od,
			  on, r->old_name ? r->old_name : "");
	if (!fid_eq(&r->new_dfid, &n.fid) || strcmp(r->new_name ? r->new_name : "", nn) != 0)
		fst_fail_(ctx, file, line, "FAN_RENAME new record is not %s/%s (name \"%s\")", nd,
			  nn, r->new_name ? r->new_name : "");
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
 * FAN_RENAME; the legacy one hides it anyway. */
static void ig08_rename_ignore_dir_ondir(struct fst_ctx *ctx) {
	int g, l, h;

	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	fst_require(ctx, FSN_FEAT_MARK_IGNORE);
	FST_SYS(ctx, mkdir("src", 0755));
	FST_SYS(ctx, mkdir("dst", 0755));
	FST_SYS(ctx, mkdir("src/sub", 0755));
	fst_write_file(ctx, "src/f", NULL);
	g = rename_group(ctx);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME, "src");
	l = rename_group(ctx);
	fst_mark(ctx, l, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_RENAME, "src");
	h = rename_group(ctx);

	FST_SYS(ctx, rename("src/sub", "dst/sub"));
	EXPECT_MOVE(ctx, g, true, true, "src", "sub", "dst", "sub");
	EXPECT_MOVE(ctx, l, false, true, "src", "sub", "dst", "sub");
	EXPECT_MOVE(ctx, h, true, true, "src", "sub", "dst", "sub");
	FST_SYS(ctx, rename("src/f", "dst/f"));
	EXPECT_MOVE(ctx, g, false, false, "src", "f", "dst", "f");
	EXPECT_MOVE(ctx, l, false, false, "src", "f", "dst", "f");
	EXPECT_MOVE(ctx, h, true, false, "src", "f", "dst", "f");

	/* with FAN_ONDIR; src is now the new directory */
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV, FAN_RENAME | FAN_ONDIR, "src");
	FST_SYS(ctx, rename("dst/sub", "src/sub"));
	EXPECT_MOVE(ctx, g, false, true, "dst", "sub", "src", "sub");
	EXPECT_MOVE(ctx, l, false, true, "dst", "sub", "src", "sub");
	EXPECT_MOVE(ctx, h, true, true, "dst", "sub", "src", "sub");
	/* control: a directory renamed within dst */
	FST_SYS(ctx, mkdir("dst/a", 0755));
	FST_SYS(ctx, rename("dst/a", "dst/b"));
	EXPECT_MOVE(ctx, g, true, true, "dst", "a", "dst", "b");
	EXPECT_MOVE(ctx, l, true, true, "dst", "a", "dst", "b");
	EXPECT_MOVE(ctx, h, true, true, "dst", "a", "dst", "b");
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_ig[] = {
	FST_CASE(ig01_cleared_by_modify, "IG01", FST_ALL_FS,
		 "a write clears the legacy and the new-style ignore mask of that inode only"),
	FST_CASE(ig01_modify_clears_each_group, "IG01,IG02", FST_ALL_FS,
		 "one write clears the ignore masks of an inode-mark and a mount-mark group"),
	FST_CASE(ig01_surv_modify_and_remove, "IG01", FST_ALL_FS,
		 "SURV_MODIFY keeps both styles; removing ignore bits brings just them back"),
	FST_CASE(ig01_style_rules, "IG01", FST_ONCE,
		 "legacy/new-style update rules (EEXIST, EISDIR, ENOTDIR, EINVAL); no side effect"),
	FST_CASE(
	    ig02_inode_ignore_mount_sb, "IG02", FST_ALL_FS,
	    "inode ignore hides the group's mount and sb mark events; other groups unaffected"),
	FST_CASE(ig02_dir_ignore_dirent_sb, "IG02,IG04", FST_ALL_FS,
		 "dir ignore hides CREATE from the group's sb mark; subdirs only with ONDIR"),
	FST_CASE(ig03_mount_ignore_bind, "IG03,IG02", FST_ALL_FS,
		 "mount ignore on bind mount B: hidden through B only; sb ignore: through both"),
	FST_CASE(ig03_legacy_mount_ignore_cleared, "IG03,IG01", FST_ALL_FS,
		 "a legacy mount ignore is cleared by a write through that mount only"),
	FST_CASE(ig04_parent_ignore_flags, "IG04", FST_ALL_FS,
		 "new-style parent ignore x {-, EVENT_ON_CHILD, ONDIR, both}: file, subdir, self"),
	FST_CASE(
	    ig04_legacy_parent_ignore, "IG04", FST_ALL_FS,
	    "legacy parent ignore: children only with EVENT_ON_CHILD in the mark, dirs always"),
	FST_CASE(ig04_other_group_on_child, "IG04", FST_ALL_FS,
		 "another group watching children does not make a non-child ignore apply"),
	FST_CASE(ig04_watching_parent_own_ignore, "IG04", FST_ALL_FS,
		 "parent mark watching children + ignore in the same mark: per-flag, per-style"),
	FST_CASE(ig04_cached_child_cycles, "IG04", FST_ALL_FS,
		 "ignore-only parent mark added/removed 4 times under an open child: exact"),
	FST_CASE(ig04_legacy_parent_cleared_by_child, "IG04,IG01", FST_ALL_FS,
		 "a child's write clears the legacy parent ignore mask; SURV_MODIFY keeps it"),
	FST_CASE(ig05_notif_events_each_class, "IG05", FST_ALL_FS,
		 "NOTIF, CONTENT, PRE_CONTENT groups: inode ignore hides OPEN; others get one"),
	FST_CASE(ig05_perm_ignore_each_class, "IG05", FST_ALL_FS,
		 "OPEN_PERM ignored by a CONTENT and a PRE_CONTENT group: not asked, not blocked"),
	FST_CASE(ig05_pre_access_ignore, "IG05", FST_ALL_FS,
		 "FAN_PRE_ACCESS ignored on one file by one group; the others are asked once"),
	FST_CASE(ig06_evictable_upgrade_downgrade, "IG06", FST_ONCE,
		 "evictable -> normal upgrade, downgrade EEXIST, empty mask destroys the mark"),
	FST_CASE(ig06_evictable_evicted, "IG06", FST_ALL_FS,
		 "drop_caches: an evicted inode's evictable ignore is gone; pinned ones stay"),
	FST_CASE(ig07_open_vs_open_exec, "IG07", FST_ALL_FS,
		 "ignoring OPEN leaves OPEN_EXEC of an exec, and the reverse"),
	FST_CASE(ig07_open_perm_vs_exec_perm, "IG07", FST_ALL_FS,
		 "ignoring OPEN_PERM leaves OPEN_EXEC_PERM of an exec, and the reverse"),
	FST_CASE(
	    ig08_rename_ignore_old_new_dir, "IG08", FST_ALL_FS,
	    "FAN_RENAME ignored on the old or new dir: MOVED_FROM/TO stay; not on grandparent"),
	FST_CASE(ig08_rename_ignore_dir_ondir, "IG08", FST_ALL_FS,
		 "a directory's FAN_RENAME: new-style ignore needs ONDIR, legacy hides it anyway"),
	{ 0 },
};
