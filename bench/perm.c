/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perm.c — `fsn-bench perm`: what answering permission events adds to the
 * latency of an access, against the cheapest responder that decides the
 * same way (the floor).
 *
 * The bench process enters a private mount namespace and mounts tmpfs
 * instances: G (guarded: one 4 KiB file, or for --workload exec a 4-byte
 * file of zeros with mode 0755), O (never guarded: fsnotifyd's config,
 * output, log and notify socket) and with --storm S (the storm's). The
 * workload (--workload) is the timed call: open(O_RDONLY) of the file
 * (FAN_OPEN_PERM), pread() of one byte of it (FAN_ACCESS_PERM) or
 * execve() of it (FAN_OPEN_EXEC_PERM; the kernel then refuses the file
 * with ENOEXEC, so nothing runs). Scenarios:
 *   none           no watcher;
 *   floor          the cheapest correct responder: a separate process
 *                  with a FAN_CLASS_CONTENT group and a filesystem mark on
 *                  G for the workload's event, blocking reads of 64 KiB,
 *                  the decision's own work per event (--decision), the
 *                  answers of one read in one writev() (the kernel takes
 *                  one response per iovec), then the events' fds closed;
 *   floor-old      the first floor, for reference: reads of 16 KiB, one
 *                  write() per answer, the fd closed after each;
 *   fsnotifyd      the daemon (--fsnotifyd PATH) running a generated config
 *                  with one permission rule on G (and with --storm a
 *                  notification rule on S). When the daemon refuses that
 *                  config (`--check-config`), the scenario is reported
 *                  "skipped" with the daemon's own error;
 *   fsnotifyd-calm with --storm only: the same daemon and config, no storm.
 * --decision path makes fsnotifyd's rule decide on the event's path and the
 * floors read it (readlinkat() of /proc/self/fd/N); --decision proc on the
 * opener's uid, exe and comm (three decisions that never match), the floors
 * reading /proc/PID/status, /proc/PID/exe and /proc/PID/comm. --verdict
 * deny answers every event FAN_DENY (the call fails with EPERM, timed all
 * the same). --openers 2: two processes make the calls at once, each
 * pinned to its own CPU (the responders are not pinned). --storm G: G
 * processes create, write, close, rename and unlink files on S at full
 * speed while the calls are timed; the floors' and none's storm is drained
 * by a tuned reader (as `consumers`' floor), fsnotifyd's by its rule.
 *
 * Every round visits every scenario, starting at a rotating position. A
 * cell starts the scenario's responder (fsnotifyd: ready on READY=1), makes
 * the call ops/10 times to warm up, then N times timed: one sample is
 * CLOCK_MONOTONIC read just before and just after the call; the close()
 * after an open is not timed. The responder is stopped after the cell, so
 * rounds are independent.
 *
 * Figures: p50/p90/p99 over all samples of all rounds, the spread of the
 * per-round p50 and p99, and ratios between scenarios as the geometric mean
 * of per-round ratios of per-round percentiles with a 95 % t-interval over
 * rounds. fsnotifyd's stats record at stop says how many calls it answered:
 * fewer than the bench made means the rule did not guard the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "json.h"
#include "plot.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#define MAX_ROUNDS 1000
#define MAX_OPENERS 2
#define MAX_STORM 16
#define FILE_SIZE 4096
/* Targets (doc/performance.md): fsnotifyd against the floor, p50 and p99;
 * with a decision that reads the path or /proc; during a storm, fsnotifyd's
 * p99 against its own without the storm. */
#define TARGET_P50 1.2
#define TARGET_P99 1.3
#define TARGET_DECISION 1.5
#define TARGET_STORM_P99 2.0

enum scenario { SC_NONE = 0, SC_FLOOR, SC_FLOOR_OLD, SC_FSNOTIFYD, SC_FSND_CALM, _SC_MAX };

static const char *const scenario_names[_SC_MAX] = {
	[SC_NONE] = "none",
	[SC_FLOOR] = "floor",
	[SC_FLOOR_OLD] = "floor-old",
	[SC_FSNOTIFYD] = "fsnotifyd",
	[SC_FSND_CALM] = "fsnotifyd-calm",
};

static const char *const scenario_descriptions[_SC_MAX] = {
	[SC_NONE] = "no watcher (baseline)",
	/* (parenthesised: one string, not a missing comma, says clang) */
	[SC_FLOOR] = ("cheapest correct responder: FAN_CLASS_CONTENT group, filesystem mark, "
		      "blocking 64 KiB reads, the decision's own work, the answers of a read in "
		      "one writev(), the fds closed"),
	[SC_FLOOR_OLD] = "the first floor: 16 KiB reads, one write() per answer, close",
	[SC_FSNOTIFYD] = "fsnotifyd, one permission rule (filesystem mark), JSON output on "
			 "another tmpfs",
	[SC_FSND_CALM] = "fsnotifyd with the same config, without the storm",
};

enum workload { W_OPEN = 0, W_READ, W_EXEC, _W_MAX };

static const char *const workload_names[_W_MAX] = { "open", "read", "exec" };
static const char *const workload_calls[_W_MAX] = { "open(O_RDONLY)", "pread() of 1 byte",
						    "execve() (ENOEXEC)" };
static const char *const workload_events[_W_MAX] = { "open_perm", "access_perm", "open_exec_perm" };
static const uint64_t workload_masks[_W_MAX] = { FAN_OPEN_PERM, FAN_ACCESS_PERM,
						 FAN_OPEN_EXEC_PERM };

enum decision { D_NONE = 0, D_PATH, D_PROC, _D_MAX };

static const char *const decision_names[_D_MAX] = { "none", "path", "proc" };

enum quantile { Q_P50 = 0, Q_P90, Q_P99, _Q_MAX };

static const double quantiles[_Q_MAX] = { 0.50, 0.90, 0.99 };
static const char *const quantile_names[_Q_MAX] = { "p50", "p90", "p99" };

struct perm_opts {
	unsigned rounds;
	uint64_t ops;    /* per opener */
	uint64_t warmup; /* per opener */
	bool quick;
	bool pin;
	enum workload workload;
	enum decision decision;
	bool deny;
	unsigned openers;
	unsigned storm;       /* generators, 0: no storm */
	unsigned subscribers; /* live Watch clients on fsnotifyd's control socket meanwhile */
	int cpu;              /* pinned to this CPU, -1: not pinned */
	const char *json_path;
	const char *plot_path;
	const char *fsnotifyd;
};

struct perm_env {
	char base[64];
	char guard[96];
	char out[96];
	char storm[96]; /* "" without --storm */
	char file[128];
	char cfg[128];
	char events[128];
	char log[128];
	char sock[128]; /* fsnotifyd's control socket */
};

struct daemon_stats {
	int64_t answered; /* allowed + denied; -1: no stats record */
	double p50_us, p99_us;
};

struct result {
	bool ran;
	char note[512];
	uint64_t *ns;               /* rounds x samples, round after round */
	double *round_us;           /* rounds x _Q_MAX, per-round percentiles */
	double pooled_us[_Q_MAX];   /* over all samples */
	struct daemon_stats *stats; /* fsnotifyd: per round */
};

struct ratio {
	double gmean, lo, hi;
};

static size_t samples_per_round(const struct perm_opts *o) {
	return (size_t)o->ops * o->openers;
}

static bool is_fsnotifyd(enum scenario s) {
	return s == SC_FSNOTIFYD || s == SC_FSND_CALM;
}

static bool is_floor(enum scenario s) {
	return s == SC_FLOOR || s == SC_FLOOR_OLD;
}

/* ------------------------------------------------------------------------ */
/* Namespace and tmpfs                                                       */
/* ------------------------------------------------------------------------ */

static int env_setup(struct perm_env *env, const struct perm_opts *o) {
	int r;

	r = bench_env_enter(env->base, sizeof(env->base), "/tmp/fsn-bench-p.XXXXXX");
	if (r < 0)
		return r;
	r = bench_mount_tmpfs(env->base, "g", "1m", env->guard, sizeof(env->guard));
	/* (a storm's records go to /dev/null, the permission rule's here) */
	if (r == 0)
		r = bench_mount_tmpfs(env->base, "o", "64m", env->out, sizeof(env->out));
	if (r == 0 && o->storm)
		r = bench_mount_tmpfs(env->base, "s", "64m", env->storm, sizeof(env->storm));
	if (r < 0)
		return r;
	for (unsigned i = 0; i < o->storm; i++) {
		char dir[160];

		snprintf(dir, sizeof(dir), "%s/g%u", env->storm, i);
		if (mkdir(dir, 0700) < 0)
			return negative_errno();
	}
	snprintf(env->file, sizeof(env->file), "%s/file", env->guard);
	snprintf(env->cfg, sizeof(env->cfg), "%s/fsnotifyd.conf", env->out);
	snprintf(env->events, sizeof(env->events), "%s/events.jsonl", env->out);
	snprintf(env->log, sizeof(env->log), "%s/fsnotifyd.log", env->out);
	snprintf(env->sock, sizeof(env->sock), "%s/control", env->out);
	if (o->workload != W_EXEC)
		return bench_make_file(env->file, FILE_SIZE);
	/* not a format the kernel runs: execve() opens it (the event), then
	 * fails with ENOEXEC */
	{
		_cleanup_close_ int fd =
		    open(env->file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0755);
		static const char zeros[4];

		if (fd < 0 || write(fd, zeros, sizeof(zeros)) != (ssize_t)sizeof(zeros))
			return fd < 0 ? negative_errno() : -EIO;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The floors                                                               */
/* ------------------------------------------------------------------------ */

/* A small file of /proc read whole (as the daemon reads it), -errno. */
static ssize_t read_proc(const char *path, char *buf, size_t len) {
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, len - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	return n;
}

/* The decision's own work for one event (the rule never matches: the
 * answer is the verdict either way, as fsnotifyd's). */
static void floor_decide(const struct perm_opts *o, int proc_fd,
			 const struct fanotify_event_metadata *md) {
	char path[PATH_MAX], buf[4096];
	ssize_t n;

	if (o->decision == D_PATH) {
		char name[16];

		snprintf(name, sizeof(name), "%d", md->fd);
		n = readlinkat(proc_fd, name, path, sizeof(path) - 1);
		if (n > 0) {
			path[n] = '\0';
			(void)!strcmp(path, "/never");
		}
	} else if (o->decision == D_PROC) {
		const char *uid;

		snprintf(path, sizeof(path), "/proc/%d/status", (int)md->pid);
		if (read_proc(path, buf, sizeof(buf)) > 0 && (uid = strstr(buf, "\nUid:")))
			(void)!(strtoul(uid + 5, NULL, 10) == 54321);
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)md->pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			(void)!strcmp(buf, "/never");
		}
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)md->pid);
		if (read_proc(path, buf, sizeof(buf)) > 0)
			(void)!strcmp(buf, "never\n");
	}
}

