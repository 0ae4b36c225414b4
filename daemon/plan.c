/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan.c — from rules to marks: for every rule and path, which kernel
 * mechanism (fanotify inode / mount / filesystem mark, or an inotify
 * watch) covers it, with which mask, in which group, what the daemon must
 * filter in user space, and why; exclusions as kernel ignore marks where
 * they can be; and every reason a rule cannot work here, as a problem.
 *
 * The plan only describes: the engine places the marks and filters.
 * plan_print() says it in words, a line per mark; plan_print_summary() in
 * a few lines per rule (marks grouped by what they share, problems by
 * message), for plans of thousands of paths.
 * Side effects: the feature probe (fsn_probe_path(), or the caller's
 * probe, once per filesystem and kind of object: see probe()) and mkdir
 * for rules with create = true.
 *
 * Scale: every step per path is O(1) amortised (the probe by filesystem,
 * exclusions by their ancestors, arrays that double), so 10 000 paths on a
 * few filesystems plan in milliseconds plus a few probes.
 *
 * Kernel rules this relies on (tried on Linux 6.18; the "real-probe" unit
 * test places every mark of a plan on tmpfs):
 *  - mount marks take only events that carry a path (access, modify,
 *    open, open_exec, close_*): fanotify_mark() answers EINVAL for attrib,
 *    create, delete, moved_*, rename, delete_self, move_self, fs_error;
 *  - fs_error needs a filesystem mark of a FID group;
 *  - create/delete/move/rename are events of a directory: an inode mark on
 *    a regular file never sees them;
 *  - an ignore mark with FAN_MARK_IGNORE on a non-directory refuses
 *    FAN_ONDIR, FAN_EVENT_ON_CHILD and directory-entry events (ENOTDIR).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "escape.h"
#include "fsn-uapi.h"
#include "plan.h"
#include "resolve.h"
#include "util.h"

/* Events of a directory about its entries. */
#define DIRENT_EVENTS (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)
/* What a mount mark can report (events with a path). */
#define MOUNT_EVENTS                                                                               \
	(FAN_ACCESS | FAN_MODIFY | FAN_OPEN | FAN_OPEN_EXEC | FAN_CLOSE_WRITE |                    \
	 FAN_CLOSE_NOWRITE | RULE_PERM_EVENTS)
/* What an inotify watch can report (IN_* bits with the same values). */
#define INOTIFY_EVENTS                                                                             \
	(FAN_ACCESS | FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE | FAN_OPEN |   \
	 FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE | FAN_DELETE | FAN_DELETE_SELF |               \
	 FAN_MOVE_SELF)

/* A probe result per (st_dev, regular file or directory): what a feature
 * answers depends on the filesystem, and for pre-content events on the
 * kind of object (lib/probe.c). */
struct probe_entry {
	uint64_t key[2]; /* st_dev, reg_or_dir */
	int r;
	struct fsn_probe probe;
	size_t fs; /* index in plan->fs */
	struct probe_entry *next;
};

struct planner {
	const struct config *c;
	struct plan *p;
	plan_probe_fn probe;
	void *userdata;
	const volatile bool *cancel;
	struct strmap cache;         /* probe_entry by key; entries stay put: */
	struct probe_entry *entries; /* decisions point into them */
	size_t marks_cap, problems_cap, fs_cap;
	bool oom;
	/* the filesystems of the system's busy directories (busy_dirs, else
	 * BUSY_DIRS), for mark = "auto" on recursive directories; looked up
	 * once */
	const char *const *busy_dirs;
	size_t auto_walked;  /* directories counted for auto so far (AUTO_WALK_BUDGET) */
	size_t auto_entries; /* directory entries read for it (AUTO_WALK_ENTRIES) */
	size_t auto_watched; /* directories auto gave a watch each so far */
	uid_t self;          /* the daemon's user: its symlinks are followed, as root's */
	bool busy_known;
	dev_t busy_dev[8];
	const char *busy_dir[8];
	size_t n_busy;
};

/* Events whose record has no directory entry to tell (the object's own
 * fate, an error of the filesystem): only the object's own file handle
 * (FAN_REPORT_FID) says what they are about. */
#define SELF_EVENTS (FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_FS_ERROR)

/* How one path of a rule is covered. */
struct decision {
	const char *path;
	char *canon; /* path resolved (resolve.h): what is marked and filtered to */
	bool ok;
	enum fsn_mark_type type;
	uint64_t mask;
	bool is_dir;
	struct stat st;
	const struct fsn_probe *probe;
	size_t fs; /* index in plan->fs */
	char *why;
	char *target;
	char *subtree;
	char *root; /* the root of the path's mount, once asked (decision_root()) */
	bool subtree_recursive, children_dirent_only, drop_ondir;
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

static char *xasprintf(struct planner *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static char *xasprintf(struct planner *pl, const char *fmt, ...) {
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		s = NULL;
		pl->oom = true;
	}
	va_end(ap);
	return s;
}

static char *xstrdup(struct planner *pl, const char *s) {
	char *r = s ? strdup(s) : NULL;

	if (s && !r)
		pl->oom = true;
	return r;
}

/* Append to an allocated string. */
static void append(struct planner *pl, char **s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(struct planner *pl, char **s, const char *fmt, ...) {
	_cleanup_free_ char *add = NULL;
	char *n = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&add, fmt, ap) < 0)
		add = NULL;
	va_end(ap);
	if (!add || asprintf(&n, "%s%s", *s ? *s : "", add) < 0) {
		pl->oom = true;
		return;
	}
	free(*s);
	*s = n;
}

static const char *events_str(uint64_t mask, char *buf, size_t len) {
	fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, mask, buf, len);
	return buf;
}

#define EV(m) events_str((m), (char[512]){ 0 }, 512)

static bool sup(const struct fsn_probe *p, enum fsn_feature f) {
	return p->feat[f].support == FSN_SUPPORTED;
}

/*
 * fanotify_init() flags of a notification mark's group: every event
 * resolvable to a full path; FAN_UNLIMITED_QUEUE when the config asks for
 * it (libfsn passes spec.report to fanotify_init(), and keys its groups by
 * it). The object's own handle (FAN_REPORT_FID) only where it is needed:
 * an inode mark is matched by it, and a self event has nothing else. A
 * filesystem or mount mark's other events all come with their directory
 * and name (semantics PC07), and a handle the kernel encodes and copies
 * for each of them would cost a storm's reader a fifth of its time
 * (doc/performance.md).
 */
static uint32_t report_flags(const struct planner *pl, const struct rule_conf *rule,
			     const struct decision *d) {
	uint32_t r = FAN_REPORT_DFID_NAME;

	if (d->type == FSN_MARK_INODE || (d->mask & SELF_EVENTS))
		r |= FAN_REPORT_FID;
	/* a rule that asks who: a pidfd per event, so that what /proc says is
	 * known to be the process's, never another's that reused its pid
	 * (its own group: the others' events carry no fd) */
	if ((rule->who || rule->packages) && d->probe && sup(d->probe, FSN_FEAT_REPORT_PIDFD))
		r |= FAN_REPORT_PIDFD;
	return r | (pl->c->unlimited_queue ? FAN_UNLIMITED_QUEUE : 0);
}

/* "filesystem marks (FAN_MARK_FILESYSTEM): not supported by this filesystem (EXDEV)" */
static const char *why_not(const struct fsn_probe *p, enum fsn_feature f, char *buf, size_t len) {
	const struct fsn_feature_result *r = &p->feat[f];
	const char *e = r->error ? strerrorname_np(r->error) : NULL;

	/* not permitted: say what is missing, and what works without it */
	const char *cap = r->support != FSN_NOT_PERMITTED ? ""
			  : f == FSN_FEAT_INOTIFY || f == FSN_FEAT_INOTIFY_MASK_CREATE
			      ? " (no read access to the path?)"
			  : (f >= FSN_FEAT_PERM_OPEN && f <= FSN_FEAT_DENY_ERRNO) ||
				  f == FSN_FEAT_CLASS_CONTENT || f == FSN_FEAT_CLASS_PRE_CONTENT
			      ? ": needs CAP_SYS_ADMIN, which fsnotifyd lacks here; permission "
				"events have no unprivileged alternative"
			      : ": needs CAP_SYS_ADMIN, which fsnotifyd lacks here; inotify rules "
				"(mark = \"inotify\", or \"auto\", which falls back to it) work "
				"without it";

	if (e)
		snprintf(buf, len, "%s: %s (%s)%s", fsn_feature_description(f),
			 fsn_support_name(r->support), e, cap);
	else
		snprintf(buf, len, "%s: %s%s", fsn_feature_description(f),
			 fsn_support_name(r->support), cap);
	return buf;
}

#define WHY_NOT(p, f) why_not((p), (f), (char[512]){ 0 }, 512)

/* The first of these features that does not work, or -1. */
static int first_missing(const struct fsn_probe *p, const enum fsn_feature *f, size_t n) {
	for (size_t i = 0; i < n; i++)
		if (!sup(p, f[i]))
			return (int)f[i];
	return -1;
}

static const enum fsn_feature fid_group_features[] = {
	FSN_FEAT_FANOTIFY,
	FSN_FEAT_REPORT_FID,
	FSN_FEAT_REPORT_DFID_NAME,
	FSN_FEAT_MARK_FID,
};

/* fanotify groups with DFID_NAME|FID work on this path's filesystem; else
 * the first missing feature. */
