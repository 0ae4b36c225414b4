/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-escape.c — the "escape" suite: the record library's escaping
 * (json_escape, and json_write_string() writing exactly what it does;
 * text_escape, base64_encode), record_to_json() byte for byte (events,
 * overflows, drops, permission decisions and stats, who, a file's
 * attributes before and after), a round trip of
 * hostile filenames through jq, and the outputs themselves:
 * json (files, rotation, ENOSPC, EPIPE, a slow pipe reader), journal
 * (no journal; and a private journal socket in a mount namespace, as
 * root) and exec (argv substitution, forwarded output, limits, timeouts,
 * reaping).
 *
 * No sleeps as synchronisation: the libev default loop is run until a
 * condition holds, with a deadline. The daemon's log (stderr) is captured
 * into a memfd to check what was logged and how often.
 */
#include <dirent.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "fsn.h"
#include "json.h"
#include "log.h"
#include "origin.h"
#include "output-private.h"
#include "unit.h"

/* String literals where the config structs want char * (-Wwrite-strings). */
#define S(x) ((char *)(x))
#define FFFD "\xef\xbf\xbd"
#define T0 UINT64_C(1796014329123456) /* 2026-11-30T04:52:09.123456Z */

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* The daemon's log (stderr) into a memfd while a test runs. */
struct capture {
	int fd, saved;
};

static void capture_start(struct capture *c) {
	c->fd = memfd_create("log", MFD_CLOEXEC);
	ck_assert_int_ge(c->fd, 0);
	fflush(stderr);
	c->saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	ck_assert_int_ge(c->saved, 0);
	ck_assert_int_eq(dup2(c->fd, STDERR_FILENO), STDERR_FILENO);
}

