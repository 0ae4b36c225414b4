/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-ctx.c — the context: the suite "ctx" with inotify (no privileges)
 * and "ctx-fanotify" (root: fanotify groups, marks, ignore masks, FID
 * paths, permission events).
 *
 * No sleeps: the kernel queues inotify and fanotify events synchronously
 * in the system call that causes them, so after it returns a dispatch sees
 * them, and a dispatch returning 0 (the fds read EAGAIN) proves that nothing
 * else was queued. Waits for other processes are poll()s with a deadline.
 * Kernel state (which bits a mark or watch has) is read from
 * /proc/self/fdinfo of the group and inotify fds (internal test hooks from
 * fsn-private.h).
 *
 * fanotify cases run in their own mount namespace on a private tmpfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-private.h"
#include "unit.h"

#define TIMEOUT_MS 5000

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

static void touch(const char *path) {
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void write_file(const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void open_close(const char *path, int flags) {
	int fd = open(path, flags | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

static ino_t ino_of(const char *path) {
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_ino;
}

static int count_fds(void) {
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static bool fd_is_open(int fd) {
	return fcntl(fd, F_GETFD) >= 0;
}

static bool readable(int fd, int timeout_ms) {
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	ck_assert_int_ge(r, 0);
	return r == 1 && (p.revents & POLLIN);
}

/* The whole /proc/self/fdinfo/<fd>. */
static void read_fdinfo(int fd, char *buf, size_t len) {
	char path[64];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(f, 0);
	n = read(f, buf, len - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(f);
}

static int count_lines(const char *text, const char *prefix) {
	int n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

/* mask of the inotify watch on ino, -1 if there is none */
static long long inotify_watch_mask(int ifd, ino_t ino) {
	char text[8192];

	read_fdinfo(ifd, text, sizeof(text));
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned wd, sdev, mask, ign;
		unsigned long lino;

		if (sscanf(l, "inotify wd:%x ino:%lx sdev:%x mask:%x ignored_mask:%x", &wd, &lino,
			   &sdev, &mask, &ign) == 5 &&
		    lino == (unsigned long)ino)
			return mask;
	}
	return -1;
}

struct fan_info {
	bool found;
	unsigned mflags, mask, ignored;
};

/* the inode mark on ino in a fanotify group's fdinfo */
static struct fan_info fanotify_inode_mark(int gfd, ino_t ino) {
	struct fan_info fi = { 0 };
	char text[8192];

	read_fdinfo(gfd, text, sizeof(text));
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long lino;
		unsigned sdev;

		if (sscanf(l, "fanotify ino:%lx sdev:%x mflags:%x mask:%x ignored_mask:%x", &lino,
			   &sdev, &fi.mflags, &fi.mask, &fi.ignored) == 5 &&
		    lino == (unsigned long)ino) {
			fi.found = true;
			return fi;
		}
	}
	return (struct fan_info){ 0 };
}

static struct fan_info fanotify_mount_mark(int gfd) {
	struct fan_info fi = { 0 };
	char text[8192];

	read_fdinfo(gfd, text, sizeof(text));
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned mnt;

		if (sscanf(l, "fanotify mnt_id:%x mflags:%x mask:%x ignored_mask:%x", &mnt,
			   &fi.mflags, &fi.mask, &fi.ignored) == 4) {
			fi.found = true;
			return fi;
		}
	}
	return (struct fan_info){ 0 };
}

/* fanotify_init() flags of a group, from "fanotify flags:%x" */
static unsigned fanotify_init_flags(int gfd) {
	char text[8192];
	const char *l;
	unsigned flags = 0;

	read_fdinfo(gfd, text, sizeof(text));
	l = strstr(text, "fanotify flags:");
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(sscanf(l, "fanotify flags:%x", &flags), 1);
	return flags;
}

/* log lines, each with a '\n' appended here */
struct logcap {
	char text[8192];
	size_t len;
	int lines;
	bool raw_newline; /* a message itself contained '\n' */
};

static void log_cb(void *userdata, int priority, const char *msg) {
	struct logcap *lc = userdata;
	size_t n = strlen(msg);

	ck_assert_int_ge(priority, 0);
	if (strchr(msg, '\n'))
		lc->raw_newline = true;
	if (lc->len + n + 2 < sizeof(lc->text)) {
		memcpy(lc->text + lc->len, msg, n);
		lc->len += n;
		lc->text[lc->len++] = '\n';
		lc->text[lc->len] = '\0';
	}
	lc->lines++;
}

/* A copy of what a callback saw. */
struct rec_ev {
	enum fsn_source source;
	uint64_t mask;
	int wd;
	uint32_t cookie;
	pid_t pid;
	uint32_t has;
	bool has_name;
	char name[256];
	struct fsn_mark *mark;
	struct fsn_group *group;
	int fd;
	int pidfd;
	char fd_path[256];
	struct fsn_fid dfid;
	int respond_ret, take_perm_ret;
};

struct rec {
	struct rec_ev ev[32];
	int n;
	int stop_at;                      /* > 0: return -ECANCELED from that event (1-based) */
	bool take_fd;                     /* take fanotify event fds */
	bool try_respond;                 /* answer (must fail: not a permission event) */
	struct fsn_mark *remove_on_first; /* remove this mark in the first callback */
};

static int rec_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct rec *rc = userdata;
	struct rec_ev *e;

	ck_assert_int_lt(rc->n, (int)ELEMENTSOF(rc->ev));
	e = &rc->ev[rc->n++];
	*e = (struct rec_ev){
		.source = ev->source,
		.mask = ev->mask,
		.wd = ev->wd,
		.cookie = ev->cookie,
		.pid = ev->pid,
		.has = ev->has,
		.mark = ev->mark,
		.group = ev->group,
		.fd = ev->fd,
		.pidfd = ev->pidfd,
		.dfid = ev->dfid,
	};
	if (ev->name) {
		e->has_name = true;
		ck_assert_uint_lt(strlen(ev->name), sizeof(e->name));
		strcpy(e->name, ev->name);
	}
	if (ev->source == FSN_SOURCE_FANOTIFY && ev->fd >= 0)
		ck_assert_int_gt(fsn_fd_path(ev->fd, e->fd_path, sizeof(e->fd_path), NULL), 0);
	if (rc->take_fd && ev->fd >= 0) {
		e->fd = fsn_event_take_fd(ev);
		ck_assert_int_eq(ev->fd, -1);
	}
	if (rc->try_respond) {
		struct fsn_perm *p = NULL;

		e->respond_ret = fsn_ctx_respond(ctx, ev, FSN_DENY, 0, false);
		e->take_perm_ret = fsn_event_take_perm(ctx, ev, &p);
		ck_assert_ptr_null(p);
	}
	if (rc->remove_on_first && rc->n == 1)
		ck_assert_int_eq(fsn_ctx_remove_mark(ctx, rc->remove_on_first), 0);
	if (rc->stop_at > 0 && rc->n == rc->stop_at)
		return -ECANCELED;
	return 0;
}

static int dispatch(struct fsn_ctx *ctx, struct rec *rc) {
	rc->n = 0;
	return fsn_ctx_dispatch(ctx, rec_cb, rc);
}

static struct fsn_mark *add_inotify(struct fsn_ctx *ctx, const char *path, uint32_t mask,
				    void *userdata) {
	struct fsn_mark_spec spec = {
		.type = FSN_MARK_INOTIFY,
		.mask = mask,
		.dirfd = AT_FDCWD,
		.path = path,
		.userdata = userdata,
	};
	struct fsn_mark *m = NULL;

	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, &m), 0);
	ck_assert_ptr_nonnull(m);
	return m;
}

/* ------------------------------------------------------------------------ */
/* ctx (inotify, unprivileged)                                              */
/* ------------------------------------------------------------------------ */

START_TEST(test_ctx_new_free) {
	struct fsn_ctx *ctx = NULL;
	struct rec rc = { 0 };
	int before = count_fds(), fd;

	ck_assert_int_eq(fsn_ctx_new(NULL), -EINVAL);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ck_assert_ptr_nonnull(ctx);
	fd = fsn_ctx_get_fd(ctx);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(dispatch(ctx, &rc), 0);
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, NULL, NULL), -EINVAL);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, NULL), 0);
	fsn_ctx_set_log(ctx, NULL, NULL);

	ck_assert_ptr_null(fsn_ctx_free(ctx));
	ck_assert(!fd_is_open(fd));
	ck_assert_int_eq(count_fds(), before);

	ck_assert_ptr_null(fsn_ctx_free(NULL));
	ck_assert_int_eq(fsn_ctx_get_fd(NULL), -EINVAL);
	ck_assert_int_eq(fsn_ctx_dispatch(NULL, rec_cb, &rc), -EINVAL);
	ck_assert_ptr_null(fsn_mark_get_userdata(NULL));
	ck_assert_ptr_null(fsn_mark_get_spec(NULL));
	ck_assert_uint_eq(fsn_group_get_id(NULL), 0);
}
END_TEST

