/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsn-bench.c — the fsn-bench command line: picks the subcommand (hooks,
 * consumers, perm, config, hash, baseline, all, compare, plot, vm) and maps
 * its -errno to an exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fsn-bench.h"
#include "fsn-util.h"
#include "fsn.h"

static void usage(FILE *f) {
	fputs("Usage: fsn-bench hooks [OPTIONS]\n"
	      "       fsn-bench consumers [OPTIONS]\n"
	      "       fsn-bench perm [OPTIONS]\n"
	      "       fsn-bench config [OPTIONS]\n"
	      "       fsn-bench hash [OPTIONS]\n"
	      "       fsn-bench baseline [OPTIONS]\n"
	      "       fsn-bench all [--quick] [--json PREFIX] [--fsnotifyd PATH]\n"
	      "       fsn-bench compare A.json B.json [--plot FILE.png]\n"
	      "       fsn-bench plot RESULTS.json FILE.png\n"
	      "       fsn-bench vm KERNEL_IMAGE [--compare OTHER_IMAGE] [OPTIONS]\n"
	      "\n"
	      "hooks: cost of fsnotify hooks on syscalls under various watches and marks.\n"
	      "  --rounds N          rounds (default 20; --quick: 3)\n"
	      "  --ops N             operations per workload run (default 100000; --quick: 4000)\n"
	      "  --quick             a short run that proves the tool works (CI)\n"
	      "  --workloads LIST    comma list (default: all)\n"
	      "  --scenarios LIST    comma list (default: all; 'none' is always added)\n"
	      "  --json FILE         write the results as JSON\n"
	      "  --plot FILE.png     plot the ratios and their 95% CIs (needs gnuplot;\n"
	      "                      without it: a message, the exit status is unchanged)\n"
	      "  --list              list workloads and scenarios\n"
	      "  --fsnotifyd-config FILE  add scenario 'fsnotifyd': the daemon running FILE\n"
	      "  --fsnotifyd PATH    the daemon for that scenario (default as for consumers)\n"
	      "  --fs tmpfs|ext4     the workload's filesystem (default tmpfs; ext4: a loop\n"
	      "                      device and mkfs.ext4, for scenario hsm-same-fs)\n"
	      "  --icount            inside a one-CPU guest under qemu -icount only (vm runs\n"
	      "                      it so): ops per second of the instruction clock, fixed\n"
	      "                      order, a SCHED_FIFO reader, guest sleeps that cost no\n"
	      "                      host time there (on a host they are real: 1 s a cell);\n"
	      "                      default 3 rounds x 10000 ops (--quick: 2 x 1000)\n"
	      "hooks, consumers, perm, config, hash and baseline need root (mount namespace,\n"
	      "fanotify); they exit 77 otherwise.\n"
	      "\n"
	      "consumers: a create/write/close/rename/unlink storm against fsnotifyd, the\n"
	      "cheapest reader doing its work per record (floor: path, comm, uid, a JSON\n"
	      "line), the same reader only counting (floor-count), the first floor\n"
	      "(floor-old), inotifywait and fatrace.\n"
	      "  --generators N      storm processes (default 2)\n"
	      "  --ops N             operations per generator (default 200000; --quick: 20000)\n"
	      "  --duration S        a sustained storm instead: each generator for S seconds\n"
	      "                      (also reports the consumer's RSS at the end / half way)\n"
	      "  --rounds N          rounds (default 3; --quick: 1)\n"
	      "  --consumers LIST    none,floor,floor-count,floor-old,fsnotifyd,inotifywait,\n"
	      "                      fatrace (default: all)\n"
	      "  --fsnotifyd PATH    the daemon (default: ../daemon/fsnotifyd next to\n"
	      "                      fsn-bench, else fsnotifyd from PATH)\n"
	      "  --evidence          fsnotifyd's rule asks who and attributes too\n"
	      "  --hash              fsnotifyd's rule asks hash too (content records)\n"
	      "  --quick, --json FILE  as for hooks\n"
	      "\n"
	      "perm: latency of an access to a guarded tmpfs: none, the cheapest correct\n"
	      "responder (floor), the first floor (floor-old), fsnotifyd (with --storm also\n"
	      "fsnotifyd-calm, without the storm).\n"
	      "  --workload W        open (open_perm, default), read (pread: access_perm),\n"
	      "                      exec (execve, ENOEXEC: open_exec_perm)\n"
	      "  --decision D        none (default), path (decide on the path), proc (on\n"
	      "                      the uid, exe and comm)\n"
	      "  --verdict V         allow (default) or deny\n"
	      "  --openers N         1 (default) or 2 at once, each on its own CPU\n"
	      "  --storm G           G storm processes on another tmpfs meanwhile (default 0)\n"
	      "  --rounds N          rounds (default 20; --quick: 5)\n"
	      "  --ops N             timed calls per opener, scenario and round (default\n"
	      "                      50000; --quick: 2000)\n"
	      "  --no-pin            let the scheduler place the bench and the responders\n"
	      "                      (default: all on the CPU the bench starts on)\n"
	      "  --path-policy       the same as --decision path\n"
	      "  --fsnotifyd PATH, --quick, --json FILE  as for consumers\n"
	      "  --plot FILE.png     plot the latency ratios (as for hooks)\n"
	      "\n",
	      f);
	/* two strings: one would exceed the 4095 bytes C99 compilers must take */
	fputs("config: what the size of fsnotifyd's configuration costs: N paths in N/10\n"
	      "rules; --check-config, start to READY=1, reload (same file, and half of the\n"
	      "rules on new paths), VmHWM/VmRSS, each against a floor (the bench's own\n"
	      "fanotify_mark() per path).\n"
	      "  --paths LIST        comma list of N, multiples of 10 (default\n"
	      "                      1000,10000,100000; --quick: 100,300)\n"
	      "  --rounds N          rounds (default 3; --quick: 1; at most 64)\n"
	      "  --timeout S         per step: past it the daemon is killed and the step\n"
	      "                      is 'timeout', not run again (default 300; --quick: 60)\n"
	      "  --fsnotifyd PATH, --quick, --json FILE  as for consumers\n"
	      "\n"
	      "hash: SHA-256 throughput of fsnotifyd's hasher (a rule's hash) against\n"
	      "sha256sum and openssl dgst on the same files in a tmpfs, and the delay of\n"
	      "records that need no hash while it hashes.\n"
	      "  --files N           files (default 32; --quick: 8; at most 4096)\n"
	      "  --size MIB          MiB per file (default 32; --quick: 4)\n"
	      "  --probes N          probe files per delay run, one every 200 us (default\n"
	      "                      2000; --quick: 200)\n"
	      "  --rounds N          rounds (default 3; --quick: 1; at most 64)\n"
	      "  --fsnotifyd PATH, --quick, --json FILE  as for consumers\n"
	      "\n"
	      "baseline: fsnotifyd --baseline-init and --baseline-check against aide --init\n"
	      "and --check on a tree of N files in a tmpfs, 1% of them rewritten before the\n"
	      "checks (each must report exactly those); wall and CPU time, fsnotifyd/aide.\n"
	      "Skipped (77) without aide.\n"
	      "  --sizes LIST        comma list of N files (default 10000,100000; --quick: 2000)\n"
	      "  --rounds N          rounds (default 3; --quick: 1; at most 64)\n"
	      "  --fsnotifyd PATH, --quick, --json FILE  as for consumers\n"
	      "\n"
	      "all: hooks, consumers, perm, then config; --json PREFIX writes\n"
	      "PREFIX-hooks.json, PREFIX-consumers.json, PREFIX-perm.json and\n"
	      "PREFIX-config.json.\n"
	      "\n"
	      "compare: side-by-side comparison of two hooks, two perm or two consumers --json\n"
	      "result files; --plot FILE.png plots both files' ratios (hooks, perm).\n"
	      "\n"
	      "plot: a PNG of a hooks or perm --json result file with gnuplot; exits 77 when\n"
	      "gnuplot is not installed.\n"
	      "\n"
	      "vm: hooks inside qemu guests whose clock counts instructions, one or two\n"
	      "kernel images compared; `fsn-bench vm --help` for its options.\n",
	      f);
}

