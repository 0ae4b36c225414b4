/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan.h — from rules to marks. The planner decides, for every rule and
 * path, which kernel mark (or inotify watch) covers it, with which mask,
 * in which group, and why; it probes the kernel/filesystem for what works
 * (libfsn's fsn_probe_path()) and explains a rule that cannot work here.
 * Pure of side effects except the probe (and mkdir for `create = true`).
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "conf.h"
#include "fsn.h"

/*
 * One mark the daemon will place, in the order of the array: a rule's
 * exclusion ignore marks come before its other marks.
 *
 * An exclusion is an inode mark with spec.mask == 0 and spec.ignore != 0
 * (path is the excluded object); it needs no filtering of its own.
 * fanotify marks' spec.mask are FAN_* bits, inotify watches' IN_* bits.
 */
struct plan_mark {
	const struct rule_conf *rule; /* points into the config the plan was made from */
	char *path;                   /* the path the rule names (or the excluded path) */
	/* the object's path as resolved (resolve.h: no symlink another user
	 * controls), where it differs from path; NULL: path itself
	 * (plan_mark_canon()) */
	char *canon;
	struct fsn_mark_spec spec; /* spec.path == path; spec.userdata unused by the plan */
	char *why;                 /* why this mechanism, this mask (and the exclusions) */
	char *target;              /* the object marked, in words: "/tmp (fs of /tmp/x)" */
	/*
	 * Userspace filtering the daemon must do on this mark's events
	 * (besides the rule's exclude, pids, comms and uids):
	 *  - subtree: an event counts only if its path is subtree itself, or
	 *    below it (subtree_recursive), or a direct entry of it (not
	 *    subtree_recursive). NULL: every event of the mark counts.
	 *  - children_dirent_only (children = false): of the direct entries,
	 *    only directory-entry events (create, delete, moved_from,
	 *    moved_to, rename: the directory's own events) count, as an inode
	 *    mark without FAN_EVENT_ON_CHILD would deliver them.
	 *  - drop_ondir (ondir = false where the kernel cannot filter: inotify):
	 *    events on directories (IN_ISDIR) do not count.
	 */
	char *subtree;
	bool subtree_recursive;
	bool children_dirent_only;
	bool drop_ondir;
	size_t fs;   /* the object's filesystem: index in plan->fs (SIZE_MAX: unknown) */
	bool is_dir; /* the object is a directory */
};

/* The resolved path of a planned mark's object. */
static inline const char *plan_mark_canon(const struct plan_mark *m) {
	return m->canon ? m->canon : m->path;
}

/* A filesystem the plan's objects are on (for plan_print_summary()). */
struct plan_fs {
	dev_t dev;
	char *root; /* the root of the mount it was first seen through */
	char *type; /* "tmpfs", "ext4", ... or the magic number */
};

/* What kind of problem: a path that is missing or refused is waited for
 * (a watch on the directory where its resolution stopped, engine-load.c). */
enum plan_problem_kind {
	PLAN_PROBLEM_OTHER,
	PLAN_PROBLEM_MISSING, /* "does not exist" */
	PLAN_PROBLEM_REFUSED, /* a symlink on the path is not followed (resolve.h) */
};

/* A rule that cannot be placed, and why (e.g. "mount marks cannot report
 * create/delete/move events (the kernel refuses them: EINVAL); use mark =
 * \"filesystem\" or \"auto\""). */
struct plan_problem {
	const struct rule_conf *rule; /* NULL if not about one rule */
	char *path;                   /* NULL if the problem is not about one path */
	char *msg;
	bool warning; /* the rule works, less well than asked (e.g. auto fell back to
		       * non-recursive inotify); never fatal */
	bool fatal;   /* the rule is `required` and this is not a warning */
	enum plan_problem_kind kind;
};

/* The marks of one rule: a contiguous range of plan->marks. */
struct plan_rule_marks {
	size_t first, n;
};

struct plan {
	struct plan_mark *marks;
	size_t n_marks;
	struct plan_problem *problems;
	size_t n_problems;
	struct plan_fs *fs;
	size_t n_fs;
	/* the config's rules (c->rules, c->n_rules: the plan points into the
	 * config it was made from) */
	const struct rule_conf *rules;
	size_t n_rules;
	/* the marks of rule i of the config (its index in c->rules) are
	 * marks[by_rule[i].first] .. marks[by_rule[i].first + by_rule[i].n - 1] */
	struct plan_rule_marks *by_rule;
};

/*
 * Plan every rule of c. Never fails for a rule that cannot work: that is a
 * problem entry (fatal if the rule is required). Returns 0, or -ENOMEM.
 * Group assignment: every notification mark uses class NOTIF with
 * FAN_REPORT_DFID_NAME | FAN_REPORT_FID (so every event can be resolved
 * to a full path), group_tag 0, except rules with kernel ignore marks
 * (exclusions), which get a group_tag of their own (1 + rule index) so
 * their ignore masks cannot hide other rules' events.
 * Each distinct path is probed once per plan; missing paths of rules with
 * create = true are created (mkdir -p, mode 0755) first. Paths are
 * resolved with path_resolve() (resolve.h): a symlink another user
 * controls is not followed (a problem of kind PLAN_PROBLEM_REFUSED), and
 * the marks' subtrees are the resolved paths.
 */
int plan_build(const struct config *c, struct plan **ret);
struct plan *plan_free(struct plan *p);

/* The feature probe of a path (st: its stat()): returns 0 and fills *ret,
 * or a negative errno, like fsn_probe_path(). The planner asks once per
 * filesystem (st_dev) and kind of object (regular file or directory, or
 * other), not per path. */
typedef int (*plan_probe_fn)(const char *path, const struct stat *st, struct fsn_probe *ret,
			     void *userdata);

struct plan_opts {
	plan_probe_fn probe; /* NULL: fsn_probe_path() */
	void *userdata;
	/* when set (e.g. by another thread), planning stops after the rule
	 * it is at and plan_build_opts() returns -ECANCELED */
	const volatile bool *cancel;
	/* directories whose filesystems mark = "auto" counts as busy
	 * (NULL-terminated); NULL: /, /usr, /var, /home, /tmp, /srv (tests
	 * name their own) */
	const char *const *busy_dirs;
};

int plan_build_opts(const struct config *c, const struct plan_opts *opts, struct plan **ret);
/* plan_build() with the feature probe supplied by the caller (tests feed
 * crafted results). */
int plan_build_with_probe(const struct config *c, plan_probe_fn probe, void *userdata,
			  struct plan **ret);

/* Whether the plan has a fatal problem (a required rule cannot be placed). */
bool plan_has_fatal(const struct plan *p);

/* Human-readable plan: each mark on which object, with which mask, and
 * why; then the problems; then the totals. One line per mark: what
 * `fsnotifyd --check-config --verbose` prints. Names, paths and whys are
 * escaped as text_escape() does (escape.h). */
void plan_print(const struct plan *p, FILE *f);

/*
 * The plan in a few lines per rule, whatever its number of paths: a line
 * per rule ("rule 'r': 10 paths, 10 marks"), then its marks in groups of
 * the same filesystem, mark type, mask (ignore mask for ignore marks),
 * group (class, report flags, tag), kind of object and userspace filter:
 * a line per group with its count and the first few paths, and the why
 * of the group's first mark. Then the problems, grouped by rule, message
 * and kind ("problem: rule 'r': 500 paths: does not exist: /a, /b, /c and
 * 497 more"; one path: as plan_print() says it), then the same totals as
 * plan_print(). O(marks + problems). What `fsnotifyd --check-config`
 * prints.
 */
void plan_print_summary(const struct plan *p, FILE *f);
/* The same, calling after_rule(p, i, f, userdata) after the lines of rule
 * i (fsnotifyd --explain adds its costs there). */
typedef void (*plan_rule_fn)(const struct plan *p, size_t rule, FILE *f, void *userdata);
void plan_print_summary_with(const struct plan *p, FILE *f, plan_rule_fn after_rule,
			     void *userdata);

/* A mark's fanotify group in words, "notif/dfid_name,fid tag 0", into buf;
 * NULL for inotify. */
const char *plan_group_words(const struct fsn_mark_spec *s, char *buf, size_t len);
/* Its mask (an ignore mark's ignore mask) as event names, "create,modify". */
const char *plan_mask_words(const struct fsn_mark_spec *s, char *buf, size_t len);
