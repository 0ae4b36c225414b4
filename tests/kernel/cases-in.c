/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-in.c — fsn-selftest cases of the IN group: inotify's control flags,
 * each with its exact effect (IN01 in semantics.md): IN_MASK_ADD adds and a
 * plain add replaces, IN_MASK_CREATE refuses an existing watch without
 * changing it and without leaking (an instance closed after many refusals
 * gives its slot back), IN_ONESHOT, IN_EXCL_UNLINK, IN_ONLYDIR,
 * IN_DONT_FOLLOW (inotify_user.c: inotify_add_watch(),
 * inotify_update_existing_watch(), inotify_handle_inode_event()); and the
 * flags of inotify_init1() (IN02): IN_CLOEXEC, IN_NONBLOCK; a reader asleep
 * in read() is woken by the event (IN03).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selftest.h"

/* IN_MASK_ADD ORs into the watch's mask; an add without it replaces. */
static void in01_mask_add_replace(struct fst_ctx *ctx) {
	int in, wd, fd;

	fst_write_file(ctx, "f", "f");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "f", IN_MODIFY);
	ck_assert_int_eq(fst_watch(ctx, in, "f", IN_CLOSE_WRITE | IN_MASK_ADD), wd);
	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL), FST_IN(IN_CLOSE_WRITE, wd, NULL));
	/* replaced: close_write only */
	ck_assert_int_eq(fst_watch(ctx, in, "f", IN_CLOSE_WRITE), wd);
	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_CLOSE_WRITE, wd, NULL));
}

struct refusals {
	const char *path;
	unsigned rounds, refusals;
	unsigned done;  /* rounds the child made (shared page) */
	unsigned limit; /* the instance limit it ran against */
	bool in_userns; /* that limit was its own user namespace's */
};

/* A user namespace's own inotify instance limit (user.max_inotify_instances):
 * small, so a few instances prove a closed instance gives its slot back
 * (closing one costs an SRCU grace period: slow in an emulated guest). */
#define NS_INSTANCES 4u
#define NS_MAX_INSTANCES "/proc/sys/user/max_inotify_instances"

/* As uid 65533 (no other inotify instance of its own): rounds instances,
 * each with a watch and refused IN_MASK_CREATE adds, closed in turn; in a
 * user namespace of its own with NS_INSTANCES as its limit where it can
 * make one, else against fs.inotify.max_user_instances (r->limit). 0, or
 * the errno that stopped it (EMFILE: a closed instance kept its slot;
 * EEXIST expected, anything else is reported). */
static int refusal_rounds(void *arg) {
	struct refusals *r = arg;

	if (setgroups(0, NULL) < 0 || setgid(65533) < 0 || setuid(65533) < 0)
		return errno;
	if (unshare(CLONE_NEWUSER) == 0 && fst_write_sysctl(NS_MAX_INSTANCES, NS_INSTANCES) == 0) {
		r->limit = NS_INSTANCES;
		r->in_userns = true;
	}
	r->rounds = r->limit + 8;
	for (unsigned i = 0; i < r->rounds; i++, r->done++) {
		int fd = inotify_init1(IN_CLOEXEC);

		if (fd < 0)
			return errno;
		if (inotify_add_watch(fd, r->path, IN_MODIFY) < 0) {
			int e = errno;

			close(fd);
			return e;
		}
		for (unsigned k = 0; k < r->refusals; k++)
			if (inotify_add_watch(fd, r->path, IN_MASK_CREATE | IN_OPEN) >= 0 ||
			    errno != EEXIST) {
				close(fd);
				return errno == EEXIST ? EPROTO : errno;
			}
		close(fd);
	}
	return 0;
}

/* IN_MASK_CREATE on a watched inode: EEXIST, and the watch keeps its mask;
 * refusals leak nothing: more instances than the instance limit, each
 * closed after refusals, all get made (the leak 62c9d2674b31 fixed kept
 * each refused watch's instance alive). */
