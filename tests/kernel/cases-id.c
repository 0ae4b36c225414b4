/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-id.c — fsn-selftest cases of the ID group: identity and info
 * records (ID01-ID07 in semantics.md).
 *
 * What a fanotify group reads besides the mask: the FID records (fsid +
 * file handle, for the object, its parent directory, with or without the
 * entry name), the pid (or thread id), the pidfd record, the event fd or
 * the error that replaced it, and FAN_FS_ERROR's error record (on an ext4
 * of the case's own, which the case aborts or corrupts). The kernel builds them in
 * fanotify_alloc_event() (fs/notify/fanotify/fanotify.c: which inode is
 * "the object", which is "the directory", whether a name is recorded) and
 * copies them out in copy_event_to_user() / copy_info_records_to_user()
 * (fs/notify/fanotify/fanotify_user.c: the record types and their order).
 *
 * Where the point is the exact layout — which records, of which info type,
 * in which order, with which lengths and padding, and the pidfd record —
 * these cases parse the raw read() buffer themselves (raw_read() below)
 * instead of the shared decoder. Every record is checked against the
 * kernel's own view of the object: statfs().f_fsid and name_to_handle_at(),
 * captured with fst_obj() (before the object goes away where it does).
 * Thread ids and the fd errors of fd-mode groups (ID04, ID05) use the
 * shared matcher (.pid, .fd_error), which is exact about records too.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/btrfs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsn-util.h"
#include "selftest.h"

#define T_FID FAN_EVENT_INFO_TYPE_FID
#define T_DFID FAN_EVENT_INFO_TYPE_DFID
#define T_DNAME FAN_EVENT_INFO_TYPE_DFID_NAME
#define T_OLD FAN_EVENT_INFO_TYPE_OLD_DFID_NAME
#define T_NEW FAN_EVENT_INFO_TYPE_NEW_DFID_NAME
#define T_PIDFD FAN_EVENT_INFO_TYPE_PIDFD
#define T_ERROR FAN_EVENT_INFO_TYPE_ERROR

/* include/linux/exportfs.h: the handle type of a FID record without a
 * handle (copy_fid_info_to_user(): FAN_FS_ERROR with no inode) */
#define FILEID_INVALID 0xff

/* ------------------------------------------------------------------------ */
/* A strict reader of the raw fanotify buffer                               */
/* ------------------------------------------------------------------------ */

#define RR_MAX_REC 5

struct rrec {
	unsigned type;
	struct fsn_fid fid; /* FID-carrying types */
	char name[NAME_MAX + 1];
	int pidfd;            /* T_PIDFD */
	int32_t error;        /* T_ERROR */
	uint32_t error_count; /* T_ERROR */
};

struct rev {
	uint64_t mask;
	int fd;
	pid_t pid;
	unsigned nrec;
	struct rrec rec[RR_MAX_REC];
};

struct revs {
	size_t n;
	struct rev *e;
};

static bool is_fid_type(unsigned t) {
	return t == T_FID || t == T_DFID || t == T_DNAME || t == T_OLD || t == T_NEW;
}

static bool is_name_type(unsigned t) {
	return t == T_DNAME || t == T_OLD || t == T_NEW;
}

static const char *type_name(unsigned t) {
	switch (t) {
	case T_FID: return "FID";
	case T_DFID: return "DFID";
	case T_DNAME: return "DFID_NAME";
	case T_OLD: return "OLD_DFID_NAME";
	case T_NEW: return "NEW_DFID_NAME";
	case T_PIDFD: return "PIDFD";
	case T_ERROR: return "ERROR";
	default: return "?";
	}
}

/* Parse one info record at p (len bytes left in the event) into r; return
 * its length. Checks what copy_fid_info_to_user() promises: the length
 * is the 4-aligned size of header + handle (+ name and its NUL), the name
 * is NUL terminated and not empty, the padding is zero; a FID record
 * without a handle (handle_bytes 0) has type FILEID_INVALID. */
static size_t parse_rec(struct fst_ctx *ctx, const unsigned char *p, size_t len, struct rrec *r,
			const char *file, int line) {
	struct fsn_uapi_info_header h;

	if (len < sizeof(h))
		fst_fail_(ctx, file, line, "info record header truncated (%zu bytes left)", len);
	memcpy(&h, p, sizeof(h));
	if (h.len < sizeof(h) || h.len > len || h.len % 4)
		fst_fail_(ctx, file, line, "info record type %u: bad length %u (%zu bytes left)",
			  h.info_type, h.len, len);
	if (h.pad != 0)
		fst_fail_(ctx, file, line, "info record type %u: pad is %u", h.info_type, h.pad);
	memset(r, 0, sizeof(*r));
	r->type = h.info_type;
	if (is_fid_type(h.info_type)) {
		size_t base = sizeof(struct fsn_uapi_info_fid) + 8, want, nl = 0;
		uint32_t hb;
		int32_t ht;

		if (h.len < base)
			fst_fail_(ctx, file, line, "%s record too short (%u)", type_name(r->type),
				  h.len);
		memcpy(r->fid.fsid, p + 4, 8);
		memcpy(&hb, p + 12, 4);
		memcpy(&ht, p + 16, 4);
		if (hb > FSN_HANDLE_MAX || base + hb > h.len)
			fst_fail_(ctx, file, line, "%s record: handle_bytes %u in a %u-byte record",
				  type_name(r->type), hb, h.len);
		if (hb == 0 && (r->type != T_FID || ht != FILEID_INVALID))
			fst_fail_(ctx, file, line, "%s record: no handle, type %d",
				  type_name(r->type), ht);
		r->fid.handle_bytes = hb;
		r->fid.handle_type = ht;
		memcpy(r->fid.f_handle, p + base, hb);
		if (is_name_type(r->type)) {
			const char *nm = (const char *)p + base + hb;

			nl = strnlen(nm, h.len - base - hb);
			if (nl == h.len - base - hb)
				fst_fail_(ctx, file, line, "%s record: name not NUL terminated",
					  type_name(r->type));
			if (nl == 0 || nl > NAME_MAX)
				fst_fail_(ctx, file, line, "%s record: name of length %zu",
					  type_name(r->type), nl);
			memcpy(r->name, nm, nl + 1);
			nl++;
		}
		want = (base + hb + nl + 3) & ~(size_t)3;
		if (h.len != want)
			fst_fail_(ctx, file, line, "%s record: length %u, expected %zu",
				  type_name(r->type), h.len, want);
		for (size_t i = base + hb + nl; i < h.len; i++)
			if (p[i] != 0)
				fst_fail_(ctx, file, line, "%s record: padding byte %zu is 0x%02x",
					  type_name(r->type), i, p[i]);
	} else if (h.info_type == T_PIDFD) {
		if (h.len != sizeof(struct fsn_uapi_info_pidfd))
			fst_fail_(ctx, file, line, "PIDFD record of length %u", h.len);
		memcpy(&r->pidfd, p + 4, sizeof(r->pidfd));
	} else if (h.info_type == T_ERROR) {
		struct fsn_uapi_info_error er;

		if (h.len != sizeof(er))
			fst_fail_(ctx, file, line, "ERROR record of length %u", h.len);
		memcpy(&er, p, sizeof(er));
		r->error = er.error;
		r->error_count = er.error_count;
	} else {
		fst_fail_(ctx, file, line, "unexpected info record type %u (length %u)",
			  h.info_type, h.len);
	}
	return h.len;
}

/* Read everything queued on g (non-blocking) and parse it strictly. Event
 * fds are closed unless keep; pidfds stay open until rr_match_() has
 * checked them (it closes them). The result is valid until the next
 * raw_read(). */
#define raw_read(ctx, g, keep) raw_read_(ctx, g, keep, __FILE__, __LINE__)
static struct revs *raw_read_(struct fst_ctx *ctx, int g, bool keep, const char *file, int line) {
	static struct revs res;
	static unsigned char buf[64 * 1024];
	size_t cap = 0;

	free(res.e);
	res.e = NULL;
	res.n = 0;
	for (;;) {
		ssize_t n = read(g, buf, sizeof(buf));
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			fst_fail_(ctx, file, line, "read(fanotify fd %d): %s", g,
				  n == 0 ? "returned 0" : fst_errname(errno));
		while (off < (size_t)n) {
			struct fanotify_event_metadata m;
			struct rev *e;
			size_t pos;

			if ((size_t)n - off < sizeof(m))
				fst_fail_(ctx, file, line, "event metadata truncated");
			memcpy(&m, buf + off, sizeof(m));
			if (m.vers != FANOTIFY_METADATA_VERSION || m.metadata_len != sizeof(m) ||
			    m.event_len < sizeof(m) || m.event_len > (size_t)n - off)
				fst_fail_(ctx, file, line,
					  "bad event header: vers %u metadata_len %u event_len %u",
					  m.vers, m.metadata_len, m.event_len);
			if (res.n == cap) {
				cap = cap ? cap * 2 : 64;
				res.e = realloc(res.e, cap * sizeof(*res.e));
				if (!res.e)
					fst_fail_(ctx, file, line, "out of memory");
			}
			e = &res.e[res.n++];
			memset(e, 0, sizeof(*e));
			e->mask = m.mask;
			e->fd = m.fd;
			e->pid = m.pid;
			for (pos = off + m.metadata_len; pos < off + m.event_len;) {
				if (e->nrec == RR_MAX_REC)
					fst_fail_(ctx, file, line, "more than %d info records",
						  RR_MAX_REC);
				pos += parse_rec(ctx, buf + pos, off + m.event_len - pos,
						 &e->rec[e->nrec++], file, line);
			}
			if (!keep && e->fd >= 0)
				close(e->fd);
			off += m.event_len;
		}
	}
	return &res;
}

/* ------------------------------------------------------------------------ */
/* Expectations for the raw reader                                          */
/* ------------------------------------------------------------------------ */

struct xrec {
	unsigned type;
	const char *path;          /* FID types: the object, resolved when matching */
	const struct fst_obj *obj; /* or captured earlier (deleted objects) */
	const char *name;          /* name types */
	int pidfd;                 /* T_PIDFD: 0 = a valid pidfd of the event's pid; else exact */
	int error;                 /* T_ERROR: exactly this error and count */
	unsigned error_count;
};

/* xev.fd: any event fd (>= 0), for fd-mode groups */
#define FD_VALID INT_MAX

struct xev {
	uint64_t mask;
	int fd;    /* 0 = FAN_NOFD; FD_VALID; else the exact value (e.g. -EBADF) */
	pid_t pid; /* 0 = the case process */
	struct xrec r[RR_MAX_REC];
};

#define R_FID(p)                                                                                   \
	{ .type = T_FID, .path = (p) }
#define R_DFID(p)                                                                                  \
	{ .type = T_DFID, .path = (p) }
#define R_DNAME(p, n)                                                                              \
	{ .type = T_DNAME, .path = (p), .name = (n) }
#define R_OLD(p, n)                                                                                \
	{ .type = T_OLD, .path = (p), .name = (n) }
#define R_NEW(p, n)                                                                                \
	{ .type = T_NEW, .path = (p), .name = (n) }
#define O_FID(o)                                                                                   \
	{ .type = T_FID, .obj = (o) }
#define O_DFID(o)                                                                                  \
	{ .type = T_DFID, .obj = (o) }
#define O_DNAME(o, n)                                                                              \
	{ .type = T_DNAME, .obj = (o), .name = (n) }
#define R_PIDFD(v)                                                                                 \
	{ .type = T_PIDFD, .pidfd = (v) }
#define R_ERROR(e, n)                                                                              \
	{ .type = T_ERROR, .error = (e), .error_count = (n) }
#define XEV(m, ...)                                                                                \
	{                                                                                          \
		.mask = (m), .r = { __VA_ARGS__ }                                                  \
	}

static unsigned xrec_count(const struct xev *x) {
	unsigned n = 0;

	while (n < RR_MAX_REC && x->r[n].type)
		n++;
	return n;
}

/* The pid a pidfd refers to, from /proc/self/fdinfo ("Pid:"); -1 if none. */
static pid_t pidfd_pid(int pidfd) {
	char p[64], line[256];
	pid_t pid = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

static void fmt_fid(const struct fsn_fid *f, char *b, size_t len) {
	size_t pos = (size_t)snprintf(b, len, "fsid %08x.%08x type %d ", (unsigned)f->fsid[0],
				      (unsigned)f->fsid[1], f->handle_type);

	for (uint32_t i = 0; i < f->handle_bytes && i < 16 && pos + 3 < len; i++)
		pos += (size_t)snprintf(b + pos, len - pos, "%02x", f->f_handle[i]);
}

struct resolved {
	struct fst_obj o[RR_MAX_REC];
};

static const char *label(const struct fsn_fid *fid, const struct resolved *res, size_t nres,
			 char *b, size_t len) {
	for (size_t i = 0; i < nres; i++)
		for (unsigned k = 0; k < RR_MAX_REC; k++)
			if (res[i].o[k].has_fid && fsn_fid_equal(&res[i].o[k].fid, fid))
				return res[i].o[k].label;
	fmt_fid(fid, b, len);
	return b;
}

static void log_rev(struct fst_ctx *ctx, size_t i, const struct rev *e, const struct resolved *res,
		    size_t nres) {
	char line[1024], b[128];
	size_t pos;

	pos = (size_t)snprintf(line, sizeof(line), "    [%zu] %s fd=%d pid=%d%s", i,
			       fst_mask_str(FSN_MASK_FANOTIFY_EVENT, e->mask), e->fd, (int)e->pid,
			       e->pid == ctx->pid ? " (self)" : "");
	for (unsigned k = 0; k < e->nrec && pos < sizeof(line); k++) {
		const struct rrec *r = &e->rec[k];

		if (r->type == T_PIDFD)
			pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " [PIDFD %d]",
						r->pidfd);
		else if (r->type == T_ERROR)
			pos +=
			    (size_t)snprintf(line + pos, sizeof(line) - pos, " [ERROR %s count %u]",
					     fst_errname(r->error), r->error_count);
		else
			pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " [%s %s%s%s%s]",
						type_name(r->type),
						label(&r->fid, res, nres, b, sizeof(b)),
						is_name_type(r->type) ? " \"" : "", r->name,
						is_name_type(r->type) ? "\"" : "");
	}
	fst_log(ctx, "%s", line);
}

