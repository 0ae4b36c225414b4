/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mark.c — marks: fsn_ctx_add_mark() and fsn_ctx_remove_mark(), the kernel
 * objects they share (fanotify marks, inotify watches) and what the kernel
 * was told of each.
 *
 * Marks and objects. Every fsn_ctx_add_mark() call is one struct fsn_mark.
 * Marks on the same kernel object (same group, mark type and inode / mount /
 * filesystem; for inotify the same wd) share one struct fsn_obj, which
 * remembers what the kernel was told: the union of its marks' masks and
 * ignore masks. Adding a mark sends FAN_MARK_ADD with the new union (always,
 * so a kernel mark that went away is placed again); removing one sends
 * FAN_MARK_REMOVE for exactly the bits no remaining mark needs.
 *
 * Reaching an object again. The kernel is always told about an object
 * through "/proc/self/fd/N" of an O_PATH fd (never the caller's path, which
 * may have been renamed or replaced since): the path of a mark is opened
 * once when it is added; to change an object's mask later it is found again
 * by its file handle (open_by_handle_at() on the context's mount fd, when
 * privileged) or by the absolute paths its marks had, and used only if it is
 * still the same object (dev/ino and handle, mount id, or dev). No fd is
 * kept per object: an O_PATH fd would pin the dentry and delay
 * IN_DELETE_SELF / FAN_DELETE_SELF and IN_IGNORED until it is closed. If an
 * object cannot be reached any more (renamed away), its kernel mask keeps
 * the bits of removed marks until its group is closed (inotify events no
 * remaining mark asked for are filtered out by dispatch).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <syslog.h>

#include "ctx-private.h"

/* inotify flags that only steer the lookup or the add call; the object's
 * kernel mask is always set from the union without them */
#define IN_CALL_FLAGS (IN_DONT_FOLLOW | IN_ONLYDIR | IN_MASK_ADD | IN_MASK_CREATE)

/* event flags the kernel drops from a legacy ignored mask */
#define FAN_EVENT_FLAGS (FAN_EVENT_ON_CHILD | FAN_ONDIR)

#define KNOWN_MARK_FLAGS                                                                           \
	(FSN_MARK_F_DONT_FOLLOW | FSN_MARK_F_ONLYDIR | FSN_MARK_F_EVICTABLE |                      \
	 FSN_MARK_F_LEGACY_IGNORE | FSN_MARK_F_IGNORE_NO_SURV)

/* fanotify_init() flags the caller must not pass in spec.report */
#define FAN_INIT_RESERVED (FAN_CLOEXEC | FAN_NONBLOCK | FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT)

#define PROC_FD_PATH_MAX (sizeof("/proc/self/fd/") + 3 * sizeof(int))

static const char *const mark_type_name[_FSN_MARK_TYPE_MAX] = {
	[FSN_MARK_INODE] = "inode",
	[FSN_MARK_MOUNT] = "mount",
	[FSN_MARK_FILESYSTEM] = "filesystem",
	[FSN_MARK_INOTIFY] = "inotify",
};

/* ------------------------------------------------------------------------ */
/* logging a mark                                                           */
/* ------------------------------------------------------------------------ */

/* Paths are bytes an attacker may have chosen: non-printable bytes, '"' and
 * '\' become \xNN in log lines. Returns a malloc'd string or NULL. */
static char *escape_path(const char *s) {
	size_t n = strlen(s);
	char *out, *p;

	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	out = p = malloc(n * 4 + 1);
	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\' || c == '"')
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p = '\0';
	return out;
}

static void format_mask(enum fsn_mask_kind kind, uint64_t mask, char *buf, size_t len) {
	if (mask == 0 || fsn_mask_format(kind, mask, buf, len) < 0)
		snprintf(buf, len, "0x%" PRIx64, mask);
}

