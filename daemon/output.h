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

#include "conf.h"

struct ev_loop;

enum record_kind {
	RECORD_EVENT = 0, /* a filesystem event matched a rule */
	RECORD_OVERFLOW,  /* the kernel queue overflowed: events were lost (rule names the affected
			     rule) */
	RECORD_DROPPED,   /* the daemon dropped events (rate limit / output queue); count says how
			     many */
	RECORD_DECISION,  /* a permission rule answered an event (verdict, by, ...) */
	RECORD_STATS,     /* a permission rule's counters (perm) */
	RECORD_RESCAN,    /* after an overflow: what a rescan found changed in the gap (change) */
	RECORD_GONE,      /* a rule's watched path went (reason): it is waited for */
	RECORD_UNMOUNTED, /* the mount a rule's path was on went (mount): it is waited for */
	RECORD_REARMED,   /* a rule's path is watched again (or at last, when it did not exist) */
};

/* A permission rule's counters, for RECORD_STATS. */
struct perm_counts {
	uint64_t allowed, denied, audited, deadline;
	uint64_t latency_p50_us, latency_p99_us;
};

/* One reported thing. Strings are raw bytes (filenames!): every output
 * escapes them for its format. */
struct record {
	enum record_kind kind;
	uint64_t time_usec;   /* CLOCK_REALTIME */
	const char *rule;     /* rule name; NULL for a drop not tied to one rule */
	uint64_t mask;        /* FAN_* event bits */
	const char *path;     /* full path, NULL if unknown */
	const char *old_path; /* for renames with both sides known, else NULL */
	pid_t pid;            /* 0 if unknown */
	const char *comm;     /* NULL if unknown (process gone) */
	uid_t uid;            /* (uid_t)-1 if unknown */
	uint64_t count;       /* RECORD_DROPPED: events dropped */
	/* RECORD_DECISION */
	const char *exe;               /* the process's executable, NULL if unknown */
	const struct verdict *verdict; /* the answer written */
	const char *by;                /* "decision", "default" or "deadline" */
	unsigned decision;             /* by "decision": 1-based index in the rule's list */
	uint64_t latency_us;           /* reading the event to writing the answer */
	/* RECORD_STATS */
	const struct perm_counts *perm;
	/* RECORD_RESCAN: "created", "modified" or "changed" (a directory whose
	 * entries changed: something in it was created, deleted or moved) */
	const char *change;
	/* RECORD_GONE: "deleted" (or replaced by a rename), "moved" (moved
	 * away), "covered" (a filesystem was mounted over it) */
	const char *reason;
	/* RECORD_UNMOUNTED: the mount point of the mount that went */
	const char *mount;
};

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
 *            paths are the raw bytes); overflow and dropped records carry
 *            MESSAGE_ID=FSND_MID_OVERFLOW and PRIORITY=4.
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

/* ---- escaping (escape.c), shared by the outputs and the tests ---- */

/*
 * Append s as the contents of a JSON string (no quotes) to buf: valid
 * UTF-8 is kept as is (including U+0080..U+009F, U+2028...); '"' '\\' and
 * the control characters U+0000..U+001F and U+007F are escaped (\b \f \n
 * \r \t \" \\, \u00xx for the others, lower-case hex). Each byte that is
 * not part of a valid UTF-8 sequence becomes U+FFFD (so "\xc0\xaf" gives
 * two, a UTF-8 encoded surrogate "\xed\xa0\x80" three, a truncated
 * sequence one per byte). Overlong forms, surrogates and code points above
 * U+10FFFF are invalid. Returns true if s was valid UTF-8: then the JSON
 * string decodes to exactly the bytes of s.
 * snprintf-like: writes what fits, NUL terminates when len > 0, and *pos
 * advances by the full length even when truncated.
 */
bool json_escape(char *buf, size_t len, size_t *pos, const char *s);

