/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ecs.c — a record as an Elastic Common Schema document, one JSON object
 * per line (record_to_ecs(), escape.h): a json output's "format = ecs",
 * read as it is by Filebeat, Elastic Agent or any collector that ships to
 * Elasticsearch or OpenSearch. ECS's fields where ECS has one (ECS_VERSION:
 * @timestamp, event.*, file.*, process.*, user.id, host.*, container.*,
 * package.name, rule.name, log.level, tags), nested as ECS nests them; the
 * rest of the record under "fsnotifyd" (ECS's place for a source's own
 * fields). Unknown values are left out, not null. Pure, like escape.c;
 * tests/ecs checks every field against ECS's own definitions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "escape.h"
#include "fsn-uapi.h"
#include "fsn.h"
#include "put.h"
#include "verdict.h"

#define ECS_DEPTH 6

/* A writer of nested objects: an object begun is written at its first
 * member (none: not at all), a comma before every member but the first. */
struct ew {
	char *buf;
	size_t len, pos;
	unsigned depth, pending;      /* objects written and open; begun, not yet written */
	bool any[ECS_DEPTH + 1];      /* a member written at each depth */
	const char *names[ECS_DEPTH]; /* the begun ones' keys, outermost first */
};

static void ew_open_pending(struct ew *w) {
	for (unsigned i = 0; i < w->pending; i++) {
		if (w->any[w->depth])
			put(w->buf, w->len, &w->pos, ",", 1);
		w->any[w->depth] = true;
		put(w->buf, w->len, &w->pos, "\"", 1);
		puts_(w->buf, w->len, &w->pos, w->names[i]);
		put(w->buf, w->len, &w->pos, "\":{", 3);
		w->any[++w->depth] = false;
	}
	w->pending = 0;
}

/* "key": (after a comma unless first) */
static void ew_key(struct ew *w, const char *key) {
	ew_open_pending(w);
	if (w->any[w->depth])
		put(w->buf, w->len, &w->pos, ",", 1);
	w->any[w->depth] = true;
	put(w->buf, w->len, &w->pos, "\"", 1);
	puts_(w->buf, w->len, &w->pos, key);
	put(w->buf, w->len, &w->pos, "\":", 2);
}

static void ew_begin(struct ew *w, const char *key) {
	if (w->depth + w->pending < ECS_DEPTH)
		w->names[w->pending++] = key;
}

static void ew_end(struct ew *w) {
	if (w->pending > 0)
		w->pending--;
	else if (w->depth > 0) {
		w->depth--;
		put(w->buf, w->len, &w->pos, "}", 1);
	}
}

static void ew_quoted(struct ew *w, const char *s) {
	put(w->buf, w->len, &w->pos, "\"", 1);
	json_escape(w->buf, w->len, &w->pos, s);
	put(w->buf, w->len, &w->pos, "\"", 1);
}

/* "key":"s", unless s is NULL */
static void ew_str(struct ew *w, const char *key, const char *s) {
	if (!s)
		return;
	ew_key(w, key);
	ew_quoted(w, s);
}

static void ew_u64(struct ew *w, const char *key, uint64_t v) {
	ew_key(w, key);
	put_u64(w->buf, w->len, &w->pos, v);
}

/* "key":"v" (ECS keeps ids as keywords) */
static void ew_id(struct ew *w, const char *key, uint64_t v) {
	ew_key(w, key);
	put(w->buf, w->len, &w->pos, "\"", 1);
	put_u64(w->buf, w->len, &w->pos, v);
	put(w->buf, w->len, &w->pos, "\"", 1);
}

static void ew_bool(struct ew *w, const char *key, bool v) {
	ew_key(w, key);
	puts_(w->buf, w->len, &w->pos, v ? "true" : "false");
}

static void ew_time(struct ew *w, const char *key, uint64_t usec) {
	char stamp[96];

	format_time_usec(stamp, sizeof(stamp), usec);
	ew_str(w, key, stamp);
}

/* A file time as an ECS date; left out when its year has not four digits:
 * Elasticsearch would refuse the whole document, and with it the record */
static void ew_nsec_time(struct ew *w, const char *key, int64_t sec, uint32_t nsec) {
	char text[64];

	if (format_nsec_time(text, sizeof(text), sec, nsec))
		ew_str(w, key, text);
}

