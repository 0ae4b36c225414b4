/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loopdev.c — see loopdev.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loopdev.h"

int loop_attach(int backing, char *dev, size_t len, int *ret_fd) {
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int r = -EBUSY;

	if (ctl < 0)
		return -errno;
	for (int attempt = 0; attempt < 16; attempt++) {
		struct loop_config cfg = { .fd = (unsigned)backing };
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), fd;

		if (n < 0) {
			r = -errno;
			break;
		}
		snprintf(dev, len, "/dev/loop%d", n);
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && mknod(dev, S_IFBLK | 0600, makedev(7, n)) == 0)
			fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			*ret_fd = fd;
			close(ctl);
			return 0;
		}
		r = -errno;
		if (errno == EINVAL || errno == ENOTTY) {
			/* before 5.8: LOOP_SET_FD + LOOP_SET_STATUS64 */
			struct loop_info64 info = { .lo_flags = LO_FLAGS_AUTOCLEAR };

			if (ioctl(fd, LOOP_SET_FD, backing) == 0) {
				if (ioctl(fd, LOOP_SET_STATUS64, &info) == 0) {
					*ret_fd = fd;
					close(ctl);
					return 0;
				}
				r = -errno;
				ioctl(fd, LOOP_CLR_FD, 0);
				close(fd);
				break;
			}
			r = -errno;
		}
		close(fd);
		if (r != -EBUSY)
			break;
	}
	close(ctl);
	return r;
}

bool find_tool(const char *name, char *out, size_t len) {
	const char *path = getenv("PATH");
	char buf[4096];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s:/usr/local/sbin:/usr/sbin:/sbin",
		 path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", *d ? d : ".", name);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}