/* tuned: the floor; else floor-old. */
static int floor_main(const struct perm_env *env, const struct perm_opts *o, bool tuned,
		      int status_fd) {
	static union {
		struct fanotify_event_metadata md;
		char bytes[64 * 1024];
	} buf;
	static struct fanotify_response resp[64 * 1024 / FAN_EVENT_METADATA_LEN];
	static struct iovec iov[ELEMENTSOF(resp)];
	const uint32_t verdict = o->deny ? FAN_DENY : FAN_ALLOW;
	const size_t len = tuned ? sizeof(buf.bytes) : 16384;
	int32_t status = 0;
	int fd, proc_fd;

	proc_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fd < 0 || proc_fd < 0 ||
	    fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, workload_masks[o->workload],
			  AT_FDCWD, env->guard) < 0)
		status = negative_errno();
	if (write(status_fd, &status, sizeof(status)) != (ssize_t)sizeof(status) || status < 0)
		return 1;
	close(status_fd);
	for (;;) {
		ssize_t n = read(fd, buf.bytes, len);
		size_t k = 0, done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		for (struct fanotify_event_metadata *md = &buf.md; FAN_EVENT_OK(md, n);
		     md = FAN_EVENT_NEXT(md, n)) {
			if (md->fd < 0)
				continue;
			floor_decide(o, proc_fd, md);
			resp[k] = (struct fanotify_response){ .fd = md->fd, .response = verdict };
			if (!tuned) {
				if (write(fd, &resp[k], sizeof(resp[k])) !=
				    (ssize_t)sizeof(resp[k]))
					return 1;
				close(md->fd);
				continue;
			}
			iov[k] = (struct iovec){ .iov_base = &resp[k], .iov_len = sizeof(resp[k]) };
			k++;
		}
		/* fanotify has no write_iter: writev() hands each iovec to its
		 * write(), one response each, in one system call */
		while (done < k) {
			size_t m = k - done < IOV_MAX ? k - done : IOV_MAX;
			ssize_t w = writev(fd, iov + done, (int)m);

			if (w < 0 || w % (ssize_t)sizeof(resp[0]) != 0 || w == 0)
				return 1;
			done += (size_t)w / sizeof(resp[0]);
		}
		for (size_t i = 0; i < k; i++)
			close(resp[i].fd);
	}
}

