/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode.c — the pure decoders: one fanotify event (metadata plus info
 * records) or one inotify event out of a byte buffer that was read from the
 * kernel, into a struct fsn_event.
 *
 * No system calls, no global state. The buffer may start at any address and
 * may be hostile: every header is bounds-checked first and then copied out
 * with memcpy() into aligned storage, never dereferenced in place. Names are
 * the only thing handed out by pointer into the buffer, and only after a NUL
 * was found inside their record.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>

#include "fsn-private.h"

/* The fixed part of every fid-type record: header and fsid, then struct
 * file_handle's handle_bytes and handle_type; the handle bytes (and, for the
 * *_DFID_NAME types, a NUL-terminated name) follow. */
#define FID_HANDLE_OFFSET sizeof(struct fsn_uapi_info_fid)
#define FID_RECORD_MIN (FID_HANDLE_OFFSET + sizeof(uint32_t) + sizeof(int32_t))

/*
 * Decode one fid-type record of rec_len bytes (rec_len >= the header, checked
 * against the event by the caller). When ret_name is not NULL the record must
 * carry a NUL-terminated name after the handle. Nothing is written unless the
 * whole record is valid.
 */
static int decode_fid_record(const uint8_t *rec, size_t rec_len, bool with_name,
			     struct fsn_fid *ret_fid, const char **ret_name) {
	struct fsn_uapi_info_fid info;
	uint32_t handle_bytes;
	int32_t handle_type;
	size_t pos;
	const char *name = NULL;

	if (rec_len < FID_RECORD_MIN)
		return -EBADMSG;

	memcpy(&info, rec, sizeof(info));
	pos = FID_HANDLE_OFFSET;
	memcpy(&handle_bytes, rec + pos, sizeof(handle_bytes));
	pos += sizeof(handle_bytes);
	memcpy(&handle_type, rec + pos, sizeof(handle_type));
	pos += sizeof(handle_type);

	if (handle_bytes > FSN_HANDLE_MAX || handle_bytes > rec_len - pos)
		return -EBADMSG;

	if (with_name) {
		size_t name_pos = pos + handle_bytes;

		/* No name bytes at all (name_pos == rec_len) finds no NUL either. */
		if (!memchr(rec + name_pos, '\0', rec_len - name_pos))
			return -EBADMSG;
		name = (const char *)rec + name_pos;
	}
	if (!ret_fid)
		return 0;

	/* (f_handle beyond handle_bytes is left as it was: nobody reads it) */
	memcpy(ret_fid->fsid, info.fsid, sizeof(ret_fid->fsid));
	ret_fid->handle_bytes = handle_bytes;
	ret_fid->handle_type = handle_type;
	memcpy(ret_fid->f_handle, rec + pos, handle_bytes);
	if (ret_name)
		*ret_name = name;
	return 0;
}

/* Check one info record of a known or unknown type, and decode it into ev
 * (NULL: only check it). *has collects the FSN_HAS_* bits of the records
 * seen, to refuse duplicates. rec_len is the record's own len, already
 * checked to be >= its header and to lie inside the event. */
