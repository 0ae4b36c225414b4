/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-packages.c — the "packages" suite: daemon/packages.c, dpkg's word on
 * files, with a database of the test's own (an info directory of md5sums
 * files). md5sums lines as dpkg writes them (and lines that are not);
 * the index holds the files under the rules' paths only; another user's
 * md5sums is not dpkg's word. A change of someone else's is checked once
 * hashed; dpkg's (this process standing in for it) waits until its
 * package's md5sums is written anew, and its temporary (NAME.dpkg-new)
 * is a step of its rename to NAME, which says what both are.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ev.h>

#include "packages.h"
#include "unit.h"

#define MD5_X "0123456789abcdef0123456789abcdef"
#define MD5_Y "fedcba9876543210fedcba9876543210"

static void write_at(const char *dir, const char *name, const char *text) {
	char p[PATH_MAX], tmp[PATH_MAX + 8];
	int fd;

	test_join(p, sizeof(p), dir, name);
	snprintf(tmp, sizeof(tmp), "%s.new", p);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(rename(tmp, p), 0); /* (as dpkg puts it in place) */
}

static void count_line(void *userdata, const char *path, const unsigned char md5[16]) {
	(*(int *)userdata)++;
	ck_assert(path[0] == '/');
	(void)md5;
}

START_TEST(test_parse) {
	char dir[PATH_MAX], p[PATH_MAX];
	int n = 0, fd;

	test_tmpdir(dir, sizeof(dir));
	write_at(dir, "a.md5sums",
		 MD5_X "  usr/bin/x\n"
		       "not a line\n" MD5_Y "  opt/with space\n"
		       "0123  short\n" MD5_Y " *usr/bin/binary-mode\n" MD5_X "  usr/bin/last");
	test_join(p, sizeof(p), dir, "a.md5sums");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pkgdb_parse_md5sums(fd, count_line, &n), 4);
	ck_assert_int_eq(n, 4);
	close(fd);
	test_rm_tree(dir);
}
END_TEST

struct resolved {
	int n;
	char path[4][PATH_MAX];
	const char *pkg[4];
	bool verified[4], step[4], held[4];
	struct ev_loop *loop;
};

static void on_resolved(void *userdata, struct pkg_change *c, const struct pkgfile *pf,
			bool verified, bool step) {
	struct resolved *rs = userdata;

	ck_assert_int_lt(rs->n, 4);
	snprintf(rs->path[rs->n], PATH_MAX, "%s", c->path);
	rs->pkg[rs->n] = pf ? pf->pkg : NULL;
	rs->verified[rs->n] = verified;
	rs->step[rs->n] = step;
	rs->held[rs->n] = c->held != NULL;
	rs->n++;
	if (!step)
		ev_break(rs->loop, EVBREAK_ALL);
}

static const struct pkgdb_ops ops = { .resolved = on_resolved };

static const unsigned char md5_x[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };

