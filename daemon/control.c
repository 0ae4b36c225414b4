/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.c — io.fsnotifyd on the control socket (control.h,
 * doc/io.fsnotifyd.varlink).
 *
 * Methods answer from the running state on the loop, at once, except
 * Reload (answered when the load is over) and Watch (a subscriber: every
 * record the engine reports, after the outputs, goes to each subscriber
 * whose filters it passes; its JSON is formatted once per record, and only
 * when some subscriber wants it). The filters cost little per record
 * whatever a client sends: rules are compared once each, events as a
 * mask, and the path glob is compiled at Watch (globmatch.c: at most 1024
 * bytes, matched in a few word operations a byte of the path, never
 * backtracking). A subscriber's queue is bounded (varlink.c): what does
 * not fit is dropped and counted, never waited for, so no client can slow
 * the loop, and the permission thread never sees the socket at all.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "config.h"
#include "control.h"
#include "engine.h"
#include "baseline.h"
#include "escape.h"
#include "globmatch.h"
#include "jbuf.h"
#include "json.h"
#include "log.h"
#include "origin.h"
#include "metrics.h"
#include "output.h"
#include "util.h"
#include "varlink.h"

#include "io.fsnotifyd.varlink.h" /* interface_text: the interface description */

#define IFACE "io.fsnotifyd."

struct sub {
	struct control *ctl;
	struct vl_conn *conn;
	struct sub *prev, *next;
	char **rules; /* each rule once */
	size_t n_rules;
	struct globmatch *glob; /* the path filter, compiled */
	uint64_t events;        /* 0: any */
};

/* A connection's state: a Reload waits, or it is a subscriber. */
struct client {
	bool reload_waiting;
	uint64_t lookup; /* a Baseline call waits for this lookup (0: none) */
	struct sub *sub;
};

struct control {
	struct ev_loop *loop;
	struct engine *engine;
	char *config_path;
	uint64_t start_usec;  /* monotonic */
	uint64_t loaded_usec; /* realtime: the running config took over */
	struct control_hooks hooks;
	struct vl_server *srv;
	char *socket_path;
	gid_t gid;
	struct sub *subs;
	unsigned n_subs;
	struct vl_conn **waiters; /* Reload calls waiting for the load */
	size_t n_waiters;
	struct vl_conn **lookups; /* Baseline calls waiting for the baseline thread */
	size_t n_lookups;
	uint64_t next_lookup;
	struct jbuf line; /* the record being published */
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

static void answer(struct vl_conn *c, struct jbuf *b) {
	if (b->oom)
		vl_error(c, "org.varlink.service.InvalidParameter",
			 "{\"parameter\":\"out of memory\"}");
	else
		vl_reply(c, b->s, false);
	jb_free(b);
}

/* Answer with error and the parameters {"key": value}. */
static void error_with(struct vl_conn *c, const char *error, const char *key, const char *value) {
	struct jbuf b = { 0 };

	jb_puts(&b, "{");
	jb_key(&b, key, true);
	jb_str(&b, value);
	jb_puts(&b, "}");
	vl_error(c, error, b.oom ? NULL : b.s);
	jb_free(&b);
}

static void invalid_parameter(struct vl_conn *c, const char *name) {
	error_with(c, "org.varlink.service.InvalidParameter", "parameter", name);
}

static struct client *client_of(struct vl_conn *c) {
	struct client *cl = vl_conn_get_data(c);

