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

/* One line for STATUS=, e.g. "3 rules, 5 marks; 1200 events, 0 overflows, 0 dropped,
 * 0 output failures; last reload ok", and per permission rule "; rule 'r': 10
 * allowed, 2 denied, 1 on deadline, p50 12 us, p99 40 us". */
void engine_status(const struct engine *e, char *buf, size_t len);

/* A reload failed before reaching engine_apply() (the new config did not
 * load): engine_status() says "last reload failed: why". */
void engine_reload_failed(struct engine *e, const char *why);

/* Kernel marks and inotify watches placed now. */
unsigned engine_n_marks(const struct engine *e);

/* Counters of the rule named rule, NULL if there is none. */
const struct rule_stats *engine_rule_stats(const struct engine *e, const char *rule);

/* 1 if this process runs in a mount namespace of its own, shared neither
 * with PID 1 nor with its parent (systemd's ProtectSystem= and the like):
 * mount marks are then refused, as they would see only what happens
 * through this namespace's copies of the mounts. 0 if shared, -errno if
 * that cannot be told. */
int engine_mntns_foreign(void);

/* Total events the loop handled so far (the watchdog feeds only while this
 * or the loop's iteration count moves). */
uint64_t engine_events_handled(const struct engine *e);

/* Emit a "stats" record for each permission rule whose counters changed
 * since the last one. Called every
 * status_interval; at stop (engine_free()) every permission rule reports its
 * last counters, after its queue was answered. */
void engine_report_perm_stats(struct engine *e);

/* The permission thread is stuck in one decision (or one batch) for longer
 * than twice the longest deadline and at least 5 s: stop feeding the
 * watchdog, so systemd restarts the daemon and the kernel releases every
 * blocked process. */
bool engine_stalled(const struct engine *e);

/* --foreground: also print each event human-readably to stdout. */
void engine_set_foreground(struct engine *e, bool on);

const struct config *engine_config(const struct engine *e);
