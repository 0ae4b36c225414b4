/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h — a record as the daemon's Watch sends it (the json output's
 * object, escape.h record_to_json()) back into a struct record, to print it
 * with the console's formatter (record_to_text()): fsnotifyctl watch
 * prints what fsnotifyd --foreground prints (record.c). Pure.
 */
#pragma once

#include <stddef.h>

#include "json.h"

/* The console line of rec (ending in '\n') as a malloc'd string in *ret.
 * Paths given as *_b64 are decoded to their exact bytes first. 0, -EINVAL
 * (not an object, or an unknown "kind"), -ENOMEM. */
int ctl_record_text(const struct json *rec, char **ret);

/* Decode standard base64 (padding optional); NUL terminated, malloc'd.
 * NULL when s is not base64 or on ENOMEM. */
char *ctl_base64_decode(const char *s, size_t *ret_len);
