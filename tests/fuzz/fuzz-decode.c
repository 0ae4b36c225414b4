/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-decode.c — the fuzz target of the decoders, and its replay program.
 *
 * Every input is decoded as a fanotify buffer and as an inotify buffer, both
 * at the input's own address and from a copy at an odd address, event after
 * event until the decoder returns 0 or an error. Checked on the way: only 1,
 * 0 or -EBADMSG come back; 0 only at the end; an error leaves the offset
 * alone; success moves it forward and never past the end; the FSN_HAS_* bits
 * agree with the fields; every name byte up to the NUL is read (so ASan
 * catches an overread) and the NUL lies inside the event just decoded;
 * the library's one-pass decoder (its dispatch's, fsn-private.h) gives the
 * same result, offset and event as the public one.
 *
 * Built with -DFSN_LIBFUZZER it is a libFuzzer target (meson -Dfuzz=true,
 * CC=clang): a failed check aborts. Without it, it links replay.c:
 *
 *   fuzz-decode-replay FILE|DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

#include "fsn-private.h"
#include "fsn.h"
#include "replay.h"

#define FSN_HAS_ALL                                                                                \
	(FSN_HAS_FID | FSN_HAS_DFID | FSN_HAS_NAME | FSN_HAS_OLD | FSN_HAS_NEW | FSN_HAS_PIDFD |   \
	 FSN_HAS_ERROR | FSN_HAS_RANGE | FSN_HAS_MNT | FSN_HAS_UNKNOWN_INFO)

/* name is NULL iff `present` is false; otherwise it starts in [lo, hi) and
 * its NUL comes before hi. Every byte is read through a volatile pointer. */
static int check_name(const char *name, int present, const uint8_t *lo, const uint8_t *hi) {
	const volatile char *c;

	if (!present) {
		CHECK(!name);
		return 0;
	}
	CHECK(name);
	CHECK((uintptr_t)name >= (uintptr_t)lo && (uintptr_t)name < (uintptr_t)hi);
	for (c = name;; c++) {
		CHECK((uintptr_t)c < (uintptr_t)hi);
		if (*c == '\0')
			return 0;
	}
}

static int check_fid(const struct fsn_fid *fid) {
	CHECK(fid->handle_bytes <= FSN_HANDLE_MAX);
	return 0;
}

static int check_fanotify_event(const struct fsn_event *ev, const uint8_t *start,
				const uint8_t *end) {
	CHECK(ev->source == FSN_SOURCE_FANOTIFY);
	CHECK((size_t)(end - start) >= sizeof(struct fanotify_event_metadata));
	CHECK((ev->has & ~(uint32_t)FSN_HAS_ALL) == 0);
	CHECK(!(ev->has & FSN_HAS_NAME) || (ev->has & FSN_HAS_DFID));
	CHECK((ev->has & FSN_HAS_PIDFD) || ev->pidfd == FAN_NOPIDFD);
	CHECK(ev->wd == -1);
	CHECK(!ev->group && !ev->mark);
	if (check_fid(&ev->fid) < 0 || check_fid(&ev->dfid) < 0 || check_fid(&ev->old_dfid) < 0 ||
	    check_fid(&ev->new_dfid) < 0)
		return -1;
	if (check_name(ev->name, ev->has & FSN_HAS_NAME, start, end) < 0 ||
	    check_name(ev->old_name, ev->has & FSN_HAS_OLD, start, end) < 0 ||
	    check_name(ev->new_name, ev->has & FSN_HAS_NEW, start, end) < 0)
		return -1;
	return 0;
}

static int check_inotify_event(const struct fsn_event *ev, const uint8_t *start,
			       const uint8_t *end) {
	/* struct inotify_event is 16 bytes; the name follows it */
	CHECK(end - start >= 16);
	CHECK(ev->source == FSN_SOURCE_INOTIFY);
	CHECK(ev->fd == -1 && ev->pidfd == -1 && ev->has == 0);
	CHECK(!ev->group && !ev->mark);
	return check_name(ev->name, end - start > 16, start + 16, end);
}

/* a and b are the same event (what the decoder sets; handle bytes beyond
 * handle_bytes are not set). */
static int same_fid(const struct fsn_fid *a, const struct fsn_fid *b) {
	CHECK(a->fsid[0] == b->fsid[0] && a->fsid[1] == b->fsid[1]);
	CHECK(a->handle_bytes == b->handle_bytes && a->handle_type == b->handle_type);
	CHECK(a->handle_bytes > FSN_HANDLE_MAX ||
	      memcmp(a->f_handle, b->f_handle, a->handle_bytes) == 0);
	return 0;
}

static int same_event(const struct fsn_event *a, const struct fsn_event *b) {
	CHECK(a->source == b->source && a->mask == b->mask && a->fd == b->fd && a->pid == b->pid);
	CHECK(a->has == b->has && a->name == b->name && a->old_name == b->old_name &&
	      a->new_name == b->new_name);
	CHECK(a->pidfd == b->pidfd && a->error == b->error && a->error_count == b->error_count);
	CHECK(a->range_offset == b->range_offset && a->range_count == b->range_count);
	CHECK(a->mnt_id == b->mnt_id && a->wd == b->wd && a->cookie == b->cookie);
	CHECK(a->group == b->group && a->mark == b->mark);
	if (same_fid(&a->fid, &b->fid) < 0 || same_fid(&a->dfid, &b->dfid) < 0 ||
	    same_fid(&a->old_dfid, &b->old_dfid) < 0 || same_fid(&a->new_dfid, &b->new_dfid) < 0)
		return -1;
	return 0;
}

/* Decode buf as a stream of events until the end or an error. The
 * library's one-pass decoder (its dispatch's) agrees with the public one
 * on every event: the same result, offset and event. */
static int run_stream(const uint8_t *buf, size_t size, int inotify) {
	size_t off = 0;

	for (;;) {
		struct fsn_event ev, once;
		size_t before = off, once_off = off;
		int r;

		r = inotify ? fsn_decode_inotify(buf, size, &off, &ev)
			    : fsn_decode_fanotify(buf, size, &off, &ev);
		CHECK(r == 1 || r == 0 || r == -EBADMSG);
		if (!inotify) {
			CHECK(fsn_decode_fanotify_once(buf, size, &once_off, &once) == r);
			CHECK(once_off == off);
			if (r == 1 && same_event(&ev, &once) < 0)
				return -1;
		}
		if (r == 0) {
			CHECK(off == size && before == size);
			return 0;
		}
		if (r < 0) {
			CHECK(off == before);
			CHECK(before < size);
			return 0;
		}
		CHECK(off > before && off <= size);
		if (inotify)
			r = check_inotify_event(&ev, buf + before, buf + off);
		else
			r = check_fanotify_event(&ev, buf + before, buf + off);
		if (r < 0)
			return r;
	}
}

int fuzz_one(const uint8_t *data, size_t size) {
	uint8_t *copy;
	int r = 0;

	if (run_stream(data, size, 0) < 0 || run_stream(data, size, 1) < 0)
		return -1;

	/* again from an odd address, ending exactly at the end of the heap
	 * block so ASan still sees a read past it */
	copy = malloc(size + 1);
	if (!copy)
		return -1;
	if (size > 0)
		memcpy(copy + 1, data, size);
	if (run_stream(copy + 1, size, 0) < 0 || run_stream(copy + 1, size, 1) < 0)
		r = -1;
	free(copy);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (fuzz_one(data, size) < 0)
		abort();
	return 0;
}
