/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-match.c — the "match" suite: the engine's matcher
 * (daemon/engine-match.c) alone. No kernel, no engine, no loop: the test
 * builds rules and marks by hand (fake groups and placed marks, pointers
 * never dereferenced), feeds crafted struct fsn_events, and asserts the
 * records the matcher hands to its collaborators (struct matcher_ops, the
 * test's): scopes (subtree recursive or direct children, object by FID,
 * filesystem by fsid, group), events and ondir/children, exclusions,
 * process filters (the process table is the test's), renames (fanotify's
 * both paths, inotify's pair by cookie, a move out), overflows, the
 * daemon's own activity and files, rate limits, unresolved paths, objects
 * gone and the creates a tree scan reported.
 *
 * A fanotify event's paths are what the test's resolver says (resolving
 * handles is libfsn's, tested in the ctx suite).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-match.h"
#include "engine-private.h"
#include "fsn-uapi.h"
#include "proc.h"
#include "unit.h"

/* The daemon's pid, as the matcher is told. */
#define SELF 4242

/* Stand-ins for libfsn's objects: only compared, never dereferenced. */
static char group_a_, group_b_, placed_;
#define GROUP_A ((struct fsn_group *)(void *)&group_a_)
#define GROUP_B ((struct fsn_group *)(void *)&group_b_)
#define PLACED ((struct fsn_mark *)(void *)&placed_)

/* The processes of the test's world (ops->proc): any other pid is gone. */
static const struct {
	pid_t pid;
	const char *comm;
	uid_t uid;
	pid_t ppid;
} procs[] = {
	{ 100, "editor", 1000, 1 },
	{ 200, "backup", 0, 1 },
	{ 300, "hook", 0, SELF }, /* a command the daemon runs (exec output) */
};

/* What a watch that hears every entry made in and gone from its directory
 * asks the kernel for (beyond its rule's events). */
#define NAME_BITS (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)

#define MAX_RULES 4
#define MAX_MARKS 8
#define MAX_GOT 8

/* A record as the matcher handed it on (strings copied). */
struct got {
	enum record_kind kind;
	char rule[32];
	uint64_t mask;
	char path[PATH_MAX];
	char old[PATH_MAX];
	bool has_path, has_old;
	pid_t pid;
	char comm[64];
	bool has_comm;
	uid_t uid;
};

struct fx {
	struct matcher mt;
	struct inode_index inodes;
	struct rule_conf rc[MAX_RULES];
	struct erule rules[MAX_RULES];
	size_t n_rules;
	struct emark marks[MAX_MARKS]; /* planned, then sub-watches */
	struct emark *planned[MAX_MARKS];
	size_t n_marks, n_planned;
	/* the resolver's answer for the next fanotify event */
	const char *path, *old;
	/* what the matcher handed on */
	struct got got[MAX_GOT];
	size_t n_got;
	bool deny; /* ops->admit says no */
	unsigned lost, overflowed, moved_out, procs_read, gone_deleted, gone_moved;
	char names[256]; /* ops->overflowed's */
	const struct emark *gone;
	char dir[PATH_MAX]; /* a temporary directory, for the own files */
};

/* ------------------------------------------------------------------------ */
/* the collaborators                                                        */
/* ------------------------------------------------------------------------ */

static void t_resolve(void *userdata, struct fsn_event *ev, char *path, char *old, size_t len,
		      const char **ret_path, const char **ret_old) {
	struct fx *fx = userdata;

	*ret_path = fx->path;
	*ret_old = fx->old;
}

static bool t_admit(void *userdata, struct erule *r) {
	return !((struct fx *)userdata)->deny;
}

static void t_record(struct fx *fx, const struct record *rec) {
	struct got *g;

	ck_assert_uint_lt(fx->n_got, MAX_GOT);
	g = &fx->got[fx->n_got++];
	*g = (struct got){
		.kind = rec->kind,
		.mask = rec->mask,
		.has_path = rec->path != NULL,
		.has_old = rec->old_path != NULL,
		.pid = rec->pid,
		.has_comm = rec->comm != NULL,
		.uid = rec->uid,
	};
	snprintf(g->rule, sizeof(g->rule), "%s", rec->rule ? rec->rule : "");
	snprintf(g->path, sizeof(g->path), "%s", rec->path ? rec->path : "");
	snprintf(g->old, sizeof(g->old), "%s", rec->old_path ? rec->old_path : "");
	snprintf(g->comm, sizeof(g->comm), "%s", rec->comm ? rec->comm : "");
}

static void t_report(void *userdata, struct erule *r, const struct record *rec) {
	ck_assert_int_eq(rec->kind, RECORD_EVENT);
	ck_assert_str_eq(rec->rule, r->conf->name);
	t_record(userdata, rec);
}

static void t_emit(void *userdata, struct erule *r, const struct record *rec) {
	ck_assert_str_eq(rec->rule, r->conf->name);
	t_record(userdata, rec);
}

static void t_lost(void *userdata, struct erule *r) {
	((struct fx *)userdata)->lost++;
}

static void t_overflowed(void *userdata, const struct fsn_event *ev, const char *names) {
	struct fx *fx = userdata;

	fx->overflowed++;
	snprintf(fx->names, sizeof(fx->names), "%s", names);
}

static void t_gone(void *userdata, struct emark *m, bool deleted) {
	struct fx *fx = userdata;

	fx->gone = m;
	if (deleted)
		fx->gone_deleted++;
	else
		fx->gone_moved++;
}

static void t_moved_out(void *userdata) {
	((struct fx *)userdata)->moved_out++;
}

static void t_proc(void *userdata, struct proc_info *p, pid_t pid) {
	((struct fx *)userdata)->procs_read++;
	proc_info_init(p, pid);
	p->have_comm = p->have_status = p->have_exe = true; /* (nothing read from /proc) */
	for (size_t i = 0; i < ELEMENTSOF(procs); i++)
		if (procs[i].pid == pid) {
			p->comm_ok = p->status_ok = true;
			snprintf(p->comm, sizeof(p->comm), "%s", procs[i].comm);
			p->uid = procs[i].uid;
			p->gid = procs[i].uid;
			p->ppid = procs[i].ppid;
		}
}

static const struct matcher_ops t_ops = {
	.resolve = t_resolve,
	.admit = t_admit,
	.report = t_report,
	.emit = t_emit,
	.lost = t_lost,
	.overflowed = t_overflowed,
	.gone = t_gone,
	.moved_out = t_moved_out,
	.proc = t_proc,
};

/* ------------------------------------------------------------------------ */
/* fixtures                                                                 */
/* ------------------------------------------------------------------------ */

static void fx_init(struct fx *fx) {
	*fx = (struct fx){ 0 };
	matcher_init(&fx->mt, &t_ops, fx, NULL, &fx->inodes, SELF);
	matcher_batch(&fx->mt, 1000000);
}

static void fx_done(struct fx *fx) {
	matcher_done(&fx->mt);
	inode_index_done(&fx->inodes);
	for (size_t i = 0; i < fx->n_rules; i++)
		pathset_done(&fx->rules[i].excl);
	if (fx->dir[0])
		test_rm_tree(fx->dir);
}

/* A rule reporting events (children and ondir on, no filters). */
static struct erule *fx_rule(struct fx *fx, const char *name, uint64_t events) {
	size_t i = fx->n_rules++;

	ck_assert_uint_lt(i, MAX_RULES);
	fx->rc[i] = (struct rule_conf){
		.name = (char *)name,
		.events = events,
		.children = true,
		.ondir = true,
	};
	fx->rules[i] = (struct erule){ .conf = &fx->rc[i] };
	return &fx->rules[i];
}

/* A placed mark of rule r (planned: one the state lists; else a sub-watch
 * of parent). */
static struct emark *fx_mark(struct fx *fx, struct erule *r, enum fsn_mark_type type,
			     enum scope scope, const char *canon, struct emark *parent) {
	struct emark *m;

	ck_assert_uint_lt(fx->n_marks, MAX_MARKS);
	m = &fx->marks[fx->n_marks++];
	*m = (struct emark){
		.rule = r,
		.spec = { .type = type, .mask = r->conf->events },
		.mark = PLACED,
		.group = type == FSN_MARK_INOTIFY ? NULL : GROUP_A,
		.canon = (char *)canon,
		.scope = scope,
		.is_dir = true,
		.fsid = { 1, 1 },
		.parent = parent,
	};
	if (!parent)
		fx->planned[fx->n_planned++] = m;
	return m;
}

/* fanotify: a filesystem mark with a subtree (what a recursive rule, or
 * one on a directory's children, is planned as). */
static struct emark *fx_subtree(struct fx *fx, struct erule *r, const char *subtree,
				bool recursive) {
	struct emark *m = fx_mark(fx, r, FSN_MARK_FILESYSTEM, SCOPE_SUBTREE, subtree, NULL);

	m->subtree = (char *)subtree;
	m->subtree_recursive = recursive;
	return m;
}

/* A FID: fsid {1, 1} (unless fsid0 says otherwise) and a handle of id. */
static struct fsn_fid fid_of(int32_t fsid0, unsigned char id) {
	struct fsn_fid f = { .fsid = { fsid0, 1 }, .handle_bytes = 4, .handle_type = 1 };

	f.f_handle[0] = id;
	return f;
}

/* fanotify: an inode mark on canon, whose object has FID id. */
static struct emark *fx_object(struct fx *fx, struct erule *r, const char *canon, bool is_dir,
			       unsigned char id) {
	struct emark *m = fx_mark(fx, r, FSN_MARK_INODE, SCOPE_OBJECT, canon, NULL);

	m->is_dir = is_dir;
	m->have_handle = true;
	m->fid = fid_of(1, id);
	return m;
}

/* inotify: a watch on canon (inode dev:ino), in the inode index. */
static struct emark *fx_watch_at(struct fx *fx, struct erule *r, const char *canon, dev_t dev,
				 ino_t ino, struct emark *parent) {
	struct emark *m =
	    fx_mark(fx, r, FSN_MARK_INOTIFY, parent ? parent->scope : SCOPE_OBJECT, canon, parent);

	m->dev = dev;
	m->ino = ino;
	ck_assert_int_eq(inode_index_add(&fx->inodes, m), 0);
	return m;
}

static struct emark *fx_watch(struct fx *fx, struct erule *r, const char *canon, ino_t ino,
			      struct emark *parent) {
	return fx_watch_at(fx, r, canon, 1, ino, parent);
}

/* The marks are placed: the state commits. */
static void fx_commit(struct fx *fx) {
	matcher_index_build(&fx->mt, fx->planned, fx->n_planned);
}

/* A fanotify event of pid in group g, with a directory FID (fid_of(1, 99):
 * no mark's object) and its entry's name; the resolver says path (and old,
 * for a move with both sides). */
static struct fsn_event fan_ev(uint64_t mask, pid_t pid, struct fsn_group *g) {
	return (struct fsn_event){
		.source = FSN_SOURCE_FANOTIFY,
		.mask = mask,
		.fd = -1,
		.pid = pid,
		.has = FSN_HAS_DFID | FSN_HAS_NAME,
		.dfid = fid_of(1, 99),
		.name = "x",
		.pidfd = -1,
		.group = g,
	};
}

static void fan_send(struct fx *fx, struct fsn_event ev, const char *path, const char *old) {
	fx->path = path;
	fx->old = old;
	matcher_fanotify(&fx->mt, &ev);
}

static void fan(struct fx *fx, uint64_t mask, const char *path) {
	fan_send(fx, fan_ev(mask, 100, GROUP_A), path, NULL);
}

/* An inotify event of watch m, as engine.c hands it on. */
static void ino(struct fx *fx, struct emark *m, uint64_t mask, const char *name, uint32_t cookie) {
	struct fsn_event ev = {
		.source = FSN_SOURCE_INOTIFY,
		.mask = mask,
		.fd = -1,
		.wd = 1,
		.name = name,
		.cookie = cookie,
		.mark = PLACED,
	};
	char path[PATH_MAX];

	matcher_inotify_begin(&fx->mt, &ev);
	test_join(path, sizeof(path), m->canon, name ? name : "");
	if (!name)
		snprintf(path, sizeof(path), "%s", m->canon);
	matcher_inotify(&fx->mt, m, &ev, path);
}

/* ------------------------------------------------------------------------ */
/* assertions                                                               */
/* ------------------------------------------------------------------------ */

/* Nothing was handed on since the last check. */
static void expect_none_(struct fx *fx, int line) {
	ck_assert_msg(
	    fx->n_got == 0, "line %d: %zu record(s), the first for '%s': %s (mask 0x%llx)", line,
	    fx->n_got, fx->got[0].rule, fx->got[0].path, (unsigned long long)fx->got[0].mask);
}
#define expect_none(fx) expect_none_(fx, __LINE__)

/* Record i of those handed on is an event of rule with mask, path and old
 * (NULL: none). */
static void expect_at_(struct fx *fx, size_t i, const char *rule, uint64_t mask, const char *path,
		       const char *old, int line) {
	const struct got *g = &fx->got[i];

	ck_assert_msg(i < fx->n_got, "line %d: no record %zu (%zu handed on)", line, i, fx->n_got);
	ck_assert_msg(g->kind == RECORD_EVENT && strcmp(g->rule, rule) == 0 && g->mask == mask &&
			  g->has_path == (path != NULL) && strcmp(g->path, path ? path : "") == 0 &&
			  g->has_old == (old != NULL) && strcmp(g->old, old ? old : "") == 0,
		      "line %d: record %zu is kind %d '%s' mask 0x%llx %s (old %s), expected '%s' "
		      "mask 0x%llx %s (old %s)",
		      line, i, (int)g->kind, g->rule, (unsigned long long)g->mask, g->path,
		      g->has_old ? g->old : "none", rule, (unsigned long long)mask,
		      path ? path : "none", old ? old : "none");
}
#define expect_at(fx, i, rule, mask, path, old) expect_at_(fx, i, rule, mask, path, old, __LINE__)

/* One of the records handed on is as expect_at() says. */
static void expect_find_(struct fx *fx, const char *rule, uint64_t mask, const char *path,
			 const char *old, int line) {
	for (size_t i = 0; i < fx->n_got; i++)
		if (strcmp(fx->got[i].rule, rule) == 0) {
			expect_at_(fx, i, rule, mask, path, old, line);
			return;
		}
	ck_abort_msg("line %d: no record for '%s'", line, rule);
}
#define expect_find(fx, rule, mask, path, old) expect_find_(fx, rule, mask, path, old, __LINE__)

/* Exactly two records since the last check, one for rule a and one for
 * rule b, each as expect_at() says. */
#define expect_two(fx, a, b, mask, path)                                                           \
	do {                                                                                       \
		expect_find(fx, a, mask, path, NULL);                                              \
		expect_find(fx, b, mask, path, NULL);                                              \
		ck_assert_msg((fx)->n_got == 2, "line %d: %zu records, expected two", __LINE__,    \
			      (fx)->n_got);                                                        \
		(fx)->n_got = 0;                                                                   \
	} while (0)

/* Exactly one record since the last check, as expect_at() says. */
#define expect_one(fx, rule, mask, path, old)                                                      \
	do {                                                                                       \
		ck_assert_msg((fx)->n_got == 1, "line %d: %zu records, expected one", __LINE__,    \
			      (fx)->n_got);                                                        \
		expect_at(fx, 0, rule, mask, path, old);                                           \
		(fx)->n_got = 0;                                                                   \
	} while (0)

/* ------------------------------------------------------------------------ */
/* scopes                                                                   */
/* ------------------------------------------------------------------------ */

/* A recursive rule's subtree: the directory and everything below it, not
 * a sibling that shares its name's prefix. */
START_TEST(test_subtree_recursive) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE | FAN_MODIFY);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fan(&fx, FAN_CREATE, "/w/a/b/f");
	expect_one(&fx, "r", FAN_CREATE, "/w/a/b/f", NULL);
	fan(&fx, FAN_MODIFY, "/w/f");
	expect_one(&fx, "r", FAN_MODIFY, "/w/f", NULL);
	fan(&fx, FAN_CREATE | FAN_ONDIR, "/w");
	expect_one(&fx, "r", FAN_CREATE | FAN_ONDIR, "/w", NULL);
	fan(&fx, FAN_CREATE, "/x/f");
	expect_none(&fx);
	fan(&fx, FAN_CREATE, "/wx/f");
	expect_none(&fx);
	fan(&fx, FAN_CREATE, "/");
	expect_none(&fx);
	ck_assert_uint_eq(r->stats.events, 3);
	fx_done(&fx);
}
END_TEST