/* "key":"s" as JSON text (not valid UTF-8: each bad byte U+FFFD); false
 * when it was not valid (the caller adds its base64) */
static bool ew_path(struct ew *w, const char *key, const char *s) {
	bool valid;

	ew_key(w, key);
	put(w->buf, w->len, &w->pos, "\"", 1);
	valid = json_escape(w->buf, w->len, &w->pos, s);
	put(w->buf, w->len, &w->pos, "\"", 1);
	return valid;
}

static void ew_b64(struct ew *w, const char *key, const char *s) {
	size_t need = base64_encode(NULL, 0, s, strlen(s));

	ew_key(w, key);
	put(w->buf, w->len, &w->pos, "\"", 1);
	if (w->len > 0 && w->pos < w->len - 1)
		base64_encode(w->buf + w->pos, w->len - w->pos, s, strlen(s));
	w->pos += need;
	put(w->buf, w->len, &w->pos, "\"", 1);
}

/* "key":["v0","v1"...] */
static void ew_strings(struct ew *w, const char *key, const char *const *v, size_t n) {
	ew_key(w, key);
	put(w->buf, w->len, &w->pos, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			put(w->buf, w->len, &w->pos, ",", 1);
		ew_quoted(w, v[i]);
	}
	put(w->buf, w->len, &w->pos, "]", 1);
}

/* "key":["a","b"] of the names in text ("a,b") */
static void ew_names(struct ew *w, const char *key, const char *text) {
	bool first = true;

	ew_key(w, key);
	put(w->buf, w->len, &w->pos, "[", 1);
	for (const char *p = text, *end; *p; p = end + (*end != '\0')) {
		end = p + strcspn(p, ",");
		if (!first)
			put(w->buf, w->len, &w->pos, ",", 1);
		put(w->buf, w->len, &w->pos, "\"", 1);
		put(w->buf, w->len, &w->pos, p, (size_t)(end - p)); /* ([a-z0-9_]) */
		put(w->buf, w->len, &w->pos, "\"", 1);
		first = false;
	}
	put(w->buf, w->len, &w->pos, "]", 1);
}

/* ---- ECS's categorisation ---- */

#define ECS_CREATION (FAN_CREATE | FAN_MOVED_TO)
#define ECS_DELETION (FAN_DELETE | FAN_MOVED_FROM | FAN_DELETE_SELF)
#define ECS_CHANGE (FAN_MODIFY | FAN_CLOSE_WRITE | FAN_ATTRIB | FAN_MOVE_SELF | FAN_RENAME)
#define ECS_ACCESS                                                                                 \
	(FAN_ACCESS | FAN_OPEN | FAN_OPEN_EXEC | FAN_CLOSE_NOWRITE | FAN_OPEN_PERM |               \
	 FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM | FAN_PRE_ACCESS)

/* event.type of a change ("created", "deleted", ... of a rescan or a
 * baseline record) */
static const char *change_type(const char *change) {
	if (!change)
		return "info";
	if (strcmp(change, "created") == 0)
		return "creation";
	if (strcmp(change, "deleted") == 0)
		return "deletion";
	return "change";
}

/* event.kind, event.category, event.type, event.action */
static void put_categories(struct ew *w, const struct record *r, const char *events) {
	const bool decision = r->kind == RECORD_DECISION;
	const char *types[4];
	size_t n = 0;

	ew_str(w, "kind", r->kind == RECORD_STATS ? "metric" : "event");
	ew_key(w, "category");
	puts_(w->buf, w->len, &w->pos,
	      decision ? "[\"file\",\"intrusion_detection\"]" : "[\"file\"]");
	if (r->kind == RECORD_EVENT || decision) {
		if (r->mask & ECS_CREATION)
			types[n++] = "creation";
		if (r->mask & ECS_DELETION)
			types[n++] = "deletion";
		if (r->mask & ECS_CHANGE)
			types[n++] = "change";
		if (r->mask & ECS_ACCESS)
			types[n++] = "access";
		if (decision)
			types[n++] = r->verdict && r->verdict->deny ? "denied" : "allowed";
	} else if (r->kind == RECORD_RESCAN || r->kind == RECORD_BASELINE)
		types[n++] = change_type(r->change);
	if (n == 0)
		types[n++] = "info";
	ew_strings(w, "type", types, n);
	/* what happened: the events, else the record's kind (and change) */
	if (events[0] && (r->kind == RECORD_EVENT || decision))
		ew_names(w, "action", events);
	else if (r->change && (r->kind == RECORD_RESCAN || r->kind == RECORD_BASELINE)) {
		char action[64];

		snprintf(action, sizeof(action), "%s-%s", record_kind_name(r->kind), r->change);
		ew_str(w, "action", action);
	} else
		ew_str(w, "action", record_kind_name(r->kind));
}

