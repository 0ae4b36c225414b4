/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.c — the configuration file: the schema (one table per scope:
 * top level, `limits`, a rule, an output), and the loader that drives
 * parsing, defaults, validation and the conf.d/ drop-in merge from it.
 *
 * Each key is declared once, in a table below: its name, its parser (which
 * is its type: the file must hold exactly that type), where the value goes,
 * its default written in config syntax, its allowed range or names, an
 * optional validator, and one line of documentation. Defaults are applied by
 * parsing the default text with the same parser, so the documented default
 * (config_schema_foreach(), fsnotifyd.conf(5) and its test) is the default.
 *
 * The loader never stops at the first problem: every error is appended to
 * a struct config_errors, each naming file:line (the setting's own line,
 * from libconfig) and the rule, output or key. Memory failures set a flag
 * and make config_load() return -ENOMEM at the end.
 *
 * Merge rules for drop-ins (<dir of main file>/conf.d/ *.conf, lexical
 * order): `rules` are appended, `output` entries added or replaced by name,
 * every other setting (also each key of `limits`) overrides.
 *
 * The loader is three files, sharing conf-private.h (the loader's state,
 * the schema's types, the functions one file calls in another): this one
 * holds the schema, the reporting of errors, the walk of groups, the
 * outputs and rules (the structure around values) and config_load(),
 * which drives the others, plus the queries of conf.h; conf-parse.c the
 * parsers of values (one per type) and the validators the schema names;
 * conf-file.c the files (read safely into memory, @include checked and
 * resolved, parsed by a child first unless CONFIG_LOAD_IN_PROCESS, then
 * into libconfig and through read_group()) and the discovery of drop-ins.
 */
#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "conf-private.h"
#include "conf.h"
#include "fsn-uapi.h"
#include "fsn.h"
#include "util.h"

/* ------------------------------------------------------------------------ */
/* small helpers                                                            */
/* ------------------------------------------------------------------------ */

void *l_oom(struct loader *l, void *p) {
	if (!p)
		l->oom = true;
	return p;
}

char *l_strdup(struct loader *l, const char *s) {
	return s ? l_oom(l, strdup(s)) : NULL;
}

/* A string for a message: printable ASCII as is, other bytes as \xNN,
 * cut after 200 bytes. */
const char *printable(const char *s, char *buf, size_t len) {
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 8 < len; p++) {
		if (p - (const unsigned char *)s >= 200) {
			o += snprintf(buf + o, len - o, "...");
			break;
		}
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			buf[o++] = (char)*p;
		else
			o += snprintf(buf + o, len - o, "\\x%02x", *p);
	}
	buf[o] = '\0';
	return buf;
}

const char *setting_file(struct loader *l, const config_setting_t *s) {
	const char *f = s ? config_setting_source_file(s) : NULL;

	return f ? real_file(l, f) : l->file;
}

int setting_line(const config_setting_t *s) {
	return s ? (int)config_setting_source_line(s) : 0;
}

static void add_error_v(struct loader *l, const char *file, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void add_error_v(struct loader *l, const char *file, int line, const char *fmt, va_list ap) {
	struct config_errors *e = l->errors;
	struct config_error *v;
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		l->oom = true;
		return;
	}
	v = realloc(e->v, (e->n + 1) * sizeof(*v));
	if (!v) {
		free(msg);
		l->oom = true;
		return;
	}
	e->v = v;
	e->v[e->n] = (struct config_error){ .file = strdup(file ? file : "(unknown)"),
					    .line = line,
					    .msg = msg };
	if (!e->v[e->n].file)
		l->oom = true;
	e->n++;
}

__attribute__((format(printf, 4, 5))) void add_error(struct loader *l, const char *file, int line,
						     const char *fmt, ...) {
	va_list ap;

	va_start(ap, fmt);
	add_error_v(l, file, line, fmt, ap);
	va_end(ap);
}

/* An error about setting s (its file and line), prefixed with the scope. */
__attribute__((format(printf, 3, 4))) void error_at(struct scope *sc, const config_setting_t *s,
						    const char *fmt, ...) {
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sc->where)
		add_error(sc->l, setting_file(sc->l, s), setting_line(s), "%s: %s", sc->where, msg);
	else
		add_error(sc->l, setting_file(sc->l, s), setting_line(s), "%s", msg);
}

const char *type_words(const config_setting_t *s) {
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number with a fraction";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	default: return "nothing";
	}
}

void type_error(struct scope *sc, const struct key *k, const config_setting_t *s,
		const char *expected) {
	error_at(sc, s, "%s: expected %s, not %s", k->name, expected, type_words(s));
}

/* ------------------------------------------------------------------------ */
/* the schema                                                               */
/* ------------------------------------------------------------------------ */

static bool parse_group(struct scope *sc, const struct key *k, const config_setting_t *s);
static bool parse_outputs(struct scope *sc, const struct key *k, const config_setting_t *s);
static bool parse_rules(struct scope *sc, const struct key *k, const config_setting_t *s);

static const char *const log_level_names[] = { "error", "warning", "notice", "info", "debug" };
static const int log_level_values[] = { LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG };

/* syslog's names (journalctl -p), and "error" as log_level says it */
static const char *const severity_names[] = { "emerg",   "alert",  "crit", "err",  "error",
					      "warning", "notice", "info", "debug" };
#define S RECORD_SEVERITY
static const int severity_values[] = { S(LOG_EMERG),  S(LOG_ALERT), S(LOG_CRIT),
				       S(LOG_ERR),    S(LOG_ERR),   S(LOG_WARNING),
				       S(LOG_NOTICE), S(LOG_INFO),  S(LOG_DEBUG) };
#undef S

static const char *const format_names[] = { "record", "ecs" };
static const int format_values[] = { FORMAT_RECORD, FORMAT_ECS };
static const char *const packages_names[] = { "off", "verify", "drop" };
static const int packages_values[] = { PACKAGES_OFF, PACKAGES_VERIFY, PACKAGES_DROP };

static const char *const mark_names[] = { "auto", "inode", "mount", "filesystem", "inotify" };
static const int mark_values[] = { RULE_MARK_AUTO, RULE_MARK_INODE, RULE_MARK_MOUNT,
				   RULE_MARK_FILESYSTEM, RULE_MARK_INOTIFY };

static const char *const watch_limit_names[] = { "warn", "refuse", "degrade" };
static const int watch_limit_values[] = { WATCH_LIMIT_WARN, WATCH_LIMIT_REFUSE,
					  WATCH_LIMIT_DEGRADE };

static const char *const output_type_names[] = { "journal", "json", "exec", "metrics" };
static const int output_type_values[] = { OUTPUT_JOURNAL, OUTPUT_JSON, OUTPUT_EXEC,
					  OUTPUT_METRICS };

