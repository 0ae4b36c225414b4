/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hash.c — `fsn-bench hash`: how fast fsnotifyd's hasher (a rule's `hash`)
 * gets the SHA-256 of files, against programs that read and hash the same
 * files, and whether hashing delays the records that need no hash.
 *
 * The bench enters a private mount namespace and mounts two tmpfs
 * instances: D (the data: N files of S MiB in D/files, from a PRNG seeded
 * per file so that no two are alike and no filesystem shortcut applies;
 * D/probe, empty) and O (fsnotifyd's config, output, log and sockets, the
 * references' output). Everything is in page cache: the disk is not
 * measured, the hashing is.
 *
 * fsnotifyd runs once, with two inode-marked rules: `h` on D/files
 * (close_write, hash = true; limits.hash_queue = N, hash_max_size = 0) and
 * `p` on D/probe (create, no hash), one json output to a file on O. The
 * bench reads that file as it grows (an inotify IN_MODIFY watch on it wakes
 * the bench at once, so no polling interval is in the figures) and checks
 * every content record: rule h, one per file and round, the sha256 that
 * sha256sum gave (an untimed run before the rounds) and the file's size; a
 * record without a hash, or with another, fails the run.
 *
 * Each round times, in a rotating order:
 *   sha256sum   coreutils `sha256sum FILES...`, spawn to exit (the target
 *               of the issue is stated against it);
 *   openssl     `openssl dgst -sha256 FILES...` when openssl is on PATH:
 *               one process reading with libcrypto and the CPU's SHA
 *               instructions, as the daemon does (the stronger reference);
 *   fsnotifyd   from before the bench's open(O_WRONLY)+close() of each file
 *               (a close_write that changes nothing) to the read of the
 *               N-th content record.
 * MB/s = N x S MiB / wall seconds (CLOCK_MONOTONIC), 10^6 bytes a MB.
 *
 * Then the delay: a probe creates K files in D/probe, one every 200 us,
 * and takes for each the time from just before its create() to the read
 * of its record (rule p) from the output file, in the same loop: between
 * two creates the bench waits on the inotify watch and reads what came.
 * The record's own "time" is stamped when the daemon read the event, so it
 * would miss what a hash in the way costs after that (formatting, the
 * output's write); the read back covers the whole path a consumer of the
 * file sees. The bench runs the probe SCHED_FIFO, so that its own wake-up
 * (which the hasher, busy on a CPU, can delay) is not in the figures; the
 * daemon's threads keep theirs. Run "calm" (no hash going on) and "hashing"
 * (the same probe started right after the N close_writes of a round, while
 * the hasher reads the files), in alternating order per round, the
 * latencies pooled over rounds; "busy" is the part of the hashing run
 * created before the bench read the N-th content record (with small files
 * the hasher is done before the probe is). The target: hashing p99 <= 1.2x
 * calm.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-util.h"
#include "json.h"
#include "result.h"
#include "stats.h"
#include "util.h"

#define MAX_FILES 4096     /* (limits.hash_queue is N: one fd each in the daemon) */
#define MAX_SIZE_MIB 16384 /* per file */
#define MAX_PROBES 100000u /* per run */
#define PROBE_INTERVAL_NS 200000u
#define WAIT_DEADLINE_NS (600ull * 1000000000u) /* generous: a slow hasher is a result */
#define TARGET_THROUGHPUT 0.9                   /* x sha256sum, in every round */
#define TARGET_P99 1.2                          /* hashing / calm */

enum ref { R_SHA256SUM = 0, R_OPENSSL, R_FSNOTIFYD, _R_MAX };

static const char *const ref_names[_R_MAX] = { "sha256sum", "openssl", "fsnotifyd" };

/* Two runs; D_BUSY is the part of the hashing run's probe files created
 * while the hasher was busy (before the N-th content record was read). */
enum delay_kind { D_CALM = 0, D_HASHING, D_BUSY, _D_MAX };
#define D_RUNS 2

static const char *const delay_names[_D_MAX] = { "calm", "hashing", "busy" };
static const char *const delay_json[_D_MAX] = { "calm", "hashing", "hashing_busy" };

struct hash_opts {
	unsigned files, rounds, probes;
	uint64_t size_mib;
	bool quick;
	const char *json_path;
	const char *fsnotifyd;
};

struct hash_env {
	char base[64];
	char data[96], out[96];
	char files[128], probe[128];
	char cfg[160], events[160], sock[160], log[160];
};

/* The daemon's JSON output, read as it grows. */
struct out_reader {
	int fd;
	int ino; /* inotify, IN_MODIFY on the file: wakes the bench when a record comes */
	char *buf;
	size_t have, cap;
};

struct hash_ctx {
	const struct hash_opts *o;
	struct hash_env env;
	uint64_t size;      /* bytes per file */
	char (*expect)[65]; /* sha256sum's hash of each file */
	pid_t daemon;
	struct out_reader rd;

	/* content records of the current round: seen[i] == tag once file i's came */
	unsigned tag, content_seen;
	unsigned *seen;
	bool content_due;
	uint64_t content_done_ns; /* when the N-th was read */

	/* the probe: run probe_run's files "rRUN-I" */
	bool ready;
	unsigned probe_run, probe_seen;
	uint64_t *t_create, *lat;
	bool *busy;    /* (the hashing run) created while content records were due */
	bool not_fifo; /* a probe run could not make the bench SCHED_FIFO */
};

struct results {
	bool ran[_R_MAX];
	double *mbps[_R_MAX];  /* per round */
	uint64_t *lat[_D_MAX]; /* pooled over rounds */
	size_t nlat[_D_MAX];
	double *round_p99[_D_MAX]; /* per round, us */
	bool reader_fifo;          /* the probe ran SCHED_FIFO throughout */
};

/* ------------------------------------------------------------------------ */
/* The data                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s) {
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* path: size bytes from a PRNG seeded with seed. */
static int make_data_file(const char *path, uint64_t size, uint64_t seed, uint64_t *block,
			  size_t block_len) {
	_cleanup_close_ int fd = -1;

	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	while (size > 0) {
		size_t len = size < block_len ? (size_t)size : block_len;
		const char *p = (const char *)block;

		for (size_t i = 0; i < block_len / sizeof(*block); i++)
			block[i] = splitmix64(&seed);
		for (size_t done = 0; done < len;) {
			ssize_t n = write(fd, p + done, len - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return negative_errno();
			if (n == 0)
				return -EIO;
			done += (size_t)n;
		}
		size -= len;
	}
	return close(steal_fd(&fd)) < 0 ? negative_errno() : 0;
}

static void file_path(const struct hash_ctx *x, unsigned i, char *buf, size_t len) {
	snprintf(buf, len, "%s/f%u", x->env.files, i);
}

/* MemAvailable of /proc/meminfo in MiB, 0 when unknown. */
static uint64_t mem_available_mib(void) {
	_cleanup_fclose_ FILE *f = fopen("/proc/meminfo", "re");
	unsigned long long kb = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	return kb / 1024;
}

/* The files live in memory: refuse what would push the machine into reclaim
 * (then the page cache, not the hashing, would be measured). 0 or -EINVAL. */
static int check_memory(const struct hash_opts *o) {
	uint64_t total_mib = o->size_mib * o->files, avail = mem_available_mib();

	if (avail && total_mib > avail / 4 * 3) {
		fprintf(stderr,
			"fsn-bench hash: %u files x %" PRIu64 " MiB need %" PRIu64
			" MiB of memory; %" PRIu64 " MiB available (at most 3/4 of it is used)\n",
			o->files, o->size_mib, total_mib, avail);
		return -EINVAL;
	}
	return 0;
}

static int env_setup(struct hash_ctx *x) {
	const struct hash_opts *o = x->o;
	uint64_t total_mib = o->size_mib * o->files;
	_cleanup_free_ uint64_t *block = NULL;
	const size_t block_len = 1u << 20;
	char size[32], path[PATH_MAX];
	int r;

	r = bench_env_enter(x->env.base, sizeof(x->env.base), "/tmp/fsn-bench-h.XXXXXX");
	if (r < 0)
		return r;
	/* (slack: the directories and the probe's empty files) */
	snprintf(size, sizeof(size), "%" PRIu64 "m", total_mib + 16);
	r = bench_mount_tmpfs(x->env.base, "d", size, x->env.data, sizeof(x->env.data));
	if (r == 0)
		r = bench_mount_tmpfs(x->env.base, "o", "256m", x->env.out, sizeof(x->env.out));
	if (r < 0)
		return r;
	snprintf(x->env.files, sizeof(x->env.files), "%s/files", x->env.data);
	snprintf(x->env.probe, sizeof(x->env.probe), "%s/probe", x->env.data);
	snprintf(x->env.cfg, sizeof(x->env.cfg), "%s/fsnotifyd.conf", x->env.out);
	snprintf(x->env.events, sizeof(x->env.events), "%s/events.jsonl", x->env.out);
	snprintf(x->env.sock, sizeof(x->env.sock), "%s/control", x->env.out);
	snprintf(x->env.log, sizeof(x->env.log), "%s/fsnotifyd.log", x->env.out);
	if (mkdir(x->env.files, 0700) < 0 || mkdir(x->env.probe, 0700) < 0)
		return negative_errno();
	block = malloc(block_len);
	if (!block)
		return -ENOMEM;
	for (unsigned i = 0; i < o->files; i++) {
		file_path(x, i, path, sizeof(path));
		r = make_data_file(path, x->size, UINT64_C(0x66736e2d68617368) + i, block,
				   block_len);
		if (r < 0) {
			fprintf(stderr, "fsn-bench hash: making %s: %s\n", path, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* sha256sum and openssl                                                     */
/* ------------------------------------------------------------------------ */

/* "f12" -> 12 when below n, else -1. */
static int file_index(const char *name, unsigned n) {
	char *end;
	unsigned long v;

	if (name[0] != 'f' || name[1] < '0' || name[1] > '9' || (name[1] == '0' && name[2]))
		return -1;
	errno = 0;
	v = strtoul(name + 1, &end, 10);
	return errno || *end || v >= n ? -1 : (int)v;
}

static bool is_hex64(const char *s) {
	for (unsigned i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* One line of the reference's output: the file's index and its hash, or
 * false. sha256sum: "HEX  NAME" (or "HEX *NAME"); openssl 3: "SHA2-256(NAME)=
 * HEX", older ones "SHA256(NAME)= HEX". */
static bool parse_ref_line(enum ref which, char *line, unsigned n, int *ret_i, const char **ret_h) {
	char *name, *h;

	if (which == R_SHA256SUM) {
		if (strlen(line) < 67 || !is_hex64(line) || line[64] != ' ' ||
		    (line[65] != ' ' && line[65] != '*'))
			return false;
		line[64] = '\0';
		h = line;
		name = line + 66;
	} else {
		char *open = strchr(line, '('), *close = strstr(line, ")= ");

		if (!open || !close || close < open || strlen(close + 3) != 64 ||
		    !is_hex64(close + 3))
			return false;
		*close = '\0';
		name = open + 1;
		h = close + 3;
	}
	*ret_i = file_index(name, n);
	*ret_h = h;
	return *ret_i >= 0;
}

/* Check a reference's output file against the expected hashes (or, with
 * fill, take them from it): every file once, the same hash. */
static int check_ref_output(struct hash_ctx *x, enum ref which, const char *path, bool fill) {
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ bool *got = NULL;
	unsigned n = x->o->files, count = 0;
	size_t len;
	char *save = NULL;
	int r;

	r = bench_read_text(path, &text, &len);
	if (r < 0)
		return r;
	got = calloc(n, sizeof(*got));
	if (!got)
		return -ENOMEM;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *h;
		int i;

		if (!parse_ref_line(which, line, n, &i, &h) || got[i]) {
			fprintf(stderr, "fsn-bench hash: %s: unexpected line '%s'\n",
				ref_names[which], line);
			return -EBADMSG;
		}
		got[i] = true;
		count++;
		if (fill) {
			memcpy(x->expect[i], h, 65);
		} else if (strcmp(x->expect[i], h) != 0) {
			fprintf(stderr, "fsn-bench hash: %s: f%d: %s, sha256sum said %s\n",
				ref_names[which], i, h, x->expect[i]);
			return -EBADMSG;
		}
	}
	if (count != n) {
		fprintf(stderr, "fsn-bench hash: %s: %u of %u files in its output\n",
			ref_names[which], count, n);
		return -EBADMSG;
	}
	return 0;
}

/* Run a reference on all files (from D/files: short names keep the argument
 * list small), spawn to exit; its output checked, or taken with fill. */
static int run_ref(struct hash_ctx *x, enum ref which, bool fill, uint64_t *ret_ns) {
	unsigned n = x->o->files, pre = which == R_SHA256SUM ? 1 : 3;
	_cleanup_free_ char **argv = NULL;
	_cleanup_free_ char *names = NULL;
	char out[PATH_MAX], logf[PATH_MAX];
	_cleanup_close_ int fd = -1;
	uint64_t t0, t1;
	pid_t pid;
	int r;

	argv = calloc(pre + n + 1, sizeof(*argv));
	names = malloc((size_t)n * 16);
	if (!argv || !names)
		return -ENOMEM;
	argv[0] = (char *)ref_names[which];
	if (which == R_OPENSSL) {
		argv[1] = (char *)"dgst";
		argv[2] = (char *)"-sha256";
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(names + (size_t)i * 16, 16, "f%u", i);
		argv[pre + i] = names + (size_t)i * 16;
	}
	snprintf(out, sizeof(out), "%s/%s.out", x->env.out, ref_names[which]);
	snprintf(logf, sizeof(logf), "%s/%s.log", x->env.out, ref_names[which]);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	t0 = bench_now_ns(CLOCK_MONOTONIC);
	r = bench_spawn_in(argv, x->env.files, fd, logf, NULL, &pid);
	if (r == 0)
		r = bench_wait_pid(pid);
	t1 = bench_now_ns(CLOCK_MONOTONIC);
	if (r < 0) {
		fprintf(stderr, "fsn-bench hash: %s failed:\n", ref_names[which]);
		bench_show_log(logf, 20);
		return r;
	}
	r = check_ref_output(x, which, out, fill);
	if (r < 0)
		return r;
	*ret_ns = t1 - t0;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* fsnotifyd and its output                                                  */
/* ------------------------------------------------------------------------ */

static int write_config(const struct hash_ctx *x) {
	FILE *f = fopen(x->env.cfg, "we");

	if (!f)
		return negative_errno();
	/* hash_queue = N exactly: a round hands over N files at once, so a
	 * backlog skip at N would be the daemon's own miscount */
	fprintf(f,
		"# generated by fsn-bench hash\n"
		"log_level = \"warning\";\n"
		"outputs = [\"j\"];\n"
		"output = { j = { type = \"json\"; file = \"%s\"; }; };\n"
		"control = { socket = \"%s\"; };\n"
		"limits = { hash_queue = %u; hash_max_size = 0; };\n"
		"rules = ({\n"
		"  name = \"h\";\n"
		"  paths = [\"%s\"];\n"
		"  events = [\"close_write\"];\n"
		"  mark = \"inode\";\n"
		"  hash = true;\n"
		"}, {\n"
		"  name = \"p\";\n"
		"  paths = [\"%s\"];\n"
		"  events = [\"create\"];\n"
		"  mark = \"inode\";\n"
		"});\n",
		x->env.events, x->env.sock, x->o->files, x->env.files, x->env.probe);
	return bench_fclose(f);
}

static int reader_open(struct out_reader *rd, const char *path) {
	rd->cap = 1 << 20;
	rd->buf = malloc(rd->cap);
	if (!rd->buf)
		return -ENOMEM;
	rd->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (rd->ino < 0 || inotify_add_watch(rd->ino, path, IN_MODIFY) < 0)
		return negative_errno();
	rd->fd = open(path, O_RDONLY | O_CLOEXEC);
	return rd->fd < 0 ? negative_errno() : 0;
}

static void reader_close(struct out_reader *rd) {
	rd->fd = safe_close(rd->fd);
	rd->ino = safe_close(rd->ino);
	free(rd->buf);
	rd->buf = NULL;
}

/* file i of a record's path under D/files, or -1 */
static int path_file(const struct hash_ctx *x, const char *path) {
	size_t len = strlen(x->env.files);

	if (!path || strncmp(path, x->env.files, len) != 0 || path[len] != '/')
		return -1;
	return file_index(path + len + 1, x->o->files);
}

/* A content record: the file's, once a round, hashed right. */
static int on_content(struct hash_ctx *x, const struct json *j, uint64_t now) {
	const char *rule = json_get_string(j, "rule"), *path = json_get_string(j, "path"),
		   *sha = json_get_string(j, "sha256"),
		   *skipped = json_get_string(j, "hash_skipped");
	double size = json_get_number(j, "size", -1);
	int i = path_file(x, path);

	if (!rule || strcmp(rule, "h") != 0 || i < 0) {
		fprintf(stderr, "fsn-bench hash: a content record of rule %s for %s\n",
			rule ? rule : "?", path ? path : "?");
		return -EBADMSG;
	}
	if (!x->content_due || x->seen[i] == x->tag) {
		fprintf(stderr,
			"fsn-bench hash: f%d: a content record that no close_write asked "
			"for (a second one this round?)\n",
			i);
		return -EBADMSG;
	}
	if (skipped || !sha) {
		fprintf(stderr, "fsn-bench hash: f%d: not hashed (hash_skipped %s)\n", i,
			skipped ? skipped : "missing");
		return -EBADMSG;
	}
	if (strcmp(sha, x->expect[i]) != 0) {
		fprintf(stderr, "fsn-bench hash: f%d: sha256 %s, sha256sum says %s\n", i, sha,
			x->expect[i]);
		return -EBADMSG;
	}
	if (size != (double)x->size) {
		fprintf(stderr, "fsn-bench hash: f%d: size %.0f, the file has %" PRIu64 "\n", i,
			size, x->size);
		return -EBADMSG;
	}
	x->seen[i] = x->tag;
	if (++x->content_seen == x->o->files) {
		x->content_due = false;
		x->content_done_ns = now;
	}
	return 0;
}

/* A record of rule p: a probe file's create ("rRUN-I"), or the sentinel's
 * ("ready-K"). */
static int on_probe(struct hash_ctx *x, const struct json *j, uint64_t now) {
	const char *path = json_get_string(j, "path"), *name;
	size_t len = strlen(x->env.probe);
	unsigned run, i;
	char tail;

	if (!path || strncmp(path, x->env.probe, len) != 0 || path[len] != '/')
		return 0;
	name = path + len + 1;
	if (strncmp(name, "ready-", 6) == 0) {
		x->ready = true;
		return 0;
	}
	if (sscanf(name, "r%u-%u%c", &run, &i, &tail) != 2 || run != x->probe_run ||
	    i >= x->o->probes || !x->t_create[i]) {
		fprintf(stderr, "fsn-bench hash: a record for %s, not a probe file of this run\n",
			path);
		return -EBADMSG;
	}
	if (!x->lat[i]) {
		x->lat[i] = now > x->t_create[i] ? now - x->t_create[i] : 1;
		x->probe_seen++;
	}
	return 0;
}

static int on_line(struct hash_ctx *x, const char *line, size_t len, uint64_t now) {
	struct json *j = NULL;
	const char *kind, *rule;
	size_t off;
	int r = 0;

	if (json_parse(line, len, &j, &off) < 0) {
		fprintf(stderr, "fsn-bench hash: fsnotifyd wrote a line that is not JSON: %.*s\n",
			(int)len, line);
		return -EBADMSG;
	}
	kind = json_get_string(j, "kind");
	rule = json_get_string(j, "rule");
	if (kind && strcmp(kind, "content") == 0)
		r = on_content(x, j, now);
	else if (kind && strcmp(kind, "event") == 0 && rule && strcmp(rule, "p") == 0)
		r = on_probe(x, j, now);
	else if (kind && (strcmp(kind, "overflow") == 0 || strcmp(kind, "dropped") == 0)) {
		fprintf(stderr, "fsn-bench hash: fsnotifyd lost records (a %s record)\n", kind);
		r = -EBADMSG;
	}
	json_free(j);
	return r;
}

/* Read what the daemon has written since the last call, record by record.
 * The time a read returned is the receipt time of its records. */
static int reader_pump(struct hash_ctx *x) {
	struct out_reader *rd = &x->rd;
	char ev[4096];

	/* drained before the file is read: a write after the read leaves an
	 * event that wakes the next wait */
	while (read(rd->ino, ev, sizeof(ev)) > 0)
		;
	for (;;) {
		ssize_t n = read(rd->fd, rd->buf + rd->have, rd->cap - rd->have);
		uint64_t now = bench_now_ns(CLOCK_MONOTONIC);
		char *p = rd->buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return 0;
		rd->have += (size_t)n;
		while ((nl = memchr(p, '\n', rd->have - (size_t)(p - rd->buf)))) {
			int r = on_line(x, p, (size_t)(nl - p), now);

			if (r < 0)
				return r;
			p = nl + 1;
		}
		rd->have -= (size_t)(p - rd->buf);
		memmove(rd->buf, p, rd->have);
		if (rd->have == rd->cap) {
			char *b = realloc(rd->buf, rd->cap * 2);

			if (!b)
				return -ENOMEM;
			rd->buf = b;
			rd->cap *= 2;
		}
	}
}

/* Sleep until the output file grows or until (CLOCK_MONOTONIC ns). */
static int reader_wait(struct hash_ctx *x, uint64_t until) {
	uint64_t now = bench_now_ns(CLOCK_MONOTONIC), d = until > now ? until - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(d / 1000000000u),
			       .tv_nsec = (long)(d % 1000000000u) };
	struct pollfd p = { .fd = x->rd.ino, .events = POLLIN };

	if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR)
		return negative_errno();
	return 0;
}

static bool daemon_exited(pid_t pid) {
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid;
}

enum wait_for { W_CONTENT, W_PROBES, W_READY };

static bool waited(const struct hash_ctx *x, enum wait_for w) {
	switch (w) {
	case W_CONTENT: return !x->content_due;
	case W_PROBES: return x->probe_seen == x->o->probes && !x->content_due;
	case W_READY: return x->ready;
	}
	return true;
}

/* Read the output until w is reached; past deadline_ns (from now), or when
 * the daemon is gone, say so. */
static int wait_output(struct hash_ctx *x, enum wait_for w, uint64_t deadline_ns,
		       const char *what) {
	uint64_t start = bench_now_ns(CLOCK_MONOTONIC), deadline = start + deadline_ns;

	for (;;) {
		uint64_t now;
		int r = reader_pump(x);

		if (r < 0)
			return r;
		if (waited(x, w))
			return 0;
		now = bench_now_ns(CLOCK_MONOTONIC);
		if (now >= deadline || daemon_exited(x->daemon)) {
			fprintf(stderr,
				"fsn-bench hash: %s: %s after %.0f s (%u of %u content records, "
				"%u of %u probe records)\n",
				what, now >= deadline ? "not done" : "fsnotifyd exited",
				(double)(now - start) / 1e9, x->content_seen, x->o->files,
				x->probe_seen, x->o->probes);
			bench_show_log(x->env.log, 20);
			return -ETIMEDOUT;
		}
		r = reader_wait(x, now + 100000000u < deadline ? now + 100000000u : deadline);
		if (r < 0)
			return r;
	}
}

/* Start the daemon; ready once a file created in D/probe comes back as a
 * record (READY=1 says the marks are placed; this proves the output too). */
static int daemon_start(struct hash_ctx *x) {
	uint64_t deadline;
	char path[PATH_MAX];
	int r;

	r = write_config(x);
	if (r == 0)
		r = bench_fsnotifyd_start(x->o->fsnotifyd, x->env.cfg, x->env.out, &x->daemon);
	if (r == 0)
		r = reader_open(&x->rd, x->env.events);
	if (r < 0)
		return r;
	deadline = bench_now_ns(CLOCK_MONOTONIC) + (uint64_t)BENCH_READY_DEADLINE_MS * 1000000u;
	for (unsigned k = 0; !x->ready; k++) {
		if (bench_now_ns(CLOCK_MONOTONIC) >= deadline || daemon_exited(x->daemon)) {
			fprintf(stderr,
				"fsn-bench hash: fsnotifyd did not report a test file "
				"within %d ms\n",
				BENCH_READY_DEADLINE_MS);
			bench_show_log(x->env.log, 0);
			return -ESRCH;
		}
		snprintf(path, sizeof(path), "%s/ready-%u", x->env.probe, k);
		r = bench_make_file(path, 0);
		if (r < 0)
			return r;
		/* (a new file every 20 ms until one is reported) */
		for (uint64_t until = bench_now_ns(CLOCK_MONOTONIC) + 20000000u;
		     !x->ready && bench_now_ns(CLOCK_MONOTONIC) < until;) {
			r = reader_wait(x, until);
			if (r == 0)
				r = reader_pump(x);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The N close_writes of a round: open for writing and close, nothing
 * written (the content stays what sha256sum hashed). */
static int touch_files(struct hash_ctx *x) {
	char path[PATH_MAX];

	x->tag++;
	x->content_seen = 0;
	x->content_due = true;
	for (unsigned i = 0; i < x->o->files; i++) {
		int fd;

		file_path(x, i, path, sizeof(path));
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || close(fd) < 0)
			return negative_errno();
	}
	return 0;
}

static int run_fsnotifyd(struct hash_ctx *x, uint64_t *ret_ns) {
	uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
	int r;

	r = touch_files(x);
	if (r == 0)
		r = wait_output(x, W_CONTENT, WAIT_DEADLINE_NS, "hashing the files");
	if (r < 0)
		return r;
	*ret_ns = x->content_done_ns - t0;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The probe                                                                 */
/* ------------------------------------------------------------------------ */

static int probe_files(struct hash_ctx *x, bool hashing) {
	_cleanup_close_ int dfd = -1;
	uint64_t next;
	char name[32];
	int r;

	dfd = open(x->env.probe, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		return negative_errno();
	if (hashing && (r = touch_files(x)) < 0)
		return r;
	next = bench_now_ns(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < x->o->probes; i++) {
		uint64_t t;
		int fd;

		/* between two creates: what came, then wait for more or for the
		 * next create's time */
		for (;;) {
			r = reader_pump(x);
			if (r < 0)
				return r;
			if (bench_now_ns(CLOCK_MONOTONIC) >= next)
				break;
			r = reader_wait(x, next);
			if (r < 0)
				return r;
		}
		snprintf(name, sizeof(name), "r%u-%u", x->probe_run, i);
		x->busy[i] = hashing && x->content_due;
		t = bench_now_ns(CLOCK_MONOTONIC);
		x->t_create[i] = t;
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0 || close(fd) < 0)
			return negative_errno();
		/* (spaced from this create, not a schedule: a late one does not
		 * bring a burst) */
		next = t + PROBE_INTERVAL_NS;
	}
	return 0;
}

static int run_probe(struct hash_ctx *x, bool hashing) {
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), policy = sched_getscheduler(0), r;
	struct sched_param fifo = { .sched_priority = 1 }, old = { 0 };
	bool rt;

	x->probe_run++;
	x->probe_seen = 0;
	memset(x->t_create, 0, x->o->probes * sizeof(*x->t_create));
	memset(x->lat, 0, x->o->probes * sizeof(*x->lat));
	/* The bench's waits as exact as the kernel makes them (default slack:
	 * 50 us, a quarter of the interval); the daemon, started before, keeps
	 * its own. And the bench's own wake-up out of the figures: woken by a
	 * record on the CPU where the hasher runs, a SCHED_OTHER bench waited
	 * there up to ~3 ms while the other CPU idled (perf sched_switch on 2
	 * CPUs); SCHED_FIFO preempts at once, so the receipt time is when the
	 * daemon wrote. The daemon's threads keep their policy: a hash in the
	 * way of its own event path is what is measured. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	rt = policy >= 0 && sched_getparam(0, &old) == 0 &&
	     sched_setscheduler(0, SCHED_FIFO, &fifo) == 0;
	if (!rt)
		x->not_fifo = true;
	r = probe_files(x, hashing);
	if (r == 0)
		r = wait_output(x, W_PROBES, WAIT_DEADLINE_NS,
				hashing ? "the probe while hashing" : "the probe");
	if (rt)
		(void)sched_setscheduler(0, policy, &old);
	if (slack > 0)
		(void)prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Rounds, summary, table, JSON                                              */
/* ------------------------------------------------------------------------ */

static double mbps(const struct hash_ctx *x, uint64_t ns) {
	return ns ? (double)x->size * x->o->files / 1e6 / ((double)ns / 1e9) : NAN;
}

static int run_rounds(struct hash_ctx *x, struct results *res) {
	const struct hash_opts *o = x->o;
	uint64_t t_start = bench_now_ns(CLOCK_MONOTONIC), ns;
	enum ref order[_R_MAX];
	unsigned n = 0;
	int r;

	for (unsigned i = 0; i < _R_MAX; i++)
		if (res->ran[i])
			order[n++] = i;
	for (unsigned round = 0; round < o->rounds; round++) {
		for (unsigned k = 0; k < n; k++) {
			enum ref which = order[(k + round) % n];

			r = which == R_FSNOTIFYD ? run_fsnotifyd(x, &ns)
						 : run_ref(x, which, false, &ns);
			if (r < 0)
				return r;
			res->mbps[which][round] = mbps(x, ns);
		}
		for (unsigned k = 0; k < D_RUNS; k++) {
			enum delay_kind d = (k + round) % D_RUNS;
			uint64_t *busy = res->lat[D_BUSY] + res->nlat[D_BUSY];
			size_t nbusy = 0;

			r = run_probe(x, d == D_HASHING);
			if (r < 0)
				return r;
			for (unsigned i = 0; i < o->probes; i++)
				if (x->busy[i])
					busy[nbusy++] = x->lat[i];
			res->nlat[D_BUSY] += nbusy;
			memcpy(res->lat[d] + res->nlat[d], x->lat, o->probes * sizeof(*x->lat));
			res->nlat[d] += o->probes;
			res->round_p99[d][round] = bench_percentile(x->lat, o->probes, 0.99) / 1e3;
			if (d == D_HASHING)
				res->round_p99[D_BUSY][round] =
				    bench_percentile(busy, nbusy, 0.99) / 1e3;
		}
		bench_progress("hash", round + 1, o->rounds, t_start);
	}
	return 0;
}

struct summary {
	double median[_R_MAX], min[_R_MAX], max[_R_MAX];
	double ratio_sha[_R_MAX]; /* median of the per-round ratios to sha256sum */
	double ratio_fsnd_openssl;
	unsigned rounds_met;
	double p50_us[_D_MAX], p99_us[_D_MAX], max_us[_D_MAX];
	double ratio_p99, ratio_p50, ratio_p99_busy;
	/* the p99 ratio within each round, and its median: a machine whose
	 * load drifts between rounds moves both runs of a round alike */
	double *round_ratio_p99, median_round_ratio_p99;
};

static void summarize(const struct hash_opts *o, struct results *res, struct summary *s) {
	_cleanup_free_ double *v = calloc(o->rounds, sizeof(double));
	_cleanup_free_ double *q = calloc(o->rounds, sizeof(double));

	for (unsigned i = 0; i < _R_MAX; i++) {
		s->median[i] = s->min[i] = s->max[i] = s->ratio_sha[i] = NAN;
		if (!res->ran[i] || !v || !q)
			continue;
		s->min[i] = INFINITY;
		s->max[i] = 0;
		for (unsigned r = 0; r < o->rounds; r++) {
			double m = res->mbps[i][r];

			v[r] = m;
			q[r] = m / res->mbps[R_SHA256SUM][r];
			s->min[i] = m < s->min[i] ? m : s->min[i];
			s->max[i] = m > s->max[i] ? m : s->max[i];
			if (i == R_FSNOTIFYD && q[r] >= TARGET_THROUGHPUT)
				s->rounds_met++;
		}
		s->median[i] = bench_median(v, o->rounds);
		s->ratio_sha[i] = bench_median(q, o->rounds);
	}
	s->ratio_fsnd_openssl = NAN;
	if (res->ran[R_OPENSSL] && q) {
		for (unsigned r = 0; r < o->rounds; r++)
			q[r] = res->mbps[R_FSNOTIFYD][r] / res->mbps[R_OPENSSL][r];
		s->ratio_fsnd_openssl = bench_median(q, o->rounds);
	}
	for (unsigned d = 0; d < _D_MAX; d++) {
		static const double qs[] = { 0.50, 0.99, 1.0 };
		double out[ELEMENTSOF(qs)];

		bench_quantiles(res->lat[d], res->nlat[d], qs, ELEMENTSOF(qs), out);
		s->p50_us[d] = out[0] / 1e3;
		s->p99_us[d] = out[1] / 1e3;
		s->max_us[d] = out[2] / 1e3;
	}
	s->ratio_p99 = s->p99_us[D_HASHING] / s->p99_us[D_CALM];
	s->ratio_p50 = s->p50_us[D_HASHING] / s->p50_us[D_CALM];
	s->ratio_p99_busy = s->p99_us[D_BUSY] / s->p99_us[D_CALM];
	s->median_round_ratio_p99 = NAN;
	s->round_ratio_p99 = calloc(o->rounds, sizeof(double));
	if (s->round_ratio_p99 && q) {
		for (unsigned r = 0; r < o->rounds; r++)
			q[r] = s->round_ratio_p99[r] =
			    res->round_p99[D_HASHING][r] / res->round_p99[D_CALM][r];
		s->median_round_ratio_p99 = bench_median(q, o->rounds);
	}
}

/* The CPU's model and whether it has SHA-256 instructions (x86 sha_ni,
 * arm64 sha2), from /proc/cpuinfo: the references' speed depends on both. */
static void cpu_probe(char *model, size_t len, const char **ret_sha) {
	_cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool flags_seen = false, sha = false;

	snprintf(model, len, "unknown");
	*ret_sha = "unknown";
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "model name", 10) == 0 && strcmp(model, "unknown") == 0)
			snprintf(model, len, "%s", colon + 1 + strspn(colon + 1, " \t"));
		if (!flags_seen &&
		    (strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0) &&
		    strlen(line) + 1 < sizeof(line)) {
			strcat(line, " "); /* (each flag between two spaces) */
			flags_seen = true;
			sha = strstr(colon, " sha_ni ") || strstr(colon, " sha2 ");
		}
	}
	if (flags_seen)
		*ret_sha = sha ? "yes" : "no";
}

static void fmt(char *buf, size_t len, double v, int prec) {
	if (isfinite(v))
		snprintf(buf, len, "%.*f", prec, v);
	else
		snprintf(buf, len, "-");
}

static void print_table(const struct hash_opts *o, const struct results *res,
			const struct summary *s, const char *cpu, const char *sha) {
	char a[32], b[32], c[32], d[32];

	printf("fsn-bench hash: %u files x %" PRIu64 " MiB (%" PRIu64
	       " MiB) on tmpfs, %u round(s); MB = 10^6 bytes\n",
	       o->files, o->size_mib, o->files * o->size_mib, o->rounds);
	printf("cpu: %s (SHA instructions: %s)\n", cpu, sha);
	printf("%-10s %12s %10s %10s %12s\n", "reader", "median_MB/s", "min_MB/s", "max_MB/s",
	       "x_sha256sum");
	for (unsigned i = 0; i < _R_MAX; i++) {
		if (!res->ran[i]) {
			printf("%-10s not installed\n", ref_names[i]);
			continue;
		}
		fmt(a, sizeof(a), s->median[i], 1);
		fmt(b, sizeof(b), s->min[i], 1);
		fmt(c, sizeof(c), s->max[i], 1);
		fmt(d, sizeof(d), s->ratio_sha[i], 2);
		printf("%-10s %12s %10s %10s %12s\n", ref_names[i], a, b, c, d);
	}
	printf("(x_sha256sum: the median of the per-round ratios)\n");
	printf("delay of records that need no hash (rule p: a create every %u us, %u a run,\n"
	       "pooled over %u round(s); the bench %s):\n",
	       PROBE_INTERVAL_NS / 1000, o->probes, o->rounds,
	       res->reader_fifo ? "SCHED_FIFO" : "not SCHED_FIFO: its own wake-ups count");
	printf("%-10s %9s %10s %10s %10s\n", "run", "samples", "p50_us", "p99_us", "max_us");
	for (unsigned k = 0; k < _D_MAX; k++) {
		fmt(a, sizeof(a), s->p50_us[k], 1);
		fmt(b, sizeof(b), s->p99_us[k], 1);
		fmt(c, sizeof(c), s->max_us[k], 1);
		printf("%-10s %9zu %10s %10s %10s\n", delay_names[k], res->nlat[k], a, b, c);
	}
	printf("(busy: the hashing run's probe files created while the hasher was busy,\n"
	       "before the bench had read the last content record)\n");
	printf("targets for fsnotifyd (printed, never an exit status):\n");
	printf("  throughput >= %.2fx sha256sum in every round: %u of %u  [%s]\n",
	       TARGET_THROUGHPUT, s->rounds_met, o->rounds,
	       s->rounds_met == o->rounds ? "met" : "missed");
	printf("  p99 delay hashing <= %.2fx calm: %.2fx (p50 %.2fx; busy p99 %.2fx)  [%s]\n",
	       TARGET_P99, s->ratio_p99, s->ratio_p50, s->ratio_p99_busy,
	       s->ratio_p99 <= TARGET_P99 ? "met" : "missed");
	if (s->round_ratio_p99 && o->rounds > 1) {
		printf("    (p99 hashing/calm per round:");
		for (unsigned r = 0; r < o->rounds; r++)
			printf(" %.2f", s->round_ratio_p99[r]);
		printf("; median %.2fx)\n", s->median_round_ratio_p99);
	}
	if (res->ran[R_OPENSSL])
		printf("  (for reference: fsnotifyd %.2fx openssl, the median of per-round "
		       "ratios)\n",
		       s->ratio_fsnd_openssl);
}

static void write_rounds(FILE *f, const double *v, unsigned n) {
	fputc('[', f);
	for (unsigned r = 0; r < n; r++) {
		if (r)
			fputs(", ", f);
		json_write_number(f, v[r]);
	}
	fputc(']', f);
}

static int write_json(const char *path, const struct hash_opts *o, const struct results *res,
		      const struct summary *s, const char *cpu, const char *sha) {
	FILE *f = fopen(path, "we");

	if (!f)
		return negative_errno();
	bench_json_write_head(f, "fsn-bench hash");
	fputs("},\n  \"cpu\": ", f);
	json_write_string(f, cpu);
	fprintf(f,
		",\n  \"sha_instructions\": \"%s\", \"files\": %u, \"size_mib\": %" PRIu64
		", \"rounds\": %u, \"quick\": %s, \"fsnotifyd\": ",
		sha, o->files, o->size_mib, o->rounds, o->quick ? "true" : "false");
	json_write_string(f, o->fsnotifyd);
	fputs(",\n  \"throughput\": {", f);
	for (unsigned i = 0; i < _R_MAX; i++) {
		fprintf(f, "%s\n    \"%s\": {\"ran\": %s, \"note\": \"%s\", \"median_mbps\": ",
			i ? "," : "", ref_names[i], res->ran[i] ? "true" : "false",
			res->ran[i] ? "" : "not installed");
		json_write_number(f, s->median[i]);
		fputs(", \"min\": ", f);
		json_write_number(f, s->min[i]);
		fputs(", \"max\": ", f);
		json_write_number(f, s->max[i]);
		fputs(", \"rounds_mbps\": ", f);
		if (res->ran[i])
			write_rounds(f, res->mbps[i], o->rounds);
		else
			fputs("[]", f);
		fputc('}', f);
	}
	fputs("\n  },\n  \"ratio_sha256sum\": ", f);
	json_write_number(f, s->ratio_sha[R_FSNOTIFYD]);
	fputs(", \"ratio_openssl\": ", f);
	json_write_number(f, s->ratio_fsnd_openssl);
	fputs(",\n  \"delay\": {", f);
	fprintf(f, "\"interval_us\": %u, \"probes\": %u, \"reader_fifo\": %s",
		PROBE_INTERVAL_NS / 1000, o->probes, res->reader_fifo ? "true" : "false");
	for (unsigned k = 0; k < _D_MAX; k++) {
		fprintf(f, ",\n    \"%s\": {\"samples\": %zu, \"p50_us\": ", delay_json[k],
			res->nlat[k]);
		json_write_number(f, s->p50_us[k]);
		fputs(", \"p99_us\": ", f);
		json_write_number(f, s->p99_us[k]);
		fputs(", \"max_us\": ", f);
		json_write_number(f, s->max_us[k]);
		fputs(", \"rounds_p99_us\": ", f);
		write_rounds(f, res->round_p99[k], o->rounds);
		fputc('}', f);
	}
	fputs(",\n    \"ratio_p99\": ", f);
	json_write_number(f, s->ratio_p99);
	fputs(", \"ratio_p50\": ", f);
	json_write_number(f, s->ratio_p50);
	fputs(", \"ratio_p99_busy\": ", f);
	json_write_number(f, s->ratio_p99_busy);
	fputs(", \"rounds_ratio_p99\": ", f);
	if (s->round_ratio_p99)
		write_rounds(f, s->round_ratio_p99, o->rounds);
	else
		fputs("[]", f);
	fputs(", \"median_round_ratio_p99\": ", f);
	json_write_number(f, s->median_round_ratio_p99);
	fprintf(f,
		"},\n  \"targets\": {\"throughput_vs_sha256sum\": {\"limit\": %g, \"rounds_met\": "
		"%u, \"rounds\": %u, \"met\": %s}, \"p99_hashing_vs_calm\": {\"limit\": %g, "
		"\"ratio\": ",
		TARGET_THROUGHPUT, s->rounds_met, o->rounds,
		s->rounds_met == o->rounds ? "true" : "false", TARGET_P99);
	json_write_number(f, s->ratio_p99);
	fprintf(f, ", \"met\": %s}}\n}\n", s->ratio_p99 <= TARGET_P99 ? "true" : "false");
	return bench_fclose(f);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct hash_opts *o) {
	enum { OPT_FILES = BENCH_OPT_OWN, OPT_SIZE, OPT_PROBES };
	static const struct option longopts[] = {
		BENCH_COMMON_LONGOPTS,
		{ "files", required_argument, NULL, OPT_FILES },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "probes", required_argument, NULL, OPT_PROBES },
		{ 0 },
	};
	struct bench_common com = {
		.min_rounds = 1,
		.max_rounds = 64,
		.no_ops = "fsn-bench hash: no --ops; the work is --files N --size MIB",
	};
	uint64_t files = 0, size = 0, probes = 0;
	int c, r;

	*o = (struct hash_opts){ 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) >= 0) {
		switch (c) {
		case OPT_FILES: r = bench_parse_u64("--files", optarg, 1, MAX_FILES, &files); break;
		case OPT_SIZE: r = bench_parse_u64("--size", optarg, 1, MAX_SIZE_MIB, &size); break;
		case OPT_PROBES:
			r = bench_parse_u64("--probes", optarg, 1, MAX_PROBES, &probes);
			break;
		default: r = bench_common_opt(c, optarg, &com); break;
		}
		if (r != 0)
			return r;
	}
	r = bench_common_finish(argc, argv, &com);
	if (r < 0)
		return r;
	o->quick = com.quick;
	o->json_path = com.json_path;
	o->fsnotifyd = com.fsnotifyd;
	o->rounds = com.rounds ? (unsigned)com.rounds : o->quick ? 1 : 3;
	o->files = files ? (unsigned)files : o->quick ? 8 : 32;
	o->size_mib = size ? size : o->quick ? 4 : 32;
	o->probes = probes ? (unsigned)probes : o->quick ? 200 : 2000;
	return 0;
}

static void results_free(struct results *res) {
	for (unsigned i = 0; i < _R_MAX; i++)
		free(res->mbps[i]);
	for (unsigned d = 0; d < _D_MAX; d++) {
		free(res->lat[d]);
		free(res->round_p99[d]);
	}
}

static int results_alloc(const struct hash_opts *o, struct results *res) {
	for (unsigned i = 0; i < _R_MAX; i++)
		if (!(res->mbps[i] = calloc(o->rounds, sizeof(double))))
			return -ENOMEM;
	for (unsigned d = 0; d < _D_MAX; d++)
		if (!(res->lat[d] = calloc((size_t)o->probes * o->rounds, sizeof(uint64_t))) ||
		    !(res->round_p99[d] = calloc(o->rounds, sizeof(double))))
			return -ENOMEM;
	return 0;
}

int bench_hash_main(int argc, char **argv) {
	static const char default_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
					   "/sbin:/bin";
	struct hash_opts o;
	struct hash_ctx x = { .env.base = "", .daemon = -1, .rd = { .fd = -1, .ino = -1 } };
	struct results res = { 0 };
	struct summary s = { 0 };
	char cpu[128];
	const char *sha;
	uint64_t ns;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (bench_needs_root("hash", "fanotify marks"))
		return 77;
	r = check_memory(&o);
	if (r < 0)
		return r;
	if (!bench_in_path("sha256sum", default_path)) {
		fprintf(stderr, "fsn-bench hash: sha256sum (coreutils) is not on PATH\n");
		return -ENOENT;
	}
	x.o = &o;
	x.size = o.size_mib << 20;
	res.ran[R_SHA256SUM] = res.ran[R_FSNOTIFYD] = true;
	res.ran[R_OPENSSL] = bench_in_path("openssl", default_path);
	x.expect = calloc(o.files, sizeof(*x.expect));
	x.seen = calloc(o.files, sizeof(*x.seen));
	x.t_create = calloc(o.probes, sizeof(*x.t_create));
	x.lat = calloc(o.probes, sizeof(*x.lat));
	x.busy = calloc(o.probes, sizeof(*x.busy));
	r = !x.expect || !x.seen || !x.t_create || !x.lat || !x.busy ? -ENOMEM
								     : results_alloc(&o, &res);
	if (r == 0) {
		r = env_setup(&x);
		if (r < 0)
			fprintf(stderr, "fsn-bench: private mount namespace / tmpfs setup: %s\n",
				strerror(-r));
	}
	/* untimed: the hashes every reader must find, and a warm start */
	if (r == 0)
		r = run_ref(&x, R_SHA256SUM, true, &ns);
	if (r == 0)
		r = daemon_start(&x);
	if (r == 0)
		r = run_rounds(&x, &res);
	res.reader_fifo = !x.not_fifo;
	bench_kill_wait(x.daemon);
	reader_close(&x.rd);
	bench_env_teardown(x.env.base);
	if (r == 0) {
		cpu_probe(cpu, sizeof(cpu), &sha);
		summarize(&o, &res, &s);
		print_table(&o, &res, &s, cpu, sha);
		if (o.json_path) {
			r = write_json(o.json_path, &o, &res, &s, cpu, sha);
			if (r < 0)
				fprintf(stderr, "fsn-bench: %s: %s\n", o.json_path, strerror(-r));
		}
	}
	free(x.expect);
	free(x.seen);
	free(x.t_create);
	free(x.lat);
	free(x.busy);
	free(s.round_ratio_p99);
	results_free(&res);
	return r < 0 ? r : 0;
}
