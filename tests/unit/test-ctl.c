/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-ctl.c — the "ctl" suite: fsnotifyctl's parts that need no daemon:
 * the NUL framing (partial messages, several in one read, a message cut
 * by the end of the stream, oversized ones, growth to a large one), the
 * reply parser (errors, "continues", members passed on byte for byte),
 * reading from a socket, a refusal read after the call could not be
 * sent, the rules table at 80 columns with long and hostile names, and
 * records printed from their JSON exactly as the console prints the
 * record itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "fsn-util.h"
#include "json.h"
#include "verdict.h"
#include "record.h"
#include "table.h"
#include "unit.h"
#include "varlink-client.h"

/* Copy n bytes into b through vl_buf_space(), in pieces of at most step. */
static int feed(struct vl_buf *b, const char *data, size_t n, size_t step) {
	while (n > 0) {
		char *p;
		size_t room, k;
		int r = vl_buf_space(b, &p, &room);

		if (r < 0)
			return r;
		k = n < room ? n : room;
		if (k > step)
			k = step;
		memcpy(p, data, k);
		vl_buf_added(b, k);
		data += k;
		n -= k;
	}
	return 0;
}

START_TEST(test_frame_partial) {
	static const char msg[] = "{\"parameters\":{\"a\":1}}";
	struct vl_buf b = { 0 };
	const char *m;
	size_t len;

	/* byte by byte: nothing whole until the NUL */
	for (size_t i = 0; i < sizeof(msg) - 1; i++) {
		ck_assert_int_eq(feed(&b, msg + i, 1, 1), 0);
		ck_assert_int_eq(vl_buf_next(&b, &m, &len), 0);
	}
	ck_assert_int_eq(feed(&b, "", 1, 1), 0);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_uint_eq(len, sizeof(msg) - 1);
	ck_assert_str_eq(m, msg);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 0);
	ck_assert_int_eq(vl_buf_eof(&b), 0);
	vl_buf_done(&b);
}
END_TEST

START_TEST(test_frame_several) {
	static const char data[] = "{\"a\":1}\0{\"b\":2}\0{}\0{\"c\"";
	struct vl_buf b = { 0 };
	const char *m;
	size_t len;

	ck_assert_int_eq(feed(&b, data, sizeof(data) - 1, 4096), 0);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_str_eq(m, "{\"a\":1}");
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_str_eq(m, "{\"b\":2}");
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_str_eq(m, "{}");
	ck_assert_uint_eq(len, 2);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 0);
	/* the rest of the fourth comes in the next read, after compaction */
	ck_assert_int_eq(feed(&b, ":3}", 4, 4096), 0);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_str_eq(m, "{\"c\":3}");
	/* the end of the stream in a message: never taken, reported */
	ck_assert_int_eq(feed(&b, "{\"d\":", 5, 4096), 0);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 0);
	ck_assert_int_eq(vl_buf_eof(&b), -EBADMSG);
	vl_buf_done(&b);
}
END_TEST

START_TEST(test_frame_oversized) {
	struct vl_buf b = { .max = 100 };
	_cleanup_free_ char *big = malloc(300);
	const char *m;
	size_t len;
	char *p;
	size_t room;
	int r;

	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 300);
	/* exactly max bytes and the NUL: fine */
	ck_assert_int_eq(feed(&b, big, 100, 7), 0);
	ck_assert_int_eq(feed(&b, "", 1, 1), 0);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_uint_eq(len, 100);
	/* one more: the buffer will not grow for it */
	r = feed(&b, big, 300, 300);
	ck_assert_int_eq(r, -EMSGSIZE);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), -EMSGSIZE);
	ck_assert_int_eq(vl_buf_space(&b, &p, &room), -EMSGSIZE);
	ck_assert_uint_le(b.cap, 101);
	vl_buf_done(&b);
}
END_TEST

START_TEST(test_frame_grows) {
	size_t n = 20 * 1024 * 1024;
	_cleanup_free_ char *big = malloc(n + 1);
	struct vl_buf b = { 0 };
	const char *m;
	size_t len;

	ck_assert_ptr_nonnull(big);
	memset(big, 'y', n);
	big[n] = '\0';
	ck_assert_int_eq(feed(&b, big, n + 1, 65536), 0);
	ck_assert_int_eq(vl_buf_next(&b, &m, &len), 1);
	ck_assert_uint_eq(len, n);
	ck_assert_int_eq(memcmp(m, big, n), 0);
	vl_buf_done(&b);
}
END_TEST

