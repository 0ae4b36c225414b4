/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-metrics.c — the "metrics" suite: label values escaped for the
 * Prometheus text format (prom_escape(): hostile bytes, invalid UTF-8),
 * the buckets of the permission latency histogram and their rendering
 * (cumulative, +Inf equal to _count), metrics_render() of an engine whose
 * state the test sets (every line well-formed, every family with # HELP
 * and # TYPE before its series, counters ending in _total, the values
 * given), and the metrics output (the file replaced atomically, mode
 * 0644, a planted temporary file never followed, a directory that is a
 * symbolic link refused, a failed write counted).
 */
#include <ev.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "engine-private.h"
#include "escape.h"
#include "guard.h"
#include "metrics.h"
#include "output-private.h"
#include "unit.h"

static char *escaped(const char *s, bool *valid) {
	static char buf[1024];
	size_t pos = 0;
	bool v = prom_escape(buf, sizeof(buf), &pos, s);

	ck_assert_uint_eq(pos, strlen(buf));
	if (valid)
		*valid = v;
	return buf;
}

START_TEST(test_prom_escape) {
	bool valid;

	ck_assert_str_eq(escaped("plain-rule.1_x", &valid), "plain-rule.1_x");
	ck_assert(valid);
	ck_assert_str_eq(escaped("a\"b\\c\nd", &valid), "a\\\"b\\\\c\\nd");
	ck_assert(valid);
	/* the format allows other control characters and any UTF-8 */
	ck_assert_str_eq(escaped("t\tr\r\x01", NULL), "t\tr\r\x01");
	ck_assert_str_eq(escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", &valid),
			 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	ck_assert(valid);
	/* invalid UTF-8: U+FFFD per byte that starts no valid sequence */
	ck_assert_str_eq(escaped("x\xff", &valid), "x\xef\xbf\xbd");
	ck_assert(!valid);
	ck_assert_str_eq(escaped("\xc0\xaf", NULL), "\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_str_eq(escaped("\xed\xa0\x80", NULL), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_str_eq(escaped("end\xc3", NULL), "end\xef\xbf\xbd");
	ck_assert_str_eq(escaped("\xf4\x90\x80\x80", NULL),
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* an escape after bytes, then invalid: all in order */
	ck_assert_str_eq(escaped("\"\xfe\\", NULL), "\\\"\xef\xbf\xbd\\\\");
}
END_TEST

START_TEST(test_prom_escape_truncates) {
	char buf[4];
	size_t pos = 0;

	prom_escape(buf, sizeof(buf), &pos, "ab\"cd");
	ck_assert_uint_eq(pos, 6); /* the full length, as snprintf */
	ck_assert_uint_eq(strlen(buf), 3);
	pos = 0;
	prom_escape(NULL, 0, &pos, "\n");
	ck_assert_uint_eq(pos, 2);
}
END_TEST

/* What a FILE-writing function wrote (malloc'd). */
#define CAPTURE(text, len, stmt)                                                                   \
	do {                                                                                       \
		FILE *f_ = open_memstream(&(text), &(len));                                        \
		FILE *f = f_;                                                                      \
		ck_assert_ptr_nonnull(f_);                                                         \
		stmt;                                                                              \
		ck_assert_int_eq(fclose(f_), 0);                                                   \
	} while (0)

START_TEST(test_label_value) {
	char *text = NULL, long_name[2000];
	size_t len = 0;

	CAPTURE(text, len, metrics_label_value(f, "r\"\\\n\xff"));
	ck_assert_str_eq(text, "\"r\\\"\\\\\\n\xef\xbf\xbd\"");
	free(text);
	/* longer than the stack buffer: the same escaping */
	memset(long_name, '"', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	text = NULL;
	CAPTURE(text, len, metrics_label_value(f, long_name));
	ck_assert_uint_eq(len, 2 + 2 * (sizeof(long_name) - 1));
	ck_assert_int_eq(text[0], '"');
	ck_assert_int_eq(text[len - 1], '"');
	for (size_t i = 1; i + 1 < len; i += 2)
		ck_assert(text[i] == '\\' && text[i + 1] == '"');
	free(text);
}
END_TEST

START_TEST(test_latency_buckets) {
	ck_assert_uint_eq(guard_latency_bucket(0), 0);
	ck_assert_uint_eq(guard_latency_bucket(1), 0);
	ck_assert_uint_eq(guard_latency_bucket(2), 1);
	ck_assert_uint_eq(guard_latency_bucket(3), 1);
	ck_assert_uint_eq(guard_latency_bucket(4), 2);
	ck_assert_uint_eq(guard_latency_bucket(999), 6);
	ck_assert_uint_eq(guard_latency_bucket(1000), 6);
	ck_assert_uint_eq(guard_latency_bucket(1000000), GUARD_LATENCY_BOUNDS - 1);
	ck_assert_uint_eq(guard_latency_bucket(1000001), GUARD_LATENCY_BOUNDS);
	ck_assert_uint_eq(guard_latency_bucket(UINT64_MAX), GUARD_LATENCY_BOUNDS);
	for (unsigned b = 1; b < GUARD_LATENCY_BOUNDS; b++)
		ck_assert_uint_gt(guard_latency_bounds_us[b], guard_latency_bounds_us[b - 1]);
}
END_TEST

/* The value of the series line that starts with prefix ("name{labels} "),
 * which must be there exactly once. */
static double value_of(const char *text, const char *prefix) {
	const char *hit = NULL;
	size_t n = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, n) == 0) {
			ck_assert_msg(!hit, "%s twice", prefix);
			hit = p + n;
		}
	ck_assert_msg(hit, "no line %s in:\n%s", prefix, text);
	return strtod(hit, NULL);
}

START_TEST(test_histogram) {
	struct metrics_perm v[2] = {
		{ .rule = "p\"1",
		  .stats = { .allowed = 9,
			     .denied = 3,
			     .audited = 2,
			     .deadline = 1,
			     .pending = 4 } },
		{ .rule = "p2" },
	};
	char *text = NULL, prefix[256];
	uint64_t total = 0, prev = 0;
	size_t len = 0;

	for (unsigned b = 0; b <= GUARD_LATENCY_BOUNDS; b++) {
		v[0].stats.latency.buckets[b] = b % 3; /* some empty buckets between */
		total += b % 3;
	}
	v[0].stats.latency.sum_us = 1234567;
	CAPTURE(text, len, metrics_write_perm(f, v, 2));

	ck_assert_double_eq(
	    value_of(text,
		     "fsnotifyd_permission_verdicts_total{rule=\"p\\\"1\",verdict=\"allow\"} "),
	    9);
	ck_assert_double_eq(
	    value_of(text,
		     "fsnotifyd_permission_verdicts_total{rule=\"p\\\"1\",verdict=\"deny\"} "),
	    3);
	ck_assert_double_eq(
	    value_of(text,
		     "fsnotifyd_permission_verdicts_total{rule=\"p\\\"1\",verdict=\"audit\"} "),
	    2);
	ck_assert_double_eq(value_of(text, "fsnotifyd_permission_verdicts_total{rule=\"p\\\"1\","
					   "verdict=\"deadline\"} "),
			    1);
	ck_assert_double_eq(value_of(text, "fsnotifyd_permission_pending{rule=\"p\\\"1\"} "), 4);
	/* cumulative: each bucket holds every decision up to its bound */
	for (unsigned b = 0; b <= GUARD_LATENCY_BOUNDS; b++) {
		uint64_t want = 0, got;

		for (unsigned k = 0; k <= b; k++)
			want += k % 3;
		if (b < GUARD_LATENCY_BOUNDS)
			snprintf(prefix, sizeof(prefix),
				 "fsnotifyd_permission_decision_seconds_bucket{rule=\"p\\\"1\","
				 "le=\"%g\"} ",
				 guard_latency_bounds_us[b] / 1e6);
		else
			snprintf(prefix, sizeof(prefix),
				 "fsnotifyd_permission_decision_seconds_bucket{rule=\"p\\\"1\","
				 "le=\"+Inf\"} ");
		got = (uint64_t)value_of(text, prefix);
		ck_assert_uint_eq(got, want);
		ck_assert_uint_ge(got, prev);
		prev = got;
	}
	ck_assert_uint_eq(prev, total);
	ck_assert_double_eq(
	    value_of(text, "fsnotifyd_permission_decision_seconds_count{rule=\"p\\\"1\"} "), total);
	ck_assert_double_eq_tol(
	    value_of(text, "fsnotifyd_permission_decision_seconds_sum{rule=\"p\\\"1\"} "), 1.234567,
	    1e-9);
	ck_assert_ptr_nonnull(strstr(text, "fsnotifyd_permission_decision_seconds_bucket{rule="
					   "\"p\\\"1\",le=\"1e-06\"} "));
	/* the second rule: all zero, the same series */
	ck_assert_double_eq(
	    value_of(text, "fsnotifyd_permission_decision_seconds_count{rule=\"p2\"} "), 0);
	ck_assert_double_eq(
	    value_of(text,
		     "fsnotifyd_permission_decision_seconds_bucket{rule=\"p2\",le=\"+Inf\"} "),
	    0);
	/* one # TYPE per family */
	ck_assert_ptr_nonnull(
	    strstr(text, "# TYPE fsnotifyd_permission_decision_seconds histogram\n"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE fsnotifyd_permission_verdicts_total counter\n"));
	free(text);

	/* no permission rules: nothing at all */
	text = NULL;
	CAPTURE(text, len, metrics_write_perm(f, v, 0));
	ck_assert_uint_eq(len, 0);
	free(text);
}
END_TEST

/*
 * The text format, line by line: comments are "# HELP name text" and
 * "# TYPE name type", HELP then TYPE, once per family and before its
 * series; a series is name{label="value",...} value with the family's name
 * (histograms: _bucket, _sum, _count); counters end in _total; every name
 * starts with fsnotifyd_. Returns the number of series.
 */
static unsigned check_format(const char *text) {
	regex_t series, help, type;
	char family[128] = "", ftype[32] = "", *copy = strdup(text), *save = NULL;
	unsigned n = 0;

	ck_assert_ptr_nonnull(copy);
	ck_assert_int_eq(regcomp(&series,
				 "^(fsnotifyd_[a-z_]+)(\\{[a-z_]+=\"([^\"\\\\]|\\\\.)*\"(,[a-z_]+="
				 "\"([^\"\\\\]|\\\\.)*\")*"
				 "\\})? (-?[0-9]+(\\.[0-9]+)?)$",
				 REG_EXTENDED),
			 0);
	ck_assert_int_eq(regcomp(&help, "^# HELP (fsnotifyd_[a-z_]+) [^\n]+$", REG_EXTENDED), 0);
	ck_assert_int_eq(
	    regcomp(&type, "^# TYPE (fsnotifyd_[a-z_]+) (counter|gauge|histogram)$", REG_EXTENDED),
	    0);
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		regmatch_t m[3];

		if (regexec(&help, line, 3, m, 0) == 0) {
			char name[128];

			snprintf(name, sizeof(name), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
				 line + m[1].rm_so);
			ck_assert_msg(strcmp(name, family) != 0, "family %s twice", name);
			snprintf(family, sizeof(family), "%s", name);
			ftype[0] = '\0';
			continue;
		}
		if (regexec(&type, line, 3, m, 0) == 0) {
			ck_assert_msg(strncmp(line + 7, family, strlen(family)) == 0 &&
					  line[7 + strlen(family)] == ' ',
				      "# TYPE without its # HELP: %s", line);
			snprintf(ftype, sizeof(ftype), "%s", line + 8 + strlen(family));
			if (strcmp(ftype, "counter") == 0)
				ck_assert_msg(strlen(family) > 6 &&
						  strcmp(family + strlen(family) - 6, "_total") ==
						      0,
					      "counter %s does not end in _total", family);
			continue;
		}
		ck_assert_msg(regexec(&series, line, 3, m, 0) == 0, "not a series line: '%s'",
			      line);
		ck_assert_msg(ftype[0], "a series before its # TYPE: %s", line);
		{
			size_t fl = strlen(family), nl = (size_t)(m[1].rm_eo - m[1].rm_so);
			bool ok = nl == fl && strncmp(line, family, fl) == 0;

			if (strcmp(ftype, "histogram") == 0)
				ok = strncmp(line, family, fl) == 0 &&
				     (strncmp(line + fl, "_bucket{", 8) == 0 ||
				      strncmp(line + fl, "_sum", 4) == 0 ||
				      strncmp(line + fl, "_count", 6) == 0);
			ck_assert_msg(ok, "series %s in family %s", line, family);
		}
		n++;
	}
	regfree(&series);
	regfree(&help);
	regfree(&type);
	free(copy);
	return n;
}

static int fixed_render(void *userdata, char **ret_text, size_t *ret_len) {
	*ret_text = strdup(userdata);
	if (!*ret_text)
		return -ENOMEM;
	*ret_len = strlen(userdata);
	return 0;
}

/* The control socket's numbers as it would give them: 5 subscribers. */
static void five_subscribers(void *userdata, struct control_counters *ret) {
	*ret = (struct control_counters){ .subscribers = 5 };
}

START_TEST(test_render) {
	struct ev_loop *loop = ev_default_loop(0);
	struct engine *e = NULL;
	struct config *c;
	struct output_conf *prom = NULL;
	char dir[PATH_MAX], *text = NULL, *text2 = NULL, err[512] = "";
	size_t len = 0, len2 = 0;

	test_tmpdir(dir, sizeof(dir));
	c = test_config_load(dir, "outputs = [\"j\"];\n"
				  "output = { j = { type = \"json\"; file = \"@D@/ev.json\"; };\n"
				  "  prom = { type = \"metrics\"; file = \"@D@/m.prom\"; }; };\n"
				  "rules = ( { name = \"r.a-b_9\"; paths = [\"@D@\"]; },\n"
				  "  { name = \"second\"; paths = [\"@D@\"]; } );\n");
	ck_assert_int_eq(engine_new(loop, &e), 0);
	/* the state as a load would leave it (engine_free() frees it) */
	e->st.config = c;
	e->st.rules = calloc(c->n_rules, sizeof(*e->st.rules));
	ck_assert_ptr_nonnull(e->st.rules);
	e->st.n_rules = c->n_rules;
	for (size_t i = 0; i < c->n_rules; i++)
		e->st.rules[i].conf = &c->rules[i];
	e->st.rules[0].stats = (struct rule_stats){ .events = 7,
						    .filtered = 6,
						    .ratelimited = 5,
						    .dropped = 4,
						    .overflows = 3,
						    .rescans = 2,
						    .rearms = 1 };
	e->st.outputs = calloc(c->n_outputs, sizeof(*e->st.outputs));
	ck_assert_ptr_nonnull(e->st.outputs);
	for (size_t i = 0; i < c->n_outputs; i++) {
		struct eoutput *o = calloc(1, sizeof(*o));

		ck_assert_ptr_nonnull(o);
		o->name = strdup(c->outputs[i].name);
		o->conf = &c->outputs[i];
		if (o->conf->type == OUTPUT_METRICS) {
			prom = &c->outputs[i];
			ck_assert_int_eq(output_metrics_open(o->conf, NULL, fixed_render,
							     (void *)"x 1\n", &o->out, err,
							     sizeof(err)),
					 0);
		} else
			ck_assert_int_eq(output_open(o->conf, NULL, &o->out, err, sizeof(err)), 0);
		e->st.outputs[e->st.n_outputs++] = o;
	}
	ck_assert_ptr_nonnull(prom);
	e->st.outputs[0]->out->n =
	    (struct output_counters){ .written = 11, .failed = 2, .dropped = 3 };
	e->st.n_placed = 42;
	e->handled = 99;
	e->loaded_usec = 1700000000123456ull;
	engine_set_control_counters(e, five_subscribers, NULL);

	ck_assert_int_eq(metrics_render(e, &text, &len), 0);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_uint_ge(check_format(text), 30);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_events_total{rule=\"r.a-b_9\"} "), 7);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_filtered_total{rule=\"r.a-b_9\"} "), 6);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_ratelimited_total{rule=\"r.a-b_9\"} "),
			    5);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_dropped_total{rule=\"r.a-b_9\"} "), 4);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_overflows_total{rule=\"r.a-b_9\"} "), 3);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_rescans_total{rule=\"r.a-b_9\"} "), 2);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_rearms_total{rule=\"r.a-b_9\"} "), 1);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rule_events_total{rule=\"second\"} "), 0);
	ck_assert_double_eq(
	    value_of(text, "fsnotifyd_output_records_total{output=\"j\",type=\"json\"} "), 11);
	ck_assert_double_eq(
	    value_of(text, "fsnotifyd_output_failures_total{output=\"j\",type=\"json\"} "), 2);
	ck_assert_double_eq(
	    value_of(text, "fsnotifyd_output_dropped_total{output=\"j\",type=\"json\"} "), 3);
	ck_assert_double_eq(
	    value_of(text, "fsnotifyd_output_records_total{output=\"prom\",type=\"metrics\"} "), 0);
	ck_assert_double_eq(value_of(text, "fsnotifyd_rules "), 2);
	ck_assert_double_eq(value_of(text, "fsnotifyd_marks "), 42);
	ck_assert_double_eq(value_of(text, "fsnotifyd_fanotify_groups "), 0);
	ck_assert_double_eq(value_of(text, "fsnotifyd_subscribers "), 5);
	ck_assert_double_eq(value_of(text, "fsnotifyd_events_handled_total "), 99);
	ck_assert_double_gt(value_of(text, "fsnotifyd_resident_memory_bytes "), 0);
	ck_assert_double_eq_tol(value_of(text, "fsnotifyd_config_load_time_seconds "),
				1700000000.123456, 1e-3);
	ck_assert_double_gt(value_of(text, "fsnotifyd_start_time_seconds "), 1.6e9);
	ck_assert_double_ge(value_of(text, "fsnotifyd_uptime_seconds "), 0);
	ck_assert_double_eq(value_of(text, "fsnotifyd_config_last_reload_ok "), 1);
	ck_assert_double_eq(value_of(text, "fsnotifyd_reader_buffer_limit_bytes "), 0);
	ck_assert_double_eq(value_of(text, "fsnotifyd_reader_buffer_full_total "), 0);
	ck_assert_double_eq(value_of(text, "fsnotifyd_build_info{version=\"" FSN_VERSION "\"} "),
			    1);
	/* a failed reload shows */
	e->reloaded = true;
	snprintf(e->reload_error, sizeof(e->reload_error), "x.conf:1: bad");
	ck_assert_int_eq(metrics_render(e, &text2, &len2), 0);
	ck_assert_double_eq(value_of(text2, "fsnotifyd_config_last_reload_ok "), 0);
	check_format(text2);
	free(text);
	free(text2);

	/* the metrics outputs are written at stop (engine_free()) */
	{
		char path[PATH_MAX], buf[64];
		FILE *f;

		test_join(path, sizeof(path), dir, "m.prom");
		e = engine_free(e);
		f = fopen(path, "re");
		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
		ck_assert_str_eq(buf, "x 1\n");
		fclose(f);
	}
	test_rm_tree(dir);
}
END_TEST