#define ENUM(n, v) .names = (n), .values = (v), .n_names = ELEMENTSOF(n)

#define BOOL(st, f, d) .parse = parse_bool, .type = "boolean", .off = offsetof(st, f), .def = d
#define UINT(st, f, lo, hi, d)                                                                     \
	.parse = parse_uint, .type = "integer", .off = offsetof(st, f), .min = lo, .max = hi,      \
	.def = d
#define STRLIST(st, f)                                                                             \
	.type = "array of strings", .off = offsetof(st, f), .n_off = offsetof(st, n_##f)
#define STRS(st, f) .parse = parse_strings, STRLIST(st, f)

static const struct key limits_keys[] = {
	{ "max_marks", UINT(struct config, max_marks, 1, 1000000, "8192"),
	  .doc = "Fanotify marks and inotify watches the daemon may place, in total." },
	{ "rate_limit", UINT(struct config, rate_limit, 0, 10000000, "0"),
	  .doc = "Events per second reported per rule (a rule's own rate_limit overrides); "
		 "0: unlimited." },
	{ "queue_size", UINT(struct config, queue_size, 16, 16777216, "65536"),
	  .doc = "No effect (accepted so that older configs load): records are written as the "
		 "loop handles events; the buffers are read_buffer and kernel_queue." },
	{ "kernel_queue", UINT(struct config, kernel_queue, 0, 16777216, "65536"),
	  .doc = "Events each kernel queue (fanotify group, inotify instance) holds before "
		 "it overflows; 0: the system's fs.fanotify/fs.inotify max_queued_events." },
	{ "read_buffer", UINT(struct config, read_buffer, 0, 1073741824, "16777216"),
	  .doc = "Bytes of events a thread of the daemon reads ahead of the loop from the kernel "
		 "queues (FID groups, inotify) and holds; while full it stops reading and the "
		 "kernel queues fill. 0: no such thread, the loop reads the queues." },
	{ "unlimited_queue", BOOL(struct config, unlimited_queue, "false"),
	  .doc = "Create fanotify groups with FAN_UNLIMITED_QUEUE (no kernel queue limit)." },
	{ "attribute_cache", UINT(struct config, attribute_cache, 0, 16777216, "65536"),
	  .doc = "Files whose attributes the daemon keeps to say what they were (rules with "
		 "attributes); when full, the one seen least recently is forgotten and its next "
		 "record says attrs_before null. About 150 bytes each." },
	{ "hash_queue", UINT(struct config, hash_queue, 1, 65536, "256"),
	  .doc = "Files waiting to be hashed (rules with hash), each holding an fd; when "
		 "full, a file's content record says hash_skipped \"backlog\"." },
	{ "hash_max_size", UINT(struct config, hash_max_size, 0, 16777216, "64"),
	  .doc = "MiB: a larger file is not hashed (hash_skipped \"too_big\"); 0: any "
		 "size." },
	{ "hash_rate", UINT(struct config, hash_rate, 0, 1048576, "0"),
	  .doc = "MiB the daemon reads per second to hash files; 0: as fast as it can." },
	{ "package_hold", UINT(struct config, package_hold, 1, 1000000, "10000"),
	  .doc = "Changes (rules with packages) waiting for dpkg's word at once; beyond, a "
		 "change is reported as any other." },
	{ "package_wait", UINT(struct config, package_wait, 1, 86400, "600"),
	  .doc = "Seconds a change dpkg made waits for its package's md5sums (or dpkg's "
		 "exit) at most; then it is checked against what the database says." },
	{ "baseline_objects", UINT(struct config, baseline_objects, 1, 100000000, "1000000"),
	  .doc = "Objects a rule's baseline holds at most; beyond, the rest of its paths is "
		 "not walked (said in the log and the metrics), and its rows are kept as they "
		 "are. About 200 bytes of disk each." },
	{ "status_interval", UINT(struct config, status_interval, 1, 86400, "10"),
	  .doc = "Seconds between STATUS= updates sent to systemd." },
};

static const struct table limits_table = { TABLE_LIMITS, "limits", limits_keys,
					   ELEMENTSOF(limits_keys) };

#define OUT_JSON (1u << OUTPUT_JSON)
#define OUT_EXEC (1u << OUTPUT_EXEC)
#define OUT_METRICS (1u << OUTPUT_METRICS)

static const struct key output_keys[] = {
	{ "type", .parse = parse_enum, .type = "string", .off = offsetof(struct output_conf, type),
	  ENUM(output_type_names, output_type_values), .required = true,
	  .doc = "\"journal\", \"json\", \"exec\" or \"metrics\"." },
	{ "file", .parse = parse_string, .type = "string",
	  .off = offsetof(struct output_conf, file), .def = "\"-\"", .check = check_output_file,
	  .types = OUT_JSON | OUT_METRICS,
	  .doc = "json: the file JSON lines are appended to (absolute), or \"-\" for standard "
		 "output; metrics (required): the file the metrics are written to (absolute), "
		 "replaced atomically at each write." },
	{ "format", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct output_conf, format), ENUM(format_names, format_values),
	  .def = "\"record\"", .types = OUT_JSON,
	  .doc = "json: \"record\", fsnotifyd's records (doc/record.schema.json), or \"ecs\", "
		 "Elastic Common Schema documents (Filebeat, Elastic Agent, OpenSearch)." },
	{ "interval", UINT(struct output_conf, interval, 1, 3600, "15"), .types = OUT_METRICS,
	  .doc = "metrics: seconds between two writes of the file." },
	{ "argv", STRS(struct output_conf, argv), .check = check_argv_elem, .types = OUT_EXEC,
	  .doc = "exec (required): the command, an absolute program path and its arguments; "
		 "placeholders such as {path} {rule} {events} {pid}." },
	{ "max_running", UINT(struct output_conf, max_running, 1, 1024, "4"), .types = OUT_EXEC,
	  .doc = "exec: commands running at the same time, at most." },
	{ "rate", .parse = parse_double, .type = "number",
	  .off = offsetof(struct output_conf, rate), .min = 0, .max = 1000000, .def = "10",
	  .types = OUT_EXEC,
	  .doc = "exec: commands started per second, on average (token bucket)." },
	{ "burst", UINT(struct output_conf, burst, 1, 1000000, "20"), .types = OUT_EXEC,
	  .doc = "exec: commands that may start at once before rate applies (bucket size)." },
	{ "timeout", UINT(struct output_conf, timeout_sec, 1, 86400, "60"), .types = OUT_EXEC,
	  .doc = "exec: seconds a command may run before it is killed." },
	{ "user", .parse = parse_run_as, .type = "string or integer", .types = OUT_EXEC,
	  .doc = "exec: the user (name or uid) the command runs as; unset: the daemon's "
		 "(root), without capabilities." },
	{ "group", .parse = parse_run_as, .type = "string or integer", .types = OUT_EXEC,
	  .doc = "exec: the group (name or gid) the command runs as; unset: the user's primary "
		 "group, or the daemon's." },
};

