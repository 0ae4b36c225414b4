/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-packages.c — the "packages" suite: daemon/packages.c, dpkg's word on
 * files, with a database of the test's own (an info directory of md5sums
 * files, a status file). md5sums lines and status stanzas as dpkg writes
 * them (and lines that are not); the index holds the files under the
 * rules' paths only; another user's md5sums is not dpkg's word. A change
 * of someone else's is checked once hashed; dpkg's (this process standing
 * in for it) waits until its package's md5sums is written anew, and its
 * temporary (NAME.dpkg-new) is a step of its rename to NAME, which says
 * what both are. A conffile's change by dpkg (child processes standing in
 * for apt's --unpack and --configure) waits for dpkg's exit and the status
 * it wrote, its temporary for the rename the next dpkg makes. A dpkg that
 * exited is done only once the engine read every event it made.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

#define STATUS_TEXT                                                                                \
	"Package: base\n"                                                                          \
	"Status: install ok installed\n"                                                           \
	"Architecture: all\n"                                                                      \
	"Conffiles:\n"                                                                             \
	" /etc/a.conf " MD5_X "\n"                                                                 \
	" /etc/old.conf " MD5_Y " obsolete\n"                                                      \
	" /etc/new.conf newconffile\n"                                                             \
	" /etc/with space.conf " MD5_Y "\n"                                                        \
	" not-a-path " MD5_Y "\n"                                                                  \
	" /etc/short.conf 0123\n"                                                                  \
	"Description: a package\n"                                                                 \
	" Conffiles: not the field\n"                                                              \
	"\n"                                                                                       \
	"Package: nothing\n"                                                                       \
	"Architecture: all\n"                                                                      \
	"\n"                                                                                       \
	"Package: libz\n"                                                                          \
	"Conffiles:\n"                                                                             \
	" /etc/z.conf " MD5_Y " remove-on-upgrade\n"                                               \
	"Multi-Arch: same\n"                                                                       \
	"Architecture: amd64\n"

struct conf_seen {
	int n;
	char pkg[8][32], path[8][64];
	bool has_md5[8];
};

static void conf_line(void *userdata, const char *pkg, const char *path, const unsigned char *md5) {
	struct conf_seen *cs = userdata;

	ck_assert_int_lt(cs->n, 8);
	snprintf(cs->pkg[cs->n], sizeof(cs->pkg[0]), "%s", pkg);
	snprintf(cs->path[cs->n], sizeof(cs->path[0]), "%s", path);
	cs->has_md5[cs->n++] = md5 != NULL;
}

START_TEST(test_parse_status) {
	struct conf_seen cs = { 0 };
	char dir[PATH_MAX], p[PATH_MAX];
	int fd;

	test_tmpdir(dir, sizeof(dir));
	write_at(dir, "status", STATUS_TEXT); /* (no empty line at its end) */
	test_join(p, sizeof(p), dir, "status");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pkgdb_parse_status(fd, conf_line, &cs), 5);
	close(fd);
	ck_assert_int_eq(cs.n, 5);
	ck_assert_str_eq(cs.path[0], "/etc/a.conf");
	ck_assert_str_eq(cs.path[1], "/etc/old.conf");
	ck_assert_str_eq(cs.path[2], "/etc/new.conf");
	ck_assert(cs.has_md5[0] && cs.has_md5[1] && !cs.has_md5[2]);
	ck_assert_str_eq(cs.path[3], "/etc/with space.conf");
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(cs.pkg[i], "base");
	/* (Multi-Arch: same after the field: the name says the arch) */
	ck_assert_str_eq(cs.pkg[4], "libz:amd64");
	ck_assert_str_eq(cs.path[4], "/etc/z.conf");
	test_rm_tree(dir);
}
END_TEST

struct resolved {
	int n;
	char path[4][PATH_MAX];
	const char *pkg[4];
	bool verified[4], step[4], held[4], spooled[4];
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
	rs->spooled[rs->n] = c->spooled;
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
	char dir[PATH_MAX], info[PATH_MAX], p[PATH_MAX];
	const struct pkgfile *pf;
	struct record rec = { .kind = RECORD_EVENT, .rule = "r", .path = "/usr/bin/x" };
	int64_t id, id1, id2;

