/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hasher.h — what files hold (a rule's hash: fsnotifyd.conf(5)). The main
 * thread finds a file the way attributes are looked at (its directory by
 * handle, the entry without following a link) and hands its O_PATH fd to
 * the hasher: a thread that opens it for reading through that fd (never by
 * path: a rename cannot swap another file in), reads and hashes it with
 * libcrypto's SHA-256 and gives the result back to the loop, in the order
 * the files were handed over. Bounded: a queue of files waiting (each
 * holds its fd), a size cap, a rate. A file that changed while it was read
 * (statx before and after differ) is reported as changing, never with a
 * hash of no one version of it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsn-record.h"

struct ev_loop;
struct hasher;

/* One file to hash, and then what it holds. */
struct hash_job {
	struct hash_job *prev, *next;
	int fd; /* O_PATH, the hasher's; -1: skipped at once (content.skipped) */
	dev_t dev;
	ino_t ino;
	char *rule; /* its rule's name (a reload may retire the rule meanwhile) */
	char *path;
	uint64_t mask;   /* the event's (events'), for the record */
	uint64_t pkg_id; /* a change waiting for dpkg's word (packages.h): the MD5 too */
	struct record_content content;
	unsigned char md5[16];
	bool has_md5;
};

#define HASHER_SKIPPED_MAX 4

struct hasher_limits {
	size_t queue;      /* files waiting with their fds (limits.hash_queue) */
	uint64_t max_size; /* bytes: larger files are too_big; 0: any */
	uint64_t rate;     /* bytes read per second; 0: unlimited */
};

/* Counters (metrics), main thread. */
struct hasher_stats {
	uint64_t hashed, bytes, merged;
	uint64_t skipped_too_big, skipped_backlog, skipped_gone, skipped_not_regular,
	    skipped_changing, skipped_stopped, skipped_error;
	size_t waiting; /* files handed over, not yet given back */
};

/* A result (job->content), in the loop, in the order of hasher_submit();
 * the job is freed after it returns. */
typedef void (*hasher_done_fn)(void *userdata, const struct hash_job *job);

int hasher_new(struct ev_loop *loop, hasher_done_fn done, void *userdata, struct hasher **ret);
/* Stops the thread; the files still waiting (and the one being read) are
 * given back unread, content.skipped "stopped". NULL. */
struct hasher *hasher_free(struct hasher *h);
void hasher_set_limits(struct hasher *h, const struct hasher_limits *l);
void hasher_get_stats(const struct hasher *h, struct hasher_stats *ret);

/*
 * Hash fd's file (O_PATH, a regular file's; taken: closed by the hasher)
 * for rule, as path, after events mask of event_usec. A file of the same
 * rule under the same path still waiting (not yet being read) takes this
 * one's events instead
 * (one read gives what it holds after both): 1; not a change waiting for
 * dpkg's word (pkg_id, not 0: the MD5 is read too, and it is its own). Else 0, queued; or, the
 * queue full, queued as skipped "backlog" (fd closed): its record still
 * comes in order. skipped non-NULL: nothing to read (fd -1), the record
 * says why, in order behind the files handed over before it. (Records
 * without a file wait up to HASHER_SKIPPED_MAX per queued file; beyond
 * that, in a storm behind a slow file, they go out at once, before it.)
 * -ENOMEM.
 */
int hasher_submit(struct hasher *h, int fd, const char *skipped, const char *rule, const char *path,
		  uint64_t mask, uint64_t event_usec, uint64_t pkg_id);

/* What reading files takes: a buffer and a digest context, made once per
 * thread. */
struct hash_reader {
	unsigned char *buf;
	size_t size;
	struct evp_md_ctx_st *md, *md5; /* (libcrypto's EVP_MD_CTX) */
};

int hash_reader_init(struct hash_reader *rd);
void hash_reader_done(struct hash_reader *rd);

/* One fd's file, as the hasher reads it (the thread's work, for tests):
 * fd any fd of it (O_PATH too), max_size and rate as in the limits, stop
 * (NULL: never) polled while it waits for the rate; fills ret, and md5
 * (not NULL) with its MD5 too (dpkg's md5sums): true when it did. */
bool hasher_hash_fd(struct hash_reader *rd, int fd, uint64_t max_size, uint64_t rate,
		    const volatile bool *stop, struct record_content *ret, unsigned char *md5);
