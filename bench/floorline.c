/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floorline.c — see floorline.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floorline.h"

#define DIR_SLOTS 64              /* directory paths, by handle (direct mapped) */
#define PID_SLOTS 64              /* processes, by pid (direct mapped) */
#define PID_TTL_USEC 100000u      /* as fsnotifyd's PCACHE_TTL_USEC */
#define OUT_BUF (256 * 1024)      /* lines between two write()s */
#define LINE_MAX_BYTES (8 * 1024) /* room kept for one line (paths are escaped in place) */

struct dir_slot {
	bool used;
	int type;
	unsigned bytes;
	unsigned char handle[MAX_HANDLE_SZ];
	size_t len;
	char path[PATH_MAX];
};

struct pid_slot {
	pid_t pid; /* 0: empty */
	uint64_t at_usec;
	bool comm_ok, uid_ok;
	char comm[16];
	unsigned long uid;
};

struct floor_line {
	int mount_fd, out_fd;
	time_t stamp_sec;
	char stamp[32];
	char origin[512]; /* ,"host":..,"boot_id":..,"stream":"..","seq": */
	size_t origin_len;
	uint64_t seq;
	size_t len;
	struct dir_slot dirs[DIR_SLOTS];
	struct pid_slot pids[PID_SLOTS];
	char buf[OUT_BUF];
};

/* The hex digits of a file's first line (a machine or boot id), or "". */
static void id_of(const char *path, char *out, size_t size) {
	char line[128] = "";
	FILE *fp = fopen(path, "re");
	size_t n = 0;

	if (fp && !fgets(line, sizeof(line), fp))
		line[0] = '\0';
	if (fp)
		fclose(fp);
	for (const char *p = line; *p && n + 1 < size; p++)
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			out[n++] = *p;
	out[n] = '\0';
}

/* What fsnotifyd's JSON lines carry besides the event (origin.c): the host,
 * machine and boot ids and the stream id, made once; the seq follows. */
static void origin_text(struct floor_line *f) {
	char host[256] = "", machine[33], boot[33], stream[33];
	unsigned char id[16] = { 0 };
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	(void)gethostname(host, sizeof(host) - 1);
	id_of("/etc/machine-id", machine, sizeof(machine));
	id_of("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (fd >= 0) {
		(void)!read(fd, id, sizeof(id));
		close(fd);
	}
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(stream + 2 * i, 3, "%02x", id[i]);
	f->origin_len =
	    (size_t)snprintf(f->origin, sizeof(f->origin),
			     ",\"host\":\"%s\",\"machine_id\":\"%s\",\"boot_id\":\"%s\","
			     "\"stream\":\"%s\",\"seq\":",
			     host, machine, boot, stream);
	if (f->origin_len >= sizeof(f->origin))
		f->origin_len = sizeof(f->origin) - 1;
}

