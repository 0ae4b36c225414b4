/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe.c — the feature probe: fsn_probe_path() asks the running kernel,
 * on one path, for each enum fsn_feature by making the very call that
 * needs it, and classifies the answer. Also owns the feature names and
 * descriptions, the errno classification and fsn_probe_describe().
 *
 * Rules:
 *   - Never compare kernel versions: only the kernel's answer counts.
 *   - One probe makes at most one fanotify group per set of fanotify_init()
 *     flags (a pool) and empties it (FAN_MARK_FLUSH of the mark's type)
 *     after every mark it tried, so marks never interact (e.g. an evictable
 *     mark cannot be added to an existing non-evictable one). Every group
 *     and mark is gone when the probe returns. Closing a group that had
 *     marks waits for the kernel's mark reaper (an SRCU grace period, ~8 ms
 *     here): one group per feature closed after each would cost that wait
 *     for every feature; the pool, closed at the end, costs it once.
 *   - struct fsn_prober (below) remembers results per filesystem, so a plan
 *     of 10 000 paths on a few filesystems runs a few probes.
 *   - No event is generated: the path is checked with stat(), not opened
 *     (even an O_PATH fd generated FS_CLOSE_NOWRITE on close before
 *     commit 702eb71fd650, Linux 6.10 and its stable backports); marks and
 *     watches are added but nothing is read, written or executed.
 *   - Permission and pre-content marks exist only between fanotify_mark()
 *     and the flush right after it. A process that opens or reads the path
 *     in that window waits until the group is closed at the end of the
 *     probe (microseconds to milliseconds later), which answers FAN_ALLOW.
 *
 * Prerequisites: a mark feature needs a group of some class / report flags,
 * which is itself a feature probed first (MARK_INODE needs FANOTIFY,
 * EVENT_RENAME needs REPORT_DFID_NAME, PERM_* need CLASS_CONTENT, ...). If
 * that group could not be created, the dependent feature is not tried:
 *   - the prerequisite's result is copied (support and errno) when it says
 *     why the dependent feature cannot work either: UNSUPPORTED_KERNEL
 *     (a kernel without FAN_REPORT_DFID_NAME has no FAN_RENAME) or
 *     NOT_PERMITTED (no CAP_SYS_ADMIN for a CLASS_CONTENT group means no
 *     permission events);
 *   - otherwise (PROBE_FAILED, e.g. EMFILE) it is FSN_NOT_PROBED, error 0.
 * The fanotify_init() features have no prerequisite: each is tried on its
 * own, so an unprivileged caller still learns that FID groups work while
 * FAN_CLASS_NOTIF needs CAP_SYS_ADMIN.
 *
 * EINVAL from fanotify_mark() means "unknown flag or mask bit" (this kernel)
 * or "not on this object" (permission events on procfs, which sets
 * FS_DISALLOW_NOTIFY_PERM; mount/sb marks on SB_NOUSER pseudo filesystems;
 * pre-content events on a non-regular file). do_fanotify_mark() validates
 * the flags and the mask before it looks up the path, and FAN_MARK_FLUSH
 * returns right after that validation. So when adding a mark fails with
 * EINVAL, the same mark type and mask are tried once more with
 * FAN_MARK_FLUSH on the (still empty) group: if the kernel accepts them,
 * the refusal came from the object and the feature is
 * FSN_UNSUPPORTED_FS with error EINVAL. Steps whose feature is a mark flag
 * that FAN_MARK_FLUSH does not take (FAN_MARK_IGNORE, FAN_MARK_EVICTABLE)
 * keep the plain classification.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ctx-private.h"

_Static_assert(EOPNOTSUPP == ENOTSUP, "ENOTSUP is EOPNOTSUPP on Linux");

/* ---- names ---- */

static const char *const support_names[] = {
	[FSN_SUPPORTED] = "supported",
	[FSN_UNSUPPORTED_KERNEL] = "not supported by this kernel",
	[FSN_UNSUPPORTED_FS] = "not supported by this filesystem",
	[FSN_NOT_PERMITTED] = "not permitted",
	[FSN_PROBE_FAILED] = "probe failed",
	[FSN_NOT_PROBED] = "not probed",
};
_Static_assert(ELEMENTSOF(support_names) == _FSN_SUPPORT_MAX, "a support name is missing");

