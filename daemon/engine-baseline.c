/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-baseline.c — rules with baseline: the engine's side of the
 * baseline thread (baseliner.h).
 *
 * At a commit, each such rule whose baseline is not yet compared (the
 * daemon's start, a rule new or of other paths at a reload) is scanned:
 * what differs is reported as baseline records, reason "offline". As the
 * daemon reports a rule's events, their paths are noted and handed to the
 * thread once a second to be recorded silently (a sync), so that the next
 * start reports only what it did not see. After an overflow, the scan
 * replaces the rescan's records (reason "overflow": it reports deletions
 * too). The loop never waits for the thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ev.h>

#include "baseliner.h"
#include "engine-private.h"
#include "escape.h"
#include "jbuf.h"
#include "fsn-uapi.h"
#include "log.h"
#include "origin.h"
#include "packages.h"
#include "pathset.h"

/* Paths noted at most before they are handed over; beyond, the rule is
 * synced whole (its paths walked again, silently). */
#define NOTED_MAX 65536
#define SYNC_EVERY_SEC 1.0

/* One rule's noted paths: each walked (a directory made or moved in: what
 * is in it too), or the object only (self: what else changed, and the
 * directory an entry was made, removed or renamed in). */
struct bnoted {
	char *rule;
	struct strmap set; /* path -> its index + 1 */
	char **paths;
	bool *self;
	size_t n, cap;
	bool all; /* too many: the whole rule */
};

struct bstate {
	struct baseliner *thread;
	char *state_dir;       /* the thread's database's */
	engine_found_fn found; /* lookups' answers (the control socket's) */
	void *found_data;
	struct baseline_stats *stats; /* per rule with baseline, by name */
	size_t n_stats;
	ev_timer timer;
	struct bnoted *noted;
	size_t n_noted;
	/* the scopes last compared, by rule: name "\n" scope */
	char **scanned;
	size_t n_scanned;
};

/* ---- a rule as the thread takes it ---- */

struct bspec {
	struct baseline_rule r;
	char **canon;
};

/* rc's paths resolved (a path that does not resolve: as configured). */
static int spec_of(const struct config *c, const struct rule_conf *rc, struct bspec *s) {
	*s = (struct bspec){ 0 };
	s->canon = calloc(rc->n_paths + 1, sizeof(*s->canon));
	if (!s->canon)
		return -ENOMEM;
	for (size_t i = 0; i < rc->n_paths; i++) {
		s->canon[i] = canonical(rc->paths[i]);
		if (!s->canon[i] && !(s->canon[i] = strdup(rc->paths[i]))) {
			strv_free(s->canon, i);
			return -ENOMEM;
		}
	}
	s->r = (struct baseline_rule){
		.name = rc->name,
		.paths = s->canon,
		.n_paths = rc->n_paths,
		.exclude = rc->exclude,
		.n_exclude = rc->n_exclude,
		.recursive = rc->recursive,
		.hash = rc->hash,
		.md5 = rc->packages != PACKAGES_OFF,
		.hash_max_size = (uint64_t)c->hash_max_size << 20,
		.max_objects = c->baseline_objects,
	};
	return 0;
}

static void spec_done(struct bspec *s) {
	strv_free(s->canon, s->r.n_paths);
}

/* "name\nscope": what a scan of rc compares. */
static char *scope_key(const struct bspec *s) {
	size_t len = strlen(s->r.name) + 32;
	char *k, *p;

	for (size_t i = 0; i < s->r.n_paths; i++)
		len += strlen(s->r.paths[i]) + 1;
	for (size_t i = 0; i < s->r.n_exclude; i++)
		len += strlen(s->r.exclude[i]) + 2;
	if (!(k = malloc(len)))
		return NULL;
	p = k + sprintf(k, "%s\n%d", s->r.name, s->r.recursive);
	for (size_t i = 0; i < s->r.n_paths; i++)
		p += sprintf(p, "\n%s", s->r.paths[i]);
	for (size_t i = 0; i < s->r.n_exclude; i++)
		p += sprintf(p, "\n-%s", s->r.exclude[i]);
	return k;
}

/* ---- what the thread says ---- */

