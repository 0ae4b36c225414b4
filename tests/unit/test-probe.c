/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-probe.c — the "probe" suite: errno classification, feature names,
 * fsn_probe_describe(), and real probes of the running kernel on a
 * directory under /tmp (as the caller, and as an unprivileged user), on a
 * private tmpfs mount (root: own mount namespace in a child process) and on
 * procfs (which refuses permission events).
 *
 * Real probes must leave no fd behind and generate no event (checked with
 * inotify watches placed before the probe and a non-blocking read).
 * struct fsn_prober: one probe per filesystem and kind of object, a cached
 * answer makes no system call at all (a seccomp filter that kills the
 * process on any call but exit proves it), and revalidation forgets a
 * filesystem that was unmounted (root, own mount namespace). Results
 * that depend on privileges are asserted only where the privileges are
 * known; without CAP_SYS_ADMIN those tests skip and say so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsn.h"
#include "unit.h"

/* ---- helpers ---- */

static bool has_cap_sys_admin(void) {
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 21); /* CAP_SYS_ADMIN */
}

/* fsn_test_skip() exits the process: only right when Check forked the test. */
static bool check_forks(void) {
	const char *e = getenv("CK_FORK");

	return !e || strcmp(e, "no") != 0;
}

static unsigned count_fds(void) {
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	unsigned n = 0;

	ck_assert_msg(d, "opendir(/proc/self/fd): %s", strerror(errno));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

struct tmpdir {
	char dir[64];
	char file[80];
};

static void tmpdir_make(struct tmpdir *t) {
	int fd;

	snprintf(t->dir, sizeof(t->dir), "/tmp/fsn-probe-XXXXXX");
	ck_assert_msg(mkdtemp(t->dir), "mkdtemp: %s", strerror(errno));
	ck_assert_int_eq(chmod(t->dir, 0755), 0);
	snprintf(t->file, sizeof(t->file), "%s/file", t->dir);
	fd = open(t->file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_msg(fd >= 0, "create %s: %s", t->file, strerror(errno));
	close(fd);
}

static void tmpdir_remove(struct tmpdir *t) {
	unlink(t->file);
	rmdir(t->dir);
}

static void assert_consistent(const struct fsn_probe *p) {
	for (int f = 0; f < _FSN_FEAT_MAX; f++) {
		const struct fsn_feature_result *r = &p->feat[f];

		ck_assert_msg(r->support >= 0 && r->support < _FSN_SUPPORT_MAX, "%s: support %d",
			      fsn_feature_name(f), r->support);
		ck_assert_msg(r->error >= 0, "%s: error %d", fsn_feature_name(f), r->error);
		if (r->support == FSN_SUPPORTED || r->support == FSN_NOT_PROBED)
			ck_assert_msg(r->error == 0, "%s: %s with error %d", fsn_feature_name(f),
				      fsn_support_name(r->support), r->error);
		else if (r->error != 0 && !(r->support == FSN_UNSUPPORTED_FS && r->error == EINVAL))
			/* (EINVAL that the kernel accepts with FAN_MARK_FLUSH is the
			 * object's refusal: "not supported by this filesystem") */
			ck_assert_msg(fsn_support_from_errno(r->error) == r->support,
				      "%s: %s but error %d", fsn_feature_name(f),
				      fsn_support_name(r->support), r->error);
	}
}

static void assert_supported(const struct fsn_probe *p, const char *where,
			     const enum fsn_feature *feats, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const struct fsn_feature_result *r = &p->feat[feats[i]];

		ck_assert_msg(r->support == FSN_SUPPORTED, "%s: %s is %s (error %d)", where,
			      fsn_feature_name(feats[i]), fsn_support_name(r->support), r->error);
	}
}

/* With CAP_SYS_ADMIN, on any filesystem that can encode file handles. */
static const enum fsn_feature admin_features[] = {
	FSN_FEAT_FANOTIFY,          FSN_FEAT_CLASS_CONTENT,       FSN_FEAT_CLASS_PRE_CONTENT,
	FSN_FEAT_REPORT_FID,        FSN_FEAT_REPORT_DIR_FID,      FSN_FEAT_REPORT_DFID_NAME,
	FSN_FEAT_REPORT_TARGET_FID, FSN_FEAT_UNLIMITED_QUEUE,     FSN_FEAT_MARK_INODE,
	FSN_FEAT_MARK_MOUNT,        FSN_FEAT_MARK_FILESYSTEM,     FSN_FEAT_MARK_FID,
	FSN_FEAT_MARK_IGNORE,       FSN_FEAT_MARK_EVICTABLE,      FSN_FEAT_EVENT_DIRENT,
	FSN_FEAT_PERM_OPEN,         FSN_FEAT_PERM_ACCESS,         FSN_FEAT_PERM_OPEN_EXEC,
	FSN_FEAT_INOTIFY,           FSN_FEAT_INOTIFY_MASK_CREATE,
};

#define N_ADMIN (sizeof(admin_features) / sizeof(admin_features[0]))

/* pre_access depends on the kernel and the filesystem, never on privileges
 * (with CAP_SYS_ADMIN). */
static void assert_pre_access_plausible(const struct fsn_probe *p) {
	const struct fsn_feature_result *r = &p->feat[FSN_FEAT_PRE_ACCESS];

	ck_assert_msg(r->support == FSN_SUPPORTED ||
			  (r->support == FSN_UNSUPPORTED_FS && r->error == EOPNOTSUPP) ||
			  (r->support == FSN_UNSUPPORTED_KERNEL && r->error == EINVAL),
		      "pre_access: %s (error %d)", fsn_support_name(r->support), r->error);
}

/* Run fsn_probe_path(path) in a child, optionally as user nobody or in a
 * private mount namespace with a fresh tmpfs on path; the child never
 * returns into Check. Returns the probe's return value; -1000 - status if
 * the child could not set itself up (status 77: not possible here). */
enum child_mode { CHILD_NOBODY, CHILD_TMPFS };

static int probe_in_child(enum child_mode mode, const char *path, struct fsn_probe *ret) {
	struct {
		int rc;
		struct fsn_probe p;
	} msg;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (mode == CHILD_NOBODY) {
			if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
				_exit(77);
		} else {
			if (unshare(CLONE_NEWNS) < 0 ||
			    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
			    mount("fsn-test", path, "tmpfs", 0, "mode=0755,size=1m") < 0)
				_exit(77);
		}
		memset(&msg, 0, sizeof(msg));
		msg.rc = fsn_probe_path(path, &msg.p);
		n = write(pipefd[1], &msg, sizeof(msg));
		close(pipefd[1]);
		_exit(n == (ssize_t)sizeof(msg) ? 0 : 1);
	}
	close(pipefd[1]);
	n = read(pipefd[0], &msg, sizeof(msg));
	close(pipefd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "probe child died, status 0x%x", status);
	if (WEXITSTATUS(status) != 0)
		return -1000 - WEXITSTATUS(status);
	ck_assert_int_eq(n, sizeof(msg));
	*ret = msg.p;
	return msg.rc;
}

