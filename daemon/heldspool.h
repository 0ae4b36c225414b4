/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * heldspool.h — event records a rule with packages "drop" holds for dpkg's
 * word, kept on disk too (STATE_DIRECTORY/held), so that a daemon killed
 * while it holds them (SIGKILL, a crash, power kept) reports them at its
 * next start instead of losing them.
 *
 * The file is root's, 0600, in the state directory (0700): a line per held
 * record ("H id time_usec mask pid RULE PATH", the two names in hex, so
 * that any byte of a filename survives and no line can break), a line per
 * record let go ("D id": reported or dropped as dpkg's verified work); it
 * is emptied whenever nothing is held. Lines are written with write(2)
 * (the page cache outlives a killed process; no fsync per record).
 */
#ifndef FSND_HELDSPOOL_H
#define FSND_HELDSPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct heldspool;

/* What a previous run held and never let go. */
struct held_entry {
	uint64_t time_usec;
	uint64_t mask;
	pid_t pid;
	const char *rule, *path;
};

/* The spool of state_dir (made 0700 if missing): NULL with err set when
 * it cannot be opened safely (the directory or the file not root's, not
 * a directory or regular file, group- or world-writable). Records held by
 * a previous run are handed to fn first, oldest first, then forgotten. */
struct heldspool *heldspool_open(const char *state_dir,
				 void (*fn)(void *arg, const struct held_entry *h), void *arg,
				 char *err, size_t errlen);
struct heldspool *heldspool_close(struct heldspool *s);

/* Record id, held: 0 or -errno (then it is held in memory only, logged). */
int heldspool_add(struct heldspool *s, uint64_t id, const struct held_entry *h);
/* Record id let go. */
void heldspool_done(struct heldspool *s, uint64_t id);

#endif
