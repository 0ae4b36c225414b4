/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.c — turning hostile bytes (filenames, process names, child output)
 * into safe text: JSON string contents, human-readable log text, base64, and
 * the JSON line and console line of one record (escape.h). Pure functions,
 * no state; the record library's (shared/meson.build).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <time.h>

#include "escape.h"
#include "put.h"
#include "fsn-uapi.h"
#include "fsn-util.h"
#include "fsn.h"
#include "verdict.h"

/*
 * Length of the valid UTF-8 sequence at s (n bytes available), or 0 if the
 * byte at s does not start one. Strict (Unicode 15, table 3-7): no overlong
 * forms, no surrogates, nothing above U+10FFFF, no truncated sequences.
 * *cp gets the code point.
 */
static size_t utf8_valid(const unsigned char *s, size_t n, uint32_t *cp) {
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		else if (c == 0xed)
			hi = 0x9f; /* surrogates U+D800..U+DFFF */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else
		return 0; /* continuation byte, 0xc0, 0xc1, 0xf5..0xff */

	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		unsigned char b = s[i];

		if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf))
			return 0;
		v = (v << 6) | (b & 0x3f);
	}
	*cp = v;
	return need;
}

/* The valid UTF-8 sequence at s (n bytes available) copied, or U+FFFD for
 * its first byte when none starts there (then *valid becomes false): the
 * bytes of s used. */
static size_t put_utf8(char *buf, size_t len, size_t *pos, const unsigned char *s, size_t n,
		       bool *valid) {
	uint32_t cp;
	size_t k = utf8_valid(s, n, &cp);

	if (k > 0) {
		put(buf, len, pos, s, k);
		return k;
	}
	puts_(buf, len, pos, "\xef\xbf\xbd"); /* U+FFFD for this one byte */
	*valid = false;
	return 1;
}

/* Characters that can make a line look like something else: line and
 * paragraph separators (which also end a line for JavaScript), and the
 * bidirectional controls (reordering what follows them on screen):
 * U+061C U+200E U+200F U+2028..U+202E U+2066..U+2069. */
static bool spoofing(uint32_t cp) {
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The bytes a JSON string holds as they are: printable ASCII but the quote
 * and the backslash. (A table: the scan runs over every byte of every
 * path, comm and rule name of a storm's records.) */
/* clang-format off */
static const unsigned char json_plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};
/* clang-format on */

/* Whether any of the 8 bytes in w is not plain (json_plain[]): below
 * 0x20, above 0x7e, a quote or a backslash. Each test is exact about
 * whether such a byte is there (not which one it is). */
static bool word_has_special(uint64_t w) {
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');

	return (((w - ones * 0x20) & ~w) | (w + ones) | w | ((q - ones) & ~q) | ((b - ones) & ~b)) &
	       highs;
}

/* The end of the run of plain bytes from p (end: the string's NUL): eight
 * at a time while eight are left, then one at a time. */
static const unsigned char *plain_run(const unsigned char *p, const unsigned char *end) {
	for (uint64_t w; end - p >= 8; p += 8) {
		memcpy(&w, p, sizeof(w));
		if (word_has_special(w))
			break;
	}
	while (json_plain[*p])
		p++;
	return p;
}

bool json_escape(char *buf, size_t len, size_t *pos, const char *s) {
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	bool valid = true;

	if (len > 0 && *pos < len)
		buf[*pos] = '\0';
	for (;;) {
		const unsigned char *run = plain_run(p, end);
		unsigned char c;

		/* a run of plain bytes copied at once */
		if (run > p) {
			put(buf, len, pos, p, (size_t)(run - p));
			p = run;
		}
		c = *p;
		switch (c) {
		case '\0': return valid;
		case '"': puts_(buf, len, pos, "\\\""); break;
		case '\\': puts_(buf, len, pos, "\\\\"); break;
		case '\b': puts_(buf, len, pos, "\\b"); break;
		case '\f': puts_(buf, len, pos, "\\f"); break;
		case '\n': puts_(buf, len, pos, "\\n"); break;
		case '\r': puts_(buf, len, pos, "\\r"); break;
		case '\t': puts_(buf, len, pos, "\\t"); break;
		default: {
			/* (a sequence is at most 4 bytes: no need to know more) */
			size_t n = strnlen((const char *)p, 4), k;
			uint32_t cp;

			k = utf8_valid(p, n, &cp);
			/* C0 and C1 controls, DEL and the spoofing characters as
			 * \uXXXX: lossless, and no terminal or parser is steered
			 * by a raw one; a sequence decoded once */
			if (k == 0)
				p += put_utf8(buf, len, pos, p, n, &valid); /* U+FFFD */
			else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || spoofing(cp)) {
				putf(buf, len, pos, "\\u%04x", (unsigned)cp);
				p += k;
			} else {
				put(buf, len, pos, p, k);
				p += k;
			}
			continue;
		}
		}
		p++;
	}
}

