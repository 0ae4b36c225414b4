// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * floors.c — what a kernel must support, so that a regression cannot hide
 * as a skip.
 *
 * The feature probe decides whether a case runs: a kernel or filesystem
 * that refuses a feature skips the cases that need it. That is right for a
 * kernel older than the feature (or a backport that lacks it), and wrong
 * for one that has it and broke it: a patch that makes FAN_MARK_FILESYSTEM
 * fail would turn every case that needs it into a skip. So each feature has
 * a floor: the mainline release from which the filesystem under test
 * supports it, and the commit that brought it (linux.git's abbreviation,
 * its subject in commits.c; where the id is not pinned here, the subject
 * alone, or the release for what fanotify and inotify had from the start). A probe that
 * says "unsupported" on a kernel at or above the floor fails the case
 * (fixture.c require_result()). Older kernels still probe: a backport runs
 * the cases, never compared with uname.
 *
 * A floor is the earliest release this project has seen the feature on
 * that filesystem, never earlier than the commit: where the commit's own
 * release is not known to support it on a filesystem (tmpfs file handles
 * with a usable fsid), the floor is the oldest kernel the suite passed on
 * (Debian's 6.1). Features that a kernel option can leave out
 * (CONFIG_FANOTIFY_ACCESS_PERMISSIONS) name it: a kernel whose config file
 * (/boot/config-RELEASE) says it is not set may skip them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "selftest-private.h"

#define ANY NULL /* every filesystem the suite runs on */
#define PERM "CONFIG_FANOTIFY_ACCESS_PERMISSIONS"
#define FIRST_FANOTIFY "fanotify's first release (Linux 2.6.37)"
#define DISKS "ext4,xfs,btrfs"
#define DIRENT "fanotify: add support for create/attrib/move/delete events"
#define FS_ERROR "fanotify: Allow users to request FAN_FS_ERROR events"

const struct fst_floor fst_floors[] = {
	{ FSN_FEAT_FANOTIFY, ANY, 2, 6, NULL, FIRST_FANOTIFY, NULL },
	{ FSN_FEAT_CLASS_CONTENT, ANY, 2, 6, NULL, FIRST_FANOTIFY, PERM },
	{ FSN_FEAT_CLASS_PRE_CONTENT, ANY, 2, 6, NULL, FIRST_FANOTIFY, PERM },
	{ FSN_FEAT_UNLIMITED_QUEUE, ANY, 2, 6, NULL, FIRST_FANOTIFY, NULL },
	{ FSN_FEAT_MARK_INODE, ANY, 2, 6, NULL, FIRST_FANOTIFY, NULL },
	{ FSN_FEAT_MARK_MOUNT, ANY, 2, 6, NULL, FIRST_FANOTIFY, NULL },
	{ FSN_FEAT_PERM_OPEN, ANY, 2, 6, NULL, FIRST_FANOTIFY, PERM },
	{ FSN_FEAT_PERM_ACCESS, ANY, 2, 6, NULL, FIRST_FANOTIFY, PERM },
	{ FSN_FEAT_INOTIFY, ANY, 2, 6, NULL, "inotify's first release (Linux 2.6.13)", NULL },
	{ FSN_FEAT_INOTIFY_MASK_CREATE, ANY, 4, 19, "4d97f7d53da7", NULL, NULL },
	{ FSN_FEAT_MARK_FILESYSTEM, ANY, 4, 20, "d54f4fba889b", NULL, NULL },
	{ FSN_FEAT_REPORT_TID, ANY, 4, 20, "d0a6a87e40da", NULL, NULL },
	{ FSN_FEAT_EVENT_OPEN_EXEC, ANY, 5, 0, NULL,
	  "fanotify: introduce new event mask FAN_OPEN_EXEC", NULL },
	{ FSN_FEAT_PERM_OPEN_EXEC, ANY, 5, 0, NULL,
	  "fanotify: introduce new event mask FAN_OPEN_EXEC_PERM", PERM },
	{ FSN_FEAT_REPORT_FID, ANY, 5, 1, "a8b13aa20afb", NULL, NULL },
	{ FSN_FEAT_REPORT_DIR_FID, ANY, 5, 9, "83b7a59896dd", NULL, NULL },
	{ FSN_FEAT_REPORT_DFID_NAME, ANY, 5, 9, "929943b38daf", NULL, NULL },
	{ FSN_FEAT_REPORT_PIDFD, ANY, 5, 15, "af579beb666a", NULL, NULL },
	{ FSN_FEAT_REPORT_TARGET_FID, ANY, 5, 17, "d61fd650e9d2", NULL, NULL },
	{ FSN_FEAT_MARK_EVICTABLE, ANY, 5, 19, "7d5e005d9825", NULL, NULL },
	{ FSN_FEAT_MARK_IGNORE, ANY, 6, 0, "e252f2ed1c8c", NULL, NULL },
	{ FSN_FEAT_REPORT_FD_ERROR, ANY, 6, 13, "522249f05c55", NULL, NULL },
	{ FSN_FEAT_DENY_ERRNO, ANY, 6, 14, "b4b2ff4f61de", NULL, PERM },
	/* file handles: the disk filesystems since FID reporting, tmpfs as
	 * seen here */
	{ FSN_FEAT_MARK_FID, DISKS, 5, 1, "a8b13aa20afb", NULL, NULL },
	{ FSN_FEAT_MARK_FID, "tmpfs", 6, 1, "a8b13aa20afb", NULL, NULL },
	{ FSN_FEAT_EVENT_DIRENT, DISKS, 5, 1, NULL, DIRENT, NULL },
	{ FSN_FEAT_EVENT_DIRENT, "tmpfs", 6, 1, NULL, DIRENT, NULL },
	{ FSN_FEAT_EVENT_RENAME, DISKS, 5, 17, "8cc3b1ccd930", NULL, NULL },
	{ FSN_FEAT_EVENT_RENAME, "tmpfs", 6, 1, "8cc3b1ccd930", NULL, NULL },
	{ FSN_FEAT_EVENT_FS_ERROR, DISKS, 5, 16, NULL, FS_ERROR, NULL },
	{ FSN_FEAT_EVENT_FS_ERROR, "tmpfs", 6, 1, NULL, FS_ERROR, NULL },
	/* pre-content events: the filesystems that allow them (not tmpfs) */
	{ FSN_FEAT_PRE_ACCESS, DISKS, 6, 14, "4f8afa33817a", NULL, PERM },
	{ 0, NULL, 0, 0, NULL, NULL, NULL },
};

const char *fst_floor_subject(const struct fst_floor *fl) {
	if (fl->subject)
		return fl->subject;
	for (const struct fst_commit *c = fst_commits; c->id; c++)
		if (strcmp(c->id, fl->commit) == 0)
			return c->subject;
	return "?";
}

/* The running kernel's major.minor, once (0.0: cannot tell). */
static void kernel_version(unsigned *major, unsigned *minor) {
	static unsigned ma, mi;
	static bool done;

	if (!done) {
		struct utsname u;

		if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
			ma = mi = 0;
		done = true;
	}
	*major = ma;
	*minor = mi;
}

/* Whether the kernel's config file says option is not set (1), set (0),
 * or cannot tell (-1: no /boot/config-RELEASE). */
static int config_unset(const char *option) {
	char path[300], line[512], unset[128];
	struct utsname u;
	int r = -1;
	FILE *f;

	if (uname(&u) < 0)
		return -1;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f)
		return -1;
	snprintf(unset, sizeof(unset), "# %s is not set", option);
	while (r < 0 && fgets(line, sizeof(line), f)) {
		size_t n = strlen(option);

		if (strncmp(line, unset, strlen(unset)) == 0)
			r = 1;
		else if (strncmp(line, option, n) == 0 && line[n] == '=')
			r = 0;
	}
	fclose(f);
	return r < 0 ? 1 : r; /* (a config file that does not name it: not set) */
}

