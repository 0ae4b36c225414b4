/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-config.c — the "config" suite: daemon/conf*.c. Every key and its
 * default, unknown keys, type errors, the bad configurations in
 * tests/unit/configs/bad-*.conf (each says what it expects in its first
 * comment lines: "# expect: LINE: MESSAGE", @FILE@ standing for its path),
 * drop-in merging, error collection, the shipped default configuration and
 * examples, and the man page documenting every key of the schema.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "conf/fsn-conf-paths.h"
#include "fsn-uapi.h"
#include "plan.h"
#include "unit.h"

#define CONFIGS_DIR FSN_SOURCE_ROOT "/tests/unit/configs"
#define DEFAULT_EVENTS (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CLOSE_WRITE)

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

static char *subst_free(char *tmpl, const char *what, const char *with) {
	char *r = test_subst(tmpl, what, with);

	free(tmpl);
	return r;
}

/* A temporary directory with main.conf holding text; loads it. */
struct loaded {
	char dir[PATH_MAX];
	char path[PATH_MAX];
	struct config *c;
	struct config_errors e;
	int r;
};

static void load_dir(struct loaded *l) {
	test_join(l->path, sizeof(l->path), l->dir, "main.conf");
	l->c = NULL;
	l->e = (struct config_errors){ 0 };
	l->r = config_load(l->path, &l->c, &l->e);
}

static void load_text(struct loaded *l, const char *text) {
	test_tmpdir(l->dir, sizeof(l->dir));
	test_write(l->dir, "main.conf", text);
	load_dir(l);
}

static void loaded_done(struct loaded *l) {
	config_free(l->c);
	config_errors_clear(&l->e);
	test_rm_tree(l->dir);
}

/* All errors as "file:line: msg\n" text (malloc'd). */
static char *errors_text(const struct config_errors *e) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	config_errors_print(e, f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* Exactly one error, at line, with msg. */
static void assert_one_error(const struct loaded *l, int line, const char *msg) {
	char *all = errors_text(&l->e);

	ck_assert_msg(l->e.n == 1, "expected 1 error, got %zu:\n%s", l->e.n, all);
	free(all);
	ck_assert_int_eq(l->r, -EINVAL);
	ck_assert_ptr_null(l->c);
	ck_assert_str_eq(l->e.v[0].msg, msg);
	ck_assert_int_eq(l->e.v[0].line, line);
}

static void assert_no_errors(const struct loaded *l) {
	char *all = errors_text(&l->e);

	ck_assert_msg(l->r == 0 && l->e.n == 0, "%s: r=%d, errors:\n%s", l->path, l->r, all);
	free(all);
	ck_assert_ptr_nonnull(l->c);
}

#define MINIMAL_RULE "rules = ( { name = \"r\"; paths = [\"/srv\"]; } );\n"

/* ------------------------------------------------------------------------ */
/* defaults and every key                                                   */
/* ------------------------------------------------------------------------ */

START_TEST(test_defaults) {
	struct loaded l;
	const struct rule_conf *r;
	const struct output_conf *o;

	load_text(&l, "# only what is required\n" MINIMAL_RULE);
	assert_no_errors(&l);
	ck_assert_int_eq(l.c->log_level, LOG_INFO);
	ck_assert_uint_eq(l.c->n_default_outputs, 1);
	ck_assert_str_eq(l.c->default_outputs[0], "journal");
	ck_assert_uint_eq(l.c->max_marks, 8192);
	ck_assert_uint_eq(l.c->rate_limit, 0);
	ck_assert_uint_eq(l.c->queue_size, 65536);
	ck_assert(!l.c->unlimited_queue);
	ck_assert_uint_eq(l.c->status_interval, 10);
	ck_assert_uint_eq(l.c->n_dropins, 0);
	ck_assert_str_eq(l.c->path, l.path);

	/* "journal" is built in: defined because it is used. */
	ck_assert_uint_eq(l.c->n_outputs, 1);
	o = config_find_output(l.c, "journal");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->type, OUTPUT_JOURNAL);

	ck_assert_uint_eq(l.c->n_rules, 1);
	r = &l.c->rules[0];
	ck_assert_str_eq(r->name, "r");
	ck_assert_str_eq(r->origin.file, l.path);
	ck_assert_int_eq(r->origin.line, 2);
	ck_assert_uint_eq(r->n_paths, 1);
	ck_assert_str_eq(r->paths[0], "/srv");
	ck_assert_int_eq(r->mark, RULE_MARK_AUTO);
	ck_assert_uint_eq(r->events, DEFAULT_EVENTS);
	ck_assert(r->children);
	ck_assert(r->ondir);
	ck_assert(!r->recursive);
	ck_assert(!r->create);
	ck_assert(!r->required);
	ck_assert_uint_eq(r->n_exclude, 0);
	ck_assert_uint_eq(r->n_pids, 0);
	ck_assert_uint_eq(r->n_comms, 0);
	ck_assert_uint_eq(r->n_uids, 0);
	ck_assert_uint_eq(r->n_outputs, 0);
	ck_assert_uint_eq(r->rate_limit, 0);
	ck_assert_uint_eq(r->label.n_tags, 0);
	ck_assert_int_eq(r->label.severity, RECORD_SEVERITY(LOG_INFO));
	ck_assert(!r->who);
	loaded_done(&l);
}
END_TEST

START_TEST(test_output_defaults) {
	struct loaded l;
	const struct output_conf *o;

	load_text(&l, "outputs = [\"j\", \"x\"];\n"
		      "output = { j = { type = \"json\"; }; x = { type = \"exec\"; argv = "
		      "[\"/bin/true\"]; }; };\n" MINIMAL_RULE);
	assert_no_errors(&l);
	ck_assert_uint_eq(l.c->n_outputs, 2);
	o = config_find_output(l.c, "j");
	ck_assert_int_eq(o->type, OUTPUT_JSON);
	ck_assert_str_eq(o->file, "-");
	ck_assert_int_eq(o->origin.line, 2);
	o = config_find_output(l.c, "x");
	ck_assert_int_eq(o->type, OUTPUT_EXEC);
	ck_assert_uint_eq(o->n_argv, 1);
	ck_assert_str_eq(o->argv[0], "/bin/true");
	ck_assert_ptr_null(o->argv[1]);
	ck_assert_uint_eq(o->max_running, 4);
	ck_assert(o->rate == 10.0);
	ck_assert_uint_eq(o->burst, 20);
	ck_assert_uint_eq(o->timeout_sec, 60);
	loaded_done(&l);
}
END_TEST