START_TEST(test_reply_parse) {
	static const char ok[] = "{\"parameters\": {\"record\": {\"time\":\"t\",\"kind\":\"event\","
				 "\"path\":\"/a\\u001b\\\"b\"} , \"z\": 1}, \"continues\": true}";
	static const char err[] = "{\"error\":\"io.fsnotifyd.NoSuchRule\",\"parameters\":"
				  "{\"rule\":\"x\"}}";
	struct vl_reply r;
	const char *t;
	size_t n;

	ck_assert_int_eq(vl_reply_parse(ok, strlen(ok), &r), 0);
	ck_assert_ptr_null(r.error);
	ck_assert(r.continues);
	t = vl_reply_member_text(&r, "record", &n);
	ck_assert_ptr_nonnull(t);
	/* byte for byte, keys in their order, escapes as they came */
	ck_assert_int_eq((int)n, (int)strlen("{\"time\":\"t\",\"kind\":\"event\","
					     "\"path\":\"/a\\u001b\\\"b\"}"));
	ck_assert_int_eq(
	    memcmp(t, "{\"time\":\"t\",\"kind\":\"event\",\"path\":\"/a\\u001b\\\"b\"}", n), 0);
	t = vl_reply_parameters_text(&r, &n);
	ck_assert_int_eq(t[0], '{');
	ck_assert_int_eq(t[n - 1], '}');
	ck_assert_ptr_null(vl_reply_member_text(&r, "nope", &n));
	vl_reply_done(&r);

	ck_assert_int_eq(vl_reply_parse(err, strlen(err), &r), 0);
	ck_assert_str_eq(r.error, "io.fsnotifyd.NoSuchRule");
	ck_assert(!r.continues);
	ck_assert_str_eq(json_get_string(r.parameters, "rule"), "x");
	vl_reply_done(&r);

	/* no parameters: "{}" */
	ck_assert_int_eq(vl_reply_parse("{}", 2, &r), 0);
	t = vl_reply_parameters_text(&r, &n);
	ck_assert_int_eq((int)n, 2);
	vl_reply_done(&r);

	ck_assert_int_eq(vl_reply_parse("[1]", 3, &r), -EBADMSG);
	ck_assert_int_eq(vl_reply_parse("{\"error\":1}", 11, &r), -EBADMSG);
	ck_assert_int_eq(vl_reply_parse("{\"parameters\":[]}", 17, &r), -EBADMSG);
	ck_assert_int_eq(vl_reply_parse("{\"continues\":1}", 15, &r), -EBADMSG);
	ck_assert_int_eq(vl_reply_parse("{\"a\":", 5, &r), -EBADMSG);
}
END_TEST

/* vl_read() on a socket pair: pieces, several in one write, the end. */
START_TEST(test_read_socket) {
	static const char data[] = "{\"parameters\":{\"n\":1},\"continues\":true}\0"
				   "{\"parameters\":{\"n\":2},\"continues\":true}\0{\"param";
	struct vl_conn c = { .fd = -1 };
	struct vl_reply r;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c.fd = sv[0];
	ck_assert_int_eq(write(sv[1], data, 10), 10);
	ck_assert_int_eq(write(sv[1], data + 10, sizeof(data) - 1 - 10),
			 (ssize_t)(sizeof(data) - 1 - 10));
	ck_assert_int_eq(vl_read(&c, &r, NULL), 0);
	ck_assert_int_eq((int)json_get_number(r.parameters, "n", 0), 1);
	ck_assert(r.continues);
	vl_reply_done(&r);
	ck_assert_int_eq(vl_read(&c, &r, NULL), 0);
	ck_assert_int_eq((int)json_get_number(r.parameters, "n", 0), 2);
	vl_reply_done(&r);
	close(sv[1]);
	/* closed in the middle of the third */
	ck_assert_int_eq(vl_read(&c, &r, NULL), -EBADMSG);
	vl_close(&c);

	/* closed between messages */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c = (struct vl_conn){ .fd = sv[0] };
	close(sv[1]);
	ck_assert_int_eq(vl_read(&c, &r, NULL), -ECONNRESET);
	vl_close(&c);
}
END_TEST

