/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * expect.c — the expectations: identities of objects (inode and FID,
 * fst_obj()), the objects of an expectation resolved when matching, the
 * exact comparison of events with expectations (FST_EXPECT() in order,
 * FST_EXPECT_SET() as a set, FST_MATCH()), and on a mismatch both lists in
 * the diagnostics with what differed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsn-util.h"
#include "selftest-private.h"

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200 /* 6.5: a handle to identify, not to open, the object */
#endif

/* ------------------------------------------------------------------------ */
/* Object identity                                                          */
/* ------------------------------------------------------------------------ */

/* One open(O_PATH) of path, and everything else through that fd: the
 * inode, the fsid and the handle are of one object, whatever a symlink or
 * a concurrent rename does. */
static bool get_obj(struct fst_ctx *ctx, const char *path, bool follow, struct fst_obj *o,
		    int *err) {
	struct {
		struct file_handle fh;
		unsigned char bytes[FSN_HANDLE_MAX];
	} h;
	struct stat st;
	struct statfs sfs;
	int mnt_id, fd, r;

	memset(o, 0, sizeof(*o));
	snprintf(o->label, sizeof(o->label), "%s%s", path, follow ? "" : " (the symlink)");
	fd = openat(ctx->workfd, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		*err = errno;
		return false;
	}
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0) {
		*err = errno;
		close(fd);
		return false;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	h.fh.handle_bytes = FSN_HANDLE_MAX;
	r = name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH);
	if (r < 0 && errno == EOPNOTSUPP) {
		/* not exportable (ramfs, pipes): the identifying handle, which is
		 * what fanotify reports for such an object */
		h.fh.handle_bytes = FSN_HANDLE_MAX;
		r = name_to_handle_at(fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH | AT_HANDLE_FID);
		o->fid_only = r == 0;
	}
	close(fd);
	if (r == 0 && h.fh.handle_bytes <= FSN_HANDLE_MAX) {
		o->has_fid = true;
		memcpy(o->fid.fsid, &sfs.f_fsid, sizeof(o->fid.fsid));
		o->fid.handle_bytes = h.fh.handle_bytes;
		o->fid.handle_type = h.fh.handle_type;
		memcpy(o->fid.f_handle, h.fh.f_handle, h.fh.handle_bytes);
	}
	return true;
}