/* A rule on a directory's direct children: not deeper; `children` off,
 * a child's own events are not reported, its entry's are. */
START_TEST(test_subtree_direct_children) {
	struct fx fx;
	struct erule *r, *q;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE | FAN_MODIFY);
	fx_subtree(&fx, r, "/w", false);
	q = fx_rule(&fx, "q", FAN_CREATE | FAN_MODIFY);
	fx.rc[1].children = false;
	fx_subtree(&fx, q, "/v", false);
	fx_commit(&fx);

	fan(&fx, FAN_MODIFY, "/w/f");
	expect_one(&fx, "r", FAN_MODIFY, "/w/f", NULL);
	fan(&fx, FAN_MODIFY, "/w/a/f");
	expect_none(&fx);
	fan(&fx, FAN_CREATE, "/w/a/f");
	expect_none(&fx);
	/* q: no children */
	fan(&fx, FAN_MODIFY, "/v/f");
	expect_none(&fx);
	fan(&fx, FAN_CREATE, "/v/f");
	expect_one(&fx, "q", FAN_CREATE, "/v/f", NULL);
	fan(&fx, FAN_MODIFY | FAN_ONDIR, "/v");
	expect_one(&fx, "q", FAN_MODIFY | FAN_ONDIR, "/v", NULL);
	fx_done(&fx);
}
END_TEST

