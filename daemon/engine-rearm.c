/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-rearm.c — re-arming: the running config planned and placed again,
 * as a reload would, when the object of a planned mark goes away
 * (deleted, replaced by a rename over it, moved away, its filesystem
 * unmounted: DELETE_SELF, MOVE_SELF or IN_IGNORED; engine-load.c's
 * mark_gone()), the mount table changes (on_mounts()) or a missing path
 * appears (its waiter). The reload's diff keeps every mark whose object
 * is the same and places the others anew, so a file replaced by rename
 * (editors, vipw, package upgrades) is watched again at once. Debounced
 * (REARM_DELAY), and after a load that is running; spaced by what the
 * last re-arm cost.
 *
 * The rearmer's state is its own (struct rearmer, engine-rearm.h): its
 * timer and spacing, and the waiters; the libfsn context, the running plan
 * and the loader (struct rearmer_ops) are its collaborators.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-private.h"
#include "engine-rearm.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "log.h"
#include "resolve.h"

/* Re-arms in a row that changed nothing double the delay of the next one
 * up to 2^REARM_QUIET_MAX times REARM_DELAY (1.6 s); the spacing a re-arm
 * sets after itself (nine times the CPU time it took) is at most this
 * long. */
#define REARM_QUIET_MAX 5
#define REARM_SPACING_MAX_USEC (30 * 1000000ull)

/* A re-arm ended (r < 0: failed). The next one waits for at least nine
 * times the CPU time this one's work took, its worker's and its batches'
 * (re-arming takes at most a tenth of the daemon's time, whatever a user
 * does to the paths, up to REARM_SPACING_MAX_USEC), and longer after
 * re-arms that changed nothing (rearm_delay()). */
void rearmer_ended(struct rearmer *rm, int r, bool changed, uint64_t took, unsigned n_placed) {
	uint64_t now = now_monotonic_usec();

	if (r == 0 && changed) {
		log_info("re-armed: the rules are placed again (%u marks)", n_placed);
		rm->quiet = 0;
	} else if (rm->quiet < REARM_QUIET_MAX)
		rm->quiet++;
	rm->not_before =
	    now + (took < REARM_SPACING_MAX_USEC / 9 ? 9 * took : REARM_SPACING_MAX_USEC);
}

/* How long a re-arm asked for now waits: REARM_DELAY, doubled for each
 * re-arm in a row that changed nothing (up to 2^REARM_QUIET_MAX times),
 * and not before the spacing the last one set (rearmer_ended()). */
static double rearm_delay(const struct rearmer *rm) {
	uint64_t now = now_monotonic_usec();
	double d = REARM_DELAY * (double)(1u << rm->quiet);

	if (rm->not_before > now && (double)(rm->not_before - now) / 1e6 > d)
		d = (double)(rm->not_before - now) / 1e6;
	return d;
}

/* Plan and place again, rearm_delay() from the first ask (asks meanwhile
 * are one). */
void rearmer_soon(struct rearmer *rm) {
	if (!ev_is_active(&rm->timer)) {
		ev_timer_set(&rm->timer, rearm_delay(rm), 0.);
		ev_timer_start(rm->loop, &rm->timer);
	}
}

/* A waiter saw path made: plan again soon. Said once per re-arm, not per
 * event (a user who makes and removes it in a loop gets a line per
 * re-arm, and those are spaced: rearm_delay()). */
static void rearm_appeared(struct rearmer *rm, const char *path) {
	char esc[PATH_MAX * 2];

	if (!ev_is_active(&rm->timer))
		log_info("\"%s\" appeared: placing the rules again",
			 text_escaped(esc, sizeof(esc), path));
	rearmer_soon(rm);
}

/* Whether path was missing in the running plan: it, or a directory above
 * it, is what a waiter waits for. */
