/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-resolve.c — the "resolve" suite: daemon/resolve.c, how the daemon
 * walks a rule's path. On a temporary tree: plain paths, symlinks the
 * daemon's user controls (followed: absolute, relative, with ".."),
 * symlinks another user controls or in a directory others can write to
 * (refused, where the walk stopped), missing components and dangling
 * symlinks (missing, in the directory where the walk stopped, which the
 * waiters watch), a file in the middle, a loop, mkdir on the way (never
 * through a refused symlink), a final symlink not followed, the list of
 * symlinks followed, and the words of each outcome. symlink_trusted() on
 * crafted stats. Another user's symlink is made by lchown() as root, else
 * by resolving as another user (a test's own symlinks are then foreign).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve.h"
#include "unit.h"

struct tree {
	char dir[PATH_MAX];
	char p[8][PATH_MAX];
};

/* D/a/b/file, D/a/b/c/ */
static void tree_init(struct tree *t) {
	char p[PATH_MAX];
	int fd;

	test_tmpdir(t->dir, sizeof(t->dir));
	test_join(p, sizeof(p), t->dir, "a");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_join(p, sizeof(p), t->dir, "a/b");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_join(p, sizeof(p), t->dir, "a/b/c");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_join(p, sizeof(p), t->dir, "a/b/file");
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* D/name, into t->p[i] */
static const char *P(struct tree *t, int i, const char *name) {
	test_join(t->p[i], sizeof(t->p[i]), t->dir, name);
	return t->p[i];
}

static void link_at(struct tree *t, const char *target, const char *name) {
	char p[PATH_MAX];

	test_join(p, sizeof(p), t->dir, name);
	ck_assert_int_eq(symlink(target, p), 0);
}

/* The uid to resolve as so that the symlink name (in D) is another
 * user's: as root it is given to uid 65534; else the test resolves as
 * another uid than its own. */
static uid_t foreign(struct tree *t, const char *name) {
	char p[PATH_MAX];

	if (geteuid() != 0)
		return geteuid() + 1;
	test_join(p, sizeof(p), t->dir, name);
	ck_assert_int_eq(lchown(p, 65534, 65534), 0);
	return 0;
}

static void assert_same(const struct resolved *r, const char *path) {
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_ge(r->fd, 0);
	ck_assert_uint_eq(r->st.st_dev, st.st_dev);
	ck_assert_uint_eq(r->st.st_ino, st.st_ino);
}

START_TEST(test_plain) {
	struct tree t;
	struct resolved r;
	struct stat st;

	tree_init(&t);
	ck_assert_int_eq(path_resolve(P(&t, 0, "a/b/file"), geteuid(), 0, &r), 0);
	ck_assert_int_eq(r.stop, RESOLVE_OK);
	ck_assert_str_eq(r.path, t.p[0]);
	assert_same(&r, t.p[0]);
	ck_assert_int_eq(fstat(r.fd, &st), 0); /* the fd is the object */
	ck_assert_uint_eq(st.st_ino, r.st.st_ino);
	ck_assert_int_eq(r.dir_fd, -1);
	resolved_done(&r);
	/* "/" itself, "." and trailing slashes */
	ck_assert_int_eq(path_resolve("/", geteuid(), 0, &r), 0);
	ck_assert_str_eq(r.path, "/");
	assert_same(&r, "/");
	resolved_done(&r);
	P(&t, 1, "./a//b/c/");
	ck_assert_int_eq(path_resolve(t.p[1], geteuid(), 0, &r), 0);
	ck_assert_str_eq(r.path, P(&t, 2, "a/b/c"));
	resolved_done(&r);
	/* not absolute */
	ck_assert_int_eq(path_resolve("a/b", geteuid(), 0, &r), -EINVAL);
	ck_assert_int_eq(r.stop, RESOLVE_FAILED);
	ck_assert_int_eq(r.fd, -1);
	resolved_done(&r);
	test_rm_tree(t.dir);
}
END_TEST

/* The daemon's own symlinks (here: the test's) are followed: absolute and
 * relative targets, ".." in them, chains; the path is free of them. */
START_TEST(test_trusted_followed) {
	struct tree t;
	struct resolved r;

	tree_init(&t);
	link_at(&t, P(&t, 0, "a/b"), "abs"); /* D/abs -> D/a/b */
	link_at(&t, "a/b/c/../c", "rel");    /* D/rel -> a/b/c/../c */
	link_at(&t, "../../rel", "a/b/up");  /* D/a/b/up -> ../../rel */
	ck_assert_int_eq(path_resolve(P(&t, 1, "abs/file"), geteuid(), 0, &r), 0);
	ck_assert_str_eq(r.path, P(&t, 2, "a/b/file"));
	assert_same(&r, t.p[2]);
	resolved_done(&r);
	ck_assert_int_eq(path_resolve(P(&t, 1, "rel"), geteuid(), RESOLVE_LINKS, &r), 0);
	ck_assert_str_eq(r.path, P(&t, 2, "a/b/c"));
	ck_assert_uint_eq(r.n_links, 1);
	ck_assert_str_eq(r.links[0], P(&t, 3, "rel"));
	resolved_done(&r);
	ck_assert_int_eq(path_resolve(P(&t, 1, "a/b/up/.."), geteuid(), RESOLVE_LINKS, &r), 0);
	ck_assert_str_eq(r.path, P(&t, 2, "a/b"));
	ck_assert_uint_eq(r.n_links, 2);
	ck_assert_str_eq(r.links[0], P(&t, 3, "a/b/up"));
	ck_assert_str_eq(r.links[1], P(&t, 4, "rel"));
	resolved_done(&r);
	/* a final symlink not followed: the symlink itself */
	ck_assert_int_eq(path_resolve(P(&t, 1, "abs"), geteuid(), RESOLVE_NOFOLLOW, &r), 0);
	ck_assert(S_ISLNK(r.st.st_mode));
	ck_assert_str_eq(r.path, t.p[1]);
	resolved_done(&r);
	test_rm_tree(t.dir);
}
END_TEST

/* Another user's symlink is not followed, at the end or on the way: the
 * walk stops in the directory holding it, with its fd, and says who owns
 * it; a rule's path never reaches what it names. */
START_TEST(test_foreign_refused) {
	struct tree t;
	struct resolved r;
	struct stat st, want;
	char why[PATH_MAX * 4 + 256];
	uid_t self;

	tree_init(&t);
	link_at(&t, P(&t, 0, "a/b/c"), "a/evil");
	self = foreign(&t, "a/evil");
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(path_resolve(P(&t, 1, i ? "a/evil/x/y" : "a/evil"), self, 0, &r),
				 -ELOOP);
		ck_assert_int_eq(r.stop, RESOLVE_REFUSED);
		ck_assert_int_eq(r.fd, -1);
		ck_assert_str_eq(r.path, P(&t, 2, "a"));
		ck_assert_str_eq(r.name, "evil");
		ck_assert_uint_eq(r.link_uid, geteuid() == 0 ? 65534 : geteuid());
		ck_assert_int_ge(r.dir_fd, 0);
		ck_assert_int_eq(fstat(r.dir_fd, &st), 0);
		ck_assert_int_eq(stat(t.p[2], &want), 0);
		ck_assert_uint_eq(st.st_ino, want.st_ino);
		resolved_why(&r, why, sizeof(why));
		ck_assert_ptr_nonnull(strstr(why, "symlink \""));
		ck_assert_ptr_nonnull(strstr(why, "/a/evil\" not followed ("));
		ck_assert_ptr_nonnull(strstr(why, " owns it; "));
		resolved_done(&r);
	}
	/* mkdir never goes through it */
	ck_assert_int_eq(path_resolve(P(&t, 1, "a/evil/new"), self, RESOLVE_MKDIR, &r), -ELOOP);
	resolved_done(&r);
	ck_assert_int_eq(access(P(&t, 3, "a/b/c/new"), F_OK), -1);
	test_rm_tree(t.dir);
}
END_TEST

/* A symlink of the daemon's user in a directory others can write to is
 * not followed either (another user could have put it there). */
START_TEST(test_writable_dir_refused) {
	struct tree t;
	struct resolved r;
	char why[PATH_MAX * 4 + 256];

	tree_init(&t);
	ck_assert_int_eq(chmod(P(&t, 0, "a"), 01777), 0);
	link_at(&t, P(&t, 1, "a/b"), "a/ln");
	ck_assert_int_eq(path_resolve(P(&t, 1, "a/ln/c"), geteuid(), 0, &r), -ELOOP);
	ck_assert_int_eq(r.stop, RESOLVE_REFUSED);
	ck_assert_str_eq(r.name, "ln");
	ck_assert_ptr_nonnull(
	    strstr(resolved_why(&r, why, sizeof(why)), "its directory is writable by others"));
	resolved_done(&r);
	/* the directory itself is fine to walk through */
	ck_assert_int_eq(path_resolve(P(&t, 1, "a/b/c"), geteuid(), 0, &r), 0);
	resolved_done(&r);
	test_rm_tree(t.dir);
}
END_TEST

/* Missing: the walk stops at the first missing component, in the deepest
 * directory it reached (an fd of it: the waiters watch it), also inside a
 * symlink's target (a dangling symlink of the daemon's user). */
START_TEST(test_missing) {
	struct tree t;
	struct resolved r;
	struct stat st, want;
	char at[PATH_MAX], why[256];

	tree_init(&t);
	ck_assert_int_eq(path_resolve(P(&t, 0, "a/b/c/x/y"), geteuid(), 0, &r), -ENOENT);
	ck_assert_int_eq(r.stop, RESOLVE_MISSING);
	ck_assert_str_eq(r.path, P(&t, 1, "a/b/c"));
	ck_assert_str_eq(r.name, "x");
	ck_assert_str_eq(resolved_stop_path(&r, at, sizeof(at)), P(&t, 2, "a/b/c/x"));
	ck_assert_str_eq(resolved_why(&r, why, sizeof(why)), "does not exist");
	ck_assert_int_eq(fstat(r.dir_fd, &st), 0);
	ck_assert_int_eq(stat(t.p[1], &want), 0);
	ck_assert_uint_eq(st.st_ino, want.st_ino);
	resolved_done(&r);
	link_at(&t, P(&t, 0, "a/gone/z"), "dangling");
	ck_assert_int_eq(path_resolve(P(&t, 0, "dangling"), geteuid(), 0, &r), -ENOENT);
	ck_assert_int_eq(r.stop, RESOLVE_MISSING);
	ck_assert_str_eq(r.path, P(&t, 1, "a"));
	ck_assert_str_eq(r.name, "gone");
	resolved_done(&r);
	/* made on the way with RESOLVE_MKDIR, also through the dangling link */
	ck_assert_int_eq(path_resolve(P(&t, 0, "dangling"), geteuid(), RESOLVE_MKDIR, &r), 0);
	ck_assert_str_eq(r.path, P(&t, 1, "a/gone/z"));
	ck_assert(S_ISDIR(r.st.st_mode));
	ck_assert_uint_eq(r.st.st_mode & 0022, 0);
	resolved_done(&r);
	test_rm_tree(t.dir);
}
END_TEST

/* A file in the middle, a symlink loop: failed, not missing (nothing to
 * wait for there). */
START_TEST(test_failed) {
	struct tree t;
	struct resolved r;
	char why[PATH_MAX * 4 + 256];

	tree_init(&t);
	ck_assert_int_eq(path_resolve(P(&t, 0, "a/b/file/x"), geteuid(), 0, &r), -ENOTDIR);
	ck_assert_int_eq(r.stop, RESOLVE_FAILED);
	ck_assert_int_eq(r.dir_fd, -1);
	resolved_done(&r);
	link_at(&t, "loop2", "loop1");
	link_at(&t, "loop1", "loop2");
	ck_assert_int_eq(path_resolve(P(&t, 0, "loop1"), geteuid(), 0, &r), -ELOOP);
	ck_assert_int_eq(r.stop, RESOLVE_FAILED);
	ck_assert_ptr_nonnull(strstr(resolved_why(&r, why, sizeof(why)), "more than 40 symlinks"));
	resolved_done(&r);
	test_rm_tree(t.dir);
}
END_TEST

START_TEST(test_symlink_trusted) {
	struct stat link = { .st_uid = 0 }, dir = { .st_uid = 0, .st_mode = S_IFDIR | 0755 };

	ck_assert(symlink_trusted(&link, &dir, 0));
	dir.st_mode = S_IFDIR | 0775; /* group-writable */
	ck_assert(!symlink_trusted(&link, &dir, 0));
	dir.st_mode = S_IFDIR | 01777; /* sticky, world-writable (/tmp) */
	ck_assert(!symlink_trusted(&link, &dir, 0));
	dir.st_mode = S_IFDIR | 0755;
	link.st_uid = 1000; /* a user's */
	ck_assert(!symlink_trusted(&link, &dir, 0));
	ck_assert(symlink_trusted(&link, &dir, 1000)); /* the daemon's own user */
	link.st_uid = 0;
	dir.st_uid = 999; /* a system account's directory: not trusted either */
	ck_assert(!symlink_trusted(&link, &dir, 0));
}
END_TEST

START_TEST(test_canonical) {
	struct tree t;
	char *c;
	uid_t self;

	tree_init(&t);
	link_at(&t, P(&t, 0, "a/b"), "ln");
	c = resolve_canonical(P(&t, 1, "ln/c"));
	ck_assert_str_eq(c, P(&t, 2, "a/b/c"));
	free(c);
	self = foreign(&t, "ln");
	if (self == geteuid()) { /* (as root: lchown made it another user's) */
		c = resolve_canonical(t.p[1]);
		ck_assert_str_eq(c, t.p[1]); /* not resolved: the path as it is */
		free(c);
	}
	test_rm_tree(t.dir);
}
END_TEST

static void resolve_suite(Suite *s) {
	TCase *tc = tcase_create("resolve");

	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_trusted_followed);
	tcase_add_test(tc, test_foreign_refused);
	tcase_add_test(tc, test_writable_dir_refused);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_failed);
	tcase_add_test(tc, test_symlink_trusted);
	tcase_add_test(tc, test_canonical);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("resolve", resolve_suite);
