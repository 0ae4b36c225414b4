/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf-parse.c — the config loader's parsers of values and validators of
 * strings, the functions the schema's keys name (the tables are in
 * conf.c). A parser reads one setting of its type (the file must hold
 * exactly that type: a boolean, an integer in the key's range, a number,
 * one of the key's names, a string, a list of strings, event names, pids,
 * user or group ids and names, an exec output's user or group, a verdict)
 * into the scope's struct at the key's offset; a validator checks (and
 * may normalise) one string of a string key: paths, globs, rule and output
 * names, process names, the json output's file, an exec argv. Both report
 * through conf.c's error_at() and return false after an error; they apply
 * defaults too (parsed from the schema's default text, sc->defaults).
 * What is made of groups (limits, outputs, rules, decisions) is parsed in
 * conf.c.
 */
#include <ctype.h>
#include <errno.h>
#include <sys/un.h>
#include <grp.h>
#include <libconfig.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-private.h"
#include "exec-placeholders.h"
#include "conf.h"
#include "fsn-uapi.h"
#include "fsn.h"
#include "util.h"

static bool is_int(const config_setting_t *s) {
	int t = config_setting_type(s);

	return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

static bool is_sequence(const config_setting_t *s) {
	int t = config_setting_type(s);

	return t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST;
}

#define DEST(sc, k, type) ((type *)((char *)(sc)->base + (k)->off))
#define COUNT(sc, k) ((size_t *)((char *)(sc)->base + (k)->n_off))

/* ------------------------------------------------------------------------ */
/* parsers: one per type of value                                           */
/* ------------------------------------------------------------------------ */

bool parse_bool(struct scope *sc, const struct key *k, const config_setting_t *s) {
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		type_error(sc, k, s, "a boolean (true or false)");
		return false;
	}
	*DEST(sc, k, bool) = config_setting_get_bool(s);
	return true;
}

static bool get_int(struct scope *sc, const struct key *k, const config_setting_t *s,
		    long long *ret) {
	long long v;

	if (!is_int(s)) {
		type_error(sc, k, s, "an integer");
		return false;
	}
	v = config_setting_get_int64(s);
	if (v < k->min || v > k->max) {
		error_at(sc, s, "%s: %lld is out of range (%lld to %lld)", k->name, v, k->min,
			 k->max);
		return false;
	}
	*ret = v;
	return true;
}

bool parse_uint(struct scope *sc, const struct key *k, const config_setting_t *s) {
	long long v;

	if (!get_int(sc, k, s, &v))
		return false;
	*DEST(sc, k, unsigned) = (unsigned)v;
	return true;
}

bool parse_double(struct scope *sc, const struct key *k, const config_setting_t *s) {
	double v;

	if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else if (is_int(s))
		v = (double)config_setting_get_int64(s);
	else {
		type_error(sc, k, s, "a number");
		return false;
	}
	if (!(v > (double)k->min && v <= (double)k->max)) {
		error_at(sc, s, "%s: %g is out of range (more than %lld, at most %lld)", k->name, v,
			 k->min, k->max);
		return false;
	}
	*DEST(sc, k, double) = v;
	return true;
}

bool parse_enum(struct scope *sc, const struct key *k, const config_setting_t *s) {
	const char *v;
	char list[256] = "";
	size_t pos = 0;

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		type_error(sc, k, s, "a string");
		return false;
	}
	v = config_setting_get_string(s);
	for (size_t i = 0; i < k->n_names; i++)
		if (strcmp(v, k->names[i]) == 0) {
			*DEST(sc, k, int) = k->values[i];
			return true;
		}
	for (size_t i = 0; i < k->n_names && pos < sizeof(list); i++)
		pos += snprintf(list + pos, sizeof(list) - pos, "%s\"%s\"", i ? ", " : "",
				k->names[i]);
	error_at(sc, s, "%s: unknown value \"%s\" (one of %s)", k->name, P(v), list);
	return false;
}

/* One string (with its check); *ret allocated. */
static bool get_string(struct scope *sc, const struct key *k, const config_setting_t *s,
		       char **ret) {
	const char *v;
	char *out = NULL;

	v = config_setting_get_string(s);
	if (k->check && !k->check(sc, k, s, v, &out))
		return false;
	*ret = out ? out : l_strdup(sc->l, v);
	return *ret != NULL;
}

bool parse_string(struct scope *sc, const struct key *k, const config_setting_t *s) {
	char *v;

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		type_error(sc, k, s, "a string");
		return false;
	}
	if (!get_string(sc, k, s, &v))
		return false;
	free(*DEST(sc, k, char *));
	*DEST(sc, k, char *) = v;
	return true;
}