START_TEST(test_ctx_fd_pollable) {
	char dir[PATH_MAX], sub[PATH_MAX], file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct rec rc = { 0 };
	int fd;

	test_tmpdir(dir, sizeof(dir));
	test_join(sub, sizeof(sub), dir, "sub");
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	fd = fsn_ctx_get_fd(ctx);

	add_inotify(ctx, dir, IN_CREATE, NULL);
	ck_assert_int_eq(fsn_ctx_get_fd(ctx), fd);
	ck_assert(!readable(fd, 0));

	test_join(file, sizeof(file), dir, "f");
	touch(file);
	ck_assert(readable(fd, 0));
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert(!readable(fd, 0));

	add_inotify(ctx, sub, IN_CREATE, NULL);
	ck_assert_int_eq(fsn_ctx_get_fd(ctx), fd);
	ck_assert(!readable(fd, 0));

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_events_in_order) {
	char dir[PATH_MAX], file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *m;
	struct rec rc = { 0 };
	int fd, before = count_fds();

	test_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	m = add_inotify(ctx, dir, IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE, NULL);

	test_join(file, sizeof(file), dir, "f");
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);

	ck_assert_int_eq(dispatch(ctx, &rc), 3);
	ck_assert_uint_eq(rc.ev[0].mask, IN_CREATE);
	ck_assert_uint_eq(rc.ev[1].mask, IN_MODIFY);
	ck_assert_uint_eq(rc.ev[2].mask, IN_CLOSE_WRITE);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rc.ev[i].source, FSN_SOURCE_INOTIFY);
		ck_assert(rc.ev[i].has_name);
		ck_assert_str_eq(rc.ev[i].name, "f");
		ck_assert_ptr_eq(rc.ev[i].mark, m);
		ck_assert_ptr_null(rc.ev[i].group);
		ck_assert_int_ge(rc.ev[i].wd, 1);
		ck_assert_int_eq(rc.ev[i].wd, rc.ev[0].wd);
	}
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	/* reading is not in the mask: nothing */
	open_close(file, O_RDONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	ck_assert_int_eq(count_fds(), before);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_marks_combine) {
	char dir[PATH_MAX], f[PATH_MAX], g[PATH_MAX], h[PATH_MAX], text[8192];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b, *c;
	struct rec rc = { 0 };
	int ifd;
	ino_t ino;

	test_tmpdir(dir, sizeof(dir));
	ino = ino_of(dir);
	test_join(f, sizeof(f), dir, "f");
	test_join(g, sizeof(g), dir, "g");
	test_join(h, sizeof(h), dir, "h");
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ck_assert_int_eq(fsn_ctx_inotify_fd(ctx), -1); /* created with the first watch */

	a = add_inotify(ctx, dir, IN_CREATE, NULL);
	b = add_inotify(ctx, dir, IN_DELETE, NULL);
	c = add_inotify(ctx, dir, IN_CREATE | IN_DELETE, NULL);
	ifd = fsn_ctx_inotify_fd(ctx);
	ck_assert_int_ge(ifd, 0);
	ck_assert_int_eq(inotify_watch_mask(ifd, ino), IN_CREATE | IN_DELETE);
	read_fdinfo(ifd, text, sizeof(text));
	ck_assert_int_eq(count_lines(text, "inotify wd:"), 1);

	/* each event goes to the first (oldest) mark that asked for it */
	touch(f);
	ck_assert_int_eq(unlink(f), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 2);
	ck_assert_uint_eq(rc.ev[0].mask, IN_CREATE);
	ck_assert_ptr_eq(rc.ev[0].mark, a);
	ck_assert_uint_eq(rc.ev[1].mask, IN_DELETE);
	ck_assert_ptr_eq(rc.ev[1].mark, b);

	/* c still wants both: the kernel mask stays */
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, c), 0);
	ck_assert_int_eq(inotify_watch_mask(ifd, ino), IN_CREATE | IN_DELETE);
	/* a gone: only b's bit */
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, a), 0);
	ck_assert_int_eq(inotify_watch_mask(ifd, ino), IN_DELETE);

	touch(g);
	ck_assert_int_eq(unlink(g), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, IN_DELETE);
	ck_assert_str_eq(rc.ev[0].name, "g");
	ck_assert_ptr_eq(rc.ev[0].mark, b);

	/* last one: the watch goes (its IN_IGNORED is not handed out) */
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, b), 0);
	read_fdinfo(ifd, text, sizeof(text));
	ck_assert_int_eq(count_lines(text, "inotify wd:"), 0);
	touch(h);
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_userdata_and_spec) {
	char dir[PATH_MAX], file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *m;
	const struct fsn_mark_spec *spec;
	struct rec rc = { 0 };
	int token;

	test_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	m = add_inotify(ctx, dir, IN_CREATE | IN_ONLYDIR, &token);

	ck_assert_ptr_eq(fsn_mark_get_userdata(m), &token);
	spec = fsn_mark_get_spec(m);
	ck_assert_ptr_nonnull(spec);
	ck_assert_int_eq(spec->type, FSN_MARK_INOTIFY);
	ck_assert_uint_eq(spec->mask, IN_CREATE | IN_ONLYDIR);
	ck_assert_str_eq(spec->path, dir);
	ck_assert_ptr_ne(spec->path, dir); /* a copy */
	ck_assert_ptr_eq(spec->userdata, &token);

	test_join(file, sizeof(file), dir, "x");
	touch(file);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_ptr_eq(rc.ev[0].mark, m);
	ck_assert_ptr_eq(fsn_mark_get_userdata(rc.ev[0].mark), &token);

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_callback_stop) {
	char dir[PATH_MAX], path[PATH_MAX];
	static const char *const names[] = { "a", "b", "c", "d" };
	struct fsn_ctx *ctx;
	struct rec rc = { 0 };
	int fd;

	test_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	fd = fsn_ctx_get_fd(ctx);
	add_inotify(ctx, dir, IN_CREATE, NULL);
	for (int i = 0; i < 3; i++) {
		test_join(path, sizeof(path), dir, names[i]);
		touch(path);
	}

	/* stop at the second: one read got all three */
	rc.stop_at = 2;
	ck_assert_int_eq(dispatch(ctx, &rc), -ECANCELED);
	ck_assert_int_eq(rc.n, 2);
	ck_assert_str_eq(rc.ev[0].name, "a");
	ck_assert_str_eq(rc.ev[1].name, "b");

	/* the kernel queue is empty, the context fd still says "come back" */
	ck_assert(readable(fd, 0));
	rc.stop_at = 0;
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_str_eq(rc.ev[0].name, "c");
	ck_assert(!readable(fd, 0));
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	/* kept events come before newer ones */
	test_join(path, sizeof(path), dir, "e1");
	touch(path);
	test_join(path, sizeof(path), dir, "e2");
	touch(path);
	rc.stop_at = 1;
	ck_assert_int_eq(dispatch(ctx, &rc), -ECANCELED);
	ck_assert_str_eq(rc.ev[0].name, "e1");
	test_join(path, sizeof(path), dir, names[3]);
	touch(path);
	rc.stop_at = 0;
	ck_assert_int_eq(dispatch(ctx, &rc), 2);
	ck_assert_str_eq(rc.ev[0].name, "e2");
	ck_assert_str_eq(rc.ev[1].name, "d");
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_remove_in_callback) {
	char dir[PATH_MAX], path[PATH_MAX];
	struct fsn_ctx *ctx;
	struct rec rc = { 0 };

	test_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	rc.remove_on_first = add_inotify(ctx, dir, IN_CREATE, NULL);
	test_join(path, sizeof(path), dir, "a");
	touch(path);
	test_join(path, sizeof(path), dir, "b");
	touch(path);

	/* "b" was read with "a" but its mark is gone: not handed out */
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_str_eq(rc.ev[0].name, "a");
	rc.remove_on_first = NULL;
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_ignored_after_rmdir) {
	char dir[PATH_MAX], sub[PATH_MAX], file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b, *c;
	struct rec rc = { 0 };

	test_tmpdir(dir, sizeof(dir));
	test_join(sub, sizeof(sub), dir, "sub");
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	a = add_inotify(ctx, sub, IN_DELETE_SELF, NULL);
	b = add_inotify(ctx, sub, IN_DELETE_SELF | IN_CREATE, NULL);

	ck_assert_int_eq(rmdir(sub), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 2);
	ck_assert_uint_eq(rc.ev[0].mask, IN_DELETE_SELF);
	ck_assert_ptr_eq(rc.ev[0].mark, a);
	/* once, with the first mark; every mark of the watch is dead */
	ck_assert_uint_eq(rc.ev[1].mask, IN_IGNORED);
	ck_assert_ptr_eq(rc.ev[1].mark, a);
	ck_assert(fsn_mark_is_dead(a));
	ck_assert(fsn_mark_is_dead(b));
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, a), 0);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, b), 0);

	/* the same name again is a new watch */
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	c = add_inotify(ctx, sub, IN_CREATE, NULL);
	ck_assert(!fsn_mark_is_dead(c));
	test_join(file, sizeof(file), sub, "x");
	touch(file);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_ptr_eq(rc.ev[0].mark, c);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino_of(sub)), IN_CREATE);

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_bad_path_logs) {
	char dir[PATH_MAX], bad[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *m = (struct fsn_mark *)&m;
	struct logcap lc = { 0 };
	struct fsn_mark_spec spec = {
		.type = FSN_MARK_INOTIFY,
		.mask = IN_CREATE | IN_DELETE,
		.dirfd = AT_FDCWD,
	};
	int before = count_fds();

	test_tmpdir(dir, sizeof(dir));
	test_join(bad, sizeof(bad), dir, "missing\nline");
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	fsn_ctx_set_log(ctx, log_cb, &lc);

	spec.path = bad;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, &m), -ENOENT);
	ck_assert_ptr_eq(m, (struct fsn_mark *)&m); /* not written on failure */
	ck_assert_int_eq(lc.lines, 1);
	ck_assert(!lc.raw_newline); /* the newline in the name is escaped */
	ck_assert_ptr_nonnull(strstr(lc.text, "inotify"));
	ck_assert_ptr_nonnull(strstr(lc.text, "missing\\x0aline"));
	ck_assert_ptr_nonnull(strstr(lc.text, dir));
	ck_assert_ptr_nonnull(strstr(lc.text, "create,delete"));
	ck_assert_ptr_nonnull(strstr(lc.text, strerror(ENOENT)));

	/* invalid specs */
	spec.path = dir;
	spec.type = _FSN_MARK_TYPE_MAX;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	spec.type = FSN_MARK_INOTIFY;
	spec.ignore = IN_CREATE;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	spec.ignore = 0;
	spec.flags = 1u << 31;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	spec.flags = 0;
	spec.path = NULL;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	ck_assert_int_eq(fsn_ctx_add_mark(NULL, &spec, NULL), -EINVAL);
	ck_assert_int_eq(lc.lines, 5);

	fsn_ctx_free(ctx);
	ck_assert_int_eq(count_fds(), before);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_relative_path_and_flags) {
	char dir[PATH_MAX], sub[PATH_MAX], link[PATH_MAX], file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *m;
	struct fsn_mark_spec spec = {
		.type = FSN_MARK_INOTIFY,
		.mask = IN_CREATE,
	};
	struct rec rc = { 0 };
	int dfd;

	test_tmpdir(dir, sizeof(dir));
	test_join(sub, sizeof(sub), dir, "sub");
	test_join(link, sizeof(link), dir, "link");
	test_join(file, sizeof(file), dir, "file");
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(symlink("sub", link), 0);
	touch(file);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);

	/* relative to dirfd; the fd may be closed afterwards */
	spec.dirfd = dfd;
	spec.path = "sub";
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, &m), 0);
	close(dfd);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino_of(sub)), IN_CREATE);

	/* ONLYDIR refuses a file, IN_ONLYDIR too */
	spec.dirfd = AT_FDCWD;
	spec.path = file;
	spec.flags = FSN_MARK_F_ONLYDIR;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -ENOTDIR);
	spec.flags = 0;
	spec.mask = IN_CREATE | IN_ONLYDIR;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -ENOTDIR);

	/* through the symlink: the directory; DONT_FOLLOW: the link itself */
	spec.mask = IN_ATTRIB;
	spec.path = link;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), 0);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino_of(sub)),
			 IN_CREATE | IN_ATTRIB);
	spec.flags = FSN_MARK_F_DONT_FOLLOW;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), 0);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino_of(link)), IN_ATTRIB);

	/* IN_MASK_CREATE: EEXIST for a watched inode */
	spec.flags = 0;
	spec.path = sub;
	spec.mask = IN_DELETE | IN_MASK_CREATE;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EEXIST);
	spec.path = dir;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), 0);

	touch(file); /* no event: dir only has IN_DELETE */
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_inotify_unreachable_filters) {
	char dir[PATH_MAX], d[PATH_MAX], d2[PATH_MAX], x[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b;
	struct rec rc = { 0 };
	ino_t ino;

	test_tmpdir(dir, sizeof(dir));
	test_join(d, sizeof(d), dir, "d");
	test_join(d2, sizeof(d2), dir, "d2");
	test_join(x, sizeof(x), d2, "x");
	ck_assert_int_eq(mkdir(d, 0700), 0);
	ino = ino_of(d);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	a = add_inotify(ctx, d, IN_CREATE, NULL);
	b = add_inotify(ctx, d, IN_DELETE, NULL);

	/* renamed away: the watch cannot be reached by path to drop a's
	 * bit (and the context has no mount fd for handles); the kernel
	 * keeps it, but no event for it is handed out */
	ck_assert_int_eq(rename(d, d2), 0);
	ck_assert_int_eq(mkdir(d, 0700), 0); /* same name, other directory */
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, a), 0);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino), IN_CREATE | IN_DELETE);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino_of(d)), -1);

	touch(x);
	ck_assert_int_eq(unlink(x), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, IN_DELETE);
	ck_assert_ptr_eq(rc.ev[0].mark, b);

	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, b), 0);
	ck_assert_int_eq(inotify_watch_mask(fsn_ctx_inotify_fd(ctx), ino), -1);
	fsn_ctx_free(ctx);
	test_rm_tree(dir);
}
END_TEST

static void ctx_suite(Suite *s) {
	TCase *tc = tcase_create("inotify");

	tcase_add_test(tc, test_ctx_new_free);
	tcase_add_test(tc, test_ctx_fd_pollable);
	tcase_add_test(tc, test_inotify_events_in_order);
	tcase_add_test(tc, test_inotify_marks_combine);
	tcase_add_test(tc, test_inotify_userdata_and_spec);
	tcase_add_test(tc, test_inotify_callback_stop);
	tcase_add_test(tc, test_inotify_remove_in_callback);
	tcase_add_test(tc, test_inotify_ignored_after_rmdir);
	tcase_add_test(tc, test_inotify_bad_path_logs);
	tcase_add_test(tc, test_inotify_relative_path_and_flags);
	tcase_add_test(tc, test_inotify_unreachable_filters);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("ctx", ctx_suite);

/* ------------------------------------------------------------------------ */
/* ctx-fanotify (root)                                                      */
/* ------------------------------------------------------------------------ */

/* Own mount namespace (nothing propagates back), a private tmpfs on dir. */
static void tmpfs_setup(char *dir, size_t len) {
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL), 0);
	test_tmpdir(dir, len);
	ck_assert_int_eq(mount("tmpfs", dir, "tmpfs", 0, "mode=0755,size=8m"), 0);
}

static void tmpfs_teardown(const char *dir) {
	ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}

static struct fsn_mark *add_fan(struct fsn_ctx *ctx, enum fsn_mark_type type, enum fsn_class klass,
				uint32_t report, uint32_t tag, uint64_t mask, uint64_t ignore,
				uint32_t flags, const char *path) {
	struct fsn_mark_spec spec = {
		.type = type,
		.klass = klass,
		.report = report,
		.group_tag = tag,
		.mask = mask,
		.ignore = ignore,
		.flags = flags,
		.dirfd = AT_FDCWD,
		.path = path,
	};
	struct fsn_mark *m = NULL;

	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, &m), 0);
	ck_assert_ptr_nonnull(m);
	return m;
}

START_TEST(test_fan_inode_open_close) {
	char dir[PATH_MAX], file[PATH_MAX], other[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *m;
	struct fsn_group *g;
	struct rec rc = { .try_respond = true };
	int fd, before;

	tmpfs_setup(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	test_join(other, sizeof(other), dir, "other");
	write_file(file, "hello");
	touch(other);
	before = count_fds();
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	m = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN | FAN_CLOSE_NOWRITE, 0, 0,
		    file);
	g = fsn_mark_get_group(m);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_ge(fsn_group_get_id(g), 1);
	ck_assert_int_eq(fsn_group_get_class(g), FSN_CLASS_NOTIF);
	ck_assert_uint_eq(fsn_group_get_report(g), 0);
	ck_assert_uint_eq(fsn_group_get_tag(g), 0);

	/* An unread OPEN and the CLOSE_NOWRITE that follows on the same file
	 * from the same process are merged into one event
	 * (fs/notify/fanotify/fanotify.c: fanotify_merge()); permission
	 * events never are. */
	open_close(file, O_RDONLY);
	open_close(other, O_RDONLY); /* not marked */
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_int_eq(rc.ev[0].source, FSN_SOURCE_FANOTIFY);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_OPEN | FAN_CLOSE_NOWRITE);
	ck_assert_int_eq(rc.ev[0].pid, getpid());
	ck_assert_ptr_eq(rc.ev[0].group, g);
	ck_assert_ptr_null(rc.ev[0].mark);
	ck_assert_int_ge(rc.ev[0].fd, 0);
	ck_assert_str_eq(rc.ev[0].fd_path, file);
	ck_assert_int_eq(rc.ev[0].respond_ret, -EINVAL); /* not a permission event */
	ck_assert_int_eq(rc.ev[0].take_perm_ret, -EINVAL);
	ck_assert(!fd_is_open(rc.ev[0].fd)); /* closed after the callback */
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	/* read in between: two events */
	fd = open(file, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_OPEN);
	close(fd);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_CLOSE_NOWRITE);
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	ck_assert_int_eq(count_fds(), before);
	tmpfs_teardown(dir);
}
END_TEST