static int fanotify_missing(const struct fsn_probe *p) {
	return first_missing(p, fid_group_features, ELEMENTSOF(fid_group_features));
}

/* Grow *v (of *cap elements of size) to hold n + 1. */
static bool grow(struct planner *pl, void **v, size_t *cap, size_t n, size_t size) {
	size_t ncap;
	void *nv;

	if (n < *cap)
		return true;
	ncap = *cap ? 2 * *cap : 16;
	nv = realloc(*v, ncap * size);
	if (!nv) {
		pl->oom = true;
		return false;
	}
	*v = nv;
	*cap = ncap;
	return true;
}

static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ TMPFS_MAGIC, "tmpfs" },
	{ EXT4_SUPER_MAGIC, "ext4" },
	{ XFS_SUPER_MAGIC, "xfs" },
	{ BTRFS_SUPER_MAGIC, "btrfs" },
	{ PROC_SUPER_MAGIC, "proc" },
	{ SYSFS_MAGIC, "sysfs" },
	{ OVERLAYFS_SUPER_MAGIC, "overlay" },
	{ NFS_SUPER_MAGIC, "nfs" },
	{ FUSE_SUPER_MAGIC, "fuse" },
	{ RAMFS_MAGIC, "ramfs" },
	{ MSDOS_SUPER_MAGIC, "vfat" },
	{ SQUASHFS_MAGIC, "squashfs" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" },
};

static char *fs_type(struct planner *pl, const char *path) {
	struct statfs sfs;

	if (statfs(path, &sfs) < 0)
		return xstrdup(pl, "?");
	for (size_t i = 0; i < ELEMENTSOF(fs_names); i++)
		if ((unsigned long)sfs.f_type == fs_names[i].magic)
			return xstrdup(pl, fs_names[i].name);
	return xasprintf(pl, "0x%lx", (unsigned long)sfs.f_type);
}

static char *mount_root(struct planner *pl, const char *path);

/* The index in plan->fs of st's filesystem (path is on it), added if new. */
static size_t plan_fs_of(struct planner *pl, const char *path, const struct stat *st) {
	struct plan *p = pl->p;

	for (size_t i = 0; i < p->n_fs; i++) /* (a few: only for a new probe entry) */
		if (p->fs[i].dev == st->st_dev)
			return i;
	if (!grow(pl, (void **)&p->fs, &pl->fs_cap, p->n_fs, sizeof(*p->fs)))
		return SIZE_MAX;
	p->fs[p->n_fs] = (struct plan_fs){
		.dev = st->st_dev,
		.root = mount_root(pl, path),
		.type = fs_type(pl, path),
	};
	return p->n_fs++;
}

/* The probe of path's filesystem (st: its stat()), once per filesystem and
 * kind of object for the whole plan. */
static int probe(struct planner *pl, const char *path, const struct stat *st,
		 const struct fsn_probe **ret, size_t *ret_fs) {
	uint64_t key[2] = { (uint64_t)st->st_dev, S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) };
	struct probe_entry *e = strmap_value(&pl->cache, key, sizeof(key));
	int r;

	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			pl->oom = true;
			return -ENOMEM;
		}
		memcpy(e->key, key, sizeof(key));
		if (strmap_put(&pl->cache, e->key, sizeof(e->key), e) < 0) {
			free(e);
			pl->oom = true;
			return -ENOMEM;
		}
		e->next = pl->entries;
		pl->entries = e;
		r = pl->probe(path, st, &e->probe, pl->userdata);
		e->r = r < 0 ? r : 0;
		e->fs = plan_fs_of(pl, path, st);
	}
	*ret = &e->probe;
	if (ret_fs)
		*ret_fs = e->fs;
	return e->r;
}

static int default_probe(const char *path, const struct stat *st, struct fsn_probe *ret,
			 void *userdata) {
	return fsn_probe_path(path, ret);
}

static void add_problem_kind(struct planner *pl, const struct rule_conf *rule, const char *path,
			     bool warning, enum plan_problem_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void add_problem_kind(struct planner *pl, const struct rule_conf *rule, const char *path,
			     bool warning, enum plan_problem_kind kind, const char *fmt, ...) {
	_cleanup_free_ char *msg = NULL;
	struct plan *p = pl->p;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || !grow(pl, (void **)&p->problems, &pl->problems_cap, p->n_problems,
			  sizeof(*p->problems))) {
		pl->oom = true;
		return;
	}
	p->problems[p->n_problems++] = (struct plan_problem){
		.rule = rule,
		.path = xstrdup(pl, path),
		.msg = steal_ptr(&msg),
		.warning = warning,
		.fatal = !warning && rule && rule->required,
		.kind = kind,
	};
}

#define add_problem(pl, rule, path, warning, ...)                                                  \
	add_problem_kind((pl), (rule), (path), (warning), PLAN_PROBLEM_OTHER, __VA_ARGS__)

