/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsnotifyctl.c — the control client of fsnotifyd (fsnotifyctl(1)): asks
 * the daemon over its control socket (varlink, doc/io.fsnotifyd.varlink;
 * varlink-client.c) and prints the answer for people, or with --json as the
 * reply's parameters. watch prints live records as fsnotifyd --foreground
 * does (record.c, the daemon's own formatter), or with --json as the json
 * output's lines.
 *
 * Usage, in short:
 *
 *   fsnotifyctl watch                          # live records, as the console prints them
 *   fsnotifyctl watch --rule etc --path '/etc/[a-z]*' --events modify,create
 *   fsnotifyctl watch --json | jq -r .path     # the json output's lines
 *   fsnotifyctl status                         # version, uptime, config, marks, rules
 *   fsnotifyctl rules                          # one line per rule, with its counters
 *   fsnotifyctl reload                         # "reloaded: 3 rules, 12 marks", or the errors
 *   fsnotifyctl explain /srv/data/file         # which rules and marks see it, and the cost
 *   fsnotifyctl metrics                        # Prometheus text
 *   fsnotifyctl --socket /run/other/control --json status
 *
 * Exit status: 0 success, 1 the daemon answered with an error (or the call
 * failed), 2 bad usage or no connection (no socket, permission denied).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "config.h"
#include "fsn-util.h"
#include "json.h"
#include "record.h"
#include "table.h"
#include "varlink-client.h"

#define DEFAULT_SOCKET "/run/fsnotifyd/control"
#define IFACE "io.fsnotifyd."

#define EXIT_ANSWER 1 /* the daemon answered with an error, or the call failed */
#define EXIT_USAGE 2  /* bad usage, or no connection */

struct ctl {
	const char *socket;
	bool json;
	struct vl_conn conn;
	/* watch */
	char **rules;
	size_t n_rules;
	const char *path;
	const char *events;
};

static void usage(FILE *f) {
	fputs("Usage: fsnotifyctl [--socket PATH] [--json] COMMAND\n"
	      "\n"
	      "Commands:\n"
	      "  status                  version, uptime, config, marks, features, rules\n"
	      "  rules                   the rules and their counters, one line each\n"
	      "  metrics                 the metrics (Prometheus text)\n"
	      "  watch [--rule R]... [--path GLOB] [--events LIST]\n"
	      "                          live records until Ctrl-C\n"
	      "  reload                  reload the config (the old one stays if it is invalid)\n"
	      "  explain PATH            which rules and marks see PATH, and the cost\n"
	      "  baseline PATH [RULE]    what a rule's baseline holds for PATH\n"
	      "  verify [RULE]           compare the rules' baselines with what is there now\n"
	      "                          (baseline records, reason verify, on their outputs)\n"
	      "\n"
	      "Options:\n"
	      "  -s, --socket PATH       the control socket (default " DEFAULT_SOCKET ")\n"
	      "  -j, --json              the reply as JSON (watch: one record per line)\n"
	      "  -h, --help, --version\n"
	      "\n"
	      "Exit status: 0 success, 1 the daemon answered with an error,\n"
	      "2 bad usage or no connection. See fsnotifyctl(1).\n",
	      f);
}

/* The text of a daemon's string, escaped for the terminal (malloc'd). */
static char *esc(const char *s) {
	char *e = ctl_fit(s ? s : "", 0);

	if (!e) {
		fputs("fsnotifyctl: out of memory\n", stderr);
		exit(EXIT_ANSWER);
	}
	return e;
}

/* Print "fsnotifyctl: what: the error" for an error reply; the exit status. */
static int report_error(const struct ctl *ctl, const char *method, const struct vl_reply *r) {
	const struct json *p = r->parameters;
	_cleanup_free_ char *name = esc(r->error);

	if (strcmp(r->error, IFACE "NoSuchRule") == 0) {
		_cleanup_free_ char *rule = esc(json_get_string(p, "rule"));

		fprintf(stderr, "fsnotifyctl: no such rule: %s\n", rule);
	} else if (strcmp(r->error, IFACE "NoBaseline") == 0) {
		_cleanup_free_ char *rule = esc(json_get_string(p, "rule"));

		if (*rule)
			fprintf(stderr,
				"fsnotifyctl: rule %s keeps no baseline (baseline = true)\n", rule);
		else
			fprintf(stderr,
				"fsnotifyctl: no rule keeps a baseline (baseline = true)\n");
	} else if (strcmp(r->error, IFACE "InvalidGlob") == 0) {
		_cleanup_free_ char *why = esc(json_get_string(p, "reason"));

		fprintf(stderr, "fsnotifyctl: --path: the daemon refused the glob: %s\n", why);
	} else if (strcmp(r->error, IFACE "ConfigInvalid") == 0) {
		const struct json *errs = json_get(p, "errors");
		_cleanup_free_ char *file = esc(json_get_string(p, "config_file"));

		fprintf(stderr, "fsnotifyctl: %s is invalid, the old config keeps running:\n",
			file);
		for (size_t i = 0; errs && errs->type == JSON_ARRAY && i < errs->n; i++)
			if (errs->values[i]->type == JSON_STRING) {
				_cleanup_free_ char *e = esc(errs->values[i]->string);

				fprintf(stderr, "%s\n", e);
			}
	} else if (strcmp(r->error, IFACE "ReloadBusy") == 0) {
		fputs("fsnotifyctl: a start or reload is running; try again when it is done\n",
		      stderr);
	} else if (strcmp(r->error, IFACE "PermissionDenied") == 0) {
		fprintf(stderr,
			"fsnotifyctl: %s refused this client (uid %.0f): root and members of the "
			"control group may connect\n",
			ctl->socket, json_get_number(p, "uid", -1));
		return EXIT_USAGE;
	} else if (strcmp(r->error, IFACE "TooManyClients") == 0) {
		fprintf(stderr,
			"fsnotifyctl: %s refused this client: %.0f connections are open, as many "
			"as it takes (control.max_clients, the last one kept for root)\n",
			ctl->socket, json_get_number(p, "max", -1));
		return EXIT_USAGE;
	} else if (strcmp(r->error, IFACE "SubscriberTooSlow") == 0) {
		fprintf(
		    stderr,
		    "fsnotifyctl: the daemon disconnected this reader (SubscriberTooSlow): %.0f "
		    "records dropped, its queue full for %.0f s\n",
		    json_get_number(p, "dropped", 0), json_get_number(p, "seconds", 0));
	} else if (strcmp(r->error, "org.varlink.service.MethodNotFound") == 0 ||
		   strcmp(r->error, "org.varlink.service.InterfaceNotFound") == 0) {
		fprintf(stderr,
			"fsnotifyctl: the daemon does not know %s (%s: an older fsnotifyd?)\n",
			method, name);
	} else {
		size_t n;
		const char *text = vl_reply_parameters_text(r, &n);
		_cleanup_free_ char *params = strndup(text, n);
		_cleanup_free_ char *pe = esc(params);

		fprintf(stderr, "fsnotifyctl: %s failed: %s %s\n", method, name, pe);
	}
	return EXIT_ANSWER;
}

static int connect_daemon(struct ctl *ctl) {
	int r = vl_connect(&ctl->conn, ctl->socket);

	if (r >= 0)
		return 0;
	fprintf(stderr, "fsnotifyctl: cannot connect to %s: %s%s\n", ctl->socket, strerror(-r),
		r == -ENOENT || r == -ECONNREFUSED ? " (is fsnotifyd running?)"
		: r == -EACCES || r == -EPERM      ? " (root and members of the control group may "
						     "connect)"
						   : "");
	return EXIT_USAGE;
}

static int read_failed(const struct ctl *ctl, const char *method, int r) {
	if (r == -ECONNRESET)
		fprintf(stderr, "fsnotifyctl: %s: the daemon closed the connection\n", method);
	else if (r == -EMSGSIZE)
		fprintf(stderr, "fsnotifyctl: %s: the reply is larger than %u MiB\n", method,
			VL_MAX_MESSAGE >> 20);
	else if (r == -EBADMSG)
		fprintf(stderr, "fsnotifyctl: %s: the daemon sent something that is not a reply\n",
			method);
	else
		fprintf(stderr, "fsnotifyctl: %s: reading from %s: %s\n", method, ctl->socket,
			strerror(-r));
	return EXIT_ANSWER;
}

/* Sending method failed with r: the daemon may have refused this client
 * and said why before it closed (TooManyClients, PermissionDenied), so
 * that is read and printed; else the error. The exit status. */
static int send_failed(struct ctl *ctl, const char *method, int r) {
	struct vl_reply rep;
	int k;

	if (vl_read_refusal(&ctl->conn, r, &rep) == 0) {
		k = rep.error ? report_error(ctl, method, &rep) : -1;
		vl_reply_done(&rep);
		if (k >= 0)
			return k;
	}
	fprintf(stderr, "fsnotifyctl: %s: writing to %s: %s\n", method, ctl->socket, strerror(-r));
	return EXIT_ANSWER;
}

/* Call method (its short name) and read the reply: 0 with *ret, or the
 * exit status, the cause printed. */
static int call(struct ctl *ctl, const char *method, const char *params, struct vl_reply *ret) {
	char full[128];
	int r;

	snprintf(full, sizeof(full), IFACE "%s", method);
	r = connect_daemon(ctl);
	if (r > 0)
		return r;
	r = vl_call(&ctl->conn, full, params, false);
	if (r < 0)
		return send_failed(ctl, method, r);
	r = vl_read(&ctl->conn, ret, NULL);
	if (r < 0)
		return read_failed(ctl, method, r);
	if (ret->error) {
		r = report_error(ctl, full, ret);
		vl_reply_done(ret);
		return r;
	}
	return 0;
}

static void print_parameters(const struct vl_reply *r) {
	size_t n;
	const char *text = vl_reply_parameters_text(r, &n);

	fwrite(text, 1, n, stdout);
	fputc('\n', stdout);
}

/* COLUMNS when set (also for a pipe: a script can ask), else the terminal's
 * width, else 0: no limit. */
static size_t output_width(void) {
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (*end == '\0' && v > 0 && v < 100000)
			return v;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

static const char *bytes(double v, char *buf, size_t len) {
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (v >= 1024 && u < ELEMENTSOF(units) - 1) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
	return buf;
}

static const char *duration(double usec, char *buf, size_t len) {
	uint64_t s = usec > 0 ? (uint64_t)(usec / 1e6) : 0;

	if (s >= 86400)
		snprintf(buf, len, "%" PRIu64 "d %" PRIu64 "h %" PRIu64 "m", s / 86400,
			 s % 86400 / 3600, s % 3600 / 60);
	else if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 "h %" PRIu64 "m %" PRIu64 "s", s / 3600,
			 s % 3600 / 60, s % 60);
	else if (s >= 60)
		snprintf(buf, len, "%" PRIu64 "m %" PRIu64 "s", s / 60, s % 60);
	else
		snprintf(buf, len, "%" PRIu64 "s", s);
	return buf;
}

/* The strings of an array, escaped, separated by sep. */
static void print_list(const struct json *a, const char *sep) {
	bool first = true;

	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const struct json *v = a->values[i];
		_cleanup_free_ char *e = NULL;

		if (v->type != JSON_STRING)
			continue;
		e = esc(v->string);
		printf("%s%s", first ? "" : sep, e);
		first = false;
	}
	if (first)
		fputs("-", stdout);
}

