/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-tree.c — recursive inotify trees: a recursive inotify rule gets one
 * watch per directory below its path ("sub-watches", struct emark with a
 * parent), indexed by canonical path, added as directories appear (a scan
 * of each new directory, which reports what was made in it before its
 * watch could: matcher_synth_create()) and renamed or dropped as they
 * move away or go (an IN_MOVED_FROM paired with its IN_MOVED_TO by
 * cookie). The loader walks a new tree a directory at a time (tree_scan()
 * on its queue, struct dirq); when a watch did not fit, the rule's
 * watch_limit says what stays.
 *
 * A directory is never reached by its path: each is opened in its parent,
 * from the tree's top down, without following a symlink, checked against
 * its parent's watch, and watched and read through that fd (open_watched()).
 * A directory that appeared in one that is no longer where the tree says
 * (moved, or swapped for a symlink) is followed when the move is read.
 *
 * A sub-watch is placed and removed by engine-marks.c like any mark;
 * engine-match.c hands this file the inotify events that change a tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "log.h"

/* The sub-watches of a recursive inotify mark: an array (O(1) removal by
 * position) and a hash table by canonical path (the subs' sidx_node in
 * the parent's sidx: has_sub() in O(1), so a tree of 100 000 directories
 * is placed in linear time). A sub-watch without a canonical path (no
 * memory for it) is in the array only. */
static uint64_t path_hash(const char *path) {
	return hash_bytes(HASH_INIT, path, strlen(path));
}

static int sidx_insert(struct emark *parent, struct emark *sub) {
	if (!sub->canon)
		return 0;
	return fsn_hmap_put(&parent->sidx, &sub->sidx_node, path_hash(sub->canon));
}

static void sidx_remove(struct emark *parent, struct emark *sub) {
	if (sub->canon)
		fsn_hmap_remove(&parent->sidx, &sub->sidx_node);
}