/* The root of the mount path is on (path canonical). */
static char *mount_root(struct planner *pl, const char *path) {
	char *r = realpath(path, NULL);

	if (!r)
		return xstrdup(pl, path);
	for (;;) {
		struct statx stx, up;
		char *slash;

		if (strcmp(r, "/") == 0)
			return r;
		if (statx(AT_FDCWD, r, AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &stx) < 0)
			return r;
		if (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) {
			if (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)
				return r;
		} else {
			/* Old kernel: a device change marks the mount root. */
			char parent[PATH_MAX];

			snprintf(parent, sizeof(parent), "%s/..", r);
			if (statx(AT_FDCWD, parent, AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &up) < 0 ||
			    up.stx_dev_major != stx.stx_dev_major ||
			    up.stx_dev_minor != stx.stx_dev_minor)
				return r;
		}
		slash = strrchr(r, '/');
		if (slash == r)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* The root of the mount d's path is on, worked out once per decision (auto
 * asks before a filesystem or mount mark asks again). */
static const char *decision_root(struct planner *pl, struct decision *d) {
	if (!d->root)
		d->root = mount_root(pl, d->canon);
	return d->root;
}

/* ------------------------------------------------------------------------ */
/* deciding one path                                                        */
/* ------------------------------------------------------------------------ */

/* Events the chosen mechanism cannot deliver here: take them out of the mask
 * and say so (a warning when auto chose the mechanism). */
static void drop_events(struct planner *pl, const struct rule_conf *rule, struct decision *d,
			uint64_t drop, const char *what) {
	drop &= d->mask;
	if (!drop)
		return;
	d->mask &= ~drop;
	add_problem(pl, rule, d->path, rule->mark == RULE_MARK_AUTO, "%s cannot report %s%s", what,
		    EV(drop), d->mask ? "" : "; nothing is left to watch");
}

/* Feature checks for fanotify event kinds on this filesystem. */
static void check_fanotify_events(struct planner *pl, const struct rule_conf *rule,
				  struct decision *d) {
	const struct fsn_probe *p = d->probe;

	if ((d->mask & FAN_OPEN_EXEC) && !sup(p, FSN_FEAT_EVENT_OPEN_EXEC))
		drop_events(pl, rule, d, FAN_OPEN_EXEC, WHY_NOT(p, FSN_FEAT_EVENT_OPEN_EXEC));
	if ((d->mask & (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO)) &&
	    !sup(p, FSN_FEAT_EVENT_DIRENT))
		drop_events(pl, rule, d, FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO,
			    WHY_NOT(p, FSN_FEAT_EVENT_DIRENT));
	if ((d->mask & FAN_RENAME) && !sup(p, FSN_FEAT_EVENT_RENAME))
		drop_events(pl, rule, d, FAN_RENAME, WHY_NOT(p, FSN_FEAT_EVENT_RENAME));
	if ((d->mask & FAN_FS_ERROR) && !sup(p, FSN_FEAT_EVENT_FS_ERROR))
		drop_events(pl, rule, d, FAN_FS_ERROR, WHY_NOT(p, FSN_FEAT_EVENT_FS_ERROR));
}

static void set_filter(struct decision *d, const struct rule_conf *rule, struct planner *pl) {
	d->subtree = xstrdup(pl, d->canon);
	d->subtree_recursive = rule->recursive && d->is_dir;
	d->children_dirent_only = !rule->children && !d->subtree_recursive;
}

static void decide_inode(struct planner *pl, const struct rule_conf *rule, struct decision *d) {
	d->type = FSN_MARK_INODE;
	d->mask = rule->events;
	d->target = xstrdup(pl, d->path);
	drop_events(pl, rule, d, FAN_FS_ERROR, "inode marks (only filesystem marks)");
	if (d->is_dir) {
		if (rule->children)
			d->mask |= FAN_EVENT_ON_CHILD;
		append(pl, &d->why,
		       "an inode mark on the directory reports its own events%s — one mark, "
		       "and the kernel checks it only for this directory%s",
		       rule->children ? " and those of its direct entries" : "",
		       rule->children ? " and its entries" : "");
	} else {
		uint64_t dirent = d->mask & DIRENT_EVENTS;

		d->mask &= ~DIRENT_EVENTS;
		append(pl, &d->why,
		       "an inode mark on the file reports exactly its events — the kernel checks "
		       "it only for this file");
		if (dirent)
			append(pl, &d->why,
			       "; %s are events of a directory and cannot happen on a file (use "
			       "delete_self, move_self here, or watch the directory)",
			       EV(dirent));
		if (!d->mask)
			add_problem(
			    pl, rule, d->path, false,
			    "none of the rule's events (%s) can happen on a file; watch its "
			    "directory, or ask for delete_self, move_self",
			    EV(rule->events));
	}
}

static void decide_filesystem(struct planner *pl, const struct rule_conf *rule,
			      struct decision *d) {
	const char *root = decision_root(pl, d);

	d->type = FSN_MARK_FILESYSTEM;
	d->mask = rule->events;
	d->target = xasprintf(pl, "%s (fs of %s)", root ? root : d->path, d->path);
	set_filter(d, rule, pl);
	append(pl, &d->why,
	       "a filesystem mark with DFID_NAME reports these events for every file of the "
	       "filesystem mounted at %s, each with its full path: no per-directory marks, no "
	       "race with new subdirectories, no watch limit; cost: every such event on that "
	       "filesystem reaches the daemon and is filtered to %s%s in user space",
	       root ? root : d->path, d->path,
	       d->subtree_recursive ? " and below" : " and its direct entries");
}

static void decide_mount(struct planner *pl, const struct rule_conf *rule, struct decision *d) {
	const char *root = decision_root(pl, d);

	d->type = FSN_MARK_MOUNT;
	d->mask = rule->events;
	d->target = xasprintf(pl, "%s (mount of %s)", root ? root : d->path, d->path);
	set_filter(d, rule, pl);
	if (d->mask & ~MOUNT_EVENTS) {
		uint64_t bad = d->mask & ~MOUNT_EVENTS;

		d->mask &= MOUNT_EVENTS;
		add_problem(pl, rule, d->path, false,
			    "mount marks cannot report %s (the kernel refuses them: EINVAL); use "
			    "mark = \"filesystem\" or \"auto\"%s",
			    EV(bad), d->mask ? "" : "; nothing is left to watch");
	}
	append(pl, &d->why,
	       "a mount mark reports these events for every file used through the mount at %s "
	       "(not through other mounts of it); cost: every such event on that mount reaches "
	       "the daemon and is filtered to %s%s in user space",
	       root ? root : d->path, d->path,
	       d->subtree_recursive ? " and below" : " and its direct entries");
}

static void decide_inotify(struct planner *pl, const struct rule_conf *rule, struct decision *d,
			   bool fallback) {
	uint64_t unsupported = rule->events & ~INOTIFY_EVENTS;

	d->type = FSN_MARK_INOTIFY;
	d->mask = rule->events;
	d->target = xstrdup(pl, d->path);
	if (rule->who || rule->packages)
		add_problem(pl, rule, d->path, true,
			    "inotify watches report no process: the rule's records cannot say %s%s",
			    rule->who ? "who (login uid, exe, parent)"
				      : "which changes dpkg made (packages)",
			    fallback ? "" : "; use a fanotify mark");
	if (rule->attributes || rule->hash)
		add_problem(pl, rule, d->path, true,
			    "inotify watches report no file handle: the rule's records cannot say "
			    "%s%s",
			    rule->attributes ? "what the file is and was (attributes)"
					     : "what the file holds (hash)",
			    fallback ? "" : "; use a fanotify mark");
	if (unsupported) {
		d->mask &= INOTIFY_EVENTS;
		add_problem(pl, rule, d->path, fallback, "inotify watches cannot report %s%s%s",
			    EV(unsupported),
			    (unsupported & FAN_RENAME) ? " (renames come as moved_from + moved_to)"
						       : "",
			    d->mask ? "" : "; nothing is left to watch");
	}
	if (d->is_dir) {
		/* inotify reports entries' events and directories always. */
		d->subtree = xstrdup(pl, d->canon);
		d->children_dirent_only = !rule->children;
		d->drop_ondir = !rule->ondir;
		append(pl, &d->why,
		       "an inotify watch on the directory reports its events and those of its "
		       "direct entries");
	} else {
		uint64_t dirent = d->mask & DIRENT_EVENTS;

		d->mask &= ~DIRENT_EVENTS;
		append(pl, &d->why, "an inotify watch on the file reports exactly its events");
		if (dirent)
			append(pl, &d->why, "; %s cannot happen on a file", EV(dirent));
		if (!d->mask && !unsupported)
			add_problem(
			    pl, rule, d->path, false,
			    "none of the rule's events (%s) can happen on a file; watch its "
			    "directory, or ask for delete_self, move_self",
			    EV(rule->events));
	}
	if (rule->recursive && d->is_dir) {
		/* One watch per directory, added as directories appear; what a
		 * new directory already holds when its watch is placed is
		 * reported as created (the engine scans it). */
		d->subtree_recursive = true;
		d->children_dirent_only = false;
		append(pl, &d->why,
		       "; recursive: one inotify watch per directory of the tree, added as "
		       "directories appear (counted against fs.inotify.max_user_watches)");
	}
}

/* A fanotify mark type needs fanotify with FID groups and the mark itself. */
static bool fanotify_usable(struct planner *pl, const struct rule_conf *rule, struct decision *d,
			    enum fsn_feature mark_feature, const char *what) {
	int missing = fanotify_missing(d->probe);

	if (missing < 0 && sup(d->probe, mark_feature))
		return true;
	if (missing < 0)
		missing = (int)mark_feature;
	add_problem(pl, rule, d->path, false, "%s do not work here: %s; use mark = \"auto\"", what,
		    WHY_NOT(d->probe, (enum fsn_feature)missing));
	return false;
}

/* mark = "auto" on a recursive directory weighs a filesystem mark (no
 * race, process known, but every event of the rule's kinds anywhere on the
 * filesystem reaches the daemon) against an inotify watch per directory
 * (the kernel asks only about the tree's directories and their entries).
 * The watches win on a busy filesystem — the one holding / or one of these
 * directories — for a tree of at most AUTO_WATCH_MAX_DIRS directories that
 * is not the whole filesystem, when inotify can report everything the
 * rule needs. */
#define AUTO_WATCH_MAX_DIRS 1000
#define AUTO_WATCH_MAX_DEPTH 64
/* The directories a plan counts for auto at most (a plan of 10 000 trees
 * must not read 10 million directories); beyond it, filesystem marks. */
#define AUTO_WALK_BUDGET 20000
#define AUTO_WALK_ENTRIES 200000
static const char *const BUSY_DIRS[] = { "/", "/usr", "/var", "/home", "/tmp", "/srv", NULL };

/* The busy directory whose filesystem dev is, or NULL. */
static const char *busy_fs(struct planner *pl, dev_t dev) {
	if (!pl->busy_known) {
		const char *const *dirs = pl->busy_dirs ? pl->busy_dirs : BUSY_DIRS;

		pl->busy_known = true;
		for (size_t i = 0; dirs[i] && pl->n_busy < ELEMENTSOF(pl->busy_dev); i++) {
			struct stat st;

			if (stat(dirs[i], &st) == 0) {
				pl->busy_dev[pl->n_busy] = st.st_dev;
				pl->busy_dir[pl->n_busy++] = dirs[i];
			}
		}
	}
	for (size_t i = 0; i < pl->n_busy; i++)
		if (pl->busy_dev[i] == dev)
			return pl->busy_dir[i];
	return NULL;
}

/* What counting a tree for auto found. */
struct tree_count {
	size_t dirs;    /* directories, the top one included (stops at max + 1) */
	size_t entries; /* directory entries read */
	size_t max, max_entries;
	dev_t dev; /* the tree's filesystem */
	uid_t owner;
	/* why the tree cannot get watches (NULL: it can); the first reason */
	const char *stop;
};

/* Whether st (a directory of the tree) can only be changed by root or the
 * daemon's user: a directory another user may write to can grow past the
 * count after it was taken, and the watches would not cover it. No other
 * account is trusted so, system accounts (uid < 1000) included: a service
 * account that was taken over could make directories faster than the
 * watches follow them, unseen. */
static bool only_ours(const struct stat *st, uid_t owner) {
	return (st->st_uid == 0 || st->st_uid == owner) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Count the directories below dfd (closed here): not following symlinks,
 * not entering other filesystems (nor triggering automounts), each one
 * writable by the daemon's user only; stops at the first reason not to
 * watch the tree with inotify (t->stop). */
static void count_dirs(int dfd, unsigned depth, struct tree_count *t) {
	DIR *dir = fdopendir(dfd);
	struct dirent *de;

	if (!dir) {
		t->stop = "a directory of it cannot be read";
		close(dfd);
		return;
	}
	while (!t->stop) {
		struct stat st;
		int fd;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno)
				t->stop = "a directory of it cannot be read";
			break;
		}
		if (++t->entries > t->max_entries) {
			t->stop = "it holds too many entries to count";
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) <
		    0) {
			if (errno != ENOENT)
				t->stop = "a directory of it cannot be read";
			continue;
		}
		if (!S_ISDIR(st.st_mode) || st.st_dev != t->dev)
			continue; /* another filesystem: not counted, not entered */
		if (++t->dirs > t->max) {
			t->stop = "too big";
			break;
		}
		if (!only_ours(&st, t->owner)) {
			t->stop = "other users can write to a directory of it, so it can outgrow "
				  "the watches";
			break;
		}
		if (depth >= AUTO_WATCH_MAX_DEPTH) {
			t->stop = "it is deeper than 64 levels";
			break;
		}
		fd = openat(dirfd(dir), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			if (errno != ENOENT)
				t->stop = "a directory of it cannot be read";
			continue;
		}
		count_dirs(fd, depth + 1, t);
	}
	closedir(dir);
}

/* Whether auto should watch the recursive directory d with inotify (see
 * above); says why in d->why either way, when it weighed the two. */
