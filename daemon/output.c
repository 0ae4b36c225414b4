/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c — the output object: opening by type (json, journal, exec),
 * emitting, reopening, closing, counters, and the accounting of failures
 * that every type shares (counted always, logged once per burst).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "output-private.h"

int output_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		char *err, size_t errlen) {
	switch (conf->type) {
	case OUTPUT_JSON: return output_json_open(conf, loop, ret, err, errlen);
	case OUTPUT_JOURNAL: return output_journal_open(conf, loop, ret, err, errlen);
	case OUTPUT_EXEC: return output_exec_open(conf, loop, ret, err, errlen);
	}
	snprintf(err, errlen, "output '%s': unknown type %d", conf->name, (int)conf->type);
	return -EINVAL;
}

struct output *output_close(struct output *o) {
	if (o)
		o->ops->free(o);
	return NULL;
}

void output_emit(struct output *o, const struct record *r) {
	o->ops->emit(o, r);
}

int output_reopen(struct output *o) {
	return o->ops->reopen ? o->ops->reopen(o) : 0;
}

const char *output_name(const struct output *o) {
	return o->name;
}

void output_counters(const struct output *o, uint64_t *emitted, uint64_t *failed) {
	if (emitted)
		*emitted = o->emitted;
	if (failed)
		*failed = o->failed;
}

int output_init(struct output *o, const struct output_ops *ops, const struct output_conf *conf,
		struct ev_loop *loop) {
	o->name = strdup(conf->name ? conf->name : "?");
	if (!o->name)
		return -ENOMEM;
	o->ops = ops;
	o->loop = loop;
	return 0;
}

void output_done(struct output *o) {
	free(o->name);
	o->name = NULL;
}

void output_failed(struct output *o, uint64_t n, int err, const char *fmt, ...) {
	char msg[1024];
	va_list ap;

	o->failed += n;
	o->burst_failed += n;
	if (o->failing)
		return;
	o->failing = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warning("output '%s': %s%s%s (further failures are counted, not logged, until it "
		    "works again)",
		    o->name, msg, err ? ": " : "", err ? strerror(err) : "");
}

void output_succeeded(struct output *o, uint64_t n) {
	o->emitted += n;
	if (!o->failing)
		return;
	log_info("output '%s': works again; %llu records lost meanwhile", o->name,
		 (unsigned long long)o->burst_failed);
	o->failing = false;
	o->burst_failed = 0;
}
