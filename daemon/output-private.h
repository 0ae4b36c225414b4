/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-private.h — what output.c shares with the output types
 * (output-json.c, output-journal.c, output-exec.c, output-metrics.c, and
 * output-console.c, the --foreground printer): the common part of an
 * output, the per-type operations (an output's type is its ops), failure
 * accounting, the check of an output file's directory, and test hooks.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "output.h"

struct output_ops {
	void (*emit)(struct output *o, const struct record *r);
	int (*reopen)(struct output *o); /* NULL: nothing to reopen */
	void (*free)(struct output *o);  /* release what the type added, then free(o) */
};

/* The common head of every output; each type embeds it first. */
struct output {
	const struct output_ops *ops;
	char *name;
	struct ev_loop *loop;
	struct output_counters n; /* written, failed, dropped */
	/* A burst of failures is logged once, at its start, and summed up when
	 * the output works again. */
	bool failing;
	uint64_t burst_failed;
};

/* Per-type constructors (output.c dispatches). Each sets *ret only on
 * success; err gets a message naming the output and the cause. */
int output_json_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		     char *err, size_t errlen);
int output_journal_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
			char *err, size_t errlen);
int output_exec_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		     char *err, size_t errlen);

/* Fill the common head (name copied). -ENOMEM. */
int output_init(struct output *o, const struct output_ops *ops, const struct output_conf *conf,
		struct ev_loop *loop);
/* Free the common head's allocations (not o itself). */
void output_done(struct output *o);

/* Count n records as failed; log why (err: an errno, 0 if none) only when
 * this starts a burst of failures. */
void output_failed(struct output *o, uint64_t n, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for n records dropped by a bound of the output (a slow reader's
 * full buffer, max_running, a rate): counted as dropped, not failed. */
void output_dropped(struct output *o, uint64_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Count n records as emitted; ends a burst of failures (logged with the
 * number of records it lost). */
void output_succeeded(struct output *o, uint64_t n);

/* The directory of an output's file path into dir (len bytes: "/" for a
 * file in the root) and its last component in *base. 0, or -ENAMETOOLONG. */
int output_file_dir(const char *path, char *dir, size_t len, const char **base);
/* A directory others may write to (st: its stat, dir: its path) lets them
 * replace the output's file: warn, once per open, saying when they can
 * (consequence: "before it is reopened (SIGUSR1)") and where the file is
 * safer (example: a directory). */
void output_warn_dir(const char *name, const char *dir, const struct stat *st,
		     const char *consequence, const char *example);

/* ---- test hooks (tests/unit/test-escape.c) ---- */

/* json: the bound of the buffer for a slow reader (default 1 MiB). */
void output_json_set_buffer_max(struct output *o, size_t max);
/* json: bytes waiting in the buffer. */
size_t output_json_buffered(const struct output *o);
/* exec: seconds between SIGTERM and SIGKILL after a timeout (default 5). */
void output_exec_set_kill_grace(struct output *o, double sec);
/* exec: children started and not reaped yet. */
unsigned output_exec_running(const struct output *o);