static const struct table output_table = { TABLE_OUTPUT, "output", output_keys,
					   ELEMENTSOF(output_keys) };

static bool parse_decisions(struct scope *sc, const struct key *k, const config_setting_t *s);

static const struct key decision_keys[] = {
	{ "verdict", .parse = parse_verdict, .type = "string",
	  .off = offsetof(struct decision_conf, verdict), .required = true,
	  .doc = "\"allow\", \"deny\", \"deny(ERRNO)\" (EIO, EPERM, EBUSY, ETXTBSY, EAGAIN, "
		 "ENOSPC, EDQUOT) or \"audit\" (allow, with an audit record)." },
	{ "audit", BOOL(struct decision_conf, audit_key, "false"),
	  .doc = "Ask the kernel for an audit record of the verdict (FAN_AUDIT); unset: only "
		 "for \"audit\"." },
	{ "log", BOOL(struct decision_conf, log, "false"),
	  .doc = "Report the decision to the rule's outputs; unset: every verdict but a plain "
		 "allow is reported." },
	{ "paths", STRS(struct decision_conf, paths), .def = "[]", .check = check_path_or_glob,
	  .doc = "Match files at or below these absolute paths, or matching these globs." },
	{ "events", .parse = parse_events, .type = "array of strings",
	  .off = offsetof(struct decision_conf, events), .def = NULL,
	  .doc = "Match these permission events (of the rule's); unset: any." },
	{ "uids", .parse = parse_uids, .type = "list of integers or user names",
	  .off = offsetof(struct decision_conf, uids),
	  .n_off = offsetof(struct decision_conf, n_uids), .def = "[]",
	  .doc = "Match processes with these effective user ids." },
	{ "gids", .parse = parse_gids, .type = "list of integers or group names",
	  .off = offsetof(struct decision_conf, gids),
	  .n_off = offsetof(struct decision_conf, n_gids), .def = "[]",
	  .doc = "Match processes with these effective group ids." },
	{ "exes", STRS(struct decision_conf, exes), .def = "[]", .check = check_path_or_glob,
	  .doc = "Match processes whose executable is one of these paths or globs." },
	{ "comms", STRS(struct decision_conf, comms), .def = "[]", .check = check_comm,
	  .doc = "Match processes with these names (comm)." },
};

static const struct table decision_table = { TABLE_DECISION, "decision", decision_keys,
					     ELEMENTSOF(decision_keys) };

#define DEFAULT_EVENTS "[\"create\", \"delete\", \"moved_from\", \"moved_to\", \"close_write\"]"

static const struct key rule_keys[] = {
	{ "name", .parse = parse_string, .type = "string", .off = offsetof(struct rule_conf, name),
	  .required = true, .check = check_rule_name,
	  .doc = "The rule's name, unique: letters, digits, '_', '.', '-'." },
	{ "paths", STRS(struct rule_conf, paths), .required = true, .check = check_path,
	  .unique = true, .doc = "Absolute paths of the files or directories to watch." },
	{ "mark", .parse = parse_enum, .type = "string", .off = offsetof(struct rule_conf, mark),
	  ENUM(mark_names, mark_values), .def = "\"auto\"",
	  .doc = "The kernel mechanism: \"auto\", \"inode\", \"mount\", \"filesystem\" or "
		 "\"inotify\"." },
	{ "events", .parse = parse_events, .type = "array of strings",
	  .off = offsetof(struct rule_conf, events), .def = DEFAULT_EVENTS,
	  .doc = "Event names (fanotify's, lower case, without FAN_)." },
	{ "children", BOOL(struct rule_conf, children, "true"),
	  .doc = "Report events of a directory's entries (not only of the directory)." },
	{ "ondir", BOOL(struct rule_conf, ondir, "true"),
	  .doc = "Report events whose subject is a directory too." },
	{ "recursive", BOOL(struct rule_conf, recursive, "false"),
	  .doc = "Watch the whole subtree below each directory." },
	{ "create", BOOL(struct rule_conf, create, "false"),
	  .doc = "Create missing paths as directories (mode 0755) at start." },
	{ "required", BOOL(struct rule_conf, required, "false"),
	  .doc = "A rule that cannot be placed stops the daemon at start (and a reload keeps "
		 "the running config); permission rules: true unless set." },
	{ "exclude", STRS(struct rule_conf, exclude), .def = "[]", .check = check_path_or_glob,
	  .doc = "Absolute paths (with everything below) or glob patterns not to report." },
	{ "pids", .parse = parse_pids, .type = "array of integers",
	  .off = offsetof(struct rule_conf, pids), .n_off = offsetof(struct rule_conf, n_pids),
	  .min = 1, .max = 4194304, .def = "[]",
	  .doc = "Report only events caused by these process ids; empty: any." },
	{ "comms", STRS(struct rule_conf, comms), .def = "[]", .check = check_comm,
	  .doc = "Report only events caused by processes with these names; empty: any." },
	{ "uids", .parse = parse_uids, .type = "list of integers or user names",
	  .off = offsetof(struct rule_conf, uids), .n_off = offsetof(struct rule_conf, n_uids),
	  .def = "[]", .doc = "Report only events caused by these users; empty: any." },
	{ "outputs", .parse = parse_rule_outputs, STRLIST(struct rule_conf, outputs), .def = "[]",
	  .check = check_output_name, .unique = true,
	  .doc = "Names of the outputs this rule's events go to; empty: the top-level "
		 "outputs." },
	{ "rate_limit", UINT(struct rule_conf, rate_limit, 0, 10000000, "0"),
	  .doc = "Events per second reported for this rule; 0: limits.rate_limit." },
	{ "who", BOOL(struct rule_conf, who, "false"),
	  .doc = "Events also say who, beyond pid, comm and uid: the audit login uid and "
		 "session, the executable, the parent's pid and comm (fanotify marks: inotify "
		 "reports no process)." },
	{ "attributes", BOOL(struct rule_conf, attributes, "false"),
	  .doc = "Records of attrib, close_write, modify, create and moved_to also say "
		 "what the file is now (type, mode, owner, size, times, inode, links) and, "
		 "when the daemon saw it before, what it was and what changed (fanotify "
		 "marks: one statx() by directory handle per record)." },
	{ "packages", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct rule_conf, packages), ENUM(packages_names, packages_values),
	  .def = "\"off\"",
	  .doc = "Check changes to files dpkg's database lists against its md5sums: "
		 "\"verify\" (their content records say the package and whether the "
		 "content is what it lists), \"drop\" (changes dpkg made that it lists "
		 "as they are are not reported, but counted), \"off\"." },
	{ "baseline", BOOL(struct rule_conf, baseline, "false"),
	  .doc = "Keep an inventory of the rule's paths on disk (state_directory), compare "
		 "it with what is there at each start and report what changed while the "
		 "daemon was not running (baseline records: created, deleted, renamed, "
		 "changed, with before and after)." },
	{ "hash", BOOL(struct rule_conf, hash, "false"),
	  .doc = "Records of close_write, create and moved_to of a regular file (and rescan "
		 "records of one) are followed by a content record with its SHA-256 and "
		 "size, read by a thread of the daemon through the file's handle (fanotify "
		 "marks; limits.hash_queue, hash_max_size, hash_rate)." },
	{ "tags", .parse = parse_strings, .type = "array of strings",
	  .off = offsetof(struct rule_conf, label.tags),
	  .n_off = offsetof(struct rule_conf, label.n_tags), .def = "[]", .check = check_tag,
	  .unique = true,
	  .doc = "Words every record of the rule carries (JSON \"tags\", journal FSN_TAG): "
		 "at most 16, each 1-64 bytes of letters, digits and _ . : = -." },
	{ "severity", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct rule_conf, label.severity), ENUM(severity_names, severity_values),
	  .def = "\"info\"",
	  .doc = "How severe the rule's records are (JSON \"severity\", the journal's PRIORITY): "
		 "\"emerg\", \"alert\", \"crit\", \"err\", \"warning\", \"notice\", "
		 "\"info\" or \"debug\"; a loss is a warning at least, a deny and a re-arm a "
		 "notice." },
	{ "watch_limit", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct rule_conf, watch_limit),
	  ENUM(watch_limit_names, watch_limit_values), .def = "\"warn\"",
	  .doc = "Recursive inotify rules whose tree needs more watches than "
		 "fs.inotify.max_user_watches or limits.max_marks allow: \"warn\" (place what "
		 "fits), \"refuse\" (place nothing) or \"degrade\" (the top directory only)." },
	{ "decisions", .parse = parse_decisions, .type = "list of groups",
	  .doc = "Permission rules: the decision list, evaluated in order: ( { paths = [...]; "
		 "verdict = \"deny\"; }, ... )." },
	{ "default", .parse = parse_verdict, .type = "string",
	  .off = offsetof(struct rule_conf, def), .def = "\"allow\"",
	  .doc = "Permission rules: the verdict when no decision matches." },
	{ "deadline_ms", UINT(struct rule_conf, deadline_ms, 1, 60000, "500"),
	  .doc = "Permission rules: every event is answered within this many milliseconds." },
	{ "deadline_verdict", .parse = parse_verdict, .type = "string",
	  .off = offsetof(struct rule_conf, deadline_verdict),
	  .doc = "Permission rules: the verdict of an event not decided by its deadline; "
		 "unset: the rule's default." },
	{ "debug_delay_ms", UINT(struct rule_conf, debug_delay_ms, 0, 3600000, "0"),
	  .doc = "Permission rules, for tests: every decision becomes ready this many "
		 "milliseconds late (shows the deadline at work)." },
};

