/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.c — `fsn-bench config`: what the size of fsnotifyd's configuration
 * costs. For each size N (paths in the config) it times `fsnotifyd
 * --check-config`, the start up to READY=1, a reload of the same file and a
 * reload after half of the rules got new paths, reads the daemon's memory,
 * and sets each figure against the floor: the bench itself doing what the
 * kernel needs at least for the same paths.
 *
 * The bench process enters a private mount namespace and mounts a tmpfs O
 * (the config, the daemon's log and JSON output, the notify socket) and,
 * for one size at a time, a tmpfs T holding the layout:
 *   N/10 rules "rR", each with 10 paths: T/a/rR/d0..d4 (directories) and
 *   T/a/rR/f0..f4 (empty regular files); every 10th rule (R % 10 == 0) is
 *   recursive and each of its directories has subdirectories s0, s1.
 *   The first half of the rules (R < (rules + 1) / 2) have a second set of paths
 *   of the same shape, T/b/rR/..., created with the rest: the config of
 *   reload-changed names those instead. Every rule has events create,
 *   delete, close_write, modify and mark "auto"; one json output to O;
 *   limits.max_marks = 2N + 1000 (enough for both sets and every subdir).
 *
 * One cell (size, round), in this order:
 *   floor           fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
 *                   FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK), then per
 *                   path stat() and one inode fanotify_mark(FAN_MARK_ADD)
 *                   (directories: create, delete, close_write, modify,
 *                   on child, on dir; files: close_write, modify), close
 *                   (timed on its own too: a fixed cost per group);
 *   check           fork of `fsnotifyd --check-config FILE` to its exit
 *                   (0 expected; stdout to /dev/null, stderr to O/check.log);
 *   start           fork of `fsnotifyd -c FILE` (NOTIFY_SOCKET on O) to the
 *                   READY=1 datagram; VmHWM and VmRSS are read then;
 *   reload          SIGHUP to the READY=1 that follows RELOADING=1 (same
 *                   file); a READY=1 whose STATUS= says "last reload failed"
 *                   is a failure; memory read again;
 *   reload-changed  the config rewritten (not timed) with the b paths for
 *                   the first half of the rules, then as reload;
 *   stop            SIGTERM to the daemon's exit (status 0 expected).
 * Each daemon step has a deadline (--timeout): past it the process gets
 * SIGKILL and the step is "timeout"; a step that timed out is not run again,
 * neither in later rounds nor for larger N ("skipped"; a skipped start skips
 * the steps after it). Steps that need the daemon are "not-run" once it is
 * gone.
 *
 * Figures: per size and step the median over the rounds that succeeded, µs
 * per path (the median over N; reload-changed too is per path of the whole
 * config), the ratio to the floor (median of the per-round ratios to the
 * floor of the same round), the median memory after each point, and per
 * step the linearity: µs per path at the largest size over the smallest.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "json.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#define MAX_SIZES 16
#define MAX_ROUNDS 64
#define MIN_PATHS 10
#define MAX_PATHS 400000 /* 2N + 1000 stays within max_marks' 1000000 */
#define PATHS_PER_RULE 10
#define DIRS_PER_RULE 5 /* the other 5 are files */
#define RECURSIVE_EVERY 10
#define SUBDIRS 2 /* per directory of a recursive rule */
#define LOG_TAIL 20
#define LINEAR_MAX 1.5 /* linearity within [1/LINEAR_MAX, LINEAR_MAX]: linear */

#define FLOOR_INIT_FLAGS                                                                           \
	(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK)
#define FLOOR_DIR_MASK                                                                             \
	(FAN_CREATE | FAN_DELETE | FAN_CLOSE_WRITE | FAN_MODIFY | FAN_EVENT_ON_CHILD | FAN_ONDIR)
#define FLOOR_FILE_MASK (FAN_CLOSE_WRITE | FAN_MODIFY)

enum step { S_FLOOR = 0, S_CHECK, S_START, S_RELOAD, S_RELOAD_CHANGED, S_STOP, _S_MAX };

static const char *const step_names[_S_MAX] = {
	"floor", "check", "start", "reload", "reload-changed", "stop",
};
static const char *const step_descriptions[_S_MAX] = {
	"the bench: fanotify_init(FAN_CLASS_NOTIF|FAN_REPORT_DFID_NAME|FAN_REPORT_FID|"
	"FAN_CLOEXEC|FAN_NONBLOCK), stat() and one inode fanotify_mark() per path, close",
	"fsnotifyd --check-config FILE: fork to exit (status 0)",
	"fsnotifyd -c FILE: fork to READY=1",
	"SIGHUP, same file: to the READY=1 after RELOADING=1",
	"SIGHUP after the first half of the rules got new paths: to the READY=1 after "
	"RELOADING=1",
	"SIGTERM: to the daemon's exit (status 0)",
};

enum status { ST_NOT_RUN = 0, ST_OK, ST_FAILED, ST_TIMEOUT, ST_SKIPPED, _ST_MAX };

static const char *const status_names[_ST_MAX] = {
	"not-run", "ok", "failed", "timeout", "skipped",
};

/* Where the daemon's memory and marks are read: after these steps. */
enum point { P_START = 0, P_RELOAD, P_RELOAD_CHANGED, _P_MAX };

static const enum step point_step[_P_MAX] = { S_START, S_RELOAD, S_RELOAD_CHANGED };

struct cell {
	enum status st[_S_MAX];
	uint64_t ns[_S_MAX];
	uint64_t floor_close_ns;                   /* of ns[S_FLOOR]: the close() of the group */
	uint64_t hwm_kib[_P_MAX], rss_kib[_P_MAX]; /* 0: not read */
	int64_t marks[_P_MAX];                     /* from the READY=1 STATUS=, -1: unknown */
	bool partial[_P_MAX];                      /* "rules not fully placed" */
	char note[512];                            /* the problems, "; " between */
};

struct cfg_opts {
	unsigned rounds;
	unsigned n_sizes;
	unsigned sizes[MAX_SIZES]; /* ascending */
	unsigned timeout_s;
	bool quick;
	const char *json_path;
	const char *fsnotifyd;
};

