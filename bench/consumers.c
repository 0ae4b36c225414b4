/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * consumers.c — `fsn-bench consumers`: how fast event consumers keep up
 * with a storm, how much CPU they spend per event, whether they lose events
 * and say so, and how late a single event arrives.
 *
 * The bench process enters a private mount namespace and mounts two tmpfs
 * instances: W (watched: one directory per generator and one for the
 * probe) and O (not watched: fsnotifyd's config, output and notify socket).
 * Generators are processes, each doing create (O_CREAT|O_EXCL), 1-byte
 * write, close, rename, unlink on unique names in its own directory, at
 * full speed, for N operations. A probe process creates one file every
 * PROBE_INTERVAL_MS whose name carries its CLOCK_REALTIME timestamp taken
 * just before the create; the consumer's receipt time minus that is the
 * latency.
 *
 * Every name is used once, so no two events of one type on one object are
 * ever queued together: fanotify's merging of identical unread events
 * cannot hide a loss. Merging of different types on one name (create +
 * modify + close_write in one record) does happen; it is why delivered
 * events are counted per type bit, not per record. "Generated" is the
 * exact per-type count the kernel would queue without merges:
 *   create = G*N + P, modify = G*N, close_write = G*N + P,
 *   moved_from = moved_to = delete = G*N   (P = probe files).
 *
 * Consumers: none (the generators' baseline speed); floor (the cheapest
 * reader that does fsnotifyd's work per record, in its own process:
 * filesystem mark, FAN_REPORT_DFID_NAME, 256 KiB reads, after a short read
 * 1 ms for events to gather; per record the path through a cache of
 * directory handles, comm and uid through a pid cache, one JSON line, the
 * lines of a read in one write() to a file on O: floorline.c); floor-count
 * (the same reader counting per type and nothing else); floor-old (the
 * first floor, for reference: the count-only reader reading again as soon
 * as a read returns, so a few events per read in a storm). The floors'
 * results go to shared memory;
 * fsnotifyd (started with a generated config, ready on READY=1 over
 * NOTIFY_SOCKET, JSON lines to a file on O; parsed after the run), and the
 * Debian tools inotifywait (-m -r) and fatrace (-c, in W), whose stdout goes
 * through a pipe to a reader process that counts lines per type and stamps
 * probe lines on receipt (results in shared memory, as for the floor); they
 * are ready once the reader has seen an event on a sentinel file in W/ready,
 * and reported "not installed" when missing. fatrace names only the
 * directory of a create, delete or move and prints W for modify and
 * close_write alike, so only its close_write count is exact: its other types
 * are "n/a", never counted as lost, and its latency is the probe file's
 * close_write.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "floorline.h"
#include "fsn-bench.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "json.h"
#include "memcg.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#define MAX_GENERATORS 16
#define MAX_LATENCIES 65536
#define PROBE_INTERVAL_MS 10
#define IDLE_MS 300             /* no new event for this long: drained */
#define DRAIN_DEADLINE_MS 60000 /* give up waiting for a consumer to drain */

enum ev_type { T_CREATE = 0, T_MODIFY, T_CLOSE_WRITE, T_MOVED_FROM, T_MOVED_TO, T_DELETE, _T_MAX };

static const char *const type_names[_T_MAX] = {
	"create", "modify", "close_write", "moved_from", "moved_to", "delete",
};
static const uint64_t type_bits[_T_MAX] = {
	FAN_CREATE, FAN_MODIFY, FAN_CLOSE_WRITE, FAN_MOVED_FROM, FAN_MOVED_TO, FAN_DELETE,
};

enum consumer {
	C_NONE = 0,
	C_FLOOR,
	C_FLOOR_COUNT,
	C_FLOOR_OLD,
	C_FSNOTIFYD,
	C_INOTIFYWAIT,
	C_FATRACE,
	_C_MAX
};

static const char *const consumer_names[_C_MAX] = {
	"none", "floor", "floor-count", "floor-old", "fsnotifyd", "inotifywait", "fatrace",
};
static const char *const consumer_descriptions[_C_MAX] = {
	"no consumer: the generators' own speed",
	"the cheapest reader that does fsnotifyd's work per record: floor-count's reads, and for "
	"each record the path (directory handle through a cache, then the name), comm and uid "
	"(/proc through a pid cache as fresh as fsnotifyd's) and one JSON line, the lines of a "
	"read in one write() to a file on another tmpfs",
	"fanotify reader tuned like a good one: filesystem mark, FAN_REPORT_DFID_NAME, 256 KiB "
	"reads, after a short read 1 ms for events to gather, counts per type and nothing else",
	"the first floor: the count-only reader reading again as soon as a read returns (a few "
	"events per read during a storm)",
	"fsnotifyd, recursive rule on the storm dir, JSON lines to a file on another tmpfs",
	"inotifywait -m -r -e the storm's types,q_overflow --format '%e %w%f' (Debian "
	"inotify-tools), stdout through a pipe to a counting reader",
	"fatrace -c -f 'W+D<' in the storm's tmpfs (Debian fatrace), stdout through a pipe to "
	"a counting reader; close_write only (other types n/a)",
};

#define ALL_TYPES ((1u << _T_MAX) - 1)

static bool is_floor(enum consumer c) {
	return c == C_FLOOR || c == C_FLOOR_COUNT || c == C_FLOOR_OLD;
}

/* The types a consumer's output can count exactly; the others are "n/a",
 * neither generated nor lost. */
static const unsigned countable[_C_MAX] = {
	ALL_TYPES, ALL_TYPES, ALL_TYPES, ALL_TYPES, ALL_TYPES, ALL_TYPES, 1u << T_CLOSE_WRITE,
};
/* The probe file's event whose receipt gives the latency. */
static const enum ev_type latency_type[_C_MAX] = {
	T_CREATE, T_CREATE, T_CREATE, T_CREATE, T_CREATE, T_CREATE, T_CLOSE_WRITE,
};

/* Shared (MAP_SHARED anonymous) between the bench and its children. */
struct shared {
	int stop_probe;
	uint64_t probes;
	uint64_t gen_wall_ns[MAX_GENERATORS];
	uint64_t gen_ops[MAX_GENERATORS]; /* operations each generator did */
	/* the floor reader, or the reader of inotifywait's / fatrace's lines */
	int reader_ready;
	uint64_t counts[_T_MAX];
	uint64_t records, overflows, last_ns;
	uint32_t nlat;
	uint64_t lat_ns[MAX_LATENCIES];
};

struct run {
	bool done;
	bool exited;            /* the consumer exited before the bench ended it */
	uint64_t gen_wall_ns;   /* mean over generators */
	uint64_t cpu_ns;        /* consumer, over storm + drain */
	uint64_t reader_cpu_ns; /* the bench's line reader (not in cpu_ns) */
	uint64_t records;       /* records read (kernel events or JSON lines) */
	uint64_t counts[_T_MAX];
	uint64_t generated[_T_MAX];
	uint64_t overflows;
	uint64_t contents; /* content records (--hash) */
	int64_t drain_ns;
	size_t nlat;
	uint64_t *lat_ns;
	uint64_t peak_rss_kb; /* the consumer's VmHWM at the end (0: unknown) */
	uint64_t mid_rss_kb;  /* its VmRSS half way through a --duration storm */
	uint64_t end_rss_kb;  /* ... and at the end */
	bool kmem_known;      /* (its memory cgroup could be measured) */
	uint64_t peak_kmem;   /* its cgroup's peak kernel memory above idle, bytes */
	bool out_full;        /* fsnotifyd: its output filesystem filled up */
};

struct cons_opts {
	unsigned rounds;
	uint64_t ops;
	unsigned duration; /* seconds each generator storms (0: ops each) */
	unsigned generators;
	bool quick;
	uint64_t consumers;
	const char *json_path;
	const char *fsnotifyd;
	unsigned subscribers; /* live Watch clients on fsnotifyd's control socket */
	bool evidence;        /* fsnotifyd's rule asks who and attributes too */
	bool hash;            /* ... and hash (a content record after close_write and create) */
};

struct cons_env {
	char base[64];
	char watch[96];
	char out[96];
};

static void sleep_ms(unsigned ms) {
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------------------ */
/* Namespace and tmpfs                                                       */
/* ------------------------------------------------------------------------ */

static int env_setup(struct cons_env *env, unsigned generators) {
	char dir[160];
	int r;

	r = bench_env_enter(env->base, sizeof(env->base), "/tmp/fsn-bench-c.XXXXXX");
	if (r == 0)
		r = bench_mount_tmpfs(env->base, "w", "64m", env->watch, sizeof(env->watch));
	if (r == 0)
		/* (fsnotifyd's JSON: a sustained storm writes gigabytes; the
		 * pages are taken only as the file grows) */
		r = bench_mount_tmpfs(env->base, "o", "75%", env->out, sizeof(env->out));
	if (r < 0)
		return r;
	for (unsigned i = 0; i < generators; i++) {
		snprintf(dir, sizeof(dir), "%s/g%u", env->watch, i);
		if (mkdir(dir, 0700) < 0)
			return negative_errno();
	}
	snprintf(dir, sizeof(dir), "%s/probe", env->watch);
	if (mkdir(dir, 0700) < 0)
		return negative_errno();
	snprintf(dir, sizeof(dir), "%s/ready", env->watch);
	return mkdir(dir, 0700) < 0 ? negative_errno() : 0;
}

/* ------------------------------------------------------------------------ */
/* Generators and the probe                                                  */
/* ------------------------------------------------------------------------ */

static int generator_main(const struct cons_env *env, const struct cons_opts *o, unsigned idx,
			  int go, struct shared *sh) {
	char dir[160], c;
	_cleanup_close_ int dfd = -1;
	uint64_t t0;

	snprintf(dir, sizeof(dir), "%s/g%u", env->watch, idx);
	dfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (dfd < 0 || read(go, &c, 1) < 0)
		return 1;
	t0 = bench_now_ns(CLOCK_MONOTONIC);
	for (uint64_t k = 0;; k++) {
		if (o->duration ? (k % 256 == 0 && bench_now_ns(CLOCK_MONOTONIC) - t0 >=
						       (uint64_t)o->duration * 1000000000u)
				: k == o->ops) {
			sh->gen_ops[idx] = k;
			break;
		}
		if (bench_churn_once(dfd, k) < 0)
			return 1;
	}
	sh->gen_wall_ns[idx] = bench_now_ns(CLOCK_MONOTONIC) - t0;
	return 0;
}

static int probe_main(const struct cons_env *env, int go, struct shared *sh) {
	char path[256], c;
	uint64_t seq = 0;

	if (read(go, &c, 1) < 0)
		return 1;
	while (!__atomic_load_n(&sh->stop_probe, __ATOMIC_ACQUIRE)) {
		uint64_t t = bench_now_ns(CLOCK_REALTIME);
		int fd;

		snprintf(path, sizeof(path), "%s/probe/p-%" PRIu64 "-%" PRIu64, env->watch, seq++,
			 t);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return 1;
		close(fd);
		__atomic_store_n(&sh->probes, seq, __ATOMIC_RELEASE);
		sleep_ms(PROBE_INTERVAL_MS);
	}
	return 0;
}

/* Run the storm: G generators and the probe released at once. Returns the
 * CLOCK_REALTIME ns at which the last generator finished. */
/* A /proc/PID/status value in kB ("VmHWM:"), 0 when unknown. */
static uint64_t proc_status_kb(pid_t pid, const char *key) {
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0) {
			if (sscanf(line + strlen(key), "%llu", &v) != 1)
				v = 0;
			break;
		}
	fclose(f);
	return v;
}

static int storm(const struct cons_env *env, const struct cons_opts *o, struct shared *sh,
		 pid_t consumer, struct run *run, uint64_t *ret_end) {
	pid_t pids[MAX_GENERATORS + 1];
	int go[2], r = 0;
	unsigned n = 0;

	if (pipe2(go, O_CLOEXEC) < 0)
		return negative_errno();
	__atomic_store_n(&sh->stop_probe, 0, __ATOMIC_RELEASE);
	sh->probes = 0;
	for (unsigned i = 0; i <= o->generators; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			r = negative_errno();
			break;
		}
		if (pid == 0) {
			close(go[1]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(i < o->generators ? generator_main(env, o, i, go[0], sh)
						: probe_main(env, go[0], sh));
		}
		pids[n++] = pid;
	}
	close(go[0]);
	close(go[1]); /* GO: every child's read returns 0 */
	if (o->duration && consumer > 0 && r == 0) {
		/* (a sustained storm: is the consumer's memory flat?) */
		sleep_ms(o->duration * 500u);
		run->mid_rss_kb = proc_status_kb(consumer, "VmRSS:");
	}
	for (unsigned i = 0; i < n && i < o->generators; i++)
		if (bench_wait_pid(pids[i]) < 0 && r == 0)
			r = -ECHILD;
	*ret_end = bench_now_ns(CLOCK_REALTIME);
	__atomic_store_n(&sh->stop_probe, 1, __ATOMIC_RELEASE);
	if (n > o->generators && bench_wait_pid(pids[o->generators]) < 0 && r == 0)
		r = -ECHILD;
	return r;
}

/* ------------------------------------------------------------------------ */
/* The floor: a minimal fanotify reader                                      */
/* ------------------------------------------------------------------------ */

static uint64_t storm_mask(void) {
	uint64_t m = 0;

	for (unsigned t = 0; t < _T_MAX; t++)
		m |= type_bits[t];
	return m;
}

/* The probe's timestamp from a "p-SEQ-NS" name, or 0. */
static uint64_t probe_stamp(const char *name) {
	const char *dash;

	if (strncmp(name, "p-", 2) != 0)
		return 0;
	dash = strchr(name + 2, '-');
	return dash ? strtoull(dash + 1, NULL, 10) : 0;
}

/* Count one record (bit t of types: type t) into the shared counters; name,
 * when set, is the object's name in a record of the consumer's latency type:
 * a probe file's gives a latency sample. */
static void count_record(struct shared *sh, unsigned types, bool overflow, const char *name,
			 uint64_t now) {
	uint64_t t;

	sh->records++;
	if (overflow)
		sh->overflows++;
	for (unsigned i = 0; i < _T_MAX; i++)
		if (types & (1u << i))
			sh->counts[i]++;
	t = name ? probe_stamp(name) : 0;
	if (t && sh->nlat < MAX_LATENCIES)
		sh->lat_ns[sh->nlat++] = now > t ? now - t : 0;
}

/* After a short read, what the tuned floors wait for events to gather (as
 * fsnotifyd's reader thread does): a read per few events costs more than
 * the events. */
#define FLOOR_GATHER_NS 1000000L

/* C_FLOOR: the lines; C_FLOOR_COUNT: counts only; C_FLOOR_OLD: counts, no
 * gathering. */
static int floor_main(const struct cons_env *env, struct shared *sh, enum consumer c) {
	static char buf[256 * 1024] __attribute__((aligned(8)));
	const struct timespec gather = { .tv_nsec = FLOOR_GATHER_NS };
	struct floor_line *lines = NULL;
	char out[160];
	int fd, r;

	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_CLOEXEC, O_RDONLY);
	if (fd < 0 || fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, storm_mask(), AT_FDCWD,
				    env->watch) < 0) {
		perror("fsn-bench: floor reader: fanotify");
		return 1;
	}
	snprintf(out, sizeof(out), "%s/floor.jsonl", env->out);
	if (c == C_FLOOR && !(lines = floor_line_new(env->watch, out))) {
		perror("fsn-bench: floor reader: its output");
		return 1;
	}
	__atomic_store_n(&sh->reader_ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		uint64_t now;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		now = bench_now_ns(CLOCK_REALTIME);
		for (struct fanotify_event_metadata *m = (void *)buf; FAN_EVENT_OK(m, n);
		     m = FAN_EVENT_NEXT(m, n)) {
			const char *name = NULL;
			unsigned types = 0;

			for (unsigned t = 0; t < _T_MAX; t++)
				if (m->mask & type_bits[t])
					types |= 1u << t;
			if ((m->mask & FAN_CREATE) && m->event_len > sizeof(*m)) {
				struct fanotify_event_info_fid *fid = (void *)(m + 1);
				struct file_handle *fh = (void *)fid->handle;

				if (fid->hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME)
					name = (const char *)fh->f_handle + fh->handle_bytes;
			}
			r = lines ? floor_line_record(lines, m, now / 1000, type_names, type_bits,
						      _T_MAX)
				  : 0;
			if (r < 0) {
				fprintf(stderr, "fsn-bench: floor reader: writing its output: %s\n",
					strerror(-r));
				return 1;
			}
			if (r > 0) { /* (the storm's directories live through it) */
				fprintf(stderr, "fsn-bench: floor reader: a record's directory "
						"could not be opened by its handle\n");
				return 1;
			}
			count_record(sh, types, m->mask & FAN_Q_OVERFLOW, name, now);
		}
		if (lines && (r = floor_line_flush(lines)) < 0) {
			fprintf(stderr, "fsn-bench: floor reader: writing its output: %s\n",
				strerror(-r));
			return 1;
		}
		__atomic_store_n(&sh->last_ns, now, __ATOMIC_RELEASE);
		if (c != C_FLOOR_OLD && (size_t)n < sizeof(buf) / 2)
			nanosleep(&gather, NULL);
	}
}