struct feature_info {
	const char *name;
	const char *description;
};

static const struct feature_info features[] = {
	[FSN_FEAT_FANOTIFY] = { "fanotify", "fanotify notification groups (FAN_CLASS_NOTIF)" },
	[FSN_FEAT_CLASS_CONTENT] = { "class_content",
				     "permission event groups (FAN_CLASS_CONTENT)" },
	[FSN_FEAT_CLASS_PRE_CONTENT] = { "class_pre_content",
					 "pre-content event groups (FAN_CLASS_PRE_CONTENT)" },
	[FSN_FEAT_REPORT_TID] = { "report_tid", "thread ids instead of pids (FAN_REPORT_TID)" },
	[FSN_FEAT_REPORT_FID] = { "report_fid", "file handles in events (FAN_REPORT_FID)" },
	[FSN_FEAT_REPORT_DIR_FID] = { "report_dir_fid",
				      "directory file handles in events (FAN_REPORT_DIR_FID)" },
	[FSN_FEAT_REPORT_DFID_NAME] = { "report_dfid_name",
					"directory handle and entry name (FAN_REPORT_DFID_NAME)" },
	[FSN_FEAT_REPORT_TARGET_FID] = { "report_target_fid",
					 "dirent target handles (FAN_REPORT_DFID_NAME_TARGET)" },
	[FSN_FEAT_REPORT_PIDFD] = { "report_pidfd", "pidfds in events (FAN_REPORT_PIDFD)" },
	[FSN_FEAT_REPORT_FD_ERROR] = { "report_fd_error",
				       "event fd open errors as -errno (FAN_REPORT_FD_ERROR)" },
	[FSN_FEAT_UNLIMITED_QUEUE] = { "unlimited_queue",
				       "queue without event limit (FAN_UNLIMITED_QUEUE)" },
	[FSN_FEAT_MARK_INODE] = { "mark_inode", "inode marks (FAN_MARK_INODE)" },
	[FSN_FEAT_MARK_MOUNT] = { "mark_mount", "mount marks (FAN_MARK_MOUNT)" },
	[FSN_FEAT_MARK_FILESYSTEM] = { "mark_filesystem",
				       "filesystem marks (FAN_MARK_FILESYSTEM)" },
	[FSN_FEAT_MARK_FID] = { "mark_fid", "marks of FAN_REPORT_FID groups (file handles on this "
					    "filesystem)" },
	[FSN_FEAT_MARK_IGNORE] = { "mark_ignore", "new-style ignore masks (FAN_MARK_IGNORE)" },
	[FSN_FEAT_MARK_EVICTABLE] = { "mark_evictable",
				      "evictable inode marks (FAN_MARK_EVICTABLE)" },
	[FSN_FEAT_EVENT_OPEN_EXEC] = { "event_open_exec",
				       "open for execution events (FAN_OPEN_EXEC)" },
	[FSN_FEAT_EVENT_DIRENT] = { "event_dirent",
				    "directory entry events (FAN_CREATE, FAN_DELETE, FAN_MOVE)" },
	[FSN_FEAT_EVENT_RENAME] = { "event_rename", "rename events with both names (FAN_RENAME)" },
	[FSN_FEAT_EVENT_FS_ERROR] = { "event_fs_error", "filesystem error events (FAN_FS_ERROR)" },
	[FSN_FEAT_PERM_OPEN] = { "perm_open", "open permission events (FAN_OPEN_PERM)" },
	[FSN_FEAT_PERM_ACCESS] = { "perm_access", "read permission events (FAN_ACCESS_PERM)" },
	[FSN_FEAT_PERM_OPEN_EXEC] = { "perm_open_exec",
				      "execute permission events (FAN_OPEN_EXEC_PERM)" },
	[FSN_FEAT_PRE_ACCESS] = { "pre_access", "pre-content access events (FAN_PRE_ACCESS)" },
	[FSN_FEAT_DENY_ERRNO] = { "deny_errno",
				  "deny with a chosen errno (FAN_DENY_ERRNO, pre-content groups)" },
	[FSN_FEAT_INOTIFY] = { "inotify", "inotify watches (inotify_add_watch)" },
	[FSN_FEAT_INOTIFY_MASK_CREATE] = { "inotify_mask_create",
					   "create-only inotify watches (IN_MASK_CREATE)" },
};
_Static_assert(ELEMENTSOF(features) == _FSN_FEAT_MAX, "a feature name is missing");

