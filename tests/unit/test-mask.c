/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-mask.c — the "mask" suite: fsn_mask_parse(), fsn_mask_format() and
 * fsn_mask_bit_name() for every kind.
 *
 * The expected names and values below are written out as numbers from the
 * kernel's include/uapi/linux/fanotify.h and inotify.h on purpose, so a
 * wrong constant in the library's tables (or in fsn-uapi.h) shows up here.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "fsn.h"
#include "unit.h"

struct expect {
	const char *name;
	uint64_t value;
};

static const struct expect fanotify_events[] = {
	{ "access", 0x1 },           { "modify", 0x2 },
	{ "attrib", 0x4 },           { "close_write", 0x8 },
	{ "close_nowrite", 0x10 },   { "open", 0x20 },
	{ "moved_from", 0x40 },      { "moved_to", 0x80 },
	{ "create", 0x100 },         { "delete", 0x200 },
	{ "delete_self", 0x400 },    { "move_self", 0x800 },
	{ "open_exec", 0x1000 },     { "q_overflow", 0x4000 },
	{ "fs_error", 0x8000 },      { "open_perm", 0x10000 },
	{ "access_perm", 0x20000 },  { "open_exec_perm", 0x40000 },
	{ "pre_access", 0x100000 },  { "mnt_attach", 0x1000000 },
	{ "mnt_detach", 0x2000000 }, { "event_on_child", 0x8000000 },
	{ "rename", 0x10000000 },    { "ondir", 0x40000000 },
};

static const struct expect inotify_events[] = {
	{ "access", 0x1 },
	{ "modify", 0x2 },
	{ "attrib", 0x4 },
	{ "close_write", 0x8 },
	{ "close_nowrite", 0x10 },
	{ "open", 0x20 },
	{ "moved_from", 0x40 },
	{ "moved_to", 0x80 },
	{ "create", 0x100 },
	{ "delete", 0x200 },
	{ "delete_self", 0x400 },
	{ "move_self", 0x800 },
	{ "unmount", 0x2000 },
	{ "q_overflow", 0x4000 },
	{ "ignored", 0x8000 },
	{ "onlydir", 0x1000000 },
	{ "dont_follow", 0x2000000 },
	{ "excl_unlink", 0x4000000 },
	{ "mask_create", 0x10000000 },
	{ "mask_add", 0x20000000 },
	{ "isdir", 0x40000000 },
	{ "oneshot", 0x80000000 },
};

/* Every single bit with a name; mount|filesystem = mntns is in test_mark_type. */
static const struct expect fanotify_marks[] = {
	{ "add", 0x1 },
	{ "remove", 0x2 },
	{ "dont_follow", 0x4 },
	{ "onlydir", 0x8 },
	{ "mount", 0x10 },
	{ "ignored_mask", 0x20 },
	{ "ignored_surv_modify", 0x40 },
	{ "flush", 0x80 },
	{ "filesystem", 0x100 },
	{ "evictable", 0x200 },
	{ "ignore", 0x400 },
};

static const struct expect fanotify_inits[] = {
	{ "cloexec", 0x1 },
	{ "nonblock", 0x2 },
	{ "class_content", 0x4 },
	{ "class_pre_content", 0x8 },
	{ "unlimited_queue", 0x10 },
	{ "unlimited_marks", 0x20 },
	{ "enable_audit", 0x40 },
	{ "report_pidfd", 0x80 },
	{ "report_tid", 0x100 },
	{ "report_fid", 0x200 },
	{ "report_dir_fid", 0x400 },
	{ "report_name", 0x800 },
	{ "report_target_fid", 0x1000 },
	{ "report_fd_error", 0x2000 },
	{ "report_mnt", 0x4000 },
};

struct kind_expect {
	enum fsn_mask_kind kind;
	const struct expect *bits;
	size_t n;
};

#define KIND(k, a)                                                                                 \
	{ (k), (a), sizeof(a) / sizeof((a)[0]) }

static const struct kind_expect kinds[] = {
	KIND(FSN_MASK_FANOTIFY_EVENT, fanotify_events),
	KIND(FSN_MASK_INOTIFY_EVENT, inotify_events),
	KIND(FSN_MASK_FANOTIFY_MARK, fanotify_marks),
	KIND(FSN_MASK_FANOTIFY_INIT, fanotify_inits),
};