/* The subtree marks of the last path are kept for the next one that
 * starts with the same bytes (as deep as the longest subtree and one
 * more): a path that differs within them is looked up again, and a new
 * index forgets them (its marks are others). */
START_TEST(test_subtree_kept) {
	struct fx fx;
	struct erule *r, *q, *p;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE);
	fx_subtree(&fx, r, "/w/a", true);
	q = fx_rule(&fx, "q", FAN_CREATE);
	fx_subtree(&fx, q, "/w", true);
	fx_commit(&fx);

	fan(&fx, FAN_CREATE, "/w/a/x");
	expect_two(&fx, "r", "q", FAN_CREATE, "/w/a/x");
	fan(&fx, FAN_CREATE, "/w/a/y/z"); /* (the same first five bytes) */
	expect_two(&fx, "r", "q", FAN_CREATE, "/w/a/y/z");
	fan(&fx, FAN_CREATE, "/w/ab"); /* a sibling of /w/a sharing its name's start */
	expect_one(&fx, "q", FAN_CREATE, "/w/ab", NULL);
	fan(&fx, FAN_CREATE, "/w/a");
	expect_two(&fx, "r", "q", FAN_CREATE, "/w/a");
	fan(&fx, FAN_CREATE, "/w/b/c");
	expect_one(&fx, "q", FAN_CREATE, "/w/b/c", NULL);

	/* a new state: /w is another rule's now */
	fx.n_planned = 0;
	p = fx_rule(&fx, "p", FAN_CREATE);
	fx_subtree(&fx, p, "/w", true);
	fx_commit(&fx);
	fan(&fx, FAN_CREATE, "/w/b/d");
	expect_one(&fx, "p", FAN_CREATE, "/w/b/d", NULL);
	fan(&fx, FAN_CREATE, "/w/a/x");
	expect_one(&fx, "p", FAN_CREATE, "/w/a/x", NULL);
	fx_done(&fx);
}
END_TEST

/* An inode mark knows its object by FID, whatever path the event has: its
 * own events, its entries', not another object's at the same path. */
START_TEST(test_object_by_fid) {
	struct fx fx;
	struct fsn_event ev;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE | FAN_MODIFY | FAN_ATTRIB);
	fx_object(&fx, r, "/w", true, 7);
	fx_commit(&fx);

	/* an entry of the directory (its DFID and a name) */
	ev = fan_ev(FAN_CREATE, 100, GROUP_A);
	ev.dfid = fid_of(1, 7);
	ev.name = "f";
	fan_send(&fx, ev, "/w/f", NULL);
	expect_one(&fx, "r", FAN_CREATE, "/w/f", NULL);
	/* the directory itself (its FID), moved elsewhere since */
	ev = fan_ev(FAN_ATTRIB | FAN_ONDIR, 100, GROUP_A);
	ev.has = FSN_HAS_FID;
	ev.fid = fid_of(1, 7);
	fan_send(&fx, ev, "/moved", NULL);
	expect_one(&fx, "r", FAN_ATTRIB | FAN_ONDIR, "/moved", NULL);
	/* another directory now at its path */
	ev = fan_ev(FAN_CREATE, 100, GROUP_A);
	ev.dfid = fid_of(1, 8);
	ev.name = "f";
	fan_send(&fx, ev, "/w/f", NULL);
	expect_none(&fx);
	/* without a FID, by the path: its entry, not deeper */
	ev = fan_ev(FAN_MODIFY, 100, GROUP_A);
	ev.has = 0;
	fan_send(&fx, ev, "/w/g", NULL);
	expect_one(&fx, "r", FAN_MODIFY, "/w/g", NULL);
	fan_send(&fx, ev, "/w/d/g", NULL);
	expect_none(&fx);
	fx_done(&fx);
}
END_TEST