bool prom_escape(char *buf, size_t len, size_t *pos, const char *s) {
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	bool valid = true;

	if (len > 0 && *pos < len)
		buf[*pos] = '\0';
	for (size_t i = 0; i < n;) {
		size_t run;

		for (run = i;
		     run < n && p[run] < 0x80 && p[run] != '"' && p[run] != '\\' && p[run] != '\n';
		     run++)
			;
		if (run > i) {
			put(buf, len, pos, p + i, run - i);
			i = run;
			continue;
		}
		switch (p[i]) {
		case '"': puts_(buf, len, pos, "\\\""); break;
		case '\\': puts_(buf, len, pos, "\\\\"); break;
		case '\n': puts_(buf, len, pos, "\\n"); break;
		default: i += put_utf8(buf, len, pos, p + i, n - i, &valid); continue;
		}
		i++;
	}
	return valid;
}

void text_escape(char *buf, size_t len, size_t *pos, const void *s, size_t n) {
	const unsigned char *p = s;

	if (len > 0 && *pos < len)
		buf[*pos] = '\0';
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		uint32_t cp;
		size_t k;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			put(buf, len, pos, &p[i], 1);
			i++;
			continue;
		}
		switch (c) {
		case '\\': puts_(buf, len, pos, "\\\\"); break;
		case '\n': puts_(buf, len, pos, "\\n"); break;
		case '\r': puts_(buf, len, pos, "\\r"); break;
		case '\t': puts_(buf, len, pos, "\\t"); break;
		default:
			k = c >= 0x80 ? utf8_valid(p + i, n - i, &cp) : 0;
			if (k > 0 && cp >= 0xa0 && !spoofing(cp)) {
				put(buf, len, pos, p + i, k);
				i += k;
				continue;
			}
			putf(buf, len, pos, "\\x%02x", c);
		}
		i++;
	}
}

const char *text_escaped(char *buf, size_t len, const char *s) {
	const unsigned char *p = (const unsigned char *)s;
	size_t pos = 0, n;

	if (len == 0)
		return "";
	if (!s) {
		snprintf(buf, len, "(null)");
		return buf;
	}
	/* Unit by unit, so an escape sequence or a character is never cut;
	 * "..." marks a truncation. */
	n = strlen(s);
	text_escape(NULL, 0, &pos, s, n);
	if (pos < len) {
		pos = 0;
		text_escape(buf, len, &pos, s, n);
		return buf;
	}
	pos = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		char u[32];
		size_t k, ul = 0;
		uint32_t cp;

		k = utf8_valid(p + i, n - i, &cp);
		if (k == 0)
			k = 1;
		text_escape(u, sizeof(u), &ul, p + i, k);
		if (pos + ul + 3 > len - 1) {
			if (pos + 3 <= len - 1) {
				memcpy(buf + pos, "...", 3);
				pos += 3;
			}
			break;
		}
		memcpy(buf + pos, u, ul);
		pos += ul;
		i += k;
	}
	buf[pos] = '\0';
	return buf;
}

size_t base64_encode(char *buf, size_t len, const void *data, size_t n) {
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	size_t pos = 0;

	if (len > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		char q[4];

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		q[0] = tab[(v >> 18) & 63];
		q[1] = tab[(v >> 12) & 63];
		q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? tab[v & 63] : '=';
		put(buf, len, &pos, q, 4);
	}
	return pos;
}

/* ,"events":["a","b"] — the arrays of the last few masks formatted are
 * kept (per thread): a storm's records have a few masks, in turns. */
#define EVENTS_CACHE 8

