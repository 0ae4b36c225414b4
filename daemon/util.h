/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h — small helpers the daemon's modules share: paths, string
 * vectors, clocks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* path is dir itself (when self) or below it: directly (!recursive) or at
 * any depth. dir "/" is a prefix of everything. */
bool path_in(const char *path, const char *dir, bool recursive, bool self);
/* A string with * ? or [ is an fnmatch() pattern. */
bool is_glob(const char *s);
/* path matches pattern: a glob matched against the whole path ('*' also
 * matches '/'), or an absolute path, which matches itself and everything
 * below it. */
bool path_matches(const char *path, const char *pattern);
/* realpath(), or a copy of path where that fails; NULL only without memory. */
char *canonical(const char *path);
void strv_free(char **v, size_t n);
/* Up to len - 1 bytes of a small file (a /proc or /sys file), NUL-terminated:
 * the count, or -errno. */
ssize_t read_small(const char *path, char *buf, size_t len);
/* Copy of n strings; NULL without memory (also for n == 0: an empty vector
 * is a valid allocation). */
char **strv_copy(char *const *v, size_t n);

/* FNV-1a of n bytes, continuing from h (start with HASH_INIT). */
#define HASH_INIT 1469598103934665603ull
uint64_t hash_bytes(uint64_t h, const void *data, size_t n);

uint64_t now_realtime_usec(void);
uint64_t now_monotonic_usec(void);
uint64_t now_monotonic_sec(void); /* coarse */