	if (!cl) {
		cl = calloc(1, sizeof(*cl));
		vl_conn_set_data(c, cl);
	}
	return cl;
}

static void put_time(struct jbuf *b, uint64_t usec) {
	char t[64];

	format_time_usec(t, sizeof(t), usec);
	jb_str(b, t);
}

/* ------------------------------------------------------------------------ */
/* methods                                                                  */
/* ------------------------------------------------------------------------ */

static void get_status(struct control *ctl, struct vl_conn *c) {
	struct jbuf b = { 0 };

	jb_puts(&b, "{");
	jb_key(&b, "version", true);
	jb_str(&b, FSN_VERSION);
	jb_key(&b, "pid", false);
	jb_u64(&b, (uint64_t)getpid());
	jb_key(&b, "uptime_usec", false);
	jb_u64(&b, now_monotonic_usec() - ctl->start_usec);
	jb_key(&b, "config_file", false);
	jb_str(&b, ctl->config_path);
	jb_key(&b, "config_loaded", false);
	put_time(&b, ctl->loaded_usec);
	jb_key(&b, "rules", false);
	engine_rules_json(ctl->engine, &b);
	engine_status_json(ctl->engine, &b);
	jb_key(&b, "subscribers", false);
	jb_u64(&b, ctl->n_subs);
	jb_puts(&b, "}");
	answer(c, &b);
}

static void list_rules(struct control *ctl, struct vl_conn *c) {
	struct jbuf b = { 0 };

	jb_puts(&b, "{\"rules\":");
	engine_rules_json(ctl->engine, &b);
	jb_puts(&b, "}");
	answer(c, &b);
}

static void reload(struct control *ctl, struct vl_conn *c) {
	struct client *cl = client_of(c);
	int r;

	if (!cl) {
		invalid_parameter(c, "out of memory");
		return;
	}
	{
		struct vl_conn **w = realloc(ctl->waiters, (ctl->n_waiters + 1) * sizeof(*w));

		if (!w) {
			invalid_parameter(c, "out of memory");
			return;
		}
		ctl->waiters = w;
	}
	r = ctl->hooks.reload ? ctl->hooks.reload(ctl->hooks.userdata) : -EOPNOTSUPP;
	if (r < 0) {
		vl_error(c, IFACE "ReloadBusy", NULL);
		return;
	}
	cl->reload_waiting = true; /* control_reload_done() answers */
	ctl->waiters[ctl->n_waiters++] = c;
}

static void sub_free(struct sub *s) {
	struct control *ctl = s->ctl;

	if (s->prev)
		s->prev->next = s->next;
	else
		ctl->subs = s->next;
	if (s->next)
		s->next->prev = s->prev;
	ctl->n_subs--;
	strv_free(s->rules, s->n_rules);
	globmatch_free(s->glob);
	free(s);
}

static bool has_rule(const struct sub *s, const char *name) {
	for (size_t i = 0; i < s->n_rules; i++)
		if (strcmp(s->rules[i], name) == 0)
			return true;
	return false;
}

/* Watch's path filter compiled into s->glob (globmatch.h: matching costs
 * at most a few word operations a byte of the path, whatever the
 * pattern); false after answering InvalidGlob, naming the limit. */
static bool watch_glob(struct vl_conn *c, const char *pattern, struct sub *s) {
	const char *why = NULL;
	char reason[128];
	struct jbuf b = { 0 };
	int r = globmatch_new(pattern, &s->glob, &why);

	if (r == 0)
		return true;
	if (r == -ENOMEM) {
		invalid_parameter(c, "out of memory");
		return false;
	}
	if (r == -E2BIG) {
		snprintf(reason, sizeof(reason),
			 "the glob is %zu bytes, longer than the %d allowed", strlen(pattern),
			 GLOBMATCH_MAX);
		why = reason;
	}
	jb_puts(&b, "{");
	jb_key(&b, "reason", true);
	jb_str(&b, why);
	jb_key(&b, "max_bytes", false);
	jb_u64(&b, GLOBMATCH_MAX);
	jb_puts(&b, "}");
	vl_error(c, IFACE "InvalidGlob", b.oom ? NULL : b.s);
	jb_free(&b);
	return false;
}

/* Watch's filters; false after answering InvalidParameter (or
 * NoSuchRule, InvalidGlob). */
static bool watch_filters(struct vl_conn *c, const struct json *p, struct sub *s) {
	const struct json *rules = json_get(p, "rules"), *path = json_get(p, "path"),
			  *events = json_get(p, "events");

	if (rules && rules->type != JSON_NULL) {
		if (rules->type != JSON_ARRAY) {
			invalid_parameter(c, "rules");
			return false;
		}
		s->rules = calloc(rules->n + 1, sizeof(char *));
		for (size_t i = 0; s->rules && i < rules->n; i++) {
			if (rules->values[i]->type != JSON_STRING) {
				invalid_parameter(c, "rules");
				return false;
			}
			if (!engine_rule_stats(s->ctl->engine, rules->values[i]->string)) {
				error_with(c, IFACE "NoSuchRule", "rule", rules->values[i]->string);
				return false;
			}
			/* (once each: at most the config's rules to compare a record with) */
			if (has_rule(s, rules->values[i]->string))
				continue;
			s->rules[s->n_rules] = strdup(rules->values[i]->string);
			if (!s->rules[s->n_rules++])
				return invalid_parameter(c, "out of memory"), false;
		}
		if (!s->rules)
			return invalid_parameter(c, "out of memory"), false;
	}
	if (path && path->type != JSON_NULL) {
		if (path->type != JSON_STRING) {
			invalid_parameter(c, "path");
			return false;
		}
		if (!watch_glob(c, path->string, s))
			return false;
	}
	if (events && events->type != JSON_NULL) {
		if (events->type != JSON_ARRAY) {
			invalid_parameter(c, "events");
			return false;
		}
		for (size_t i = 0; i < events->n; i++) {
			uint64_t m = 0;

			if (events->values[i]->type != JSON_STRING ||
			    fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, events->values[i]->string, &m,
					   NULL, 0) < 0 ||
			    m == 0) {
				invalid_parameter(c, "events");
				return false;
			}
			s->events |= m;
		}
	}
	return true;
}

