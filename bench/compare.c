/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare.c — `fsn-bench compare A.json B.json`: two result files side by
 * side, mmtests style; reads hooks and perm files. For every
 * scenario/workload pair present (and run) in both, the median ops/s and
 * the ratio to "none" are printed for A and B with B's change against A; a
 * change is starred (*-4.10%*) when Welch's test over the per-round values
 * says the two runs differ at the 95 % level.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench-private.h"

#define MAX_FILE_SIZE (64u << 20)

static int load(const char *path, struct json **ret) {
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	struct json *j = NULL;
	const struct json *res;
	struct stat st;
	size_t len = 0, off = 0;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size > (off_t)MAX_FILE_SIZE)
		return -EFBIG;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return -ENOMEM;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, text + len, (size_t)st.st_size - len);

		if (n < 0)
			return negative_errno();
		if (n == 0)
			break;
		len += (size_t)n;
	}
	r = json_parse(text, len, &j, &off);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: %s: invalid JSON at byte %zu\n", path, off);
		return r;
	}
	res = json_get(j, "results");
	if (json_get_number(j, "version", 0) != FSN_BENCH_SCHEMA_VERSION || !res ||
	    res->type != JSON_ARRAY) {
		fprintf(
		    stderr,
		    "fsn-bench: %s: not an fsn-bench hooks or perm result (schema version %d)\n",
		    path, FSN_BENCH_SCHEMA_VERSION);
		json_free(j);
		return -EINVAL;
	}
	*ret = j;
	return 0;
}

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

/* log() of one per-round field; returns how many finite values were found. */
static size_t round_logs(const struct json *result, const char *key, double **ret) {
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
		double x = json_get_number(rounds->values[i], key, NAN);

		if (isfinite(x) && x > 0)
			v[n++] = log(x);
	}
	*ret = v;
	return n;
}

static void print_metric(const char *label, const struct json *a, const struct json *b,
			 const char *summary_key, const char *round_key, int decimals) {
	_cleanup_free_ double *la = NULL;
	_cleanup_free_ double *lb = NULL;
	double va = json_get_number(json_get(a, "summary"), summary_key, NAN);
	double vb = json_get_number(json_get(b, "summary"), summary_key, NAN);
	size_t na = round_logs(a, round_key, &la), nb = round_logs(b, round_key, &lb);
	bool sig = bench_welch_significant(la, na, lb, nb);
	double change = (vb / va - 1) * 100;
	char sa[32], sb[32];

	snprintf(sa, sizeof(sa), "%.*f", decimals, va);
	snprintf(sb, sizeof(sb), "%.*f", decimals, vb);
	printf("  %-13s %13s (%7.2f%%) %13s %s%7.2f%%%s\n", label, sa, 0.0, sb, sig ? "*" : " ",
	       isfinite(change) ? change : 0.0, sig ? "*" : " ");
}

/* A result that did not run (perm: a skipped scenario) has no figures. */
static bool ran(const struct json *result) {
	const struct json *r = json_get(result, "ran");

	return !r || r->type != JSON_BOOL || r->boolean;
}

static const char *release(const struct json *doc) {
	const char *s = json_get_string(json_get(doc, "machine"), "release");

	return s ? s : "?";
}

int bench_compare_main(int argc, char **argv) {
	struct json *a = NULL, *b = NULL;
	const struct json *res;
	const char *metric;
	int r;

	if (argc != 3) {
		fprintf(stderr, "Usage: fsn-bench compare A.json B.json\n");
		return -EINVAL;
	}
	r = load(argv[1], &a);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: %s: %s\n", argv[1], strerror(-r));
		return r;
	}
	r = load(argv[2], &b);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: %s: %s\n", argv[2], strerror(-r));
		json_free(a);
		return r;
	}
	printf("A: %s (%s)\nB: %s (%s)\n", argv[1], release(a), argv[2], release(b));
	printf("change is B against A; *x%%* = significant at 95%% (Welch's t over per-round "
	       "logs)\n");
	metric = json_get_string(json_get(a, "parameters"), "metric");
	printf("ratio = %s relative to the same round's 'none' (higher is cheaper)\n\n",
	       metric ? metric : "ops per CPU-second");
	printf("  %-13s %13s %10s %13s %9s\n", "", "A", "", "B", "");
	res = json_get(a, "results");
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
		if (!ran(res->values[i]) || !ran(rb)) {
			printf("%s / %s: not run in %s\n", s, w, ran(res->values[i]) ? "B" : "A");
			continue;
		}
		printf("%s / %s\n", s, w);
		print_metric("median ops/s", res->values[i], rb, "median_ops_per_s", "ops_per_s",
			     0);
		if (strcmp(s, "none") != 0)
			print_metric("ratio", res->values[i], rb, "ratio", "ratio", 4);
	}
	json_free(a);
	json_free(b);
	return 0;
}