/* What was logged so far (malloc'd, NUL terminated). */
static char *capture_text(struct capture *c) {
	struct stat st;
	char *s;

	fflush(stderr);
	ck_assert_int_eq(fstat(c->fd, &st), 0);
	s = calloc(1, (size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(pread(c->fd, s, (size_t)st.st_size, 0), st.st_size);
	return s;
}

static void capture_stop(struct capture *c) {
	fflush(stderr);
	ck_assert_int_eq(dup2(c->saved, STDERR_FILENO), STDERR_FILENO);
	close(c->saved);
	close(c->fd);
}

static unsigned count_str(const char *hay, const char *needle) {
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static char *read_file(const char *path, size_t *len) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *s;

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fstat(fd, &st), 0);
	s = calloc(1, (size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(read(fd, s, (size_t)st.st_size), st.st_size);
	close(fd);
	if (len)
		*len = (size_t)st.st_size;
	return s;
}

static char *json_line(const struct record *r) {
	int n = record_to_json(r, NULL, 0);
	char *s;

	ck_assert_int_gt(n, 0);
	s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(record_to_json(r, s, (size_t)n + 1), n);
	return s;
}

/* r as a JSON line is want. */
static void assert_json(const struct record *r, const char *want) {
	char *s = json_line(r);

	ck_assert_str_eq(s, want);
	free(s);
}

#define SHA_ABC_HEX "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static struct record event(const char *path) {
	return (struct record){
		.kind = RECORD_EVENT,
		.time_usec = T0,
		.rule = "demo",
		.mask = 0x100 | 0x40000000, /* create, ondir */
		.path = path,
		.pid = 123,
		.comm = "touch",
		.uid = 0,
	};
}

/* Who, as a rule with who sees a process: every field known. */
static const struct record_who some_who = {
	.login_uid = 1000,
	.session = 7,
	.exe = "/usr/bin/vim",
	.ppid = 99,
	.parent_comm = "bash",
	.unit = "ssh.service",
	.slice = "system.slice",
	.container = "docker://ab",
	.mntns = 4026531841,
};

/* A file's attributes, before and after a chmod 4755 (and its ctime). */
static const struct record_attrs some_before = {
	.type = S_IFREG,
	.mode = 0755,
	.uid = 0,
	.gid = 0,
	.size = 42,
	.mtime_sec = 1577934245,
	.mtime_nsec = 123456789,
	.ctime_sec = 1577934245,
	.ctime_nsec = 5,
	.ino = 12,
	.nlink = 1,
};
static const struct record_attrs some_after = {
	.type = S_IFREG,
	.mode = 04755,
	.uid = 0,
	.gid = 0,
	.size = 42,
	.mtime_sec = 1577934245,
	.mtime_nsec = 123456789,
	.ctime_sec = 1577934300,
	.ctime_nsec = 0,
	.ino = 12,
	.nlink = 1,
};

/* Run the loop until cond(data) or timeout seconds; returns cond(data). */
struct deadline {
	bool expired;
};

static void deadline_cb(struct ev_loop *loop, ev_timer *w, int revents) {
	((struct deadline *)w->data)->expired = true;
}

static bool run_until(struct ev_loop *loop, bool (*cond)(void *), void *data, double timeout) {
	struct deadline d = { false };
	ev_timer t;

	ev_now_update(loop);
	ev_timer_init(&t, deadline_cb, timeout, 0.);
	t.data = &d;
	ev_timer_start(loop, &t);
	while (!cond(data) && !d.expired)
		ev_run(loop, EVRUN_ONCE);
	ev_timer_stop(loop, &t);
	return cond(data);
}

static bool never(void *data) {
	return false;
}

/* Children of this process, zombies included. */
static unsigned count_children(void) {
	char path[64], buf[4096];
	unsigned n = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(len, 0);
	buf[len] = '\0';
	for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
		n++;
	return n;
}

static bool no_children(void *data) {
	return count_children() == 0;
}

/* Run argv (no shell) with stdout captured; returns its stdout, *len its
 * length, asserts exit status 0. */
static char *run_capture(char *const argv[], size_t *len) {
	size_t cap = 4096, n = 0;
	char *out = malloc(cap);
	int p[2], st;
	pid_t pid;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		r = read(p[0], out + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		ck_assert_int_ge(r, 0);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed (status 0x%x)", argv[0],
		      st);
	*len = n;
	return out;
}

static const char *find_jq(void) {
	static const char *const where[] = { S("/usr/bin/jq"), S("/usr/local/bin/jq"),
					     S("/bin/jq") };

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* jq, or the test is skipped (fails with FSN_TESTS_MUST_RUN=1). */
static const char *need_jq(void) {
	const char *jq = find_jq();

	if (!jq) {
		if (test_must_run())
			ck_abort_msg(
			    "jq is not installed (tools/install-deps --tests installs it)");
		fsn_test_skip("jq is not installed (tools/install-deps --tests installs it)");
	}
	return jq;
}

/* ------------------------------------------------------------------------ */
/* json_escape, text_escape, base64                                         */
/* ------------------------------------------------------------------------ */

struct esc_case {
	const char *in, *out;
	bool valid;
};

static const struct esc_case json_cases[] = {
	{ "", "", true },
	{ "plain name.txt", "plain name.txt", true },
	{ "a\nb", "a\\nb", true },
	{ "say \"hi\"", "say \\\"hi\\\"", true },
	{ "back\\slash", "back\\\\slash", true },
	{ "t\tab", "t\\tab", true },
	{ "\b\f\r", "\\b\\f\\r", true },
	{ "\x01", "\\u0001", true },
	{ "\x1b[31m", "\\u001b[31m", true },
	{ "\x1f", "\\u001f", true },
	{ "del\x7f", "del\\u007f", true },
	{ "/", "/", true },
	{ "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9", true }, /* été */
	{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", true },   /* U+1F600, 4 bytes */
	/* C1 controls, line separators and bidirectional controls: valid
	 * (the JSON decodes to the very bytes) but never raw */
	{ "\xc2\x80\xc2\x9f", "\\u0080\\u009f", true },
	{ "a\xc2\x85-\xc2\x9b[2J", "a\\u0085-\\u009b[2J", true }, /* NEL, CSI */
	{ "\xe2\x80\xa8\xe2\x80\xa9", "\\u2028\\u2029", true },
	{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae",
	  "\\u202a\\u202b\\u202c\\u202d\\u202e", true },
	{ "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", "\\u2066\\u2067\\u2068\\u2069",
	  true },
	{ "\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f", "\\u061c\\u200e\\u200f", true }, /* ALM LRM RLM */
	{ "evil\xe2\x80\xaetxt.exe", "evil\\u202etxt.exe", true },
	/* their neighbours stay: U+00A0, U+200D, U+2027, U+202F, U+2065, U+206A */
	{ "\xc2\xa0\xe2\x80\x8d\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
	  "\xc2\xa0\xe2\x80\x8d\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", true },
	/* a C1 control next to invalid bytes: each as before */
	{ "\xc2\x9b\xc2", "\\u009b" FFFD, false },
	{ "\xed\x9f\xbf\xee\x80\x80", "\xed\x9f\xbf\xee\x80\x80", true }, /* U+D7FF U+E000 */
	{ "\xef\xbf\xbf", "\xef\xbf\xbf", true },                         /* U+FFFF */
	{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", true },                 /* U+10FFFF */
	{ "\xef\xbf\xbd", "\xef\xbf\xbd", true },                         /* U+FFFD itself */
	{ "\xff", FFFD, false },
	{ "a\xfe"
	  "b",
	  "a" FFFD "b", false },
	{ "\x80", FFFD, false },                            /* lone continuation */
	{ "\xc0\xaf", FFFD FFFD, false },                   /* overlong '/' */
	{ "\xc1\xbf", FFFD FFFD, false },                   /* overlong */
	{ "\xe0\x80\xaf", FFFD FFFD FFFD, false },          /* overlong 3 bytes */
	{ "\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD, false }, /* overlong 4 bytes */
	{ "\xed\xa0\x80", FFFD FFFD FFFD, false },          /* U+D800 surrogate */
	{ "\xed\xbf\xbf", FFFD FFFD FFFD, false },          /* U+DFFF surrogate */
	{ "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD, false }, /* U+110000 */
	{ "\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD, false },
	{ "\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD, false }, /* 5-byte form */
	{ "ab\xe2\x82", "ab" FFFD FFFD, false },                     /* truncated at end */
	{ "\xf0\x9f\x98", FFFD FFFD FFFD, false },                   /* truncated emoji */
	{ "\xe2\x82x", FFFD FFFD "x", false },                       /* truncated inside */
	{ "\xc3\n", FFFD "\\n", false },
	{ "q\"\xff\\\n", "q\\\"" FFFD "\\\\\\n", false },
};

START_TEST(test_json_escape) {
	for (size_t i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		const struct esc_case *c = &json_cases[i];
		char buf[256];
		size_t pos = 0;
		bool valid;

		valid = json_escape(buf, sizeof(buf), &pos, c->in);
		ck_assert_msg(strcmp(buf, c->out) == 0, "case %zu: got '%s', want '%s'", i, buf,
			      c->out);
		ck_assert_uint_eq(pos, strlen(c->out));
		ck_assert_msg(valid == c->valid, "case %zu: valid %d", i, valid);
	}
}
END_TEST

START_TEST(test_json_escape_append_truncate) {
	char buf[16], want[64];
	size_t pos = 3;

	/* Appends at *pos. */
	memcpy(buf, "ab:", 3);
	ck_assert(json_escape(buf, sizeof(buf), &pos, "x\"y"));
	ck_assert_str_eq(buf, "ab:x\\\"y");
	ck_assert_uint_eq(pos, 7);

	/* Truncated: what fits, NUL terminated, nothing beyond; pos counts all. */
	memset(buf, 'Z', sizeof(buf));
	pos = 0;
	ck_assert(!json_escape(buf, 8, &pos, "\n\n\n\xff\xff"));
	snprintf(want, sizeof(want), "\\n\\n\\n" FFFD FFFD);
	ck_assert_uint_eq(pos, strlen(want));
	ck_assert_int_eq(memcmp(buf, want, 7), 0);
	ck_assert_int_eq(buf[7], '\0');
	ck_assert_int_eq(buf[8], 'Z');

	/* len 0: only counts. */
	pos = 0;
	json_escape(NULL, 0, &pos, "\x01");
	ck_assert_uint_eq(pos, 6);
}
END_TEST

START_TEST(test_json_escape_255) {
	char name[256], buf[2048], want[2048] = "";
	size_t pos = 0;

	/* 255 bytes, each of the 85 triples escaped: \n, \", U+FFFD. */
	for (int i = 0; i < 85; i++) {
		memcpy(name + 3 * i, "\n\"\xff", 3);
		strcat(want, "\\n\\\"" FFFD);
	}
	name[255] = '\0';
	ck_assert(!json_escape(buf, sizeof(buf), &pos, name));
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(pos, 85 * 7);

	/* 255 valid bytes (85 three-byte characters) are kept as they are. */
	for (int i = 0; i < 85; i++)
		memcpy(name + 3 * i, "\xe2\x82\xac", 3); /* € */
	pos = 0;
	ck_assert(json_escape(buf, sizeof(buf), &pos, name));
	ck_assert_str_eq(buf, name);
}
END_TEST

/* Every byte at every place of a name longer than a word: the scan that
 * takes eight plain bytes at a time stops for each byte a one-byte name
 * escapes, wherever it is in the word, and for nothing else. */
START_TEST(test_json_escape_every_place) {
	for (unsigned b = 1; b < 256; b++) {
		char one[2] = { (char)b, '\0' }, alone[16], in[24], want[64], got[64];
		size_t n = 0;

		json_escape(alone, sizeof(alone), &n, one);
		for (size_t k = 0; k < 19; k++) {
			size_t pos = 0;

			memset(in, 'a', 19);
			in[k] = (char)b;
			in[19] = '\0';
			snprintf(want, sizeof(want), "%.*s%s%.*s", (int)k, in, alone, (int)(18 - k),
				 in + k + 1);
			json_escape(got, sizeof(got), &pos, in);
			ck_assert_msg(strcmp(got, want) == 0,
				      "byte 0x%02x at %zu: got '%s', want '%s'", b, k, got, want);
			ck_assert_uint_eq(pos, strlen(want));
		}
	}
}
END_TEST

/* json_write_string() (shared/json.c: fsn-bench's, and anyone's JSON
 * written to a FILE) as a string; the caller frees it. */
static char *write_string(const char *s) {
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	ck_assert_ptr_nonnull(f);
	json_write_string(f, s);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/* The value of ,"key": in a record's JSON line, up to the ',' after it,
 * must be want exactly. */
static void assert_member(const char *line, const char *key, const char *want, size_t i) {
	char k[32];
	const char *v;

	snprintf(k, sizeof(k), ",\"%s\":", key);
	v = strstr(line, k);
	ck_assert_msg(v, "case %zu: no %s in %s", i, key, line);
	v += strlen(k);
	ck_assert_msg(strncmp(v, want, strlen(want)) == 0 && v[strlen(want)] == ',',
		      "case %zu: %s is not %s in %s", i, key, want, line);
}

/* One JSON escaper: json_write_string() writes a hostile string exactly as
 * record_to_json() writes it as a path (its readable "path", next to
 * path_b64 when not UTF-8) and as a comm, and as json_escape() escapes it. */
START_TEST(test_json_write_string_same) {
	enum { LONG = 3000 };
	static const char mix[] = "\x01\"\\\xff\xe2\x80\xae\xc3\xa9\n\xc0\xaf\x7f";
	char *long_name = malloc(LONG + 1), *line = malloc(1 << 17);
	size_t n_cases = sizeof(json_cases) / sizeof(json_cases[0]);

	ck_assert_ptr_nonnull(long_name);
	ck_assert_ptr_nonnull(line);
	/* longer than json_write_string()'s own buffer */
	for (size_t i = 0; i < LONG; i++)
		long_name[i] = mix[i % (sizeof(mix) - 1)];
	long_name[LONG] = '\0';

	for (size_t i = 0; i <= n_cases; i++) {
		const char *in = i < n_cases ? json_cases[i].in : long_name;
		struct record r = event(in);
		char *ws = write_string(in), *want = malloc(strlen(in) * 6 + 3);
		size_t pos = 1;
		int n;

		ck_assert_ptr_nonnull(want);
		want[0] = '"';
		json_escape(want, strlen(in) * 6 + 3, &pos, in);
		memcpy(want + pos, "\"", 2);
		ck_assert_msg(strcmp(ws, want) == 0,
			      "case %zu: json_write_string() wrote %s, want %s", i, ws, want);
		if (i < n_cases) { /* and as the escape cases above say */
			const char *out = json_cases[i].out;

			ck_assert_msg(strncmp(ws + 1, out, strlen(out)) == 0 &&
					  strcmp(ws + 1 + strlen(out), "\"") == 0,
				      "case %zu: json_write_string() wrote %s", i, ws);
		}

		r.comm = in;
		n = record_to_json(&r, line, 1 << 17);
		ck_assert_int_gt(n, 0);
		ck_assert_int_lt(n, 1 << 17);
		assert_member(line, "path", ws, i);
		assert_member(line, "comm", ws, i);
		free(want);
		free(ws);
	}
	free(line);
	free(long_name);
}
END_TEST

START_TEST(test_text_escape) {
	static const struct esc_case cases[] = {
		{ "plain", "plain", true },
		{ "a\nb\tc\rd", "a\\nb\\tc\\rd", true },
		{ "back\\slash", "back\\\\slash", true },
		{ "\x01\x1b[2J\x7f", "\\x01\\x1b[2J\\x7f", true },
		{ "\xc3\xa9\xf0\x9f\x98\x80", "\xc3\xa9\xf0\x9f\x98\x80", true },
		{ "\xc2\x9b", "\\xc2\\x9b", true }, /* C1 CSI: escaped for terminals */
		{ "\xc2\xa0", "\xc2\xa0", true },   /* U+00A0 kept */
		{ "\xff\xc0\xaf", "\\xff\\xc0\\xaf", true },
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80", true },
		{ "\"q\"", "\"q\"", true },
		/* U+202E right-to-left override */
		{ "a\xe2\x80\xae!", "a\\xe2\\x80\\xae!", true },
		{ "\xe2\x80\xa8\xe2\x81\xa6", "\\xe2\\x80\\xa8\\xe2\\x81\\xa6", true },
		/* U+200F right-to-left mark; U+200D zero width joiner is kept */
		{ "\xe2\x80\x8f\xe2\x80\x8d", "\\xe2\\x80\\x8f\xe2\x80\x8d", true },
		/* U+061C arabic letter mark; U+2069 pop directional isolate */
		{ "\xd8\x9c\xe2\x81\xa9", "\\xd8\\x9c\\xe2\\x81\\xa9", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[256];
		size_t pos = 0;

		text_escape(buf, sizeof(buf), &pos, cases[i].in, strlen(cases[i].in));
		ck_assert_msg(strcmp(buf, cases[i].out) == 0, "case %zu: got '%s'", i, buf);
		ck_assert_uint_eq(pos, strlen(cases[i].out));
	}

	/* Bytes with NUL inside (child output). */
	{
		char buf[64];
		size_t pos = 0;

		text_escape(buf, sizeof(buf), &pos, "a\0b", 3);
		ck_assert_str_eq(buf, "a\\x00b");
	}
	{
		char buf[8];

		/* truncated between escapes, marked */
		ck_assert_str_eq(text_escaped(buf, sizeof(buf), "\n\n\n\n\n"), "\\n\\n...");
		ck_assert_str_eq(text_escaped(buf, sizeof(buf), "abcdefg"), "abcdefg");
		ck_assert_str_eq(text_escaped(buf, sizeof(buf), "abcdefgh"), "abcd...");
		ck_assert_str_eq(text_escaped(buf, sizeof(buf), "\xc3\xa9\xc3\xa9\xc3\xa9xy"),
				 "\xc3\xa9\xc3\xa9...");
		ck_assert_str_eq(text_escaped(buf, sizeof(buf), NULL), "(null)");
	}
}
END_TEST

START_TEST(test_base64) {
	static const char *const vec[][2] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		ck_assert_uint_eq(base64_encode(buf, sizeof(buf), vec[i][0], strlen(vec[i][0])),
				  strlen(vec[i][1]));
		ck_assert_str_eq(buf, vec[i][1]);
	}
	ck_assert_uint_eq(base64_encode(buf, sizeof(buf), "\xff\xfe\x00", 3), 4);
	ck_assert_str_eq(buf, "//4A");
	ck_assert_uint_eq(base64_encode(buf, sizeof(buf), "\xfb\xff", 2), 4);
	ck_assert_str_eq(buf, "+/8=");
	/* Truncated, NUL terminated. */
	ck_assert_uint_eq(base64_encode(buf, 5, "foobar", 6), 8);
	ck_assert_str_eq(buf, "Zm9v");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* record_to_json                                                           */
/* ------------------------------------------------------------------------ */

START_TEST(test_record_json_lines) {
	struct record r = event("/srv/demo/new dir");
	char *s;

	s = json_line(&r);
	ck_assert_str_eq(s,
			 "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"event\",\"rule\":"
			 "\"demo\",\"events\":[\"create\",\"ondir\"],\"path\":\"/srv/demo/new "
			 "dir\",\"pid\":123,\"comm\":\"touch\",\"uid\":0,\"severity\":\"info\"}\n");
	free(s);

	/* Unknown pid, comm, uid, path; an unnamed bit. */
	r = (struct record){ .kind = RECORD_EVENT,
			     .time_usec = 0,
			     .rule = "r",
			     .mask = 0x2 | (UINT64_C(1) << 40),
			     .uid = (uid_t)-1 };
	s = json_line(&r);
	ck_assert_str_eq(s, "{\"time\":\"1970-01-01T00:00:00.000000Z\",\"kind\":\"event\",\"rule\":"
			    "\"r\",\"events\":[\"modify\",\"0x10000000000\"],\"path\":null,\"pid\":"
			    "null,\"comm\":null,\"uid\":null,\"severity\":\"info\"}\n");
	free(s);

	/* Leading zeros of the microseconds; the largest pid and uid. */
	r = event("/a");
	r.time_usec = UINT64_C(1764478329) * 1000000u + 5;
	r.pid = INT32_MAX;
	r.uid = (uid_t)-2;
	s = json_line(&r);
	ck_assert_str_eq(
	    s, "{\"time\":\"2025-11-30T04:52:09.000005Z\",\"kind\":\"event\",\"rule\":"
	       "\"demo\",\"events\":[\"create\",\"ondir\"],\"path\":\"/a\",\"pid\":"
	       "2147483647,\"comm\":\"touch\",\"uid\":4294967294,\"severity\":\"info\"}\n");
	free(s);

	/* Invalid UTF-8 in path and comm; a rename with both names. */
	r = event("/d/new\xff\n");
	r.mask = 0x10000000; /* rename */
	r.old_path = "/d/\"old\"";
	r.comm = "x\xc0y";
	r.uid = 1000;
	s = json_line(&r);
	ck_assert_str_eq(s, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"event\",\"rule\":"
			    "\"demo\",\"events\":[\"rename\"],\"path\":\"/d/new" FFFD
			    "\\n\",\"path_b64\":\"L2QvbmV3/wo=\",\"old_path\":\"/d/\\\"old\\\"\","
			    "\"pid\":123,\"comm\":\"x" FFFD
			    "y\",\"uid\":1000,\"severity\":\"info\"}\n");
	free(s);

	/* Invalid old path. */
	r = event("/d/b");
	r.old_path = "/d/\xed\xa0\x80";
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, ",\"path\":\"/d/b\",\"old_path\":\"/d/" FFFD FFFD FFFD
					"\",\"old_path_b64\":\"L2Qv7aCA\",\"pid\""));
	free(s);

	/* Overflow, dropped (with and without a rule). */
	r = (struct record){
		.kind = RECORD_OVERFLOW, .time_usec = T0, .rule = "demo", .uid = (uid_t)-1
	};
	s = json_line(&r);
	ck_assert_str_eq(s, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"overflow\","
			    "\"rule\":\"demo\",\"severity\":\"warning\"}\n");
	free(s);
	r.mask = 0x4000;
	s = json_line(&r);
	ck_assert_str_eq(
	    s, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"overflow\","
	       "\"rule\":\"demo\",\"events\":[\"q_overflow\"],\"severity\":\"warning\"}\n");
	free(s);
	r = (struct record){
		.kind = RECORD_DROPPED, .time_usec = T0 + 876544, .rule = "demo", .count = 42
	};
	s = json_line(&r);
	ck_assert_str_eq(s, "{\"time\":\"2026-11-30T04:52:10.000000Z\",\"kind\":\"dropped\","
			    "\"rule\":\"demo\",\"count\":42,\"severity\":\"warning\"}\n");
	free(s);
	r.rule = NULL;
	s = json_line(&r);
	ck_assert_str_eq(s, "{\"time\":\"2026-11-30T04:52:10.000000Z\",\"kind\":\"dropped\","
			    "\"rule\":null,\"count\":42,\"severity\":\"warning\"}\n");
	free(s);
}
END_TEST

/* A rule's path that went (gone, unmounted) and came back (rearmed): the
 * path (and the mount point) as paths are (with _b64 for invalid UTF-8). */
START_TEST(test_record_json_lifecycle) {
	struct record r = {
		.kind = RECORD_GONE,
		.time_usec = T0,
		.rule = "demo",
		.path = "/etc/passwd",
		.uid = (uid_t)-1,
		.reason = "deleted",
	};
	char *s = json_line(&r);

	ck_assert_str_eq(s, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"gone\","
			    "\"rule\":\"demo\",\"path\":\"/etc/passwd\",\"reason\":\"deleted\","
			    "\"ondir\":false,\"severity\":\"warning\"}\n");
	free(s);
	r = (struct record){ .kind = RECORD_UNMOUNTED,
			     .time_usec = T0,
			     .rule = "demo",
			     .path = "/srv/d",
			     .mask = FAN_ONDIR,
			     .uid = (uid_t)-1,
			     .mount = "/srv\xff" };
	s = json_line(&r);
	ck_assert_str_eq(
	    s, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"unmounted\","
	       "\"rule\":\"demo\",\"path\":\"/srv/d\",\"mount\":\"/srv" FFFD
	       "\",\"mount_b64\":\"L3Nydv8=\",\"ondir\":true,\"severity\":\"warning\"}\n");
	free(s);
	r.mount = NULL;
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, ",\"mount\":null,\"ondir\":true,"));
	free(s);
	r = (struct record){ .kind = RECORD_REARMED,
			     .time_usec = T0,
			     .rule = "demo",
			     .path = "/srv/d",
			     .mask = FAN_ONDIR,
			     .uid = (uid_t)-1 };
	s = json_line(&r);
	ck_assert_str_eq(
	    s, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"rearmed\","
	       "\"rule\":\"demo\",\"path\":\"/srv/d\",\"ondir\":true,\"severity\":\"notice\"}\n");
	free(s);
}
END_TEST

START_TEST(test_record_json_truncate) {
	struct record r = event("/d/\xff\xfe");
	char full[512], small[40];
	int n;

	n = record_to_json(&r, full, sizeof(full));
	ck_assert_int_eq(n, (int)strlen(full));
	memset(small, 'Z', sizeof(small));
	ck_assert_int_eq(record_to_json(&r, small, 30), n);
	ck_assert_int_eq(memcmp(small, full, 29), 0);
	ck_assert_int_eq(small[29], '\0');
	ck_assert_int_eq(small[30], 'Z');
}
END_TEST

/* The "ecs" format: one event, exactly (its kinds and categories for
 * each: tests/ecs); a name not UTF-8 also as base64 under fsnotifyd;
 * snprintf-like when it does not fit; every byte of a name escaped. */
START_TEST(test_record_ecs) {
	struct record r = event("/d/f");
	char full[2048], small[40], name[16], path[32];
	int n;

	n = record_to_ecs(&r, full, sizeof(full));
	ck_assert_int_eq(n, (int)strlen(full));
	ck_assert_str_eq(full,
			 "{\"@timestamp\":\"2026-11-30T04:52:09.123456Z\",\"ecs\":{\"version\":"
			 "\"" ECS_VERSION "\"},\"event\":{\"kind\":\"event\",\"category\":["
			 "\"file\"],\"type\":[\"creation\"],\"action\":[\"create\"],"
			 "\"module\":\"fsnotifyd\",\"dataset\":\"fsnotifyd.record\","
			 "\"severity\":6},\"rule\":{\"name\":\"demo\"},\"log\":{\"level\":"
			 "\"info\"},\"file\":{\"path\":\"/d/f\",\"name\":\"f\","
			 "\"directory\":\"/d\",\"type\":\"dir\"},\"process\":{\"pid\":123,"
			 "\"name\":\"touch\"},\"user\":{\"id\":\"0\"},\"fsnotifyd\":{"
			 "\"kind\":\"event\"}}\n");
	memset(small, 'Z', sizeof(small));
	ck_assert_int_eq(record_to_ecs(&r, small, 30), n);
	ck_assert_int_eq(memcmp(small, full, 29), 0);
	ck_assert_int_eq(small[29], '\0');
	ck_assert_int_eq(small[30], 'Z');
	r.path = "/\xff";
	n = record_to_ecs(&r, full, sizeof(full));
	ck_assert_ptr_nonnull(strstr(full, "\"file\":{\"path\":\"/" FFFD "\",\"name\":\"" FFFD
					   "\",\"directory\":\"/\","));
	ck_assert_ptr_nonnull(
	    strstr(full, "\"fsnotifyd\":{\"kind\":\"event\",\"path_b64\":\"L/8=\"}"));
	for (int b = 1; b < 256; b++) {
		snprintf(name, sizeof(name), "x%cy", b);
		snprintf(path, sizeof(path), "/d/%s", name);
		r = event(path);
		r.old_path = path;
		r.comm = name;
		n = record_to_ecs(&r, full, sizeof(full));
		ck_assert_int_lt(n, (int)sizeof(full));
		ck_assert_int_eq(full[n - 1], '\n');
		for (int i = 0; i + 1 < n; i++)
			ck_assert_msg((unsigned char)full[i] >= 0x20 && full[i] != 0x7f,
				      "byte 0x%02x raw in the document for 0x%02x",
				      (unsigned char)full[i], b);
	}
}
END_TEST

/* file.mtime and .ctime as four-digit-year dates, or left out (an mtime
 * anyone can set past 9999 must not make Elasticsearch refuse the record);
 * an unmounted record keeps its path. */
START_TEST(test_record_ecs_dates) {
	static const struct {
		int64_t sec;
		const char *want; /* NULL: left out */
	} t[] = {
		{ 0, "1970-01-01T00:00:00.000000005Z" },
		{ -62135596800LL, "0001-01-01T00:00:00.000000005Z" },
		{ -62135596801LL, NULL },
		{ 253402300799LL, "9999-12-31T23:59:59.000000005Z" },
		{ 253402300800LL, NULL },
		{ INT64_MAX, NULL },
		{ INT64_MIN, NULL },
	};
	struct record_attrs a = some_after;
	struct record r = event("/d/f");
	char buf[2048], want[96];

	r.attrs = &a;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		a.mtime_sec = a.ctime_sec = t[i].sec;
		a.mtime_nsec = a.ctime_nsec = 5;
		ck_assert_int_lt(record_to_ecs(&r, buf, sizeof(buf)), (int)sizeof(buf));
		if (t[i].want) {
			snprintf(want, sizeof(want), "\"mtime\":\"%s\",\"ctime\":\"%s\"", t[i].want,
				 t[i].want);
			ck_assert_msg(strstr(buf, want), "%" PRId64 ": %s", t[i].sec, buf);
		} else
			ck_assert_msg(!strstr(buf, "\"mtime\"") && !strstr(buf, "\"ctime\""),
				      "%" PRId64 ": %s", t[i].sec, buf);
	}
	/* the record format: the date, or the seconds as a number */
	a.mtime_sec = 253402300800LL;
	a.ctime_sec = -62135596800LL;
	r.attrs_asked = true;
	{
		char *line = json_line(&r);

		ck_assert_msg(strstr(line, "\"mtime\":253402300800,\"ctime\":\"0001-01-01T00:00:"
					   "00.000000005Z\""),
			      "%s", line);
		free(line);
	}
	r = event("/mnt/x");
	r.kind = RECORD_UNMOUNTED;
	r.mount = "/mnt";
	ck_assert_int_lt(record_to_ecs(&r, buf, sizeof(buf)), (int)sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "\"file\":{\"path\":\"/mnt/x\""));
}
END_TEST

/* Every line: one object, no raw control characters, one '\n' at the end. */
START_TEST(test_record_json_structure) {
	char name[300], path[320];

	for (int b = 1; b < 256; b++) {
		struct record r;
		char *s;
		size_t n;

		snprintf(name, sizeof(name), "x%cy%c", b, b);
		snprintf(path, sizeof(path), "/d/%s", name);
		r = event(path);
		r.old_path = path;
		r.comm = name;
		r.rule = name;
		s = json_line(&r);
		n = strlen(s);
		ck_assert_int_eq(s[0], '{');
		ck_assert_int_eq(s[n - 2], '}');
		ck_assert_int_eq(s[n - 1], '\n');
		for (size_t i = 0; i + 1 < n; i++)
			ck_assert_msg((unsigned char)s[i] >= 0x20 && s[i] != 0x7f,
				      "byte 0x%02x raw in line for 0x%02x", (unsigned char)s[i], b);
		free(s);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* jq round trip                                                            */
/* ------------------------------------------------------------------------ */

static int b64_value(char c) {
	const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(tab, c) : NULL;

	return p ? (int)(p - tab) : -1;
}

static size_t b64_decode(const char *s, size_t n, char *out) {
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n && s[i] != '='; i++) {
		int v = b64_value(s[i]);

		ck_assert_int_ge(v, 0);
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	return o;
}

#define N_NAMES 600

static char *names[N_NAMES];

static size_t make_names(void) {
	static const char *const hostile[] = {
		S("a\nb"),
		S("\"quoted\""),
		S("back\\slash"),
		S("t\tab"),
		S("\x01"),
		S("del\x7f"),
		S("\xff"),
		S("\xc0\xaf"),
		S("\xed\xa0\x80"),
		S("\xf0\x9f\x98\x80"),
		S("trunc\xe2\x82"),
		S("\n"),
		S("\\"),
		S("\\u0000"),
		S("}{\"x\":1}\n{"),
		S("\xef\xbb\xbf"
		  "bom"),
		S("\xc2\x85nel"),
		S("\xe2\x80\xa8"),
		S("\xc2\x9b[2J\xc2\x9f"),
		S("rtl\xe2\x80\xaetxt.exe\xe2\x81\xa6\xe2\x81\xa9\xd8\x9c\xe2\x80\x8f"),
		S("-"),
		S(" "),
		S(".."),
		S("*?["),
		S("$(id)`id`;|&<>"),
	};
	unsigned seed = 12345;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		names[n++] = strdup(hostile[i]);
	/* Every byte value alone and inside a name. */
	for (int b = 1; b < 256; b++) {
		char s[8];

		snprintf(s, sizeof(s), "x%cy", b);
		names[n++] = strdup(s);
	}
	/* 255-byte names: all one hostile byte, and random bytes. */
	{
		char s[256];

		memset(s, '\n', 255);
		s[255] = '\0';
		names[n++] = strdup(s);
		memset(s, 0xff, 255);
		names[n++] = strdup(s);
		memset(s, '"', 255);
		names[n++] = strdup(s);
	}
	while (n < N_NAMES) {
		char s[256];
		size_t len;

		seed = seed * 1103515245 + 12345;
		len = 1 + (seed >> 16) % 255;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			s[i] = (char)(1 + (seed >> 16) % 255);
		}
		s[len] = '\0';
		names[n++] = strdup(s);
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_ptr_nonnull(names[i]);
	return n;
}

START_TEST(test_jq_roundtrip) {
	char dir[256], file[300], *out, *p, *end;
	const char *jq = need_jq();
	size_t n, len, i = 0, lines = 0;
	FILE *f;

	n = make_names();
	test_tmpdir(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "lines.json");
	f = fopen(file, "we");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < n; i++) {
		struct record r = event(names[i]);
		char *s;

		r.old_path = names[(i + 1) % n];
		r.comm = names[(i + 2) % n];
		s = json_line(&r);
		fputs(s, f);
		free(s);
	}
	ck_assert_int_eq(fclose(f), 0);

	/* The structure holds: jq sees exactly n objects, one per line. */
	{
		char *const argv[] = { (char *)jq, S("-s"), S("length"), file, NULL };

		out = run_capture(argv, &len);
		ck_assert_int_eq(atoi(out), (int)n);
		free(out);
		out = read_file(file, &len);
		for (size_t k = 0; k < len; k++)
			lines += out[k] == '\n';
		ck_assert_uint_eq(lines, n);
		free(out);
	}

	/* The documented way back to the bytes: .path unless .path_b64. */
	{
		char *const argv[] = {
			(char *)jq,
			S("-j"),
			S("(if has(\"path_b64\") then \"B\" + .path_b64 else \"P\" + .path end), "
			  "\"\\u0000\", (if has(\"old_path_b64\") then \"B\" + .old_path_b64 else "
			  "\"P\" "
			  "+ .old_path end), \"\\u0000\""),
			file,
			NULL,
		};

		out = run_capture(argv, &len);
		p = out;
		end = out + len;
		for (i = 0; i < 2 * n; i++) {
			const char *want = names[i % 2 == 0 ? i / 2 : (i / 2 + 1) % n];
			char *z = memchr(p, '\0', (size_t)(end - p)), got[1024];
			size_t gl;

			ck_assert_ptr_nonnull(z);
			if (p[0] == 'B') {
				gl = b64_decode(p + 1, (size_t)(z - p - 1), got);
				/* path_b64 only when needed */
				ck_assert_msg(!json_escape(NULL, 0, &(size_t){ 0 }, want),
					      "b64 for valid name %zu", i);
			} else {
				ck_assert_int_eq(p[0], 'P');
				gl = (size_t)(z - p - 1);
				memcpy(got, p + 1, gl);
			}
			ck_assert_msg(gl == strlen(want) && memcmp(got, want, gl) == 0,
				      "name %zu differs after jq", i);
			p = z + 1;
		}
		ck_assert_ptr_eq(p, end);
		free(out);
	}

	/* Literally as documented, once: jq -j .path_b64 | base64 -d. */
	{
		char *const argv[] = { (char *)jq, S("-j"), S("select(.path_b64) | .path_b64"),
				       file, NULL };
		char b64[300], *const dec[] = { S("/usr/bin/base64"), S("-d"), b64, NULL };
		struct record r = event("/d/\xff\n\"x");
		char *s = json_line(&r);

		f = fopen(file, "we");
		ck_assert_ptr_nonnull(f);
		fputs(s, f);
		fclose(f);
		free(s);
		out = run_capture(argv, &len);
		test_join(b64, sizeof(b64), dir, "b64");
		f = fopen(b64, "we");
		ck_assert_ptr_nonnull(f);
		fwrite(out, 1, len, f);
		fclose(f);
		free(out);
		if (access(dec[0], X_OK) == 0) {
			out = run_capture(dec, &len);
			ck_assert_uint_eq(len, strlen(r.path));
			ck_assert_int_eq(memcmp(out, r.path, len), 0);
			free(out);
		}
	}

	for (i = 0; i < n; i++)
		free(names[i]);
	test_rm_tree(dir);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* decision and stats records                                               */
/* ------------------------------------------------------------------------ */

static const struct verdict deny_eio = { .deny = true, .err = EIO };

/* The spec's example: deny(EIO) by the third decision. */
static struct record decision(const struct verdict *v) {
	return (struct record){
		.kind = RECORD_DECISION,
		.time_usec = T0,
		.rule = "no-exec-from-tmp",
		.mask = 0x40000, /* open_exec_perm */
		.path = "/tmp/x",
		.pid = 123,
		.comm = "bash",
		.uid = 0,
		.exe = "/usr/bin/bash",
		.verdict = v,
		.by = "decision",
		.decision = 3,
		.latency_us = 17,
	};
}

#define DECISION_HEAD                                                                              \
	"{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"decision\",\"rule\":\"no-exec-from-" \
	"tmp\",\"events\":[\"open_exec_perm\"],\"path\":\"/tmp/x\",\"pid\":123,\"comm\":\"bash\"," \
	"\"uid\":0,\"exe\":\"/usr/bin/bash\","

START_TEST(test_record_json_decision) {
	static const struct {
		struct verdict v;
		const char *by;
		unsigned decision;
		const char *want;
	} cases[] = {
		{ { .deny = true, .err = EIO },
		  "decision",
		  3,
		  DECISION_HEAD
		  "\"verdict\":\"deny\",\"errno\":\"EIO\",\"audit\":false,\"by\":\"decision\","
		  "\"decision\":3,\"latency_us\":17,\"severity\":\"notice\"}\n" },
		{ { .deny = true, .err = ETXTBSY, .audit = true },
		  "decision",
		  1,
		  DECISION_HEAD
		  "\"verdict\":\"deny\",\"errno\":\"ETXTBSY\",\"audit\":true,\"by\":\"decision\","
		  "\"decision\":1,\"latency_us\":17,\"severity\":\"notice\"}\n" },
		/* a plain deny (EPERM) has no errno */
		{ { .deny = true },
		  "default",
		  0,
		  DECISION_HEAD
		  "\"verdict\":\"deny\",\"audit\":false,\"by\":\"default\",\"decision\":null,"
		  "\"latency_us\":17,\"severity\":\"notice\"}\n" },
		{ { .audit = true },
		  "decision",
		  12,
		  DECISION_HEAD
		  "\"verdict\":\"allow\",\"audit\":true,\"by\":\"decision\",\"decision\":12,"
		  "\"latency_us\":17,\"severity\":\"info\"}\n" },
		{ { 0 },
		  "deadline",
		  0,
		  DECISION_HEAD
		  "\"verdict\":\"allow\",\"audit\":false,\"by\":\"deadline\",\"decision\":null,"
		  "\"latency_us\":17,\"severity\":\"info\"}\n" },
		/* an errno only deny(ERRNO) carries: none for an allow */
		{ { .err = EIO },
		  "deadline",
		  0,
		  DECISION_HEAD
		  "\"verdict\":\"allow\",\"audit\":false,\"by\":\"deadline\",\"decision\":null,"
		  "\"latency_us\":17,\"severity\":\"info\"}\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct record r = decision(&cases[i].v);

		r.by = cases[i].by;
		r.decision = cases[i].decision;
		assert_json(&r, cases[i].want);
	}
	ck_assert_str_eq(record_kind_name(RECORD_DECISION), "decision");
}
END_TEST

/* Unknown process and path; exe bytes that are not UTF-8; large numbers. */
START_TEST(test_record_json_decision_unknown) {
	struct record r = decision(&deny_eio);

	r.path = NULL;
	r.pid = 0;
	r.comm = NULL;
	r.uid = (uid_t)-1;
	r.exe = NULL;
	r.by = NULL;
	r.latency_us = UINT64_MAX;
	assert_json(&r, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"decision\","
			"\"rule\":\"no-exec-from-tmp\",\"events\":[\"open_exec_perm\"],\"path\":"
			"null,\"pid\":null,\"comm\":null,\"uid\":null,\"exe\":null,\"verdict\":"
			"\"deny\",\"errno\":\"EIO\",\"audit\":false,\"by\":null,\"decision\":3,"
			"\"latency_us\":18446744073709551615,\"severity\":\"notice\"}\n");

	/* exe like path: escaped, and its bytes in exe_b64 when not UTF-8 */
	r = decision(&deny_eio);
	r.exe = "/opt/x\xff\n (deleted)";
	r.path = "/tmp/\"q\"";
	assert_json(&r, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"decision\","
			"\"rule\":\"no-exec-from-tmp\",\"events\":[\"open_exec_perm\"],\"path\":"
			"\"/tmp/\\\"q\\\"\",\"pid\":123,\"comm\":\"bash\",\"uid\":0,\"exe\":"
			"\"/opt/x" FFFD "\\n (deleted)\",\"exe_b64\":\"L29wdC94/wogKGRlbGV0ZWQp\","
			"\"verdict\":\"deny\",\"errno\":\"EIO\",\"audit\":false,\"by\":"
			"\"decision\",\"decision\":3,\"latency_us\":17,\"severity\":\"notice\"}\n");

	/* no verdict given: reads as allow */
	r = decision(NULL);
	r.by = "default";
	r.decision = 0;
	assert_json(&r, DECISION_HEAD
		    "\"verdict\":\"allow\",\"audit\":false,\"by\":"
		    "\"default\",\"decision\":null,\"latency_us\":17,\"severity\":\"info\"}\n");
}
END_TEST

START_TEST(test_record_json_stats) {
	struct perm_counts pc = { .allowed = 10,
				  .denied = 2,
				  .audited = 0,
				  .deadline = 1,
				  .latency_p50_us = 12,
				  .latency_p99_us = 40 };
	struct record r = { .kind = RECORD_STATS, .time_usec = T0, .rule = "r", .perm = &pc };

	assert_json(&r, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"stats\",\"rule\":"
			"\"r\",\"allowed\":10,\"denied\":2,\"audited\":0,\"deadline\":1,"
			"\"latency_p50_us\":12,\"latency_p99_us\":40,\"severity\":\"info\"}\n");
	/* the largest counters, whole (no field cut short) */
	pc = (struct perm_counts){ UINT64_MAX,     UINT64_MAX - 1, UINT64_MAX - 2,
				   UINT64_MAX - 3, UINT64_MAX - 4, UINT64_MAX - 5 };
	assert_json(&r, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"stats\",\"rule\":"
			"\"r\",\"allowed\":18446744073709551615,\"denied\":18446744073709551614,"
			"\"audited\":18446744073709551613,\"deadline\":18446744073709551612,"
			"\"latency_p50_us\":18446744073709551611,\"latency_p99_us\":"
			"18446744073709551610,\"severity\":\"info\"}\n");
	/* no counters: the bare record */
	r.perm = NULL;
	assert_json(&r, "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"stats\",\"rule\":"
			"\"r\",\"severity\":\"info\"}\n");
	ck_assert_str_eq(record_kind_name(RECORD_STATS), "stats");
}
END_TEST

/* A rule's label: its tags after the kind's fields, its severity for its
 * activity, a loss and a deny never below warning and notice. */
START_TEST(test_record_json_label) {
	char *tags[] = { S("pci"), S("os:shadow"), S("a=b") };
	struct record_label l = { .tags = tags, .n_tags = 3, .severity = RECORD_SEVERITY(LOG_ERR) };
	struct record r = event("/etc/shadow");
	static const struct verdict deny = { .deny = true }, allow = { 0 };
	static const struct {
		enum record_kind kind;
		const struct verdict *v;
		int none, debug, crit; /* no label; severity debug; severity crit */
	} table[] = {
		{ RECORD_EVENT, NULL, LOG_INFO, LOG_DEBUG, LOG_CRIT },
		{ RECORD_RESCAN, NULL, LOG_INFO, LOG_DEBUG, LOG_CRIT },
		{ RECORD_STATS, NULL, LOG_INFO, LOG_DEBUG, LOG_CRIT },
		{ RECORD_DECISION, &allow, LOG_INFO, LOG_DEBUG, LOG_CRIT },
		{ RECORD_DECISION, &deny, LOG_NOTICE, LOG_NOTICE, LOG_CRIT },
		{ RECORD_REARMED, NULL, LOG_NOTICE, LOG_NOTICE, LOG_CRIT },
		{ RECORD_OVERFLOW, NULL, LOG_WARNING, LOG_WARNING, LOG_CRIT },
		{ RECORD_DROPPED, NULL, LOG_WARNING, LOG_WARNING, LOG_CRIT },
		{ RECORD_GONE, NULL, LOG_WARNING, LOG_WARNING, LOG_CRIT },
		{ RECORD_UNMOUNTED, NULL, LOG_WARNING, LOG_WARNING, LOG_CRIT },
	};
	char *s;

	r.label = &l;
	s = json_line(&r);
	ck_assert_str_eq(s,
			 "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"event\",\"rule\":"
			 "\"demo\",\"events\":[\"create\",\"ondir\"],\"path\":\"/etc/shadow\","
			 "\"pid\":123,\"comm\":\"touch\",\"uid\":0,\"severity\":\"err\",\"tags\":"
			 "[\"pci\",\"os:shadow\",\"a=b\"]}\n");
	free(s);
	l.n_tags = 0; /* no tags: no key */
	s = json_line(&r);
	ck_assert_ptr_null(strstr(s, "tags"));
	ck_assert_ptr_nonnull(strstr(s, ",\"severity\":\"err\"}"));
	free(s);

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct record k = { .kind = table[i].kind, .verdict = table[i].v, .rule = "demo" };

		ck_assert_int_eq(record_severity(&k), table[i].none);
		l.severity = 0; /* (a label of no severity: the kind's) */
		k.label = &l;
		ck_assert_int_eq(record_severity(&k), table[i].none);
		l.severity = RECORD_SEVERITY(LOG_DEBUG);
		ck_assert_int_eq(record_severity(&k), table[i].debug);
		l.severity = RECORD_SEVERITY(LOG_CRIT);
		ck_assert_int_eq(record_severity(&k), table[i].crit);
	}
	ck_assert_str_eq(severity_name(LOG_EMERG), "emerg");
	ck_assert_str_eq(severity_name(LOG_ERR), "err");
	ck_assert_str_eq(severity_name(LOG_DEBUG), "debug");
	ck_assert_ptr_null(severity_name(8));
	ck_assert_ptr_null(severity_name(-1));
}
END_TEST

/* A rule's who: after pid, comm, uid; none and unknown as null; an exe
 * that is not UTF-8 also as exe_b64. Other kinds never say it. */
START_TEST(test_record_json_who) {
	struct record_who w = some_who;
	struct record r = event("/etc/shadow");
	char *s;

	r.who = &w;
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, ",\"uid\":0,\"login_uid\":1000,\"session\":7,\"exe\":"
					"\"/usr/bin/vim\",\"ppid\":99,\"parent_comm\":\"bash\","
					"\"unit\":\"ssh.service\",\"slice\":\"system.slice\","
					"\"container\":\"docker://ab\",\"mntns\":4026531841,"
					"\"severity\""));
	free(s);
	w = (struct record_who){ .login_uid = (uint32_t)-1,
				 .session = (uint32_t)-1,
				 .exe = "/x\xff" };
	s = json_line(&r);
	ck_assert_ptr_nonnull(
	    strstr(s, ",\"login_uid\":null,\"session\":null,\"exe\":\"/x" FFFD
		      "\",\"exe_b64\":\"L3j/\",\"ppid\":null,\"parent_comm\":null,"
		      "\"unit\":null,\"slice\":null,\"container\":null,\"mntns\":null,"));
	free(s);
	r.kind = RECORD_RESCAN;
	s = json_line(&r);
	ck_assert_ptr_null(strstr(s, "login_uid"));
	free(s);
	/* a decision's: after its own exe, the rest (one exe) */
	w = some_who;
	r.kind = RECORD_DECISION;
	r.exe = "/usr/bin/vim";
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, ",\"latency_us\":0,\"login_uid\":1000,\"session\":7,"
					"\"ppid\":99,\"parent_comm\":\"bash\","));
	ck_assert_ptr_null(strstr(strstr(s, "\"exe\"") + 1, "\"exe\""));
	free(s);
}
END_TEST

/* A content record (a rule's hash): the events and time of the record it
 * follows, the sha256 and size, or why not (and the size when known); its
 * console text; a rescan's has no events. */
START_TEST(test_record_json_content) {
	struct record_content c = {
		.event_usec = 1700000000123456ull,
		.sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		.size = 3,
		.has_size = true,
	};
	struct record r = event("/etc/passwd");
	char *s, text[512];

	r.kind = RECORD_CONTENT;
	r.mask = FAN_CLOSE_WRITE;
	r.content = &c;
	r.pid = 0;
	r.comm = NULL;
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(
	    s, "\"kind\":\"content\",\"rule\":\"demo\",\"events\":[\"close_write\"],"
	       "\"path\":\"/etc/passwd\",\"event_time\":\"2023-11-14T22:13:20.123456Z\","
	       "\"sha256\":\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\","
	       "\"size\":3,\"severity\""));
	ck_assert_ptr_null(strstr(s, "pid"));
	ck_assert_ptr_null(strstr(s, "hash_skipped"));
	free(s);
	ck_assert_int_gt(record_to_text(&r, text, sizeof(text)), 0);
	ck_assert_ptr_nonnull(strstr(text, "demo content of /etc/passwd: sha256 ba7816bf"));
	ck_assert_ptr_nonnull(strstr(text, "5ad, 3 bytes\n"));

	c.sha256[0] = '\0';
	c.skipped = "too_big";
	c.size = 1u << 30;
	r.mask = 0; /* (after a rescan record) */
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, "\"rule\":\"demo\",\"path\":\"/etc/passwd\","));
	ck_assert_ptr_nonnull(
	    strstr(s, "\"sha256\":null,\"size\":1073741824,\"hash_skipped\":\"too_big\","));
	free(s);
	ck_assert_int_gt(record_to_text(&r, text, sizeof(text)), 0);
	ck_assert_ptr_nonnull(
	    strstr(text, "content of /etc/passwd: not hashed (too_big, 1073741824 bytes)\n"));
	/* an event record of a rule with hash whose file was not handed over */
	{
		struct record e = event("/etc/passwd");

		e.hash_skipped = "backlog";
		s = json_line(&e);
		ck_assert_ptr_nonnull(
		    strstr(s, ",\"uid\":0,\"hash_skipped\":\"backlog\",\"severity\""));
		free(s);
	}
	c.skipped = "gone";
	c.has_size = false;
	s = json_line(&r);
	ck_assert_ptr_nonnull(
	    strstr(s, "\"sha256\":null,\"size\":null,\"hash_skipped\":\"gone\","));
	free(s);
}
END_TEST