/* fsn_ctx_fd_starved() says whether the dispatch left an fd-mode group's
 * events queued for want of fds, whatever it read from other sources after
 * that group (here the inotify instance, read in the same dispatch). */
START_TEST(test_fan_fd_starved) {
	char dir[PATH_MAX], file[PATH_MAX], made[PATH_MAX];
	struct rlimit saved, low;
	struct fsn_ctx *ctx;
	struct rec rc = { 0 };

	tmpfs_setup(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	test_join(made, sizeof(made), dir, "made");
	write_file(file, "hello");
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN, 0, 0, file);
	add_inotify(ctx, dir, IN_CREATE, NULL);
	open_close(file, O_RDONLY);
	touch(made);

	/* no free fd for the OPEN event's fd: it stays queued; the inotify
	 * event is read */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	low = saved;
	low.rlim_cur = (rlim_t)count_fds() + 8;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_int_eq(rc.ev[0].source, FSN_SOURCE_INOTIFY);
	ck_assert(fsn_ctx_fd_starved(ctx));
	ck_assert(!fsn_ctx_is_drained(ctx));
	ck_assert_int_eq(dispatch(ctx, &rc), 0);
	ck_assert(fsn_ctx_fd_starved(ctx));
	ck_assert(!fsn_ctx_is_drained(ctx));

	/* fds again: the event comes, and nothing is starved */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_OPEN);
	ck_assert(!fsn_ctx_fd_starved(ctx));
	ck_assert_int_eq(dispatch(ctx, &rc), 0);
	ck_assert(fsn_ctx_is_drained(ctx));
	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

START_TEST(test_fan_take_fd_and_pidfd) {
	char dir[PATH_MAX], file[PATH_MAX], buf[16];
	struct fsn_ctx *ctx;
	struct rec rc = { .take_fd = true };
	struct fsn_mark_spec spec = {
		.type = FSN_MARK_INODE,
		.report = FAN_REPORT_PIDFD,
		.mask = FAN_OPEN,
		.dirfd = AT_FDCWD,
	};

	tmpfs_setup(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	write_file(file, "hello");
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	spec.path = file;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), 0);

	open_close(file, O_RDONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_OPEN);
	/* taken: still open, reads the file */
	ck_assert(fd_is_open(rc.ev[0].fd));
	ck_assert_int_eq(pread(rc.ev[0].fd, buf, sizeof(buf), 0), 5);
	ck_assert_int_eq(memcmp(buf, "hello", 5), 0);
	close(rc.ev[0].fd);
	/* the pidfd was not taken: closed */
	ck_assert(rc.ev[0].has & FSN_HAS_PIDFD);
	ck_assert_int_ge(rc.ev[0].pidfd, 0);
	ck_assert(!fd_is_open(rc.ev[0].pidfd));

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

START_TEST(test_fan_filesystem_dfid_name) {
	char dir[PATH_MAX], sub[PATH_MAX], file[PATH_MAX], d2[PATH_MAX], buf[PATH_MAX];
	struct fsn_ctx *ctx;
	struct rec rc = { 0 };
	struct fsn_fid sub_fid;
	bool deleted;

	tmpfs_setup(dir, sizeof(dir));
	test_join(sub, sizeof(sub), dir, "sub");
	test_join(file, sizeof(file), sub, "new\nname");
	test_join(d2, sizeof(d2), sub, "d2");
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	add_fan(ctx, FSN_MARK_FILESYSTEM, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0,
		FAN_CREATE | FAN_DELETE | FAN_ONDIR, 0, 0, dir);

	touch(file);
	ck_assert_int_eq(mkdir(d2, 0755), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 2);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_CREATE);
	ck_assert_uint_eq(rc.ev[0].has, FSN_HAS_DFID | FSN_HAS_NAME);
	ck_assert_str_eq(rc.ev[0].name, "new\nname");
	ck_assert_int_eq(rc.ev[0].fd, FAN_NOFD);
	ck_assert_int_eq(rc.ev[0].pid, getpid());
	ck_assert_uint_eq(rc.ev[1].mask, FAN_CREATE | FAN_ONDIR);
	ck_assert_str_eq(rc.ev[1].name, "d2");
	sub_fid = rc.ev[0].dfid;

	deleted = true;
	ck_assert_int_eq(fsn_ctx_fid_path(ctx, &sub_fid, "new\nname", buf, sizeof(buf), &deleted),
			 (int)strlen(file));
	ck_assert_str_eq(buf, file);
	ck_assert(!deleted);
	ck_assert_int_eq(fsn_ctx_fid_path(ctx, &rc.ev[1].dfid, "d2", buf, sizeof(buf), NULL),
			 (int)strlen(d2));
	ck_assert_str_eq(buf, d2);
	ck_assert_int_eq(fsn_ctx_fid_path(ctx, &sub_fid, NULL, buf, sizeof(buf), NULL),
			 (int)strlen(sub));
	ck_assert_str_eq(buf, sub);

	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(d2), 0);
	ck_assert_int_eq(rmdir(sub), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 3);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_DELETE);
	ck_assert_str_eq(rc.ev[0].name, "new\nname");
	ck_assert_uint_eq(rc.ev[1].mask, FAN_DELETE | FAN_ONDIR);
	ck_assert_str_eq(rc.ev[1].name, "d2");
	ck_assert_uint_eq(rc.ev[2].mask, FAN_DELETE | FAN_ONDIR);
	ck_assert_str_eq(rc.ev[2].name, "sub");
	ck_assert_int_eq(fsn_ctx_fid_path(ctx, &rc.ev[2].dfid, NULL, buf, sizeof(buf), NULL),
			 (int)strlen(dir));
	ck_assert_str_eq(buf, dir);

	/* sub is gone: the path it had, from the cache */
	deleted = false;
	ck_assert_int_eq(
	    fsn_ctx_fid_path(ctx, &rc.ev[0].dfid, "new\nname", buf, sizeof(buf), &deleted),
	    (int)strlen(file));
	ck_assert_str_eq(buf, file);
	ck_assert(deleted);
	ck_assert_uint_eq(rc.ev[0].dfid.handle_bytes, sub_fid.handle_bytes);
	ck_assert_int_eq(memcmp(rc.ev[0].dfid.f_handle, sub_fid.f_handle, sub_fid.handle_bytes), 0);
	ck_assert_int_eq(dispatch(ctx, &rc), 0);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* Each event's DFID record (+ name) resolved with fsn_ctx_event_dir_path()
 * in the callback, as the daemon does. */
struct dirpaths {
	char path[8][PATH_MAX];
	uint64_t mask[8];
	int n;
};

static int dirpath_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct dirpaths *d = userdata;

	ck_assert_int_lt(d->n, 8);
	ck_assert(ev->has & FSN_HAS_DFID);
	d->mask[d->n] = ev->mask;
	ck_assert_int_gt(fsn_ctx_event_dir_path(ctx, ev, &ev->dfid, ev->name, d->path[d->n],
						sizeof(d->path[0]), NULL),
			 0);
	d->n++;
	return 0;
}

/* A mark's group and FID (fsn_mark_get_group(), fsn_mark_get_fid(): what
 * its events carry); the per-group directory path cache: a group with a
 * filesystem mark that sees directory moves resolves a directory once and
 * then serves its events from the cache, in the order of its queue (an
 * event queued before a rename keeps the old path), and the rename's event
 * makes it forget (the events after it get the new path). */
START_TEST(test_fan_mark_fid_and_dir_cache) {
	char dir[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], p[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *ino, *fs, *watch;
	struct fsn_fid fid, none;
	struct dirpaths d = { .n = 0 };
	const uint32_t report = FAN_REPORT_FID | FAN_REPORT_DFID_NAME;

	tmpfs_setup(dir, sizeof(dir));
	test_join(a, sizeof(a), dir, "a");
	test_join(b, sizeof(b), a, "b");
	test_join(c, sizeof(c), dir, "c");
	ck_assert_int_eq(mkdir(a, 0755), 0);
	ck_assert_int_eq(mkdir(b, 0755), 0);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ino = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, report, 0, FAN_ATTRIB, 0, 0, b);
	fs = add_fan(ctx, FSN_MARK_FILESYSTEM, FSN_CLASS_NOTIF, report, 0,
		     FAN_CREATE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, 0, 0, dir);
	watch = add_inotify(ctx, dir, IN_CREATE, NULL);
	ck_assert_ptr_nonnull(fsn_mark_get_group(ino));
	ck_assert_ptr_eq(fsn_mark_get_group(ino), fsn_mark_get_group(fs));
	ck_assert_ptr_null(fsn_mark_get_group(watch));
	ck_assert_int_eq(fsn_mark_get_fid(ino, &fid), 0);
	ck_assert_uint_gt(fid.handle_bytes, 0);
	ck_assert_int_eq(fsn_mark_get_fid(NULL, &none), -EINVAL);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, watch), 0);

	/* b resolved once: cached for the group */
	test_join(p, sizeof(p), b, "w");
	touch(p);
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, dirpath_cb, &d), 1);
	ck_assert_str_eq(d.path[0], p);
	/* ... and its own FID is the inode mark's */
	ck_assert_int_eq(fsn_ctx_fid_path(ctx, &fid, NULL, p, sizeof(p), NULL), (int)strlen(b));
	ck_assert_str_eq(p, b);

	/* x made in a/b, a renamed to c, y made in c/b: read after all three */
	test_join(p, sizeof(p), b, "x");
	touch(p);
	ck_assert_int_eq(rename(a, c), 0);
	test_join(p, sizeof(p), c, "b/y");
	touch(p);
	d.n = 0;
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, dirpath_cb, &d), 4);
	ck_assert_uint_eq(d.mask[0], FAN_CREATE);
	test_join(p, sizeof(p), b, "x");
	ck_assert_str_eq(d.path[0], p); /* the path it had then: the cache's */
	ck_assert_uint_eq(d.mask[1], FAN_MOVED_FROM | FAN_ONDIR);
	ck_assert_str_eq(d.path[1], a);
	ck_assert_uint_eq(d.mask[2], FAN_MOVED_TO | FAN_ONDIR);
	ck_assert_str_eq(d.path[2], c);
	ck_assert_uint_eq(d.mask[3], FAN_CREATE);
	test_join(p, sizeof(p), c, "b/y");
	ck_assert_str_eq(d.path[3], p); /* forgotten at the move: resolved anew */

	ck_assert(fsn_fid_equal(&fid, &fid));
	none = fid;
	none.f_handle[0] ^= 1;
	ck_assert(!fsn_fid_equal(&fid, &none));
	none = fid;
	none.handle_bytes = FSN_HANDLE_MAX + 1;
	ck_assert(!fsn_fid_equal(&none, &none));

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* One step of test_fan_name_taken_later(), in a process of its own (the
 * kernel merges the events of one process on one name). */
static void step_in_child(const char *dir, const char *op, const char *a, const char *b) {
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char p[PATH_MAX], q[PATH_MAX];
		int r;

		snprintf(p, sizeof(p), "%s/%s", dir, a);
		snprintf(q, sizeof(q), "%s/%s", dir, b ? b : "");
		if (strcmp(op, "create") == 0)
			r = close(open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600));
		else if (strcmp(op, "unlink") == 0)
			r = unlink(p);
		else
			r = rename(p, q);
		_exit(r == 0 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &(int){ 0 }, 0), pid);
}

struct taken {
	int n;
	uint64_t mask[16];
	char name[16][8];
	int taken[16];
};

static int taken_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct taken *t = userdata;

	ck_assert_int_lt(t->n, 16);
	ck_assert(ev->has & FSN_HAS_NAME);
	t->mask[t->n] = ev->mask;
	snprintf(t->name[t->n], sizeof(t->name[0]), "%s", ev->name);
	t->taken[t->n++] = fsn_ctx_name_taken_later(ctx, &ev->dfid, ev->name);
	return 0;
}

/* fsn_ctx_name_taken_later(): among the events read together, a later
 * delete, rename away or rename over of the same name says yes; a name
 * that stays, and the last event of a name, say no. */
