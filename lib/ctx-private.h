/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ctx-private.h — the inside of a struct fsn_ctx, shared by ctx.c (its
 * life and log), group.c (fanotify groups), mark.c (marks and the kernel
 * objects they share), dispatch.c (reading and handing out events), perm.c
 * (permission responses), path.c (mount fds and FID -> path resolution),
 * fidcache.c (struct fsn_fidcache, the internal FID -> path cache path.c
 * keeps one of: fidcache-private.h). Their lookups go through the intrusive
 * hash table of shared/hashmap.h, which the daemon uses too.
 *
 * Ownership in one picture:
 *
 *   fsn_ctx ── groups ──▶ fsn_group (one fanotify fd; refcounted: the
 *      │                   context holds one reference while the group has
 *      │                   marks, every struct fsn_perm holds one)
 *      ├── objs ───────▶ fsn_obj (one kernel mark or inotify watch: what the
 *      │                   kernel was told) ── marks ──▶ fsn_mark (one
 *      │                   fsn_ctx_add_mark() call: what the caller asked)
 *      ├── mounts ─────▶ fsn_mount (per fsid: an fd on a mount root)
 *      └── fidcache ───▶ fsn_fidcache (fidcache.c: FID -> path, LRU,
 *                          FSN_FID_CACHE_MAX entries: tag 0 the last known
 *                          path of each FID resolved, tag = a group's id the
 *                          directory paths that group keeps right)
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/fanotify.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fidcache-private.h"
#include "fsn-private.h"
#include "hashmap.h"

/* steal_fd() without a statement expression (-Wpedantic under -Werror) */
static inline int take_fd(int *fd) {
	int r = *fd;

	*fd = -1;
	return r;
}

/* ---- groups, kernel objects, marks ---- */

/* How far a source's queue was taken, for fsn_ctx_queue_mark(): in the
 * units its FIONREAD counts (fanotify: events; inotify: bytes), read from
 * its fd (by dispatch, or by the reader thread under its io lock) and
 * handed out since (dispatch). */
struct fsn_queue_count {
	_Atomic uint64_t read;
	uint64_t handed;
};

/* The units of n bytes read from a source (fan: a fanotify group's). */
uint64_t fsn_queue_units(bool fan, const void *buf, size_t n);

struct fsn_group {
	struct fsn_ctx *ctx; /* NULL once detached (no marks left, or context freed) */
	struct fsn_group *next;
	unsigned id;    /* >= 1; also the epoll data of its fd (0 is the inotify fd) */
	unsigned n_ref; /* the context's (while attached), one per fsn_perm, dispatch pins */
	unsigned n_objs;
	int fd;
	enum fsn_class klass;
	uint32_t report;
	uint32_t tag;
	bool audit;         /* created with FAN_ENABLE_AUDIT, so FAN_AUDIT responses work */
	unsigned queue_max; /* its kernel queue's length as created; 0: unlimited */
	bool in_reader;     /* its fd is read by the reader thread (ctx->reader) */
	struct fsn_queue_count q;
	/* the filesystems (fsids) where it sees every directory move, for
	 * its cached directory paths (path.c); !moves_known: to work out
	 * again (its filesystem marks changed) */
	bool moves_known;
	int32_t (*moves)[2];
	size_t n_moves;
};

/* How an object's ignore mask was handed to the kernel. */
enum fsn_ignore_mode {
	FSN_IGN_NONE = 0,    /* no ignore mask yet */
	FSN_IGN_NEW,         /* FAN_MARK_IGNORE_SURV */
	FSN_IGN_LEGACY_SURV, /* FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORED_SURV_MODIFY */
	FSN_IGN_LEGACY,      /* FAN_MARK_IGNORED_MASK (cleared by MODIFY) */
};

/* One kernel mark (fanotify) or watch (inotify). */
struct fsn_obj {
	struct fsn_hnode by_key; /* ctx->objs_by_key (fanotify) */
	struct fsn_hnode by_wd;  /* ctx->objs_by_wd (inotify, while not dead) */
	struct fsn_obj *prev, *next;
	struct fsn_group *group; /* NULL for inotify */
	enum fsn_mark_type type;

	/* identity: dev+ino (inode, inotify), mnt_id (mount), dev (filesystem);
	 * the file handle, when the filesystem gives one, tells a reused inode
	 * number apart */
	dev_t dev;
	ino_t ino;
	uint64_t mnt_id;
	bool has_handle;
	struct fsn_fid handle; /* fsid + handle */
	bool has_mount;        /* holds a reference on ctx->mounts[handle.fsid] */