	test_tmpdir(dir, sizeof(dir));
	test_join(info, sizeof(info), dir, "info");
	ck_assert_int_eq(mkdir(info, 0755), 0);
	write_at(info, "a.md5sums", MD5_X "  usr/bin/x\n" MD5_Y "  opt/y\n");
	write_at(info, "b:amd64.md5sums", MD5_Y "  usr/bin/z\n" MD5_Y "  bin/merged\n");
	write_at(info, "c.md5sums", MD5_Y "  usr/bin/theirs\n");
	test_join(p, sizeof(p), info, "c.md5sums");
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
	/* (the first's held record written to the spool, the second's not:
	 * only the first is let go there) */
	pkgdb_spooled(db, (uint64_t)id1);
	pkgdb_hashed(db, (uint64_t)id1, &hashed, md5_x);
	pkgdb_hashed(db, (uint64_t)id2, &hashed, md5_x);
	ck_assert_int_eq(rs.n, 0);
	write_at(info, "a.md5sums", MD5_X "  usr/bin/x\n");
	run_loop(loop, 60.);
	ck_assert_int_eq(rs.n, 2);
	ck_assert_str_eq(rs.path[0], "/usr/bin/x.dpkg-new");
	ck_assert(rs.step[0] && rs.verified[0] && rs.held[0] && rs.spooled[0]);
	ck_assert_str_eq(rs.path[1], "/usr/bin/x");
	ck_assert(!rs.step[1] && rs.verified[1] && rs.held[1] && !rs.spooled[1]);