struct fst_obj fst_obj_(struct fst_ctx *ctx, const char *path, bool follow, const char *file,
			int line) {
	struct fst_obj o;
	int err = 0;

	fst_checkpoint(file, line);
	if (!get_obj(ctx, path, follow, &o, &err))
		fst_fail_(ctx, file, line, "stat %s: %s", path, fst_errname(err));
	return o;
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                 */
/* ------------------------------------------------------------------------ */

struct fst_exp fst_pre_access(const char *path, pid_t pid, uint64_t pos, uint64_t len) {
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = pos / pg * pg, end = (pos + len + pg - 1) / pg * pg;

	return (struct fst_exp){ .mask = FAN_PRE_ACCESS,
				 .path = path,
				 .pid = pid,
				 .range = true,
				 .range_offset = off,
				 .range_count = end - off };
}

/* A path for messages: relative to the work directory when inside it. */
static const char *short_path(struct fst_ctx *ctx, const char *p) {
	size_t wl = strlen(ctx->work), sl = strlen(ctx->scratch);

	if (strncmp(p, ctx->work, wl) == 0 && p[wl] == '/')
		return p + wl + 1;
	if (strcmp(p, ctx->work) == 0)
		return ".";
	if (strncmp(p, ctx->scratch, sl) == 0 && p[sl] == '/')
		return fst_strdupf(ctx, "<scratch>/%s", p + sl + 1);
	return p;
}

/* An expected object: given (obj), or resolved from a path now. */
struct res {
	bool has, missing;
	struct fst_obj obj;
};

static void resolve(struct fst_ctx *ctx, const char *path, const struct fst_obj *given,
		    struct res *r) {
	int err;

	memset(r, 0, sizeof(*r));
	if (given) {
		r->has = true;
		r->obj = *given;
		return;
	}
	if (!path)
		return;
	r->has = true;
	if (!get_obj(ctx, path, true, &r->obj, &err)) {
		snprintf(r->obj.label, sizeof(r->obj.label), "%s (%s)", path, fst_errname(err));
		r->missing = true;
	}
}

/* The expected objects of one expectation. */
struct exp_resolved {
	struct res o, d, od, nd; /* object, dir, old dir, new dir */
};

enum { N_RES = 4 };

static const struct res *res_at(const struct exp_resolved *r, int k) {
	const struct res *all[N_RES] = { &r->o, &r->d, &r->od, &r->nd };

	return all[k];
}

static void fmt_fid(const struct fsn_fid *f, char *buf, size_t len) {
	size_t pos;

	pos = (size_t)snprintf(buf, len, "fsid %08x.%08x type %d ", (unsigned)f->fsid[0],
			       (unsigned)f->fsid[1], f->handle_type);
	for (uint32_t i = 0; i < f->handle_bytes && i < 24 && pos + 3 < len; i++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%02x", f->f_handle[i]);
	if (f->handle_bytes > 24 && pos + 4 < len)
		snprintf(buf + pos, len - pos, "...");
}

/* A label for an actual object: the expected object it equals, if any. */
static const char *label_for(const struct exp_resolved *res, size_t n, bool by_fid,
			     const struct fsn_fid *fid, dev_t dev, ino_t ino) {
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < N_RES; k++) {
			const struct res *r = res_at(&res[i], k);

			if (!r->has || r->missing)
				continue;
			if (by_fid ? (r->obj.has_fid && fsn_fid_equal(&r->obj.fid, fid))
				   : (r->obj.dev == dev && r->obj.ino == ino))
				return r->obj.label;
		}
	return NULL;
}

/* Info records that the matcher knows (FSN_HAS_*), as "FID+DFID+NAME". */
static const char *records_str(struct fst_ctx *ctx, uint32_t has) {
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = { { FSN_HAS_FID, "FID" },           { FSN_HAS_DFID, "DFID" },
		      { FSN_HAS_NAME, "NAME" },         { FSN_HAS_OLD, "OLD_DFID_NAME" },
		      { FSN_HAS_NEW, "NEW_DFID_NAME" }, { FSN_HAS_RANGE, "RANGE" },
		      { FSN_HAS_PIDFD, "PIDFD" },       { FSN_HAS_ERROR, "ERROR" },
		      { FSN_HAS_MNT, "MNT" },           { FSN_HAS_UNKNOWN_INFO, "UNKNOWN" } };
	char b[160] = "";
	size_t pos = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (has & names[i].bit)
			pos += (size_t)snprintf(b + pos, sizeof(b) - pos, "%s%s", pos ? "+" : "",
						names[i].name);
	return fst_strdupf(ctx, "%s", pos ? b : "none");
}

#define FST_DIRENT_MASK (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME)
#define FST_KNOWN_RECORDS                                                                          \
	(FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_NAME | FSN_HAS_OLD | FSN_HAS_NEW | FSN_HAS_PIDFD |   \
	 FSN_HAS_ERROR | FSN_HAS_RANGE | FSN_HAS_MNT)

static bool fid_group(unsigned init_flags) {
	return init_flags & (FAN_REPORT_FID | FAN_REPORT_DIR_FID);
}

/*
 * A FAN_REPORT_DIR_FID group without FAN_REPORT_FID and FAN_REPORT_NAME
 * reports the parent of an event on a non-directory (no dirent bit, no
 * FAN_ONDIR) in a record of type FID: copy_info_records_to_user() picks
 * DFID for the single record only for dirent events and events on a
 * directory. fanotify_init(2) says DFID; id03_records_dir_fid and
 * id03_dir_fid_type_merge pin what the kernel does.
 */
static bool dir_in_fid_record(unsigned init_flags, uint64_t mask) {
	return (init_flags & FAN_REPORT_DIR_FID) &&
	       !(init_flags & (FAN_REPORT_FID | FAN_REPORT_NAME)) &&
	       !(mask & (FST_DIRENT_MASK | FAN_ONDIR));
}

/* The info records expectation x asks for (FSN_HAS_*). */
static uint32_t wanted_records(unsigned init_flags, const struct fst_exp *x,
			       const struct exp_resolved *r) {
	bool quirk = dir_in_fid_record(init_flags, x->mask);
	uint32_t want = 0;

	if (r->o.has && fid_group(init_flags))
		want |= FSN_HAS_FID;
	if (r->d.has)
		want |= quirk ? FSN_HAS_FID : FSN_HAS_DFID;
	if (x->name)
		want |= FSN_HAS_NAME;
	if (r->od.has || x->old_name)
		want |= FSN_HAS_OLD;
	if (r->nd.has || x->new_name)
		want |= FSN_HAS_NEW;
	if (x->range)
		want |= FSN_HAS_RANGE;
	if (init_flags & FAN_REPORT_PIDFD)
		want |= FSN_HAS_PIDFD;
	if (x->mask & FAN_FS_ERROR)
		want |= FSN_HAS_ERROR;
	if (init_flags & FAN_REPORT_MNT)
		want |= FSN_HAS_MNT;
	return want;
}

static uint32_t cared_records(const struct fst_exp *x) {
	uint32_t care = FST_KNOWN_RECORDS;

	if (x->any & FST_ANY_FID)
		care &= ~(uint32_t)FSN_HAS_FID;
	if (x->any & FST_ANY_DIR)
		care &= ~(uint32_t)FSN_HAS_DFID;
	if (x->any & FST_ANY_NAME)
		care &= ~(uint32_t)FSN_HAS_NAME;
	return care;
}

/* A name as a message: "\"n\"" or "none". */
static const char *qname(struct fst_ctx *ctx, const char *s) {
	char nb[300];

	return s ? fst_strdupf(ctx, "\"%s\"", fst_escape(s, nb, sizeof(nb))) : "none";
}

static bool name_eq(const char *a, const char *b) {
	return a ? b && strcmp(a, b) == 0 : !b;
}

/* A FID of the event (what) against an expected object. */
static bool fid_is(const struct fsn_fid *fid, const struct res *r, const char *what, char *why,
		   size_t wl) {
	if (r->missing) {
		snprintf(why, wl, "cannot resolve the expected object %s", r->obj.label);
		return false;
	}
	if (!r->obj.has_fid) {
		snprintf(why, wl, "the expected object %s has no file handle", r->obj.label);
		return false;
	}
	if (!fsn_fid_equal(fid, &r->obj.fid)) {
		snprintf(why, wl, "%s is not that of %s", what, r->obj.label);
		return false;
	}
	return true;
}

/* A FAN_RENAME record (rec: "OLD_DFID_NAME" or "NEW_DFID_NAME"), its dir
 * and name, against the expected dir (if any) and name. */
static bool rename_record_is(struct fst_ctx *ctx, const char *rec, const struct fsn_fid *dfid,
			     const char *name, const struct res *r, const char *want_name,
			     char *why, size_t wl) {
	char what[32];

	snprintf(what, sizeof(what), "the %s dir", rec);
	if (r->has && !fid_is(dfid, r, what, why, wl))
		return false;
	if (!name_eq(name, want_name)) {
		snprintf(why, wl, "%s name is %s, expected %s", rec, qname(ctx, name),
			 qname(ctx, want_name));
		return false;
	}
	return true;
}

static const char *fd_str(struct fst_ctx *ctx, int fd) {
	if (fd == FAN_NOFD)
		return "FAN_NOFD";
	return fst_strdupf(ctx, "%d (-%s)", fd, fst_errname(fd));
}

static bool match_inotify(struct fst_ctx *ctx, const struct fst_events *evs, size_t i,
			  const struct fst_exp *x, char *why, size_t wl) {
	const struct fsn_event *ev = &evs->e[i].ev;

	if (x->path || x->obj || x->dir || x->dobj || x->old_dir || x->old_dobj || x->old_name ||
	    x->new_dir || x->new_dobj || x->new_name || x->range || x->pid || x->nofd ||
	    x->fd_error) {
		snprintf(why, wl, "(bad expectation) fanotify fields in an inotify expectation");
		return false;
	}
	if (!(x->any & FST_ANY_NAME) && !name_eq(ev->name, x->name)) {
		snprintf(why, wl, "name is %s, expected %s", qname(ctx, ev->name),
			 qname(ctx, x->name));
		return false;
	}
	if (x->wd != 0 && ev->wd != x->wd) {
		snprintf(why, wl, "wd is %d, expected %d", ev->wd, x->wd);
		return false;
	}
	if (x->cookie_of) {
		size_t k = (size_t)(x->cookie_of - 1);

		if (x->cookie_of < 0 || k >= i) {
			snprintf(why, wl,
				 "(bad expectation) cookie_of names event %d, not an earlier one",
				 x->cookie_of - 1);
			return false;
		}
		if (ev->cookie == 0 || ev->cookie != evs->e[k].ev.cookie) {
			snprintf(why, wl,
				 "cookie is %u, expected the non-zero cookie of event %zu (%u)",
				 ev->cookie, k, evs->e[k].ev.cookie);
			return false;
		}
	} else if (x->cookie) {
		if (ev->cookie != x->cookie) {
			snprintf(why, wl, "cookie is %u, expected %u", ev->cookie, x->cookie);
			return false;
		}
	} else if (ev->mask & (IN_MOVED_FROM | IN_MOVED_TO)) {
		if (ev->cookie == 0) {
			snprintf(why, wl, "cookie is 0, expected a non-zero one (a move)");
			return false;
		}
	} else if (ev->cookie != 0) {
		snprintf(why, wl, "cookie is %u, expected 0 (not a move)", ev->cookie);
		return false;
	}
	return true;
}

/* Compare event i of evs with x; on mismatch write why and return false. */
static bool match_one(struct fst_ctx *ctx, bool inotify, unsigned init_flags,
		      const struct fst_events *evs, size_t i, const struct fst_exp *x,
		      const struct exp_resolved *r, char *why, size_t wl) {
	const struct fst_event *e = &evs->e[i];
	const struct fsn_event *ev = &e->ev;
	enum fsn_mask_kind kmask = inotify ? FSN_MASK_INOTIFY_EVENT : FSN_MASK_FANOTIFY_EVENT;
	bool fidg = fid_group(init_flags);
	uint32_t want, got, care;
	char nb[300];

	if (ev->mask != x->mask) {
		snprintf(why, wl, "mask is %s, expected %s", fst_mask_str(kmask, ev->mask),
			 fst_mask_str(kmask, x->mask));
		return false;
	}
	if (inotify)
		return match_inotify(ctx, evs, i, x, why, wl);
	if (x->wd || x->cookie || x->cookie_of) {
		snprintf(why, wl, "(bad expectation) inotify fields in a fanotify expectation");
		return false;
	}

	/* the event fd */
	if (x->fd_error || x->nofd) {
		int want_fd = x->fd_error ? x->fd_error : FAN_NOFD;

		if (e->had_fd || ev->fd != want_fd) {
			snprintf(why, wl, "fd is %s, expected %s",
				 e->had_fd ? fst_strdupf(ctx, "an event fd (%s)",
							 fst_escape(short_path(ctx, e->fdpath), nb,
								    sizeof(nb)))
					   : fd_str(ctx, ev->fd),
				 fd_str(ctx, want_fd));
			return false;
		}
	} else if (fidg && e->had_fd) {
		snprintf(why, wl, "has an event fd (%s) in a FID-reporting group",
			 fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)));
		return false;
	} else if (fidg && ev->fd != FAN_NOFD) {
		/* (not any negative fd: a FID group reports no fd, FAN_NOFD) */
		snprintf(why, wl, "fd is %s in a FID-reporting group, expected FAN_NOFD",
			 fd_str(ctx, ev->fd));
		return false;
	} else if (!fidg && !e->had_fd) {
		snprintf(why, wl, "has no event fd (fd %s)", fd_str(ctx, ev->fd));
		return false;
	}

	/* the pid */
	if (x->pid != FST_ANY_PID) {
		pid_t want_pid = x->pid == 0 ? ctx->pid : x->pid == FST_PID_ZERO ? 0 : x->pid;

		if (ev->pid != want_pid) {
			snprintf(why, wl, "pid is %d, expected %d", (int)ev->pid, (int)want_pid);
			return false;
		}
	}

	/* which records */
	if (ev->has & FSN_HAS_UNKNOWN_INFO) {
		snprintf(why, wl, "carries an info record of an unknown type");
		return false;
	}
	want = wanted_records(init_flags, x, r);
	care = cared_records(x);
	got = ev->has & FST_KNOWN_RECORDS;
	if ((got & care) != (want & care)) {
		uint32_t extra = got & care & ~want, missing = want & care & ~got;

		snprintf(why, wl, "records are %s, expected %s (%s%s%s%s%s)", records_str(ctx, got),
			 records_str(ctx, want & care), extra ? "extra " : "",
			 extra ? records_str(ctx, extra) : "", extra && missing ? ", " : "",
			 missing ? "missing " : "", missing ? records_str(ctx, missing) : "");
		return false;
	}

	/* what they hold */
	if (r->o.has && !(x->any & FST_ANY_FID)) {
		if (fidg) {
			if (!fid_is(&ev->fid, &r->o, "the FID record", why, wl))
				return false;
		} else if (e->had_fd) {
			if (r->o.missing) {
				snprintf(why, wl, "cannot resolve the expected object %s",
					 r->o.obj.label);
				return false;
			}
			if (!e->has_stat || e->st.st_dev != r->o.obj.dev ||
			    e->st.st_ino != r->o.obj.ino) {
				snprintf(why, wl, "event fd is %s, expected %s",
					 fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)),
					 r->o.obj.label);
				return false;
			}
		}
	}
	if (r->d.has && !(x->any & FST_ANY_DIR)) {
		if (dir_in_fid_record(init_flags, x->mask)) {
			if (!fid_is(&ev->fid, &r->d,
				    "the FID record (a DIR_FID group's parent of a non-directory)",
				    why, wl))
				return false;
		} else if (!fid_is(&ev->dfid, &r->d, "the DFID record", why, wl))
			return false;
	}
	if (!(x->any & FST_ANY_NAME) && !name_eq(ev->name, x->name)) {
		snprintf(why, wl, "name is %s, expected %s", qname(ctx, ev->name),
			 qname(ctx, x->name));
		return false;
	}
	if ((want & FSN_HAS_OLD) && !rename_record_is(ctx, "OLD_DFID_NAME", &ev->old_dfid,
						      ev->old_name, &r->od, x->old_name, why, wl))
		return false;
	if ((want & FSN_HAS_NEW) && !rename_record_is(ctx, "NEW_DFID_NAME", &ev->new_dfid,
						      ev->new_name, &r->nd, x->new_name, why, wl))
		return false;
	if (x->range &&
	    (ev->range_offset != x->range_offset || ev->range_count != x->range_count)) {
		snprintf(why, wl,
			 "RANGE is offset %llu count %llu, expected offset %llu count %llu",
			 (unsigned long long)ev->range_offset, (unsigned long long)ev->range_count,
			 (unsigned long long)x->range_offset, (unsigned long long)x->range_count);
		return false;
	}
	return true;
}

