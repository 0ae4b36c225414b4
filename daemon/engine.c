/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.c — placeholder, being written. */
typedef int placeholder_engine;
