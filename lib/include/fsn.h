/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsn.h — the one public header of libfsn.
 *
 * libfsn places fanotify marks and inotify watches, decodes what the kernel
 * queues, resolves file handles to paths and answers permission events. It
 * owns no event loop: a struct fsn_ctx hands out one pollable fd
 * (fsn_ctx_get_fd()) and fsn_ctx_dispatch() drains it.
 *
 * Conventions:
 *   - int returns: 0 (or a documented non-negative value) on success,
 *     a negative errno on failure. Out-parameters are written only on success.
 *   - Every destructor accepts NULL.
 *   - The library never logs on its own and never exits; diagnostics go to
 *     the callback set with fsn_ctx_set_log().
 *   - The library has no global mutable state; one fsn_ctx per thread.
 *   - Mask values are the kernel's own FAN_* and IN_* bits, so callers may
 *     use <sys/fanotify.h> and <sys/inotify.h> constants directly.
 *
 * This header is C99 and needs only the standard C headers and
 * <sys/types.h>.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *fsn_version(void);

/* ------------------------------------------------------------------------ */
/* Masks: names <-> bits                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Which name table a mask belongs to. Names are lower case, without the
 * FAN_ / IN_ / FAN_MARK_ prefix ("open", "close_write", "event_on_child").
 * Aliases the kernel defines ("close" = close_write|close_nowrite, "move" =
 * moved_from|moved_to, "report_dfid_name" = report_dir_fid|report_name, ...)
 * are accepted when parsing; formatting always prints single bits, except
 * for the value fields described below fsn_mask_bit_name().
 */
enum fsn_mask_kind {
	FSN_MASK_FANOTIFY_EVENT = 0, /* FAN_ACCESS ... FAN_ONDIR, FAN_EVENT_ON_CHILD */
	FSN_MASK_INOTIFY_EVENT,      /* IN_ACCESS ... IN_ONESHOT, incl. watch flags */
	FSN_MASK_FANOTIFY_MARK,      /* FAN_MARK_* flags for fanotify_mark() */
	FSN_MASK_FANOTIFY_INIT,      /* FAN_CLASS_*, FAN_REPORT_*, FAN_UNLIMITED_* ... */
	_FSN_MASK_KIND_MAX,
};

/*
 * Parse a comma separated list of names ("open,close_write,modify") into a
 * mask. Whitespace around names is ignored; an empty string is mask 0.
 * Returns 0, or -EINVAL for an unknown or empty name; then, if err is not
 * NULL, a message naming the offending word is written to err (at most
 * errlen bytes, NUL terminated), e.g. "unknown fanotify event 'opne'".
 */
int fsn_mask_parse(enum fsn_mask_kind kind, const char *text, uint64_t *ret_mask, char *err,
		   size_t errlen);

/*
 * Format a mask as comma separated names, lowest bit first. Bits without a
 * name are printed as one hex number ("open,0x80000000000"). Returns the
 * length the full string needs (excluding the NUL), like snprintf(); the
 * output is truncated to len-1 bytes and always NUL terminated when len > 0.
 * Mask 0 formats as "" (empty string). -EINVAL for an unknown kind.
 */
int fsn_mask_format(enum fsn_mask_kind kind, uint64_t mask, char *buf, size_t len);

/* The name of one single bit, or NULL if the bit has no name. */
const char *fsn_mask_bit_name(enum fsn_mask_kind kind, uint64_t bit);

/* Value fields: for FSN_MASK_FANOTIFY_INIT the class is the value of
 * (flags & 0xc), formatted as one name, "class_content" or
 * "class_pre_content"; for FSN_MASK_FANOTIFY_MARK the mark type is the value
 * of (flags & 0x110): "mount", "filesystem" or "mntns" (0x110, one name).
 * The zero values "class_notif" (FAN_CLASS_NOTIF) and "inode"
 * (FAN_MARK_INODE) are accepted when parsing but never printed, so mask 0
 * formats as "". Naming two different values of one field is -EINVAL. */

/* ------------------------------------------------------------------------ */
/* Feature probe                                                            */
/* ------------------------------------------------------------------------ */

/* How a kernel answered a feature that was tried. */
enum fsn_support {
	FSN_SUPPORTED = 0,      /* the call succeeded */
	FSN_UNSUPPORTED_KERNEL, /* EINVAL (ENOSYS): this kernel lacks the feature */
	FSN_UNSUPPORTED_FS,     /* ENODEV, EOPNOTSUPP, EXDEV: this filesystem cannot */
	FSN_NOT_PERMITTED,      /* EPERM, EACCES: needs privileges the caller lacks */
	FSN_PROBE_FAILED,       /* anything else (ENOENT, ENOMEM, EMFILE ...) */
	FSN_NOT_PROBED,         /* not tried, e.g. because a prerequisite failed */
	_FSN_SUPPORT_MAX,
};

/* Classify a positive errno from a probe call (0 means supported). */
enum fsn_support fsn_support_from_errno(int err);
/* "supported", "not supported by this kernel", "not supported by this filesystem", ...
 * NULL for a value out of range. */
const char *fsn_support_name(enum fsn_support s);

