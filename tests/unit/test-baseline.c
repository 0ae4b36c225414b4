/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-baseline.c — the "baseline" suite: daemon/baseline.c, a rule's
 * inventory in SQLite and the walk that compares it with a tree of the
 * test's own. Made silently the first time; then every kind of change
 * made "while the daemon was not running" (content with size and mtime
 * kept, mode, a hard link, a deletion, a creation, a rename, a symlink
 * retargeted, a directory replaced by a file, a rename over another file)
 * is reported exactly once,
 * with its before and after; nothing for an unchanged tree; names that
 * sort around '/' ("sub", "sub-z", "sub/...", "sub0") in the walk's
 * order; a check records nothing; a sync records silently; the object
 * limit keeps what it did not walk; a foreign or corrupt file is set
 * aside and made anew.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "baseline.h"
#include "pathset.h"
#include "unit.h"

struct seen {
	int n;
	char change[32][16];
	char path[32][PATH_MAX];
	char old_path[32][PATH_MAX];
	char sha_before[32][65], sha_now[32][65];
	uint32_t mode_before[32], mode_now[32];
	char target_now[32][64];
	int flushes;
};

static int on_report(void *userdata, const struct baseline_diff *d) {
	struct seen *s = userdata;
	const struct baseline_object *o = d->now ? d->now : d->before;

	ck_assert_int_lt(s->n, 32);
	snprintf(s->change[s->n], sizeof(s->change[0]), "%s", d->change);
	snprintf(s->path[s->n], PATH_MAX, "%s", o->path);
	snprintf(s->old_path[s->n], PATH_MAX, "%s", d->old_path ? d->old_path : "");
	snprintf(s->sha_before[s->n], 65, "%s", d->before ? d->before->sha256 : "");
	snprintf(s->sha_now[s->n], 65, "%s", d->now ? d->now->sha256 : "");
	s->mode_before[s->n] = d->before ? d->before->attrs.mode : 0;
	s->mode_now[s->n] = d->now ? d->now->attrs.mode : 0;
	snprintf(s->target_now[s->n], 64, "%s", d->now && d->now->target ? d->now->target : "");
	s->n++;
	return 0;
}

static int on_flush(void *userdata) {
	((struct seen *)userdata)->flushes++;
	return 0;
}

/* The index of the report of change at name (under dir), or -1. */
static int find(const struct seen *s, const char *dir, const char *change, const char *name) {
	char p[PATH_MAX];

	if (name[0])
		test_join(p, sizeof(p), dir, name);
	else
		snprintf(p, sizeof(p), "%s", dir);
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->change[i], change) == 0 && strcmp(s->path[i], p) == 0)
			return i;
	return -1;
}

static void path_of(char *p, const char *dir, const char *name) {
	test_join(p, PATH_MAX, dir, name);
}

static int scan(struct baseline *b, const struct baseline_rule *r, enum baseline_mode mode,
		struct seen *s, struct baseline_result *res) {
	char err[512];
	int ret;

	memset(s, 0, sizeof(*s));
	ret = baseline_scan(b, r, mode, on_report, on_flush, s, res, err, sizeof(err));
	ck_assert_msg(ret == 0, "scan: %s", err);
	return s->n;
}

/* A state directory and a tree of the test's own (PATH_MAX each), and a
 * new database in the first. */
static struct baseline *fixture(char *state, char *tree) {
	struct baseline *b;
	char err[512];
	bool replaced;

	test_tmpdir(state, PATH_MAX);
	test_tmpdir(tree, PATH_MAX);
	ck_assert_msg(baseline_open(state, false, &b, &replaced, err, sizeof(err)) == 0, "%s", err);
	ck_assert(!replaced);
	return b;
}