	int wd;    /* inotify */
	bool dead; /* inotify: IN_IGNORED was dispatched, the wd is gone */

	uint64_t kmask, kignore; /* what the kernel was told */
	enum fsn_ignore_mode ign_mode;
	bool kevictable;

	struct fsn_mark *marks, *marks_tail; /* oldest first; the tail: O(1) appends */
	unsigned n_marks;
};

struct fsn_mark {
	struct fsn_mark_spec spec; /* spec.path points to our copy */
	char *abspath;             /* the object's path when marked, to reach it again */
	struct fsn_obj *obj;
	struct fsn_mark *prev, *next;
	uint64_t mask, ignore; /* the bits this mark adds to its object's kernel masks */
	enum fsn_ignore_mode ign_mode;
};

/* The event a callback is looking at. */
struct fsn_pending_event {
	struct fsn_event ev;
	struct fsn_group *group;
	int perm_fd;     /* fd number to answer with; -1 if not a permission event */
	bool answered;   /* answered or taken (fsn_event_take_perm) */
	unsigned n_held; /* its fds counted in ctx->budget (fdbudget.c) */
	bool fd_to_perm; /* its fd went to a struct fsn_perm, still counted there */
	bool queued;     /* its answer waits in ctx->answers (entry queue_idx) */
	bool flushed;    /* ... was written from its callback: its fd is ours again */
	size_t queue_idx;
	/* the read it is of (fanotify): its buffer, where the next event
	 * starts and where the read ends (fsn_ctx_name_taken_later()) */
	const void *buf;
	size_t next, len;
};

/* perm.c: the plain answers given during the dispatch of one read, written
 * together (one writev(): the kernel takes a response per iovec), then
 * their events' fds closed. */
#define FSN_ANSWERS_MAX (FSN_READ_BUF_SIZE / FAN_EVENT_METADATA_LEN)

struct fsn_answers {
	struct fsn_group *group; /* all of one group; NULL: none queued */
	size_t n;
	struct fanotify_response *resp; /* FSN_ANSWERS_MAX each, allocated on first use */
	struct iovec *iov;
	bool *counted; /* resp[i].fd counted in the context's budget */
	bool *owned;   /* resp[i].fd is the library's to close after the write */
};

/* ---- path.c ---- */

struct fsn_mount {
	struct fsn_hnode node;
	int32_t fsid[2];
	/* The root dir of the first marked mount of this fs, O_RDONLY: open
	 * only while events are being handled (fsn_ctx_mounts_release() at
	 * the end of each dispatch), so the daemon never keeps a filesystem
	 * busy (umount: EBUSY). -1 while closed; root: how to open it again
	 * (NULL: its path was unknown, so fd stays open). */
	int fd;
	char *root;
	unsigned n_ref;
};

#define FSN_READ_BUF_SIZE (64 * 1024)

/* ---- fdbudget.c: event fds against free fds (struct fsn_fd_budget) ---- */

struct fsn_fd_budget {
	_Atomic unsigned max;  /* 0: not known, count the free fds */
	_Atomic unsigned held; /* event fds held, and room reserved for a read */
	_Atomic unsigned n_ref;
};

/* The fds of g's events the budget counts (an fd-mode group's event fds
 * and pidfds): 0 for a FID group. */
unsigned fsn_group_fds_per_event(const struct fsn_group *g);
/* What one event of g holds: its fd and pidfd, when open. */
unsigned fsn_event_fds(const struct fsn_group *g, const struct fsn_event *ev);
/* The length one read() of group g may ask for: FSN_READ_BUF_SIZE, or for
 * an fd-mode group no more events than there are free fds (b's room, or
 * counted when b is NULL or its max 0), at most cap; 0 if none is free.
 * Less than cap: bounded by the fds (a read that fills it may leave events
 * queued). *ret_reserved:
 * the fds taken from b for the read, for fsn_fd_budget_read_done(). */
size_t fsn_group_read_len(struct fsn_fd_budget *b, const struct fsn_group *g, size_t cap,
			  unsigned *ret_reserved);
/* After that read (n bytes, 0 if it failed): b holds what it got instead
 * of what was reserved. */
