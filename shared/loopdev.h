/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loopdev.h — a loop block device over a file, and the program that makes
 * a filesystem on it: the filesystems fsn-selftest tests on and the one
 * `fsn-bench hooks --fs` runs its workloads on.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Find program name in PATH, then /usr/local/sbin, /usr/sbin, /sbin (the
 * mkfs tools live there and root's PATH may lack them): its path into
 * out, true; false when none is executable. */
bool find_tool(const char *name, char *out, size_t len);

/* Attach backing (an fd of a regular file) to a free loop device, with
 * LO_FLAGS_AUTOCLEAR (it goes away with the last close or unmount): its
 * path into dev, its fd into *ret_fd. 0 or -errno. (LOOP_CONFIGURE, or
 * LOOP_SET_FD and LOOP_SET_STATUS64 before 5.8; a device taken meanwhile
 * by someone else: the next free one.) */
int loop_attach(int backing, char *dev, size_t len, int *ret_fd);