/* parse() that must succeed */
static uint64_t parse_ok(enum fsn_mask_kind kind, const char *text) {
	char err[128] = "";
	uint64_t m = 0xdeadbeef;
	int r = fsn_mask_parse(kind, text, &m, err, sizeof(err));

	ck_assert_msg(r == 0, "parse(%d, \"%s\") = %d (%s)", kind, text, r, err);
	return m;
}

/* parse() that must fail with -EINVAL and leave the mask alone; returns err */
static const char *parse_fail(enum fsn_mask_kind kind, const char *text) {
	static char err[256];
	uint64_t m = 0xdeadbeef;
	int r;

	memset(err, 0, sizeof(err));
	r = fsn_mask_parse(kind, text, &m, err, sizeof(err));
	ck_assert_msg(r == -EINVAL, "parse(%d, \"%s\") = %d, want -EINVAL", kind, text, r);
	ck_assert_msg(m == 0xdeadbeef, "parse(\"%s\") wrote the mask on failure", text);
	ck_assert_msg(err[0] != '\0', "parse(\"%s\") failed without a message", text);
	return err;
}

static const char *format(enum fsn_mask_kind kind, uint64_t mask) {
	static char buf[1024];
	int r = fsn_mask_format(kind, mask, buf, sizeof(buf));

	ck_assert_msg(r >= 0, "format(%d, 0x%" PRIx64 ") = %d", kind, mask, r);
	ck_assert_int_eq((size_t)r, strlen(buf));
	return buf;
}

START_TEST(test_single_bits) {
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct kind_expect *ke = &kinds[k];

		for (size_t i = 0; i < ke->n; i++) {
			const struct expect *e = &ke->bits[i];
			const char *name = fsn_mask_bit_name(ke->kind, e->value);

			ck_assert_msg(parse_ok(ke->kind, e->name) == e->value,
				      "kind %d: parse(%s) != 0x%" PRIx64, ke->kind, e->name,
				      e->value);
			ck_assert_str_eq(format(ke->kind, e->value), e->name);
			ck_assert_msg(name && strcmp(name, e->name) == 0,
				      "kind %d: bit_name(0x%" PRIx64 ") = %s, want %s", ke->kind,
				      e->value, name ? name : "NULL", e->name);
		}
	}
}
END_TEST

/* Every one of the 64 bits: a name exists exactly for the expected bits, and
 * every name that exists round-trips. */
START_TEST(test_no_unexpected_names) {
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct kind_expect *ke = &kinds[k];
		size_t named = 0;

		for (unsigned i = 0; i < 64; i++) {
			uint64_t bit = UINT64_C(1) << i;
			const char *name = fsn_mask_bit_name(ke->kind, bit);
			bool expected = false;

			for (size_t j = 0; j < ke->n; j++)
				expected |= ke->bits[j].value == bit;
			ck_assert_msg(!!name == expected, "kind %d bit %u: name %s", ke->kind, i,
				      name ? name : "NULL");
			if (!name) {
				char hex[32];

				snprintf(hex, sizeof(hex), "0x%" PRIx64, bit);
				ck_assert_str_eq(format(ke->kind, bit), hex);
				continue;
			}
			named++;
			ck_assert_uint_eq(parse_ok(ke->kind, name), bit);
			ck_assert_str_eq(format(ke->kind, bit), name);
		}
		ck_assert_int_eq(named, ke->n);
	}
}
END_TEST

START_TEST(test_multi) {
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "open,close_write,modify"),
			  0x20 | 0x8 | 0x2);
	/* lowest bit first, whatever the input order */
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_EVENT, 0x20 | 0x8 | 0x2),
			 "modify,close_write,open");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_EVENT, 0x40000000 | 0x8000000 | 0x100 | 0x200),
			 "create,delete,event_on_child,ondir");
	ck_assert_uint_eq(parse_ok(FSN_MASK_INOTIFY_EVENT, "create,delete,isdir,oneshot"),
			  0x100 | 0x200 | 0x40000000 | 0x80000000);
	ck_assert_str_eq(format(FSN_MASK_INOTIFY_EVENT, 0xffffffff & ~0x3000u & ~0x8000000u),
			 "access,modify,attrib,close_write,close_nowrite,open,moved_from,"
			 "moved_to,create,delete,delete_self,move_self,q_overflow,ignored,"
			 "onlydir,dont_follow,excl_unlink,mask_create,mask_add,isdir,oneshot,"
			 "0xff0000");
	/* the same name twice is harmless */
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "open,open"), 0x20);
}
END_TEST