START_TEST(test_changes) {
	char state[PATH_MAX], tree[PATH_MAX], p[PATH_MAX], q[PATH_MAX], err[512];
	char *paths[1] = { tree };
	struct baseline_rule r = { .name = "etc",
				   .paths = paths,
				   .n_paths = 1,
				   .recursive = true,
				   .hash = true,
				   .max_objects = 1000 };
	struct baseline_result res;
	struct baseline *b;
	struct seen s;
	int i;

	b = fixture(state, tree);
	test_write(tree, "a", "hello\n");
	test_write(tree, "b", "bee\n");
	path_of(p, tree, "sub");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_write(tree, "sub/c", "c\n");
	test_write(tree, "sub/d", "d\n");
	test_write(tree, "sub-z", "z\n");
	test_write(tree, "sub0", "0\n");
	path_of(p, tree, "dir2");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_write(tree, "dir2/e", "e\n");
	path_of(p, tree, "link");
	ck_assert_int_eq(symlink("a", p), 0);
	test_write(tree, "over-src", "src\n");
	test_write(tree, "over-dst", "dst\n");

	/* made silently */
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
	ck_assert(res.initialised && !res.incomplete);
	ck_assert_uint_eq(res.objects, 13);
	ck_assert_uint_eq(baseline_rule_objects(b, "etc"), 13);
	/* unchanged: nothing, and nothing written */
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
	ck_assert(!res.initialised);
	ck_assert_uint_eq(res.objects, 13);

	/* a's content changed, its size and mtime kept (touch -r) */
	{
		struct stat st;
		struct timeval tv[2];

		path_of(p, tree, "a");
		ck_assert_int_eq(stat(p, &st), 0);
		test_write(tree, "a", "HELLO\n");
		tv[0].tv_sec = st.st_atim.tv_sec;
		tv[0].tv_usec = st.st_atim.tv_nsec / 1000;
		tv[1].tv_sec = st.st_mtim.tv_sec;
		tv[1].tv_usec = st.st_mtim.tv_nsec / 1000;
		ck_assert_int_eq(utimes(p, tv), 0);
	}
	path_of(p, tree, "b");
	ck_assert_int_eq(chmod(p, 04755), 0);
	path_of(q, tree, "b2");
	ck_assert_int_eq(link(p, q), 0);
	path_of(p, tree, "sub/c");
	ck_assert_int_eq(unlink(p), 0);
	test_write(tree, "sub/new", "new\n");
	path_of(p, tree, "dir2/e");
	path_of(q, tree, "sub/e2");
	ck_assert_int_eq(rename(p, q), 0);
	path_of(p, tree, "dir2");
	ck_assert_int_eq(rmdir(p), 0);
	test_write(tree, "dir2", "now a file\n");
	path_of(p, tree, "link");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink("sub0", p), 0);
	path_of(p, tree, "over-src");
	path_of(q, tree, "over-dst");
	ck_assert_int_eq(rename(p, q), 0);

	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert_int_ge(i = find(&s, tree, "changed", "a"), 0);
	ck_assert(s.sha_before[i][0] && s.sha_now[i][0] &&
		  strcmp(s.sha_before[i], s.sha_now[i]) != 0);
	ck_assert_int_ge(i = find(&s, tree, "changed", "b"), 0);
	ck_assert_uint_eq(s.mode_before[i], 0644 & ~0u);
	ck_assert_uint_eq(s.mode_now[i], 04755);
	ck_assert_int_ge(find(&s, tree, "created", "b2"), 0);
	ck_assert_int_ge(find(&s, tree, "deleted", "sub/c"), 0);
	ck_assert_int_ge(find(&s, tree, "created", "sub/new"), 0);
	ck_assert_int_ge(i = find(&s, tree, "renamed", "sub/e2"), 0);
	path_of(p, tree, "dir2/e");
	ck_assert_str_eq(s.old_path[i], p);
	ck_assert_int_ge(find(&s, tree, "changed", "dir2"), 0); /* (a directory, now a file) */
	ck_assert_int_ge(i = find(&s, tree, "changed", "link"), 0);
	ck_assert_str_eq(s.target_now[i], "sub0");
	ck_assert_int_ge(find(&s, tree, "changed", "sub"), 0); /* (its entries: mtime) */
	ck_assert_int_ge(find(&s, tree, "changed", ""), 0);    /* (the tree's top: mtime) */
	/* renamed over another file: that one deleted, the rename says what came */
	ck_assert_int_ge(i = find(&s, tree, "renamed", "over-dst"), 0);
	path_of(p, tree, "over-src");
	ck_assert_str_eq(s.old_path[i], p);
	ck_assert_int_ge(find(&s, tree, "deleted", "over-dst"), 0);
	ck_assert_int_eq(s.n, 12);
	ck_assert_uint_eq(res.renamed, 2);
	ck_assert_int_ge(s.flushes, 1);

	/* recorded: once only */
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);

	/* a check reports, records nothing */
	test_write(tree, "sub0", "zero\n");
	ck_assert_int_eq(scan(b, &r, BASELINE_CHECK, &s, &res), 1);
	ck_assert_int_ge(find(&s, tree, "changed", "sub0"), 0);
	ck_assert_int_eq(scan(b, &r, BASELINE_CHECK, &s, &res), 1);

	/* a sync records silently (what the daemon reported as it happened) */
	{
		char *sync[1] = { p };

		path_of(p, tree, "sub0");
		ck_assert_int_eq(baseline_sync(b, &r, sync, NULL, 1, err, sizeof(err)), 0);
		ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
		/* a directory synced: its subtree too */
		test_write(tree, "sub/later", "l\n");
		path_of(p, tree, "sub/d");
		ck_assert_int_eq(unlink(p), 0);
		path_of(p, tree, "sub");
		ck_assert_int_eq(baseline_sync(b, &r, sync, NULL, 1, err, sizeof(err)), 0);
		ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
		/* ... and what was not synced is reported */
		test_write(tree, "sub/later", "L\n");
		path_of(p, tree, "sub0");
		ck_assert_int_eq(baseline_sync(b, &r, sync, NULL, 1, err, sizeof(err)), 0);
		ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 1);
		ck_assert_int_ge(find(&s, tree, "changed", "sub/later"), 0);
	}

	/* the limit: what is not walked is kept, never reported deleted */
	r.max_objects = 3;
	test_write(tree, "sub/more", "m\n");
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert_str_eq(res.incomplete, "limit");
	for (int k = 0; k < s.n; k++)
		ck_assert_str_ne(s.change[k], "deleted");
	r.max_objects = 1000;

	/* what the baseline holds */
	{
		struct baseline_object o;
		char *rule;

		path_of(p, tree, "b");
		ck_assert_int_eq(baseline_lookup(b, NULL, p, &o, &rule), 1);
		ck_assert_str_eq(rule, "etc");
		ck_assert_uint_eq(o.attrs.mode, 04755);
		ck_assert_uint_eq(o.attrs.nlink, 2);
		baseline_object_clear(&o);
		free(rule);
		ck_assert_int_eq(baseline_lookup(b, "other", p, &o, &rule), 0);
	}
	/* another rule's baseline forgotten */
	ck_assert_int_eq(baseline_forget_others(b, (char *[]){ (char *)"nope" }, 1), 0);
	ck_assert_uint_eq(baseline_rule_objects(b, "etc"), 0);
	b = baseline_close(b);
	test_rm_tree(tree);
	test_rm_tree(state);
}
END_TEST