static bool auto_prefers_watches(struct planner *pl, const struct rule_conf *rule,
				 struct decision *d) {
	const char *busy = busy_fs(pl, d->st.st_dev);
	const char *root;
	struct tree_count t;
	size_t n, max;
	int fd;

	if (!busy || !sup(d->probe, FSN_FEAT_INOTIFY))
		return false;
	/* the tree is the whole filesystem: a filesystem mark costs no more */
	root = decision_root(pl, d);
	if (!root || strcmp(root, d->canon) == 0)
		return false;
	if (rule->n_pids || rule->n_comms || rule->n_uids || rule->who || rule->packages) {
		append(pl, &d->why,
		       "auto: a recursive directory on a busy filesystem (the one holding %s), "
		       "where a watch per directory would cost less, but the rule %s and only "
		       "fanotify reports the process, so ",
		       busy,
		       rule->who        ? "asks who"
		       : rule->packages ? "asks which changes dpkg made"
					: "filters by process");
		return false;
	}
	if (rule->attributes || rule->hash) {
		append(pl, &d->why,
		       "auto: a recursive directory on a busy filesystem (the one holding %s), "
		       "where a watch per directory would cost less, but the rule asks for "
		       "%s and only fanotify reports the file's handle, so ",
		       busy, rule->attributes ? "attributes" : "hashes");
		return false;
	}
	if (rule->events & ~INOTIFY_EVENTS) {
		append(pl, &d->why,
		       "auto: a recursive directory on a busy filesystem (the one holding %s), "
		       "where a watch per directory would cost less, but inotify cannot report "
		       "all of the rule's events, so ",
		       busy);
		return false;
	}
	/* the watches auto places stay within half of limits.max_marks, and
	 * the counting within AUTO_WALK_BUDGET */
	max = AUTO_WATCH_MAX_DIRS;
	if (pl->c->max_marks / 2 > pl->auto_watched &&
	    pl->c->max_marks / 2 - pl->auto_watched < max)
		max = pl->c->max_marks / 2 - pl->auto_watched;
	else if (pl->c->max_marks / 2 <= pl->auto_watched)
		max = 0;
	if (max == 0 || pl->auto_walked >= AUTO_WALK_BUDGET) {
		append(pl, &d->why,
		       "auto: a recursive directory on a busy filesystem (the one holding %s), but "
		       "the plan's other trees already have %s, so ",
		       busy,
		       max == 0 ? "half of limits.max_marks in watches"
				: "all the directories it counts for auto");
		return false;
	}
	t = (struct tree_count){ .dirs = 1, .max = max, .dev = d->st.st_dev, .owner = geteuid() };
	t.max_entries =
	    AUTO_WALK_ENTRIES > pl->auto_entries ? AUTO_WALK_ENTRIES - pl->auto_entries : 0;
	if (!only_ours(&d->st, t.owner))
		t.stop = "other users can write to it, so it can outgrow the watches";
	else if ((fd = open(d->canon,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) < 0)
		t.stop = "it cannot be read";
	else {
		struct stat st;

		if (fstat(fd, &st) < 0 || st.st_dev != d->st.st_dev || st.st_ino != d->st.st_ino) {
			t.stop = "it changed while it was counted";
			close(fd);
		} else
			count_dirs(fd, 1, &t);
	}
	pl->auto_walked += t.dirs;
	pl->auto_entries += t.entries;
	n = t.dirs;
	if (t.stop && strcmp(t.stop, "too big") == 0) {
		append(pl, &d->why,
		       "auto: a recursive directory of more than %zu directories%s, so one mark "
		       "for them all: ",
		       max,
		       max < AUTO_WATCH_MAX_DIRS ? " (what is left of half of limits.max_marks)"
						 : "");
		return false;
	}
	if (t.stop) {
		append(pl, &d->why,
		       "auto: a recursive directory on a busy filesystem (the one holding %s), but "
		       "%s, so ",
		       busy, t.stop);
		return false;
	}
	pl->auto_watched += n;
	append(pl, &d->why,
	       "auto: a recursive directory of %zu director%s (at most %d) on a busy "
	       "filesystem (the one holding %s): a watch per directory makes the kernel ask "
	       "the daemon only about the tree, where a filesystem mark would make every such "
	       "event on the whole filesystem reach it; events of inotify watches carry no "
	       "process (mark = \"filesystem\" for that), so ",
	       n, n == 1 ? "y" : "ies", AUTO_WATCH_MAX_DIRS, busy);
	return true;
}

static void decide_auto(struct planner *pl, const struct rule_conf *rule, struct decision *d) {
	const struct fsn_probe *p = d->probe;
	int missing = fanotify_missing(p);

	/* A filesystem whose FID groups cannot report directory entry events
	 * (ramfs, procfs, ... refuse them with EOPNOTSUPP) is watched with
	 * inotify when the rule asks for such events. */
	if (missing < 0 && (rule->events & DIRENT_EVENTS) && !sup(p, FSN_FEAT_EVENT_DIRENT))
		missing = (int)FSN_FEAT_EVENT_DIRENT;

	if (missing >= 0) {
		if (!sup(p, FSN_FEAT_INOTIFY)) {
			add_problem(pl, rule, d->path, false,
				    "neither fanotify (%s) nor inotify (%s) works here",
				    WHY_NOT(p, (enum fsn_feature)missing),
				    WHY_NOT(p, FSN_FEAT_INOTIFY));
			return;
		}
		append(pl, &d->why, "auto: fanotify cannot be used here (%s), so ",
		       WHY_NOT(p, (enum fsn_feature)missing));
		decide_inotify(pl, rule, d, true);
		d->ok = true;
		return;
	}

	if (!d->is_dir || !rule->recursive) {
		if (sup(p, FSN_FEAT_MARK_INODE)) {
			append(pl, &d->why, "auto: %s, so ",
			       d->is_dir ? "a directory watched one level deep" : "a single file");
			if (rule->recursive)
				append(pl, &d->why, "(recursive means nothing for a file) ");
			decide_inode(pl, rule, d);
			d->ok = true;
			return;
		}
	} else if (sup(p, FSN_FEAT_MARK_FILESYSTEM) && auto_prefers_watches(pl, rule, d)) {
		decide_inotify(pl, rule, d, true);
		d->ok = true;
		return;
	} else if (sup(p, FSN_FEAT_MARK_FILESYSTEM)) {
		if (!d->why)
			append(pl, &d->why, "auto: a recursive directory, so ");
		decide_filesystem(pl, rule, d);
		d->ok = true;
		return;
	} else if (sup(p, FSN_FEAT_MARK_MOUNT) && !(rule->events & ~MOUNT_EVENTS)) {
		append(pl, &d->why,
		       "auto: a recursive directory where filesystem marks do not work "
		       "(%s), and only events a mount mark can report, so ",
		       WHY_NOT(p, FSN_FEAT_MARK_FILESYSTEM));
		decide_mount(pl, rule, d);
		d->ok = true;
		return;
	}

	/* fanotify works, but not the mark needed: inotify. */
	if (!sup(p, FSN_FEAT_INOTIFY)) {
		add_problem(pl, rule, d->path, false, "no mechanism works here: %s; %s",
			    WHY_NOT(p, d->is_dir && rule->recursive ? FSN_FEAT_MARK_FILESYSTEM
								    : FSN_FEAT_MARK_INODE),
			    WHY_NOT(p, FSN_FEAT_INOTIFY));
		return;
	}
	append(pl, &d->why, "auto: %s, so ",
	       WHY_NOT(p, d->is_dir && rule->recursive ? FSN_FEAT_MARK_FILESYSTEM
						       : FSN_FEAT_MARK_INODE));
	decide_inotify(pl, rule, d, true);
	d->ok = true;
}

/* ------------------------------------------------------------------------ */
/* permission rules                                                         */
/* ------------------------------------------------------------------------ */

/* The group class a permission rule needs: pre-content for pre_access and
 * for deny(ERRNO) verdicts (the kernel takes FAN_DENY_ERRNO only there). */
static enum fsn_class perm_class(const struct rule_conf *rule) {
	return (rule->events & FAN_PRE_ACCESS) || rule_conf_uses_deny_errno(rule)
		   ? FSN_CLASS_PRE_CONTENT
		   : FSN_CLASS_CONTENT;
}

/* fanotify_init() flags of a permission rule's group: no FID reporting
 * (the kernel allows it only for notification groups), and no queue limit
 * where allowed: a permission event the kernel cannot queue is allowed
 * without asking (fanotify_handle_event()), and each queued one blocks its
 * process, so the queue is bounded by the processes anyway. */
static uint32_t perm_report(const struct fsn_probe *p) {
	return sup(p, FSN_FEAT_UNLIMITED_QUEUE) ? FAN_UNLIMITED_QUEUE : 0;
}

static const struct {
	uint64_t event;
	enum fsn_feature feature;
} perm_features[] = {
	{ FAN_OPEN_PERM, FSN_FEAT_PERM_OPEN },
	{ FAN_ACCESS_PERM, FSN_FEAT_PERM_ACCESS },
	{ FAN_OPEN_EXEC_PERM, FSN_FEAT_PERM_OPEN_EXEC },
	{ FAN_PRE_ACCESS, FSN_FEAT_PRE_ACCESS },
};

/* Everything a permission rule needs works here; else a problem. */
static bool perm_usable(struct planner *pl, const struct rule_conf *rule, struct decision *d) {
	const struct fsn_probe *p = d->probe;
	enum fsn_feature klass = perm_class(rule) == FSN_CLASS_PRE_CONTENT
				     ? FSN_FEAT_CLASS_PRE_CONTENT
				     : FSN_FEAT_CLASS_CONTENT;
	struct statfs sfs;

	if (!sup(p, klass)) {
		add_problem(pl, rule, d->path, false, "permission events do not work here: %s",
			    WHY_NOT(p, klass));
		return false;
	}
	for (size_t i = 0; i < ELEMENTSOF(perm_features); i++)
		if ((rule->events & perm_features[i].event) && !sup(p, perm_features[i].feature)) {
			add_problem(pl, rule, d->path, false, "%s",
				    WHY_NOT(p, perm_features[i].feature));
			return false;
		}
	if (rule_conf_uses_deny_errno(rule) && !sup(p, FSN_FEAT_DENY_ERRNO)) {
		add_problem(pl, rule, d->path, false,
			    "a deny(ERRNO) verdict cannot be answered here: %s; use \"deny\" "
			    "(EPERM)",
			    WHY_NOT(p, FSN_FEAT_DENY_ERRNO));
		return false;
	}
	/* The guard reads /proc to decide: a permission mark there could make
	 * it wait for itself. */
	if (statfs(d->canon, &sfs) == 0 && (sfs.f_type == PROC_SUPER_MAGIC)) {
		add_problem(pl, rule, d->path, false,
			    "permission rules cannot guard /proc: the daemon reads it to decide");
		return false;
	}
	return true;
}

static void decide_perm(struct planner *pl, const struct rule_conf *rule, struct decision *d) {
	const struct fsn_probe *p = d->probe;
	enum rule_mark mark = rule->mark;

	if (!perm_usable(pl, rule, d))
		return;
	if (mark == RULE_MARK_AUTO) {
		if (!d->is_dir || !rule->recursive)
			mark = RULE_MARK_INODE;
		else if (sup(p, FSN_FEAT_MARK_FILESYSTEM))
			mark = RULE_MARK_FILESYSTEM;
		else
			mark = RULE_MARK_MOUNT;
		append(pl, &d->why, "auto: %s, so ",
		       mark == RULE_MARK_INODE
			   ? (d->is_dir ? "a directory one level deep" : "a single file")
		       : mark == RULE_MARK_FILESYSTEM
			   ? "a recursive directory"
			   : "a recursive directory where filesystem marks do not work");
	}
	switch (mark) {
	case RULE_MARK_INODE:
		if (!sup(p, FSN_FEAT_MARK_INODE))
			break;
		d->type = FSN_MARK_INODE;
		d->mask = rule->events;
		d->target = xstrdup(pl, d->path);
		if (d->is_dir && rule->children)
			d->mask |= FAN_EVENT_ON_CHILD;
		append(pl, &d->why,
		       "an inode mark asks the daemon only about %s — every other file costs "
		       "nothing",
		       d->is_dir ? (rule->children ? "the directory and its direct entries"
						   : "the directory itself")
				 : "this file");
		d->ok = true;
		return;
	case RULE_MARK_FILESYSTEM:
	case RULE_MARK_MOUNT: {
		bool fs = mark == RULE_MARK_FILESYSTEM;
		_cleanup_free_ char *root = NULL;

		if (!sup(p, fs ? FSN_FEAT_MARK_FILESYSTEM : FSN_FEAT_MARK_MOUNT))
			break;
		root = mount_root(pl, d->canon);
		d->type = fs ? FSN_MARK_FILESYSTEM : FSN_MARK_MOUNT;
		d->mask = rule->events;
		d->target = xasprintf(pl, "%s (%s of %s)", root ? root : d->path,
				      fs ? "fs" : "mount", d->path);
		set_filter(d, rule, pl);
		append(pl, &d->why,
		       "a %s mark: every such access %s %s waits for the daemon, which allows "
		       "those outside %s%s at once",
		       fs ? "filesystem" : "mount",
		       fs ? "on the filesystem mounted at" : "through the mount at",
		       root ? root : d->path, d->path,
		       d->subtree_recursive ? " and below" : " and its direct entries");
		d->ok = true;
		return;
	}
	default: break;
	}
	add_problem(pl, rule, d->path, false, "%s",
		    WHY_NOT(p, mark == RULE_MARK_INODE   ? FSN_FEAT_MARK_INODE
			       : mark == RULE_MARK_MOUNT ? FSN_FEAT_MARK_MOUNT
							 : FSN_FEAT_MARK_FILESYSTEM));
}

/* Resolve d's path into res (resolve.h: symlinks followed only where no
 * other user controls them; missing directories made for create = true);
 * a problem says why it cannot be. */
static bool decide_resolve(struct planner *pl, const struct rule_conf *rule, struct decision *d,
			   struct resolved *res_ret) {
	struct resolved res;
	char why[PATH_MAX * 4 + 256];
	int r = path_resolve(d->path, pl->self, rule->create ? RESOLVE_MKDIR : 0, &res);

	if (r == 0) {
		d->st = res.st;
		d->canon = strdup(res.path);
		if (!d->canon) {
			pl->oom = true;
			r = -ENOMEM;
		}
	} else if (res.stop == RESOLVE_MISSING)
		add_problem_kind(pl, rule, d->path, false, PLAN_PROBLEM_MISSING, "does not exist");
	else if (res.stop == RESOLVE_REFUSED)
		add_problem_kind(pl, rule, d->path, false, PLAN_PROBLEM_REFUSED, "%s",
				 resolved_why(&res, why, sizeof(why)));
	else if (r == -ENOMEM)
		pl->oom = true;
	else
		add_problem(pl, rule, d->path, false, "cannot %s it: %s",
			    rule->create ? "create" : "watch", strerror(-r));
	*res_ret = res;
	return r == 0;
}

/* The probe of a resolved object's filesystem (probe()): by its path where
 * only root can remove or replace it, else through the fd the walk opened
 * (a user who removes the object while it is probed must not make the
 * probe fail and its result be remembered for the whole filesystem). */
static int probe_resolved(struct planner *pl, const struct resolved *res,
			  const struct fsn_probe **ret, size_t *ret_fs) {
	char fd_path[64];

	return probe(pl,
		     resolved_stable(res, pl->self)
			 ? res->path
			 : resolved_fd_path(res, fd_path, sizeof(fd_path)),
		     &res->st, ret, ret_fs);
}

static void decide(struct planner *pl, const struct rule_conf *rule, struct decision *d) {
	_cleanup_(resolved_done) struct resolved res = RESOLVED_NULL;
	int r;

	if (!decide_resolve(pl, rule, d, &res))
		return;
	d->is_dir = S_ISDIR(d->st.st_mode);
	r = probe_resolved(pl, &res, &d->probe, &d->fs);
	if (r < 0) {
		if (!pl->oom)
			add_problem(pl, rule, d->path, false, "cannot probe the kernel here: %s",
				    strerror(-r));
		return;
	}

	if (rule->perm) {
		decide_perm(pl, rule, d);
		/* the kernel refuses pre-content events for directories
		 * (FAN_PRE_ACCESS with FAN_ONDIR: EINVAL) */
		if (d->ok && rule->ondir && (d->is_dir || d->type != FSN_MARK_INODE)) {
			if (rule->events & FAN_PRE_ACCESS)
				append(pl, &d->why,
				       "; no directories: the kernel asks pre_access only for "
				       "files, and a mask with it cannot have FAN_ONDIR");
			else
				d->mask |= FAN_ONDIR;
		}
		return;
	}
	switch (rule->mark) {
	case RULE_MARK_AUTO: decide_auto(pl, rule, d); break;
	case RULE_MARK_INODE:
		if (fanotify_usable(pl, rule, d, FSN_FEAT_MARK_INODE, "inode marks")) {
			decide_inode(pl, rule, d);
			d->ok = true;
		}
		break;
	case RULE_MARK_MOUNT:
		if (fanotify_usable(pl, rule, d, FSN_FEAT_MARK_MOUNT, "mount marks")) {
			decide_mount(pl, rule, d);
			d->ok = true;
		}
		break;
	case RULE_MARK_FILESYSTEM:
		if (fanotify_usable(pl, rule, d, FSN_FEAT_MARK_FILESYSTEM, "filesystem marks")) {
			decide_filesystem(pl, rule, d);
			d->ok = true;
		}
		break;
	case RULE_MARK_INOTIFY:
		if (!sup(d->probe, FSN_FEAT_INOTIFY)) {
			add_problem(pl, rule, d->path, false, "inotify does not work here: %s",
				    WHY_NOT(d->probe, FSN_FEAT_INOTIFY));
			break;
		}
		decide_inotify(pl, rule, d, false);
		d->ok = true;
		break;
	}
	if (!d->ok)
		return;
	if (d->type != FSN_MARK_INOTIFY) {
		check_fanotify_events(pl, rule, d);
		if (rule->ondir && (d->is_dir || d->type != FSN_MARK_INODE))
			d->mask |= FAN_ONDIR;
	}
	/* A filesystem mark also hears every directory move (the rule does not
	 * report those it did not ask for): the daemon then caches directory
	 * paths by file handle instead of resolving each event's. */
	if (d->type == FSN_MARK_FILESYSTEM && sup(d->probe, FSN_FEAT_EVENT_DIRENT) &&
	    (d->mask & ~(uint64_t)(FAN_ONDIR | FAN_EVENT_ON_CHILD))) {
		d->mask |= FAN_MOVED_FROM | FAN_ONDIR;
		append(pl, &d->why,
		       "; with moved_from on directories, so the daemon learns every directory "
		       "move and can cache directory paths");
	}
	if (!(d->mask & ~(uint64_t)(FAN_ONDIR | FAN_EVENT_ON_CHILD)))
		d->ok = false; /* nothing left; a problem said why */
}

/* ------------------------------------------------------------------------ */
/* exclusions                                                               */
/* ------------------------------------------------------------------------ */

struct exclusion {
	const char *path;
	struct fsn_mark_spec spec;
	size_t fs;
	bool is_dir;
};

/* The first of the rule's paths (by index) that e is below (recursive) or a
 * direct entry of: looked up by e's ancestors in paths (path -> index + 1),
 * O(depth) instead of a scan of every path. */
static struct decision *exclusion_owner(const struct rule_conf *rule, struct decision *ds,
					const struct strmap *paths, const char *e) {
	char buf[PATH_MAX];
	size_t best = SIZE_MAX, len = strlen(e);

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, e, len + 1);
	for (;;) {
		char *slash = strrchr(buf, '/');
		uintptr_t j;

		if (!slash || buf[1] == '\0')
			break; /* (e was "/": nothing is above it) */
		if (slash == buf)
			slash[1] = '\0'; /* "/" */
		else
			*slash = '\0';
		j = (uintptr_t)strmap_value_str(paths, buf);
		if (j && j - 1 < best)
			best = j - 1;
		if (!rule->recursive || strcmp(buf, "/") == 0)
			break;
	}
	return best == SIZE_MAX ? NULL : &ds[best];
}