static void on_diff(void *userdata, const char *rule, const char *reason,
		    const struct baseline_diff *d) {
	struct engine *e = userdata;
	struct erule *r = erule_find(e, rule);
	struct record_baseline b;
	struct record rec;

	if (!baseline_diff_record(rule, reason, d, &rec, &b))
		return;
	/* a rule with packages: what dpkg's database says of a file's content
	 * now (an upgrade made while the daemon was not running: with "drop",
	 * not reported when it is what the package lists) */
	if (r && r->conf->packages != PACKAGES_OFF && d->now && d->now->has_md5) {
		const struct pkgfile *pf = pkgdb_lookup(e->pkgdb, d->now->path);

		b.package_asked = true;
		b.package = pf ? pf->pkg : NULL;
		b.package_verified = pf && pf->has_md5 && memcmp(pf->md5, d->now->md5, 16) == 0;
		if (b.package_verified && r->conf->packages == PACKAGES_DROP) {
			e->pkg_dropped++;
			return;
		}
	}
	(void)emit_named(e, r, rule, &rec);
}

static struct baseline_stats *stats_of(struct bstate *bs, const char *rule) {
	for (size_t i = 0; rule && i < bs->n_stats; i++)
		if (strcmp(bs->stats[i].rule, rule) == 0)
			return &bs->stats[i];
	return NULL;
}

static void on_done(void *userdata, const char *rule, const char *job, const char *reason, int r,
		    const struct baseline_result *res, const char *err, bool replaced) {
	struct engine *e = userdata;
	struct baseline_stats *st = e->baseline ? stats_of(e->baseline, rule) : NULL;

	if (st && r == 0 && strcmp(job, "scan") == 0) {
		st->objects = res->objects;
		st->incomplete = res->incomplete != NULL;
		st->created += res->created;
		st->deleted += res->deleted;
		st->renamed += res->renamed;
		st->changed += res->changed;
	} else if (st && r < 0)
		st->failures++;
	if (replaced)
		log_warning("baseline: %s: set aside as %s.bad and made anew: what changed while "
			    "the daemon was not running since it was last compared cannot be "
			    "reported",
			    err ? err : "?", BASELINE_FILE);
	if (r < 0) {
		log_error("baseline of rule '%s': %s failed: %s", rule ? rule : "-", job,
			  err && !replaced ? err : strerror(-r));
		return;
	}
	if (strcmp(job, "scan") != 0)
		return;
	if (res->initialised)
		log_info("baseline of rule '%s' made: %" PRIu64 " objects in %.3f s%s%s", rule,
			 res->objects, (double)res->usec / 1e6,
			 res->incomplete ? "; not all of its paths: " : "",
			 res->incomplete ? res->incomplete : "");
	else
		log_info("baseline of rule '%s' compared (%s): %" PRIu64 " objects, %" PRIu64
			 " created, %" PRIu64 " deleted, %" PRIu64 " renamed, %" PRIu64
			 " changed in %.3f s%s%s",
			 rule, reason, res->objects, res->created, res->deleted, res->renamed,
			 res->changed, (double)res->usec / 1e6,
			 res->incomplete ? "; not all of its paths: " : "",
			 res->incomplete ? res->incomplete : "");
	if (res->incomplete && strcmp(res->incomplete, "limit") == 0)
		log_warning("baseline of rule '%s': limits.baseline_objects reached; what is "
			    "beyond is neither recorded nor compared",
			    rule);
}

static void on_found(void *userdata, uint64_t token, int r, const char *rule,
		     const struct baseline_object *o) {
	struct engine *e = userdata;

	if (e->baseline && e->baseline->found)
		e->baseline->found(e->baseline->found_data, token, r, rule, o);
}

int engine_baseline_lookup(struct engine *e, const char *rule, const char *path, uint64_t token,
			   engine_found_fn found, void *userdata) {
	if (!e->baseline)
		return -ENOENT;
	e->baseline->found = found;
	e->baseline->found_data = userdata;
	return baseliner_lookup(e->baseline->thread, rule, path, token);
}

/* ---- noted paths ---- */

static void noted_clear(struct bnoted *n) {
	strmap_done(&n->set);
	strv_free(n->paths, n->n);
	free(n->self);
	n->paths = NULL;
	n->self = NULL;
	n->n = n->cap = 0;
	n->all = false;
}

static void noted_free(struct bstate *bs) {
	for (size_t i = 0; i < bs->n_noted; i++) {
		noted_clear(&bs->noted[i]);
		free(bs->noted[i].rule);
	}
	free(bs->noted);
	bs->noted = NULL;
	bs->n_noted = 0;
}

