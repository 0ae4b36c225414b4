/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h — a permission rule compiled for the guard thread: which events
 * concern it (scope, exclusions, process filters) and its decision list.
 * A struct policy owns copies of everything it needs, so the config it was
 * made from may be freed while the guard still uses it; evaluating it is
 * pure apart from the lazy /proc reads of struct proc_info. A verdict and
 * its text are verdict.h's (shared/, the record library).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "proc.h"
#include "verdict.h"

struct policy;

/* Where the rule's marks reach, for filtering what a filesystem or mount
 * mark delivers: a path and what around it counts. */
struct policy_scope {
	const char *path; /* canonical */
	bool recursive;   /* everything below path */
	bool children;    /* path's direct entries */
};

/* Compile rc (a permission rule) with the scopes of its marks. A rule
 * whose marks all deliver only events of their own objects (inode marks)
 * needs no scope: n_scopes 0 means every event is in scope. Returns 0, or
 * -ENOMEM. */
int policy_new(const struct rule_conf *rc, const struct policy_scope *scopes, size_t n_scopes,
	       struct policy **ret);
struct policy *policy_free(struct policy *p);

const char *policy_rule_name(const struct policy *p);
unsigned policy_deadline_ms(const struct policy *p);
unsigned policy_delay_ms(const struct policy *p);
const struct verdict *policy_deadline_verdict(const struct policy *p);
/* The path is needed to apply the policy (scopes, exclusions, paths). */
bool policy_needs_path(const struct policy *p);

/* Whether the event is the rule's at all: in one of its scopes, not
 * excluded, and from a process its filters (pids, comms, uids) select.
 * path NULL (unknown): in scope, never excluded. Events that are not the
 * rule's are allowed and not counted as decisions. */
bool policy_applies(const struct policy *p, const char *path, struct proc_info *proc);

struct policy_result {
	struct verdict verdict;
	unsigned decision; /* 1-based index of the matching decision; 0: the default */
	bool log;          /* report it */
};

/* The first decision whose criteria all match (mask: the event's
 * permission bits; path NULL matches no `paths` criterion), else the
 * rule's default verdict. */
void policy_decide(const struct policy *p, uint64_t mask, const char *path, struct proc_info *proc,
		   struct policy_result *ret);
