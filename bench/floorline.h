/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floorline.h — the per-record work of `fsn-bench consumers`' floor: what
 * the cheapest correct reader spends to report a FAN_REPORT_DFID_NAME
 * record as fsnotifyd's JSON output does. For each record it finds the
 * path (the directory's handle through a small cache, opened by handle and
 * read back on a miss, then the name), the process (comm and uid from
 * /proc through a pid cache as fresh as fsnotifyd's), and appends one JSON
 * line (time, kind, rule, events, path, pid, comm, uid, severity, origin,
 * stream, seq) to a buffer that goes to a file in one write() per read of
 * the group, or sooner when full. Nothing else: no rules, no exclusions, no subscribers.
 */
#pragma once

#include <stdint.h>
#include <sys/fanotify.h>

struct floor_line;

/* Writes to out (created, truncated); handles are opened against watch.
 * NULL with errno on failure. */
struct floor_line *floor_line_new(const char *watch, const char *out);
/* One record of a read; names are the event type names, bit t of mask
 * being bits[t] (n of them); an overflow is a line of its own. 1 when its
 * path was not found (written as null), -errno when the output cannot be
 * written. */
int floor_line_record(struct floor_line *f, const struct fanotify_event_metadata *m,
		      uint64_t now_usec, const char *const *names, const uint64_t *bits,
		      unsigned n);
/* The buffered lines out (end of a read). */
int floor_line_flush(struct floor_line *f);
