/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ctx.c — the context's life and its log: fsn_ctx_new() and fsn_ctx_free()
 * (one epoll fd over the fanotify groups, the inotify fd and the context's
 * own eventfds; the read buffer; the FID cache), the caller's log callback,
 * and what the context says of its inotify instance.
 *
 * The rest of the context lives beside it, sharing ctx-private.h: group.c
 * (fanotify groups and their kernel queues), mark.c (marks, combined per
 * kernel object), dispatch.c (reading, decoding and handing out events),
 * perm.c (permission responses) and path.c (paths).
 */
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <syslog.h>

#include "ctx-private.h"

/* ------------------------------------------------------------------------ */
/* logging                                                                  */
/* ------------------------------------------------------------------------ */

void fsn_ctx_log(struct fsn_ctx *ctx, int priority, const char *fmt, ...) {
	_cleanup_free_ char *big = NULL;
	char small[512];
	va_list ap;
	int n;

	if (!ctx || !ctx->log_fn)
		return;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		big = malloc((size_t)n + 1);
		if (big) {
			va_start(ap, fmt);
			vsnprintf(big, (size_t)n + 1, fmt, ap);
			va_end(ap);
		}
	}
	ctx->log_fn(ctx->log_userdata, priority, big ? big : small);
}

/* ------------------------------------------------------------------------ */
/* context                                                                  */
/* ------------------------------------------------------------------------ */

_public_ int fsn_ctx_new(struct fsn_ctx **ret) {
	struct fsn_ctx *ctx;

	if (!ret)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->ifd = -1;
	ctx->pend_efd = -1;
	ctx->proc_fd_dir = -1;
	ctx->ignore_new = -1;
	ctx->next_group_id = 1;
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epfd < 0) {
		int r = negative_errno();

		free(ctx);
		return r;
	}
	ctx->buf = aligned_alloc(64, FSN_READ_BUF_SIZE);
	if (!ctx->buf || fsn_fidcache_new(FSN_FID_CACHE_MAX, &ctx->fidcache) < 0) {
		free(ctx->buf);
		safe_close(ctx->epfd);
		free(ctx);
		return -ENOMEM;
	}
	*ret = ctx;
	return 0;
}

_public_ struct fsn_ctx *fsn_ctx_free(struct fsn_ctx *ctx) {
	if (!ctx)
		return NULL;

	/* (first: it reads the fds closed below) */
	fsn_reader_stop(ctx->reader);
	/* Closing the fds drops every kernel mark and watch; only the
	 * bookkeeping goes here. Groups leave with their last object,
	 * answering what was read but not handed out. */
	fsn_ctx_marks_free(ctx);
	while (ctx->groups)
		fsn_group_detach(ctx, ctx->groups);
	ctx->pend_len = 0; /* inotify events own nothing */
	if (ctx->chunk)
		fsn_reader_done(ctx->reader, ctx->chunk);
	ctx->reader = fsn_reader_free(ctx->reader);

	fsn_answers_free(&ctx->answers);
	fsn_fd_budget_unref(ctx->budget);
	safe_close(ctx->pend_efd);
	safe_close(ctx->ifd);
	safe_close(ctx->proc_fd_dir);
	safe_close(ctx->epfd);
	fsn_ctx_paths_done(ctx);
	fsn_hmap_done(&ctx->objs_by_key);
	fsn_hmap_done(&ctx->objs_by_wd);
	free(ctx->buf);
	free(ctx);
	return NULL;
}

_public_ void fsn_ctx_set_log(struct fsn_ctx *ctx, fsn_log_fn fn, void *userdata) {
	if (!ctx)
		return;
	ctx->log_fn = fn;
	ctx->log_userdata = userdata;
}

_public_ int fsn_ctx_get_fd(const struct fsn_ctx *ctx) {
	return ctx ? ctx->epfd : -EINVAL;
}

_public_ unsigned fsn_ctx_get_inotify_queue_max(const struct fsn_ctx *ctx) {
	return ctx && ctx->ifd >= 0 ? ctx->ifd_queue : 0;
}

_public_ bool fsn_ctx_has_inotify(const struct fsn_ctx *ctx) {
	return ctx && ctx->ifd >= 0;
}

_public_ int fsn_ctx_get_inotify_queued_bytes(const struct fsn_ctx *ctx) {
	int n = 0;

	if (!ctx)
		return -EINVAL;
	if (ctx->ifd < 0)
		return -ENOENT;
	if (ioctl(ctx->ifd, FIONREAD, &n) < 0)
		return negative_errno();
	return n;
}

/* ------------------------------------------------------------------------ */
/* internal accessors for the unit tests                                    */
/* ------------------------------------------------------------------------ */

int fsn_ctx_inotify_fd(const struct fsn_ctx *ctx) {
	return ctx ? ctx->ifd : -1;
}
