/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-plan.c — the "plan" suite: daemon/plan.c. Rules on real temporary
 * directories, planned with a crafted feature probe (every feature works
 * except the ones a case breaks), so every decision of each mark type and
 * of `auto` is checked without privileges; permission rules (their
 * groups' class and flags, what they need of the kernel); exclusions as
 * ignore marks or userspace filters; problems; plan_print() and
 * plan_print_summary() byte for byte (hostile filenames escaped). As
 * root, the real probe on a private tmpfs, and every planned mark placed
 * with libfsn (the kernel accepts what the plan says); and the real probe
 * without CAP_SYS_ADMIN (auto falls back to inotify).
 *
 * Cases that need their own process (mount namespace, capabilities) fork
 * themselves, so they also work with CK_FORK=no.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsn-uapi.h"
#include "fsn-util.h"
#include "plan-costs.h"
#include "plan.h"
#include "unit.h"

#define REPORT (FAN_REPORT_DFID_NAME | FAN_REPORT_FID)
/* A filesystem or mount mark without self events: no object handles
 * (plan.c report_flags()). */
#define REPORT_NAMES FAN_REPORT_DFID_NAME
#define SELF_EVENTS (FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_FS_ERROR)
#define DEFAULT_EVENTS (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CLOSE_WRITE)
#define DIRENT (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO)

/* ------------------------------------------------------------------------ */
/* fixtures                                                                 */
/* ------------------------------------------------------------------------ */

/* A probe that says every feature works, except those broken here. */
struct fake {
	uint64_t broken;   /* 1 << feature: not supported by this filesystem (EOPNOTSUPP) */
	uint64_t nokernel; /* 1 << feature: not supported by this kernel (EINVAL) */
	uint64_t denied;   /* 1 << feature: not permitted (EPERM) */
	int fail;          /* a negative errno to return instead */
	int calls;
};

#define F(x) (UINT64_C(1) << (x))

static int fake_probe(const char *path, const struct stat *st, struct fsn_probe *ret,
		      void *userdata) {
	struct fake *f = userdata;
	struct fsn_probe p = { 0 };

	f->calls++;
	if (f->fail)
		return f->fail;
	for (int i = 0; i < _FSN_FEAT_MAX; i++) {
		if (f->broken & F(i))
			p.feat[i] = (struct fsn_feature_result){ FSN_UNSUPPORTED_FS, EOPNOTSUPP };
		else if (f->nokernel & F(i))
			p.feat[i] = (struct fsn_feature_result){ FSN_UNSUPPORTED_KERNEL, EINVAL };
		else if (f->denied & F(i))
			p.feat[i] = (struct fsn_feature_result){ FSN_NOT_PERMITTED, EPERM };
	}
	*ret = p;
	return 0;
}

/*
 * A temporary tree:
 *   D/file          regular file
 *   D/tree/         directory
 *   D/tree/sub/deep/
 *   D/tree/cache/   directory (excluded in some cases)
 *   D/tree/f.txt    regular file
 * and a config from a template where @D@ stands for D.
 */
struct fx {
	char dir[PATH_MAX];
	struct config *c;
	struct plan *p;
	struct fake fake;
	/* directories whose filesystems count as busy for mark = "auto"
	 * (NULL-terminated; none unless a case names one: the result must not
	 * depend on where the test's directory is) */
	const char *busy[2];
};

static void mkpath(const char *dir, const char *name, bool is_dir) {
	char p[PATH_MAX];

	test_join(p, sizeof(p), dir, name);
	if (is_dir) {
		ck_assert_int_eq(mkdir(p, 0755), 0);
		ck_assert_int_eq(chmod(p, 0755), 0); /* whatever the umask */
	} else {
		int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		ck_assert_int_ge(fd, 0);
		close(fd);
	}
}

static void make_tree(const char *dir) {
	mkpath(dir, "file", false);
	mkpath(dir, "tree", true);
	mkpath(dir, "tree/sub", true);
	mkpath(dir, "tree/sub/deep", true);
	mkpath(dir, "tree/cache", true);
	mkpath(dir, "tree/f.txt", false);
}

static void fx_init(struct fx *fx) {
	*fx = (struct fx){ 0 };
	test_tmpdir(fx->dir, sizeof(fx->dir));
	make_tree(fx->dir);
}

/* Load and plan with the fake probe. */
static void fx_plan(struct fx *fx, const char *tmpl) {
	struct plan_opts o = { .probe = fake_probe, .userdata = &fx->fake, .busy_dirs = fx->busy };

	fx->c = test_config_load(fx->dir, tmpl);
	ck_assert_int_eq(plan_build_opts(fx->c, &o, &fx->p), 0);
	ck_assert_ptr_nonnull(fx->p);
}

static void fx_done(struct fx *fx) {
	plan_free(fx->p);
	config_free(fx->c);
	test_rm_tree(fx->dir);
}

/* D + "/" + rel, for comparisons (static buffer per call site is enough). */
static const char *D(const struct fx *fx, const char *rel, char *buf, size_t len) {
	test_join(buf, len, fx->dir, rel);
	return buf;
}

#define DP(fx, rel) D((fx), (rel), (char[PATH_MAX]){ 0 }, PATH_MAX)

static void assert_contains(const char *s, const char *part) {
	ck_assert_msg(s && strstr(s, part), "\"%s\"\n  does not contain \"%s\"", s ? s : "(null)",
		      part);
}

static void assert_problem(const struct plan *p, size_t i, const char *path, const char *msg,
			   bool warning, bool fatal) {
	ck_assert_uint_gt(p->n_problems, i);
	ck_assert_str_eq(p->problems[i].msg, msg);
	if (path)
		ck_assert_str_eq(p->problems[i].path, path);
	else
		ck_assert_ptr_null(p->problems[i].path);
	ck_assert_int_eq(p->problems[i].warning, warning);
	ck_assert_int_eq(p->problems[i].fatal, fatal);
}

/* A fanotify mark (not an ignore mark) in the group of this class, report
 * flags and tag. */
static void assert_mark(const struct plan_mark *m, enum fsn_mark_type type, const char *path,
			uint64_t mask, enum fsn_class klass, uint32_t report, uint32_t tag) {
	ck_assert_int_eq(m->spec.type, type);
	ck_assert_str_eq(m->path, path);
	ck_assert_ptr_eq(m->spec.path, m->path);
	ck_assert_int_eq(m->spec.dirfd, AT_FDCWD);
	ck_assert_int_eq(m->spec.klass, klass);
	ck_assert_uint_eq(m->spec.report, report);
	ck_assert_uint_eq(m->spec.group_tag, tag);
	ck_assert_msg(m->spec.mask == mask, "mask %#llx, expected %#llx",
		      (unsigned long long)m->spec.mask, (unsigned long long)mask);
	ck_assert_uint_eq(m->spec.ignore, 0);
	ck_assert_uint_eq(m->spec.flags, 0);
}

/* A fanotify notification mark in the shared or the rule's group. */
static void assert_fan(const struct plan_mark *m, enum fsn_mark_type type, const char *path,
		       uint64_t mask, uint32_t tag) {
	assert_mark(m, type, path, mask, FSN_CLASS_NOTIF,
		    type == FSN_MARK_INODE || (mask & SELF_EVENTS) ? REPORT : REPORT_NAMES, tag);
}

/* ------------------------------------------------------------------------ */
/* auto                                                                     */
/* ------------------------------------------------------------------------ */

START_TEST(test_auto_file_inode) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"f\"; paths = [\"@D@/file\"]; recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	m = &fx.p->marks[0];
	ck_assert_ptr_eq(m->rule, &fx.c->rules[0]);
	/* create/delete/moves cannot happen on a file; no ONDIR on a file */
	assert_fan(m, FSN_MARK_INODE, DP(&fx, "file"), FAN_CLOSE_WRITE, 0);
	ck_assert_str_eq(m->target, DP(&fx, "file"));
	ck_assert_ptr_null(m->subtree);
	assert_contains(m->why, "auto: a single file, so (recursive means nothing for a file) an "
				"inode mark on the file reports exactly its events");
	assert_contains(m->why, "moved_from,moved_to,create,delete are events of a directory");
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_dir_inode) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"a\"; paths = [\"@D@/tree\"]; },\n"
		"  { name = \"b\"; paths = [\"@D@/tree\"]; children = false; ondir = false; }\n"
		");");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	assert_fan(&fx.p->marks[0], FSN_MARK_INODE, DP(&fx, "tree"),
		   DEFAULT_EVENTS | FAN_EVENT_ON_CHILD | FAN_ONDIR, 0);
	ck_assert_ptr_null(fx.p->marks[0].subtree);
	assert_contains(fx.p->marks[0].why, "auto: a directory watched one level deep, so an "
					    "inode mark on the directory");
	assert_fan(&fx.p->marks[1], FSN_MARK_INODE, DP(&fx, "tree"), DEFAULT_EVENTS, 0);
	ck_assert_ptr_eq(fx.p->marks[1].rule, &fx.c->rules[1]);
	/* one probe for the two rules on one path */
	ck_assert_int_eq(fx.fake.calls, 1);
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_recursive_filesystem) {
	struct fx fx;
	const struct plan_mark *m;
	char want[PATH_MAX + 16];

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "  events = [\"modify\", \"create\"]; children = false; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	m = &fx.p->marks[0];
	/* (moved_from on directories: for the daemon's directory path cache) */
	assert_fan(m, FSN_MARK_FILESYSTEM, DP(&fx, "tree"),
		   FAN_MODIFY | FAN_CREATE | FAN_MOVED_FROM | FAN_ONDIR, 0);
	assert_contains(m->why, "with moved_from on directories");
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(m->subtree_recursive);
	ck_assert(!m->children_dirent_only); /* children means nothing when recursive */
	ck_assert(!m->drop_ondir);
	snprintf(want, sizeof(want), " (fs of %s)", DP(&fx, "tree"));
	assert_contains(m->target, want);
	assert_contains(m->why, "auto: a recursive directory, so a filesystem mark with DFID_NAME");
	assert_contains(m->why, "no race with new subdirectories");
	assert_contains(m->why, "cost: every such event on that filesystem reaches the daemon");
	fx_done(&fx);
}
END_TEST

/* auto on a busy filesystem: a small tree gets a watch per directory; a
 * rule that needs fanotify (a process filter, an event inotify lacks), or
 * a tree of more than 1000 directories, keeps the filesystem mark. */
START_TEST(test_auto_recursive_busy_watches) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx.busy[0] = fx.dir;
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	m = &fx.p->marks[0];
	ck_assert_int_eq(m->spec.type, FSN_MARK_INOTIFY);
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(m->subtree_recursive);
	/* tree, tree/sub, tree/sub/deep, tree/cache */
	assert_contains(m->why, "auto: a recursive directory of 4 directories (at most 1000) on a "
				"busy filesystem (the one holding ");
	assert_contains(m->why, fx.dir);
	assert_contains(m->why, "events of inotify watches carry no process");
	assert_contains(m->why, "recursive: one inotify watch per directory of the tree");
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_recursive_busy_needs_fanotify) {
	static const char *const rules[] = {
		"rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		"  comms = [\"make\"]; } );",
		"rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		"  events = [\"open_exec\"]; } );",
		"rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		"  who = true; } );",
	};
	static const char *const why[] = {
		"but the rule filters by process and only fanotify reports the process, so a "
		"filesystem mark",
		"but inotify cannot report all of the rule's events, so a filesystem mark",
		"but the rule asks who and only fanotify reports the process, so a filesystem "
		"mark",
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct fx fx;

		fx_init(&fx);
		fx.busy[0] = fx.dir;
		fx_plan(&fx, rules[i]);
		ck_assert_uint_eq(fx.p->n_marks, 1);
		ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_FILESYSTEM);
		assert_contains(fx.p->marks[0].why, why[i]);
		fx_done(&fx);
	}
}
END_TEST

