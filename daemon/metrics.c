/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.c — the engine's counters as Prometheus text (metrics.h): read
 * from the running state (the rules' struct rule_stats, the outputs'
 * struct output_counters, the permission thread's counters and decision
 * latency histogram through guard_stats(), libfsn's reader thread and
 * groups) and written through a memory stream. A piece of the engine
 * (it reads engine-private.h), but it changes nothing: rendering is a
 * pure read, on the loop's thread.
 *
 * A family with no series now (no permission rules, no outputs) is left
 * out whole, # HELP and # TYPE included.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "engine-private.h"
#include "escape.h"
#include "guard.h"
#include "hasher.h"
#include "packages.h"
#include "metrics.h"

void metrics_family(FILE *f, const char *name, const char *type, const char *help) {
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_label_value(FILE *f, const char *s) {
	_cleanup_free_ char *heap = NULL;
	char buf[512], *out = buf;
	size_t pos = 0;

	prom_escape(buf, sizeof(buf), &pos, s);
	if (pos >= sizeof(buf)) {
		size_t need = pos + 1;

		heap = malloc(need);
		if (!heap)
			return; /* (the stream fails too: metrics_render() says ENOMEM) */
		pos = 0;
		prom_escape(heap, need, &pos, s);
		out = heap;
	}
	fputc('"', f);
	fputs(out, f);
	fputc('"', f);
}

/* name{k1="v1"[,k2="v2"]} — the value follows. */
static void series(FILE *f, const char *name, const char *k1, const char *v1, const char *k2,
		   const char *v2) {
	fprintf(f, "%s{%s=", name, k1);
	metrics_label_value(f, v1);
	if (k2) {
		fprintf(f, ",%s=", k2);
		metrics_label_value(f, v2);
	}
	fputs("} ", f);
}

static void one_u64(FILE *f, const char *name, const char *type, const char *help, uint64_t v) {
	metrics_family(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void one_seconds(FILE *f, const char *name, const char *help, uint64_t usec) {
	metrics_family(f, name, "gauge", help);
	fprintf(f, "%s %" PRIu64 ".%06" PRIu64 "\n", name, usec / 1000000u, usec % 1000000u);
}

/* A counter family with one label: names[i] has v[i]. */
static void counters_by(FILE *f, const char *name, const char *help, const char *label,
			const char *const *names, const uint64_t *v, size_t n) {
	metrics_family(f, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		series(f, name, label, names[i], NULL, NULL);
		fprintf(f, "%" PRIu64 "\n", v[i]);
	}
}

/* dpkg's word (rules with packages): the database's size, the changes
 * checked by outcome, those waiting; all 0 while no rule has packages. */
static void package_metrics(FILE *f, const struct engine *e) {
	struct pkgdb_stats s;
	static const char *const outcomes[] = { "verified", "mismatched", "unlisted" };

	pkgdb_get_stats(e->pkgdb, &s);
	one_u64(f, "fsnotifyd_package_files", "gauge",
		"Files under the paths of rules with packages that dpkg's md5sums list.", s.files);
	one_u64(f, "fsnotifyd_package_changes_waiting", "gauge",
		"Changes waiting for dpkg's word (limits.package_hold).", s.waiting);
	one_u64(f, "fsnotifyd_package_changes_dropped_total", "counter",
		"Changes dpkg made that its md5sums list as they are, not reported "
		"(packages = \"drop\").",
		e->pkg_dropped);
	one_u64(f, "fsnotifyd_package_changes_unchecked_total", "counter",
		"Changes not checked for want of room (limits.package_hold): reported as any.",
		s.no_room);
	counters_by(f, "fsnotifyd_package_changes_total",
		    "Changes of rules with packages checked against dpkg's md5sums, by outcome.",
		    "outcome", outcomes, (const uint64_t[]){ s.verified, s.mismatched, s.unlisted },
		    ELEMENTSOF(outcomes));
}

/* A family of one series per rule with baseline: the counter at off. */
static void baseline_by_rule(FILE *f, const char *name, const char *type, const char *help,
			     const struct baseline_stats *v, size_t n, size_t off) {
	metrics_family(f, name, type, help);
	for (size_t i = 0; i < n; i++) {
		series(f, name, "rule", v[i].rule, NULL, NULL);
		fprintf(f, "%" PRIu64 "\n", *(const uint64_t *)((const char *)&v[i] + off));
	}
}

/* Rules with baseline: the database's size, and per rule its objects,
 * whether the limit stopped its walk, the differences by change. */
static void baseline_metrics(FILE *f, const struct engine *e) {
	static const char *const changes[] = { "created", "deleted", "renamed", "changed" };
	const struct baseline_stats *v;
	size_t n = baseline_stats_of(e, &v);

	one_u64(f, "fsnotifyd_baseline_bytes", "gauge",
		"Disk used by the baseline database (state_directory; with its WAL).",
		baseline_disk_bytes_of(e));
	if (n == 0)
		return;
	baseline_by_rule(f, "fsnotifyd_baseline_objects", "gauge",
			 "Objects a rule's baseline holds (its last walk).", v, n,
			 offsetof(struct baseline_stats, objects));
	baseline_by_rule(f, "fsnotifyd_baseline_incomplete", "gauge",
			 "1 when a rule's last walk stopped at limits.baseline_objects.", v, n,
			 offsetof(struct baseline_stats, incomplete));
	metrics_family(f, "fsnotifyd_baseline_differences_total", "counter",
		       "Differences between a rule's baseline and what is there, reported "
		       "(baseline records), by change.");
	for (size_t i = 0; i < n; i++) {
		const uint64_t c[] = { v[i].created, v[i].deleted, v[i].renamed, v[i].changed };

		for (size_t k = 0; k < ELEMENTSOF(changes); k++) {
			series(f, "fsnotifyd_baseline_differences_total", "rule", v[i].rule,
			       "change", changes[k]);
			fprintf(f, "%" PRIu64 "\n", c[k]);
		}
	}
	baseline_by_rule(f, "fsnotifyd_baseline_failures_total", "counter",
			 "Scans and syncs of a rule's baseline that failed (the log says why).", v,
			 n, offsetof(struct baseline_stats, failures));
}

/* The hasher's counters (rules with hash); all 0 while no rule has had it. */
static void hash_metrics(FILE *f, const struct hasher *h, uint64_t shed) {
	struct hasher_stats s = { 0 };
	static const char *const reasons[] = { "too_big",  "backlog", "gone", "not_regular",
					       "changing", "stopped", "error" };

	if (h)
		hasher_get_stats(h, &s);
	s.skipped_backlog += shed; /* (event records that said so: never handed over) */
	one_u64(f, "fsnotifyd_hashes_total", "counter",
		"Files hashed (content records with a sha256).", s.hashed);
	one_u64(f, "fsnotifyd_hash_bytes_total", "counter", "Bytes read to hash files.", s.bytes);
	one_u64(f, "fsnotifyd_hashes_merged_total", "counter",
		"Files handed to the hasher while the same file of the same rule, under the same "
		"name, still waited "
		"(one read, one content record for both).",
		s.merged);
	one_u64(f, "fsnotifyd_hash_queue_files", "gauge",
		"Files waiting for the hasher or being read (limits.hash_queue).", s.waiting);
	counters_by(f, "fsnotifyd_hashes_skipped_total",
		    "Content records without a sha256, by hash_skipped.", "reason", reasons,
		    (const uint64_t[]){ s.skipped_too_big, s.skipped_backlog, s.skipped_gone,
					s.skipped_not_regular, s.skipped_changing,
					s.skipped_stopped, s.skipped_error },
		    ELEMENTSOF(reasons));
}

/* ------------------------------------------------------------------------ */
/* rules                                                                    */
/* ------------------------------------------------------------------------ */

static const struct {
	const char *name;
	size_t off;
	const char *help;
} rule_families[] = {
	{ "fsnotifyd_rule_events_total", offsetof(struct rule_stats, events),
	  "Records the rule reported (events, rescan findings, permission decisions)." },
	{ "fsnotifyd_rule_filtered_total", offsetof(struct rule_stats, filtered),
	  "Events the rule's exclusions or process filters left out." },
	{ "fsnotifyd_rule_ratelimited_total", offsetof(struct rule_stats, ratelimited),
	  "Events the rule's rate limit held back." },
	{ "fsnotifyd_rule_dropped_total", offsetof(struct rule_stats, dropped),
	  "Events held back by the rate limit and reported so in dropped records." },
	{ "fsnotifyd_rule_overflows_total", offsetof(struct rule_stats, overflows),
	  "Overflows of a kernel queue the rule's marks use (events were lost)." },
	{ "fsnotifyd_rule_rescans_total", offsetof(struct rule_stats, rescans),
	  "Rescans of the rule's paths after an overflow." },
	{ "fsnotifyd_rule_rearms_total", offsetof(struct rule_stats, rearms),
	  "Marks placed again where a watched object went or a missing path appeared." },
	{ "fsnotifyd_rule_symlink_refusals_total", offsetof(struct rule_stats, symlink_refusals),
	  "Times a symlink on one of the rule's paths was not followed (another user controls "
	  "it)." },
};

static void write_rules(FILE *f, const struct state *st) {
	if (st->n_rules == 0)
		return;
	for (size_t c = 0; c < ELEMENTSOF(rule_families); c++) {
		metrics_family(f, rule_families[c].name, "counter", rule_families[c].help);
		for (size_t i = 0; i < st->n_rules; i++) {
			const struct erule *r = &st->rules[i];
			uint64_t v;

			memcpy(&v, (const char *)&r->stats + rule_families[c].off, sizeof(v));
			series(f, rule_families[c].name, "rule", r->conf->name, NULL, NULL);
			fprintf(f, "%" PRIu64 "\n", v);
		}
	}
}

/* ------------------------------------------------------------------------ */
/* permission rules                                                         */
/* ------------------------------------------------------------------------ */

void metrics_write_perm(FILE *f, const struct metrics_perm *v, size_t n) {
	static const char *const verdicts[] = { "allow", "deny", "audit", "deadline" };
	const char *hist = "fsnotifyd_permission_decision_seconds";

	if (n == 0)
		return;
	metrics_family(f, "fsnotifyd_permission_verdicts_total", "counter",
		       "Permission events answered, by verdict: allow and deny count every answer, "
		       "audit those also audited (FAN_AUDIT), deadline those answered by the "
		       "deadline verdict.");
	for (size_t i = 0; i < n; i++) {
		const struct guard_stats *s = &v[i].stats;
		const uint64_t counts[] = { s->allowed, s->denied, s->audited, s->deadline };

		for (size_t k = 0; k < ELEMENTSOF(verdicts); k++) {
			series(f, "fsnotifyd_permission_verdicts_total", "rule", v[i].rule,
			       "verdict", verdicts[k]);
			fprintf(f, "%" PRIu64 "\n", counts[k]);
		}
	}
	metrics_family(f, "fsnotifyd_permission_pending", "gauge",
		       "Permission decisions waiting for their answer now.");
	for (size_t i = 0; i < n; i++) {
		series(f, "fsnotifyd_permission_pending", "rule", v[i].rule, NULL, NULL);
		fprintf(f, "%" PRIu64 "\n", v[i].stats.pending);
	}
	metrics_family(f, hist, "histogram",
		       "Time from reading a permission event to writing its answer.");
	for (size_t i = 0; i < n; i++) {
		const struct guard_latency *h = &v[i].stats.latency;
		uint64_t cum = 0;
		char le[32];

		for (size_t b = 0; b <= GUARD_LATENCY_BOUNDS; b++) {
			cum += h->buckets[b];
			if (b < GUARD_LATENCY_BOUNDS)
				snprintf(le, sizeof(le), "%g", guard_latency_bounds_us[b] / 1e6);
			else
				snprintf(le, sizeof(le), "+Inf");
			fprintf(f, "%s_bucket{rule=", hist);
			metrics_label_value(f, v[i].rule);
			fprintf(f, ",le=\"%s\"} %" PRIu64 "\n", le, cum);
		}
		fprintf(f, "%s_sum{rule=", hist);
		metrics_label_value(f, v[i].rule);
		fprintf(f, "} %" PRIu64 ".%06" PRIu64 "\n", h->sum_us / 1000000u,
			h->sum_us % 1000000u);
		fprintf(f, "%s_count{rule=", hist);
		metrics_label_value(f, v[i].rule);
		fprintf(f, "} %" PRIu64 "\n", cum);
	}
}

static int write_perm(FILE *f, const struct engine *e) {
	_cleanup_free_ struct metrics_perm *v = NULL;
	size_t n = 0;

	if (e->st.n_perm == 0 || !e->guard)
		return 0;
	v = calloc(e->st.n_perm, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < e->st.n_perm; i++)
		if (guard_stats(e->guard, e->st.perm[i].conf->name, &v[n].stats))
			v[n++].rule = e->st.perm[i].conf->name;
	metrics_write_perm(f, v, n);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* outputs                                                                  */
/* ------------------------------------------------------------------------ */

static const struct {
	const char *name;
	size_t off;
	const char *help;
} output_families[] = {
	{ "fsnotifyd_output_records_total", offsetof(struct output_counters, written),
	  "Records the output wrote (json: lines; journal: entries; exec: commands started; "
	  "metrics: files written)." },
	{ "fsnotifyd_output_failures_total", offsetof(struct output_counters, failed),
	  "Records the output lost to an error (a failed write, a command that could not "
	  "start)." },
	{ "fsnotifyd_output_dropped_total", offsetof(struct output_counters, dropped),
	  "Records the output dropped at a bound (a slow reader's full buffer, exec's "
	  "max_running or rate)." },
};

static void write_outputs(FILE *f, const struct state *st) {
	if (st->n_outputs == 0)
		return;
	for (size_t c = 0; c < ELEMENTSOF(output_families); c++) {
		metrics_family(f, output_families[c].name, "counter", output_families[c].help);
		for (size_t i = 0; i < st->n_outputs; i++) {
			const struct eoutput *o = st->outputs[i];
			const char *type = output_type_name(o->conf->type);
			struct output_counters n;
			uint64_t v;

			output_get_counters(o->out, &n);
			memcpy(&v, (const char *)&n + output_families[c].off, sizeof(v));
			series(f, output_families[c].name, "output", o->name, "type",
			       type ? type : "?");
			fprintf(f, "%" PRIu64 "\n", v);
		}
	}
}

/* ------------------------------------------------------------------------ */
/* the process                                                              */
/* ------------------------------------------------------------------------ */

/* Resident memory from /proc/self/statm (its second field, in pages). */
static int rss_bytes(uint64_t *ret) {
	char buf[256];
	unsigned long long size, resident;
	long page = sysconf(_SC_PAGESIZE);

	if (read_small("/proc/self/statm", buf, sizeof(buf)) < 0 || page <= 0 ||
	    sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return -EIO;
	*ret = (uint64_t)resident * (uint64_t)page;
	return 0;
}

static void write_process(FILE *f, const struct engine *e) {
	struct fsn_reader_stats rs = { 0 };
	uint64_t rss, now = now_monotonic_usec();

	one_u64(f, "fsnotifyd_rules", "gauge", "Rules of the running config.", e->st.n_rules);
	one_u64(f, "fsnotifyd_marks", "gauge", "Kernel marks and inotify watches placed.",
		engine_n_marks(e));
	one_u64(f, "fsnotifyd_fanotify_groups", "gauge",
		"Fanotify groups (fanotify fds) open: the engine's, and one per permission rule.",
		fsn_ctx_get_n_groups(e->ctx) + e->st.n_perm);
	{
		struct control_counters cc;
		bool have = engine_control_counters(e, &cc); /* (else all 0) */

		one_u64(f, "fsnotifyd_subscribers", "gauge",
			"Subscribers of the control socket (Watch calls) connected.",
			cc.subscribers);
		if (have) {
			one_u64(f, "fsnotifyd_control_clients", "gauge",
				"Connections to the control socket now.", cc.clients);
			one_u64(f, "fsnotifyd_control_accepted_total", "counter",
				"Connections to the control socket accepted.", cc.accepted);
			one_u64(f, "fsnotifyd_control_refused_total", "counter",
				"Connections refused: not root or control.group, or "
				"control.max_clients reached.",
				cc.refused);
			one_u64(f, "fsnotifyd_control_slow_disconnects_total", "counter",
				"Subscribers disconnected for not reading (control.slow_timeout).",
				cc.disconnected_slow);
			one_u64(f, "fsnotifyd_control_dropped_total", "counter",
				"Records dropped for subscribers whose queue was full.",
				cc.dropped);
		}
	}
	if (rss_bytes(&rss) == 0)
		one_u64(f, "fsnotifyd_resident_memory_bytes", "gauge",
			"Resident memory of the daemon (/proc/self/statm).", rss);
	one_u64(f, "fsnotifyd_events_handled_total", "counter",
		"Events read from the kernel and handled, whether reported or not.", e->handled);
	one_u64(f, "fsnotifyd_overflows_total", "counter",
		"Overflows of the kernel queues (fanotify groups, inotify, permission groups).",
		e->overflows);
	one_u64(f, "fsnotifyd_attributes_skipped_total", "counter",
		"Events of rules with attributes whose file was not looked at because the "
		"daemon was behind (attrs_skipped \"backlog\").",
		e->match.attrs_shed_n);
	one_u64(f, "fsnotifyd_attribute_cache_entries", "gauge",
		"Files whose attributes the daemon keeps (limits.attribute_cache).",
		e->match.attrs.n);
	one_u64(f, "fsnotifyd_attribute_cache_forgotten_total", "counter",
		"Files forgotten for room in the attribute cache.", e->match.attrs.forgotten);
	hash_metrics(f, e->hasher, e->match.hash_shed_n);
	package_metrics(f, e);
	baseline_metrics(f, e);
	(void)fsn_ctx_get_reader_stats(e->ctx, &rs);
	one_u64(f, "fsnotifyd_reader_buffer_bytes", "gauge",
		"Bytes of events the reader thread holds now (limits.read_buffer).", rs.bytes);
	one_u64(f, "fsnotifyd_reader_buffer_peak_bytes", "gauge",
		"The most bytes the reader thread held.", rs.peak);
	one_u64(f, "fsnotifyd_reader_buffer_limit_bytes", "gauge",
		"The bound of the reader thread's buffer (0: no reader thread).", rs.max);
	one_u64(f, "fsnotifyd_reader_buffer_full_total", "counter",
		"Times the reader thread stopped reading because its buffer was full.", rs.n_full);
	one_seconds(f, "fsnotifyd_start_time_seconds",
		    "When the daemon started, in seconds since the epoch.", e->started_usec);
	if (e->loaded_usec)
		one_seconds(f, "fsnotifyd_config_load_time_seconds",
			    "When the running config took over, in seconds since the epoch.",
			    e->loaded_usec);
	one_u64(f, "fsnotifyd_config_last_reload_ok", "gauge",
		"0 when the last reload was refused (the config before it runs on), else 1.",
		e->reloaded && e->reload_error[0] ? 0 : 1);
	one_seconds(f, "fsnotifyd_uptime_seconds", "Seconds since the daemon started.",
		    now > e->started_mono ? now - e->started_mono : 0);
	metrics_family(f, "fsnotifyd_build_info", "gauge", "The daemon's version, as a label.");
	series(f, "fsnotifyd_build_info", "version", FSN_VERSION, NULL, NULL);
	fputs("1\n", f);
}

int metrics_render(const struct engine *e, char **ret_text, size_t *ret_len) {
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	bool bad;
	FILE *f;
	int r;

	if (!e || !ret_text)
		return -EINVAL;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	write_rules(f, &e->st);
	r = write_perm(f, e);
	write_outputs(f, &e->st);
	write_process(f, e);
	bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad || r < 0)
		return -ENOMEM;
	*ret_text = steal_ptr(&text);
	if (ret_len)
		*ret_len = len;
	return 0;
}
