/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-util.c — the "util" suite: daemon/util.c's struct strmap, the hash
 * map the planner and the reload diff rely on for O(1) lookups: byte keys
 * (composite keys with NUL bytes inside), several values under one key in
 * order, growth past many rehashes with every entry still found; and
 * daemon/mounts.c's mountinfo parser (the mount table the daemon watches
 * for unmounts): IDs, octal-escaped mount points, lines that do not parse.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mounts.h"
#include "proc.h"
#include "unit.h"
#include "util.h"

START_TEST(test_strmap_basic) {
	struct strmap m = { 0 };
	static const char k1[] = "a\0b", k2[] = "a\0c";

	ck_assert_ptr_null(strmap_get(&m, "x", 1)); /* an empty map */
	ck_assert_ptr_null(strmap_value_str(&m, "x"));
	ck_assert_int_eq(strmap_put(&m, k1, sizeof(k1), (void *)1), 0);
	ck_assert_int_eq(strmap_put(&m, k2, sizeof(k2), (void *)2), 0);
	ck_assert_ptr_eq(strmap_value(&m, k1, sizeof(k1)), (void *)1);
	ck_assert_ptr_eq(strmap_value(&m, k2, sizeof(k2)), (void *)2);
	/* "a" alone is another key than "a\0b" */
	ck_assert_ptr_null(strmap_value(&m, "a", 1));
	ck_assert_ptr_null(strmap_value(&m, k1, 2));
	ck_assert_uint_eq(strmap_size(&m), 2);
	strmap_done(&m);
	ck_assert_uint_eq(strmap_size(&m), 0);
	ck_assert_ptr_null(strmap_get(&m, k1, sizeof(k1)));
}
END_TEST

/* Equal keys: the last put first, strmap_next() to the ones before, in
 * order, also after the table grew (rehashes keep the order). */
START_TEST(test_strmap_duplicates) {
	struct strmap m = { 0 };
	char keys[3000][16];
	struct strmap_entry *e;
	uintptr_t want = 5;

	for (uintptr_t i = 1; i <= 5; i++)
		ck_assert_int_eq(strmap_put_str(&m, "/same/path", (void *)i), 0);
	for (size_t i = 0; i < 3000; i++) { /* many rehashes */
		snprintf(keys[i], sizeof(keys[i]), "/k/%zu", i);
		ck_assert_int_eq(strmap_put_str(&m, keys[i], (void *)(uintptr_t)(i + 100)), 0);
	}
	for (e = strmap_get(&m, "/same/path", strlen("/same/path")); e; e = strmap_next(e))
		ck_assert_ptr_eq(e->value, (void *)want--);
	ck_assert_uint_eq(want, 0);
	for (size_t i = 0; i < 3000; i++)
		ck_assert_ptr_eq(strmap_value_str(&m, keys[i]), (void *)(uintptr_t)(i + 100));
	ck_assert_ptr_null(strmap_value_str(&m, "/k/3000"));
	ck_assert_uint_eq(strmap_size(&m), 3005);
	ck_assert_uint_ge(m.map.n_buckets, strmap_size(&m)); /* about one entry per bucket */
	strmap_done(&m);
}
END_TEST

/* proc(5)'s fields; IDs out of order; a mount point with a space, a tab, a
 * newline and a backslash (written \040 \011 \012 \134), and an escape cut
 * short (kept as it is); lines that do not parse are skipped. */
