/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h — the daemon's own messages (not events: those go to outputs).
 * To stderr, with a "<N>" priority prefix sd-daemon(3) style when stderr is
 * the journal (JOURNAL_STREAM matches stderr), plain "fsnotifyd: " text
 * otherwise. Messages above the configured level are dropped.
 * Notable events (start, stop, reload, overflow, rule errors) also go to the
 * journal with a MESSAGE_ID, via log_notable().
 */
#pragma once

#include <syslog.h>

/* MESSAGE_IDs (128-bit, fixed forever; `journalctl MESSAGE_ID=...`). */
#define FSND_MID_START "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a01"
#define FSND_MID_STOP "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a02"
#define FSND_MID_RELOAD "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a03"
#define FSND_MID_RELOAD_FAILED "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a04"
#define FSND_MID_OVERFLOW "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a05"
#define FSND_MID_RULE_ERROR "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a06"
/* One per record kind of a journal output (the overflow record has
 * FSND_MID_OVERFLOW); each is in systemd/fsnotifyd.catalog. */
#define FSND_MID_EVENT "466805a6b38f40649f08fd745e1e6b81"
#define FSND_MID_DROPPED "72ca24d75e0045ac98659d4e820eee83"
#define FSND_MID_DECISION "c34b9ac4ae91425c9ffbbdd20d9f840a"
#define FSND_MID_STATS "9d3945bc1c80447a9070a9b63472ccdd"
#define FSND_MID_RESCAN "60495848454d400ca82e61d1472ddbe5"
#define FSND_MID_GONE "f09386e6e50d4b47bfca6839caab1d5f"
#define FSND_MID_UNMOUNTED "d604f5101e1a46a2bf42d9d52ff2a961"
#define FSND_MID_REARMED "d2ba5bb004f243f893741205ebf762bc"
#define FSND_MID_CONTENT "3f5d0c8e2b7a4e61a9d4c0b7e8f21a6c"
#define FSND_MID_BASELINE "f3bfd007713d4667aef2cf90dd9fc24c"

void log_set_level(int priority);
int log_get_level(void);
void log_msg(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* log_msg() plus, when a journal is reachable, a structured entry with
 * MESSAGE_ID=mid and the extra "KEY=value" fields (NULL-terminated). */
void log_notable(int priority, const char *mid, const char *const *fields, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
