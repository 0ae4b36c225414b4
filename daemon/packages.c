/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packages.c — dpkg's word on files, and the changes waiting for it
 * (packages.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ev.h>

#include "fsn-util.h"
#include "log.h"
#include "packages.h"
#include "util.h"

#define MD5SUMS ".md5sums"
#define STATUS "status"

/* Ids of changes, unique for the process (not per database: a hash job of
 * a database a reload freed must not reach a new one's change). */
static uint64_t next_change_id;
#define DPKG_WATCHED 8 /* dpkg processes followed at once (apt runs one) */

struct pkg {
	struct pkg *next;
	struct pkgfile *files;
	char name[];
};

/* A top directory of the database's paths, and what it resolves to. */
struct top {
	char name[64], canon[256];
};

struct dpkg_watch {
	pid_t pid;   /* 0: free */
	int fd;      /* its pidfd: readable once it exited */
	bool exited; /* (fd closed) its changes wait for the engine's queues */
	void *mark;  /* (exited) what the queues held at its exit (ops' mark()) */
	ev_io io;
	struct pkgdb *db;
};

struct pkgdb {
	struct ev_loop *loop;
	const struct pkgdb_ops *ops;
	void *userdata;
	char *admindir;
	int adminfd, infofd; /* the directory and its info/, O_PATH */
	int ino;             /* inotify on both, -1: none */
	int wd_admin;        /* (its watch of admindir) */
	ev_io ino_io;
	struct stat status_st; /* the status file read last (which file, when) */
	ev_timer timer;        /* the oldest waiting change's deadline */
	ev_timer settle;       /* (repeating) a dpkg exited: are its events all read? */

	char **prefixes;
	size_t n_prefixes;
	struct top tops[32]; /* (db_path()) */
	size_t n_tops;
	struct fsn_hmap index; /* struct pkgfile by path */
	struct pkg *pkgs;      /* their md5sums' files */
	struct pkg *conf;      /* their conffiles */

	struct pkg_change *head, *tail; /* waiting, oldest first */
	unsigned walking;               /* each_change() runs: resolved ones to grave */
	struct pkg_change *grave;
	struct fsn_hmap steps; /* dpkg's last step waiting of each file (link_step()) */
	size_t n_waiting, max_waiting;
	unsigned wait_sec;
	struct dpkg_watch dpkg[DPKG_WATCHED];

	struct pkgdb_stats stats;
};

/* ---- the index ---- */

static bool in_scope(const struct pkgdb *db, const char *path) {
	for (size_t i = 0; i < db->n_prefixes; i++) {
		const char *p = db->prefixes[i];
		size_t n = strlen(p);

		if (strcmp(p, "/") == 0 ||
		    (strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '/')))
			return true;
	}
	return false;
}

const struct pkgfile *pkgdb_lookup(const struct pkgdb *db, const char *path) {
	size_t len = strlen(path);
	uint64_t h = hash_bytes(HASH_INIT, path, len);

	for (struct fsn_hnode *n = db ? fsn_hmap_chain(&db->index, h) : NULL; n; n = n->next) {
		const struct pkgfile *f = (const struct pkgfile *)n;

		if (n->hash == h && strcmp(f->path, path) == 0)
			return f;
	}
	return NULL;
}

static void pkg_forget(struct pkgdb *db, struct pkg *p) {
	struct pkgfile *f, *next;

	for (f = p->files; f; f = next) {
		next = f->sibling;
		fsn_hmap_remove(&db->index, &f->node);
		db->stats.files--;
		db->stats.conffiles -= f->conffile;
		free(f);
	}
	p->files = NULL;
}

/* The package name (len bytes) of list (db->pkgs, db->conf), added when
 * add and not there. */
static struct pkg *pkg_find(struct pkg **list, const char *name, size_t len, bool add) {
	struct pkg *p;

	for (p = *list; p; p = p->next)
		if (strlen(p->name) == len && memcmp(p->name, name, len) == 0)
			return p;
	if (!add || !(p = calloc(1, sizeof(*p) + len + 1)))
		return NULL;
	memcpy(p->name, name, len);
	p->next = *list;
	*list = p;
	return p;
}

static void pkgs_clear(struct pkgdb *db, struct pkg **list) {
	struct pkg *p, *next;

	for (p = *list; p; p = next) {
		next = p->next;
		pkg_forget(db, p);
		free(p);
	}
	*list = NULL;
}

static bool unhex(const char *s, unsigned char out[16]) {
	for (int i = 0; i < 32; i++) {
		int v = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
			: s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
			: s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10
						     : -1;

		if (v < 0)
			return false;
		if (i % 2 == 0)
			out[i / 2] = (unsigned char)(v << 4);
		else
			out[i / 2] |= (unsigned char)v;
	}
	return true;
}

