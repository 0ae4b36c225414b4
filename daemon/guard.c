/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guard.c — the permission thread (see guard.h for why it exists).
 *
 * The thread runs a libev loop of its own: one ev_io per rule's context,
 * an ev_async for commands from the main thread (commit, stop), and, for
 * decisions that are not ready at once (debug_delay_ms), two timers each:
 * "ready" and "deadline", whichever fires first answers. A decision made at
 * once is answered at once; if making it took longer than the deadline,
 * the deadline verdict is written instead.
 *
 * What crosses threads, under g->lock: the command queue, the report queue
 * (to the main loop, through an ev_async there), each rule's counters and
 * latency histogram, and the list of rules (for guard_stats()). busy_since
 * is an atomic, read by guard_stalled(); so are the buckets of the fixed
 * latency histogram (struct guard_latency, relaxed adds).
 */
#include <errno.h>
#include <ev.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "fsn-uapi.h"
#include "guard.h"
#include "util.h"

/* Reports waiting for the main loop, at most; more are dropped and counted. */
#define MAX_REPORTS 65536

/* Latency histogram: exact below 64 us, then 32 steps per power of two
 * (about 3 % resolution), up to 2^40 us. */
#define HIST_LINEAR 64
#define HIST_SUB 32
#define HIST_BUCKETS (HIST_LINEAR + (40 - 6) * HIST_SUB)

struct pending;

struct guard_rule {
	struct guard *g;
	char *name;
	struct fsn_ctx *ctx;
	struct fsn_mark **marks;
	size_t n_marks;
	struct policy *policy;
	ev_io io;
	bool handed;    /* main thread: given to guard_commit() */
	bool committed; /* thread (under g->lock): in g->rules */
	bool retired;
	bool io_starved;     /* io stopped: no free fd for event fds until an answer */
	bool warned_fds;     /* said once that events waited for fds */
	bool warned_verdict; /* the kernel refused DENY_ERRNO / AUDIT once: said so */
	bool stats_handed;   /* a new rule of the same name continues its counters */
	_Atomic bool who;    /* its decisions say who (guard_rule_set_who()) */
	unsigned refs;       /* being active + decisions waiting */
	struct guard_rule *next;
	struct guard_rule *retire_next;
	/* under g->lock */
	struct guard_stats stats;
	uint32_t hist[HIST_BUCKETS];
	/* the fixed histogram (guard_latency_bucket()): relaxed atomics */
	_Atomic uint64_t lat[GUARD_LATENCY_BOUNDS + 1];
	_Atomic uint64_t lat_sum_us;
};

struct pending {
	struct guard_rule *rule;
	struct fsn_perm *perm;
	ev_timer ready, deadline;
	struct policy_result res;
	struct verdict deadline_verdict;
	uint64_t t0;
	uint64_t mask;
	pid_t pid;
	char *path;
	struct pending *prev, *next;
};

enum cmd_kind { CMD_COMMIT, CMD_STOP };

struct cmd {
	enum cmd_kind kind;
	struct guard_rule **rules;
	struct policy **policies;
	size_t n;
	struct cmd *next;
};

struct rnode {
	struct rnode *next;
	struct guard_report r;
	char strings[]; /* the report's strings */
};

struct guard {
	pthread_t thread;
	bool started;
	struct ev_loop *loop; /* the thread's */
	ev_async wake;
	pid_t self;
	_Atomic uint64_t busy_since; /* monotonic us, 0: idle */

	pthread_mutex_t lock;
	struct cmd *cmds;
	struct guard_rule *rules; /* all rules the thread owns (active and retiring) */
	struct rnode *reports, **reports_tail;
	size_t n_reports;
	uint64_t reports_dropped;

	struct ev_loop *main_loop;
	ev_async reports_async;
	guard_report_fn fn;
	void *userdata;

	struct pending *pending; /* thread */

	/* the fds of permission events the rules' contexts may hold, shared
	 * by all of them (libfsn's counts are atomic): guard_set_fd_budget() */
	struct fsn_fd_budget *budget;
};

/* ------------------------------------------------------------------------ */
/* reports (guard thread → main loop)                                       */
/* ------------------------------------------------------------------------ */

static size_t slen(const char *s) {
	return s ? strlen(s) + 1 : 0;
}

static const char *scopy(char **dst, const char *s) {
	char *d = *dst;

	if (!s)
		return NULL;
	strcpy(d, s);
	*dst += strlen(s) + 1;
	return d;
}

