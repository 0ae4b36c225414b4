/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c — the small statistics fsn-bench needs: median, nearest-rank
 * percentile, Student's t quantile, a t-interval over per-round log-ratios
 * and Welch's test for comparing two result files. Pure functions, no
 * state.
 */
#include <math.h>
#include <stdlib.h>

#include "fsn-util.h"
#include "stats.h"

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n) {
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_t975(size_t df) {
	/* Two-sided 95 %: the 0.975 quantile, df = 1 .. 30. */
	static const double table[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df == 0)
		return INFINITY;
	if (df <= ELEMENTSOF(table))
		return table[df - 1];
	if (df <= 60)
		return 2.000 + (2.042 - 2.000) * (60.0 - (double)df) / 30.0;
	if (df <= 120)
		return 1.980 + (2.000 - 1.980) * (120.0 - (double)df) / 60.0;
	return 1.960;
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void bench_quantiles(uint64_t *v, size_t n, const double *qs, size_t nq, double *out) {
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < nq; k++) {
		size_t i = (size_t)ceil(qs[k] * (double)n);

		out[k] = n ? (double)v[i ? i - 1 : 0] : NAN;
	}
}

double bench_percentile(uint64_t *v, size_t n, double q) {
	double ret;

	bench_quantiles(v, n, &q, 1, &ret);
	return ret;
}

static void mean_var(const double *v, size_t n, double *ret_mean, double *ret_var) {
	double sum = 0, ss = 0, mean;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = n ? sum / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	*ret_mean = mean;
	*ret_var = n > 1 ? ss / (double)(n - 1) : INFINITY;
}

void bench_log_ci(const double *logs, size_t n, double *ret_gmean, double *ret_lo, double *ret_hi) {
	double mean, var, half;

	mean_var(logs, n, &mean, &var);
	half = n > 1 ? bench_t975(n - 1) * sqrt(var / (double)n) : INFINITY;
	*ret_gmean = exp(mean);
	*ret_lo = exp(mean - half);
	*ret_hi = exp(mean + half);
}

bool bench_welch_significant(const double *a, size_t na, const double *b, size_t nb) {
	double ma, va, mb, vb, sa, sb, se, df, t;

	if (na < 2 || nb < 2)
		return false;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sqrt(sa + sb);
	if (se == 0)
		return ma != mb;
	t = fabs(ma - mb) / se;
	df = (sa + sb) * (sa + sb) / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	return t > bench_t975(df < 1 ? 1 : (size_t)df);
}
