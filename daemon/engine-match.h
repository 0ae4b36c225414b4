/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-match.h — the engine's matcher (engine-match.c): event → rules.
 * It owns what only matching uses: the index of the running state's
 * fanotify marks, the process cache, the inotify move held for its other
 * half (and the timer that gives up on it), the creates a tree scan
 * reported already, and the files the daemon writes. What it needs of the
 * rest of the engine comes as explicit collaborators: the marks it
 * matches against (matcher_index_build()), the inode index of inotify
 * marks (matcher_init()) and struct matcher_ops, through which records go
 * out and everything an event means beyond its rules is handed on.
 *
 * Nothing here reads the kernel: a unit test feeds it crafted events.
 */
#pragma once

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attrcache.h"
#include "fsn-record.h"
#include "fsn.h"
#include "util.h"

struct emark;
struct erule;
struct inode_index;
struct proc_info;
struct record;

/* Paths of recent scan-reported creates remembered (see synth_remember()). */
#define SYNTH_SLOTS 1024

#define PCACHE_SIZE 64
/* What /proc said about a pid is used for this long (across dispatches):
 * pids are handed out cyclically, so one comes back only after the whole
 * pid space went round, which takes far longer; a process's own change
 * of name or uid shows in its events at most this late. */
#define PCACHE_TTL_USEC 100000u

/* How long a held IN_MOVED_FROM waits for its IN_MOVED_TO when the queue
 * was read empty between them. */
#define MOVE_WAIT_SEC 0.02

/* What the matcher asks of the engine. userdata is matcher_init()'s. */
struct matcher_ops {
	/* The paths of fanotify event ev, into path and old (len bytes each):
	 * *ret_path, and *ret_old for a move with both sides (both NULL on
	 * entry; left NULL: unknown). */
	void (*resolve)(void *userdata, struct fsn_event *ev, char *path, char *old, size_t len,
			const char **ret_path, const char **ret_old);
	/* Rule r may report one more event now (its rate limit; false: the
	 * event is dropped, and counted as such). */
	bool (*admit)(void *userdata, struct erule *r);
	/* An event record for rule r's outputs. */
	void (*report)(void *userdata, struct erule *r, const struct record *rec);
	/* Another record for rule r's outputs (an overflow). */
	void (*emit)(void *userdata, struct erule *r, const struct record *rec);
	/* Rule r lost events to an overflow (its record follows): rescan it. */
	void (*lost)(void *userdata, struct erule *r);
	/* An overflow's records went out; names lists the rules ('a', 'b'). */
	void (*overflowed)(void *userdata, const struct fsn_event *ev, const char *names);
	/* The object of planned fanotify inode mark m went: deleted, or moved. */
	void (*gone)(void *userdata, struct emark *m, bool deleted);
	/* The held IN_MOVED_FROM was given up on (matcher_move_timeout()):
	 * whatever else waited for its IN_MOVED_TO may give up too. */
	void (*moved_out)(void *userdata);
	/* What /proc says of pid, into p; NULL: proc_info_init(), which reads
	 * /proc lazily (a test fills p itself). */
	void (*proc)(void *userdata, struct proc_info *p, pid_t pid);
	/* The attributes of fanotify event ev's object (a rule's attributes),
	 * into ret: 0 or -errno (gone). NULL: never known. */
	int (*stat)(void *userdata, const struct fsn_event *ev, struct record_attrs *ret);
	/* Rule r (with hash) reported rec, a change to fanotify event ev's
	 * object: a content record is to follow. NULL: none. */
	void (*hash)(void *userdata, struct erule *r, const struct fsn_event *ev,
		     const struct record *rec);
	/* Rule r (with packages) is to report rec, a change to fanotify event
	 * ev's object made by process p (NULL: not known): MATCH_PKG_NONE,
	 * an ordinary change; MATCH_PKG_WAITING, reported, its content record
	 * waits for dpkg's word; MATCH_PKG_HELD, not reported now (the check
	 * says whether it ever is). NULL: none. */
	int (*package)(void *userdata, struct erule *r, const struct fsn_event *ev,
		       const struct record *rec, struct proc_info *p);
};

enum { MATCH_PKG_NONE, MATCH_PKG_WAITING, MATCH_PKG_HELD };