/* ---- pure functions ---- */

START_TEST(test_classify) {
	static const struct {
		int err;
		enum fsn_support s;
	} table[] = {
		{ 0, FSN_SUPPORTED },
		{ EINVAL, FSN_UNSUPPORTED_KERNEL },
		{ ENOSYS, FSN_UNSUPPORTED_KERNEL },
		{ ENODEV, FSN_UNSUPPORTED_FS },
		{ EOPNOTSUPP, FSN_UNSUPPORTED_FS },
		{ ENOTSUP, FSN_UNSUPPORTED_FS },
		{ EXDEV, FSN_UNSUPPORTED_FS },
		{ EPERM, FSN_NOT_PERMITTED },
		{ EACCES, FSN_NOT_PERMITTED },
		{ ENOENT, FSN_PROBE_FAILED },
		{ ENOMEM, FSN_PROBE_FAILED },
		{ EMFILE, FSN_PROBE_FAILED },
		{ ENFILE, FSN_PROBE_FAILED },
		{ ENOSPC, FSN_PROBE_FAILED },
		{ EBUSY, FSN_PROBE_FAILED },
		{ EEXIST, FSN_PROBE_FAILED },
		{ ENOTDIR, FSN_PROBE_FAILED },
		{ EISDIR, FSN_PROBE_FAILED },
		{ EBADF, FSN_PROBE_FAILED },
		{ EFAULT, FSN_PROBE_FAILED },
		{ EIO, FSN_PROBE_FAILED },
		{ ELOOP, FSN_PROBE_FAILED },
		{ ENAMETOOLONG, FSN_PROBE_FAILED },
		{ ESTALE, FSN_PROBE_FAILED },
		{ EAGAIN, FSN_PROBE_FAILED },
		{ 4095, FSN_PROBE_FAILED },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		ck_assert_msg(fsn_support_from_errno(table[i].err) == table[i].s,
			      "errno %d: %d, want %d", table[i].err,
			      fsn_support_from_errno(table[i].err), table[i].s);
}
END_TEST

START_TEST(test_support_names) {
	for (int s = 0; s < _FSN_SUPPORT_MAX; s++) {
		const char *name = fsn_support_name(s);

		ck_assert_msg(name && *name, "support %d has no name", s);
		for (int t = 0; t < s; t++)
			ck_assert_str_ne(name, fsn_support_name(t));
	}
	ck_assert_str_eq(fsn_support_name(FSN_SUPPORTED), "supported");
	ck_assert_str_eq(fsn_support_name(FSN_UNSUPPORTED_KERNEL), "not supported by this kernel");
	ck_assert_str_eq(fsn_support_name(FSN_UNSUPPORTED_FS), "not supported by this filesystem");
	ck_assert_ptr_null(fsn_support_name(_FSN_SUPPORT_MAX));
	ck_assert_ptr_null(fsn_support_name((enum fsn_support) - 1));
}
END_TEST

START_TEST(test_feature_names) {
	for (int f = 0; f < _FSN_FEAT_MAX; f++) {
		const char *name = fsn_feature_name(f), *desc = fsn_feature_description(f);

		ck_assert_msg(name && *name, "feature %d has no name", f);
		ck_assert_msg(desc && *desc, "feature %s has no description", name);
		ck_assert_msg(strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(name),
			      "feature name '%s' is not an identifier", name);
		ck_assert_msg(!strchr(desc, '\n'), "description of %s has a newline", name);
		for (int g = 0; g < f; g++) {
			ck_assert_str_ne(name, fsn_feature_name(g));
			ck_assert_str_ne(desc, fsn_feature_description(g));
		}
	}
	ck_assert_str_eq(fsn_feature_name(FSN_FEAT_REPORT_DFID_NAME), "report_dfid_name");
	ck_assert_str_eq(fsn_feature_name(FSN_FEAT_MARK_FILESYSTEM), "mark_filesystem");
	ck_assert_str_eq(fsn_feature_name(FSN_FEAT_PRE_ACCESS), "pre_access");
	ck_assert_str_eq(fsn_feature_description(FSN_FEAT_MARK_FILESYSTEM),
			 "filesystem marks (FAN_MARK_FILESYSTEM)");
	ck_assert_ptr_null(fsn_feature_name(_FSN_FEAT_MAX));
	ck_assert_ptr_null(fsn_feature_name((enum fsn_feature) - 1));
	ck_assert_ptr_null(fsn_feature_description(_FSN_FEAT_MAX));
}
END_TEST

static void sample_probe(struct fsn_probe *p) {
	memset(p, 0, sizeof(*p));
	p->feat[FSN_FEAT_MARK_FID] = (struct fsn_feature_result){ FSN_UNSUPPORTED_FS, EXDEV };
	p->feat[FSN_FEAT_PRE_ACCESS] =
	    (struct fsn_feature_result){ FSN_UNSUPPORTED_FS, EOPNOTSUPP };
	p->feat[FSN_FEAT_DENY_ERRNO] =
	    (struct fsn_feature_result){ FSN_UNSUPPORTED_KERNEL, EINVAL };
	p->feat[FSN_FEAT_UNLIMITED_QUEUE] = (struct fsn_feature_result){ FSN_NOT_PERMITTED, EPERM };
	p->feat[FSN_FEAT_EVENT_FS_ERROR] = (struct fsn_feature_result){ FSN_PROBE_FAILED, 4000 };
	p->feat[FSN_FEAT_EVENT_RENAME] = (struct fsn_feature_result){ FSN_NOT_PROBED, 0 };
	p->feat[FSN_FEAT_INOTIFY_MASK_CREATE] =
	    (struct fsn_feature_result){ FSN_UNSUPPORTED_KERNEL, 0 };
}

START_TEST(test_describe) {
	struct fsn_probe p;
	char buf[8192], line[256];
	const char *s;
	int n, lines = 0;

	sample_probe(&p);
	n = fsn_probe_describe(&p, buf, sizeof(buf));
	ck_assert_int_eq(n, strlen(buf));

	/* one line per feature, in enum order, "name: words[ (ERRNO)]" */
	s = buf;
	for (int f = 0; f < _FSN_FEAT_MAX; f++) {
		const char *nl = strchr(s, '\n');

		ck_assert_msg(nl, "line %d missing", f);
		snprintf(line, sizeof(line), "%.*s", (int)(nl - s), s);
		ck_assert_msg(strncmp(line, fsn_feature_name(f), strlen(fsn_feature_name(f))) ==
				      0 &&
				  line[strlen(fsn_feature_name(f))] == ':',
			      "line %d is '%s'", f, line);
		s = nl + 1;
		lines++;
	}
	ck_assert_str_eq(s, "");
	ck_assert_int_eq(lines, _FSN_FEAT_MAX);

	ck_assert_msg(strncmp(buf, "fanotify: supported\nclass_content: supported\n", 45) == 0,
		      "%s", buf);
	ck_assert_ptr_nonnull(
	    strstr(buf, "\nmark_fid: not supported by this filesystem (EXDEV)\n"));
	ck_assert_ptr_nonnull(
	    strstr(buf, "\npre_access: not supported by this filesystem (EOPNOTSUPP)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ndeny_errno: not supported by this kernel (EINVAL)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nunlimited_queue: not permitted (EPERM)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nevent_fs_error: probe failed (errno 4000)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nevent_rename: not probed\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\ninotify_mask_create: not supported by this kernel\n"));

	/* a support value out of range is printed, not trusted */
	p.feat[FSN_FEAT_INOTIFY].support = (enum fsn_support)99;
	fsn_probe_describe(&p, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "\ninotify: unknown\n"));

	ck_assert_int_eq(fsn_probe_describe(NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(fsn_probe_describe(&p, NULL, 10), -EINVAL);
}
END_TEST

START_TEST(test_describe_truncation) {
	struct fsn_probe p;
	char full[8192], buf[8192];
	size_t lens[] = { 1, 2, 10, 19, 20, 21, 100, 0, 0, 0 };
	int n;

	sample_probe(&p);
	n = fsn_probe_describe(&p, NULL, 0);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(fsn_probe_describe(&p, full, sizeof(full)), n);
	ck_assert_int_eq(strlen(full), n);

	/* around the end, too */
	lens[7] = (size_t)n - 1;
	lens[8] = (size_t)n;
	lens[9] = (size_t)n + 1;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t len = lens[i], want = len - 1 < (size_t)n ? len - 1 : (size_t)n;

		memset(buf, 'x', sizeof(buf));
		ck_assert_int_eq(fsn_probe_describe(&p, buf, len), n);
		ck_assert_int_eq(strlen(buf), want);
		ck_assert(memcmp(buf, full, want) == 0);
		ck_assert_int_eq(buf[len], 'x');
	}
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fsn_probe_describe(&p, buf, 0), n);
	ck_assert_int_eq(buf[0], 'x');
}
END_TEST

