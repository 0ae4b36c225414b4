/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.c — the configuration file: the schema (one table per scope:
 * top level, `limits`, a rule, an output), and the loader that drives
 * parsing, defaults, validation and the conf.d/ drop-in merge from it.
 *
 * Each key is declared once, in a table below: its name, its parser (which
 * is its type: the file must hold exactly that type), where the value goes,
 * its default written in config syntax, its allowed range or names, an
 * optional validator, and one line of documentation. Defaults are applied by
 * parsing the default text with the same parser, so the documented default
 * (config_schema_foreach(), fsnotifyd.conf(5) and its test) is the default.
 *
 * The loader never stops at the first problem: every error is appended to
 * a struct config_errors, each naming file:line (the setting's own line,
 * from libconfig) and the rule, output or key. Memory failures set a flag
 * and make config_load() return -ENOMEM at the end.
 *
 * Merge rules for drop-ins (<dir of main file>/conf.d/ *.conf, lexical
 * order): `rules` are appended, `output` entries added or replaced by name,
 * every other setting (also each key of `limits`) overrides.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libconfig.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "conf.h"
#include "fsn-uapi.h"
#include "fsn.h"
#include "util.h"

/* ------------------------------------------------------------------------ */
/* the loader's state                                                       */
/* ------------------------------------------------------------------------ */

/* A name of an output used somewhere, checked once every file is merged. */
struct ref {
	char *name;
	char *who; /* "rule 'x'", or NULL for the top-level `outputs` */
	struct config_origin origin;
};

struct loader {
	struct config *c;
	struct config_errors *errors;
	size_t n_errors_before;
	bool oom;
	bool unreadable;  /* a file could not be read or parsed: skip cross checks */
	const char *file; /* the file being read */
	struct ref *refs; /* rules' outputs */
	size_t n_refs;
	struct ref *drefs; /* the top-level `outputs` (replaced when overridden) */
	size_t n_drefs;
	struct ref *seen_rules; /* every rule name read, also of rules with errors */
	size_t n_seen_rules, seen_cap;
	struct strmap seen_names; /* name -> index + 1 in seen_rules */
	char **bad_outputs;       /* outputs that had errors: no "unknown output" for them */
	size_t n_bad_outputs;
	size_t n_rule_entries; /* rules read, also those with errors */
	bool rules_bad;        /* a `rules` setting was not a list */
	config_t defaults[5];  /* parsed default text per table, see TABLE_* */
	bool defaults_ok[5];
	/* the files of one load_file(), as libconfig reads them: copies in
	 * memory (see prepare_file()), by the name libconfig knows them by */
	struct cfgcopy {
		int fd;
		char name[32]; /* "/proc/self/fd/N" */
		char *path;    /* the file it is a copy of */
	} * copies;
	size_t n_copies;
};

struct key;

/* Where keys are being read into. */
struct scope {
	struct loader *l;
	void *base;                   /* the struct the keys' offsets point into */
	const char *where;            /* "rule 'x'", "output 'y'", "limits", or NULL at the top */
	bool defaults;                /* applying defaults: no per-type checks */
	int out_type;                 /* in an output: its type, -1 if unknown */
	const config_setting_t *done; /* already read (an output's type): skip it */
};

typedef bool (*parse_fn)(struct scope *sc, const struct key *k, const config_setting_t *s);
/* Validate (and normalise) one string; false after reporting an error.
 * *out: an allocated replacement, or left NULL to keep the string. */
typedef bool (*check_fn)(struct scope *sc, const struct key *k, const config_setting_t *s,
			 const char *value, char **out);

struct table {
	int id; /* TABLE_* */
	const char *scope;
	const struct key *keys;
	size_t n_keys;
};

enum {
	TABLE_TOP = 0,
	TABLE_LIMITS,
	TABLE_RULE,
	TABLE_OUTPUT,
	TABLE_DECISION,
};

struct key {
	const char *name;
	parse_fn parse;
	const char *type; /* in words, for documentation */
	size_t off;       /* destination, in the scope's struct */
	size_t n_off;     /* element count, for lists */
	const char *def;  /* default in config syntax; NULL: none */
	bool required;
	long long min, max;       /* integers: allowed range */
	const char *const *names; /* enums: allowed names ... */
	const int *values;        /* ... and their values */
	size_t n_names;
	check_fn check;          /* strings: validator */
	bool unique;             /* lists: no element twice */
	unsigned types;          /* outputs: 1 << OUTPUT_* the key is valid for; 0: all */
	const struct table *sub; /* groups */
	const char *doc;
};

/* ------------------------------------------------------------------------ */
/* small helpers                                                            */
/* ------------------------------------------------------------------------ */

static void *l_oom(struct loader *l, void *p) {
	if (!p)
		l->oom = true;
	return p;
}

static char *l_strdup(struct loader *l, const char *s) {
	return s ? l_oom(l, strdup(s)) : NULL;
}

/* A string for a message: printable ASCII as is, other bytes as \xNN,
 * cut after 200 bytes. */
static const char *printable(const char *s, char *buf, size_t len) {
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 8 < len; p++) {
		if (p - (const unsigned char *)s >= 200) {
			o += snprintf(buf + o, len - o, "...");
			break;
		}
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			buf[o++] = (char)*p;
		else
			o += snprintf(buf + o, len - o, "\\x%02x", *p);
	}
	buf[o] = '\0';
	return buf;
}

#define P(s) printable((s), (char[1024]){ 0 }, 1024)

/* The file libconfig names (an include's copy) as the user knows it. */
static const char *real_file(const struct loader *l, const char *f) {
	for (size_t i = 0; f && i < l->n_copies; i++) /* (a few: the includes of one file) */
		if (strcmp(l->copies[i].name, f) == 0)
			return l->copies[i].path;
	return f;
}

static const char *setting_file(struct loader *l, const config_setting_t *s) {
	const char *f = s ? config_setting_source_file(s) : NULL;

	return f ? real_file(l, f) : l->file;
}

static int setting_line(const config_setting_t *s) {
	return s ? (int)config_setting_source_line(s) : 0;
}

static void add_error_v(struct loader *l, const char *file, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void add_error_v(struct loader *l, const char *file, int line, const char *fmt, va_list ap) {
	struct config_errors *e = l->errors;
	struct config_error *v;
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		l->oom = true;
		return;
	}
	v = realloc(e->v, (e->n + 1) * sizeof(*v));
	if (!v) {
		free(msg);
		l->oom = true;
		return;
	}
	e->v = v;
	e->v[e->n] = (struct config_error){ .file = strdup(file ? file : "(unknown)"),
					    .line = line,
					    .msg = msg };
	if (!e->v[e->n].file)
		l->oom = true;
	e->n++;
}

__attribute__((format(printf, 4, 5))) static void add_error(struct loader *l, const char *file,
							    int line, const char *fmt, ...) {
	va_list ap;

	va_start(ap, fmt);
	add_error_v(l, file, line, fmt, ap);
	va_end(ap);
}

/* An error about setting s (its file and line), prefixed with the scope. */
__attribute__((format(printf, 3, 4))) static void
error_at(struct scope *sc, const config_setting_t *s, const char *fmt, ...) {
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sc->where)
		add_error(sc->l, setting_file(sc->l, s), setting_line(s), "%s: %s", sc->where, msg);
	else
		add_error(sc->l, setting_file(sc->l, s), setting_line(s), "%s", msg);
}

static const char *type_words(const config_setting_t *s) {
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number with a fraction";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	default: return "nothing";
	}
}

static void type_error(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *expected) {
	error_at(sc, s, "%s: expected %s, not %s", k->name, expected, type_words(s));
}

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