static void watch(struct control *ctl, struct vl_conn *c, const struct vl_call *call) {
	struct client *cl = client_of(c);
	struct sub *s;

	if (!call->more) {
		vl_error(c, "org.varlink.service.ExpectedMore", NULL);
		return;
	}
	s = cl ? calloc(1, sizeof(*s)) : NULL;
	if (!s) {
		invalid_parameter(c, "out of memory");
		return;
	}
	s->ctl = ctl;
	s->conn = c;
	s->next = ctl->subs;
	if (ctl->subs)
		ctl->subs->prev = s;
	ctl->subs = s;
	ctl->n_subs++;
	if (call->params && !watch_filters(c, call->params, s)) {
		sub_free(s);
		return;
	}
	cl->sub = s;
	log_debug("control: subscriber pid %d uid %u", (int)vl_conn_pid(c),
		  (unsigned)vl_conn_uid(c));
}

static void explain(struct control *ctl, struct vl_conn *c, const struct vl_call *call) {
	const char *path = call->params ? json_get_string(call->params, "path") : NULL;
	_cleanup_free_ char *norm = NULL;
	const char *why = NULL;
	struct jbuf b = { 0 };

	if (!path || config_normalize_path(path, &norm, &why) < 0) {
		invalid_parameter(c, "path");
		return;
	}
	engine_path_marks_json(ctl->engine, norm, &b);
	answer(c, &b);
}

static void verify(struct control *ctl, struct vl_conn *c, const struct vl_call *call) {
	const char *rule = call->params ? json_get_string(call->params, "rule") : NULL;
	struct jbuf b = { 0 };
	int r;

	jb_puts(&b, "{\"rules\":");
	r = engine_baseline_verify(ctl->engine, rule, &b);
	if (r == -ENOENT) {
		jb_free(&b);
		error_with(c, IFACE "NoSuchRule", "rule", rule);
		return;
	}
	if (r == -EINVAL) {
		jb_free(&b);
		error_with(c, IFACE "NoBaseline", "rule", rule);
		return;
	}
	jb_puts(&b, "}");
	answer(c, &b);
}

/* The baseline thread looked (token): the Baseline call waiting for it,
 * if its client is still there, gets what it found. */