START_TEST(test_fan_name_taken_later) {
	char dir[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_fid none = { 0 };
	struct taken t = { 0 };
	static const struct {
		uint64_t mask;
		const char *name;
		int taken;
	} want[] = {
		{ FAN_CREATE, "a", 1 },     { FAN_DELETE, "a", 0 },     { FAN_CREATE, "b", 1 },
		{ FAN_MOVED_FROM, "b", 0 }, { FAN_MOVED_TO, "c", 1 },   { FAN_CREATE, "d", 0 },
		{ FAN_CREATE, "e", 1 },     { FAN_MOVED_FROM, "c", 0 }, { FAN_MOVED_TO, "e", 0 },
	};

	tmpfs_setup(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	(void)add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0,
		      FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO, 0, 0, dir);
	step_in_child(dir, "create", "a", NULL);
	step_in_child(dir, "unlink", "a", NULL);
	step_in_child(dir, "create", "b", NULL);
	step_in_child(dir, "rename", "b", "c");
	step_in_child(dir, "create", "d", NULL);
	step_in_child(dir, "create", "e", NULL);
	step_in_child(dir, "rename", "c", "e"); /* (over e) */
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, taken_cb, &t), (int)ELEMENTSOF(want));
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		ck_assert_uint_eq(t.mask[i], want[i].mask);
		ck_assert_str_eq(t.name[i], want[i].name);
		ck_assert_msg(t.taken[i] == want[i].taken, "event %zu (%s): %d", i, t.name[i],
			      t.taken[i]);
	}
	/* not in a callback: not known */
	ck_assert_int_eq(fsn_ctx_name_taken_later(ctx, &none, "a"), 0);
	ck_assert_int_eq(fsn_ctx_name_taken_later(ctx, NULL, "a"), -EINVAL);
	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

static unsigned read_uint_file(const char *file) {
	char buf[32] = "";
	unsigned v = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ck_assert_int_eq(sscanf(buf, "%u", &v), 1);
	return v;
}

struct counts {
	int events, overflows;
};

static int count_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct counts *c = userdata;

	if (ev->mask & (FAN_Q_OVERFLOW | IN_Q_OVERFLOW))
		c->overflows++;
	else
		c->events++;
	return 0;
}

/* fsn_ctx_set_queue_max(): a fanotify group and the inotify instance
 * created after it hold exactly that many events, then one overflow; the
 * sysctls are as they were afterwards; groups created before keep theirs. */
START_TEST(test_fan_queue_max) {
	static const char *const fan = "/proc/sys/fs/fanotify/max_queued_events",
				 *const ino = "/proc/sys/fs/inotify/max_queued_events";
	char dir[PATH_MAX], p[PATH_MAX];
	unsigned fan0 = read_uint_file(fan), ino0 = read_uint_file(ino);
	struct fsn_ctx *ctx;
	struct fsn_mark *before, *after;
	struct counts c = { 0, 0 };

	tmpfs_setup(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	before = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 1, FAN_CREATE,
			 0, 0, dir);
	ck_assert_uint_eq(fsn_group_get_queue_max(fsn_mark_get_group(before)), fan0);
	ck_assert_int_eq(fsn_ctx_set_queue_max(ctx, 100), 0);
	after = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 2, FAN_CREATE,
			0, 0, dir);
	add_inotify(ctx, dir, IN_CREATE, NULL);
	ck_assert_uint_eq(fsn_group_get_queue_max(fsn_mark_get_group(after)), 100);
	ck_assert_uint_eq(fsn_group_get_queue_max(fsn_mark_get_group(before)), fan0);
	ck_assert_uint_eq(fsn_ctx_get_inotify_queue_max(ctx), 100);
	ck_assert_uint_eq(read_uint_file(fan), fan0);
	ck_assert_uint_eq(read_uint_file(ino), ino0);

	for (int i = 0; i < 150; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%03d", i);
		test_join(p, sizeof(p), dir, name);
		touch(p);
	}
	while (fsn_ctx_dispatch(ctx, count_cb, &c) > 0)
		;
	/* 150 of the old group, 100 + an overflow of the new one, 100 + an
	 * overflow of the inotify instance */
	ck_assert_int_eq(c.events, 150 + 100 + 100);
	ck_assert_int_eq(c.overflows, 2);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* The order one source's events came in: per source (0 inotify, 1 the
 * fanotify group), the next expected "fNNN", and whether an overflow
 * came (nothing may follow it). */
struct seq {
	int next[2];
	bool overflow[2];
	bool bad;
	int stop_after; /* > 0: return -EAGAIN after this many events */
	int n;
};

static int seq_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct seq *q = userdata;
	int k = ev->source == FSN_SOURCE_INOTIFY ? 0 : 1, i = -1;

	if (q->overflow[k])
		q->bad = true; /* (nothing after an overflow: the queue was left full) */
	if (ev->mask & (FAN_Q_OVERFLOW | IN_Q_OVERFLOW))
		q->overflow[k] = true;
	else if (!ev->name || sscanf(ev->name, "f%d", &i) != 1 || i != q->next[k]++)
		q->bad = true;
	q->n++;
	return q->stop_after > 0 && q->n % q->stop_after == 0 ? -EAGAIN : 0;
}

static void make_files(const char *dir, int from, int to) {
	char name[16], p[PATH_MAX];

	for (int i = from; i < to; i++) {
		snprintf(name, sizeof(name), "f%03d", i);
		test_join(p, sizeof(p), dir, name);
		touch(p);
	}
}

/* Dispatch until everything queued, in the kernel and the reader thread,
 * was handed out (the thread reads on its own time: a dispatch that
 * handed out nothing does not mean that nothing is left). */
static void dispatch_all(struct fsn_ctx *ctx, fsn_event_fn fn, void *userdata) {
	for (int i = 0; i < 10000; i++) {
		struct pollfd p = { .fd = fsn_ctx_get_fd(ctx), .events = POLLIN };
		int r = fsn_ctx_dispatch(ctx, fn, userdata);

		ck_assert(r >= 0 || r == -EAGAIN);
		if (r == 0 && fsn_ctx_is_drained(ctx))
			return;
		if (r == 0)
			(void)poll(&p, 1, 10);
	}
	ck_abort_msg("the context never drained");
}

/* Wait (5 s at most) until the reader thread has stopped reading because
 * it holds its bound. */
static void wait_reader_full(struct fsn_ctx *ctx, uint64_t n_full) {
	struct fsn_reader_stats st;

	for (int i = 0; i < 5000; i++) {
		ck_assert_int_eq(fsn_ctx_get_reader_stats(ctx, &st), 0);
		if (st.n_full >= n_full)
			return;
		usleep(1000);
	}
	ck_abort_msg("the reader thread never stopped at its bound");
}

/* fsn_ctx_set_reader(): the thread holds at most its bound (one read when
 * the bound is smaller), then stops reading, so each kernel queue (100
 * events) fills behind it and ends in its overflow; what was read comes
 * out in the kernel's order, from the first event on, with nothing after
 * the overflow. */
START_TEST(test_reader_bound) {
	char dir[PATH_MAX];
	struct fsn_reader_stats st;
	struct fsn_ctx *ctx;
	struct seq q = { { 0, 0 }, { false, false }, false, 0, 0 };

	tmpfs_setup(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ck_assert_int_eq(fsn_ctx_set_queue_max(ctx, 100), 0);
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1), 0);
	add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0, FAN_CREATE, 0, 0,
		dir);
	add_inotify(ctx, dir, IN_CREATE, NULL);
	make_files(dir, 0, 1); /* the thread reads this one */
	wait_reader_full(ctx, 1);
	make_files(dir, 1, 400);

	dispatch_all(ctx, seq_cb, &q);
	ck_assert(!q.bad);
	ck_assert(q.overflow[0] && q.overflow[1]);
	/* the source read first: f000 from the thread, then the 100 its
	 * kernel queue held; the other (not read while the thread was full):
	 * the 100 of its queue */
	ck_assert_int_eq(q.next[0] + q.next[1], 201);
	ck_assert_int_ge(q.next[0], 100);
	ck_assert_int_ge(q.next[1], 100);
	ck_assert_int_eq(fsn_ctx_get_reader_stats(ctx, &st), 0);
	ck_assert_uint_eq(st.max, 1);
	ck_assert_uint_le(st.peak, 64 * 1024 + 4096); /* one read, never two */
	ck_assert_uint_eq(st.bytes, 0);
	ck_assert(fsn_ctx_is_drained(ctx));

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* With a bound that holds everything: no overflow, every event in order,
 * also when the callback stops every 7 events (the rest of a read stays
 * for the next dispatch), and after the thread is stopped (what it held
 * first, then what the dispatch reads itself). */
START_TEST(test_reader_order) {
	char dir[PATH_MAX];
	struct fsn_ctx *ctx;
	struct seq q = { { 0, 0 }, { false, false }, false, 7, 0 };
	int r;

	tmpfs_setup(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0, FAN_CREATE, 0, 0,
		dir);
	/* started with a source in place: it moves to the thread */
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1 << 20), 0);
	add_inotify(ctx, dir, IN_CREATE, NULL);
	make_files(dir, 0, 300);
	/* the context's fd says when to dispatch */
	for (int i = 0; i < 10000 && (q.next[0] < 300 || q.next[1] < 300); i++) {
		struct pollfd p = { .fd = fsn_ctx_get_fd(ctx), .events = POLLIN };

		ck_assert_int_eq(poll(&p, 1, 5000), 1);
		r = fsn_ctx_dispatch(ctx, seq_cb, &q);
		ck_assert(r >= 0 || r == -EAGAIN);
	}
	ck_assert(!q.bad);
	ck_assert_int_eq(q.next[0], 300);
	ck_assert_int_eq(q.next[1], 300);

	/* stopped while it holds events: those first, then the rest */
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1), 0);
	make_files(dir, 300, 301);
	wait_reader_full(ctx, 1);
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 0), 0);
	make_files(dir, 301, 400);
	q.stop_after = 0;
	dispatch_all(ctx, seq_cb, &q);
	ck_assert(!q.bad && !q.overflow[0] && !q.overflow[1]);
	ck_assert_int_eq(q.next[0], 400);
	ck_assert_int_eq(q.next[1], 400);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* A group that leaves while the thread holds its events takes them along:
 * the next dispatch hands out none of them (and frees them: ASan). */
START_TEST(test_reader_group_leaves) {
	char dir[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *m;
	struct counts c = { 0, 0 };

	tmpfs_setup(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1), 0);
	m = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0, FAN_CREATE, 0, 0,
		    dir);
	make_files(dir, 0, 50);
	wait_reader_full(ctx, 1);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, m), 0);
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, count_cb, &c), 0);
	ck_assert_int_eq(c.events + c.overflows, 0);
	/* drained once the thread, woken by the group's leaving, has looked
	 * again and found nothing (it may be mid-turn just now) */
	for (int i = 0; i < 20000 && !fsn_ctx_is_drained(ctx); i++)
		usleep(1000);
	ck_assert(fsn_ctx_is_drained(ctx));
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, count_cb, &c), 0);
	ck_assert_int_eq(c.events + c.overflows, 0);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* fsn_ctx_is_drained() asks the kernel: an event queued just before the
 * call, which the reader thread (waiting for the kernel) has not been
 * woken for yet, is not called drained; read, it is handed out. Each of
 * 200 rounds. */
START_TEST(test_reader_drained_exact) {
	char dir[PATH_MAX];
	struct fsn_ctx *ctx;
	struct counts c = { 0, 0 };

	tmpfs_setup(dir, sizeof(dir));
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1 << 20), 0);
	add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0, FAN_CREATE, 0, 0,
		dir);
	dispatch_all(ctx, count_cb, &c);
	for (int i = 0; i < 200; i++) {
		make_files(dir, i, i + 1);
		ck_assert_msg(!fsn_ctx_is_drained(ctx), "round %d: drained with an event queued",
			      i);
		dispatch_all(ctx, count_cb, &c);
		ck_assert_int_eq(c.events, i + 1);
	}
	ck_assert_int_eq(c.overflows, 0);
	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* fsn_ctx_queue_passed(): a mark taken with 100 events queued in each of
 * a fanotify group (counted in events) and the inotify fd (in bytes)
 * passes exactly when both sources' 100th event was handed out, one event
 * per dispatch, while the 100 more made after the mark still wait (so not
 * drained). Without the reader thread and with it (it may have read some
 * of them at the mark). A group that left no longer holds a mark back. */
START_TEST(test_queue_mark) {
	for (int reader = 0; reader < 2; reader++) {
		char dir[PATH_MAX];
		struct fsn_ctx *ctx;
		struct fsn_queue_mark *m;
		struct fsn_mark *fan;
		struct seq q = { { 0, 0 }, { false, false }, false, 1, 0 };

		tmpfs_setup(dir, sizeof(dir));
		ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
		if (reader)
			ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1 << 20), 0);
		fan = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, FAN_REPORT_DFID_NAME, 0,
			      FAN_CREATE, 0, 0, dir);
		add_inotify(ctx, dir, IN_CREATE, NULL);
		make_files(dir, 0, 100);
		if (reader)
			usleep(20000); /* (the thread may read some: either way) */
		ck_assert_int_eq(fsn_ctx_queue_mark(ctx, &m), 0);
		make_files(dir, 100, 200);
		while (!fsn_ctx_queue_passed(ctx, m)) {
			struct pollfd p = { .fd = fsn_ctx_get_fd(ctx), .events = POLLIN };
			int r;

			ck_assert_msg(
			    q.next[0] < 100 || q.next[1] < 100,
			    "reader %d: not passed after %d inotify and %d fanotify events", reader,
			    q.next[0], q.next[1]);
			r = fsn_ctx_dispatch(ctx, seq_cb, &q);
			ck_assert(r >= 0 || r == -EAGAIN);
			if (r == 0)
				ck_assert_int_eq(poll(&p, 1, 5000), 1);
		}
		ck_assert_msg(q.next[0] >= 100 && q.next[1] >= 100 &&
				  (q.next[0] == 100 || q.next[1] == 100),
			      "reader %d: passed after %d inotify and %d fanotify events", reader,
			      q.next[0], q.next[1]);
		ck_assert(!fsn_ctx_is_drained(ctx));
		m = fsn_queue_mark_free(m);

		/* the group leaves with its events: the mark waits for inotify's */
		make_files(dir, 200, 210);
		ck_assert_int_eq(fsn_ctx_queue_mark(ctx, &m), 0);
		ck_assert_int_eq(fsn_ctx_remove_mark(ctx, fan), 0);
		ck_assert(!fsn_ctx_queue_passed(ctx, m));
		q.stop_after = 0;
		dispatch_all(ctx, seq_cb, &q);
		ck_assert(fsn_ctx_queue_passed(ctx, m));
		ck_assert(!q.bad && !q.overflow[0] && !q.overflow[1]);
		ck_assert_int_eq(q.next[0], 210);
		m = fsn_queue_mark_free(m);
		fsn_ctx_free(ctx);
		tmpfs_teardown(dir);
	}
}
END_TEST

