/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolve.c — rule paths resolved one component at a time, following only
 * the symlinks no other user controls (see resolve.h). The walk holds an
 * O_PATH fd of the directory it is in, opens the next component from it
 * with O_NOFOLLOW, and checks what it opened: a symlink is judged by its
 * own owner and by the directory the walk holds, never by a path looked
 * up again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "resolve.h"
#include "util.h"

/* Only root or self can change the entries of the directory dir. */
static bool dir_trusted(const struct stat *dir, uid_t self) {
	return (dir->st_uid == 0 || dir->st_uid == self) && !(dir->st_mode & (S_IWGRP | S_IWOTH));
}

bool symlink_trusted(const struct stat *link, const struct stat *dir, uid_t self) {
	return (link->st_uid == 0 || link->st_uid == self) && dir_trusted(dir, self);
}

bool resolved_stable(const struct resolved *r, uid_t self) {
	return r->stop == RESOLVE_OK && dir_trusted(&r->dir_st, self);
}

const char *resolved_fd_path(const struct resolved *r, char *buf, size_t len) {
	snprintf(buf, len, "/proc/self/fd/%d", r->fd);
	return buf;
}

/* The walk's state: the directory it is in (fd, its path) and what is left
 * to walk (components separated by '/'). */
struct walk {
	int dfd;
	char path[PATH_MAX]; /* of dfd, without symlinks */
	size_t plen;
	char rest[PATH_MAX]; /* still to walk */
	unsigned links;
};

static int walk_root(struct walk *w) {
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	safe_close(w->dfd);
	w->dfd = fd;
	w->path[0] = '/';
	w->path[1] = '\0';
	w->plen = 1;
	return 0;
}

/* Take the next component of w->rest into name (NUL-terminated); false
 * when none is left. */
static bool next_component(struct walk *w, char *name, size_t len) {
	char *s = w->rest, *e;
	size_t n;

	while (*s == '/')
		s++;
	if (!*s) {
		w->rest[0] = '\0';
		return false;
	}
	e = strchrnul(s, '/');
	n = (size_t)(e - s);
	if (n >= len)
		n = len - 1; /* (NAME_MAX + 1 bytes: openat() then says ENAMETOOLONG) */
	memcpy(name, s, n);
	name[n] = '\0';
	memmove(w->rest, e, strlen(e) + 1);
	return true;
}

static bool rest_empty(const struct walk *w) {
	return w->rest[strspn(w->rest, "/")] == '\0';
}

/* Enter the directory fd (named name in w->path). */
static int walk_enter(struct walk *w, int fd, const char *name) {
	size_t n = strlen(name);

	if (w->plen + (w->plen > 1) + n >= sizeof(w->path))
		return -ENAMETOOLONG;
	if (w->plen > 1)
		w->path[w->plen++] = '/';
	memcpy(w->path + w->plen, name, n + 1);
	w->plen += n;
	safe_close(w->dfd);
	w->dfd = fd;
	return 0;
}

