/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-console.c — the --foreground printer: every record the engine
 * reports, one human-readable line on stdout (filenames, process names
 * escaped with text_escaped()), flushed at once. Not an output of the
 * config: the engine opens one when it runs in the foreground
 * (engine_set_foreground()) and hands it every record it hands any
 * rule's outputs, after them.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "escape.h"
#include "fsn-util.h"
#include "output-private.h"
#include "policy.h"

static void console_emit(struct output *o, const struct record *rec) {
	char t[64], ev[256], p[PATH_MAX * 4], op[PATH_MAX * 4], c[128];
	struct tm tm;
	time_t sec = (time_t)(rec->time_usec / 1000000u);

	localtime_r(&sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	switch (rec->kind) {
	case RECORD_EVENT:
		format_events(rec->mask, ev, sizeof(ev));
		printf("%s.%03u %s %s %s%s%s (pid %d comm %s)\n", t,
		       (unsigned)(rec->time_usec % 1000000u / 1000u), rec->rule, ev,
		       rec->path ? text_escaped(p, sizeof(p), rec->path) : "(unknown path)",
		       rec->old_path ? " from " : "",
		       rec->old_path ? text_escaped(op, sizeof(op), rec->old_path) : "",
		       (int)rec->pid, rec->comm ? text_escaped(c, sizeof(c), rec->comm) : "?");
		break;
	case RECORD_OVERFLOW:
		printf("%s.%03u %s overflow: the kernel queue overflowed, events were lost\n", t,
		       (unsigned)(rec->time_usec % 1000000u / 1000u), rec->rule);
		break;
	case RECORD_DROPPED:
		printf("%s.%03u %s dropped %" PRIu64 " events (rate limit)\n", t,
		       (unsigned)(rec->time_usec % 1000000u / 1000u), rec->rule, rec->count);
		break;
	case RECORD_DECISION: {
		char v[64];

		format_events(rec->mask, ev, sizeof(ev));
		printf("%s.%03u %s %s %s %s (pid %d comm %s; by %s, %" PRIu64 " us)\n", t,
		       (unsigned)(rec->time_usec % 1000000u / 1000u), rec->rule,
		       rec->verdict ? verdict_format(rec->verdict, v, sizeof(v)) : "?", ev,
		       rec->path ? text_escaped(p, sizeof(p), rec->path) : "(unknown path)",
		       (int)rec->pid, rec->comm ? text_escaped(c, sizeof(c), rec->comm) : "?",
		       rec->by ? rec->by : "?", rec->latency_us);
		break;
	}
	case RECORD_RESCAN:
		printf("%s.%03u %s rescan after an overflow: %s %s\n", t,
		       (unsigned)(rec->time_usec % 1000000u / 1000u), rec->rule,
		       rec->change ? rec->change : "?",
		       rec->path ? text_escaped(p, sizeof(p), rec->path) : "(unknown path)");
		break;
	case RECORD_GONE:
	case RECORD_UNMOUNTED:
	case RECORD_REARMED: {
		size_t pos = 0;

		format_lifecycle(rec, p, sizeof(p), &pos);
		printf("%s.%03u %s %s\n", t, (unsigned)(rec->time_usec % 1000000u / 1000u),
		       rec->rule, p);
		break;
	}
	case RECORD_STATS:
		printf("%s.%03u %s permission counters: %" PRIu64 " allowed, %" PRIu64
		       " denied, %" PRIu64 " on deadline\n",
		       t, (unsigned)(rec->time_usec % 1000000u / 1000u), rec->rule,
		       rec->perm ? rec->perm->allowed : 0, rec->perm ? rec->perm->denied : 0,
		       rec->perm ? rec->perm->deadline : 0);
		break;
	}
	fflush(stdout);
}

static void console_free(struct output *o) {
	output_done(o);
	free(o);
}

static const struct output_ops console_ops = {
	.emit = console_emit,
	.free = console_free,
};

int output_console_open(struct ev_loop *loop, struct output **ret) {
	char name[] = "console";
	const struct output_conf conf = { .name = name };
	_cleanup_free_ struct output *o = calloc(1, sizeof(*o));

	if (!o || output_init(o, &console_ops, &conf, loop) < 0)
		return -ENOMEM;
	*ret = steal_ptr(&o);
	return 0;
}
