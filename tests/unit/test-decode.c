/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-decode.c — the "decode" suite: fsn_decode_fanotify() and
 * fsn_decode_inotify() on buffers built byte by byte in the test, valid
 * (exact decoded fields) and hostile (-EBADMSG, offset unchanged, *ev
 * untouched). Every buffer is decoded from a heap copy of exactly its
 * length, so ASan and valgrind see any read past the end.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>

#include "fsn-uapi.h"
#include "fsn-util.h"
#include "fsn.h"
#include "unit.h"

/* ---- building buffers ---- */

struct tbuf {
	uint8_t data[4096];
	size_t len;
	uint8_t *heap; /* the exact-size copy handed to the decoder */
};

static void tbuf_done(struct tbuf *b) {
	free(b->heap);
	b->heap = NULL;
}

#define _cleanup_tbuf_ _cleanup_(tbuf_done)

static void put(struct tbuf *b, const void *p, size_t n) {
	ck_assert_uint_le(n, sizeof(b->data) - b->len);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u8(struct tbuf *b, uint8_t v) {
	put(b, &v, sizeof(v));
}

static void put_u16(struct tbuf *b, uint16_t v) {
	put(b, &v, sizeof(v));
}

static void put_u32(struct tbuf *b, uint32_t v) {
	put(b, &v, sizeof(v));
}

static void put_s32(struct tbuf *b, int32_t v) {
	put(b, &v, sizeof(v));
}

static void put_u64(struct tbuf *b, uint64_t v) {
	put(b, &v, sizeof(v));
}

static void put_fill(struct tbuf *b, uint8_t byte, size_t n) {
	ck_assert_uint_le(n, sizeof(b->data) - b->len);
	memset(b->data + b->len, byte, n);
	b->len += n;
}

static void poke_u8(struct tbuf *b, size_t at, uint8_t v) {
	ck_assert_uint_le(at + sizeof(v), b->len);
	memcpy(b->data + at, &v, sizeof(v));
}

static void poke_u16(struct tbuf *b, size_t at, uint16_t v) {
	ck_assert_uint_le(at + sizeof(v), b->len);
	memcpy(b->data + at, &v, sizeof(v));
}

static void poke_u32(struct tbuf *b, size_t at, uint32_t v) {
	ck_assert_uint_le(at + sizeof(v), b->len);
	memcpy(b->data + at, &v, sizeof(v));
}

/* The decoder's input: a heap copy of exactly b->len bytes starting
 * `misalign` bytes after a malloc()ed (so 16-aligned) address. */
static const uint8_t *seal_at(struct tbuf *b, size_t misalign) {
	free(b->heap);
	b->heap = malloc(misalign + b->len + (misalign + b->len == 0));
	ck_assert_ptr_nonnull(b->heap);
	memcpy(b->heap + misalign, b->data, b->len);
	return b->heap + misalign;
}

static const uint8_t *seal(struct tbuf *b) {
	return seal_at(b, 0);
}

/* fanotify metadata offsets, for corrupting a built event */
#define MD_EVENT_LEN offsetof(struct fanotify_event_metadata, event_len)
#define MD_VERS offsetof(struct fanotify_event_metadata, vers)
#define MD_METADATA_LEN offsetof(struct fanotify_event_metadata, metadata_len)
#define MD_SIZE sizeof(struct fanotify_event_metadata)
/* info record offsets, relative to the record */
#define INFO_LEN offsetof(struct fsn_uapi_info_header, len)
#define FID_HANDLE_BYTES sizeof(struct fsn_uapi_info_fid)
#define FID_FIXED (sizeof(struct fsn_uapi_info_fid) + 8)

/* Start a fanotify event; returns its offset. fan_end() sets event_len. */
static size_t fan_begin(struct tbuf *b, uint64_t mask, int32_t fd, int32_t pid) {
	size_t start = b->len;

	put_u32(b, 0); /* event_len, set by fan_end() */
	put_u8(b, FANOTIFY_METADATA_VERSION);
	put_u8(b, 0);
	put_u16(b, MD_SIZE);
	put_u64(b, mask);
	put_s32(b, fd);
	put_s32(b, pid);
	return start;
}

static void fan_end(struct tbuf *b, size_t start) {
	poke_u32(b, start + MD_EVENT_LEN, (uint32_t)(b->len - start));
}

static void put_info_hdr(struct tbuf *b, uint8_t type, uint16_t len) {
	put_u8(b, type);
	put_u8(b, 0);
	put_u16(b, len);
}

static struct fsn_fid make_fid(int32_t fsid0, int32_t fsid1, int32_t type, uint32_t nbytes,
			       uint8_t seed) {
	struct fsn_fid fid;

	memset(&fid, 0, sizeof(fid));
	fid.fsid[0] = fsid0;
	fid.fsid[1] = fsid1;
	fid.handle_type = type;
	fid.handle_bytes = nbytes;
	for (uint32_t i = 0; i < nbytes && i < FSN_HANDLE_MAX; i++)
		fid.f_handle[i] = (uint8_t)(seed + i);
	return fid;
}

/* A fid-type record laid out as the kernel does: header, fsid, struct
 * file_handle, optional name with its NUL, zero padding to 4 bytes.
 * Returns the record's offset. */
static size_t put_fid(struct tbuf *b, uint8_t type, const struct fsn_fid *fid, const char *name) {
	size_t start = b->len;
	size_t n = FID_FIXED + fid->handle_bytes + (name ? strlen(name) + 1 : 0);
	size_t rec_len = (n + 3) & ~(size_t)3;

	put_info_hdr(b, type, (uint16_t)rec_len);
	put_s32(b, fid->fsid[0]);
	put_s32(b, fid->fsid[1]);
	put_u32(b, fid->handle_bytes);
	put_s32(b, fid->handle_type);
	put(b, fid->f_handle, fid->handle_bytes);
	if (name)
		put(b, name, strlen(name) + 1);
	put_fill(b, 0, rec_len - n);
	return start;
}

static size_t put_pidfd(struct tbuf *b, int32_t pidfd) {
	size_t start = b->len;

	put_info_hdr(b, FAN_EVENT_INFO_TYPE_PIDFD, sizeof(struct fsn_uapi_info_pidfd));
	put_s32(b, pidfd);
	return start;
}

static size_t put_error(struct tbuf *b, int32_t error, uint32_t count) {
	size_t start = b->len;

	put_info_hdr(b, FAN_EVENT_INFO_TYPE_ERROR, sizeof(struct fsn_uapi_info_error));
	put_s32(b, error);
	put_u32(b, count);
	return start;
}

static size_t put_range(struct tbuf *b, uint64_t offset, uint64_t count) {
	size_t start = b->len;

	put_info_hdr(b, FAN_EVENT_INFO_TYPE_RANGE, sizeof(struct fsn_uapi_info_range));
	put_u32(b, 0);
	put_u64(b, offset);
	put_u64(b, count);
	return start;
}

static size_t put_mnt(struct tbuf *b, uint64_t mnt_id) {
	size_t start = b->len;

	put_info_hdr(b, FAN_EVENT_INFO_TYPE_MNT, sizeof(struct fsn_uapi_info_mnt));
	put_fill(b, 0,
		 offsetof(struct fsn_uapi_info_mnt, mnt_id) - sizeof(struct fsn_uapi_info_header));
	put_u64(b, mnt_id);
	return start;
}

/* A record of any type with len bytes in total, filled with 0xa5. */
static size_t put_raw_info(struct tbuf *b, uint8_t type, uint16_t len) {
	size_t start = b->len;

	put_info_hdr(b, type, len);
	put_fill(b, 0xa5, len - sizeof(struct fsn_uapi_info_header));
	return start;
}

/* An inotify event with exactly name_len name bytes: name, then NULs. */
static size_t put_inotify(struct tbuf *b, int32_t wd, uint32_t mask, uint32_t cookie,
			  const char *name, uint32_t name_len) {
	size_t start = b->len;
	size_t n = name ? strlen(name) : 0;

	ck_assert_uint_le(n, name_len);
	put_s32(b, wd);
	put_u32(b, mask);
	put_u32(b, cookie);
	put_u32(b, name_len);
	put(b, name ? name : "", n);
	put_fill(b, 0, name_len - n);
	return start;
}

/* ---- checking results ---- */

static void assert_fid_eq(const struct fsn_fid *got, const struct fsn_fid *want) {
	ck_assert_int_eq(got->fsid[0], want->fsid[0]);
	ck_assert_int_eq(got->fsid[1], want->fsid[1]);
	ck_assert_uint_eq(got->handle_bytes, want->handle_bytes);
	ck_assert_int_eq(got->handle_type, want->handle_type);
	/* (the bytes after handle_bytes are unspecified) */
	ck_assert_mem_eq(got->f_handle, want->f_handle, want->handle_bytes);
}

/* A name handed out by pointer lies inside [p, p + len). */
static void assert_name_in(const char *name, const uint8_t *p, size_t len) {
	ck_assert_ptr_nonnull(name);
	ck_assert((const uint8_t *)name >= p);
	ck_assert((const uint8_t *)name + strlen(name) < p + len);
}

/* One decoding step that must succeed: returns 1, moves *off to want_off. */
static void fan_ok(const uint8_t *p, size_t len, size_t *off, size_t want_off,
		   struct fsn_event *ev) {
	ck_assert_int_eq(fsn_decode_fanotify(p, len, off, ev), 1);
	ck_assert_uint_eq(*off, want_off);
	ck_assert_int_eq(ev->source, FSN_SOURCE_FANOTIFY);
}

static void ino_ok(const uint8_t *p, size_t len, size_t *off, size_t want_off,
		   struct fsn_event *ev) {
	ck_assert_int_eq(fsn_decode_inotify(p, len, off, ev), 1);
	ck_assert_uint_eq(*off, want_off);
	ck_assert_int_eq(ev->source, FSN_SOURCE_INOTIFY);
}

/* The decoder rejects the event at `start`: -EBADMSG, the offset stays,
 * *ev is not written, and asking again gives the same answer (no state). */
static void assert_bad(int (*decode)(const void *, size_t, size_t *, struct fsn_event *),
		       const uint8_t *p, size_t len, size_t start) {
	struct fsn_event ev, before;
	size_t off = start;

	memset(&ev, 0x5a, sizeof(ev));
	memcpy(&before, &ev, sizeof(ev));
	ck_assert_int_eq(decode(p, len, &off, &ev), -EBADMSG);
	ck_assert_uint_eq(off, start);
	ck_assert_mem_eq(&ev, &before, sizeof(ev));
	ck_assert_int_eq(decode(p, len, &off, &ev), -EBADMSG);
	ck_assert_uint_eq(off, start);
}

static void fan_bad(struct tbuf *b, size_t start) {
	assert_bad(fsn_decode_fanotify, seal(b), b->len, start);
}

static void ino_bad(struct tbuf *b, size_t start) {
	assert_bad(fsn_decode_inotify, seal(b), b->len, start);
}

/* ---- fanotify: valid events ---- */

START_TEST(fan_plain_fd) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_OPEN | FAN_CLOSE_WRITE, 7, 1234);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, MD_SIZE, &ev);
	ck_assert_uint_eq(ev.mask, FAN_OPEN | FAN_CLOSE_WRITE);
	ck_assert_int_eq(ev.fd, 7);
	ck_assert_int_eq(ev.pid, 1234);
	ck_assert_uint_eq(ev.has, 0);
	ck_assert_ptr_null(ev.name);
	ck_assert_ptr_null(ev.old_name);
	ck_assert_ptr_null(ev.new_name);
	ck_assert_int_eq(ev.pidfd, FAN_NOPIDFD);
	ck_assert_int_eq(ev.wd, -1);
	ck_assert_uint_eq(ev.cookie, 0);
	ck_assert_uint_eq(ev.fid.handle_bytes, 0);
	ck_assert_ptr_null(ev.group);
	ck_assert_ptr_null(ev.mark);

	/* nothing left */
	ck_assert_int_eq(fsn_decode_fanotify(p, b.len, &off, &ev), 0);
	ck_assert_uint_eq(off, MD_SIZE);
}
END_TEST