static int decode_info_record(const uint8_t *rec, size_t rec_len, uint8_t type, uint32_t *has,
			      struct fsn_event *ev) {
	struct fsn_event none; /* a scratch for a check: what goes there is dropped */
	struct fsn_fid *fid = NULL;
	const char **name = NULL;
	uint32_t bit = 0;
	int r;

	if (!ev)
		ev = &none;

	/* The four file-identifier record types differ only in where they go.
	 * DFID and DFID_NAME both fill ev->dfid: one of each in an event is a
	 * duplicate too. */
	switch (type) {
	case FAN_EVENT_INFO_TYPE_FID:
		fid = &ev->fid;
		bit = FSN_HAS_FID;
		break;
	case FAN_EVENT_INFO_TYPE_DFID:
		fid = &ev->dfid;
		bit = FSN_HAS_DFID;
		break;
	case FAN_EVENT_INFO_TYPE_DFID_NAME:
		fid = &ev->dfid;
		name = &ev->name;
		bit = FSN_HAS_DFID;
		break;
	case FAN_EVENT_INFO_TYPE_OLD_DFID_NAME:
		fid = &ev->old_dfid;
		name = &ev->old_name;
		bit = FSN_HAS_OLD;
		break;
	case FAN_EVENT_INFO_TYPE_NEW_DFID_NAME:
		fid = &ev->new_dfid;
		name = &ev->new_name;
		bit = FSN_HAS_NEW;
		break;
	default: break;
	}
	if (fid) {
		if (*has & bit)
			return -EBADMSG;
		r = decode_fid_record(rec, rec_len, name != NULL, ev == &none ? NULL : fid, name);
		if (r < 0)
			return r;
		*has |= bit;
		if (type == FAN_EVENT_INFO_TYPE_DFID_NAME)
			*has |= FSN_HAS_NAME;
		return 0;
	}

	switch (type) {
	case FAN_EVENT_INFO_TYPE_PIDFD: {
		struct fsn_uapi_info_pidfd info;

		if ((*has & FSN_HAS_PIDFD) || rec_len < sizeof(info))
			return -EBADMSG;
		memcpy(&info, rec, sizeof(info));
		ev->pidfd = info.pidfd;
		*has |= FSN_HAS_PIDFD;
		return 0;
	}

	case FAN_EVENT_INFO_TYPE_ERROR: {
		struct fsn_uapi_info_error info;

		if ((*has & FSN_HAS_ERROR) || rec_len < sizeof(info))
			return -EBADMSG;
		memcpy(&info, rec, sizeof(info));
		ev->error = info.error;
		ev->error_count = info.error_count;
		*has |= FSN_HAS_ERROR;
		return 0;
	}

	case FAN_EVENT_INFO_TYPE_RANGE: {
		struct fsn_uapi_info_range info;

		if ((*has & FSN_HAS_RANGE) || rec_len < sizeof(info))
			return -EBADMSG;
		memcpy(&info, rec, sizeof(info));
		ev->range_offset = info.offset;
		ev->range_count = info.count;
		*has |= FSN_HAS_RANGE;
		return 0;
	}

	case FAN_EVENT_INFO_TYPE_MNT: {
		struct fsn_uapi_info_mnt info;

		if ((*has & FSN_HAS_MNT) || rec_len < sizeof(info))
			return -EBADMSG;
		memcpy(&info, rec, sizeof(info));
		ev->mnt_id = info.mnt_id;
		*has |= FSN_HAS_MNT;
		return 0;
	}

	default:
		/* A newer kernel's record: its len says how far to skip. */
		*has |= FSN_HAS_UNKNOWN_INFO;
		return 0;
	}
}

/* Every field of struct fsn_event is set by name in fsn_decode_fanotify():
 * one added to it must be set there too. */
_Static_assert(sizeof(struct fsn_event) == 4 * sizeof(struct fsn_fid) + 120 || sizeof(void *) != 8,
	       "struct fsn_event changed: set the new field in fsn_decode_fanotify()");

/* An empty handle (its bytes beyond handle_bytes are never read). */
static void fid_clear(struct fsn_fid *fid) {
	fid->fsid[0] = fid->fsid[1] = 0;
	fid->handle_bytes = 0;
	fid->handle_type = 0;
}

/* The event's info records checked, and decoded into ev (NULL: checked
 * only; ev->has collects their bits). */
static int decode_info_records(const uint8_t *event, const struct fanotify_event_metadata *md,
			       struct fsn_event *ev) {
	uint32_t has = 0;

	for (size_t pos = md->metadata_len; pos < md->event_len;) {
		struct fsn_uapi_info_header hdr;
		size_t rec_left = md->event_len - pos;
		int r;

		if (rec_left < sizeof(hdr))
			return -EBADMSG;
		memcpy(&hdr, event + pos, sizeof(hdr));
		/* hdr.len >= sizeof(hdr) also rules out 0, which would never advance. */
		if (hdr.len < sizeof(hdr) || hdr.len > rec_left)
			return -EBADMSG;

		r = decode_info_record(event + pos, hdr.len, hdr.info_type, &has, ev);
		if (r < 0)
			return r;
		pos += hdr.len;
	}
	if (ev)
		ev->has = has;
	return 0;
}

