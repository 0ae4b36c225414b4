/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c — see policy.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "resolve.h"
#include "util.h"

struct pdecision {
	struct verdict verdict;
	bool log;
	char **paths;
	size_t n_paths;
	uint64_t events;
	uid_t *uids;
	size_t n_uids;
	gid_t *gids;
	size_t n_gids;
	char **exes;
	size_t n_exes;
	char **comms;
	size_t n_comms;
};

struct pscope {
	char *path;
	bool recursive, children;
};

struct policy {
	char *name;
	struct pdecision *decisions;
	size_t n_decisions;
	struct verdict def, deadline;
	unsigned deadline_ms, delay_ms;
	struct pscope *scopes;
	size_t n_scopes;
	char **exclude; /* as configured, and canonical where that differs */
	size_t n_exclude;
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
	strv_free(d->paths, d->n_paths);
	free(d->uids);
	free(d->gids);
	strv_free(d->exes, d->n_exes);
	strv_free(d->comms, d->n_comms);
}

struct policy *policy_free(struct policy *p) {
	if (!p)
		return NULL;
	free(p->name);
	for (size_t i = 0; i < p->n_decisions; i++)
		pdecision_done(&p->decisions[i]);
	free(p->decisions);
	for (size_t i = 0; i < p->n_scopes; i++)
		free(p->scopes[i].path);
	free(p->scopes);
	strv_free(p->exclude, p->n_exclude);
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
	p->exclude = calloc(2 * rc->n_exclude + 1, sizeof(char *));
	if (!p->exclude)
		return -ENOMEM;
	for (size_t i = 0; i < rc->n_exclude; i++) {
		const char *x = rc->exclude[i];
		_cleanup_free_ char *c = NULL;

		if (!(p->exclude[p->n_exclude++] = strdup(x)))
			return -ENOMEM;
		if (is_glob(x))
			continue;
		c = resolve_canonical(x);
		if (c && strcmp(c, x) != 0)
			p->exclude[p->n_exclude++] = steal_ptr(&c);
	}
	return 0;
}

static int copy_decision(struct pdecision *d, const struct decision_conf *dc) {
	d->verdict = dc->verdict;
	d->log = dc->log;
	d->events = dc->events;
	d->n_paths = dc->n_paths;
	d->n_uids = dc->n_uids;
	d->n_gids = dc->n_gids;
	d->n_exes = dc->n_exes;
	d->n_comms = dc->n_comms;
	d->paths = strv_copy(dc->paths, dc->n_paths);
	d->uids = dup_mem(dc->uids, dc->n_uids, sizeof(uid_t));
	d->gids = dup_mem(dc->gids, dc->n_gids, sizeof(gid_t));
	d->exes = strv_copy(dc->exes, dc->n_exes);
	d->comms = strv_copy(dc->comms, dc->n_comms);
	return d->paths && d->uids && d->gids && d->exes && d->comms ? 0 : -ENOMEM;
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
	p->scopes = calloc(n_scopes + 1, sizeof(*p->scopes));
	p->pids = dup_mem(rc->pids, rc->n_pids, sizeof(pid_t));
	p->comms = strv_copy(rc->comms, rc->n_comms);
	p->uids = dup_mem(rc->uids, rc->n_uids, sizeof(uid_t));
	if (!p->name || !p->decisions || !p->scopes || !p->pids || !p->comms || !p->uids ||
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
		p->scopes[i] = (struct pscope){ .path = strdup(scopes[i].path),
						.recursive = scopes[i].recursive,
						.children = scopes[i].children };
		p->n_scopes++;
		if (!p->scopes[i].path)
			return -ENOMEM;
	}
	p->needs_path = p->needs_path || n_scopes > 0 || p->n_exclude > 0;
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

static bool any_path(char *const *v, size_t n, const char *path) {
	for (size_t i = 0; path && i < n; i++)
		if (path_matches(path, v[i]))
			return true;
	return false;
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

static bool in_scope(const struct policy *p, const char *path) {
	if (p->n_scopes == 0 || !path)
		return true;
	for (size_t i = 0; i < p->n_scopes; i++) {
		const struct pscope *s = &p->scopes[i];

		if (strcmp(path, s->path) == 0 ||
		    ((s->recursive || s->children) && path_in(path, s->path, s->recursive, false)))
			return true;
	}
	return false;
}

bool policy_applies(const struct policy *p, const char *path, struct proc_info *proc) {
	if (!in_scope(p, path) || any_path(p->exclude, p->n_exclude, path))
		return false;
	return proc_filters_match(proc, p->pids, p->n_pids, p->comms, p->n_comms, p->uids,
				  p->n_uids);
}

static bool decision_matches(const struct pdecision *d, uint64_t mask, const char *path,
			     struct proc_info *proc) {
	if (d->events && !(d->events & mask))
		return false;
	if (d->n_paths > 0 && !any_path(d->paths, d->n_paths, path))
		return false;
	if (d->n_comms > 0 && !any_str(d->comms, d->n_comms, proc_info_comm(proc)))
		return false;
	if ((d->n_uids > 0 || d->n_gids > 0) && !proc_info_status(proc))
		return false;
	if (d->n_uids > 0 && !any_id((const uint32_t *)d->uids, d->n_uids, proc->uid))
		return false;
	if (d->n_gids > 0 && !any_id((const uint32_t *)d->gids, d->n_gids, proc->gid))
		return false;
	if (d->n_exes > 0 && !any_path(d->exes, d->n_exes, proc_info_exe(proc)))
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
