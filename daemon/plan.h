/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan.h — from rules to marks. The planner decides, for every rule and
 * path, which kernel mark (or inotify watch) covers it, with which mask,
 * in which group, and why; it probes the kernel/filesystem for what works
 * (libfsn's fsn_probe_path()) and explains a rule that cannot work here.
 * Pure of side effects except the probe (and mkdir for `create = true`).
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "fsn.h"

/* One mark the daemon will place. */
struct plan_mark {
	const struct rule_conf *rule; /* points into the config the plan was made from */
	char *path;                   /* the path the rule names */
	struct fsn_mark_spec spec;    /* spec.path == path; spec.userdata unused by the plan */
	char *why;                    /* one sentence: why this mechanism, this mask */
	/* Userspace filtering the daemon must do on this mark's events: */
	char *subtree;          /* report only events under this directory (NULL: all) */
	bool subtree_recursive; /* everything below (true) or direct children only */
};

/* A rule that cannot be placed, and why (e.g. "mount marks cannot report
 * create/delete/move events (the kernel refuses them: EINVAL); use mark =
 * \"filesystem\" or \"auto\""). */
struct plan_problem {
	const struct rule_conf *rule;
	char *path; /* NULL if the problem is not about one path */
	char *msg;
	bool fatal; /* the rule is `required` */
};

struct plan {
	struct plan_mark *marks;
	size_t n_marks;
	struct plan_problem *problems;
	size_t n_problems;
};

/*
 * Plan every rule of c. Never fails for a rule that cannot work: that is a
 * problem entry (fatal if the rule is required). Returns 0, or -ENOMEM.
 * Group assignment: every notification mark uses class NOTIF with
 * FAN_REPORT_DFID_NAME | FAN_REPORT_FID (so every event can be resolved
 * to a full path), group_tag 0, except rules with kernel ignore marks
 * (exclusions), which get a group_tag of their own (1 + rule index) so
 * their ignore masks cannot hide other rules' events.
 */
int plan_build(const struct config *c, struct plan **ret);
struct plan *plan_free(struct plan *p);

/* Human-readable plan: each mark on which object, with which mask, and
 * why; then the problems. Used by `fsnotifyd --check-config`. */
void plan_print(const struct plan *p, FILE *f);