static void log_xev(struct fst_ctx *ctx, size_t i, const struct xev *x, const struct resolved *rs) {
	char line[1024];
	size_t pos;
	unsigned n = xrec_count(x);

	pos = (size_t)snprintf(line, sizeof(line), "    [%zu] %s fd=%s pid=%d", i,
			       fst_mask_str(FSN_MASK_FANOTIFY_EVENT, x->mask),
			       x->fd == FD_VALID ? "valid"
						 : fst_strdupf(ctx, "%d", x->fd ? x->fd : FAN_NOFD),
			       x->pid ? (int)x->pid : (int)ctx->pid);
	for (unsigned k = 0; k < n && pos < sizeof(line); k++) {
		const struct xrec *r = &x->r[k];

		if (r->type == T_PIDFD)
			pos +=
			    (size_t)snprintf(line + pos, sizeof(line) - pos, " [PIDFD %s]",
					     r->pidfd ? fst_strdupf(ctx, "%d", r->pidfd) : "valid");
		else if (r->type == T_ERROR)
			pos +=
			    (size_t)snprintf(line + pos, sizeof(line) - pos, " [ERROR %s count %u]",
					     fst_errname(r->error), r->error_count);
		else
			pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " [%s %s%s%s%s]",
						type_name(r->type), rs->o[k].label,
						r->name ? " \"" : "", r->name ? r->name : "",
						r->name ? "\"" : "");
	}
	fst_log(ctx, "%s", line);
}

/* Compare one event with its expectation; on mismatch write why. */
static bool match_rev(struct fst_ctx *ctx, const struct rev *e, const struct xev *x,
		      const struct resolved *rs, char *why, size_t wl) {
	pid_t want_pid = x->pid ? x->pid : ctx->pid;
	int want_fd = x->fd ? x->fd : FAN_NOFD;
	unsigned n = xrec_count(x);

	if (e->mask != x->mask) {
		snprintf(why, wl, "mask is %s, expected %s",
			 fst_mask_str(FSN_MASK_FANOTIFY_EVENT, e->mask),
			 fst_mask_str(FSN_MASK_FANOTIFY_EVENT, x->mask));
		return false;
	}
	if (want_fd == FD_VALID ? e->fd < 0 : e->fd != want_fd) {
		snprintf(why, wl, "fd is %d, expected %s", e->fd,
			 want_fd == FD_VALID ? "an event fd" : fst_strdupf(ctx, "%d", want_fd));
		return false;
	}
	if (e->pid != want_pid) {
		snprintf(why, wl, "pid is %d, expected %d", (int)e->pid, (int)want_pid);
		return false;
	}
	if (e->nrec != n) {
		snprintf(why, wl, "%u info records, expected %u", e->nrec, n);
		return false;
	}
	for (unsigned k = 0; k < n; k++) {
		const struct rrec *r = &e->rec[k];
		const struct xrec *xr = &x->r[k];

		if (r->type != xr->type) {
			snprintf(why, wl, "record %u is %s, expected %s", k, type_name(r->type),
				 type_name(xr->type));
			return false;
		}
		if (r->type == T_PIDFD) {
			if (xr->pidfd && r->pidfd != xr->pidfd) {
				snprintf(why, wl, "pidfd is %d, expected %d", r->pidfd, xr->pidfd);
				return false;
			}
			if (!xr->pidfd && (r->pidfd < 0 || pidfd_pid(r->pidfd) != e->pid)) {
				snprintf(why, wl, "pidfd %d does not refer to pid %d (fdinfo: %d)",
					 r->pidfd, (int)e->pid,
					 r->pidfd < 0 ? -1 : (int)pidfd_pid(r->pidfd));
				return false;
			}
			continue;
		}
		if (r->type == T_ERROR) {
			if (r->error != xr->error || r->error_count != xr->error_count) {
				snprintf(why, wl,
					 "ERROR record is %s count %u, expected %s count %u",
					 fst_errname(r->error), r->error_count,
					 fst_errname(xr->error), xr->error_count);
				return false;
			}
			continue;
		}
		if (!rs->o[k].has_fid || !fsn_fid_equal(&r->fid, &rs->o[k].fid)) {
			snprintf(why, wl, "record %u (%s) is not the FID of %s", k,
				 type_name(r->type), rs->o[k].label);
			return false;
		}
		if (is_name_type(r->type) && (!xr->name || strcmp(r->name, xr->name) != 0)) {
			snprintf(why, wl, "record %u name is \"%s\", expected \"%s\"", k, r->name,
				 xr->name ? xr->name : "(none)");
			return false;
		}
	}
	return true;
}

#define RR_MATCH(ctx, revs, ...)                                                                   \
	rr_match_(ctx, revs, (const struct xev[]){ __VA_ARGS__ },                                  \
		  sizeof((const struct xev[]){ __VA_ARGS__ }) / sizeof(struct xev), __FILE__,      \
		  __LINE__)
#define RR_EXPECT(ctx, g, ...) RR_MATCH(ctx, raw_read(ctx, g, false), __VA_ARGS__)
#define RR_EXPECT_NONE(ctx, g) rr_match_(ctx, raw_read(ctx, g, false), NULL, 0, __FILE__, __LINE__)

static void rr_match_(struct fst_ctx *ctx, const struct revs *ev, const struct xev *x, size_t n,
		      const char *file, int line) {
	struct resolved *rs = calloc(n ? n : 1, sizeof(*rs));
	char why[512] = "";
	size_t bad = SIZE_MAX;

	if (!rs)
		fst_fail_(ctx, file, line, "out of memory");
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < xrec_count(&x[i]); k++) {
			const struct xrec *xr = &x[i].r[k];

			if (xr->obj)
				rs[i].o[k] = *xr->obj;
			else if (xr->path)
				rs[i].o[k] = fst_obj_(ctx, xr->path, true, file, line);
			else
				snprintf(rs[i].o[k].label, sizeof(rs[i].o[k].label), "-");
		}
	for (size_t i = 0; i < n && i < ev->n; i++)
		if (!match_rev(ctx, &ev->e[i], &x[i], &rs[i], why, sizeof(why))) {
			bad = i;
			break;
		}
	for (size_t i = 0; i < ev->n; i++)
		for (unsigned k = 0; k < ev->e[i].nrec; k++)
			if (ev->e[i].rec[k].type == T_PIDFD && ev->e[i].rec[k].pidfd >= 0)
				close(ev->e[i].rec[k].pidfd);
	if (bad == SIZE_MAX && n == ev->n) {
		free(rs);
		return;
	}
	fst_log(ctx, "%s:%d: expected %zu event%s:", file, line, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		log_xev(ctx, i, &x[i], &rs[i]);
	fst_log(ctx, "  got %zu:", ev->n);
	for (size_t i = 0; i < ev->n; i++)
		log_rev(ctx, i, &ev->e[i], rs, n);
	if (bad != SIZE_MAX)
		fst_fail_(ctx, file, line, "event %zu of %zu: %s", bad, ev->n, why);
	fst_fail_(ctx, file, line, "expected %zu event%s, got %zu", n, n == 1 ? "" : "s", ev->n);
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static void mknod_file(struct fst_ctx *ctx, const char *path) {
	FST_SYS(ctx, mknodat(ctx->workfd, path, S_IFREG | 0644, 0));
}

/* The FID in record r must be what the kernel says about path through
 * other interfaces: statfs().f_fsid, name_to_handle_at(), and the handle
 * must open (open_by_handle_at() on mount_fd, a non-O_PATH fd on the
 * object's mount; O_PATH: no event) the same inode. */
static void check_fid_identity_at(struct fst_ctx *ctx, const struct rrec *r, const char *path,
				  int mount_fd) {
	struct {
		struct file_handle fh;
		unsigned char b[FSN_HANDLE_MAX];
	} h;
	struct statfs sfs;
	struct stat st, st2;
	int mnt_id, fd;

	FST_SYS(ctx, statfs(path, &sfs));
	if (memcmp(r->fid.fsid, &sfs.f_fsid, sizeof(r->fid.fsid)) != 0)
		fst_fail(ctx, "%s: record fsid %08x.%08x, statfs() f_fsid %08x.%08x", path,
			 (unsigned)r->fid.fsid[0], (unsigned)r->fid.fsid[1],
			 (unsigned)sfs.f_fsid.__val[0], (unsigned)sfs.f_fsid.__val[1]);
	h.fh.handle_bytes = FSN_HANDLE_MAX;
	FST_SYS(ctx, name_to_handle_at(ctx->workfd, path, &h.fh, &mnt_id, 0));
	if (h.fh.handle_bytes != r->fid.handle_bytes || h.fh.handle_type != r->fid.handle_type ||
	    memcmp(h.fh.f_handle, r->fid.f_handle, h.fh.handle_bytes) != 0)
		fst_fail(ctx,
			 "%s: record handle (type %d, %u bytes) differs from name_to_handle_at()"
			 " (type %d, %u bytes)",
			 path, r->fid.handle_type, r->fid.handle_bytes, h.fh.handle_type,
			 h.fh.handle_bytes);
	memcpy(h.fh.f_handle, r->fid.f_handle, r->fid.handle_bytes);
	fd = FST_SYS(ctx, open_by_handle_at(mount_fd, &h.fh, O_PATH | O_CLOEXEC));
	FST_SYS(ctx, fstat(fd, &st));
	FST_SYS(ctx, fstatat(ctx->workfd, path, &st2, 0));
	close(fd);
	if (st.st_dev != st2.st_dev || st.st_ino != st2.st_ino)
		fst_fail(ctx, "%s: the record's handle opens inode %llu, not %llu", path,
			 (unsigned long long)st.st_ino, (unsigned long long)st2.st_ino);
}

/* The same for an object on the filesystem under test. */
static void check_fid_identity(struct fst_ctx *ctx, const struct rrec *r, const char *path) {
	check_fid_identity_at(ctx, r, path, ctx->workfd);
}

/* One event with one FID record of path: return the record, after
 * checking it like check_fid_identity(). */
#define EXPECT_ONE_FID(ctx, g, mask, path) expect_one_fid(ctx, g, mask, path, __FILE__, __LINE__)
static void expect_one_fid(struct fst_ctx *ctx, int g, uint64_t mask, const char *path,
			   const char *file, int line) {
	const struct xev x = XEV(mask, R_FID(path));
	struct revs *ev = raw_read_(ctx, g, false, file, line);

	rr_match_(ctx, ev, &x, 1, file, line);
	check_fid_identity(ctx, &ev->e[0].rec[0], path);
}

/* A read-only bind mount of the work directory (same filesystem). */
static const char *ro_bind(struct fst_ctx *ctx, const char *name) {
	const char *b = fst_bind(ctx, ".", name);

	FST_SYS(ctx, mount(NULL, b, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	return b;
}

/* ------------------------------------------------------------------------ */
/* ID01: FID = statfs() fsid + name_to_handle_at() handle                   */
/* ------------------------------------------------------------------------ */

static void fid_ops_on(struct fst_ctx *ctx, int g) {
	int fd;

	fd = fst_open(ctx, "f", O_RDWR);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN, "f");
	FST_SYS(ctx, write(fd, "x", 1));
	EXPECT_ONE_FID(ctx, g, FAN_MODIFY, "f");
	fst_close(ctx, fd);
	EXPECT_ONE_FID(ctx, g, FAN_CLOSE_WRITE, "f");
	fst_open_close(ctx, "d/g", O_RDONLY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN | FAN_CLOSE_NOWRITE, "d/g");
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR, "d");
}

static void id01_fid_inode_marks(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_MODIFY | FAN_CLOSE | FAN_ATTRIB;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/g", "g");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, m, "f");
	fst_mark(ctx, g, FAN_MARK_ADD, m, "d/g");
	fst_mark(ctx, g, FAN_MARK_ADD, m | FAN_ONDIR, "d");
	fid_ops_on(ctx, g);
	FST_SYS(ctx, chmod("f", 0600));
	EXPECT_ONE_FID(ctx, g, FAN_ATTRIB, "f");
	FST_SYS(ctx, chmod("d", 0700));
	EXPECT_ONE_FID(ctx, g, FAN_ATTRIB | FAN_ONDIR, "d");
	RR_EXPECT_NONE(ctx, g);
}

static void id01_fid_mount_mark(struct fst_ctx *ctx) {
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/g", "g");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_MOUNT,
		 FAN_OPEN | FAN_MODIFY | FAN_CLOSE | FAN_ONDIR, ".");
	fid_ops_on(ctx, g);
	RR_EXPECT_NONE(ctx, g);
}

