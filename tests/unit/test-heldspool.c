/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-heldspool.c — the spool of held records: what a killed run held is
 * handed back, in order, with any byte of a path; what it let go is not;
 * the file is emptied when nothing is held; a spool that is not root's
 * alone, or a link, is refused.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heldspool.h"
#include "unit.h"

struct got {
	int n;
	char path[4][64];
	uint64_t mask[4];
	pid_t pid[4];
};

static void on_held(void *arg, const struct held_entry *h) {
	struct got *g = arg;

	ck_assert_int_lt(g->n, 4);
	ck_assert_str_eq(h->rule, "r\n\"x");
	snprintf(g->path[g->n], sizeof(g->path[0]), "%s", h->path);
	g->mask[g->n] = h->mask;
	g->pid[g->n] = h->pid;
	g->n++;
}

static off_t size_of(const char *dir) {
	char p[PATH_MAX];
	struct stat st;

	test_join(p, sizeof(p), dir, "held");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	return st.st_size;
}

START_TEST(test_held_back) {
	static const char *const paths[] = { "/a/one", "/a/t\xffo \n", "/a/three" };
	char dir[PATH_MAX], err[256];
	struct got g = { 0 };
	struct heldspool *s;

	test_tmpdir(dir, sizeof(dir));
	s = heldspool_open(dir, on_held, &g, err, sizeof(err));
	ck_assert_msg(s, "%s", err);
	ck_assert_int_eq(g.n, 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(heldspool_add(s, (uint64_t)i + 1,
					       &(struct held_entry){ .time_usec = 1,
								     .mask = 0x100u << i,
								     .pid = 10 + i,
								     .rule = "r\n\"x",
								     .path = paths[i] }),
				 0);
	heldspool_done(s, 2);
	ck_assert_int_gt(size_of(dir), 0);
	s = heldspool_close(s); /* (as a kill leaves it) */
	s = heldspool_open(dir, on_held, &g, err, sizeof(err));
	ck_assert_msg(s, "%s", err);
	ck_assert_int_eq(g.n, 2);
	ck_assert_str_eq(g.path[0], paths[0]);
	ck_assert_str_eq(g.path[1], paths[2]);
	ck_assert(g.mask[1] == 0x400 && g.pid[1] == 12);
	ck_assert_int_eq(size_of(dir), 0);
	/* all let go: empty again */
	ck_assert_int_eq(heldspool_add(s, 7, &(struct held_entry){ .rule = "r", .path = "/p" }), 0);
	ck_assert_int_gt(size_of(dir), 0);
	heldspool_done(s, 7);
	ck_assert_int_eq(size_of(dir), 0);
	s = heldspool_close(s);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_refused) {
	char dir[PATH_MAX], p[PATH_MAX], q[PATH_MAX], err[256];
	struct heldspool *s;
	struct stat st;

	test_tmpdir(dir, sizeof(dir));
	test_join(p, sizeof(p), dir, "held");
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	s = heldspool_open(dir, NULL, NULL, err, sizeof(err));
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(err, "held"));
	ck_assert_int_eq(unlink(p), 0);
	/* a FIFO: refused, the open does not wait for a writer */
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	ck_assert_ptr_null(heldspool_open(dir, NULL, NULL, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(unlink(p), 0);
	/* a second link (to a file elsewhere): refused */
	test_join(q, sizeof(q), dir, "other");
	test_write(dir, "other", "");
	ck_assert_int_eq(link(q, p), 0);
	ck_assert_ptr_null(heldspool_open(dir, NULL, NULL, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "one link"));
	ck_assert_int_eq(unlink(p), 0);
	/* group- or world-writable: its mode set to 0600 */
	test_write(dir, "held", "");
	ck_assert_int_eq(chmod(p, 0666), 0);
	s = heldspool_open(dir, NULL, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	s = heldspool_close(s);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	s = heldspool_open(dir, NULL, NULL, err, sizeof(err));
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(err, "only root may write"));
	test_rm_tree(dir);
}
END_TEST

static void heldspool_suite(Suite *s) {
	TCase *tc = tcase_create("heldspool");

	tcase_add_test(tc, test_held_back);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("heldspool", heldspool_suite);