START_TEST(test_fan_marks_combine) {
	char dir[PATH_MAX], file[PATH_MAX], alias[PATH_MAX], text[8192];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b, *c, *d;
	struct fan_info fi;
	struct rec rc = { 0 };
	int gfd;
	ino_t ino;

	tmpfs_setup(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	test_join(alias, sizeof(alias), dir, "./f");
	touch(file);
	ino = ino_of(file);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);

	a = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN, 0, 0, file);
	b = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_CLOSE_WRITE, 0, 0, alias);
	ck_assert_ptr_eq(fsn_mark_get_group(a), fsn_mark_get_group(b));
	gfd = fsn_group_fd(fsn_mark_get_group(a));
	ck_assert_int_ge(gfd, 0);
	fi = fanotify_inode_mark(gfd, ino);
	ck_assert(fi.found);
	ck_assert_uint_eq(fi.mask, FAN_OPEN | FAN_CLOSE_WRITE);
	ck_assert_uint_eq(fi.ignored, 0);
	read_fdinfo(gfd, text, sizeof(text));
	ck_assert_int_eq(count_lines(text, "fanotify ino:"), 1);

	/* an ignore-only mark on the same inode: FAN_MARK_IGNORE_SURV */
	c = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, 0, FAN_MODIFY, 0, file);
	fi = fanotify_inode_mark(gfd, ino);
	ck_assert_uint_eq(fi.mask, FAN_OPEN | FAN_CLOSE_WRITE);
	ck_assert_uint_eq(fi.ignored, FAN_MODIFY);
	ck_assert_uint_eq(fi.mflags, FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY);
	/* another ignore style on it: refused */
	{
		struct fsn_mark_spec spec = *fsn_mark_get_spec(c);

		spec.flags = FSN_MARK_F_LEGACY_IGNORE;
		ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EEXIST);
	}
	d = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN, FAN_ACCESS, 0, file);
	fi = fanotify_inode_mark(gfd, ino);
	ck_assert_uint_eq(fi.ignored, FAN_MODIFY | FAN_ACCESS);

	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, a), 0); /* d still wants OPEN */
	fi = fanotify_inode_mark(gfd, ino);
	ck_assert_uint_eq(fi.mask, FAN_OPEN | FAN_CLOSE_WRITE);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, d), 0);
	fi = fanotify_inode_mark(gfd, ino);
	ck_assert_uint_eq(fi.mask, FAN_CLOSE_WRITE);
	ck_assert_uint_eq(fi.ignored, FAN_MODIFY);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, c), 0);
	fi = fanotify_inode_mark(gfd, ino);
	ck_assert_uint_eq(fi.mask, FAN_CLOSE_WRITE);
	ck_assert_uint_eq(fi.ignored, 0);

	/* exactly b's event */
	open_close(file, O_RDONLY);
	open_close(file, O_WRONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_CLOSE_WRITE);

	/* the last mark closes the group */
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, b), 0);
	ck_assert(!fd_is_open(gfd));
	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

START_TEST(test_fan_mount_and_evictable) {
	char dir[PATH_MAX], sub[PATH_MAX], file[PATH_MAX], text[8192];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b, *e1, *e2;
	struct fan_info fi;
	struct rec rc = { 0 };
	int gfd;

	tmpfs_setup(dir, sizeof(dir));
	test_join(sub, sizeof(sub), dir, "sub");
	test_join(file, sizeof(file), sub, "f");
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	touch(file);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);

	/* two paths on one mount: one kernel mount mark */
	a = add_fan(ctx, FSN_MARK_MOUNT, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN, 0, 0, dir);
	b = add_fan(ctx, FSN_MARK_MOUNT, FSN_CLASS_NOTIF, 0, 0, FAN_CLOSE_NOWRITE, 0, 0, sub);
	gfd = fsn_group_fd(fsn_mark_get_group(a));
	read_fdinfo(gfd, text, sizeof(text));
	ck_assert_int_eq(count_lines(text, "fanotify mnt_id:"), 1);
	fi = fanotify_mount_mark(gfd);
	ck_assert_uint_eq(fi.mask, FAN_OPEN | FAN_CLOSE_NOWRITE);
	open_close(file, O_RDONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_OPEN | FAN_CLOSE_NOWRITE);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, a), 0);
	fi = fanotify_mount_mark(gfd);
	ck_assert_uint_eq(fi.mask, FAN_CLOSE_NOWRITE);

	/* evictable while every mark on the inode is; adding a normal one
	 * upgrades it, removing it cannot downgrade */
	e1 = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_ACCESS, 0,
		     FSN_MARK_F_EVICTABLE, file);
	fi = fanotify_inode_mark(gfd, ino_of(file));
	ck_assert_uint_eq(fi.mflags & FAN_MARK_EVICTABLE, FAN_MARK_EVICTABLE);
	e2 = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_MODIFY, 0, 0, file);
	fi = fanotify_inode_mark(gfd, ino_of(file));
	ck_assert_uint_eq(fi.mflags & FAN_MARK_EVICTABLE, 0);
	ck_assert_uint_eq(fi.mask, FAN_ACCESS | FAN_MODIFY);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, e2), 0);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, e1), 0);
	ck_assert(!fanotify_inode_mark(gfd, ino_of(file)).found);

	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, b), 0);
	ck_assert(!fd_is_open(gfd));
	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

START_TEST(test_fan_dont_follow) {
	char dir[PATH_MAX], file[PATH_MAX], link[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b;
	int gfd;

	tmpfs_setup(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	test_join(link, sizeof(link), dir, "l");
	touch(file);
	ck_assert_int_eq(symlink("f", link), 0);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);

	a = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN, 0, 0, link);
	b = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_MODIFY, 0,
		    FSN_MARK_F_DONT_FOLLOW, link);
	gfd = fsn_group_fd(fsn_mark_get_group(a));
	ck_assert_uint_eq(fanotify_inode_mark(gfd, ino_of(file)).mask, FAN_OPEN);
	ck_assert_uint_eq(fanotify_inode_mark(gfd, ino_of(link)).mask, FAN_MODIFY);
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, b), 0);
	ck_assert(!fanotify_inode_mark(gfd, ino_of(link)).found);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

/* dir marked for child opens; ignore FAN_OPEN on "quiet" with `flags` */
static void ignore_case(uint32_t flags, uint32_t ignore_tag, bool hidden, unsigned want_mflags) {
	char dir[PATH_MAX], quiet[PATH_MAX], loud[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *p, *i;
	struct rec rc = { 0 };

	tmpfs_setup(dir, sizeof(dir));
	test_join(quiet, sizeof(quiet), dir, "quiet");
	test_join(loud, sizeof(loud), dir, "loud");
	touch(quiet);
	touch(loud);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	p = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN | FAN_EVENT_ON_CHILD, 0, 0,
		    dir);
	i = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, ignore_tag, 0, FAN_OPEN, flags, quiet);
	ck_assert_uint_eq(
	    fanotify_inode_mark(fsn_group_fd(fsn_mark_get_group(i)), ino_of(quiet)).mflags,
	    want_mflags);

	open_close(quiet, O_RDONLY);
	open_close(loud, O_RDONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), hidden ? 1 : 2);
	ck_assert_uint_eq(rc.ev[hidden ? 0 : 1].mask, FAN_OPEN);
	ck_assert_str_eq(rc.ev[hidden ? 0 : 1].fd_path, loud);
	if (!hidden)
		ck_assert_str_eq(rc.ev[0].fd_path, quiet);
	ck_assert_ptr_eq(rc.ev[0].group, fsn_mark_get_group(p));

	if (flags & FSN_MARK_F_IGNORE_NO_SURV) {
		/* a legacy ignored mask without SURV_MODIFY is cleared by MODIFY */
		int fd = open(quiet, O_WRONLY | O_CLOEXEC);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(dispatch(ctx, &rc), 0); /* this open still hidden */
		ck_assert_int_eq(write(fd, "x", 1), 1);
		close(fd);
		open_close(quiet, O_RDONLY);
		ck_assert_int_eq(dispatch(ctx, &rc), 1);
		ck_assert_str_eq(rc.ev[0].fd_path, quiet);
	} else if (hidden) {
		/* survives MODIFY */
		write_file(quiet, "x");
		open_close(quiet, O_RDONLY);
		ck_assert_int_eq(dispatch(ctx, &rc), 0);
	}

	/* removing the ignore mark brings the events back */
	ck_assert_int_eq(fsn_ctx_remove_mark(ctx, i), 0);
	open_close(quiet, O_RDONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), 1);
	ck_assert_str_eq(rc.ev[0].fd_path, quiet);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}

START_TEST(test_fan_ignore_new) {
	ignore_case(0, 0, true, FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY);
}
END_TEST

START_TEST(test_fan_ignore_legacy) {
	ignore_case(FSN_MARK_F_LEGACY_IGNORE, 0, true, FAN_MARK_IGNORED_SURV_MODIFY);
}
END_TEST

START_TEST(test_fan_ignore_legacy_no_surv) {
	ignore_case(FSN_MARK_F_IGNORE_NO_SURV, 0, true, 0);
}
END_TEST

START_TEST(test_fan_ignore_other_group) {
	/* an ignore mask applies within its group only */
	ignore_case(0, 7, false, FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY);
}
END_TEST

START_TEST(test_fan_groups) {
	char dir[PATH_MAX], file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *a, *b, *c, *d;
	struct fsn_group *ga, *gb, *gd;
	struct rec rc = { 0 };

	tmpfs_setup(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	touch(file);
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	a = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_OPEN, 0, 0, file);
	b = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 1, FAN_OPEN, 0, 0, file);
	c = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_NOTIF, 0, 0, FAN_ACCESS, 0, 0, dir);
	d = add_fan(ctx, FSN_MARK_INODE, FSN_CLASS_CONTENT, FAN_REPORT_TID, 0, FAN_ACCESS, 0, 0,
		    dir);
	ga = fsn_mark_get_group(a);
	gb = fsn_mark_get_group(b);
	gd = fsn_mark_get_group(d);
	ck_assert_ptr_eq(fsn_mark_get_group(c), ga);
	ck_assert_ptr_ne(ga, gb);
	ck_assert_ptr_ne(ga, gd);
	ck_assert_ptr_ne(gb, gd);
	ck_assert_uint_ne(fsn_group_get_id(ga), fsn_group_get_id(gb));
	ck_assert_uint_ne(fsn_group_get_id(ga), fsn_group_get_id(gd));
	ck_assert_uint_ne(fsn_group_get_id(gb), fsn_group_get_id(gd));
	ck_assert_uint_eq(fsn_group_get_tag(gb), 1);
	ck_assert_int_eq(fsn_group_get_class(gd), FSN_CLASS_CONTENT);
	ck_assert_uint_eq(fsn_group_get_report(gd), FAN_REPORT_TID);
	ck_assert_uint_eq(fanotify_init_flags(fsn_group_fd(ga)), FAN_CLOEXEC | FAN_NONBLOCK);
	ck_assert_uint_eq(fanotify_init_flags(fsn_group_fd(gd)),
			  FAN_CLOEXEC | FAN_NONBLOCK | FAN_CLASS_CONTENT | FAN_REPORT_TID);

	/* one open, one event per group */
	open_close(file, O_RDONLY);
	ck_assert_int_eq(dispatch(ctx, &rc), 2);
	ck_assert_uint_eq(rc.ev[0].mask, FAN_OPEN);
	ck_assert_uint_eq(rc.ev[1].mask, FAN_OPEN);
	ck_assert_ptr_ne(rc.ev[0].group, rc.ev[1].group);
	ck_assert(rc.ev[0].group == ga || rc.ev[0].group == gb);
	ck_assert(rc.ev[1].group == ga || rc.ev[1].group == gb);

	fsn_ctx_free(ctx);
	tmpfs_teardown(dir);
}
END_TEST