START_TEST(fan_overflow_and_fd_error) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s1, s2;

	s1 = fan_begin(&b, FAN_Q_OVERFLOW, FAN_NOFD, 0);
	fan_end(&b, s1);
	/* FAN_REPORT_FD_ERROR: the fd field carries -errno */
	s2 = fan_begin(&b, FAN_OPEN, -EPERM, 99);
	fan_end(&b, s2);
	p = seal(&b);

	fan_ok(p, b.len, &off, s2, &ev);
	ck_assert_uint_eq(ev.mask, FAN_Q_OVERFLOW);
	ck_assert_int_eq(ev.fd, FAN_NOFD);
	ck_assert_int_eq(ev.pid, 0);
	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_int_eq(ev.fd, -EPERM);
	ck_assert_int_eq(ev.pid, 99);
}
END_TEST

START_TEST(fan_fid) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid fid = make_fid(0x1234, -5, 1, 8, 0x10);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_MODIFY, FAN_NOFD, 42);
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s);
	ck_assert_uint_eq(b.len, MD_SIZE + 28);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_MODIFY);
	ck_assert_int_eq(ev.fd, FAN_NOFD);
	ck_assert_int_eq(ev.pid, 42);
	ck_assert_uint_eq(ev.has, FSN_HAS_FID);
	assert_fid_eq(&ev.fid, &fid);
	ck_assert_ptr_null(ev.name);
	ck_assert_uint_eq(ev.dfid.handle_bytes, 0);
}
END_TEST