static void put_events(char *buf, size_t len, size_t *pos, uint64_t mask) {
	static __thread struct {
		uint64_t mask;
		size_t len; /* 0: empty */
		char text[1100];
	} cache[EVENTS_CACHE];
	static __thread unsigned next;
	char names[1024];
	size_t n = 0;
	unsigned k;
	int r;

	for (k = 0; k < EVENTS_CACHE; k++)
		if (cache[k].len && cache[k].mask == mask) {
			put(buf, len, pos, cache[k].text, cache[k].len);
			return;
		}
	k = next;
	next = (next + 1) % EVENTS_CACHE;
	puts_(cache[k].text, sizeof(cache[k].text), &n, ",\"events\":[");
	r = fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, mask, names, sizeof(names));
	if (r > 0 && (size_t)r < sizeof(names)) {
		bool first = true;

		for (char *w = names, *end; *w; w = end + (*end != '\0')) {
			end = w + strcspn(w, ",");
			puts_(cache[k].text, sizeof(cache[k].text), &n, first ? "\"" : ",\"");
			/* names are [a-z0-9_] */
			put(cache[k].text, sizeof(cache[k].text), &n, w, (size_t)(end - w));
			puts_(cache[k].text, sizeof(cache[k].text), &n, "\"");
			first = false;
		}
	}
	puts_(cache[k].text, sizeof(cache[k].text), &n, "]");
	if (n >= sizeof(cache[k].text)) { /* (cannot happen: a few dozen names) */
		cache[k].len = 0;
		puts_(buf, len, pos, ",\"events\":[]");
		return;
	}
	cache[k].mask = mask;
	cache[k].len = n;
	put(buf, len, pos, cache[k].text, n);
}

const char *record_kind_name(enum record_kind k) {
	switch (k) {
	case RECORD_EVENT: return "event";
	case RECORD_OVERFLOW: return "overflow";
	case RECORD_DROPPED: return "dropped";
	case RECORD_DECISION: return "decision";
	case RECORD_STATS: return "stats";
	case RECORD_RESCAN: return "rescan";
	case RECORD_GONE: return "gone";
	case RECORD_UNMOUNTED: return "unmounted";
	case RECORD_REARMED: return "rearmed";
	case RECORD_CONTENT: return "content";
	case RECORD_BASELINE: return "baseline";
	}
	return "unknown";
}

void format_lifecycle(const struct record *r, char *buf, size_t len, size_t *pos) {
	const char *path = r->path ? r->path : "(unknown path)";

	text_escape(buf, len, pos, path, strlen(path));
	switch (r->kind) {
	case RECORD_GONE:
		putf(buf, len, pos, " is gone (%s): waiting for it",
		     !r->reason                          ? "?"
		     : strcmp(r->reason, "moved") == 0   ? "moved away"
		     : strcmp(r->reason, "covered") == 0 ? "a filesystem was mounted over it"
							 : r->reason);
		break;
	case RECORD_UNMOUNTED:
		puts_(buf, len, pos, ": the mount at ");
		if (r->mount)
			text_escape(buf, len, pos, r->mount, strlen(r->mount));
		else
			puts_(buf, len, pos, "?");
		puts_(buf, len, pos, " went: waiting for it");
		break;
	case RECORD_REARMED: puts_(buf, len, pos, " is watched again"); break;
	default: break;
	}
}

void format_content(const struct record_content *c, char *buf, size_t len, size_t *pos) {
	if (!c) {
		puts_(buf, len, pos, ": ?");
		return;
	}
	if (c->sha256[0])
		putf(buf, len, pos, ": sha256 %s", c->sha256);
	else
		putf(buf, len, pos, ": not hashed (%s", c->skipped ? c->skipped : "error");
	if (c->has_size)
		putf(buf, len, pos, ", %" PRIu64 " bytes", c->size);
	puts_(buf, len, pos, c->sha256[0] ? "" : ")");
	if (c->package_asked && c->package) {
		puts_(buf, len, pos, "; package ");
		text_escape(buf, len, pos, c->package, strlen(c->package));
		puts_(buf, len, pos, c->package_verified ? ": verified" : ": NOT what it lists");
	} else if (c->package_asked)
		puts_(buf, len, pos, "; no package lists it");
}

void format_events(uint64_t mask, char *buf, size_t len) {
	if (mask == 0 || fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, mask, buf, len) < 0)
		snprintf(buf, len, "0x%" PRIx64, mask);
}

void format_time_usec(char *buf, size_t len, uint64_t usec) {
	/* the second's text is kept (per thread): records come many a second */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	static __thread time_t last_sec = -1;
	static __thread char stamp[64];
	static __thread size_t stamp_len;
	time_t sec = (time_t)(usec / 1000000);
	unsigned us = (unsigned)(usec % 1000000);
	char frac[9] = ".000000Z";
	size_t pos = 0;
	struct tm tm;

	if (sec != last_sec) {
		snprintf(stamp, sizeof(stamp), "1970-01-01T00:00:00");
		if (gmtime_r(&sec, &tm))
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		stamp_len = strlen(stamp);
		last_sec = sec;
	}
	/* (two digits at a time: a storm stamps hundreds of thousands a second) */
	memcpy(frac + 1, pairs + 2 * (us / 10000), 2);
	memcpy(frac + 3, pairs + 2 * (us / 100 % 100), 2);
	memcpy(frac + 5, pairs + 2 * (us % 100), 2);
	put(buf, len, &pos, stamp, stamp_len);
	put(buf, len, &pos, frac, 8);
}