static void print_status(const struct vl_reply *r) {
	const struct json *p = r->parameters, *rb, *queues;
	const char *err;
	char b1[32], b2[32], b3[32], up[64];

	{
		_cleanup_free_ char *version = esc(json_get_string(p, "version"));
		_cleanup_free_ char *file = esc(json_get_string(p, "config_file"));
		_cleanup_free_ char *loaded = esc(json_get_string(p, "config_loaded"));

		printf("fsnotifyd %s, pid %.0f, up %s\n", version, json_get_number(p, "pid", 0),
		       duration(json_get_number(p, "uptime_usec", 0), up, sizeof(up)));
		printf("config:       %s, loaded %s\n", file, loaded);
	}
	err = json_get_string(p, "last_reload_error");
	if (err) {
		_cleanup_free_ char *e = esc(err);

		printf("last reload:  failed: %s\n", e);
	} else
		printf("last reload:  ok\n");
	printf("marks:        %.0f in %.0f groups; subscribers: %.0f\n",
	       json_get_number(p, "marks", 0), json_get_number(p, "groups", 0),
	       json_get_number(p, "subscribers", 0));
	queues = json_get(p, "queues");
	for (size_t i = 0; queues && queues->type == JSON_ARRAY && i < queues->n; i++) {
		const struct json *q = queues->values[i];
		_cleanup_free_ char *src = esc(json_get_string(q, "source"));
		double len = json_get_number(q, "length", 0);

		if (len > 0)
			printf("%s%s (queue %.0f)\n", i == 0 ? "queues:       " : "              ",
			       src, len);
		else
			printf("%s%s (queue unlimited)\n",
			       i == 0 ? "queues:       " : "              ", src);
	}
	rb = json_get(p, "read_buffer");
	if (rb)
		printf("read buffer:  %s now, peak %s, of %s; full %.0f times\n",
		       bytes(json_get_number(rb, "bytes", 0), b1, sizeof(b1)),
		       bytes(json_get_number(rb, "peak", 0), b2, sizeof(b2)),
		       bytes(json_get_number(rb, "max", 0), b3, sizeof(b3)),
		       json_get_number(rb, "full", 0));
	printf("handled:      %.0f events, %.0f overflows, %.0f records lost by outputs\n",
	       json_get_number(p, "events", 0), json_get_number(p, "overflows", 0),
	       json_get_number(p, "output_lost", 0));
	printf("features:     ");
	print_list(json_get(p, "features"), " ");
	printf("\n\n");
	ctl_rules_table(stdout, json_get(p, "rules"), output_width());
}