/* fsn-bench all [--quick] [--json PREFIX] [--fsnotifyd PATH]: hooks,
 * consumers, perm, then config. All run even if one fails; the first error
 * is returned, else 77 only when all were skipped. */
static int all_main(int argc, char **argv) {
	char hooks_json[PATH_MAX], cons_json[PATH_MAX], perm_json[PATH_MAX], cfg_json[PATH_MAX];
	char *hargv[5] = { (char *)"hooks" }, *cargv[7] = { (char *)"consumers" },
	     *pargv[7] = { (char *)"perm" }, *gargv[7] = { (char *)"config" };
	int hn = 1, cn = 1, pn = 1, gn = 1, r[4];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			hargv[hn++] = argv[i];
			cargv[cn++] = argv[i];
			pargv[pn++] = argv[i];
			gargv[gn++] = argv[i];
		} else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
			snprintf(hooks_json, sizeof(hooks_json), "%s-hooks.json", argv[++i]);
			snprintf(cons_json, sizeof(cons_json), "%s-consumers.json", argv[i]);
			snprintf(perm_json, sizeof(perm_json), "%s-perm.json", argv[i]);
			snprintf(cfg_json, sizeof(cfg_json), "%s-config.json", argv[i]);
			hargv[hn++] = (char *)"--json";
			hargv[hn++] = hooks_json;
			cargv[cn++] = (char *)"--json";
			cargv[cn++] = cons_json;
			pargv[pn++] = (char *)"--json";
			pargv[pn++] = perm_json;
			gargv[gn++] = (char *)"--json";
			gargv[gn++] = cfg_json;
		} else if (strcmp(argv[i], "--fsnotifyd") == 0 && i + 1 < argc) {
			cargv[cn++] = argv[i];
			cargv[cn++] = argv[i + 1];
			pargv[pn++] = argv[i];
			pargv[pn++] = argv[i + 1];
			gargv[gn++] = argv[i];
			gargv[gn++] = argv[++i];
		} else {
			fprintf(stderr, "fsn-bench all: unknown or repeated option '%s'\n",
				argv[i]);
			return -EINVAL;
		}
		if (hn > 4 || cn > 6 || pn > 6 || gn > 6) {
			fprintf(stderr, "fsn-bench all: repeated option '%s'\n", argv[i]);
			return -EINVAL;
		}
	}
	optind = 1;
	r[0] = bench_hooks_main(hn, hargv);
	optind = 1;
	r[1] = bench_consumers_main(cn, cargv);
	optind = 1;
	r[2] = bench_perm_main(pn, pargv);
	optind = 1;
	r[3] = bench_config_main(gn, gargv);
	for (size_t i = 0; i < ELEMENTSOF(r); i++)
		if (r[i] < 0)
			return r[i];
	for (size_t i = 0; i < ELEMENTSOF(r); i++)
		if (r[i] != 77)
			return r[i];
	return 77;
}

int main(int argc, char **argv) {
	int r;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (argc == 2 && strcmp(argv[1], BENCH_EXEC_TRUE) == 0)
		return 0; /* (the hooks execve workload's program) */
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("fsn-bench (libfsn %s)\n", fsn_version());
		return 0;
	}
	if (strcmp(argv[1], "hooks") == 0) {
		r = bench_hooks_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "consumers") == 0) {
		r = bench_consumers_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "perm") == 0) {
		r = bench_perm_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "config") == 0) {
		r = bench_config_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "hash") == 0) {
		r = bench_hash_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "baseline") == 0) {
		r = bench_baseline_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "all") == 0) {
		r = all_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "compare") == 0) {
		r = bench_compare_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "plot") == 0) {
		r = bench_plot_main(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "vm") == 0) {
		r = bench_vm_main(argc - 1, argv + 1);
	} else {
		fprintf(stderr, "fsn-bench: unknown subcommand '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	if (r == -EINVAL)
		return 2; /* usage errors were explained where they were found */
	if (r < 0) {
		fprintf(stderr, "fsn-bench: %s\n", strerror(-r));
		return 1;
	}
	return r;
}
