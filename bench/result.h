/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * result.h — fsn-bench's JSON result files (result.c): the head every run
 * writes (schema version, tool, libfsn, the machine) and reading a file back
 * for compare, plot and vm.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct json;

/* JSON result files carry this schema version; compare refuses others. */
#define FSN_BENCH_SCHEMA_VERSION 1

/* The common head of every result file: '{', "version", "tool", "libfsn" and
 * the "machine" object (uname, CPUs, CPU model) left open (the caller
 * continues with "},"). */
void bench_json_write_head(FILE *f, const char *tool);

enum bench_kind {
	BENCH_KIND_HOOKS,
	BENCH_KIND_PERM,
	BENCH_KIND_CONSUMERS,
};

/* Read and parse an fsn-bench result file of schema FSN_BENCH_SCHEMA_VERSION;
 * its kind comes from "tool" and the arrays it must have ("results", and
 * "ratios" for perm; "consumers"). Failures are explained on stderr. */
int bench_result_load(const char *path, struct json **ret, enum bench_kind *ret_kind);
/* false for a result that did not run (perm: a skipped scenario; consumers:
 * one not installed): it has no figures. */
bool bench_result_ran(const struct json *result);
/* The kernel release a result file was measured on, or "?". */
const char *bench_result_release(const struct json *doc);