/* The running state's fanotify marks by what an event names: an event is
 * matched against the marks its FIDs, its paths' directories or its group
 * could concern, not against every mark. Built at each commit; keys borrow
 * the marks' own fid, canon and subtree. */
struct match_index {
	struct strmap by_fid;     /* marks that know their object's FID, by it */
	struct strmap by_path;    /* inode marks (SCOPE_OBJECT), by canonical path */
	size_t n_path_nofid;      /* ... of them without a FID (found by path even in FID events) */
	struct strmap by_subtree; /* SCOPE_SUBTREE marks, by their subtree */
	size_t subtree_max;       /* the longest of those subtrees (bytes) */
	struct subtree_memo *memo; /* the last path's subtree marks (engine-match.c) */
	struct emark **wide;       /* the others: a whole filesystem or mount (SCOPE_FSID) */
	size_t n_wide;
	struct emark *const *marks; /* all of them (the state's, borrowed): the fallback */
	size_t n_marks;
};

/* An inotify IN_MOVED_FROM held back for one event. */
struct pending_from {
	bool set;
	struct fsn_event ev; /* name, group, mark cleared */
	uint32_t cookie;
	char *path;
	dev_t dev; /* the watch it came from */
	ino_t ino;
};

/* A file the daemon writes (a json output, its stdout, its stderr). */
struct ownfile {
	dev_t dev;
	ino_t ino;
	int fd;     /* stdout/stderr: its fd (to learn its name), else -1 */
	char *path; /* canonical, NULL for stdout/stderr */
};

/* A name under which a directory holds one of the daemon's files, as an
 * inotify event says it: the watched directory's inode and the entry's
 * name. Learned when the files are opened and when an entry is made in a
 * watched directory, forgotten when it goes (see own_names_update()); a
 * directory's are trusted when its watch hears all that (own_file()). */
struct ownname {
	dev_t dir_dev;
	ino_t dir_ino;
	char *name;
	dev_t dev; /* the file it names */
	ino_t ino;
};

/* Names of the daemon's files remembered (a name beyond: the oldest goes). */
#define OWN_NAMES_MAX 64

struct matcher {
	const struct matcher_ops *ops;
	void *userdata;
	struct ev_loop *loop;
	const struct inode_index *inodes; /* inotify marks by inode (engine-marks.c) */
	pid_t self;                       /* the daemon: its own events are not reported */
	bool own_children; /* it runs commands (exec outputs): their events are its own too */

	struct match_index ix;
	uint64_t seq;        /* per event matched: a rule reports an event once */
	uint64_t unresolved; /* fanotify events whose path could not be told */

	/* process information, cached per pid */
	struct proc_info *pcache; /* PCACHE_SIZE entries, filled round robin */
	uint64_t *pcache_at;      /* when each was started (monotonic µs) */
	uint64_t *pcache_id;      /* which process each is (pidfd_identity()); 0: not known */
	int pidfs;                /* pidfds have inodes of their own: 1, not: -1, not known: 0 */
	uint64_t unknown_id;      /* the next identity of a process not told apart */
	size_t pcache_n, pcache_next;
	struct record_who who;  /* the record being reported: who (a rule that asks) */
	uint64_t pcache_now;    /* the dispatch's start (matcher_batch()) */
	struct attrcache attrs; /* what files were (a rule's attributes) */
	bool attrs_shed;        /* the daemon is behind: attributes not looked at, files
				 * not hashed */
	uint64_t attrs_shed_n;  /* records that said so (attrs_skipped "backlog") */
	uint64_t hash_shed_n;   /* ... (hash_skipped "backlog") */
	/* the attributes of the event being matched, and what they were
	 * (evinfo_attrs(): one event at a time; here, not in each event's
	 * struct evinfo, which is then small enough to clear per event) */
	struct record_attrs ev_attrs, ev_before;
	/* records' time during a dispatch (realtime µs, 0: none running), read
	 * again every STAMP_EVERY records (record_time()) */
	uint64_t stamp;
	unsigned stamped;