static void report_push(struct guard *g, const struct guard_report *r) {
	size_t n = slen(r->rule) + slen(r->path) + slen(r->comm) + slen(r->exe) + slen(r->by) +
		   slen(r->msg) + slen(r->who.exe) + slen(r->who.parent_comm) + slen(r->who.unit) +
		   slen(r->who.slice) + slen(r->who.container);
	struct rnode *node = malloc(sizeof(*node) + n);
	char *p;

	pthread_mutex_lock(&g->lock);
	if (!node || g->n_reports >= MAX_REPORTS) {
		g->reports_dropped++;
		pthread_mutex_unlock(&g->lock);
		free(node);
		return;
	}
	p = node->strings;
	node->next = NULL;
	node->r = *r;
	node->r.rule = scopy(&p, r->rule);
	node->r.path = scopy(&p, r->path);
	node->r.comm = scopy(&p, r->comm);
	node->r.exe = scopy(&p, r->exe);
	node->r.by = scopy(&p, r->by);
	node->r.msg = scopy(&p, r->msg);
	node->r.who.exe = scopy(&p, r->who.exe);
	node->r.who.parent_comm = scopy(&p, r->who.parent_comm);
	node->r.who.unit = scopy(&p, r->who.unit);
	node->r.who.slice = scopy(&p, r->who.slice);
	node->r.who.container = scopy(&p, r->who.container);
	*g->reports_tail = node;
	g->reports_tail = &node->next;
	g->n_reports++;
	pthread_mutex_unlock(&g->lock);
	ev_async_send(g->main_loop, &g->reports_async);
}

__attribute__((format(printf, 4, 5))) static void report_log(struct guard *g, const char *rule,
							     int priority, const char *fmt, ...) {
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_push(g, &(struct guard_report){ .kind = GUARD_REPORT_LOG,
					       .rule = rule,
					       .time_usec = now_realtime_usec(),
					       .uid = (uid_t)-1,
					       .priority = priority,
					       .msg = msg });
}

/* Main thread: deliver what is queued. */
static void deliver_reports(struct guard *g) {
	struct rnode *list, *next;
	uint64_t dropped;

	pthread_mutex_lock(&g->lock);
	list = g->reports;
	g->reports = NULL;
	g->reports_tail = &g->reports;
	g->n_reports = 0;
	dropped = g->reports_dropped;
	g->reports_dropped = 0;
	pthread_mutex_unlock(&g->lock);
	for (; list; list = next) {
		next = list->next;
		g->fn(&list->r, g->userdata);
		free(list);
	}
	if (dropped > 0) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "%" PRIu64 " permission reports dropped (the main loop fell behind)",
			 dropped);
		g->fn(&(struct guard_report){ .kind = GUARD_REPORT_LOG,
					      .priority = LOG_WARNING,
					      .uid = (uid_t)-1,
					      .msg = msg },
		      g->userdata);
	}
}

static void on_reports(struct ev_loop *loop, ev_async *w, int revents) {
	deliver_reports(w->data);
}

/* ------------------------------------------------------------------------ */
/* counters                                                                 */
/* ------------------------------------------------------------------------ */

static unsigned hist_bucket(uint64_t us) {
	unsigned msb;

	if (us < HIST_LINEAR)
		return (unsigned)us;
	msb = 63u - (unsigned)__builtin_clzll(us); /* >= 6 */
	if (msb >= 40)
		return HIST_BUCKETS - 1;
	return HIST_LINEAR + (msb - 6) * HIST_SUB + (unsigned)((us >> (msb - 5)) & (HIST_SUB - 1));
}

/* The lower bound of a bucket, in us. */
static uint64_t hist_value(unsigned b) {
	unsigned msb;

	if (b < HIST_LINEAR)
		return b;
	msb = (b - HIST_LINEAR) / HIST_SUB + 6;
	return ((uint64_t)1 << msb) | ((uint64_t)((b - HIST_LINEAR) % HIST_SUB) << (msb - 5));
}

static uint64_t hist_percentile(const uint32_t *h, uint64_t total, unsigned pct) {
	uint64_t want, seen = 0;

	if (total == 0)
		return 0;
	want = (total * pct + 99) / 100;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h[b];
		if (seen >= want)
			return hist_value(b);
	}
	return hist_value(HIST_BUCKETS - 1);
}