static void id01_fid_sb_mark(struct fst_ctx *ctx) {
	const char *b;
	char bf[PATH_MAX];
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/g", "g");
	b = fst_bind(ctx, "d", "b");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
		 FAN_OPEN | FAN_MODIFY | FAN_CLOSE | FAN_ATTRIB | FAN_ONDIR, ".");
	fid_ops_on(ctx, g);
	/* through another mount of the same filesystem: the same FID */
	snprintf(bf, sizeof(bf), "%s/g", b);
	fst_open_close(ctx, bf, O_RDONLY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN | FAN_CLOSE_NOWRITE, "d/g");
	FST_SYS(ctx, chmod(b, 0700));
	EXPECT_ONE_FID(ctx, g, FAN_ATTRIB | FAN_ONDIR, "d");
	RR_EXPECT_NONE(ctx, g);
}

/* The FID names the inode, not the path: stable over rename, equal for
 * hard links, different for different files of one directory. */
static void id01_fid_follows_inode(struct fst_ctx *ctx) {
	struct fst_obj a, b;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_write_file(ctx, "a", "a");
	fst_write_file(ctx, "b", "b");
	a = fst_obj(ctx, "a");
	b = fst_obj(ctx, "b");
	if (!a.has_fid || !b.has_fid || fsn_fid_equal(&a.fid, &b.fid))
		fst_fail(ctx, "name_to_handle_at() gives a and b the same (or no) handle");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_EVENT_ON_CHILD, ".");

	fst_open_close(ctx, "a", O_RDONLY);
	fst_open_close(ctx, "b", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(FAN_OPEN | FAN_CLOSE_NOWRITE, O_FID(&a)),
		  XEV(FAN_OPEN | FAN_CLOSE_NOWRITE, O_FID(&b)));
	FST_SYS(ctx, rename("a", "a2"));
	FST_SYS(ctx, link("b", "b2"));
	fst_open_close(ctx, "a2", O_RDONLY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN | FAN_CLOSE_NOWRITE, "a2");
	fst_open_close(ctx, "b2", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(FAN_OPEN | FAN_CLOSE_NOWRITE, O_FID(&b)));
	RR_EXPECT_NONE(ctx, g);
}

/* btrfs: a subvolume "sv" with a file in it, and a file "f" on the top
 * volume; the subvolume has its own f_fsid (statfs()). */
static struct fst_obj btrfs_subvolume(struct fst_ctx *ctx, struct statfs *top) {
	struct btrfs_ioctl_vol_args va;
	struct statfs sv;

	memset(&va, 0, sizeof(va));
	snprintf(va.name, sizeof(va.name), "sv");
	FST_SYS(ctx, ioctl(ctx->workfd, BTRFS_IOC_SUBVOL_CREATE, &va));
	fst_write_file(ctx, "sv/f", "f");
	fst_write_file(ctx, "f", "f");
	FST_SYS(ctx, statfs(".", top));
	FST_SYS(ctx, statfs("sv/f", &sv));
	if (memcmp(&top->f_fsid, &sv.f_fsid, sizeof(top->f_fsid)) == 0)
		fst_fail(ctx, "btrfs subvolume has the same f_fsid as the top volume");
	return fst_obj(ctx, "sv/f");
}

/* btrfs: an inode mark inside a subvolume (Linux 6.8; EXDEV before)
 * reports the subvolume's fsid, statfs() of the object; the group is then
 * bound to that fsid, and a mark on the top volume is EXDEV
 * (fanotify_test_fsid(), fanotify_set_mark_fsid()). */
static void id01_btrfs_subvolume_fsid(struct fst_ctx *ctx) {
	struct statfs top;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	btrfs_subvolume(ctx, &top);
	fst_require_at(ctx, "sv/f", FSN_FEAT_MARK_FID);

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "sv/f");
	fst_open_close(ctx, "sv/f", O_RDONLY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN, "sv/f");
	ck_assert_int_eq(fst_mark_err(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f"), -EXDEV);
	fst_open_close(ctx, "f", O_RDONLY);
	fst_open_close(ctx, "sv/f", O_RDONLY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN, "sv/f");
	RR_EXPECT_NONE(ctx, g);
}

/* btrfs: a filesystem mark (on the top volume) reports the top volume's
 * fsid for every object, also those in a subvolume, so there the FID's
 * fsid is not statfs() of the object (the handle is name_to_handle_at()'s).
 * sb and mount marks on a subvolume path are EXDEV, and so is an inode
 * mark in the subvolume in the group of the top volume's sb mark. */
static void id01_btrfs_subvolume_sb_mark(struct fst_ctx *ctx) {
	struct statfs top;
	struct fst_obj svf;
	struct revs *ev;
	int g0, gs;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	fst_require(ctx, FSN_FEAT_MARK_MOUNT);
	svf = btrfs_subvolume(ctx, &top);

	/* sb and mount marks need the fsid of the filesystem root */
	g0 = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	ck_assert_int_eq(fst_mark_err(ctx, g0, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, "sv"),
			 -EXDEV);
	ck_assert_int_eq(fst_mark_err(ctx, g0, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN, "sv"),
			 -EXDEV);
	fst_close(ctx, g0);

	gs = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, gs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN, ".");
	fst_open_close(ctx, "f", O_RDONLY);
	EXPECT_ONE_FID(ctx, gs, FAN_OPEN, "f");
	fst_open_close(ctx, "sv/f", O_RDONLY);
	ev = raw_read(ctx, gs, false);
	if (ev->n != 1 || ev->e[0].mask != FAN_OPEN || ev->e[0].nrec != 1 ||
	    ev->e[0].rec[0].type != T_FID)
		fst_fail(ctx, "sb mark, open sv/f: expected one OPEN with one FID record, got %zu",
			 ev->n);
	if (memcmp(ev->e[0].rec[0].fid.fsid, &top.f_fsid, sizeof(top.f_fsid)) != 0)
		fst_fail(ctx, "sb mark: sv/f reported with fsid %08x.%08x, not the top volume's",
			 (unsigned)ev->e[0].rec[0].fid.fsid[0],
			 (unsigned)ev->e[0].rec[0].fid.fsid[1]);
	if (svf.fid.handle_bytes != ev->e[0].rec[0].fid.handle_bytes ||
	    svf.fid.handle_type != ev->e[0].rec[0].fid.handle_type ||
	    memcmp(svf.fid.f_handle, ev->e[0].rec[0].fid.f_handle, svf.fid.handle_bytes) != 0)
		fst_fail(ctx, "sb mark: sv/f handle differs from name_to_handle_at()");
	ck_assert_int_eq(fst_mark_err(ctx, gs, FAN_MARK_ADD, FAN_OPEN, "sv/f"), -EXDEV);
	RR_EXPECT_NONE(ctx, gs);
}

/* One FID group with inode marks on two filesystems (the one under test
 * and a tmpfs of the case's own): each event carries its own filesystem's
 * fsid, statfs() of the object, and its handle (LTP fanotify01). */
static void id01_fid_two_filesystems(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	struct statfs here, there;
	const char *aux, *g2;
	struct revs *ev;
	int g, auxfd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	aux = fst_mount_tmpfs(ctx, "aux");
	fst_require_at(ctx, aux, FSN_FEAT_MARK_FID);
	g2 = fst_strdupf(ctx, "%s/g", aux);
	fst_write_file(ctx, "f", "f");
	fst_write_file(ctx, g2, "g");
	FST_SYS(ctx, statfs("f", &here));
	FST_SYS(ctx, statfs(g2, &there));
	if (memcmp(&here.f_fsid, &there.f_fsid, sizeof(here.f_fsid)) == 0)
		fst_fail(ctx, "%s and a new tmpfs have the same f_fsid %08x.%08x", ctx->fs,
			 (unsigned)here.f_fsid.__val[0], (unsigned)here.f_fsid.__val[1]);
	/* to decode the tmpfs's handles on (opened before any mark exists) */
	auxfd = fst_open(ctx, aux, O_RDONLY | O_DIRECTORY);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, m, "f");
	fst_mark(ctx, g, FAN_MARK_ADD, m, g2);

	fst_open_close(ctx, "f", O_RDONLY);
	fst_open_close(ctx, g2, O_RDONLY);
	ev = raw_read(ctx, g, false);
	RR_MATCH(ctx, ev, XEV(m, R_FID("f")), XEV(m, R_FID(g2)));
	check_fid_identity(ctx, &ev->e[0].rec[0], "f");
	check_fid_identity_at(ctx, &ev->e[1].rec[0], g2, auxfd);
	/* the other way round: the tmpfs first */
	fst_open_close(ctx, g2, O_RDONLY);
	fst_open_close(ctx, "f", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(m, R_FID(g2)), XEV(m, R_FID("f")));
	RR_EXPECT_NONE(ctx, g);
}

/*
 * A group without FID reporting marks the object first, so that its mark
 * creates the object's mark connector; a FID group's mark on the same
 * connector must still report the right fsid and handle (before
 * c285a2f01d69 the connector's fsid cache stayed unset, and the FID group
 * got a zero fsid). The fd-mode group asks only for CLOSE_WRITE: it gets
 * nothing but its own event. LTP fanotify13 (the variant on the filesystem
 * itself; overlayfs is OV's).
 */
static void fid_after_nonfid(struct fst_ctx *ctx, unsigned type) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR;
	struct fst_obj a;
	int g0, g;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require_mark_type(ctx, type);

	fst_write_file(ctx, "a", "a");
	FST_SYS(ctx, mkdir("d", 0755));
	a = fst_obj(ctx, "a");
	g0 = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, g0, FAN_MARK_ADD | type, FAN_CLOSE_WRITE, "a");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	if (type == FAN_MARK_INODE) {
		fst_mark(ctx, g, FAN_MARK_ADD, m | FAN_DELETE_SELF, "a");
		fst_mark(ctx, g, FAN_MARK_ADD, m, "d");
	} else {
		fst_mark(ctx, g, FAN_MARK_ADD | type, m, ".");
	}

	fst_open_close(ctx, "a", O_RDONLY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN | FAN_CLOSE_NOWRITE, "a");
	fst_open_close(ctx, "d", O_RDONLY | O_DIRECTORY);
	EXPECT_ONE_FID(ctx, g, FAN_OPEN | FAN_CLOSE_NOWRITE | FAN_ONDIR, "d");
	FST_EXPECT_NONE(ctx, g0);
	/* the fd-mode group's own event, and the FID group's OPEN of it */
	fst_open_close(ctx, "a", O_WRONLY);
	FST_EXPECT(ctx, g0, FST_FAN(FAN_CLOSE_WRITE, "a"));
	EXPECT_ONE_FID(ctx, g, FAN_OPEN, "a");
	if (type == FAN_MARK_INODE) {
		/* the object's FID once it is gone too */
		FST_SYS(ctx, unlink("a"));
		RR_EXPECT(ctx, g, XEV(FAN_DELETE_SELF, O_FID(&a)));
	}
	FST_EXPECT_NONE(ctx, g0);
	RR_EXPECT_NONE(ctx, g);
}

static void id01_fid_inode_after_nonfid(struct fst_ctx *ctx) {
	fid_after_nonfid(ctx, FAN_MARK_INODE);
}

static void id01_fid_mount_after_nonfid(struct fst_ctx *ctx) {
	fid_after_nonfid(ctx, FAN_MARK_MOUNT);
}

static void id01_fid_sb_after_nonfid(struct fst_ctx *ctx) {
	fid_after_nonfid(ctx, FAN_MARK_FILESYSTEM);
}

/* ------------------------------------------------------------------------ */
/* ID02: dirent events name the parent, *_SELF the object                   */
/* ------------------------------------------------------------------------ */

static void id02_dirent_parent_self_object(struct fst_ctx *ctx) {
	const uint64_t dm = FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_ONDIR;
	struct fst_obj d1, d2, a, b, t;
	struct revs *ev;
	int g, fd;

	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	FST_SYS(ctx, mkdir("d1", 0755));
	FST_SYS(ctx, mkdir("d2", 0755));
	FST_SYS(ctx, mkdir("d1/t", 0755));
	fst_write_file(ctx, "d1/a", "a");
	fst_write_file(ctx, "d2/b", "b");
	d1 = fst_obj(ctx, "d1");
	d2 = fst_obj(ctx, "d2");
	a = fst_obj(ctx, "d1/a");
	b = fst_obj(ctx, "d2/b");
	t = fst_obj(ctx, "d1/t");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, dm, "d1");
	fst_mark(ctx, g, FAN_MARK_ADD, dm, "d2");
	/* the objects' own marks ask only for DELETE_SELF */
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_DELETE_SELF, "d1/a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_DELETE_SELF, "d2/b");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_DELETE_SELF | FAN_ONDIR, "d1/t");

	mknod_file(ctx, "d1/n");
	ev = raw_read(ctx, g, false);
	RR_MATCH(ctx, ev, XEV(FAN_CREATE, O_FID(&d1)));
	check_fid_identity(ctx, &ev->e[0].rec[0], "d1");
	FST_SYS(ctx, mkdir("d1/s", 0755));
	RR_EXPECT(ctx, g, XEV(FAN_CREATE | FAN_ONDIR, O_FID(&d1)));
	FST_SYS(ctx, rename("d1/n", "d2/n"));
	RR_EXPECT(ctx, g, XEV(FAN_MOVED_FROM, O_FID(&d1)), XEV(FAN_MOVED_TO, O_FID(&d2)));
	FST_SYS(ctx, link("d2/n", "d1/l"));
	RR_EXPECT(ctx, g, XEV(FAN_CREATE, O_FID(&d1)));
	/* the inode keeps a link: no DELETE_SELF */
	FST_SYS(ctx, unlink("d1/l"));
	RR_EXPECT(ctx, g, XEV(FAN_DELETE, O_FID(&d1)));
	/* a replaces b: b's DELETE_SELF carries b's own FID, after the move */
	FST_SYS(ctx, rename("d1/a", "d2/b"));
	RR_EXPECT(ctx, g, XEV(FAN_MOVED_FROM, O_FID(&d1)), XEV(FAN_MOVED_TO, O_FID(&d2)),
		  XEV(FAN_DELETE_SELF, O_FID(&b)));
	/* unlinked while open: DELETE now, DELETE_SELF at the last close */
	fd = fst_open(ctx, "d2/b", O_RDONLY);
	FST_SYS(ctx, unlink("d2/b"));
	RR_EXPECT(ctx, g, XEV(FAN_DELETE, O_FID(&d2)));
	fst_close(ctx, fd);
	RR_EXPECT(ctx, g, XEV(FAN_DELETE_SELF, O_FID(&a)));
	/* directories: the parent for DELETE, the directory itself for DELETE_SELF */
	FST_SYS(ctx, rmdir("d1/s"));
	RR_EXPECT(ctx, g, XEV(FAN_DELETE | FAN_ONDIR, O_FID(&d1)));
	FST_SYS(ctx, rmdir("d1/t"));
	RR_EXPECT(ctx, g, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_FID(&t)),
		  XEV(FAN_DELETE | FAN_ONDIR, O_FID(&d1)));
	RR_EXPECT_NONE(ctx, g);
}

