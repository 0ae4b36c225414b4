/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cases-pe.c — fsn-selftest cases of the PE group: permission and pre-content events,
 * PE01-PE06 in semantics.md. Empty for now; see README.md for how to
 * add a case.
 */
#include "selftest.h"

const struct fst_case fst_cases_pe[] = {
	{ 0 },
};
