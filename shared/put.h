/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * put.h — appending to a bounded buffer, snprintf-like (what does not fit
 * is counted, not written; the text stays NUL terminated): the writers of
 * a record's JSON line (escape.c) and its ECS document (ecs.c).
 */
#pragma once

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

/* Append n bytes at *pos: what fits in buf[0..len-1), NUL terminated, *pos
 * advanced by n. */
static inline void put(char *buf, size_t len, size_t *pos, const void *data, size_t n) {
	if (*pos + n < len) {
		/* (it fits, as it nearly always does: a copy of n bytes, which
		 * the compiler makes a few moves when n is a literal's length) */
		memcpy(buf + *pos, data, n);
		buf[*pos + n] = '\0';
	} else if (len > 0 && *pos < len - 1) {
		size_t room = len - 1 - *pos;

		memcpy(buf + *pos, data, room);
		buf[*pos + room] = '\0';
	}
	*pos += n;
}

/* (inlined: most s are literals, whose strlen() the compiler knows) */
static inline __attribute__((always_inline)) void puts_(char *buf, size_t len, size_t *pos,
							const char *s) {
	put(buf, len, pos, s, strlen(s));
}

/* A member's ,"key": for put_string() and put_path(): the text and its
 * length, made at compile time (keys are literals: nothing to escape). */
#define KEY(k) ",\"" k "\":", sizeof(",\"" k "\":") - 1

/* v in decimal, without printf: a record has a few numbers and comes
 * hundreds of thousands of times a second in a storm. */
static inline void put_u64(char *buf, size_t len, size_t *pos, uint64_t v) {
	char tmp[24];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(buf, len, pos, tmp + n, sizeof(tmp) - n);
}

static inline void __attribute__((format(printf, 4, 5)))
putf(char *buf, size_t len, size_t *pos, const char *fmt, ...) {
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(buf, len, pos, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* "key":"escaped" plus "key_b64":"..." when not valid UTF-8. */
static inline void put_path(char *buf, size_t len, size_t *pos, const char *key, size_t klen,
			    const char *s) {
	size_t need;

	put(buf, len, pos, key, klen);
	put(buf, len, pos, "\"", 1);
	if (json_escape(buf, len, pos, s)) {
		put(buf, len, pos, "\"", 1);
		return;
	}
	put(buf, len, pos, "\"", 1);
	put(buf, len, pos, key, klen - 2); /* ,"key */
	puts_(buf, len, pos, "_b64\":\"");
	need = base64_encode(NULL, 0, s, strlen(s));
	if (len > 0 && *pos < len - 1)
		base64_encode(buf + *pos, len - *pos, s, strlen(s));
	*pos += need;
	puts_(buf, len, pos, "\"");
}

/* ,"key":"s" for a text the program made itself, that has nothing to
 * escape (a severity's name, a stream id: hex digits) */
static inline void put_plain(char *buf, size_t len, size_t *pos, const char *key, size_t klen,
			     const char *s) {
	put(buf, len, pos, key, klen);
	put(buf, len, pos, "\"", 1);
	put(buf, len, pos, s, strlen(s));
	put(buf, len, pos, "\"", 1);
}

/* ,"key":"escaped" or ,"key":null */
static inline __attribute__((always_inline)) void
put_string(char *buf, size_t len, size_t *pos, const char *key, size_t klen, const char *s) {
	put(buf, len, pos, key, klen);
	if (!s) {
		put(buf, len, pos, "null", 4);
		return;
	}
	put(buf, len, pos, "\"", 1);
	json_escape(buf, len, pos, s);
	put(buf, len, pos, "\"", 1);
}