START_TEST(test_probe_bad_path) {
	struct fsn_probe p;

	memset(&p, 0xa5, sizeof(p));
	ck_assert_int_eq(fsn_probe_path("/nonexistent-fsn-probe/x", &p), -ENOENT);
	ck_assert_int_eq(p.feat[0].error, (int)0xa5a5a5a5); /* untouched */
	ck_assert_int_eq(fsn_probe_path(NULL, &p), -EINVAL);
	ck_assert_int_eq(fsn_probe_path("/tmp", NULL), -EINVAL);
}
END_TEST

/* ---- real probes ---- */

/* Whatever the privileges: no fd left, no event, a consistent result. */
START_TEST(test_probe_no_side_effects) {
	struct tmpdir t;
	struct fsn_probe pd, pf;
	char ev[4096];
	unsigned before, after;
	int in;

	tmpdir_make(&t);
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(inotify_add_watch(in, t.dir, IN_ALL_EVENTS), 0);
	ck_assert_int_ge(inotify_add_watch(in, t.file, IN_ALL_EVENTS), 0);

	before = count_fds();
	ck_assert_int_eq(fsn_probe_path(t.dir, &pd), 0);
	ck_assert_int_eq(fsn_probe_path(t.file, &pf), 0);
	after = count_fds();

	ck_assert_int_eq(read(in, ev, sizeof(ev)), -1);
	ck_assert_msg(errno == EAGAIN, "read: %s (an event was generated)", strerror(errno));
	ck_assert_uint_eq(after, before);

	assert_consistent(&pd);
	assert_consistent(&pf);
	/* whatever is missing, inotify works on a directory we own */
	ck_assert_int_eq(pd.feat[FSN_FEAT_INOTIFY].support, FSN_SUPPORTED);
	ck_assert_int_eq(pf.feat[FSN_FEAT_INOTIFY].support, FSN_SUPPORTED);

	close(in);
	tmpdir_remove(&t);
}
END_TEST