/* A log rotated (mv log log.1, a new log) and two renames through one
 * name (mv a c; mv b a): each object told by its file handle, renamed,
 * and the new log created; nothing deleted. */
START_TEST(test_rotations) {
	char state[PATH_MAX], tree[PATH_MAX], p[PATH_MAX], q[PATH_MAX];
	char *paths[1] = { tree };
	struct baseline_rule r = {
		.name = "log", .paths = paths, .n_paths = 1, .recursive = true, .max_objects = 100
	};
	struct baseline_result res;
	struct baseline *b;
	struct seen s;
	int i;

	b = fixture(state, tree);
	test_write(tree, "log", "old lines\n");
	test_write(tree, "a", "a\n");
	test_write(tree, "b", "b\n");
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	path_of(p, tree, "log");
	path_of(q, tree, "log.1");
	ck_assert_int_eq(rename(p, q), 0);
	test_write(tree, "log", "new\n");
	path_of(p, tree, "a");
	path_of(q, tree, "c");
	ck_assert_int_eq(rename(p, q), 0);
	path_of(q, tree, "b");
	ck_assert_int_eq(rename(q, p), 0);
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert_int_ge(i = find(&s, tree, "renamed", "log.1"), 0);
	path_of(p, tree, "log");
	ck_assert_str_eq(s.old_path[i], p);
	ck_assert_int_ge(find(&s, tree, "created", "log"), 0);
	ck_assert_int_ge(i = find(&s, tree, "renamed", "a"), 0);
	path_of(p, tree, "b");
	ck_assert_str_eq(s.old_path[i], p);
	ck_assert_int_ge(i = find(&s, tree, "renamed", "c"), 0);
	path_of(p, tree, "a");
	ck_assert_str_eq(s.old_path[i], p);
	ck_assert_int_eq(s.n, 5); /* (and the top: its entries) */
	ck_assert_uint_eq(res.deleted, 0);
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
	b = baseline_close(b);
	test_rm_tree(tree);
	test_rm_tree(state);
}
END_TEST