static struct output *open_metrics(const char *file, const char *text, char *err, size_t errlen,
				   int *r) {
	struct output_conf oc = {
		.name = (char *)"m", .type = OUTPUT_METRICS, .file = (char *)file, .interval = 15
	};
	struct output *o = NULL;

	*r = output_metrics_open(&oc, NULL, fixed_render, (void *)text, &o, err, errlen);
	return o;
}

static void assert_file(const char *path, const char *want, mode_t mode) {
	char buf[256] = "";
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	close(fd);
	ck_assert_str_eq(buf, want);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, mode);
}

START_TEST(test_output_file) {
	char dir[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX], victim[PATH_MAX], link[PATH_MAX],
	    sub[PATH_MAX], err[512] = "", tname[64];
	struct output_counters n;
	struct output *o;
	mode_t old_umask = umask(077);
	int r;

	test_tmpdir(dir, sizeof(dir));
	test_join(path, sizeof(path), dir, "fsnotifyd.prom");
	test_join(victim, sizeof(victim), dir, "victim");
	o = open_metrics(path, "a 1\n", err, sizeof(err), &r);
	ck_assert_msg(r == 0, "%s", err);
	output_metrics_write(o);
	assert_file(path, "a 1\n", 0644); /* 0644 whatever the umask */
	/* a temporary file planted as a symlink: removed, never followed */
	ck_assert_int_eq(close(open(victim, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)), 0);
	snprintf(tname, sizeof(tname), ".fsnotifyd.prom.%d.tmp", (int)getpid());
	test_join(tmp, sizeof(tmp), dir, tname);
	ck_assert_int_eq(symlink(victim, tmp), 0);
	output_metrics_write(o);
	assert_file(path, "a 1\n", 0644);
	assert_file(victim, "", 0600);
	ck_assert_int_eq(access(tmp, F_OK), -1); /* no temporary file left */
	output_get_counters(o, &n);
	ck_assert_uint_eq(n.written, 2);
	ck_assert_uint_eq(n.failed, 0);
	/* records are not for it */
	output_emit(o, &(struct record){ .kind = RECORD_EVENT, .rule = "r", .path = "/x" });
	assert_file(path, "a 1\n", 0644);
	/* the target replaced by a directory: the write fails, counted */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	test_join(sub, sizeof(sub), path, "inside");
	ck_assert_int_eq(close(open(sub, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)), 0);
	output_metrics_write(o);
	output_get_counters(o, &n);
	ck_assert_uint_eq(n.written, 2);
	ck_assert_uint_eq(n.failed, 1);
	ck_assert_int_eq(access(tmp, F_OK), -1);
	output_close(o);

	/* a directory that is a symbolic link is refused; one missing too */
	test_join(link, sizeof(link), dir, "linkdir");
	ck_assert_int_eq(symlink(dir, link), 0);
	test_join(path, sizeof(path), link, "x.prom");
	o = open_metrics(path, "a 1\n", err, sizeof(err), &r);
	ck_assert_ptr_null(o);
	ck_assert_int_lt(r, 0);
	ck_assert_msg(strstr(err, "not a directory"), "%s", err);
	test_join(path, sizeof(path), dir, "missing/x.prom");
	o = open_metrics(path, "a 1\n", err, sizeof(err), &r);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(r, -ENOENT);
	umask(old_umask);
	test_rm_tree(dir);
}
END_TEST

static void metrics_suite(Suite *s) {
	TCase *tc = tcase_create("metrics");

	tcase_add_test(tc, test_prom_escape);
	tcase_add_test(tc, test_prom_escape_truncates);
	tcase_add_test(tc, test_label_value);
	tcase_add_test(tc, test_latency_buckets);
	tcase_add_test(tc, test_histogram);
	tcase_add_test(tc, test_render);
	tcase_add_test(tc, test_output_file);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("metrics", metrics_suite);
