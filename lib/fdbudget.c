/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fdbudget.c — how many events of an fd-mode group one read() may take:
 * each comes with an fd the kernel opens while it copies the event (and a
 * pidfd with FAN_REPORT_PIDFD), and out of fds it drops a notification
 * event or denies a permission event's opener. struct fsn_fd_budget is the
 * caller's word on how many such fds libfsn may hold; without it (or with
 * a budget of 0) the free fds are counted before each read.
 *
 * The count. A read reserves room in the budget first (a compare-and-swap
 * on held, so contexts of several threads sharing a budget never read more
 * than it has between them), reads no more events than that room, then
 * keeps what the events it got hold (fsn_fd_budget_read_done(): their
 * fds, counted from the metadata, or by decoding the buffer when events
 * carry pidfds too) and gives back the rest. Each fd is
 * given back once: when libfsn closes it (after the callback, releasing
 * events nobody will see, a taken permission event answered or freed), or
 * when the caller takes it. A record the decoder rejects ends the read's
 * dispatch: the fds of what follows it cannot be known and are never
 * closed, so they stay counted, as many as the bytes could hold.
 */
#include <dirent.h>
#include <limits.h>
#include <stdatomic.h>
#include <sys/fanotify.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <limits.h>

#include "ctx-private.h"

/* Leave this many fds of RLIMIT_NOFILE alone when counting (the listing's
 * own fd, "." and "..", and a little for the caller's next opens). */
#define COUNT_MARGIN 16

_public_ int fsn_fd_budget_new(unsigned max, struct fsn_fd_budget **ret) {
	struct fsn_fd_budget *b;

	if (!ret)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	atomic_init(&b->max, max);
	atomic_init(&b->held, 0);
	atomic_init(&b->n_ref, 1);
	*ret = b;
	return 0;
}

_public_ struct fsn_fd_budget *fsn_fd_budget_ref(struct fsn_fd_budget *b) {
	if (b)
		atomic_fetch_add(&b->n_ref, 1);
	return b;
}

_public_ struct fsn_fd_budget *fsn_fd_budget_unref(struct fsn_fd_budget *b) {
	if (b && atomic_fetch_sub(&b->n_ref, 1) == 1)
		free(b);
	return NULL;
}

_public_ int fsn_fd_budget_set_max(struct fsn_fd_budget *b, unsigned max) {
	if (!b)
		return -EINVAL;
	atomic_store(&b->max, max);
	return 0;
}

_public_ unsigned fsn_fd_budget_get_max(const struct fsn_fd_budget *b) {
	return b ? atomic_load(&((struct fsn_fd_budget *)b)->max) : 0;
}

_public_ unsigned fsn_fd_budget_get_held(const struct fsn_fd_budget *b) {
	return b ? atomic_load(&((struct fsn_fd_budget *)b)->held) : 0;
}

void fsn_fd_budget_release(struct fsn_fd_budget *b, unsigned n) {
	if (b && n > 0)
		atomic_fetch_sub(&b->held, n);
}

/* (a FID group's events carry no fd, but a pidfd with FAN_REPORT_PIDFD) */
static bool fid_group(const struct fsn_group *g) {
	return (g->report & (FAN_REPORT_FID | FAN_REPORT_DIR_FID)) != 0;
}

unsigned fsn_group_fds_per_event(const struct fsn_group *g) {
	if (!g)
		return 0;
	return !fid_group(g) + ((g->report & FAN_REPORT_PIDFD) != 0);
}

unsigned fsn_event_fds(const struct fsn_group *g, const struct fsn_event *ev) {
	if (fsn_group_fds_per_event(g) == 0)
		return 0;
	return (!fid_group(g) && ev->fd >= 0) + ((ev->has & FSN_HAS_PIDFD) && ev->pidfd >= 0);
}

/* Free fds now: RLIMIT_NOFILE minus those open (a listing of
 * /proc/self/fd), less the margin (may be negative); LONG_MAX when there
 * is no limit, -ENOENT when they cannot be counted. */
