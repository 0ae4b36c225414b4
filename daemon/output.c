/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c — the output object: opening by type (json, journal, exec;
 * metrics outputs are opened with output_metrics_open()), emitting,
 * reopening, closing, counters, the accounting of failures that every
 * type shares (counted always, logged once per burst), and the check of
 * the directory an output's file is in (json, metrics).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "log.h"
#include "output-private.h"

int output_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
		char *err, size_t errlen) {
	switch (conf->type) {
	case OUTPUT_JSON: return output_json_open(conf, loop, ret, err, errlen);
	case OUTPUT_JOURNAL: return output_journal_open(conf, loop, ret, err, errlen);
	case OUTPUT_EXEC: return output_exec_open(conf, loop, ret, err, errlen);
	case OUTPUT_METRICS:
		snprintf(err, errlen,
			 "output '%s': a metrics output needs what it renders "
			 "(output_metrics_open())",
			 conf->name);
		return -EINVAL;
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
		*emitted = o->n.written;
	if (failed)
		*failed = o->n.failed + o->n.dropped;
}

void output_get_counters(const struct output *o, struct output_counters *ret) {
	*ret = o->n;
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

/* A burst of failures (or drops) starts: say why, once. */
static void burst(struct output *o, uint64_t n, int err, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void burst(struct output *o, uint64_t n, int err, const char *fmt, va_list ap) {
	char msg[1024];

	o->burst_failed += n;
	if (o->failing)
		return;
	o->failing = true;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_warning("output '%s': %s%s%s (further failures are counted, not logged, until it "
		    "works again)",
		    o->name, msg, err ? ": " : "", err ? strerror(err) : "");
}

void output_failed(struct output *o, uint64_t n, int err, const char *fmt, ...) {
	va_list ap;

	o->n.failed += n;
	va_start(ap, fmt);
	burst(o, n, err, fmt, ap);
	va_end(ap);
}

void output_dropped(struct output *o, uint64_t n, const char *fmt, ...) {
	va_list ap;

	o->n.dropped += n;
	va_start(ap, fmt);
	burst(o, n, 0, fmt, ap);
	va_end(ap);
}

void output_succeeded(struct output *o, uint64_t n) {
	o->n.written += n;
	if (!o->failing)
		return;
	log_info("output '%s': works again; %llu records lost meanwhile", o->name,
		 (unsigned long long)o->burst_failed);
	o->failing = false;
	o->burst_failed = 0;
}

int output_file_dir(const char *path, char *dir, size_t len, const char **base) {
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash)
		return -EINVAL;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	*base = slash + 1;
	return 0;
}

void output_warn_dir(const char *name, const char *dir, const struct stat *st,
		     const char *consequence, const char *example) {
	char esc[PATH_MAX * 2];

	if (st->st_mode & (S_IWGRP | S_IWOTH))
		log_warning("output '%s': the directory %s is writable by %s: they can replace "
			    "the file %s; a directory of the daemon's own is safer (e.g. %s)",
			    name, text_escaped(esc, sizeof(esc), dir),
			    (st->st_mode & S_IWOTH) ? "everyone" : "its group", consequence,
			    example);
}
