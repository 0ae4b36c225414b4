/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c — the main() of a fuzz target's replay program (the target
 * built without libFuzzer, linked with this):
 *
 *   fuzz-NAME-replay FILE|DIR...
 *
 * runs fuzz_one() on each FILE and each file in each DIR (sorted, dot files
 * skipped), prints one line per file and then "N passed, N failed, 0
 * skipped"; the exit status is 1 if any file failed (or none was found),
 * else 0.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay.h"

static unsigned n_passed, n_failed;

static int read_file(const char *path, uint8_t **ret, size_t *ret_size) {
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0;
	FILE *f;

	f = fopen(path, "rbe");
	if (!f)
		return -errno;
	for (;;) {
		size_t n;

		if (size == cap) {
			uint8_t *b;

			cap = cap ? 2 * cap : 4096;
			b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = b;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);

	/* an exact-size block, so ASan sees reads past the end */
	*ret = malloc(size + (size == 0));
	if (!*ret) {
		free(buf);
		return -ENOMEM;
	}
	if (size > 0)
		memcpy(*ret, buf, size);
	free(buf);
	*ret_size = size;
	return 0;
}

static void replay_file(const char *path) {
	uint8_t *data = NULL;
	size_t size = 0;
	int r;

	r = read_file(path, &data, &size);
	if (r < 0) {
		printf("FAIL %s: cannot read: %s\n", path, strerror(-r));
		n_failed++;
		return;
	}
	if (fuzz_one(data, size) < 0) {
		printf("FAIL %s (%zu bytes)\n", path, size);
		n_failed++;
	} else {
		printf("ok   %s (%zu bytes)\n", path, size);
		n_passed++;
	}
	free(data);
}

static int no_dot(const struct dirent *de) {
	return de->d_name[0] != '.';
}

static void replay_path(const char *path) {
	struct dirent **list;
	struct stat st;
	int n;

	if (stat(path, &st) < 0) {
		printf("FAIL %s: %s\n", path, strerror(errno));
		n_failed++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}

	n = scandir(path, &list, no_dot, alphasort);
	if (n < 0) {
		printf("FAIL %s: %s\n", path, strerror(errno));
		n_failed++;
		return;
	}
	for (int i = 0; i < n; i++) {
		char *p;

		if (asprintf(&p, "%s/%s", path, list[i]->d_name) < 0) {
			printf("FAIL %s/%s: out of memory\n", path, list[i]->d_name);
			n_failed++;
		} else {
			replay_file(p);
			free(p);
		}
		free(list[i]);
	}
	free(list);
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		replay_path(argv[i]);
	if (n_passed + n_failed == 0) {
		printf("FAIL: no input files found\n");
		n_failed++;
	}
	printf("%u passed, %u failed, 0 skipped\n", n_passed, n_failed);
	return n_failed > 0 ? 1 : 0;
}
