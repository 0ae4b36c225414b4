/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * result.c — fsn-bench's JSON result files: the head every run writes
 * (schema version, tool, libfsn, the machine it ran on) and reading a file
 * back, for compare, plot and vm.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fsn-util.h"
#include "fsn.h"
#include "json.h"
#include "result.h"
#include "util.h"

/* The machine description of the head. */
struct machine {
	char sysname[65];
	char release[65];
	char version[65];
	char arch[65];
	char cpu_model[128];
	long nproc;
};

static void machine_probe(struct machine *m) {
	struct utsname u;
	FILE *f;
	char line[512];

	memset(m, 0, sizeof(*m));
	if (uname(&u) == 0) {
		snprintf(m->sysname, sizeof(m->sysname), "%s", u.sysname);
		snprintf(m->release, sizeof(m->release), "%s", u.release);
		snprintf(m->version, sizeof(m->version), "%s", u.version);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	m->nproc = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", colon);
		break;
	}
	fclose(f);
}

void bench_json_write_head(FILE *f, const char *tool) {
	struct machine m;

	machine_probe(&m);
	fprintf(f, "{\n  \"version\": %d,\n  \"tool\": ", FSN_BENCH_SCHEMA_VERSION);
	json_write_string(f, tool[0] ? tool : "fsn-bench");
	fputs(",\n  \"libfsn\": ", f);
	json_write_string(f, fsn_version());
	fputs(",\n  \"machine\": {\"sysname\": ", f);
	json_write_string(f, m.sysname);
	fputs(", \"release\": ", f);
	json_write_string(f, m.release);
	fputs(", \"uname_version\": ", f);
	json_write_string(f, m.version);
	fputs(", \"arch\": ", f);
	json_write_string(f, m.arch);
	fprintf(f, ", \"nproc\": %ld, \"cpu_model\": ", m.nproc);
	json_write_string(f, m.cpu_model);
}

static bool has_array(const struct json *doc, const char *key) {
	const struct json *a = json_get(doc, key);

	return a && a->type == JSON_ARRAY;
}

int bench_result_load(const char *path, struct json **ret, enum bench_kind *ret_kind) {
	_cleanup_free_ char *text = NULL;
	struct json *j = NULL;
	enum bench_kind kind;
	const char *tool;
	size_t len = 0, off = 0;
	int r;

	r = bench_read_text(path, &text, &len);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: %s: %s\n", path, strerror(-r));
		return r;
	}
	r = json_parse(text, len, &j, &off);
	if (r < 0) {
		fprintf(stderr, "fsn-bench: %s: invalid JSON at byte %zu\n", path, off);
		return r;
	}
	tool = json_get_string(j, "tool");
	if (tool && strcmp(tool, "fsn-bench consumers") == 0)
		kind = BENCH_KIND_CONSUMERS;
	else if (tool && strcmp(tool, "fsn-bench perm") == 0)
		kind = BENCH_KIND_PERM;
	else
		kind = BENCH_KIND_HOOKS;
	if (json_get_number(j, "version", 0) != FSN_BENCH_SCHEMA_VERSION ||
	    !has_array(j, kind == BENCH_KIND_CONSUMERS ? "consumers" : "results") ||
	    (kind == BENCH_KIND_PERM && !has_array(j, "ratios"))) {
		fprintf(stderr,
			"fsn-bench: %s: not an fsn-bench hooks, perm or consumers result (schema "
			"version %d)\n",
			path, FSN_BENCH_SCHEMA_VERSION);
		json_free(j);
		return -EINVAL;
	}
	*ret = j;
	*ret_kind = kind;
	return 0;
}

bool bench_result_ran(const struct json *result) {
	const struct json *r = json_get(result, "ran");

	return !r || r->type != JSON_BOOL || r->boolean;
}

const char *bench_result_release(const struct json *doc) {
	const char *s = json_get_string(json_get(doc, "machine"), "release");

	return s ? s : "?";
}