/* Hand what was noted to the thread. */
static void flush_noted(struct engine *e) {
	struct bstate *bs = e->baseline;

	for (size_t i = 0; bs && i < bs->n_noted; i++) {
		struct bnoted *n = &bs->noted[i];
		struct erule *r = erule_find(e, n->rule);
		struct bspec s;

		if (r && (n->n || n->all) && spec_of(e->st.config, r->conf, &s) == 0) {
			/* (too many to record one by one: compared as after a loss,
			 * which may report again what was reported) */
			if (n->all)
				(void)baseliner_scan(bs->thread, &s.r, "overflow");
			else
				(void)baseliner_sync(bs->thread, &s.r, n->paths, n->self, n->n);
			spec_done(&s);
		}
		noted_clear(n);
	}
}

static void on_sync_timer(struct ev_loop *loop, ev_timer *w, int revents) {
	struct engine *e = w->data;

	(void)loop;
	(void)revents;
	flush_noted(e);
}

static void note(struct bnoted *n, const char *path, size_t len, bool self) {
	void *at;
	char *p;

	if (n->all || !path || len == 0)
		return;
	if ((at = strmap_value(&n->set, path, len))) {
		n->self[(uintptr_t)at - 1] &= self;
		return;
	}
	if (n->n >= NOTED_MAX) {
		noted_clear(n);
		n->all = true;
		return;
	}
	if (n->n == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 64;
		char **v = realloc(n->paths, cap * sizeof(*v));
		bool *f = v ? realloc(n->self, cap * sizeof(*f)) : NULL;

		if (v)
			n->paths = v;
		if (f)
			n->self = f;
		if (!v || !f) {
			n->all = true;
			return;
		}
		n->cap = cap;
	}
	if (!(p = strndup(path, len)) ||
	    strmap_put(&n->set, p, len, (void *)(uintptr_t)(n->n + 1)) < 0) {
		free(p);
		n->all = true;
		return;
	}
	n->self[n->n] = self;
	n->paths[n->n++] = p;
}

/* path, and its directory (the object only: its entries changed). */
static void note_path(struct bnoted *n, const char *path, bool self) {
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!path)
		return;
	note(n, path, strlen(path), self);
	if (slash)
		note(n, path, slash == path ? 1 : (size_t)(slash - path), true);
}

void baseline_note(struct engine *e, struct erule *r, const struct record *rec) {
	struct bstate *bs = e->baseline;

	if (!bs || (rec->kind != RECORD_EVENT && rec->kind != RECORD_RESCAN))
		return;
	for (size_t i = 0; i < bs->n_noted; i++)
		if (bs->noted[i].rule && strcmp(bs->noted[i].rule, r->conf->name) == 0) {
			/* a directory made or moved in: walked (what was made in
			 * it before its watch, or moved in with it) */
			note_path(&bs->noted[i], rec->path,
				  !(rec->mask & (FAN_CREATE | FAN_MOVED_TO | FAN_RENAME)) ||
				      !(rec->mask & FAN_ONDIR));
			note_path(&bs->noted[i], rec->old_path, true);
			if (!ev_is_active(&bs->timer)) {
				ev_timer_set(&bs->timer, SYNC_EVERY_SEC, 0.);
				ev_timer_start(e->loop, &bs->timer);
			}
			return;
		}
}

/* The counters of the rules in keep (new ones at 0), the others' gone. */
static void stats_keep(struct bstate *bs, char *const *keep, size_t n) {
	struct baseline_stats *v = n ? calloc(n, sizeof(*v)) : NULL;

	if (n && !v)
		return; /* (the old ones stay) */
	for (size_t i = 0; i < n; i++) {
		const struct baseline_stats *old = stats_of(bs, keep[i]);

		if (old)
			v[i] = *old;
		v[i].rule = strdup(keep[i]);
	}
	for (size_t i = 0; i < bs->n_stats; i++)
		free(bs->stats[i].rule);
	free(bs->stats);
	bs->stats = v;
	bs->n_stats = n;
}

/* ---- commits ---- */

/* The events a baseline is kept current by: a rule without one of them
 * reports what it made again at the next start. */
#define BASELINE_EVENTS                                                                            \
	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CLOSE_WRITE | FAN_ATTRIB)

static bool scanned(const struct bstate *bs, const char *key) {
	for (size_t i = 0; i < bs->n_scanned; i++)
		if (strcmp(bs->scanned[i], key) == 0)
			return true;
	return false;
}

