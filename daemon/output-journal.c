/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output-journal.c — placeholder, being written. */
typedef int placeholder_output_journal;