/* who on an inotify watch: a warning that the records cannot say who. */
START_TEST(test_who_inotify_warns) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"w\"; paths = [\"@D@/tree\"]; mark = \"inotify\";\n"
		     "  who = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->n_problems, 1);
	ck_assert(fx.p->problems[0].warning);
	assert_contains(fx.p->problems[0].msg, "inotify watches report no process: the rule's "
					       "records cannot say who (login uid, exe, parent); "
					       "use a fanotify mark");
	fx_done(&fx);
}
END_TEST

/* The watches auto places stay within half of limits.max_marks: a second
 * tree that would pass it gets a filesystem mark. */
START_TEST(test_auto_recursive_busy_max_marks) {
	struct fx fx;

	fx_init(&fx);
	fx.busy[0] = fx.dir;
	fx_plan(&fx, "limits = { max_marks = 10; };\n"
		     "rules = ( { name = \"a\"; paths = [\"@D@/tree\"]; recursive = true; },\n"
		     "          { name = \"b\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_INOTIFY);
	assert_contains(fx.p->marks[0].why, "of 4 directories (at most 1000)");
	ck_assert_int_eq(fx.p->marks[1].spec.type, FSN_MARK_FILESYSTEM);
	assert_contains(fx.p->marks[1].why,
			"auto: a recursive directory of more than 1 "
			"directories (what is left of half of limits.max_marks)");
	fx_done(&fx);
}
END_TEST

/* A tree another user may write to could outgrow its watches after the
 * count (a hostile user making directories picks the blind spot): it
 * keeps the filesystem mark. */
START_TEST(test_auto_recursive_busy_writable) {
	static const char *const dirs[] = { "tree", "tree/sub/deep" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct fx fx;
		char p[PATH_MAX];

		fx_init(&fx);
		fx.busy[0] = fx.dir;
		test_join(p, sizeof(p), fx.dir, dirs[i]);
		ck_assert_int_eq(chmod(p, 01777), 0);
		fx_plan(&fx,
			"rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
		ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_FILESYSTEM);
		assert_contains(fx.p->marks[0].why, "other users can write to ");
		assert_contains(fx.p->marks[0].why,
				"so it can outgrow the watches, so a filesystem mark");
		fx_done(&fx);
	}
}
END_TEST

/* auto trusts root and the daemon's user only: a tree with a directory of
 * a system account (uid 999) could be grown by that account past the
 * count, so it keeps the filesystem mark (issue 28). */
START_TEST(test_auto_recursive_busy_system_account) {
	struct fx fx;

	if (geteuid() != 0)
		fsn_test_skip("giving a directory to uid 999 needs root");
	fx_init(&fx);
	fx.busy[0] = fx.dir;
	ck_assert_int_eq(chown(DP(&fx, "tree/sub"), 999, 999), 0);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_FILESYSTEM);
	assert_contains(fx.p->marks[0].why, "other users can write to ");
	fx_done(&fx);
}
END_TEST

/* n more directories in D/tree/cache */
static void make_cache_dirs(const char *dir, int n) {
	char name[64];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "tree/cache/d%d", i);
		mkpath(dir, name, true);
	}
}

START_TEST(test_auto_recursive_busy_big_tree) {
	struct fx fx;

	fx_init(&fx);
	fx.busy[0] = fx.dir;
	make_cache_dirs(fx.dir, 997); /* 4 + 997 = 1001 directories */
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_FILESYSTEM);
	assert_contains(fx.p->marks[0].why, "auto: a recursive directory of more than 1000 "
					    "directories, so one mark for them all: a filesystem "
					    "mark");
	fx_done(&fx);
	/* 1000 exactly: watches */
	fx_init(&fx);
	fx.busy[0] = fx.dir;
	make_cache_dirs(fx.dir, 996);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_INOTIFY);
	assert_contains(fx.p->marks[0].why, "of 1000 directories (at most 1000)");
	fx_done(&fx);
}
END_TEST

/* limits.unlimited_queue reaches fanotify_init() through spec.report, for
 * watch marks and ignore marks alike; without it the report flags are bare. */
START_TEST(test_unlimited_queue) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx, "limits = { unlimited_queue = true; };\n"
		     "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "  exclude = [\"@D@/tree/cache\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	for (size_t i = 0; i < fx.p->n_marks; i++)
		ck_assert_uint_eq(fx.p->marks[i].spec.report, REPORT_NAMES | FAN_UNLIMITED_QUEUE);
	fx_done(&fx);

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->marks[0].spec.report, REPORT_NAMES);
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_no_fanotify_inotify) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx.fake.denied = F(FSN_FEAT_FANOTIFY);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\", \"@D@/file\"];\n"
		     "  recursive = true; required = true; ondir = false; } );");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	m = &fx.p->marks[0];
	ck_assert_int_eq(m->spec.type, FSN_MARK_INOTIFY);
	ck_assert_str_eq(m->path, DP(&fx, "tree"));
	ck_assert_uint_eq(m->spec.mask, DEFAULT_EVENTS); /* IN_* == FAN_* for these */
	ck_assert_uint_eq(m->spec.report, 0);
	ck_assert_uint_eq(m->spec.group_tag, 0);
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(m->subtree_recursive);
	ck_assert(m->drop_ondir);
	assert_contains(m->why, "auto: fanotify cannot be used here (fanotify notification groups "
				"(FAN_CLASS_NOTIF): not permitted (EPERM): needs CAP_SYS_ADMIN, "
				"which fsnotifyd lacks here; inotify rules (mark = \"inotify\", or "
				"\"auto\", which falls back to it) work without it), so an inotify "
				"watch");
	assert_contains(m->why, "recursive: one inotify watch per directory of the tree");
	m = &fx.p->marks[1];
	ck_assert_int_eq(m->spec.type, FSN_MARK_INOTIFY);
	ck_assert_uint_eq(m->spec.mask, FAN_CLOSE_WRITE);
	ck_assert_ptr_null(m->subtree);
	/* recursive inotify works (one watch per directory): no problem */
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert(!plan_has_fatal(fx.p));
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_fid_refused_inotify) {
	struct fx fx;

	fx_init(&fx);
	fx.fake.broken = F(FSN_FEAT_MARK_FID);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"];\n"
		     "  events = [\"open_exec\", \"close_write\", \"rename\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_INOTIFY);
	ck_assert_uint_eq(fx.p->marks[0].spec.mask, FAN_CLOSE_WRITE);
	assert_contains(fx.p->marks[0].why,
			"fanotify cannot be used here (marks of FAN_REPORT_FID groups (file "
			"handles on this filesystem): not supported by this filesystem "
			"(EOPNOTSUPP))");
	ck_assert_uint_eq(fx.p->n_problems, 1);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "inotify watches cannot report open_exec,rename (renames come as "
		       "moved_from + moved_to)",
		       true, false);
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_fs_mark_refused) {
	struct fx fx;

	/* Only events a mount mark can report: a mount mark. */
	fx_init(&fx);
	fx.fake.broken = F(FSN_FEAT_MARK_FILESYSTEM);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "  events = [\"modify\", \"close_write\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	assert_fan(&fx.p->marks[0], FSN_MARK_MOUNT, DP(&fx, "tree"),
		   FAN_MODIFY | FAN_CLOSE_WRITE | FAN_ONDIR, 0);
	ck_assert(fx.p->marks[0].subtree_recursive);
	assert_contains(fx.p->marks[0].why, "auto: a recursive directory where filesystem marks do "
					    "not work (filesystem marks (FAN_MARK_FILESYSTEM): not "
					    "supported by this filesystem (EOPNOTSUPP))");
	fx_done(&fx);

	/* Directory entry events: recursive inotify, no problem. */
	fx_init(&fx);
	fx.fake.broken = F(FSN_FEAT_MARK_FILESYSTEM);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_INOTIFY);
	ck_assert(fx.p->marks[0].subtree_recursive);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	fx_done(&fx);
}
END_TEST

START_TEST(test_auto_nothing_works) {
	struct fx fx;

	fx_init(&fx);
	fx.fake.denied = F(FSN_FEAT_FANOTIFY) | F(FSN_FEAT_INOTIFY);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; required = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 0);
	assert_problem(
	    fx.p, 0, DP(&fx, "tree"),
	    "neither fanotify (fanotify notification groups (FAN_CLASS_NOTIF): not "
	    "permitted (EPERM): needs CAP_SYS_ADMIN, which fsnotifyd lacks here; inotify "
	    "rules (mark = \"inotify\", or \"auto\", which falls back to it) work without "
	    "it) nor inotify (inotify watches (inotify_add_watch): not permitted (EPERM) "
	    "(no read access to the path?)) works here",
	    false, true);
	ck_assert(plan_has_fatal(fx.p));
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* explicit mark types                                                      */
/* ------------------------------------------------------------------------ */

START_TEST(test_inode_explicit) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"d\"; paths = [\"@D@/tree\"]; mark = \"inode\"; children = false;\n"
		"    events = [\"attrib\", \"create\", \"fs_error\"]; },\n"
		"  { name = \"f\"; paths = [\"@D@/file\"]; mark = \"inode\";\n"
		"    events = [\"delete_self\", \"move_self\", \"modify\"]; }\n"
		");");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	assert_fan(&fx.p->marks[0], FSN_MARK_INODE, DP(&fx, "tree"),
		   FAN_ATTRIB | FAN_CREATE | FAN_ONDIR, 0);
	assert_fan(&fx.p->marks[1], FSN_MARK_INODE, DP(&fx, "file"),
		   FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_MODIFY, 0);
	ck_assert_uint_eq(fx.p->n_problems, 1);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "inode marks (only filesystem marks) cannot report fs_error", false, false);
	fx_done(&fx);

	/* The filesystem cannot do FID marks: inode marks do not work here. */
	fx_init(&fx);
	fx.fake.broken = F(FSN_FEAT_MARK_FID);
	fx_plan(&fx, "rules = ( { name = \"d\"; paths = [\"@D@/tree\"]; mark = \"inode\";\n"
		     "  required = true; } );");
	ck_assert_uint_eq(fx.p->n_marks, 0);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "inode marks do not work here: marks of FAN_REPORT_FID groups (file handles "
		       "on this filesystem): not supported by this filesystem (EOPNOTSUPP); use "
		       "mark = \"auto\"",
		       false, true);
	fx_done(&fx);

	/* Only directory events asked for, on a file. */
	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"f\"; paths = [\"@D@/file\"]; mark = \"inode\";\n"
		     "  events = [\"create\", \"delete\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 0);
	assert_problem(fx.p, 0, DP(&fx, "file"),
		       "none of the rule's events (create,delete) can happen on a file; watch its "
		       "directory, or ask for delete_self, move_self",
		       false, false);
	fx_done(&fx);
}
END_TEST

