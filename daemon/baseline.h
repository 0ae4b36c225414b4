/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * baseline.h — what a rule's paths held when the daemon last looked (a
 * rule's baseline: fsnotifyd.conf(5)), so that what changed while it was
 * not running is reported at its next start.
 *
 * The inventory is an SQLite database in WAL mode (STATE_DIRECTORY/
 * baseline.db, root's, 0600): one row per object under a rule's paths
 * (path, type, mode, owner, size, times, inode, link count, file handle,
 * symlink target, SHA-256 where the rule hashes), so that it lives on disk,
 * not in memory, and an operator can read it with sqlite3(1). A commit is
 * durable against a crash of the daemon (kill -9): the next start uses what
 * was committed.
 *
 * A scan walks a rule's paths (never following a symbolic link, never
 * crossing into another mount, never triggering an automount) in the
 * order of the database's index (byte order of the paths), so that the
 * walk and a cursor over the rows meet like two sorted lists: no object is
 * held in memory but the names of the directories being walked. What
 * differs is reported (baseline_report_fn): changed at once; created,
 * deleted and renamed (a file handle that left one path and appeared at
 * another) once the walk is over. Each report is handed out before the
 * database records it (baseline_flush_fn then commit), so that a crash in
 * between reports it again at the next start, never loses it.
 *
 * Not thread-safe: one thread uses a database (the daemon's baseline
 * thread, or fsnotifyd --baseline-check).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsn-record.h"

struct baseline;
struct pathset;

#define BASELINE_FILE "baseline.db"
/* Directories open at once in a walk: a deeper subtree is not walked (and
 * its rows are kept as they are); the daemon's fd reserve counts them. */
#define BASELINE_DEPTH_MAX 128
#define BASELINE_HANDLE_MAX 128

/* One object as the database holds it, or as a scan found it. */
struct baseline_object {
	char *path;
	struct record_attrs attrs;
	char *target;             /* a symbolic link's target, else NULL */
	char sha256[65];          /* a regular file's content ("" not known: not hashed) */
	const char *hash_skipped; /* why not ("too_big", ...), NULL: hashed or not asked */
	/* its MD5 (dpkg's md5sums), where a rule with md5 read it */
	unsigned char md5[16];
	bool has_md5;
	unsigned char handle[BASELINE_HANDLE_MAX];
	unsigned handle_len; /* 0: none (the filesystem gives none) */
	uint64_t seen_usec;  /* when it was last seen so (the database's) */
};

/* A difference: change is "created" (before NULL), "deleted" (now NULL),
 * "renamed" (old_path: where it was) or "changed". */
struct baseline_diff {
	const char *change;
	const char *old_path;
	const struct baseline_object *before, *now;
};

/* Each difference, as it is found; <0 stops the scan (that errno). */
typedef int (*baseline_report_fn)(void *userdata, const struct baseline_diff *d);
/* The differences reported so far are out (written, queued to the
 * outputs): the database may now record them. <0 stops the scan. */
typedef int (*baseline_flush_fn)(void *userdata);

/* What a rule's baseline covers. */
struct baseline_rule {
	const char *name;
	char *const *paths; /* absolute, canonical */
	size_t n_paths;
	bool recursive;             /* the whole subtree (else a directory's entries) */
	const struct pathset *excl; /* not walked (NULL: none) */
	char *const *exclude;       /* (as configured: part of what the rule covers) */
	size_t n_exclude;
	bool hash;              /* regular files' SHA-256 */
	bool md5;               /* ... and the MD5 of those read (a rule's packages) */
	uint64_t hash_max_size; /* bytes, 0: any */
	uint64_t max_objects;   /* objects at most (limits.baseline_objects) */
};

/* r->excl made (into excl, for pathset_done() after) from r->exclude:
 * 0, -ENOMEM. */
int baseline_rule_excl(struct baseline_rule *r, struct pathset *excl);

/* What d says as a record of rule (its strings and objects d's): false
 * when it has no object. */
bool baseline_diff_record(const char *rule, const char *reason, const struct baseline_diff *d,
			  struct record *rec, struct record_baseline *b);

enum baseline_mode {
	BASELINE_UPDATE, /* report the differences and record them (the daemon) */
	BASELINE_CHECK,  /* report them, record nothing (--baseline-check) */
	BASELINE_INIT,   /* record what is there, report nothing (--baseline-init) */
};

struct baseline_result {
	uint64_t objects; /* walked */
	uint64_t created, deleted, renamed, changed;
	bool
	    initialised; /* the rule had no baseline (or one of other paths): made anew, silently */
	/* what was left unwalked, so that its rows were kept as they are:
	 * NULL, or "limit" (limits.baseline_objects), "depth", "unreadable"
	 * (a directory could not be opened or read) */
	const char *incomplete;
	uint64_t unwalked; /* directories not walked (other mounts, unreadable, too deep) */
	uint64_t usec;     /* how long it took (monotonic) */
};

/*
 * The database file in dir (dir created 0700 and the file 0600 when
 * missing; state_dir_open(), state_file_open()). A file that is not such a database (foreign,
 * of another format) is moved aside to FILE.bad and a new one made, as it
 * is when fresh (a scan found the database corrupt: -EBADMSG): then
 * *ret_replaced says so and err what was wrong with it (every rule's
 * baseline is made anew). 0 or -errno (err: what went wrong).
 */
int baseline_open(const char *dir, bool fresh, struct baseline **ret, bool *ret_replaced, char *err,
		  size_t errlen);
/* NULL */
struct baseline *baseline_close(struct baseline *b);

/* Walk rule r's paths and compare (mode): 0 or -errno (err says what). */
int baseline_scan(struct baseline *b, const struct baseline_rule *r, enum baseline_mode mode,
		  baseline_report_fn report, baseline_flush_fn flush, void *userdata,
		  struct baseline_result *res, char *err, size_t errlen);

/* Record what n paths of rule r (and, for a directory, what is below it;
 * self[i]: the object only, NULL none such) are now, reporting nothing
 * (what the daemon reported as it happened): 0 or -errno. A rule without
 * a baseline yet is left alone. */
int baseline_sync(struct baseline *b, const struct baseline_rule *r, char *const *paths,
		  const bool *self, size_t n, char *err, size_t errlen);

/* Forget the baselines of rules not named in keep. 0 or -errno. */
int baseline_forget_others(struct baseline *b, char *const *keep, size_t n);

/* What the baseline holds for path under rule (NULL: any rule): 1 (ret
 * filled; baseline_object_clear() it), 0 none, -errno. *ret_rule: the
 * rule's name (caller frees). */
int baseline_lookup(struct baseline *b, const char *rule, const char *path,
		    struct baseline_object *ret, char **ret_rule);
void baseline_object_clear(struct baseline_object *o);

/* A walk (scan, sync) stops (-ECANCELED, nothing recorded) once *stop. */
void baseline_set_stop(struct baseline *b, const volatile bool *stop);

/* The database's size on disk (the file and its WAL), bytes. */
uint64_t baseline_disk_bytes(const struct baseline *b);
/* Objects the baseline holds for rule (0: none or unknown). */
uint64_t baseline_rule_objects(struct baseline *b, const char *rule);
