/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c — the running daemon between the kernel and the outputs: one
 * libfsn context (its fd in an ev_io), the marks of the current plan, the
 * outputs the rules use, and the matching of every decoded event to the
 * rules it concerns (subtree, events, ondir/children, exclusions, process
 * filters, the daemon's own activity, rate limits).
 *
 * engine_apply() places a config the first time and diffs on reload: marks
 * with the same (rule, path, spec) on the same object stay in the kernel
 * untouched, new ones are placed before gone ones are removed, outputs are
 * reopened only if their configuration changed, and any failure rolls back
 * to the running state.
 *
 * Matching. fanotify events carry their group, not their mark (a group
 * merges the marks of all rules that share it), so an event is matched
 * against every mark of its group by the mark's scope: the plan's subtree,
 * else the marked object (an inode mark: the object and, for a directory,
 * its direct children; a filesystem or mount mark: the filesystem, by
 * fsid). inotify events come per watch: they are matched against the marks
 * on the same inode. A rule reports an event at most once.
 *
 * Recursive inotify rules get one watch per directory below their path
 * ("sub-watches"), added as directories appear and renamed or dropped as
 * they move away or go.
 */
#include <dirent.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "fsn-uapi.h"
#include "guard.h"
#include "log.h"
#include "mounts.h"
#include "output.h"
#include "policy.h"
#include "proc.h"
#include "util.h"

/* Event bits the daemon reports (FAN_* values; the common IN_* are equal). */
#define EVENT_BITS                                                                                 \
	(FAN_ACCESS | FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE | FAN_OPEN |   \
	 FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE | FAN_DELETE | FAN_DELETE_SELF |               \
	 FAN_MOVE_SELF | FAN_OPEN_EXEC | FAN_FS_ERROR | FAN_RENAME)
/* Events a directory reports about its entries (not a child's own events). */
#define DIRENT_BITS (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)
/* inotify: what a recursive watch needs to follow new directories. */
#define IN_TREE_BITS (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM)

/* How long a held IN_MOVED_FROM waits for its IN_MOVED_TO when the queue
 * was read empty between them. */
#define MOVE_WAIT_SEC 0.02

/* Paths of recent scan-reported creates remembered (see synth_remember()). */
#define SYNTH_SLOTS 1024

/* Events handled per ev_io callback before the loop gets a turn (signals,
 * timers, the watchdog); the rest stay queued in the context. */
#define DISPATCH_BUDGET 4096

/* The longest a load (start, reload) or the removal of a replaced state's
 * marks holds the loop in one go; events are handled between batches. */
#define LOAD_BATCH_USEC 10000

/* Directory paths cached by handle, all groups together (e->dirs). */
#define DIR_CACHE_MAX 65536

/* ------------------------------------------------------------------------ */
/* state                                                                    */
/* ------------------------------------------------------------------------ */

struct eoutput {
	char *name;
	const struct output_conf *conf; /* in the config it was opened for */
	struct output *out;
	bool kept;                           /* reload: reused by the new state */
	const struct output_conf *next_conf; /* reload: its conf in the new config */
};

struct erule {
	const struct rule_conf *conf;
	struct rule_stats stats;
	struct eoutput **outputs;
	size_t n_outputs;
	char **excl_canon; /* exclude paths, canonical where they exist (NULL for globs) */
	unsigned limit;    /* events per second, 0 = unlimited */
	uint64_t window;   /* monotonic second of the current window */
	unsigned in_window;
	uint64_t dropped_pending;     /* rate-limited, not yet reported */
	uint64_t seen;                /* sequence number of the last event it reported */
	unsigned n_marks;             /* marks placed */
	unsigned n_failed;            /* marks that could not be placed */
	bool limit_logged;            /* the max_marks warning was logged */
	struct perm_counts last_perm; /* permission rules: counters last reported */
	bool limit_hit;               /* recursive inotify: a watch did not fit (ENOSPC) */
	bool rescan_pending;          /* an overflow hit it: rescan its scope */
	uint64_t rescan_since;        /* realtime us: changes since then are reported */
};

/* A permission rule: its guard rule (group, marks) and what it was placed
 * from, to keep it across a reload when nothing about its marks changed. */
struct eperm {
	const struct rule_conf *conf;
	struct guard_rule *gr;
	char *sig;   /* the planned marks, in words */
	dev_t *devs; /* per planned mark: the object marked */
	ino_t *inos;
	size_t n_objs;
	bool fresh;         /* placed for the new state */
	bool kept;          /* old state: taken over by the new one */
	struct policy *pol; /* its policy for the commit, computed before it */
};

enum scope {
	SCOPE_SUBTREE, /* subtree, recursive or direct children */
	SCOPE_OBJECT,  /* the marked object (and a directory's direct children) */
	SCOPE_FSID,    /* anything on the filesystem */
};

struct emark {
	struct engine *engine;
	struct erule *rule;
	char *rule_name;           /* for the reload diff */
	char *path;                /* as planned (plan sub-watches: the directory) */
	struct fsn_mark_spec spec; /* as planned; spec.path == path */
	uint64_t placed_mask;      /* the mask given to the kernel */
	char *canon;               /* canonical path of the object when placed */
	char *subtree;             /* canonical subtree filter (SCOPE_SUBTREE) */
	bool subtree_recursive;
	enum scope scope;
	bool is_dir;
	int32_t fsid[2];
	bool have_handle;   /* fanotify inode marks: the object's FID, to know */
	struct fsn_fid fid; /* its events whatever its path is now */
	dev_t dev;
	ino_t ino;
	uint64_t mnt_id;       /* planned marks: the mount its path was on (0: unknown) */
	struct fsn_mark *mark; /* NULL: placing failed, or the object is gone */
	struct emark *parent;  /* sub-watch: the planned mark it serves */
	struct emark **subs;   /* planned recursive inotify mark: its sub-watches */
	size_t n_subs, subs_cap;
	struct emark **sidx; /* ... and their index by canonical path (chained) */
	size_t sidx_size;
	size_t sub_pos;      /* sub-watch: its index in parent->subs */
	struct emark *snext; /* sub-watch: chain of the parent's path index */
	struct emark *hnext; /* inotify: chain of the inode hash */
	bool kept;           /* reload: claimed by the new state */
	bool fresh;          /* reload: placed for the new state */
	bool retired;        /* reload: its state is gone, it leaves the kernel soon */
	bool gone;           /* its object went (re-arming: see mark_gone()) */
	bool waiter;         /* a watch for a missing path's next component (waiters_*()) */
	char *next;          /* waiter: the path that, created, re-arms (key of e->waiting) */
	/* reload: what a kept mark becomes when the new state commits */
	struct erule *next_rule;
	const struct plan_mark *next_pm;
	enum scope next_scope;
	char *next_subtree;
};

/* A recursive-inotify directory that moved away, waiting for its
 * IN_MOVED_TO (same cookie) to learn where. */
struct pending_move {
	uint32_t cookie;
	char *path;
};

/* An inotify IN_MOVED_FROM held back for one event. */
struct pending_from {
	bool set;
	struct fsn_event ev; /* name, group, mark cleared */
	uint32_t cookie;
	char *path;
	dev_t dev; /* the watch it came from */
	ino_t ino;
};

struct state {
	struct config *config;
	struct plan *plan;
	struct erule *rules;
	size_t n_rules;
	struct eoutput **outputs;
	size_t n_outputs;
	struct emark **marks; /* planned marks (sub-watches hang off them) */
	size_t n_marks;
	unsigned n_placed;  /* kernel marks + watches, sub-watches included */
	struct eperm *perm; /* permission rules */
	size_t n_perm;
};

struct engine {
	struct ev_loop *loop;
	ev_io io;
	ev_timer drop_timer;
	ev_timer rescan_timer;  /* overflow recovery, with backoff */
	ev_timer move_timer;    /* a held IN_MOVED_FROM's wait for its IN_MOVED_TO */
	double rescan_backoff;  /* seconds */
	uint64_t last_overflow; /* monotonic s */
	uint64_t drained_usec;  /* realtime: when the queues were last read empty */
	uint64_t rescans;
	struct fsn_ctx *ctx;
	struct fsn_fidcache *dirs; /* directory paths by (group id, handle): dir_moves_seen() */
	struct guard *guard;       /* permission rules' thread, once there were any */
	bool mlocked;
	struct retired *retired; /* permission rules replaced by reloads */
	size_t n_retired;
	struct state st;
	struct load *load;         /* a config being loaded, NULL if none */
	ev_timer rearm_timer;      /* a planned mark's object went: plan again */
	struct mountwatch *mounts; /* the mount table: unmounts and mounts over paths */
	/* missing paths of the running plan: a watch on the nearest existing
	 * directory above each, by the path whose creation brings it closer */
	struct emark **waiters;
	size_t n_waiters;
	struct strmap waiting;
	/* engine_load() while a replan runs: started when it is over */
	struct {
		char *path;
		engine_load_fn done;
		void *userdata;
	} queued;
	/* marks of a replaced state, removed from the kernel in batches */
	struct emark **retiring;
	size_t n_retiring, retiring_cap;
	ev_timer retire_timer;
	/* a replaced state's plan and config, freed a loop turn after the
	 * commit (100 000 paths: tens of ms), then the heap trimmed */
	struct plan *stale_plan;
	struct config *stale_config;
	ev_timer tidy_timer;
	struct fsn_prober *prober; /* feature probes per filesystem, across reloads */
	uint64_t load_progress;    /* steps the loaders made (for EXTEND_TIMEOUT_USEC) */
	pid_t self;
	int foreign_mntns; /* mntns_foreign(): 1 a namespace of its own, 0 shared, <0 unknown */
	struct output *console; /* --foreground: events also on stdout (output-console.c) */
	bool has_exec;
	bool placing_tree; /* place_planned() walks a new tree: limits are its business */

	/* inotify marks by inode */
	struct emark **ihash;
	size_t ihash_size, ihash_n;

	/* counters */
	uint64_t seq;
	uint64_t handled;
	uint64_t events, overflows, dropped, unresolved, decisions;
	bool reloaded;
	char reload_error[512];

	/* the libfsn log, captured while placing a mark */
	bool capturing;
	char captured[1024];

	struct pending_move move;
	char *synth[SYNTH_SLOTS]; /* see synth_remember() */
	/* inotify: an IN_MOVED_FROM waiting for its IN_MOVED_TO (same cookie),
	 * to be reported as one move with both paths */
	struct pending_from from;
	/* files the daemon writes: inotify reports no pid, so their own
	 * events are recognised by identity (else: a feedback loop) */
	struct ownfile *own;
	size_t n_own;
	/* per-dispatch process info cache */
	struct proc_info *pcache;
	size_t pcache_n;
	unsigned budget;
};

/* A permission rule a reload replaced (under another name, or with other
 * marks): what its group still answers is reported to the outputs of the
 * same names in the running state. */
struct retired {
	char *rule;
	char **outputs;
	size_t n_outputs;
};

#define MAX_RETIRED 64

/* A file the daemon writes (a json output, its stdout, its stderr). */
struct ownfile {
	dev_t dev;
	ino_t ino;
	char *path; /* canonical, NULL for stdout/stderr */
};

#define PCACHE_SIZE 64

static void mark_drop(struct engine *e, struct emark *m);
/* Why a planned mark's path no longer names its object. */
enum gone_why { GONE_DELETED, GONE_MOVED, GONE_COVERED, GONE_UNMOUNTED };
static void mark_gone(struct engine *e, struct emark *m, enum gone_why why, const char *mount);
static void rearm_soon(struct engine *e);
static void start_queued(struct engine *e);
static void waiters_place(struct engine *e);
static void waiters_clear(struct engine *e);
static bool synth_seen(struct engine *e, const char *path);
static bool excluded(const struct erule *r, const char *path);

/* ------------------------------------------------------------------------ */
/* small helpers                                                            */
/* ------------------------------------------------------------------------ */

/* The index of rc in c->rules, or SIZE_MAX when it is not one of c's. */
static size_t rule_index(const struct config *c, const struct rule_conf *rc) {
	uintptr_t base = (uintptr_t)c->rules, at = (uintptr_t)rc;

	if (!c->rules || at < base || at >= base + c->n_rules * sizeof(*rc))
		return SIZE_MAX;
	return (at - base) / sizeof(*rc);
}

/* s->rules[i] runs s->config->rules[i]: O(1). */
static struct erule *state_rule(struct state *s, const struct rule_conf *rc) {
	size_t i = s->config ? rule_index(s->config, rc) : SIZE_MAX;

	return i < s->n_rules ? &s->rules[i] : NULL;
}

/* The planned marks of rule rc of config c: p->marks[*first .. *first + *n). */
static void rule_marks(const struct plan *p, const struct config *c, const struct rule_conf *rc,
		       size_t *first, size_t *n) {
	size_t i = rule_index(c, rc);

	*first = i < c->n_rules ? p->by_rule[i].first : 0;
	*n = i < c->n_rules ? p->by_rule[i].n : 0;
}

static bool str_eq(const char *a, const char *b) {
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The mount ID on the first line of our mountinfo: one of this mount
 * namespace's mounts (mount IDs are unique system-wide; a new namespace
 * gets copies of the mounts, with new IDs). */
static int own_mount_id(void) {
	char buf[64];
	ssize_t n = read_small("/proc/self/mountinfo", buf, sizeof(buf));
	int id;

	if (n < 0)
		return (int)n;
	if (sscanf(buf, "%d ", &id) != 1 || id < 0)
		return -EBADMSG;
	return id;
}

/* Whether process pid is in this process's mount namespace: 1, 0, or
 * -errno when that cannot be told. The namespace links in /proc/PID/ns
 * need ptrace rights over pid, which a service whose capability bounding
 * set lacks CAP_SYS_PTRACE does not have over PID 1; /proc/PID/mountinfo
 * is readable by anyone, and lists one of our mounts exactly when pid
 * shares our namespace. */
static int mntns_shared_with(pid_t pid) {
	char path[64], line[512];
	struct stat self, other;
	FILE *f;
	int id, r = 0;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat("/proc/self/ns/mnt", &self) == 0 && stat(path, &other) == 0)
		return self.st_dev == other.st_dev && self.st_ino == other.st_ino;
	id = own_mount_id();
	if (id < 0)
		return id;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!r && fgets(line, sizeof(line), f)) {
		int other_id;

		if (sscanf(line, "%d ", &other_id) == 1 && other_id == id)
			r = 1;
		/* skip the rest of a long line */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	return r;
}

/* 1 when this process runs in a mount namespace of its own: shared
 * neither with PID 1 nor with the process that started it (systemd's
 * ProtectSystem= and friends); 0 when shared with one of them; -errno
 * when that cannot be told. A mount mark placed in a namespace of its own
 * sees only what happens through its copies of the mounts. (A namespace
 * shared with the parent, e.g. a test that unshared one and works in it,
 * is where the activity is.) */
static int mntns_foreign(void) {
	int init = mntns_shared_with(1);
	int parent = getppid() > 1 ? mntns_shared_with(getppid()) : init;

	if (init == 1 || parent == 1)
		return 0;
	if (init == 0 && parent == 0)
		return 1;
	return init < 0 ? init : parent;
}

/* ------------------------------------------------------------------------ */
/* inotify marks by inode                                                   */
/* ------------------------------------------------------------------------ */

static size_t ihash_slot(const struct engine *e, dev_t dev, ino_t ino) {
	uint64_t h =
	    ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h >> 17) & (e->ihash_size - 1);
}

/* (Re)size the inode hash to size buckets. */
static int ihash_resize(struct engine *e, size_t size) {
	struct emark **old = e->ihash, **v = calloc(size, sizeof(*v));
	size_t old_size = e->ihash_size;

	if (!v)
		return -ENOMEM;
	e->ihash = v;
	e->ihash_size = size;
	for (size_t i = 0; old && i < old_size; i++)
		for (struct emark *m = old[i], *n; m; m = n) {
			size_t s = ihash_slot(e, m->dev, m->ino);

			n = m->hnext;
			m->hnext = v[s];
			v[s] = m;
		}
	free(old);
	return 0;
}

static int ihash_add(struct engine *e, struct emark *m) {
	size_t s;

	/* a chain of about one mark: big recursive trees stay O(1) */
	if ((!e->ihash || e->ihash_n >= e->ihash_size) &&
	    ihash_resize(e, e->ihash ? 2 * e->ihash_size : 1024) < 0 && !e->ihash)
		return -ENOMEM;
	s = ihash_slot(e, m->dev, m->ino);
	m->hnext = e->ihash[s];
	e->ihash[s] = m;
	e->ihash_n++;
	return 0;
}

static void ihash_remove(struct engine *e, struct emark *m) {
	struct emark **p;

	if (!e->ihash)
		return;
	for (p = &e->ihash[ihash_slot(e, m->dev, m->ino)]; *p; p = &(*p)->hnext)
		if (*p == m) {
			*p = m->hnext;
			m->hnext = NULL;
			e->ihash_n--;
			return;
		}
}

/* ------------------------------------------------------------------------ */
/* libfsn log                                                               */
/* ------------------------------------------------------------------------ */

static void on_fsn_log(void *userdata, int priority, const char *msg) {
	struct engine *e = userdata;

	if (e->capturing && priority <= LOG_WARNING) {
		snprintf(e->captured, sizeof(e->captured), "%s", msg);
		return;
	}
	log_msg(priority, "%s", msg);
}

/* ------------------------------------------------------------------------ */
/* outputs                                                                  */
/* ------------------------------------------------------------------------ */

static struct eoutput *eoutput_free(struct eoutput *o) {
	if (o) {
		output_close(o->out);
		free(o->name);
		free(o);
	}
	return NULL;
}

static struct eoutput *find_eoutput(struct eoutput **v, size_t n, const char *name) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i]->name, name) == 0)
			return v[i];
	return NULL;
}

static void rule_output_names(const struct config *c, const struct rule_conf *rc,
			      char *const **names, size_t *n) {
	if (rc->n_outputs > 0) {
		*names = rc->outputs;
		*n = rc->n_outputs;
	} else {
		*names = c->default_outputs;
		*n = c->n_default_outputs;
	}
}

/* ------------------------------------------------------------------------ */
/* marks                                                                    */
/* ------------------------------------------------------------------------ */

static struct emark *emark_free(struct emark *m) {
	if (m) {
		free(m->rule_name);
		free(m->path);
		free(m->canon);
		free(m->subtree);
		free(m->next_subtree);
		free(m->next);
		free(m->subs);
		free(m->sidx);
		free(m);
	}
	return NULL;
}

/* A mark of the state being loaded (placed, not yet committed): it reports
 * nothing until the new state takes over. */