/* With names: the DFID_NAME record names the parent and the entry, also
 * when the entry is a directory (never the directory itself, except for
 * its own events, which carry its FID and "."). */
static void id02_dirent_parent_dfid_name(struct fst_ctx *ctx) {
	const uint64_t dm =
	    FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR;
	struct fst_obj x;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	FST_SYS(ctx, mkdir("d1", 0755));
	FST_SYS(ctx, mkdir("d2", 0755));
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	fst_mark(ctx, g, FAN_MARK_ADD, dm, "d1");
	fst_mark(ctx, g, FAN_MARK_ADD, dm, "d2");

	FST_SYS(ctx, mkdir("d1/x", 0755));
	RR_EXPECT(ctx, g, XEV(FAN_CREATE | FAN_ONDIR, R_DNAME("d1", "x")));
	x = fst_obj(ctx, "d1/x");
	fst_mark(ctx, g, FAN_MARK_ADD, dm, "d1/x");
	FST_SYS(ctx, rename("d1/x", "d2/y"));
	RR_EXPECT(ctx, g, XEV(FAN_MOVED_FROM | FAN_ONDIR, R_DNAME("d1", "x")),
		  XEV(FAN_MOVED_TO | FAN_ONDIR, R_DNAME("d2", "y")),
		  XEV(FAN_MOVE_SELF | FAN_ONDIR, O_DNAME(&x, ".")));
	FST_SYS(ctx, rmdir("d2/y"));
	RR_EXPECT(ctx, g, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&x, ".")),
		  XEV(FAN_DELETE | FAN_ONDIR, R_DNAME("d2", "y")));
	mknod_file(ctx, "d2/f");
	RR_EXPECT(ctx, g, XEV(FAN_CREATE, R_DNAME("d2", "f")));
	FST_SYS(ctx, unlink("d2/f"));
	RR_EXPECT(ctx, g, XEV(FAN_DELETE, R_DNAME("d2", "f")));
	RR_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* ID03: the records of each FID reporting mode                             */
/* ------------------------------------------------------------------------ */

/*
 * One script, run on a group of each mode, reading after every step:
 * directory d (with files f and subdirectory sub) and d/sub are watched
 * by inode marks with EVENT_ON_CHILD|ONDIR (inode variant), or the whole
 * filesystem by an sb mark (sb variant, which also gets *_SELF events of
 * every object and, in name modes, FAN_RENAME).
 *
 *   S_OPEN   open d/f for write      S_MKNOD  mknod d/n
 *   S_WRITE  write it                 S_MKDIR  mkdir d/x
 *   S_CLOSE  close it                 S_MVFILE rename d/n -> d/sub/n2
 *   S_CHMODF chmod d/f                S_MVDIR  rename d/x -> d/y
 *   S_CHMODD chmod d                  S_UNLINK unlink d/sub/n2
 *   S_RMDIR  rmdir d/y                S_RMSUB  rmdir d/sub
 *   S_UNLINKF unlink d/f
 */
enum {
	S_OPEN,
	S_WRITE,
	S_CLOSE,
	S_CHMODF,
	S_CHMODD,
	S_MKNOD,
	S_MKDIR,
	S_MVFILE,
	S_MVDIR,
	S_UNLINK,
	S_RMDIR,
	S_RMSUB,
	S_UNLINKF,
	S_COUNT,
};

struct script {
	int g;
	int fd;
	struct fst_obj d, sub, f, n, x;
};

#define DIR_MASK                                                                                   \
	(FAN_OPEN | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_ATTRIB | FAN_CREATE | FAN_DELETE |          \
	 FAN_MOVE | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR)

static void script_setup(struct fst_ctx *ctx, struct script *s, unsigned mode, bool sb) {
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_REPORT_DIR_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	if (mode & FAN_REPORT_NAME)
		fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	if (mode & FAN_REPORT_TARGET_FID)
		fst_require(ctx, FSN_FEAT_REPORT_TARGET_FID);
	if (sb)
		fst_require(ctx, FSN_FEAT_MARK_FILESYSTEM);
	if (sb && (mode & FAN_REPORT_NAME))
		fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	FST_SYS(ctx, mkdir("d", 0755));
	FST_SYS(ctx, mkdir("d/sub", 0755));
	fst_write_file(ctx, "d/f", "f");
	s->d = fst_obj(ctx, "d");
	s->sub = fst_obj(ctx, "d/sub");
	s->f = fst_obj(ctx, "d/f");
	s->g = fst_fan_init(ctx, FAN_CLASS_NOTIF | mode);
	if (sb) {
		fst_mark(ctx, s->g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			 DIR_MASK | (mode & FAN_REPORT_NAME ? FAN_RENAME : 0), ".");
	} else {
		fst_mark(ctx, s->g, FAN_MARK_ADD, DIR_MASK | FAN_EVENT_ON_CHILD, "d");
		fst_mark(ctx, s->g, FAN_MARK_ADD, DIR_MASK | FAN_EVENT_ON_CHILD, "d/sub");
	}
}

static void script_step(struct fst_ctx *ctx, struct script *s, int step) {
	switch (step) {
	case S_OPEN: s->fd = fst_open(ctx, "d/f", O_WRONLY); break;
	case S_WRITE: FST_SYS(ctx, write(s->fd, "x", 1)); break;
	case S_CLOSE:
		fst_close(ctx, s->fd);
		s->fd = -1;
		break;
	case S_CHMODF: FST_SYS(ctx, chmod("d/f", 0600)); break;
	case S_CHMODD: FST_SYS(ctx, chmod("d", 0700)); break;
	case S_MKNOD:
		mknod_file(ctx, "d/n");
		s->n = fst_obj(ctx, "d/n");
		break;
	case S_MKDIR:
		FST_SYS(ctx, mkdir("d/x", 0755));
		s->x = fst_obj(ctx, "d/x");
		break;
	case S_MVFILE: FST_SYS(ctx, rename("d/n", "d/sub/n2")); break;
	case S_MVDIR: FST_SYS(ctx, rename("d/x", "d/y")); break;
	case S_UNLINK: FST_SYS(ctx, unlink("d/sub/n2")); break;
	case S_RMDIR: FST_SYS(ctx, rmdir("d/y")); break;
	case S_RMSUB: FST_SYS(ctx, rmdir("d/sub")); break;
	case S_UNLINKF: FST_SYS(ctx, unlink("d/f")); break;
	}
}

#define STEP(ctx, s, step, ...)                                                                    \
	do {                                                                                       \
		script_step(ctx, s, step);                                                         \
		RR_EXPECT(ctx, (s)->g, __VA_ARGS__);                                               \
	} while (0)
#define STEP_NONE(ctx, s, step)                                                                    \
	do {                                                                                       \
		script_step(ctx, s, step);                                                         \
		RR_EXPECT_NONE(ctx, (s)->g);                                                       \
	} while (0)

/* FAN_REPORT_FID: one FID record: the child for events on it, the
 * directory for dirent events and its own events. */
static void id03_records_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_FID, false);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_FID(&s->f)));
	STEP(ctx, s, S_WRITE, XEV(FAN_MODIFY, O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_FID(&s->f)));
	STEP(ctx, s, S_CHMODF, XEV(FAN_ATTRIB, O_FID(&s->f)));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_FID(&s->d)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_FID(&s->d)),
	     XEV(FAN_MOVED_TO, O_FID(&s->sub)));
	/* same directory, no name: one merged event */
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_FID(&s->sub)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_FID(&s->sub)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_FID(&s->d)));
}

/*
 * FAN_REPORT_DIR_FID alone: one record, always the directory. For dirent
 * events and a directory's own events it is of type DFID; for events on a
 * non-directory child it is of type FID (holding the parent's handle):
 * copy_info_records_to_user() picks DFID only when the event mask has a
 * dirent bit or FAN_ONDIR. fanotify_init(2) documents DFID here. The case
 * pins what every kernel since 5.9 does; see id03_dir_fid_type_merge.
 */
static void id03_records_dir_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DIR_FID, false);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_FID(&s->d)));
	STEP(ctx, s, S_WRITE, XEV(FAN_MODIFY, O_FID(&s->d)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_FID(&s->d)));
	STEP(ctx, s, S_CHMODF, XEV(FAN_ATTRIB, O_FID(&s->d)));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DFID(&s->d)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DFID(&s->d)),
	     XEV(FAN_MOVED_TO, O_DFID(&s->sub)));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DFID(&s->sub)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DFID(&s->sub)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DFID(&s->d)));
}

/* DIR_FID alone: an unread OPEN of a child and a CREATE in the same
 * directory have the same single record, so they merge; the merged event
 * then has a dirent bit and its record becomes DFID. */
static void id03_dir_fid_type_merge(struct fst_ctx *ctx) {
	struct fst_obj d;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_DIR_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require(ctx, FSN_FEAT_EVENT_DIRENT);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	d = fst_obj(ctx, "d");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DIR_FID);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CREATE | FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(FAN_OPEN, O_FID(&d)));
	fst_open_close(ctx, "d/f", O_RDONLY);
	mknod_file(ctx, "d/n");
	RR_EXPECT(ctx, g, XEV(FAN_OPEN | FAN_CREATE, O_DFID(&d)));
	RR_EXPECT_NONE(ctx, g);
}

/* DIR_FID|FID: DFID of the parent + FID of the child for events on a
 * non-directory; a single DFID for dirent events and directories. */
static void id03_records_dir_fid_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DIR_FID | FAN_REPORT_FID, false);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DFID(&s->d), O_FID(&s->f)));
	STEP(ctx, s, S_WRITE, XEV(FAN_MODIFY, O_DFID(&s->d), O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DFID(&s->d), O_FID(&s->f)));
	STEP(ctx, s, S_CHMODF, XEV(FAN_ATTRIB, O_DFID(&s->d), O_FID(&s->f)));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DFID(&s->d)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DFID(&s->d)),
	     XEV(FAN_MOVED_TO, O_DFID(&s->sub)));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DFID(&s->sub)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DFID(&s->sub)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DFID(&s->d)));
}

/* DFID_NAME: one DFID_NAME record: parent + entry name; a directory's own
 * events: the directory + ".". Entries with different names never merge. */
static void id03_records_dfid_name(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DFID_NAME, false);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DNAME(&s->d, "f")));
	STEP(ctx, s, S_WRITE, XEV(FAN_MODIFY, O_DNAME(&s->d, "f")));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DNAME(&s->d, "f")));
	STEP(ctx, s, S_CHMODF, XEV(FAN_ATTRIB, O_DNAME(&s->d, "f")));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_DNAME(&s->d, ".")));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DNAME(&s->d, "n")));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DNAME(&s->d, "x")));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DNAME(&s->d, "n")),
	     XEV(FAN_MOVED_TO, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_ONDIR, O_DNAME(&s->d, "x")),
	     XEV(FAN_MOVED_TO | FAN_ONDIR, O_DNAME(&s->d, "y")));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "y")));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&s->sub, ".")),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "sub")));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DNAME(&s->d, "f")));
}

/* DFID_NAME|FID: DFID_NAME, then FID of the child, for events on a
 * non-directory; dirent events carry no child FID. */
static void id03_records_dfid_name_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DFID_NAME | FAN_REPORT_FID, false);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_WRITE, XEV(FAN_MODIFY, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CHMODF, XEV(FAN_ATTRIB, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_DNAME(&s->d, ".")));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DNAME(&s->d, "n")));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DNAME(&s->d, "x")));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DNAME(&s->d, "n")),
	     XEV(FAN_MOVED_TO, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_ONDIR, O_DNAME(&s->d, "x")),
	     XEV(FAN_MOVED_TO | FAN_ONDIR, O_DNAME(&s->d, "y")));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "y")));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&s->sub, ".")),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "sub")));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DNAME(&s->d, "f")));
}

/* DFID_NAME_TARGET: like DFID_NAME|FID, and dirent events also carry the
 * FID of the entry (created, moved, deleted), file or directory. */
