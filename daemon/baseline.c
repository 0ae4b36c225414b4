/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * baseline.c — the inventory of a rule's paths in SQLite, and the walk
 * that compares it with what is there (baseline.h).
 *
 * Order: the rows of a rule are kept in the byte order of their paths (the
 * primary key). A walk meets them in that order if, in each directory, it
 * takes the entries sorted by name and goes down into a directory NAME at
 * the place of "NAME/" among them: "a" < "a-b" < "a/" < "a0" as "/d/a" <
 * "/d/a-b" < "/d/a/x" < "/d/a0". Then one cursor over the rows and the
 * walk advance together: a row before the walk's object is gone, a row
 * equal to it is compared, an object before the next row is new.
 *
 * Two connections: a reader whose read transaction is the snapshot the
 * cursor walks, and a writer that records the differences, in batches,
 * each committed after the differences it records were handed out. The
 * objects that went and came are kept in temporary tables (on disk, not
 * in memory) until the walk is over, so that a file handle that left one
 * path and appeared at another is told as renamed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sqlite3.h>

#include "attrcache.h"
#include "baseline.h"
#include "escape.h"
#include "hasher.h"
#include "pathset.h"
#include "util.h"

#define APPLICATION_ID 0x46534e44 /* "FSND" */
#define FORMAT 2
#define BATCH 1000 /* writes per commit */

#define COLS                                                                                       \
	"path,type,mode,uid,gid,size,mtime_sec,mtime_nsec,ctime_sec,ctime_nsec,ino,dev,nlink,"     \
	"btime_sec,btime_nsec,handle,target,sha256,md5,recorded"
/* their parameters */
#define QS "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"
#define COL_DEFS                                                                                   \
	"path BLOB NOT NULL,type INTEGER NOT NULL,mode INTEGER NOT NULL,uid INTEGER NOT NULL,"     \
	"gid INTEGER NOT NULL,size INTEGER NOT NULL,mtime_sec INTEGER NOT NULL,"                   \
	"mtime_nsec INTEGER NOT NULL,ctime_sec INTEGER NOT NULL,ctime_nsec INTEGER NOT NULL,"      \
	"ino INTEGER NOT NULL,dev INTEGER NOT NULL,nlink INTEGER NOT NULL,btime_sec INTEGER,"      \
	"btime_nsec INTEGER,handle BLOB,target BLOB,sha256 TEXT,md5 BLOB,recorded INTEGER NOT "    \
	"NULL"

static const char schema[] =
    "CREATE TABLE rules(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " scope TEXT NOT NULL, complete INTEGER NOT NULL DEFAULT 0, scanned INTEGER,"
    " objects INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE objects(rule INTEGER NOT NULL," COL_DEFS ", PRIMARY KEY(rule, path))"
    " WITHOUT ROWID;";

/* What went and came, until the walk is over; over: an object at a path
 * the baseline has, but another one (another file handle): the one there
 * went (gone), another came (born), perhaps renamed over it. */
static const char temp_schema[] =
    "CREATE TEMP TABLE IF NOT EXISTS gone(over INTEGER NOT NULL," COL_DEFS ","
    " PRIMARY KEY(path)) WITHOUT ROWID;"
    "CREATE TEMP TABLE IF NOT EXISTS born(over INTEGER NOT NULL," COL_DEFS ","
    " paired INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(path)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS temp.born_handle ON born(handle);";

struct baseline {
	char *file;
	const volatile bool *stop; /* (baseline_set_stop()) */
	sqlite3 *db;               /* the writer (and the temporary tables) */
	sqlite3 *rd;               /* the reader: the snapshot a walk's cursor reads */
};

/* ---- errors ---- */

static int sql_errno(int rc) {
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE: return 0;
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB: return -EBADMSG;
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_BUSY:
	case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH: return -EACCES;
	case SQLITE_CANTOPEN: return -ENOENT;
	default: return -EIO;
	}
}

