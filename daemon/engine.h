/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h — the running daemon: a libfsn context with the marks of the
 * current plan, the outputs, and the matching of decoded events to rules.
 * fsnotifyd.c owns the loop, signals and systemd notification; the engine
 * owns everything between the kernel and the outputs. Implemented by
 * engine.c and the pieces its header comment names (engine-private.h).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "plan.h"

struct ev_loop;
struct engine;

/* Per-rule counters, for STATUS=, the control socket and the metrics
 * (metrics.h); they survive reloads by rule name. */
struct rule_stats {
	uint64_t events;      /* reported */
	uint64_t filtered;    /* dropped by exclude / process filters */
	uint64_t ratelimited; /* held back by the rule's rate limit */
	uint64_t dropped;     /* ... of them, reported in "dropped" records so far */
	uint64_t overflows;   /* overflows of a kernel queue the rule's marks use */
	uint64_t rescans;     /* rescans of its paths after an overflow */
	uint64_t rearms;      /* marks placed again where a watched object went or a
			       * missing path appeared */
	/* times a symlink on one of its paths was not followed (resolve.h) */
	uint64_t symlink_refusals;
};

/* Create an engine on loop: a libfsn context whose fd is watched by an
 * ev_io. Its messages and libfsn's go to the daemon's log (log.h). */
int engine_new(struct ev_loop *loop, struct engine **ret);
struct engine *engine_free(struct engine *e);

/*
 * Load the config file path and make the engine run it, without holding
 * the loop: a worker thread reads and plans it (the feature probe is
 * cached per filesystem across loads, revalidated against the mounts
 * first), then the loop places it in batches of at most 10 ms, events
 * handled between them. The first load places every mark; a later one
 * (reload) keeps marks whose (rule, path, spec) are unchanged in the
 * kernel untouched (no gap), places new marks before gone ones are
 * removed, and reopens outputs only if their configuration changed. Until
 * the new config takes over, the running one reports every event; a new
 * rule reports from then on. On failure (an invalid config, a required
 * rule that cannot be placed) the running config keeps running, every
 * error was logged, and why says the first.
 * done(e, r, why, userdata) is called on the loop when it is over: r = 0,
 * or -errno with why. Returns 0 (loading), -EBUSY when a load is running,
 * or -errno.
 */
typedef void (*engine_load_fn)(struct engine *e, int r, const char *why, void *userdata);
int engine_load(struct engine *e, const char *path, engine_load_fn done, void *userdata);

/* Steps all loads made so far: moves while a load makes progress (the
 * daemon extends systemd's start timeout only then). */
uint64_t engine_load_progress(const struct engine *e);

/* SIGUSR1: reopen output files. */
void engine_reopen_outputs(struct engine *e);

/* One line for STATUS=, e.g. "3 rules, 5 marks; 1200 events, 0 overflows, 0 rate-limited,
 * 0 lost by outputs; last reload ok", and per permission rule "; rule 'r': 10
 * allowed, 2 denied, 1 on deadline, p50 12 us, p99 40 us". */
void engine_status(const struct engine *e, char *buf, size_t len);

/* Kernel marks and inotify watches placed now. */
unsigned engine_n_marks(const struct engine *e);

/* The control socket's counters, for the metrics (fsnotifyd_subscribers,
 * fsnotifyd_control_*): the control socket hands the engine a function
 * that fills them. */
struct control_counters {
	unsigned subscribers; /* Watch calls connected now */
	unsigned clients;
	uint64_t accepted, refused, disconnected_slow, dropped;
};
typedef void (*engine_control_fn)(void *userdata, struct control_counters *ret);
void engine_set_control_counters(struct engine *e, engine_control_fn fn, void *userdata);
/* false when no control socket said how to get them */
bool engine_control_counters(const struct engine *e, struct control_counters *ret);

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

/* --foreground: also print each record human-readably to stdout (a
 * console output, output-console.c). 0, or -errno. */
int engine_set_foreground(struct engine *e, bool on);

const struct config *engine_config(const struct engine *e);

/* For the control socket (engine-status.c; doc/io.fsnotifyd.varlink): the
 * rules as a JSON array (ListRules, GetStatus's rules), and GetStatus's
 * other members about the running state, each after a comma (marks,
 * queues, groups, read_buffer, filesystems, features, events, overflows,
 * output_lost, last_reload_error). */
struct jbuf;
void engine_rules_json(const struct engine *e, struct jbuf *b);
void engine_status_json(struct engine *e, struct jbuf *b);
/* A start or reload runs. */
bool engine_loading(const struct engine *e);
/* Explain's answer for path (absolute, normalised): the rules whose marks
 * concern it, whether each reports its events (scope, exclusions), and
 * what an access there costs the hooks, in words. Decided from the plan and
 * the mount table: path itself is never looked at. */
void engine_path_marks_json(struct engine *e, const char *path, struct jbuf *b);

/* Every record the engine reports also goes to fn (the control socket's
 * subscribers), after the outputs; NULL: none. */
struct record;
typedef void (*engine_record_fn)(const struct record *rec, void *userdata);
void engine_set_record_hook(struct engine *e, engine_record_fn fn, void *userdata);

/* Compare the baseline of rule (NULL: every rule with baseline) now: its
 * differences are baseline records, reason "verify", on the rule's
 * outputs. The rules queued as a JSON array of names into b; -ENOENT no
 * such rule, -EINVAL a rule without baseline (none: an empty array). */
int engine_baseline_verify(struct engine *e, const char *rule, struct jbuf *b);

/* What the baseline holds for path (under rule; NULL: any rule): found()
 * is called with token once the baseline thread looked: r 1 (rule and o
 * say), 0 none, -errno. -ENOENT at once when no rule has a baseline. */
struct baseline_object;
typedef void (*engine_found_fn)(void *userdata, uint64_t token, int r, const char *rule,
				const struct baseline_object *o);
int engine_baseline_lookup(struct engine *e, const char *rule, const char *path, uint64_t token,
			   engine_found_fn found, void *userdata);

/* fsnotifyd --baseline-check (init false) or --baseline-init: every rule
 * of c with baseline (only: that one) checked against its baseline, each
 * difference a JSON line on stdout, nothing recorded; or made anew
 * (engine-baseline.c). The exit status: 0 no difference (made), 1
 * differences, 2 an error. */
int baseline_oneshot(const struct config *c, const char *only, bool init);