static void print_rules(const struct vl_reply *r) {
	ctl_rules_table(stdout, json_get(r->parameters, "rules"), output_width());
}

static void print_metrics(const struct vl_reply *r) {
	const char *text = json_get_string(r->parameters, "text");

	if (text)
		fputs(text, stdout);
}

static void print_reload(const struct vl_reply *r) {
	printf("reloaded: %.0f rules, %.0f marks\n", json_get_number(r->parameters, "rules", 0),
	       json_get_number(r->parameters, "marks", 0));
}

static void print_verify(const struct vl_reply *r) {
	const struct json *rules = json_get(r->parameters, "rules");

	if (!rules || rules->type != JSON_ARRAY || rules->n == 0) {
		puts("no rule keeps a baseline");
		return;
	}
	fputs("comparing the baseline of ", stdout);
	print_list(rules, ", ");
	puts(": its differences go to the rules' outputs as baseline records (reason "
	     "verify); fsnotifyctl watch shows them");
}

/* A file time of attrs: its RFC 3339 text, or "@SECONDS" for a year RFC
 * 3339 cannot write (the record gives a number then) */
static const char *attr_time(const struct json *a, const char *key, char *buf, size_t len) {
	const char *s = json_get_string(a, key);

	if (s)
		return s;
	snprintf(buf, len, "@%.0f", json_get_number(a, key, 0));
	return buf;
}

