/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsnotifyd.c — the daemon's entry point: options, --check-config and
 * --explain, and the runtime around the engine: the libev loop, signals
 * (TERM/INT stop, HUP reload, USR1 reopen outputs), systemd notification
 * (READY, RELOADING, STOPPING, STATUS, WATCHDOG) and the start, stop and
 * reload log entries. Everything between the kernel and the outputs is
 * the engine's (engine.h: engine.c and the pieces it names).
 */
#include <errno.h>
#include <fcntl.h>
#include <ev.h>
#include <getopt.h>
#include <linux/capability.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "control.h"
#include "config.h"
#include "engine.h"
#include "fsn-uapi.h"
#include "fsn.h"
#include "log.h"
#include "origin.h"
#include "plan-costs.h"
#include "plan.h"
#include "util.h"

#define DEFAULT_CONFIG FSN_SYSCONFDIR "/fsnotifyd/fsnotifyd.conf"

/* Exit statuses (fsnotifyd(8)): 0, 1 (EXIT_FAILURE: invalid configuration,
 * a required rule cannot be placed, other failures; --baseline-check:
 * differences), 2 (bad options; --baseline-check, --baseline-init: an
 * error), 3 (--check-config: valid, but some paths of rules that are not
 * required cannot be placed here). */
#define EXIT_USAGE 2
#define EXIT_PROBLEMS 3
/* STATUS= text: counters, plus a part per permission rule */
#define STATUS_MAX 4096

/* While a start or reload goes on, EXTEND_TIMEOUT_USEC is sent every
 * EXTEND_EVERY s (if it made progress since) for EXTEND_USEC more. */
#define EXTEND_EVERY 2.0
#define EXTEND_USEC 10000000ull

struct daemon {
	struct ev_loop *loop;
	struct engine *engine;
	struct control *control; /* the control socket, once the first config runs */
	const char *config_path;
	ev_signal sig_term, sig_int, sig_hup, sig_usr1;
	ev_timer watchdog, status, extend;
	ev_check check;
	bool started;          /* the first load is done: READY=1 was sent */
	bool loading;          /* a start or reload of ours runs (engine_load()) */
	bool reload_pending;   /* SIGHUP during a load: reload once it is done */
	int start_r;           /* the first load failed: its -errno */
	uint64_t extended_at;  /* engine_load_progress() when last extended */
	uint64_t load_started; /* monotonic us */
	uint64_t iterations;   /* loop iterations (ev_check), for the watchdog */
	uint64_t fed_at;       /* iterations when the watchdog was last fed */
	bool stall_logged;     /* the permission thread's stall was logged */
	int stop_signal;
};

static void help(void) {
	printf("Usage: fsnotifyd [OPTIONS]\n\n"
	       "Filesystem watching daemon (fanotify and inotify): watches what the rules of\n"
	       "its configuration name and reports events to the journal, JSON lines or\n"
	       "commands.\n\n"
	       "  -c, --config FILE         configuration file (default %s)\n"
	       "      --check-config [FILE] validate the configuration, print the plan (per\n"
	       "                            rule: its marks by filesystem, type and mask, with\n"
	       "                            examples and why) and exit: 0 valid, 1 not, 3\n"
	       "                            valid but some rules cannot be placed here\n"
	       "      --explain [FILE]      like --check-config, per rule, with what its marks\n"
	       "                            cost a write, an open and a read (figures of\n"
	       "                            fsn-bench hooks shipped with fsnotifyd)\n"
	       "      --measure             with --explain: measure those costs on this\n"
	       "                            machine now (fsn-bench hooks --quick, a few\n"
	       "                            seconds)\n"
	       "      --baseline-check[=RULE]  compare the rules with baseline (or RULE) with\n"
	       "                            their baselines in state_directory without running\n"
	       "                            the daemon: each difference a JSON line on stdout,\n"
	       "                            nothing recorded; exit 0 none, 1 differences, 2 an\n"
	       "                            error\n"
	       "      --baseline-init[=RULE]   make their baselines anew from what is there\n"
	       "                            (first deployment; after a change that is meant)\n"
	       "  -v, --verbose             with --check-config: every mark on a line\n"
	       "  -f, --foreground          also print events human-readably on stdout\n"
	       "  -h, --help                show this help\n"
	       "      --version             show the version\n\n"
	       "Signals: HUP reloads the configuration, USR1 reopens output files, TERM and\n"
	       "INT stop. See fsnotifyd(8) and fsnotifyd.conf(5).\n",
	       DEFAULT_CONFIG);
}

