/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packages.h — what dpkg says files hold (a rule's packages:
 * fsnotifyd.conf(5)), and the changes waiting to be checked against it.
 *
 * The index: the files dpkg's database (ADMINDIR, /var/lib/dpkg) lists in
 * its md5sums files (ADMINDIR/info/PKG.md5sums: "MD5  path" lines) and, for
 * conffiles, which md5sums leave out, in its status file (a package's
 * Conffiles field), those under the rules' paths only, each with its
 * package and MD5. An inotify watch on info/ reads a package's md5sums
 * again when dpkg writes, renames or removes it; one on ADMINDIR reads the
 * conffiles again when dpkg renames a new status into place. Main thread
 * only.
 *
 * The waits: dpkg puts a package's files in place before its md5sums
 * (both renamed into place, the md5sums last), so a change dpkg made can
 * be checked only once the md5sums that lists it was read, or dpkg has
 * exited (its pidfd). A conffile's new MD5 is in the status dpkg writes
 * at its exit: dpkg's changes to one wait for that exit, and its temporary
 * (NAME.dpkg-new, unpacked by one dpkg) for the rename over NAME, which
 * apt's next dpkg (--configure) makes. A change of someone else's to a listed file is
 * checked as soon as the file is hashed. Each waiting change has an id,
 * which its hash job carries (hasher.h); when both the file's MD5 and the
 * word of the database are known, ops->resolved says whether they agree.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsn-record.h"
#include "hashmap.h"

struct ev_loop;
struct pkgdb;

/* One file a package lists. */
struct pkgfile {
	struct fsn_hnode node;   /* in the index, by path */
	struct pkgfile *sibling; /* the package's next file */
	const char *pkg;         /* its package's name ("coreutils", "libc6:amd64") */
	bool conffile;           /* one of the package's conffiles (status) */
	bool has_md5;            /* md5 known (a conffile dpkg has only unpacked: not yet) */
	unsigned char md5[16];
	char path[]; /* absolute */
};

/* A change waiting for its check. */
struct pkg_change {
	struct pkg_change *prev, *next;
	/* dpkg's steps to one file for one rule: the step before this one
	 * and the one after, both waiting (NULL: none) */
	struct pkg_change *earlier, *later;
	struct fsn_hnode step_node; /* the last step of its file: in the steps map */
	bool in_steps;
	uint64_t id;
	char *rule, *path;
	uint64_t mask;       /* the event record's events */
	pid_t dpkg;          /* made by dpkg (that process), else 0 */
	struct record *held; /* the event record, held until the check (a
			      * rule's packages "drop"), else NULL */
	uint64_t since;      /* monotonic µs, when it was made */
	bool hashed;         /* content and md5 known */
	bool listed;         /* (dpkg's) an md5sums read since lists it */
	bool dpkg_done;      /* (dpkg's) dpkg has exited */
	struct record_content content;
	unsigned char md5[16];
	bool has_md5;
	bool spooled; /* its held record is on disk too (pkgdb_spooled()) */
	/* resolved while the list is walked (each_change()): out of the
	 * list, freed when the walk ends */
	bool dead;
	struct pkg_change *grave_next;
};

struct pkgdb_ops {
	/* c is checked: pf, the file's entry in the database (NULL: not
	 * listed); verified, its MD5 is the one listed; step, it was one of
	 * dpkg's steps to a later change of the same file, which this says
	 * (its content is of no interest: no content record), and follows at
	 * once. c is freed after. */
	void (*resolved)(void *userdata, struct pkg_change *c, const struct pkgfile *pf,
			 bool verified, bool step);
	/* A dpkg that exited is done only once every event queued at its exit
	 * was handed to pkgdb_wait() (the rename of its temporary may wait
	 * behind the exit). mark: what the engine's queues hold now (NULL:
	 * none could be taken), freed with free_mark; passed: whether every
	 * event queued at mark was handed out since, also under a stream of
	 * later events (fsn_ctx_queue_passed()), or every event queued until
	 * now was (fsn_ctx_is_drained(); for mark NULL, only that). NULL
	 * passed: always. */
	void *(*mark)(void *userdata);
	bool (*passed)(void *userdata, void *mark);
	void (*free_mark)(void *mark);
};

struct pkgdb_stats {
	uint64_t files, packages; /* in the index (files: conffiles too) */
	uint64_t conffiles;
	uint64_t waiting, verified, mismatched, unlisted, no_room;
};

/* A database of admindir ("/var/lib/dpkg"): empty until pkgdb_scope(). */
int pkgdb_new(struct ev_loop *loop, const char *admindir, const struct pkgdb_ops *ops,
	      void *userdata, struct pkgdb **ret);
/* Every change still waiting resolved as it stands (its md5sums not read:
 * as the index says now); NULL. */
struct pkgdb *pkgdb_free(struct pkgdb *db);

/* Index the files under the n prefixes (absolute paths; "/" all) from
 * every md5sums and the status of the database, and watch it: 0 or -errno (the database
 * cannot be read: the index is empty, the error logged). max_waiting:
 * limits.package_hold; wait_sec: the most a dpkg change waits. */
int pkgdb_scope(struct pkgdb *db, char *const *prefixes, size_t n, size_t max_waiting,
		unsigned wait_sec);
const struct pkgfile *pkgdb_lookup(const struct pkgdb *db, const char *path);

/* Whether pid is a dpkg the database follows (root's, seen at work, its
 * exit not yet settled): its events are dpkg's even when they are read
 * after it exited, when /proc no longer says what it was (its rename of a
 * file into place is among the last things it does). */
bool pkgdb_follows(const struct pkgdb *db, pid_t pid);
void pkgdb_get_stats(const struct pkgdb *db, struct pkgdb_stats *ret);

/* rec (an event record of rule's, of a regular file) waits for its check:
 * by dpkg (pid, else 0), its record held when hold. Returns the change's
 * id for its hash job, 0 when there is no room (limits.package_hold: then
 * it is an ordinary change), or -ENOMEM. */
int64_t pkgdb_wait(struct pkgdb *db, const char *rule, const struct record *rec, pid_t dpkg,
		   bool hold);
/* Change id's held record was written to disk (the held spool): its
 * resolution says so (c->spooled). */
void pkgdb_spooled(struct pkgdb *db, uint64_t id);
/* The hash job of change id is done (content; md5, when it was read). */
void pkgdb_hashed(struct pkgdb *db, uint64_t id, const struct record_content *content,
		  const unsigned char *md5);

/* One md5sums file's lines ("MD5  relative/path"), for tests: fn called
 * with each path ("/" + the relative path) and its MD5; lines that are not
 * such are skipped. The number of files, or -errno. */
int pkgdb_parse_md5sums(int fd,
			void (*fn)(void *userdata, const char *path, const unsigned char md5[16]),
			void *userdata);

/* A status file's conffiles (each package's "Conffiles:" lines, " /path
 * MD5 [obsolete|remove-on-upgrade]"), for tests: fn called with the
 * package ("name", "name:arch" for Multi-Arch: same), the path and its
 * MD5 (NULL: "newconffile", not known yet). The number of conffiles, or
 * -errno. */
int pkgdb_parse_status(int fd,
		       void (*fn)(void *userdata, const char *pkg, const char *path,
				  const unsigned char *md5),
		       void *userdata);
