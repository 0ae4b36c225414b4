/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guard.h — permission events: a thread of their own that answers every
 * one, by policy, within its rule's deadline.
 *
 * Why a thread: a process that opens a guarded file waits until the
 * daemon answers. If the thread that answers could itself wait — on a
 * file write (outputs, the journal, a config reload on a guarded
 * filesystem), on a child, on anything the blocked process holds — the
 * machine could hang. The guard thread does nothing but read permission
 * events, evaluate policies (memory and /proc only), answer, and hand
 * reports to the main loop; it never logs, writes or opens a file itself.
 * The main thread's own file access that a permission mark catches is
 * answered "allow" at once by the guard (the daemon's own pid).
 *
 * Each permission rule has a struct guard_rule: a libfsn context holding
 * the rule's fanotify group (one group per rule, so a group's events are
 * the rule's, and its default and deadline verdicts are known without
 * looking further), its compiled policy, and counters.
 *
 * Threading: the main thread creates rules, places their marks, and hands
 * the set of active rules over with guard_commit(); from then on only the
 * guard thread touches them. Counters and the stall check are safe from
 * the main thread.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "fsn.h"
#include "policy.h"

struct ev_loop;
struct guard;
struct guard_rule;

/*
 * The decision latency histogram (fsnotifyd_permission_decision_seconds):
 * fixed upper bounds in microseconds, 1 us to 1 s in steps of about 3, and
 * a last bucket above them (+Inf). The guard thread adds each decision to
 * one bucket with a relaxed atomic add, outside any lock; readers see each
 * counter whole, the buckets among themselves a moment apart at worst.
 */
#define GUARD_LATENCY_BOUNDS 13
extern const uint64_t guard_latency_bounds_us[GUARD_LATENCY_BOUNDS];

struct guard_latency {
	/* decisions per bucket (not cumulative): [i] took at most
	 * guard_latency_bounds_us[i] and more than the bound before it;
	 * [GUARD_LATENCY_BOUNDS] more than the last bound */
	uint64_t buckets[GUARD_LATENCY_BOUNDS + 1];
	uint64_t sum_us; /* of all decisions */
};

/* The bucket of a decision that took us microseconds. */
unsigned guard_latency_bucket(uint64_t us);

/* A permission rule's counters (they survive a reload by rule name). */
struct guard_stats {
	uint64_t allowed;  /* decisions answered allow (audited or not) */
	uint64_t denied;   /* decisions answered deny */
	uint64_t audited;  /* decisions answered with FAN_AUDIT */
	uint64_t deadline; /* answered with the deadline verdict (no decision in time) */
	uint64_t passed;   /* not the rule's (scope, exclusions, process filters, the
			    * daemon's own): allowed at once, not decisions */
	uint64_t overflows;
	uint64_t pending;                        /* decisions waiting now */
	uint64_t latency_p50_us, latency_p99_us; /* reading to answer, of all decisions */
	struct guard_latency latency;            /* the same decisions, in fixed buckets */
};

enum guard_report_kind {
	GUARD_REPORT_DECISION = 0, /* a decision to report (its `log`, or a deadline) */
	GUARD_REPORT_OVERFLOW,     /* the rule's queue overflowed: the kernel allowed events
				    * it could not queue */
	GUARD_REPORT_LOG,          /* a message for the daemon's log */
	GUARD_REPORT_STATS,        /* a retired rule's last counters (at stop, or replaced by a
				    * reload under another name) */
};

/* Handed to the main thread; valid during the callback. */
struct guard_report {
	enum guard_report_kind kind;
	const char *rule;
	uint64_t time_usec; /* CLOCK_REALTIME of the answer */
	/* decision */
	uint64_t mask;    /* the permission event bits */
	const char *path; /* NULL if unknown */
	pid_t pid;
	const char *comm; /* NULL if unknown */
	uid_t uid;        /* (uid_t)-1 if unknown */
	const char *exe;  /* NULL if unknown */
	/* a rule with who: who beyond pid, comm and uid (has_who) */
	bool has_who;
	struct record_who who;
	struct verdict verdict;
	const char *by;    /* "decision", "default" or "deadline" */
	unsigned decision; /* 1-based index when by "decision" */
	uint64_t latency_us;
	/* log */
	int priority;
	const char *msg;
	/* stats */
	struct guard_stats stats;
};

typedef void (*guard_report_fn)(const struct guard_report *r, void *userdata);

/* Start the guard thread. Reports reach fn in the thread of main_loop
 * (an ev_async on it). */
int guard_new(struct ev_loop *main_loop, guard_report_fn fn, void *userdata, struct guard **ret);
/* Stop: every rule is retired (marks removed, queued events answered by
 * policy), decisions still waiting get their deadline verdict, the thread
 * ends, reports still queued are delivered. Accepts NULL; returns NULL. */
struct guard *guard_free(struct guard *g);

/* A new rule (main thread): a libfsn context for its group, logging to
 * log_fn while the main thread places its marks. */