static void put_event(struct ew *w, const struct record *r, const char *events) {
	ew_begin(w, "event");
	put_categories(w, r, events);
	ew_str(w, "module", "fsnotifyd");
	ew_str(w, "dataset", "fsnotifyd.record");
	ew_u64(w, "severity", (uint64_t)record_severity(r));
	if (r->stream)
		ew_u64(w, "sequence", r->seq);
	if (r->kind == RECORD_CONTENT && r->content)
		ew_time(w, "created", r->content->event_usec); /* (when the change was read) */
	if (r->kind == RECORD_DECISION)
		ew_u64(w, "duration", r->latency_us * 1000u); /* (ns) */
	if (r->kind == RECORD_GONE || r->kind == RECORD_BASELINE)
		ew_str(w, "reason", r->reason);
	ew_end(w);
}

/* ---- the file ---- */

static const char *file_type(uint32_t type) {
	return (type & S_IFMT) == S_IFDIR ? "dir" : record_attrs_type_name(type);
}

static void put_attrs(struct ew *w, const struct record_attrs *a) {
	char mode[8];

	snprintf(mode, sizeof(mode), "%04" PRIo32, a->mode & 07777);
	ew_str(w, "type", file_type(a->type));
	ew_str(w, "mode", mode);
	ew_id(w, "uid", a->uid);
	ew_id(w, "gid", a->gid);
	ew_u64(w, "size", a->size);
	ew_nsec_time(w, "mtime", a->mtime_sec, a->mtime_nsec);
	ew_nsec_time(w, "ctime", a->ctime_sec, a->ctime_nsec);
	ew_id(w, "inode", a->ino);
}

/* file.path, .name, .directory; false: the path is not valid UTF-8 */
static bool put_file_path(struct ew *w, const char *path) {
	const char *slash = strrchr(path, '/');
	bool valid = ew_path(w, "path", path);

	if (slash && slash[1]) {
		char dir[4096];
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		(void)ew_path(w, "name", slash + 1);
		if (n < sizeof(dir)) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			(void)ew_path(w, "directory", dir);
		}
	}
	return valid;
}

/* What a file is: *bad_path and *bad_target when not valid UTF-8 */
static void put_file(struct ew *w, const struct record *r, bool *bad_path, bool *bad_target) {
	const struct record_baseline *b = r->kind == RECORD_BASELINE ? r->baseline : NULL;
	const struct record_content *c = r->kind == RECORD_CONTENT ? r->content : NULL;
	const char *sha256 = b ? b->sha256 : c && c->sha256[0] ? c->sha256 : NULL;

	ew_begin(w, "file");
	if (r->path)
		*bad_path = !put_file_path(w, r->path);
	if (b && b->target)
		*bad_target = !ew_path(w, "target_path", b->target);
	if (r->attrs)
		put_attrs(w, r->attrs);
	else if ((r->kind == RECORD_EVENT || r->kind == RECORD_DECISION) && (r->mask & FAN_ONDIR))
		ew_str(w, "type", "dir");
	else if (c && c->has_size)
		ew_u64(w, "size", c->size);
	if (sha256) {
		ew_begin(w, "hash");
		ew_str(w, "sha256", sha256);
		ew_end(w);
	}
	ew_end(w);
}

/* ---- who ---- */