/* fd's whole text, NUL-terminated, in *ret: its length, or -errno. */
static ssize_t read_all(int fd, char **ret) {
	_cleanup_free_ char *text = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t r;

		if (len + 4096 > cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 16384);

			if (!t)
				return -ENOMEM;
			text = t;
		}
		r = read(fd, text + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		len += (size_t)r;
	}
	text[len] = '\0';
	*ret = text;
	text = NULL;
	return (ssize_t)len;
}

/* The end of the line at line, before end: its '\n', or end. */
static char *line_end(char *line, char *end) {
	char *nl = memchr(line, '\n', (size_t)(end - line));

	return nl ? nl : end;
}

int pkgdb_parse_md5sums(int fd,
			void (*fn)(void *userdata, const char *path, const unsigned char md5[16]),
			void *userdata) {
	_cleanup_free_ char *text = NULL;
	ssize_t len = read_all(fd, &text);
	char path[PATH_MAX];
	int n = 0;

	if (len < 0)
		return (int)len;
	for (char *line = text, *end; line < text + len; line = end + 1) {
		unsigned char md5[16];
		size_t plen;

		end = line_end(line, text + len);
		/* "MD5  path": 32 hex digits, two spaces (or " *"), the path
		 * relative to / */
		if (end - line < 35 || line[32] != ' ' || (line[33] != ' ' && line[33] != '*') ||
		    !unhex(line, md5))
			continue;
		plen = (size_t)(end - (line + 34));
		if (plen + 2 > sizeof(path))
			continue;
		path[0] = '/';
		memcpy(path + 1, line + 34, plen);
		path[plen + 1] = '\0';
		fn(userdata, path, md5);
		n++;
	}
	return n;
}

struct add_ctx {
	struct pkgdb *db;
	struct pkg *pkg;
	int err;
};

/* path as events name it: its first component resolved, where that is a
 * symbolic link (a merged /usr: md5sums list bin/ls, events say
 * /usr/bin/ls), into buf; path itself else. The database's tops (few:
 * /bin, /etc, /lib, /usr ...) are resolved once each. */
static const char *db_path(struct pkgdb *db, const char *path, char *buf, size_t len) {
	const char *slash = strchr(path + 1, '/');
	size_t n = slash ? (size_t)(slash - path) : strlen(path);
	struct top *t = NULL;

	for (size_t i = 0; i < db->n_tops; i++)
		if (strlen(db->tops[i].name) == n && memcmp(db->tops[i].name, path, n) == 0)
			t = &db->tops[i];
	if (!t && db->n_tops < ELEMENTSOF(db->tops) && n < sizeof(t->name)) {
		char *real;

		t = &db->tops[db->n_tops++];
		memcpy(t->name, path, n);
		t->name[n] = '\0';
		real = canonical(t->name);
		snprintf(t->canon, sizeof(t->canon), "%s", real ? real : t->name);
		free(real);
	}
	if (!t || strcmp(t->canon, t->name) == 0 ||
	    (size_t)snprintf(buf, len, "%s%s", t->canon, path + n) >= len)
		return path;
	return buf;
}

/* path (as the database names it: db_path()) of package p, with its md5
 * (NULL: not known), in the index: 0 or -ENOMEM. */
static int index_add(struct pkgdb *db, struct pkg *p, const char *path, const unsigned char *md5,
		     bool conffile) {
	size_t len = strlen(path);
	struct pkgfile *f = malloc(sizeof(*f) + len + 1);

	if (!f)
		return -ENOMEM;
	f->pkg = p->name;
	f->conffile = conffile;
	f->has_md5 = md5 != NULL;
	if (md5)
		memcpy(f->md5, md5, 16);
	memcpy(f->path, path, len + 1);
	f->sibling = p->files;
	/* (a path two packages list, diverted: the one read last) */
	if (fsn_hmap_put(&db->index, &f->node, hash_bytes(HASH_INIT, path, len)) < 0) {
		free(f);
		return -ENOMEM;
	}
	p->files = f;
	db->stats.files++;
	db->stats.conffiles += conffile;
	return 0;
}

static void add_file(void *userdata, const char *raw, const unsigned char md5[16]) {
	struct add_ctx *a = userdata;
	char buf[PATH_MAX];
	const char *path = db_path(a->db, raw, buf, sizeof(buf));
	int r;

	if (in_scope(a->db, path) && (r = index_add(a->db, a->pkg, path, md5, false)) < 0)
		a->err = r;
}

static void add_conffile(void *userdata, const char *pkg, const char *raw,
			 const unsigned char *md5) {
	struct add_ctx *a = userdata;
	char buf[PATH_MAX];
	const char *path = db_path(a->db, raw, buf, sizeof(buf));
	int r;

	if (!in_scope(a->db, path))
		return;
	if (!a->pkg || strcmp(a->pkg->name, pkg) != 0)
		a->pkg = pkg_find(&a->db->conf, pkg, strlen(pkg), true);
	if (!a->pkg)
		a->err = -ENOMEM;
	else if ((r = index_add(a->db, a->pkg, path, md5, true)) < 0)
		a->err = r;
}

