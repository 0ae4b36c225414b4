/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.h — PNG plots of hooks and perm results with gnuplot (plot.c), for
 * `plot`, `compare --plot`, `hooks --plot` and `perm --plot`.
 */
#pragma once

#include "result.h"

/* A --plot argument, checked before a run: no control bytes, its directory
 * writable. -EINVAL (explained on stderr) otherwise. */
int bench_plot_check_path(const char *png);
/* Plot a hooks or perm document, or two of one kind (b, b_name: NULL for
 * one; a_name, b_name label them), to png. 0; 77 when gnuplot is not on
 * PATH ("gnuplot not installed: no plot" on stderr); -errno. */
int bench_plot_docs(enum bench_kind kind, const struct json *a, const char *a_name,
		    const struct json *b, const char *b_name, const char *png);
/* --plot of a run: plot json_path, or when it is NULL what write_json(path,
 * userdata) writes to a temporary file. Without gnuplot only the message,
 * and 0: the plot is optional. */
int bench_plot_run(const char *png, const char *json_path,
		   int (*write_json)(const char *path, const void *userdata), const void *userdata);
