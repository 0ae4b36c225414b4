/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fidcache.c — struct fsn_fidcache (see fidcache-private.h; internal, not
 * exported): a bounded map (tag, FID) -> path. An intrusive hash table
 * (shared/hashmap.c) finds an entry by its key, a list in order of use
 * picks the one to evict, and an index of the cached paths by directory (a
 * path trie per tag, below) finds what is at or below a path, so that
 * forgetting a directory visits its own entries and no others.
 *
 * User: the context's FID -> path cache (path.c): tag 0 the path an object
 * had, for when it has gone; a fanotify group's id the directory paths
 * fsn_ctx_event_dir_path() serves for that group.
 *
 * The path index. Split at every '/', a path is a list of components
 * ("/a/b": "", "a", "b"; "a/": "a", ""), and "path is dir, or below dir"
 * (path is dir, or starts with dir and a '/') is exactly "path's list
 * starts with dir's": "/a" is above "/a/b", not above "/ab". So the paths
 * of a tag form a trie of components under the tag's root node. It is
 * compressed: a node is a path some entry has (its entries hang on it,
 * and it holds the string: an entry's path is its node's) or a path where
 * two branches part; an edge between them may skip components. A node
 * that is neither is merged away as soon as it is one, so a tag has at most
 * twice as many nodes as distinct paths, plus its root: the index's memory
 * is bounded by the entries', whatever the paths. A child is found by
 * (tag, parent, its first component below the parent) in a second hash
 * table. Finding, adding or removing a path costs O(its length); what
 * eviction and forgetting free was paid for by the puts that made it.
 */
#include "ctx-private.h"

/* A link of the circular list in order of use; the cache's own link is the
 * list head, so no link is ever NULL. */
struct fidcache_entry {
	struct fsn_hnode node; /* c->map, by (tag, fid) */
	struct lru_link lru;
	struct pnode *at;                         /* the index node of its path */
	struct fidcache_entry *at_prev, *at_next; /* the other entries at that node */
	unsigned tag;
	struct fsn_fid fid;
};

/* A node of the path index (see the top of the file). */
struct pnode {
	struct fsn_hnode node; /* c->nodes, by (tag, parent, path[key_off, key_off + key_len)) */
	struct pnode *parent;  /* NULL: the tag's root */
	struct pnode *children;
	struct pnode *prev, *next; /* among its parent's children */
	struct fidcache_entry *entries;
	unsigned tag;
	size_t key_off, key_len; /* its first component below its parent */
	size_t len;
	char path[]; /* len bytes and a NUL (a root: "") */
};

struct fsn_fidcache {
	struct fsn_hmap map;
	struct fsn_hmap nodes;
	struct lru_link lru; /* next: most recently used, prev: least */
	size_t n, max;
	size_t n_nodes;
	uint64_t visits; /* entries and nodes the forget walks visited */
	/* the entry the last fsn_fidcache_get() found (NULL: none, or gone):
	 * a storm's events come in runs of one directory */
	struct fidcache_entry *last;
};

/* fsid, handle_bytes, handle_type and the handle's bytes: contiguous at the
 * start of struct fsn_fid, what fsn_fid_equal() compares. */
_Static_assert(offsetof(struct fsn_fid, f_handle) ==
		   sizeof(int32_t[2]) + sizeof(uint32_t) + sizeof(int32_t),
	       "struct fsn_fid's key has no padding");

static uint64_t key_hash(unsigned tag, const struct fsn_fid *fid) {
	return hash_block(HASH_INIT + tag, fid,
			  offsetof(struct fsn_fid, f_handle) + fid->handle_bytes);
}

/* fid must have handle_bytes <= FSN_HANDLE_MAX (checked by the callers). */
/* h: key_hash(tag, fid) */
static struct fidcache_entry *find(const struct fsn_fidcache *c, unsigned tag,
				   const struct fsn_fid *fid, uint64_t h) {
	for (struct fsn_hnode *n = fsn_hmap_chain(&c->map, h); n; n = n->next) {
		struct fidcache_entry *e = container_of(n, struct fidcache_entry, node);

		if (n->hash == h && e->tag == tag && fsn_fid_equal(&e->fid, fid))
			return e;
	}
	return NULL;
}

static struct fidcache_entry *entry_of(struct lru_link *l) {
	return container_of(l, struct fidcache_entry, lru);
}

/* Make e the most recently used (e may be linked or not yet). */
static void touch(struct fsn_fidcache *c, struct fidcache_entry *e) {
	lru_touch(&c->lru, &e->lru);
}

/* ---- the path index ---- */