/* One line naming the path, the mark type, the masks and the reason. */
static void log_mark_failure(struct fsn_ctx *ctx, const struct fsn_mark_spec *spec, int r,
			     const char *why) {
	enum fsn_mask_kind kind =
	    spec->type == FSN_MARK_INOTIFY ? FSN_MASK_INOTIFY_EVENT : FSN_MASK_FANOTIFY_EVENT;
	_cleanup_free_ char *path = NULL;
	char mask[256], ignore[256] = "", ebuf[128];
	const char *type =
	    (unsigned)spec->type < _FSN_MARK_TYPE_MAX ? mark_type_name[spec->type] : "invalid";

	if (!ctx || !ctx->log_fn)
		return;
	path = spec->path ? escape_path(spec->path) : NULL;
	format_mask(kind, spec->mask, mask, sizeof(mask));
	if (spec->ignore)
		format_mask(FSN_MASK_FANOTIFY_EVENT, spec->ignore, ignore, sizeof(ignore));
	fsn_ctx_log(ctx, LOG_ERR, "cannot place %s mark on \"%s\" (mask %s%s%s): %s%s%s", type,
		    path ? path : "?", mask, spec->ignore ? ", ignore " : "", ignore,
		    why ? why : "", why ? ": " : "", strerror_r(-r, ebuf, sizeof(ebuf)));
}

/* ------------------------------------------------------------------------ */
/* objects                                                                  */
/* ------------------------------------------------------------------------ */

/* What identifies the object an O_PATH fd refers to. */
struct obj_id {
	dev_t dev;
	ino_t ino;
	uint64_t mnt_id;
	bool has_handle;
	struct fsn_fid handle; /* fsid is always set */
};

static int obj_id_from_fd(int fd, enum fsn_mark_type type, struct obj_id *ret) {
	struct obj_id id = { 0 };
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	id.dev = st.st_dev;
	id.ino = st.st_ino;

	/* Not every filesystem gives handles (procfs, pipefs ...): then the
	 * object is known by dev/ino alone. */
	if (fsn_fid_from_fd(fd, &id.handle) == 0)
		id.has_handle = true;
	else {
		r = fsn_fsid_from_fd(fd, id.handle.fsid);
		if (r < 0)
			return r;
	}

	if (type == FSN_MARK_MOUNT) {
		struct statx sx;

		if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0)
			return negative_errno();
		if (!(sx.stx_mask & STATX_MNT_ID))
			return -EOPNOTSUPP;
		id.mnt_id = sx.stx_mnt_id;
	}
	*ret = id;
	return 0;
}

static bool obj_matches(const struct fsn_obj *o, const struct obj_id *id) {
	switch (o->type) {
	case FSN_MARK_INODE:
	case FSN_MARK_INOTIFY:
		if (o->dev != id->dev || o->ino != id->ino)
			return false;
		/* the handle carries the generation: a reused inode number differs */
		return !o->has_handle || !id->has_handle || fsn_fid_equal(&o->handle, &id->handle);
	case FSN_MARK_MOUNT: return o->mnt_id == id->mnt_id;
	case FSN_MARK_FILESYSTEM: return o->dev == id->dev;
	default: return false;
	}
}

static uint64_t obj_key_hash(unsigned group_id, enum fsn_mark_type type, const struct obj_id *id) {
	struct {
		uint64_t group_id, type, dev, ino, mnt_id;
	} k = { group_id, (uint64_t)type, 0, 0, 0 };

	switch (type) {
	case FSN_MARK_INODE:
		k.dev = id->dev;
		k.ino = id->ino;
		break;
	case FSN_MARK_MOUNT: k.mnt_id = id->mnt_id; break;
	default: k.dev = id->dev; break;
	}
	return hash_bytes(HASH_INIT, &k, sizeof(k));
}

static uint64_t wd_hash(int wd) {
	return hash_bytes(HASH_INIT, &wd, sizeof(wd));
}

static struct fsn_obj *obj_find(const struct fsn_ctx *ctx, const struct fsn_group *g,
				enum fsn_mark_type type, const struct obj_id *id) {
	uint64_t h = obj_key_hash(g->id, type, id);

	for (struct fsn_hnode *n = fsn_hmap_chain(&ctx->objs_by_key, h); n; n = n->next) {
		struct fsn_obj *o = container_of(n, struct fsn_obj, by_key);

		if (n->hash == h && o->group == g && o->type == type && obj_matches(o, id))
			return o;
	}
	return NULL;
}