const uint64_t guard_latency_bounds_us[GUARD_LATENCY_BOUNDS] = {
	1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000,
};

unsigned guard_latency_bucket(uint64_t us) {
	unsigned b = 0;

	while (b < GUARD_LATENCY_BOUNDS && us > guard_latency_bounds_us[b])
		b++;
	return b;
}

/* The counters with the percentiles and the fixed histogram (under g->lock). */
static void snapshot(struct guard_rule *r, struct guard_stats *ret) {
	/* account() adds one to exactly one of these and to one bucket */
	uint64_t total = r->stats.allowed + r->stats.denied;

	*ret = r->stats;
	ret->latency_p50_us = hist_percentile(r->hist, total, 50);
	ret->latency_p99_us = hist_percentile(r->hist, total, 99);
	for (unsigned b = 0; b <= GUARD_LATENCY_BOUNDS; b++)
		ret->latency.buckets[b] = atomic_load_explicit(&r->lat[b], memory_order_relaxed);
	ret->latency.sum_us = atomic_load_explicit(&r->lat_sum_us, memory_order_relaxed);
}

static void account(struct guard_rule *r, const struct verdict *v, bool deadline,
		    uint64_t latency_us) {
	struct guard *g = r->g;

	atomic_fetch_add_explicit(&r->lat[guard_latency_bucket(latency_us)], 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&r->lat_sum_us, latency_us, memory_order_relaxed);
	pthread_mutex_lock(&g->lock);
	if (v->deny)
		r->stats.denied++;
	else
		r->stats.allowed++;
	if (v->audit)
		r->stats.audited++;
	if (deadline)
		r->stats.deadline++;
	r->hist[hist_bucket(latency_us)]++;
	pthread_mutex_unlock(&g->lock);
}

static void count(struct guard_rule *r, uint64_t *field, int64_t delta) {
	pthread_mutex_lock(&r->g->lock);
	*field = (uint64_t)((int64_t)*field + delta);
	pthread_mutex_unlock(&r->g->lock);
}

/* ------------------------------------------------------------------------ */
/* answering                                                                */
/* ------------------------------------------------------------------------ */

static void rule_unref(struct guard_rule *r);

/* Write the verdict (from the callback: ev; later: perm). */
static void respond(struct guard_rule *r, struct fsn_event *ev, struct fsn_perm *perm,
		    const struct verdict *v) {
	enum fsn_verdict fv = v->deny ? FSN_DENY : FSN_ALLOW;
	int k = perm ? fsn_perm_respond(perm, fv, v->err, v->audit)
		     : fsn_ctx_respond(r->ctx, ev, fv, v->err, v->audit);

	if (k == -EOPNOTSUPP && !r->warned_verdict) {
		char b[64];

		r->warned_verdict = true;
		report_log(r->g, r->name, LOG_WARNING,
			   "rule '%s': the kernel refused the verdict %s (FAN_DENY_ERRNO or "
			   "FAN_AUDIT); answered %s without it",
			   r->name, verdict_format(v, b, sizeof(b)), v->deny ? "deny" : "allow");
	} else if (k < 0 && k != -EOPNOTSUPP)
		report_log(r->g, r->name, LOG_ERR, "rule '%s': answering a permission event: %s",
			   r->name, strerror(-k));
}

/* Report a decision (after it was answered: the reading of /proc for the
 * report does not delay the blocked process). proc: what the decision
 * already read of /proc/PID (the rest is read now), or NULL. */
static void report_decision(struct guard_rule *r, uint64_t mask, const char *path, pid_t pid,
			    struct proc_info *known, const struct verdict *v, const char *by,
			    unsigned decision, uint64_t latency_us) {
	struct proc_info own, *proc = known;
	struct guard_report rep;

	if (!proc) {
		proc_info_init(&own, pid);
		proc = &own;
	}
	rep = (struct guard_report){
		.kind = GUARD_REPORT_DECISION,
		.rule = r->name,
		.time_usec = now_realtime_usec(),
		.mask = mask,
		.path = path,
		.pid = pid,
		.comm = proc_info_comm(proc),
		.uid = proc_info_status(proc) ? proc->uid : (uid_t)-1,
		.exe = proc_info_exe(proc),
		.verdict = *v,
		.by = by,
		.decision = decision,
		.latency_us = latency_us,
	};
	rep.has_who = atomic_load_explicit(&r->who, memory_order_relaxed);
	if (rep.has_who)
		proc_info_who(proc, &rep.who);
	report_push(r->g, &rep);
}