/* A filesystem mark: anything on its filesystem (by fsid), nothing on
 * another; and only the marks of the event's group. */
START_TEST(test_filesystem_and_group) {
	struct fx fx;
	struct fsn_event ev;
	struct erule *r, *q;
	struct emark *m;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_MODIFY);
	fx_mark(&fx, r, FSN_MARK_FILESYSTEM, SCOPE_FSID, "/", NULL);
	q = fx_rule(&fx, "q", FAN_MODIFY);
	m = fx_mark(&fx, q, FSN_MARK_FILESYSTEM, SCOPE_FSID, "/", NULL);
	m->group = GROUP_B;
	fx_commit(&fx);

	fan(&fx, FAN_MODIFY, "/any/where/f");
	expect_one(&fx, "r", FAN_MODIFY, "/any/where/f", NULL);
	ev = fan_ev(FAN_MODIFY, 100, GROUP_A);
	ev.dfid = fid_of(2, 99);
	fan_send(&fx, ev, "/other/fs/f", NULL);
	expect_none(&fx);
	ev = fan_ev(FAN_MODIFY, 100, GROUP_B);
	fan_send(&fx, ev, "/any/f", NULL);
	expect_one(&fx, "q", FAN_MODIFY, "/any/f", NULL);
	fx_done(&fx);
}
END_TEST

/* A rule reports an event once, by its first mark that matches; each rule
 * whose marks match reports it. */
START_TEST(test_once_per_rule) {
	struct fx fx;
	struct erule *r, *q;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE);
	fx_subtree(&fx, r, "/w", true);
	fx_subtree(&fx, r, "/w/a", true);
	q = fx_rule(&fx, "q", FAN_CREATE);
	fx_subtree(&fx, q, "/w/a", false);
	fx_commit(&fx);

	fan(&fx, FAN_CREATE, "/w/a/f");
	ck_assert_uint_eq(fx.n_got, 2);
	expect_at(&fx, 0, "r", FAN_CREATE, "/w/a/f", NULL);
	expect_at(&fx, 1, "q", FAN_CREATE, "/w/a/f", NULL);
	fx.n_got = 0;
	fan(&fx, FAN_CREATE, "/w/a/f");
	ck_assert_uint_eq(fx.n_got, 2); /* the next event: again */
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* events, exclusions, processes                                            */
/* ------------------------------------------------------------------------ */

/* Events the rule does not ask for, and directories' with ondir off. */
START_TEST(test_unasked_events) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE);
	fx.rc[0].ondir = false;
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fan(&fx, FAN_MODIFY, "/w/f");
	expect_none(&fx);
	fan(&fx, FAN_CREATE | FAN_ONDIR, "/w/d");
	expect_none(&fx);
	fan(&fx, FAN_CREATE | FAN_MODIFY, "/w/f");
	expect_one(&fx, "r", FAN_CREATE, "/w/f", NULL);
	fan(&fx, 0, "/w/f");
	expect_none(&fx);
	ck_assert_uint_eq(r->stats.filtered, 0);
	fx_done(&fx);
}
END_TEST

/* Exclusions: a path (the object and what is below it) and a glob (over
 * the whole path, '*' across '/'); a move is excluded when both its
 * sides are. */
START_TEST(test_exclusions) {
	char *excl[] = { (char *)"/w/skip", (char *)"*.tmp" };
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE | FAN_RENAME);
	fx.rc[0].exclude = excl;
	fx.rc[0].n_exclude = 2;
	for (size_t i = 0; i < 2; i++)
		ck_assert_int_eq(pathset_add_pattern_resolved(&r->excl, excl[i]), 0);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fan(&fx, FAN_CREATE, "/w/skip/f");
	expect_none(&fx);
	fan(&fx, FAN_CREATE | FAN_ONDIR, "/w/skip");
	expect_none(&fx);
	fan(&fx, FAN_CREATE, "/w/a.tmp");
	expect_none(&fx);
	fan(&fx, FAN_CREATE, "/w/d/e/x.tmp");
	expect_none(&fx);
	ck_assert_uint_eq(r->stats.filtered, 4);
	fan(&fx, FAN_CREATE, "/w/skipper/f");
	expect_one(&fx, "r", FAN_CREATE, "/w/skipper/f", NULL);
	fan(&fx, FAN_CREATE, "/w/a.tmp.keep");
	expect_one(&fx, "r", FAN_CREATE, "/w/a.tmp.keep", NULL);
	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/w/kept", "/w/skip/f");
	expect_one(&fx, "r", FAN_RENAME, "/w/kept", "/w/skip/f");
	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/w/skip/g", "/w/kept");
	expect_one(&fx, "r", FAN_RENAME, "/w/skip/g", "/w/kept");
	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/w/skip/g", "/w/f.tmp");
	expect_none(&fx);
	ck_assert_uint_eq(r->stats.filtered, 5);
	fx_done(&fx);
}
END_TEST

/* Process filters (pid, comm, uid) through the process table; a record
 * says who. A gone process passes no filter. */
START_TEST(test_process_filters) {
	char *comms[] = { (char *)"editor" };
	uid_t uids[] = { 0 };
	pid_t pids[] = { 200 };
	struct fx fx;
	struct erule *c, *u, *p, *any;

	fx_init(&fx);
	c = fx_rule(&fx, "by-comm", FAN_MODIFY);
	fx.rc[0].comms = comms;
	fx.rc[0].n_comms = 1;
	u = fx_rule(&fx, "by-uid", FAN_MODIFY);
	fx.rc[1].uids = uids;
	fx.rc[1].n_uids = 1;
	p = fx_rule(&fx, "by-pid", FAN_MODIFY);
	fx.rc[2].pids = pids;
	fx.rc[2].n_pids = 1;
	any = fx_rule(&fx, "any", FAN_MODIFY);
	fx_subtree(&fx, c, "/w", true);
	fx_subtree(&fx, u, "/w", true);
	fx_subtree(&fx, p, "/w", true);
	fx_subtree(&fx, any, "/w", true);
	fx_commit(&fx);

	fan_send(&fx, fan_ev(FAN_MODIFY, 100, GROUP_A), "/w/f", NULL);
	ck_assert_uint_eq(fx.n_got, 2);
	expect_at(&fx, 0, "by-comm", FAN_MODIFY, "/w/f", NULL);
	expect_at(&fx, 1, "any", FAN_MODIFY, "/w/f", NULL);
	ck_assert_int_eq(fx.got[0].pid, 100);
	ck_assert_str_eq(fx.got[0].comm, "editor");
	ck_assert_uint_eq(fx.got[0].uid, 1000);
	fx.n_got = 0;

	fan_send(&fx, fan_ev(FAN_MODIFY, 200, GROUP_A), "/w/f", NULL);
	ck_assert_uint_eq(fx.n_got, 3);
	expect_at(&fx, 0, "by-uid", FAN_MODIFY, "/w/f", NULL);
	expect_at(&fx, 1, "by-pid", FAN_MODIFY, "/w/f", NULL);
	expect_at(&fx, 2, "any", FAN_MODIFY, "/w/f", NULL);
	ck_assert_str_eq(fx.got[0].comm, "backup");
	fx.n_got = 0;

	/* gone: only the rule without filters, and the record cannot say who */
	fan_send(&fx, fan_ev(FAN_MODIFY, 999, GROUP_A), "/w/f", NULL);
	expect_one(&fx, "any", FAN_MODIFY, "/w/f", NULL);
	ck_assert(!fx.got[0].has_comm);
	ck_assert_uint_eq(fx.got[0].uid, (uid_t)-1);
	ck_assert_uint_eq(c->stats.filtered, 2);
	ck_assert_uint_eq(u->stats.filtered, 2);
	ck_assert_uint_eq(p->stats.filtered, 2);
	fx_done(&fx);
}
END_TEST