/* ------------------------------------------------------------------------ */
/* The storm                                                                */
/* ------------------------------------------------------------------------ */

/* Any CPU: the storm is not the bench's pinned work. */
static void unpin(void) {
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/* create, write, close, rename, unlink on unique names, until killed */
static int generator_main(const char *dir) {
	_cleanup_close_ int dfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);

	for (uint64_t k = 0; dfd >= 0; k++)
		if (bench_churn_once(dfd, k) < 0)
			return 1;
	return 1;
}

/* The storm's reader for the scenarios without fsnotifyd: consumers'
 * floor (256 KiB reads, 1 ms to gather after a short one, nothing else). */
static int storm_reader_main(const char *storm, int status_fd) {
	static char buf[256 * 1024] __attribute__((aligned(8)));
	const struct timespec gather = { .tv_nsec = 1000000L };
	int32_t status = 0;
	int fd;

	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_CLOEXEC, O_RDONLY);
	if (fd < 0 || fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				    FAN_CREATE | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_MOVED_FROM |
					FAN_MOVED_TO | FAN_DELETE,
				    AT_FDCWD, storm) < 0)
		status = negative_errno();
	if (write(status_fd, &status, sizeof(status)) != (ssize_t)sizeof(status) || status < 0)
		return 1;
	close(status_fd);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		if ((size_t)n < sizeof(buf) / 2)
			nanosleep(&gather, NULL);
	}
}

/* What a responder or reader child runs: 0 placed, written to status_fd
 * as an int32 (its -errno otherwise), then its loop. */
struct child {
	const struct perm_env *env;
	const struct perm_opts *o;
	bool tuned;
};

static int floor_child(const struct child *c, int status_fd) {
	return floor_main(c->env, c->o, c->tuned, status_fd);
}

static int storm_reader_child(const struct child *c, int status_fd) {
	unpin();
	return storm_reader_main(c->env->storm, status_fd);
}

/* Fork fn; ready once it said its marks are placed. */
static int child_start(int (*fn)(const struct child *c, int status_fd), const struct child *c,
		       pid_t *ret_pid) {
	int32_t status = 0;
	int p[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int r = negative_errno();

		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		_exit(fn(c, p[1]));
	}
	close(p[1]);
	n = read(p[0], &status, sizeof(status));
	close(p[0]);
	if (n != (ssize_t)sizeof(status) || status < 0) {
		bench_kill_wait(pid);
		return n != (ssize_t)sizeof(status) ? -ESRCH : status;
	}
	*ret_pid = pid;
	return 0;
}

/* G generators on S, unpinned; pids[0..G). */
static int storm_start(const struct perm_env *env, unsigned n, pid_t *pids) {
	for (unsigned i = 0; i < n; i++) {
		char dir[160];

		snprintf(dir, sizeof(dir), "%s/g%u", env->storm, i);
		fflush(NULL);
		pids[i] = fork();
		if (pids[i] < 0)
			return negative_errno();
		if (pids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			unpin();
			_exit(generator_main(dir));
		}
	}
	return 0;
}

static void storm_stop(pid_t *pids, unsigned n) {
	for (unsigned i = 0; i < n; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			(void)waitpid(pids[i], NULL, 0);
			pids[i] = 0;
		}
}

/* ------------------------------------------------------------------------ */
/* fsnotifyd                                                                 */
/* ------------------------------------------------------------------------ */

/* The rule's decisions (that never match): on a path, or on what /proc
 * says about the process (three, so that each is read). */
static void write_decisions(FILE *f, const struct perm_env *env, const struct perm_opts *o) {
	const char *v = o->deny ? "allow" : "deny";

	if (o->decision == D_PATH)
		fprintf(f, "  decisions = ({ paths = [\"%s/never\"]; verdict = \"%s\"; });\n",
			env->guard, v);
	else if (o->decision == D_PROC)
		fprintf(f,
			"  decisions = ({ uids = [54321]; verdict = \"%s\"; },\n"
			"               { exes = [\"/never\"]; verdict = \"%s\"; },\n"
			"               { comms = [\"never\"]; verdict = \"%s\"; });\n",
			v, v, v);
}

static int write_config(const struct perm_env *env, const struct perm_opts *o) {
	FILE *f = fopen(env->cfg, "we");

	if (!f)
		return negative_errno();
	fprintf(f,
		"# generated by fsn-bench perm\n"
		"log_level = \"warning\";\n"
		"outputs = [\"perm\"];\n"
		"output = { perm = { type = \"json\"; file = \"%s\"; };\n"
		"           storm = { type = \"json\"; file = \"/dev/null\"; }; };\n"
		"control = { socket = \"%s\"; };\n"
		"rules = ({\n"
		"  name = \"guard\";\n"
		"  paths = [\"%s\"];\n"
		"  mark = \"filesystem\";\n"
		"  recursive = true;\n"
		"  events = [\"%s\"];\n"
		"  default = \"%s\";\n",
		env->events, env->sock, env->guard, workload_events[o->workload],
		o->deny ? "deny" : "allow");
	write_decisions(f, env, o);
	fprintf(f, "  outputs = [\"perm\"];\n}");
	if (o->storm)
		fprintf(f,
			", {\n"
			"  name = \"storm\";\n"
			"  paths = [\"%s\"];\n"
			"  recursive = true;\n"
			"  events = [\"create\", \"modify\", \"close_write\", \"moved_from\", "
			"\"moved_to\", \"delete\"];\n"
			"  outputs = [\"storm\"];\n}",
			env->storm);
	fputs(");\n", f);
	return bench_fclose(f);
}