/* A file of the database's, opened (name under dirfd): root's, a regular
 * file (another's file there is not dpkg's word), its stat in *st. An fd,
 * or -errno (-ENOENT: none). */
static int open_db_file(int dirfd, const char *name, struct stat *st) {
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != 0) {
		safe_close(fd);
		return -EPERM;
	}
	return fd;
}

/* One stanza of a status file (parse_status()). */
struct stanza {
	const char *pkg, *arch;
	int pkg_len, arch_len;
	bool same;             /* Multi-Arch: same (its name has :arch) */
	char *conf, *conf_end; /* its Conffiles lines */
};

/* " /path MD5 [obsolete] [remove-on-upgrade]": the path and MD5 (NULL:
 * "newconffile") of the line, in place; false: not such a line. */
static bool conffile_line(char *line, char *end, char **path, const char **md5) {
	static const char *const flags[] = { "obsolete", "remove-on-upgrade" };

	for (;;) {
		char *sp;
		bool flag = false;

		while (end > line && end[-1] == ' ')
			end--;
		*end = '\0';
		sp = strrchr(line, ' ');
		if (!sp || sp == line)
			return false;
		for (size_t i = 0; i < ELEMENTSOF(flags); i++)
			flag = flag || strcmp(sp + 1, flags[i]) == 0;
		if (!flag) {
			*md5 = strcmp(sp + 1, "newconffile") == 0 ? NULL : sp + 1;
			*sp = '\0';
			*path = line + 1;
			return line[0] == ' ' && line[1] == '/' && (!*md5 || strlen(*md5) == 32);
		}
		end = sp;
	}
}

static int stanza_conffiles(const struct stanza *s,
			    void (*fn)(void *userdata, const char *pkg, const char *path,
				       const unsigned char *md5),
			    void *userdata) {
	char name[256];
	int n = 0;

	if (!s->pkg || !s->conf)
		return 0;
	snprintf(name, sizeof(name), "%.*s%s%.*s", s->pkg_len, s->pkg,
		 s->same && s->arch ? ":" : "", s->same && s->arch ? s->arch_len : 0,
		 s->arch ? s->arch : "");
	for (char *line = s->conf, *end; line < s->conf_end; line = end + 1) {
		unsigned char md5[16];
		const char *hex;
		char *path;

		end = line_end(line, s->conf_end);
		if (!conffile_line(line, end, &path, &hex) || (hex && !unhex(hex, md5)))
			continue;
		fn(userdata, name, path, hex ? md5 : NULL);
		n++;
	}
	return n;
}

/* The value of field name ("Package") if line is that field, else NULL;
 * its length in *len. */
static const char *field(const char *line, const char *end, const char *name, int *len) {
	size_t n = strlen(name);
	const char *v;

	if ((size_t)(end - line) <= n || strncmp(line, name, n) != 0 || line[n] != ':')
		return NULL;
	for (v = line + n + 1; v < end && *v == ' '; v++)
		;
	*len = (int)(end - v);
	return v;
}

int pkgdb_parse_status(int fd,
		       void (*fn)(void *userdata, const char *pkg, const char *path,
				  const unsigned char *md5),
		       void *userdata) {
	_cleanup_free_ char *text = NULL;
	ssize_t len = read_all(fd, &text);
	struct stanza s = { 0 };
	bool in_conf = false;
	int n = 0, vlen;
	const char *v;

	if (len < 0)
		return (int)len;
	/* (the last stanza ends at the text's end: an empty line there) */
	for (char *line = text, *end; line <= text + len; line = end + 1) {
		end = line_end(line, text + len);
		if (line[0] == ' ' || line[0] == '\t') {
			if (in_conf)
				s.conf_end = end;
			continue;
		}
		in_conf = false;
		if (line == end) { /* the stanza's end */
			n += stanza_conffiles(&s, fn, userdata);
			s = (struct stanza){ 0 };
		} else if ((v = field(line, end, "Package", &vlen))) {
			s.pkg = v;
			s.pkg_len = vlen;
		} else if ((v = field(line, end, "Architecture", &vlen))) {
			s.arch = v;
			s.arch_len = vlen;
		} else if ((v = field(line, end, "Multi-Arch", &vlen))) {
			s.same = vlen == 4 && strncmp(v, "same", 4) == 0;
		} else if (field(line, end, "Conffiles", &vlen)) {
			in_conf = true;
			s.conf = s.conf_end = end + 1 <= text + len ? end + 1 : end;
		}
	}
	return n;
}

/* The status file's conffiles read anew, when it is another file than was
 * read last (dpkg renames a new one into place) or force: 0 or -errno
 * (none then). */
