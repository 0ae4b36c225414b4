/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h — where reported events go: the journal, JSON lines, or a
 * command. An output is opened from its struct output_conf, receives
 * records, and is reopened on SIGUSR1 (log rotation). Outputs never block
 * the event loop for long: JSON lines are written with a bounded buffer,
 * commands are spawned without a shell, rate- and concurrency-limited.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config.h"

struct ev_loop;

enum record_kind {
	RECORD_EVENT = 0, /* a filesystem event matched a rule */
	RECORD_OVERFLOW,  /* the kernel queue overflowed: events were lost (rule names the affected
			     rule) */
	RECORD_DROPPED,   /* the daemon dropped events (rate limit / output queue); count says how
			     many */
};

/* One reported thing. Strings are raw bytes (filenames!): every output
 * escapes them for its format. */
struct record {
	enum record_kind kind;
	uint64_t time_usec;   /* CLOCK_REALTIME */
	const char *rule;     /* rule name */
	uint64_t mask;        /* FAN_* event bits */
	const char *path;     /* full path, NULL if unknown */
	const char *old_path; /* for renames with both sides known, else NULL */
	pid_t pid;            /* 0 if unknown */
	const char *comm;     /* NULL if unknown (process gone) */
	uid_t uid;            /* (uid_t)-1 if unknown */
	uint64_t count;       /* RECORD_DROPPED: events dropped */
};

struct output;

/* Open an output. For json, "-" is stdout. exec outputs need the loop
 * (child watchers, timers). Errors name the output and the cause in err. */
int output_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		char *err, size_t errlen);
struct output *output_close(struct output *o);
/* Emit one record. Never blocks for long; failures are counted and
 * reported through the daemon's log, not returned per record. */
void output_emit(struct output *o, const struct record *r);
/* Reopen files (SIGUSR1). */
int output_reopen(struct output *o);
const char *output_name(const struct output *o);
/* Counters for STATUS=: records emitted, records failed or dropped. */
void output_counters(const struct output *o, uint64_t *emitted, uint64_t *failed);

/* ---- escaping (escape.c), shared by the outputs and the tests ---- */

/*
 * Append s as the contents of a JSON string (no quotes) to buf: valid
 * UTF-8 is kept as is, '"' '\\' and control characters are escaped
 * (\n \t \" \\ \u00XX), each byte of invalid UTF-8 becomes U+FFFD. Returns
 * true if s was valid UTF-8 (then the JSON string decodes to exactly s).
 * snprintf-like: *pos advances by the full length even when truncated.
 */
bool json_escape(char *buf, size_t len, size_t *pos, const char *s);

/* Standard base64 of n bytes into buf (NUL terminated). */
void base64_encode(char *buf, size_t len, const void *data, size_t n);

/* Format one record as one JSON line (with '\n'); returns the length, or
 * the length needed if it does not fit (like snprintf). Fields: time
 * (RFC 3339 UTC, microseconds), rule, kind ("event"|"overflow"|"dropped"),
 * events (array of names), path, path_b64 (only when path is not valid
 * UTF-8: the exact bytes), old_path / old_path_b64, pid, comm, uid
 * (null when unknown), count (dropped). */
int record_to_json(const struct record *r, char *buf, size_t len);