struct fsn_obj *fsn_obj_by_wd(const struct fsn_ctx *ctx, int wd) {
	uint64_t h = wd_hash(wd);

	for (struct fsn_hnode *n = fsn_hmap_chain(&ctx->objs_by_wd, h); n; n = n->next) {
		struct fsn_obj *o = container_of(n, struct fsn_obj, by_wd);

		if (n->hash == h && o->wd == wd && !o->dead)
			return o;
	}
	return NULL;
}

/* A new object, linked into the context (and its key or wd table). */
static int obj_new(struct fsn_ctx *ctx, struct fsn_group *g, enum fsn_mark_type type,
		   const struct obj_id *id, int wd, struct fsn_obj **ret) {
	struct fsn_obj *o = calloc(1, sizeof(*o));
	int r;

	if (!o)
		return -ENOMEM;
	o->group = g;
	o->type = type;
	o->dev = id->dev;
	o->ino = id->ino;
	o->mnt_id = id->mnt_id;
	o->has_handle = id->has_handle;
	o->handle = id->handle;
	o->wd = wd;
	if (type == FSN_MARK_INOTIFY)
		r = fsn_hmap_put(&ctx->objs_by_wd, &o->by_wd, wd_hash(wd));
	else
		r = fsn_hmap_put(&ctx->objs_by_key, &o->by_key, obj_key_hash(g->id, type, id));
	if (r < 0) {
		free(o);
		return r;
	}
	if (g) {
		g->n_objs++;
		if (type == FSN_MARK_FILESYSTEM)
			g->moves_known = false;
	}
	o->next = ctx->objs;
	if (ctx->objs)
		ctx->objs->prev = o;
	ctx->objs = o;
	*ret = o;
	return 0;
}

/* Mark an inotify object dead: its wd is gone in the kernel. */
void fsn_obj_kill(struct fsn_ctx *ctx, struct fsn_obj *o) {
	if (o->dead)
		return;
	o->dead = true;
	fsn_hmap_remove(&ctx->objs_by_wd, &o->by_wd);
}

/* Free an object without telling the kernel; the caller did or need not. */
static void obj_free(struct fsn_ctx *ctx, struct fsn_obj *o) {
	struct fsn_group *g = o->group;

	if (o->type == FSN_MARK_INOTIFY)
		fsn_obj_kill(ctx, o);
	else
		fsn_hmap_remove(&ctx->objs_by_key, &o->by_key);
	if (o->prev)
		o->prev->next = o->next;
	else
		ctx->objs = o->next;
	if (o->next)
		o->next->prev = o->prev;
	if (o->has_mount)
		fsn_ctx_mount_unref(ctx, o->handle.fsid);
	if (g && o->type == FSN_MARK_FILESYSTEM)
		g->moves_known = false;
	free(o);
	if (g && --g->n_objs == 0)
		fsn_group_detach(ctx, g);
}

/* Marks stay in the order they were added ("the first mark" is the oldest). */
static void obj_link_mark(struct fsn_obj *o, struct fsn_mark *m) {
	m->obj = o;
	m->prev = o->marks_tail;
	m->next = NULL;
	if (o->marks_tail)
		o->marks_tail->next = m;
	else
		o->marks = m;
	o->marks_tail = m;
	o->n_marks++;
}

static void obj_unlink_mark(struct fsn_obj *o, struct fsn_mark *m) {
	if (m->prev)
		m->prev->next = m->next;
	else
		o->marks = m->next;
	if (m->next)
		m->next->prev = m->prev;
	else
		o->marks_tail = m->prev;
	m->prev = m->next = NULL;
	m->obj = NULL;
	o->n_marks--;
}

