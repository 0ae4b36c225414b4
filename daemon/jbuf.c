/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbuf.c — the growable JSON text buffer (jbuf.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "jbuf.h"

/* Room for n more bytes and a NUL. */
static bool reserve(struct jbuf *b, size_t n) {
	size_t cap;
	char *s;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void jb_put(struct jbuf *b, const void *data, size_t n) {
	if (!reserve(b, n))
		return;
	memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void jb_puts(struct jbuf *b, const char *s) {
	jb_put(b, s, strlen(s));
}

void jb_printf(struct jbuf *b, const char *fmt, ...) {
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void jb_str(struct jbuf *b, const char *s) {
	size_t pos = 0;

	if (!s) {
		jb_puts(b, "null");
		return;
	}
	/* an escape is at most 6 bytes for one byte of s */
	if (!reserve(b, strlen(s) * 6 + 2))
		return;
	b->s[b->len++] = '"';
	json_escape(b->s + b->len, b->cap - b->len, &pos, s);
	b->len += pos;
	b->s[b->len++] = '"';
	b->s[b->len] = '\0';
}

void jb_key(struct jbuf *b, const char *key, bool first) {
	if (!first)
		jb_put(b, ",", 1);
	jb_str(b, key);
	jb_put(b, ":", 1);
}

void jb_u64(struct jbuf *b, uint64_t v) {
	jb_printf(b, "%" PRIu64, v);
}

void jb_bool(struct jbuf *b, bool v) {
	jb_puts(b, v ? "true" : "false");
}

void jb_reset(struct jbuf *b) {
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void jb_free(struct jbuf *b) {
	free(b->s);
	*b = (struct jbuf){ 0 };
}