static void print_exp(struct fst_ctx *ctx, bool inotify, unsigned init_flags, size_t i,
		      const struct fst_exp *x, const struct exp_resolved *r) {
	char nb[300];

	if (inotify) {
		fst_diag(ctx, "    [%zu] wd=%d %s", i, x->wd,
			 fst_mask_str(FSN_MASK_INOTIFY_EVENT, x->mask));
		if (x->cookie_of)
			fst_diag(ctx, " cookie=(that of [%d])", x->cookie_of - 1);
		else if (x->cookie)
			fst_diag(ctx, " cookie=%u", x->cookie);
	} else {
		fst_diag(ctx, "    [%zu] %s", i, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, x->mask));
		if (x->fd_error)
			fst_diag(ctx, " fd=%s", fd_str(ctx, x->fd_error));
		else if (x->nofd)
			fst_diag(ctx, " fd=FAN_NOFD");
		if (r->o.has)
			fst_diag(ctx, " obj=%s", r->o.obj.label);
		if (r->d.has)
			fst_diag(ctx, " %s=%s",
				 dir_in_fid_record(init_flags, x->mask) ? "fid(dir)" : "dir",
				 r->d.obj.label);
		if (r->od.has || x->old_name)
			fst_diag(ctx, " old=%s/%s", r->od.has ? r->od.obj.label : "?",
				 x->old_name ? fst_escape(x->old_name, nb, sizeof(nb)) : "");
		if (r->nd.has || x->new_name)
			fst_diag(ctx, " new=%s/%s", r->nd.has ? r->nd.obj.label : "?",
				 x->new_name ? fst_escape(x->new_name, nb, sizeof(nb)) : "");
		if (x->range)
			fst_diag(ctx, " range=%llu+%llu", (unsigned long long)x->range_offset,
				 (unsigned long long)x->range_count);
		if (x->pid == 0)
			fst_diag(ctx, " pid=%d (self)", (int)ctx->pid);
		else if (x->pid == FST_PID_ZERO)
			fst_diag(ctx, " pid=0");
		else if (x->pid != FST_ANY_PID)
			fst_diag(ctx, " pid=%d", (int)x->pid);
		fst_diag(ctx, " records=%s",
			 records_str(ctx, wanted_records(init_flags, x, r) & cared_records(x)));
	}
	if (x->name)
		fst_diag(ctx, " name=\"%s\"", fst_escape(x->name, nb, sizeof(nb)));
	if (x->any)
		fst_diag(ctx, " (not compared:%s%s%s)", x->any & FST_ANY_FID ? " FID" : "",
			 x->any & FST_ANY_DIR ? " DFID" : "", x->any & FST_ANY_NAME ? " name" : "");
	fst_diag(ctx, "\n");
}

