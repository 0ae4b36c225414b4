/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "unit.h"

Suite *fsn_suite_ctx(void) {
	return suite_create("ctx");
}

Suite *fsn_suite_ctx_fanotify(void) {
	return suite_create("ctx-fanotify");
}
