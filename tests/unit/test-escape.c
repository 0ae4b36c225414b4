/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "unit.h"

Suite *fsn_suite_escape(void) {
	return suite_create("escape");
}