enum fsn_feature {
	FSN_FEAT_FANOTIFY = 0,        /* fanotify_init(FAN_CLASS_NOTIF) */
	FSN_FEAT_CLASS_CONTENT,       /* fanotify_init(FAN_CLASS_CONTENT) */
	FSN_FEAT_CLASS_PRE_CONTENT,   /* fanotify_init(FAN_CLASS_PRE_CONTENT) */
	FSN_FEAT_REPORT_TID,          /* FAN_REPORT_TID */
	FSN_FEAT_REPORT_FID,          /* FAN_REPORT_FID */
	FSN_FEAT_REPORT_DIR_FID,      /* FAN_REPORT_DIR_FID */
	FSN_FEAT_REPORT_DFID_NAME,    /* FAN_REPORT_DFID_NAME */
	FSN_FEAT_REPORT_TARGET_FID,   /* FAN_REPORT_DFID_NAME_TARGET */
	FSN_FEAT_REPORT_PIDFD,        /* FAN_REPORT_PIDFD */
	FSN_FEAT_REPORT_FD_ERROR,     /* FAN_REPORT_FD_ERROR */
	FSN_FEAT_UNLIMITED_QUEUE,     /* FAN_UNLIMITED_QUEUE (needs CAP_SYS_ADMIN) */
	FSN_FEAT_MARK_INODE,          /* inode mark on the path */
	FSN_FEAT_MARK_MOUNT,          /* mount mark on the path's mount */
	FSN_FEAT_MARK_FILESYSTEM,     /* filesystem (sb) mark on the path's fs */
	FSN_FEAT_MARK_FID,            /* any mark from a FAN_REPORT_FID group on this fs */
	FSN_FEAT_MARK_IGNORE,         /* FAN_MARK_IGNORE (new-style ignore mask) */
	FSN_FEAT_MARK_EVICTABLE,      /* FAN_MARK_EVICTABLE */
	FSN_FEAT_EVENT_OPEN_EXEC,     /* FAN_OPEN_EXEC */
	FSN_FEAT_EVENT_DIRENT,        /* FAN_CREATE|DELETE|MOVE on a FID group */
	FSN_FEAT_EVENT_RENAME,        /* FAN_RENAME on a DFID_NAME group */
	FSN_FEAT_EVENT_FS_ERROR,      /* FAN_FS_ERROR on a filesystem mark */
	FSN_FEAT_PERM_OPEN,           /* FAN_OPEN_PERM */
	FSN_FEAT_PERM_ACCESS,         /* FAN_ACCESS_PERM */
	FSN_FEAT_PERM_OPEN_EXEC,      /* FAN_OPEN_EXEC_PERM */
	FSN_FEAT_PRE_ACCESS,          /* FAN_PRE_ACCESS (pre-content) on this fs */
	FSN_FEAT_DENY_ERRNO,          /* FAN_DENY_ERRNO() responses */
	FSN_FEAT_INOTIFY,             /* inotify_add_watch() on the path */
	FSN_FEAT_INOTIFY_MASK_CREATE, /* IN_MASK_CREATE */
	_FSN_FEAT_MAX,
};

/* support is usually fsn_support_from_errno(error), but not always: a mark
 * refused with EINVAL that the kernel accepts as a flag combination (checked
 * with FAN_MARK_FLUSH) is FSN_UNSUPPORTED_FS, and error can be 0 for a result
 * other than supported (a kernel that silently ignores IN_MASK_CREATE, or a
 * feature not probed). */
struct fsn_feature_result {
	enum fsn_support support;
	int error; /* the positive errno the kernel returned, 0 if none */
};

struct fsn_probe {
	struct fsn_feature_result feat[_FSN_FEAT_MAX];
};

/* Short identifier of a feature, e.g. "report_dfid_name", "mark_filesystem".
 * These two return NULL for a value out of range. */
const char *fsn_feature_name(enum fsn_feature f);
/* One line explaining the feature, e.g. "filesystem marks (FAN_MARK_FILESYSTEM)". */
const char *fsn_feature_description(enum fsn_feature f);

/*
 * Try every feature on path (a file or directory that exists) by calling the
 * kernel with exactly those flags; never compares kernel versions. Groups and
 * marks created for the probe are removed before returning; no event is
 * generated (the path is looked up with stat(), never opened). Returns 0
 * and fills *ret (each feature classified), or a negative errno if path
 * cannot be resolved.
 */
int fsn_probe_path(const char *path, struct fsn_probe *ret);

/*
 * A cache of probes for many paths: a plan of 10 000 paths on a handful of
 * filesystems probes each filesystem once. Results are kept per
 * filesystem (st_dev) and kind of object (a regular file or directory, or
 * anything else: pre-content events need the former); the fanotify_init()
 * results, which depend only on the kernel and the caller's privileges,
 * once for the prober's life. Not thread-safe: one user at a time.
 */
struct fsn_prober;
struct stat;

int fsn_prober_new(struct fsn_prober **ret);
struct fsn_prober *fsn_prober_free(struct fsn_prober *p);

/* The probe of path's filesystem, as fsn_probe_path() would give it: from
 * the cache when a path of the same filesystem and kind was probed (then
 * no system call at all), else probed now and remembered. st: path's
 * stat() if the caller has it (NULL: stat() here). Returns 0 and fills
 * *ret, or a negative errno. */
int fsn_prober_probe(struct fsn_prober *p, const char *path, const struct stat *st,
		     struct fsn_probe *ret);

/* Forget every result whose filesystem may have gone: the path it was
 * probed on is gone, or shows another device or mount now (an unmounted
 * filesystem's st_dev can come back for another one). One statx() per
 * filesystem remembered; returns how many were forgotten. Call it before
 * a new plan (e.g. on reload). */
size_t fsn_prober_revalidate(struct fsn_prober *p);

struct fsn_prober_stats {
	uint64_t probes;  /* filesystems probed (each as fsn_probe_path()) */
	uint64_t hits;    /* answers from the cache */
	uint64_t entries; /* results remembered now */
};

void fsn_prober_get_stats(const struct fsn_prober *p, struct fsn_prober_stats *ret);

/*
 * Describe a probe result in words, one feature per line:
 *   "mark_filesystem: supported\n"
 *   "pre_access: not supported by this filesystem (EOPNOTSUPP)\n"
 * Return value and truncation as fsn_mask_format().
 */
