/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-metrics.c — the metrics output: the daemon's metrics (the text
 * its render function gives, metrics.c's metrics_render()) written to a
 * file every interval seconds, for node_exporter's textfile collector.
 * It takes no records: the engine opens every metrics output of the
 * config whether or not a rule names it (the config refuses a rule that
 * does), writes it once a config runs (output_metrics_write()), then on
 * its timer, and once more at stop.
 *
 * Each write replaces the file atomically, so a reader never sees half of
 * one: the text goes to a new file in the same directory, ".NAME.PID.tmp"
 * (a name the textfile collector, which reads *.prom, ignores), created
 * with O_CREAT | O_EXCL | O_NOFOLLOW relative to the directory's fd, mode
 * 0644, then rename()d over the target. The directory is opened with
 * O_DIRECTORY | O_NOFOLLOW at open and at SIGUSR1 (a replaced directory
 * is then used), and one others may write to is warned about as for a
 * json file (output_warn_dir()). No fsync: after a crash the next write
 * replaces whatever is left. The file is small and local, so it is
 * written synchronously on the loop. A write that fails (the directory
 * full, gone, not ours to write) is counted and logged once per burst;
 * its temporary file is removed.
 */
#include <ev.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "output-private.h"
#include "util.h"

struct metrics_output {
	struct output head;
	char *path;
	char dir[PATH_MAX];
	const char *base; /* in path */
	char tmp[NAME_MAX + 1];
	int dirfd;
	ev_timer timer;
	output_render_fn render;
	void *userdata;
};

static struct metrics_output *to_metrics(struct output *o) {
	return (struct metrics_output *)o;
}

/* The directory, never through a symlink; warned about when others may
 * write to it. why says what was refused. */
static int open_dir(struct metrics_output *m, char *why, size_t whylen) {
	_cleanup_close_ int fd =
	    open(m->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	struct stat st;

	why[0] = '\0';
	if (fd < 0) {
		int r = -errno;

		if (r == -ELOOP || r == -ENOTDIR)
			snprintf(why, whylen, "it is not a directory (a symbolic link is refused)");
		return r;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	output_warn_dir(m->head.name, m->dir, &st, "between two writes",
			"/var/lib/prometheus/node-exporter");
	return steal_fd(&fd);
}

static int write_text(int fd, const char *text, size_t len) {
	while (len > 0) {
		ssize_t w = write(fd, text, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		text += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The temporary file, created anew: one left by an earlier process of the
 * same pid (or planted) is removed first, never followed or reused. */
static int create_tmp(struct metrics_output *m) {
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd =
		    openat(m->dirfd, m->tmp,
			   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);

		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
		if (unlinkat(m->dirfd, m->tmp, 0) < 0)
			return -errno;
	}
	return -EEXIST;
}

static int replace_file(struct metrics_output *m, const char *text, size_t len) {
	_cleanup_close_ int fd = create_tmp(m);
	int r;

	if (fd < 0)
		return fd;
	/* 0644 whatever the umask: node_exporter runs as a user of its own */
	r = fchmod(fd, 0644) < 0 ? -errno : write_text(fd, text, len);
	if (r == 0) {
		int k = close(steal_fd(&fd));

		r = k < 0 && errno != EINTR ? -errno : 0;
	}
	if (r == 0 && renameat(m->dirfd, m->tmp, m->dirfd, m->base) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(m->dirfd, m->tmp, 0);
	return r;
}

static void metrics_write(struct metrics_output *m) {
	_cleanup_free_ char *text = NULL;
	char esc[PATH_MAX * 2];
	size_t len = 0;
	int r;

	r = m->render(m->userdata, &text, &len);
	if (r < 0) {
		output_failed(&m->head, 1, -r, "cannot render the metrics");
		return;
	}
	r = m->dirfd >= 0 ? replace_file(m, text, len) : -EBADF;
	if (r < 0) {
		output_failed(&m->head, 1, -r, "cannot write %s",
			      text_escaped(esc, sizeof(esc), m->path));
		return;
	}
	output_succeeded(&m->head, 1);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	metrics_write(w->data);
}

/* Records are not for it (the config lets no rule name it). */
static void metrics_emit(struct output *o, const struct record *r) {
}

static int metrics_reopen(struct output *o) {
	struct metrics_output *m = to_metrics(o);
	char why[256], esc[PATH_MAX * 2];
	int fd = open_dir(m, why, sizeof(why));

	if (fd < 0) {
		log_error("output '%s': cannot reopen the directory %s: %s (still writing to the "
			  "old one)",
			  o->name, text_escaped(esc, sizeof(esc), m->dir),
			  why[0] ? why : strerror(-fd));
		return fd;
	}
	if (m->dirfd >= 0)
		close(m->dirfd);
	m->dirfd = fd;
	return 0;
}

static void metrics_free(struct output *o) {
	struct metrics_output *m = to_metrics(o);

	if (m->head.loop) {
		ev_ref(m->head.loop);
		ev_timer_stop(m->head.loop, &m->timer);
	}
	if (m->dirfd >= 0)
		close(m->dirfd);
	free(m->path);
	output_done(o);
	free(m);
}

static const struct output_ops metrics_ops = {
	.emit = metrics_emit,
	.reopen = metrics_reopen,
	.free = metrics_free,
};

int output_metrics_open(const struct output_conf *conf, struct ev_loop *loop,
			output_render_fn render, void *userdata, struct output **ret, char *err,
			size_t errlen) {
	struct metrics_output *m;
	char esc[PATH_MAX * 2], why[256] = "";
	int r;

	if (!conf->file || conf->file[0] != '/' || !render) {
		snprintf(err, errlen, "output '%s': a metrics output needs a file (absolute)",
			 conf->name);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->dirfd = -1;
	m->render = render;
	m->userdata = userdata;
	r = output_init(&m->head, &metrics_ops, conf, loop);
	if (r < 0)
		goto fail;
	m->path = strdup(conf->file);
	if (!m->path) {
		r = -ENOMEM;
		goto fail;
	}
	r = output_file_dir(m->path, m->dir, sizeof(m->dir), &m->base);
	if (r == 0 && (!m->base[0] || snprintf(m->tmp, sizeof(m->tmp), ".%s.%d.tmp", m->base,
					       (int)getpid()) >= (int)sizeof(m->tmp)))
		r = -ENAMETOOLONG;
	if (r < 0) {
		snprintf(err, errlen, "output '%s': %s: not a file name it can write (%s)",
			 conf->name, text_escaped(esc, sizeof(esc), m->path), strerror(-r));
		goto fail;
	}
	r = open_dir(m, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "output '%s': cannot open the directory %s: %s", conf->name,
			 text_escaped(esc, sizeof(esc), m->dir), why[0] ? why : strerror(-r));
		goto fail;
	}
	m->dirfd = r;
	if (loop) {
		double every = conf->interval ? conf->interval : 15;

		ev_timer_init(&m->timer, on_timer, every, every);
		m->timer.data = m;
		ev_timer_start(loop, &m->timer);
		ev_unref(loop); /* it alone keeps nothing running */
	}
	*ret = &m->head;
	return 0;

fail:
	if (r == -ENOMEM)
		snprintf(err, errlen, "output '%s': out of memory", conf->name);
	free(m->path);
	output_done(&m->head);
	free(m);
	return r;
}

void output_metrics_write(struct output *o) {
	if (o && o->ops == &metrics_ops)
		metrics_write(to_metrics(o));
}
