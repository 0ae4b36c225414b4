/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-exec.c — the exec output: runs a command per event record, from
 * an argv template whose placeholders ({path}, {rule}...) are substituted
 * inside their own argument (never a shell). The command gets stdin
 * /dev/null, default signal handling, an empty signal mask and a process
 * group of its own; its stdout and stderr go through one pipe into the
 * daemon's log, line by line, escaped. Runs are limited by a token bucket
 * (rate, burst) and by max_running; what is beyond them is dropped and
 * counted. A command still running after timeout_sec gets SIGTERM, and
 * SIGKILL a grace period later. Children are reaped by ev_child watchers
 * (libev: default loop only).
 *
 * What a command gets of the daemon (which runs as root next to hostile
 * users, and whose records carry their file names and process names):
 * a minimal environment (PATH, LANG, and FSN_* variables describing the
 * record), no fd but 0-2, no capabilities (none permitted, effective,
 * inheritable or ambient), NoNewPrivs (no setuid or file capabilities
 * regain any), and the output's user and group when it names them.
 */
#include <ev.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "exec-placeholders.h"
#include "fsn-util.h"
#include "fsn.h"
#include "log.h"
#include "output-private.h"

/* The environment's PATH (commands are run by absolute path; this is for
 * what they run themselves). */
#define CHILD_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#define KILL_GRACE_SEC 5.0
#define LINE_MAX_BYTES 1024 /* longer output lines are split */
#define LINES_PER_RUN 1000  /* then the rest of a run's output is discarded */
#define READ_PER_WAKEUP                                                                            \
	65536 /* bytes read per callback, so a chatty child cannot starve the loop */

struct exec_output;

struct exec_job {
	struct exec_job *next, *prev;
	struct exec_output *x;
	pid_t pid;
	int fd; /* read end of the child's stdout+stderr, -1 after EOF */
	ev_io io;
	ev_child child;
	ev_timer timer;
	bool term_sent, killed;
	char line[LINE_MAX_BYTES];
	size_t line_len;
	unsigned lines;
};

struct exec_output {
	struct output head;
	char **argv; /* the template */
	size_t n_argv;
	unsigned max_running;
	double rate, burst, timeout, kill_grace;
	double tokens;
	ev_tstamp refilled;
	unsigned running;
	struct exec_job *jobs;
	bool set_ids; /* run as uid, gid (else the daemon's) */
	uid_t uid;
	gid_t gid;
};

static struct exec_output *to_exec(struct output *o) {
	return (struct exec_output *)o;
}

/* ---- templates ---- */

static const char *const placeholders[] = { EXEC_PLACEHOLDERS };

/* If s starts a "{name}" placeholder, its index and length; else -1. */
static int placeholder_at(const char *s, size_t *len) {
	for (size_t i = 0; i < ELEMENTSOF(placeholders); i++) {
		size_t n = strlen(placeholders[i]);

		if (s[0] == '{' && strncmp(s + 1, placeholders[i], n) == 0 && s[n + 1] == '}') {
			*len = n + 2;
			return (int)i;
		}
	}
	return -1;
}

int exec_template_check(char *const *argv, size_t n_argv, char *err, size_t errlen) {
	char esc[256];

	if (n_argv == 0 || !argv[0] || !argv[0][0]) {
		snprintf(err, errlen, "the command is empty");
		return -EINVAL;
	}
	if (argv[0][0] != '/') {
		snprintf(err, errlen,
			 "the program '%s' must be an absolute path (no PATH search, no shell)",
			 text_escaped(esc, sizeof(esc), argv[0]));
		return -EINVAL;
	}
	if (strchr(argv[0], '{')) {
		snprintf(err, errlen, "the program '%s' must not contain placeholders",
			 text_escaped(esc, sizeof(esc), argv[0]));
		return -EINVAL;
	}
	for (size_t i = 1; i < n_argv; i++) {
		for (const char *p = strchr(argv[i], '{'); p; p = strchr(p + 1, '{')) {
			size_t wl = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_"), pl;

			if (wl == 0 || p[1 + wl] != '}' || placeholder_at(p, &pl) >= 0)
				continue;
			snprintf(err, errlen,
				 "argument %zu ('%s'): unknown placeholder '{%.*s}'; "
				 "known: " EXEC_PLACEHOLDERS_TEXT,
				 i, text_escaped(esc, sizeof(esc), argv[i]), (int)wl, p + 1);
			return -EINVAL;
		}
	}
	return 0;
}

