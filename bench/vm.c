/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm.c — `fsn-bench vm KERNEL [--compare OTHER]`: the hook workloads of
 * `fsn-bench hooks` inside a qemu guest whose clock counts instructions.
 *
 * Each image boots with tests/vm/run-on-kernel --icount (qemu -icount
 * shift=0,sleep=off: guest time advances 1 ns per instruction executed,
 * whatever the host is doing) on a one-vCPU machine and runs this same
 * binary, statically linked, as `fsn-bench hooks --icount`: wall time in
 * the guest is then the number of instructions the loop, its pipe peer and
 * the scenario's helper executed. Rounds repeat inside the guest; their
 * spread shows how exact that is (doc/performance.md: ~0).
 *
 * The guest's JSON (the hooks schema, "clock": "icount") comes back through
 * the runner's --output; --json / --compare-json keep it, so `fsn-bench
 * compare` reads VM results like host results. The table here gives per
 * scenario and workload the guest ns (= instructions) per operation, the
 * cost over "none", the spread of the rounds, and with --compare each
 * figure on both kernels and the change.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-util.h"
#include "json.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#ifndef FSN_VM_RUNNER
#define FSN_VM_RUNNER "tests/vm/run-on-kernel"
#endif

struct vm_opts {
	const char *image[2]; /* [1]: --compare; as given */
	char *image_abs[2];   /* the same, absolute (owned) */
	const char *json[2];  /* --json, --compare-json */
	const char *runner;
	bool runner_given; /* --runner */
	const char *guest_bench;
	const char *modules;
	const char *workloads, *scenarios;
	const char *fs;           /* hooks --fs (NULL: tmpfs) */
	const char *rounds, *ops; /* passed through as given */
	const char *keep;         /* --keep DIR: consoles and guest output */
	unsigned timeout_s, memory_mb;
	bool quick;
};

/* A result of the guest: one scenario x workload. */
struct cell {
	const char *scenario, *workload;
	double ns_op;   /* median over rounds of guest ns per operation */
	double vs_none; /* cost over "none" of the same workload, +0.05 = 5 % */
	double spread;  /* (max - min) / median of the per-round ns per op */
};

struct vm_run {
	struct json *doc;
	struct cell *cells;
	size_t n;
	double boot_s;
};

static void usage(FILE *f) {
	fputs("Usage: fsn-bench vm KERNEL_IMAGE [--compare OTHER_IMAGE] [OPTIONS]\n"
	      "Boot the image(s) under qemu with an instruction-counting clock (-icount\n"
	      "shift=0,sleep=off, one vCPU) and run `fsn-bench hooks --icount` inside: guest\n"
	      "ns per operation = instructions per operation, the same in every round.\n"
	      "  --compare IMAGE     also boot IMAGE and show each figure's change\n"
	      "  --json FILE         keep KERNEL_IMAGE's result (hooks schema) in FILE\n"
	      "  --compare-json FILE keep OTHER_IMAGE's result in FILE\n"
	      "  --rounds N, --ops N, --quick, --workloads LIST, --scenarios LIST\n"
	      "                      as for hooks (defaults under -icount: 3 rounds x 10000\n"
	      "                      ops; --quick: 2 x 1000)\n"
	      "  --fs tmpfs|ext4     the workloads' filesystem, as for hooks\n"
	      "  --modules DIR       the image's modules (default: none; fsnotify and tmpfs\n"
	      "                      must be built in, as in distribution kernels)\n"
	      "  --memory MB         guest memory (default 512)\n"
	      "  --timeout S         per boot (default 3600)\n"
	      "  --runner PATH       tests/vm/run-on-kernel (default: $FSN_VM_RUNNER, else\n"
	      "                      the installed one, else the source tree's when this\n"
	      "                      fsn-bench is in a build directory inside it)\n"
	      "  --guest-bench PATH  the static fsn-bench to run in the guest (default:\n"
	      "                      this one; build with -Dstatic-selftest=true)\n"
	      "  --keep DIR          keep the consoles and the guests' output in DIR\n"
	      "Needs qemu-system-x86_64 and busybox-static (as tests/vm/run-on-kernel).\n",
	      f);
}

/* Statically linked: an ELF file without a PT_INTERP program header. */
static bool is_static_elf(const char *path) {
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_INTERP)
			return false;
	}
	return true;
}

static int parse_opts(int argc, char **argv, struct vm_opts *o) {
	enum {
		OPT_COMPARE = 0x200,
		OPT_JSON,
		OPT_CJSON,
		OPT_ROUNDS,
		OPT_OPS,
		OPT_QUICK,
		OPT_WL,
		OPT_SC,
		OPT_FS,
		OPT_MODULES,
		OPT_MEMORY,
		OPT_TIMEOUT,
		OPT_RUNNER,
		OPT_GUEST,
		OPT_KEEP,
	};
	static const struct option longopts[] = {
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "compare-json", required_argument, NULL, OPT_CJSON },
		{ "rounds", required_argument, NULL, OPT_ROUNDS },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "workloads", required_argument, NULL, OPT_WL },
		{ "scenarios", required_argument, NULL, OPT_SC },
		{ "fs", required_argument, NULL, OPT_FS },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "runner", required_argument, NULL, OPT_RUNNER },
		{ "guest-bench", required_argument, NULL, OPT_GUEST },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c, r = 0;

	*o = (struct vm_opts){ .timeout_s = 3600, .memory_mb = 512 };
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_COMPARE: o->image[1] = optarg; break;
		case OPT_JSON: o->json[0] = optarg; break;
		case OPT_CJSON: o->json[1] = optarg; break;
		case OPT_ROUNDS:
			r = bench_parse_u64("--rounds", optarg, 2, 1000, &v);
			o->rounds = optarg;
			break;
		case OPT_OPS:
			r = bench_parse_u64("--ops", optarg, 1, 100000000, &v);
			o->ops = optarg;
			break;
		case OPT_QUICK: o->quick = true; break;
		case OPT_WL: o->workloads = optarg; break;
		case OPT_SC: o->scenarios = optarg; break;
		case OPT_FS: o->fs = optarg; break;
		case OPT_MODULES: o->modules = optarg; break;
		case OPT_MEMORY:
			r = bench_parse_u64("--memory", optarg, 128, 65536, &v);
			o->memory_mb = (unsigned)v;
			break;
		case OPT_TIMEOUT:
			r = bench_parse_u64("--timeout", optarg, 10, 86400, &v);
			o->timeout_s = (unsigned)v;
			break;
		case OPT_RUNNER:
			o->runner = optarg;
			o->runner_given = true;
			break;
		case OPT_GUEST: o->guest_bench = optarg; break;
		case OPT_KEEP: o->keep = optarg; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -EINVAL;
		}
		if (r < 0)
			return r;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "fsn-bench vm: %s\n",
			optind == argc ? "no KERNEL_IMAGE"
				       : "one KERNEL_IMAGE (and --compare OTHER)");
		usage(stderr);
		return -EINVAL;
	}
	o->image[0] = argv[optind];
	if (o->json[1] && !o->image[1]) {
		fprintf(stderr, "fsn-bench vm: --compare-json needs --compare\n");
		return -EINVAL;
	}
	for (int i = 0; i < 2; i++) {
		char *abs;

		if (!o->image[i])
			continue;
		/* absolute: an image named "-x" is not an option of the runner */
		abs = access(o->image[i], R_OK) == 0 ? realpath(o->image[i], NULL) : NULL;
		if (!abs) {
			fprintf(stderr, "fsn-bench vm: %s: %s\n", o->image[i], strerror(errno));
			return -EINVAL;
		}
		o->image_abs[i] = abs;
	}
	r = bench_hooks_check_lists(o->workloads, o->scenarios, o->fs);
	if (r < 0)
		return r;
	if (!o->runner)
		o->runner = getenv("FSN_VM_RUNNER");
	if (!o->runner || !*o->runner)
		o->runner = FSN_VM_RUNNER;
	if (access(o->runner, X_OK) < 0 && !getenv("FSN_VM_RUNNER") && !o->runner_given) {
		/* a build directory in the source tree: BUILD/bench/fsn-bench */
		static char src[PATH_MAX];

		if (exe_relative("../../tests/vm/run-on-kernel", src, sizeof(src)) == 0 &&
		    access(src, X_OK) == 0)
			o->runner = src;
	}
	if (access(o->runner, X_OK) < 0) {
		fprintf(stderr,
			"fsn-bench vm: the VM runner %s: %s (it is tests/vm/run-on-kernel of the "
			"fsnotifyd sources: --runner PATH or FSN_VM_RUNNER)\n",
			o->runner, strerror(errno));
		return -EINVAL;
	}
	if (!o->guest_bench)
		o->guest_bench = "/proc/self/exe";
	if (!is_static_elf(o->guest_bench)) {
		fprintf(stderr,
			"fsn-bench vm: %s is not a statically linked x86-64 program; the guest has "
			"no libraries: build one with `meson setup build-static "
			"-Dstatic-selftest=true && meson compile -C build-static bench/fsn-bench` "
			"and run that (or pass it as --guest-bench)\n",
			strcmp(o->guest_bench, "/proc/self/exe") == 0 ? "this fsn-bench"
								      : o->guest_bench);
		return -EINVAL;
	}
	return 0;
}