static void print_act(struct fst_ctx *ctx, bool inotify, size_t i, const struct fst_event *e,
		      const struct exp_resolved *res, size_t nres) {
	const struct fsn_event *ev = &e->ev;
	char nb[300], fb[160];
	const char *l;

	if (inotify) {
		fst_diag(ctx, "    [%zu] wd=%d %s", i, ev->wd,
			 fst_mask_str(FSN_MASK_INOTIFY_EVENT, ev->mask));
		if (ev->cookie)
			fst_diag(ctx, " cookie=%u", ev->cookie);
	} else {
		fst_diag(ctx, "    [%zu] %s", i, fst_mask_str(FSN_MASK_FANOTIFY_EVENT, ev->mask));
		if (e->had_fd) {
			fst_diag(ctx, " fd=%s",
				 fst_escape(short_path(ctx, e->fdpath), nb, sizeof(nb)));
			if (e->has_stat) {
				l = label_for(res, nres, false, NULL, e->st.st_dev, e->st.st_ino);
				fst_diag(ctx, " [dev %u:%u ino %llu%s%s]", major(e->st.st_dev),
					 minor(e->st.st_dev), (unsigned long long)e->st.st_ino,
					 l ? " = " : "", l ? l : "");
			}
		} else
			fst_diag(ctx, " fd=%s", fd_str(ctx, ev->fd));
		if (ev->has & FSN_HAS_FID) {
			l = label_for(res, nres, true, &ev->fid, 0, 0);
			fmt_fid(&ev->fid, fb, sizeof(fb));
			fst_diag(ctx, " fid=%s", l ? l : fb);
		}
		if (ev->has & FSN_HAS_DFID) {
			l = label_for(res, nres, true, &ev->dfid, 0, 0);
			fmt_fid(&ev->dfid, fb, sizeof(fb));
			fst_diag(ctx, " dfid=%s", l ? l : fb);
		}
		if (ev->has & FSN_HAS_OLD) {
			l = label_for(res, nres, true, &ev->old_dfid, 0, 0);
			fmt_fid(&ev->old_dfid, fb, sizeof(fb));
			fst_diag(ctx, " old=%s/%s", l ? l : fb,
				 fst_escape(ev->old_name, nb, sizeof(nb)));
		}
		if (ev->has & FSN_HAS_NEW) {
			l = label_for(res, nres, true, &ev->new_dfid, 0, 0);
			fmt_fid(&ev->new_dfid, fb, sizeof(fb));
			fst_diag(ctx, " new=%s/%s", l ? l : fb,
				 fst_escape(ev->new_name, nb, sizeof(nb)));
		}
		if (ev->has & FSN_HAS_RANGE)
			fst_diag(ctx, " range=%llu+%llu", (unsigned long long)ev->range_offset,
				 (unsigned long long)ev->range_count);
		if (ev->has & FSN_HAS_PIDFD)
			fst_diag(ctx, " pidfd=%d", ev->pidfd);
		if (ev->has & FSN_HAS_ERROR)
			fst_diag(ctx, " error=%d count=%u", (int)ev->error, ev->error_count);
		fst_diag(ctx, " pid=%d%s", (int)ev->pid, ev->pid == ctx->pid ? " (self)" : "");
		fst_diag(ctx, " records=%s", records_str(ctx, ev->has));
	}
	if (ev->name)
		fst_diag(ctx, " name=\"%s\"", fst_escape(ev->name, nb, sizeof(nb)));
	fst_diag(ctx, "\n");
}

