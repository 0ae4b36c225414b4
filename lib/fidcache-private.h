/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fidcache-private.h — struct fsn_fidcache (fidcache.c): a bounded map
 * (tag, FID) -> path that remembers what a file handle resolved to, least
 * recently used first to go. The context keeps one (path.c): the cache behind
 * fsn_ctx_fid_path() and fsn_ctx_event_dir_path().
 *
 * Internal, not part of libfsn's API (its functions are hidden; the unit
 * tests link the static library): nothing outside the library uses it, and
 * what it promises — paths compared as strings, tags, forgetting by path —
 * is how the context keeps its cache right, not something a caller of
 * libfsn needs. Kept out of the ABI, it can change with the context (as
 * its path index did). See doc/architecture.md, "The split".
 *
 * It never checks a path against the filesystem; keeping it right is the
 * caller's business. tag keeps independent users apart, e.g. one per
 * fanotify group: a cache kept right by a group's rename and delete events
 * is only right in the order of that group's queue. FIDs are equal when
 * fsid, handle_type, handle_bytes and the handle_bytes bytes of f_handle
 * are; the rest of f_handle is ignored. Not thread-safe (one thread per
 * cache, like fsn_ctx).
 *
 * Costs: get is O(1) in the number of entries, put and evicting too
 * (amortised; O(length of the path) for a put); forgetting a path or a FID
 * visits only the entries at and below that path (an index of the cached
 * paths, fidcache.c), forgetting a tag only the entries of that tag. The
 * index takes at most twice as many nodes as there are entries (plus one
 * per tag), whatever the paths.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fsn.h"

struct fsn_fidcache;

/* A cache of at most max >= 1 entries (-EINVAL for 0). */
int fsn_fidcache_new(size_t max, struct fsn_fidcache **ret);
/* Free it and its entries. Accepts NULL; returns NULL. */
struct fsn_fidcache *fsn_fidcache_free(struct fsn_fidcache *c);

/* The path cached for (tag, fid), or NULL if none (or c or fid is NULL, or
 * fid->handle_bytes > FSN_HANDLE_MAX). Marks the entry most recently used.
 * The string is owned by the cache and valid until the next call on c. */
const char *fsn_fidcache_get(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid);
/* Remember path (copied) for (tag, fid), replacing what it had, and mark it
 * most recently used. A new entry in a full cache evicts the least recently
 * used. -EINVAL if c, fid or path is NULL or fid->handle_bytes >
 * FSN_HANDLE_MAX; -ENOMEM (the entry of (tag, fid), if any, is then gone:
 * never its old path). */
int fsn_fidcache_put(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid,
		     const char *path);

/*
 * A directory moved or went: forget stale paths.
 * fsn_fidcache_forget_path() drops the entries of tag whose path is path or
 * below it: "/a" drops "/a" and "/a/b" but not "/ab"; a trailing slash of
 * path does not count ("/a/" is "/a"), so "/" drops every absolute path of
 * tag. Paths are compared as strings, not resolved.
 * fsn_fidcache_forget_fid() drops the entry of (tag, fid), if any, and
 * those of tag strictly below the path it had; another FID cached with that
 * very path (an object that had it before) keeps it.
 */
void fsn_fidcache_forget_path(struct fsn_fidcache *c, unsigned tag, const char *path);
void fsn_fidcache_forget_fid(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid);
/* Drop every entry of tag (e.g. its group's queue overflowed: what it lost
 * may have moved directories). */
void fsn_fidcache_forget_tag(struct fsn_fidcache *c, unsigned tag);
/* Drop every entry. Never fails. */
void fsn_fidcache_clear(struct fsn_fidcache *c);
/* The number of entries (0 for NULL). */
size_t fsn_fidcache_size(const struct fsn_fidcache *c);

/* What the cache holds and what forgetting cost, for the unit tests. */
struct fsn_fidcache_stats {
	size_t entries;  /* as fsn_fidcache_size() */
	size_t nodes;    /* of the path index: the tags' roots, the entries' paths, branch points */
	uint64_t visits; /* entries and index nodes the forget functions visited, since new */
};

/* All zero for NULL c. */
void fsn_fidcache_get_stats(const struct fsn_fidcache *c, struct fsn_fidcache_stats *ret);
