/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-match.c — the engine's matcher (struct matcher, engine-match.h):
 * event → rules. engine.c hands it every event it reads from the libfsn
 * context (matcher_fanotify(); matcher_inotify() for what the other pieces
 * did not take); it gets the event's paths and matches it against the
 * marks of the running state (match_mark(): scope, events, ondir/children,
 * exclusions, process filters, the daemon's own activity, rate limits); a
 * rule reports an event at most once. Records go out through the engine
 * (struct matcher_ops).
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
 * same inode (engine-marks.c's inode index). An inotify move comes as two
 * events, paired here by cookie into one record with both paths.
 *
 * What an event means beyond its rules is handed on through the ops: an
 * overflow's rescan to engine-rescan.c, a planned mark's object gone to
 * engine-load.c's re-arming. (inotify events that change a watch or a
 * tree never reach it: engine.c gives them to the other pieces.)
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
#include <poll.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "engine-match.h"
#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "log.h"
#include "proc.h"

static bool synth_seen(struct matcher *mt, const char *path);

/* ------------------------------------------------------------------------ */
/* the daemon's own files                                                   */
/* ------------------------------------------------------------------------ */

/* The entries made in and gone from a directory are heard (so the names
 * the daemon's files have there are known without asking) when its watch
 * reports these. */
#define OWN_NAME_BITS (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)

static bool is_own(const struct matcher *mt, dev_t dev, ino_t ino) {
	for (size_t i = 0; i < mt->n_own; i++)
		if (mt->own[i].dev == dev && mt->own[i].ino == ino)
			return true;
	return false;
}

static struct ownname *own_name_find(struct matcher *mt, dev_t dir_dev, ino_t dir_ino,
				     const char *name) {
	for (size_t i = 0; i < mt->n_own_names; i++) {
		struct ownname *o = &mt->own_names[i];

		if (o->dir_ino == dir_ino && o->dir_dev == dir_dev && strcmp(o->name, name) == 0)
			return o;
	}
	return NULL;
}

static void own_name_forget(struct matcher *mt, struct ownname *o) {
	free(o->name);
	/* (in the order learned: the oldest first) */
	memmove(o, o + 1, (size_t)(&mt->own_names[mt->n_own_names] - (o + 1)) * sizeof(*o));
	mt->n_own_names--;
}

/* name in the directory dir_dev:dir_ino is the daemon's file dev:ino. */
static void own_name_learn(struct matcher *mt, dev_t dir_dev, ino_t dir_ino, const char *name,
			   dev_t dev, ino_t ino) {
	struct ownname *o = own_name_find(mt, dir_dev, dir_ino, name);
	char *copy;

	if (!o) {
		if (!(copy = strdup(name)))
			return;
		if (mt->n_own_names == OWN_NAMES_MAX)
			own_name_forget(mt, &mt->own_names[0]);
		o = &mt->own_names[mt->n_own_names++];
		*o = (struct ownname){ .dir_dev = dir_dev, .dir_ino = dir_ino, .name = copy };
	}
	o->dev = dev;
	o->ino = ino;
}

/* The name the daemon's file dev:ino has at path (canonical: its
 * directory's identity, and its last component). */
static void own_name_learn_path(struct matcher *mt, const char *path, dev_t dev, ino_t ino) {
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;
	size_t n;

	if (!slash || !slash[1])
		return;
	n = slash == path ? 1 : (size_t)(slash - path); /* (the root: "/") */
	if (n >= sizeof(dir))
		return;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (stat(dir, &st) == 0)
		own_name_learn(mt, st.st_dev, st.st_ino, slash + 1, dev, ino);
}

static void own_files_clear(struct matcher *mt) {
	for (size_t i = 0; i < mt->n_own; i++)
		free(mt->own[i].path);
	free(mt->own);
	mt->own = NULL;
	mt->n_own = 0;
}

static void own_file_add(struct matcher *mt, int fd, const char *path) {
	struct ownfile *v;
	struct stat st;

	if ((path ? stat(path, &st) : fstat(fd, &st)) < 0 || !S_ISREG(st.st_mode))
		return;
	v = realloc(mt->own, (mt->n_own + 1) * sizeof(*v));
	if (!v)
		return;
	mt->own = v;
	mt->own[mt->n_own++] = (struct ownfile){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.fd = path ? -1 : fd,
		.path = path ? canonical(path) : NULL,
	};
}

void matcher_own_files(struct matcher *mt, const int *fds, size_t n_fds, const char *const *paths,
		       size_t n_paths) {
	own_files_clear(mt);
	for (size_t i = 0; i < n_fds; i++)
		own_file_add(mt, fds[i], NULL);
	for (size_t i = 0; i < n_paths; i++)
		own_file_add(mt, -1, paths[i]);
	mt->own_names_lost = false;
	/* names learned for files the daemon no longer writes are not its */
	for (size_t i = mt->n_own_names; i > 0; i--)
		if (!is_own(mt, mt->own_names[i - 1].dev, mt->own_names[i - 1].ino))
			own_name_forget(mt, &mt->own_names[i - 1]);
	/* the names its files have now (the std streams' as /proc says) */
	for (size_t i = 0; i < mt->n_own; i++) {
		char buf[PATH_MAX];
		bool deleted = false;

		if (mt->own[i].path)
			own_name_learn_path(mt, mt->own[i].path, mt->own[i].dev, mt->own[i].ino);
		else if (fsn_fd_path(mt->own[i].fd, buf, sizeof(buf), &deleted) >= 0 && !deleted)
			own_name_learn_path(mt, buf, mt->own[i].dev, mt->own[i].ino);
	}
}

void matcher_own_children(struct matcher *mt, bool on) {
	mt->own_children = on;
}

/* An entry of watched directory m was made, moved in, moved away or
 * deleted (not a directory): what it names now, when it may be one of the
 * daemon's files (on its filesystem, a watch that hears all that). One
 * lstat() per entry made or moved in, none per event about a file's
 * contents (own_file()). */
static void own_names_update(struct matcher *mt, const struct emark *m, uint64_t mask,
			     const char *name, const char *path) {
	struct ownname *o = own_name_find(mt, m->dev, m->ino, name);
	struct stat st;

	if ((mask & (IN_CREATE | IN_MOVED_TO)) && lstat(path, &st) == 0 &&
	    is_own(mt, st.st_dev, st.st_ino))
		own_name_learn(mt, m->dev, m->ino, name, st.st_dev, st.st_ino);
	else if (o)
		own_name_forget(mt, o);
}

/* Whether one of the daemon's files is on filesystem dev: a file is
 * neither renamed nor linked across filesystems, so a directory elsewhere
 * never holds one. */
static bool own_dev(const struct matcher *mt, dev_t dev) {
	for (size_t i = 0; i < mt->n_own; i++)
		if (mt->own[i].dev == dev)
			return true;
	return false;
}

/* Whether every entry made in or gone from m's directory reaches the
 * matcher: the watch's kernel mask (what the marks on its inode asked
 * for) has OWN_NAME_BITS, and no inotify overflow lost some since the
 * names were last learned from scratch. */
static bool hears_names(const struct matcher *mt, const struct emark *m) {
	uint64_t mask = 0;

	if (mt->own_names_lost)
		return false;
	for (const struct emark *o = inode_index_first(mt->inodes, m->dev, m->ino); o;
	     o = inode_index_next(o))
		if (o->mark)
			mask |= o->placed_mask;
	return (mask & OWN_NAME_BITS) == OWN_NAME_BITS;
}

/* Is path (name in watched m, of an inotify event about a file's
 * contents) a file the daemon writes? By the path it was opened by; by the
 * watch itself (a watch on the file); not when none of its files is on
 * the watch's filesystem; by a name it is known to have (a renamed log
 * file) when the watch hears every entry made and gone. None of these
 * makes a system call; else, by identity (lstat()). */
static bool own_file(struct matcher *mt, const struct emark *m, const char *name,
		     const char *path) {
	struct stat st;

	for (size_t i = 0; i < mt->n_own; i++)
		if (mt->own[i].path && strcmp(mt->own[i].path, path) == 0)
			return true;
	if (!name || !name[0] || strcmp(name, ".") == 0)
		return is_own(mt, m->dev, m->ino);
	if (!own_dev(mt, m->dev))
		return false;
	if (hears_names(mt, m))
		return own_name_find(mt, m->dev, m->ino, name) != NULL;
	return lstat(path, &st) == 0 && is_own(mt, st.st_dev, st.st_ino);
}

/* ------------------------------------------------------------------------ */
/* one event against one mark                                               */
/* ------------------------------------------------------------------------ */

struct evinfo {
	const struct fsn_event *ev;
	uint64_t bits; /* FAN_* event bits (ONDIR, ON_CHILD removed) */
	bool ondir;
	const char *path;
	const char *old_path;
	bool paired;            /* inotify: MOVED_FROM + MOVED_TO of one move (cookie) */
	struct proc_info *proc; /* lazily */
	/* the process is gone (a rule with who: its pidfd says so), or its
	 * event came through inotify: who_skipped; never another's data */
	const char *who_skipped;
	bool proc_checked; /* own children checked */
	bool own;          /* the daemon's own activity */
	/* the object's attributes (a rule's attributes): 0 not read yet, 1
	 * read into the matcher's ev_attrs (and what it was, when known: its
	 * ev_before), -1 could not be (attrs_skipped: why) */
	int attrs_state;
	const char *attrs_skipped;
	bool has_before;
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

/* What /proc says of pid: from the cache while it is fresh (PCACHE_TTL_USEC)
 * and, when the event says which process it is (id, from its pidfd: not
 * 0), of that process; else read anew (lazily, field by field: proc.c). */
static struct proc_info *pinfo_get(struct matcher *mt, pid_t pid, uint64_t id) {
	struct proc_info *p;
	size_t i;

	for (i = 0; i < mt->pcache_n; i++)
		if (mt->pcache[i].pid == pid)
			break;
	if (i < mt->pcache_n && mt->pcache_now - mt->pcache_at[i] < PCACHE_TTL_USEC &&
	    (id == 0 || mt->pcache_id[i] == id))
		return &mt->pcache[i];
	if (!mt->pcache) {
		mt->pcache = calloc(PCACHE_SIZE, sizeof(*mt->pcache));
		mt->pcache_at = calloc(PCACHE_SIZE, sizeof(*mt->pcache_at));
		mt->pcache_id = calloc(PCACHE_SIZE, sizeof(*mt->pcache_id));
		if (!mt->pcache || !mt->pcache_at || !mt->pcache_id) {
			free(mt->pcache);
			free(mt->pcache_at);
			free(mt->pcache_id);
			mt->pcache = NULL;
			mt->pcache_at = NULL;
			mt->pcache_id = NULL;
			return NULL;
		}
	}
	if (i == mt->pcache_n) { /* a new pid: the next slot, round robin */
		i = mt->pcache_next;
		mt->pcache_next = (mt->pcache_next + 1) % PCACHE_SIZE;
		if (mt->pcache_n < PCACHE_SIZE)
			mt->pcache_n++;
	}
	p = &mt->pcache[i];
	if (mt->ops->proc)
		mt->ops->proc(mt->userdata, p, pid);
	else
		proc_info_init(p, pid);
	mt->pcache_at[i] = mt->pcache_now;
	mt->pcache_id[i] = id;
	return p;
}

/* Which process pidfd is: its inode number where pidfds have inodes of
 * their own (pidfs, Linux 6.9), unique for the boot; else 0, and a cached
 * entry is not known to be its (a fresh one each time: UINT64_MAX down). */
static uint64_t pidfd_identity(struct matcher *mt, int pidfd) {
	struct statfs sf;
	struct stat st;

	if (mt->pidfs == 0)
		mt->pidfs = fstatfs(pidfd, &sf) == 0 && sf.f_type == PIDFS_MAGIC ? 1 : -1;
	if (mt->pidfs > 0 && fstat(pidfd, &st) == 0)
		return st.st_ino;
	return mt->unknown_id--;
}

/* Whether pidfd's process still runs: then what /proc said of its pid was
 * its own (a pid is not reused while its process runs). A pidfd is
 * readable once its process exited: a poll needs no right to signal it
 * (the unit gives no CAP_KILL, and signal 0 would ask for it). */
static bool pidfd_alive(int pidfd) {
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 0;
}

void matcher_batch(struct matcher *mt, uint64_t now_usec) {
	mt->pcache_now = now_usec;
	mt->stamp = now_realtime_usec();
	mt->stamped = 0;
}

void matcher_batch_end(struct matcher *mt) {
	mt->stamp = 0;
}

/* A record's time: when its event was taken from the queue. In a storm's
 * dispatch (thousands of events, a few ms) the clock is read once per
 * STAMP_EVERY records, not for each. */
#define STAMP_EVERY 64

static uint64_t record_time(struct matcher *mt) {
	if (mt->stamp == 0)
		return now_realtime_usec();
	if (++mt->stamped == STAMP_EVERY) {
		mt->stamped = 0;
		mt->stamp = now_realtime_usec();
	}
	return mt->stamp;
}

/* The events after which a file's attributes are worth saying (a rule's
 * attributes): those that make or change it, or bring it in. */
#define ATTR_EVENTS                                                                                \
	(FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_MODIFY | FAN_CREATE | FAN_MOVED_TO | FAN_RENAME)

/* The events after which a file's content is worth saying (a rule's hash):
 * those that end a write or bring a file in. */
#define HASH_EVENTS (FAN_CLOSE_WRITE | FAN_CREATE | FAN_MOVED_TO | FAN_RENAME)

/* The event's object's attributes, read once per event (whatever rules
 * ask), and what it was: the cache gives the last seen and keeps these. */
static void evinfo_attrs(struct matcher *mt, struct evinfo *x) {
	int r;

	if (x->attrs_state != 0)
		return;
	x->attrs_state = -1;
	x->attrs_skipped = "error";
	if (mt->attrs_shed) {
		x->attrs_skipped = "backlog";
		mt->attrs_shed_n++;
		return;
	}
	if (x->ev->source != FSN_SOURCE_FANOTIFY || !mt->ops->stat)
		return;
	r = mt->ops->stat(mt->userdata, x->ev, &mt->ev_attrs);
	if (r < 0) {
		x->attrs_skipped = lookup_failure(r);
		return;
	}
	x->attrs_state = 1;
	x->has_before =
	    attrcache_swap(&mt->attrs, &mt->ev_attrs, (x->bits & FAN_CREATE) != 0, &mt->ev_before);
}

void matcher_set_attribute_cache(struct matcher *mt, size_t max) {
	attrcache_set_max(&mt->attrs, max);
}

void matcher_reserve_attribute_cache(struct matcher *mt, size_t max) {
	if (mt->attrs.max < max)
		attrcache_set_max(&mt->attrs, max);
}

bool matcher_remember_attrs(struct matcher *mt, const struct record_attrs *a) {
	struct record_attrs before;

	if (mt->attrs.n >= mt->attrs.max)
		return false;
	(void)matcher_swap_attrs(mt, a, &before);
	return true;
}

bool matcher_swap_attrs(struct matcher *mt, const struct record_attrs *now,
			struct record_attrs *before) {
	return attrcache_swap(&mt->attrs, now, false, before);
}

static struct proc_info *evinfo_proc(struct matcher *mt, struct evinfo *x) {
	const struct fsn_event *ev = x->ev;

	if (x->proc || x->who_skipped)
		return x->proc;
	if (ev->source != FSN_SOURCE_FANOTIFY) {
		x->who_skipped = "inotify";
		return NULL;
	}
	if (ev->pid <= 0)
		return NULL;
	if (!(ev->has & FSN_HAS_PIDFD)) {
		x->proc = pinfo_get(mt, ev->pid, 0);
		return x->proc;
	}
	if (ev->pidfd == FAN_NOPIDFD) { /* it had exited when the event was read */
		x->who_skipped = "gone";
		return NULL;
	}
	if (ev->pidfd < 0) {
		/* FAN_EPIDFD: none to tell it by (the kernel could make none,
		 * or the reader thread had no room to keep it, in a storm): by
		 * its pid, as without pidfds */
		x->proc = pinfo_get(mt, ev->pid, 0);
		return x->proc;
	}
	x->proc = pinfo_get(mt, ev->pid, pidfd_identity(mt, ev->pidfd));
	return x->proc;
}

/* After what /proc said of the event's process was read for a record: still
 * its? (With a pidfd: the process still runs, asked after each record's
 * reads; else not known, taken as its.) */
static bool evinfo_proc_still(struct evinfo *x) {
	if (x->proc && (x->ev->has & FSN_HAS_PIDFD) && x->ev->pidfd >= 0) {
		if (!pidfd_alive(x->ev->pidfd)) {
			x->who_skipped = "gone";
			x->proc = NULL;
		}
	}
	return x->proc != NULL;
}

/* Who p is beyond pid, comm and uid (a rule's who), in mt->who. */
static const struct record_who *who_of(struct matcher *mt, struct proc_info *p) {
	proc_info_who(p, &mt->who);
	return &mt->who;
}

static bool proc_filters_ok(struct matcher *mt, const struct rule_conf *rc, struct evinfo *x) {
	if (rc->n_pids == 0 && rc->n_comms == 0 && rc->n_uids == 0)
		return true;
	return proc_filters_match(evinfo_proc(mt, x), rc->pids, rc->n_pids, rc->comms, rc->n_comms,
				  rc->uids, rc->n_uids);
}

/* The daemon's own exec children (their parent is the daemon). */
static bool own_child(struct matcher *mt, struct evinfo *x) {
	if (!x->proc_checked) {
		struct proc_info *p = evinfo_proc(mt, x);

		x->proc_checked = true;
		x->own = mt->own_children && proc_info_status(p) && p->ppid == mt->self;
	}
	return x->own;
}

static const struct record record_blank;

/* Try one mark for the event; report it for the mark's rule. */
static void match_mark(struct matcher *mt, const struct emark *m, struct evinfo *x) {
	struct erule *r = m->rule;
	const struct rule_conf *rc = r->conf;
	bool child = false, ochild = false, in, oin, attrs, content;
	int pkg = MATCH_PKG_NONE;
	uint64_t bits;
	struct record rec;
	struct proc_info *p;

	if (r->seen == mt->seq)
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
	r->seen = mt->seq;

	if (pathset_has(&r->excl, x->path) &&
	    (!x->old_path || pathset_has(&r->excl, x->old_path))) {
		r->stats.filtered++;
		return;
	}
	if (!proc_filters_ok(mt, rc, x)) {
		r->stats.filtered++;
		return;
	}
	if (own_child(mt, x))
		return;
	if (!mt->ops->admit(mt->userdata, r))
		return;

	p = evinfo_proc(mt, x);
	/* (a regular file's change, the object of a fanotify event) */
	content = (bits & HASH_EVENTS) && !x->ondir && x->ev->source == FSN_SOURCE_FANOTIFY;
	/* dpkg's change? its exe read before the liveness check below (only
	 * for a change the package op will be asked about) */
	if (content && rc->packages && !mt->attrs_shed && p)
		(void)proc_info_exe(p);
	attrs = rc->attributes && (bits & ATTR_EVENTS);
	if (attrs)
		evinfo_attrs(mt, x);
	/* (copied from a blank one, then set: a compound literal of its 30
	 * fields is cleared with a string instruction slower than the copy) */
	rec = record_blank;
	rec.who = rc->who ? who_of(mt, p) : NULL;
	rec.kind = RECORD_EVENT;
	rec.time_usec = record_time(mt);
	rec.rule = rc->name;
	rec.mask = bits | (x->ondir ? FAN_ONDIR : 0);
	rec.path = x->path;
	rec.old_path = x->old_path;
	rec.pid = x->ev->source == FSN_SOURCE_FANOTIFY ? x->ev->pid : 0;
	rec.comm = proc_info_comm(p);
	rec.uid = proc_info_status(p) ? p->uid : (uid_t)-1;
	rec.attrs_asked = attrs;
	rec.attrs = attrs && x->attrs_state > 0 ? &mt->ev_attrs : NULL;
	rec.attrs_before = attrs && x->attrs_state > 0 && x->has_before ? &mt->ev_before : NULL;
	rec.attrs_skipped = attrs && x->attrs_state < 0 ? x->attrs_skipped : NULL;
	/* (read: still the event's process? else none of it) */
	if (p && !evinfo_proc_still(x)) {
		rec.who = rc->who ? who_of(mt, NULL) : NULL;
		rec.comm = NULL;
		rec.uid = (uid_t)-1;
	}
	if (rc->who)
		rec.who_skipped = x->who_skipped;
	r->stats.events++;
	if (content && (rc->hash || rc->packages) && mt->attrs_shed) {
		/* behind: the record says so, no content record follows */
		rec.hash_skipped = "backlog";
		mt->hash_shed_n++;
		content = false;
	}
	if (content && rc->packages && mt->ops->package)
		pkg = mt->ops->package(mt->userdata, r, x->ev, &rec, x->proc);
	if (pkg != MATCH_PKG_HELD)
		mt->ops->report(mt->userdata, r, &rec);
	if (content && pkg == MATCH_PKG_NONE && rc->hash && mt->ops->hash)
		mt->ops->hash(mt->userdata, r, x->ev, &rec);
}

/* ------------------------------------------------------------------------ */
/* the marks an event can concern (struct match_index)                      */
/* ------------------------------------------------------------------------ */

/* A FID as a key: fsid, handle_bytes, handle_type and the handle's bytes
 * (what fsn_fid_equal() compares), contiguous at the start of the struct. */
#define FID_KEY_LEN(f) (offsetof(struct fsn_fid, f_handle) + (f)->handle_bytes)

static void match_index_free(struct match_index *ix) {
	strmap_done(&ix->by_fid);
	strmap_done(&ix->by_path);
	strmap_done(&ix->by_subtree);
	free(ix->wide);
	free(ix->memo);
	*ix = (struct match_index){ 0 };
}

void matcher_index_build(struct matcher *mt, struct emark *const *marks, size_t n) {
	struct match_index *ix = &mt->ix;
	int r = 0;

	match_index_free(ix);
	ix->marks = marks;
	ix->n_marks = n;
	ix->wide = calloc(n + 1, sizeof(*ix->wide));
	for (size_t i = 0; ix->wide && r >= 0 && i < n; i++) {
		struct emark *m = marks[i];

		m->idx = i;
		if (m->spec.type == FSN_MARK_INOTIFY)
			continue; /* (by inode: engine-marks.c's inode index) */
		if (m->have_handle && m->fid.handle_bytes <= FSN_HANDLE_MAX)
			r = strmap_put(&ix->by_fid, &m->fid, FID_KEY_LEN(&m->fid), m);
		if (r < 0)
			break;
		if (m->scope == SCOPE_OBJECT && m->canon) {
			r = strmap_put_str(&ix->by_path, m->canon, m);
			ix->n_path_nofid += !m->have_handle;
		} else if (m->scope == SCOPE_SUBTREE && m->subtree) {
			size_t len = strlen(m->subtree);

			r = strmap_put_str(&ix->by_subtree, m->subtree, m);
			if (len > ix->subtree_max)
				ix->subtree_max = len;
		} else
			ix->wide[ix->n_wide++] = m;
	}
	if (!ix->wide || r < 0) {
		/* every event is matched against every mark then */
		log_error("indexing the marks: %s; matching events against all of them",
			  strerror(ENOMEM));
		match_index_free(ix);
		ix->marks = marks;
		ix->n_marks = n;
		ix->wide = malloc((n + 1) * sizeof(*ix->wide));
		for (size_t i = 0; ix->wide && i < n; i++)
			ix->wide[ix->n_wide++] = marks[i];
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

/* (none yet: its room is not cleared, that is 512 bytes per event) */
static struct cands *cands_init(struct cands *c) {
	c->n = 0;
	c->all = false;
	return c;
}

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
 * hash of each prefix is carried to the next, and the pass ends where the
 * longest subtree does (a storm's paths go deeper than the rule's path). */
static void subtree_lookup(struct cands *c, const struct match_index *ix, const char *path) {
	uint64_t h = HASH_INIT;
	size_t i;

	for (i = 0; path[i]; i++) {
		if (i > ix->subtree_max)
			return; /* (no prefix this long or longer is a subtree) */
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

/* What subtree_lookup() found for the last path: it reads no more than
 * the path's first subtree_max + 1 bytes, so a path that starts with the
 * same ones (the next event's, most often, in a storm) has the same marks
 * without a lookup. Forgotten with the index. */
struct subtree_memo {
	size_t len; /* the bytes of key; 0: nothing kept */
	char key[PATH_MAX + 1];
	struct cands found;
};

static void cands_subtree(struct cands *c, struct match_index *ix, const char *path) {
	struct subtree_memo *mo = ix->memo;
	size_t k;

	if (!path || path[0] != '/' || strmap_size(&ix->by_subtree) == 0)
		return;
	k = strnlen(path, ix->subtree_max + 1);
	if (!mo || mo->len != k || memcmp(mo->key, path, k) != 0) {
		if (k > PATH_MAX || (!mo && !(mo = ix->memo = malloc(sizeof(*mo))))) {
			subtree_lookup(c, ix, path);
			return;
		}
		subtree_lookup(cands_init(&mo->found), ix, path);
		memcpy(mo->key, path, k);
		mo->len = k;
	}
	if (mo->found.all)
		c->all = true;
	for (size_t i = 0; i < mo->found.n; i++)
		cands_add(c, mo->found.v[i]);
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
static void cands_event(struct cands *c, struct match_index *ix, const struct evinfo *x) {
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

/* ------------------------------------------------------------------------ */
/* events                                                                   */
/* ------------------------------------------------------------------------ */

void matcher_fanotify(struct matcher *mt, struct fsn_event *ev) {
	char path[PATH_MAX], old[PATH_MAX];
	struct evinfo x = { .ev = ev };
	struct cands c;
	size_t n;

	if (ev->mask & FAN_Q_OVERFLOW) {
		/* (libfsn forgets the group's cached directory paths) */
		matcher_overflow(mt, ev);
		return;
	}
	mt->seq++;
	if (ev->pid == mt->self)
		return; /* the daemon's own activity */
	x.bits = ev->mask & EVENT_BITS;
	x.ondir = ev->mask & FAN_ONDIR;
	if (!x.bits)
		return;
	mt->ops->resolve(mt->userdata, ev, path, old, sizeof(path), &x.path, &x.old_path);
	if (log_get_level() >= LOG_DEBUG) {
		char ev_names[256], p1[PATH_MAX], p2[PATH_MAX];

		format_events(ev->mask, ev_names, sizeof(ev_names));
		log_debug("fanotify event %s (info 0x%x) of pid %d: %s%s%s", ev_names, ev->has,
			  (int)ev->pid, text_escaped(p1, sizeof(p1), x.path),
			  x.old_path ? " from " : "",
			  x.old_path ? text_escaped(p2, sizeof(p2), x.old_path) : "");
	}
	if ((ev->mask & (FAN_DELETE_SELF | FAN_MOVE_SELF)) || !x.path) {
		struct cands own;

		cands_own_object(cands_init(&own), &mt->ix, ev);
		/* a planned inode mark's object went: watch the path again */
		if (ev->mask & (FAN_DELETE_SELF | FAN_MOVE_SELF))
			for (size_t i = 0; i < own.n; i++) {
				struct emark *m = own.v[i];

				if (m->mark && m->spec.type == FSN_MARK_INODE && m->spec.mask)
					mt->ops->gone(mt->userdata, m, ev->mask & FAN_DELETE_SELF);
			}
		/* gone, but one of ours: it has the path it was marked with */
		for (size_t i = 0; !x.path && i < own.n; i++)
			if (own.v[i]->mark && own.v[i]->spec.mask)
				x.path = own.v[i]->canon;
	}
	if (!x.path) {
		mt->unresolved++;
		log_debug("fanotify event %" PRIx64 " of pid %d: cannot resolve its path", ev->mask,
			  (int)ev->pid);
		return;
	}

	cands_event(cands_init(&c), &mt->ix, &x);
	n = c.all ? mt->ix.n_marks : c.n;
	for (size_t i = 0; i < n; i++) {
		const struct emark *m = c.all ? mt->ix.marks[i] : c.v[i];

		/* (exclusions: ignore marks, mask 0, report nothing); only
		 * the marks of the event's group */
		if (!m->mark || m->spec.mask == 0 || m->spec.type == FSN_MARK_INOTIFY ||
		    m->group != ev->group)
			continue;
		match_mark(mt, m, &x);
	}
}

/* An overflow is a record for every rule whose marks lost events (its
 * group's, or every inotify mark's), never silent; the rescan that follows
 * is the engine's (ops->lost(), ops->overflowed()). */
void matcher_overflow(struct matcher *mt, const struct fsn_event *ev) {
	char names[1024] = "";
	size_t pos = 0;
	uint64_t seq = ++mt->seq;

	for (size_t i = 0; i < mt->ix.n_marks; i++) {
		struct emark *m = mt->ix.marks[i];
		struct erule *r = m->rule;
		struct record rec;

		if (ev->source == FSN_SOURCE_INOTIFY) {
			if (m->spec.type != FSN_MARK_INOTIFY)
				continue;
		} else if (m->spec.type == FSN_MARK_INOTIFY || !ev->group || m->group != ev->group)
			continue;
		if (r->seen == seq)
			continue;
		r->seen = seq;
		r->stats.overflows++;
		mt->ops->lost(mt->userdata, r);
		rec = (struct record){
			.kind = RECORD_OVERFLOW,
			.time_usec = record_time(mt),
			.rule = r->conf->name,
			.mask = FAN_Q_OVERFLOW,
			.uid = (uid_t)-1,
		};
		mt->ops->emit(mt->userdata, r, &rec);
		if (pos < sizeof(names))
			pos += (size_t)snprintf(names + pos, sizeof(names) - pos, "%s'%s'",
						pos ? ", " : "", r->conf->name);
	}
	/* (inotify: entries made or gone may be among the events lost) */
	if (ev->source == FSN_SOURCE_INOTIFY)
		mt->own_names_lost = true;
	mt->ops->overflowed(mt->userdata, ev, names);
}

/* Match x against every mark on the watched inode dev:ino. */
static void match_watch(struct matcher *mt, dev_t dev, ino_t ino, struct evinfo *x) {
	for (struct emark *o = inode_index_first(mt->inodes, dev, ino); x->bits && o;
	     o = inode_index_next(o))
		if (o->mark && !emark_fresh(o))
			match_mark(mt, o, x);
}

/* The held IN_MOVED_FROM, reported alone: no IN_MOVED_TO followed (moved
 * out of every watched directory). Takes a sequence number of its own. */
static void flush_from(struct matcher *mt) {
	struct pending_from *f = &mt->from;
	struct evinfo x = { .ev = &f->ev };

	if (!f->set)
		return;
	f->set = false;
	x.bits = FAN_MOVED_FROM;
	x.ondir = f->ev.mask & IN_ISDIR;
	x.path = f->path;
	mt->seq++;
	match_watch(mt, f->dev, f->ino, &x);
	free(f->path);
	f->path = NULL;
}

void matcher_inotify_begin(struct matcher *mt, const struct fsn_event *ev) {
	if (mt->from.set && !((ev->mask & IN_MOVED_TO) && ev->cookie == mt->from.cookie))
		flush_from(mt);
}

void matcher_inotify(struct matcher *mt, struct emark *m, const struct fsn_event *ev,
		     const char *path) {
	struct evinfo x = { .ev = ev };

	mt->seq++;
	x.path = path;
	x.bits = ev->mask & EVENT_BITS & 0xfff;
	x.ondir = ev->mask & IN_ISDIR;
	/* (where the names are looked up anyway, they are not followed) */
	if (mt->n_own > 0 && ev->name && !x.ondir && (ev->mask & OWN_NAME_BITS) &&
	    own_dev(mt, m->dev) && hears_names(mt, m))
		own_names_update(mt, m, ev->mask, ev->name, path);

	/* A move comes as IN_MOVED_FROM and IN_MOVED_TO with one cookie, next
	 * to each other when both directories are watched: hold the first,
	 * report the pair as one move with both paths. */
	if (ev->mask & IN_MOVED_FROM) {
		char *copy = strdup(path);

		if (copy) {
			mt->from = (struct pending_from){
				.set = true,
				.ev = *ev,
				.cookie = ev->cookie,
				.path = copy,
				.dev = m->dev,
				.ino = m->ino,
			};
			mt->from.ev.name = NULL;
			mt->from.ev.mark = NULL;
			mt->from.ev.group = NULL;
			return;
		}
	} else if ((ev->mask & IN_MOVED_TO) && mt->from.set) {
		struct pending_from f = mt->from;

		mt->from.set = false;
		mt->from.path = NULL;
		x.old_path = f.path;
		x.paired = true;
		x.bits |= FAN_MOVED_FROM;
		match_watch(mt, m->dev, m->ino, &x);
		match_watch(mt, f.dev, f.ino, &x);
		free(f.path);
		return;
	}

	/* created, found by the scan of its new directory, reported already */
	if ((ev->mask & IN_CREATE) && synth_seen(mt, path))
		x.bits &= ~(uint64_t)IN_CREATE;

	/* the daemon's own writes, and its (re)creation of an output file on
	 * SIGUSR1 (fanotify knows them by pid) */
	if (x.bits && mt->n_own > 0 && !x.ondir &&
	    (x.bits & (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_OPEN | IN_ACCESS |
		       IN_CLOSE_NOWRITE | IN_CREATE)) &&
	    own_file(mt, m, ev->name, path))
		x.bits = 0;
	match_watch(mt, m->dev, m->ino, &x);
}

/* Paths reported as created by a scan of a new directory, remembered so
 * that the kernel's own IN_CREATE for the same entry (created after the
 * watch was placed, before the scan read it) is not reported again. A
 * small direct-mapped set: a collision forgets one path, which can only
 * cause a duplicate, never a loss. */
static size_t synth_slot(const char *path) {
	return (size_t)(hash_bytes(HASH_INIT, path, strlen(path)) % SYNTH_SLOTS);
}

static void synth_remember(struct matcher *mt, const char *path) {
	size_t i = synth_slot(path);

	free(mt->synth[i]);
	mt->synth[i] = strdup(path);
}

/* A real IN_CREATE of an entry a scan reported already: forget it, true. */
static bool synth_seen(struct matcher *mt, const char *path) {
	size_t i = synth_slot(path);

	if (!mt->synth[i] || strcmp(mt->synth[i], path) != 0)
		return false;
	free(mt->synth[i]);
	mt->synth[i] = NULL;
	return true;
}

void matcher_synth_create(struct matcher *mt, struct emark *root, const char *path, bool is_dir) {
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

	if (mt->synth[i] && strcmp(mt->synth[i], path) == 0)
		return; /* a scan reported it already */

	mt->seq++;
	match_mark(mt, root, &x);
	synth_remember(mt, path);
}

/* ------------------------------------------------------------------------ */
/* the held move's timer; the matcher itself                                */
/* ------------------------------------------------------------------------ */

void matcher_move_timeout(struct matcher *mt) {
	flush_from(mt);
	mt->ops->moved_out(mt->userdata);
}

static void on_move_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	matcher_move_timeout(w->data);
}

void matcher_drained(struct matcher *mt, bool others) {
	/* An IN_MOVED_FROM read last may have its IN_MOVED_TO a moment
	 * behind (the kernel queues them one after the other): decide
	 * "moved out" only if nothing came by then. */
	if ((mt->from.set || others) && !ev_is_active(&mt->move_timer))
		ev_timer_start(mt->loop, &mt->move_timer);
}

void matcher_init(struct matcher *mt, const struct matcher_ops *ops, void *userdata,
		  struct ev_loop *loop, const struct inode_index *inodes, pid_t self) {
	*mt = (struct matcher){
		.ops = ops,
		.userdata = userdata,
		.loop = loop,
		.inodes = inodes,
		.self = self,
		.unknown_id = UINT64_MAX,
	};
	attrcache_init(&mt->attrs, 0);
	ev_timer_init(&mt->move_timer, on_move_timer, MOVE_WAIT_SEC, 0.);
	mt->move_timer.data = mt;
}

void matcher_done(struct matcher *mt) {
	if (mt->loop)
		ev_timer_stop(mt->loop, &mt->move_timer);
	match_index_free(&mt->ix);
	free(mt->pcache);
	free(mt->pcache_at);
	free(mt->pcache_id);
	attrcache_done(&mt->attrs);
	for (size_t i = 0; i < SYNTH_SLOTS; i++)
		free(mt->synth[i]);
	free(mt->from.path);
	own_files_clear(mt);
	while (mt->n_own_names > 0)
		own_name_forget(mt, &mt->own_names[0]);
	*mt = (struct matcher){ 0 };
}