static void id03_records_dfid_name_target(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DFID_NAME_TARGET, false);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_WRITE, XEV(FAN_MODIFY, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CHMODF, XEV(FAN_ATTRIB, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_DNAME(&s->d, ".")));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DNAME(&s->d, "n"), O_FID(&s->n)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DNAME(&s->d, "x"), O_FID(&s->x)));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DNAME(&s->d, "n"), O_FID(&s->n)),
	     XEV(FAN_MOVED_TO, O_DNAME(&s->sub, "n2"), O_FID(&s->n)));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_ONDIR, O_DNAME(&s->d, "x"), O_FID(&s->x)),
	     XEV(FAN_MOVED_TO | FAN_ONDIR, O_DNAME(&s->d, "y"), O_FID(&s->x)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DNAME(&s->sub, "n2"), O_FID(&s->n)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "y"), O_FID(&s->x)));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&s->sub, ".")),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "sub"), O_FID(&s->sub)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DNAME(&s->d, "f"), O_FID(&s->f)));
}

/*
 * The sb variants: the same script on a filesystem mark, which also sees
 * *_SELF events of every object and the ATTRIB of a link count change.
 * Those events have no parent/name: a mode without FAN_REPORT_FID has
 * nothing to report for a non-directory and drops them; directories report
 * themselves. Name modes also get FAN_RENAME (OLD_DFID_NAME, NEW_DFID_NAME,
 * and with TARGET_FID the FID of the renamed object), queued before
 * MOVED_FROM/MOVED_TO.
 */
static void id03_sb_records_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_FID, true);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_FID(&s->f)));
	STEP(ctx, s, S_CHMODD, XEV(FAN_ATTRIB | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_FID(&s->d)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_FID(&s->d)), XEV(FAN_MOVED_TO, O_FID(&s->sub)),
	     XEV(FAN_MOVE_SELF, O_FID(&s->n)));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, O_FID(&s->d)),
	     XEV(FAN_MOVE_SELF | FAN_ONDIR, O_FID(&s->x)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->n)),
	     XEV(FAN_DELETE, O_FID(&s->sub)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_FID(&s->x)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_FID(&s->sub)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_FID(&s->d)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->f)),
	     XEV(FAN_DELETE, O_FID(&s->d)));
}

static void id03_sb_records_dir_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DIR_FID, true);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_FID(&s->d)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_FID(&s->d)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DFID(&s->d)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DFID(&s->d)));
	/* no MOVE_SELF for the file: nothing to report without FID */
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DFID(&s->d)),
	     XEV(FAN_MOVED_TO, O_DFID(&s->sub)));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, O_DFID(&s->d)),
	     XEV(FAN_MOVE_SELF | FAN_ONDIR, O_DFID(&s->x)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DFID(&s->sub)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DFID(&s->x)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DFID(&s->d)));
}

static void id03_sb_records_dir_fid_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DIR_FID | FAN_REPORT_FID, true);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DFID(&s->d), O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DFID(&s->d), O_FID(&s->f)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DFID(&s->d)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DFID(&s->d)));
	/* MOVE_SELF of a file has no directory: a single FID record */
	STEP(ctx, s, S_MVFILE, XEV(FAN_MOVED_FROM, O_DFID(&s->d)),
	     XEV(FAN_MOVED_TO, O_DFID(&s->sub)), XEV(FAN_MOVE_SELF, O_FID(&s->n)));
	STEP(ctx, s, S_MVDIR, XEV(FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, O_DFID(&s->d)),
	     XEV(FAN_MOVE_SELF | FAN_ONDIR, O_DFID(&s->x)));
	STEP(ctx, s, S_UNLINK, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->n)),
	     XEV(FAN_DELETE, O_DFID(&s->sub)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DFID(&s->x)),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DFID(&s->d)));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->f)),
	     XEV(FAN_DELETE, O_DFID(&s->d)));
}

static void id03_sb_records_dfid_name(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DFID_NAME, true);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DNAME(&s->d, "f")));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DNAME(&s->d, "f")));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DNAME(&s->d, "n")));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DNAME(&s->d, "x")));
	STEP(ctx, s, S_MVFILE, XEV(FAN_RENAME, R_OLD("d", "n"), R_NEW("d/sub", "n2")),
	     XEV(FAN_MOVED_FROM, O_DNAME(&s->d, "n")), XEV(FAN_MOVED_TO, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_MVDIR, XEV(FAN_RENAME | FAN_ONDIR, R_OLD("d", "x"), R_NEW("d", "y")),
	     XEV(FAN_MOVED_FROM | FAN_ONDIR, O_DNAME(&s->d, "x")),
	     XEV(FAN_MOVED_TO | FAN_ONDIR, O_DNAME(&s->d, "y")),
	     XEV(FAN_MOVE_SELF | FAN_ONDIR, O_DNAME(&s->x, ".")));
	STEP(ctx, s, S_UNLINK, XEV(FAN_DELETE, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&s->x, ".")),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "y")));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_DELETE, O_DNAME(&s->d, "f")));
}

static void id03_sb_records_dfid_name_fid(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DFID_NAME | FAN_REPORT_FID, true);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DNAME(&s->d, "n")));
	STEP(ctx, s, S_MVFILE, XEV(FAN_RENAME, R_OLD("d", "n"), R_NEW("d/sub", "n2")),
	     XEV(FAN_MOVED_FROM, O_DNAME(&s->d, "n")), XEV(FAN_MOVED_TO, O_DNAME(&s->sub, "n2")),
	     XEV(FAN_MOVE_SELF, O_FID(&s->n)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DNAME(&s->d, "x")));
	STEP(ctx, s, S_MVDIR, XEV(FAN_RENAME | FAN_ONDIR, R_OLD("d", "x"), R_NEW("d", "y")),
	     XEV(FAN_MOVED_FROM | FAN_ONDIR, O_DNAME(&s->d, "x")),
	     XEV(FAN_MOVED_TO | FAN_ONDIR, O_DNAME(&s->d, "y")),
	     XEV(FAN_MOVE_SELF | FAN_ONDIR, O_DNAME(&s->x, ".")));
	STEP(ctx, s, S_UNLINK, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->n)),
	     XEV(FAN_DELETE, O_DNAME(&s->sub, "n2")));
	STEP(ctx, s, S_UNLINKF, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->f)),
	     XEV(FAN_DELETE, O_DNAME(&s->d, "f")));
}

static void id03_sb_records_dfid_name_target(struct fst_ctx *ctx) {
	struct script S, *s = &S;

	script_setup(ctx, s, FAN_REPORT_DFID_NAME_TARGET, true);
	STEP(ctx, s, S_OPEN, XEV(FAN_OPEN, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_CLOSE, XEV(FAN_CLOSE_WRITE, O_DNAME(&s->d, "f"), O_FID(&s->f)));
	STEP(ctx, s, S_MKNOD, XEV(FAN_CREATE, O_DNAME(&s->d, "n"), O_FID(&s->n)));
	STEP(ctx, s, S_MVFILE, XEV(FAN_RENAME, R_OLD("d", "n"), R_NEW("d/sub", "n2"), O_FID(&s->n)),
	     XEV(FAN_MOVED_FROM, O_DNAME(&s->d, "n"), O_FID(&s->n)),
	     XEV(FAN_MOVED_TO, O_DNAME(&s->sub, "n2"), O_FID(&s->n)),
	     XEV(FAN_MOVE_SELF, O_FID(&s->n)));
	STEP(ctx, s, S_MKDIR, XEV(FAN_CREATE | FAN_ONDIR, O_DNAME(&s->d, "x"), O_FID(&s->x)));
	STEP(ctx, s, S_MVDIR,
	     XEV(FAN_RENAME | FAN_ONDIR, R_OLD("d", "x"), R_NEW("d", "y"), O_FID(&s->x)),
	     XEV(FAN_MOVED_FROM | FAN_ONDIR, O_DNAME(&s->d, "x"), O_FID(&s->x)),
	     XEV(FAN_MOVED_TO | FAN_ONDIR, O_DNAME(&s->d, "y"), O_FID(&s->x)),
	     XEV(FAN_MOVE_SELF | FAN_ONDIR, O_DNAME(&s->x, ".")));
	STEP(ctx, s, S_UNLINK, XEV(FAN_ATTRIB | FAN_DELETE_SELF, O_FID(&s->n)),
	     XEV(FAN_DELETE, O_DNAME(&s->sub, "n2"), O_FID(&s->n)));
	STEP(ctx, s, S_RMDIR, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&s->x, ".")),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "y"), O_FID(&s->x)));
	STEP(ctx, s, S_RMSUB, XEV(FAN_DELETE_SELF | FAN_ONDIR, O_DNAME(&s->sub, ".")),
	     XEV(FAN_DELETE | FAN_ONDIR, O_DNAME(&s->d, "sub"), O_FID(&s->sub)));
}

/*
 * Parent and name for marks that are not on the parent: a mark on the
 * file itself, a mount mark and an sb mark of a DIR_FID group get the
 * parent + name too (do_fanotify_mark() sets FAN_EVENT_ON_CHILD on such
 * marks so that fsnotify_parent() passes them the parent). The parent is
 * the one of the path used: a hard link in another directory reports that
 * directory and the link's name. One case per mark type.
 */
static void parent_info(struct fst_ctx *ctx, unsigned type) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	struct fst_obj a, b, f;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_require_mark_type(ctx, type);

	FST_SYS(ctx, mkdir("a", 0755));
	FST_SYS(ctx, mkdir("b", 0755));
	fst_write_file(ctx, "a/f", "f");
	FST_SYS(ctx, link("a/f", "b/l"));
	a = fst_obj(ctx, "a");
	b = fst_obj(ctx, "b");
	f = fst_obj(ctx, "a/f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID);
	if (type == FAN_MARK_INODE)
		fst_mark(ctx, g, FAN_MARK_ADD, m, "a/f");
	else
		fst_mark(ctx, g, FAN_MARK_ADD | type, m | FAN_ONDIR, ".");

	fst_open_close(ctx, "a/f", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(m, O_DNAME(&a, "f"), O_FID(&f)));
	/* the same inode through its other name */
	fst_open_close(ctx, "b/l", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(m, O_DNAME(&b, "l"), O_FID(&f)));
	/* a directory: itself and "." (the inode mark is not on it) */
	fst_open_close(ctx, "b", O_RDONLY | O_DIRECTORY);
	if (type == FAN_MARK_INODE)
		RR_EXPECT_NONE(ctx, g);
	else
		RR_EXPECT(ctx, g, XEV(m | FAN_ONDIR, O_DNAME(&b, ".")));
	RR_EXPECT_NONE(ctx, g);
}

static void id03_parent_info_inode_mark(struct fst_ctx *ctx) {
	parent_info(ctx, FAN_MARK_INODE);
}

static void id03_parent_info_mount_mark(struct fst_ctx *ctx) {
	parent_info(ctx, FAN_MARK_MOUNT);
}

static void id03_parent_info_sb_mark(struct fst_ctx *ctx) {
	parent_info(ctx, FAN_MARK_FILESYSTEM);
}

/* FAN_RENAME on inode marks: the old parent+name only if the old
 * directory is watched, the new parent+name only if the new one is
 * (fanotify_alloc_event(), match_mask). */
static void id03_rename_records_per_dir(struct fst_ctx *ctx) {
	struct fst_obj n;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_EVENT_RENAME);
	FST_SYS(ctx, mkdir("a", 0755));
	FST_SYS(ctx, mkdir("b", 0755));
	FST_SYS(ctx, mkdir("c", 0755));
	fst_write_file(ctx, "a/n", "n");
	n = fst_obj(ctx, "a/n");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_RENAME, "a");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_RENAME, "b");

	FST_SYS(ctx, rename("a/n", "b/m")); /* both watched */
	RR_EXPECT(ctx, g, XEV(FAN_RENAME, R_OLD("a", "n"), R_NEW("b", "m"), O_FID(&n)));
	FST_SYS(ctx, rename("b/m", "c/o")); /* only the old one */
	RR_EXPECT(ctx, g, XEV(FAN_RENAME, R_OLD("b", "m"), O_FID(&n)));
	FST_SYS(ctx, rename("c/o", "a/p")); /* only the new one */
	RR_EXPECT(ctx, g, XEV(FAN_RENAME, R_NEW("a", "p"), O_FID(&n)));
	FST_SYS(ctx, rename("a/p", "a/q")); /* within one watched directory */
	RR_EXPECT(ctx, g, XEV(FAN_RENAME, R_OLD("a", "p"), R_NEW("a", "q"), O_FID(&n)));
	RR_EXPECT_NONE(ctx, g);
}