static long count_free_fds(void) {
	struct rlimit rl;
	long open_fds = 0;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return LONG_MAX;
	d = opendir("/proc/self/fd");
	if (!d)
		return -ENOENT;
	while (readdir(d))
		open_fds++; /* also ".", ".." and d's own fd: part of the margin */
	closedir(d);
	return (long)rl.rlim_cur - open_fds - COUNT_MARGIN;
}

/* Room for up to want fds, taken from b: how many (a multiple of per), or
 * -1 when b has no max (count instead). */
static long reserve(struct fsn_fd_budget *b, unsigned per, unsigned want) {
	unsigned held = atomic_load(&b->held), take;

	for (;;) {
		unsigned max = atomic_load(&b->max);

		if (max == 0)
			return -1;
		take = held < max ? max - held : 0;
		if (take > want)
			take = want;
		take -= take % per;
		if (take == 0)
			return 0;
		if (atomic_compare_exchange_weak(&b->held, &held, held + take))
			return take;
	}
}

/* The smallest event of a group g whose events carry fds: its metadata,
 * and with FAN_REPORT_PIDFD the pidfd record (a read with less room fails;
 * a FID group's events are longer still: a bound from below). */
static size_t min_event_len(const struct fsn_group *g) {
	return FAN_EVENT_METADATA_LEN +
	       ((g->report & FAN_REPORT_PIDFD) ? sizeof(struct fanotify_event_info_pidfd) : 0) +
	       (fid_group(g) ? sizeof(struct fanotify_event_info_fid) + sizeof(struct file_handle)
			     : 0);
}

/* The longest event of a FID group: its metadata, a pidfd record, and up
 * to four FID records (a rename's old and new directories with names, the
 * object's; a margin) each with the longest handle and name. A read that
 * asks for less may get no event at all (EINVAL): a read of a FID group
 * asks for at least this, so it needs room for as many of the smallest. */
#define FID_EVENT_MAX                                                                              \
	(FAN_EVENT_METADATA_LEN + sizeof(struct fanotify_event_info_pidfd) +                       \
	 4 * (sizeof(struct fanotify_event_info_fid) + sizeof(struct file_handle) +                \
	      MAX_HANDLE_SZ + NAME_MAX + 1 + 8))

size_t fsn_group_read_len(struct fsn_fd_budget *b, const struct fsn_group *g, size_t cap,
			  unsigned *ret_reserved) {
	unsigned per = fsn_group_fds_per_event(g);
	size_t ev_len = per ? min_event_len(g) : FAN_EVENT_METADATA_LEN, max_events = cap / ev_len;
	/* the fewest events a read may ask room for (see FID_EVENT_MAX) */
	size_t least = fid_group(g) ? (FID_EVENT_MAX + ev_len - 1) / ev_len : 1;
	long n;

	*ret_reserved = 0;
	/* FAN_REPORT_FD_ERROR: the kernel reports an fd it cannot open as an
	 * error in the event instead of dropping or denying it (a pidfd it
	 * cannot make is FAN_EPIDFD in any group) */
	if (per == 0 || (g->report & FAN_REPORT_FD_ERROR))
		return cap;
	n = b ? reserve(b, per, (unsigned)(max_events * per)) : -1;
	if (n >= 0) {
		if ((size_t)n / per < least) {
			fsn_fd_budget_release(b, (unsigned)n);
			return 0; /* not now: the events wait in the kernel queue */
		}
		*ret_reserved = (unsigned)n;
		return (size_t)n / per * ev_len;
	}
	n = count_free_fds();
	if (n == -ENOENT)
		return least * ev_len; /* cannot count: as few events as can be read */
	n /= per;
	if (n < 1 || (size_t)n < least)
		return 0; /* not now: the events wait in the kernel queue */
	if ((size_t)n >= max_events)
		return cap;
	return (size_t)n * ev_len;
}