static bool emark_fresh(const struct emark *m) {
	return m->fresh || (m->parent && m->parent->fresh);
}

static bool spec_equal(const struct fsn_mark_spec *a, const struct fsn_mark_spec *b) {
	return a->type == b->type && a->klass == b->klass && a->report == b->report &&
	       a->group_tag == b->group_tag && a->mask == b->mask && a->ignore == b->ignore &&
	       a->flags == b->flags && str_eq(a->path, b->path);
}

/* Still the object the mark was placed on (for reload: a path that now
 * names another file gets its mark placed again). */
/* The mount ID of the mount path is on, or 0 when unknown. */
static uint64_t path_mnt_id(const char *path, int flags) {
	struct statx sx;

	if (statx(AT_FDCWD, path, flags | AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

/* Whether m's path still names the object m marks (a mount mark: the same
 * mount, when its ID is known). */
static bool emark_same_object(const struct emark *m) {
	struct stat st;
	int flags = (m->spec.flags & FSN_MARK_F_DONT_FOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;

	if (!m->mark || fstatat(AT_FDCWD, m->path, &st, flags) < 0)
		return false;
	if (m->spec.type == FSN_MARK_INODE || m->spec.type == FSN_MARK_INOTIFY)
		return st.st_dev == m->dev && st.st_ino == m->ino;
	if (m->spec.type == FSN_MARK_MOUNT && m->mnt_id)
		return st.st_dev == m->dev && path_mnt_id(m->path, flags) == m->mnt_id;
	return st.st_dev == m->dev;
}

static int emark_new(struct engine *e, struct erule *rule, const struct fsn_mark_spec *spec,
		     const char *path, struct emark *parent, struct emark **ret) {
	struct emark *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->engine = e;
	m->rule = rule;
	m->spec = *spec;
	m->rule_name = strdup(rule->conf->name);
	m->path = strdup(path);
	m->parent = parent;
	if (!m->rule_name || !m->path) {
		emark_free(m);
		return -ENOMEM;
	}
	m->spec.path = m->path;
	m->spec.dirfd = AT_FDCWD;
	m->spec.userdata = m;
	*ret = m;
	return 0;
}

/* Describe why a mark failed, for logs and err. */
static void mark_failure(struct engine *e, struct emark *m, int r, const char *why) {
	char p[PATH_MAX * 2], msg[1536];
	const char *fields[4];
	char f_rule[300], f_path[PATH_MAX + 16], f_errno[32];

	if (why)
		snprintf(msg, sizeof(msg), "rule '%s': %s", m->rule->conf->name, why);
	else if (e->captured[0])
		snprintf(msg, sizeof(msg), "rule '%s': %s", m->rule->conf->name, e->captured);
	else
		snprintf(msg, sizeof(msg), "rule '%s': cannot watch \"%s\": %s",
			 m->rule->conf->name, text_escaped(p, sizeof(p), m->path), strerror(-r));
	snprintf(f_rule, sizeof(f_rule), "FSN_RULE=%s", m->rule->conf->name);
	snprintf(f_path, sizeof(f_path), "FSN_PATH=%s", m->path);
	snprintf(f_errno, sizeof(f_errno), "ERRNO=%d", -r);
	fields[0] = f_rule;
	fields[1] = f_path;
	fields[2] = f_errno;
	fields[3] = NULL;
	log_notable(m->rule->conf->required ? LOG_ERR : LOG_WARNING, FSND_MID_RULE_ERROR, fields,
		    "%s%s", msg,
		    m->rule->conf->required ? " (the rule is required)"
					    : " (not required: everything else keeps running)");
}

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200 /* 6.5: a handle only to compare, for any filesystem */
#endif

/* The FID fanotify reports for the marked object: fsid plus the file
 * handle name_to_handle_at() gives (FAN_REPORT_FID encodes the same
 * non-connectable handle). */
static int object_fid(const struct emark *m, int statflags, struct fsn_fid *ret) {
	struct {
		struct file_handle fh;
		unsigned char buf[FSN_HANDLE_MAX];
	} h;
	int mnt_id, flags = (statflags & AT_SYMLINK_NOFOLLOW) ? 0 : AT_SYMLINK_FOLLOW;

	h.fh.handle_bytes = FSN_HANDLE_MAX;
	if (name_to_handle_at(AT_FDCWD, m->path, &h.fh, &mnt_id, flags) < 0) {
		if (errno != EOPNOTSUPP)
			return -errno;
		h.fh.handle_bytes = FSN_HANDLE_MAX;
		if (name_to_handle_at(AT_FDCWD, m->path, &h.fh, &mnt_id, flags | AT_HANDLE_FID) < 0)
			return -errno;
	}
	if (h.fh.handle_bytes > FSN_HANDLE_MAX)
		return -EOVERFLOW;
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->fsid, m->fsid, sizeof(ret->fsid));
	ret->handle_bytes = h.fh.handle_bytes;
	ret->handle_type = h.fh.handle_type;
	memcpy(ret->f_handle, h.fh.f_handle, h.fh.handle_bytes);
	return 0;
}

static bool fid_equal(const struct fsn_fid *a, const struct fsn_fid *b) {
	return a->fsid[0] == b->fsid[0] && a->fsid[1] == b->fsid[1] &&
	       a->handle_bytes == b->handle_bytes && a->handle_type == b->handle_type &&
	       memcmp(a->f_handle, b->f_handle, a->handle_bytes) == 0;
}

/* Place one mark (planned or sub-watch), counting it in *count (the marks
 * of the state it belongs to, limited to max_marks; 0: no limit). Does not
 * log; the caller does, with why. */
static int emark_place(struct engine *e, struct emark *m, unsigned *count, unsigned max_marks,
		       char *why, size_t whylen) {
	struct fsn_mark_spec spec = m->spec;
	struct stat st;
	struct statfs sfs;
	int flags = (spec.flags & FSN_MARK_F_DONT_FOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;
	int r;

	why[0] = '\0';
	e->captured[0] = '\0';
	if (max_marks > 0 && *count >= max_marks) {
		char p[PATH_MAX];

		snprintf(why, whylen, "max_marks (%u) reached: \"%s\" is not watched", max_marks,
			 text_escaped(p, sizeof(p), m->path));
		return -ENOSPC;
	}
	if (spec.type == FSN_MARK_MOUNT && e->foreign_mntns == 1) {
		char p[PATH_MAX];

		snprintf(why, whylen,
			 "mount mark on \"%s\" refused: fsnotifyd runs in a mount namespace of "
			 "its own (shared neither with PID 1 nor with its parent; e.g. systemd's "
			 "ProtectSystem=), where a mount mark would see only what happens through "
			 "the daemon's own copies of the mounts, not the system's activity; %s",
			 text_escaped(p, sizeof(p), m->path),
			 m->rule->conf->mark == RULE_MARK_AUTO
			     ? "auto chose it because filesystem marks do not work there; run "
			       "fsnotifyd in the system's mount namespace to use it"
			     : "use mark = \"filesystem\" or \"auto\", or run fsnotifyd in the "
			       "system's mount namespace");
		return -EXDEV;
	}
	if (fstatat(AT_FDCWD, m->path, &st, flags) < 0)
		return -errno; /* libfsn would say the same; this keeps dev/ino in step */
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->is_dir = S_ISDIR(st.st_mode);
	free(m->canon);
	if (m->parent) {
		/* a sub-watch: found below a canonical directory, never through
		 * a symlink, so its path is canonical already; inotify marks have
		 * no use for the fsid */
		m->canon = strdup(m->path);
	} else {
		if (statfs(m->path, &sfs) == 0)
			memcpy(m->fsid, &sfs.f_fsid, sizeof(m->fsid));
		m->canon = canonical(m->path);
		m->mnt_id = path_mnt_id(m->path, flags);
	}
	if (!m->canon)
		return -ENOMEM;
	m->have_handle = spec.type == FSN_MARK_INODE && object_fid(m, flags, &m->fid) == 0;

	/* a recursive inotify tree must hear about new directories */
	if (spec.type == FSN_MARK_INOTIFY && (m->parent || m->subtree_recursive) && m->is_dir)
		spec.mask |= IN_TREE_BITS;
	/* a planned inode mark hears its object go (re-arming; the rule
	 * reports only what it asked for) */
	if (spec.type == FSN_MARK_INODE && spec.mask && !m->parent)
		spec.mask |= FAN_DELETE_SELF | FAN_MOVE_SELF | (m->is_dir ? FAN_ONDIR : 0);
	if (spec.type == FSN_MARK_INOTIFY && !m->parent)
		spec.mask |= IN_DELETE_SELF | IN_MOVE_SELF;
	m->placed_mask = spec.mask;

	e->capturing = true;
	r = fsn_ctx_add_mark(e->ctx, &spec, &m->mark);
	e->capturing = false;
	if (r < 0) {
		m->mark = NULL;
		if (e->captured[0])
			snprintf(why, whylen, "%s", e->captured);
		return r;
	}
	if (spec.type == FSN_MARK_INOTIFY) {
		r = ihash_add(e, m);
		if (r < 0) {
			fsn_ctx_remove_mark(e->ctx, m->mark);
			m->mark = NULL;
			return r;
		}
	}
	(*count)++;
	return 0;
}

/* Remove a mark from the kernel (keeps the struct); count as above, or
 * NULL when its state is going away anyway. */
static void emark_unplace(struct engine *e, struct emark *m, unsigned *count) {
	if (!m->mark)
		return;
	if (m->spec.type == FSN_MARK_INOTIFY)
		ihash_remove(e, m);
	fsn_ctx_remove_mark(e->ctx, m->mark);
	m->mark = NULL;
	if (count && *count > 0)
		(*count)--;
}

/* The sub-watches of a recursive inotify mark: an array (O(1) removal by
 * position) and a chained hash by canonical path (has_sub() in O(1), so
 * a tree of 100 000 directories is placed in linear time). */
static size_t sidx_slot(const struct emark *parent, const char *path) {
	return (size_t)hash_bytes(HASH_INIT, path, strlen(path)) & (parent->sidx_size - 1);
}

static void sidx_insert(struct emark *parent, struct emark *sub) {
	size_t s = sidx_slot(parent, sub->canon);

	sub->snext = parent->sidx[s];
	parent->sidx[s] = sub;
}

static void sidx_remove(struct emark *parent, struct emark *sub) {
	if (!parent->sidx || !sub->canon)
		return;
	for (struct emark **p = &parent->sidx[sidx_slot(parent, sub->canon)]; *p; p = &(*p)->snext)
		if (*p == sub) {
			*p = sub->snext;
			sub->snext = NULL;
			return;
		}
}

/* Rebuild the index with size buckets (after growth or renames). */
static int sidx_rebuild(struct emark *parent, size_t size) {
	struct emark **v = calloc(size, sizeof(*v));

	if (!v)
		return -ENOMEM;
	free(parent->sidx);
	parent->sidx = v;
	parent->sidx_size = size;
	for (size_t i = 0; i < parent->n_subs; i++)
		if (parent->subs[i]->canon)
			sidx_insert(parent, parent->subs[i]);
	return 0;
}

static int sub_append(struct emark *parent, struct emark *sub) {
	if (parent->n_subs == parent->subs_cap) {
		size_t cap = parent->subs_cap ? 2 * parent->subs_cap : 64;
		struct emark **v = realloc(parent->subs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		parent->subs = v;
		parent->subs_cap = cap;
	}
	sub->sub_pos = parent->n_subs;
	parent->subs[parent->n_subs++] = sub;
	if (!parent->sidx || parent->n_subs > parent->sidx_size) {
		if (sidx_rebuild(parent, parent->sidx ? 2 * parent->sidx_size : 64) < 0) {
			parent->n_subs--;
			return -ENOMEM;
		}
	} else if (sub->canon)
		sidx_insert(parent, sub);
	return 0;
}

static void sub_remove(struct emark *parent, struct emark *sub) {
	size_t i = sub->sub_pos;

	if (i >= parent->n_subs || parent->subs[i] != sub)
		return;
	sidx_remove(parent, sub);
	parent->subs[i] = parent->subs[--parent->n_subs];
	parent->subs[i]->sub_pos = i;
}

/* Whether a rule excludes path by an exclude *path* (globs aside): used to
 * prune recursive inotify walks. */
static bool excluded_by_path(const struct erule *r, const char *path) {
	for (size_t i = 0; i < r->conf->n_exclude; i++) {
		if (is_glob(r->conf->exclude[i]))
			continue;
		if (path_in(path, r->conf->exclude[i], true, true) ||
		    (r->excl_canon[i] && path_in(path, r->excl_canon[i], true, true)))
			return true;
	}
	return false;
}

static bool has_sub(const struct emark *root, const char *path) {
	if (!root->sidx)
		return false;
	for (const struct emark *m = root->sidx[sidx_slot(root, path)]; m; m = m->snext)
		if (m->canon && strcmp(m->canon, path) == 0)
			return true;
	return false;
}

static void synth_create(struct engine *e, struct emark *root, const char *path, bool is_dir);

/* dir's entry name (NULL or ".": dir itself) into buf; its length or -errno. */
static int join_name(const char *dir, const char *name, char *buf, size_t len) {
	int n;

	if (!name || !name[0] || strcmp(name, ".") == 0)
		n = snprintf(buf, len, "%s", dir);
	else
		n = snprintf(buf, len, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* dir's entry name, allocated; NULL without memory. */
static char *entry_path(const char *dir, const char *name) {
	char *p = NULL;

	return asprintf(&p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name) < 0 ? NULL : p;
}

static bool is_dot(const char *name) {
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* A directory to read, never through a symlink; NULL if it cannot be. */
static DIR *opendir_nofollow(const char *dir) {
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Place the sub-watch of dir under root; s is the state root belongs to (its
 * limit and count). false if it is not watched (excluded, gone, limit). */
static bool sub_watch_add(struct engine *e, struct state *s, struct emark *root, const char *dir) {
	struct emark *sub = NULL;
	char why[1024];
	int r;

	if (emark_new(e, root->rule, &root->spec, dir, root, &sub) < 0)
		return false;
	sub->spec.flags |= FSN_MARK_F_ONLYDIR | FSN_MARK_F_DONT_FOLLOW;
	r = emark_place(e, sub, &s->n_placed, s->config->max_marks, why, sizeof(why));
	if (r < 0) {
		if (r == -ENOSPC)
			root->rule->limit_hit = true; /* (see place_planned()) */
		if (r != -ENOENT && r != -ENOTDIR && !root->rule->limit_logged &&
		    !(r == -ENOSPC && e->placing_tree)) {
			/* once per rule: the tree is too big or the kernel says no */
			root->rule->limit_logged = true;
			mark_failure(e, sub, r, why[0] ? why : NULL);
		}
		emark_free(sub);
		return false;
	}
	if (sub_append(root, sub) < 0) {
		emark_unplace(e, sub, &s->n_placed);
		emark_free(sub);
		return false;
	}
	return true;
}

/* Directories still to read in a tree walk, in the order they were found
 * (parents before children): a queue, not recursion, so a deep tree needs
 * no deep stack and a walk can stop and go on later (the loader's batches). */
struct dirq_item {
	char *path;
	bool self; /* place its sub-watch (false: the root, placed already) */
};

struct dirq {
	struct dirq_item *v;
	size_t head, n, cap;
};

static int dirq_push(struct dirq *q, char *path, bool self) {
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct dirq_item *v;

		if (q->head > 0) { /* reuse the consumed front first */
			memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
			q->n -= q->head;
			q->head = 0;
		}
		if (q->n == q->cap) {
			v = realloc(q->v, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			q->v = v;
			q->cap = cap;
		}
	}
	q->v[q->n++] = (struct dirq_item){ .path = path, .self = self };
	return 0;
}

static bool dirq_pop(struct dirq *q, struct dirq_item *ret) {
	if (q->head == q->n)
		return false;
	*ret = q->v[q->head++];
	if (q->head == q->n)
		q->head = q->n = 0;
	return true;
}

static void dirq_done(struct dirq *q) {
	for (size_t i = q->head; i < q->n; i++)
		free(q->v[i].path);
	free(q->v);
	*q = (struct dirq){ 0 };
}

/* A config being loaded (see "loading a config" below). */
enum load_phase {
	LOAD_WORKER, /* the thread reads and plans */
	LOAD_CLAIM,  /* kept marks, plan index i */
	LOAD_PLACE,  /* new marks, plan index i */
	LOAD_TREE,   /* the tree of a recursive inotify mark, tree.q */
	LOAD_PERM,   /* permission rules: config rule i, then perm's marks pj..pend */
	LOAD_POLICY, /* their policies, s.perm[i] */
	LOAD_FINISH, /* commit */
};

struct load {
	struct engine *engine;
	enum load_phase phase;
	char *path;  /* NULL: a replan of the running config (shared, not freed) */
	bool reload; /* a config was running when it began */
	engine_load_fn done;
	void *userdata;

	/* the worker's: written by it until it sends async, read after */
	pthread_t thread;
	volatile bool cancel;
	pthread_mutex_t lock; /* finished and abandoned */
	bool finished;        /* the worker is done (it sent async) */
	bool abandoned;       /* engine_free() left it: touch the loop no more */
	int r;
	struct config *config;
	struct plan *plan;
	struct config_errors errs;
	struct fsn_prober *prober;
	ev_async async;

	/* the loop's */
	struct state s;
	struct state *old;
	struct strmap by_path; /* old marks by path */
	bool *claimed;
	size_t i;
	struct emark *tree; /* LOAD_TREE: its root, not yet in s.marks */
	struct dirq q;
	struct eperm *perm; /* LOAD_PERM: the rule whose marks are placed */
	struct rearmed {
		const struct plan_mark *pm;
		bool appeared; /* the path was missing (else: its object went) */
	} * rearmed;           /* placed where an object went or a missing path appeared */
	size_t n_rearmed, rearmed_cap;
	size_t pj, pend;
	ev_timer step;
	uint64_t prepare_start;
	char err[2048];
};

/* One directory of a walk below root: its sub-watch (self), then its
 * entries: subdirectories go to q; synth: dir was just created, so what is
 * in it was created before its watch could report it: report those as
 * created (else `mkdir -p a/b; touch a/b/f` loses b and f). s is the state
 * root belongs to (its limit and count). Never follows symlinks. */
static void tree_scan(struct engine *e, struct state *s, struct emark *root, const char *dir,
		      bool self, bool synth, struct dirq *q) {
	DIR *d;
	struct dirent *de;

	if (excluded_by_path(root->rule, dir))
		return;
	if (self && has_sub(root, dir))
		return; /* watched and read already (by the scan of its parent) */
	if (self && !sub_watch_add(e, s, root, dir))
		return;

	d = opendir_nofollow(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *sub;
		struct stat st;
		bool is_dir;

		if (is_dot(de->d_name))
			continue;
		if (!synth && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			is_dir = S_ISDIR(st.st_mode);
		}
		if (!(sub = entry_path(dir, de->d_name)))
			break;
		if (synth)
			synth_create(e, root, sub, is_dir);
		if (!is_dir || dirq_push(q, sub, true) < 0)
			free(sub);
	}
	closedir(d);
}

/* Add sub-watches for dir (itself unless it is the root) and every
 * directory below it; see tree_scan(). */
static void tree_add(struct engine *e, struct state *s, struct emark *root, const char *dir,
		     bool self, bool synth) {
	struct dirq q = { 0 };
	struct dirq_item it;
	char *first = strdup(dir);

	if (!first || dirq_push(&q, first, self) < 0) {
		free(first);
		return;
	}
	while (dirq_pop(&q, &it)) {
		tree_scan(e, s, root, it.path, it.self, synth, &q);
		free(it.path);
	}
	dirq_done(&q);
}

/* Drop the sub-watches of root (of the running state) at or below path. */
static void tree_remove(struct engine *e, struct emark *root, const char *path) {
	for (size_t i = 0; i < root->n_subs;) {
		struct emark *sub = root->subs[i];

		if (sub->canon && path_in(sub->canon, path, true, true)) {
			emark_unplace(e, sub, &e->st.n_placed);
			sub_remove(root, sub);
			emark_free(sub);
		} else
			i++;
	}
}

/* Rename the sub-watches of root at or below from to below to. */
static void tree_rename(struct emark *root, const char *from, const char *to) {
	size_t fl = strlen(from);
	bool renamed = false;

	for (size_t i = 0; i < root->n_subs; i++) {
		struct emark *sub = root->subs[i];
		char *n;

		if (!sub->canon || !path_in(sub->canon, from, true, true))
			continue;
		if (asprintf(&n, "%s%s", to, sub->canon + fl) < 0)
			continue;
		free(sub->canon);
		sub->canon = n;
		renamed = true;
	}
	if (renamed && root->sidx)
		(void)sidx_rebuild(root, root->sidx_size);
}

/* A planned mark and its sub-watches leave the kernel and memory (their
 * state is going away). */
/* The sub-watches of m leave the kernel and memory; count: as for
 * emark_unplace(). */
static void drop_subs(struct engine *e, struct emark *m, unsigned *count) {
	for (size_t i = 0; i < m->n_subs; i++) {
		emark_unplace(e, m->subs[i], count);
		emark_free(m->subs[i]);
	}
	m->n_subs = 0;
	free(m->sidx);
	m->sidx = NULL;
	m->sidx_size = 0;
}

/* m and its sub-watches leave the kernel and memory; count: as for
 * emark_unplace(). */
static void mark_drop_counted(struct engine *e, struct emark *m, unsigned *count) {
	drop_subs(e, m, count);
	emark_unplace(e, m, count);
	emark_free(m);
}

static void mark_drop(struct engine *e, struct emark *m) {
	mark_drop_counted(e, m, NULL);
}

/* ------------------------------------------------------------------------ */
/* process information                                                      */
/* ------------------------------------------------------------------------ */

static struct proc_info *pinfo_get(struct engine *e, pid_t pid) {
	struct proc_info *p;

	for (size_t i = 0; i < e->pcache_n; i++)
		if (e->pcache[i].pid == pid)
			return &e->pcache[i];
	if (!e->pcache) {
		e->pcache = calloc(PCACHE_SIZE, sizeof(*e->pcache));
		if (!e->pcache)
			return NULL;
	}
	if (e->pcache_n == PCACHE_SIZE)
		e->pcache_n = 0; /* start over; it is only a per-batch cache */
	p = &e->pcache[e->pcache_n++];
	proc_info_init(p, pid);
	return p;
}

/* ------------------------------------------------------------------------ */
/* reporting                                                                */
/* ------------------------------------------------------------------------ */

static void emit_to(struct engine *e, struct eoutput *const *outs, size_t n,
		    const struct record *rec) {
	for (size_t i = 0; i < n; i++)
		output_emit(outs[i]->out, rec);

	if (e->console)
		output_emit(e->console, rec);
}

static void emit(struct engine *e, struct erule *r, const struct record *rec) {
	emit_to(e, r->outputs, r->n_outputs, rec);
}

static void flush_dropped(struct engine *e) {
	bool pending = false;

	for (size_t i = 0; i < e->st.n_rules; i++) {
		struct erule *r = &e->st.rules[i];
		struct record rec;

		if (r->dropped_pending == 0)
			continue;
		if (r->window == now_monotonic_sec()) {
			pending = true; /* still the second it was dropped in */
			continue;
		}
		rec = (struct record){
			.kind = RECORD_DROPPED,
			.time_usec = now_realtime_usec(),
			.rule = r->conf->name,
			.uid = (uid_t)-1,
			.count = r->dropped_pending,
		};
		r->dropped_pending = 0;
		emit(e, r, &rec);
	}
	if (!pending)
		ev_timer_stop(e->loop, &e->drop_timer);
}

static void on_drop_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	flush_dropped(w->data);
}

/* Per-rule rate limit; false: drop (counted, reported once a second). */
static bool rate_ok(struct engine *e, struct erule *r) {
	uint64_t now;

	if (r->limit == 0)
		return true;
	now = now_monotonic_sec();
	if (now != r->window) {
		if (r->dropped_pending > 0)
			flush_dropped(e);
		r->window = now;
		r->in_window = 0;
	}
	if (r->in_window < r->limit) {
		r->in_window++;
		return true;
	}
	r->dropped_pending++;
	r->stats.ratelimited++;
	e->dropped++;
	if (!ev_is_active(&e->drop_timer))
		ev_timer_again(e->loop, &e->drop_timer);
	return false;
}

/* ------------------------------------------------------------------------ */
/* overflow recovery                                                        */
/* ------------------------------------------------------------------------ */

/* Timestamps of files are taken from a coarse clock (a jiffy behind the
 * real time): look that much further back. */
#define RESCAN_SLACK_USEC 20000u
#define RESCAN_BACKOFF_MIN 0.2
#define RESCAN_BACKOFF_MAX 10.0
#define RESCAN_QUIET_SEC 30u

static bool stx_after(const struct statx_timestamp *t, uint64_t usec) {
	return (uint64_t)t->tv_sec * 1000000u + t->tv_nsec / 1000u >= usec;
}

static void rescan_emit(struct engine *e, struct erule *r, const char *path, const char *change,
			bool dir) {
	struct record rec = {
		.kind = RECORD_RESCAN,
		.time_usec = now_realtime_usec(),
		.rule = r->conf->name,
		.mask = dir ? FAN_ONDIR : 0,
		.path = path,
		.uid = (uid_t)-1,
		.change = change,
	};

	if (excluded(r, path) || (dir && !r->conf->ondir) || !rate_ok(e, r))
		return;
	r->stats.events++;
	e->events++;
	emit(e, r, &rec);
}

/* One object: created (born in the gap), modified (changed in the gap), or,
 * for a directory, its entries changed (created, deleted or moved). */
static void rescan_one(struct engine *e, struct erule *r, int dirfd, const char *name,
		       const char *path, uint64_t since, bool *is_dir) {
	const uint64_t ev = r->conf->events;
	struct statx sx;

	*is_dir = false;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_MTIME | STATX_CTIME | STATX_BTIME, &sx) < 0)
		return;
	*is_dir = S_ISDIR(sx.stx_mode);
	if ((sx.stx_mask & STATX_BTIME) && stx_after(&sx.stx_btime, since)) {
		if (ev & (FAN_CREATE | FAN_MOVED_TO))
			rescan_emit(e, r, path, "created", *is_dir);
	} else if (!*is_dir && stx_after(&sx.stx_ctime, since)) {
		if (ev & (FAN_MODIFY | FAN_CLOSE_WRITE | FAN_ATTRIB | FAN_CREATE | FAN_MOVED_TO))
			rescan_emit(e, r, path, "modified", false);
	}
	if (*is_dir && stx_after(&sx.stx_mtime, since) &&
	    (ev & (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)))
		rescan_emit(e, r, path, "changed", true);
}

/* Walk dir (depth 1, or all of it), reporting what changed since since;
 * a recursive inotify tree also gets the watches it lost. */
static void rescan_dir(struct engine *e, struct erule *r, struct emark *root, const char *dir,
		       bool recursive, uint64_t since) {
	struct dirent *de;
	DIR *d;

	if (excluded_by_path(r, dir))
		return;
	/* a directory made in the gap: its watch; its subdirectories get
	 * theirs as this walk reaches them (recursive whenever root is set) */
	if (root && !has_sub(root, dir) && strcmp(dir, root->canon) != 0)
		(void)sub_watch_add(e, &e->st, root, dir);
	d = opendir_nofollow(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		bool is_dir;

		if (is_dot(de->d_name))
			continue;
		if (!(path = entry_path(dir, de->d_name)))
			break;
		rescan_one(e, r, dirfd(d), de->d_name, path, since, &is_dir);
		if (is_dir && recursive)
			rescan_dir(e, r, root, path, true, since);
	}
	closedir(d);
}

static void rescan_rule(struct engine *e, struct erule *r) {
	uint64_t since =
	    r->rescan_since > RESCAN_SLACK_USEC ? r->rescan_since - RESCAN_SLACK_USEC : 0;

	r->rescan_pending = false;
	e->rescans++;
	for (size_t i = 0; i < e->st.n_marks; i++) {
		struct emark *m = e->st.marks[i];
		bool dir_self;

		if (m->rule != r || !m->mark || m->spec.mask == 0 || !m->canon)
			continue;
		if (m->scope == SCOPE_SUBTREE && m->subtree) {
			rescan_one(e, r, AT_FDCWD, m->subtree, m->subtree, since, &dir_self);
			if (dir_self)
				rescan_dir(e, r,
					   m->spec.type == FSN_MARK_INOTIFY && m->subtree_recursive
					       ? m
					       : NULL,
					   m->subtree, m->subtree_recursive, since);
		} else if (m->scope == SCOPE_OBJECT) {
			rescan_one(e, r, AT_FDCWD, m->canon, m->canon, since, &dir_self);
			if (dir_self)
				rescan_dir(e, r, NULL, m->canon, false, since);
		}
	}
}

static void on_rescan_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;

	for (size_t i = 0; i < e->st.n_rules; i++)
		if (e->st.rules[i].rescan_pending) {
			log_info("rule '%s': rescanning its paths after an overflow",
				 e->st.rules[i].conf->name);
			rescan_rule(e, &e->st.rules[i]);
		}
}

/* Rescan soon, but not at every overflow of a storm: the delay doubles
 * while overflows keep coming (up to 10 s) and is back to 0.2 s after 30 s
 * without one. Returns the delay. */
static double rescan_schedule(struct engine *e) {
	uint64_t now = now_monotonic_sec();

	if (e->last_overflow && now - e->last_overflow < RESCAN_QUIET_SEC)
		e->rescan_backoff = e->rescan_backoff * 2 > RESCAN_BACKOFF_MAX
					? RESCAN_BACKOFF_MAX
					: e->rescan_backoff * 2;
	else
		e->rescan_backoff = RESCAN_BACKOFF_MIN;
	e->last_overflow = now;
	if (!ev_is_active(&e->rescan_timer)) {
		ev_timer_set(&e->rescan_timer, e->rescan_backoff, 0.);
		ev_timer_start(e->loop, &e->rescan_timer);
	}
	return e->rescan_backoff;
}

static void report_overflow(struct engine *e, const struct fsn_event *ev) {
	char names[1024] = "";
	size_t pos = 0;
	uint64_t seq = ++e->seq;
	const char *fields[] = { NULL, NULL };
	char f_group[64];

	e->overflows++;
	for (size_t i = 0; i < e->st.n_marks; i++) {
		struct emark *m = e->st.marks[i];
		struct erule *r = m->rule;
		struct record rec;

		if (ev->source == FSN_SOURCE_INOTIFY) {
			if (m->spec.type != FSN_MARK_INOTIFY)
				continue;
		} else if (m->spec.type == FSN_MARK_INOTIFY || !ev->group ||
			   m->spec.klass != fsn_group_get_class(ev->group) ||
			   m->spec.report != fsn_group_get_report(ev->group) ||
			   m->spec.group_tag != fsn_group_get_tag(ev->group))
			continue;
		if (r->seen == seq)
			continue;
		r->seen = seq;
		r->stats.overflows++;
		/* what was lost happened after the queues were last read empty */
		if (!r->rescan_pending || e->drained_usec < r->rescan_since)
			r->rescan_since = e->drained_usec;
		r->rescan_pending = true;
		rec = (struct record){
			.kind = RECORD_OVERFLOW,
			.time_usec = now_realtime_usec(),
			.rule = r->conf->name,
			.mask = FAN_Q_OVERFLOW,
			.uid = (uid_t)-1,
		};
		emit(e, r, &rec);
		if (pos < sizeof(names))
			pos += (size_t)snprintf(names + pos, sizeof(names) - pos, "%s'%s'",
						pos ? ", " : "", r->conf->name);
	}
	if (ev->source == FSN_SOURCE_INOTIFY)
		snprintf(f_group, sizeof(f_group), "FSN_GROUP=inotify");
	else
		snprintf(f_group, sizeof(f_group), "FSN_GROUP=%u",
			 ev->group ? fsn_group_get_id(ev->group) : 0);
	fields[0] = f_group;
	log_notable(LOG_WARNING, FSND_MID_OVERFLOW, fields,
		    "%s queue overflowed: events were lost for rule(s) %s; their paths are "
		    "rescanned in %.1f s",
		    ev->source == FSN_SOURCE_INOTIFY ? "inotify" : "fanotify",
		    names[0] ? names : "(none)", rescan_schedule(e));
}

/* ------------------------------------------------------------------------ */
/* matching                                                                 */
/* ------------------------------------------------------------------------ */

static void own_files_clear(struct engine *e) {
	for (size_t i = 0; i < e->n_own; i++)
		free(e->own[i].path);
	free(e->own);
	e->own = NULL;
	e->n_own = 0;
}

static void own_file_add(struct engine *e, int fd, const char *path) {
	struct ownfile *v;
	struct stat st;

	if ((path ? stat(path, &st) : fstat(fd, &st)) < 0 || !S_ISREG(st.st_mode))
		return;
	v = realloc(e->own, (e->n_own + 1) * sizeof(*v));
	if (!v)
		return;
	e->own = v;
	e->own[e->n_own++] = (struct ownfile){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.path = path ? canonical(path) : NULL,
	};
}

/* After outputs were opened or reopened. */
static void own_files_refresh(struct engine *e) {
	own_files_clear(e);
	own_file_add(e, STDOUT_FILENO, NULL);
	own_file_add(e, STDERR_FILENO, NULL);
	for (size_t i = 0; i < e->st.n_outputs; i++) {
		const struct output_conf *oc = e->st.outputs[i]->conf;

		if (oc->type == OUTPUT_JSON && oc->file && strcmp(oc->file, "-") != 0)
			own_file_add(e, -1, oc->file);
	}
}

/* Is path (of an inotify event about a file's contents) a file the daemon
 * writes? By name first, then by identity (a renamed log file). */
static bool own_file(const struct engine *e, const char *path) {
	struct stat st;

	for (size_t i = 0; i < e->n_own; i++)
		if (e->own[i].path && strcmp(e->own[i].path, path) == 0)
			return true;
	if (lstat(path, &st) < 0)
		return false;
	for (size_t i = 0; i < e->n_own; i++)
		if (e->own[i].dev == st.st_dev && e->own[i].ino == st.st_ino)
			return true;
	return false;
}

struct evinfo {
	const struct fsn_event *ev;
	uint64_t bits; /* FAN_* event bits (ONDIR, ON_CHILD removed) */
	bool ondir;
	const char *path;
	const char *old_path;
	bool paired;            /* inotify: MOVED_FROM + MOVED_TO of one move (cookie) */
	struct proc_info *proc; /* lazily */
	bool proc_checked;      /* own children checked */
	bool own;               /* the daemon's own activity */
};

static bool fsid_equal(const int32_t a[2], const int32_t b[2]) {
	return a[0] == b[0] && a[1] == b[1];
}

/* Is one of the event's paths in the mark's scope? Sets *child when the
 * path is a direct child of a marked directory (not the object itself). */
static bool in_scope(const struct emark *m, const struct evinfo *x, const char *path, bool *child) {
	const struct emark *root = m->parent ? m->parent : m;

	*child = false;
	if (!path)
		return false;
	switch (root->scope) {
	case SCOPE_SUBTREE:
		if (!path_in(path, root->subtree, root->subtree_recursive, true))
			return false;
		*child = !root->subtree_recursive && strcmp(path, root->subtree) != 0;
		return true;
	case SCOPE_OBJECT:
		/* a sub-watch's own directory is its object */
		if (strcmp(path, m->canon) == 0)
			return true;
		if (m->is_dir && path_in(path, m->canon, false, false)) {
			*child = true;
			return true;
		}
		return false;
	case SCOPE_FSID: {
		const struct fsn_event *ev = x->ev;
		const int32_t *fsid = (ev->has & FSN_HAS_DFID)  ? ev->dfid.fsid
				      : (ev->has & FSN_HAS_FID) ? ev->fid.fsid
				      : (ev->has & FSN_HAS_NEW) ? ev->new_dfid.fsid
				      : (ev->has & FSN_HAS_OLD) ? ev->old_dfid.fsid
								: NULL;

		return fsid ? fsid_equal(fsid, m->fsid) : true;
	}
	}
	return false;
}

/* An inode mark knows its object by FID, whatever its path is now (moved,
 * deleted): 1 when the event is the object's own (*child false) or one of
 * a marked directory's entries (*child true), 0 when it is not the mark's,
 * -1 when that cannot be told (no FID to compare). */
static int object_scope(const struct emark *m, const struct fsn_event *ev, bool *child) {
	bool self_name = !(ev->has & FSN_HAS_NAME) || !ev->name || strcmp(ev->name, ".") == 0;

	*child = false;
	if (!m->have_handle || ev->source != FSN_SOURCE_FANOTIFY)
		return -1;
	if ((ev->has & FSN_HAS_FID) && fid_equal(&ev->fid, &m->fid))
		return 1;
	if ((ev->has & FSN_HAS_DFID) && fid_equal(&ev->dfid, &m->fid)) {
		*child = !self_name;
		return 1;
	}
	if (((ev->has & FSN_HAS_OLD) && fid_equal(&ev->old_dfid, &m->fid)) ||
	    ((ev->has & FSN_HAS_NEW) && fid_equal(&ev->new_dfid, &m->fid))) {
		*child = true;
		return 1;
	}
	return (ev->has & (FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_OLD | FSN_HAS_NEW)) ? 0 : -1;
}

static bool excluded(const struct erule *r, const char *path) {
	if (!path)
		return false;
	for (size_t i = 0; i < r->conf->n_exclude; i++) {
		const char *x = r->conf->exclude[i];

		if (is_glob(x)) {
			if (fnmatch(x, path, 0) == 0)
				return true;
		} else if (path_in(path, x, true, true) ||
			   (r->excl_canon[i] && path_in(path, r->excl_canon[i], true, true)))
			return true;
	}
	return false;
}

static struct proc_info *evinfo_proc(struct engine *e, struct evinfo *x) {
	if (!x->proc && x->ev->source == FSN_SOURCE_FANOTIFY && x->ev->pid > 0)
		x->proc = pinfo_get(e, x->ev->pid);
	return x->proc;
}

static bool proc_filters_ok(struct engine *e, const struct rule_conf *rc, struct evinfo *x) {
	if (rc->n_pids == 0 && rc->n_comms == 0 && rc->n_uids == 0)
		return true;
	return proc_filters_match(evinfo_proc(e, x), rc->pids, rc->n_pids, rc->comms, rc->n_comms,
				  rc->uids, rc->n_uids);
}

/* The daemon's own exec children (their parent is the daemon). */
static bool own_child(struct engine *e, struct evinfo *x) {
	if (!x->proc_checked) {
		struct proc_info *p = evinfo_proc(e, x);

		x->proc_checked = true;
		x->own = e->has_exec && proc_info_status(p) && p->ppid == e->self;
	}
	return x->own;
}

/* Try one mark for the event; report it for the mark's rule. */
static void match_mark(struct engine *e, const struct emark *m, struct evinfo *x) {
	struct erule *r = m->rule;
	const struct rule_conf *rc = r->conf;
	bool child = false, ochild = false, in, oin;
	uint64_t bits;
	struct record rec;
	struct proc_info *p;

	if (r->seen == e->seq)
		return; /* already reported for this rule */
	bits = x->bits & rc->events;
	if (!bits)
		return;
	if (x->ondir && !rc->ondir)
		return;
	switch (m->scope == SCOPE_OBJECT && !m->parent ? object_scope(m, x->ev, &child) : -1) {
	case 0: return;
	case 1:
		in = true;
		oin = false;
		break;
	default:
		in = in_scope(m, x, x->path, &child);
		oin = x->old_path && in_scope(m, x, x->old_path, &ochild);
		if (!in && !oin)
			return;
	}
	/* one move seen from both sides: each side counts where it is in scope */
	if (x->paired) {
		if (!in)
			bits &= ~(uint64_t)FAN_MOVED_TO;
		if (!oin)
			bits &= ~(uint64_t)FAN_MOVED_FROM;
		if (!bits)
			return;
	}
	/* a direct child's own events (not entries of the directory) need
	 * `children` */
	if (!rc->children && ((in && child) || (!in && ochild)))
		bits &= DIRENT_BITS;
	if (!bits)
		return;
	r->seen = e->seq;

	if (excluded(r, x->path) && (!x->old_path || excluded(r, x->old_path))) {
		r->stats.filtered++;
		return;
	}
	if (!proc_filters_ok(e, rc, x)) {
		r->stats.filtered++;
		return;
	}
	if (own_child(e, x))
		return;
	if (!rate_ok(e, r))
		return;

	p = evinfo_proc(e, x);
	rec = (struct record){
		.kind = RECORD_EVENT,
		.time_usec = now_realtime_usec(),
		.rule = rc->name,
		.mask = bits | (x->ondir ? FAN_ONDIR : 0),
		.path = x->path,
		.old_path = x->old_path,
		.pid = x->ev->source == FSN_SOURCE_FANOTIFY ? x->ev->pid : 0,
		.comm = proc_info_comm(p),
		.uid = proc_info_status(p) ? p->uid : (uid_t)-1,
	};
	r->stats.events++;
	e->events++;
	emit(e, r, &rec);
}

/* Whether the event's group sees every directory move on the filesystem
 * of fsid (a filesystem mark there with moved_from on directories): then
 * directory paths of its events can be cached in e->dirs.
 *
 * That cache keeps the path a directory's handle resolved to until the group
 * reports that the directory (or one above it) moved or went. Resolving a
 * handle costs open_by_handle_at() and a readlink() per event; a storm of
 * events in a few directories needs it once per directory. It is only right
 * for a group that sees every directory rename on the filesystem, and only
 * in the order of that group's own queue: hence the group's id as the tag,
 * and all of a group's entries forgotten when its queue overflows. */
static bool dir_moves_seen(const struct engine *e, const struct fsn_event *ev,
			   const int32_t fsid[2]) {
	unsigned klass, report, tag;

	if (!ev->group)
		return false;
	klass = fsn_group_get_class(ev->group);
	report = fsn_group_get_report(ev->group);
	tag = fsn_group_get_tag(ev->group);
	for (size_t i = 0; i < e->st.n_marks; i++) {
		const struct emark *m = e->st.marks[i];

		if (m->mark && m->spec.type == FSN_MARK_FILESYSTEM && m->spec.klass == klass &&
		    m->spec.report == report && m->spec.group_tag == tag &&
		    fsid_equal(m->fsid, fsid) && (m->placed_mask & FAN_MOVED_FROM) &&
		    (m->placed_mask & FAN_ONDIR))
			return true;
	}
	return false;
}

/* The path of dfid's entry name: the directory's path from the cache of
 * group gid (0: not cacheable), else resolved (and then cached). */
static int dir_entry_path(struct engine *e, unsigned gid, const struct fsn_fid *dfid,
			  const char *name, char *buf, size_t len) {
	const char *dir = gid ? fsn_fidcache_get(e->dirs, gid, dfid) : NULL;
	char tmp[PATH_MAX];
	bool deleted = false;
	int r;

	if (dir)
		return join_name(dir, name, buf, len);
	if (!gid)
		return fsn_ctx_fid_path(e->ctx, dfid, name, buf, len, NULL);
	r = fsn_ctx_fid_path(e->ctx, dfid, NULL, tmp, sizeof(tmp), &deleted);
	if (r < 0)
		return r;
	if (!deleted)
		(void)fsn_fidcache_put(e->dirs, gid, dfid, tmp); /* best effort */
	return join_name(tmp, name, buf, len);
}

/* Resolve a fanotify event's paths into buffers. Its directory handles are
 * all on one filesystem: whether its group's cache serves them is asked
 * once. */
static void resolve_fanotify(struct engine *e, struct fsn_event *ev, char *path, char *old,
			     size_t len, struct evinfo *x) {
	const struct fsn_fid *any = (ev->has & FSN_HAS_DFID)  ? &ev->dfid
				    : (ev->has & FSN_HAS_NEW) ? &ev->new_dfid
				    : (ev->has & FSN_HAS_OLD) ? &ev->old_dfid
							      : NULL;
	unsigned gid =
	    any && ev->group && dir_moves_seen(e, ev, any->fsid) ? fsn_group_get_id(ev->group) : 0;

	if ((ev->has & FSN_HAS_NEW) &&
	    dir_entry_path(e, gid, &ev->new_dfid, ev->new_name, path, len) >= 0)
		x->path = path;
	if ((ev->has & FSN_HAS_OLD) &&
	    dir_entry_path(e, gid, &ev->old_dfid, ev->old_name, old, len) >= 0) {
		if (x->path)
			x->old_path = old;
		else
			x->path = old;
	}
	if (!x->path && (ev->has & FSN_HAS_DFID) &&
	    dir_entry_path(e, gid, &ev->dfid, (ev->has & FSN_HAS_NAME) ? ev->name : NULL, path,
			   len) >= 0)
		x->path = path;
	if (!x->path && (ev->has & FSN_HAS_FID) &&
	    fsn_ctx_fid_path(e->ctx, &ev->fid, NULL, path, len, NULL) >= 0)
		x->path = path;
	if (!x->path && ev->fd >= 0 && fsn_ctx_fd_path(e->ctx, ev->fd, path, len, NULL) >= 0)
		x->path = path;
}

static void on_fanotify(struct engine *e, struct fsn_event *ev) {
	char path[PATH_MAX], old[PATH_MAX];
	struct evinfo x = { .ev = ev };
	unsigned klass, report, tag;

	if (ev->mask & FAN_Q_OVERFLOW) {
		/* directory moves may be among what was lost */
		if (ev->group)
			fsn_fidcache_forget_tag(e->dirs, fsn_group_get_id(ev->group));
		report_overflow(e, ev);
		return;
	}
	if (ev->pid == e->self)
		return; /* the daemon's own activity */
	x.bits = ev->mask & EVENT_BITS;
	x.ondir = ev->mask & FAN_ONDIR;
	if (!x.bits)
		return;
	resolve_fanotify(e, ev, path, old, sizeof(path), &x);
	if (log_get_level() >= LOG_DEBUG) {
		char ev_names[256], p1[PATH_MAX], p2[PATH_MAX];

		format_events(ev->mask, ev_names, sizeof(ev_names));
		log_debug("fanotify event %s (info 0x%x) of pid %d: %s%s%s", ev_names, ev->has,
			  (int)ev->pid, text_escaped(p1, sizeof(p1), x.path),
			  x.old_path ? " from " : "",
			  x.old_path ? text_escaped(p2, sizeof(p2), x.old_path) : "");
	}
	/* a directory renamed or moved: cached paths below it are stale */
	if (x.ondir && (ev->mask & (FAN_MOVED_FROM | FAN_RENAME | FAN_MOVE_SELF)) &&
	    (ev->has & FSN_HAS_FID))
		fsn_ctx_fid_forget(e->ctx, &ev->fid);
	if (x.ondir && ev->group && (ev->mask & (FAN_MOVED_FROM | FAN_RENAME | FAN_DELETE))) {
		const char *gone = (ev->mask & FAN_RENAME) && x.old_path ? x.old_path : x.path;

		if (gone)
			fsn_fidcache_forget_path(e->dirs, fsn_group_get_id(ev->group), gone);
	}
	/* a planned inode mark's object went: watch the path again */
	if (ev->mask & (FAN_DELETE_SELF | FAN_MOVE_SELF))
		for (size_t i = 0; i < e->st.n_marks; i++) {
			struct emark *m = e->st.marks[i];
			bool child;

			if (m->mark && m->spec.type == FSN_MARK_INODE && m->spec.mask &&
			    object_scope(m, ev, &child) == 1 && !child)
				mark_gone(e, m,
					  (ev->mask & FAN_DELETE_SELF) ? GONE_DELETED : GONE_MOVED,
					  NULL);
		}
	/* gone, but one of ours: it has the path it was marked with */
	for (size_t i = 0; !x.path && i < e->st.n_marks; i++) {
		const struct emark *m = e->st.marks[i];
		bool child;

		if (m->mark && m->spec.mask && object_scope(m, ev, &child) == 1 && !child)
			x.path = m->canon;
	}
	if (!x.path) {
		e->unresolved++;
		log_debug("fanotify event %" PRIx64 " of pid %d: cannot resolve its path", ev->mask,
			  (int)ev->pid);
		return;
	}

	klass = ev->group ? fsn_group_get_class(ev->group) : 0;
	report = ev->group ? fsn_group_get_report(ev->group) : 0;
	tag = ev->group ? fsn_group_get_tag(ev->group) : 0;
	for (size_t i = 0; i < e->st.n_marks; i++) {
		const struct emark *m = e->st.marks[i];

		/* (exclusions: ignore marks, mask 0, report nothing) */
		if (!m->mark || m->spec.mask == 0 || m->spec.type == FSN_MARK_INOTIFY ||
		    m->spec.klass != klass || m->spec.report != report || m->spec.group_tag != tag)
			continue;
		match_mark(e, m, &x);
	}
}

/* Recursive inotify trees follow directory creation and moves. */
static void inotify_tree(struct engine *e, struct emark *m, const struct fsn_event *ev,
			 const char *path) {
	struct emark *root = m->parent ? m->parent : m;
	/* a tree being loaded follows its directories too, silently; a retired
	 * one no longer */
	bool fresh = emark_fresh(root) && e->load;
	struct state *s = fresh ? &e->load->s : &e->st;

	if (root->retired || !(root->subtree_recursive && root->spec.type == FSN_MARK_INOTIFY) ||
	    !(ev->mask & IN_ISDIR) || !ev->name)
		return;
	if (ev->mask & IN_MOVED_FROM) {
		/* where to? the IN_MOVED_TO with this cookie says, if any */
		free(e->move.path);
		e->move.path = strdup(path);
		e->move.cookie = ev->cookie;
	} else if (ev->mask & IN_MOVED_TO) {
		if (e->move.path && e->move.cookie == ev->cookie) {
			for (size_t i = 0; i < e->st.n_marks; i++)
				if (e->st.marks[i]->n_subs > 0)
					tree_rename(e->st.marks[i], e->move.path, path);
			free(e->move.path);
			e->move.path = NULL;
		}
		if (!has_sub(root, path))
			tree_add(e, s, root, path, true, false);
	} else if (ev->mask & IN_CREATE)
		tree_add(e, s, root, path, true, !fresh);
}

/* A directory moved away with no IN_MOVED_TO to follow: out of the tree. */
static void settle_move(struct engine *e, const struct fsn_event *ev) {
	if (!e->move.path ||
	    (ev && ev->source == FSN_SOURCE_INOTIFY && ev->cookie == e->move.cookie))
		return;
	for (size_t i = 0; i < e->st.n_marks; i++)
		if (e->st.marks[i]->n_subs > 0)
			tree_remove(e, e->st.marks[i], e->move.path);
	free(e->move.path);
	e->move.path = NULL;
}

/* The watch of m is gone (IN_IGNORED): deleted, unmounted, or moved away. */
static void inotify_gone(struct engine *e, struct emark *m) {
	unsigned *count = emark_fresh(m) && e->load ? &e->load->s.n_placed : &e->st.n_placed;

	if (m->parent) {
		struct emark *root = m->parent;

		emark_unplace(e, m, count);
		sub_remove(root, m);
		emark_free(m);
		return;
	}
	emark_unplace(e, m, count);
	if (emark_fresh(m))
		return;                      /* (the loader logs what it could not place) */
	mark_gone(e, m, GONE_DELETED, NULL); /* (unless an event before said why) */
}

/* Match x against every mark on the watched inode dev:ino. */
static void match_watch(struct engine *e, dev_t dev, ino_t ino, struct evinfo *x) {
	if (!e->ihash)
		return;
	for (struct emark *o = e->ihash[ihash_slot(e, dev, ino)]; x->bits && o; o = o->hnext)
		if (o->dev == dev && o->ino == ino && o->mark && !emark_fresh(o))
			match_mark(e, o, x);
}

/* The held IN_MOVED_FROM, reported alone: no IN_MOVED_TO followed (moved
 * out of every watched directory). Takes a sequence number of its own. */
static void flush_from(struct engine *e) {
	struct pending_from *f = &e->from;
	struct evinfo x = { .ev = &f->ev };

	if (!f->set)
		return;
	f->set = false;
	x.bits = FAN_MOVED_FROM;
	x.ondir = f->ev.mask & IN_ISDIR;
	x.path = f->path;
	e->seq++;
	match_watch(e, f->dev, f->ino, &x);
	free(f->path);
	f->path = NULL;
}

static void on_inotify(struct engine *e, struct fsn_event *ev) {
	char path[PATH_MAX];
	struct evinfo x = { .ev = ev };
	struct emark *m;

	if (e->from.set && !((ev->mask & IN_MOVED_TO) && ev->cookie == e->from.cookie)) {
		flush_from(e);
		e->seq++; /* this event's own */
	}
	if (ev->mask & IN_Q_OVERFLOW) {
		report_overflow(e, ev);
		return;
	}
	m = ev->mark ? fsn_mark_get_userdata(ev->mark) : NULL;
	if (!m || !m->canon)
		return;
	if (e->waiting.n > 0 && (ev->mask & (IN_CREATE | IN_MOVED_TO)) && ev->name) {
		char made[PATH_MAX];

		/* (whichever mark on the directory the event came by) */
		if (join_name(m->canon, ev->name, made, sizeof(made)) >= 0 &&
		    strmap_value_str(&e->waiting, made)) {
			log_info("\"%s\" appeared: placing the rules again", made);
			rearm_soon(e);
		}
	}
	if (m->waiter) {
		struct emark *o = NULL;

		if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
			/* the directory waited in went: wait higher up */
			rearm_soon(e);
		}
		/* one kernel watch serves every mark on the directory, and the
		 * event may have come by the waiter's: a rule's watch there
		 * gets it */
		for (o = e->ihash ? e->ihash[ihash_slot(e, m->dev, m->ino)] : NULL; o; o = o->hnext)
			if (o->dev == m->dev && o->ino == m->ino && o->mark && !o->waiter)
				break;
		if (!o)
			return;
		m = o;
	}
	settle_move(e, ev);
	if (ev->mask & IN_IGNORED) {
		/* every mark on that watch is dead */
		dev_t dev = m->dev;
		ino_t ino = m->ino;
		struct emark *n;

		for (struct emark *o = e->ihash[ihash_slot(e, dev, ino)]; o; o = n) {
			n = o->hnext;
			if (o->dev == dev && o->ino == ino)
				inotify_gone(e, o);
		}
		return;
	}
	if (ev->mask & IN_UNMOUNT) {
		/* its filesystem went: IN_IGNORED follows */
		for (struct emark *o = e->ihash[ihash_slot(e, m->dev, m->ino)]; o; o = o->hnext)
			if (o->dev == m->dev && o->ino == m->ino && !o->parent)
				mark_gone(e, o, GONE_UNMOUNTED,
					  mountwatch_point(e->mounts, o->mnt_id));
		return;
	}
	/* a planned watch's object went or moved away: watch the path again
	 * (IN_IGNORED follows a deletion, see inotify_gone()) */
	if ((ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) && !m->parent)
		mark_gone(e, m, (ev->mask & IN_DELETE_SELF) ? GONE_DELETED : GONE_MOVED, NULL);

	(void)join_name(m->canon, ev->name, path, sizeof(path)); /* (cut at PATH_MAX) */
	x.path = path;
	x.bits = ev->mask & EVENT_BITS & 0xfff;
	x.ondir = ev->mask & IN_ISDIR;

	/* A move comes as IN_MOVED_FROM and IN_MOVED_TO with one cookie, next
	 * to each other when both directories are watched: hold the first,
	 * report the pair as one move with both paths. */
	if (ev->mask & IN_MOVED_FROM) {
		char *copy = strdup(path);

		if (copy) {
			e->from = (struct pending_from){
				.set = true,
				.ev = *ev,
				.cookie = ev->cookie,
				.path = copy,
				.dev = m->dev,
				.ino = m->ino,
			};
			e->from.ev.name = NULL;
			e->from.ev.mark = NULL;
			e->from.ev.group = NULL;
			inotify_tree(e, m, ev, path);
			return;
		}
	} else if ((ev->mask & IN_MOVED_TO) && e->from.set) {
		struct pending_from f = e->from;

		e->from.set = false;
		e->from.path = NULL;
		x.old_path = f.path;
		x.paired = true;
		x.bits |= FAN_MOVED_FROM;
		match_watch(e, m->dev, m->ino, &x);
		match_watch(e, f.dev, f.ino, &x);
		inotify_tree(e, m, ev, path);
		free(f.path);
		return;
	}

	/* created, found by the scan of its new directory, reported already */
	if ((ev->mask & IN_CREATE) && synth_seen(e, path))
		x.bits &= ~(uint64_t)IN_CREATE;

	/* the daemon's own writes, and its (re)creation of an output file on
	 * SIGUSR1 (fanotify knows them by pid) */
	if (x.bits && e->n_own > 0 && !x.ondir &&
	    (x.bits & (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_OPEN | IN_ACCESS |
		       IN_CLOSE_NOWRITE | IN_CREATE)) &&
	    own_file(e, path))
		x.bits = 0;
	for (struct emark *o = e->ihash[ihash_slot(e, m->dev, m->ino)]; x.bits && o; o = o->hnext)
		if (o->dev == m->dev && o->ino == m->ino && o->mark && !emark_fresh(o))
			match_mark(e, o, &x);
	/* after the directory's own event: what it finds inside comes later */
	inotify_tree(e, m, ev, path);
}

/* Paths reported as created by a scan of a new directory, remembered so
 * that the kernel's own IN_CREATE for the same entry (created after the
 * watch was placed, before the scan read it) is not reported again. A
 * small direct-mapped set: a collision forgets one path, which can only
 * cause a duplicate, never a loss. */
static size_t synth_slot(const char *path) {
	return (size_t)(hash_bytes(HASH_INIT, path, strlen(path)) % SYNTH_SLOTS);
}

static void synth_remember(struct engine *e, const char *path) {
	size_t i = synth_slot(path);

	free(e->synth[i]);
	e->synth[i] = strdup(path);
}

/* A real IN_CREATE of an entry a scan reported already: forget it, true. */
static bool synth_seen(struct engine *e, const char *path) {
	size_t i = synth_slot(path);

	if (!e->synth[i] || strcmp(e->synth[i], path) != 0)
		return false;
	free(e->synth[i]);
	e->synth[i] = NULL;
	return true;
}

/* An entry found in a directory of a recursive inotify tree that was
 * created before the directory's watch could report it. */
static void synth_create(struct engine *e, struct emark *root, const char *path, bool is_dir) {
	struct fsn_event fev = {
		.source = FSN_SOURCE_INOTIFY,
		.mask = IN_CREATE | (is_dir ? IN_ISDIR : 0),
		.fd = -1,
		.wd = -1,
	};
	struct evinfo x = {
		.ev = &fev,
		.bits = FAN_CREATE,
		.ondir = is_dir,
		.path = path,
	};
	size_t i = synth_slot(path);

	if (e->synth[i] && strcmp(e->synth[i], path) == 0)
		return; /* a scan reported it already */

	e->seq++;
	match_mark(e, root, &x);
	synth_remember(e, path);
}

static int on_event(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct engine *e = userdata;

	e->handled++;
	e->seq++;
	if (ev->source == FSN_SOURCE_INOTIFY)
		on_inotify(e, ev);
	else
		on_fanotify(e, ev); /* (a held inotify move waits for inotify's next event) */
	if (e->budget > 0 && --e->budget == 0)
		return -EAGAIN; /* give the loop a turn; the rest stays queued */
	return 0;
}

/* Handle what is queued, at most budget events (0: no limit). Returns the
 * number handled, or -errno. */
static int engine_dispatch(struct engine *e, unsigned budget) {
	int r;

	e->budget = budget;
	e->pcache_n = 0;
	r = fsn_ctx_dispatch(e->ctx, on_event, e);
	e->budget = 0;
	if (r == -EAGAIN)
		return (int)budget; /* more may be queued */
	/* An IN_MOVED_FROM read last may have its IN_MOVED_TO a moment
	 * behind (the kernel queues them one after the other): decide
	 * "moved out" only if nothing came by then. */
	if ((e->from.set || e->move.path) && !ev_is_active(&e->move_timer))
		ev_timer_start(e->loop, &e->move_timer);
	if (r >= 0)
		e->drained_usec = now_realtime_usec(); /* read empty (see report_overflow()) */
	if (r < 0)
		log_error("reading events: %s", strerror(-r));
	return r;
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents) {
	engine_dispatch(w->data, DISPATCH_BUDGET);
}

/* No IN_MOVED_TO followed the held IN_MOVED_FROM: it moved out. */
static void on_move_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;

	flush_from(e);
	settle_move(e, NULL);
}

/* ------------------------------------------------------------------------ */
/* permission rules                                                         */
/* ------------------------------------------------------------------------ */

static struct erule *find_erule(struct engine *e, const char *name) {
	for (size_t i = 0; name && i < e->st.n_rules; i++)
		if (strcmp(e->st.rules[i].conf->name, name) == 0)
			return &e->st.rules[i];
	return NULL;
}

static void retired_free(struct retired *t) {
	free(t->rule);
	strv_free(t->outputs, t->n_outputs);
}

/* Remember the old state's permission rules the new one does not keep. */
static void retire_perm(struct engine *e, const struct state *old) {
	for (size_t i = 0; i < old->n_perm; i++) {
		const struct erule *r = NULL;
		struct retired t = { 0 };

		if (old->perm[i].kept)
			continue;
		for (size_t j = 0; j < old->n_rules && !r; j++)
			if (old->rules[j].conf == old->perm[i].conf)
				r = &old->rules[j];
		if (!r)
			continue;
		if (e->n_retired == MAX_RETIRED) {
			retired_free(&e->retired[0]);
			memmove(e->retired, e->retired + 1, --e->n_retired * sizeof(*e->retired));
		} else {
			struct retired *v = realloc(e->retired, (e->n_retired + 1) * sizeof(*v));

			if (!v)
				return;
			e->retired = v;
		}
		t.rule = strdup(r->conf->name);
		t.outputs = calloc(r->n_outputs + 1, sizeof(char *));
		for (size_t j = 0; t.outputs && j < r->n_outputs; j++)
			if ((t.outputs[j] = strdup(r->outputs[j]->name)))
				t.n_outputs++;
		if (!t.rule || !t.outputs) {
			retired_free(&t);
			return;
		}
		e->retired[e->n_retired++] = t;
	}
}

/* A record of rule name (r: that rule, already looked up, or NULL): to the
 * rule's outputs, or to those of the same names as a retired rule's; false
 * if neither exists. */
static bool emit_named(struct engine *e, struct erule *r, const char *name,
		       const struct record *rec) {
	if (r) {
		emit(e, r, rec);
		return true;
	}
	for (size_t i = e->n_retired; name && i-- > 0;) {
		struct retired *t = &e->retired[i];
		struct eoutput *outs[16];
		size_t n = 0;

		if (strcmp(t->rule, name) != 0)
			continue;
		for (size_t j = 0; j < t->n_outputs && n < ELEMENTSOF(outs); j++) {
			struct eoutput *o =
			    find_eoutput(e->st.outputs, e->st.n_outputs, t->outputs[j]);

			if (o)
				outs[n++] = o;
		}
		emit_to(e, outs, n, rec);
		return n > 0;
	}
	return false;
}

/* What the guard thread hands over, in the main loop. */
static void on_guard_report(const struct guard_report *g, void *userdata) {
	struct engine *e = userdata;
	struct erule *r = find_erule(e, g->rule);
	char f_rule[300], v[64];
	const char *fields[2] = { f_rule, NULL };
	struct perm_counts pc;
	struct record rec;

	switch (g->kind) {
	case GUARD_REPORT_LOG: log_msg(g->priority, "%s", g->msg); return;
	case GUARD_REPORT_OVERFLOW:
		e->overflows++;
		snprintf(f_rule, sizeof(f_rule), "FSN_RULE=%s", g->rule ? g->rule : "");
		log_notable(LOG_WARNING, FSND_MID_OVERFLOW, fields,
			    "rule '%s': the permission queue overflowed: the kernel allowed the "
			    "events it could not queue, unanswered",
			    g->rule ? g->rule : "?");
		if (!r)
			return;
		r->stats.overflows++;
		rec = (struct record){ .kind = RECORD_OVERFLOW,
				       .time_usec = g->time_usec,
				       .rule = r->conf->name,
				       .mask = FAN_Q_OVERFLOW,
				       .uid = (uid_t)-1 };
		emit(e, r, &rec);
		return;
	case GUARD_REPORT_STATS:
		pc = (struct perm_counts){ .allowed = g->stats.allowed,
					   .denied = g->stats.denied,
					   .audited = g->stats.audited,
					   .deadline = g->stats.deadline,
					   .latency_p50_us = g->stats.latency_p50_us,
					   .latency_p99_us = g->stats.latency_p99_us };
		if (r)
			r->last_perm = pc;
		rec = (struct record){ .kind = RECORD_STATS,
				       .time_usec = g->time_usec,
				       .rule = g->rule,
				       .uid = (uid_t)-1,
				       .perm = &pc };
		emit_named(e, r, g->rule, &rec);
		return;
	case GUARD_REPORT_DECISION:
		e->decisions++;
		if (r && !rate_ok(e, r))
			return;
		rec = (struct record){
			.kind = RECORD_DECISION,
			.time_usec = g->time_usec,
			.rule = g->rule,
			.mask = g->mask,
			.path = g->path,
			.pid = g->pid,
			.comm = g->comm,
			.uid = g->uid,
			.exe = g->exe,
			.verdict = &g->verdict,
			.by = g->by,
			.decision = g->decision,
			.latency_us = g->latency_us,
		};
		if (r)
			r->stats.events++;
		if (!emit_named(e, r, g->rule, &rec))
			log_msg(LOG_NOTICE,
				"rule '%s' (gone since a reload): %s \"%s\" of pid %d (by %s)",
				g->rule, verdict_format(&g->verdict, v, sizeof(v)),
				text_escaped(f_rule, sizeof(f_rule), g->path), (int)g->pid, g->by);
		return;
	}
}

static void eperm_done(struct eperm *p) {
	policy_free(p->pol);
	free(p->sig);
	free(p->devs);
	free(p->inos);
}

/* The rule's planned marks in words (reload: equal words, same marks). */
static char *perm_sig(const struct plan *p, const struct config *c, const struct rule_conf *rc) {
	char *buf = NULL;
	size_t len = 0, first, n;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	rule_marks(p, c, rc, &first, &n);
	for (size_t i = first; i < first + n; i++) {
		const struct plan_mark *m = &p->marks[i];
		const struct fsn_mark_spec *sp = &m->spec;

		fprintf(f, "%s|%d|%d|%u|%u|%" PRIx64 "|%" PRIx64 "|%u|%s|%d\n", m->path,
			(int)sp->type, (int)sp->klass, sp->report, sp->group_tag, sp->mask,
			sp->ignore, sp->flags, m->subtree ? m->subtree : "", m->subtree_recursive);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Kept across a reload: same name, same planned marks, on the same objects. */
static struct eperm *find_old_perm(const struct state *old, const struct rule_conf *rc,
				   const char *sig) {
	for (size_t i = 0; old && i < old->n_perm; i++) {
		struct eperm *p = &old->perm[i];
		bool same =
		    !p->kept && strcmp(p->conf->name, rc->name) == 0 && strcmp(p->sig, sig) == 0;
		size_t k = 0, first, n;

		rule_marks(old->plan, old->config, p->conf, &first, &n);
		for (size_t j = first; same && j < first + n; j++) {
			const struct plan_mark *m = &old->plan->marks[j];
			struct stat st;

			same = k < p->n_objs && stat(m->path, &st) == 0 &&
			       st.st_dev == p->devs[k] &&
			       (m->spec.type != FSN_MARK_INODE || st.st_ino == p->inos[k]);
			k++;
		}
		if (same)
			return p;
	}
	return NULL;
}

/* Place a permission rule's planned marks in a new guard rule. A mark that
 * cannot be placed is logged; for a required rule it fails the state. */
/* Start placing a permission rule's planned marks in a new guard rule:
 * perm_place_mark() for each of them then. */
static int perm_place_begin(struct engine *e, struct state *s, struct eperm *ep) {
	size_t first, n;
	int k;

	rule_marks(s->plan, s->config, ep->conf, &first, &n);
	k = guard_rule_new(ep->conf->name, on_fsn_log, e, &ep->gr);
	if (k < 0)
		return k;
	ep->fresh = true;
	ep->devs = calloc(n + 1, sizeof(dev_t));
	ep->inos = calloc(n + 1, sizeof(ino_t));
	if (!ep->devs || !ep->inos)
		return -ENOMEM;
	return 0;
}

/* Place planned mark pm of permission rule ep. A mark that cannot be placed
 * is logged; for a required rule it fails the state. */
static int perm_place_mark(struct engine *e, struct state *s, struct eperm *ep,
			   const struct plan_mark *pm, char *err, size_t errlen) {
	const struct rule_conf *rc = ep->conf;
	struct erule *r = state_rule(s, rc);
	char why[1536] = "", esc[PATH_MAX * 2];
	struct stat st;
	int k;

	if (stat(pm->path, &st) == 0) {
		ep->devs[ep->n_objs] = st.st_dev;
		ep->inos[ep->n_objs] = st.st_ino;
	}
	ep->n_objs++;
	e->captured[0] = '\0';
	if (s->config->max_marks > 0 && s->n_placed >= s->config->max_marks) {
		snprintf(why, sizeof(why), "max_marks (%u) reached: \"%s\" is not guarded",
			 s->config->max_marks, text_escaped(esc, sizeof(esc), pm->path));
		k = -ENOSPC;
	} else if (pm->spec.type == FSN_MARK_MOUNT && e->foreign_mntns == 1) {
		snprintf(why, sizeof(why),
			 "mount mark on \"%s\" refused: fsnotifyd runs in a mount "
			 "namespace of its own; use mark = \"filesystem\"",
			 text_escaped(esc, sizeof(esc), pm->path));
		k = -EXDEV;
	} else {
		e->capturing = true;
		k = guard_rule_add_mark(ep->gr, &pm->spec);
		e->capturing = false;
	}
	if (k >= 0) {
		s->n_placed++;
		if (r)
			r->n_marks++;
		return 0;
	}
	if (r)
		r->n_failed++;
	if (!why[0])
		snprintf(why, sizeof(why), "%s", e->captured[0] ? e->captured : strerror(-k));
	log_error("rule '%s': %s%s", rc->name, why, rc->required ? " (the rule is required)" : "");
	if (rc->required) {
		snprintf(err, errlen, "required rule '%s' cannot be placed: %s", rc->name, why);
		return -EINVAL;
	}
	return 0;
}

/* The permission rules of the new state, step by step (the loader's
 * batches): perm_begin(), perm_rule() for each rule of the config (kept
 * from the old state, or *place set: perm_place_mark() for each of its
 * marks), perm_end(). */
static int perm_begin(struct engine *e, struct state *s) {
	const struct config *c = s->config;
	bool pre_access = false;

	s->perm = calloc(c->n_rules + 1, sizeof(*s->perm));
	if (!s->perm)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_rules; i++)
		pre_access =
		    pre_access || (c->rules[i].perm && (c->rules[i].events & FAN_PRE_ACCESS));
	/* A pre-content mark also catches page faults on the files it covers:
	 * with the daemon's own pages locked in memory (before any new mark is
	 * placed: locking faults them in), its threads never fault on a
	 * guarded file and wait for themselves. */
	if (pre_access && !e->mlocked) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
			log_warning(
			    "pre_access rules: cannot lock the daemon's memory (%s); a page "
			    "fault of the daemon on a guarded file would wait for the daemon",
			    strerror(errno));
		else
			e->mlocked = true;
	}
	return 0;
}

/* Rule i of the config: nothing (not a permission rule), kept from old, or
 * a new guard rule whose marks are to be placed (*place). */
static int perm_rule(struct engine *e, struct state *s, const struct state *old, size_t i,
		     struct eperm **place) {
	const struct rule_conf *rc = &s->config->rules[i];
	struct eperm *ep, *prev;

	*place = NULL;
	if (!rc->perm)
		return 0;
	ep = &s->perm[s->n_perm++];
	ep->conf = rc;
	ep->sig = perm_sig(s->plan, s->config, rc);
	if (!ep->sig)
		return -ENOMEM;
	prev = find_old_perm(old, rc, ep->sig);
	if (prev) {
		struct erule *r = state_rule(s, rc);

		prev->kept = true;
		ep->gr = prev->gr;
		ep->devs = calloc(prev->n_objs + 1, sizeof(dev_t));
		ep->inos = calloc(prev->n_objs + 1, sizeof(ino_t));
		if (!ep->devs || !ep->inos)
			return -ENOMEM;
		memcpy(ep->devs, prev->devs, prev->n_objs * sizeof(dev_t));
		memcpy(ep->inos, prev->inos, prev->n_objs * sizeof(ino_t));
		ep->n_objs = prev->n_objs;
		s->n_placed += guard_rule_n_marks(ep->gr);
		if (r)
			r->n_marks += guard_rule_n_marks(ep->gr);
		return 0;
	}
	*place = ep;
	return perm_place_begin(e, s, ep);
}

static int perm_end(struct engine *e, struct state *s, char *err, size_t errlen) {
	int k;

	if (s->n_perm > 0 && !e->guard) {
		k = guard_new(e->loop, on_guard_report, e, &e->guard);
		if (k < 0) {
			snprintf(err, errlen, "starting the permission thread: %s", strerror(-k));
			return k;
		}
	}
	return 0;
}

/* path is the root of a mount that shows its whole filesystem (its root
 * field in mountinfo is "/"): a recursive filesystem mark there asks about
 * nothing outside the rule's scope. */
static bool whole_filesystem(const char *path) {
	struct statx sx;
	char line[4096];
	bool whole = false;
	FILE *f;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &sx) < 0 || !(sx.stx_mask & STATX_MNT_ID) ||
	    !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long id;
		char root[8];

		if (sscanf(line, "%llu %*u %*u:%*u %7s", &id, root) == 2 && id == sx.stx_mnt_id) {
			whole = strcmp(root, "/") == 0;
			break;
		}
	}
	fclose(f);
	return whole;
}

/* The scopes of a permission rule's policy: where its marks reach. None
 * (so no path is needed for the scope) when every mark delivers only what
 * is in scope: inode marks (the kernel delivers only their objects) and
 * recursive filesystem marks on the root of a whole filesystem. */
static int perm_policy(const struct state *s, const struct eperm *ep, struct policy **ret) {
	const struct plan *p = s->plan;
	struct policy_scope *sc = calloc(p->n_marks + 1, sizeof(*sc));
	size_t n = 0, first, count;
	bool wide = false;
	int k;

	if (!sc)
		return -ENOMEM;
	rule_marks(p, s->config, ep->conf, &first, &count);
	for (size_t i = first; i < first + count; i++) {
		const struct plan_mark *pm = &p->marks[i];
		struct stat st;

		if (pm->spec.mask == 0)
			continue;
		wide = wide ||
		       (pm->subtree && !(pm->spec.type == FSN_MARK_FILESYSTEM &&
					 pm->subtree_recursive && whole_filesystem(pm->subtree)));
		sc[n++] = (struct policy_scope){
			.path = canonical(pm->subtree ? pm->subtree : pm->path),
			.recursive = pm->subtree && pm->subtree_recursive,
			.children = pm->subtree
					? !pm->subtree_recursive && !pm->children_dirent_only
					: stat(pm->path, &st) == 0 && S_ISDIR(st.st_mode) &&
					      ep->conf->children,
		};
	}
	k = policy_new(ep->conf, sc, wide ? n : 0, ret);
	for (size_t i = 0; i < n; i++)
		free((char *)sc[i].path);
	free(sc);
	return k;
}

/* Hand the new state's permission rules to the guard (the old state's
 * that were not kept retire there). */
static int perm_commit(struct engine *e, struct state *s) {
	struct guard_rule **rules;
	struct policy **pols;
	size_t n = 0;
	int k = 0;

	if (!e->guard)
		return 0;
	rules = calloc(s->n_perm + 1, sizeof(*rules));
	pols = calloc(s->n_perm + 1, sizeof(*pols));
	if (!rules || !pols)
		k = -ENOMEM;
	for (size_t i = 0; k >= 0 && i < s->n_perm; i++) {
		/* (computed by the loader's batches; else now) */
		if (s->perm[i].pol) {
			pols[n] = s->perm[i].pol;
			s->perm[i].pol = NULL;
		} else
			k = perm_policy(s, &s->perm[i], &pols[n]);
		if (k >= 0)
			rules[n++] = s->perm[i].gr;
	}
	if (k >= 0)
		k = guard_commit(e->guard, rules, pols, n);
	else
		for (size_t i = 0; i < n; i++)
			policy_free(pols[i]);
	for (size_t i = 0; i < s->n_perm; i++)
		s->perm[i].fresh = false;
	free(rules);
	free(pols);
	return k;
}

static void perm_free(struct state *s, bool discard_fresh) {
	for (size_t i = 0; i < s->n_perm; i++) {
		if (discard_fresh && s->perm[i].fresh)
			guard_rule_discard(s->perm[i].gr);
		eperm_done(&s->perm[i]);
	}
	free(s->perm);
	s->perm = NULL;
	s->n_perm = 0;
}

/* ------------------------------------------------------------------------ */
/* state building                                                           */
/* ------------------------------------------------------------------------ */

static void state_free_rules(struct state *s) {
	for (size_t i = 0; i < s->n_rules; i++) {
		strv_free(s->rules[i].excl_canon, s->rules[i].conf->n_exclude);
		free(s->rules[i].outputs);
	}
	free(s->rules);
	s->rules = NULL;
	s->n_rules = 0;
}

static int state_rules(struct state *s, const struct state *old) {
	const struct config *c = s->config;
	struct strmap old_rules = { 0 };
	int k = 0;

	s->rules = calloc(c->n_rules ? c->n_rules : 1, sizeof(*s->rules));
	if (!s->rules)
		return -ENOMEM;
	s->n_rules = c->n_rules;
	for (size_t j = 0; old && j < old->n_rules && k >= 0; j++)
		k = strmap_put_str(&old_rules, old->rules[j].conf->name, &old->rules[j]);
	if (k < 0) {
		strmap_done(&old_rules);
		return k;
	}
	for (size_t i = 0; i < c->n_rules; i++) {
		struct erule *r = &s->rules[i];

		r->conf = &c->rules[i];
		r->limit = r->conf->rate_limit ? r->conf->rate_limit : c->rate_limit;
		r->excl_canon = calloc(r->conf->n_exclude ? r->conf->n_exclude : 1, sizeof(char *));
		if (!r->excl_canon)
			return -ENOMEM;
		for (size_t j = 0; j < r->conf->n_exclude; j++) {
			if (is_glob(r->conf->exclude[j]))
				continue;
			r->excl_canon[j] = realpath(r->conf->exclude[j], NULL);
		}
		/* counters survive reloads, by rule name */
		{
			const struct erule *prev = strmap_value_str(&old_rules, r->conf->name);

			if (prev) {
				r->stats = prev->stats;
				r->last_perm = prev->last_perm;
			}
		}
	}
	strmap_done(&old_rules);
	/* a plan problem (not a warning) means a path is not watched */
	for (size_t j = 0; j < s->plan->n_problems; j++) {
		struct erule *r =
		    s->plan->problems[j].rule ? state_rule(s, s->plan->problems[j].rule) : NULL;

		if (r && !s->plan->problems[j].warning)
			r->n_failed++;
	}
	return 0;
}

/* Open (or keep) the outputs the rules use. */
static int state_outputs(struct engine *e, struct state *s, const struct state *old, char *err,
			 size_t errlen) {
	const struct config *c = s->config;

	for (size_t i = 0; i < s->n_rules; i++) {
		struct erule *r = &s->rules[i];
		char *const *names;
		size_t n;

		rule_output_names(c, r->conf, &names, &n);
		r->outputs = calloc(n ? n : 1, sizeof(*r->outputs));
		if (!r->outputs)
			return -ENOMEM;
		for (size_t j = 0; j < n; j++) {
			const struct output_conf *oc = config_find_output(c, names[j]);
			struct eoutput *o = find_eoutput(s->outputs, s->n_outputs, names[j]);
			struct eoutput *prev, **v;
			char oerr[512] = "";
			int k;

			if (!oc) {
				snprintf(err, errlen, "rule '%s': no output named '%s'",
					 r->conf->name, names[j]);
				return -EINVAL;
			}
			if (!o) {
				prev = old ? find_eoutput(old->outputs, old->n_outputs, names[j])
					   : NULL;
				v = realloc(s->outputs, (s->n_outputs + 1) * sizeof(*v));
				if (!v)
					return -ENOMEM;
				s->outputs = v;
				if (prev && !prev->kept && output_conf_same(prev->conf, oc)) {
					prev->kept = true;
					prev->next_conf = oc;
					o = prev;
				} else {
					o = calloc(1, sizeof(*o));
					if (!o)
						return -ENOMEM;
					o->name = strdup(names[j]);
					if (!o->name) {
						free(o);
						return -ENOMEM;
					}
					k = output_open(oc, e->loop, &o->out, oerr, sizeof(oerr));
					if (k < 0) {
						if (oerr[0])
							snprintf(err, errlen, "%s", oerr);
						else
							snprintf(err, errlen, "output '%s': %s",
								 names[j], strerror(-k));
						eoutput_free(o);
						return k;
					}
					o->conf = oc;
				}
				s->outputs[s->n_outputs++] = o;
			}
			r->outputs[r->n_outputs++] = o;
		}
	}
	return 0;
}

/* The old state's mark a planned one keeps: same rule name, path and spec,
 * still on the same object. by_path: the old marks by path. */
static struct emark *find_old_mark(const struct strmap *by_path, const struct plan_mark *pm) {
	for (struct strmap_entry *x = strmap_get(by_path, pm->path, strlen(pm->path)); x;
	     x = strmap_next(x)) {
		struct emark *m = x->value;

		if (!m->kept && m->mark && strcmp(m->rule_name, pm->rule->name) == 0 &&
		    spec_equal(&m->spec, &pm->spec) && emark_same_object(m))
			return m;
	}
	return NULL;
}

/* The scope a planned mark gets: the plan's subtree (canonical), else the
 * marked object. */
static int plan_scope(const struct plan_mark *pm, enum scope *ret_scope, char **ret_subtree) {
	char *sub = NULL;

	if (pm->subtree) {
		sub = canonical(pm->subtree);
		if (!sub)
			return -ENOMEM;
		*ret_scope = SCOPE_SUBTREE;
	} else if (pm->spec.type == FSN_MARK_INODE || pm->spec.type == FSN_MARK_INOTIFY)
		*ret_scope = SCOPE_OBJECT;
	else
		*ret_scope = SCOPE_FSID;
	*ret_subtree = sub;
	return 0;
}

/* Directories at and below dir (not following symlinks, pruning excluded
 * paths), counting stops above cap. */
#define COUNT_DIRS_MAX 1000000

static size_t count_dirs(const struct erule *r, const char *dir, size_t cap) {
	size_t n = 1;
	struct dirent *de;
	DIR *d;

	if (excluded_by_path(r, dir))
		return 0;
	d = opendir_nofollow(dir);
	if (!d)
		return 1;
	while (n <= cap && (de = readdir(d))) {
		_cleanup_free_ char *sub = NULL;
		struct stat st;

		if (is_dot(de->d_name))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode))
				continue;
		} else if (de->d_type != DT_DIR)
			continue;
		if (!(sub = entry_path(dir, de->d_name)))
			break;
		n += count_dirs(r, sub, cap - n);
	}
	closedir(d);
	return n;
}

