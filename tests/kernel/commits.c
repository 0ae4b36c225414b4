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
	{ NULL, NULL },
};