static bool parse_bool(struct scope *sc, const struct key *k, const config_setting_t *s) {
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

static bool parse_uint(struct scope *sc, const struct key *k, const config_setting_t *s) {
	long long v;

	if (!get_int(sc, k, s, &v))
		return false;
	*DEST(sc, k, unsigned) = (unsigned)v;
	return true;
}

static bool parse_double(struct scope *sc, const struct key *k, const config_setting_t *s) {
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

static bool parse_enum(struct scope *sc, const struct key *k, const config_setting_t *s) {
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

static bool parse_string(struct scope *sc, const struct key *k, const config_setting_t *s) {
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

static bool parse_strings(struct scope *sc, const struct key *k, const config_setting_t *s) {
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

static void refs_free(struct ref *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].who);
		free(v[i].origin.file);
	}
	free(v);
}

static bool parse_default_outputs(struct scope *sc, const struct key *k,
				  const config_setting_t *s) {
	if (!parse_strings(sc, k, s))
		return false;
	/* An override replaces the list, and so the names to check. */
	refs_free(sc->l->drefs, sc->l->n_drefs);
	sc->l->drefs = NULL;
	sc->l->n_drefs = 0;
	return add_refs(sc, s, *DEST(sc, k, char **), *COUNT(sc, k), &sc->l->drefs,
			&sc->l->n_drefs);
}

static bool parse_rule_outputs(struct scope *sc, const struct key *k, const config_setting_t *s) {
	if (!parse_strings(sc, k, s))
		return false;
	return add_refs(sc, s, *DEST(sc, k, char **), *COUNT(sc, k), &sc->l->refs, &sc->l->n_refs);
}

/* Event names: FAN_* bits, minus those no rule can ask for. */
static bool parse_events(struct scope *sc, const struct key *k, const config_setting_t *s) {
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
static bool parse_pids(struct scope *sc, const struct key *k, const config_setting_t *s) {
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
static bool parse_run_as(struct scope *sc, const struct key *k, const config_setting_t *s) {
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

static bool parse_uids(struct scope *sc, const struct key *k, const config_setting_t *s) {
	return parse_ids(sc, k, s, lookup_user, "user");
}

static bool parse_gids(struct scope *sc, const struct key *k, const config_setting_t *s) {
	return parse_ids(sc, k, s, lookup_group, "group");
}

/* The errnos FAN_DENY_ERRNO() takes (the kernel refuses others). */
const struct deny_errno deny_errnos[] = {
	{ EIO, "EIO" },       { EPERM, "EPERM" },   { EBUSY, "EBUSY" },   { ETXTBSY, "ETXTBSY" },
	{ EAGAIN, "EAGAIN" }, { ENOSPC, "ENOSPC" }, { EDQUOT, "EDQUOT" },
};
const size_t n_deny_errnos = ELEMENTSOF(deny_errnos);

/* "allow", "deny", "deny(ERRNO)" or "audit" (allow, audited). */
static bool parse_verdict(struct scope *sc, const struct key *k, const config_setting_t *s) {
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
		for (size_t i = 0; i < ELEMENTSOF(deny_errnos) && !v.err; i++)
			if (strlen(deny_errnos[i].name) == n &&
			    strncmp(str + 5, deny_errnos[i].name, n) == 0)
				v.err = deny_errnos[i].err;
		if (!v.err) {
			for (size_t i = 0; i < ELEMENTSOF(deny_errnos); i++)
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

static void read_group(struct scope *sc, const struct table *t, config_setting_t *group);

/* A group of keys into the same struct (limits). */
static bool parse_group(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct scope sub = *sc;

	if (!config_setting_is_group(s)) {
		type_error(sc, k, s, "a group { ... }");
		return false;
	}
	sub.where = k->name;
	read_group(&sub, k->sub, (config_setting_t *)s);
	return true;
}

static bool parse_outputs(struct scope *sc, const struct key *k, const config_setting_t *s);
static bool parse_rules(struct scope *sc, const struct key *k, const config_setting_t *s);

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

static bool check_path(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out) {
	const char *why = NULL;
	int r = normalize_path(v, out, &why);

	if (r == -ENOMEM)
		sc->l->oom = true;
	else if (r < 0)
		error_at(sc, s, "%s: '%s' %s", k->name, P(v), why);
	return r == 0;
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

static bool check_path_or_glob(struct scope *sc, const struct key *k, const config_setting_t *s,
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

static bool check_rule_name(struct scope *sc, const struct key *k, const config_setting_t *s,
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

static bool check_comm(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out) {
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

static bool check_output_name(struct scope *sc, const struct key *k, const config_setting_t *s,
			      const char *v, char **out) {
	if (!*v) {
		error_at(sc, s, "%s: empty output name", k->name);
		return false;
	}
	return true;
}

static bool check_json_file(struct scope *sc, const struct key *k, const config_setting_t *s,
			    const char *v, char **out) {
	if (strcmp(v, "-") == 0)
		return true;
	if (v[0] != '/') {
		error_at(sc, s, "%s: '%s' must be an absolute path, or \"-\" for standard output",
			 k->name, P(v));
		return false;
	}
	return check_path(sc, k, s, v, out);
}

/* The placeholders output-exec.c substitutes (exec_template_check()). */
static const char *const placeholders[] = { "{path}", "{old_path}", "{rule}", "{events}", "{kind}",
					    "{pid}",  "{comm}",     "{uid}",  "{time}" };

/* argv[0] absolute; only known placeholders ("{name}" with name of
 * lower-case letters and '_'; other braces are literal text). */
static bool check_argv_elem(struct scope *sc, const struct key *k, const config_setting_t *s,
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
			known = known || (strlen(placeholders[i]) == n + 2 &&
					  strncmp(placeholders[i], p, n + 2) == 0);
		if (!known) {
			error_at(sc, s,
				 "%s: unknown placeholder '%.*s' (known: {path} {old_path} {rule} "
				 "{events} {kind} {pid} {comm} {uid} {time})",
				 k->name, (int)n + 2, p);
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* the schema                                                               */
/* ------------------------------------------------------------------------ */

static const char *const log_level_names[] = { "error", "warning", "notice", "info", "debug" };
static const int log_level_values[] = { LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG };

static const char *const mark_names[] = { "auto", "inode", "mount", "filesystem", "inotify" };
static const int mark_values[] = { RULE_MARK_AUTO, RULE_MARK_INODE, RULE_MARK_MOUNT,
				   RULE_MARK_FILESYSTEM, RULE_MARK_INOTIFY };

static const char *const watch_limit_names[] = { "warn", "refuse", "degrade" };
static const int watch_limit_values[] = { WATCH_LIMIT_WARN, WATCH_LIMIT_REFUSE,
					  WATCH_LIMIT_DEGRADE };

static const char *const output_type_names[] = { "journal", "json", "exec" };
static const int output_type_values[] = { OUTPUT_JOURNAL, OUTPUT_JSON, OUTPUT_EXEC };

#define ENUM(n, v) .names = (n), .values = (v), .n_names = ELEMENTSOF(n)

#define BOOL(st, f, d) .parse = parse_bool, .type = "boolean", .off = offsetof(st, f), .def = d
#define UINT(st, f, lo, hi, d)                                                                     \
	.parse = parse_uint, .type = "integer", .off = offsetof(st, f), .min = lo, .max = hi,      \
	.def = d
#define STRLIST(st, f)                                                                             \
	.type = "array of strings", .off = offsetof(st, f), .n_off = offsetof(st, n_##f)
#define STRS(st, f) .parse = parse_strings, STRLIST(st, f)

static const struct key limits_keys[] = {
	{ "max_marks", UINT(struct config, max_marks, 1, 1000000, "8192"),
	  .doc = "Fanotify marks and inotify watches the daemon may place, in total." },
	{ "rate_limit", UINT(struct config, rate_limit, 0, 10000000, "0"),
	  .doc = "Events per second reported per rule (a rule's own rate_limit overrides); "
		 "0: unlimited." },
	{ "queue_size", UINT(struct config, queue_size, 16, 16777216, "65536"),
	  .doc = "Events buffered for the outputs before further ones are dropped and "
		 "counted." },
	{ "kernel_queue", UINT(struct config, kernel_queue, 0, 16777216, "65536"),
	  .doc = "Events each kernel queue (fanotify group, inotify instance) holds before "
		 "it overflows; 0: the system's fs.fanotify/fs.inotify max_queued_events." },
	{ "unlimited_queue", BOOL(struct config, unlimited_queue, "false"),
	  .doc = "Create fanotify groups with FAN_UNLIMITED_QUEUE (no kernel queue limit)." },
	{ "status_interval", UINT(struct config, status_interval, 1, 86400, "10"),
	  .doc = "Seconds between STATUS= updates sent to systemd." },
};

static const struct table limits_table = { TABLE_LIMITS, "limits", limits_keys,
					   ELEMENTSOF(limits_keys) };

#define OUT_JSON (1u << OUTPUT_JSON)
#define OUT_EXEC (1u << OUTPUT_EXEC)

static const struct key output_keys[] = {
	{ "type", .parse = parse_enum, .type = "string", .off = offsetof(struct output_conf, type),
	  ENUM(output_type_names, output_type_values), .required = true,
	  .doc = "\"journal\", \"json\" or \"exec\"." },
	{ "file", .parse = parse_string, .type = "string",
	  .off = offsetof(struct output_conf, file), .def = "\"-\"", .check = check_json_file,
	  .types = OUT_JSON,
	  .doc = "json: the file JSON lines are appended to (absolute), or \"-\" for standard "
		 "output." },
	{ "argv", STRS(struct output_conf, argv), .check = check_argv_elem, .types = OUT_EXEC,
	  .doc = "exec (required): the command, an absolute program path and its arguments; "
		 "placeholders such as {path} {rule} {events} {pid}." },
	{ "max_running", UINT(struct output_conf, max_running, 1, 1024, "4"), .types = OUT_EXEC,
	  .doc = "exec: commands running at the same time, at most." },
	{ "rate", .parse = parse_double, .type = "number",
	  .off = offsetof(struct output_conf, rate), .min = 0, .max = 1000000, .def = "10",
	  .types = OUT_EXEC,
	  .doc = "exec: commands started per second, on average (token bucket)." },
	{ "burst", UINT(struct output_conf, burst, 1, 1000000, "20"), .types = OUT_EXEC,
	  .doc = "exec: commands that may start at once before rate applies (bucket size)." },
	{ "timeout", UINT(struct output_conf, timeout_sec, 1, 86400, "60"), .types = OUT_EXEC,
	  .doc = "exec: seconds a command may run before it is killed." },
	{ "user", .parse = parse_run_as, .type = "string or integer", .types = OUT_EXEC,
	  .doc = "exec: the user (name or uid) the command runs as; unset: the daemon's "
		 "(root), without capabilities." },
	{ "group", .parse = parse_run_as, .type = "string or integer", .types = OUT_EXEC,
	  .doc = "exec: the group (name or gid) the command runs as; unset: the user's primary "
		 "group, or the daemon's." },
};

static const struct table output_table = { TABLE_OUTPUT, "output", output_keys,
					   ELEMENTSOF(output_keys) };

static bool parse_decisions(struct scope *sc, const struct key *k, const config_setting_t *s);

static const struct key decision_keys[] = {
	{ "verdict", .parse = parse_verdict, .type = "string",
	  .off = offsetof(struct decision_conf, verdict), .required = true,
	  .doc = "\"allow\", \"deny\", \"deny(ERRNO)\" (EIO, EPERM, EBUSY, ETXTBSY, EAGAIN, "
		 "ENOSPC, EDQUOT) or \"audit\" (allow, with an audit record)." },
	{ "audit", BOOL(struct decision_conf, audit_key, "false"),
	  .doc = "Ask the kernel for an audit record of the verdict (FAN_AUDIT); unset: only "
		 "for \"audit\"." },
	{ "log", BOOL(struct decision_conf, log, "false"),
	  .doc = "Report the decision to the rule's outputs; unset: every verdict but a plain "
		 "allow is reported." },
	{ "paths", STRS(struct decision_conf, paths), .def = "[]", .check = check_path_or_glob,
	  .doc = "Match files at or below these absolute paths, or matching these globs." },
	{ "events", .parse = parse_events, .type = "array of strings",
	  .off = offsetof(struct decision_conf, events), .def = NULL,
	  .doc = "Match these permission events (of the rule's); unset: any." },
	{ "uids", .parse = parse_uids, .type = "list of integers or user names",
	  .off = offsetof(struct decision_conf, uids),
	  .n_off = offsetof(struct decision_conf, n_uids), .def = "[]",
	  .doc = "Match processes with these effective user ids." },
	{ "gids", .parse = parse_gids, .type = "list of integers or group names",
	  .off = offsetof(struct decision_conf, gids),
	  .n_off = offsetof(struct decision_conf, n_gids), .def = "[]",
	  .doc = "Match processes with these effective group ids." },
	{ "exes", STRS(struct decision_conf, exes), .def = "[]", .check = check_path_or_glob,
	  .doc = "Match processes whose executable is one of these paths or globs." },
	{ "comms", STRS(struct decision_conf, comms), .def = "[]", .check = check_comm,
	  .doc = "Match processes with these names (comm)." },
};

static const struct table decision_table = { TABLE_DECISION, "decision", decision_keys,
					     ELEMENTSOF(decision_keys) };

#define DEFAULT_EVENTS "[\"create\", \"delete\", \"moved_from\", \"moved_to\", \"close_write\"]"

static const struct key rule_keys[] = {
	{ "name", .parse = parse_string, .type = "string", .off = offsetof(struct rule_conf, name),
	  .required = true, .check = check_rule_name,
	  .doc = "The rule's name, unique: letters, digits, '_', '.', '-'." },
	{ "paths", STRS(struct rule_conf, paths), .required = true, .check = check_path,
	  .unique = true, .doc = "Absolute paths of the files or directories to watch." },
	{ "mark", .parse = parse_enum, .type = "string", .off = offsetof(struct rule_conf, mark),
	  ENUM(mark_names, mark_values), .def = "\"auto\"",
	  .doc = "The kernel mechanism: \"auto\", \"inode\", \"mount\", \"filesystem\" or "
		 "\"inotify\"." },
	{ "events", .parse = parse_events, .type = "array of strings",
	  .off = offsetof(struct rule_conf, events), .def = DEFAULT_EVENTS,
	  .doc = "Event names (fanotify's, lower case, without FAN_)." },
	{ "children", BOOL(struct rule_conf, children, "true"),
	  .doc = "Report events of a directory's entries (not only of the directory)." },
	{ "ondir", BOOL(struct rule_conf, ondir, "true"),
	  .doc = "Report events whose subject is a directory too." },
	{ "recursive", BOOL(struct rule_conf, recursive, "false"),
	  .doc = "Watch the whole subtree below each directory." },
	{ "create", BOOL(struct rule_conf, create, "false"),
	  .doc = "Create missing paths as directories (mode 0755) at start." },
	{ "required", BOOL(struct rule_conf, required, "false"),
	  .doc = "A rule that cannot be placed stops the daemon at start (and a reload keeps "
		 "the running config); permission rules: true unless set." },
	{ "exclude", STRS(struct rule_conf, exclude), .def = "[]", .check = check_path_or_glob,
	  .doc = "Absolute paths (with everything below) or glob patterns not to report." },
	{ "pids", .parse = parse_pids, .type = "array of integers",
	  .off = offsetof(struct rule_conf, pids), .n_off = offsetof(struct rule_conf, n_pids),
	  .min = 1, .max = 4194304, .def = "[]",
	  .doc = "Report only events caused by these process ids; empty: any." },
	{ "comms", STRS(struct rule_conf, comms), .def = "[]", .check = check_comm,
	  .doc = "Report only events caused by processes with these names; empty: any." },
	{ "uids", .parse = parse_uids, .type = "list of integers or user names",
	  .off = offsetof(struct rule_conf, uids), .n_off = offsetof(struct rule_conf, n_uids),
	  .def = "[]", .doc = "Report only events caused by these users; empty: any." },
	{ "outputs", .parse = parse_rule_outputs, STRLIST(struct rule_conf, outputs), .def = "[]",
	  .check = check_output_name, .unique = true,
	  .doc = "Names of the outputs this rule's events go to; empty: the top-level "
		 "outputs." },
	{ "rate_limit", UINT(struct rule_conf, rate_limit, 0, 10000000, "0"),
	  .doc = "Events per second reported for this rule; 0: limits.rate_limit." },
	{ "watch_limit", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct rule_conf, watch_limit),
	  ENUM(watch_limit_names, watch_limit_values), .def = "\"warn\"",
	  .doc = "Recursive inotify rules whose tree needs more watches than "
		 "fs.inotify.max_user_watches or limits.max_marks allow: \"warn\" (place what "
		 "fits), \"refuse\" (place nothing) or \"degrade\" (the top directory only)." },
	{ "decisions", .parse = parse_decisions, .type = "list of groups",
	  .doc = "Permission rules: the decision list, evaluated in order: ( { paths = [...]; "
		 "verdict = \"deny\"; }, ... )." },
	{ "default", .parse = parse_verdict, .type = "string",
	  .off = offsetof(struct rule_conf, def), .def = "\"allow\"",
	  .doc = "Permission rules: the verdict when no decision matches." },
	{ "deadline_ms", UINT(struct rule_conf, deadline_ms, 1, 60000, "500"),
	  .doc = "Permission rules: every event is answered within this many milliseconds." },
	{ "deadline_verdict", .parse = parse_verdict, .type = "string",
	  .off = offsetof(struct rule_conf, deadline_verdict),
	  .doc = "Permission rules: the verdict of an event not decided by its deadline; "
		 "unset: the rule's default." },
	{ "debug_delay_ms", UINT(struct rule_conf, debug_delay_ms, 0, 3600000, "0"),
	  .doc = "Permission rules, for tests: every decision becomes ready this many "
		 "milliseconds late (shows the deadline at work)." },
};

static const struct table rule_table = { TABLE_RULE, "rule", rule_keys, ELEMENTSOF(rule_keys) };

static const struct key top_keys[] = {
	{ "log_level", .parse = parse_enum, .type = "string",
	  .off = offsetof(struct config, log_level), ENUM(log_level_names, log_level_values),
	  .def = "\"info\"", .doc = "The daemon's own messages up to this priority are logged." },
	{ "outputs", .parse = parse_default_outputs, STRLIST(struct config, default_outputs),
	  .def = "[\"journal\"]", .check = check_output_name, .unique = true,
	  .doc = "Outputs of rules that name none." },
	{ "output", .parse = parse_outputs, .type = "group of groups",
	  .doc = "The outputs, by name: output = { NAME = { type = ...; ... }; };" },
	{ "limits", .parse = parse_group, .type = "group", .sub = &limits_table,
	  .doc = "Limits and fanotify group options." },
	{ "rules", .parse = parse_rules, .type = "list of groups",
	  .doc = "The rules: rules = ( { name = ...; paths = [...]; ... }, ... );" },
};

static const struct table top_table = { TABLE_TOP, "", top_keys, ELEMENTSOF(top_keys) };

static const struct table *const all_tables[] = { &top_table, &limits_table, &rule_table,
						  &output_table, &decision_table };

void config_schema_foreach(void (*fn)(const struct config_key_info *k, void *userdata),
			   void *userdata) {
	for (size_t t = 0; t < ELEMENTSOF(all_tables); t++)
		for (size_t i = 0; i < all_tables[t]->n_keys; i++) {
			const struct key *k = &all_tables[t]->keys[i];
			const struct config_key_info info = {
				.scope = all_tables[t]->scope,
				.name = k->name,
				.type = k->type,
				.def = k->def,
				.required = k->required,
				.doc = k->doc,
			};

			fn(&info, userdata);
		}
}

/* ------------------------------------------------------------------------ */
/* walking groups                                                           */
/* ------------------------------------------------------------------------ */

static const struct key *find_key(const struct table *t, const char *name) {
	for (size_t i = 0; i < t->n_keys; i++)
		if (strcmp(t->keys[i].name, name) == 0)
			return &t->keys[i];
	return NULL;
}

/* Levenshtein distance, capped: for "did you mean". */
static size_t distance(const char *a, const char *b) {
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
		}
		memcpy(prev, cur, sizeof(cur));
	}
	return prev[lb];
}

static void unknown_key(struct scope *sc, const struct table *t, const config_setting_t *s) {
	const char *name = config_setting_name(s);
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < t->n_keys; i++) {
		size_t d = distance(name, t->keys[i].name);

		if (d < best_d) {
			best_d = d;
			best = t->keys[i].name;
		}
	}
	if (best)
		error_at(sc, s, "unknown key '%s' (did you mean '%s'?)", name, best);
	else
		error_at(sc, s, "unknown key '%s'", name);
}

/* Apply the table's defaults to sc->base (parsed from the default text). */
static void apply_defaults(struct scope *sc, const struct table *t) {
	struct loader *l = sc->l;
	struct scope d = *sc;
	config_setting_t *root;

	if (!l->defaults_ok[t->id])
		return;
	root = config_root_setting(&l->defaults[t->id]);
	d.defaults = true;
	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
		const struct key *k = find_key(t, config_setting_name(s));

		if (k)
			k->parse(&d, k, s);
	}
}

static void read_group(struct scope *sc, const struct table *t, config_setting_t *group) {
	struct scope g = *sc;

	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const struct key *k = find_key(t, config_setting_name(s));

		if (s == g.done)
			continue;
		if (!k) {
			unknown_key(&g, t, s);
			continue;
		}
		if (k->types && g.out_type >= 0 && !(k->types & (1u << g.out_type))) {
			error_at(&g, s, "'%s' is only valid for %s outputs", k->name,
				 k->types == OUT_JSON ? "json" : "exec");
			continue;
		}
		k->parse(&g, k, s);
	}
	for (size_t i = 0; i < t->n_keys; i++)
		if (t->keys[i].required && !config_setting_get_member(group, t->keys[i].name))
			error_at(&g, group, "missing key '%s'", t->keys[i].name);
}

/* ------------------------------------------------------------------------ */
/* outputs                                                                  */
/* ------------------------------------------------------------------------ */

static void output_conf_done(struct output_conf *o) {
	free(o->name);
	free(o->origin.file);
	free(o->file);
	strv_free(o->argv, o->n_argv);
}

static char *steal_name(struct output_conf *o) {
	char *n = o->name;

	o->name = NULL;
	return n;
}

static bool parse_one_output(struct scope *sc, config_setting_t *s, struct output_conf *o) {
	char where[512];
	struct scope os = *sc;
	const char *name = config_setting_name(s);
	const config_setting_t *type = config_setting_get_member(s, "type");
	size_t n_errors = sc->l->errors->n;

	snprintf(where, sizeof(where), "output '%s'", name);
	os.where = where;
	os.base = o;
	os.out_type = -1;
	o->name = l_strdup(sc->l, name);
	o->origin.file = l_strdup(sc->l, setting_file(sc->l, s));
	o->origin.line = setting_line(s);
	apply_defaults(&os, &output_table);
	if (strchr(name, '*')) {
		error_at(&os, s, "the name may not contain '*'");
		return false;
	}
	if (!config_setting_is_group(s)) {
		error_at(&os, s, "expected a group { type = ...; }, not %s", type_words(s));
		return false;
	}
	/* The type first: which keys are valid depends on it. */
	if (type) {
		const struct key *k = find_key(&output_table, "type");

		if (k->parse(&os, k, type))
			os.out_type = (int)o->type;
		os.done = type;
	}
	read_group(&os, &output_table, s);
	if (os.out_type == OUTPUT_EXEC && !config_setting_get_member(s, "argv"))
		error_at(&os, s, "exec outputs need 'argv'");
	else if (os.out_type == OUTPUT_EXEC && o->n_argv == 0 && sc->l->errors->n == n_errors)
		error_at(&os, config_setting_get_member(s, "argv"), "argv: empty");
	if (o->has_user && !o->has_user_gid && !o->has_group)
		error_at(&os, config_setting_get_member(s, "user"),
			 "user: uid %u has no passwd entry, so no primary group: give 'group' too",
			 (unsigned)o->user);
	return sc->l->errors->n == n_errors;
}

static struct output_conf *find_output(struct config *c, const char *name) {
	for (size_t i = 0; i < c->n_outputs; i++)
		if (strcmp(c->outputs[i].name, name) == 0)
			return &c->outputs[i];
	return NULL;
}

/* output = { NAME = { ... }; ... }: added, or replacing one of that name. */
static bool parse_outputs(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct config *c = sc->l->c;

	if (!config_setting_is_group(s)) {
		type_error(sc, k, s, "a group of outputs { NAME = { ... }; }");
		return false;
	}
	for (int i = 0; i < config_setting_length(s); i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct output_conf o = { 0 }, *old;

		if (!parse_one_output(sc, e, &o)) {
			char **v = l_oom(sc->l, realloc(sc->l->bad_outputs,
							(sc->l->n_bad_outputs + 1) * sizeof(*v)));

			if (v) {
				sc->l->bad_outputs = v;
				v[sc->l->n_bad_outputs++] = steal_name(&o);
			}
			output_conf_done(&o);
			continue;
		}
		old = find_output(c, o.name);
		if (old) {
			output_conf_done(old);
			*old = o;
		} else {
			struct output_conf *v =
			    l_oom(sc->l, realloc(c->outputs, (c->n_outputs + 1) * sizeof(*v)));

			if (!v) {
				output_conf_done(&o);
				return false;
			}
			c->outputs = v;
			c->outputs[c->n_outputs++] = o;
		}
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* rules                                                                    */
/* ------------------------------------------------------------------------ */

static void decision_conf_done(struct decision_conf *d) {
	free(d->origin.file);
	strv_free(d->paths, d->n_paths);
	free(d->uids);
	free(d->gids);
	strv_free(d->exes, d->n_exes);
	strv_free(d->comms, d->n_comms);
}

static void rule_conf_done(struct rule_conf *r) {
	for (size_t i = 0; i < r->n_decisions; i++)
		decision_conf_done(&r->decisions[i]);
	free(r->decisions);
	free(r->name);
	free(r->origin.file);
	strv_free(r->paths, r->n_paths);
	strv_free(r->exclude, r->n_exclude);
	free(r->pids);
	strv_free(r->comms, r->n_comms);
	free(r->uids);
	strv_free(r->outputs, r->n_outputs);
}

/* decisions = ( { verdict = ...; ... }, ... ) */
static bool parse_decisions(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct rule_conf *r = sc->base;
	size_t n_errors = sc->l->errors->n;
	int n;

	if (config_setting_type(s) != CONFIG_TYPE_LIST) {
		type_error(sc, k, s, "a list of groups ( { verdict = ...; }, ... )");
		return false;
	}
	n = config_setting_length(s);
	r->decisions = l_oom(sc->l, calloc((size_t)n + 1, sizeof(*r->decisions)));
	if (!r->decisions)
		return false;
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct decision_conf *d = &r->decisions[r->n_decisions++];
		struct scope ds = *sc;
		char where[600];

		snprintf(where, sizeof(where), "%s: decision #%d", sc->where, i + 1);
		ds.where = where;
		ds.base = d;
		d->origin.file = l_strdup(sc->l, setting_file(sc->l, e));
		d->origin.line = setting_line(e);
		if (!config_setting_is_group(e)) {
			error_at(&ds, e, "expected a group { verdict = ...; }, not %s",
				 type_words(e));
			continue;
		}
		apply_defaults(&ds, &decision_table);
		read_group(&ds, &decision_table, e);
		/* an explicit `audit` decides; else the verdict ("audit") does */
		if (config_setting_get_member(e, "audit"))
			d->verdict.audit = d->audit_key;
		if (!config_setting_get_member(e, "log"))
			d->log = d->verdict.deny || d->verdict.audit;
	}
	return sc->l->errors->n == n_errors;
}

/* What only a permission rule may have, and what it must not. */
static void check_perm_rule(struct scope *rs, config_setting_t *s, struct rule_conf *r) {
	static const char *const perm_only[] = { "decisions", "default", "deadline_ms",
						 "deadline_verdict", "debug_delay_ms" };
	const config_setting_t *events = config_setting_get_member(s, "events");
	char a[256], b[256];

	r->perm = (r->events & RULE_PERM_EVENTS) != 0;
	if (!r->perm) {
		for (size_t i = 0; i < ELEMENTSOF(perm_only); i++) {
			const config_setting_t *x = config_setting_get_member(s, perm_only[i]);

			if (x)
				error_at(rs, x,
					 "%s: only for rules with permission events (open_perm, "
					 "access_perm, open_exec_perm, pre_access)",
					 perm_only[i]);
		}
		return;
	}
	if (r->events & ~(uint64_t)RULE_PERM_EVENTS) {
		fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->events & RULE_PERM_EVENTS, a,
				sizeof(a));
		fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->events & ~(uint64_t)RULE_PERM_EVENTS, b,
				sizeof(b));
		error_at(rs, events,
			 "events: permission events (%s) and notification events (%s) cannot be "
			 "in one rule: put the notification events in a rule of their own",
			 a, b);
	}
	if (r->mark == RULE_MARK_INOTIFY)
		error_at(rs, config_setting_get_member(s, "mark"),
			 "mark: inotify cannot report permission events; use \"auto\", "
			 "\"inode\", \"mount\" or \"filesystem\"");
	if (!config_setting_get_member(s, "required"))
		r->required = true;
	if (!config_setting_get_member(s, "deadline_verdict"))
		r->deadline_verdict = r->def;
	for (size_t i = 0; i < r->n_decisions; i++) {
		struct decision_conf *d = &r->decisions[i];

		if (d->events & ~r->events) {
			fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, d->events & ~r->events, a,
					sizeof(a));
			add_error(rs->l, d->origin.file, d->origin.line,
				  "%s: decision #%zu: events: %s not among the rule's events",
				  rs->where, i + 1, a);
		}
	}
}

static bool parse_one_rule(struct scope *sc, config_setting_t *s, int index, struct rule_conf *r) {
	struct loader *l = sc->l;
	const config_setting_t *name = config_setting_get_member(s, "name");
	const config_setting_t *rec;
	size_t n_errors = l->errors->n;
	struct scope rs = *sc;
	char where[512];

	if (name && config_setting_type(name) == CONFIG_TYPE_STRING &&
	    *config_setting_get_string(name))
		snprintf(where, sizeof(where), "rule '%s'", P(config_setting_get_string(name)));
	else
		snprintf(where, sizeof(where), "rule #%d", index + 1);
	rs.where = where;
	rs.base = r;
	r->origin.file = l_strdup(l, setting_file(l, s));
	r->origin.line = setting_line(s);
	if (!config_setting_is_group(s)) {
		error_at(&rs, s, "expected a group { name = ...; paths = [...]; }, not %s",
			 type_words(s));
		return false;
	}
	apply_defaults(&rs, &rule_table);
	read_group(&rs, &rule_table, s);
	check_perm_rule(&rs, s, r);
	if (r->paths && r->n_paths == 0)
		error_at(&rs, config_setting_get_member(s, "paths"),
			 "paths: at least one path is needed");
	rec = config_setting_get_member(s, "recursive");
	if (r->mark == RULE_MARK_INODE && r->recursive)
		error_at(&rs, rec,
			 "recursive: inode marks cover one directory level; use mark = "
			 "\"filesystem\" or \"auto\"");
	if (r->name) {
		struct ref *v;

		uintptr_t seen = (uintptr_t)strmap_value_str(&l->seen_names, r->name);

		if (seen) {
			error_at(&rs, name, "duplicate rule name (first at %s:%d)",
				 l->seen_rules[seen - 1].origin.file,
				 l->seen_rules[seen - 1].origin.line);
			return false;
		}
		if (l->n_seen_rules == l->seen_cap) {
			size_t cap = l->seen_cap ? 2 * l->seen_cap : 16;

			v = l_oom(l, realloc(l->seen_rules, cap * sizeof(*v)));
			if (v) {
				l->seen_rules = v;
				l->seen_cap = cap;
			}
		}
		if (l->n_seen_rules < l->seen_cap) {
			v = &l->seen_rules[l->n_seen_rules++];
			*v = (struct ref){
				.name = l_strdup(l, r->name),
				.origin = { .file = l_strdup(l, r->origin.file),
					    .line = r->origin.line },
			};
			if (v->name && strmap_put_str(&l->seen_names, v->name,
						      (void *)(uintptr_t)l->n_seen_rules) < 0)
				l_oom(l, NULL);
		}
	}
	return l->errors->n == n_errors;
}

/* rules = ( { ... }, ... ): appended. */
static bool parse_rules(struct scope *sc, const struct key *k, const config_setting_t *s) {
	struct config *c = sc->l->c;

	if (config_setting_type(s) != CONFIG_TYPE_LIST) {
		type_error(sc, k, s, "a list of rules ( { ... }, { ... } )");
		sc->l->rules_bad = true;
		return false;
	}
	for (int i = 0; i < config_setting_length(s); i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct rule_conf r = { 0 }, *v;

		sc->l->n_rule_entries++;
		if (!parse_one_rule(sc, e, i, &r)) {
			rule_conf_done(&r);
			continue;
		}
		v = l_oom(sc->l, realloc(c->rules, (c->n_rules + 1) * sizeof(*v)));
		if (!v) {
			rule_conf_done(&r);
			return false;
		}
		c->rules = v;
		c->rules[c->n_rules++] = r;
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* files                                                                    */
/* ------------------------------------------------------------------------ */

static char *dir_of(const char *path) {
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * Reading files safely. libconfig 1.5 opens @include files itself with
 * fopen() and has no hook: a directory (or "") makes its flex scanner call
 * exit(2), a FIFO blocks the open for good. So every file is read here
 * first, as the daemon allows: a regular file (opened without blocking, so
 * a FIFO is refused instead of waited for), at most CONFIG_FILE_MAX bytes;
 * its @include directives (found as libconfig's scanner finds them: at the
 * start of a line, outside comments and strings) are checked the same way,
 * recursively, and rewritten to name an in-memory copy (a memfd, as
 * /proc/self/fd/N), so libconfig reads only what was checked, and cannot be
 * raced. Line numbers are kept; errors name the real files.
 */
#define CONFIG_FILE_MAX (16u << 20)
#define INCLUDE_DEPTH_MAX 10 /* libconfig's own limit */

static const char *file_type_words(mode_t m) {
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
			     : "not a regular file";
}

/* The whole of a regular file; why: what is wrong with it otherwise. */
static int slurp(const char *path, char **ret, size_t *ret_len, char *why, size_t whylen) {
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap;
	struct stat st;

	if (fd < 0) {
		snprintf(why, whylen, "cannot read: %s", strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "cannot read: %s, not a regular file",
			 file_type_words(st.st_mode));
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > CONFIG_FILE_MAX) {
		snprintf(why, whylen, "cannot read: larger than %u MiB", CONFIG_FILE_MAX >> 20);
		return -EFBIG;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	for (;;) {
		ssize_t n;

		if (!buf)
			return -ENOMEM;
		if (len == cap) { /* it grew meanwhile */
			char *v = cap < CONFIG_FILE_MAX ? realloc(buf, 2 * cap + 1) : NULL;

			if (!v) {
				snprintf(why, whylen, "cannot read: larger than %u MiB",
					 CONFIG_FILE_MAX >> 20);
				return -EFBIG;
			}
			buf = v;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, whylen, "cannot read: %s", strerror(errno));
			return -EIO;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = steal_ptr(&buf);
	*ret_len = len;
	return 0;
}

static int prepare_file(struct loader *l, const char *path, const char *dir, int depth,
			const char *from, int from_line);

/* At text[i] (a line's start, outside comments and strings): an @include
 * directive as libconfig's scanner sees it (`^[ \t]*@include[ \t]+"`, then
 * the name with \\ and \" escapes up to the closing quote)? Its name in
 * name, the index after the closing quote in *end; 0 if there is none,
 * -EINVAL (why) if it is malformed. */
static int include_at(const char *text, size_t len, size_t i, char *name, size_t namelen,
		      size_t *end, const char **why) {
	size_t j = i, n = 0;

	while (j < len && (text[j] == ' ' || text[j] == '\t'))
		j++;
	if (len - j < 8 || memcmp(text + j, "@include", 8) != 0)
		return 0;
	j += 8;
	if (j >= len || (text[j] != ' ' && text[j] != '\t'))
		return 0;
	while (j < len && (text[j] == ' ' || text[j] == '\t'))
		j++;
	if (j >= len || text[j] != '"')
		return 0;
	for (j++; j < len && text[j] != '"'; j++) {
		char c = text[j];

		if (c == '\\' && j + 1 < len && (text[j + 1] == '\\' || text[j + 1] == '"'))
			c = text[++j];
		if (c == '\n' || c == '\0') {
			*why = "the file name is not closed on its line";
			return -EINVAL;
		}
		if (n + 1 >= namelen) {
			*why = "the file name is too long";
			return -EINVAL;
		}
		name[n++] = c;
	}
	if (j >= len) {
		*why = "the file name is not closed";
		return -EINVAL;
	}
	name[n] = '\0';
	if (n == 0) {
		*why = "empty file name";
		return -EINVAL;
	}
	*end = j + 1;
	return 1;
}

/* text with its @include names replaced by their copies (prepare_file()),
 * written to f; false after errors were added. */
static bool rewrite_includes(struct loader *l, const char *path, const char *text, size_t len,
			     const char *dir, int depth, FILE *f) {
	enum { INITIAL, COMMENT, STRING } state = INITIAL;
	bool bol = true, ok = true;
	int line = 1;

	for (size_t i = 0; i < len;) {
		char name[PATH_MAX], full[PATH_MAX * 2];
		const char *why = NULL;
		size_t end = 0;
		int k, fd;

		if (state == INITIAL && bol) {
			bol = false;
			k = include_at(text, len, i, name, sizeof(name), &end, &why);
			if (k < 0) {
				add_error(l, path, line, "@include: %s", why);
				ok = false;
			} else if (k > 0) {
				/* libconfig: include_dir + "/" + name, also for an
				 * absolute name */
				snprintf(full, sizeof(full), "%s/%s", dir, name);
				fd = prepare_file(l, full, dir, depth + 1, path, line);
				if (fd < 0)
					ok = false;
				else
					fprintf(f, "@include \"/proc/self/fd/%d\"", fd);
				i = end;
				continue;
			}
		}
		switch (state) {
		case INITIAL:
			if (text[i] == '"')
				state = STRING;
			else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
				fputs("/*", f);
				i += 2;
				state = COMMENT;
				continue;
			} else if (text[i] == '#' ||
				   (text[i] == '/' && i + 1 < len && text[i + 1] == '/')) {
				const char *nl = memchr(text + i, '\n', len - i);
				size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

				fwrite(text + i, 1, n, f);
				i += n;
				continue;
			}
			break;
		case STRING:
			if (text[i] == '\\' && i + 1 < len && text[i + 1] != '\n') {
				fputc(text[i++], f);
				break;
			}
			if (text[i] == '"')
				state = INITIAL;
			break;
		case COMMENT:
			if (text[i] == '*' && i + 1 < len && text[i + 1] == '/') {
				fputs("*/", f);
				i += 2;
				state = INITIAL;
				continue;
			}
			break;
		}
		if (text[i] == '\n') {
			line++;
			bol = true;
		}
		fputc(text[i++], f);
	}
	return ok;
}

/* A checked copy of path in memory, its includes rewritten (dir: where
 * they are found): the copy's fd, kept in l->copies until the end of
 * load_file(), or -1 after errors were added (about path itself: at from's
 * line from_line, its @include). */
static int prepare_file(struct loader *l, const char *path, const char *dir, int depth,
			const char *from, int from_line) {
	_cleanup_free_ char *text = NULL;
	char why[512];
	struct cfgcopy *v;
	size_t len = 0;
	bool ok;
	FILE *f;
	int fd, r;

	if (depth > INCLUDE_DEPTH_MAX) {
		add_error(l, from, from_line,
			  "@include \"%s\": nested more than %d deep (a cycle?)", P(path),
			  INCLUDE_DEPTH_MAX);
		return -1;
	}
	r = slurp(path, &text, &len, why, sizeof(why));
	if (r < 0) {
		if (r == -ENOMEM)
			l->oom = true;
		else if (from)
			add_error(l, from, from_line, "@include \"%s\": %s", P(path), why);
		else
			add_error(l, path, 0, "%s", why);
		return -1;
	}
	fd = memfd_create("fsnotifyd-config", MFD_CLOEXEC);
	if (fd < 0) {
		add_error(l, path, 0, "cannot copy it to memory: %s", strerror(errno));
		return -1;
	}
	v = l_oom(l, realloc(l->copies, (l->n_copies + 1) * sizeof(*v)));
	if (!v) {
		close(fd);
		return -1;
	}
	l->copies = v;
	v = &l->copies[l->n_copies++];
	*v = (struct cfgcopy){ .fd = fd, .path = l_strdup(l, path) };
	snprintf(v->name, sizeof(v->name), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (!f) {
		l->oom = true;
		return -1;
	}
	ok = rewrite_includes(l, path, text, len, dir, depth, f);
	if (fclose(f) != 0) {
		add_error(l, path, 0, "cannot copy it to memory: %s", strerror(errno));
		ok = false;
	}
	return ok ? fd : -1;
}

static void copies_clear(struct loader *l) {
	for (size_t i = 0; i < l->n_copies; i++) {
		close(l->copies[i].fd);
		free(l->copies[i].path);
	}
	free(l->copies);
	l->copies = NULL;
	l->n_copies = 0;
}

/*
 * libconfig 1.5 leaks what its parser had taken when a file does not parse
 * (bison without destructors: the strings read so far, up to the file's
 * size). A daemon reloading a broken file again and again would grow
 * without bound, so the file is first parsed by a child process, which
 * says whether it parses (and if not, where and why); only a file that
 * parses is parsed here. (glibc keeps malloc usable in a child forked from
 * a threaded process; the child uses nothing else but libconfig and
 * write().)
 */
struct parse_verdict {
	int ok;   /* 1 parses, 0 does not, -1 the child failed */
	int line; /* the error's */
	char file[PATH_MAX];
	char text[256];
};

static void parse_in_child(int fd, struct parse_verdict *v) {
	int pipefd[2], status;
	pid_t pid;
	ssize_t n;

	*v = (struct parse_verdict){ .ok = -1 };
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		struct parse_verdict r = { .ok = 0 };
		config_t cfg;
		FILE *f;

		close(pipefd[0]);
		f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(dup(fd), "r") : NULL;
		if (f) {
			config_init(&cfg);
			r.ok = config_read(&cfg, f) ? 1 : 0;
			if (!r.ok) {
				r.line = config_error_line(&cfg);
				snprintf(r.file, sizeof(r.file), "%s",
					 config_error_file(&cfg) ? config_error_file(&cfg) : "");
				snprintf(r.text, sizeof(r.text), "%s",
					 config_error_text(&cfg) ? config_error_text(&cfg) : "");
			}
		}
		/* exit_group itself: no atexit work, no sanitizer's leak check
		 * (libconfig's leak is why this is a child) */
		syscall(SYS_exit_group,
			f && write(pipefd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
		_exit(1);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], v, sizeof(*v));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*v) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		*v = (struct parse_verdict){ .ok = -1 };
}

static void load_file(struct loader *l, const char *path) {
	struct scope sc = { .l = l, .base = l->c, .out_type = -1 };
	_cleanup_free_ char *dir = dir_of(path);
	struct parse_verdict verdict;
	config_t cfg;
	FILE *f;
	int fd;

	l->file = path;
	fd = dir ? prepare_file(l, path, dir, 0, NULL, 0) : -1;
	if (!dir)
		l->oom = true;
	f = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? fdopen(dup(fd), "r") : NULL;
	if (!f) {
		if (fd >= 0)
			add_error(l, path, 0, "cannot read its copy: %s", strerror(errno));
		l->unreadable = true;
		copies_clear(l);
		l->file = NULL;
		return;
	}
	parse_in_child(fd, &verdict);
	if (verdict.ok == 0) {
		add_error(l, verdict.file[0] ? real_file(l, verdict.file) : path, verdict.line,
			  "%s", verdict.text);
		l->unreadable = true;
		fclose(f);
		copies_clear(l);
		l->file = NULL;
		return;
	}
	/* (ok, or the child could not tell: parse here; the child read the
	 * copy through the same file description) */
	rewind(f);
	config_init(&cfg); /* (no include_dir: the includes name their copies) */
	if (!config_read(&cfg, f)) {
		add_error(l, config_error_file(&cfg) ? real_file(l, config_error_file(&cfg)) : path,
			  config_error_line(&cfg), "%s", config_error_text(&cfg));
		l->unreadable = true;
	} else
		read_group(&sc, &top_table, config_root_setting(&cfg));
	config_destroy(&cfg);
	fclose(f);
	copies_clear(l);
	l->file = NULL;
}

static int compare_names(const void *a, const void *b) {
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dropin_name(const char *n) {
	size_t len = strlen(n);

	return n[0] != '.' && len > 5 && strcmp(n + len - 5, ".conf") == 0;
}

/* <dir of path>/conf.d/ *.conf, regular files, sorted bytewise. */
static void find_dropins(struct loader *l, const char *path) {
	struct config *c = l->c;
	_cleanup_free_ char *dir = dir_of(path), *d = NULL;
	_cleanup_closedir_ DIR *dp = NULL;
	struct dirent *de;

	if (!dir || asprintf(&d, "%s/conf.d", dir) < 0) {
		l->oom = true;
		return;
	}
	dp = opendir(d);
	if (!dp) {
		if (errno != ENOENT && errno != ENOTDIR)
			add_error(l, d, 0, "cannot read the drop-in directory: %s",
				  strerror(errno));
		return;
	}
	while ((de = readdir(dp))) {
		_cleanup_free_ char *p = NULL;
		struct stat st;
		char **v;

		if (!is_dropin_name(de->d_name))
			continue;
		if (asprintf(&p, "%s/%s", d, de->d_name) < 0) {
			l->oom = true;
			break;
		}
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		v = l_oom(l, realloc(c->dropins, (c->n_dropins + 1) * sizeof(*v)));
		if (!v)
			break;
		c->dropins = v;
		c->dropins[c->n_dropins++] = steal_ptr(&p);
	}
	if (c->n_dropins > 1)
		qsort(c->dropins, c->n_dropins, sizeof(char *), compare_names);
}

/* Parse each table's defaults once ("key = default;" lines). */
static void parse_defaults(struct loader *l) {
	for (size_t t = 0; t < ELEMENTSOF(all_tables); t++) {
		const struct table *tab = all_tables[t];
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		config_init(&l->defaults[tab->id]);
		if (!f) {
			l->oom = true;
			continue;
		}
		for (size_t i = 0; i < tab->n_keys; i++)
			if (tab->keys[i].def)
				fprintf(f, "%s = %s;\n", tab->keys[i].name, tab->keys[i].def);
		if (fclose(f) != 0) {
			l->oom = true;
			continue;
		}
		l->defaults_ok[tab->id] = config_read_string(&l->defaults[tab->id], text);
		if (!l->defaults_ok[tab->id])
			add_error(l, "(defaults)", config_error_line(&l->defaults[tab->id]),
				  "%s: %s", tab->scope, config_error_text(&l->defaults[tab->id]));
	}
}

static bool builtin_output(struct loader *l, const char *name) {
	struct config *c = l->c;
	struct output_conf o = { .max_running = 4, .rate = 10, .burst = 20, .timeout_sec = 60 };
	struct output_conf *v;

	if (strcmp(name, "journal") == 0)
		o.type = OUTPUT_JOURNAL;
	else if (strcmp(name, "stdout") == 0) {
		o.type = OUTPUT_JSON;
		o.file = l_strdup(l, "-");
	} else
		return false;
	o.name = l_strdup(l, name);
	o.origin.file = l_strdup(l, "(built-in)");
	v = l_oom(l, realloc(c->outputs, (c->n_outputs + 1) * sizeof(*v)));
	if (!v) {
		output_conf_done(&o);
		return true;
	}
	c->outputs = v;
	c->outputs[c->n_outputs++] = o;
	return true;
}

static void check_refs(struct loader *l, const struct ref *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		bool bad = false;

		for (size_t j = 0; j < l->n_bad_outputs && !bad; j++)
			bad = l->bad_outputs[j] && strcmp(l->bad_outputs[j], v[i].name) == 0;
		if (bad || find_output(l->c, v[i].name) || builtin_output(l, v[i].name))
			continue;
		add_error(l, v[i].origin.file, v[i].origin.line, "%s%soutputs: unknown output '%s'",
			  v[i].who ? v[i].who : "", v[i].who ? ": " : "", P(v[i].name));
	}
}

/* Checks that need every file merged. */
static void finish(struct loader *l) {
	struct config *c = l->c;

	check_refs(l, l->drefs, l->n_drefs);
	check_refs(l, l->refs, l->n_refs);
	if (l->n_rule_entries == 0 && !l->rules_bad)
		add_error(l, c->path, 0, "no rules: nothing to watch");
	for (size_t i = 0; i < c->n_rules; i++)
		if (c->rules[i].n_outputs == 0 && c->n_default_outputs == 0)
			add_error(l, c->rules[i].origin.file, c->rules[i].origin.line,
				  "rule '%s': no outputs (the rule names none and the top-level "
				  "'outputs' is empty)",
				  c->rules[i].name);
}

/* The new errors in the order of the files (main, drop-ins in order,
 * others last) and of their lines; stable. */
struct sort_item {
	struct config_error e;
	size_t rank, index;
};

static int compare_errors(const void *a, const void *b) {
	const struct sort_item *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->e.line != y->e.line)
		return x->e.line < y->e.line ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static size_t file_rank(const struct config *c, const char *file) {
	if (c->path && strcmp(file, c->path) == 0)
		return 0;
	for (size_t i = 0; i < c->n_dropins; i++)
		if (strcmp(file, c->dropins[i]) == 0)
			return i + 1;
	return SIZE_MAX;
}

static void sort_errors(struct loader *l) {
	size_t first = l->n_errors_before, n = l->errors->n - first;
	_cleanup_free_ struct sort_item *v = NULL;

	if (n < 2)
		return;
	v = calloc(n, sizeof(*v));
	if (!v)
		return; /* unsorted is fine */
	for (size_t i = 0; i < n; i++)
		v[i] = (struct sort_item){ .e = l->errors->v[first + i],
					   .rank = file_rank(l->c, l->errors->v[first + i].file),
					   .index = i };
	qsort(v, n, sizeof(*v), compare_errors);
	for (size_t i = 0; i < n; i++)
		l->errors->v[first + i] = v[i].e;
}

int config_load(const char *path, struct config **ret, struct config_errors *errors) {
	struct config_errors scratch = { 0 };
	struct loader l = { .errors = errors ? errors : &scratch };
	struct scope sc = { .l = &l, .out_type = -1 };
	int r;

	if (!path || !ret)
		return -EINVAL;
	l.n_errors_before = l.errors->n;
	l.c = calloc(1, sizeof(*l.c));
	if (!l.c)
		return -ENOMEM;
	l.c->path = l_strdup(&l, path);
	sc.base = l.c;

	parse_defaults(&l);
	apply_defaults(&sc, &top_table);
	apply_defaults(&sc, &limits_table);

	load_file(&l, path);
	find_dropins(&l, path);
	for (size_t i = 0; i < l.c->n_dropins; i++)
		load_file(&l, l.c->dropins[i]);
	if (!l.unreadable)
		finish(&l);

	for (size_t t = 0; t < ELEMENTSOF(l.defaults); t++)
		config_destroy(&l.defaults[t]);
	refs_free(l.refs, l.n_refs);
	refs_free(l.drefs, l.n_drefs);
	refs_free(l.seen_rules, l.n_seen_rules);
	strmap_done(&l.seen_names);
	strv_free(l.bad_outputs, l.n_bad_outputs);
	sort_errors(&l);

	if (l.oom)
		r = -ENOMEM;
	else if (l.errors->n > l.n_errors_before)
		r = -EINVAL;
	else {
		*ret = l.c;
		config_errors_clear(&scratch);
		return 0;
	}
	config_free(l.c);
	config_errors_clear(&scratch);
	return r;
}

struct config *config_free(struct config *c) {
	if (!c)
		return NULL;
	free(c->path);
	strv_free(c->dropins, c->n_dropins);
	strv_free(c->default_outputs, c->n_default_outputs);
	for (size_t i = 0; i < c->n_outputs; i++)
		output_conf_done(&c->outputs[i]);
	free(c->outputs);
	for (size_t i = 0; i < c->n_rules; i++)
		rule_conf_done(&c->rules[i]);
	free(c->rules);
	free(c);
	return NULL;
}

void config_errors_first(const struct config_errors *errs, char *buf, size_t len) {
	const struct config_error *e;

	if (errs->n == 0) {
		snprintf(buf, len, "invalid configuration");
		return;
	}
	e = &errs->v[0];
	if (e->line > 0)
		snprintf(buf, len, "%s:%d: %s", e->file ? e->file : "?", e->line, e->msg);
	else
		snprintf(buf, len, "%s: %s", e->file ? e->file : "?", e->msg);
	if (errs->n > 1) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " (and %zu more)", errs->n - 1);
	}
}

void config_errors_clear(struct config_errors *e) {
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].file);
		free(e->v[i].msg);
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

void config_errors_print(const struct config_errors *e, FILE *f) {
	for (size_t i = 0; e && i < e->n; i++) {
		if (e->v[i].line > 0)
			fprintf(f, "%s:%d: %s\n", e->v[i].file, e->v[i].line, e->v[i].msg);
		else
			fprintf(f, "%s: %s\n", e->v[i].file, e->v[i].msg);
	}
}

/* ------------------------------------------------------------------------ */
/* queries                                                                  */
/* ------------------------------------------------------------------------ */

const struct output_conf *config_find_output(const struct config *c, const char *name) {
	for (size_t i = 0; c && name && i < c->n_outputs; i++)
		if (strcmp(c->outputs[i].name, name) == 0)
			return &c->outputs[i];
	return NULL;
}

const struct rule_conf *config_find_rule(const struct config *c, const char *name) {
	for (size_t i = 0; c && name && i < c->n_rules; i++)
		if (strcmp(c->rules[i].name, name) == 0)
			return &c->rules[i];
	return NULL;
}

static bool strv_equal(char **a, size_t na, char **b, size_t nb) {
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

bool rule_conf_uses_deny_errno(const struct rule_conf *r) {
	bool v = r->perm && ((r->def.deny && r->def.err) ||
			     (r->deadline_verdict.deny && r->deadline_verdict.err));

	for (size_t i = 0; r->perm && i < r->n_decisions; i++)
		v = v || (r->decisions[i].verdict.deny && r->decisions[i].verdict.err);
	return v;
}

bool rule_conf_same_marks(const struct rule_conf *a, const struct rule_conf *b) {
	if (!a || !b)
		return false;
	return a->mark == b->mark && rule_conf_uses_deny_errno(a) == rule_conf_uses_deny_errno(b) &&
	       a->events == b->events && a->children == b->children && a->ondir == b->ondir &&
	       a->recursive == b->recursive && a->create == b->create &&
	       strv_equal(a->paths, a->n_paths, b->paths, b->n_paths) &&
	       strv_equal(a->exclude, a->n_exclude, b->exclude, b->n_exclude);
}

bool output_conf_same(const struct output_conf *a, const struct output_conf *b) {
	if (!a || !b)
		return false;
	return a->type == b->type &&
	       ((!a->file && !b->file) || (a->file && b->file && strcmp(a->file, b->file) == 0)) &&
	       strv_equal(a->argv, a->n_argv, b->argv, b->n_argv) &&
	       a->max_running == b->max_running && a->rate == b->rate && a->burst == b->burst &&
	       a->timeout_sec == b->timeout_sec && a->has_user == b->has_user &&
	       a->user == b->user && a->has_group == b->has_group && a->group == b->group &&
	       a->has_user_gid == b->has_user_gid && a->user_gid == b->user_gid;
}

const char *rule_mark_name(enum rule_mark m) {
	for (size_t i = 0; i < ELEMENTSOF(mark_values); i++)
		if (mark_values[i] == (int)m)
			return mark_names[i];
	return NULL;
}

const char *output_type_name(enum output_type t) {
	for (size_t i = 0; i < ELEMENTSOF(output_type_values); i++)
		if (output_type_values[i] == (int)t)
			return output_type_names[i];
	return NULL;
}
