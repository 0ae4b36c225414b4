/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * selftest.c — fsn-selftest's runner: command line, case selection, the
 * filesystems under test (tmpfs, and ext4/xfs/btrfs on loop images made
 * once per run), the feature probe per filesystem, running each case in a
 * forked Check test, and the report (plain or TAP 13), coverage per
 * semantics ID group and the final "N passed, N failed, N skipped".
 *
 * The runner itself lives in a private mount namespace, so its probe
 * mounts never show on the host; each case makes its own namespace again.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loopdev.h"
#include "selftest-private.h"

#define DEFAULT_TIMEOUT 10
#define IMAGE_SIZE (300ull << 20)

/* ------------------------------------------------------------------------ */
/* Tables                                                                   */
/* ------------------------------------------------------------------------ */

static const struct fst_case *const case_tables[] = {
	fst_cases_fp,    fst_cases_pc, fst_cases_ig, fst_cases_pe, fst_cases_mk,
	fst_cases_mk_fs, fst_cases_id, fst_cases_ov, fst_cases_in,
};

/* The ID groups of semantics.md and how many IDs each has. */
static const struct {
	const char *prefix;
	unsigned count;
} id_groups[] = {
	{ "FP", 12 }, { "PC", 9 }, { "IG", 11 }, { "PE", 8 },
	{ "MK", 12 }, { "ID", 7 }, { "OV", 9 },  { "IN", 3 },
};

#define N_ID_GROUPS (sizeof(id_groups) / sizeof(id_groups[0]))
#define MAX_IDS 128

struct fs_desc {
	const char *name;
	unsigned bit;
	const char *fstype;
	const char *mkfs; /* NULL for tmpfs */
	const char *mkfs_args[4];
};

static const struct fs_desc fs_descs[] = {
	{ "tmpfs", FST_TMPFS, "tmpfs", NULL, { NULL } },
	{ "ext4", FST_EXT4, "ext4", "mkfs.ext4", { "-q", "-F", NULL } },
	{ "xfs", FST_XFS, "xfs", "mkfs.xfs", { "-q", "-f", NULL } },
	{ "btrfs", FST_BTRFS, "btrfs", "mkfs.btrfs", { "-q", "-f", NULL } },
};

#define N_FS (sizeof(fs_descs) / sizeof(fs_descs[0]))

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

struct sel_case {
	const struct fst_case *tc;
};

static struct {
	bool tap, verbose, list, must_run;
	bool ktap;        /* --ktap: KTAP version 1, a subtest per filesystem (tap set too) */
	bool taint_after; /* --taint-after-case */
	bool floors;      /* --floors */
	unsigned timeout; /* 0 = per case / default */
	unsigned repeat;  /* runs of each case on each filesystem */
	unsigned soak;    /* race length and timeout factor */
	unsigned fs_mask;
	char **filters;
	size_t n_filters;
} opt;

static struct sel_case *sel;
static size_t n_sel;

/* What a forked Check test runs: set before srunner_run_all(). */
static const struct fst_fs_env *run_env;
static struct fst_shared *shared;

struct id_stat {
	char id[8];
	unsigned passed, failed, skipped;
	char skip_reason[160];
	bool has_case;
};

static struct id_stat ids[MAX_IDS];
static size_t n_ids;
static unsigned total_passed, total_failed, total_skipped, tap_no;
/* --ktap: "    " while a filesystem's subtest is printed, else "" */
static const char *ktap_indent = "";

/* ------------------------------------------------------------------------ */
/* Output                                                                   */
/* ------------------------------------------------------------------------ */

