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
	{ "8edc6e1688fc", "fanotify: fix notification of groups with inode & mount marks" },
	{ "d989903058a8", "ovl: do not generate duplicate fsnotify events for \"fake\" path" },
	{ "bc2473c90fca", "ovl: enable fsnotify events on underlying real files" },
	{ "c45beebfde34", "ovl: support encoding fid from inode with no alias" },
	{ "bb32500fb9b7", "tracing: Have trace_event_file have ref counters" },
	{ NULL, NULL },
};
