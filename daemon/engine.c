/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c — the running daemon between the kernel and the outputs: one
 * libfsn context (its fd in an ev_io), the state it runs (struct state:
 * the config, its plan, the rules, the outputs they use, the marks
 * placed), reporting (records to a rule's outputs, rate limits), how a new
 * state is built and takes over, and the public API (engine.h).
 *
 * engine_load() places a config the first time and diffs on reload: marks
 * with the same (rule, path, spec) on the same object stay in the kernel
 * untouched, new ones are placed before gone ones are removed, outputs are
 * reopened only if their configuration changed, and any failure rolls back
 * to the running state.
 *
 * The engine's pieces share engine-private.h:
 *   engine.c         the state; reading events (ev_io → fsn_ctx_dispatch()
 *                    → engine-match.c); reporting; state building (rules,
 *                    outputs, kept marks claimed, new ones placed,
 *                    rollback, commit); the public API
 *   engine-load.c    the loader (a worker thread reads and plans, then
 *                    batches on the loop run the state building here) and
 *                    what asks for a re-arm (objects gone, mounts)
 *   engine-rearm.c   re-arming: when to plan again, the waiters of
 *                    missing paths (struct rearmer, engine-rearm.h)
 *   engine-marks.c   one placed mark (struct emark): placing, dropping;
 *                    the inode index of inotify marks
 *   engine-tree.c    recursive inotify trees (sub-watches)
 *   engine-match.c   event → rules
 *   engine-rescan.c  overflow recovery (struct rescanner, engine-rescan.h)
 *   engine-retire.c  what a replaced state leaves: its marks out of the
 *                    kernel in batches, its plan and config freed, its
 *                    permission rules' names (struct retirer,
 *                    engine-retire.h)
 *   engine-perm.c    permission rules: the plumbing to the guard thread
 * The --foreground printer is an output (output-console.c) like the
 * config's.
 *
 * State building stays here, not in engine-load.c: it is what a state is
 * made of and how one takes over from another (which marks are kept, which
 * placed, what a commit changes, what a rollback undoes); engine-load.c
 * only decides when each of its steps runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "guard.h"
#include "hasher.h"
#include "heldspool.h"
#include "packages.h"
#include "log.h"

/* Events handled per ev_io callback before the loop gets a turn (signals,
 * timers, the watchdog); the rest stay queued in the context. */
#define DISPATCH_BUDGET 4096

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
struct erule *state_rule(struct state *s, const struct rule_conf *rc) {
	size_t i = s->config ? rule_index(s->config, rc) : SIZE_MAX;

	return i < s->n_rules ? &s->rules[i] : NULL;
}

/* The planned marks of rule rc of config c: p->marks[*first .. *first + *n). */
void rule_marks(const struct plan *p, const struct config *c, const struct rule_conf *rc,
		size_t *first, size_t *n) {
	size_t i = rule_index(c, rc);

	*first = i < c->n_rules ? p->by_rule[i].first : 0;
	*n = i < c->n_rules ? p->by_rule[i].n : 0;
}