START_TEST(test_probe_tmp_admin) {
	struct tmpdir t;
	struct fsn_probe p;

	if (!has_cap_sys_admin()) {
		if (!check_forks())
			return;
		fsn_test_skip("needs CAP_SYS_ADMIN (fanotify groups, mount/filesystem marks)");
	}

	tmpdir_make(&t);
	ck_assert_int_eq(fsn_probe_path(t.dir, &p), 0);
	assert_consistent(&p);
	assert_supported(&p, t.dir, admin_features, N_ADMIN);
	assert_pre_access_plausible(&p);
	ck_assert_int_eq(fsn_probe_path(t.file, &p), 0);
	assert_consistent(&p);
	assert_supported(&p, t.file, admin_features, N_ADMIN);
	assert_pre_access_plausible(&p);
	tmpdir_remove(&t);
}
END_TEST

/* Without privileges, fanotify features are allowed (FID groups with inode
 * marks) or not permitted; never reported as missing from the kernel. */
static void assert_unprivileged(const struct fsn_probe *p) {
	assert_consistent(p);
	for (int f = 0; f <= FSN_FEAT_DENY_ERRNO; f++) {
		enum fsn_support s = p->feat[f].support;

		/* an inode mark of a FID group may also meet a filesystem
		 * that cannot encode file handles */
		ck_assert_msg(s == FSN_SUPPORTED || s == FSN_NOT_PERMITTED ||
				  (f == FSN_FEAT_MARK_FID && s == FSN_UNSUPPORTED_FS),
			      "unprivileged %s: %s (error %d)", fsn_feature_name(f),
			      fsn_support_name(s), p->feat[f].error);
	}
	ck_assert_int_eq(p->feat[FSN_FEAT_FANOTIFY].support, FSN_NOT_PERMITTED);
	ck_assert_int_eq(p->feat[FSN_FEAT_FANOTIFY].error, EPERM);
	ck_assert_int_eq(p->feat[FSN_FEAT_CLASS_CONTENT].support, FSN_NOT_PERMITTED);
	ck_assert_int_eq(p->feat[FSN_FEAT_MARK_FILESYSTEM].support, FSN_NOT_PERMITTED);
	ck_assert_int_eq(p->feat[FSN_FEAT_UNLIMITED_QUEUE].support, FSN_NOT_PERMITTED);
	ck_assert_int_eq(p->feat[FSN_FEAT_INOTIFY].support, FSN_SUPPORTED);
}