	/* inotify: an IN_MOVED_FROM waiting for its IN_MOVED_TO (same cookie),
	 * to be reported as one move with both paths */
	struct pending_from from;
	ev_timer move_timer;
	char *synth[SYNTH_SLOTS]; /* see synth_remember() */
	/* files the daemon writes: inotify reports no pid, so their own
	 * events are recognised by name and identity (else: a feedback loop) */
	struct ownfile *own;
	size_t n_own;
	struct ownname own_names[OWN_NAMES_MAX];
	size_t n_own_names;
	bool own_names_lost; /* an inotify overflow: names may have changed unheard */
};

/* Start mt: its collaborators (borrowed, they outlive it), its loop (for
 * the move timer; NULL: none, matcher_drained() then must not be called)
 * and the daemon's pid. */
void matcher_init(struct matcher *mt, const struct matcher_ops *ops, void *userdata,
		  struct ev_loop *loop, const struct inode_index *inodes, pid_t self);
void matcher_done(struct matcher *mt);

/* The running state's planned marks (borrowed until the next call):
 * fanotify events are matched against them. At each commit. */
void matcher_index_build(struct matcher *mt, struct emark *const *marks, size_t n);

/* How many files' attributes are kept (limits.attribute_cache: at each
 * commit). */
void matcher_set_attribute_cache(struct matcher *mt, size_t max);
/* At least max files' attributes kept from now (a load's: the commit then
 * sets its bound exactly). */
void matcher_reserve_attribute_cache(struct matcher *mt, size_t max);
/* What a file is now, kept as what it was for its next record (a fresh
 * mark's object and entries, for a rule with attributes); false when the
 * cache is full (nothing kept, nothing forgotten for it). */
bool matcher_remember_attrs(struct matcher *mt, const struct record_attrs *a);
/* What a file now was when last seen (false: not known); now kept (a
 * rescan record's attributes). */
bool matcher_swap_attrs(struct matcher *mt, const struct record_attrs *now,
			struct record_attrs *before);

/* Whether records of this dispatch look at files' attributes and hand
 * files to the hasher (shed: not, while the daemon is behind the kernel's
 * queues: the records say so). */
static inline void matcher_shed_attrs(struct matcher *mt, bool shed) {
	mt->attrs_shed = shed;
}

/* A dispatch begins (the process cache's clock: monotonic µs), and ends. */
void matcher_batch(struct matcher *mt, uint64_t now_usec);
void matcher_batch_end(struct matcher *mt);
/* A dispatch read the queues empty: a held IN_MOVED_FROM (or, others, a
 * move the caller holds) waits MOVE_WAIT_SEC for its IN_MOVED_TO, then
 * matcher_move_timeout() gives up on it. */
void matcher_drained(struct matcher *mt, bool others);
/* No IN_MOVED_TO followed the held IN_MOVED_FROM: it moved out of every
 * watched directory; reported alone, then ops->moved_out(). */
void matcher_move_timeout(struct matcher *mt);

/* A fanotify event (overflows included). */
void matcher_fanotify(struct matcher *mt, struct fsn_event *ev);
/* An inotify event, first of all: a held IN_MOVED_FROM that it does not
 * complete is reported alone. */
void matcher_inotify_begin(struct matcher *mt, const struct fsn_event *ev);
/* An inotify event of watched mark m (a rule's, not a waiter) that the
 * caller did not take for itself: path is m's path with the event's name.
 * Matched against every mark on m's inode. */
void matcher_inotify(struct matcher *mt, struct emark *m, const struct fsn_event *ev,
		     const char *path);
/* An overflow (fanotify: its group's; inotify: every inotify mark's):
 * a record for each rule that lost events. */
void matcher_overflow(struct matcher *mt, const struct fsn_event *ev);
/* An entry found in a directory of recursive inotify tree root that was
 * created before the directory's watch could report it. */
void matcher_synth_create(struct matcher *mt, struct emark *root, const char *path, bool is_dir);

/* The files the daemon writes (after outputs were opened or reopened):
 * fds (its stdout and stderr: when they are regular files) and paths. */
void matcher_own_files(struct matcher *mt, const int *fds, size_t n_fds, const char *const *paths,
		       size_t n_paths);
/* Whether the daemon runs commands (exec outputs), whose children's
 * events are its own. */
void matcher_own_children(struct matcher *mt, bool on);