static const struct table rule_table = { TABLE_RULE, "rule", rule_keys, ELEMENTSOF(rule_keys) };

static const struct key control_keys[] = {
	{ "socket", .parse = parse_string, .type = "string",
	  .off = offsetof(struct config, control_socket), .def = "\"/run/fsnotifyd/control\"",
	  .check = check_socket_path,
	  .doc = "The control socket's path (absolute; at most 107 bytes); \"\": no socket." },
	{ "group", .parse = parse_string, .type = "string",
	  .off = offsetof(struct config, control_group), .def = "\"\"", .check = check_group_name,
	  .doc = "A group whose members may use the control socket besides root; \"\": root "
		 "only." },
	{ "max_clients", UINT(struct config, control_clients, 1, 4096, "128"),
	  .doc = "Connections to the control socket at once; more are refused." },
	{ "max_request", UINT(struct config, control_request, 1024, 16777216, "65536"),
	  .doc = "Bytes of one request at most; a longer one closes the connection." },
	{ "client_queue", UINT(struct config, control_queue, 4096, 1073741824, "1048576"),
	  .doc = "Bytes of replies and records queued for one client at most; a subscriber "
		 "beyond it loses records (counted, then a dropped record)." },
	{ "slow_timeout", UINT(struct config, control_slow, 1, 3600, "10"),
	  .doc = "Seconds a client's queue may stay full before it is disconnected." },
	{ "request_timeout", UINT(struct config, control_request_timeout, 1, 3600, "10"),
	  .doc = "Seconds a request may take from its first byte to its end; a slower one "
		 "closes the connection." },
	{ "idle_timeout", UINT(struct config, control_idle_timeout, 1, 86400, "60"),
	  .doc = "Seconds a connection with no call in progress may go without a byte read or "
		 "written before it is closed." },
};

static const struct table control_table = { TABLE_CONTROL, "control", control_keys,
					    ELEMENTSOF(control_keys) };

static const struct key top_keys[] = {
	{ "log_level", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct config, log_level), ENUM(log_level_names, log_level_values),
	  .def = "\"info\"", .doc = "The daemon's own messages up to this priority are logged." },
	{ "outputs", .parse = parse_default_outputs, STRLIST(struct config, default_outputs),
	  .def = "[\"journal\"]", .check = check_output_name, .unique = true,
	  .doc = "Outputs of rules that name none." },
	{ "output", .parse = parse_outputs, .type = "group of groups",
	  .doc = "The outputs, by name: output = { NAME = { type = ...; ... }; };" },
	{ "state_directory", .parse = parse_string, .type = "string",
	  .off = offsetof(struct config, state_directory), .def = "\"/var/lib/fsnotifyd\"",
	  .check = check_path,
	  .doc = "Where the daemon keeps what outlives it (the baseline database of rules "
		 "with baseline): absolute, root's, writable by root only." },
	{ "limits", .parse = parse_group, .type = "group", .sub = &limits_table,
	  .doc = "Limits and fanotify group options." },
	{ "control", .parse = parse_group, .type = "group", .sub = &control_table,
	  .doc = "The control socket (fsnotifyctl(1), doc/io.fsnotifyd.varlink)." },
	{ "rules", .parse = parse_rules, .type = "list of groups",
	  .doc = "The rules: rules = ( { name = ...; paths = [...]; ... }, ... );" },
};

const struct table top_table = { TABLE_TOP, "", top_keys, ELEMENTSOF(top_keys) };

static const struct table *const all_tables[] = { &top_table,    &limits_table,   &rule_table,
						  &output_table, &decision_table, &control_table };