START_TEST(test_fan_errors_logged) {
	char dir[PATH_MAX], missing[PATH_MAX];
	struct fsn_ctx *ctx;
	struct logcap lc = { 0 };
	struct fsn_mark_spec spec = {
		.type = FSN_MARK_INODE,
		.mask = FAN_OPEN,
		.dirfd = AT_FDCWD,
	};
	int before;

	tmpfs_setup(dir, sizeof(dir));
	test_join(missing, sizeof(missing), dir, "missing");
	before = count_fds();
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	fsn_ctx_set_log(ctx, log_cb, &lc);

	spec.path = missing;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -ENOENT);
	ck_assert_int_eq(lc.lines, 1);
	ck_assert_ptr_nonnull(strstr(lc.text, "inode mark"));
	ck_assert_ptr_nonnull(strstr(lc.text, missing));
	ck_assert_ptr_nonnull(strstr(lc.text, "mask open"));
	ck_assert_ptr_nonnull(strstr(lc.text, strerror(ENOENT)));

	/* the kernel refuses dirent events without FID reporting */
	spec.path = dir;
	spec.mask = FAN_CREATE;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	ck_assert_int_eq(lc.lines, 2);
	ck_assert_ptr_nonnull(strstr(lc.text, "fanotify_mark: "));
	ck_assert_ptr_nonnull(strstr(lc.text, "mask create"));

	spec.mask = FAN_OPEN;
	spec.report = FAN_CLOEXEC;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	spec.report = 0;
	spec.klass = _FSN_CLASS_MAX;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	spec.klass = FSN_CLASS_NOTIF;
	spec.mask = 0;
	ck_assert_int_eq(fsn_ctx_add_mark(ctx, &spec, NULL), -EINVAL);
	ck_assert_int_eq(lc.lines, 5);
	ck_assert(!lc.raw_newline);

	/* no group left behind by the failures */
	ck_assert_int_eq(count_fds(), before + 1);
	fsn_ctx_free(ctx);
	ck_assert_int_eq(count_fds(), before);
	tmpfs_teardown(dir);
}
END_TEST

/* ---- permission events ---- */

/* A child that opens a file and reports the errno (0: success) through a
 * pipe. It closes every inherited fd first: a copy of a group fd would keep
 * the group (and so itself) blocked after the parent closed it. */
struct opener {
	pid_t pid;
	int rfd;
};

/* The openers' pipes open now (each holds one until its result is read). */
static int n_opener_pipes;

static void opener_start(struct opener *o, const char *path) {
	int p[2];

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	o->pid = fork();
	ck_assert_int_ge(o->pid, 0);
	if (o->pid == 0) {
		int fd, res;

		if (dup2(p[1], 3) != 3)
			_exit(99);
		syscall(SYS_close_range, 4U, ~0U, 0U);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		res = fd < 0 ? errno : 0;
		if (write(3, &res, sizeof(res)) != sizeof(res))
			_exit(98);
		_exit(0);
	}
	close(p[1]);
	o->rfd = p[0];
	n_opener_pipes++;
}

static bool opener_done(const struct opener *o) {
	return readable(o->rfd, 0);
}

/* The child's errno; fails the test if it does not finish in time. */
static int opener_result(struct opener *o) {
	int res = -1, status;

	ck_assert_msg(readable(o->rfd, TIMEOUT_MS), "opener %d still blocked", (int)o->pid);
	ck_assert_int_eq(read(o->rfd, &res, sizeof(res)), sizeof(res));
	close(o->rfd);
	n_opener_pipes--;
	ck_assert_int_eq(waitpid(o->pid, &status, 0), o->pid);
	/* not the status itself: under valgrind it is valgrind's */
	ck_assert(WIFEXITED(status));
	return res;
}

enum perm_action { PERM_NONE, PERM_RESPOND, PERM_TAKE };

struct perm_cb {
	enum perm_action action;
	enum fsn_verdict verdict;
	int err;
	bool audit;
	bool stop;               /* return -ECANCELED */
	struct fsn_mark *remove; /* remove this mark in the callback */
	int n;
	uint64_t mask;
	pid_t pid;
	int respond_ret, respond_again_ret;
	struct fsn_perm *perm[4];
	int n_perm;
	char fd_path[PATH_MAX];
};

static int perm_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct perm_cb *pc = userdata;

	pc->n++;
	pc->mask = ev->mask;
	pc->pid = ev->pid;
	ck_assert_int_ge(ev->fd, 0);
	ck_assert_int_gt(fsn_fd_path(ev->fd, pc->fd_path, sizeof(pc->fd_path), NULL), 0);
	switch (pc->action) {
	case PERM_RESPOND:
		pc->respond_ret = fsn_ctx_respond(ctx, ev, pc->verdict, pc->err, pc->audit);
		pc->respond_again_ret = fsn_ctx_respond(ctx, ev, FSN_ALLOW, 0, false);
		break;
	case PERM_TAKE:
		ck_assert_int_lt(pc->n_perm, (int)ELEMENTSOF(pc->perm));
		ck_assert_int_eq(fsn_event_take_perm(ctx, ev, &pc->perm[pc->n_perm]), 0);
		ck_assert_int_eq(ev->fd, -1);
		pc->respond_again_ret = fsn_ctx_respond(ctx, ev, FSN_ALLOW, 0, false);
		pc->n_perm++;
		break;
	default: break;
	}
	if (pc->remove) {
		ck_assert_int_eq(fsn_ctx_remove_mark(ctx, pc->remove), 0);
		pc->remove = NULL;
	}
	return pc->stop ? -ECANCELED : 0;
}

struct perm_env {
	char dir[PATH_MAX];
	char file[PATH_MAX];
	struct fsn_ctx *ctx;
	struct fsn_mark *mark;
};

static void perm_setup(struct perm_env *pe, enum fsn_class klass) {
	tmpfs_setup(pe->dir, sizeof(pe->dir));
	test_join(pe->file, sizeof(pe->file), pe->dir, "f");
	touch(pe->file);
	ck_assert_int_eq(fsn_ctx_new(&pe->ctx), 0);
	pe->mark = add_fan(pe->ctx, FSN_MARK_INODE, klass, 0, 0, FAN_OPEN_PERM, 0, 0, pe->file);
}

static void perm_teardown(struct perm_env *pe) {
	fsn_ctx_free(pe->ctx);
	tmpfs_teardown(pe->dir);
}

/* One child opens the file; dispatch its permission event through pc. */
static void perm_dispatch(struct perm_env *pe, struct opener *o, struct perm_cb *pc) {
	opener_start(o, pe->file);
	ck_assert_msg(readable(fsn_ctx_get_fd(pe->ctx), TIMEOUT_MS), "no permission event");
	ck_assert_int_eq(fsn_ctx_dispatch(pe->ctx, perm_cb, pc), pc->stop ? -ECANCELED : 1);
	ck_assert_uint_eq(pc->mask, FAN_OPEN_PERM);
	ck_assert_int_eq(pc->pid, o->pid);
	ck_assert_str_eq(pc->fd_path, pe->file);
}

START_TEST(test_perm_deny) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_RESPOND, .verdict = FSN_DENY };
	struct opener o;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(pc.respond_ret, 0);
	ck_assert_int_eq(pc.respond_again_ret, -EINVAL); /* answered already */
	ck_assert_int_eq(opener_result(&o), EPERM);
	ck_assert_int_eq(fsn_ctx_dispatch(pe.ctx, perm_cb, &pc), 0);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_allow) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_RESPOND, .verdict = FSN_ALLOW };
	struct opener o;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(pc.respond_ret, 0);
	ck_assert_int_eq(opener_result(&o), 0);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_unanswered_allowed) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_NONE };
	struct opener o;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(opener_result(&o), 0);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_take_respond_later) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_TAKE };
	struct opener o1, o2;
	char path[PATH_MAX];
	int fd;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	perm_dispatch(&pe, &o1, &pc);
	ck_assert_int_eq(pc.respond_again_ret, -EINVAL); /* taken */
	/* still blocked: the dispatch did not answer it */
	ck_assert(!opener_done(&o1));
	fd = fsn_perm_get_fd(pc.perm[0]);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fsn_fd_path(fd, path, sizeof(path), NULL), (int)strlen(pe.file));
	ck_assert_str_eq(path, pe.file);
	ck_assert_int_eq(fsn_perm_respond(pc.perm[0], FSN_DENY, 0, false), 0);
	ck_assert(!fd_is_open(fd));
	ck_assert_int_eq(opener_result(&o1), EPERM);

	/* freed without an answer: allowed */
	perm_dispatch(&pe, &o2, &pc);
	ck_assert(!opener_done(&o2));
	ck_assert_ptr_null(fsn_perm_free(pc.perm[1]));
	ck_assert_int_eq(opener_result(&o2), 0);

	ck_assert_ptr_null(fsn_perm_free(NULL));
	ck_assert_int_eq(fsn_perm_respond(NULL, FSN_ALLOW, 0, false), -EINVAL);
	ck_assert_int_eq(fsn_perm_get_fd(NULL), -EINVAL);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_deny_errno_content) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_RESPOND, .verdict = FSN_DENY, .err = EIO };
	struct opener o;

	/* FAN_DENY_ERRNO() is for pre-content groups only (the kernel says
	 * EINVAL): answered with a plain deny, and told so */
	perm_setup(&pe, FSN_CLASS_CONTENT);
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(pc.respond_ret, -EOPNOTSUPP);
	ck_assert_int_eq(opener_result(&o), EPERM);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_deny_errno_pre_content) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_RESPOND, .verdict = FSN_DENY, .err = EIO };
	struct opener o;

	perm_setup(&pe, FSN_CLASS_PRE_CONTENT);
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(pc.respond_ret, 0);
	ck_assert_int_eq(opener_result(&o), EIO);

	/* an errno the kernel does not allow for open: plain deny */
	pc.err = ENOENT;
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(pc.respond_ret, -EOPNOTSUPP);
	ck_assert_int_eq(opener_result(&o), EPERM);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_audit) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_RESPOND, .verdict = FSN_ALLOW, .audit = true };
	struct opener o;
	bool audit;
	int fd;

	/* FAN_ENABLE_AUDIT needs CAP_AUDIT_WRITE and CONFIG_AUDITSYSCALL (and
	 * fdinfo does not show it): try it as the library does */
	fd = fanotify_init(FAN_CLOEXEC | FAN_CLASS_CONTENT | FAN_ENABLE_AUDIT, O_RDONLY);
	audit = fd >= 0;
	if (fd >= 0)
		close(fd);
	else
		ck_assert(errno == EINVAL || errno == EPERM);
	perm_setup(&pe, FSN_CLASS_CONTENT);
	perm_dispatch(&pe, &o, &pc);
	ck_assert_int_eq(pc.respond_ret, audit ? 0 : -EOPNOTSUPP);
	ck_assert_int_eq(opener_result(&o), 0);
	perm_teardown(&pe);
}
END_TEST

START_TEST(test_perm_taken_outlives_marks_and_ctx) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_TAKE };
	struct opener o1, o2;
	int gfd;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	gfd = fsn_group_fd(fsn_mark_get_group(pe.mark));
	perm_dispatch(&pe, &o1, &pc);

	/* o2 queues an event nobody reads; removing the last mark takes the
	 * group out of the context, but the taken event keeps it open: what
	 * was still queued is answered (allowed) right away */
	opener_start(&o2, pe.file);
	ck_assert(readable(fsn_ctx_get_fd(pe.ctx), TIMEOUT_MS));
	ck_assert_int_eq(fsn_ctx_remove_mark(pe.ctx, pe.mark), 0);
	ck_assert(fd_is_open(gfd));
	ck_assert_int_eq(opener_result(&o2), 0);
	ck_assert(!opener_done(&o1));

	/* and it outlives the context */
	fsn_ctx_free(pe.ctx);
	pe.ctx = NULL;
	ck_assert(fd_is_open(gfd));
	ck_assert(!opener_done(&o1));
	ck_assert_int_eq(fsn_perm_respond(pc.perm[0], FSN_DENY, 0, false), 0);
	ck_assert_int_eq(opener_result(&o1), EPERM);
	ck_assert(!fd_is_open(gfd)); /* the last reference closed it */
	tmpfs_teardown(pe.dir);
}
END_TEST

START_TEST(test_perm_ctx_free_releases) {
	struct perm_env pe;
	struct opener o;

	/* queued, never read: closing the group lets it through */
	perm_setup(&pe, FSN_CLASS_CONTENT);
	opener_start(&o, pe.file);
	ck_assert(readable(fsn_ctx_get_fd(pe.ctx), TIMEOUT_MS));
	ck_assert(!opener_done(&o));
	perm_teardown(&pe);
	ck_assert_int_eq(opener_result(&o), 0);
}
END_TEST

/* Wait until a group has at least `bytes` queued. The kernel has no
 * notification for "a second event was queued" (the fd is readable since
 * the first), so this polls FIONREAD, with a deadline. */
static void wait_queued(int gfd, int bytes) {
	struct timespec start, now;
	int n = 0;

	ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &start), 0);
	for (;;) {
		ck_assert_int_eq(ioctl(gfd, FIONREAD, &n), 0);
		if (n >= bytes)
			return;
		ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &now), 0);
		ck_assert_msg((now.tv_sec - start.tv_sec) * 1000 < TIMEOUT_MS,
			      "only %d bytes queued", n);
		(void)poll(NULL, 0, 1);
	}
}

