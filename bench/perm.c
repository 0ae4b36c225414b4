/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perm.c — `fsn-bench perm`: what answering permission events adds to the
 * latency of open().
 *
 * The bench process enters a private mount namespace and mounts two tmpfs
 * instances: G (guarded: one 4 KiB file) and O (never guarded: fsnotifyd's
 * config, output, log and notify socket). Scenarios:
 *   none      no watcher;
 *   floor     a minimal allow-all responder: a separate process with a
 *             FAN_CLASS_CONTENT group, a FAN_OPEN_PERM filesystem mark on G
 *             and a blocking read() loop that answers FAN_ALLOW and closes
 *             each event's fd, nothing else;
 *   fsnotifyd the daemon (--fsnotifyd PATH) running a generated config with
 *             one permission rule on G, default allow. When the daemon
 *             refuses that config (`--check-config`), the scenario is
 *             reported "skipped" with the daemon's own error.
 *
 * Every round visits every scenario, starting at a rotating position. A
 * cell starts the scenario's responder (fsnotifyd: ready on READY=1), opens
 * the file ops/10 times to warm up, then N times timed: one sample is
 * CLOCK_MONOTONIC read just before and just after the open(O_RDONLY) call;
 * the close() that follows is not timed. The responder is stopped after the
 * cell, so rounds are independent.
 *
 * Figures: p50/p90/p99 over all samples of all rounds, the spread of the
 * per-round p50 and p99, and ratios between scenarios as the geometric mean
 * of per-round ratios of per-round percentiles with a 95 % t-interval over
 * rounds. fsnotifyd's stats record at stop says how many opens it answered:
 * fewer than the bench made means the rule did not guard the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "json.h"
#include "plot.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#define MAX_ROUNDS 1000
#define TARGET_VS_FLOOR 1.5 /* fsnotifyd's p50 and p99 against the floor's */
#define FILE_SIZE 4096

enum scenario { SC_NONE = 0, SC_FLOOR, SC_FSNOTIFYD, _SC_MAX };

static const char *const scenario_names[_SC_MAX] = {
	[SC_NONE] = "none",
	[SC_FLOOR] = "floor",
	[SC_FSNOTIFYD] = "fsnotifyd",
};

static const char *const scenario_descriptions[_SC_MAX] = {
	[SC_NONE] = "no watcher (baseline)",
	[SC_FLOOR] = "minimal responder: FAN_CLASS_CONTENT group, FAN_OPEN_PERM filesystem mark, "
		     "blocking read(), FAN_ALLOW, close",
	[SC_FSNOTIFYD] = "fsnotifyd, one permission rule (open_perm, filesystem mark, default "
			 "allow), JSON output on another tmpfs",
};

enum quantile { Q_P50 = 0, Q_P90, Q_P99, _Q_MAX };

static const double quantiles[_Q_MAX] = { 0.50, 0.90, 0.99 };
static const char *const quantile_names[_Q_MAX] = { "p50", "p90", "p99" };

struct perm_opts {
	unsigned rounds;
	uint64_t ops;
	uint64_t warmup;
	bool quick;
	bool pin;
	bool path_policy;     /* the rule has a decision on paths: each event's path is resolved */
	unsigned subscribers; /* live Watch clients on fsnotifyd's control socket meanwhile */
	int cpu;              /* pinned to this CPU, -1: not pinned */
	const char *json_path;
	const char *plot_path;
	const char *fsnotifyd;
};

struct perm_env {
	char base[64];
	char guard[96];
	char out[96];
	char file[128];
	char cfg[128];
	char events[128];
	char log[128];
	char sock[128]; /* fsnotifyd's control socket */
};

struct daemon_stats {
	int64_t allowed; /* -1: no stats record */
	double p50_us, p99_us;
};

struct result {
	bool ran;
	char note[512];
	uint64_t *ns;               /* rounds x ops samples, round after round */
	double *round_us;           /* rounds x _Q_MAX, per-round percentiles */
	double pooled_us[_Q_MAX];   /* over all samples */
	struct daemon_stats *stats; /* fsnotifyd: per round */
};