static void on_found(void *userdata, uint64_t token, int r, const char *rule,
		     const struct baseline_object *o) {
	struct control *ctl = userdata;
	struct vl_conn *c = NULL;
	struct jbuf b = { 0 };
	char attrs[1024], stamp[96];

	for (size_t i = 0; i < ctl->n_lookups && !c; i++) {
		struct client *cl = vl_conn_get_data(ctl->lookups[i]);

		if (cl && cl->lookup == token) {
			c = ctl->lookups[i];
			ctl->lookups[i] = ctl->lookups[--ctl->n_lookups];
			cl->lookup = 0;
		}
	}
	if (!c)
		return; /* (gone meanwhile) */
	if (r < 0) {
		error_with(c, IFACE "BaselineFailed", "reason", strerror(-r));
		return;
	}
	if (r == 0 || !o) {
		jb_puts(&b, "{}"); /* (nothing under that path) */
		answer(c, &b);
		return;
	}
	record_attrs_to_json(&o->attrs, attrs, sizeof(attrs));
	format_time_usec(stamp, sizeof(stamp), o->seen_usec);
	jb_puts(&b, "{\"rule\":");
	jb_str(&b, rule);
	jb_puts(&b, ",\"object\":{\"path\":");
	jb_str(&b, o->path);
	jb_puts(&b, ",\"attrs\":");
	jb_puts(&b, attrs);
	jb_puts(&b, ",\"sha256\":");
	if (o->sha256[0])
		jb_str(&b, o->sha256);
	else
		jb_puts(&b, "null");
	jb_puts(&b, ",\"target\":");
	if (o->target)
		jb_str(&b, o->target);
	else
		jb_puts(&b, "null");
	jb_puts(&b, ",\"recorded\":");
	jb_str(&b, stamp);
	jb_puts(&b, "}}");
	answer(c, &b);
}

static void baseline_call(struct control *ctl, struct vl_conn *c, const struct vl_call *call) {
	const char *path = call->params ? json_get_string(call->params, "path") : NULL;
	const char *rule = call->params ? json_get_string(call->params, "rule") : NULL;
	_cleanup_free_ char *norm = NULL;
	struct client *cl = client_of(c);
	struct vl_conn **v;
	const char *why = NULL;
	int r;

	if (!path || config_normalize_path(path, &norm, &why) < 0) {
		invalid_parameter(c, "path");
		return;
	}
	if (!cl || !(v = realloc(ctl->lookups, (ctl->n_lookups + 1) * sizeof(*v)))) {
		invalid_parameter(c, "out of memory");
		return;
	}
	ctl->lookups = v;
	r = engine_baseline_lookup(ctl->engine, rule, norm, ++ctl->next_lookup, on_found, ctl);
	if (r == -ENOENT) {
		error_with(c, IFACE "NoBaseline", "rule", rule ? rule : "");
		return;
	}
	if (r < 0) {
		error_with(c, IFACE "BaselineFailed", "reason", strerror(-r));
		return;
	}
	cl->lookup = ctl->next_lookup; /* on_found() answers */
	ctl->lookups[ctl->n_lookups++] = c;
}

static void get_metrics(struct control *ctl, struct vl_conn *c) {
	_cleanup_free_ char *text = NULL;
	struct jbuf b = { 0 };
	size_t len = 0;

	if (metrics_render(ctl->engine, &text, &len) < 0) {
		invalid_parameter(c, "out of memory");
		return;
	}
	jb_puts(&b, "{\"text\":");
	jb_str(&b, text);
	jb_puts(&b, "}");
	answer(c, &b);
}

static void get_info(struct vl_conn *c) {
	struct jbuf b = { 0 };

	jb_puts(&b, "{\"vendor\":\"fsnotifyd\",\"product\":\"fsnotifyd\",\"version\":");
	jb_str(&b, FSN_VERSION);
	jb_puts(&b, ",\"url\":\"man:fsnotifyctl(1)\",\"interfaces\":"
		    "[\"org.varlink.service\",\"io.fsnotifyd\"]}");
	answer(c, &b);
}

static void get_interface_description(struct vl_conn *c, const struct vl_call *call) {
	const char *name = call->params ? json_get_string(call->params, "interface") : NULL;
	struct jbuf b = { 0 };

	if (!name || strcmp(name, "io.fsnotifyd") != 0) {
		vl_error(c, "org.varlink.service.InterfaceNotFound", NULL);
		return;
	}
	jb_puts(&b, "{\"description\":");
	jb_str(&b, interface_text);
	jb_puts(&b, "}");
	answer(c, &b);
}