START_TEST(test_aliases) {
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "close"), 0x18);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "move"), 0xc0);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "close,move,ondir"), 0x400000d8);
	ck_assert_uint_eq(parse_ok(FSN_MASK_INOTIFY_EVENT, "close"), 0x18);
	ck_assert_uint_eq(parse_ok(FSN_MASK_INOTIFY_EVENT, "move"), 0xc0);
	ck_assert_uint_eq(parse_ok(FSN_MASK_INOTIFY_EVENT, "all_events"), 0xfff);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "report_dfid_name"), 0xc00);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "report_dfid_name_target"), 0x1e00);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "ignore_surv"), 0x440);

	/* formatting prints single bits, never the alias */
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_EVENT, 0x18), "close_write,close_nowrite");
	ck_assert_str_eq(format(FSN_MASK_INOTIFY_EVENT, 0xfff),
			 "access,modify,attrib,close_write,close_nowrite,open,moved_from,"
			 "moved_to,create,delete,delete_self,move_self");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_INIT, 0x1e00),
			 "report_fid,report_dir_fid,report_name,report_target_fid");
	ck_assert_ptr_null(fsn_mask_bit_name(FSN_MASK_FANOTIFY_EVENT, 0x18));

	/* no surprising aliases */
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "all");
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "all_events");
	parse_fail(FSN_MASK_INOTIFY_EVENT, "all");
	parse_fail(FSN_MASK_FANOTIFY_INIT, "dfid_name");
}
END_TEST

START_TEST(test_whitespace) {
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, " open , close_write\t,\nmodify "),
			  0x2a);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "\topen\n"), 0x20);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, ""), 0);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "  \t\n"), 0);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, ""), 0);
	/* whitespace inside a word is part of the word */
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_EVENT, "close write"),
			 "unknown fanotify event 'close write'");
}
END_TEST

START_TEST(test_unknown_word) {
	char small[8];
	uint64_t m = 7;

	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_EVENT, "open,opne"),
			 "unknown fanotify event 'opne'");
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_EVENT, " opne ,open"),
			 "unknown fanotify event 'opne'");
	ck_assert_str_eq(parse_fail(FSN_MASK_INOTIFY_EVENT, "modify,bogus"),
			 "unknown inotify event 'bogus'");
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_MARK, "add,inodee"),
			 "unknown fanotify mark flag 'inodee'");
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_INIT, "report_fids"),
			 "unknown fanotify init flag 'report_fids'");
	/* case-sensitive, no prefixes */
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_EVENT, "OPEN"),
			 "unknown fanotify event 'OPEN'");
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_EVENT, "FAN_OPEN"),
			 "unknown fanotify event 'FAN_OPEN'");
	/* an inotify-only name is not a fanotify event and vice versa */
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "isdir");
	parse_fail(FSN_MASK_INOTIFY_EVENT, "ondir");

	/* err is optional and truncated to errlen */
	ck_assert_int_eq(fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, "opne", &m, NULL, 0), -EINVAL);
	ck_assert_int_eq(fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, "opne", &m, NULL, 99), -EINVAL);
	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, "opne", &m, small, 0), -EINVAL);
	ck_assert_int_eq(small[0], 'x');
	ck_assert_int_eq(fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, "opne", &m, small, sizeof(small)),
			 -EINVAL);
	ck_assert_str_eq(small, "unknown");
	ck_assert_int_eq(m, 7);
}
END_TEST