void config_schema_foreach(void (*fn)(const struct config_key_info *k, void *userdata),
			   void *userdata) {
	for (size_t t = 0; t < ELEMENTSOF(all_tables); t++)
		for (size_t i = 0; i < all_tables[t]->n_keys; i++) {
			const struct key *k = &all_tables[t]->keys[i];
			const struct config_key_info info = {
				.scope = all_tables[t]->scope,
				.name = k->name,
				.type = k->type,
				.def = k->def,
				.required = k->required,
				.doc = k->doc,
			};

			fn(&info, userdata);
		}
}

/* ------------------------------------------------------------------------ */
/* walking groups                                                           */
/* ------------------------------------------------------------------------ */

static const struct key *find_key(const struct table *t, const char *name) {
	for (size_t i = 0; i < t->n_keys; i++)
		if (strcmp(t->keys[i].name, name) == 0)
			return &t->keys[i];
	return NULL;
}

/* Levenshtein distance, capped: for "did you mean". */
static size_t distance(const char *a, const char *b) {
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
		}
		memcpy(prev, cur, sizeof(cur));
	}
	return prev[lb];
}

static void unknown_key(struct scope *sc, const struct table *t, const config_setting_t *s) {
	const char *name = config_setting_name(s);
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < t->n_keys; i++) {
		size_t d = distance(name, t->keys[i].name);

		if (d < best_d) {
			best_d = d;
			best = t->keys[i].name;
		}
	}
	if (best)
		error_at(sc, s, "unknown key '%s' (did you mean '%s'?)", name, best);
	else
		error_at(sc, s, "unknown key '%s'", name);
}

/* Apply the table's defaults to sc->base (parsed from the default text). */
static void apply_defaults(struct scope *sc, const struct table *t) {
	struct loader *l = sc->l;
	struct scope d = *sc;
	config_setting_t *root;

	if (!l->defaults_ok[t->id])
		return;
	root = config_root_setting(&l->defaults[t->id]);
	d.defaults = true;
	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
		const struct key *k = find_key(t, config_setting_name(s));

		if (k)
			k->parse(&d, k, s);
	}
}

void read_group(struct scope *sc, const struct table *t, config_setting_t *group) {
	struct scope g = *sc;

	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const struct key *k = find_key(t, config_setting_name(s));

		if (s == g.done)
			continue;
		if (!k) {
			unknown_key(&g, t, s);
			continue;
		}
		if (k->types && g.out_type >= 0 && !(k->types & (1u << g.out_type))) {
			char types[64] = "";
			size_t pos = 0;

			for (size_t j = 0; j < ELEMENTSOF(output_type_values); j++)
				if (k->types & (1u << output_type_values[j]) && pos < sizeof(types))
					pos += (size_t)snprintf(types + pos, sizeof(types) - pos,
								"%s%s", pos ? " or " : "",
								output_type_names[j]);
			error_at(&g, s, "'%s' is only valid for %s outputs", k->name, types);
			continue;
		}
		k->parse(&g, k, s);
	}
	for (size_t i = 0; i < t->n_keys; i++)
		if (t->keys[i].required && !config_setting_get_member(group, t->keys[i].name))
			error_at(&g, group, "missing key '%s'", t->keys[i].name);
}

/* A group of keys into the same struct (limits). */
static bool parse_group(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct scope sub = *sc;

	if (!config_setting_is_group(s)) {
		type_error(sc, k, s, "a group { ... }");
		return false;
	}
	sub.where = k->name;
	read_group(&sub, k->sub, (config_setting_t *)s);
	return true;
}

/* ------------------------------------------------------------------------ */
/* outputs                                                                  */
/* ------------------------------------------------------------------------ */

static void output_conf_done(struct output_conf *o) {
	free(o->name);
	free(o->origin.file);
	free(o->file);
	strv_free(o->argv, o->n_argv);
}

static char *steal_name(struct output_conf *o) {
	char *n = o->name;

	o->name = NULL;
	return n;
}

static bool parse_one_output(struct scope *sc, config_setting_t *s, struct output_conf *o) {
	char where[512];
	struct scope os = *sc;
	const char *name = config_setting_name(s);
	const config_setting_t *type = config_setting_get_member(s, "type");
	size_t n_errors = sc->l->errors->n;

	snprintf(where, sizeof(where), "output '%s'", name);
	os.where = where;
	os.base = o;
	os.out_type = -1;
	o->name = l_strdup(sc->l, name);
	o->origin.file = l_strdup(sc->l, setting_file(sc->l, s));
	o->origin.line = setting_line(s);
	apply_defaults(&os, &output_table);
	if (strchr(name, '*')) {
		error_at(&os, s, "the name may not contain '*'");
		return false;
	}
	if (!config_setting_is_group(s)) {
		error_at(&os, s, "expected a group { type = ...; }, not %s", type_words(s));
		return false;
	}
	/* The type first: which keys are valid depends on it. */
	if (type) {
		const struct key *k = find_key(&output_table, "type");

		if (k->parse(&os, k, type))
			os.out_type = (int)o->type;
		os.done = type;
	}
	read_group(&os, &output_table, s);
	if (os.out_type == OUTPUT_METRICS && !config_setting_get_member(s, "file"))
		error_at(&os, s, "metrics outputs need 'file' (an absolute path)");
	if (os.out_type == OUTPUT_EXEC && !config_setting_get_member(s, "argv"))
		error_at(&os, s, "exec outputs need 'argv'");
	else if (os.out_type == OUTPUT_EXEC && o->n_argv == 0 && sc->l->errors->n == n_errors)
		error_at(&os, config_setting_get_member(s, "argv"), "argv: empty");
	if (o->has_user && !o->has_user_gid && !o->has_group)
		error_at(&os, config_setting_get_member(s, "user"),
			 "user: uid %u has no passwd entry, so no primary group: give 'group' too",
			 (unsigned)o->user);
	return sc->l->errors->n == n_errors;
}

static struct output_conf *find_output(struct config *c, const char *name) {
	for (size_t i = 0; i < c->n_outputs; i++)
		if (strcmp(c->outputs[i].name, name) == 0)
			return &c->outputs[i];
	return NULL;
}

