// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * commits.c — the upstream commits cases guard, with their subjects.
 *
 * A case names commits in its table entry (FST_CASE_GIT()): the commit that
 * introduced the behaviour it checks, or the fix that restored it after a
 * regression, so that a kernel developer whose patch fails the case is
 * pointed at the history. Each id is linux.git's 12-character abbreviation;
 * the subject is the commit's first line. The runner refuses a case naming
 * an id missing here, and an entry here no case names.
 */
#include "selftest.h"

const struct fst_commit fst_commits[] = {
	{ "05f0e38724e8", "fanotify: Release SRCU lock when waiting for userspace response" },
	{ "066e053fe208", "fsnotify: add pre-content hooks on mmap()" },
	{ "28bba2c2935e", "fsnotify: Pass correct offset to fsnotify_mmap_perm()" },
	{ "2f02fd3fa13e", "fanotify: fix ignore mask logic for events on child and on dir" },
	{ "497b0c5a7c06", "fsnotify: send event to parent and child with single callback" },
	{ "54a307ba8d3c", "fanotify: fix logic of events on child" },
	{ "55bf882c7f13", "fanotify: fix merging marks masks with FAN_ONDIR" },
	{ "691d976352c7", "fanotify: report parent fid + child fid" },
	{ "69562eb0bd3e", "fanotify: disallow mount/sb marks on kernel internal pseudo fs" },
	{ "7372e79c9eb9", "fanotify: fix logic of reporting name info with watched parent" },
	{ "7d5e005d9825", "fanotify: implement \"evictable\" inode marks" },
	{ "83b7a59896dd", "fanotify: add basic support for FAN_REPORT_DIR_FID" },
	{ "8698e3bab4dd", "fanotify: refine the validation checks on non-dir inode mask" },
	{ "8edc6e1688fc", "fanotify: fix notification of groups with inode & mount marks" },
	{ "8f2f3eb59dff", "fsnotify: fix oops in fsnotify_clear_marks_by_group_flags()" },
	{ "929943b38daf", "fanotify: add support for FAN_REPORT_NAME" },
	{ "96d41019e3ac", "fanotify: fix list corruption in fanotify_get_response()" },
	{ "9bdda4e9cf2d", "fsnotify: fix ignore mask logic in fsnotify()" },
	{ "a32e697cda27", "inotify: show inotify mask flags in proc fdinfo" },
	{ "a37d9a17f099", "fsnotify: invalidate dcache before IN_DELETE event" },
	{ "a8b13aa20afb", "fanotify: enable FAN_REPORT_FID init flag" },
	{ "a8b98c808eab", "fanotify: fix permission model of unprivileged group" },
	{ "af579beb666a", "fanotify: add pidfd support to the fanotify API" },
	{ "b469e7e47c8a", "fanotify: fix handling of events on child sub-directory" },
	{ "c285a2f01d69", "fanotify: update connector fsid cache on add mark" },
	{ "ceaf69f8eadc", "fanotify: do not allow setting dirent events in mask of non-dir" },
	{ "d90a10e2444b", "fsnotify: Fix fsnotify_mark_connector race" },
	{ "e730558adffb", "fsnotify: consistent behavior for parent not watching children" },
	{ "e7fce6d94cc1", "fanotify: report FAN_ONDIR to listener with FAN_REPORT_FID" },
	{ "f367a62a7cad", "fanotify: merge duplicate events on parent and child" },
	{ "fecc4559780d", "fsnotify: fix events reported to watching parent and child" },
	{ NULL, NULL },
};
