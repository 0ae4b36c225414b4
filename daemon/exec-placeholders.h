/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec-placeholders.h — the placeholders of an exec output's argument
 * template, in one place: output-exec.c substitutes them (in this order:
 * placeholder_value() switches on the index), conf-parse.c checks a
 * config's templates against them, fsnotifyd.conf(5) lists them.
 */
#pragma once

#define EXEC_PLACEHOLDERS                                                                          \
	"path", "old_path", "rule", "events", "kind", "pid", "comm", "uid", "time", "tags",        \
	    "severity"

/* the same, as error messages list them */
#define EXEC_PLACEHOLDERS_TEXT                                                                     \
	"{path} {old_path} {rule} {events} {kind} {pid} {comm} {uid} {time} {tags} {severity}"