int record_severity(const struct record *r) {
	int p = r->label && r->label->severity > 0 ? r->label->severity - 1 : LOG_INFO;
	int least;

	switch (r->kind) {
	case RECORD_EVENT:
	case RECORD_RESCAN:
	case RECORD_CONTENT:
	case RECORD_BASELINE:
	case RECORD_STATS: return p;
	case RECORD_REARMED: least = LOG_NOTICE; break;
	case RECORD_DECISION:
		least = r->verdict && r->verdict->deny ? LOG_NOTICE : LOG_DEBUG;
		break;
	default: least = LOG_WARNING; break;
	}
	return p < least ? p : least;
}

const char *severity_name(int priority) {
	static const char *const names[] = { "emerg",   "alert",  "crit", "err",
					     "warning", "notice", "info", "debug" };

	return priority >= 0 && priority < (int)ELEMENTSOF(names) ? names[priority] : NULL;
}

/* ,"login_uid":N,"session":N,"exe":"...","ppid":N,"parent_comm":"...",
 * "unit":"...","slice":"...","container":"...","mntns":N (null: unknown;
 * the login uid, session, unit, slice, container also when there is none;
 * exe: not when the record has it already, a decision's) */
static void put_who(char *buf, size_t len, size_t *pos, const struct record_who *w, bool exe) {
	if (w->login_uid != (uint32_t)-1)
		putf(buf, len, pos, ",\"login_uid\":%" PRIu32, w->login_uid);
	else
		puts_(buf, len, pos, ",\"login_uid\":null");
	if (w->session != (uint32_t)-1)
		putf(buf, len, pos, ",\"session\":%" PRIu32, w->session);
	else
		puts_(buf, len, pos, ",\"session\":null");
	if (exe && w->exe)
		put_path(buf, len, pos, KEY("exe"), w->exe);
	else if (exe)
		puts_(buf, len, pos, ",\"exe\":null");
	if (w->ppid > 0)
		putf(buf, len, pos, ",\"ppid\":%d", (int)w->ppid);
	else
		puts_(buf, len, pos, ",\"ppid\":null");
	put_string(buf, len, pos, KEY("parent_comm"), w->parent_comm);
	put_string(buf, len, pos, KEY("unit"), w->unit);
	put_string(buf, len, pos, KEY("slice"), w->slice);
	put_string(buf, len, pos, KEY("container"), w->container);
	if (w->mntns)
		putf(buf, len, pos, ",\"mntns\":%" PRIu64, w->mntns);
	else
		puts_(buf, len, pos, ",\"mntns\":null");
}

const char *record_attrs_type_name(uint32_t type) {
	switch (type & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR: return "char";
	case S_IFBLK: return "block";
	}
	return "unknown";
}

/* 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z */
#define RFC3339_FIRST_SEC (-62135596800LL)
#define RFC3339_LAST_SEC 253402300799LL

bool format_nsec_time(char *buf, size_t len, int64_t sec, uint32_t nsec) {
	time_t t = (time_t)sec;
	struct tm tm;

	if (sec < RFC3339_FIRST_SEC || sec > RFC3339_LAST_SEC || !gmtime_r(&t, &tm))
		return false;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRIu32 "Z", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nsec % 1000000000u);
	return true;
}

/* ,"key":"2026-12-06T22:00:00.123456789Z", or the seconds as a number for
 * a year RFC 3339 cannot write */
static void put_nsec_time(char *buf, size_t len, size_t *pos, const char *key, size_t klen,
			  int64_t sec, uint32_t nsec) {
	char stamp[64];

	put(buf, len, pos, key, klen);
	if (format_nsec_time(stamp, sizeof(stamp), sec, nsec))
		putf(buf, len, pos, "\"%s\"", stamp);
	else
		putf(buf, len, pos, "%" PRId64, sec);
}

/* {"type":...,"nlink":N} or null */
static void put_attrs(char *buf, size_t len, size_t *pos, const struct record_attrs *a) {
	if (!a) {
		put(buf, len, pos, "null", 4);
		return;
	}
	putf(buf, len, pos, "{\"type\":\"%s\",\"mode\":\"%04" PRIo32 "\"",
	     record_attrs_type_name(a->type), a->mode & 07777);
	putf(buf, len, pos, ",\"uid\":%" PRIu32 ",\"gid\":%" PRIu32 ",\"size\":%" PRIu64, a->uid,
	     a->gid, a->size);
	put_nsec_time(buf, len, pos, KEY("mtime"), a->mtime_sec, a->mtime_nsec);
	put_nsec_time(buf, len, pos, KEY("ctime"), a->ctime_sec, a->ctime_nsec);
	putf(buf, len, pos, ",\"ino\":%" PRIu64 ",\"nlink\":%" PRIu32 "}", a->ino, a->nlink);
}