/* Whether pid has exited (it is left to be reaped). */
static bool child_exited(pid_t pid) {
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid;
}

/* Wait (BENCH_READY_DEADLINE_MS) until sh->reader_ready is set. With sentinel (a
 * directory on W), make a new file there every 20 ms: the reader sets it on
 * seeing one, which proves the consumer's watches are in place. -ESRCH when
 * pid exits first (it is left to be reaped) or the deadline passes. */
static int wait_ready(struct shared *sh, pid_t pid, const char *sentinel) {
	static unsigned seq;
	uint64_t deadline =
	    bench_now_ns(CLOCK_MONOTONIC) + (uint64_t)BENCH_READY_DEADLINE_MS * 1000000u;
	char path[160];

	while (!__atomic_load_n(&sh->reader_ready, __ATOMIC_ACQUIRE)) {
		if (bench_now_ns(CLOCK_MONOTONIC) >= deadline || child_exited(pid))
			return -ESRCH;
		if (sentinel) {
			snprintf(path, sizeof(path), "%s/r-%u", sentinel, seq++);
			(void)bench_make_file(path, 0);
		}
		sleep_ms(sentinel ? 20 : 10);
	}
	return 0;
}

static int floor_start(const struct cons_env *env, struct shared *sh, enum consumer c,
		       pid_t *ret_pid) {
	pid_t pid = fork();

	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (bench_spawn_memcg && bench_memcg_join_self(bench_spawn_memcg) < 0)
			_exit(127);
		_exit(floor_main(env, sh, c));
	}
	if (wait_ready(sh, pid, NULL) < 0) {
		bench_kill_wait(pid);
		return -ESRCH;
	}
	*ret_pid = pid;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* fsnotifyd                                                                 */
