/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsn-record.h — the record contract: what fsnotifyd reports (struct
 * record, its kinds) as its outputs receive it and as fsnotifyctl reads it
 * back from a JSON line. Its text forms are escape.h's (record_to_json(),
 * the JSON line consumers parse; record_to_text(), the console line); a
 * decision's verdict is verdict.h's. Part of the record library
 * (shared/meson.build, fsn-record), which fsnotifyd and fsnotifyctl both
 * link; no code of its own.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "verdict.h"

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
	RECORD_CONTENT,   /* what a file an event or rescan record named holds (a rule's hash):
			     content */
	RECORD_BASELINE,  /* what differs from a rule's baseline (change, reason, baseline) */
};
#define RECORD_KIND_LAST RECORD_BASELINE

/* Where records come from: the host's name, and the machine's and the
 * boot's ids as the journal writes them (_MACHINE_ID, _BOOT_ID: 32 lower
 * case hex digits; "" when unknown). Every JSON line says it. */
struct record_origin {
	char host[256];
	char machine_id[33];
	char boot_id[33];
	/* The three as a line's members (,"host":...,"machine_id":...,
	 * "boot_id":...), made by record_origin_seal() after they change, so
	 * that a storm's lines copy them rather than escape them again; 0:
	 * not made (then each line escapes them). */
	size_t json_len;
	char json[2048];
};

/* What a rule says of its records (fsnotifyd.conf(5) tags, severity):
 * words for whoever sorts them, and how much they matter. */
struct record_label {
	char **tags; /* each 1-64 bytes of [A-Za-z0-9_.:=-] */
	size_t n_tags;
	/* RECORD_SEVERITY(LOG_EMERG .. LOG_DEBUG): how severe its records are
	 * (record_severity()); 0: as their kinds say */
	int severity;
};
#define RECORD_SEVERITY(priority) ((priority) + 1)

/* Who, beyond pid, comm and uid, for a rule that asks (fsnotifyd.conf(5)
 * who): the audit login uid and session (which setuid(), sudo and su
 * keep), the executable, the parent. */
struct record_who {
	uint32_t login_uid;      /* (uint32_t)-1: none (never logged in) or unknown */
	uint32_t session;        /* (uint32_t)-1: none or unknown */
	const char *exe;         /* NULL if unknown */
	pid_t ppid;              /* 0 if unknown */
	const char *parent_comm; /* NULL if unknown */
	/* its cgroup's systemd unit and slice, its container ("docker://ID",
	 * "machine://NAME"...): NULL if none or unknown */
	const char *unit, *slice, *container;
	uint64_t mntns; /* its mount namespace's inode; 0 if unknown */
};

/* What a file is (fsnotifyd.conf(5) attributes): its inode's attributes
 * as statx(2) gives them, when the daemon handles the record. */
struct record_attrs {
	uint32_t type; /* S_IFMT bits: S_IFREG, S_IFDIR, ... */
	uint32_t mode; /* permission bits with setuid, setgid, sticky (07777) */
	uint32_t uid, gid;
	uint64_t size;
	int64_t mtime_sec, ctime_sec;
	uint32_t mtime_nsec, ctime_nsec;
	uint64_t ino;
	uint32_t nlink;
	/* which object (not reported): its device and birth time, so that a
	 * number reused by another file is not taken for the same one */
	uint64_t dev;
	int64_t btime_sec;
	uint32_t btime_nsec;
	bool has_btime;
};

/* What a file holds (fsnotifyd.conf(5) hash), for RECORD_CONTENT: it
 * follows the event or rescan record that named the file (event_usec, its
 * time; mask, its events), once the daemon's hasher has read the file. */
struct record_content {
	uint64_t event_usec;
	/* the SHA-256 of the content in lower case hex, "" when not hashed;
	 * then skipped says why: "too_big" (over limits.hash_max_size),
	 * "backlog" (limits.hash_queue was full), "gone" (no longer there),
	 * "not_regular" (not a regular file), "changing" (it changed while
	 * it was read: a hash would be of no one version), "stopped" (the
	 * daemon stopped before it was read) or "error" */
	char sha256[65];
	const char *skipped;
	uint64_t size; /* bytes hashed; when too big, its size */
	bool has_size;
	/* a rule's packages: the package dpkg's database says the file is
	 * of (NULL: none lists it), and whether the file's MD5 is the one its
	 * md5sums list */
	bool package_asked;
	const char *package;
	bool package_verified;
};

