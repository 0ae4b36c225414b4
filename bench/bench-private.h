/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-private.h — declarations shared by the fsn-bench sources: the
 * statistics helpers (stats.c), a minimal JSON reader/writer (json.c), the
 * machine description, the subcommands (hooks.c, consumers.c, perm.c,
 * config.c, compare.c) and the result files they read back (compare.c,
 * plot.c).
 */
#pragma once

#include <time.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "fsn-private.h"

/* JSON result files carry this schema version; compare refuses others. */
#define FSN_BENCH_SCHEMA_VERSION 1

/* ---- stats.c ---- */

/* Median of n values (n > 0); the array is sorted in place. */
double bench_median(double *v, size_t n);

/* Nearest-rank q-quantile (0 < q <= 1) of n values, NAN for n == 0; the
 * array is sorted in place. */
double bench_percentile(uint64_t *v, size_t n, double q);
/* The same for nq quantiles qs[] at once (one sort), into out[nq]. */
void bench_quantiles(uint64_t *v, size_t n, const double *qs, size_t nq, double *out);

/* Two-sided 97.5 % quantile of Student's t with df degrees of freedom. */
double bench_t975(size_t df);

/* Mean and a 95 % t-interval of the mean of n log values; returned on the
 * linear scale (geometric mean, low, high). n < 2 gives an infinite
 * interval. */
void bench_log_ci(const double *logs, size_t n, double *ret_gmean, double *ret_lo, double *ret_hi);

/* Welch's two-sample t-test on log values: true when the means differ at
 * the 95 % level. */
bool bench_welch_significant(const double *a, size_t na, const double *b, size_t nb);

/* ---- json.c: a small DOM, enough to read fsn-bench's own files ---- */

enum json_type {
	JSON_NULL = 0,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type type;
	bool boolean;
	double number;
	char *string;         /* JSON_STRING */
	size_t n;             /* members of an array or object */
	char **keys;          /* JSON_OBJECT: n keys */
	struct json **values; /* JSON_ARRAY / JSON_OBJECT: n values */
};

/* Parse a whole document. 0 or -EINVAL (syntax; *ret_offset says where),
 * -ENOMEM. */
int json_parse(const char *text, size_t len, struct json **ret, size_t *ret_offset);
struct json *json_free(struct json *j);
/* Member of an object by key, or NULL (also for a non-object). */
const struct json *json_get(const struct json *obj, const char *key);
/* Number of a member, or def when missing or not a number. */
double json_get_number(const struct json *obj, const char *key, double def);
/* String of a member, or NULL. */
const char *json_get_string(const struct json *obj, const char *key);

/* Write s as a JSON string literal (quotes included, control bytes and
 * non-UTF-8-safe bytes escaped). */
void json_write_string(FILE *f, const char *s);
/* A finite number as %.6g, anything else as null. */
void json_write_number(FILE *f, double v);

/* util.c */
uint64_t bench_now_ns(clockid_t clk);
/* Parse a decimal option value in [min, max] (max UINT64_MAX: no upper
 * bound); on error print "fsn-bench: invalid WHAT 'S' (...)" and -EINVAL. */
int bench_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *ret);

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
	/* limits, set by the subcommand */
	uint64_t min_rounds, max_rounds, max_ops;
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

/* ---- machine description (hooks.c fills it, JSON carries it) ---- */

struct bench_machine {
	char sysname[65];
	char release[65];
	char version[65];
	char arch[65];
	char cpu_model[128];
	long nproc;
};

void bench_machine_probe(struct bench_machine *m);
/* The common head of every result file: '{', "version", "tool", "libfsn" and
 * the "machine" object left open (the caller continues with "},"). */
void bench_json_write_head(FILE *f, const char *tool);

/* ---- subcommands: return 0, 77 (skipped), or -errno ---- */

int bench_hooks_main(int argc, char **argv);
int bench_compare_main(int argc, char **argv);
int bench_consumers_main(int argc, char **argv);
int bench_perm_main(int argc, char **argv);
int bench_config_main(int argc, char **argv);
int bench_plot_main(int argc, char **argv);
int bench_vm_main(int argc, char **argv);
/* hooks' --workloads / --scenarios lists (NULL: not given): 0, or -EINVAL
 * naming the unknown word on stderr (vm checks them before booting). */
int bench_hooks_check_lists(const char *workloads, const char *scenarios);

/* ---- compare.c: reading files and result files back ---- */

enum bench_kind {
	BENCH_KIND_HOOKS,
	BENCH_KIND_PERM,
	BENCH_KIND_CONSUMERS,
};

/* The file at path, up to its size at open (at most 64 MiB, else -EFBIG),
 * NUL-terminated (the NUL not counted in *ret_len; the text may hold NULs of
 * its own). 0 or -errno. */
int bench_read_text(const char *path, char **ret, size_t *ret_len);
/* Read and parse an fsn-bench result file of schema FSN_BENCH_SCHEMA_VERSION;
 * its kind comes from "tool" and the arrays it must have ("results", and
 * "ratios" for perm; "consumers"). Failures are explained on stderr. */
int bench_result_load(const char *path, struct json **ret, enum bench_kind *ret_kind);
/* false for a result that did not run (perm: a skipped scenario; consumers:
 * one not installed): it has no figures. */
bool bench_result_ran(const struct json *result);
/* The kernel release a result file was measured on, or "?". */
const char *bench_result_release(const struct json *doc);

/* ---- plot.c: PNG plots with gnuplot ---- */

/* A --plot argument, checked before a run: no control bytes, its directory
 * writable. -EINVAL (explained on stderr) otherwise. */
int bench_plot_check_path(const char *png);
/* Plot a hooks or perm document, or two of one kind (b, b_name: NULL for
 * one; a_name, b_name label them), to png. 0; 77 when gnuplot is not on
 * PATH ("gnuplot not installed: no plot" on stderr); -errno. */
int bench_plot_docs(enum bench_kind kind, const struct json *a, const char *a_name,
		    const struct json *b, const char *b_name, const char *png);
/* --plot of a run: plot json_path, or when it is NULL what write_json(path,
 * userdata) writes to a temporary file. Without gnuplot only the message,
 * and 0: the plot is optional. */
int bench_plot_run(const char *png, const char *json_path,
		   int (*write_json)(const char *path, const void *userdata), const void *userdata);

/* ---- consumers.c helpers, also used by hooks ---- */

/* utime + stime of a process (all its threads), in ns (clock-tick
 * resolution). */
int bench_proc_cpu_ns(pid_t pid, uint64_t *ret);
/* fsnotifyd next to fsn-bench (build tree: ../daemon/fsnotifyd), else the
 * bare name (found in PATH at exec). */
const char *bench_default_fsnotifyd(void);
/* Start `bin --config cfg` with NOTIFY_SOCKET at rundir/notify.sock, its
 * output in rundir/fsnotifyd.log, and wait (10 s) for READY=1. -ESRCH when
 * it exits or times out (its log is shown). */
int bench_fsnotifyd_start(const char *bin, const char *cfg, const char *rundir, pid_t *ret_pid);

/* Split a comma list into at most max words, each matched against names[]
 * (count entries); the result is a bitmask of indices. -EINVAL names the
 * unknown word on stderr. */
int bench_parse_list(const char *what, const char *text, const char *const *names, size_t count,
		     uint64_t *ret_mask);

/* Not root: says "fsn-bench SUB: skipped: needs root (private mount namespace,
 * WHAT)" and returns true (the caller exits 77). */
bool bench_needs_root(const char *sub, const char *what);