/* ------------------------------------------------------------------------ */

static int write_config(const struct cons_env *env, const char *cfg, const char *events,
			const char *sock, bool evidence, bool hash) {
	FILE *f = fopen(cfg, "we");

	if (!f)
		return negative_errno();
	fprintf(f,
		"# generated by fsn-bench consumers\n"
		"log_level = \"warning\";\n"
		"outputs = [\"bench\"];\n"
		"output = { bench = { type = \"json\"; file = \"%s\"; }; };\n"
		"control = { socket = \"%s\"; };\n"
		"rules = ({\n"
		"  name = \"storm\";\n"
		"  paths = [\"%s\"];\n"
		"  recursive = true;\n"
		"  events = [\"create\", \"modify\", \"close_write\", \"moved_from\", "
		"\"moved_to\", \"delete\"];\n"
		"%s%s"
		"});\n",
		events, sock, env->watch, evidence ? "  who = true;\n  attributes = true;\n" : "",
		hash ? "  hash = true;\n" : "");
	return fclose(f) == 0 ? 0 : negative_errno();
}

/* fsnotifyd with a generated config: a recursive rule on W, JSON to O. */
static int fsnotifyd_start(const struct cons_env *env, const struct cons_opts *o, pid_t *ret_pid,
			   pid_t *ret_subs) {
	char cfg[160], events[160], sock[160];
	int r;

	snprintf(cfg, sizeof(cfg), "%s/fsnotifyd.conf", env->out);
	snprintf(events, sizeof(events), "%s/events.jsonl", env->out);
	snprintf(sock, sizeof(sock), "%s/control", env->out);
	unlink(events);
	r = write_config(env, cfg, events, sock, o->evidence, o->hash);
	if (r == 0)
		r = bench_fsnotifyd_start(o->fsnotifyd, cfg, env->out, ret_pid);
	if (r == 0 && o->subscribers) {
		r = bench_subscribers_start(sock, o->subscribers, ret_subs);
		if (r < 0)
			bench_kill_wait(*ret_pid);
		else /* (the daemon takes them on its loop: let it before the storm) */
			sleep_ms(200);
	}
	return r;
}

/* "2026-11-30T05:52:17.123456Z" -> ns since the epoch, 0 on error. */
static uint64_t parse_rfc3339(const char *s) {
	struct tm tm = { 0 };
	unsigned usec = 0;
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!p)
		return 0;
	if (*p == '.')
		usec = (unsigned)strtoul(p + 1, NULL, 10);
	return (uint64_t)timegm(&tm) * 1000000000u + (uint64_t)usec * 1000u;
}

