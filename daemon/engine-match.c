/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-match.c — event → rules: every event engine.c reads from the libfsn
 * context comes here (on_fanotify(), on_inotify()), gets its paths, and is
 * matched against the marks of the running state (match_mark(): scope,
 * events, ondir/children, exclusions, process filters, the daemon's own
 * activity, rate limits); a rule reports an event at most once. Records go
 * out through engine.c's emit().
 *
 * fanotify events carry their group, not their mark (a group merges the
 * marks of all rules that share it), so an event is matched against the
 * marks of its group whose scope it can be in: the plan's subtree, else
 * the marked object (an inode mark: the object and, for a directory, its
 * direct children; a filesystem or mount mark: the filesystem, by fsid).
 * Those marks are found in O(1) per event, not by a scan of all marks
 * (struct match_index, rebuilt at each commit): inode marks by the
 * event's FIDs (or, for events without FIDs, by the path and its
 * directory), subtree marks by the path's directories, and the few
 * whole-filesystem marks; they are tried in the state's order, as a scan
 * would.
 * inotify events come per watch: they are matched against the marks on the
 * same inode (engine-marks.c's inode index). An inotify move comes as two events,
 * paired here by cookie into one record with both paths.
 *
 * What an event means beyond its rules is handed on: an overflow to
 * engine-rescan.c, a directory made or moved in a recursive inotify tree to
 * engine-tree.c, a planned mark's object gone to engine-load.c's re-arming.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "log.h"
#include "proc.h"

static bool synth_seen(struct engine *e, const char *path);

void own_files_clear(struct engine *e) {
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
void own_files_refresh(struct engine *e) {
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
	if ((ev->has & FSN_HAS_FID) && fsn_fid_equal(&ev->fid, &m->fid))
		return 1;
	if ((ev->has & FSN_HAS_DFID) && fsn_fid_equal(&ev->dfid, &m->fid)) {
		*child = !self_name;
		return 1;
	}
	if (((ev->has & FSN_HAS_OLD) && fsn_fid_equal(&ev->old_dfid, &m->fid)) ||
	    ((ev->has & FSN_HAS_NEW) && fsn_fid_equal(&ev->new_dfid, &m->fid))) {
		*child = true;
		return 1;
	}
	return (ev->has & (FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_OLD | FSN_HAS_NEW)) ? 0 : -1;
}

bool excluded(const struct erule *r, const char *path) {
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

/* Process information (proc.c) of pid, cached per dispatch (engine_dispatch()
 * starts it over). */
/* What /proc says of pid: from the cache while it is fresh (PCACHE_TTL_USEC),
 * else read anew (lazily, field by field: proc.c). */
static struct proc_info *pinfo_get(struct engine *e, pid_t pid) {
	struct proc_info *p;
	size_t i;

	for (i = 0; i < e->pcache_n; i++)
		if (e->pcache[i].pid == pid)
			break;
	if (i < e->pcache_n && e->pcache_now - e->pcache_at[i] < PCACHE_TTL_USEC)
		return &e->pcache[i];
	if (!e->pcache) {
		e->pcache = calloc(PCACHE_SIZE, sizeof(*e->pcache));
		e->pcache_at = calloc(PCACHE_SIZE, sizeof(*e->pcache_at));
		if (!e->pcache || !e->pcache_at) {
			free(e->pcache);
			free(e->pcache_at);
			e->pcache = NULL;
			e->pcache_at = NULL;
			return NULL;
		}
	}
	if (i == e->pcache_n) { /* a new pid: the next slot, round robin */
		i = e->pcache_next;
		e->pcache_next = (e->pcache_next + 1) % PCACHE_SIZE;
		if (e->pcache_n < PCACHE_SIZE)
			e->pcache_n++;
	}
	p = &e->pcache[i];
	proc_info_init(p, pid);
	e->pcache_at[i] = e->pcache_now;
	return p;
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

/* Resolve a fanotify event's paths into buffers: directory handles and
 * names through libfsn, whose per-group cache of directory paths serves a
 * storm of events in a few directories (fsn_ctx_event_dir_path(): it also
 * keeps that cache right, in the order of each group's queue). */
static void resolve_fanotify(struct engine *e, struct fsn_event *ev, char *path, char *old,
			     size_t len, struct evinfo *x) {
	if ((ev->has & FSN_HAS_NEW) &&
	    fsn_ctx_event_dir_path(e->ctx, ev, &ev->new_dfid, ev->new_name, path, len, NULL) >= 0)
		x->path = path;
	if ((ev->has & FSN_HAS_OLD) &&
	    fsn_ctx_event_dir_path(e->ctx, ev, &ev->old_dfid, ev->old_name, old, len, NULL) >= 0) {
		if (x->path)
			x->old_path = old;
		else
			x->path = old;
	}
	if (!x->path && (ev->has & FSN_HAS_DFID) &&
	    fsn_ctx_event_dir_path(e->ctx, ev, &ev->dfid,
				   (ev->has & FSN_HAS_NAME) ? ev->name : NULL, path, len,
				   NULL) >= 0)
		x->path = path;
	if (!x->path && (ev->has & FSN_HAS_FID) &&
	    fsn_ctx_fid_path(e->ctx, &ev->fid, NULL, path, len, NULL) >= 0)
		x->path = path;
	if (!x->path && ev->fd >= 0 && fsn_ctx_fd_path(e->ctx, ev->fd, path, len, NULL) >= 0)
		x->path = path;
}

/* ---- the marks an event can concern (struct match_index) ---- */

/* A FID as a key: fsid, handle_bytes, handle_type and the handle's bytes
 * (what fsn_fid_equal() compares), contiguous at the start of the struct. */
#define FID_KEY_LEN(f) (offsetof(struct fsn_fid, f_handle) + (f)->handle_bytes)

void match_index_free(struct match_index *ix) {
	strmap_done(&ix->by_fid);
	strmap_done(&ix->by_path);
	strmap_done(&ix->by_subtree);
	free(ix->wide);
	*ix = (struct match_index){ 0 };
}

void match_index_build(struct engine *e, const struct state *s) {
	struct match_index *ix = &e->mix;
	int r = 0;

	match_index_free(ix);
	ix->wide = calloc(s->n_marks + 1, sizeof(*ix->wide));
	for (size_t i = 0; ix->wide && r >= 0 && i < s->n_marks; i++) {
		struct emark *m = s->marks[i];

		m->idx = i;
		if (m->spec.type == FSN_MARK_INOTIFY)
			continue; /* (by inode: engine-marks.c's hash) */
		if (m->have_handle && m->fid.handle_bytes <= FSN_HANDLE_MAX)
			r = strmap_put(&ix->by_fid, &m->fid, FID_KEY_LEN(&m->fid), m);
		if (r < 0)
			break;
		if (m->scope == SCOPE_OBJECT && m->canon) {
			r = strmap_put_str(&ix->by_path, m->canon, m);
			ix->n_path_nofid += !m->have_handle;
		} else if (m->scope == SCOPE_SUBTREE && m->subtree)
			r = strmap_put_str(&ix->by_subtree, m->subtree, m);
		else
			ix->wide[ix->n_wide++] = m;
	}
	if (!ix->wide || r < 0) {
		/* every event is matched against every mark then */
		log_error("indexing the marks: %s; matching events against all of them",
			  strerror(ENOMEM));
		match_index_free(ix);
		ix->wide = malloc((s->n_marks + 1) * sizeof(*ix->wide));
		for (size_t i = 0; ix->wide && i < s->n_marks; i++)
			ix->wide[ix->n_wide++] = s->marks[i];
		if (!ix->wide)
			ix->n_wide = 0;
	}
}

/* The marks one event can concern, in the state's order (a rule reports
 * an event once: by its first mark that matches, as a scan would). At most
 * CANDS_MAX; more (a path in many rules' subtrees), and the event is
 * matched against every mark. */
#define CANDS_MAX 64

struct cands {
	struct emark *v[CANDS_MAX];
	size_t n;
	bool all;
};

static void cands_add(struct cands *c, struct emark *m) {
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i] == m)
			return;
	if (c->n == CANDS_MAX)
		c->all = true;
	else
		c->v[c->n++] = m;
}

/* Every mark from entry x on (the entries of one key); with want_handle 0
 * or 1, only those that have (1) or have not (0) a FID; -1: all. */
static void cands_entries(struct cands *c, struct strmap_entry *x, int want_handle) {
	for (; x; x = strmap_next(x)) {
		struct emark *m = x->value;

		if (want_handle < 0 || m->have_handle == (want_handle == 1))
			cands_add(c, m);
	}
}

static void cands_key(struct cands *c, const struct strmap *map, const void *key, size_t klen,
		      int want_handle) {
	cands_entries(c, strmap_get(map, key, klen), want_handle);
}

/* Inode marks a path concerns: on it, or on its directory (its entry). */
static void cands_path(struct cands *c, const struct match_index *ix, const char *path,
		       int want_handle) {
	const char *slash;

	if (!path)
		return;
	cands_key(c, &ix->by_path, path, strlen(path), want_handle);
	slash = strrchr(path, '/');
	if (slash)
		cands_key(c, &ix->by_path, path, slash == path ? 1 : (size_t)(slash - path),
			  want_handle);
}

/* Subtree marks a path concerns: those of it and of every directory above
 * it (the scope tells how deep each reaches). One pass over the path: the
 * hash of each prefix is carried to the next. */
static void cands_subtree(struct cands *c, const struct match_index *ix, const char *path) {
	uint64_t h = HASH_INIT;
	size_t i;

	if (!path || path[0] != '/' || ix->by_subtree.n == 0)
		return;
	for (i = 0; path[i]; i++) {
		/* "/" itself, then each "/a", "/a/b" ... before a slash */
		if (i > 1 && path[i] == '/')
			cands_entries(c, strmap_get_hashed(&ix->by_subtree, path, i, h), -1);
		h = hash_bytes(h, &path[i], 1);
		if (i == 0)
			cands_entries(c, strmap_get_hashed(&ix->by_subtree, path, 1, h), -1);
	}
	if (i > 1)
		cands_entries(c, strmap_get_hashed(&ix->by_subtree, path, i, h), -1);
}

static void cands_fid(struct cands *c, const struct match_index *ix, const struct fsn_fid *fid) {
	if (fid->handle_bytes <= FSN_HANDLE_MAX)
		cands_key(c, &ix->by_fid, fid, FID_KEY_LEN(fid), 1);
}

static int cand_cmp(const void *a, const void *b) {
	const struct emark *x = *(struct emark *const *)a, *y = *(struct emark *const *)b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void cands_sort(struct cands *c) {
	if (c->n > 1)
		qsort(c->v, c->n, sizeof(c->v[0]), cand_cmp);
}

/* The marks whose own object the event is (object_scope() 1, not a
 * child): by the event's FID, or its directory's FID with no name. */
static void cands_own_object(struct cands *c, const struct match_index *ix,
			     const struct fsn_event *ev) {
	bool self_name = !(ev->has & FSN_HAS_NAME) || !ev->name || strcmp(ev->name, ".") == 0;

	if (ev->has & FSN_HAS_FID)
		cands_fid(c, ix, &ev->fid);
	if ((ev->has & FSN_HAS_DFID) && self_name)
		cands_fid(c, ix, &ev->dfid);
	cands_sort(c);
}

/* Every mark the event x can concern: by FID (inode marks; by path those
 * without one, and all when the event has no FID), by subtree, and the
 * whole-filesystem ones. */
static void cands_event(struct cands *c, const struct match_index *ix, const struct evinfo *x) {
	const struct fsn_event *ev = x->ev;
	bool fids = ev->has & (FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_OLD | FSN_HAS_NEW);

	if (fids) {
		if (ev->has & FSN_HAS_FID)
			cands_fid(c, ix, &ev->fid);
		if (ev->has & FSN_HAS_DFID)
			cands_fid(c, ix, &ev->dfid);
		if (ev->has & FSN_HAS_OLD)
			cands_fid(c, ix, &ev->old_dfid);
		if (ev->has & FSN_HAS_NEW)
			cands_fid(c, ix, &ev->new_dfid);
	}
	/* (with FIDs, only marks without one are looked up by path) */
	if (!fids || ix->n_path_nofid > 0) {
		cands_path(c, ix, x->path, fids ? 0 : -1);
		cands_path(c, ix, x->old_path, fids ? 0 : -1);
	}
	cands_subtree(c, ix, x->path);
	cands_subtree(c, ix, x->old_path);
	for (size_t i = 0; i < ix->n_wide && !c->all; i++)
		cands_add(c, ix->wide[i]);
	cands_sort(c);
}

void on_fanotify(struct engine *e, struct fsn_event *ev) {
	char path[PATH_MAX], old[PATH_MAX];
	struct evinfo x = { .ev = ev };
	struct cands c = { .n = 0 };
	size_t n;

	if (ev->mask & FAN_Q_OVERFLOW) {
		/* (libfsn forgets the group's cached directory paths) */
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
	if ((ev->mask & (FAN_DELETE_SELF | FAN_MOVE_SELF)) || !x.path) {
		struct cands own = { .n = 0 };

		cands_own_object(&own, &e->mix, ev);
		/* a planned inode mark's object went: watch the path again */
		if (ev->mask & (FAN_DELETE_SELF | FAN_MOVE_SELF))
			for (size_t i = 0; i < own.n; i++) {
				struct emark *m = own.v[i];

				if (m->mark && m->spec.type == FSN_MARK_INODE && m->spec.mask)
					mark_gone(e, m,
						  (ev->mask & FAN_DELETE_SELF) ? GONE_DELETED
									       : GONE_MOVED,
						  NULL);
			}
		/* gone, but one of ours: it has the path it was marked with */
		for (size_t i = 0; !x.path && i < own.n; i++)
			if (own.v[i]->mark && own.v[i]->spec.mask)
				x.path = own.v[i]->canon;
	}
	if (!x.path) {
		e->unresolved++;
		log_debug("fanotify event %" PRIx64 " of pid %d: cannot resolve its path", ev->mask,
			  (int)ev->pid);
		return;
	}

	cands_event(&c, &e->mix, &x);
	n = c.all ? e->st.n_marks : c.n;
	for (size_t i = 0; i < n; i++) {
		const struct emark *m = c.all ? e->st.marks[i] : c.v[i];

		/* (exclusions: ignore marks, mask 0, report nothing); only
		 * the marks of the event's group */
		if (!m->mark || m->spec.mask == 0 || m->spec.type == FSN_MARK_INOTIFY ||
		    m->group != ev->group)
			continue;
		match_mark(e, m, &x);
	}
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
	for (struct emark *o = inode_index_chain(&e->inodes, dev, ino); x->bits && o; o = o->hnext)
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

void on_inotify(struct engine *e, struct fsn_event *ev) {
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
			rearm_appeared(e, made);
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
		for (o = inode_index_chain(&e->inodes, m->dev, m->ino); o; o = o->hnext)
			if (o->dev == m->dev && o->ino == m->ino && o->mark && !o->waiter)
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

		for (struct emark *o = inode_index_chain(&e->inodes, dev, ino); o; o = n) {
			n = o->hnext;
			if (o->dev == dev && o->ino == ino)
				inotify_gone(e, o);
		}
		return;
	}
	if (ev->mask & IN_UNMOUNT) {
		/* its filesystem went: IN_IGNORED follows */
		for (struct emark *o = inode_index_chain(&e->inodes, m->dev, m->ino); o;
		     o = o->hnext)
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
			tree_follow(e, m, ev, path);
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
		tree_follow(e, m, ev, path);
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
	for (struct emark *o = inode_index_chain(&e->inodes, m->dev, m->ino); x.bits && o;
	     o = o->hnext)
		if (o->dev == m->dev && o->ino == m->ino && o->mark && !emark_fresh(o))
			match_mark(e, o, &x);
	/* after the directory's own event: what it finds inside comes later */
	tree_follow(e, m, ev, path);
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
void synth_create(struct engine *e, struct emark *root, const char *path, bool is_dir) {
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

/* No IN_MOVED_TO followed the held IN_MOVED_FROM: it moved out. */
void on_move_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;

	flush_from(e);
	tree_settle_move(e, NULL);
}
