/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c — placeholder, being written. */
typedef int placeholder_config;