struct cfg_env {
	char base[64];
	char out[96];  /* O */
	char tree[96]; /* T of the current size, "" when none */
	char cfg[128], cfg_tmp[128], events[128], check_log[128], daemon_log[128], sock[128];
	int sock_fd; /* bound to sock */
	int null_fd; /* /dev/null: --check-config's stdout */
};

/* A child being timed: its pid and, where the kernel has them, a pidfd. */
struct child {
	pid_t pid;
	int pidfd; /* -1: exits are polled */
};

struct step_sum {
	unsigned ok, failed, timeouts, skipped, not_run;
	double median_ns, us_per_path, ratio_floor;
};

struct size_sum {
	struct step_sum s[_S_MAX];
	double floor_close_ns; /* median */
	double hwm_kib[_P_MAX], rss_kib[_P_MAX];
	int64_t marks[_P_MAX];
	bool partial;
};

/* ------------------------------------------------------------------------ */
/* Layout and config                                                         */
/* ------------------------------------------------------------------------ */

static unsigned n_rules(unsigned n) {
	return n / PATHS_PER_RULE;
}

static bool rule_recursive(unsigned r) {
	return r % RECURSIVE_EVERY == 0;
}

/* The rules of reload-changed's new paths: the first half (rounded up). */
static bool rule_changed(unsigned r, unsigned rules) {
	return r < (rules + 1) / 2;
}

static unsigned n_subdirs(unsigned n) {
	return (n_rules(n) + RECURSIVE_EVERY - 1) / RECURSIVE_EVERY * DIRS_PER_RULE * SUBDIRS;
}

static unsigned n_changed_paths(unsigned n) {
	return (n_rules(n) + 1) / 2 * PATHS_PER_RULE;
}

static unsigned max_marks(unsigned n) {
	return 2 * n + 1000;
}

/* Path k (0..9) of rule r in set v (0: a, 1: b). */
static void rule_path(char *buf, size_t len, const char *tree, int v, unsigned r, unsigned k) {
	snprintf(buf, len, "%s/%c/r%u/%c%u", tree, "ab"[v], r, k < DIRS_PER_RULE ? 'd' : 'f',
		 k % DIRS_PER_RULE);
}

static int mkdir_p(const char *path) {
	return mkdir(path, 0700) < 0 ? negative_errno() : 0;
}

