/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verdict.h — a permission verdict (allow, deny, deny(ERRNO), audited or
 * not), its text and the errnos a deny(ERRNO) may carry (verdict.c). Part
 * of the record library (shared/meson.build, fsn-record): the config
 * parses verdicts into it, the guard answers with it, a decision record
 * carries one, and fsnotifyctl reads one back from the JSON line. Pure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A permission verdict: allow, or deny with an errno (0: plain FAN_DENY,
 * EPERM), each optionally audited (FAN_AUDIT). */
struct verdict {
	bool deny;
	int err; /* deny(ERRNO): the positive errno (FAN_DENY_ERRNO); 0: plain deny */
	bool audit;
};

/* The errnos a deny(ERRNO) verdict may carry, and their names: the kernel
 * accepts exactly these in FAN_DENY_ERRNO(). n_deny_errnos of them. */
struct deny_errno {
	int err;
	const char *name;
};
extern const struct deny_errno deny_errnos[];
extern const size_t n_deny_errnos;

/* "allow", "deny", "deny(EIO)", with "+audit" when audited; into buf. */
const char *verdict_format(const struct verdict *v, char *buf, size_t len);
/* The name of err if a deny(ERRNO) verdict may carry it (deny_errnos[]),
 * NULL if err is not one. */
const char *verdict_errno_name(int err);