void fsn_fd_budget_read_done(struct fsn_fd_budget *b, const struct fsn_group *g, const void *buf,
			     size_t n, unsigned reserved);
/* n fds closed or given away. Accepts NULL. */
void fsn_fd_budget_release(struct fsn_fd_budget *b, unsigned n);
/* The events in buf[0, len) of a FID group with FAN_REPORT_PIDFD, just
 * read by the reader thread: each pidfd kept while b has room for it
 * (counted), else closed at once, FAN_EPIDFD in its place. (The kernel
 * made one per event as it copied: a read of FSN_READ_BUF_SIZE, up to
 * FSN_READ_PIDFDS_MAX at once, is the caller's to allow for.) */
#define FSN_READ_PIDFDS_MAX                                                                        \
	(FSN_READ_BUF_SIZE /                                                                       \
	 (FAN_EVENT_METADATA_LEN + sizeof(struct fanotify_event_info_pidfd) +                      \
	  sizeof(struct fanotify_event_info_fid) + sizeof(struct file_handle)))
void fsn_pidfds_ration(struct fsn_fd_budget *b, void *buf, size_t len);
/* Every pidfd of such events closed and given back to b (a buffer nobody
 * will hand out). */
void fsn_pidfds_close(struct fsn_fd_budget *b, void *buf, size_t len);

/* ---- reader.c: the kernel queues drained on a thread (fsn_ctx_set_reader()) ---- */

/* What one read() of a source got, queued for dispatch. */
struct fsn_chunk {
	struct fsn_chunk *next;
	unsigned src; /* group id, 0 = inotify */
	bool pidfds;  /* its events may hold pidfds (FAN_REPORT_PIDFD), counted in a budget */
	size_t off;   /* handed out up to here */
	size_t len;   /* bytes read */
	size_t size;  /* allocated, header included (what the bound counts) */
	_Alignas(64) unsigned char data[];
};

struct fsn_reader;
/* Start a thread that queues at most max bytes; its eventfd joins ctx_epfd
 * (epoll data epoll_id), readable while chunks are queued. */
int fsn_reader_new(size_t max, int ctx_epfd, uint64_t epoll_id, struct fsn_reader **ret);
/* Stop the thread (what it queued stays, for fsn_reader_take()). */
void fsn_reader_stop(struct fsn_reader *rd);
struct fsn_reader *fsn_reader_free(struct fsn_reader *rd);
bool fsn_reader_running(const struct fsn_reader *rd);
void fsn_reader_set_max(struct fsn_reader *rd, size_t max);
/* The thread reads fd (source src) from now on; pidfds: its events carry
 * pidfds (a FID group with FAN_REPORT_PIDFD), which the thread keeps while
 * the reader's budget has room and else closes (FAN_EPIDFD in the event). */
int fsn_reader_add(struct fsn_reader *rd, unsigned src, int fd, bool pidfds,
		   struct fsn_queue_count *q);
/* The fd budget the thread counts the pidfds it keeps in (borrowed: the
 * context's, set before it changes). */
void fsn_reader_set_budget(struct fsn_reader *rd, struct fsn_fd_budget *b);
/* A chunk of a pidfd source handed back unread from off: its pidfds closed
 * and given back to b. */
void fsn_chunk_close_pidfds(struct fsn_fd_budget *b, struct fsn_chunk *c);
/* It no longer does (returns after a read in progress); src's queued
 * chunks are dropped when drop. */
void fsn_reader_remove(struct fsn_reader *rd, unsigned src, bool drop);
/* The oldest queued chunk (NULL: none), then fsn_reader_done() with it. */
struct fsn_chunk *fsn_reader_take(struct fsn_reader *rd);
void fsn_reader_done(struct fsn_reader *rd, struct fsn_chunk *c);
/* Nothing queued, and the thread waits for the kernel (or is stopped). */
bool fsn_reader_idle(struct fsn_reader *rd);
/* Idle, and none of its sources readable now: everything the kernel had
 * queued before the call is handed over (and taken, when nothing is
 * queued). */
bool fsn_reader_drained(struct fsn_reader *rd);
/* Hold the thread's io lock (no read in progress or begun meanwhile), or
 * let it go. */
void fsn_reader_hold_io(struct fsn_reader *rd, bool hold);
/* A read of a source failed (not EAGAIN): the thread dropped it; -errno
 * and *ret_src once, else 0. */