START_TEST(test_perm_read_not_dispatched) {
	struct perm_env pe;
	struct perm_cb pc = { .action = PERM_TAKE, .stop = true };
	struct opener o1, o2, o3, o4;
	int gfd;

	/* Two permission events in one read; the callback takes the first
	 * and stops. The second, read but not handed out, is answered when
	 * its group leaves the context although the taken one keeps the
	 * group fd open (closing it would not release the second). */
	perm_setup(&pe, FSN_CLASS_CONTENT);
	gfd = fsn_group_fd(fsn_mark_get_group(pe.mark));
	opener_start(&o1, pe.file);
	opener_start(&o2, pe.file);
	wait_queued(gfd, 2 * FAN_EVENT_METADATA_LEN);
	ck_assert_int_eq(fsn_ctx_dispatch(pe.ctx, perm_cb, &pc), -ECANCELED);
	ck_assert_int_eq(pc.n, 1);
	ck_assert(readable(fsn_ctx_get_fd(pe.ctx), 0)); /* the kept one */
	ck_assert(!opener_done(&o1));
	ck_assert(!opener_done(&o2));
	fsn_ctx_free(pe.ctx);
	pe.ctx = NULL;
	/* o1 or o2 (their order in the queue is theirs) */
	if (pc.pid == o1.pid) {
		ck_assert_int_eq(opener_result(&o2), 0);
		ck_assert(!opener_done(&o1));
		ck_assert_int_eq(fsn_perm_respond(pc.perm[0], FSN_DENY, 0, false), 0);
		ck_assert_int_eq(opener_result(&o1), EPERM);
	} else {
		ck_assert_int_eq(pc.pid, o2.pid);
		ck_assert_int_eq(opener_result(&o1), 0);
		ck_assert(!opener_done(&o2));
		ck_assert_int_eq(fsn_perm_respond(pc.perm[0], FSN_DENY, 0, false), 0);
		ck_assert_int_eq(opener_result(&o2), EPERM);
	}

	/* same, but the callback removes the group's last mark */
	ck_assert_int_eq(fsn_ctx_new(&pe.ctx), 0);
	pe.mark =
	    add_fan(pe.ctx, FSN_MARK_INODE, FSN_CLASS_CONTENT, 0, 0, FAN_OPEN_PERM, 0, 0, pe.file);
	gfd = fsn_group_fd(fsn_mark_get_group(pe.mark));
	pc = (struct perm_cb){ .action = PERM_TAKE, .remove = pe.mark };
	opener_start(&o3, pe.file);
	opener_start(&o4, pe.file);
	wait_queued(gfd, 2 * FAN_EVENT_METADATA_LEN);
	ck_assert_int_eq(fsn_ctx_dispatch(pe.ctx, perm_cb, &pc), 1);
	ck_assert(fd_is_open(gfd));
	if (pc.pid == o3.pid) {
		ck_assert_int_eq(opener_result(&o4), 0);
		ck_assert_ptr_null(fsn_perm_free(pc.perm[0]));
		ck_assert_int_eq(opener_result(&o3), 0);
	} else {
		ck_assert_int_eq(opener_result(&o3), 0);
		ck_assert_ptr_null(fsn_perm_free(pc.perm[0]));
		ck_assert_int_eq(opener_result(&o4), 0);
	}
	ck_assert(!fd_is_open(gfd));
	perm_teardown(&pe);
}
END_TEST

/* ---- the fd budget (fsn_fd_budget) ---- */

/* The fds open now on path (event fds of its permission events). */
static int fds_on(const char *path) {
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char link[300], target[PATH_MAX];
		ssize_t k;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		k = readlink(link, target, sizeof(target) - 1);
		if (k <= 0)
			continue;
		target[k] = '\0';
		n += strcmp(target, path) == 0;
	}
	closedir(d);
	return n;
}

/* What a budget test's callback does with each permission event. */
struct budget_cb {
	bool take;    /* fsn_event_take_perm() */
	bool take_fd; /* fsn_event_take_fd() first (the fd becomes the test's) */
	int stop_at;  /* > 0: -ECANCELED from that event of the dispatch (1-based) */
	int n;        /* events this dispatch */
	int fds[16];  /* taken fds */
	int n_fds;
	struct fsn_perm *perm[16];
	pid_t pid[16]; /* of each taken event */
	int n_perm;
	struct fsn_fd_budget *b;
	int max_held; /* the most the budget held in a callback */
};

static int budget_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct budget_cb *bc = userdata;
	int held = (int)fsn_fd_budget_get_held(bc->b);

	bc->n++;
	if (held > bc->max_held)
		bc->max_held = held;
	ck_assert_int_ge(ev->fd, 0);
	if (bc->take_fd) {
		ck_assert_int_lt(bc->n_fds, (int)ELEMENTSOF(bc->fds));
		bc->fds[bc->n_fds++] = fsn_event_take_fd(ev);
	}
	if (bc->take) {
		ck_assert_int_lt(bc->n_perm, (int)ELEMENTSOF(bc->perm));
		bc->pid[bc->n_perm] = ev->pid;
		ck_assert_int_eq(fsn_event_take_perm(ctx, ev, &bc->perm[bc->n_perm++]), 0);
	}
	return bc->stop_at > 0 && bc->n == bc->stop_at ? -ECANCELED : 0;
}

static int budget_dispatch(struct fsn_ctx *ctx, struct budget_cb *bc) {
	bc->n = 0;
	return fsn_ctx_dispatch(ctx, budget_cb, bc);
}

/* The result of the opener with pid among o[0, n) (the kernel queues
 * their events in the order they reached open(), not the order they were
 * started in). */
static int result_of(struct opener *o, int n, pid_t pid) {
	for (int i = 0; i < n; i++)
		if (o[i].pid == pid)
			return opener_result(&o[i]);
	ck_abort_msg("no opener %d", (int)pid);
	return -1;
}

/* The results of o[0, n) but the one of pid: each must be 0. */
static void others_allowed(struct opener *o, int n, pid_t pid) {
	for (int i = 0; i < n; i++)
		if (o[i].pid != pid)
			ck_assert_int_eq(opener_result(&o[i]), 0);
}

/* n openers of pe's file, their events queued in its group. */
static void openers_queued(struct perm_env *pe, struct opener *o, int n) {
	int gfd = fsn_group_fd(fsn_mark_get_group(pe->mark));

	for (int i = 0; i < n; i++)
		opener_start(&o[i], pe->file);
	wait_queued(gfd, n * (int)FAN_EVENT_METADATA_LEN);
}

/* A budget of 3 bounds the event fds held, whatever RLIMIT_NOFILE says:
 * 6 opens at once, each taken to answer later: 3 are read, the rest wait
 * in the kernel queue (fsn_ctx_fd_starved()) until answers give fds back,
 * one read at a time; held always equals the event fds really open. */
START_TEST(test_fd_budget_bounds_reads) {
	struct budget_cb bc = { .take = true };
	struct perm_env pe;
	struct opener o[6];
	struct rlimit saved, low;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	ck_assert_int_eq(fsn_fd_budget_new(3, &bc.b), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, bc.b), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_max(bc.b), 3);
	openers_queued(&pe, o, 6);
	/* the budget is the caller's word: no limit is looked at (counted
	 * free fds, this limit would leave none) */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	low = saved;
	low.rlim_cur = (rlim_t)count_fds() + 4;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);

	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 3);
	ck_assert_int_eq(bc.n_perm, 3);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 3);
	ck_assert_int_eq(fds_on(pe.file), 3);
	ck_assert(fsn_ctx_fd_starved(pe.ctx));
	ck_assert(!fsn_ctx_is_drained(pe.ctx));
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 0);
	ck_assert(fsn_ctx_fd_starved(pe.ctx));

	/* an answer gives one back: one more event is read */
	ck_assert_int_eq(fsn_perm_respond(bc.perm[0], FSN_ALLOW, 0, false), 0);
	ck_assert_int_eq(result_of(o, 6, bc.pid[0]), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 2);
	ck_assert_int_eq(fds_on(pe.file), 2);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 1);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 3);
	ck_assert_int_eq(fds_on(pe.file), 3);

	/* so does a taken event freed unanswered (allowed) */
	fsn_perm_free(bc.perm[1]);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 2);
	ck_assert_int_eq(fds_on(pe.file), 2);

	/* a raised bound reads the rest at once */
	ck_assert_int_eq(fsn_fd_budget_set_max(bc.b, 8), 0);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 2);
	ck_assert(!fsn_ctx_fd_starved(pe.ctx));
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 4);
	ck_assert_int_eq(fds_on(pe.file), 4);
	for (int i = 2; i < bc.n_perm; i++)
		ck_assert_int_eq(fsn_perm_respond(bc.perm[i], FSN_ALLOW, 0, false), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	ck_assert_int_le(bc.max_held, 8);
	others_allowed(o, 6, bc.pid[0]); /* none denied */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	fsn_fd_budget_unref(bc.b);
	perm_teardown(&pe);
}
END_TEST

/* Every way an event fd leaves the library gives it back once: closed
 * after the callback, taken by the callback (then the caller's), left by
 * a callback's error (held until dispatched or released), a taken event
 * outliving its context, events released when the context goes. */
START_TEST(test_fd_budget_every_path) {
	struct budget_cb bc = { 0 };
	struct perm_env pe;
	struct opener o[4];
	struct fsn_perm *kept;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	ck_assert_int_eq(fsn_fd_budget_new(8, &bc.b), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, bc.b), 0);

	/* closed by the library after the callback */
	openers_queued(&pe, o, 2);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 2);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(opener_result(&o[i]), 0);

	/* taken by the callback: no longer the budget's, still open */
	bc.take_fd = true;
	openers_queued(&pe, o, 1);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 1);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	ck_assert_int_eq(fds_on(pe.file), 1);
	ck_assert(fd_is_open(bc.fds[0]));
	ck_assert_int_eq(opener_result(&o[0]), 0);
	close(bc.fds[0]);
	bc.take_fd = false;

	/* a callback's error leaves two read events: held until handed out */
	bc.stop_at = 1;
	openers_queued(&pe, o, 3);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), -ECANCELED);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 2);
	ck_assert_int_eq(fds_on(pe.file), 2);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, NULL), -EBUSY);
	bc.stop_at = 0;
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 2);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(opener_result(&o[i]), 0);

	/* a taken event outlives its context and keeps its fd counted; two
	 * events read and left by an error are released with the context */
	bc.take = true;
	bc.stop_at = 1;
	openers_queued(&pe, o, 3);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), -ECANCELED);
	kept = bc.perm[0];
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 3);
	fsn_ctx_free(pe.ctx);
	pe.ctx = NULL;
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 1);
	others_allowed(o, 3, bc.pid[0]);
	ck_assert_int_eq(fsn_perm_respond(kept, FSN_DENY, 0, false), 0);
	ck_assert_int_eq(result_of(o, 3, bc.pid[0]), EPERM);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	fsn_fd_budget_unref(bc.b);
	tmpfs_teardown(pe.dir);
}
END_TEST

/* A group leaving the context while a taken event keeps it open: what is
 * still queued is read and allowed no more at once than the budget has
 * room for (here one: the taken event holds the other). */
START_TEST(test_fd_budget_drain_leaving_group) {
	struct budget_cb bc = { .take = true, .stop_at = 1 };
	struct perm_env pe;
	struct opener o[4];

	perm_setup(&pe, FSN_CLASS_CONTENT);
	ck_assert_int_eq(fsn_fd_budget_new(2, &bc.b), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, bc.b), 0);
	openers_queued(&pe, o, 1);
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), -ECANCELED);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 1);
	for (int i = 1; i < 4; i++)
		opener_start(&o[i], pe.file);
	wait_queued(fsn_group_fd(fsn_mark_get_group(pe.mark)), 3 * (int)FAN_EVENT_METADATA_LEN);
	ck_assert_int_eq(fsn_ctx_remove_mark(pe.ctx, pe.mark), 0);
	for (int i = 1; i < 4; i++)
		ck_assert_int_eq(opener_result(&o[i]), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 1);
	ck_assert_int_eq(fsn_perm_respond(bc.perm[0], FSN_ALLOW, 0, false), 0);
	ck_assert_int_eq(opener_result(&o[0]), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	fsn_fd_budget_unref(bc.b);
	perm_teardown(&pe);
}
END_TEST

/* FAN_REPORT_PIDFD: each event holds two fds (its fd and its pidfd), so a
 * budget of 3 reads one event at a time; a pidfd the callback keeps leaves
 * the budget. */
START_TEST(test_fd_budget_pidfd) {
	struct budget_cb bc = { .take = true };
	struct perm_env pe;
	struct opener o[2];

	tmpfs_setup(pe.dir, sizeof(pe.dir));
	test_join(pe.file, sizeof(pe.file), pe.dir, "f");
	touch(pe.file);
	ck_assert_int_eq(fsn_ctx_new(&pe.ctx), 0);
	{
		struct fsn_mark_spec spec = { .type = FSN_MARK_INODE,
					      .klass = FSN_CLASS_CONTENT,
					      .report = FAN_REPORT_PIDFD,
					      .mask = FAN_OPEN_PERM,
					      .dirfd = AT_FDCWD,
					      .path = pe.file };
		int r = fsn_ctx_add_mark(pe.ctx, &spec, &pe.mark);

		if (r == -EINVAL) {
			perm_teardown(&pe);
			fsn_test_skip("FAN_REPORT_PIDFD not supported by this kernel");
		}
		ck_assert_int_eq(r, 0);
	}
	ck_assert_int_eq(fsn_fd_budget_new(3, &bc.b), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, bc.b), 0);
	openers_queued(&pe, o, 2);
	/* one event per read: after the first, its pidfd was closed and its
	 * fd is the perm's (1 held), so the second read has room for one */
	ck_assert_int_eq(budget_dispatch(pe.ctx, &bc), 2);
	ck_assert_int_eq(bc.max_held, 3);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 2);
	ck_assert_int_eq(fds_on(pe.file), 2);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(fsn_perm_respond(bc.perm[i], FSN_ALLOW, 0, false), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(opener_result(&o[i]), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(bc.b), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	fsn_fd_budget_unref(bc.b);
	perm_teardown(&pe);
}
END_TEST

/* A FID group with FAN_REPORT_PIDFD, on a tmpfs dir: its events carry no
 * fd but a pidfd each, counted in the budget. pidfd_cb counts them: kept
 * (a pidfd of this process, which runs), FAN_EPIDFD, and the most the
 * budget held in a callback. */
struct pidfd_cb {
	struct fsn_fd_budget *b;
	int n, kept, epidfd, max_held;
};

static int pidfd_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct pidfd_cb *pc = userdata;
	int held = (int)fsn_fd_budget_get_held(pc->b);

	(void)ctx;
	pc->n++;
	pc->max_held = held > pc->max_held ? held : pc->max_held;
	ck_assert_int_lt(ev->fd, 0);
	ck_assert(ev->has & FSN_HAS_PIDFD);
	if (ev->pidfd >= 0 && syscall(SYS_pidfd_send_signal, ev->pidfd, 0, NULL, 0) == 0)
		pc->kept++;
	else if (ev->pidfd == FAN_EPIDFD)
		pc->epidfd++;
	return 0;
}

