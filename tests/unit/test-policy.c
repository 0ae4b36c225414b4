/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-policy.c — the "policy" suite: daemon/policy.c, the compiled
 * permission rule the guard evaluates. Each case loads a config text with
 * config_load() (so the decision lists are parsed as a user writes them),
 * compiles a rule with policy_new() and evaluates it: decision order,
 * every criterion, the default verdict and what is reported;
 * policy_applies() with scopes, exclusions and process filters.
 *
 * The process behind an event is a struct proc_info filled in by the test
 * with every have_* flag set, for a pid no process has: nothing is read
 * from /proc, and a read that happened anyway would find nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "fsn-uapi.h"
#include "policy.h"
#include "unit.h"

/* No process has it (pid_max is at most 2^22). */
#define NO_SUCH_PID 2000000000

/* ------------------------------------------------------------------------ */
/* fixtures                                                                 */
/* ------------------------------------------------------------------------ */

struct fx {
	char dir[PATH_MAX];
	struct config *c;
	struct policy *p;
};

static void fx_init(struct fx *fx) {
	*fx = (struct fx){ 0 };
	test_tmpdir(fx->dir, sizeof(fx->dir));
}

/* Load tmpl ("@D@": fx->dir) and compile its first rule with these scopes. */
static void fx_compile(struct fx *fx, const char *tmpl, const struct policy_scope *scopes,
		       size_t n_scopes) {
	fx->c = test_config_load(fx->dir, tmpl);
	ck_assert_uint_ge(fx->c->n_rules, 1);
	ck_assert(fx->c->rules[0].perm);
	ck_assert_int_eq(policy_new(&fx->c->rules[0], scopes, n_scopes, &fx->p), 0);
	ck_assert_ptr_nonnull(fx->p);
}

static void fx_load(struct fx *fx, const char *tmpl, const struct policy_scope *scopes,
		    size_t n_scopes) {
	fx_init(fx);
	fx_compile(fx, tmpl, scopes, n_scopes);
}

static void fx_done(struct fx *fx) {
	policy_free(fx->p);
	config_free(fx->c);
	test_rm_tree(fx->dir);
}

/* A process known in full: comm, effective uid/gid, exe (NULL: unknown,
 * as for a kernel thread). */
static struct proc_info known(const char *comm, uid_t uid, gid_t gid, const char *exe) {
	struct proc_info p;

	proc_info_init(&p, NO_SUCH_PID);
	p.have_comm = p.comm_ok = true;
	snprintf(p.comm, sizeof(p.comm), "%s", comm);
	p.have_status = p.status_ok = true;
	p.uid = uid;
	p.gid = gid;
	p.have_exe = true;
	p.exe_ok = exe != NULL;
	snprintf(p.exe, sizeof(p.exe), "%s", exe ? exe : "");
	return p;
}

/* A process the daemon knows nothing about (the event had no pid). */
static struct proc_info unknown(void) {
	struct proc_info p;

	proc_info_init(&p, 0);
	return p;
}

/* A process that was gone when the daemon looked. */
static struct proc_info gone(void) {
	struct proc_info p;

	proc_info_init(&p, NO_SUCH_PID);
	p.have_comm = p.have_status = p.have_exe = true;
	return p;
}

#define PLAIN ((struct proc_info[]){ known("true", 1, 1, "/usr/bin/true") })

/* policy_decide() for (mask, path, proc) gives the decision-th entry
 * (0: the default) with verdict (as verdict_format() writes it) and log. */
static void assert_decide(const struct policy *p, uint64_t mask, const char *path,
			  struct proc_info proc, unsigned decision, const char *verdict, bool log) {
	struct policy_result r;
	char v[64];

	memset(&r, 0xa5, sizeof(r));
	policy_decide(p, mask, path, &proc, &r);
	verdict_format(&r.verdict, v, sizeof(v));
	ck_assert_msg(r.decision == decision && strcmp(v, verdict) == 0 && r.log == log,
		      "%s (%s): decision %u %s log %d, expected %u %s log %d", path ? path : "NULL",
		      proc.comm_ok ? proc.comm : "?", r.decision, v, r.log, decision, verdict, log);
}

/* policy_applies() for (path, proc) is want. */
static void assert_applies(const struct policy *p, const char *path, struct proc_info proc,
			   bool want) {
	ck_assert_msg(policy_applies(p, path, &proc) == want, "%s (%s): applies %d, expected %d",
		      path ? path : "NULL", proc.comm_ok ? proc.comm : "?", !want, want);
}

