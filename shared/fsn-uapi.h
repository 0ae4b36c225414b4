/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsn-uapi.h — the one fallback header for fanotify/inotify UAPI constants.
 *
 * The build machine's kernel headers may be older than the kernel the code
 * runs on (Debian 12 ships 6.1 headers). Everything newer is defined here,
 * each under #ifndef, with the value from the kernel's
 * include/uapi/linux/fanotify.h. Whether the running kernel supports a
 * constant is decided by probing (probe.c), never by these definitions.
 *
 * Private to the project (lib/, tests/, bench/, daemon/); not installed.
 */
#pragma once

#include <linux/types.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>

/* ---- events (5.x additions that very old headers lack) ---- */
#ifndef FAN_ATTRIB
#define FAN_ATTRIB 0x00000004
#endif
#ifndef FAN_MOVED_FROM
#define FAN_MOVED_FROM 0x00000040
#define FAN_MOVED_TO 0x00000080
#define FAN_CREATE 0x00000100
#define FAN_DELETE 0x00000200
#define FAN_DELETE_SELF 0x00000400
#define FAN_MOVE_SELF 0x00000800
#endif
#ifndef FAN_OPEN_EXEC
#define FAN_OPEN_EXEC 0x00001000
#endif
#ifndef FAN_OPEN_EXEC_PERM
#define FAN_OPEN_EXEC_PERM 0x00040000
#endif
#ifndef FAN_FS_ERROR
#define FAN_FS_ERROR 0x00008000 /* 5.16 */
#endif
#ifndef FAN_RENAME
#define FAN_RENAME 0x10000000 /* 5.17 */
#endif
#ifndef FAN_PRE_ACCESS
#define FAN_PRE_ACCESS 0x00100000 /* 6.14 */
#endif
#ifndef FAN_MNT_ATTACH
#define FAN_MNT_ATTACH 0x01000000 /* 6.15, mount namespace marks */
#define FAN_MNT_DETACH 0x02000000
#endif

/* ---- fanotify_init() flags ---- */
#ifndef FAN_ENABLE_AUDIT
#define FAN_ENABLE_AUDIT 0x00000040
#endif
#ifndef FAN_REPORT_PIDFD
#define FAN_REPORT_PIDFD 0x00000080 /* 5.15 */
#endif
#ifndef FAN_REPORT_TID
#define FAN_REPORT_TID 0x00000100
#endif
#ifndef FAN_REPORT_FID
#define FAN_REPORT_FID 0x00000200
#endif
#ifndef FAN_REPORT_DIR_FID
#define FAN_REPORT_DIR_FID 0x00000400
#endif
#ifndef FAN_REPORT_NAME
#define FAN_REPORT_NAME 0x00000800
#endif
#ifndef FAN_REPORT_DFID_NAME
#define FAN_REPORT_DFID_NAME (FAN_REPORT_DIR_FID | FAN_REPORT_NAME)
#endif
#ifndef FAN_REPORT_TARGET_FID
#define FAN_REPORT_TARGET_FID 0x00001000 /* 5.17 */
#endif
#ifndef FAN_REPORT_DFID_NAME_TARGET
#define FAN_REPORT_DFID_NAME_TARGET (FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID)
#endif
#ifndef FAN_REPORT_FD_ERROR
#define FAN_REPORT_FD_ERROR 0x00002000 /* 6.13 */
#endif
#ifndef FAN_REPORT_MNT
#define FAN_REPORT_MNT 0x00004000 /* 6.14 */
#endif