/* Whether name is one of list's comma separated words. */
static bool in_list(const char *list, const char *name) {
	size_t n = name ? strlen(name) : 0;

	for (const char *p = list; p && *p && n; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && strncmp(p, name, n) == 0)
			return true;
	return false;
}

/* Features the environment says to take as refused (FSN_SELFTEST_BREAK,
 * a test of the suite itself: the runner makes the probe say "unsupported
 * by this kernel"), or that a kernel built without them lacks
 * (FSN_SELFTEST_NO_FLOOR): comma separated fsn_feature_name()s. */
static bool listed(const char *env, enum fsn_feature f) {
	return in_list(getenv(env), fsn_feature_name(f));
}

bool fst_probe_broken(enum fsn_feature f) {
	return listed("FSN_SELFTEST_BREAK", f);
}

const struct fst_floor *fst_floor_applies(enum fsn_feature f, const char *fs) {
	unsigned ma, mi;

	kernel_version(&ma, &mi);
	if (listed("FSN_SELFTEST_NO_FLOOR", f))
		return NULL;
	for (const struct fst_floor *fl = fst_floors; fl->major; fl++) {
		if (fl->feat != f || (fl->fs && !in_list(fl->fs, fs)))
			continue;
		if (ma < fl->major || (ma == fl->major && mi < fl->minor))
			return NULL;
		if (fl->config && config_unset(fl->config) == 1)
			return NULL;
		return fl;
	}
	return NULL;
}

static const char *release(const struct fst_floor *fl) {
	static char text[16];

	snprintf(text, sizeof(text), "%u.%u", fl->major, fl->minor);
	return text;
}

void fst_floors_print(FILE *f) {
	for (const struct fst_floor *fl = fst_floors; fl->major; fl++)
		fprintf(f, "%-22s %-14s %-5s %-12s %s%s%s%s\n", fsn_feature_name(fl->feat),
			fl->fs ? fl->fs : "*", release(fl), fl->commit ? fl->commit : "-",
			fst_floor_subject(fl), fl->config ? " [" : "", fl->config ? fl->config : "",
			fl->config ? "]" : "");
}