/* Load path; on failure every error is logged and *why says the first. */
static int load_config(const char *path, struct config **ret, char *why, size_t whylen) {
	struct config_errors errs = { 0 };
	int r;

	r = config_load(path, ret, &errs);
	if (r < 0) {
		for (size_t i = 0; i < errs.n; i++) {
			const struct config_error *e = &errs.v[i];

			if (e->line > 0)
				log_error("%s:%d: %s", e->file ? e->file : "?", e->line, e->msg);
			else
				log_error("%s: %s", e->file ? e->file : "?", e->msg);
		}
		if (errs.n == 0)
			log_error("%s: %s", path, strerror(-r));
		if (errs.n > 0)
			config_errors_first(&errs, why, whylen);
		else
			snprintf(why, whylen, "%s: %s", path, strerror(-r));
	}
	config_errors_clear(&errs);
	return r;
}

/* ------------------------------------------------------------------------ */
/* --check-config, --explain                                                */
/* ------------------------------------------------------------------------ */

/* A program root may run: owned by root (or this user) and writable by no
 * one else, nor is its directory. */
static bool trusted_program(const char *path) {
	char dir[PATH_MAX], *slash;
	struct stat st;
	uid_t me = geteuid();

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    !(slash = strrchr(dir, '/')))
		return false;
	*slash = '\0';
	for (int i = 0; i < 2; i++) {
		if (stat(i == 0 ? path : (dir[0] ? dir : "/"), &st) < 0 ||
		    (st.st_uid != 0 && st.st_uid != me) || (st.st_mode & (S_IWGRP | S_IWOTH)))
			return false;
	}
	return access(path, X_OK) == 0;
}

/* fsn-bench for --explain --measure: next to this program (the build
 * tree's bench/, or the same directory), else where it is installed; never
 * from PATH (root runs it), and only a program no other user can change. */
static int find_fsn_bench(char *buf, size_t len) {
	if (exe_relative("../bench/fsn-bench", buf, len) == 0 && trusted_program(buf))
		return 0;
	if (exe_relative("fsn-bench", buf, len) == 0 && trusted_program(buf))
		return 0;
	if ((size_t)snprintf(buf, len, "%s/fsn-bench", FSN_BINDIR) < len && trusted_program(buf))
		return 0;
	return -ENOENT;
}

/* A line of --check-config's verdict; with --explain wrapped to 80
 * columns like the plan above it. */
