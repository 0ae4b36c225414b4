/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-rescan.c — overflow recovery. An overflow is a record for every rule
 * whose group (or inotify) lost events, never silent, and schedules a
 * rescan (with backoff, so a storm of overflows is not a storm of scans)
 * of those rules' paths: what was created or changed since the queues were
 * last read empty is reported as "rescan" records; a recursive inotify
 * tree also gets back the watches it lost (engine-tree.c's sub_watch_add()).
 *
 * The matcher (engine-match.c) tells which rules an overflow hit and gives
 * their records; here each is marked for a rescan (rescanner_lost()), and
 * the overflow logged and the rescan scheduled (rescanner_overflowed()).
 * The loader reports a path placed again where its object went as
 * rescanner_emit() does. The rescanner's state is its own (struct
 * rescanner, engine-rescan.h); the running state and the engine's
 * reporting are its collaborators.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "engine-private.h"
#include "engine-rescan.h"
#include "fsn-uapi.h"
#include "log.h"

/* Timestamps of files are taken from a coarse clock (a jiffy behind the
 * real time): look that much further back. */
#define RESCAN_SLACK_USEC 20000u
#define RESCAN_BACKOFF_MIN 0.2
#define RESCAN_BACKOFF_MAX 10.0
#define RESCAN_QUIET_SEC 30u

static bool stx_after(const struct statx_timestamp *t, uint64_t usec) {
	return (uint64_t)t->tv_sec * 1000000u + t->tv_nsec / 1000u >= usec;
}

void rescanner_emit(struct rescanner *rs, struct erule *r, const char *path, const char *change,
		    bool dir, const struct record_attrs *now, int dirfd, const char *name) {
	struct record_attrs before;
	struct record rec = {
		.kind = RECORD_RESCAN,
		.time_usec = now_realtime_usec(),
		.rule = r->conf->name,
		.mask = dir ? FAN_ONDIR : 0,
		.path = path,
		.uid = (uid_t)-1,
		.change = change,
	};

	if (r->rescan_quiet || pathset_has(&r->excl, path) || (dir && !r->conf->ondir) ||
	    !rs->ops->admit(rs->userdata, r))
		return;
	if (now && r->conf->attributes) {
		rec.attrs_asked = true;
		rec.attrs = now;
		if (rs->ops->attrs && rs->ops->attrs(rs->userdata, now, &before))
			rec.attrs_before = &before;
	}
	r->stats.events++;
	rs->ops->report(rs->userdata, r, &rec);
	if (r->conf->hash && dirfd >= 0 && !dir && rs->ops->hash) {
		int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

		rs->ops->hash(rs->userdata, r, fd < 0 ? -errno : fd, &rec);
	}
}

/* One object: created (born in the gap), modified (changed in the gap), or,
 * for a directory, its entries changed (created, deleted or moved). */
static void rescan_one(struct rescanner *rs, struct erule *r, int dirfd, const char *name,
		       const char *path, uint64_t since, bool *is_dir) {
	const uint64_t ev = r->conf->events;
	struct record_attrs a;
	struct statx sx;

	*is_dir = false;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_BASIC_STATS | STATX_BTIME, &sx) < 0)
		return;
	attrs_from_statx(&sx, &a);
	*is_dir = S_ISDIR(sx.stx_mode);
	if ((sx.stx_mask & STATX_BTIME) && stx_after(&sx.stx_btime, since)) {
		if (ev & (FAN_CREATE | FAN_MOVED_TO))
			rescanner_emit(rs, r, path, "created", *is_dir, &a, dirfd, name);
	} else if (!*is_dir && stx_after(&sx.stx_ctime, since)) {
		if (ev & (FAN_MODIFY | FAN_CLOSE_WRITE | FAN_ATTRIB | FAN_CREATE | FAN_MOVED_TO))
			rescanner_emit(rs, r, path, "modified", false, &a, dirfd, name);
	}
	if (*is_dir && stx_after(&sx.stx_mtime, since) &&
	    (ev & (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)))
		rescanner_emit(rs, r, path, "changed", true, &a, -1, NULL);
}

/* Walk dir, open as fd (taken), (depth 1, or all of it), reporting what
 * changed since since; a recursive inotify tree also gets the watches it
 * lost. Each directory is opened in the one above it, never through a
 * symlink, and a watch placed on what was opened (engine-tree.c). */