int fsn_reader_failed(struct fsn_reader *rd, unsigned *ret_src);
void fsn_reader_get_stats(struct fsn_reader *rd, struct fsn_reader_stats *ret);
#define FSN_FID_CACHE_MAX 65536 /* entries of ctx->fidcache (fsn.h says 65536) */
#define FSN_FID_CACHE_TAG 0

struct fsn_ctx {
	int epfd;
	int ifd; /* inotify, -1 until the first watch */
	fsn_log_fn log_fn;
	void *log_userdata;

	struct fsn_group *groups;
	unsigned next_group_id;
	struct fsn_obj *objs;
	struct fsn_hmap objs_by_key;
	struct fsn_hmap objs_by_wd;
	int ignore_new;     /* FAN_MARK_IGNORE: -1 not tried yet, 1 works, 0 EINVAL (legacy only) */
	unsigned queue_max; /* fsn_ctx_set_queue_max(); 0: the system's */
	bool queue_warned;  /* said once that the sysctl cannot be set */
	bool warned_no_fds; /* said once that an fd-mode group waits for fds */
	bool fd_starved;    /* the last dispatch left fd-mode events queued (no free fd) */
	unsigned ifd_queue; /* the inotify instance's queue length as created */
	struct fsn_queue_count ifd_q;
	bool ifd_in_reader; /* the reader thread reads ifd */

	/* dispatch */
	void *buf;         /* FSN_READ_BUF_SIZE, aligned */
	unsigned pend_src; /* source (group id, 0 = inotify) of the undispatched */
	size_t pend_off;   /* rest buf[pend_off, pend_len) after a callback failed; */
	size_t pend_len;   /* pend_len == 0: nothing pending */
	int pend_efd;      /* eventfd in the epoll set, readable while something is pending */
	struct fsn_reader *reader; /* fsn_ctx_set_reader(); NULL: dispatch reads the fds */
	struct fsn_chunk *chunk;   /* reader: a chunk handed out in part (pend_efd set) */
	struct fsn_pending_event *cur;
	struct fsn_fd_budget *budget; /* fsn_ctx_set_fd_budget(); NULL: count free fds */
	struct fsn_answers answers;   /* perm.c */

	/* path.c */
	int proc_fd_dir; /* /proc/self/fd, -1 until fsn_ctx_fd_path() needs it */
	struct fsn_hmap mounts;
	bool mounts_open;              /* some mount fd is open (fsn_ctx_mounts_release()) */
	struct fsn_fidcache *fidcache; /* tag 0, and the groups' ids (path.c) */
};

/* group.c */
struct fsn_group *fsn_group_ref(struct fsn_group *g);
void fsn_group_unref(struct fsn_group *g);
struct fsn_group *fsn_group_by_id(const struct fsn_ctx *ctx, unsigned id);
struct fsn_group *fsn_group_find(const struct fsn_ctx *ctx, enum fsn_class klass, uint32_t report,
				 uint32_t tag);
/* A new group in the context, its fd watched (fsn_ctx_source_watch()). */
int fsn_group_new(struct fsn_ctx *ctx, enum fsn_class klass, uint32_t report, uint32_t tag,
		  struct fsn_group **ret);
/* Take a group out of the context (its last object went, or the context is
 * freed) and drop the context's reference. */
void fsn_group_detach(struct fsn_ctx *ctx, struct fsn_group *g);
/* Answer and close the (not handed out) fanotify events of g in buf[off,
 * len), whose fds budget b counts. */
void fsn_group_release_events(struct fsn_fd_budget *b, struct fsn_group *g, const void *buf,
			      size_t off, size_t len);
/* Events of g carry no fd: the reader thread may hold them. */
bool fsn_group_drainable(const struct fsn_group *g);

/* The kernel queue's length (fsn_ctx_set_queue_max()): the sysctl is set
 * to the context's length around the creation of a group or of the
 * inotify instance, under a process-wide lock. */
#define FANOTIFY_QUEUE_SYSCTL "/proc/sys/fs/fanotify/max_queued_events"
#define INOTIFY_QUEUE_SYSCTL "/proc/sys/fs/inotify/max_queued_events"

struct fsn_queue_len {
	const char *file;
	unsigned old; /* what to write back; 0: nothing */
	unsigned len; /* what the group will get */
};

/* Before the creation (file NULL: an unlimited queue, nothing to do);
 * takes the lock, fsn_queue_len_end() releases it. */