/* Copy a file (the guest's JSON to --json). */
static int copy_file(const char *from, const char *to) {
	FILE *in = fopen(from, "re"), *out;
	char buf[65536];
	size_t n;

	if (!in)
		return negative_errno();
	out = fopen(to, "we");
	if (!out) {
		int r = negative_errno();

		fclose(in);
		return r;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	fclose(in);
	return bench_fclose(out);
}

/* Per-round ns per op of a result, and the cell. */
static int make_cell(const struct json *res, struct cell *c) {
	const struct json *rounds = json_get(res, "rounds");
	double lo = INFINITY, hi = 0;
	_cleanup_free_ double *v = NULL;
	size_t n = 0;

	*c = (struct cell){ .scenario = json_get_string(res, "scenario"),
			    .workload = json_get_string(res, "workload"),
			    .ns_op = NAN,
			    .vs_none = NAN,
			    .spread = NAN };
	if (!c->scenario || !c->workload || !rounds || rounds->type != JSON_ARRAY)
		return -EINVAL;
	v = calloc(rounds->n ? rounds->n : 1, sizeof(double));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < rounds->n; i++) {
		double ops = json_get_number(rounds->values[i], "ops", NAN);
		double ns = json_get_number(rounds->values[i], "wall_ns", NAN);

		if (!(ops > 0) || !(ns > 0))
			continue;
		v[n] = ns / ops;
		lo = fmin(lo, v[n]);
		hi = fmax(hi, v[n]);
		n++;
	}
	if (n == 0)
		return 0;
	c->ns_op = bench_median(v, n);
	c->spread = (hi - lo) / c->ns_op;
	/* the ratio is ops per second vs "none": its inverse is the cost */
	c->vs_none = 1.0 / json_get_number(json_get(res, "summary"), "ratio", NAN) - 1.0;
	return 0;
}