/* A rule's attributes: now, before, what changed; null when unknown; no
 * changed without both. Other kinds and rules without never say them. */
START_TEST(test_record_json_attrs) {
	struct record r = event("/usr/bin/tool");
	char *s;

	r.attrs_asked = true;
	r.attrs = &some_after;
	r.attrs_before = &some_before;
	s = json_line(&r);
	ck_assert_ptr_nonnull(
	    strstr(s, ",\"attrs\":{\"type\":\"file\",\"mode\":\"4755\",\"uid\":0,\"gid\":0,"
		      "\"size\":42,\"mtime\":\"2020-01-02T03:04:05.123456789Z\","
		      "\"ctime\":\"2020-01-02T03:05:00.000000000Z\",\"ino\":12,\"nlink\":1},"
		      "\"attrs_before\":{\"type\":\"file\",\"mode\":\"0755\","));
	ck_assert_ptr_nonnull(strstr(s, "\"nlink\":1},\"changed\":[\"mode\",\"ctime\"],"));
	free(s);
	r.attrs_before = NULL;
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, "\"nlink\":1},\"attrs_before\":null,\"severity\""));
	free(s);
	r.attrs = NULL;
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, ",\"attrs\":null,\"attrs_before\":null,\"severity\""));
	free(s);
	r.attrs_skipped = "backlog";
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(
	    s, ",\"attrs\":null,\"attrs_before\":null,\"attrs_skipped\":\"backlog\",\"severity\""));
	free(s);
	r.attrs_skipped = NULL;
	r.attrs = &some_after;
	r.kind = RECORD_RESCAN; /* (after an overflow: what the rescan found) */
	r.change = "modified";
	s = json_line(&r);
	ck_assert_ptr_nonnull(strstr(s, ",\"attrs\":{\"type\":\"file\",\"mode\":\"4755\","));
	free(s);
	r.kind = RECORD_GONE;
	s = json_line(&r);
	ck_assert_ptr_null(strstr(s, "attrs"));
	free(s);
	r.kind = RECORD_EVENT;
	r.attrs_asked = false;
	s = json_line(&r);
	ck_assert_ptr_null(strstr(s, "attrs"));
	free(s);
}
END_TEST

