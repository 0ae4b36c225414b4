/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf-private.h — what the pieces of the config loader share, internal
 * to them: the loader's state (struct loader, struct scope), the schema's
 * types (struct key, struct table), and the functions one piece calls in
 * another, grouped by the file that defines them. conf.h is the loader's
 * public face; nothing outside conf.c, conf-parse.c and conf-file.c
 * includes this.
 */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
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

/* The config's tables (struct table's id). */
enum {
	TABLE_TOP = 0,
	TABLE_LIMITS,
	TABLE_RULE,
	TABLE_OUTPUT,
	TABLE_DECISION,
	TABLE_CONTROL,
	_TABLE_MAX,
};

struct loader {
	struct config *c;
	struct config_errors *errors;
	size_t n_errors_before;
	bool oom;
	bool unreadable;  /* a file could not be read or parsed: skip cross checks */
	bool in_process;  /* CONFIG_LOAD_IN_PROCESS: no child parses a file first */
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
	size_t n_rule_entries;         /* rules read, also those with errors */
	bool rules_bad;                /* a `rules` setting was not a list */
	config_t defaults[_TABLE_MAX]; /* parsed default text per table, see TABLE_* */
	bool defaults_ok[_TABLE_MAX];
	/* the files of one load_file(), as libconfig reads them: copies in
	 * memory (see prepare_file()), by the name libconfig knows them by */
	struct cfgcopy {
		int fd;
		char name[32]; /* "/proc/self/fd/N" */
		char *path;    /* the file it is a copy of */
	} * copies;
	size_t n_copies;
	bool copies_full; /* INCLUDE_FILES_MAX reached (and said) */
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

/* ---- conf.c ---- */

/* small helpers: memory failures, messages, errors at file:line */
void *l_oom(struct loader *l, void *p);
char *l_strdup(struct loader *l, const char *s);
const char *printable(const char *s, char *buf, size_t len);
#define P(s) printable((s), (char[1024]){ 0 }, 1024)
const char *setting_file(struct loader *l, const config_setting_t *s);
int setting_line(const config_setting_t *s);
__attribute__((format(printf, 4, 5))) void add_error(struct loader *l, const char *file, int line,
						     const char *fmt, ...);
__attribute__((format(printf, 3, 4))) void error_at(struct scope *sc, const config_setting_t *s,
						    const char *fmt, ...);
const char *type_words(const config_setting_t *s);
void type_error(struct scope *sc, const struct key *k, const config_setting_t *s,
		const char *expected);

/* the schema's top level, and reading a group of its keys */
extern const struct table top_table;
void read_group(struct scope *sc, const struct table *t, config_setting_t *group);

/* ---- conf-parse.c ---- */

/* parsers: one per type of value */
bool parse_bool(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_uint(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_double(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_enum(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_string(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_strings(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_default_outputs(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_rule_outputs(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_events(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_pids(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_run_as(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_uids(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_gids(struct scope *sc, const struct key *k, const config_setting_t *s);
bool parse_verdict(struct scope *sc, const struct key *k, const config_setting_t *s);
/* the output names parse_*_outputs() remembered in the loader */
void refs_free(struct ref *v, size_t n);

/* validators (check_fn) */
bool check_path(struct scope *sc, const struct key *k, const config_setting_t *s, const char *v,
		char **out);
bool check_path_or_glob(struct scope *sc, const struct key *k, const config_setting_t *s,
			const char *v, char **out);
bool check_rule_name(struct scope *sc, const struct key *k, const config_setting_t *s,
		     const char *v, char **out);
bool check_comm(struct scope *sc, const struct key *k, const config_setting_t *s, const char *v,
		char **out);
bool check_tag(struct scope *sc, const struct key *k, const config_setting_t *s, const char *v,
	       char **out);
bool check_output_name(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out);
bool check_output_file(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out);
/* control.socket: "" or an absolute path that fits sockaddr_un. */
bool check_socket_path(struct scope *sc, const struct key *k, const config_setting_t *s,
		       const char *v, char **out);
/* control.group: "" or a group that exists. */
bool check_group_name(struct scope *sc, const struct key *k, const config_setting_t *s,
		      const char *v, char **out);
bool check_argv_elem(struct scope *sc, const struct key *k, const config_setting_t *s,
		     const char *v, char **out);

/* ---- conf-file.c ---- */

/* The file libconfig names (an include's copy) as the user knows it. */
const char *real_file(const struct loader *l, const char *f);
/* Read path (and its includes) into l->c, errors into l->errors. */
void load_file(struct loader *l, const char *path);
/* <dir of path>/conf.d/ *.conf into l->c->dropins, sorted. */
void find_dropins(struct loader *l, const char *path);