static unsigned long read_ulong(const char *path) {
	char buf[32];

	return read_small(path, buf, sizeof(buf)) > 0 ? strtoul(buf, NULL, 10) : 0;
}

/* A recursive inotify tree needs a watch per directory, against
 * fs.inotify.max_user_watches (shared by all of this user's processes)
 * and limits.max_marks. The tree is placed first (one walk); only when a
 * watch did not fit is it counted, and the rule's watch_limit applied:
 * warn (keep what fits), degrade (the top directory only) or refuse
 * (nothing; -EINVAL). why says how many watches were needed. */
static int apply_watch_limit(struct engine *e, struct state *s, struct emark *m, char *why,
			     size_t whylen) {
	const struct rule_conf *rc = m->rule->conf;
	unsigned long sys = read_ulong("/proc/sys/fs/inotify/max_user_watches");
	bool marks = s->config->max_marks > 0 && s->n_placed >= s->config->max_marks;
	size_t need = count_dirs(m->rule, m->canon, COUNT_DIRS_MAX);
	char p[PATH_MAX];

	snprintf(
	    why, whylen,
	    "rule '%s': \"%s\" needs %s%zu inotify watches (one per directory), and %s "
	    "(%lu%s) left room for %zu: %s",
	    rc->name, text_escaped(p, sizeof(p), m->canon),
	    need >= COUNT_DIRS_MAX ? "more than " : "", need,
	    marks ? "limits.max_marks" : "fs.inotify.max_user_watches",
	    marks ? (unsigned long)s->config->max_marks : sys,
	    marks ? "" : ", shared by all of this user's inotify watches", m->n_subs + 1,
	    rc->watch_limit == WATCH_LIMIT_REFUSE ? "not placed (watch_limit = \"refuse\")"
	    : rc->watch_limit == WATCH_LIMIT_DEGRADE
		? "watching the top directory only (watch_limit = \"degrade\")"
		: "watching what fits, the rest is not watched (watch_limit = \"warn\"); raise "
		  "the limit, or use mark = \"filesystem\" (no watches at all)");
	if (rc->watch_limit != WATCH_LIMIT_WARN)
		drop_subs(e, m, &s->n_placed); /* m itself stays */
	if (rc->watch_limit == WATCH_LIMIT_REFUSE)
		return -EINVAL;
	log_warning("%s", why);
	return 0;
}

