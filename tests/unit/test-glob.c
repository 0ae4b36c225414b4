/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-glob.c — the "glob" suite: the Watch path filter's matcher
 * (daemon/globmatch.c) against fnmatch(pattern, s, 0) itself: a table of
 * the globs people write (same answers), random patterns and strings made
 * of the characters that matter (same answers for every pattern it
 * accepts), what it refuses and why, and pathological globs of the
 * longest length on the longest path: the same answers in the steps
 * globmatch.h states, however many stars and sets.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "fsn-util.h"
#include "globmatch.h"
#include "unit.h"

/* The longest path the kernel hands out (PATH_MAX - 1 bytes). */
#define LONGEST_PATH 4095
/* The bound of globmatch.h: n × W + T, W at most 17 words. */
#define MAX_WORDS (GLOBMATCH_MAX / 64 + 1)

/* A string of bytes for a message: \xNN for what is not printable. */
static const char *shown(const char *s) {
	static char buf[4][512];
	static unsigned k;
	char *b = buf[k++ % 4];
	size_t pos = 0;

	for (; *s && pos + 8 < sizeof(buf[0]); s++) {
		unsigned char c = (unsigned char)*s;

		pos += (size_t)snprintf(b + pos, sizeof(buf[0]) - pos,
					c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
	}
	b[pos] = '\0';
	return b;
}

static struct globmatch *compiled(const char *pattern) {
	struct globmatch *g = NULL;
	const char *why = NULL;
	int r = globmatch_new(pattern, &g, &why);

	ck_assert_msg(r == 0, "'%s' refused: %d %s", shown(pattern), r, why ? why : "");
	return g;
}

/* globmatch answers as fnmatch() does for s, in at most n × W + T steps
 * (T: the pattern's length bounds its items). */
static void same_as_fnmatch(const struct globmatch *g, const char *pattern, const char *s,
			    size_t words) {
	uint64_t steps = 0;
	size_t n = strlen(s);
	bool want = fnmatch(pattern, s, 0) == 0, got = globmatch_match(g, s, n, &steps);

	ck_assert_msg(got == want, "'%s' on '%s': %d, fnmatch says %d", shown(pattern), shown(s),
		      got, want);
	ck_assert_msg(steps <= n * words + strlen(pattern),
		      "'%s' on '%s': %llu steps, more than %zu x %zu + %zu", shown(pattern),
		      shown(s), (unsigned long long)steps, n, words, strlen(pattern));
}

static void setup(void) {
	/* glibc takes '^' for '!' unless POSIXLY_CORRECT is set; the daemon's
	 * unit does not set it */
	unsetenv("POSIXLY_CORRECT");
}

START_TEST(test_glob_table) {
	static const char *const patterns[] = {
		"*",
		"/srv/*",
		"/srv/*.log",
		"*.conf",
		"*/.ssh/*",
		"/etc/passwd",
		"/etc/[a-z]*",
		"/var/log/*/[!.]*.log",
		"/home/*/.bash_history",
		"*/tmp/??????",
		"/srv/[[:digit:]][[:digit:]]*",
		"/srv/[[:alpha:]_-]*[[:alnum:]]",
		"/srv/[]]x",
		"/srv/[!]]x",
		"/srv/[^a-c]x",
		"/srv/[a-]x",
		"/srv/[-a]x",
		"/srv/\\*literal",
		"/srv/[\\]]x",
		"/srv/[a\\-z]x",
		"*a*b*c*",
		"**/x",
		"*?",
		"?*?",
		"/srv/*/*/*",
		"/srv/data/[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9].log",
		"/srv/caf\xc3\xa9/*",
		"/srv/?\xa9",
		"/srv/[\x80-\xff]*",
		"/srv/[[:upper:][:space:]]",
		"/srv/[[:punct:]]",
		"",
	};
	static const char *const paths[] = {
		"/srv/a",
		"/srv/a.log",
		"/srv/a/b.log",
		"/srv/.hidden",
		"/srv/*literal",
		"/srv/xliteral",
		"/etc/passwd",
		"/etc/passwd-",
		"/etc/Passwd",
		"/etc/fstab",
		"/var/log/nginx/access.log",
		"/var/log/nginx/.access.log",
		"/home/alice/.bash_history",
		"/home/alice/x/.bash_history",
		"/a/tmp/abcdef",
		"/a/tmp/abcde",
		"/srv/12abc",
		"/srv/_a-b9",
		"/srv/]x",
		"/srv/ax",
		"/srv/dx",
		"/srv/-x",
		"/srv/\\x",
		"/srv/zx",
		"/srv/abc",
		"/x",
		"//x",
		"/srv/data/2026-11-30.log",
		"/srv/data/2026-1a-30.log",
		"/srv/caf\xc3\xa9/menu",
		"/srv/cafe/menu",
		"/srv/\xc3\xa9",
		"/srv/\xff\xfe",
		"/srv/A",
		"/srv/ ",
		"/srv/!",
		"/root/.ssh/authorized_keys",
		"x",
	};

	for (size_t i = 0; i < ELEMENTSOF(patterns); i++) {
		struct globmatch *g = compiled(patterns[i]);

		for (size_t j = 0; j < ELEMENTSOF(paths); j++)
			/* short runs: at most 2 words a byte */
			same_as_fnmatch(g, patterns[i], paths[j], 2);
		globmatch_free(g);
	}
	/* and a few answers spelled out */
	{
		struct globmatch *g = compiled("/srv/*.log");

		ck_assert(globmatch_match(g, "/srv/a/b.log", 12, NULL)); /* '*' takes '/' */
		ck_assert(globmatch_match(g, "/srv/.log", 9, NULL));     /* and a leading '.' */
		ck_assert(!globmatch_match(g, "/srv/a.logs", 11, NULL));
		globmatch_free(g);
	}
}
END_TEST

/* xorshift: the same "random" cases every run */
static uint64_t rnd_state = 88172645463325252u;

static unsigned rnd(unsigned n) {
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state % n);
}

