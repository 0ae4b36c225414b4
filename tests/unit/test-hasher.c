/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-hasher.c — the "hasher" suite: daemon/hasher.c, what files hold.
 * hasher_hash_fd() of a file (through an O_PATH fd) against the SHA-256
 * test vectors of FIPS 180-2 ("abc", and a million 'a's read across
 * chunks), a 0-byte file, a file over the size cap (too_big, its size), a
 * directory (not_regular) and a file removed before it was read (the fd
 * keeps it: hashed); the rate bounds the read (at 1 MiB/s a 1 MiB file
 * takes about a second, never less than 0.9 s) and a stop ends it
 * ("stopped"). The thread: results come back through the loop in the
 * order handed over, skipped ones among them; a second change of a file
 * still waiting joins it (1, one record, both events); the queue's bound
 * gives "backlog"; freeing gives back what still waits as "stopped".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "fsn-uapi.h"
#include "hasher.h"
#include "unit.h"
#include "util.h"

#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void write_file(const char *dir, const char *name, const void *data, size_t n) {
	char p[PATH_MAX];
	int fd;

	test_join(p, sizeof(p), dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static int open_path(const char *dir, const char *name) {
	char p[PATH_MAX];
	int fd;

	test_join(p, sizeof(p), dir, name);
	fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static void hash_one(const char *dir, const char *name, uint64_t max, uint64_t rate,
		     struct record_content *c) {
	struct hash_reader rd;
	int fd = open_path(dir, name);

	ck_assert_int_eq(hash_reader_init(&rd), 0);
	hasher_hash_fd(&rd, fd, max, rate, NULL, c, NULL);
	hash_reader_done(&rd);
	close(fd);
}

START_TEST(test_vectors) {
	char dir[PATH_MAX], p[PATH_MAX];
	unsigned char md5[16];
	struct record_content c;
	char *million = malloc(1000000);
	int fd;

	ck_assert_ptr_nonnull(million);
	memset(million, 'a', 1000000);
	test_tmpdir(dir, sizeof(dir));
	write_file(dir, "abc", "abc", 3);
	write_file(dir, "million", million, 1000000);
	write_file(dir, "empty", "", 0);
	free(million);

	hash_one(dir, "abc", 0, 0, &c);
	ck_assert_str_eq(c.sha256, SHA_ABC);
	ck_assert_ptr_null(c.skipped);
	ck_assert(c.has_size);
	ck_assert_uint_eq(c.size, 3);
	hash_one(dir, "million", 0, 0, &c); /* (read in several chunks) */
	ck_assert_str_eq(c.sha256, SHA_MILLION_A);
	ck_assert_uint_eq(c.size, 1000000);
	hash_one(dir, "empty", 0, 0, &c);
	ck_assert_str_eq(c.sha256, SHA_EMPTY);
	ck_assert_uint_eq(c.size, 0);

	/* over the cap: not read, its size said; at the cap: hashed */
	hash_one(dir, "million", 999999, 0, &c);
	ck_assert_str_eq(c.sha256, "");
	ck_assert_str_eq(c.skipped, "too_big");
	ck_assert(c.has_size);
	ck_assert_uint_eq(c.size, 1000000);
	hash_one(dir, "million", 1000000, 0, &c);
	ck_assert_str_eq(c.sha256, SHA_MILLION_A);

	/* a directory */
	test_join(p, sizeof(p), dir, "d");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	hash_one(dir, "d", 0, 0, &c);
	ck_assert_str_eq(c.skipped, "not_regular");
	ck_assert_str_eq(c.sha256, "");

	/* removed after it was found: the fd still has it */
	fd = open_path(dir, "abc");
	test_join(p, sizeof(p), dir, "abc");
	ck_assert_int_eq(unlink(p), 0);
	{
		struct hash_reader rd;

		ck_assert_int_eq(hash_reader_init(&rd), 0);
		ck_assert(hasher_hash_fd(&rd, fd, 0, 0, NULL, &c, md5));
		hash_reader_done(&rd);
	}
	close(fd);
	ck_assert_str_eq(c.sha256, SHA_ABC);
	/* and its MD5, as dpkg's md5sums have it (RFC 1321's "abc") */
	ck_assert_mem_eq(md5, "\x90\x01\x50\x98\x3c\xd2\x4f\xb0\xd6\x96\x3f\x7d\x28\xe1\x7f\x72",
			 16);
	test_rm_tree(dir);
}
END_TEST

/* A FIFO put in a file's place is never opened (an open may act: a
 * device's may): not_regular at once, and inotify hears no open (an O_PATH
 * open is none). */
START_TEST(test_fifo_not_opened) {
	struct hash_reader rd;
	struct record_content c = { 0 };
	char dir[PATH_MAX], fifo[PATH_MAX], buf[4096];
	int fd, ino;

	test_tmpdir(dir, sizeof(dir));
	test_join(fifo, sizeof(fifo), dir, "fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(ino, 0);
	ck_assert_int_ge(inotify_add_watch(ino, fifo, IN_OPEN), 0);
	ck_assert_int_eq(hash_reader_init(&rd), 0);
	fd = open(fifo, O_PATH | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert(!hasher_hash_fd(&rd, fd, 0, 0, NULL, &c, NULL));
	ck_assert_str_eq(c.skipped, "not_regular");
	ck_assert_int_eq(read(ino, buf, sizeof(buf)), -1); /* (no open) */
	ck_assert_int_eq(errno, EAGAIN);
	close(fd);
	close(ino);
	hash_reader_done(&rd);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_rate_and_stop) {
	char dir[PATH_MAX];
	struct record_content c;
	struct hash_reader rd;
	volatile bool stop = true;
	char *mib = calloc(1, 1 << 20);
	uint64_t t0, took;
	int fd;

	ck_assert_ptr_nonnull(mib);
	test_tmpdir(dir, sizeof(dir));
	write_file(dir, "f", mib, 1 << 20);
	free(mib);
	t0 = now_monotonic_usec();
	hash_one(dir, "f", 0, 1 << 20, &c);
	took = now_monotonic_usec() - t0;
	ck_assert_ptr_null(c.skipped);
	ck_assert_msg(took >= 900000, "1 MiB at 1 MiB/s read in %llu us", (unsigned long long)took);

	/* a stop asked: the read ends at the first wait */
	fd = open_path(dir, "f");
	ck_assert_int_eq(hash_reader_init(&rd), 0);
	ck_assert(!hasher_hash_fd(&rd, fd, 0, 1024, &stop, &c, NULL));
	hash_reader_done(&rd);
	close(fd);
	ck_assert_str_eq(c.skipped, "stopped");
	ck_assert_str_eq(c.sha256, "");
	test_rm_tree(dir);
}
END_TEST

/* ---- the thread ---- */

struct seen {
	struct ev_loop *loop;
	size_t n, want;
	char path[8][64];
	char sha[8][65];
	const char *skipped[8];
	uint64_t mask[8];
};

static void on_done(void *userdata, const struct hash_job *j) {
	struct seen *s = userdata;

	ck_assert_uint_lt(s->n, 8);
	snprintf(s->path[s->n], sizeof(s->path[0]), "%s", j->path);
	memcpy(s->sha[s->n], j->content.sha256, 65);
	s->skipped[s->n] = j->content.skipped;
	s->mask[s->n] = j->mask;
	if (++s->n == s->want)
		ev_break(s->loop, EVBREAK_ALL);
}

static void on_timeout(struct ev_loop *loop, ev_timer *w, int revents) {
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

/* Run the loop until s has want results (or a minute passed). */
static void run_until(struct seen *s, size_t want) {
	ev_timer t;

	s->want = want;
	ev_timer_init(&t, on_timeout, 60., 0.);
	ev_timer_start(s->loop, &t);
	if (s->n < want)
		ev_run(s->loop, 0);
	ev_timer_stop(s->loop, &t);
	ck_assert_uint_eq(s->n, want);
}

START_TEST(test_thread_order) {
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct seen s = { .loop = loop };
	struct hasher_stats st;
	struct hasher *h;
	char dir[PATH_MAX], p[PATH_MAX];
	char *mib = calloc(1, 1 << 20);

	ck_assert_ptr_nonnull(mib);
	test_tmpdir(dir, sizeof(dir));
	write_file(dir, "abc", "abc", 3);
	write_file(dir, "slow", mib, 1 << 20);
	write_file(dir, "empty", "", 0);
	test_join(p, sizeof(p), dir, "d");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(mib);
	ck_assert_int_eq(hasher_new(loop, on_done, &s, &h), 0);
	/* four files wait with their fds at most; the slow one (at 1 MiB/s,
	 * a second) holds the thread while the others are handed over */
	hasher_set_limits(h, &(struct hasher_limits){ .queue = 4, .rate = 1 << 20 });
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "slow"), NULL, "r", "slow", 1, 1, 0), 0);
	ck_assert_int_eq(hasher_submit(h, -1, "gone", "r", "gone", 2, 2, 0), 0);
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "abc"), NULL, "r", "abc", 2, 3, 0), 0);
	/* a second change of abc, still waiting: one read for both */
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "abc"), NULL, "r", "abc", 8, 4, 0), 1);
	/* the same file of another rule is its own, and so is the same file
	 * under another name (renamed: each record keeps its name) */
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "abc"), NULL, "q", "abc", 8, 5, 0), 0);
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "abc"), NULL, "r", "abc2", 64, 5, 0), 0);
	/* the queue full (four waiting with fds, unless the slow one was
	 * taken already: then this one fits); a directory is not read */
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "empty"), NULL, "r", "empty", 2, 6, 0), 0);
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "d"), NULL, "r", "d", 2, 7, 0), 0);
	run_until(&s, 7);
	ck_assert_str_eq(s.path[0], "slow");
	ck_assert_ptr_null(s.skipped[0]);
	ck_assert_str_eq(s.path[1], "gone");
	ck_assert_str_eq(s.skipped[1], "gone");
	ck_assert_str_eq(s.path[2], "abc");
	ck_assert_str_eq(s.sha[2], SHA_ABC);
	ck_assert_uint_eq(s.mask[2], 2 | 8);
	ck_assert_str_eq(s.path[3], "abc");
	ck_assert_str_eq(s.path[4], "abc2");
	ck_assert_uint_eq(s.mask[4], 64);
	ck_assert_str_eq(s.sha[4], SHA_ABC);
	ck_assert_str_eq(s.path[5], "empty");
	/* (the slow file was being read, or the queue held four: either way
	 * one of the two with fds behind the others could not wait) */
	ck_assert(s.skipped[5] == NULL ? strcmp(s.sha[5], SHA_EMPTY) == 0
				       : strcmp(s.skipped[5], "backlog") == 0);
	ck_assert_str_eq(s.path[6], "d");
	ck_assert_str_eq(s.skipped[6], "not_regular");
	hasher_get_stats(h, &st);
	ck_assert_uint_eq(st.merged, 1);
	ck_assert_uint_eq(st.waiting, 0);
	ck_assert_uint_ge(st.hashed, 3);
	ck_assert_uint_eq(st.skipped_gone, 1);
	h = hasher_free(h);
	ck_assert_ptr_null(h);
	ev_loop_destroy(loop);
	test_rm_tree(dir);
}
END_TEST