START_TEST(test_mount_refuses_dirent_events) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"m\"; paths = [\"@D@/tree\"]; mark = \"mount\"; recursive = true; },\n"
		"  { name = \"n\"; paths = [\"@D@/tree\"]; mark = \"mount\"; required = true;\n"
		"    events = [\"create\", \"attrib\", \"delete_self\"]; }\n"
		");");
	/* default events: close_write stays, the directory entry events cannot */
	ck_assert_uint_eq(fx.p->n_marks, 1);
	assert_fan(&fx.p->marks[0], FSN_MARK_MOUNT, DP(&fx, "tree"), FAN_CLOSE_WRITE | FAN_ONDIR,
		   0);
	ck_assert_str_eq(fx.p->marks[0].subtree, DP(&fx, "tree"));
	ck_assert(fx.p->marks[0].subtree_recursive);
	assert_contains(fx.p->marks[0].target, " (mount of ");
	ck_assert_uint_eq(fx.p->n_problems, 2);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "mount marks cannot report moved_from,moved_to,create,delete (the kernel "
		       "refuses them: EINVAL); use mark = \"filesystem\" or \"auto\"",
		       false, false);
	ck_assert_ptr_eq(fx.p->problems[0].rule, &fx.c->rules[0]);
	/* nothing left: no mark, and fatal for a required rule */
	assert_problem(fx.p, 1, DP(&fx, "tree"),
		       "mount marks cannot report attrib,create,delete_self (the kernel refuses "
		       "them: EINVAL); use mark = \"filesystem\" or \"auto\"; nothing is left to "
		       "watch",
		       false, true);
	ck_assert(plan_has_fatal(fx.p));
	fx_done(&fx);
}
END_TEST

START_TEST(test_filesystem_explicit) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"s\"; paths = [\"@D@/tree\", \"@D@/file\"];\n"
		     "  mark = \"filesystem\"; children = false; ondir = false;\n"
		     "  events = [\"create\", \"fs_error\", \"rename\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_uint_eq(fx.p->n_problems, 0);
	m = &fx.p->marks[0];
	assert_fan(m, FSN_MARK_FILESYSTEM, DP(&fx, "tree"),
		   FAN_CREATE | FAN_FS_ERROR | FAN_RENAME | FAN_MOVED_FROM | FAN_ONDIR, 0);
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(!m->subtree_recursive);
	ck_assert(m->children_dirent_only);
	/* A file's own entry events are reported by a filesystem mark. */
	m = &fx.p->marks[1];
	assert_fan(m, FSN_MARK_FILESYSTEM, DP(&fx, "file"),
		   FAN_CREATE | FAN_FS_ERROR | FAN_RENAME | FAN_MOVED_FROM | FAN_ONDIR, 0);
	ck_assert_str_eq(m->subtree, DP(&fx, "file"));
	fx_done(&fx);

	/* Feature missing on this filesystem: the events go, a problem says why. */
	fx_init(&fx);
	fx.fake.nokernel = F(FSN_FEAT_EVENT_RENAME);
	fx_plan(&fx, "rules = ( { name = \"s\"; paths = [\"@D@/tree\"]; mark = \"filesystem\";\n"
		     "  events = [\"create\", \"rename\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->marks[0].spec.mask, FAN_CREATE | FAN_MOVED_FROM | FAN_ONDIR);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "rename events with both names (FAN_RENAME): not supported by this kernel "
		       "(EINVAL) cannot report rename",
		       false, false);
	fx_done(&fx);
}
END_TEST

START_TEST(test_inotify_explicit) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"i\"; paths = [\"@D@/tree\"]; mark = \"inotify\";\n"
		     "  recursive = true; children = false; ondir = false; required = true;\n"
		     "  events = [\"create\", \"rename\", \"attrib\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	m = &fx.p->marks[0];
	ck_assert_int_eq(m->spec.type, FSN_MARK_INOTIFY);
	ck_assert_uint_eq(m->spec.mask, FAN_CREATE | FAN_ATTRIB);
	ck_assert_uint_eq(m->spec.report, 0);
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(m->subtree_recursive);
	ck_assert(!m->children_dirent_only); /* children = false means nothing below a tree */
	ck_assert(m->drop_ondir);
	ck_assert_uint_eq(fx.p->n_problems, 1);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "inotify watches cannot report rename (renames come as moved_from + "
		       "moved_to)",
		       false, true);
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* paths                                                                    */
/* ------------------------------------------------------------------------ */