START_TEST(test_exclude_and_entries) {
	char state[PATH_MAX], tree[PATH_MAX], p[PATH_MAX], err[512];
	char *paths[1] = { tree };
	struct pathset excl = { 0 };
	struct baseline_rule r = {
		.name = "top", .paths = paths, .n_paths = 1, .max_objects = 100
	};
	struct baseline_result res;
	struct baseline *b;
	struct seen s;

	b = fixture(state, tree);
	path_of(p, tree, "deep");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_write(tree, "deep/x", "x\n");
	test_write(tree, "skip.log", "l\n");
	ck_assert_int_eq(pathset_add_pattern(&excl, "*.log"), 0);
	r.excl = &excl;
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert_uint_eq(res.objects, 2); /* (the top and deep: entries only, no log) */
	test_write(tree, "deep/y", "y\n"); /* (below the rule's depth) */
	test_write(tree, "skip.log", "longer\n");
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 1);
	path_of(p, tree, "deep");
	ck_assert_str_eq(s.path[0], p); /* (its mtime) */
	/* a check of a rule without a baseline: an error */
	r.name = "unknown";
	ck_assert_int_eq(
	    baseline_scan(b, &r, BASELINE_CHECK, on_report, NULL, &s, &res, err, sizeof(err)),
	    -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "unknown"));
	b = baseline_close(b);
	pathset_done(&excl);
	test_rm_tree(tree);
	test_rm_tree(state);
}
END_TEST

/* A subtree the walk does not enter (here another mount over it) keeps its
 * rows, also when a name sorting between NAME and NAME/ ("foo.conf") went;
 * a rule that is not recursive, with paths nested in one another, keeps
 * the inner path's rows: nothing reported twice, nothing deleted. */
