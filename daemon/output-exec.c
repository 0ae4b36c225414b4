/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output-exec.c — placeholder, being written. */
typedef int placeholder_output_exec;