static void print_baseline(const struct vl_reply *r) {
	const struct json *o = json_get(r->parameters, "object");
	const struct json *a = o ? json_get(o, "attrs") : NULL;
	_cleanup_free_ char *path = esc(o ? json_get_string(o, "path") : "");
	_cleanup_free_ char *rule = esc(json_get_string(r->parameters, "rule"));
	_cleanup_free_ char *target = esc(o ? json_get_string(o, "target") : NULL);
	const char *sha = o ? json_get_string(o, "sha256") : NULL;
	char mtime[32], ctime[32];

	if (!o || !a) {
		puts("no baseline holds it");
		return;
	}
	printf("%s (rule %s), recorded %s:\n", path, rule, json_get_string(o, "recorded"));
	printf("  %s %s, uid %.0f gid %.0f, %.0f bytes, mtime %s, ctime %s, inode %.0f, "
	       "%.0f link(s)\n",
	       json_get_string(a, "type"), json_get_string(a, "mode"), json_get_number(a, "uid", 0),
	       json_get_number(a, "gid", 0), json_get_number(a, "size", 0),
	       attr_time(a, "mtime", mtime, sizeof(mtime)),
	       attr_time(a, "ctime", ctime, sizeof(ctime)), json_get_number(a, "ino", 0),
	       json_get_number(a, "nlink", 0));
	if (sha)
		printf("  sha256 %s\n", sha);
	if (json_get_string(o, "target"))
		printf("  -> %s\n", target);
}