/* The value of placeholder i for r, in scratch if it must be formatted. */
static const char *placeholder_value(int i, const struct record *r, char *scratch, size_t len) {
	scratch[0] = '\0';
	switch (i) {
	case 0: return r->path ? r->path : "";
	case 1: return r->old_path ? r->old_path : "";
	case 2: return r->rule ? r->rule : "";
	case 3:
		if (fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->mask, scratch, len) < 0)
			scratch[0] = '\0';
		return scratch;
	case 4: return record_kind_name(r->kind);
	case 5:
		if (r->pid > 0)
			snprintf(scratch, len, "%d", (int)r->pid);
		return scratch;
	case 6: return r->comm ? r->comm : "";
	case 7:
		if (r->uid != (uid_t)-1)
			snprintf(scratch, len, "%u", (unsigned)r->uid);
		return scratch;
	case 8: format_time_usec(scratch, len, r->time_usec); return scratch;
	case 9:
		for (size_t t = 0, pos = 0; r->label && t < r->label->n_tags; t++)
			pos += (size_t)snprintf(scratch + pos, pos < len ? len - pos : 0, "%s%s",
						t ? "," : "", r->label->tags[t]);
		return scratch; /* (16 tags of 64 bytes and their commas fit) */
	case 10: return severity_name(record_severity(r));
	}
	return "";
}

/* One argument with its placeholders substituted (malloc'd), or NULL. */
static char *substitute(const char *arg, const struct record *r) {
	char scratch[2048];
	size_t cap = strlen(arg) + 1, n = 0;
	_cleanup_free_ char *out = malloc(cap);

	if (!out)
		return NULL;
	for (const char *p = arg; *p;) {
		const char *v = NULL;
		size_t vl = 1, pl = 1;
		int i = *p == '{' ? placeholder_at(p, &pl) : -1;

		if (i >= 0) {
			v = placeholder_value(i, r, scratch, sizeof(scratch));
			vl = strlen(v);
		} else {
			v = p;
			pl = 1;
		}
		if (n + vl + 1 > cap) {
			char *o;

			cap = (n + vl + 1) * 2;
			o = realloc(out, cap);
			if (!o)
				return NULL;
			out = o;
		}
		memcpy(out + n, v, vl);
		n += vl;
		p += pl;
	}
	out[n] = '\0';
	return steal_ptr(&out);
}

static void strv_free(char **v) {
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static inline void strv_freep(char ***v) {
	strv_free(*v);
}

/* ---- children ---- */

static void job_log_line(struct exec_job *job, const char *data, size_t n) {
	struct exec_output *x = job->x;
	char esc[4 * LINE_MAX_BYTES + 1];
	size_t pos = 0;

	if (job->lines > LINES_PER_RUN)
		return;
	if (job->lines++ == LINES_PER_RUN) {
		log_info("output '%s' [pid %d]: more than %u lines of output, the rest of this "
			 "run's output is discarded",
			 x->head.name, (int)job->pid, LINES_PER_RUN);
		return;
	}
	text_escape(esc, sizeof(esc), &pos, data, n);
	log_info("output '%s' [pid %d]: %s", x->head.name, (int)job->pid, esc);
}

/* Split what was read into lines; a line longer than the buffer is logged
 * in pieces. */
static void job_take_output(struct exec_job *job, const char *data, size_t n) {
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		size_t room = sizeof(job->line) - job->line_len;

		if (take > room)
			take = room;
		memcpy(job->line + job->line_len, data, take);
		job->line_len += take;
		data += take;
		n -= take;
		if (n > 0 && *data == '\n') {
			data++;
			n--;
			job_log_line(job, job->line, job->line_len);
			job->line_len = 0;
		} else if (job->line_len == sizeof(job->line)) {
			job_log_line(job, job->line, job->line_len);
			job->line_len = 0;
		}
	}
}

static void job_close_pipe(struct exec_job *job) {
	if (job->fd < 0)
		return;
	ev_io_stop(job->x->head.loop, &job->io);
	close(job->fd);
	job->fd = -1;
	if (job->line_len > 0) {
		job_log_line(job, job->line, job->line_len);
		job->line_len = 0;
	}
}

/* Read what the pipe holds: up to max bytes, or everything (max 0) until
 * EAGAIN or EOF (then the pipe is closed). */