/* A fresh mark for the new state; a failure is logged, and fatal (-EINVAL,
 * err) for a required rule. A recursive inotify mark comes back in *tree
 * with its tree still to walk (the loader walks it in batches, then
 * place_planned_done()); any other mark is in s->marks already. */
static int place_planned(struct engine *e, struct state *s, const struct plan_mark *pm,
			 struct erule *r, struct emark **tree, char *err, size_t errlen) {
	struct emark *m = NULL;
	char why[1536];
	int k;

	*tree = NULL;
	k = emark_new(e, r, &pm->spec, pm->path, NULL, &m);
	if (k < 0)
		return k;
	m->fresh = true;
	m->subtree_recursive = pm->subtree_recursive;
	k = plan_scope(pm, &m->scope, &m->subtree);
	if (k < 0) {
		emark_free(m);
		return k;
	}
	k = emark_place(e, m, &s->n_placed, s->config->max_marks, why, sizeof(why));
	if (k < 0) {
		r->n_failed++;
		mark_failure(e, m, k, why[0] ? why : NULL);
		emark_free(m);
		if (!r->conf->required)
			return 0;
		snprintf(err, errlen, "required rule '%s' cannot be placed: %s", r->conf->name,
			 why[0] ? why : (e->captured[0] ? e->captured : strerror(-k)));
		return -EINVAL;
	}
	if (m->spec.type == FSN_MARK_INOTIFY && m->subtree_recursive && m->is_dir) {
		r->limit_hit = false;
		*tree = m;
		return 0;
	}
	r->n_marks++;
	s->marks[s->n_marks++] = m;
	return 0;
}