START_TEST(test_probe_tmp_unprivileged) {
	struct tmpdir t;
	struct fsn_probe p;
	int r;

	tmpdir_make(&t);
	if (geteuid() != 0) {
		if (has_cap_sys_admin()) {
			tmpdir_remove(&t);
			if (!check_forks())
				return;
			fsn_test_skip("has CAP_SYS_ADMIN without being root");
		}
		ck_assert_int_eq(fsn_probe_path(t.dir, &p), 0);
	} else {
		r = probe_in_child(CHILD_NOBODY, t.dir, &p);
		if (r == -1077) {
			tmpdir_remove(&t);
			if (!check_forks())
				return;
			fsn_test_skip("cannot switch to user nobody (65534)");
		}
		ck_assert_int_eq(r, 0);
	}
	assert_unprivileged(&p);
	tmpdir_remove(&t);
}
END_TEST

START_TEST(test_probe_tmpfs) {
	struct tmpdir t;
	struct fsn_probe p;
	int r;

	if (geteuid() != 0 || !has_cap_sys_admin()) {
		if (!check_forks())
			return;
		fsn_test_skip("needs root with CAP_SYS_ADMIN (mount namespace, tmpfs, fanotify)");
	}

	tmpdir_make(&t);
	r = probe_in_child(CHILD_TMPFS, t.dir, &p);
	tmpdir_remove(&t);
	if (r == -1077) {
		if (!check_forks())
			return;
		fsn_test_skip("cannot unshare the mount namespace or mount tmpfs here");
	}
	ck_assert_int_eq(r, 0);
	assert_consistent(&p);
	assert_supported(&p, "tmpfs", admin_features, N_ADMIN);
	assert_pre_access_plausible(&p);
	/* tmpfs can encode and decode file handles: every FID feature works */
	ck_assert_int_eq(p.feat[FSN_FEAT_EVENT_FS_ERROR].support, FSN_SUPPORTED);
}
END_TEST