START_TEST(test_empty_word) {
	const char *bad[] = { "open,,close", ",open", "open,", ",", " , ", "open, ,modify" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *err = parse_fail(FSN_MASK_FANOTIFY_EVENT, bad[i]);

		ck_assert_msg(strstr(err, "empty") && strstr(err, "fanotify event"),
			      "\"%s\": message \"%s\"", bad[i], err);
	}
	ck_assert_str_eq(parse_fail(FSN_MASK_INOTIFY_EVENT, "open,,close"),
			 "empty inotify event name in 'open,,close'");
}
END_TEST

START_TEST(test_hex) {
	/* leftover bits are one hex word, after the names */
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_EVENT, 0x20 | UINT64_C(0x80000000000)),
			 "open,0x80000000000");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_EVENT, 0x2000 | 0x20 | UINT64_C(1) << 63),
			 "open,0x8000000000002000");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_EVENT, 0x2000), "0x2000");
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "open,0x80000000000"),
			  0x20 | UINT64_C(0x80000000000));
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "0x8000000000002000,open"),
			  0x2020 | UINT64_C(1) << 63);
	/* hex for named bits is accepted too, and formats by name */
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "0x20"), 0x20);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "0xFf"), 0xff);
	ck_assert_uint_eq(parse_ok(FSN_MASK_INOTIFY_EVENT, "0xffffffffffffffff"), UINT64_MAX);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_EVENT, "0x0"), 0);

	parse_fail(FSN_MASK_FANOTIFY_EVENT, "0x");
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "0xg");
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "0x12 34");
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "0X20");
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "32");
	parse_fail(FSN_MASK_FANOTIFY_EVENT, "-0x20");
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_EVENT, "0x10000000000000000"),
			 "unknown fanotify event '0x10000000000000000'");
}
END_TEST

/* format() then parse() gives the mask back, for masks of all shapes. */
START_TEST(test_round_trip) {
	uint64_t x = 0x9e3779b97f4a7c15;

	for (int kind = 0; kind < _FSN_MASK_KIND_MAX; kind++) {
		for (int i = 0; i < 2000; i++) {
			uint64_t m;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly low 32 bits, where the names are */
			m = i % 4 == 0 ? x : x & 0xffffffff;
			if (i % 3 == 0)
				m &= x >> 32; /* sparser masks */
			ck_assert_msg(parse_ok(kind, format(kind, m)) == m,
				      "kind %d: 0x%" PRIx64 " -> \"%s\"", kind, m, format(kind, m));
		}
		ck_assert_uint_eq(parse_ok(kind, format(kind, 0)), 0);
		ck_assert_uint_eq(parse_ok(kind, format(kind, UINT64_MAX)), UINT64_MAX);
	}
}
END_TEST

START_TEST(test_truncation) {
	char buf[32];
	const uint64_t m = 0x2 | 0x20; /* "modify,open", 11 bytes */

	ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, m, NULL, 0), 11);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, m, buf, 0), 11);
	ck_assert_int_eq(buf[0], 'x');

	for (size_t len = 1; len <= 13; len++) {
		memset(buf, 'x', sizeof(buf));
		ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, m, buf, len), 11);
		ck_assert_int_eq(strlen(buf), len - 1 < 11 ? len - 1 : 11);
		ck_assert(strncmp(buf, "modify,open", strlen(buf)) == 0);
		ck_assert_int_eq(buf[len], 'x'); /* nothing written past len */
	}

	/* with a hex leftover, cut inside the hex word */
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, 0x20 | 0x2000, buf, 8), 11);
	ck_assert_str_eq(buf, "open,0x");

	/* mask 0 is the empty string, also over old buffer content */
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_INIT, 0, buf, 1), 0);
	ck_assert_str_eq(buf, "");

	ck_assert_int_eq(fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, m, NULL, 5), -EINVAL);
}
END_TEST