static void put_process(struct ew *w, const struct record *r, bool *bad_exe) {
	const struct record_who *who = r->who;
	const char *exe = r->kind == RECORD_DECISION ? r->exe : who ? who->exe : NULL;

	if (r->kind != RECORD_EVENT && r->kind != RECORD_DECISION)
		return;
	ew_begin(w, "process");
	if (r->pid > 0)
		ew_u64(w, "pid", (uint64_t)r->pid);
	ew_str(w, "name", r->comm);
	if (exe)
		*bad_exe = !ew_path(w, "executable", exe);
	if (who && (who->ppid > 0 || who->parent_comm)) {
		ew_begin(w, "parent");
		if (who->ppid > 0)
			ew_u64(w, "pid", (uint64_t)who->ppid);
		ew_str(w, "name", who->parent_comm);
		ew_end(w);
	}
	ew_end(w);
	if (r->uid != (uid_t)-1) {
		ew_begin(w, "user");
		ew_id(w, "id", r->uid);
		ew_end(w);
	}
	if (who && who->container) {
		const char *sep = strstr(who->container, "://");

		ew_begin(w, "container");
		if (sep) {
			char runtime[32];

			snprintf(runtime, sizeof(runtime), "%.*s", (int)(sep - who->container),
				 who->container);
			/* a machine's is its name; the others', their ids */
			ew_str(w, strcmp(runtime, "machine") == 0 ? "name" : "id", sep + 3);
			ew_str(w, "runtime", runtime);
		} else
			ew_str(w, "id", who->container);
		ew_end(w);
	}
}

static void put_host(struct ew *w, const struct record_origin *o) {
	if (!o)
		return;
	ew_begin(w, "host");
	ew_str(w, "name", o->host[0] ? o->host : NULL);
	ew_str(w, "id", o->machine_id[0] ? o->machine_id : NULL);
	if (o->boot_id[0]) {
		ew_begin(w, "boot");
		ew_str(w, "id", o->boot_id);
		ew_end(w);
	}
	ew_end(w);
}

/* ---- the rest: fsnotifyd's own ---- */

static void put_own_attrs(struct ew *w, const struct record *r) {
	if (r->attrs_before) {
		char text[1024];

		ew_key(w, "attrs_before");
		if (record_attrs_to_json(r->attrs_before, text, sizeof(text)) < (int)sizeof(text))
			puts_(w->buf, w->len, &w->pos, text);
		else
			puts_(w->buf, w->len, &w->pos, "null");
	}
	if (r->attrs && r->attrs_before) {
		const char *names[RECORD_CHANGED_N];
		size_t n = record_changed(r, names);

		ew_strings(w, "changed", names, n);
	}
	if (!r->attrs && r->attrs_asked)
		ew_str(w, "attrs_skipped", r->attrs_skipped ? r->attrs_skipped : "error");
}

static void put_own_who(struct ew *w, const struct record_who *who) {
	if (who->login_uid != (uint32_t)-1)
		ew_u64(w, "login_uid", who->login_uid);
	if (who->session != (uint32_t)-1)
		ew_u64(w, "session", who->session);
	ew_str(w, "unit", who->unit);
	ew_str(w, "slice", who->slice);
	if (who->mntns)
		ew_u64(w, "mntns", who->mntns);
}

