/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ecs-samples.c — every kind of record, with and without what a record
 * may carry (who, attributes before and after, a hash, a package, a name
 * that is not UTF-8, a deny, tags, an origin and a stream), each printed
 * as record_to_ecs() writes it, one per line: what check-ecs.py holds
 * against the Elastic Common Schema's definitions. Given "--record", the
 * same records as record_to_json() writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "escape.h"
#include "fsn-uapi.h"
#include "verdict.h"

#define T0 1764478329123456ull

static int (*format)(const struct record *r, char *buf, size_t len) = record_to_ecs;
static int failures;

static void print(const struct record *r) {
	char line[16384];
	int n = format(r, line, sizeof(line));

	if (n < 0 || (size_t)n >= sizeof(line)) {
		fprintf(stderr, "ecs-samples: a record of kind %s did not fit\n",
			record_kind_name(r->kind));
		failures++;
		return;
	}
	fputs(line, stdout);
}

int main(int argc, char **argv) {
	static char *tags[] = { (char *)"pci", (char *)"fim" };
	const struct record_label label = { .tags = tags,
					    .n_tags = 2,
					    .severity = RECORD_SEVERITY(LOG_WARNING) };
	struct record_origin origin = { .host = "web1",
					.machine_id = "0123456789abcdef0123456789abcdef",
					.boot_id = "fedcba9876543210fedcba9876543210" };
	const struct record_who who = { .login_uid = 1000,
					.session = 7,
					.exe = "/usr/bin/vim",
					.ppid = 99,
					.parent_comm = "bash",
					.unit = "session-7.scope",
					.slice = "user-1000.slice",
					.container = "docker://4f3a",
					.mntns = 4026531841u };
	const struct record_who who_machine = { .login_uid = (uint32_t)-1,
						.session = (uint32_t)-1,
						.exe = "/x\xff",
						.container = "machine://build-1" };
	const struct record_attrs now = { .type = S_IFREG,
					  .mode = 0640,
					  .uid = 0,
					  .gid = 42,
					  .size = 1234,
					  .mtime_sec = 1764478000,
					  .mtime_nsec = 5,
					  .ctime_sec = 1764478001,
					  .ino = 131077,
					  .nlink = 1 };
	struct record_attrs before = now, dir = now;
	const struct record_content content = { .event_usec = T0 - 1000,
						.sha256 = "e3b0c44298fc1c149afbf4c8996fb924"
							  "27ae41e4649b934ca495991b7852b855",
						.size = 1234,
						.has_size = true,
						.package_asked = true,
						.package = "passwd",
						.package_verified = true };
	const struct record_content skipped = {
		.event_usec = T0 - 1000, .skipped = "too_big", .size = 1u << 30, .has_size = true
	};
	const struct record_baseline changed = { .sha256 = content.sha256,
						 .sha256_before = "00" /* (short: a sample) */,
						 .recorded_usec = T0 - 86400000000ull,
						 .package_asked = true,
						 .package = "passwd" };
	const struct record_baseline link = { .target = "/etc/alternatives/\xfe",
					      .target_before = "/etc/old" };
	const struct verdict allow = { 0 }, deny = { .deny = true, .err = EPERM, .audit = true };
	const struct perm_counts perm = { 10, 2, 1, 0, 17, 90 };
	struct record r;

	if (argc > 1 && strcmp(argv[1], "--record") == 0)
		format = record_to_json;
	before.mode = 0644;
	before.uid = 1000;
	dir.type = S_IFDIR;
	dir.mode = 0755;
	record_origin_seal(&origin);

	/* events: plain; with who, attributes, tags, a stream */
	r = (struct record){ .kind = RECORD_EVENT,
			     .time_usec = T0,
			     .rule = "etc",
			     .mask = FAN_CLOSE_WRITE,
			     .path = "/etc/passwd",
			     .pid = 4242,
			     .comm = "vim",
			     .uid = 0 };
	print(&r);
	r.origin = &origin;
	r.stream = "00112233445566778899aabbccddeeff";
	r.seq = 17;
	r.label = &label;
	r.who = &who;
	r.attrs_asked = true;
	r.attrs = &now;
	r.attrs_before = &before;
	r.mask = FAN_CREATE | FAN_CLOSE_WRITE | FAN_MODIFY;
	print(&r);
	/* gone before it was looked at, its process too; a name not UTF-8 */
	r.attrs = r.attrs_before = NULL;
	r.attrs_skipped = "gone";
	r.who = &who_machine;
	r.who_skipped = "gone";
	r.comm = NULL;
	r.uid = (uid_t)-1;
	r.pid = 0;
	r.path = "/srv/\xff\xfe.txt";
	r.mask = FAN_DELETE | FAN_ONDIR;
	r.hash_skipped = "backlog";
	print(&r);
	/* a rename, both names; an open, a directory */
	r = (struct record){ .kind = RECORD_EVENT,
			     .time_usec = T0,
			     .rule = "etc",
			     .mask = FAN_MOVED_FROM | FAN_MOVED_TO | FAN_RENAME,
			     .path = "/etc/new",
			     .old_path = "/etc/\xff",
			     .pid = 1,
			     .comm = "mv",
			     .uid = 0,
			     .origin = &origin };
	print(&r);
	r.mask = FAN_OPEN | FAN_ACCESS | FAN_ONDIR;
	r.old_path = NULL;
	r.path = "/";
	r.attrs_asked = true;
	r.attrs = &dir;
	print(&r);
	r.mask = FAN_FS_ERROR;
	r.attrs_asked = false;
	r.attrs = NULL;
	print(&r);

	/* decisions: allow; deny(EPERM), audited, with who and an exe not
	 * UTF-8 */
	r = (struct record){ .kind = RECORD_DECISION,
			     .time_usec = T0,
			     .rule = "no-exec",
			     .mask = FAN_OPEN_EXEC_PERM,
			     .path = "/tmp/x",
			     .pid = 123,
			     .comm = "bash",
			     .uid = 1000,
			     .exe = "/usr/bin/bash",
			     .verdict = &allow,
			     .by = "default",
			     .latency_us = 17,
			     .origin = &origin };
	print(&r);
	r.verdict = &deny;
	r.by = "decision";
	r.decision = 3;
	r.exe = "/tmp/\xff";
	r.who = &who;
	r.label = &label;
	print(&r);
	r.mask = FAN_PRE_ACCESS | FAN_ACCESS_PERM | FAN_OPEN_PERM;
	r.path = NULL;
	r.exe = NULL;
	r.who = NULL;
	r.pid = 0;
	r.comm = NULL;
	r.uid = (uid_t)-1;
	print(&r);

	/* the rest of the kinds */
	r = (struct record){
		.kind = RECORD_OVERFLOW, .time_usec = T0, .rule = "etc", .origin = &origin
	};
	print(&r);
	r.mask = FAN_CLOSE_WRITE | FAN_CREATE;
	print(&r);
	r = (struct record){ .kind = RECORD_DROPPED,
			     .time_usec = T0,
			     .count = 42,
			     .origin = &origin,
			     .stream = "00112233445566778899aabbccddeeff",
			     .seq = 18 };
	print(&r);
	r = (struct record){ .kind = RECORD_STATS,
			     .time_usec = T0,
			     .rule = "no-exec",
			     .perm = &perm,
			     .origin = &origin };
	print(&r);
	for (const char *const *c = (const char *const[]){ "created", "modified", "changed", NULL };
	     *c; c++) {
		r = (struct record){ .kind = RECORD_RESCAN,
				     .time_usec = T0,
				     .rule = "etc",
				     .path = "/etc/hosts",
				     .change = *c,
				     .attrs_asked = true,
				     .attrs = &now,
				     .attrs_before = &before,
				     .origin = &origin };
		print(&r);
	}
	r = (struct record){ .kind = RECORD_GONE,
			     .time_usec = T0,
			     .rule = "etc",
			     .path = "/etc/app",
			     .reason = "deleted",
			     .mask = FAN_ONDIR,
			     .origin = &origin };
	print(&r);
	r = (struct record){ .kind = RECORD_UNMOUNTED,
			     .time_usec = T0,
			     .rule = "srv",
			     .path = "/srv/data",
			     .mount = "/srv",
			     .origin = &origin };
	print(&r);
	r.mount = "/mnt/\xff";
	print(&r);
	r = (struct record){ .kind = RECORD_REARMED,
			     .time_usec = T0,
			     .rule = "srv",
			     .path = "/srv/data",
			     .mask = FAN_ONDIR,
			     .origin = &origin };
	print(&r);
	r = (struct record){ .kind = RECORD_CONTENT,
			     .time_usec = T0,
			     .rule = "etc",
			     .mask = FAN_CLOSE_WRITE,
			     .path = "/etc/passwd",
			     .content = &content,
			     .origin = &origin,
			     .label = &label };
	print(&r);
	r.content = &skipped;
	print(&r);
	for (const char *const *c =
		 (const char *const[]){ "created", "deleted", "renamed", "changed", NULL };
	     *c; c++) {
		r = (struct record){ .kind = RECORD_BASELINE,
				     .time_usec = T0,
				     .rule = "etc",
				     .path = "/etc/passwd",
				     .change = *c,
				     .reason = "offline",
				     .baseline = &changed,
				     .attrs = &now,
				     .attrs_before = &before,
				     .origin = &origin };
		if (strcmp(*c, "renamed") == 0)
			r.old_path = "/etc/passwd-";
		if (strcmp(*c, "created") == 0)
			r.attrs_before = NULL;
		if (strcmp(*c, "deleted") == 0)
			r.attrs = NULL;
		print(&r);
	}
	r = (struct record){ .kind = RECORD_BASELINE,
			     .time_usec = T0,
			     .rule = "etc",
			     .path = "/etc/alternatives/editor",
			     .change = "changed",
			     .reason = "verify",
			     .baseline = &link,
			     .origin = &origin };
	print(&r);
	return failures ? 1 : 0;
}