/* rc's errno, with what went wrong in err (when rc is an error). */
static int sql_fail(sqlite3 *db, int rc, const char *what, char *err, size_t errlen) {
	int r = sql_errno(rc);

	if (r < 0 && err && errlen)
		snprintf(err, errlen, "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	return r;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen) {
	return sql_fail(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql, err, errlen);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err, size_t errlen) {
	return sql_fail(db, sqlite3_prepare_v2(db, sql, -1, st, NULL), sql, err, errlen);
}

static void finalize(sqlite3_stmt **st) {
	sqlite3_finalize(*st);
	*st = NULL;
}

/* ---- opening ---- */

static int open_conn(const char *file, sqlite3 **ret, char *err, size_t errlen) {
	int rc = sqlite3_open_v2(
	    file, ret, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(*ret, rc, file, err, errlen);
	sqlite3_busy_timeout(*ret, 10000);
	sqlite3_extended_result_codes(*ret, 1);
	return 0;
}

static int64_t one_int(sqlite3 *db, const char *sql, int *r) {
	sqlite3_stmt *st = NULL;
	int64_t v = 0;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	*r = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_errno(rc);
	sqlite3_finalize(st);
	return v;
}

/* The database as ours: made if empty, checked if not (-EBADMSG: not a
 * baseline database of this format). */
static int setup(struct baseline *b, char *err, size_t errlen) {
	int64_t app, version = 0, tables = 0;
	int r;

	r = exec(b->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err, errlen);
	if (r < 0)
		return r;
	app = one_int(b->db, "PRAGMA application_id", &r);
	if (r == 0)
		version = one_int(b->db, "PRAGMA user_version", &r);
	if (r == 0)
		tables = one_int(b->db, "SELECT count(*) FROM sqlite_schema", &r);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", b->file, sqlite3_errmsg(b->db));
		return r;
	}
	if (app == 0 && tables == 0) {
		char sql[sizeof(schema) + 128];

		snprintf(sql, sizeof(sql),
			 "BEGIN; %s PRAGMA application_id=%d; PRAGMA user_version=%d; COMMIT;",
			 schema, APPLICATION_ID, FORMAT);
		return exec(b->db, sql, err, errlen);
	}
	if (app != APPLICATION_ID || version != FORMAT) {
		snprintf(err, errlen,
			 "%s: not a baseline database of this fsnotifyd (application id %#llx, "
			 "format %lld)",
			 b->file, (unsigned long long)app, (long long)version);
		return -EBADMSG;
	}
	return 0;
}

struct baseline *baseline_close(struct baseline *b) {
	if (!b)
		return NULL;
	sqlite3_close_v2(b->rd);
	sqlite3_close_v2(b->db);
	free(b->file);
	free(b);
	return NULL;
}

/* file (and its WAL and shared memory) moved aside as FILE.bad, a former
 * one replaced. */
static void set_aside(const char *file) {
	static const char *const ext[] = { "", "-wal", "-shm" };

	for (size_t i = 0; i < ELEMENTSOF(ext); i++) {
		char from[PATH_MAX], to[PATH_MAX];

		snprintf(from, sizeof(from), "%s%s", file, ext[i]);
		snprintf(to, sizeof(to), "%s.bad%s", file, ext[i]);
		if (rename(from, to) < 0 && errno == ENOENT)
			(void)unlink(to);
	}
}

static int try_open(const char *file, struct baseline **ret, char *err, size_t errlen) {
	struct baseline *b = calloc(1, sizeof(*b));
	int r;

	if (!b || !(b->file = strdup(file))) {
		free(b);
		return -ENOMEM;
	}
	r = state_file_open(AT_FDCWD, NULL, file, 0, err, errlen);
	if (r >= 0) {
		safe_close(r);
		r = open_conn(file, &b->db, err, errlen);
	}
	if (r == 0)
		r = setup(b, err, errlen);
	if (r == 0)
		r = open_conn(file, &b->rd, err, errlen);
	if (r == 0)
		r = exec(b->db, temp_schema, err, errlen);
	if (r < 0) {
		baseline_close(b);
		return r;
	}
	*ret = b;
	return 0;
}

int baseline_open(const char *dir, bool fresh, struct baseline **ret, bool *ret_replaced, char *err,
		  size_t errlen) {
	char file[PATH_MAX], why[1024] = "";
	int r;

	*ret = NULL;
	*ret_replaced = false;
	r = state_dir_open(dir, err, errlen);
	if (r < 0)
		return r;
	safe_close(r);
	/* SQLite's temporary files (a walk's tables of what went and came) in
	 * dir too, not the /tmp others may fill (one thread opens databases) */
	if (!sqlite3_temp_directory || strcmp(sqlite3_temp_directory, dir) != 0) {
		char *t = sqlite3_mprintf("%s", dir);

		if (!t)
			return -ENOMEM;
		sqlite3_free(sqlite3_temp_directory);
		sqlite3_temp_directory = t;
	}
	if ((size_t)snprintf(file, sizeof(file), "%s/%s", dir, BASELINE_FILE) >= sizeof(file))
		return -ENAMETOOLONG;
	if (fresh)
		set_aside(file);
	else {
		r = try_open(file, ret, why, sizeof(why));
		if (r != -EBADMSG) {
			snprintf(err, errlen, "%s", why);
			return r;
		}
		set_aside(file);
	}
	*ret_replaced = true;
	r = try_open(file, ret, err, errlen);
	if (r == 0 && why[0])
		snprintf(err, errlen, "%s", why); /* (what the one set aside was) */
	return r;
}

void baseline_set_stop(struct baseline *b, const volatile bool *stop) {
	b->stop = stop;
}

uint64_t baseline_disk_bytes(const struct baseline *b) {
	uint64_t n = 0;

	for (int i = 0; b && i < 2; i++) {
		char p[PATH_MAX];
		struct stat st;

		snprintf(p, sizeof(p), "%s%s", b->file, i ? "-wal" : "");
		if (stat(p, &st) == 0)
			n += (uint64_t)st.st_size;
	}
	return n;
}

/* ---- objects and rows ---- */

void baseline_object_clear(struct baseline_object *o) {
	free(o->path);
	free(o->target);
	*o = (struct baseline_object){ 0 };
}

/* o into st's parameters first.. (one per column of COLS) */
static int bind_object(sqlite3_stmt *st, int first, const struct baseline_object *o) {
	const struct record_attrs *a = &o->attrs;
	int i = first, rc = 0;

	rc |= sqlite3_bind_blob(st, i++, o->path, (int)strlen(o->path), SQLITE_STATIC);
	rc |= sqlite3_bind_int64(st, i++, a->type);
	rc |= sqlite3_bind_int64(st, i++, a->mode);
	rc |= sqlite3_bind_int64(st, i++, a->uid);
	rc |= sqlite3_bind_int64(st, i++, a->gid);
	rc |= sqlite3_bind_int64(st, i++, (int64_t)a->size);
	rc |= sqlite3_bind_int64(st, i++, a->mtime_sec);
	rc |= sqlite3_bind_int64(st, i++, a->mtime_nsec);
	rc |= sqlite3_bind_int64(st, i++, a->ctime_sec);
	rc |= sqlite3_bind_int64(st, i++, a->ctime_nsec);
	rc |= sqlite3_bind_int64(st, i++, (int64_t)a->ino);
	rc |= sqlite3_bind_int64(st, i++, (int64_t)a->dev);
	rc |= sqlite3_bind_int64(st, i++, a->nlink);
	if (a->has_btime) {
		rc |= sqlite3_bind_int64(st, i++, a->btime_sec);
		rc |= sqlite3_bind_int64(st, i++, a->btime_nsec);
	} else {
		rc |= sqlite3_bind_null(st, i++);
		rc |= sqlite3_bind_null(st, i++);
	}
	if (o->handle_len)
		rc |= sqlite3_bind_blob(st, i++, o->handle, (int)o->handle_len, SQLITE_STATIC);
	else
		rc |= sqlite3_bind_null(st, i++);
	if (o->target)
		rc |= sqlite3_bind_blob(st, i++, o->target, (int)strlen(o->target), SQLITE_STATIC);
	else
		rc |= sqlite3_bind_null(st, i++);
	if (o->sha256[0])
		rc |= sqlite3_bind_text(st, i++, o->sha256, -1, SQLITE_STATIC);
	else
		rc |= sqlite3_bind_null(st, i++);
	if (o->has_md5)
		rc |= sqlite3_bind_blob(st, i++, o->md5, 16, SQLITE_STATIC);
	else
		rc |= sqlite3_bind_null(st, i++);
	rc |= sqlite3_bind_int64(st, i++, (int64_t)o->seen_usec);
	return rc == SQLITE_OK ? 0 : -ENOMEM;
}

/* A blob column as a string (NULL: none). */
static char *col_str(sqlite3_stmt *st, int c) {
	const void *p = sqlite3_column_blob(st, c);
	int n = sqlite3_column_bytes(st, c);
	char *s;

	if (sqlite3_column_type(st, c) == SQLITE_NULL || !(s = malloc((size_t)n + 1)))
		return NULL;
	if (n > 0) /* (an empty blob's pointer is NULL) */
		memcpy(s, p, (size_t)n);
	s[n] = '\0';
	return s;
}

/* The row at st's columns first.. into o (cleared first): 0 or -ENOMEM. */
static int read_object(sqlite3_stmt *st, int first, struct baseline_object *o) {
	struct record_attrs *a = &o->attrs;
	int i = first;
	const void *h;
	int hl;

	baseline_object_clear(o);
	if (!(o->path = col_str(st, i++)))
		return -ENOMEM;
	a->type = (uint32_t)sqlite3_column_int64(st, i++);
	a->mode = (uint32_t)sqlite3_column_int64(st, i++);
	a->uid = (uint32_t)sqlite3_column_int64(st, i++);
	a->gid = (uint32_t)sqlite3_column_int64(st, i++);
	a->size = (uint64_t)sqlite3_column_int64(st, i++);
	a->mtime_sec = sqlite3_column_int64(st, i++);
	a->mtime_nsec = (uint32_t)sqlite3_column_int64(st, i++);
	a->ctime_sec = sqlite3_column_int64(st, i++);
	a->ctime_nsec = (uint32_t)sqlite3_column_int64(st, i++);
	a->ino = (uint64_t)sqlite3_column_int64(st, i++);
	a->dev = (uint64_t)sqlite3_column_int64(st, i++);
	a->nlink = (uint32_t)sqlite3_column_int64(st, i++);
	a->has_btime = sqlite3_column_type(st, i) != SQLITE_NULL;
	a->btime_sec = sqlite3_column_int64(st, i++);
	a->btime_nsec = (uint32_t)sqlite3_column_int64(st, i++);
	h = sqlite3_column_blob(st, i);
	hl = sqlite3_column_bytes(st, i++);
	if (h && hl > 0 && hl <= BASELINE_HANDLE_MAX) {
		memcpy(o->handle, h, (size_t)hl);
		o->handle_len = (unsigned)hl;
	}
	o->target = col_str(st, i++);
	if (sqlite3_column_type(st, i) == SQLITE_TEXT)
		snprintf(o->sha256, sizeof(o->sha256), "%s",
			 (const char *)sqlite3_column_text(st, i));
	i++;
	if (sqlite3_column_bytes(st, i) == 16) {
		memcpy(o->md5, sqlite3_column_blob(st, i), 16);
		o->has_md5 = true;
	}
	i++;
	o->seen_usec = (uint64_t)sqlite3_column_int64(st, i++);
	return 0;
}

/* ---- a scan ---- */

enum how {
	REPORT, /* differences reported (UPDATE, CHECK) */
	SILENT, /* recorded, not reported (INIT, sync) */
};

struct scan {
	struct baseline *b;
	const struct baseline_rule *r;
	enum how how;
	bool record; /* write the differences (not CHECK) */
	baseline_report_fn report;
	baseline_flush_fn flush;
	void *userdata;
	struct baseline_result *res;
	char *err;
	size_t errlen;
	int64_t rule_id;
	uint64_t now_usec;
	unsigned depth;

	sqlite3_stmt *cur; /* the reader's rows of the root being walked */
	bool row_ok;       /* row is the cursor's current one */
	struct baseline_object row;
	sqlite3_stmt *put, *del, *put_gone, *put_born;
	unsigned pending; /* writes since the last commit */
	bool stopped;     /* limit: the rest is kept as it is */
	bool empty;       /* the rule's rows were emptied: no cursor */
	struct hash_reader hr;
	bool hr_ok;
};

static int fail(struct scan *s, int r, const char *what) {
	if (r < 0 && s->err[0] == '\0')
		snprintf(s->err, s->errlen, "%s: %s", what, strerror(-r));
	return r;
}

static int step_done(struct scan *s, sqlite3_stmt *st, const char *what) {
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(s->b->db, rc, what, s->err, s->errlen);
}

/* A write done: every BATCH, what was reported is handed out (flush) and
 * the writes committed. */
static int wrote(struct scan *s) {
	int r;

	if (!s->record || ++s->pending < BATCH)
		return 0;
	s->pending = 0;
	if (s->flush && (r = s->flush(s->userdata)) < 0)
		return fail(s, r, "handing out the differences");
	return exec(s->b->db, "COMMIT; BEGIN", s->err, s->errlen);
}

static int row_put(struct scan *s, const struct baseline_object *o) {
	int r;

	if (!s->record)
		return 0;
	if (sqlite3_bind_int64(s->put, 1, s->rule_id) != SQLITE_OK ||
	    (r = bind_object(s->put, 2, o)) < 0)
		return fail(s, -ENOMEM, "binding a row");
	r = step_done(s, s->put, "recording an object");
	return r < 0 ? r : wrote(s);
}

static int row_del(struct scan *s, const char *path) {
	int r;

	if (!s->record)
		return 0;
	sqlite3_bind_int64(s->del, 1, s->rule_id);
	sqlite3_bind_blob(s->del, 2, path, (int)strlen(path), SQLITE_STATIC);
	r = step_done(s, s->del, "forgetting an object");
	return r < 0 ? r : wrote(s);
}

static int temp_put(struct scan *s, sqlite3_stmt *st, const struct baseline_object *o, bool over) {
	if (sqlite3_bind_int(st, 1, over) != SQLITE_OK || bind_object(st, 2, o) < 0)
		return fail(s, -ENOMEM, "binding a row");
	return step_done(s, st, "keeping an object for the end of the walk");
}

/* The cursor's next row (row_ok false at the end). */
static int advance(struct scan *s) {
	int rc;

	s->row_ok = false;
	if (!s->cur)
		return 0;
	rc = sqlite3_step(s->cur);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return sql_fail(s->b->rd, rc, "reading the baseline", s->err, s->errlen);
	if (read_object(s->cur, 0, &s->row) < 0)
		return fail(s, -ENOMEM, "reading a row");
	s->row_ok = true;
	return 0;
}

static int report(struct scan *s, const char *change, const struct baseline_object *before,
		  const struct baseline_object *now) {
	struct baseline_diff d = {
		.change = change,
		.old_path = strcmp(change, "renamed") == 0 ? before->path : NULL,
		.before = before,
		.now = now,
	};
	int r = s->report ? s->report(s->userdata, &d) : 0;

	return r < 0 ? fail(s, r, "reporting a difference") : 0;
}

/* The cursor's row is not there any more: deleted (silently: at once), or
 * kept for the end (renamed, or deleted). */
static int row_gone(struct scan *s) {
	if (s->how == SILENT)
		return row_del(s, s->row.path);
	return temp_put(s, s->put_gone, &s->row, false);
}

/* Rows before path (exclusive) are gone. With under, path's subtree is
 * not walked: the rows before path + "/" are gone but path's own (kept:
 * its object was looked at, or could not be), and those under path + "/"
 * kept as they are; "NAME.conf" sorts between "NAME" and "NAME/". */
static int rows_until(struct scan *s, const char *path, bool under) {
	char prefix[PATH_MAX + 2];
	size_t n;
	int r;

	if (!under) {
		while (s->row_ok && strcmp(s->row.path, path) < 0)
			if ((r = row_gone(s)) < 0 || (r = advance(s)) < 0)
				return r;
		return 0;
	}
	n = (size_t)snprintf(prefix, sizeof(prefix), "%s/", strcmp(path, "/") == 0 ? "" : path);
	if (n >= sizeof(prefix))
		return fail(s, -ENAMETOOLONG, path);
	while (s->row_ok && strcmp(s->row.path, prefix) < 0) {
		if (strcmp(s->row.path, path) != 0 && (r = row_gone(s)) < 0)
			return r;
		if ((r = advance(s)) < 0)
			return r;
	}
	while (s->row_ok && strncmp(s->row.path, prefix, n) == 0)
		if ((r = advance(s)) < 0)
			return r;
	return 0;
}

/* The row of path, if there is one, is kept as it is (an object that
 * could not be looked at). */
static int keep_one(struct scan *s, const char *path) {
	int r = rows_until(s, path, false);

	return r == 0 && s->row_ok && strcmp(s->row.path, path) == 0 ? advance(s) : r;
}

/* The rows of a subtree that is not walked (another mount, unreadable, too
 * deep) are kept as they are. */
static int keep_subtree(struct scan *s, const char *path, const char *why) {
	s->res->unwalked++;
	if (why && !s->res->incomplete)
		s->res->incomplete = why;
	return rows_until(s, path, true);
}

/* (not the device number: a reboot may number it anew) */
static bool same_content_version(const struct record_attrs *a, const struct record_attrs *b) {
	return a->size == b->size && a->mtime_sec == b->mtime_sec &&
	       a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec &&
	       a->ctime_nsec == b->ctime_nsec && a->ino == b->ino;
}

/* o's SHA-256, where the rule hashes a regular file: the row's when the
 * file is the same version (size, times, inode), else read now. */
static void fill_hash(struct scan *s, struct baseline_object *o, const struct baseline_object *row,
		      int dirfd, const char *name) {
	struct record_content c = { 0 };
	struct stat st;
	int fd;

	if (!(s->r->hash || s->r->md5) || (o->attrs.type & S_IFMT) != S_IFREG)
		return;
	if (row && (row->sha256[0] || !s->r->hash) && (row->attrs.type & S_IFMT) == S_IFREG &&
	    same_content_version(&row->attrs, &o->attrs)) {
		memcpy(o->sha256, row->sha256, sizeof(o->sha256));
		memcpy(o->md5, row->md5, sizeof(o->md5));
		o->has_md5 = row->has_md5;
		return;
	}
	if (!s->hr_ok && hash_reader_init(&s->hr) == 0)
		s->hr_ok = true;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !s->hr_ok) {
		o->hash_skipped = fd < 0 ? lookup_failure(-errno) : "error";
		safe_close(fd);
		return;
	}
	/* (the object looked at, not one renamed in since: else no hash) */
	if (fstat(fd, &st) < 0 || st.st_ino != o->attrs.ino || st.st_dev != o->attrs.dev) {
		o->hash_skipped = "changing";
		safe_close(fd);
		return;
	}
	if (hasher_hash_fd(&s->hr, fd, s->r->hash_max_size, 0, s->b->stop, &c,
			   s->r->md5 ? o->md5 : NULL)) {
		o->has_md5 = s->r->md5;
		if (s->r->hash)
			memcpy(o->sha256, c.sha256, sizeof(o->sha256));
	} else if (s->r->hash)
		o->hash_skipped = c.skipped;
	safe_close(fd);
}