int record_attrs_to_json(const struct record_attrs *a, char *buf, size_t len) {
	size_t pos = 0;

	if (len > 0)
		buf[0] = '\0';
	put_attrs(buf, len, &pos, a);
	return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
}

const char *const record_attrs_names[RECORD_ATTRS_N] = { "type",  "mode",  "uid", "gid",  "size",
							 "mtime", "ctime", "ino", "nlink" };

size_t record_attrs_changed(const struct record_attrs *a, const struct record_attrs *b,
			    const char *names[RECORD_ATTRS_N]) {
	size_t n = 0;

	if ((a->type & S_IFMT) != (b->type & S_IFMT))
		names[n++] = "type";
	if ((a->mode & 07777) != (b->mode & 07777))
		names[n++] = "mode";
	if (a->uid != b->uid)
		names[n++] = "uid";
	if (a->gid != b->gid)
		names[n++] = "gid";
	if (a->size != b->size)
		names[n++] = "size";
	if (a->mtime_sec != b->mtime_sec || a->mtime_nsec != b->mtime_nsec)
		names[n++] = "mtime";
	if (a->ctime_sec != b->ctime_sec || a->ctime_nsec != b->ctime_nsec)
		names[n++] = "ctime";
	if (a->ino != b->ino)
		names[n++] = "ino";
	if (a->nlink != b->nlink)
		names[n++] = "nlink";
	return n;
}

size_t record_changed(const struct record *r, const char *names[RECORD_CHANGED_N]) {
	const struct record_baseline *b = r->kind == RECORD_BASELINE ? r->baseline : NULL;
	size_t n = 0;

	if (!r->attrs || !r->attrs_before)
		return 0;
	n = record_attrs_changed(r->attrs_before, r->attrs, names);
	if (b && b->sha256 && b->sha256_before && strcmp(b->sha256, b->sha256_before) != 0)
		names[n++] = "content";
	if (b && (b->target || b->target_before) &&
	    (!b->target || !b->target_before || strcmp(b->target, b->target_before) != 0))
		names[n++] = "target";
	return n;
}

/* ,"attrs":{...},"attrs_before":{...}|null[,"changed":[...]] */
static void put_attrs_record(char *buf, size_t len, size_t *pos, const struct record *r) {
	put(buf, len, pos, KEY("attrs"));
	put_attrs(buf, len, pos, r->attrs);
	put(buf, len, pos, KEY("attrs_before"));
	put_attrs(buf, len, pos, r->attrs_before);
	if (!r->attrs && r->attrs_skipped)
		put_string(buf, len, pos, KEY("attrs_skipped"), r->attrs_skipped);
	if (r->attrs && r->attrs_before) {
		const char *names[RECORD_CHANGED_N];
		size_t n = record_changed(r, names);

		put(buf, len, pos, KEY("changed"));
		put(buf, len, pos, "[", 1);
		for (size_t i = 0; i < n; i++) {
			if (i > 0)
				put(buf, len, pos, ",", 1);
			put(buf, len, pos, "\"", 1);
			puts_(buf, len, pos, names[i]);
			put(buf, len, pos, "\"", 1);
		}
		put(buf, len, pos, "]", 1);
	}
}

/* ,"change":...,"reason":...,"attrs"...,"sha256":...,"sha256_before":...,
 * "target":...,"target_before":...,"recorded":... */
static void put_baseline(char *buf, size_t len, size_t *pos, const struct record *r) {
	const struct record_baseline none = { 0 }, *b = r->baseline ? r->baseline : &none;

	put_string(buf, len, pos, KEY("change"), r->change);
	put_string(buf, len, pos, KEY("reason"), r->reason);
	put_attrs_record(buf, len, pos, r);
	put_string(buf, len, pos, KEY("sha256"), b->sha256);
	put_string(buf, len, pos, KEY("sha256_before"), b->sha256_before);
	if (b->hash_skipped)
		put_string(buf, len, pos, KEY("hash_skipped"), b->hash_skipped);
	if (b->target || b->target_before) {
		if (b->target)
			put_path(buf, len, pos, KEY("target"), b->target);
		else
			puts_(buf, len, pos, ",\"target\":null");
		if (b->target_before)
			put_path(buf, len, pos, KEY("target_before"), b->target_before);
		else
			puts_(buf, len, pos, ",\"target_before\":null");
	}
	if (b->package_asked) {
		put_string(buf, len, pos, KEY("package"), b->package);
		putf(buf, len, pos, ",\"package_verified\":%s",
		     b->package_verified ? "true" : "false");
	}
	if (b->recorded_usec) {
		char stamp[96];

		format_time_usec(stamp, sizeof(stamp), b->recorded_usec);
		puts_(buf, len, pos, ",\"recorded\":\"");
		puts_(buf, len, pos, stamp);
		put(buf, len, pos, "\"", 1);
	} else
		puts_(buf, len, pos, ",\"recorded\":null");
}

