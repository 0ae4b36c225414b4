/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan-costs.h — `fsnotifyd --explain`: the plan, one block per rule wrapped
 * at 80 columns, with what each rule's marks cost a write, an open and a
 * read, in figures measured by `fsn-bench hooks`: the table shipped with
 * fsnotifyd (doc/hook-costs.txt, built in), or with --measure the same
 * benchmark run on this machine now.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "plan.h"

/* The workloads the explanation quotes, as fsn-bench hooks names them. */
enum hook_op {
	HOOK_WRITE = 0, /* pwrite */
	HOOK_OPEN,      /* open-close */
	HOOK_READ,      /* pread */
	_HOOK_OP_MAX,
};

/* The scenarios it quotes. */
enum hook_scenario {
	HS_INO_SAME_FS = 0, /* a watch elsewhere on the filesystem */
	HS_INO_PARENT_NOMATCH,
	HS_INO_PARENT_DRAIN,
	HS_FAN_MOUNT_OTHER,
	HS_FAN_FS_NOMATCH,
	HS_PERM_SAME_FS,
	_HS_MAX,
};

struct hook_cost {
	bool known;
	double ratio; /* ops per CPU-second against "none" in the same round */
	bool noise;   /* its 95 % interval includes 1 */
};

struct hook_costs {
	char source[256]; /* where the figures come from, in words */
	bool measured;    /* on this machine now (--measure) */
	struct hook_cost c[_HS_MAX][_HOOK_OP_MAX];
};

/* The scenario names of enum hook_scenario, comma separated (for
 * fsn-bench hooks --scenarios, with "none" and "none-ctl"). */
extern const char hook_scenarios_arg[];
extern const char hook_workloads_arg[];

/* Parse the table `fsn-bench hooks` prints (a "# machine: ..." line names
 * where it was measured). Returns 0, or -EINVAL when it names none of the
 * figures quoted. */
int hook_costs_parse(const char *text, struct hook_costs *ret);
/* The table shipped with fsnotifyd. */
int hook_costs_builtin(struct hook_costs *ret);
/* Run `fsn-bench hooks --quick` (the program at fsn_bench) on this machine
 * and parse its table; its progress and errors go to stderr. Returns 0 or
 * a negative errno (err says why). */
int hook_costs_measure(const char *fsn_bench, struct hook_costs *ret, char *err, size_t len);

/* Print the plan per rule (plan_print_summary()'s text) with each rule's
 * costs, every line wrapped to width columns. */
void plan_print_costs(const struct plan *p, const struct hook_costs *hc, size_t width, FILE *f);

/* Write text to f with every line longer than width broken at spaces;
 * continuation lines are indented 4 columns more than their line. */
void text_wrap(FILE *f, const char *text, size_t width);