/* output = { NAME = { ... }; ... }: added, or replacing one of that name. */
static bool parse_outputs(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct config *c = sc->l->c;

	if (!config_setting_is_group(s)) {
		type_error(sc, k, s, "a group of outputs { NAME = { ... }; }");
		return false;
	}
	for (int i = 0; i < config_setting_length(s); i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct output_conf o = { 0 }, *old;

		if (!parse_one_output(sc, e, &o)) {
			char **v = l_oom(sc->l, realloc(sc->l->bad_outputs,
							(sc->l->n_bad_outputs + 1) * sizeof(*v)));

			if (v) {
				sc->l->bad_outputs = v;
				v[sc->l->n_bad_outputs++] = steal_name(&o);
			}
			output_conf_done(&o);
			continue;
		}
		old = find_output(c, o.name);
		if (old) {
			output_conf_done(old);
			*old = o;
		} else {
			struct output_conf *v =
			    l_oom(sc->l, realloc(c->outputs, (c->n_outputs + 1) * sizeof(*v)));

			if (!v) {
				output_conf_done(&o);
				return false;
			}
			c->outputs = v;
			c->outputs[c->n_outputs++] = o;
		}
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* rules                                                                    */
/* ------------------------------------------------------------------------ */

static void decision_conf_done(struct decision_conf *d) {
	free(d->origin.file);
	strv_free(d->paths, d->n_paths);
	free(d->uids);
	free(d->gids);
	strv_free(d->exes, d->n_exes);
	strv_free(d->comms, d->n_comms);
}

static void rule_conf_done(struct rule_conf *r) {
	for (size_t i = 0; i < r->n_decisions; i++)
		decision_conf_done(&r->decisions[i]);
	free(r->decisions);
	free(r->name);
	free(r->origin.file);
	strv_free(r->paths, r->n_paths);
	strv_free(r->exclude, r->n_exclude);
	free(r->pids);
	strv_free(r->comms, r->n_comms);
	free(r->uids);
	strv_free(r->outputs, r->n_outputs);
	strv_free(r->label.tags, r->label.n_tags);
}

/* decisions = ( { verdict = ...; ... }, ... ) */
static bool parse_decisions(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct rule_conf *r = sc->base;
	size_t n_errors = sc->l->errors->n;
	int n;

	if (config_setting_type(s) != CONFIG_TYPE_LIST) {
		type_error(sc, k, s, "a list of groups ( { verdict = ...; }, ... )");
		return false;
	}
	n = config_setting_length(s);
	r->decisions = l_oom(sc->l, calloc((size_t)n + 1, sizeof(*r->decisions)));
	if (!r->decisions)
		return false;
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct decision_conf *d = &r->decisions[r->n_decisions++];
		struct scope ds = *sc;
		char where[600];

		snprintf(where, sizeof(where), "%s: decision #%d", sc->where, i + 1);
		ds.where = where;
		ds.base = d;
		d->origin.file = l_strdup(sc->l, setting_file(sc->l, e));
		d->origin.line = setting_line(e);
		if (!config_setting_is_group(e)) {
			error_at(&ds, e, "expected a group { verdict = ...; }, not %s",
				 type_words(e));
			continue;
		}
		apply_defaults(&ds, &decision_table);
		read_group(&ds, &decision_table, e);
		/* an explicit `audit` decides; else the verdict ("audit") does */
		if (config_setting_get_member(e, "audit"))
			d->verdict.audit = d->audit_key;
		if (!config_setting_get_member(e, "log"))
			d->log = d->verdict.deny || d->verdict.audit;
	}
	return sc->l->errors->n == n_errors;
}

/* What only a permission rule may have, and what it must not. */
static void check_perm_rule(struct scope *rs, config_setting_t *s, struct rule_conf *r) {
	static const char *const perm_only[] = { "decisions", "default", "deadline_ms",
						 "deadline_verdict", "debug_delay_ms" };
	const config_setting_t *events = config_setting_get_member(s, "events");
	char a[256], b[256];

	r->perm = (r->events & RULE_PERM_EVENTS) != 0;
	if (!r->perm) {
		for (size_t i = 0; i < ELEMENTSOF(perm_only); i++) {
			const config_setting_t *x = config_setting_get_member(s, perm_only[i]);

			if (x)
				error_at(rs, x,
					 "%s: only for rules with permission events (open_perm, "
					 "access_perm, open_exec_perm, pre_access)",
					 perm_only[i]);
		}
		return;
	}
	if (r->events & ~(uint64_t)RULE_PERM_EVENTS) {
		fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->events & RULE_PERM_EVENTS, a,
				sizeof(a));
		fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->events & ~(uint64_t)RULE_PERM_EVENTS, b,
				sizeof(b));
		error_at(rs, events,
			 "events: permission events (%s) and notification events (%s) cannot be "
			 "in one rule: put the notification events in a rule of their own",
			 a, b);
	}
	if (r->mark == RULE_MARK_INOTIFY)
		error_at(rs, config_setting_get_member(s, "mark"),
			 "mark: inotify cannot report permission events; use \"auto\", "
			 "\"inode\", \"mount\" or \"filesystem\"");
	if (r->baseline)
		error_at(rs, config_setting_get_member(s, "baseline"),
			 "baseline: only for rules with notification events: a permission rule "
			 "answers accesses, it records nothing");
	if (!config_setting_get_member(s, "required"))
		r->required = true;
	if (!config_setting_get_member(s, "deadline_verdict"))
		r->deadline_verdict = r->def;
	for (size_t i = 0; i < r->n_decisions; i++) {
		struct decision_conf *d = &r->decisions[i];

		if (d->events & ~r->events) {
			fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, d->events & ~r->events, a,
					sizeof(a));
			add_error(rs->l, d->origin.file, d->origin.line,
				  "%s: decision #%zu: events: %s not among the rule's events",
				  rs->where, i + 1, a);
		}
	}
}

static bool parse_one_rule(struct scope *sc, config_setting_t *s, int index, struct rule_conf *r) {
	struct loader *l = sc->l;
	const config_setting_t *name = config_setting_get_member(s, "name");
	const config_setting_t *rec;
	size_t n_errors = l->errors->n;
	struct scope rs = *sc;
	char where[512];

	if (name && config_setting_type(name) == CONFIG_TYPE_STRING &&
	    *config_setting_get_string(name))
		snprintf(where, sizeof(where), "rule '%s'", P(config_setting_get_string(name)));
	else
		snprintf(where, sizeof(where), "rule #%d", index + 1);
	rs.where = where;
	rs.base = r;
	r->origin.file = l_strdup(l, setting_file(l, s));
	r->origin.line = setting_line(s);
	if (!config_setting_is_group(s)) {
		error_at(&rs, s, "expected a group { name = ...; paths = [...]; }, not %s",
			 type_words(s));
		return false;
	}
	apply_defaults(&rs, &rule_table);
	read_group(&rs, &rule_table, s);
	check_perm_rule(&rs, s, r);
	if (r->paths && r->n_paths == 0)
		error_at(&rs, config_setting_get_member(s, "paths"),
			 "paths: at least one path is needed");
	rec = config_setting_get_member(s, "recursive");
	if (r->mark == RULE_MARK_INODE && r->recursive)
		error_at(&rs, rec,
			 "recursive: inode marks cover one directory level; use mark = "
			 "\"filesystem\" or \"auto\"");
	if (r->name) {
		struct ref *v;

		uintptr_t seen = (uintptr_t)strmap_value_str(&l->seen_names, r->name);

		if (seen) {
			error_at(&rs, name, "duplicate rule name (first at %s:%d)",
				 l->seen_rules[seen - 1].origin.file,
				 l->seen_rules[seen - 1].origin.line);
			return false;
		}
		if (l->n_seen_rules == l->seen_cap) {
			size_t cap = l->seen_cap ? 2 * l->seen_cap : 16;

			v = l_oom(l, realloc(l->seen_rules, cap * sizeof(*v)));
			if (v) {
				l->seen_rules = v;
				l->seen_cap = cap;
			}
		}
		if (l->n_seen_rules < l->seen_cap) {
			v = &l->seen_rules[l->n_seen_rules++];
			*v = (struct ref){
				.name = l_strdup(l, r->name),
				.origin = { .file = l_strdup(l, r->origin.file),
					    .line = r->origin.line },
			};
			if (v->name && strmap_put_str(&l->seen_names, v->name,
						      (void *)(uintptr_t)l->n_seen_rules) < 0)
				l_oom(l, NULL);
		}
	}
	return l->errors->n == n_errors;
}