START_TEST(test_every_key) {
	struct loaded l;
	const struct rule_conf *r;
	const struct output_conf *o;

	load_text(
	    &l,
	    "log_level = \"debug\";\n"
	    "outputs = [\"log\", \"stdout\"];\n"
	    "output = {\n"
	    "  log = { type = \"json\"; file = \"/var/log//x/./events.jsonl\"; };\n"
	    "  run = { type = \"exec\"; argv = [\"/usr/bin/scan\", \"--rule={rule}\", \"{path}\",\n"
	    "          \"{events}\", \"{pid}\", \"{literal\", \"{}\", \"{\\\"json\\\": 1}\"];\n"
	    "          max_running = 2; rate = 2.5; burst = 7; timeout = 9; };\n"
	    "  j = { type = \"journal\"; };\n"
	    "};\n"
	    "limits = { max_marks = 100; rate_limit = 50; queue_size = 1024;\n"
	    "           unlimited_queue = true; status_interval = 3; };\n"
	    "rules = (\n"
	    "  { name = \"all-keys_1.x\"; paths = [\"/srv//a/\", \"/srv/./b\", \"/\"];\n"
	    "    mark = \"filesystem\";\n"
	    "    events = [\"access\", \"modify\", \"attrib\", \"close_write\", "
	    "\"close_nowrite\",\n"
	    "              \"open\", \"moved_from\", \"moved_to\", \"create\", \"delete\",\n"
	    "              \"delete_self\", \"move_self\", \"open_exec\", \"fs_error\", "
	    "\"rename\"];\n"
	    "    children = false; ondir = false; recursive = true; create = true;\n"
	    "    required = true; exclude = [\"/srv/a//cache/\", \"*.swp\", \"x?[ab]\"];\n"
	    "    pids = [1, 4194304]; comms = [\"nginx\", \"123456789012345\"];\n"
	    "    uids = (0, \"root\", 1000); outputs = [\"run\", \"j\"]; rate_limit = 5;\n"
	    "    tags = [\"pci\", \"os:shadow\", \"A_b.c=d-1\"]; severity = \"crit\"; who = true; "
	    "},\n"
	    "  { name = \"m\"; paths = [\"/x\"]; mark = \"mount\"; events = [\"close\", \"move\"]; "
	    "},\n"
	    "  { name = \"i\"; paths = [\"/x\"]; mark = \"inode\"; },\n"
	    "  { name = \"n\"; paths = [\"/x\"]; mark = \"inotify\"; },\n"
	    "  { name = \"a\"; paths = [\"/x\"]; mark = \"auto\"; }\n"
	    ");\n");
	assert_no_errors(&l);
	ck_assert_int_eq(l.c->log_level, LOG_DEBUG);
	ck_assert_uint_eq(l.c->n_default_outputs, 2);
	ck_assert_str_eq(l.c->default_outputs[0], "log");
	ck_assert_str_eq(l.c->default_outputs[1], "stdout");
	ck_assert_uint_eq(l.c->max_marks, 100);
	ck_assert_uint_eq(l.c->rate_limit, 50);
	ck_assert_uint_eq(l.c->queue_size, 1024);
	ck_assert(l.c->unlimited_queue);
	ck_assert_uint_eq(l.c->status_interval, 3);

	/* log, run, j and the built-in stdout (used, not defined) */
	ck_assert_uint_eq(l.c->n_outputs, 4);
	o = config_find_output(l.c, "log");
	ck_assert_str_eq(o->file, "/var/log/x/events.jsonl");
	o = config_find_output(l.c, "run");
	ck_assert_uint_eq(o->n_argv, 8);
	ck_assert_str_eq(o->argv[2], "{path}");
	ck_assert_str_eq(o->argv[7], "{\"json\": 1}");
	ck_assert_uint_eq(o->max_running, 2);
	ck_assert(o->rate == 2.5);
	ck_assert_uint_eq(o->burst, 7);
	ck_assert_uint_eq(o->timeout_sec, 9);
	ck_assert_int_eq(config_find_output(l.c, "j")->type, OUTPUT_JOURNAL);
	o = config_find_output(l.c, "stdout");
	ck_assert_int_eq(o->type, OUTPUT_JSON);
	ck_assert_str_eq(o->file, "-");
	ck_assert_ptr_null(config_find_output(l.c, "nope"));

	ck_assert_uint_eq(l.c->n_rules, 5);
	r = config_find_rule(l.c, "all-keys_1.x");
	ck_assert_ptr_eq(r, &l.c->rules[0]);
	ck_assert_uint_eq(r->n_paths, 3);
	ck_assert_str_eq(r->paths[0], "/srv/a");
	ck_assert_str_eq(r->paths[1], "/srv/b");
	ck_assert_str_eq(r->paths[2], "/");
	ck_assert_int_eq(r->mark, RULE_MARK_FILESYSTEM);
	ck_assert_uint_eq(r->events, FAN_ACCESS | FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE |
					 FAN_CLOSE_NOWRITE | FAN_OPEN | FAN_MOVED_FROM |
					 FAN_MOVED_TO | FAN_CREATE | FAN_DELETE | FAN_DELETE_SELF |
					 FAN_MOVE_SELF | FAN_OPEN_EXEC | FAN_FS_ERROR | FAN_RENAME);
	ck_assert(!r->children);
	ck_assert(!r->ondir);
	ck_assert(r->recursive);
	ck_assert(r->create);
	ck_assert(r->required);
	ck_assert_uint_eq(r->n_exclude, 3);
	ck_assert_str_eq(r->exclude[0], "/srv/a/cache");
	ck_assert_str_eq(r->exclude[1], "*.swp");
	ck_assert_str_eq(r->exclude[2], "x?[ab]");
	ck_assert_uint_eq(r->n_pids, 2);
	ck_assert_int_eq(r->pids[0], 1);
	ck_assert_int_eq(r->pids[1], 4194304);
	ck_assert_uint_eq(r->n_comms, 2);
	ck_assert_str_eq(r->comms[1], "123456789012345");
	ck_assert_uint_eq(r->n_uids, 3);
	ck_assert_uint_eq(r->uids[0], 0);
	ck_assert_uint_eq(r->uids[1], 0);
	ck_assert_uint_eq(r->uids[2], 1000);
	ck_assert_uint_eq(r->n_outputs, 2);
	ck_assert_str_eq(r->outputs[0], "run");
	ck_assert_uint_eq(r->rate_limit, 5);
	ck_assert_uint_eq(r->label.n_tags, 3);
	ck_assert_str_eq(r->label.tags[1], "os:shadow");
	ck_assert_str_eq(r->label.tags[2], "A_b.c=d-1");
	ck_assert_int_eq(r->label.severity, RECORD_SEVERITY(LOG_CRIT));
	ck_assert(r->who);

	ck_assert_int_eq(l.c->rules[1].mark, RULE_MARK_MOUNT);
	ck_assert_uint_eq(l.c->rules[1].events,
			  FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE | FAN_MOVED_FROM | FAN_MOVED_TO);
	ck_assert_int_eq(l.c->rules[2].mark, RULE_MARK_INODE);
	ck_assert_int_eq(l.c->rules[3].mark, RULE_MARK_INOTIFY);
	ck_assert_int_eq(l.c->rules[4].mark, RULE_MARK_AUTO);
	loaded_done(&l);
}
END_TEST

START_TEST(test_paths_normalised) {
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/", "/" },           { "//", "/" },
		{ "/./", "/" },         { "/a", "/a" },
		{ "/a/", "/a" },        { "//a//b//", "/a/b" },
		{ "/a/./b/.", "/a/b" }, { "/a/.b/..c/...", "/a/.b/..c/..." },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		struct loaded l;

		snprintf(text, sizeof(text), "rules = ( { name = \"r\"; paths = [\"%s\"]; } );\n",
			 cases[i].in);
		load_text(&l, text);
		assert_no_errors(&l);
		ck_assert_str_eq(l.c->rules[0].paths[0], cases[i].out);
		loaded_done(&l);
	}
}
END_TEST