/*
 * Append n bytes as human-readable text for logs, journal MESSAGE= and
 * terminals: printable ASCII and valid UTF-8 from U+00A0 up are kept,
 * '\\' becomes "\\\\", \n \r \t are written so, every other byte (control
 * characters, U+0080..U+009F, invalid UTF-8, and the characters that can
 * disguise a line: U+2028 U+2029 and the bidirectional controls U+200E
 * U+200F U+202A..U+202E U+2066..U+2069) as "\xNN". The result has no
 * control characters and is unambiguous. snprintf-like as json_escape().
 */
void text_escape(char *buf, size_t len, size_t *pos, const void *s, size_t n);
/* text_escape() of a string into buf, returning buf; when it does not fit,
 * cut between characters (never inside an escape) and ended with "...";
 * "(null)" for NULL. For log messages: log_info("... %s", text_escaped(b, sizeof(b), path)). */
const char *text_escaped(char *buf, size_t len, const char *s);

/* The text of a gone, unmounted or rearmed record (its path, escaped, and
 * what happened), appended at *pos as text_escape() does. */
void format_lifecycle(const struct record *r, char *buf, size_t len, size_t *pos);

/* The names of FAN_* event bits, "modify,close_write" (fsn_mask_format()),
 * into buf; "0x..." when there are none or they do not format. */
void format_events(uint64_t mask, char *buf, size_t len);

/* Standard base64 (with '=' padding) of n bytes into buf, NUL terminated,
 * truncated to fit. Returns the length the full encoding needs. */
size_t base64_encode(char *buf, size_t len, const void *data, size_t n);

/*
 * Format one record as one JSON line (one object, ending in '\n'; no other
 * newline can occur in it, whatever the bytes of the filenames); returns
 * the length, or the length needed if it does not fit (like snprintf).
 * Keys, in this order:
 *   time      RFC 3339 UTC with microseconds, "2026-11-30T04:52:09.123456Z"
 *   kind      "event" | "overflow" | "dropped" | "decision" | "stats" | "rescan" |
 *             "gone" | "unmounted" | "rearmed"
 *   rule      the rule name, or null
 *   events    (event; overflow when mask != 0) array of names as
 *             fsn_mask_format(FSN_MASK_FANOTIFY_EVENT) prints them
 *   path      (event: always, null when unknown; other kinds when known)
 *   path_b64  only when path is not valid UTF-8: its exact bytes, base64
 *   old_path, old_path_b64   the same for the old name of a rename
 *   pid, comm, uid           (event, decision) null when unknown
 *   count     (dropped) how many records were dropped
 *   exe, exe_b64             (decision) the process's executable, like path
 *   verdict   (decision) "allow" | "deny"
 *   errno     (decision) only for deny(ERRNO): its name, "EIO"
 *   audit     (decision) true | false
 *   by        (decision) "decision" | "default" | "deadline"
 *   decision  (decision) the 1-based index of the decision that matched, or null
 *   latency_us (decision) from reading the event to writing the answer
 *   allowed, denied, audited, deadline, latency_p50_us, latency_p99_us  (stats)
 *   change    (rescan) "created" | "modified" | "changed"; path, and "ondir":
 *             true for a directory
 *   reason    (gone) "deleted" | "moved" | "covered"; path: the rule's path
 *   mount     (unmounted) the mount point that went; path: the rule's path
 *   ondir     (gone, unmounted, rearmed) whether the path was (is) a directory
 *
 * The guarantee for consumers: when "path_b64" is absent, the JSON string
 * "path" decodes to exactly the filename bytes (`jq -j .path` prints them,
 * `jq -r .path` them and a newline);
 * when present, `jq -j .path_b64 | base64 -d` does (and "path" is a
 * readable approximation with U+FFFD for the invalid bytes). Same for
 * old_path. Tested by tests/unit/test-escape.c with jq.
 */
int record_to_json(const struct record *r, char *buf, size_t len);
