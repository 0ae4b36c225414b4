/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolve.h — a rule's path resolved one component at a time, the way the
 * daemon (root, next to hostile local users) may follow it: every
 * component opened with O_PATH | O_NOFOLLOW from the directory before it,
 * and a symlink followed only when root (or the daemon's own user) owns it
 * and its directory, and no one else can write to that directory (so no
 * other user can have put it there or change it). /bin -> usr/bin on a
 * merged-/usr system and /etc/alternatives/ links are followed; a symlink
 * a user made in a directory of theirs is not.
 *
 * The planner (plan.c), the marks (engine-marks.c: a mark is placed on the object
 * the walk opened, through its fd), the permission rules (engine-perm.c)
 * and the waiters for missing paths (engine-load.c) all resolve with
 * path_resolve(), so they agree on what a path names and where it stops.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fsn.h"

enum {
	RESOLVE_MKDIR = 1u << 0,    /* make missing directories (mode 0755) on the way */
	RESOLVE_NOFOLLOW = 1u << 1, /* a symlink at the end is the object, not followed */
	RESOLVE_LINKS = 1u << 2,    /* list the symlinks followed (links, n_links) */
};

/* At most this many symlinks followed in one walk (the kernel's MAXSYMLINKS). */
#define RESOLVE_MAX_LINKS 40

enum resolve_stop {
	RESOLVE_OK,      /* resolved: fd, st, path */
	RESOLVE_MISSING, /* a component does not exist (error -ENOENT) */
	RESOLVE_REFUSED, /* a symlink not followed (error -ELOOP): link_uid, dir_uid, dir_mode */
	RESOLVE_FAILED,  /* anything else: error (-ENOTDIR, -EACCES, -ELOOP for too
			  * many symlinks, -ENAMETOOLONG, -ENOMEM, ...) */
};

struct resolved {
	enum resolve_stop stop;
	int error; /* 0, or the negative errno path_resolve() returned */
	int fd;    /* RESOLVE_OK: O_PATH | O_CLOEXEC fd of the object; else -1 */
	/* RESOLVE_MISSING, RESOLVE_REFUSED: O_PATH | O_CLOEXEC fd of the
	 * directory the walk stopped in (path); else -1 */
	int dir_fd;
	struct stat st;     /* RESOLVE_OK: the object's stat */
	struct stat dir_st; /* RESOLVE_OK: the stat of the directory holding it */
	/* RESOLVE_OK: the object's path, free of symlinks; else the deepest
	 * directory the walk reached (free of symlinks too) */
	char *path;
	/* not RESOLVE_OK: the component of path where the walk stopped (the
	 * missing name, the refused symlink); NULL when it stopped elsewhere */
	char *name;
	/* RESOLVE_REFUSED: who owns the symlink and its directory, the
	 * directory's mode, and whose symlinks were trusted (self) */
	uid_t link_uid, dir_uid, self;
	mode_t dir_mode;
	/* RESOLVE_LINKS: the symlinks the walk followed, by their paths (their
	 * directories' paths are free of symlinks), in the order followed */
	char **links;
	size_t n_links;
};

/* A struct resolved that resolved_done() may be called on before
 * path_resolve() filled it. */
#define RESOLVED_NULL ((struct resolved){ .fd = -1, .dir_fd = -1 })

/*
 * Resolve the absolute path, trusting symlinks of root and of self (the
 * daemon's effective uid; tests pass another) as described above. Returns
 * 0 (ret->stop == RESOLVE_OK), or a negative errno with ret saying where
 * and why the walk stopped. *ret is filled either way: resolved_done()
 * releases it.
 */
int path_resolve(const char *path, uid_t self, unsigned flags, struct resolved *ret);
void resolved_done(struct resolved *r);

/* Whether a symlink (its stat: link) in the directory dir may be followed. */
bool symlink_trusted(const struct stat *link, const struct stat *dir, uid_t self);

/* Where and why a walk that did not resolve stopped, in words, into buf:
 * "does not exist", "symlink \"/home/u/up\" not followed (uid 1000 owns
 * it; ...)", "cannot reach it: Permission denied". Returns buf. */
const char *resolved_why(const struct resolved *r, char *buf, size_t len);

/* The same after the path resolved ("\"/home/u/up\": symlink ..."), the
 * path escaped, into buf: what a mark that cannot be placed says. */
const char *resolved_says(const struct resolved *r, const char *path, char *buf, size_t len);

/* The path of a stopped walk's component (path + "/" + name, or path),
 * into buf; NULL when it does not fit. */
const char *resolved_stop_path(const struct resolved *r, char *buf, size_t len);

/* path without symlinks another user controls: the resolved path, or a
 * copy of path itself when it does not resolve; NULL only without
 * memory (the daemon's canonical() for rule paths, in place of
 * realpath()). */
char *resolve_canonical(const char *path);

/* The ID of the mount r's object is on (0: unknown). */
uint64_t resolved_mnt_id(const struct resolved *r);

/* Whether only root (or self) can remove or replace r's object (RESOLVE_OK):
 * its directory is theirs and no one else can write to it. Then its path
 * names it as long as they leave it; else an fd of it is the only stable
 * name (resolved_fd_path()). */
bool resolved_stable(const struct resolved *r, uid_t self);

/* "/proc/self/fd/N" of r->fd into buf: a name of exactly the object the
 * walk opened, as long as r is not released. */
const char *resolved_fd_path(const struct resolved *r, char *buf, size_t len);

/* What path names now, resolved as path_resolve() does (flags: its
 * RESOLVE_NOFOLLOW): its stat and, in *mnt_id, the ID of the mount it is
 * on (0: unknown). 0, or a negative errno. */
int resolve_identity(const char *path, unsigned flags, struct stat *st, uint64_t *mnt_id);

/* spec placed on the object r resolved (RESOLVE_OK): its path
 * "/proc/self/fd/N" (written to buf), not followed again, so the mark is
 * on exactly the object the walk opened and checked. */
struct fsn_mark_spec resolved_spec(const struct resolved *r, const struct fsn_mark_spec *spec,
				   char *buf, size_t len);

/* msg (libfsn's words about a mark placed with resolved_spec(), whose
 * path was fd_path) naming path instead, escaped. */
void resolved_unname(char *msg, size_t len, const char *fd_path, const char *path);