START_TEST(test_paths_duplicate_after_normalising) {
	struct loaded l;

	load_text(&l, "rules = ( { name = \"r\"; paths = [\"/srv/a\",\n\"/srv//a/\"]; } );\n");
	assert_one_error(&l, 2, "rule 'r': paths: '/srv/a' is listed twice");
	loaded_done(&l);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* unknown keys and type errors                                             */
/* ------------------------------------------------------------------------ */

START_TEST(test_unknown_keys) {
	static const struct {
		const char *text;
		int line;
		const char *msg;
	} cases[] = {
		{ "bogus = 1;\n" MINIMAL_RULE, 1, "unknown key 'bogus'" },
		{ "rule = ();\n" MINIMAL_RULE, 1, "unknown key 'rule' (did you mean 'rules'?)" },
		{ "limits = {\n queue = 1; };\n" MINIMAL_RULE, 2, "limits: unknown key 'queue'" },
		{ "output = { o = { type = \"json\";\n fiel = \"-\"; }; };\n" MINIMAL_RULE, 2,
		  "output 'o': unknown key 'fiel' (did you mean 'file'?)" },
		{ "rules = ( { name = \"r\"; paths = [\"/srv\"];\n\n evnets = [\"open\"]; } );\n",
		  3, "rule 'r': unknown key 'evnets' (did you mean 'events'?)" },
		{ "rules = ( { paths = [\"/srv\"]; name = \"r\"; Name = \"x\"; } );\n", 1,
		  "rule 'r': unknown key 'Name' (did you mean 'name'?)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct loaded l;

		load_text(&l, cases[i].text);
		assert_one_error(&l, cases[i].line, cases[i].msg);
		ck_assert_str_eq(l.e.v[0].file, l.path);
		loaded_done(&l);
	}
}
END_TEST

START_TEST(test_type_errors) {
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "log_level = 3;", "log_level: expected a string, not an integer" },
		{ "outputs = \"journal\";", "outputs: expected an array of strings, not a string" },
		{ "outputs = [1];", "outputs: element 1: expected a string, not an integer" },
		{ "output = [];", "output: expected a group of outputs { NAME = { ... }; }, not an "
				  "array" },
		{ "output = { o = \"json\"; };",
		  "output 'o': expected a group { type = ...; }, not a string" },
		{ "limits = 1;", "limits: expected a group { ... }, not an integer" },
		{ "limits = { max_marks = \"many\"; };",
		  "limits: max_marks: expected an integer, not a string" },
		{ "limits = { max_marks = 1.5; };",
		  "limits: max_marks: expected an integer, not a number with a fraction" },
		{ "limits = { unlimited_queue = 1; };",
		  "limits: unlimited_queue: expected a boolean (true or false), not an integer" },
		{ "limits = { queue_size = -1; };",
		  "limits: queue_size: -1 is out of range (16 to 16777216)" },
		{ "output = { o = { type = \"exec\"; argv = [\"/bin/x\"]; rate = \"fast\"; }; };",
		  "output 'o': rate: expected a number, not a string" },
		{ "output = { o = { type = \"exec\"; argv = [\"/bin/x\"]; rate = 0; }; };",
		  "output 'o': rate: 0 is out of range (more than 0, at most 1000000)" },
		{ "output = { o = { type = 1; }; };", "output 'o': type: expected a string, not an "
						      "integer" },
		{ "rules = { };",
		  "rules: expected a list of rules ( { ... }, { ... } ), not a group" },
		{ "rules = ( \"r\" );",
		  "rule #1: expected a group { name = ...; paths = [...]; }, not a string" },
		{ "rules = ( { name = 1; paths = [\"/x\"]; } );",
		  "rule #1: name: expected a string, not an integer" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = \"open\"; } );",
		  "rule 'r': events: expected an array of event names, not a string" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [true]; } );",
		  "rule 'r': events: element 1: expected a string, not a boolean" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; pids = 5; } );",
		  "rule 'r': pids: expected an array of integers, not an integer" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; uids = [true]; } );",
		  "rule 'r': uids: element 1: expected a user id or name, not a boolean" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; rate_limit = 1.0; } );",
		  "rule 'r': rate_limit: expected an integer, not a number with a fraction" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; exclude = ([\"/x\"]); } );",
		  "rule 'r': exclude: element 1: expected a string, not an array" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct loaded l;

		/* The case on line 1; a valid rule after it (unless it is about rules). */
		snprintf(text, sizeof(text), "%s\n%s", cases[i].text,
			 strncmp(cases[i].text, "rules", 5) == 0 ? "" : MINIMAL_RULE);
		load_text(&l, text);
		assert_one_error(&l, 1, cases[i].msg);
		loaded_done(&l);
	}
}
END_TEST

/* 65 bytes: one more than a tag may have */
#define LONG_TAG "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

