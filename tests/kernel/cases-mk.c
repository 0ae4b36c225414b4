/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-mk.c — fsn-selftest cases of the MK group: marks, delivery and mark types,
 * MK01-MK10 in semantics.md. Empty for now; see README.md for how to
 * add a case.
 */
#include "selftest.h"

const struct fst_case fst_cases_mk[] = {
	{ 0 },
};
