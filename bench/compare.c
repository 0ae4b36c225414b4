/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare.c — `fsn-bench compare A.json B.json [--plot FILE.png]`: two result
 * files of one kind (read by result.c) side by side, mmtests style. hooks
 * and perm: for every scenario/workload pair present (and run) in both, the
 * median ops/s and the ratio to "none" for A and B with B's change against
 * A. consumers: per consumer that ran in both, delivered, lost, overflows,
 * CPU per event, generator slowdown, drain and probe latency p50/p99. A
 * change is starred (*-4.10%*) when Welch's test over the per-round values
 * says the two runs differ at the 95 % level, and marked n/a when a file has
 * fewer than two per-round values of that figure (consumers keep latency
 * samples pooled, not per round). hooks and perm: then the cells that
 * moved so (what, change), largest first, and exit status 3 when any did
 * (a script's check before sending a patch). --plot draws both files'
 * ratios (hooks, perm; plot.c).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsn-bench.h"
#include "fsn-util.h"
#include "json.h"
#include "plot.h"
#include "result.h"
#include "stats.h"

static const struct json *find_result(const struct json *doc, const char *scenario,
				      const char *workload) {
	const struct json *res = json_get(doc, "results");

	for (size_t i = 0; i < res->n; i++) {
		const char *s = json_get_string(res->values[i], "scenario");
		const char *w = json_get_string(res->values[i], "workload");

		if (s && w && strcmp(s, scenario) == 0 && strcmp(w, workload) == 0)
			return res->values[i];
	}
	return NULL;
}

/* One round's value of a figure, NAN when it has none; i: the round's index. */
typedef double round_value_fn(const struct json *round, size_t i, const void *ctx);

/* The per-round values of a figure that a round has (their logs with logs,
 * which only positive values have); how many. */
static size_t per_round(const struct json *result, round_value_fn *get, const void *ctx, bool logs,
			double **ret) {
	const struct json *rounds = json_get(result, "rounds");
	double *v;
	size_t n = 0;

	*ret = NULL;
	if (!rounds || rounds->type != JSON_ARRAY || rounds->n == 0)
		return 0;
	v = calloc(rounds->n, sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < rounds->n; i++) {
		double x = get(rounds->values[i], i, ctx);

		if (isfinite(x) && (!logs || x > 0))
			v[n++] = logs ? log(x) : x;
	}
	*ret = v;
	return n;
}

/* hooks and perm: a round's member named ctx. */
static double round_member(const struct json *round, size_t i, const void *ctx) {
	return json_get_number(round, ctx, NAN);
}

static void fmt(char *buf, size_t len, double v, int decimals) {
	if (isfinite(v))
		snprintf(buf, len, "%.*f", decimals, v);
	else
		snprintf(buf, len, "-");
}

/* The cells whose figure moved beyond the rounds' spread (significant),
 * for the list after the table and the exit status. */
struct moved {
	char what[160];
	double change; /* % */
};

struct moved_list {
	struct moved *v;
	size_t n;
};

static void moved_add(struct moved_list *m, const char *what, double change) {
	struct moved *v = m ? realloc(m->v, (m->n + 1) * sizeof(*v)) : NULL;

	if (!v)
		return;
	m->v = v;
	snprintf(v[m->n].what, sizeof(v[m->n].what), "%s", what);
	v[m->n++].change = change;
}

static int by_size(const void *a, const void *b) {
	double x = fabs(((const struct moved *)a)->change),
	       y = fabs(((const struct moved *)b)->change);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The moved cells, largest change first; how many. */
static size_t moved_print(struct moved_list *m) {
	qsort(m->v, m->n, sizeof(*m->v), by_size);
	if (m->n == 0)
		printf("\nnothing moved beyond the rounds' spread\n");
	else
		printf("\nmoved beyond the rounds' spread (B against A), largest first:\n");
	for (size_t i = 0; i < m->n; i++)
		printf("  %+8.2f%%  %s\n", m->v[i].change, m->v[i].what);
	free(m->v);
	return m->n;
}

/* One figure of A and B with B's change; ra/rb are the per-round values
 * (or their logs) Welch's test compares: fewer than two in either is "n/a".
 * Returns whether it moved (significant). */
static bool print_row(const char *label, double va, double vb, const double *ra, size_t na,
		      const double *rb, size_t nb, int decimals) {
	bool tested = na >= 2 && nb >= 2;
	bool sig = tested && bench_welch_significant(ra, na, rb, nb);
	double change = va == vb ? 0 : (vb / va - 1) * 100;
	char sa[32], sb[32], sc[32];

	fmt(sa, sizeof(sa), va, decimals);
	fmt(sb, sizeof(sb), vb, decimals);
	if (isfinite(change))
		snprintf(sc, sizeof(sc), "%.2f%%", fabs(change) < 0.005 ? 0.0 : change);
	else
		snprintf(sc, sizeof(sc), "-");
	printf("  %-13s %13s (%7.2f%%) %13s %s%8s%s%s\n", label, sa, 0.0, sb, sig ? "*" : " ", sc,
	       sig ? "*" : " ", tested ? "" : " n/a");
	return sig && isfinite(change);
}

static void print_metric(const char *label, const struct json *a, const struct json *b,
			 const char *summary_key, const char *round_key, int decimals,
			 const char *cell, struct moved_list *m) {
	_cleanup_free_ double *la = NULL;
	_cleanup_free_ double *lb = NULL;
	size_t na = per_round(a, round_member, round_key, true, &la);
	size_t nb = per_round(b, round_member, round_key, true, &lb);
	double va = json_get_number(json_get(a, "summary"), summary_key, NAN);
	double vb = json_get_number(json_get(b, "summary"), summary_key, NAN);
	char what[160];

	if (print_row(label, va, vb, la, na, lb, nb, decimals)) {
		snprintf(what, sizeof(what), "%s: %s", cell, label);
		moved_add(m, what, (vb / va - 1) * 100);
	}
}

/* hooks and perm: median ops/s and the ratio to "none" per scenario and
 * workload; the cells that moved, largest first. Returns how many moved. */
static size_t compare_results(const char *const *path, struct json *const *doc) {
	struct moved_list m = { NULL, 0 };
	const struct json *a = doc[0], *b = doc[1];
	const struct json *res = json_get(a, "results");
	const char *metric;
	char cell[128];

	printf("A: %s (%s)\nB: %s (%s)\n", path[0], bench_result_release(a), path[1],
	       bench_result_release(b));
	printf("change is B against A; *x%%* = significant at 95%% (Welch's t over per-round "
	       "logs)\n");
	metric = json_get_string(json_get(a, "parameters"), "metric");
	printf("ratio = %s relative to the same round's 'none' (higher is cheaper)\n\n",
	       metric ? metric : "ops per CPU-second");
	printf("  %-13s %13s %10s %13s %9s\n", "", "A", "", "B", "");
	for (size_t i = 0; i < res->n; i++) {
		const char *s = json_get_string(res->values[i], "scenario");
		const char *w = json_get_string(res->values[i], "workload");
		const struct json *rb;

		if (!s || !w)
			continue;
		rb = find_result(b, s, w);
		if (!rb) {
			printf("%s / %s: only in A\n", s, w);
			continue;
		}
		if (!bench_result_ran(res->values[i]) || !bench_result_ran(rb)) {
			printf("%s / %s: not run in %s\n", s, w,
			       bench_result_ran(res->values[i]) ? "B" : "A");
			continue;
		}
		printf("%s / %s\n", s, w);
		snprintf(cell, sizeof(cell), "%s / %s", s, w);
		print_metric("median ops/s", res->values[i], rb, "median_ops_per_s", "ops_per_s", 0,
			     cell, &m);
		if (strcmp(s, "none") != 0)
			print_metric("ratio", res->values[i], rb, "ratio", "ratio", 4, cell, &m);
	}
	return moved_print(&m);
}

/* ---- consumers ---- */

enum cfig { CF_DELIVERED, CF_LOST, CF_OVERFLOWS, CF_CPU, CF_SLOWDOWN, CF_DRAIN, CF_P50, CF_P99 };

static const struct {
	const char *label;
	const char *key; /* in "summary"; the latencies also in a round, if it has them */
	bool log;        /* tested on logs (per-event costs, ratios, latencies), else values */
	int decimals;
} cfigs[] = {
	[CF_DELIVERED] = { "delivered", "delivered", false, 0 },
	[CF_LOST] = { "lost", "lost", false, 0 },
	[CF_OVERFLOWS] = { "overflows", "overflows", false, 0 },
	[CF_CPU] = { "cpu_us/ev", "cpu_us_per_event", true, 3 },
	[CF_SLOWDOWN] = { "gen_slow", "gen_slowdown", true, 2 },
	[CF_DRAIN] = { "drain_ms", "drain_ms", false, 1 },
	[CF_P50] = { "p50_ms", "latency_p50_ms", true, 3 },
	[CF_P99] = { "p99_ms", "latency_p99_ms", true, 3 },
};

static const struct json *find_consumer(const struct json *doc, const char *name) {
	const struct json *cs = json_get(doc, "consumers");

	for (size_t i = 0; i < cs->n; i++) {
		const char *c = json_get_string(cs->values[i], "consumer");

		if (c && strcmp(c, name) == 0)
			return cs->values[i];
	}
	return NULL;
}

struct consumer_ctx {
	enum cfig f;
	const struct json *none_rounds; /* "none"'s rounds, paired by position */
	size_t nrounds;                 /* the consumer's */
};

/* One round's value of a figure as the consumers summary computes it over
 * rounds; NAN when the round does not carry it. The slowdown needs the same
 * round of consumer "none", which pairs by position when both have as many
 * rounds. */
static double consumer_round(const struct json *round, size_t i, const void *ctx) {
	const struct consumer_ctx *c = ctx;
	const struct json *types = json_get(round, "types"), *base = c->none_rounds;
	double del = 0, lost = 0;

	if (!types || types->type != JSON_OBJECT || types->n == 0)
		del = lost = NAN;
	for (size_t t = 0; isfinite(del) && t < types->n; t++) {
		const struct json *ty = types->values[t], *countable = json_get(ty, "countable");
		double g = json_get_number(ty, "generated", NAN);
		double d = json_get_number(ty, "delivered", NAN);

		if (countable && countable->type == JSON_BOOL && !countable->boolean)
			continue; /* a type this consumer cannot see: neither delivered nor lost */
		if (!isfinite(g) || !isfinite(d)) {
			del = lost = NAN;
			break;
		}
		del += d;
		lost += g > d ? g - d : 0;
	}
	switch (c->f) {
	case CF_DELIVERED: return del;
	case CF_LOST: return lost;
	case CF_OVERFLOWS: return json_get_number(round, "overflows", NAN);
	case CF_CPU: return del > 0 ? json_get_number(round, "cpu_ns", NAN) / 1e3 / del : NAN;
	case CF_SLOWDOWN:
		if (!base || base->type != JSON_ARRAY || base->n != c->nrounds)
			return NAN;
		return json_get_number(round, "gen_wall_ns", NAN) /
		       json_get_number(base->values[i], "gen_wall_ns", NAN);
	case CF_DRAIN: return json_get_number(round, "drain_ns", NAN) / 1e6;
	default: return json_get_number(round, cfigs[c->f].key, NAN);
	}
}

/* The per-round values of a figure of consumer c (logs for a log figure). */
static size_t consumer_rounds(enum cfig f, const struct json *c, const struct json *none,
			      double **ret) {
	const struct json *rounds = json_get(c, "rounds");
	struct consumer_ctx ctx = {
		.f = f,
		.none_rounds = json_get(none, "rounds"),
		.nrounds = rounds && rounds->type == JSON_ARRAY ? rounds->n : 0,
	};

	return per_round(c, consumer_round, &ctx, cfigs[f].log, ret);
}

static void consumers_params(const char *label, const char *path, const struct json *doc) {
	const struct json *par = json_get(doc, "parameters");

	printf("%s: %s (%s): %.0f generator(s) x %.0f ops, %.0f round(s)\n", label, path,
	       bench_result_release(doc), json_get_number(par, "generators", NAN),
	       json_get_number(par, "ops", NAN), json_get_number(par, "rounds", NAN));
}

static bool same_param(const struct json *a, const struct json *b, const char *key) {
	return json_get_number(json_get(a, "parameters"), key, NAN) ==
	       json_get_number(json_get(b, "parameters"), key, NAN);
}

/* consumers: per consumer, counts, CPU per event, slowdown, drain and
 * latency. */
static void compare_consumers(const char *const *path, struct json *const *doc) {
	const struct json *a = doc[0], *b = doc[1];
	const struct json *cs = json_get(a, "consumers");
	const struct json *none_a = find_consumer(a, "none"), *none_b = find_consumer(b, "none");

	consumers_params("A", path[0], a);
	consumers_params("B", path[1], b);
	if (!same_param(a, b, "generators") || !same_param(a, b, "ops") ||
	    !same_param(a, b, "rounds"))
		printf("note: A and B differ in generators, ops or rounds: the counts (sums over "
		       "rounds) are not\ncomparable, the per-event figures and ratios are\n");
	printf("change is B against A; *x%%* = significant at 95%% (Welch's t over per-round "
	       "values, logs for\ncpu_us/ev, gen_slow and latency); n/a = not tested: A or B "
	       "has fewer than 2 per-round values\n\n");
	printf("  %-13s %13s %10s %13s %9s\n", "", "A", "", "B", "");
	for (size_t i = 0; i < cs->n; i++) {
		const struct json *x = cs->values[i], *y;
		bool ran_a, ran_b;
		const char *name = json_get_string(x, "consumer");

		if (!name || strcmp(name, "none") == 0)
			continue;
		y = find_consumer(b, name);
		if (!y) {
			printf("%s: only in A\n", name);
			continue;
		}
		ran_a = bench_result_ran(x);
		ran_b = bench_result_ran(y);
		if (!ran_a || !ran_b) {
			const char *note = json_get_string(ran_a ? y : x, "note");
			bool has_note = note && note[0];

			printf("%s: not run in %s%s%s%s\n", name,
			       ran_a   ? "B"
			       : ran_b ? "A"
				       : "A nor B",
			       has_note ? " (" : "", has_note ? note : "", has_note ? ")" : "");
			continue;
		}
		printf("%s\n", name);
		for (enum cfig f = 0; f < ELEMENTSOF(cfigs); f++) {
			_cleanup_free_ double *ra = NULL;
			_cleanup_free_ double *rb = NULL;
			size_t na = consumer_rounds(f, x, none_a, &ra);
			size_t nb = consumer_rounds(f, y, none_b, &rb);

			(void)print_row(cfigs[f].label,
					json_get_number(json_get(x, "summary"), cfigs[f].key, NAN),
					json_get_number(json_get(y, "summary"), cfigs[f].key, NAN),
					ra, na, rb, nb, cfigs[f].decimals);
		}
	}
}

static const char *const kind_names[] = {
	[BENCH_KIND_HOOKS] = "hooks",
	[BENCH_KIND_PERM] = "perm",
	[BENCH_KIND_CONSUMERS] = "consumers",
};

int bench_compare_main(int argc, char **argv) {
	const char *path[2] = { NULL, NULL }, *png = NULL;
	struct json *doc[2] = { NULL, NULL };
	enum bench_kind kind[2];
	char label[2][PATH_MAX + 8];
	size_t n = 0;
	bool moved = false;
	int r = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--plot") == 0 && i + 1 < argc && !png) {
			png = argv[++i];
		} else if (n < 2 && strncmp(argv[i], "--", 2) != 0) {
			path[n++] = argv[i];
		} else {
			n = 0;
			break;
		}
	}
	if (n != 2) {
		fprintf(stderr, "Usage: fsn-bench compare A.json B.json [--plot FILE.png]\n");
		return -EINVAL;
	}
	if (png)
		r = bench_plot_check_path(png);
	for (size_t i = 0; i < 2 && r == 0; i++) {
		r = bench_result_load(path[i], &doc[i], &kind[i]);
		if (r < 0 && r != -EINVAL)
			r = -EBADMSG; /* explained by bench_result_load(): exit 1, nothing more */
	}
	if (r == 0 && kind[0] != kind[1]) {
		fprintf(stderr, "fsn-bench: %s is a %s result, %s a %s result\n", path[0],
			kind_names[kind[0]], path[1], kind_names[kind[1]]);
		r = -EINVAL;
	}
	if (r == 0 && png && kind[0] == BENCH_KIND_CONSUMERS) {
		fprintf(stderr, "fsn-bench: --plot: consumers results have no plot\n");
		r = -EINVAL;
	}
	if (r < 0)
		goto out;
	if (kind[0] == BENCH_KIND_CONSUMERS)
		compare_consumers(path, doc);
	else if (compare_results(path, doc) > 0)
		moved = true;
	if (png) {
		snprintf(label[0], sizeof(label[0]), "A: %s", path[0]);
		snprintf(label[1], sizeof(label[1]), "B: %s", path[1]);
		r = bench_plot_docs(kind[0], doc[0], label[0], doc[1], label[1], png);
		if (r == 77)
			r = 0; /* the plot is optional */
	}
out:
	json_free(doc[0]);
	json_free(doc[1]);
	return r == -EBADMSG ? 1 : r == 0 && moved ? 3 : r;
}