static int open_flags(const struct fsn_mark_spec *spec) {
	bool inotify = spec->type == FSN_MARK_INOTIFY;
	int flags = O_PATH | O_CLOEXEC;

	if ((spec->flags & FSN_MARK_F_DONT_FOLLOW) || (inotify && (spec->mask & IN_DONT_FOLLOW)))
		flags |= O_NOFOLLOW;
	if ((spec->flags & FSN_MARK_F_ONLYDIR) || (inotify && (spec->mask & IN_ONLYDIR)))
		flags |= O_DIRECTORY;
	return flags;
}

static int try_reach(const struct fsn_obj *o, const struct fsn_mark *m) {
	_cleanup_close_ int fd = -1;
	struct obj_id id;

	if (!m->abspath)
		return -ENOENT;
	fd = open(m->abspath, open_flags(&m->spec));
	if (fd < 0)
		return negative_errno();
	if (obj_id_from_fd(fd, o->type, &id) < 0 || !obj_matches(o, &id))
		return -ESTALE;
	return take_fd(&fd);
}

/* An O_PATH fd on the object, found again (see the top of the file), or
 * -ESTALE if it cannot be reached any more. `gone` is a mark that just left
 * the object; its path is worth a try too. */
static int obj_open(struct fsn_ctx *ctx, const struct fsn_obj *o, const struct fsn_mark *gone) {
	int mfd = fsn_ctx_mount_fd(ctx, o->handle.fsid);
	struct obj_id id;

	if (mfd >= 0 && (o->has_handle || o->type == FSN_MARK_FILESYSTEM)) {
		_cleanup_close_ int fd = -1;

		if (o->type == FSN_MARK_FILESYSTEM)
			fd = fcntl(mfd, F_DUPFD_CLOEXEC, 3);
		else if (o->type != FSN_MARK_MOUNT)
			fd = fsn_fid_open(mfd, &o->handle, O_PATH | O_CLOEXEC);
		if (fd >= 0 && obj_id_from_fd(fd, o->type, &id) == 0 && obj_matches(o, &id))
			return take_fd(&fd);
	}

	for (const struct fsn_mark *m = o->marks; m; m = m->next) {
		int fd = try_reach(o, m);

		if (fd >= 0)
			return fd;
	}
	return gone ? try_reach(o, gone) : -ESTALE;
}

/* ------------------------------------------------------------------------ */
/* fanotify marks                                                           */
/* ------------------------------------------------------------------------ */

static unsigned type_flag(enum fsn_mark_type type) {
	switch (type) {
	case FSN_MARK_MOUNT: return FAN_MARK_MOUNT;
	case FSN_MARK_FILESYSTEM: return FAN_MARK_FILESYSTEM;
	default: return FAN_MARK_INODE;
	}
}

static unsigned ignore_add_flags(enum fsn_ignore_mode mode) {
	switch (mode) {
	case FSN_IGN_NEW: return FAN_MARK_IGNORE_SURV;
	case FSN_IGN_LEGACY_SURV: return FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY;
	default: return FAN_MARK_IGNORED_MASK;
	}
}

static unsigned ignore_remove_flags(enum fsn_ignore_mode mode) {
	return mode == FSN_IGN_NEW ? FAN_MARK_IGNORE : FAN_MARK_IGNORED_MASK;
}

static int fan_mark(const struct fsn_obj *o, unsigned flags, uint64_t mask, int fd) {
	char path[PROC_FD_PATH_MAX];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (fanotify_mark(o->group->fd, flags | type_flag(o->type), mask, AT_FDCWD, path) < 0)
		return negative_errno();
	return 0;
}

/*
 * Bring the kernel mark of o (reached through fd) from (o->kmask,
 * o->kignore) to (mask, ignore). With force, the full unions are added even
 * if no bit is new (places the mark again if the kernel dropped it). Adding
 * is all or nothing; removing goes on past errors (ENOENT: the kernel mark
 * is gone already, e.g. its inode was deleted) and returns the first one.
 */
