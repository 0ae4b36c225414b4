/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-console.c — the --foreground printer: every record the engine
 * reports, one human-readable line on stdout (filenames, process names
 * escaped; record_to_text()), flushed at once. Not an output of the
 * config: the engine opens one when it runs in the foreground
 * (engine_set_foreground()) and hands it every record it hands any
 * rule's outputs, after them.
 */
#include <stdio.h>

#include "escape.h"
#include "fsn-util.h"
#include "output-private.h"

static void console_emit(struct output *o, const struct record *rec) {
	char line[4096];
	_cleanup_free_ char *big = NULL;
	int n = record_to_text(rec, line, sizeof(line));

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		big = malloc((size_t)n + 1);
		if (!big)
			return;
		record_to_text(rec, big, (size_t)n + 1);
	}
	fputs(big ? big : line, stdout);
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