START_TEST(fan_fid_handle_sizes) {
	/* 0 bytes (the kernel's FILEID_INVALID for an unencodable handle) and
	 * exactly FSN_HANDLE_MAX are both fine */
	static const uint32_t sizes[] = { 0, 1, 12, 20, FSN_HANDLE_MAX };

	for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		struct fsn_fid fid = make_fid(1, 2, i == 0 ? 0xff : 0x81, sizes[i], 0x40);
		struct fsn_event ev;
		const uint8_t *p;
		size_t off = 0;
		size_t s;

		s = fan_begin(&b, FAN_ATTRIB, FAN_NOFD, 1);
		put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
		fan_end(&b, s);
		p = seal(&b);

		fan_ok(p, b.len, &off, b.len, &ev);
		ck_assert_uint_eq(ev.has, FSN_HAS_FID);
		assert_fid_eq(&ev.fid, &fid);
	}
}
END_TEST

START_TEST(fan_dfid_name) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(7, 8, 1, 8, 0x20);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_CREATE, FAN_NOFD, 500);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "hello.txt");
	fan_end(&b, s);
	/* 20 + 8 + 10 = 38, padded to 40 */
	ck_assert_uint_eq(b.len, MD_SIZE + 40);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_CREATE);
	ck_assert_uint_eq(ev.has, FSN_HAS_DFID | FSN_HAS_NAME);
	assert_fid_eq(&ev.dfid, &dfid);
	ck_assert_str_eq(ev.name, "hello.txt");
	assert_name_in(ev.name, p, b.len);
	/* the name points into the buffer, right after the handle */
	ck_assert_ptr_eq(ev.name, (const char *)p + MD_SIZE + FID_FIXED + 8);
	ck_assert_uint_eq(ev.fid.handle_bytes, 0);
}
END_TEST

START_TEST(fan_dfid_name_unpadded) {
	/* 20 + 8 + "abc\0" = 32: the NUL is the record's last byte */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(7, 8, 1, 8, 0x20);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_DELETE, FAN_NOFD, 500);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "abc");
	fan_end(&b, s);
	ck_assert_uint_eq(b.len, MD_SIZE + 32);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_str_eq(ev.name, "abc");
	assert_name_in(ev.name, p, b.len);
}
END_TEST

START_TEST(fan_dfid_name_dot) {
	/* an event on the marked directory itself reports the name "." */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(3, 4, 1, 8, 0x30);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_ATTRIB | FAN_ONDIR, FAN_NOFD, 77);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, ".");
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_ATTRIB | FAN_ONDIR);
	ck_assert_uint_eq(ev.has, FSN_HAS_DFID | FSN_HAS_NAME);
	assert_fid_eq(&ev.dfid, &dfid);
	ck_assert_str_eq(ev.name, ".");
}
END_TEST

START_TEST(fan_dfid_only) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(3, 4, 1, 8, 0x30);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_DELETE_SELF | FAN_ONDIR, FAN_NOFD, 77);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID, &dfid, NULL);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.has, FSN_HAS_DFID);
	assert_fid_eq(&ev.dfid, &dfid);
	ck_assert_ptr_null(ev.name);
}
END_TEST

START_TEST(fan_fid_and_dfid_name) {
	/* FAN_REPORT_DFID_NAME | FAN_REPORT_FID: parent + name, then child */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(10, 11, 1, 8, 0x50);
	struct fsn_fid fid = make_fid(10, 11, 2, 12, 0x60);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_CLOSE_WRITE, FAN_NOFD, 9);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "data.bin");
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.has, FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_NAME);
	assert_fid_eq(&ev.dfid, &dfid);
	assert_fid_eq(&ev.fid, &fid);
	ck_assert_str_eq(ev.name, "data.bin");
	assert_name_in(ev.name, p, b.len);
}
END_TEST

START_TEST(fan_rename) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid olddir = make_fid(1, 1, 1, 8, 0x01);
	struct fsn_fid newdir = make_fid(1, 1, 1, 8, 0x81);
	struct fsn_fid child = make_fid(1, 1, 1, 8, 0xc1);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_RENAME, FAN_NOFD, 4321);
	put_fid(&b, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, &olddir, "old name");
	put_fid(&b, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, &newdir, "new-name.txt");
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &child, NULL);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_RENAME);
	ck_assert_uint_eq(ev.has, FSN_HAS_OLD | FSN_HAS_NEW | FSN_HAS_FID);
	assert_fid_eq(&ev.old_dfid, &olddir);
	assert_fid_eq(&ev.new_dfid, &newdir);
	assert_fid_eq(&ev.fid, &child);
	ck_assert_str_eq(ev.old_name, "old name");
	ck_assert_str_eq(ev.new_name, "new-name.txt");
	assert_name_in(ev.old_name, p, b.len);
	assert_name_in(ev.new_name, p, b.len);
	ck_assert_ptr_null(ev.name);
	ck_assert_uint_eq(ev.dfid.handle_bytes, 0);
}
END_TEST

START_TEST(fan_pidfd) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s1, s2;

	s1 = fan_begin(&b, FAN_OPEN_PERM, 5, 300);
	put_pidfd(&b, 6);
	fan_end(&b, s1);
	s2 = fan_begin(&b, FAN_OPEN, 8, 301);
	put_pidfd(&b, FAN_EPIDFD); /* the process had exited */
	fan_end(&b, s2);
	p = seal(&b);

	fan_ok(p, b.len, &off, s2, &ev);
	ck_assert_uint_eq(ev.mask, FAN_OPEN_PERM);
	ck_assert_int_eq(ev.fd, 5);
	ck_assert_int_eq(ev.pid, 300);
	ck_assert_uint_eq(ev.has, FSN_HAS_PIDFD);
	ck_assert_int_eq(ev.pidfd, 6);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.has, FSN_HAS_PIDFD);
	ck_assert_int_eq(ev.pidfd, FAN_EPIDFD);
}
END_TEST

START_TEST(fan_error) {
	/* FAN_FS_ERROR: an error record and the object's FID */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid fid = make_fid(0x77, 0x88, 1, 8, 0x90);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_FS_ERROR, FAN_NOFD, 0);
	put_error(&b, EUCLEAN, 3);
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_FS_ERROR);
	ck_assert_uint_eq(ev.has, FSN_HAS_ERROR | FSN_HAS_FID);
	ck_assert_int_eq(ev.error, EUCLEAN);
	ck_assert_uint_eq(ev.error_count, 3);
	assert_fid_eq(&ev.fid, &fid);
}
END_TEST

