/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsn-watch.c — a small libfsn example: print what happens under DIR.
 *
 *   fsn-watch DIR
 *
 * Places one fanotify filesystem mark with FAN_REPORT_DFID_NAME on DIR's
 * filesystem, polls the context fd, resolves each event's directory FID and
 * name to a path with fsn_ctx_fid_path() and prints the events under DIR, one
 * line each: "<events> <path>". Bytes of the path that are not printable
 * ASCII, and the backslash, are printed as \xNN, so a file name cannot start
 * a line of its own. Stops on SIGINT or SIGTERM. Needs CAP_SYS_ADMIN (a
 * filesystem mark) and CAP_DAC_READ_SEARCH (open_by_handle_at()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/signalfd.h>
#include <syslog.h>
#include <unistd.h>

#include "fsn.h"

#ifndef FAN_REPORT_DFID_NAME
#define FAN_REPORT_DFID_NAME (0x00000400 | 0x00000800)
#endif

#define WATCH_MASK                                                                                 \
	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_MODIFY | FAN_CLOSE_WRITE |  \
	 FAN_ATTRIB | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR)

struct watch {
	const char *prefix; /* DIR, canonical */
	size_t prefix_len;
	unsigned long unresolved;
};

/* "\xNN" for everything but printable ASCII other than '\'. */
static void print_escaped(FILE *f, const char *s) {
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static bool under(const struct watch *w, const char *path) {
	if (strncmp(path, w->prefix, w->prefix_len) != 0)
		return false;
	/* DIR itself, or below it ("/" is a prefix of everything) */
	return path[w->prefix_len] == '\0' || path[w->prefix_len] == '/' ||
	       w->prefix[w->prefix_len - 1] == '/';
}

static void log_to_stderr(void *userdata, int priority, const char *msg) {
	(void)userdata;
	if (priority <= LOG_WARNING)
		fprintf(stderr, "fsn-watch: %s\n", msg);
}

static int on_event(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct watch *w = userdata;
	char events[256], path[PATH_MAX];
	bool deleted = false;
	int r;

	if (fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, ev->mask, events, sizeof(events)) < 0)
		snprintf(events, sizeof(events), "0x%llx", (unsigned long long)ev->mask);

	if (ev->mask & FAN_Q_OVERFLOW) {
		printf("%s (events were lost)\n", events);
		return 0;
	}
	if (!(ev->has & FSN_HAS_DFID)) {
		w->unresolved++;
		return 0;
	}
	r = fsn_ctx_fid_path(ctx, &ev->dfid, ev->name, path, sizeof(path), &deleted);
	if (r < 0) {
		/* we cannot tell whether it was under DIR: not printed */
		w->unresolved++;
		return 0;
	}
	if (!under(w, path))
		return 0;

	fputs(events, stdout);
	fputc(' ', stdout);
	print_escaped(stdout, path);
	fputs(deleted ? " (directory deleted)\n" : "\n", stdout);
	return 0;
}

static int run(int argc, char **argv) {
	struct fsn_mark_spec spec = {
		.type = FSN_MARK_FILESYSTEM,
		.klass = FSN_CLASS_NOTIF,
		.report = FAN_REPORT_DFID_NAME,
		.mask = WATCH_MASK,
		.dirfd = AT_FDCWD,
	};
	struct watch w = { 0 };
	struct fsn_ctx *ctx = NULL;
	struct pollfd pfd[2];
	sigset_t sigs;
	char *dir = NULL;
	int sfd = -1, r;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fsn-watch DIR\n");
		return -EINVAL;
	}
	dir = realpath(argv[1], NULL);
	if (!dir) {
		r = -errno;
		fprintf(stderr, "fsn-watch: %s: %s\n", argv[1], strerror(errno));
		return r;
	}
	w.prefix = dir;
	w.prefix_len = strlen(dir);

	/* SIGINT/SIGTERM arrive through a signalfd next to the context fd */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0 ||
	    (sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		r = -errno;
		fprintf(stderr, "fsn-watch: signalfd: %s\n", strerror(errno));
		goto out;
	}

	r = fsn_ctx_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "fsn-watch: %s\n", strerror(-r));
		goto out;
	}
	fsn_ctx_set_log(ctx, log_to_stderr, NULL);

	spec.path = dir;
	r = fsn_ctx_add_mark(ctx, &spec, NULL);
	if (r == -EPERM)
		fprintf(stderr, "fsn-watch: a fanotify filesystem mark needs CAP_SYS_ADMIN "
				"(run as root)\n");
	else if (r == -ENODEV || r == -EOPNOTSUPP || r == -EXDEV || r == -EINVAL)
		fprintf(stderr,
			"fsn-watch: the filesystem of %s refuses a filesystem mark "
			"with directory file handles: %s\n",
			dir, strerror(-r));
	else if (r < 0)
		fprintf(stderr, "fsn-watch: cannot watch %s: %s\n", dir, strerror(-r));
	if (r < 0)
		goto out;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pfd[0] = (struct pollfd){ .fd = fsn_ctx_get_fd(ctx), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			fprintf(stderr, "fsn-watch: poll: %s\n", strerror(errno));
			break;
		}
		if (pfd[1].revents) {
			r = 0;
			break;
		}
		r = fsn_ctx_dispatch(ctx, on_event, &w);
		if (r < 0) {
			fprintf(stderr, "fsn-watch: %s\n", strerror(-r));
			break;
		}
	}
	if (w.unresolved)
		fprintf(stderr, "fsn-watch: %lu events without a path\n", w.unresolved);

out:
	fsn_ctx_free(ctx);
	if (sfd >= 0)
		close(sfd);
	free(dir);
	return r;
}

int main(int argc, char **argv) {
	int r = run(argc, argv);

	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
