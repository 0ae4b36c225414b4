/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-private.h — what the pieces of the engine share, internal to
 * them: the running state (struct engine, struct state and what hangs off
 * it: struct erule, struct eoutput, struct emark, struct eperm), the
 * loader (struct loader) and a load in progress (struct load), and the
 * functions one piece calls in another, grouped by the file that defines
 * them. A piece that owns its state has a header of its own, with its
 * struct and functions that take it (the matcher: engine-match.h; the
 * rescanner: engine-rescan.h; the retirer: engine-retire.h; the rearmer:
 * engine-rearm.h); struct engine holds it. engine.h is the engine's public
 * face; nothing outside engine.c, engine-load.c, engine-rearm.c,
 * engine-marks.c, engine-tree.c, engine-match.c, engine-rescan.c,
 * engine-retire.c, engine-perm.c, metrics.c (which reads the state) and
 * the unit tests of the pieces includes this.
 */
#pragma once

#include <dirent.h>
#include <ev.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine-match.h"
#include "engine-rearm.h"
#include "engine-rescan.h"
#include "engine-retire.h"
#include "engine.h"
#include "mounts.h"
#include "output.h"
#include "pathset.h"
#include "plan.h"
#include "util.h"

struct guard;
struct guard_rule;
struct policy;

/* Event bits the daemon reports (FAN_* values; the common IN_* are equal). */
#define EVENT_BITS                                                                                 \
	(FAN_ACCESS | FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE | FAN_OPEN |   \
	 FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE | FAN_DELETE | FAN_DELETE_SELF |               \
	 FAN_MOVE_SELF | FAN_OPEN_EXEC | FAN_FS_ERROR | FAN_RENAME)
/* Events a directory reports about its entries (not a child's own events). */
#define DIRENT_BITS (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)
/* inotify: what a recursive watch needs to follow new directories. */
#define IN_TREE_BITS (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM)

/* The longest a load (start, reload) or the removal of a replaced state's
 * marks holds the loop in one go; events are handled between batches. */
#define LOAD_BATCH_USEC 10000

/* A load about to take over waits for the word on the running marks whose
 * objects left their paths (load_heard()): at most this long, looking
 * again every LOAD_HEAR_POLL seconds. */
#define LOAD_HEAR_USEC 2000000
#define LOAD_HEAR_POLL 0.002

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
	const struct erule *prev; /* a load: the running state's rule of that name, whose
				   * counters it continues at the commit */
	struct eoutput **outputs;
	size_t n_outputs;
	struct pathset excl; /* exclude: as configured, and canonical where that differs */
	unsigned limit;      /* events per second, 0 = unlimited */
	uint64_t window;     /* monotonic second of the current window */
	unsigned in_window;
	uint64_t dropped_pending;     /* rate-limited, not yet reported */
	uint64_t seen;                /* sequence number of the last event it reported */
	unsigned n_marks;             /* marks placed */
	unsigned n_failed;            /* marks that could not be placed */
	bool limit_logged;            /* the max_marks warning was logged */
	struct perm_counts last_perm; /* permission rules: counters last reported */
	bool limit_hit;               /* recursive inotify: a watch did not fit (ENOSPC) */
	bool rescan_pending;          /* an overflow hit it: rescan its scope */
	bool rescan_quiet;            /* ... its baseline reports instead (a rescan in progress) */
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
	/* fanotify: fsn_mark_get_group(mark) while placed, the group its
	 * events come with (NULL: an inotify watch) */
	struct fsn_group *group;
	struct emark *parent; /* sub-watch: the planned mark it serves */
	struct emark **subs;  /* planned recursive inotify mark: its sub-watches */
	size_t n_subs, subs_cap;
	/* ... and their index by canonical path (the subs' sidx_node) */
	struct fsn_hmap sidx;
	size_t sub_pos; /* sub-watch: its index in parent->subs */
	/* sub-watch: in the parent's sidx; inotify: in the inode index */
	struct fsn_hnode sidx_node, inode_node;
	bool kept;       /* reload: claimed by the new state */
	bool fresh;      /* reload: placed for the new state */
	bool retired;    /* reload: its state is gone, it leaves the kernel soon */
	bool gone;       /* its object went (re-arming: see mark_gone()) */
	bool waiter;     /* a watch for a missing path's next component (engine-rearm.c) */
	bool stale;      /* sub-watch: elsewhere than its path said when a directory
			  * appeared in it; read again when renamed (engine-tree.c) */
	bool stale_made; /* ... and one of those directories was made there */
	size_t idx;      /* planned marks: its index in the state's marks (match_index) */
	char *next;      /* waiter: the path that, created, re-arms (key of its waiting) */
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

