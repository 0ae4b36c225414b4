/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-retire.c — the retirer: what a replaced state leaves behind when
 * a new one commits (state_commit(), engine-load.c). Its marks that the new
 * state did not keep report nothing from the commit on and leave the
 * kernel a batch at a time (removing 10 000 marks takes tens of
 * milliseconds: the new state runs meanwhile); its plan and config are
 * freed a loop turn after the load ended, then the memory is given back to
 * the system; its permission rules that the new state did not keep are
 * remembered by name, with their outputs' names, for what their groups
 * still report (engine-perm.c).
 *
 * The retirer's state is its own (struct retirer, engine-retire.h); the
 * inode index and the engine's mark removal are its collaborators.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "engine-private.h"
#include "engine-retire.h"

static void retired_free(struct retired *t) {
	free(t->rule);
	strv_free(t->outputs, t->n_outputs);
}

/* Retired marks leave the kernel a batch at a time; then the tidying. */
static void on_retire(struct ev_loop *loop, ev_timer *w, int revents) {
	struct retirer *rt = w->data;
	uint64_t deadline = now_monotonic_usec() + LOAD_BATCH_USEC;

	while (rt->n_marks > 0 && now_monotonic_usec() < deadline)
		rt->ops->drop(rt->userdata, rt->marks[--rt->n_marks]);
	if (rt->n_marks > 0)
		ev_timer_start(loop, w);
	else
		ev_timer_start(loop, &rt->tidy_timer);
}

/* After a load, a loop turn each: the replaced plan and config freed, then
 * the memory given back to the system, not only to malloc (a reload of
 * 100 000 paths frees some 100 MiB). */
static void on_tidy(struct ev_loop *loop, ev_timer *w, int revents) {
	struct retirer *rt = w->data;

	if (rt->plan || rt->config) {
		rt->plan = plan_free(rt->plan);
		config_free(rt->config);
		rt->config = NULL;
		ev_timer_start(loop, w);
		return;
	}
	malloc_trim(0);
}

void retirer_init(struct retirer *rt, const struct retirer_ops *ops, void *userdata,
		  struct ev_loop *loop, struct inode_index *inodes) {
	*rt = (struct retirer){
		.ops = ops,
		.userdata = userdata,
		.loop = loop,
		.inodes = inodes,
	};
	ev_timer_init(&rt->timer, on_retire, 0., 0.);
	rt->timer.data = rt;
	ev_timer_init(&rt->tidy_timer, on_tidy, 0., 0.);
	rt->tidy_timer.data = rt;
}

void retirer_done(struct retirer *rt) {
	ev_timer_stop(rt->loop, &rt->timer);
	ev_timer_stop(rt->loop, &rt->tidy_timer);
	plan_free(rt->plan);
	config_free(rt->config);
	while (rt->n_marks > 0)
		rt->ops->drop(rt->userdata, rt->marks[--rt->n_marks]);
	free(rt->marks);
	for (size_t i = 0; i < rt->n_rules; i++)
		retired_free(&rt->rules[i]);
	free(rt->rules);
	*rt = (struct retirer){ 0 };
}

void retirer_mark(struct retirer *rt, struct emark *m) {
	if (rt->n_marks == rt->marks_cap) {
		size_t cap = rt->marks_cap ? 2 * rt->marks_cap : 256;
		struct emark **v = realloc(rt->marks, cap * sizeof(*v));

		if (!v) {
			rt->ops->drop(rt->userdata, m);
			return;
		}
		rt->marks = v;
		rt->marks_cap = cap;
	}
	if (m->spec.type == FSN_MARK_INOTIFY) {
		inode_index_remove(rt->inodes, m);
		for (size_t i = 0; i < m->n_subs; i++)
			inode_index_remove(rt->inodes, m->subs[i]);
	}
	m->retired = true;
	m->rule = NULL;
	for (size_t i = 0; i < m->n_subs; i++)
		m->subs[i]->rule = NULL;
	rt->marks[rt->n_marks++] = m;
	if (!ev_is_active(&rt->timer))
		ev_timer_start(rt->loop, &rt->timer);
}

void retirer_stale(struct retirer *rt, struct plan *plan, struct config *config) {
	plan_free(rt->plan);
	config_free(rt->config);
	rt->plan = plan;
	rt->config = config;
}

void retirer_perm(struct retirer *rt, const struct state *old) {
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
		if (rt->n_rules == MAX_RETIRED) {
			retired_free(&rt->rules[0]);
			memmove(rt->rules, rt->rules + 1, --rt->n_rules * sizeof(*rt->rules));
		} else {
			struct retired *v = realloc(rt->rules, (rt->n_rules + 1) * sizeof(*v));

			if (!v)
				return;
			rt->rules = v;
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
		rt->rules[rt->n_rules++] = t;
	}
}

const struct retired *retirer_rule(const struct retirer *rt, const char *name) {
	for (size_t i = rt->n_rules; name && i-- > 0;)
		if (strcmp(rt->rules[i].rule, name) == 0)
			return &rt->rules[i];
	return NULL;
}

void retirer_tidy(struct retirer *rt) {
	if (!ev_is_active(&rt->timer))
		ev_timer_start(rt->loop, &rt->tidy_timer); /* (else when the marks are gone) */
}