START_TEST(test_glob_random) {
	/* pieces whose meaning depends on where they are: brackets, their
	 * '!', '^', ']' and '-', escapes, classes, bytes above 0x7f */
	static const char *const pieces[] = {
		"a",    "b",    "/",    ".",  "*",   "?",         "[",         "]",
		"!",    "^",    "-",    "\\", ":",   "[:alpha:]", "[:digit:]", "[:",
		"\xc3", "\xa9", "\xff", "z",  "a-z", "0",         "\x80",
	};
	static const char *const bytes[] = {
		"a",    "b",    "/",    ".", "-", "]", "[",    "\\",   "!", "^",
		"\xc3", "\xff", "\xa9", "Z", "0", ":", "\x80", "\x7f", " ",
	};
	unsigned accepted = 0, matched = 0, compared = 0;

	for (unsigned it = 0; it < 60000; it++) {
		char pattern[128] = "", s[64];
		struct globmatch *g = NULL;
		const char *why;
		unsigned np = rnd(9);

		for (unsigned i = 0; i < np; i++)
			strcat(pattern, pieces[rnd(ELEMENTSOF(pieces))]);
		if (globmatch_new(pattern, &g, &why) < 0) {
			ck_assert_ptr_nonnull(why);
			continue;
		}
		accepted++;
		for (unsigned k = 0; k < 12; k++) {
			unsigned ns = rnd(8);

			s[0] = '\0';
			for (unsigned i = 0; i < ns; i++)
				strcat(s, bytes[rnd(ELEMENTSOF(bytes))]);
			same_as_fnmatch(g, pattern, s, 2);
			matched += globmatch_match(g, s, strlen(s), NULL);
			compared++;
		}
		globmatch_free(g);
	}
	/* (the cases mean something: most patterns taken, some matches) */
	ck_assert_uint_gt(accepted, 40000);
	ck_assert_uint_gt(matched, compared / 50);
}
END_TEST

/* Long patterns of stars, '?', sets and a few bytes, on strings made to
 * match them or nearly: runs of more than 64 items, over several words. */
START_TEST(test_glob_random_long) {
	static const char *const pieces[] = {
		"a", "a", "a", "b", "*", "?", "[ab]", "[!a]", "\xc3", "[\x80-\xff]", "[a-\xc3]",
	};
	unsigned matched = 0;

	for (unsigned it = 0; it < 1500; it++) {
		static char pattern[GLOBMATCH_MAX + 16], s[LONGEST_PATH + 1];
		struct globmatch *g;
		unsigned np = 1 + rnd(300);
		size_t len = 0;

		pattern[0] = '\0';
		for (unsigned i = 0; i < np; i++) {
			const char *p = pieces[rnd(ELEMENTSOF(pieces))];

			if (len + strlen(p) > GLOBMATCH_MAX)
				break;
			strcat(pattern, p);
			len += strlen(p);
		}
		g = compiled(pattern);
		for (unsigned k = 0; k < 6; k++) {
			size_t j = 0;

			/* a string the pattern matches: '*' as 0..3 bytes, a set
			 * as 'a' or 'b' (or what it takes), then perhaps one
			 * byte changed */
			for (const char *q = pattern; *q && j < LONGEST_PATH - 8; q++) {
				if (*q == '*') {
					for (unsigned r = rnd(4); r > 0; r--)
						s[j++] = (char)('a' + rnd(2));
				} else if (*q == '[') {
					s[j++] = q[1] == '\x80' ? '\xc3' : (char)('a' + rnd(2));
					q = strchr(q, ']');
				} else if (*q == '?')
					s[j++] = 'b';
				else
					s[j++] = *q;
			}
			s[j] = '\0';
			if (k % 2 && j > 0)
				s[rnd((unsigned)j)] = (char)"ab\xc3"[rnd(3)];
			same_as_fnmatch(g, pattern, s, MAX_WORDS);
			matched += globmatch_match(g, s, j, NULL);
		}
		globmatch_free(g);
	}
	ck_assert_uint_gt(matched, 100);
}
END_TEST