static int sub_append(struct emark *parent, struct emark *sub) {
	if (parent->n_subs == parent->subs_cap) {
		size_t cap = parent->subs_cap ? 2 * parent->subs_cap : 64;
		struct emark **v = realloc(parent->subs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		parent->subs = v;
		parent->subs_cap = cap;
	}
	if (sidx_insert(parent, sub) < 0)
		return -ENOMEM;
	sub->sub_pos = parent->n_subs;
	parent->subs[parent->n_subs++] = sub;
	return 0;
}

void sub_remove(struct emark *parent, struct emark *sub) {
	size_t i = sub->sub_pos;

	if (i >= parent->n_subs || parent->subs[i] != sub)
		return;
	sidx_remove(parent, sub);
	parent->subs[i] = parent->subs[--parent->n_subs];
	parent->subs[i]->sub_pos = i;
}

static const struct emark *find_sub(const struct emark *root, const char *path) {
	uint64_t h;

	if (fsn_hmap_size(&root->sidx) == 0)
		return NULL;
	h = path_hash(path);
	for (const struct fsn_hnode *n = fsn_hmap_chain(&root->sidx, h); n; n = n->next) {
		const struct emark *m = container_of(n, struct emark, sidx_node);

		if (n->hash == h && strcmp(m->canon, path) == 0)
			return m;
	}
	return NULL;
}

bool has_sub(const struct emark *root, const char *path) {
	return find_sub(root, path) != NULL;
}

/* ------------------------------------------------------------------------ */
/* reaching a directory of a tree                                           */
/* ------------------------------------------------------------------------ */

/* A tree's directories are reached from its top one name at a time, each
 * opened in the directory above it without following a symlink, and a
 * directory is used only while it is the one its watch is on (dev/ino). A
 * path is never resolved again as a whole: a directory renamed and replaced
 * by a symlink (or by another directory) between an event and the daemon's
 * reading of it cannot lead the daemon out of the tree, nor give a
 * directory a name that is not its own. */
#define DIR_FLAGS (O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define DIR_READ (O_RDONLY | O_NONBLOCK | DIR_FLAGS)

static bool same_inode(int fd, dev_t dev, ino_t ino) {
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* The directory rel (names separated by '/') below the directory top, with
 * flags: openat2() that follows no symlink and stays beneath top (one call,
 * the kernel walks), else (a kernel or filter without it) one openat() per
 * name, each without following a symlink. */
static int open_below(int top, const char *rel, int flags) {
	struct open_how how = {
		.flags = (uint64_t)(flags | DIR_FLAGS),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	_cleanup_close_ int fd = -1;
	int r = (int)syscall(SYS_openat2, top, rel, &how, sizeof(how));

	if (r >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
		return r >= 0 ? r : negative_errno();
	while (*rel) {
		char name[NAME_MAX + 1];
		size_t n = strcspn(rel, "/");
		int next;

		if (n == 0 || n > NAME_MAX)
			return -EINVAL;
		memcpy(name, rel, n);
		name[n] = '\0';
		rel += n;
		rel += *rel == '/';
		if (is_dot(name))
			return -EINVAL;
		next = openat(fd >= 0 ? fd : top, name, (*rel ? O_PATH : flags) | DIR_FLAGS);
		if (next < 0)
			return negative_errno();
		safe_close(fd);
		fd = next;
	}
	return steal_fd(&fd);
}

/* An fd (flags: O_PATH, or DIR_READ to read it) of the directory watch w of
 * root's tree is on, reached from root's directory along w's path in the
 * tree (open_below()); -ESTALE when root's or w's directory is not the one
 * its watch is on. */
static int open_watched(const struct emark *root, const struct emark *w, int flags) {
	const char *rel = w->canon;
	_cleanup_close_ int top = -1;
	int fd;

	if (!path_in(w->canon, root->canon, true, true))
		return -EXDEV;
	if (strlen(w->canon) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (strcmp(root->canon, "/") != 0)
		rel += strlen(root->canon);
	while (*rel == '/')
		rel++;
	top = open(root->canon, (*rel ? O_PATH : flags) | DIR_FLAGS);
	if (top < 0)
		return negative_errno();
	if (!same_inode(top, root->dev, root->ino))
		return -ESTALE;
	if (!*rel)
		return steal_fd(&top);
	fd = open_below(top, rel, flags);
	if (fd >= 0 && !same_inode(fd, w->dev, w->ino)) {
		safe_close(fd);
		return -ESTALE;
	}
	return fd;
}

int tree_open_top(const struct emark *root) {
	return open_watched(root, root, DIR_READ);
}

/* Directories a walk keeps open while it runs (never between events, so
 * no filesystem is kept busy): the parent of the directories it opens now
 * (siblings are opened in it, not each reached from the top again), and
 * the last directory it read that had subdirectories (their parent soon:
 * a deep chain is walked down, not reached from the top at every level). */
struct walk_dir {
	char *path;
	int fd;
};

struct walk {
	struct walk_dir parent, last;
};

static void walk_dir_done(struct walk_dir *w) {
	free(w->path);
	w->path = NULL;
	w->fd = safe_close(w->fd);
}

/* w becomes path, open as fd (both taken; on failure both dropped). */
static void walk_dir_set(struct walk_dir *w, char *path, int fd) {
	walk_dir_done(w);
	if (path && fd >= 0) {
		w->path = path;
		w->fd = fd;
	} else {
		free(path);
		safe_close(fd);
	}
}

static void walk_done(struct walk *wk) {
	walk_dir_done(&wk->parent);
	walk_dir_done(&wk->last);
}

/* An fd to read dir (a directory below root's, by its path in the tree)
 * by, opened in its parent: the walk's (wk, NULL: none), or the directory
 * of the parent's watch reached from the top. */
static int open_entry(const struct emark *root, const char *dir, struct walk *wk) {
	const char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : "";
	_cleanup_free_ char *parent = NULL;
	_cleanup_close_ int pfd = -1;
	const struct emark *w;
	int fd;

	if (!*name || is_dot(name) || strlen(name) > NAME_MAX)
		return -EINVAL;
	parent = slash == dir ? strdup("/") : strndup(dir, (size_t)(slash - dir));
	if (!parent)
		return -ENOMEM;
	if (wk && wk->last.path && strcmp(wk->last.path, parent) == 0) {
		walk_dir_set(&wk->parent, steal_ptr(&wk->last.path), steal_fd(&wk->last.fd));
	}
	if (wk && wk->parent.path && strcmp(wk->parent.path, parent) == 0)
		fd = opendir_at(wk->parent.fd, name);
	else {
		w = strcmp(parent, root->canon) == 0 ? root : find_sub(root, parent);
		if (!w)
			return -ENOENT; /* its parent is not watched (any more) */
		pfd = open_watched(root, w, O_PATH);
		if (pfd < 0)
			return pfd;
		fd = opendir_at(pfd, name);
		if (wk)
			walk_dir_set(&wk->parent, steal_ptr(&parent), steal_fd(&pfd));
	}
	return fd;
}

/* Place the sub-watch of dir under root, on the directory dfd is open on
 * (found through its parent: never by its path); s is the state root
 * belongs to (its limit and count). false if it is not watched (gone,
 * limit). */
bool sub_watch_add(struct engine *e, struct state *s, struct emark *root, int dfd,
		   const char *dir) {
	struct emark *sub = NULL;
	char why[1024];
	int r;

	if (emark_new(e, root->rule, &root->spec, dir, root, &sub) < 0)
		return false;
	sub->spec.flags |= FSN_MARK_F_ONLYDIR | FSN_MARK_F_DONT_FOLLOW;
	sub->spec.dirfd = dfd;
	sub->spec.path = ".";
	r = emark_place(e, sub, &s->n_placed, s->config->max_marks, why, sizeof(why));
	sub->spec.dirfd = AT_FDCWD;
	sub->spec.path = sub->path;
	if (r < 0) {
		if (r == -ENOSPC)
			root->rule->limit_hit = true; /* (see place_planned()) */
		if (r != -ENOENT && r != -ENOTDIR && !root->rule->limit_logged &&
		    !(r == -ENOSPC && e->placing_tree)) {
			/* once per rule: the tree is too big or the kernel says no;
			 * libfsn's words name the directory ".": the daemon's say
			 * which */
			root->rule->limit_logged = true;
			if (strcmp(why, e->captured) == 0)
				why[0] = e->captured[0] = '\0';
			mark_failure(e, sub, r, why[0] ? why : NULL);
		}
		emark_free(sub);
		return false;
	}
	if (sub_append(root, sub) < 0) {
		emark_unplace(e, sub, &s->n_placed);
		emark_free(sub);
		return false;
	}
	return true;
}

int dirq_push(struct dirq *q, char *path, bool self) {
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct dirq_item *v;

		if (q->head > 0) { /* reuse the consumed front first */
			memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
			q->n -= q->head;
			q->head = 0;
		}
		if (q->n == q->cap) {
			v = realloc(q->v, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			q->v = v;
			q->cap = cap;
		}
	}
	q->v[q->n++] = (struct dirq_item){ .path = path, .self = self };
	return 0;
}

bool dirq_pop(struct dirq *q, struct dirq_item *ret) {
	if (q->head == q->n)
		return false;
	*ret = q->v[q->head++];
	if (q->head == q->n)
		q->head = q->n = 0;
	return true;
}

void dirq_done(struct dirq *q) {
	for (size_t i = q->head; i < q->n; i++)
		free(q->v[i].path);
	free(q->v);
	*q = (struct dirq){ 0 };
}

/* The entries of d, dir's directory: subdirectories go to q; synth: report
 * every entry as created (see scan_dir()). Returns whether a subdirectory
 * went to q. */
static bool read_entries(struct engine *e, struct emark *root, DIR *d, const char *dir, bool synth,
			 struct dirq *q) {
	struct dirent *de;
	bool pushed = false;

	while ((de = readdir(d))) {
		char *sub;
		struct stat st;
		bool is_dir;

		if (is_dot(de->d_name))
			continue;
		if (!synth && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			is_dir = S_ISDIR(st.st_mode);
		}
		if (!(sub = entry_path(dir, de->d_name)))
			break;
		if (synth)
			matcher_synth_create(&e->match, root, sub, is_dir);
		if (!is_dir || dirq_push(q, sub, true) < 0)
			free(sub);
		else
			pushed = true;
	}
	return pushed;
}

/* One directory of a walk below root: its sub-watch (self; else dir is
 * root's own), then its entries: subdirectories go to q; synth: dir was
 * just created, so what is in it was created before its watch could report
 * it: report those as created (else `mkdir -p a/b; touch a/b/f` loses b
 * and f). s is the state root belongs to (its limit and count); wk: the
 * walk's open directories (NULL: none kept). dir is opened in its parent,
 * its watch placed on what was opened, and what is read is that: never a
 * symlink, never a directory outside the tree. */
static void scan_dir(struct engine *e, struct state *s, struct emark *root, const char *dir,
		     bool self, bool synth, struct dirq *q, struct walk *wk) {
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_close_ int fd = -1;

	if (pathset_has_path(&root->rule->excl, dir) || strlen(dir) >= PATH_MAX)
		return;
	if (self && has_sub(root, dir))
		return; /* watched and read already (by the scan of its parent) */
	if (!self && strcmp(dir, root->canon) != 0)
		return;
	fd = self ? open_entry(root, dir, wk) : tree_open_top(root);
	if (fd < 0)
		return;
	if (self && !sub_watch_add(e, s, root, fd, dir))
		return;
	d = fdopendir(fd);
	if (!d)
		return;
	fd = -1; /* d's now */
	if (read_entries(e, root, d, dir, synth, q) && wk) {
		char *path = strdup(dir);

		walk_dir_set(&wk->last, path, fcntl(dirfd(d), F_DUPFD_CLOEXEC, 0));
	}
}

/* The loader's walk: a call per step of its batches, which have events in
 * between, so no fd is kept from one call to the next. A call reads dir and
 * up to TREE_SCAN_GROUP - 1 of its siblings next in q, opened in their
 * parent once. */
#define TREE_SCAN_GROUP 32

static bool is_sibling(const char *path, const char *dir, size_t parent_len) {
	return strncmp(path, dir, parent_len + 1) == 0 && !strchr(path + parent_len + 1, '/');
}

void tree_scan(struct engine *e, struct state *s, struct emark *root, const char *dir, bool self,
	       bool synth, struct dirq *q) {
	struct walk wk = { .parent.fd = -1, .last.fd = -1 };
	const char *slash = strrchr(dir, '/');
	size_t parent_len = slash ? (size_t)(slash - dir) : 0;
	struct dirq_item it;

	scan_dir(e, s, root, dir, self, synth, q, &wk);
	for (unsigned n = 1; self && slash && n < TREE_SCAN_GROUP && q->head < q->n; n++) {
		if (!q->v[q->head].self || !is_sibling(q->v[q->head].path, dir, parent_len))
			break;
		(void)dirq_pop(q, &it);
		scan_dir(e, s, root, it.path, true, synth, q, &wk);
		free(it.path);
	}
	walk_done(&wk);
}

/* Scan what q holds, and all below; see scan_dir(). */
static void walk_run(struct engine *e, struct state *s, struct emark *root, struct dirq *q,
		     bool synth, struct walk *wk) {
	struct dirq_item it;

	while (dirq_pop(q, &it)) {
		scan_dir(e, s, root, it.path, it.self, synth, q, wk);
		free(it.path);
	}
	dirq_done(q);
	walk_done(wk);
}

/* A directory appeared as name in the directory of w, a watch of root's
 * tree (made, or moved in): its sub-watch and those of every directory
 * below it; see scan_dir(). If w's directory is not where the tree says
 * (it, or a directory above it, was moved or replaced before this event
 * was read), w is marked stale: the move, when it is read, says where w
 * is, and w is read again there (tree_resync()). */
static void tree_add(struct engine *e, struct state *s, struct emark *root, struct emark *w,
		     const char *name, bool synth) {
	struct walk wk = { .parent.fd = -1, .last.fd = -1 };
	struct dirq q = { 0 };
	char *first;
	int pfd;

	pfd = open_watched(root, w, O_PATH);
	if (pfd < 0) {
		if (w != root) {
			w->stale = true;
			w->stale_made |= synth;
		}
		return;
	}
	walk_dir_set(&wk.parent, strdup(w->canon), pfd);
	first = entry_path(w->canon, name);
	if (!first || dirq_push(&q, first, true) < 0)
		free(first);
	walk_run(e, s, root, &q, synth, &wk);
}

/* w (stale: see tree_add()) has been renamed: read it where it is now, and
 * follow the directories in it that are not watched yet as tree_add() would
 * have (what is in them reported as created if one of them was made). */
static void tree_resync(struct engine *e, struct state *s, struct emark *root, struct emark *w) {
	_cleanup_closedir_ DIR *d = NULL;
	struct walk wk = { .parent.fd = -1, .last.fd = -1 };
	struct dirq q = { 0 };
	int fd = open_watched(root, w, DIR_READ);
	bool synth;

	if (fd < 0 || !(d = fdopendir(fd))) {
		safe_close(fd);
		return; /* still not where the tree says: a later move will tell */
	}
	synth = w->stale_made;
	w->stale = w->stale_made = false;
	(void)read_entries(e, root, d, w->canon, false, &q);
	walk_dir_set(&wk.parent, strdup(w->canon), fcntl(dirfd(d), F_DUPFD_CLOEXEC, 0));
	walk_run(e, s, root, &q, synth, &wk);
}

/* Drop the sub-watches of root (of the running state) at or below path. */
static void tree_remove(struct engine *e, struct emark *root, const char *path) {
	for (size_t i = 0; i < root->n_subs;) {
		struct emark *sub = root->subs[i];

		if (sub->canon && path_in(sub->canon, path, true, true)) {
			emark_unplace(e, sub, &e->st.n_placed);
			sub_remove(root, sub);
			emark_free(sub);
		} else
			i++;
	}
}

/* Rename the sub-watches of root (of the running state) at or below from
 * to below to; read again those that were stale (see tree_add()). */
static void tree_rename(struct engine *e, struct emark *root, const char *from, const char *to) {
	size_t fl = strlen(from);
	bool stale = false;

	for (size_t i = 0; i < root->n_subs; i++) {
		struct emark *sub = root->subs[i];
		char *n;

		if (!sub->canon || !path_in(sub->canon, from, true, true))
			continue;
		if (asprintf(&n, "%s%s", to, sub->canon + fl) < 0)
			continue;
		/* (out and in again under its new path: the table has its
		 * buckets, so the put cannot fail) */
		sidx_remove(root, sub);
		free(sub->canon);
		sub->canon = n;
		(void)sidx_insert(root, sub);
		stale |= sub->stale;
	}
	/* (a resync appends sub-watches: they are not stale) */
	for (size_t i = 0; stale && i < root->n_subs; i++)
		if (root->subs[i]->stale && path_in(root->subs[i]->canon, to, true, true))
			tree_resync(e, &e->st, root, root->subs[i]);
}

/* The sub-watches of m leave the kernel and memory; count: as for
 * emark_unplace(). */
void drop_subs(struct engine *e, struct emark *m, unsigned *count) {
	for (size_t i = 0; i < m->n_subs; i++) {
		emark_unplace(e, m->subs[i], count);
		emark_free(m->subs[i]);
	}
	m->n_subs = 0;
	fsn_hmap_done(&m->sidx);
}

/* Recursive inotify trees follow directory creation and moves. */
void tree_follow(struct engine *e, struct emark *m, const struct fsn_event *ev, const char *path) {
	struct emark *root = m->parent ? m->parent : m;
	/* a tree being loaded follows its directories too, silently; a retired
	 * one no longer */
	bool fresh = emark_fresh(root) && e->loader.cur;
	struct state *s = fresh ? &e->loader.cur->s : &e->st;

	if (root->retired || !(root->subtree_recursive && root->spec.type == FSN_MARK_INOTIFY) ||
	    !(ev->mask & IN_ISDIR) || !ev->name)
		return;
	if (ev->mask & IN_MOVED_FROM) {
		/* where to? the IN_MOVED_TO with this cookie says, if any */
		free(e->move.path);
		e->move.path = strdup(path);
		e->move.cookie = ev->cookie;
	} else if (ev->mask & IN_MOVED_TO) {
		if (e->move.path && e->move.cookie == ev->cookie) {
			for (size_t i = 0; i < e->st.n_marks; i++)
				if (e->st.marks[i]->n_subs > 0)
					tree_rename(e, e->st.marks[i], e->move.path, path);
			free(e->move.path);
			e->move.path = NULL;
		}
		if (!has_sub(root, path))
			tree_add(e, s, root, m, ev->name, false);
	} else if (ev->mask & IN_CREATE)
		tree_add(e, s, root, m, ev->name, !fresh);
}

/* A directory moved away with no IN_MOVED_TO to follow: out of the tree. */
void tree_settle_move(struct engine *e, const struct fsn_event *ev) {
	if (!e->move.path ||
	    (ev && ev->source == FSN_SOURCE_INOTIFY && ev->cookie == e->move.cookie))
		return;
	for (size_t i = 0; i < e->st.n_marks; i++)
		if (e->st.marks[i]->n_subs > 0)
			tree_remove(e, e->st.marks[i], e->move.path);
	free(e->move.path);
	e->move.path = NULL;
}

/* Directories at and below dir, open as fd (taken; -errno: not readable),
 * each opened in its parent without following symlinks, pruning excluded
 * paths; counting stops above cap. */
#define COUNT_DIRS_MAX 1000000

static size_t count_dirs(const struct erule *r, int fd, const char *dir, size_t cap) {
	_cleanup_closedir_ DIR *d = NULL;
	size_t n = 1;
	struct dirent *de;

	if (pathset_has_path(&r->excl, dir)) {
		safe_close(fd);
		return 0;
	}
	if (fd < 0 || !(d = fdopendir(fd))) {
		safe_close(fd);
		return 1;
	}
	while (n <= cap && (de = readdir(d))) {
		_cleanup_free_ char *sub = NULL;
		struct stat st;

		if (is_dot(de->d_name))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode))
				continue;
		} else if (de->d_type != DT_DIR)
			continue;
		if (!(sub = entry_path(dir, de->d_name)))
			break;
		n += count_dirs(r, opendir_at(dirfd(d), de->d_name), sub, cap - n);
	}
	return n;
}

static unsigned long read_ulong(const char *path) {
	char buf[32];

	return read_small(path, buf, sizeof(buf)) > 0 ? strtoul(buf, NULL, 10) : 0;
}

/* A recursive inotify tree needs a watch per directory, against
 * fs.inotify.max_user_watches (shared by all of this user's processes)
 * and limits.max_marks. The tree is placed first (one walk); only when a
 * watch did not fit is it counted, and the rule's watch_limit applied:
 * warn (keep what fits), degrade (the top directory only) or refuse
 * (nothing; -EINVAL). why says how many watches were needed. */
int apply_watch_limit(struct engine *e, struct state *s, struct emark *m, char *why,
		      size_t whylen) {
	const struct rule_conf *rc = m->rule->conf;
	unsigned long sys = read_ulong("/proc/sys/fs/inotify/max_user_watches");
	bool marks = s->config->max_marks > 0 && s->n_placed >= s->config->max_marks;
	size_t need = count_dirs(m->rule, tree_open_top(m), m->canon, COUNT_DIRS_MAX);
	char p[PATH_MAX];

	snprintf(
	    why, whylen,
	    "rule '%s': \"%s\" needs %s%zu inotify watches (one per directory), and %s "
	    "(%lu%s) left room for %zu: %s",
	    rc->name, text_escaped(p, sizeof(p), m->canon),
	    need >= COUNT_DIRS_MAX ? "more than " : "", need,
	    marks ? "limits.max_marks" : "fs.inotify.max_user_watches",
	    marks ? (unsigned long)s->config->max_marks : sys,
	    marks ? "" : ", shared by all of this user's inotify watches", m->n_subs + 1,
	    rc->watch_limit == WATCH_LIMIT_REFUSE ? "not placed (watch_limit = \"refuse\")"
	    : rc->watch_limit == WATCH_LIMIT_DEGRADE
		? "watching the top directory only (watch_limit = \"degrade\")"
		: "watching what fits, the rest is not watched (watch_limit = \"warn\"); raise "
		  "the limit, or use mark = \"filesystem\" (no watches at all)");
	if (rc->watch_limit != WATCH_LIMIT_WARN)
		drop_subs(e, m, &s->n_placed); /* m itself stays */
	if (rc->watch_limit == WATCH_LIMIT_REFUSE)
		return -EINVAL;
	log_warning("%s", why);
	return 0;
}
