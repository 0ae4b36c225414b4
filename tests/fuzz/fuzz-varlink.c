/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-varlink.c — the fuzz target of the control socket's request parser
 * (daemon/varlink.c vl_parse_call(), and under it shared/json.c), and its
 * replay program.
 *
 * An input is cut at its NUL bytes as the server cuts what it reads; each
 * message is parsed, from a copy of exactly its length (so ASan sees a
 * read past it). Checked: only 0, -EINVAL or -ENOMEM come back; success
 * gives a method with a dot in it and parameters that are NULL or an
 * object, never "more" with "oneway"; failure says why and owns nothing.
 *
 * Built with -DFSN_LIBFUZZER it is a libFuzzer target (meson -Dfuzz=true,
 * CC=clang). Without it, it links replay.c:
 *
 *   fuzz-varlink-replay FILE|DIR...
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "replay.h"
#include "varlink.h"

static int one_message(const uint8_t *p, size_t n) {
	char *copy = malloc(n ? n : 1);
	struct vl_call c;
	const char *why = NULL;
	int r;

	CHECK(copy);
	memcpy(copy, p, n);
	r = vl_parse_call(copy, n, &c, &why);
	free(copy);
	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		CHECK(r == -ENOMEM || why);
		CHECK(!c.doc && !c.method && !c.params);
		return 0;
	}
	CHECK(c.doc && c.method && strchr(c.method, '.'));
	CHECK(!c.params || c.params->type == JSON_OBJECT);
	CHECK(!(c.more && c.oneway));
	vl_call_done(&c);
	return 0;
}

int fuzz_one(const uint8_t *data, size_t size) {
	size_t start = 0;

	for (size_t i = 0; i <= size; i++)
		if (i == size || data[i] == '\0') {
			if (i > start || i < size)
				CHECK(one_message(data + start, i - start) == 0);
			start = i + 1;
		}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (fuzz_one(data, size) < 0)
		abort();
	return 0;
}