/* A recursive inotify mark whose tree was walked: the watch limit, then it
 * joins s->marks. */
static int place_planned_done(struct engine *e, struct state *s, struct emark *m, char *err,
			      size_t errlen) {
	struct erule *r = m->rule;
	char why[1536];

	if (r->limit_hit && apply_watch_limit(e, s, m, why, sizeof(why)) < 0) {
		r->n_failed++;
		mark_drop_counted(e, m, &s->n_placed);
		log_error("%s", why);
		if (!r->conf->required)
			return 0;
		snprintf(err, errlen, "required rule '%s' cannot be placed: %s", r->conf->name,
			 why);
		return -EINVAL;
	}
	if (r->limit_hit && r->conf->watch_limit == WATCH_LIMIT_DEGRADE) {
		m->subtree_recursive = false; /* degraded: one level */
		free(m->subtree);
		m->subtree = strdup(m->canon);
	}
	r->n_marks++;
	s->marks[s->n_marks++] = m;
	return 0;
}

/* Whether path was missing in the running plan: it, or a directory above
 * it, is what a waiter waits for. */
static bool was_waited(const struct engine *e, const char *path) {
	char buf[PATH_MAX];
	char *slash;

	if (e->waiting.n == 0 || strlen(path) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (strmap_value_str(&e->waiting, buf))
			return true;
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return false;
		*slash = '\0';
	}
}