START_TEST(test_value_errors) {
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "log_level = \"verbose\";",
		  "log_level: unknown value \"verbose\" (one of \"error\", "
		  "\"warning\", \"notice\", \"info\", \"debug\")" },
		{ "outputs = [\"journal\", \"journal\"];", "outputs: 'journal' is listed twice" },
		{ "outputs = [\"\"];", "outputs: empty output name" },
		{ "outputs = []; rules = ( { name = \"r\"; paths = [\"/x\"]; } );",
		  "rule 'r': no outputs (the rule names none and the top-level 'outputs' is "
		  "empty)" },
		{ "output = { a* = { type = \"journal\"; }; };", "output 'a*': the name may not "
								 "contain '*'" },
		{ "output = { x = { type = \"exec\"; argv = []; }; };", "output 'x': argv: empty" },
		{ "output = { x = { type = \"exec\"; argv = [\"/bin/{rule}\"]; }; };",
		  "output 'x': argv: the program '/bin/{rule}' may not contain a placeholder" },
		{ "output = { x = { type = \"json\"; file = \"/var/../x\"; }; };",
		  "output 'x': file: '/var/../x' contains '..'" },
		{ "output = { x = { type = \"journal\"; file = \"/x\"; }; };",
		  "output 'x': 'file' is only valid for json or metrics outputs" },
		{ "output = { x = { type = \"json\"; file = \"/x\"; interval = 5; }; };",
		  "output 'x': 'interval' is only valid for metrics outputs" },
		{ "output = { x = { type = \"metrics\"; }; };",
		  "output 'x': metrics outputs need 'file' (an absolute path)" },
		{ "output = { x = { type = \"metrics\"; file = \"-\"; }; };",
		  "output 'x': file: '-' must be an absolute path" },
		{ "output = { x = { type = \"metrics\"; file = \"/m.prom\"; interval = 0; }; };",
		  "output 'x': interval: 0 is out of range (1 to 3600)" },
		{ "output = { p = { type = \"metrics\"; file = \"/m.prom\"; }; }; "
		  "rules = ( { name = \"r\"; paths = [\"/x\"]; outputs = [\"p\"]; } );",
		  "rule 'r': outputs: 'p' is a metrics output: it takes no records (the daemon "
		  "writes it every interval seconds by itself; no rule names it)" },
		{ "outputs = [\"p\"]; output = { p = { type = \"metrics\"; file = \"/m.prom\"; }; "
		  "};",
		  "outputs: 'p' is a metrics output: it takes no records (the daemon writes it "
		  "every interval seconds by itself; no rule names it)" },
		{ "output = { x = { type = \"exec\"; argv = [\"/bin/x\"]; max_running = 0; }; };",
		  "output 'x': max_running: 0 is out of range (1 to 1024)" },
		{ "limits = { status_interval = 0; };",
		  "limits: status_interval: 0 is out of range (1 to 86400)" },
		{ "rules = ( { name = \"\"; paths = [\"/x\"]; } );", "rule #1: name: empty" },
		{ "rules = ( { name = \"r\"; paths = []; } );",
		  "rule 'r': paths: at least one path "
		  "is needed" },
		{ "rules = ( { name = \"r\"; paths = [\"\"]; } );",
		  "rule 'r': paths: '' is empty" },
		{ "rules = ( { name = \"r\"; paths = [\"x\\n\"]; } );",
		  "rule 'r': paths: 'x\\x0a' is not absolute" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = []; } );",
		  "rule 'r': events: no events given" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open,close\"]; } );",
		  "rule 'r': unknown event 'open,close'" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"0x20\"]; } );",
		  "rule 'r': unknown event '0x20'" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"OPEN\"]; } );",
		  "rule 'r': unknown event 'OPEN'" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"pre_access\", "
		  "\"create\"]; "
		  "} );",
		  "rule 'r': events: permission events (pre_access) and notification events "
		  "(create) cannot be in one rule: put the notification events in a rule of their "
		  "own" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"access_perm\"]; mark = "
		  "\"inotify\"; } );",
		  "rule 'r': mark: inotify cannot report permission events; use \"auto\", "
		  "\"inode\", \"mount\" or \"filesystem\"" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; decisions = (); } );",
		  "rule 'r': decisions: only for rules with permission events (open_perm, "
		  "access_perm, open_exec_perm, pre_access)" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; default = "
		  "\"maybe\"; } );",
		  "rule 'r': default: unknown verdict 'maybe' (one of \"allow\", \"deny\", "
		  "\"deny(ERRNO)\", \"audit\")" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; "
		  "deadline_verdict = \"deny(ENOENT)\"; } );",
		  "rule 'r': deadline_verdict: 'deny(ENOENT)': the kernel's FAN_DENY_ERRNO takes "
		  "only "
		  "EIO, EPERM, EBUSY, ETXTBSY, EAGAIN, ENOSPC, EDQUOT" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; decisions "
		  "= "
		  "( { paths = [\"/x\"]; } ); } );",
		  "rule 'r': decision #1: missing key 'verdict'" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; decisions "
		  "= "
		  "( { verdict = \"deny\"; events = [\"access_perm\"]; } ); } );",
		  "rule 'r': decision #1: events: access_perm not among the rule's events" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; decisions "
		  "= "
		  "( { verdict = \"deny\"; exes = [\"bash\"]; } ); } );",
		  "rule 'r': decision #1: exes: 'bash' is neither an absolute path nor a glob (to "
		  "match a name anywhere, write '*/bash')" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; decisions "
		  "= "
		  "( { verdict = \"deny\"; gids = [\"no-such-group-x\"]; } ); } );",
		  "rule 'r': decision #1: gids: unknown group 'no-such-group-x'" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"open_perm\"]; decisions "
		  "= "
		  "( { verdict = \"deny\"; colour = 1; } ); } );",
		  "rule 'r': decision #1: unknown key 'colour'" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"q_overflow\"]; } );",
		  "rule 'r': event 'q_overflow': queue overflows are always reported, not asked "
		  "for" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"event_on_child\"]; } );",
		  "rule 'r': event 'event_on_child': it is a flag, not an event: use children = "
		  "true" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; events = [\"mnt_attach\"]; } );",
		  "rule 'r': event 'mnt_attach': mount namespace events are not supported" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; pids = [0]; } );",
		  "rule 'r': pids: 0 is out of range (1 to 4194304)" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; uids = [-1]; } );",
		  "rule 'r': uids: -1 is not a user id" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; comms = [\"\"]; } );",
		  "rule 'r': comms: empty entry" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; exclude = [\"\"]; } );",
		  "rule 'r': exclude: empty entry" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; outputs = [\"a\", \"a\"]; } );",
		  "rule 'r': outputs: 'a' is listed twice" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; rate_limit = -5; } );",
		  "rule 'r': rate_limit: -5 is out of range (0 to 10000000)" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; tags = [\"a b\"]; } );",
		  "rule 'r': tags: 'a b' is not 1-64 bytes of letters, digits and _ . : = -" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; tags = [\"\"]; } );",
		  "rule 'r': tags: empty entry" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; tags = [\"a\", \"a\"]; } );",
		  "rule 'r': tags: 'a' is listed twice" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; tags = [\"" LONG_TAG "\"]; } );",
		  "rule 'r': tags: '" LONG_TAG
		  "' is not 1-64 bytes of letters, digits and _ . : = -" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; tags = [\"1\", \"2\", \"3\", \"4\", "
		  "\"5\", \"6\", \"7\", \"8\", \"9\", \"10\", \"11\", \"12\", \"13\", \"14\", "
		  "\"15\", "
		  "\"16\", \"17\"]; } );",
		  "rule 'r': tags: more than 16 tags" },
		{ "rules = ( { name = \"r\"; paths = [\"/x\"]; severity = \"fatal\"; } );",
		  "rule 'r': severity: unknown value \"fatal\" (one of \"emerg\", \"alert\", "
		  "\"crit\", \"err\", \"error\", \"warning\", \"notice\", \"info\", \"debug\")" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct loaded l;

		snprintf(text, sizeof(text), "%s\n%s", cases[i].text,
			 strstr(cases[i].text, "rules") ? "" : MINIMAL_RULE);
		load_text(&l, text);
		ck_assert_msg(l.e.n == 1, "case %zu", i);
		assert_one_error(&l, 1, cases[i].msg);
		loaded_done(&l);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the bad configurations in tests/unit/configs                             */
/* ------------------------------------------------------------------------ */

#define MAX_FIXTURES 64

struct fixtures {
	char names[MAX_FIXTURES][NAME_MAX + 1];
	int n;
};

static int compare_fixture(const void *a, const void *b) {
	return strcmp(a, b);
}

static void find_fixtures(struct fixtures *f) {
	DIR *d = opendir(CONFIGS_DIR);
	struct dirent *de;

	f->n = 0;
	if (!d)
		return;
	while ((de = readdir(d)) && f->n < MAX_FIXTURES)
		if (strncmp(de->d_name, "bad-", 4) == 0 && strstr(de->d_name, ".conf"))
			snprintf(f->names[f->n++], NAME_MAX + 1, "%s", de->d_name);
	closedir(d);
	qsort(f->names, (size_t)f->n, sizeof(f->names[0]), compare_fixture);
}

START_TEST(test_bad_fixtures) {
	struct fixtures f;
	char path[PATH_MAX], line[1024], *expect[16];
	struct config_errors e = { 0 };
	struct config *c = NULL;
	int n_expect = 0, r;
	FILE *fp;

	find_fixtures(&f);
	ck_assert_int_gt(f.n, _i);
	ck_assert_int_lt(snprintf(path, sizeof(path), "%s/%s", CONFIGS_DIR, f.names[_i]),
			 (int)sizeof(path));

	fp = fopen(path, "re");
	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof(line), fp) && strncmp(line, "# expect: ", 10) == 0 &&
	       n_expect < 16) {
		line[strcspn(line, "\n")] = '\0';
		/* "@FILE@" stands for the fixture's path */
		expect[n_expect++] = test_subst(line + 10, "@FILE@", path);
	}
	fclose(fp);
	ck_assert_msg(n_expect > 0, "%s: no '# expect: LINE: MESSAGE' first line", path);

	r = config_load(path, &c, &e);
	ck_assert_msg(r == -EINVAL, "%s: loaded without errors (r=%d)", f.names[_i], r);
	ck_assert_ptr_null(c);
	for (size_t i = 0; i < e.n || i < (size_t)n_expect; i++) {
		char got[1024] = "(none)";

		if (i < e.n) {
			snprintf(got, sizeof(got), "%d: %s", e.v[i].line, e.v[i].msg);
			ck_assert_str_eq(e.v[i].file, path);
		}
		ck_assert_msg(i < (size_t)n_expect && strcmp(got, expect[i]) == 0,
			      "%s: error %zu:\n  got:      %s\n  expected: %s", f.names[_i], i + 1,
			      got, i < (size_t)n_expect ? expect[i] : "(none)");
	}
	config_errors_clear(&e);
	for (int i = 0; i < n_expect; i++)
		free(expect[i]);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* drop-ins                                                                 */
/* ------------------------------------------------------------------------ */

static void make_conf_d(const char *dir, char *confd, size_t len) {
	test_join(confd, len, dir, "conf.d");
	ck_assert_int_eq(mkdir(confd, 0755), 0);
}

START_TEST(test_dropins_merged_in_order) {
	char confd[PATH_MAX], sub[PATH_MAX], p20[PATH_MAX];
	struct loaded l;
	const struct output_conf *o;

	test_tmpdir(l.dir, sizeof(l.dir));
	test_write(l.dir, "main.conf",
		   "log_level = \"warning\";\n"
		   "outputs = [\"a\"];\n"
		   "output = { a = { type = \"json\"; file = \"/var/log/a\"; };\n"
		   "           b = { type = \"journal\"; }; };\n"
		   "limits = { max_marks = 10; queue_size = 100; };\n"
		   "rules = ( { name = \"main\"; paths = [\"/srv/main\"]; } );\n");
	make_conf_d(l.dir, confd, sizeof(confd));
	/* Lexical order: 10 before 20 before 9 (bytes, not numbers). */
	test_write(
	    confd, "20-second.conf",
	    "log_level = \"debug\";\n"
	    "output = { a = { type = \"json\"; file = \"/var/log/a2\"; }; };\n"
	    "rules = ( { name = \"second\"; paths = [\"/srv/2\"]; outputs = [\"c\"]; } );\n");
	test_write(confd, "10-first.conf",
		   "log_level = \"error\";\n"
		   "outputs = [\"b\"];\n"
		   "limits = { max_marks = 20; };\n"
		   "output = { c = { type = \"exec\"; argv = [\"/bin/c\"]; }; };\n"
		   "rules = ( { name = \"first\"; paths = [\"/srv/1\"]; } );\n");
	test_write(confd, "9-last.conf",
		   "rules = ( { name = \"last\"; paths = [\"/srv/9\"]; } );\n");
	/* Not drop-ins: hidden, other suffix, a directory. */
	test_write(confd, ".hidden.conf", "this is not read");
	test_write(confd, "README", "this is not read");
	test_write(confd, "x.conf.bak", "this is not read");
	test_join(sub, sizeof(sub), confd, "dir.conf");
	ck_assert_int_eq(mkdir(sub, 0755), 0);

	load_dir(&l);
	assert_no_errors(&l);
	ck_assert_uint_eq(l.c->n_dropins, 3);
	ck_assert(strstr(l.c->dropins[0], "/conf.d/10-first.conf"));
	ck_assert(strstr(l.c->dropins[1], "/conf.d/20-second.conf"));
	ck_assert(strstr(l.c->dropins[2], "/conf.d/9-last.conf"));

	/* scalars: the last one wins; limits key by key */
	ck_assert_int_eq(l.c->log_level, LOG_DEBUG);
	ck_assert_uint_eq(l.c->max_marks, 20);
	ck_assert_uint_eq(l.c->queue_size, 100);
	ck_assert_uint_eq(l.c->n_default_outputs, 1);
	ck_assert_str_eq(l.c->default_outputs[0], "b");

	/* rules appended in order */
	ck_assert_uint_eq(l.c->n_rules, 4);
	ck_assert_str_eq(l.c->rules[0].name, "main");
	ck_assert_str_eq(l.c->rules[1].name, "first");
	ck_assert_str_eq(l.c->rules[2].name, "second");
	ck_assert_str_eq(l.c->rules[3].name, "last");
	test_join(p20, sizeof(p20), confd, "20-second.conf");
	ck_assert_str_eq(l.c->rules[2].origin.file, p20);
	ck_assert_int_eq(l.c->rules[2].origin.line, 3);

	/* outputs: added, or replaced by name */
	ck_assert_uint_eq(l.c->n_outputs, 3);
	o = config_find_output(l.c, "a");
	ck_assert_str_eq(o->file, "/var/log/a2");
	ck_assert_str_eq(o->origin.file, p20);
	ck_assert_int_eq(config_find_output(l.c, "c")->type, OUTPUT_EXEC);
	loaded_done(&l);
}
END_TEST

START_TEST(test_bad_dropin_named) {
	char confd[PATH_MAX], p[PATH_MAX];
	struct loaded l;

	test_tmpdir(l.dir, sizeof(l.dir));
	test_write(l.dir, "main.conf", MINIMAL_RULE);
	make_conf_d(l.dir, confd, sizeof(confd));
	test_write(confd, "50-bad.conf",
		   "# a drop-in\n"
		   "rules = (\n"
		   "  { name = \"d\"; paths = [\"/srv\"]; mark = \"inodes\"; }\n"
		   ");\n");
	load_dir(&l);
	assert_one_error(&l, 3,
			 "rule 'd': mark: unknown value \"inodes\" (one of \"auto\", \"inode\", "
			 "\"mount\", \"filesystem\", \"inotify\")");
	test_join(p, sizeof(p), confd, "50-bad.conf");
	ck_assert_str_eq(l.e.v[0].file, p);
	loaded_done(&l);
}
END_TEST

START_TEST(test_dropin_syntax_error_and_duplicate) {
	char confd[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX], want[PATH_MAX + 64];
	struct loaded l;

	test_tmpdir(l.dir, sizeof(l.dir));
	test_write(l.dir, "main.conf", MINIMAL_RULE);
	make_conf_d(l.dir, confd, sizeof(confd));
	test_write(confd, "a.conf", "\nrules = ( { name = \"r\"; paths = [\"/y\"]; } );\n");
	test_write(confd, "b.conf", "rules = (\n  { name = \"q\"; paths = [\"/y\",]; }\n);\n");
	load_dir(&l);
	ck_assert_int_eq(l.r, -EINVAL);
	ck_assert_uint_eq(l.e.n, 2);
	test_join(p1, sizeof(p1), confd, "a.conf");
	test_join(p2, sizeof(p2), confd, "b.conf");
	snprintf(want, sizeof(want), "rule 'r': duplicate rule name (first at %s:1)", l.path);
	ck_assert_str_eq(l.e.v[0].file, p1);
	ck_assert_int_eq(l.e.v[0].line, 2);
	ck_assert_str_eq(l.e.v[0].msg, want);
	ck_assert_str_eq(l.e.v[1].file, p2);
	ck_assert_int_eq(l.e.v[1].line, 2);
	ck_assert_str_eq(l.e.v[1].msg, "syntax error");
	loaded_done(&l);
}
END_TEST

START_TEST(test_dropin_uses_output_of_main_and_vice_versa) {
	char confd[PATH_MAX];
	struct loaded l;

	test_tmpdir(l.dir, sizeof(l.dir));
	test_write(l.dir, "main.conf",
		   "output = { m = { type = \"journal\"; }; };\n"
		   "rules = ( { name = \"main\"; paths = [\"/x\"]; outputs = [\"d\"]; } );\n");
	make_conf_d(l.dir, confd, sizeof(confd));
	test_write(confd, "d.conf",
		   "output = { d = { type = \"journal\"; }; };\n"
		   "rules = ( { name = \"drop\"; paths = [\"/x\"]; outputs = [\"m\"]; } );\n");
	load_dir(&l);
	assert_no_errors(&l);
	ck_assert_uint_eq(l.c->n_outputs, 3); /* m, d, and the default "journal" */
	loaded_done(&l);
}
END_TEST

START_TEST(test_all_errors_collected) {
	char confd[PATH_MAX], p[PATH_MAX];
	struct loaded l;

	test_tmpdir(l.dir, sizeof(l.dir));
	test_write(l.dir, "main.conf",
		   "log_level = \"loud\";\n"
		   "limits = { max_marks = 0; queue_size = \"x\"; };\n"
		   "rules = (\n"
		   "  { name = \"a\"; paths = [\"rel\"]; events = [\"opne\"]; recursive = 2; },\n"
		   "  { name = \"b\"; paths = [\"/b\"]; outputs = [\"missing\"]; }\n"
		   ");\n");
	make_conf_d(l.dir, confd, sizeof(confd));
	test_write(confd, "x.conf", "\n\nbogus = true;\n");
	load_dir(&l);
	ck_assert_int_eq(l.r, -EINVAL);
	ck_assert_ptr_null(l.c);
	{
		char *all = errors_text(&l.e), *want;

		test_join(p, sizeof(p), confd, "x.conf");
		want =
		    test_subst("{main}:1: log_level: unknown value \"loud\" (one of \"error\", "
			       "\"warning\", \"notice\", \"info\", \"debug\")\n"
			       "{main}:2: limits: max_marks: 0 is out of range (1 to 1000000)\n"
			       "{main}:2: limits: queue_size: expected an integer, not a string\n"
			       "{main}:4: rule 'a': paths: 'rel' is not absolute\n"
			       "{main}:4: rule 'a': unknown event 'opne'\n"
			       "{main}:4: rule 'a': recursive: expected a boolean (true or false), "
			       "not an integer\n"
			       "{main}:5: rule 'b': outputs: unknown output 'missing'\n"
			       "{drop}:3: unknown key 'bogus'\n",
			       "{main}", l.path);
		want = subst_free(want, "{drop}", p);
		ck_assert_str_eq(all, want);
		free(all);
		free(want);
	}
	loaded_done(&l);
}
END_TEST

START_TEST(test_unreadable) {
	struct config_errors e = { 0 };
	struct config *c = NULL;
	char *all;

	ck_assert_int_eq(config_load("/nonexistent/fsnotifyd.conf", &c, &e), -EINVAL);
	ck_assert_ptr_null(c);
	all = errors_text(&e);
	ck_assert_str_eq(all, "/nonexistent/fsnotifyd.conf: cannot read: No such file or "
			      "directory\n");
	free(all);
	config_errors_clear(&e);
	ck_assert_uint_eq(e.n, 0);
	ck_assert_ptr_null(e.v);
	/* errors may be NULL: still -EINVAL */
	ck_assert_int_eq(config_load("/nonexistent/fsnotifyd.conf", &c, NULL), -EINVAL);
	ck_assert_int_eq(config_load(NULL, &c, NULL), -EINVAL);
	/* a flag config_load_flags() does not know: refused before reading */
	ck_assert_int_eq(config_load_flags("/nonexistent/fsnotifyd.conf", 1u << 30, &c, &e),
			 -EINVAL);
	ck_assert_uint_eq(e.n, 0);
	ck_assert_ptr_null(c);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* hostile files: @include and the config path                              */
/* ------------------------------------------------------------------------ */

/* main.conf (text) in a directory that also has: sub/ (a directory), fifo,
 * good.inc (a valid rule), bad.inc (an unknown key on line 2), loop.inc
 * (includes itself), fan.inc (includes itself three times), wide.inc
 * (includes leaf.inc, a comment, 65 times), big.inc (sparse, over the size
 * limit). Loads it: the errors (never an exit, never a hang). */
static void load_with_files(struct loaded *l, const char *text) {
	char p[PATH_MAX], wide[65 * 20 + 1] = "";
	int fd;

	test_tmpdir(l->dir, sizeof(l->dir));
	test_join(p, sizeof(p), l->dir, "sub");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	test_join(p, sizeof(p), l->dir, "fifo");
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	test_join(p, sizeof(p), l->dir, "big.inc");
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)17 << 20), 0);
	close(fd);
	test_write(l->dir, "good.inc", "rules = ( { name = \"inc\"; paths = [\"/srv\"]; } );\n");
	test_write(l->dir, "bad.inc", "# line 1\nbogus = 1;\n");
	test_write(l->dir, "loop.inc", "@include \"loop.inc\"\n");
	test_write(l->dir, "fan.inc",
		   "@include \"fan.inc\"\n@include \"fan.inc\"\n@include \"fan.inc\"\n");
	test_write(l->dir, "leaf.inc", "# a leaf\n");
	for (int i = 0; i < 65; i++)
		strcat(wide, "@include \"leaf.inc\"\n");
	test_write(l->dir, "wide.inc", wide);
	test_write(l->dir, "main.conf", text);
	load_dir(l);
}

/* One error, in file (a name in the directory, or main.conf) at line. */
static void assert_include_error(const struct loaded *l, const char *file, int line,
				 const char *msg) {
	char *all = errors_text(&l->e), want[PATH_MAX];

	ck_assert_msg(l->e.n == 1, "expected 1 error, got %zu:\n%s", l->e.n, all);
	free(all);
	ck_assert_int_eq(l->r, -EINVAL);
	ck_assert_ptr_null(l->c);
	test_join(want, sizeof(want), l->dir, file); /* (includes: below main.conf's directory) */
	ck_assert_str_eq(l->e.v[0].file, want);
	ck_assert_int_eq(l->e.v[0].line, line);
	ck_assert_str_eq(l->e.v[0].msg, msg);
}

START_TEST(test_include_hostile) {
	static const struct {
		const char *text;
		const char *file;
		int line;
		const char *msg; /* @DIR@: the directory */
	} cases[] = {
		{ MINIMAL_RULE "@include \"sub\"\n", "main.conf", 2,
		  "@include \"@DIR@/sub\": cannot read: a directory, not a regular file" },
		{ MINIMAL_RULE "  @include \"\"\n", "main.conf", 2, "@include: empty file name" },
		{ "\n" MINIMAL_RULE "@include \"fifo\"\n", "main.conf", 3,
		  "@include \"@DIR@/fifo\": cannot read: a FIFO, not a regular file" },
		{ MINIMAL_RULE "@include \"nope.inc\"\n", "main.conf", 2,
		  "@include \"@DIR@/nope.inc\": cannot read: No such file or directory" },
		{ MINIMAL_RULE "@include \"big.inc\"\n", "main.conf", 2,
		  "@include \"@DIR@/big.inc\": cannot read: larger than 16 MiB" },
		{ MINIMAL_RULE "@include \"open\n\"\n", "main.conf", 2,
		  "@include: the file name is not closed on its line" },
		{ MINIMAL_RULE "@include \"bad.inc\"\n", "bad.inc", 2, "unknown key 'bogus'" },
		{ MINIMAL_RULE "@include \"loop.inc\"\n", "loop.inc", 1,
		  "@include \"@DIR@/loop.inc\": nested more than 10 deep (a cycle?)" },
		/* wide.inc and 63 times leaf.inc: the 64th leaf is one too many */
		{ MINIMAL_RULE "@include \"wide.inc\"\n", "wide.inc", 64,
		  "@include \"@DIR@/leaf.inc\": more than 64 includes in all (a cycle?)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct loaded l;
		char *msg;

		load_with_files(&l, cases[i].text);
		msg = test_subst(cases[i].msg, "@DIR@", l.dir);
		assert_include_error(&l, cases[i].file, cases[i].line, msg);
		free(msg);
		loaded_done(&l);
	}
}
END_TEST

/* A cycle that fans out: fan.inc includes itself three times, 3^10 copies
 * (each an open memfd, each leaf an error) without a bound on includes;
 * with it, 64 includes, the "nested" error of each directive 10 deep met
 * on the way (3 for each of at most 64 copies), and the bound's, once. */
START_TEST(test_include_fanout) {
	struct loaded l;
	size_t bound = 0;

	load_with_files(&l, MINIMAL_RULE "@include \"fan.inc\"\n");
	ck_assert_int_eq(l.r, -EINVAL);
	ck_assert_ptr_null(l.c);
	ck_assert_uint_le(l.e.n, 3 * 64 + 1);
	for (size_t i = 0; i < l.e.n; i++)
		if (strstr(l.e.v[i].msg, "more than 64 includes in all"))
			bound++;
		else
			ck_assert_ptr_nonnull(strstr(l.e.v[i].msg, "nested more than 10 deep"));
	ck_assert_uint_eq(bound, 1);
	loaded_done(&l);
}
END_TEST

/* An include is found where libconfig finds it (a line's start, outside
 * comments and strings), read from the checked copy, line numbers kept. */
START_TEST(test_include_where) {
	struct loaded l;

	load_with_files(&l, "# @include \"fifo\"\n"
			    "/* @include \"fifo\"\n"
			    "@include \"fifo\" */\n"
			    "log_level = \"info\n"
			    "@include \\\"fifo\\\"\";\n"
			    "@include \"good.inc\"\n"
			    "limits = { max_marks = -1; };\n");
	/* the string above is not a log level: line 4; the limit: line 7 */
	ck_assert_uint_eq(l.e.n, 2);
	ck_assert_int_eq(l.e.v[0].line, 4);
	ck_assert_str_eq(l.e.v[0].file, l.path);
	ck_assert_int_eq(l.e.v[1].line, 7);
	loaded_done(&l);

	load_with_files(&l, "@include \"good.inc\"\n");
	assert_no_errors(&l);
	ck_assert_uint_eq(l.c->n_rules, 1);
	ck_assert_str_eq(l.c->rules[0].name, "inc");
	ck_assert(strstr(l.c->rules[0].origin.file, "/good.inc"));
	ck_assert_int_eq(l.c->rules[0].origin.line, 1);
	loaded_done(&l);
}
END_TEST

/* The config path itself is a directory or a FIFO: an error, no exit, no
 * hang. */
START_TEST(test_config_not_regular) {
	struct loaded l;
	char p[PATH_MAX];
	char *all;

	load_with_files(&l, MINIMAL_RULE);
	assert_no_errors(&l);
	config_free(l.c);
	config_errors_clear(&l.e);
	test_join(p, sizeof(p), l.dir, "sub");
	ck_assert_int_eq(config_load(p, &l.c, &l.e), -EINVAL);
	all = errors_text(&l.e);
	ck_assert_str_eq(all + strlen(p), ": cannot read: a directory, not a regular file\n");
	free(all);
	config_errors_clear(&l.e);
	test_join(p, sizeof(p), l.dir, "fifo");
	ck_assert_int_eq(config_load(p, &l.c, &l.e), -EINVAL);
	all = errors_text(&l.e);
	ck_assert_str_eq(all + strlen(p), ": cannot read: a FIFO, not a regular file\n");
	free(all);
	l.c = NULL;
	loaded_done(&l);
}
END_TEST

START_TEST(test_errors_print) {
	struct config_error v[] = {
		{ .file = (char *)"a.conf", .line = 3, .msg = (char *)"bad" },
		{ .file = (char *)"b.conf", .line = 0, .msg = (char *)"worse" },
	};
	struct config_errors e = { .v = v, .n = 2 };
	char *all = errors_text(&e);

	ck_assert_str_eq(all, "a.conf:3: bad\nb.conf: worse\n");
	free(all);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* shipped configurations                                                   */
/* ------------------------------------------------------------------------ */

/* A shipped configuration, loaded without an error; shipped_done() frees it. */
static void shipped_load(struct loaded *l, const char *path) {
	*l = (struct loaded){ 0 };
	snprintf(l->path, sizeof(l->path), "%s", path);
	l->r = config_load(l->path, &l->c, &l->e);
	assert_no_errors(l);
}

static void shipped_done(struct loaded *l) {
	config_free(l->c);
	config_errors_clear(&l->e);
}

static void load_shipped(const char *path) {
	struct loaded l;

	shipped_load(&l, path);
	ck_assert_uint_gt(l.c->n_rules, 0);
	shipped_done(&l);
}

START_TEST(test_default_config) {
	struct loaded l;
	const struct rule_conf *r;

	/* The installed default: /etc with a watch per directory, /usr/bin and
	 * /usr/sbin with inode marks, to the journal; no mark that makes
	 * accesses elsewhere on the filesystem reach the daemon, no
	 * permission event, nothing created. */
	shipped_load(&l, FSN_CONF_SOURCE_DIR "/fsnotifyd.conf");
	ck_assert_uint_eq(l.c->n_rules, 2);
	r = config_find_rule(l.c, "etc");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->paths[0], "/etc");
	ck_assert_int_eq(r->mark, RULE_MARK_INOTIFY);
	ck_assert(r->recursive);
	r = config_find_rule(l.c, "binaries");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n_paths, 2);
	ck_assert_str_eq(r->paths[0], "/usr/bin");
	ck_assert_str_eq(r->paths[1], "/usr/sbin");
	ck_assert_int_eq(r->mark, RULE_MARK_INODE);
	ck_assert(!r->recursive);
	for (size_t i = 0; i < l.c->n_rules; i++) {
		ck_assert(!l.c->rules[i].create);
		ck_assert(!l.c->rules[i].perm);
	}
	ck_assert_uint_eq(l.c->n_default_outputs, 1);
	ck_assert_int_eq(config_find_output(l.c, l.c->default_outputs[0])->type, OUTPUT_JOURNAL);
	shipped_done(&l);
}
END_TEST

START_TEST(test_demo_config) {
	struct loaded l;
	const struct rule_conf *r;

	shipped_load(&l, FSN_CONF_SOURCE_DIR "/demo.conf");
	/* What the README promises of tools/run-daemon: a recursive demo
	 * directory created if missing, /etc, JSON lines on stdout. */
	r = config_find_rule(l.c, "demo");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->paths[0], "/tmp/fsnotifyd-demo");
	ck_assert(r->create);
	ck_assert(r->recursive);
	r = config_find_rule(l.c, "etc");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->paths[0], "/etc");
	ck_assert_int_eq(r->mark, RULE_MARK_INOTIFY);
	ck_assert_uint_eq(l.c->n_default_outputs, 1);
	ck_assert_int_eq(config_find_output(l.c, l.c->default_outputs[0])->type, OUTPUT_JSON);
	ck_assert_str_eq(config_find_output(l.c, l.c->default_outputs[0])->file, "-");
	shipped_done(&l);
}
END_TEST

START_TEST(test_examples_load) {
	DIR *d = opendir(FSN_CONF_SOURCE_DIR "/examples");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (!strstr(de->d_name, ".conf"))
			continue;
		snprintf(path, sizeof(path), "%s/examples/%s", FSN_CONF_SOURCE_DIR, de->d_name);
		load_shipped(path);
		n++;
	}
	closedir(d);
	ck_assert_int_ge(n, 4);
}
END_TEST