START_TEST(test_mountinfo_parse) {
	static const char text[] =
	    "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw\n"
	    "22 1 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
	    "x 1 0:5 / /bad rw - tmpfs t rw\n"
	    "\n"
	    "40 22 0:44 / /a\\040b\\011c\\012d\\134e rw - tmpfs t rw\n"
	    "41 22 0:45 / /cut\\04 rw - tmpfs t rw\n"
	    "42 22 0:46 / relative rw - tmpfs t rw\n"
	    "43 22 0:47 /\n"
	    "44 22 0:48 / /last";
	struct mount_entry *v = NULL;
	size_t n = 0;

	ck_assert_int_eq(mountinfo_parse(text, strlen(text), &v, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(v[0].id, 22);
	ck_assert_str_eq(v[0].point, "/proc");
	ck_assert_uint_eq(v[1].id, 36);
	ck_assert_str_eq(v[1].point, "/mnt/parent");
	ck_assert_uint_eq(v[1].dev, makedev(98, 0));
	ck_assert_uint_eq(v[0].dev, makedev(0, 21));
	ck_assert_uint_eq(v[2].id, 40);
	ck_assert_str_eq(v[2].point, "/a b\tc\nd\\e");
	ck_assert_uint_eq(v[3].id, 41);
	ck_assert_str_eq(v[3].point, "/cut\\04");
	ck_assert_uint_eq(v[4].id, 44);
	ck_assert_str_eq(v[4].point, "/last");
	ck_assert_ptr_eq(mount_entries_find(v, n, 40), &v[2]);
	ck_assert_ptr_null(mount_entries_find(v, n, 39));
	ck_assert_ptr_null(mount_entries_find(v, 0, 40));
	mount_entries_free(v, n);

	ck_assert_int_eq(mountinfo_parse("", 0, &v, &n), 0);
	ck_assert_uint_eq(n, 0);
	mount_entries_free(v, n);
}
END_TEST

/* A cgroup path as systemd and the container runtimes name it: the unit
 * after the slices, the last slice, a container of a runtime's scope. */
START_TEST(test_cgroup_parse) {
	static const struct {
		const char *path, *unit, *slice, *container;
	} cases[] = {
		{ "/", "", "", "" },
		{ "/system.slice/ssh.service", "ssh.service", "system.slice", "" },
		{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope",
		  "user-1000.slice", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/vim.scope",
		  "user@1000.service", "user-1000.slice", "" },
		{ "/system.slice/docker-0123abcd.scope", "docker-0123abcd.scope", "system.slice",
		  "docker://0123abcd" },
		{ "/system.slice/containerd.service/kubepods-x.slice:cri-containerd:ff00",
		  "containerd.service", "system.slice", "" },
		{ "/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab12.scope",
		  "cri-containerd-ab12.scope", "kubepods-pod1.slice", "containerd://ab12" },
		{ "/machine.slice/libpod-99ee.scope/container", "libpod-99ee.scope",
		  "machine.slice", "podman://99ee" },
		{ "/machine.slice/machine-web\\x2d1.scope", "machine-web\\x2d1.scope",
		  "machine.slice", "machine://web-1" },
		{ "/machine.slice/crio-77.scope", "crio-77.scope", "machine.slice", "cri-o://77" },
		{ "/docker/4242beef", "", "", "docker://4242beef" },
		{ "/init.scope", "init.scope", "", "" },
		{ "/system.slice/docker-.scope", "docker-.scope", "system.slice", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proc_info p;

		proc_info_init(&p, 1);
		proc_cgroup_parse(cases[i].path, &p);
		ck_assert_msg(strcmp(p.unit, cases[i].unit) == 0, "%s: unit '%s'", cases[i].path,
			      p.unit);
		ck_assert_msg(strcmp(p.slice, cases[i].slice) == 0, "%s: slice '%s'", cases[i].path,
			      p.slice);
		ck_assert_msg(strcmp(p.container, cases[i].container) == 0, "%s: container '%s'",
			      cases[i].path, p.container);
	}
}
END_TEST

static void util_suite(Suite *s) {
	TCase *tc = tcase_create("strmap");

	tcase_add_test(tc, test_strmap_basic);
	tcase_add_test(tc, test_strmap_duplicates);
	suite_add_tcase(s, tc);
	tc = tcase_create("mountinfo");
	tcase_add_test(tc, test_mountinfo_parse);
	suite_add_tcase(s, tc);
	tc = tcase_create("cgroup");
	tcase_add_test(tc, test_cgroup_parse);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("util", util_suite);