START_TEST(fan_range) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_PRE_ACCESS, 12, 600);
	put_range(&b, UINT64_C(0x100000000) + 4096, 65536);
	fan_end(&b, s);
	ck_assert_uint_eq(b.len, MD_SIZE + 24);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_PRE_ACCESS);
	ck_assert_int_eq(ev.fd, 12);
	ck_assert_uint_eq(ev.has, FSN_HAS_RANGE);
	ck_assert_uint_eq(ev.range_offset, UINT64_C(0x100000000) + 4096);
	ck_assert_uint_eq(ev.range_count, 65536);
}
END_TEST

START_TEST(fan_mnt) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_MNT_ATTACH, FAN_NOFD, 0);
	put_mnt(&b, UINT64_C(0x1000000002a));
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_MNT_ATTACH);
	ck_assert_uint_eq(ev.has, FSN_HAS_MNT);
	ck_assert_uint_eq(ev.mnt_id, UINT64_C(0x1000000002a));
}
END_TEST

START_TEST(fan_two_events) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid d1 = make_fid(1, 2, 1, 8, 0x11);
	struct fsn_fid d2 = make_fid(1, 2, 1, 8, 0x22);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s1, s2;

	s1 = fan_begin(&b, FAN_CREATE, FAN_NOFD, 1);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &d1, "first");
	fan_end(&b, s1);
	s2 = fan_begin(&b, FAN_DELETE, FAN_NOFD, 2);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &d2, "second");
	fan_end(&b, s2);
	p = seal(&b);

	fan_ok(p, b.len, &off, s2, &ev);
	ck_assert_uint_eq(ev.mask, FAN_CREATE);
	ck_assert_int_eq(ev.pid, 1);
	ck_assert_str_eq(ev.name, "first");
	assert_fid_eq(&ev.dfid, &d1);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_DELETE);
	ck_assert_int_eq(ev.pid, 2);
	ck_assert_str_eq(ev.name, "second");
	assert_fid_eq(&ev.dfid, &d2);

	ck_assert_int_eq(fsn_decode_fanotify(p, b.len, &off, &ev), 0);
	ck_assert_uint_eq(off, b.len);
}
END_TEST

START_TEST(fan_misaligned) {
	/* records with u64 fields at every odd start address; UBSan
	 * (-fsanitize=alignment) flags any in-place access */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(5, 6, 1, 8, 0x70);
	struct fsn_fid fid = make_fid(5, 6, 1, 12, 0x80);
	size_t s;

	s = fan_begin(&b, FAN_PRE_ACCESS | FAN_ONDIR, 3, 33);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "x");
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	put_range(&b, 123456789, 987654321);
	put_mnt(&b, 55);
	fan_end(&b, s);

	for (size_t misalign = 1; misalign < 8; misalign++) {
		const uint8_t *p = seal_at(&b, misalign);
		struct fsn_event ev;
		size_t off = 0;

		fan_ok(p, b.len, &off, b.len, &ev);
		ck_assert_uint_eq(ev.mask, FAN_PRE_ACCESS | FAN_ONDIR);
		ck_assert_int_eq(ev.fd, 3);
		ck_assert_int_eq(ev.pid, 33);
		ck_assert_uint_eq(ev.has, FSN_HAS_DFID | FSN_HAS_NAME | FSN_HAS_FID |
					      FSN_HAS_RANGE | FSN_HAS_MNT);
		assert_fid_eq(&ev.dfid, &dfid);
		assert_fid_eq(&ev.fid, &fid);
		ck_assert_str_eq(ev.name, "x");
		assert_name_in(ev.name, p, b.len);
		ck_assert_uint_eq(ev.range_offset, 123456789);
		ck_assert_uint_eq(ev.range_count, 987654321);
		ck_assert_uint_eq(ev.mnt_id, 55);
	}
}
END_TEST

START_TEST(fan_nonzero_offset_misaligned) {
	/* a second event that starts at an odd offset inside the buffer: the
	 * kernel never does that, but nothing may depend on it */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 3;
	size_t s;

	put_fill(&b, 0xee, 3);
	s = fan_begin(&b, FAN_ACCESS, 4, 5);
	put_range(&b, 1, 2);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.mask, FAN_ACCESS);
	ck_assert_uint_eq(ev.range_offset, 1);
	ck_assert_uint_eq(ev.range_count, 2);
}
END_TEST

START_TEST(fan_metadata_len_larger) {
	/* a longer metadata block (a future version of the struct): records
	 * start at metadata_len */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_OPEN, 3, 4);
	put_fill(&b, 0xa5, 8);
	poke_u16(&b, s + MD_METADATA_LEN, MD_SIZE + 8);
	put_pidfd(&b, 11);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.has, FSN_HAS_PIDFD);
	ck_assert_int_eq(ev.pidfd, 11);
}
END_TEST

START_TEST(fan_unknown_info) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(1, 2, 1, 8, 0x11);
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s;

	s = fan_begin(&b, FAN_CREATE, FAN_NOFD, 1);
	put_raw_info(&b, 42, 12);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "after");
	put_raw_info(&b, 0, 4);   /* type 0, header only */
	put_raw_info(&b, 255, 4); /* twice the same unknown type is fine */
	put_raw_info(&b, 255, 7); /* an unknown record need not be padded */
	put_raw_info(&b, 8, 5);
	fan_end(&b, s);
	p = seal(&b);

	fan_ok(p, b.len, &off, b.len, &ev);
	ck_assert_uint_eq(ev.has, FSN_HAS_UNKNOWN_INFO | FSN_HAS_DFID | FSN_HAS_NAME);
	assert_fid_eq(&ev.dfid, &dfid);
	ck_assert_str_eq(ev.name, "after");
}
END_TEST

START_TEST(fan_empty) {
	static const uint8_t one = 0;
	struct fsn_event ev;
	size_t off = 0;

	ck_assert_int_eq(fsn_decode_fanotify(&one, 0, &off, &ev), 0);
	ck_assert_uint_eq(off, 0);
	ck_assert_int_eq(fsn_decode_fanotify(NULL, 0, &off, &ev), 0);
	ck_assert_uint_eq(off, 0);
	ck_assert_int_eq(fsn_decode_inotify(&one, 0, &off, &ev), 0);
	ck_assert_int_eq(fsn_decode_inotify(NULL, 0, &off, &ev), 0);
	ck_assert_uint_eq(off, 0);
}
END_TEST

START_TEST(fan_offset_at_end) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off;

	/* garbage that would be -EBADMSG if it were looked at */
	put_fill(&b, 0xff, 40);
	p = seal(&b);
	off = b.len;
	ck_assert_int_eq(fsn_decode_fanotify(p, b.len, &off, &ev), 0);
	ck_assert_uint_eq(off, b.len);
	ck_assert_int_eq(fsn_decode_inotify(p, b.len, &off, &ev), 0);
	ck_assert_uint_eq(off, b.len);
}
END_TEST

