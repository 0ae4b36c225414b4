/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-evidence.c — what the engine adds to records off the event path:
 * a file's content (a rule's hash: hasher.c) and dpkg's word on it (a
 * rule's packages: packages.c). The matcher asks (its hash and package
 * ops) once it reports a change; the results come back through the loop
 * as content records, to the rule's outputs (or, reloaded away, to the
 * outputs it had). The hasher and the database are the engine's
 * (e->hasher, e->pkgdb), started at the commit of a config that asks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "attrcache.h"
#include "engine-match.h"
#include "engine-private.h"
#include "hasher.h"
#include "heldspool.h"
#include "log.h"
#include "packages.h"
#include "proc.h"

/* The content record of path (rule's, after its record of events mask):
 * to the rule's outputs, or, reloaded away, to those it had. */
static void emit_content(struct engine *e, const char *rule, uint64_t mask, const char *path,
			 const struct record_content *content) {
	struct record rec = {
		.kind = RECORD_CONTENT,
		.time_usec = now_realtime_usec(),
		.rule = rule,
		.mask = mask,
		.path = path,
		.uid = (uid_t)-1,
		.content = content,
	};

	if (!emit_named(e, erule_find(e, rule), rule, &rec))
		log_debug("content record of rule '%s': the rule and its outputs are gone", rule);
}

/* A file's content, hashed (or not: why): its content record, or, for a
 * change waiting for dpkg's word, to the database. */
static void on_hashed(void *userdata, const struct hash_job *j) {
	struct engine *e = userdata;

	if (j->pkg_id) {
		if (e->pkgdb)
			pkgdb_hashed(e->pkgdb, j->pkg_id, &j->content, j->has_md5 ? j->md5 : NULL);
		return;
	}
	emit_content(e, j->rule, j->mask, j->path, &j->content);
}

/* dpkg's word on change c of a rule with packages: a held event record
 * dpkg made and the database lists as it is goes (counted); else the held
 * record, then (unless a later step of dpkg's says it) the content record
 * saying the package and the check. */
static void on_package_checked(void *userdata, struct pkg_change *c, const struct pkgfile *pf,
			       bool verified, bool step) {
	struct engine *e = userdata;

	if (c->spooled && e->held)
		heldspool_done(e->held, c->id);
	if (c->held && verified) {
		struct erule *r = erule_find(e, c->rule);

		e->pkg_dropped++;
		/* (not reported, but seen: a baseline records it, silently) */
		if (r && r->conf->baseline)
			baseline_note(e, r, c->held);
		return;
	}
	if (c->held)
		(void)emit_named(e, erule_find(e, c->rule), c->rule, c->held);
	if (step)
		return;
	c->content.package_asked = true;
	c->content.package = pf ? pf->pkg : NULL;
	c->content.package_verified = verified;
	emit_content(e, c->rule, c->mask, c->path, &c->content);
}

static void *queue_mark(void *userdata) {
	struct engine *e = userdata;
	struct fsn_queue_mark *m = NULL;

	return fsn_ctx_queue_mark(e->ctx, &m) == 0 ? m : NULL;
}

static bool queue_passed(void *userdata, void *mark) {
	struct engine *e = userdata;

	return (mark && fsn_ctx_queue_passed(e->ctx, mark)) || fsn_ctx_is_drained(e->ctx);
}

static void queue_mark_free(void *mark) {
	fsn_queue_mark_free(mark);
}

static const struct pkgdb_ops pkgdb_ops = {
	.resolved = on_package_checked,
	.mark = queue_mark,
	.passed = queue_passed,
	.free_mark = queue_mark_free,
};

/* fd, the file rule r's record rec named (O_PATH, taken) or -errno, to
 * the hasher; pkg_id: the change waiting for dpkg's word it is (0: none).
 * false: no memory for it. */
static bool submit(struct engine *e, struct erule *r, int fd, const struct record *rec,
		   uint64_t pkg_id) {
	const char *skipped = fd < 0 ? lookup_failure(fd) : NULL;

	return hasher_submit(e->hasher, fd, skipped, r->conf->name, rec->path, rec->mask,
			     rec->time_usec, pkg_id) == 0;
}

/* dpkg's own executable: its changes wait for the md5sums it writes last */
static bool is_dpkg(const char *exe) {
	return exe && (strcmp(exe, "/usr/bin/dpkg") == 0 || strcmp(exe, "/bin/dpkg") == 0);
}

int evidence_package(void *userdata, struct erule *r, const struct fsn_event *ev,
		     const struct record *rec, struct proc_info *p) {
	struct engine *e = userdata;
	/* dpkg run by root: anyone may run the program, but only root's
	 * changes of files dpkg lists are dpkg's work; a process gone by the
	 * time its event is read: dpkg if it is the one followed (seen at work
	 * as root before) */
	bool alive = proc_info_status(p);
	pid_t dpkg =
	    (alive ? is_dpkg(proc_info_exe(p)) && p->uid == 0 : pkgdb_follows(e->pkgdb, ev->pid))
		? ev->pid
		: 0;
	bool hold = dpkg && r->conf->packages == PACKAGES_DROP;
	int64_t id;

	if (!e->pkgdb || !e->hasher || !rec->path || (!dpkg && !pkgdb_lookup(e->pkgdb, rec->path)))
		return MATCH_PKG_NONE;
	id = pkgdb_wait(e->pkgdb, r->conf->name, rec, dpkg, hold);
	if (id <= 0)
		return MATCH_PKG_NONE;
	if (hold && e->held) {
		int k = heldspool_add(e->held, (uint64_t)id,
				      &(struct held_entry){ .time_usec = rec->time_usec,
							    .mask = rec->mask,
							    .pid = rec->pid,
							    .rule = r->conf->name,
							    .path = rec->path });

		if (k == 0)
			pkgdb_spooled(e->pkgdb, (uint64_t)id);
		else
			log_warning("packages: a held record of rule '%s' not spooled (%s): a kill "
				    "before dpkg's word loses it",
				    r->conf->name, strerror(-k));
	}
	if (!submit(e, r, attr_lookup_open(&e->attr_lookup, e->ctx, ev), rec, (uint64_t)id)) {
		struct record_content none = { .skipped = "error" };

		pkgdb_hashed(e->pkgdb, (uint64_t)id, &none, NULL);
	}
	return hold ? MATCH_PKG_HELD : MATCH_PKG_WAITING;
}