/* rules = ( { ... }, ... ): appended. */
static bool parse_rules(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct config *c = sc->l->c;

	if (config_setting_type(s) != CONFIG_TYPE_LIST) {
		type_error(sc, k, s, "a list of rules ( { ... }, { ... } )");
		sc->l->rules_bad = true;
		return false;
	}
	for (int i = 0; i < config_setting_length(s); i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct rule_conf r = { 0 }, *v;

		sc->l->n_rule_entries++;
		if (!parse_one_rule(sc, e, i, &r)) {
			rule_conf_done(&r);
			continue;
		}
		v = l_oom(sc->l, realloc(c->rules, (c->n_rules + 1) * sizeof(*v)));
		if (!v) {
			rule_conf_done(&r);
			return false;
		}
		c->rules = v;
		c->rules[c->n_rules++] = r;
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* loading: defaults, the files in order, checks after the merge, errors    */
/* ------------------------------------------------------------------------ */

/* Parse each table's defaults once ("key = default;" lines). */
static void parse_defaults(struct loader *l) {
	for (size_t t = 0; t < ELEMENTSOF(all_tables); t++) {
		const struct table *tab = all_tables[t];
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		config_init(&l->defaults[tab->id]);
		if (!f) {
			l->oom = true;
			continue;
		}
		for (size_t i = 0; i < tab->n_keys; i++)
			if (tab->keys[i].def)
				fprintf(f, "%s = %s;\n", tab->keys[i].name, tab->keys[i].def);
		if (fclose(f) != 0) {
			l->oom = true;
			continue;
		}
		l->defaults_ok[tab->id] = config_read_string(&l->defaults[tab->id], text);
		if (!l->defaults_ok[tab->id])
			add_error(l, "(defaults)", config_error_line(&l->defaults[tab->id]),
				  "%s: %s", tab->scope, config_error_text(&l->defaults[tab->id]));
	}
}

static bool builtin_output(struct loader *l, const char *name) {
	struct config *c = l->c;
	struct output_conf o = { .max_running = 4, .rate = 10, .burst = 20, .timeout_sec = 60 };
	struct output_conf *v;

	if (strcmp(name, "journal") == 0)
		o.type = OUTPUT_JOURNAL;
	else if (strcmp(name, "stdout") == 0) {
		o.type = OUTPUT_JSON;
		o.file = l_strdup(l, "-");
	} else
		return false;
	o.name = l_strdup(l, name);
	o.origin.file = l_strdup(l, "(built-in)");
	v = l_oom(l, realloc(c->outputs, (c->n_outputs + 1) * sizeof(*v)));
	if (!v) {
		output_conf_done(&o);
		return true;
	}
	c->outputs = v;
	c->outputs[c->n_outputs++] = o;
	return true;
}

static void check_refs(struct loader *l, const struct ref *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const struct output_conf *o = find_output(l->c, v[i].name);
		bool bad = false;

		for (size_t j = 0; j < l->n_bad_outputs && !bad; j++)
			bad = l->bad_outputs[j] && strcmp(l->bad_outputs[j], v[i].name) == 0;
		if (o && o->type == OUTPUT_METRICS) {
			add_error(l, v[i].origin.file, v[i].origin.line,
				  "%s%soutputs: '%s' is a metrics output: it takes no records (the "
				  "daemon writes it every interval seconds by itself; no rule "
				  "names it)",
				  v[i].who ? v[i].who : "", v[i].who ? ": " : "", P(v[i].name));
			continue;
		}
		if (bad || o || builtin_output(l, v[i].name))
			continue;
		add_error(l, v[i].origin.file, v[i].origin.line, "%s%soutputs: unknown output '%s'",
			  v[i].who ? v[i].who : "", v[i].who ? ": " : "", P(v[i].name));
	}
}

/* Checks that need every file merged. */
static void finish(struct loader *l) {
	struct config *c = l->c;

	check_refs(l, l->drefs, l->n_drefs);
	check_refs(l, l->refs, l->n_refs);
	if (l->n_rule_entries == 0 && !l->rules_bad)
		add_error(l, c->path, 0, "no rules: nothing to watch");
	for (size_t i = 0; i < c->n_rules; i++)
		if (c->rules[i].n_outputs == 0 && c->n_default_outputs == 0)
			add_error(l, c->rules[i].origin.file, c->rules[i].origin.line,
				  "rule '%s': no outputs (the rule names none and the top-level "
				  "'outputs' is empty)",
				  c->rules[i].name);
}

/* The new errors in the order of the files (main, drop-ins in order,
 * others last) and of their lines; stable. */
struct sort_item {
	struct config_error e;
	size_t rank, index;
};

static int compare_errors(const void *a, const void *b) {
	const struct sort_item *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->e.line != y->e.line)
		return x->e.line < y->e.line ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static size_t file_rank(const struct config *c, const char *file) {
	if (c->path && strcmp(file, c->path) == 0)
		return 0;
	for (size_t i = 0; i < c->n_dropins; i++)
		if (strcmp(file, c->dropins[i]) == 0)
			return i + 1;
	return SIZE_MAX;
}

static void sort_errors(struct loader *l) {
	size_t first = l->n_errors_before, n = l->errors->n - first;
	_cleanup_free_ struct sort_item *v = NULL;

	if (n < 2)
		return;
	v = calloc(n, sizeof(*v));
	if (!v)
		return; /* unsorted is fine */
	for (size_t i = 0; i < n; i++)
		v[i] = (struct sort_item){ .e = l->errors->v[first + i],
					   .rank = file_rank(l->c, l->errors->v[first + i].file),
					   .index = i };
	qsort(v, n, sizeof(*v), compare_errors);
	for (size_t i = 0; i < n; i++)
		l->errors->v[first + i] = v[i].e;
}

int config_load(const char *path, struct config **ret, struct config_errors *errors) {
	return config_load_flags(path, 0, ret, errors);
}

int config_load_flags(const char *path, unsigned flags, struct config **ret,
		      struct config_errors *errors) {
	struct config_errors scratch = { 0 };
	struct loader l = { .errors = errors ? errors : &scratch,
			    .in_process = flags & CONFIG_LOAD_IN_PROCESS };
	struct scope sc = { .l = &l, .out_type = -1 };
	int r;

	if (!path || !ret || (flags & ~(unsigned)CONFIG_LOAD_IN_PROCESS))
		return -EINVAL;
	l.n_errors_before = l.errors->n;
	l.c = calloc(1, sizeof(*l.c));
	if (!l.c)
		return -ENOMEM;
	l.c->path = l_strdup(&l, path);
	sc.base = l.c;

	parse_defaults(&l);
	apply_defaults(&sc, &top_table);
	apply_defaults(&sc, &limits_table);
	apply_defaults(&sc, &control_table);

	load_file(&l, path);
	find_dropins(&l, path);
	for (size_t i = 0; i < l.c->n_dropins; i++)
		load_file(&l, l.c->dropins[i]);
	if (!l.unreadable)
		finish(&l);

	for (size_t t = 0; t < ELEMENTSOF(l.defaults); t++)
		config_destroy(&l.defaults[t]);
	refs_free(l.refs, l.n_refs);
	refs_free(l.drefs, l.n_drefs);
	refs_free(l.seen_rules, l.n_seen_rules);
	strmap_done(&l.seen_names);
	strv_free(l.bad_outputs, l.n_bad_outputs);
	sort_errors(&l);

	if (l.oom)
		r = -ENOMEM;
	else if (l.errors->n > l.n_errors_before)
		r = -EINVAL;
	else {
		*ret = l.c;
		config_errors_clear(&scratch);
		return 0;
	}
	config_free(l.c);
	config_errors_clear(&scratch);
	return r;
}

struct config *config_free(struct config *c) {
	if (!c)
		return NULL;
	free(c->path);
	strv_free(c->dropins, c->n_dropins);
	free(c->control_socket);
	free(c->state_directory);
	free(c->control_group);
	strv_free(c->default_outputs, c->n_default_outputs);
	for (size_t i = 0; i < c->n_outputs; i++)
		output_conf_done(&c->outputs[i]);
	free(c->outputs);
	for (size_t i = 0; i < c->n_rules; i++)
		rule_conf_done(&c->rules[i]);
	free(c->rules);
	free(c);
	return NULL;
}

void config_errors_first(const struct config_errors *errs, char *buf, size_t len) {
	const struct config_error *e;

	if (errs->n == 0) {
		snprintf(buf, len, "invalid configuration");
		return;
	}
	e = &errs->v[0];
	if (e->line > 0)
		snprintf(buf, len, "%s:%d: %s", e->file ? e->file : "?", e->line, e->msg);
	else
		snprintf(buf, len, "%s: %s", e->file ? e->file : "?", e->msg);
	if (errs->n > 1) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " (and %zu more)", errs->n - 1);
	}
}