/* procfs refuses permission events (FS_DISALLOW_NOTIFY_PERM) with EINVAL: that
 * is the filesystem, not a kernel without permission events. */
START_TEST(test_probe_procfs) {
	struct fsn_probe p;
	struct statfs sfs;

	if (!has_cap_sys_admin()) {
		if (!check_forks())
			return;
		fsn_test_skip("needs CAP_SYS_ADMIN (FAN_CLASS_CONTENT groups)");
	}
	if (statfs("/proc/self/status", &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) {
		if (!check_forks())
			return;
		fsn_test_skip("/proc is not procfs here");
	}

	ck_assert_int_eq(fsn_probe_path("/proc/self/status", &p), 0);
	assert_consistent(&p);
	ck_assert_int_eq(p.feat[FSN_FEAT_MARK_INODE].support, FSN_SUPPORTED);
	for (int f = FSN_FEAT_PERM_OPEN; f <= FSN_FEAT_PERM_OPEN_EXEC; f++) {
		ck_assert_msg(p.feat[f].support == FSN_UNSUPPORTED_FS, "%s: %s",
			      fsn_feature_name(f), fsn_support_name(p.feat[f].support));
		ck_assert_int_eq(p.feat[f].error, EINVAL);
	}
}
END_TEST

/* ---- the prober ---- */

static void assert_same_probe(const struct fsn_probe *a, const struct fsn_probe *b,
			      const char *what) {
	for (int f = 0; f < _FSN_FEAT_MAX; f++)
		ck_assert_msg(a->feat[f].support == b->feat[f].support &&
				  a->feat[f].error == b->feat[f].error,
			      "%s: %s: %s (%d) vs %s (%d)", what, fsn_feature_name(f),
			      fsn_support_name(a->feat[f].support), a->feat[f].error,
			      fsn_support_name(b->feat[f].support), b->feat[f].error);
}

static void assert_stats(const struct fsn_prober *pr, uint64_t probes, uint64_t hits,
			 uint64_t entries) {
	struct fsn_prober_stats st;

	fsn_prober_get_stats(pr, &st);
	ck_assert_msg(st.probes == probes && st.hits == hits && st.entries == entries,
		      "prober: %" PRIu64 " probes, %" PRIu64 " hits, %" PRIu64
		      " entries; want %" PRIu64 ", %" PRIu64 ", %" PRIu64,
		      st.probes, st.hits, st.entries, probes, hits, entries);
}

/* One probe per filesystem and kind: a second directory and a file of the
 * same filesystem are answered from the cache, with what fsn_probe_path()
 * says of them; a FIFO (pre-content events need a file or directory) and
 * another filesystem (procfs) are probed. */
START_TEST(test_prober_cache) {
	struct tmpdir t;
	struct fsn_prober *pr = NULL;
	struct fsn_probe p, direct;
	char sub[96], fifo[96];
	unsigned before;

	tmpdir_make(&t);
	snprintf(sub, sizeof(sub), "%s/sub", t.dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", t.dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	before = count_fds();
	ck_assert_int_eq(fsn_prober_new(&pr), 0);
	assert_stats(pr, 0, 0, 0);

	ck_assert_int_eq(fsn_prober_probe(pr, t.dir, NULL, &p), 0);
	assert_stats(pr, 1, 0, 1);
	ck_assert_int_eq(fsn_probe_path(t.dir, &direct), 0);
	assert_same_probe(&p, &direct, "directory");

	ck_assert_int_eq(fsn_prober_probe(pr, sub, NULL, &p), 0);
	ck_assert_int_eq(fsn_prober_probe(pr, t.file, NULL, &p), 0);
	assert_stats(pr, 1, 2, 1);
	ck_assert_int_eq(fsn_probe_path(t.file, &direct), 0);
	assert_same_probe(&p, &direct, "file from the cache");

	ck_assert_int_eq(fsn_prober_probe(pr, fifo, NULL, &p), 0);
	assert_stats(pr, 2, 2, 2);
	ck_assert_int_eq(fsn_probe_path(fifo, &direct), 0);
	assert_same_probe(&p, &direct, "fifo");
	ck_assert_int_eq(p.feat[FSN_FEAT_PRE_ACCESS].support, FSN_NOT_PROBED);

	ck_assert_int_eq(fsn_prober_probe(pr, "/proc/self/status", NULL, &p), 0);
	assert_stats(pr, 3, 2, 3);
	ck_assert_int_eq(fsn_probe_path("/proc/self/status", &direct), 0);
	assert_same_probe(&p, &direct, "procfs");

	ck_assert_int_eq(fsn_prober_probe(pr, "/nonexistent-fsn-probe/x", NULL, &p), -ENOENT);
	ck_assert_int_eq(fsn_prober_probe(NULL, t.dir, NULL, &p), -EINVAL);
	/* nothing changed under it */
	ck_assert_uint_eq(fsn_prober_revalidate(pr), 0);
	assert_stats(pr, 3, 2, 3);
	fsn_prober_free(pr);
	ck_assert_uint_eq(count_fds(), before);
	unlink(fifo);
	rmdir(sub);
	tmpdir_remove(&t);
}
END_TEST

/* In a child: fill the cache with dir's filesystem, then allow no system
 * call but exit and probe path (st taken before). Exit 0 when the answer
 * equals the first; killed by SIGSYS when the prober made a call. */
static int probe_without_syscalls(const char *dir, const char *path) {
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 1, 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]),
					   .filter = filter };
		struct fsn_prober *pr = NULL;
		struct fsn_probe first, again;
		struct stat st;

		if (fsn_prober_new(&pr) < 0 || fsn_prober_probe(pr, dir, NULL, &first) < 0 ||
		    stat(path, &st) < 0)
			_exit(2);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(77);
		/* exit_group itself, not _exit(): a sanitizer's _exit() hook
		 * (leak check) makes calls of its own */
		if (fsn_prober_probe(pr, path, &st, &again) < 0)
			syscall(SYS_exit_group, 3);
		syscall(SYS_exit_group, memcmp(&first, &again, sizeof(first)) == 0 ? 0 : 4);
		_exit(5);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(test_prober_no_syscall) {
	struct tmpdir t;
	int status;

	tmpdir_make(&t);
	status = probe_without_syscalls(t.dir, t.file);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		tmpdir_remove(&t);
		if (!check_forks())
			return;
		fsn_test_skip("cannot install a seccomp filter here");
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "a cached probe: status 0x%x (SIGSYS: it made a system call)", status);
	/* the filter does catch a probe that is not cached */
	status = probe_without_syscalls(t.dir, "/proc/self/status");
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "an uncached probe under the filter: status 0x%x, want SIGSYS", status);
	tmpdir_remove(&t);
}
END_TEST