/* Whether the old state had pm's mark (same rule, path) and its object
 * went: then pm's fresh mark re-arms it. */
static bool was_gone(const struct strmap *by_path, const struct plan_mark *pm) {
	for (struct strmap_entry *x = strmap_get(by_path, pm->path, strlen(pm->path)); x;
	     x = strmap_next(x)) {
		const struct emark *m = x->value;

		if (m->gone && strcmp(m->rule_name, pm->rule->name) == 0)
			return true;
	}
	return false;
}

/* Claim the old state's mark that planned mark i keeps (same rule name,
 * path, spec, object): it counts against max_marks before new ones. */
static int claim_kept(struct state *s, const struct strmap *by_path, size_t i, bool *claimed) {
	const struct plan_mark *pm = &s->plan->marks[i];
	struct emark *m = pm->rule->perm ? NULL : find_old_mark(by_path, pm);
	struct erule *r = state_rule(s, pm->rule);
	int k;

	if (!m || !r)
		return 0;
	/* the new scope takes effect at commit; the old one till then */
	k = plan_scope(pm, &m->next_scope, &m->next_subtree);
	if (k < 0)
		return k;
	m->kept = true;
	m->next_rule = r;
	m->next_pm = pm;
	r->n_marks++;
	claimed[i] = true;
	s->marks[s->n_marks++] = m;
	s->n_placed += 1 + (unsigned)m->n_subs;
	return 0;
}

/* Undo a new state that will not be used: fresh marks and outputs go,
 * kept ones go back to the old state unchanged. The config stays the
 * caller's. */
static void state_rollback(struct engine *e, struct state *s, struct state *old_perm_unkeep) {
	for (size_t i = 0; i < s->n_marks; i++) {
		struct emark *m = s->marks[i];

		if (m->fresh) {
			mark_drop(e, m);
			continue;
		}
		m->kept = false;
		m->next_rule = NULL;
		m->next_pm = NULL;
		free(m->next_subtree);
		m->next_subtree = NULL;
	}
	free(s->marks);
	s->marks = NULL;
	s->n_marks = 0;
	perm_free(s, true);
	if (old_perm_unkeep)
		for (size_t i = 0; i < old_perm_unkeep->n_perm; i++)
			old_perm_unkeep->perm[i].kept = false;
	for (size_t i = 0; i < s->n_outputs; i++) {
		if (s->outputs[i]->kept) {
			s->outputs[i]->kept = false;
			s->outputs[i]->next_conf = NULL;
		} else
			eoutput_free(s->outputs[i]);
	}
	free(s->outputs);
	s->outputs = NULL;
	s->n_outputs = 0;
	state_free_rules(s);
	plan_free(s->plan);
	s->plan = NULL;
}

/* Retired marks leave the kernel a batch at a time (removing 10 000 marks
 * takes tens of milliseconds): the new state runs meanwhile. */
static void on_retire(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;
	uint64_t deadline = now_monotonic_usec() + LOAD_BATCH_USEC;

	while (e->n_retiring > 0 && now_monotonic_usec() < deadline)
		mark_drop(e, e->retiring[--e->n_retiring]);
	if (e->n_retiring > 0)
		ev_timer_start(loop, w);
	else
		ev_timer_start(loop, &e->tidy_timer);
}

/* After a load, a loop turn each: the replaced plan and config freed, then
 * the memory given back to the system, not only to malloc (a reload of
 * 100 000 paths frees some 100 MiB). */
static void on_tidy(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;

	if (e->stale_plan || e->stale_config) {
		e->stale_plan = plan_free(e->stale_plan);
		config_free(e->stale_config);
		e->stale_config = NULL;
		ev_timer_start(loop, w);
		return;
	}
	malloc_trim(0);
}

/* m's state is going away: it reports nothing from now on (out of the
 * inotify index, no rule) and is removed by on_retire(); marks that could
 * not be queued are removed at once. */
