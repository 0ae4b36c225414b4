/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h — the statistics of fsn-bench's figures (stats.c): medians,
 * quantiles, t-intervals of log values, Welch's test.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Median of n values (n > 0); the array is sorted in place. */
double bench_median(double *v, size_t n);

/* Nearest-rank q-quantile (0 < q <= 1) of n values, NAN for n == 0; the
 * array is sorted in place. */
double bench_percentile(uint64_t *v, size_t n, double q);
/* The same for nq quantiles qs[] at once (one sort), into out[nq]. */
void bench_quantiles(uint64_t *v, size_t n, const double *qs, size_t nq, double *out);

/* Two-sided 97.5 % quantile of Student's t with df degrees of freedom. */
double bench_t975(size_t df);

/* Mean and a 95 % t-interval of the mean of n log values; returned on the
 * linear scale (geometric mean, low, high). n < 2 gives an infinite
 * interval. */
void bench_log_ci(const double *logs, size_t n, double *ret_gmean, double *ret_lo, double *ret_hi);

/* Welch's two-sample t-test on log values: true when the means differ at
 * the 95 % level. */
bool bench_welch_significant(const double *a, size_t na, const double *b, size_t nb);
