/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h — the helpers fsn-bench's subcommands share (util.c): clocks,
 * option values and the common options, the private namespace and scratch
 * directory, child processes (fsnotifyd among them), the progress line, the
 * root check.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct bench_memcg;

uint64_t bench_now_ns(clockid_t clk);
/* Parse a decimal option value in [min, max] (max UINT64_MAX: no upper
 * bound); on error print "fsn-bench: invalid WHAT 'S' (...)" and -EINVAL. */
int bench_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* A comma list of sizes (option opt: "--sizes"), each min..max and a
 * multiple of multiple, at most max_n of them, into v: sorted, each once;
 * their number, or -EINVAL (said on stderr). */
int bench_parse_sizes(const char *opt, const char *text, uint64_t min, uint64_t max,
		      unsigned multiple, unsigned *v, unsigned max_n);

/*
 * The options hooks, consumers, perm and config share: --rounds N, --ops N
 * (config refuses it), --quick, --json FILE, --fsnotifyd PATH, -h. A
 * subcommand puts BENCH_COMMON_LONGOPTS in its table, numbers its own
 * options from BENCH_OPT_OWN, hands every option it does not know to
 * bench_common_opt() and ends with bench_common_finish().
 */
enum {
	BENCH_OPT_ROUNDS = 0x100,
	BENCH_OPT_OPS,
	BENCH_OPT_QUICK,
	BENCH_OPT_JSON,
	BENCH_OPT_FSND,
	BENCH_OPT_OWN,
};
/* clang-format off */
#define BENCH_COMMON_LONGOPTS \
	{ "rounds", required_argument, NULL, BENCH_OPT_ROUNDS }, \
	{ "ops", required_argument, NULL, BENCH_OPT_OPS }, \
	{ "quick", no_argument, NULL, BENCH_OPT_QUICK }, \
	{ "json", required_argument, NULL, BENCH_OPT_JSON }, \
	{ "fsnotifyd", required_argument, NULL, BENCH_OPT_FSND }, \
	{ "help", no_argument, NULL, 'h' }
/* clang-format on */

struct bench_common {
	/* limits, set by the subcommand; no_ops: it takes no --ops, and this
	 * says what sizes its work instead (an error names it) */
	uint64_t min_rounds, max_rounds, max_ops;
	const char *no_ops;
	/* parsed; 0 / NULL: not given */
	uint64_t rounds, ops;
	bool quick;
	const char *json_path;
	const char *fsnotifyd; /* bench_common_finish(): the default when not given */
};

/* Option c (getopt_long()'s value) with its argument: 0 taken, 1 -h
 * (usage said, stop), -EINVAL an error or an unknown option. */
int bench_common_opt(int c, const char *arg, struct bench_common *o);
/* After the loop: no operands allowed; the default fsnotifyd. 0 or -EINVAL. */
int bench_common_finish(int argc, char **argv, struct bench_common *o);
/* Enter a private mount namespace and mount a small tmpfs on a fresh
 * mkdtemp(tmpl) directory, written to base (len bytes). */
int bench_env_enter(char *base, size_t len, const char *tmpl);
/* Mount a tmpfs ("fsn-bench-NAME", mode 0700, size like "4m") on a new
 * directory base/NAME, whose path is written to ret (len bytes). */
int bench_mount_tmpfs(const char *base, const char *name, const char *size, char *ret, size_t len);
/* Detach the mounts below base (a scratch directory made with mkdtemp()),
 * remove their directories and base. Accepts "" and an unfilled template. */
void bench_env_teardown(const char *base);
/* Create path (O_EXCL, mode 0600) holding size bytes of 'x'. */
int bench_make_file(const char *path, size_t size);
/* Reap pid: 0 when it exited with status 0, -ECHILD otherwise. */
int bench_wait_pid(pid_t pid);
/* SIGTERM and reap pid (nothing for pid <= 0). */
void bench_kill_wait(pid_t pid);
/* Fork and exec argv (PATH lookup) with stdout and stderr to logf and, when
 * notify_socket is set, NOTIFY_SOCKET in its environment. The child gets
 * SIGTERM when the bench dies; a failed exec exits 127 saying why in logf. */