/* ,"event_time":"...","sha256":"..."|null,"size":N|null[,"hash_skipped":"..."] */
static void put_content(char *buf, size_t len, size_t *pos, const struct record_content *c) {
	char stamp[96];

	format_time_usec(stamp, sizeof(stamp), c->event_usec);
	puts_(buf, len, pos, ",\"event_time\":\"");
	puts_(buf, len, pos, stamp);
	put(buf, len, pos, "\"", 1);
	put_string(buf, len, pos, KEY("sha256"), c->sha256[0] ? c->sha256 : NULL);
	if (c->has_size) {
		puts_(buf, len, pos, ",\"size\":");
		put_u64(buf, len, pos, c->size);
	} else
		puts_(buf, len, pos, ",\"size\":null");
	if (!c->sha256[0])
		put_string(buf, len, pos, KEY("hash_skipped"), c->skipped ? c->skipped : "error");
	if (c->package_asked) {
		put_string(buf, len, pos, KEY("package"), c->package);
		putf(buf, len, pos, ",\"package_verified\":%s",
		     c->package_verified ? "true" : "false");
	}
}

/* ,"severity":"...", and ,"tags":[...] when the rule has tags */
static void put_label(char *buf, size_t len, size_t *pos, const struct record *r) {
	const char *severity = severity_name(record_severity(r));

	if (severity)
		put_plain(buf, len, pos, KEY("severity"), severity);
	else
		put_string(buf, len, pos, KEY("severity"), NULL);
	if (!r->label || r->label->n_tags == 0)
		return;
	puts_(buf, len, pos, ",\"tags\":[");
	for (size_t i = 0; i < r->label->n_tags; i++) {
		if (i > 0)
			put(buf, len, pos, ",", 1);
		put(buf, len, pos, "\"", 1);
		json_escape(buf, len, pos, r->label->tags[i]);
		put(buf, len, pos, "\"", 1);
	}
	put(buf, len, pos, "]", 1);
}

/* ,"host":"...","machine_id":"...","boot_id":"..." (null: unknown) */
static void put_origin(char *buf, size_t len, size_t *pos, const struct record_origin *o) {
	if (o->json_len > 0) {
		put(buf, len, pos, o->json, o->json_len);
		return;
	}
	put_string(buf, len, pos, KEY("host"), o->host[0] ? o->host : NULL);
	put_string(buf, len, pos, KEY("machine_id"), o->machine_id[0] ? o->machine_id : NULL);
	put_string(buf, len, pos, KEY("boot_id"), o->boot_id[0] ? o->boot_id : NULL);
}

void record_origin_seal(struct record_origin *o) {
	size_t n = 0;

	o->json_len = 0;
	put_origin(o->json, sizeof(o->json), &n, o);
	o->json_len = n < sizeof(o->json) ? n : 0;
}

