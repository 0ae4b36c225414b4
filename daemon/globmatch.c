/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * globmatch.c — globs compiled once, matched in time linear in the path
 * (globmatch.h).
 *
 * A pattern is a list of items, each matching one byte (a literal, '?', a
 * [...] set), cut into runs by its stars: P0 * P1 * ... * Pk. Without a
 * star the path must be P0; with one, P0 must begin it, Pk end it, and
 * P1..Pk-1 follow one another in between. Taking each of those at its
 * leftmost (earliest ending: all items are one byte) place leaves the
 * most room to the ones after it, so no choice is ever undone: the path
 * is read once. A run is found by shift-and: bit i of bits[c] says item i
 * matches byte c, and a bit vector holds which prefixes of the run end at
 * the byte just read; a run of L items costs ⌈L/64⌉ (+1) words a byte.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsn-util.h"
#include "globmatch.h"

/* The words of one run's bit vector: a run of GLOBMATCH_MAX items that
 * starts at the last bit of a word spans this many. */
#define RUN_WORDS (GLOBMATCH_MAX / 64 + 2)

struct run {
	size_t start, len; /* items [start, start + len) */
};

struct globmatch {
	bool star;      /* there is a '*': runs[0] begins the path, the last ends it */
	size_t n_items; /* every item is one byte of any match: the shortest match */
	size_t words;   /* of an item bit vector */
	size_t n_runs;  /* at least 1 (and 2 with a star: the first and last may be empty) */
	struct run *runs;
	uint64_t *bits; /* [256][words]: bit i of row c: item i matches byte c */
};

typedef uint64_t byteset[4];

static void set_add(byteset s, unsigned c) {
	s[c / 64] |= UINT64_C(1) << (c % 64);
}

static const struct {
	const char *name;
	int (*is)(int);
} classes[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank }, { "cntrl", iscntrl },
	{ "digit", isdigit }, { "graph", isgraph }, { "lower", islower }, { "print", isprint },
	{ "punct", ispunct }, { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
};

#define CLASS_ERROR                                                                                \
	"'[:' in a [...] set starts none of the classes [:alnum:] [:alpha:] [:blank:] "            \
	"[:cntrl:] [:digit:] [:graph:] [:lower:] [:print:] [:punct:] [:space:] [:upper:] "         \
	"[:xdigit:] (write \\[ for a '[')"

/* The class "[:name:]" at p (p[0] == '[', p[1] == ':') added to s (ASCII
 * only, as in the C locale): the byte after it, or NULL. */
static const char *parse_class(const char *p, byteset s) {
	const char *name = p + 2, *end = name;

	while (*end >= 'a' && *end <= 'z')
		end++;
	if (end[0] != ':' || end[1] != ']')
		return NULL;
	for (size_t k = 0; k < ELEMENTSOF(classes); k++)
		if (strlen(classes[k].name) == (size_t)(end - name) &&
		    memcmp(classes[k].name, name, (size_t)(end - name)) == 0) {
			for (unsigned c = 0; c < 0x80; c++)
				if (classes[k].is((int)c))
					set_add(s, c);
			return end + 2;
		}
	return NULL;
}

/* The set "[...]" whose '[' is just before p into s: the byte after its
 * ']', or NULL with *why. fnmatch()'s reading: after '[', '!' or '^'
 * complements; the first member may be ']'; a member is a byte, a byte
 * after '\', a class, or a range x-y of two of those bytes (a '-' before
 * the ']' is a member). */
static const char *parse_set(const char *p, byteset s, const char **why) {
	bool negate = *p == '!' || *p == '^';

	memset(s, 0, sizeof(byteset));
	if (negate)
		p++;
	for (bool first = true;; first = false) {
		unsigned char lo, hi;

		if (*p == '\0') {
			*why = "a '[' is not closed with ']'";
			return NULL;
		}
		if (*p == ']' && !first)
			break;
		if (p[0] == '[' && (p[1] == '=' || p[1] == '.')) {
			*why = "equivalence classes [=c=] and collating symbols [.c.] are not "
			       "supported";
			return NULL;
		}
		if (p[0] == '[' && p[1] == ':') {
			p = parse_class(p, s);
			if (!p) {
				*why = CLASS_ERROR;
				return NULL;
			}
			continue;
		}
		if (*p == '\\' && *++p == '\0') {
			*why = "it ends in a lone '\\'";
			return NULL;
		}
		lo = hi = (unsigned char)*p++;
		if (p[0] == '-' && p[1] != '\0' && p[1] != ']') {
			p++;
			if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
				*why = "a range in [...] ends in '[:', '[=' or '[.'";
				return NULL;
			}
			if (*p == '\\' && *++p == '\0') {
				*why = "it ends in a lone '\\'";
				return NULL;
			}
			hi = (unsigned char)*p++;
		}
		for (unsigned c = lo; c <= hi; c++)
			set_add(s, c);
	}
	if (negate)
		for (size_t k = 0; k < 4; k++)
			s[k] = ~s[k];
	return p + 1;
}