int bench_spawn(char *const argv[], const char *logf, const char *notify_socket, pid_t *ret_pid);
/* As bench_spawn, and when set: stdout to out_fd (stderr stays on logf), the
 * working directory cwd (a failed chdir exits 127, as a failed exec). */
/* When set, the children bench_spawn() and bench_spawn_in() start join this
 * memory cgroup before they exec (a failed join exits 127). */
extern const struct bench_memcg *bench_spawn_memcg;
int bench_spawn_in(char *const argv[], const char *cwd, int out_fd, const char *logf,
		   const char *notify_socket, pid_t *ret_pid);
/* Flush and close a file written with stdio: 0, or -errno of the first
 * failure (a write error reported late counts). */
int bench_fclose(FILE *f);
/* Pin the calling process (and the children it forks later) to the CPU it
 * runs on; *ret_cpu (may be NULL) is that CPU, or -1 when unknown (then
 * nothing is pinned). */
int bench_pin_here(int *ret_cpu);
/* "fsn-bench WHAT: round R/N done, .. s elapsed, ~.. s left" on stderr,
 * rewritten in place on a terminal. */
void bench_progress(const char *what, unsigned round, unsigned rounds, uint64_t t_start);
/* A log file on stderr, each line indented as "  | LINE": its last max_lines
 * lines, or all of it for 0. Nothing when it cannot be opened. */
void bench_show_log(const char *path, unsigned max_lines);
/* Whether name is a regular executable file in a directory of $PATH
 * (default_path when PATH is unset; an empty entry is the current
 * directory). */
bool bench_in_path(const char *name, const char *default_path);

/* Split a comma list into words, each matched against names[] (count
 * entries, at most 64); the result is a bitmask of indices. -EINVAL names
 * the unknown word on stderr. */
int bench_parse_list(const char *what, const char *text, const char *const *names, size_t count,
		     uint64_t *ret_mask);
/* The file at path, up to its size at open (at most 64 MiB, else -EFBIG),
 * NUL-terminated (the NUL not counted in *ret_len; the text may hold NULs of
 * its own). 0 or -errno. */
int bench_read_text(const char *path, char **ret, size_t *ret_len);

/* utime + stime of a process (all its threads), in ns (clock-tick
 * resolution). */
int bench_proc_cpu_ns(pid_t pid, uint64_t *ret);
/* fsnotifyd next to fsn-bench (build tree: ../daemon/fsnotifyd), else the
 * bare name (found in PATH at exec). */
const char *bench_default_fsnotifyd(void);
/* A consumer must be ready within this (fsnotifyd: send READY=1). */
#define BENCH_READY_DEADLINE_MS 10000
/* Start `bin --config cfg` with NOTIFY_SOCKET at rundir/notify.sock, its
 * output in rundir/fsnotifyd.log, and wait (BENCH_READY_DEADLINE_MS) for
 * READY=1. -ESRCH when it exits or times out (its log is shown). */
int bench_fsnotifyd_start(const char *bin, const char *cfg, const char *rundir, pid_t *ret_pid);
/* n subscribers (io.fsnotifyd.Watch, no filter) on fsnotifyd's control
 * socket sock, in a child process that reads them all as records come;
 * stop it with bench_kill_wait(). */
int bench_subscribers_start(const char *sock, unsigned n, pid_t *ret_pid);

/* Not root: says "fsn-bench SUB: skipped: needs root (private mount namespace,
 * WHAT)" and returns true (the caller exits 77). */
bool bench_needs_root(const char *sub, const char *what);

/* One turn of a storm in directory dfd: create "fK" (O_EXCL), write a
 * byte, close, rename to "gK", unlink (every name used once: no event
 * merges with an earlier one of its type). 0 or -errno. */
int bench_churn_once(int dfd, uint64_t k);