/* inotify marks by inode (engine-marks.c): inotify events come per watch,
 * and every mark on the watch's inode hears them. emark's inode_node in a
 * shared/hashmap.h table, keyed by dev and ino. */
struct inode_index {
	struct fsn_hmap map;
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

/* The loader's own state (engine-load.c): the load in progress, the one
 * asked for meanwhile, and what the loads did. The loader is the one piece
 * that works on the whole engine: a load builds a new state beside the
 * running one (struct load) and commits it; the other pieces have structs
 * of their own and are handed what they need. */
struct loader {
	struct load *cur; /* a config being loaded, NULL if none */
	/* engine_load() while a replan runs: started when it is over */
	struct {
		char *path;
		engine_load_fn done;
		void *userdata;
	} queued;
	bool raced;        /* a planned path went or changed before its mark was placed
			    * (engine-marks.c) */
	uint64_t progress; /* steps the loads made (for EXTEND_TIMEOUT_USEC) */
};

struct engine {
	struct ev_loop *loop;
	ev_io io;
	ev_timer drop_timer;
	struct fsn_ctx *ctx;
	struct guard *guard; /* permission rules' thread, once there were any */
	bool mlocked;
	bool fd_budget_warned; /* said that permission events' fds are counted */
	struct state st;
	struct loader loader;      /* configs loaded and committed (engine-load.c) */
	struct mountwatch *mounts; /* the mount table: unmounts and mounts over paths */
	struct fsn_prober *prober; /* feature probes per filesystem, across reloads */
	int foreign_mntns; /* mntns_foreign(): 1 a namespace of its own, 0 shared, <0 unknown */
	struct output *console;       /* --foreground: events also on stdout (output-console.c) */
	engine_record_fn record_hook; /* the control socket's subscribers */
	engine_control_fn control_fn; /* the control socket's counters (metrics) */
	void *control_data;
	void *record_hook_data;
	bool placing_tree; /* place_planned() walks a new tree: limits are its business */

	struct matcher match;           /* event → rules (engine-match.c) */
	struct attr_lookup attr_lookup; /* files looked at (a rule's attributes, hash) */
	struct hasher *hasher;          /* files hashed (a rule's hash); once there was one */
	struct pkgdb *pkgdb;            /* dpkg's md5sums (a rule's packages), while one has */
	struct heldspool *held;         /* the records held for dpkg's word, on disk too */
	struct bstate *baseline; /* rules' baselines (engine-baseline.c); once there was one */
	uint64_t pkg_dropped;    /* dpkg's changes as its database lists them, dropped */
	struct rescanner rescan; /* overflow recovery (engine-rescan.c) */
	struct retirer retire;   /* what replaced states leave (engine-retire.c) */
	struct rearmer rearm;    /* re-arming and its waiters (engine-rearm.c) */

	struct inode_index inodes; /* inotify marks by inode (engine-marks.c) */

	/* counters */
	uint64_t started_usec; /* realtime: engine_new() */
	uint64_t started_mono; /* monotonic us: the same moment */
	uint64_t loaded_usec;  /* realtime: the last commit of a config (0: none yet) */
	uint64_t handled;
	uint64_t events, overflows, dropped, decisions;
	bool reloaded;
	char reload_error[512];

	/* the libfsn log, captured while placing a mark */
	bool capturing;
	char captured[1024];

	/* a recursive inotify tree's directory that moved away (engine-tree.c) */
	struct pending_move move;
	unsigned budget;
};

/* Why a planned mark's path no longer names its object. */
enum gone_why { GONE_DELETED, GONE_MOVED, GONE_COVERED, GONE_UNMOUNTED };

/* ------------------------------------------------------------------------ */
/* a load in progress                                                       */
/* ------------------------------------------------------------------------ */

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

/* A config being loaded (see engine-load.c). */
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
	uint64_t cpu_usec; /* CPU time its work took: the worker's and the batches' */
	uint64_t prepare_start;
	bool *say;              /* the plan's problems to log (NULL: all) */
	bool changed;           /* a replan: it placed a mark anew, or its problems differ */
	bool raced;             /* a planned path went or changed before its mark was placed */
	struct emark **unheard; /* running marks whose objects went unheard (load_heard()) */
	size_t n_unheard;
	uint64_t hear_since; /* when load_heard() began to wait (0: not yet) */
	char err[2048];
};