/* A comment / diagnostic line: "# " in TAP mode, plain otherwise. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...) {
	va_list ap;

	fputs(ktap_indent, stdout);
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* Print a multi-line text with a prefix on every line. */
static void print_block(const char *prefix, const char *text, size_t len) {
	const char *p = text, *end = text + len;

	while (p < end && *p) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		printf("%s%.*s\n", prefix, (int)l, p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static double now(void) {
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------ */
/* IDs                                                                      */
/* ------------------------------------------------------------------------ */

static bool id_valid(const char *id) {
	for (size_t g = 0; g < N_ID_GROUPS; g++) {
		size_t pl = strlen(id_groups[g].prefix);
		char *end;
		long n;

		if (strncmp(id, id_groups[g].prefix, pl) != 0 || strlen(id) != pl + 2)
			continue;
		n = strtol(id + pl, &end, 10);
		return *end == '\0' && n >= 1 && n <= (long)id_groups[g].count;
	}
	return false;
}

static struct id_stat *id_get(const char *id) {
	for (size_t i = 0; i < n_ids; i++)
		if (strcmp(ids[i].id, id) == 0)
			return &ids[i];
	return NULL;
}

static void ids_init(void) {
	for (size_t g = 0; g < N_ID_GROUPS; g++)
		for (unsigned n = 1; n <= id_groups[g].count && n_ids < MAX_IDS; n++)
			snprintf(ids[n_ids++].id, sizeof(ids[0].id), "%s%02u", id_groups[g].prefix,
				 n);
}

/* Call fn for each ID of a case ("FP02,FP01"). */
static void for_each_id(const char *list, void (*fn)(const char *id, void *u), void *u) {
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		fn(t, u);
}

static void check_id(const char *id, void *u) {
	const struct fst_case *tc = u;

	if (!id_valid(id)) {
		fprintf(stderr, "fsn-selftest: case %s: unknown semantics ID '%s'\n", tc->name, id);
		exit(2);
	}
}

static void mark_has_case(const char *id, void *u) {
	struct id_stat *s = id_get(id);

	(void)u;
	if (s)
		s->has_case = true;
}

struct id_result {
	int res; /* 0 pass, 1 fail, 2 skip */
	const char *reason;
};

static void record_id(const char *id, void *u) {
	const struct id_result *r = u;
	struct id_stat *s = id_get(id);

	if (!s)
		return;
	if (r->res == 0)
		s->passed++;
	else if (r->res == 1)
		s->failed++;
	else {
		if (s->skipped++ == 0 && r->reason)
			snprintf(s->skip_reason, sizeof(s->skip_reason), "%s", r->reason);
	}
}

static bool id_matches(const char *list, const char *pattern) {
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (fnmatch(pattern, t, 0) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* Selection and listing                                                    */
/* ------------------------------------------------------------------------ */

static bool selected(const struct fst_case *tc) {
	if (opt.n_filters == 0)
		return true;
	for (size_t i = 0; i < opt.n_filters; i++)
		if (fnmatch(opt.filters[i], tc->name, 0) == 0 ||
		    id_matches(tc->ids, opt.filters[i]))
			return true;
	return false;
}

static void fs_list_str(unsigned mask, char *buf, size_t len) {
	size_t pos = 0;

	buf[0] = '\0';
	if (mask == FST_ALL_FS) {
		snprintf(buf, len, "all");
		return;
	}
	for (size_t i = 0; i < N_FS; i++)
		if (mask & fs_descs[i].bit)
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", pos ? "," : "",
						fs_descs[i].name);
}

/* ------------------------------------------------------------------------ */
/* Commit tags                                                              */
/* ------------------------------------------------------------------------ */

static const struct fst_commit *commit_get(const char *id) {
	for (const struct fst_commit *c = fst_commits; c->id; c++)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

/* Call fn for each commit a case names (none if it names none). */
static void for_each_commit(const struct fst_case *tc,
			    void (*fn)(const struct fst_case *tc, const char *id, void *u),
			    void *u) {
	char buf[256], *save = NULL;

	if (!tc->commits)
		return;
	snprintf(buf, sizeof(buf), "%s", tc->commits);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		fn(tc, t, u);
}

static void check_commit(const struct fst_case *tc, const char *id, void *u) {
	bool *used = u;
	const struct fst_commit *c = commit_get(id);

	if (strlen(id) != 12 || strspn(id, "0123456789abcdef") != 12 || !c) {
		fprintf(stderr,
			"fsn-selftest: case %s: commit '%s' is not a 12-digit id with its "
			"subject in commits.c\n",
			tc->name, id);
		exit(2);
	}
	used[c - fst_commits] = true;
}

/* Every commit commits.c lists is named by a case, and its id is well-formed. */
static void check_commits_used(const bool *used) {
	for (const struct fst_commit *c = fst_commits; c->id; c++)
		if (!used[c - fst_commits]) {
			fprintf(stderr,
				"fsn-selftest: commits.c: %s (\"%s\") is named by no case\n", c->id,
				c->subject);
			exit(2);
		}
}

static void print_commit(const struct fst_case *tc, const char *id, void *u) {
	const char *prefix = u;
	const struct fst_commit *c = commit_get(id);

	(void)tc;
	printf("%slinux-git %s (\"%s\")\n", prefix, id, c ? c->subject : "?");
}

static void collect_cases(void) {
	size_t cap = 0, n_commits = 0;
	bool *used;

	while (fst_commits[n_commits].id)
		n_commits++;
	used = calloc(n_commits + 1, sizeof(*used));
	if (!used) {
		perror("calloc");
		exit(2);
	}
	for (size_t t = 0; t < sizeof(case_tables) / sizeof(case_tables[0]); t++) {
		for (const struct fst_case *tc = case_tables[t]; tc->name; tc++) {
			for_each_id(tc->ids, check_id, (void *)tc);
			for_each_commit(tc, check_commit, used);
			for_each_id(tc->ids, mark_has_case, NULL);
			for (size_t i = 0; i < n_sel; i++)
				if (strcmp(sel[i].tc->name, tc->name) == 0) {
					fprintf(stderr, "fsn-selftest: duplicate case name %s\n",
						tc->name);
					exit(2);
				}
			if (!selected(tc))
				continue;
			if (n_sel == cap) {
				cap = cap ? cap * 2 : 64;
				sel = realloc(sel, cap * sizeof(*sel));
				if (!sel) {
					perror("realloc");
					exit(2);
				}
			}
			sel[n_sel++].tc = tc;
		}
	}
	check_commits_used(used);
	free(used);
}

static void list_cases(void) {
	for (size_t i = 0; i < n_sel; i++) {
		const struct fst_case *tc = sel[i].tc;
		char fsl[64], indent[] = "    ";

		fs_list_str(tc->fs, fsl, sizeof(fsl));
		printf("%-42s %-14s %-6s %s\n", tc->name, tc->ids, fsl, tc->desc);
		for_each_commit(tc, print_commit, indent);
	}
}

/* ------------------------------------------------------------------------ */
/* Filesystems                                                              */
/* ------------------------------------------------------------------------ */

struct fs_run {
	const struct fs_desc *d;
	bool available;
	enum fst_skip_kind skip_kind;
	char skip_reason[256];
	char dev[32];
	int loop_fd;
	char hold[64]; /* where the runner keeps the filesystem mounted ("" none) */
	struct fsn_probe probe;
	struct fst_fs_env env;
	double setup_s;
};

static char base_dir[] = "/tmp/fsn-selftest.XXXXXX";

int fst_run_tool(char *const argv[], char *err, size_t errlen) {
	int p[2], status;
	pid_t pid;
	size_t got = 0;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], err + got, errlen - 1 - got)) > 0 && got + 1 < errlen)
		got += (size_t)n;
	err[got] = '\0';
	while ((n = read(p[0], &status, sizeof(status))) > 0) /* drain */
		;
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -EIO;
	return 0;
}

static void fs_skip(struct fs_run *f, enum fst_skip_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fs_skip(struct fs_run *f, enum fst_skip_kind kind, const char *fmt, ...) {
	va_list ap;

	f->available = false;
	f->skip_kind = kind;
	va_start(ap, fmt);
	vsnprintf(f->skip_reason, sizeof(f->skip_reason), fmt, ap);
	va_end(ap);
}

/* Mount the filesystem at <base>/probe and probe it. A loop device's
 * filesystem stays mounted there until its cases are done (fs_release()):
 * each case's mount of the device is then a new mount of this superblock,
 * not a new superblock (in a VM a fresh xfs or btrfs mount and unmount
 * cost 20 ms or more per case). Every case still gets a mount of its own,
 * in a namespace of its own, and a new work directory; tmpfs is new per
 * case. */
static void fs_probe(struct fs_run *f) {
	char mnt[64];
	int r;

	snprintf(mnt, sizeof(mnt), "%s/probe-%s", base_dir, f->d->name);
	if (mkdir(mnt, 0755) < 0 && errno != EEXIST) {
		fs_skip(f, FST_SKIP_OTHER, "mkdir %s: %s", mnt, fst_errname(errno));
		return;
	}
	if (f->d->mkfs)
		r = mount(f->dev, mnt, f->d->fstype, 0, NULL);
	else
		r = mount("fsn-probe", mnt, "tmpfs", 0, "mode=0755");
	if (r < 0) {
		int e = errno;

		if (e == ENODEV)
			fs_skip(f, FST_SKIP_FEATURE, "kernel has no %s support (ENODEV)",
				f->d->fstype);
		else
			fs_skip(f, FST_SKIP_OTHER, "mount %s on %s: %s", f->d->fstype, mnt,
				fst_errname(e));
		return;
	}
	r = fsn_probe_path(mnt, &f->probe);
	if (r < 0)
		snprintf(f->env.probe_error, sizeof(f->env.probe_error), "fsn_probe_path(%s): %s",
			 f->d->name, fst_errname(r));
	else
		f->env.probe = &f->probe;
	/* (a test of the suite itself: a kernel that broke these) */
	for (int k = 0; r >= 0 && k < _FSN_FEAT_MAX; k++)
		if (fst_probe_broken((enum fsn_feature)k))
			f->probe.feat[k] =
			    (struct fsn_feature_result){ FSN_UNSUPPORTED_KERNEL, EINVAL };
	if (opt.verbose && r >= 0) {
		char desc[8192];

		fsn_probe_describe(&f->probe, desc, sizeof(desc));
		note("%s features:", f->d->name);
		print_block("#   ", desc, strlen(desc));
	}
	if (f->d->mkfs && f->available) {
		snprintf(f->hold, sizeof(f->hold), "%s", mnt);
		return;
	}
	if (umount2(mnt, 0) < 0)
		umount2(mnt, MNT_DETACH);
}

static void fs_prepare(struct fs_run *f) {
	char tool[512], out[512], sizebuf[32];
	char *argv[8];
	size_t a = 0;
	int img, r;
	double t0 = now();

	f->available = true;
	f->loop_fd = -1;
	f->env.fs = f->d->name;
	f->env.fstype = f->d->fstype;
	f->env.base = base_dir;
	f->env.verbose = opt.verbose;
	f->env.soak = opt.soak;
	f->env.taint_after = opt.taint_after;

	if (f->d->mkfs) {
		if (!find_tool(f->d->mkfs, tool, sizeof(tool))) {
			fs_skip(f, FST_SKIP_OTHER, "%s not found", f->d->mkfs);
			return;
		}
		/* A sparse image in the runner's private tmpfs, unnamed: it goes
		 * away with the loop device (LO_FLAGS_AUTOCLEAR) when we exit. */
		img = open(base_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (img < 0) {
			fs_skip(f, FST_SKIP_OTHER, "image file: %s", fst_errname(errno));
			return;
		}
		if (ftruncate(img, (off_t)IMAGE_SIZE) < 0) {
			fs_skip(f, FST_SKIP_OTHER, "image size: %s", fst_errname(errno));
			close(img);
			return;
		}
		r = loop_attach(img, f->dev, sizeof(f->dev), &f->loop_fd);
		close(img);
		if (r < 0) {
			fs_skip(f, FST_SKIP_OTHER, "no loop device: %s", fst_errname(r));
			return;
		}
		argv[a++] = tool;
		for (size_t i = 0; f->d->mkfs_args[i]; i++)
			argv[a++] = (char *)f->d->mkfs_args[i];
		argv[a++] = f->dev;
		argv[a] = NULL;
		r = fst_run_tool(argv, out, sizeof(out));
		if (r < 0) {
			char *nl = strchr(out, '\n');

			if (nl)
				*nl = '\0';
			fs_skip(f, FST_SKIP_OTHER, "%s %s failed: %s", f->d->mkfs, f->dev, out);
			return;
		}
		f->env.dev = f->dev;
	}
	fs_probe(f);
	f->setup_s = now() - t0;
	snprintf(sizebuf, sizeof(sizebuf), "%llu MiB", IMAGE_SIZE >> 20);
	if (opt.verbose && f->available)
		note("%s: %s%s%s, setup %.2f s", f->d->name,
		     f->d->mkfs ? f->dev : "fresh tmpfs per case", f->d->mkfs ? ", image " : "",
		     f->d->mkfs ? sizebuf : "", f->setup_s);
}

static void fs_release(struct fs_run *f) {
	if (f->hold[0] && umount2(f->hold, 0) < 0)
		umount2(f->hold, MNT_DETACH);
	f->hold[0] = '\0';
	if (f->loop_fd >= 0)
		close(f->loop_fd); /* autoclear detaches it */
	f->loop_fd = -1;
}

/* ------------------------------------------------------------------------ */
/* Running a case                                                           */
/* ------------------------------------------------------------------------ */

START_TEST(fst_check_test) {
	fst_run_case(sel[_i].tc, run_env, shared);
}
END_TEST

enum result {
	RES_PASS,
	RES_FAIL,
	RES_SKIP,
};

static bool is_skip_msg(const char *msg) {
	return msg && strcmp(msg, "Early exit with return value 77") == 0;
}

static void report(const struct fst_case *tc, const char *fsname, enum result res,
		   const char *headline, double secs, bool show_diag) {
	struct id_result ir = { .res = res == RES_PASS   ? 0
				       : res == RES_FAIL ? 1
							 : 2,
				.reason = headline };

	for_each_id(tc->ids, record_id, &ir);
	if (res == RES_PASS)
		total_passed++;
	else if (res == RES_FAIL)
		total_failed++;
	else
		total_skipped++;

	tap_no++;
	if (opt.tap) {
		/* (KTAP: the filesystem is the subtest, the case its test) */
		const char *ind = ktap_indent, *fs = opt.ktap ? "" : fsname,
			   *colon = opt.ktap ? "" : ":";

		if (res == RES_PASS)
			printf("%sok %u %s%s%s # %s (%.0f ms)\n", ind, tap_no, fs, colon, tc->name,
			       tc->ids, secs * 1000);
		else if (res == RES_SKIP)
			printf("%sok %u %s%s%s # SKIP %s\n", ind, tap_no, fs, colon, tc->name,
			       headline);
		else {
			printf("%snot ok %u %s%s%s # %s\n", ind, tap_no, fs, colon, tc->name,
			       tc->ids);
			note("%s", headline);
		}
	} else {
		if (res == RES_PASS)
			printf("PASS %s:%s [%s] (%.0f ms)\n", fsname, tc->name, tc->ids,
			       secs * 1000);
		else if (res == RES_SKIP)
			printf("SKIP %s:%s [%s]: %s\n", fsname, tc->name, tc->ids, headline);
		else
			printf("FAIL %s:%s [%s] (%.0f ms): %s\n", fsname, tc->name, tc->ids,
			       secs * 1000, headline);
	}
	if (res == RES_FAIL) {
		char guards[32];

		snprintf(guards, sizeof(guards), "%s%sguards ", ktap_indent,
			 opt.tap ? "#   " : "    ");
		for_each_commit(tc, print_commit, guards);
	}
	if (show_diag && shared->diag_len > 0) {
		char pfx[16];

		snprintf(pfx, sizeof(pfx), "%s%s", ktap_indent, opt.tap ? "#   " : "    ");
		print_block(pfx, shared->diag, shared->diag_len);
		if (shared->diag_truncated)
			printf("%s(diagnostics truncated)\n", pfx);
	}
	fflush(stdout);
}

/* A case that cannot run because its filesystem is unavailable. */
static void report_fs_skip(const struct fst_case *tc, const struct fs_run *f) {
	char msg[400];

	shared->diag_len = 0;
	if (f->skip_kind == FST_SKIP_OTHER && opt.must_run) {
		snprintf(msg, sizeof(msg), "skipped a supported case: %s", f->skip_reason);
		report(tc, f->d->name, RES_FAIL, msg, 0, false);
	} else
		report(tc, f->d->name, RES_SKIP, f->skip_reason, 0, false);
}

static void run_one(size_t idx, const struct fs_run *f) {
	const struct fst_case *tc = sel[idx].tc;
	char tcname[160], headline[1200];
	unsigned timeout = (opt.timeout   ? opt.timeout
			    : tc->timeout ? tc->timeout
					  : DEFAULT_TIMEOUT) *
			   opt.soak;
	Suite *s;
	TCase *tcase;
	SRunner *sr;
	TestResult **results;
	TestResult *tr;
	enum result res;
	double t0;

	memset(shared, 0, offsetof(struct fst_shared, diag) + 1);
	shared->diag[0] = '\0';
	snprintf(tcname, sizeof(tcname), "%s:%s", f->d->name, tc->name);
	s = suite_create("fsn-selftest");
	tcase = tcase_create(tcname);
	tcase_set_timeout(tcase, timeout);
	tcase_add_loop_test(tcase, fst_check_test, (int)idx, (int)idx + 1);
	suite_add_tcase(s, tcase);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_set_log(sr, NULL);
	run_env = &f->env;
	fflush(NULL);
	t0 = now();
	srunner_run_all(sr, CK_SILENT);
	t0 = now() - t0;

	results = srunner_results(sr);
	tr = srunner_ntests_run(sr) > 0 ? results[0] : NULL;
	if (!tr) {
		res = RES_FAIL;
		snprintf(headline, sizeof(headline), "Check ran no test");
	} else if (tr_rtype(tr) == CK_PASS) {
		res = RES_PASS;
		headline[0] = '\0';
	} else if (tr_rtype(tr) == CK_ERROR && is_skip_msg(tr_msg(tr))) {
		const char *reason =
		    shared->skip_reason[0] ? shared->skip_reason : "exit status 77";

		if (shared->skip_kind != FST_SKIP_FEATURE && opt.must_run) {
			res = RES_FAIL;
			snprintf(headline, sizeof(headline), "skipped a supported case: %s",
				 reason);
		} else {
			res = RES_SKIP;
			snprintf(headline, sizeof(headline), "%s", reason);
		}
	} else {
		const char *msg = tr_msg(tr) ? tr_msg(tr) : "(no message)";

		res = RES_FAIL;
		if (tr_rtype(tr) == CK_ERROR && strstr(msg, "timeout")) {
			const char *mul = getenv("CK_TIMEOUT_MULTIPLIER");

			snprintf(headline, sizeof(headline),
				 "timeout: still running after %u s%s%s (last checkpoint %s:%d)",
				 timeout, mul ? " x CK_TIMEOUT_MULTIPLIER " : "", mul ? mul : "",
				 tr_lfile(tr) ? tr_lfile(tr) : "?", tr_lno(tr));
		} else if (tr_rtype(tr) == CK_FAILURE)
			snprintf(headline, sizeof(headline), "%s:%d: %s", tr_lfile(tr), tr_lno(tr),
				 msg);
		else
			snprintf(headline, sizeof(headline), "%s (last checkpoint %s:%d)", msg,
				 tr_lfile(tr) ? tr_lfile(tr) : "?", tr_lno(tr));
	}
	report(tc, f->d->name, res, headline, t0, res == RES_FAIL || opt.verbose);
	free(results);
	srunner_free(sr);
}

/* ------------------------------------------------------------------------ */
/* Coverage                                                                 */
/* ------------------------------------------------------------------------ */

/* Append "what" for the IDs first..last of one status, as a range. */
static void append_status(char *buf, size_t len, size_t *pos, const char *first, const char *last,
			  const char *what) {
	if (*pos >= len)
		return;
	if (strcmp(first, last) == 0)
		*pos += (size_t)snprintf(buf + *pos, len - *pos, "%s%s %s", *pos ? "; " : "", first,
					 what);
	else
		*pos += (size_t)snprintf(buf + *pos, len - *pos, "%s%s-%s %s", *pos ? "; " : "",
					 first, last, what);
}

/*
 * One line per ID group. An ID is failed if any case tagged with it failed,
 * else covered if one passed, else skipped (first reason shown) if one was
 * skipped; otherwise no case exists for it ("no case") or none was selected
 * ("not run"). Runs of IDs with the same "no case"/"not run" status are
 * shown as a range.
 */
static void coverage(void) {
	for (size_t g = 0; g < N_ID_GROUPS; g++) {
		const char *pfx = id_groups[g].prefix;
		unsigned covered = 0, failed = 0, skipped = 0, total = 0;
		char detail[2048] = "";
		size_t dl = 0;
		const char *run_first = NULL, *run_last = NULL, *run_what = NULL;

		for (size_t i = 0; i < n_ids; i++) {
			struct id_stat *s = &ids[i];
			const char *what = NULL;
			char buf[256];

			if (strncmp(s->id, pfx, strlen(pfx)) != 0)
				continue;
			total++;
			if (s->failed) {
				failed++;
				snprintf(buf, sizeof(buf), "failed");
			} else if (s->passed) {
				covered++;
				buf[0] = '\0';
			} else if (s->skipped) {
				skipped++;
				snprintf(buf, sizeof(buf), "skipped: %.200s", s->skip_reason);
			} else
				what = s->has_case ? "not run" : "no case";

			/* close a pending range unless this ID continues it */
			if (run_first && (!what || what != run_what)) {
				append_status(detail, sizeof(detail), &dl, run_first, run_last,
					      run_what);
				run_first = NULL;
			}
			if (what) {
				if (!run_first)
					run_first = s->id;
				run_last = s->id;
				run_what = what;
			} else if (buf[0])
				append_status(detail, sizeof(detail), &dl, s->id, s->id, buf);
		}
		if (run_first)
			append_status(detail, sizeof(detail), &dl, run_first, run_last, run_what);
		if (opt.tap)
			fputs("# ", stdout);
		printf("%s: %u/%u IDs covered, %u failed, %u skipped%s%s%s\n", pfx, covered, total,
		       failed, skipped, dl ? " (" : "", detail, dl ? ")" : "");
	}
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

static void usage(FILE *out) {
	fprintf(out,
		"Usage: fsn-selftest [OPTION]...\n"
		"The fsnotify (fanotify/inotify) kernel conformance suite of fsnotifyd.\n"
		"Each case runs forked, in its own mount namespace, on a fresh filesystem,\n"
		"and asserts the exact events the kernel queues, then that nothing else is\n"
		"queued. Needs root (CAP_SYS_ADMIN); exits 77 (skip) otherwise.\n"
		"\n"
		"  --list          list the selected cases: name, semantics IDs, filesystems,\n"
		"                  description; below a case, indented, the upstream\n"
		"                  commits it guards, one per line: linux-git ID (\"subject\")\n"
		"  --floors        list what a kernel must support from which release\n"
		"                  (feature, filesystem, release, commit): a probe that\n"
		"                  says unsupported at or above it fails the case\n"
		"  --filter GLOB   run cases whose name or one of whose IDs matches GLOB\n"
		"                  (fnmatch; e.g. 'fp03_*', 'FP0*'); repeatable\n"
		"  --fs LIST       filesystems, comma separated, from tmpfs,ext4,xfs,btrfs\n"
		"                  (default: all four; a filesystem whose mkfs tool, loop\n"
		"                  device or kernel support is missing has its cases skipped\n"
		"                  with the reason). Cases marked tmpfs-only run on tmpfs.\n"
		"  --tap           TAP version 13 (KTAP compatible) output\n"
		"  --ktap          KTAP version 1 output, as kselftest's: a subtest per\n"
		"                  filesystem, its cases numbered within it\n"
		"  --timeout S     timeout of every case in seconds (default %d, or the\n"
		"                  case's own); CK_TIMEOUT_MULTIPLIER scales it\n"
		"  --repeat N      run each selected case N times in a row on each\n"
		"                  filesystem (hunting an intermittent failure)\n"
		"  --soak N        race cases race N times as long (default 1: 0.5 s), the\n"
		"                  name churn churns N x 150 names; every timeout is\n"
		"                  multiplied by N (LTP's length: --soak 300)\n"
		"  --taint-after-case  a test of the suite itself, for a throwaway VM:\n"
		"                  after each case, taint the running kernel with W (as a\n"
		"                  WARN() would, until the next boot), so that the case\n"
		"                  must fail: the kernel became tainted during the case\n"
		"  -v, --verbose   print features, setup and every case's diagnostics\n"
		"  -h, --help      this text\n"
		"\n"
		"Skips: a case skips when the feature probe (fsn_probe_path() on the\n"
		"filesystem under test, run once per filesystem) says this kernel or\n"
		"filesystem does not support what it needs; the reason is printed (on a\n"
		"kernel at or above the feature's floor, --floors, that is a failure).\n"
		"With FSN_TESTS_MUST_RUN=1 (CI) every other skip -- a missing mkfs tool or\n"
		"loop device, a failed probe, an explicit skip of a case -- is reported as\n"
		"a failure \"skipped a supported case: <reason>\"; a feature skip never is.\n"
		"\n"
		"Exit status: 0 all passed (skips allowed), 1 a failure, 77 all skipped,\n"
		"2 usage error. The last lines are one coverage line per ID group and\n"
		"\"N passed, N failed, N skipped\" (cases x filesystems).\n",
		DEFAULT_TIMEOUT);
}

static void parse_fs(const char *arg) {
	char buf[256], *save = NULL;

	opt.fs_mask = 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < N_FS; i++)
			if (strcmp(t, fs_descs[i].name) == 0)
				break;
		if (i == N_FS) {
			fprintf(stderr,
				"fsn-selftest: unknown filesystem '%s' (tmpfs, ext4, xfs, btrfs)\n",
				t);
			exit(2);
		}
		opt.fs_mask |= fs_descs[i].bit;
	}
	if (!opt.fs_mask) {
		fprintf(stderr, "fsn-selftest: --fs needs at least one filesystem\n");
		exit(2);
	}
}

/* A decimal option value in 1..max, else a usage error (exit 2). */
static unsigned parse_count(const char *what, const char *arg, long max) {
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v <= 0 || v > max) {
		fprintf(stderr, "fsn-selftest: bad %s '%s'\n", what, arg);
		exit(2);
	}
	return (unsigned)v;
}

static void parse_args(int argc, char **argv) {
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "floors", no_argument, NULL, 'L' },
		{ "filter", required_argument, NULL, 'f' },
		{ "fs", required_argument, NULL, 'F' },
		{ "tap", no_argument, NULL, 't' },
		{ "ktap", no_argument, NULL, 'K' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "soak", required_argument, NULL, 'S' },
		{ "taint-after-case", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mr = getenv("FSN_TESTS_MUST_RUN");
	int c;

	opt.fs_mask = FST_ALL_FS;
	opt.repeat = 1;
	opt.soak = 1;
	opt.must_run = mr && *mr && strcmp(mr, "0") != 0;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': opt.list = true; break;
		case 'L': opt.floors = true; break;
		case 'f':
			opt.filters = realloc(opt.filters, (opt.n_filters + 1) * sizeof(char *));
			if (!opt.filters)
				exit(2);
			opt.filters[opt.n_filters++] = optarg;
			break;
		case 'F': parse_fs(optarg); break;
		case 't': opt.tap = true; break;
		case 'K': opt.tap = opt.ktap = true; break;
		case 'T': opt.timeout = parse_count("--timeout", optarg, 3600); break;
		case 'R': opt.repeat = parse_count("--repeat", optarg, 100000); break;
		case 'S': opt.soak = parse_count("--soak", optarg, 1000); break;
		case 'W': opt.taint_after = true; break;
		case 'v': opt.verbose = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fsn-selftest: unexpected argument '%s'\n", argv[optind]);
		exit(2);
	}
}

