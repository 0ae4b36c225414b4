/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-journal.c — the journal output: one journal entry per record,
 * with a human-readable MESSAGE (filenames escaped) and structured FSN_*
 * fields holding the raw bytes (sd_journal_sendv() with explicit lengths,
 * so a newline in a filename stays inside its field). Without a journal
 * (no socket) a record fails: counted, logged once per burst, never fatal.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "escape.h"
#include "fsn-util.h"
#include "fsn.h"
#include "log.h"
#include "origin.h"
#include "output-private.h"
#include "policy.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

enum { MAX_FIELDS = 72 }; /* (16 of them tags, 19 a file's attributes) */

/* The journal gives every entry the host's name and the machine's and
 * boot's ids (_HOSTNAME, _MACHINE_ID, _BOOT_ID); the output numbers its
 * entries in a stream of its own (FSN_STREAM, FSN_SEQ), as the json
 * output does. An entry the journal refused keeps its number: the gap
 * says that one is missing. */
struct journal_output {
	struct output head;
	char stream[33];
	uint64_t seq;
};

struct fields {
	struct iovec iov[MAX_FIELDS];
	char *mem[MAX_FIELDS];
	size_t n;
	bool oom;
};

/* One "KEY=value" field with value of n raw bytes. */
static void field_bytes(struct fields *f, const char *key, const void *value, size_t n) {
	size_t klen = strlen(key);
	char *m;

	if (f->n >= MAX_FIELDS)
		return;
	m = malloc(klen + 1 + n);
	if (!m) {
		f->oom = true;
		return;
	}
	memcpy(m, key, klen);
	m[klen] = '=';
	memcpy(m + klen + 1, value, n);
	f->mem[f->n] = m;
	f->iov[f->n] = (struct iovec){ m, klen + 1 + n };
	f->n++;
}

static void field_str(struct fields *f, const char *key, const char *value) {
	field_bytes(f, key, value, strlen(value));
}

/* KEY=N, a number in decimal */
static void field_num(struct fields *f, const char *key, uint64_t v) {
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	field_str(f, key, num);
}

static void upper(char *s) {
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

/* One attribute of a, by its JSON name, as text. */
static const char *attr_text(const struct record_attrs *a, const char *name, char *buf,
			     size_t len) {
	if (strcmp(name, "type") == 0)
		return record_attrs_type_name(a->type);
	if (strcmp(name, "mode") == 0)
		snprintf(buf, len, "%04" PRIo32, a->mode & 07777);
	else if (strcmp(name, "uid") == 0)
		snprintf(buf, len, "%" PRIu32, a->uid);
	else if (strcmp(name, "gid") == 0)
		snprintf(buf, len, "%" PRIu32, a->gid);
	else if (strcmp(name, "size") == 0)
		snprintf(buf, len, "%" PRIu64, a->size);
	else if (strcmp(name, "mtime") == 0)
		snprintf(buf, len, "%" PRId64 ".%09" PRIu32, a->mtime_sec, a->mtime_nsec);
	else if (strcmp(name, "ctime") == 0)
		snprintf(buf, len, "%" PRId64 ".%09" PRIu32, a->ctime_sec, a->ctime_nsec);
	else if (strcmp(name, "ino") == 0)
		snprintf(buf, len, "%" PRIu64, a->ino);
	else
		snprintf(buf, len, "%" PRIu32, a->nlink);
	return buf;
}

/* PREFIX<NAME>=the attribute name of a */
static void field_attr(struct fields *f, const char *prefix, const struct record_attrs *a,
		       const char *name) {
	char key[32], text[64];

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	upper(key);
	field_str(f, key, attr_text(a, name, text, sizeof(text)));
}

/* FSN_FILE_* (what it is), FSN_BEFORE_* of what changed (all of them when
 * it is gone: a baseline's deleted) and FSN_CHANGED. */
static void fields_attrs(struct fields *f, const struct record *r) {
	const char *changed[RECORD_CHANGED_N];
	char list[160];
	size_t n, pos = 0;

	for (size_t i = 0; r->attrs && i < RECORD_ATTRS_N; i++)
		field_attr(f, "FSN_FILE_", r->attrs, record_attrs_names[i]);
	if (!r->attrs_before)
		return;
	if (!r->attrs) {
		for (size_t i = 0; i < RECORD_ATTRS_N; i++)
			field_attr(f, "FSN_BEFORE_", r->attrs_before, record_attrs_names[i]);
		return;
	}
	n = record_changed(r, changed);
	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (strcmp(changed[i], "content") != 0 && strcmp(changed[i], "target") != 0)
			field_attr(f, "FSN_BEFORE_", r->attrs_before, changed[i]);
		pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%s", i ? "," : "",
					changed[i]);
	}
	field_str(f, "FSN_CHANGED", list);
}