START_TEST(decode_invalid_args) {
	static const uint8_t buf[32];
	struct fsn_event ev;
	size_t off = 33;

	ck_assert_int_eq(fsn_decode_fanotify(buf, sizeof(buf), &off, &ev), -EINVAL);
	ck_assert_int_eq(fsn_decode_inotify(buf, sizeof(buf), &off, &ev), -EINVAL);
	ck_assert_uint_eq(off, 33);
	off = 0;
	ck_assert_int_eq(fsn_decode_fanotify(buf, sizeof(buf), NULL, &ev), -EINVAL);
	ck_assert_int_eq(fsn_decode_fanotify(buf, sizeof(buf), &off, NULL), -EINVAL);
	ck_assert_int_eq(fsn_decode_fanotify(NULL, sizeof(buf), &off, &ev), -EINVAL);
	ck_assert_int_eq(fsn_decode_inotify(buf, sizeof(buf), NULL, &ev), -EINVAL);
	ck_assert_int_eq(fsn_decode_inotify(buf, sizeof(buf), &off, NULL), -EINVAL);
	ck_assert_int_eq(fsn_decode_inotify(NULL, sizeof(buf), &off, &ev), -EINVAL);
	ck_assert_uint_eq(off, 0);
}
END_TEST

/* ---- fanotify: hostile input ---- */

START_TEST(bad_truncated_metadata) {
	/* every length below the metadata, down to 1 byte */
	for (size_t n = 1; n < MD_SIZE; n++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		fan_end(&b, s);
		b.len = n;
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_event_len_below_metadata_len) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	size_t s;

	s = fan_begin(&b, FAN_OPEN, 3, 4);
	put_fill(&b, 0, 16);
	poke_u16(&b, s + MD_METADATA_LEN, MD_SIZE + 8);
	poke_u32(&b, s + MD_EVENT_LEN, MD_SIZE + 4);
	fan_bad(&b, 0);
}
END_TEST

START_TEST(bad_event_len_below_metadata_size) {
	/* 0 would make a careless loop spin forever */
	static const uint32_t lens[] = { 0, 1, 8, 16, MD_SIZE - 1 };

	for (size_t i = 0; i < ELEMENTSOF(lens); i++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		poke_u32(&b, s + MD_EVENT_LEN, lens[i]);
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_metadata_len_below_size) {
	static const uint16_t lens[] = { 0, 4, 16, MD_SIZE - 1 };

	for (size_t i = 0; i < ELEMENTSOF(lens); i++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		put_pidfd(&b, 5);
		fan_end(&b, s);
		poke_u16(&b, s + MD_METADATA_LEN, lens[i]);
		fan_bad(&b, 0);
	}
	{
		/* metadata_len 16 where fd and pid happen to read as a valid
		 * unknown record (type 42, len 8): still rejected */
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 0x0008002a, 0);
		put_pidfd(&b, 5);
		fan_end(&b, s);
		poke_u16(&b, s + MD_METADATA_LEN, 16);
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_event_len_beyond_buffer) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid fid = make_fid(1, 2, 1, 8, 0);
	size_t s;

	s = fan_begin(&b, FAN_OPEN, 3, 4);
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s);
	poke_u32(&b, s + MD_EVENT_LEN, (uint32_t)b.len + 1);
	fan_bad(&b, 0);
	poke_u32(&b, s + MD_EVENT_LEN, UINT32_MAX);
	fan_bad(&b, 0);
}
END_TEST

START_TEST(bad_truncated_buffer) {
	/* every strict prefix of a valid event is rejected */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(1, 2, 1, 8, 0x11);
	struct fsn_fid fid = make_fid(1, 2, 1, 8, 0x22);
	size_t s, full;

	s = fan_begin(&b, FAN_MODIFY, FAN_NOFD, 4);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "name");
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s);
	full = b.len;
	for (b.len = 1; b.len < full; b.len++)
		fan_bad(&b, 0);
}
END_TEST

START_TEST(bad_event_len_cuts_record) {
	/* event_len anywhere inside a record (buffer cut to match) is
	 * rejected; on a record boundary the event is valid, with fewer
	 * records */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid dfid = make_fid(1, 2, 1, 8, 0x11);
	struct fsn_fid fid = make_fid(1, 2, 1, 8, 0x22);
	size_t s, r2, r3, full;

	s = fan_begin(&b, FAN_MODIFY, FAN_NOFD, 4);
	put_fid(&b, FAN_EVENT_INFO_TYPE_DFID_NAME, &dfid, "name");
	r2 = put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	r3 = put_pidfd(&b, 3);
	fan_end(&b, s);
	full = b.len;

	for (size_t el = MD_SIZE; el < full; el++) {
		b.len = full;
		poke_u32(&b, s + MD_EVENT_LEN, (uint32_t)el);
		b.len = el;
		if (el == MD_SIZE || el == r2 || el == r3) {
			const uint8_t *p = seal(&b);
			uint32_t want = 0;
			struct fsn_event ev;
			size_t off = 0;

			if (el >= r2)
				want |= FSN_HAS_DFID | FSN_HAS_NAME;
			if (el >= r3)
				want |= FSN_HAS_FID;
			fan_ok(p, b.len, &off, el, &ev);
			ck_assert_uint_eq(ev.has, want);
		} else
			fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_version) {
	static const uint8_t versions[] = { 0, 1, 2, 4, 255 };

	for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		fan_end(&b, s);
		poke_u8(&b, s + MD_VERS, versions[i]);
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_metadata_len_beyond_event) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	size_t s;

	s = fan_begin(&b, FAN_OPEN, 3, 4);
	put_pidfd(&b, 5);
	fan_end(&b, s);
	put_fill(&b, 0, 16); /* room in the buffer, not in the event */
	poke_u16(&b, s + MD_METADATA_LEN, MD_SIZE + 16);
	fan_bad(&b, 0);
}
END_TEST

START_TEST(bad_info_header_truncated) {
	for (size_t extra = 1; extra < sizeof(struct fsn_uapi_info_header); extra++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		put_fill(&b, 0, extra);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
	{
		/* 2 bytes after a valid record */
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		put_pidfd(&b, 5);
		put_u16(&b, FAN_EVENT_INFO_TYPE_PIDFD);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_info_overruns_event) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid fid = make_fid(1, 2, 1, 8, 0x22);
	size_t s, r, s2;

	/* the record claims more than the event has, though the buffer
	 * (a following event) has enough bytes */
	s = fan_begin(&b, FAN_OPEN, 3, 4);
	r = put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s);
	s2 = fan_begin(&b, FAN_OPEN, 5, 6);
	put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	fan_end(&b, s2);
	poke_u16(&b, r + INFO_LEN, 28 + 4);
	fan_bad(&b, 0);
	poke_u16(&b, r + INFO_LEN, UINT16_MAX);
	fan_bad(&b, 0);
}
END_TEST

