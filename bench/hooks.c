/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hooks.c — `fsn-bench hooks`: what the fsnotify hooks cost a syscall.
 *
 * The bench process enters a private mount namespace and mounts its own
 * tmpfs instances (fs A with the workload file, fs B, and a bind mount of
 * A; with --fs ext4, fs A is an ext4 on a loop device over a file of a
 * tmpfs, for the scenarios tmpfs cannot have: a pre-content watcher).
 * Every round visits every scenario in a rotated order. A scenario is set
 * up by one helper process that owns the inotify/fanotify fd and drains it
 * (answering permission events with FAN_ALLOW); the bench process keeps no
 * notification fd of its own. For each workload a fresh child is forked
 * *after* the scenario is in place, so it opens its fds with the marks
 * already present and shares no file table with anyone. The child warms
 * up, reports ready, runs N operations on a GO from the parent and reports
 * wall time and CPU time (its own plus the pipe peer's). The parent adds
 * the helper's CPU time over the same window, so the figure of merit is
 * operations per CPU-second of everything the scenario makes work.
 *
 * Each round's ops per CPU-second is divided by the same round's "none";
 * the geometric mean of these paired ratios and a 95 % t-interval over the
 * per-round log-ratios say whether a difference is real. "none-ctl" is a
 * second "none" in every round: its interval shows the noise floor.
 *
 * With --icount (a single-CPU guest under qemu -icount, as `fsn-bench vm`
 * runs it) the clock counts instructions: the figure is operations per
 * second of that clock, the wall time of the loop, which on the one CPU
 * includes the pipe peer and the helper; CPU-time accounting is not used.
 *
 * With --fsnotifyd-config FILE, scenario "fsnotifyd" runs the daemon on FILE
 * instead of a helper (consumers.c starts it); its CPU comes from /proc.
 * The workload's paths exist only in the bench's private namespace, so
 * FILE may name them: "@FS@" (the tmpfs the workload runs on) and "@WORK@"
 * (the workload's directory on it) are replaced before the daemon reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "fsn.h"
#include "json.h"
#include "loopdev.h"
#include "plot.h"
#include "result.h"
#include "stats.h"
#include "util.h"

/* ------------------------------------------------------------------------ */
/* Workloads and scenarios                                                  */
/* ------------------------------------------------------------------------ */

enum workload {
	WL_PWRITE = 0,
	WL_PINGPONG,
	WL_OPENCLOSE,
	WL_PREAD,
	/* every other hook family: dirent, attrib, the other data paths */
	WL_CREATE_UNLINK,
	WL_RENAME,
	WL_CHMOD,
	WL_FTRUNCATE,
	WL_FALLOCATE,
	WL_MMAP,
	WL_SENDFILE,
	WL_SPLICE,
	WL_COPY,
	WL_READDIR,
	WL_EXECVE,
	WL_PIPE_PAIRS,
	_WL_MAX,
};

static const char *const workload_names[_WL_MAX] = {
	[WL_PWRITE] = "pwrite",
	[WL_PINGPONG] = "pipe-pingpong",
	[WL_OPENCLOSE] = "open-close",
	[WL_PREAD] = "pread",
	[WL_CREATE_UNLINK] = "create-unlink",
	[WL_RENAME] = "rename",
	[WL_CHMOD] = "chmod",
	[WL_FTRUNCATE] = "ftruncate",
	[WL_FALLOCATE] = "fallocate",
	[WL_MMAP] = "mmap-fault",
	[WL_SENDFILE] = "sendfile",
	[WL_SPLICE] = "splice",
	[WL_COPY] = "copy-file-range",
	[WL_READDIR] = "readdir",
	[WL_EXECVE] = "execve",
	[WL_PIPE_PAIRS] = "pipe-pairs",
};

enum scenario {
	SC_NONE = 0,
	SC_NONE_CTL,
	SC_INO_SAME_FS,
	SC_INO_OTHER_FS,
	SC_INO_PARENT_NOMATCH,
	SC_INO_PARENT_DRAIN,
	SC_FAN_MOUNT_OTHER,
	SC_FAN_FS_NOMATCH,
	SC_PERM_OTHER_FS,
	SC_PERM_SAME_FS,
	SC_INO_PIPE,
	SC_FAN_PARENT_CHILD,
	SC_FAN_PARENT_NOCHILD,
	SC_HSM_SAME_FS,
	SC_FSNOTIFYD, /* only with --fsnotifyd-config */
	_SC_MAX,
};

static const char *const scenario_names[_SC_MAX] = {
	[SC_NONE] = "none",
	[SC_NONE_CTL] = "none-ctl",
	[SC_INO_SAME_FS] = "ino-same-fs",
	[SC_INO_OTHER_FS] = "ino-other-fs",
	[SC_INO_PARENT_NOMATCH] = "ino-parent-nomatch",
	[SC_INO_PARENT_DRAIN] = "ino-parent-drain",
	[SC_FAN_MOUNT_OTHER] = "fan-mount-other",
	[SC_FAN_FS_NOMATCH] = "fan-fs-nomatch",
	[SC_PERM_OTHER_FS] = "perm-other-fs",
	[SC_PERM_SAME_FS] = "perm-same-fs",
	[SC_INO_PIPE] = "ino-pipe",
	[SC_FAN_PARENT_CHILD] = "fan-parent-child",
	[SC_FAN_PARENT_NOCHILD] = "fan-parent-nochild",
	[SC_HSM_SAME_FS] = "hsm-same-fs",
	[SC_FSNOTIFYD] = "fsnotifyd",
};

static const char *const scenario_descriptions[_SC_MAX] = {
	[SC_NONE] = "no watches or marks (baseline)",
	[SC_NONE_CTL] = "no watches or marks, a second time per round (noise control)",
	[SC_INO_SAME_FS] = "inotify IN_ALL_EVENTS on an unrelated directory of fs A",
	[SC_INO_OTHER_FS] = "inotify IN_ALL_EVENTS on a directory of fs B",
	[SC_INO_PARENT_NOMATCH] = "inotify IN_CREATE|IN_DELETE|IN_MOVE on the workload's parent",
	[SC_INO_PARENT_DRAIN] = "inotify IN_ALL_EVENTS on the workload's parent, reader drains",
	[SC_FAN_MOUNT_OTHER] = "fanotify mount mark (modify,access,open,close) on a bind mount of "
			       "fs A that the workload does not use",
	[SC_FAN_FS_NOMATCH] = "fanotify filesystem mark on fs A, DFID_NAME group, mask "
			      "create,delete,move",
	[SC_PERM_OTHER_FS] = "fanotify FAN_OPEN_PERM filesystem mark on fs B, responder",
	[SC_PERM_SAME_FS] = "fanotify FAN_OPEN_PERM filesystem mark on fs A, allow-all responder",
	[SC_INO_PIPE] = "inotify IN_ALL_EVENTS on an unrelated anonymous pipe",
	[SC_FAN_PARENT_CHILD] = "fanotify inode mark (modify,access,open,close) with "
				"FAN_EVENT_ON_CHILD on the workload's parent, reader drains",
	[SC_FAN_PARENT_NOCHILD] = "fanotify inode mark (modify,access,open,close) on the "
				  "workload's parent, without FAN_EVENT_ON_CHILD",
	[SC_HSM_SAME_FS] = "fanotify pre-content group, FAN_PRE_ACCESS inode mark on an unrelated "
			   "file of fs A, allow-all responder (needs --fs ext4)",
	[SC_FSNOTIFYD] =
	    "fsnotifyd running the --fsnotifyd-config FILE (its CPU counts as the helper's)",
};

/* Paths inside the private tmpfs instances. */
struct hooks_env {
	char base[64];
	char fs_a[96];
	char fs_b[96];
	char bind_a[96];
	char workdir[128];
	char file[160];
	char unrelated_a[128];
	char unrelated_file[160]; /* in unrelated_a: hsm-same-fs's mark */
	char dir_b[128];
};

struct sample {
	uint64_t ops;
	uint64_t wall_ns;
	uint64_t cpu_ns;    /* workload process (+ pipe peer) */
	uint64_t helper_ns; /* scenario helper, same window */
};

struct summary {
	double median_ops_s;
	double median_ops_cpu_s;
	double ratio; /* geometric mean of per-round paired ratios */
	double lo, hi;
	bool significant;
};

struct hooks_opts {
	unsigned rounds;
	uint64_t ops;
	uint64_t warmup;
	bool quick;
	bool icount;        /* guest clock = instructions: the metric is wall time */
	bool ext4;          /* --fs ext4: fs A is an ext4 on a loop device */
	uint64_t workloads; /* bit per enum workload */
	uint64_t scenarios; /* bit per enum scenario */
	const char *json_path;
	const char *plot_path;
	const char *fsnotifyd_config; /* SC_FSNOTIFYD: the daemon's config */
	const char *fsnotifyd;
	bool scenarios_given;              /* --scenarios: a missing feature is an error */
	char skipped_reason[_SC_MAX][200]; /* scenarios left out: why ("" = not) */
};

static int write_full(int fd, const void *buf, size_t len) {
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EIO;
}

static int read_full(int fd, void *buf, size_t len) {
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EPIPE;
}

/* ------------------------------------------------------------------------ */
/* Private mount namespace and tmpfs                                         */
/* ------------------------------------------------------------------------ */

/* fs A as an ext4 of 32 MiB: a file on a tmpfs of its own, a loop device
 * over it, mkfs.ext4 (e2fsprogs) and a mount at base/a. */
static int mount_ext4(struct hooks_env *env) {
	char img_dir[96], img[128], dev[32], mkfs[4096];
	char *argv[] = { mkfs, (char *)"-q", (char *)"-F", (char *)"-E", (char *)"nodiscard",
			 dev,  NULL };
	_cleanup_close_ int fd = -1, loop = -1;
	pid_t pid;
	int r;

	if (!find_tool("mkfs.ext4", mkfs, sizeof(mkfs))) {
		fprintf(stderr, "fsn-bench hooks: --fs ext4: no mkfs.ext4 (e2fsprogs)\n");
		return -ENOENT;
	}
	r = bench_mount_tmpfs(env->base, "img", "40m", img_dir, sizeof(img_dir));
	if (r < 0)
		return r;
	snprintf(img, sizeof(img), "%s/a.img", img_dir);
	fd = open(img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 32 << 20) < 0)
		return negative_errno();
	r = loop_attach(fd, dev, sizeof(dev), &loop);
	if (r < 0) {
		fprintf(stderr, "fsn-bench hooks: --fs ext4: a loop device: %s\n", strerror(-r));
		return r;
	}
	r = bench_spawn_in(argv, NULL, -1, NULL, NULL, &pid);
	if (r == 0)
		r = bench_wait_pid(pid);
	if (r != 0) {
		fprintf(stderr, "fsn-bench hooks: --fs ext4: %s %s failed\n", mkfs, dev);
		return r < 0 ? r : -EIO;
	}
	snprintf(env->fs_a, sizeof(env->fs_a), "%s/a", env->base);
	if (mkdir(env->fs_a, 0700) < 0 || mount(dev, env->fs_a, "ext4", 0, NULL) < 0)
		return negative_errno();
	return 0;
}

static int env_setup(struct hooks_env *env, bool ext4) {
	int r;

	r = bench_env_enter(env->base, sizeof(env->base), "/tmp/fsn-bench.XXXXXX");
	if (r == 0)
		r = ext4 ? mount_ext4(env)
			 : bench_mount_tmpfs(env->base, "a", "4m", env->fs_a, sizeof(env->fs_a));
	if (r == 0)
		r = bench_mount_tmpfs(env->base, "b", "4m", env->fs_b, sizeof(env->fs_b));
	if (r < 0)
		return r;
	snprintf(env->bind_a, sizeof(env->bind_a), "%s/a-bind", env->base);
	snprintf(env->workdir, sizeof(env->workdir), "%s/work", env->fs_a);
	snprintf(env->file, sizeof(env->file), "%s/file", env->workdir);
	snprintf(env->unrelated_a, sizeof(env->unrelated_a), "%s/unrelated", env->fs_a);
	snprintf(env->unrelated_file, sizeof(env->unrelated_file), "%s/file", env->unrelated_a);
	snprintf(env->dir_b, sizeof(env->dir_b), "%s/dir", env->fs_b);
	if (mkdir(env->bind_a, 0700) < 0 || mount(env->fs_a, env->bind_a, NULL, MS_BIND, NULL) < 0)
		return negative_errno();
	if (mkdir(env->workdir, 0700) < 0 || mkdir(env->unrelated_a, 0700) < 0 ||
	    mkdir(env->dir_b, 0700) < 0)
		return negative_errno();
	r = bench_make_file(env->unrelated_file, 4096);
	return r < 0 ? r : bench_make_file(env->file, 4096);
}

/* ------------------------------------------------------------------------ */
/* Scenario helper: a separate process owning the notification fd           */
/* ------------------------------------------------------------------------ */

struct helper {
	pid_t pid;
	int ctl;     /* SOCK_SEQPACKET: 'q' -> uint64_t CPU ns; EOF -> exit */
	bool daemon; /* fsnotifyd: CPU from /proc, stopped with SIGTERM */
};

static int inotify_watch(const char *path, uint32_t mask, int *ret_fd) {
	_cleanup_close_ int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return negative_errno();
	if (inotify_add_watch(fd, path, mask) < 0)
		return negative_errno();
	*ret_fd = steal_fd(&fd);
	return 0;
}

static int fanotify_watch(unsigned init_flags, unsigned mark_flags, uint64_t mask, const char *path,
			  int *ret_fd) {
	_cleanup_close_ int fd = -1;

	fd = fanotify_init(init_flags | FAN_CLOEXEC | FAN_NONBLOCK,
			   O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fanotify_mark(fd, FAN_MARK_ADD | mark_flags, mask, AT_FDCWD, path) < 0)
		return negative_errno();
	*ret_fd = steal_fd(&fd);
	return 0;
}

/* keep[] receives fds the watch depends on (the watched pipe). */
static int scenario_setup(const struct hooks_env *env, enum scenario s, int *ret_fd,
			  bool *ret_fanotify, int keep[2]) {
	const uint64_t fan_rw = FAN_MODIFY | FAN_ACCESS | FAN_OPEN | FAN_CLOSE;
	char path[64];

	*ret_fanotify = false;
	switch (s) {
	case SC_INO_SAME_FS: return inotify_watch(env->unrelated_a, IN_ALL_EVENTS, ret_fd);
	case SC_INO_OTHER_FS: return inotify_watch(env->dir_b, IN_ALL_EVENTS, ret_fd);
	case SC_INO_PARENT_NOMATCH:
		return inotify_watch(env->workdir, IN_CREATE | IN_DELETE | IN_MOVE, ret_fd);
	case SC_INO_PARENT_DRAIN: return inotify_watch(env->workdir, IN_ALL_EVENTS, ret_fd);
	case SC_INO_PIPE:
		if (pipe2(keep, O_CLOEXEC) < 0)
			return negative_errno();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", keep[0]);
		return inotify_watch(path, IN_ALL_EVENTS, ret_fd);
	case SC_FAN_MOUNT_OTHER:
		*ret_fanotify = true;
		return fanotify_watch(FAN_CLASS_NOTIF, FAN_MARK_MOUNT, fan_rw, env->bind_a, ret_fd);
	case SC_FAN_FS_NOMATCH:
		*ret_fanotify = true;
		return fanotify_watch(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, FAN_MARK_FILESYSTEM,
				      FAN_CREATE | FAN_DELETE | FAN_MOVE, env->fs_a, ret_fd);
	case SC_PERM_OTHER_FS:
		*ret_fanotify = true;
		return fanotify_watch(FAN_CLASS_CONTENT, FAN_MARK_FILESYSTEM, FAN_OPEN_PERM,
				      env->fs_b, ret_fd);
	case SC_PERM_SAME_FS:
		*ret_fanotify = true;
		return fanotify_watch(FAN_CLASS_CONTENT, FAN_MARK_FILESYSTEM, FAN_OPEN_PERM,
				      env->fs_a, ret_fd);
	case SC_HSM_SAME_FS:
		*ret_fanotify = true;
		return fanotify_watch(FAN_CLASS_PRE_CONTENT, 0, FAN_PRE_ACCESS, env->unrelated_file,
				      ret_fd);
	case SC_FAN_PARENT_CHILD:
	case SC_FAN_PARENT_NOCHILD:
		*ret_fanotify = true;
		return fanotify_watch(FAN_CLASS_NOTIF, 0,
				      fan_rw | (s == SC_FAN_PARENT_CHILD ? FAN_EVENT_ON_CHILD : 0),
				      env->workdir, ret_fd);
	default: return -EINVAL;
	}
}

/* Read until EAGAIN; answer permission events with FAN_ALLOW. */
static int drain(int fd, bool fanotify) {
	union {
		struct fanotify_event_metadata md;
		char bytes[16384];
	} buf;

	for (;;) {
		ssize_t n = read(fd, buf.bytes, sizeof(buf.bytes));
		struct fanotify_event_metadata *md;

		if (n < 0)
			return errno == EAGAIN ? 0 : negative_errno();
		if (!fanotify)
			continue;
		for (md = &buf.md; FAN_EVENT_OK(md, n); md = FAN_EVENT_NEXT(md, n)) {
			if (md->vers != FANOTIFY_METADATA_VERSION)
				return -EPROTO;
			if (md->mask & (FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM |
					FAN_PRE_ACCESS)) {
				struct fanotify_response resp = { .fd = md->fd,
								  .response = FAN_ALLOW };
				int r = write_full(fd, &resp, sizeof(resp));

				if (r < 0)
					return r;
			}
			if (md->fd >= 0)
				close(md->fd);
		}
	}
}

static int helper_main(const struct hooks_env *env, const struct hooks_opts *o, enum scenario s,
		       int ctl) {
	int keep[2] = { -1, -1 };
	_cleanup_close_ int fd = -1;
	bool fanotify;
	int32_t status;
	int r;

	/* Under -icount the figures should repeat exactly; how many events a
	 * draining reader finds per read() would depend on where the
	 * scheduler happened to switch. A real-time reader runs as soon as an
	 * event is queued: one event per wakeup, every time. */
	r = 0;
	if (o->icount && sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ 1 }) < 0)
		r = negative_errno();
	if (r == 0)
		r = scenario_setup(env, s, &fd, &fanotify, keep);
	status = r;
	if (send(ctl, &status, sizeof(status), 0) < 0 || r < 0)
		return r < 0 ? r : negative_errno();
	for (;;) {
		struct pollfd p[2] = { { .fd = ctl, .events = POLLIN },
				       { .fd = fd, .events = POLLIN } };
		char c;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (p[1].revents & POLLIN) {
			r = drain(fd, fanotify);
			if (r < 0)
				return r;
		}
		if (!p[0].revents)
			continue;
		if (recv(ctl, &c, 1, 0) <= 0)
			return 0; /* parent closed: done; keep[] dies with us */
		if (c == 'q') {
			uint64_t ns = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID);

			if (send(ctl, &ns, sizeof(ns), 0) < 0)
				return negative_errno();
		}
	}
}