START_TEST(test_glob_refused) {
	static const struct {
		const char *pattern, *why;
	} cases[] = {
		{ "/srv/[abc", "not closed" },
		{ "/srv/[]", "not closed" },
		{ "/srv/[!]", "not closed" },
		{ "[", "not closed" },
		{ "/srv/x\\", "lone '\\'" },
		{ "/srv/[a\\", "lone '\\'" },
		{ "/srv/[a-\\", "lone '\\'" },
		{ "/srv/[[:foo:]]", "[:alnum:]" },
		{ "/srv/[[:alpha]]", "[:alnum:]" },
		{ "/srv/[[:]", "[:alnum:]" },
		{ "/srv/[[=a=]]", "equivalence classes" },
		{ "/srv/[[.a.]]", "collating symbols" },
		{ "/srv/[a-[:alpha:]]", "a range" },
	};
	char long_glob[GLOBMATCH_MAX + 2];
	struct globmatch *g = NULL;
	const char *why;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		why = NULL;
		ck_assert_int_eq(globmatch_new(cases[i].pattern, &g, &why), -EINVAL);
		ck_assert_msg(why && strstr(why, cases[i].why), "'%s': why '%s', not '%s'",
			      cases[i].pattern, why ? why : "(none)", cases[i].why);
	}
	/* GLOBMATCH_MAX bytes are taken, one more is not */
	memset(long_glob, '*', GLOBMATCH_MAX);
	long_glob[GLOBMATCH_MAX] = '\0';
	g = compiled(long_glob);
	ck_assert(globmatch_match(g, "/x", 2, NULL));
	globmatch_free(g);
	long_glob[GLOBMATCH_MAX] = '*';
	long_glob[GLOBMATCH_MAX + 1] = '\0';
	g = NULL;
	ck_assert_int_eq(globmatch_new(long_glob, &g, &why), -E2BIG);
	ck_assert_ptr_null(g);
}
END_TEST

/* Globs built to make a backtracking matcher (and fnmatch) slow: runs
 * that almost match everywhere, many stars, big sets, on the longest
 * path. The same answers as fnmatch, in the stated steps. */
START_TEST(test_glob_pathological) {
	static char path[LONGEST_PATH + 1], pattern[GLOBMATCH_MAX + 1];
	struct {
		const char *unit, *head, *tail;
	} shapes[] = {
		{ "a", "*", "b*" },    /* one run of 1022 items that fails at its end */
		{ "*a", "", "*b" },    /* 511 stars */
		{ "[!b]", "*", "b*" }, /* sets */
		{ "?", "*", "b*" },
		{ "*[ab]", "", "" },         /* matches: the last run at the path's end */
		{ "[[:alpha:]]", "*", "*" }, /* matches */
		{ "a*", "*", "?b" },
	};

	memset(path, 'a', LONGEST_PATH);
	path[0] = '/';
	path[LONGEST_PATH] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(shapes); i++) {
		size_t len = strlen(shapes[i].head), ul = strlen(shapes[i].unit),
		       tl = strlen(shapes[i].tail);
		struct globmatch *g;

		strcpy(pattern, shapes[i].head);
		while (len + ul + tl <= GLOBMATCH_MAX) {
			memcpy(pattern + len, shapes[i].unit, ul);
			len += ul;
		}
		memcpy(pattern + len, shapes[i].tail, tl + 1);
		g = compiled(pattern);
		same_as_fnmatch(g, pattern, path, MAX_WORDS);
		/* and on a path the run fits in */
		same_as_fnmatch(g, pattern, path + LONGEST_PATH - 600, MAX_WORDS);
		globmatch_free(g);
	}
	/* the bound in numbers: the worst glob on the longest path */
	{
		uint64_t steps = 0;
		struct globmatch *g;

		pattern[0] = '*';
		memset(pattern + 1, 'a', GLOBMATCH_MAX - 3);
		memcpy(pattern + GLOBMATCH_MAX - 2, "b*", 3);
		g = compiled(pattern);
		ck_assert(!globmatch_match(g, path, LONGEST_PATH, &steps));
		ck_assert_uint_le(steps, (uint64_t)LONGEST_PATH * MAX_WORDS + GLOBMATCH_MAX);
		globmatch_free(g);
	}
}
END_TEST

static void glob_suite(Suite *s) {
	TCase *tc = tcase_create("glob");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_glob_table);
	tcase_add_test(tc, test_glob_random);
	tcase_add_test(tc, test_glob_random_long);
	tcase_add_test(tc, test_glob_refused);
	tcase_add_test(tc, test_glob_pathological);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("glob", glob_suite);