void config_errors_clear(struct config_errors *e) {
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].file);
		free(e->v[i].msg);
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

void config_errors_print(const struct config_errors *e, FILE *f) {
	for (size_t i = 0; e && i < e->n; i++) {
		if (e->v[i].line > 0)
			fprintf(f, "%s:%d: %s\n", e->v[i].file, e->v[i].line, e->v[i].msg);
		else
			fprintf(f, "%s: %s\n", e->v[i].file, e->v[i].msg);
	}
}

/* ------------------------------------------------------------------------ */
/* queries                                                                  */
/* ------------------------------------------------------------------------ */

const struct output_conf *config_find_output(const struct config *c, const char *name) {
	for (size_t i = 0; c && name && i < c->n_outputs; i++)
		if (strcmp(c->outputs[i].name, name) == 0)
			return &c->outputs[i];
	return NULL;
}

const struct rule_conf *config_find_rule(const struct config *c, const char *name) {
	for (size_t i = 0; c && name && i < c->n_rules; i++)
		if (strcmp(c->rules[i].name, name) == 0)
			return &c->rules[i];
	return NULL;
}

static bool strv_equal(char **a, size_t na, char **b, size_t nb) {
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

bool rule_conf_uses_deny_errno(const struct rule_conf *r) {
	bool v = r->perm && ((r->def.deny && r->def.err) ||
			     (r->deadline_verdict.deny && r->deadline_verdict.err));

	for (size_t i = 0; r->perm && i < r->n_decisions; i++)
		v = v || (r->decisions[i].verdict.deny && r->decisions[i].verdict.err);
	return v;
}

bool rule_conf_same_marks(const struct rule_conf *a, const struct rule_conf *b) {
	if (!a || !b)
		return false;
	return a->mark == b->mark && rule_conf_uses_deny_errno(a) == rule_conf_uses_deny_errno(b) &&
	       a->events == b->events && a->children == b->children && a->ondir == b->ondir &&
	       a->recursive == b->recursive && a->create == b->create &&
	       strv_equal(a->paths, a->n_paths, b->paths, b->n_paths) &&
	       strv_equal(a->exclude, a->n_exclude, b->exclude, b->n_exclude);
}

bool output_conf_same(const struct output_conf *a, const struct output_conf *b) {
	if (!a || !b)
		return false;
	return a->type == b->type && a->format == b->format &&
	       ((!a->file && !b->file) || (a->file && b->file && strcmp(a->file, b->file) == 0)) &&
	       strv_equal(a->argv, a->n_argv, b->argv, b->n_argv) &&
	       a->max_running == b->max_running && a->rate == b->rate && a->burst == b->burst &&
	       a->timeout_sec == b->timeout_sec && a->has_user == b->has_user &&
	       a->user == b->user && a->has_group == b->has_group && a->group == b->group &&
	       a->has_user_gid == b->has_user_gid && a->user_gid == b->user_gid &&
	       a->interval == b->interval;
}

const char *rule_mark_name(enum rule_mark m) {
	for (size_t i = 0; i < ELEMENTSOF(mark_values); i++)
		if (mark_values[i] == (int)m)
			return mark_names[i];
	return NULL;
}

const char *output_type_name(enum output_type t) {
	for (size_t i = 0; i < ELEMENTSOF(output_type_values); i++)
		if (output_type_values[i] == (int)t)
			return output_type_names[i];
	return NULL;
}