/* A list of strings: an array [ "a", "b" ] or a list ( "a", "b" ). */
static bool get_strings(struct scope *sc, const struct key *k, const config_setting_t *s,
			char ***ret, size_t *ret_n) {
	int n = is_sequence(s) ? config_setting_length(s) : 0;
	char **v;
	bool ok = true;
	size_t m = 0;
	struct strmap seen = { 0 }; /* k->unique: the strings so far */

	if (!is_sequence(s)) {
		type_error(sc, k, s, "an array of strings");
		return false;
	}
	v = l_oom(sc->l, calloc((size_t)n + 1, sizeof(char *)));
	if (!v)
		return false;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		char *str;

		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			error_at(sc, e, "%s: element %d: expected a string, not %s", k->name, i + 1,
				 type_words(e));
			ok = false;
			continue;
		}
		if (!get_string(sc, k, e, &str)) {
			ok = false;
			continue;
		}
		if (k->unique) {
			if (strmap_value_str(&seen, str)) {
				error_at(sc, e, "%s: '%s' is listed twice", k->name, P(str));
				free(str);
				ok = false;
				continue;
			}
			if (strmap_put_str(&seen, str, str) < 0)
				l_oom(sc->l, NULL);
		}
		v[m++] = str;
	}
	strmap_done(&seen);
	if (!ok) {
		strv_free(v, m);
		return false;
	}
	*ret = v;
	*ret_n = m;
	return true;
}

bool parse_strings(struct scope *sc, const struct key *k, const config_setting_t *s) {
	char **v;
	size_t n;

	if (!get_strings(sc, k, s, &v, &n))
		return false;
	strv_free(*DEST(sc, k, char **), *COUNT(sc, k));
	*DEST(sc, k, char **) = v;
	*COUNT(sc, k) = n;
	return true;
}

/* A list of output names, remembered to be checked after the merge. */
static bool add_refs(struct scope *sc, const config_setting_t *s, char **names, size_t n,
		     struct ref **refs, size_t *n_refs) {
	struct ref *v;

	v = l_oom(sc->l, realloc(*refs, (*n_refs + n + 1) * sizeof(*v)));
	if (!v)
		return false;
	*refs = v;
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		v[*n_refs] = (struct ref){
			.name = l_strdup(sc->l, names[i]),
			.who = l_strdup(sc->l, sc->where),
			.origin = { .file = l_strdup(sc->l, sc->defaults ? "(default)"
									 : setting_file(sc->l, e)),
				    .line = sc->defaults ? 0 : setting_line(e) },
		};
		(*n_refs)++;
	}
	return true;
}

void refs_free(struct ref *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].who);
		free(v[i].origin.file);
	}
	free(v);
}

bool parse_default_outputs(struct scope *sc, const struct key *k, const config_setting_t *s) {
	if (!parse_strings(sc, k, s))
		return false;
	/* An override replaces the list, and so the names to check. */
	refs_free(sc->l->drefs, sc->l->n_drefs);
	sc->l->drefs = NULL;
	sc->l->n_drefs = 0;
	return add_refs(sc, s, *DEST(sc, k, char **), *COUNT(sc, k), &sc->l->drefs,
			&sc->l->n_drefs);
}

bool parse_rule_outputs(struct scope *sc, const struct key *k, const config_setting_t *s) {
	if (!parse_strings(sc, k, s))
		return false;
	return add_refs(sc, s, *DEST(sc, k, char **), *COUNT(sc, k), &sc->l->refs, &sc->l->n_refs);
}