/* Cases of filesystem i that run (--repeat counted). */
static unsigned planned_on(size_t i) {
	unsigned n = 0;

	if (opt.fs_mask & fs_descs[i].bit)
		for (size_t k = 0; k < n_sel; k++)
			if (sel[k].tc->fs & fs_descs[i].bit)
				n += opt.repeat;
	return n;
}

/* All cases that run (TAP's plan), or with fs_only the filesystems with
 * one (KTAP's top-level plan). */
static unsigned planned(bool fs_only) {
	unsigned n = 0;

	for (size_t i = 0; i < N_FS; i++)
		n += fs_only ? planned_on(i) > 0 : planned_on(i);
	return n;
}

/* --ktap: a filesystem's subtest begins (its cases numbered from 1). */
static void ktap_begin(const struct fs_desc *d, unsigned n) {
	if (!opt.ktap)
		return;
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", d->name, n);
	ktap_indent = "    ";
	tap_no = 0;
}

/* --ktap: its result line, as the kernel's kselftest prints a suite's. */
static void ktap_end(const struct fs_run *f, unsigned no, unsigned passed, unsigned failed,
		     unsigned skipped) {
	if (!opt.ktap)
		return;
	ktap_indent = "";
	if (failed > 0)
		printf("not ok %u %s\n", no, f->d->name);
	else if (passed == 0 && skipped > 0)
		printf("ok %u %s # SKIP %s\n", no, f->d->name,
		       f->available ? "every case skipped" : f->skip_reason);
	else
		printf("ok %u %s\n", no, f->d->name);
}