static int parse_events_file(const char *path, struct run *run) {
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	ssize_t len;

	if (!f)
		return negative_errno();
	while ((len = getline(&line, &cap, f)) > 0) {
		struct json *j = NULL;
		const struct json *ev;
		const char *kind, *p, *time;
		size_t off;

		if (json_parse(line, (size_t)len, &j, &off) < 0)
			continue;
		kind = json_get_string(j, "kind");
		if (kind && strcmp(kind, "content") == 0) { /* (--hash: not an event's) */
			run->contents++;
			json_free(j);
			continue;
		}
		run->records++;
		if (kind && strcmp(kind, "event") != 0) {
			run->overflows++; /* "overflow" and "dropped" both say: lost */
			json_free(j);
			continue;
		}
		ev = json_get(j, "events");
		for (size_t i = 0; ev && ev->type == JSON_ARRAY && i < ev->n; i++)
			for (unsigned t = 0; t < _T_MAX; t++)
				if (ev->values[i]->type == JSON_STRING &&
				    strcmp(ev->values[i]->string, type_names[t]) == 0)
					run->counts[t]++;
		p = json_get_string(j, "path");
		time = json_get_string(j, "time");
		if (p && time && strstr(p, "/probe/p-")) {
			bool create = false;

			for (size_t i = 0; ev && ev->type == JSON_ARRAY && i < ev->n; i++)
				if (ev->values[i]->type == JSON_STRING &&
				    strcmp(ev->values[i]->string, "create") == 0)
					create = true;
			if (create) {
				uint64_t t = probe_stamp(strrchr(p, '/') + 1),
					 r = parse_rfc3339(time);

				if (run->nlat == alloc) {
					uint64_t *n;

					alloc = alloc ? alloc * 2 : 1024;
					n = realloc(run->lat_ns, alloc * sizeof(*n));
					if (!n) {
						json_free(j);
						break;
					}
					run->lat_ns = n;
				}
				if (t && r)
					run->lat_ns[run->nlat++] = r > t ? r - t : 0;
			}
		}
		json_free(j);
	}
	free(line);
	fclose(f);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* inotifywait and fatrace: lines on a pipe, counted by a reader process      */
/* ------------------------------------------------------------------------ */

struct line_event {
	unsigned types; /* bit t: type t */
	bool overflow;
	const char *path; /* NULL when the line names none */
};

/* inotifywait --format '%e %w%f': "CLOSE_WRITE,CLOSE /w/g0/f1"; an overflow
 * is "Q_OVERFLOW " (no watch, no path). One inotify event per line. */
static void parse_inotifywait(char *line, struct line_event *ev) {
	char *sp = strchr(line, ' '), *save = NULL;

	if (!sp)
		return;
	*sp = '\0';
	ev->path = sp[1] ? sp + 1 : NULL;
	for (char *w = strtok_r(line, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "Q_OVERFLOW") == 0)
			ev->overflow = true;
		for (unsigned t = 0; t < _T_MAX; t++)
			if (strcasecmp(w, type_names[t]) == 0)
				ev->types |= 1u << t;
	}
}

/* fatrace: "COMM(PID): FLAGS PATH", one fanotify record per line. FLAGS: +
 * create, D delete, < moved_from, > moved_to (PATH is then the directory's),
 * C close (the storm only closes files it wrote: close_write), W modify or
 * close_write (counted as modify, which is n/a for fatrace). PATH is
 * "(deleted)" when the object was gone by the time fatrace looked. The
 * kernel's overflow record has none of the types of -f: fatrace drops it. */
static void parse_fatrace(char *line, struct line_event *ev) {
	static const char letters[_T_MAX] = { '+', 'W', 'C', '<', '>', 'D' };
	char *p = strstr(line, "): ");

	if (!p)
		return;
	for (p += 3; *p && *p != ' '; p++)
		for (unsigned t = 0; t < _T_MAX; t++)
			if (*p == letters[t])
				ev->types |= 1u << t;
	p += strspn(p, " "); /* FLAGS are padded to 3 columns */
	ev->path = *p ? p : NULL;
}

/* One line: the sentinel's (below ready, which is W/ready) makes the reader
 * ready and is not counted; the rest are counted as the floor counts
 * records. */
static void count_line(enum consumer c, const char *ready, char *line, uint64_t now,
		       struct shared *sh) {
	struct line_event ev = { 0 };
	size_t len = strlen(ready);
	const char *name = NULL;

	if (c == C_INOTIFYWAIT)
		parse_inotifywait(line, &ev);
	else
		parse_fatrace(line, &ev);
	if (!ev.types && !ev.overflow)
		return;
	if (ev.path && strncmp(ev.path, ready, len) == 0 &&
	    (ev.path[len] == '\0' || ev.path[len] == '/')) {
		__atomic_store_n(&sh->reader_ready, 1, __ATOMIC_RELEASE);
		return;
	}
	if (ev.path && (ev.types & (1u << latency_type[c])) && strrchr(ev.path, '/'))
		name = strrchr(ev.path, '/') + 1;
	count_record(sh, ev.types, ev.overflow, name, now);
}

/* Read the consumer's stdout until EOF; every read is stamped on receipt
 * (CLOCK_REALTIME), like the floor's. */
static int line_reader_main(enum consumer c, const struct cons_env *env, int fd,
			    struct shared *sh) {
	static char buf[256 * 1024];
	char ready[128];
	size_t have = 0;

	snprintf(ready, sizeof(ready), "%s/ready", env->watch);
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *p = buf, *nl;
		uint64_t now;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0;
		now = bench_now_ns(CLOCK_REALTIME);
		have += (size_t)n;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			*nl = '\0';
			count_line(c, ready, p, now, sh);
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == sizeof(buf) - 1) /* no newline in 256 KiB: not a line */
			have = 0;
		__atomic_store_n(&sh->last_ns, now, __ATOMIC_RELEASE);
	}
}

/* Start inotifywait or fatrace on W with its stdout on a pipe (1 MiB) to a
 * reader process, its stderr in O/NAME.log; wait until the reader has seen
 * a sentinel file's event. */