/* Event names: FAN_* bits, minus those no rule can ask for. */
bool parse_events(struct scope *sc, const struct key *k, const config_setting_t *s) {
	uint64_t mask = 0;
	bool ok = true;
	int n;

	if (!is_sequence(s)) {
		type_error(sc, k, s, "an array of event names");
		return false;
	}
	n = config_setting_length(s);
	if (n == 0) {
		error_at(sc, s, "%s: no events given", k->name);
		return false;
	}
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *name, *why = NULL;
		uint64_t m = 0;
		bool word = true;

		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			error_at(sc, e, "%s: element %d: expected a string, not %s", k->name, i + 1,
				 type_words(e));
			ok = false;
			continue;
		}
		name = config_setting_get_string(e);
		/* One lower-case name each (the parser would also take lists
		 * and hex numbers; a config names events). */
		for (const char *p = name; *p; p++)
			word = word && (islower((unsigned char)*p) || *p == '_');
		if (!*name || !word ||
		    fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, name, &m, NULL, 0) < 0) {
			error_at(sc, e, "unknown event '%s'", P(name));
			ok = false;
			continue;
		}
		if (m & FAN_Q_OVERFLOW)
			why = "queue overflows are always reported, not asked for";
		else if (m & FAN_ONDIR)
			why = "it is a flag, not an event: use ondir = true";
		else if (m & FAN_EVENT_ON_CHILD)
			why = "it is a flag, not an event: use children = true";
		else if (m & (FAN_MNT_ATTACH | FAN_MNT_DETACH))
			why = "mount namespace events are not supported";
		if (why) {
			error_at(sc, e, "event '%s': %s", name, why);
			ok = false;
			continue;
		}
		mask |= m;
	}
	if (!ok)
		return false;
	*DEST(sc, k, uint64_t) = mask;
	return true;
}

/* pids: integers 1 .. 4194304 (PID_MAX_LIMIT). */
bool parse_pids(struct scope *sc, const struct key *k, const config_setting_t *s) {
	int n = is_sequence(s) ? config_setting_length(s) : 0;
	_cleanup_free_ pid_t *v = NULL;
	bool ok = true;

	if (!is_sequence(s)) {
		type_error(sc, k, s, "an array of integers");
		return false;
	}
	v = l_oom(sc->l, calloc((size_t)n + 1, sizeof(pid_t)));
	if (!v)
		return false;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		long long x;

		if (!is_int(e)) {
			error_at(sc, e, "%s: element %d: expected an integer, not %s", k->name,
				 i + 1, type_words(e));
			ok = false;
			continue;
		}
		x = config_setting_get_int64(e);
		if (x < k->min || x > k->max) {
			error_at(sc, e, "%s: %lld is out of range (%lld to %lld)", k->name, x,
				 k->min, k->max);
			ok = false;
			continue;
		}
		v[i] = (pid_t)x;
	}
	if (!ok)
		return false;
	free(*DEST(sc, k, pid_t *));
	*DEST(sc, k, pid_t *) = steal_ptr(&v);
	*COUNT(sc, k) = (size_t)n;
	return true;
}

/* Look up a user or group name; false if unknown. */
typedef bool (*id_lookup_fn)(const char *name, uint32_t *ret);

static bool lookup_user(const char *name, uint32_t *ret) {
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*ret = res->pw_uid;
	return true;
}

static bool lookup_group(const char *name, uint32_t *ret) {
	struct group gr, *res = NULL;
	char buf[16384];

	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return false;
	*ret = res->gr_gid;
	return true;
}