static int setup_runner_namespace(void) {
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	if (!mkdtemp(base_dir))
		return -errno;
	if (mount("fsn-selftest", base_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0) {
		int r = -errno;

		rmdir(base_dir);
		return r;
	}
	return 0;
}

int main(int argc, char **argv) {
	struct fs_run runs[N_FS];
	unsigned plan;
	unsigned fs_no = 0;
	double t_all;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	parse_args(argc, argv);
	ids_init();
	collect_cases();

	if (opt.list) {
		list_cases();
		return 0;
	}
	if (opt.floors) {
		fst_floors_print(stdout);
		return 0;
	}
	if (n_sel == 0) {
		fprintf(stderr, "fsn-selftest: no case matches the filter\n");
		return 2;
	}
	plan = planned(opt.ktap);
	if (opt.tap) {
		printf(opt.ktap ? "KTAP version 1\n" : "TAP version 13\n");
		fflush(stdout);
	}
	if (geteuid() != 0) {
		const char *why =
		    "needs root (CAP_SYS_ADMIN) for fanotify, mounts and loop devices";

		if (opt.tap)
			printf("1..0 # SKIP %s\n", why);
		else
			printf("SKIP fsn-selftest: %s\n", why);
		return 77;
	}
	r = setup_runner_namespace();
	if (r < 0) {
		fprintf(stderr, "fsn-selftest: private mount namespace: %s\n", fst_errname(r));
		return 1;
	}
	shared =
	    mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (opt.tap)
		printf("1..%u\n", plan);
	if (opt.must_run)
		note("FSN_TESTS_MUST_RUN=1: skips other than missing features are failures");

	t_all = now();
	for (size_t i = 0; i < N_FS; i++) {
		struct fs_run *f = &runs[i];
		unsigned n = planned_on(i), p0 = total_passed, f0 = total_failed,
			 s0 = total_skipped;
		double t0;

		memset(f, 0, sizeof(*f));
		f->d = &fs_descs[i];
		f->loop_fd = -1;
		if (n == 0)
			continue;
		t0 = now();
		fs_prepare(f);
		ktap_begin(f->d, n);
		for (size_t k = 0; k < n_sel; k++) {
			if (!(sel[k].tc->fs & f->d->bit))
				continue;
			for (unsigned rep = 0; rep < opt.repeat; rep++)
				if (!f->available)
					report_fs_skip(sel[k].tc, f);
				else
					run_one(k, f);
		}
		fs_release(f);
		note("%s: %u cases in %.2f s (setup %.2f s): %u passed, %u failed, %u skipped%s%s",
		     f->d->name, n, now() - t0, f->setup_s, total_passed - p0, total_failed - f0,
		     total_skipped - s0, f->available ? "" : " -- ",
		     f->available ? "" : f->skip_reason);
		ktap_end(f, ++fs_no, total_passed - p0, total_failed - f0, total_skipped - s0);
	}
	note("total %.2f s", now() - t_all);

	umount2(base_dir, MNT_DETACH);
	rmdir(base_dir);

	coverage();
	if (opt.tap)
		fputs("# ", stdout);
	printf("%u passed, %u failed, %u skipped\n", total_passed, total_failed, total_skipped);
	if (total_failed > 0)
		return 1;
	if (total_passed == 0)
		return 77;
	return 0;
}
