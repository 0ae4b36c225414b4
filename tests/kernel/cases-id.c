/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-id.c — fsn-selftest cases of the ID group: identity and info records,
 * ID01-ID05 in semantics.md. Empty for now; see README.md for how to
 * add a case.
 */
#include "selftest.h"

const struct fst_case fst_cases_id[] = {
	{ 0 },
};
