/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-guard.c — the "guard" suite: the permission thread inside a real
 * engine (engine_load() of a config, on a loop of the test's own), in a
 * private mount namespace with tmpfs instances of its own:
 *   - what a decision costs the daemon's threads in system calls (counted
 *     by the kernel: a perf counter of the raw_syscalls:sys_enter
 *     tracepoint on each thread), so a system call per event shows;
 *   - the fd arithmetic (guard.h): with every other fd user of the daemon
 *     at its bound (outputs, exec commands running, control clients, the
 *     mount fds of its notification rule), more openers at once than the
 *     fd budget, each held by debug_delay_ms: no open is denied, the
 *     budget is never spent beyond what the free fds cover, and the events
 *     that did not fit waited in the kernel queue.
 */
#include <dirent.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "engine-private.h"
#include "engine.h"
#include "guard.h"
#include "log.h"
#include "unit.h"

#define TIMEOUT_MS 20000

struct env {
	char dir[PATH_MAX];   /* test_tmpdir() */
	char guard[PATH_MAX]; /* tmpfs: the permission rule's filesystem */
	char out[PATH_MAX];   /* tmpfs: config, outputs, control socket, notify dir */
	char file[PATH_MAX];  /* guard/file */
	char conf[PATH_MAX];
	struct ev_loop *loop;
	struct engine *e;
	struct control *ctl;
	bool loaded;
	int load_r;
};

