/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree.c — recursive inotify trees: a recursive inotify rule gets one
 * watch per directory below its path ("sub-watches", struct emark with a
 * parent), indexed by canonical path, added as directories appear (a scan
 * of each new directory, which reports what was made in it before its
 * watch could: synth_create() in match.c) and renamed or dropped as they
 * move away or go (an IN_MOVED_FROM paired with its IN_MOVED_TO by
 * cookie). The loader walks a new tree a directory at a time (tree_scan()
 * on its queue, struct dirq); when a watch did not fit, the rule's
 * watch_limit says what stays.
 *
 * A sub-watch is placed and removed by marks.c like any mark; match.c
 * hands this file the inotify events that change a tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine-private.h"
#include "escape.h"
#include "fsn-uapi.h"
#include "log.h"

/* The sub-watches of a recursive inotify mark: an array (O(1) removal by
 * position) and a chained hash by canonical path (has_sub() in O(1), so
 * a tree of 100 000 directories is placed in linear time). */
static size_t sidx_slot(const struct emark *parent, const char *path) {
	return (size_t)hash_bytes(HASH_INIT, path, strlen(path)) & (parent->sidx_size - 1);
}

static void sidx_insert(struct emark *parent, struct emark *sub) {
	size_t s = sidx_slot(parent, sub->canon);

	sub->snext = parent->sidx[s];
	parent->sidx[s] = sub;
}

static void sidx_remove(struct emark *parent, struct emark *sub) {
	if (!parent->sidx || !sub->canon)
		return;
	for (struct emark **p = &parent->sidx[sidx_slot(parent, sub->canon)]; *p; p = &(*p)->snext)
		if (*p == sub) {
			*p = sub->snext;
			sub->snext = NULL;
			return;
		}
}