bool rearmer_waited(const struct rearmer *rm, const char *path) {
	char buf[PATH_MAX];
	char *slash;

	if (strmap_size(&rm->waiting) == 0 || strlen(path) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (strmap_value_str(&rm->waiting, buf))
			return true;
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return false;
		*slash = '\0';
	}
}

/* Drop every waiter (the running plan changes). */
static void waiters_clear(struct rearmer *rm) {
	for (size_t i = 0; i < rm->n_waiters; i++) {
		if (rm->waiters[i]->mark)
			fsn_ctx_remove_mark(rm->ctx, rm->waiters[i]->mark);
		emark_free(rm->waiters[i]);
	}
	free(rm->waiters);
	rm->waiters = NULL;
	rm->n_waiters = 0;
	strmap_done(&rm->waiting);
}

static inline void emark_freep(struct emark **m) {
	emark_free(*m);
}

/* Where a resolution stopped: its kind and the path of the component it
 * stopped at ("" when it resolved), into buf. */
static const char *stop_key(const struct resolved *res, char *buf, size_t len) {
	char at[PATH_MAX];

	if (res->stop == RESOLVE_OK)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%d %s", (int)res->stop,
			 resolved_stop_path(res, at, sizeof(at)) ? at : "?");
	return buf;
}

/* Where path's resolution stops now (stop_key()). */
static const char *resolution_stop(const char *path, char *buf, size_t len) {
	struct resolved res;

	path_resolve(path, geteuid(), 0, &res);
	stop_key(&res, buf, len);
	resolved_done(&res);
	return buf;
}

/* A waiter on the directory dir (dir_fd, an O_PATH fd of it), for next;
 * with dir_fd -1 only the key next, no watch (a path there by now: the
 * re-arm that places it knows it appeared, rearmer_waited()). */