__attribute__((format(printf, 2, 3))) static void verdict_line(bool explain, const char *fmt, ...) {
	char line[2 * PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (explain)
		text_wrap(stdout, line, 80);
	else
		printf("%s\n", line);
}

/* --baseline-check, --baseline-init: the exit status (0, 1, 2). */
static int baseline_run(const char *path, const char *rule, bool init) {
	struct config *c = NULL;
	char why[1024];
	int r;

	if (load_config(path, &c, why, sizeof(why)) < 0) {
		fprintf(stderr, "fsnotifyd: %s: invalid configuration\n", path);
		return 2;
	}
	log_set_level(c->log_level < LOG_INFO ? LOG_INFO : c->log_level);
	r = baseline_oneshot(c, rule, init);
	config_free(c);
	return r;
}

static int check_config(const char *path, bool explain, bool measure, bool verbose) {
	struct config *c = NULL;
	struct plan *p = NULL;
	char why[1024];
	size_t fatal = 0, unplaced = 0;
	int foreign = engine_mntns_foreign();
	int r;

	r = load_config(path, &c, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "fsnotifyd: %s: invalid configuration\n", path);
		return r;
	}
	r = plan_build(c, &p);
	if (r < 0) {
		fprintf(stderr, "fsnotifyd: planning the rules: %s\n", strerror(-r));
		config_free(c);
		return r;
	}
	if (explain) {
		struct hook_costs hc;
		char bench[PATH_MAX], err[PATH_MAX + 128];

		r = -ENOENT;
		if (measure && find_fsn_bench(bench, sizeof(bench)) < 0)
			fprintf(stderr,
				"fsnotifyd: --measure: no fsn-bench next to fsnotifyd or in %s "
				"(Debian package fsn-tools): the shipped figures instead\n",
				FSN_BINDIR);
		else if (measure) {
			fprintf(stderr, "fsnotifyd: measuring the hook costs: %s hooks --quick\n",
				bench);
			r = hook_costs_measure(bench, &hc, err, sizeof(err));
			if (r < 0)
				fprintf(stderr,
					"fsnotifyd: --measure: %s: the shipped figures instead\n",
					err);
		}
		if (r < 0 && hook_costs_builtin(&hc) < 0)
			hc = (struct hook_costs){ .source = "(no figures)" };
		plan_print_costs(p, &hc, 80, stdout);
	} else if (verbose)
		plan_print(p, stdout);
	else
		plan_print_summary(p, stdout);
	for (size_t i = 0; i < p->n_problems; i++) {
		if (p->problems[i].fatal)
			fatal++;
		if (!p->problems[i].warning)
			unplaced++;
	}
	for (size_t i = 0; i < p->n_marks; i++) {
		const struct plan_mark *pm = &p->marks[i];

		if (pm->spec.type == FSN_MARK_MOUNT && foreign == 1) {
			verdict_line(explain,
				     "problem: rule '%s': mount mark on %s: fsnotifyd runs in a "
				     "mount namespace of its own (shared neither with PID 1 nor "
				     "with its parent): the daemon will refuse it",
				     pm->rule->name, pm->path);
			if (pm->rule->required)
				fatal++;
			unplaced++;
		}
	}
	verdict_line(explain, "%s: %s (%zu rules, %zu marks planned, %zu problems%s)", path,
		     fatal      ? "NOT valid"
		     : unplaced ? "valid, but some rules cannot be placed here"
				: "valid",
		     c->n_rules, p->n_marks, p->n_problems, fatal ? ", fatal" : "");
	plan_free(p);
	config_free(c);
	return fatal ? -EINVAL : unplaced ? EXIT_PROBLEMS : 0;
}

/* ------------------------------------------------------------------------ */
/* runtime                                                                  */
/* ------------------------------------------------------------------------ */

static void notify_status(struct daemon *d, const char *extra) {
	char status[STATUS_MAX];

	engine_status(d->engine, status, sizeof(status));
	sd_notifyf(0, "%sSTATUS=%s", extra ? extra : "", status);
}

static void restart_status_timer(struct daemon *d) {
	const struct config *c = engine_config(d->engine);

	ev_timer_stop(d->loop, &d->status);
	if (c && c->status_interval > 0) {
		ev_timer_set(&d->status, c->status_interval, c->status_interval);
		ev_timer_start(d->loop, &d->status);
	}
}

static void on_stop(struct ev_loop *loop, ev_signal *w, int revents) {
	struct daemon *d = w->data;

	d->stop_signal = w->signum;
	sd_notify(0, "STOPPING=1\nSTATUS=Stopping");
	ev_break(loop, EVBREAK_ALL);
}

static void start_load(struct daemon *d);
static void start_reload(struct daemon *d);
static int control_reload(void *userdata);

static void log_started(struct daemon *d) {
	char status[STATUS_MAX], fconf[PATH_MAX + 16];
	const char *fields[2] = { fconf, NULL };

	snprintf(fconf, sizeof(fconf), "FSN_CONFIG=%s", d->config_path);
	engine_status(d->engine, status, sizeof(status));
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	log_notable(LOG_INFO, FSND_MID_START, fields,
		    "started (version %s, pid %d) with %s: %zu rules, %u marks in %.3f s",
		    FSN_VERSION, (int)getpid(), d->config_path, engine_config(d->engine)->n_rules,
		    engine_n_marks(d->engine),
		    (double)(now_monotonic_usec() - d->load_started) / 1e6);
}