void baseline_commit(struct engine *e, const struct config *c) {
	struct bstate *bs = e->baseline;
	char **keep = NULL, **keys = NULL;
	size_t n_keep = 0;
	int r;

	for (size_t i = 0; i < c->n_rules; i++)
		n_keep += c->rules[i].baseline;
	if (!bs && n_keep == 0)
		return;
	if (bs && (!bs->state_dir || strcmp(bs->state_dir, c->state_directory) != 0)) {
		/* (another database: every baseline there compared as at a start) */
		log_info("baseline: state_directory is now %s (was %s)", c->state_directory,
			 bs->state_dir);
		baseline_free(e);
		bs = NULL;
	}
	if (!bs) {
		if (!(bs = calloc(1, sizeof(*bs))) ||
		    (r = baseliner_new(e->loop, c->state_directory, on_diff, on_done, on_found, e,
				       &bs->thread)) < 0) {
			log_error("baseline: cannot start its thread: %s; no rule's baseline is "
				  "compared or kept",
				  bs ? strerror(-r) : strerror(ENOMEM));
			free(bs);
			return;
		}
		ev_timer_init(&bs->timer, on_sync_timer, 0., 0.);
		bs->timer.data = e;
		bs->state_dir = strdup(c->state_directory);
		e->baseline = bs;
	}
	flush_noted(e); /* (of the rules as they were) */
	noted_free(bs);
	keep = calloc(n_keep + 1, sizeof(*keep));
	keys = calloc(n_keep + 1, sizeof(*keys));
	bs->noted = calloc(n_keep + 1, sizeof(*bs->noted));
	if (!keep || !keys || !bs->noted) {
		log_error("baseline: out of memory");
		goto out;
	}
	n_keep = 0;
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct rule_conf *rc = &c->rules[i];
		struct bspec s;
		char events[256];

		if (!rc->baseline || spec_of(c, rc, &s) < 0)
			continue;
		keep[n_keep] = rc->name;
		keys[n_keep] = scope_key(&s);
		bs->noted[bs->n_noted++].rule = strdup(rc->name);
		if (keys[n_keep] && !scanned(bs, keys[n_keep]))
			(void)baseliner_scan(bs->thread, &s.r, "offline");
		if ((rc->events & BASELINE_EVENTS) != BASELINE_EVENTS) {
			fsn_mask_format(FSN_MASK_FANOTIFY_EVENT, BASELINE_EVENTS & ~rc->events,
					events, sizeof(events));
			log_warning("rule '%s' keeps a baseline but does not ask for %s: such a "
				    "change made while the daemon runs is reported at its next "
				    "start, or not at all when an event of another kind names "
				    "the path first (the baseline then records it)",
				    rc->name, events);
		}
		spec_done(&s);
		n_keep++;
	}
	(void)baseliner_forget(bs->thread, keep, n_keep);
	stats_keep(bs, keep, n_keep);
	strv_free(bs->scanned, bs->n_scanned);
	bs->scanned = keys;
	bs->n_scanned = n_keep;
	keys = NULL;
out:
	free(keep);
	strv_free(keys, n_keep);
}

size_t baseline_stats_of(const struct engine *e, const struct baseline_stats **ret) {
	*ret = e->baseline ? e->baseline->stats : NULL;
	return e->baseline ? e->baseline->n_stats : 0;
}

bool baseline_overflowed(struct engine *e, struct erule *r) {
	struct bstate *bs = e->baseline;
	struct bspec s;

	if (!bs || !r->conf->baseline || spec_of(e->st.config, r->conf, &s) < 0)
		return false;
	/* what was noted is not recorded: a sync would record what happened in
	 * the gap too, silently; the scan reports it (and may report again what
	 * was reported before the loss) */
	for (size_t i = 0; i < bs->n_noted; i++)
		if (bs->noted[i].rule && strcmp(bs->noted[i].rule, r->conf->name) == 0)
			noted_clear(&bs->noted[i]);
	(void)baseliner_scan(bs->thread, &s.r, "overflow");
	spec_done(&s);
	return true;
}

int engine_baseline_verify(struct engine *e, const char *rule, struct jbuf *b) {
	struct erule *one = rule ? erule_find(e, rule) : NULL;
	bool first = true;

	if (rule && !one)
		return -ENOENT;
	if (one && !one->conf->baseline)
		return -EINVAL;
	jb_puts(b, "[");
	flush_noted(e); /* (what was reported: recorded first) */
	for (size_t i = 0; e->baseline && i < e->st.n_rules; i++) {
		struct erule *r = &e->st.rules[i];
		struct bspec s;

		if (!r->conf->baseline || (one && r != one) ||
		    spec_of(e->st.config, r->conf, &s) < 0)
			continue;
		if (baseliner_scan(e->baseline->thread, &s.r, "verify") == 0) {
			jb_puts(b, first ? "" : ",");
			jb_str(b, r->conf->name);
			first = false;
		}
		spec_done(&s);
	}
	jb_puts(b, "]");
	return 0;
}