START_TEST(bad_info_zero_len) {
	/* len 0 would never advance; 1..3 are shorter than the header */
	for (uint16_t len = 0; len < sizeof(struct fsn_uapi_info_header); len++) {
		static const uint8_t types[] = { FAN_EVENT_INFO_TYPE_FID, 42 };

		for (size_t t = 0; t < ELEMENTSOF(types); t++) {
			_cleanup_tbuf_ struct tbuf b = { .len = 0 };
			size_t s;

			s = fan_begin(&b, FAN_OPEN, 3, 4);
			put_info_hdr(&b, types[t], len);
			put_fill(&b, 0, 28);
			fan_end(&b, s);
			fan_bad(&b, 0);
		}
	}
}
END_TEST

START_TEST(bad_fid_record_too_short) {
	/* shorter than header + fsid + handle_bytes + handle_type */
	static const uint8_t types[] = {
		FAN_EVENT_INFO_TYPE_FID,           FAN_EVENT_INFO_TYPE_DFID,
		FAN_EVENT_INFO_TYPE_DFID_NAME,     FAN_EVENT_INFO_TYPE_OLD_DFID_NAME,
		FAN_EVENT_INFO_TYPE_NEW_DFID_NAME,
	};

	for (size_t t = 0; t < ELEMENTSOF(types); t++)
		for (uint16_t len = 4; len < FID_FIXED; len++) {
			_cleanup_tbuf_ struct tbuf b = { .len = 0 };
			size_t s;

			s = fan_begin(&b, FAN_OPEN, 3, 4);
			put_raw_info(&b, types[t], len);
			fan_end(&b, s);
			/* after the event: what a careless decoder would
			 * take for handle_bytes and handle_type */
			put_fill(&b, 0, 16);
			fan_bad(&b, 0);
		}
}
END_TEST

START_TEST(bad_fid_handle_overruns_record) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid fid = make_fid(1, 2, 1, 8, 0x22);
	size_t s, r;

	/* handle_bytes 9 in a record holding 8 handle bytes; a following
	 * pidfd record provides bytes to read */
	s = fan_begin(&b, FAN_OPEN, 3, 4);
	r = put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	put_pidfd(&b, 7);
	fan_end(&b, s);
	poke_u32(&b, r + FID_HANDLE_BYTES, 9);
	fan_bad(&b, 0);
	poke_u32(&b, r + FID_HANDLE_BYTES, 64);
	fan_bad(&b, 0);
	/* an overflow bait for handle_bytes + offset arithmetic */
	poke_u32(&b, r + FID_HANDLE_BYTES, UINT32_MAX);
	fan_bad(&b, 0);
	poke_u32(&b, r + FID_HANDLE_BYTES, UINT32_MAX - 11);
	fan_bad(&b, 0);
}
END_TEST

START_TEST(bad_fid_handle_too_big) {
	/* FSN_HANDLE_MAX + 4 bytes that fit in the record are still too many
	 * for struct fsn_fid */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_fid fid = make_fid(1, 2, 1, FSN_HANDLE_MAX, 0x22);
	size_t s, r;

	s = fan_begin(&b, FAN_OPEN, 3, 4);
	r = put_fid(&b, FAN_EVENT_INFO_TYPE_FID, &fid, NULL);
	put_fill(&b, 0x33, 4);
	fan_end(&b, s);
	poke_u16(&b, r + INFO_LEN, (uint16_t)(b.len - r));
	poke_u32(&b, r + FID_HANDLE_BYTES, FSN_HANDLE_MAX + 4);
	fan_bad(&b, 0);
	poke_u32(&b, r + FID_HANDLE_BYTES, FSN_HANDLE_MAX + 1);
	fan_bad(&b, 0);
	/* and exactly FSN_HANDLE_MAX in that record is fine */
	poke_u32(&b, r + FID_HANDLE_BYTES, FSN_HANDLE_MAX);
	{
		const uint8_t *p = seal(&b);
		struct fsn_event ev;
		size_t off = 0;

		fan_ok(p, b.len, &off, b.len, &ev);
		assert_fid_eq(&ev.fid, &fid);
	}
}
END_TEST

