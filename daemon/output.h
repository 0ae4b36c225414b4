/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h — where reported events go: the journal, JSON lines, or a
 * command; and the metrics output, which takes no records but writes the
 * daemon's metrics to a file. An output is opened from its struct
 * output_conf, receives records, and is reopened on SIGUSR1 (log
 * rotation). Outputs never block
 * the event loop for long: JSON lines are written with a bounded buffer,
 * commands are spawned without a shell, rate- and concurrency-limited.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "conf.h"
#include "fsn-record.h"

struct ev_loop;

struct output;

/*
 * Open an output. For json, "-" is stdout. exec outputs need the loop, and
 * it must be the default loop (ev_child only works there); a json output
 * on a pipe, terminal or socket uses the loop to flush its buffer when the
 * reader is slow (without a loop it writes blocking). Errors name the
 * output and the cause in err.
 *
 * The daemon must ignore SIGPIPE (a json reader that went away is then a
 * counted EPIPE, not a dead daemon).
 */
int output_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		char *err, size_t errlen);
/* Close; accepts NULL, returns NULL. Children an exec output still runs
 * get SIGTERM (their process group); the default loop reaps them. */
struct output *output_close(struct output *o);
/*
 * Emit one record. Never blocks for long; failures are counted and
 * reported through the daemon's log (once per burst of failures, and once
 * when it works again), not returned per record.
 *   json:    one line per record (record_to_json()); lines are never torn
 *            or interleaved. With a loop, the lines of a loop iteration are
 *            written together before the loop waits (or once 64 KiB
 *            gathered); without, each at once. A regular file is written
 *            synchronously; a pipe, terminal or socket without
 *            blocking, through a bounded buffer (1 MiB) flushed when
 *            writable: what does not fit is dropped. Every record lost
 *            (dropped, or a failed write: ENOSPC, EPIPE) is counted and,
 *            once writing works again, reported in the same stream as
 *            {"kind":"dropped","rule":null,"count":N}.
 *   journal: one entry with MESSAGE, PRIORITY, SYSLOG_IDENTIFIER=fsnotifyd
 *            and FSN_KIND, FSN_RULE, FSN_EVENTS, FSN_PATH, FSN_OLD_PATH,
 *            FSN_PID, FSN_COMM, FSN_UID, FSN_COUNT, FSN_CHANGE, FSN_REASON,
 *            FSN_MOUNT, and for decisions FSN_VERDICT, FSN_BY, FSN_EXE,
 *            FSN_LATENCY_US (unknown ones left out;
 *            paths are the raw bytes); MESSAGE_ID says the record kind
 *            (FSND_MID_EVENT ... in log.h, systemd/fsnotifyd.catalog);
 *            losses have PRIORITY=4.
 *   exec:    runs the argv template for RECORD_EVENT records (other kinds
 *            are ignored): placeholders substituted (see exec_template_check()),
 *            no shell, stdin /dev/null, stdout+stderr forwarded line by line
 *            to the log, token bucket (rate, burst; rate 0: no limit) and
 *            max_running bound (records beyond them are dropped and
 *            counted), killed after timeout_sec (0: never) with SIGTERM to
 *            its process group, SIGKILL 5 s later.
 */
void output_emit(struct output *o, const struct record *r);
/* Reopen files (SIGUSR1). 0, or -errno (then the old file stays in use). */
int output_reopen(struct output *o);
const char *output_name(const struct output *o);
/* Counters for STATUS=: records emitted (json: lines written, the
 * "dropped" lines included; exec: commands started), records failed or
 * dropped. */
void output_counters(const struct output *o, uint64_t *emitted, uint64_t *failed);

/* What every output counts, the same way for each type (the metrics'
 * fsnotifyd_output_*_total): */
struct output_counters {
	uint64_t written; /* json: lines written (the "dropped" lines included);
			   * journal: entries sent; exec: commands started;
			   * metrics: files written */
	uint64_t failed;  /* records lost to an error: a failed write or send, a
			   * command that could not start, a record that could not
			   * be formatted (metrics: files not written) */
	uint64_t dropped; /* records dropped by a bound: json's buffer for a slow
			   * reader (and what it held at a reopen), exec's max_running
			   * and rate */
};
void output_get_counters(const struct output *o, struct output_counters *ret);

/*
 * A metrics output (type metrics): every conf->interval seconds, and when
 * output_metrics_write() says so, the text render(userdata, &text, &len)
 * gives (malloc'd; 0 or -errno) replaces conf->file atomically (a new
 * file in the same directory, renamed over it). It takes no records
 * (output_emit() ignores them). The directory must exist; it is opened
 * now and at output_reopen(). loop: the timer's (NULL: only
 * output_metrics_write() writes).
 */
typedef int (*output_render_fn)(void *userdata, char **ret_text, size_t *ret_len);
int output_metrics_open(const struct output_conf *conf, struct ev_loop *loop,
			output_render_fn render, void *userdata, struct output **ret, char *err,
			size_t errlen);
/* Write a metrics output's file now; nothing for other types. */
void output_metrics_write(struct output *o);

/*
 * The console (--foreground; not an output of the config): each record as
 * one human-readable line on stdout, names escaped as text_escaped() does,
 * flushed at once. 0, or -ENOMEM.
 */
int output_console_open(struct ev_loop *loop, struct output **ret);

/*
 * Check an exec argv template (for config validation). argv[0] must be an
 * absolute path without placeholders (a filename never chooses the
 * program). In the other arguments every "{word}" must be a known
 * placeholder: {path} {old_path} {rule} {events} {kind} {pid} {comm} {uid}
 * {time}. A placeholder can be a whole argument or part of one
 * ("--file={path}"); the substituted value always stays inside that one
 * argument, byte for byte. Unknown values become "". Returns 0, or -EINVAL
 * with a message naming the argument in err.
 */
int exec_template_check(char *const *argv, size_t n_argv, char *err, size_t errlen);