/* Every key of the schema is in fsnotifyd.conf(5), with its default. */
struct man_check {
	char *text;
	int n;
};

static void check_key_documented(const struct config_key_info *k, void *userdata) {
	struct man_check *m = userdata;
	char want[512];

	m->n++;
	snprintf(want, sizeof(want), ".B %s\n", k->name);
	ck_assert_msg(strstr(m->text, want), "fsnotifyd.conf(5) has no \"%s\" for %s%s%s", want,
		      k->scope, *k->scope ? "." : "", k->name);
	if (k->def) {
		char def[256];
		size_t o = 0;

		/* the default as the page writes it: roff escapes for " and \ */
		for (const char *p = k->def; *p && o + 3 < sizeof(def); p++) {
			if (*p == '"' || *p == '\\') {
				def[o++] = '\\';
				def[o++] = *p == '"' ? '(' : 'e';
				if (*p == '"') {
					def[o++] = 'd';
					def[o++] = 'q';
				}
			} else
				def[o++] = *p;
		}
		def[o] = '\0';
		ck_assert_int_lt(snprintf(want, sizeof(want), "Default: %s", def),
				 (int)sizeof(want));
		ck_assert_msg(strstr(m->text, want),
			      "fsnotifyd.conf(5) does not say \"%s\" (%s%s%s)", want, k->scope,
			      *k->scope ? "." : "", k->name);
	}
}