/* ------------------------------------------------------------------------ */
/* what the pieces call in each other                                       */
/* ------------------------------------------------------------------------ */

/* ---- engine.c ---- */

/* small helpers */
struct erule *state_rule(struct state *s, const struct rule_conf *rc);
void rule_marks(const struct plan *p, const struct config *c, const struct rule_conf *rc,
		size_t *first, size_t *n);
bool str_eq(const char *a, const char *b);
int join_name(const char *dir, const char *name, char *buf, size_t len);
char *entry_path(const char *dir, const char *name);
bool is_dot(const char *name);
int opendir_at(int dirfd, const char *name);
/* the libfsn log (also the guard rules') */
void on_fsn_log(void *userdata, int priority, const char *msg);
struct eoutput *find_eoutput(struct eoutput **v, size_t n, const char *name);
/* o closed and freed; NULL */
struct eoutput *eoutput_free(struct eoutput *o);
/* reporting */
void emit_to(struct engine *e, struct eoutput *const *outs, size_t n, const struct record *rec);
void emit(struct engine *e, struct erule *r, const struct record *rec);
/* The running state's rule named name, or NULL. */
struct erule *erule_find(struct engine *e, const char *name);
/* A record of rule name (r: that rule, already looked up, or NULL): to the
 * rule's outputs, or to those of the same names as a retired rule's; false
 * if neither exists. */
bool emit_named(struct engine *e, struct erule *r, const char *name, const struct record *rec);
bool rate_ok(struct engine *e, struct erule *r);
/* The pidfds (a rule's who: FAN_REPORT_PIDFD) the loop's reads of events
 * may hold at once: the engine context's fd budget (a read of a FID group
 * needs room for 33 of its smallest events: libfsn fdbudget.c). */
#define ENGINE_PIDFDS 256
/* engine-baseline.c: at a commit, the rules with baseline compared that
 * were not (the start, a new rule or new paths), the others' forgotten;
 * a record of such a rule noted, to be recorded silently; after an
 * overflow, the comparison instead of the rescan's records (true). */
void baseline_commit(struct engine *e, const struct config *c);
void baseline_note(struct engine *e, struct erule *r, const struct record *rec);
bool baseline_overflowed(struct engine *e, struct erule *r);
void baseline_free(struct engine *e);
uint64_t baseline_disk_bytes_of(const struct engine *e);
/* A rule's baseline as the metrics say it: its last scan's objects and
 * whether it stopped at limits.baseline_objects, the differences reported
 * since the start, the jobs that failed. */
struct baseline_stats {
	char *rule;
	uint64_t objects, created, deleted, renamed, changed, failures;
	uint64_t incomplete; /* 0 or 1 */
};
size_t baseline_stats_of(const struct engine *e, const struct baseline_stats **ret);

/* dpkg's database: its md5sums files (a rule's packages) */
#define DPKG_ADMINDIR "/var/lib/dpkg"
/* engine-evidence.c: at a commit, the hasher started when c has a rule
 * with hash or packages, its limits c's, and dpkg's database indexed for
 * the paths of those with packages; the matcher's hash and package ops
 * (engine-match.h); a rescan record's file, fd (O_PATH, taken) or -errno,
 * hashed for its content record. */
void evidence_commit(struct engine *e, const struct config *c);
/* Once the new state runs: the first with a rule with packages "drop"
 * opens the state directory's spool of held records, and reports what a
 * killed predecessor held (heldspool.h). */
void evidence_running(struct engine *e);
void evidence_hash_event(void *userdata, struct erule *r, const struct fsn_event *ev,
			 const struct record *rec);
int evidence_package(void *userdata, struct erule *r, const struct fsn_event *ev,
		     const struct record *rec, struct proc_info *p);
void evidence_hash_fd(struct engine *e, struct erule *r, int fd, const struct record *rec);
/* Write the running state's metrics outputs now (a config took over, the stop). */
void metrics_outputs_write(struct engine *e);
/* The running state's outputs were opened or reopened: what the matcher
 * knows of them (the files the daemon writes, whether it runs commands). */