/* Resolve an excluded path as a rule path into res (its ignore mark is
 * placed on what that resolves to): NULL, or why it cannot be an ignore
 * mark. */
static const char *resolve_exclusion(struct planner *pl, const char *e, struct resolved *res) {
	int r = path_resolve(e, pl->self, 0, res);

	return r == 0                         ? NULL
	       : res->stop == RESOLVE_REFUSED ? "a symlink on its path is not followed"
					      : "it does not exist now";
}

/* Which exclusions become kernel ignore marks; notes the others in the why
 * of the marks they belong to. Returns the number of ignore marks in *ex. */
static size_t plan_exclusions(struct planner *pl, const struct rule_conf *rule, struct decision *ds,
			      struct exclusion *ex) {
	struct strmap paths = { 0 };
	size_t n = 0;

	for (size_t j = rule->n_exclude ? rule->n_paths : 0; j-- > 0;)
		if (strmap_put_str(&paths, rule->paths[j], (void *)(uintptr_t)(j + 1)) < 0)
			pl->oom = true;

	for (size_t i = 0; i < rule->n_exclude; i++) {
		const char *e = rule->exclude[i];
		struct decision *d = NULL;
		const struct fsn_probe *p = NULL;
		const char *how = NULL;
		_cleanup_(resolved_done) struct resolved res = RESOLVED_NULL;
		char how_buf[256];
		struct stat st;
		uint64_t ignore;
		size_t fs = SIZE_MAX;

		if (strpbrk(e, "*?[")) {
			for (size_t j = 0; j < rule->n_paths; j++)
				if (ds[j].ok)
					append(pl, &ds[j].why,
					       "; exclude '%s': userspace filter (a glob)", e);
			continue;
		}
		d = exclusion_owner(rule, ds, &paths, e);
		if (!d) {
			add_problem(pl, rule, e, true,
				    "exclude: not %s any of the rule's paths; it has no effect",
				    rule->recursive ? "below" : "a direct entry of");
			continue;
		}
		if (!d->ok)
			continue;
		if (d->type == FSN_MARK_INOTIFY)
			how = "inotify has no ignore marks";
		else
			how = resolve_exclusion(pl, e, &res);
		st = res.st;
		if (!how && st.st_dev == d->st.st_dev) {
			p = d->probe;
			fs = d->fs;
		} else if (!how && probe_resolved(pl, &res, &p, &fs) < 0)
			how = "cannot probe it";
		if (!how && !sup(p, FSN_FEAT_MARK_IGNORE))
			how = why_not(p, FSN_FEAT_MARK_IGNORE, how_buf, sizeof(how_buf));
		if (rule->perm && !how && d->type == FSN_MARK_INODE)
			how = "the rule marks single objects";
		ignore = rule->events & ~(uint64_t)FAN_FS_ERROR;
		if (!how) {
			if (S_ISDIR(st.st_mode))
				ignore |= FAN_EVENT_ON_CHILD | FAN_ONDIR;
			else
				ignore &= ~(uint64_t)DIRENT_EVENTS;
			if (!ignore)
				how = "the rule's events of a file come from its directory";
		}
		if (how) {
			append(pl, &d->why, "; exclude '%s': userspace filter (%s)", e, how);
			continue;
		}
		append(pl, &d->why,
		       "; exclude '%s': kernel ignore mark (events of it%s never reach the daemon) "
		       "and a userspace filter for everything below it",
		       e, S_ISDIR(st.st_mode) ? " and its direct entries" : "");
		ex[n++] = (struct exclusion){
			.path = e,
			.spec = {
				.type = FSN_MARK_INODE,
				.klass = rule->perm ? perm_class(rule) : FSN_CLASS_NOTIF,
				.report = rule->perm ? perm_report(d->probe)
						     : report_flags(pl, rule, d),
				.ignore = ignore,
				.dirfd = AT_FDCWD,
			},
			.fs = fs,
			.is_dir = S_ISDIR(st.st_mode),
		};
	}
	strmap_done(&paths);
	return n;
}