START_TEST(bad_name_without_nul) {
	static const uint8_t types[] = {
		FAN_EVENT_INFO_TYPE_DFID_NAME,
		FAN_EVENT_INFO_TYPE_OLD_DFID_NAME,
		FAN_EVENT_INFO_TYPE_NEW_DFID_NAME,
	};

	for (size_t t = 0; t < ELEMENTSOF(types); t++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		struct fsn_fid dfid = make_fid(1, 2, 1, 8, 0x22);
		size_t s, r;

		/* "abc" + NUL fills the record exactly; replace the NUL. A
		 * following record has a NUL the decoder must not reach. */
		s = fan_begin(&b, FAN_CREATE, FAN_NOFD, 4);
		r = put_fid(&b, types[t], &dfid, "abc");
		put_pidfd(&b, 0);
		fan_end(&b, s);
		ck_assert_uint_eq(b.data[r + 31], 0);
		poke_u8(&b, r + 31, 'd');
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_name_missing) {
	/* a *_DFID_NAME record that ends right after its handle */
	static const uint8_t types[] = {
		FAN_EVENT_INFO_TYPE_DFID_NAME,
		FAN_EVENT_INFO_TYPE_OLD_DFID_NAME,
		FAN_EVENT_INFO_TYPE_NEW_DFID_NAME,
	};

	for (size_t t = 0; t < ELEMENTSOF(types); t++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		struct fsn_fid dfid = make_fid(1, 2, 1, 8, 0x22);
		size_t s;

		s = fan_begin(&b, FAN_CREATE, FAN_NOFD, 4);
		put_fid(&b, types[t], &dfid, NULL);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
}
END_TEST

START_TEST(bad_duplicate_records) {
	struct fsn_fid fid = make_fid(1, 2, 1, 8, 0x22);
	/* pairs that fill the same field of struct fsn_event */
	static const uint8_t pairs[][2] = {
		{ FAN_EVENT_INFO_TYPE_FID, FAN_EVENT_INFO_TYPE_FID },
		{ FAN_EVENT_INFO_TYPE_DFID, FAN_EVENT_INFO_TYPE_DFID },
		{ FAN_EVENT_INFO_TYPE_DFID_NAME, FAN_EVENT_INFO_TYPE_DFID_NAME },
		{ FAN_EVENT_INFO_TYPE_DFID, FAN_EVENT_INFO_TYPE_DFID_NAME },
		{ FAN_EVENT_INFO_TYPE_DFID_NAME, FAN_EVENT_INFO_TYPE_DFID },
		{ FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME },
		{ FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME },
	};

	for (size_t i = 0; i < ELEMENTSOF(pairs); i++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_CREATE, FAN_NOFD, 4);
		for (size_t j = 0; j < 2; j++)
			put_fid(&b, pairs[i][j], &fid,
				pairs[i][j] == FAN_EVENT_INFO_TYPE_DFID ? NULL : "n");
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
	{
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		put_pidfd(&b, 5);
		put_error(&b, 5, 1);
		put_pidfd(&b, 6);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
	{
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_FS_ERROR, FAN_NOFD, 0);
		put_error(&b, 5, 1);
		put_error(&b, 5, 1);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
	{
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_PRE_ACCESS, 3, 4);
		put_range(&b, 0, 1);
		put_range(&b, 0, 1);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
	{
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_MNT_DETACH, FAN_NOFD, 0);
		put_mnt(&b, 1);
		put_mnt(&b, 2);
		fan_end(&b, s);
		fan_bad(&b, 0);
	}
}
END_TEST

/* A record of `type` cut to len bytes (the event stays consistent). */
static void check_short_record(uint8_t type, uint16_t full_len) {
	for (uint16_t len = sizeof(struct fsn_uapi_info_header); len < full_len; len++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };
		size_t s;

		s = fan_begin(&b, FAN_OPEN, 3, 4);
		put_raw_info(&b, type, len);
		fan_end(&b, s);
		/* bytes after the event that a careless decoder would read */
		put_fill(&b, 0, 32);
		fan_bad(&b, 0);
	}
}

START_TEST(bad_pidfd_too_short) {
	check_short_record(FAN_EVENT_INFO_TYPE_PIDFD, sizeof(struct fsn_uapi_info_pidfd));
}
END_TEST

START_TEST(bad_error_too_short) {
	check_short_record(FAN_EVENT_INFO_TYPE_ERROR, sizeof(struct fsn_uapi_info_error));
}
END_TEST

START_TEST(bad_range_too_short) {
	check_short_record(FAN_EVENT_INFO_TYPE_RANGE, sizeof(struct fsn_uapi_info_range));
}
END_TEST

START_TEST(bad_mnt_too_short) {
	check_short_record(FAN_EVENT_INFO_TYPE_MNT, sizeof(struct fsn_uapi_info_mnt));
}
END_TEST

START_TEST(bad_after_good_stops) {
	/* a valid event, then a broken one: the first decodes, decoding then
	 * stops at the second and keeps stopping there */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s1, s2, r;

	s1 = fan_begin(&b, FAN_OPEN, 3, 4);
	fan_end(&b, s1);
	s2 = fan_begin(&b, FAN_CLOSE_WRITE, 5, 6);
	r = put_pidfd(&b, 7);
	fan_end(&b, s2);
	poke_u16(&b, r + INFO_LEN, 0);
	p = seal(&b);

	fan_ok(p, b.len, &off, s2, &ev);
	ck_assert_int_eq(ev.fd, 3);
	assert_bad(fsn_decode_fanotify, p, b.len, off);
}
END_TEST

/* ---- inotify ---- */

START_TEST(ino_no_name) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;

	put_inotify(&b, 3, IN_ATTRIB | IN_ISDIR, 0, NULL, 0);
	p = seal(&b);

	ino_ok(p, b.len, &off, 16, &ev);
	ck_assert_int_eq(ev.wd, 3);
	ck_assert_uint_eq(ev.mask, IN_ATTRIB | IN_ISDIR);
	ck_assert_uint_eq(ev.cookie, 0);
	ck_assert_ptr_null(ev.name);
	ck_assert_int_eq(ev.fd, -1);
	ck_assert_int_eq(ev.pidfd, -1);
	ck_assert_int_eq(ev.pid, 0);
	ck_assert_uint_eq(ev.has, 0);
	ck_assert_ptr_null(ev.group);
	ck_assert_ptr_null(ev.mark);
	ck_assert_int_eq(fsn_decode_inotify(p, b.len, &off, &ev), 0);
	ck_assert_uint_eq(off, 16);
}
END_TEST

START_TEST(ino_with_name) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;

	put_inotify(&b, 1, IN_CREATE, 0, "file.txt", 16);
	p = seal(&b);

	ino_ok(p, b.len, &off, 32, &ev);
	ck_assert_int_eq(ev.wd, 1);
	ck_assert_uint_eq(ev.mask, IN_CREATE);
	ck_assert_str_eq(ev.name, "file.txt");
	ck_assert_ptr_eq(ev.name, (const char *)p + 16);
}
END_TEST

START_TEST(ino_name_fills_len) {
	/* the NUL is the last of the len bytes */
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;

	put_inotify(&b, 1, IN_DELETE, 0, "abcdefghijklmno", 16);
	p = seal(&b);
	ino_ok(p, b.len, &off, 32, &ev);
	ck_assert_str_eq(ev.name, "abcdefghijklmno");
	assert_name_in(ev.name, p, b.len);
}
END_TEST

START_TEST(ino_name_padded) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;

	put_inotify(&b, 2, IN_MODIFY, 0, "a", 64);
	put_inotify(&b, 2, IN_MODIFY, 0, "b", 4);
	p = seal(&b);

	ino_ok(p, b.len, &off, 16 + 64, &ev);
	ck_assert_str_eq(ev.name, "a");
	ino_ok(p, b.len, &off, b.len, &ev);
	ck_assert_str_eq(ev.name, "b");
}
END_TEST

START_TEST(ino_several) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s2, s3, s4;

	put_inotify(&b, 1, IN_MOVED_FROM, 0xc0ffee, "old", 16);
	s2 = put_inotify(&b, 4, IN_MOVED_TO, 0xc0ffee, "new", 16);
	s3 = put_inotify(&b, 4, IN_DELETE_SELF, 0, NULL, 0);
	s4 = put_inotify(&b, 4, IN_IGNORED, 0, NULL, 0);
	put_inotify(&b, -1, IN_Q_OVERFLOW, 0, NULL, 0);
	p = seal(&b);

	ino_ok(p, b.len, &off, s2, &ev);
	ck_assert_int_eq(ev.wd, 1);
	ck_assert_uint_eq(ev.mask, IN_MOVED_FROM);
	ck_assert_uint_eq(ev.cookie, 0xc0ffee);
	ck_assert_str_eq(ev.name, "old");
	ino_ok(p, b.len, &off, s3, &ev);
	ck_assert_int_eq(ev.wd, 4);
	ck_assert_uint_eq(ev.mask, IN_MOVED_TO);
	ck_assert_uint_eq(ev.cookie, 0xc0ffee);
	ck_assert_str_eq(ev.name, "new");
	ino_ok(p, b.len, &off, s4, &ev);
	ck_assert_uint_eq(ev.mask, IN_DELETE_SELF);
	ck_assert_ptr_null(ev.name);
	ck_assert_uint_eq(ev.cookie, 0);
	ino_ok(p, b.len, &off, s4 + 16, &ev);
	ck_assert_uint_eq(ev.mask, IN_IGNORED);
	ino_ok(p, b.len, &off, b.len, &ev);
	ck_assert_int_eq(ev.wd, -1);
	ck_assert_uint_eq(ev.mask, IN_Q_OVERFLOW);
	ck_assert_int_eq(fsn_decode_inotify(p, b.len, &off, &ev), 0);
	ck_assert_uint_eq(off, b.len);
}
END_TEST

