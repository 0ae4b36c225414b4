/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * path.c — from fds and file handles to paths: fsn_fd_path(), the
 * per-filesystem mount fds a context keeps for open_by_handle_at(), and
 * fsn_ctx_fid_path() with the context's FID -> path cache (fidcache.c), which
 * lets an object that has been deleted since (ESTALE) keep the path it had;
 * fsn_ctx_event_dir_path(), the per-group directory paths in that same
 * cache, and fsn_ctx_dir_cache_after(), the one place that keeps them right.
 *
 * The mount fd of a filesystem is the root directory of the first
 * fanotify-marked mount on it, opened O_RDONLY (open_by_handle_at() refuses
 * O_PATH fds) once before the first mark of a group reporting file handles
 * is placed there (other groups never need it), and then again by that
 * root's path whenever events need it (fsn_ctx_mount_fd(): it must still
 * be the same filesystem); fsn_ctx_mounts_release() closes it when
 * fsn_ctx_dispatch() returns, so the mount is not kept busy. It is not the
 * marked object: an fd on that would pin its dentry and delay its
 * DELETE_SELF.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "ctx-private.h"

#define DELETED_SUFFIX " (deleted)"

/* struct file_handle with room for FSN_HANDLE_MAX bytes */
struct handle_buf {
	_Alignas(struct file_handle) unsigned char raw[sizeof(struct file_handle) + FSN_HANDLE_MAX];
};

/* ------------------------------------------------------------------------ */
/* fds                                                                      */
/* ------------------------------------------------------------------------ */

/* fd's path: readlinkat(dirfd, "N") with dirfd an fd of /proc/self/fd, or
 * AT_FDCWD for the whole "/proc/self/fd/N". */
