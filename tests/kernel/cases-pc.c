/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-pc.c — fsn-selftest cases of the PC group: parent and child (FS_EVENT_ON_CHILD),
 * PC01-PC08 in semantics.md. Empty for now; see README.md for how to
 * add a case.
 */
#include "selftest.h"

const struct fst_case fst_cases_pc[] = {
	{ 0 },
};