/* The pidfd record comes after every FID record (copy_info_records_to_user()). */
static void id03_pidfd_record_last(struct fst_ctx *ctx) {
	struct fst_obj d, f;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	fst_require(ctx, FSN_FEAT_REPORT_PIDFD);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	d = fst_obj(ctx, "d");
	f = fst_obj(ctx, "d/f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID |
				  FAN_REPORT_PIDFD);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CREATE | FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	RR_EXPECT(ctx, g, XEV(FAN_OPEN, O_DNAME(&d, "f"), O_FID(&f), R_PIDFD(0)));
	mknod_file(ctx, "d/n");
	RR_EXPECT(ctx, g, XEV(FAN_CREATE, O_DNAME(&d, "n"), R_PIDFD(0)));
	RR_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* ID04: thread ids and pidfds                                              */
/* ------------------------------------------------------------------------ */

struct thr {
	const char *path;
	pid_t tid;
	int err;
};

static void *thread_open(void *arg) {
	struct thr *t = arg;
	int fd;

	t->tid = (pid_t)syscall(SYS_gettid);
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		t->err = errno;
	else
		close(fd);
	return NULL;
}

static pid_t open_in_thread(struct fst_ctx *ctx, const char *path) {
	struct thr t = { .path = path };
	pthread_t th;
	int r;

	r = pthread_create(&th, NULL, thread_open, &t);
	if (r)
		fst_fail(ctx, "pthread_create: %s", fst_errname(r));
	r = pthread_join(th, NULL);
	if (r)
		fst_fail(ctx, "pthread_join: %s", fst_errname(r));
	if (t.err)
		fst_fail(ctx, "open(%s) in a thread: %s", path, fst_errname(t.err));
	if (t.tid == ctx->pid)
		fst_fail(ctx, "the second thread has the process id as tid");
	return t.tid;
}

static void id04_report_tid(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int gt, gp;
	pid_t tid;

	fst_require(ctx, FSN_FEAT_REPORT_TID);
	fst_write_file(ctx, "f", "f");
	gt = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_TID);
	gp = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	fst_mark(ctx, gt, FAN_MARK_ADD, m, "f");
	fst_mark(ctx, gp, FAN_MARK_ADD, m, "f");

	tid = open_in_thread(ctx, "f");
	FST_EXPECT(ctx, gt, { .mask = m, .path = "f", .pid = tid });
	FST_EXPECT(ctx, gp, { .mask = m, .path = "f", .pid = 0 });
	/* the main thread's tid is the process id */
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gt, { .mask = m, .path = "f", .pid = 0 });
	FST_EXPECT(ctx, gp, { .mask = m, .path = "f", .pid = 0 });
	/* two threads, two events: different tids do not merge */
	tid = open_in_thread(ctx, "f");
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gt, { .mask = m, .path = "f", .pid = tid }, { .mask = m, .path = "f" });
	FST_EXPECT(ctx, gp, { .mask = m, .path = "f" });
}

/* The same in a FID group (REPORT_TID | REPORT_FID): the tid, and events
 * of two threads on one object do not merge either. */
static void id04_report_tid_fid(struct fst_ctx *ctx) {
	const uint64_t m = FAN_OPEN | FAN_CLOSE_NOWRITE;
	int gft;
	pid_t tid;

	fst_require(ctx, FSN_FEAT_REPORT_TID);
	fst_require(ctx, FSN_FEAT_REPORT_FID);
	fst_require(ctx, FSN_FEAT_MARK_FID);
	fst_write_file(ctx, "f", "f");
	gft = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_TID | FAN_REPORT_FID);
	fst_mark(ctx, gft, FAN_MARK_ADD, m, "f");

	tid = open_in_thread(ctx, "f");
	FST_EXPECT(ctx, gft, { .mask = m, .path = "f", .pid = tid });
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gft, { .mask = m, .path = "f", .pid = 0 });
	tid = open_in_thread(ctx, "f");
	fst_open_close(ctx, "f", O_RDONLY);
	FST_EXPECT(ctx, gft, { .mask = m, .path = "f", .pid = tid }, { .mask = m, .path = "f" });
}

/* A child that opens path and then waits until fd 'wait_fd' reaches EOF. */
struct opener {
	char path[PATH_MAX];
	int wait_fd;
};

static int child_open_wait(void *arg) {
	struct opener *o = arg;
	char b;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	while (read(o->wait_fd, &b, 1) < 0 && errno == EINTR)
		;
	return 0;
}

static int child_open(void *arg) {
	struct opener *o = arg;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void id04_pidfd_live_process(struct fst_ctx *ctx) {
	struct opener o = { .path = "f" };
	struct fst_child *c;
	int g, p[2];

	fst_require(ctx, FSN_FEAT_REPORT_PIDFD);
	fst_write_file(ctx, "f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_PIDFD);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f");
	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	o.wait_fd = p[0];
	c = fst_spawn(ctx, "open(f) and wait", child_open_wait, &o, p[0]);
	close(p[0]);
	fst_wait_readable(ctx, g, FST_WAIT_MS);
	/* the child is alive (it waits for p[1]): a pidfd that refers to it */
	RR_EXPECT(ctx, g, { .mask = FAN_OPEN, .fd = FD_VALID, .pid = c->pid, .r = { R_PIDFD(0) } });
	/* and the case's own event: a pidfd of the case process */
	fst_open_close(ctx, "f", O_RDONLY);
	RR_EXPECT(ctx, g, { .mask = FAN_OPEN, .fd = FD_VALID, .r = { R_PIDFD(0) } });
	close(p[1]);
	fst_child_expect(ctx, c, 0);
	RR_EXPECT_NONE(ctx, g);
}

/* A process that has exited and been reaped before the read: FAN_NOPIDFD
 * (and -ESRCH with FAN_REPORT_FD_ERROR); one that has exited but is not
 * reaped yet (a zombie) still has its pid: a valid pidfd
 * (copy_event_to_user(): pid_has_task(PIDTYPE_TGID)). */
static void pidfd_exited(struct fst_ctx *ctx, unsigned extra, int want) {
	struct opener o = { .path = "f" };
	struct fst_child *c;
	siginfo_t si;
	pid_t z;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_PIDFD);
	fst_write_file(ctx, "f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_PIDFD | extra);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f");

	c = fst_spawn(ctx, "open(f)", child_open, &o, -1);
	fst_child_expect(ctx, c, 0); /* exited and reaped */
	fst_open_close(ctx, "f", O_RDONLY);
	RR_EXPECT(ctx, g,
		  { .mask = FAN_OPEN, .fd = FD_VALID, .pid = c->pid, .r = { R_PIDFD(want) } },
		  { .mask = FAN_OPEN, .fd = FD_VALID, .r = { R_PIDFD(0) } });

	/* a zombie */
	fflush(NULL);
	z = fork();
	if (z < 0)
		fst_fail(ctx, "fork: %s", fst_errname(errno));
	if (z == 0)
		_exit(child_open(&o) ? 1 : 0);
	memset(&si, 0, sizeof(si));
	FST_SYS(ctx, waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT));
	if (si.si_code != CLD_EXITED || si.si_status != 0)
		fst_fail(ctx, "zombie child: code %d status %d", si.si_code, si.si_status);
	RR_EXPECT(ctx, g, { .mask = FAN_OPEN, .fd = FD_VALID, .pid = z, .r = { R_PIDFD(0) } });
	FST_SYS(ctx, waitpid(z, NULL, 0));
	RR_EXPECT_NONE(ctx, g);
}

static void id04_pidfd_exited_process(struct fst_ctx *ctx) {
	pidfd_exited(ctx, 0, FAN_NOPIDFD);
}

/* The file status flags of a pidfd, from /proc/self/fdinfo ("flags:",
 * octal); -1 if none. A thread pidfd (PIDFD_THREAD) has O_EXCL. */
static int pidfd_flags(int pidfd) {
	char p[64], line[256];
	int fl = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %o", (unsigned *)&fl) == 1)
			break;
	fclose(f);
	return fl;
}

/* The one queued event is FAN_OPEN by thread tid (0: the case process's
 * main thread) with a PIDFD record that is a thread pidfd of tid. */
static void expect_thread_pidfd(struct fst_ctx *ctx, int g, pid_t tid) {
	struct revs *ev = raw_read(ctx, g, false);

	if (ev->n == 1 && ev->e[0].nrec == 1 && ev->e[0].rec[0].type == T_PIDFD &&
	    ev->e[0].rec[0].pidfd >= 0) {
		int fl = pidfd_flags(ev->e[0].rec[0].pidfd);

		if (fl < 0 || !(fl & O_EXCL))
			fst_fail(ctx,
				 "the pidfd of thread %d is not a thread pidfd "
				 "(PIDFD_THREAD = O_EXCL; fdinfo flags 0%o)",
				 (int)(tid ? tid : ctx->pid), fl);
	}
	RR_MATCH(ctx, ev, { .mask = FAN_OPEN, .fd = FD_VALID, .pid = tid, .r = { R_PIDFD(0) } });
}

/* A thread that opens path, then waits until wait_fd reaches EOF. */
struct thr_wait {
	const char *path;
	int wait_fd;
	pid_t tid;
	int err;
};

static void *thread_open_wait(void *arg) {
	struct thr_wait *t = arg;
	char b;
	int fd;

	t->tid = (pid_t)syscall(SYS_gettid);
	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		t->err = errno;
	else
		close(fd);
	while (read(t->wait_fd, &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/*
 * FAN_REPORT_TID | FAN_REPORT_PIDFD, decided by trying it (LTP fanotify20,
 * fanotify21): before Linux 7.2 the combination is EINVAL (a pidfd was
 * always of a thread group leader), with or without FID reporting. Since
 * 17171128513b ("fanotify: report thread pidfds for FAN_REPORT_TID") it is
 * valid, and the PIDFD record is a thread pidfd (PIDFD_THREAD) of the
 * thread that caused the event, the one in the pid field: checked for the
 * main thread and for a second thread, alive while the event is read.
 */
static void id04_pidfd_tid_exclusive(struct fst_ctx *ctx) {
	struct thr_wait t = { .path = "f" };
	pthread_t th;
	int g, p[2], r;

	fst_require(ctx, FSN_FEAT_REPORT_PIDFD);
	fst_require(ctx, FSN_FEAT_REPORT_TID);
	/* each alone, and PIDFD with FID reporting, are fine */
	fst_close(ctx, fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_TID));
	fst_close(ctx, fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_PIDFD));
	fst_close(ctx, fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_PIDFD | FAN_REPORT_FID));
	fst_close(ctx, fst_fan_init(ctx, FAN_CLASS_CONTENT | FAN_REPORT_PIDFD));

	g = fanotify_init(FAN_REPORT_TID | FAN_REPORT_PIDFD | FAN_CLOEXEC, O_RDONLY);
	if (g < 0 && errno == EINVAL) {
		/* before Linux 7.2: TID and PIDFD exclude each other */
		fst_log(ctx, "FAN_REPORT_TID|FAN_REPORT_PIDFD: EINVAL (before Linux 7.2)");
		FST_SYS_ERR(ctx,
			    fanotify_init(FAN_REPORT_TID | FAN_REPORT_PIDFD | FAN_REPORT_DFID_NAME |
					      FAN_CLOEXEC,
					  O_RDONLY),
			    EINVAL);
		return;
	}
	if (g < 0)
		fst_fail(ctx,
			 "fanotify_init(FAN_REPORT_TID|FAN_REPORT_PIDFD): %s, expected EINVAL "
			 "(before Linux 7.2) or success",
			 fst_errname(errno));
	fst_close(ctx, g);
	fst_log(ctx, "FAN_REPORT_TID|FAN_REPORT_PIDFD: valid (Linux 7.2 or later)");
	fst_close(ctx, fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_TID | FAN_REPORT_PIDFD |
					     FAN_REPORT_DFID_NAME));
	fst_write_file(ctx, "f", "f");
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_TID | FAN_REPORT_PIDFD);
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, "f");
	fst_open_close(ctx, "f", O_RDONLY);
	expect_thread_pidfd(ctx, g, 0);

	FST_SYS(ctx, pipe2(p, O_CLOEXEC));
	t.wait_fd = p[0];
	r = pthread_create(&th, NULL, thread_open_wait, &t);
	if (r)
		fst_fail(ctx, "pthread_create: %s", fst_errname(r));
	fst_wait_readable(ctx, g, FST_WAIT_MS);
	/* the thread has opened f and waits for p[1]: it is alive */
	if (t.err)
		fst_fail(ctx, "open(f) in a thread: %s", fst_errname(t.err));
	if (t.tid == ctx->pid)
		fst_fail(ctx, "the second thread has the process id as tid");
	expect_thread_pidfd(ctx, g, t.tid);
	close(p[1]);
	r = pthread_join(th, NULL);
	if (r)
		fst_fail(ctx, "pthread_join: %s", fst_errname(r));
	close(p[0]);
	RR_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */
/* ID05: FAN_REPORT_FD_ERROR                                                */
/* ------------------------------------------------------------------------ */

/*
 * event_f_flags O_RDWR: the event fd cannot be opened for write through a
 * read-only mount (dentry_open() -> EROFS). With FAN_REPORT_FD_ERROR the
 * event is reported with fd = -EROFS; without it, read() fails with EROFS
 * and the event is lost (copy_event_to_user()). Through the writable
 * mount both groups get an O_RDWR event fd of the file.
 */
