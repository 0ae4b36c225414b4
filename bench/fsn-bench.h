/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsn-bench.h — the subcommands fsn-bench.c dispatches to, each in its own
 * file.
 */
#pragma once

/* Each returns 0, 77 (skipped), or -errno (-EINVAL: a usage error, already
 * explained on stderr). */
int bench_hooks_main(int argc, char **argv);
int bench_compare_main(int argc, char **argv);
int bench_consumers_main(int argc, char **argv);
int bench_perm_main(int argc, char **argv);
int bench_config_main(int argc, char **argv);
int bench_hash_main(int argc, char **argv);
int bench_baseline_main(int argc, char **argv);
int bench_plot_main(int argc, char **argv);
int bench_vm_main(int argc, char **argv);
/* hooks' --workloads / --scenarios lists and --fs (NULL: not given): 0, or
 * -EINVAL naming the unknown word on stderr (vm checks them before booting). */
int bench_hooks_check_lists(const char *workloads, const char *scenarios, const char *fs);

/* argv[1] that makes fsn-bench exit 0 at once: the program `fsn-bench
 * hooks` execs in its execve workload (a copy of itself on the workload's
 * filesystem). */
#define BENCH_EXEC_TRUE "--exec-true"