static int status_read(struct pkgdb *db, bool force) {
	struct add_ctx a = { .db = db };
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = open_db_file(db->adminfd, STATUS, &st);
	if (fd >= 0 && !force && st.st_dev == db->status_st.st_dev &&
	    st.st_ino == db->status_st.st_ino && st.st_size == db->status_st.st_size &&
	    st.st_mtim.tv_sec == db->status_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == db->status_st.st_mtim.tv_nsec)
		return 0;
	pkgs_clear(db, &db->conf);
	db->status_st = (struct stat){ 0 };
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	db->status_st = st;
	r = pkgdb_parse_status(fd, add_conffile, &a);
	return r < 0 ? r : a.err;
}

/* Package name's md5sums (the file info/NAME.md5sums) read anew: its
 * files replace what the index had of it; gone, none. */
static int pkg_read(struct pkgdb *db, const char *file) {
	size_t len = strlen(file) - strlen(MD5SUMS);
	struct add_ctx a = { .db = db };
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	a.pkg = pkg_find(&db->pkgs, file, len, false);
	if (!a.pkg && (a.pkg = pkg_find(&db->pkgs, file, len, true)))
		db->stats.packages++;
	if (!a.pkg)
		return -ENOMEM;
	pkg_forget(db, a.pkg);
	fd = open_db_file(db->infofd, file, &st);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	r = pkgdb_parse_md5sums(fd, add_file, &a);
	return r < 0 ? r : a.err;
}

static bool is_md5sums(const char *name) {
	size_t n = strlen(name), s = strlen(MD5SUMS);

	return n > s && strcmp(name + n - s, MD5SUMS) == 0 && name[0] != '.';
}

/* ---- waiting changes ---- */

static void change_free(struct pkg_change *c) {
	free(c->rule);
	free(c->path);
	free(c->held);
	free(c);
}