int fsn_probe_describe(const struct fsn_probe *p, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Decoded events                                                           */
/* ------------------------------------------------------------------------ */

#define FSN_HANDLE_MAX 128 /* MAX_HANDLE_SZ */

/* A file identifier: fsid plus an opaque file handle, copied out of the
 * kernel record into aligned storage. The layout after `fsid` matches
 * struct file_handle, so &fid->handle_bytes can be passed to
 * open_by_handle_at(). The bytes of f_handle beyond handle_bytes are
 * unspecified (the decoders do not clear them). */
struct fsn_fid {
	int32_t fsid[2];
	uint32_t handle_bytes;
	int32_t handle_type;
	unsigned char f_handle[FSN_HANDLE_MAX];
};

/* Same object: same fsid and handle (type, length and the handle_bytes bytes
 * of f_handle; the rest of f_handle is ignored). false for a handle_bytes
 * above FSN_HANDLE_MAX. */
bool fsn_fid_equal(const struct fsn_fid *a, const struct fsn_fid *b);

enum fsn_source {
	FSN_SOURCE_FANOTIFY = 1,
	FSN_SOURCE_INOTIFY = 2,
};

/* Which info records a decoded fanotify event carried (event.has). */
enum {
	FSN_HAS_FID = 1u << 0,           /* event.fid (FAN_EVENT_INFO_TYPE_FID) */
	FSN_HAS_DFID = 1u << 1,          /* event.dfid (DFID or DFID_NAME) */
	FSN_HAS_NAME = 1u << 2,          /* event.name (DFID_NAME) */
	FSN_HAS_OLD = 1u << 3,           /* event.old_dfid + old_name (OLD_DFID_NAME) */
	FSN_HAS_NEW = 1u << 4,           /* event.new_dfid + new_name (NEW_DFID_NAME) */
	FSN_HAS_PIDFD = 1u << 5,         /* event.pidfd */
	FSN_HAS_ERROR = 1u << 6,         /* event.error + error_count */
	FSN_HAS_RANGE = 1u << 7,         /* event.range_offset + range_count */
	FSN_HAS_MNT = 1u << 8,           /* event.mnt_id */
	FSN_HAS_UNKNOWN_INFO = 1u << 15, /* a record of an unknown type was skipped */
};

struct fsn_group; /* opaque: one fanotify group of a context */
struct fsn_mark;  /* opaque: one mark or watch placed through a context */

/*
 * One event. Decoders fill it from a kernel buffer; fsn_ctx_dispatch()
 * additionally sets `group` (fanotify) or `mark` (inotify).
 * name / old_name / new_name point into the buffer that was decoded and are
 * valid only as long as it is (in a dispatch callback: until it returns).
 * They are NUL terminated and were checked to lie inside their record, but
 * are otherwise the raw bytes of a filename: escape them before printing.
 */
struct fsn_event {
	enum fsn_source source;
	uint64_t mask; /* FAN_* or IN_* bits as the kernel reported them */

	/* fanotify */
	int fd;       /* event fd, FAN_NOFD (-1), or -errno with FAN_REPORT_FD_ERROR */
	pid_t pid;    /* pid (tid with FAN_REPORT_TID) */
	uint32_t has; /* FSN_HAS_* */
	struct fsn_fid fid;
	struct fsn_fid dfid;
	const char *name;
	struct fsn_fid old_dfid;
	const char *old_name;
	struct fsn_fid new_dfid;
	const char *new_name;
	int pidfd; /* >= 0, FAN_NOPIDFD (-1) or FAN_EPIDFD (-2) */
	int32_t error;
	uint32_t error_count;
	uint64_t range_offset;
	uint64_t range_count;
	uint64_t mnt_id;

	/* inotify */
	int wd;
	uint32_t cookie;
	/* (name above is used for the inotify name too; NULL when len == 0) */

	/* set by fsn_ctx_dispatch() only */
	struct fsn_group *group;
	struct fsn_mark *mark;
};

/*
 * Decode the next fanotify event from buf[*offset .. len). On success
 * returns 1, fills *ev and advances *offset past the event; returns 0 when
 * *offset == len (nothing left). Returns -EBADMSG for a malformed event
 * (truncated metadata, event_len below metadata_len or beyond the buffer,
 * unsupported metadata version, an info record that is shorter than its
 * header, overruns the event, or is malformed for its type, a duplicate
 * record, a name without NUL inside its record); *offset is then left
 * unchanged. Unknown info record types are skipped (FSN_HAS_UNKNOWN_INFO;
 * they may repeat and need no padding). Metadata longer than today's struct
 * (metadata_len > 24) is accepted: info records start at metadata_len. A
 * DFID and a DFID_NAME record in one event count as a duplicate (both fill
 * ev->dfid). -EINVAL for NULL offset or ev, NULL buf with len > 0, or
 * *offset > len. On any failure *ev and *offset are left untouched.
 * buf needs no alignment. Pure: no system calls, no global state.
 */
int fsn_decode_fanotify(const void *buf, size_t len, size_t *offset, struct fsn_event *ev);

/*
 * Same for a buffer read from an inotify fd. -EBADMSG when the header or
 * the name (len bytes, must contain a NUL when len > 0) overruns the buffer.
 */
int fsn_decode_inotify(const void *buf, size_t len, size_t *offset, struct fsn_event *ev);

/* ------------------------------------------------------------------------ */
/* Paths                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Path of an open fd (an event fd) via /proc/self/fd. If the file has no
 * name left (unlinked, st_nlink 0), the kernel's " (deleted)" suffix is
 * removed and *ret_deleted is set (when not NULL); a name that really ends
 * in " (deleted)" is kept. No path is ever looked up (only fstat() and
 * the readlink of /proc/self/fd/N), so a caller answering permission
 * events cannot be stalled by a path a user steers; hence a file opened by
 * a name unlinked since, that still has another hard link, keeps the
 * suffix and is not marked deleted. Returns the path length,
 * -ENAMETOOLONG if it does not fit into len, or another negative errno.
 */
int fsn_fd_path(int fd, char *buf, size_t len, bool *ret_deleted);

struct fsn_ctx;
/* fsn_fd_path() through an fd of /proc/self/fd the context keeps (opened on
 * first use, closed with the context): one path lookup less per call, for
 * callers that resolve every event (about a third of the cost). */
int fsn_ctx_fd_path(struct fsn_ctx *ctx, int fd, char *buf, size_t len, bool *ret_deleted);

/* ------------------------------------------------------------------------ */
/* Context: groups, marks, dispatch                                         */
/* ------------------------------------------------------------------------ */

struct fsn_ctx;

/* Log priorities are syslog's (LOG_ERR = 3 ... LOG_DEBUG = 7). */
typedef void (*fsn_log_fn)(void *userdata, int priority, const char *msg);

/* Create a context: an epoll fd, no groups yet. */
int fsn_ctx_new(struct fsn_ctx **ret);
/* Close every group and watch (blocked processes are released by the
 * kernel as allowed), free everything. Permission events that were read
 * but not handed out are answered FAN_ALLOW. Taken permission events
 * (struct fsn_perm) stay valid: each keeps its group's fd open until it is
 * answered or freed. Accepts NULL; returns NULL. Not from a callback. */
struct fsn_ctx *fsn_ctx_free(struct fsn_ctx *ctx);

void fsn_ctx_set_log(struct fsn_ctx *ctx, fsn_log_fn fn, void *userdata);

/* The one fd to poll for readability; it stays the same for the context's
 * lifetime, whatever groups are created or closed. */
int fsn_ctx_get_fd(const struct fsn_ctx *ctx);

enum fsn_mark_type {
	FSN_MARK_INODE = 0,  /* fanotify inode mark (file or directory) */
	FSN_MARK_MOUNT,      /* fanotify mount mark (the path's mount) */
	FSN_MARK_FILESYSTEM, /* fanotify filesystem mark (the path's superblock) */
	FSN_MARK_INOTIFY,    /* inotify watch */
	_FSN_MARK_TYPE_MAX,
};

enum fsn_class {
	FSN_CLASS_NOTIF = 0,   /* notification events only */
	FSN_CLASS_CONTENT,     /* permission events */
	FSN_CLASS_PRE_CONTENT, /* permission and pre-content events */
	_FSN_CLASS_MAX,
};

/* fsn_mark_spec.flags */
enum {
	FSN_MARK_F_DONT_FOLLOW = 1u << 0,    /* FAN_MARK_DONT_FOLLOW / IN_DONT_FOLLOW */
	FSN_MARK_F_ONLYDIR = 1u << 1,        /* FAN_MARK_ONLYDIR / IN_ONLYDIR */
	FSN_MARK_F_EVICTABLE = 1u << 2,      /* FAN_MARK_EVICTABLE (inode marks only) */
	FSN_MARK_F_LEGACY_IGNORE = 1u << 3,  /* force FAN_MARK_IGNORED_MASK even
					      * where FAN_MARK_IGNORE works */
	FSN_MARK_F_IGNORE_NO_SURV = 1u << 4, /* legacy ignore mask that is cleared
					      * by MODIFY (no SURV_MODIFY) */
};

/*
 * What to mark. A fanotify mark lives in a group chosen by (class, report,
 * group_tag): marks with equal values share one group, others get their own.
 * Use different group_tag values to keep ignore masks of unrelated users
 * apart (the kernel applies a group's ignore masks to all of its marks).
 */
struct fsn_mark_spec {
	enum fsn_mark_type type;
	enum fsn_class klass; /* fanotify only */
	uint32_t report;      /* FAN_REPORT_* flags of the group (fanotify only) */
	uint32_t group_tag;   /* caller's group separator (fanotify only) */
	uint64_t mask;        /* FAN_* (with EVENT_ON_CHILD, ONDIR) or IN_* */
	uint64_t ignore;      /* fanotify ignore mask (may include EVENT_ON_CHILD, ONDIR) */
	uint32_t flags;       /* FSN_MARK_F_* */
	int dirfd;            /* AT_FDCWD or a directory fd for a relative path */
	const char *path;
	void *userdata; /* returned by fsn_mark_get_userdata() */
};

/*
 * Place a mark. Several marks on the same object in the same group (or
 * inotify watches on the same inode) are combined: the kernel gets the union
 * of their masks, and removing one mark removes only the bits no other mark
 * still needs. Ignore masks use FAN_MARK_IGNORE where the kernel supports it,
 * else the legacy FAN_MARK_IGNORED_MASK with FAN_MARK_IGNORED_SURV_MODIFY.
 * A legacy ignore mask cannot hold FAN_EVENT_ON_CHILD or FAN_ONDIR; they are
 * dropped from it. Ignore masks of different styles (new, legacy, legacy
 * without SURV_MODIFY) on one object: -EEXIST, as the kernel would say. The
 * kernel mark is FAN_MARK_EVICTABLE only while every mark on it is.
 * dirfd and path are used only here: the object is remembered, not the path.
 * inotify: IN_MASK_CREATE fails with -EEXIST if the context already watches
 * the inode; watch flags (IN_ONESHOT, IN_EXCL_UNLINK) apply to the watch, so
 * to every mark on it.
 * Returns 0 and *ret (owned by the context; may be NULL if not wanted), or
 * the kernel's negative errno; the context's log callback then gets a line
 * naming the path, the mark type, the mask and the reason.
 */
int fsn_ctx_add_mark(struct fsn_ctx *ctx, const struct fsn_mark_spec *spec, struct fsn_mark **ret);

/*
 * Remove one mark (and the kernel bits only it needed). The mark is freed
 * even if the kernel call fails (the error is returned and logged). The
 * object is reached again by its file handle or the path it had; if it has
 * been renamed away since, its kernel mask keeps the bits until its group is
 * closed (inotify: events no remaining mark asked for are not handed out).
 * A mark whose inotify watch is gone (IN_IGNORED) is just freed. Removing a
 * group's last mark takes the group out of the context: permission events
 * still queued in it are answered FAN_ALLOW (by the library, or by the
 * kernel when the group closes), so dispatch them first if a policy must
 * answer them. Accepts NULL.
 */
int fsn_ctx_remove_mark(struct fsn_ctx *ctx, struct fsn_mark *mark);

void *fsn_mark_get_userdata(const struct fsn_mark *mark);
const struct fsn_mark_spec *fsn_mark_get_spec(const struct fsn_mark *mark); /* path copied */
/* The fanotify group a mark is in: the one its events come with
 * (event.group); NULL for an inotify watch. */
struct fsn_group *fsn_mark_get_group(const struct fsn_mark *mark);
/*
 * The FID of the object the mark was placed on (the path's file or
 * directory), as fanotify reports it with FAN_REPORT_FID: its filesystem's
 * fsid and its file handle (the non-decodable kind, AT_HANDLE_FID, where
 * the filesystem cannot export handles). 0; -ENODATA when the filesystem
 * gives no handle at all (ret->fsid is set all the same, handle_bytes is 0);
 * -EINVAL for NULL.
 */
int fsn_mark_get_fid(const struct fsn_mark *mark, struct fsn_fid *ret);

/*
 * The length of the kernel queue of each fanotify group and of the inotify
 * instance the context creates from now on: n events, after which the
 * kernel drops events and queues one overflow event instead. The kernel
 * takes it from the global sysctl fs.fanotify.max_queued_events
 * (fs.inotify.max_queued_events) when a group (an instance) is created, so
 * the library writes n there just before fanotify_init() (inotify_init1())
 * and writes the old value back just after (a group another process creates
 * in between gets n too). Existing groups keep their length. 0 (the
 * default): the system's value. Groups created with FAN_UNLIMITED_QUEUE
 * have no limit. When the sysctl cannot be written (no CAP_SYS_ADMIN in the
 * initial user namespace, a read-only /proc/sys) the groups get the system's
 * value, and the context logs that once. 0, or -EINVAL for NULL.
 */
int fsn_ctx_set_queue_max(struct fsn_ctx *ctx, unsigned n);
/* The length group g's kernel queue was created with (0: unlimited,
 * FAN_UNLIMITED_QUEUE), and that of the context's inotify instance (0:
 * none yet). */
unsigned fsn_group_get_queue_max(const struct fsn_group *g);
unsigned fsn_ctx_get_inotify_queue_max(const struct fsn_ctx *ctx);

/* The fanotify groups the context holds now (each one fanotify fd). */
unsigned fsn_ctx_get_n_groups(const struct fsn_ctx *ctx);

/*
 * Drain the kernel queues on a thread of the context's own: from now on it
 * reads the inotify instance and every notification group whose events
 * carry no fd (FAN_REPORT_FID / FAN_REPORT_DIR_FID) as soon as they are
 * readable (with FAN_REPORT_PIDFD, the pidfds it holds are counted in the
 * context's fd budget, fsn_ctx_set_fd_budget(): one it has no room for is
 * closed as it is read, and the event says FAN_EPIDFD), and fsn_ctx_dispatch() hands out what it
 * read, in the kernel's order per group. The kernel queues then stay short
 * while the caller is busy, and the caller's bound replaces the kernel's:
 * the thread holds at most max_bytes of events read and not yet handed
 * out (counted as allocated: reads of 64 KiB, a short read in a buffer of
 * its own size), and while that much is held it stops reading, so the
 * kernel queues fill behind it and overflow as they always do
 * (FAN_Q_OVERFLOW / IN_Q_OVERFLOW in the stream: never a silent loss).
 * Permission groups and groups whose events carry an fd are always read
 * by fsn_ctx_dispatch() itself. The thread blocks every signal.
 * Called again, it changes the bound; 0 stops the thread (what it read is
 * still handed out). Call it from the thread that dispatches.
 * 0, -EINVAL, or -errno (the thread could not be started).
 */
int fsn_ctx_set_reader(struct fsn_ctx *ctx, size_t max_bytes);

/* What the reader thread holds (all 0 without one): bytes now, the most it
 * held, its bound, and how many times it stopped reading because it held
 * that much. */
struct fsn_reader_stats {
	size_t bytes;
	size_t peak;
	size_t max;
	uint64_t n_full;
};
int fsn_ctx_get_reader_stats(const struct fsn_ctx *ctx, struct fsn_reader_stats *ret);

/*
 * After fsn_ctx_dispatch() returned >= 0: whether every event the kernel
 * had queued before the call was handed out: none held by the context or
 * (with a reader thread) the thread, no fd-mode group's events left queued
 * for want of fds (fsn_ctx_fd_starved()), no source readable now (a
 * non-blocking look, made only when the rest holds). An overflow that
 * comes later lost only events queued after this; a process that exited
 * before the call has had all its events handed out.
 */
bool fsn_ctx_is_drained(const struct fsn_ctx *ctx);

/*
 * A mark in the context's queues: what each source (the inotify fd, each
 * group) has queued now, read by the reader thread or not yet read.
 * fsn_ctx_queue_passed() says whether every event queued at the mark has
 * been handed out since (or dropped by the library, or left with its
 * group), whatever came after it: unlike fsn_ctx_is_drained(), it turns
 * true under a stream of events that never lets the queues empty, once
 * dispatch has caught up with the mark. For a caller that must know that
 * every event made before a moment was seen (a process that exited, a
 * file renamed into place). Events merged by the kernel into one queued
 * at the mark count as handed with it. Call both from the thread that
 * dispatches. fsn_ctx_queue_mark(): 0, -ENOMEM, -EINVAL, or FIONREAD's
 * negative errno.
 */
struct fsn_queue_mark;
int fsn_ctx_queue_mark(struct fsn_ctx *ctx, struct fsn_queue_mark **ret);
bool fsn_ctx_queue_passed(const struct fsn_ctx *ctx, const struct fsn_queue_mark *mark);
/* Returns NULL; accepts NULL. */
struct fsn_queue_mark *fsn_queue_mark_free(struct fsn_queue_mark *mark);

/*
 * After fsn_ctx_dispatch(): whether it left events of an fd-mode group
 * (no FID reporting) in the kernel queue because this process has no free
 * file descriptor for their event fds (RLIMIT_NOFILE), or its fd budget
 * (below) is spent. The kernel would drop such an event, or deny a
 * permission event's opener, so libfsn reads no more events than there
 * are free fds, and none while none is free. The caller frees some
 * (answers pending permission events) and dispatches again; polling the
 * context meanwhile would spin.
 */
bool fsn_ctx_fd_starved(const struct fsn_ctx *ctx);

/*
 * An fd budget: how many event fds libfsn may hold at once, for the
 * contexts it is given to. Events of a group that reports no file handles
 * (no FAN_REPORT_FID / FAN_REPORT_DIR_FID: every permission group) come
 * with an fd the kernel opens while read() copies them, and those of any
 * group with FAN_REPORT_PIDFD with a pidfd; out of fds, the kernel drops a
 * notification event, denies a permission event's opener without asking,
 * or gives FAN_EPIDFD. libfsn must not
 * assume it knows every fd the process opens, so without a budget it
 * counts the free fds before each read of such a group (RLIMIT_NOFILE
 * and a listing of /proc/self/fd: a few system calls per read). With
 * one, the caller has set those fds aside (its own fd users are bounded,
 * the rest of RLIMIT_NOFILE is the budget) and libfsn counts only what
 * it holds: a read asks for no more events than the budget has room for,
 * and none while it has none (fsn_ctx_fd_starved()), at no system call.
 *
 * Held are the fds (and pidfds) of events read from those groups and not
 * yet given back: events being handed out, events a callback's error left
 * for the next dispatch, and permission events taken with
 * fsn_event_take_perm() until fsn_perm_respond() or fsn_perm_free(). An fd
 * is given back when libfsn closes it, or when the caller takes it
 * (fsn_event_take_fd(), a pidfd kept by setting ev->pidfd to -1): it is
 * then the caller's, one of its own fd users. Contexts sharing a budget
 * share its room; they may be used from different threads (the counts are
 * atomic). A budget of 0 fds means "not known": libfsn counts the free fds
 * before each read, as without a budget, and still keeps count of what it
 * holds.
 */
struct fsn_fd_budget;
/* The most pidfds one read of a FID group with FAN_REPORT_PIDFD makes at
 * once (the kernel makes one per event as it copies it; the reader thread
 * closes those its budget has no room for at once): what a caller that
 * counts its fds allows for, besides the budget. */
#define FSN_PIDFDS_PER_READ 1260

/* A budget of max fds (0: count instead), one reference. 0 or -errno. */
int fsn_fd_budget_new(unsigned max, struct fsn_fd_budget **ret);
/* References: a context and a taken permission event hold one each, so a
 * budget outlives what counted in it. unref returns NULL; both accept NULL. */
struct fsn_fd_budget *fsn_fd_budget_ref(struct fsn_fd_budget *b);
struct fsn_fd_budget *fsn_fd_budget_unref(struct fsn_fd_budget *b);
/* Change the bound (from any thread). Fds held above a lowered bound stay
 * held; no more are read until they are given back. 0, -EINVAL. */
int fsn_fd_budget_set_max(struct fsn_fd_budget *b, unsigned max);
unsigned fsn_fd_budget_get_max(const struct fsn_fd_budget *b);
/* The event fds held now (0 for NULL). */
unsigned fsn_fd_budget_get_held(const struct fsn_fd_budget *b);

/* Count the context's event fds in b (a reference is taken; NULL: no
 * budget, count the free fds before each read). Not from a callback, not
 * while events a callback's error left are waiting, nor while the reader
 * thread holds events (-EBUSY). 0, -EINVAL, -EBUSY. */
int fsn_ctx_set_fd_budget(struct fsn_ctx *ctx, struct fsn_fd_budget *b);

/* The context's fanotify groups, one after the other: NULL gives the
 * first, a group the one after it, the last NULL. Adding or removing marks
 * may change the list: do not keep a group across such calls. */
struct fsn_group *fsn_ctx_next_group(const struct fsn_ctx *ctx, const struct fsn_group *g);
/* Whether the context has an inotify instance (a watch was placed). */
bool fsn_ctx_has_inotify(const struct fsn_ctx *ctx);
/* What waits in a kernel queue now (FIONREAD): a fanotify group's events
 * (the kernel counts FAN_EVENT_METADATA_LEN per event), the inotify
 * instance's bytes (struct inotify_event and name each). -errno on error,
 * -ENOENT for a context without an inotify instance. */
int fsn_group_get_queued(const struct fsn_group *g);
int fsn_ctx_get_inotify_queued_bytes(const struct fsn_ctx *ctx);

/* The group an event came from; a stable small integer per group. */
unsigned fsn_group_get_id(const struct fsn_group *g);
/* The group's fanotify fd, for a caller that polls it itself instead of the
 * context's fd: a context whose only source is this group (one group, no
 * inotify watch, no reader thread) is readable exactly when it is, and
 * fsn_ctx_dispatch() then reads it without asking epoll, so polling it
 * saves the kernel a nested epoll per event. Only to poll: never read,
 * write or close it. -EINVAL for NULL. */
int fsn_group_get_fd(const struct fsn_group *g);
enum fsn_class fsn_group_get_class(const struct fsn_group *g);
uint32_t fsn_group_get_report(const struct fsn_group *g);
uint32_t fsn_group_get_tag(const struct fsn_group *g);

/*
 * Called once per decoded event. ev and the memory it points to are valid
 * until the callback returns; ev->fd is closed by the library afterwards
 * (take it with fsn_event_take_fd() to keep it), and so is ev->pidfd (set
 * ev->pidfd to -1 to keep it). Returning a negative errno stops the
 * dispatch, which returns that value; events not yet handed out stay queued
 * in the context's buffer and come first at the next dispatch (the
 * context's fd stays readable meanwhile).
 *
 * inotify events go to the first (oldest) mark on their watch that asked for
 * one of the event's bits; IN_IGNORED, IN_UNMOUNT go to the first mark, once.
 * After IN_IGNORED every mark on that watch is dead: remove them with
 * fsn_ctx_remove_mark(). Events of removed marks are dropped. IN_Q_OVERFLOW
 * (wd -1) and FAN_Q_OVERFLOW (fd FAN_NOFD) come like any event, with no mark.
 */
typedef int (*fsn_event_fn)(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata);

/*
 * Read every readable group and the inotify fd until its queue is empty (a
 * read that comes back short, or EAGAIN), decode, and call fn for each
 * event. Events queued after that keep the context's fd readable: poll it
 * level-triggered (edge-triggered, call until it returns 0). A malformed kernel record is logged
 * and skipped to the end of that read; the fds of the events skipped that way cannot be known, so
 * they are neither closed nor answered (a permission event among them is released when its group is
 * closed). Permission events that the callback neither answered (fsn_ctx_respond()) nor took
 * (fsn_event_take_perm()) are answered with FAN_ALLOW when the callback
 * returns, so no process is left blocked. Returns the number of events
 * dispatched, or a negative errno (-EBUSY when called from a callback).
 */
int fsn_ctx_dispatch(struct fsn_ctx *ctx, fsn_event_fn fn, void *userdata);

/* Take ownership of ev->fd (the caller must close it); returns it, and
 * ev->fd becomes -1. -EBADF if the event has no fd. For a permission event
 * the fd number is still used to answer it: keep it open until then. A
 * taken fd leaves the context's fd budget: it is the caller's to count. */
int fsn_event_take_fd(struct fsn_event *ev);

/* ------------------------------------------------------------------------ */
/* Permission responses                                                     */
/* ------------------------------------------------------------------------ */

enum fsn_verdict {
	FSN_ALLOW = 0,
	FSN_DENY,
};

/* A pending permission decision taken out of a dispatch callback. It keeps
 * its group open until answered or freed. */
struct fsn_perm;

/*
 * Answer a permission event from inside the dispatch callback (ev is the
 * pointer the callback got).
 * err: 0 for a plain FAN_DENY (EPERM), or a positive errno for
 * FAN_DENY_ERRNO(err); ignored for FSN_ALLOW. audit adds FAN_AUDIT.
 * If the kernel rejects FAN_DENY_ERRNO (or FAN_AUDIT), the event is still
 * answered with the same verdict without it (a plain deny; no audit) and
 * -EOPNOTSUPP is returned, so the blocked process is never left waiting.
 * The kernel accepts FAN_DENY_ERRNO only from FSN_CLASS_PRE_CONTENT groups
 * (6.14+) and only errnos valid for open/read/write (EIO, EBUSY, ETXTBSY,
 * EAGAIN, ENOSPC, EDQUOT, EPERM); FAN_AUDIT needs a group created with
 * FAN_ENABLE_AUDIT, which the library asks for (CAP_AUDIT_WRITE).
 * -EINVAL (nothing written) if ev is not a permission event, was already
 * answered or taken, or v is not a verdict.
 */
int fsn_ctx_respond(struct fsn_ctx *ctx, struct fsn_event *ev, enum fsn_verdict v, int err,
		    bool audit);

/*
 * Plain answers (FSN_ALLOW, FSN_DENY without an errno or audit) given in
 * the callbacks of one read, and the FSN_ALLOW of the permission events
 * they leave unanswered, are written together once that read's events are
 * handed out: one writev() for all (the kernel takes one response per
 * iovec), then their events' fds are closed (the kernel finds an event by
 * its fd number). fsn_ctx_respond() then returns 0; a write the kernel
 * refuses is logged. An event whose fd the callback took is answered at
 * once, as are answers with an errno or audit. fsn_ctx_flush() writes
 * what is queued now: call it from a callback before work that should not
 * delay the answers (e.g. reporting a decision). 0, -EINVAL.
 */
int fsn_ctx_flush(struct fsn_ctx *ctx);

/*
 * From an event callback: whether one of the events read with the current
 * one (the same read of the same fanotify group), after it and at most
 * FSN_LATER_WINDOW events on, takes name away from directory dfid: a
 * FAN_DELETE, FAN_MOVED_FROM, FAN_CREATE or FAN_MOVED_TO of that name (a
 * name is created only once its last object left it; a rename over it
 * unlinks that object), or either side of a FAN_RENAME. Then the current
 * event's object no longer has that name: a lookup of it would fail, or
 * find another object. An event whose mask merges such a bit with one that
 * brings a name in (FAN_DELETE | FAN_CREATE: the order is not known) is
 * not taken as one. Only the header of each event is read unless its mask
 * has such a bit. 1 yes, 0 no or not known (not in a callback, an inotify
 * event, events the group does not report), -EINVAL.
 */
#define FSN_LATER_WINDOW 64
int fsn_ctx_name_taken_later(struct fsn_ctx *ctx, const struct fsn_fid *dfid, const char *name);

/* Keep a permission event to answer later (e.g. from a deadline timer).
 * Its fd stays in the context's fd budget until it is answered or freed. */
int fsn_event_take_perm(struct fsn_ctx *ctx, struct fsn_event *ev, struct fsn_perm **ret);
/* Answer and free it; same semantics as fsn_ctx_respond(). p is freed in
 * every case (an invalid v: answered FAN_ALLOW, -EINVAL). */
int fsn_perm_respond(struct fsn_perm *p, enum fsn_verdict v, int err, bool audit);
/* Free without answering: the event is answered FAN_ALLOW. Accepts NULL. */
struct fsn_perm *fsn_perm_free(struct fsn_perm *p);
/* The event fd of a pending permission event (owned by p). */
int fsn_perm_get_fd(const struct fsn_perm *p);

/* ------------------------------------------------------------------------ */
/* File handles to paths                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Resolve a FID (and an optional entry name inside it, for DFID_NAME
 * records) to a path: open_by_handle_at() on a mount fd the context keeps
 * for each filesystem it has a fanotify mark on, then the fd's path, then
 * "/" name. Needs CAP_DAC_READ_SEARCH. Paths resolved once are remembered in
 * the context's bounded FID cache (65536 FIDs), so an object
 * that has since been deleted (ESTALE) keeps the path it had; *ret_deleted
 * is then set (also when the object is still open but unlinked). name "."
 * (the directory's own event) means the directory itself. Returns the path
 * length, -ENAMETOOLONG if it does not fit in len, -ENODEV if no fanotify
 * mark is on that filesystem, -ESTALE if the object is gone and was never
 * seen, or another negative errno.
 * The mount fd is the root of the first marked mount of the filesystem,
 * known from the first mark of a group reporting file handles
 * (FAN_REPORT_FID, FAN_REPORT_DIR_FID) placed there; it is opened
 * O_RDONLY by that root's path only while events are handled (checked to
 * be the same filesystem, else -ENODEV) and closed when
 * fsn_ctx_dispatch() returns, so the mount is not kept busy. That open
 * and close are the caller's own accesses: a mount or filesystem mark
 * with FAN_OPEN or FAN_CLOSE_NOWRITE and FAN_ONDIR reports them.
 */
int fsn_ctx_fid_path(struct fsn_ctx *ctx, const struct fsn_fid *fid, const char *name, char *buf,
		     size_t len, bool *ret_deleted);

/*
 * Open the object a FID names (open_by_handle_at() on the context's mount
 * fd for its filesystem, as fsn_ctx_fid_path() does), with flags |
 * O_CLOEXEC: e.g. O_PATH | O_DIRECTORY for an event's directory, so that
 * one of its entries can be looked at with fstatat(fd, name,
 * AT_SYMLINK_NOFOLLOW) and no path is walked. Needs CAP_DAC_READ_SEARCH.
 * Returns the fd (the caller's to close), -ESTALE if the object is gone,
 * -ENODEV if no fanotify mark is on that filesystem, or another negative
 * errno. The mount fd's open and close are as fsn_ctx_fid_path() says.
 */
int fsn_ctx_fid_open(struct fsn_ctx *ctx, const struct fsn_fid *fid, int flags);

/* Forget cached paths under a directory FID (call on MOVE_SELF / rename of
 * a directory): the FID's own entry in the context's FID cache and every
 * entry strictly below the path it had. Events dispatched by the context
 * need no call: see fsn_ctx_event_dir_path(). */
void fsn_ctx_fid_forget(struct fsn_ctx *ctx, const struct fsn_fid *fid);

/*
 * The path of entry name (NULL or ".": the directory itself) of directory
 * dfid, one of the directory FIDs of event ev (&ev->dfid, &ev->old_dfid,
 * &ev->new_dfid), as fsn_ctx_fid_path() resolves it — except when ev's
 * group sees every directory move on that filesystem (it has a filesystem
 * mark there whose mask holds FAN_MOVED_FROM and FAN_ONDIR): then the
 * directory's path is cached for the group and served from the cache,
 * without open_by_handle_at() or a readlink(), so a storm of events in a
 * few directories resolves each directory once.
 *
 * The library keeps that cache right, in the order of the group's own
 * queue, in one place: when fsn_ctx_dispatch()'s callback for an event that
 * moved, renamed or deleted a directory returns (its paths were resolved
 * with the cache as it was before), the entries at and below the
 * directory's old path are forgotten (and, for moves and renames, the
 * context-wide entries under its FID: fsn_ctx_fid_forget()); after an
 * overflow of the group's queue, when the group's filesystem marks change,
 * and when the group goes, all of the group's. One cache: the context's
 * FID cache (65536 entries), shared with fsn_ctx_fid_path().
 * Returns as fsn_ctx_fid_path(); -EINVAL when ev is not a fanotify event.
 */
int fsn_ctx_event_dir_path(struct fsn_ctx *ctx, const struct fsn_event *ev,
			   const struct fsn_fid *dfid, const char *name, char *buf, size_t len,
			   bool *ret_deleted);

/*
 * The context's FID cache is internal: libfsn exports no cache API (the
 * fsn_fidcache_* functions of earlier snapshots are gone from this header
 * and from the library's symbols). Nothing but the context used them; the
 * cache's contract (tags, paths compared as strings, forgetting by path) is
 * how the context keeps its own cache right, not a service of a fanotify
 * library; and once in the ABI it could not change with the context. The
 * calls above are the way in: fsn_ctx_fid_path(), fsn_ctx_event_dir_path(),
 * fsn_ctx_fid_forget().
 */

#ifdef __cplusplus
}
#endif