/* Rebuild the index with size buckets (after growth or renames). */
static int sidx_rebuild(struct emark *parent, size_t size) {
	struct emark **v = calloc(size, sizeof(*v));

	if (!v)
		return -ENOMEM;
	free(parent->sidx);
	parent->sidx = v;
	parent->sidx_size = size;
	for (size_t i = 0; i < parent->n_subs; i++)
		if (parent->subs[i]->canon)
			sidx_insert(parent, parent->subs[i]);
	return 0;
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
	sub->sub_pos = parent->n_subs;
	parent->subs[parent->n_subs++] = sub;
	if (!parent->sidx || parent->n_subs > parent->sidx_size) {
		if (sidx_rebuild(parent, parent->sidx ? 2 * parent->sidx_size : 64) < 0) {
			parent->n_subs--;
			return -ENOMEM;
		}
	} else if (sub->canon)
		sidx_insert(parent, sub);
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

/* Whether a rule excludes path by an exclude *path* (globs aside): used to
 * prune recursive inotify walks. */
bool excluded_by_path(const struct erule *r, const char *path) {
	for (size_t i = 0; i < r->conf->n_exclude; i++) {
		if (is_glob(r->conf->exclude[i]))
			continue;
		if (path_in(path, r->conf->exclude[i], true, true) ||
		    (r->excl_canon[i] && path_in(path, r->excl_canon[i], true, true)))
			return true;
	}
	return false;
}

bool has_sub(const struct emark *root, const char *path) {
	if (!root->sidx)
		return false;
	for (const struct emark *m = root->sidx[sidx_slot(root, path)]; m; m = m->snext)
		if (m->canon && strcmp(m->canon, path) == 0)
			return true;
	return false;
}

/* Place the sub-watch of dir under root; s is the state root belongs to (its
 * limit and count). false if it is not watched (excluded, gone, limit). */
bool sub_watch_add(struct engine *e, struct state *s, struct emark *root, const char *dir) {
	struct emark *sub = NULL;
	char why[1024];
	int r;

	if (emark_new(e, root->rule, &root->spec, dir, root, &sub) < 0)
		return false;
	sub->spec.flags |= FSN_MARK_F_ONLYDIR | FSN_MARK_F_DONT_FOLLOW;
	r = emark_place(e, sub, &s->n_placed, s->config->max_marks, why, sizeof(why));
	if (r < 0) {
		if (r == -ENOSPC)
			root->rule->limit_hit = true; /* (see place_planned()) */
		if (r != -ENOENT && r != -ENOTDIR && !root->rule->limit_logged &&
		    !(r == -ENOSPC && e->placing_tree)) {
			/* once per rule: the tree is too big or the kernel says no */
			root->rule->limit_logged = true;
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

/* One directory of a walk below root: its sub-watch (self), then its
 * entries: subdirectories go to q; synth: dir was just created, so what is
 * in it was created before its watch could report it: report those as
 * created (else `mkdir -p a/b; touch a/b/f` loses b and f). s is the state
 * root belongs to (its limit and count). Never follows symlinks. */
void tree_scan(struct engine *e, struct state *s, struct emark *root, const char *dir, bool self,
	       bool synth, struct dirq *q) {
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (excluded_by_path(root->rule, dir))
		return;
	if (self && has_sub(root, dir))
		return; /* watched and read already (by the scan of its parent) */
	if (self && !sub_watch_add(e, s, root, dir))
		return;

	d = opendir_nofollow(dir);
	if (!d)
		return;
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
			synth_create(e, root, sub, is_dir);
		if (!is_dir || dirq_push(q, sub, true) < 0)
			free(sub);
	}
}

/* Add sub-watches for dir (itself unless it is the root) and every
 * directory below it; see tree_scan(). */
static void tree_add(struct engine *e, struct state *s, struct emark *root, const char *dir,
		     bool self, bool synth) {
	struct dirq q = { 0 };
	struct dirq_item it;
	char *first = strdup(dir);

	if (!first || dirq_push(&q, first, self) < 0) {
		free(first);
		return;
	}
	while (dirq_pop(&q, &it)) {
		tree_scan(e, s, root, it.path, it.self, synth, &q);
		free(it.path);
	}
	dirq_done(&q);
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

/* Rename the sub-watches of root at or below from to below to. */
static void tree_rename(struct emark *root, const char *from, const char *to) {
	size_t fl = strlen(from);
	bool renamed = false;

	for (size_t i = 0; i < root->n_subs; i++) {
		struct emark *sub = root->subs[i];
		char *n;

		if (!sub->canon || !path_in(sub->canon, from, true, true))
			continue;
		if (asprintf(&n, "%s%s", to, sub->canon + fl) < 0)
			continue;
		free(sub->canon);
		sub->canon = n;
		renamed = true;
	}
	if (renamed && root->sidx)
		(void)sidx_rebuild(root, root->sidx_size);
}

/* The sub-watches of m leave the kernel and memory; count: as for
 * emark_unplace(). */
void drop_subs(struct engine *e, struct emark *m, unsigned *count) {
	for (size_t i = 0; i < m->n_subs; i++) {
		emark_unplace(e, m->subs[i], count);
		emark_free(m->subs[i]);
	}
	m->n_subs = 0;
	free(m->sidx);
	m->sidx = NULL;
	m->sidx_size = 0;
}

/* Recursive inotify trees follow directory creation and moves. */
void tree_follow(struct engine *e, struct emark *m, const struct fsn_event *ev, const char *path) {
	struct emark *root = m->parent ? m->parent : m;
	/* a tree being loaded follows its directories too, silently; a retired
	 * one no longer */
	bool fresh = emark_fresh(root) && e->load;
	struct state *s = fresh ? &e->load->s : &e->st;

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
					tree_rename(e->st.marks[i], e->move.path, path);
			free(e->move.path);
			e->move.path = NULL;
		}
		if (!has_sub(root, path))
			tree_add(e, s, root, path, true, false);
	} else if (ev->mask & IN_CREATE)
		tree_add(e, s, root, path, true, !fresh);
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

/* Directories at and below dir (not following symlinks, pruning excluded
 * paths), counting stops above cap. */
#define COUNT_DIRS_MAX 1000000

static size_t count_dirs(const struct erule *r, const char *dir, size_t cap) {
	_cleanup_closedir_ DIR *d = NULL;
	size_t n = 1;
	struct dirent *de;

	if (excluded_by_path(r, dir))
		return 0;
	d = opendir_nofollow(dir);
	if (!d)
		return 1;
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
		n += count_dirs(r, sub, cap - n);
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
	size_t need = count_dirs(m->rule, m->canon, COUNT_DIRS_MAX);
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