static void helper_stop(struct helper *h) {
	if (h->daemon && h->pid > 0)
		kill(h->pid, SIGTERM);
	if (h->ctl >= 0)
		h->ctl = safe_close(h->ctl);
	if (h->pid > 0) {
		(void)bench_wait_pid(h->pid);
		h->pid = 0;
	}
}

/* src with "@FS@" and "@WORK@" replaced by the workload's paths, to dst. */
static int subst_config(const char *src, const char *dst, const struct hooks_env *env) {
	static const char *const keys[] = { "@FS@", "@WORK@" };
	const char *vals[] = { env->fs_a, env->workdir };
	_cleanup_free_ char *text = NULL;
	size_t len;
	FILE *out;
	int r;

	r = bench_read_text(src, &text, &len);
	if (r < 0)
		return r;
	out = fopen(dst, "we");
	if (!out)
		return negative_errno();
	for (size_t i = 0; i < len; i++) {
		bool replaced = false;

		/* text is NUL-terminated: strncmp() stops at its end */
		for (size_t k = 0; text[i] == '@' && k < ELEMENTSOF(keys) && !replaced; k++)
			if (strncmp(text + i, keys[k], strlen(keys[k])) == 0) {
				fputs(vals[k], out);
				i += strlen(keys[k]) - 1;
				replaced = true;
			}
		if (!replaced)
			fputc(text[i], out);
	}
	return bench_fclose(out);
}

