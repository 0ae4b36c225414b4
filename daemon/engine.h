/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h — the running daemon: a libfsn context with the marks of the
 * current plan, the outputs, and the matching of decoded events to rules.
 * fsnotifyd.c owns the loop, signals and systemd notification; the engine
 * owns everything between the kernel and the outputs.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "plan.h"

struct ev_loop;
struct engine;

/* Per-rule counters, for STATUS= and --foreground summaries. */
struct rule_stats {
	uint64_t events;   /* reported */
	uint64_t filtered; /* dropped by exclude / process filters */
	uint64_t ratelimited;
	uint64_t overflows;
};

/* Create an engine on loop: a libfsn context whose fd is watched by an
 * ev_io. log: where the engine's own messages go (priority as syslog). */
int engine_new(struct ev_loop *loop, struct engine **ret);
struct engine *engine_free(struct engine *e);

/*
 * Make the engine run config c (taking ownership of c on success).
 * First call: plan, open outputs, place every mark; a rule that cannot be
 * placed is logged with its reason; -EINVAL if a required rule failed.
 * Later calls (reload): plan the new config; marks whose (rule, path,
 * spec) are unchanged stay in the kernel untouched (no gap); new marks are
 * placed before gone ones are removed; outputs are reopened only if their
 * configuration changed. On failure the old config keeps running and the
 * error says why (err, errlen).
 */
int engine_apply(struct engine *e, struct config *c, char *err, size_t errlen);

/* SIGUSR1: reopen output files. */
void engine_reopen_outputs(struct engine *e);

/* One line for STATUS=, e.g. "3 rules, 5 marks; 1200 events, 0 overflows, 0 dropped". */
void engine_status(const struct engine *e, char *buf, size_t len);

/* Total events the loop handled so far (the watchdog feeds only while this
 * or the loop's iteration count moves). */
uint64_t engine_events_handled(const struct engine *e);

/* --foreground: also print each event human-readably to stdout. */
void engine_set_foreground(struct engine *e, bool on);

const struct config *engine_config(const struct engine *e);
