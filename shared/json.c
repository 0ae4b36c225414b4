/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.c — a minimal JSON reader (recursive descent into a small DOM) and a
 * string writer (a thin call of escape.c's json_escape(), the one JSON
 * escaper). It reads what fsn-bench writes and any other valid JSON of
 * moderate size; \u escapes are decoded to UTF-8 (surrogate pairs are kept
 * as two code points, which is enough for names and numbers). Every value
 * keeps where it was in the text (start, end): fsnotifyctl passes a record
 * or a reply on byte for byte.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fsn-util.h"
#include "json.h"

#define JSON_MAX_DEPTH 64

struct parser {
	const char *p;
	const char *end;
	const char *start;
	unsigned depth;
};

static void skip_ws(struct parser *ps) {
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int parse_value(struct parser *ps, struct json **ret);

static void put_utf8(char *buf, size_t *pos, unsigned cp) {
	if (cp < 0x80) {
		buf[(*pos)++] = (char)cp;
	} else if (cp < 0x800) {
		buf[(*pos)++] = (char)(0xc0 | (cp >> 6));
		buf[(*pos)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		buf[(*pos)++] = (char)(0xe0 | (cp >> 12));
		buf[(*pos)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[(*pos)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int parse_string(struct parser *ps, char **ret) {
	_cleanup_free_ char *buf = NULL;
	const char *q;
	size_t pos = 0;

	if (ps->p >= ps->end || *ps->p != '"')
		return -EINVAL;
	ps->p++;
	/* Decoded text is never longer than the escaped text. */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= ps->end)
		return -EINVAL;
	buf = malloc((size_t)(q - ps->p) + 1);
	if (!buf)
		return -ENOMEM;
	while (ps->p < q) {
		unsigned char c = (unsigned char)*ps->p++;

		if (c < 0x20)
			return -EINVAL;
		if (c != '\\') {
			buf[pos++] = (char)c;
			continue;
		}
		switch (*ps->p++) {
		case '"': buf[pos++] = '"'; break;
		case '\\': buf[pos++] = '\\'; break;
		case '/': buf[pos++] = '/'; break;
		case 'b': buf[pos++] = '\b'; break;
		case 'f': buf[pos++] = '\f'; break;
		case 'n': buf[pos++] = '\n'; break;
		case 'r': buf[pos++] = '\r'; break;
		case 't': buf[pos++] = '\t'; break;
		case 'u': {
			unsigned cp = 0;

			if (q - ps->p < 4)
				return -EINVAL;
			for (int i = 0; i < 4; i++) {
				char h = *ps->p++;

				if (!isxdigit((unsigned char)h))
					return -EINVAL;
				cp = cp * 16 +
				     (unsigned)(isdigit((unsigned char)h)
						    ? h - '0'
						    : tolower((unsigned char)h) - 'a' + 10);
			}
			put_utf8(buf, &pos, cp);
			break;
		}
		default: return -EINVAL;
		}
	}
	ps->p = q + 1;
	buf[pos] = '\0';
	*ret = steal_ptr(&buf);
	return 0;
}

static int add_member(struct json *j, char *key, struct json *v) {
	struct json **values;

	values = realloc(j->values, (j->n + 1) * sizeof(*values));
	if (!values)
		return -ENOMEM;
	j->values = values;
	if (j->type == JSON_OBJECT) {
		char **keys = realloc(j->keys, (j->n + 1) * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		j->keys = keys;
		j->keys[j->n] = key;
	}
	j->values[j->n++] = v;
	return 0;
}

static int parse_container(struct parser *ps, struct json *j, char close) {
	int r;

	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		_cleanup_free_ char *key = NULL;
		struct json *v = NULL;

		skip_ws(ps);
		if (j->type == JSON_OBJECT) {
			r = parse_string(ps, &key);
			if (r < 0)
				return r;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return -EINVAL;
			ps->p++;
		}
		r = parse_value(ps, &v);
		if (r < 0)
			return r;
		r = add_member(j, key, v);
		if (r < 0) {
			json_free(v);
			return r;
		}
		key = NULL; /* owned by j now */
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		return -EINVAL;
	}
}

static bool match_word(struct parser *ps, const char *w) {
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
		return false;
	ps->p += n;
	return true;
}

static int parse_value(struct parser *ps, struct json **ret) {
	struct json *j;
	int r = 0;

	skip_ws(ps);
	if (ps->p >= ps->end || ps->depth >= JSON_MAX_DEPTH)
		return -EINVAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	ps->depth++;
	j->start = (size_t)(ps->p - ps->start);
	if (*ps->p == '{') {
		j->type = JSON_OBJECT;
		r = parse_container(ps, j, '}');
	} else if (*ps->p == '[') {
		j->type = JSON_ARRAY;
		r = parse_container(ps, j, ']');
	} else if (*ps->p == '"') {
		j->type = JSON_STRING;
		r = parse_string(ps, &j->string);
	} else if (match_word(ps, "true")) {
		j->type = JSON_BOOL;
		j->boolean = true;
	} else if (match_word(ps, "false")) {
		j->type = JSON_BOOL;
	} else if (match_word(ps, "null")) {
		j->type = JSON_NULL;
	} else {
		char tmp[64], *endp;
		size_t n = 0;

		while (ps->p + n < ps->end && n < sizeof(tmp) - 1 &&
		       strchr("+-0123456789.eE", ps->p[n]))
			n++;
		memcpy(tmp, ps->p, n);
		tmp[n] = '\0';
		j->type = JSON_NUMBER;
		j->number = strtod(tmp, &endp);
		if (n == 0 || *endp != '\0')
			r = -EINVAL;
		ps->p += n;
	}
	ps->depth--;
	if (r < 0) {
		json_free(j);
		return r;
	}
	j->end = (size_t)(ps->p - ps->start);
	*ret = j;
	return 0;
}

int json_parse(const char *text, size_t len, struct json **ret, size_t *ret_offset) {
	struct parser ps = { .p = text, .end = text + len, .start = text };
	struct json *j = NULL;
	int r;

	r = parse_value(&ps, &j);
	if (r == 0) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			json_free(j);
			r = -EINVAL;
		}
	}
	if (r < 0) {
		if (ret_offset)
			*ret_offset = (size_t)(ps.p - ps.start);
		return r;
	}
	*ret = j;
	return 0;
}

struct json *json_free(struct json *j) {
	if (!j)
		return NULL;
	for (size_t i = 0; i < j->n; i++) {
		if (j->keys)
			free(j->keys[i]);
		json_free(j->values[i]);
	}
	free(j->keys);
	free(j->values);
	free(j->string);
	free(j);
	return NULL;
}

const struct json *json_get(const struct json *obj, const char *key) {
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->values[i];
	return NULL;
}

double json_get_number(const struct json *obj, const char *key, double def) {
	const struct json *v = json_get(obj, key);

	return v && v->type == JSON_NUMBER ? v->number : def;
}

const char *json_get_string(const struct json *obj, const char *key) {
	const struct json *v = json_get(obj, key);

	return v && v->type == JSON_STRING ? v->string : NULL;
}

bool json_get_bool(const struct json *obj, const char *key, bool def) {
	const struct json *v = json_get(obj, key);

	return v && v->type == JSON_BOOL ? v->boolean : def;
}

void json_write_string(FILE *f, const char *s) {
	char small[512];
	_cleanup_free_ char *big = NULL;
	char *buf = small;
	size_t need = 0, pos = 0;

	/* json_escape() counts all it would write: one pass for a short
	 * string, a second into a buffer that fits for a long one */
	json_escape(small, sizeof(small), &need, s);
	if (need >= sizeof(small)) {
		big = malloc(need + 1);
		if (!big) {
			fputs("null", f);
			return;
		}
		json_escape(big, need + 1, &pos, s);
		buf = big;
	}
	fputc('"', f);
	fwrite(buf, 1, need, f);
	fputc('"', f);
}

void json_write_number(FILE *f, double v) {
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}
