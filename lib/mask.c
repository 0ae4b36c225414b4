/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mask.c — the name tables of fanotify / inotify masks and flags, and
 * fsn_mask_parse(), fsn_mask_format(), fsn_mask_bit_name().
 *
 * Each kind has three constant tables:
 *   - single bits ("open" = FAN_OPEN), printed by the formatter;
 *   - aliases the kernel defines ("close" = FAN_CLOSE), accepted by the
 *     parser only;
 *   - the values of one multi-bit VALUE field, if the kind has one:
 *       FSN_MASK_FANOTIFY_INIT: the class, flags & 0xc (FAN_CLASS_*);
 *       FSN_MASK_FANOTIFY_MARK: the mark type, flags & 0x110 (inode 0,
 *         mount 0x10, filesystem 0x100, mntns 0x110 = mount|filesystem).
 *     A field is printed as one name, at the position of its lowest set bit
 *     ("add,mntns", never "add,mount,filesystem"). The zero value of a field
 *     ("class_notif", "inode") is the default: the parser accepts it, the
 *     formatter prints nothing for it, so mask 0 formats as "" for every
 *     kind. A field value without a name (class 0xc) is left to the hex word.
 *     Naming two different values of one field ("mount,filesystem") is a
 *     parse error, not a silent OR that would mean a third value.
 *
 * Bits without a name are printed as one "0x..." word at the end, and the
 * parser accepts such hex words, so fsn_mask_format() output always parses
 * back to the same mask.
 *
 * No state: the tables are const and the functions are pure.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "fsn-private.h"

struct mask_name {
	const char *name;
	uint64_t value;
};

struct mask_table {
	const char *what; /* "fanotify event", for error messages */
	const struct mask_name *bits;
	size_t n_bits;
	const struct mask_name *aliases;
	size_t n_aliases;
	uint64_t field; /* bits of the value field, 0 if none */
	const struct mask_name *values;
	size_t n_values;
};

/* ---- FSN_MASK_FANOTIFY_EVENT: include/uapi/linux/fanotify.h ---- */

static const struct mask_name fanotify_event_bits[] = {
	{ "access", FAN_ACCESS },
	{ "modify", FAN_MODIFY },
	{ "attrib", FAN_ATTRIB },
	{ "close_write", FAN_CLOSE_WRITE },
	{ "close_nowrite", FAN_CLOSE_NOWRITE },
	{ "open", FAN_OPEN },
	{ "moved_from", FAN_MOVED_FROM },
	{ "moved_to", FAN_MOVED_TO },
	{ "create", FAN_CREATE },
	{ "delete", FAN_DELETE },
	{ "delete_self", FAN_DELETE_SELF },
	{ "move_self", FAN_MOVE_SELF },
	{ "open_exec", FAN_OPEN_EXEC },
	{ "q_overflow", FAN_Q_OVERFLOW },
	{ "fs_error", FAN_FS_ERROR },
	{ "open_perm", FAN_OPEN_PERM },
	{ "access_perm", FAN_ACCESS_PERM },
	{ "open_exec_perm", FAN_OPEN_EXEC_PERM },
	{ "pre_access", FAN_PRE_ACCESS },
	{ "mnt_attach", FAN_MNT_ATTACH },
	{ "mnt_detach", FAN_MNT_DETACH },
	{ "event_on_child", FAN_EVENT_ON_CHILD },
	{ "rename", FAN_RENAME },
	{ "ondir", FAN_ONDIR },
};

static const struct mask_name fanotify_event_aliases[] = {
	{ "close", FAN_CLOSE },
	{ "move", FAN_MOVE },
};

/* ---- FSN_MASK_INOTIFY_EVENT: include/uapi/linux/inotify.h ---- */

static const struct mask_name inotify_event_bits[] = {
	{ "access", IN_ACCESS },
	{ "modify", IN_MODIFY },
	{ "attrib", IN_ATTRIB },
	{ "close_write", IN_CLOSE_WRITE },
	{ "close_nowrite", IN_CLOSE_NOWRITE },
	{ "open", IN_OPEN },
	{ "moved_from", IN_MOVED_FROM },
	{ "moved_to", IN_MOVED_TO },
	{ "create", IN_CREATE },
	{ "delete", IN_DELETE },
	{ "delete_self", IN_DELETE_SELF },
	{ "move_self", IN_MOVE_SELF },
	{ "unmount", IN_UNMOUNT },
	{ "q_overflow", IN_Q_OVERFLOW },
	{ "ignored", IN_IGNORED },
	{ "onlydir", IN_ONLYDIR },
	{ "dont_follow", IN_DONT_FOLLOW },
	{ "excl_unlink", IN_EXCL_UNLINK },
	{ "mask_create", IN_MASK_CREATE },
	{ "mask_add", IN_MASK_ADD },
	{ "isdir", IN_ISDIR },
	{ "oneshot", IN_ONESHOT },
};

