/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-retire.h — the engine's retirer (engine-retire.c): what a
 * replaced state leaves behind when a new one commits. It owns the marks
 * that leave the kernel in batches (and their timer), the replaced plan
 * and config freed a loop turn later (and the timer that frees them, then
 * trims the heap), and the names and outputs of the permission rules a
 * reload replaced, whose last reports still reach the outputs of those
 * names. What it needs of the rest of the engine comes as explicit
 * collaborators: the inode index a retired inotify mark leaves at once
 * (retirer_init()) and struct retirer_ops, through which a mark leaves
 * the kernel.
 */
#pragma once

#include <ev.h>
#include <stddef.h>

struct config;
struct emark;
struct inode_index;
struct plan;
struct state;

/* What the retirer asks of the engine. userdata is retirer_init()'s. */
struct retirer_ops {
	/* Planned mark m and its sub-watches leave the kernel and memory. */
	void (*drop)(void *userdata, struct emark *m);
};

/* A permission rule a reload replaced (under another name, or with other
 * marks): what its group still answers is reported to the outputs of the
 * same names in the running state. */
struct retired {
	char *rule;
	char **outputs;
	size_t n_outputs;
};

/* Replaced permission rules remembered (beyond: the oldest goes). */
#define MAX_RETIRED 64

struct retirer {
	const struct retirer_ops *ops;
	void *userdata;
	struct ev_loop *loop;
	struct inode_index *inodes; /* inotify marks by inode (engine-marks.c) */
	/* marks of a replaced state, removed from the kernel in batches */
	struct emark **marks;
	size_t n_marks, marks_cap;
	ev_timer timer;
	/* a replaced state's plan and config, freed a loop turn after the
	 * commit (100 000 paths: tens of ms), then the heap trimmed */
	struct plan *plan;
	struct config *config;
	ev_timer tidy_timer;
	/* permission rules replaced by reloads, the newest last */
	struct retired *rules;
	size_t n_rules;
};

/* Start rt: its collaborators (borrowed, they outlive it) and its loop. */
void retirer_init(struct retirer *rt, const struct retirer_ops *ops, void *userdata,
		  struct ev_loop *loop, struct inode_index *inodes);
/* Stop: what is left is freed, the marks waiting leave the kernel now. */
void retirer_done(struct retirer *rt);

/* Planned mark m's state is going away: m reports nothing from now on
 * (out of the inode index, no rule) and leaves the kernel in a batch
 * soon (at once if it cannot be queued). */
void retirer_mark(struct retirer *rt, struct emark *m);
/* A replaced state's plan and config (taken; config NULL: shared with
 * the new state), freed once the load ended (retirer_tidy()). */
void retirer_stale(struct retirer *rt, struct plan *plan, struct config *config);
/* Remember the replaced state old's permission rules the new one does
 * not keep. */
void retirer_perm(struct retirer *rt, const struct state *old);
/* The newest replaced permission rule of that name, NULL if none. */
const struct retired *retirer_rule(const struct retirer *rt, const char *name);
/* A load ended: a loop turn from now (or once the retired marks are out
 * of the kernel) the stale plan and config are freed, then the heap
 * trimmed. */
void retirer_tidy(struct retirer *rt);