/* Where the component of path[0, len) that starts at off ends. */
static size_t comp_end(const char *path, size_t len, size_t off) {
	const char *slash = memchr(path + off, '/', len - off);

	return slash ? (size_t)(slash - path) : len;
}

static uint64_t node_hash(unsigned tag, const struct pnode *parent, const char *key, size_t len) {
	uint64_t h = hash_bytes(HASH_INIT, &tag, sizeof(tag));

	h = hash_bytes(h, &parent, sizeof(parent));
	return hash_bytes(h, key, len);
}

/* The child of parent (NULL: tag's root) whose first component is key. */
static struct pnode *child_of(const struct fsn_fidcache *c, unsigned tag,
			      const struct pnode *parent, const char *key, size_t len) {
	uint64_t h = node_hash(tag, parent, key, len);

	for (struct fsn_hnode *hn = fsn_hmap_chain(&c->nodes, h); hn; hn = hn->next) {
		struct pnode *n = container_of(hn, struct pnode, node);

		if (hn->hash == h && n->parent == parent && n->tag == tag && n->key_len == len &&
		    memcmp(n->path + n->key_off, key, len) == 0)
			return n;
	}
	return NULL;
}

static struct pnode *root_of(const struct fsn_fidcache *c, unsigned tag) {
	return child_of(c, tag, NULL, "", 0);
}

/* A node for path[0, len), not linked yet. */
static struct pnode *node_alloc(unsigned tag, const char *path, size_t len) {
	struct pnode *n;

	if (len > SIZE_MAX - sizeof(*n) - 1)
		return NULL;
	n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	n->tag = tag;
	n->len = len;
	memcpy(n->path, path, len);
	return n;
}

/* Link n under parent (NULL: as its tag's root) by its first component
 * below parent. Fails only while the table has no buckets, i.e. for the
 * first node of all. */
static int node_link(struct fsn_fidcache *c, struct pnode *n, struct pnode *parent) {
	int r;

	n->key_off = parent ? (parent->parent ? parent->len + 1 : 0) : 0;
	n->key_len = parent ? comp_end(n->path, n->len, n->key_off) - n->key_off : 0;
	r = fsn_hmap_put(&c->nodes, &n->node,
			 node_hash(n->tag, parent, n->path + n->key_off, n->key_len));
	if (r < 0)
		return r;
	n->parent = parent;
	n->prev = NULL;
	n->next = parent ? parent->children : NULL;
	if (n->next)
		n->next->prev = n;
	if (parent)
		parent->children = n;
	c->n_nodes++;
	return 0;
}

/* Take n out of the index (its place and its table slot; not its children). */
static void node_unlink(struct fsn_fidcache *c, struct pnode *n) {
	fsn_hmap_remove(&c->nodes, &n->node);
	if (n->prev)
		n->prev->next = n->next;
	else if (n->parent)
		n->parent->children = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->prev = n->next = NULL;
	c->n_nodes--;
}

/* n has no entries and one child: the child takes its place. */
static void node_merge(struct fsn_fidcache *c, struct pnode *n) {
	struct pnode *child = n->children, *parent = n->parent;

	node_unlink(c, child);
	node_unlink(c, n);
	free(n);
	/* (cannot fail: the table has buckets, it held both) */
	(void)node_link(c, child, parent);
}

/* After n lost an entry or a child: free it if it holds nothing, merge it
 * away if it only joins its one child to its parent; then its parent, which
 * may have lost a child. */
static void node_settle(struct fsn_fidcache *c, struct pnode *n) {
	while (n && !n->entries) {
		struct pnode *parent = n->parent;

		if (n->children && (n->children->next || !parent))
			return; /* parts branches (or is a root with some) */
		if (n->children) {
			node_merge(c, n); /* (its parent keeps as many children) */
			return;
		}
		node_unlink(c, n);
		free(n);
		n = parent;
	}
}

/*
 * The length of the longest common prefix of paths a[0, la) and b[0, lb)
 * that ends at a component boundary in both (at the end, or before a '/'),
 * given that they agree up to from and both end or have a '/' at from.
 */
static size_t common_prefix(const char *a, size_t la, const char *b, size_t lb, size_t from) {
	size_t m = from;

	for (size_t i = from; i < la && i < lb && a[i] == b[i];) {
		i++;
		if ((i == la || a[i] == '/') && (i == lb || b[i] == '/'))
			m = i;
	}
	return m;
}

/* The node of tag where what is at or below path[0, len) starts: the
 * subtree of the node returned holds exactly those paths. NULL: none.
 * *exact: its path is path[0, len) itself (else it is below). */
