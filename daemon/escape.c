/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.c — placeholder, being written. */
typedef int placeholder_escape;