START_TEST(test_kept_subtrees) {
	char state[PATH_MAX], tree[PATH_MAX], p[PATH_MAX], sub[PATH_MAX], err[512];
	char *paths[2] = { tree, sub };
	struct baseline_rule r = {
		.name = "t", .paths = paths, .n_paths = 1, .recursive = true, .max_objects = 100
	};
	struct baseline_result res;
	struct baseline *b;
	struct seen s;

	/* (a mount namespace of the test's own: the mount goes with it) */
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	b = fixture(state, tree);
	path_of(p, tree, "foo");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_write(tree, "foo/x", "x\n");
	test_write(tree, "foo.conf", "c\n");
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert_uint_eq(res.objects, 4);
	/* foo covered by another filesystem: not entered; foo.conf deleted */
	ck_assert_int_eq(mount("tmpfs", p, "tmpfs", 0, "size=1m"), 0);
	path_of(sub, tree, "foo.conf");
	ck_assert_int_eq(unlink(sub), 0);
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert_int_lt(find(&s, tree, "deleted", "foo/x"), 0);
	ck_assert_int_ge(find(&s, tree, "deleted", "foo.conf"), 0);
	ck_assert_int_eq(umount(p), 0);
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 1); /* (foo: its own again) */
	ck_assert_int_ge(find(&s, tree, "changed", "foo"), 0);

	/* a path to sync whose directory became a symlink (to another's
	 * file of the same name): never looked at through it */
	{
		char other[PATH_MAX], *sync[1] = { p };
		struct baseline_object o;
		char *rule;

		test_tmpdir(other, sizeof(other));
		test_write(other, "f", "someone else's\n");
		path_of(p, tree, "d");
		ck_assert_int_eq(mkdir(p, 0755), 0);
		test_write(tree, "d/f", "mine\n");
		ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 3); /* (the top, d, d/f) */
		path_of(sub, tree, "d.old");
		ck_assert_int_eq(rename(p, sub), 0);
		ck_assert_int_eq(symlink(other, p), 0);
		path_of(p, tree, "d/f");
		ck_assert_int_eq(baseline_sync(b, &r, sync, NULL, 1, err, sizeof(err)), 0);
		ck_assert_int_eq(baseline_lookup(b, "t", p, &o, &rule), 1);
		ck_assert_uint_eq(o.attrs.size, 5); /* (mine, as it was) */
		baseline_object_clear(&o);
		free(rule);
		test_rm_tree(other);
	}

	/* the limit: a directory that does not fit is kept as it is, its
	 * siblings after it are compared */
	{
		char lim[PATH_MAX];
		char *one[1] = { lim };
		struct baseline_rule l = { .name = "lim",
					   .paths = one,
					   .n_paths = 1,
					   .recursive = true,
					   .max_objects = 5 };

		test_tmpdir(lim, sizeof(lim));
		path_of(p, lim, "big");
		ck_assert_int_eq(mkdir(p, 0755), 0);
		for (int i = 0; i < 6; i++) {
			char n[32];

			snprintf(n, sizeof(n), "big/f%d", i);
			test_write(lim, n, "f\n");
		}
		test_write(lim, "z", "z\n");
		scan(b, &l, BASELINE_UPDATE, &s, &res);
		ck_assert_str_eq(res.incomplete, "limit");
		ck_assert_uint_eq(res.objects, 3); /* (the top, big, z) */
		test_write(lim, "z", "zz\n");
		ck_assert_int_eq(scan(b, &l, BASELINE_UPDATE, &s, &res), 1);
		ck_assert_int_ge(find(&s, lim, "changed", "z"), 0);
		test_rm_tree(lim);
	}

	/* not recursive, the paths nested: each scan finds nothing */
	r.name = "nested";
	r.recursive = false;
	r.n_paths = 2;
	path_of(sub, tree, "foo");
	scan(b, &r, BASELINE_UPDATE, &s, &res);
	ck_assert(res.initialised);
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
	ck_assert_int_eq(scan(b, &r, BASELINE_UPDATE, &s, &res), 0);
	b = baseline_close(b);
	test_rm_tree(tree);
	test_rm_tree(state);
}
END_TEST

START_TEST(test_foreign_and_corrupt) {
	char state[PATH_MAX], p[PATH_MAX], err[512];
	struct baseline *b;
	bool replaced;
	sqlite3 *db;
	struct stat st;

	test_tmpdir(state, sizeof(state));
	path_of(p, state, BASELINE_FILE);
	/* another program's database */
	ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(baseline_open(state, false, &b, &replaced, err, sizeof(err)), 0);
	ck_assert(replaced);
	ck_assert_ptr_nonnull(strstr(err, "not a baseline database"));
	b = baseline_close(b);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	strcat(p, ".bad");
	ck_assert_int_eq(stat(p, &st), 0);
	/* not a database at all */
	test_write(state, BASELINE_FILE, "this is not SQLite, whatever it says it is..........\n");
	ck_assert_int_eq(baseline_open(state, false, &b, &replaced, err, sizeof(err)), 0);
	ck_assert(replaced);
	b = baseline_close(b);
	/* ours: kept */
	ck_assert_int_eq(baseline_open(state, false, &b, &replaced, err, sizeof(err)), 0);
	ck_assert(!replaced);
	b = baseline_close(b);
	/* a directory others may write to: refused */
	ck_assert_int_eq(chmod(state, 0777), 0);
	ck_assert_int_eq(baseline_open(state, false, &b, &replaced, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "only root may write"));
	test_rm_tree(state);
}
END_TEST

static void baseline_suite(Suite *s) {
	TCase *tc = tcase_create("baseline");

	tcase_add_test(tc, test_changes);
	tcase_add_test(tc, test_exclude_and_entries);
	tcase_add_test(tc, test_rotations);
	tcase_add_test(tc, test_kept_subtrees);
	tcase_add_test(tc, test_foreign_and_corrupt);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE_ROOT("baseline", baseline_suite);