int record_to_json(const struct record *r, char *buf, size_t len) {
	char stamp[96];
	size_t pos = 0;

	if (len > 0)
		buf[0] = '\0';
	format_time_usec(stamp, sizeof(stamp), r->time_usec);
	puts_(buf, len, &pos, "{\"time\":\"");
	puts_(buf, len, &pos, stamp);
	puts_(buf, len, &pos, "\",\"kind\":\"");
	puts_(buf, len, &pos, record_kind_name(r->kind));
	put(buf, len, &pos, "\"", 1);
	put_string(buf, len, &pos, KEY("rule"), r->rule);

	if (r->kind == RECORD_EVENT || r->kind == RECORD_DECISION ||
	    ((r->kind == RECORD_OVERFLOW || r->kind == RECORD_CONTENT) && r->mask != 0))
		put_events(buf, len, &pos, r->mask);
	if (r->path)
		put_path(buf, len, &pos, KEY("path"), r->path);
	else if (r->kind == RECORD_EVENT || r->kind == RECORD_DECISION)
		puts_(buf, len, &pos, ",\"path\":null");
	if (r->old_path)
		put_path(buf, len, &pos, KEY("old_path"), r->old_path);

	if (r->kind == RECORD_EVENT || r->kind == RECORD_DECISION) {
		if (r->pid > 0) {
			puts_(buf, len, &pos, ",\"pid\":");
			put_u64(buf, len, &pos, (uint64_t)r->pid);
		} else
			puts_(buf, len, &pos, ",\"pid\":null");
		put_string(buf, len, &pos, KEY("comm"), r->comm);
		if (r->uid != (uid_t)-1) {
			puts_(buf, len, &pos, ",\"uid\":");
			put_u64(buf, len, &pos, (uint64_t)r->uid);
		} else
			puts_(buf, len, &pos, ",\"uid\":null");
	}
	if (r->kind == RECORD_EVENT && r->who) {
		put_who(buf, len, &pos, r->who, true);
		if (r->who_skipped)
			put_string(buf, len, &pos, KEY("who_skipped"), r->who_skipped);
	}
	if ((r->kind == RECORD_EVENT || r->kind == RECORD_RESCAN) && r->attrs_asked)
		put_attrs_record(buf, len, &pos, r);
	if (r->kind == RECORD_EVENT && r->hash_skipped)
		put_string(buf, len, &pos, KEY("hash_skipped"), r->hash_skipped);
	if (r->kind == RECORD_DECISION) {
		const struct verdict none = { 0 }, *v = r->verdict ? r->verdict : &none;
		const char *err = v->deny && v->err ? verdict_errno_name(v->err) : NULL;

		if (r->exe)
			put_path(buf, len, &pos, KEY("exe"), r->exe);
		else
			puts_(buf, len, &pos, ",\"exe\":null");
		putf(buf, len, &pos, ",\"verdict\":\"%s\"", v->deny ? "deny" : "allow");
		if (err)
			putf(buf, len, &pos, ",\"errno\":\"%s\"", err);
		putf(buf, len, &pos, ",\"audit\":%s", v->audit ? "true" : "false");
		put_string(buf, len, &pos, KEY("by"), r->by);
		if (r->decision > 0)
			putf(buf, len, &pos, ",\"decision\":%u", r->decision);
		else
			puts_(buf, len, &pos, ",\"decision\":null");
		putf(buf, len, &pos, ",\"latency_us\":%" PRIu64, r->latency_us);
		if (r->who)
			put_who(buf, len, &pos, r->who, false);
	}
	if (r->kind == RECORD_STATS && r->perm) {
		/* one putf() each: putf() cuts its output at 127 bytes */
		putf(buf, len, &pos, ",\"allowed\":%" PRIu64 ",\"denied\":%" PRIu64,
		     r->perm->allowed, r->perm->denied);
		putf(buf, len, &pos, ",\"audited\":%" PRIu64 ",\"deadline\":%" PRIu64,
		     r->perm->audited, r->perm->deadline);
		putf(buf, len, &pos, ",\"latency_p50_us\":%" PRIu64 ",\"latency_p99_us\":%" PRIu64,
		     r->perm->latency_p50_us, r->perm->latency_p99_us);
	}
	if (r->kind == RECORD_RESCAN) {
		put_string(buf, len, &pos, KEY("change"), r->change);
		putf(buf, len, &pos, ",\"ondir\":%s", (r->mask & FAN_ONDIR) ? "true" : "false");
	}
	if (r->kind == RECORD_GONE)
		put_string(buf, len, &pos, KEY("reason"), r->reason);
	if (r->kind == RECORD_UNMOUNTED) {
		if (r->mount)
			put_path(buf, len, &pos, KEY("mount"), r->mount);
		else
			puts_(buf, len, &pos, ",\"mount\":null");
	}
	if (r->kind == RECORD_GONE || r->kind == RECORD_UNMOUNTED || r->kind == RECORD_REARMED)
		putf(buf, len, &pos, ",\"ondir\":%s", (r->mask & FAN_ONDIR) ? "true" : "false");
	if (r->kind == RECORD_DROPPED)
		putf(buf, len, &pos, ",\"count\":%" PRIu64, r->count);
	if (r->kind == RECORD_CONTENT && r->content)
		put_content(buf, len, &pos, r->content);
	if (r->kind == RECORD_BASELINE)
		put_baseline(buf, len, &pos, r);
	put_label(buf, len, &pos, r);
	if (r->origin)
		put_origin(buf, len, &pos, r->origin);
	if (r->stream) {
		put_plain(buf, len, &pos, KEY("stream"), r->stream);
		puts_(buf, len, &pos, ",\"seq\":");
		put_u64(buf, len, &pos, r->seq);
	}
	puts_(buf, len, &pos, "}\n");

	return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
}

