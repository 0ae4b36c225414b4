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
	{ "124e7c61deb2", "ext4: fix error code saved on super block during file system abort" },
	{ "76486b104168", "ext4: avoid remount errors with 'abort' mount option" },
	{ "c285a2f01d69", "fanotify: update connector fsid cache on add mark" },
	{ "8698e3bab4dd", "fanotify: refine the validation checks on non-dir inode mask" },
	{ "a8b98c808eab", "fanotify: fix permission model of unprivileged group" },
	{ "ceaf69f8eadc", "fanotify: do not allow setting dirent events in mask of non-dir" },
	{ "2f02fd3fa13e", "fanotify: fix ignore mask logic for events on child and on dir" },
	{ "55bf882c7f13", "fanotify: fix merging marks masks with FAN_ONDIR" },
	{ "9bdda4e9cf2d", "fsnotify: fix ignore mask logic in fsnotify()" },
	{ "b469e7e47c8a", "fanotify: fix handling of events on child sub-directory" },
	{ "e730558adffb", "fsnotify: consistent behavior for parent not watching children" },
	{ "8edc6e1688fc", "fanotify: fix notification of groups with inode & mount marks" },
	{ "d989903058a8", "ovl: do not generate duplicate fsnotify events for \"fake\" path" },
	{ "bc2473c90fca", "ovl: enable fsnotify events on underlying real files" },
	{ "c45beebfde34", "ovl: support encoding fid from inode with no alias" },
	{ "bb32500fb9b7", "tracing: Have trace_event_file have ref counters" },
	{ "05f0e38724e8", "fanotify: Release SRCU lock when waiting for userspace response" },
	{ "066e053fe208", "fsnotify: add pre-content hooks on mmap()" },
	{ "28bba2c2935e", "fsnotify: Pass correct offset to fsnotify_mmap_perm()" },
	{ "30ad1938326b", "fanotify: allow \"weak\" fsid when watching a single filesystem" },
	{ "497b0c5a7c06", "fsnotify: send event to parent and child with single callback" },
	{ "4d97f7d53da7", "inotify: Add flag IN_MASK_CREATE for inotify_add_watch()" },
	{ "4f8afa33817a", "fanotify: introduce FAN_PRE_ACCESS permission event" },
	{ "2a33e2ddc6eb", "splice: remove permission hook from do_splice_direct()" },
	{ "31747eda41ef", "ovl: hash directory inodes for fsnotify" },
	{ "764baba80168", "ovl: hash non-dir by lower inode for fsnotify" },
	{ "16aac5ad1fa9", "ovl: support encoding non-decodable file handles" },
	{ "17171128513b", "fanotify: report thread pidfds for FAN_REPORT_TID" },
	{ "5128063739d2", "fanotify: report events with parent dir fid to sb/mount/non-dir marks" },
	{ "522249f05c55", "fanotify: allow reporting errors on failure to open fd" },
	{ "54a307ba8d3c", "fanotify: fix logic of events on child" },
	{ "62c9d2674b31",
	  "inotify: Fix fsnotify_mark refcount leak in inotify_update_existing_watch()" },
	{ "691d976352c7", "fanotify: report parent fid + child fid" },
	{ "69562eb0bd3e", "fanotify: disallow mount/sb marks on kernel internal pseudo fs" },
	{ "7372e79c9eb9", "fanotify: fix logic of reporting name info with watched parent" },
	{ "7cea2a3c505e", "fanotify: support limited functionality for unprivileged users" },
	{ "7d5e005d9825", "fanotify: implement \"evictable\" inode marks" },
	{ "7e8283af6ede", "fanotify: report parent fid + name + child fid" },
	{ "83b7a59896dd", "fanotify: add basic support for FAN_REPORT_DIR_FID" },
	{ "870499bc1d4d", "fanotify: report file range info with pre-content events" },
	{ "8cc3b1ccd930", "fanotify: wire up FAN_RENAME event" },
	{ "8f2f3eb59dff", "fsnotify: fix oops in fsnotify_clear_marks_by_group_flags()" },
	{ "929943b38daf", "fanotify: add support for FAN_REPORT_NAME" },
	{ "96d41019e3ac", "fanotify: fix list corruption in fanotify_get_response()" },
	{ "a32e697cda27", "inotify: show inotify mask flags in proc fdinfo" },
	{ "a37d9a17f099", "fsnotify: invalidate dcache before IN_DELETE event" },
	{ "a8b13aa20afb", "fanotify: enable FAN_REPORT_FID init flag" },
	{ "af579beb666a", "fanotify: add pidfd support to the fanotify API" },
	{ "b4b2ff4f61de", "fanotify: allow to set errno in FAN_DENY permission response" },
	{ "d0a6a87e40da", "fanotify: support reporting thread id instead of process id" },
	{ "d54f4fba889b", "fanotify: add API to attach/detach super block mark" },
	{ "d61fd650e9d2", "fanotify: introduce group flag FAN_REPORT_TARGET_FID" },
	{ "d90a10e2444b", "fsnotify: Fix fsnotify_mark_connector race" },
	{ "e252f2ed1c8c", "fanotify: introduce FAN_MARK_IGNORE" },
	{ "e7fce6d94cc1", "fanotify: report FAN_ONDIR to listener with FAN_REPORT_FID" },
	{ "f367a62a7cad", "fanotify: merge duplicate events on parent and child" },
	{ "fecc4559780d", "fsnotify: fix events reported to watching parent and child" },
	{ NULL, NULL },
};