/* ------------------------------------------------------------------------ */
/* building the plan                                                        */
/* ------------------------------------------------------------------------ */

static bool room(struct planner *pl, const struct rule_conf *rule, const char *path) {
	if (pl->p->n_marks < pl->c->max_marks)
		return true;
	add_problem(pl, rule, path, false,
		    "limits.max_marks (%u) reached: not placed; raise limits.max_marks",
		    pl->c->max_marks);
	return false;
}

static struct plan_mark *new_mark(struct planner *pl) {
	struct plan *p = pl->p;
	struct plan_mark *v;

	if (!grow(pl, (void **)&p->marks, &pl->marks_cap, p->n_marks, sizeof(*p->marks)))
		return NULL;
	v = &p->marks[p->n_marks++];
	*v = (struct plan_mark){ .fs = SIZE_MAX };
	return v;
}

static void plan_rule(struct planner *pl, size_t index) {
	const struct rule_conf *rule = &pl->c->rules[index];
	struct decision *ds = calloc(rule->n_paths + 1, sizeof(*ds));
	struct exclusion *ex = calloc(rule->n_exclude + 1, sizeof(*ex));
	uint32_t tag;
	size_t n_ex;

	pl->p->by_rule[index].first = pl->p->n_marks;
	if (!ds || !ex) {
		pl->oom = true;
		goto out;
	}
	for (size_t j = 0; j < rule->n_paths; j++) {
		ds[j].path = rule->paths[j];
		decide(pl, rule, &ds[j]);
	}
	n_ex = plan_exclusions(pl, rule, ds, ex);
	/* permission rules: a group each (the guard gives each rule a context) */
	tag = n_ex > 0 || rule->perm ? (uint32_t)(1 + index) : 0;

	for (size_t k = 0; k < n_ex; k++) {
		struct plan_mark *m;

		if (!room(pl, rule, ex[k].path) || !(m = new_mark(pl)))
			continue;
		m->rule = rule;
		m->path = xstrdup(pl, ex[k].path);
		m->spec = ex[k].spec;
		m->spec.group_tag = tag;
		m->spec.path = m->path;
		m->target = xstrdup(pl, ex[k].path);
		m->fs = ex[k].fs;
		m->is_dir = ex[k].is_dir;
		m->why = xasprintf(pl,
				   "exclusion: an ignore mark in the rule's own group (tag %u) "
				   "so it hides nothing from other rules",
				   tag);
	}
	for (size_t j = 0; j < rule->n_paths; j++) {
		struct decision *d = &ds[j];
		struct plan_mark *m;

		if (!d->ok || !room(pl, rule, d->path) || !(m = new_mark(pl)))
			continue;
		m->rule = rule;
		m->path = xstrdup(pl, d->path);
		if (strcmp(d->canon, d->path) != 0)
			m->canon = xstrdup(pl, d->canon);
		m->spec = (struct fsn_mark_spec){
			.type = d->type,
			.klass = rule->perm ? perm_class(rule) : FSN_CLASS_NOTIF,
			.report = d->type == FSN_MARK_INOTIFY ? 0
				  : rule->perm                ? perm_report(d->probe)
							      : report_flags(pl, rule, d),
			.group_tag = d->type == FSN_MARK_INOTIFY ? 0 : tag,
			.mask = d->mask,
			.dirfd = AT_FDCWD,
			.path = m->path,
		};
		m->why = d->why;
		d->why = NULL;
		m->target = d->target;
		d->target = NULL;
		m->subtree = d->subtree;
		d->subtree = NULL;
		m->subtree_recursive = d->subtree_recursive;
		m->children_dirent_only = d->children_dirent_only;
		m->drop_ondir = d->drop_ondir;
		m->fs = d->fs;
		m->is_dir = d->is_dir;
	}
out:
	pl->p->by_rule[index].n = pl->p->n_marks - pl->p->by_rule[index].first;
	for (size_t j = 0; ds && j < rule->n_paths; j++) {
		free(ds[j].why);
		free(ds[j].target);
		free(ds[j].subtree);
		free(ds[j].root);
		free(ds[j].canon);
	}
	free(ds);
	free(ex);
}