_public_ enum fsn_support fsn_support_from_errno(int err) {
	switch (err < 0 ? -err : err) {
	case 0: return FSN_SUPPORTED;
	case EINVAL:
	case ENOSYS: return FSN_UNSUPPORTED_KERNEL;
	case ENODEV:
	case EOPNOTSUPP: /* == ENOTSUP */
	case EXDEV: return FSN_UNSUPPORTED_FS;
	case EPERM:
	case EACCES: return FSN_NOT_PERMITTED;
	default: return FSN_PROBE_FAILED;
	}
}

_public_ const char *fsn_support_name(enum fsn_support s) {
	if ((unsigned)s >= _FSN_SUPPORT_MAX)
		return NULL;
	return support_names[s];
}

_public_ const char *fsn_feature_name(enum fsn_feature f) {
	if ((unsigned)f >= _FSN_FEAT_MAX)
		return NULL;
	return features[f].name;
}

_public_ const char *fsn_feature_description(enum fsn_feature f) {
	if ((unsigned)f >= _FSN_FEAT_MAX)
		return NULL;
	return features[f].description;
}

/* ---- the probes ---- */

enum step_type {
	STEP_INIT,               /* fanotify_init(init) */
	STEP_MARK,               /* fanotify_init(init) + fanotify_mark(ADD|mark, mask, path) */
	STEP_DENY_ERRNO,         /* fanotify_init(init) + write(FAN_DENY_ERRNO response) */
	STEP_INOTIFY,            /* inotify_add_watch(path, IN_MODIFY) */
	STEP_INOTIFY_MASK_CREATE /* the same, again with IN_MASK_CREATE */
};

#define NO_PREREQ (-1)

struct step {
	enum step_type type;
	int prereq;    /* enum fsn_feature this step's group depends on, or NO_PREREQ */
	unsigned init; /* fanotify_init() flags besides FAN_CLOEXEC | FAN_NONBLOCK */
	unsigned mark; /* fanotify_mark() flags besides FAN_MARK_ADD */
	uint64_t mask; /* fanotify_mark() mask */
};

#define INIT(flags)                                                                                \
	{ .type = STEP_INIT, .prereq = NO_PREREQ, .init = (flags) }
#define MARK(pre, i, m, msk)                                                                       \
	{ .type = STEP_MARK, .prereq = (pre), .init = (i), .mark = (m), .mask = (msk) }