static int fan_update(struct fsn_obj *o, int fd, uint64_t mask, uint64_t ignore,
		      enum fsn_ignore_mode mode, unsigned add_flags, bool force) {
	uint64_t add_mask = mask & ~o->kmask, add_ignore = ignore & ~o->kignore;
	uint64_t del_mask = o->kmask & ~mask, del_ignore = o->kignore & ~ignore;
	int r, ret = 0;

	if (mask && (add_mask || force)) {
		r = fan_mark(o, FAN_MARK_ADD | add_flags, mask, fd);
		if (r < 0)
			return r;
	}
	if (ignore && (add_ignore || force)) {
		r = fan_mark(o, FAN_MARK_ADD | add_flags | ignore_add_flags(mode), ignore, fd);
		if (r < 0) {
			if (add_mask)
				(void)fan_mark(o, FAN_MARK_REMOVE, add_mask, fd);
			return r;
		}
	}
	if (del_ignore) {
		r = fan_mark(o, FAN_MARK_REMOVE | ignore_remove_flags(o->ign_mode), del_ignore, fd);
		if (r < 0 && r != -ENOENT && ret == 0)
			ret = r;
	}
	if (del_mask) {
		r = fan_mark(o, FAN_MARK_REMOVE, del_mask, fd);
		if (r < 0 && r != -ENOENT && ret == 0)
			ret = r;
	}

	if (o->type == FSN_MARK_FILESYSTEM && o->kmask != mask)
		o->group->moves_known = false;
	o->kmask = mask;
	o->kignore = ignore;
	if (ignore && o->ign_mode == FSN_IGN_NONE)
		o->ign_mode = mode;
	return ret;
}

static int add_fanotify(struct fsn_ctx *ctx, struct fsn_mark *m, int fd, const struct obj_id *id,
			const char **why) {
	const struct fsn_mark_spec *spec = &m->spec;
	enum fsn_ignore_mode mode = FSN_IGN_NONE;
	struct fsn_group *g;
	struct fsn_obj *o;
	bool created = false, evictable;
	unsigned add_flags;
	int r;

	g = fsn_group_find(ctx, spec->klass, spec->report, spec->group_tag);
	if (!g) {
		r = fsn_group_new(ctx, spec->klass, spec->report, spec->group_tag, &g);
		if (r < 0) {
			*why = "fanotify_init";
			return r;
		}
	}

	m->mask = spec->mask;
	m->ignore = spec->ignore;
	if (m->ignore) {
		if (spec->flags & FSN_MARK_F_IGNORE_NO_SURV)
			mode = FSN_IGN_LEGACY;
		else if ((spec->flags & FSN_MARK_F_LEGACY_IGNORE) || ctx->ignore_new == 0)
			mode = FSN_IGN_LEGACY_SURV;
		else
			mode = FSN_IGN_NEW;
		if (mode != FSN_IGN_NEW)
			m->ignore &= ~(uint64_t)FAN_EVENT_FLAGS;
	}
	if (!m->mask && !m->ignore) {
		r = -EINVAL;
		*why = "empty mask";
		goto fail;
	}

	o = obj_find(ctx, g, spec->type, id);
	if (o && m->ignore && o->ign_mode != FSN_IGN_NONE && o->ign_mode != mode) {
		/* the kernel cannot mix ignore styles on one mark either */
		r = -EEXIST;
		*why = "an ignore mask of another style is already on this object";
		goto fail;
	}
	if (!o) {
		r = obj_new(ctx, g, spec->type, id, -1, &o);
		if (r < 0)
			goto fail;
		created = true;
		/* before the mark: opening the mount root is an open our
		 * own new mark would otherwise report. Only groups that
		 * report file handles need it: a permission group never
		 * opens anything (a caller answering permission events from
		 * another thread would otherwise wait for itself here, when
		 * a second group of its marks the same filesystem) */
		if ((g->report & (FAN_REPORT_FID | FAN_REPORT_DIR_FID)) &&
		    fsn_ctx_mount_ref(ctx, fd, m->abspath, o->handle.fsid) == 0)
			o->has_mount = true;
	}

	/* The kernel mark is evictable only while every mark on it is; an
	 * evictable one is upgraded by adding without the flag, never back. */
	evictable = (spec->flags & FSN_MARK_F_EVICTABLE) && (created || o->kevictable);
	add_flags = evictable ? FAN_MARK_EVICTABLE : 0;

	r = fan_update(o, fd, o->kmask | m->mask, o->kignore | m->ignore,
		       o->ign_mode != FSN_IGN_NONE ? o->ign_mode : mode, add_flags, true);
	if (r == -EINVAL && mode == FSN_IGN_NEW && ctx->ignore_new != 1 &&
	    o->ign_mode == FSN_IGN_NONE) {
		/* A kernel without FAN_MARK_IGNORE (before 6.0): legacy. */
		uint64_t legacy = m->ignore & ~(uint64_t)FAN_EVENT_FLAGS;

		if (m->mask || legacy) {
			r = fan_update(o, fd, o->kmask | m->mask, o->kignore | legacy,
				       FSN_IGN_LEGACY_SURV, add_flags, true);
			if (r == 0) {
				ctx->ignore_new = 0;
				m->ignore = legacy;
				mode = FSN_IGN_LEGACY_SURV;
				fsn_ctx_log(ctx, LOG_DEBUG,
					    "FAN_MARK_IGNORE refused, using FAN_MARK_IGNORED_MASK");
			}
		}
	} else if (r == 0 && mode == FSN_IGN_NEW)
		ctx->ignore_new = 1;
	if (r < 0) {
		*why = "fanotify_mark";
		if (created)
			obj_free(ctx, o); /* also detaches g if this was its only object */
		return r;
	}

	if (created || !(spec->flags & FSN_MARK_F_EVICTABLE))
		o->kevictable = evictable;
	m->ign_mode = mode;
	obj_link_mark(o, m);
	return 0;

fail:
	if (g->n_objs == 0)
		fsn_group_detach(ctx, g);
	return r;
}