START_TEST(test_missing_and_create) {
	struct fx fx;
	struct stat st;

	fx_init(&fx);
	fx_plan(
	    &fx,
	    "rules = (\n"
	    "  { name = \"gone\"; paths = [\"@D@/none\"]; required = true; },\n"
	    "  { name = \"opt\"; paths = [\"@D@/none2\", \"@D@/tree\"]; },\n"
	    "  { name = \"new\"; paths = [\"@D@/new/a/b\"]; create = true; recursive = true; },\n"
	    "  { name = \"bad\"; paths = [\"@D@/file/x\"]; create = true; }\n"
	    ");");
	ck_assert_uint_eq(fx.p->n_problems, 3);
	assert_problem(fx.p, 0, DP(&fx, "none"), "does not exist", false, true);
	ck_assert_ptr_eq(fx.p->problems[0].rule, &fx.c->rules[0]);
	assert_problem(fx.p, 1, DP(&fx, "none2"), "does not exist", false, false);
	assert_problem(fx.p, 2, DP(&fx, "file/x"), "cannot create it: Not a directory", false,
		       false);
	ck_assert(plan_has_fatal(fx.p));
	/* the other path of "opt", and the created one */
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_str_eq(fx.p->marks[0].path, DP(&fx, "tree"));
	ck_assert_str_eq(fx.p->marks[1].path, DP(&fx, "new/a/b"));
	ck_assert_int_eq(fx.p->marks[1].spec.type, FSN_MARK_FILESYSTEM);
	ck_assert_int_eq(stat(DP(&fx, "new/a/b"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	{
		mode_t mask = umask(0);

		umask(mask);
		ck_assert_uint_eq(st.st_mode & 07777, 0755 & ~mask);
	}
	fx_done(&fx);
}
END_TEST

/* A rule's path through another user's symlink (issue 28): not followed,
 * a problem naming the symlink, no mark on what it names, and create =
 * true makes nothing there; a symlink of root's in a directory only root
 * can write to (/bin -> usr/bin) is followed, and the mark's subtree is
 * the resolved path. */
START_TEST(test_symlink_paths) {
	struct fx fx;
	char link[PATH_MAX];

	if (geteuid() != 0)
		fsn_test_skip("another user's symlink needs root (chown)");
	fx_init(&fx);
	mkpath(fx.dir, "home", true);
	ck_assert_int_eq(chown(DP(&fx, "home"), 65534, 65534), 0);
	test_join(link, sizeof(link), fx.dir, "home/up");
	ck_assert_int_eq(symlink(DP(&fx, "tree"), link), 0);
	ck_assert_int_eq(lchown(link, 65534, 65534), 0);
	test_join(link, sizeof(link), fx.dir, "bin");
	ck_assert_int_eq(symlink("tree", link), 0);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"u\"; paths = [\"@D@/home/up\"]; mark = \"filesystem\";\n"
		     "    recursive = true; },\n"
		     "  { name = \"c\"; paths = [\"@D@/home/up/new\"]; create = true; },\n"
		     "  { name = \"b\"; paths = [\"@D@/bin/sub\"]; mark = \"filesystem\";\n"
		     "    recursive = true; } );");
	ck_assert_uint_eq(fx.p->n_problems, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_contains(fx.p->problems[i].msg, "symlink \"");
		assert_contains(fx.p->problems[i].msg,
				"/home/up\" not followed (uid 65534 owns it");
	}
	ck_assert_int_eq(access(DP(&fx, "tree/new"), F_OK), -1);
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_str_eq(fx.p->marks[0].path, DP(&fx, "bin/sub"));
	ck_assert_str_eq(fx.p->marks[0].subtree, DP(&fx, "tree/sub"));
	fx_done(&fx);
}
END_TEST

/* The feature probe of an object another user can remove (its directory
 * is theirs) runs on the object the planner opened, through its fd, not
 * on its path: a user who removes it while it is probed must not make the
 * probe fail and its result be remembered for the whole filesystem. An
 * object only root can remove is probed by its path (kept across plans). */
struct probe_paths {
	struct fake fake;
	char path[2][PATH_MAX];
	int n;
};

static int recording_probe(const char *path, const struct stat *st, struct fsn_probe *ret,
			   void *userdata) {
	struct probe_paths *pp = userdata;

	if (pp->n < 2)
		snprintf(pp->path[pp->n++], sizeof(pp->path[0]), "%s", path);
	return fake_probe(path, st, ret, &pp->fake);
}

START_TEST(test_probe_unstable_by_fd) {
	struct fx fx;
	struct probe_paths pp = { 0 };
	struct plan_opts o = { .probe = recording_probe, .userdata = &pp };

	if (geteuid() != 0)
		fsn_test_skip("another user's directory needs root (chown)");
	fx_init(&fx);
	mkpath(fx.dir, "home", true);
	mkpath(fx.dir, "home/up", true);
	ck_assert_int_eq(chown(DP(&fx, "home"), 65534, 65534), 0);
	fx.c =
	    test_config_load(fx.dir, "rules = ( { name = \"u\"; paths = [\"@D@/home/up\"]; } );");
	ck_assert_int_eq(plan_build_opts(fx.c, &o, &fx.p), 0);
	ck_assert_int_eq(pp.n, 1);
	ck_assert_msg(strncmp(pp.path[0], "/proc/self/fd/", 14) == 0, "probed at %s", pp.path[0]);
	ck_assert_uint_eq(fx.p->n_marks, 1);
	plan_free(fx.p);
	config_free(fx.c);
	/* a directory of root's: by its path */
	ck_assert_int_eq(chown(DP(&fx, "home"), 0, 0), 0);
	pp.n = 0;
	fx.c =
	    test_config_load(fx.dir, "rules = ( { name = \"u\"; paths = [\"@D@/home/up\"]; } );");
	ck_assert_int_eq(plan_build_opts(fx.c, &o, &fx.p), 0);
	ck_assert_int_eq(pp.n, 1);
	ck_assert_str_eq(pp.path[0], DP(&fx, "home/up"));
	fx_done(&fx);
}
END_TEST

START_TEST(test_probe_failure) {
	struct fx fx;

	fx_init(&fx);
	fx.fake.fail = -EIO;
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"a\"; paths = [\"@D@/tree\"]; },\n"
		     "  { name = \"b\"; paths = [\"@D@/tree\"]; }\n"
		     ");");
	ck_assert_uint_eq(fx.p->n_marks, 0);
	ck_assert_uint_eq(fx.p->n_problems, 2);
	assert_problem(fx.p, 0, DP(&fx, "tree"), "cannot probe the kernel here: Input/output error",
		       false, false);
	ck_assert_int_eq(fx.fake.calls, 1); /* a failure is remembered too */
	fx_done(&fx);
}
END_TEST

START_TEST(test_max_marks) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx, "limits = { max_marks = 2; };\n"
		     "rules = ( { name = \"a\"; required = true;\n"
		     "  paths = [\"@D@/tree\", \"@D@/file\", \"@D@/tree/sub\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_uint_eq(fx.p->n_problems, 1);
	assert_problem(fx.p, 0, DP(&fx, "tree/sub"),
		       "limits.max_marks (2) reached: not placed; raise limits.max_marks", false,
		       true);
	ck_assert_int_eq(fx.fake.calls, 1); /* one filesystem, one probe */
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* exclusions                                                               */
/* ------------------------------------------------------------------------ */

START_TEST(test_exclusions) {
	struct fx fx;
	const struct plan_mark *m;
	char why[PATH_MAX * 2];

	fx_init(&fx);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"plain\"; paths = [\"@D@/file\"]; },\n"
		     "  { name = \"tree\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "    events = [\"create\", \"close_write\", \"fs_error\"];\n"
		     "    exclude = [\"@D@/tree/cache\", \"@D@/tree/f.txt\", \"*.swp\",\n"
		     "               \"@D@/tree/none\", \"@D@/elsewhere\", \"@D@/tree\"]; }\n"
		     ");");
	ck_assert_uint_eq(fx.p->n_marks, 4);
	/* no exclusions: the shared group */
	assert_fan(&fx.p->marks[0], FSN_MARK_INODE, DP(&fx, "file"), FAN_CLOSE_WRITE, 0);

	/* ignore marks first, in the rule's own group (tag 1 + index 1) */
	m = &fx.p->marks[1];
	ck_assert_ptr_eq(m->rule, &fx.c->rules[1]);
	ck_assert_int_eq(m->spec.type, FSN_MARK_INODE);
	ck_assert_str_eq(m->path, DP(&fx, "tree/cache"));
	ck_assert_ptr_eq(m->spec.path, m->path);
	ck_assert_uint_eq(m->spec.mask, 0);
	ck_assert_uint_eq(m->spec.ignore,
			  FAN_CREATE | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD | FAN_ONDIR);
	ck_assert_uint_eq(m->spec.report, REPORT);
	ck_assert_uint_eq(m->spec.group_tag, 2);
	ck_assert_ptr_null(m->subtree);
	m = &fx.p->marks[2];
	ck_assert_str_eq(m->path, DP(&fx, "tree/f.txt"));
	ck_assert_uint_eq(m->spec.mask, 0);
	ck_assert_uint_eq(m->spec.ignore, FAN_CLOSE_WRITE); /* a file: no dir-only bits */
	ck_assert_uint_eq(m->spec.group_tag, 2);

	m = &fx.p->marks[3];
	assert_fan(m, FSN_MARK_FILESYSTEM, DP(&fx, "tree"),
		   FAN_CREATE | FAN_CLOSE_WRITE | FAN_FS_ERROR | FAN_MOVED_FROM | FAN_ONDIR, 2);
	snprintf(why, sizeof(why),
		 "; exclude '%s': kernel ignore mark (events of it and its direct entries never "
		 "reach the daemon) and a userspace filter for everything below it",
		 DP(&fx, "tree/cache"));
	assert_contains(m->why, why);
	assert_contains(m->why, "; exclude '*.swp': userspace filter (a glob)");
	snprintf(why, sizeof(why), "; exclude '%s': userspace filter (it does not exist now)",
		 DP(&fx, "tree/none"));
	assert_contains(m->why, why);

	ck_assert_uint_eq(fx.p->n_problems, 2);
	assert_problem(fx.p, 0, DP(&fx, "elsewhere"),
		       "exclude: not below any of the rule's paths; it has no effect", true, false);
	assert_problem(fx.p, 1, DP(&fx, "tree"),
		       "exclude: not below any of the rule's paths; it has no effect", true, false);
	fx_done(&fx);
}
END_TEST

START_TEST(test_exclusions_userspace_only) {
	struct fx fx;

	/* No FAN_MARK_IGNORE: no ignore marks, no group of its own. */
	fx_init(&fx);
	fx.fake.nokernel = F(FSN_FEAT_MARK_IGNORE);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "  exclude = [\"@D@/tree/cache\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_uint_eq(fx.p->marks[0].spec.group_tag, 0);
	assert_contains(fx.p->marks[0].why,
			"userspace filter (new-style ignore masks (FAN_MARK_IGNORE): not supported "
			"by this kernel (EINVAL))");
	fx_done(&fx);

	/* inotify has no ignore marks */
	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; mark = \"inotify\";\n"
		     "  exclude = [\"@D@/tree/cache\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_int_eq(fx.p->marks[0].spec.type, FSN_MARK_INOTIFY);
	assert_contains(fx.p->marks[0].why, "userspace filter (inotify has no ignore marks)");
	fx_done(&fx);

	/* not recursive: only direct entries can be excluded */
	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"];\n"
		     "  exclude = [\"@D@/tree/sub\", \"@D@/tree/sub/deep\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_str_eq(fx.p->marks[0].path, DP(&fx, "tree/sub"));
	ck_assert_uint_eq(fx.p->marks[1].spec.group_tag, 1);
	assert_problem(fx.p, 0, DP(&fx, "tree/sub/deep"),
		       "exclude: not a direct entry of any of the rule's paths; it has no effect",
		       true, false);
	fx_done(&fx);
}
END_TEST

/* An exclusion below the first of a rule's paths: the first path's probe
 * result is what decides (one probe: both paths are on one filesystem). */
START_TEST(test_exclusions_first_of_two_paths) {
	struct fx fx;

	fx_init(&fx);
	fx.fake.nokernel = F(FSN_FEAT_MARK_IGNORE);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\", \"@D@/file\"];\n"
		     "  recursive = true; exclude = [\"@D@/tree/cache\"]; } );");
	ck_assert_int_eq(fx.fake.calls, 1);
	ck_assert_uint_eq(fx.p->n_marks, 2);
	ck_assert_uint_eq(fx.p->marks[0].spec.ignore, 0);
	assert_contains(fx.p->marks[0].why, "userspace filter (new-style ignore masks "
					    "(FAN_MARK_IGNORE): not supported by this kernel");
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* permission rules                                                         */
/* ------------------------------------------------------------------------ */

#define PERM_CONTENT FSN_CLASS_CONTENT, FAN_UNLIMITED_QUEUE
#define PERM_PRE FSN_CLASS_PRE_CONTENT, FAN_UNLIMITED_QUEUE

/* auto, not recursive: inode marks in a group of the rule's own (tag 1 +
 * index), class content, no FID reporting, no queue limit. */
START_TEST(test_perm_auto_inode) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"n\"; paths = [\"@D@/file\"]; },\n"
		     "  { name = \"f\"; paths = [\"@D@/file\"]; events = [\"open_perm\", "
		     "\"open_exec_perm\"]; },\n"
		     "  { name = \"d\"; paths = [\"@D@/tree\"]; events = [\"access_perm\"]; },\n"
		     "  { name = \"e\"; paths = [\"@D@/tree\"]; events = [\"open_perm\"];\n"
		     "    children = false; ondir = false; }\n"
		     ");");
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert_uint_eq(fx.p->n_marks, 4);
	assert_fan(&fx.p->marks[0], FSN_MARK_INODE, DP(&fx, "file"), FAN_CLOSE_WRITE, 0);
	assert_mark(&fx.p->marks[1], FSN_MARK_INODE, DP(&fx, "file"),
		    FAN_OPEN_PERM | FAN_OPEN_EXEC_PERM, PERM_CONTENT, 2);
	ck_assert_ptr_eq(fx.p->marks[1].rule, &fx.c->rules[1]);
	ck_assert_ptr_null(fx.p->marks[1].subtree);
	ck_assert_str_eq(fx.p->marks[1].target, DP(&fx, "file"));
	assert_contains(fx.p->marks[1].why,
			"auto: a single file, so an inode mark asks the daemon "
			"only about this file — every other file costs nothing");
	assert_mark(&fx.p->marks[2], FSN_MARK_INODE, DP(&fx, "tree"),
		    FAN_ACCESS_PERM | FAN_EVENT_ON_CHILD | FAN_ONDIR, PERM_CONTENT, 3);
	assert_contains(fx.p->marks[2].why,
			"auto: a directory one level deep, so an inode mark asks the daemon only "
			"about the directory and its direct entries");
	ck_assert_ptr_null(fx.p->marks[2].subtree);
	assert_mark(&fx.p->marks[3], FSN_MARK_INODE, DP(&fx, "tree"), FAN_OPEN_PERM, PERM_CONTENT,
		    4);
	assert_contains(fx.p->marks[3].why, "only about the directory itself");
	/* permission rules are required unless they say otherwise */
	ck_assert(!fx.c->rules[0].required);
	ck_assert(fx.c->rules[1].required);
	fx_done(&fx);

	/* FAN_UNLIMITED_QUEUE not permitted: a bounded queue */
	fx_init(&fx);
	fx.fake.denied = F(FSN_FEAT_UNLIMITED_QUEUE);
	fx_plan(&fx, "rules = ( { name = \"f\"; paths = [\"@D@/file\"]; events = [\"open_perm\"]; "
		     "} );");
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert_uint_eq(fx.p->n_marks, 1);
	assert_mark(&fx.p->marks[0], FSN_MARK_INODE, DP(&fx, "file"), FAN_OPEN_PERM,
		    FSN_CLASS_CONTENT, 0, 1);
	fx_done(&fx);
}
END_TEST

/* auto, recursive: a filesystem mark with a subtree filter; a mount mark
 * where filesystem marks do not work; a file is still an inode mark. */
START_TEST(test_perm_auto_recursive) {
	struct fx fx;
	const struct plan_mark *m;
	char want[PATH_MAX + 16];

	fx_init(&fx);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"t\"; paths = [\"@D@/tree\", \"@D@/file\"]; recursive = true;\n"
		     "    events = [\"open_exec_perm\"]; }\n"
		     ");");
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert_uint_eq(fx.p->n_marks, 2);
	m = &fx.p->marks[0];
	assert_mark(m, FSN_MARK_FILESYSTEM, DP(&fx, "tree"), FAN_OPEN_EXEC_PERM | FAN_ONDIR,
		    PERM_CONTENT, 1);
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(m->subtree_recursive);
	ck_assert(!m->children_dirent_only);
	snprintf(want, sizeof(want), " (fs of %s)", DP(&fx, "tree"));
	assert_contains(m->target, want);
	assert_contains(m->why, "auto: a recursive directory, so a filesystem mark: every such "
				"access on the filesystem mounted at");
	snprintf(want, sizeof(want), "which allows those outside %s and below at once",
		 DP(&fx, "tree"));
	assert_contains(m->why, want);
	assert_mark(&fx.p->marks[1], FSN_MARK_INODE, DP(&fx, "file"), FAN_OPEN_EXEC_PERM,
		    PERM_CONTENT, 1);
	fx_done(&fx);

	fx_init(&fx);
	fx.fake.broken = F(FSN_FEAT_MARK_FILESYSTEM);
	fx_plan(&fx, "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "  events = [\"open_perm\"]; } );");
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert_uint_eq(fx.p->n_marks, 1);
	m = &fx.p->marks[0];
	assert_mark(m, FSN_MARK_MOUNT, DP(&fx, "tree"), FAN_OPEN_PERM | FAN_ONDIR, PERM_CONTENT, 1);
	ck_assert(m->subtree_recursive);
	assert_contains(m->target, " (mount of ");
	assert_contains(m->why, "auto: a recursive directory where filesystem marks do not work, "
				"so a mount mark: every such access through the mount at");
	fx_done(&fx);
}
END_TEST

/* mark = "mount", "filesystem", "inode" as asked; a mark type that does
 * not work here is a problem. */