void fsn_queue_len_begin(struct fsn_ctx *ctx, const char *file, struct fsn_queue_len *q);
void fsn_queue_len_end(struct fsn_queue_len *q);

/* mark.c */
/* The live inotify object of watch descriptor wd, or NULL. */
struct fsn_obj *fsn_obj_by_wd(const struct fsn_ctx *ctx, int wd);
/* Mark an inotify object dead: its wd is gone in the kernel. */
void fsn_obj_kill(struct fsn_ctx *ctx, struct fsn_obj *o);
/* Free every mark and object, telling the kernel nothing (fsn_ctx_free()). */
void fsn_ctx_marks_free(struct fsn_ctx *ctx);

/* dispatch.c */
/* Watch source src (a group's id, 0: the inotify fd) fd: in the reader
 * thread if drainable and it runs (*in_reader), else in the epoll set. q:
 * the source's count of what was read. */
int fsn_ctx_source_watch(struct fsn_ctx *ctx, unsigned src, int fd, bool drainable, bool pidfds,
			 struct fsn_queue_count *q, bool *in_reader);
/* Before fd is closed: nobody reads it any more; what the reader thread
 * queued of it is dropped. */
void fsn_ctx_source_unwatch(struct fsn_ctx *ctx, unsigned src, int fd);
/* Nothing read is pending any more (ctx->pend_*). */
void fsn_ctx_pend_clear(struct fsn_ctx *ctx);

/* perm.c: whether mask holds a permission event */
bool fsn_mask_is_perm(uint64_t mask);

/* perm.c: write a response for the event fd `fd` of group g. Falls back to
 * the plain verdict (and returns -EOPNOTSUPP) when the kernel rejects
 * FAN_DENY_ERRNO or FAN_AUDIT. */
int fsn_perm_write(struct fsn_group *g, int fd, enum fsn_verdict v, int err, bool audit);
/* Queue the plain answer v of the callback's event pe (its fd still the
 * library's): written and its fd closed by fsn_answers_flush(); false when
 * it cannot be queued (write it now). */
bool fsn_answer_queue(struct fsn_ctx *ctx, struct fsn_pending_event *pe, enum fsn_verdict v);
/* After pe's callback: whether the queued answers close its fd (false: the
 * callback took it after answering); counted in the budget until then. */
bool fsn_answer_keeps_fd(struct fsn_ctx *ctx, struct fsn_pending_event *pe);
/* Write what is queued, close those events' fds, give them back to the
 * budget. Failures are logged. */
void fsn_answers_flush(struct fsn_ctx *ctx);
/* Room for a read's answers (once per context: not on the event path). */
int fsn_answers_alloc(struct fsn_answers *a);
void fsn_answers_free(struct fsn_answers *a);

/* path.c */
/* The FID of the object fd refers to (name_to_handle_at() plus fstatfs()'s
 * f_fsid, the fsid fanotify reports). */
int fsn_fid_from_fd(int fd, struct fsn_fid *ret);
/* statfs f_fsid of fd's filesystem. */
int fsn_fsid_from_fd(int fd, int32_t ret_fsid[2]);
/* open_by_handle_at() of fid on mount_fd; an fd or -errno. */
int fsn_fid_open(int mount_fd, const struct fsn_fid *fid, int flags);
/* Take a reference on the mount fd entry for the filesystem fd lives on
 * (opening the root of fd's mount if this is the first). abspath is fd's
 * path, used to find the parent of a non-directory. */
int fsn_ctx_mount_ref(struct fsn_ctx *ctx, int fd, const char *abspath, const int32_t fsid[2]);
void fsn_ctx_mount_unref(struct fsn_ctx *ctx, const int32_t fsid[2]);
/* The mount fd for fsid, or -ENODEV. */
int fsn_ctx_mount_fd(struct fsn_ctx *ctx, const int32_t fsid[2]);
/* Close the mount fds opened since the last call (their roots stay known). */
void fsn_ctx_mounts_release(struct fsn_ctx *ctx);
/* After the callback of group g's event ev: forget the group's cached
 * directory paths it made stale (a directory moved, renamed or deleted; an
 * overflow). The one place that keeps the cache right. */
void fsn_ctx_dir_cache_after(struct fsn_ctx *ctx, struct fsn_group *g, const struct fsn_event *ev);
/* Close all mount fds and free the FID cache. */
void fsn_ctx_paths_done(struct fsn_ctx *ctx);
