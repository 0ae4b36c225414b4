/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perm.c — answering permission events: from inside a dispatch callback
 * (fsn_ctx_respond()), or later through a struct fsn_perm taken out of it.
 *
 * A response is struct fanotify_response written to the group fd. The plain
 * answers given in the callbacks of one read (and the FAN_ALLOW of those
 * left unanswered) are queued and written together when the read's events
 * are handed out (or fsn_ctx_flush() asks), one writev() for all, and only
 * then are their events' fds closed: the kernel finds an event by its fd
 * number, which a close would free for the next event. What the
 * kernel may reject is tried first and dropped on EINVAL: FAN_AUDIT (needs a
 * group created with FAN_ENABLE_AUDIT) and FAN_DENY_ERRNO() (6.14+, and
 * only for pre-content groups), so the blocked process always gets an
 * answer. A struct fsn_perm holds a reference on its group, which keeps the
 * group fd open (and the event answerable) even after the group's marks
 * were removed or the context was freed.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/uio.h>
#include <syslog.h>

#include "ctx-private.h"

struct fsn_perm {
	struct fsn_group *group;
	int fd;                       /* the event fd number, used in the response */
	bool own_fd;                  /* fd is ours to close (the caller did not take it) */
	struct fsn_fd_budget *budget; /* counts fd until it is closed; NULL: none does */
};

bool fsn_mask_is_perm(uint64_t mask) {
	return mask & (FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM | FAN_PRE_ACCESS);
}

static int write_response(int group_fd, int fd, uint32_t response) {
	struct fanotify_response resp = { .fd = fd, .response = response };
	ssize_t n;

	do
		n = write(group_fd, &resp, sizeof(resp));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	return (size_t)n == sizeof(resp) ? 0 : -EIO;
}

int fsn_perm_write(struct fsn_group *g, int fd, enum fsn_verdict v, int err, bool audit) {
	uint32_t plain = v == FSN_ALLOW ? FAN_ALLOW : FAN_DENY, want = plain, tries[3];
	bool dropped = false;
	size_t n = 0;

	/* FAN_DENY already means EPERM; an errno that does not fit the
	 * response is treated like one the kernel refuses. */
	if (v == FSN_DENY && err != 0 && err != EPERM) {
		if (err > 0 && err <= FAN_ERRNO_MASK)
			want = FAN_DENY_ERRNO(err);
		else
			dropped = true;
	}
	if (audit) {
		if (g->audit)
			tries[n++] = want | FAN_AUDIT;
		else
			dropped = true;
	}
	tries[n++] = want;
	if (want != plain)
		tries[n++] = plain;

	for (size_t i = 0; i < n; i++) {
		int r = write_response(g->fd, fd, tries[i]);

		if (r == -EINVAL && i + 1 < n)
			continue;
		if (r < 0)
			return r;
		return dropped || i > 0 ? -EOPNOTSUPP : 0;
	}
	return -EINVAL; /* not reached */
}

/* ---- answers queued during a dispatch ---- */

int fsn_answers_alloc(struct fsn_answers *a) {
	if (a->resp)
		return 0;
	a->resp = calloc(FSN_ANSWERS_MAX, sizeof(*a->resp));
	a->iov = calloc(FSN_ANSWERS_MAX, sizeof(*a->iov));
	a->counted = calloc(FSN_ANSWERS_MAX, sizeof(*a->counted));
	a->owned = calloc(FSN_ANSWERS_MAX, sizeof(*a->owned));
	if (a->resp && a->iov && a->counted && a->owned)
		return 0;
	fsn_answers_free(a);
	return -ENOMEM;
}

void fsn_answers_free(struct fsn_answers *a) {
	free(a->resp);
	free(a->iov);
	free(a->counted);
	free(a->owned);
	*a = (struct fsn_answers){ 0 };
}

bool fsn_answer_queue(struct fsn_ctx *ctx, struct fsn_pending_event *pe, enum fsn_verdict v) {
	struct fsn_answers *a = &ctx->answers;

	if (pe->ev.fd != pe->perm_fd || fsn_answers_alloc(a) < 0)
		return false; /* (a taken fd may be closed before a flush) */
	if ((a->group && a->group != pe->group) || a->n == FSN_ANSWERS_MAX)
		fsn_answers_flush(ctx);
	a->group = pe->group;
	a->resp[a->n] =
	    (struct fanotify_response){ .fd = pe->perm_fd,
					.response = v == FSN_ALLOW ? FAN_ALLOW : FAN_DENY };
	a->iov[a->n] = (struct iovec){ .iov_base = &a->resp[a->n], .iov_len = sizeof(a->resp[0]) };
	a->counted[a->n] = pe->n_held > 0;
	a->owned[a->n] = true;
	pe->queue_idx = a->n++;
	pe->queued = true;
	return true;
}

bool fsn_answer_keeps_fd(struct fsn_ctx *ctx, struct fsn_pending_event *pe) {
	struct fsn_answers *a = &ctx->answers;

	if (!pe->queued || pe->flushed)
		return false;
	if (pe->ev.fd != pe->perm_fd) {
		/* taken after the answer: the caller's to close, not counted */
		a->owned[pe->queue_idx] = false;
		a->counted[pe->queue_idx] = false;
		return false;
	}
	return true;
}