int plan_build_opts(const struct config *c, const struct plan_opts *opts, struct plan **ret) {
	struct planner pl = { .c = c,
			      .probe = opts && opts->probe ? opts->probe : default_probe,
			      .userdata = opts ? opts->userdata : NULL,
			      .cancel = opts ? opts->cancel : NULL,
			      .busy_dirs = opts ? opts->busy_dirs : NULL,
			      .self = geteuid() };
	bool cancelled = false;

	if (!c || !ret)
		return -EINVAL;
	pl.p = calloc(1, sizeof(*pl.p));
	if (!pl.p || !(pl.p->by_rule = calloc(c->n_rules + 1, sizeof(*pl.p->by_rule)))) {
		free(pl.p);
		return -ENOMEM;
	}
	pl.p->rules = c->rules;
	pl.p->n_rules = c->n_rules;
	for (size_t i = 0; i < c->n_rules && !cancelled; i++) {
		plan_rule(&pl, i);
		cancelled = pl.cancel && *pl.cancel;
	}
	for (struct probe_entry *e = pl.entries, *n; e; e = n) {
		n = e->next;
		free(e);
	}
	strmap_done(&pl.cache);
	if (pl.oom || cancelled) {
		plan_free(pl.p);
		return cancelled ? -ECANCELED : -ENOMEM;
	}
	*ret = pl.p;
	return 0;
}

int plan_build_with_probe(const struct config *c, plan_probe_fn probe_fn, void *userdata,
			  struct plan **ret) {
	struct plan_opts o = { .probe = probe_fn, .userdata = userdata };

	return plan_build_opts(c, &o, ret);
}

int plan_build(const struct config *c, struct plan **ret) {
	return plan_build_opts(c, NULL, ret);
}

struct plan *plan_free(struct plan *p) {
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n_marks; i++) {
		free(p->marks[i].path);
		free(p->marks[i].canon);
		free(p->marks[i].why);
		free(p->marks[i].target);
		free(p->marks[i].subtree);
	}
	free(p->marks);
	for (size_t i = 0; i < p->n_problems; i++) {
		free(p->problems[i].path);
		free(p->problems[i].msg);
	}
	free(p->problems);
	for (size_t i = 0; i < p->n_fs; i++) {
		free(p->fs[i].root);
		free(p->fs[i].type);
	}
	free(p->fs);
	free(p->by_rule);
	free(p);
	return NULL;
}

bool plan_has_fatal(const struct plan *p) {
	for (size_t i = 0; p && i < p->n_problems; i++)
		if (p->problems[i].fatal)
			return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* printing                                                                 */
/* ------------------------------------------------------------------------ */

static const char *const mark_type_words[] = {
	[FSN_MARK_INODE] = "inode mark",
	[FSN_MARK_MOUNT] = "mount mark",
	[FSN_MARK_FILESYSTEM] = "filesystem mark",
	[FSN_MARK_INOTIFY] = "inotify watch",
};

/* "dfid_name,fid" */
static const char *report_words(uint32_t report, char *buf, size_t len) {
	size_t pos = 0;

	buf[0] = '\0';
	if ((report & FAN_REPORT_DFID_NAME) == FAN_REPORT_DFID_NAME) {
		pos += snprintf(buf + pos, len - pos, "dfid_name");
		report &= ~(uint32_t)FAN_REPORT_DFID_NAME;
	}
	if (report & FAN_REPORT_FID) {
		pos += snprintf(buf + pos, len - pos, "%sfid", pos ? "," : "");
		report &= ~(uint32_t)FAN_REPORT_FID;
	}
	if (report && pos < len) {
		if (pos)
			buf[pos++] = ',';
		fsn_mask_format(FSN_MASK_FANOTIFY_INIT, report, buf + pos, len - pos);
	}
	return buf;
}

/* s as plan text: text_escape() (a hostile filename's control and
 * disguising bytes as \xNN), whole; cut with "..." only without memory. */
static void put_text(FILE *f, const char *s) {
	_cleanup_free_ char *big = NULL;
	char buf[1024];
	size_t n, need = 0, pos = 0;

	if (!s) {
		fputs("(null)", f);
		return;
	}
	n = strlen(s);
	text_escape(NULL, 0, &need, s, n);
	if (need < sizeof(buf))
		text_escape(buf, sizeof(buf), &pos, s, n);
	else if ((big = malloc(need + 1)))
		text_escape(big, need + 1, &pos, s, n);
	else
		text_escaped(buf, sizeof(buf), s);
	fputs(big ? big : buf, f);
}

static bool is_ignore_mark(const struct fsn_mark_spec *s) {
	return s->mask == 0 && s->ignore != 0;
}

/* "close_write,create,ondir": the mask (ignore marks: the ignore mask) */
static const char *mask_words(const struct fsn_mark_spec *s, char *buf, size_t len) {
	if (s->type == FSN_MARK_INOTIFY)
		fsn_mask_format(FSN_MASK_INOTIFY_EVENT, s->mask, buf, len);
	else
		fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, is_ignore_mark(s) ? s->ignore : s->mask,
				buf, len);
	return buf;
}

const char *plan_group_words(const struct fsn_mark_spec *s, char *buf, size_t len) {
	char rep[128];

	if (s->type == FSN_MARK_INOTIFY)
		return NULL;
	snprintf(buf, len, "%s/%s tag %u",
		 s->klass == FSN_CLASS_NOTIF     ? "notif"
		 : s->klass == FSN_CLASS_CONTENT ? "content"
						 : "pre_content",
		 s->report ? report_words(s->report, rep, sizeof(rep)) : "none", s->group_tag);
	return buf;
}

const char *plan_mask_words(const struct fsn_mark_spec *s, char *buf, size_t len) {
	return mask_words(s, buf, len);
}

/* ", mask close_write, group notif/dfid_name,fid tag 0" (no group for inotify) */
static void put_mask_group(FILE *f, const struct fsn_mark_spec *s) {
	char mask[512], group[192];

	fprintf(f, ", %s %s", is_ignore_mark(s) ? "ignore" : "mask",
		mask_words(s, mask, sizeof(mask)));
	if (plan_group_words(s, group, sizeof(group)))
		fprintf(f, ", group %s", group);
}

/* What of the subtree counts (m->subtree set). */
static const char *filter_words(const struct plan_mark *m) {
	return m->subtree_recursive      ? " and below"
	       : m->children_dirent_only ? " and entries' create/delete/move"
					 : " and its direct entries";
}

static void put_rule_name(FILE *f, const struct rule_conf *rule) {
	fputs("rule '", f);
	put_text(f, rule->name);
	fputs("': ", f);
}

/* "problem: rule 'r': " */
static void put_problem_head(FILE *f, const struct plan_problem *q) {
	fputs(q->warning ? "warning: " : "problem: ", f);
	if (q->rule)
		put_rule_name(f, q->rule);
}

static void put_totals(const struct plan *p, FILE *f) {
	size_t fatal = 0, warnings = 0;

	for (size_t i = 0; i < p->n_problems; i++) {
		fatal += p->problems[i].fatal;
		warnings += p->problems[i].warning;
	}
	fprintf(f, "%zu marks, %zu problems (%zu fatal), %zu warnings\n", p->n_marks,
		p->n_problems - warnings, fatal, warnings);
}

void plan_print(const struct plan *p, FILE *f) {
	if (!p)
		return;
	for (size_t i = 0; i < p->n_marks; i++) {
		const struct plan_mark *m = &p->marks[i];
		const struct fsn_mark_spec *s = &m->spec;

		put_rule_name(f, m->rule);
		fprintf(f, "%s on ", is_ignore_mark(s) ? "ignore mark" : mark_type_words[s->type]);
		put_text(f, m->target ? m->target : m->path);
		put_mask_group(f, s);
		if (m->subtree) {
			fputs(", filter ", f);
			put_text(f, m->subtree);
			fputs(filter_words(m), f);
		}
		if (m->drop_ondir)
			fputs(", no directories", f);
		fputs(" — why: ", f);
		put_text(f, m->why ? m->why : "");
		fputc('\n', f);
	}
	for (size_t i = 0; i < p->n_problems; i++) {
		const struct plan_problem *q = &p->problems[i];

		put_problem_head(f, q);
		if (q->path) {
			put_text(f, q->path);
			fputs(": ", f);
		}
		put_text(f, q->msg);
		fprintf(f, "%s\n", q->fatal ? " (the rule is required: fatal)" : "");
	}
	put_totals(p, f);
}

/* ------------------------------------------------------------------------ */
/* the summary                                                              */
/* ------------------------------------------------------------------------ */

/* Paths a line of the summary names before "and N more". */
#define SUMMARY_EXAMPLES 3

/* What the marks of one line of the summary share. Only uint64_t (no
 * padding): hashed and compared as bytes. */
struct group_key {
	uint64_t fs, type, ignore, is_dir, mask, klass, report, tag, flags;
	uint64_t filter; /* 0: none; else 1 + how (filter_words()); | 8: drop_ondir. The
			  * subtree is the mark's own path (set_filter(), decide_inotify()). */
};

/* One line of the summary: marks of one key, or problems of one rule,
 * message and kind. */