static int fd_path(int dirfd, int fd, char *buf, size_t len, bool *ret_deleted) {
	char proc[sizeof("/proc/self/fd/") + 3 * sizeof(int)];
	char path[PATH_MAX + 1];
	const size_t sl = strlen(DELETED_SUFFIX);
	bool deleted = false;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	if (!buf && len > 0)
		return -EINVAL;

	snprintf(proc, sizeof(proc), "%s%d", dirfd == AT_FDCWD ? "/proc/self/fd/" : "", fd);
	n = readlinkat(dirfd, proc, path, sizeof(path));
	if (n < 0)
		return errno == ENOENT ? -EBADF : negative_errno(); /* no such fd */
	if ((size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	path[n] = '\0';

	/* The kernel appends " (deleted)" to the path of an unlinked dentry.
	 * A file may really be called that: the suffix goes only when the
	 * object has no name left (st_nlink 0). Never by looking the path up:
	 * that is a walk a local user steers (a directory of it replaced by a
	 * symlink into a stalled FUSE mount would stall the caller, e.g. a
	 * thread answering permission events). So a file opened by a name
	 * that was unlinked while another hard link remains keeps the
	 * kernel's suffix, not marked deleted. */
	if (path[0] == '/' && (size_t)n > sl && memcmp(path + n - sl, DELETED_SUFFIX, sl) == 0) {
		if (fstat(fd, &st) < 0)
			return negative_errno();
		if (st.st_nlink == 0) {
			n -= (ssize_t)sl;
			path[n] = '\0';
			deleted = true;
		}
	}

	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, path, (size_t)n + 1);
	if (ret_deleted)
		*ret_deleted = deleted;
	return (int)n;
}

_public_ int fsn_fd_path(int fd, char *buf, size_t len, bool *ret_deleted) {
	return fd_path(AT_FDCWD, fd, buf, len, ret_deleted);
}

_public_ int fsn_ctx_fd_path(struct fsn_ctx *ctx, int fd, char *buf, size_t len,
			     bool *ret_deleted) {
	if (!ctx)
		return -EINVAL;
	if (ctx->proc_fd_dir < 0) {
		ctx->proc_fd_dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (ctx->proc_fd_dir < 0)
			return fd_path(AT_FDCWD, fd, buf, len, ret_deleted);
	}
	return fd_path(ctx->proc_fd_dir, fd, buf, len, ret_deleted);
}

int fsn_fsid_from_fd(int fd, int32_t ret_fsid[2]) {
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return negative_errno();
	memcpy(ret_fsid, &sfs.f_fsid, 2 * sizeof(int32_t));
	return 0;
}

_public_ bool fsn_fid_equal(const struct fsn_fid *a, const struct fsn_fid *b) {
	return a->fsid[0] == b->fsid[0] && a->fsid[1] == b->fsid[1] &&
	       a->handle_type == b->handle_type && a->handle_bytes == b->handle_bytes &&
	       a->handle_bytes <= FSN_HANDLE_MAX &&
	       memcmp(a->f_handle, b->f_handle, a->handle_bytes) == 0;
}

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200 /* 6.5: a handle only to compare, for any filesystem */
#endif

int fsn_fid_from_fd(int fd, struct fsn_fid *ret) {
	struct handle_buf hb;
	struct file_handle *fh = (struct file_handle *)hb.raw;
	struct fsn_fid fid = { 0 };
	int mnt_id, r;

	fh->handle_bytes = FSN_HANDLE_MAX;
	if (name_to_handle_at(fd, "", fh, &mnt_id, AT_EMPTY_PATH) < 0) {
		/* a filesystem that cannot export handles may still give the
		 * kind fanotify reports for it */
		if (errno != EOPNOTSUPP)
			return negative_errno();
		fh->handle_bytes = FSN_HANDLE_MAX;
		if (name_to_handle_at(fd, "", fh, &mnt_id, AT_EMPTY_PATH | AT_HANDLE_FID) < 0)
			return negative_errno();
	}
	if (fh->handle_bytes > FSN_HANDLE_MAX)
		return -EOVERFLOW;
	r = fsn_fsid_from_fd(fd, fid.fsid);
	if (r < 0)
		return r;
	fid.handle_bytes = fh->handle_bytes;
	fid.handle_type = fh->handle_type;
	memcpy(fid.f_handle, fh->f_handle, fh->handle_bytes);
	*ret = fid;
	return 0;
}

int fsn_fid_open(int mount_fd, const struct fsn_fid *fid, int flags) {
	struct handle_buf hb;
	struct file_handle *fh = (struct file_handle *)hb.raw;
	int fd;

	if (fid->handle_bytes > FSN_HANDLE_MAX)
		return -EINVAL;
	fh->handle_bytes = fid->handle_bytes;
	fh->handle_type = fid->handle_type;
	memcpy(fh->f_handle, fid->f_handle, fid->handle_bytes);
	fd = open_by_handle_at(mount_fd, fh, flags);
	return fd < 0 ? negative_errno() : fd;
}

/* ------------------------------------------------------------------------ */
/* mount fds                                                                */
/* ------------------------------------------------------------------------ */

static uint64_t fsid_hash(const int32_t fsid[2]) {
	return hash_bytes(HASH_INIT, fsid, 2 * sizeof(int32_t));
}

static struct fsn_mount *mount_find(const struct fsn_ctx *ctx, const int32_t fsid[2]) {
	uint64_t h = fsid_hash(fsid);

	for (struct fsn_hnode *n = fsn_hmap_chain(&ctx->mounts, h); n; n = n->next) {
		struct fsn_mount *mnt = container_of(n, struct fsn_mount, node);

		if (n->hash == h && mnt->fsid[0] == fsid[0] && mnt->fsid[1] == fsid[1])
			return mnt;
	}
	return NULL;
}

static int statx_dir(int fd, struct statx *sx) {
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_MNT_ID, sx) < 0)
		return negative_errno();
	if (!(sx->stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	return 0;
}

/* The root of the mount fd is on, opened O_RDONLY: climb ".." (with O_PATH
 * fds) while it stays on the same mount and moves (it stops at the
 * process's root too). */
static int open_mount_root(int fd, const char *abspath) {
	_cleanup_close_ int cur = -1;
	struct statx sx;
	uint64_t mnt_id;
	int r;

	r = statx_dir(fd, &sx);
	if (r < 0)
		return r;
	mnt_id = sx.stx_mnt_id;

	if (S_ISDIR(sx.stx_mode))
		cur = openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else {
		_cleanup_free_ char *dir = NULL;
		char *slash;

		/* a non-directory has no "..": start from its parent's path */
		if (!abspath || abspath[0] != '/')
			return -ENOENT;
		dir = strdup(abspath);
		if (!dir)
			return -ENOMEM;
		slash = strrchr(dir, '/');
		slash[slash == dir ? 1 : 0] = '\0';
		cur = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (cur < 0)
		return negative_errno();
	r = statx_dir(cur, &sx);
	if (r < 0)
		return r;
	if (sx.stx_mnt_id != mnt_id)
		return -EXDEV; /* a file bind-mounted on its own */

	for (unsigned depth = 0; depth < PATH_MAX; depth++) {
		_cleanup_close_ int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct statx usx;

		if (up < 0 || statx_dir(up, &usx) < 0)
			break; /* no search permission above: as far as we get */
		if (usx.stx_mnt_id != mnt_id ||
		    (usx.stx_ino == sx.stx_ino && usx.stx_dev_major == sx.stx_dev_major &&
		     usx.stx_dev_minor == sx.stx_dev_minor))
			break;
		safe_close(cur);
		cur = take_fd(&up);
		sx = usx;
	}
	/* open_by_handle_at() wants a real open fd, not O_PATH */
	r = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	return r < 0 ? negative_errno() : r;
}

int fsn_ctx_mount_ref(struct fsn_ctx *ctx, int fd, const char *abspath, const int32_t fsid[2]) {
	struct fsn_mount *mnt = mount_find(ctx, fsid);
	int r;

	if (mnt) {
		mnt->n_ref++;
		return 0;
	}
	mnt = calloc(1, sizeof(*mnt));
	if (!mnt)
		return -ENOMEM;
	mnt->fd = open_mount_root(fd, abspath);
	if (mnt->fd < 0) {
		r = mnt->fd;
		free(mnt);
		return r;
	}
	{
		char root[PATH_MAX];

		/* known by its path: closed until events need it */
		if (fsn_fd_path(mnt->fd, root, sizeof(root), NULL) > 0 && root[0] == '/' &&
		    (mnt->root = strdup(root)))
			mnt->fd = safe_close(mnt->fd);
	}
	mnt->fsid[0] = fsid[0];
	mnt->fsid[1] = fsid[1];
	mnt->n_ref = 1;
	r = fsn_hmap_put(&ctx->mounts, &mnt->node, fsid_hash(fsid));
	if (r < 0) {
		safe_close(mnt->fd);
		free(mnt->root);
		free(mnt);
		return r;
	}
	return 0;
}

void fsn_ctx_mount_unref(struct fsn_ctx *ctx, const int32_t fsid[2]) {
	struct fsn_mount *mnt = mount_find(ctx, fsid);

	if (!mnt || --mnt->n_ref > 0)
		return;
	fsn_hmap_remove(&ctx->mounts, &mnt->node);
	safe_close(mnt->fd);
	free(mnt->root);
	free(mnt);
}

/* The fs's mount fd, opened again by its root's path if it was closed;
 * what opens there must still be that filesystem (fsid), else -ENODEV
 * (unmounted, or something else mounted or planted there). */
int fsn_ctx_mount_fd(struct fsn_ctx *ctx, const int32_t fsid[2]) {
	struct fsn_mount *mnt = mount_find(ctx, fsid);
	int32_t now[2];
	int fd;

	if (!mnt)
		return -ENODEV;
	if (mnt->fd >= 0 || !mnt->root)
		return mnt->fd;
	fd = open(mnt->root, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -ENODEV;
	if (fsn_fsid_from_fd(fd, now) < 0 || now[0] != fsid[0] || now[1] != fsid[1]) {
		safe_close(fd);
		return -ENODEV;
	}
	mnt->fd = fd;
	ctx->mounts_open = true;
	return fd;
}

void fsn_ctx_mounts_release(struct fsn_ctx *ctx) {
	if (!ctx->mounts_open)
		return;
	for (size_t i = 0; i < ctx->mounts.n_buckets; i++)
		for (struct fsn_hnode *n = ctx->mounts.buckets[i]; n; n = n->next) {
			struct fsn_mount *mnt = container_of(n, struct fsn_mount, node);

			if (mnt->root && mnt->fd >= 0)
				mnt->fd = safe_close(mnt->fd);
		}
	ctx->mounts_open = false;
}

/* ------------------------------------------------------------------------ */
/* FID -> path                                                              */
/* ------------------------------------------------------------------------ */

/* dir + "/" + name into buf (dir alone for no name or "."). */
static int compose(const char *dir, const char *name, char *buf, size_t len) {
	size_t dl = strlen(dir), nl = 0, need;
	bool sep = false;

	if (name && strcmp(name, ".") != 0) {
		nl = strlen(name);
		sep = dl == 0 || dir[dl - 1] != '/';
	}
	need = dl + sep + nl;
	if (need >= len || need > INT_MAX)
		return -ENAMETOOLONG;
	memmove(buf, dir, dl);
	if (sep)
		buf[dl] = '/';
	memcpy(buf + dl + sep, name ? name : "", nl);
	buf[need] = '\0';
	return (int)need;
}

static int fid_path(struct fsn_ctx *ctx, const struct fsn_fid *fid, const char *name, char *buf,
		    size_t len, bool *ret_deleted);

_public_ int fsn_ctx_fid_open(struct fsn_ctx *ctx, const struct fsn_fid *fid, int flags) {
	int mfd;

	if (!ctx || !fid || fid->handle_bytes > FSN_HANDLE_MAX)
		return -EINVAL;
	mfd = fsn_ctx_mount_fd(ctx, fid->fsid);
	if (mfd < 0)
		return mfd;
	return fsn_fid_open(mfd, fid, flags | O_CLOEXEC);
}

_public_ int fsn_ctx_fid_path(struct fsn_ctx *ctx, const struct fsn_fid *fid, const char *name,
			      char *buf, size_t len, bool *ret_deleted) {
	int r = fid_path(ctx, fid, name, buf, len, ret_deleted);

	/* outside an event callback, no mount fd stays open (inside, the
	 * dispatch closes them when it returns) */
	if (ctx && !ctx->cur)
		fsn_ctx_mounts_release(ctx);
	return r;
}

static int fid_path(struct fsn_ctx *ctx, const struct fsn_fid *fid, const char *name, char *buf,
		    size_t len, bool *ret_deleted) {
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX];
	bool deleted = false;
	int mfd, r;

	if (!ctx || !fid || (!buf && len > 0) || fid->handle_bytes > FSN_HANDLE_MAX)
		return -EINVAL;

	mfd = fsn_ctx_mount_fd(ctx, fid->fsid);
	if (mfd < 0)
		return mfd;

	fd = fsn_fid_open(mfd, fid, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		r = fsn_ctx_fd_path(ctx, fd, path, sizeof(path), &deleted);
		if (r < 0)
			return r;
		if (!deleted) /* best effort: a failed put just forgets */
			(void)fsn_fidcache_put(ctx->fidcache, FSN_FID_CACHE_TAG, fid, path);
	} else if (fd == -ESTALE) {
		const char *known = fsn_fidcache_get(ctx->fidcache, FSN_FID_CACHE_TAG, fid);

		if (!known || strlen(known) >= sizeof(path))
			return -ESTALE;
		strcpy(path, known);
		deleted = true;
	} else
		return fd;

	r = compose(path, name, buf, len);
	if (r < 0)
		return r;
	if (ret_deleted)
		*ret_deleted = deleted;
	return r;
}

_public_ void fsn_ctx_fid_forget(struct fsn_ctx *ctx, const struct fsn_fid *fid) {
	if (ctx)
		fsn_fidcache_forget_fid(ctx->fidcache, FSN_FID_CACHE_TAG, fid);
}

/* Whether group g sees every directory move on filesystem fsid: it has a
 * filesystem mark there with FAN_MOVED_FROM and FAN_ONDIR. What it knows
 * is worked out again after its filesystem marks changed; its cached
 * directory paths are forgotten then (a move it did not see meanwhile
 * would leave them stale). */
static bool group_sees_moves(struct fsn_ctx *ctx, struct fsn_group *g, const int32_t fsid[2]) {
	if (!g->moves_known) {
		free(g->moves);
		g->moves = NULL;
		g->n_moves = 0;
		for (const struct fsn_obj *o = ctx->objs; o; o = o->next) {
			int32_t(*v)[2];

			if (o->group != g || o->type != FSN_MARK_FILESYSTEM ||
			    !(o->kmask & FAN_MOVED_FROM) || !(o->kmask & FAN_ONDIR))
				continue;
			v = realloc(g->moves, (g->n_moves + 1) * sizeof(*v));
			if (!v)
				break; /* (fewer cached: correct, slower) */
			g->moves = v;
			g->moves[g->n_moves][0] = o->handle.fsid[0];
			g->moves[g->n_moves][1] = o->handle.fsid[1];
			g->n_moves++;
		}
		g->moves_known = true;
		fsn_fidcache_forget_tag(ctx->fidcache, g->id);
	}
	for (size_t i = 0; i < g->n_moves; i++)
		if (g->moves[i][0] == fsid[0] && g->moves[i][1] == fsid[1])
			return true;
	return false;
}

/* The event's group, when its directory paths can be cached; else NULL. */
static struct fsn_group *caching_group(struct fsn_ctx *ctx, const struct fsn_event *ev,
				       const struct fsn_fid *dfid) {
	struct fsn_group *g = ev->group;

	return g && g->ctx == ctx && group_sees_moves(ctx, g, dfid->fsid) ? g : NULL;
}

_public_ int fsn_ctx_event_dir_path(struct fsn_ctx *ctx, const struct fsn_event *ev,
				    const struct fsn_fid *dfid, const char *name, char *buf,
				    size_t len, bool *ret_deleted) {
	struct fsn_group *g;
	const char *dir;
	char tmp[PATH_MAX];
	bool deleted = false;
	int r;

	if (!ctx || !ev || !dfid || ev->source != FSN_SOURCE_FANOTIFY ||
	    dfid->handle_bytes > FSN_HANDLE_MAX)
		return -EINVAL;
	g = caching_group(ctx, ev, dfid);
	if (!g)
		return fsn_ctx_fid_path(ctx, dfid, name, buf, len, ret_deleted);
	dir = fsn_fidcache_get(ctx->fidcache, g->id, dfid);
	if (!dir) {
		r = fsn_ctx_fid_path(ctx, dfid, NULL, tmp, sizeof(tmp), &deleted);
		if (r < 0)
			return r;
		if (!deleted) /* best effort: a failed put just forgets */
			(void)fsn_fidcache_put(ctx->fidcache, g->id, dfid, tmp);
		dir = tmp;
	}
	if (ret_deleted)
		*ret_deleted = deleted;
	return compose(dir, name, buf, len);
}

void fsn_ctx_dir_cache_after(struct fsn_ctx *ctx, struct fsn_group *g, const struct fsn_event *ev) {
	const struct fsn_fid *dfid = NULL;
	const char *name = NULL;
	char gone[PATH_MAX];

	if (ev->mask & FAN_Q_OVERFLOW) {
		/* directory moves may be among what was lost */
		fsn_fidcache_forget_tag(ctx->fidcache, g->id);
		return;
	}
	if (!(ev->mask & FAN_ONDIR))
		return;
	/* a directory renamed or moved: the paths cached under its FID */
	if ((ev->mask & (FAN_MOVED_FROM | FAN_RENAME | FAN_MOVE_SELF)) && (ev->has & FSN_HAS_FID))
		fsn_fidcache_forget_fid(ctx->fidcache, FSN_FID_CACHE_TAG, &ev->fid);
	if (!(ev->mask & (FAN_MOVED_FROM | FAN_RENAME | FAN_DELETE)))
		return;
	/* ... and the group's at and below the path it had */
	if ((ev->mask & FAN_RENAME) && (ev->has & FSN_HAS_OLD)) {
		dfid = &ev->old_dfid;
		name = ev->old_name;
	} else if (ev->has & FSN_HAS_DFID) {
		dfid = &ev->dfid;
		name = ev->name;
	} else if (ev->has & FSN_HAS_NEW) {
		dfid = &ev->new_dfid;
		name = ev->new_name;
	}
	if (!dfid || !name || strcmp(name, ".") == 0 || g->ctx != ctx ||
	    !group_sees_moves(ctx, g, dfid->fsid))
		return;
	if (fsn_ctx_event_dir_path(ctx, ev, dfid, name, gone, sizeof(gone), NULL) >= 0)
		fsn_fidcache_forget_path(ctx->fidcache, g->id, gone);
	else
		fsn_fidcache_forget_tag(ctx->fidcache, g->id); /* (not known where: all) */
}

void fsn_ctx_paths_done(struct fsn_ctx *ctx) {
	ctx->fidcache = fsn_fidcache_free(ctx->fidcache);

	for (size_t i = 0; i < ctx->mounts.n_buckets; i++)
		while (ctx->mounts.buckets[i]) {
			struct fsn_mount *mnt =
			    container_of(ctx->mounts.buckets[i], struct fsn_mount, node);

			ctx->mounts.buckets[i] = mnt->node.next;
			safe_close(mnt->fd);
			free(mnt->root);
			free(mnt);
		}
	fsn_hmap_done(&ctx->mounts);
}