static struct pnode *node_find(const struct fsn_fidcache *c, unsigned tag, const char *path,
			       size_t len, bool *exact) {
	struct pnode *n = root_of(c, tag);
	size_t off = 0;

	while (n) {
		size_t end = comp_end(path, len, off), m;
		struct pnode *child = child_of(c, tag, n, path + off, end - off);

		if (!child)
			return NULL;
		m = common_prefix(child->path, child->len, path, len, end);
		if (m == len) {
			*exact = child->len == len;
			return child;
		}
		if (m < child->len)
			return NULL; /* parts from path below n */
		n = child;
		off = m + 1;
	}
	return NULL;
}

/* The node of path[0, len) of tag, made (with its tag's root, and the
 * node where it parts from a branch) if missing. NULL: out of memory, and
 * nothing changed. */
static struct pnode *node_make(struct fsn_fidcache *c, unsigned tag, const char *path, size_t len) {
	struct pnode *n = root_of(c, tag);
	size_t off = 0;

	if (!n) {
		n = node_alloc(tag, "", 0);
		if (!n)
			return NULL;
		if (node_link(c, n, NULL) < 0) {
			free(n);
			return NULL;
		}
	}
	for (;;) {
		size_t end = comp_end(path, len, off), m;
		struct pnode *child = child_of(c, tag, n, path + off, end - off), *fork, *leaf;

		if (!child) { /* a new branch of n */
			leaf = node_alloc(tag, path, len);
			if (!leaf || node_link(c, leaf, n) < 0) {
				free(leaf);
				node_settle(c, n); /* (a root made above) */
				return NULL;
			}
			return leaf;
		}
		m = common_prefix(child->path, child->len, path, len, end);
		if (m == child->len) {
			if (m == len)
				return child;
			n = child;
			off = m + 1;
			continue;
		}
		/* path parts from child's edge at m (or ends there): a node
		 * at m, between n and child */
		fork = node_alloc(tag, path, m);
		leaf = m < len ? node_alloc(tag, path, len) : NULL;
		if (!fork || (m < len && !leaf)) {
			free(fork);
			free(leaf);
			return NULL; /* (n has child: nothing to settle) */
		}
		node_unlink(c, child);
		/* (cannot fail: the table has buckets) */
		(void)node_link(c, fork, n);
		(void)node_link(c, child, fork);
		if (!leaf)
			return fork;
		(void)node_link(c, leaf, fork);
		return leaf;
	}
}

static void entry_attach(struct fidcache_entry *e, struct pnode *n) {
	e->at = n;
	e->at_prev = NULL;
	e->at_next = n->entries;
	if (e->at_next)
		e->at_next->at_prev = e;
	n->entries = e;
}

static void entry_detach(struct fidcache_entry *e) {
	if (e->at_prev)
		e->at_prev->at_next = e->at_next;
	else
		e->at->entries = e->at_next;
	if (e->at_next)
		e->at_next->at_prev = e->at_prev;
	e->at = NULL;
}

/* Free e, leaving its node as it is (the caller settles it). */
static void drop_entry(struct fsn_fidcache *c, struct fidcache_entry *e) {
	if (c->last == e)
		c->last = NULL;
	fsn_hmap_remove(&c->map, &e->node);
	lru_unlink(&e->lru);
	entry_detach(e);
	c->n--;
	free(e);
}

static void drop(struct fsn_fidcache *c, struct fidcache_entry *e) {
	struct pnode *at = e->at;

	drop_entry(c, e);
	node_settle(c, at);
}

static void drop_entries_at(struct fsn_fidcache *c, struct pnode *n) {
	while (n->entries) {
		drop_entry(c, n->entries);
		c->visits++;
	}
}

/* Drop the entries of every node below top, and top's own if self; free
 * those nodes, settle top. Visits nothing else. */
static void drop_below(struct fsn_fidcache *c, struct pnode *top, bool self) {
	struct pnode *n = top;

	/* depth first, each node freed once its children are */
	while (n != top || top->children) {
		struct pnode *parent = n->parent;

		if (n->children) {
			n = n->children;
			continue;
		}
		drop_entries_at(c, n);
		node_unlink(c, n);
		free(n);
		c->visits++;
		n = parent;
	}
	if (self)
		drop_entries_at(c, top);
	c->visits++;
	node_settle(c, top);
}

/* Drop the entries of tag whose path is below dir[0, len) (or it, if self). */
static void forget(struct fsn_fidcache *c, unsigned tag, const char *dir, size_t len, bool self) {
	bool exact = false;
	struct pnode *n = node_find(c, tag, dir, len, &exact);

	/* (a node below dir: all of it is below) */
	if (n)
		drop_below(c, n, self || !exact);
}