/* A context with such a group on a fresh tmpfs dir, with budget b, and n
 * files created in dir (skips where the kernel has no FAN_REPORT_PIDFD). */
static struct fsn_ctx *pidfd_setup(char *dir, size_t len, struct fsn_fd_budget *b, int n) {
	struct fsn_mark_spec spec = { .type = FSN_MARK_INODE,
				      .klass = FSN_CLASS_NOTIF,
				      .report =
					  FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_PIDFD,
				      .mask = FAN_CREATE,
				      .dirfd = AT_FDCWD };
	struct fsn_mark *m = NULL;
	struct fsn_ctx *ctx;
	char p[PATH_MAX];
	int r;

	tmpfs_setup(dir, len);
	spec.path = dir;
	ck_assert_int_eq(fsn_ctx_new(&ctx), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(ctx, b), 0);
	r = fsn_ctx_add_mark(ctx, &spec, &m);
	if (r == -EINVAL) {
		fsn_ctx_free(ctx);
		tmpfs_teardown(dir);
		fsn_test_skip("FAN_REPORT_PIDFD with FID reporting not supported by this kernel");
	}
	ck_assert_int_eq(r, 0);
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%03d", i);
		test_join(p, sizeof(p), dir, name);
		touch(p);
	}
	return ctx;
}

/* Read by the dispatch: never more pidfds than the budget has room for;
 * a read asks for room for the longest FID event, so a budget smaller
 * than 33 of its smallest events reads none (starved: the events wait). */
START_TEST(test_fd_budget_fid_pidfd) {
	struct pidfd_cb pc = { .n = 0 };
	struct fsn_fd_budget *small;
	struct fsn_ctx *ctx;
	char dir[PATH_MAX];

	ck_assert_int_eq(fsn_fd_budget_new(10, &small), 0);
	ck_assert_int_eq(fsn_fd_budget_new(40, &pc.b), 0);
	ctx = pidfd_setup(dir, sizeof(dir), small, 50);
	ck_assert_int_eq(fsn_ctx_dispatch(ctx, pidfd_cb, &pc), 0);
	ck_assert_int_eq(pc.n, 0);
	ck_assert(fsn_ctx_fd_starved(ctx));
	/* room for 40: every event, 40 pidfds at most at once */
	ck_assert_int_eq(fsn_ctx_set_fd_budget(ctx, pc.b), 0);
	while (pc.n < 50 && fsn_ctx_dispatch(ctx, pidfd_cb, &pc) > 0)
		;
	ck_assert_int_eq(pc.n, 50);
	ck_assert_int_eq(pc.kept, 50);
	ck_assert_int_le(pc.max_held, 40);
	ck_assert_int_gt(pc.max_held, 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(pc.b), 0);
	fsn_ctx_free(ctx);
	fsn_fd_budget_unref(small);
	fsn_fd_budget_unref(pc.b);
	tmpfs_teardown(dir);
}
END_TEST

/* Drained by the reader thread: it keeps the pidfds the budget has room
 * for (40 of 100 events read at once) and closes the others as it reads
 * them (FAN_EPIDFD); every event is handed out, every pidfd given back. */
START_TEST(test_reader_pidfds) {
	struct pidfd_cb pc = { .n = 0 };
	struct fsn_reader_stats st;
	struct fsn_ctx *ctx;
	char dir[PATH_MAX];

	ck_assert_int_eq(fsn_fd_budget_new(40, &pc.b), 0);
	/* (queued before the thread starts: its first read takes them all) */
	ctx = pidfd_setup(dir, sizeof(dir), pc.b, 100);
	ck_assert_int_eq(fsn_ctx_set_reader(ctx, 1 << 20), 0);
	for (int tries = 0; pc.n < 100 && tries < 30000; tries++) {
		ck_assert_int_ge(fsn_ctx_dispatch(ctx, pidfd_cb, &pc), 0);
		if (pc.n < 100)
			usleep(1000);
	}
	ck_assert_int_eq(pc.n, 100);
	ck_assert_int_eq(fsn_ctx_get_reader_stats(ctx, &st), 0);
	ck_assert_uint_gt(st.peak, 0); /* (the thread read them) */
	ck_assert_int_eq(pc.kept, 40);
	ck_assert_int_eq(pc.epidfd, 60);
	ck_assert_int_le(pc.max_held, 40);
	ck_assert_uint_eq(fsn_fd_budget_get_held(pc.b), 0);
	fsn_ctx_free(ctx);
	fsn_fd_budget_unref(pc.b);
	tmpfs_teardown(dir);
}
END_TEST

/* ---- answers written together ---- */

struct answer_cb {
	bool take_fd; /* take the fd after answering (the test's then) */
	bool flush;   /* fsn_ctx_flush() after answering, then wait for the opener */
	struct opener *o;
	int n_o;
	int fds[4];
	int n_fds;
	bool seen_done; /* (flush) the opener got its answer inside the callback */
	int bad;        /* answers that failed (no ck_assert here: see below) */
};

static int answer_cb(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct answer_cb *ac = userdata;

	ac->bad += fsn_ctx_respond(ctx, ev, FSN_ALLOW, 0, false) != 0;
	if (ac->take_fd) {
		ck_assert_int_lt(ac->n_fds, (int)ELEMENTSOF(ac->fds));
		ac->fds[ac->n_fds++] = fsn_event_take_fd(ev);
	}
	if (ac->flush) {
		ck_assert_int_eq(fsn_ctx_flush(ctx), 0);
		for (int i = 0; i < ac->n_o; i++)
			if (ac->o[i].pid == ev->pid)
				ac->seen_done = readable(ac->o[i].rfd, TIMEOUT_MS);
		ck_assert(fd_is_open(ev->fd)); /* the callback's until it returns */
	}
	return 0;
}

/* With an fd budget, two events in one read cost one read, one writev()
 * and two close(): counted by the kernel (a perf counter of this thread's
 * system calls). One write per answer would be five; counting free fds
 * without a budget, a dozen more. */
START_TEST(test_answers_written_together) {
	struct answer_cb ac = { 0 };
	struct fsn_fd_budget *b;
	struct perm_env pe;
	struct opener o[2];
	sigset_t chld, saved;
	uint64_t n, self;
	int counter, r;

	perm_setup(&pe, FSN_CLASS_CONTENT);
	ck_assert_int_eq(fsn_fd_budget_new(8, &b), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, b), 0);
	fsn_fd_budget_unref(b); /* (the context holds it) */
	counter = test_syscall_counter(0);
	if (counter < 0) {
		perm_teardown(&pe);
		fsn_test_skip("no system call counter: %s", strerror(-counter));
	}
	openers_queued(&pe, o, 2);
	/* the group's own fd, to poll: readable as the context's is */
	ck_assert_int_eq(fsn_group_get_fd(NULL), -EINVAL);
	ck_assert_int_eq(fsn_group_get_fd(fsn_mark_get_group(pe.mark)),
			 fsn_group_fd(fsn_mark_get_group(pe.mark)));
	ck_assert(readable(fsn_group_get_fd(fsn_mark_get_group(pe.mark)), 0));
	/* (no assertion in between: Check writes to its pipe for each; no
	 * SIGCHLD of an opener: a handler's return is a system call) */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &saved);
	/* what reading the counter itself adds */
	n = test_syscall_count(counter);
	self = test_syscall_count(counter) - n;
	n = test_syscall_count(counter);
	r = fsn_ctx_dispatch(pe.ctx, answer_cb, &ac);
	n = test_syscall_count(counter) - n - self;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	ck_assert_int_eq(r, 2);
	ck_assert_int_eq(ac.bad, 0);
	ck_assert_msg(n == 4, "%" PRIu64 " system calls to answer two events", n);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(opener_result(&o[i]), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	close(counter);
	perm_teardown(&pe);
}
END_TEST

/* An fd taken after the answer stays the caller's (the queued answer does
 * not close it); fsn_ctx_flush() answers at once, and the callback's event
 * fd stays open until it returns, then is closed once. */
START_TEST(test_answers_taken_and_flushed) {
	struct answer_cb ac = { .take_fd = true };
	struct fsn_fd_budget *b;
	struct perm_env pe;
	struct opener o[2];

	perm_setup(&pe, FSN_CLASS_CONTENT);
	ck_assert_int_eq(fsn_fd_budget_new(8, &b), 0);
	ck_assert_int_eq(fsn_ctx_set_fd_budget(pe.ctx, b), 0);
	openers_queued(&pe, o, 2);
	ck_assert_int_eq(fsn_ctx_dispatch(pe.ctx, answer_cb, &ac), 2);
	ck_assert_int_eq(ac.bad, 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(opener_result(&o[i]), 0);
		ck_assert(fd_is_open(ac.fds[i]));
		close(ac.fds[i]);
	}
	ck_assert_uint_eq(fsn_fd_budget_get_held(b), 0);

	ac = (struct answer_cb){ .flush = true, .o = o, .n_o = 1 };
	openers_queued(&pe, o, 1);
	ck_assert_int_eq(fsn_ctx_dispatch(pe.ctx, answer_cb, &ac), 1);
	ck_assert(ac.seen_done);
	ck_assert_int_eq(opener_result(&o[0]), 0);
	ck_assert_int_eq(fds_on(pe.file), 0);
	ck_assert_uint_eq(fsn_fd_budget_get_held(b), 0);
	fsn_fd_budget_unref(b);
	perm_teardown(&pe);
}
END_TEST

static void ctx_fanotify_suite(Suite *s) {
	TCase *tc = tcase_create("marks");

	tcase_add_test(tc, test_fan_inode_open_close);
	tcase_add_test(tc, test_fan_fd_starved);
	tcase_add_test(tc, test_fan_take_fd_and_pidfd);
	tcase_add_test(tc, test_fan_filesystem_dfid_name);
	tcase_add_test(tc, test_fan_mark_fid_and_dir_cache);
	tcase_add_test(tc, test_fan_name_taken_later);
	tcase_add_test(tc, test_fan_queue_max);
	tcase_add_test(tc, test_reader_bound);
	tcase_add_test(tc, test_reader_order);
	tcase_add_test(tc, test_reader_group_leaves);
	tcase_add_test(tc, test_reader_drained_exact);
	tcase_add_test(tc, test_queue_mark);
	tcase_add_test(tc, test_fan_marks_combine);
	tcase_add_test(tc, test_fan_mount_and_evictable);
	tcase_add_test(tc, test_fan_dont_follow);
	tcase_add_test(tc, test_fan_ignore_new);
	tcase_add_test(tc, test_fan_ignore_legacy);
	tcase_add_test(tc, test_fan_ignore_legacy_no_surv);
	tcase_add_test(tc, test_fan_ignore_other_group);
	tcase_add_test(tc, test_fan_groups);
	tcase_add_test(tc, test_fan_errors_logged);
	suite_add_tcase(s, tc);

	tc = tcase_create("permission");
	tcase_add_test(tc, test_perm_deny);
	tcase_add_test(tc, test_perm_allow);
	tcase_add_test(tc, test_perm_unanswered_allowed);
	tcase_add_test(tc, test_perm_take_respond_later);
	tcase_add_test(tc, test_perm_deny_errno_content);
	tcase_add_test(tc, test_perm_deny_errno_pre_content);
	tcase_add_test(tc, test_perm_audit);
	tcase_add_test(tc, test_perm_taken_outlives_marks_and_ctx);
	tcase_add_test(tc, test_perm_ctx_free_releases);
	tcase_add_test(tc, test_perm_read_not_dispatched);
	tcase_add_test(tc, test_fd_budget_bounds_reads);
	tcase_add_test(tc, test_fd_budget_every_path);
	tcase_add_test(tc, test_fd_budget_drain_leaving_group);
	tcase_add_test(tc, test_fd_budget_pidfd);
	tcase_add_test(tc, test_fd_budget_fid_pidfd);
	tcase_add_test(tc, test_reader_pidfds);
	tcase_add_test(tc, test_answers_written_together);
	tcase_add_test(tc, test_answers_taken_and_flushed);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE_ROOT("ctx-fanotify", ctx_fanotify_suite);