struct ratio {
	double gmean, lo, hi;
};

/* ------------------------------------------------------------------------ */
/* Namespace and tmpfs                                                       */
/* ------------------------------------------------------------------------ */

static int env_setup(struct perm_env *env) {
	int r;

	r = bench_env_enter(env->base, sizeof(env->base), "/tmp/fsn-bench-p.XXXXXX");
	if (r < 0)
		return r;
	r = bench_mount_tmpfs(env->base, "g", "1m", env->guard, sizeof(env->guard));
	if (r == 0)
		r = bench_mount_tmpfs(env->base, "o", "64m", env->out, sizeof(env->out));
	if (r < 0)
		return r;
	snprintf(env->file, sizeof(env->file), "%s/file", env->guard);
	snprintf(env->cfg, sizeof(env->cfg), "%s/fsnotifyd.conf", env->out);
	snprintf(env->events, sizeof(env->events), "%s/events.jsonl", env->out);
	snprintf(env->log, sizeof(env->log), "%s/fsnotifyd.log", env->out);
	snprintf(env->sock, sizeof(env->sock), "%s/control", env->out);
	return bench_make_file(env->file, FILE_SIZE);
}

/* ------------------------------------------------------------------------ */
/* The floor: a minimal allow-all responder                                 */
/* ------------------------------------------------------------------------ */

static int floor_main(const char *guard, int status_fd) {
	static union {
		struct fanotify_event_metadata md;
		char bytes[16384];
	} buf;
	int32_t status = 0;
	int fd;

	fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fd < 0 || fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_PERM, AT_FDCWD,
				    guard) < 0)
		status = negative_errno();
	if (write(status_fd, &status, sizeof(status)) != (ssize_t)sizeof(status) || status < 0)
		return 1;
	close(status_fd);
	for (;;) {
		ssize_t n = read(fd, buf.bytes, sizeof(buf.bytes));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		for (struct fanotify_event_metadata *md = &buf.md; FAN_EVENT_OK(md, n);
		     md = FAN_EVENT_NEXT(md, n)) {
			struct fanotify_response resp = { .fd = md->fd, .response = FAN_ALLOW };

			if (md->fd < 0)
				continue;
			if (write(fd, &resp, sizeof(resp)) != (ssize_t)sizeof(resp))
				return 1;
			close(md->fd);
		}
	}
}

