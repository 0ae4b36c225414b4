/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c — small helpers shared by the benchmark subcommands: clocks, option
 * values and comma lists, the private scratch directory, reading a file,
 * child processes (starting fsnotifyd, their CPU time) and the progress
 * line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-util.h"
#include "memcg.h"
#include "util.h"

uint64_t bench_now_ns(clockid_t clk) {
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bench_env_enter(char *base, size_t len, const char *tmpl) {
	if (unshare(CLONE_NEWNS) < 0)
		return negative_errno();
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return negative_errno();
	snprintf(base, len, "%s", tmpl);
	if (!mkdtemp(base))
		return negative_errno();
	if (mount("fsn-bench", base, "tmpfs", 0, "mode=0700,size=4m") < 0)
		return negative_errno();
	return 0;
}

int bench_mount_tmpfs(const char *base, const char *name, const char *size, char *ret, size_t len) {
	char source[64], opts[64];

	snprintf(ret, len, "%s/%s", base, name);
	snprintf(source, sizeof(source), "fsn-bench-%s", name);
	snprintf(opts, sizeof(opts), "mode=0700,size=%s", size);
	if (mkdir(ret, 0700) < 0 || mount(source, ret, "tmpfs", 0, opts) < 0)
		return negative_errno();
	return 0;
}

void bench_env_teardown(const char *base) {
	char path[4096];
	struct dirent *de;
	DIR *d;

	/* Not created (still the mkdtemp template: it ends in XXXXXX, which
	 * a name mkdtemp() made does only once in 56 billion), or never set. */
	if (!base || !base[0] ||
	    (strlen(base) >= 6 && strcmp(base + strlen(base) - 6, "XXXXXX") == 0))
		return;
	/* The tmpfs mounts sit on directories directly below base; they live
	 * in the benchmark's private mount namespace, but the directories are
	 * on the host's /tmp: detach each mount, then remove the directories. */
	(void)umount2(base, MNT_DETACH);
	d = opendir(base);
	if (d) {
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
			(void)umount2(path, MNT_DETACH);
			(void)rmdir(path);
		}
		closedir(d);
	}
	(void)rmdir(base);
}