static const struct mask_name inotify_event_aliases[] = {
	{ "close", IN_CLOSE },
	{ "move", IN_MOVE },
	{ "all_events", IN_ALL_EVENTS },
};

/* ---- FSN_MASK_FANOTIFY_MARK: fanotify_mark() flags ---- */

#define MARK_TYPE_FIELD (FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM)

static const struct mask_name fanotify_mark_bits[] = {
	{ "add", FAN_MARK_ADD },
	{ "remove", FAN_MARK_REMOVE },
	{ "dont_follow", FAN_MARK_DONT_FOLLOW },
	{ "onlydir", FAN_MARK_ONLYDIR },
	{ "ignored_mask", FAN_MARK_IGNORED_MASK },
	{ "ignored_surv_modify", FAN_MARK_IGNORED_SURV_MODIFY },
	{ "flush", FAN_MARK_FLUSH },
	{ "evictable", FAN_MARK_EVICTABLE },
	{ "ignore", FAN_MARK_IGNORE },
};

static const struct mask_name fanotify_mark_aliases[] = {
	{ "ignore_surv", FAN_MARK_IGNORE_SURV },
};

static const struct mask_name fanotify_mark_types[] = {
	{ "inode", 0 }, /* FAN_MARK_INODE */
	{ "mount", FAN_MARK_MOUNT },
	{ "filesystem", FAN_MARK_FILESYSTEM },
	{ "mntns", FAN_MARK_MNTNS },
};

_Static_assert((FAN_MARK_MNTNS & ~(uint64_t)MARK_TYPE_FIELD) == 0,
	       "FAN_MARK_MNTNS lies inside the mark type field");

/* ---- FSN_MASK_FANOTIFY_INIT: fanotify_init() flags ---- */

#define CLASS_FIELD (FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT)

static const struct mask_name fanotify_init_bits[] = {
	{ "cloexec", FAN_CLOEXEC },
	{ "nonblock", FAN_NONBLOCK },
	{ "unlimited_queue", FAN_UNLIMITED_QUEUE },
	{ "unlimited_marks", FAN_UNLIMITED_MARKS },
	{ "enable_audit", FAN_ENABLE_AUDIT },
	{ "report_pidfd", FAN_REPORT_PIDFD },
	{ "report_tid", FAN_REPORT_TID },
	{ "report_fid", FAN_REPORT_FID },
	{ "report_dir_fid", FAN_REPORT_DIR_FID },
	{ "report_name", FAN_REPORT_NAME },
	{ "report_target_fid", FAN_REPORT_TARGET_FID },
	{ "report_fd_error", FAN_REPORT_FD_ERROR },
	{ "report_mnt", FAN_REPORT_MNT },
};

static const struct mask_name fanotify_init_aliases[] = {
	{ "report_dfid_name", FAN_REPORT_DFID_NAME },
	{ "report_dfid_name_target", FAN_REPORT_DFID_NAME_TARGET },
};

static const struct mask_name fanotify_init_classes[] = {
	{ "class_notif", FAN_CLASS_NOTIF },
	{ "class_content", FAN_CLASS_CONTENT },
	{ "class_pre_content", FAN_CLASS_PRE_CONTENT },
};

#define TABLE(b) .bits = (b), .n_bits = ELEMENTSOF(b)
#define ALIASES(a) .aliases = (a), .n_aliases = ELEMENTSOF(a)
#define FIELD(f, v) .field = (f), .values = (v), .n_values = ELEMENTSOF(v)

static const struct mask_table fanotify_event_table = {
	.what = "fanotify event",
	TABLE(fanotify_event_bits),
	ALIASES(fanotify_event_aliases),
};

static const struct mask_table inotify_event_table = {
	.what = "inotify event",
	TABLE(inotify_event_bits),
	ALIASES(inotify_event_aliases),
};

static const struct mask_table fanotify_mark_table = {
	.what = "fanotify mark flag",
	TABLE(fanotify_mark_bits),
	ALIASES(fanotify_mark_aliases),
	FIELD(MARK_TYPE_FIELD, fanotify_mark_types),
};

static const struct mask_table fanotify_init_table = {
	.what = "fanotify init flag",
	TABLE(fanotify_init_bits),
	ALIASES(fanotify_init_aliases),
	FIELD(CLASS_FIELD, fanotify_init_classes),
};

static const struct mask_table *const tables[] = {
	[FSN_MASK_FANOTIFY_EVENT] = &fanotify_event_table,
	[FSN_MASK_INOTIFY_EVENT] = &inotify_event_table,
	[FSN_MASK_FANOTIFY_MARK] = &fanotify_mark_table,
	[FSN_MASK_FANOTIFY_INIT] = &fanotify_init_table,
};
_Static_assert(ELEMENTSOF(tables) == _FSN_MASK_KIND_MAX, "a mask kind has no table");