/*
 * Set matching: every event matches one of the expectations and every
 * expectation is matched by an event. why gets the first event that
 * matches none, or the first expectation no event matched.
 */
static bool match_set(struct fst_ctx *ctx, bool inotify, unsigned init_flags,
		      const struct fst_events *evs, const struct fst_exp *exp,
		      const struct exp_resolved *res, size_t n, char *why, size_t wl) {
	bool *seen = fst_calloc(ctx, n ? n : 1, sizeof(*seen));
	bool ok = true;
	char w[600], scratch[600];

	for (size_t i = 0; i < evs->n && ok; i++) {
		bool any = false;

		for (size_t k = 0; k < n; k++)
			if (match_one(ctx, inotify, init_flags, evs, i, &exp[k], &res[k],
				      k ? scratch : w, sizeof(w)))
				any = seen[k] = true;
		if (!any) {
			snprintf(why, wl,
				 "event %zu of %zu matches none of the expected events (against "
				 "[0]: %.400s)",
				 i, evs->n, w);
			ok = false;
		}
	}
	for (size_t k = 0; k < n && ok; k++)
		if (!seen[k]) {
			snprintf(why, wl, "no event matches expected event %zu", k);
			ok = false;
		}
	fst_free(ctx, seen);
	return ok;
}

static void match_events(struct fst_ctx *ctx, int fd, const struct fst_events *events,
			 const struct fst_exp *exp, size_t n, bool ordered, const char *what,
			 const char *file, int line) {
	unsigned init_flags;
	enum fd_kind kind = fst_fd_kind(ctx, fd, &init_flags);
	bool inotify = kind == FD_INOTIFY;
	struct exp_resolved *res;
	char why[600] = "";
	size_t bad = SIZE_MAX;

	if (kind == FD_UNKNOWN) { /* fst_decode()d events carry their group's flags */
		inotify = events->inotify;
		init_flags = events->init_flags;
	}
	res = fst_calloc(ctx, n, sizeof(*res));
	for (size_t i = 0; i < n; i++) {
		resolve(ctx, exp[i].path, exp[i].obj, &res[i].o);
		resolve(ctx, exp[i].dir, exp[i].dobj, &res[i].d);
		resolve(ctx, exp[i].old_dir, exp[i].old_dobj, &res[i].od);
		resolve(ctx, exp[i].new_dir, exp[i].new_dobj, &res[i].nd);
	}
	if (ordered) {
		for (size_t i = 0; i < n && i < events->n; i++) {
			if (!match_one(ctx, inotify, init_flags, events, i, &exp[i], &res[i], why,
				       sizeof(why))) {
				bad = i;
				break;
			}
		}
	} else {
		for (size_t k = 0; k < n; k++)
			if (exp[k].cookie_of)
				fst_fail_(
				    ctx, file, line,
				    "(bad expectation) cookie_of needs the ordered FST_EXPECT");
		if (n &&
		    match_set(ctx, inotify, init_flags, events, exp, res, n, why, sizeof(why))) {
			fst_free(ctx, res);
			return;
		}
		bad = 0;
	}
	if (bad == SIZE_MAX && n == events->n) {
		fst_free(ctx, res);
		return;
	}

	fst_diag(ctx, "%s:%d: %s (%s fd %d): expected %zu event%s%s:\n", file, line, what,
		 inotify ? "inotify" : "fanotify", fd, n, n == 1 ? "" : "s",
		 ordered ? "" : ", as a set (any order, repeats)");
	if (n == 0)
		fst_diag(ctx, "    (none)\n");
	for (size_t i = 0; i < n; i++)
		print_exp(ctx, inotify, init_flags, i, &exp[i], &res[i]);
	fst_diag(ctx, "  got %zu:\n", events->n);
	if (events->n == 0)
		fst_diag(ctx, "    (none)\n");
	for (size_t i = 0; i < events->n; i++)
		print_act(ctx, inotify, i, &events->e[i], res, n);

	if (!ordered)
		fst_fail_(ctx, file, line, "%s: %s", what, n ? why : "(bad expectation) empty set");
	if (bad != SIZE_MAX)
		fst_fail_(ctx, file, line, "%s: event %zu of %zu: %s", what, bad, events->n, why);
	fst_fail_(ctx, file, line, "%s: expected %zu event%s, got %zu", what, n, n == 1 ? "" : "s",
		  events->n);
}

void fst_match_(struct fst_ctx *ctx, int fd, const struct fst_events *events,
		const struct fst_exp *exp, size_t n, const char *what, const char *file, int line) {
	match_events(ctx, fd, events, exp, n, true, what, file, line);
}

/* Read everything queued on fd and match it, in order or as a set. */
static struct fst_events *expect_events(struct fst_ctx *ctx, int fd, const struct fst_exp *exp,
					size_t n, bool ordered, const char *what, const char *file,
					int line) {
	struct fst_events *evs = fst_read_(ctx, fd, false, file, line);

	fst_checkpoint(file, line);
	match_events(ctx, fd, evs, exp, n, ordered, what, file, line);
	return evs;
}

struct fst_events *fst_expect_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
			       const char *what, const char *file, int line) {
	return expect_events(ctx, fd, exp, n, true, what, file, line);
}

struct fst_events *fst_expect_set_(struct fst_ctx *ctx, int fd, const struct fst_exp *exp, size_t n,
				   const char *what, const char *file, int line) {
	return expect_events(ctx, fd, exp, n, false, what, file, line);
}