static int load_run(const char *path, struct vm_run *run) {
	enum bench_kind kind;
	const struct json *results;
	const char *clock;
	int r;

	r = bench_result_load(path, &run->doc, &kind);
	if (r < 0)
		return r;
	clock = json_get_string(json_get(run->doc, "parameters"), "clock");
	results = json_get(run->doc, "results");
	if (kind != BENCH_KIND_HOOKS || !clock || strcmp(clock, "icount") != 0 || !results) {
		fprintf(stderr, "fsn-bench vm: %s: not a hooks --icount result\n", path);
		return -EBADMSG;
	}
	run->cells = calloc(results->n ? results->n : 1, sizeof(*run->cells));
	if (!run->cells)
		return -ENOMEM;
	for (size_t i = 0; i < results->n; i++) {
		r = make_cell(results->values[i], &run->cells[run->n]);
		if (r < 0) {
			fprintf(stderr, "fsn-bench vm: %s: result %zu is malformed\n", path, i);
			return r == -EINVAL ? -EBADMSG : r;
		}
		run->n++;
	}
	return 0;
}

/* Boot one image and run the guest bench; its JSON is loaded into run. */
static int boot_one(const struct vm_opts *o, int which, const char *dir, struct vm_run *run) {
	char out[PATH_MAX], console[PATH_MAX], log[PATH_MAX], stdout_path[PATH_MAX],
	    json[PATH_MAX + 16], timeout[16], memory[16];
	const char *label = which ? "B" : "A", *guest = o->guest_bench;
	char *argv[48];
	size_t n = 0;
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
	_cleanup_close_ int ofd = -1;
	pid_t pid;
	int r;

	snprintf(out, sizeof(out), "%s/guest-%s", dir, label);
	snprintf(console, sizeof(console), "%s/console-%s.log", dir, label);
	snprintf(log, sizeof(log), "%s/runner-%s.log", dir, label);
	snprintf(stdout_path, sizeof(stdout_path), "%s/guest-%s.txt", dir, label);
	snprintf(json, sizeof(json), "%s/hooks.json", out);
	snprintf(timeout, sizeof(timeout), "%u", o->timeout_s);
	snprintf(memory, sizeof(memory), "%u", o->memory_mb);

	{
		/* option, value (NULL: a flag; options with a NULL value and
		 * not a flag are left out) */
		const char *const args[][2] = {
			{ o->runner, NULL },
			{ o->image_abs[which], NULL },
			{ "--icount", NULL },
			{ "--run", guest },
			{ "--output", out },
			{ "--log", console },
			{ "--timeout", timeout },
			{ "--memory", memory },
			{ "--modules", o->modules ? o->modules : "none" },
			{ "--", NULL },
			{ "hooks", NULL },
			{ "--icount", NULL },
			{ "--json", "/out/hooks.json" },
			{ o->quick ? "--quick" : NULL, NULL },
			{ "--rounds", o->rounds ? o->rounds : "" },
			{ "--ops", o->ops ? o->ops : "" },
			{ "--workloads", o->workloads ? o->workloads : "" },
			{ "--scenarios", o->scenarios ? o->scenarios : "" },
			{ "--fs", o->fs ? o->fs : "" },
		};

		for (size_t i = 0; i < ELEMENTSOF(args); i++) {
			if (!args[i][0] || (args[i][1] && !*args[i][1]))
				continue;
			argv[n++] = (char *)args[i][0];
			if (args[i][1])
				argv[n++] = (char *)args[i][1];
		}
	}
	argv[n] = NULL;

	/* with --keep DIR, never read an earlier run's result */
	if (unlink(json) < 0 && errno != ENOENT)
		return negative_errno();
	ofd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (ofd < 0)
		return negative_errno();
	fprintf(stderr, "fsn-bench vm: %s = %s: booting (qemu -icount, TCG)...\n", label,
		o->image[which]);
	r = bench_spawn_in(argv, NULL, ofd, log, NULL, &pid);
	if (r < 0)
		return r;
	r = bench_wait_pid(pid);
	run->boot_s = (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	if (r < 0) {
		fprintf(stderr, "fsn-bench vm: %s: the VM run failed after %.0f s; runner's log:\n",
			o->image[which], run->boot_s);
		bench_show_log(log, 25);
		fprintf(stderr, "guest output:\n");
		bench_show_log(stdout_path, 10);
		return -ECANCELED;
	}
	fprintf(stderr, "fsn-bench vm: %s: done in %.0f s\n", label, run->boot_s);
	r = load_run(json, run);
	if (r == 0 && o->json[which]) {
		r = copy_file(json, o->json[which]);
		if (r < 0)
			fprintf(stderr, "fsn-bench vm: %s: %s\n", o->json[which], strerror(-r));
	}
	return r;
}

static const struct cell *find_cell(const struct vm_run *run, const char *s, const char *w) {
	for (size_t i = 0; i < run->n; i++)
		if (strcmp(run->cells[i].scenario, s) == 0 &&
		    strcmp(run->cells[i].workload, w) == 0)
			return &run->cells[i];
	return NULL;
}

static void fmt_pct(char *buf, size_t len, double v, bool sign) {
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, sign ? "%+.2f%%" : "%.2f%%", fabs(v) < 0.00005 ? 0.0 : v * 100);
}