int globmatch_new(const char *pattern, struct globmatch **ret, const char **why) {
	size_t len = strlen(pattern);
	struct globmatch *g;
	struct run cur = { 0, 0 };

	*why = NULL;
	if (len > GLOBMATCH_MAX) {
		*why = "the pattern is too long";
		return -E2BIG;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->words = len / 64 + 1;
	g->bits = calloc(256 * g->words, sizeof(uint64_t));
	g->runs = calloc(len + 2, sizeof(struct run));
	if (!g->bits || !g->runs) {
		globmatch_free(g);
		return -ENOMEM;
	}
	for (const char *p = pattern; *p;) {
		byteset s = { 0 };
		size_t i = g->n_items;

		if (*p == '*') {
			while (*p == '*')
				p++;
			g->star = true;
			g->runs[g->n_runs++] = cur;
			cur = (struct run){ i, 0 };
			continue;
		}
		if (*p == '?') {
			memset(s, 0xff, sizeof(s));
			p++;
		} else if (*p == '[') {
			p = parse_set(p + 1, s, why);
			if (!p) {
				globmatch_free(g);
				return -EINVAL;
			}
		} else {
			if (*p == '\\' && *++p == '\0') {
				*why = "it ends in a lone '\\'";
				globmatch_free(g);
				return -EINVAL;
			}
			set_add(s, (unsigned char)*p++);
		}
		for (unsigned c = 0; c < 256; c++)
			if ((s[c / 64] >> (c % 64)) & 1)
				g->bits[c * g->words + i / 64] |= UINT64_C(1) << (i % 64);
		g->n_items++;
		cur.len++;
	}
	g->runs[g->n_runs++] = cur;
	*ret = g;
	return 0;
}

struct globmatch *globmatch_free(struct globmatch *g) {
	if (!g)
		return NULL;
	free(g->runs);
	free(g->bits);
	free(g);
	return NULL;
}

static bool item_matches(const struct globmatch *g, size_t i, unsigned char c) {
	return (g->bits[c * g->words + i / 64] >> (i % 64)) & 1;
}

/* Whether run r matches the r->len bytes at s. */
static bool run_at(const struct globmatch *g, const struct run *r, const unsigned char *s,
		   uint64_t *steps) {
	for (size_t k = 0; k < r->len; k++) {
		if (!item_matches(g, r->start + k, s[k])) {
			*steps += k + 1;
			return false;
		}
	}
	*steps += r->len;
	return true;
}

/* The leftmost place of run r (not empty) in s[from, to): *end gets the
 * index after it. Shift-and: after reading s[i], bit r->start + k of d is
 * set when the first k + 1 items match s[i - k .. i]. */
static bool run_find(const struct globmatch *g, const struct run *r, const unsigned char *s,
		     size_t from, size_t to, size_t *end, uint64_t *steps) {
	size_t last = r->start + r->len - 1, w0 = r->start / 64, nw = last / 64 - w0 + 1;
	uint64_t d[RUN_WORDS] = { 0 }, inject = UINT64_C(1) << (r->start % 64),
		 done = UINT64_C(1) << (last % 64);

	for (size_t i = from; i < to; i++) {
		const uint64_t *b = g->bits + s[i] * g->words + w0;
		uint64_t carry = inject;

		for (size_t j = 0; j < nw; j++) {
			uint64_t v = d[j];

			d[j] = ((v << 1) | carry) & b[j];
			carry = v >> 63;
		}
		*steps += nw;
		if (d[nw - 1] & done) {
			*end = i + 1;
			return true;
		}
	}
	return false;
}

bool globmatch_match(const struct globmatch *g, const char *str, size_t n, uint64_t *steps) {
	const unsigned char *s = (const unsigned char *)str;
	const struct run *head = &g->runs[0], *tail = &g->runs[g->n_runs - 1];
	uint64_t st = 0;
	bool ok;

	if (!g->star)
		ok = n == head->len && run_at(g, head, s, &st);
	else if (n < g->n_items)
		ok = false;
	else {
		size_t pos = head->len, to = n - tail->len;

		ok = run_at(g, head, s, &st) && run_at(g, tail, s + to, &st);
		for (size_t k = 1; ok && k + 1 < g->n_runs; k++)
			ok = run_find(g, &g->runs[k], s, pos, to, &pos, &st);
	}
	if (steps)
		*steps += st;
	return ok;
}