static void on_call(struct vl_conn *c, const struct vl_call *call, void *userdata) {
	struct control *ctl = userdata;
	const char *m = call->method;

	if (strcmp(m, IFACE "GetStatus") == 0)
		get_status(ctl, c);
	else if (strcmp(m, IFACE "ListRules") == 0)
		list_rules(ctl, c);
	else if (strcmp(m, IFACE "GetMetrics") == 0)
		get_metrics(ctl, c);
	else if (strcmp(m, IFACE "Reload") == 0)
		reload(ctl, c);
	else if (strcmp(m, IFACE "Watch") == 0)
		watch(ctl, c, call);
	else if (strcmp(m, IFACE "Explain") == 0)
		explain(ctl, c, call);
	else if (strcmp(m, IFACE "Verify") == 0)
		verify(ctl, c, call);
	else if (strcmp(m, IFACE "Baseline") == 0)
		baseline_call(ctl, c, call);
	else if (strcmp(m, "org.varlink.service.GetInfo") == 0)
		get_info(c);
	else if (strcmp(m, "org.varlink.service.GetInterfaceDescription") == 0)
		get_interface_description(c, call);
	else
		error_with(c, "org.varlink.service.MethodNotFound", "method", m);
}

/* ------------------------------------------------------------------------ */
/* subscribers                                                              */
/* ------------------------------------------------------------------------ */

/* Whether s wants r; path_len: strlen(r->path). */
static bool sub_wants(const struct sub *s, const struct record *r, size_t path_len) {
	/* (a content record has the events of the record it follows, if any) */
	bool lifecycle = r->kind != RECORD_EVENT && r->kind != RECORD_DECISION &&
			 !(r->kind == RECORD_CONTENT && r->mask);

	if (s->n_rules > 0 && r->rule) {
		bool found = false;

		for (size_t i = 0; i < s->n_rules && !found; i++)
			found = strcmp(s->rules[i], r->rule) == 0;
		if (!found)
			return false;
	}
	if (s->events && !lifecycle && !(r->mask & s->events))
		return false;
	if (s->glob && r->path && !globmatch_match(s->glob, r->path, path_len, NULL))
		return false;
	if (s->glob && !r->path && !lifecycle)
		return false;
	return true;
}

/* The whole Watch reply of r into ctl->line:
 * {"parameters":{"record":LINE},"continues":true}, LINE its JSON line
 * without the '\n'. */
static bool format_record(struct control *ctl, const struct record *orig) {
	struct record with_origin = *orig, *r = &with_origin;
	char stack[16384];
	int n;

	with_origin.origin = origin_get(); /* (no stream: a subscriber's is filtered) */
	n = record_to_json(r, stack, sizeof(stack));

	jb_reset(&ctl->line);
	jb_puts(&ctl->line, "{\"parameters\":{\"record\":");
	if (n < 0)
		return false;
	if ((size_t)n < sizeof(stack)) {
		jb_put(&ctl->line, stack, (size_t)n - 1);
	} else {
		_cleanup_free_ char *heap = malloc((size_t)n + 1);

		if (!heap)
			return false;
		record_to_json(r, heap, (size_t)n + 1);
		jb_put(&ctl->line, heap, (size_t)n - 1);
	}
	jb_puts(&ctl->line, "},\"continues\":true}");
	return !ctl->line.oom;
}

static void on_record(const struct record *r, void *userdata) {
	struct control *ctl = userdata;
	size_t path_len = r->path ? strlen(r->path) : 0;
	bool formatted = false;

	for (struct sub *s = ctl->subs, *next; s; s = next) {
		next = s->next;
		if (!sub_wants(s, r, path_len))
			continue;
		if (!formatted && !format_record(ctl, r))
			return;
		formatted = true;
		/* (full: dropped and counted) */
		(void)vl_stream_message(s->conn, ctl->line.s, ctl->line.len);
	}
}

