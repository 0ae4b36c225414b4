/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * baseline.c — `fsn-bench baseline`: how long fsnotifyd takes to make a
 * rule's baseline (its inventory of the files, in SQLite) and to compare
 * the files with it, against AIDE doing the same on the same tree.
 *
 * The bench enters a private mount namespace and mounts a tmpfs O (the
 * configs, AIDE's database, fsnotifyd's state directory, the programs'
 * output and logs) and, for one size at a time, a tmpfs T holding the
 * tree: N files T/dD/fI (I = 0..N-1, D = I / 100: 100 files a directory),
 * each 256 to 4096 bytes from a PRNG seeded per file. Everything is in
 * memory: the disk is not measured, the walk, the hashing and the
 * databases are.
 *
 * Both are set to record the same: AIDE's rule p+i+n+u+g+s+m+c+sha256+
 * ftype+l (permissions, inode, links, owner, group, size, mtime, ctime,
 * SHA-256, type, symlink target), fsnotifyd's rule recursive with
 * baseline and hash. AIDE runs with its defaults (one worker thread, the
 * database not compressed, a JSON report on stdout).
 *
 * Each round, at each size:
 *   init    AIDE's database and fsnotifyd's state directory removed, then
 *           `aide --init` and `fsnotifyd --baseline-init` (each exit 0);
 *           aide.db.new renamed to aide.db (not timed);
 *   change  1 % of the files (every 100th, another one each round)
 *           rewritten with other random content (not timed);
 *   check   `aide --check` (exit 4: changed entries, none added or
 *           removed; its JSON report names exactly the rewritten files,
 *           directories aside) and `fsnotifyd --baseline-check` (exit 1;
 *           one baseline record "changed" for each rewritten file, none
 *           for any other file; a directory's is allowed).
 * The two programs of a step run in an order that alternates with the
 * rounds. Each is timed from the fork to its exit: wall (CLOCK_MONOTONIC)
 * and CPU (user + system, all its threads, from wait4()). A check that
 * finds other differences than the bench made, or an exit status other
 * than the one expected, fails the run.
 *
 * Figures: per size and program the median, minimum and maximum over the
 * rounds, and fsnotifyd / AIDE for init and for check (the median of the
 * per-round ratios); the target is at most 1.0 in wall time.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-util.h"
#include "json.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#define MIN_FILES 100
#define MAX_FILES 2000000
#define MAX_SIZES 16
#define MAX_ROUNDS 64
#define FILES_PER_DIR 100
#define CHANGE_EVERY 100 /* 1 % of the files are rewritten */
#define MIN_BYTES 256
#define MAX_BYTES 4096
#define TARGET_RATIO 1.0 /* fsnotifyd / AIDE, wall time */
#define AIDE_RULE "p+i+n+u+g+s+m+c+sha256+ftype+l"
#define AIDE_CHANGED 4 /* aide --check's exit status: changed entries only */

enum step { S_AIDE_INIT = 0, S_FSND_INIT, S_AIDE_CHECK, S_FSND_CHECK, _S_MAX };

static const char *const step_names[_S_MAX] = { "aide-init", "fsnotifyd-init", "aide-check",
						"fsnotifyd-check" };

/* fsnotifyd / AIDE: init and check */
enum pair { P_INIT = 0, P_CHECK, _P_MAX };

static const char *const pair_names[_P_MAX] = { "init", "check" };

struct bl_opts {
	unsigned sizes[MAX_SIZES], n_sizes, rounds;
	bool quick;
	const char *json_path;
	const char *fsnotifyd;
};

struct bl_env {
	char base[64];
	char out[96], tree[96];
	char aide_conf[160], aide_db[160], aide_db_new[160];
	char fsnd_conf[160], state[160];
};

/* One program's run. */
struct timing {
	uint64_t wall_ns, cpu_ns;
};

/* One round at one size. */
struct cell {
	struct timing t[_S_MAX];
	/* directories the checks reported besides the files (their mtime
	 * changed: not with this bench's rewrites, allowed all the same) */
	unsigned aide_dirs, fsnd_dirs;
};

struct stat3 {
	double median, min, max;
};

struct size_sum {
	struct stat3 wall_ms[_S_MAX], cpu_ms[_S_MAX];
	double ratio_wall[_P_MAX], ratio_cpu[_P_MAX]; /* median of the per-round ratios */
};

struct bl_ctx {
	const struct bl_opts *o;
	struct bl_env env;
	char aide_version[128];
	unsigned n;    /* files at the current size */
	bool *changed; /* rewritten this round, per file */
	bool *seen;    /* reported by the check being read, per file */
	unsigned n_changed;
};

/* ------------------------------------------------------------------------ */
/* The tree                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s) {
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static unsigned n_dirs(unsigned n) {
	return (n + FILES_PER_DIR - 1) / FILES_PER_DIR;
}

static void file_path(const struct bl_ctx *x, unsigned i, char *buf, size_t len) {
	snprintf(buf, len, "%s/d%u/f%u", x->env.tree, i / FILES_PER_DIR, i);
}

/* Write MIN_BYTES..MAX_BYTES from a PRNG seeded with seed to path: created
 * (O_EXCL), or with trunc the file there rewritten in place (its inode
 * kept, as an editor that writes in place or a tampering would). */
static int write_random(const char *path, uint64_t seed, bool trunc) {
	uint64_t block[MAX_BYTES / sizeof(uint64_t)];
	_cleanup_close_ int fd = -1;
	size_t len, done = 0;

	len = MIN_BYTES + splitmix64(&seed) % (MAX_BYTES - MIN_BYTES + 1);
	for (size_t i = 0; i < ELEMENTSOF(block); i++)
		block[i] = splitmix64(&seed);
	fd = open(path, O_WRONLY | O_CLOEXEC | (trunc ? O_TRUNC : O_CREAT | O_EXCL), 0644);
	if (fd < 0)
		return negative_errno();
	while (done < len) {
		ssize_t n = write(fd, (const char *)block + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return close(steal_fd(&fd)) < 0 ? negative_errno() : 0;
}

/* MemAvailable of /proc/meminfo in MiB, 0 when unknown. */
static uint64_t mem_available_mib(void) {
	_cleanup_fclose_ FILE *f = fopen("/proc/meminfo", "re");
	unsigned long long kb = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	return kb / 1024;
}

/* What a size takes in memory: a page a file on T, its inode and dentry,
 * and a row in each database with its copy (aide.db.new, the WAL). */
static uint64_t size_mib(unsigned n) {
	return (uint64_t)n * 8 / 1024 + 1;
}

/* The tree lives in memory: refuse what would push the machine into
 * reclaim (then the page cache, not the programs, would be measured). */
static int check_memory(const struct bl_opts *o) {
	unsigned n = o->sizes[o->n_sizes - 1];
	uint64_t need = size_mib(n), avail = mem_available_mib();

	if (avail && need > avail / 4 * 3) {
		fprintf(stderr,
			"fsn-bench baseline: %u files need about %" PRIu64
			" MiB of memory; %" PRIu64 " MiB available (at most 3/4 of it is used)\n",
			n, need, avail);
		return -EINVAL;
	}
	return 0;
}

/* Mount T for n files and make the tree. */
static int tree_setup(struct bl_ctx *x, unsigned n) {
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
	char name[32], size[32], path[PATH_MAX];
	int r;

	snprintf(name, sizeof(name), "t%u", n);
	/* a page a file, and slack for the directories */
	snprintf(size, sizeof(size), "%" PRIu64 "m", (uint64_t)n * 4 / 1024 + 64);
	r = bench_mount_tmpfs(x->env.base, name, size, x->env.tree, sizeof(x->env.tree));
	if (r < 0)
		return r;
	for (unsigned d = 0; d < n_dirs(n); d++) {
		snprintf(path, sizeof(path), "%s/d%u", x->env.tree, d);
		if (mkdir(path, 0755) < 0)
			return negative_errno();
	}
	for (unsigned i = 0; i < n; i++) {
		file_path(x, i, path, sizeof(path));
		r = write_random(path, UINT64_C(0x66736e2d62617365) + i, false);
		if (r < 0) {
			fprintf(stderr, "fsn-bench baseline: making %s: %s\n", path, strerror(-r));
			return r;
		}
	}
	x->n = n;
	fprintf(stderr, "fsn-bench baseline: %u files in %u directories made in %.1f s\n", n,
		n_dirs(n), (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	return 0;
}

static void tree_teardown(struct bl_ctx *x) {
	if (!x->env.tree[0])
		return;
	(void)umount2(x->env.tree, MNT_DETACH);
	(void)rmdir(x->env.tree);
	x->env.tree[0] = '\0';
}

/* Rewrite every CHANGE_EVERY-th file, starting at another one each round,
 * with content of a seed no file had. */
static int change_files(struct bl_ctx *x, unsigned round) {
	char path[PATH_MAX];
	int r;

	memset(x->changed, 0, x->n * sizeof(*x->changed));
	x->n_changed = 0;
	for (unsigned i = round % CHANGE_EVERY; i < x->n; i += CHANGE_EVERY) {
		file_path(x, i, path, sizeof(path));
		r = write_random(path, UINT64_C(0x6368616e6765) + ((uint64_t)round << 32) + i,
				 true);
		if (r < 0) {
			fprintf(stderr, "fsn-bench baseline: rewriting %s: %s\n", path,
				strerror(-r));
			return r;
		}
		x->changed[i] = true;
		x->n_changed++;
	}
	return 0;
}

/* The file a reported path names (0..n-1), -1 for one of the tree's
 * directories, -2 for anything else. */
static int tree_index(const struct bl_ctx *x, const char *path) {
	size_t len = strlen(x->env.tree);
	unsigned d, i;
	char want[PATH_MAX], tail;

	if (!path || strncmp(path, x->env.tree, len) != 0)
		return -2;
	path += len;
	if (path[0] == '\0')
		return -1;
	if (sscanf(path, "/d%u/f%u%c", &d, &i, &tail) == 2 && i < x->n) {
		file_path(x, i, want, sizeof(want));
		return strcmp(want + len, path) == 0 ? (int)i : -2;
	}
	if (sscanf(path, "/d%u%c", &d, &tail) == 1 && d < n_dirs(x->n)) {
		snprintf(want, sizeof(want), "/d%u", d);
		return strcmp(want, path) == 0 ? -1 : -2;
	}
	return -2;
}

/* ------------------------------------------------------------------------ */
/* The programs                                                              */
/* ------------------------------------------------------------------------ */

static int write_configs(const struct bl_ctx *x) {
	FILE *f = fopen(x->env.aide_conf, "we");
	int r;

	if (!f)
		return negative_errno();
	fprintf(f,
		"# generated by fsn-bench baseline\n"
		"database_in=file:%s\n"
		"database_out=file:%s\n"
		"gzip_dbout=no\n"
		"report_format=json\n"
		"report_url=stdout\n"
		"Check = " AIDE_RULE "\n"
		"%s Check\n",
		x->env.aide_db, x->env.aide_db_new, x->env.tree);
	r = bench_fclose(f);
	if (r < 0)
		return r;
	f = fopen(x->env.fsnd_conf, "we");
	if (!f)
		return negative_errno();
	/* the state directory is made by the daemon (0700) below O, which is
	 * root's and 0700 as it requires */
	fprintf(f,
		"# generated by fsn-bench baseline\n"
		"state_directory = \"%s\";\n"
		"outputs = [\"j\"];\n"
		"output = { j = { type = \"json\"; file = \"/dev/null\"; }; };\n"
		"control = { socket = \"\"; };\n"
		"rules = ({\n"
		"  name = \"b\";\n"
		"  paths = [\"%s\"];\n"
		"  recursive = true;\n"
		"  baseline = true;\n"
		"  hash = true;\n"
		"});\n",
		x->env.state, x->env.tree);
	return bench_fclose(f);
}

/* Run argv from the fork to its exit, its stdout to out and its stderr to
 * log (both on O); its exit status (-1: killed by a signal) and times. */
static int run_timed(char *const argv[], const char *out, const char *log, int *ret_status,
		     struct timing *ret) {
	_cleanup_close_ int fd = -1;
	struct rusage ru;
	uint64_t t0, t1;
	int status, r;
	pid_t pid;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	t0 = bench_now_ns(CLOCK_MONOTONIC);
	r = bench_spawn_in(argv, NULL, fd, log, NULL, &pid);
	if (r < 0)
		return r;
	/* wait4(): the child's own rusage, all its threads, once it is reaped */
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return negative_errno();
	t1 = bench_now_ns(CLOCK_MONOTONIC);
	ret->wall_ns = t1 - t0;
	ret->cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
		      ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
	*ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

/* Run step s; an exit status other than want fails it, with the program's
 * log. */
static int run_step(struct bl_ctx *x, enum step s, struct timing *ret) {
	const char *fsnd = x->o->fsnotifyd;
	char aide_conf[200], out[PATH_MAX], log[PATH_MAX];
	char *aide_init[] = { (char *)"aide", (char *)"--init", aide_conf, NULL },
	     *aide_check[] = { (char *)"aide", (char *)"--check", aide_conf, NULL },
	     *fsnd_init[] = { (char *)fsnd, (char *)"--config", x->env.fsnd_conf,
			      (char *)"--baseline-init", NULL },
	     *fsnd_check[] = { (char *)fsnd, (char *)"--config", x->env.fsnd_conf,
			       (char *)"--baseline-check", NULL };
	char *const *const argv[_S_MAX] = { aide_init, fsnd_init, aide_check, fsnd_check };
	static const int want[_S_MAX] = { 0, 0, AIDE_CHANGED, 1 };
	int status, r;

	snprintf(aide_conf, sizeof(aide_conf), "--config=%s", x->env.aide_conf);
	snprintf(out, sizeof(out), "%s/%s.out", x->env.out, step_names[s]);
	snprintf(log, sizeof(log), "%s/%s.log", x->env.out, step_names[s]);
	r = run_timed(argv[s], out, log, &status, ret);
	if (r < 0)
		return r;
	if (status != want[s]) {
		if (status < 0)
			fprintf(stderr, "fsn-bench baseline: %s: killed by a signal\n",
				step_names[s]);
		else
			fprintf(stderr, "fsn-bench baseline: %s: exit status %d, expected %d%s\n",
				step_names[s], status, want[s],
				s == S_AIDE_CHECK ? " (changed entries only)" : "");
		bench_show_log(log, 20);
		return -ECHILD;
	}
	return 0;
}

/* Remove what the last round left: AIDE's databases and fsnotifyd's state
 * directory. */
static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

static int fresh_state(const struct bl_ctx *x) {
	if ((unlink(x->env.aide_db) < 0 && errno != ENOENT) ||
	    (unlink(x->env.aide_db_new) < 0 && errno != ENOENT))
		return negative_errno();
	if (nftw(x->env.state, unlink_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return negative_errno();
	return 0;
}

/* ------------------------------------------------------------------------ */
/* What the checks reported                                                  */
/* ------------------------------------------------------------------------ */

/* Each rewritten file reported once, no other file: 0, or -EBADMSG saying
 * what differs (who: the program). */
static int check_seen(const struct bl_ctx *x, const char *who, unsigned count) {
	if (count == x->n_changed)
		return 0;
	for (unsigned i = 0; i < x->n; i++)
		if (x->changed[i] && !x->seen[i]) {
			fprintf(stderr,
				"fsn-bench baseline: %s: %u of the %u rewritten files reported; "
				"not f%u, for one\n",
				who, count, x->n_changed, i);
			break;
		}
	return -EBADMSG;
}

/* A path a check reported as changed: a rewritten file (once), or a
 * directory of the tree (counted in *dirs). */
static int on_changed(struct bl_ctx *x, const char *who, const char *path, unsigned *count,
		      unsigned *dirs) {
	int i = tree_index(x, path);

	if (i == -1) {
		(*dirs)++;
		return 0;
	}
	if (i < 0 || !x->changed[i] || x->seen[i]) {
		fprintf(stderr, "fsn-bench baseline: %s: reported %s, %s\n", who,
			path ? path : "(no path)",
			i < 0            ? "not in the tree"
			: !x->changed[i] ? "a file the bench did not change"
					 : "a second time");
		return -EBADMSG;
	}
	x->seen[i] = true;
	(*count)++;
	return 0;
}

/* fsnotifyd --baseline-check's JSON lines: a baseline record "changed" for
 * each rewritten file, nothing else but the directories'. */
static int check_fsnd_output(struct bl_ctx *x, unsigned *ret_dirs) {
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX], *save = NULL;
	unsigned count = 0, dirs = 0;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s.out", x->env.out, step_names[S_FSND_CHECK]);
	r = bench_read_text(path, &text, &len);
	if (r < 0)
		return r;
	memset(x->seen, 0, x->n * sizeof(*x->seen));
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct json *j = NULL;
		const char *kind, *change;
		size_t off;

		if (json_parse(line, strlen(line), &j, &off) < 0) {
			fprintf(stderr,
				"fsn-bench baseline: fsnotifyd wrote a line that is not "
				"JSON: %s\n",
				line);
			return -EBADMSG;
		}
		kind = json_get_string(j, "kind");
		change = json_get_string(j, "change");
		if (!kind || strcmp(kind, "baseline") != 0 || !change ||
		    strcmp(change, "changed") != 0) {
			fprintf(stderr,
				"fsn-bench baseline: fsnotifyd: a record of kind %s, change %s "
				"(only \"changed\" baseline records expected): %s\n",
				kind ? kind : "?", change ? change : "?", line);
			r = -EBADMSG;
		} else {
			r = on_changed(x, "fsnotifyd", json_get_string(j, "path"), &count, &dirs);
		}
		json_free(j);
		if (r < 0)
			return r;
	}
	*ret_dirs = dirs;
	return check_seen(x, "fsnotifyd", count);
}

/* aide --check's JSON report: its "changed" entries are the rewritten files
 * (and directories); the exit status said none were added or removed. */
static int check_aide_output(struct bl_ctx *x, unsigned *ret_dirs) {
	_cleanup_free_ char *text = NULL;
	struct json *j = NULL;
	const struct json *changed;
	unsigned count = 0, dirs = 0;
	char path[PATH_MAX];
	size_t len, off;
	int r;

	snprintf(path, sizeof(path), "%s/%s.out", x->env.out, step_names[S_AIDE_CHECK]);
	r = bench_read_text(path, &text, &len);
	if (r < 0)
		return r;
	if (json_parse(text, len, &j, &off) < 0) {
		fprintf(stderr, "fsn-bench baseline: aide's report (%s) is not JSON at byte %zu\n",
			path, off);
		return -EBADMSG;
	}
	memset(x->seen, 0, x->n * sizeof(*x->seen));
	changed = json_get(j, "changed");
	for (size_t k = 0; r == 0 && changed && changed->type == JSON_OBJECT && k < changed->n; k++)
		r = on_changed(x, "aide", changed->keys[k], &count, &dirs);
	json_free(j);
	if (r < 0)
		return r;
	*ret_dirs = dirs;
	return check_seen(x, "aide", count);
}

/* ------------------------------------------------------------------------ */
/* Rounds                                                                    */
/* ------------------------------------------------------------------------ */

/* Steps a and b in the order of the round: a first in even rounds. */
static int run_pair(struct bl_ctx *x, enum step a, enum step b, unsigned round, struct cell *c) {
	enum step order[2] = { a, b };
	int r;

	if (round % 2) {
		order[0] = b;
		order[1] = a;
	}
	for (unsigned k = 0; k < 2; k++) {
		r = run_step(x, order[k], &c->t[order[k]]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int run_round(struct bl_ctx *x, unsigned round, struct cell *c) {
	int r;

	r = fresh_state(x);
	if (r == 0)
		r = run_pair(x, S_AIDE_INIT, S_FSND_INIT, round, c);
	if (r == 0 && rename(x->env.aide_db_new, x->env.aide_db) < 0)
		r = negative_errno();
	if (r == 0)
		r = change_files(x, round);
	if (r == 0)
		r = run_pair(x, S_AIDE_CHECK, S_FSND_CHECK, round, c);
	if (r == 0)
		r = check_aide_output(x, &c->aide_dirs);
	if (r == 0)
		r = check_fsnd_output(x, &c->fsnd_dirs);
	return r;
}

static int run_size(struct bl_ctx *x, unsigned n, struct cell *cells) {
	const struct bl_opts *o = x->o;
	uint64_t t_start;
	char what[64];
	int r;

	free(x->changed);
	free(x->seen);
	x->changed = calloc(n, sizeof(*x->changed));
	x->seen = calloc(n, sizeof(*x->seen));
	if (!x->changed || !x->seen)
		return -ENOMEM;
	r = tree_setup(x, n);
	if (r == 0)
		r = write_configs(x);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "baseline, %u files", n);
	t_start = bench_now_ns(CLOCK_MONOTONIC);
	for (unsigned round = 0; round < o->rounds; round++) {
		r = run_round(x, round, &cells[round]);
		if (r < 0) {
			fprintf(stderr, "fsn-bench baseline: %u files, round %u failed\n", n,
				round + 1);
			return r;
		}
		bench_progress(what, round + 1, o->rounds, t_start);
	}
	return 0;
}

static int env_setup(struct bl_ctx *x) {
	char size[32];
	int r;

	r = bench_env_enter(x->env.base, sizeof(x->env.base), "/tmp/fsn-bench-bl.XXXXXX");
	if (r < 0)
		return r;
	snprintf(size, sizeof(size), "%" PRIu64 "m", size_mib(x->o->sizes[x->o->n_sizes - 1]) + 64);
	r = bench_mount_tmpfs(x->env.base, "o", size, x->env.out, sizeof(x->env.out));
	if (r < 0)
		return r;
	snprintf(x->env.aide_conf, sizeof(x->env.aide_conf), "%s/aide.conf", x->env.out);
	snprintf(x->env.aide_db, sizeof(x->env.aide_db), "%s/aide.db", x->env.out);
	snprintf(x->env.aide_db_new, sizeof(x->env.aide_db_new), "%s/aide.db.new", x->env.out);
	snprintf(x->env.fsnd_conf, sizeof(x->env.fsnd_conf), "%s/fsnotifyd.conf", x->env.out);
	snprintf(x->env.state, sizeof(x->env.state), "%s/state", x->env.out);
	return 0;
}

/* Untimed, before the rounds: both programs run at all (a missing
 * fsnotifyd fails here, not in the middle), their binaries are in the page
 * cache, and AIDE's version is known. */
static int probe_programs(struct bl_ctx *x) {
	char *aide[] = { (char *)"aide", (char *)"--version", NULL },
	     *fsnd[] = { (char *)x->o->fsnotifyd, (char *)"--version", NULL };
	char out[PATH_MAX], log[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	struct timing t;
	size_t len;
	int status, r;

	snprintf(out, sizeof(out), "%s/version.out", x->env.out);
	snprintf(log, sizeof(log), "%s/version.log", x->env.out);
	r = run_timed(fsnd, out, log, &status, &t);
	if (r == 0 && status != 0) {
		fprintf(stderr, "fsn-bench baseline: %s --version failed:\n", x->o->fsnotifyd);
		bench_show_log(log, 20);
		r = -ECHILD;
	}
	if (r == 0)
		r = run_timed(aide, out, log, &status, &t);
	if (r == 0 && status != 0) {
		fprintf(stderr, "fsn-bench baseline: aide --version failed:\n");
		bench_show_log(log, 20);
		r = -ECHILD;
	}
	if (r < 0)
		return r;
	/* its first line: "AIDE 0.18.3" */
	snprintf(x->aide_version, sizeof(x->aide_version), "unknown");
	if (bench_read_text(out, &text, &len) == 0 && strncmp(text, "AIDE", 4) == 0) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(x->aide_version, sizeof(x->aide_version), "%s", text);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Summary, table, JSON                                                      */
/* ------------------------------------------------------------------------ */

static void stat3_of(double *v, unsigned n, struct stat3 *s) {
	s->min = INFINITY;
	s->max = -INFINITY;
	for (unsigned r = 0; r < n; r++) {
		s->min = v[r] < s->min ? v[r] : s->min;
		s->max = v[r] > s->max ? v[r] : s->max;
	}
	s->median = bench_median(v, n);
}

static void summarize(const struct bl_opts *o, const struct cell *cells, struct size_sum *s) {
	static const enum step fsnd[_P_MAX] = { S_FSND_INIT, S_FSND_CHECK },
			       aide[_P_MAX] = { S_AIDE_INIT, S_AIDE_CHECK };
	double v[MAX_ROUNDS], q[MAX_ROUNDS];

	for (unsigned st = 0; st < _S_MAX; st++) {
		for (unsigned r = 0; r < o->rounds; r++) {
			v[r] = cells[r].t[st].wall_ns / 1e6;
			q[r] = cells[r].t[st].cpu_ns / 1e6;
		}
		stat3_of(v, o->rounds, &s->wall_ms[st]);
		stat3_of(q, o->rounds, &s->cpu_ms[st]);
	}
	for (unsigned p = 0; p < _P_MAX; p++) {
		for (unsigned r = 0; r < o->rounds; r++) {
			const struct timing *f = &cells[r].t[fsnd[p]], *a = &cells[r].t[aide[p]];

			v[r] = (double)f->wall_ns / (double)a->wall_ns;
			/* (CPU is counted in clock ticks or finer; a run under
			 * one tick may show 0) */
			q[r] = a->cpu_ns ? (double)f->cpu_ns / (double)a->cpu_ns : NAN;
		}
		s->ratio_wall[p] = bench_median(v, o->rounds);
		s->ratio_cpu[p] = bench_median(q, o->rounds);
	}
}

static void fmt(char *buf, size_t len, double v, int prec) {
	if (isfinite(v))
		snprintf(buf, len, "%.*f", prec, v);
	else
		snprintf(buf, len, "-");
}

static void print_table(const struct bl_ctx *x, const struct cell *cells,
			const struct size_sum *sums) {
	const struct bl_opts *o = x->o;
	char a[6][32];
	bool all_met = true;

	printf("fsn-bench baseline: fsnotifyd --baseline-init/--baseline-check against aide "
	       "--init/--check (%s);\n",
	       x->aide_version);
	printf("%u size(s):", o->n_sizes);
	for (unsigned i = 0; i < o->n_sizes; i++)
		printf("%s %u", i ? "," : "", o->sizes[i]);
	printf(" files (%d a directory, %d..%d random bytes) on tmpfs, 1 in %d rewritten before "
	       "the checks, %u round(s)\n",
	       FILES_PER_DIR, MIN_BYTES, MAX_BYTES, CHANGE_EVERY, o->rounds);
	printf("%-8s %-16s %10s %10s %10s %10s %10s %10s\n", "files", "step", "wall_ms", "min",
	       "max", "cpu_ms", "min", "max");
	for (unsigned i = 0; i < o->n_sizes; i++)
		for (unsigned s = 0; s < _S_MAX; s++) {
			const struct stat3 *w = &sums[i].wall_ms[s], *c = &sums[i].cpu_ms[s];

			fmt(a[0], sizeof(a[0]), w->median, 1);
			fmt(a[1], sizeof(a[1]), w->min, 1);
			fmt(a[2], sizeof(a[2]), w->max, 1);
			fmt(a[3], sizeof(a[3]), c->median, 1);
			fmt(a[4], sizeof(a[4]), c->min, 1);
			fmt(a[5], sizeof(a[5]), c->max, 1);
			printf("%-8u %-16s %10s %10s %10s %10s %10s %10s\n", o->sizes[i],
			       step_names[s], a[0], a[1], a[2], a[3], a[4], a[5]);
		}
	printf("(medians over the rounds; cpu: user + system of the program, all its threads)\n");
	printf("fsnotifyd / aide (the median of the per-round ratios):\n");
	printf("%-8s %10s %10s %10s %10s\n", "files", "init_wall", "init_cpu", "check_wall",
	       "check_cpu");
	for (unsigned i = 0; i < o->n_sizes; i++) {
		fmt(a[0], sizeof(a[0]), sums[i].ratio_wall[P_INIT], 2);
		fmt(a[1], sizeof(a[1]), sums[i].ratio_cpu[P_INIT], 2);
		fmt(a[2], sizeof(a[2]), sums[i].ratio_wall[P_CHECK], 2);
		fmt(a[3], sizeof(a[3]), sums[i].ratio_cpu[P_CHECK], 2);
		printf("%-8u %10s %10s %10s %10s\n", o->sizes[i], a[0], a[1], a[2], a[3]);
	}
	printf("checked every round: aide --check exit %d and fsnotifyd --baseline-check exit 1,\n"
	       "each naming every rewritten file once and no other file; directories reported\n"
	       "besides (all rounds):",
	       AIDE_CHANGED);
	for (unsigned i = 0; i < o->n_sizes; i++) {
		unsigned ad = 0, fd = 0;

		for (unsigned r = 0; r < o->rounds; r++) {
			ad += cells[i * o->rounds + r].aide_dirs;
			fd += cells[i * o->rounds + r].fsnd_dirs;
		}
		printf("%s %u: aide %u, fsnotifyd %u", i ? ";" : "", o->sizes[i], ad, fd);
	}
	printf("\n");
	printf("target for fsnotifyd (printed, never an exit status): wall time <= %.2fx aide\n",
	       TARGET_RATIO);
	for (unsigned i = 0; i < o->n_sizes; i++)
		for (unsigned p = 0; p < _P_MAX; p++) {
			bool met = sums[i].ratio_wall[p] <= TARGET_RATIO;

			char label[16];

			all_met = all_met && met;
			snprintf(label, sizeof(label), "%s:", pair_names[p]);
			printf("  %u files, %-6s %.2fx  [%s]\n", o->sizes[i], label,
			       sums[i].ratio_wall[p], met ? "met" : "missed");
		}
	if (!all_met)
		printf("  (missed: see where fsnotifyd's time goes with perf record -g on its "
		       "one-shot run)\n");
}

static void write_stat3(FILE *f, const char *name, const struct stat3 *s) {
	fprintf(f, "\"%s\": {\"median\": ", name);
	json_write_number(f, s->median);
	fputs(", \"min\": ", f);
	json_write_number(f, s->min);
	fputs(", \"max\": ", f);
	json_write_number(f, s->max);
	fputc('}', f);
}

static void write_json_size(FILE *f, const struct bl_opts *o, unsigned i, const struct cell *cells,
			    const struct size_sum *s) {
	unsigned n = o->sizes[i], changed = (n + CHANGE_EVERY - 1) / CHANGE_EVERY;

	fprintf(f, "\n    {\"files\": %u, \"dirs\": %u, \"changed\": %u,\n     \"rounds\": [", n,
		n_dirs(n), changed);
	for (unsigned r = 0; r < o->rounds; r++) {
		const struct cell *c = &cells[i * o->rounds + r];

		fprintf(f, "%s\n       {", r ? "," : "");
		for (unsigned st = 0; st < _S_MAX; st++) {
			fprintf(f, "\"%s\": {\"wall_ms\": ", step_names[st]);
			json_write_number(f, c->t[st].wall_ns / 1e6);
			fputs(", \"cpu_ms\": ", f);
			json_write_number(f, c->t[st].cpu_ns / 1e6);
			fputs("}, ", f);
		}
		fprintf(f, "\"aide_dirs\": %u, \"fsnotifyd_dirs\": %u}", c->aide_dirs,
			c->fsnd_dirs);
	}
	fputs("],\n     \"summary\": {", f);
	for (unsigned st = 0; st < _S_MAX; st++) {
		fprintf(f, "%s\n       \"%s\": {", st ? "," : "", step_names[st]);
		write_stat3(f, "wall_ms", &s->wall_ms[st]);
		fputs(", ", f);
		write_stat3(f, "cpu_ms", &s->cpu_ms[st]);
		fputc('}', f);
	}
	fputs("},\n     \"ratios\": {", f);
	for (unsigned p = 0; p < _P_MAX; p++) {
		fprintf(f, "%s\"%s\": {\"wall\": ", p ? ", " : "", pair_names[p]);
		json_write_number(f, s->ratio_wall[p]);
		fputs(", \"cpu\": ", f);
		json_write_number(f, s->ratio_cpu[p]);
		fputc('}', f);
	}
	fputs("}}", f);
}

static int write_json(const char *path, const struct bl_ctx *x, const struct cell *cells,
		      const struct size_sum *sums) {
	const struct bl_opts *o = x->o;
	FILE *f = fopen(path, "we");

	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench baseline");
	fprintf(f, "},\n  \"parameters\": {\"rounds\": %u, \"sizes\": [", o->rounds);
	for (unsigned i = 0; i < o->n_sizes; i++)
		fprintf(f, "%s%u", i ? ", " : "", o->sizes[i]);
	fprintf(f, "], \"quick\": %s, \"fsnotifyd\": ", o->quick ? "true" : "false");
	json_write_string(f, o->fsnotifyd);
	fputs(", \"aide\": ", f);
	json_write_string(f, x->aide_version);
	fprintf(f,
		",\n    \"files_per_dir\": %d, \"min_bytes\": %d, \"max_bytes\": %d, "
		"\"change_every\": %d, \"aide_rule\": \"%s\"},\n  \"steps\": [",
		FILES_PER_DIR, MIN_BYTES, MAX_BYTES, CHANGE_EVERY, AIDE_RULE);
	for (unsigned st = 0; st < _S_MAX; st++)
		fprintf(f, "%s\"%s\"", st ? ", " : "", step_names[st]);
	fputs("],\n  \"sizes\": [", f);
	for (unsigned i = 0; i < o->n_sizes; i++) {
		if (i)
			fputc(',', f);
		write_json_size(f, o, i, cells, &sums[i]);
	}
	fputs("\n  ],\n  \"targets\": {", f);
	for (unsigned p = 0; p < _P_MAX; p++) {
		bool met = true;

		fprintf(f, "%s\"%s_vs_aide\": {\"limit\": %g, \"ratios\": [", p ? ", " : "",
			pair_names[p], TARGET_RATIO);
		for (unsigned i = 0; i < o->n_sizes; i++) {
			if (i)
				fputs(", ", f);
			json_write_number(f, sums[i].ratio_wall[p]);
			met = met && sums[i].ratio_wall[p] <= TARGET_RATIO;
		}
		fprintf(f, "], \"met\": %s}", met ? "true" : "false");
	}
	fputs("}\n}\n", f);
	return bench_fclose(f);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct bl_opts *o) {
	enum { OPT_SIZES = BENCH_OPT_OWN };
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ 0 },
	};
	struct bench_common com = {
		.min_rounds = 1,
		.max_rounds = MAX_ROUNDS,
		.no_ops = "fsn-bench baseline: no --ops; the sizes are --sizes LIST",
	};
	const char *sizes = NULL;
	int c, r;

	*o = (struct bl_opts){ 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_SIZES:
			sizes = optarg;
			r = 0;
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
	r = bench_parse_sizes("--sizes",
			      sizes      ? sizes
			      : o->quick ? "2000"
					 : "10000,100000",
			      MIN_FILES, MAX_FILES, 1, o->sizes, MAX_SIZES);
	if (r < 0)
		return r;
	o->n_sizes = (unsigned)r;
	return 0;
}

int bench_baseline_main(int argc, char **argv) {
	static const char default_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
					   "/sbin:/bin";
	struct bl_opts o;
	struct bl_ctx x = { .env.base = "" };
	_cleanup_free_ struct cell *cells = NULL;
	_cleanup_free_ struct size_sum *sums = NULL;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("baseline", "tmpfs mounts"))
		return 77;
	if (!bench_in_path("aide", default_path)) {
		printf("fsn-bench baseline: skipped: aide is not on PATH (Debian package aide)\n");
		return 77;
	}
	r = check_memory(&o);
	if (r < 0)
		return r;
	x.o = &o;
	cells = calloc((size_t)o.n_sizes * o.rounds, sizeof(*cells));
	sums = calloc(o.n_sizes, sizeof(*sums));
	if (!cells || !sums)
		return -ENOMEM;
	r = env_setup(&x);
	if (r < 0)
		fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
			strerror(-r));
	if (r == 0)
		r = probe_programs(&x);
	for (unsigned i = 0; r == 0 && i < o.n_sizes; i++) {
		r = run_size(&x, o.sizes[i], cells + (size_t)i * o.rounds);
		tree_teardown(&x);
	}
	tree_teardown(&x);
	bench_env_teardown(x.env.base);
	free(x.changed);
	free(x.seen);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < o.n_sizes; i++)
		summarize(&o, cells + (size_t)i * o.rounds, &sums[i]);
	print_table(&x, cells, sums);
	if (o.json_path) {
		r = write_json(o.json_path, &x, cells, sums);
		if (r < 0)
			fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
	}
	return r < 0 ? r : 0;
}