/* The first line of a file (the daemon's first complaint), or "". */
static void first_line(const char *path, char *buf, size_t len) {
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && !fgets(buf, (int)len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* `fsnotifyd --check-config` on the generated config: 0 when accepted, else
 * -errno with "skipped: " and the daemon's first line of complaint in note. */
static int fsnotifyd_check(const struct perm_env *env, const struct perm_opts *o, char *note,
			   size_t len) {
	char *argv[] = { (char *)o->fsnotifyd, (char *)"--check-config", (char *)env->cfg, NULL };
	char line[384];
	pid_t pid;
	int r;

	r = write_config(env, o);
	if (r == 0)
		r = bench_spawn(argv, env->log, NULL, &pid);
	if (r < 0) {
		snprintf(note, len, "skipped: %s", strerror(-r));
		return r;
	}
	if (bench_wait_pid(pid) == 0)
		return 0;
	first_line(env->log, line, sizeof(line));
	snprintf(note, len, "skipped: %s", line[0] ? line : "fsnotifyd --check-config failed");
	return -EINVAL;
}

/* The last stats record of rule "guard" in the daemon's output. */
static void read_daemon_stats(const char *path, struct daemon_stats *ret) {
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	*ret = (struct daemon_stats){ .answered = -1, .p50_us = NAN, .p99_us = NAN };
	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct json *j = NULL;
		const char *kind, *rule;
		size_t off;

		if (json_parse(line, (size_t)len, &j, &off) < 0)
			continue;
		kind = json_get_string(j, "kind");
		rule = json_get_string(j, "rule");
		if (kind && rule && strcmp(kind, "stats") == 0 && strcmp(rule, "guard") == 0)
			*ret = (struct daemon_stats){
				.answered = (int64_t)json_get_number(j, "allowed", -1) +
					    (int64_t)json_get_number(j, "denied", 0),
				.p50_us = json_get_number(j, "latency_p50_us", NAN),
				.p99_us = json_get_number(j, "latency_p99_us", NAN),
			};
		json_free(j);
	}
	free(line);
	fclose(f);
}

/* ------------------------------------------------------------------------ */
/* The workload                                                              */
/* ------------------------------------------------------------------------ */

struct wl {
	const struct perm_opts *o;
	const char *path;
	int fd;   /* W_READ: the file, opened once (no event: the mark wants reads) */
	int want; /* the errno every call must end with (0: success) */
};

/* guarded: a responder answers (with the verdict), else nobody asks. */
static int workload_init(struct wl *w, const struct perm_opts *o, const char *path, bool guarded) {
	*w = (struct wl){ .o = o, .path = path, .fd = -1 };
	w->want = guarded && o->deny ? EPERM : o->workload == W_EXEC ? ENOEXEC : 0;
	if (o->workload == W_READ) {
		w->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (w->fd < 0)
			return negative_errno();
	}
	return 0;
}

/* One call, timed into *ns (may be NULL); 0, or -errno when it did not end
 * as it must. */
static int workload_once(struct wl *w, uint64_t *ns) {
	char *const argv[] = { (char *)w->path, NULL }, *const envp[] = { NULL };
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC), t1;
	int fd = -1, err = 0;
	char c;

	switch (w->o->workload) {
	case W_OPEN:
		fd = open(w->path, O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
		break;
	case W_READ: err = pread(w->fd, &c, 1, 0) == 1 ? 0 : errno ? errno : EIO; break;
	case W_EXEC:
		execve(w->path, argv, envp);
		err = errno;
		break;
	default: break;
	}
	t1 = bench_now_ns(CLOCK_MONOTONIC);
	if (fd >= 0)
		close(fd);
	if (ns)
		*ns = t1 - t0;
	return err == w->want ? 0 : -(err ? err : EINVAL);
}

static int workload_loop(struct wl *w, uint64_t n, uint64_t *ns) {
	for (uint64_t i = 0; i < n; i++) {
		int r = workload_once(w, ns ? &ns[i] : NULL);

		if (r < 0)
			return r;
	}
	return 0;
}

static void workload_done(struct wl *w) {
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* --openers 2: each in a process pinned to a CPU of its own, started at
 * once, its samples in shared memory. */
static int openers_run(const struct perm_env *env, const struct perm_opts *o, bool guarded,
		       uint64_t *ns) {
	size_t bytes = samples_per_round(o) * sizeof(uint64_t) + MAX_OPENERS * sizeof(int);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t pids[MAX_OPENERS] = { 0 };
	uint64_t *shared;
	int go[2], r = 0, *res;

	shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -ENOMEM;
	res = (int *)(shared + samples_per_round(o));
	if (pipe2(go, O_CLOEXEC) < 0) {
		munmap(shared, bytes);
		return negative_errno();
	}
	fflush(NULL);
	for (unsigned i = 0; i < o->openers; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			r = negative_errno();
			break;
		}
		if (pids[i] == 0) {
			struct wl w;
			cpu_set_t set;
			char c;
			int k;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(go[1]);
			if (o->pin && ncpu > 0) {
				CPU_ZERO(&set);
				CPU_SET((int)(i % (unsigned)ncpu), &set);
				(void)sched_setaffinity(0, sizeof(set), &set);
			}
			k = workload_init(&w, o, env->file, guarded);
			if (k == 0 && read(go[0], &c, 1) < 0)
				k = negative_errno();
			if (k == 0)
				k = workload_loop(&w, o->warmup, NULL);
			if (k == 0)
				k = workload_loop(&w, o->ops, shared + (size_t)i * o->ops);
			res[i] = k;
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]); /* GO */
	for (unsigned i = 0; i < o->openers; i++)
		if (pids[i] > 0 && bench_wait_pid(pids[i]) < 0 && r == 0)
			r = -ECHILD;
	for (unsigned i = 0; i < o->openers && r == 0; i++)
		r = res[i];
	memcpy(ns, shared, samples_per_round(o) * sizeof(uint64_t));
	munmap(shared, bytes);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Cells and rounds                                                          */
/* ------------------------------------------------------------------------ */

/* One cell: start the scenario's responder (and the storm), warm up, time
 * the calls, stop everything. */
static int run_cell(const struct perm_env *env, const struct perm_opts *o, enum scenario s,
		    uint64_t *ns, struct daemon_stats *stats) {
	pid_t pid = 0, subs = 0, reader = 0, gens[MAX_STORM] = { 0 };
	bool storm = o->storm && s != SC_FSND_CALM;
	struct wl w = { .fd = -1 };
	int r = 0;

	if (is_floor(s)) {
		r = child_start(floor_child, &(struct child){ env, o, s == SC_FLOOR }, &pid);
	} else if (is_fsnotifyd(s)) {
		unlink(env->events);
		r = bench_fsnotifyd_start(o->fsnotifyd, env->cfg, env->out, &pid);
		/* (they connect now; the warm-up gives the daemon time to take them) */
		if (r == 0 && o->subscribers)
			r = bench_subscribers_start(env->sock, o->subscribers, &subs);
	}
	if (r == 0 && storm && !is_fsnotifyd(s))
		r = child_start(storm_reader_child, &(struct child){ env, o, true }, &reader);
	if (r == 0 && storm)
		r = storm_start(env, o->storm, gens);
	if (r == 0 && o->openers > 1)
		r = openers_run(env, o, s != SC_NONE, ns);
	else if (r == 0) {
		r = workload_init(&w, o, env->file, s != SC_NONE);
		if (r == 0)
			r = workload_loop(&w, o->warmup, NULL);
		if (r == 0)
			r = workload_loop(&w, o->ops, ns);
		workload_done(&w);
	}
	storm_stop(gens, o->storm);
	bench_kill_wait(reader);
	bench_kill_wait(subs);
	bench_kill_wait(pid);
	if (is_fsnotifyd(s))
		read_daemon_stats(env->events, stats);
	return r;
}

static int run_rounds(const struct perm_env *env, const struct perm_opts *o, struct result *res) {
	uint64_t t_start = bench_now_ns(CLOCK_MONOTONIC);
	char line[384];

	for (unsigned round = 0; round < o->rounds; round++) {
		for (unsigned i = 0; i < _SC_MAX; i++) {
			enum scenario s = (i + round) % _SC_MAX;
			struct result *x = &res[s];
			int r;

			if (!x->ran)
				continue;
			r = run_cell(env, o, s, x->ns + (size_t)round * samples_per_round(o),
				     x->stats ? &x->stats[round] : NULL);
			if (r == 0)
				continue;
			if (!is_fsnotifyd(s)) {
				fprintf(stderr, "fsn-bench perm: scenario %s, round %u: %s\n",
					scenario_names[s], round + 1, strerror(-r));
				return r;
			}
			/* the daemon did not start (bench_fsnotifyd_start() showed
			 * its log) or the calls failed: report its first complaint */
			x->ran = false;
			first_line(env->log, line, sizeof(line));
			if (r == -ESRCH && round == 0)
				snprintf(x->note, sizeof(x->note), "skipped: %s",
					 line[0] ? line : "fsnotifyd did not start");
			else
				snprintf(x->note, sizeof(x->note), "failed in round %u: %s",
					 round + 1, r == -ESRCH && line[0] ? line : strerror(-r));
			fprintf(stderr, "fsn-bench perm: %s: %s\n", scenario_names[s], x->note);
		}
		bench_progress("perm", round + 1, o->rounds, t_start);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Summary, table, JSON                                                      */
/* ------------------------------------------------------------------------ */

static void summarize(const struct perm_opts *o, struct result *x) {
	size_t per = samples_per_round(o), n = (size_t)o->rounds * per;
	double ns[_Q_MAX];

	for (unsigned r = 0; r < o->rounds; r++) {
		bench_quantiles(x->ns + (size_t)r * per, per, quantiles, _Q_MAX, ns);
		for (unsigned q = 0; q < _Q_MAX; q++)
			x->round_us[r * _Q_MAX + q] = ns[q] / 1e3;
	}
	/* each round is sorted now; the pooled quantiles sort the whole */
	bench_quantiles(x->ns, n, quantiles, _Q_MAX, ns);
	for (unsigned q = 0; q < _Q_MAX; q++)
		x->pooled_us[q] = ns[q] / 1e3;
}

/* a's per-round q against b's: geometric mean and 95 % t-interval. */
static void ratio_of(const struct perm_opts *o, const struct result *a, const struct result *b,
		     enum quantile q, struct ratio *ret) {
	double logs[MAX_ROUNDS];

	*ret = (struct ratio){ NAN, NAN, NAN };
	if (!a->ran || !b->ran)
		return;
	for (unsigned r = 0; r < o->rounds; r++)
		logs[r] = log(a->round_us[r * _Q_MAX + q] / b->round_us[r * _Q_MAX + q]);
	bench_log_ci(logs, o->rounds, &ret->gmean, &ret->lo, &ret->hi);
}

static void round_range(const struct perm_opts *o, const struct result *x, enum quantile q,
			double *ret_min, double *ret_max) {
	*ret_min = INFINITY;
	*ret_max = -INFINITY;
	for (unsigned r = 0; r < o->rounds; r++) {
		*ret_min = fmin(*ret_min, x->round_us[r * _Q_MAX + q]);
		*ret_max = fmax(*ret_max, x->round_us[r * _Q_MAX + q]);
	}
}

/* Calls fsnotifyd answered over all rounds (its stats records), -1 when a
 * round had no stats record. */
static int64_t daemon_answered(const struct perm_opts *o, const struct result *x) {
	int64_t sum = 0;

	for (unsigned r = 0; x->stats && r < o->rounds; r++) {
		if (x->stats[r].answered < 0)
			return -1;
		sum += x->stats[r].answered;
	}
	return sum;
}

/* The targets this run states: fsnotifyd against the floor (p50 and p99),
 * and during a storm fsnotifyd's p99 against its own without it. */
struct target {
	const char *key; /* JSON */
	const char *label;
	enum scenario a, b;
	enum quantile q;
	double limit;
};

static size_t run_targets(const struct perm_opts *o, struct target *t) {
	bool decides = o->decision != D_NONE;
	size_t n = 0;

	t[n++] = (struct target){ "p50_vs_floor", "p50 vs floor",
				  SC_FSNOTIFYD,   SC_FLOOR,
				  Q_P50,          decides ? TARGET_DECISION : TARGET_P50 };
	t[n++] = (struct target){ "p99_vs_floor", "p99 vs floor",
				  SC_FSNOTIFYD,   SC_FLOOR,
				  Q_P99,          decides ? TARGET_DECISION : TARGET_P99 };
	if (o->storm)
		t[n++] = (struct target){ "p99_storm_vs_calm",
					  "p99 with the storm vs without",
					  SC_FSNOTIFYD,
					  SC_FSND_CALM,
					  Q_P99,
					  TARGET_STORM_P99 };
	return n;
}

static const char *target_verdict(const struct ratio *rt, double limit, char *buf, size_t len) {
	if (!isfinite(rt->gmean))
		return "not measured";
	if (rt->gmean > limit)
		snprintf(buf, len, "%s", rt->lo > limit ? "missed" : "missed, the 95% CI includes");
	else
		snprintf(buf, len, "%s", rt->hi <= limit ? "met" : "met, the 95% CI includes");
	if (strstr(buf, "includes"))
		snprintf(buf + strlen(buf), len - strlen(buf), " %.1f", limit);
	return buf;
}

static const struct {
	enum scenario a, b;
} ratio_pairs[] = {
	{ SC_FLOOR, SC_NONE },          { SC_FLOOR_OLD, SC_NONE },      { SC_FSNOTIFYD, SC_NONE },
	{ SC_FSNOTIFYD, SC_FLOOR },     { SC_FSNOTIFYD, SC_FLOOR_OLD }, { SC_FLOOR, SC_FLOOR_OLD },
	{ SC_FSNOTIFYD, SC_FSND_CALM },
};

static void print_table(const struct perm_opts *o, const struct result *res) {
	const struct result *fd = &res[SC_FSNOTIFYD];
	uint64_t calls = (uint64_t)o->rounds * (o->ops + o->warmup) * o->openers;
	int64_t answered = daemon_answered(o, fd);
	struct target t[4];
	size_t nt = run_targets(o, t);
	char where[96], extra[256] = "";

	if (o->openers > 1)
		snprintf(where, sizeof(where), "%u openers at once%s, responders not pinned",
			 o->openers, o->pin ? ", each on a CPU of its own" : "");
	else if (o->cpu >= 0)
		snprintf(where, sizeof(where), "bench and responders all on CPU %d", o->cpu);
	else
		snprintf(where, sizeof(where), "bench and responders not pinned");
	if (o->decision != D_NONE)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 "; decisions on the %s",
			 o->decision == D_PATH ? "path" : "uid, exe, comm");
	if (o->deny)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "; verdict deny");
	if (o->storm)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 "; a %u-generator storm on another tmpfs", o->storm);
	if (o->subscribers)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 "; %u subscribers on fsnotifyd's control socket", o->subscribers);
	printf("fsn-bench perm: %s of a file on a guarded tmpfs (%s); one sample = the call%s\n"
	       "%u rounds x %" PRIu64 " calls per opener and scenario, warm-up %" PRIu64
	       ", %s%s\n\n",
	       workload_calls[o->workload], workload_events[o->workload],
	       o->workload == W_OPEN ? " (close not timed)" : "", o->rounds, o->ops, o->warmup,
	       where, extra);
	printf("%-15s %9s %9s %9s %9s  %-18s  %s\n", "scenario", "samples", "p50_us", "p90_us",
	       "p99_us", "p50 range, rounds", "p99 range, rounds");
	for (unsigned s = 0; s < _SC_MAX; s++) {
		const struct result *x = &res[s];
		double a, b, c, d;

		if (s == SC_FSND_CALM && !o->storm)
			continue;
		if (!x->ran) {
			printf("%-15s %s\n", scenario_names[s], x->note);
			continue;
		}
		round_range(o, x, Q_P50, &a, &b);
		round_range(o, x, Q_P99, &c, &d);
		printf("%-15s %9zu %9.2f %9.2f %9.2f  [%7.2f, %7.2f]  [%7.2f, %7.2f]\n",
		       scenario_names[s], (size_t)o->rounds * samples_per_round(o),
		       x->pooled_us[Q_P50], x->pooled_us[Q_P90], x->pooled_us[Q_P99], a, b, c, d);
	}
	printf("\nratios: geometric mean over rounds of the per-round ratio, 95%% t-interval\n");
	printf("%-29s %8s  %-18s %8s  %s\n", "", "p50", "95% CI", "p99", "95% CI");
	for (size_t i = 0; i < ELEMENTSOF(ratio_pairs); i++) {
		const struct result *a = &res[ratio_pairs[i].a], *b = &res[ratio_pairs[i].b];
		struct ratio r50, r99;
		char label[48];

		if (!a->ran || !b->ran)
			continue;
		ratio_of(o, a, b, Q_P50, &r50);
		ratio_of(o, a, b, Q_P99, &r99);
		snprintf(label, sizeof(label), "%s / %s", scenario_names[ratio_pairs[i].a],
			 scenario_names[ratio_pairs[i].b]);
		printf("%-29s %8.2f  [%7.2f, %7.2f] %8.2f  [%7.2f, %7.2f]\n", label, r50.gmean,
		       r50.lo, r50.hi, r99.gmean, r99.lo, r99.hi);
	}
	if (!fd->ran)
		return;
	if (answered < 0)
		printf("\nfsnotifyd wrote no stats record for rule 'guard' in some round: how many "
		       "calls it answered is unknown\n");
	else
		printf("\nfsnotifyd answered %" PRId64 " of the bench's %" PRIu64
		       " calls (its stats records)%s\n",
		       answered, calls,
		       (uint64_t)answered < calls ? ": FEWER, the rule did not guard every call"
						  : "");
	printf("targets for fsnotifyd (printed, never an exit status):\n");
	for (size_t i = 0; i < nt; i++) {
		struct ratio rt;
		char v[64];

		if (!res[t[i].b].ran)
			continue;
		ratio_of(o, fd, &res[t[i].b], t[i].q, &rt);
		printf("  %s <= %.1fx: %.2fx [%.2f, %.2f]  [%s]\n", t[i].label, t[i].limit,
		       rt.gmean, rt.lo, rt.hi, target_verdict(&rt, t[i].limit, v, sizeof(v)));
	}
}