static void on_dropped(struct vl_conn *c, uint64_t n, void *userdata) {
	struct control *ctl = userdata;
	struct client *cl = vl_conn_get_data(c);
	struct record rec = {
		.kind = RECORD_DROPPED,
		.time_usec = now_realtime_usec(),
		.uid = (uid_t)-1,
		.count = n,
	};

	if (!cl || !cl->sub || !format_record(ctl, &rec))
		return;
	(void)vl_stream_message(c, ctl->line.s, ctl->line.len);
}

static void on_closed(struct vl_conn *c, void *userdata) {
	struct control *ctl = userdata;
	struct client *cl = vl_conn_get_data(c);

	if (!cl)
		return;
	for (size_t i = 0; cl->reload_waiting && i < ctl->n_waiters; i++)
		if (ctl->waiters[i] == c)
			ctl->waiters[i--] = ctl->waiters[--ctl->n_waiters];
	for (size_t i = 0; cl->lookup && i < ctl->n_lookups; i++)
		if (ctl->lookups[i] == c)
			ctl->lookups[i--] = ctl->lookups[--ctl->n_lookups];
	if (cl->sub)
		sub_free(cl->sub);
	free(cl);
	vl_conn_set_data(c, NULL);
}

/* ------------------------------------------------------------------------ */
/* the server                                                               */
/* ------------------------------------------------------------------------ */

static void limits_of(const struct config *c, struct vl_limits *lim) {
	*lim = (struct vl_limits){
		.max_clients = c->control_clients,
		.max_request = c->control_request,
		.max_queue = c->control_queue,
		.slow_sec = c->control_slow,
		.request_sec = c->control_request_timeout,
		.idle_sec = c->control_idle_timeout,
	};
}

static int gid_of(const char *name, gid_t *ret) {
	struct group gr, *res = NULL;
	char buf[4096];

	*ret = 0;
	if (!name || !*name)
		return 0;
	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	*ret = res->gr_gid;
	return 0;
}

static int open_server(struct control *ctl, const struct config *c) {
	static const struct vl_ops ops = {
		.call = on_call,
		.dropped = on_dropped,
		.closed = on_closed,
	};
	struct vl_limits lim;
	char err[256], esc[512];
	gid_t gid;
	int r;

	ctl->srv = vl_server_free(ctl->srv);
	free(ctl->socket_path);
	ctl->socket_path = NULL;
	if (!c->control_socket || !*c->control_socket)
		return 0;
	if (gid_of(c->control_group, &gid) < 0) {
		log_error("control socket: no group '%s' on this system: only root may connect",
			  text_escaped(esc, sizeof(esc), c->control_group));
		gid = 0;
	}
	limits_of(c, &lim);
	err[0] = '\0';
	r = vl_server_new(ctl->loop, c->control_socket, gid, &lim, &ops, ctl, &ctl->srv, err,
			  sizeof(err));
	if (r < 0) {
		log_error("control socket %s: %s; running without it (fsnotifyctl cannot reach "
			  "this daemon)",
			  text_escaped(esc, sizeof(esc), c->control_socket),
			  err[0] ? err : strerror(-r));
		return r;
	}
	ctl->socket_path = strdup(c->control_socket);
	ctl->gid = gid;
	log_info("control socket %s (%s)", text_escaped(esc, sizeof(esc), c->control_socket),
		 gid ? "root and the control group" : "root only");
	return 0;
}

static void control_counters_of(void *userdata, struct control_counters *ret) {
	struct control *ctl = userdata;
	struct vl_server_stats st;

	ret->subscribers = ctl->n_subs;
	if (!ctl->srv)
		return;
	vl_server_get_stats(ctl->srv, &st);
	*ret = (struct control_counters){
		.subscribers = ctl->n_subs,
		.clients = st.clients,
		.accepted = st.accepted,
		.refused = st.refused,
		.disconnected_slow = st.disconnected_slow,
		.dropped = st.dropped,
	};
}

