/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pathset.c — see pathset.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "pathset.h"
#include "resolve.h"

struct pathset_entry {
	char *path;
	unsigned cover;
};

static struct pathset_entry *entry_of(const struct pathset *s, const char *path, size_t len,
				      uint64_t hash) {
	struct strmap_entry *e = strmap_get_hashed(&s->paths, path, len, hash);

	return e ? e->value : NULL;
}

int pathset_add(struct pathset *s, const char *path, unsigned cover) {
	size_t len = strlen(path);
	struct pathset_entry *e, **v;

	if (path[0] != '/')
		return -EINVAL;
	e = entry_of(s, path, len, hash_bytes(HASH_INIT, path, len));
	if (e) {
		e->cover |= cover;
		return 0;
	}
	v = realloc(s->entries, (s->n_paths + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->entries = v;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return -ENOMEM;
	}
	e->cover = cover;
	if (strmap_put(&s->paths, e->path, len, e) < 0) {
		free(e->path);
		free(e);
		return -ENOMEM;
	}
	s->entries[s->n_paths++] = e;
	return 0;
}

int pathset_add_pattern(struct pathset *s, const char *pattern) {
	char **v, *c;

	if (!is_glob(pattern))
		return pathset_add(s, pattern, PATHSET_TREE);
	v = realloc(s->patterns, (s->n_patterns + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->patterns = v;
	c = strdup(pattern);
	if (!c)
		return -ENOMEM;
	s->patterns[s->n_patterns++] = c;
	return 0;
}

int pathset_add_pattern_resolved(struct pathset *s, const char *pattern) {
	_cleanup_free_ char *c = NULL;
	int r = pathset_add_pattern(s, pattern);

	if (r < 0 || is_glob(pattern))
		return r;
	c = resolve_canonical(pattern);
	return c && strcmp(c, pattern) != 0 ? pathset_add(s, c, PATHSET_TREE) : 0;
}

/* The path and each of its ancestors, shortest first, each looked up with
 * the hash carried from the one before. */
bool pathset_has_path(const struct pathset *s, const char *path) {
	const struct pathset_entry *e;
	const char *parent_end;
	uint64_t h = HASH_INIT;
	size_t len, pos = 0;

	if (!path || path[0] != '/' || s->n_paths == 0)
		return false;
	len = strlen(path);
	parent_end = strrchr(path, '/');
	e = entry_of(s, "/", 1, hash_bytes(HASH_INIT, "/", 1));
	if (e) {
		if (len == 1)
			return e->cover & PATHSET_SELF;
		if ((e->cover & PATHSET_BELOW) ||
		    ((e->cover & PATHSET_CHILDREN) && parent_end == path))
			return true;
	}
	while (pos < len) {
		const char *end = strchr(path + pos + 1, '/');
		size_t j = end ? (size_t)(end - path) : len;

		h = hash_bytes(h, path + pos, j - pos);
		e = entry_of(s, path, j, h);
		if (e) {
			if (j == len)
				return e->cover & PATHSET_SELF;
			if ((e->cover & PATHSET_BELOW) ||
			    ((e->cover & PATHSET_CHILDREN) && path + j == parent_end))
				return true;
		}
		pos = j;
	}
	return false;
}

bool pathset_has(const struct pathset *s, const char *path) {
	if (!path)
		return false;
	if (pathset_has_path(s, path))
		return true;
	for (size_t i = 0; i < s->n_patterns; i++)
		if (fnmatch(s->patterns[i], path, 0) == 0)
			return true;
	return false;
}

bool pathset_empty(const struct pathset *s) {
	return s->n_paths == 0 && s->n_patterns == 0;
}

void pathset_done(struct pathset *s) {
	strmap_done(&s->paths);
	for (size_t i = 0; i < s->n_paths; i++) {
		free(s->entries[i]->path);
		free(s->entries[i]);
	}
	free(s->entries);
	strv_free(s->patterns, s->n_patterns);
	*s = (struct pathset){ 0 };
}