static int tool_start(const struct cons_env *env, enum consumer c, struct shared *sh,
		      pid_t *ret_pid, pid_t *ret_reader) {
	char *const inotifywait[] = {
		(char *)"inotifywait",
		(char *)"-m",
		(char *)"-r",
		(char *)"-e",
		(char *)"create,modify,close_write,moved_from,moved_to,delete,q_overflow",
		(char *)"--format",
		(char *)"%e %w%f",
		(char *)env->watch,
		NULL,
	};
	/* -c: a filesystem mark on the tmpfs of its working directory */
	char *const fatrace[] = { (char *)"fatrace", (char *)"-c", (char *)"-f", (char *)"W+D<",
				  NULL };
	char logf[160], sentinel[160];
	pid_t pid = -1, reader = -1;
	int p[2], r;

	snprintf(logf, sizeof(logf), "%s/%s.log", env->out, consumer_names[c]);
	snprintf(sentinel, sizeof(sentinel), "%s/ready", env->watch);
	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	r = bench_spawn_in(c == C_INOTIFYWAIT ? inotifywait : fatrace,
			   c == C_FATRACE ? env->watch : NULL, p[1], logf, NULL, &pid);
	if (r == 0) {
		reader = fork();
		if (reader < 0)
			r = negative_errno();
		if (reader == 0) {
			close(p[1]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(line_reader_main(c, env, p[0], sh));
		}
	}
	close(p[0]);
	close(p[1]);
	if (r == 0 && wait_ready(sh, pid, sentinel) < 0) {
		fprintf(stderr, "fsn-bench: %s did not report a test event within %d ms\n",
			consumer_names[c], BENCH_READY_DEADLINE_MS);
		bench_show_log(logf, 0);
		r = -ESRCH;
	}
	if (r < 0) {
		bench_kill_wait(pid);
		bench_kill_wait(reader);
		return r;
	}
	*ret_pid = pid;
	*ret_reader = reader;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* One run of one consumer                                                   */
/* ------------------------------------------------------------------------ */

static bool consumer_available(enum consumer c) {
	return (c != C_INOTIFYWAIT && c != C_FATRACE) ||
	       bench_in_path(consumer_names[c],
			     "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
}

static const char *consumer_note(enum consumer c) {
	return consumer_available(c) ? "" : "not installed";
}

/* Wait until *counter has not moved for IDLE_MS (or the deadline). */
static void wait_idle_counter(const uint64_t *counter) {
	uint64_t last = __atomic_load_n(counter, __ATOMIC_ACQUIRE),
		 t_last = bench_now_ns(CLOCK_MONOTONIC);
	uint64_t deadline = t_last + (uint64_t)DRAIN_DEADLINE_MS * 1000000u;

	for (;;) {
		uint64_t now = bench_now_ns(CLOCK_MONOTONIC), v;

		sleep_ms(20);
		v = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
		if (v != last) {
			last = v;
			t_last = now;
		} else if (now - t_last >= (uint64_t)IDLE_MS * 1000000u || now > deadline) {
			return;
		}
	}
}

/* Wait until the file's size has not moved for IDLE_MS; its mtime then is
 * when the consumer reported its last event. */
static uint64_t wait_idle_file(const char *path) {
	uint64_t t_last = bench_now_ns(CLOCK_MONOTONIC), deadline;
	off_t last = -1;
	struct stat st = { 0 };

	deadline = t_last + (uint64_t)DRAIN_DEADLINE_MS * 1000000u;
	for (;;) {
		uint64_t now = bench_now_ns(CLOCK_MONOTONIC);

		sleep_ms(20);
		if (stat(path, &st) < 0)
			st.st_size = 0;
		if (st.st_size != last) {
			last = st.st_size;
			t_last = now;
		} else if (now - t_last >= (uint64_t)IDLE_MS * 1000000u || now > deadline) {
			break;
		}
	}
	return (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
}

static void fill_generated(const struct cons_opts *o, const struct shared *sh, struct run *run) {
	uint64_t gn = 0, probes = sh->probes;

	for (unsigned i = 0; i < o->generators; i++)
		gn += sh->gen_ops[i];

	for (unsigned t = 0; t < _T_MAX; t++)
		run->generated[t] = gn;
	run->generated[T_CREATE] += probes;
	run->generated[T_CLOSE_WRITE] += probes;
}

/* Why the kernel memory of a consumer's queues is not known ("-"), once. */
static const char *memcg_note;

static int run_one(const struct cons_env *env, const struct cons_opts *o, struct shared *sh,
		   enum consumer c, struct run *run) {
	uint64_t end = 0, cpu0 = 0, cpu1 = 0, rcpu0 = 0, rcpu1 = 0, last = 0, sum = 0;
	struct bench_memcg memcg = { .sampler = -1 };
	char events[160];
	pid_t pid = -1, reader = -1, subs = -1;
	int r = 0;

	memset(sh, 0, sizeof(*sh));
	snprintf(events, sizeof(events), "%s/events.jsonl", env->out);
	/* (the consumer in a memory cgroup of its own: its queues' kernel memory) */
	if (c != C_NONE && bench_memcg_create(&memcg, consumer_names[c]) == 0)
		bench_spawn_memcg = &memcg;
	else if (c != C_NONE && !memcg_note)
		memcg_note = memcg.why;
	if (is_floor(c))
		r = floor_start(env, sh, c, &pid);
	else if (c == C_FSNOTIFYD)
		r = fsnotifyd_start(env, o, &pid, &subs);
	else if (c == C_INOTIFYWAIT || c == C_FATRACE)
		r = tool_start(env, c, sh, &pid, &reader);
	bench_spawn_memcg = NULL;
	if (r < 0)
		goto out;
	if (memcg.dir[0] && bench_memcg_arm(&memcg) < 0 && !memcg_note)
		memcg_note = "cannot read the memory cgroup's kernel memory";
	if ((pid > 0 && (r = bench_proc_cpu_ns(pid, &cpu0)) < 0) ||
	    (reader > 0 && (r = bench_proc_cpu_ns(reader, &rcpu0)) < 0))
		goto out;
	r = storm(env, o, sh, pid, run, &end);
	if (r < 0)
		goto out;
	if (c == C_FSNOTIFYD) {
		last = wait_idle_file(events);
	} else if (pid > 0) { /* counted into sh by the floor or the line reader */
		wait_idle_counter(&sh->records);
		last = __atomic_load_n(&sh->last_ns, __ATOMIC_ACQUIRE);
	}
	if ((pid > 0 && (r = bench_proc_cpu_ns(pid, &cpu1)) < 0) ||
	    (reader > 0 && (r = bench_proc_cpu_ns(reader, &rcpu1)) < 0))
		goto out;
	for (unsigned i = 0; i < o->generators; i++)
		sum += sh->gen_wall_ns[i];
	run->gen_wall_ns = sum / o->generators;
	run->cpu_ns = cpu1 - cpu0;
	run->reader_cpu_ns = rcpu1 - rcpu0;
	if (pid > 0 && child_exited(pid)) {
		char logf[160];

		snprintf(logf, sizeof(logf), "%s/%s.log", env->out, consumer_names[c]);
		fprintf(stderr, "fsn-bench: %s exited during the run\n", consumer_names[c]);
		bench_show_log(logf, 0);
		run->exited = true;
	}
	/* the parent notes the generators' end after reaping them: a consumer that
	 * kept up may have read the last event before that; it drained in 0 */
	run->drain_ns = last > end ? (int64_t)(last - end) : 0;
	fill_generated(o, sh, run);
	if (pid > 0) {
		run->peak_rss_kb = proc_status_kb(pid, "VmHWM:");
		run->end_rss_kb = proc_status_kb(pid, "VmRSS:");
		run->kmem_known = memcg.dir[0] && bench_memcg_peak(&memcg, &run->peak_kmem) == 0;
	}
	bench_kill_wait(subs);
	subs = -1;
	bench_kill_wait(pid);
	pid = -1;
	if (reader > 0) { /* it reads what is left in the pipe, then EOF */
		(void)bench_wait_pid(reader);
		reader = -1;
	}
	if (c == C_FSNOTIFYD) {
		struct statvfs sv;

		/* a full output filesystem loses what the daemon writes, which no
		 * overflow record can say: the run proves nothing */
		if (statvfs(env->out, &sv) == 0 && sv.f_bavail < sv.f_blocks / 50) {
			fprintf(stderr,
				"fsn-bench: %s is full: fsnotifyd could not write its "
				"events; this run is not valid\n",
				env->out);
			run->out_full = true;
		}
		r = parse_events_file(events, run);
		unlink(events);
		if (r < 0)
			goto out;
	} else if (c != C_NONE) {
		memcpy(run->counts, sh->counts, sizeof(run->counts));
		run->records = sh->records;
		run->overflows = sh->overflows;
		run->nlat = sh->nlat;
		run->lat_ns = calloc(sh->nlat ? sh->nlat : 1, sizeof(uint64_t));
		if (!run->lat_ns) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(run->lat_ns, sh->lat_ns, sh->nlat * sizeof(uint64_t));
	}
	run->done = true;
	r = 0;
out:
	bench_kill_wait(subs);
	bench_kill_wait(pid);
	bench_kill_wait(reader);
	bench_memcg_destroy(&memcg);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Rounds, summary, table, JSON                                             */
/* ------------------------------------------------------------------------ */

struct csum {
	bool ran;
	uint64_t generated, delivered, lost, overflows, records;
	uint64_t per_type_lost[_T_MAX];
	double cpu_us_per_event, slowdown, drain_ms, p50_ms, p99_ms;
	double peak_mb, rss_growth; /* median peak RSS; --duration: end / mid RSS */
	double kmem_mb;             /* median peak kernel memory of its queues */
	size_t nlat;
	unsigned exited;   /* rounds in which the consumer exited on its own */
	unsigned out_full; /* rounds in which fsnotifyd's output filesystem filled */
	bool unreported_loss;
};

static void summarize(const struct cons_opts *o, struct run *runs, enum consumer c,
		      struct csum *s) {
	static const double lat_quantiles[] = { 0.50, 0.99 };
	double cpu[64], slow[64], drain[64], peak[64], growth[64], kmem[64],
	    lat_ns[ELEMENTSOF(lat_quantiles)];
	size_t n = 0, nlat = 0, ng = 0, nk = 0;
	_cleanup_free_ uint64_t *lat = NULL;

	memset(s, 0, sizeof(*s));
	for (unsigned r = 0; r < o->rounds; r++)
		nlat += runs[r * _C_MAX + c].nlat;
	lat = calloc(nlat ? nlat : 1, sizeof(*lat));
	nlat = 0;
	for (unsigned r = 0; r < o->rounds && n < 64; r++) {
		const struct run *x = &runs[r * _C_MAX + c], *base = &runs[r * _C_MAX + C_NONE];
		uint64_t gen = 0, del = 0;

		if (!x->done)
			continue;
		s->ran = true;
		for (unsigned t = 0; t < _T_MAX; t++) {
			if (!(countable[c] & (1u << t)))
				continue; /* n/a: neither generated nor lost */
			gen += x->generated[t];
			del += x->counts[t];
			if (x->generated[t] > x->counts[t])
				s->per_type_lost[t] += x->generated[t] - x->counts[t];
		}
		s->generated += gen;
		s->delivered += del;
		s->overflows += x->overflows;
		s->records += x->records;
		s->exited += x->exited;
		s->out_full += x->out_full;
		cpu[n] = del ? (double)x->cpu_ns / 1e3 / (double)del : NAN;
		slow[n] = base->done && base->gen_wall_ns
			      ? (double)x->gen_wall_ns / (double)base->gen_wall_ns
			      : NAN;
		if (o->duration) /* (a fixed time: the slowdown is in the work done) */
			slow[n] =
			    base->done && x->generated[T_DELETE]
				? (double)base->generated[T_DELETE] / (double)x->generated[T_DELETE]
				: NAN;
		drain[n] = (double)x->drain_ns / 1e6;
		peak[n] = x->peak_rss_kb ? (double)x->peak_rss_kb / 1024.0 : NAN;
		if (x->kmem_known)
			kmem[nk++] = (double)x->peak_kmem / (1024.0 * 1024.0);
		if (x->mid_rss_kb && x->end_rss_kb)
			growth[ng++] = (double)x->end_rss_kb / (double)x->mid_rss_kb;
		n++;
		if (lat && x->nlat) {
			memcpy(lat + nlat, x->lat_ns, x->nlat * sizeof(*lat));
			nlat += x->nlat;
		}
	}
	if (c == C_NONE) /* nobody consumes: nothing is delivered or lost */
		memset(s->per_type_lost, 0, sizeof(s->per_type_lost));
	for (unsigned t = 0; t < _T_MAX; t++)
		s->lost += s->per_type_lost[t];
	s->unreported_loss = s->lost > 0 && s->overflows == 0;
	s->cpu_us_per_event = n && c != C_NONE ? bench_median(cpu, n) : NAN;
	s->slowdown = n ? bench_median(slow, n) : NAN;
	s->drain_ms = n ? bench_median(drain, n) : NAN;
	s->peak_mb = n && c != C_NONE ? bench_median(peak, n) : NAN;
	s->rss_growth = ng ? bench_median(growth, ng) : NAN;
	s->kmem_mb = nk && c != C_NONE ? bench_median(kmem, nk) : NAN;
	s->nlat = nlat;
	bench_quantiles(lat, nlat, lat_quantiles, ELEMENTSOF(lat_quantiles), lat_ns);
	s->p50_ms = lat_ns[0] / 1e6;
	s->p99_ms = lat_ns[1] / 1e6;
}

static void progress(const struct cons_opts *o, unsigned round, enum consumer c, uint64_t t0) {
	fprintf(stderr, "fsn-bench consumers: round %u/%u %-11s %5.1f s\n", round + 1, o->rounds,
		consumer_names[c], (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
}

static int run_rounds(const struct cons_env *env, const struct cons_opts *o, struct shared *sh,
		      struct run *runs) {
	enum consumer order[_C_MAX];
	unsigned n = 0;
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);

	for (unsigned c = 0; c < _C_MAX; c++)
		if ((o->consumers & (UINT64_C(1) << c)) && consumer_available(c))
			order[n++] = c;
	for (unsigned r = 0; r < o->rounds; r++)
		for (unsigned i = 0; i < n; i++) {
			enum consumer c = order[(i + r) % n];
			int ret = run_one(env, o, sh, c, &runs[r * _C_MAX + c]);

			if (ret < 0) {
				fprintf(stderr, "fsn-bench: consumer %s: %s\n", consumer_names[c],
					strerror(-ret));
				if (c == C_NONE || is_floor(c))
					return ret;
			}
			progress(o, r, c, t0);
		}
	return 0;
}

/* fsnotifyd's targets (doc/performance.md): no loss, CPU per event within
 * TARGET_CPU of the floor's, p99 latency within TARGET_P99 of the floor's
 * (stated for 2 generators). */
#define TARGET_CPU 1.25
#define TARGET_P99 3.0

static void fmt(char *buf, size_t len, double v, int prec) {
	if (isfinite(v))
		snprintf(buf, len, "%.*f", prec, v);
	else
		snprintf(buf, len, "-");
}

static void print_table(const struct cons_opts *o, const struct csum *s) {
	const struct csum *fl = &s[C_FLOOR], *fd = &s[C_FSNOTIFYD];
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32], k[32];

	if (o->duration)
		printf("fsn-bench consumers: %u generator(s) for %u s each (create, write, close, "
		       "rename, unlink), %u round(s), probe every %d ms\n",
		       o->generators, o->duration, o->rounds, PROBE_INTERVAL_MS);
	else
		printf(
		    "fsn-bench consumers: %u generator(s) x %" PRIu64
		    " ops (create, write, close, rename, unlink), %u round(s), probe every %d ms\n",
		    o->generators, o->ops, o->rounds, PROBE_INTERVAL_MS);
	if (o->subscribers)
		printf(
		    "fsnotifyd with %u subscribers (io.fsnotifyd.Watch, no filter: every record) "
		    "on its control socket, read as records come\n",
		    o->subscribers);
	if (o->evidence)
		printf("fsnotifyd's rule asks who and attributes (a statx per record of create, "
		       "modify, close_write, moved_to)\n");
	if (o->hash)
		printf("fsnotifyd's rule asks hash (a content record after each close_write, "
		       "create and moved_to: not counted as delivered events)\n");
	printf("%-12s %11s %11s %9s %9s %8s %9s %9s %9s %9s %8s %8s%s\n", "consumer", "generated",
	       "delivered", "lost", "overflows", "cpu_us/ev", "gen_slow", "drain_ms", "p50_ms",
	       "p99_ms", "peak_MB", "kmem_MB", o->duration ? "  rss_end/mid" : "");
	for (unsigned i = 0; i < _C_MAX; i++) {
		if (!(o->consumers & (UINT64_C(1) << i)))
			continue;
		if (!s[i].ran) {
			printf("%-12s %s\n", consumer_names[i],
			       consumer_available(i) ? "failed" : consumer_note(i));
			continue;
		}
		if (i == C_NONE) {
			printf("%-12s %11" PRIu64 " %11s %9s %9s %8s %9s %9s %9s %9s %8s %8s\n",
			       "none", s[i].generated, "-", "-", "-", "-", "1.00", "-", "-", "-",
			       "-", "-");
			continue;
		}
		fmt(a, sizeof(a), s[i].cpu_us_per_event, 3);
		fmt(b, sizeof(b), s[i].slowdown, 2);
		fmt(c, sizeof(c), s[i].drain_ms, 1);
		fmt(d, sizeof(d), s[i].p50_ms, 3);
		fmt(e, sizeof(e), s[i].p99_ms, 3);
		fmt(g, sizeof(g), s[i].peak_mb, 1);
		fmt(h, sizeof(h), s[i].rss_growth, 2);
		fmt(k, sizeof(k), s[i].kmem_mb, 2);
		printf("%-12s %11" PRIu64 " %11" PRIu64 " %9" PRIu64 " %9" PRIu64
		       " %8s %9s %9s %9s %9s %8s %8s%s%s%s%s%s%s\n",
		       consumer_names[i], s[i].generated, s[i].delivered, s[i].lost, s[i].overflows,
		       a, b, c, d, e, g, k, o->duration ? "  " : "", o->duration ? h : "",
		       s[i].unreported_loss ? "  UNREPORTED LOSS" : "",
		       s[i].exited ? "  EXITED" : "",
		       s[i].out_full ? "  OUTPUT FULL (invalid)" : "",
		       countable[i] != ALL_TYPES ? "  (*)" : "");
	}
	for (unsigned i = 0; i < _C_MAX; i++) {
		if (!s[i].ran || countable[i] == ALL_TYPES)
			continue;
		printf("(*) %s: counts and cpu/event cover", consumer_names[i]);
		for (unsigned t = 0; t < _T_MAX; t++)
			if (countable[i] & (1u << t))
				printf(" %s", type_names[t]);
		printf(" only (latency: the probe's %s); n/a, its output cannot tell them apart:",
		       type_names[latency_type[i]]);
		for (unsigned t = 0; t < _T_MAX; t++)
			if (!(countable[i] & (1u << t)))
				printf(" %s", type_names[t]);
		printf("\n");
	}
	if (memcg_note)
		printf("kmem_MB -: %s\n", memcg_note);
	if (!fd->ran || !fl->ran)
		return;
	printf("targets for fsnotifyd (printed, never an exit status):\n");
	printf("  zero loss at %u generator(s) where the floor lost none: %" PRIu64
	       " lost (floor %" PRIu64 ")  [%s]\n",
	       o->generators, fd->lost, fl->lost, fd->lost == 0 || fl->lost ? "met" : "missed");
	printf("  cpu/event <= %.2fx floor: %.2fx  [%s]\n", TARGET_CPU,
	       fd->cpu_us_per_event / fl->cpu_us_per_event,
	       fd->cpu_us_per_event <= TARGET_CPU * fl->cpu_us_per_event ? "met" : "missed");
	printf("  p99 latency <= %.0fx floor%s: %.2fx  [%s]\n", TARGET_P99,
	       o->generators == 2 ? "" : " (stated for 2 generators)", fd->p99_ms / fl->p99_ms,
	       fd->p99_ms <= TARGET_P99 * fl->p99_ms ? "met" : "missed");
	printf("  every loss reported as an overflow: %s  [%s]\n",
	       fd->lost == 0   ? "no loss"
	       : fd->overflows ? "overflow reported"
			       : "loss unreported",
	       fd->unreported_loss ? "missed" : "met");
	for (unsigned i = C_FLOOR_COUNT; i <= C_FLOOR_OLD; i++)
		if (s[i].ran)
			printf("  (for reference, %s: fsnotifyd's cpu/event %.2fx, p99 %.2fx of "
			       "it)\n",
			       consumer_names[i], fd->cpu_us_per_event / s[i].cpu_us_per_event,
			       fd->p99_ms / s[i].p99_ms);
}

static int write_json(const char *path, const struct cons_opts *o, const struct run *runs,
		      const struct csum *s) {
	bool first = true;
	FILE *f = fopen(path, "we");

	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench consumers");
	fprintf(f,
		"},\n  \"parameters\": {\"rounds\": %u, \"ops\": %" PRIu64
		", \"duration_s\": %u, \"generators\": %u, \"probe_interval_ms\": %d, "
		"\"quick\": %s, \"subscribers\": %u, \"evidence\": %s, \"hash\": %s, "
		"\"fsnotifyd\": ",
		o->rounds, o->duration ? 0 : o->ops, o->duration, o->generators, PROBE_INTERVAL_MS,
		o->quick ? "true" : "false", o->subscribers, o->evidence ? "true" : "false",
		o->hash ? "true" : "false");
	json_write_string(f, o->fsnotifyd);
	fputs("},\n  \"consumers\": [", f);
	for (unsigned c = 0; c < _C_MAX; c++) {
		const struct csum *x = &s[c];

		if (!(o->consumers & (UINT64_C(1) << c)))
			continue;
		fprintf(f, "%s\n    {\"consumer\": \"%s\", \"description\": ", first ? "" : ",",
			consumer_names[c]);
		first = false;
		json_write_string(f, consumer_descriptions[c]);
		fprintf(f, ", \"ran\": %s, \"note\": ", x->ran ? "true" : "false");
		json_write_string(f, x->ran                  ? ""
				     : consumer_available(c) ? "failed"
							     : consumer_note(c));
		fputs(",\n     \"rounds\": [", f);
		for (unsigned r = 0, k = 0; r < o->rounds; r++) {
			const struct run *y = &runs[r * _C_MAX + c];
			char kmem[32] = "null";

			if (!y->done)
				continue;
			if (y->kmem_known)
				snprintf(kmem, sizeof(kmem), "%" PRIu64, y->peak_kmem);
			fprintf(f,
				"%s\n       {\"gen_wall_ns\": %" PRIu64 ", \"cpu_ns\": %" PRIu64
				", \"reader_cpu_ns\": %" PRIu64 ", \"records\": %" PRIu64
				", \"overflows\": %" PRIu64 ", \"drain_ns\": %" PRId64
				", \"latencies\": %zu, \"exited\": %s, \"peak_rss_kb\": %" PRIu64
				", \"mid_rss_kb\": %" PRIu64 ", \"end_rss_kb\": %" PRIu64
				", \"peak_kmem_bytes\": %s, \"types\": {",
				k++ ? "," : "", y->gen_wall_ns, y->cpu_ns, y->reader_cpu_ns,
				y->records, y->overflows, y->drain_ns, y->nlat,
				y->exited ? "true" : "false", y->peak_rss_kb, y->mid_rss_kb,
				y->end_rss_kb, kmem);
			for (unsigned t = 0; t < _T_MAX; t++)
				fprintf(f,
					"%s\"%s\": {\"generated\": %" PRIu64
					", \"delivered\": %" PRIu64 ", \"countable\": %s}",
					t ? ", " : "", type_names[t], y->generated[t], y->counts[t],
					countable[c] & (1u << t) ? "true" : "false");
			fputs("}}", f);
		}
		fprintf(
		    f,
		    "],\n     \"summary\": {\"generated\": %" PRIu64 ", \"delivered\": %" PRIu64
		    ", \"lost\": %" PRIu64 ", \"overflows\": %" PRIu64 ", \"records\": %" PRIu64
		    ", \"unreported_loss\": %s, \"exited_rounds\": %u, \"latency_event\": \"%s\", "
		    "\"cpu_us_per_event\": ",
		    x->generated, x->delivered, x->lost, x->overflows, x->records,
		    x->unreported_loss ? "true" : "false", x->exited, type_names[latency_type[c]]);
		json_write_number(f, x->cpu_us_per_event);
		fputs(", \"gen_slowdown\": ", f);
		json_write_number(f, x->slowdown);
		fputs(", \"drain_ms\": ", f);
		json_write_number(f, x->drain_ms);
		fputs(", \"latency_p50_ms\": ", f);
		json_write_number(f, x->p50_ms);
		fputs(", \"latency_p99_ms\": ", f);
		json_write_number(f, x->p99_ms);
		fputs(", \"peak_rss_mb\": ", f);
		json_write_number(f, x->peak_mb);
		fputs(", \"rss_end_vs_mid\": ", f);
		json_write_number(f, x->rss_growth);
		fputs(", \"peak_kmem_mb\": ", f);
		json_write_number(f, x->kmem_mb);
		fprintf(f, ", \"latency_samples\": %zu}}", x->nlat);
	}
	fputs("\n  ]", f);
	if (s[C_FSNOTIFYD].ran && s[C_FLOOR].ran) {
		const struct csum *fd = &s[C_FSNOTIFYD], *fl = &s[C_FLOOR];

		fprintf(f,
			",\n  \"targets\": {\"zero_loss\": {\"lost\": %" PRIu64 ", \"met\": %s}, "
			"\"cpu_vs_floor\": {\"ratio\": ",
			fd->lost, fd->lost == 0 ? "true" : "false");
		json_write_number(f, fd->cpu_us_per_event / fl->cpu_us_per_event);
		fprintf(
		    f, ", \"limit\": %g, \"met\": %s}, \"p99_vs_floor\": {\"ratio\": ", TARGET_CPU,
		    fd->cpu_us_per_event <= TARGET_CPU * fl->cpu_us_per_event ? "true" : "false");
		json_write_number(f, fd->p99_ms / fl->p99_ms);
		fprintf(f, ", \"limit\": %g, \"met\": %s}, \"loss_reported\": {\"met\": %s}",
			TARGET_P99, fd->p99_ms <= TARGET_P99 * fl->p99_ms ? "true" : "false",
			fd->unreported_loss ? "false" : "true");
		/* (the other floors, for reference: no target) */
		fputs(", \"cpu_vs_floor_count\": ", f);
		json_write_number(f, s[C_FLOOR_COUNT].ran
					 ? fd->cpu_us_per_event / s[C_FLOOR_COUNT].cpu_us_per_event
					 : NAN);
		fputs(", \"cpu_vs_floor_old\": ", f);
		json_write_number(f, s[C_FLOOR_OLD].ran
					 ? fd->cpu_us_per_event / s[C_FLOOR_OLD].cpu_us_per_event
					 : NAN);
		fputc('}', f);
	}
	fputs("\n}\n", f);
	return bench_fclose(f);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct cons_opts *o) {
	enum { OPT_GEN = BENCH_OPT_OWN, OPT_CONS, OPT_DURATION, OPT_SUBS, OPT_EVIDENCE, OPT_HASH };
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "generators", required_argument, NULL, OPT_GEN },
		{ "consumers", required_argument, NULL, OPT_CONS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "subscribers", required_argument, NULL, OPT_SUBS },
		{ "evidence", no_argument, NULL, OPT_EVIDENCE },
		{ "hash", no_argument, NULL, OPT_HASH },
		{ 0 },
	};
	struct bench_common com = { .min_rounds = 1, .max_rounds = 64, .max_ops = UINT32_MAX };
	uint64_t gens = 2, duration = 0;
	unsigned subs = 0;
	int c, r;

	*o = (struct cons_opts){ .consumers = (UINT64_C(1) << _C_MAX) - 1 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_GEN:
			r = bench_parse_u64("--generators", optarg, 1, MAX_GENERATORS, &gens);
			break;
		case OPT_CONS:
			r = bench_parse_list("consumer", optarg, consumer_names, _C_MAX,
					     &o->consumers);
			break;
		case OPT_DURATION:
			r = bench_parse_u64("--duration", optarg, 1, 3600, &duration);
			break;
		case OPT_SUBS: {
			uint64_t v;

			r = bench_parse_u64("--subscribers", optarg, 0, 1000, &v);
			subs = (unsigned)v;
			break;
		}
		case OPT_EVIDENCE:
			o->evidence = true;
			r = 0;
			break;
		case OPT_HASH:
			o->hash = true;
			r = 0;
			break;
		default: r = bench_common_opt(c, optarg, &com); break;
		}
		if (r != 0)
			return r;
	}
	r = bench_common_finish(argc, argv, &com);
	if (r < 0)
		return r;
	o->consumers |= UINT64_C(1) << C_NONE; /* the baseline of the slowdown */
	o->quick = com.quick;
	o->json_path = com.json_path;
	o->fsnotifyd = com.fsnotifyd;
	o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 1 : 3;
	o->ops = com.ops ? com.ops : o->quick ? 20000 : 200000;
	o->generators = (unsigned)gens;
	o->duration = (unsigned)duration;
	o->subscribers = subs;
	if (o->duration && com.ops) {
		fprintf(stderr, "fsn-bench consumers: --duration and --ops exclude each other\n");
		return -EINVAL;
	}
	return 0;
}

int bench_consumers_main(int argc, char **argv) {
	struct cons_env env = { .base = "" };
	struct cons_opts o;
	_cleanup_free_ struct run *runs = NULL;
	struct csum s[_C_MAX];
	struct shared *sh;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("consumers", "fanotify marks"))
		return 77;
	runs = calloc((size_t)_C_MAX * o.rounds, sizeof(*runs));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!runs || sh == MAP_FAILED)
		return -ENOMEM;
	r = env_setup(&env, o.generators);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
			strerror(-r));
		bench_env_teardown(env.base);
		munmap(sh, sizeof(*sh));
		return r;
	}
	r = run_rounds(&env, &o, sh, runs);
	bench_env_teardown(env.base);
	munmap(sh, sizeof(*sh));
	if (r >= 0) {
		for (unsigned c = 0; c < _C_MAX; c++)
			summarize(&o, runs, c, &s[c]);
		print_table(&o, s);
		if (o.json_path) {
			r = write_json(o.json_path, &o, runs, s);
			if (r < 0)
				fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
		}
	}
	for (size_t i = 0; i < (size_t)_C_MAX * o.rounds; i++)
		free(runs[i].lat_ns);
	return r < 0 ? r : 0;
}