START_TEST(test_man_page_documents_schema) {
	struct man_check m = { 0 };
	FILE *f = fopen(FSN_SOURCE_ROOT "/doc/man/fsnotifyd.conf.5", "re");
	size_t len = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(getdelim(&m.text, &len, '\0', f), 0);
	fclose(f);
	config_schema_foreach(check_key_documented, &m);
	ck_assert_int_ge(m.n, 30);
	free(m.text);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* small functions                                                          */
/* ------------------------------------------------------------------------ */

START_TEST(test_names) {
	ck_assert_str_eq(rule_mark_name(RULE_MARK_AUTO), "auto");
	ck_assert_str_eq(rule_mark_name(RULE_MARK_INODE), "inode");
	ck_assert_str_eq(rule_mark_name(RULE_MARK_MOUNT), "mount");
	ck_assert_str_eq(rule_mark_name(RULE_MARK_FILESYSTEM), "filesystem");
	ck_assert_str_eq(rule_mark_name(RULE_MARK_INOTIFY), "inotify");
	ck_assert_ptr_null(rule_mark_name((enum rule_mark)99));
	ck_assert_str_eq(output_type_name(OUTPUT_JOURNAL), "journal");
	ck_assert_str_eq(output_type_name(OUTPUT_JSON), "json");
	ck_assert_str_eq(output_type_name(OUTPUT_EXEC), "exec");
	ck_assert_str_eq(output_type_name(OUTPUT_METRICS), "metrics");
	ck_assert_ptr_null(output_type_name((enum output_type)99));
	ck_assert_ptr_null(config_find_rule(NULL, "x"));
	ck_assert_ptr_null(config_find_output(NULL, "x"));
	ck_assert_ptr_null(config_free(NULL));
	config_errors_clear(NULL);
}
END_TEST

START_TEST(test_same_marks) {
	struct loaded l;
	const struct config *c;

	load_text(&l, "output = { o = { type = \"journal\"; }; };\n"
		      "rules = (\n"
		      "  { name = \"a\"; paths = [\"/x\", \"/y\"]; exclude = [\"/x/c\"]; },\n"
		      "  { name = \"b\"; paths = [\"/x\", \"/y\"]; exclude = [\"/x/c\"];\n"
		      "    uids = [0]; comms = [\"sh\"]; outputs = [\"o\"]; rate_limit = 3; },\n"
		      "  { name = \"c\"; paths = [\"/y\", \"/x\"]; exclude = [\"/x/c\"]; },\n"
		      "  { name = \"d\"; paths = [\"/x\", \"/y\"]; exclude = [\"/x/c\"];\n"
		      "    events = [\"create\"]; },\n"
		      "  { name = \"e\"; paths = [\"/x\", \"/y\"]; exclude = [\"/x/c\"];\n"
		      "    recursive = true; },\n"
		      "  { name = \"f\"; paths = [\"/x\", \"/y\"]; },\n"
		      "  { name = \"g\"; paths = [\"/x\", \"/y\"]; exclude = [\"/x/c\"];\n"
		      "    mark = \"inotify\"; }\n"
		      ");\n");
	assert_no_errors(&l);
	c = l.c;
	/* process filters, outputs and rate limits do not change marks */
	ck_assert(rule_conf_same_marks(&c->rules[0], &c->rules[1]));
	ck_assert(rule_conf_same_marks(&c->rules[0], &c->rules[0]));
	for (size_t i = 2; i < c->n_rules; i++)
		ck_assert_msg(!rule_conf_same_marks(&c->rules[0], &c->rules[i]), "rule %s",
			      c->rules[i].name);
	ck_assert(!rule_conf_same_marks(NULL, &c->rules[0]));
	loaded_done(&l);
}
END_TEST

static void config_suite(Suite *s) {
	struct fixtures f;
	TCase *tc;

	tc = tcase_create("keys");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_output_defaults);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_paths_normalised);
	tcase_add_test(tc, test_paths_duplicate_after_normalising);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_same_marks);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_unknown_keys);
	tcase_add_test(tc, test_type_errors);
	tcase_add_test(tc, test_value_errors);
	tcase_add_test(tc, test_all_errors_collected);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_errors_print);
	suite_add_tcase(s, tc);

	tc = tcase_create("includes");
	tcase_add_test(tc, test_include_hostile);
	tcase_add_test(tc, test_include_fanout);
	tcase_add_test(tc, test_include_where);
	tcase_add_test(tc, test_config_not_regular);
	suite_add_tcase(s, tc);

	/* One test per fixture, so each passes or fails on its own. At least
	 * one iteration runs: with no fixture found, it fails. */
	find_fixtures(&f);
	tc = tcase_create("bad-configs");
	tcase_add_loop_test(tc, test_bad_fixtures, 0, f.n > 0 ? f.n : 1);
	suite_add_tcase(s, tc);

	tc = tcase_create("dropins");
	tcase_add_test(tc, test_dropins_merged_in_order);
	tcase_add_test(tc, test_bad_dropin_named);
	tcase_add_test(tc, test_dropin_syntax_error_and_duplicate);
	tcase_add_test(tc, test_dropin_uses_output_of_main_and_vice_versa);
	suite_add_tcase(s, tc);

	tc = tcase_create("shipped");
	tcase_add_test(tc, test_default_config);
	tcase_add_test(tc, test_demo_config);
	tcase_add_test(tc, test_examples_load);
	tcase_add_test(tc, test_man_page_documents_schema);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("config", config_suite);