void guard_rule_set_who(struct guard_rule *r, bool who) {
	atomic_store_explicit(&r->who, who, memory_order_relaxed);
}

static const char *result_by(const struct policy_result *res) {
	return res->decision ? "decision" : "default";
}

static void pending_finish(struct pending *p, bool deadline) {
	struct guard_rule *r = p->rule;
	struct guard *g = r->g;
	const struct verdict *v = deadline ? &p->deadline_verdict : &p->res.verdict;
	uint64_t lat;

	ev_timer_stop(g->loop, &p->ready);
	ev_timer_stop(g->loop, &p->deadline);
	respond(r, NULL, p->perm, v);
	p->perm = NULL;
	lat = now_monotonic_usec() - p->t0;
	account(r, v, deadline, lat);
	count(r, &r->stats.pending, -1);
	if (deadline || p->res.log)
		report_decision(r, p->mask, p->path, p->pid, NULL, v,
				deadline ? "deadline" : result_by(&p->res), p->res.decision, lat);
	if (p->prev)
		p->prev->next = p->next;
	else
		g->pending = p->next;
	if (p->next)
		p->next->prev = p->prev;
	free(p->path);
	free(p);
	/* its fd is back: rules that waited for one read again (the budget
	 * is shared, so not only this one's) */
	for (struct guard_rule *x = g->rules; x; x = x->next)
		if (x->io_starved && x->ctx && !x->retired) {
			x->io_starved = false;
			ev_io_start(g->loop, &x->io);
		}
	rule_unref(r);
}

static void on_ready(struct ev_loop *loop, ev_timer *w, int revents) {
	pending_finish(w->data, false);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents) {
	pending_finish(w->data, true);
}

/* A decision that becomes ready later (debug_delay_ms). */
static void defer(struct guard_rule *r, struct fsn_event *ev, const struct policy_result *res,
		  const char *path, uint64_t t0) {
	struct guard *g = r->g;
	struct pending *p = calloc(1, sizeof(*p));
	double delay = policy_delay_ms(r->policy) / 1000.0;
	double deadline = policy_deadline_ms(r->policy) / 1000.0;
	double spent = (double)(now_monotonic_usec() - t0) / 1e6;

	if (!p || fsn_event_take_perm(r->ctx, ev, &p->perm) < 0) {
		free(p);
		respond(r, ev, NULL, policy_deadline_verdict(r->policy));
		return;
	}
	p->rule = r;
	r->refs++;
	p->res = *res;
	p->deadline_verdict = *policy_deadline_verdict(r->policy);
	p->t0 = t0;
	p->mask = ev->mask & RULE_PERM_EVENTS;
	p->pid = ev->pid;
	p->path = path ? strdup(path) : NULL;
	ev_timer_init(&p->ready, on_ready, delay > spent ? delay - spent : 0., 0.);
	ev_timer_init(&p->deadline, on_deadline, deadline > spent ? deadline - spent : 0., 0.);
	p->ready.data = p->deadline.data = p;
	ev_timer_start(g->loop, &p->ready);
	ev_timer_start(g->loop, &p->deadline);
	p->next = g->pending;
	if (g->pending)
		g->pending->prev = p;
	g->pending = p;
	count(r, &r->stats.pending, 1);
}