static void unlink_change(struct pkgdb *db, struct pkg_change *c) {
	if (c->in_steps) {
		fsn_hmap_remove(&db->steps, &c->step_node);
		c->in_steps = false;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		db->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		db->tail = c->prev;
	db->n_waiting--;
	db->stats.waiting = db->n_waiting;
}

/* dpkg writes a file as NAME.dpkg-new (NAME.dpkg-tmp) and renames it over
 * NAME: the length of c's path without such an ending (dpkg's changes). */
static size_t base_len(const struct pkg_change *c) {
	static const char *const temp[] = { ".dpkg-new", ".dpkg-tmp" };
	size_t n = strlen(c->path);

	for (size_t i = 0; c->dpkg && i < ELEMENTSOF(temp); i++) {
		size_t t = strlen(temp[i]);

		if (n > t && strcmp(c->path + n - t, temp[i]) == 0)
			return n - t;
	}
	return n;
}

/* The database's entry for c's file (one of dpkg's temporaries: as NAME). */
static const struct pkgfile *change_lookup(const struct pkgdb *db, const struct pkg_change *c) {
	size_t n = base_len(c);
	char base[PATH_MAX];

	if (c->path[n] == '\0' || n >= sizeof(base))
		return pkgdb_lookup(db, c->path);
	memcpy(base, c->path, n);
	base[n] = '\0';
	return pkgdb_lookup(db, base);
}

/* One of dpkg's temporaries (NAME.dpkg-new, NAME.dpkg-tmp) */
static bool is_temp(const struct pkg_change *c) {
	return c->path[base_len(c)] != '\0';
}

#define CHANGE_OF_STEP(n)                                                                          \
	((struct pkg_change *)((char *)(n)-offsetof(struct pkg_change, step_node)))

/* dpkg's steps to one file for one rule: the same rule and path, or NAME
 * of a temporary (its key in the steps map), by any dpkg (one runs at a
 * time, its lock says: apt's --unpack writes a conffile's temporary, its
 * --configure renames it). */
static uint64_t step_hash(const struct pkg_change *c) {
	uint64_t h = hash_bytes(HASH_INIT, c->rule, strlen(c->rule) + 1);

	return hash_bytes(h, c->path, base_len(c));
}

static bool same_file(const struct pkg_change *a, const struct pkg_change *b) {
	size_t n = base_len(a);

	return a->dpkg && b->dpkg && strcmp(a->rule, b->rule) == 0 && base_len(b) == n &&
	       memcmp(a->path, b->path, n) == 0;
}

/* c, new and dpkg's: the next step to a file a change waiting made before
 * (dpkg writes every file of a package as a temporary first, links the old
 * one as NAME.dpkg-tmp, and renames them over their names at the end): the
 * last step says what all of them are. The steps map holds each file's
 * last step waiting. */
static void link_step(struct pkgdb *db, struct pkg_change *c) {
	uint64_t h;

	if (!c->dpkg)
		return;
	h = step_hash(c);
	for (struct fsn_hnode *n = fsn_hmap_chain(&db->steps, h); n; n = n->next) {
		struct pkg_change *d = CHANGE_OF_STEP(n);

		if (n->hash == h && d->in_steps && same_file(d, c)) {
			if (is_temp(c) && !is_temp(d) && c->dpkg == d->dpkg) {
				/* a temporary read after its rename into place (two
				 * groups' queues, read in turn): dpkg made it before
				 * the rename, which stays the last step */
				c->earlier = d->earlier;
				if (d->earlier)
					d->earlier->later = c;
				d->earlier = c;
				c->later = d;
				return;
			}
			d->later = c;
			c->earlier = d;
			fsn_hmap_remove(&db->steps, &d->step_node);
			d->in_steps = false;
			break;
		}
	}
	c->in_steps = fsn_hmap_put(&db->steps, &c->step_node, h) == 0;
}

/* A resolved change freed, or kept until the walk of the list ends (its
 * next still leads on) */
static void bury(struct pkgdb *db, struct pkg_change *c) {
	if (!db->walking) {
		change_free(c);
		return;
	}
	c->dead = true;
	c->grave_next = db->grave;
	db->grave = c;
}

static void resolve(struct pkgdb *db, struct pkg_change *c) {
	const struct pkgfile *pf = change_lookup(db, c);
	bool verified = pf && pf->has_md5 && c->has_md5 && memcmp(pf->md5, c->md5, 16) == 0;
	struct pkg_change *d, *next;

	if (!pf)
		db->stats.unlisted++;
	else if (verified)
		db->stats.verified++;
	else
		db->stats.mismatched++;
	/* dpkg's earlier steps of the same file: as this one says, first
	 * (their held records; their content records are this one's) */
	for (d = c->earlier; d && d->earlier; d = d->earlier)
		;
	for (; d && d != c; d = next) {
		next = d->later;
		d->later = NULL;
		unlink_change(db, d);
		db->ops->resolved(db->userdata, d, pf, verified, true);
		bury(db, d);
	}
	c->earlier = NULL;
	if (c->later) /* (resolved first: the deadline, the stop) */
		c->later->earlier = NULL;
	unlink_change(db, c);
	db->ops->resolved(db->userdata, c, pf, verified, false);
	bury(db, c);
}

/* Resolve c if it can be: hashed, and not dpkg's, or dpkg's, its last
 * step of the file so far, and dpkg gone or (not a temporary) its md5sums
 * read since. A temporary (NAME.dpkg-new) waits for its rename or dpkg's
 * exit: the md5sums dpkg writes after the rename can reach the daemon
 * before the rename does (another queue), and would check the temporary
 * alone. A conffile is in no md5sums: dpkg's change waits for dpkg's exit
 * (the status it writes then has the conffile's new MD5), its temporary
 * for the rename, which the next dpkg may make (apt's --configure), or the
 * deadline. */
static void try_resolve(struct pkgdb *db, struct pkg_change *c) {
	bool temp = is_temp(c);
	const struct pkgfile *pf;

	if (!c->hashed || (c->dpkg && c->later))
		return;
	if (!c->dpkg) {
		resolve(db, c);
		return;
	}
	pf = change_lookup(db, c);
	if (pf && pf->conffile ? c->dpkg_done && !temp : c->dpkg_done || (c->listed && !temp))
		resolve(db, c);
}

/* fn, then try_resolve(), on each change pred says. A change resolved
 * takes its earlier steps with it, which can come after it in the list
 * (read after it: link_step()): they are buried, not freed, until the walk
 * ends, so that it can go on through them. */
static void each_change(struct pkgdb *db, bool (*pred)(const struct pkg_change *c, const void *arg),
			const void *arg, void (*fn)(struct pkg_change *c)) {
	struct pkg_change *c, *next;

	db->walking++;
	for (c = db->head; c; c = next) {
		next = c->next;
		if (c->dead || !pred(c, arg))
			continue;
		fn(c);
		try_resolve(db, c);
	}
	if (--db->walking == 0)
		while ((c = db->grave)) {
			db->grave = c->grave_next;
			change_free(c);
		}
}

static bool of_pkg(const struct pkg_change *c, const void *arg) {
	const struct pkgdb *db = ((const void *const *)arg)[0];
	const char *pkg = ((const void *const *)arg)[1];
	const struct pkgfile *pf = change_lookup(db, c);

	return c->dpkg && pf && !pf->conffile && strcmp(pf->pkg, pkg) == 0;
}

static void set_listed(struct pkg_change *c) {
	c->listed = true;
}

static bool of_pid(const struct pkg_change *c, const void *arg) {
	return c->dpkg == *(const pid_t *)arg;
}

static void set_dpkg_done(struct pkg_change *c) {
	c->dpkg_done = true;
}

static void info_read(struct pkgdb *db);

/* Each dpkg that exited: its changes are what they are once the engine
 * read every event made before (they were all queued when it exited, the
 * mark taken then; a rename may still wait in a queue behind the
 * temporary's write, ops' passed()); until then, asked again every
 * SETTLE_SEC. */
#define SETTLE_SEC 0.01

static void watch_free(struct pkgdb *db, struct dpkg_watch *dw) {
	if (dw->mark && db->ops->free_mark)
		db->ops->free_mark(dw->mark);
	dw->mark = NULL;
	dw->pid = 0;
	dw->exited = false;
}

static void settle_exits(struct pkgdb *db) {
	bool waiting = false;

	for (unsigned i = 0; i < DPKG_WATCHED; i++) {
		struct dpkg_watch *dw = &db->dpkg[i];
		pid_t pid = dw->pid;

		if (!dw->exited)
			continue;
		if (db->ops->passed && !db->ops->passed(db->userdata, dw->mark)) {
			waiting = true;
			continue;
		}
		watch_free(db, dw);
		each_change(db, of_pid, &pid, set_dpkg_done);
	}
	if (!waiting)
		ev_timer_stop(db->loop, &db->settle);
	else if (!ev_is_active(&db->settle))
		ev_timer_again(db->loop, &db->settle);
}

static void on_settle(struct ev_loop *loop, ev_timer *w, int revents) {
	(void)loop;
	(void)revents;
	settle_exits(w->data);
}

static void on_dpkg_exit(struct ev_loop *loop, ev_io *w, int revents) {
	struct dpkg_watch *dw = w->data;
	struct pkgdb *db = dw->db;
	int r;

	(void)revents;
	/* (first: what it made before it exited is queued now) */
	dw->mark = db->ops->mark ? db->ops->mark(db->userdata) : NULL;
	ev_io_stop(loop, w);
	dw->fd = safe_close(dw->fd);
	dw->exited = true;
	/* what dpkg wrote to its database before it exited (its md5sums, its
	 * status renamed into place): read now, whatever order the loop
	 * takes the queues in */
	info_read(db);
	if ((r = status_read(db, false)) < 0)
		log_warning("packages: %s/" STATUS ": %s", db->admindir, strerror(-r));
	settle_exits(db);
}

bool pkgdb_follows(const struct pkgdb *db, pid_t pid) {
	for (unsigned i = 0; db && pid > 0 && i < DPKG_WATCHED; i++)
		if (db->dpkg[i].pid == pid)
			return true;
	return false;
}

/* Follow dpkg process pid until it exits (a pidfd); false: cannot (then
 * its changes wait for their md5sums or the deadline). */
static bool follow_dpkg(struct pkgdb *db, pid_t pid) {
	struct dpkg_watch *free_slot = NULL;
	int fd;

	for (unsigned i = 0; i < DPKG_WATCHED; i++) {
		if (db->dpkg[i].pid == pid)
			return true;
		if (!db->dpkg[i].pid && !free_slot)
			free_slot = &db->dpkg[i];
	}
	if (!free_slot)
		return false;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 && errno != ESRCH)
		return false;
	*free_slot = (struct dpkg_watch){ .pid = pid, .fd = fd, .db = db, .exited = fd < 0 };
	if (fd < 0) { /* gone already: as at its exit, from the loop */
		free_slot->mark = db->ops->mark ? db->ops->mark(db->userdata) : NULL;
		if (!ev_is_active(&db->settle))
			ev_timer_again(db->loop, &db->settle);
		return true;
	}
	ev_io_init(&free_slot->io, on_dpkg_exit, fd, EV_READ);
	free_slot->io.data = free_slot;
	ev_io_start(db->loop, &free_slot->io);
	return true;
}

