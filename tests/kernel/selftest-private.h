/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * selftest-private.h — fsn-selftest's internals, not for cases (they include
 * selftest.h only): what the runner (selftest.c) hands the fixture, and what
 * the helper files behind selftest.h share — the private part of a case's
 * context and the few functions more than one of them calls.
 *
 * The helpers (fixture.c, ops.c, events.c, expect.c, fdinfo.c, child.c,
 * perm.c) run in the forked case process. Failures go through Check's
 * _ck_assert_failed() with the caller's file:line; the long explanation
 * (event lists) goes to the shared diagnostics buffer, which the runner
 * prints even when Check only reports a timeout or a signal.
 */
#pragma once

#include <stdio.h>

#include "selftest.h"

/* ------------------------------------------------------------------------ */
/* Runner and fixture                                                       */
/* ------------------------------------------------------------------------ */

enum fst_skip_kind {
	FST_SKIP_NONE = 0,
	FST_SKIP_FEATURE, /* the probe says unsupported: never a failure */
	FST_SKIP_OTHER,   /* anything else: a failure with FSN_TESTS_MUST_RUN=1 */
};

/* MAP_SHARED memory the forked case writes and the runner reads. */
struct fst_shared {
	int skip_kind;
	char skip_reason[512];
	size_t diag_len;
	bool diag_truncated;
	char diag[64 * 1024];
};

/* Filled by the runner before forking; what a case's fixture needs. */
struct fst_fs_env {
	const char *fs;                /* "tmpfs", ... */
	const char *fstype;            /* mount(2) type */
	const char *dev;               /* loop device, NULL for tmpfs */
	const char *base;              /* per-run directory each case mounts its scratch tmpfs on */
	const struct fsn_probe *probe; /* NULL if the probe failed */
	char probe_error[128];         /* why, if it failed */
	bool verbose;
	bool taint_after; /* --taint-after-case: W added after each case (a test of the check) */
	unsigned soak;    /* --soak factor, >= 1 */
};

/* Run one case in the current (forked) process: fixture, case, teardown. */
void fst_run_case(const struct fst_case *tc, const struct fst_fs_env *env,
		  struct fst_shared *shared);

/* The runner's tools (selftest.c), also behind fst_loop_image() and
 * fst_exec_tool(): run argv with stdin /dev/null, the first
 * bytes of its output into out, 0 or -errno (-EIO: it did not exit 0).
 * (Finding a program, loop devices: shared/loopdev.h.) */
int fst_run_tool(char *const argv[], char *out, size_t len);

/* ------------------------------------------------------------------------ */
/* Shared by the helper files                                               */
/* ------------------------------------------------------------------------ */

#define FST_MAX_FD 1024
#define FST_MAX_CHILDREN 64 /* alive at once */

enum fd_kind {
	FD_UNKNOWN = 0,
	FD_FANOTIFY,
	FD_INOTIFY,
};

struct fd_info {
	enum fd_kind kind;
	unsigned init_flags;
};

struct fst_priv {
	const struct fst_fs_env *env;
	struct fst_shared *shared;
	void **allocs;
	size_t n_allocs, cap_allocs;
	struct fd_info fds[FST_MAX_FD];
	struct fst_child *children[FST_MAX_CHILDREN]; /* not yet reaped by a helper */
	size_t n_children;
	unsigned char *readbuf;
};

/* Tell Check where the case is, so a timeout or a crash names the last
 * helper call site of the case rather than the runner. Each change of
 * place is one write to Check's message file; a helper called in a loop
 * from one place writes once (fixture.c). */
void fst_checkpoint(const char *file, int line);

/* Memory owned by the case, freed when it ends (fixture.c). fst_track()
 * takes p (failing the case if it is NULL); fst_free() frees it early. */
void *fst_track(struct fst_ctx *ctx, void *p);
void *fst_calloc(struct fst_ctx *ctx, size_t n, size_t size);
void fst_free(struct fst_ctx *ctx, void *p);

/* Append to the case's diagnostics as is (fst_log() adds a newline). */
void fst_diag(struct fst_ctx *ctx, const char *fmt, ...) _fst_printf_(2, 3);

/* The kind of fd and its fanotify_init() flags: remembered for the groups
 * the case made (ops.c), otherwise told by /proc/self/fd (flags 0). */
enum fd_kind fst_fd_kind(struct fst_ctx *ctx, int fd, unsigned *init_flags);

/* What a kernel must support from which release (floors.c): a probe that
 * says "unsupported" at or above a floor fails the case instead of
 * skipping it. fs: the filesystems, comma separated (NULL: every one the
 * suite runs on); commit:
 * linux.git's abbreviation (its subject in commits.c), or NULL with the
 * subject saying what brought it; config: the kernel option it needs. */
struct fst_floor {
	enum fsn_feature feat;
	const char *fs;
	unsigned major, minor;
	const char *commit, *subject, *config;
};
extern const struct fst_floor fst_floors[];
/* The floor of f on fs that this kernel is at or above (and, for an
 * option, not known to be built without), or NULL. */
const struct fst_floor *fst_floor_applies(enum fsn_feature f, const char *fs);
const char *fst_floor_subject(const struct fst_floor *fl);
/* The floors, a line each: feature, filesystem ("*": any), release,
 * commit ("-": none pinned), subject; then the option, if any. */
void fst_floors_print(FILE *f);
/* FSN_SELFTEST_BREAK names f: the runner takes its probe as refused. */
bool fst_probe_broken(enum fsn_feature f);