/* A start or reload is over (engine_load()'s callback). */
static void on_loaded(struct engine *e, int r, const char *why, void *userdata) {
	struct daemon *d = userdata;
	char fconf[PATH_MAX + 16], ferr[1100];
	const char *fields[3] = { fconf, NULL, NULL };

	d->loading = false;
	ev_timer_stop(d->loop, &d->extend);
	snprintf(fconf, sizeof(fconf), "FSN_CONFIG=%s", d->config_path);
	if (!d->started) {
		if (r < 0) {
			log_error("cannot start: %s", why);
			sd_notifyf(0, "STATUS=Failed to start: %s", why);
			d->start_r = r;
			ev_break(d->loop, EVBREAK_ALL);
			return;
		}
		d->started = true;
		log_set_level(engine_config(e)->log_level);
		restart_status_timer(d);
		{
			const struct control_hooks hooks = { .reload = control_reload,
							     .userdata = d };

			/* (without the socket the daemon runs: control_new() said why) */
			(void)control_new(d->loop, e, d->config_path, engine_config(e), &hooks,
					  &d->control);
		}
		log_started(d);
	} else if (r < 0) {
		snprintf(ferr, sizeof(ferr), "FSN_ERROR=%s", why);
		fields[1] = ferr;
		log_notable(LOG_ERR, FSND_MID_RELOAD_FAILED, fields,
			    "reload failed: %s; still running the previous configuration", why);
		notify_status(d, "READY=1\n");
		if (!d->reload_pending)
			control_reload_done(d->control, r, why);
	} else {
		const struct config *cur = engine_config(e);

		log_set_level(cur->log_level);
		restart_status_timer(d);
		log_notable(LOG_INFO, FSND_MID_RELOAD, fields,
			    "reloaded %s: %zu rules, %u marks in %.3f s", d->config_path,
			    cur->n_rules, engine_n_marks(e),
			    (double)(now_monotonic_usec() - d->load_started) / 1e6);
		notify_status(d, "READY=1\n");
		if (d->control)
			control_apply(d->control, cur);
		if (!d->reload_pending)
			control_reload_done(d->control, 0, NULL);
	}
	if (d->reload_pending) {
		d->reload_pending = false;
		start_reload(d);
	}
}

/* Reload asked for on the control socket: as SIGHUP (a load running: the
 * reload follows it, and the caller's answer waits for that one). */
static int control_reload(void *userdata) {
	struct daemon *d = userdata;

	if (d->loading)
		d->reload_pending = true;
	else
		start_reload(d);
	return 0;
}

/* A reload: systemd is told (so `systemctl reload` waits for READY=1). */
static void start_reload(struct daemon *d) {
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=Reloading %s",
		   now_monotonic_usec(), d->config_path);
	start_load(d);
}

/* Load the config (start or reload) off the loop; on_loaded() says how it
 * went. While it goes on, systemd's start/reload timeout is extended for
 * as long as it makes progress. */
static void start_load(struct daemon *d) {
	char why[256];
	int r;

	d->load_started = now_monotonic_usec();
	d->extended_at = engine_load_progress(d->engine);
	d->loading = true;
	origin_refresh(); /* the host's name, as records will say it */
	r = engine_load(d->engine, d->config_path, on_loaded, d);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot load %s: %s", d->config_path, strerror(-r));
		on_loaded(d->engine, r, why, d);
		return;
	}
	ev_timer_again(d->loop, &d->extend);
}

static void on_extend(struct ev_loop *loop, ev_timer *w, int revents) {
	struct daemon *d = w->data;
	uint64_t now = engine_load_progress(d->engine);

	if (now != d->extended_at)
		sd_notifyf(0, "EXTEND_TIMEOUT_USEC=%llu", (unsigned long long)EXTEND_USEC);
	d->extended_at = now;
}

static void on_reload(struct ev_loop *loop, ev_signal *w, int revents) {
	struct daemon *d = w->data;

	if (d->loading) {
		/* once the running load is done (during start: after READY=1) */
		if (!d->reload_pending)
			log_info("reload requested (SIGHUP) while %s: it follows",
				 d->started ? "reloading" : "starting");
		d->reload_pending = true;
		return;
	}
	start_reload(d);
}

static void on_reopen(struct ev_loop *loop, ev_signal *w, int revents) {
	struct daemon *d = w->data;

	log_info("reopening output files (SIGUSR1)");
	engine_reopen_outputs(d->engine);
}

