/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.c — small helpers with no better home: the version string, bounded
 * string appending for the formatters, errno names.
 */
#include <stdio.h>

#include "config.h"
#include "fsn-private.h"

_public_ const char *fsn_version(void) {
	return FSN_VERSION;
}

void fsn_append(char *buf, size_t len, size_t *pos, const char *fmt, ...) {
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (*pos < len)
		n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
	if (len > 0 && *pos >= len)
		buf[len - 1] = '\0';
}

const char *fsn_errno_name(int err) {
	switch (err < 0 ? -err : err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EIO: return "EIO";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ENFILE: return "ENFILE";
	case EMFILE: return "EMFILE";
	case ENOSPC: return "ENOSPC";
	case EROFS: return "EROFS";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOSYS: return "ENOSYS";
	case ELOOP: return "ELOOP";
	case EBADMSG: return "EBADMSG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESTALE: return "ESTALE";
	case EAGAIN: return "EAGAIN";
	case EOVERFLOW: return "EOVERFLOW";
	default: return NULL;
	}
}