/* In enum order; a prerequisite always comes before the steps needing it. */
static const struct step steps[] = {
	[FSN_FEAT_FANOTIFY] = INIT(FAN_CLASS_NOTIF),
	[FSN_FEAT_CLASS_CONTENT] = INIT(FAN_CLASS_CONTENT),
	[FSN_FEAT_CLASS_PRE_CONTENT] = INIT(FAN_CLASS_PRE_CONTENT),
	[FSN_FEAT_REPORT_TID] = INIT(FAN_REPORT_TID),
	[FSN_FEAT_REPORT_FID] = INIT(FAN_REPORT_FID),
	[FSN_FEAT_REPORT_DIR_FID] = INIT(FAN_REPORT_DIR_FID),
	[FSN_FEAT_REPORT_DFID_NAME] = INIT(FAN_REPORT_DFID_NAME),
	[FSN_FEAT_REPORT_TARGET_FID] = INIT(FAN_REPORT_DFID_NAME_TARGET),
	[FSN_FEAT_REPORT_PIDFD] = INIT(FAN_REPORT_PIDFD),
	[FSN_FEAT_REPORT_FD_ERROR] = INIT(FAN_REPORT_FD_ERROR),
	[FSN_FEAT_UNLIMITED_QUEUE] = INIT(FAN_UNLIMITED_QUEUE),

	[FSN_FEAT_MARK_INODE] = MARK(FSN_FEAT_FANOTIFY, 0, 0, FAN_MODIFY),
	[FSN_FEAT_MARK_MOUNT] = MARK(FSN_FEAT_FANOTIFY, 0, FAN_MARK_MOUNT, FAN_MODIFY),
	[FSN_FEAT_MARK_FILESYSTEM] = MARK(FSN_FEAT_FANOTIFY, 0, FAN_MARK_FILESYSTEM, FAN_MODIFY),
	/* FAN_MODIFY, not a dirent event: those need a directory for an inode
	 * mark. A filesystem that cannot encode file handles answers
	 * EOPNOTSUPP; a zero fsid (some FUSE) ENODEV and a btrfs subvolume
	 * EXDEV, for inode marks only before Linux 6.8 (weak fsids), for
	 * mount and filesystem marks (EVENT_* below) always. */
	[FSN_FEAT_MARK_FID] = MARK(FSN_FEAT_REPORT_FID, FAN_REPORT_FID, 0, FAN_MODIFY),
	/* FAN_MARK_IGNORE needs IGNORED_SURV_MODIFY on directories; before
	 * Linux 6.0 the flag is unknown: EINVAL. */
	[FSN_FEAT_MARK_IGNORE] = MARK(FSN_FEAT_FANOTIFY, 0, FAN_MARK_IGNORE_SURV, FAN_OPEN),
	[FSN_FEAT_MARK_EVICTABLE] = MARK(FSN_FEAT_FANOTIFY, 0, FAN_MARK_EVICTABLE, FAN_MODIFY),
	[FSN_FEAT_EVENT_OPEN_EXEC] = MARK(FSN_FEAT_FANOTIFY, 0, 0, FAN_OPEN_EXEC),
	/* Dirent, rename and error events on a filesystem mark: valid whether
	 * path is a file or a directory (an inode mark on a file would answer
	 * ENOTDIR for FAN_RENAME). */
	[FSN_FEAT_EVENT_DIRENT] = MARK(FSN_FEAT_REPORT_FID, FAN_REPORT_FID, FAN_MARK_FILESYSTEM,
				       FAN_CREATE | FAN_DELETE | FAN_MOVE),
	[FSN_FEAT_EVENT_RENAME] =
	    MARK(FSN_FEAT_REPORT_DFID_NAME, FAN_REPORT_DFID_NAME, FAN_MARK_FILESYSTEM, FAN_RENAME),
	[FSN_FEAT_EVENT_FS_ERROR] =
	    MARK(FSN_FEAT_REPORT_FID, FAN_REPORT_FID, FAN_MARK_FILESYSTEM, FAN_FS_ERROR),
	[FSN_FEAT_PERM_OPEN] = MARK(FSN_FEAT_CLASS_CONTENT, FAN_CLASS_CONTENT, 0, FAN_OPEN_PERM),
	[FSN_FEAT_PERM_ACCESS] =
	    MARK(FSN_FEAT_CLASS_CONTENT, FAN_CLASS_CONTENT, 0, FAN_ACCESS_PERM),
	[FSN_FEAT_PERM_OPEN_EXEC] =
	    MARK(FSN_FEAT_CLASS_CONTENT, FAN_CLASS_CONTENT, 0, FAN_OPEN_EXEC_PERM),
	/*
	 * Linux 6.14+: fanotify_events_supported() answers EOPNOTSUPP unless
	 * the filesystem opted in to pre-content events (SB_I_ALLOW_HSM: ext4,
	 * xfs, btrfs, bcachefs; not tmpfs), EINVAL for a target that is neither
	 * a regular file nor a directory (not tried: FSN_NOT_PROBED) and for
	 * FAN_ONDIR in the mask. Older kernels: EINVAL (unknown mask bit).
	 */
	[FSN_FEAT_PRE_ACCESS] =
	    MARK(FSN_FEAT_CLASS_PRE_CONTENT, FAN_CLASS_PRE_CONTENT, 0, FAN_PRE_ACCESS),
	/*
	 * FAN_DENY_ERRNO (Linux 6.14+), fs/notify/fanotify/fanotify_user.c,
	 * process_access_response(): response bits outside
	 * FANOTIFY_RESPONSE_VALID_MASK are EINVAL before any event is looked
	 * up, so an older kernel rejects the errno bits with EINVAL. A kernel
	 * with the feature accepts FAN_DENY with an errno only from a
	 * FAN_CLASS_PRE_CONTENT group (other classes: EINVAL) and only EIO,
	 * EPERM, EBUSY, ETXTBSY, EAGAIN, ENOSPC or EDQUOT (others: EINVAL);
	 * then, as no event with that fd is pending, it answers ENOENT. So:
	 * a pre-content group, FAN_DENY_ERRNO(EIO) for fd INT_MAX (never an
	 * event fd), and ENOENT means supported.
	 */
	[FSN_FEAT_DENY_ERRNO] = { .type = STEP_DENY_ERRNO,
				  .prereq = FSN_FEAT_CLASS_PRE_CONTENT,
				  .init = FAN_CLASS_PRE_CONTENT },
	[FSN_FEAT_INOTIFY] = { .type = STEP_INOTIFY, .prereq = NO_PREREQ },
	[FSN_FEAT_INOTIFY_MASK_CREATE] = { .type = STEP_INOTIFY_MASK_CREATE,
					   .prereq = FSN_FEAT_INOTIFY },
};
_Static_assert(ELEMENTSOF(steps) == _FSN_FEAT_MAX, "a feature has no probe step");

