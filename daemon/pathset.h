/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pathset.h — whether a path is covered by a set of paths and patterns: a
 * rule's exclusions, a permission policy's scopes and exclusions, a
 * decision's paths. One place decides it for notification matching, tree
 * walks, rescans and permission decisions.
 *
 * Paths are kept in a hash map by path with what each covers (the path
 * itself, its direct children, everything below it); a query looks up the
 * path and each of its ancestors, hashing the path once as it goes: O(the
 * path's length) whatever the set's size. Patterns (a * ? or [ in them) are
 * matched with fnmatch() against the whole path ('*' also matches '/'),
 * one by one: configs have few.
 *
 * A built set is only read: several threads may query it at once (the
 * permission thread queries policies the main thread built).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* What an entry covers, besides what other entries cover. */
enum {
	PATHSET_SELF = 1 << 0,     /* the path itself */
	PATHSET_CHILDREN = 1 << 1, /* its direct children */
	PATHSET_BELOW = 1 << 2,    /* everything below it (children included) */
	PATHSET_TREE = PATHSET_SELF | PATHSET_BELOW,
};

struct pathset {
	struct strmap paths; /* path -> struct pathset_entry */
	char **patterns;     /* fnmatch() patterns */
	size_t n_patterns;
	size_t n_paths;
	struct pathset_entry **entries; /* (owned, for pathset_done()) */
};

/* Add an absolute path (no trailing '/' but for "/" itself) covering what
 * `cover` says; adding a path twice covers the union. -ENOMEM, or -EINVAL
 * for a relative path. */
int pathset_add(struct pathset *s, const char *path, unsigned cover);
/* Add a pattern as configs write them: a glob (a * ? or [ in it), or an
 * absolute path covering itself and everything below it. */
int pathset_add_pattern(struct pathset *s, const char *pattern);
/* ... and, for a path that exists, its resolved form where that differs
 * (resolve_canonical(): a directory reached through a symlink only root
 * controls is covered by both names). */
int pathset_add_pattern_resolved(struct pathset *s, const char *pattern);

/* Whether path (absolute) is covered: by a path entry, or a pattern. */
bool pathset_has(const struct pathset *s, const char *path);
/* ... by a path entry only (a tree walk prunes what a path covers; a
 * pattern may match files below a directory it does not match). */
bool pathset_has_path(const struct pathset *s, const char *path);
bool pathset_empty(const struct pathset *s);

void pathset_done(struct pathset *s);