/* A baseline record's: its attributes, hashes and targets, before and now. */
static void fields_baseline(struct fields *f, const struct record *r) {
	const struct record_baseline *b = r->baseline;

	fields_attrs(f, r);
	if (!b)
		return;
	if (b->sha256)
		field_str(f, "FSN_SHA256", b->sha256);
	if (b->sha256_before)
		field_str(f, "FSN_SHA256_BEFORE", b->sha256_before);
	if (b->hash_skipped)
		field_str(f, "FSN_HASH_SKIPPED", b->hash_skipped);
	if (b->target)
		field_str(f, "FSN_TARGET", b->target);
	if (b->target_before)
		field_str(f, "FSN_TARGET_BEFORE", b->target_before);
	if (b->recorded_usec)
		field_num(f, "FSN_RECORDED", b->recorded_usec);
	if (b->package_asked && b->package)
		field_str(f, "FSN_PACKAGE", b->package);
	if (b->package_asked)
		field_num(f, "FSN_PACKAGE_VERIFIED", b->package_verified);
}

static void fields_free(struct fields *f) {
	for (size_t i = 0; i < f->n; i++)
		free(f->mem[i]);
}

static void __attribute__((format(printf, 4, 5)))
msg_printf(char *buf, size_t len, size_t *pos, const char *fmt, ...) {
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*pos < len ? buf + *pos : NULL, *pos < len ? len - *pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

static void msg_escape(char *buf, size_t len, size_t *pos, const char *s) {
	text_escape(buf, len, pos, s, strlen(s));
}

/* " (pid N comm, uid U" — the caller closes the parenthesis. */
static void msg_process(char *msg, size_t len, size_t *pos, const struct record *r) {
	msg_printf(msg, len, pos, " (pid %d", (int)r->pid);
	if (r->comm) {
		msg_printf(msg, len, pos, " ");
		msg_escape(msg, len, pos, r->comm);
	}
	if (r->uid != (uid_t)-1)
		msg_printf(msg, len, pos, ", uid %u", (unsigned)r->uid);
}

/* The MESSAGE text: printable, escaped, bounded (truncated to len). */
static void format_message(const struct record *r, const char *events, char *msg, size_t len) {
	size_t pos = 0;

	msg[0] = '\0';
	msg_escape(msg, len, &pos, r->rule ? r->rule : "-");
	switch (r->kind) {
	case RECORD_EVENT:
		msg_printf(msg, len, &pos, ": %s ", events);
		if (r->old_path) {
			msg_escape(msg, len, &pos, r->old_path);
			msg_printf(msg, len, &pos, " -> ");
		}
		msg_escape(msg, len, &pos, r->path ? r->path : "(unknown path)");
		if (r->pid > 0) {
			msg_process(msg, len, &pos, r);
			msg_printf(msg, len, &pos, ")");
		}
		break;
	case RECORD_OVERFLOW:
		msg_printf(msg, len, &pos, ": the kernel event queue overflowed, events were lost");
		break;
	case RECORD_DROPPED:
		msg_printf(msg, len, &pos, ": %" PRIu64 " events dropped", r->count);
		break;
	case RECORD_DECISION: {
		char v[64];

		msg_printf(msg, len, &pos, ": %s %s ",
			   r->verdict ? verdict_format(r->verdict, v, sizeof(v)) : "?", events);
		msg_escape(msg, len, &pos, r->path ? r->path : "(unknown path)");
		msg_process(msg, len, &pos, r);
		msg_printf(msg, len, &pos, "; by %s", r->by ? r->by : "?");
		if (r->decision > 0)
			msg_printf(msg, len, &pos, " #%u", r->decision);
		msg_printf(msg, len, &pos, ", %" PRIu64 " us)", r->latency_us);
		break;
	}
	case RECORD_RESCAN:
		msg_printf(msg, len, &pos, ": rescan after an overflow: %s ",
			   r->change ? r->change : "?");
		msg_escape(msg, len, &pos, r->path ? r->path : "(unknown path)");
		break;
	case RECORD_GONE:
	case RECORD_UNMOUNTED:
	case RECORD_REARMED:
		msg_printf(msg, len, &pos, ": ");
		format_lifecycle(r, msg, len, &pos);
		break;
	case RECORD_CONTENT:
		msg_printf(msg, len, &pos, ": content of ");
		msg_escape(msg, len, &pos, r->path ? r->path : "(unknown path)");
		format_content(r->content, msg, len, &pos);
		break;
	case RECORD_BASELINE:
		msg_printf(msg, len, &pos, ": %s ", r->change ? r->change : "?");
		msg_escape(msg, len, &pos, r->path ? r->path : "(unknown path)");
		if (r->old_path) {
			msg_printf(msg, len, &pos, " from ");
			msg_escape(msg, len, &pos, r->old_path);
		}
		msg_printf(msg, len, &pos, " (%s)", r->reason ? r->reason : "?");
		break;
	case RECORD_STATS:
		if (r->perm)
			msg_printf(msg, len, &pos,
				   ": %" PRIu64 " allowed, %" PRIu64 " denied, %" PRIu64
				   " audited, %" PRIu64 " on deadline; latency p50 %" PRIu64
				   " us, p99 %" PRIu64 " us",
				   r->perm->allowed, r->perm->denied, r->perm->audited,
				   r->perm->deadline, r->perm->latency_p50_us,
				   r->perm->latency_p99_us);
		break;
	}
}

/* MESSAGE_ID: one per record kind, so a kind can be selected anywhere the
 * journal goes (journalctl MESSAGE_ID=..., a remote journal). */
static const char *record_message_id(enum record_kind kind) {
	switch (kind) {
	case RECORD_EVENT: return FSND_MID_EVENT;
	case RECORD_OVERFLOW: return FSND_MID_OVERFLOW;
	case RECORD_DROPPED: return FSND_MID_DROPPED;
	case RECORD_DECISION: return FSND_MID_DECISION;
	case RECORD_STATS: return FSND_MID_STATS;
	case RECORD_RESCAN: return FSND_MID_RESCAN;
	case RECORD_GONE: return FSND_MID_GONE;
	case RECORD_UNMOUNTED: return FSND_MID_UNMOUNTED;
	case RECORD_REARMED: return FSND_MID_REARMED;
	case RECORD_CONTENT: return FSND_MID_CONTENT;
	case RECORD_BASELINE: return FSND_MID_BASELINE;
	}
	return NULL;
}

static void journal_emit(struct output *o, const struct record *r) {
	struct journal_output *jo = (struct journal_output *)o;
	const char *mid = record_message_id(r->kind);
	struct fields f = { .n = 0 };
	char events[1024] = "", msg[2048];
	int ret;

	if (r->mask)
		fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->mask, events, sizeof(events));
	format_message(r, events, msg, sizeof(msg));

	field_str(&f, "MESSAGE", msg);
	field_num(&f, "PRIORITY", (uint64_t)record_severity(r)); /* (escape.h: rule's, loss's) */
	field_str(&f, "SYSLOG_IDENTIFIER", "fsnotifyd");
	if (mid)
		field_str(&f, "MESSAGE_ID", mid);
	field_str(&f, "FSN_KIND", record_kind_name(r->kind));
	if (r->rule)
		field_str(&f, "FSN_RULE", r->rule);
	if (events[0])
		field_str(&f, "FSN_EVENTS", events);
	if (r->path)
		field_str(&f, "FSN_PATH", r->path);
	if (r->old_path)
		field_str(&f, "FSN_OLD_PATH", r->old_path);
	if (r->pid > 0)
		field_num(&f, "FSN_PID", (uint64_t)r->pid);
	if (r->comm)
		field_str(&f, "FSN_COMM", r->comm);
	if (r->uid != (uid_t)-1)
		field_num(&f, "FSN_UID", r->uid);
	if ((r->kind == RECORD_EVENT || r->kind == RECORD_DECISION) && r->who) {
		const struct record_who *w = r->who;

		if (w->login_uid != (uint32_t)-1)
			field_num(&f, "FSN_LOGIN_UID", w->login_uid);
		if (w->session != (uint32_t)-1)
			field_num(&f, "FSN_SESSION", w->session);
		if (w->exe && r->kind == RECORD_EVENT) /* (a decision says it anyway) */
			field_str(&f, "FSN_EXE", w->exe);
		if (w->ppid > 0)
			field_num(&f, "FSN_PPID", (uint64_t)w->ppid);
		if (w->parent_comm)
			field_str(&f, "FSN_PARENT_COMM", w->parent_comm);
		if (w->unit)
			field_str(&f, "FSN_UNIT", w->unit);
		if (w->slice)
			field_str(&f, "FSN_SLICE", w->slice);
		if (w->container)
			field_str(&f, "FSN_CONTAINER", w->container);
		if (w->mntns)
			field_num(&f, "FSN_MNTNS", w->mntns);
		if (r->who_skipped)
			field_str(&f, "FSN_WHO_SKIPPED", r->who_skipped);
	}
	if ((r->kind == RECORD_EVENT || r->kind == RECORD_RESCAN) && r->attrs)
		fields_attrs(&f, r);
	else if (r->kind == RECORD_BASELINE)
		fields_baseline(&f, r);
	else if (r->kind == RECORD_EVENT && r->attrs_skipped)
		field_str(&f, "FSN_ATTRS_SKIPPED", r->attrs_skipped);
	if (r->kind == RECORD_EVENT && r->hash_skipped)
		field_str(&f, "FSN_HASH_SKIPPED", r->hash_skipped);
	if (r->kind == RECORD_DROPPED)
		field_num(&f, "FSN_COUNT", r->count);
	if (r->kind == RECORD_CONTENT && r->content) {
		const struct record_content *c = r->content;

		if (c->sha256[0])
			field_str(&f, "FSN_SHA256", c->sha256);
		else
			field_str(&f, "FSN_HASH_SKIPPED", c->skipped ? c->skipped : "error");
		if (c->has_size)
			field_num(&f, "FSN_SIZE", c->size);
		field_num(&f, "FSN_EVENT_TIME", c->event_usec);
		if (c->package_asked && c->package)
			field_str(&f, "FSN_PACKAGE", c->package);
		if (c->package_asked)
			field_num(&f, "FSN_PACKAGE_VERIFIED", c->package_verified);
	}
	if ((r->kind == RECORD_RESCAN || r->kind == RECORD_BASELINE) && r->change)
		field_str(&f, "FSN_CHANGE", r->change);
	if ((r->kind == RECORD_GONE || r->kind == RECORD_BASELINE) && r->reason)
		field_str(&f, "FSN_REASON", r->reason);
	if (r->kind == RECORD_UNMOUNTED && r->mount)
		field_str(&f, "FSN_MOUNT", r->mount);
	if (r->kind == RECORD_DECISION && r->verdict) {
		char v[64];

		field_str(&f, "FSN_VERDICT", verdict_format(r->verdict, v, sizeof(v)));
		if (r->by)
			field_str(&f, "FSN_BY", r->by);
		if (r->exe)
			field_str(&f, "FSN_EXE", r->exe);
		field_num(&f, "FSN_LATENCY_US", r->latency_us);
	}
	for (size_t i = 0; r->label && i < r->label->n_tags; i++)
		field_str(&f, "FSN_TAG",
			  r->label->tags[i]); /* (one field each: FSN_TAG=x matches) */
	field_str(&f, "FSN_STREAM", jo->stream);
	field_num(&f, "FSN_SEQ", ++jo->seq);

	/* sd_journal_sendv() reports success when there is no journal at
	 * all (it drops the entry silently); look for the socket first. */
	if (f.oom)
		ret = -ENOMEM;
	else if (access(JOURNAL_SOCKET, W_OK) < 0)
		ret = -errno;
	else
		ret = sd_journal_sendv(f.iov, (int)f.n);
	fields_free(&f);
	if (ret < 0)
		output_failed(o, 1, -ret, "cannot send to the journal (%s)", JOURNAL_SOCKET);
	else
		output_succeeded(o, 1);
}

static void journal_free(struct output *o) {
	output_done(o);
	free(o);
}

static const struct output_ops journal_ops = {
	.emit = journal_emit,
	.free = journal_free,
};

int output_journal_open(const struct output_conf *conf, struct ev_loop *loop, struct output **ret,
			char *err, size_t errlen) {
	_cleanup_free_ struct journal_output *jo = calloc(1, sizeof(*jo));

	if (!jo || output_init(&jo->head, &journal_ops, conf, loop) < 0) {
		snprintf(err, errlen, "output '%s': out of memory", conf->name);
		return -ENOMEM;
	}
	origin_new_stream(jo->stream);
	*ret = &steal_ptr(&jo)->head;
	return 0;
}