/* The largest spread between rounds of the rows shown so far. */
struct worst {
	double spread;
	const struct cell *c; /* NULL: none yet */
	const char *k;        /* "A" or "B" */
};

/* One table row: a's cell, with b's of the same scenario and workload. */
static void print_row(const struct cell *ca, const struct vm_run *b, struct worst *worst) {
	const struct cell *cb = b ? find_cell(b, ca->scenario, ca->workload) : NULL;
	char p1[16], p2[16], p3[16], p4[16], p5[16];

	if (isfinite(ca->spread) && ca->spread >= worst->spread)
		*worst = (struct worst){ ca->spread, ca, "A" };
	fmt_pct(p2, sizeof(p2), strcmp(ca->scenario, "none") ? ca->vs_none : NAN, true);
	fmt_pct(p4, sizeof(p4), ca->spread, false);
	if (!b) {
		printf("%-14s %-19s %10.1f %10s %8s\n", ca->workload, ca->scenario, ca->ns_op, p2,
		       p4);
		return;
	}
	if (!cb) {
		printf("%-14s %-19s %10.1f %10s %9s %10s %10s %8s %8s\n", ca->workload,
		       ca->scenario, ca->ns_op, "-", "-", p2, "-", p4, "-");
		return;
	}
	if (isfinite(cb->spread) && cb->spread > worst->spread)
		*worst = (struct worst){ cb->spread, cb, "B" };
	fmt_pct(p1, sizeof(p1), cb->ns_op / ca->ns_op - 1, true);
	fmt_pct(p3, sizeof(p3), strcmp(cb->scenario, "none") ? cb->vs_none : NAN, true);
	fmt_pct(p5, sizeof(p5), cb->spread, false);
	printf("%-14s %-19s %10.1f %10.1f %9s %10s %10s %8s %8s\n", ca->workload, ca->scenario,
	       ca->ns_op, cb->ns_op, p1, p2, p3, p4, p5);
}