static void put_line(FILE *f, const struct record *r) {
	char *s = json_line(r);

	fputs(s, f);
	free(s);
}

/* jq reads decision and stats lines as the documented objects. */
START_TEST(test_jq_decision_stats) {
	static const struct verdict audit = { .audit = true }, deny = { .deny = true };
	struct perm_counts pc = { 10, 2, 0, 1, 12, 40 };
	char dir[256], file[300], *out;
	const char *jq = need_jq();
	struct record r;
	size_t len;
	FILE *f;

	test_tmpdir(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "lines.json");
	f = fopen(file, "we");
	ck_assert_ptr_nonnull(f);
	r = decision(&deny_eio);
	put_line(f, &r);
	r = decision(&audit);
	r.exe = "/bin/\xfe";
	r.by = "default";
	r.decision = 0;
	put_line(f, &r);
	r = decision(&deny);
	r.exe = NULL;
	r.by = "deadline";
	r.decision = 0;
	put_line(f, &r);
	r = (struct record){ .kind = RECORD_STATS, .time_usec = T0, .rule = "r", .perm = &pc };
	put_line(f, &r);
	ck_assert_int_eq(fclose(f), 0);

	{
		char *const argv[] = {
			(char *)jq,
			S("-c"),
			S("if .kind == \"decision\" then [.verdict, .errno, .audit, .by, "
			  ".decision, "
			  ".latency_us, .exe, .exe_b64, has(\"errno\"), has(\"exe_b64\")] else "
			  "[.rule, .allowed, .denied, .audited, .deadline, .latency_p50_us, "
			  ".latency_p99_us] end"),
			file,
			NULL,
		};

		const char *want =
		    "[\"deny\",\"EIO\",false,\"decision\",3,17,\"/usr/bin/bash\",null,true,false]\n"
		    "[\"allow\",null,true,\"default\",null,17,\"/bin/" FFFD "\",\"L2Jpbi/+\",false,"
		    "true]\n"
		    "[\"deny\",null,false,\"deadline\",null,17,null,null,false,false]\n"
		    "[\"r\",10,2,0,1,12,40]\n";

		out = run_capture(argv, &len);
		ck_assert_msg(len == strlen(want) && memcmp(out, want, len) == 0,
			      "jq printed:\n%.*s", (int)len, out);
		free(out);
	}
	test_rm_tree(dir);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* json output                                                              */
/* ------------------------------------------------------------------------ */

static struct output *open_json(const char *file, struct ev_loop *loop) {
	struct output_conf c = { .name = S("js"), .type = OUTPUT_JSON, .file = (char *)file };
	struct output *o = NULL;
	char err[256] = "";

	ck_assert_msg(output_open(&c, loop, &o, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(output_name(o), "js");
	return o;
}

/* The stream id of the json output's line s ("" when it has none). */
static void stream_of(const char *s, char id[33]) {
	const char *p = strstr(s, ",\"stream\":\"");

	id[0] = '\0';
	if (p && strlen(p + 11) >= 32) {
		memcpy(id, p + 11, 32);
		id[32] = '\0';
	}
}

/* The file holds exactly the lines of a and b (b may be NULL), as the
 * json output numbers them: with the origin, one stream, seq from seq. */
static void assert_file_lines(const char *path, const struct record *a, const struct record *b,
			      uint64_t seq) {
	char *s = read_file(path, NULL), stream[33];
	struct record na, nb;
	char *la, *lb;

	stream_of(s, stream);
	ck_assert_uint_eq(strlen(stream), 32);
	na = *a;
	na.origin = origin_get();
	na.stream = stream;
	na.seq = seq;
	la = json_line(&na);
	if (b) {
		nb = *b;
		nb.origin = origin_get();
		nb.stream = stream;
		nb.seq = seq + 1;
		lb = json_line(&nb);
	} else
		lb = strdup("");

	ck_assert_ptr_nonnull(lb);
	ck_assert_uint_eq(strlen(s), strlen(la) + strlen(lb));
	ck_assert_int_eq(memcmp(s, la, strlen(la)), 0);
	ck_assert_str_eq(s + strlen(la), lb);
	free(s);
	free(la);
	free(lb);
}

START_TEST(test_json_file_rotate) {
	char dir[256], sub[300], sub2[300], out[320], out1[320], moved[320];
	struct record r1 = event("/one"), r2 = event("/two\n"), r3 = event("/three\xff"),
		      r4 = event("/four");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	struct stat st;
	char *log;

	umask(022);
	test_tmpdir(dir, sizeof(dir));
	test_join(sub, sizeof(sub), dir, "sub");
	test_join(sub2, sizeof(sub2), dir, "sub2");
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	test_join(out, sizeof(out), sub, "out.json");
	test_join(out1, sizeof(out1), sub, "out.json.1");

	o = open_json(out, NULL);
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	output_emit(o, &r1);
	/* logrotate: mv, then SIGUSR1 */
	ck_assert_int_eq(rename(out, out1), 0);
	output_emit(o, &r2);
	ck_assert_int_eq(output_reopen(o), 0);
	output_emit(o, &r3);

	assert_file_lines(out1, &r1, &r2, 1);
	assert_file_lines(out, &r3, NULL, 3);

	/* Reopen failing (the directory is gone): the old file stays in use. */
	ck_assert_int_eq(rename(sub, sub2), 0);
	capture_start(&cap);
	ck_assert_int_eq(output_reopen(o), -ENOENT);
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_msg(strstr(log, "output 'js': cannot reopen ") &&
			  strstr(log, "/sub/out.json: No such file or directory (still writing to "
				      "the old file)"),
		      "log: %s", log);
	free(log);
	output_emit(o, &r4);
	test_join(moved, sizeof(moved), sub2, "out.json");
	assert_file_lines(moved, &r3, &r4, 3);

	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 4);
	ck_assert_uint_eq(failed, 0);
	output_close(o);
	ck_assert_ptr_null(output_close(NULL));
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_json_open_errors) {
	struct output_conf c = { .name = S("bad"),
				 .type = OUTPUT_JSON,
				 .file = S("/nonexistent/x.json") };
	struct output *o = (struct output *)0x1;
	char err[256];

	ck_assert_int_eq(output_open(&c, NULL, &o, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_eq(o, (struct output *)0x1);
	ck_assert_str_eq(err, "output 'bad': cannot open /nonexistent/x.json: No such file or "
			      "directory");
	c.file = NULL;
	ck_assert_int_eq(output_open(&c, NULL, &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "output 'bad': json output needs a file"));
}
END_TEST

/* A full disk: every record counted as failed, logged once. */
START_TEST(test_json_enospc) {
	struct record r = event("/x");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	char *log;

	if (access("/dev/full", W_OK) < 0)
		fsn_test_skip("no /dev/full");
	capture_start(&cap);
	o = open_json("/dev/full", NULL);
	for (int i = 0; i < 5; i++)
		output_emit(o, &r);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 0);
	ck_assert_uint_eq(failed, 5);
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_msg(count_str(log, "output 'js': cannot write to /dev/full: No space left on "
				     "device") == 1,
		      "log: %s", log);
	ck_assert_uint_eq(count_str(log, "\n"), 1);
	free(log);
}
END_TEST

/* stdout is a pipe whose reader went away: EPIPE, counted, logged once,
 * the daemon (which ignores SIGPIPE) lives on. */
START_TEST(test_json_epipe) {
	struct record r = event("/x");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	int p[2], saved;
	char *log;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	ck_assert_int_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
	close(p[1]);
	close(p[0]);
	capture_start(&cap);
	o = open_json("-", ev_default_loop(0));
	for (int i = 0; i < 3; i++)
		output_emit(o, &r);
	ev_run(ev_default_loop(0), EVRUN_NOWAIT); /* the batch is written before the loop waits */
	output_counters(o, &emitted, &failed);
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ck_assert_uint_eq(emitted, 0);
	ck_assert_uint_eq(failed, 3);
	ck_assert_msg(count_str(log, "cannot write to stdout: Broken pipe") == 1, "log: %s", log);
	free(log);
}
END_TEST

/* With a loop, the records of one loop iteration are written together,
 * before the loop waits: nothing in the file until then, then every line,
 * in order, counted as emitted. */
START_TEST(test_json_batch) {
	struct record a = event("/a"), b = event("/b");
	char dir[PATH_MAX], file[PATH_MAX];
	uint64_t emitted, failed;
	struct output *o;
	char *s;
	size_t len;

	test_tmpdir(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "out.json");
	o = open_json(file, ev_default_loop(0));
	output_emit(o, &a);
	output_emit(o, &b);
	s = read_file(file, &len);
	ck_assert_uint_eq(len, 0);
	free(s);
	ev_run(ev_default_loop(0), EVRUN_NOWAIT);
	assert_file_lines(file, &a, &b, 1);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 2);
	ck_assert_uint_eq(failed, 0);
	/* and what is left at close is written too */
	output_emit(o, &a);
	output_close(o);
	s = read_file(file, &len);
	ck_assert_uint_eq(count_str(s, "\n"), 3);
	free(s);
	test_rm_tree(dir);
}
END_TEST

struct slow_reader {
	struct output *o;
	int fd;
	char *data;
	size_t len, cap;
	bool eof;
};

static void slow_reader_cb(struct ev_loop *loop, ev_io *w, int revents) {
	struct slow_reader *s = w->data;

	for (;;) {
		ssize_t n;

		if (s->cap - s->len < 65536) {
			s->cap = s->cap * 2 + 65536;
			s->data = realloc(s->data, s->cap + 1);
			ck_assert_ptr_nonnull(s->data);
		}
		n = read(s->fd, s->data + s->len, s->cap - s->len);
		if (n < 0 && errno == EAGAIN)
			return;
		ck_assert_int_ge(n, 0);
		s->len += (size_t)n;
		s->data[s->len] = '\0';
		if (n == 0) {
			s->eof = true;
			ev_io_stop(loop, w);
			return;
		}
	}
}

static bool slow_reader_done(void *data) {
	struct slow_reader *s = data;

	return output_json_buffered(s->o) == 0 && s->data &&
	       strstr(s->data, "\"kind\":\"dropped\"");
}

/*
 * stdout is a pipe nobody reads for a while: the output does not block,
 * buffers up to its bound, drops the rest, and once the reader catches up
 * the stream holds whole lines only, in order, followed by a "dropped"
 * record with the exact number lost. Some lines are longer than the pipe
 * (partial writes).
 */
START_TEST(test_json_slow_pipe) {
	struct ev_loop *loop = ev_default_loop(0);
	struct slow_reader s = { .fd = -1 };
	uint64_t emitted, failed, seen = 0, dropped = 0;
	static char path[8000];
	struct capture cap;
	int p[2], saved;
	ev_io rio;
	char *log, *line;
	long last = -1;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_ge(fcntl(p[1], F_SETPIPE_SZ, 4096), 4096);
	saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	ck_assert_int_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
	close(p[1]);
	ck_assert_int_eq(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);

	capture_start(&cap);
	s.o = open_json("-", loop);
	output_json_set_buffer_max(s.o, 16384);
	for (int i = 0; i < 200; i++) {
		struct record r;
		int n = snprintf(path, sizeof(path), "/seq/%d/", i);

		/* every 7th line is bigger than the pipe */
		memset(path + n, i % 7 == 0 ? 'L' : 's', i % 7 == 0 ? 6000 : 100 + i);
		path[n + (i % 7 == 0 ? 6000 : 100 + i)] = '\0';
		r = event(path);
		output_emit(s.o, &r); /* never blocks: nobody reads yet */
	}
	output_counters(s.o, &emitted, &failed);
	ck_assert_uint_gt(failed, 0);
	ck_assert_uint_le(output_json_buffered(s.o), 16384 + 7000);

	/* Now the reader comes. */
	s.fd = p[0];
	ev_io_init(&rio, slow_reader_cb, p[0], EV_READ);
	rio.data = &s;
	ev_io_start(loop, &rio);
	ck_assert_msg(run_until(loop, slow_reader_done, &s, 10), "buffer not flushed");
	ev_io_stop(loop, &rio);

	output_counters(s.o, &emitted, &failed);
	output_close(s.o);
	log = capture_text(&cap);
	capture_stop(&cap);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(p[0]);

	for (char *save = NULL, *t = strtok_r(s.data, "\n", &save); t;
	     t = strtok_r(NULL, "\n", &save)) {
		const char *sq;

		line = t;
		ck_assert_msg(line[0] == '{' && line[strlen(line) - 1] == '}', "torn line: %.80s",
			      line);
		/* numbered 1, 2, 3...: the records dropped took no number, the
		 * "dropped" line takes the next */
		sq = strstr(line, ",\"seq\":");
		ck_assert_ptr_nonnull(sq);
		ck_assert_uint_eq(strtoull(sq + 7, NULL, 10), seen + 1);
		if (strstr(line, "\"kind\":\"dropped\"")) {
			char *c = strstr(line, "\"count\":");

			ck_assert_ptr_nonnull(c);
			ck_assert_uint_eq(dropped, 0);
			dropped = strtoull(c + 8, NULL, 10);
			ck_assert_ptr_null(strtok_r(NULL, "\n", &save)); /* the last line */
			break;
		} else {
			char *q = strstr(line, "\"path\":\"/seq/");
			long k;

			ck_assert_ptr_nonnull(q);
			k = strtol(q + 13, NULL, 10);
			ck_assert_int_gt(k, last);
			last = k;
			seen++;
		}
	}
	ck_assert_uint_eq(seen + dropped, 200);
	ck_assert_uint_eq(dropped, failed);
	ck_assert_uint_eq(emitted, seen + 1);
	ck_assert_msg(count_str(log, "the reader is too slow") == 1, "log: %s", log);
	free(log);
	free(s.data);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* journal output                                                           */
/* ------------------------------------------------------------------------ */

static struct output *open_journal(void) {
	struct output_conf c = { .name = S("jr"), .type = OUTPUT_JOURNAL };
	struct output *o = NULL;
	char err[256] = "";

	ck_assert_msg(output_open(&c, NULL, &o, err, sizeof(err)) == 0, "%s", err);
	return o;
}

START_TEST(test_journal_missing) {
	struct record r = event("/x\n");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	char *log;

	if (access("/run/systemd/journal/socket", F_OK) == 0)
		fsn_test_skip("a journal is running here; test_journal_socket covers sending");
	capture_start(&cap);
	o = open_journal();
	output_emit(o, &r);
	output_emit(o, &r);
	output_counters(o, &emitted, &failed);
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_uint_eq(emitted, 0);
	ck_assert_uint_eq(failed, 2);
	ck_assert_msg(count_str(log, "output 'jr': cannot send to the journal") == 1, "log: %s",
		      log);
	free(log);
}
END_TEST

/* One field of a native journal protocol datagram, or NULL. */
static const char *journal_field(const char *msg, size_t len, const char *key, size_t *vlen) {
	size_t kl = strlen(key);
	const char *p = msg, *end = msg + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)((nl ? nl : end) - p));

		ck_assert_ptr_nonnull(nl);
		if (eq) {
			if ((size_t)(eq - p) == kl && memcmp(p, key, kl) == 0) {
				*vlen = (size_t)(nl - eq - 1);
				return eq + 1;
			}
			p = nl + 1;
		} else {
			/* KEY\n<le64 size><data>\n */
			uint64_t sz;

			memcpy(&sz, nl + 1, 8);
			if ((size_t)(nl - p) == kl && memcmp(p, key, kl) == 0) {
				*vlen = sz;
				return nl + 9;
			}
			p = nl + 9 + sz + 1;
		}
	}
	return NULL;
}

