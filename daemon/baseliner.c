/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * baseliner.c — the baseline thread (baseliner.h).
 *
 * Jobs go to the thread through a list under a lock; what it finds comes
 * back through another, and an ev_async wakes the loop. The thread posts a
 * difference and goes on; before it commits, it waits until the loop has
 * handed out everything posted (flush), and it waits too while more than
 * RESULTS_MAX wait for the loop (a bounded queue). At the stop the loop no
 * longer takes results: a scan is cancelled (its differences were not
 * committed, so the next start finds them again), the syncs queued are
 * done, for at most STOP_SEC.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "baseliner.h"
#include "log.h"
#include "pathset.h"
#include "util.h"

#define NICE 10
#define RESULTS_MAX 1024
#define SYNC_MAX 262144 /* paths a rule's syncs queued hold at most */
#define STOP_SEC 5

enum job_kind { JOB_SCAN, JOB_SYNC, JOB_FORGET, JOB_LOOKUP };

struct job {
	struct job *next;
	enum job_kind kind;
	/* the rule (scan, sync, lookup: its name), copied: rule's strings are
	 * name, paths and exclude, the job's */
	struct baseline_rule rule;
	char *name;
	char **paths, **exclude;
	const char *reason;
	char **args;    /* sync: its paths; forget: the rules kept; lookup: the path */
	uint64_t token; /* lookup: the loop's */
	bool *self;     /* sync: the object only, per path (NULL: none) */
	size_t n_args;
};

struct result {
	struct result *next;
	bool done;  /* a job's end, else a difference */
	bool found; /* a lookup's end (now: what was found) */
	uint64_t token;
	char *rule;
	const char *reason, *change, *job;
	struct baseline_object before, now;
	bool has_before, has_now;
	/* done */
	int r;
	struct baseline_result res;
	char err[1024];
	bool replaced;
};

struct baseliner {
	struct ev_loop *loop;
	baseliner_diff_fn diff;
	baseliner_done_fn done;
	baseliner_found_fn found;
	void *userdata;
	char *state_dir;

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *jobs, **jobs_tail;
	struct result *results, **results_tail;
	uint64_t posted, taken; /* results (the thread's, the loop's) */
	bool draining;          /* stopping: scans cancelled, syncs done */
	bool stop;              /* stopped: every walk ends */
	bool scanning;          /* the job running is a scan */
	volatile bool cancel;   /* the walk running ends (baseline_set_stop()) */
	ev_async async;
	uint64_t disk_bytes;

	/* the thread's */
	struct baseline *db;
	bool replaced; /* the database was made anew: said with the next job's end */
	char replaced_why[1024];
};

static void job_free(struct job *j) {
	free(j->name);
	strv_free(j->paths, j->rule.n_paths);
	strv_free(j->exclude, j->rule.n_exclude);
	strv_free(j->args, j->n_args);
	free(j->self);
	free(j);
}

static void result_free(struct result *x) {
	free(x->rule);
	baseline_object_clear(&x->before);
	baseline_object_clear(&x->now);
	free(x);
}

/* ---- the thread ---- */

/* x to the loop; then, unless at the end of a job, wait while the loop is
 * far behind. Under the lock. */
static void post(struct baseliner *b, struct result *x) {
	x->next = NULL;
	*b->results_tail = x;
	b->results_tail = &x->next;
	b->posted++;
	ev_async_send(b->loop, &b->async);
	while (!x->done && !b->draining && b->posted - b->taken > RESULTS_MAX)
		pthread_cond_wait(&b->cond, &b->lock);
}

static int object_copy(struct baseline_object *to, const struct baseline_object *from) {
	*to = *from;
	to->path = to->target = NULL;
	if (!(to->path = strdup(from->path)) ||
	    (from->target && !(to->target = strdup(from->target))))
		return -ENOMEM;
	return 0;
}

struct scan_ctx {
	struct baseliner *b;
	const struct job *j;
};