START_TEST(test_bad_args) {
	char buf[16], err[64];
	uint64_t m = 5;

	ck_assert_int_eq(fsn_mask_parse(_FSN_MASK_KIND_MAX, "open", &m, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "unknown mask kind 4");
	ck_assert_int_eq(fsn_mask_parse((enum fsn_mask_kind) - 1, "open", &m, NULL, 0), -EINVAL);
	ck_assert_int_eq(fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, NULL, &m, NULL, 0), -EINVAL);
	ck_assert_int_eq(fsn_mask_parse(FSN_MASK_FANOTIFY_EVENT, "open", NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(m, 5);

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fsn_mask_format(_FSN_MASK_KIND_MAX, 1, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(fsn_mask_format((enum fsn_mask_kind) - 1, 1, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(buf[0], 'x');

	ck_assert_ptr_null(fsn_mask_bit_name(_FSN_MASK_KIND_MAX, 1));
	ck_assert_ptr_null(fsn_mask_bit_name((enum fsn_mask_kind) - 1, 1));
	ck_assert_ptr_null(fsn_mask_bit_name(FSN_MASK_FANOTIFY_EVENT, 0));
	ck_assert_ptr_null(fsn_mask_bit_name(FSN_MASK_FANOTIFY_EVENT, 0x3)); /* two bits */
	ck_assert_ptr_null(fsn_mask_bit_name(FSN_MASK_FANOTIFY_EVENT, 0x2000));
}
END_TEST

START_TEST(test_init_class) {
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "class_notif"), 0);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "class_content"), 0x4);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "class_pre_content"), 0x8);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "cloexec,class_notif,report_fid"),
			  0x201);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "class_content,class_content"), 0x4);

	/* the class is one value, printed by name where its bits are */
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_INIT, 0x4), "class_content");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_INIT, 0x8), "class_pre_content");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_INIT, 0x8 | 0x10 | 0x3),
			 "cloexec,nonblock,class_pre_content,unlimited_queue");
	/* class_notif is the default value 0: never printed */
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_INIT, 0x3 | 0x200),
			 "cloexec,nonblock,report_fid");
	ck_assert_ptr_null(fsn_mask_bit_name(FSN_MASK_FANOTIFY_INIT, 0));
	/* 0xc is no class: left to the hex word */
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_INIT, 0xc | 0x1), "cloexec,0xc");
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_INIT, "cloexec,0xc"), 0xd);

	/* two classes are a contradiction, not 0xc */
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_INIT, "class_content,class_pre_content"),
			 "conflicting fanotify init flags 'class_content' and 'class_pre_content'");
	parse_fail(FSN_MASK_FANOTIFY_INIT, "class_notif,class_content");
}
END_TEST

START_TEST(test_mark_type) {
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "inode"), 0);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "add,inode"), 0x1);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "mount"), 0x10);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "add,filesystem"), 0x101);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "mntns"), 0x110);
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "add,ignore_surv,filesystem"), 0x541);

	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_MARK, 0x110), "mntns");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_MARK, 0x110 | 0x1), "add,mntns");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_MARK, 0x100 | 0x200 | 0x1),
			 "add,filesystem,evictable");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_MARK, 0x10 | 0x40 | 0x20 | 0x2),
			 "remove,mount,ignored_mask,ignored_surv_modify");
	ck_assert_str_eq(format(FSN_MASK_FANOTIFY_MARK, 0x1), "add"); /* inode: not printed */
	ck_assert_ptr_null(fsn_mask_bit_name(FSN_MASK_FANOTIFY_MARK, 0x110));

	/* two mark types: an error, not a silent mntns */
	ck_assert_str_eq(parse_fail(FSN_MASK_FANOTIFY_MARK, "mount,filesystem"),
			 "conflicting fanotify mark flags 'mount' and 'filesystem'");
	parse_fail(FSN_MASK_FANOTIFY_MARK, "inode,mount");
	parse_fail(FSN_MASK_FANOTIFY_MARK, "mntns,mount");
	ck_assert_uint_eq(parse_ok(FSN_MASK_FANOTIFY_MARK, "mount,add,mount"), 0x11);
}
END_TEST

static void mask_suite(Suite *s) {
	TCase *tc = tcase_create("mask");

	tcase_add_test(tc, test_single_bits);
	tcase_add_test(tc, test_no_unexpected_names);
	tcase_add_test(tc, test_multi);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_whitespace);
	tcase_add_test(tc, test_unknown_word);
	tcase_add_test(tc, test_empty_word);
	tcase_add_test(tc, test_hex);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_bad_args);
	tcase_add_test(tc, test_init_class);
	tcase_add_test(tc, test_mark_type);
	suite_add_tcase(s, tc);
}
FSN_UNIT_SUITE("mask", mask_suite);