/* A result is forgotten when its path shows another filesystem or mount
 * (one mounted over it, or the one below after an unmount: an st_dev can
 * come back for another filesystem), and probed anew. Runs in a child with a mount
 * namespace of its own; exit status = the step that failed. */
START_TEST(test_prober_revalidate) {
	struct tmpdir t;
	int status;
	pid_t pid;

	if (geteuid() != 0 || !has_cap_sys_admin()) {
		if (!check_forks())
			return;
		fsn_test_skip("needs root with CAP_SYS_ADMIN (mount namespace, tmpfs)");
	}
	tmpdir_make(&t);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct fsn_prober *pr = NULL;
		struct fsn_prober_stats st;
		struct fsn_probe p;
		char sub[96];

		snprintf(sub, sizeof(sub), "%s/sub", t.dir);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("fsn-test", t.dir, "tmpfs", 0, "mode=0755,size=1m") < 0 ||
		    mkdir(sub, 0755) < 0)
			_exit(77);
		if (fsn_prober_new(&pr) < 0 || fsn_prober_probe(pr, sub, NULL, &p) < 0 ||
		    fsn_prober_probe(pr, "/proc/self/status", NULL, &p) < 0)
			_exit(1);
		fsn_prober_get_stats(pr, &st);
		if (st.probes != 2 || fsn_prober_revalidate(pr) != 0)
			_exit(2); /* nothing changed yet */
		/* another tmpfs over it: sub exists, on another filesystem */
		if (mount("fsn-test", t.dir, "tmpfs", 0, "mode=0755,size=1m") < 0 ||
		    mkdir(sub, 0755) < 0)
			_exit(77);
		if (fsn_prober_revalidate(pr) != 1)
			_exit(3);
		if (fsn_prober_probe(pr, sub, NULL, &p) < 0)
			_exit(4);
		fsn_prober_get_stats(pr, &st);
		if (st.probes != 3 || st.entries != 2)
			_exit(5);
		/* unmounted: sub is the first tmpfs's again */
		if (umount2(t.dir, MNT_DETACH) < 0)
			_exit(77);
		if (fsn_prober_revalidate(pr) != 1)
			_exit(6);
		fsn_prober_get_stats(pr, &st);
		if (st.entries != 1 || fsn_prober_revalidate(pr) != 0)
			_exit(7); /* procfs stays */
		fsn_prober_free(pr);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	tmpdir_remove(&t);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		if (!check_forks())
			return;
		fsn_test_skip("cannot unshare the mount namespace or mount tmpfs here");
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "revalidation: failed at step %d (status 0x%x)", WEXITSTATUS(status), status);
}
END_TEST

/* Kernel tests get a TCase each, so the runner's SKIP line names them. */
static void add_kernel_test(Suite *s, const char *name, const TTest *t) {
	TCase *tc = tcase_create(name);

	tcase_add_test(tc, t);
	suite_add_tcase(s, tc);
}

static void probe_suite(Suite *s) {
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_support_names);
	tcase_add_test(tc, test_feature_names);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_describe_truncation);
	suite_add_tcase(s, tc);

	add_kernel_test(s, "bad_path", test_probe_bad_path);
	add_kernel_test(s, "no_side_effects", test_probe_no_side_effects);
	add_kernel_test(s, "tmp_admin", test_probe_tmp_admin);
	add_kernel_test(s, "tmp_unprivileged", test_probe_tmp_unprivileged);
	add_kernel_test(s, "tmpfs", test_probe_tmpfs);
	add_kernel_test(s, "procfs", test_probe_procfs);
	add_kernel_test(s, "prober_cache", test_prober_cache);
	add_kernel_test(s, "prober_no_syscall", test_prober_no_syscall);
	add_kernel_test(s, "prober_revalidate", test_prober_revalidate);
}
FSN_UNIT_SUITE("probe", probe_suite);