static void in01_mask_create(struct fst_ctx *ctx) {
	struct refusals *r;
	struct fst_child *c;
	int in, wd, fd, n;

	fst_require(ctx, FSN_FEAT_INOTIFY_MASK_CREATE);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, chmod("f", 0644));
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "f", IN_MODIFY);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_MASK_CREATE | IN_OPEN), -EEXIST);
	fst_open_close(ctx, "f", O_RDONLY); /* (no IN_OPEN: the watch is unchanged) */
	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL));
	/* a new watch with IN_MASK_CREATE works */
	FST_SYS(ctx, mkdir("d", 0755));
	ck_assert_int_eq(fst_watch(ctx, in, "d", IN_MASK_CREATE | IN_OPEN), wd + 1);

	r = fst_shared(ctx, sizeof(*r));
	r->limit = (unsigned)fst_read_sysctl(ctx, "/proc/sys/fs/inotify/max_user_instances");
	r->refusals = 8;
	/* (the case's directories are root's alone: uid 65533 reaches the file
	 * through an fd it inherits) */
	fd = fst_open(ctx, "f", O_RDONLY);
	r->path = fst_strdupf(ctx, "/proc/self/fd/%d", fd);
	c = fst_spawn(ctx, "inotify instances after IN_MASK_CREATE refusals", refusal_rounds, r,
		      fd);
	n = fst_child_wait(ctx, c, 60000);
	if (n != 0)
		fst_fail(ctx,
			 "uid 65533, instance limit %u (%s): instance %u of %u, each closed after "
			 "%u refused IN_MASK_CREATE: %s (EMFILE: a closed instance kept its slot, "
			 "the refusals leaked it)",
			 r->limit,
			 r->in_userns ? "its user namespace's" : "fs.inotify.max_user_instances",
			 r->done + 1, r->rounds, r->refusals, fst_errname(-n));
	fst_close(ctx, fd);
}

/* IN_ONESHOT: one event, then IN_IGNORED, then nothing. */
static void in01_oneshot(struct fst_ctx *ctx) {
	int in, wd, fd;

	fst_write_file(ctx, "f", "f");
	in = fst_inotify(ctx);
	wd = fst_watch(ctx, in, "f", IN_MODIFY | IN_ONESHOT);
	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wd, NULL), FST_IN(IN_IGNORED, wd, NULL));
	fst_write1(ctx, fd);
	fst_close(ctx, fd);
	FST_EXPECT_NONE(ctx, in);
}

/* IN_EXCL_UNLINK: a directory watch reports nothing more of a child once it
 * is unlinked (the open fd still writes); without it, it does. */
static void in01_excl_unlink(struct fst_ctx *ctx) {
	int ix, ip, wx, wp, fd;

	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/c", "c");
	ix = fst_inotify(ctx);
	wx = fst_watch(ctx, ix, "d", IN_MODIFY | IN_DELETE | IN_EXCL_UNLINK);
	ip = fst_inotify(ctx);
	wp = fst_watch(ctx, ip, "d", IN_MODIFY | IN_DELETE);
	fd = fst_open(ctx, "d/c", O_WRONLY);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, ix, FST_IN(IN_MODIFY, wx, "c"));
	FST_EXPECT(ctx, ip, FST_IN(IN_MODIFY, wp, "c"));
	FST_SYS(ctx, unlink("d/c"));
	FST_EXPECT(ctx, ix, FST_IN(IN_DELETE, wx, "c"));
	FST_EXPECT(ctx, ip, FST_IN(IN_DELETE, wp, "c"));
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, ix);
	FST_EXPECT(ctx, ip, FST_IN(IN_MODIFY, wp, "c"));
	fst_close(ctx, fd);
}

/* IN_ONLYDIR: ENOTDIR on a file, a watch on a directory. IN_DONT_FOLLOW: the
 * symlink itself is watched (its own attribute change), not its target;
 * without it the watch is the target's. */
static void in01_onlydir_dont_follow(struct fst_ctx *ctx) {
	const struct timespec now[2] = { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_NOW } };
	int in, wl, wt, wd, fd;

	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, symlink("f", "l"));
	in = fst_inotify(ctx);
	ck_assert_int_eq(fst_watch_err(ctx, in, "f", IN_ONLYDIR | IN_OPEN), -ENOTDIR);
	wd = fst_watch(ctx, in, "d", IN_ONLYDIR | IN_OPEN);
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	FST_EXPECT(ctx, in, FST_IN(IN_OPEN | IN_ISDIR, wd, NULL));

	wl = fst_watch(ctx, in, "l", IN_DONT_FOLLOW | IN_MODIFY | IN_ATTRIB);
	fd = fst_open(ctx, "f", O_WRONLY);
	fst_write1(ctx, fd);
	FST_EXPECT_NONE(ctx, in); /* the target's write: not the link's */
	FST_SYS(ctx, utimensat(ctx->workfd, "l", now, AT_SYMLINK_NOFOLLOW));
	FST_EXPECT(ctx, in, FST_IN(IN_ATTRIB, wl, NULL));
	/* followed: the same watch as the target's */
	wt = fst_watch(ctx, in, "l", IN_MODIFY);
	ck_assert_int_eq(fst_watch(ctx, in, "f", IN_MODIFY), wt);
	ck_assert_int_ne(wt, wl);
	fst_write1(ctx, fd);
	FST_EXPECT(ctx, in, FST_IN(IN_MODIFY, wt, NULL));
	fst_close(ctx, fd);
}

/*
 * IN02 (LTP inotify_init1_01, inotify_init1_02): IN_CLOEXEC sets FD_CLOEXEC
 * on the new fd and IN_NONBLOCK sets O_NONBLOCK (an empty instance's read()
 * is EAGAIN), each exactly when asked; inotify_init() sets neither.
 */