static void assert_field(const char *msg, size_t len, const char *key, const char *want) {
	size_t vl = 0;
	const char *v = journal_field(msg, len, key, &vl);

	if (!want) {
		ck_assert_msg(!v, "field %s present", key);
		return;
	}
	ck_assert_msg(v, "field %s missing", key);
	ck_assert_msg(vl == strlen(want) && memcmp(v, want, vl) == 0, "field %s: '%.*s' != '%s'",
		      key, (int)vl, v, want);
}

/* As root: a private /run in a mount namespace with our own socket where
 * journald's would be, to see exactly what is sent. */
START_TEST(test_journal_socket) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct record r = event("/d/new\nline\xff");
	uint64_t emitted, failed;
	struct output *o;
	char msg[65536];
	ssize_t n;
	int fd;

	if (!test_forked())
		return; /* would change the runner's own namespace */
	if (geteuid() != 0)
		fsn_test_skip("needs root (a mount namespace with a private /run)");
	if (unshare(CLONE_NEWNS) < 0) {
		if (test_must_run())
			ck_abort_msg("unshare(CLONE_NEWNS) as root: %s", strerror(errno));
		fsn_test_skip("cannot unshare the mount namespace: %s", strerror(errno));
	}
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"), 0);
	ck_assert_int_eq(mkdir("/run/systemd", 0755), 0);
	ck_assert_int_eq(mkdir("/run/systemd/journal", 0755), 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	strcpy(sa.sun_path, "/run/systemd/journal/socket");
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);

	o = open_journal();
	r.comm = "to\x01uch";
	r.uid = 1000;
	r.old_path = "/d/old";
	output_emit(o, &r);
	n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	assert_field(
	    msg, (size_t)n, "MESSAGE",
	    "demo: create,ondir /d/old -> /d/new\\nline\\xff (pid 123 to\\x01uch, uid 1000)");
	assert_field(msg, (size_t)n, "PRIORITY", "6");
	assert_field(msg, (size_t)n, "SYSLOG_IDENTIFIER", "fsnotifyd");
	assert_field(msg, (size_t)n, "MESSAGE_ID", FSND_MID_EVENT);
	assert_field(msg, (size_t)n, "FSN_KIND", "event");
	assert_field(msg, (size_t)n, "FSN_RULE", "demo");
	assert_field(msg, (size_t)n, "FSN_EVENTS", "create,ondir");
	assert_field(msg, (size_t)n, "FSN_PATH", "/d/new\nline\xff"); /* raw bytes */
	assert_field(msg, (size_t)n, "FSN_OLD_PATH", "/d/old");
	assert_field(msg, (size_t)n, "FSN_PID", "123");
	assert_field(msg, (size_t)n, "FSN_COMM", "to\x01uch");
	assert_field(msg, (size_t)n, "FSN_UID", "1000");
	assert_field(msg, (size_t)n, "FSN_COUNT", NULL);
	/* the output's stream and the entry's number in it */
	assert_field(msg, (size_t)n, "FSN_SEQ", "1");
	{
		size_t vl = 0;
		const char *st = journal_field(msg, (size_t)n, "FSN_STREAM", &vl);

		ck_assert_ptr_nonnull(st);
		ck_assert_uint_eq(vl, 32);
		ck_assert_uint_eq(strspn(st, "0123456789abcdef"), 32);
	}

	/* Unknown process. */
	r = event("/d/x");
	r.pid = 0;
	r.comm = NULL;
	r.uid = (uid_t)-1;
	output_emit(o, &r);
	n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	assert_field(msg, (size_t)n, "MESSAGE", "demo: create,ondir /d/x");
	assert_field(msg, (size_t)n, "FSN_PID", NULL);
	assert_field(msg, (size_t)n, "FSN_COMM", NULL);
	assert_field(msg, (size_t)n, "FSN_UID", NULL);
	assert_field(msg, (size_t)n, "FSN_SEQ", "2");

	/* Overflow and dropped: their MESSAGE_IDs, warning priority. */
	r = (struct record){
		.kind = RECORD_OVERFLOW, .time_usec = T0, .rule = "demo", .uid = (uid_t)-1
	};
	output_emit(o, &r);
	n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	assert_field(msg, (size_t)n, "MESSAGE_ID", FSND_MID_OVERFLOW);
	assert_field(msg, (size_t)n, "PRIORITY", "4");
	assert_field(msg, (size_t)n, "FSN_KIND", "overflow");
	assert_field(msg, (size_t)n, "MESSAGE",
		     "demo: the kernel event queue overflowed, events were lost");
	r = (struct record){ .kind = RECORD_DROPPED, .time_usec = T0, .rule = "demo", .count = 7 };
	output_emit(o, &r);
	n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	assert_field(msg, (size_t)n, "MESSAGE_ID", FSND_MID_DROPPED);
	assert_field(msg, (size_t)n, "FSN_KIND", "dropped");
	assert_field(msg, (size_t)n, "FSN_COUNT", "7");
	assert_field(msg, (size_t)n, "MESSAGE", "demo: 7 events dropped");
	assert_field(msg, (size_t)n, "FSN_SEQ", "4");

	/* Every other kind: its own MESSAGE_ID (the catalog documents each). */
	{
		static const struct {
			enum record_kind kind;
			const char *mid;
		} kinds[] = {
			{ RECORD_DECISION, FSND_MID_DECISION },
			{ RECORD_STATS, FSND_MID_STATS },
			{ RECORD_RESCAN, FSND_MID_RESCAN },
			{ RECORD_GONE, FSND_MID_GONE },
			{ RECORD_UNMOUNTED, FSND_MID_UNMOUNTED },
			{ RECORD_REARMED, FSND_MID_REARMED },
			{ RECORD_CONTENT, FSND_MID_CONTENT },
		};

		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			r = (struct record){ .kind = kinds[i].kind,
					     .time_usec = T0,
					     .rule = "demo",
					     .path = "/d/x",
					     .uid = (uid_t)-1 };
			output_emit(o, &r);
			n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
			ck_assert_int_gt(n, 0);
			assert_field(msg, (size_t)n, "MESSAGE_ID", kinds[i].mid);
		}
	}
	/* a content record's hash, size and the time of the record it follows */
	{
		struct record_content c = { .event_usec = 42, .size = 3, .has_size = true };

		memcpy(c.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		       65);
		r = (struct record){ .kind = RECORD_CONTENT,
				     .time_usec = T0,
				     .rule = "demo",
				     .path = "/d/x",
				     .uid = (uid_t)-1,
				     .content = &c };
		output_emit(o, &r);
		n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
		ck_assert_int_gt(n, 0);
		assert_field(msg, (size_t)n, "FSN_SHA256", c.sha256);
		assert_field(msg, (size_t)n, "FSN_SIZE", "3");
		assert_field(msg, (size_t)n, "FSN_EVENT_TIME", "42");
		assert_field(msg, (size_t)n, "MESSAGE",
			     "demo: content of /d/x: sha256 " SHA_ABC_HEX ", 3 bytes");
	}

	/* A rule's who: its fields, none of them when unknown. */
	{
		struct record_who w = some_who;

		r = event("/etc/hosts");
		r.who = &w;
		output_emit(o, &r);
		n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
		ck_assert_int_gt(n, 0);
		assert_field(msg, (size_t)n, "FSN_LOGIN_UID", "1000");
		assert_field(msg, (size_t)n, "FSN_SESSION", "7");
		assert_field(msg, (size_t)n, "FSN_EXE", "/usr/bin/vim");
		assert_field(msg, (size_t)n, "FSN_PPID", "99");
		assert_field(msg, (size_t)n, "FSN_PARENT_COMM", "bash");
		assert_field(msg, (size_t)n, "FSN_UNIT", "ssh.service");
		assert_field(msg, (size_t)n, "FSN_SLICE", "system.slice");
		assert_field(msg, (size_t)n, "FSN_CONTAINER", "docker://ab");
		assert_field(msg, (size_t)n, "FSN_MNTNS", "4026531841");
		w = (struct record_who){ .login_uid = (uint32_t)-1, .session = (uint32_t)-1 };
		output_emit(o, &r);
		n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
		ck_assert_int_gt(n, 0);
		assert_field(msg, (size_t)n, "FSN_LOGIN_UID", NULL);
		assert_field(msg, (size_t)n, "FSN_SESSION", NULL);
		assert_field(msg, (size_t)n, "FSN_EXE", NULL);
		assert_field(msg, (size_t)n, "FSN_PPID", NULL);
		assert_field(msg, (size_t)n, "FSN_UNIT", NULL);
		assert_field(msg, (size_t)n, "FSN_MNTNS", NULL);
	}

	/* A rule's attributes: what the file is, what changed and what it was. */
	r = event("/usr/bin/tool");
	r.attrs_asked = true;
	r.attrs = &some_after;
	r.attrs_before = &some_before;
	output_emit(o, &r);
	n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	assert_field(msg, (size_t)n, "FSN_FILE_TYPE", "file");
	assert_field(msg, (size_t)n, "FSN_FILE_MODE", "4755");
	assert_field(msg, (size_t)n, "FSN_FILE_SIZE", "42");
	assert_field(msg, (size_t)n, "FSN_FILE_MTIME", "1577934245.123456789");
	assert_field(msg, (size_t)n, "FSN_FILE_NLINK", "1");
	assert_field(msg, (size_t)n, "FSN_CHANGED", "mode,ctime");
	assert_field(msg, (size_t)n, "FSN_BEFORE_MODE", "0755");
	assert_field(msg, (size_t)n, "FSN_BEFORE_CTIME", "1577934245.000000005");
	assert_field(msg, (size_t)n, "FSN_BEFORE_UID", NULL);

	/* A rule's label: PRIORITY its severity, one FSN_TAG field a tag. */
	{
		char *tags[] = { S("pci"), S("os:shadow") };
		struct record_label l = { .tags = tags,
					  .n_tags = 2,
					  .severity = RECORD_SEVERITY(LOG_ERR) };
		size_t k = 0;

		r = event("/etc/shadow");
		r.label = &l;
		output_emit(o, &r);
		n = recv(fd, msg, sizeof(msg), MSG_DONTWAIT);
		ck_assert_int_gt(n, 0);
		assert_field(msg, (size_t)n, "PRIORITY", "3");
		assert_field(msg, (size_t)n, "FSN_TAG", "pci"); /* (the first) */
		for (const char *p = msg; (p = memmem(p, (size_t)(msg + n - p), "FSN_TAG=", 8));
		     p++)
			k++;
		ck_assert_uint_eq(k, 2);
		ck_assert_ptr_nonnull(memmem(msg, (size_t)n, "\nFSN_TAG=os:shadow\n", 19));
	}

	ck_assert_int_eq(recv(fd, msg, sizeof(msg), MSG_DONTWAIT), -1);
	ck_assert_int_eq(errno, EAGAIN);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 16);
	ck_assert_uint_eq(failed, 0);
	output_close(o);
	close(fd);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* exec output                                                              */
