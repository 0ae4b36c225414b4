/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * varlink-parse.c — one varlink call from one message (varlink.h
 * vl_parse_call()): pure, with nothing but the JSON reader under it, so
 * the fuzz target (tests/fuzz/fuzz-varlink.c) builds it alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "json.h"
#include "varlink.h"

/* interface.Method: [A-Za-z0-9] words joined by dots, a dot at least */
static bool method_name_ok(const char *m) {
	const char *dot = strrchr(m, '.');

	if (!dot || dot == m || !dot[1])
		return false;
	for (const char *p = m; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || (*p == '.' && p != m && p[1] && p[1] != '.') ||
		      *p == '_'))
			return false;
	return true;
}

static int flag(const struct json *doc, const char *key, bool *ret, const char **why) {
	const struct json *v = json_get(doc, key);

	*ret = false;
	if (!v || v->type == JSON_NULL)
		return 0;
	if (v->type != JSON_BOOL) {
		*why = "\"more\" and \"oneway\" must be booleans";
		return -EINVAL;
	}
	*ret = v->boolean;
	return 0;
}

int vl_parse_call(const char *msg, size_t len, struct vl_call *ret, const char **why) {
	struct vl_call c = { 0 };
	const struct json *params;
	size_t off = 0;
	int r;

	*ret = (struct vl_call){ 0 };
	*why = NULL;
	r = json_parse(msg, len, &c.doc, &off);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*why = "not JSON";
		return -EINVAL;
	}
	if (c.doc->type != JSON_OBJECT) {
		*why = "not a JSON object";
		goto fail;
	}
	c.method = json_get_string(c.doc, "method");
	if (!c.method || !method_name_ok(c.method)) {
		*why = "no \"method\", or not an interface.Method name";
		goto fail;
	}
	params = json_get(c.doc, "parameters");
	if (params && params->type != JSON_NULL && params->type != JSON_OBJECT) {
		*why = "\"parameters\" must be an object";
		goto fail;
	}
	c.params = params && params->type == JSON_OBJECT ? params : NULL;
	if (flag(c.doc, "more", &c.more, why) < 0 || flag(c.doc, "oneway", &c.oneway, why) < 0)
		goto fail;
	if (c.more && c.oneway) {
		*why = "\"more\" and \"oneway\" together";
		goto fail;
	}
	*ret = c;
	return 0;
fail:
	json_free(c.doc);
	return -EINVAL;
}

void vl_call_done(struct vl_call *c) {
	c->doc = json_free(c->doc);
	*c = (struct vl_call){ 0 };
}