static int on_event(struct fsn_ctx *ctx, struct fsn_event *ev, void *userdata) {
	struct guard_rule *r = userdata;
	struct policy *pol = r->policy;
	uint64_t t0 = now_monotonic_usec(), lat;
	struct policy_result res;
	struct proc_info proc;
	char buf[PATH_MAX];
	const char *path = NULL;
	bool late;

	if (ev->mask & FAN_Q_OVERFLOW) {
		count(r, &r->stats.overflows, 1);
		report_push(r->g, &(struct guard_report){ .kind = GUARD_REPORT_OVERFLOW,
							  .rule = r->name,
							  .time_usec = now_realtime_usec(),
							  .uid = (uid_t)-1 });
		return 0;
	}
	if (!(ev->mask & RULE_PERM_EVENTS))
		return 0;
	if (ev->pid == r->g->self) {
		/* the daemon's own access (outputs, config, ...) */
		respond(r, ev, NULL, &(struct verdict){ 0 });
		count(r, &r->stats.passed, 1);
		return 0;
	}
	proc_info_init(&proc, ev->pid);
	if (policy_needs_path(pol) && ev->fd >= 0 &&
	    fsn_ctx_fd_path(r->ctx, ev->fd, buf, sizeof(buf), NULL) >= 0)
		path = buf;
	if (!policy_applies(pol, path, &proc)) {
		respond(r, ev, NULL, &(struct verdict){ 0 });
		count(r, &r->stats.passed, 1);
		return 0;
	}
	policy_decide(pol, ev->mask & RULE_PERM_EVENTS, path, &proc, &res);
	if (policy_delay_ms(pol) > 0) {
		if (!path && res.log && ev->fd >= 0 &&
		    fsn_ctx_fd_path(r->ctx, ev->fd, buf, sizeof(buf), NULL) >= 0)
			path = buf;
		defer(r, ev, &res, path, t0);
		return 0;
	}
	late = now_monotonic_usec() - t0 > (uint64_t)policy_deadline_ms(pol) * 1000u;
	respond(r, ev, NULL, late ? policy_deadline_verdict(pol) : &res.verdict);
	lat = now_monotonic_usec() - t0;
	account(r, late ? policy_deadline_verdict(pol) : &res.verdict, late, lat);
	if (!late && !res.log)
		return 0;
	/* answered (libfsn writes a read's answers together: this one now, so
	 * that the report's lookups do not delay it); what only the report
	 * needs is looked up now (the event fd stays ours after the answer) */
	fsn_ctx_flush(r->ctx);
	if (!path && ev->fd >= 0 && fsn_ctx_fd_path(r->ctx, ev->fd, buf, sizeof(buf), NULL) >= 0)
		path = buf;
	report_decision(r, ev->mask & RULE_PERM_EVENTS, path, ev->pid, &proc,
			late ? policy_deadline_verdict(pol) : &res.verdict,
			late ? "deadline" : result_by(&res), res.decision, lat);
	return 0;
}

/* Events handled, or -errno (logged). */
static int dispatch(struct guard_rule *r) {
	int k = fsn_ctx_dispatch(r->ctx, on_event, r);

	if (k < 0)
		report_log(r->g, r->name, LOG_ERR, "rule '%s': reading permission events: %s",
			   r->name, strerror(-k));
	return k;
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents) {
	struct guard_rule *r = w->data;

	atomic_store(&r->g->busy_since, now_monotonic_usec());
	dispatch(r);
	/* Out of fds with decisions pending (of any rule: they share the fd
	 * budget): the events wait in the kernel queue; watching the group
	 * would spin. The next answer closes an fd and starts io again. */
	if (fsn_ctx_fd_starved(r->ctx)) {
		if (!r->warned_fds) {
			r->warned_fds = true;
			report_log(r->g, r->name, LOG_WARNING,
				   "rule '%s': no free file descriptor for the fds of permission "
				   "events (RLIMIT_NOFILE): they wait in the kernel queue until "
				   "pending decisions free some",
				   r->name);
		}
		if (r->g->pending) {
			ev_io_stop(loop, w);
			r->io_starved = true;
		}
	}
	atomic_store(&r->g->busy_since, 0);
}

/* ------------------------------------------------------------------------ */
/* rules                                                                    */
/* ------------------------------------------------------------------------ */

static void rule_free(struct guard_rule *r);

static inline void rule_freep(struct guard_rule **r) {
	if (*r)
		rule_free(*r);
}

int guard_rule_new(const char *name, fsn_log_fn log_fn, void *log_userdata,
		   struct guard_rule **ret) {
	_cleanup_(rule_freep) struct guard_rule *r = calloc(1, sizeof(*r));
	int k;

	if (!r)
		return -ENOMEM;
	r->name = strdup(name);
	if (!r->name)
		return -ENOMEM;
	k = fsn_ctx_new(&r->ctx);
	if (k < 0)
		return k;
	fsn_ctx_set_log(r->ctx, log_fn, log_userdata);
	*ret = steal_ptr(&r);
	return 0;
}

int guard_rule_add_mark(struct guard_rule *r, const struct fsn_mark_spec *spec) {
	struct fsn_mark **v = realloc(r->marks, (r->n_marks + 1) * sizeof(*v));
	int k;

	if (!v)
		return -ENOMEM;
	r->marks = v;
	k = fsn_ctx_add_mark(r->ctx, spec, &v[r->n_marks]);
	if (k < 0)
		return k;
	r->n_marks++;
	return 0;
}