int control_new(struct ev_loop *loop, struct engine *e, const char *config_path,
		const struct config *c, const struct control_hooks *hooks, struct control **ret) {
	struct control *ctl = calloc(1, sizeof(*ctl));
	int r;

	if (!ctl || !(ctl->config_path = strdup(config_path))) {
		free(ctl);
		return -ENOMEM;
	}
	ctl->loop = loop;
	ctl->engine = e;
	ctl->start_usec = now_monotonic_usec();
	ctl->loaded_usec = now_realtime_usec();
	if (hooks)
		ctl->hooks = *hooks;
	r = open_server(ctl, c);
	engine_set_record_hook(e, on_record, ctl);
	engine_set_control_counters(e, control_counters_of, ctl);
	*ret = ctl;
	return r;
}

struct control *control_free(struct control *ctl) {
	if (!ctl)
		return NULL;
	engine_set_record_hook(ctl->engine, NULL, NULL);
	engine_set_control_counters(ctl->engine, NULL, NULL);
	ctl->srv = vl_server_free(ctl->srv); /* (closes every client: subs freed) */
	free(ctl->socket_path);
	free(ctl->config_path);
	free(ctl->waiters);
	free(ctl->lookups);
	jb_free(&ctl->line);
	free(ctl);
	return NULL;
}

void control_apply(struct control *ctl, const struct config *c) {
	const char *path = c->control_socket ? c->control_socket : "";
	struct vl_limits lim;
	gid_t gid = 0;

	ctl->loaded_usec = now_realtime_usec();
	(void)gid_of(c->control_group, &gid);
	if (ctl->srv && ctl->socket_path && strcmp(ctl->socket_path, path) == 0 &&
	    gid == ctl->gid) {
		limits_of(c, &lim);
		vl_server_set_limits(ctl->srv, &lim);
		return;
	}
	if (!ctl->srv && !*path)
		return;
	/* (another socket: the clients of this one are cut off) */
	(void)open_server(ctl, c);
}

void control_reload_done(struct control *ctl, int r, const char *why) {
	struct config_errors errs = { 0 };
	struct config *cfg = NULL;
	struct jbuf b = { 0 };

	if (!ctl)
		return;
	if (r < 0) {
		/* every error, as file:line: the config read again (the load
		 * logged them, and kept only the first) */
		jb_puts(&b, "{\"config_file\":");
		jb_str(&b, ctl->config_path);
		jb_puts(&b, ",\"errors\":[");
		if (config_load(ctl->config_path, &cfg, &errs) < 0 && errs.n > 0) {
			for (size_t i = 0; i < errs.n; i++) {
				char line[4096];

				if (errs.v[i].line > 0)
					snprintf(line, sizeof(line), "%s:%d: %s", errs.v[i].file,
						 errs.v[i].line, errs.v[i].msg);
				else
					snprintf(line, sizeof(line), "%s: %s", errs.v[i].file,
						 errs.v[i].msg);
				if (i)
					jb_puts(&b, ",");
				jb_str(&b, line);
			}
		} else {
			jb_str(&b, why ? why : strerror(-r));
		}
		jb_puts(&b, "]}");
		config_free(cfg);
		config_errors_clear(&errs);
	} else {
		const struct config *cur = engine_config(ctl->engine);

		jb_puts(&b, "{\"config_file\":");
		jb_str(&b, ctl->config_path);
		jb_printf(&b, ",\"rules\":%zu,\"marks\":%u}", cur ? cur->n_rules : 0,
			  engine_n_marks(ctl->engine));
	}
	/* (answering may close a connection: on_closed() edits the list) */
	while (ctl->n_waiters > 0) {
		struct vl_conn *c = ctl->waiters[--ctl->n_waiters];
		struct client *cl = vl_conn_get_data(c);

		if (cl)
			cl->reload_waiting = false;
		if (b.oom)
			vl_error(c, "org.varlink.service.InvalidParameter",
				 "{\"parameter\":\"out of memory\"}");
		else if (r < 0)
			vl_error(c, IFACE "ConfigInvalid", b.s);
		else
			vl_reply(c, b.s, false);
	}
	jb_free(&b);
}

unsigned control_subscribers(const struct control *ctl) {
	return ctl ? ctl->n_subs : 0;
}