static void print_mark(const struct json *m) {
	_cleanup_free_ char *kind = esc(json_get_string(m, "kind"));
	_cleanup_free_ char *object = esc(json_get_string(m, "object"));
	const char *group = json_get_string(m, "group"), *why = json_get_string(m, "why");

	printf("    %s %s: ", kind, object);
	print_list(json_get(m, "mask"), ",");
	if (group) {
		_cleanup_free_ char *g = esc(group);

		printf(" (group %s)", g);
	}
	if (!json_get_bool(m, "placed", true))
		fputs(" NOT PLACED", stdout);
	if (why) {
		_cleanup_free_ char *w = esc(why);

		printf(": %s", w);
	}
	fputc('\n', stdout);
}

static void print_explain(const struct vl_reply *r) {
	const struct json *rules = json_get(r->parameters, "rules");

	{
		const char *rp = json_get_string(r->parameters, "path");
		_cleanup_free_ char *p = esc(rp ? rp : "?");

		if (!rules || rules->type != JSON_ARRAY || rules->n == 0)
			printf("%s: no rule sees events here\n", p);
		else
			printf("%s:\n", p);
	}
	for (size_t i = 0; rules && rules->type == JSON_ARRAY && i < rules->n; i++) {
		const struct json *er = rules->values[i], *marks = json_get(er, "marks");
		_cleanup_free_ char *name = esc(json_get_string(er, "rule"));
		_cleanup_free_ char *cost = esc(json_get_string(er, "cost"));

		printf("  rule %s\n", name);
		for (size_t j = 0; marks && marks->type == JSON_ARRAY && j < marks->n; j++)
			print_mark(marks->values[j]);
		printf("    cost: %s\n", cost);
	}
}

/* A call with one reply: printed by print, or with --json as it came. */
static int simple_call(struct ctl *ctl, const char *method, const char *params,
		       void (*print)(const struct vl_reply *r)) {
	struct vl_reply r;
	int k = call(ctl, method, params, &r);

	if (k > 0)
		return k;
	if (ctl->json)
		print_parameters(&r);
	else
		print(&r);
	vl_reply_done(&r);
	return 0;
}

/* {"key":"value"[,"key2":"value2"]} (value2 NULL: not there; malloc'd;
 * NULL without memory). */
static char *params_of(const char *key, const char *value, const char *key2, const char *value2) {
	char *params = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&params, &n);

	if (!f)
		return NULL;
	fprintf(f, "{\"%s\":", key);
	vl_write_string(f, value);
	if (value2) {
		fprintf(f, ",\"%s\":", key2);
		vl_write_string(f, value2);
	}
	fputc('}', f);
	if (fclose(f) != 0) {
		free(params);
		return NULL;
	}
	return params;
}

