/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.h — the daemon's configuration: what a parsed and validated
 * config file (plus its conf.d drop-ins) looks like. A struct config is
 * immutable once config_load() returned it; a reload builds a new one and
 * swaps it in only if it is valid.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsn-record.h" /* struct record_label (shared/: the record library) */
#include "verdict.h"    /* struct verdict, deny_errnos[] (the record library) */

enum rule_mark {
	RULE_MARK_AUTO = 0,
	RULE_MARK_INODE,
	RULE_MARK_MOUNT,
	RULE_MARK_FILESYSTEM,
	RULE_MARK_INOTIFY,
};

/* What a recursive inotify rule does when its tree needs more watches than
 * fs.inotify.max_user_watches (or limits.max_marks) allows. */
enum watch_limit {
	WATCH_LIMIT_WARN = 0, /* place what fits, warn with the numbers */
	WATCH_LIMIT_REFUSE,   /* place nothing: the rule cannot be placed */
	WATCH_LIMIT_DEGRADE,  /* watch the top directory only, and warn */
};

/* A json output's lines: fsnotifyd's records (doc/record.schema.json), or
 * Elastic Common Schema documents (record_to_ecs()). */
enum output_format {
	FORMAT_RECORD = 0,
	FORMAT_ECS,
};

enum output_type {
	OUTPUT_JOURNAL = 0,
	OUTPUT_JSON,
	OUTPUT_EXEC,
	OUTPUT_METRICS, /* the daemon's metrics, written to a file every interval */
};

/* Where a setting came from, for messages: "file:line". */
struct config_origin {
	char *file; /* the config file or drop-in that set it */
	int line;
};

struct output_conf {
	char *name;
	enum output_type type;
	struct config_origin origin;
	/* json, metrics: */
	char *file; /* json: a path, or "-" for stdout; metrics: an absolute path */
	/* json: */
	enum output_format format; /* what a line is (default: fsnotifyd's record) */
	/* metrics: */
	unsigned interval; /* seconds between writes (default 15) */
	/* exec: */
	char **argv; /* NULL-terminated template; argv[0] an absolute path without placeholders;
		      * the exact tokens {path} {old_path} {rule} {events} {kind} {pid}
		      * {comm} {uid} {time} are replaced wherever they occur in an argument;
		      * "{word}" with any other lower-case word is refused; other text
		      * (also other braces) is literal */
	size_t n_argv;
	unsigned max_running; /* concurrency bound (default 4) */
	double rate;          /* runs per second allowed, token bucket (default 10) */
	unsigned burst;       /* bucket size (default 20) */
	unsigned timeout_sec; /* a child running longer is killed (default 60) */
	/* exec: who the command runs as (default: the daemon's uid and gid,
	 * without capabilities); group defaults to the user's primary group */
	bool has_user, has_group;
	uint32_t user, group;
	bool has_user_gid;
	uint32_t user_gid; /* the user's primary group, when it has a passwd entry */
};

/* One entry of a permission rule's decision list: every criterion given
 * must match (an empty list is no criterion); the first entry that matches
 * decides. */
struct decision_conf {
	struct config_origin origin;
	struct verdict verdict;
	bool log;     /* report the decision (default: verdict is not a plain allow) */
	char **paths; /* absolute normalised paths (the object and below) or fnmatch globs */
	size_t n_paths;
	uint64_t events; /* permission event bits; 0: any of the rule's */
	uid_t *uids;
	size_t n_uids;
	gid_t *gids;
	size_t n_gids;
	char **exes; /* absolute paths or globs of the process's executable */
	size_t n_exes;
	char **comms;
	size_t n_comms;
	/* while parsing */
	bool audit_key;
};

/* A rule's packages: what dpkg's md5sums say of the files it watches. */
enum {
	PACKAGES_OFF = 0,
	PACKAGES_VERIFY, /* content records say the package and whether it matches */
	PACKAGES_DROP,   /* and dpkg's changes that match are not reported (counted) */
};

