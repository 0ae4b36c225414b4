/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.h — the mount table, watched: the daemon's /proc/self/mountinfo
 * is polled for POLLPRI (the kernel's "this namespace's mounts changed"),
 * read again a moment after a change (bursts of mounts are one), and what
 * went and what came is handed to a callback. No fd on any mount is held:
 * only /proc/self/mountinfo is open.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ev_loop;

struct mount_entry {
	uint64_t id; /* the mount ID (unique system-wide while mounted) */
	dev_t dev;   /* its filesystem's st_dev (MAJ:MIN) */
	char *point; /* where it is mounted, as this namespace sees it (raw bytes) */
};

/*
 * Parse mountinfo text (proc(5)): the mount ID and the mount point of each
 * line, the point's octal escapes (\040 \011 \012 \134) undone. Lines that
 * do not parse are skipped. The entries come sorted by ID. Returns 0 or
 * -ENOMEM; free with mount_entries_free().
 */
int mountinfo_parse(const char *text, size_t len, struct mount_entry **ret, size_t *ret_n);
void mount_entries_free(struct mount_entry *v, size_t n);

/* The entry with this ID in a sorted vector, or NULL. */
const struct mount_entry *mount_entries_find(const struct mount_entry *v, size_t n, uint64_t id);

struct mountwatch;

/* gone: mounts no longer in the table; added: mounts new in it (each
 * sorted by ID, valid during the call). */
typedef void (*mountwatch_fn)(const struct mount_entry *gone, size_t n_gone,
			      const struct mount_entry *added, size_t n_added, void *userdata);

/* Read the table and watch it. -errno when /proc/self/mountinfo cannot be
 * read or polled. */
int mountwatch_new(struct ev_loop *loop, mountwatch_fn fn, void *userdata, struct mountwatch **ret);
/* Accepts NULL; returns NULL. */
struct mountwatch *mountwatch_free(struct mountwatch *mw);
/* The mount point of a mount of the table as last read, or NULL. */
const char *mountwatch_point(const struct mountwatch *mw, uint64_t id);
/* The mount a path is on as far as the table says, without touching the
 * path (it may be on a hung filesystem): the mount whose point is the
 * longest prefix of path, the newest of those mounted on the same point.
 * false when the table is empty. */
bool mountwatch_lookup(const struct mountwatch *mw, const char *path, uint64_t *ret_id,
		       dev_t *ret_dev);
/* Read the table now (and call the callback for what changed). */
void mountwatch_refresh(struct mountwatch *mw);