void outputs_opened(struct engine *e);
void log_plan_problems(const struct plan *p);
void log_plan_problem(const struct plan_problem *pp);

/* ---- engine-marks.c ---- */

/* the inode index: the marks on dev:ino, inode_index_first() and then
 * inode_index_next() until NULL (take the next before removing a mark) */
struct emark *inode_index_first(const struct inode_index *ix, dev_t dev, ino_t ino);
struct emark *inode_index_next(const struct emark *m);
int inode_index_add(struct inode_index *ix, struct emark *m);
void inode_index_remove(struct inode_index *ix, struct emark *m);
void inode_index_done(struct inode_index *ix);
int emark_new(struct engine *e, struct erule *rule, const struct fsn_mark_spec *spec,
	      const char *path, struct emark *parent, struct emark **ret);
struct emark *emark_free(struct emark *m);
bool emark_fresh(const struct emark *m);
bool spec_equal(const struct fsn_mark_spec *a, const struct fsn_mark_spec *b);
bool emark_same_object(const struct emark *m);
void mark_failure(struct engine *e, struct emark *m, int r, const char *why);
int emark_place(struct engine *e, struct emark *m, unsigned *count, unsigned max_marks, char *why,
		size_t whylen);
void emark_unplace(struct engine *e, struct emark *m, unsigned *count);
void mark_drop_counted(struct engine *e, struct emark *m, unsigned *count);
void mark_drop(struct engine *e, struct emark *m);

/* ---- engine-tree.c ---- */

bool has_sub(const struct emark *root, const char *path);
/* the sub-watch of dir, placed on the directory dfd is open on */
bool sub_watch_add(struct engine *e, struct state *s, struct emark *root, int dfd, const char *dir);
/* an fd to read root's directory by, if it is still the one watched */
int tree_open_top(const struct emark *root);
void sub_remove(struct emark *parent, struct emark *sub);
void drop_subs(struct engine *e, struct emark *m, unsigned *count);
int dirq_push(struct dirq *q, char *path, bool self);
bool dirq_pop(struct dirq *q, struct dirq_item *ret);
void dirq_done(struct dirq *q);
void tree_scan(struct engine *e, struct state *s, struct emark *root, const char *dir, bool self,
	       bool synth, struct dirq *q);
/* inotify events of a tree's directories: made, moved in, moved away */
void tree_follow(struct engine *e, struct emark *m, const struct fsn_event *ev, const char *path);
void tree_settle_move(struct engine *e, const struct fsn_event *ev);
int apply_watch_limit(struct engine *e, struct state *s, struct emark *m, char *why, size_t whylen);

/* ---- engine-perm.c ---- */

int perm_begin(struct engine *e, struct state *s);
int perm_rule(struct engine *e, struct state *s, const struct state *old, size_t i,
	      struct eperm **place);
int perm_place_mark(struct engine *e, struct state *s, struct eperm *ep, const struct plan_mark *pm,
		    char *err, size_t errlen);
int perm_end(struct engine *e, struct state *s, char *err, size_t errlen);
int perm_policy(const struct state *s, const struct eperm *ep, struct policy **ret);
int perm_commit(struct engine *e, struct state *s);
/* What the daemon's own fd users of config c (plan p) may hold, added to
 * r (placing: also the objects of a state being placed); guard.h. */
struct guard_fd_reserve;
void perm_fd_reserve(const struct config *c, const struct plan *p, bool placing,
		     struct guard_fd_reserve *r);
/* Give the permission events what is left of RLIMIT_NOFILE (engine-perm.c). */
void perm_fd_budget_update(struct engine *e, const struct state *run, const struct state *next);
void perm_free(struct state *s, bool discard_fresh);

/* ---- engine-load.c ---- */

int load_begin(struct engine *e, const char *path, engine_load_fn done, void *userdata);
void load_abort(struct engine *e);
void mark_gone(struct engine *e, struct emark *m, enum gone_why why, const char *mount);
void on_mounts(const struct mount_entry *gone, size_t n_gone, const struct mount_entry *added,
	       size_t n_added, void *userdata);
/* A state's rules freed (the engine's at its end). */
void state_free_rules(struct state *s);
