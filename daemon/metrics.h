/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h — the daemon's counters in the Prometheus text exposition
 * format, version 0.0.4: what the control socket's GetMetrics returns and
 * what a metrics output writes (output-metrics.c). Every series is named
 * fsnotifyd_*, each family has its # HELP and # TYPE lines, counters end
 * in _total, label values are escaped (prom_escape(): rule and output
 * names come from the config).
 *
 * The families, with their labels:
 *   per rule {rule}: fsnotifyd_rule_{events,filtered,ratelimited,dropped,
 *     overflows,rescans,rearms,symlink_refusals}_total (struct rule_stats)
 *   per permission rule {rule}: fsnotifyd_permission_verdicts_total
 *     {verdict="allow|deny|audit|deadline"}, fsnotifyd_permission_pending,
 *     the histogram fsnotifyd_permission_decision_seconds (_bucket{le},
 *     _sum, _count; the bounds of guard_latency_bounds_us)
 *   per output {output,type}: fsnotifyd_output_{records,failures,
 *     dropped}_total (struct output_counters)
 *   the process: fsnotifyd_rules, fsnotifyd_marks, fsnotifyd_fanotify_groups,
 *     fsnotifyd_subscribers, fsnotifyd_resident_memory_bytes,
 *     fsnotifyd_events_handled_total, fsnotifyd_overflows_total,
 *     fsnotifyd_reader_buffer_{bytes,peak_bytes,limit_bytes},
 *     fsnotifyd_reader_buffer_full_total, fsnotifyd_start_time_seconds,
 *     fsnotifyd_config_load_time_seconds, fsnotifyd_config_last_reload_ok,
 *     fsnotifyd_uptime_seconds, fsnotifyd_build_info{version} 1
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "guard.h"

struct engine;

/*
 * The metrics of the engine now, as text (malloc'd, NUL-terminated;
 * *ret_len its length without the NUL). Cheap enough for every few
 * seconds (a pass over the rules and outputs, a read of
 * /proc/self/statm); call it on the loop's thread. 0, or -ENOMEM.
 */
int metrics_render(const struct engine *e, char **ret_text, size_t *ret_len);

/* ---- the pieces metrics_render() writes with (and the unit tests) ---- */

/* "# HELP name help\n# TYPE name type\n". */
void metrics_family(FILE *f, const char *name, const char *type, const char *help);
/* A label value between its quotes, escaped (prom_escape()). */
void metrics_label_value(FILE *f, const char *s);

/* A permission rule's counters as metrics_render() gathers them. */
struct metrics_perm {
	const char *rule;
	struct guard_stats stats;
};
/* The permission families of rules v[0..n): their verdicts, pending
 * decisions and the decision latency histogram (buckets cumulative, as
 * the format wants; _count is the sum of the buckets). */
void metrics_write_perm(FILE *f, const struct metrics_perm *v, size_t n);
