/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c — see policy.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathset.h"
#include "policy.h"
#include "util.h"

struct pdecision {
	struct verdict verdict;
	bool log;
	struct pathset paths; /* (empty: any path) */
	uint64_t events;
	uid_t *uids;
	size_t n_uids;
	gid_t *gids;
	size_t n_gids;
	struct pathset exes; /* (empty: any executable) */
	char **comms;
	size_t n_comms;
};

struct policy {
	char *name;
	struct pdecision *decisions;
	size_t n_decisions;
	struct verdict def, deadline;
	unsigned deadline_ms, delay_ms;
	struct pathset scope;   /* what its marks cover (empty: everything) */
	struct pathset exclude; /* as configured, and canonical where that differs */
	pid_t *pids;
	size_t n_pids;
	char **comms;
	size_t n_comms;
	uid_t *uids;
	size_t n_uids;
	bool needs_path;
};

static void *dup_mem(const void *v, size_t n, size_t size) {
	void *c = calloc(n + 1, size);

	if (c && n)
		memcpy(c, v, n * size);
	return c;
}

static void pdecision_done(struct pdecision *d) {
	pathset_done(&d->paths);
	free(d->uids);
	free(d->gids);
	pathset_done(&d->exes);
	strv_free(d->comms, d->n_comms);
}

struct policy *policy_free(struct policy *p) {
	if (!p)
		return NULL;
	free(p->name);
	for (size_t i = 0; i < p->n_decisions; i++)
		pdecision_done(&p->decisions[i]);
	free(p->decisions);
	pathset_done(&p->scope);
	pathset_done(&p->exclude);
	free(p->pids);
	strv_free(p->comms, p->n_comms);
	free(p->uids);
	free(p);
	return NULL;
}

/* The exclusions as configured, plus the resolved form of existing paths
 * where it differs (resolve.h: a directory reached through a symlink only
 * root controls is excluded by both). */
static int copy_exclude(struct policy *p, const struct rule_conf *rc) {
	for (size_t i = 0; i < rc->n_exclude; i++) {
		int r = pathset_add_pattern_resolved(&p->exclude, rc->exclude[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

static int copy_decision(struct pdecision *d, const struct decision_conf *dc) {
	d->verdict = dc->verdict;
	d->log = dc->log;
	d->events = dc->events;
	d->n_uids = dc->n_uids;
	d->n_gids = dc->n_gids;
	d->n_comms = dc->n_comms;
	for (size_t i = 0; i < dc->n_paths; i++)
		if (pathset_add_pattern(&d->paths, dc->paths[i]) < 0)
			return -ENOMEM;
	d->uids = dup_mem(dc->uids, dc->n_uids, sizeof(uid_t));
	d->gids = dup_mem(dc->gids, dc->n_gids, sizeof(gid_t));
	for (size_t i = 0; i < dc->n_exes; i++)
		if (pathset_add_pattern(&d->exes, dc->exes[i]) < 0)
			return -ENOMEM;
	d->comms = strv_copy(dc->comms, dc->n_comms);
	return d->uids && d->gids && d->comms ? 0 : -ENOMEM;
}

static inline void policy_freep(struct policy **p) {
	policy_free(*p);
}

int policy_new(const struct rule_conf *rc, const struct policy_scope *scopes, size_t n_scopes,
	       struct policy **ret) {
	_cleanup_(policy_freep) struct policy *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->def = rc->def;
	p->deadline = rc->deadline_verdict;
	p->deadline_ms = rc->deadline_ms;
	p->delay_ms = rc->debug_delay_ms;
	p->name = strdup(rc->name);
	p->decisions = calloc(rc->n_decisions + 1, sizeof(*p->decisions));
	p->pids = dup_mem(rc->pids, rc->n_pids, sizeof(pid_t));
	p->comms = strv_copy(rc->comms, rc->n_comms);
	p->uids = dup_mem(rc->uids, rc->n_uids, sizeof(uid_t));
	if (!p->name || !p->decisions || !p->pids || !p->comms || !p->uids ||
	    copy_exclude(p, rc) < 0)
		return -ENOMEM;
	p->n_pids = rc->n_pids;
	p->n_comms = rc->n_comms;
	p->n_uids = rc->n_uids;
	for (size_t i = 0; i < rc->n_decisions; i++) {
		p->n_decisions++;
		if (copy_decision(&p->decisions[i], &rc->decisions[i]) < 0)
			return -ENOMEM;
		if (rc->decisions[i].n_paths > 0)
			p->needs_path = true;
	}
	for (size_t i = 0; i < n_scopes; i++) {
		unsigned cover = PATHSET_SELF | (scopes[i].recursive  ? PATHSET_BELOW
						 : scopes[i].children ? PATHSET_CHILDREN
								      : 0);
		int r = pathset_add(&p->scope, scopes[i].path, cover);

		if (r < 0)
			return r;
	}
	p->needs_path = p->needs_path || n_scopes > 0 || !pathset_empty(&p->exclude);
	*ret = steal_ptr(&p);
	return 0;
}

const char *policy_rule_name(const struct policy *p) {
	return p->name;
}

unsigned policy_deadline_ms(const struct policy *p) {
	return p->deadline_ms;
}

unsigned policy_delay_ms(const struct policy *p) {
	return p->delay_ms;
}

const struct verdict *policy_deadline_verdict(const struct policy *p) {
	return &p->deadline;
}

bool policy_needs_path(const struct policy *p) {
	return p->needs_path;
}

static bool any_str(char *const *v, size_t n, const char *s) {
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool any_id(const uint32_t *v, size_t n, uint32_t id) {
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

bool policy_applies(const struct policy *p, const char *path, struct proc_info *proc) {
	if (path && ((!pathset_empty(&p->scope) && !pathset_has(&p->scope, path)) ||
		     pathset_has(&p->exclude, path)))
		return false;
	return proc_filters_match(proc, p->pids, p->n_pids, p->comms, p->n_comms, p->uids,
				  p->n_uids);
}

static bool decision_matches(const struct pdecision *d, uint64_t mask, const char *path,
			     struct proc_info *proc) {
	if (d->events && !(d->events & mask))
		return false;
	if (!pathset_empty(&d->paths) && !pathset_has(&d->paths, path))
		return false;
	if (d->n_comms > 0 && !any_str(d->comms, d->n_comms, proc_info_comm(proc)))
		return false;
	if ((d->n_uids > 0 || d->n_gids > 0) && !proc_info_status(proc))
		return false;
	if (d->n_uids > 0 && !any_id((const uint32_t *)d->uids, d->n_uids, proc->uid))
		return false;
	if (d->n_gids > 0 && !any_id((const uint32_t *)d->gids, d->n_gids, proc->gid))
		return false;
	if (!pathset_empty(&d->exes) && !pathset_has(&d->exes, proc_info_exe(proc)))
		return false;
	return true;
}

void policy_decide(const struct policy *p, uint64_t mask, const char *path, struct proc_info *proc,
		   struct policy_result *ret) {
	for (size_t i = 0; i < p->n_decisions; i++)
		if (decision_matches(&p->decisions[i], mask, path, proc)) {
			*ret = (struct policy_result){ .verdict = p->decisions[i].verdict,
						       .decision = (unsigned)i + 1,
						       .log = p->decisions[i].log };
			return;
		}
	*ret = (struct policy_result){ .verdict = p->def, .log = p->def.deny || p->def.audit };
}