unsigned guard_rule_n_marks(const struct guard_rule *r) {
	return r ? (unsigned)r->n_marks : 0;
}

const char *guard_rule_name(const struct guard_rule *r) {
	return r ? r->name : NULL;
}

static void rule_free(struct guard_rule *r) {
	fsn_ctx_free(r->ctx);
	policy_free(r->policy);
	free(r->marks);
	free(r->name);
	free(r);
}

void guard_rule_discard(struct guard_rule *r) {
	if (r && !r->handed)
		rule_free(r);
}

static void snapshot(struct guard_rule *r, struct guard_stats *ret);

static void rule_unref(struct guard_rule *r) {
	struct guard *g = r->g;
	struct guard_stats last;

	if (--r->refs > 0)
		return;
	pthread_mutex_lock(&g->lock);
	for (struct guard_rule **pp = &g->rules; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	snapshot(r, &last);
	pthread_mutex_unlock(&g->lock);
	/* its last counters, unless a rule of the same name carries them on */
	if (!r->stats_handed)
		report_push(g, &(struct guard_report){ .kind = GUARD_REPORT_STATS,
						       .rule = r->name,
						       .time_usec = now_realtime_usec(),
						       .uid = (uid_t)-1,
						       .stats = last });
	rule_free(r);
}

/* The group's queue answered by the old policy, then its marks gone and the
 * group closed; decisions still waiting keep the group open until answered.
 * The queue comes first: the last mark's removal takes the group out of its
 * context, and what the group still held would then be answered FAN_ALLOW
 * (by libfsn, or by the kernel at the close), so an open that waited since
 * before a reload was let through by neither policy (a thread that did not
 * run between that open and the commit reads both at once, and libev runs
 * the commit first). What is queued after the last read came after the new
 * state's marks were placed (guard_commit() follows them): the kernel asks
 * the new rules' groups too, so the close's allow leaves it to them. */
static void rule_retire(struct guard_rule *r) {
	struct guard *g = r->g;

	ev_io_stop(g->loop, &r->io);
	while (dispatch(r) > 0)
		; /* everything queued, answered by this rule's policy */
	if (fsn_ctx_fd_starved(r->ctx))
		report_log(g, r->name, LOG_WARNING,
			   "rule '%s' retired with permission events it had no free file "
			   "descriptor to read (RLIMIT_NOFILE): the kernel allows them",
			   r->name);
	for (size_t i = 0; i < r->n_marks; i++)
		fsn_ctx_remove_mark(r->ctx, r->marks[i]);
	r->n_marks = 0;
	fsn_ctx_free(r->ctx);
	r->ctx = NULL;
	r->retired = true;
	rule_unref(r);
}

/* What to poll for a rule's events: its context's fd, or, when the
 * context's one source is its group (the usual case: a rule is a group),
 * the group's fd itself, which spares the kernel a nested epoll (the
 * context's) on every event. A rule's marks do not change once committed,
 * so neither does its group. */
static int rule_poll_fd(struct guard_rule *r) {
	struct fsn_group *first = fsn_ctx_next_group(r->ctx, NULL);

	if (first && !fsn_ctx_next_group(r->ctx, first) && !fsn_ctx_has_inotify(r->ctx))
		return fsn_group_get_fd(first);
	return fsn_ctx_get_fd(r->ctx);
}

static void do_commit(struct guard *g, struct cmd *c) {
	struct guard_rule *retiring = NULL, *next;

	/* new rules start (their marks are in the kernel already) */
	for (size_t i = 0; i < c->n; i++) {
		struct guard_rule *r = c->rules[i];

		if (r->policy != c->policies[i]) {
			policy_free(r->policy);
			r->policy = c->policies[i];
		}
		if (r->refs > 0)
			continue; /* kept */
		r->refs = 1;
		/* (nothing read yet: it cannot fail) */
		(void)fsn_ctx_set_fd_budget(r->ctx, g->budget);
		ev_io_init(&r->io, on_io, rule_poll_fd(r), EV_READ);
		r->io.data = r;
		ev_io_start(g->loop, &r->io);
	}
	/* gone ones retire */
	pthread_mutex_lock(&g->lock);
	for (struct guard_rule *r = g->rules; r; r = r->next) {
		bool listed = false;

		for (size_t i = 0; i < c->n && !listed; i++)
			listed = c->rules[i] == r;
		if (!listed && !r->retired && r->ctx) {
			r->retired = true; /* (marked now; retired below, unlocked) */
			r->retire_next = retiring;
			retiring = r;
		}
	}
	pthread_mutex_unlock(&g->lock);
	for (struct guard_rule *r = retiring; r; r = next) {
		next = r->retire_next;
		/* a new rule of the same name continues its counters */
		for (size_t i = 0; i < c->n; i++)
			if (!c->rules[i]->committed && strcmp(c->rules[i]->name, r->name) == 0) {
				dispatch(r); /* its queue first, so those count too */
				pthread_mutex_lock(&g->lock);
				c->rules[i]->stats = r->stats;
				c->rules[i]->stats.pending = 0;
				memcpy(c->rules[i]->hist, r->hist, sizeof(r->hist));
				for (unsigned b = 0; b <= GUARD_LATENCY_BOUNDS; b++)
					atomic_store_explicit(
					    &c->rules[i]->lat[b],
					    atomic_load_explicit(&r->lat[b], memory_order_relaxed),
					    memory_order_relaxed);
				atomic_store_explicit(
				    &c->rules[i]->lat_sum_us,
				    atomic_load_explicit(&r->lat_sum_us, memory_order_relaxed),
				    memory_order_relaxed);
				r->stats_handed = true;
				pthread_mutex_unlock(&g->lock);
			}
		rule_retire(r);
	}
	pthread_mutex_lock(&g->lock);
	for (size_t i = 0; i < c->n; i++) {
		struct guard_rule *r = c->rules[i];

		if (r->committed)
			continue;
		r->committed = true;
		r->next = g->rules;
		g->rules = r;
	}
	pthread_mutex_unlock(&g->lock);
}

static void do_stop(struct guard *g) {
	struct guard_rule *list = NULL, *next;

	pthread_mutex_lock(&g->lock);
	for (struct guard_rule *r = g->rules; r; r = r->next)
		if (!r->retired) {
			r->retired = true;
			r->retire_next = list;
			list = r;
		}
	pthread_mutex_unlock(&g->lock);
	for (struct guard_rule *r = list; r; r = next) {
		next = r->retire_next;
		rule_retire(r);
	}
	while (g->pending)
		pending_finish(g->pending, true);
	ev_break(g->loop, EVBREAK_ALL);
}

static void on_wake(struct ev_loop *loop, ev_async *w, int revents) {
	struct guard *g = w->data;
	struct cmd *list, *next, *rev = NULL;

	pthread_mutex_lock(&g->lock);
	list = g->cmds;
	g->cmds = NULL;
	pthread_mutex_unlock(&g->lock);
	for (; list; list = next) { /* pushed at the head: reverse */
		next = list->next;
		list->next = rev;
		rev = list;
	}
	for (; rev; rev = next) {
		next = rev->next;
		if (rev->kind == CMD_COMMIT)
			do_commit(g, rev);
		else
			do_stop(g);
		free(rev->rules);
		free(rev->policies);
		free(rev);
	}
}

static void *guard_main(void *arg) {
	struct guard *g = arg;

	(void)pthread_setname_np(pthread_self(), GUARD_THREAD_NAME);
	ev_run(g->loop, 0);
	return NULL;
}

static int push_cmd(struct guard *g, struct cmd *c) {
	pthread_mutex_lock(&g->lock);
	c->next = g->cmds;
	g->cmds = c;
	pthread_mutex_unlock(&g->lock);
	ev_async_send(g->loop, &g->wake);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* public                                                                   */
/* ------------------------------------------------------------------------ */

int guard_new(struct ev_loop *main_loop, guard_report_fn fn, void *userdata, struct guard **ret) {
	struct guard *g = calloc(1, sizeof(*g));
	int k;

	if (!g)
		return -ENOMEM;
	g->self = getpid();
	/* 0 until the daemon has done its arithmetic: count free fds */
	if (fsn_fd_budget_new(0, &g->budget) < 0) {
		free(g);
		return -ENOMEM;
	}
	g->main_loop = main_loop;
	g->fn = fn;
	g->userdata = userdata;
	g->reports_tail = &g->reports;
	pthread_mutex_init(&g->lock, NULL);
	g->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOSIGMASK);
	if (!g->loop)
		g->loop = ev_loop_new(EVFLAG_NOSIGMASK);
	if (!g->loop) {
		pthread_mutex_destroy(&g->lock);
		fsn_fd_budget_unref(g->budget);
		free(g);
		return -ENOMEM;
	}
	ev_async_init(&g->wake, on_wake);
	g->wake.data = g;
	ev_async_start(g->loop, &g->wake);
	ev_async_init(&g->reports_async, on_reports);
	g->reports_async.data = g;
	ev_async_start(main_loop, &g->reports_async);
	ev_unref(main_loop); /* it alone does not keep the main loop running */

	k = -thread_start(&g->thread, guard_main, g);
	if (k != 0) {
		ev_ref(main_loop);
		ev_async_stop(main_loop, &g->reports_async);
		ev_loop_destroy(g->loop);
		pthread_mutex_destroy(&g->lock);
		fsn_fd_budget_unref(g->budget);
		free(g);
		return -k;
	}
	g->started = true;
	*ret = g;
	return 0;
}

struct guard *guard_free(struct guard *g) {
	struct cmd *c;

	if (!g)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c) {
		c->kind = CMD_STOP;
		push_cmd(g, c);
	} else
		ev_break(g->loop, EVBREAK_ALL); /* (not thread-safe; last resort) */
	pthread_join(g->thread, NULL);
	deliver_reports(g);
	ev_ref(g->main_loop);
	ev_async_stop(g->main_loop, &g->reports_async);
	ev_loop_destroy(g->loop);
	while (g->rules) {
		struct guard_rule *r = g->rules;

		g->rules = r->next;
		rule_free(r);
	}
	pthread_mutex_destroy(&g->lock);
	fsn_fd_budget_unref(g->budget);
	free(g);
	return NULL;
}