static bool differs(const struct baseline_object *a, const struct baseline_object *b) {
	const char *names[RECORD_ATTRS_N];

	return record_attrs_changed(&a->attrs, &b->attrs, names) > 0 ||
	       (a->target || b->target) != (a->target && b->target) ||
	       (a->target && strcmp(a->target, b->target) != 0) ||
	       (a->sha256[0] && b->sha256[0] && strcmp(a->sha256, b->sha256) != 0);
}

/* Another object than the row's at its path: another file handle. */
static bool other_object(const struct baseline_object *row, const struct baseline_object *o) {
	return row->handle_len && o->handle_len &&
	       (row->handle_len != o->handle_len || memcmp(row->handle, o->handle, o->handle_len));
}

/* One object the walk found (dirfd's entry name; dirfd AT_FDCWD: a root),
 * against the rows. */
static int visit(struct scan *s, struct baseline_object *o, int dirfd, const char *name) {
	int r = s->b->stop && *s->b->stop ? fail(s, -ECANCELED, "the walk") : 0;

	if (r == 0)
		r = rows_until(s, o->path, false);
	if (r < 0)
		return r;
	s->res->objects++;
	o->seen_usec = s->now_usec;
	if (s->row_ok && strcmp(s->row.path, o->path) == 0) {
		fill_hash(s, o, &s->row, dirfd, name);
		if (s->how == REPORT && other_object(&s->row, o)) {
			/* (renamed over it, or changed: told at the end) */
			if ((r = temp_put(s, s->put_gone, &s->row, true)) < 0 ||
			    (r = temp_put(s, s->put_born, o, true)) < 0)
				return r;
			return advance(s);
		}
		if (differs(&s->row, o)) {
			s->res->changed++;
			if (s->how == REPORT && (r = report(s, "changed", &s->row, o)) < 0)
				return r;
			r = row_put(s, o);
		} else if (!s->row.sha256[0] && o->sha256[0])
			r = row_put(s, o); /* (the rule hashes since: the hash known now) */
		return r < 0 ? r : advance(s);
	}
	fill_hash(s, o, NULL, dirfd, name);
	if (s->how == SILENT)
		return row_put(s, o);
	return temp_put(s, s->put_born, o, false);
}