void evidence_hash_fd(struct engine *e, struct erule *r, int fd, const struct record *rec) {
	if (!e->hasher || !rec->path) {
		safe_close(fd);
		return;
	}
	if (!submit(e, r, fd, rec, 0))
		log_warning("out of memory: no content record for a change of rule '%s'",
			    r->conf->name);
}

void evidence_hash_event(void *userdata, struct erule *r, const struct fsn_event *ev,
			 const struct record *rec) {
	struct engine *e = userdata;

	evidence_hash_fd(e, r, attr_lookup_open(&e->attr_lookup, e->ctx, ev), rec);
}

/* dpkg's database indexed for the paths of the rules with packages (their
 * canonical paths: events name files by those), at each commit; none, no
 * index (what is waiting is checked now). */
static void packages_scope(struct engine *e, const struct config *c) {
	size_t cap = 0, n = 0;
	char **prefixes;
	int r;

	for (size_t i = 0; i < c->n_rules; i++)
		cap += c->rules[i].packages ? c->rules[i].n_paths : 0;
	prefixes = calloc(cap + 1, sizeof(*prefixes));
	for (size_t i = 0; prefixes && i < c->n_rules; i++)
		for (size_t j = 0; c->rules[i].packages && j < c->rules[i].n_paths; j++) {
			char *canon = realpath(c->rules[i].paths[j], NULL);

			if (canon)
				prefixes[n++] = canon;
		}
	if (!prefixes || n == 0) {
		e->pkgdb = pkgdb_free(e->pkgdb);
		strv_free(prefixes, n);
		return;
	}
	if (!e->pkgdb && (r = pkgdb_new(e->loop, DPKG_ADMINDIR, &pkgdb_ops, e, &e->pkgdb)) < 0)
		log_error("packages: %s", strerror(-r));
	if (e->pkgdb) {
		struct pkgdb_stats st;
		uint64_t t0 = now_monotonic_usec();

		(void)pkgdb_scope(e->pkgdb, prefixes, n, c->package_hold, c->package_wait);
		pkgdb_get_stats(e->pkgdb, &st);
		log_info("packages: %" PRIu64 " files (%" PRIu64 " conffiles) of %" PRIu64
			 " packages under the rules' paths, from %s, in %.3f s",
			 st.files, st.conffiles, st.packages, DPKG_ADMINDIR,
			 (double)(now_monotonic_usec() - t0) / 1e6);
	}
	strv_free(prefixes, n);
}

/* A record a killed predecessor held for dpkg's word: reported now, as
 * it stands (no content record: hash_skipped "restart") */
static void on_held_before(void *arg, const struct held_entry *h) {
	struct engine *e = arg;
	struct record rec = {
		.kind = RECORD_EVENT,
		.time_usec = h->time_usec,
		.rule = h->rule,
		.mask = h->mask,
		.path = h->path,
		.pid = h->pid,
		.uid = (uid_t)-1,
		.hash_skipped = "restart",
	};

	if (!emit_named(e, erule_find(e, h->rule), h->rule, &rec))
		log_warning("packages: a change of %s held for dpkg's word by the last run of "
			    "rule '%s', which is gone: not reported otherwise",
			    h->path, h->rule);
}

void evidence_running(struct engine *e) {
	const struct config *c = e->st.config;
	char err[512];
	bool drop = false;

	for (size_t i = 0; c && i < c->n_rules; i++)
		drop |= c->rules[i].packages == PACKAGES_DROP;
	if (!drop || e->held)
		return;
	e->held = heldspool_open(c->state_directory, on_held_before, e, err, sizeof(err));
	if (!e->held)
		log_warning("packages: %s: records held for dpkg's word are not kept on disk (a "
			    "kill loses them)",
			    err);
}

/* Files are hashed once a rule asks: the hasher's thread starts then, and
 * each commit gives it the limits. */
void evidence_commit(struct engine *e, const struct config *c) {
	bool asked = false;
	int r;

	packages_scope(e, c);
	for (size_t i = 0; i < c->n_rules && !asked; i++)
		asked = c->rules[i].hash || c->rules[i].packages;
	if (asked && !e->hasher && (r = hasher_new(e->loop, on_hashed, e, &e->hasher)) < 0)
		log_error("cannot start the hasher thread: %s; content records say "
			  "hash_skipped \"error\"",
			  strerror(-r));
	if (e->hasher)
		hasher_set_limits(e->hasher, &(struct hasher_limits){
						 .queue = c->hash_queue,
						 .max_size = (uint64_t)c->hash_max_size << 20,
						 .rate = (uint64_t)c->hash_rate << 20,
					     });
}