/* fsn_decode_fanotify(); keep: *ev untouched on failure (the info records
 * all checked before one is decoded, as the API promises), or set in part
 * (one pass: the library's own dispatch drops a malformed read's rest). */
static int decode_fanotify(const void *buf, size_t len, size_t *offset, struct fsn_event *ev,
			   bool keep) {
	struct fanotify_event_metadata md;
	const uint8_t *event;
	size_t remaining;
	int r;

	if (!offset || !ev || (!buf && len > 0) || *offset > len)
		return -EINVAL;
	if (*offset == len)
		return 0;

	event = (const uint8_t *)buf + *offset;
	remaining = len - *offset;

	if (remaining < sizeof(md))
		return -EBADMSG;
	memcpy(&md, event, sizeof(md));
	if (md.vers != FANOTIFY_METADATA_VERSION)
		return -EBADMSG;
	/* This also keeps event_len >= sizeof(md), so every event moves on. */
	if (md.metadata_len < sizeof(md) || md.event_len < md.metadata_len ||
	    md.event_len > remaining)
		return -EBADMSG;

	/* The info records follow the metadata, up to event_len: with keep,
	 * all checked first, then decoded straight into *ev (not through a
	 * copy: the event is 700 bytes, most of them room for handles, and a
	 * storm decodes millions). */
	if (keep && (r = decode_info_records(event, &md, NULL)) < 0)
		return r;
	ev->source = FSN_SOURCE_FANOTIFY;
	ev->mask = md.mask;
	ev->fd = md.fd;
	ev->pid = md.pid;
	ev->has = 0;
	fid_clear(&ev->fid);
	fid_clear(&ev->dfid);
	ev->name = NULL;
	fid_clear(&ev->old_dfid);
	ev->old_name = NULL;
	fid_clear(&ev->new_dfid);
	ev->new_name = NULL;
	ev->pidfd = FAN_NOPIDFD;
	ev->error = 0;
	ev->error_count = 0;
	ev->range_offset = 0;
	ev->range_count = 0;
	ev->mnt_id = 0;
	ev->wd = -1;
	ev->cookie = 0;
	ev->group = NULL;
	ev->mark = NULL;
	r = decode_info_records(event, &md, ev);
	if (r < 0)
		return r; /* (only without keep: checked already with it) */
	*offset += md.event_len;
	return 1;
}

_public_ int fsn_decode_fanotify(const void *buf, size_t len, size_t *offset,
				 struct fsn_event *ev) {
	return decode_fanotify(buf, len, offset, ev, true);
}

int fsn_decode_fanotify_once(const void *buf, size_t len, size_t *offset, struct fsn_event *ev) {
	return decode_fanotify(buf, len, offset, ev, false);
}

_public_ int fsn_decode_inotify(const void *buf, size_t len, size_t *offset, struct fsn_event *ev) {
	struct inotify_event ie;
	const uint8_t *event;
	size_t remaining;

	if (!offset || !ev || (!buf && len > 0) || *offset > len)
		return -EINVAL;
	if (*offset == len)
		return 0;

	event = (const uint8_t *)buf + *offset;
	remaining = len - *offset;

	if (remaining < sizeof(ie))
		return -EBADMSG;
	memcpy(&ie, event, sizeof(ie));
	if (ie.len > remaining - sizeof(ie))
		return -EBADMSG;
	/* The kernel pads the name with NULs; it must end inside len. */
	if (ie.len > 0 && !memchr(event + sizeof(ie), '\0', ie.len))
		return -EBADMSG;

	*ev = (struct fsn_event){
		.source = FSN_SOURCE_INOTIFY,
		.mask = ie.mask,
		.fd = -1,
		.pidfd = -1,
		.wd = ie.wd,
		.cookie = ie.cookie,
		.name = ie.len > 0 ? (const char *)event + sizeof(ie) : NULL,
	};
	*offset += sizeof(ie) + ie.len;
	return 1;
}