/* "key": {"ratio": .., "ci_low": .., "ci_high": .. -- the caller closes it. */
static void json_ratio(FILE *f, const char *key, const struct ratio *rt) {
	fprintf(f, "\"%s\": {\"ratio\": ", key);
	json_write_number(f, rt->gmean);
	fputs(", \"ci_low\": ", f);
	json_write_number(f, rt->lo);
	fputs(", \"ci_high\": ", f);
	json_write_number(f, rt->hi);
}

static void json_quantiles(FILE *f, const double *us) {
	for (unsigned q = 0; q < _Q_MAX; q++) {
		fprintf(f, ", \"%s_us\": ", quantile_names[q]);
		json_write_number(f, us[q]);
	}
}

static void json_result(FILE *f, const struct perm_opts *o, const struct result *res,
			enum scenario s) {
	const struct result *x = &res[s], *base = &res[SC_NONE];
	double ops[MAX_ROUNDS], logs[MAX_ROUNDS], gmean = NAN, lo, hi;

	fprintf(f, "\n    {\"scenario\": \"%s\", \"workload\": \"%s\", \"description\": ",
		scenario_names[s], workload_names[o->workload]);
	json_write_string(f, scenario_descriptions[s]);
	fprintf(f, ", \"ran\": %s, \"note\": ", x->ran ? "true" : "false");
	json_write_string(f, x->note);
	fputs(",\n     \"rounds\": [", f);
	for (unsigned r = 0; x->ran && r < o->rounds; r++) {
		const double *us = &x->round_us[r * _Q_MAX];

		/* what compare reads: calls/s at the median latency, and the
		 * same round's 'none' p50 over this p50 (higher is cheaper) */
		ops[r] = 1e6 / us[Q_P50];
		logs[r] = log(base->round_us[r * _Q_MAX + Q_P50] / us[Q_P50]);
		fprintf(f, "%s\n       {\"samples\": %zu", r ? "," : "", samples_per_round(o));
		json_quantiles(f, us);
		fputs(", \"ops_per_s\": ", f);
		json_write_number(f, ops[r]);
		fputs(", \"ratio\": ", f);
		json_write_number(f, exp(logs[r]));
		if (x->stats) {
			fputs(", \"fsnotifyd_answered\": ", f);
			if (x->stats[r].answered >= 0)
				fprintf(f, "%" PRId64, x->stats[r].answered);
			else
				fputs("null", f);
			fputs(", \"fsnotifyd_p50_us\": ", f);
			json_write_number(f, x->stats[r].p50_us);
			fputs(", \"fsnotifyd_p99_us\": ", f);
			json_write_number(f, x->stats[r].p99_us);
		}
		fputc('}', f);
	}
	if (x->ran && base->ran)
		bench_log_ci(logs, o->rounds, &gmean, &lo, &hi);
	fprintf(f, "],\n     \"summary\": {\"samples\": %zu",
		x->ran ? (size_t)o->rounds * samples_per_round(o) : 0);
	json_quantiles(f, x->pooled_us);
	fputs(", \"median_ops_per_s\": ", f);
	json_write_number(f, x->ran ? bench_median(ops, o->rounds) : NAN);
	fputs(", \"ratio\": ", f);
	json_write_number(f, gmean);
	fputs("}}", f);
}

