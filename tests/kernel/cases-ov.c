/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-ov.c — fsn-selftest cases of the OV group: overflow, limits, errors,
 * OV01-OV04 in semantics.md. Empty for now; see README.md for how to
 * add a case.
 */
#include "selftest.h"

const struct fst_case fst_cases_ov[] = {
	{ 0 },
};