static void mark_retire(struct engine *e, struct emark *m) {
	if (e->n_retiring == e->retiring_cap) {
		size_t cap = e->retiring_cap ? 2 * e->retiring_cap : 256;
		struct emark **v = realloc(e->retiring, cap * sizeof(*v));

		if (!v) {
			mark_drop(e, m);
			return;
		}
		e->retiring = v;
		e->retiring_cap = cap;
	}
	if (m->spec.type == FSN_MARK_INOTIFY) {
		ihash_remove(e, m);
		for (size_t i = 0; i < m->n_subs; i++)
			ihash_remove(e, m->subs[i]);
	}
	m->retired = true;
	m->rule = NULL;
	for (size_t i = 0; i < m->n_subs; i++)
		m->subs[i]->rule = NULL;
	e->retiring[e->n_retiring++] = m;
	if (!ev_is_active(&e->retire_timer))
		ev_timer_start(e->loop, &e->retire_timer);
}

/* The new state takes over: kept marks and outputs take their new rule,
 * scope and config; then what the old state had and the new one did not
 * keep is removed — after the new marks were placed, so nothing unchanged
 * has a gap. */
static void state_commit(struct engine *e, struct state *old, struct state *s) {
	int k = perm_commit(e, s);

	if (k < 0)
		log_error("permission rules: handing them to the permission thread: %s",
			  strerror(-k));
	if (old) {
		retire_perm(e, old);
		perm_free(old, false); /* the guard retires the ones not kept */
		for (size_t i = 0; i < old->n_marks; i++)
			if (!old->marks[i]->kept)
				mark_retire(e, old->marks[i]);
		free(old->marks);
		for (size_t i = 0; i < old->n_outputs; i++)
			if (!old->outputs[i]->kept)
				eoutput_free(old->outputs[i]);
		free(old->outputs);
		state_free_rules(old);
		plan_free(e->stale_plan);
		config_free(e->stale_config);
		e->stale_plan = old->plan;
		/* (a replan shares the running config) */
		e->stale_config = old->config != s->config ? old->config : NULL;
	}
	for (size_t i = 0; i < s->n_marks; i++) {
		struct emark *m = s->marks[i];

		if (!m->fresh) {
			m->rule = m->next_rule;
			free(m->subtree);
			m->subtree = m->next_subtree;
			m->scope = m->next_scope;
			m->subtree_recursive = m->next_pm->subtree_recursive;
			m->next_subtree = NULL;
			m->next_rule = NULL;
			m->next_pm = NULL;
		}
		for (size_t j = 0; j < m->n_subs; j++)
			m->subs[j]->rule = m->rule;
		m->kept = false;
		m->fresh = false;
	}
	for (size_t i = 0; i < s->n_outputs; i++) {
		struct eoutput *o = s->outputs[i];

		if (o->kept)
			o->conf = o->next_conf;
		o->kept = false;
		o->next_conf = NULL;
	}
}

static void log_plan_problems(const struct plan *p) {
	for (size_t i = 0; i < p->n_problems; i++) {
		const struct plan_problem *pp = &p->problems[i];
		char f_rule[300], f_path[PATH_MAX + 16], esc_path[PATH_MAX * 2];
		const char *fields[3] = { f_rule, NULL, NULL };

		snprintf(f_rule, sizeof(f_rule), "FSN_RULE=%s", pp->rule ? pp->rule->name : "");
		if (pp->path) {
			snprintf(f_path, sizeof(f_path), "FSN_PATH=%s", pp->path);
			fields[1] = f_path;
		}
		log_notable(pp->warning ? LOG_WARNING : LOG_ERR, FSND_MID_RULE_ERROR, fields,
			    "%s '%s'%s%s%s: %s%s", pp->warning ? "warning: rule" : "rule",
			    pp->rule ? pp->rule->name : "?", pp->path ? ": \"" : "",
			    pp->path ? text_escaped(esc_path, sizeof(esc_path), pp->path) : "",
			    pp->path ? "\"" : "", pp->msg,
			    pp->fatal ? " (the rule is required)" : "");
	}
}

/* ------------------------------------------------------------------------ */
/* loading a config: a worker thread, then batches on the loop               */
/* ------------------------------------------------------------------------ */

/*
 * A start or reload never holds the loop for long. A worker thread reads
 * and plans the config (config_load(), plan_build_opts() with the engine's
 * prober: it touches nothing the loop uses); then the loop applies the
 * plan in batches of at most LOAD_BATCH_USEC, events dispatched between
 * them: outputs, kept marks claimed, new marks placed (recursive inotify
 * trees a directory at a time), permission rules a mark at a time, their
 * policies, commit; then the replaced state's marks leave the kernel in
 * batches (on_retire()) and its memory is freed (on_tidy()). Until the
 * commit the running state (e->st) handles every event; the marks being
 * placed are "fresh" and report nothing yet (a new rule reports from the
 * commit on, an unchanged one without a gap). During the first load no
 * event is read: the kernel queues them for the state that commits.
 * Failure at any step rolls back to the running state.
 */

static int prober_probe(const char *path, const struct stat *st, struct fsn_probe *ret,
			void *userdata) {
	return fsn_prober_probe(userdata, path, st, ret);
}