static int write_json(const char *path, const struct perm_opts *o, const struct result *res) {
	const struct result *fd = &res[SC_FSNOTIFYD];
	struct target t[4];
	size_t nt = run_targets(o, t);
	FILE *f = fopen(path, "we");
	bool first;

	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench perm");
	fprintf(f,
		"},\n  \"parameters\": {\"rounds\": %u, \"ops\": %" PRIu64 ", \"warmup\": %" PRIu64
		", \"quick\": %s, \"file_size\": %d, \"baseline\": \"none\", \"confidence\": 0.95, "
		"\"workload\": \"%s\", \"event\": \"%s\", \"decision\": \"%s\", \"verdict\": "
		"\"%s\", \"openers\": %u, \"storm\": %u, "
		"\"sample\": \"the call, CLOCK_MONOTONIC; a close after an open not timed\", "
		"\"metric\": \"calls per second at the round's median latency (1e6 / "
		"p50_us)\", \"cpu\": ",
		o->rounds, o->ops, o->warmup, o->quick ? "true" : "false", FILE_SIZE,
		workload_names[o->workload], workload_events[o->workload],
		decision_names[o->decision], o->deny ? "deny" : "allow", o->openers, o->storm);
	if (o->cpu >= 0)
		fprintf(f, "%d", o->cpu);
	else
		fputs("null", f);
	fprintf(f, ", \"path_policy\": %s, \"subscribers\": %u, \"fsnotifyd\": ",
		o->decision == D_PATH ? "true" : "false", o->subscribers);
	json_write_string(f, o->fsnotifyd);
	fputs("},\n  \"results\": [", f);
	first = true;
	for (unsigned s = 0; s < _SC_MAX; s++) {
		if (s == SC_FSND_CALM && !o->storm)
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		json_result(f, o, res, s);
	}
	fputs("\n  ],\n  \"ratios\": [", f);
	for (size_t i = 0, k = 0; i < ELEMENTSOF(ratio_pairs); i++) {
		const struct result *a = &res[ratio_pairs[i].a], *b = &res[ratio_pairs[i].b];
		struct ratio rt;

		if (!a->ran || !b->ran)
			continue;
		fprintf(f, "%s\n    {\"a\": \"%s\", \"b\": \"%s\", ", k++ ? "," : "",
			scenario_names[ratio_pairs[i].a], scenario_names[ratio_pairs[i].b]);
		ratio_of(o, a, b, Q_P50, &rt);
		json_ratio(f, "p50", &rt);
		fputs("}, ", f);
		ratio_of(o, a, b, Q_P99, &rt);
		json_ratio(f, "p99", &rt);
		fputs("}}", f);
	}
	fputs("\n  ]", f);
	if (fd->ran) {
		fputs(",\n  \"targets\": {", f);
		first = true;
		for (size_t i = 0; i < nt; i++) {
			struct ratio rt;
			char v[64];

			if (!res[t[i].b].ran)
				continue;
			ratio_of(o, fd, &res[t[i].b], t[i].q, &rt);
			fputs(first ? "" : ", ", f);
			first = false;
			json_ratio(f, t[i].key, &rt);
			fprintf(f, ", \"limit\": %.1f, \"met\": %s, \"verdict\": ", t[i].limit,
				rt.gmean <= t[i].limit ? "true" : "false");
			json_write_string(f, target_verdict(&rt, t[i].limit, v, sizeof(v)));
			fputc('}', f);
		}
		fputc('}', f);
	}
	fputs("\n}\n", f);
	return bench_fclose(f);
}