static int make_tree(const char *tree, unsigned n) {
	unsigned rules = n_rules(n);
	char path[PATH_MAX], sub[PATH_MAX + 8];
	int r;

	for (int v = 0; v < 2; v++) {
		snprintf(path, sizeof(path), "%s/%c", tree, "ab"[v]);
		r = mkdir_p(path);
		for (unsigned i = 0; r == 0 && i < rules; i++) {
			if (v == 1 && !rule_changed(i, rules))
				continue;
			snprintf(path, sizeof(path), "%s/%c/r%u", tree, "ab"[v], i);
			r = mkdir_p(path);
			for (unsigned k = 0; r == 0 && k < PATHS_PER_RULE; k++) {
				rule_path(path, sizeof(path), tree, v, i, k);
				if (k >= DIRS_PER_RULE) {
					r = bench_make_file(path, 0);
					continue;
				}
				r = mkdir_p(path);
				for (unsigned s = 0; r == 0 && rule_recursive(i) && s < SUBDIRS;
				     s++) {
					snprintf(sub, sizeof(sub), "%s/s%u", path, s);
					r = mkdir_p(sub);
				}
			}
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* Write the config of size n (changed: the first half of the rules on their
 * b paths) to cfg_tmp and rename it over cfg. */
static int write_config(const struct cfg_env *env, unsigned n, bool changed) {
	unsigned rules = n_rules(n);
	char path[PATH_MAX];
	FILE *f = fopen(env->cfg_tmp, "we");

	if (!f)
		return negative_errno();
	fprintf(f,
		"# generated by fsn-bench config: %u paths in %u rules%s\n"
		"log_level = \"warning\";\n"
		"outputs = [\"bench\"];\n"
		"output = { bench = { type = \"json\"; file = \"%s\"; }; };\n"
		"limits = { max_marks = %u; };\n"
		"rules = (\n",
		n, rules, changed ? ", the first half on new paths" : "", env->events,
		max_marks(n));
	for (unsigned i = 0; i < rules; i++) {
		int v = changed && rule_changed(i, rules);

		fprintf(f, "  { name = \"r%u\";%s\n    paths = [", i,
			rule_recursive(i) ? " recursive = true;" : "");
		for (unsigned k = 0; k < PATHS_PER_RULE; k++) {
			rule_path(path, sizeof(path), env->tree, v, i, k);
			fprintf(f, "%s\"%s\"", k ? ", " : "", path);
		}
		fprintf(f,
			"];\n    events = [\"create\", \"delete\", \"close_write\", \"modify\"]; "
			"}%s\n",
			i + 1 < rules ? "," : "");
	}
	fputs(");\n", f);
	if (bench_fclose(f) < 0 || rename(env->cfg_tmp, env->cfg) < 0)
		return negative_errno();
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The floor                                                                 */
/* ------------------------------------------------------------------------ */

/* The floor of size n: *ret_ns in all, *ret_close_ns of it the close(). */
static int floor_run(const struct cfg_env *env, unsigned n, uint64_t *ret_ns,
		     uint64_t *ret_close_ns, char *why, size_t len) {
	unsigned rules = n_rules(n);
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC), t1;
	struct stat st;
	int r;

	fd = fanotify_init(FLOOR_INIT_FLAGS, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = negative_errno();
		snprintf(why, len, "fanotify_init: %s", strerror(-r));
		return r;
	}
	for (unsigned i = 0; i < rules; i++)
		for (unsigned k = 0; k < PATHS_PER_RULE; k++) {
			rule_path(path, sizeof(path), env->tree, 0, i, k);
			if (stat(path, &st) < 0 ||
			    fanotify_mark(fd, FAN_MARK_ADD,
					  S_ISDIR(st.st_mode) ? FLOOR_DIR_MASK : FLOOR_FILE_MASK,
					  AT_FDCWD, path) < 0) {
				r = negative_errno();
				snprintf(why, len, "fanotify_mark %s: %s%s", path, strerror(-r),
					 r == -ENOSPC ? " (fs.fanotify.max_user_marks?)" : "");
				return r;
			}
		}
	t1 = bench_now_ns(CLOCK_MONOTONIC);
	close(fd);
	fd = -1;
	*ret_ns = bench_now_ns(CLOCK_MONOTONIC) - t0;
	*ret_close_ns = t0 + *ret_ns - t1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Children: spawn, wait with a deadline, notify messages                    */
/* ------------------------------------------------------------------------ */

static int pidfd_open_compat(pid_t pid) {
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static int child_spawn(char *const argv[], int out_fd, const char *logf, const char *sock,
		       struct child *c) {
	int r = bench_spawn_in(argv, NULL, out_fd, logf, sock, &c->pid);

	if (r < 0) {
		c->pid = -1;
		return r;
	}
	c->pidfd = pidfd_open_compat(c->pid); /* a zombie has one too */
	return 0;
}

/* Reap c: 0 for exit status 0, else -ECHILD with why ("exit 1", "signal
 * 9") in buf. */
static int child_reap(struct child *c, char *buf, size_t len) {
	int status = 0;

	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pid = c->pidfd = -1;
	if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* SIGKILL and reap (nothing when gone). */
static void child_kill(struct child *c) {
	char why[32];

	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	(void)child_reap(c, why, sizeof(why));
}

static bool child_exited(const struct child *c) {
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid;
}

/* poll() timeout until deadline: the rest, at most 1 s, 5 ms slices when
 * exits must be polled. -1 when the deadline has passed. */
static int poll_ms(const struct child *c, uint64_t deadline) {
	uint64_t now = bench_now_ns(CLOCK_MONOTONIC), ms;

	if (now >= deadline)
		return -1;
	ms = (deadline - now + 999999) / 1000000;
	if (ms > (c->pidfd >= 0 ? 1000 : 5))
		ms = c->pidfd >= 0 ? 1000 : 5;
	return (int)ms;
}

/* Wait until c exits (then reaped: 0 or -ECHILD, why in buf) or deadline
 * (-ETIMEDOUT, c left running). *ret_t: when the exit was seen. */
static int child_wait_exit(struct child *c, uint64_t deadline, uint64_t *ret_t, char *buf,
			   size_t len) {
	for (;;) {
		struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
		int ms;

		if (child_exited(c)) {
			*ret_t = bench_now_ns(CLOCK_MONOTONIC);
			return child_reap(c, buf, len);
		}
		ms = poll_ms(c, deadline);
		if (ms < 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, ms) < 0 && errno != EINTR)
			return negative_errno();
	}
}

/* Drop datagrams left over on the notify socket. */
static void drain_socket(int fd) {
	char buf[512];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
}

/* Whether a notify message has line "KEY=VALUE" exactly. */
static bool has_line(const char *msg, const char *line) {
	size_t len = strlen(line);

	for (const char *p = msg; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, line, len) == 0 && (p[len] == '\n' || p[len] == '\0'))
			return true;
	return false;
}

/* Wait for READY=1 on the notify socket (when after_reloading: the first
 * one after RELOADING=1); its STATUS= value goes to status. 0, -ESRCH when c
 * exited first (left to be reaped), -ETIMEDOUT at the deadline. *ret_t:
 * when READY=1 was received. */
static int wait_ready(const struct cfg_env *env, const struct child *c, bool after_reloading,
		      uint64_t deadline, char *status, size_t len, uint64_t *ret_t) {
	bool reloading = !after_reloading;
	char buf[8192];

	status[0] = '\0';
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = env->sock_fd, .events = POLLIN },
			{ .fd = c->pidfd, .events = POLLIN },
		};
		uint64_t now;
		const char *s;
		ssize_t n;
		int ms = poll_ms(c, deadline);

		if (ms < 0)
			return -ETIMEDOUT;
		if (poll(p, 2, ms) < 0 && errno != EINTR)
			return negative_errno();
		n = recv(env->sock_fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		now = bench_now_ns(CLOCK_MONOTONIC);
		if (n < 0) { /* nothing (more) to read: did it die? */
			if (child_exited(c))
				return -ESRCH;
			continue;
		}
		buf[n] = '\0';
		if (has_line(buf, "RELOADING=1"))
			reloading = true;
		if (!reloading || !has_line(buf, "READY=1"))
			continue;
		s = strstr(buf, "STATUS=");
		if (s && (s == buf || s[-1] == '\n'))
			snprintf(status, len, "%.*s", (int)strcspn(s + 7, "\n"), s + 7);
		*ret_t = now;
		return 0;
	}
}

/* VmHWM and VmRSS of pid in KiB (0 when unknown). */
static void read_memory(pid_t pid, uint64_t *ret_hwm, uint64_t *ret_rss) {
	char path[64], line[256];
	FILE *f;

	*ret_hwm = *ret_rss = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "VmHWM:", 6) == 0)
			(void)sscanf(line + 6, "%" SCNu64, ret_hwm);
		else if (strncmp(line, "VmRSS:", 6) == 0)
			(void)sscanf(line + 6, "%" SCNu64, ret_rss);
	}
	fclose(f);
}

/* ------------------------------------------------------------------------ */
/* One cell                                                                  */
/* ------------------------------------------------------------------------ */

struct cell_run {
	struct cfg_env *env;
	const struct cfg_opts *o;
	unsigned n;
	struct cell *c;
	unsigned *timed_out; /* per step: the N at which it first timed out, 0: never */
	struct child daemon;
};