static void rescan_dir(struct rescanner *rs, struct erule *r, struct emark *root, int fd,
		       const char *dir, bool recursive, uint64_t since) {
	_cleanup_close_ int dfd = fd;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (dfd < 0 || pathset_has_path(&r->excl, dir))
		return;
	/* a directory made in the gap: its watch; its subdirectories get
	 * theirs as this walk reaches them (recursive whenever root is set) */
	if (root && !has_sub(root, dir) && strcmp(dir, root->canon) != 0)
		rs->ops->watch(rs->userdata, root, dfd, dir);
	d = fdopendir(dfd);
	if (!d)
		return;
	dfd = -1; /* d's now */
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		bool is_dir;

		if (is_dot(de->d_name))
			continue;
		if (!(path = entry_path(dir, de->d_name)))
			break;
		rescan_one(rs, r, dirfd(d), de->d_name, path, since, &is_dir);
		if (is_dir && recursive)
			rescan_dir(rs, r, root, opendir_at(dirfd(d), de->d_name), path, true,
				   since);
	}
}

/* An fd to read a planned mark's directory by (an inotify tree's top only
 * if it is still the directory watched). */
static int rescan_open(const struct emark *root, const char *path) {
	if (root)
		return tree_open_top(root);
	return opendir_at(AT_FDCWD, path);
}

static void rescan_rule(struct rescanner *rs, struct erule *r) {
	uint64_t since =
	    r->rescan_since > RESCAN_SLACK_USEC ? r->rescan_since - RESCAN_SLACK_USEC : 0;

	r->rescan_pending = false;
	r->stats.rescans++;
	rs->rescans++;
	r->rescan_quiet = rs->ops->compare && rs->ops->compare(rs->userdata, r);
	for (size_t i = 0; i < rs->run->n_marks; i++) {
		struct emark *m = rs->run->marks[i];
		bool dir_self;

		if (m->rule != r || !m->mark || m->spec.mask == 0 || !m->canon)
			continue;
		if (m->scope == SCOPE_SUBTREE && m->subtree) {
			struct emark *root =
			    m->spec.type == FSN_MARK_INOTIFY && m->subtree_recursive ? m : NULL;

			rescan_one(rs, r, AT_FDCWD, m->subtree, m->subtree, since, &dir_self);
			if (dir_self)
				rescan_dir(rs, r, root, rescan_open(root, m->subtree), m->subtree,
					   m->subtree_recursive, since);
		} else if (m->scope == SCOPE_OBJECT) {
			rescan_one(rs, r, AT_FDCWD, m->canon, m->canon, since, &dir_self);
			if (dir_self)
				rescan_dir(rs, r, NULL, rescan_open(NULL, m->canon), m->canon,
					   false, since);
		}
	}
}

static void on_rescan_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	struct rescanner *rs = w->data;

	for (size_t i = 0; i < rs->run->n_rules; i++)
		if (rs->run->rules[i].rescan_pending) {
			log_info("rule '%s': rescanning its paths after an overflow",
				 rs->run->rules[i].conf->name);
			rescan_rule(rs, &rs->run->rules[i]);
			rs->run->rules[i].rescan_quiet = false;
		}
}

/* Rescan soon, but not at every overflow of a storm: the delay doubles
 * while overflows keep coming (up to 10 s) and is back to 0.2 s after 30 s
 * without one. Returns the delay. */
static double rescan_schedule(struct rescanner *rs) {
	uint64_t now = now_monotonic_sec();

	if (rs->last_overflow && now - rs->last_overflow < RESCAN_QUIET_SEC)
		rs->backoff =
		    rs->backoff * 2 > RESCAN_BACKOFF_MAX ? RESCAN_BACKOFF_MAX : rs->backoff * 2;
	else
		rs->backoff = RESCAN_BACKOFF_MIN;
	rs->last_overflow = now;
	if (!ev_is_active(&rs->timer)) {
		ev_timer_set(&rs->timer, rs->backoff, 0.);
		ev_timer_start(rs->loop, &rs->timer);
	}
	return rs->backoff;
}

void rescanner_init(struct rescanner *rs, const struct rescanner_ops *ops, void *userdata,
		    struct ev_loop *loop, struct state *run) {
	*rs = (struct rescanner){
		.ops = ops,
		.userdata = userdata,
		.loop = loop,
		.run = run,
		.drained_usec = now_realtime_usec(),
	};
	ev_timer_init(&rs->timer, on_rescan_timer, 0., 0.);
	rs->timer.data = rs;
}

void rescanner_done(struct rescanner *rs) {
	ev_timer_stop(rs->loop, &rs->timer);
}

void rescanner_drained(struct rescanner *rs, uint64_t now_usec) {
	rs->drained_usec = now_usec;
}

void rescanner_lost(struct rescanner *rs, struct erule *r) {
	/* what was lost happened after the queues were last read empty */
	if (!r->rescan_pending || rs->drained_usec < r->rescan_since)
		r->rescan_since = rs->drained_usec;
	r->rescan_pending = true;
}

void rescanner_overflowed(struct rescanner *rs, const struct fsn_event *ev, const char *names) {
	const char *fields[] = { NULL, NULL };
	char f_group[64];

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
		    names[0] ? names : "(none)", rescan_schedule(rs));
}