#define RULE(body)                                                                                 \
	"rules = ( { name = \"r\"; paths = [\"/srv\"]; events = [\"open_perm\"];\n" body " } );\n"

/* ------------------------------------------------------------------------ */
/* policy_decide                                                            */
/* ------------------------------------------------------------------------ */

START_TEST(test_first_match_wins) {
	struct fx fx;

	fx_load(&fx,
		RULE("decisions = (\n"
		     "  { paths = [\"/srv/a\"]; verdict = \"allow\"; },\n"
		     "  { paths = [\"/srv\"]; verdict = \"deny\"; },\n"
		     "  { paths = [\"/srv/a/b\"]; verdict = \"deny(EIO)\"; },\n"
		     "  { verdict = \"audit\"; }\n"
		     ");\n"
		     "default = \"deny\";"),
		NULL, 0);
	/* the first two both match /srv/a and below: the first decides */
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/a", PLAIN[0], 1, "allow", false);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/a/b/c", PLAIN[0], 1, "allow", false);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/x", PLAIN[0], 2, "deny", true);
	/* a decision without criteria matches everything: the default is never used */
	assert_decide(fx.p, FAN_OPEN_PERM, "/etc/passwd", PLAIN[0], 4, "audit", true);
	assert_decide(fx.p, FAN_OPEN_PERM, NULL, unknown(), 4, "audit", true);
	fx_done(&fx);
}
END_TEST