static void cell_note(struct cell *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append a problem to the cell's note ("; " between two). */
static void cell_note(struct cell *c, const char *fmt, ...) {
	size_t len = strlen(c->note);
	va_list ap;

	if (len && len + 2 < sizeof(c->note)) {
		memcpy(c->note + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->note + len, sizeof(c->note) - len, fmt, ap);
	va_end(ap);
}

static uint64_t deadline_of(const struct cell_run *x, uint64_t t0) {
	return t0 + (uint64_t)x->o->timeout_s * 1000000000u;
}

static void step_timed_out(struct cell_run *x, enum step s) {
	x->c->st[s] = ST_TIMEOUT;
	if (!x->timed_out[s])
		x->timed_out[s] = x->n;
	cell_note(x->c, "%s: no result within %u s: killed", step_names[s], x->o->timeout_s);
	fprintf(stderr, "fsn-bench config: %u paths: %s timed out after %u s\n", x->n,
		step_names[s], x->o->timeout_s);
}

static void step_failed(struct cell_run *x, enum step s, const char *why, const char *logf) {
	x->c->st[s] = ST_FAILED;
	cell_note(x->c, "%s: %s", step_names[s], why);
	fprintf(stderr, "fsn-bench config: %u paths: %s failed: %s\n", x->n, step_names[s], why);
	if (logf)
		bench_show_log(logf, LOG_TAIL);
}

static int step_check(struct cell_run *x) {
	char *argv[] = { (char *)x->o->fsnotifyd, (char *)"--check-config", x->env->cfg, NULL };
	struct child ch = { .pid = -1, .pidfd = -1 };
	char why[64];
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC), t1 = 0;
	int r;

	r = child_spawn(argv, x->env->null_fd, x->env->check_log, NULL, &ch);
	if (r < 0)
		return r;
	r = child_wait_exit(&ch, deadline_of(x, t0), &t1, why, sizeof(why));
	if (r == -ETIMEDOUT) {
		child_kill(&ch);
		step_timed_out(x, S_CHECK);
	} else if (r == -ECHILD) {
		step_failed(x, S_CHECK, why, x->env->check_log);
	} else if (r < 0) {
		child_kill(&ch);
		return r;
	} else {
		x->c->st[S_CHECK] = ST_OK;
		x->c->ns[S_CHECK] = t1 - t0;
	}
	return 0;
}

/* The READY=1 of point p has come with status: record its marks. */
static void ready_seen(struct cell_run *x, enum point p, const char *status) {
	unsigned long rules, marks;

	x->c->marks[p] =
	    sscanf(status, "%lu rules, %lu marks", &rules, &marks) == 2 ? (int64_t)marks : -1;
	x->c->partial[p] = strstr(status, "not fully placed") != NULL;
	read_memory(x->daemon.pid, &x->c->hwm_kib[p], &x->c->rss_kib[p]);
}

/* The daemon is gone (exited before READY=1, or a reload killed it). */
static void daemon_lost(struct cell_run *x, enum step s) {
	char why[64], msg[96];

	if (child_reap(&x->daemon, why, sizeof(why)) == 0)
		snprintf(why, sizeof(why), "exit 0");
	snprintf(msg, sizeof(msg), "the daemon exited (%s)", why);
	step_failed(x, s, msg, x->env->daemon_log);
}

static int step_start(struct cell_run *x) {
	char *argv[] = { (char *)x->o->fsnotifyd, (char *)"-c", x->env->cfg, NULL };
	char status[1024];
	uint64_t t0, t1 = 0;
	int r;

	drain_socket(x->env->sock_fd);
	t0 = bench_now_ns(CLOCK_MONOTONIC);
	r = child_spawn(argv, -1, x->env->daemon_log, x->env->sock, &x->daemon);
	if (r < 0)
		return r;
	r = wait_ready(x->env, &x->daemon, false, deadline_of(x, t0), status, sizeof(status), &t1);
	if (r == -ETIMEDOUT) {
		child_kill(&x->daemon);
		step_timed_out(x, S_START);
	} else if (r == -ESRCH) {
		daemon_lost(x, S_START);
	} else if (r < 0) {
		child_kill(&x->daemon);
		return r;
	} else {
		x->c->st[S_START] = ST_OK;
		x->c->ns[S_START] = t1 - t0;
		ready_seen(x, P_START, status);
	}
	return 0;
}

static int step_reload(struct cell_run *x, enum step s, enum point p) {
	char status[1024];
	const char *fail;
	uint64_t t0, t1 = 0;
	int r;

	drain_socket(x->env->sock_fd);
	t0 = bench_now_ns(CLOCK_MONOTONIC);
	if (kill(x->daemon.pid, SIGHUP) < 0)
		return negative_errno();
	r = wait_ready(x->env, &x->daemon, true, deadline_of(x, t0), status, sizeof(status), &t1);
	if (r == -ETIMEDOUT) {
		child_kill(&x->daemon);
		step_timed_out(x, s);
	} else if (r == -ESRCH) {
		daemon_lost(x, s);
	} else if (r < 0) {
		return r;
	} else if ((fail = strstr(status, "last reload failed"))) {
		step_failed(x, s, fail, x->env->daemon_log);
	} else {
		x->c->st[s] = ST_OK;
		x->c->ns[s] = t1 - t0;
		ready_seen(x, p, status);
	}
	return 0;
}

static int step_stop(struct cell_run *x) {
	char why[64], msg[96];
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC), t1 = 0;
	int r;

	if (kill(x->daemon.pid, SIGTERM) < 0)
		return negative_errno();
	r = child_wait_exit(&x->daemon, deadline_of(x, t0), &t1, why, sizeof(why));
	if (r == -ETIMEDOUT) {
		child_kill(&x->daemon);
		step_timed_out(x, S_STOP);
	} else if (r == -ECHILD) {
		snprintf(msg, sizeof(msg), "%s after SIGTERM", why);
		step_failed(x, S_STOP, msg, x->env->daemon_log);
	} else if (r < 0) {
		return r; /* run_cell kills it */
	} else {
		x->c->st[S_STOP] = ST_OK;
		x->c->ns[S_STOP] = t1 - t0;
	}
	return 0;
}

/* Whether step s runs; a step that timed out before is skipped. */
static bool step_runs(struct cell_run *x, enum step s) {
	if (!x->timed_out[s])
		return true;
	x->c->st[s] = ST_SKIPPED;
	return false;
}

