/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-load.c — the loader: a start, a reload, or a replan of the running
 * config (re-arming), never holding the loop for long. A worker thread
 * reads and plans; the loop then builds the new state (its rules and
 * outputs, the running marks it keeps, its fresh ones) in batches (struct
 * load keeps where it is) and commits it, or rolls it back. What asks for a
 * re-arm lives here too, since what it does is a load: a planned mark's
 * object goes (mark_gone(), from engine-match.c) or the mount table
 * changes (on_mounts()); engine-rearm.c's rearmer decides when the
 * running config is planned and placed again, and keeps the waiters of
 * missing paths.
 *
 * engine.c's engine_load() begins a load (load_begin()) and engine_free()
 * stops one (load_abort()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "log.h"
#include "metrics.h"
#include "resolve.h"

/* The CPU time the calling thread has used, in us. */
static uint64_t cpu_usec(void) {
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void start_queued(struct engine *e);

/* ------------------------------------------------------------------------ */
/* the new state's rules and outputs; its rollback and commit               */
/* ------------------------------------------------------------------------ */

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

void state_free_rules(struct state *s) {
	for (size_t i = 0; i < s->n_rules; i++) {
		pathset_done(&s->rules[i].excl);
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
		for (size_t j = 0; j < r->conf->n_exclude; j++)
			if (pathset_add_pattern_resolved(&r->excl, r->conf->exclude[j]) < 0)
				return -ENOMEM;
		/* counters survive reloads, by rule name (taken again at the
		 * commit: the running rule counts on until then) */
		r->prev = strmap_value_str(&old_rules, r->conf->name);
		if (r->prev) {
			r->stats = r->prev->stats;
			r->last_perm = r->prev->last_perm;
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

static int render_metrics(void *userdata, char **ret_text, size_t *ret_len) {
	return metrics_render(userdata, ret_text, ret_len);
}

/* The output oc of the new state: the old state's when configured alike,
 * else opened. *ret: in s->outputs (once). */
static int state_output(struct engine *e, struct state *s, const struct state *old,
			const struct output_conf *oc, struct eoutput **ret, char *err,
			size_t errlen) {
	struct eoutput *o = find_eoutput(s->outputs, s->n_outputs, oc->name);
	struct eoutput *prev, **v;
	char oerr[512] = "";
	int k;

	if (o) {
		*ret = o;
		return 0;
	}
	prev = old ? find_eoutput(old->outputs, old->n_outputs, oc->name) : NULL;
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
		o->name = strdup(oc->name);
		if (!o->name) {
			free(o);
			return -ENOMEM;
		}
		if (oc->type == OUTPUT_METRICS)
			k = output_metrics_open(oc, e->loop, render_metrics, e, &o->out, oerr,
						sizeof(oerr));
		else
			k = output_open(oc, e->loop, &o->out, oerr, sizeof(oerr));
		if (k < 0) {
			if (oerr[0])
				snprintf(err, errlen, "%s", oerr);
			else
				snprintf(err, errlen, "output '%s': %s", oc->name, strerror(-k));
			eoutput_free(o);
			return k;
		}
		o->conf = oc;
	}
	s->outputs[s->n_outputs++] = o;
	*ret = o;
	return 0;
}

/* Open (or keep) the outputs the rules use, and every metrics output
 * (which no rule names: they take no records). */
static int state_outputs(struct engine *e, struct state *s, const struct state *old, char *err,
			 size_t errlen) {
	const struct config *c = s->config;
	struct eoutput *o;
	int k;

	/* (first of what a load opens: room for it, taken from permission events) */
	perm_fd_budget_update(e, old, s);
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

			if (!oc) {
				snprintf(err, errlen, "rule '%s': no output named '%s'",
					 r->conf->name, names[j]);
				return -EINVAL;
			}
			k = state_output(e, s, old, oc, &o, err, errlen);
			if (k < 0)
				return k;
			r->outputs[r->n_outputs++] = o;
		}
	}
	for (size_t i = 0; i < c->n_outputs; i++)
		if (c->outputs[i].type == OUTPUT_METRICS) {
			k = state_output(e, s, old, &c->outputs[i], &o, err, errlen);
			if (k < 0)
				return k;
		}
	return 0;
}

void metrics_outputs_write(struct engine *e) {
	for (size_t i = 0; i < e->st.n_outputs; i++)
		if (e->st.outputs[i]->conf->type == OUTPUT_METRICS)
			output_metrics_write(e->st.outputs[i]->out);
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

/* The new state takes over: kept marks and outputs take their new rule,
 * scope and config; then what the old state had and the new one did not
 * keep is removed — after the new marks were placed, so nothing unchanged
 * has a gap. */
static void state_commit(struct engine *e, struct state *old, struct state *s) {
	int k = perm_commit(e, s);

	if (k < 0)
		log_error("permission rules: handing them to the permission thread: %s",
			  strerror(-k));
	/* the counters as the running rules have them now */
	for (size_t i = 0; i < s->n_rules; i++) {
		struct erule *r = &s->rules[i];

		if (old && r->prev) {
			/* (symlink refusals are counted by the load itself: the
			 * running rule counts none meanwhile) */
			uint64_t refusals = r->stats.symlink_refusals;

			r->stats = r->prev->stats;
			r->stats.symlink_refusals = refusals;
			r->last_perm = r->prev->last_perm;
		}
		r->prev = NULL;
	}
	e->loaded_usec = now_realtime_usec();
	if (old) {
		retirer_perm(&e->retire, old);
		perm_free(old, false); /* the guard retires the ones not kept */
		for (size_t i = 0; i < old->n_marks; i++)
			if (!old->marks[i]->kept)
				retirer_mark(&e->retire, old->marks[i]);
		free(old->marks);
		for (size_t i = 0; i < old->n_outputs; i++)
			if (!old->outputs[i]->kept)
				eoutput_free(old->outputs[i]);
		free(old->outputs);
		state_free_rules(old);
		/* (a replan shares the running config) */
		retirer_stale(&e->retire, old->plan, old->config != s->config ? old->config : NULL);
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
	matcher_index_build(&e->match, s->marks, s->n_marks);
	matcher_set_attribute_cache(&e->match, s->config->attribute_cache);
	evidence_commit(e, s->config);
	baseline_commit(e, s->config);
}

/* ------------------------------------------------------------------------ */
/* the new state's marks: the old state's kept, fresh ones placed           */
/* ------------------------------------------------------------------------ */

/* The old state's mark a planned one keeps: same rule name, path and spec,
 * still on the same object. by_path: the old marks by path. */
static struct emark *find_old_mark(const struct strmap *by_path, const struct plan_mark *pm) {
	for (struct strmap_entry *x = strmap_get(by_path, pm->path, strlen(pm->path)); x;
	     x = strmap_next(x)) {
		struct emark *m = x->value;

		if (!m->kept && m->mark && !m->gone && strcmp(m->rule_name, pm->rule->name) == 0 &&
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
		sub = resolve_canonical(pm->subtree);
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

/*
 * What a fresh inode mark's object is, and its entries when it is a
 * directory (the events of its entries are the mark's), for a rule with
 * attributes: so that a record can say what a file was at its first
 * change, not only from its second. Opened by the mark's handle, entries
 * looked at by name in it: no path walked. At most as many as the cache
 * keeps; a directory of 2 000 entries takes a few ms of one batch.
 */
static void prime_attrs(struct engine *e, const struct state *s, const struct emark *m) {
	_cleanup_close_ int fd = -1;
	struct record_attrs a;
	DIR *d;

	if (!m->rule->conf->attributes || m->spec.type != FSN_MARK_INODE || !m->have_handle)
		return;
	/* (the cache holds what the new config says before it commits) */
	matcher_reserve_attribute_cache(&e->match, s->config->attribute_cache);
	fd = fsn_ctx_fid_open(e->ctx, &m->fid, m->is_dir ? O_RDONLY | O_DIRECTORY : O_PATH);
	if (fd < 0 || attrs_read(fd, NULL, &a) < 0 || !matcher_remember_attrs(&e->match, &a))
		return;
	if (!m->is_dir || !(d = fdopendir(fd)))
		return;
	fd = -1; /* (the DIR's now) */
	for (struct dirent *de; (de = readdir(d));) {
		if (is_dot(de->d_name))
			continue;
		if (attrs_read(dirfd(d), de->d_name, &a) == 0 &&
		    !matcher_remember_attrs(&e->match, &a))
			break;
	}
	closedir(d);
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
	prime_attrs(e, s, m);
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
 * batches and its memory is freed (engine-retire.c). Until the
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
	uint64_t t0 = cpu_usec();

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
	l->cpu_usec += cpu_usec() - t0;
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
	struct load *l = e->loader.cur;
	engine_load_fn done = l->done;
	void *userdata = l->userdata;
	char err[sizeof(l->err)];

	snprintf(err, sizeof(err), "%s", l->err);
	ev_async_stop(e->loop, &l->async);
	ev_timer_stop(e->loop, &l->step);
	strmap_done(&l->by_path);
	free(l->claimed);
	free(l->rearmed);
	free(l->unheard);
	free(l->say);
	dirq_done(&l->q);
	config_errors_clear(&l->errs);
	plan_free(l->plan);
	if (r < 0 && l->path)
		config_free(l->config);
	if (!l->path)
		rearmer_ended(&e->rearm, r, l->changed, l->cpu_usec, e->st.n_placed);
	if (r == 0)
		rearmer_place(&e->rearm, e->st.plan);
	if (r == 0 && l->raced)
		rearmer_soon(&e->rearm); /* (a path that went gets its waiter from that plan) */
	if (l->reload && l->path && r != -ECANCELED) {
		e->reloaded = true;
		snprintf(e->reload_error, sizeof(e->reload_error), "%.*s",
			 (int)sizeof(e->reload_error) - 1, r < 0 ? err : "");
	}
	free(l->path);
	free(l);
	e->loader.cur = NULL;
	ev_io_start(e->loop, &e->io);
	retirer_tidy(&e->retire);
	if (done)
		done(e, r, r < 0 ? err : NULL, userdata);
	if (!e->loader.cur)
		start_queued(e);
}

/* Undo what the loader built (fresh marks, outputs) and end with r. */
static void load_fail(struct engine *e, int r) {
	struct load *l = e->loader.cur;

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

/* Whether path resolves to anything now. */
static bool path_names_something(const char *path) {
	struct stat st;
	uint64_t mnt_id;

	return resolve_identity(path, 0, &st, &mnt_id) == 0;
}

/* Whether the running state heard of every object its marks lost: a
 * running planned mark the new state plans again (the same rule and path)
 * but does not keep, whose path no longer names its object, and of which
 * no event said so (no gone record yet). The kernel queued that word (a
 * move or a deletion of the object) when it happened, which may be behind
 * the load's look at the path: the record ("gone", reason "moved" or
 * "deleted") is the running state's to give, so the take-over waits for
 * it, looking every LOAD_HEAR_POLL while the loop reads events. A word that
 * does not come in LOAD_HEAR_USEC (the object's directory moved, which
 * tells the object nothing, or it was deleted while held open) is taken as
 * a move: the object is somewhere else. */
static bool load_heard(struct engine *e, struct load *l) {
	size_t n = 0, cap = 0;

	if (!l->old)
		return true;
	if (!l->hear_since) {
		/* the candidates: running marks of planned marks the new state
		 * does not keep (same rule and path; a hash look-up per such
		 * planned mark, and only those are resolved again) */
		const struct plan *p = l->s.plan;

		l->hear_since = now_monotonic_usec();
		for (size_t i = 0; p && l->claimed && i < p->n_marks; i++) {
			const struct plan_mark *pm = &p->marks[i];

			if (l->claimed[i] || pm->rule->perm)
				continue;
			for (struct strmap_entry *x =
				 strmap_get(&l->by_path, pm->path, strlen(pm->path));
			     x; x = strmap_next(x)) {
				struct emark *m = x->value;

				if (m->kept || m->gone || !m->mark || m->parent || !m->rule ||
				    (m->spec.type != FSN_MARK_INODE &&
				     m->spec.type != FSN_MARK_INOTIFY) ||
				    strcmp(m->rule_name, pm->rule->name) != 0 ||
				    emark_same_object(m))
					continue;
				if (n == cap) {
					struct emark **v;

					cap = cap ? 2 * cap : 8;
					v = realloc(l->unheard, cap * sizeof(*v));
					if (!v)
						break; /* (fewer waited for: said as moved) */
					l->unheard = v;
				}
				l->unheard[n++] = m;
			}
		}
		l->n_unheard = n;
	}
	n = 0;
	for (size_t i = 0; i < l->n_unheard; i++)
		if (!l->unheard[i]->gone && l->unheard[i]->mark)
			l->unheard[n++] = l->unheard[i];
	l->n_unheard = n;
	if (n == 0 || now_monotonic_usec() - l->hear_since >= LOAD_HEAR_USEC) {
		for (size_t i = 0; i < n; i++)
			mark_gone(e, l->unheard[i], GONE_MOVED, NULL);
		l->n_unheard = 0;
		return true;
	}
	return false;
}

/* Everything placed: the new state takes over. */
static int load_finish(struct engine *e) {
	struct load *l = e->loader.cur;
	uint64_t t0 = now_monotonic_usec();
	_cleanup_free_ struct emark **fresh = NULL;
	size_t n_fresh = 0;
	int k;

	if (!load_heard(e, l)) {
		ev_timer_set(&l->step, LOAD_HEAR_POLL, 0.);
		return 1;
	}
	/* a replan's new marks, checked once it took over (below) */
	if (!l->path && (fresh = calloc(l->s.n_marks + 1, sizeof(*fresh))))
		for (size_t i = 0; i < l->s.n_marks; i++)
			if (l->s.marks[i]->fresh && !l->s.marks[i]->gone)
				fresh[n_fresh++] = l->s.marks[i];
	state_commit(e, l->old, &l->s);
	log_debug("load: commit in %.3f ms", (now_monotonic_usec() - t0) / 1e3);
	e->st = l->s;
	l->s = (struct state){ 0 };
	evidence_running(e);
	/* (the new config's bound on events read ahead, from now on) */
	k = fsn_ctx_set_reader(e->ctx, e->st.config->read_buffer);
	if (k < 0)
		log_warning("cannot start the thread that reads the kernel queues (%s): the loop "
			    "reads them",
			    strerror(-k));
	/* what a re-armed path names now was written (or made) while it was
	 * not watched: a rescan record says so, as after an overflow */
	for (size_t i = 0; i < l->n_rearmed; i++) {
		const struct plan_mark *pm = l->rearmed[i].pm;
		struct erule *r = state_rule(&e->st, pm->rule);
		const char *canon = plan_mark_canon(pm);

		if (!r)
			continue;
		r->stats.rearms++;
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
			rescanner_emit(&e->rescan, r, canon, "created", pm->is_dir, NULL, -1, NULL);
		else if (!pm->is_dir && (r->conf->events & (FAN_MODIFY | FAN_CLOSE_WRITE)))
			rescanner_emit(&e->rescan, r, canon, "modified", false, NULL, -1, NULL);
		else if (pm->is_dir && (r->conf->events & DIRENT_BITS))
			rescanner_emit(&e->rescan, r, canon, "changed", true, NULL, -1, NULL);
	}
	/* what went between its placing and now was heard by no state (the
	 * running one did not have the mark): gone, and planned again */
	for (size_t i = 0; i < n_fresh; i++)
		if (!emark_same_object(fresh[i]))
			mark_gone(e, fresh[i],
				  path_names_something(fresh[i]->path) ? GONE_MOVED : GONE_DELETED,
				  NULL);
	l->plan = NULL;   /* the state's now */
	l->config = NULL; /* ditto */
	outputs_opened(e);
	metrics_outputs_write(e); /* the new config's first */
	return 0;
}

/* ------------------------------------------------------------------------ */
/* batches                                                                  */
/* ------------------------------------------------------------------------ */

/* One batch: until the phase's work is done or LOAD_BATCH_USEC passed.
 * Returns 1 when more is to do, 0 when committed, or -errno. */
static int load_batch(struct engine *e) {
	struct load *l = e->loader.cur;
	struct state *s = &l->s;
	const struct plan *p = s->plan;
	uint64_t deadline = now_monotonic_usec() + LOAD_BATCH_USEC;
	int k;

	while (now_monotonic_usec() < deadline) {
		e->loader.progress++;
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
			e->loader.raced = false;
			k = place_planned(e, s, pm, r, &l->tree, l->err, sizeof(l->err));
			if (k < 0)
				return k;
			appeared = rearmer_waited(&e->rearm, plan_mark_canon(pm));
			if (s->n_marks > n || l->tree)
				l->changed = true;
			l->raced = l->raced || e->loader.raced;
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
				l->changed = true;
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
	uint64_t t0 = cpu_usec();
	int r = load_batch(e);

	e->loader.cur->cpu_usec += cpu_usec() - t0;
	if (r < 0)
		load_fail(e, r);
	else if (r == 0)
		load_end(e, 0);
	else
		ev_timer_start(loop,
			       &e->loader.cur->step); /* the next batch, after the loop's turn */
}

/* A problem's identity across plans: its rule, path and words. */
static uint64_t problem_hash(const struct plan_problem *pp) {
	const char *parts[3] = { pp->rule ? pp->rule->name : "", pp->path ? pp->path : "",
				 pp->msg ? pp->msg : "" };
	uint64_t h = HASH_INIT;

	for (size_t i = 0; i < ELEMENTSOF(parts); i++)
		h = hash_bytes(h, parts[i], strlen(parts[i]) + 1);
	return h;
}

/* Which problems of the new plan are logged (l->say): all of a start or a
 * reload; of a replan (re-arming), those the running plan did not have: a
 * path that stays missing, or whose symlink stays refused, is said once,
 * not at every re-arm. A replan whose problems differ from the running
 * plan's changed something (l->changed). */
static void problems_to_log(struct engine *e, struct load *l) {
	const struct plan *old = e->st.plan, *p = l->plan;
	_cleanup_free_ uint64_t *h = NULL;
	struct strmap seen = { 0 };
	size_t kept = 0;

	l->changed = true;
	if (l->path || !old)
		return; /* (l->say NULL: all) */
	l->say = calloc(p->n_problems + 1, sizeof(*l->say));
	h = calloc(old->n_problems + 1, sizeof(*h));
	for (size_t i = 0; l->say && h && i < old->n_problems; i++) {
		h[i] = problem_hash(&old->problems[i]);
		if (strmap_put(&seen, &h[i], sizeof(h[i]), &h[i]) < 0)
			goto all;
	}
	if (!l->say || !h)
		goto all;
	l->changed = false;
	for (size_t i = 0; i < p->n_problems; i++) {
		uint64_t k = problem_hash(&p->problems[i]);

		if (strmap_value(&seen, &k, sizeof(k)))
			kept++;
		else
			l->say[i] = l->changed = true;
	}
	if (kept != old->n_problems)
		l->changed = true; /* (some went) */
	strmap_done(&seen);
	return;
all: /* without memory: all of them */
	strmap_done(&seen);
	free(l->say);
	l->say = NULL;
}

/* The worker is done: log what it found, then apply in batches. */
static void on_load_planned(struct ev_loop *loop, ev_async *w, int revents) {
	struct engine *e = w->data;
	struct load *l = e->loader.cur;
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
	problems_to_log(e, l);
	for (size_t i = 0; i < l->plan->n_problems; i++)
		if (!l->say || l->say[i])
			log_plan_problem(&l->plan->problems[i]);
	for (size_t i = 0; i < l->plan->n_problems; i++)
		if (l->plan->problems[i].fatal) {
			const struct plan_problem *pp = &l->plan->problems[i];

			snprintf(l->err, sizeof(l->err), "required rule '%s': %s",
				 pp->rule ? pp->rule->name : "?", pp->msg);
			load_end(e, -EINVAL);
			return;
		}

	/* (groups this load creates get it; existing ones keep theirs) */
	fsn_ctx_set_queue_max(e->ctx, l->config->kernel_queue);
	l->old = e->st.config ? &e->st : NULL;
	*s = (struct state){ .config = l->config, .plan = l->plan };
	r = state_rules(s, l->old);
	if (r >= 0) {
		/* the symlinks refused, as often as they were logged */
		for (size_t i = 0; i < l->plan->n_problems; i++) {
			const struct plan_problem *pp = &l->plan->problems[i];
			struct erule *er = pp->rule ? state_rule(s, pp->rule) : NULL;

			if (er && pp->kind == PLAN_PROBLEM_REFUSED && (!l->say || l->say[i]))
				er->stats.symlink_refusals++;
		}
		r = state_outputs(e, s, l->old, l->err, sizeof(l->err));
	}
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
/* The marks whose object went leave the kernel before a plan is placed:
 * the path's new object may come with the same device and inode numbers
 * (a new tmpfs after an unmount gets the old one's), and must get marks of
 * its own, not be taken for the old object. Their records are out. */
static void unplace_gone(struct engine *e) {
	for (size_t i = 0; i < e->st.n_marks; i++) {
		struct emark *m = e->st.marks[i];

		if (m->gone && m->mark)
			emark_unplace(e, m, &e->st.n_placed);
	}
}

int load_begin(struct engine *e, const char *path, engine_load_fn done, void *userdata) {
	struct load *l;
	sigset_t all, saved;
	int r;

	if (e->loader.cur)
		return -EBUSY;
	unplace_gone(e);
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
	e->loader.cur = l;
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
		e->loader.cur = NULL;
		return r;
	}
	return 0;
}

/* After a load: the one engine_load() queued behind a replan. */
static void start_queued(struct engine *e) {
	_cleanup_free_ char *path = steal_ptr(&e->loader.queued.path);
	engine_load_fn done = e->loader.queued.done;
	void *userdata = e->loader.queued.userdata;
	char why[256];
	int r;

	if (!path)
		return;
	r = load_begin(e, path, done, userdata);
	if (r < 0 && done) {
		snprintf(why, sizeof(why), "cannot load %s: %s", path, strerror(-r));
		done(e, r, why, userdata);
	}
}

/* A planned mark's path no longer names its object: say so (a gone or
 * unmounted record, and the log), and plan again soon (the path is watched
 * again where it is now, or waited for). Once per mark; a mark of a load
 * that has not taken over yet is planned again without a word. */
void mark_gone(struct engine *e, struct emark *m, enum gone_why why, const char *mount) {
	static const char *const reasons[] = {
		[GONE_DELETED] = "deleted",
		[GONE_MOVED] = "moved",
		[GONE_COVERED] = "covered",
		[GONE_UNMOUNTED] = NULL, /* (an unmounted record: the mount says it) */
	};
	struct record rec;
	char text[PATH_MAX * 4];
	size_t pos = 0;

	if (emark_fresh(m) && !m->parent && !m->retired && !m->gone) {
		/* placed by the load that runs, its object went before that
		 * load took over: it reports nothing yet, but must not stay on
		 * a dead object; planned again after the load */
		m->gone = true;
		rearmer_soon(&e->rearm);
		return;
	}
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
	rearmer_soon(&e->rearm);
}

/* The mount table changed. A planned mark whose mount went is unmounted; one
 * whose path now leads into a filesystem mounted at or above it is covered;
 * a mount at or above a missing path's waiter may have brought the path.
 * (Mounts below a recursive rule's path are not followed: see
 * doc/guarantees.md.) */
void on_mounts(const struct mount_entry *gone, size_t n_gone, const struct mount_entry *added,
	       size_t n_added, void *userdata) {
	struct engine *e = userdata;

	if (e->loader.cur)
		rearmer_soon(&e->rearm); /* (its fresh marks: planned again after it) */
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
		if (rearmer_under(&e->rearm, added[j].point)) {
			char p[PATH_MAX * 2];

			log_info("a filesystem was mounted at \"%s\": placing the rules again",
				 text_escaped(p, sizeof(p), added[j].point));
			rearmer_soon(&e->rearm);
			return;
		}
}

/* Stop a load (engine_free()): roll back what was placed; a worker still
 * reading or planning is asked to stop, and left to the process's exit if
 * it does not finish at once (it touches nothing the engine frees). */
void load_abort(struct engine *e) {
	struct load *l = e->loader.cur;

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
			e->loader.cur = NULL;
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