bool str_eq(const char *a, const char *b) {
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
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[512];
	struct stat self, other;
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

/* dir's entry name (NULL or ".": dir itself) into buf; its length or -errno. */
int join_name(const char *dir, const char *name, char *buf, size_t len) {
	int n;

	if (!name || !name[0] || strcmp(name, ".") == 0)
		n = snprintf(buf, len, "%s", dir);
	else
		n = snprintf(buf, len, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* dir's entry name, allocated; NULL without memory. */
char *entry_path(const char *dir, const char *name) {
	char *p = NULL;

	return asprintf(&p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name) < 0 ? NULL : p;
}

bool is_dot(const char *name) {
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* The directory name in dirfd (AT_FDCWD: a path) open to read, never
 * through a symlink: its fd, or -errno. */
int opendir_at(int dirfd, const char *name) {
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? negative_errno() : fd;
}

/* ------------------------------------------------------------------------ */
/* libfsn log                                                               */
/* ------------------------------------------------------------------------ */

void on_fsn_log(void *userdata, int priority, const char *msg) {
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

struct eoutput *eoutput_free(struct eoutput *o) {
	if (o) {
		output_close(o->out);
		free(o->name);
		free(o);
	}
	return NULL;
}

struct eoutput *find_eoutput(struct eoutput **v, size_t n, const char *name) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i]->name, name) == 0)
			return v[i];
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* reporting                                                                */
/* ------------------------------------------------------------------------ */

void emit_to(struct engine *e, struct eoutput *const *outs, size_t n, const struct record *rec) {
	for (size_t i = 0; i < n; i++)
		output_emit(outs[i]->out, rec);

	if (e->console)
		output_emit(e->console, rec);
	if (e->record_hook)
		e->record_hook(rec, e->record_hook_data);
}

void engine_set_record_hook(struct engine *e, engine_record_fn fn, void *userdata) {
	e->record_hook = fn;
	e->record_hook_data = userdata;
}

void emit(struct engine *e, struct erule *r, const struct record *rec) {
	const struct record_label *l = &r->conf->label;
	struct record labelled;

	if (r->conf->baseline)
		baseline_note(e, r, rec);
	if (l->n_tags == 0 && (l->severity == 0 || l->severity == RECORD_SEVERITY(LOG_INFO))) {
		emit_to(e, r->outputs, r->n_outputs, rec); /* (the kind's severity, no tags) */
		return;
	}
	labelled = *rec;
	labelled.label = l;
	emit_to(e, r->outputs, r->n_outputs, &labelled);
}

struct erule *erule_find(struct engine *e, const char *name) {
	for (size_t i = 0; name && i < e->st.n_rules; i++)
		if (strcmp(e->st.rules[i].conf->name, name) == 0)
			return &e->st.rules[i];
	return NULL;
}

bool emit_named(struct engine *e, struct erule *r, const char *name, const struct record *rec) {
	const struct retired *t;
	struct eoutput *outs[16];
	size_t n = 0;

	if (r) {
		emit(e, r, rec);
		return true;
	}
	t = retirer_rule(&e->retire, name);
	if (!t)
		return false;
	for (size_t j = 0; j < t->n_outputs && n < ELEMENTSOF(outs); j++) {
		struct eoutput *o = find_eoutput(e->st.outputs, e->st.n_outputs, t->outputs[j]);

		if (o)
			outs[n++] = o;
	}
	emit_to(e, outs, n, rec);
	return n > 0;
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
		r->stats.dropped += r->dropped_pending;
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
bool rate_ok(struct engine *e, struct erule *r) {
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
/* the matcher's collaborators (struct matcher_ops)                         */
/* ------------------------------------------------------------------------ */

/* Resolve a fanotify event's paths into buffers: directory handles and
 * names through libfsn, whose per-group cache of directory paths serves a
 * storm of events in a few directories (fsn_ctx_event_dir_path(): it also
 * keeps that cache right, in the order of each group's queue). */
static void match_resolve(void *userdata, struct fsn_event *ev, char *path, char *old, size_t len,
			  const char **ret_path, const char **ret_old) {
	struct engine *e = userdata;

	if ((ev->has & FSN_HAS_NEW) &&
	    fsn_ctx_event_dir_path(e->ctx, ev, &ev->new_dfid, ev->new_name, path, len, NULL) >= 0)
		*ret_path = path;
	if ((ev->has & FSN_HAS_OLD) &&
	    fsn_ctx_event_dir_path(e->ctx, ev, &ev->old_dfid, ev->old_name, old, len, NULL) >= 0) {
		if (*ret_path)
			*ret_old = old;
		else
			*ret_path = old;
	}
	if (!*ret_path && (ev->has & FSN_HAS_DFID) &&
	    fsn_ctx_event_dir_path(e->ctx, ev, &ev->dfid,
				   (ev->has & FSN_HAS_NAME) ? ev->name : NULL, path, len,
				   NULL) >= 0)
		*ret_path = path;
	if (!*ret_path && (ev->has & FSN_HAS_FID) &&
	    fsn_ctx_fid_path(e->ctx, &ev->fid, NULL, path, len, NULL) >= 0)
		*ret_path = path;
	if (!*ret_path && ev->fd >= 0 && fsn_ctx_fd_path(e->ctx, ev->fd, path, len, NULL) >= 0)
		*ret_path = path;
}

static int match_stat(void *userdata, const struct fsn_event *ev, struct record_attrs *ret) {
	struct engine *e = userdata;

	return attr_lookup_event(&e->attr_lookup, e->ctx, ev, ret);
}

static bool match_admit(void *userdata, struct erule *r) {
	return rate_ok(userdata, r);
}

static void match_report(void *userdata, struct erule *r, const struct record *rec) {
	struct engine *e = userdata;

	e->events++;
	emit(e, r, rec);
}

static void match_emit(void *userdata, struct erule *r, const struct record *rec) {
	emit(userdata, r, rec);
}

static void match_lost(void *userdata, struct erule *r) {
	struct engine *e = userdata;

	rescanner_lost(&e->rescan, r);
}

static void match_overflowed(void *userdata, const struct fsn_event *ev, const char *names) {
	struct engine *e = userdata;

	e->overflows++;
	rescanner_overflowed(&e->rescan, ev, names);
}

static void match_gone(void *userdata, struct emark *m, bool deleted) {
	mark_gone(userdata, m, deleted ? GONE_DELETED : GONE_MOVED, NULL);
}

static void match_moved_out(void *userdata) {
	tree_settle_move(userdata, NULL);
}

static const struct matcher_ops match_ops = {
	.resolve = match_resolve,
	.admit = match_admit,
	.report = match_report,
	.emit = match_emit,
	.lost = match_lost,
	.overflowed = match_overflowed,
	.gone = match_gone,
	.moved_out = match_moved_out,
	.stat = match_stat,
	.hash = evidence_hash_event,
	.package = evidence_package,
};

/* A directory made while events were lost, in a recursive inotify tree. */
static void rescan_watch(void *userdata, struct emark *root, int dfd, const char *dir) {
	struct engine *e = userdata;

	(void)sub_watch_add(e, &e->st, root, dfd, dir);
}

/* The rescanner reports as the matcher does. */
static bool rescan_attrs(void *userdata, const struct record_attrs *now,
			 struct record_attrs *before) {
	struct engine *e = userdata;

	return matcher_swap_attrs(&e->match, now, before);
}

static void rescan_hash(void *userdata, struct erule *r, int fd, const struct record *rec) {
	evidence_hash_fd(userdata, r, fd, rec);
}

static bool rescan_compare(void *userdata, struct erule *r) {
	return baseline_overflowed(userdata, r);
}

static const struct rescanner_ops rescan_ops = {
	.compare = rescan_compare,
	.admit = match_admit,
	.report = match_report,
	.watch = rescan_watch,
	.attrs = rescan_attrs,
	.hash = rescan_hash,
};

static void retire_drop(void *userdata, struct emark *m) {
	mark_drop(userdata, m);
}

static const struct retirer_ops retire_ops = {
	.drop = retire_drop,
};

static bool rearm_busy(void *userdata) {
	struct engine *e = userdata;

	return e->loader.cur != NULL;
}

/* A re-arm: the running config planned and placed again. */
static int rearm_replan(void *userdata) {
	return load_begin(userdata, NULL, NULL, NULL);
}

static const struct rearmer_ops rearm_ops = {
	.busy = rearm_busy,
	.replan = rearm_replan,
};

/* The running state's outputs were opened or reopened. */
void outputs_opened(struct engine *e) {
	static const int fds[] = { STDOUT_FILENO, STDERR_FILENO };
	_cleanup_free_ const char **paths = calloc(e->st.n_outputs + 1, sizeof(*paths));
	size_t n = 0;
	bool exec = false;

	for (size_t i = 0; i < e->st.n_outputs; i++) {
		const struct output_conf *oc = e->st.outputs[i]->conf;

		if (paths && oc->type == OUTPUT_JSON && oc->file && strcmp(oc->file, "-") != 0)
			paths[n++] = oc->file;
		if (oc->type == OUTPUT_EXEC)
			exec = true;
	}
	matcher_own_files(&e->match, fds, ELEMENTSOF(fds), paths, n);
	matcher_own_children(&e->match, exec);
}

/* ------------------------------------------------------------------------ */
/* reading events                                                           */
/* ------------------------------------------------------------------------ */

/* The watch of m is gone (IN_IGNORED): deleted, unmounted, or moved away. */
static void inotify_gone(struct engine *e, struct emark *m) {
	unsigned *count =
	    emark_fresh(m) && e->loader.cur ? &e->loader.cur->s.n_placed : &e->st.n_placed;

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

/* An inotify event: what it means for the watches (gone, unmounted), the
 * waiters for missing paths and the recursive trees is handled here, the
 * rest goes to the matcher. */
static void on_inotify(struct engine *e, struct fsn_event *ev) {
	char path[PATH_MAX];
	struct emark *m;

	matcher_inotify_begin(&e->match, ev);
	if (ev->mask & IN_Q_OVERFLOW) {
		matcher_overflow(&e->match, ev);
		return;
	}
	m = ev->mark ? fsn_mark_get_userdata(ev->mark) : NULL;
	if (!m || !m->canon)
		return;
	if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && ev->name)
		rearmer_made(&e->rearm, m->canon, ev->name);
	if (m->waiter) {
		struct emark *o = NULL;

		if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
			/* the directory waited in went: wait higher up */
			rearmer_soon(&e->rearm);
		}
		/* one kernel watch serves every mark on the directory, and the
		 * event may have come by the waiter's: a rule's watch there
		 * gets it */
		for (o = inode_index_first(&e->inodes, m->dev, m->ino); o; o = inode_index_next(o))
			if (o->mark && !o->waiter)
				break;
		if (!o)
			return;
		m = o;
	}
	tree_settle_move(e, ev);
	if (ev->mask & IN_IGNORED) {
		/* every mark on that watch is dead */
		dev_t dev = m->dev;
		ino_t ino = m->ino;
		struct emark *n;

		for (struct emark *o = inode_index_first(&e->inodes, dev, ino); o; o = n) {
			n = inode_index_next(o);
			inotify_gone(e, o);
		}
		return;
	}
	if (ev->mask & IN_UNMOUNT) {
		/* its filesystem went: IN_IGNORED follows */
		for (struct emark *o = inode_index_first(&e->inodes, m->dev, m->ino); o;
		     o = inode_index_next(o))
			if (!o->parent)
				mark_gone(e, o, GONE_UNMOUNTED,
					  mountwatch_point(e->mounts, o->mnt_id));
		return;
	}
	/* a planned watch's object went or moved away: watch the path again
	 * (IN_IGNORED follows a deletion, see inotify_gone()) */
	if ((ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) && !m->parent)
		mark_gone(e, m, (ev->mask & IN_DELETE_SELF) ? GONE_DELETED : GONE_MOVED, NULL);

	(void)join_name(m->canon, ev->name, path, sizeof(path)); /* (cut at PATH_MAX) */
	matcher_inotify(&e->match, m, ev, path);
	/* after the directory's own event: what it finds inside comes later */
	tree_follow(e, m, ev, path);
}

static int on_event(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct engine *e = userdata;

	e->handled++;
	if (ev->source == FSN_SOURCE_INOTIFY)
		on_inotify(e, ev);
	else /* (a held inotify move waits for inotify's next event) */
		matcher_fanotify(&e->match, ev);
	if (e->budget > 0 && --e->budget == 0)
		return -EAGAIN; /* give the loop a turn; the rest stays queued */
	return 0;
}

/* The daemon is behind the kernel's queues: its reader thread holds more
 * than a 32nd of what it may (512 KiB of the default 16 MiB: some thousands
 * of events). Then what costs a system call per record
 * and can be left out (a rule's attributes) is, so that no event is lost
 * for it. */
static bool behind(const struct engine *e) {
	struct fsn_reader_stats rs;

	return fsn_ctx_get_reader_stats(e->ctx, &rs) == 0 && rs.max > 0 && rs.bytes > rs.max / 32;
}

/* Handle what is queued, at most budget events (0: no limit). Returns the
 * number handled, or -errno. */
static int engine_dispatch(struct engine *e, unsigned budget) {
	int r;

	e->budget = budget;
	matcher_batch(&e->match, now_monotonic_usec());
	matcher_shed_attrs(&e->match, behind(e));
	r = fsn_ctx_dispatch(e->ctx, on_event, e);
	matcher_batch_end(&e->match);
	attr_lookup_end(&e->attr_lookup);
	e->budget = 0;
	if (r == -EAGAIN)
		return (int)budget; /* more may be queued */
	/* (a held move, the matcher's or a tree's, waits a moment for its
	 * IN_MOVED_TO) */
	matcher_drained(&e->match, e->move.path != NULL);
	if (r >= 0 && fsn_ctx_is_drained(e->ctx))
		rescanner_drained(&e->rescan, now_realtime_usec()); /* (see rescanner_lost()) */
	if (r < 0)
		log_error("reading events: %s", strerror(-r));
	return r;
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents) {
	/* a whole budget handled: more is queued (a storm); let a thread the
	 * CPU is shared with (the permission thread) run before the next */
	if (engine_dispatch(w->data, DISPATCH_BUDGET) == DISPATCH_BUDGET)
		sched_yield();
}

/* ------------------------------------------------------------------------ */
/* state building                                                           */
/* ------------------------------------------------------------------------ */

void log_plan_problem(const struct plan_problem *pp) {
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
		    pp->path ? "\"" : "", pp->msg, pp->fatal ? " (the rule is required)" : "");
}

void log_plan_problems(const struct plan *p) {
	for (size_t i = 0; i < p->n_problems; i++)
		log_plan_problem(&p->problems[i]);
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
	e->started_usec = now_realtime_usec();
	e->started_mono = now_monotonic_usec();
	e->foreign_mntns = mntns_foreign();
	r = fsn_prober_new(&e->prober);
	if (r >= 0)
		r = fsn_ctx_new(&e->ctx);
	if (r < 0) {
		fsn_prober_free(e->prober);
		free(e);
		return r;
	}
	fsn_ctx_set_log(e->ctx, on_fsn_log, e);
	/* the pidfds of a rule's who (guard.h: reserved for it) */
	{
		struct fsn_fd_budget *b = NULL;

		if (fsn_fd_budget_new(ENGINE_PIDFDS, &b) == 0)
			(void)fsn_ctx_set_fd_budget(e->ctx, b);
		fsn_fd_budget_unref(b);
	}
	ev_io_init(&e->io, on_io, fsn_ctx_get_fd(e->ctx), EV_READ);
	e->io.data = e;
	ev_io_start(loop, &e->io);
	ev_timer_init(&e->drop_timer, on_drop_timer, 0., 1.);
	e->drop_timer.data = e;
	matcher_init(&e->match, &match_ops, e, loop, &e->inodes, getpid());
	attr_lookup_init(&e->attr_lookup);
	rescanner_init(&e->rescan, &rescan_ops, e, loop, &e->st);
	retirer_init(&e->retire, &retire_ops, e, loop, &e->inodes);
	rearmer_init(&e->rearm, &rearm_ops, e, loop, e->ctx);
	r = mountwatch_new(loop, on_mounts, e, &e->mounts);
	if (r < 0)
		log_warning("cannot watch the mount table (/proc/self/mountinfo): %s; unmounts "
			    "under fanotify marks are not noticed",
			    strerror(-r));
	*ret = e;
	return 0;
}

struct engine *engine_free(struct engine *e) {
	if (!e)
		return NULL;
	/* the metrics files show the counters at the stop */
	metrics_outputs_write(e);
	free(e->loader.queued.path); /* (not started by the abort below) */
	e->loader.queued.path = NULL;
	load_abort(e);
	matcher_done(&e->match);
	rescanner_done(&e->rescan);
	/* the files still waiting: their content records say "stopped"; then
	 * the changes waiting for dpkg's word are checked as they stand */
	e->hasher = hasher_free(e->hasher);
	e->pkgdb = pkgdb_free(e->pkgdb);
	e->held = heldspool_close(e->held); /* (emptied: the held went out above) */
	/* what the rules with baseline reported, recorded (a few seconds at most) */
	baseline_free(e);
	ev_io_stop(e->loop, &e->io);
	ev_timer_stop(e->loop, &e->drop_timer);
	rearmer_done(&e->rearm); /* (after the load: its rollback may ask for a re-arm) */
	e->mounts = mountwatch_free(e->mounts);
	/* every permission event answered first (reports still reach the outputs) */
	e->guard = guard_free(e->guard);
	perm_free(&e->st, false);
	retirer_done(&e->retire); /* (after the guard: its last reports name retired rules) */
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
	fsn_prober_free(e->prober);
	e->console = output_close(e->console);
	inode_index_done(&e->inodes);
	free(e->move.path);
	free(e);
	return NULL;
}

int engine_load(struct engine *e, const char *path, engine_load_fn done, void *userdata) {
	char *copy;

	if (!e || !path)
		return -EINVAL;
	if (!e->loader.cur || e->loader.cur->path)
		return load_begin(e, path, done, userdata);
	/* a replan runs (it cannot be stopped midway: it shares the running
	 * config): this load follows it */
	if (e->loader.queued.path)
		return -EBUSY;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	e->loader.queued.path = copy;
	e->loader.queued.done = done;
	e->loader.queued.userdata = userdata;
	return 0;
}

uint64_t engine_load_progress(const struct engine *e) {
	return e ? e->loader.progress : 0;
}

void engine_reopen_outputs(struct engine *e) {
	for (size_t i = 0; e && i < e->st.n_outputs; i++) {
		int r = output_reopen(e->st.outputs[i]->out);

		if (r < 0)
			log_error("output '%s': reopening: %s", e->st.outputs[i]->name,
				  strerror(-r));
	}
	if (e)
		outputs_opened(e);
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
	if (e->match.unresolved > 0)
		APPEND(", %" PRIu64 " events without a path (directory gone)", e->match.unresolved);
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

void engine_set_control_counters(struct engine *e, engine_control_fn fn, void *userdata) {
	e->control_fn = fn;
	e->control_data = userdata;
}

bool engine_control_counters(const struct engine *e, struct control_counters *ret) {
	*ret = (struct control_counters){ 0 };
	if (!e || !e->control_fn)
		return false;
	e->control_fn(e->control_data, ret);
	return true;
}