/* Whether the rule's decision records say who (fsnotifyd.conf(5) who), read
 * of /proc after the answer is written (any thread, before or after the
 * commit). */
void guard_rule_set_who(struct guard_rule *r, bool who);
int guard_rule_new(const char *name, fsn_log_fn log_fn, void *log_userdata,
		   struct guard_rule **ret);
/* Place one of the rule's marks (before it is committed). As fsn_ctx_add_mark(). */
int guard_rule_add_mark(struct guard_rule *r, const struct fsn_mark_spec *spec);
unsigned guard_rule_n_marks(const struct guard_rule *r);
const char *guard_rule_name(const struct guard_rule *r);
/* A rule that was never committed: close its group, free it. */
void guard_rule_discard(struct guard_rule *r);

/*
 * Make rules[0..n) the active rules, policies[i] the policy of rules[i]
 * (ownership of the policies passes to the guard). A rule committed before
 * and listed again keeps its marks and group (no gap) and takes its new
 * policy; a rule committed before and not listed is retired: its marks are
 * removed, the events its group still holds are answered by its old
 * policy, decisions still waiting are answered when due, then it is freed.
 * A new rule takes over the counters of a retired one of the same name.
 * Returns 0 or -ENOMEM (then nothing changed and the policies are freed).
 */
int guard_commit(struct guard *g, struct guard_rule **rules, struct policy **policies, size_t n);

/* The counters of the active rule named name; false if there is none. */
bool guard_stats(struct guard *g, const char *name, struct guard_stats *ret);

/*
 * File descriptors. Every permission event comes with an fd the kernel
 * opens while the guard reads it; out of fds, the kernel denies the opener
 * without asking. The daemon's other fd users are bounded, so it reserves
 * what they may hold at once out of RLIMIT_NOFILE and gives the rest to
 * the guard's contexts as one libfsn fd budget (struct fsn_fd_budget):
 * they then read no more events than it has room for, counting at no
 * system call. What is reserved (struct guard_fd_reserve, filled by
 * engine-perm.c at every commit and when a load starts placing):
 *   open     the fds open at that moment, the event fds held excluded;
 *   clients  control.max_clients, and the control socket's reopen (2);
 *   exec     one pipe per command an exec output may run at once
 *            (max_running of each), and one spawn's 5 (/dev/null, two pipes);
 *   state    a configuration being placed: 2 per output, 1 per rule and 2
 *            (the notification groups, the inotify instance), 4 per
 *            permission rule (its context: epoll fd, group fd, and two
 *            opened on demand), while the running one keeps its own;
 *   mounts   libfsn's mount fds, opened while events are resolved: one
 *            per filesystem of the plan (of both plans while loading);
 *   pidfds   with a rule's who or packages, ENGINE_PIDFDS: the pidfds
 *            the engine's reads of their events may hold at once (its fd
 *            budget), and FSN_PIDFDS_PER_READ, those one read makes before
 *            the reader thread closes the ones beyond the budget;
 *   hash     with a rule's hash or packages, the files waiting for the
 *            hasher (limits.hash_queue, each an O_PATH fd), the one it
 *            reads (2) and the one being handed over; with packages, dpkg's
 *            database (11); with a rule's baseline, the baseline thread's
 *            walk and database (BASELINER_FDS); the larger of both
 *            configs' while loading;
 *   slack    GUARD_FD_SLACK: the load worker's directory walk (up to 66
 *            directories open) and feature probe (up to 18 fanotify
 *            groups), a config parse (5), the journal (2), an output's
 *            reopen or a metrics write (2), the mount table (2), libfsn's
 *            O_PATH and mount-root opens (3), a rescan or tree walk (2),
 *            the reader thread's 3.
 * The budget is RLIMIT_NOFILE (read each time) minus all of that; below
 * GUARD_FD_BUDGET_MIN it is 0: libfsn then counts the free fds before
 * each read, as it does without a budget.
 */
#define GUARD_FD_SLACK 128
#define GUARD_FD_BUDGET_MIN 16

struct guard_fd_reserve {
	unsigned open, clients, exec, state, mounts, hash, pidfds, slack;
};

/* The budget for a limit of limit fds (0: too little left, count). */
unsigned guard_fd_budget_of(uint64_t limit, const struct guard_fd_reserve *r);
/* Set the guard's budget (any thread; 0: count free fds before each read). */
void guard_set_fd_budget(struct guard *g, unsigned max);
/* Its bound and the event fds its contexts and pending decisions hold now. */
void guard_get_fd_budget(const struct guard *g, unsigned *ret_max, unsigned *ret_held);

/* The guard thread's name (pthread_setname_np, /proc/PID/task/TID/comm). */
#define GUARD_THREAD_NAME "fsnd-guard"

/* Whether the guard thread has been inside one callback (one decision or
 * one batch of events) for more than limit_usec: stuck. The watchdog is
 * then no longer fed. */
bool guard_stalled(struct guard *g, uint64_t limit_usec);