static int floor_start(const struct perm_env *env, pid_t *ret_pid) {
	int32_t status = 0;
	int p[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int r = negative_errno();

		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		_exit(floor_main(env->guard, p[1]));
	}
	close(p[1]);
	n = read(p[0], &status, sizeof(status));
	close(p[0]);
	if (n != (ssize_t)sizeof(status) || status < 0) {
		bench_kill_wait(pid);
		return n != (ssize_t)sizeof(status) ? -ESRCH : status;
	}
	*ret_pid = pid;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* fsnotifyd                                                                 */
/* ------------------------------------------------------------------------ */

/* path_policy: a decision on a path (that never matches) makes the daemon
 * resolve every event's path, as any rule with paths in its decisions or
 * with a subtree of a filesystem does. */
static int write_config(const struct perm_env *env, bool path_policy) {
	FILE *f = fopen(env->cfg, "we");

	if (!f)
		return negative_errno();
	fprintf(f,
		"# generated by fsn-bench perm\n"
		"log_level = \"warning\";\n"
		"outputs = [\"perm\"];\n"
		"output = { perm = { type = \"json\"; file = \"%s\"; }; };\n"
		"control = { socket = \"%s\"; };\n"
		"rules = ({\n"
		"  name = \"guard\";\n"
		"  paths = [\"%s\"];\n"
		"  mark = \"filesystem\";\n"
		"  recursive = true;\n"
		"  events = [\"open_perm\"];\n"
		"  default = \"allow\";\n"
		"%s%s%s"
		"  outputs = [\"perm\"];\n"
		"});\n",
		env->events, env->sock, env->guard,
		path_policy ? "  decisions = ({ paths = [\"" : "", path_policy ? env->guard : "",
		path_policy ? "/never\"]; verdict = \"deny\"; });\n" : "");
	return fclose(f) == 0 ? 0 : negative_errno();
}

/* The first line of a file (the daemon's first complaint), or "". */
static void first_line(const char *path, char *buf, size_t len) {
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && !fgets(buf, (int)len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* `fsnotifyd --check-config` on the generated config: 0 when accepted, else
 * -errno with "skipped: " and the daemon's first line of complaint in note. */
static int fsnotifyd_check(const struct perm_env *env, const struct perm_opts *o, char *note,
			   size_t len) {
	char *argv[] = { (char *)o->fsnotifyd, (char *)"--check-config", (char *)env->cfg, NULL };
	char line[384];
	pid_t pid;
	int r;

	r = write_config(env, o->path_policy);
	if (r == 0)
		r = bench_spawn(argv, env->log, NULL, &pid);
	if (r < 0) {
		snprintf(note, len, "skipped: %s", strerror(-r));
		return r;
	}
	if (bench_wait_pid(pid) == 0)
		return 0;
	first_line(env->log, line, sizeof(line));
	snprintf(note, len, "skipped: %s", line[0] ? line : "fsnotifyd --check-config failed");
	return -EINVAL;
}

/* The last stats record of rule "guard" in the daemon's output. */
static void read_daemon_stats(const char *path, struct daemon_stats *ret) {
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	*ret = (struct daemon_stats){ .allowed = -1, .p50_us = NAN, .p99_us = NAN };
	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct json *j = NULL;
		const char *kind, *rule;
		size_t off;

		if (json_parse(line, (size_t)len, &j, &off) < 0)
			continue;
		kind = json_get_string(j, "kind");
		rule = json_get_string(j, "rule");
		if (kind && rule && strcmp(kind, "stats") == 0 && strcmp(rule, "guard") == 0)
			*ret = (struct daemon_stats){
				.allowed = (int64_t)json_get_number(j, "allowed", -1),
				.p50_us = json_get_number(j, "latency_p50_us", NAN),
				.p99_us = json_get_number(j, "latency_p99_us", NAN),
			};
		json_free(j);
	}
	free(line);
	fclose(f);
}

/* ------------------------------------------------------------------------ */
/* Cells and rounds                                                          */
/* ------------------------------------------------------------------------ */

/* Open and close path n times; with ns, time each open() call. */
static int open_loop(const char *path, uint64_t n, uint64_t *ns) {
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC), t1;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		t1 = bench_now_ns(CLOCK_MONOTONIC);
		if (fd < 0)
			return negative_errno();
		close(fd);
		if (ns)
			ns[i] = t1 - t0;
	}
	return 0;
}

/* One cell: start the scenario's responder, warm up, time o->ops opens,
 * stop the responder. */
static int run_cell(const struct perm_env *env, const struct perm_opts *o, enum scenario s,
		    uint64_t *ns, struct daemon_stats *stats) {
	pid_t pid = 0, subs = 0;
	int r = 0;

	if (s == SC_FLOOR) {
		r = floor_start(env, &pid);
	} else if (s == SC_FSNOTIFYD) {
		unlink(env->events);
		r = bench_fsnotifyd_start(o->fsnotifyd, env->cfg, env->out, &pid);
		/* (they connect now; the warm-up gives the daemon time to take them) */
		if (r == 0 && o->subscribers)
			r = bench_subscribers_start(env->sock, o->subscribers, &subs);
	}
	if (r < 0) {
		bench_kill_wait(pid);
		return r;
	}
	r = open_loop(env->file, o->warmup, NULL);
	if (r == 0)
		r = open_loop(env->file, o->ops, ns);
	bench_kill_wait(subs);
	bench_kill_wait(pid);
	if (s == SC_FSNOTIFYD)
		read_daemon_stats(env->events, stats);
	return r;
}