/* uids, gids: integers, or names looked up now (what: "user", "group"). */
static bool parse_ids(struct scope *sc, const struct key *k, const config_setting_t *s,
		      id_lookup_fn lookup, const char *what) {
	int n = is_sequence(s) ? config_setting_length(s) : 0;
	_cleanup_free_ uint32_t *v = NULL;
	bool ok = true;

	if (!is_sequence(s)) {
		error_at(sc, s, "%s: expected a list of %s ids or names, not %s", k->name, what,
			 type_words(s));
		return false;
	}
	v = l_oom(sc->l, calloc((size_t)n + 1, sizeof(uint32_t)));
	if (!v)
		return false;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if (is_int(e)) {
			long long x = config_setting_get_int64(e);

			if (x < 0 || x >= (long long)UINT32_MAX) {
				error_at(sc, e, "%s: %lld is not a %s id", k->name, x, what);
				ok = false;
			} else
				v[i] = (uint32_t)x;
		} else if (config_setting_type(e) == CONFIG_TYPE_STRING) {
			const char *name = config_setting_get_string(e);

			if (!lookup(name, &v[i])) {
				error_at(sc, e, "%s: unknown %s '%s'", k->name, what, P(name));
				ok = false;
			}
		} else {
			error_at(sc, e, "%s: element %d: expected a %s id or name, not %s", k->name,
				 i + 1, what, type_words(e));
			ok = false;
		}
	}
	if (!ok)
		return false;
	free(*DEST(sc, k, uint32_t *));
	*DEST(sc, k, uint32_t *) = steal_ptr(&v);
	*COUNT(sc, k) = (size_t)n;
	return true;
}

/* An exec output's user or group: one id or name, looked up now. */
bool parse_run_as(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct output_conf *o = sc->base;
	bool user = strcmp(k->name, "user") == 0;
	const char *what = user ? "user" : "group";
	uint32_t id;

	if (is_int(s)) {
		long long x = config_setting_get_int64(s);

		if (x < 0 || x >= (long long)UINT32_MAX) {
			error_at(sc, s, "%s: %lld is not a %s id", k->name, x, what);
			return false;
		}
		id = (uint32_t)x;
	} else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		const char *name = config_setting_get_string(s);

		if (!(user ? lookup_user : lookup_group)(name, &id)) {
			error_at(sc, s, "%s: unknown %s '%s'", k->name, what, P(name));
			return false;
		}
	} else {
		error_at(sc, s, "%s: expected a %s id or name, not %s", k->name, what,
			 type_words(s));
		return false;
	}
	if (user) {
		struct passwd pw, *res = NULL;
		char buf[4096];

		o->has_user = true;
		o->user = id;
		o->has_user_gid = getpwuid_r(id, &pw, buf, sizeof(buf), &res) == 0 && res;
		o->user_gid = o->has_user_gid ? res->pw_gid : 0;
	} else {
		o->has_group = true;
		o->group = id;
	}
	return true;
}

bool parse_uids(struct scope *sc, const struct key *k, const config_setting_t *s) {
	return parse_ids(sc, k, s, lookup_user, "user");
}

bool parse_gids(struct scope *sc, const struct key *k, const config_setting_t *s) {
	return parse_ids(sc, k, s, lookup_group, "group");
}

/* "allow", "deny", "deny(ERRNO)" or "audit" (allow, audited). */
bool parse_verdict(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct verdict v = { 0 };
	const char *str, *open;
	char list[128] = "";
	size_t pos = 0;

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		type_error(sc, k, s,
			   "a verdict string (\"allow\", \"deny\", \"deny(EIO)\", \"audit\")");
		return false;
	}
	str = config_setting_get_string(s);
	open = strchr(str, '(');
	if (strcmp(str, "allow") == 0)
		;
	else if (strcmp(str, "audit") == 0)
		v.audit = true;
	else if (strcmp(str, "deny") == 0)
		v.deny = true;
	else if (strncmp(str, "deny(", 5) == 0 && open == str + 4 && str[strlen(str) - 1] == ')') {
		size_t n = strlen(str) - 6;

		v.deny = true;
		for (size_t i = 0; i < n_deny_errnos && !v.err; i++)
			if (strlen(deny_errnos[i].name) == n &&
			    strncmp(str + 5, deny_errnos[i].name, n) == 0)
				v.err = deny_errnos[i].err;
		if (!v.err) {
			for (size_t i = 0; i < n_deny_errnos; i++)
				pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%s",
							i ? ", " : "", deny_errnos[i].name);
			error_at(sc, s, "%s: '%s': the kernel's FAN_DENY_ERRNO takes only %s",
				 k->name, P(str), list);
			return false;
		}
		if (v.err == EPERM)
			v.err = 0; /* a plain deny says EPERM */
	} else {
		error_at(sc, s,
			 "%s: unknown verdict '%s' (one of \"allow\", \"deny\", \"deny(ERRNO)\", "
			 "\"audit\")",
			 k->name, P(str));
		return false;
	}
	*DEST(sc, k, struct verdict) = v;
	return true;
}