START_TEST(test_thread_stop) {
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct seen s = { .loop = loop };
	struct hasher *h;
	char dir[PATH_MAX];
	char *mib = calloc(1, 1 << 20);

	ck_assert_ptr_nonnull(mib);
	test_tmpdir(dir, sizeof(dir));
	write_file(dir, "slow", mib, 1 << 20);
	free(mib);
	ck_assert_int_eq(hasher_new(loop, on_done, &s, &h), 0);
	/* 1 KiB/s: the first file would take 17 minutes */
	hasher_set_limits(h, &(struct hasher_limits){ .queue = 4, .rate = 1024 });
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "slow"), NULL, "r", "a", 2, 1, 0), 0);
	ck_assert_int_eq(hasher_submit(h, open_path(dir, "slow"), NULL, "q", "b", 2, 2, 0), 0);
	ck_assert_uint_eq(s.n, 0);
	/* freeing gives both back, in order, unread */
	h = hasher_free(h);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.path[0], "a");
	ck_assert_str_eq(s.skipped[0], "stopped");
	ck_assert_str_eq(s.path[1], "b");
	ck_assert_str_eq(s.skipped[1], "stopped");
	ev_loop_destroy(loop);
	test_rm_tree(dir);
}
END_TEST

static void hasher_suite(Suite *s) {
	TCase *tc = tcase_create("hasher");

	tcase_add_test(tc, test_vectors);
	tcase_add_test(tc, test_fifo_not_opened);
	tcase_add_test(tc, test_rate_and_stop);
	tcase_add_test(tc, test_thread_order);
	tcase_add_test(tc, test_thread_stop);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("hasher", hasher_suite);