/* What /proc says of a pid is kept PCACHE_TTL_USEC: read once for a
 * storm, again after that. */
START_TEST(test_process_cache) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_MODIFY);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	for (int i = 0; i < 10; i++) {
		fan(&fx, FAN_MODIFY, "/w/f");
		expect_one(&fx, "r", FAN_MODIFY, "/w/f", NULL);
	}
	ck_assert_uint_eq(fx.procs_read, 1);
	matcher_batch(&fx.mt, 1000000 + PCACHE_TTL_USEC - 1);
	fan(&fx, FAN_MODIFY, "/w/f");
	ck_assert_uint_eq(fx.procs_read, 1);
	matcher_batch(&fx.mt, 1000000 + PCACHE_TTL_USEC);
	fan(&fx, FAN_MODIFY, "/w/f");
	ck_assert_uint_eq(fx.procs_read, 2);
	fx_done(&fx);
}
END_TEST

/* A rule's rate limit says no: no record. */
START_TEST(test_rate_limited) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_MODIFY);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fx.deny = true;
	fan(&fx, FAN_MODIFY, "/w/f");
	expect_none(&fx);
	ck_assert_uint_eq(r->stats.events, 0);
	fx.deny = false;
	fan(&fx, FAN_MODIFY, "/w/f");
	expect_one(&fx, "r", FAN_MODIFY, "/w/f", NULL);
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* renames                                                                  */
/* ------------------------------------------------------------------------ */

/* fanotify's FAN_RENAME has both paths: reported where either side is in
 * scope, with both. */
START_TEST(test_rename_fanotify) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_RENAME);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/w/b", "/w/a");
	expect_one(&fx, "r", FAN_RENAME, "/w/b", "/w/a");
	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/x/b", "/w/a");
	expect_one(&fx, "r", FAN_RENAME, "/x/b", "/w/a");
	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/w/b", "/x/a");
	expect_one(&fx, "r", FAN_RENAME, "/w/b", "/x/a");
	fan_send(&fx, fan_ev(FAN_RENAME, 100, GROUP_A), "/x/b", "/x/a");
	expect_none(&fx);
	fx_done(&fx);
}
END_TEST

/* inotify: IN_MOVED_FROM and IN_MOVED_TO of one cookie are one record
 * with both paths; each rule counts the side in its scope: a tree over
 * both directories both, a watch on one directory its own side. */
START_TEST(test_rename_inotify_paired) {
	struct fx fx;
	struct erule *a, *b, *t;
	struct emark *wa, *wb, *root;

	fx_init(&fx);
	a = fx_rule(&fx, "a", FAN_MOVED_FROM | FAN_MOVED_TO);
	b = fx_rule(&fx, "b", FAN_MOVED_FROM | FAN_MOVED_TO);
	t = fx_rule(&fx, "tree", FAN_MOVED_FROM | FAN_MOVED_TO);
	wa = fx_watch(&fx, a, "/w/a", 20, NULL);
	wb = fx_watch(&fx, b, "/w/b", 21, NULL);
	root = fx_watch(&fx, t, "/w", 19, NULL);
	root->scope = SCOPE_SUBTREE;
	root->subtree = (char *)"/w";
	root->subtree_recursive = true;
	fx_watch(&fx, t, "/w/a", 20, root);
	fx_watch(&fx, t, "/w/b", 21, root);
	fx_commit(&fx);

	ino(&fx, wa, IN_MOVED_FROM, "f", 5);
	expect_none(&fx); /* held */
	ino(&fx, wb, IN_MOVED_TO, "g", 5);
	ck_assert_uint_eq(fx.n_got, 3);
	expect_find(&fx, "tree", FAN_MOVED_FROM | FAN_MOVED_TO, "/w/b/g", "/w/a/f");
	expect_find(&fx, "a", FAN_MOVED_FROM, "/w/b/g", "/w/a/f");
	expect_find(&fx, "b", FAN_MOVED_TO, "/w/b/g", "/w/a/f");
	fx.n_got = 0;
	/* a move within one directory */
	ino(&fx, wa, IN_MOVED_FROM | IN_ISDIR, "d", 6);
	ino(&fx, wa, IN_MOVED_TO | IN_ISDIR, "e", 6);
	ck_assert_uint_eq(fx.n_got, 2);
	expect_find(&fx, "tree", FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, "/w/a/e", "/w/a/d");
	expect_find(&fx, "a", FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, "/w/a/e", "/w/a/d");
	ck_assert_uint_eq(fx.moved_out, 0);
	fx_done(&fx);
}
END_TEST

/* An IN_MOVED_FROM with no IN_MOVED_TO: reported alone when the next
 * event is another, or when the wait for it is over. */
START_TEST(test_rename_inotify_moved_out) {
	struct fx fx;
	struct erule *r;
	struct emark *w;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE);
	w = fx_watch(&fx, r, "/w", 20, NULL);
	fx_commit(&fx);

	ino(&fx, w, IN_MOVED_FROM, "f", 5);
	expect_none(&fx);
	matcher_move_timeout(&fx.mt);
	expect_one(&fx, "r", FAN_MOVED_FROM, "/w/f", NULL);
	ck_assert_uint_eq(fx.moved_out, 1);
	matcher_move_timeout(&fx.mt);
	expect_none(&fx);

	ino(&fx, w, IN_MOVED_FROM | IN_ISDIR, "d", 6);
	ino(&fx, w, IN_CREATE, "g", 0);
	ck_assert_uint_eq(fx.n_got, 2);
	expect_at(&fx, 0, "r", FAN_MOVED_FROM | FAN_ONDIR, "/w/d", NULL);
	expect_at(&fx, 1, "r", FAN_CREATE, "/w/g", NULL);
	fx.n_got = 0;
	/* another cookie's IN_MOVED_TO is not its other half */
	ino(&fx, w, IN_MOVED_FROM, "h", 7);
	ino(&fx, w, IN_MOVED_TO, "i", 8);
	ck_assert_uint_eq(fx.n_got, 2);
	expect_at(&fx, 0, "r", FAN_MOVED_FROM, "/w/h", NULL);
	expect_at(&fx, 1, "r", FAN_MOVED_TO, "/w/i", NULL);
	fx_done(&fx);
}
END_TEST