static int helper_start(const struct hooks_env *env, const struct hooks_opts *o, enum scenario s,
			struct helper *h) {
	int sv[2], r;
	int32_t status;

	h->pid = 0;
	h->ctl = -1;
	h->daemon = false;
	if (s == SC_NONE || s == SC_NONE_CTL)
		return 0;
	if (s == SC_FSNOTIFYD) {
		char cfg[160];

		snprintf(cfg, sizeof(cfg), "%s/fsnotifyd.conf", env->base);
		r = subst_config(o->fsnotifyd_config, cfg, env);
		if (r == 0)
			r = bench_fsnotifyd_start(o->fsnotifyd, cfg, env->base, &h->pid);
		if (r < 0) {
			h->pid = 0;
			return r;
		}
		h->daemon = true;
		return 0;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	fflush(NULL);
	h->pid = fork();
	if (h->pid < 0) {
		r = negative_errno();
		safe_close(sv[0]);
		safe_close(sv[1]);
		return r;
	}
	if (h->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		safe_close(sv[0]);
		_exit(helper_main(env, o, s, sv[1]) < 0 ? 1 : 0);
	}
	safe_close(sv[1]);
	h->ctl = sv[0];
	r = read_full(h->ctl, &status, sizeof(status));
	if (r == 0 && status < 0)
		r = status;
	if (r < 0) {
		fprintf(stderr, "fsn-bench: scenario %s: %s\n", scenario_names[s], strerror(-r));
		helper_stop(h);
	}
	return r;
}

static int helper_cpu(const struct helper *h, uint64_t *ret_ns) {
	int r;

	if (h->daemon)
		return bench_proc_cpu_ns(h->pid, ret_ns);
	if (h->ctl < 0) {
		*ret_ns = 0;
		return 0;
	}
	r = write_full(h->ctl, "q", 1);
	if (r < 0)
		return r;
	return read_full(h->ctl, ret_ns, sizeof(*ret_ns));
}

/* ------------------------------------------------------------------------ */
/* Workload child                                                            */
/* ------------------------------------------------------------------------ */

enum { MSG_READY = 1, MSG_RESULT };

struct wl_msg {
	int32_t kind;
	int32_t error;
	uint64_t wall_ns;
	uint64_t cpu_ns;
};

struct wl_state {
	int fd;
	int out;    /* sendfile, copy-file-range: the file written; splice: the pipe */
	int pipe_r; /* splice: the pipe's read end, emptied after each splice */
	int to_peer;
	int from_peer;
	pid_t peer;
	const char *path;
	char name[2][200]; /* create-unlink: the name; rename: the two names */
};

/* The pipe peer: echo 'p'; answer 's' with its CPU time; exit on EOF. */
static int peer_main(int in, int out) {
	char c;

	for (;;) {
		ssize_t n = read(in, &c, 1);

		if (n <= 0)
			return n < 0 ? negative_errno() : 0;
		if (c == 's') {
			uint64_t ns = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID);

			if (write_full(out, &ns, sizeof(ns)) < 0)
				return -EPIPE;
		} else if (write(out, &c, 1) != 1) {
			return -EPIPE;
		}
	}
}