void fsn_fd_budget_read_done(struct fsn_fd_budget *b, const struct fsn_group *g, const void *buf,
			     size_t n, unsigned reserved) {
	unsigned per = fsn_group_fds_per_event(g), used = 0;
	size_t off = 0;

	if (!b || per == 0)
		return;
	if (per == 1 && !fid_group(g)) {
		/* no pidfd: the fd is in the metadata (what the decoder would
		 * reject after a valid metadata stays open too: counted) */
		while (n - off >= FAN_EVENT_METADATA_LEN) {
			struct fanotify_event_metadata md;

			memcpy(&md, (const char *)buf + off, sizeof(md));
			if (md.vers != FANOTIFY_METADATA_VERSION || md.event_len < sizeof(md) ||
			    md.event_len > n - off)
				break;
			used += md.fd >= 0;
			off += md.event_len;
		}
		used += (unsigned)((n - off) / FAN_EVENT_METADATA_LEN);
		goto done;
	}
	for (;;) {
		struct fsn_event ev;
		int r = fsn_decode_fanotify(buf, n, &off, &ev);

		if (r == 0)
			break;
		if (r < 0) {
			/* dispatch stops here too: what follows is never closed */
			used += (unsigned)((n - off) / FAN_EVENT_METADATA_LEN) * per;
			break;
		}
		used += fsn_event_fds(g, &ev);
	}
done:
	if (used >= reserved)
		atomic_fetch_add(&b->held, used - reserved);
	else
		atomic_fetch_sub(&b->held, reserved - used);
}

/* Each pidfd of the events in buf[0, len) of a FID group with
 * FAN_REPORT_PIDFD: fn(ctx, &pidfd), which may change it (written back). */
static void pidfds_walk(void *buf, size_t len, void (*fn)(void *ctx, int32_t *pidfd), void *ctx) {
	unsigned char *p = buf;
	size_t off = 0;

	while (len - off >= FAN_EVENT_METADATA_LEN) {
		struct fanotify_event_metadata md;
		size_t rec;

		memcpy(&md, p + off, sizeof(md));
		if (md.vers != FANOTIFY_METADATA_VERSION || md.event_len < md.metadata_len ||
		    md.metadata_len < sizeof(md) || md.event_len > len - off)
			return; /* (the decoder rejects it too: dispatch stops there) */
		for (rec = off + md.metadata_len;
		     rec + sizeof(struct fanotify_event_info_header) <= off + md.event_len;) {
			struct fanotify_event_info_header h;
			struct fanotify_event_info_pidfd info;

			memcpy(&h, p + rec, sizeof(h));
			if (h.len < sizeof(h) || rec + h.len > off + md.event_len)
				break;
			if (h.info_type == FAN_EVENT_INFO_TYPE_PIDFD && h.len >= sizeof(info)) {
				memcpy(&info, p + rec, sizeof(info));
				fn(ctx, &info.pidfd);
				memcpy(p + rec, &info, sizeof(info));
			}
			rec += h.len;
		}
		off += md.event_len;
	}
}

/* What to do with each pidfd: keep it while b has room (counted), else
 * close it (FAN_EPIDFD in its place); or (all) close every one and give it
 * back to b. */
struct keep {
	struct fsn_fd_budget *b;
	bool all;
};

static void keep_one(void *ctx, int32_t *pidfd) {
	struct keep *k = ctx;

	if (*pidfd < 0)
		return;
	if (!k->all && k->b && reserve(k->b, 1, 1) == 1)
		return;
	safe_close(*pidfd);
	*pidfd = FAN_EPIDFD;
	if (k->all)
		fsn_fd_budget_release(k->b, 1);
}

void fsn_pidfds_ration(struct fsn_fd_budget *b, void *buf, size_t len) {
	struct keep k = { .b = b };

	pidfds_walk(buf, len, keep_one, &k);
}

void fsn_pidfds_close(struct fsn_fd_budget *b, void *buf, size_t len) {
	struct keep k = { .b = b, .all = true };

	pidfds_walk(buf, len, keep_one, &k);
}

_Static_assert(FSN_READ_PIDFDS_MAX <= FSN_PIDFDS_PER_READ,
	       "fsn.h's FSN_PIDFDS_PER_READ is too small");