/* A recursive inotify tree: a sub-watch's events are its root rule's, in
 * the root's subtree. */
START_TEST(test_inotify_tree) {
	struct fx fx;
	struct erule *r;
	struct emark *root, *sub;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE | FAN_MODIFY);
	root = fx_watch(&fx, r, "/w", 20, NULL);
	root->scope = SCOPE_SUBTREE;
	root->subtree = (char *)"/w";
	root->subtree_recursive = true;
	sub = fx_watch(&fx, r, "/w/a", 21, root);
	fx_commit(&fx);

	ino(&fx, sub, IN_CREATE, "f", 0);
	expect_one(&fx, "r", FAN_CREATE, "/w/a/f", NULL);
	ino(&fx, root, IN_MODIFY, "g", 0);
	expect_one(&fx, "r", FAN_MODIFY, "/w/g", NULL);
	/* not placed (yet): nothing */
	sub->mark = NULL;
	ino(&fx, sub, IN_CREATE, "f", 0);
	expect_none(&fx);
	fx_done(&fx);
}
END_TEST

/* What a scan of a new directory reported as created is not reported
 * again when its own IN_CREATE comes; once. */
START_TEST(test_synth_create) {
	struct fx fx;
	struct erule *r;
	struct emark *root, *sub;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_CREATE);
	root = fx_watch(&fx, r, "/w", 20, NULL);
	root->scope = SCOPE_SUBTREE;
	root->subtree = (char *)"/w";
	root->subtree_recursive = true;
	sub = fx_watch(&fx, r, "/w/new", 21, root);
	fx_commit(&fx);

	matcher_synth_create(&fx.mt, root, "/w/new/f", false);
	expect_one(&fx, "r", FAN_CREATE, "/w/new/f", NULL);
	matcher_synth_create(&fx.mt, root, "/w/new/f", false);
	expect_none(&fx);
	ino(&fx, sub, IN_CREATE, "f", 0);
	expect_none(&fx);
	ino(&fx, sub, IN_CREATE, "f", 0);
	expect_one(&fx, "r", FAN_CREATE, "/w/new/f", NULL);
	fx_done(&fx);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* overflows, the daemon's own, what is handed on                           */
/* ------------------------------------------------------------------------ */

/* An overflow is a record for each rule whose marks lost events: the
 * group's (fanotify), every inotify rule's; once per rule. */
START_TEST(test_overflow) {
	struct fsn_event ev = { .source = FSN_SOURCE_FANOTIFY, .mask = FAN_Q_OVERFLOW, .fd = -1 };
	struct fx fx;
	struct erule *r1, *r2, *r3;
	struct emark *m;

	fx_init(&fx);
	r1 = fx_rule(&fx, "r1", FAN_MODIFY);
	r2 = fx_rule(&fx, "r2", FAN_MODIFY);
	r3 = fx_rule(&fx, "r3", FAN_MODIFY);
	fx_subtree(&fx, r1, "/w", true);
	fx_subtree(&fx, r1, "/v", true);
	m = fx_subtree(&fx, r2, "/w", true);
	m->group = GROUP_B;
	fx_watch(&fx, r3, "/w", 20, NULL);
	fx_commit(&fx);

	ev.group = GROUP_A;
	matcher_fanotify(&fx.mt, &ev);
	ck_assert_uint_eq(fx.n_got, 1);
	ck_assert_int_eq(fx.got[0].kind, RECORD_OVERFLOW);
	ck_assert_str_eq(fx.got[0].rule, "r1");
	ck_assert_uint_eq(fx.got[0].mask, FAN_Q_OVERFLOW);
	ck_assert(!fx.got[0].has_path);
	ck_assert_uint_eq(fx.lost, 1);
	ck_assert_uint_eq(fx.overflowed, 1);
	ck_assert_str_eq(fx.names, "'r1'");
	ck_assert_uint_eq(r1->stats.overflows, 1);
	ck_assert_uint_eq(r2->stats.overflows, 0);
	fx.n_got = 0;

	ev = (struct fsn_event){ .source = FSN_SOURCE_INOTIFY, .mask = IN_Q_OVERFLOW, .fd = -1 };
	matcher_inotify_begin(&fx.mt, &ev);
	matcher_overflow(&fx.mt, &ev);
	ck_assert_uint_eq(fx.n_got, 1);
	ck_assert_int_eq(fx.got[0].kind, RECORD_OVERFLOW);
	ck_assert_str_eq(fx.got[0].rule, "r3");
	ck_assert_str_eq(fx.names, "'r3'");
	ck_assert_uint_eq(r3->stats.overflows, 1);
	fx_done(&fx);
}
END_TEST

/* The daemon's own events (its pid), and those of the commands it runs
 * when it runs any (exec outputs: their parent is the daemon). */
START_TEST(test_own_activity) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_MODIFY);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fan_send(&fx, fan_ev(FAN_MODIFY, SELF, GROUP_A), "/w/f", NULL);
	expect_none(&fx);
	fan_send(&fx, fan_ev(FAN_MODIFY, 300, GROUP_A), "/w/f", NULL);
	expect_one(&fx, "r", FAN_MODIFY, "/w/f", NULL);
	matcher_own_children(&fx.mt, true);
	fan_send(&fx, fan_ev(FAN_MODIFY, 300, GROUP_A), "/w/f", NULL);
	expect_none(&fx);
	fan_send(&fx, fan_ev(FAN_MODIFY, 100, GROUP_A), "/w/f", NULL);
	expect_one(&fx, "r", FAN_MODIFY, "/w/f", NULL);
	ck_assert_uint_eq(r->stats.filtered, 0);
	fx_done(&fx);
}
END_TEST

/* An empty file at path. */
static void touch(const char *path) {
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	fclose(f);
}

/* The own-file cases' fixture: a fresh directory holding the daemon's
 * output out.json (its path in out) and a file `other` (made when other
 * is set), a rule r asking events, and a watch of r on the directory
 * (dev + dev_off: another filesystem) hearing placed. Not committed. */
static struct emark *own_setup(struct fx *fx, struct erule **r, uint64_t events, uint64_t placed,
			       dev_t dev_off, char *out, char *other) {
	struct emark *w;
	struct stat st;

	fx_init(fx);
	test_tmpdir(fx->dir, sizeof(fx->dir));
	test_join(out, PATH_MAX, fx->dir, "out.json");
	touch(out);
	if (other) {
		test_join(other, PATH_MAX, fx->dir, "other");
		touch(other);
	}
	ck_assert_int_eq(stat(fx->dir, &st), 0);
	*r = fx_rule(fx, "r", events);
	w = fx_watch_at(fx, *r, fx->dir, st.st_dev + dev_off, st.st_ino, NULL);
	w->placed_mask = placed;
	return w;
}