static int run_rounds(const struct perm_env *env, const struct perm_opts *o, struct result *res) {
	uint64_t t_start = bench_now_ns(CLOCK_MONOTONIC);
	char line[384];

	for (unsigned round = 0; round < o->rounds; round++) {
		for (unsigned i = 0; i < _SC_MAX; i++) {
			enum scenario s = (i + round) % _SC_MAX;
			struct result *x = &res[s];
			int r;

			if (!x->ran)
				continue;
			r = run_cell(env, o, s, x->ns + (size_t)round * o->ops,
				     x->stats ? &x->stats[round] : NULL);
			if (r == 0)
				continue;
			if (s != SC_FSNOTIFYD) {
				fprintf(stderr, "fsn-bench perm: scenario %s, round %u: %s\n",
					scenario_names[s], round + 1, strerror(-r));
				return r;
			}
			/* the daemon did not start (bench_fsnotifyd_start() showed
			 * its log) or the opens failed: report its first complaint */
			x->ran = false;
			first_line(env->log, line, sizeof(line));
			if (r == -ESRCH && round == 0)
				snprintf(x->note, sizeof(x->note), "skipped: %s",
					 line[0] ? line : "fsnotifyd did not start");
			else
				snprintf(x->note, sizeof(x->note), "failed in round %u: %s",
					 round + 1, r == -ESRCH && line[0] ? line : strerror(-r));
			fprintf(stderr, "fsn-bench perm: fsnotifyd: %s\n", x->note);
		}
		bench_progress("perm", round + 1, o->rounds, t_start);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Summary, table, JSON                                                      */
/* ------------------------------------------------------------------------ */

static void summarize(const struct perm_opts *o, struct result *x) {
	size_t n = (size_t)o->rounds * o->ops;
	double ns[_Q_MAX];

	for (unsigned r = 0; r < o->rounds; r++) {
		bench_quantiles(x->ns + (size_t)r * o->ops, o->ops, quantiles, _Q_MAX, ns);
		for (unsigned q = 0; q < _Q_MAX; q++)
			x->round_us[r * _Q_MAX + q] = ns[q] / 1e3;
	}
	/* each round is sorted now; the pooled quantiles sort the whole */
	bench_quantiles(x->ns, n, quantiles, _Q_MAX, ns);
	for (unsigned q = 0; q < _Q_MAX; q++)
		x->pooled_us[q] = ns[q] / 1e3;
}

/* a's per-round q against b's: geometric mean and 95 % t-interval. */
static void ratio_of(const struct perm_opts *o, const struct result *a, const struct result *b,
		     enum quantile q, struct ratio *ret) {
	double logs[MAX_ROUNDS];

	*ret = (struct ratio){ NAN, NAN, NAN };
	if (!a->ran || !b->ran)
		return;
	for (unsigned r = 0; r < o->rounds; r++)
		logs[r] = log(a->round_us[r * _Q_MAX + q] / b->round_us[r * _Q_MAX + q]);
	bench_log_ci(logs, o->rounds, &ret->gmean, &ret->lo, &ret->hi);
}

static void round_range(const struct perm_opts *o, const struct result *x, enum quantile q,
			double *ret_min, double *ret_max) {
	*ret_min = INFINITY;
	*ret_max = -INFINITY;
	for (unsigned r = 0; r < o->rounds; r++) {
		*ret_min = fmin(*ret_min, x->round_us[r * _Q_MAX + q]);
		*ret_max = fmax(*ret_max, x->round_us[r * _Q_MAX + q]);
	}
}

/* Opens fsnotifyd answered over all rounds (its stats records), -1 when
 * a round had no stats record. */
static int64_t daemon_answered(const struct perm_opts *o, const struct result *x) {
	int64_t sum = 0;

	for (unsigned r = 0; x->stats && r < o->rounds; r++) {
		if (x->stats[r].allowed < 0)
			return -1;
		sum += x->stats[r].allowed;
	}
	return sum;
}

static const char *target_verdict(const struct ratio *rt) {
	if (!isfinite(rt->gmean))
		return "not measured";
	if (rt->gmean > TARGET_VS_FLOOR)
		return rt->lo > TARGET_VS_FLOOR ? "missed" : "missed, the 95% CI includes 1.5";
	return rt->hi <= TARGET_VS_FLOOR ? "met" : "met, the 95% CI includes 1.5";
}

/* The two quantiles the target and the ratios are stated for. */
static const enum quantile key_quantiles[] = { Q_P50, Q_P99 };

static const struct {
	enum scenario a, b;
} ratio_pairs[] = {
	{ SC_FLOOR, SC_NONE },
	{ SC_FSNOTIFYD, SC_NONE },
	{ SC_FSNOTIFYD, SC_FLOOR },
};

static void print_table(const struct perm_opts *o, const struct result *res) {
	const struct result *fd = &res[SC_FSNOTIFYD];
	uint64_t opens = (uint64_t)o->rounds * (o->ops + o->warmup);
	int64_t answered = daemon_answered(o, fd);
	char cpu[32], subs[64] = "";

	if (o->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "all on CPU %d", o->cpu);
	else
		snprintf(cpu, sizeof(cpu), "not pinned");
	if (o->subscribers)
		snprintf(subs, sizeof(subs), "; %u subscribers on fsnotifyd's control socket",
			 o->subscribers);
	printf("fsn-bench perm: open(O_RDONLY) of a %d-byte file on a guarded tmpfs; one sample = "
	       "the open() call (close not timed)\n%u rounds x %" PRIu64
	       " opens per scenario, warm-up %" PRIu64 ", bench and responders %s%s%s\n\n",
	       FILE_SIZE, o->rounds, o->ops, o->warmup, cpu,
	       o->path_policy ? "; fsnotifyd's rule decides on paths (--path-policy)" : "", subs);
	printf("%-10s %9s %9s %9s %9s  %-18s  %s\n", "scenario", "samples", "p50_us", "p90_us",
	       "p99_us", "p50 range, rounds", "p99 range, rounds");
	for (unsigned s = 0; s < _SC_MAX; s++) {
		const struct result *x = &res[s];
		double a, b, c, d;

		if (!x->ran) {
			printf("%-10s %s\n", scenario_names[s], x->note);
			continue;
		}
		round_range(o, x, Q_P50, &a, &b);
		round_range(o, x, Q_P99, &c, &d);
		printf("%-10s %9" PRIu64 " %9.2f %9.2f %9.2f  [%7.2f, %7.2f]  [%7.2f, %7.2f]\n",
		       scenario_names[s], (uint64_t)o->rounds * o->ops, x->pooled_us[Q_P50],
		       x->pooled_us[Q_P90], x->pooled_us[Q_P99], a, b, c, d);
	}
	printf("\nratios: geometric mean over rounds of the per-round ratio, 95%% t-interval\n");
	printf("%-19s %8s  %-18s %8s  %s\n", "", "p50", "95% CI", "p99", "95% CI");
	for (size_t i = 0; i < ELEMENTSOF(ratio_pairs); i++) {
		const struct result *a = &res[ratio_pairs[i].a], *b = &res[ratio_pairs[i].b];
		struct ratio r50, r99;
		char label[32];

		if (!a->ran || !b->ran)
			continue;
		ratio_of(o, a, b, Q_P50, &r50);
		ratio_of(o, a, b, Q_P99, &r99);
		snprintf(label, sizeof(label), "%s / %s", scenario_names[ratio_pairs[i].a],
			 scenario_names[ratio_pairs[i].b]);
		printf("%-19s %8.2f  [%7.2f, %7.2f] %8.2f  [%7.2f, %7.2f]\n", label, r50.gmean,
		       r50.lo, r50.hi, r99.gmean, r99.lo, r99.hi);
	}
	if (!fd->ran)
		return;
	if (answered < 0)
		printf("\nfsnotifyd wrote no stats record for rule 'guard' in some round: how many "
		       "opens it answered is unknown\n");
	else
		printf("\nfsnotifyd answered %" PRId64 " of the bench's %" PRIu64
		       " opens (its stats records)%s\n",
		       answered, opens,
		       (uint64_t)answered < opens ? ": FEWER, the rule did not guard every open"
						  : "");
	if (!res[SC_FLOOR].ran)
		return;
	printf("targets for fsnotifyd (printed, never an exit status):\n");
	for (size_t i = 0; i < ELEMENTSOF(key_quantiles); i++) {
		enum quantile q = key_quantiles[i];
		struct ratio rt;

		ratio_of(o, fd, &res[SC_FLOOR], q, &rt);
		printf("  %s <= %.1fx floor: %.2fx [%.2f, %.2f]  [%s]\n", quantile_names[q],
		       TARGET_VS_FLOOR, rt.gmean, rt.lo, rt.hi, target_verdict(&rt));
	}
}

/* "key": {"ratio": .., "ci_low": .., "ci_high": .. -- the caller closes it. */
static void json_ratio(FILE *f, const char *key, const struct ratio *rt) {
	fprintf(f, "\"%s\": {\"ratio\": ", key);
	json_write_number(f, rt->gmean);
	fputs(", \"ci_low\": ", f);
	json_write_number(f, rt->lo);
	fputs(", \"ci_high\": ", f);
	json_write_number(f, rt->hi);
}

static void json_quantiles(FILE *f, const double *us) {
	for (unsigned q = 0; q < _Q_MAX; q++) {
		fprintf(f, ", \"%s_us\": ", quantile_names[q]);
		json_write_number(f, us[q]);
	}
}

static void json_result(FILE *f, const struct perm_opts *o, const struct result *res,
			enum scenario s) {
	const struct result *x = &res[s], *base = &res[SC_NONE];
	double ops[MAX_ROUNDS], logs[MAX_ROUNDS], gmean = NAN, lo, hi;

	fprintf(f, "\n    {\"scenario\": \"%s\", \"workload\": \"open\", \"description\": ",
		scenario_names[s]);
	json_write_string(f, scenario_descriptions[s]);
	fprintf(f, ", \"ran\": %s, \"note\": ", x->ran ? "true" : "false");
	json_write_string(f, x->note);
	fputs(",\n     \"rounds\": [", f);
	for (unsigned r = 0; x->ran && r < o->rounds; r++) {
		const double *us = &x->round_us[r * _Q_MAX];

		/* what compare reads: opens/s at the median latency, and the
		 * same round's 'none' p50 over this p50 (higher is cheaper) */
		ops[r] = 1e6 / us[Q_P50];
		logs[r] = log(base->round_us[r * _Q_MAX + Q_P50] / us[Q_P50]);
		fprintf(f, "%s\n       {\"samples\": %" PRIu64, r ? "," : "", o->ops);
		json_quantiles(f, us);
		fputs(", \"ops_per_s\": ", f);
		json_write_number(f, ops[r]);
		fputs(", \"ratio\": ", f);
		json_write_number(f, exp(logs[r]));
		if (x->stats) {
			fputs(", \"fsnotifyd_allowed\": ", f);
			if (x->stats[r].allowed >= 0)
				fprintf(f, "%" PRId64, x->stats[r].allowed);
			else
				fputs("null", f);
			fputs(", \"fsnotifyd_p50_us\": ", f);
			json_write_number(f, x->stats[r].p50_us);
			fputs(", \"fsnotifyd_p99_us\": ", f);
			json_write_number(f, x->stats[r].p99_us);
		}
		fputc('}', f);
	}
	if (x->ran)
		bench_log_ci(logs, o->rounds, &gmean, &lo, &hi);
	fprintf(f, "],\n     \"summary\": {\"samples\": %" PRIu64,
		x->ran ? (uint64_t)o->rounds * o->ops : 0);
	json_quantiles(f, x->pooled_us);
	fputs(", \"median_ops_per_s\": ", f);
	json_write_number(f, x->ran ? bench_median(ops, o->rounds) : NAN);
	fputs(", \"ratio\": ", f);
	json_write_number(f, gmean);
	fputs("}}", f);
}

static int write_json(const char *path, const struct perm_opts *o, const struct result *res) {
	const struct result *fd = &res[SC_FSNOTIFYD], *fl = &res[SC_FLOOR];
	FILE *f = fopen(path, "we");

	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench perm");
	fprintf(f,
		"},\n  \"parameters\": {\"rounds\": %u, \"ops\": %" PRIu64 ", \"warmup\": %" PRIu64
		", \"quick\": %s, \"file_size\": %d, \"baseline\": \"none\", \"confidence\": 0.95, "
		"\"sample\": \"open(O_RDONLY) call, CLOCK_MONOTONIC; close not timed\", "
		"\"metric\": \"opens per second at the round's median open() latency (1e6 / "
		"p50_us)\", \"cpu\": ",
		o->rounds, o->ops, o->warmup, o->quick ? "true" : "false", FILE_SIZE);
	if (o->cpu >= 0)
		fprintf(f, "%d", o->cpu);
	else
		fputs("null", f);
	fprintf(f, ", \"path_policy\": %s, \"subscribers\": %u, \"fsnotifyd\": ",
		o->path_policy ? "true" : "false", o->subscribers);
	json_write_string(f, o->fsnotifyd);
	fputs("},\n  \"results\": [", f);
	for (unsigned s = 0; s < _SC_MAX; s++) {
		json_result(f, o, res, s);
		if (s + 1 < _SC_MAX)
			fputc(',', f);
	}
	fputs("\n  ],\n  \"ratios\": [", f);
	for (size_t i = 0, k = 0; i < ELEMENTSOF(ratio_pairs); i++) {
		const struct result *a = &res[ratio_pairs[i].a], *b = &res[ratio_pairs[i].b];
		struct ratio rt;

		if (!a->ran || !b->ran)
			continue;
		fprintf(f, "%s\n    {\"a\": \"%s\", \"b\": \"%s\", ", k++ ? "," : "",
			scenario_names[ratio_pairs[i].a], scenario_names[ratio_pairs[i].b]);
		ratio_of(o, a, b, Q_P50, &rt);
		json_ratio(f, "p50", &rt);
		fputs("}, ", f);
		ratio_of(o, a, b, Q_P99, &rt);
		json_ratio(f, "p99", &rt);
		fputs("}}", f);
	}
	fputs("\n  ]", f);
	if (fd->ran && fl->ran) {
		fputs(",\n  \"targets\": {", f);
		for (size_t i = 0; i < ELEMENTSOF(key_quantiles); i++) {
			enum quantile q = key_quantiles[i];
			struct ratio rt;
			char key[32];

			ratio_of(o, fd, fl, q, &rt);
			snprintf(key, sizeof(key), "%s_vs_floor", quantile_names[q]);
			fputs(i ? ", " : "", f);
			json_ratio(f, key, &rt);
			fprintf(f, ", \"limit\": %.1f, \"met\": %s, \"verdict\": ", TARGET_VS_FLOOR,
				rt.gmean <= TARGET_VS_FLOOR ? "true" : "false");
			json_write_string(f, target_verdict(&rt));
			fputc('}', f);
		}
		fputc('}', f);
	}
	fputs("\n}\n", f);
	return bench_fclose(f);
}

struct run_results {
	const struct perm_opts *o;
	const struct result *res;
};

static int write_json_to(const char *path, const void *userdata) {
	const struct run_results *x = userdata;

	return write_json(path, x->o, x->res);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct perm_opts *o) {
	enum { OPT_PLOT = BENCH_OPT_OWN, OPT_NO_PIN, OPT_PATHS, OPT_SUBS };
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "no-pin", no_argument, NULL, OPT_NO_PIN },
		{ "path-policy", no_argument, NULL, OPT_PATHS },
		{ "subscribers", required_argument, NULL, OPT_SUBS },
		{ 0 },
	};
	struct bench_common com = { .min_rounds = 2,
				    .max_rounds = MAX_ROUNDS,
				    .max_ops = 10000000 };
	int c, r;

	*o = (struct perm_opts){ .pin = true, .cpu = -1 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_PLOT:
			o->plot_path = optarg;
			r = bench_plot_check_path(optarg);
			break;
		case OPT_NO_PIN:
			o->pin = false;
			r = 0;
			break;
		case OPT_PATHS:
			o->path_policy = true;
			r = 0;
			break;
		case OPT_SUBS: {
			uint64_t v;

			r = bench_parse_u64("--subscribers", optarg, 0, 1000, &v);
			o->subscribers = (unsigned)v;
			break;
		}
		default: r = bench_common_opt(c, optarg, &com); break;
		}
		if (r != 0)
			return r;
	}
	r = bench_common_finish(argc, argv, &com);
	if (r < 0)
		return r;
	o->quick = com.quick;
	o->json_path = com.json_path;
	o->fsnotifyd = com.fsnotifyd;
	o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 5 : 20;
	o->ops = com.ops ? com.ops : o->quick ? 2000 : 50000;
	o->warmup = o->ops / 10 ? o->ops / 10 : 1;
	return 0;
}