START_TEST(test_call_text) {
	struct vl_conn c = { .fd = -1 };
	char buf[256];
	int sv[2];
	ssize_t n;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c.fd = sv[0];
	ck_assert_int_eq(vl_call(&c, "io.fsnotifyd.Watch", "{\"path\":\"/a\"}", true), 0);
	n = read(sv[1], buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(buf[n - 1], '\0');
	ck_assert_str_eq(buf, "{\"method\":\"io.fsnotifyd.Watch\",\"parameters\":{\"path\":\"/a\"},"
			      "\"more\":true}");
	close(sv[1]);
	vl_close(&c);
}
END_TEST

/* The server refused this client and closed before its call was written
 * (vl_call() fails with EPIPE): the refusal is read, not "Broken pipe". */
START_TEST(test_refusal_before_call) {
	static const char refusal[] = "{\"error\":\"io.fsnotifyd.TooManyClients\","
				      "\"parameters\":{\"max\":127}}";
	struct vl_conn c = { .fd = -1 };
	struct vl_reply r;
	int sv[2], k;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c.fd = sv[0];
	ck_assert_int_eq(write(sv[1], refusal, sizeof(refusal)), (ssize_t)sizeof(refusal));
	close(sv[1]);
	k = vl_call(&c, "io.fsnotifyd.GetStatus", NULL, false);
	ck_assert_int_eq(k, -EPIPE);
	ck_assert_int_eq(vl_read_refusal(&c, k, &r), 0);
	ck_assert_str_eq(r.error, "io.fsnotifyd.TooManyClients");
	ck_assert_int_eq((int)json_get_number(r.parameters, "max", 0), 127);
	vl_reply_done(&r);
	/* nothing more: the error stands */
	ck_assert_int_eq(vl_read_refusal(&c, k, &r), -EPIPE);
	ck_assert_int_eq(vl_read_refusal(&c, -ENOMEM, &r), -ENOMEM);
	vl_close(&c);
}
END_TEST

static char *table_of(const char *json, size_t width) {
	struct json *j = NULL;
	char *out = NULL;
	size_t n = 0;
	FILE *f;

	ck_assert_int_eq(json_parse(json, strlen(json), &j, NULL), 0);
	f = open_memstream(&out, &n);
	ck_assert_ptr_nonnull(f);
	ctl_rules_table(f, json_get(j, "rules"), width);
	ck_assert_int_eq(fclose(f), 0);
	json_free(j);
	return out;
}

/* every line at most width columns, no control character but '\n' */
static void check_lines(const char *text, size_t width, size_t lines) {
	size_t n = 0;

	for (const char *p = text; *p; n++) {
		const char *nl = strchr(p, '\n');
		_cleanup_free_ char *line = NULL;

		ck_assert_ptr_nonnull(nl);
		line = strndup(p, (size_t)(nl - p));
		for (const unsigned char *q = (const unsigned char *)line; *q; q++)
			ck_assert_msg(*q >= 0x20 && *q != 0x7f, "control byte in %s", line);
		if (width)
			ck_assert_msg(ctl_text_width(line) <= width, "%zu columns: %s",
				      ctl_text_width(line), line);
		p = nl + 1;
	}
	ck_assert_uint_eq(n, lines);
}

#define RULE(name, perm, counters)                                                                 \
	"{\"name\":\"" name "\",\"permission\":" perm ",\"marks\":[{\"placed\":true},"             \
	"{\"placed\":false}],\"counters\":" counters ",\"perm\":" /* */
#define SMALL "{\"events\":12,\"filtered\":3,\"ratelimited\":0,\"overflows\":1}"
#define HUGE                                                                                       \
	"{\"events\":18000000000000000000,\"filtered\":123456789012,\"ratelimited\":"              \
	"99999999999,\"overflows\":4000000000}"
#define PERM_HUGE                                                                                  \
	"{\"allowed\":18000000000000000000,\"denied\":7777777777777,\"deadline\":123456789}"

START_TEST(test_table_80) {
	static const char rules[] = "{\"rules\":[" /* */
	    RULE("etc", "false", SMALL) "null},"   /* */
	    RULE("a-rule-with-a-name-much-longer-than-eighty-columns-of-any-terminal-there-"
		 "is-xxxxxxxxxxxxxxxx",
		 "false", HUGE) "null}," /* */
	    RULE("evil\\u001b[31mred\\u202e\\ninjected \\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
		 "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9",
		 "true", HUGE) PERM_HUGE "}" /* */
					 "]}";
	_cleanup_free_ char *t80 = table_of(rules, 80);
	_cleanup_free_ char *t0 = table_of(rules, 0);
	_cleanup_free_ char *t40 = table_of(rules, 40);

	check_lines(t80, 80, 4);
	ck_assert_ptr_nonnull(strstr(t80, "RULE"));
	ck_assert_ptr_nonnull(strstr(t80, "ALLOW"));
	ck_assert_ptr_nonnull(strstr(t80, "..."));
	ck_assert_ptr_nonnull(strstr(t80, "1/2"));
	ck_assert_ptr_nonnull(strstr(t80, "18E"));
	/* the escape sequence is never cut in the middle, nor printed raw */
	ck_assert_ptr_null(strchr(t80, '\x1b'));
	ck_assert_ptr_nonnull(strstr(t80, "evil\\x1b"));
	/* no limit: whole names, exact numbers */
	check_lines(t0, 0, 4);
	ck_assert_ptr_nonnull(strstr(t0, "there-is-xxxxxxxxxxxxxxxx "));
	ck_assert_ptr_nonnull(strstr(t0, "18000000000000000000"));
	ck_assert_ptr_nonnull(strstr(t0, "evil\\x1b[31mred\\xe2\\x80\\xae\\ninjected "));
	/* narrower than the counters: the name keeps its header's width */
	check_lines(t40, 0, 4);
	ck_assert_ptr_nonnull(strstr(t40, "e..."));
}
END_TEST

START_TEST(test_table_plain) {
	static const char rules[] = "{\"rules\":[" RULE("etc", "false", SMALL) "null}]}";
	_cleanup_free_ char *t = table_of(rules, 80);

	ck_assert_str_eq(t, "RULE  MARKS  EVENTS  FILTERED  LIMITED  OVERFL\n"
			    "etc     1/2      12         3        0       1\n");
	free(t);
	t = table_of("{\"rules\":[]}", 80);
	ck_assert_str_eq(t, "RULE  MARKS  EVENTS  FILTERED  LIMITED  OVERFL\n");
}
END_TEST

START_TEST(test_cut) {
	_cleanup_free_ char *a = ctl_fit("abc\x01"
					 "defgh",
					 8);
	_cleanup_free_ char *b = ctl_fit("abc\x01"
					 "defgh",
					 0);
	_cleanup_free_ char *c = ctl_fit("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4);
	_cleanup_free_ char *d = ctl_fit("short", 80);
	char buf[16];

	/* "abc\x01defgh" is 12 columns: 5 fit before "...", but not half of \x01 */
	ck_assert_str_eq(a, "abc...");
	ck_assert_str_eq(b, "abc\\x01defgh");
	ck_assert_str_eq(c, "\xc3\xa9...");
	ck_assert_str_eq(d, "short");
	ck_assert_str_eq(ctl_count(99999, 1, buf, sizeof(buf)), "99999");
	ck_assert_str_eq(ctl_count(100000, 1, buf, sizeof(buf)), "100k");
	ck_assert_str_eq(ctl_count(1234567, 1, buf, sizeof(buf)), "1.2M");
	ck_assert_str_eq(ctl_count(999999999, 1, buf, sizeof(buf)), "1.0G");
	ck_assert_str_eq(ctl_count(1234567, 0, buf, sizeof(buf)), "1234567");
}
END_TEST

START_TEST(test_base64) {
	static const char *const cases[] = { "", "a", "ab", "abc", "/etc/\xff\xfe", "xyzzy!" };

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char enc[64];
		_cleanup_free_ char *dec = NULL;
		size_t n;

		base64_encode(enc, sizeof(enc), cases[i], strlen(cases[i]));
		dec = ctl_base64_decode(enc, &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, strlen(cases[i]));
		ck_assert_str_eq(dec, cases[i]);
	}
	ck_assert_ptr_null(ctl_base64_decode("ab$c", NULL));
}
END_TEST

/* r through the json output's line and back: printed as the console prints r. */
static void check_round_trip(const struct record *r) {
	char json[8192], want[8192];
	_cleanup_free_ char *got = NULL;
	struct json *j = NULL;
	int n = record_to_json(r, json, sizeof(json));

	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, (int)sizeof(json));
	ck_assert_int_eq(json_parse(json, (size_t)n, &j, NULL), 0);
	ck_assert_int_eq(ctl_record_text(j, &got), 0);
	record_to_text(r, want, sizeof(want));
	ck_assert_str_eq(got, want);
	json_free(j);
}