/* The files the daemon writes (inotify events have no pid): by name, and
 * by identity once renamed (a rotated log); others' files are reported.
 * _i 0: the watch hears every entry made and gone (the names the files
 * have are known from its events), 1: it does not (they are looked up). */
START_TEST(test_own_files) {
	char out[PATH_MAX], rotated[PATH_MAX], other[PATH_MAX];
	const char *paths[1] = { out };
	struct fx fx;
	struct erule *r;
	struct emark *w;

	w = own_setup(&fx, &r, FAN_MODIFY | FAN_CLOSE_WRITE | FAN_CREATE | FAN_MOVED_TO,
		      _i == 0 ? NAME_BITS : 0, 0, out, other);
	test_join(rotated, sizeof(rotated), fx.dir, "out.json.1");
	fx_commit(&fx);
	matcher_own_files(&fx.mt, NULL, 0, paths, 1);

	ino(&fx, w, IN_MODIFY, "out.json", 0);
	expect_none(&fx);
	ino(&fx, w, IN_CLOSE_WRITE, "out.json", 0);
	expect_none(&fx);
	ino(&fx, w, IN_MODIFY, "other", 0);
	expect_one(&fx, "r", FAN_MODIFY, other, NULL);
	/* rotated: the rename is reported, the daemon's writes to the file
	 * under its new name are not */
	ck_assert_int_eq(rename(out, rotated), 0);
	ino(&fx, w, IN_MOVED_TO, "out.json.1", 0);
	expect_one(&fx, "r", FAN_MOVED_TO, rotated, NULL);
	ino(&fx, w, IN_MODIFY, "out.json.1", 0);
	expect_none(&fx);
	/* reopened (SIGUSR1): a new file; the rotated one is someone else's */
	touch(out);
	matcher_own_files(&fx.mt, NULL, 0, paths, 1);
	ino(&fx, w, IN_CREATE, "out.json", 0);
	expect_none(&fx);
	ino(&fx, w, IN_MODIFY, "out.json", 0);
	expect_none(&fx);
	ino(&fx, w, IN_MODIFY, "out.json.1", 0);
	expect_one(&fx, "r", FAN_MODIFY, rotated, NULL);
	/* directories are never the daemon's files */
	ino(&fx, w, IN_CREATE | IN_ISDIR, "out.json", 0);
	expect_one(&fx, "r", FAN_CREATE | FAN_ONDIR, out, NULL);
	/* deleted while the daemon writes on: its name still says so */
	ck_assert_int_eq(unlink(out), 0);
	ino(&fx, w, IN_DELETE, "out.json", 0);
	ino(&fx, w, IN_MODIFY, "out.json", 0);
	expect_none(&fx);
	fx_done(&fx);
}
END_TEST

/* The names the daemon's files have are followed as entries are made and
 * go: a hard link, a stranger's file where one was, a file the daemon
 * writes by fd (its stdout) under the name /proc gives it. _i as for
 * test_own_files. */
START_TEST(test_own_files_names) {
	char out[PATH_MAX], link_[PATH_MAX], log[PATH_MAX];
	const char *paths[1] = { out };
	struct fx fx;
	struct erule *r;
	struct emark *w;
	struct stat st;
	int fds[1];

	w = own_setup(&fx, &r, FAN_MODIFY | FAN_CREATE | FAN_DELETE, _i == 0 ? NAME_BITS : 0, 0,
		      out, NULL);
	test_join(link_, sizeof(link_), fx.dir, "link");
	test_join(log, sizeof(log), fx.dir, "log");
	fds[0] = open(log, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fds[0], 0);
	fx_commit(&fx);
	matcher_own_files(&fx.mt, fds, 1, paths, 1);

	ino(&fx, w, IN_MODIFY, "log", 0);
	expect_none(&fx);
	/* a hard link: writes through it are the daemon's (and so is its
	 * creation, taken for the daemon's re-creation of its file) */
	ck_assert_int_eq(link(out, link_), 0);
	ino(&fx, w, IN_CREATE, "link", 0);
	expect_none(&fx);
	ino(&fx, w, IN_MODIFY, "link", 0);
	expect_none(&fx);
	/* a watch on the file itself (placed by the link's path) */
	ck_assert_int_eq(stat(link_, &st), 0);
	ino(&fx, fx_watch_at(&fx, r, link_, st.st_dev, st.st_ino, NULL), IN_MODIFY, NULL, 0);
	expect_none(&fx);
	/* ... and one on another file (at log's path when it was placed) */
	ck_assert_int_eq(stat(log, &st), 0);
	ino(&fx, fx_watch_at(&fx, r, log, st.st_dev, st.st_ino + 1, NULL), IN_MODIFY, NULL, 0);
	expect_one(&fx, "r", FAN_MODIFY, log, NULL);
	/* gone, and a stranger's file made under that name */
	ck_assert_int_eq(unlink(link_), 0);
	ino(&fx, w, IN_DELETE, "link", 0);
	expect_one(&fx, "r", FAN_DELETE, link_, NULL);
	ino(&fx, w, IN_MODIFY, "link", 0);
	expect_one(&fx, "r", FAN_MODIFY, link_, NULL);
	touch(link_);
	ino(&fx, w, IN_CREATE, "link", 0);
	expect_one(&fx, "r", FAN_CREATE, link_, NULL);
	ino(&fx, w, IN_MODIFY, "link", 0);
	expect_one(&fx, "r", FAN_MODIFY, link_, NULL);
	close(fds[0]);
	fx_done(&fx);
}
END_TEST

/* After an inotify overflow, entries may have come and gone unheard: the
 * names of the daemon's files are looked up again, until they are learned
 * anew (its outputs reopened). And a watch that does not hear them all
 * never trusts them. */
START_TEST(test_own_files_unheard) {
	struct fsn_event ov = { .source = FSN_SOURCE_INOTIFY, .mask = IN_Q_OVERFLOW, .fd = -1 };
	char out[PATH_MAX], moved[PATH_MAX], other[PATH_MAX];
	const char *paths[1] = { out };
	struct fx fx;
	struct erule *r;
	struct emark *w, *half;

	w = own_setup(&fx, &r, FAN_MODIFY, NAME_BITS, 0, out, other);
	test_join(moved, sizeof(moved), fx.dir, "moved");
	fx_commit(&fx);
	matcher_own_files(&fx.mt, NULL, 0, paths, 1);

	/* moved while the queue overflowed: its IN_MOVED_TO was lost */
	matcher_inotify_begin(&fx.mt, &ov);
	matcher_overflow(&fx.mt, &ov);
	ck_assert_uint_eq(fx.n_got, 1); /* (the overflow's record) */
	fx.n_got = 0;
	ck_assert_int_eq(rename(out, moved), 0);
	ino(&fx, w, IN_MODIFY, "moved", 0);
	expect_none(&fx);
	ino(&fx, w, IN_MODIFY, "other", 0);
	expect_one(&fx, "r", FAN_MODIFY, other, NULL);

	/* a watch hearing only some of them: the same */
	ck_assert_int_eq(rename(moved, out), 0);
	matcher_own_files(&fx.mt, NULL, 0, paths, 1);
	w->placed_mask = IN_CREATE | IN_MOVED_TO;
	ck_assert_int_eq(rename(out, moved), 0);
	ino(&fx, w, IN_MODIFY, "moved", 0);
	expect_none(&fx);
	/* ... unless another mark on its inode asks for the rest */
	half = fx_watch_at(&fx, r, fx.dir, w->dev, w->ino, NULL);
	half->placed_mask = IN_MOVED_FROM | IN_DELETE;
	ino(&fx, w, IN_MODIFY, "moved", 0);
	/* (trusted: the test withheld the move's events, which such a watch
	 * would have heard) */
	expect_one(&fx, "r", FAN_MODIFY, moved, NULL);
	fx_done(&fx);
}
END_TEST

