/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c — placeholder, being written. */
typedef int placeholder_plan;