static int run_cell(struct cell_run *x) {
	char why[PATH_MAX + 64];
	int r;

	x->daemon = (struct child){ .pid = -1, .pidfd = -1 };
	for (unsigned p = 0; p < _P_MAX; p++)
		x->c->marks[p] = -1;
	r = write_config(x->env, x->n, false);
	if (r < 0)
		return r;
	r = floor_run(x->env, x->n, &x->c->ns[S_FLOOR], &x->c->floor_close_ns, why, sizeof(why));
	if (r == 0)
		x->c->st[S_FLOOR] = ST_OK;
	else
		step_failed(x, S_FLOOR, why, NULL); /* the daemon's steps still run */
	if (step_runs(x, S_CHECK) && (r = step_check(x)) < 0)
		return r;
	/* the daemon's steps: start, then every later step needs it alive */
	if (!step_runs(x, S_START)) {
		for (unsigned s = S_START + 1; s < _S_MAX; s++)
			x->c->st[s] = ST_SKIPPED;
		return 0;
	}
	r = step_start(x);
	if (r < 0)
		return r;
	if (x->daemon.pid > 0 && step_runs(x, S_RELOAD) &&
	    (r = step_reload(x, S_RELOAD, P_RELOAD)) < 0)
		goto out;
	if (x->daemon.pid > 0 && step_runs(x, S_RELOAD_CHANGED)) {
		r = write_config(x->env, x->n, true);
		if (r == 0)
			r = step_reload(x, S_RELOAD_CHANGED, P_RELOAD_CHANGED);
		if (r < 0)
			goto out;
	}
	if (x->daemon.pid > 0 && step_runs(x, S_STOP))
		r = step_stop(x);
out:
	child_kill(&x->daemon); /* a skipped stop, or an error */
	return r;
}

static void cell_progress(const struct cfg_opts *o, unsigned n, unsigned round,
			  const struct cell *c, uint64_t t_start) {
	fprintf(stderr, "fsn-bench config: %u paths, round %u/%u:", n, round + 1, o->rounds);
	for (unsigned s = 0; s < _S_MAX; s++) {
		if (c->st[s] == ST_OK && c->ns[s] < 1000000000u)
			fprintf(stderr, " %s %.2f ms", step_names[s], (double)c->ns[s] / 1e6);
		else if (c->st[s] == ST_OK)
			fprintf(stderr, " %s %.2f s", step_names[s], (double)c->ns[s] / 1e9);
		else
			fprintf(stderr, " %s %s", step_names[s], status_names[c->st[s]]);
		fputc(s + 1 < _S_MAX ? ',' : ';', stderr);
	}
	fprintf(stderr, " %.0f s elapsed\n",
		(double)(bench_now_ns(CLOCK_MONOTONIC) - t_start) / 1e9);
}

/* ------------------------------------------------------------------------ */
/* Environment and rounds                                                    */
/* ------------------------------------------------------------------------ */