/* After mark `gone` left o (o may have no marks left now). */
static int remove_fanotify(struct fsn_ctx *ctx, struct fsn_obj *o, const struct fsn_mark *gone) {
	_cleanup_close_ int fd = -1;
	uint64_t mask = 0, ignore = 0;

	for (const struct fsn_mark *m = o->marks; m; m = m->next) {
		mask |= m->mask;
		ignore |= m->ignore;
	}
	if (mask == o->kmask && ignore == o->kignore)
		return 0;

	fd = obj_open(ctx, o, gone);
	if (fd < 0) {
		fsn_ctx_log(ctx, LOG_DEBUG,
			    "fanotify group %u: marked object not reachable any more, its kernel "
			    "mark keeps mask 0x%" PRIx64 " ignore 0x%" PRIx64,
			    o->group->id, o->kmask, o->kignore);
		return 0;
	}
	return fan_update(o, fd, mask, ignore, o->ign_mode, 0, false);
}

/* ------------------------------------------------------------------------ */
/* inotify watches                                                          */
/* ------------------------------------------------------------------------ */

static int inotify_watch(const struct fsn_ctx *ctx, int fd, uint32_t mask) {
	char path[PROC_FD_PATH_MAX];
	int wd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(ctx->ifd, path, mask);
	return wd < 0 ? negative_errno() : wd;
}