static uint64_t now_ms(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void env_mount(struct env *t) {
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	test_tmpdir(t->dir, sizeof(t->dir));
	test_join(t->guard, sizeof(t->guard), t->dir, "g");
	test_join(t->out, sizeof(t->out), t->dir, "o");
	ck_assert_int_eq(mkdir(t->guard, 0700), 0);
	ck_assert_int_eq(mkdir(t->out, 0700), 0);
	ck_assert_int_eq(mount("tmpfs", t->guard, "tmpfs", 0, "size=1m,mode=0700"), 0);
	ck_assert_int_eq(mount("tmpfs", t->out, "tmpfs", 0, "size=16m,mode=0700"), 0);
	test_join(t->file, sizeof(t->file), t->guard, "file");
	ck_assert_int_ge(close(open(t->file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
	test_join(t->conf, sizeof(t->conf), t->out, "fsnotifyd.conf");
}

static void on_loaded(struct engine *e, int r, const char *why, void *userdata) {
	struct env *t = userdata;

	if (r < 0)
		fprintf(stderr, "load: %s\n", why ? why : strerror(-r));
	t->load_r = r;
	t->loaded = true;
}

/* The config text (each "@O@" / "@G@" the out / guard directory), loaded
 * by an engine on a loop of its own, and a control socket when it has one. */
static void env_start(struct env *t, const char *tmpl) {
	char *a = test_subst(tmpl, "@O@", t->out), *text = test_subst(a, "@G@", t->guard);
	FILE *f = fopen(t->conf, "we");
	uint64_t deadline = now_ms() + TIMEOUT_MS;

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(a);
	free(text);
	log_set_level(LOG_WARNING);
	t->loop = ev_default_loop(EVFLAG_AUTO); /* (exec outputs need it) */
	ck_assert_ptr_nonnull(t->loop);
	ck_assert_int_eq(engine_new(t->loop, &t->e), 0);
	ck_assert_int_eq(engine_load(t->e, t->conf, on_loaded, t), 0);
	while (!t->loaded && now_ms() < deadline)
		ev_run(t->loop, EVRUN_ONCE);
	ck_assert_msg(t->loaded && t->load_r == 0, "the config did not load");
	if (engine_config(t->e)->control_socket[0]) {
		struct control_hooks hooks = { 0 };

		ck_assert_int_eq(
		    control_new(t->loop, t->e, t->conf, engine_config(t->e), &hooks, &t->ctl), 0);
	}
}

static void env_stop(struct env *t) {
	control_free(t->ctl);
	engine_free(t->e);
	ev_loop_destroy(t->loop);
	umount2(t->guard, MNT_DETACH);
	umount2(t->out, MNT_DETACH);
	test_rm_tree(t->dir);
}

/* Turn the loop until cond(t) or the deadline; false on the deadline. */
static bool run_until(struct env *t, bool (*cond)(struct env *t)) {
	uint64_t deadline = now_ms() + TIMEOUT_MS;

	while (!cond(t)) {
		if (now_ms() > deadline)
			return false;
		ev_run(t->loop, EVRUN_NOWAIT);
		(void)poll(NULL, 0, 5);
	}
	return true;
}

static int count_open_fds(void) {
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/* ------------------------------------------------------------------------ */
/* system calls per decision                                                */
/* ------------------------------------------------------------------------ */

/* A child that opens path n times (each one a permission event), then
 * exits 0; its errno if an open fails. */
static pid_t opener_loop(const char *path, unsigned n) {
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (unsigned i = 0; i < n; i++) {
			int fd = open(path, O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				_exit(errno);
			close(fd);
		}
		_exit(0);
	}
	return pid;
}

/*
 * An allow-all rule on a whole filesystem: per decision the daemon reads
 * the event, writes the answer and closes the event's fd, and its loop
 * waits once; nothing else (the old fd-starvation guard listed
 * /proc/self/fd twice and asked for RLIMIT_NOFILE: 10 system calls per
 * decision). Counted over every thread of the daemon but the test's own,
 * 400 decisions of one opener that opens back to back.
 */
START_TEST(test_guard_syscalls_per_decision) {
	static const char conf[] = "log_level = \"warning\";\n"
				   "outputs = [\"j\"];\n"
				   "output = { j = { type = \"json\"; file = \"@O@/events.jsonl\"; "
				   "}; };\n"
				   "control = { socket = \"\"; };\n"
				   "rules = ({ name = \"guard\"; paths = [\"@G@\"]; mark = "
				   "\"filesystem\"; recursive = true;\n"
				   "  events = [\"open_perm\"]; default = \"allow\"; });\n";
	const unsigned n = 400;
	pid_t self = (pid_t)syscall(SYS_gettid), opener;
	int counters[16], n_counters = 0, status;
	uint64_t total = 0;
	struct dirent *de;
	struct env t = { 0 };
	DIR *d;

	env_mount(&t);
	env_start(&t, conf);
	/* warm up: the guard's first decision allocates what it keeps */
	opener = opener_loop(t.file, 20);
	ck_assert_int_eq(waitpid(opener, &status, 0), opener);
	ck_assert_int_eq(WEXITSTATUS(status), 0);

	d = opendir("/proc/self/task");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		int fd;

		if (tid <= 0 || tid == self)
			continue;
		fd = test_syscall_counter(tid);
		if (fd < 0) {
			closedir(d);
			env_stop(&t);
			fsn_test_skip("no system call counter: %s", strerror(-fd));
		}
		ck_assert_int_lt(n_counters, (int)ELEMENTSOF(counters));
		counters[n_counters++] = fd;
	}
	closedir(d);
	ck_assert_int_ge(n_counters, 1);

	opener = opener_loop(t.file, n);
	ck_assert_int_eq(waitpid(opener, &status, 0), opener);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	for (int i = 0; i < n_counters; i++) {
		total += test_syscall_count(counters[i]);
		close(counters[i]);
	}
	fprintf(stderr, "guard: %" PRIu64 " system calls for %u decisions (%.2f each)\n", total, n,
		(double)total / n);
	/* epoll_wait, read, write, close: 4; a little more for the odd
	 * wakeup that finds nothing */
	ck_assert_msg(total <= 5 * n, "%" PRIu64 " system calls for %u decisions", total, n);
	env_stop(&t);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the fd arithmetic                                                        */
/* ------------------------------------------------------------------------ */

/* The arithmetic itself: what is left of the limit, 0 below the minimum. */
START_TEST(test_guard_fd_budget_of) {
	struct guard_fd_reserve r = { .open = 30,
				      .clients = 130,
				      .exec = 9,
				      .state = 0,
				      .mounts = 2,
				      .hash = 10,
				      .slack = 128 };

	ck_assert_uint_eq(guard_fd_budget_of(524288, &r), 524288 - 309);
	ck_assert_uint_eq(guard_fd_budget_of(309 + GUARD_FD_BUDGET_MIN, &r), GUARD_FD_BUDGET_MIN);
	ck_assert_uint_eq(guard_fd_budget_of(309 + GUARD_FD_BUDGET_MIN - 1, &r), 0);
	ck_assert_uint_eq(guard_fd_budget_of(96, &r), 0);
	ck_assert_uint_eq(guard_fd_budget_of(UINT64_MAX, &r), UINT_MAX);
}
END_TEST

#define CLIENTS 6
#define RUNNING 3

static bool exec_running(struct env *t) {
	/* children of this process running cat (the exec output's commands) */
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char path[300], buf[512];
		FILE *f;
		int ppid = 0;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strstr(buf, "(cat)") &&
		    sscanf(strrchr(buf, ')') + 2, "%*c %d", &ppid) == 1 && ppid == getpid())
			n++;
		fclose(f);
	}
	closedir(d);
	(void)t;
	return n == RUNNING;
}

static bool clients_connected(struct env *t) {
	struct control_counters cc;

	return engine_control_counters(t->e, &cc) && cc.clients == CLIENTS;
}

/* A child that opens path once, when go reads EOF, and writes its errno
 * (0: opened) to fd. */
static pid_t opener_once(const char *path, int fd, int go) {
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char c;
		int res;

		if (dup2(fd, 3) != 3 || dup2(go, 4) != 4)
			_exit(99);
		syscall(SYS_close_range, 5U, ~0U, 0U);
		if (read(4, &c, 1) < 0)
			_exit(97);
		res = open(path, O_RDONLY | O_CLOEXEC);
		res = res < 0 ? errno : 0;
		_exit(write(3, &res, sizeof(res)) == sizeof(res) ? 0 : 98);
	}
	return pid;
}

/*
 * Every fd user of the daemon at its bound while more permission events
 * arrive than the budget holds: a json and a metrics output, an exec
 * output with max_running commands running (each blocked opening a fifo),
 * control.max_clients clients connected (and two refused), a notification
 * rule (its group, its filesystem's mount fd), a permission rule holding
 * each decision 300 ms. With RLIMIT_NOFILE 256 the arithmetic leaves a
 * budget of a few dozen fds; budget + 40 openers at once. Sampled all the
 * while: the fds open plus the budget's free room never exceed the limit
 * (what the guard may still read has a free fd), the budget is full at
 * some point (events waited for fds), and no open is denied.
 */
START_TEST(test_guard_fd_accounting) {
	static const char conf[] =
	    "log_level = \"warning\";\n"
	    "outputs = [\"j\"];\n"
	    "output = {\n"
	    "  j = { type = \"json\"; file = \"@O@/events.jsonl\"; };\n"
	    "  m = { type = \"metrics\"; file = \"@O@/metrics.prom\"; interval = 1; };\n"
	    "  x = { type = \"exec\"; argv = [\"/bin/cat\", \"@O@/fifo\"]; max_running = 3;\n"
	    "        rate = 1000; burst = 1000; };\n"
	    "};\n"
	    "control = { socket = \"@O@/control\"; max_clients = 6; };\n"
	    "rules = (\n"
	    "  { name = \"notify\"; paths = [\"@O@/n\"]; events = [\"create\"];\n"
	    "    outputs = [\"j\", \"x\"]; },\n"
	    "  { name = \"guard\"; paths = [\"@G@\"]; mark = \"filesystem\"; recursive = true;\n"
	    "    events = [\"open_perm\"]; default = \"allow\"; debug_delay_ms = 300; }\n"
	    ");\n";
	const rlim_t limit = 256;
	struct rlimit rl = { limit, limit };
	int clients[CLIENTS + 2], p[2], go[2], n_openers, got = 0, max_seen_held = 0;
	unsigned max, held, held_after;
	pid_t *openers, maker;
	struct env t = { 0 };
	char path[PATH_MAX], fifo[PATH_MAX];
	uint64_t deadline;

	env_mount(&t);
	test_join(path, sizeof(path), t.out, "n");
	ck_assert_int_eq(mkdir(path, 0700), 0);
	test_join(fifo, sizeof(fifo), t.out, "fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	env_start(&t, conf);

	/* exec: max_running commands (blocked opening the fifo), more dropped;
	 * the files made by a child (the daemon's own accesses are not its
	 * events) */
	maker = fork();
	ck_assert_int_ge(maker, 0);
	if (maker == 0) {
		for (int i = 0; i < 5; i++) {
			char f[PATH_MAX + 16];

			snprintf(f, sizeof(f), "%s/f%d", path, i);
			close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(maker, NULL, 0), maker);
	ck_assert_msg(run_until(&t, exec_running), "%d exec commands not running", RUNNING);

	/* control: max_clients connected, two more refused */
	for (int i = 0; i < CLIENTS + 2; i++) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		clients[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ck_assert_int_ge(clients[i], 0);
		test_join(sa.sun_path, sizeof(sa.sun_path), t.out, "control");
		ck_assert_int_eq(connect(clients[i], (struct sockaddr *)&sa, sizeof(sa)), 0);
	}
	ck_assert_msg(run_until(&t, clients_connected), "%d control clients not connected",
		      CLIENTS);

	guard_get_fd_budget(t.e->guard, &max, &held);
	fprintf(stderr, "guard: RLIMIT_NOFILE %d, %d fds open, budget %u\n", (int)limit,
		count_open_fds(), max);
	ck_assert_uint_ge(max, GUARD_FD_BUDGET_MIN);
	ck_assert_uint_lt(max, (unsigned)limit);

	/* more openers at once than the budget holds */
	n_openers = (int)max + 40;
	openers = calloc((size_t)n_openers, sizeof(*openers));
	ck_assert_ptr_nonnull(openers);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
	for (int i = 0; i < n_openers; i++)
		openers[i] = opener_once(t.file, p[1], go[0]);
	close(p[1]);
	close(go[0]);
	close(go[1]); /* all at once */
	deadline = now_ms() + TIMEOUT_MS;
	while (got < n_openers) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int open_now, res;

		ck_assert_msg(now_ms() < deadline, "%d of %d opens not answered", n_openers - got,
			      n_openers);
		ev_run(t.loop, EVRUN_NOWAIT);
		/* what the guard may still read has a free fd (held: the more
		 * of before and after the count, so that event fds read or
		 * closed meanwhile are on the safe side) */
		guard_get_fd_budget(t.e->guard, &max, &held);
		open_now = count_open_fds();
		guard_get_fd_budget(t.e->guard, &max, &held_after);
		if (held_after > held)
			held = held_after;
		if ((int)held > max_seen_held)
			max_seen_held = (int)held;
		ck_assert_msg(open_now + (int)(max > held ? max - held : 0) <= (int)limit,
			      "%d fds open and room for %u more event fds: over %d", open_now,
			      max - held, (int)limit);
		if (poll(&pf, 1, 5) == 1) {
			ck_assert_int_eq(read(p[0], &res, sizeof(res)), sizeof(res));
			ck_assert_msg(res == 0, "an open failed: %s", strerror(res));
			got++;
		}
	}
	/* the bound was reached: events waited in the kernel queue for fds */
	ck_assert_int_eq(max_seen_held, (int)max);
	/* (the default loop's child watcher of the exec output reaps them) */
	for (int i = 0; i < n_openers; i++)
		(void)waitpid(openers[i], NULL, 0);
	free(openers);
	close(p[0]);
	for (int i = 0; i < CLIENTS + 2; i++)
		close(clients[i]);
	/* let the exec commands go */
	{
		int w = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

		if (w >= 0)
			close(w);
	}
	env_stop(&t);
}
END_TEST

static void guard_suite(Suite *s) {
	TCase *tc = tcase_create("guard");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_guard_fd_budget_of);
	tcase_add_test(tc, test_guard_syscalls_per_decision);
	tcase_add_test(tc, test_guard_fd_accounting);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE_ROOT("guard", guard_suite);
