/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output-json.c — placeholder, being written. */
typedef int placeholder_output_json;