static void in02_init1_fd_flags(struct fst_ctx *ctx) {
	for (int i = 0; i < 5; i++) {
		int fl = (i & 1 ? IN_CLOEXEC : 0) | (i & 2 ? IN_NONBLOCK : 0);
		int fd = i == 4 ? inotify_init() : inotify_init1(fl);
		const char *what =
		    i == 4 ? "inotify_init()" : fst_strdupf(ctx, "inotify_init1(0%o)", fl);
		char b[64];
		int fdf, st;

		if (fd < 0)
			fst_fail(ctx, "%s: %s", what, fst_errname(errno));
		fdf = FST_SYS(ctx, fcntl(fd, F_GETFD));
		st = FST_SYS(ctx, fcntl(fd, F_GETFL));
		if (!!(fdf & FD_CLOEXEC) != !!(fl & IN_CLOEXEC))
			fst_fail(ctx, "%s: FD_CLOEXEC is %s", what,
				 fdf & FD_CLOEXEC ? "set" : "clear");
		if (!!(st & O_NONBLOCK) != !!(fl & IN_NONBLOCK))
			fst_fail(ctx, "%s: O_NONBLOCK is %s", what,
				 st & O_NONBLOCK ? "set" : "clear");
		if (fl & IN_NONBLOCK)
			FST_SYS_ERR(ctx, read(fd, b, sizeof(b)), EAGAIN);
		fst_close(ctx, fd);
	}
}

/* In a child: one read() of a blocking inotify instance: exactly one
 * IN_CREATE of "f" on watch wd. 0, the errno of read(), or EPROTO. */
struct blocked_read {
	int fd, wd;
};

static int read_create(void *arg) {
	const struct blocked_read *b = arg;
	union {
		struct inotify_event e;
		char buf[4096];
	} u;
	ssize_t n = read(b->fd, u.buf, sizeof(u.buf));

	if (n < 0)
		return errno;
	if ((size_t)n < sizeof(u.e) || sizeof(u.e) + u.e.len != (size_t)n ||
	    u.e.mask != IN_CREATE || u.e.wd != b->wd || u.e.len == 0 || strcmp(u.e.name, "f") != 0)
		return EPROTO;
	return 0;
}

/*
 * IN03: a reader asleep in read() of an inotify instance (no IN_NONBLOCK)
 * is woken by the event and gets exactly it: a lost wake-up in
 * inotify_read() (the wait_woken() loop, fsnotify_add_event()'s wake_up())
 * leaves it asleep.
 */
static void in03_blocked_read_woken(struct fst_ctx *ctx) {
	struct blocked_read b;
	struct fst_child *c;

	FST_SYS(ctx, mkdir("d", 0755));
	b.fd = fst_inotify(ctx);
	FST_SYS(ctx, fcntl(b.fd, F_SETFL, 0)); /* (a reader that waits) */
	b.wd = fst_watch(ctx, b.fd, "d", IN_CREATE);
	c = fst_spawn(ctx, "read(inotify fd)", read_create, &b, b.fd);
	fst_child_in_read(ctx, c, b.fd);
	fst_write_file(ctx, "d/f", "f");
	fst_child_expect(ctx, c, 0);
	FST_SYS(ctx, fcntl(b.fd, F_SETFL, O_NONBLOCK));
	FST_EXPECT_NONE(ctx, b.fd);
}

const struct fst_case fst_cases_in[] = {
	FST_CASE(in01_mask_add_replace, "IN01", FST_ALL_FS,
		 "IN_MASK_ADD adds to a watch's mask, a plain add replaces it"),
	FST_CASE_GIT(in01_mask_create, "IN01", FST_ONCE, "4d97f7d53da7 62c9d2674b31",
		     "IN_MASK_CREATE: EEXIST, mask kept; refusals leak no instance"),
	FST_CASE(in01_oneshot, "IN01", FST_ALL_FS, "IN_ONESHOT: one event, IN_IGNORED, nothing"),
	FST_CASE(in01_excl_unlink, "IN01", FST_ALL_FS,
		 "IN_EXCL_UNLINK: no events of an unlinked child; without it, events"),
	FST_CASE(in01_onlydir_dont_follow, "IN01", FST_ALL_FS,
		 "IN_ONLYDIR: ENOTDIR on a file; IN_DONT_FOLLOW watches the link itself"),
	FST_CASE(in02_init1_fd_flags, "IN02", FST_ONCE,
		 "IN_CLOEXEC -> FD_CLOEXEC, IN_NONBLOCK -> O_NONBLOCK, exactly when asked"),
	FST_CASE(in03_blocked_read_woken, "IN03", FST_ALL_FS,
		 "a reader asleep in read() of an inotify instance is woken with the event"),
	{ 0 },
};