static void job_read(struct exec_job *job, size_t max) {
	char buf[8192];
	size_t total = 0;

	while (job->fd >= 0 && (max == 0 || total < max)) {
		ssize_t n = read(job->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			job_close_pipe(job);
			return;
		}
		job_take_output(job, buf, (size_t)n);
		total += (size_t)n;
	}
}

static void job_free(struct exec_job *job) {
	struct exec_output *x = job->x;
	struct ev_loop *loop = x->head.loop;

	job_close_pipe(job);
	ev_child_stop(loop, &job->child);
	ev_timer_stop(loop, &job->timer);
	if (job->prev)
		job->prev->next = job->next;
	else
		x->jobs = job->next;
	if (job->next)
		job->next->prev = job->prev;
	x->running--;
	free(job);
}

static void job_io_cb(struct ev_loop *loop, ev_io *w, int revents) {
	job_read(w->data, READ_PER_WAKEUP);
}

static void job_child_cb(struct ev_loop *loop, ev_child *w, int revents) {
	struct exec_job *job = w->data;
	const char *name = job->x->head.name;
	int st = w->rstatus;

	/* The child is gone: what it wrote is in the pipe now (at most the
	 * pipe's capacity). A grandchild that still holds the pipe open and
	 * keeps writing is neither waited for nor allowed to keep the loop
	 * busy: read a bounded amount, then close. */
	job_read(job, 1u << 20);
	job_close_pipe(job);

	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		log_debug("output '%s' [pid %d]: done", name, (int)job->pid);
	else if (WIFEXITED(st))
		log_warning("output '%s' [pid %d]: exited with status %d", name, (int)job->pid,
			    WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		log_warning("output '%s' [pid %d]: killed by signal %s%s", name, (int)job->pid,
			    sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?",
			    job->term_sent ? " (after its timeout)" : "");
	job_free(job);
}

static void job_timer_cb(struct ev_loop *loop, ev_timer *w, int revents) {
	struct exec_job *job = w->data;
	struct exec_output *x = job->x;

	/* The child is not reaped yet (its watcher would have stopped this
	 * timer), so its pid, which is also its process group, is still ours. */
	if (!job->term_sent) {
		log_warning("output '%s' [pid %d]: still running after %g s, sending SIGTERM",
			    x->head.name, (int)job->pid, x->timeout);
		(void)kill(-job->pid, SIGTERM);
		job->term_sent = true;
		ev_timer_set(&job->timer, x->kill_grace, 0.);
		ev_timer_start(loop, &job->timer);
	} else if (!job->killed) {
		log_warning(
		    "output '%s' [pid %d]: still running %g s after SIGTERM, sending SIGKILL",
		    x->head.name, (int)job->pid, x->kill_grace);
		(void)kill(-job->pid, SIGKILL);
		job->killed = true;
	}
}

/* The variables describing r, by placeholder (same order as
 * placeholder_value()). */
static const char *const env_names[] = {
	"FSN_PATH", "FSN_OLD_PATH", "FSN_RULE", "FSN_EVENTS", "FSN_KIND",
	"FSN_PID",  "FSN_COMM",     "FSN_UID",  "FSN_TIME",
};

/* A command's environment: PATH, the daemon's LANG, and FSN_* for what r
 * has (an absent path, pid, comm, uid: no variable). NULL-terminated,
 * malloc'd strings. */
static char **child_environment(const struct record *r) {
	const char *lang = getenv("LANG");
	_cleanup_(strv_freep) char **env = calloc(ELEMENTSOF(env_names) + 3, sizeof(char *));
	size_t k = 0;

	if (!env)
		return NULL;
	env[k++] = strdup(CHILD_PATH);
	if (lang && asprintf(&env[k], "LANG=%s", lang) >= 0)
		k++;
	for (size_t i = 0; i < ELEMENTSOF(env_names); i++) {
		char scratch[1024];
		const char *v = placeholder_value((int)i, r, scratch, sizeof(scratch));

		if (!v[0])
			continue;
		if (asprintf(&env[k], "%s=%s", env_names[i], v) < 0) {
			env[k] = NULL;
			return NULL;
		}
		k++;
	}
	if (!env[0])
		return NULL;
	return steal_ptr(&env);
}

/* In the child, between fork() and execve(): only system calls (the daemon
 * has threads). Returns the errno of the step that failed. */
static int child_setup(const struct exec_output *x, int null_fd, int out_fd) {
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2] = { { 0 } };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	/* signals the daemon blocks or ignores are not the command's */
	for (int sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0 || setpgid(0, 0) < 0)
		return errno;
	/* a process group of its own, so a timeout stops what it started */
	if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(out_fd, STDERR_FILENO) < 0)
		return errno;
	for (int fd = 0; fd <= 2; fd++) /* (dup2() onto itself keeps close-on-exec) */
		if (fcntl(fd, F_SETFD, 0) < 0)
			return errno;
	/* nothing else of the daemon's (also what it inherited): closed at
	 * exec, so the status pipe stays for an exec error */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return errno;
	if (x->set_ids && (syscall(SYS_setgroups, 0, NULL) < 0 ||
			   syscall(SYS_setresgid, x->gid, x->gid, x->gid) < 0 ||
			   syscall(SYS_setresuid, x->uid, x->uid, x->uid) < 0))
		return errno;
	/* no capabilities, none to regain: with NoNewPrivs, what execve()
	 * would grant root is cut to the permitted set, which is empty */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
	    syscall(SYS_capset, &head, caps) < 0)
		return errno;
	return 0;
}