/* dirfd's entry name (AT_FDCWD: the path) as an object: 1, 0 gone, -errno. */
static int look(int dirfd, const char *name, const char *path, struct baseline_object *o) {
	struct {
		struct file_handle fh;
		unsigned char bytes[BASELINE_HANDLE_MAX];
	} h;
	const char *at = dirfd == AT_FDCWD ? path : name;
	int mnt, r;

	*o = (struct baseline_object){ 0 };
	r = attrs_read(dirfd, at, &o->attrs);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return r;
	if (!(o->path = strdup(path)))
		return -ENOMEM;
	h.fh.handle_bytes = BASELINE_HANDLE_MAX - sizeof(int);
	if (name_to_handle_at(dirfd, at, &h.fh, &mnt, 0) == 0 &&
	    h.fh.handle_bytes + sizeof(int) <= BASELINE_HANDLE_MAX) {
		memcpy(o->handle, &h.fh.handle_type, sizeof(int));
		memcpy(o->handle + sizeof(int), h.fh.f_handle, h.fh.handle_bytes);
		o->handle_len = (unsigned)(h.fh.handle_bytes + sizeof(int));
	}
	if ((o->attrs.type & S_IFMT) == S_IFLNK) {
		char buf[PATH_MAX];
		ssize_t n = readlinkat(dirfd, at, buf, sizeof(buf) - 1);

		if (n >= 0) {
			buf[n] = '\0';
			if (!(o->target = strdup(buf)))
				return -ENOMEM;
		}
	}
	return 1;
}

/* A directory below another, opened: never through a symlink or into
 * another mount (no automount triggered): fd, or -errno (-EXDEV: a mount). */
static int open_below(int dirfd, const char *name) {
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		.resolve =
		    RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/* Whether dirfd's entry name is on another device than dev (a mount, or
 * an automount point not mounted yet: looked at without triggering it). */
static bool other_mount(int dirfd, const char *name, dev_t dev) {
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) == 0 &&
	       st.st_dev != dev;
}

struct item {
	char *key; /* the name, or the name + "/": go down into it */
	bool down;
};

static int item_cmp(const void *a, const void *b) {
	return strcmp(((const struct item *)a)->key, ((const struct item *)b)->key);
}

static char *join(const char *dir, const char *name) {
	char *p = NULL;

	return asprintf(&p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name) < 0 ? NULL : p;
}

static int walk_dir(struct scan *s, int fd, const char *dir, bool recursive);