static void set_result(struct fsn_feature_result *r, int err) {
	err = err < 0 ? -err : err;
	r->support = fsn_support_from_errno(err);
	r->error = err;
}

/* The fanotify groups of one probe, one per set of fanotify_init() flags. */
#define POOL_MAX 16

struct pool {
	unsigned init[POOL_MAX];
	int fd[POOL_MAX];
	size_t n;
};

static int new_group(unsigned init) {
	int fd = fanotify_init(FAN_CLOEXEC | FAN_NONBLOCK | init, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? negative_errno() : fd;
}

/* The pool's group for init (made on first use), or -errno. */
static int pool_group(struct pool *p, unsigned init) {
	int fd;

	for (size_t i = 0; i < p->n; i++)
		if (p->init[i] == init)
			return p->fd[i];
	fd = new_group(init);
	if (fd < 0 || p->n == POOL_MAX)
		return fd; /* (a full pool cannot happen: fewer steps than slots) */
	p->init[p->n] = init;
	p->fd[p->n++] = fd;
	return fd;
}

static void pool_close(struct pool *p) {
	for (size_t i = 0; i < p->n; i++)
		safe_close(p->fd[i]);
	p->n = 0;
}

/* 0 or -errno of fanotify_init(); the group stays in the pool. */
static int try_init(struct pool *pool, unsigned init) {
	int g = pool_group(pool, init);

	return g < 0 ? g : 0;
}

#define MARK_TYPE_BITS (FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM)

static void probe_mark(struct pool *pool, const struct step *s, const char *path,
		       struct fsn_feature_result *r) {
	int g = pool_group(pool, s->init);

	if (g < 0) {
		set_result(r, g);
		return;
	}
	if (fanotify_mark(g, FAN_MARK_ADD | s->mark, s->mask, AT_FDCWD, path) == 0)
		set_result(r, 0);
	else {
		set_result(r, negative_errno());
		/* EINVAL: does the kernel know these flags and this mask at all? */
		if (r->error == EINVAL && (s->mark & ~MARK_TYPE_BITS) == 0 &&
		    fanotify_mark(g, FAN_MARK_FLUSH | s->mark, s->mask, AT_FDCWD, NULL) == 0)
			r->support = FSN_UNSUPPORTED_FS;
	}
	/* the group is empty again for the next step */
	(void)fanotify_mark(g, FAN_MARK_FLUSH | (s->mark & MARK_TYPE_BITS), 0, AT_FDCWD, NULL);
}

static int try_deny_errno(struct pool *pool, unsigned init) {
	const struct fanotify_response resp = {
		.fd = INT_MAX,
		.response = FAN_DENY_ERRNO(EIO),
	};
	int g = pool_group(pool, init);
	ssize_t n;

	if (g < 0)
		return g;
	n = write(g, &resp, sizeof(resp));
	if (n < 0)
		return errno == ENOENT ? 0 : negative_errno();
	return 0; /* accepted (cannot happen without a pending event) */
}

static void probe_inotify(const char *path, bool mask_create, struct fsn_feature_result *r) {
	_cleanup_close_ int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd < 0 || inotify_add_watch(fd, path, IN_MODIFY) < 0) {
		set_result(r, negative_errno());
		return;
	}
	if (!mask_create) {
		set_result(r, 0);
		return;
	}

	/* Kernels before 4.18 ignore unknown mask bits, so IN_MASK_CREATE
	 * succeeding proves nothing: on the existing watch it must fail with
	 * EEXIST. Succeeding means the bit was ignored (no errno to report). */
	if (inotify_add_watch(fd, path, IN_MODIFY | IN_MASK_CREATE) >= 0) {
		r->support = FSN_UNSUPPORTED_KERNEL;
		r->error = 0;
		return;
	}
	set_result(r, errno == EEXIST ? 0 : negative_errno());
}

