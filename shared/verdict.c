/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verdict.c — a permission verdict as text (verdict_format(),
 * verdict_errno_name()) and the errnos a deny(ERRNO) verdict may carry
 * (deny_errnos[]): verdict.h. Pure, and apart from the config parser and
 * the policy: the record formatters (escape.c) need it, and with them it
 * is the record library fsnotifyd and fsnotifyctl both link.
 */
#include <errno.h>
#include <stdio.h>

#include "fsn-util.h"
#include "verdict.h"

/* The errnos FAN_DENY_ERRNO() takes (the kernel refuses others). */
const struct deny_errno deny_errnos[] = {
	{ EIO, "EIO" },       { EPERM, "EPERM" },   { EBUSY, "EBUSY" },   { ETXTBSY, "ETXTBSY" },
	{ EAGAIN, "EAGAIN" }, { ENOSPC, "ENOSPC" }, { EDQUOT, "EDQUOT" },
};
const size_t n_deny_errnos = ELEMENTSOF(deny_errnos);

const char *verdict_errno_name(int err) {
	for (size_t i = 0; i < n_deny_errnos; i++)
		if (deny_errnos[i].err == err)
			return deny_errnos[i].name;
	return NULL;
}

const char *verdict_format(const struct verdict *v, char *buf, size_t len) {
	const char *name = v->err ? verdict_errno_name(v->err) : NULL;

	if (!v->deny)
		snprintf(buf, len, "%s", v->audit ? "audit" : "allow");
	else if (name)
		snprintf(buf, len, "deny(%s)%s", name, v->audit ? "+audit" : "");
	else
		snprintf(buf, len, "deny%s", v->audit ? "+audit" : "");
	return buf;
}
