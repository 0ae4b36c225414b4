/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c — see table.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fsn-util.h"
#include "table.h"

/* Bytes of the character or escape that starts at p (text_escape()'s
 * output: "\\xNN", "\\n", "\\\\", a UTF-8 sequence or one ASCII byte). */
static size_t unit_len(const char *p) {
	unsigned char c = (unsigned char)*p;
	size_t n = 1;

	if (c == '\\')
		return p[1] == 'x' && p[2] && p[3] ? 4 : p[1] ? 2 : 1;
	if (c >= 0xc0)
		while (((unsigned char)p[n] & 0xc0) == 0x80)
			n++;
	return n;
}

size_t ctl_text_width(const char *text) {
	size_t w = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		w += (*p & 0xc0) != 0x80;
	return w;
}

char *ctl_cut(const char *text, size_t cols) {
	size_t w = 0, keep = 0, limit = cols >= 4 ? cols - 3 : cols;
	char *out = strdup(text);

	if (!out || cols == 0 || ctl_text_width(out) <= cols)
		return out;
	/* the characters that fit before the marker */
	while (out[keep]) {
		size_t u = unit_len(out + keep), uw = out[keep] == '\\' ? u : 1;

		if (w + uw > limit)
			break;
		w += uw;
		keep += u;
	}
	if (cols >= 4) /* what went is 4 columns or more: at least 4 bytes */
		memcpy(out + keep, "...", 4);
	else
		out[keep] = '\0';
	return out;
}

char *ctl_fit(const char *s, size_t cols) {
	size_t n = strlen(s), need = 0, pos = 0;
	_cleanup_free_ char *esc = NULL;

	text_escape(NULL, 0, &need, s, n);
	esc = malloc(need + 1);
	if (!esc)
		return NULL;
	text_escape(esc, need + 1, &pos, s, n);
	return cols == 0 ? steal_ptr(&esc) : ctl_cut(esc, cols);
}

const char *ctl_count(uint64_t v, int compact, char *buf, size_t len) {
	static const char units[] = "kMGTPE";
	double d = (double)v;
	unsigned u = 0;

	if (!compact || v < 100000) {
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
	do {
		d /= 1000;
		u++;
	} while (d >= 999.5 && u < sizeof(units) - 1);
	if (d < 9.95)
		snprintf(buf, len, "%.1f%c", d, units[u - 1]);
	else
		snprintf(buf, len, "%.0f%c", d, units[u - 1]);
	return buf;
}

enum {
	COL_NAME,
	COL_MARKS,
	COL_EVENTS,
	COL_FILTERED,
	COL_LIMITED,
	COL_OVERFLOWS,
	COL_ALLOW,
	COL_DENY,
	COL_DEADLINE,
	N_COLS,
};

static const char *const headers[N_COLS] = {
	"RULE", "MARKS", "EVENTS", "FILTERED", "LIMITED", "OVERFL", "ALLOW", "DENY", "LATE",
};

/* One rule's cells; cell[COL_NAME] escaped but not cut. */
struct row {
	char *cell[N_COLS];
};

static char *count_cell(const struct json *obj, const char *key, int compact) {
	char b[32];
	double v = json_get_number(obj, key, -1);

	if (v < 0)
		return strdup("-");
	return strdup(ctl_count((uint64_t)v, compact, b, sizeof(b)));
}

static void fill_row(struct row *row, const struct json *rule, int compact) {
	const struct json *marks = json_get(rule, "marks"), *c = json_get(rule, "counters");
	const struct json *perm = json_get(rule, "perm");
	const char *name = json_get_string(rule, "name");
	size_t placed = 0, total = 0;
	char a[32], b[32], m[80];

	if (marks && marks->type == JSON_ARRAY) {
		total = marks->n;
		for (size_t i = 0; i < marks->n; i++)
			placed += json_get_bool(marks->values[i], "placed", false);
	}
	row->cell[COL_NAME] = ctl_fit(name ? name : "?", 0);
	snprintf(m, sizeof(m), "%s/%s", ctl_count(placed, compact, a, sizeof(a)),
		 ctl_count(total, compact, b, sizeof(b)));
	row->cell[COL_MARKS] = strdup(m);
	row->cell[COL_EVENTS] = count_cell(c, "events", compact);
	row->cell[COL_FILTERED] = count_cell(c, "filtered", compact);
	row->cell[COL_LIMITED] = count_cell(c, "ratelimited", compact);
	row->cell[COL_OVERFLOWS] = count_cell(c, "overflows", compact);
	if (perm && perm->type == JSON_OBJECT) {
		row->cell[COL_ALLOW] = count_cell(perm, "allowed", compact);
		row->cell[COL_DENY] = count_cell(perm, "denied", compact);
		row->cell[COL_DEADLINE] = count_cell(perm, "deadline", compact);
	} else {
		row->cell[COL_ALLOW] = strdup("-");
		row->cell[COL_DENY] = strdup("-");
		row->cell[COL_DEADLINE] = strdup("-");
	}
}

size_t ctl_rules_table(FILE *f, const struct json *rules, size_t width) {
	size_t n = rules && rules->type == JSON_ARRAY ? rules->n : 0, w[N_COLS], cols = COL_ALLOW;
	size_t rest = 0;
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows)
		return 0;
	for (size_t i = 0; i < n; i++) {
		fill_row(&rows[i], rules->values[i], width > 0);
		if (json_get_bool(rules->values[i], "permission", false))
			cols = N_COLS;
	}
	for (size_t c = 0; c < cols; c++) {
		w[c] = strlen(headers[c]);
		for (size_t i = 0; i < n; i++)
			if (rows[i].cell[c] && ctl_text_width(rows[i].cell[c]) > w[c])
				w[c] = ctl_text_width(rows[i].cell[c]);
		if (c > COL_NAME)
			rest += 2 + w[c];
	}
	/* the name takes what the counters leave, at least its header */
	if (width > 0 && w[COL_NAME] + rest > width)
		w[COL_NAME] = width > rest + strlen(headers[COL_NAME]) ? width - rest
								       : strlen(headers[COL_NAME]);

	for (size_t i = 0; i <= n; i++) {
		for (size_t c = 0; c < cols; c++) {
			const char *cell = i == 0 ? headers[c] : rows[i - 1].cell[c];
			_cleanup_free_ char *cut = NULL;
			size_t cw;

			if (!cell)
				cell = "?";
			if (c == COL_NAME && ctl_text_width(cell) > w[c]) {
				/* cells are escaped already: cut between its units */
				cut = ctl_cut(cell, w[c]);
				cell = cut ? cut : cell;
			}
			cw = ctl_text_width(cell);
			if (c == COL_NAME)
				fprintf(f, "%s%*s", cell, (int)(w[c] - cw), "");
			else
				fprintf(f, "  %*s%s", (int)(w[c] - cw), "", cell);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < N_COLS; c++)
			free(rows[i].cell[c]);
	free(rows);
	return n;
}
