/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memcg.h — a memory cgroup of one consumer (memcg.c), to measure the kernel
 * memory its queued events take. fanotify and inotify charge every queued
 * event to the memory cgroup the listening group was created in
 * (GFP_KERNEL_ACCOUNT under the group's memcg), so the kernel memory of a
 * cgroup that holds only the consumer, above its level when the consumer is
 * ready, is what its queues cost the kernel (plus, for a consumer writing to
 * a pipe, the pipe's buffer).
 *
 * cgroup v1 (a "memory" hierarchy): memory.kmem.usage_in_bytes, and its
 * watermark memory.kmem.max_usage_in_bytes reset when armed: the peak is
 * exact. cgroup v2 (memory enabled below the mount's root): memory.stat's
 * "kernel" (or "slab"), sampled every BENCH_MEMCG_SAMPLE_MS by a sampler
 * process: the peak is the highest sample.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#define BENCH_MEMCG_SAMPLE_MS 5

struct bench_memcg {
	char dir[256];   /* "" when none */
	int version;     /* 1 or 2 */
	uint64_t base;   /* kernel bytes when armed */
	uint64_t *peak;  /* v2: the sampler's highest sample (shared memory) */
	pid_t sampler;   /* v2: the sampler while armed */
	const char *why; /* bench_memcg_create() failed: why, for a note */
};

/* Create a fresh memory cgroup named fsn-bench-PID-TAG; on failure -errno
 * and m->why says why ("no memory cgroup mounted", ...). */
int bench_memcg_create(struct bench_memcg *m, const char *tag);
/* Move the calling process into it (a child between fork and exec). */
int bench_memcg_join_self(const struct bench_memcg *m);
/* Note the current kernel memory as the base and start measuring the peak. */
int bench_memcg_arm(struct bench_memcg *m);
/* The peak kernel memory above the base since armed, in bytes. */
int bench_memcg_peak(struct bench_memcg *m, uint64_t *ret);
/* Stop the sampler and remove the cgroup (its processes have exited). */
void bench_memcg_destroy(struct bench_memcg *m);