static void id05_fd_error_erofs(struct fst_ctx *ctx) {
	struct fst_events *ev;
	char rof[PATH_MAX], b[64];
	const char *ro;
	int ge, gl, fl;

	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	fst_write_file(ctx, "f", "f");
	ro = ro_bind(ctx, "ro");
	snprintf(rof, sizeof(rof), "%s/f", ro);
	ge = fst_fan_init2(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FD_ERROR, O_RDWR | O_CLOEXEC);
	gl = fst_fan_init2(ctx, FAN_CLASS_NOTIF, O_RDWR | O_CLOEXEC);
	fst_mark(ctx, ge, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "f");
	fst_mark(ctx, gl, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_NOWRITE, "f");

	fst_open_close(ctx, rof, O_RDONLY);
	FST_EXPECT(ctx, ge, { .mask = FAN_OPEN | FAN_CLOSE_NOWRITE, .fd_error = -EROFS });
	errno = 0;
	if (read(gl, b, sizeof(b)) != -1 || errno != EROFS)
		fst_fail(ctx, "legacy group: read() of the unopenable event: %s, expected EROFS",
			 errno ? fst_errname(errno) : "succeeded");
	FST_EXPECT_NONE(ctx, gl); /* the event is gone */

	/* control: through the writable mount, an O_RDWR fd of f */
	fst_open_close(ctx, "f", O_RDONLY);
	ev = fst_read_keep(ctx, ge);
	FST_MATCH(ctx, ge, ev, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "f"));
	fl = FST_SYS(ctx, fcntl(ev->e[0].ev.fd, F_GETFL));
	fst_close(ctx, ev->e[0].ev.fd);
	if ((fl & O_ACCMODE) != O_RDWR)
		fst_fail(ctx, "event fd: access mode %d, expected O_RDWR", fl & O_ACCMODE);
	FST_EXPECT(ctx, gl, FST_FAN(FAN_OPEN | FAN_CLOSE_NOWRITE, "f"));
	FST_EXPECT_NONE(ctx, ge);
}

/* A permission event whose fd cannot be opened is denied by the kernel
 * itself: the opener gets EPERM without any response, and the group reads
 * the event with fd = -EROFS (FD_ERROR) or a failing read() (legacy). */
static void id05_fd_error_perm_denied(struct fst_ctx *ctx) {
	struct fst_child *c;
	char rof[PATH_MAX], b[64];
	const char *ro;
	int ge, gl;

	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	fst_require(ctx, FSN_FEAT_PERM_OPEN);
	fst_write_file(ctx, "f", "f");
	ro = ro_bind(ctx, "ro");
	snprintf(rof, sizeof(rof), "%s/f", ro);

	ge = fst_fan_init2(ctx, FAN_CLASS_CONTENT | FAN_REPORT_FD_ERROR, O_RDWR | O_CLOEXEC);
	fst_mark(ctx, ge, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	c = fst_spawn_open(ctx, rof, O_RDONLY);
	fst_wait_readable(ctx, ge, FST_WAIT_MS);
	FST_EXPECT(ctx, ge, { .mask = FAN_OPEN_PERM, .fd_error = -EROFS, .pid = c->pid });
	fst_child_expect(ctx, c, EPERM);
	/* control: through the writable mount it blocks and ALLOW works */
	c = fst_spawn_open(ctx, "f", O_RDONLY);
	fst_answer(ctx, ge, c, FAN_OPEN_PERM, "f", FAN_ALLOW);
	fst_child_expect(ctx, c, 0);
	fst_close(ctx, ge);

	gl = fst_fan_init2(ctx, FAN_CLASS_CONTENT, O_RDWR | O_CLOEXEC);
	fst_mark(ctx, gl, FAN_MARK_ADD, FAN_OPEN_PERM, "f");
	c = fst_spawn_open(ctx, rof, O_RDONLY);
	fst_wait_readable(ctx, gl, FST_WAIT_MS);
	errno = 0;
	if (read(gl, b, sizeof(b)) != -1 || errno != EROFS)
		fst_fail(ctx,
			 "legacy group: read() of the unopenable permission event: %s, "
			 "expected EROFS",
			 errno ? fst_errname(errno) : "succeeded");
	fst_child_expect(ctx, c, EPERM);
	FST_EXPECT_NONE(ctx, gl);
}

/* In FID mode there is no event fd to open: FAN_NOFD, or -EBADF with
 * FD_ERROR (FAN_NOFD would read as -EPERM). */
static void id05_fd_error_fid_group_ebadf(struct fst_ctx *ctx) {
	struct fst_obj d;
	int ge, g;

	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	fst_require(ctx, FSN_FEAT_REPORT_DFID_NAME);
	FST_SYS(ctx, mkdir("d", 0755));
	fst_write_file(ctx, "d/f", "f");
	d = fst_obj(ctx, "d");
	ge = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FD_ERROR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME);
	fst_mark(ctx, ge, FAN_MARK_ADD, FAN_OPEN | FAN_CREATE | FAN_EVENT_ON_CHILD, "d");
	fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN | FAN_CREATE | FAN_EVENT_ON_CHILD, "d");
	fst_open_close(ctx, "d/f", O_RDONLY);
	RR_EXPECT(ctx, ge, { .mask = FAN_OPEN, .fd = -EBADF, .r = { O_DNAME(&d, "f") } });
	RR_EXPECT(ctx, g, XEV(FAN_OPEN, O_DNAME(&d, "f")));
	mknod_file(ctx, "d/n");
	RR_EXPECT(ctx, ge, { .mask = FAN_CREATE, .fd = -EBADF, .r = { O_DNAME(&d, "n") } });
	RR_EXPECT(ctx, g, XEV(FAN_CREATE, O_DNAME(&d, "n")));
}

static void id05_fd_error_pidfd_esrch(struct fst_ctx *ctx) {
	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	pidfd_exited(ctx, FAN_REPORT_FD_ERROR, -ESRCH);
}

/*
 * Out of file descriptors: with RLIMIT_NOFILE lowered so that one more fd
 * fits, a read() of three queued fd-mode events gives the first its fd,
 * and the other two fd = -EMFILE (FAN_REPORT_FD_ERROR): nothing is lost.
 */