START_TEST(test_perm_explicit_marks) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"m\"; paths = [\"@D@/tree\"]; mark = \"mount\"; recursive = true;\n"
		"    events = [\"open_perm\"]; },\n"
		"  { name = \"n\"; paths = [\"@D@/tree\"]; mark = \"mount\"; events = "
		"[\"open_perm\"]; },\n"
		"  { name = \"s\"; paths = [\"@D@/file\"]; mark = \"filesystem\"; events = "
		"[\"access_perm\"]; },\n"
		"  { name = \"i\"; paths = [\"@D@/tree\"]; mark = \"inode\"; events = "
		"[\"open_perm\"]; }\n"
		");");
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert_uint_eq(fx.p->n_marks, 4);
	m = &fx.p->marks[0];
	assert_mark(m, FSN_MARK_MOUNT, DP(&fx, "tree"), FAN_OPEN_PERM | FAN_ONDIR, PERM_CONTENT, 1);
	ck_assert_str_eq(m->subtree, DP(&fx, "tree"));
	ck_assert(m->subtree_recursive);
	assert_contains(m->target, " (mount of ");
	assert_contains(m->why, "a mount mark: every such access through the mount at");
	ck_assert_str_eq(fx.p->marks[1].subtree, DP(&fx, "tree"));
	ck_assert(!fx.p->marks[1].subtree_recursive);
	assert_contains(fx.p->marks[1].why, " and its direct entries at once");
	m = &fx.p->marks[2];
	assert_mark(m, FSN_MARK_FILESYSTEM, DP(&fx, "file"), FAN_ACCESS_PERM | FAN_ONDIR,
		    PERM_CONTENT, 3);
	ck_assert_str_eq(m->subtree, DP(&fx, "file"));
	assert_mark(&fx.p->marks[3], FSN_MARK_INODE, DP(&fx, "tree"),
		    FAN_OPEN_PERM | FAN_EVENT_ON_CHILD | FAN_ONDIR, PERM_CONTENT, 4);
	fx_done(&fx);

	fx_init(&fx);
	fx.fake.broken = F(FSN_FEAT_MARK_MOUNT);
	fx_plan(&fx, "rules = ( { name = \"m\"; paths = [\"@D@/tree\"]; mark = \"mount\";\n"
		     "  events = [\"open_perm\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 0);
	assert_problem(fx.p, 0, DP(&fx, "tree"),
		       "mount marks (FAN_MARK_MOUNT): not supported by this filesystem "
		       "(EOPNOTSUPP)",
		       false, true);
	fx_done(&fx);
}
END_TEST

/* pre_access and deny(ERRNO) verdicts (wherever they are) need a
 * pre-content group; a plain deny, deny(EPERM) or audit does not. */
START_TEST(test_perm_pre_content_class) {
	static const struct {
		const char *rule;
		enum fsn_class klass;
	} cases[] = {
		{ "events = [\"open_perm\"]; decisions = ( { paths = [\"/x\"]; verdict = "
		  "\"deny(EIO)\"; } );",
		  FSN_CLASS_PRE_CONTENT },
		{ "events = [\"pre_access\"];", FSN_CLASS_PRE_CONTENT },
		{ "events = [\"open_perm\"]; default = \"deny(EBUSY)\";", FSN_CLASS_PRE_CONTENT },
		{ "events = [\"open_perm\"]; deadline_verdict = \"deny(EAGAIN)\";",
		  FSN_CLASS_PRE_CONTENT },
		{ "events = [\"open_perm\"]; decisions = ( { verdict = \"deny(EPERM)\"; },\n"
		  "  { verdict = \"audit\"; } ); default = \"deny\";",
		  FSN_CLASS_CONTENT },
	};
	struct fx fx;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = test_subst("rules = ( { name = \"p\"; paths = [\"@D@/tree\"];\n"
					"  recursive = true; @R@ } );",
					"@R@", cases[i].rule);

		fx_init(&fx);
		fx_plan(&fx, text);
		free(text);
		ck_assert_msg(fx.p->n_marks == 1 && fx.p->n_problems == 0, "%s", cases[i].rule);
		/* the kernel takes no FAN_ONDIR with FAN_PRE_ACCESS */
		assert_mark(&fx.p->marks[0], FSN_MARK_FILESYSTEM, DP(&fx, "tree"),
			    fx.c->rules[0].events |
				(fx.c->rules[0].events & FAN_PRE_ACCESS ? 0 : FAN_ONDIR),
			    cases[i].klass, FAN_UNLIMITED_QUEUE, 1);
		if (fx.c->rules[0].events & FAN_PRE_ACCESS)
			assert_contains(
			    fx.p->marks[0].why,
			    "; no directories: the kernel asks pre_access only for files");
		fx_done(&fx);
	}
}
END_TEST

/* A kernel without FAN_DENY_ERRNO cannot answer deny(EIO): the rule is
 * not placed, fatal unless required = false; other rules are. */
START_TEST(test_perm_deny_errno_unsupported) {
	static const char msg[] = "a deny(ERRNO) verdict cannot be answered here: deny with a "
				  "chosen errno (FAN_DENY_ERRNO, pre-content groups): not "
				  "supported by this kernel (EINVAL); use \"deny\" (EPERM)";
	struct fx fx;

	fx_init(&fx);
	fx.fake.nokernel = F(FSN_FEAT_DENY_ERRNO);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"e\"; paths = [\"@D@/file\"]; events = [\"open_perm\"];\n"
		     "    decisions = ( { verdict = \"deny(EIO)\"; } ); },\n"
		     "  { name = \"o\"; paths = [\"@D@/tree\"]; events = [\"open_perm\"];\n"
		     "    default = \"deny(EIO)\"; required = false; },\n"
		     "  { name = \"p\"; paths = [\"@D@/file\"]; events = [\"open_perm\"];\n"
		     "    default = \"deny\"; }\n"
		     ");");
	ck_assert_uint_eq(fx.p->n_problems, 2);
	assert_problem(fx.p, 0, DP(&fx, "file"), msg, false, true);
	ck_assert_ptr_eq(fx.p->problems[0].rule, &fx.c->rules[0]);
	assert_problem(fx.p, 1, DP(&fx, "tree"), msg, false, false);
	ck_assert_ptr_eq(fx.p->problems[1].rule, &fx.c->rules[1]);
	ck_assert(plan_has_fatal(fx.p));
	ck_assert_uint_eq(fx.p->n_marks, 1);
	ck_assert_ptr_eq(fx.p->marks[0].rule, &fx.c->rules[2]);
	assert_mark(&fx.p->marks[0], FSN_MARK_INODE, DP(&fx, "file"), FAN_OPEN_PERM, PERM_CONTENT,
		    3);
	fx_done(&fx);
}
END_TEST

/* What a permission rule needs and this kernel or filesystem lacks. */
START_TEST(test_perm_features_missing) {
	static const struct {
		enum fsn_feature feature;
		int how; /* 0 broken (fs), 1 not in the kernel, 2 not permitted */
		const char *events, *msg;
	} cases[] = {
		{ FSN_FEAT_PRE_ACCESS, 0, "pre_access",
		  "pre-content access events (FAN_PRE_ACCESS): not supported by this filesystem "
		  "(EOPNOTSUPP)" },
		{ FSN_FEAT_CLASS_PRE_CONTENT, 1, "pre_access",
		  "permission events do not work here: pre-content event groups "
		  "(FAN_CLASS_PRE_CONTENT): not supported by this kernel (EINVAL)" },
		{ FSN_FEAT_CLASS_CONTENT, 2, "open_perm",
		  "permission events do not work here: permission event groups "
		  "(FAN_CLASS_CONTENT): "
		  "not permitted (EPERM): needs CAP_SYS_ADMIN, which fsnotifyd lacks here; "
		  "permission events have no unprivileged alternative" },
		{ FSN_FEAT_PERM_OPEN_EXEC, 1, "open_exec_perm",
		  "execute permission events (FAN_OPEN_EXEC_PERM): not supported by this kernel "
		  "(EINVAL)" },
		{ FSN_FEAT_PERM_ACCESS, 1, "access_perm",
		  "read permission events (FAN_ACCESS_PERM): not supported by this kernel "
		  "(EINVAL)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text =
		    test_subst("rules = (\n"
			       "  { name = \"a\"; paths = [\"@D@/tree\"]; events = [\"@E@\"]; },\n"
			       "  { name = \"b\"; paths = [\"@D@/file\"]; events = [\"@E@\"]; "
			       "required = false; }\n"
			       ");",
			       "@E@", cases[i].events);
		struct fx fx;

		fx_init(&fx);
		*(cases[i].how == 0   ? &fx.fake.broken
		  : cases[i].how == 1 ? &fx.fake.nokernel
				      : &fx.fake.denied) = F(cases[i].feature);
		fx_plan(&fx, text);
		free(text);
		ck_assert_uint_eq(fx.p->n_marks, 0);
		ck_assert_uint_eq(fx.p->n_problems, 2);
		assert_problem(fx.p, 0, DP(&fx, "tree"), cases[i].msg, false, true);
		assert_problem(fx.p, 1, DP(&fx, "file"), cases[i].msg, false, false);
		fx_done(&fx);
	}
}
END_TEST

/* The daemon reads /proc to decide: a permission rule may not mark it. */
START_TEST(test_perm_not_proc) {
	struct fx fx;

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"p\"; paths = [\"/proc\"]; events = [\"open_perm\"]; "
		     "} );");
	ck_assert_uint_eq(fx.p->n_marks, 0);
	assert_problem(fx.p, 0, "/proc",
		       "permission rules cannot guard /proc: the daemon reads it to decide", false,
		       true);
	fx_done(&fx);
}
END_TEST

/* Exclusions of a permission rule: ignore marks in the rule's own group
 * (its class, no FID reporting); none for a rule of inode marks. */
START_TEST(test_perm_exclusions) {
	struct fx fx;
	const struct plan_mark *m;

	fx_init(&fx);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true; events = "
		     "[\"open_perm\"];\n"
		     "    exclude = [\"@D@/tree/cache\"]; default = \"deny(EIO)\"; },\n"
		     "  { name = \"i\"; paths = [\"@D@/tree\"]; events = [\"open_perm\"];\n"
		     "    exclude = [\"@D@/tree/f.txt\"]; }\n"
		     ");");
	ck_assert_uint_eq(fx.p->n_problems, 0);
	ck_assert_uint_eq(fx.p->n_marks, 3);
	m = &fx.p->marks[0];
	ck_assert_str_eq(m->path, DP(&fx, "tree/cache"));
	ck_assert_int_eq(m->spec.type, FSN_MARK_INODE);
	ck_assert_uint_eq(m->spec.mask, 0);
	ck_assert_uint_eq(m->spec.ignore, FAN_OPEN_PERM | FAN_EVENT_ON_CHILD | FAN_ONDIR);
	ck_assert_int_eq(m->spec.klass, FSN_CLASS_PRE_CONTENT);
	ck_assert_uint_eq(m->spec.report, FAN_UNLIMITED_QUEUE);
	ck_assert_uint_eq(m->spec.group_tag, 1);
	assert_mark(&fx.p->marks[1], FSN_MARK_FILESYSTEM, DP(&fx, "tree"),
		    FAN_OPEN_PERM | FAN_ONDIR, PERM_PRE, 1);
	assert_mark(&fx.p->marks[2], FSN_MARK_INODE, DP(&fx, "tree"),
		    FAN_OPEN_PERM | FAN_EVENT_ON_CHILD | FAN_ONDIR, PERM_CONTENT, 2);
	assert_contains(fx.p->marks[2].why, "userspace filter (the rule marks single objects)");
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* plan_print                                                               */
/* ------------------------------------------------------------------------ */