static void on_check(struct ev_loop *loop, ev_check *w, int revents) {
	struct daemon *d = w->data;

	d->iterations++;
}

/* Fed only while the loop goes round: a loop stuck in a callback never
 * gets here, and one that made no iteration since the last feed does not
 * feed. */
static void on_watchdog(struct ev_loop *loop, ev_timer *w, int revents) {
	struct daemon *d = w->data;

	if (d->iterations == d->fed_at)
		return;
	if (engine_stalled(d->engine)) {
		if (!d->stall_logged)
			log_error("the permission thread is stuck in one decision: no longer "
				  "feeding the watchdog (systemd restarts the daemon; the kernel "
				  "releases every blocked process)");
		d->stall_logged = true;
		return;
	}
	d->stall_logged = false;
	d->fed_at = d->iterations;
	sd_notify(0, "WATCHDOG=1");
}

static void on_status(struct ev_loop *loop, ev_timer *w, int revents) {
	struct daemon *d = w->data;
	char status[STATUS_MAX];

	engine_report_perm_stats(d->engine);
	engine_status(d->engine, status, sizeof(status));
	sd_notifyf(0, "STATUS=%s", status);
	log_debug("status: %s", status);
}

static void log_rule_summary(const struct daemon *d) {
	const struct config *c = engine_config(d->engine);

	for (size_t i = 0; c && i < c->n_rules; i++) {
		const struct rule_stats *s = engine_rule_stats(d->engine, c->rules[i].name);

		if (s)
			log_info("rule '%s': %" PRIu64 " events reported, %" PRIu64
				 " filtered, %" PRIu64 " rate-limited, %" PRIu64 " overflows",
				 c->rules[i].name, s->events, s->filtered, s->ratelimited,
				 s->overflows);
	}
}

/* What the daemon can use a capability for (fsnotifyd(8)); every other one
 * it started with is dropped before it reads anything. */
static const int kept_caps[] = {
	CAP_SYS_ADMIN,       /* fanotify groups and marks */
	CAP_DAC_READ_SEARCH, /* marking any path; open_by_handle_at() for event paths */
	CAP_SYS_PTRACE,      /* /proc/PID/exe of other users' processes (decisions) */
	CAP_AUDIT_WRITE,     /* FAN_ENABLE_AUDIT groups (audit verdicts) */
	CAP_IPC_LOCK,        /* mlockall() for pre_access rules */
	CAP_SETUID,          /* exec outputs with user ... */
	CAP_SETGID,          /* ... and group */
	CAP_KILL,            /* a timed-out command running as another user */
};

/* Keep only kept_caps (permitted, effective, and the bounding set where
 * CAP_SETPCAP allows), none inheritable or ambient, and NoNewPrivs: the
 * daemon never needs to gain a privilege by execve(). */