int bench_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max || s[0] == '-') {
		if (max == UINT64_MAX)
			fprintf(stderr, "fsn-bench: invalid %s '%s' (at least %" PRIu64 ")\n", what,
				s, min);
		else
			fprintf(stderr, "fsn-bench: invalid %s '%s' (%" PRIu64 "..%" PRIu64 ")\n",
				what, s, min, max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int cmp_unsigned(const void *a, const void *b) {
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int bench_parse_sizes(const char *opt, const char *text, uint64_t min, uint64_t max,
		      unsigned multiple, unsigned *v, unsigned max_n) {
	_cleanup_free_ char *copy = strdup(text);
	char what[64], *save = NULL;
	unsigned k = 0, n = 0;

	if (!copy)
		return -ENOMEM;
	snprintf(what, sizeof(what), "%s size", opt);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint64_t x;
		int r = bench_parse_u64(what, w, min, max, &x);

		if (r < 0)
			return r;
		if (multiple > 1 && x % multiple) {
			fprintf(stderr, "fsn-bench: invalid %s '%s' (a multiple of %u)\n", what, w,
				multiple);
			return -EINVAL;
		}
		if (k == max_n) {
			fprintf(stderr, "fsn-bench: %s: at most %u sizes\n", opt, max_n);
			return -EINVAL;
		}
		v[k++] = (unsigned)x;
	}
	if (!k) {
		fprintf(stderr, "fsn-bench: empty %s list\n", opt);
		return -EINVAL;
	}
	qsort(v, k, sizeof(*v), cmp_unsigned);
	for (unsigned i = 0; i < k; i++)
		if (!n || v[n - 1] != v[i])
			v[n++] = v[i];
	return (int)n;
}

int bench_wait_pid(pid_t pid) {
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

void bench_kill_wait(pid_t pid) {
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	(void)bench_wait_pid(pid);
}

const struct bench_memcg *bench_spawn_memcg;

int bench_spawn_in(char *const argv[], const char *cwd, int out_fd, const char *logf,
		   const char *notify_socket, pid_t *ret_pid) {
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		int lfd = open(logf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (lfd >= 0) {
			dup2(lfd, STDOUT_FILENO);
			dup2(lfd, STDERR_FILENO);
		}
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		if (notify_socket)
			setenv("NOTIFY_SOCKET", notify_socket, 1);
		if (bench_spawn_memcg && bench_memcg_join_self(bench_spawn_memcg) < 0) {
			fprintf(stderr, "joining the memory cgroup: %s\n", strerror(errno));
			_exit(127);
		}
		if (cwd && chdir(cwd) < 0) {
			fprintf(stderr, "chdir %s: %s\n", cwd, strerror(errno));
			_exit(127);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	*ret_pid = pid;
	return 0;
}

int bench_spawn(char *const argv[], const char *logf, const char *notify_socket, pid_t *ret_pid) {
	return bench_spawn_in(argv, NULL, -1, logf, notify_socket, ret_pid);
}

void bench_progress(const char *what, unsigned round, unsigned rounds, uint64_t t_start) {
	double el = (double)(bench_now_ns(CLOCK_MONOTONIC) - t_start) / 1e9;
	double eta = round ? el / round * (rounds - round) : 0;
	bool tty = isatty(STDERR_FILENO);

	fprintf(stderr, "%sfsn-bench %s: round %u/%u done, %.0f s elapsed, ~%.0f s left%s",
		tty ? "\r" : "", what, round, rounds, el, eta, tty && round < rounds ? "" : "\n");
}

int bench_pin_here(int *ret_cpu) {
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return negative_errno();
	}
	if (ret_cpu)
		*ret_cpu = cpu;
	return 0;
}

int bench_fclose(FILE *f) {
	int r = 0;

	if (fflush(f) != 0 || ferror(f))
		r = errno ? negative_errno() : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = negative_errno();
	return r;
}

int bench_make_file(const char *path, size_t size) {
	_cleanup_close_ int fd = -1;
	char block[4096];

	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	memset(block, 'x', sizeof(block));
	while (size > 0) {
		size_t len = size < sizeof(block) ? size : sizeof(block);
		ssize_t n = write(fd, block, len);

		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -EIO;
		size -= (size_t)n;
	}
	return 0;
}

int bench_common_opt(int c, const char *arg, struct bench_common *o) {
	switch (c) {
	case BENCH_OPT_ROUNDS:
		return bench_parse_u64("--rounds", arg, o->min_rounds, o->max_rounds, &o->rounds);
	case BENCH_OPT_OPS:
		if (o->no_ops) {
			fprintf(stderr, "%s\n", o->no_ops);
			return -EINVAL;
		}
		return bench_parse_u64("--ops", arg, 1, o->max_ops, &o->ops);
	case BENCH_OPT_QUICK: o->quick = true; return 0;
	case BENCH_OPT_JSON: o->json_path = arg; return 0;
	case BENCH_OPT_FSND: o->fsnotifyd = arg; return 0;
	case 'h': printf("see: fsn-bench --help\n"); return 1;
	default: return -EINVAL;
	}
}

int bench_common_finish(int argc, char **argv, struct bench_common *o) {
	if (optind < argc) {
		fprintf(stderr, "fsn-bench: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (!o->fsnotifyd)
		o->fsnotifyd = bench_default_fsnotifyd();
	return 0;
}

void bench_show_log(const char *path, unsigned max_lines) {
	_cleanup_free_ char *line = NULL;
	size_t size = 0, skip = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	if (max_lines > 0) {
		size_t total = 0;

		while (getline(&line, &size, f) > 0)
			total++;
		skip = total > max_lines ? total - max_lines : 0;
		rewind(f);
	}
	while (getline(&line, &size, f) > 0) {
		if (skip > 0)
			skip--;
		else
			fprintf(stderr, "  | %s", line);
	}
	fclose(f);
}

bool bench_in_path(const char *name, const char *default_path) {
	const char *path = getenv("PATH");

	if (!path)
		path = default_path;
	while (*path) {
		size_t len = strcspn(path, ":");
		char file[PATH_MAX];
		struct stat st;

		/* an empty entry is the current directory */
		if ((size_t)snprintf(file, sizeof(file), "%.*s/%s", len ? (int)len : 1,
				     len ? path : ".", name) < sizeof(file) &&
		    stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0)
			return true;
		path += len;
		if (*path == ':')
			path++;
	}
	return false;
}

bool bench_needs_root(const char *sub, const char *what) {
	if (geteuid() == 0)
		return false;
	printf("fsn-bench %s: skipped: needs root (private mount namespace, %s)\n", sub, what);
	return true;
}

int bench_parse_list(const char *what, const char *text, const char *const *names, size_t count,
		     uint64_t *ret_mask) {
	uint64_t mask = 0;
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < count; i++)
			if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0)
				break;
		if (i == count) {
			fprintf(stderr, "fsn-bench: unknown %s '%.*s'; known:", what, (int)len, p);
			for (i = 0; i < count; i++)
				fprintf(stderr, " %s", names[i]);
			fputc('\n', stderr);
			return -EINVAL;
		}
		mask |= UINT64_C(1) << i;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!mask) {
		fprintf(stderr, "fsn-bench: empty %s list\n", what);
		return -EINVAL;
	}
	*ret_mask = mask;
	return 0;
}

#define MAX_FILE_SIZE (64u << 20)

int bench_read_text(const char *path, char **ret, size_t *ret_len) {
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size > (off_t)MAX_FILE_SIZE)
		return -EFBIG;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return -ENOMEM;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, text + len, (size_t)st.st_size - len);

		if (n < 0)
			return negative_errno();
		if (n == 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	*ret = steal_ptr(&text);
	*ret_len = len;
	return 0;
}

int bench_proc_cpu_ns(pid_t pid, uint64_t *ret) {
	char path[64], buf[1024];
	_cleanup_close_ int fd = -1;
	unsigned long long ut, st;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after "pid (comm)": state(3) ... utime(14) stime(15) */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -EIO;
	*ret = (uint64_t)(ut + st) * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
	return 0;
}

const char *bench_default_fsnotifyd(void) {
	static char buf[PATH_MAX];

	if (exe_relative("../daemon/fsnotifyd", buf, sizeof(buf)) == 0 && access(buf, X_OK) == 0)
		return buf;
	return "fsnotifyd";
}

int bench_fsnotifyd_start(const char *bin, const char *cfg, const char *rundir, pid_t *ret_pid) {
	char sock[PATH_MAX], logf[PATH_MAX], buf[4096];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *argv[] = { (char *)bin, (char *)"--config", (char *)cfg, NULL };
	_cleanup_close_ int s = -1;
	uint64_t deadline;
	pid_t pid;
	int r;

	snprintf(sock, sizeof(sock), "%s/notify.sock", rundir);
	snprintf(logf, sizeof(logf), "%s/fsnotifyd.log", rundir);
	unlink(sock);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return negative_errno();
	if (strlen(sock) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return negative_errno();
	r = bench_spawn(argv, logf, sock, &pid);
	if (r < 0)
		return r;
	deadline = bench_now_ns(CLOCK_MONOTONIC) + (uint64_t)BENCH_READY_DEADLINE_MS * 1000000u;
	for (;;) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		uint64_t now = bench_now_ns(CLOCK_MONOTONIC);
		ssize_t n;
		int st;

		if (now >= deadline || waitpid(pid, &st, WNOHANG) == pid) {
			fprintf(stderr, "fsn-bench: fsnotifyd (%s) did not become ready%s\n", bin,
				now >= deadline ? " in time" : ": it exited");
			bench_show_log(logf, 0);
			if (now >= deadline)
				bench_kill_wait(pid);
			return -ESRCH;
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(s, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (strstr(buf, "READY=1"))
			break;
	}
	*ret_pid = pid;
	return 0;
}

int bench_subscribers_start(const char *sock, unsigned n, pid_t *ret_pid) {
	static const char watch[] = "{\"method\":\"io.fsnotifyd.Watch\",\"more\":true}";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pid_t pid;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		struct pollfd *p = calloc(n ? n : 1, sizeof(*p));
		static char buf[1 << 16];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!p)
			_exit(1);
		for (unsigned i = 0; i < n; i++) {
			int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
			    write(fd, watch, sizeof(watch)) != (ssize_t)sizeof(watch)) {
				fprintf(stderr, "fsn-bench: subscriber %u: %s\n", i,
					strerror(errno));
				_exit(1);
			}
			p[i] = (struct pollfd){ .fd = fd, .events = POLLIN };
		}
		/* read everything as it comes, as a live client does */
		for (;;) {
			if (poll(p, n, -1) < 0 && errno != EINTR)
				_exit(1);
			for (unsigned i = 0; i < n; i++)
				if (p[i].revents && read(p[i].fd, buf, sizeof(buf)) <= 0)
					_exit(1); /* (the daemon went) */
		}
	}
	*ret_pid = pid;
	return 0;
}

int bench_churn_once(int dfd, uint64_t k) {
	char a[32], b[32];
	int fd;

	snprintf(a, sizeof(a), "f%" PRIu64, k);
	snprintf(b, sizeof(b), "g%" PRIu64, k);
	fd = openat(dfd, a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	if (write(fd, "x", 1) != 1) {
		int r = errno ? negative_errno() : -EIO;

		close(fd);
		return r;
	}
	close(fd);
	if (renameat(dfd, a, dfd, b) < 0 || unlinkat(dfd, b, 0) < 0)
		return negative_errno();
	return 0;
}
