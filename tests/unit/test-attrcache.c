/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-attrcache.c — the "attrcache" suite: daemon/attrcache.c, what files
 * were when last seen. A file's second look gives its first; a fresh file
 * (just created) and a file of another birth under the same number give
 * none; the bound forgets the least recently seen, counts it, and holds
 * after a smaller bound is set; 0 keeps nothing. attrs_read() against
 * stat(2) of a file, a directory's own attributes, and a symbolic link's
 * own (never its target's).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrcache.h"
#include "unit.h"

static struct record_attrs obj(uint64_t ino, uint32_t mode, int64_t btime) {
	return (struct record_attrs){ .type = S_IFREG,
				      .mode = mode,
				      .ino = ino,
				      .dev = 8,
				      .nlink = 1,
				      .has_btime = btime != 0,
				      .btime_sec = btime };
}

START_TEST(test_swap) {
	struct attrcache c;
	struct record_attrs a = obj(1, 0755, 100), b = obj(1, 04755, 100), before;

	attrcache_init(&c, 16);
	ck_assert(!attrcache_swap(&c, &a, false, &before)); /* never seen */
	ck_assert(attrcache_swap(&c, &b, false, &before));
	ck_assert_uint_eq(before.mode, 0755);
	ck_assert(attrcache_swap(&c, &b, false, &before));
	ck_assert_uint_eq(before.mode, 04755);
	/* just created: whatever was kept under its number is not its past */
	ck_assert(!attrcache_swap(&c, &a, true, &before));
	ck_assert(attrcache_swap(&c, &a, false, &before));
	/* another birth under the same number: another file */
	b = obj(1, 0600, 200);
	ck_assert(!attrcache_swap(&c, &b, false, &before));
	ck_assert(attrcache_swap(&c, &b, false, &before));
	ck_assert_uint_eq(before.mode, 0600);
	/* another device, same number: another file */
	b.dev = 9;
	ck_assert(!attrcache_swap(&c, &b, false, &before));
	ck_assert_uint_eq(c.n, 2);
	attrcache_done(&c);
}
END_TEST

START_TEST(test_bound) {
	struct attrcache c;
	struct record_attrs a, before;

	attrcache_init(&c, 3);
	for (uint64_t i = 1; i <= 3; i++) {
		a = obj(i, 0644, 0);
		ck_assert(!attrcache_swap(&c, &a, false, &before));
	}
	a = obj(1, 0644, 0); /* 1 seen again: 2 is now the oldest */
	ck_assert(attrcache_swap(&c, &a, false, &before));
	a = obj(4, 0644, 0);
	ck_assert(!attrcache_swap(&c, &a, false, &before));
	ck_assert_uint_eq(c.n, 3);
	ck_assert_uint_eq(c.forgotten, 1);
	a = obj(2, 0644, 0); /* forgotten */
	ck_assert(!attrcache_swap(&c, &a, false, &before));
	a = obj(1, 0644, 0);
	ck_assert(attrcache_swap(&c, &a, false, &before));
	attrcache_set_max(&c, 1);
	ck_assert_uint_eq(c.n, 1);
	ck_assert(attrcache_swap(&c, &a, false, &before)); /* the newest stays */
	attrcache_set_max(&c, 0);
	ck_assert_uint_eq(c.n, 0);
	ck_assert(!attrcache_swap(&c, &a, false, &before));
	ck_assert(!attrcache_swap(&c, &a, false, &before)); /* 0 keeps nothing */
	attrcache_done(&c);
}
END_TEST

START_TEST(test_read) {
	char dir[PATH_MAX], file[PATH_MAX], link[PATH_MAX];
	struct record_attrs a;
	struct stat st;
	int dfd, fd;

	test_tmpdir(dir, sizeof(dir));
	test_join(file, sizeof(file), dir, "f");
	test_join(link, sizeof(link), dir, "l");
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "hello", 5), 5);
	ck_assert_int_eq(fchmod(fd, 04750), 0);
	close(fd);
	ck_assert_int_eq(symlink("f", link), 0);
	dfd = open(dir, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);

	ck_assert_int_eq(attrs_read(dfd, "f", &a), 0);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_eq(a.type, S_IFREG);
	ck_assert_uint_eq(a.mode, 04750);
	ck_assert_uint_eq(a.uid, st.st_uid);
	ck_assert_uint_eq(a.gid, st.st_gid);
	ck_assert_uint_eq(a.size, 5);
	ck_assert_uint_eq(a.ino, st.st_ino);
	ck_assert_uint_eq(a.nlink, 1);
	ck_assert_uint_eq(a.dev, st.st_dev);
	ck_assert_int_eq(a.mtime_sec, st.st_mtim.tv_sec);
	ck_assert_uint_eq(a.mtime_nsec, st.st_mtim.tv_nsec);
	ck_assert_int_eq(a.ctime_sec, st.st_ctim.tv_sec);
	ck_assert_uint_eq(a.ctime_nsec, st.st_ctim.tv_nsec);

	/* a link's own, not its target's */
	ck_assert_int_eq(attrs_read(dfd, "l", &a), 0);
	ck_assert_uint_eq(a.type, S_IFLNK);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_uint_eq(a.ino, st.st_ino);

	/* the directory's own */
	ck_assert_int_eq(attrs_read(dfd, NULL, &a), 0);
	ck_assert_uint_eq(a.type, S_IFDIR);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(a.ino, st.st_ino);

	ck_assert_int_eq(attrs_read(dfd, "none", &a), -ENOENT);
	close(dfd);
	test_rm_tree(dir);
}
END_TEST

static void attrcache_suite(Suite *s) {
	TCase *tc = tcase_create("attrcache");

	tcase_add_test(tc, test_swap);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_read);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("attrcache", attrcache_suite);