struct summary_group {
	struct fsn_hnode node; /* in the summary's table, by its members' hash */
	struct group_key key;  /* (marks) */
	size_t n;
	size_t ex[SUMMARY_EXAMPLES]; /* the first members: index in p->marks or p->problems */
};

static uint64_t hash_mix(uint64_t h, uint64_t v) {
	h ^= v;
	h *= UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

static struct group_key group_key_of(const struct plan_mark *m) {
	const struct fsn_mark_spec *s = &m->spec;
	bool ignore = is_ignore_mark(s);

	return (struct group_key){
		.fs = m->fs,
		.type = s->type,
		.ignore = ignore,
		.is_dir = m->is_dir,
		.mask = ignore ? s->ignore : s->mask,
		.klass = s->klass,
		.report = s->report,
		.tag = s->group_tag,
		.flags = s->flags,
		.filter = (!m->subtree               ? 0
			   : m->subtree_recursive    ? 1
			   : m->children_dirent_only ? 2
						     : 3) |
			  (m->drop_ondir ? 8 : 0),
	};
}

static uint64_t group_key_hash(const struct group_key *k) {
	const uint64_t *w = (const uint64_t *)k;
	uint64_t h = HASH_INIT;

	for (size_t i = 0; i < sizeof(*k) / sizeof(*w); i++)
		h = hash_mix(h, w[i]);
	return h;
}

static uint64_t problem_hash(const struct plan_problem *q) {
	uint64_t h = hash_mix(HASH_INIT, (uintptr_t)q->rule);

	h = hash_mix(h, (uint64_t)q->warning | (uint64_t)q->fatal << 1 | (uint64_t) !!q->path << 2);
	return hash_bytes(h, q->msg, strlen(q->msg));
}

static bool same_problem_group(const struct plan_problem *a, const struct plan_problem *b) {
	return a->rule == b->rule && a->warning == b->warning && a->fatal == b->fatal &&
	       !a->path == !b->path && strcmp(a->msg, b->msg) == 0;
}

/* Count item into its group (found in table by hash and same(), or the
 * next of groups, put in table); returns the number of groups. Without
 * memory for the table's first buckets, each item is a group of its own:
 * more lines, none wrong. */
static size_t group_add(struct summary_group *groups, size_t n_groups, struct fsn_hmap *table,
			uint64_t hash, size_t item,
			bool (*same)(const void *ctx, const struct summary_group *g, size_t item),
			const void *ctx, struct summary_group **ret) {
	struct summary_group *g;

	for (struct fsn_hnode *n = fsn_hmap_chain(table, hash); n; n = n->next) {
		g = container_of(n, struct summary_group, node);
		if (n->hash == hash && same(ctx, g, item))
			goto found;
	}
	g = &groups[n_groups++];
	*g = (struct summary_group){ 0 };
	(void)fsn_hmap_put(table, &g->node, hash);
found:
	if (g->n < SUMMARY_EXAMPLES)
		g->ex[g->n] = item;
	g->n++;
	*ret = g;
	return n_groups;
}

static bool same_mark_group(const void *ctx, const struct summary_group *g, size_t item) {
	const struct group_key *k = ctx;

	(void)item;
	return memcmp(&g->key, k, sizeof(*k)) == 0;
}

static bool same_problem(const void *ctx, const struct summary_group *g, size_t item) {
	const struct plan_problem *problems = ctx;

	return same_problem_group(&problems[g->ex[0]], &problems[item]);
}

/* " /a, /b, /c and 497 more" */
static void put_examples(FILE *f, const char *const *paths, size_t n) {
	for (size_t k = 0; k < n && k < SUMMARY_EXAMPLES; k++) {
		fputs(k ? ", " : " ", f);
		put_text(f, paths[k]);
	}
	if (n > SUMMARY_EXAMPLES)
		fprintf(f, " and %zu more", n - SUMMARY_EXAMPLES);
}

/* "inode marks" for n of them */
static void put_counted(FILE *f, size_t n, const char *word) {
	size_t len = strlen(word);

	fprintf(f, "%zu %s%s", n, word, n == 1 ? "" : len && word[len - 1] == 'h' ? "es" : "s");
}

/*
 *   5 inode marks on directories, tmpfs at /srv (dev 0:45), mask ..., group ...: /a, ...
 *     why (first of 5): ...
 */
static void put_mark_group(const struct plan *p, const struct summary_group *g, FILE *f) {
	const struct plan_mark *m = &p->marks[g->ex[0]];
	const struct fsn_mark_spec *s = &m->spec;
	bool on = s->type == FSN_MARK_INODE || s->type == FSN_MARK_INOTIFY;
	const char *paths[SUMMARY_EXAMPLES];

	fputs("  ", f);
	put_counted(f, g->n, is_ignore_mark(s) ? "ignore mark" : mark_type_words[s->type]);
	fprintf(f, " %s %s", on ? "on" : "for",
		m->is_dir ? (g->n == 1 ? "a directory" : "directories")
			  : (g->n == 1 ? "a file" : "files"));
	if (m->fs < p->n_fs) {
		const struct plan_fs *fs = &p->fs[m->fs];

		fprintf(f, ", %s at ", fs->type ? fs->type : "?");
		put_text(f, fs->root ? fs->root : "?");
		fprintf(f, " (dev %u:%u)", major(fs->dev), minor(fs->dev));
	} else
		fputs(", unknown filesystem", f);
	put_mask_group(f, s);
	if (m->subtree)
		fprintf(f, ", filter %s%s", g->n == 1 ? "the path" : "each path", filter_words(m));
	if (m->drop_ondir)
		fputs(", no directories", f);
	fputc(':', f);
	for (size_t k = 0; k < g->n && k < SUMMARY_EXAMPLES; k++)
		paths[k] = p->marks[g->ex[k]].path;
	put_examples(f, paths, g->n);
	fputs("\n    why", f);
	if (g->n > 1)
		fprintf(f, " (first of %zu)", g->n);
	fputs(": ", f);
	put_text(f, m->why ? m->why : "");
	fputc('\n', f);
}

/* "problem: rule 'r': 500 paths: does not exist: /a, /b, /c and 497 more" */
static void put_problem_group(const struct plan *p, const struct summary_group *g, FILE *f) {
	const struct plan_problem *q = &p->problems[g->ex[0]];
	const char *paths[SUMMARY_EXAMPLES];

	put_problem_head(f, q);
	if (q->path && g->n == 1) {
		put_text(f, q->path);
		fputs(": ", f);
	} else if (q->path)
		fprintf(f, "%zu paths: ", g->n);
	put_text(f, q->msg);
	if (q->path && g->n > 1) {
		fputc(':', f);
		for (size_t k = 0; k < g->n && k < SUMMARY_EXAMPLES; k++)
			paths[k] = p->problems[g->ex[k]].path;
		put_examples(f, paths, g->n);
	} else if (g->n > 1)
		fprintf(f, " (%zu times)", g->n);
	fprintf(f, "%s\n", q->fatal ? " (the rule is required: fatal)" : "");
}

void plan_print_summary(const struct plan *p, FILE *f) {
	plan_print_summary_with(p, f, NULL, NULL);
}

void plan_print_summary_with(const struct plan *p, FILE *f, plan_rule_fn after_rule,
			     void *userdata) {
	_cleanup_free_ struct summary_group *groups = NULL;
	struct fsn_hmap table = { 0 }; /* groups by hash, emptied per rule */
	size_t most = p ? p->n_problems : 0;

	if (!p)
		return;
	for (size_t i = 0; i < p->n_rules; i++)
		if (p->by_rule[i].n > most)
			most = p->by_rule[i].n;
	/* One array of groups for everything, sized for the biggest rule (or
	 * all problems); a table emptied per rule (its buckets freed, so a
	 * small rule after a big one does not clear the big one's): O(marks +
	 * problems). */
	groups = calloc(most + 1, sizeof(*groups));
	if (!groups) {
		fputs("(not enough memory for the summary: every mark)\n", f);
		plan_print(p, f);
		return;
	}

	for (size_t i = 0; i < p->n_rules; i++) {
		const struct rule_conf *rule = &p->rules[i];
		const struct plan_rule_marks *r = &p->by_rule[i];
		size_t n_groups = 0;

		fsn_hmap_done(&table);
		for (size_t j = r->first; j < r->first + r->n; j++) {
			struct group_key k = group_key_of(&p->marks[j]);
			struct summary_group *g;

			n_groups = group_add(groups, n_groups, &table, group_key_hash(&k), j,
					     same_mark_group, &k, &g);
			g->key = k;
		}
		put_rule_name(f, rule);
		fprintf(f, "%zu path%s, %zu mark%s\n", rule->n_paths, rule->n_paths == 1 ? "" : "s",
			r->n, r->n == 1 ? "" : "s");
		for (size_t k = 0; k < n_groups; k++)
			put_mark_group(p, &groups[k], f);
		if (after_rule)
			after_rule(p, i, f, userdata);
	}

	{
		size_t n_groups = 0;
		struct summary_group *g;

		fsn_hmap_done(&table);
		for (size_t i = 0; i < p->n_problems; i++)
			n_groups =
			    group_add(groups, n_groups, &table, problem_hash(&p->problems[i]), i,
				      same_problem, p->problems, &g);
		fsn_hmap_done(&table);
		for (size_t k = 0; k < n_groups; k++)
			put_problem_group(p, &groups[k], f);
	}
	put_totals(p, f);
}