static void on_timeout(struct ev_loop *loop, ev_timer *w, int revents) {
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

/* Run loop until a check is resolved (on_resolved() breaks it) or sec. */
static void run_loop(struct ev_loop *loop, double sec) {
	ev_timer t;

	ev_timer_init(&t, on_timeout, sec, 0.);
	ev_timer_start(loop, &t);
	ev_run(loop, 0);
	ev_timer_stop(loop, &t);
}

START_TEST(test_index_and_waits) {
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct resolved rs = { .loop = loop };
	struct record_content hashed = { .sha256 = "ab", .size = 1, .has_size = true };
	char *scope[] = { (char *)"/usr/bin" };
	struct pkgdb_stats st;
	struct pkgdb *db;
	char dir[PATH_MAX], p[PATH_MAX];
	const struct pkgfile *pf;
	struct record rec = { .kind = RECORD_EVENT, .rule = "r", .path = "/usr/bin/x" };
	int64_t id, id1, id2;

	test_tmpdir(dir, sizeof(dir));
	write_at(dir, "a.md5sums", MD5_X "  usr/bin/x\n" MD5_Y "  opt/y\n");
	write_at(dir, "b:amd64.md5sums", MD5_Y "  usr/bin/z\n" MD5_Y "  bin/merged\n");
	write_at(dir, "c.md5sums", MD5_Y "  usr/bin/theirs\n");
	test_join(p, sizeof(p), dir, "c.md5sums");
	ck_assert_int_eq(chown(p, 65534, 65534), 0); /* (not root's: not dpkg's word) */
	ck_assert_int_eq(pkgdb_new(loop, dir, &ops, &rs, &db), 0);
	ck_assert_int_eq(pkgdb_scope(db, scope, 1, 100, 600), 0);
	pkgdb_get_stats(db, &st);
	pf = pkgdb_lookup(db, "/usr/bin/x");
	ck_assert_ptr_nonnull(pf);
	ck_assert_str_eq(pf->pkg, "a");
	ck_assert_mem_eq(pf->md5, md5_x, 16);
	ck_assert_str_eq(pkgdb_lookup(db, "/usr/bin/z")->pkg, "b:amd64");
	/* a merged /usr (/bin a link to usr/bin): bin/merged is /usr/bin/merged */
	{
		char *real = realpath("/bin", NULL);

		if (real && strcmp(real, "/usr/bin") == 0) {
			ck_assert_ptr_nonnull(pkgdb_lookup(db, "/usr/bin/merged"));
			ck_assert_uint_eq(st.files, 3);
		} else
			ck_assert_uint_eq(st.files, 2);
		free(real);
	}
	ck_assert_ptr_null(pkgdb_lookup(db, "/opt/y")); /* out of scope */
	ck_assert_ptr_null(pkgdb_lookup(db, "/usr/bin/theirs"));

	/* someone else's change: checked once hashed */
	id = pkgdb_wait(db, "r", &rec, 0, false);
	ck_assert_int_gt(id, 0);
	pkgdb_hashed(db, (uint64_t)id, &hashed, md5_x);
	ck_assert_int_eq(rs.n, 1);
	ck_assert_str_eq(rs.path[0], "/usr/bin/x");
	ck_assert_str_eq(rs.pkg[0], "a");
	ck_assert(rs.verified[0] && !rs.step[0] && !rs.held[0]);

	/* dpkg's (this process, which runs on): its temporary, written, then
	 * renamed over x; held until a.md5sums is written anew */
	rs.n = 0;
	rec.path = "/usr/bin/x.dpkg-new";
	id1 = pkgdb_wait(db, "r", &rec, getpid(), true);
	rec.path = "/usr/bin/x";
	id2 = pkgdb_wait(db, "r", &rec, getpid(), true);
	ck_assert_int_gt(id1, 0);
	ck_assert_int_gt(id2, id1);
	pkgdb_hashed(db, (uint64_t)id1, &hashed, md5_x);
	pkgdb_hashed(db, (uint64_t)id2, &hashed, md5_x);
	ck_assert_int_eq(rs.n, 0);
	write_at(dir, "a.md5sums", MD5_X "  usr/bin/x\n");
	run_loop(loop, 60.);
	ck_assert_int_eq(rs.n, 2);
	ck_assert_str_eq(rs.path[0], "/usr/bin/x.dpkg-new");
	ck_assert(rs.step[0] && rs.verified[0] && rs.held[0]);
	ck_assert_str_eq(rs.path[1], "/usr/bin/x");
	ck_assert(!rs.step[1] && rs.verified[1] && rs.held[1]);

	/* the md5sums read before the rename reached the daemon (another
	 * queue): the temporary waits for its rename, not checked alone */
	rs.n = 0;
	rec.path = "/usr/bin/x.dpkg-new";
	id1 = pkgdb_wait(db, "r", &rec, getpid(), true);
	pkgdb_hashed(db, (uint64_t)id1, &hashed, md5_x);
	write_at(dir, "a.md5sums", MD5_X "  usr/bin/x\n");
	run_loop(loop, 0.5); /* (the md5sums event read; the timer ends the run) */
	ck_assert_int_eq(rs.n, 0);
	rec.path = "/usr/bin/x";
	id2 = pkgdb_wait(db, "r", &rec, getpid(), true);
	pkgdb_hashed(db, (uint64_t)id2, &hashed, md5_x);
	ck_assert_int_eq(rs.n, 0); /* (dpkg runs on; its md5sums was read before) */
	write_at(dir, "a.md5sums", MD5_X "  usr/bin/x\n");
	run_loop(loop, 60.);
	ck_assert_int_eq(rs.n, 2);
	ck_assert(rs.step[0] && rs.verified[0] && !rs.step[1] && rs.verified[1]);
	rec.path = "/usr/bin/x";

	/* not what the package lists; and one waiting at the end: checked
	 * as it stands */
	rs.n = 0;
	id = pkgdb_wait(db, "r", &rec, 0, false);
	pkgdb_hashed(db, (uint64_t)id, &hashed, (const unsigned char *)"0123456789abcdef");
	ck_assert(rs.n == 1 && !rs.verified[0] && strcmp(rs.pkg[0], "a") == 0);
	rs.n = 0;
	(void)pkgdb_wait(db, "r", &rec, getpid(), false);
	pkgdb_get_stats(db, &st);
	ck_assert_uint_eq(st.waiting, 1);
	ck_assert_uint_eq(st.verified, 3); /* (dpkg's two steps: one check, twice) */
	ck_assert_uint_eq(st.mismatched, 1);
	db = pkgdb_free(db);
	ck_assert_int_eq(rs.n, 1);
	ck_assert(!rs.verified[0]); /* (not hashed) */
	ev_loop_destroy(loop);
	test_rm_tree(dir);
}
END_TEST

static void packages_suite(Suite *s) {
	TCase *tc = tcase_create("packages");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_index_and_waits);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("packages", packages_suite);