/* ---- fanotify_mark() flags ---- */
#ifndef FAN_MARK_FILESYSTEM
#define FAN_MARK_FILESYSTEM 0x00000100
#endif
#ifndef FAN_MARK_EVICTABLE
#define FAN_MARK_EVICTABLE 0x00000200 /* 5.19 */
#endif
#ifndef FAN_MARK_IGNORE
#define FAN_MARK_IGNORE 0x00000400 /* 6.0 */
#endif
#ifndef FAN_MARK_IGNORE_SURV
#define FAN_MARK_IGNORE_SURV (FAN_MARK_IGNORE | FAN_MARK_IGNORED_SURV_MODIFY)
#endif
#ifndef FAN_MARK_MNTNS
#define FAN_MARK_MNTNS 0x00000110 /* 6.14 */
#endif

/* ---- info records ---- */
#ifndef FAN_EVENT_INFO_TYPE_FID
#define FAN_EVENT_INFO_TYPE_FID 1
#endif
#ifndef FAN_EVENT_INFO_TYPE_DFID_NAME
#define FAN_EVENT_INFO_TYPE_DFID_NAME 2
#define FAN_EVENT_INFO_TYPE_DFID 3
#endif
#ifndef FAN_EVENT_INFO_TYPE_PIDFD
#define FAN_EVENT_INFO_TYPE_PIDFD 4
#endif
#ifndef FAN_EVENT_INFO_TYPE_ERROR
#define FAN_EVENT_INFO_TYPE_ERROR 5
#endif
#ifndef FAN_EVENT_INFO_TYPE_RANGE
#define FAN_EVENT_INFO_TYPE_RANGE 6 /* 6.14 */
#endif
#ifndef FAN_EVENT_INFO_TYPE_MNT
#define FAN_EVENT_INFO_TYPE_MNT 7 /* 6.14 */
#endif
#ifndef FAN_EVENT_INFO_TYPE_OLD_DFID_NAME
#define FAN_EVENT_INFO_TYPE_OLD_DFID_NAME 10
#define FAN_EVENT_INFO_TYPE_NEW_DFID_NAME 12
#endif

/* Our own copies of the info record layouts, so they exist whatever the
 * headers have (identical to the kernel's, prefixed fsn_uapi_). */
struct fsn_uapi_info_header {
	__u8 info_type;
	__u8 pad;
	__u16 len;
};

struct fsn_uapi_info_fid {
	struct fsn_uapi_info_header hdr;
	__s32 fsid[2];
	/* struct file_handle follows: __u32 handle_bytes, __s32 handle_type, bytes */
};

struct fsn_uapi_info_pidfd {
	struct fsn_uapi_info_header hdr;
	__s32 pidfd;
};

struct fsn_uapi_info_error {
	struct fsn_uapi_info_header hdr;
	__s32 error;
	__u32 error_count;
};

struct fsn_uapi_info_range {
	struct fsn_uapi_info_header hdr;
	__u32 pad;
	__u64 offset;
	__u64 count;
};

struct fsn_uapi_info_mnt {
	struct fsn_uapi_info_header hdr;
	__u64 mnt_id;
};

/* ---- responses ---- */
#ifndef FAN_AUDIT
#define FAN_AUDIT 0x10
#endif
#ifndef FAN_INFO
#define FAN_INFO 0x20 /* 6.3 */
#endif
#ifndef FAN_ERRNO_BITS
#define FAN_ERRNO_BITS 8 /* 6.14 */
#define FAN_ERRNO_SHIFT (32 - FAN_ERRNO_BITS)
#define FAN_ERRNO_MASK ((1 << FAN_ERRNO_BITS) - 1)
#define FAN_DENY_ERRNO(err) (FAN_DENY | ((((__u32)(err)) & FAN_ERRNO_MASK) << FAN_ERRNO_SHIFT))
#endif
#ifndef FAN_NOPIDFD
#define FAN_NOPIDFD FAN_NOFD
#define FAN_EPIDFD -2
#endif
#ifndef PIDFS_MAGIC
#define PIDFS_MAGIC 0x50494446 /* 6.9: pidfds have inodes of their own */
#endif

/* ---- inotify ---- */
#ifndef IN_MASK_CREATE
#define IN_MASK_CREATE 0x10000000 /* 4.18 */
#endif