START_TEST(test_paths_prefix_and_glob) {
	static const struct {
		const char *path;
		unsigned decision;
	} cases[] = {
		/* the object and everything below it */
		{ "/a/b", 1 },
		{ "/a/b/c", 1 },
		{ "/a/b/c/d/e", 1 },
		/* not a sibling sharing the prefix, not the parent */
		{ "/a/bc", 0 },
		{ "/a/b.d/x", 0 },
		{ "/a", 0 },
		/* configured paths are normalised */
		{ "/c/d/e", 1 },
		/* globs match the full path, '*' also across '/' */
		{ "/srv/x.so", 2 },
		{ "/srv/lib/deep/x.so", 2 },
		{ "/srv/x.sox", 0 },
		{ "/home/u/src/.git/config", 2 },
		{ "/home/u/.gitignore", 0 },
		{ "/x/1a", 2 },
		{ "/x/a1", 0 },
		/* an unknown path matches no paths criterion */
		{ NULL, 0 },
	};
	struct fx fx;

	fx_load(&fx,
		RULE("decisions = (\n"
		     "  { paths = [\"/a/b\", \"/c/./d/\"]; verdict = \"deny\"; },\n"
		     "  { paths = [\"/srv/*.so\", \"*/.git/*\", \"/x/[0-9]?\"]; verdict = "
		     "\"deny(EPERM)\"; log = false; }\n"
		     ");"),
		NULL, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_decide(fx.p, FAN_OPEN_PERM, cases[i].path, PLAIN[0], cases[i].decision,
			      cases[i].decision ? "deny" : "allow", cases[i].decision == 1);
	ck_assert(policy_needs_path(fx.p));
	fx_done(&fx);
}
END_TEST

/* "/" is the whole tree, itself included. */
START_TEST(test_paths_root) {
	struct fx fx;

	fx_load(&fx, RULE("decisions = ( { paths = [\"/\"]; verdict = \"deny\"; } );"), NULL, 0);
	assert_decide(fx.p, FAN_OPEN_PERM, "/etc/passwd", PLAIN[0], 1, "deny", true);
	assert_decide(fx.p, FAN_OPEN_PERM, "/etc", PLAIN[0], 1, "deny", true);
	assert_decide(fx.p, FAN_OPEN_PERM, "/", PLAIN[0], 1, "deny", true);
	fx_done(&fx);
}
END_TEST

START_TEST(test_events_criterion) {
	struct fx fx;

	fx_load(&fx,
		"rules = ( { name = \"r\"; paths = [\"/srv\"];\n"
		"  events = [\"open_perm\", \"access_perm\", \"open_exec_perm\"];\n"
		"  decisions = (\n"
		"    { events = [\"open_exec_perm\"]; verdict = \"deny\"; },\n"
		"    { events = [\"access_perm\", \"open_perm\"]; paths = [\"/srv/secret\"];\n"
		"      verdict = \"deny(EIO)\"; }\n"
		"  ); } );\n",
		NULL, 0);
	assert_decide(fx.p, FAN_OPEN_EXEC_PERM, "/srv/secret", PLAIN[0], 1, "deny", true);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/secret", PLAIN[0], 2, "deny(EIO)", true);
	assert_decide(fx.p, FAN_ACCESS_PERM, "/srv/secret/x", PLAIN[0], 2, "deny(EIO)", true);
	/* every criterion must match: the event, and the path */
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/public", PLAIN[0], 0, "allow", false);
	fx_done(&fx);
}
END_TEST

START_TEST(test_process_criteria) {
	static const struct {
		const char *path, *comm; /* comm NULL: an unknown process */
		uid_t uid;
		gid_t gid;
		const char *exe;
		unsigned decision;
		const char *verdict;
	} cases[] = {
		/* all of decision 1's criteria: uid (by name too), comm, path */
		{ "/srv/x/f", "sh", 0, 0, "/bin/sh", 1, "deny" },
		{ "/srv/x/f", "sh", 1000, 0, "/bin/sh", 1, "deny" },
		{ "/srv/y", "sh", 0, 0, "/bin/sh", 0, "allow" },
		{ "/srv/x/f", "bash", 0, 0, "/bin/bash", 0, "allow" },
		/* uids and gids are the effective ones in proc_info */
		{ "/srv/y", "bash", 1000, 0, "/bin/bash", 2, "deny(EAGAIN)" },
		{ "/srv/y", "bash", 2, 60, "/bin/bash", 3, "deny(EBUSY)" },
		{ "/srv/y", "bash", 7, 0, "/bin/bash", 4, "deny(ENOSPC)" },
		{ "/srv/y", "bash", 7, 1, "/bin/bash", 0, "allow" },
		{ "/srv/y", "cc1", 2, 2, "/usr/lib/cc1", 5, "audit" },
		/* comm is compared whole */
		{ "/srv/y", "makefoo", 2, 2, "/bin/x", 0, "allow" },
		/* exes: globs and paths (the object and below) */
		{ "/srv/y", "py", 2, 2, "/usr/bin/python3.12", 6, "deny(ETXTBSY)" },
		{ "/srv/y", "t", 2, 2, "/opt/tool", 7, "deny(EDQUOT)" },
		{ "/srv/y", "t", 2, 2, "/opt/tool/bin/t", 7, "deny(EDQUOT)" },
		{ "/srv/y", "t", 2, 2, "/opt/toolbox", 0, "allow" },
		/* exe unknown (a kernel thread): no exes criterion matches */
		{ "/srv/y", "kworker", 2, 2, NULL, 0, "allow" },
		/* a process not known matches no process criterion */
		{ "/srv/x/f", NULL, 0, 0, NULL, 0, "allow" },
	};
	struct fx fx;

	fx_load(&fx,
		RULE("decisions = (\n"
		     "  { uids = (1000, \"root\"); comms = [\"sh\"]; paths = [\"/srv/x\"];\n"
		     "    verdict = \"deny\"; },\n"
		     "  { uids = [1000]; verdict = \"deny(EAGAIN)\"; },\n"
		     "  { gids = [50, 60]; verdict = \"deny(EBUSY)\"; },\n"
		     "  { gids = [\"root\"]; uids = [7]; verdict = \"deny(ENOSPC)\"; },\n"
		     "  { comms = [\"make\", \"cc1\"]; verdict = \"audit\"; },\n"
		     "  { exes = [\"/usr/bin/python3*\"]; verdict = \"deny(ETXTBSY)\"; },\n"
		     "  { exes = [\"/opt/tool\"]; verdict = \"deny(EDQUOT)\"; }\n"
		     ");"),
		NULL, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_decide(
		    fx.p, FAN_OPEN_PERM, cases[i].path,
		    cases[i].comm ? known(cases[i].comm, cases[i].uid, cases[i].gid, cases[i].exe)
				  : unknown(),
		    cases[i].decision, cases[i].verdict, strcmp(cases[i].verdict, "allow") != 0);
	/* a process gone when the daemon looked, likewise */
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/x/f", gone(), 0, "allow", false);
	fx_done(&fx);
}
END_TEST

/* A process criterion on an unknown process does not stop the next
 * decision from matching. */
START_TEST(test_unknown_process_falls_through) {
	struct fx fx;

	fx_load(&fx,
		RULE("decisions = (\n"
		     "  { uids = [0]; verdict = \"allow\"; log = true; },\n"
		     "  { comms = [\"x\"]; verdict = \"allow\"; },\n"
		     "  { exes = [\"*\"]; verdict = \"allow\"; },\n"
		     "  { paths = [\"/srv\"]; verdict = \"deny\"; }\n"
		     ");"),
		NULL, 0);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/f", known("x", 0, 0, "/x"), 1, "allow", true);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/f", unknown(), 4, "deny", true);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/f", gone(), 4, "deny", true);
	/* no path either: nothing matches, the default (allow) */
	assert_decide(fx.p, FAN_OPEN_PERM, NULL, unknown(), 0, "allow", false);
	fx_done(&fx);
}
END_TEST

/* The default verdict and what is reported: every verdict but a plain
 * allow unless `log` says otherwise; a default that is not allow. */
START_TEST(test_default_and_log) {
	static const struct {
		const char *rule, *verdict;
		unsigned decision;
		bool log;
	} cases[] = {
		{ "", "allow", 0, false },
		{ "default = \"allow\";", "allow", 0, false },
		{ "default = \"deny\";", "deny", 0, true },
		{ "default = \"deny(EIO)\";", "deny(EIO)", 0, true },
		{ "default = \"audit\";", "audit", 0, true },
		{ "decisions = ( { verdict = \"allow\"; } ); default = \"deny\";", "allow", 1,
		  false },
		{ "decisions = ( { verdict = \"allow\"; log = true; } );", "allow", 1, true },
		{ "decisions = ( { verdict = \"deny\"; log = false; } );", "deny", 1, false },
		{ "decisions = ( { verdict = \"deny\"; } );", "deny", 1, true },
		{ "decisions = ( { verdict = \"audit\"; log = false; } );", "audit", 1, false },
		{ "decisions = ( { verdict = \"allow\"; audit = true; } );", "audit", 1, true },
		{ "decisions = ( { verdict = \"deny\"; audit = true; } );", "deny+audit", 1, true },
		{ "decisions = ( { verdict = \"deny(EIO)\"; audit = true; log = false; } );",
		  "deny(EIO)+audit", 1, false },
		/* the kernel's plain deny is EPERM */
		{ "decisions = ( { verdict = \"deny(EPERM)\"; } );", "deny", 1, true },
		{ "decisions = ( );", "allow", 0, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = test_subst(RULE("@R@"), "@R@", cases[i].rule);
		struct fx fx;

		fx_load(&fx, text, NULL, 0);
		free(text);
		assert_decide(fx.p, FAN_OPEN_PERM, "/srv/f", PLAIN[0], cases[i].decision,
			      cases[i].verdict, cases[i].log);
		fx_done(&fx);
	}
}
END_TEST

START_TEST(test_verdict_details) {
	struct fx fx;
	struct policy_result r;
	struct proc_info pi = known("sh", 0, 0, "/bin/sh");

	fx_load(
	    &fx,
	    RULE("decisions = (\n"
		 "  { paths = [\"/srv/a\"]; verdict = \"deny(EIO)\"; },\n"
		 "  { paths = [\"/srv/b\"]; verdict = \"audit\"; },\n"
		 "  { paths = [\"/srv/c\"]; verdict = \"deny\"; audit = true; }\n"
		 ");\n"
		 "default = \"deny(ETXTBSY)\"; deadline_verdict = \"audit\"; deadline_ms = 250;\n"
		 "debug_delay_ms = 7;"),
	    NULL, 0);
	policy_decide(fx.p, FAN_OPEN_PERM, "/srv/a/f", &pi, &r);
	ck_assert(r.verdict.deny);
	ck_assert_int_eq(r.verdict.err, EIO);
	ck_assert(!r.verdict.audit);
	ck_assert_str_eq(verdict_errno_name(r.verdict.err), "EIO");
	policy_decide(fx.p, FAN_OPEN_PERM, "/srv/b", &pi, &r);
	ck_assert(!r.verdict.deny);
	ck_assert_int_eq(r.verdict.err, 0);
	ck_assert(r.verdict.audit);
	policy_decide(fx.p, FAN_OPEN_PERM, "/srv/c", &pi, &r);
	ck_assert(r.verdict.deny);
	ck_assert_int_eq(r.verdict.err, 0);
	ck_assert(r.verdict.audit);
	policy_decide(fx.p, FAN_OPEN_PERM, "/srv/d", &pi, &r);
	ck_assert_uint_eq(r.decision, 0);
	ck_assert(r.verdict.deny);
	ck_assert_int_eq(r.verdict.err, ETXTBSY);

	ck_assert_str_eq(policy_rule_name(fx.p), "r");
	ck_assert_uint_eq(policy_deadline_ms(fx.p), 250);
	ck_assert_uint_eq(policy_delay_ms(fx.p), 7);
	ck_assert(!policy_deadline_verdict(fx.p)->deny);
	ck_assert(policy_deadline_verdict(fx.p)->audit);
	fx_done(&fx);

	/* unset: deadline 500 ms, its verdict the default, no delay */
	fx_load(&fx, RULE("default = \"deny(EIO)\";"), NULL, 0);
	ck_assert_uint_eq(policy_deadline_ms(fx.p), 500);
	ck_assert_uint_eq(policy_delay_ms(fx.p), 0);
	ck_assert(policy_deadline_verdict(fx.p)->deny);
	ck_assert_int_eq(policy_deadline_verdict(fx.p)->err, EIO);
	ck_assert(!policy_needs_path(fx.p));
	fx_done(&fx);
}
END_TEST

/* A policy owns what it needs: it outlives the config it was made from. */
START_TEST(test_outlives_config) {
	struct policy_scope sc = { .path = "/srv", .recursive = true };
	struct fx fx;

	fx_load(&fx,
		RULE("comms = [\"sh\"]; exclude = [\"/srv/tmp\"];\n"
		     "decisions = ( { paths = [\"/srv/a\"]; comms = [\"sh\"]; uids = [0]; gids = "
		     "[0];\n"
		     "  exes = [\"/bin/*\"]; verdict = \"deny\"; } );"),
		&sc, 1);
	fx.c = config_free(fx.c);
	ck_assert_str_eq(policy_rule_name(fx.p), "r");
	assert_applies(fx.p, "/srv/a", known("sh", 0, 0, "/bin/sh"), true);
	assert_applies(fx.p, "/srv/tmp/x", known("sh", 0, 0, "/bin/sh"), false);
	assert_decide(fx.p, FAN_OPEN_PERM, "/srv/a", known("sh", 0, 0, "/bin/sh"), 1, "deny", true);
	fx_done(&fx);
	ck_assert_ptr_null(policy_free(NULL));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* policy_applies                                                           */
/* ------------------------------------------------------------------------ */

START_TEST(test_applies_scopes) {
	static const struct policy_scope scopes[] = {
		{ .path = "/srv/tree", .recursive = true },
		{ .path = "/srv/dir", .children = true },
		{ .path = "/srv/file" },
	};
	static const struct {
		const char *path;
		bool applies;
	} cases[] = {
		{ "/srv/tree", true },
		{ "/srv/tree/a", true },
		{ "/srv/tree/a/b/c", true },
		{ "/srv/treehouse", false },
		{ "/srv/dir", true },
		{ "/srv/dir/a", true },
		{ "/srv/dir/a/b", false },
		{ "/srv/dirt", false },
		{ "/srv/file", true },
		{ "/srv/file/x", false },
		{ "/srv/filex", false },
		{ "/srv", false },
		{ "/etc/passwd", false },
		/* unknown path: in scope */
		{ NULL, true },
	};
	struct fx fx;

	fx_load(&fx, RULE(""), scopes, sizeof(scopes) / sizeof(scopes[0]));
	ck_assert(policy_needs_path(fx.p));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_applies(fx.p, cases[i].path, PLAIN[0], cases[i].applies);
	fx_done(&fx);

	/* no scopes (inode marks only): every event */
	fx_load(&fx, RULE(""), NULL, 0);
	ck_assert(!policy_needs_path(fx.p));
	assert_applies(fx.p, "/etc/passwd", PLAIN[0], true);
	assert_applies(fx.p, NULL, unknown(), true);
	fx_done(&fx);

	/* the root, recursive: everything */
	fx_load(&fx, RULE(""), &(struct policy_scope){ .path = "/", .recursive = true }, 1);
	assert_applies(fx.p, "/", PLAIN[0], true);
	assert_applies(fx.p, "/etc/passwd", PLAIN[0], true);
	fx_done(&fx);
}
END_TEST

START_TEST(test_applies_exclusions) {
	static const struct {
		const char *rel; /* below D */
		bool applies;
	} cases[] = {
		{ "cache", false },    { "cache/a/b", false }, { "cachex", true },
		{ "x/.f.swp", false }, { "x/f.swpx", true },   { "link/f", false },
		{ "real/f", false },   { "realm", true },
	};
	struct policy_scope sc = { .path = "/", .recursive = true };
	char real[PATH_MAX], p[PATH_MAX];
	struct fx fx;

	/* D/link -> D/real: excluding the link excludes its target too */
	fx_init(&fx);
	test_join(real, sizeof(real), fx.dir, "real");
	test_join(p, sizeof(p), fx.dir, "link");
	ck_assert_int_eq(mkdir(real, 0755), 0);
	ck_assert_int_eq(symlink(real, p), 0);
	fx_compile(&fx, RULE("exclude = [\"@D@/cache\", \"*.swp\", \"@D@/link\"];"), &sc, 1);
	ck_assert(policy_needs_path(fx.p));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		test_join(p, sizeof(p), fx.dir, cases[i].rel);
		assert_applies(fx.p, p, PLAIN[0], cases[i].applies);
	}
	/* an unknown path is never excluded */
	assert_applies(fx.p, NULL, PLAIN[0], true);
	/* an excluded event is not the rule's, whoever makes it */
	test_join(p, sizeof(p), fx.dir, "cache");
	assert_applies(fx.p, p, unknown(), false);
	fx_done(&fx);
}
END_TEST

START_TEST(test_applies_process_filters) {
	static const struct {
		const char *rule;
		pid_t pid;        /* 0: an unknown process */
		const char *comm; /* NULL: the process is gone */
		uid_t uid;
		bool applies;
	} cases[] = {
		{ "pids = [4242, 77];", 4242, "a", 0, true },
		{ "pids = [4242, 77];", 77, "a", 0, true },
		{ "pids = [4242, 77];", 4243, "a", 0, false },
		{ "pids = [4242, 77];", 0, NULL, 0, false },
		{ "comms = [\"cron\", \"sh\"];", NO_SUCH_PID, "cron", 0, true },
		{ "comms = [\"cron\", \"sh\"];", NO_SUCH_PID, "sh", 0, true },
		{ "comms = [\"cron\", \"sh\"];", NO_SUCH_PID, "crond", 0, false },
		{ "comms = [\"cron\", \"sh\"];", 0, NULL, 0, false },
		{ "comms = [\"cron\", \"sh\"];", NO_SUCH_PID, NULL, 0, false },
		{ "uids = (1000, \"root\");", NO_SUCH_PID, "a", 1000, true },
		{ "uids = (1000, \"root\");", NO_SUCH_PID, "a", 0, true },
		{ "uids = (1000, \"root\");", NO_SUCH_PID, "a", 1001, false },
		{ "uids = (1000, \"root\");", 0, NULL, 0, false },
		{ "uids = (1000, \"root\");", NO_SUCH_PID, NULL, 0, false },
		/* every filter given must select the process */
		{ "comms = [\"sh\"]; uids = [0];", NO_SUCH_PID, "sh", 0, true },
		{ "comms = [\"sh\"]; uids = [0];", NO_SUCH_PID, "sh", 1, false },
		{ "comms = [\"sh\"]; uids = [0];", NO_SUCH_PID, "bash", 0, false },
		/* no filters: every process, known or not */
		{ "", 0, NULL, 0, true },
		{ "", NO_SUCH_PID, NULL, 0, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = test_subst(RULE("@R@"), "@R@", cases[i].rule);
		struct proc_info pi = cases[i].pid == 0 ? unknown()
				      : cases[i].comm ? known(cases[i].comm, cases[i].uid, 5, "/a")
						      : gone();
		struct fx fx;

		pi.pid = cases[i].pid;
		fx_load(&fx, text, NULL, 0);
		free(text);
		ck_assert_msg(policy_applies(fx.p, "/srv/f", &pi) == cases[i].applies,
			      "case %zu (%s): applies %d", i, cases[i].rule, !cases[i].applies);
		fx_done(&fx);
	}
}
END_TEST

static void policy_suite(Suite *s) {
	TCase *tc;

	tc = tcase_create("decide");
	tcase_add_test(tc, test_first_match_wins);
	tcase_add_test(tc, test_paths_prefix_and_glob);
	tcase_add_test(tc, test_paths_root);
	tcase_add_test(tc, test_events_criterion);
	tcase_add_test(tc, test_process_criteria);
	tcase_add_test(tc, test_unknown_process_falls_through);
	tcase_add_test(tc, test_default_and_log);
	tcase_add_test(tc, test_verdict_details);
	tcase_add_test(tc, test_outlives_config);
	suite_add_tcase(s, tc);

	tc = tcase_create("applies");
	tcase_add_test(tc, test_applies_scopes);
	tcase_add_test(tc, test_applies_exclusions);
	tcase_add_test(tc, test_applies_process_filters);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("policy", policy_suite);
