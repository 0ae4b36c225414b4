/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * baseliner.h — the daemon's baseline thread (a rule's baseline:
 * fsnotifyd.conf(5)). The loop hands it jobs: compare a rule's paths with
 * its inventory and report what differs (a scan: at the start, after an
 * overflow, when asked), record what the daemon reported as it happened
 * (a sync of the paths its records named), forget the rules the config no
 * longer has. The thread owns the database (baseline.h), reads and hashes
 * at nice 10, and hands each difference to the loop, which reports it; it
 * commits what it found only once the loop has reported it, so that a
 * crash loses no report (the next start reports it again). The loop never
 * waits for the disk: a job is queued, and the thread waits for the loop
 * (a bounded queue of differences), never the other way round.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baseline.h"

struct ev_loop;
struct baseliner;

#define BASELINER_THREAD_NAME "fsnd-baseline"
/* fds the thread may hold: a walk's directories, the database (two
 * connections, each with its WAL and shared memory, and a temporary
 * file), a file being hashed (its O_PATH and its read fd) */
#define BASELINER_FDS (BASELINE_DEPTH_MAX + 12)

/* A difference (in the loop): reason "offline", "overflow" or "verify". */
typedef void (*baseliner_diff_fn)(void *userdata, const char *rule, const char *reason,
				  const struct baseline_diff *d);
/* A job done (in the loop): job "scan" or "sync"; r 0 or -errno, err what
 * went wrong; res what a scan found; replaced: the database was not a
 * baseline one (err: why) and was made anew. */
typedef void (*baseliner_done_fn)(void *userdata, const char *rule, const char *job,
				  const char *reason, int r, const struct baseline_result *res,
				  const char *err, bool replaced);

/* A lookup's answer (in the loop): found (r 1: rule and o its), none (0),
 * or -errno. */
typedef void (*baseliner_found_fn)(void *userdata, uint64_t token, int r, const char *rule,
				   const struct baseline_object *o);

int baseliner_new(struct ev_loop *loop, const char *state_dir, baseliner_diff_fn diff,
		  baseliner_done_fn done, baseliner_found_fn found, void *userdata,
		  struct baseliner **ret);
/* Stops the thread: the syncs still queued are done first (at most a few
 * seconds), a scan is cancelled (what it found and had not reported is
 * found again at the next start). NULL. */
struct baseliner *baseliner_free(struct baseliner *b);

/* Queue a scan of r (copied, its excl left out: the thread makes its own
 * from exclude; reason: what the records will say; "overflow": the rule's
 * syncs still queued are dropped), a sync of n of
 * its paths (self[i]: the object only; NULL: none such), or forgetting
 * every rule but the n named. 0 or -ENOMEM. */
int baseliner_scan(struct baseliner *b, const struct baseline_rule *r, const char *reason);
int baseliner_sync(struct baseliner *b, const struct baseline_rule *r, char *const *paths,
		   const bool *self, size_t n);
int baseliner_forget(struct baseliner *b, char *const *keep, size_t n);
/* Queue a lookup of what the baseline holds for path (under rule; NULL:
 * any): found() says, with token. */
int baseliner_lookup(struct baseliner *b, const char *rule, const char *path, uint64_t token);

/* The database's size on disk, bytes (as the thread last saw it). */
uint64_t baseliner_disk_bytes(const struct baseliner *b);