START_TEST(ino_misaligned) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };

	put_inotify(&b, 9, IN_CLOSE_WRITE, 5, "m", 8);
	put_inotify(&b, 10, IN_OPEN, 6, NULL, 0);
	for (size_t misalign = 1; misalign < 8; misalign++) {
		const uint8_t *p = seal_at(&b, misalign);
		struct fsn_event ev;
		size_t off = 0;

		ino_ok(p, b.len, &off, 24, &ev);
		ck_assert_int_eq(ev.wd, 9);
		ck_assert_uint_eq(ev.mask, IN_CLOSE_WRITE);
		ck_assert_uint_eq(ev.cookie, 5);
		ck_assert_str_eq(ev.name, "m");
		ino_ok(p, b.len, &off, b.len, &ev);
		ck_assert_int_eq(ev.wd, 10);
		ck_assert_ptr_null(ev.name);
	}
}
END_TEST

START_TEST(ino_bad_header_truncated) {
	for (size_t n = 1; n < sizeof(struct inotify_event); n++) {
		_cleanup_tbuf_ struct tbuf b = { .len = 0 };

		put_inotify(&b, 1, IN_OPEN, 0, NULL, 0);
		b.len = n;
		ino_bad(&b, 0);
	}
}
END_TEST

START_TEST(ino_bad_len_overruns) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	size_t full;

	put_inotify(&b, 1, IN_CREATE, 0, "name", 16);
	full = b.len;
	/* every cut inside the name */
	for (b.len = sizeof(struct inotify_event); b.len < full; b.len++)
		ino_bad(&b, 0);
	b.len = full;
	/* and len values past the end, including overflow bait */
	poke_u32(&b, offsetof(struct inotify_event, len), 17);
	ino_bad(&b, 0);
	poke_u32(&b, offsetof(struct inotify_event, len), UINT32_MAX);
	ino_bad(&b, 0);
	poke_u32(&b, offsetof(struct inotify_event, len), UINT32_MAX - 15);
	ino_bad(&b, 0);
}
END_TEST

START_TEST(ino_bad_name_without_nul) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };

	/* 8 name bytes without NUL, then a second event whose NULs the
	 * decoder must not borrow */
	put_inotify(&b, 1, IN_CREATE, 0, "abcdefgh", 8);
	put_inotify(&b, 0, 0, 0, NULL, 0);
	ino_bad(&b, 0);
}
END_TEST

START_TEST(ino_bad_after_good_stops) {
	_cleanup_tbuf_ struct tbuf b = { .len = 0 };
	struct fsn_event ev;
	const uint8_t *p;
	size_t off = 0;
	size_t s2;

	put_inotify(&b, 1, IN_CREATE, 0, "ok", 4);
	s2 = put_inotify(&b, 1, IN_CREATE, 0, "toolong", 32);
	b.len -= 8;
	p = seal(&b);

	ino_ok(p, b.len, &off, s2, &ev);
	ck_assert_str_eq(ev.name, "ok");
	assert_bad(fsn_decode_inotify, p, b.len, off);
}
END_TEST

static void decode_suite(Suite *s) {
	TCase *tc;

	tc = tcase_create("fanotify");
	tcase_add_test(tc, fan_plain_fd);
	tcase_add_test(tc, fan_overflow_and_fd_error);
	tcase_add_test(tc, fan_fid);
	tcase_add_test(tc, fan_fid_handle_sizes);
	tcase_add_test(tc, fan_dfid_name);
	tcase_add_test(tc, fan_dfid_name_unpadded);
	tcase_add_test(tc, fan_dfid_name_dot);
	tcase_add_test(tc, fan_dfid_only);
	tcase_add_test(tc, fan_fid_and_dfid_name);
	tcase_add_test(tc, fan_rename);
	tcase_add_test(tc, fan_pidfd);
	tcase_add_test(tc, fan_error);
	tcase_add_test(tc, fan_range);
	tcase_add_test(tc, fan_mnt);
	tcase_add_test(tc, fan_two_events);
	tcase_add_test(tc, fan_misaligned);
	tcase_add_test(tc, fan_nonzero_offset_misaligned);
	tcase_add_test(tc, fan_metadata_len_larger);
	tcase_add_test(tc, fan_unknown_info);
	tcase_add_test(tc, fan_empty);
	tcase_add_test(tc, fan_offset_at_end);
	tcase_add_test(tc, decode_invalid_args);
	suite_add_tcase(s, tc);

	tc = tcase_create("fanotify-hostile");
	tcase_add_test(tc, bad_truncated_metadata);
	tcase_add_test(tc, bad_event_len_below_metadata_len);
	tcase_add_test(tc, bad_event_len_below_metadata_size);
	tcase_add_test(tc, bad_metadata_len_below_size);
	tcase_add_test(tc, bad_event_len_beyond_buffer);
	tcase_add_test(tc, bad_truncated_buffer);
	tcase_add_test(tc, bad_event_len_cuts_record);
	tcase_add_test(tc, bad_version);
	tcase_add_test(tc, bad_metadata_len_beyond_event);
	tcase_add_test(tc, bad_info_header_truncated);
	tcase_add_test(tc, bad_info_overruns_event);
	tcase_add_test(tc, bad_info_zero_len);
	tcase_add_test(tc, bad_fid_record_too_short);
	tcase_add_test(tc, bad_fid_handle_overruns_record);
	tcase_add_test(tc, bad_fid_handle_too_big);
	tcase_add_test(tc, bad_name_without_nul);
	tcase_add_test(tc, bad_name_missing);
	tcase_add_test(tc, bad_duplicate_records);
	tcase_add_test(tc, bad_pidfd_too_short);
	tcase_add_test(tc, bad_error_too_short);
	tcase_add_test(tc, bad_range_too_short);
	tcase_add_test(tc, bad_mnt_too_short);
	tcase_add_test(tc, bad_after_good_stops);
	suite_add_tcase(s, tc);

	tc = tcase_create("inotify");
	tcase_add_test(tc, ino_no_name);
	tcase_add_test(tc, ino_with_name);
	tcase_add_test(tc, ino_name_fills_len);
	tcase_add_test(tc, ino_name_padded);
	tcase_add_test(tc, ino_several);
	tcase_add_test(tc, ino_misaligned);
	suite_add_tcase(s, tc);

	tc = tcase_create("inotify-hostile");
	tcase_add_test(tc, ino_bad_header_truncated);
	tcase_add_test(tc, ino_bad_len_overruns);
	tcase_add_test(tc, ino_bad_name_without_nul);
	tcase_add_test(tc, ino_bad_after_good_stops);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("decode", decode_suite);
