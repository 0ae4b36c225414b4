/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan-costs.c — `fsnotifyd --explain`: the plan per rule, wrapped, with what
 * its marks cost in figures of `fsn-bench hooks`.
 *
 * fsn-bench hooks measures operations per CPU-second of a workload (pwrite,
 * open+close, pread on a tmpfs file) while one watcher scenario is in
 * place, as a ratio to no watcher in the same round. Each kind of mark is
 * quoted by the scenario that measures it: a watch or inode mark elsewhere
 * on the filesystem (ino-same-fs: the filesystem has watchers, so every
 * access runs the fsnotify checks), an access inside a watched directory
 * that the mask does not report (ino-parent-nomatch), an access that is
 * reported (ino-parent-drain: an event queued and read), a filesystem mark
 * whose mask does not match (fan-fs-nomatch), a mount mark on another
 * mount of the filesystem (fan-mount-other) and a permission mark on the
 * filesystem with a responder (perm-same-fs). The figure printed is the CPU
 * per operation against no watcher: 1/ratio.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "fsn-util.h"
#include "hook-costs.txt.h"
#include "plan-costs.h"

static const char *const scenario_names[_HS_MAX] = {
	[HS_INO_SAME_FS] = "ino-same-fs",           [HS_INO_PARENT_NOMATCH] = "ino-parent-nomatch",
	[HS_INO_PARENT_DRAIN] = "ino-parent-drain", [HS_FAN_MOUNT_OTHER] = "fan-mount-other",
	[HS_FAN_FS_NOMATCH] = "fan-fs-nomatch",     [HS_PERM_SAME_FS] = "perm-same-fs",
};

static const char *const op_names[_HOOK_OP_MAX] = {
	[HOOK_WRITE] = "pwrite",
	[HOOK_OPEN] = "open-close",
	[HOOK_READ] = "pread",
};

const char hook_scenarios_arg[] = "none,none-ctl,ino-same-fs,ino-parent-nomatch,ino-parent-drain,"
				  "fan-mount-other,fan-fs-nomatch,perm-same-fs";
const char hook_workloads_arg[] = "pwrite,open-close,pread";

static int index_of(const char *const *names, size_t n, const char *s) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

int hook_costs_parse(const char *text, struct hook_costs *ret) {
	char params[128] = "";
	char machine[160] = "";
	size_t found = 0;

	*ret = (struct hook_costs){ 0 };
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[512], sc[32], wl[32], verdict[64] = "";
		double median, ratio, change, lo, hi;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (strncmp(buf, "# machine: ", 11) == 0)
				snprintf(machine, sizeof(machine), "%.150s", buf + 11);
			else if (strncmp(buf, "fsn-bench hooks: ", 17) == 0) {
				size_t pl = strcspn(buf + 17, ";");

				snprintf(params, sizeof(params), "%.*s",
					 (int)(pl < sizeof(params) ? pl : sizeof(params) - 1),
					 buf + 17);
			} else if (sscanf(buf, "%31s %31s %lf %lf %lf%% [ %lf, %lf] %63[^\n]", sc,
					  wl, &median, &ratio, &change, &lo, &hi, verdict) >= 7) {
				int s = index_of(scenario_names, _HS_MAX, sc);
				int w = index_of(op_names, _HOOK_OP_MAX, wl);

				if (s >= 0 && w >= 0 && ratio > 0) {
					ret->c[s][w] =
					    (struct hook_cost){ .known = true,
								.ratio = ratio,
								.noise = lo <= 1.0 && hi >= 1.0 };
					found++;
				}
			}
		}
		line = end ? end + 1 : NULL;
	}
	if (!found)
		return -EINVAL;
	snprintf(ret->source, sizeof(ret->source), "fsn-bench hooks%s%s%s%s", params[0] ? " (" : "",
		 params, params[0] ? ")" : "", machine[0] ? " on " : "");
	if (machine[0]) {
		size_t n = strlen(ret->source);

		snprintf(ret->source + n, sizeof(ret->source) - n, "%s", machine);
	}
	return 0;
}

int hook_costs_builtin(struct hook_costs *ret) {
	int r = hook_costs_parse(hook_costs_text, ret);

	if (r == 0) {
		size_t n = strlen(ret->source);

		snprintf(ret->source + n, sizeof(ret->source) - n,
			 ", the table shipped with fsnotifyd");
	}
	return r;
}