static int env_setup(struct cfg_env *env) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int r;

	r = bench_env_enter(env->base, sizeof(env->base), "/tmp/fsn-bench-cfg.XXXXXX");
	if (r == 0)
		r = bench_mount_tmpfs(env->base, "o", "512m", env->out, sizeof(env->out));
	if (r < 0)
		return r;
	snprintf(env->cfg, sizeof(env->cfg), "%s/fsnotifyd.conf", env->out);
	snprintf(env->cfg_tmp, sizeof(env->cfg_tmp), "%s/fsnotifyd.conf.tmp", env->out);
	snprintf(env->events, sizeof(env->events), "%s/events.jsonl", env->out);
	snprintf(env->check_log, sizeof(env->check_log), "%s/check.log", env->out);
	snprintf(env->daemon_log, sizeof(env->daemon_log), "%s/fsnotifyd.log", env->out);
	snprintf(env->sock, sizeof(env->sock), "%s/notify.sock", env->out);
	if (strlen(env->sock) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, env->sock, strlen(env->sock) + 1);
	env->sock_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (env->sock_fd < 0 || bind(env->sock_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return negative_errno();
	env->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return env->null_fd < 0 ? negative_errno() : 0;
}

/* Mount T for size n and make the layout. */
static int tree_setup(struct cfg_env *env, unsigned n) {
	char name[32];
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
	int r;

	snprintf(name, sizeof(name), "n%u", n);
	r = bench_mount_tmpfs(env->base, name, "64m", env->tree, sizeof(env->tree));
	if (r == 0)
		r = make_tree(env->tree, n);
	if (r < 0)
		return r;
	fprintf(stderr,
		"fsn-bench config: %u paths: layout of %u rules, %u subdirs and %u changed paths "
		"made in %.1f s\n",
		n, n_rules(n), n_subdirs(n), n_changed_paths(n),
		(double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	return 0;
}

static void tree_teardown(struct cfg_env *env) {
	if (!env->tree[0])
		return;
	(void)umount2(env->tree, MNT_DETACH);
	(void)rmdir(env->tree);
	env->tree[0] = '\0';
}

/* What the kernel allows one user: the floor needs N marks, the daemon up
 * to N + the changed paths + the subdirs during reload-changed. A warning
 * only. */
static void warn_mark_limit(const struct cfg_opts *o) {
	unsigned long limit = 0;
	unsigned n = o->sizes[o->n_sizes - 1], need = n + n_changed_paths(n) + n_subdirs(n);
	FILE *f = fopen("/proc/sys/fs/fanotify/max_user_marks", "re");

	if (!f)
		return;
	if (fscanf(f, "%lu", &limit) == 1 && limit < need)
		fprintf(stderr,
			"fsn-bench config: %u paths may need %u fanotify marks; "
			"fs.fanotify.max_user_marks is %lu: marks beyond it fail\n",
			n, need, limit);
	fclose(f);
}

static int run_all(struct cfg_env *env, const struct cfg_opts *o, struct cell *cells) {
	unsigned timed[_S_MAX] = { 0 };
	uint64_t t_start = bench_now_ns(CLOCK_MONOTONIC);
	int r = 0;

	warn_mark_limit(o);
	for (unsigned i = 0; i < o->n_sizes && r == 0; i++) {
		r = tree_setup(env, o->sizes[i]);
		for (unsigned round = 0; r == 0 && round < o->rounds; round++) {
			struct cell_run x = {
				.env = env,
				.o = o,
				.n = o->sizes[i],
				.c = &cells[i * o->rounds + round],
				.timed_out = timed,
			};

			r = run_cell(&x);
			cell_progress(o, o->sizes[i], round, x.c, t_start);
		}
		tree_teardown(env);
	}
	return r;
}

/* ------------------------------------------------------------------------ */
/* Summary, table, JSON                                                      */
/* ------------------------------------------------------------------------ */

static double median_u64(const uint64_t *v, const bool *use, unsigned n) {
	double x[MAX_ROUNDS];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (use[i])
			x[k++] = (double)v[i];
	return k ? bench_median(x, k) : NAN;
}

static void summarize(const struct cfg_opts *o, unsigned i, const struct cell *cells,
		      struct size_sum *sum) {
	const struct cell *c = &cells[i * o->rounds];
	unsigned n = o->sizes[i];

	memset(sum, 0, sizeof(*sum));
	for (unsigned s = 0; s < _S_MAX; s++) {
		struct step_sum *x = &sum->s[s];
		double v[MAX_ROUNDS], ratio[MAX_ROUNDS];
		unsigned nv = 0, nr = 0;

		for (unsigned r = 0; r < o->rounds; r++) {
			switch (c[r].st[s]) {
			case ST_OK:
				v[nv++] = (double)c[r].ns[s];
				if (c[r].st[S_FLOOR] == ST_OK && c[r].ns[S_FLOOR])
					ratio[nr++] = (double)c[r].ns[s] / (double)c[r].ns[S_FLOOR];
				break;
			case ST_FAILED: x->failed++; break;
			case ST_TIMEOUT: x->timeouts++; break;
			case ST_SKIPPED: x->skipped++; break;
			default: x->not_run++; break;
			}
		}
		x->ok = nv;
		x->median_ns = nv ? bench_median(v, nv) : NAN;
		x->us_per_path = x->median_ns / 1e3 / n;
		x->ratio_floor = nr ? bench_median(ratio, nr) : NAN;
	}
	{
		uint64_t v[MAX_ROUNDS];
		bool use[MAX_ROUNDS];

		for (unsigned r = 0; r < o->rounds; r++) {
			v[r] = c[r].floor_close_ns;
			use[r] = c[r].st[S_FLOOR] == ST_OK;
		}
		sum->floor_close_ns = median_u64(v, use, o->rounds);
	}
	for (unsigned p = 0; p < _P_MAX; p++) {
		uint64_t hwm[MAX_ROUNDS], rss[MAX_ROUNDS];
		bool use[MAX_ROUNDS];

		sum->marks[p] = -1;
		for (unsigned r = 0; r < o->rounds; r++) {
			hwm[r] = c[r].hwm_kib[p];
			rss[r] = c[r].rss_kib[p];
			use[r] = c[r].st[point_step[p]] == ST_OK && c[r].hwm_kib[p] > 0;
			if (sum->marks[p] < 0 && c[r].marks[p] >= 0)
				sum->marks[p] = c[r].marks[p];
			if (c[r].partial[p])
				sum->partial = true;
		}
		sum->hwm_kib[p] = median_u64(hwm, use, o->rounds);
		sum->rss_kib[p] = median_u64(rss, use, o->rounds);
	}
}

struct linearity {
	bool known;
	unsigned from, to; /* sizes (paths) */
	double ratio;
	unsigned stopped; /* a larger size where the step had no result (timeout...), 0: none */
};

static void linearity_of(const struct cfg_opts *o, const struct size_sum *sums, enum step s,
			 struct linearity *l) {
	int lo = -1, hi = -1;

	memset(l, 0, sizeof(*l));
	for (unsigned i = 0; i < o->n_sizes; i++) {
		if (sums[i].s[s].ok) {
			if (lo < 0)
				lo = (int)i;
			hi = (int)i;
		} else if (!l->stopped && lo >= 0) {
			l->stopped = o->sizes[i];
		}
	}
	if (hi > lo && lo >= 0) {
		l->known = true;
		l->from = o->sizes[lo];
		l->to = o->sizes[hi];
		l->ratio = sums[hi].s[s].us_per_path / sums[lo].s[s].us_per_path;
	}
	if (l->stopped && l->stopped < l->to)
		l->stopped = 0; /* a gap in the middle: the figure still spans it */
}

static const char *linearity_verdict(const struct linearity *l) {
	if (!l->known || !isfinite(l->ratio))
		return "unknown";
	if (l->ratio > LINEAR_MAX)
		return "superlinear";
	if (l->ratio < 1 / LINEAR_MAX)
		return "sublinear";
	return "linear";
}

static void fmt(char *buf, size_t len, double v, int prec) {
	if (isfinite(v))
		snprintf(buf, len, "%.*f", prec, v);
	else
		snprintf(buf, len, "-");
}

/* "-" unless the cell has a value, then "HWM / RSS". */
static void fmt_mem(char *buf, size_t len, double hwm, double rss) {
	if (isfinite(hwm) && isfinite(rss))
		snprintf(buf, len, "%.0f / %.0f", hwm, rss);
	else
		snprintf(buf, len, "-");
}

static void print_table(const struct cfg_opts *o, const struct cell *cells,
			const struct size_sum *sums) {
	char a[32], b[32], c[32], d[32];

	printf("fsn-bench config: %u size(s):", o->n_sizes);
	for (unsigned i = 0; i < o->n_sizes; i++)
		printf("%s %u", i ? "," : "", o->sizes[i]);
	printf(" paths (%d per rule: %d dirs, %d files; every %dth rule recursive, %d subdirs "
	       "per dir), %u round(s), step timeout %u s\n",
	       PATHS_PER_RULE, DIRS_PER_RULE, PATHS_PER_RULE - DIRS_PER_RULE, RECURSIVE_EVERY,
	       SUBDIRS, o->rounds, o->timeout_s);
	printf("%-8s %6s %-15s %7s %12s %10s %10s\n", "paths", "rules", "step", "ok", "median_ms",
	       "us/path", "x_floor");
	for (unsigned i = 0; i < o->n_sizes; i++)
		for (unsigned s = 0; s < _S_MAX; s++) {
			const struct step_sum *x = &sums[i].s[s];

			fmt(a, sizeof(a), x->median_ns / 1e6, 3);
			fmt(b, sizeof(b), x->us_per_path, 3);
			fmt(c, sizeof(c), x->ratio_floor, 2);
			snprintf(d, sizeof(d), "%u/%u", x->ok, o->rounds);
			printf("%-8u %6u %-15s %7s %12s %10s %10s", o->sizes[i],
			       n_rules(o->sizes[i]), step_names[s], d, a, b, c);
			if (x->timeouts)
				printf("  TIMEOUT x%u", x->timeouts);
			if (x->failed)
				printf("  FAILED x%u", x->failed);
			if (x->skipped)
				printf("  skipped x%u", x->skipped);
			if (x->not_run)
				printf("  not-run x%u", x->not_run);
			printf("\n");
		}
	printf("of the floor, the close() of its group (ms, median):");
	for (unsigned i = 0; i < o->n_sizes; i++) {
		fmt(a, sizeof(a), sums[i].floor_close_ns / 1e6, 3);
		printf("%s %u: %s", i ? "," : "", o->sizes[i], a);
	}
	printf("\n");
	printf("daemon memory, KiB (median VmHWM / VmRSS) and marks (its STATUS=) after:\n");
	printf("%-8s %8s %21s %21s %21s\n", "paths", "marks", "start", "reload", "reload-changed");
	for (unsigned i = 0; i < o->n_sizes; i++) {
		const struct size_sum *x = &sums[i];

		fmt_mem(a, sizeof(a), x->hwm_kib[P_START], x->rss_kib[P_START]);
		fmt_mem(b, sizeof(b), x->hwm_kib[P_RELOAD], x->rss_kib[P_RELOAD]);
		fmt_mem(c, sizeof(c), x->hwm_kib[P_RELOAD_CHANGED], x->rss_kib[P_RELOAD_CHANGED]);
		if (x->marks[P_START] >= 0)
			snprintf(d, sizeof(d), "%" PRId64, x->marks[P_START]);
		else
			snprintf(d, sizeof(d), "-");
		printf("%-8u %8s %21s %21s %21s%s\n", o->sizes[i], d, a, b, c,
		       x->partial ? "  (rules not fully placed)" : "");
	}
	printf("linearity: us/path at the largest size over the smallest (linear: %.2f..%.2f)\n",
	       1 / LINEAR_MAX, LINEAR_MAX);
	for (unsigned s = 0; s < _S_MAX; s++) {
		struct linearity l;

		linearity_of(o, sums, s, &l);
		if (!l.known) {
			printf("  %-15s %8s  (needs results at two sizes)\n", step_names[s], "-");
			continue;
		}
		printf("  %-15s %8.2f  (%u -> %u paths)  %s", step_names[s], l.ratio, l.from, l.to,
		       linearity_verdict(&l));
		if (l.stopped)
			printf("; no result at %u paths", l.stopped);
		printf("\n");
	}
	for (unsigned i = 0; i < o->n_sizes; i++)
		for (unsigned r = 0; r < o->rounds; r++)
			if (cells[i * o->rounds + r].note[0])
				printf("note: %u paths, round %u: %s\n", o->sizes[i], r + 1,
				       cells[i * o->rounds + r].note);
}

static void json_number_or_null(FILE *f, uint64_t v, bool known) {
	if (known)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

static void write_json_size(FILE *f, const struct cfg_opts *o, unsigned i, const struct cell *cells,
			    const struct size_sum *sum) {
	unsigned n = o->sizes[i];

	fprintf(f,
		"\n    {\"paths\": %u, \"rules\": %u, \"recursive_rules\": %u, \"subdirs\": %u, "
		"\"changed_paths\": %u, \"max_marks\": %u,\n     \"rounds\": [",
		n, n_rules(n), (n_rules(n) + RECURSIVE_EVERY - 1) / RECURSIVE_EVERY, n_subdirs(n),
		n_changed_paths(n), max_marks(n));
	for (unsigned r = 0; r < o->rounds; r++) {
		const struct cell *c = &cells[i * o->rounds + r];

		fprintf(f, "%s\n       {\"steps\": {", r ? "," : "");
		for (unsigned s = 0; s < _S_MAX; s++) {
			fprintf(f, "%s\"%s\": {\"status\": \"%s\", \"ns\": ", s ? ", " : "",
				step_names[s], status_names[c->st[s]]);
			json_number_or_null(f, c->ns[s], c->st[s] == ST_OK);
			fputc('}', f);
		}
		fputs("}, \"floor_close_ns\": ", f);
		json_number_or_null(f, c->floor_close_ns, c->st[S_FLOOR] == ST_OK);
		fputs(",\n        \"daemon\": {", f);
		for (unsigned p = 0; p < _P_MAX; p++) {
			bool known = c->st[point_step[p]] == ST_OK;

			fprintf(f, "%s\"%s\": {\"vmhwm_kib\": ", p ? ", " : "",
				step_names[point_step[p]]);
			json_number_or_null(f, c->hwm_kib[p], known && c->hwm_kib[p]);
			fputs(", \"vmrss_kib\": ", f);
			json_number_or_null(f, c->rss_kib[p], known && c->rss_kib[p]);
			fputs(", \"marks\": ", f);
			json_number_or_null(f, (uint64_t)c->marks[p], known && c->marks[p] >= 0);
			fprintf(f, ", \"rules_not_fully_placed\": %s}",
				c->partial[p] ? "true" : "false");
		}
		fputs("},\n        \"note\": ", f);
		json_write_string(f, c->note);
		fputc('}', f);
	}
	fputs("],\n     \"summary\": {", f);
	for (unsigned s = 0; s < _S_MAX; s++) {
		const struct step_sum *x = &sum->s[s];

		fprintf(f,
			"%s\n       \"%s\": {\"ok\": %u, \"failed\": %u, \"timeout\": %u, "
			"\"skipped\": %u, \"not_run\": %u, \"median_ns\": ",
			s ? "," : "", step_names[s], x->ok, x->failed, x->timeouts, x->skipped,
			x->not_run);
		json_write_number(f, x->median_ns);
		fputs(", \"us_per_path\": ", f);
		json_write_number(f, x->us_per_path);
		fputs(", \"ratio_to_floor\": ", f);
		json_write_number(f, x->ratio_floor);
		fputc('}', f);
	}
	fputs(",\n       \"floor_close_ns\": ", f);
	json_write_number(f, sum->floor_close_ns);
	fputs(",\n       \"daemon\": {", f);
	for (unsigned p = 0; p < _P_MAX; p++) {
		fprintf(f, "%s\"%s\": {\"vmhwm_kib\": ", p ? ", " : "", step_names[point_step[p]]);
		json_write_number(f, sum->hwm_kib[p]);
		fputs(", \"vmrss_kib\": ", f);
		json_write_number(f, sum->rss_kib[p]);
		fputs(", \"marks\": ", f);
		json_number_or_null(f, (uint64_t)sum->marks[p], sum->marks[p] >= 0);
		fputc('}', f);
	}
	fprintf(f, "}, \"rules_not_fully_placed\": %s}}", sum->partial ? "true" : "false");
}

static int write_json(const char *path, const struct cfg_opts *o, const struct cell *cells,
		      const struct size_sum *sums) {
	FILE *f = fopen(path, "we");

	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench config");
	fprintf(f, "},\n  \"parameters\": {\"rounds\": %u, \"paths\": [", o->rounds);
	for (unsigned i = 0; i < o->n_sizes; i++)
		fprintf(f, "%s%u", i ? ", " : "", o->sizes[i]);
	fprintf(f, "], \"timeout_s\": %u, \"quick\": %s, \"fsnotifyd\": ", o->timeout_s,
		o->quick ? "true" : "false");
	json_write_string(f, o->fsnotifyd);
	fprintf(f,
		",\n    \"layout\": {\"paths_per_rule\": %d, \"dirs_per_rule\": %d, "
		"\"files_per_rule\": %d, \"recursive_every\": %d, \"subdirs_per_dir\": %d, "
		"\"events\": [\"create\", \"delete\", \"close_write\", \"modify\"], "
		"\"mark\": \"auto\", \"changed_rules\": \"the first half, rounded up\", "
		"\"max_marks\": \"2 * paths + 1000\"},\n    \"linear_range\": [",
		PATHS_PER_RULE, DIRS_PER_RULE, PATHS_PER_RULE - DIRS_PER_RULE, RECURSIVE_EVERY,
		SUBDIRS);
	json_write_number(f, 1 / LINEAR_MAX);
	fputs(", ", f);
	json_write_number(f, LINEAR_MAX);
	fputs("]},\n  \"steps\": [", f);
	for (unsigned s = 0; s < _S_MAX; s++) {
		fprintf(f, "%s\n    {\"step\": \"%s\", \"description\": ", s ? "," : "",
			step_names[s]);
		json_write_string(f, step_descriptions[s]);
		fputc('}', f);
	}
	fputs("\n  ],\n  \"sizes\": [", f);
	for (unsigned i = 0; i < o->n_sizes; i++) {
		write_json_size(f, o, i, cells, &sums[i]);
		if (i + 1 < o->n_sizes)
			fputc(',', f);
	}
	fputs("\n  ],\n  \"linearity\": {", f);
	for (unsigned s = 0; s < _S_MAX; s++) {
		struct linearity l;

		linearity_of(o, sums, s, &l);
		fprintf(f, "%s\n    \"%s\": {\"from_paths\": ", s ? "," : "", step_names[s]);
		json_number_or_null(f, l.from, l.known);
		fputs(", \"to_paths\": ", f);
		json_number_or_null(f, l.to, l.known);
		fputs(", \"ratio\": ", f);
		json_write_number(f, l.known ? l.ratio : NAN);
		fprintf(f,
			", \"verdict\": \"%s\", \"no_result_at_paths\": ", linearity_verdict(&l));
		json_number_or_null(f, l.stopped, l.stopped);
		fputc('}', f);
	}
	fputs("\n  }\n}\n", f);
	return bench_fclose(f);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct cfg_opts *o) {
	enum { OPT_PATHS = BENCH_OPT_OWN, OPT_TIMEOUT };
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "paths", required_argument, NULL, OPT_PATHS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ 0 },
	};
	struct bench_common com = {
		.min_rounds = 1,
		.max_rounds = MAX_ROUNDS,
		.no_ops = "fsn-bench config: no --ops; the sizes are --paths LIST",
	};
	const char *paths = NULL;
	uint64_t timeout = 0;
	int c, r;

	*o = (struct cfg_opts){ 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_PATHS:
			paths = optarg;
			r = 0;
			break;
		case OPT_TIMEOUT:
			r = bench_parse_u64("--timeout", optarg, 1, 86400, &timeout);
			break;
		default: r = bench_common_opt(c, optarg, &com); break;
		}
		if (r != 0)
			return r;
	}
	r = bench_common_finish(argc, argv, &com);
	if (r < 0)
		return r;
	o->quick = com.quick;
	o->json_path = com.json_path;
	o->fsnotifyd = com.fsnotifyd;
	o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 1 : 3;
	o->timeout_s = timeout ? (unsigned)timeout : o->quick ? 60 : 300;
	r = bench_parse_sizes("--paths",
			      paths      ? paths
			      : o->quick ? "100,300"
					 : "1000,10000,100000",
			      MIN_PATHS, MAX_PATHS, PATHS_PER_RULE, o->sizes, MAX_SIZES);
	if (r < 0)
		return r;
	o->n_sizes = (unsigned)r;
	return 0;
}

int bench_config_main(int argc, char **argv) {
	struct cfg_env env = { .base = "", .sock_fd = -1, .null_fd = -1 };
	struct cfg_opts o;
	_cleanup_free_ struct cell *cells = NULL;
	_cleanup_free_ struct size_sum *sums = NULL;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("config", "fanotify marks"))
		return 77;
	cells = calloc((size_t)o.n_sizes * o.rounds, sizeof(*cells));
	sums = calloc(o.n_sizes, sizeof(*sums));
	if (!cells || !sums)
		return -ENOMEM;
	r = env_setup(&env);
	if (r < 0)
		fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
			strerror(-r));
	else
		r = run_all(&env, &o, cells);
	tree_teardown(&env);
	if (env.sock_fd >= 0)
		close(env.sock_fd);
	if (env.null_fd >= 0)
		close(env.null_fd);
	bench_env_teardown(env.base);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < o.n_sizes; i++)
		summarize(&o, i, cells, &sums[i]);
	print_table(&o, cells, sums);
	if (o.json_path) {
		r = write_json(o.json_path, &o, cells, sums);
		if (r < 0)
			fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
	}
	return r < 0 ? r : 0;
}