/* ---- the cache ---- */

int fsn_fidcache_new(size_t max, struct fsn_fidcache **ret) {
	struct fsn_fidcache *c;

	if (max == 0 || !ret)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->max = max;
	lru_init(&c->lru);
	*ret = c;
	return 0;
}

void fsn_fidcache_clear(struct fsn_fidcache *c) {
	if (!c)
		return;
	while (c->lru.next != &c->lru)
		drop(c, entry_of(c->lru.next));
}

struct fsn_fidcache *fsn_fidcache_free(struct fsn_fidcache *c) {
	if (!c)
		return NULL;
	fsn_fidcache_clear(c);
	fsn_hmap_done(&c->map);
	fsn_hmap_done(&c->nodes);
	free(c);
	return NULL;
}

const char *fsn_fidcache_get(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid) {
	struct fidcache_entry *e;

	if (!c || !fid || fid->handle_bytes > FSN_HANDLE_MAX)
		return NULL;
	e = c->last;
	if (e && e->tag == tag && fsn_fid_equal(&e->fid, fid))
		return e->at->path; /* (the most recently used already, unless
				     * puts came between: then nearly) */
	e = find(c, tag, fid, key_hash(tag, fid));
	if (!e)
		return NULL;
	touch(c, e);
	c->last = e;
	return e->at->path;
}

int fsn_fidcache_put(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid,
		     const char *path) {
	struct fidcache_entry *e;
	struct pnode *at;
	uint64_t h;
	int r;

	if (!c || !fid || !path || fid->handle_bytes > FSN_HANDLE_MAX)
		return -EINVAL;

	h = key_hash(tag, fid);
	e = find(c, tag, fid, h);
	if (e) {
		if (strcmp(e->at->path, path) != 0) {
			struct pnode *old = e->at;

			at = node_make(c, tag, path, strlen(path));
			if (!at) {
				drop(c, e); /* never keep the old path instead */
				return -ENOMEM;
			}
			entry_detach(e);
			entry_attach(e, at);
			node_settle(c, old);
		}
		touch(c, e);
		return 0;
	}

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->tag = tag;
	memcpy(e->fid.fsid, fid->fsid, sizeof(e->fid.fsid));
	e->fid.handle_bytes = fid->handle_bytes;
	e->fid.handle_type = fid->handle_type;
	memcpy(e->fid.f_handle, fid->f_handle, fid->handle_bytes);

	at = node_make(c, tag, path, strlen(path));
	if (!at) {
		free(e);
		return -ENOMEM;
	}
	r = fsn_hmap_put(&c->map, &e->node, h);
	if (r < 0) {
		free(e);
		node_settle(c, at);
		return r;
	}
	entry_attach(e, at);
	/* only now that it is in: a failed insert evicts nothing */
	if (c->n >= c->max)
		drop(c, entry_of(c->lru.prev));
	touch(c, e);
	c->n++;
	return 0;
}

void fsn_fidcache_forget_fid(struct fsn_fidcache *c, unsigned tag, const struct fsn_fid *fid) {
	struct fidcache_entry *e;
	struct pnode *at;
	size_t len;

	if (!c || !fid || fid->handle_bytes > FSN_HANDLE_MAX)
		return;
	e = find(c, tag, fid, key_hash(tag, fid));
	if (!e)
		return;
	/* at stays until the walk has found where to start (drop_entry()
	 * settles nothing); it is at or below that node, so the walk frees or
	 * settles it */
	at = e->at;
	len = at->len;
	if (len > 0 && at->path[len - 1] == '/')
		len--;
	drop_entry(c, e);
	c->visits++;
	forget(c, tag, at->path, len, false);
}

void fsn_fidcache_forget_path(struct fsn_fidcache *c, unsigned tag, const char *path) {
	size_t len;

	if (!c || !path)
		return;
	len = strlen(path);
	if (len > 0 && path[len - 1] == '/')
		len--;
	forget(c, tag, path, len, true);
}

void fsn_fidcache_forget_tag(struct fsn_fidcache *c, unsigned tag) {
	struct pnode *root = c ? root_of(c, tag) : NULL;

	if (root)
		drop_below(c, root, false);
}

size_t fsn_fidcache_size(const struct fsn_fidcache *c) {
	return c ? c->n : 0;
}

void fsn_fidcache_get_stats(const struct fsn_fidcache *c, struct fsn_fidcache_stats *ret) {
	*ret = (struct fsn_fidcache_stats){ 0 };
	if (c) {
		ret->entries = c->n;
		ret->nodes = c->n_nodes;
		ret->visits = c->visits;
	}
}