/* Whether a failed prerequisite settles the feature; fills *r if so. */
static bool prereq_failed(const struct fsn_feature_result *pre, struct fsn_feature_result *r) {
	switch (pre->support) {
	case FSN_SUPPORTED: return false;
	case FSN_UNSUPPORTED_KERNEL:
	case FSN_NOT_PERMITTED: *r = *pre; return true;
	default:
		r->support = FSN_NOT_PROBED;
		r->error = 0;
		return true;
	}
}

/* Probe every feature on path (which stat() gave st); inits: results of
 * the fanotify_init() steps from an earlier probe (they do not depend on
 * the path), or NULL to try them. */
static void probe_all(const char *path, const struct stat *st, const struct fsn_probe *inits,
		      struct fsn_probe *ret) {
	struct pool pool = { .n = 0 };
	struct fsn_probe p = { 0 };
	bool reg_or_dir = S_ISREG(st->st_mode) || S_ISDIR(st->st_mode);

	for (size_t f = 0; f < _FSN_FEAT_MAX; f++) {
		const struct step *s = &steps[f];
		struct fsn_feature_result *r = &p.feat[f];

		if (s->prereq != NO_PREREQ && prereq_failed(&p.feat[s->prereq], r))
			continue;

		switch (s->type) {
		case STEP_INIT:
			if (inits)
				*r = inits->feat[f];
			else
				set_result(r, try_init(&pool, s->init));
			break;
		case STEP_MARK:
			if (f == FSN_FEAT_PRE_ACCESS && !reg_or_dir) {
				/* The kernel's EINVAL would read as "no such
				 * kernel feature"; the object is the reason. */
				r->support = FSN_NOT_PROBED;
				r->error = 0;
				break;
			}
			probe_mark(&pool, s, path, r);
			break;
		case STEP_DENY_ERRNO: set_result(r, try_deny_errno(&pool, s->init)); break;
		case STEP_INOTIFY: probe_inotify(path, false, r); break;
		case STEP_INOTIFY_MASK_CREATE: probe_inotify(path, true, r); break;
		}
	}
	pool_close(&pool);
	*ret = p;
}

_public_ int fsn_probe_path(const char *path, struct fsn_probe *ret) {
	struct stat st;

	if (!path || !ret)
		return -EINVAL;
	/* The path must resolve; stat() generates no event. */
	if (stat(path, &st) < 0)
		return negative_errno();
	probe_all(path, &st, NULL, ret);
	return 0;
}

/* ---- the cache: struct fsn_prober ---- */

/*
 * What a feature answers depends on the kernel (the fanotify_init() steps:
 * remembered once), on the filesystem (every mark step: its type, its
 * file handles, its fsid, SB_NOUSER) and, for pre-content events only, on
 * whether the object is a regular file or directory. So results are kept
 * per (st_dev, regular file or directory): st_dev names one superblock
 * (also one btrfs subvolume, whose weak fsid is the difference there).
 * A filesystem unmounted and another mounted can reuse an st_dev;
 * fsn_prober_revalidate() forgets every entry whose path no longer shows
 * the device and mount it was probed on.
 */
struct prober_entry {
	struct fsn_hnode node;
	dev_t dev;
	bool reg_or_dir;
	uint64_t mnt_id; /* 0: unknown (no STATX_MNT_ID) */
	char *path;      /* where it was probed */
	struct fsn_probe probe;
	struct prober_entry *next; /* all entries */
};

struct fsn_prober {
	struct fsn_hmap by_dev;
	struct prober_entry *entries;
	bool have_inits;
	struct fsn_probe inits;
	struct fsn_prober_stats stats;
};

static uint64_t entry_hash(dev_t dev, bool reg_or_dir) {
	uint64_t k[2] = { (uint64_t)dev, reg_or_dir };

	return hash_bytes(HASH_INIT, k, sizeof(k));
}