static int add_inotify(struct fsn_ctx *ctx, struct fsn_mark *m, int fd, const struct obj_id *id,
		       const char **why) {
	const struct fsn_mark_spec *spec = &m->spec;
	struct fsn_obj *o;
	uint32_t call;
	int wd, r;

	if (spec->ignore || spec->mask > UINT32_MAX ||
	    (spec->flags &
	     (FSN_MARK_F_EVICTABLE | FSN_MARK_F_LEGACY_IGNORE | FSN_MARK_F_IGNORE_NO_SURV))) {
		*why = "not an inotify mask or flag";
		return -EINVAL;
	}

	if (ctx->ifd < 0) {
		struct fsn_queue_len q;
		int ifd;

		fsn_queue_len_begin(ctx, INOTIFY_QUEUE_SYSCTL, &q);
		ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		r = ifd < 0 ? negative_errno() : 0;
		fsn_queue_len_end(&q);
		if (ifd < 0) {
			*why = "inotify_init1";
			return r;
		}
		ctx->ifd_queue = q.len;
		r = fsn_ctx_source_watch(ctx, 0, ifd, true, false, &ctx->ifd_q,
					 &ctx->ifd_in_reader);
		if (r < 0) {
			safe_close(ifd);
			*why = "epoll_ctl";
			return r;
		}
		ctx->ifd = ifd;
	}

	m->mask = spec->mask & ~(uint64_t)IN_CALL_FLAGS;
	/* IN_MASK_ADD: the kernel ORs our bits into a watch that other marks
	 * share (so the union stays right without reading it back); with
	 * IN_MASK_CREATE the caller wants EEXIST for a watched inode. */
	call = (uint32_t)m->mask | ((spec->mask & IN_MASK_CREATE) ? IN_MASK_CREATE : IN_MASK_ADD);
	wd = inotify_watch(ctx, fd, call);
	if (wd < 0) {
		*why = "inotify_add_watch";
		return wd;
	}

	o = fsn_obj_by_wd(ctx, wd);
	if (!o) {
		r = obj_new(ctx, NULL, FSN_MARK_INOTIFY, id, wd, &o);
		if (r < 0) {
			(void)inotify_rm_watch(ctx->ifd, wd);
			return r;
		}
	}
	o->kmask |= m->mask;
	obj_link_mark(o, m);
	return 0;
}