/* Events about a file's contents cost no system call when the watch is on
 * a filesystem that holds none of the daemon's files (_i 0), or hears
 * every entry made in and gone from its directory (_i 1; the daemon's
 * file in it). Counted by the kernel: a perf counter of this thread's
 * system calls (root, for tracefs in a mount namespace of the test's
 * own). */
START_TEST(test_own_files_no_syscall) {
	char out[PATH_MAX], other[PATH_MAX];
	const char *paths[1] = { out };
	static const char *const names[] = { "other", "out.json", "other" };
	static const uint32_t masks[] = { IN_MODIFY, IN_MODIFY, IN_CLOSE_WRITE };
	struct fsn_event evs[ELEMENTSOF(names)];
	char evpaths[ELEMENTSOF(names)][PATH_MAX];
	uint64_t n, self;
	struct fx fx;
	struct erule *r;
	struct emark *w;
	int counter;

	if (!test_forked())
		return; /* would change the runner's own namespace */
	if (geteuid() != 0)
		fsn_test_skip("needs root (tracefs, for a system call counter)");
	if (unshare(CLONE_NEWNS) < 0) {
		if (test_must_run())
			ck_abort_msg("unshare(CLONE_NEWNS) as root: %s", strerror(errno));
		fsn_test_skip("cannot unshare the mount namespace: %s", strerror(errno));
	}
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	counter = test_syscall_counter(0);
	if (counter < 0)
		fsn_test_skip("no system call counter: %s", strerror(-counter));

	/* (a rule that reports none of them: no record, no assertion) */
	w = own_setup(&fx, &r, FAN_CREATE, _i == 0 ? 0 : NAME_BITS, _i == 0 ? 1 : 0, out, other);
	fx_commit(&fx);
	matcher_own_files(&fx.mt, NULL, 0, paths, 1);
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		evs[i] = (struct fsn_event){ .source = FSN_SOURCE_INOTIFY,
					     .mask = masks[i],
					     .fd = -1,
					     .wd = 1,
					     .name = names[i] };
		test_join(evpaths[i], sizeof(evpaths[i]), fx.dir, names[i]);
	}

	/* (no assertion in between: Check writes to its pipe for each) */
	n = test_syscall_count(counter);
	self = test_syscall_count(counter) - n;
	n = test_syscall_count(counter);
	for (int k = 0; k < 100; k++)
		for (size_t i = 0; i < ELEMENTSOF(names); i++) {
			matcher_inotify_begin(&fx.mt, &evs[i]);
			matcher_inotify(&fx.mt, w, &evs[i], evpaths[i]);
		}
	n = test_syscall_count(counter) - n - self;
	ck_assert_msg(n == 0, "%" PRIu64 " system calls for 300 events", n);
	expect_none(&fx);
	close(counter);
	fx_done(&fx);
}
END_TEST

/* A fanotify event whose path cannot be told is counted, not reported. */
START_TEST(test_unresolved) {
	struct fx fx;
	struct erule *r;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_MODIFY);
	fx_subtree(&fx, r, "/w", true);
	fx_commit(&fx);

	fan(&fx, FAN_MODIFY, NULL);
	expect_none(&fx);
	ck_assert_uint_eq(fx.mt.unresolved, 1);
	fx_done(&fx);
}
END_TEST

/* A planned inode mark's object deleted or moved away: handed on (to
 * re-arm), and its own event reported with the path it was marked at. */
START_TEST(test_object_gone) {
	struct fx fx;
	struct fsn_event ev;
	struct erule *r;
	struct emark *m;

	fx_init(&fx);
	r = fx_rule(&fx, "r", FAN_DELETE_SELF | FAN_MOVE_SELF);
	m = fx_object(&fx, r, "/w/f", false, 7);
	fx_commit(&fx);

	ev = fan_ev(FAN_DELETE_SELF, 100, GROUP_A);
	ev.has = FSN_HAS_FID;
	ev.fid = fid_of(1, 7);
	fan_send(&fx, ev, NULL, NULL); /* (no path left) */
	ck_assert_uint_eq(fx.gone_deleted, 1);
	ck_assert_ptr_eq(fx.gone, m);
	expect_one(&fx, "r", FAN_DELETE_SELF, "/w/f", NULL);
	ev.mask = FAN_MOVE_SELF;
	fan_send(&fx, ev, "/x/f", NULL);
	ck_assert_uint_eq(fx.gone_moved, 1);
	expect_one(&fx, "r", FAN_MOVE_SELF, "/x/f", NULL);
	/* another object's: nothing */
	ev.fid = fid_of(1, 8);
	fan_send(&fx, ev, "/w/f", NULL);
	ck_assert_uint_eq(fx.gone_moved, 1);
	expect_none(&fx);
	fx_done(&fx);
}
END_TEST

static void match_suite(Suite *s) {
	TCase *tc = tcase_create("scope");

	tcase_add_test(tc, test_subtree_recursive);
	tcase_add_test(tc, test_subtree_direct_children);
	tcase_add_test(tc, test_subtree_kept);
	tcase_add_test(tc, test_object_by_fid);
	tcase_add_test(tc, test_filesystem_and_group);
	tcase_add_test(tc, test_once_per_rule);
	suite_add_tcase(s, tc);

	tc = tcase_create("filters");
	tcase_add_test(tc, test_unasked_events);
	tcase_add_test(tc, test_exclusions);
	tcase_add_test(tc, test_process_filters);
	tcase_add_test(tc, test_process_cache);
	tcase_add_test(tc, test_rate_limited);
	suite_add_tcase(s, tc);

	tc = tcase_create("moves");
	tcase_add_test(tc, test_rename_fanotify);
	tcase_add_test(tc, test_rename_inotify_paired);
	tcase_add_test(tc, test_rename_inotify_moved_out);
	tcase_add_test(tc, test_inotify_tree);
	tcase_add_test(tc, test_synth_create);
	suite_add_tcase(s, tc);

	tc = tcase_create("handed-on");
	tcase_add_test(tc, test_overflow);
	tcase_add_test(tc, test_own_activity);
	tcase_add_loop_test(tc, test_own_files, 0, 2);
	tcase_add_loop_test(tc, test_own_files_names, 0, 2);
	tcase_add_test(tc, test_own_files_unheard);
	tcase_add_loop_test(tc, test_own_files_no_syscall, 0, 2);
	tcase_add_test(tc, test_unresolved);
	tcase_add_test(tc, test_object_gone);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("match", match_suite);