void guard_set_fd_budget(struct guard *g, unsigned max) {
	if (g)
		(void)fsn_fd_budget_set_max(g->budget, max);
}

void guard_get_fd_budget(const struct guard *g, unsigned *ret_max, unsigned *ret_held) {
	*ret_max = g ? fsn_fd_budget_get_max(g->budget) : 0;
	*ret_held = g ? fsn_fd_budget_get_held(g->budget) : 0;
}

unsigned guard_fd_budget_of(uint64_t limit, const struct guard_fd_reserve *r) {
	uint64_t own = (uint64_t)r->open + r->clients + r->exec + r->state + r->mounts + r->hash +
		       r->pidfds + r->slack;

	if (limit <= own || limit - own < GUARD_FD_BUDGET_MIN)
		return 0;
	return limit - own > UINT_MAX ? UINT_MAX : (unsigned)(limit - own);
}

int guard_commit(struct guard *g, struct guard_rule **rules, struct policy **policies, size_t n) {
	struct cmd *c = calloc(1, sizeof(*c));

	if (c) {
		c->rules = calloc(n + 1, sizeof(*c->rules));
		c->policies = calloc(n + 1, sizeof(*c->policies));
	}
	if (!c || !c->rules || !c->policies) {
		if (c) {
			free(c->rules);
			free(c->policies);
		}
		free(c);
		for (size_t i = 0; i < n; i++)
			policy_free(policies[i]);
		return -ENOMEM;
	}
	c->kind = CMD_COMMIT;
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		c->rules[i] = rules[i];
		c->policies[i] = policies[i];
		/* the thread logs through reports, never through the main
		 * thread's callback */
		if (!rules[i]->handed) {
			rules[i]->g = g;
			rules[i]->handed = true;
			fsn_ctx_set_log(rules[i]->ctx, NULL, NULL);
		}
	}
	return push_cmd(g, c);
}

bool guard_stats(struct guard *g, const char *name, struct guard_stats *ret) {
	bool found = false;

	if (!g || !name)
		return false;
	pthread_mutex_lock(&g->lock);
	for (struct guard_rule *r = g->rules; r && !found; r = r->next) {
		if (r->retired || strcmp(r->name, name) != 0)
			continue;
		found = true;
		snapshot(r, ret);
	}
	pthread_mutex_unlock(&g->lock);
	return found;
}

bool guard_stalled(struct guard *g, uint64_t limit_usec) {
	uint64_t since = g ? atomic_load(&g->busy_since) : 0;

	return since != 0 && now_monotonic_usec() - since > limit_usec;
}