static bool pid_alive(pid_t pid) {
	return kill(pid, 0) == 0 || errno == EPERM;
}

static void arm_timer(struct pkgdb *db) {
	double left;

	ev_timer_stop(db->loop, &db->timer);
	if (!db->head)
		return;
	left =
	    ((double)db->head->since + (double)db->wait_sec * 1e6 - (double)now_monotonic_usec()) /
	    1e6;
	ev_timer_set(&db->timer, left > 0 ? left : 0., 0.);
	ev_timer_start(db->loop, &db->timer);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents) {
	struct pkgdb *db = w->data;
	uint64_t now = now_monotonic_usec();

	(void)loop;
	(void)revents;
	/* the oldest first: those past the deadline are checked as they stand */
	while (db->head && db->head->since + (uint64_t)db->wait_sec * 1000000u <= now) {
		struct pkg_change *c = db->head;

		/* (a hash still to come is dropped) */
		if (!c->hashed)
			c->content.skipped = "backlog";
		c->dpkg_done = c->hashed = true;
		resolve(db, c);
	}
	arm_timer(db);
}

/* A heap copy of rec (strings, who, attrs, in one block). */
static struct record *record_dup(const struct record *rec) {
	const char *s[] = { rec->rule,
			    rec->path,
			    rec->old_path,
			    rec->comm,
			    rec->who ? rec->who->exe : NULL,
			    rec->who ? rec->who->parent_comm : NULL,
			    rec->who ? rec->who->unit : NULL,
			    rec->who ? rec->who->slice : NULL,
			    rec->who ? rec->who->container : NULL };
	size_t need =
	    sizeof(struct record) + sizeof(struct record_who) + 2 * sizeof(struct record_attrs);
	struct record *r;
	struct record_who *w;
	struct record_attrs *a;
	char *p;
	const char **d[ELEMENTSOF(s)];