struct rule_conf {
	char *name;
	struct config_origin origin;
	char **paths; /* absolute, normalised (no trailing '/', no "//", ".", "..") */
	size_t n_paths;
	enum rule_mark mark;
	uint64_t events; /* FAN_* event bits (same values as IN_* for the common ones) */
	bool children;   /* events of a directory's direct children (default true) */
	bool ondir;      /* events on directories too (default true) */
	bool recursive;  /* the whole subtree (default false) */
	bool create;     /* create missing paths as directories (default false) */
	bool required;   /* a rule that cannot be placed is fatal at start (default false) */
	char **exclude;  /* absolute normalised paths (the object and everything below it), or
			  * fnmatch globs matched against the full path (a string with * ? or [;
			  * FNM_PATHNAME not set, so '*' also matches '/') */
	size_t n_exclude;
	pid_t *pids; /* only these pids (empty: any) */
	size_t n_pids;
	char **comms; /* only these comm names (empty: any) */
	size_t n_comms;
	uid_t *uids; /* only these uids (empty: any) */
	size_t n_uids;
	char **outputs; /* names of outputs (each exists in config.outputs); empty: the
			 * global default outputs */
	size_t n_outputs;
	unsigned rate_limit; /* events per second reported for this rule; 0 = global default */
	enum watch_limit watch_limit; /* recursive inotify: too many directories */
	struct record_label label;    /* tags and severity of its records (default: none, info) */
	bool who;        /* events say the login uid, session, exe and parent too (default false) */
	bool attributes; /* records say what the file is now and was (default false) */
	bool hash;       /* a content record follows with the file's sha256 (default false) */
	int packages;    /* PACKAGES_*: checked against dpkg's md5sums (default off) */
	bool baseline;   /* an inventory on disk, compared at each start (default false) */

	/* permission rules (events are FAN_*_PERM / FAN_PRE_ACCESS only) */
	bool perm;
	struct decision_conf *decisions;
	size_t n_decisions;
	struct verdict def;              /* no decision matched (default allow) */
	struct verdict deadline_verdict; /* not decided within deadline_ms (default: def) */
	unsigned deadline_ms;            /* default 500 */
	unsigned debug_delay_ms;         /* tests: decisions become ready this late */
};

/* Permission event bits. */
#define RULE_PERM_EVENTS (FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM | FAN_PRE_ACCESS)

/* Whether the rule needs FAN_DENY_ERRNO (a pre-content class group). */
bool rule_conf_uses_deny_errno(const struct rule_conf *r);

struct config {
	char *path;     /* the main file */
	char **dropins; /* conf.d/ *.conf files merged, in lexical order */
	size_t n_dropins;

	int log_level; /* syslog priority: LOG_ERR .. LOG_DEBUG (default LOG_INFO) */
	char **default_outputs;
	size_t n_default_outputs;

	/* limits */
	unsigned max_marks;  /* marks + watches the daemon may place (default 8192) */
	unsigned rate_limit; /* events per second per rule, 0 = unlimited (default 0) */
	unsigned
	    queue_size; /* events buffered for outputs before dropping+counting (default 65536) */
	unsigned kernel_queue;     /* events per kernel queue (0: the system's; default 65536) */
	unsigned read_buffer;      /* bytes the reader thread holds (0: none; default 16 MiB) */
	bool unlimited_queue;      /* FAN_UNLIMITED_QUEUE for fanotify groups (default false) */
	unsigned status_interval;  /* seconds between STATUS= updates (default 10) */
	unsigned attribute_cache;  /* files whose attributes are kept (default 65536) */
	unsigned hash_queue;       /* files waiting to be hashed (default 256) */
	unsigned hash_max_size;    /* MiB: larger files are not hashed; 0: any (default 64) */
	unsigned hash_rate;        /* MiB read per second to hash; 0: unlimited (default 0) */
	unsigned package_hold;     /* changes waiting for dpkg's word (default 10000) */
	unsigned package_wait;     /* seconds a dpkg change waits at most (default 600) */
	unsigned baseline_objects; /* objects a rule's baseline holds at most (default 1000000) */
	char *state_directory; /* absolute: the baseline database's (default /var/lib/fsnotifyd) */