int hook_costs_measure(const char *fsn_bench, struct hook_costs *ret, char *err, size_t len) {
	_cleanup_free_ char *out = NULL;
	size_t n = 0, cap = 0;
	struct utsname u;
	int fds[2], status = 0, r;
	pid_t pid, w;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(err, len, "pipe: %s", strerror(-r));
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		snprintf(err, len, "fork: %s", strerror(-r));
		return r;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl(fsn_bench, fsn_bench, "hooks", "--quick", "--workloads", hook_workloads_arg,
		      "--scenarios", hook_scenarios_arg, (char *)NULL);
		fprintf(stderr, "fsnotifyd: cannot run %s: %s\n", fsn_bench, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t k;

		if (cap - n < 4096) {
			char *b = realloc(out, cap + 65536);

			if (!b)
				break;
			out = b;
			cap += 65536;
		}
		k = read(fds[0], out + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fds[0]);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		r = -errno;
		snprintf(err, len, "waitpid: %s", strerror(-r));
		return r;
	}
	if (!out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, len, "%s hooks --quick failed (%s %d)", fsn_bench,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -EIO;
	}
	out[n] = '\0';
	r = hook_costs_parse(out, ret);
	if (r < 0) {
		snprintf(err, len, "%s hooks printed no figures this explanation uses", fsn_bench);
		return r;
	}
	n = strlen(ret->source);
	if (uname(&u) == 0)
		snprintf(ret->source + n, sizeof(ret->source) - n,
			 " on this machine now (Linux %s, %ld CPUs)", u.release,
			 sysconf(_SC_NPROCESSORS_ONLN));
	ret->measured = true;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* the costs of one rule                                                    */
/* ------------------------------------------------------------------------ */

/* "  1.07x" or " ~1.01x" (within noise) or "      ?" (not measured) */
static void put_cost(FILE *f, const struct hook_cost *c) {
	char b[32];

	if (!c->known)
		snprintf(b, sizeof(b), "?");
	else
		snprintf(b, sizeof(b), "%s%.2fx", c->noise ? "~" : "", 1.0 / c->ratio);
	fprintf(f, " %7s", b);
}

static void put_row(FILE *f, const struct hook_costs *hc, enum hook_scenario s, const char *what) {
	fprintf(f, "      %-28s", what);
	for (int op = 0; op < _HOOK_OP_MAX; op++)
		put_cost(f, &hc->c[s][op]);
	fprintf(f, "  [%s]\n", scenario_names[s]);
}

struct mark_kind {
	enum fsn_mark_type type;
	size_t fs;
	bool is_dir;
};

/* The rows of one kind of mark: the scenario that measures it and what that
 * is (dir: only for directories), up to a row without words. */
struct cost_row {
	enum hook_scenario s;
	const char *what;
	bool dir;
};

static const struct cost_row watch_rows[] = {
	{ HS_INO_SAME_FS, "elsewhere on the filesystem", false },
	{ HS_INO_PARENT_NOMATCH, "in a watched dir, no event", true },
	{ HS_INO_PARENT_DRAIN, "each access it reports", false },
	{ 0 },
};
static const struct cost_row watch_perm_rows[] = {
	{ HS_INO_SAME_FS, "elsewhere on the filesystem", false },
	{ HS_PERM_SAME_FS, "each access it guards", false },
	{ 0 },
};
static const struct cost_row fs_rows[] = {
	{ HS_FAN_FS_NOMATCH, "anywhere on it, no event", false },
	{ HS_INO_PARENT_DRAIN, "each access it reports", false },
	{ 0 },
};
static const struct cost_row fs_perm_rows[] = {
	{ HS_PERM_SAME_FS, "anywhere on the filesystem", false },
	{ 0 },
};
static const struct cost_row mount_rows[] = {
	{ HS_FAN_MOUNT_OTHER, "through other mounts of it", false },
	{ HS_INO_PARENT_DRAIN, "each access it reports", false },
	{ 0 },
};
static const struct cost_row mount_perm_rows[] = {
	{ HS_PERM_SAME_FS, "anywhere on the mount", false },
	{ 0 },
};

static const struct {
	enum fsn_mark_type type;
	const char *name;
	const struct cost_row *rows, *perm_rows;
} kind_rows[] = {
	{ FSN_MARK_INODE, "inode marks", watch_rows, watch_perm_rows },
	{ FSN_MARK_INOTIFY, "inotify watches", watch_rows, watch_perm_rows },
	{ FSN_MARK_FILESYSTEM, "filesystem marks", fs_rows, fs_perm_rows },
	{ FSN_MARK_MOUNT, "mount marks", mount_rows, mount_perm_rows },
};

static void put_kind(const struct plan *p, const struct rule_conf *rule, const struct mark_kind *k,
		     const struct hook_costs *hc, FILE *f) {
	const struct plan_fs *fs = k->fs < p->n_fs ? &p->fs[k->fs] : NULL;
	char where[PATH_MAX + 64];

	if (fs)
		snprintf(where, sizeof(where), "%s at %s", fs->type ? fs->type : "?",
			 text_escaped((char[PATH_MAX]){ 0 }, PATH_MAX, fs->root ? fs->root : "?"));
	else
		snprintf(where, sizeof(where), "its filesystem");
	for (size_t i = 0; i < ELEMENTSOF(kind_rows); i++) {
		if (kind_rows[i].type != k->type)
			continue;
		fprintf(f, "    %s%s, %s:\n", rule->perm ? "permission " : "", kind_rows[i].name,
			where);
		for (const struct cost_row *row = rule->perm ? kind_rows[i].perm_rows
							     : kind_rows[i].rows;
		     row->what; row++)
			if (!row->dir || k->is_dir)
				put_row(f, hc, row->s, row->what);
	}
}

struct costs_ctx {
	const struct hook_costs *hc;
};

static void put_rule_costs(const struct plan *p, size_t i, FILE *f, void *userdata) {
	const struct costs_ctx *x = userdata;
	const struct plan_rule_marks *r = &p->by_rule[i];
	struct mark_kind kinds[16];
	size_t n = 0;

	for (size_t j = r->first; j < r->first + r->n; j++) {
		const struct plan_mark *m = &p->marks[j];
		struct mark_kind k = { m->spec.type, m->fs, m->is_dir };
		bool seen = false;

		if (m->spec.mask == 0) /* an ignore mark: it only removes events */
			continue;
		for (size_t q = 0; q < n; q++)
			if (kinds[q].type == k.type && kinds[q].fs == k.fs) {
				kinds[q].is_dir |= k.is_dir;
				seen = true;
			}
		if (!seen && n < ELEMENTSOF(kinds))
			kinds[n++] = k;
	}
	if (!n)
		return;
	fprintf(f, "  cost: CPU per write / open / read against no watcher:\n");
	fprintf(f, "      %-28s %7s %7s %7s\n", "", "write", "open", "read");
	for (size_t q = 0; q < n; q++)
		put_kind(p, &p->rules[i], &kinds[q], x->hc, f);
}

void plan_print_costs(const struct plan *p, const struct hook_costs *hc, size_t width, FILE *f) {
	struct costs_ctx x = { .hc = hc };
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		plan_print_summary(p, f);
		return;
	}
	plan_print_summary_with(p, m, put_rule_costs, &x);
	fprintf(m,
		"\nThe cost figures are CPU time per operation with such a mark in place, "
		"against none (1.00x: no cost; ~: within the benchmark's noise; each "
		"reported access also costs the daemon its handling). They come from %s, "
		"run on private tmpfs instances%s.\n",
		hc->source,
		hc->measured ? ""
			     : "; `fsnotifyd --explain --measure` measures this machine (a few "
			       "seconds, with fsn-bench)");
	fclose(m);
	text_wrap(f, text ? text : "", width);
}