/* What a file held and holds, for RECORD_BASELINE (its attributes are
 * the record's attrs, NULL: deleted, and attrs_before, NULL: created). */
struct record_baseline {
	/* the SHA-256 of the content (a rule that hashes a regular file),
	 * NULL: not known; hash_skipped: why the one now is not ("too_big",
	 * "changing", "gone", "error") */
	const char *sha256, *sha256_before, *hash_skipped;
	/* a symbolic link's target, NULL: not one */
	const char *target, *target_before;
	/* when the baseline recorded what it was (0: created) */
	uint64_t recorded_usec;
	/* a rule with packages, a regular file read anew: the package dpkg's
	 * database says it is of (NULL: none lists it), and whether its MD5
	 * is the one listed */
	bool package_asked;
	const char *package;
	bool package_verified;
};

/* A permission rule's counters, for RECORD_STATS. */
struct perm_counts {
	uint64_t allowed, denied, audited, deadline;
	uint64_t latency_p50_us, latency_p99_us;
};

/* One reported thing. Strings are raw bytes (filenames!): every output
 * escapes them for its format. Its JSON line, the contract for consumers:
 * record_to_json() (escape.h); its console line: record_to_text(). */
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
	 * entries changed: something in it was created, deleted or moved);
	 * RECORD_BASELINE: "created", "deleted", "renamed" (old_path: where it
	 * was) or "changed" */
	const char *change;
	/* RECORD_GONE: "deleted" (or replaced by a rename), "moved" (moved
	 * away), "covered" (a filesystem was mounted over it); RECORD_BASELINE:
	 * when it was found: "offline" (at the start: while the daemon was not
	 * running), "overflow" (after events were lost), "verify" (asked) */
	const char *reason;
	/* RECORD_BASELINE */
	const struct record_baseline *baseline;
	/* RECORD_UNMOUNTED: the mount point of the mount that went */
	const char *mount;
	/* Where and in which order (set by the output that writes the
	 * record): origin NULL: not said; stream: the id (32 hex digits) of
	 * the output's stream of records, written as it is (only an output
	 * sets it: nothing to escape), NULL: no stream and no seq; seq:
	 * the record's number in that stream, 1 for its first. */
	const struct record_origin *origin;
	const char *stream;
	uint64_t seq;
	/* The rule's label (set by the engine for a rule's records); NULL:
	 * no tags, and the severity of the record's kind. */
	const struct record_label *label;
	/* RECORD_EVENT of a rule with who: what /proc said; NULL: not asked */
	const struct record_who *who;
	/* why who (and comm, uid) are not known: "gone" (the process had
	 * exited: its pidfd said so, before or after /proc was read, so what
	 * was read may be another's that reused its pid), "inotify" (the
	 * event came through an inotify watch, which reports no process) or
	 * "error"; NULL: known, or no pid */
	const char *who_skipped;
	/* RECORD_EVENT of a rule with attributes (and an event that changes
	 * them): asked; attrs: what the file is now, NULL if it could not be
	 * looked at (gone); attrs_before: what it was when last seen, NULL if
	 * not known */
	bool attrs_asked;
	const struct record_attrs *attrs, *attrs_before;
	/* why attrs is NULL: "gone" (the file could not be found), "backlog"
	 * (the daemon was behind: not looked at, so that no event is lost) or
	 * "error" */
	const char *attrs_skipped;
	/* RECORD_EVENT of a rule with hash (or packages): no content record
	 * follows, because "backlog" (the daemon was behind the kernel's
	 * queues and did not hand the file over, so that no event is lost);
	 * NULL: one follows (or none is due) */
	const char *hash_skipped;
	/* RECORD_CONTENT */
	const struct record_content *content;
};