static int walk_up(struct walk *w) {
	char *slash;
	int fd;

	if (w->plen == 1)
		return 0; /* "/..": "/" */
	fd = openat(w->dfd, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	safe_close(w->dfd);
	w->dfd = fd;
	slash = strrchr(w->path, '/');
	w->plen = slash == w->path ? 1 : (size_t)(slash - w->path);
	w->path[w->plen] = '\0';
	return 0;
}

/* Follow the symlink lfd (named name, in w->dfd): its target, then what
 * was left. Refused unless trusted. */
static int walk_link(struct walk *w, int lfd, const struct stat *lst, uid_t self,
		     struct resolved *ret) {
	char target[PATH_MAX];
	struct stat dst;
	ssize_t n;
	size_t rest;

	if (fstat(w->dfd, &dst) < 0)
		return -errno;
	if (!symlink_trusted(lst, &dst, self)) {
		ret->stop = RESOLVE_REFUSED;
		ret->link_uid = lst->st_uid;
		ret->self = self;
		ret->dir_uid = dst.st_uid;
		ret->dir_mode = dst.st_mode;
		return -ELOOP;
	}
	if (++w->links > RESOLVE_MAX_LINKS)
		return -ELOOP;
	n = readlinkat(lfd, "", target, sizeof(target));
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOENT;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	rest = strlen(w->rest);
	if ((size_t)n + 1 + rest >= sizeof(w->rest))
		return -ENAMETOOLONG;
	memmove(w->rest + n + 1, w->rest, rest + 1);
	memcpy(w->rest, target, (size_t)n);
	w->rest[n] = '/';
	return target[0] == '/' ? walk_root(w) : 0;
}

/* Note the symlink name (in w's directory) among ret's links. */
static int note_link(const struct walk *w, const char *name, struct resolved *ret) {
	char **v = realloc(ret->links, (ret->n_links + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	ret->links = v;
	if (asprintf(&v[ret->n_links], "%s%s%s", w->path, w->plen > 1 ? "/" : "", name) < 0)
		return -ENOMEM;
	ret->n_links++;
	return 0;
}

/* One component of the walk, not followed: a directory opened as one (so
 * an automount there is triggered, as a lookup through it would), else
 * whatever it is (a symlink, a file). */
static int open_component(int dfd, const char *name) {
	int fd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOTDIR)
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

int path_resolve(const char *path, uid_t self, unsigned flags, struct resolved *ret) {
	struct walk *w = calloc(1, sizeof(*w));
	char name[NAME_MAX + 2];
	int r = 0;

	*ret =
	    (struct resolved){ .fd = -1, .dir_fd = -1, .stop = RESOLVE_FAILED, .error = -ENOMEM };
	if (!w)
		return -ENOMEM;
	ret->stop = RESOLVE_OK;
	w->dfd = -1;
	if (!path || path[0] != '/')
		r = -EINVAL;
	else if (strlen(path) >= sizeof(w->rest))
		r = -ENAMETOOLONG;
	else {
		memcpy(w->rest, path, strlen(path) + 1);
		r = walk_root(w);
	}
	while (r == 0 && next_component(w, name, sizeof(name))) {
		struct stat st;
		int fd;

		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			r = walk_up(w);
			continue;
		}
		fd = open_component(w->dfd, name);
		if (fd < 0 && errno == ENOENT && (flags & RESOLVE_MKDIR) &&
		    (mkdirat(w->dfd, name, 0755) == 0 || errno == EEXIST))
			fd = open_component(w->dfd, name);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			safe_close(fd);
			ret->name = strdup(name);
			break;
		}
		if (S_ISLNK(st.st_mode) && !(rest_empty(w) && (flags & RESOLVE_NOFOLLOW))) {
			if ((flags & RESOLVE_LINKS) && ret->n_links < RESOLVE_MAX_LINKS)
				r = note_link(w, name, ret);
			if (r == 0)
				r = walk_link(w, fd, &st, self, ret);
			safe_close(fd);
			if (r < 0)
				ret->name = strdup(name);
			continue;
		}
		if (!rest_empty(w) && !S_ISDIR(st.st_mode)) {
			r = -ENOTDIR;
			safe_close(fd);
			ret->name = strdup(name);
			break;
		}
		if (rest_empty(w)) {
			/* the object: the walk's path names it */
			if (fstat(w->dfd, &ret->dir_st) < 0) {
				r = -errno;
				safe_close(fd);
				break;
			}
			r = walk_enter(w, -1, name);
			if (r < 0) {
				safe_close(fd);
				break;
			}
			ret->fd = fd;
			ret->st = st;
			break;
		}
		r = walk_enter(w, fd, name);
		if (r < 0)
			safe_close(fd);
	}
	if (r == 0 && ret->fd < 0) {
		/* the path was "/" (or ended in "..", "."): the directory itself */
		ret->fd = w->dfd;
		w->dfd = -1;
		if (fstat(ret->fd, &ret->st) < 0)
			r = -errno;
		ret->dir_st = ret->st; /* ("/"; a directory reached by "..": taken as its own) */
	}
	ret->path = strdup(w->path);
	if (r == 0 && !ret->path)
		r = -ENOMEM;
	if (r < 0) {
		ret->fd = safe_close(ret->fd);
		if (ret->stop != RESOLVE_REFUSED)
			ret->stop = r == -ENOENT && ret->name ? RESOLVE_MISSING : RESOLVE_FAILED;
		if (ret->stop != RESOLVE_FAILED) {
			ret->dir_fd = w->dfd;
			w->dfd = -1;
		}
	}
	safe_close(w->dfd);
	free(w);
	ret->error = r;
	return r;
}

void resolved_done(struct resolved *r) {
	if (!r)
		return;
	r->fd = safe_close(r->fd);
	r->dir_fd = safe_close(r->dir_fd);
	strv_free(r->links, r->n_links);
	r->links = NULL;
	r->n_links = 0;
	free(r->path);
	free(r->name);
	r->path = r->name = NULL;
}

const char *resolved_says(const struct resolved *r, const char *path, char *buf, size_t len) {
	char esc[PATH_MAX * 4], why[PATH_MAX * 4 + 256];

	snprintf(buf, len, "\"%s\": %s", text_escaped(esc, sizeof(esc), path),
		 resolved_why(r, why, sizeof(why)));
	return buf;
}

const char *resolved_stop_path(const struct resolved *r, char *buf, size_t len) {
	const char *p = r->path ? r->path : "";
	int n;

	if (!r->name)
		n = snprintf(buf, len, "%s", p);
	else
		n = snprintf(buf, len, "%s%s%s", p, strcmp(p, "/") == 0 ? "" : "/", r->name);
	return n < 0 || (size_t)n >= len ? NULL : buf;
}

const char *resolved_why(const struct resolved *r, char *buf, size_t len) {
	char at[PATH_MAX], esc[PATH_MAX * 4];
	const char *p = resolved_stop_path(r, at, sizeof(at));

	text_escaped(esc, sizeof(esc), p ? p : "?");
	switch (r->stop) {
	case RESOLVE_OK: snprintf(buf, len, "resolved"); break;
	case RESOLVE_MISSING: snprintf(buf, len, "does not exist"); break;
	case RESOLVE_REFUSED: {
		char who[128];
		uid_t self = r->self;

		if (r->link_uid != 0 && r->link_uid != self)
			snprintf(who, sizeof(who), "uid %u owns it", (unsigned)r->link_uid);
		else if (r->dir_uid != 0 && r->dir_uid != self)
			snprintf(who, sizeof(who), "uid %u owns its directory",
				 (unsigned)r->dir_uid);
		else
			snprintf(who, sizeof(who), "its directory is writable by %s",
				 (r->dir_mode & S_IWOTH) ? "others" : "its group");
		snprintf(buf, len,
			 "symlink \"%s\" not followed (%s; a symlink on a rule's path is followed "
			 "only when root owns it and its directory and no other user can write to "
			 "that directory)",
			 esc, who);
		break;
	}
	case RESOLVE_FAILED:
		if (r->error == -ELOOP)
			snprintf(buf, len, "cannot reach it: more than %d symlinks at \"%s\"",
				 RESOLVE_MAX_LINKS, esc);
		else
			snprintf(buf, len, "cannot reach it: %s at \"%s\"", strerror(-r->error),
				 esc);
		break;
	}
	return buf;
}

char *resolve_canonical(const char *path) {
	struct resolved r;
	char *c;

	if (path_resolve(path, geteuid(), 0, &r) == 0) {
		c = steal_ptr(&r.path);
		resolved_done(&r);
		return c;
	}
	resolved_done(&r);
	return path ? strdup(path) : NULL;
}

uint64_t resolved_mnt_id(const struct resolved *r) {
	struct statx sx;

	if (r->fd < 0 ||
	    statx(r->fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID,
		  &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return 0;
	return sx.stx_mnt_id;
}

int resolve_identity(const char *path, unsigned flags, struct stat *st, uint64_t *mnt_id) {
	struct resolved r;
	int k = path_resolve(path, geteuid(), flags & RESOLVE_NOFOLLOW, &r);

	if (k == 0) {
		*st = r.st;
		*mnt_id = resolved_mnt_id(&r);
	}
	resolved_done(&r);
	return k;
}

struct fsn_mark_spec resolved_spec(const struct resolved *r, const struct fsn_mark_spec *spec,
				   char *buf, size_t len) {
	struct fsn_mark_spec s = *spec;

	resolved_fd_path(r, buf, len);
	s.dirfd = AT_FDCWD;
	s.path = buf;
	/* (the magic link is followed to the object itself, a symlink too) */
	s.flags &= ~(uint32_t)FSN_MARK_F_DONT_FOLLOW;
	return s;
}

void resolved_unname(char *msg, size_t len, const char *fd_path, const char *path) {
	char *at = strstr(msg, fd_path), esc[PATH_MAX * 2], *tail;

	if (!at)
		return;
	tail = strdup(at + strlen(fd_path));
	if (!tail)
		return;
	text_escaped(esc, sizeof(esc), path);
	snprintf(at, len - (size_t)(at - msg), "%s%s", esc, tail);
	free(tail);
}