static void drop_capabilities(void) {
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];
	uint64_t keep = 0, had;

	for (size_t i = 0; i < ELEMENTSOF(kept_caps); i++)
		keep |= UINT64_C(1) << kept_caps[i];
	if (syscall(SYS_capget, &head, caps) < 0) {
		log_warning("cannot read the daemon's capabilities: %s", strerror(errno));
		return;
	}
	had = caps[0].permitted | (uint64_t)caps[1].permitted << 32;
	/* the bounding set first: dropping from it needs CAP_SETPCAP, which
	 * goes with the rest */
	for (int cap = 0; cap < 64; cap++)
		if (!(keep & (UINT64_C(1) << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
		    errno == EINVAL)
			break; /* past the last capability this kernel knows */
	for (int w = 0; w < 2; w++) {
		uint32_t k = (uint32_t)(keep >> (32 * w));

		caps[w].permitted &= k;
		caps[w].effective &= k;
		caps[w].inheritable = 0;
	}
	if (syscall(SYS_capset, &head, caps) < 0)
		log_warning("cannot drop capabilities: %s", strerror(errno));
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		log_warning("cannot set NoNewPrivs: %s", strerror(errno));
	log_debug("capabilities: kept 0x%" PRIx64 " of 0x%" PRIx64, had & keep, had);
}

static int run_daemon(const char *config_path, bool foreground) {
	struct daemon d = { .config_path = config_path };
	char status[STATUS_MAX], fconf[PATH_MAX + 16];
	const char *fields[2] = { fconf, NULL };
	uint64_t wd_usec = 0;
	sigset_t sigs;
	int r;

	snprintf(fconf, sizeof(fconf), "FSN_CONFIG=%s", config_path);

	/* TERM, INT, HUP and USR1 are the loop's: blocked from the first moment
	 * (a HUP right after the exec must not kill the daemon), pending until
	 * their watchers are in place */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	/* a reader that went away must not kill the daemon: writes fail instead */
	signal(SIGPIPE, SIG_IGN);
	drop_capabilities();

	d.loop = ev_default_loop(EVFLAG_AUTO);
	if (!d.loop) {
		log_error("cannot create the event loop");
		return -ENOMEM;
	}
	r = engine_new(d.loop, &d.engine);
	if (r < 0) {
		log_error("cannot create the fanotify/inotify context: %s", strerror(-r));
		return r;
	}
	r = engine_set_foreground(d.engine, foreground);
	if (r < 0) {
		log_error("--foreground: %s", strerror(-r));
		engine_free(d.engine);
		return r;
	}
	if (engine_mntns_foreign() == 1)
		log_info("running in a mount namespace of its own (shared neither with PID 1 "
			 "nor with the parent): mount marks are refused, inode and filesystem "
			 "marks and inotify watches see all activity");

	/* signals from the first moment: a HUP during the start reloads after it */
	ev_signal_init(&d.sig_term, on_stop, SIGTERM);
	ev_signal_init(&d.sig_int, on_stop, SIGINT);
	ev_signal_init(&d.sig_hup, on_reload, SIGHUP);
	ev_signal_init(&d.sig_usr1, on_reopen, SIGUSR1);
	d.sig_term.data = d.sig_int.data = d.sig_hup.data = d.sig_usr1.data = &d;
	ev_signal_start(d.loop, &d.sig_term);
	ev_signal_start(d.loop, &d.sig_int);
	ev_signal_start(d.loop, &d.sig_hup);
	ev_signal_start(d.loop, &d.sig_usr1);
	sigprocmask(SIG_UNBLOCK, &sigs, NULL); /* (what came meanwhile is handled now) */

	ev_check_init(&d.check, on_check);
	d.check.data = &d;
	ev_check_start(d.loop, &d.check);
	ev_unref(d.loop); /* the check watcher alone keeps nothing running */

	ev_init(&d.status, on_status);
	d.status.data = &d;
	ev_init(&d.extend, on_extend);
	d.extend.repeat = EXTEND_EVERY;
	d.extend.data = &d;

	/* fed during the start and reloads too: the loop goes round between
	 * their batches. Every quarter of WATCHDOG_USEC, so that a batch or a
	 * burst of events delaying one feed still leaves a margin. */
	ev_init(&d.watchdog, on_watchdog);
	d.watchdog.data = &d;
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		ev_timer_set(&d.watchdog, (double)wd_usec / 4e6, (double)wd_usec / 4e6);
		ev_timer_start(d.loop, &d.watchdog);
		log_debug("watchdog: fed every %.2f s", (double)wd_usec / 4e6);
	}

	sd_notifyf(0, "STATUS=Starting: loading %s", config_path);
	start_load(&d);
	ev_run(d.loop, 0);

	/* STOPPING=1 was sent by the signal handler (or the start failed) */
	ev_ref(d.loop);
	ev_check_stop(d.loop, &d.check);
	ev_timer_stop(d.loop, &d.watchdog);
	ev_timer_stop(d.loop, &d.status);
	ev_timer_stop(d.loop, &d.extend);
	ev_signal_stop(d.loop, &d.sig_term);
	ev_signal_stop(d.loop, &d.sig_int);
	ev_signal_stop(d.loop, &d.sig_hup);
	ev_signal_stop(d.loop, &d.sig_usr1);
	engine_status(d.engine, status, sizeof(status));
	if (d.started)
		log_rule_summary(&d);
	d.control = control_free(d.control); /* (its clients are cut off) */
	/* (a load in progress is rolled back; permission rules: their last
	 * "stats" records; closing the groups releases every mark) */
	engine_free(d.engine);
	if (d.started)
		log_notable(LOG_INFO, FSND_MID_STOP, fields, "stopped (%s): %s",
			    d.stop_signal ? strsignal(d.stop_signal) : "loop ended", status);
	else if (!d.start_r)
		log_info("stopped (%s) while starting",
			 d.stop_signal ? strsignal(d.stop_signal) : "loop ended");
	ev_loop_destroy(d.loop);
	return d.start_r;
}