void fsn_answers_flush(struct fsn_ctx *ctx) {
	struct fsn_answers *a = &ctx->answers;
	size_t done = 0;

	if (a->n == 0)
		return;
	/* fanotify has no write_iter: writev() hands each iovec to its write()
	 * in turn and stops at the first that fails */
	while (done < a->n) {
		size_t k = a->n - done < IOV_MAX ? a->n - done : IOV_MAX;
		ssize_t w;

		do
			w = writev(a->group->fd, a->iov + done, (int)k);
		while (w < 0 && errno == EINTR);
		if (w > 0 && w % (ssize_t)sizeof(a->resp[0]) == 0) {
			done += (size_t)w / sizeof(a->resp[0]);
			continue;
		}
		if (w >= 0)
			errno = EIO;
		{
			char ebuf[128];

			fsn_ctx_log(ctx, LOG_ERR, "fanotify group %u: answering event fd %d: %s",
				    a->group->id, a->resp[done].fd,
				    strerror_r(errno, ebuf, sizeof(ebuf)));
		}
		done++; /* (the kernel refused this one: go on with the next) */
	}
	for (size_t i = 0; i < a->n; i++) {
		struct fsn_pending_event *cur = ctx->cur;

		/* the callback's own event keeps its fd until it returns */
		if (cur && cur->queued && !cur->flushed && cur->queue_idx == i) {
			cur->flushed = true;
			continue;
		}
		if (a->owned[i])
			safe_close(a->resp[i].fd);
		fsn_fd_budget_release(ctx->budget, a->counted[i]);
	}
	a->n = 0;
	a->group = NULL;
}

_public_ int fsn_ctx_flush(struct fsn_ctx *ctx) {
	if (!ctx)
		return -EINVAL;
	fsn_answers_flush(ctx);
	return 0;
}

/* The callback's event, if it is an unanswered permission event. */
static struct fsn_pending_event *pending_perm(struct fsn_ctx *ctx, const struct fsn_event *ev) {
	struct fsn_pending_event *pe = ctx ? ctx->cur : NULL;

	if (!pe || !ev || &pe->ev != ev || pe->perm_fd < 0 || pe->answered)
		return NULL;
	return pe;
}

_public_ int fsn_ctx_respond(struct fsn_ctx *ctx, struct fsn_event *ev, enum fsn_verdict v, int err,
			     bool audit) {
	struct fsn_pending_event *pe = pending_perm(ctx, ev);

	if (!pe || (v != FSN_ALLOW && v != FSN_DENY))
		return -EINVAL;
	pe->answered = true;
	/* a plain verdict goes with the read's other answers */
	if (!audit && (v == FSN_ALLOW || err == 0 || err == EPERM) && fsn_answer_queue(ctx, pe, v))
		return 0;
	return fsn_perm_write(pe->group, pe->perm_fd, v, err, audit);
}

_public_ int fsn_event_take_perm(struct fsn_ctx *ctx, struct fsn_event *ev, struct fsn_perm **ret) {
	struct fsn_pending_event *pe = pending_perm(ctx, ev);
	struct fsn_perm *p;

	if (!pe || !ret)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->group = fsn_group_ref(pe->group);
	p->fd = pe->perm_fd;
	/* if the callback took the fd first, it stays the caller's */
	p->own_fd = ev->fd == pe->perm_fd;
	if (p->own_fd) {
		ev->fd = -1;
		/* (still counted: in p's budget now, not the event's) */
		if (pe->n_held > 0) {
			p->budget = fsn_fd_budget_ref(ctx->budget);
			pe->fd_to_perm = true;
		}
	}
	pe->answered = true;
	*ret = p;
	return 0;
}

static void perm_release(struct fsn_perm *p) {
	if (p->own_fd)
		safe_close(p->fd);
	fsn_fd_budget_release(p->budget, 1);
	fsn_fd_budget_unref(p->budget);
	fsn_group_unref(p->group);
	free(p);
}

_public_ int fsn_perm_respond(struct fsn_perm *p, enum fsn_verdict v, int err, bool audit) {
	int r;

	if (!p)
		return -EINVAL;
	if (v != FSN_ALLOW && v != FSN_DENY) {
		/* still answered and freed, as fsn_perm_free() does */
		(void)fsn_perm_write(p->group, p->fd, FSN_ALLOW, 0, false);
		r = -EINVAL;
	} else
		r = fsn_perm_write(p->group, p->fd, v, err, audit);
	perm_release(p);
	return r;
}

_public_ struct fsn_perm *fsn_perm_free(struct fsn_perm *p) {
	if (p) {
		(void)fsn_perm_write(p->group, p->fd, FSN_ALLOW, 0, false);
		perm_release(p);
	}
	return NULL;
}

_public_ int fsn_perm_get_fd(const struct fsn_perm *p) {
	return p ? p->fd : -EINVAL;
}