	for (size_t i = 0; i < ELEMENTSOF(s); i++)
		need += s[i] ? strlen(s[i]) + 1 : 0;
	r = malloc(need);
	if (!r)
		return NULL;
	*r = *rec;
	w = (struct record_who *)(r + 1);
	a = (struct record_attrs *)(w + 1);
	p = (char *)(a + 2);
	if (rec->who) {
		*w = *rec->who;
		r->who = w;
	}
	if (rec->attrs) {
		a[0] = *rec->attrs;
		r->attrs = &a[0];
	}
	if (rec->attrs_before) {
		a[1] = *rec->attrs_before;
		r->attrs_before = &a[1];
	}
	d[0] = &r->rule;
	d[1] = &r->path;
	d[2] = &r->old_path;
	d[3] = &r->comm;
	d[4] = &w->exe;
	d[5] = &w->parent_comm;
	d[6] = &w->unit;
	d[7] = &w->slice;
	d[8] = &w->container;
	for (size_t i = 0; i < ELEMENTSOF(s); i++) {
		if (!s[i])
			continue;
		*d[i] = strcpy(p, s[i]);
		p += strlen(s[i]) + 1;
	}
	r->label = NULL; /* (the rule's, when it goes out) */
	return r;
}

int64_t pkgdb_wait(struct pkgdb *db, const char *rule, const struct record *rec, pid_t dpkg,
		   bool hold) {
	struct pkg_change *c;

	if (db->n_waiting >= db->max_waiting) {
		db->stats.no_room++;
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->rule = strdup(rule)) || !(c->path = strdup(rec->path)) ||
	    (hold && !(c->held = record_dup(rec)))) {
		if (c)
			change_free(c);
		return -ENOMEM;
	}
	c->id = ++next_change_id;
	c->mask = rec->mask;
	c->content.event_usec = rec->time_usec;
	c->dpkg = dpkg;
	c->since = now_monotonic_usec();
	if (dpkg && !follow_dpkg(db, dpkg))
		c->dpkg_done = !pid_alive(dpkg);
	link_step(db, c);
	c->prev = db->tail;
	if (db->tail)
		db->tail->next = c;
	else
		db->head = c;
	db->tail = c;
	db->n_waiting++;
	db->stats.waiting = db->n_waiting;
	if (!ev_is_active(&db->timer))
		arm_timer(db);
	return (int64_t)c->id;
}

void pkgdb_spooled(struct pkgdb *db, uint64_t id) {
	/* (from the tail: the change pkgdb_wait() just made) */
	for (struct pkg_change *c = db->tail; c; c = c->prev)
		if (c->id == id) {
			c->spooled = true;
			return;
		}
}

void pkgdb_hashed(struct pkgdb *db, uint64_t id, const struct record_content *content,
		  const unsigned char *md5) {
	for (struct pkg_change *c = db->head; c; c = c->next)
		if (c->id == id) {
			c->hashed = true;
			c->content.skipped = content->skipped;
			c->content.size = content->size;
			c->content.has_size = content->has_size;
			memcpy(c->content.sha256, content->sha256, sizeof(c->content.sha256));
			c->has_md5 = md5 != NULL;
			if (md5)
				memcpy(c->md5, md5, 16);
			try_resolve(db, c);
			return;
		}
}

/* ---- the database's directory ---- */

static void on_info(struct ev_loop *loop, ev_io *w, int revents) {
	(void)loop;
	(void)revents;
	info_read(w->data);
}