void baseline_free(struct engine *e) {
	struct bstate *bs = e->baseline;

	if (!bs)
		return;
	flush_noted(e);
	ev_timer_stop(e->loop, &bs->timer);
	bs->thread = baseliner_free(bs->thread);
	noted_free(bs);
	strv_free(bs->scanned, bs->n_scanned);
	stats_keep(bs, NULL, 0);
	free(bs->state_dir);
	free(bs);
	e->baseline = NULL;
}

uint64_t baseline_disk_bytes_of(const struct engine *e) {
	return e->baseline ? baseliner_disk_bytes(e->baseline->thread) : 0;
}

/* ---- fsnotifyd --baseline-check, --baseline-init ---- */

struct oneshot {
	const char *rule;
	uint64_t differences;
	int err;
};

/* A difference as a JSON line on stdout (the daemon's, reason "verify"). */
static int print_diff(void *userdata, const struct baseline_diff *d) {
	struct oneshot *o = userdata;
	struct record_baseline b;
	struct record rec;
	char *line;
	int n;

	if (!baseline_diff_record(o->rule, "verify", d, &rec, &b))
		return 0;
	rec.origin = origin_get();
	n = record_to_json(&rec, NULL, 0);
	if (n < 0 || !(line = malloc((size_t)n + 1)))
		return n < 0 ? n : -ENOMEM;
	record_to_json(&rec, line, (size_t)n + 1);
	if (fwrite(line, 1, (size_t)n, stdout) != (size_t)n)
		o->err = -EIO;
	free(line);
	o->differences++;
	return o->err;
}

int baseline_oneshot(const struct config *c, const char *only, bool init) {
	struct baseline *db = NULL;
	char err[1024] = "";
	bool replaced = false, any = false;
	int r, status = 0;

	r = baseline_open(c->state_directory, false, &db, &replaced, err, sizeof(err));
	if (r < 0) {
		log_error("baseline: %s", err[0] ? err : strerror(-r));
		return 2;
	}
	if (replaced)
		log_warning("baseline: %s: set aside as %s.bad and made anew", err, BASELINE_FILE);
	origin_refresh();
	for (size_t i = 0; i < c->n_rules && status < 2; i++) {
		const struct rule_conf *rc = &c->rules[i];
		struct baseline_result res;
		struct oneshot o = { .rule = rc->name };
		struct pathset excl;
		struct bspec s;

		if (!rc->baseline || (only && strcmp(only, rc->name) != 0))
			continue;
		any = true;
		if (spec_of(c, rc, &s) < 0 || baseline_rule_excl(&s.r, &excl) < 0) {
			log_error("baseline: out of memory");
			return 2;
		}
		r = baseline_scan(db, &s.r, init ? BASELINE_INIT : BASELINE_CHECK, print_diff, NULL,
				  &o, &res, err, sizeof(err));
		pathset_done(&excl);
		spec_done(&s);
		fflush(stdout);
		if (r < 0 || o.err < 0) {
			log_error("baseline of rule '%s': %s", rc->name,
				  err[0] ? err : strerror(-(r < 0 ? r : o.err)));
			status = 2;
		} else if (init)
			log_info("baseline of rule '%s' made: %" PRIu64 " objects in %.3f s%s%s",
				 rc->name, res.objects, (double)res.usec / 1e6,
				 res.incomplete ? "; not all of its paths: " : "",
				 res.incomplete ? res.incomplete : "");
		else {
			log_info("baseline of rule '%s' checked: %" PRIu64 " objects, %" PRIu64
				 " differences in %.3f s%s%s",
				 rc->name, res.objects, o.differences, (double)res.usec / 1e6,
				 res.incomplete ? "; not all of its paths: " : "",
				 res.incomplete ? res.incomplete : "");
			if (o.differences && status == 0)
				status = 1;
		}
	}
	db = baseline_close(db);
	if (!any) {
		log_error(only ? "baseline: no rule '%s' with baseline = true"
			       : "baseline: no rule has baseline = true%s",
			  only ? only : "");
		return 2;
	}
	return status;
}