static void *load_worker(void *arg) {
	struct load *l = arg;

	l->r = l->path ? config_load(l->path, &l->config, &l->errs) : 0;
	if (l->r >= 0 && !l->cancel) {
		struct plan_opts o = { .probe = prober_probe,
				       .userdata = l->prober,
				       .cancel = &l->cancel };

		(void)fsn_prober_revalidate(l->prober);
		l->r = plan_build_opts(l->config, &o, &l->plan);
		if (l->r < 0)
			snprintf(l->err, sizeof(l->err), "planning the rules: %s", strerror(-l->r));
		/* the plan stays for the next reload's diff; its words are for
		 * --check-config only (a third of its memory) */
		for (size_t i = 0; l->plan && i < l->plan->n_marks; i++) {
			free(l->plan->marks[i].why);
			free(l->plan->marks[i].target);
			l->plan->marks[i].why = l->plan->marks[i].target = NULL;
		}
	}
	pthread_mutex_lock(&l->lock);
	l->finished = true;
	if (!l->abandoned)
		ev_async_send(l->engine->loop, &l->async);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* The loader is done (r < 0: failed, l->err says why, the running state
 * is untouched): free it and tell the caller. */
static void load_end(struct engine *e, int r) {
	struct load *l = e->load;
	engine_load_fn done = l->done;
	void *userdata = l->userdata;
	char err[sizeof(l->err)];

	snprintf(err, sizeof(err), "%s", l->err);
	ev_async_stop(e->loop, &l->async);
	ev_timer_stop(e->loop, &l->step);
	strmap_done(&l->by_path);
	free(l->claimed);
	free(l->rearmed);
	dirq_done(&l->q);
	config_errors_clear(&l->errs);
	plan_free(l->plan);
	if (r < 0 && l->path)
		config_free(l->config);
	if (!l->path && r == 0)
		log_info("re-armed: the rules are placed again (%u marks)", e->st.n_placed);
	if (r == 0)
		waiters_place(e);
	if (l->reload && l->path && r != -ECANCELED) {
		e->reloaded = true;
		snprintf(e->reload_error, sizeof(e->reload_error), "%.*s",
			 (int)sizeof(e->reload_error) - 1, r < 0 ? err : "");
	}
	free(l->path);
	free(l);
	e->load = NULL;
	ev_io_start(e->loop, &e->io);
	if (!ev_is_active(&e->retire_timer))
		ev_timer_start(e->loop, &e->tidy_timer); /* (else when the marks are gone) */
	if (done)
		done(e, r, r < 0 ? err : NULL, userdata);
	if (!e->load)
		start_queued(e);
}

/* Undo what the loader built (fresh marks, outputs) and end with r. */
static void load_fail(struct engine *e, int r) {
	struct load *l = e->load;

	if (!l->err[0])
		snprintf(l->err, sizeof(l->err), "%s", strerror(-r));
	if (l->tree) {
		mark_drop(e, l->tree);
		l->tree = NULL;
	}
	if (l->s.rules) {
		l->s.plan = NULL; /* (freed by load_end) */
		state_rollback(e, &l->s, l->old);
	}
	load_end(e, r);
}

/* Everything placed: the new state takes over. */
static int load_finish(struct engine *e) {
	struct load *l = e->load;
	uint64_t t0 = now_monotonic_usec();

	state_commit(e, l->old, &l->s);
	log_debug("load: commit in %.3f ms", (now_monotonic_usec() - t0) / 1e3);
	if (l->old)
		/* groups may have gone (and their ids come back): start afresh */
		fsn_fidcache_clear(e->dirs);
	e->st = l->s;
	l->s = (struct state){ 0 };
	/* what a re-armed path names now was written (or made) while it was
	 * not watched: a rescan record says so, as after an overflow */
	for (size_t i = 0; i < l->n_rearmed; i++) {
		const struct plan_mark *pm = l->rearmed[i].pm;
		struct erule *r = state_rule(&e->st, pm->rule);
		_cleanup_free_ char *canon = canonical(pm->path);

		if (!r || !canon)
			continue;
		emit(e, r,
		     &(struct record){
			 .kind = RECORD_REARMED,
			 .time_usec = now_realtime_usec(),
			 .rule = r->conf->name,
			 .mask = pm->is_dir ? FAN_ONDIR : 0,
			 .path = canon,
			 .uid = (uid_t)-1,
		     });
		if (l->rearmed[i].appeared)
			rescan_emit(e, r, canon, "created", pm->is_dir);
		else if (!pm->is_dir && (r->conf->events & (FAN_MODIFY | FAN_CLOSE_WRITE)))
			rescan_emit(e, r, canon, "modified", false);
		else if (pm->is_dir && (r->conf->events & DIRENT_BITS))
			rescan_emit(e, r, canon, "changed", true);
	}
	l->plan = NULL;   /* the state's now */
	l->config = NULL; /* ditto */
	own_files_refresh(e);
	e->has_exec = false;
	for (size_t i = 0; i < e->st.n_outputs; i++)
		if (e->st.outputs[i]->conf->type == OUTPUT_EXEC)
			e->has_exec = true;
	return 0;
}

/* One batch: until the phase's work is done or LOAD_BATCH_USEC passed.
 * Returns 1 when more is to do, 0 when committed, or -errno. */
static int load_batch(struct engine *e) {
	struct load *l = e->load;
	struct state *s = &l->s;
	const struct plan *p = s->plan;
	uint64_t deadline = now_monotonic_usec() + LOAD_BATCH_USEC;
	int k;

	while (now_monotonic_usec() < deadline) {
		e->load_progress++;
		switch (l->phase) {
		case LOAD_WORKER: return 1; /* (not scheduled then) */
		case LOAD_CLAIM:
			if (l->i == p->n_marks) {
				l->phase = LOAD_PLACE;
				l->i = 0;
				break;
			}
			k = claim_kept(s, &l->by_path, l->i++, l->claimed);
			if (k < 0)
				return k;
			break;
		case LOAD_PLACE: {
			const struct plan_mark *pm;
			struct erule *r;
			bool appeared;
			size_t n;

			if (l->i == p->n_marks) {
				k = perm_begin(e, s);
				if (k < 0)
					return k;
				l->phase = LOAD_PERM;
				l->i = 0;
				break;
			}
			pm = &p->marks[l->i++];
			if (l->claimed[l->i - 1] || pm->rule->perm)
				break; /* (permission rules: LOAD_PERM) */
			r = state_rule(s, pm->rule);
			if (!r)
				return -EINVAL;
			n = s->n_marks;
			k = place_planned(e, s, pm, r, &l->tree, l->err, sizeof(l->err));
			if (k < 0)
				return k;
			appeared = was_waited(e, pm->path);
			if ((s->n_marks > n || l->tree) &&
			    (appeared || was_gone(&l->by_path, pm))) {
				char esc[PATH_MAX * 2];

				if (l->n_rearmed == l->rearmed_cap) {
					size_t cap = l->rearmed_cap ? 2 * l->rearmed_cap : 16;
					struct rearmed *v = realloc(l->rearmed, cap * sizeof(*v));

					if (v) {
						l->rearmed = v;
						l->rearmed_cap = cap;
					}
				}
				if (l->n_rearmed < l->rearmed_cap)
					l->rearmed[l->n_rearmed++] =
					    (struct rearmed){ .pm = pm, .appeared = appeared };

				/* placed anew where the object of the old went */
				log_notable(LOG_NOTICE, FSND_MID_RULE_ERROR, NULL,
					    "rule '%s': \"%s\" is watched again", r->conf->name,
					    text_escaped(esc, sizeof(esc), pm->path));
			}
			if (l->tree) {
				char *root = strdup(l->tree->canon);

				if (!root || dirq_push(&l->q, root, false) < 0) {
					free(root);
					return -ENOMEM;
				}
				l->phase = LOAD_TREE;
			}
			break;
		}
		case LOAD_TREE: {
			struct dirq_item it;

			if (!dirq_pop(&l->q, &it)) {
				struct emark *m = l->tree;

				l->tree = NULL;
				l->phase = LOAD_PLACE;
				k = place_planned_done(e, s, m, l->err, sizeof(l->err));
				if (k < 0)
					return k;
				break;
			}
			e->placing_tree = true;
			tree_scan(e, s, l->tree, it.path, it.self, false, &l->q);
			e->placing_tree = false;
			free(it.path);
			break;
		}
		case LOAD_PERM: {
			size_t n;

			if (l->perm) {
				if (l->pj == l->pend) {
					l->perm = NULL;
					break;
				}
				k = perm_place_mark(e, s, l->perm, &p->marks[l->pj++], l->err,
						    sizeof(l->err));
				if (k < 0)
					return k;
				break;
			}
			if (l->i == s->config->n_rules) {
				k = perm_end(e, s, l->err, sizeof(l->err));
				if (k < 0)
					return k;
				l->phase = LOAD_POLICY;
				l->i = 0;
				break;
			}
			k = perm_rule(e, s, l->old, l->i++, &l->perm);
			if (k < 0)
				return k;
			if (l->perm) {
				rule_marks(p, s->config, l->perm->conf, &l->pj, &n);
				l->pend = l->pj + n;
			}
			break;
		}
		case LOAD_POLICY:
			if (l->i == s->n_perm) {
				l->phase = LOAD_FINISH;
				break;
			}
			if (e->guard) {
				k = perm_policy(s, &s->perm[l->i], &s->perm[l->i].pol);
				if (k < 0)
					return k;
			}
			l->i++;
			break;
		case LOAD_FINISH: return load_finish(e);
		}
	}
	return 1;
}

static void on_load_step(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;
	int r = load_batch(e);

	if (r < 0)
		load_fail(e, r);
	else if (r == 0)
		load_end(e, 0);
	else
		ev_timer_start(loop, &e->load->step); /* the next batch, after the loop's turn */
}

/* The worker is done: log what it found, then apply in batches. */
static void on_load_planned(struct ev_loop *loop, ev_async *w, int revents) {
	struct engine *e = w->data;
	struct load *l = e->load;
	struct state *s;
	bool finished;
	int r;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	finished = l->finished;
	pthread_mutex_unlock(&l->lock);
	if (!finished)
		return;
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	s = &l->s;
	l->prepare_start = now_monotonic_usec();
	if (l->r < 0 && !l->plan) {
		for (size_t i = 0; i < l->errs.n; i++) {
			const struct config_error *ce = &l->errs.v[i];

			if (ce->line > 0)
				log_error("%s:%d: %s", ce->file ? ce->file : "?", ce->line,
					  ce->msg);
			else
				log_error("%s: %s", ce->file ? ce->file : "?", ce->msg);
		}
		if (!l->err[0]) {
			if (l->errs.n > 0)
				config_errors_first(&l->errs, l->err, sizeof(l->err));
			else
				snprintf(l->err, sizeof(l->err), "%s: %s", l->path,
					 strerror(-l->r));
		}
		load_end(e, l->r);
		return;
	}
	if (!l->reload)
		log_set_level(l->config->log_level); /* (a reload: once it took over) */
	log_plan_problems(l->plan);
	for (size_t i = 0; i < l->plan->n_problems; i++)
		if (l->plan->problems[i].fatal) {
			const struct plan_problem *pp = &l->plan->problems[i];

			snprintf(l->err, sizeof(l->err), "required rule '%s': %s",
				 pp->rule ? pp->rule->name : "?", pp->msg);
			load_end(e, -EINVAL);
			return;
		}

	l->old = e->st.config ? &e->st : NULL;
	*s = (struct state){ .config = l->config, .plan = l->plan };
	r = state_rules(s, l->old);
	if (r >= 0)
		r = state_outputs(e, s, l->old, l->err, sizeof(l->err));
	if (r >= 0) {
		s->marks = calloc(l->plan->n_marks + 1, sizeof(*s->marks));
		l->claimed = calloc(l->plan->n_marks + 1, sizeof(*l->claimed));
		if (!s->marks || !l->claimed)
			r = -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && l->old && i < l->old->n_marks; i++)
		r = strmap_put_str(&l->by_path, l->old->marks[i]->path, l->old->marks[i]);
	if (r < 0) {
		load_fail(e, r);
		return;
	}
	l->phase = LOAD_CLAIM;
	l->i = 0;
	log_debug("load: state prepared in %.3f ms",
		  (now_monotonic_usec() - l->prepare_start) / 1e3);
	ev_timer_start(loop, &l->step);
}

/* A load of path, or with path NULL a replan of the running config. */
static int load_begin(struct engine *e, const char *path, engine_load_fn done, void *userdata) {
	struct load *l;
	sigset_t all, saved;
	int r;

	if (e->load)
		return -EBUSY;
	l = calloc(1, sizeof(*l));
	if (!l || (path && !(l->path = strdup(path)))) {
		free(l);
		return -ENOMEM;
	}
	if (!path)
		l->config = e->st.config;
	l->engine = e;
	l->reload = e->st.config != NULL;
	l->done = done;
	l->userdata = userdata;
	l->prober = e->prober;
	l->phase = LOAD_WORKER;
	pthread_mutex_init(&l->lock, NULL);
	ev_async_init(&l->async, on_load_planned);
	l->async.data = e;
	ev_async_start(e->loop, &l->async);
	ev_timer_init(&l->step, on_load_step, 0., 0.);
	l->step.data = e;
	e->load = l;
	/* the first load: nothing runs yet, so the kernel keeps what happens
	 * meanwhile queued, reported once every mark is in place (a reload
	 * reads on: the running state reports) */
	if (!l->reload)
		ev_io_stop(e->loop, &e->io);
	/* signals are the loop's: the worker starts with all of them blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	r = -pthread_create(&l->thread, NULL, load_worker, l);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (r < 0) {
		ev_async_stop(e->loop, &l->async);
		pthread_mutex_destroy(&l->lock);
		free(l->path);
		free(l);
		e->load = NULL;
		return r;
	}
	return 0;
}

int engine_load(struct engine *e, const char *path, engine_load_fn done, void *userdata) {
	char *copy;

	if (!e || !path)
		return -EINVAL;
	if (!e->load || e->load->path)
		return load_begin(e, path, done, userdata);
	/* a replan runs (it cannot be stopped midway: it shares the running
	 * config): this load follows it */
	if (e->queued.path)
		return -EBUSY;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	e->queued.path = copy;
	e->queued.done = done;
	e->queued.userdata = userdata;
	return 0;
}

/* After a load: the one engine_load() queued behind a replan. */
static void start_queued(struct engine *e) {
	char *path = e->queued.path;
	engine_load_fn done = e->queued.done;
	void *userdata = e->queued.userdata;
	char why[256];
	int r;

	if (!path)
		return;
	e->queued.path = NULL;
	r = load_begin(e, path, done, userdata);
	if (r < 0 && done) {
		snprintf(why, sizeof(why), "cannot load %s: %s", path, strerror(-r));
		done(e, r, why, userdata);
	}
	free(path);
}

/*
 * Re-arming. When the object of a planned mark goes away (deleted,
 * replaced by a rename over it, moved away, its filesystem unmounted:
 * DELETE_SELF, MOVE_SELF or IN_IGNORED), the running config is planned
 * and placed again, as a reload would: the reload's diff keeps every mark
 * whose object is the same and places the others anew, so a file replaced
 * by rename (editors, vipw, package upgrades) is watched again at once.
 * Debounced (REARM_DELAY), and after a load that is running.
 */
#define REARM_DELAY 0.05

/* Plan and place again, REARM_DELAY from the first ask (asks meanwhile
 * are one). */
static void rearm_soon(struct engine *e) {
	if (!ev_is_active(&e->rearm_timer))
		ev_timer_start(e->loop, &e->rearm_timer);
}

/* A planned mark's path no longer names its object: say so (a gone or
 * unmounted record, and the log), and plan again soon (the path is watched
 * again where it is now, or waited for). Once per mark. */
static void mark_gone(struct engine *e, struct emark *m, enum gone_why why, const char *mount) {
	static const char *const reasons[] = {
		[GONE_DELETED] = "deleted",
		[GONE_MOVED] = "moved",
		[GONE_COVERED] = "covered",
		[GONE_UNMOUNTED] = NULL, /* (an unmounted record: the mount says it) */
	};
	struct record rec;
	char text[PATH_MAX * 4];
	size_t pos = 0;

	if (!e->st.config || emark_fresh(m) || m->retired || !m->rule || m->gone)
		return;
	m->gone = true;
	rec = (struct record){
		.kind = why == GONE_UNMOUNTED ? RECORD_UNMOUNTED : RECORD_GONE,
		.time_usec = now_realtime_usec(),
		.rule = m->rule->conf->name,
		.mask = m->is_dir ? FAN_ONDIR : 0,
		.path = m->canon ? m->canon : m->path,
		.uid = (uid_t)-1,
		.reason = reasons[why],
		.mount = mount,
	};
	format_lifecycle(&rec, text, sizeof(text), &pos);
	log_notable(LOG_NOTICE, FSND_MID_RULE_ERROR, NULL, "rule '%s': %s", m->rule->conf->name,
		    text);
	emit(e, m->rule, &rec);
	rearm_soon(e);
}

/* The mount table changed. A planned mark whose mount went is unmounted; one
 * whose path now leads into a filesystem mounted at or above it is covered;
 * a mount at or above a missing path's waiter may have brought the path.
 * (Mounts below a recursive rule's path are not followed: see
 * doc/guarantees.md.) */
static void on_mounts(const struct mount_entry *gone, size_t n_gone,
		      const struct mount_entry *added, size_t n_added, void *userdata) {
	struct engine *e = userdata;

	if (e->load)
		rearm_soon(e); /* (its fresh marks: planned again after it) */
	for (size_t i = 0; i < e->st.n_marks; i++) {
		struct emark *m = e->st.marks[i];
		const struct mount_entry *g =
		    m->mnt_id ? mount_entries_find(gone, n_gone, m->mnt_id) : NULL;

		if (m->gone || m->parent || !m->canon)
			continue;
		if (g) {
			mark_gone(e, m, GONE_UNMOUNTED, g->point);
			continue;
		}
		for (size_t j = 0; j < n_added; j++)
			if (path_in(m->canon, added[j].point, true, true)) {
				if (!emark_same_object(m))
					mark_gone(e, m, GONE_COVERED, NULL);
				break;
			}
	}
	for (size_t j = 0; j < n_added; j++)
		for (size_t i = 0; i < e->n_waiters; i++)
			if (path_in(e->waiters[i]->canon, added[j].point, true, true)) {
				char p[PATH_MAX * 2];

				log_info(
				    "a filesystem was mounted at \"%s\": placing the rules again",
				    text_escaped(p, sizeof(p), added[j].point));
				rearm_soon(e);
				return;
			}
}

/* Drop every waiter (the running plan changes). */
static void waiters_clear(struct engine *e) {
	for (size_t i = 0; i < e->n_waiters; i++) {
		if (e->waiters[i]->mark)
			fsn_ctx_remove_mark(e->ctx, e->waiters[i]->mark);
		emark_free(e->waiters[i]);
	}
	free(e->waiters);
	e->waiters = NULL;
	e->n_waiters = 0;
	strmap_done(&e->waiting);
}

/* A waiter for each path of the running plan that does not exist: an
 * inotify watch (creates and moves in) on its nearest existing directory,
 * keyed by the path one component further; its creation re-plans. */
static void waiters_place(struct engine *e) {
	const struct plan *p = e->st.plan;

	waiters_clear(e);
	for (size_t i = 0; p && i < p->n_problems; i++) {
		const struct plan_problem *pp = &p->problems[i];
		char dir[PATH_MAX], next[PATH_MAX];
		struct fsn_mark_spec spec = { 0 };
		struct emark *w, **v;
		struct stat st;
		char *slash;

		if (!pp->path || !pp->rule || strcmp(pp->msg, "does not exist") != 0 ||
		    strlen(pp->path) >= sizeof(dir))
			continue;
		snprintf(next, sizeof(next), "%s", pp->path);
		snprintf(dir, sizeof(dir), "%s", pp->path);
		for (;;) { /* up to the nearest directory that exists */
			slash = strrchr(dir, '/');
			if (!slash)
				break;
			if (slash == dir)
				slash[1] = '\0';
			else
				*slash = '\0';
			if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				break;
			snprintf(next, sizeof(next), "%s", dir);
		}
		if (!slash || strmap_value_str(&e->waiting, next))
			continue;
		w = calloc(1, sizeof(*w));
		v = realloc(e->waiters, (e->n_waiters + 1) * sizeof(*v));
		if (!w || !v) {
			free(w);
			if (v)
				e->waiters = v;
			continue;
		}
		e->waiters = v;
		w->engine = e;
		w->waiter = true;
		w->dev = st.st_dev;
		w->ino = st.st_ino;
		w->path = strdup(dir);
		w->canon = strdup(dir);
		w->next = strdup(next);
		spec = (struct fsn_mark_spec){
			.type = FSN_MARK_INOTIFY,
			.mask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF,
			.flags = FSN_MARK_F_ONLYDIR,
			.dirfd = AT_FDCWD,
			.path = w->path,
			.userdata = w,
		};
		if (!w->path || !w->canon || !w->next ||
		    fsn_ctx_add_mark(e->ctx, &spec, &w->mark) < 0 ||
		    strmap_put_str(&e->waiting, w->next, w) < 0) {
			if (w->mark)
				fsn_ctx_remove_mark(e->ctx, w->mark);
			emark_free(w);
			continue;
		}
		e->waiters[e->n_waiters++] = w;
		/* made between the plan and this watch: the watch will not
		 * tell, so plan again now */
		if (lstat(w->next, &st) == 0)
			rearm_soon(e);
	}
}

static void on_rearm(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;
	int r;

	if (e->load) { /* after it */
		ev_timer_set(w, REARM_DELAY, 0.);
		ev_timer_start(loop, w);
		return;
	}
	r = load_begin(e, NULL, NULL, NULL);
	if (r < 0)
		log_error("re-arming the rules: %s", strerror(-r));
}

uint64_t engine_load_progress(const struct engine *e) {
	return e ? e->load_progress : 0;
}

/* Stop a load (engine_free()): roll back what was placed; a worker still
 * reading or planning is asked to stop, and left to the process's exit if
 * it does not finish at once (it touches nothing the engine frees). */
static void load_abort(struct engine *e) {
	struct load *l = e->load;

	if (!l)
		return;
	l->done = NULL;
	if (l->phase == LOAD_WORKER) {
		bool finished;

		l->cancel = true;
		pthread_mutex_lock(&l->lock);
		finished = l->finished;
		/* (a replan's worker reads the running config, which goes
		 * next: it is waited for; it stops after the rule it is at) */
		l->abandoned = !finished && l->path;
		pthread_mutex_unlock(&l->lock);
		if (!finished && l->path) {
			/* (its memory, and the prober it uses, go with the process) */
			ev_async_stop(e->loop, &l->async);
			e->load = NULL;
			e->prober = NULL;
			return;
		}
		pthread_join(l->thread, NULL);
		pthread_mutex_destroy(&l->lock);
		snprintf(l->err, sizeof(l->err), "stopped");
		load_end(e, -ECANCELED);
		return;
	}
	snprintf(l->err, sizeof(l->err), "stopped");
	load_fail(e, -ECANCELED);
}

/* ------------------------------------------------------------------------ */
/* public                                                                   */
/* ------------------------------------------------------------------------ */

int engine_new(struct ev_loop *loop, struct engine **ret) {
	struct engine *e;
	int r;

	if (!loop || !ret)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->loop = loop;
	e->self = getpid();
	e->foreign_mntns = mntns_foreign();
	r = fsn_fidcache_new(DIR_CACHE_MAX, &e->dirs);
	if (r < 0) {
		free(e);
		return r;
	}
	r = fsn_prober_new(&e->prober);
	if (r >= 0)
		r = fsn_ctx_new(&e->ctx);
	if (r < 0) {
		fsn_prober_free(e->prober);
		fsn_fidcache_free(e->dirs);
		free(e);
		return r;
	}
	fsn_ctx_set_log(e->ctx, on_fsn_log, e);
	ev_io_init(&e->io, on_io, fsn_ctx_get_fd(e->ctx), EV_READ);
	e->io.data = e;
	ev_io_start(loop, &e->io);
	ev_timer_init(&e->drop_timer, on_drop_timer, 0., 1.);
	e->drop_timer.data = e;
	ev_timer_init(&e->rescan_timer, on_rescan_timer, 0., 0.);
	e->rescan_timer.data = e;
	ev_timer_init(&e->move_timer, on_move_timer, MOVE_WAIT_SEC, 0.);
	e->move_timer.data = e;
	ev_timer_init(&e->retire_timer, on_retire, 0., 0.);
	e->retire_timer.data = e;
	ev_timer_init(&e->tidy_timer, on_tidy, 0., 0.);
	e->tidy_timer.data = e;
	ev_timer_init(&e->rearm_timer, on_rearm, REARM_DELAY, 0.);
	e->rearm_timer.data = e;
	r = mountwatch_new(loop, on_mounts, e, &e->mounts);
	if (r < 0)
		log_warning("cannot watch the mount table (/proc/self/mountinfo): %s; unmounts "
			    "under fanotify marks are not noticed",
			    strerror(-r));
	e->drained_usec = now_realtime_usec();
	*ret = e;
	return 0;
}

struct engine *engine_free(struct engine *e) {
	if (!e)
		return NULL;
	waiters_clear(e);
	free(e->queued.path); /* (not started by the abort below) */
	e->queued.path = NULL;
	load_abort(e);
	ev_io_stop(e->loop, &e->io);
	ev_timer_stop(e->loop, &e->drop_timer);
	ev_timer_stop(e->loop, &e->rescan_timer);
	ev_timer_stop(e->loop, &e->move_timer);
	ev_timer_stop(e->loop, &e->retire_timer);
	ev_timer_stop(e->loop, &e->tidy_timer);
	ev_timer_stop(e->loop, &e->rearm_timer);
	e->mounts = mountwatch_free(e->mounts);
	plan_free(e->stale_plan);
	config_free(e->stale_config);
	while (e->n_retiring > 0)
		mark_drop(e, e->retiring[--e->n_retiring]);
	free(e->retiring);
	/* every permission event answered first (reports still reach the outputs) */
	e->guard = guard_free(e->guard);
	perm_free(&e->st, false);
	for (size_t i = 0; i < e->n_retired; i++)
		retired_free(&e->retired[i]);
	free(e->retired);
	for (size_t i = 0; i < e->st.n_marks; i++)
		mark_drop(e, e->st.marks[i]);
	free(e->st.marks);
	for (size_t i = 0; i < e->st.n_outputs; i++)
		eoutput_free(e->st.outputs[i]);
	free(e->st.outputs);
	state_free_rules(&e->st);
	plan_free(e->st.plan);
	config_free(e->st.config);
	fsn_ctx_free(e->ctx);
	fsn_fidcache_free(e->dirs);
	fsn_prober_free(e->prober);
	e->console = output_close(e->console);
	free(e->ihash);
	free(e->pcache);
	for (size_t i = 0; i < SYNTH_SLOTS; i++)
		free(e->synth[i]);
	free(e->from.path);
	free(e->move.path);
	own_files_clear(e);
	free(e);
	return NULL;
}

void engine_reopen_outputs(struct engine *e) {
	for (size_t i = 0; e && i < e->st.n_outputs; i++) {
		int r = output_reopen(e->st.outputs[i]->out);

		if (r < 0)
			log_error("output '%s': reopening: %s", e->st.outputs[i]->name,
				  strerror(-r));
	}
	if (e)
		own_files_refresh(e);
}

void engine_status(const struct engine *e, char *buf, size_t len) {
	uint64_t failed = 0, rules_failed = 0;
	size_t pos = 0;

	if (!e || len == 0)
		return;
	for (size_t i = 0; i < e->st.n_outputs; i++) {
		uint64_t em = 0, f = 0;

		output_counters(e->st.outputs[i]->out, &em, &f);
		failed += f;
	}
	for (size_t i = 0; i < e->st.n_rules; i++)
		if (e->st.rules[i].n_failed > 0)
			rules_failed++;

#define APPEND(...)                                                                                \
	do {                                                                                       \
		if (pos < len)                                                                     \
			pos += (size_t)snprintf(buf + pos, len - pos, __VA_ARGS__);                \
	} while (0)
	APPEND("%zu rules, %u marks", e->st.n_rules, e->st.n_placed);
	if (rules_failed > 0)
		APPEND(" (%" PRIu64 " rules not fully placed)", rules_failed);
	/* the names of the records: "dropped" records with a rule say what a
	 * rate limit dropped, those without one what an output lost */
	APPEND("; %" PRIu64 " events, %" PRIu64 " overflows, %" PRIu64 " rate-limited, %" PRIu64
	       " lost by outputs",
	       e->events, e->overflows, e->dropped, failed);
	if (e->unresolved > 0)
		APPEND(", %" PRIu64 " unresolved", e->unresolved);
	for (size_t i = 0; i < e->st.n_perm; i++) {
		struct guard_stats gs;

		if (!guard_stats(e->guard, e->st.perm[i].conf->name, &gs))
			continue;
		APPEND("; rule '%s': %" PRIu64 " allowed, %" PRIu64 " denied, %" PRIu64
		       " on deadline, p50 %" PRIu64 " us, p99 %" PRIu64 " us",
		       e->st.perm[i].conf->name, gs.allowed, gs.denied, gs.deadline,
		       gs.latency_p50_us, gs.latency_p99_us);
	}
	if (e->reloaded) {
		if (e->reload_error[0])
			APPEND("; last reload failed: %s", e->reload_error);
		else
			APPEND("; last reload ok");
	}
#undef APPEND
}

void engine_report_perm_stats(struct engine *e) {
	for (size_t i = 0; e && i < e->st.n_perm; i++) {
		struct erule *r = state_rule(&e->st, e->st.perm[i].conf);
		struct guard_stats gs;
		struct perm_counts pc;
		struct record rec;

		if (!r || !guard_stats(e->guard, r->conf->name, &gs))
			continue;
		pc = (struct perm_counts){ .allowed = gs.allowed,
					   .denied = gs.denied,
					   .audited = gs.audited,
					   .deadline = gs.deadline,
					   .latency_p50_us = gs.latency_p50_us,
					   .latency_p99_us = gs.latency_p99_us };
		if (memcmp(&pc, &r->last_perm, sizeof(pc)) == 0)
			continue;
		r->last_perm = pc;
		rec = (struct record){ .kind = RECORD_STATS,
				       .time_usec = now_realtime_usec(),
				       .rule = r->conf->name,
				       .uid = (uid_t)-1,
				       .perm = &pc };
		emit(e, r, &rec);
	}
}

bool engine_stalled(const struct engine *e) {
	unsigned longest = 0;

	for (size_t i = 0; e && i < e->st.n_perm; i++)
		if (e->st.perm[i].conf->deadline_ms > longest)
			longest = e->st.perm[i].conf->deadline_ms;
	/* stuck: one callback for longer than twice the longest deadline, and
	 * at least 5 s (a burst of events is one callback) */
	return e && guard_stalled(e->guard,
				  longest * 2000ull > 5000000ull ? longest * 2000ull : 5000000ull);
}

uint64_t engine_events_handled(const struct engine *e) {
	return e ? e->handled : 0;
}

int engine_set_foreground(struct engine *e, bool on) {
	if (!e)
		return -EINVAL;
	if (!on)
		e->console = output_close(e->console);
	else if (!e->console)
		return output_console_open(e->loop, &e->console);
	return 0;
}

const struct config *engine_config(const struct engine *e) {
	return e ? e->st.config : NULL;
}

int engine_mntns_foreign(void) {
	return mntns_foreign();
}

const struct rule_stats *engine_rule_stats(const struct engine *e, const char *rule) {
	for (size_t i = 0; e && i < e->st.n_rules; i++)
		if (strcmp(e->st.rules[i].conf->name, rule) == 0)
			return &e->st.rules[i].stats;
	return NULL;
}

unsigned engine_n_marks(const struct engine *e) {
	return e ? e->st.n_placed : 0;
}