/* The mount ID path (following symlinks) is on, 0 if unknown. */
static uint64_t mount_id_of(const char *path, dev_t *ret_dev) {
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) < 0)
		return UINT64_MAX; /* gone */
	if (ret_dev)
		*ret_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	return (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
}

_public_ int fsn_prober_new(struct fsn_prober **ret) {
	struct fsn_prober *p;

	if (!ret)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

static void entry_free(struct prober_entry *e) {
	free(e->path);
	free(e);
}

_public_ struct fsn_prober *fsn_prober_free(struct fsn_prober *p) {
	if (!p)
		return NULL;
	for (struct prober_entry *e = p->entries, *n; e; e = n) {
		n = e->next;
		entry_free(e);
	}
	fsn_hmap_done(&p->by_dev);
	free(p);
	return NULL;
}

_public_ int fsn_prober_probe(struct fsn_prober *p, const char *path, const struct stat *st,
			      struct fsn_probe *ret) {
	struct stat own;
	struct prober_entry *e;
	bool reg_or_dir;
	uint64_t h;

	if (!p || !path || !ret)
		return -EINVAL;
	if (!st) {
		if (stat(path, &own) < 0)
			return negative_errno();
		st = &own;
	}
	reg_or_dir = S_ISREG(st->st_mode) || S_ISDIR(st->st_mode);
	h = entry_hash(st->st_dev, reg_or_dir);
	for (struct fsn_hnode *n = fsn_hmap_chain(&p->by_dev, h); n; n = n->next) {
		e = container_of(n, struct prober_entry, node);
		if (n->hash == h && e->dev == st->st_dev && e->reg_or_dir == reg_or_dir) {
			p->stats.hits++;
			*ret = e->probe;
			return 0;
		}
	}

	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return -ENOMEM;
	}
	e->dev = st->st_dev;
	e->reg_or_dir = reg_or_dir;
	e->mnt_id = mount_id_of(path, NULL);
	probe_all(path, st, p->have_inits ? &p->inits : NULL, &e->probe);
	p->stats.probes++;
	if (!p->have_inits) {
		p->inits = e->probe;
		p->have_inits = true;
	}
	*ret = e->probe;
	if (fsn_hmap_put(&p->by_dev, &e->node, h) < 0) {
		entry_free(e); /* the result stands, unremembered */
		return 0;
	}
	e->next = p->entries;
	p->entries = e;
	p->stats.entries++;
	return 0;
}

_public_ size_t fsn_prober_revalidate(struct fsn_prober *p) {
	size_t gone = 0;

	for (struct prober_entry **pe = p ? &p->entries : NULL; pe && *pe;) {
		struct prober_entry *e = *pe;
		dev_t dev = 0;
		uint64_t mnt = mount_id_of(e->path, &dev);

		if (mnt != UINT64_MAX && dev == e->dev && mnt == e->mnt_id) {
			pe = &e->next;
			continue;
		}
		*pe = e->next;
		fsn_hmap_remove(&p->by_dev, &e->node);
		entry_free(e);
		p->stats.entries--;
		gone++;
	}
	return gone;
}

_public_ void fsn_prober_get_stats(const struct fsn_prober *p, struct fsn_prober_stats *ret) {
	if (ret)
		*ret = p ? p->stats : (struct fsn_prober_stats){ 0 };
}

_public_ int fsn_probe_describe(const struct fsn_probe *p, char *buf, size_t len) {
	size_t pos = 0;

	if (!p || (!buf && len > 0))
		return -EINVAL;
	if (len > 0)
		buf[0] = '\0';

	for (size_t f = 0; f < _FSN_FEAT_MAX; f++) {
		const struct fsn_feature_result *r = &p->feat[f];
		const char *s = fsn_support_name(r->support);

		fsn_append(buf, len, &pos, "%s: %s", features[f].name, s ? s : "unknown");
		if (r->error != 0) {
			const char *e = fsn_errno_name(r->error);

			if (e)
				fsn_append(buf, len, &pos, " (%s)", e);
			else
				fsn_append(buf, len, &pos, " (errno %d)", r->error);
		}
		fsn_append(buf, len, &pos, "\n");
	}

	return pos > (size_t)INT_MAX ? -EOVERFLOW : (int)pos;
}