/* What inotify says of the database's directories, read until none. */
static void info_read(struct pkgdb *db) {
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while (db->ino >= 0 && (n = read(db->ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ie = (const struct inotify_event *)p;

			p += sizeof(*ie) + ie->len;
			if (ie->mask & IN_Q_OVERFLOW) {
				(void)pkgdb_scope(db, db->prefixes, db->n_prefixes, db->max_waiting,
						  db->wait_sec);
				continue;
			}
			if (ie->wd == db->wd_admin) {
				int r = ie->len && strcmp(ie->name, STATUS) == 0
					    ? status_read(db, false)
					    : 0;

				if (r < 0)
					log_warning("packages: %s/" STATUS ": %s", db->admindir,
						    strerror(-r));
				continue;
			}
			if (ie->len && is_md5sums(ie->name)) {
				int r = pkg_read(db, ie->name);
				size_t len = strlen(ie->name) - strlen(MD5SUMS);
				char pkg[NAME_MAX + 1];
				const void *arg[2] = { db, pkg };

				if (r < 0)
					log_warning("packages: %s/info/%s: %s", db->admindir,
						    ie->name, strerror(-r));
				snprintf(pkg, sizeof(pkg), "%.*s", (int)len, ie->name);
				each_change(db, of_pkg, arg, set_listed);
			}
		}
	}
}

int pkgdb_new(struct ev_loop *loop, const char *admindir, const struct pkgdb_ops *ops,
	      void *userdata, struct pkgdb **ret) {
	struct pkgdb *db = calloc(1, sizeof(*db));

	if (!db || !(db->admindir = strdup(admindir))) {
		free(db);
		return -ENOMEM;
	}
	db->loop = loop;
	db->ops = ops;
	db->userdata = userdata;
	db->adminfd = db->infofd = db->ino = db->wd_admin = -1;
	ev_timer_init(&db->timer, on_deadline, 0., 0.);
	db->timer.data = db;
	ev_timer_init(&db->settle, on_settle, 0., SETTLE_SEC);
	db->settle.data = db;
	*ret = db;
	return 0;
}

static void index_clear(struct pkgdb *db) {
	pkgs_clear(db, &db->pkgs);
	pkgs_clear(db, &db->conf);
	db->stats.packages = 0;
	db->status_st = (struct stat){ 0 };
	fsn_hmap_done(&db->index);
}

/* An inotify watch of the database's directory name (under admindir) for
 * mask, or -1 (logged). */
static int watch_db(struct pkgdb *db, const char *name, uint32_t mask) {
	char path[PATH_MAX];
	int wd;

	snprintf(path, sizeof(path), "%s%s", db->admindir, name);
	wd = inotify_add_watch(db->ino, path, mask | IN_ONLYDIR | IN_DONT_FOLLOW);
	if (wd < 0)
		/* (read it now all the same: dpkg's changes are then checked
		 * when dpkg exits, against what was read) */
		log_warning("packages: cannot watch %s: %s; what dpkg writes there later is "
			    "not known",
			    path, strerror(errno));
	return wd;
}

int pkgdb_scope(struct pkgdb *db, char *const *prefixes, size_t n, size_t max_waiting,
		unsigned wait_sec) {
	_cleanup_closedir_ DIR *d = NULL;
	char **copy = prefixes == db->prefixes ? db->prefixes : strv_copy(prefixes, n);
	struct dirent *de;
	int fd, r = 0;

	if (!copy && n)
		return -ENOMEM;
	if (copy != db->prefixes) {
		strv_free(db->prefixes, db->n_prefixes);
		db->prefixes = copy;
		db->n_prefixes = n;
	}
	db->max_waiting = max_waiting;
	db->wait_sec = wait_sec;
	db->n_tops = 0; /* (resolved anew: a mount may have changed them) */
	index_clear(db);
	if (db->ino < 0) {
		db->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (db->ino < 0)
			log_warning("packages: inotify: %s; what dpkg writes later is not known",
				    strerror(errno));
		else if (watch_db(db, "/info",
				  IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE) < 0)
			db->ino = safe_close(db->ino);
		else {
			db->wd_admin = watch_db(db, "", IN_MOVED_TO);
			ev_io_init(&db->ino_io, on_info, db->ino, EV_READ);
			db->ino_io.data = db;
			ev_io_start(db->loop, &db->ino_io);
		}
	}
	db->adminfd = safe_close(db->adminfd);
	db->infofd = safe_close(db->infofd);
	db->adminfd = open(db->admindir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	db->infofd = openat(db->adminfd, "info", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fd = openat(db->infofd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (db->adminfd < 0 || db->infofd < 0 || fd < 0 || !(d = fdopendir(fd))) {
		r = -errno;
		safe_close(fd);
		log_warning("packages: cannot read %s/info: %s", db->admindir, strerror(-r));
		return r;
	}
	while ((de = readdir(d)))
		if (is_md5sums(de->d_name) && (r = pkg_read(db, de->d_name)) == -ENOMEM)
			return r;
	if ((r = status_read(db, true)) < 0)
		log_warning("packages: %s/" STATUS ": %s; conffiles are not known", db->admindir,
			    strerror(-r));
	return r == -ENOMEM ? r : 0;
}

void pkgdb_get_stats(const struct pkgdb *db, struct pkgdb_stats *ret) {
	*ret = db ? db->stats : (struct pkgdb_stats){ 0 };
}

struct pkgdb *pkgdb_free(struct pkgdb *db) {
	if (!db)
		return NULL;
	while (db->head) {
		if (!db->head->hashed)
			db->head->content.skipped = "stopped";
		db->head->dpkg_done = db->head->hashed = true;
		resolve(db, db->head);
	}
	for (unsigned i = 0; i < DPKG_WATCHED; i++)
		if (db->dpkg[i].pid) {
			ev_io_stop(db->loop, &db->dpkg[i].io);
			safe_close(db->dpkg[i].fd);
			watch_free(db, &db->dpkg[i]);
		}
	if (db->ino >= 0)
		ev_io_stop(db->loop, &db->ino_io);
	ev_timer_stop(db->loop, &db->timer);
	ev_timer_stop(db->loop, &db->settle);
	safe_close(db->ino);
	safe_close(db->adminfd);
	safe_close(db->infofd);
	index_clear(db);
	fsn_hmap_done(&db->steps);
	strv_free(db->prefixes, db->n_prefixes);
	free(db->admindir);
	free(db);
	return NULL;
}
