/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-perm.c — permission rules on the engine's side: the guard thread
 * (guard.c) reads, decides and answers their events; this file places a
 * permission rule's marks in a guard rule of its own (struct eperm), keeps
 * a guard rule across a reload when its marks are the same, computes each
 * rule's policy (policy.c) and commits them to the guard, and turns what
 * the guard reports (decisions, overflows, counters) into records on the
 * rules' outputs, also for rules a reload retired.
 *
 * The loader (engine-load.c) runs perm_begin(), perm_rule(), perm_place_mark(),
 * perm_end() and perm_policy() in its batches; state building (engine.c)
 * commits and frees.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "baseliner.h"
#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "guard.h"
#include "log.h"
#include "policy.h"
#include "resolve.h"

/* What the guard thread hands over, in the main loop. */
static void on_guard_report(const struct guard_report *g, void *userdata) {
	struct engine *e = userdata;
	struct erule *r = erule_find(e, g->rule);
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
			.who = g->has_who ? &g->who : NULL,
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
	_cleanup_free_ char *buf = NULL;
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
	if (fclose(f) != 0)
		return NULL;
	return steal_ptr(&buf);
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
			uint64_t mnt_id;

			same = k < p->n_objs && resolve_identity(m->path, 0, &st, &mnt_id) == 0 &&
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
int perm_place_mark(struct engine *e, struct state *s, struct eperm *ep, const struct plan_mark *pm,
		    char *err, size_t errlen) {
	const struct rule_conf *rc = ep->conf;
	struct erule *r = state_rule(s, rc);
	_cleanup_(resolved_done) struct resolved res = RESOLVED_NULL;
	char why[1536] = "", esc[PATH_MAX * 2], fd_path[64] = "";
	int k;

	/* on what the path resolves to (resolve.h), through the fd the
	 * resolution opened */
	k = path_resolve(pm->path, geteuid(), 0, &res);
	if (k == 0) {
		ep->devs[ep->n_objs] = res.st.st_dev;
		ep->inos[ep->n_objs] = res.st.st_ino;
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
	} else if (k < 0) {
		if (res.stop == RESOLVE_REFUSED && r)
			r->stats.symlink_refusals++;
		resolved_says(&res, pm->path, why, sizeof(why));
	} else {
		struct fsn_mark_spec spec =
		    resolved_spec(&res, &pm->spec, fd_path, sizeof(fd_path));

		e->capturing = true;
		k = guard_rule_add_mark(ep->gr, &spec);
		e->capturing = false;
		if (k < 0)
			resolved_unname(e->captured, sizeof(e->captured), fd_path, pm->path);
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
int perm_begin(struct engine *e, struct state *s) {
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
int perm_rule(struct engine *e, struct state *s, const struct state *old, size_t i,
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

int perm_end(struct engine *e, struct state *s, char *err, size_t errlen) {
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
	_cleanup_fclose_ FILE *f = NULL;
	struct statx sx;
	char line[4096];
	bool whole = false;

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
	return whole;
}

/* The scopes of a permission rule's policy: where its marks reach. None
 * (so no path is needed for the scope) when every mark delivers only what
 * is in scope: inode marks (the kernel delivers only their objects) and
 * recursive filesystem marks on the root of a whole filesystem. */
int perm_policy(const struct state *s, const struct eperm *ep, struct policy **ret) {
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

		if (pm->spec.mask == 0)
			continue;
		wide = wide ||
		       (pm->subtree && !(pm->spec.type == FSN_MARK_FILESYSTEM &&
					 pm->subtree_recursive && whole_filesystem(pm->subtree)));
		sc[n++] = (struct policy_scope){
			.path = resolve_canonical(pm->subtree ? pm->subtree : plan_mark_canon(pm)),
			.recursive = pm->subtree && pm->subtree_recursive,
			.children = pm->subtree
					? !pm->subtree_recursive && !pm->children_dirent_only
					: pm->is_dir && ep->conf->children,
		};
	}
	k = policy_new(ep->conf, sc, wide ? n : 0, ret);
	for (size_t i = 0; i < n; i++)
		free((char *)sc[i].path);
	free(sc);
	return k;
}

/* ------------------------------------------------------------------------ */
/* the fds permission events may take (guard.h: struct guard_fd_reserve)    */
/* ------------------------------------------------------------------------ */

/* fds of a state's objects while it is placed (guard.h says which) */
#define FDS_PER_OUTPUT 2
#define FDS_PER_RULE 1
#define FDS_NOTIF_GROUPS 2
#define FDS_PER_PERM_RULE 4
/* an exec output's spawn: /dev/null and two pipes; each command runs
 * with one pipe (its output) on the daemon's side */
#define FDS_EXEC_SPAWN 5
/* the control socket's listening socket and directory, opened anew */
#define FDS_CONTROL_REOPEN 2
/* the hasher: the file it reads (its O_PATH fd and the one reopened for
 * reading), and the one being handed over */
#define FDS_HASH_READ 3
/* dpkg's database (a rule's packages): the dpkg processes followed (8
 * pidfds), its inotify fd, its directory, an md5sums being read */
#define FDS_PACKAGES 11

/* The fds this process has open now, -errno. */
static int count_open_fds(void) {
	_cleanup_closedir_ DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	return n - 1; /* (d's own) */
}

void perm_fd_reserve(const struct config *c, const struct plan *p, bool placing,
		     struct guard_fd_reserve *r) {
	unsigned exec = 0, n_perm = 0;
	bool hash = false, who = false, pkgs = false, base = false;

	for (size_t i = 0; i < c->n_outputs; i++)
		if (c->outputs[i].type == OUTPUT_EXEC)
			exec += c->outputs[i].max_running;
	for (size_t i = 0; i < c->n_rules; i++) {
		n_perm += c->rules[i].perm;
		/* (packages: pidfds as who, files hashed, the database) */
		hash = hash || c->rules[i].hash || c->rules[i].packages;
		who = who || c->rules[i].who || c->rules[i].packages;
		pkgs = pkgs || c->rules[i].packages;
		base = base || c->rules[i].baseline;
	}
	/* (and the baseline thread's walk and database) */
	r->hash = (hash ? c->hash_queue + FDS_HASH_READ : 0) + (pkgs ? FDS_PACKAGES : 0) +
		  (base ? BASELINER_FDS : 0);
	/* (kept, and a read's for a moment before the reader closes them) */
	r->pidfds = who ? ENGINE_PIDFDS + FSN_PIDFDS_PER_READ : 0;
	r->clients += c->control_clients + FDS_CONTROL_REOPEN;
	r->exec += exec ? exec + FDS_EXEC_SPAWN : 0;
	r->mounts += p ? (unsigned)p->n_fs : 0;
	if (placing)
		r->state += (unsigned)(FDS_PER_OUTPUT * c->n_outputs + FDS_PER_RULE * c->n_rules) +
			    FDS_NOTIF_GROUPS + FDS_PER_PERM_RULE * n_perm;
	r->slack = GUARD_FD_SLACK;
}

/* Reserve what the daemon's own fd users may hold and give the rest of
 * RLIMIT_NOFILE to the permission events: at every commit (run: the state
 * taking over, next NULL), and when a load (next) starts placing, before
 * it opens anything (run: the running state, if any; its users and the
 * new one's side by side). One listing of /proc/self/fd and one
 * getrlimit() per load: never per event. */
void perm_fd_budget_update(struct engine *e, const struct state *run, const struct state *next) {
	struct guard_fd_reserve r = { 0 };
	unsigned old_max, held0, held1, max;
	struct rlimit rl;
	int open;

	if (!e->guard)
		return;
	guard_get_fd_budget(e->guard, &old_max, &held0);
	open = count_open_fds();
	guard_get_fd_budget(e->guard, &old_max, &held1);
	if (open < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		guard_set_fd_budget(e->guard, 0);
		return;
	}
	/* (event fds held throughout the listing were counted in it) */
	r.open = (unsigned)open - (held0 < held1 ? held0 : held1);
	if (run && run->config)
		perm_fd_reserve(run->config, run->plan, false, &r);
	if (next) {
		struct guard_fd_reserve n = { 0 };

		perm_fd_reserve(next->config, next->plan, true, &n);
		/* clients: one socket's at a time */
		r.clients = r.clients > n.clients ? r.clients : n.clients;
		r.exec += n.exec;
		r.mounts += n.mounts;
		r.hash = r.hash > n.hash ? r.hash : n.hash;
		r.pidfds = r.pidfds > n.pidfds ? r.pidfds : n.pidfds;
		r.state = n.state;
		r.slack = n.slack;
	}
	max = guard_fd_budget_of(rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur,
				 &r);
	log_debug("permission events: RLIMIT_NOFILE %llu - %u open - %u control - %u exec - %u "
		  "loading - %u mount fds - %u hasher - %u pidfds - %u slack = fd budget %u%s",
		  (unsigned long long)rl.rlim_cur, r.open, r.clients, r.exec, r.state, r.mounts,
		  r.hash, r.pidfds, r.slack, max,
		  max ? "" : " (too few: free fds are counted before each read)");
	if (max == 0 && (old_max > 0 || !e->fd_budget_warned))
		log_warning("RLIMIT_NOFILE %llu leaves fewer than %d fds for permission events "
			    "after the daemon's own users (%u): the free fds are counted before "
			    "each read of a permission group, a few system calls per event",
			    (unsigned long long)rl.rlim_cur, GUARD_FD_BUDGET_MIN,
			    r.open + r.clients + r.exec + r.state + r.mounts + r.hash + r.pidfds +
				r.slack);
	e->fd_budget_warned = e->fd_budget_warned || max == 0;
	guard_set_fd_budget(e->guard, max);
}

/* Hand the new state's permission rules to the guard (the old state's
 * that were not kept retire there). */
int perm_commit(struct engine *e, struct state *s) {
	_cleanup_free_ struct guard_rule **rules = NULL;
	_cleanup_free_ struct policy **pols = NULL;
	size_t n = 0;
	int k = 0;

	if (!e->guard)
		return 0;
	rules = calloc(s->n_perm + 1, sizeof(*rules));
	pols = calloc(s->n_perm + 1, sizeof(*pols));
	if (!rules || !pols)
		k = -ENOMEM;
	/* (its budget first: its rules' contexts count in it from the start) */
	perm_fd_budget_update(e, s, NULL);
	for (size_t i = 0; k >= 0 && i < s->n_perm; i++) {
		/* (computed by the loader's batches; else now) */
		if (s->perm[i].pol) {
			pols[n] = s->perm[i].pol;
			s->perm[i].pol = NULL;
		} else
			k = perm_policy(s, &s->perm[i], &pols[n]);
		if (k >= 0) {
			/* (a kept rule takes the new config's word too) */
			guard_rule_set_who(s->perm[i].gr, s->perm[i].conf->who);
			rules[n++] = s->perm[i].gr;
		}
	}
	if (k >= 0)
		k = guard_commit(e->guard, rules, pols, n);
	else
		for (size_t i = 0; i < n; i++)
			policy_free(pols[i]);
	for (size_t i = 0; i < s->n_perm; i++)
		s->perm[i].fresh = false;
	return k;
}

void perm_free(struct state *s, bool discard_fresh) {
	for (size_t i = 0; i < s->n_perm; i++) {
		if (discard_fresh && s->perm[i].fresh)
			guard_rule_discard(s->perm[i].gr);
		eperm_done(&s->perm[i]);
	}
	free(s->perm);
	s->perm = NULL;
	s->n_perm = 0;
}