static void results_free(struct result *res) {
	for (unsigned s = 0; s < _SC_MAX; s++) {
		free(res[s].ns);
		free(res[s].round_us);
		free(res[s].stats);
	}
}

static int results_alloc(const struct perm_opts *o, struct result *res) {
	for (unsigned s = 0; s < _SC_MAX; s++) {
		res[s] = (struct result){ .ran = true, .pooled_us = { NAN, NAN, NAN } };
		res[s].ns = calloc((size_t)o->rounds * o->ops, sizeof(uint64_t));
		res[s].round_us = calloc((size_t)o->rounds * _Q_MAX, sizeof(double));
		if (s == SC_FSNOTIFYD)
			res[s].stats = calloc(o->rounds, sizeof(struct daemon_stats));
		if (!res[s].ns || !res[s].round_us || (s == SC_FSNOTIFYD && !res[s].stats))
			return -ENOMEM;
	}
	return 0;
}

int bench_perm_main(int argc, char **argv) {
	struct perm_env env = { .base = "" };
	struct result res[_SC_MAX] = { 0 };
	struct perm_opts o;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("perm", "fanotify permission marks"))
		return 77;
	r = results_alloc(&o, res);
	if (r < 0)
		goto out;
	r = env_setup(&env);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
			strerror(-r));
		goto out;
	}
	if (fsnotifyd_check(&env, &o, res[SC_FSNOTIFYD].note, sizeof(res[SC_FSNOTIFYD].note)) < 0) {
		res[SC_FSNOTIFYD].ran = false;
		fprintf(stderr, "fsn-bench perm: fsnotifyd: %s\n", res[SC_FSNOTIFYD].note);
	}
	/* the responders (the floor, fsnotifyd and all its threads) inherit it */
	if (o.pin && (r = bench_pin_here(&o.cpu)) < 0)
		goto out;
	r = run_rounds(&env, &o, res);
	bench_env_teardown(env.base);
	env.base[0] = '\0';
	if (r < 0)
		goto out;
	for (unsigned s = 0; s < _SC_MAX; s++)
		if (res[s].ran)
			summarize(&o, &res[s]);
	print_table(&o, res);
	if (o.json_path) {
		r = write_json(o.json_path, &o, res);
		if (r < 0)
			fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
	}
	if (r == 0 && o.plot_path)
		r = bench_plot_run(o.plot_path, o.json_path, write_json_to,
				   &(struct run_results){ &o, res });
out:
	bench_env_teardown(env.base);
	results_free(res);
	return r < 0 ? r : 0;
}