/* rule's text, escaped; "-" for a record of no rule */
static void put_rule(char *buf, size_t len, size_t *pos, const char *rule) {
	if (rule)
		text_escape(buf, len, pos, rule, strlen(rule));
	else
		puts_(buf, len, pos, "-");
}

static void put_text(char *buf, size_t len, size_t *pos, const char *s, const char *none) {
	if (s)
		text_escape(buf, len, pos, s, strlen(s));
	else
		puts_(buf, len, pos, none);
}

int record_to_text(const struct record *r, char *buf, size_t len) {
	char t[64], ev[256];
	time_t sec = (time_t)(r->time_usec / 1000000u);
	size_t pos = 0;
	struct tm tm;

	if (len > 0)
		buf[0] = '\0';
	t[0] = '\0';
	if (localtime_r(&sec, &tm))
		strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	putf(buf, len, &pos, "%s.%03u ", t, (unsigned)(r->time_usec % 1000000u / 1000u));
	if (r->kind == RECORD_DROPPED && !r->rule) {
		putf(buf, len, &pos, "dropped %" PRIu64 " records (this reader fell behind)\n",
		     r->count);
		return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
	}
	put_rule(buf, len, &pos, r->rule);
	puts_(buf, len, &pos, " ");
	switch (r->kind) {
	case RECORD_EVENT:
		format_events(r->mask, ev, sizeof(ev));
		puts_(buf, len, &pos, ev);
		puts_(buf, len, &pos, " ");
		put_text(buf, len, &pos, r->path, "(unknown path)");
		if (r->old_path) {
			puts_(buf, len, &pos, " from ");
			put_text(buf, len, &pos, r->old_path, "");
		}
		putf(buf, len, &pos, " (pid %d comm ", (int)r->pid);
		put_text(buf, len, &pos, r->comm, "?");
		puts_(buf, len, &pos, ")");
		break;
	case RECORD_OVERFLOW:
		puts_(buf, len, &pos, "overflow: the kernel queue overflowed, events were lost");
		break;
	case RECORD_DROPPED:
		putf(buf, len, &pos, "dropped %" PRIu64 " events (rate limit)", r->count);
		break;
	case RECORD_DECISION: {
		char v[64];

		format_events(r->mask, ev, sizeof(ev));
		puts_(buf, len, &pos, r->verdict ? verdict_format(r->verdict, v, sizeof(v)) : "?");
		puts_(buf, len, &pos, " ");
		puts_(buf, len, &pos, ev);
		puts_(buf, len, &pos, " ");
		put_text(buf, len, &pos, r->path, "(unknown path)");
		putf(buf, len, &pos, " (pid %d comm ", (int)r->pid);
		put_text(buf, len, &pos, r->comm, "?");
		puts_(buf, len, &pos, "; by ");
		put_text(buf, len, &pos, r->by, "?");
		putf(buf, len, &pos, ", %" PRIu64 " us)", r->latency_us);
		break;
	}
	case RECORD_RESCAN:
		puts_(buf, len, &pos, "rescan after an overflow: ");
		put_text(buf, len, &pos, r->change, "?");
		puts_(buf, len, &pos, " ");
		put_text(buf, len, &pos, r->path, "(unknown path)");
		break;
	case RECORD_CONTENT:
		puts_(buf, len, &pos, "content of ");
		put_text(buf, len, &pos, r->path, "(unknown path)");
		format_content(r->content, buf, len, &pos);
		break;
	case RECORD_BASELINE:
		puts_(buf, len, &pos, "baseline: ");
		put_text(buf, len, &pos, r->change, "?");
		puts_(buf, len, &pos, " ");
		put_text(buf, len, &pos, r->path, "(unknown path)");
		if (r->old_path) {
			puts_(buf, len, &pos, " from ");
			put_text(buf, len, &pos, r->old_path, "");
		}
		puts_(buf, len, &pos,
		      !r->reason                           ? ""
		      : strcmp(r->reason, "offline") == 0  ? " while the daemon was not running"
		      : strcmp(r->reason, "overflow") == 0 ? " while events were lost"
							   : " (verified)");
		break;
	case RECORD_GONE:
	case RECORD_UNMOUNTED:
	case RECORD_REARMED: format_lifecycle(r, buf, len, &pos); break;
	case RECORD_STATS:
		putf(buf, len, &pos, "permission counters: %" PRIu64 " allowed, %" PRIu64 " denied",
		     r->perm ? r->perm->allowed : 0, r->perm ? r->perm->denied : 0);
		putf(buf, len, &pos, ", %" PRIu64 " on deadline", r->perm ? r->perm->deadline : 0);
		break;
	}
	puts_(buf, len, &pos, "\n");
	return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
}
