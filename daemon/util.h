/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h — small helpers the daemon's modules share: paths, string
 * vectors, a string map, clocks (and, through shared/fsn-util.h, the
 * cleanup attributes, ELEMENTSOF() and the hash of lib, bench and tests).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "fsn-util.h"
#include "hashmap.h"

/* path is dir itself (when self) or below it: directly (!recursive) or at
 * any depth. dir "/" is a prefix of everything. */
bool path_in(const char *path, const char *dir, bool recursive, bool self);
/* A string with * ? or [ is an fnmatch() pattern. */
bool is_glob(const char *s);
/* fn(arg) in a thread of its own that blocks every signal (signals are the
 * main thread's): 0 or -errno. */
int thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* realpath(), or a copy of path where that fails; NULL only without memory. */
char *canonical(const char *path);
void strv_free(char **v, size_t n);
/* Up to len - 1 bytes of a small file (a /proc or /sys file), NUL-terminated:
 * the count, or -errno. */
ssize_t read_small(const char *path, char *buf, size_t len);
/* Copy of n strings; NULL without memory (also for n == 0: an empty vector
 * is a valid allocation). */
char **strv_copy(char *const *v, size_t n);
/* n bytes as 2n lower-case hex digits and a NUL in out. */
void hex_encode(const void *data, size_t n, char *out);
/* fd (any fd of the file, O_PATH or write-only too) opened again for
 * reading: through /proc/self/fd, the same inode whatever its name is now;
 * O_NOATIME where the daemon may (it needs CAP_FOWNER for a file it does
 * not own), else without. The fd, or -errno. */
int reopen_for_reading(int fd);

/* The daemon's state: its directory dir, made 0700 if missing, or a file
 * name in it (dfd, or AT_FDCWD with name a path; dir NULL then), made 0600
 * if missing, open(2) flags O_RDWR and flags (O_APPEND). Each opened with
 * O_NOFOLLOW and checked on what was opened: the daemon user's, the
 * directory writable by nobody else, the file regular with one link (its
 * mode set to 0600). The fd, or -errno with err saying why and where. */
int state_dir_open(const char *dir, char *err, size_t errlen);
int state_file_open(int dfd, const char *dir, const char *name, int flags, char *err,
		    size_t errlen);

/*
 * A hash map from byte-string keys to pointers, for the O(1) lookups of
 * planning and reloading (probes by filesystem, old marks by rule and
 * path, rules by name): an entry a node of shared/hashmap.h's table. Keys
 * are borrowed: they must outlive their entry. A key may be put several
 * times; strmap_get() gives the entry put last, strmap_next() the one put
 * before it under the same key.
 */
struct strmap_entry {
	struct fsn_hnode node; /* in the map; node.hash: hash_bytes() of the key */
	const void *key;
	size_t klen;
	void *value;
};

struct strmap {
	struct fsn_hmap map;
};

int strmap_put(struct strmap *m, const void *key, size_t klen, void *value);
struct strmap_entry *strmap_get(const struct strmap *m, const void *key, size_t klen);
/* strmap_get() with the key's hash already known: hash_bytes(HASH_INIT, key,
 * klen), which can be carried from a key to a longer one (the prefixes of a
 * path in one pass). */
struct strmap_entry *strmap_get_hashed(const struct strmap *m, const void *key, size_t klen,
				       uint64_t hash);
struct strmap_entry *strmap_next(const struct strmap_entry *e);
/* The value of strmap_get(), NULL if there is none. */
void *strmap_value(const struct strmap *m, const void *key, size_t klen);
/* How many entries (a key put twice counts twice). */
size_t strmap_size(const struct strmap *m);
void strmap_done(struct strmap *m);
/* NUL-terminated keys */
#define strmap_put_str(m, s, v) strmap_put((m), (s), strlen(s), (v))
#define strmap_value_str(m, s) strmap_value((m), (s), strlen(s))

uint64_t now_realtime_usec(void);
uint64_t now_monotonic_usec(void);
uint64_t now_monotonic_sec(void); /* coarse */