/* ------------------------------------------------------------------------ */
/* validators                                                               */
/* ------------------------------------------------------------------------ */

/* Absolute path: "//" and "/./" collapsed, no trailing '/', ".." refused. */
static int normalize_path(const char *in, char **ret, const char **why) {
	size_t len = strlen(in);
	_cleanup_free_ char *out = NULL;
	char *o;

	if (len == 0) {
		*why = "is empty";
		return -EINVAL;
	}
	if (in[0] != '/') {
		*why = "is not absolute";
		return -EINVAL;
	}
	if (len >= PATH_MAX) {
		*why = "is too long";
		return -EINVAL;
	}
	out = malloc(len + 2);
	if (!out)
		return -ENOMEM;
	o = out;
	for (const char *p = in; *p;) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p = e;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			*why = "contains '..'";
			return -EINVAL;
		}
		*o++ = '/';
		memcpy(o, p, n);
		o += n;
		p = e;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	*ret = steal_ptr(&out);
	return 0;
}

int config_normalize_path(const char *in, char **ret, const char **why) {
	return normalize_path(in, ret, why);
}

bool check_path(struct scope *sc, const struct key *k, const config_setting_t *s, const char *v,
		char **out) {
	const char *why = NULL;
	int r = normalize_path(v, out, &why);

	if (r == -ENOMEM)
		sc->l->oom = true;
	else if (r < 0)
		error_at(sc, s, "%s: '%s' %s", k->name, P(v), why);
	return r == 0;
}

bool check_socket_path(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out) {
	struct sockaddr_un sa;

	if (!*v)
		return true;
	if (!check_path(sc, k, s, v, out))
		return false;
	if (strlen(*out ? *out : v) >= sizeof(sa.sun_path)) {
		error_at(sc, s, "%s: '%s' is longer than a unix socket path can be (%zu bytes)",
			 k->name, P(v), sizeof(sa.sun_path) - 1);
		return false;
	}
	return true;
}

bool check_group_name(struct scope *sc, const struct key *k, const config_setting_t *s,
		      const char *v, char **out) {
	struct group gr, *res = NULL;
	char buf[4096];

	if (!*v)
		return true;
	if (getgrnam_r(v, &gr, buf, sizeof(buf), &res) != 0 || !res) {
		error_at(sc, s, "%s: no group '%s' on this system", k->name, P(v));
		return false;
	}
	return true;
}

/* An absolute path (normalised) or a glob (exclude, decisions' paths and exes). */
/* Whether fnmatch() (flags 0) reads pattern as its author meant: every
 * '[' closed by a ']' (one right after "[", "[!" or "[^" is a member), no
 * '\\' at the end. fnmatch() itself takes an unclosed '[' as a plain
 * character and never says so. NULL, or what is wrong. */
static const char *glob_error(const char *p) {
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return "it ends in a lone '\\'";
			continue;
		}
		if (*p != '[')
			continue;
		p++;
		if (*p == '!' || *p == '^')
			p++;
		if (*p == ']')
			p++;
		while (*p && *p != ']') {
			if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
				const char *close = strstr(p + 2, (char[]){ p[1], ']', '\0' });

				if (!close)
					return "a '[:' class is not closed with ':]'";
				p = close + 1;
			}
			p++;
		}
		if (!*p)
			return "a '[' is not closed with ']'";
	}
	return NULL;
}

bool check_path_or_glob(struct scope *sc, const struct key *k, const config_setting_t *s,
			const char *v, char **out) {
	const char *why;

	if (!*v) {
		error_at(sc, s, "%s: empty entry", k->name);
		return false;
	}
	if (is_glob(v)) {
		why = glob_error(v);
		if (why) {
			error_at(sc, s, "%s: '%s' is not a valid glob: %s", k->name, P(v), why);
			return false;
		}
		return true;
	}
	if (v[0] != '/') {
		error_at(sc, s,
			 "%s: '%s' is neither an absolute path nor a glob (to match a name "
			 "anywhere, write '*/%s')",
			 k->name, P(v), P(v));
		return false;
	}
	return check_path(sc, k, s, v, out);
}