static int cmd_explain(struct ctl *ctl, const char *path) {
	_cleanup_free_ char *params = params_of("path", path, NULL, NULL);

	return params ? simple_call(ctl, "Explain", params, print_explain) : EXIT_ANSWER;
}

static int cmd_baseline(struct ctl *ctl, const char *path, const char *rule) {
	_cleanup_free_ char *params = params_of("path", path, "rule", rule);

	return params ? simple_call(ctl, "Baseline", params, print_baseline) : EXIT_ANSWER;
}

static int cmd_verify(struct ctl *ctl, const char *rule) {
	_cleanup_free_ char *params = rule ? params_of("rule", rule, NULL, NULL) : NULL;

	if (rule && !params)
		return EXIT_ANSWER;
	return simple_call(ctl, "Verify", params, print_verify);
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) {
	stop_signal = sig;
}

/* {"rules":[...],"path":"...","events":[...]}, the filters given */
static char *watch_params(const struct ctl *ctl) {
	char *params = NULL;
	size_t n = 0;
	const char *sep = "";
	FILE *f = open_memstream(&params, &n);

	if (!f)
		return NULL;
	fputc('{', f);
	if (ctl->n_rules > 0) {
		fputs("\"rules\":[", f);
		for (size_t i = 0; i < ctl->n_rules; i++) {
			fputs(i ? "," : "", f);
			vl_write_string(f, ctl->rules[i]);
		}
		fputc(']', f);
		sep = ",";
	}
	if (ctl->path) {
		fprintf(f, "%s\"path\":", sep);
		vl_write_string(f, ctl->path);
		sep = ",";
	}
	if (ctl->events) {
		_cleanup_free_ char *list = strdup(ctl->events);
		const char *s2 = "";
		char *save = NULL;

		fprintf(f, "%s\"events\":[", sep);
		for (char *w = list ? strtok_r(list, ", ", &save) : NULL; w;
		     w = strtok_r(NULL, ", ", &save)) {
			fputs(s2, f);
			vl_write_string(f, w);
			s2 = ",";
		}
		fputc(']', f);
	}
	fputc('}', f);
	if (fclose(f) != 0) {
		free(params);
		return NULL;
	}
	return params;
}

static int print_record(const struct ctl *ctl, const struct vl_reply *r) {
	const struct json *rec = json_get(r->parameters, "record");
	_cleanup_free_ char *line = NULL;
	size_t n;
	const char *raw;

	if (!rec)
		return 0; /* (a reply without a record: nothing to print) */
	if (ctl->json) {
		raw = vl_reply_member_text(r, "record", &n);
		fwrite(raw, 1, n, stdout);
		fputc('\n', stdout);
	} else if (ctl_record_text(rec, &line) == 0)
		fputs(line, stdout);
	else {
		_cleanup_free_ char *text = strndup(r->text + rec->start, rec->end - rec->start);
		_cleanup_free_ char *e = esc(text);

		printf("(a record fsnotifyctl does not know: %s)\n", e);
	}
	return fflush(stdout) == 0 ? 0 : -errno;
}

static int cmd_watch(struct ctl *ctl) {
	_cleanup_free_ char *params = watch_params(ctl);
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block, old;
	int r;

	if (!params)
		return EXIT_ANSWER;
	r = connect_daemon(ctl);
	if (r > 0)
		return r;
	/* SIGINT and SIGTERM come only in ppoll(): no read is left hanging */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigdelset(&old, SIGINT);
	sigdelset(&old, SIGTERM);

	r = vl_call(&ctl->conn, IFACE "Watch", params, true);
	if (r < 0)
		return send_failed(ctl, "Watch", r);
	for (;;) {
		struct vl_reply rep;
		bool more;

		r = vl_read(&ctl->conn, &rep, &old);
		if (stop_signal)
			return 0;
		if (r == -EINTR)
			continue;
		if (r < 0)
			return read_failed(ctl, "Watch", r);
		if (rep.error) {
			r = report_error(ctl, IFACE "Watch", &rep);
			vl_reply_done(&rep);
			return r;
		}
		r = print_record(ctl, &rep);
		more = rep.continues;
		vl_reply_done(&rep);
		if (r < 0) {
			fprintf(stderr, "fsnotifyctl: writing the records: %s\n", strerror(-r));
			return EXIT_ANSWER;
		}
		if (!more) {
			fprintf(stderr, "fsnotifyctl: Watch: the daemon ended the stream\n");
			return EXIT_ANSWER;
		}
	}
}