START_TEST(test_record_text) {
	const struct verdict deny = { .deny = true, .err = EPERM, .audit = true };
	const struct perm_counts perm = { .allowed = 5, .denied = 2, .deadline = 1 };
	const struct record_content
	    hashed = { .sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		       .size = 3,
		       .has_size = true },
	    too_big = { .skipped = "too_big", .size = 1ull << 40, .has_size = true };
	const uint64_t t = 1764478329123456ull;
	const struct record recs[] = {
		{ .kind = RECORD_EVENT,
		  .time_usec = t,
		  .rule = "etc",
		  .mask = FAN_CREATE | FAN_ONDIR,
		  .path = "/etc/a\x1b[31m\n\xff\xfe",
		  .pid = 42,
		  .comm = "to\tuch",
		  .uid = 0 },
		{ .kind = RECORD_EVENT,
		  .time_usec = t,
		  .rule = "r\xe2\x80\xae",
		  .mask = FAN_MOVED_TO,
		  .path = "/x/new",
		  .old_path = "/x/\xc3\xa9old",
		  .uid = (uid_t)-1 },
		{ .kind = RECORD_EVENT, .time_usec = t, .rule = "etc", .mask = FAN_MODIFY },
		{ .kind = RECORD_OVERFLOW, .time_usec = t, .rule = "etc" },
		{ .kind = RECORD_DROPPED, .time_usec = t, .rule = "etc", .count = 17 },
		{ .kind = RECORD_DROPPED, .time_usec = t, .count = 3 },
		{ .kind = RECORD_DECISION,
		  .time_usec = t,
		  .rule = "noexec",
		  .mask = FAN_OPEN_EXEC_PERM,
		  .path = "/tmp/x",
		  .pid = 7,
		  .comm = "sh",
		  .uid = 1000,
		  .exe = "/bin/\xff",
		  .verdict = &deny,
		  .by = "decision",
		  .decision = 2,
		  .latency_us = 31 },
		{ .kind = RECORD_STATS, .time_usec = t, .rule = "noexec", .perm = &perm },
		{ .kind = RECORD_RESCAN,
		  .time_usec = t,
		  .rule = "tree",
		  .mask = FAN_ONDIR,
		  .path = "/srv/d",
		  .change = "created" },
		{ .kind = RECORD_GONE,
		  .time_usec = t,
		  .rule = "tree",
		  .path = "/srv",
		  .reason = "covered",
		  .mask = FAN_ONDIR },
		{ .kind = RECORD_UNMOUNTED,
		  .time_usec = t,
		  .rule = "tree",
		  .path = "/srv",
		  .mount = "/srv\xff" },
		{ .kind = RECORD_REARMED, .time_usec = t, .rule = "tree", .path = "/srv" },
		{ .kind = RECORD_CONTENT,
		  .time_usec = t,
		  .rule = "bin",
		  .mask = FAN_CLOSE_WRITE,
		  .path = "/usr/bin/\xff",
		  .content = &hashed },
		{ .kind = RECORD_CONTENT,
		  .time_usec = t,
		  .rule = "bin",
		  .path = "/usr/bin/big",
		  .content = &too_big },
	};

	for (size_t i = 0; i < ELEMENTSOF(recs); i++)
		check_round_trip(&recs[i]);
}
END_TEST

