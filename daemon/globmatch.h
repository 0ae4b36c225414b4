/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * globmatch.h — a glob compiled once and matched against paths in time
 * linear in the path (globmatch.c): the path filter of the control
 * socket's Watch, which runs on the event loop for every record and every
 * subscriber, so no pattern may make it slow. Pure, no state.
 *
 * The syntax is fnmatch(3)'s with flags 0 in the C locale (the daemon's),
 * and a pattern it accepts matches exactly the strings fnmatch() matches
 * (tests/unit/test-glob.c compares them):
 *
 *   *        any bytes, none or many, '/' and a leading '.' included
 *   ?        any one byte
 *   [...]    one byte of a set: single bytes, ranges a-z (by byte value),
 *            classes [:alnum:] [:alpha:] [:blank:] [:cntrl:] [:digit:]
 *            [:graph:] [:lower:] [:print:] [:punct:] [:space:] [:upper:]
 *            [:xdigit:] (ASCII); '!' or '^' first takes the complement;
 *            ']' first is a member, '-' first or last is one; '\' makes
 *            the next byte a member
 *   \c       the byte c itself
 *   others   themselves
 *
 * Refused (where fnmatch() matches nothing, or something its author
 * hardly meant): a '[' without its ']', a '\' at the end, an unknown
 * class name, '[:' that starts no class, equivalence classes [=c=] and
 * collating symbols [.c.], a range ending in "[:", "[=" or "[.", and
 * patterns longer than GLOBMATCH_MAX bytes.
 *
 * Cost: compiling takes O(256 × length) time, and memory for a table of
 * 256 rows of length / 64 + 1 words and the runs (2 KiB to 51 KiB).
 * Matching a path of n bytes takes at most n × W + T steps, one step a
 * 64-bit AND or shift, or an item tested: T is the number of items (at
 * most the pattern's length), W the words of the bit vector of its
 * longest run of items without '*' (at most GLOBMATCH_MAX / 64 + 1 = 17).
 * The first run is tested at the path's start, the last at its end, the
 * others are found leftmost first by a bit-parallel scan (shift-and):
 * nothing is tried twice, so the path is read once, whatever the pattern.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest pattern accepted, in bytes. */
#define GLOBMATCH_MAX 1024

struct globmatch;

/* Compile pattern: 0, -E2BIG (longer than GLOBMATCH_MAX bytes), -EINVAL
 * (*why says what is wrong, a static string) or -ENOMEM. */
int globmatch_new(const char *pattern, struct globmatch **ret, const char **why);
struct globmatch *globmatch_free(struct globmatch *g);

/* Whether the n bytes of s match g as a whole (fnmatch(pattern, s, 0) ==
 * 0 for a NUL-free s). When steps is not NULL, the steps taken are added
 * to *steps (the cost stated above; for tests). */
bool globmatch_match(const struct globmatch *g, const char *s, size_t n, uint64_t *steps);