	/* the md5sums read before the rename reached the daemon (another
	 * queue): the temporary waits for its rename, not checked alone */
	rs.n = 0;
	rec.path = "/usr/bin/x.dpkg-new";
	id1 = pkgdb_wait(db, "r", &rec, getpid(), true);
	pkgdb_hashed(db, (uint64_t)id1, &hashed, md5_x);
	write_at(info, "a.md5sums", MD5_X "  usr/bin/x\n");
	run_loop(loop, 0.5); /* (the md5sums event read; the timer ends the run) */
	ck_assert_int_eq(rs.n, 0);
	rec.path = "/usr/bin/x";
	id2 = pkgdb_wait(db, "r", &rec, getpid(), true);
	pkgdb_hashed(db, (uint64_t)id2, &hashed, md5_x);
	ck_assert_int_eq(rs.n, 0); /* (dpkg runs on; its md5sums was read before) */
	write_at(info, "a.md5sums", MD5_X "  usr/bin/x\n");
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

/* A process standing in for one dpkg: it runs until end_dpkg(). */
static pid_t start_dpkg(int *pipe_w) {
	int fds[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char c;

		close(fds[1]);
		(void)!read(fds[0], &c, 1);
		_exit(0);
	}
	close(fds[0]);
	*pipe_w = fds[1];
	return pid;
}

static void end_dpkg(pid_t pid, int pipe_w) {
	close(pipe_w);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

START_TEST(test_conffiles) {
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct resolved rs = { .loop = loop };
	struct record_content hashed = { .sha256 = "ab", .size = 1, .has_size = true };
	static const unsigned char md5_y[16] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
						 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	char *scope[] = { (char *)"/etc" };
	struct pkgdb_stats st;
	struct pkgdb *db;
	char dir[PATH_MAX], info[PATH_MAX];
	const struct pkgfile *pf;
	struct record rec = { .kind = RECORD_EVENT, .rule = "r", .path = "/etc/a.conf" };
	int64_t id, id1, id2;
	pid_t unpack, configure;
	int w1, w2;

	test_tmpdir(dir, sizeof(dir));
	test_join(info, sizeof(info), dir, "info");
	ck_assert_int_eq(mkdir(info, 0755), 0);
	write_at(info, "base.md5sums", MD5_X "  usr/bin/base\n");
	write_at(dir, "status", STATUS_TEXT);
	ck_assert_int_eq(pkgdb_new(loop, dir, &ops, &rs, &db), 0);
	ck_assert_int_eq(pkgdb_scope(db, scope, 1, 100, 600), 0);
	pkgdb_get_stats(db, &st);
	ck_assert_uint_eq(st.conffiles, 5);
	pf = pkgdb_lookup(db, "/etc/a.conf");
	ck_assert(pf && pf->conffile && pf->has_md5 && strcmp(pf->pkg, "base") == 0);
	ck_assert_mem_eq(pf->md5, md5_x, 16);
	pf = pkgdb_lookup(db, "/etc/new.conf");
	ck_assert(pf && pf->conffile && !pf->has_md5);
	ck_assert_str_eq(pkgdb_lookup(db, "/etc/z.conf")->pkg, "libz:amd64");
	ck_assert_ptr_null(pkgdb_lookup(db, "/usr/bin/base")); /* (out of scope) */

	/* by hand: checked once hashed, against the status's MD5 */
	id = pkgdb_wait(db, "r", &rec, 0, false);
	pkgdb_hashed(db, (uint64_t)id, &hashed, md5_x);
	id = pkgdb_wait(db, "r", &rec, 0, false);
	pkgdb_hashed(db, (uint64_t)id, &hashed, md5_y);
	ck_assert_int_eq(rs.n, 2);
	ck_assert(rs.verified[0] && !rs.verified[1] && strcmp(rs.pkg[1], "base") == 0);

	/* apt's way: dpkg --unpack writes a.conf.dpkg-new and exits; its
	 * package's md5sums written meanwhile (no conffile in it) */
	rs.n = 0;
	unpack = start_dpkg(&w1);
	rec.path = "/etc/a.conf.dpkg-new";
	id1 = pkgdb_wait(db, "r", &rec, unpack, true);
	pkgdb_hashed(db, (uint64_t)id1, &hashed, md5_y);
	write_at(info, "base.md5sums", MD5_X "  usr/bin/base\n");
	end_dpkg(unpack, w1);
	run_loop(loop, 0.5); /* (both read; the timer ends the run) */
	ck_assert_int_eq(rs.n, 0);
	/* dpkg --configure renames it over a.conf, writes the status with
	 * its new MD5 and exits: both steps verified, as the rename */
	configure = start_dpkg(&w2);
	rec.path = "/etc/a.conf";
	id2 = pkgdb_wait(db, "r", &rec, configure, true);
	pkgdb_hashed(db, (uint64_t)id2, &hashed, md5_y);
	write_at(info, "base.md5sums", MD5_X "  usr/bin/base\n");
	run_loop(loop, 0.5);
	ck_assert_int_eq(rs.n, 0); /* (dpkg runs on) */
	write_at(dir, "status",
		 "Package: base\nConffiles:\n /etc/a.conf " MD5_Y "\n /etc/new.conf " MD5_X "\n");
	end_dpkg(configure, w2);
	run_loop(loop, 60.);
	ck_assert_int_eq(rs.n, 2);
	ck_assert_str_eq(rs.path[0], "/etc/a.conf.dpkg-new");
	ck_assert(rs.step[0] && rs.verified[0] && rs.held[0]);
	ck_assert_str_eq(rs.path[1], "/etc/a.conf");
	ck_assert(!rs.step[1] && rs.verified[1] && rs.held[1]);
	pkgdb_get_stats(db, &st);
	ck_assert_uint_eq(st.conffiles, 2); /* (the status read anew) */
	ck_assert(pkgdb_lookup(db, "/etc/new.conf")->has_md5);
	ck_assert_uint_eq(st.waiting, 0);
	db = pkgdb_free(db);
	ev_loop_destroy(loop);
	test_rm_tree(dir);
}
END_TEST

/* The engine's queues as the tests say: whether what they held at a
 * dpkg's exit was read (the marks taken and freed counted: one per exit) */
static bool engine_drained;
static int marks_taken, marks_freed, marks_asked;

static void *test_mark(void *userdata) {
	(void)userdata;
	marks_taken++;
	return malloc(1);
}

static bool test_passed(void *userdata, void *mark) {
	(void)userdata;
	ck_assert_ptr_nonnull(mark);
	marks_asked++;
	return engine_drained;
}

static void test_free_mark(void *mark) {
	marks_freed++;
	free(mark);
}

/* The engine behind dpkg. dpkg wrote a new file's temporary (that change
 * read), renamed it, wrote its md5sums and exited; its exit and its
 * md5sums are read before the rename (still in the engine's queue). The
 * temporary is not checked alone: it waits until the engine read every
 * event made before the exit; the rename, read meanwhile, says what both
 * are. Likewise when dpkg had exited before its first change was read. */
/* A database in a new directory dir (info: its info/) whose a.md5sums
 * lists /usr/bin/x, scoped to /usr/bin, asking test_passed(). */
static struct pkgdb *drained_db(struct ev_loop *loop, struct resolved *rs, char dir[PATH_MAX],
				char info[PATH_MAX]) {
	static const struct pkgdb_ops ops_drained = { .resolved = on_resolved,
						      .mark = test_mark,
						      .passed = test_passed,
						      .free_mark = test_free_mark };
	char *scope[] = { (char *)"/usr/bin" };
	struct pkgdb *db;

	test_tmpdir(dir, PATH_MAX);
	test_join(info, PATH_MAX, dir, "info");
	ck_assert_int_eq(mkdir(info, 0755), 0);
	write_at(info, "a.md5sums", MD5_X "  usr/bin/x\n");
	ck_assert_int_eq(pkgdb_new(loop, dir, &ops_drained, rs, &db), 0);
	ck_assert_int_eq(pkgdb_scope(db, scope, 1, 100, 600), 0);
	return db;
}

START_TEST(test_exit_before_rename) {
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct resolved rs = { .loop = loop };
	struct record_content hashed = { .sha256 = "ab", .size = 1, .has_size = true };
	struct record rec = { .kind = RECORD_EVENT, .rule = "r" };
	char dir[PATH_MAX], info[PATH_MAX];
	struct pkgdb *db;
	int64_t id;
	pid_t dpkg;
	int w;

	db = drained_db(loop, &rs, dir, info);
	for (int gone_first = 0; gone_first < 2; gone_first++) {
		const char *name = gone_first ? "/usr/bin/late" : "/usr/bin/new";
		char tmp[PATH_MAX];

		snprintf(tmp, sizeof(tmp), "%s.dpkg-new", name);
		engine_drained = false;
		rs.n = 0;
		dpkg = start_dpkg(&w);
		if (gone_first)
			end_dpkg(dpkg, w);
		rec.path = tmp;
		id = pkgdb_wait(db, "r", &rec, dpkg, true);
		ck_assert_int_gt(id, 0);
		pkgdb_hashed(db, (uint64_t)id, &hashed, md5_x);
		write_at(info, "a.md5sums",
			 gone_first ? MD5_X "  usr/bin/x\n" MD5_X "  usr/bin/new\n" MD5_X
					    "  usr/bin/late\n"
				    : MD5_X "  usr/bin/x\n" MD5_X "  usr/bin/new\n");
		if (!gone_first)
			end_dpkg(dpkg, w);
		run_loop(loop, 0.5); /* (the exit and the md5sums read) */
		ck_assert_int_eq(rs.n, 0);
		rec.path = name;
		id = pkgdb_wait(db, "r", &rec, dpkg, true);
		pkgdb_hashed(db, (uint64_t)id, &hashed, md5_x);
		run_loop(loop, 0.1);
		ck_assert_int_eq(rs.n, 0); /* (the engine's queues not read yet) */
		engine_drained = true;
		run_loop(loop, 60.);
		ck_assert_int_eq(rs.n, 2);
		ck_assert_str_eq(rs.path[0], tmp);
		ck_assert(rs.step[0] && rs.verified[0] && rs.held[0]);
		ck_assert_str_eq(rs.path[1], name);
		ck_assert(!rs.step[1] && rs.verified[1] && rs.held[1]);
	}
	/* a mark per exit, asked until it passed, freed then */
	ck_assert_int_eq(marks_taken, 2);
	ck_assert_int_eq(marks_freed, 2);
	ck_assert_int_gt(marks_asked, 2);
	db = pkgdb_free(db);
	ev_loop_destroy(loop);
	test_rm_tree(dir);
}
END_TEST

/* The rename read before the temporaries it puts in place (their queue read
 * after its): they are its earlier steps all the same, in the order they
 * came, and dpkg's, read after its exit, is still known as dpkg
 * (pkgdb_follows()) until its exit settles. */
START_TEST(test_rename_read_first) {
	static const char *const late[] = { "/usr/bin/x.dpkg-new", "/usr/bin/x.dpkg-new",
					    "/usr/bin/x.dpkg-tmp" };
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct resolved rs = { .loop = loop };
	struct record_content hashed = { .sha256 = "ab", .size = 1, .has_size = true };
	struct record_content gone = { .skipped = "gone" };
	struct record rec = { .kind = RECORD_EVENT, .rule = "r", .path = "/usr/bin/x" };
	char dir[PATH_MAX], info[PATH_MAX];
	struct pkgdb *db;
	int64_t id;
	pid_t dpkg;
	int w;

	db = drained_db(loop, &rs, dir, info);
	engine_drained = false;
	dpkg = start_dpkg(&w);
	ck_assert(!pkgdb_follows(db, dpkg));
	id = pkgdb_wait(db, "r", &rec, dpkg, true);
	ck_assert(pkgdb_follows(db, dpkg));
	pkgdb_hashed(db, (uint64_t)id, &hashed, md5_x);
	end_dpkg(dpkg, w);
	run_loop(loop, 0.2); /* (its exit seen; the engine's queues not read) */
	ck_assert(pkgdb_follows(db, dpkg));
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++) {
		rec.path = late[i];
		id = pkgdb_wait(db, "r", &rec, dpkg, true);
		pkgdb_hashed(db, (uint64_t)id, &gone, NULL);
	}
	ck_assert_int_eq(rs.n, 0);
	engine_drained = true;
	run_loop(loop, 60.);
	ck_assert(!pkgdb_follows(db, dpkg));
	ck_assert_int_eq(rs.n, 4);
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++) {
		ck_assert_str_eq(rs.path[i], late[i]);
		ck_assert(rs.step[i] && rs.verified[i] && rs.held[i]);
	}
	ck_assert_str_eq(rs.path[3], "/usr/bin/x");
	ck_assert(!rs.step[3] && rs.verified[3] && rs.held[3]);
	db = pkgdb_free(db);
	ev_loop_destroy(loop);
	test_rm_tree(dir);
}
END_TEST

static void packages_suite(Suite *s) {
	TCase *tc = tcase_create("packages");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_status);
	tcase_add_test(tc, test_index_and_waits);
	tcase_add_test(tc, test_conffiles);
	tcase_add_test(tc, test_exit_before_rename);
	tcase_add_test(tc, test_rename_read_first);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("packages", packages_suite);