static int on_diff(void *userdata, const struct baseline_diff *d) {
	struct scan_ctx *c = userdata;
	struct baseliner *b = c->b;
	struct result *x = calloc(1, sizeof(*x));
	int r = 0;

	if (!x || !(x->rule = strdup(c->j->name)))
		r = -ENOMEM;
	if (r == 0) {
		x->reason = c->j->reason;
		x->change = d->change; /* (static) */
		x->has_before = d->before != NULL;
		x->has_now = d->now != NULL;
		if ((d->before && object_copy(&x->before, d->before) < 0) ||
		    (d->now && object_copy(&x->now, d->now) < 0))
			r = -ENOMEM;
	}
	if (r < 0) {
		if (x)
			result_free(x);
		return r;
	}
	pthread_mutex_lock(&b->lock);
	if (b->draining) {
		pthread_mutex_unlock(&b->lock);
		result_free(x);
		return -ECANCELED;
	}
	post(b, x);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* Everything posted was handed out by the loop: the database may record it. */
static int on_flush(void *userdata) {
	struct baseliner *b = ((struct scan_ctx *)userdata)->b;
	int r;

	pthread_mutex_lock(&b->lock);
	while (!b->draining && b->taken < b->posted)
		pthread_cond_wait(&b->cond, &b->lock);
	r = b->draining ? -ECANCELED : 0;
	pthread_mutex_unlock(&b->lock);
	return r;
}

/* The database open, made (and the state directory, 0700) when missing;
 * made anew when fresh (a scan found it corrupt). */
static int db_open(struct baseliner *b, bool fresh, char *err, size_t errlen) {
	bool replaced = false;
	int r;

	if (b->db && !fresh)
		return 0;
	b->db = baseline_close(b->db);
	r = baseline_open(b->state_dir, fresh, &b->db, &replaced, err, errlen);
	if (r == 0 && replaced) {
		b->replaced = true;
		snprintf(b->replaced_why, sizeof(b->replaced_why), "%s", err);
	}
	if (r == 0)
		baseline_set_stop(b->db, &b->cancel);
	return r;
}

static void run_job(struct baseliner *b, struct job *j, struct result *x) {
	struct pathset excl = { 0 };
	struct baseline_rule rule = j->rule;
	struct scan_ctx c = { .b = b, .j = j };
	int r = baseline_rule_excl(&rule, &excl);

	if (r == 0)
		r = db_open(b, false, x->err, sizeof(x->err));
	for (int attempt = 0; r == 0 && attempt < 2; attempt++) {
		if (j->kind == JOB_SCAN)
			r = baseline_scan(b->db, &rule, BASELINE_UPDATE, on_diff, on_flush, &c,
					  &x->res, x->err, sizeof(x->err));
		else if (j->kind == JOB_SYNC)
			r = baseline_sync(b->db, &rule, j->args, j->self, j->n_args, x->err,
					  sizeof(x->err));
		else if (j->kind == JOB_FORGET)
			r = baseline_forget_others(b->db, j->args, j->n_args);
		else {
			char *found = NULL;

			r = baseline_lookup(b->db, j->name, j->args[0], &x->now, &found);
			x->has_now = r == 1;
			if (found) {
				free(x->rule);
				x->rule = found;
			}
		}
		if (r != -EBADMSG || attempt > 0)
			break;
		/* corrupt: set aside, made anew (this rule's baseline too) */
		r = db_open(b, true, x->err, sizeof(x->err));
	}
	x->r = r;
	if (b->replaced) {
		x->replaced = true;
		snprintf(x->err, sizeof(x->err), "%s", b->replaced_why);
		b->replaced = false;
	}
	pathset_done(&excl);
}

static void *baseliner_main(void *arg) {
	struct baseliner *b = arg;

	(void)pthread_setname_np(pthread_self(), BASELINER_THREAD_NAME);
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), NICE);
	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct job *j;
		struct result *x;

		while (!b->stop && !b->jobs && !b->draining)
			pthread_cond_wait(&b->cond, &b->lock);
		if (b->stop || !(j = b->jobs))
			break;
		b->jobs = j->next;
		if (!b->jobs)
			b->jobs_tail = &b->jobs;
		if (b->draining && j->kind == JOB_SCAN) {
			job_free(j);
			continue;
		}
		b->scanning = j->kind == JOB_SCAN;
		b->cancel = b->stop;
		pthread_mutex_unlock(&b->lock);

		x = calloc(1, sizeof(*x));
		if (x) {
			x->done = true;
			x->rule = j->name ? strdup(j->name) : NULL;
			x->job = j->kind == JOB_SCAN     ? "scan"
				 : j->kind == JOB_SYNC   ? "sync"
				 : j->kind == JOB_FORGET ? "forget"
							 : "lookup";
			x->found = j->kind == JOB_LOOKUP;
			x->token = j->token;
			x->reason = j->reason;
			run_job(b, j, x);
		}
		job_free(j);

		pthread_mutex_lock(&b->lock);
		b->disk_bytes = baseline_disk_bytes(b->db);
		if (x)
			post(b, x);
	}
	pthread_mutex_unlock(&b->lock);
	b->db = baseline_close(b->db);
	return NULL;
}