/* The entries of dir (fd, taken), in order, and below them if recursive. */
static int walk_entries(struct scan *s, int fd, const char *dir, bool recursive,
			struct item **items, size_t *n) {
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	size_t cap = 0, entries = 0;
	struct dirent *de;
	struct stat self;

	if (!d || fstat(dirfd(d), &self) < 0) {
		if (!d)
			safe_close(fd);
		return keep_subtree(s, dir, "unreadable");
	}
	errno = 0;
	while ((de = readdir(d))) {
		bool is_dir = de->d_type == DT_DIR;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		/* (a directory that does not fit in what is left of the
		 * limit is not walked, its rows kept; its siblings are: one
		 * user's million files do not end the walk of the rest) */
		if (s->res->objects + ++entries > s->r->max_objects)
			return keep_subtree(s, dir, "limit");
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			is_dir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISDIR(st.st_mode);
		}
		if (*n + 2 > cap) {
			struct item *t =
			    realloc(*items, (cap = cap ? cap * 2 : 64) * sizeof(**items));

			if (!t)
				return fail(s, -ENOMEM, "listing a directory");
			*items = t;
		}
		if (!((*items)[*n].key = strdup(de->d_name)))
			return fail(s, -ENOMEM, "listing a directory");
		(*items)[(*n)++].down = false;
		if (is_dir) { /* (not recursive: what is below is another root's) */
			if (asprintf(&(*items)[*n].key, "%s/", de->d_name) < 0)
				return fail(s, -ENOMEM, "listing a directory");
			(*items)[(*n)++].down = true;
		}
		errno = 0;
	}
	if (errno)
		return keep_subtree(s, dir, "unreadable");
	if (*n > 1) /* (an empty directory's list is NULL) */
		qsort(*items, *n, sizeof(**items), item_cmp);
	for (size_t i = 0; i < *n && !s->stopped; i++) {
		struct item *it = &(*items)[i];
		_cleanup_free_ char *path = NULL;
		int r = 0;

		if (it->down)
			it->key[strlen(it->key) - 1] = '\0';
		if (!(path = join(dir, it->key)))
			return fail(s, -ENOMEM, "a path");
		if (s->r->excl &&
		    (it->down ? pathset_has_path(s->r->excl, path) : pathset_has(s->r->excl, path)))
			continue;
		if (!it->down) {
			struct baseline_object o;

			r = look(dirfd(d), it->key, path, &o);
			if (r > 0)
				r = visit(s, &o, dirfd(d), it->key);
			else if (r < 0 && r != -ENOMEM)
				r = keep_one(s, path); /* (not looked at: not gone either) */
			baseline_object_clear(&o);
		} else if (!recursive)
			r = rows_until(s, path, true); /* (a nested root of the rule's, if any) */
		else if (s->depth + 1 >= BASELINE_DEPTH_MAX)
			r = keep_subtree(s, path, "depth");
		else if (other_mount(dirfd(d), it->key, self.st_dev))
			r = keep_subtree(s, path,
					 NULL); /* (an automount point too: not triggered) */
		else {
			int sub = open_below(dirfd(d), it->key);

			if (sub == -EXDEV)
				r = keep_subtree(s, path, NULL); /* (another mount) */
			else if (sub == -ENOENT || sub == -ENOTDIR || sub == -ELOOP)
				r = 0; /* (gone or replaced since it was listed) */
			else if (sub < 0)
				r = keep_subtree(s, path, "unreadable");
			else {
				s->depth++;
				r = walk_dir(s, sub, path, true);
				s->depth--;
			}
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int walk_dir(struct scan *s, int fd, const char *dir, bool recursive) {
	struct item *items = NULL;
	size_t n = 0;
	int r = walk_entries(s, fd, dir, recursive, &items, &n);

	for (size_t i = 0; i < n; i++)
		free(items[i].key);
	free(items);
	return r;
}

/* The rows of root and below it, from the reader's snapshot, in order:
 * root itself, then [root + "/", root + "0") ('0' follows '/'). */
static int open_cursor(struct scan *s, const char *root) {
	const char *base = strcmp(root, "/") == 0 ? "" : root;
	char lo[PATH_MAX + 2], hi[PATH_MAX + 2];
	int r;

	if ((size_t)snprintf(lo, sizeof(lo), "%s/", base) >= sizeof(lo))
		return fail(s, -ENAMETOOLONG, root);
	snprintf(hi, sizeof(hi), "%s0", base);
	finalize(&s->cur);
	s->row_ok = false;
	if (s->empty)
		return 0;
	r = prepare(s->b->rd,
		    "SELECT " COLS " FROM objects WHERE rule=?1 AND path=?2 UNION ALL "
		    "SELECT * FROM (SELECT " COLS " FROM objects WHERE rule=?1 AND path>=?3 AND "
		    "path<?4 AND path!=?2 ORDER BY path)",
		    &s->cur, s->err, s->errlen);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s->cur, 1, s->rule_id);
	sqlite3_bind_blob(s->cur, 2, root, (int)strlen(root), SQLITE_TRANSIENT);
	sqlite3_bind_blob(s->cur, 3, lo, (int)strlen(lo), SQLITE_TRANSIENT);
	sqlite3_bind_blob(s->cur, 4, hi, (int)strlen(hi), SQLITE_TRANSIENT);
	return advance(s);
}

/* A root directory (the rule's path: no symlink in it) opened, and checked
 * to be the object a was read of: fd, -ESTALE replaced since, -errno. */
static int open_root(int pfd, const char *name, const struct record_attrs *a) {
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, pfd, name, &how, sizeof(how));
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_ino != a->ino || st.st_dev != a->dev) {
		safe_close(fd);
		return -ESTALE;
	}
	return fd;
}

/* root's directory (no symlink on the way: a root, a path to sync, has
 * none, unless someone swapped one in) and root's name in it, into *name:
 * an O_PATH fd (AT_FDCWD for "/"), or -errno. */