/* ------------------------------------------------------------------------ */

static struct output *open_exec_conf(struct output_conf *c, struct ev_loop *loop) {
	struct output *o = NULL;
	char err[512] = "";

	c->name = S("ex");
	c->type = OUTPUT_EXEC;
	for (c->n_argv = 0; c->argv[c->n_argv]; c->n_argv++)
		;
	ck_assert_msg(output_open(c, loop, &o, err, sizeof(err)) == 0, "%s", err);
	return o;
}

static struct output *open_exec(char **argv, struct ev_loop *loop) {
	struct output_conf c = {
		.argv = argv, .max_running = 4, .rate = 0, .burst = 20, .timeout_sec = 30
	};

	return open_exec_conf(&c, loop);
}

static bool exec_idle(void *data) {
	return output_exec_running(data) == 0;
}

START_TEST(test_exec_template_check) {
	char *ok[] = { S("/usr/bin/scan"),
		       S("{path}"),
		       S("--file={path}"),
		       S("{rule}:{events}:{kind}"),
		       S("{pid}{comm}{uid}{time}{old_path}"),
		       S("{}"),
		       S("{Path}"),
		       S("x{1}"),
		       S("{"),
		       S("}{") };
	char *rel[] = { S("scan"), S("{path}") };
	char *ph0[] = { S("/usr/bin/{rule}") };
	char *unk[] = { S("/bin/x"), S("a"), S("--x={paht}") };
	char err[512];

	ck_assert_int_eq(exec_template_check(ok, 10, err, sizeof(err)), 0);
	ck_assert_int_eq(exec_template_check(rel, 2, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "the program 'scan' must be an absolute path (no PATH search, no "
			      "shell)");
	ck_assert_int_eq(exec_template_check(ph0, 1, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "the program '/usr/bin/{rule}' must not contain placeholders");
	ck_assert_int_eq(exec_template_check(unk, 3, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(
	    err,
	    "argument 2 ('--x={paht}'): unknown placeholder '{paht}'; known: "
	    "{path} {old_path} {rule} {events} {kind} {pid} {comm} {uid} {time} {tags} {severity}");
	ck_assert_int_eq(exec_template_check(NULL, 0, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "the command is empty");
}
END_TEST

START_TEST(test_exec_open_errors) {
	char *rel[] = { S("touch"), NULL };
	char *good[] = { S("/bin/true"), NULL };
	struct output_conf c = { .name = S("ex"), .type = OUTPUT_EXEC, .argv = rel, .n_argv = 1 };
	struct ev_loop *other = ev_loop_new(0);
	struct output *o = NULL;
	char err[512];

	ck_assert_int_eq(output_open(&c, ev_default_loop(0), &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "output 'ex': the program 'touch' must be an absolute"));
	c.argv = good;
	ck_assert_int_eq(output_open(&c, other, &o, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "output 'ex': exec outputs need the default event loop");
	ck_assert_int_eq(output_open(&c, NULL, &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(o);
	ev_loop_destroy(other);
}
END_TEST

/* A hostile filename arrives byte-exact as one argument, also inside a
 * larger argument; nothing is interpreted by a shell. */
START_TEST(test_exec_argv) {
	static const char hostile[] = "a\nb \"c\" 'd' \\e\tf\x01\xff*$(touch X)`touch Y`;|&>Z";
	char *argv[] = { S("/usr/bin/touch"), S("{path}"), S("{path}.{rule}"), NULL };
	struct ev_loop *loop = ev_default_loop(0);
	char dir[256], path[512], name2[512];
	uint64_t emitted, failed;
	struct record r;
	struct output *o;
	struct dirent *de;
	unsigned found = 0, entries = 0;
	DIR *d;

	test_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(chdir(dir), 0); /* a shell would create X, Y, Z here */
	test_join(path, sizeof(path), dir, hostile);
	r = event(path);
	r.rule = "r 1";
	o = open_exec(argv, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 1);
	ck_assert_uint_eq(failed, 0);
	output_close(o);

	snprintf(name2, sizeof(name2), "%s.r 1", hostile);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		entries++;
		found += strcmp(de->d_name, hostile) == 0 || strcmp(de->d_name, name2) == 0;
	}
	closedir(d);
	ck_assert_uint_eq(entries, 2);
	ck_assert_uint_eq(found, 2);
	ck_assert_int_eq(chdir("/"), 0);
	test_rm_tree(dir);
	ck_assert_uint_eq(count_children(), 0);
}
END_TEST

/* {tags} and {severity}: the rule's, comma separated; a record of no
 * label: no tags, the kind's severity. */
START_TEST(test_exec_label) {
	char *argv[] = { S("/usr/bin/touch"), S("{path}.{severity}.{tags}"), NULL };
	char *tags[] = { S("pci"), S("os:shadow") };
	struct record_label l = { .tags = tags, .n_tags = 2, .severity = RECORD_SEVERITY(LOG_ERR) };
	struct ev_loop *loop = ev_default_loop(0);
	char dir[256], path[512], want[600];
	struct record r;
	struct output *o;
	struct stat st;

	test_tmpdir(dir, sizeof(dir));
	o = open_exec(argv, loop);
	test_join(path, sizeof(path), dir, "f");
	r = event(path);
	r.label = &l;
	output_emit(o, &r);
	test_join(path, sizeof(path), dir, "g");
	r = event(path);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	snprintf(want, sizeof(want), "%s/f.err.pci,os:shadow", dir);
	ck_assert_msg(stat(want, &st) == 0, "%s: %s", want, strerror(errno));
	snprintf(want, sizeof(want), "%s/g.info.", dir);
	ck_assert_msg(stat(want, &st) == 0, "%s: %s", want, strerror(errno));
	test_rm_tree(dir);
	ck_assert_uint_eq(count_children(), 0);
}
END_TEST

/* stdout and stderr of the command arrive in the log, line by line,
 * escaped, with the output name and pid; stdin is /dev/null. */
START_TEST(test_exec_output_forwarded) {
	char *echo[] = { S("/usr/bin/printf"), S("out:%s\\n"), S("{path}"), NULL };
	char *err_[] = { S("/bin/ls"), S("/nonexistent-{rule}"), NULL };
	char *in[] = { S("/usr/bin/readlink"), S("/proc/self/fd/0"), NULL };
	char *cat[] = { S("/bin/cat"), NULL };
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/d/one\ntwo\x01\xff");
	struct capture cap;
	struct output *o;
	char *log, want[128];
	int p[2], saved;
	pid_t pid;

	/* The test's own stdin is a pipe nobody writes to: a command that
	 * inherited it would show "pipe:[...]", and cat would hang. */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	saved = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	ck_assert_int_eq(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	capture_start(&cap);
	o = open_exec(echo, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	o = open_exec(err_, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	o = open_exec(in, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	/* cat would wait forever on an inherited stdin; /dev/null ends it */
	o = open_exec(cat, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(p[0]);
	close(p[1]);

	ck_assert_msg(strstr(log, "]: out:/d/one\n"), "log: %s", log);
	ck_assert_msg(strstr(log, "]: two\\x01\\xff\n"), "log: %s", log);
	ck_assert_msg(sscanf(strstr(log, "output 'ex' [pid "), "output 'ex' [pid %d]", &pid) == 1,
		      "log: %s", log);
	snprintf(want, sizeof(want), "output 'ex' [pid %d]: out:/d/one\n", (int)pid);
	ck_assert_msg(strstr(log, want), "log: %s", log);
	ck_assert_msg(strstr(log, "/nonexistent-demo"), "stderr not forwarded: %s", log);
	ck_assert_msg(strstr(log, "exited with status 2"), "log: %s", log);
	ck_assert_msg(strstr(log, "]: /dev/null\n"), "stdin: %s", log);
	free(log);
	ck_assert_uint_eq(count_children(), 0);
}
END_TEST

/* The daemon blocks signals (libev's signalfd) and ignores SIGPIPE; the
 * command must not inherit either. */
START_TEST(test_exec_signals_reset) {
	char *argv[] = { S("/usr/bin/env"), S("--list-signal-handling"), S("/bin/true"), NULL };
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x");
	struct capture cap;
	struct output *o;
	sigset_t block, old;
	char *log;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	capture_start(&cap);
	o = open_exec(argv, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	ck_assert_msg(!strstr(log, "IGNORE") && !strstr(log, "BLOCK"), "inherited: %s", log);
	free(log);
}
END_TEST

/* The command does not get the daemon's systemd variables. */
START_TEST(test_exec_environment) {
	char *argv[] = { S("/usr/bin/env"), NULL };
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x");
	struct capture cap;
	struct output *o;
	char *log;

	setenv("NOTIFY_SOCKET", "/run/test/notify", 1);
	setenv("WATCHDOG_USEC", "1000000", 1);
	setenv("JOURNAL_STREAM", "8:1234", 1);
	setenv("FSN_TEST_KEEP", "kept", 1);
	capture_start(&cap);
	o = open_exec(argv, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("JOURNAL_STREAM");
	unsetenv("FSN_TEST_KEEP");
	/* a minimal environment: PATH, LANG, the record's FSN_* variables;
	 * nothing else of the daemon's */
	ck_assert_msg(strstr(log, "]: PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
				  "/sbin:/bin\n"),
		      "log: %s", log);
	ck_assert_msg(strstr(log, "]: FSN_PATH=/x\n") && strstr(log, "]: FSN_KIND=event\n"),
		      "log: %s", log);
	ck_assert_msg(!strstr(log, "FSN_OLD_PATH") && !strstr(log, "FSN_TEST_KEEP") &&
			  !strstr(log, "NOTIFY_SOCKET") && !strstr(log, "WATCHDOG_USEC") &&
			  !strstr(log, "JOURNAL_STREAM"),
		      "log: %s", log);
	free(log);
}
END_TEST

START_TEST(test_exec_missing_program) {
	char *argv[] = { S("/nonexistent/prog"), S("{path}"), NULL };
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	char *log;

	capture_start(&cap);
	o = open_exec(argv, loop);
	output_emit(o, &r);
	output_emit(o, &r);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(output_exec_running(o), 0);
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_uint_eq(emitted, 0);
	ck_assert_uint_eq(failed, 2);
	ck_assert_msg(count_str(log, "output 'ex': cannot run /nonexistent/prog: No such file or "
				     "directory") == 1,
		      "log: %s", log);
	free(log);
}
END_TEST

/* max_running: beyond it records are dropped and counted, logged once per
 * burst; closing the output stops the children and the loop reaps them. */
START_TEST(test_exec_max_running) {
	char *argv[] = { S("/bin/sleep"), S("30"), NULL };
	struct output_conf c = {
		.argv = argv, .max_running = 2, .rate = 0, .burst = 1, .timeout_sec = 60
	};
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x"), o_event = event("/overflow");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	char *log;

	capture_start(&cap);
	o = open_exec_conf(&c, loop);
	for (int i = 0; i < 5; i++)
		output_emit(o, &r);
	o_event.kind = RECORD_OVERFLOW; /* not run, not counted */
	output_emit(o, &o_event);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(output_exec_running(o), 2);
	ck_assert_uint_eq(emitted, 2);
	ck_assert_uint_eq(failed, 3);
	ck_assert_uint_eq(count_children(), 2);
	output_close(o);
	ck_assert_msg(run_until(loop, no_children, NULL, 10), "children not reaped");
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_msg(count_str(log, "2 commands running (max_running); dropping records") == 1,
		      "log: %s", log);
	free(log);
}
END_TEST

/* Token bucket: burst runs at once, then rate per second. */
START_TEST(test_exec_rate_limit) {
	char *argv[] = { S("/bin/true"), NULL };
	struct output_conf c = {
		.argv = argv, .max_running = 100, .rate = 1, .burst = 3, .timeout_sec = 60
	};
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x");
	uint64_t emitted, failed;
	struct capture cap;
	struct output *o;
	ev_tstamp t0;
	char *log;

	capture_start(&cap);
	o = open_exec_conf(&c, loop);
	ev_now_update(loop);
	t0 = ev_now(loop);
	for (int i = 0; i < 10; i++)
		output_emit(o, &r);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 3);
	ck_assert_uint_eq(failed, 7);
	ck_assert(run_until(loop, exec_idle, o, 10));
	/* The bucket refills with time: one token per second; after 1.1 s
	 * (and less than 1.9 s) one run is allowed, the next is not. */
	ev_now_update(loop);
	run_until(loop, never, NULL, t0 + 1.1 - ev_now(loop));
	output_emit(o, &r);
	output_emit(o, &r);
	output_counters(o, &emitted, &failed);
	ck_assert_uint_eq(emitted, 4);
	ck_assert_uint_eq(failed, 8);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_msg(count_str(log, "rate limit reached (1 per second, burst 3)") == 2, "log: %s",
		      log);
	ck_assert_msg(count_str(log, "works again; 7 records lost meanwhile") == 1, "log: %s", log);
	free(log);
	ck_assert_uint_eq(count_children(), 0);
}
END_TEST

/* timeout_sec: SIGTERM, and SIGKILL when SIGTERM is ignored. */
START_TEST(test_exec_timeout) {
	char *term[] = { S("/bin/sleep"), S("30"), NULL };
	char *stubborn[] = { S("/usr/bin/env"), S("--ignore-signal=TERM"), S("/bin/sleep"), S("30"),
			     NULL };
	struct output_conf c = {
		.argv = term, .max_running = 4, .rate = 0, .burst = 1, .timeout_sec = 1
	};
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x");
	struct capture cap;
	struct output *o;
	ev_tstamp t0;
	char *log;

	capture_start(&cap);
	o = open_exec_conf(&c, loop);
	ev_now_update(loop);
	t0 = ev_now(loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	ck_assert(ev_now(loop) - t0 >= 0.9);
	output_close(o);

	c.argv = stubborn;
	o = open_exec_conf(&c, loop);
	output_exec_set_kill_grace(o, 0.3);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	output_close(o);
	log = capture_text(&cap);
	capture_stop(&cap);
	ck_assert_msg(count_str(log, "still running after 1 s, sending SIGTERM") == 2, "log: %s",
		      log);
	ck_assert_msg(count_str(log, "killed by signal TERM (after its timeout)") == 1, "log: %s",
		      log);
	ck_assert_msg(count_str(log, "still running 0.3 s after SIGTERM, sending SIGKILL") == 1,
		      "log: %s", log);
	ck_assert_msg(count_str(log, "killed by signal KILL (after its timeout)") == 1, "log: %s",
		      log);
	free(log);
	ck_assert_uint_eq(count_children(), 0);
}
END_TEST

/* A timeout stops the whole process group: a grandchild too (seen here
 * because this process is the subreaper its orphans are reparented to). */
START_TEST(test_exec_timeout_group) {
	/* A shell only as the test's stand-in for a command that forks; the
	 * "; :" keeps it from exec'ing sleep directly. */
	char *argv[] = { S("/bin/sh"), S("-c"), S("/bin/sleep 30; :"), NULL };
	struct output_conf c = {
		.argv = argv, .max_running = 4, .rate = 0, .burst = 1, .timeout_sec = 1
	};
	struct ev_loop *loop = ev_default_loop(0);
	struct record r = event("/x");
	struct capture cap;
	struct output *o;
	char *log;

	if (access(argv[0], X_OK) < 0)
		fsn_test_skip("no /bin/sh to stand in for a forking command");
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	capture_start(&cap);
	o = open_exec_conf(&c, loop);
	output_emit(o, &r);
	ck_assert(run_until(loop, exec_idle, o, 10));
	ck_assert_msg(run_until(loop, no_children, NULL, 5), "the grandchild survived");
	output_close(o);

	/* Closing the output stops running commands the same way. */
	c.timeout_sec = 60;
	o = open_exec_conf(&c, loop);
	output_emit(o, &r);
	ck_assert_uint_eq(output_exec_running(o), 1);
	/* let sh start sleep */
	run_until(loop, never, NULL, 0.3);
	output_close(o);
	ck_assert_msg(run_until(loop, no_children, NULL, 5), "a child survived the close");
	log = capture_text(&cap);
	capture_stop(&cap);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	free(log);
}
END_TEST

static void escape_suite(Suite *s) {
	TCase *tc;

	tc = tcase_create("escape");
	tcase_add_test(tc, test_json_escape);
	tcase_add_test(tc, test_json_escape_append_truncate);
	tcase_add_test(tc, test_json_escape_255);
	tcase_add_test(tc, test_json_escape_every_place);
	tcase_add_test(tc, test_json_write_string_same);
	tcase_add_test(tc, test_text_escape);
	tcase_add_test(tc, test_base64);
	suite_add_tcase(s, tc);

	tc = tcase_create("record");
	tcase_add_test(tc, test_record_json_lines);
	tcase_add_test(tc, test_record_json_lifecycle);
	tcase_add_test(tc, test_record_json_truncate);
	tcase_add_test(tc, test_record_json_structure);
	tcase_add_test(tc, test_record_ecs);
	tcase_add_test(tc, test_record_ecs_dates);
	tcase_add_test(tc, test_jq_roundtrip);
	tcase_add_test(tc, test_record_json_decision);
	tcase_add_test(tc, test_record_json_decision_unknown);
	tcase_add_test(tc, test_record_json_stats);
	tcase_add_test(tc, test_record_json_label);
	tcase_add_test(tc, test_record_json_who);
	tcase_add_test(tc, test_record_json_attrs);
	tcase_add_test(tc, test_record_json_content);
	tcase_add_test(tc, test_jq_decision_stats);
	suite_add_tcase(s, tc);

	tc = tcase_create("output-json");
	tcase_add_test(tc, test_json_file_rotate);
	tcase_add_test(tc, test_json_open_errors);
	tcase_add_test(tc, test_json_enospc);
	tcase_add_test(tc, test_json_epipe);
	tcase_add_test(tc, test_json_batch);
	tcase_add_test(tc, test_json_slow_pipe);
	suite_add_tcase(s, tc);

	tc = tcase_create("output-journal");
	tcase_add_test(tc, test_journal_missing);
	tcase_add_test(tc, test_journal_socket);
	suite_add_tcase(s, tc);

	tc = tcase_create("output-exec");
	tcase_add_test(tc, test_exec_template_check);
	tcase_add_test(tc, test_exec_open_errors);
	tcase_add_test(tc, test_exec_argv);
	tcase_add_test(tc, test_exec_label);
	tcase_add_test(tc, test_exec_output_forwarded);
	tcase_add_test(tc, test_exec_signals_reset);
	tcase_add_test(tc, test_exec_environment);
	tcase_add_test(tc, test_exec_missing_program);
	tcase_add_test(tc, test_exec_max_running);
	tcase_add_test(tc, test_exec_rate_limit);
	tcase_add_test(tc, test_exec_timeout);
	tcase_add_test(tc, test_exec_timeout_group);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("escape", escape_suite);