static const struct mask_table *table_of(enum fsn_mask_kind kind) {
	if ((unsigned)kind >= _FSN_MASK_KIND_MAX)
		return NULL;
	return tables[kind];
}

static const struct mask_name *find_value(const struct mask_name *v, size_t n, uint64_t value) {
	for (size_t i = 0; i < n; i++)
		if (v[i].value == value)
			return &v[i];
	return NULL;
}

static const struct mask_name *find_name(const struct mask_name *v, size_t n, const char *word,
					 size_t len) {
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].name) == len && memcmp(v[i].name, word, len) == 0)
			return &v[i];
	return NULL;
}

static bool is_space(char c) {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* "0x" followed by 1..16 hex digits, nothing else. */
static bool parse_hex(const char *word, size_t len, uint64_t *ret) {
	uint64_t v = 0;

	if (len < 3 || len > 18 || word[0] != '0' || word[1] != 'x')
		return false;
	for (size_t i = 2; i < len; i++) {
		char c = word[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*ret = v;
	return true;
}

static int parse_error(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);

static int parse_error(char *err, size_t errlen, const char *fmt, ...) {
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

_public_ int fsn_mask_parse(enum fsn_mask_kind kind, const char *text, uint64_t *ret_mask,
			    char *err, size_t errlen) {
	const struct mask_table *t = table_of(kind);
	const struct mask_name *field_set = NULL; /* value field named so far */
	uint64_t mask = 0;
	const char *p;
	bool blank = true;

	if (!t)
		return parse_error(err, errlen, "unknown mask kind %d", (int)kind);
	if (!text || !ret_mask)
		return parse_error(err, errlen, "no %s list given", t->what);

	/* An empty or blank string is the empty mask. */
	for (p = text; *p; p++)
		if (!is_space(*p))
			blank = false;
	if (blank) {
		*ret_mask = 0;
		return 0;
	}

	for (p = text;;) {
		const char *end = strchr(p, ',');
		const char *w = p, *we = end ? end : p + strlen(p);
		const struct mask_name *m;
		uint64_t hex;
		size_t len;

		while (w < we && is_space(*w))
			w++;
		while (we > w && is_space(we[-1]))
			we--;
		len = (size_t)(we - w);
		if (len > (size_t)INT32_MAX)
			return parse_error(err, errlen, "%s list too long", t->what);

		if (len == 0)
			return parse_error(err, errlen, "empty %s name in '%s'", t->what, text);
		if ((m = find_name(t->bits, t->n_bits, w, len)) ||
		    (m = find_name(t->aliases, t->n_aliases, w, len)))
			mask |= m->value;
		else if (t->field && (m = find_name(t->values, t->n_values, w, len))) {
			if (field_set && field_set->value != m->value)
				return parse_error(err, errlen, "conflicting %ss '%s' and '%s'",
						   t->what, field_set->name, m->name);
			field_set = m;
			mask |= m->value;
		} else if (parse_hex(w, len, &hex))
			mask |= hex;
		else
			return parse_error(err, errlen, "unknown %s '%.*s'", t->what, (int)len, w);

		if (!end)
			break;
		p = end + 1;
	}

	*ret_mask = mask;
	return 0;
}

_public_ int fsn_mask_format(enum fsn_mask_kind kind, uint64_t mask, char *buf, size_t len) {
	const struct mask_table *t = table_of(kind);
	uint64_t left = mask;
	size_t pos = 0;

	if (!t || (!buf && len > 0))
		return -EINVAL;
	if (len > 0)
		buf[0] = '\0';

	for (unsigned i = 0; i < 64; i++) {
		uint64_t bit = UINT64_C(1) << i;
		const struct mask_name *m;

		if (!(left & bit))
			continue;
		if (bit & t->field) {
			/* First (lowest) set bit of the field: print the field's value. */
			m = find_value(t->values, t->n_values, mask & t->field);
			if (!m)
				continue; /* unnamed value: stays in the hex word */
			left &= ~t->field;
		} else {
			m = find_value(t->bits, t->n_bits, bit);
			if (!m)
				continue;
			left &= ~bit;
		}
		fsn_append(buf, len, &pos, "%s%s", pos > 0 ? "," : "", m->name);
	}
	if (left)
		fsn_append(buf, len, &pos, "%s0x%" PRIx64, pos > 0 ? "," : "", left);

	return pos > (size_t)INT32_MAX ? -EOVERFLOW : (int)pos;
}

_public_ const char *fsn_mask_bit_name(enum fsn_mask_kind kind, uint64_t bit) {
	const struct mask_table *t = table_of(kind);
	const struct mask_name *m;

	if (!t || bit == 0 || (bit & (bit - 1)) != 0)
		return NULL;
	if (bit & t->field)
		m = find_value(t->values, t->n_values, bit);
	else
		m = find_value(t->bits, t->n_bits, bit);
	return m ? m->name : NULL;
}
