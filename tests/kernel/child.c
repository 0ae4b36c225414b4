/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * child.c — child processes of a case: one operation in a forked child
 * (open, read, execve, or any function) with its result through a pipe,
 * bounded waits for the result and the exit, killing, and proof that a
 * child sleeps in fanotify's wait for a permission response (its tasks'
 * state and wchan in /proc), or finishes without a group being asked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selftest-private.h"

static void close_all_but(int a, int b) {
	int keep[2] = { a < b ? a : b, a < b ? b : a };
	unsigned from = 3;

	for (int i = 0; i < 2; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from && close_range(from, (unsigned)keep[i] - 1, 0) < 0)
			for (int fd = (int)from; fd < keep[i]; fd++)
				close(fd);
		from = (unsigned)keep[i] + 1;
	}
	if (close_range(from, ~0U, 0) < 0)
		for (int fd = (int)from; fd < 4096; fd++)
			close(fd);
}

static void child_close_fds(struct fst_child *c) {
	if (c->rfd >= 0)
		close(c->rfd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->rfd = -1;
	c->pidfd = -1;
}

/* A reaped child's slot is free again (its struct stays valid). */
static void child_release(struct fst_ctx *ctx, struct fst_child *c) {
	struct fst_priv *pr = ctx->priv;

	child_close_fds(c);
	for (size_t i = 0; i < pr->n_children; i++)
		if (pr->children[i] == c) {
			pr->children[i] = pr->children[--pr->n_children];
			return;
		}
}

struct fst_child *fst_spawn_(struct fst_ctx *ctx, const char *what, fst_child_fn fn, void *arg,
			     int keep_fd, const char *file, int line) {
	struct fst_priv *pr = ctx->priv;
	struct fst_child *c;
	int p[2];
	pid_t pid;

	fst_checkpoint(file, line);
	if (pr->n_children >= FST_MAX_CHILDREN) /* children the case reaped itself */
		for (size_t i = pr->n_children; i-- > 0;)
			if (pr->children[i]->reaped)
				child_release(ctx, pr->children[i]);
	if (pr->n_children >= FST_MAX_CHILDREN)
		fst_fail_(ctx, file, line, "more than %d children alive", FST_MAX_CHILDREN);
	c = fst_calloc(ctx, 1, sizeof(*c));
	snprintf(c->what, sizeof(c->what), "%s", what);
	c->rfd = c->pidfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		fst_fail_(ctx, file, line, "pipe2: %s", fst_errname(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fst_fail_(ctx, file, line, "fork: %s", fst_errname(errno));
	if (pid == 0) {
		int r;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		close_all_but(p[1], keep_fd);
		r = fn(arg);
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	c->pid = pid;
	c->rfd = p[0];
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	pr->children[pr->n_children++] = c;
	fst_log(ctx, "spawned %s: pid %d", c->what, (int)pid);
	return c;
}

struct open_arg {
	char path[PATH_MAX];
	int flags;
	int fd;
	bool read;
};

static int child_open(void *arg) {
	struct open_arg *a = arg;
	char b;
	int fd = open(a->path, a->flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (a->read && read(fd, &b, 1) < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int child_read_fd(void *arg) {
	struct open_arg *a = arg;
	char b;

	if (pread(a->fd, &b, 1, 0) < 0)
		return errno;
	return 0;
}

static int child_exec(void *arg) {
	struct open_arg *a = arg;
	char *argv[] = { a->path, NULL };
	char *envp[] = { NULL };

	execve(a->path, argv, envp);
	return errno;
}

struct fst_child *fst_spawn_open_(struct fst_ctx *ctx, const char *path, int flags,
				  const char *file, int line) {
	struct open_arg a = { .flags = flags };

	snprintf(a.path, sizeof(a.path), "%s", path);
	return fst_spawn_(ctx, fst_strdupf(ctx, "open(%s)", path), child_open, &a, -1, file, line);
}

struct fst_child *fst_spawn_read_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line) {
	struct open_arg a = { .flags = O_RDONLY, .read = true };

	snprintf(a.path, sizeof(a.path), "%s", path);
	return fst_spawn_(ctx, fst_strdupf(ctx, "open+read(%s)", path), child_open, &a, -1, file,
			  line);
}

struct fst_child *fst_spawn_read_fd_(struct fst_ctx *ctx, int fd, const char *file, int line) {
	struct open_arg a = { .fd = fd };

	return fst_spawn_(ctx, fst_strdupf(ctx, "read(fd %d)", fd), child_read_fd, &a, fd, file,
			  line);
}

struct fst_child *fst_spawn_exec_(struct fst_ctx *ctx, const char *path, const char *file,
				  int line) {
	struct open_arg a = { 0 };
	struct fst_child *c;

	snprintf(a.path, sizeof(a.path), "%s", path);
	c = fst_spawn_(ctx, fst_strdupf(ctx, "execve(%s)", path), child_exec, &a, -1, file, line);
	c->exec = true;
	return c;
}

static int elapsed_ms(const struct timespec *t0) {
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

static const char *status_str(struct fst_ctx *ctx, int status) {
	if (WIFEXITED(status))
		return fst_strdupf(ctx, "exit status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return fst_strdupf(ctx, "killed by signal %d", WTERMSIG(status));
	return fst_strdupf(ctx, "wait status 0x%x", status);
}

int fst_child_wait_(struct fst_ctx *ctx, struct fst_child *c, int ms, const char *file, int line) {
	struct timespec t0;
	int r;

	fst_checkpoint(file, line);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!c->done) {
		struct pollfd p = { .fd = c->rfd, .events = POLLIN };
		ssize_t n;

		do
			r = poll(&p, 1, ms);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			fst_fail_(ctx, file, line, "child %s still blocked after %d ms", c->what,
				  ms);
		n = read(c->rfd, &c->result, sizeof(c->result));
		if (n == 0)
			c->no_result =
			    true; /* exec succeeded (the pipe was O_CLOEXEC), or it died */
		else if (n != sizeof(c->result))
			fst_fail_(ctx, file, line, "child %s: bad result (%zd bytes)", c->what, n);
		c->done = true;
		close(c->rfd);
		c->rfd = -1;
	}
	if (!c->reaped) {
		if (c->pidfd >= 0) {
			struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
			int left = ms - elapsed_ms(&t0);

			do
				r = poll(&p, 1, left > 0 ? left : 0);
			while (r < 0 && errno == EINTR);
			if (r == 0)
				fst_fail_(ctx, file, line, "child %s did not exit within %d ms",
					  c->what, ms);
		}
		if (waitpid(c->pid, &c->status, 0) < 0)
			fst_fail_(ctx, file, line, "waitpid(%s): %s", c->what, fst_errname(errno));
		c->reaped = true;
		child_release(ctx, c);
	}
	/* the result counts only if the child then exited normally */
	if (WIFSIGNALED(c->status))
		fst_fail_(ctx, file, line, "child %s killed by signal %d", c->what,
			  WTERMSIG(c->status));
	if (c->no_result) {
		/* no result: only an execve that ran its program, which exited 0 */
		if (!c->exec)
			fst_fail_(ctx, file, line, "child %s ended without a result (%s)", c->what,
				  status_str(ctx, c->status));
		if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
			fst_fail_(ctx, file, line,
				  "child %s: the exec succeeded, but the program ended with %s, "
				  "expected exit status 0",
				  c->what, status_str(ctx, c->status));
		c->result = 0;
	} else if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
		fst_fail_(ctx, file, line, "child %s: %s after its result", c->what,
			  status_str(ctx, c->status));
	fst_log(ctx, "child %s: result %s", c->what, fst_errname(c->result));
	return c->result;
}

void fst_child_expect_(struct fst_ctx *ctx, struct fst_child *c, int err, const char *file,
		       int line) {
	int r = fst_child_wait_(ctx, c, FST_WAIT_MS, file, line);

	if (r != err)
		fst_fail_(ctx, file, line, "child %s: result %s, expected %s", c->what,
			  fst_errname(r), fst_errname(err));
}

void fst_child_kill_(struct fst_ctx *ctx, struct fst_child *c, const char *file, int line) {
	fst_checkpoint(file, line);
	if (c->reaped)
		return;
	if (kill(c->pid, SIGKILL) < 0)
		fst_fail_(ctx, file, line, "kill(%s): %s", c->what, fst_errname(errno));
	if (waitpid(c->pid, &c->status, 0) < 0)
		fst_fail_(ctx, file, line, "waitpid(%s): %s", c->what, fst_errname(errno));
	c->reaped = true;
	c->done = true;
	child_release(ctx, c);
}

/* Up to len - 1 bytes of a small file, NUL-terminated ("" when unreadable). */
static void read_small(const char *path, char *buf, size_t len) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[r > 0 ? r : 0] = '\0';
}

char fst_task_state(pid_t pid, pid_t tid, char *wchan, size_t wlen) {
	char p[64], b[512], *rp;

	if (tid)
		snprintf(p, sizeof(p), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	else
		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	read_small(p, b, sizeof(b));
	rp = strrchr(b, ')');
	if (!rp || !rp[1] || !rp[2])
		return 0;
	memcpy(p + strlen(p) - 4, "wchan", 6);
	read_small(p, wchan, wlen);
	return rp[2];
}

bool fst_wchan_numeric(const char *w) {
	return w[0] == '\0' || strncmp(w, "0x", 2) == 0 || (w[0] >= '0' && w[0] <= '9');
}

/* How many tasks of pid sleep in fanotify's wait for a permission response:
 * state D (TASK_KILLABLE) with wchan in fanotify code. A kernel without
 * symbolic wchan ("0x..." or a bare address) counts on state D alone.
 * Writes the tasks' "tid:state/wchan" into state; -1 if pid is gone. */
static int n_waiting(pid_t pid, char *state, size_t slen) {
	char p[PATH_MAX], w[128];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	if (!d) {
		snprintf(state, slen, "gone");
		return -1;
	}
	state[0] = '\0';
	while ((de = readdir(d))) {
		char st;

		if (de->d_name[0] == '.')
			continue;
		st = fst_task_state(pid, atoi(de->d_name), w, sizeof(w));
		if (!st)
			continue;
		snprintf(state + strlen(state), slen - strlen(state), "%s%s:%c/%s",
			 state[0] ? " " : "", de->d_name, st, w[0] ? w : "?");
		if (st == 'D' && (strncmp(w, "fanotify", 8) == 0 || fst_wchan_numeric(w)))
			n++;
	}
	closedir(d);
	return n;
}

void fst_child_blocked_(struct fst_ctx *ctx, struct fst_child *c, int n, const char *file,
			int line) {
	fst_child_blocked_queued_(ctx, c, n, -1, 0, file, line);
}

void fst_child_blocked_queued_(struct fst_ctx *ctx, struct fst_child *c, int n, int g, int bytes,
			       const char *file, int line) {
	char state[512] = "";
	struct timespec t0;
	int got = -1, queued = 0;

	fst_checkpoint(file, line);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = c->rfd, .events = POLLIN };

		if (c->done || poll(&p, 1, 0) != 0)
			fst_fail_(ctx, file, line,
				  "child %s is not blocked: it finished before the response",
				  c->what);
		got = n_waiting(c->pid, state, sizeof(state));
		if (g >= 0 && ioctl(g, FIONREAD, &queued) < 0)
			fst_fail_(ctx, file, line, "ioctl(fd %d, FIONREAD): %s", g,
				  fst_errname(errno));
		if (got == n && (g < 0 || queued == bytes))
			return;
		if (elapsed_ms(&t0) >= FST_WAIT_MS)
			break;
		/* 1 ms steps up to the deadline; returns at once if the child
		 * produces its result meanwhile */
		poll(&p, 1, 1);
	}
	if (g >= 0 && got == n)
		fst_fail_(
		    ctx, file, line,
		    "child %s: %d task(s) waiting, but group fd %d holds %d bytes after %d ms, "
		    "expected %d (tasks: %s)",
		    c->what, got, g, queued, FST_WAIT_MS, bytes, state);
	fst_fail_(ctx, file, line,
		  "child %s: %d task(s) waiting for a permission response after %d ms, expected "
		  "%d (tasks: %s)",
		  c->what, got, FST_WAIT_MS, n, state);
}

void fst_child_in_read_(struct fst_ctx *ctx, struct fst_child *c, int fd, const char *file,
			int line) {
	char path[64], sc[256] = "", wchan[128] = "", st = 0;
	struct timespec t0;
	long nr = -1;
	unsigned long arg0 = 0;

	fst_checkpoint(file, line);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)c->pid);
	for (;;) {
		struct pollfd p = { .fd = c->rfd, .events = POLLIN };
		bool have_sc;

		if (c->done || poll(&p, 1, 0) != 0)
			fst_fail_(ctx, file, line,
				  "child %s finished before the event: its read() did not block",
				  c->what);
		st = fst_task_state(c->pid, 0, wchan, sizeof(wchan));
		sc[0] = '\0';
		read_small(path, sc, sizeof(sc));
		have_sc = sc[0] != '\0';
		/* "0 0x5 ..." : read(2) on fd 5 (x86-64's number; arm64's is 63) */
		if (!have_sc || sscanf(sc, "%ld 0x%lx", &nr, &arg0) != 2)
			nr = -1;
		if (st == 'S' && (!have_sc || (nr == SYS_read && arg0 == (unsigned long)fd)))
			return;
		if (elapsed_ms(&t0) >= FST_WAIT_MS)
			break;
		poll(&p, 1, 1);
	}
	fst_fail_(ctx, file, line,
		  "child %s is not asleep in read(%d) after %d ms: state %c, wchan '%s', "
		  "syscall '%.60s'",
		  c->what, fd, FST_WAIT_MS, st ? st : '?', wchan, sc);
}

void fst_child_not_blocked_(struct fst_ctx *ctx, struct fst_child *c, int g, const char *file,
			    int line) {
	struct pollfd p[2] = { { .fd = g, .events = POLLIN }, { .fd = c->rfd, .events = POLLIN } };
	int r;

	fst_checkpoint(file, line);
	if (!c->done) {
		do
			r = poll(p, 2, FST_WAIT_MS);
		while (r < 0 && errno == EINTR);
		if (p[0].revents & POLLIN)
			fst_expect_(ctx, g, NULL, 0, "group that must not be asked", file, line);
	}
	fst_child_expect_(ctx, c, 0, file, line);
	fst_expect_(ctx, g, NULL, 0, "group that must not be asked", file, line);
}
