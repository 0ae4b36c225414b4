/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-marks.c — one mark of the engine (struct emark, engine-private.h): made
 * from a planned mark or for a sub-watch, placed in the kernel through the
 * libfsn context (the object's identity noted: dev/ino, fsid, mount, FID),
 * removed, and dropped with its sub-watches (when its state is replaced,
 * engine-retire.c's retirer drops it in a batch).
 * inotify marks are also indexed by inode (struct inode_index), since inotify
 * events come per watch: engine-match.c finds a watch's marks there.
 *
 * Which marks a state has is state building's business (engine.c); the
 * sub-watches of a recursive inotify mark are engine-tree.c's.
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
#include "resolve.h"

/* ------------------------------------------------------------------------ */
/* inotify marks by inode                                                   */
/* ------------------------------------------------------------------------ */

static uint64_t inode_hash(dev_t dev, ino_t ino) {
	return ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);
}

/* The first mark on dev:ino from chain node n on. */
static struct emark *inode_from(const struct fsn_hnode *n, dev_t dev, ino_t ino) {
	for (; n; n = n->next) {
		struct emark *m = container_of(n, struct emark, inode_node);

		if (m->dev == dev && m->ino == ino)
			return m;
	}
	return NULL;
}

struct emark *inode_index_first(const struct inode_index *ix, dev_t dev, ino_t ino) {
	return inode_from(fsn_hmap_chain(&ix->map, inode_hash(dev, ino)), dev, ino);
}

struct emark *inode_index_next(const struct emark *m) {
	return inode_from(m->inode_node.next, m->dev, m->ino);
}

int inode_index_add(struct inode_index *ix, struct emark *m) {
	return fsn_hmap_put(&ix->map, &m->inode_node, inode_hash(m->dev, m->ino));
}

void inode_index_remove(struct inode_index *ix, struct emark *m) {
	fsn_hmap_remove(&ix->map, &m->inode_node);
}

void inode_index_done(struct inode_index *ix) {
	fsn_hmap_done(&ix->map);
}

/* ------------------------------------------------------------------------ */
/* marks                                                                    */
/* ------------------------------------------------------------------------ */

struct emark *emark_free(struct emark *m) {
	if (m) {
		free(m->rule_name);
		free(m->path);
		free(m->canon);
		free(m->subtree);
		free(m->next_subtree);
		free(m->next);
		free(m->subs);
		fsn_hmap_done(&m->sidx);
		free(m);
	}
	return NULL;
}

/* A mark of the state being loaded (placed, not yet committed): it reports
 * nothing until the new state takes over. */
bool emark_fresh(const struct emark *m) {
	return m->fresh || (m->parent && m->parent->fresh);
}

bool spec_equal(const struct fsn_mark_spec *a, const struct fsn_mark_spec *b) {
	return a->type == b->type && a->klass == b->klass && a->report == b->report &&
	       a->group_tag == b->group_tag && a->mask == b->mask && a->ignore == b->ignore &&
	       a->flags == b->flags && str_eq(a->path, b->path);
}

static unsigned resolve_flags(const struct fsn_mark_spec *spec) {
	return (spec->flags & FSN_MARK_F_DONT_FOLLOW) ? RESOLVE_NOFOLLOW : 0;
}

/* Whether m's path (a planned mark's) still names the object m marks, as
 * the rule's path resolves (resolve.h: a symlink another user controls is
 * not followed): the same object, for a mount mark the same mount (when
 * its ID is known), else the same filesystem. A reload keeps such a mark;
 * any other is placed again, on what the path resolves to then. */
bool emark_same_object(const struct emark *m) {
	struct stat st;
	uint64_t mnt_id;

	if (!m->mark || resolve_identity(m->path, resolve_flags(&m->spec), &st, &mnt_id) < 0)
		return false;
	if (m->spec.type == FSN_MARK_INODE || m->spec.type == FSN_MARK_INOTIFY)
		return st.st_dev == m->dev && st.st_ino == m->ino;
	if (m->spec.type == FSN_MARK_MOUNT && m->mnt_id)
		return st.st_dev == m->dev && mnt_id == m->mnt_id;
	return st.st_dev == m->dev;
}

int emark_new(struct engine *e, struct erule *rule, const struct fsn_mark_spec *spec,
	      const char *path, struct emark *parent, struct emark **ret) {
	struct emark *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->engine = e;
	m->rule = rule;
	m->spec = *spec;
	m->rule_name = strdup(rule->conf->name);
	m->path = strdup(path);
	m->parent = parent;
	if (!m->rule_name || !m->path) {
		emark_free(m);
		return -ENOMEM;
	}
	m->spec.path = m->path;
	m->spec.dirfd = AT_FDCWD;
	m->spec.userdata = m;
	*ret = m;
	return 0;
}

/* Describe why a mark failed, for logs and err. */
void mark_failure(struct engine *e, struct emark *m, int r, const char *why) {
	char p[PATH_MAX * 2], msg[1536];
	const char *fields[4];
	char f_rule[300], f_path[PATH_MAX + 16], f_errno[32];

	if (why)
		snprintf(msg, sizeof(msg), "rule '%s': %s", m->rule->conf->name, why);
	else if (e->captured[0])
		snprintf(msg, sizeof(msg), "rule '%s': %s", m->rule->conf->name, e->captured);
	else
		snprintf(msg, sizeof(msg), "rule '%s': cannot watch \"%s\": %s",
			 m->rule->conf->name, text_escaped(p, sizeof(p), m->path), strerror(-r));
	snprintf(f_rule, sizeof(f_rule), "FSN_RULE=%s", m->rule->conf->name);
	snprintf(f_path, sizeof(f_path), "FSN_PATH=%s", m->path);
	snprintf(f_errno, sizeof(f_errno), "ERRNO=%d", -r);
	fields[0] = f_rule;
	fields[1] = f_path;
	fields[2] = f_errno;
	fields[3] = NULL;
	log_notable(m->rule->conf->required ? LOG_ERR : LOG_WARNING, FSND_MID_RULE_ERROR, fields,
		    "%s%s", msg,
		    m->rule->conf->required ? " (the rule is required)"
					    : " (not required: everything else keeps running)");
}

/* Whether m's path (resolved again) still names st's object. */
static bool still_named(const struct emark *m, const struct stat *st) {
	struct stat now;
	uint64_t mnt_id;

	return resolve_identity(m->path, resolve_flags(&m->spec), &now, &mnt_id) == 0 &&
	       now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* A planned mark's path resolved (resolve.h) into res, and spec turned to
 * the object it opened (fd_path: its name for libfsn). A symlink not
 * followed is counted against the rule and said in why. */
static int emark_resolve(struct emark *m, struct resolved *res, struct fsn_mark_spec *spec,
			 char *fd_path, size_t fd_len, char *why, size_t whylen) {
	int r = path_resolve(m->path, geteuid(), resolve_flags(spec), res);

	if (r < 0) {
		/* (the plan found it: it went since) */
		m->engine->loader.raced = m->engine->loader.raced || res->stop == RESOLVE_MISSING ||
					  res->stop == RESOLVE_REFUSED;
		if (res->stop == RESOLVE_REFUSED && m->rule)
			m->rule->stats.symlink_refusals++;
		resolved_says(res, m->path, why, whylen);
		return r;
	}
	*spec = resolved_spec(res, spec, fd_path, fd_len);
	return 0;
}

/* Place one mark (planned or sub-watch), counting it in *count (the marks
 * of the state it belongs to, limited to max_marks; 0: no limit). A
 * planned mark is placed on what its path resolves to (resolve.h), through
 * the fd the resolution opened. Does not log; the caller does, with why. */
int emark_place(struct engine *e, struct emark *m, unsigned *count, unsigned max_marks, char *why,
		size_t whylen) {
	_cleanup_(resolved_done) struct resolved res = RESOLVED_NULL;
	struct fsn_mark_spec spec = m->spec;
	struct stat st;
	char fd_path[64] = "";
	int r;

	why[0] = '\0';
	e->captured[0] = '\0';
	if (max_marks > 0 && *count >= max_marks) {
		char p[PATH_MAX];

		snprintf(why, whylen, "max_marks (%u) reached: \"%s\" is not watched", max_marks,
			 text_escaped(p, sizeof(p), m->path));
		return -ENOSPC;
	}
	if (spec.type == FSN_MARK_MOUNT && e->foreign_mntns == 1) {
		char p[PATH_MAX];

		snprintf(why, whylen,
			 "mount mark on \"%s\" refused: fsnotifyd runs in a mount namespace of "
			 "its own (shared neither with PID 1 nor with its parent; e.g. systemd's "
			 "ProtectSystem=), where a mount mark would see only what happens through "
			 "the daemon's own copies of the mounts, not the system's activity; %s",
			 text_escaped(p, sizeof(p), m->path),
			 m->rule->conf->mark == RULE_MARK_AUTO
			     ? "auto chose it because filesystem marks do not work there; run "
			       "fsnotifyd in the system's mount namespace to use it"
			     : "use mark = \"filesystem\" or \"auto\", or run fsnotifyd in the "
			       "system's mount namespace");
		return -EXDEV;
	}
	if (m->parent) {
		/* a sub-watch: opened in its parent directory, never through a
		 * symlink (engine-tree.c), so its path is canonical already; inotify
		 * marks have no use for the fsid */
		if (fstatat(spec.dirfd, spec.path, &st,
			    (spec.flags & FSN_MARK_F_DONT_FOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) < 0)
			return -errno; /* libfsn would say the same; this keeps dev/ino in step */
	} else {
		r = emark_resolve(m, &res, &spec, fd_path, sizeof(fd_path), why, whylen);
		if (r < 0)
			return r;
		st = res.st;
		m->mnt_id = resolved_mnt_id(&res);
	}
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->is_dir = S_ISDIR(st.st_mode);
	free(m->canon);
	m->canon = m->parent ? strdup(m->path) : steal_ptr(&res.path);
	if (!m->canon)
		return -ENOMEM;

	/* a recursive inotify tree must hear about new directories */
	if (spec.type == FSN_MARK_INOTIFY && (m->parent || m->subtree_recursive) && m->is_dir)
		spec.mask |= IN_TREE_BITS;
	/* a planned inode mark hears its object go (re-arming; the rule
	 * reports only what it asked for) */
	if (spec.type == FSN_MARK_INODE && spec.mask && !m->parent)
		spec.mask |= FAN_DELETE_SELF | FAN_MOVE_SELF | (m->is_dir ? FAN_ONDIR : 0);
	if (spec.type == FSN_MARK_INOTIFY && !m->parent)
		spec.mask |= IN_DELETE_SELF | IN_MOVE_SELF;
	m->placed_mask = spec.mask;

	e->capturing = true;
	r = fsn_ctx_add_mark(e->ctx, &spec, &m->mark);
	e->capturing = false;
	if (r < 0) {
		m->mark = NULL;
		if (fd_path[0])
			resolved_unname(e->captured, sizeof(e->captured), fd_path, m->path);
		if (e->captured[0])
			snprintf(why, whylen, "%s", e->captured);
		return r;
	}
	if (!m->parent && !still_named(m, &st)) {
		char p[PATH_MAX * 2];

		/* deleted or moved away after the walk, before the mark could
		 * hear it go: placed again by a re-arm */
		fsn_ctx_remove_mark(e->ctx, m->mark);
		m->mark = NULL;
		e->loader.raced = true;
		snprintf(why, whylen, "\"%s\" changed while it was being marked",
			 text_escaped(p, sizeof(p), m->path));
		return -ESTALE;
	}
	if (spec.type == FSN_MARK_INOTIFY) {
		r = inode_index_add(&e->inodes, m);
		if (r < 0) {
			fsn_ctx_remove_mark(e->ctx, m->mark);
			m->mark = NULL;
			return r;
		}
	}
	if (!m->parent) {
		/* the object's FID, as its events name it (the fsid also when
		 * the filesystem has no handles) */
		struct fsn_fid fid;
		int k = fsn_mark_get_fid(m->mark, &fid);

		memcpy(m->fsid, fid.fsid, sizeof(m->fsid));
		m->have_handle = spec.type == FSN_MARK_INODE && k == 0;
		if (m->have_handle)
			m->fid = fid;
	}
	m->group = fsn_mark_get_group(m->mark);
	(*count)++;
	return 0;
}

/* Remove a mark from the kernel (keeps the struct); count as above, or
 * NULL when its state is going away anyway. */
void emark_unplace(struct engine *e, struct emark *m, unsigned *count) {
	if (!m->mark)
		return;
	if (m->spec.type == FSN_MARK_INOTIFY)
		inode_index_remove(&e->inodes, m);
	fsn_ctx_remove_mark(e->ctx, m->mark);
	m->mark = NULL;
	m->group = NULL;
	if (count && *count > 0)
		(*count)--;
}

/* m and its sub-watches leave the kernel and memory; count: as for
 * emark_unplace(). */
void mark_drop_counted(struct engine *e, struct emark *m, unsigned *count) {
	drop_subs(e, m, count);
	emark_unplace(e, m, count);
	emark_free(m);
}

/* A planned mark and its sub-watches leave the kernel and memory (their
 * state is going away). */
void mark_drop(struct engine *e, struct emark *m) {
	mark_drop_counted(e, m, NULL);
}
