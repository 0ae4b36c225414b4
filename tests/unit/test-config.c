/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "unit.h"

Suite *fsn_suite_config(void) {
	return suite_create("config");
}
