/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-ig.c — fsn-selftest cases of the IG group: ignore masks,
 * IG01-IG08 in semantics.md. Empty for now; see README.md for how to
 * add a case.
 */
#include "selftest.h"

const struct fst_case fst_cases_ig[] = {
	{ 0 },
};