static int spawn(struct exec_output *x, char **argv, const struct record *rec, pid_t *ret_pid,
		 int *ret_fd) {
	_cleanup_(strv_freep) char **env = NULL;
	_cleanup_close_ int null_fd = -1;
	int p[2] = { -1, -1 }, st[2] = { -1, -1 }, err = 0, r = 0;
	ssize_t n;
	pid_t pid;

	env = child_environment(rec);
	if (!env)
		return -ENOMEM;
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0)
		return -errno;
	if (pipe2(p, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
		r = -errno;
		for (int i = 0; i < 2; i++) {
			if (p[i] >= 0)
				close(p[i]);
			if (st[i] >= 0)
				close(st[i]);
		}
		return r;
	}
	pid = fork();
	if (pid == 0) {
		err = child_setup(x, null_fd, p[1]);
		if (!err) {
			execve(argv[0], argv, env);
			err = errno;
		}
		/* the parent learns why; exit_group itself (no atexit) */
		(void)!write(st[1], &err, sizeof(err));
		syscall(SYS_exit_group, 127);
	}
	if (pid < 0)
		r = -errno;
	close(p[1]);
	close(st[1]);
	if (pid > 0) {
		/* EOF: the exec happened; else the child's errno */
		do
			n = read(st[0], &err, sizeof(err));
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)sizeof(err) && err) {
			r = -err;
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	close(st[0]);
	if (r < 0) {
		close(p[0]);
		return r;
	}
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	*ret_pid = pid;
	*ret_fd = p[0];
	return 0;
}

/* Token bucket: true (and a token taken) if a run is allowed now. */
static bool take_token(struct exec_output *x) {
	ev_tstamp now = ev_now(x->head.loop);

	if (x->rate <= 0)
		return true;
	x->tokens += (now - x->refilled) * x->rate;
	if (x->tokens > x->burst)
		x->tokens = x->burst;
	x->refilled = now;
	if (x->tokens < 1.0)
		return false;
	x->tokens -= 1.0;
	return true;
}

