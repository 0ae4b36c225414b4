/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.c — see record.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "fsn.h"
#include "record.h"
#include "verdict.h"

static int b64_value(char c) {
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(tab, c) : NULL;

	return p ? (int)(p - tab) : -1;
}

char *ctl_base64_decode(const char *s, size_t *ret_len) {
	size_t n = strlen(s), pos = 0;
	unsigned acc = 0, bits = 0;
	char *out = malloc(n / 4 * 3 + 4);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int v;

		if (s[i] == '=') {
			/* only padding may follow */
			if (strspn(s + i, "=") != n - i)
				break;
			n = i;
			break;
		}
		v = b64_value(s[i]);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[pos++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[pos] = '\0';
	if (ret_len)
		*ret_len = pos;
	return out;
}

/* A string member, or its exact bytes when KEY_b64 is there; malloc'd
 * into *keep (freed by the caller) or a pointer into the DOM. */
static const char *path_member(const struct json *rec, const char *key, char **keep) {
	char k[64];
	const char *b64;

	snprintf(k, sizeof(k), "%s_b64", key);
	b64 = json_get_string(rec, k);
	if (b64) {
		*keep = ctl_base64_decode(b64, NULL);
		if (*keep)
			return *keep;
	}
	return json_get_string(rec, key);
}

/* "2026-11-30T04:52:09.123456Z" in microseconds; 0 when it does not parse */
static uint64_t parse_time(const char *s) {
	struct tm tm = { 0 };
	const char *p = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	uint64_t us = 0;
	unsigned digits = 0;
	time_t t;

	if (!p)
		return 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < 6) {
				us = us * 10 + (uint64_t)(*p - '0');
				digits++;
			}
	for (; digits < 6; digits++)
		us *= 10;
	t = timegm(&tm);
	return t < 0 ? 0 : (uint64_t)t * 1000000u + us;
}

static uint64_t mask_of(const struct json *events) {
	uint64_t mask = 0;

	if (!events || events->type != JSON_ARRAY)
		return 0;
	for (size_t i = 0; i < events->n; i++) {
		uint64_t bit;

		if (events->values[i]->type == JSON_STRING &&
		    fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, events->values[i]->string, &bit, NULL,
				   0) == 0)
			mask |= bit;
	}
	return mask;
}

static uint64_t u64_member(const struct json *rec, const char *key) {
	double v = json_get_number(rec, key, 0);

	return v > 0 && v < 1.8e19 ? (uint64_t)v : 0;
}

int ctl_record_text(const struct json *rec, char **ret) {
	_cleanup_free_ char *path = NULL, *old_path = NULL, *exe = NULL, *mount = NULL,
			    *line = NULL;
	const char *kind = json_get_string(rec, "kind"), *err;
	struct verdict verdict = { 0 };
	struct perm_counts perm = { 0 };
	struct record_content content;
	struct record r = { .uid = (uid_t)-1 };
	const struct json *uid;
	bool known = false;
	int n;

	if (!rec || rec->type != JSON_OBJECT || !kind)
		return -EINVAL;
	for (int k = RECORD_EVENT; k <= RECORD_KIND_LAST && !known; k++)
		if (strcmp(kind, record_kind_name((enum record_kind)k)) == 0) {
			r.kind = (enum record_kind)k;
			known = true;
		}
	if (!known)
		return -EINVAL;
	r.time_usec = parse_time(json_get_string(rec, "time"));
	r.rule = json_get_string(rec, "rule");
	r.mask = mask_of(json_get(rec, "events"));
	if (json_get_bool(rec, "ondir", false))
		r.mask |= FAN_ONDIR;
	r.path = path_member(rec, "path", &path);
	r.old_path = path_member(rec, "old_path", &old_path);
	r.exe = path_member(rec, "exe", &exe);
	r.mount = path_member(rec, "mount", &mount);
	r.pid = (pid_t)u64_member(rec, "pid");
	r.comm = json_get_string(rec, "comm");
	uid = json_get(rec, "uid");
	if (uid && uid->type == JSON_NUMBER && uid->number >= 0)
		r.uid = (uid_t)uid->number;
	r.count = u64_member(rec, "count");
	if (r.kind == RECORD_DECISION) {
		err = json_get_string(rec, "verdict");
		verdict.deny = err && strcmp(err, "deny") == 0;
		verdict.audit = json_get_bool(rec, "audit", false);
		err = json_get_string(rec, "errno");
		for (size_t i = 0; err && i < n_deny_errnos; i++)
			if (strcmp(deny_errnos[i].name, err) == 0)
				verdict.err = deny_errnos[i].err;
		r.verdict = &verdict;
		r.by = json_get_string(rec, "by");
		r.decision = (unsigned)u64_member(rec, "decision");
		r.latency_us = u64_member(rec, "latency_us");
	}
	if (r.kind == RECORD_STATS) {
		perm = (struct perm_counts){
			.allowed = u64_member(rec, "allowed"),
			.denied = u64_member(rec, "denied"),
			.audited = u64_member(rec, "audited"),
			.deadline = u64_member(rec, "deadline"),
			.latency_p50_us = u64_member(rec, "latency_p50_us"),
			.latency_p99_us = u64_member(rec, "latency_p99_us"),
		};
		r.perm = &perm;
	}
	if (r.kind == RECORD_CONTENT) {
		const char *sha = json_get_string(rec, "sha256");
		const struct json *size = json_get(rec, "size");

		content = (struct record_content){
			.event_usec = parse_time(json_get_string(rec, "event_time")),
			.skipped = json_get_string(rec, "hash_skipped"),
			.has_size = size && size->type == JSON_NUMBER,
			.size = u64_member(rec, "size"),
		};
		if (sha && strlen(sha) == 64 && strspn(sha, "0123456789abcdef") == 64)
			memcpy(content.sha256, sha, 65);
		content.package_asked = json_get(rec, "package_verified") != NULL;
		content.package = json_get_string(rec, "package");
		content.package_verified = json_get_bool(rec, "package_verified", false);
		r.content = &content;
	}
	r.change = json_get_string(rec, "change");
	r.reason = json_get_string(rec, "reason");

	n = record_to_text(&r, NULL, 0);
	if (n < 0)
		return n;
	line = malloc((size_t)n + 1);
	if (!line)
		return -ENOMEM;
	record_to_text(&r, line, (size_t)n + 1);
	*ret = steal_ptr(&line);
	return 0;
}