static int remove_inotify(struct fsn_ctx *ctx, struct fsn_obj *o, const struct fsn_mark *gone) {
	_cleanup_close_ int fd = -1;
	uint64_t mask = 0;
	int wd;

	if (o->dead)
		return 0;
	if (o->n_marks == 0) {
		fsn_obj_kill(ctx, o);
		/* EINVAL: the watch went already, its IN_IGNORED is queued */
		if (inotify_rm_watch(ctx->ifd, o->wd) < 0 && errno != EINVAL)
			return negative_errno();
		return 0;
	}

	for (const struct fsn_mark *m = o->marks; m; m = m->next)
		mask |= m->mask;
	if (mask == o->kmask)
		return 0;
	fd = obj_open(ctx, o, gone);
	if (fd < 0) {
		/* dispatch hands out only what a remaining mark asked for */
		fsn_ctx_log(
		    ctx, LOG_DEBUG,
		    "inotify watch %d: object not reachable any more, keeps mask 0x%" PRIx64, o->wd,
		    o->kmask);
		return 0;
	}
	wd = inotify_watch(ctx, fd, (uint32_t)mask); /* replaces the mask */
	if (wd < 0)
		return wd;
	if (wd != o->wd) {
		/* the watch was gone and this made a new one: take it away again */
		(void)inotify_rm_watch(ctx->ifd, wd);
		return 0;
	}
	o->kmask = mask;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* marks                                                                    */
/* ------------------------------------------------------------------------ */

static struct fsn_mark *mark_free(struct fsn_mark *m) {
	if (m) {
		free((char *)m->spec.path);
		free(m->abspath);
		free(m);
	}
	return NULL;
}

static inline void mark_freep(struct fsn_mark **m) {
	mark_free(*m);
}

_public_ int fsn_ctx_add_mark(struct fsn_ctx *ctx, const struct fsn_mark_spec *spec,
			      struct fsn_mark **ret) {
	_cleanup_(mark_freep) struct fsn_mark *m = NULL;
	_cleanup_close_ int fd = -1;
	const char *why = NULL;
	struct obj_id id;
	int r;

	if (!ctx || !spec)
		return -EINVAL;
	if ((unsigned)spec->type >= _FSN_MARK_TYPE_MAX || !spec->path ||
	    (spec->flags & ~KNOWN_MARK_FLAGS) ||
	    (spec->type != FSN_MARK_INOTIFY &&
	     ((unsigned)spec->klass >= _FSN_CLASS_MAX || (spec->report & FAN_INIT_RESERVED)))) {
		log_mark_failure(ctx, spec, -EINVAL, "invalid mark spec");
		return -EINVAL;
	}

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->spec = *spec;
	m->spec.path = strdup(spec->path);
	if (!m->spec.path)
		return -ENOMEM;

	fd = openat(spec->dirfd, spec->path, open_flags(spec));
	if (fd < 0) {
		r = negative_errno();
		log_mark_failure(ctx, spec, r, NULL);
		return r;
	}
	r = obj_id_from_fd(fd, spec->type, &id);
	if (r < 0) {
		log_mark_failure(ctx, spec, r, "cannot identify the object");
		return r;
	}
	{
		char path[PATH_MAX];

		/* only used to reach the object again; fine to go without */
		if (fsn_fd_path(fd, path, sizeof(path), NULL) >= 0 && path[0] == '/')
			m->abspath = strdup(path);
	}

	if (spec->type == FSN_MARK_INOTIFY)
		r = add_inotify(ctx, m, fd, &id, &why);
	else
		r = add_fanotify(ctx, m, fd, &id, &why);
	if (r < 0) {
		log_mark_failure(ctx, spec, r, why);
		return r;
	}

	if (ret)
		*ret = m;
	m = NULL; /* owned by its object now */
	return 0;
}

_public_ int fsn_ctx_remove_mark(struct fsn_ctx *ctx, struct fsn_mark *mark) {
	struct fsn_obj *o;
	int r;

	if (!mark)
		return 0;
	if (!ctx)
		return -EINVAL;

	o = mark->obj;
	obj_unlink_mark(o, mark);
	if (o->type == FSN_MARK_INOTIFY)
		r = remove_inotify(ctx, o, mark);
	else
		r = remove_fanotify(ctx, o, mark);
	if (r < 0) {
		_cleanup_free_ char *path = escape_path(mark->spec.path);
		char ebuf[128];

		fsn_ctx_log(ctx, LOG_WARNING, "removing %s mark on \"%s\": %s",
			    mark_type_name[o->type], path ? path : "?",
			    strerror_r(-r, ebuf, sizeof(ebuf)));
	}
	if (o->n_marks == 0)
		obj_free(ctx, o);
	mark_free(mark);
	if (!ctx->cur)
		fsn_ctx_mounts_release(ctx); /* (obj_open() may have opened one) */
	return r;
}

_public_ void *fsn_mark_get_userdata(const struct fsn_mark *mark) {
	return mark ? mark->spec.userdata : NULL;
}

_public_ const struct fsn_mark_spec *fsn_mark_get_spec(const struct fsn_mark *mark) {
	return mark ? &mark->spec : NULL;
}

_public_ struct fsn_group *fsn_mark_get_group(const struct fsn_mark *mark) {
	return mark && mark->obj ? mark->obj->group : NULL;
}

_public_ int fsn_mark_get_fid(const struct fsn_mark *mark, struct fsn_fid *ret) {
	const struct fsn_obj *o = mark ? mark->obj : NULL;

	if (!o || !ret)
		return -EINVAL;
	if (!o->has_handle) {
		*ret = (struct fsn_fid){ .fsid = { o->handle.fsid[0], o->handle.fsid[1] } };
		return -ENODATA;
	}
	*ret = o->handle;
	return 0;
}

/* The context is freed: every mark and object goes, without telling the
 * kernel (closing the fds drops its marks and watches); groups leave with
 * their last object. */
void fsn_ctx_marks_free(struct fsn_ctx *ctx) {
	while (ctx->objs) {
		struct fsn_obj *o = ctx->objs;

		while (o->marks) {
			struct fsn_mark *m = o->marks;

			obj_unlink_mark(o, m);
			mark_free(m);
		}
		obj_free(ctx, o);
	}
}

/* ------------------------------------------------------------------------ */
/* internal accessors for the unit tests                                    */
/* ------------------------------------------------------------------------ */

bool fsn_mark_is_dead(const struct fsn_mark *mark) {
	return mark && mark->obj && mark->obj->dead;
}
