/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.h — turning hostile bytes (filenames, process names, child output)
 * into safe text: JSON string contents, human-readable log text, base64, and
 * the JSON line and console line of one record (escape.c). Pure functions,
 * no state. Part of the record library (shared/meson.build, fsn-record):
 * fsnotifyd's outputs and messages, fsnotifyctl (which prints records as
 * the daemon does) and json_write_string() (json.h) all escape with it, so
 * there is one JSON escaper, json_escape().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsn-record.h"

/*
 * Append s as the contents of a JSON string (no quotes) to buf: valid
 * UTF-8 is kept as is, except that '"' '\\', the controls U+0000..U+001F,
 * U+007F..U+009F (C1 too) and the characters that can steer a terminal or
 * a parser (U+2028 U+2029, which end a line for JavaScript, and the
 * bidirectional controls U+061C U+200E U+200F U+202A..U+202E
 * U+2066..U+2069) are escaped (\b \f \n \r \t \" \\, \uxxxx for the
 * others, lower-case hex): still lossless, and a JSON line shows none of
 * them raw to whoever reads it on a terminal. Each byte that is
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
 * Append s as a label value of the Prometheus text format (no quotes):
 * backslash, double quote and newline become \\, \" and \n; valid UTF-8
 * is kept as is (other control characters too: the format allows them);
 * each byte not part of a valid UTF-8 sequence becomes U+FFFD, as in
 * json_escape(). Returns true if s was valid UTF-8. snprintf-like as
 * json_escape().
 */
bool prom_escape(char *buf, size_t len, size_t *pos, const char *s);

/*
 * Append n bytes as human-readable text for logs, journal MESSAGE= and
 * terminals: printable ASCII and valid UTF-8 from U+00A0 up are kept,
 * '\\' becomes "\\\\", \n \r \t are written so, every other byte (control
 * characters, U+0080..U+009F, invalid UTF-8, and the characters that can
 * disguise a line: U+2028 U+2029 and the bidirectional controls U+061C
 * U+200E U+200F U+202A..U+202E U+2066..U+2069) as "\xNN". The result has no
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
/* What a content record says of its file (": sha256 HEX, N bytes", or
 * ": not hashed (too_big, N bytes)"), appended at *pos likewise. */
struct record_content;
void format_content(const struct record_content *c, char *buf, size_t len, size_t *pos);

/* The names of FAN_* event bits, "modify,close_write" (fsn_mask_format()),
 * into buf; "0x..." when there are none or they do not format. */
void format_events(uint64_t mask, char *buf, size_t len);

/* Standard base64 (with '=' padding) of n bytes into buf, NUL terminated,
 * truncated to fit. Returns the length the full encoding needs. */
size_t base64_encode(char *buf, size_t len, const void *data, size_t n);

/* "event", "overflow", "dropped", "decision", "stats", "rescan", "gone",
 * "unmounted" or "rearmed" (JSON "kind", journal FSN_KIND, exec {kind}). */
const char *record_kind_name(enum record_kind k);

/* How severe a record is, as a syslog priority (LOG_EMERG 0 .. LOG_DEBUG
 * 7): its rule's severity (r->label; LOG_INFO when none), but at least
 * LOG_WARNING for a loss (overflow, dropped, gone, unmounted) and
 * LOG_NOTICE for a deny and a rearmed record. The journal's PRIORITY, JSON
 * "severity". */
int record_severity(const struct record *r);

/* "emerg", "alert", "crit", "err", "warning", "notice", "info" or "debug"
 * (syslog's names, as journalctl -p takes them); NULL for another number. */
const char *severity_name(int priority);

/* RFC 3339 UTC with microseconds ("2026-11-30T04:52:09.123456Z") into buf
 * (at least 32 bytes). */
void format_time_usec(char *buf, size_t len, uint64_t usec);

/* A file time (seconds since the epoch, nanoseconds) as RFC 3339 UTC with
 * nanoseconds ("2026-12-06T22:00:00.123456789Z") into buf (at least 32
 * bytes); false, buf untouched, when its year is not 0001 to 9999, which
 * RFC 3339 cannot write (anyone may set their file's mtime so). */