static void put_own(struct ew *w, const struct record *r, const char *events, const bool bad[4]) {
	const struct record_baseline *b = r->kind == RECORD_BASELINE ? r->baseline : NULL;
	const struct record_content *c = r->kind == RECORD_CONTENT ? r->content : NULL;
	const struct record_who *who =
	    r->kind == RECORD_EVENT || r->kind == RECORD_DECISION ? r->who : NULL;
	const char *exe = r->kind == RECORD_DECISION ? r->exe : who ? who->exe : NULL;

	ew_begin(w, "fsnotifyd");
	ew_str(w, "kind", record_kind_name(r->kind));
	/* (the events an overflow lost, a content record's change) */
	if (events[0] && (r->kind == RECORD_OVERFLOW || r->kind == RECORD_CONTENT))
		ew_names(w, "events", events);
	if (bad[0])
		ew_b64(w, "path_b64", r->path);
	if (r->old_path && !ew_path(w, "old_path", r->old_path))
		ew_b64(w, "old_path_b64", r->old_path);
	if (bad[1])
		ew_b64(w, "exe_b64", exe);
	if (bad[2])
		ew_b64(w, "target_b64", b->target);
	if (r->mount && !ew_path(w, "mount", r->mount))
		ew_b64(w, "mount_b64", r->mount);
	if (r->kind == RECORD_RESCAN || r->kind == RECORD_GONE || r->kind == RECORD_UNMOUNTED ||
	    r->kind == RECORD_REARMED)
		ew_bool(w, "ondir", (r->mask & FAN_ONDIR) != 0);
	if (r->kind == RECORD_RESCAN)
		ew_str(w, "change", r->change);
	if (who)
		put_own_who(w, who);
	if (r->kind == RECORD_EVENT)
		ew_str(w, "who_skipped", r->who_skipped);
	if (r->kind == RECORD_EVENT || r->kind == RECORD_RESCAN || b)
		put_own_attrs(w, r);
	if (r->kind == RECORD_EVENT)
		ew_str(w, "hash_skipped", r->hash_skipped);
	if (c && !c->sha256[0])
		ew_str(w, "hash_skipped", c->skipped ? c->skipped : "error");
	if (b) {
		ew_str(w, "change", r->change);
		ew_str(w, "sha256_before", b->sha256_before);
		ew_str(w, "hash_skipped", b->hash_skipped);
		if (b->target_before && !ew_path(w, "target_before", b->target_before))
			ew_b64(w, "target_before_b64", b->target_before);
		if (b->recorded_usec)
			ew_time(w, "recorded", b->recorded_usec);
	}
	if ((c && c->package_asked) || (b && b->package_asked))
		ew_bool(w, "package_verified", c ? c->package_verified : b->package_verified);
	if (r->kind == RECORD_DECISION) {
		const struct verdict none = { 0 }, *v = r->verdict ? r->verdict : &none;

		ew_str(w, "verdict", v->deny ? "deny" : "allow");
		if (v->deny && v->err)
			ew_str(w, "errno", verdict_errno_name(v->err));
		ew_bool(w, "audit", v->audit);
		ew_str(w, "by", r->by);
		if (r->decision > 0)
			ew_u64(w, "decision", r->decision);
	}
	if (r->kind == RECORD_STATS && r->perm) {
		ew_begin(w, "perm");
		ew_u64(w, "allowed", r->perm->allowed);
		ew_u64(w, "denied", r->perm->denied);
		ew_u64(w, "audited", r->perm->audited);
		ew_u64(w, "deadline", r->perm->deadline);
		ew_u64(w, "latency_p50_us", r->perm->latency_p50_us);
		ew_u64(w, "latency_p99_us", r->perm->latency_p99_us);
		ew_end(w);
	}
	if (r->kind == RECORD_DROPPED)
		ew_u64(w, "count", r->count);
	ew_str(w, "stream", r->stream);
	ew_end(w);
}

int record_to_ecs(const struct record *r, char *buf, size_t len) {
	struct ew w = { .buf = buf, .len = len };
	const struct record_content *c = r->kind == RECORD_CONTENT ? r->content : NULL;
	const struct record_baseline *b = r->kind == RECORD_BASELINE ? r->baseline : NULL;
	const char *package = c && c->package_asked   ? c->package
			      : b && b->package_asked ? b->package
						      : NULL;
	char events[1024] = "";
	bool bad[4] = { false, false, false, false }; /* path, exe, target: their base64 */

	if (len > 0)
		buf[0] = '\0';
	if (r->mask != 0 &&
	    (r->kind == RECORD_EVENT || r->kind == RECORD_DECISION || r->kind == RECORD_OVERFLOW ||
	     r->kind == RECORD_CONTENT) &&
	    fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, r->mask & ~(uint64_t)FAN_ONDIR, events,
			    sizeof(events)) < 0)
		events[0] = '\0';
	put(buf, len, &w.pos, "{", 1);
	ew_time(&w, "@timestamp", r->time_usec);
	ew_begin(&w, "ecs");
	ew_str(&w, "version", ECS_VERSION);
	ew_end(&w);
	put_event(&w, r, events);
	if (r->rule) {
		ew_begin(&w, "rule");
		ew_str(&w, "name", r->rule);
		ew_end(&w);
	}
	ew_begin(&w, "log");
	ew_str(&w, "level", severity_name(record_severity(r)));
	ew_end(&w);
	if (r->label && r->label->n_tags > 0)
		ew_strings(&w, "tags", (const char *const *)r->label->tags, r->label->n_tags);
	put_file(&w, r, &bad[0], &bad[2]);
	if (package) {
		ew_begin(&w, "package");
		ew_str(&w, "name", package);
		ew_end(&w);
	}
	put_process(&w, r, &bad[1]);
	put_host(&w, r->origin);
	put_own(&w, r, events, bad);
	puts_(buf, len, &w.pos, "}\n");
	return w.pos > INT32_MAX ? -EOVERFLOW : (int)w.pos;
}