static int peer_cpu(const struct wl_state *st, uint64_t *ret_ns) {
	int r = write_full(st->to_peer, "s", 1);

	return r < 0 ? r : read_full(st->from_peer, ret_ns, sizeof(*ret_ns));
}

/* /proc/self/exe copied to path, 0755: 0 or -errno. */
static int copy_self(const char *path) {
	_cleanup_close_ int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int out = -1;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return negative_errno();
	(void)unlink(path);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0)
		return negative_errno();
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_full(out, buf, (size_t)n) < 0)
			return negative_errno();
	return n < 0 ? negative_errno() : 0;
}

/* Open what the workload needs, now that the scenario is in place. The
 * workload pipes are blocking on purpose: that is the workload. */
static int wl_open(enum workload w, const struct hooks_env *env, struct wl_state *st) {
	int a[2], b[2], r;

	*st = (struct wl_state){
		.fd = -1, .out = -1, .pipe_r = -1, .to_peer = -1, .from_peer = -1, .path = env->file
	};
	switch (w) {
	case WL_PWRITE:
	case WL_PREAD:
	case WL_CHMOD:
	case WL_FTRUNCATE:
	case WL_FALLOCATE:
	case WL_MMAP:
		st->fd = open(env->file,
			      (w == WL_PREAD || w == WL_MMAP ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		return st->fd < 0 ? negative_errno() : 0;
	case WL_OPENCLOSE: return 0;
	case WL_CREATE_UNLINK:
	case WL_RENAME:
		snprintf(st->name[0], sizeof(st->name[0]), "%s/n0", env->workdir);
		snprintf(st->name[1], sizeof(st->name[1]), "%s/n1", env->workdir);
		(void)unlink(st->name[0]);
		(void)unlink(st->name[1]);
		return w == WL_RENAME ? bench_make_file(st->name[0], 1) : 0;
	case WL_SENDFILE:
	case WL_COPY:
		snprintf(st->name[0], sizeof(st->name[0]), "%s/out", env->workdir);
		st->fd = open(env->file, O_RDONLY | O_CLOEXEC);
		st->out = open(st->name[0], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		return st->fd < 0 || st->out < 0 ? negative_errno() : 0;
	case WL_SPLICE:
		st->fd = open(env->file, O_RDONLY | O_CLOEXEC);
		if (st->fd < 0 || pipe2(a, O_CLOEXEC) < 0)
			return negative_errno();
		st->pipe_r = a[0];
		st->out = a[1];
		return 0;
	case WL_READDIR:
		st->fd = open(env->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return st->fd < 0 ? negative_errno() : 0;
	case WL_PIPE_PAIRS: return 0;
	case WL_EXECVE: /* this program, copied to the workload's filesystem */
		snprintf(st->name[0], sizeof(st->name[0]), "%s/exe", env->workdir);
		return copy_self(st->name[0]);
	case WL_PINGPONG:
		/* Both ends on this CPU: a cross-CPU wakeup's cost depends on
		 * where the scheduler put the peer, which is noise here. */
		r = bench_pin_here(NULL);
		if (r < 0)
			return r;
		if (pipe2(a, O_CLOEXEC) < 0)
			return negative_errno();
		if (pipe2(b, O_CLOEXEC) < 0)
			return negative_errno();
		st->peer = fork();
		if (st->peer < 0)
			return negative_errno();
		if (st->peer == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(a[1]);
			close(b[0]);
			_exit(peer_main(a[0], b[1]) < 0 ? 1 : 0);
		}
		close(a[0]);
		close(b[1]);
		st->to_peer = a[1];
		st->from_peer = b[0];
		return 0;
	default: return -EINVAL;
	}
}

/* fork, execve of path (BENCH_EXEC_TRUE: it exits at once), wait */
static int exec_true(const char *path) {
	char *const argv[] = { (char *)path, (char *)BENCH_EXEC_TRUE, NULL };
	char *const envp[] = { NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		execve(path, argv, envp);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return negative_errno();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

#define PIPE_PAIRS 4

/* One of pipe-pairs' workers: its own peer (peer_main()), n round trips of
 * 1 byte, then the peer waited for: 0 or -errno. */
static int pair_main(uint64_t n) {
	int a[2], b[2], status;
	char c = 'p';
	pid_t peer;

	if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0)
		return negative_errno();
	peer = fork();
	if (peer < 0)
		return negative_errno();
	if (peer == 0) {
		close(a[1]);
		close(b[0]);
		_exit(peer_main(a[0], b[1]) < 0 ? 1 : 0);
	}
	close(a[0]);
	close(b[1]);
	for (uint64_t i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return -EPIPE;
	close(a[1]);
	if (waitpid(peer, &status, 0) < 0)
		return negative_errno();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* pipe-pairs (hackbench's pipes, as Gorman measured the parent check):
 * PIPE_PAIRS workers at once, each with its own peer, n round trips in
 * all, on whatever CPUs the scheduler gives them; all waited for, so that
 * their CPU and their peers' counts (RUSAGE_CHILDREN) */
static int pipe_pairs(uint64_t n) {
	pid_t pid[PIPE_PAIRS];
	int r = 0, status;

	for (unsigned i = 0; i < PIPE_PAIRS; i++) {
		uint64_t share = n / PIPE_PAIRS + (i < n % PIPE_PAIRS);

		pid[i] = fork();
		if (pid[i] < 0)
			return negative_errno();
		if (pid[i] == 0)
			_exit(pair_main(share) < 0 ? 1 : 0);
	}
	for (unsigned i = 0; i < PIPE_PAIRS; i++)
		if (waitpid(pid[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			r = -ECHILD;
	return r;
}

/* The hook families past read, write and open: one operation each. */
static int wl_loop_more(enum workload w, const struct wl_state *st, uint64_t n) {
	char buf[4096];

	if (w == WL_PIPE_PAIRS)
		return pipe_pairs(n);

	for (uint64_t i = 0; i < n; i++) {
		loff_t off_in = 0, off_out = 0;
		off_t off = 0;
		void *m;
		int fd;

		switch (w) {
		case WL_CREATE_UNLINK: /* create, close(write), delete */
			fd = open(st->name[0], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd < 0 || close(fd) < 0 || unlink(st->name[0]) < 0)
				return negative_errno();
			break;
		case WL_RENAME:
			if (rename(st->name[i & 1], st->name[!(i & 1)]) < 0)
				return negative_errno();
			break;
		case WL_CHMOD:
			if (fchmod(st->fd, i & 1 ? 0600 : 0644) < 0)
				return negative_errno();
			break;
		case WL_FTRUNCATE: /* (the size changes: a real truncate each time) */
			if (ftruncate(st->fd, i & 1 ? 4096 : 4095) < 0)
				return negative_errno();
			break;
		case WL_FALLOCATE:
			if (fallocate(st->fd, FALLOC_FL_KEEP_SIZE, 0, 4096) < 0)
				return negative_errno();
			break;
		case WL_MMAP: /* map, fault the page in, unmap */
			m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, st->fd, 0);
			if (m == MAP_FAILED)
				return negative_errno();
			buf[0] = *(volatile char *)m;
			munmap(m, 4096);
			break;
		case WL_SENDFILE:
			if (sendfile(st->out, st->fd, &off, 1) != 1 ||
			    lseek(st->out, 0, SEEK_SET) < 0)
				return negative_errno();
			break;
		case WL_SPLICE: /* file -> pipe, then the pipe emptied */
			if (splice(st->fd, &off_in, st->out, NULL, 1, 0) != 1 ||
			    read(st->pipe_r, buf, 1) != 1)
				return negative_errno();
			break;
		case WL_COPY:
			if (copy_file_range(st->fd, &off_in, st->out, &off_out, 1, 0) != 1)
				return negative_errno();
			break;
		case WL_READDIR:
			if (lseek(st->fd, 0, SEEK_SET) < 0 ||
			    syscall(SYS_getdents64, st->fd, buf, sizeof(buf)) <= 0)
				return negative_errno();
			break;
		case WL_EXECVE: {
			int r = exec_true(st->name[0]);

			if (r < 0)
				return r;
			break;
		}
		default: return -EINVAL;
		}
	}
	return 0;
}

static int wl_loop(enum workload w, const struct wl_state *st, uint64_t n) {
	char c = 'p';

	switch (w) {
	case WL_PWRITE:
		for (uint64_t i = 0; i < n; i++)
			if (pwrite(st->fd, &c, 1, 0) != 1)
				return negative_errno();
		return 0;
	case WL_PREAD:
		for (uint64_t i = 0; i < n; i++)
			if (pread(st->fd, &c, 1, 0) != 1)
				return negative_errno();
		return 0;
	case WL_OPENCLOSE:
		for (uint64_t i = 0; i < n; i++) {
			int fd = open(st->path, O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				return negative_errno();
			close(fd);
		}
		return 0;
	case WL_PINGPONG:
		for (uint64_t i = 0; i < n; i++) {
			c = 'p';
			if (write(st->to_peer, &c, 1) != 1 || read(st->from_peer, &c, 1) != 1)
				return -EPIPE;
		}
		return 0;
	default: return wl_loop_more(w, st, n);
	}
}

/* Operations of workload w for n asked: the slow ones do a part, so that
 * each cell takes about as long (an execve, a fork and a program run, is
 * about 700 us on a host, a thousand times a pwrite) */
static uint64_t wl_ops(enum workload w, uint64_t n) {
	static const unsigned part[_WL_MAX] = {
		[WL_CREATE_UNLINK] = 10, [WL_RENAME] = 5, [WL_MMAP] = 5, [WL_EXECVE] = 50
	};
	unsigned k = part[w] ? part[w] : 1;

	return n / k ? n / k : 1;
}

/* CPU of the children waited for so far (user + system), ns */
static uint64_t children_cpu_ns(void) {
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

static int wl_measure(enum workload w, const struct wl_state *st, uint64_t ops, uint64_t *wall,
		      uint64_t *cpu) {
	uint64_t t0, c0, k0, p0 = 0, p1 = 0;
	int r;

	if (w == WL_PINGPONG && (r = peer_cpu(st, &p0)) < 0)
		return r;
	k0 = children_cpu_ns();
	t0 = bench_now_ns(CLOCK_MONOTONIC);
	c0 = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	r = wl_loop(w, st, ops);
	if (r < 0)
		return r;
	*cpu = bench_now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	*wall = bench_now_ns(CLOCK_MONOTONIC) - t0;
	/* (execve: the programs run count too, once waited for) */
	*cpu += children_cpu_ns() - k0;
	if (w == WL_PINGPONG) {
		r = peer_cpu(st, &p1);
		if (r < 0)
			return r;
		*cpu += p1 - p0;
	}
	return 0;
}

static int wl_child(enum workload w, const struct hooks_env *env, const struct hooks_opts *o,
		    int ctl) {
	struct wl_msg msg = { .kind = MSG_READY };
	struct wl_state st;
	char go;
	int r;

	r = wl_open(w, env, &st);
	/* Under -icount: a read's atime check compares the file's times,
	 * second first, nanoseconds when the seconds are equal; whether the
	 * last write happened in the same second as this cell's reads would
	 * change the figure by a few instructions per read from round to
	 * round. One guest second of sleep (no host time: sleep=off) puts
	 * every read in a later second than the file's mtime and ctime. */
	if (r == 0 && o->icount)
		(void)nanosleep(&(struct timespec){ .tv_sec = 1, .tv_nsec = 100 * 1000 * 1000 },
				NULL);
	if (r == 0)
		r = wl_loop(w, &st, wl_ops(w, o->warmup));
	msg.error = r;
	if (write_full(ctl, &msg, sizeof(msg)) < 0 || r < 0)
		return r < 0 ? r : -EPIPE;
	if (read_full(ctl, &go, 1) < 0)
		return -EPIPE;
	msg = (struct wl_msg){ .kind = MSG_RESULT };
	msg.error = wl_measure(w, &st, wl_ops(w, o->ops), &msg.wall_ns, &msg.cpu_ns);
	r = write_full(ctl, &msg, sizeof(msg));
	safe_close(st.fd);
	safe_close(st.out);
	safe_close(st.pipe_r);
	if (st.to_peer >= 0) {
		close(st.to_peer);
		if (bench_wait_pid(st.peer) < 0 && r == 0)
			r = -ECHILD;
	}
	return msg.error < 0 ? msg.error : r;
}

/* One cell: fork the workload, let it warm up, measure it and the helper. */
static int run_cell(const struct hooks_env *env, const struct hooks_opts *o, enum workload w,
		    const struct helper *h, struct sample *ret) {
	struct wl_msg msg;
	uint64_t h0 = 0, h1 = 0;
	int sv[2], r;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = negative_errno();
		safe_close(sv[0]);
		safe_close(sv[1]);
		return r;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		safe_close(sv[0]);
		_exit(wl_child(w, env, o, sv[1]) < 0 ? 1 : 0);
	}
	safe_close(sv[1]);

	r = read_full(sv[0], &msg, sizeof(msg));
	if (r == 0 && msg.error < 0)
		r = msg.error;
	/* Under -icount, let the work the previous cells left behind run first
	 * (deferred mark and group destruction, RCU callbacks, the timers of
	 * exited processes): the guest sleeps without any host time passing
	 * (sleep=off), and the cell then starts from the same quiet state in
	 * every round. */
	if (r == 0 && o->icount)
		(void)nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	if (r == 0)
		r = helper_cpu(h, &h0);
	if (r == 0)
		r = write_full(sv[0], "g", 1);
	if (r == 0)
		r = read_full(sv[0], &msg, sizeof(msg));
	if (r == 0 && msg.error < 0)
		r = msg.error;
	if (r == 0)
		r = helper_cpu(h, &h1);
	safe_close(sv[0]);
	if (bench_wait_pid(pid) < 0 && r == 0)
		r = -ECHILD;
	if (r < 0) {
		fprintf(stderr, "fsn-bench: workload %s: %s\n", workload_names[w], strerror(-r));
		return r;
	}
	*ret = (struct sample){
		.ops = wl_ops(w, o->ops),
		.wall_ns = msg.wall_ns,
		.cpu_ns = msg.cpu_ns,
		.helper_ns = h1 - h0,
	};
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Rounds, summary, output                                                   */
/* ------------------------------------------------------------------------ */

static double ops_per_s(const struct sample *s) {
	return s->wall_ns ? (double)s->ops * 1e9 / (double)s->wall_ns : NAN;
}

/* The figure of merit: ops per CPU-second, or with --icount per second of
 * the instruction clock (ops_per_s). */
static double ops_per_cpu_s(const struct hooks_opts *o, const struct sample *s) {
	uint64_t cpu = s->cpu_ns + s->helper_ns;

	if (o->icount)
		return ops_per_s(s);

	return cpu ? (double)s->ops * 1e9 / (double)cpu : NAN;
}

static struct sample *cell(struct sample *all, const struct hooks_opts *o, enum scenario s,
			   enum workload w) {
	return &all[((size_t)s * _WL_MAX + (size_t)w) * o->rounds];
}

static size_t bits(uint64_t mask, unsigned *idx, size_t max) {
	size_t n = 0;

	for (unsigned i = 0; i < max; i++)
		if (mask & (UINT64_C(1) << i))
			idx[n++] = i;
	return n;
}

/* --fs: whether text names ext4 (*ext4) or tmpfs; -EINVAL, said, else. */
static int parse_fs(const char *text, bool *ext4) {
	*ext4 = strcmp(text, "ext4") == 0;
	if (*ext4 || strcmp(text, "tmpfs") == 0)
		return 0;
	fprintf(stderr, "fsn-bench: --fs: tmpfs or ext4, not '%s'\n", text);
	return -EINVAL;
}

int bench_hooks_check_lists(const char *workloads, const char *scenarios, const char *fs) {
	uint64_t m;
	bool ext4;
	int r = 0;

	if (workloads)
		r = bench_parse_list("workload", workloads, workload_names, _WL_MAX, &m);
	if (r == 0 && scenarios)
		r = bench_parse_list("scenario", scenarios, scenario_names, _SC_MAX, &m);
	if (r == 0 && fs)
		r = parse_fs(fs, &ext4);
	return r;
}

/* The kernel features a scenario needs (on fs A; the other-fs scenarios
 * mark fs B, a tmpfs like A). */
static void scenario_needs(enum scenario s, enum fsn_feature need[3]) {
	need[0] = need[1] = need[2] = _FSN_FEAT_MAX;
	switch (s) {
	case SC_INO_SAME_FS:
	case SC_INO_OTHER_FS:
	case SC_INO_PARENT_NOMATCH:
	case SC_INO_PARENT_DRAIN:
	case SC_INO_PIPE: need[0] = FSN_FEAT_INOTIFY; break;
	case SC_FAN_MOUNT_OTHER: need[0] = FSN_FEAT_MARK_MOUNT; break;
	case SC_FAN_FS_NOMATCH:
		need[0] = FSN_FEAT_MARK_FILESYSTEM;
		need[1] = FSN_FEAT_REPORT_DFID_NAME;
		need[2] = FSN_FEAT_EVENT_DIRENT;
		break;
	case SC_PERM_OTHER_FS:
	case SC_PERM_SAME_FS:
		need[0] = FSN_FEAT_MARK_FILESYSTEM;
		need[1] = FSN_FEAT_PERM_OPEN;
		break;
	case SC_HSM_SAME_FS:
		need[0] = FSN_FEAT_CLASS_PRE_CONTENT;
		need[1] = FSN_FEAT_PRE_ACCESS; /* (tmpfs refuses it: --fs ext4) */
		break;
	default: break;
	}
}

/*
 * Leave out the scenarios this kernel cannot set up (a test kernel without
 * fanotify permission events, say), each with its reason on stderr and in
 * the JSON; an error instead when --scenarios asked for it by name.
 */
static int check_scenarios(const struct hooks_env *env, struct hooks_opts *o) {
	struct fsn_probe p;
	int r = fsn_probe_path(env->fs_a, &p);

	if (r < 0) {
		fprintf(stderr, "fsn-bench hooks: probing %s: %s\n", env->fs_a, strerror(-r));
		return r;
	}
	for (unsigned s = 0; s < _SC_MAX; s++) {
		enum fsn_feature need[3];

		if (!(o->scenarios & (UINT64_C(1) << s)))
			continue;
		scenario_needs(s, need);
		for (int i = 0; i < 3 && need[i] != _FSN_FEAT_MAX; i++) {
			const struct fsn_feature_result *f = &p.feat[need[i]];

			if (f->support == FSN_SUPPORTED)
				continue;
			snprintf(o->skipped_reason[s], sizeof(o->skipped_reason[s]),
				 "needs %s: %s (%s)%s", fsn_feature_description(need[i]),
				 fsn_support_name(f->support), f->error ? strerror(f->error) : "-",
				 s == SC_HSM_SAME_FS && !o->ext4 ? "; fs A is a tmpfs: --fs ext4"
								 : "");
			if (o->scenarios_given) {
				fprintf(stderr, "fsn-bench hooks: scenario %s %s\n",
					scenario_names[s], o->skipped_reason[s]);
				return -EOPNOTSUPP;
			}
			fprintf(stderr, "fsn-bench hooks: scenario %s left out: %s\n",
				scenario_names[s], o->skipped_reason[s]);
			o->scenarios &= ~(UINT64_C(1) << s);
			break;
		}
	}
	return 0;
}

static int run_rounds(const struct hooks_env *env, const struct hooks_opts *o, struct sample *all) {
	unsigned sc[_SC_MAX], wl[_WL_MAX];
	size_t nsc = bits(o->scenarios, sc, _SC_MAX), nwl = bits(o->workloads, wl, _WL_MAX);
	uint64_t t_start = bench_now_ns(CLOCK_MONOTONIC);
	int r;

	/* On a host each round visits the scenarios in another order, so that
	 * a drift of the machine does not favour one; under -icount there is
	 * no drift, and the same order each round keeps the rounds alike. */
	for (unsigned round = 0; round < o->rounds; round++) {
		unsigned rot = o->icount ? 0 : round;

		for (size_t i = 0; i < nsc; i++) {
			enum scenario s = sc[(i + rot) % nsc];
			struct helper h;

			r = helper_start(env, o, s, &h);
			if (r < 0)
				return r;
			for (size_t j = 0; j < nwl && r == 0; j++) {
				enum workload w = wl[(j + rot) % nwl];

				r = run_cell(env, o, w, &h, &cell(all, o, s, w)[round]);
			}
			helper_stop(&h);
			if (r < 0)
				return r;
		}
		bench_progress("hooks", round + 1, o->rounds, t_start);
	}
	return 0;
}

static void summarize(const struct hooks_opts *o, struct sample *all, enum scenario s,
		      enum workload w, struct summary *ret) {
	const struct sample *base = cell(all, o, SC_NONE, w), *c = cell(all, o, s, w);
	_cleanup_free_ double *v = calloc(o->rounds, sizeof(double));
	_cleanup_free_ double *logs = calloc(o->rounds, sizeof(double));

	*ret = (struct summary){ .median_ops_s = NAN, .ratio = NAN, .lo = NAN, .hi = NAN };
	if (!v || !logs)
		return;
	for (unsigned r = 0; r < o->rounds; r++) {
		v[r] = ops_per_cpu_s(o, &c[r]);
		logs[r] = log(ops_per_cpu_s(o, &c[r]) / ops_per_cpu_s(o, &base[r]));
	}
	ret->median_ops_cpu_s = bench_median(v, o->rounds);
	for (unsigned r = 0; r < o->rounds; r++)
		v[r] = ops_per_s(&c[r]);
	ret->median_ops_s = bench_median(v, o->rounds);
	bench_log_ci(logs, o->rounds, &ret->ratio, &ret->lo, &ret->hi);
	ret->significant = s != SC_NONE && (ret->lo > 1.0 || ret->hi < 1.0);
}

static const char *verdict(enum scenario s, const struct summary *sm) {
	if (s == SC_NONE)
		return "baseline";
	if (!isfinite(sm->lo) || !isfinite(sm->hi))
		return "too few rounds";
	if (!sm->significant)
		return "within noise";
	return sm->ratio < 1.0 ? "significant (costlier)" : "significant (cheaper)";
}

static void print_table(const struct hooks_opts *o, struct sample *all) {
	unsigned sc[_SC_MAX], wl[_WL_MAX];
	size_t nsc = bits(o->scenarios, sc, _SC_MAX), nwl = bits(o->workloads, wl, _WL_MAX);

	printf("fsn-bench hooks: %u rounds x %" PRIu64 " ops; ratio = ops per %s vs the "
	       "same round's 'none' (geometric mean, 95%% t-interval)\n\n",
	       o->rounds, o->ops,
	       o->icount ? "second of the instruction clock (qemu -icount)" : "CPU-second");
	printf("%-19s %-14s %13s %7s %8s %17s  %s\n", "scenario", "workload", "median ops/s",
	       "ratio", "change", "95% CI", "verdict");
	for (size_t j = 0; j < nwl; j++) {
		for (size_t i = 0; i < nsc; i++) {
			struct summary sm;

			summarize(o, all, sc[i], wl[j], &sm);
			printf("%-19s %-14s %13.0f %7.3f %+7.1f%% [%6.3f, %6.3f]  %s\n",
			       scenario_names[sc[i]], workload_names[wl[j]], sm.median_ops_s,
			       sm.ratio, (sm.ratio - 1) * 100, sm.lo, sm.hi, verdict(sc[i], &sm));
		}
		if (j + 1 < nwl)
			putchar('\n');
	}
	for (unsigned s = 0, n = 0; s < _SC_MAX; s++)
		if (o->skipped_reason[s][0])
			printf("%sleft out: %s: %s\n", n++ ? "" : "\n", scenario_names[s],
			       o->skipped_reason[s]);
}

static int write_json(const char *path, const struct hooks_opts *o, struct sample *all) {
	unsigned sc[_SC_MAX], wl[_WL_MAX];
	size_t nsc = bits(o->scenarios, sc, _SC_MAX), nwl = bits(o->workloads, wl, _WL_MAX);
	bool first = true;
	FILE *f;

	f = fopen(path, "we");
	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench hooks");
	fprintf(f,
		"},\n  \"parameters\": {\"rounds\": %u, \"ops\": %" PRIu64 ", \"warmup\": %" PRIu64
		", \"quick\": %s, \"baseline\": \"none\", \"confidence\": 0.95, "
		"\"fs\": \"%s\", \"clock\": \"%s\", \"metric\": \"%s\"},\n",
		o->rounds, o->ops, o->warmup, o->quick ? "true" : "false",
		o->ext4 ? "ext4" : "tmpfs", o->icount ? "icount" : "host",
		o->icount ? "ops per second of the guest's instruction clock (qemu -icount "
			    "shift=0: 1 ns = 1 instruction; workload + peer + helper on one CPU)"
			  : "ops per CPU-second (workload + peer + helper)");
	fputs("  \"results\": [", f);
	for (size_t i = 0; i < nsc; i++)
		for (size_t j = 0; j < nwl; j++) {
			const struct sample *c = cell(all, o, sc[i], wl[j]);
			const struct sample *base = cell(all, o, SC_NONE, wl[j]);
			struct summary sm;

			summarize(o, all, sc[i], wl[j], &sm);
			fprintf(f,
				"%s\n    {\"scenario\": \"%s\", \"workload\": \"%s\", "
				"\"description\": ",
				first ? "" : ",", scenario_names[sc[i]], workload_names[wl[j]]);
			first = false;
			json_write_string(f, scenario_descriptions[sc[i]]);
			fputs(",\n     \"rounds\": [", f);
			for (unsigned r = 0; r < o->rounds; r++) {
				fprintf(f,
					"%s\n       {\"ops\": %" PRIu64 ", \"wall_ns\": %" PRIu64
					", \"cpu_ns\": %" PRIu64 ", \"helper_cpu_ns\": %" PRIu64
					", \"ops_per_s\": ",
					r ? "," : "", c[r].ops, c[r].wall_ns, c[r].cpu_ns,
					c[r].helper_ns);
				json_write_number(f, ops_per_s(&c[r]));
				fputs(", \"ops_per_cpu_s\": ", f);
				json_write_number(f, ops_per_cpu_s(o, &c[r]));
				fputs(", \"ratio\": ", f);
				json_write_number(f, ops_per_cpu_s(o, &c[r]) /
							 ops_per_cpu_s(o, &base[r]));
				fputc('}', f);
			}
			fputs("],\n     \"summary\": {\"median_ops_per_s\": ", f);
			json_write_number(f, sm.median_ops_s);
			fputs(", \"median_ops_per_cpu_s\": ", f);
			json_write_number(f, sm.median_ops_cpu_s);
			fputs(", \"ratio\": ", f);
			json_write_number(f, sm.ratio);
			fputs(", \"ci_low\": ", f);
			json_write_number(f, sm.lo);
			fputs(", \"ci_high\": ", f);
			json_write_number(f, sm.hi);
			fprintf(f, ", \"significant\": %s, \"verdict\": \"%s\"}}",
				sm.significant ? "true" : "false", verdict(sc[i], &sm));
		}
	fputs("\n  ],\n  \"skipped\": [", f);
	first = true;
	for (unsigned s = 0; s < _SC_MAX; s++) {
		if (!o->skipped_reason[s][0])
			continue;
		fprintf(f, "%s\n    {\"scenario\": \"%s\", \"reason\": ", first ? "" : ",",
			scenario_names[s]);
		json_write_string(f, o->skipped_reason[s]);
		fputc('}', f);
		first = false;
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
	return bench_fclose(f);
}

struct run_results {
	const struct hooks_opts *o;
	struct sample *all;
};

static int write_json_to(const char *path, const void *userdata) {
	const struct run_results *x = userdata;

	return write_json(path, x->o, x->all);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct hooks_opts *o) {
	enum {
		OPT_WL = BENCH_OPT_OWN,
		OPT_SC,
		OPT_PLOT,
		OPT_LIST,
		OPT_FSND_CONFIG,
		OPT_ICOUNT,
		OPT_FS
	};
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "workloads", required_argument, NULL, OPT_WL },
		{ "scenarios", required_argument, NULL, OPT_SC },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "fsnotifyd-config", required_argument, NULL, OPT_FSND_CONFIG },
		{ "icount", no_argument, NULL, OPT_ICOUNT },
		{ "fs", required_argument, NULL, OPT_FS },
		{ 0 },
	};
	struct bench_common com = { .min_rounds = 2,
				    .max_rounds = UINT64_MAX,
				    .max_ops = UINT64_MAX };
	int c, r;

	*o = (struct hooks_opts){
		.workloads = (UINT64_C(1) << _WL_MAX) - 1,
		.scenarios = ((UINT64_C(1) << _SC_MAX) - 1) & ~(UINT64_C(1) << SC_FSNOTIFYD),
	};

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_WL:
			r = bench_parse_list("workload", optarg, workload_names, _WL_MAX,
					     &o->workloads);
			break;
		case OPT_SC:
			r = bench_parse_list("scenario", optarg, scenario_names, _SC_MAX,
					     &o->scenarios);
			o->scenarios_given = true;
			break;
		case OPT_FSND_CONFIG:
			o->fsnotifyd_config = optarg;
			r = 0;
			break;
		case OPT_ICOUNT:
			o->icount = true;
			r = 0;
			break;
		case OPT_FS: r = parse_fs(optarg, &o->ext4); break;
		case OPT_PLOT:
			o->plot_path = optarg;
			r = bench_plot_check_path(optarg);
			break;
		case OPT_LIST:
			for (unsigned i = 0; i < _WL_MAX; i++)
				printf("workload  %s\n", workload_names[i]);
			for (unsigned i = 0; i < _SC_MAX; i++)
				printf("scenario  %-19s %s\n", scenario_names[i],
				       scenario_descriptions[i]);
			return 1;
		default: r = bench_common_opt(c, optarg, &com); break;
		}
		if (r != 0)
			return r;
	}
	r = bench_common_finish(argc, argv, &com);
	if (r < 0)
		return r;
	if (o->fsnotifyd_config && !o->scenarios_given)
		o->scenarios |= UINT64_C(1) << SC_FSNOTIFYD;
	if ((o->scenarios & (UINT64_C(1) << SC_FSNOTIFYD)) && !o->fsnotifyd_config) {
		fprintf(stderr, "fsn-bench: scenario 'fsnotifyd' needs --fsnotifyd-config FILE\n");
		return -EINVAL;
	}
	if (o->fsnotifyd_config && access(o->fsnotifyd_config, R_OK) < 0) {
		fprintf(stderr, "fsn-bench: %s: %s\n", o->fsnotifyd_config, strerror(errno));
		return -EINVAL;
	}
	o->quick = com.quick;
	o->json_path = com.json_path;
	o->fsnotifyd = com.fsnotifyd;
	o->scenarios |= UINT64_C(1) << SC_NONE; /* the baseline every ratio needs */
	/* under -icount every round gives the same figures (doc/performance.md):
	 * few rounds show that; emulation is ~50x slower than the host */
	if (o->icount) {
		o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 2 : 3;
		o->ops = com.ops ? com.ops : o->quick ? 1000 : 10000;
	} else {
		o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 3 : 20;
		o->ops = com.ops ? com.ops : o->quick ? 4000 : 100000;
	}
	o->warmup = o->ops / 10 ? o->ops / 10 : 1;
	return 0;
}

int bench_hooks_main(int argc, char **argv) {
	struct hooks_env env = { .base = "" };
	struct hooks_opts o;
	_cleanup_free_ struct sample *all = NULL;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("hooks", "fanotify marks"))
		return 77;
	all = calloc((size_t)_SC_MAX * _WL_MAX * o.rounds, sizeof(*all));
	if (!all)
		return -ENOMEM;
	r = env_setup(&env, o.ext4);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
			strerror(-r));
		bench_env_teardown(env.base);
		return r;
	}
	r = check_scenarios(&env, &o);
	if (r == 0)
		r = run_rounds(&env, &o, all);
	bench_env_teardown(env.base);
	if (r < 0)
		return r;
	print_table(&o, all);
	if (o.json_path) {
		r = write_json(o.json_path, &o, all);
		if (r < 0) {
			fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
			return r;
		}
	}
	if (o.plot_path)
		return bench_plot_run(o.plot_path, o.json_path, write_json_to,
				      &(struct run_results){ &o, all });
	return 0;
}