bool check_rule_name(struct scope *sc, const struct key *k, const config_setting_t *s,
		     const char *v, char **out) {
	if (!*v) {
		error_at(sc, s, "%s: empty", k->name);
		return false;
	}
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p)) {
			error_at(sc, s,
				 "%s: '%s' may contain only letters, digits, '_', '.' and '-'",
				 k->name, P(v));
			return false;
		}
	return true;
}

/* A rule's tag: 1-64 bytes of [A-Za-z0-9_.:=-] (a word for a SIEM's field,
 * a journal match, a shell), at most 16 of them. */
bool check_tag(struct scope *sc, const struct key *k, const config_setting_t *s, const char *v,
	       char **out) {
	size_t n = strlen(v);

	(void)out;
	if (n == 0) {
		error_at(sc, s, "%s: empty entry", k->name);
		return false;
	}
	if (config_setting_index(s) >= 16) {
		error_at(sc, s, "%s: more than 16 tags", k->name);
		return false;
	}
	if (n == 0 || n > 64 ||
	    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_.:=-") != n) {
		error_at(sc, s, "%s: '%s' is not 1-64 bytes of letters, digits and _ . : = -",
			 k->name, P(v));
		return false;
	}
	return true;
}

bool check_comm(struct scope *sc, const struct key *k, const config_setting_t *s, const char *v,
		char **out) {
	if (!*v) {
		error_at(sc, s, "%s: empty entry", k->name);
		return false;
	}
	if (strlen(v) > 15) {
		error_at(sc, s,
			 "%s: '%s' is longer than 15 bytes; the kernel keeps only the first 15 "
			 "bytes of a process name",
			 k->name, P(v));
		return false;
	}
	return true;
}

bool check_output_name(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out) {
	if (!*v) {
		error_at(sc, s, "%s: empty output name", k->name);
		return false;
	}
	return true;
}

bool check_output_file(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out) {
	if (sc->out_type == OUTPUT_METRICS && v[0] != '/') {
		error_at(sc, s, "%s: '%s' must be an absolute path", k->name, P(v));
		return false;
	}
	if (strcmp(v, "-") == 0)
		return true;
	if (v[0] != '/') {
		error_at(sc, s, "%s: '%s' must be an absolute path, or \"-\" for standard output",
			 k->name, P(v));
		return false;
	}
	return check_path(sc, k, s, v, out);
}

/* The placeholders output-exec.c substitutes (exec-placeholders.h). */
static const char *const placeholders[] = { EXEC_PLACEHOLDERS };

/* argv[0] absolute; only known placeholders ("{name}" with name of
 * lower-case letters and '_'; other braces are literal text). */
bool check_argv_elem(struct scope *sc, const struct key *k, const config_setting_t *s,
		     const char *v, char **out) {
	const config_setting_t *first = config_setting_get_elem(config_setting_parent(s), 0);

	if (s == first) {
		if (v[0] != '/') {
			error_at(sc, s,
				 "%s: the program '%s' must be an absolute path (it is run "
				 "without a shell and without $PATH)",
				 k->name, P(v));
			return false;
		}
		if (strchr(v, '{')) {
			error_at(sc, s, "%s: the program '%s' may not contain a placeholder",
				 k->name, P(v));
			return false;
		}
		return true;
	}
	for (const char *p = strchr(v, '{'); p; p = strchr(p + 1, '{')) {
		size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
		bool known = false;

		if (n == 0 || p[1 + n] != '}')
			continue;
		for (size_t i = 0; i < ELEMENTSOF(placeholders); i++)
			known = known || (strlen(placeholders[i]) == n &&
					  strncmp(placeholders[i], p + 1, n) == 0);
		if (!known) {
			error_at(sc, s,
				 "%s: unknown placeholder '%.*s' (known: " EXEC_PLACEHOLDERS_TEXT
				 ")",
				 k->name, (int)n + 2, p);
			return false;
		}
	}
	return true;
}