START_TEST(test_plan_print) {
	struct fx fx;
	char *out = NULL, *want;
	size_t len = 0;
	FILE *f;

	fx_init(&fx);
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"one\"; paths = [\"@D@/file\"]; events = [\"modify\"]; },\n"
		"  { name = \"dir\"; paths = [\"@D@/tree\"]; mark = \"inotify\"; ondir = false;\n"
		"    children = false; events = [\"create\"]; exclude = [\"*.o\"]; },\n"
		"  { name = \"ex\"; paths = [\"@D@/tree\"]; events = [\"open\"];\n"
		"    exclude = [\"@D@/tree/f.txt\"]; },\n"
		"  { name = \"gone\"; paths = [\"@D@/none\"]; required = true; },\n"
		"  { name = \"up\"; paths = [\"@D@/tree\"]; exclude = [\"/x\"]; }\n"
		");");
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	plan_print(fx.p, f);
	ck_assert_int_eq(fclose(f), 0);
	want = test_subst(
	    "rule 'one': inode mark on @D@/file, mask modify, group notif/dfid_name,fid tag 0 — "
	    "why: auto: a single file, so an inode mark on the file reports exactly its events — "
	    "the kernel checks it only for this file\n"
	    "rule 'dir': inotify watch on @D@/tree, mask create, filter @D@/tree and entries' "
	    "create/delete/move, no directories — why: an inotify watch on the directory reports "
	    "its events and those of its direct entries; exclude '*.o': userspace filter (a "
	    "glob)\n"
	    "rule 'ex': ignore mark on @D@/tree/f.txt, ignore open, group notif/dfid_name,fid tag "
	    "3 — why: exclusion: an ignore mark in the rule's own group (tag 3) so it hides "
	    "nothing from other rules\n"
	    "rule 'ex': inode mark on @D@/tree, mask open,event_on_child,ondir, group "
	    "notif/dfid_name,fid tag 3 — why: auto: a directory watched one level deep, so an "
	    "inode mark on the directory reports its own events and those of its direct entries "
	    "— one mark, and the kernel checks it only for this directory and its entries; "
	    "exclude '@D@/tree/f.txt': kernel ignore mark (events of it never reach the daemon) "
	    "and a userspace filter for everything below it\n"
	    "rule 'up': inode mark on @D@/tree, mask close_write,moved_from,moved_to,create,"
	    "delete,event_on_child,ondir, group notif/dfid_name,fid tag 0 — why: auto: a "
	    "directory watched one level deep, so an inode mark on the directory reports its own "
	    "events and those of its direct entries — one mark, and the kernel checks it only "
	    "for this directory and its entries\n"
	    "problem: rule 'gone': @D@/none: does not exist (the rule is required: fatal)\n"
	    "warning: rule 'up': /x: exclude: not a direct entry of any of the rule's paths; it "
	    "has no effect\n"
	    "5 marks, 1 problems (1 fatal), 1 warnings\n",
	    "@D@", fx.dir);
	ck_assert_str_eq(out, want);
	free(out);
	free(want);
	fx_done(&fx);
}
END_TEST

/* What a printer writes for p. */
static char *print_plan(void (*print)(const struct plan *, FILE *), const struct plan *p) {
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	print(p, f);
	ck_assert_int_eq(fclose(f), 0);
	return out;
}

/* tmpl with @D@ for fx.dir, @FS@ for the words of its filesystem
 * ("tmpfs at /tmp (dev 0:33)"), checked against the plan's only one, and
 * @ROOT@ for that filesystem's mount root. */
static char *summary_want(const struct fx *fx, const char *tmpl) {
	char fs[PATH_MAX + 64], *d, *want;
	struct stat st;

	ck_assert_int_eq(stat(fx->dir, &st), 0);
	ck_assert_uint_eq(fx->p->n_fs, 1);
	ck_assert(fx->p->fs[0].dev == st.st_dev);
	ck_assert_ptr_nonnull(fx->p->fs[0].type);
	ck_assert_ptr_nonnull(fx->p->fs[0].root);
	ck_assert(strncmp(fx->dir, fx->p->fs[0].root, strlen(fx->p->fs[0].root)) == 0);
	snprintf(fs, sizeof(fs), "%s at %s (dev %u:%u)", fx->p->fs[0].type, fx->p->fs[0].root,
		 major(st.st_dev), minor(st.st_dev));
	d = test_subst(tmpl, "@D@", fx->dir);
	want = test_subst(d, "@FS@", fs);
	free(d);
	d = test_subst(want, "@ROOT@", fx->p->fs[0].root);
	free(want);
	return d;
}

#define SUMMARY_INODE_DIR_WHY                                                                      \
	"auto: a directory watched one level deep, so an inode mark on the directory reports its " \
	"own events and those of its direct entries — one mark, and the kernel checks it only "  \
	"for this directory and its entries"

START_TEST(test_plan_summary) {
	struct fx fx;
	char *out, *want;

	fx_init(&fx);
	mkpath(fx.dir, "d1", true);
	mkpath(fx.dir, "d2", true);
	mkpath(fx.dir, "f2", false);
	/* "many": directories (more than the 3 examples) and files, a group
	 * each, in the order of their first mark; "one": one mark; "rec":
	 * filesystem marks with a filter */
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"many\"; paths = [\"@D@/tree\", \"@D@/file\", \"@D@/d1\",\n"
		"    \"@D@/tree/sub\", \"@D@/tree/f.txt\", \"@D@/d2\", \"@D@/f2\",\n"
		"    \"@D@/tree/sub/deep\", \"@D@/tree/cache\"]; },\n"
		"  { name = \"one\"; paths = [\"@D@/d1\"]; events = [\"modify\"]; },\n"
		"  { name = \"rec\"; paths = [\"@D@/tree\", \"@D@/d1\"]; recursive = true;\n"
		"    events = [\"modify\"]; },\n"
		"  { name = \"ino\"; paths = [\"@D@/tree\", \"@D@/d2\", \"@D@/file\"];\n"
		"    mark = \"inotify\"; ondir = false; children = false; events = [\"create\", "
		"\"modify\"]; }\n"
		");");
	out = print_plan(plan_print_summary, fx.p);
	want = summary_want(
	    &fx,
	    "rule 'many': 9 paths, 9 marks\n"
	    "  6 inode marks on directories, @FS@, mask close_write,moved_from,moved_to,create,"
	    "delete,event_on_child,ondir, group notif/dfid_name,fid tag 0: @D@/tree, @D@/d1, "
	    "@D@/tree/sub and 3 more\n"
	    "    why (first of 6): " SUMMARY_INODE_DIR_WHY "\n"
	    "  3 inode marks on files, @FS@, mask close_write, group notif/dfid_name,fid tag 0: "
	    "@D@/file, @D@/tree/f.txt, @D@/f2\n"
	    "    why (first of 3): auto: a single file, so an inode mark on the file reports "
	    "exactly its events — the kernel checks it only for this file; moved_from,moved_to,"
	    "create,delete are events of a directory and cannot happen on a file (use "
	    "delete_self, move_self here, or watch the directory)\n"
	    "rule 'one': 1 path, 1 mark\n"
	    "  1 inode mark on a directory, @FS@, mask modify,event_on_child,ondir, group "
	    "notif/dfid_name,fid tag 0: @D@/d1\n"
	    "    why: auto: a directory watched one level deep, so an inode mark on the "
	    "directory reports its own events and those of its direct entries — one mark, and "
	    "the kernel checks it only for this directory and its entries\n"
	    "rule 'rec': 2 paths, 2 marks\n"
	    "  2 filesystem marks for directories, @FS@, mask modify,moved_from,ondir, group "
	    "notif/dfid_name tag 0, filter each path and below: @D@/tree, @D@/d1\n"
	    "    why (first of 2): auto: a recursive directory, so a filesystem mark with "
	    "DFID_NAME reports these events for every file of the filesystem mounted at @ROOT@, "
	    "each with its full path: no per-directory marks, no race with new subdirectories, "
	    "no watch limit; cost: every such event on that filesystem reaches the daemon and is "
	    "filtered to @D@/tree and below in user space; with moved_from on directories, so "
	    "the daemon learns every directory move and can cache directory paths\n"
	    "rule 'ino': 3 paths, 3 marks\n"
	    "  2 inotify watches on directories, @FS@, mask modify,create, filter each path and "
	    "entries' create/delete/move, no directories: @D@/tree, @D@/d2\n"
	    "    why (first of 2): an inotify watch on the directory reports its events and "
	    "those of its direct entries\n"
	    "  1 inotify watch on a file, @FS@, mask modify: @D@/file\n"
	    "    why: an inotify watch on the file reports exactly its events; create cannot "
	    "happen on a file\n"
	    "15 marks, 0 problems (0 fatal), 0 warnings\n");
	ck_assert_str_eq(out, want);
	free(out);
	free(want);
	fx_done(&fx);
}
END_TEST

/* Exclusions: the ignore marks (first) in groups of their own; the rule's
 * warnings about two exclusions as one line. */