static int waiter_new(struct rearmer *rm, int dir_fd, const char *dir, const char *next) {
	_cleanup_(emark_freep) struct emark *w = calloc(1, sizeof(*w));
	struct emark **v;
	struct stat st;
	int r;

	if (!w)
		return -ENOMEM;
	if (dir_fd >= 0 && fstat(dir_fd, &st) < 0)
		return -errno;
	v = realloc(rm->waiters, (rm->n_waiters + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rm->waiters = v;
	w->waiter = true;
	w->path = strdup(dir);
	w->canon = strdup(dir);
	w->next = strdup(next);
	if (!w->path || !w->canon || !w->next)
		return -ENOMEM;
	if (dir_fd >= 0) {
		char fd_path[64];
		/* on the directory the walk stopped in, not on what its path
		 * names by now */
		struct fsn_mark_spec spec = {
			.type = FSN_MARK_INOTIFY,
			.mask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF,
			.flags = FSN_MARK_F_ONLYDIR,
			.dirfd = AT_FDCWD,
			.path = fd_path,
			.userdata = w,
		};

		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", dir_fd);
		w->dev = st.st_dev;
		w->ino = st.st_ino;
		r = fsn_ctx_add_mark(rm->ctx, &spec, &w->mark);
		if (r < 0)
			return r;
	}
	r = strmap_put_str(&rm->waiting, w->next, w);
	if (r < 0) {
		fsn_ctx_remove_mark(rm->ctx, w->mark);
		return r;
	}
	rm->waiters[rm->n_waiters++] = steal_ptr(&w);
	return 0;
}

/* A waiter for the path next (free of symlinks) in its directory, unless
 * there is one. */
static void waiter_for(struct rearmer *rm, const char *next) {
	_cleanup_free_ char *dir = strdup(next);
	struct resolved res;
	char *slash = dir ? strrchr(dir, '/') : NULL;

	if (!slash || strmap_value_str(&rm->waiting, next))
		return;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (path_resolve(dir, geteuid(), 0, &res) == 0 && S_ISDIR(res.st.st_mode))
		(void)waiter_new(rm, res.fd, res.path, next);
	resolved_done(&res);
}

/* A waiter for each path of the running plan that is missing or whose
 * symlink is not followed: an inotify watch (creates and moves in) on the
 * directory where the path's resolution stops (resolve.h: the one the
 * planner uses, so they agree on where that is), keyed by the path of the
 * component it stops at; its creation or replacement re-plans. */
void rearmer_place(struct rearmer *rm, const struct plan *p) {
	waiters_clear(rm);
	for (size_t i = 0; p && i < p->n_problems; i++) {
		const struct plan_problem *pp = &p->problems[i];
		struct resolved res;
		char next[PATH_MAX], before[PATH_MAX + 16], after[PATH_MAX + 16];
		int r;

		if (!pp->path || !pp->rule ||
		    (pp->kind != PLAN_PROBLEM_MISSING && pp->kind != PLAN_PROBLEM_REFUSED))
			continue;
		r = path_resolve(pp->path, geteuid(), RESOLVE_LINKS, &res);
		if (r == 0) {
			/* there by now: made between the plan and here (the key
			 * tells the re-arm that it appeared) */
			if (!strmap_value_str(&rm->waiting, res.path))
				(void)waiter_new(rm, -1, res.path, res.path);
			resolved_done(&res);
			rearmer_soon(rm);
			continue;
		}
		/* a symlink followed on the way may be replaced (by root) too */
		for (size_t j = 0; j < res.n_links; j++)
			waiter_for(rm, res.links[j]);
		if (res.dir_fd < 0 || !resolved_stop_path(&res, next, sizeof(next)) ||
		    strmap_value_str(&rm->waiting, next) ||
		    waiter_new(rm, res.dir_fd, res.path, next) < 0) {
			resolved_done(&res);
			continue;
		}
		stop_key(&res, before, sizeof(before));
		resolved_done(&res);
		/* changed between that walk and the watch (the watch will not
		 * tell): plan again now. A path that stays as it is (missing,
		 * a dangling symlink, a symlink not followed) is not planned
		 * again. */
		if (strcmp(resolution_stop(pp->path, after, sizeof(after)), before) != 0)
			rearmer_soon(rm);
	}
}

static void on_rearm(struct ev_loop *loop, ev_timer *w, int revents) {
	struct rearmer *rm = w->data;
	int r;

	if (rm->ops->busy(rm->userdata)) { /* after it */
		ev_timer_set(w, REARM_DELAY, 0.);
		ev_timer_start(loop, w);
		return;
	}
	if (rm->not_before > now_monotonic_usec()) { /* (a reload came between) */
		ev_timer_set(w, rearm_delay(rm), 0.);
		ev_timer_start(loop, w);
		return;
	}
	r = rm->ops->replan(rm->userdata);
	if (r < 0)
		log_error("re-arming the rules: %s", strerror(-r));
}

void rearmer_made(struct rearmer *rm, const char *dir, const char *name) {
	char made[PATH_MAX];

	/* (whichever mark on the directory the event came by) */
	if (strmap_size(&rm->waiting) > 0 && join_name(dir, name, made, sizeof(made)) >= 0 &&
	    strmap_value_str(&rm->waiting, made))
		rearm_appeared(rm, made);
}

bool rearmer_under(const struct rearmer *rm, const char *point) {
	for (size_t i = 0; i < rm->n_waiters; i++)
		if (path_in(rm->waiters[i]->canon, point, true, true))
			return true;
	return false;
}

void rearmer_init(struct rearmer *rm, const struct rearmer_ops *ops, void *userdata,
		  struct ev_loop *loop, struct fsn_ctx *ctx) {
	*rm = (struct rearmer){
		.ops = ops,
		.userdata = userdata,
		.loop = loop,
		.ctx = ctx,
	};
	ev_timer_init(&rm->timer, on_rearm, REARM_DELAY, 0.);
	rm->timer.data = rm;
}

void rearmer_done(struct rearmer *rm) {
	waiters_clear(rm);
	ev_timer_stop(rm->loop, &rm->timer);
}
