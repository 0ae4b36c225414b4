/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * table.h — fsnotifyctl's text layout (table.c): the rules table, names
 * escaped and fitted to a width, counters shortened. Pure (writes to the
 * FILE given), for the unit tests.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

/* Columns on screen of text as text_escape() writes it (printable ASCII
 * and UTF-8 from U+00A0 up): one per character. */
size_t ctl_text_width(const char *text);

/* Escaped text (text_escape()'s) at most cols wide: when it is wider
 * (and cols > 0), cut between characters, never inside an escape, and
 * ended with "..." (cols < 4: cut without the marker). malloc'd; NULL on
 * ENOMEM. */
char *ctl_cut(const char *text, size_t cols);
/* s escaped (text_escape()), then ctl_cut(). */
char *ctl_fit(const char *s, size_t cols);

/* v in decimal into buf (at least 16 bytes); compact: at most 5
 * characters, from 100 000 up "123k", "4.5M", "12G" ... */
const char *ctl_count(uint64_t v, int compact, char *buf, size_t len);

/*
 * The rules table (GetStatus's or ListRules's "rules"): a header and one
 * line per rule: its name, marks placed/total, records, filtered,
 * rate-limited and overflows, and when any rule is a permission rule its
 * allowed, denied and deadline verdicts ("-" for the others).
 * width 0: no limit, exact numbers, whole names; else every line fits in
 * width columns (names cut, counters compact) when width >= 80, and is as
 * narrow as it can be below. Returns the number of rules.
 */
size_t ctl_rules_table(FILE *f, const struct json *rules, size_t width);