START_TEST(test_record_text_shape) {
	static const char rec[] = "{\"time\":\"2026-11-30T04:52:09.123456Z\",\"kind\":\"event\","
				  "\"rule\":\"etc\",\"events\":[\"create\"],\"path\":\"/etc/"
				  "\\ufffd\",\"path_b64\":\"L2V0Yy//\",\"pid\":12,\"comm\":\"tou"
				  "ch\",\"uid\":0}";
	_cleanup_free_ char *got = NULL;
	struct json *j = NULL;

	setenv("TZ", "UTC", 1);
	tzset();
	ck_assert_int_eq(json_parse(rec, strlen(rec), &j, NULL), 0);
	ck_assert_int_eq(ctl_record_text(j, &got), 0);
	ck_assert_str_eq(got,
			 "2026-11-30T04:52:09.123 etc create /etc/\\xff (pid 12 comm touch)\n");
	json_free(j);
	ck_assert_int_eq(json_parse("{\"kind\":\"new\"}", 14, &j, NULL), 0);
	ck_assert_int_eq(ctl_record_text(j, &got), -EINVAL);
	json_free(j);
}
END_TEST

static void ctl_suite(Suite *s) {
	TCase *tc = tcase_create("ctl");

	tcase_add_test(tc, test_frame_partial);
	tcase_add_test(tc, test_frame_several);
	tcase_add_test(tc, test_frame_oversized);
	tcase_add_test(tc, test_frame_grows);
	tcase_add_test(tc, test_reply_parse);
	tcase_add_test(tc, test_read_socket);
	tcase_add_test(tc, test_refusal_before_call);
	tcase_add_test(tc, test_call_text);
	tcase_add_test(tc, test_table_80);
	tcase_add_test(tc, test_table_plain);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_base64);
	tcase_add_test(tc, test_record_text);
	tcase_add_test(tc, test_record_text_shape);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("ctl", ctl_suite);