static int open_parent(const char *root, const char **name) {
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *slash = strrchr(root, '/');
	char dir[PATH_MAX];
	size_t n;
	int fd;

	*name = root;
	if (strcmp(root, "/") == 0 || !slash)
		return AT_FDCWD;
	n = slash == root ? 1 : (size_t)(slash - root); /* ("/etc": "/") */
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, root, n);
	dir[n] = '\0';
	*name = slash + 1;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* One root (a rule's path, or a path to sync) and what is below it, to
 * depth: 0 the object only, 1 its entries, 2 all. It is looked at in its
 * directory, never through a symlink. */
static int walk_root(struct scan *s, const char *root, int depth) {
	struct baseline_object o = { 0 };
	const char *name;
	int r = open_cursor(s, root), pfd = -1;

	if (r < 0)
		return r;
	pfd = open_parent(root, &name);
	if (pfd == -ENOENT || pfd == -ENOTDIR)
		r = 0; /* (gone: its rows too) */
	else if (pfd < 0 && pfd != AT_FDCWD)
		r = pfd;
	else
		r = look(pfd, pfd == AT_FDCWD ? NULL : name, root, &o);
	if (r > 0 && !(s->r->excl && pathset_has(s->r->excl, root))) {
		bool dir = (o.attrs.type & S_IFMT) == S_IFDIR;
		struct record_attrs a = o.attrs;

		r = visit(s, &o, pfd, pfd == AT_FDCWD ? root : name);
		if (r == 0 && dir && depth == 0)
			r = rows_until(s, root, true); /* (what is below: kept as it is) */
		else if (r == 0 && dir && depth > 0 && !s->stopped) {
			int fd = open_root(pfd, pfd == AT_FDCWD ? root : name, &a);

			if (fd >= 0)
				r = walk_dir(s, fd, root, depth > 1);
			else /* (replaced since it was looked at: left as it is) */
				r = keep_subtree(s, root, fd == -ESTALE ? NULL : "unreadable");
		}
	} else if (r < 0 && r != -ENOMEM)
		r = keep_subtree(s, root, "unreadable");
	baseline_object_clear(&o);
	if (pfd >= 0)
		safe_close(pfd);
	if (r < 0)
		return r;
	if (s->stopped) { /* (limit: the rest is kept as it is) */
		while (s->row_ok)
			if ((r = advance(s)) < 0)
				return r;
		return 0;
	}
	/* what is left after the walk is gone */
	while (s->row_ok)
		if ((r = row_gone(s)) < 0 || (r = advance(s)) < 0)
			return r;
	return 0;
}

/* One pass of finish(): each row of sql (from gone), with the row of
 * match (from born, bound to the gone row's handle, or path) if there is
 * one, to fn. */
static int each_gone(struct scan *s, const char *sql, const char *match_sql, bool by_path,
		     int (*fn)(struct scan *s, const struct baseline_object *g,
			       const struct baseline_object *n, bool n_over)) {
	sqlite3_stmt *gone = NULL, *match = NULL;
	struct baseline_object g = { 0 }, n = { 0 };
	int r, rc = SQLITE_DONE;

	r = prepare(s->b->db, sql, &gone, s->err, s->errlen);
	if (r == 0 && match_sql)
		r = prepare(s->b->db, match_sql, &match, s->err, s->errlen);
	while (r == 0 && (rc = sqlite3_step(gone)) == SQLITE_ROW) {
		bool found = false, over = false;

		if ((r = read_object(gone, 1, &g)) < 0)
			break;
		if (match && (by_path || g.handle_len)) {
			if (by_path)
				sqlite3_bind_blob(match, 1, g.path, (int)strlen(g.path),
						  SQLITE_STATIC);
			else
				sqlite3_bind_blob(match, 1, g.handle, (int)g.handle_len,
						  SQLITE_STATIC);
			rc = sqlite3_step(match);
			if (rc == SQLITE_ROW) {
				found = true;
				over = sqlite3_column_int(match, 0) != 0;
				r = read_object(match, 1, &n);
			} else if (rc != SQLITE_DONE)
				r = sql_fail(s->b->db, rc, "pairing", s->err, s->errlen);
			sqlite3_reset(match);
			if (r < 0)
				break;
		}
		r = fn(s, &g, found ? &n : NULL, over);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = sql_fail(s->b->db, rc, "reading what went", s->err, s->errlen);
	finalize(&gone);
	finalize(&match);
	baseline_object_clear(&g);
	baseline_object_clear(&n);
	return r;
}

static int born_paired(struct scan *s, const char *path) {
	sqlite3_stmt *st = NULL;
	int r = prepare(s->b->db, "UPDATE born SET paired=1 WHERE path=?1", &st, s->err, s->errlen);

	if (r == 0) {
		sqlite3_bind_blob(st, 1, path, (int)strlen(path), SQLITE_STATIC);
		r = step_done(s, st, "pairing");
	}
	finalize(&st);
	return r;
}

/* A path that went: renamed (its handle came at n's path, perhaps over
 * another object there), or deleted. */
static int went(struct scan *s, const struct baseline_object *g, const struct baseline_object *n,
		bool n_over) {
	int r;

	if (!n) {
		s->res->deleted++;
		r = report(s, "deleted", g, NULL);
		return r < 0 ? r : row_del(s, g->path);
	}
	s->res->renamed++;
	if ((r = report(s, "renamed", g, n)) < 0 || (r = born_paired(s, n->path)) < 0 ||
	    (r = row_del(s, g->path)) < 0)
		return r;
	/* (over another object: its row once its deletion is reported) */
	return n_over ? 0 : row_put(s, n);
}

/* Another object at the same path: what was there was replaced by a
 * rename (n paired: deleted, the rename says what came), or it changed
 * (a file written anew, a link made again). */
/* An object not yet paired that came with handle g's (found: 1, into
 * *ret), else 0, or -errno. */
static int born_with_handle(struct scan *s, const struct baseline_object *g,
			    struct baseline_object *ret) {
	sqlite3_stmt *st = NULL;
	int r, rc;

	if (!g->handle_len)
		return 0;
	r = prepare(s->b->db,
		    "SELECT over," COLS " FROM born WHERE handle=?1 AND paired=0 ORDER BY path "
		    "LIMIT 1",
		    &st, s->err, s->errlen);
	if (r < 0)
		return r;
	sqlite3_bind_blob(st, 1, g->handle, (int)g->handle_len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = read_object(st, 1, ret) < 0 ? -ENOMEM : 1;
	else if (rc != SQLITE_DONE)
		r = sql_fail(s->b->db, rc, "pairing", s->err, s->errlen);
	finalize(&st);
	return r;
}

/* Another object at the same path: what was there moved elsewhere
 * (renamed: its handle came there), or was replaced by a rename (n
 * paired: deleted; the rename says what came) or changed (a file written
 * anew, a link made again); what came, if no rename brought it, created
 * when what was there moved. */
static int replaced(struct scan *s, const struct baseline_object *g,
		    const struct baseline_object *n, bool paired) {
	struct baseline_object m = { 0 };
	int r;

	if (!n)
		return 0;
	r = born_with_handle(s, g, &m);
	if (r > 0) { /* (mv a c; then a new a) */
		s->res->renamed++;
		if ((r = report(s, "renamed", g, &m)) == 0 && (r = born_paired(s, m.path)) == 0)
			r = row_put(s, &m);
		if (r == 0 && !paired) {
			s->res->created++;
			if ((r = report(s, "created", NULL, n)) == 0)
				r = born_paired(s, n->path);
		}
		baseline_object_clear(&m);
		return r < 0 ? r : row_put(s, n);
	}
	if (r < 0)
		return r;
	if (paired) {
		s->res->deleted++;
		r = report(s, "deleted", g, NULL);
		return r < 0 ? r : row_put(s, n); /* (its row: what the rename put there) */
	}
	s->res->changed++;
	if ((r = report(s, "changed", g, n)) < 0 || (r = born_paired(s, n->path)) < 0)
		return r;
	return row_put(s, n);
}

static int came(struct scan *s, const struct baseline_object *g, const struct baseline_object *n,
		bool n_over) {
	int r;

	(void)n;
	(void)n_over;
	s->res->created++;
	r = report(s, "created", NULL, g);
	return r < 0 ? r : row_put(s, g);
}

/* The walk is over: what went and what came, paired by file handle
 * (renamed, also over another object), else deleted and created; each
 * reported, then recorded. */
static int finish(struct scan *s) {
	int r = each_gone(s, "SELECT over," COLS " FROM gone WHERE over=0 ORDER BY path",
			  "SELECT over," COLS " FROM born WHERE handle=?1 AND paired=0 ORDER BY "
			  "path LIMIT 1",
			  false, went);

	if (r == 0)
		r = each_gone(s, "SELECT over," COLS " FROM gone WHERE over=1 ORDER BY path",
			      "SELECT paired," COLS " FROM born WHERE path=?1", true, replaced);
	if (r == 0)
		r = each_gone(s,
			      "SELECT over," COLS " FROM born WHERE over=0 AND paired=0 ORDER BY "
			      "path",
			      NULL, false, came);
	return r;
}

/* What a rule's baseline is of: its paths, how deep, what is excluded. A
 * baseline of other paths is made anew (silently). */
static char *scope_of(const struct baseline_rule *r) {
	size_t len = 16;
	char *s, *p;

	for (size_t i = 0; i < r->n_paths; i++)
		len += strlen(r->paths[i]) + 1;
	for (size_t i = 0; i < r->n_exclude; i++)
		len += strlen(r->exclude[i]) + 3;
	if (!(s = malloc(len)))
		return NULL;
	p = s + sprintf(s, "%s", r->recursive ? "recursive" : "entries");
	for (size_t i = 0; i < r->n_paths; i++)
		p += sprintf(p, "\n%s", r->paths[i]);
	for (size_t i = 0; i < r->n_exclude; i++)
		p += sprintf(p, "\n-%s", r->exclude[i]);
	return s;
}

/* The rule's id; *complete: its baseline was made for its scope (else, or
 * anew, it is emptied, to be made anew, when make). */
static int rule_row(struct scan *s, bool anew, bool make, bool *complete) {
	_cleanup_free_ char *scope = scope_of(s->r);
	sqlite3_stmt *st = NULL;
	int r, rc;

	*complete = false;
	if (!scope)
		return fail(s, -ENOMEM, "a rule's scope");
	r = prepare(s->b->db, "SELECT id, scope, complete FROM rules WHERE name=?1", &st, s->err,
		    s->errlen);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, s->r->name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s->rule_id = sqlite3_column_int64(st, 0);
		*complete = !anew && sqlite3_column_int(st, 2) != 0 &&
			    strcmp((const char *)sqlite3_column_text(st, 1), scope) == 0;
	}
	finalize(&st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(s->b->db, rc, "reading the rules", s->err, s->errlen);
	if (*complete || !make)
		return rc == SQLITE_ROW ? 1 : 0;
	/* (made anew: its rows go, its scope is the rule's now) */
	r = prepare(s->b->db,
		    "INSERT INTO rules(name, scope, complete) VALUES(?1, ?2, 0) ON CONFLICT(name) "
		    "DO UPDATE SET scope=?2, complete=0 RETURNING id",
		    &st, s->err, s->errlen);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, s->r->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		s->rule_id = sqlite3_column_int64(st, 0);
	finalize(&st);
	if (rc != SQLITE_ROW)
		return sql_fail(s->b->db, rc, "recording a rule", s->err, s->errlen);
	r = prepare(s->b->db, "DELETE FROM objects WHERE rule=?1", &st, s->err, s->errlen);
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, s->rule_id);
	r = step_done(s, st, "emptying a rule's baseline");
	finalize(&st);
	s->empty = true;
	return r < 0 ? r : 1;
}

/* A statement that records a row (first, then COLS) in table. */
static int prepare_put(struct scan *s, const char *table, const char *first, sqlite3_stmt **st) {
	char sql[512];

	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s(%s," COLS ") VALUES(?," QS ")", table,
		 first);
	return prepare(s->b->db, sql, st, s->err, s->errlen);
}

static int scan_begin(struct scan *s) {
	int r = exec(s->b->db, "BEGIN; DELETE FROM gone; DELETE FROM born", s->err, s->errlen);

	if (r == 0)
		r = prepare_put(s, "objects", "rule", &s->put);
	if (r == 0)
		r = prepare(s->b->db, "DELETE FROM objects WHERE rule=?1 AND path=?2", &s->del,
			    s->err, s->errlen);
	if (r == 0)
		r = prepare_put(s, "gone", "over", &s->put_gone);
	if (r == 0)
		r = prepare_put(s, "born", "over", &s->put_born);
	if (r == 0)
		r = exec(s->b->rd, "BEGIN", s->err, s->errlen);
	return r;
}

/* The scan's transactions ended: committed (ok and recording) or rolled
 * back; its statements freed. */
static int scan_end(struct scan *s, int r) {
	finalize(&s->cur);
	finalize(&s->put);
	finalize(&s->del);
	finalize(&s->put_gone);
	finalize(&s->put_born);
	(void)exec(s->b->rd, "COMMIT", NULL, 0);
	if (r == 0 && s->record && s->flush && (r = s->flush(s->userdata)) < 0)
		fail(s, r, "handing out the differences");
	if (r == 0 && s->record)
		r = exec(s->b->db, "COMMIT", s->err, s->errlen);
	if (r < 0 || !s->record)
		(void)exec(s->b->db, "ROLLBACK", NULL, 0);
	(void)exec(s->b->db, "DELETE FROM gone; DELETE FROM born", NULL, 0);
	baseline_object_clear(&s->row);
	if (s->hr_ok)
		hash_reader_done(&s->hr);
	return r;
}

/* The rule's roots in order, those below a recursive root of the rule
 * left out (walked with it), into v (n): how deep each is walked. */
static int roots_depth(const struct baseline_rule *r, size_t i) {
	for (size_t j = 0; j < r->n_paths; j++) {
		const char *p = r->paths[j], *q = r->paths[i];
		size_t n = strlen(p);

		if (j != i && r->recursive &&
		    (strcmp(p, "/") == 0 || (strncmp(q, p, n) == 0 && q[n] == '/')))
			return -1;
		if (j < i && strcmp(p, q) == 0)
			return -1;
	}
	return r->recursive ? 2 : 1;
}

static int path_cmp(const void *a, const void *b) {
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int baseline_scan(struct baseline *b, const struct baseline_rule *r, enum baseline_mode mode,
		  baseline_report_fn report_fn, baseline_flush_fn flush, void *userdata,
		  struct baseline_result *res, char *err, size_t errlen) {
	struct scan s = {
		.b = b,
		.r = r,
		.how = mode == BASELINE_INIT ? SILENT : REPORT,
		.record = mode != BASELINE_CHECK,
		.report = report_fn,
		.flush = flush,
		.userdata = userdata,
		.res = res,
		.err = err,
		.errlen = errlen,
		.now_usec = now_realtime_usec(),
	};
	char **sorted = NULL;
	uint64_t t0 = now_monotonic_usec();
	bool complete;
	int ret;

	*res = (struct baseline_result){ 0 };
	err[0] = '\0';
	ret = scan_begin(&s);
	if (ret == 0 && (ret = rule_row(&s, mode == BASELINE_INIT, s.record, &complete)) >= 0) {
		if (!complete && mode == BASELINE_CHECK) {
			snprintf(err, errlen, "rule '%s' has no baseline of its paths yet",
				 r->name);
			ret = -ENOENT;
		} else {
			ret = 0;
			if (!complete) {
				s.how = SILENT;
				res->initialised = true;
			}
		}
	}
	if (ret == 0 && !(sorted = calloc(r->n_paths + 1, sizeof(*sorted))))
		ret = fail(&s, -ENOMEM, "the rule's paths");
	if (ret == 0) {
		memcpy(sorted, r->paths, r->n_paths * sizeof(*sorted));
		qsort(sorted, r->n_paths, sizeof(*sorted), path_cmp);
	}
	for (size_t i = 0; ret == 0 && i < r->n_paths; i++) {
		struct baseline_rule one = *r;
		int depth;

		one.paths = sorted;
		if ((depth = roots_depth(&one, i)) >= 0)
			ret = walk_root(&s, sorted[i], depth);
	}
	free(sorted);
	if (ret == 0 && s.how == REPORT)
		ret = finish(&s);
	if (ret == 0 && s.record) {
		sqlite3_stmt *st = NULL;

		ret = prepare(b->db,
			      "UPDATE rules SET complete=?2, scanned=?3, objects=(SELECT count(*) "
			      "FROM objects WHERE rule=?1) WHERE id=?1",
			      &st, err, errlen);
		if (ret == 0) {
			sqlite3_bind_int64(st, 1, s.rule_id);
			/* (one made up to the limit too: the walk's order is the
			 * same each time, and a walk that stops keeps the rest) */
			sqlite3_bind_int(st, 2, 1);
			sqlite3_bind_int64(st, 3, (int64_t)s.now_usec);
			ret = step_done(&s, st, "recording the scan");
		}
		finalize(&st);
	}
	ret = scan_end(&s, ret);
	res->usec = now_monotonic_usec() - t0;
	return ret;
}

/* How deep path is walked for rule r: -1 not the rule's, 0 the object, 1
 * its entries (a root of a rule that is not recursive), 2 all. */
static int sync_depth(const struct baseline_rule *r, const char *path) {
	int best = -1;

	/* (the deepest any of the rule's paths walks it: they may nest) */
	for (size_t i = 0; i < r->n_paths; i++) {
		const char *p = r->paths[i];
		size_t n = strcmp(p, "/") == 0 ? 0 : strlen(p);
		int depth = -1;

		if (strcmp(p, path) == 0)
			depth = r->recursive ? 2 : 1;
		else if (strncmp(path, p, n) == 0 && path[n] == '/')
			depth = r->recursive ? 2 : strchr(path + n + 1, '/') ? -1 : 0;
		if (depth > best)
			best = depth;
	}
	return best;
}

int baseline_sync(struct baseline *b, const struct baseline_rule *r, char *const *paths,
		  const bool *self, size_t n, char *err, size_t errlen) {
	struct baseline_result res = { 0 };
	struct scan s = {
		.b = b,
		.r = r,
		.how = SILENT,
		.record = true,
		.res = &res,
		.err = err,
		.errlen = errlen,
		.now_usec = now_realtime_usec(),
	};
	bool complete;
	int ret;

	err[0] = '\0';
	ret = scan_begin(&s);
	if (ret == 0 && (ret = rule_row(&s, false, false, &complete)) >= 0)
		ret = 0;
	/* (a rule whose baseline is being made: its scan records them) */
	for (size_t i = 0; ret == 0 && complete && i < n; i++) {
		int depth = sync_depth(r, paths[i]);

		if (self && self[i] && depth > 0)
			depth = 0;

		if (depth >= 0 && !(r->excl && pathset_has(r->excl, paths[i])))
			ret = walk_root(&s, paths[i], depth);
	}
	return scan_end(&s, ret);
}

int baseline_forget_others(struct baseline *b, char *const *keep, size_t n) {
	sqlite3_stmt *list = NULL, *del = NULL;
	int r, rc = SQLITE_DONE;

	r = exec(b->db, "BEGIN", NULL, 0);
	if (r == 0)
		r = prepare(b->db, "SELECT id, name FROM rules", &list, NULL, 0);
	if (r == 0)
		r = prepare(b->db, "DELETE FROM objects WHERE rule=?1", &del, NULL, 0);
	while (r == 0 && (rc = sqlite3_step(list)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(list, 1);
		bool kept = false;

		for (size_t i = 0; i < n && !kept; i++)
			kept = strcmp(keep[i], name) == 0;
		if (kept)
			continue;
		sqlite3_bind_int64(del, 1, sqlite3_column_int64(list, 0));
		rc = sqlite3_step(del);
		sqlite3_reset(del);
		r = sql_errno(rc);
		if (r == 0) {
			char sql[64];

			snprintf(sql, sizeof(sql), "DELETE FROM rules WHERE id=%lld",
				 (long long)sqlite3_column_int64(list, 0));
			r = exec(b->db, sql, NULL, 0);
		}
	}
	if (r == 0 && rc != SQLITE_DONE) /* (the list not read to its end) */
		r = sql_errno(rc) < 0 ? sql_errno(rc) : -EIO;
	finalize(&list);
	finalize(&del);
	r = r == 0 ? exec(b->db, "COMMIT", NULL, 0) : r;
	if (r < 0)
		(void)exec(b->db, "ROLLBACK", NULL, 0);
	return r;
}

int baseline_lookup(struct baseline *b, const char *rule, const char *path,
		    struct baseline_object *ret, char **ret_rule) {
	sqlite3_stmt *st = NULL;
	int r, rc;

	*ret = (struct baseline_object){ 0 };
	*ret_rule = NULL;
	r = prepare(b->rd,
		    "SELECT rules.name, " COLS " FROM objects JOIN rules ON rules.id=objects.rule "
		    "WHERE path=?1 AND (?2 IS NULL OR rules.name=?2) ORDER BY rules.name LIMIT 1",
		    &st, NULL, 0);
	if (r < 0)
		return r;
	sqlite3_bind_blob(st, 1, path, (int)strlen(path), SQLITE_STATIC);
	if (rule)
		sqlite3_bind_text(st, 2, rule, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r = read_object(st, 1, ret);
		if (r == 0 && !(*ret_rule = strdup((const char *)sqlite3_column_text(st, 0))))
			r = -ENOMEM;
		if (r < 0)
			baseline_object_clear(ret);
		r = r < 0 ? r : 1;
	} else
		r = sql_errno(rc);
	finalize(&st);
	return r;
}

int baseline_rule_excl(struct baseline_rule *r, struct pathset *excl) {
	int ret = 0;

	*excl = (struct pathset){ 0 };
	for (size_t i = 0; i < r->n_exclude && ret == 0; i++)
		ret = pathset_add_pattern_resolved(excl, r->exclude[i]);
	r->excl = r->n_exclude ? excl : NULL;
	return ret;
}

bool baseline_diff_record(const char *rule, const char *reason, const struct baseline_diff *d,
			  struct record *rec, struct record_baseline *b) {
	const struct baseline_object *o = d->now ? d->now : d->before;

	if (!o)
		return false;
	*b = (struct record_baseline){
		.sha256 = d->now && d->now->sha256[0] ? d->now->sha256 : NULL,
		.sha256_before = d->before && d->before->sha256[0] ? d->before->sha256 : NULL,
		.hash_skipped = d->now ? d->now->hash_skipped : NULL,
		.target = d->now ? d->now->target : NULL,
		.target_before = d->before ? d->before->target : NULL,
		.recorded_usec = d->before ? d->before->seen_usec : 0,
	};
	*rec = (struct record){
		.kind = RECORD_BASELINE,
		.time_usec = now_realtime_usec(),
		.rule = rule,
		.path = o->path,
		.old_path = d->old_path,
		.uid = (uid_t)-1,
		.change = d->change,
		.reason = reason,
		.attrs_asked = true,
		.attrs = d->now ? &d->now->attrs : NULL,
		.attrs_before = d->before ? &d->before->attrs : NULL,
		.baseline = b,
	};
	return true;
}

uint64_t baseline_rule_objects(struct baseline *b, const char *rule) {
	sqlite3_stmt *st = NULL;
	uint64_t n = 0;

	if (prepare(b->rd, "SELECT objects FROM rules WHERE name=?1", &st, NULL, 0) < 0)
		return 0;
	sqlite3_bind_text(st, 1, rule, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (uint64_t)sqlite3_column_int64(st, 0);
	finalize(&st);
	return n;
}