/* ---- the loop ---- */

static void on_results(struct ev_loop *loop, ev_async *w, int revents) {
	struct baseliner *b = w->data;
	struct result *list, *x;
	uint64_t n = 0;

	(void)loop;
	(void)revents;
	pthread_mutex_lock(&b->lock);
	list = b->results;
	b->results = NULL;
	b->results_tail = &b->results;
	pthread_mutex_unlock(&b->lock);
	for (; (x = list); n++) {
		list = x->next;
		if (x->found)
			b->found(b->userdata, x->token, x->r, x->rule, x->has_now ? &x->now : NULL);
		else if (x->done)
			b->done(b->userdata, x->rule, x->job, x->reason, x->r, &x->res,
				x->err[0] ? x->err : NULL, x->replaced);
		else {
			struct baseline_diff d = {
				.change = x->change,
				.old_path =
				    strcmp(x->change, "renamed") == 0 ? x->before.path : NULL,
				.before = x->has_before ? &x->before : NULL,
				.now = x->has_now ? &x->now : NULL,
			};

			b->diff(b->userdata, x->rule, x->reason, &d);
		}
		result_free(x);
	}
	pthread_mutex_lock(&b->lock);
	b->taken += n;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

int baseliner_new(struct ev_loop *loop, const char *state_dir, baseliner_diff_fn diff,
		  baseliner_done_fn done, baseliner_found_fn found, void *userdata,
		  struct baseliner **ret) {
	struct baseliner *b = calloc(1, sizeof(*b));
	int r;

	if (!b || !(b->state_dir = strdup(state_dir))) {
		free(b);
		return -ENOMEM;
	}
	b->loop = loop;
	b->diff = diff;
	b->done = done;
	b->found = found;
	b->userdata = userdata;
	b->jobs_tail = &b->jobs;
	b->results_tail = &b->results;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	ev_async_init(&b->async, on_results);
	b->async.data = b;
	ev_async_start(loop, &b->async);
	ev_unref(loop); /* (the thread alone keeps no loop running) */
	r = thread_start(&b->thread, baseliner_main, b);
	if (r < 0) {
		(void)baseliner_free(b);
		return r;
	}
	b->started = true;
	*ret = b;
	return 0;
}

/* Wait for the thread until STOP_SEC from now: true if it ended. */
static bool join_within(struct baseliner *b) {
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += STOP_SEC;
	return pthread_timedjoin_np(b->thread, NULL, &until) == 0;
}

struct baseliner *baseliner_free(struct baseliner *b) {
	struct result *x;

	if (!b)
		return NULL;
	pthread_mutex_lock(&b->lock);
	b->draining = true;
	b->cancel = b->scanning; /* (a scan ends where it is) */
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	if (b->started && !join_within(b)) {
		/* the syncs took too long: walks end where they are */
		pthread_mutex_lock(&b->lock);
		b->stop = b->cancel = true;
		pthread_cond_broadcast(&b->cond);
		pthread_mutex_unlock(&b->lock);
		if (!join_within(b)) {
			log_warning("the baseline thread did not stop within %d s: left behind",
				    2 * STOP_SEC);
			return NULL;
		}
	}
	/* the ends of jobs said (the log); differences not handed out were
	 * not recorded: the next start finds them again */
	while ((x = b->results)) {
		b->results = x->next;
		/* (a lookup's asker may be gone: the control socket stops first;
		 * it is not answered) */
		if (x->done && !x->found)
			b->done(b->userdata, x->rule, x->job, x->reason, x->r, &x->res,
				x->err[0] ? x->err : NULL, x->replaced);
		result_free(x);
	}
	while (b->jobs) {
		struct job *j = b->jobs;

		b->jobs = j->next;
		job_free(j);
	}
	ev_ref(b->loop);
	ev_async_stop(b->loop, &b->async);
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	free(b->state_dir);
	free(b);
	return NULL;
}

/* A job that another still queued for the same rule does (a scan, the
 * scan of a rule already queued) or can take (a sync, its paths, up to
 * SYNC_MAX: beyond, the rule is compared as after a loss): freed, true.
 * Under the lock; what is queued is bounded so. */
static bool merged(struct baseliner *b, struct job *j) {
	struct job *q;

	if (!j->name || (j->kind != JOB_SCAN && j->kind != JOB_SYNC))
		return false;
	for (q = b->jobs; q; q = q->next)
		if ((q->kind == j->kind || (q->kind == JOB_SCAN && j->kind == JOB_SYNC &&
					    q->reason && strcmp(q->reason, "overflow") == 0)) &&
		    q->name && strcmp(q->name, j->name) == 0)
			break;
	if (!q)
		return false;
	if (q->kind == JOB_SYNC && q->n_args + j->n_args > SYNC_MAX) {
		strv_free(q->args, q->n_args);
		free(q->self);
		q->args = NULL;
		q->self = NULL;
		q->n_args = 0;
		q->kind = JOB_SCAN;
		q->reason = "overflow";
	} else if (q->kind == JOB_SYNC) {
		char **a = realloc(q->args, (q->n_args + j->n_args) * sizeof(*a));
		bool *f = a && (q->self || j->self)
			      ? realloc(q->self, (q->n_args + j->n_args) * sizeof(*f))
			      : NULL;

		if (!a || ((q->self || j->self) && !f)) {
			if (a)
				q->args = a;
			return false; /* (queued as its own) */
		}
		q->args = a;
		if (f) {
			if (!q->self)
				memset(f, 0, q->n_args * sizeof(*f));
			for (size_t i = 0; i < j->n_args; i++)
				f[q->n_args + i] = j->self && j->self[i];
			q->self = f;
		}
		memcpy(q->args + q->n_args, j->args, j->n_args * sizeof(*a));
		q->n_args += j->n_args;
		free(j->args); /* (its strings are q's now) */
		j->args = NULL;
		j->n_args = 0;
	}
	job_free(j);
	return true;
}

static int queue(struct baseliner *b, enum job_kind kind, const struct baseline_rule *r,
		 const char *reason, char *const *args, const bool *self, size_t n,
		 uint64_t token) {
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->kind = kind;
	j->reason = reason;
	j->token = token;
	if (r) {
		j->rule = *r;
		j->rule.name = j->name = strdup(r->name);
		j->rule.paths = j->paths = strv_copy(r->paths, r->n_paths);
		j->rule.exclude = j->exclude = strv_copy(r->exclude, r->n_exclude);
		j->rule.excl = NULL; /* (the thread's own: run_job()) */
	}
	j->args = strv_copy(args, n);
	j->n_args = n;
	if (self && (j->self = malloc(n * sizeof(*self) + 1)))
		memcpy(j->self, self, n * sizeof(*self));
	if ((r && (!j->name || (!j->paths && r->n_paths) || (!j->exclude && r->n_exclude))) ||
	    (!j->args && n) || (self && !j->self)) {
		job_free(j);
		return -ENOMEM;
	}
	pthread_mutex_lock(&b->lock);
	if (!merged(b, j)) {
		*b->jobs_tail = j;
		b->jobs_tail = &j->next;
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
	return 0;
}

int baseliner_scan(struct baseliner *b, const struct baseline_rule *r, const char *reason) {
	/* after a loss the syncs of the rule still queued go: a sync records
	 * what is there, also what happened in the gap, which only the scan
	 * reports */
	if (strcmp(reason, "overflow") == 0) {
		struct job **p;

		pthread_mutex_lock(&b->lock);
		for (p = &b->jobs; *p;) {
			struct job *j = *p;

			if (j->kind == JOB_SYNC && strcmp(j->name, r->name) == 0) {
				*p = j->next;
				job_free(j);
			} else
				p = &j->next;
		}
		b->jobs_tail = p;
		pthread_mutex_unlock(&b->lock);
	}
	return queue(b, JOB_SCAN, r, reason, NULL, NULL, 0, 0);
}

int baseliner_sync(struct baseliner *b, const struct baseline_rule *r, char *const *paths,
		   const bool *self, size_t n) {
	return queue(b, JOB_SYNC, r, NULL, paths, self, n, 0);
}

int baseliner_forget(struct baseliner *b, char *const *keep, size_t n) {
	return queue(b, JOB_FORGET, NULL, NULL, keep, NULL, n, 0);
}

int baseliner_lookup(struct baseliner *b, const char *rule, const char *path, uint64_t token) {
	struct baseline_rule r = { .name = rule };
	char *const args[] = { (char *)path };

	return queue(b, JOB_LOOKUP, rule ? &r : NULL, NULL, args, NULL, 1, token);
}

uint64_t baseliner_disk_bytes(const struct baseliner *b) {
	uint64_t n;

	pthread_mutex_lock((pthread_mutex_t *)&b->lock);
	n = b->disk_bytes;
	pthread_mutex_unlock((pthread_mutex_t *)&b->lock);
	return n;
}