bool format_nsec_time(char *buf, size_t len, int64_t sec, uint32_t nsec);

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
 *   login_uid, session, exe, exe_b64, ppid, parent_comm, unit, slice,
 *             container, mntns   (event, when r->who: the rule asked who)
 *             null when unknown (login_uid, session, unit, slice,
 *             container: also when there is none)
 *   attrs, attrs_before, changed   (event, rescan: when r->attrs_asked) the file's
 *             attributes now and when last seen (objects: type, mode as
 *             four octal digits, uid, gid, size, mtime, ctime as RFC 3339
 *             with nanoseconds, ino, nlink; null: not known), and the
 *             names of those that differ (only with both); attrs_skipped:
 *             why attrs is null ("gone", "backlog", "error")
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
 *   severity  record_severity()'s name: "warning", "info", ...
 *   tags      (when the rule has tags) array of its tags
 *   host, machine_id, boot_id   (when r->origin) the host's name and the
 *             machine's and boot's ids (32 hex digits), null when unknown
 *   stream, seq   (when r->stream) the output's stream id (32 hex digits)
 *             and the record's number in it (1, 2, 3, ... without gaps)
 * The schema of the lines: doc/record.schema.json.
 *
 * The guarantee for consumers: when "path_b64" is absent, the JSON string
 * "path" decodes to exactly the filename bytes (`jq -j .path` prints them,
 * `jq -r .path` them and a newline);
 * when present, `jq -j .path_b64 | base64 -d` does (and "path" is a
 * readable approximation with U+FFFD for the invalid bytes). Same for
 * old_path. Tested by tests/unit/test-escape.c with jq.
 */
int record_to_json(const struct record *r, char *buf, size_t len);

/* The Elastic Common Schema version record_to_ecs() writes to. */
#define ECS_VERSION "9.4.0"

/*
 * Format one record as one Elastic Common Schema document (ecs.c): one
 * JSON object ending in '\n', snprintf-like as record_to_json(). ECS's
 * fields where ECS has one: @timestamp; ecs.version; event.kind ("event",
 * "metric" for stats), event.category (["file"], a decision's also
 * "intrusion_detection"), event.type (creation, deletion, change, access
 * from the events; allowed or denied; a rescan's or baseline's change;
 * else info), event.action (the events; else the kind, "rescan-created"),
 * event.module "fsnotifyd", event.dataset "fsnotifyd.record",
 * event.severity (syslog's number), event.sequence (seq), event.created (a
 * content record's event_time), event.duration (a decision's latency, ns),
 * event.reason; rule.name; log.level; tags; file.path, .name, .directory,
 * .target_path, .type ("file", "dir", "symlink"...), .mode, .uid, .gid,
 * .size, .mtime, .ctime, .inode, .hash.sha256; package.name;
 * process.pid, .name (comm), .executable, .parent.pid, .parent.name;
 * user.id; container.id or .name, .runtime; host.name, .id (machine id),
 * .boot.id. The rest under "fsnotifyd": kind, events (an overflow's, a
 * content record's), path_b64 (and old_path, mount, target_before with
 * theirs, exe_b64, target_b64), ondir, change, login_uid, session, unit,
 * slice, mntns, who_skipped, attrs_before, changed, attrs_skipped,
 * hash_skipped, sha256_before, recorded, package_verified, verdict,
 * errno, audit, by, decision, perm (stats), count, stream. Unknown values
 * are left out. fsnotifyd.conf(5) documents it for users.
 */
int record_to_ecs(const struct record *r, char *buf, size_t len);

/* A file type (S_IFMT bits) as the records name it: "file", "directory",
 * "symlink", "fifo", "socket", "char", "block" or "unknown". */
const char *record_attrs_type_name(uint32_t type);
/* The attributes that differ from a to b, by their JSON names, into names
 * (RECORD_ATTRS_N at most, in the order of the JSON object); how many. */
#define RECORD_ATTRS_N 9
/* Their names, in that order. */
extern const char *const record_attrs_names[RECORD_ATTRS_N];
size_t record_attrs_changed(const struct record_attrs *a, const struct record_attrs *b,
			    const char *names[RECORD_ATTRS_N]);
/* a as a record's "attrs" object ({"type":...,"nlink":N}, "null" for
 * NULL) into buf (NUL-terminated, cut to len): its length. */
int record_attrs_to_json(const struct record_attrs *a, char *buf, size_t len);
/* What changed from r's attrs_before to its attrs ("changed" of its JSON
 * line): the attributes, and a baseline record's "content" and "target". */
#define RECORD_CHANGED_N (RECORD_ATTRS_N + 2)
size_t record_changed(const struct record *r, const char *names[RECORD_CHANGED_N]);

/* Make o's JSON members (json, json_len) from its host and ids. */
void record_origin_seal(struct record_origin *o);

/*
 * Format one record as the console prints it (--foreground; fsnotifyctl
 * watch): one line, ending in '\n', "2026-11-30T05:52:09.123 RULE ..." in
 * local time with milliseconds, then what happened; filenames, process and
 * rule names escaped as text_escape() does. A "dropped" record of no rule
 * (a reader that fell behind) reads "... dropped N records (this reader
 * fell behind)". Returns the length, or the length needed (snprintf-like).
 */
int record_to_text(const struct record *r, char *buf, size_t len);
