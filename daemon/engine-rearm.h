/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-rearm.h — the engine's rearmer (engine-rearm.c): when the running
 * config is planned and placed again. It owns the re-arm timer, how long
 * the next re-arm waits (re-arms in a row that changed nothing, the
 * spacing the last one set), and the waiters: a watch for each missing or
 * refused path of the running plan, keyed by the path whose creation
 * brings it closer. What it needs of the rest of the engine comes as
 * explicit collaborators: the libfsn context the waiters' watches are
 * placed in (rearmer_init()), the running plan (rearmer_place()) and
 * struct rearmer_ops, through which a re-arm starts its load.
 */
#pragma once

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsn.h"
#include "util.h"

struct emark;
struct plan;

/* Re-arming plans again this long after the first ask. */
#define REARM_DELAY 0.05

/* What the rearmer asks of the engine. userdata is rearmer_init()'s. */
struct rearmer_ops {
	/* A load runs: a re-arm waits until it is over. */
	bool (*busy)(void *userdata);
	/* Plan the running config again and place it (a load): 0 or -errno. */
	int (*replan)(void *userdata);
};

struct rearmer {
	const struct rearmer_ops *ops;
	void *userdata;
	struct ev_loop *loop;
	struct fsn_ctx *ctx; /* the waiters' watches are its */
	ev_timer timer;      /* a planned mark's object went: plan again */
	unsigned quiet;      /* re-arms in a row that changed nothing */
	uint64_t not_before; /* monotonic us: no re-arm starts before */
	/* missing paths of the running plan: a watch on the nearest existing
	 * directory above each, by the path whose creation brings it closer */
	struct emark **waiters;
	size_t n_waiters;
	struct strmap waiting;
};

/* Start rm: its collaborators (borrowed, they outlive it) and its loop. */
void rearmer_init(struct rearmer *rm, const struct rearmer_ops *ops, void *userdata,
		  struct ev_loop *loop, struct fsn_ctx *ctx);
/* Stop: no re-arm from now on, the waiters' watches removed. */
void rearmer_done(struct rearmer *rm);

/* Plan and place again, soon (asks meanwhile are one). */
void rearmer_soon(struct rearmer *rm);
/* A re-arm's load ended (r < 0: failed; changed: it placed a mark anew or
 * its problems differ; took: the CPU time its work took, in us; n_placed:
 * the running state's marks): the spacing of the next one. */
void rearmer_ended(struct rearmer *rm, int r, bool changed, uint64_t took, unsigned n_placed);

/* A waiter for each missing or refused path of the running plan p (NULL:
 * none), in place of the ones there were. */
void rearmer_place(struct rearmer *rm, const struct plan *p);
/* Whether path was missing in the running plan: it, or a directory above
 * it, is what a waiter waits for. */
bool rearmer_waited(const struct rearmer *rm, const char *path);
/* The entry name was made in, or moved into, directory dir: if a waiter
 * waits for it, plan again soon. */
void rearmer_made(struct rearmer *rm, const char *dir, const char *name);
/* Whether a waiter waits at or below point (a mount there may bring a
 * missing path). */
bool rearmer_under(const struct rearmer *rm, const char *point);