START_TEST(test_plan_summary_exclusions) {
	struct fx fx;
	char *out, *want;

	fx_init(&fx);
	fx_plan(&fx, "rules = ( { name = \"ex\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		     "  events = [\"create\", \"close_write\"];\n"
		     "  exclude = [\"@D@/tree/cache\", \"@D@/tree/f.txt\", \"@D@/tree/sub\", "
		     "\"*.swp\",\n"
		     "             \"/x\", \"/y\"]; } );");
	out = print_plan(plan_print_summary, fx.p);
	want = summary_want(
	    &fx,
	    "rule 'ex': 1 path, 4 marks\n"
	    "  2 ignore marks on directories, @FS@, ignore close_write,create,event_on_child,"
	    "ondir, group notif/dfid_name tag 1: @D@/tree/cache, @D@/tree/sub\n"
	    "    why (first of 2): exclusion: an ignore mark in the rule's own group (tag 1) so "
	    "it hides nothing from other rules\n"
	    "  1 ignore mark on a file, @FS@, ignore close_write, group notif/dfid_name tag "
	    "1: @D@/tree/f.txt\n"
	    "    why: exclusion: an ignore mark in the rule's own group (tag 1) so it hides "
	    "nothing from other rules\n"
	    "  1 filesystem mark for a directory, @FS@, mask close_write,moved_from,create,ondir, "
	    "group notif/dfid_name tag 1, filter the path and below: @D@/tree\n"
	    "    why: auto: a recursive directory, so a filesystem mark with DFID_NAME reports "
	    "these events for every file of the filesystem mounted at @ROOT@, each with its full "
	    "path: no per-directory marks, no race with new subdirectories, no watch limit; "
	    "cost: every such event on that filesystem reaches the daemon and is filtered to "
	    "@D@/tree and below in user space; with moved_from on directories, so the daemon "
	    "learns every directory move and can cache directory paths; exclude "
	    "'@D@/tree/cache': kernel ignore mark (events of it and its direct entries never "
	    "reach the daemon) and a userspace filter for everything below it; exclude "
	    "'@D@/tree/f.txt': kernel ignore mark (events of it never reach the daemon) and a "
	    "userspace filter for everything below it; exclude '@D@/tree/sub': kernel ignore "
	    "mark (events of it and its direct entries never reach the daemon) and a userspace "
	    "filter for everything below it; exclude '*.swp': userspace filter (a glob)\n"
	    "warning: rule 'ex': 2 paths: exclude: not below any of the rule's paths; it has no "
	    "effect: /x, /y\n"
	    "4 marks, 0 problems (0 fatal), 2 warnings\n");
	ck_assert_str_eq(out, want);
	free(out);
	free(want);
	fx_done(&fx);
}
END_TEST

/* Problems by rule, message and kind; rules without marks; one path as
 * plan_print() says it. */
START_TEST(test_plan_summary_problems) {
	struct fx fx;
	char *out, *want;

	fx_init(&fx);
	fx_plan(&fx,
		"rules = (\n"
		"  { name = \"gone\"; required = true;\n"
		"    paths = [\"@D@/n1\", \"@D@/n2\", \"@D@/n3\", \"@D@/n4\", \"@D@/n5\"]; },\n"
		"  { name = \"mixed\"; paths = [\"@D@/file/x\", \"@D@/n1\", \"@D@/file/y\",\n"
		"    \"@D@/tree\"]; events = [\"modify\"]; },\n"
		"  { name = \"also\"; paths = [\"@D@/n1\", \"@D@/n2\"]; }\n"
		");");
	out = print_plan(plan_print_summary, fx.p);
	want = summary_want(
	    &fx, "rule 'gone': 5 paths, 0 marks\n"
		 "rule 'mixed': 4 paths, 1 mark\n"
		 "  1 inode mark on a directory, @FS@, mask modify,event_on_child,ondir, group "
		 "notif/dfid_name,fid tag 0: @D@/tree\n"
		 "    why: " SUMMARY_INODE_DIR_WHY "\n"
		 "rule 'also': 2 paths, 0 marks\n"
		 "problem: rule 'gone': 5 paths: does not exist: @D@/n1, @D@/n2, @D@/n3 and 2 more "
		 "(the rule is required: fatal)\n"
		 "problem: rule 'mixed': 2 paths: cannot watch it: Not a directory: @D@/file/x, "
		 "@D@/file/y\n"
		 "problem: rule 'mixed': @D@/n1: does not exist\n"
		 "problem: rule 'also': 2 paths: does not exist: @D@/n1, @D@/n2\n"
		 "1 marks, 10 problems (5 fatal), 0 warnings\n");
	ck_assert_str_eq(out, want);
	free(out);
	free(want);

	/* nothing at all (a config has rules; a plan may not) */
	out = print_plan(plan_print_summary, &(struct plan){ 0 });
	ck_assert_str_eq(out, "0 marks, 0 problems (0 fatal), 0 warnings\n");
	free(out);
	out = print_plan(plan_print_summary, NULL);
	ck_assert_str_eq(out, "");
	free(out);
	fx_done(&fx);
}
END_TEST

/* A thousand paths: four lines. */
START_TEST(test_plan_summary_scale) {
	struct fx fx;
	char *tmpl = NULL, *out, *want;
	size_t len = 0;
	FILE *f;

	fx_init(&fx);
	f = open_memstream(&tmpl, &len);
	ck_assert_ptr_nonnull(f);
	fputs("rules = ( { name = \"big\"; events = [\"modify\"]; paths = [", f);
	for (int i = 0; i < 1000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		mkpath(fx.dir, name, false);
		fprintf(f, "%s\"@D@/%s\"", i ? ", " : "", name);
	}
	fputs(", \"@D@/none\"]; } );", f);
	ck_assert_int_eq(fclose(f), 0);
	fx_plan(&fx, tmpl);
	free(tmpl);
	ck_assert_uint_eq(fx.p->n_marks, 1000);
	out = print_plan(plan_print_summary, fx.p);
	want = summary_want(
	    &fx, "rule 'big': 1001 paths, 1000 marks\n"
		 "  1000 inode marks on files, @FS@, mask modify, group notif/dfid_name,fid tag 0: "
		 "@D@/f0, @D@/f1, @D@/f2 and 997 more\n"
		 "    why (first of 1000): auto: a single file, so an inode mark on the file "
		 "reports exactly its events — the kernel checks it only for this file\n"
		 "problem: rule 'big': @D@/none: does not exist\n"
		 "1000 marks, 1 problems (0 fatal), 0 warnings\n");
	ck_assert_str_eq(out, want);
	free(out);
	free(want);
	fx_done(&fx);
}
END_TEST

/* Hostile bytes in a filename: both printers escape them (text_escape()). */
START_TEST(test_plan_print_escapes) {
	struct fx fx;
	char *out, *want;

	fx_init(&fx);
	mkpath(fx.dir, "a\nb\x1b[2Jc\\", true);
	fx_plan(&fx, "rules = ( { name = \"h\"; events = [\"modify\"];\n"
		     "  paths = [\"@D@/a\\nb\\x1b[2Jc\\\\\", \"@D@/no\\tpe\"]; } );");
	ck_assert_uint_eq(fx.p->n_marks, 1);
	out = print_plan(plan_print, fx.p);
	want = test_subst("rule 'h': inode mark on @D@/a\\nb\\x1b[2Jc\\\\, mask "
			  "modify,event_on_child,ondir, group "
			  "notif/dfid_name,fid tag 0 — why: " SUMMARY_INODE_DIR_WHY "\n"
			  "problem: rule 'h': @D@/no\\tpe: does not exist\n"
			  "1 marks, 1 problems (0 fatal), 0 warnings\n",
			  "@D@", fx.dir);
	ck_assert_str_eq(out, want);
	free(out);
	free(want);
	out = print_plan(plan_print_summary, fx.p);
	want = summary_want(
	    &fx, "rule 'h': 2 paths, 1 mark\n"
		 "  1 inode mark on a directory, @FS@, mask modify,event_on_child,ondir, "
		 "group notif/dfid_name,fid tag 0: @D@/a\\nb\\x1b[2Jc\\\\\n"
		 "    why: " SUMMARY_INODE_DIR_WHY "\n"
		 "problem: rule 'h': @D@/no\\tpe: does not exist\n"
		 "1 marks, 1 problems (0 fatal), 0 warnings\n");
	ck_assert_str_eq(out, want);
	free(out);
	free(want);
	fx_done(&fx);
}
END_TEST

START_TEST(test_free_and_errors) {
	struct plan *p = NULL;

	ck_assert_ptr_null(plan_free(NULL));
	ck_assert(!plan_has_fatal(NULL));
	ck_assert_int_eq(plan_build(NULL, &p), -EINVAL);
	ck_assert_ptr_null(p);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the real probe (own process)                                             */
/* ------------------------------------------------------------------------ */

/* In the child: report and exit 1. */
#define CHILD_CHECK(cond, ...)                                                                     \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)

/* Run fn in a child process; 77 from it is a skip. */
static void run_child(int (*fn)(void)) {
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fn());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "the child died: status %#x", status);
	if (WEXITSTATUS(status) == FSN_TEST_SKIP_STATUS) {
		const char *fork_mode = getenv("CK_FORK");

		/* exit(77) would end the whole runner without CK_FORK */
		if (fork_mode && strcmp(fork_mode, "no") == 0)
			return;
		fsn_test_skip("the child skipped (see above)");
	}
	ck_assert_msg(WEXITSTATUS(status) == 0, "the child failed (see above)");
}

static int child_load(const char *dir, const char *tmpl, struct config **ret) {
	char *text = test_subst(tmpl, "@D@", dir), path[PATH_MAX];
	struct config_errors e = { 0 };
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/test.conf", dir);
	f = fopen(path, "we");
	CHILD_CHECK(f, "%s", strerror(errno));
	fputs(text, f);
	fclose(f);
	free(text);
	r = config_load(path, ret, &e);
	config_errors_print(&e, stderr);
	config_errors_clear(&e);
	return r;
}

static int real_probe_on_tmpfs(void) {
	char dir[] = "/tmp/fsn-unit-XXXXXX", *out = NULL;
	struct config *c = NULL;
	struct fsn_ctx *ctx = NULL;
	struct plan *p = NULL;
	size_t len = 0;
	FILE *f;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (fanotify, mount namespace)\n");
		return FSN_TEST_SKIP_STATUS;
	}
	CHILD_CHECK(unshare(CLONE_NEWNS) == 0, "%s", strerror(errno));
	CHILD_CHECK(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0, "%s",
		    strerror(errno));
	CHILD_CHECK(mkdtemp(dir), "%s", strerror(errno));
	CHILD_CHECK(mount("tmpfs", dir, "tmpfs", 0, "mode=0755,size=8m") == 0, "%s",
		    strerror(errno));
	make_tree(dir);

	CHILD_CHECK(
	    child_load(dir,
		       "rules = (\n"
		       "  { name = \"tree\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		       "    exclude = [\"@D@/tree/cache\", \"@D@/tree/f.txt\"]; },\n"
		       "  { name = \"file\"; paths = [\"@D@/file\"]; },\n"
		       "  { name = \"dir\"; paths = [\"@D@/tree/sub\"]; },\n"
		       "  { name = \"mnt\"; paths = [\"@D@/tree\"]; mark = \"mount\";\n"
		       "    events = [\"modify\", \"create\", \"open_exec\"]; },\n"
		       "  { name = \"ino\"; paths = [\"@D@/tree\"]; mark = \"inotify\"; },\n"
		       "  { name = \"fs\"; paths = [\"@D@/file\"]; mark = \"filesystem\";\n"
		       "    events = [\"fs_error\", \"rename\", \"attrib\"]; }\n"
		       ");",
		       &c) == 0,
	    "config");
	CHILD_CHECK(plan_build(c, &p) == 0, "plan_build");
	f = open_memstream(&out, &len);
	plan_print(p, f);
	fclose(f);
	fprintf(stderr, "%s", out);
	free(out);
	/* the summary names the real filesystem */
	f = open_memstream(&out, &len);
	plan_print_summary(p, f);
	fclose(f);
	fprintf(stderr, "%s", out);
	{
		char want[PATH_MAX + 64];
		struct stat st;

		CHILD_CHECK(stat(dir, &st) == 0, "%s", strerror(errno));
		snprintf(want, sizeof(want), "tmpfs at %s (dev %u:%u), mask", dir, major(st.st_dev),
			 minor(st.st_dev));
		CHILD_CHECK(strstr(out, want), "no \"%s\" in the summary", want);
		CHILD_CHECK(
		    strstr(out, "rule 'tree': 1 path, 3 marks\n  1 ignore mark on a directory, "),
		    "summary of rule 'tree'");
	}

	/* tree: 2 ignore marks + a filesystem mark on the tmpfs; file, dir:
	 * inode marks; mnt: a mount mark without create; ino; fs. */
	CHILD_CHECK(p->n_marks == 8, "%zu marks", p->n_marks);
	CHILD_CHECK(p->marks[0].spec.ignore != 0 && p->marks[1].spec.ignore != 0, "ignore marks");
	CHILD_CHECK(p->marks[2].spec.type == FSN_MARK_FILESYSTEM, "filesystem mark");
	{
		char want[PATH_MAX * 2 + 16];

		snprintf(want, sizeof(want), "%s (fs of %s/tree)", dir, dir);
		CHILD_CHECK(strcmp(p->marks[2].target, want) == 0, "target %s", p->marks[2].target);
	}
	CHILD_CHECK(p->marks[3].spec.type == FSN_MARK_INODE, "inode mark on the file");
	CHILD_CHECK(p->marks[4].spec.type == FSN_MARK_INODE, "inode mark on the directory");
	CHILD_CHECK(p->marks[5].spec.type == FSN_MARK_MOUNT &&
			p->marks[5].spec.mask == (FAN_MODIFY | FAN_OPEN_EXEC | FAN_ONDIR),
		    "mount mark");
	CHILD_CHECK(p->marks[6].spec.type == FSN_MARK_INOTIFY, "inotify");
	CHILD_CHECK(p->marks[7].spec.type == FSN_MARK_FILESYSTEM, "filesystem mark, fs_error");
	CHILD_CHECK(p->n_problems == 1 && strstr(p->problems[0].msg, "mount marks cannot report "
								     "create"),
		    "problems");

	/* The kernel takes every mark as planned. */
	CHILD_CHECK(fsn_ctx_new(&ctx) == 0, "ctx");
	for (size_t i = 0; i < p->n_marks; i++) {
		int r = fsn_ctx_add_mark(ctx, &p->marks[i].spec, NULL);

		CHILD_CHECK(r == 0, "mark %zu (%s on %s): %s", i, p->marks[i].rule->name,
			    p->marks[i].path, strerror(-r));
	}
	fsn_ctx_free(ctx);
	plan_free(p);
	config_free(c);
	free(out);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	return 0;
}

