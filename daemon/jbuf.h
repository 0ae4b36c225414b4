/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbuf.h — a growable text buffer for building JSON (jbuf.c): the control
 * socket's replies. Appending never fails visibly: without memory the
 * buffer is marked (oom) and the caller checks once at the end.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void jb_put(struct jbuf *b, const void *data, size_t n);
void jb_puts(struct jbuf *b, const char *s);
void jb_printf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string literal (quotes included; escape.c json_escape():
 * invalid UTF-8 becomes U+FFFD), or null for NULL. */
void jb_str(struct jbuf *b, const char *s);
/* ,"key": (the first member of an object: without the comma when first) */
void jb_key(struct jbuf *b, const char *key, bool first);
void jb_u64(struct jbuf *b, uint64_t v);
void jb_bool(struct jbuf *b, bool v);
/* Drop the contents (the memory is kept). */
void jb_reset(struct jbuf *b);
void jb_free(struct jbuf *b);
