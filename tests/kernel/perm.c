/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perm.c — permission events: answering one, waiting for a child's event
 * in a group while proving the child blocked and the other groups quiet,
 * and letting a child through several groups in the order the kernel asks
 * them (by class: PRE_CONTENT before CONTENT).
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "selftest-private.h"

void fst_respond_(struct fst_ctx *ctx, int fanfd, struct fst_event *e, uint32_t response,
		  const char *file, int line) {
	struct fanotify_response r = { .fd = e->ev.fd, .response = response };

	fst_checkpoint(file, line);
	if (e->ev.fd < 0)
		fst_fail_(ctx, file, line, "fst_respond: the event has no open fd (mask %s)",
			  fst_mask_str(FSN_MASK_FANOTIFY_EVENT, e->ev.mask));
	if (write(fanfd, &r, sizeof(r)) != sizeof(r))
		fst_fail_(ctx, file, line, "writing response 0x%x for fd %d: %s", response,
			  e->ev.fd, fst_errname(errno));
	close(e->ev.fd);
	e->ev.fd = -1;
}

struct fst_event *fst_perm_event_(struct fst_ctx *ctx, int g, struct fst_child *c,
				  const struct fst_exp *x, const int *quiet, size_t nquiet,
				  const char *file, int line) {
	struct fst_events *e;

	fst_wait_readable_(ctx, g, FST_WAIT_MS, file, line);
	e = fst_expect_(ctx, g, x, 1, "permission group", file, line);
	for (size_t i = 0; i < nquiet; i++)
		fst_expect_(ctx, quiet[i], NULL, 0, "another group while the child waits", file,
			    line);
	fst_child_blocked_(ctx, c, 1, file, line);
	return &e->e[0];
}

#define FST_MAX_GROUPS 16

size_t fst_wait_any_(struct fst_ctx *ctx, const int *gs, size_t n, const char *file, int line) {
	struct pollfd p[FST_MAX_GROUPS];
	int r;

	fst_checkpoint(file, line);
	if (n > FST_MAX_GROUPS)
		fst_fail_(ctx, file, line, "fst_wait_any: more than %d groups", FST_MAX_GROUPS);
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = gs[i], .events = POLLIN };
	do
		r = poll(p, n, FST_WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		fst_fail_(ctx, file, line, "poll: %s", fst_errname(errno));
	for (size_t i = 0; i < n && r > 0; i++)
		if (p[i].revents & POLLIN)
			return i;
	fst_fail_(ctx, file, line, "no event in any of %zu groups within %d ms", n, FST_WAIT_MS);
}

/* FAN_CLASS_* of a group: the order in which permission groups are asked. */
static unsigned group_class(struct fst_ctx *ctx, int fd) {
	unsigned flags;

	fst_fd_kind(ctx, fd, &flags);
	return flags & (FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT);
}

static const char *class_str(unsigned cl) {
	return cl == FAN_CLASS_PRE_CONTENT ? "PRE_CONTENT"
	       : cl == FAN_CLASS_CONTENT   ? "CONTENT"
					   : "NOTIF";
}

void fst_allow_all_(struct fst_ctx *ctx, struct fst_child *c, const int *gs, size_t n,
		    const struct fst_exp *x, const char *file, int line) {
	bool done[FST_MAX_GROUPS] = { false };
	int quiet[FST_MAX_GROUPS];

	if (n > FST_MAX_GROUPS)
		fst_fail_(ctx, file, line, "fst_allow_all: more than %d groups", FST_MAX_GROUPS);
	for (size_t k = 0; k < n; k++) {
		size_t i = fst_wait_any_(ctx, gs, n, file, line), nq = 0;

		if (done[i]) /* asked twice: fails, listing the event */
			fst_expect_(ctx, gs[i], NULL, 0, "group asked a second time", file, line);
		for (size_t j = 0; j < n; j++) {
			if (!done[j] && group_class(ctx, gs[j]) > group_class(ctx, gs[i]))
				fst_fail_(ctx, file, line,
					  "child %s: group %zu (%s) asked before group %zu (%s)",
					  c->what, i, class_str(group_class(ctx, gs[i])), j,
					  class_str(group_class(ctx, gs[j])));
			if (j != i)
				quiet[nq++] = gs[j];
		}
		fst_respond_(ctx, gs[i], fst_perm_event_(ctx, gs[i], c, x, quiet, nq, file, line),
			     FAN_ALLOW, file, line);
		done[i] = true;
	}
	fst_child_expect_(ctx, c, 0, file, line);
	for (size_t i = 0; i < n; i++)
		fst_expect_(ctx, gs[i], NULL, 0, "permission group after the answers", file, line);
}