START_TEST(test_real_probe_tmpfs) {
	run_child(real_probe_on_tmpfs);
}
END_TEST

/* Without CAP_SYS_ADMIN fanotify is not permitted: auto uses inotify. */
static int real_probe_unprivileged(void) {
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	char dir[] = "/tmp/fsn-unit-XXXXXX";
	struct config *c = NULL;
	struct plan *p = NULL;

	CHILD_CHECK(syscall(SYS_capget, &h, d) == 0, "%s", strerror(errno));
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	CHILD_CHECK(syscall(SYS_capset, &h, d) == 0, "%s", strerror(errno));
	CHILD_CHECK(mkdtemp(dir), "%s", strerror(errno));
	make_tree(dir);
	CHILD_CHECK(
	    child_load(dir,
		       "rules = ( { name = \"t\"; paths = [\"@D@/tree\"]; recursive = true;\n"
		       "  } );",
		       &c) == 0,
	    "config");
	CHILD_CHECK(plan_build(c, &p) == 0, "plan_build");
	CHILD_CHECK(p->n_marks == 1 && p->marks[0].spec.type == FSN_MARK_INOTIFY, "inotify");
	CHILD_CHECK(strstr(p->marks[0].why,
			   "fanotify cannot be used here (fanotify notification "
			   "groups (FAN_CLASS_NOTIF): not permitted (EPERM): needs "
			   "CAP_SYS_ADMIN, which fsnotifyd lacks here; inotify rules"),
		    "why: %s", p->marks[0].why);
	CHILD_CHECK(p->n_problems == 0 && p->marks[0].subtree_recursive, "recursive inotify");
	plan_free(p);
	config_free(c);
	test_rm_tree(dir);
	return 0;
}

START_TEST(test_real_probe_unprivileged) {
	run_child(real_probe_unprivileged);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* --explain                                                                */
/* ------------------------------------------------------------------------ */

/* Every line of text is at most width columns (bytes: the text is ASCII
 * but for the em dash of a why). */
static void assert_lines_fit(const char *text, size_t width) {
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l), cols = 0;

		for (size_t i = 0; i < n; i++)
			cols += ((unsigned char)l[i] & 0xc0) != 0x80; /* UTF-8: count lead bytes */
		ck_assert_msg(cols <= width, "a line of %zu columns: \"%.*s\"", cols, (int)n, l);
		if (!e)
			break;
		l = e + 1;
	}
}

/* part is in [from, to) */
static void assert_between(const char *from, const char *to, const char *part) {
	const char *p = strstr(from, part);

	ck_assert_msg(p && p + strlen(part) <= to, "\"%s\" is not in:\n%.*s", part,
		      (int)(to - from), from);
}

static char *wrapped(const char *text, size_t width) {
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	text_wrap(f, text, width);
	fclose(f);
	return out;
}

START_TEST(test_text_wrap) {
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

	a = wrapped("short line\n  indented and long enough to wrap here\n", 20);
	ck_assert_str_eq(a, "short line\n  indented and long\n      enough to wrap\n      here\n");
	/* a word longer than the line stays whole, on a line of its own */
	b = wrapped("x /a/very/long/path/that/cannot/break y\n", 10);
	ck_assert_str_eq(b, "x\n    /a/very/long/path/that/cannot/break\n    y\n");
	/* nothing lost or added but line breaks and indentation */
	c = wrapped("no newline at the end", 80);
	ck_assert_str_eq(c, "no newline at the end\n");
	free(c);
	/* runs of spaces (columns) are never a break, nor changed */
	c = wrapped("name      1.07x   1.01x   a b\n", 16);
	ck_assert_str_eq(c, "name      1.07x   1.01x   a\n    b\n");
}
END_TEST

START_TEST(test_hook_costs) {
	struct hook_costs hc;
	static const char table[] =
	    "# machine: a test box\n"
	    "fsn-bench hooks: 3 rounds x 10 ops; ratio = ops per CPU-second vs ...\n"
	    "\n"
	    "scenario            workload        median ops/s   ratio   change            95% CI  "
	    "verdict\n"
	    "none                pwrite               1649007   1.000    +0.0% [ 1.000,  1.000]  "
	    "baseline\n"
	    "ino-same-fs         pwrite               1584994   0.800   -20.0% [ 0.700,  0.900]  "
	    "significant (costlier)\n"
	    "ino-same-fs         pread                2134551   0.961    -3.9% [ 0.901,  1.025]  "
	    "within noise\n"
	    "unknown-scenario    pwrite                     1   0.500   -50.0% [ 0.400,  0.600]  "
	    "x\n";

	ck_assert_int_eq(hook_costs_parse(table, &hc), 0);
	ck_assert_str_eq(hc.source, "fsn-bench hooks (3 rounds x 10 ops) on a test box");
	ck_assert(hc.c[HS_INO_SAME_FS][HOOK_WRITE].known);
	ck_assert(!hc.c[HS_INO_SAME_FS][HOOK_WRITE].noise);
	ck_assert(hc.c[HS_INO_SAME_FS][HOOK_WRITE].ratio == 0.8);
	ck_assert(hc.c[HS_INO_SAME_FS][HOOK_READ].noise);
	ck_assert(!hc.c[HS_INO_SAME_FS][HOOK_OPEN].known);
	ck_assert(!hc.c[HS_PERM_SAME_FS][HOOK_WRITE].known);
	ck_assert_int_eq(hook_costs_parse("nothing here\n", &hc), -EINVAL);

	/* the shipped table has every figure the explanation quotes */
	ck_assert_int_eq(hook_costs_builtin(&hc), 0);
	for (int sc = 0; sc < _HS_MAX; sc++)
		for (int op = 0; op < _HOOK_OP_MAX; op++)
			ck_assert_msg(hc.c[sc][op].known, "shipped table: no figure for %d/%d", sc,
				      op);
	assert_contains(hc.source, " on Linux ");
	assert_contains(hc.source, "the table shipped with fsnotifyd");
}
END_TEST

/* One block per rule with its costs, every line within 80 columns. */
START_TEST(test_plan_print_costs) {
	struct fx fx;
	struct hook_costs hc;
	_cleanup_free_ char *out = NULL;
	size_t len = 0;
	FILE *f;

	fx_init(&fx);
	fx_plan(&fx, "rules = (\n"
		     "  { name = \"tree\"; paths = [\"@D@/tree\"]; recursive = true; },\n"
		     "  { name = \"file\"; paths = [\"@D@/file\"]; },\n"
		     "  { name = \"guard\"; paths = [\"@D@/tree\"]; events = [\"open_perm\"]; }\n"
		     ");");
	ck_assert_int_eq(hook_costs_builtin(&hc), 0);
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	plan_print_costs(fx.p, &hc, 80, f);
	fclose(f);
	assert_lines_fit(out, 80);
	/* each rule's block, then its costs, in rule order */
	{
		const char *tree = strstr(out, "rule 'tree': "),
			   *file = strstr(out, "rule 'file': ");
		const char *guard = strstr(out, "rule 'guard': ");

		ck_assert(tree && file && guard && tree < file && file < guard);
		assert_between(tree, file, "  cost: CPU per write / open / read");
		assert_between(tree, file, "    filesystem marks, ");
		assert_between(tree, file, "[fan-fs-nomatch]");
		assert_between(file, guard, "  cost: CPU per write / open / read");
		assert_between(file, guard, "    inode marks, ");
		assert_between(file, guard, "[ino-same-fs]");
		assert_between(guard, guard + strlen(guard), "    permission inode marks, ");
		assert_between(guard, guard + strlen(guard), "[perm-same-fs]");
	}
	assert_contains(out, "They come from fsn-bench hooks (20");
	assert_contains(out, "--explain --measure");
	fx_done(&fx);
}
END_TEST

static void plan_suite(Suite *s) {
	TCase *tc;

	tc = tcase_create("auto");
	tcase_add_test(tc, test_auto_file_inode);
	tcase_add_test(tc, test_auto_dir_inode);
	tcase_add_test(tc, test_auto_recursive_filesystem);
	tcase_add_test(tc, test_auto_recursive_busy_watches);
	tcase_add_test(tc, test_auto_recursive_busy_needs_fanotify);
	tcase_add_test(tc, test_who_inotify_warns);
	tcase_add_test(tc, test_auto_recursive_busy_big_tree);
	tcase_add_test(tc, test_auto_recursive_busy_max_marks);
	tcase_add_test(tc, test_auto_recursive_busy_writable);
	tcase_add_test(tc, test_auto_recursive_busy_system_account);
	tcase_add_test(tc, test_auto_no_fanotify_inotify);
	tcase_add_test(tc, test_unlimited_queue);
	tcase_add_test(tc, test_auto_fid_refused_inotify);
	tcase_add_test(tc, test_auto_fs_mark_refused);
	tcase_add_test(tc, test_auto_nothing_works);
	suite_add_tcase(s, tc);

	tc = tcase_create("marks");
	tcase_add_test(tc, test_inode_explicit);
	tcase_add_test(tc, test_mount_refuses_dirent_events);
	tcase_add_test(tc, test_filesystem_explicit);
	tcase_add_test(tc, test_inotify_explicit);
	tcase_add_test(tc, test_missing_and_create);
	tcase_add_test(tc, test_symlink_paths);
	tcase_add_test(tc, test_probe_unstable_by_fd);
	tcase_add_test(tc, test_probe_failure);
	tcase_add_test(tc, test_max_marks);
	suite_add_tcase(s, tc);

	tc = tcase_create("exclusions");
	tcase_add_test(tc, test_exclusions);
	tcase_add_test(tc, test_exclusions_userspace_only);
	tcase_add_test(tc, test_exclusions_first_of_two_paths);
	suite_add_tcase(s, tc);

	tc = tcase_create("permission");
	tcase_add_test(tc, test_perm_auto_inode);
	tcase_add_test(tc, test_perm_auto_recursive);
	tcase_add_test(tc, test_perm_explicit_marks);
	tcase_add_test(tc, test_perm_pre_content_class);
	tcase_add_test(tc, test_perm_deny_errno_unsupported);
	tcase_add_test(tc, test_perm_features_missing);
	tcase_add_test(tc, test_perm_not_proc);
	tcase_add_test(tc, test_perm_exclusions);
	suite_add_tcase(s, tc);

	tc = tcase_create("print");
	tcase_add_test(tc, test_plan_print);
	tcase_add_test(tc, test_plan_summary);
	tcase_add_test(tc, test_plan_summary_exclusions);
	tcase_add_test(tc, test_plan_summary_problems);
	tcase_add_test(tc, test_plan_summary_scale);
	tcase_add_test(tc, test_plan_print_escapes);
	tcase_add_test(tc, test_free_and_errors);
	tcase_add_test(tc, test_text_wrap);
	tcase_add_test(tc, test_hook_costs);
	tcase_add_test(tc, test_plan_print_costs);
	suite_add_tcase(s, tc);

	tc = tcase_create("real-probe");
	tcase_add_test(tc, test_real_probe_tmpfs);
	tcase_add_test(tc, test_real_probe_unprivileged);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("plan", plan_suite);