static int run(int argc, char **argv) {
	enum {
		OPT_VERSION = 0x100,
		OPT_CHECK,
		OPT_EXPLAIN,
		OPT_MEASURE,
		OPT_BL_CHECK,
		OPT_BL_INIT
	};
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", optional_argument, NULL, OPT_CHECK },
		{ "explain", optional_argument, NULL, OPT_EXPLAIN },
		{ "measure", no_argument, NULL, OPT_MEASURE },
		{ "baseline-check", optional_argument, NULL, OPT_BL_CHECK },
		{ "baseline-init", optional_argument, NULL, OPT_BL_INIT },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_path = DEFAULT_CONFIG;
	bool check = false, check_file = false, config_given = false, explain = false,
	     measure = false, foreground = false, verbose = false;
	const char *bl_rule = NULL;
	int c, bl = 0;

	while ((c = getopt_long(argc, argv, "c:fhv", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			config_path = optarg;
			config_given = true;
			break;
		case OPT_CHECK:
		case OPT_EXPLAIN:
			check = true;
			explain = explain || c == OPT_EXPLAIN;
			/* "--check-config FILE" as well as "--check-config=FILE" */
			if (optarg)
				config_path = optarg;
			else if (optind < argc && argv[optind][0] != '-')
				config_path = argv[optind++];
			else
				break;
			check_file = true;
			break;
		case OPT_MEASURE: measure = true; break;
		case OPT_BL_CHECK:
		case OPT_BL_INIT:
			bl = c;
			bl_rule = optarg;
			break;
		case 'f': foreground = true; break;
		case 'v': verbose = true; break;
		case 'h': help(); return 0;
		case OPT_VERSION:
			printf("fsnotifyd %s (libfsn %s)\n", FSN_VERSION, fsn_version());
			return 0;
		default: return EXIT_USAGE; /* getopt said why */
		}
	}
	/* "--explain --measure FILE": the file after the other options */
	if (check && !check_file && !config_given && optind == argc - 1)
		config_path = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "fsnotifyd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return EXIT_USAGE;
	}

	if (measure && !explain) {
		fprintf(stderr, "fsnotifyd: --measure goes with --explain (see --help)\n");
		return EXIT_USAGE;
	}
	if (bl && (check || foreground)) {
		fprintf(stderr, "fsnotifyd: --baseline-check and --baseline-init go alone (see "
				"--help)\n");
		return EXIT_USAGE;
	}
	if (bl)
		return baseline_run(config_path, bl_rule, bl == OPT_BL_INIT);
	if (check)
		return check_config(config_path, explain, measure, verbose);
	return run_daemon(config_path, foreground);
}

/* Started with fd 0, 1 or 2 closed, the first fds the daemon opens would
 * take their numbers: its epoll fd would become "standard output", and
 * the "-" JSON output and every message would go there. Each closed one
 * is /dev/null before anything else is opened. */
static void reserve_std_fds(void) {
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", O_RDWR | O_NOCTTY); /* the lowest free fd: this one */
		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
}

/* Every permission event the kernel hands over comes with an fd, opened
 * while read() copies it; when the process is out of fds the kernel denies
 * the opener (EPERM) without asking. The daemon takes all the fds it may:
 * the soft RLIMIT_NOFILE up to the hard one (systemd's default is 1024 of
 * 524288). What its own users may hold at once is reserved out of that at
 * every commit and load, the rest is the permission events' fd budget
 * (guard.h, engine-perm.c: perm_fd_budget_update()); the limit is read
 * again then, so one changed from outside (prlimit) counts from the next
 * reload. */
static void raise_nofile(void) {
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* run(): 0, a positive exit status (usage errors), or -errno (failure). */
int main(int argc, char **argv) {
	int r;

	reserve_std_fds();
	raise_nofile();
	r = run(argc, argv);

	return r < 0 ? EXIT_FAILURE : r;
}
