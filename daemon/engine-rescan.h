/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-rescan.h — the engine's rescanner (engine-rescan.c): overflow
 * recovery. It owns what only recovery uses: when the queues were last
 * read empty, the timer of the next rescan and its backoff, and its count
 * of rescans. What it needs of the rest of the engine comes as explicit
 * collaborators: the running state (rescanner_init(): the rules an
 * overflow hit, the marks whose paths are walked again) and struct
 * rescanner_ops, through which records go out and a recursive inotify
 * tree gets back the watches it lost.
 */
#pragma once

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "fsn.h"

struct emark;
struct erule;
struct record;
struct state;

/* What the rescanner asks of the engine. userdata is rescanner_init()'s. */
struct rescanner_ops {
	/* Rule r compares its baseline instead (true): the rescan only gives
	 * an inotify tree back the watches it lost, and reports nothing. */
	bool (*compare)(void *userdata, struct erule *r);
	/* Rule r may report one more event now (its rate limit). */
	bool (*admit)(void *userdata, struct erule *r);
	/* A rescan record for rule r's outputs. */
	void (*report)(void *userdata, struct erule *r, const struct record *rec);
	/* Directory dir of recursive inotify tree root, open as dfd (borrowed),
	 * has no watch (it was made while events were lost): its sub-watch. */
	void (*watch)(void *userdata, struct emark *root, int dfd, const char *dir);
	/* What a file with attributes now was when last seen, into *before
	 * (false: not known); now kept as the latest. */
	bool (*attrs)(void *userdata, const struct record_attrs *now, struct record_attrs *before);
	/* Rule r (with hash) reported rec, a regular file's: fd, the file
	 * (O_PATH, taken) or -errno, for its content record. */
	void (*hash)(void *userdata, struct erule *r, int fd, const struct record *rec);
};

struct rescanner {
	const struct rescanner_ops *ops;
	void *userdata;
	struct ev_loop *loop;
	struct state *run;      /* the running state (borrowed) */
	ev_timer timer;         /* the next rescan, with backoff */
	double backoff;         /* seconds */
	uint64_t last_overflow; /* monotonic s */
	uint64_t drained_usec;  /* realtime: when the queues were last read empty */
	uint64_t rescans;
};

/* Start rs: its collaborators (borrowed, they outlive it), its loop and
 * the running state, whose rules and marks a rescan reads. */
void rescanner_init(struct rescanner *rs, const struct rescanner_ops *ops, void *userdata,
		    struct ev_loop *loop, struct state *run);
void rescanner_done(struct rescanner *rs);

/* A dispatch read every queue empty, at realtime now_usec: what an
 * overflow loses from now on happened after that. */
void rescanner_drained(struct rescanner *rs, uint64_t now_usec);
/* An overflow (the matcher reports it): rule r lost events; then, once
 * the overflow's records went out, names listing the rules: logged, and
 * their rescan scheduled. */
void rescanner_lost(struct rescanner *rs, struct erule *r);
void rescanner_overflowed(struct rescanner *rs, const struct fsn_event *ev, const char *names);
/* A rescan record of rule r: path was created, modified or (a directory)
 * its entries changed while its events could not be heard; now: what it
 * is, for a rule with attributes (NULL: not looked at); a regular file's,
 * for a rule with hash, is found as dirfd's entry name for its content
 * record (dirfd -1: not). */
void rescanner_emit(struct rescanner *rs, struct erule *r, const char *path, const char *change,
		    bool dir, const struct record_attrs *now, int dirfd, const char *name);