/* Whether a line may break at line[i] (a space): a single space between
 * two other characters, so that runs of spaces (table columns) stay as
 * they are. */
static bool breakable(const char *line, size_t len, size_t i) {
	return line[i] == ' ' && i > 0 && line[i - 1] != ' ' && i + 1 < len && line[i + 1] != ' ';
}

void text_wrap(FILE *f, const char *text, size_t width) {
	if (width < 16)
		width = 16;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		size_t indent = strspn(line, " ");
		size_t col = 0, pos = 0;

		if (indent > width / 2)
			indent = width / 2;
		while (len - pos > width - col) {
			/* the last place to break that fits, after the indentation */
			size_t cut = pos + (width - col), first = pos + (col ? 0 : indent);

			while (cut > first && !breakable(line, len, cut))
				cut--;
			if (cut <= first) {
				/* one word longer than the line: break at the next place */
				cut = pos + (width - col);
				while (cut < len && !breakable(line, len, cut))
					cut++;
				if (cut >= len)
					break;
			}
			fwrite(line + pos, 1, cut - pos, f);
			fprintf(f, "\n%*s", (int)(indent + 4), "");
			col = indent + 4;
			pos = cut + 1;
		}
		fwrite(line + pos, 1, len - pos, f);
		fputc('\n', f);
		if (!end)
			break;
		line = end + 1;
	}
}