static int one_fd_left(struct fst_ctx *ctx) {
	struct rlimit rl;
	int lowest = FST_SYS(ctx, dup(0));

	close(lowest);
	FST_SYS(ctx, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = (rlim_t)lowest + 1;
	FST_SYS(ctx, setrlimit(RLIMIT_NOFILE, &rl));
	return lowest;
}

static void restore_nofile(struct fst_ctx *ctx) {
	struct rlimit rl;

	FST_SYS(ctx, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = rl.rlim_max;
	FST_SYS(ctx, setrlimit(RLIMIT_NOFILE, &rl));
}

static void open_abc(struct fst_ctx *ctx, int g) {
	static const char *const names[] = { "a", "b", "c" };

	for (int i = 0; i < 3; i++) {
		fst_write_file(ctx, names[i], names[i]);
		fst_mark(ctx, g, FAN_MARK_ADD, FAN_OPEN, names[i]);
	}
	for (int i = 0; i < 3; i++)
		fst_open_close(ctx, names[i], O_RDONLY);
}

static void id05_fd_error_emfile(struct fst_ctx *ctx) {
	struct fst_events *ev;
	int g;

	fst_require(ctx, FSN_FEAT_REPORT_FD_ERROR);
	g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FD_ERROR);
	open_abc(ctx, g);
	one_fd_left(ctx);
	ev = fst_read_keep(ctx, g); /* takes no fd but the events' */
	restore_nofile(ctx);
	FST_MATCH(ctx, g, ev, FST_FAN(FAN_OPEN, "a"), { .mask = FAN_OPEN, .fd_error = -EMFILE },
		  { .mask = FAN_OPEN, .fd_error = -EMFILE });
	fst_close(ctx, ev->e[0].ev.fd);
	FST_EXPECT_NONE(ctx, g);
}

/* Without FD_ERROR the same read() gives the first event and drops the
 * second (its fd failed after an event was copied: read() returns what it
 * copied); the next read() fails with EMFILE and drops the third. Nothing
 * tells the reader two events were lost: a reader in fd mode must never
 * read more events than it has free fds (fsn-selftest's reads do not). */
static void id05_legacy_emfile_drops_events(struct fst_ctx *ctx) {
	unsigned char buf[4096];
	struct fst_events *ev;
	struct stat st, sa;
	ssize_t n, n2;
	int g, e1, e2;

	g = fst_fan_init(ctx, FAN_CLASS_NOTIF);
	open_abc(ctx, g);
	one_fd_left(ctx);
	n = read(g, buf, sizeof(buf));
	e1 = errno;
	n2 = read(g, buf + (n > 0 ? n : 0), sizeof(buf) - (size_t)(n > 0 ? n : 0));
	e2 = errno;
	restore_nofile(ctx);
	if (n < 0)
		fst_fail(ctx, "first read() with one fd left: %s", fst_errname(e1));
	ev = fst_decode(ctx, false, 0, buf, (size_t)n);
	FST_MATCH(ctx, -1, ev, { .mask = FAN_OPEN });
	FST_SYS(ctx, fstat(ev->e[0].ev.fd, &st));
	FST_SYS(ctx, stat("a", &sa));
	close(ev->e[0].ev.fd);
	if (st.st_ino != sa.st_ino || st.st_dev != sa.st_dev)
		fst_fail(ctx, "the first event's fd is not a");
	if (n2 != -1 || e2 != EMFILE)
		fst_fail(ctx,
			 "second read() (fd of the first event still open): %s, expected EMFILE",
			 n2 < 0 ? fst_errname(e2) : "succeeded");
	FST_EXPECT_NONE(ctx, g); /* b and c are gone */
}

/* ------------------------------------------------------------------------ */
/* ID06, ID07: FAN_FS_ERROR                                                 */
/* ------------------------------------------------------------------------ */

/* An ext4 of the case's own on a loop device (these cases abort or
 * corrupt it, never the filesystem under test), mounted on <scratch>/e4
 * with errors=continue: an error is reported and nothing else happens. */
struct e4 {
	const char *dev;
	const char *mnt;
};

static void e4_mount(struct fst_ctx *ctx, const struct e4 *e) {
	FST_SYS(ctx, mount(e->dev, e->mnt, "ext4", 0, "errors=continue"));
}

static struct e4 e4_make(struct fst_ctx *ctx) {
	struct e4 e;

	e.dev = fst_loop_image(ctx, 8);
	fst_exec_tool(ctx, "mkfs.ext4", "-q", "-F", "-E", "nodiscard", e.dev);
	e.mnt = fst_strdupf(ctx, "%s/e4", ctx->scratch);
	FST_SYS(ctx, mkdir(e.mnt, 0755));
	e4_mount(ctx, &e);
	return e;
}

static const char *e4_path(struct fst_ctx *ctx, const struct e4 *e, const char *rel) {
	return fst_strdupf(ctx, "%s/%s", e->mnt, rel);
}

/* Unmount, run the debugfs requests (one a line) on the device, mount
 * again: what the requests broke is read from the disk on the next lookup
 * (LTP fanotify22's "sif ... mode 0xff", "ln <1> ..."). */
static void e4_debugfs(struct fst_ctx *ctx, const struct e4 *e, const char *requests) {
	const char *cmd = fst_strdupf(ctx, "%s/debugfs.cmd", ctx->scratch);
	int fd;

	FST_SYS(ctx, umount2(e->mnt, 0));
	fd = FST_SYS(ctx, open(cmd, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
	if (write(fd, requests, strlen(requests)) != (ssize_t)strlen(requests))
		fst_fail(ctx, "write %s: %s", cmd, fst_errname(errno));
	fst_close(ctx, fd);
	fst_exec_tool(ctx, "debugfs", "-w", "-f", cmd, e->dev);
	e4_mount(ctx, e);
}

/* The FID record of an error without an inode: the filesystem's fsid, no
 * handle, type FILEID_INVALID (copy_fid_info_to_user()). */
static struct fst_obj null_fid(struct fst_ctx *ctx, const char *path) {
	struct fst_obj o;
	struct statfs sfs;

	FST_SYS(ctx, statfs(path, &sfs));
	memset(&o, 0, sizeof(o));
	o.has_fid = true;
	memcpy(o.fid.fsid, &sfs.f_fsid, sizeof(o.fid.fsid));
	o.fid.handle_bytes = 0;
	o.fid.handle_type = FILEID_INVALID;
	snprintf(o.label, sizeof(o.label), "null FID of %s", path);
	return o;
}

/* A FID group with FAN_FS_ERROR on the filesystem of path. */
static int fs_error_group(struct fst_ctx *ctx, const char *path) {
	int g = fst_fan_init(ctx, FAN_CLASS_NOTIF | FAN_REPORT_FID);

	fst_mark(ctx, g, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR, path);
	return g;
}

/* Aborting the filesystem (remount with "abort"): one FAN_FS_ERROR with
 * error ESHUTDOWN, count 1, and a FID without a handle (no inode failed),
 * by the process that remounted (LTP fanotify22). Ordinary operations
 * before it report nothing. */
static void id06_fs_error_abort(struct fst_ctx *ctx) {
	struct fst_obj nf;
	struct e4 e;
	int g;

	fst_require(ctx, FSN_FEAT_EVENT_FS_ERROR);
	e = e4_make(ctx);
	nf = null_fid(ctx, e.mnt);
	g = fs_error_group(ctx, e.mnt);
	fst_write_file(ctx, e4_path(ctx, &e, "f"), "f");
	FST_SYS(ctx, mkdir(e4_path(ctx, &e, "d"), 0755));
	RR_EXPECT_NONE(ctx, g);
	FST_SYS(ctx, mount(e.dev, e.mnt, "ext4", MS_REMOUNT | MS_RDONLY, "abort"));
	RR_EXPECT(ctx, g, XEV(FAN_FS_ERROR, O_FID(&nf), R_ERROR(ESHUTDOWN, 1)));
	RR_EXPECT_NONE(ctx, g);
}

/* A lookup that finds a corrupted inode (a directory whose mode debugfs
 * set to 0xff, no file type): the open fails with EUCLEAN (EFSCORRUPTED)
 * and one FAN_FS_ERROR carries EUCLEAN, count 1, and that inode's FID, the
 * handle name_to_handle_at() gave before the corruption (LTP fanotify22).
 * A healthy lookup next to it reports nothing. */
static void id06_fs_error_inode(struct fst_ctx *ctx) {
	const char *bad_path;
	struct fst_obj bad;
	struct e4 e;
	int g;

	fst_require(ctx, FSN_FEAT_EVENT_FS_ERROR);
	e = e4_make(ctx);
	bad_path = e4_path(ctx, &e, "d/bad");
	FST_SYS(ctx, mkdir(e4_path(ctx, &e, "d"), 0755));
	FST_SYS(ctx, mkdir(e4_path(ctx, &e, "d/ok"), 0755));
	FST_SYS(ctx, mkdir(bad_path, 0755));
	bad = fst_obj(ctx, bad_path);
	e4_debugfs(ctx, &e, "sif d/bad mode 0xff\n");
	g = fs_error_group(ctx, e.mnt);

	fst_open_close(ctx, e4_path(ctx, &e, "d/ok"), O_RDONLY | O_DIRECTORY);
	RR_EXPECT_NONE(ctx, g);
	FST_SYS_ERR(ctx, open(bad_path, O_RDONLY | O_CLOEXEC), EUCLEAN);
	RR_EXPECT(ctx, g, XEV(FAN_FS_ERROR, O_FID(&bad), R_ERROR(EUCLEAN, 1)));
	RR_EXPECT_NONE(ctx, g);
}

/*
 * Errors of one filesystem merge into the one FAN_FS_ERROR queued: its
 * error_count adds up, and the first error and its FID stay. A lookup of
 * an entry naming inode 1 (not a valid inode number: the error is the
 * directory's), then one of a corrupted inode: one event, EUCLEAN, count 2,
 * the directory's FID. Once read, the next error queues a new event: the
 * corrupted inode again, then an abort (ESHUTDOWN, no inode) merged into
 * it, count 2, still EUCLEAN and that inode (LTP fanotify22, "multiple
 * error submission").
 */
static void id07_fs_error_merge(struct fst_ctx *ctx) {
	const char *bad_path, *lnk_path;
	struct fst_obj d, bad;
	struct e4 e;
	int g;

	fst_require(ctx, FSN_FEAT_EVENT_FS_ERROR);
	e = e4_make(ctx);
	bad_path = e4_path(ctx, &e, "d/bad");
	lnk_path = e4_path(ctx, &e, "d/lnk");
	FST_SYS(ctx, mkdir(e4_path(ctx, &e, "d"), 0755));
	FST_SYS(ctx, mkdir(bad_path, 0755));
	d = fst_obj(ctx, e4_path(ctx, &e, "d"));
	bad = fst_obj(ctx, bad_path);
	e4_debugfs(ctx, &e, "sif d/bad mode 0xff\nln <1> d/lnk\n");
	g = fs_error_group(ctx, e.mnt);

	FST_SYS_ERR(ctx, open(lnk_path, O_RDONLY | O_CLOEXEC), EUCLEAN);
	FST_SYS_ERR(ctx, open(bad_path, O_RDONLY | O_CLOEXEC), EUCLEAN);
	RR_EXPECT(ctx, g, XEV(FAN_FS_ERROR, O_FID(&d), R_ERROR(EUCLEAN, 2)));
	FST_SYS_ERR(ctx, open(bad_path, O_RDONLY | O_CLOEXEC), EUCLEAN);
	FST_SYS(ctx, mount(e.dev, e.mnt, "ext4", MS_REMOUNT | MS_RDONLY, "abort"));
	RR_EXPECT(ctx, g, XEV(FAN_FS_ERROR, O_FID(&bad), R_ERROR(EUCLEAN, 2)));
	RR_EXPECT_NONE(ctx, g);
}

/* ------------------------------------------------------------------------ */

const struct fst_case fst_cases_id[] = {
	FST_CASE_GIT(id01_fid_inode_marks, "ID01", FST_ALL_FS, "a8b13aa20afb c285a2f01d69",
		     "inode marks: FID = statfs fsid + name_to_handle_at handle, opens the inode"),
	FST_CASE_GIT(id01_fid_mount_mark, "ID01", FST_ALL_FS, "a8b13aa20afb c285a2f01d69",
		     "mount mark: FID of files, subdirectory files and directories"),
	FST_CASE_GIT(id01_fid_sb_mark, "ID01", FST_ALL_FS, "a8b13aa20afb c285a2f01d69",
		     "sb mark: FIDs, also through a bind mount (same FID as the original path)"),
	FST_CASE_GIT(
	    id01_fid_follows_inode, "ID01", FST_ALL_FS, "a8b13aa20afb c285a2f01d69",
	    "FID names the inode: distinct for siblings, same after rename and via hard link"),
	FST_CASE(id01_fid_two_filesystems, "ID01", FST_ALL_FS,
		 "one FID group, inode marks on two filesystems: each event its own fsid + handle"),
	FST_CASE_GIT(id01_fid_inode_after_nonfid, "ID01", FST_ALL_FS, "c285a2f01d69",
		     "FID inode marks after a non-FID group's inode mark: right fsid + handle"),
	FST_CASE_GIT(id01_fid_mount_after_nonfid, "ID01", FST_ALL_FS, "c285a2f01d69",
		     "FID mount mark after a non-FID group's mount mark: right fsid + handle"),
	FST_CASE_GIT(id01_fid_sb_after_nonfid, "ID01", FST_ALL_FS, "c285a2f01d69",
		     "FID sb mark after a non-FID group's sb mark: right fsid + handle"),
	FST_CASE_GIT(
	    id01_btrfs_subvolume_fsid, "ID01,OV03", FST_BTRFS, "30ad1938326b",
	    "btrfs subvolume: inode mark reports its fsid; then a top-volume mark is EXDEV"),
	FST_CASE(id01_btrfs_subvolume_sb_mark, "ID01,OV03", FST_BTRFS,
		 "btrfs: sb mark reports the top fsid for subvolume files; subvolume marks EXDEV"),
	FST_CASE(id02_dirent_parent_self_object, "ID02", FST_ALL_FS,
		 "CREATE/DELETE/MOVED_* carry the parent's FID, DELETE_SELF the object's own"),
	FST_CASE_GIT(
	    id02_dirent_parent_dfid_name, "ID02,ID03", FST_ALL_FS, "929943b38daf",
	    "DFID_NAME: dirent events of a directory name its parent; its own events \".\""),
	FST_CASE_GIT(id03_records_fid, "ID03", FST_ALL_FS, "a8b13aa20afb",
		     "REPORT_FID: exact records of 13 operations through directory marks"),
	FST_CASE_GIT(id03_records_dir_fid, "ID03", FST_ALL_FS, "83b7a59896dd",
		     "REPORT_DIR_FID: one record, the directory (type FID for child events)"),
	FST_CASE_GIT(
	    id03_dir_fid_type_merge, "ID03", FST_ALL_FS, "83b7a59896dd",
	    "REPORT_DIR_FID: child event merged with a dirent event turns its record to DFID"),
	FST_CASE_GIT(id03_records_dir_fid_fid, "ID03", FST_ALL_FS, "691d976352c7",
		     "REPORT_DIR_FID|FID: DFID + child FID on child events, DFID on dirent events"),
	FST_CASE_GIT(id03_records_dfid_name, "ID03", FST_ALL_FS, "929943b38daf",
		     "REPORT_DFID_NAME: DFID_NAME record with the entry name, \".\" for the dir"),
	FST_CASE_GIT(id03_records_dfid_name_fid, "ID03", FST_ALL_FS, "7e8283af6ede",
		     "REPORT_DFID_NAME|FID: DFID_NAME then the child's FID on child events"),
	FST_CASE_GIT(id03_records_dfid_name_target, "ID03", FST_ALL_FS, "d61fd650e9d2",
		     "REPORT_DFID_NAME_TARGET: dirent events also carry the entry's FID"),
	FST_CASE_GIT(id03_sb_records_fid, "ID03,ID02", FST_ALL_FS, "a8b13aa20afb",
		     "sb mark, REPORT_FID: *_SELF and link-count ATTRIB of files and dirs"),
	FST_CASE_GIT(id03_sb_records_dir_fid, "ID03", FST_ALL_FS, "83b7a59896dd",
		     "sb mark, REPORT_DIR_FID: file *_SELF dropped (no dir), dir *_SELF kept"),
	FST_CASE_GIT(id03_sb_records_dir_fid_fid, "ID03,ID02", FST_ALL_FS, "691d976352c7",
		     "sb mark, REPORT_DIR_FID|FID: file *_SELF as one FID record"),
	FST_CASE_GIT(id03_sb_records_dfid_name, "ID03", FST_ALL_FS, "929943b38daf 8cc3b1ccd930",
		     "sb mark, REPORT_DFID_NAME: FAN_RENAME old+new records; file *_SELF dropped"),
	FST_CASE_GIT(id03_sb_records_dfid_name_fid, "ID03", FST_ALL_FS, "7e8283af6ede",
		     "sb mark, REPORT_DFID_NAME|FID: RENAME without child FID; file *_SELF as FID"),
	FST_CASE_GIT(
	    id03_sb_records_dfid_name_target, "ID03", FST_ALL_FS, "d61fd650e9d2",
	    "sb mark, DFID_NAME_TARGET: RENAME old+new+FID; dirent events with target FID"),
	FST_CASE_GIT(id03_parent_info_inode_mark, "ID03", FST_ALL_FS, "7372e79c9eb9 5128063739d2",
		     "a mark on the file gets parent+name (of the path used, also a link)"),
	FST_CASE_GIT(id03_parent_info_mount_mark, "ID03", FST_ALL_FS, "7372e79c9eb9 5128063739d2",
		     "a mount mark gets parent+name (of the path used, also a link); dirs \".\""),
	FST_CASE_GIT(id03_parent_info_sb_mark, "ID03", FST_ALL_FS, "7372e79c9eb9 5128063739d2",
		     "an sb mark gets parent+name (of the path used, also a link); dirs \".\""),
	FST_CASE_GIT(id03_rename_records_per_dir, "ID03", FST_ALL_FS, "8cc3b1ccd930",
		     "FAN_RENAME on inode marks: old/new records only for the watched directories"),
	FST_CASE_GIT(id03_pidfd_record_last, "ID03,ID04", FST_ALL_FS, "af579beb666a",
		     "DFID_NAME|FID|PIDFD: records in order DFID_NAME, FID, PIDFD"),
	FST_CASE_GIT(id04_report_tid, "ID04", FST_ONCE, "d0a6a87e40da",
		     "REPORT_TID: a second thread's tid in pid (fd-mode group); else the tgid"),
	FST_CASE_GIT(id04_report_tid_fid, "ID04", FST_ONCE, "d0a6a87e40da",
		     "REPORT_TID|REPORT_FID: the thread id too; two threads' events do not merge"),
	FST_CASE_GIT(id04_pidfd_live_process, "ID04", FST_ONCE, "af579beb666a",
		     "REPORT_PIDFD: the pidfd of a live child refers to it (fdinfo Pid:)"),
	FST_CASE_GIT(id04_pidfd_exited_process, "ID04", FST_ONCE, "af579beb666a",
		     "REPORT_PIDFD: reaped child -> FAN_NOPIDFD; zombie child -> a valid pidfd"),
	FST_CASE_GIT(
	    id04_pidfd_tid_exclusive, "ID04,OV03", FST_ONCE, "af579beb666a 17171128513b",
	    "REPORT_TID|REPORT_PIDFD: EINVAL, since 7.2 thread pidfds; each alone, PIDFD|FID"),
	FST_CASE_GIT(
	    id05_fd_error_erofs, "ID05", FST_ALL_FS, "522249f05c55",
	    "O_RDWR event fd via a read-only mount: fd = -EROFS; legacy read() fails EROFS"),
	FST_CASE_GIT(id05_fd_error_perm_denied, "ID05", FST_ALL_FS, "522249f05c55",
		     "unopenable permission event: fd -EROFS and the opener is denied (EPERM)"),
	FST_CASE_GIT(id05_fd_error_fid_group_ebadf, "ID05", FST_ONCE, "522249f05c55",
		     "FD_ERROR in a FID group: fd is -EBADF instead of FAN_NOFD"),
	FST_CASE_GIT(id05_fd_error_pidfd_esrch, "ID05,ID04", FST_ONCE, "522249f05c55 af579beb666a",
		     "FD_ERROR|PIDFD: a reaped child's pidfd is -ESRCH instead of FAN_NOPIDFD"),
	FST_CASE_GIT(id05_fd_error_emfile, "ID05", FST_ONCE, "522249f05c55",
		     "one fd left, 3 events: an fd, then fd = -EMFILE twice; nothing lost"),
	FST_CASE(id05_legacy_emfile_drops_events, "ID05,OV01", FST_ONCE,
		 "no FD_ERROR, one fd left: read gives 1 event, then EMFILE; 2 events lost"),
	FST_CASE_GIT(id06_fs_error_abort, "ID06", FST_EXT4, "124e7c61deb2 76486b104168",
		     "private ext4 aborted: one FS_ERROR, ESHUTDOWN, count 1, FID without handle"),
	FST_CASE(id06_fs_error_inode, "ID06", FST_EXT4,
		 "lookup of a corrupted inode (debugfs): one FS_ERROR, EUCLEAN, its FID"),
	FST_CASE_GIT(id07_fs_error_merge, "ID07", FST_EXT4, "76486b104168",
		     "FS_ERRORs merge while queued: error_count adds up, first error and FID kept"),
	{ 0 },
};