	/* control: the control socket (control.c) */
	char *control_socket;     /* absolute path; "" = none (default /run/fsnotifyd/control) */
	char *control_group;      /* a group whose members may connect; "" = root only */
	unsigned control_clients; /* connections at once (default 128) */
	unsigned control_request; /* bytes of one request at most (default 65536) */
	unsigned control_queue;   /* bytes queued for one client at most (default 1 MiB) */
	unsigned control_slow;    /* seconds a client's queue may stay full (default 10) */
	unsigned control_request_timeout; /* seconds a request may take to arrive (10) */
	unsigned control_idle_timeout;    /* seconds without a call or a byte (60) */

	/* Every output defined, plus the built-in "journal" (type journal) and
	 * "stdout" (json to "-") when they are used but not defined. */
	struct output_conf *outputs;
	size_t n_outputs;
	struct rule_conf *rules;
	size_t n_rules;
};

/* An absolute path as the config keeps paths (no trailing '/', no "//",
 * ".", ".."): 0 and *ret allocated, -EINVAL with *why, -ENOMEM. */
int config_normalize_path(const char *in, char **ret, const char **why);

/* One error: where and what. */
struct config_error {
	char *file;
	int line; /* 0 if not tied to a line */
	char *msg;
};

struct config_errors {
	struct config_error *v;
	size_t n;
};

/*
 * Parse and validate path and, if it exists, the drop-in directory
 * <dirname(path)>/conf.d/ *.conf (merged in lexical order: a drop-in's
 * `rules` are appended, its `output` entries added or replaced by name, its
 * scalar settings override). Every problem found is appended to *errors
 * (all of them, not just the first), each naming file:line. Returns 0 and
 * *ret, or -EINVAL (errors filled; also when a file cannot be read), or
 * -ENOMEM. Validation needs no path to exist: that is the plan's business.
 */
int config_load(const char *path, struct config **ret, struct config_errors *errors);

/* config_load_flags()'s flags. */
enum {
	/*
	 * Parse each file in this process only. Without it (config_load(), the
	 * daemon) a file is parsed by a child process first, and here only if
	 * it parses, since libconfig leaks what it had read of a file that does
	 * not: a process that loads broken files again and again (the daemon,
	 * reloading) must not grow. With it, such a load leaks that much: for
	 * the config fuzzer, which must see every file's whole path through the
	 * loader in one process (libconfig's allocations are its LSan
	 * suppression), never for the daemon. The result is the same.
	 */
	CONFIG_LOAD_IN_PROCESS = 1u << 0,
};
/* config_load() with CONFIG_LOAD_* flags (0: config_load()). */
int config_load_flags(const char *path, unsigned flags, struct config **ret,
		      struct config_errors *errors);
struct config *config_free(struct config *c);
void config_errors_clear(struct config_errors *e);
/* "file:line: msg" of the first error, and "(and N more)" (no errors:
 * "invalid configuration"). */
void config_errors_first(const struct config_errors *e, char *buf, size_t len);
/* "file:line: msg" lines to f. */
void config_errors_print(const struct config_errors *e, FILE *f);

const struct output_conf *config_find_output(const struct config *c, const char *name);
const struct rule_conf *config_find_rule(const struct config *c, const char *name);
/* True when the two rules would place exactly the same marks (reload keeps
 * them): same paths, mark, events, children, ondir, recursive, create,
 * exclude and (permission rules) the group class deny(ERRNO) needs. The plan's group_tag also
 * depends on the rule's index when it has exclusions; compare plan marks' specs for that. */
bool rule_conf_same_marks(const struct rule_conf *a, const struct rule_conf *b);
/* True when the two outputs are configured alike (reload keeps the open
 * output): same type, file, argv, max_running, rate, burst, timeout, user,
 * group and interval. */
bool output_conf_same(const struct output_conf *a, const struct output_conf *b);

const char *rule_mark_name(enum rule_mark m);
const char *output_type_name(enum output_type t);

/* The schema, for documentation and its test: one call per key, in table
 * order. scope is "" (top level), "limits", "rule", "decision" or "output"; def is the
 * default in config syntax, NULL if the key has none. */
struct config_key_info {
	const char *scope;
	const char *name;
	const char *type;
	const char *def;
	bool required;
	const char *doc;
};
void config_schema_foreach(void (*fn)(const struct config_key_info *k, void *userdata),
			   void *userdata);
