/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h — a small JSON DOM and writers (json.c): fsn-bench reads its own
 * result files with it; the daemon's control socket and fsnotifyctl read
 * requests and replies.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum json_type {
	JSON_NULL = 0,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type type;
	bool boolean;
	double number;
	char *string;         /* JSON_STRING */
	size_t n;             /* members of an array or object */
	char **keys;          /* JSON_OBJECT: n keys */
	struct json **values; /* JSON_ARRAY / JSON_OBJECT: n values */
	/* Where the value is in the text parsed: text[start..end), exactly as
	 * written (re-sending a member byte for byte, in its key order). */
	size_t start, end;
};

/* Parse a whole document. 0 or -EINVAL (syntax; *ret_offset says where),
 * -ENOMEM. */
int json_parse(const char *text, size_t len, struct json **ret, size_t *ret_offset);
struct json *json_free(struct json *j);
/* Member of an object by key, or NULL (also for a non-object). */
const struct json *json_get(const struct json *obj, const char *key);
/* Number of a member, or def when missing or not a number. */
double json_get_number(const struct json *obj, const char *key, double def);
/* String of a member, or NULL. */
const char *json_get_string(const struct json *obj, const char *key);
/* Boolean of a member, or def when missing or not a boolean. */
bool json_get_bool(const struct json *obj, const char *key, bool def);

/* Write s as a JSON string literal, quotes included, escaped as the
 * daemon's JSON lines escape a name (json_escape(), escape.h: controls,
 * '"', '\\' and the characters that steer a terminal as escapes, each
 * byte that is not valid UTF-8 as U+FFFD); "null" without memory for a
 * long one. */
void json_write_string(FILE *f, const char *s);
/* A finite number as %.6g, anything else as null. */
void json_write_number(FILE *f, double v);