static void print_report(const struct vm_opts *o, const struct vm_run *a, const struct vm_run *b) {
	const struct json *par = json_get(a->doc, "parameters");
	struct worst worst = { 0, NULL, "" };
	const char *last_w = "";

	printf("fsn-bench vm: %.0f rounds x %.0f ops in the guest, qemu -icount shift=0,sleep=off, "
	       "1 vCPU\n",
	       json_get_number(par, "rounds", NAN), json_get_number(par, "ops", NAN));
	printf("  A: %s (%s)\n", o->image[0], bench_result_release(a->doc));
	if (b)
		printf("  B: %s (%s)\n", o->image[1], bench_result_release(b->doc));
	printf("ns/op: guest nanoseconds per operation = instructions (all processes on the "
	       "vCPU); vs none: cost over no watchers; spread: (max - min) / median of the "
	       "rounds\n\n");
	if (b)
		printf("%-14s %-19s %10s %10s %9s %10s %10s %8s %8s\n", "workload", "scenario",
		       "A ns/op", "B ns/op", "B vs A", "A vs none", "B vs none", "spread A",
		       "spread B");
	else
		printf("%-14s %-19s %10s %10s %8s\n", "workload", "scenario", "ns/op", "vs none",
		       "spread");
	/* by workload (in the order they first come), then scenario */
	for (size_t w = 0; w < a->n; w++) {
		const char *workload = a->cells[w].workload;
		bool seen = false;

		for (size_t j = 0; j < w && !seen; j++)
			seen = strcmp(a->cells[j].workload, workload) == 0;
		if (seen)
			continue; /* its rows came with its first cell */
		for (size_t i = w; i < a->n; i++) {
			if (strcmp(a->cells[i].workload, workload) != 0)
				continue;
			if (strcmp(last_w, workload) != 0 && *last_w)
				putchar('\n');
			last_w = workload;
			print_row(&a->cells[i], b, &worst);
		}
	}
	for (int k = 0; k < (b ? 2 : 1); k++) {
		const struct json *sk = json_get((k ? b : a)->doc, "skipped");

		for (size_t i = 0; sk && sk->type == JSON_ARRAY && i < sk->n; i++) {
			const char *sc = json_get_string(sk->values[i], "scenario");
			const char *why = json_get_string(sk->values[i], "reason");

			printf("%sleft out on %c: %s: %s\n", i || k ? "" : "\n", "AB"[k],
			       sc ? sc : "?", why ? why : "?");
		}
	}
	if (worst.c) {
		char p[16];

		fmt_pct(p, sizeof(p), worst.spread, false);
		printf("\nlargest spread between rounds: %s (%s, %s %s)\n", p, worst.k,
		       worst.c->workload, worst.c->scenario);
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
	(void)st;
	(void)flag;
	(void)ftw;
	(void)remove(path); /* best effort: go on */
	return 0;
}

static void run_free(struct vm_run *run) {
	json_free(run->doc);
	free(run->cells);
}

int bench_vm_main(int argc, char **argv) {
	struct vm_opts o;
	struct vm_run run[2] = { { 0 } };
	char tmpl[] = "/tmp/fsn-bench-vm.XXXXXX", self[PATH_MAX];
	const char *dir;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (o.keep) {
		if (mkdir(o.keep, 0700) < 0 && errno != EEXIST) {
			fprintf(stderr, "fsn-bench vm: --keep %s: %s\n", o.keep, strerror(errno));
			return -EINVAL;
		}
		dir = o.keep;
	} else {
		dir = mkdtemp(tmpl);
		if (!dir)
			return negative_errno();
	}
	/* the guest runs this very binary: a copy, which a rebuild while the
	 * VMs run cannot replace */
	if (strcmp(o.guest_bench, "/proc/self/exe") == 0) {
		snprintf(self, sizeof(self), "%s/fsn-bench", dir);
		r = copy_file("/proc/self/exe", self);
		if (r == 0 && chmod(self, 0755) < 0)
			r = negative_errno();
		if (r < 0) {
			fprintf(stderr, "fsn-bench vm: %s: %s\n", self, strerror(-r));
			return r;
		}
		o.guest_bench = self;
	}
	r = boot_one(&o, 0, dir, &run[0]);
	if (r == 0 && o.image[1])
		r = boot_one(&o, 1, dir, &run[1]);
	if (r == 0)
		print_report(&o, &run[0], o.image[1] ? &run[1] : NULL);
	run_free(&run[0]);
	run_free(&run[1]);
	if (!o.keep && r == 0) {
		(void)nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	} else {
		fprintf(stderr, "fsn-bench vm: consoles and guest output %s in %s\n",
			o.keep ? "kept" : "left (the run failed)", dir);
	}
	free(o.image_abs[0]);
	free(o.image_abs[1]);
	/* failures were explained where they happened */
	if (r == -ECANCELED || r == -EBADMSG)
		return 1;
	return r;
}