static void exec_emit(struct output *o, const struct record *r) {
	struct exec_output *x = to_exec(o);
	_cleanup_free_ struct exec_job *job = NULL;
	_cleanup_(strv_freep) char **argv = NULL;
	char esc[512];
	int ret, fd = -1;
	pid_t pid = 0;

	if (r->kind != RECORD_EVENT)
		return;
	if (x->running >= x->max_running) {
		output_dropped(o, 1, "%u commands running (max_running); dropping records",
			       x->running);
		return;
	}
	if (!take_token(x)) {
		output_dropped(o, 1,
			       "rate limit reached (%g per second, burst %g); dropping records",
			       x->rate, x->burst);
		return;
	}

	/* posix_spawn() reports exec errors too, but not on every platform
	 * (under valgrind the child just exits 127): the common ones first. */
	if (access(x->argv[0], X_OK) < 0) {
		output_failed(o, 1, errno, "cannot run %s",
			      text_escaped(esc, sizeof(esc), x->argv[0]));
		return;
	}

	job = calloc(1, sizeof(*job));
	argv = calloc(x->n_argv + 1, sizeof(char *));
	if (!job || !argv) {
		output_failed(o, 1, ENOMEM, "cannot run %s",
			      text_escaped(esc, sizeof(esc), x->argv[0]));
		return;
	}
	for (size_t i = 0; i < x->n_argv; i++) {
		argv[i] = i == 0 ? strdup(x->argv[0]) : substitute(x->argv[i], r);
		if (!argv[i]) {
			output_failed(o, 1, ENOMEM, "cannot run %s",
				      text_escaped(esc, sizeof(esc), x->argv[0]));
			return;
		}
	}

	ret = spawn(x, argv, r, &pid, &fd);
	if (ret < 0) {
		output_failed(o, 1, -ret, "cannot run %s",
			      text_escaped(esc, sizeof(esc), x->argv[0]));
		return;
	}

	job->x = x;
	job->pid = pid;
	job->fd = fd;
	ev_io_init(&job->io, job_io_cb, fd, EV_READ);
	job->io.data = job;
	ev_child_init(&job->child, job_child_cb, pid, 0);
	job->child.data = job;
	ev_timer_init(&job->timer, job_timer_cb, x->timeout, 0.);
	job->timer.data = job;
	ev_io_start(x->head.loop, &job->io);
	/* Started before the loop runs again, so libev's SIGCHLD handler,
	 * which reaps in the loop, finds it. */
	ev_child_start(x->head.loop, &job->child);
	if (x->timeout > 0)
		ev_timer_start(x->head.loop, &job->timer);
	job->next = x->jobs;
	if (x->jobs)
		x->jobs->prev = job;
	x->jobs = steal_ptr(&job);
	x->running++;
	log_debug("output '%s' [pid %d]: started %s", o->name, (int)pid,
		  text_escaped(esc, sizeof(esc), x->argv[0]));
	output_succeeded(o, 1);
}

static void exec_free(struct output *o) {
	struct exec_output *x = to_exec(o);

	/* Children still running are stopped; the default loop reaps them. */
	while (x->jobs) {
		struct exec_job *job = x->jobs;

		(void)kill(-job->pid, SIGTERM);
		job_read(job, READ_PER_WAKEUP);
		job_free(job);
	}
	strv_free(x->argv);
	output_done(o);
	free(x);
}

static const struct output_ops exec_ops = {
	.emit = exec_emit,
	.free = exec_free,
};

int output_exec_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		     char *err, size_t errlen) {
	struct exec_output *x;
	char msg[512];
	int r;

	r = exec_template_check(conf->argv, conf->n_argv, msg, sizeof(msg));
	if (r < 0) {
		snprintf(err, errlen, "output '%s': %s", conf->name, msg);
		return r;
	}
	if (!loop || !ev_is_default_loop(loop)) {
		snprintf(err, errlen, "output '%s': exec outputs need the default event loop",
			 conf->name);
		return -EINVAL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		goto oom;
	if (output_init(&x->head, &exec_ops, conf, loop) < 0) {
		free(x);
		goto oom;
	}
	x->argv = calloc(conf->n_argv + 1, sizeof(char *));
	if (!x->argv)
		goto oom_free;
	for (size_t i = 0; i < conf->n_argv; i++) {
		x->argv[i] = strdup(conf->argv[i]);
		if (!x->argv[i])
			goto oom_free;
	}
	x->n_argv = conf->n_argv;
	x->max_running = conf->max_running > 0 ? conf->max_running : 1;
	x->rate = conf->rate;
	x->burst = conf->burst > 0 ? conf->burst : 1;
	x->timeout = conf->timeout_sec;
	x->kill_grace = KILL_GRACE_SEC;
	x->tokens = x->burst;
	x->refilled = ev_now(loop);
	x->set_ids = conf->has_user || conf->has_group;
	x->uid = conf->has_user ? conf->user : geteuid();
	x->gid = conf->has_group ? conf->group : conf->has_user_gid ? conf->user_gid : getegid();
	*ret = &x->head;
	return 0;

oom_free:
	exec_free(&x->head);
oom:
	snprintf(err, errlen, "output '%s': out of memory", conf->name);
	return -ENOMEM;
}

void output_exec_set_kill_grace(struct output *o, double sec) {
	if (o->ops == &exec_ops)
		to_exec(o)->kill_grace = sec;
}

unsigned output_exec_running(const struct output *o) {
	return o->ops == &exec_ops ? ((const struct exec_output *)o)->running : 0;
}