int main(int argc, char **argv) {
	enum { OPT_VERSION = 0x100 };
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "rule", required_argument, NULL, 'r' },
		{ "path", required_argument, NULL, 'p' },
		{ "events", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl ctl = { .socket = DEFAULT_SOCKET, .conn = { .fd = -1 } };
	_cleanup_free_ char **rules = calloc((size_t)argc + 1, sizeof(char *));
	const char *cmd;
	bool watch_opts = false;
	int c, r;

	if (!rules)
		return EXIT_ANSWER;
	ctl.rules = rules;
	while ((c = getopt_long(argc, argv, "s:jh", options, NULL)) >= 0) {
		switch (c) {
		case 's': ctl.socket = optarg; break;
		case 'j': ctl.json = true; break;
		case 'r':
			ctl.rules[ctl.n_rules++] = optarg;
			watch_opts = true;
			break;
		case 'p':
			ctl.path = optarg;
			watch_opts = true;
			break;
		case 'e':
			ctl.events = optarg;
			watch_opts = true;
			break;
		case 'h': usage(stdout); return 0;
		case OPT_VERSION: puts("fsnotifyctl " FSN_VERSION); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("fsnotifyctl: a command is needed\n", stderr);
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (watch_opts && strcmp(cmd, "watch") != 0) {
		fprintf(stderr, "fsnotifyctl: --rule, --path and --events are options of watch\n");
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "explain") == 0) {
		if (argc - optind != 1) {
			fputs("fsnotifyctl: explain takes one PATH\n", stderr);
			return EXIT_USAGE;
		}
		r = cmd_explain(&ctl, argv[optind]);
	} else if (strcmp(cmd, "baseline") == 0) {
		if (argc - optind < 1 || argc - optind > 2) {
			fputs("fsnotifyctl: baseline takes a PATH and at most one RULE\n", stderr);
			return EXIT_USAGE;
		}
		r = cmd_baseline(&ctl, argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL);
	} else if (strcmp(cmd, "verify") == 0) {
		if (argc - optind > 1) {
			fputs("fsnotifyctl: verify takes at most one RULE\n", stderr);
			return EXIT_USAGE;
		}
		r = cmd_verify(&ctl, optind < argc ? argv[optind] : NULL);
	} else if (optind < argc) {
		fprintf(stderr, "fsnotifyctl: %s takes no arguments\n", cmd);
		return EXIT_USAGE;
	} else if (strcmp(cmd, "status") == 0)
		r = simple_call(&ctl, "GetStatus", NULL, print_status);
	else if (strcmp(cmd, "rules") == 0)
		r = simple_call(&ctl, "ListRules", NULL, print_rules);
	else if (strcmp(cmd, "metrics") == 0)
		r = simple_call(&ctl, "GetMetrics", NULL, print_metrics);
	else if (strcmp(cmd, "reload") == 0)
		r = simple_call(&ctl, "Reload", NULL, print_reload);
	else if (strcmp(cmd, "watch") == 0)
		r = cmd_watch(&ctl);
	else {
		_cleanup_free_ char *e = esc(cmd);

		fprintf(stderr, "fsnotifyctl: unknown command: %s\n", e);
		usage(stderr);
		return EXIT_USAGE;
	}
	vl_close(&ctl.conn);
	if (r == 0 && fflush(stdout) != 0) {
		fprintf(stderr, "fsnotifyctl: writing the output: %s\n", strerror(errno));
		return EXIT_ANSWER;
	}
	return r;
}