struct floor_line *floor_line_new(const char *watch, const char *out) {
	struct floor_line *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->stamp_sec = -1;
	origin_text(f);
	f->mount_fd = open(watch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	f->out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (f->mount_fd < 0 || f->out_fd < 0) {
		int e = errno;

		if (f->mount_fd >= 0)
			close(f->mount_fd);
		if (f->out_fd >= 0)
			close(f->out_fd);
		free(f);
		errno = e;
		return NULL;
	}
	return f;
}

int floor_line_flush(struct floor_line *f) {
	size_t off = 0;

	while (off < f->len) {
		ssize_t n = write(f->out_fd, f->buf + off, f->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	f->len = 0;
	return 0;
}

static uint32_t hash_bytes(const unsigned char *p, size_t n, uint32_t h) {
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The path of the directory fh names, or NULL (gone, or not found). */
static const struct dir_slot *dir_path(struct floor_line *f, const struct file_handle *fh) {
	struct dir_slot *s;
	char link[64];
	ssize_t n;
	int fd;

	if (fh->handle_bytes > MAX_HANDLE_SZ)
		return NULL;
	s = &f->dirs[hash_bytes(fh->f_handle, fh->handle_bytes,
				2166136261u ^ (uint32_t)fh->handle_type) %
		     DIR_SLOTS];
	if (s->used && s->type == fh->handle_type && s->bytes == fh->handle_bytes &&
	    memcmp(s->handle, fh->f_handle, fh->handle_bytes) == 0)
		return s;
	s->used = false;
	fd = open_by_handle_at(f->mount_fd, (struct file_handle *)fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, s->path, sizeof(s->path));
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(s->path))
		return NULL;
	s->len = (size_t)n;
	s->type = fh->handle_type;
	s->bytes = fh->handle_bytes;
	memcpy(s->handle, fh->f_handle, fh->handle_bytes);
	s->used = true;
	return s;
}

static ssize_t read_proc(pid_t pid, const char *what, char *buf, size_t len) {
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* What /proc says of pid, from the cache while fresh. */
static const struct pid_slot *proc_of(struct floor_line *f, pid_t pid, uint64_t now_usec) {
	struct pid_slot *s = &f->pids[(unsigned)pid % PID_SLOTS];
	unsigned long real;
	char buf[4096];
	const char *l;
	ssize_t n;

	if (s->pid == pid && now_usec - s->at_usec < PID_TTL_USEC)
		return s;
	s->pid = pid;
	s->at_usec = now_usec;
	n = read_proc(pid, "comm", buf, sizeof(s->comm) + 1);
	s->comm_ok = n > 0;
	if (s->comm_ok) {
		n -= buf[n - 1] == '\n';
		memcpy(s->comm, buf, (size_t)n < sizeof(s->comm) ? (size_t)n : sizeof(s->comm) - 1);
		s->comm[(size_t)n < sizeof(s->comm) ? (size_t)n : sizeof(s->comm) - 1] = '\0';
	}
	s->uid_ok = read_proc(pid, "status", buf, sizeof(buf)) > 0 && (l = strstr(buf, "\nUid:")) &&
		    sscanf(l + 5, "%lu %lu", &real, &s->uid) == 2;
	return s;
}

static void put(struct floor_line *f, const char *s, size_t n) {
	memcpy(f->buf + f->len, s, n);
	f->len += n;
}

#define PUTS(f, lit) put(f, lit, sizeof(lit) - 1)

/* A JSON string's body: ", \ and control bytes escaped (the line's room was
 * checked; at most 6 bytes per input byte). */
static void put_escaped(struct floor_line *f, const char *s, size_t n) {
	static const char hex[] = "0123456789abcdef";
	char *o = f->buf + f->len;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		} else
			*o++ = (char)c;
	}
	f->len = (size_t)(o - f->buf);
}

static void put_u64(struct floor_line *f, uint64_t v) {
	char tmp[24];
	size_t i = sizeof(tmp);

	do
		tmp[--i] = (char)('0' + v % 10);
	while (v /= 10);
	put(f, tmp + i, sizeof(tmp) - i);
}

static void put_time(struct floor_line *f, uint64_t usec) {
	time_t sec = (time_t)(usec / 1000000);
	char frac[9] = ".000000Z";
	uint64_t us = usec % 1000000;
	struct tm tm;

	if (sec != f->stamp_sec) {
		if (!gmtime_r(&sec, &tm) ||
		    strftime(f->stamp, sizeof(f->stamp), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
			snprintf(f->stamp, sizeof(f->stamp), "1970-01-01T00:00:00");
		f->stamp_sec = sec;
	}
	for (int i = 6; i >= 1; i--, us /= 10)
		frac[i] = (char)('0' + us % 10);
	put(f, f->stamp, strlen(f->stamp));
	put(f, frac, 8);
}

int floor_line_record(struct floor_line *f, const struct fanotify_event_metadata *m,
		      uint64_t now_usec, const char *const *names, const uint64_t *bits,
		      unsigned n) {
	const struct fanotify_event_info_fid *fid = (const void *)(m + 1);
	const struct dir_slot *dir = NULL;
	const char *name = NULL;
	bool first = true;
	int r;

	if (m->mask & FAN_Q_OVERFLOW) { /* (no path: the loss is said, as fsnotifyd does) */
		if (f->len + LINE_MAX_BYTES > sizeof(f->buf) && (r = floor_line_flush(f)) < 0)
			return r;
		PUTS(f, "{\"time\":\"");
		put_time(f, now_usec);
		PUTS(f, "\",\"kind\":\"overflow\",\"rule\":\"storm\",\"severity\":\"warning\"");
		put(f, f->origin, f->origin_len);
		put_u64(f, ++f->seq);
		PUTS(f, "}\n");
		return 0;
	}
	if (m->event_len > sizeof(*m) && fid->hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
		const struct file_handle *fh = (const void *)fid->handle;

		name = (const char *)fh->f_handle + fh->handle_bytes;
		dir = dir_path(f, fh);
	}
	if (f->len + LINE_MAX_BYTES + (dir ? 6 * dir->len : 0) > sizeof(f->buf) &&
	    (r = floor_line_flush(f)) < 0)
		return r;
	PUTS(f, "{\"time\":\"");
	put_time(f, now_usec);
	PUTS(f, "\",\"kind\":\"event\",\"rule\":\"storm\",\"events\":[");
	for (unsigned t = 0; t < n; t++)
		if (m->mask & bits[t]) {
			if (!first)
				PUTS(f, ",");
			PUTS(f, "\"");
			put(f, names[t], strlen(names[t]));
			PUTS(f, "\"");
			first = false;
		}
	PUTS(f, "],\"path\":");
	if (dir) {
		size_t nl = strnlen(name, NAME_MAX);

		PUTS(f, "\"");
		put_escaped(f, dir->path, dir->len);
		PUTS(f, "/");
		put_escaped(f, name, nl);
		PUTS(f, "\"");
	} else
		PUTS(f, "null");
	if (m->pid > 0) {
		const struct pid_slot *p = proc_of(f, m->pid, now_usec);

		PUTS(f, ",\"pid\":");
		put_u64(f, (uint64_t)m->pid);
		if (p->comm_ok) {
			PUTS(f, ",\"comm\":\"");
			put_escaped(f, p->comm, strlen(p->comm));
			PUTS(f, "\"");
		} else
			PUTS(f, ",\"comm\":null");
		if (p->uid_ok) {
			PUTS(f, ",\"uid\":");
			put_u64(f, p->uid);
		} else
			PUTS(f, ",\"uid\":null");
	} else
		PUTS(f, ",\"pid\":null,\"comm\":null,\"uid\":null");
	PUTS(f, ",\"severity\":\"info\"");
	put(f, f->origin, f->origin_len);
	put_u64(f, ++f->seq);
	PUTS(f, "}\n");
	return dir ? 0 : 1;
}