struct run_results {
	const struct perm_opts *o;
	const struct result *res;
};

static int write_json_to(const char *path, const void *userdata) {
	const struct run_results *x = userdata;

	return write_json(path, x->o, x->res);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

/* name among names[0..n): its index, or -EINVAL (said on stderr). */
static int parse_name(const char *what, const char *arg, const char *const *names, size_t n) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(arg, names[i]) == 0)
			return (int)i;
	fprintf(stderr, "fsn-bench perm: invalid %s '%s'\n", what, arg);
	return -EINVAL;
}

static int parse_opts(int argc, char **argv, struct perm_opts *o) {
	enum {
		OPT_PLOT = BENCH_OPT_OWN,
		OPT_NO_PIN,
		OPT_PATHS,
		OPT_SUBS,
		OPT_WORKLOAD,
		OPT_DECISION,
		OPT_VERDICT,
		OPT_OPENERS,
		OPT_STORM,
	};
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "no-pin", no_argument, NULL, OPT_NO_PIN },
		{ "path-policy", no_argument, NULL, OPT_PATHS },
		{ "subscribers", required_argument, NULL, OPT_SUBS },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "decision", required_argument, NULL, OPT_DECISION },
		{ "verdict", required_argument, NULL, OPT_VERDICT },
		{ "openers", required_argument, NULL, OPT_OPENERS },
		{ "storm", required_argument, NULL, OPT_STORM },
		{ 0 },
	};
	static const char *const verdicts[] = { "allow", "deny" };
	struct bench_common com = { .min_rounds = 2,
				    .max_rounds = MAX_ROUNDS,
				    .max_ops = 10000000 };
	uint64_t v;
	int c, r;

	*o = (struct perm_opts){ .pin = true, .cpu = -1, .openers = 1 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_PLOT:
			o->plot_path = optarg;
			r = bench_plot_check_path(optarg);
			break;
		case OPT_NO_PIN:
			o->pin = false;
			r = 0;
			break;
		case OPT_PATHS:
			o->decision = D_PATH;
			r = 0;
			break;
		case OPT_SUBS:
			r = bench_parse_u64("--subscribers", optarg, 0, 1000, &v);
			o->subscribers = (unsigned)v;
			break;
		case OPT_WORKLOAD:
			r = parse_name("workload", optarg, workload_names, _W_MAX);
			o->workload = r >= 0 ? (enum workload)r : W_OPEN;
			r = r < 0 ? r : 0;
			break;
		case OPT_DECISION:
			r = parse_name("decision", optarg, decision_names, _D_MAX);
			o->decision = r >= 0 ? (enum decision)r : D_NONE;
			r = r < 0 ? r : 0;
			break;
		case OPT_VERDICT:
			r = parse_name("verdict", optarg, verdicts, ELEMENTSOF(verdicts));
			o->deny = r == 1;
			r = r < 0 ? r : 0;
			break;
		case OPT_OPENERS:
			r = bench_parse_u64("--openers", optarg, 1, MAX_OPENERS, &v);
			o->openers = (unsigned)v;
			break;
		case OPT_STORM:
			r = bench_parse_u64("--storm", optarg, 0, MAX_STORM, &v);
			o->storm = (unsigned)v;
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
	o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 5 : 20;
	o->ops = com.ops ? com.ops : o->quick ? 2000 : 50000;
	o->warmup = o->ops / 10 ? o->ops / 10 : 1;
	return 0;
}

static void results_free(struct result *res) {
	for (unsigned s = 0; s < _SC_MAX; s++) {
		free(res[s].ns);
		free(res[s].round_us);
		free(res[s].stats);
	}
}

static int results_alloc(const struct perm_opts *o, struct result *res) {
	for (unsigned s = 0; s < _SC_MAX; s++) {
		res[s] = (struct result){ .ran = s != SC_FSND_CALM || o->storm,
					  .pooled_us = { NAN, NAN, NAN } };
		if (!res[s].ran) {
			snprintf(res[s].note, sizeof(res[s].note), "only with --storm");
			continue;
		}
		res[s].ns = calloc((size_t)o->rounds * samples_per_round(o), sizeof(uint64_t));
		res[s].round_us = calloc((size_t)o->rounds * _Q_MAX, sizeof(double));
		if (is_fsnotifyd(s))
			res[s].stats = calloc(o->rounds, sizeof(struct daemon_stats));
		if (!res[s].ns || !res[s].round_us || (is_fsnotifyd(s) && !res[s].stats))
			return -ENOMEM;
	}
	return 0;
}

int bench_perm_main(int argc, char **argv) {
	struct perm_env env = { .base = "" };
	struct result res[_SC_MAX] = { 0 };
	struct perm_opts o;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("perm", "fanotify permission marks"))
		return 77;
	r = results_alloc(&o, res);
	if (r < 0)
		goto out;
	r = env_setup(&env, &o);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
			strerror(-r));
		goto out;
	}
	if (fsnotifyd_check(&env, &o, res[SC_FSNOTIFYD].note, sizeof(res[SC_FSNOTIFYD].note)) < 0) {
		for (unsigned s = SC_FSNOTIFYD; s <= SC_FSND_CALM; s++) {
			if (s != SC_FSNOTIFYD && res[s].ran)
				snprintf(res[s].note, sizeof(res[s].note), "%s",
					 res[SC_FSNOTIFYD].note);
			res[s].ran = false;
		}
		fprintf(stderr, "fsn-bench perm: fsnotifyd: %s\n", res[SC_FSNOTIFYD].note);
	}
	/* one opener: the responders (the floors, fsnotifyd and all its
	 * threads) inherit the opener's CPU; two: each opener pins itself */
	if (o.pin && o.openers == 1 && (r = bench_pin_here(&o.cpu)) < 0)
		goto out;
	r = run_rounds(&env, &o, res);
	bench_env_teardown(env.base);
	env.base[0] = '\0';
	if (r < 0)
		goto out;
	for (unsigned s = 0; s < _SC_MAX; s++)
		if (res[s].ran)
			summarize(&o, &res[s]);
	print_table(&o, res);
	if (o.json_path) {
		r = write_json(o.json_path, &o, res);
		if (r < 0)
			fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
	}
	if (r == 0 && o.plot_path)
		r = bench_plot_run(o.plot_path, o.json_path, write_json_to,
				   &(struct run_results){ &o, res });
out:
	bench_env_teardown(env.base);
	results_free(res);
	return r < 0 ? r : 0;
}
