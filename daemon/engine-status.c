/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine-status.c — what the control socket's GetStatus, ListRules and
 * Explain say of the running state (engine.h, doc/io.fsnotifyd.varlink):
 * the rules with their marks and counters, the kernel queues, the reader
 * thread's buffer, the features of the filesystems the plan uses; for
 * Explain, the marks that concern one path (engine_path_marks_json()).
 * JSON text into a jbuf; read-only, on the loop.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "engine-private.h"
#include "escape.h"
#include "guard.h"
#include "jbuf.h"

static const char *const kind_names[_FSN_MARK_TYPE_MAX] = {
	[FSN_MARK_INODE] = "inode",
	[FSN_MARK_MOUNT] = "mount",
	[FSN_MARK_FILESYSTEM] = "filesystem",
	[FSN_MARK_INOTIFY] = "inotify",
};
static const char *const rule_mark_names[] = { "auto", "inode", "mount", "filesystem", "inotify" };

/* ["a","b"] of a comma-separated list of names */
static void put_name_list(struct jbuf *b, const char *names) {
	bool first = true;

	jb_puts(b, "[");
	for (const char *w = names; w && *w;) {
		size_t n = strcspn(w, ",");

		if (n > 0) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)n, w);
			if (!first)
				jb_puts(b, ",");
			jb_str(b, name);
			first = false;
		}
		w += n + (w[n] == ',');
	}
	jb_puts(b, "]");
}

static void put_mark(struct jbuf *b, const struct fsn_mark_spec *spec, const char *path,
		     bool placed, const char *why) {
	char mask[1024], group[192];

	jb_puts(b, "{");
	jb_key(b, "kind", true);
	jb_str(b, spec->type < _FSN_MARK_TYPE_MAX ? kind_names[spec->type] : "?");
	jb_key(b, "object", false);
	jb_str(b, path);
	jb_key(b, "mask", false);
	put_name_list(b, plan_mask_words(spec, mask, sizeof(mask)));
	jb_key(b, "group", false);
	jb_str(b, plan_group_words(spec, group, sizeof(group)));
	jb_key(b, "placed", false);
	jb_bool(b, placed);
	jb_key(b, "why", false);
	jb_str(b, why);
	jb_puts(b, "}");
}

static const struct eperm *perm_of(const struct engine *e, const struct rule_conf *rc) {
	for (size_t i = 0; i < e->st.n_perm; i++)
		if (e->st.perm[i].conf == rc)
			return &e->st.perm[i];
	return NULL;
}

static void put_marks(const struct engine *e, struct jbuf *b, const struct erule *r) {
	bool first = true;

	jb_puts(b, "[");
	if (r->conf->perm) {
		const struct eperm *ep = perm_of(e, r->conf);

		for (size_t i = 0; e->st.plan && i < e->st.plan->n_marks; i++) {
			const struct plan_mark *pm = &e->st.plan->marks[i];

			if (pm->rule != r->conf)
				continue;
			if (!first)
				jb_puts(b, ",");
			first = false;
			put_mark(b, &pm->spec, pm->path, ep && ep->gr, NULL);
		}
	} else {
		for (size_t i = 0; i < e->st.n_marks; i++) {
			const struct emark *m = e->st.marks[i];

			if (m->rule != r)
				continue;
			if (!first)
				jb_puts(b, ",");
			first = false;
			put_mark(b, &m->spec, m->path, m->mark && !m->gone,
				 m->gone   ? "its object is gone: waiting for it"
				 : m->mark ? NULL
					   : "could not be placed (see the log)");
		}
	}
	jb_puts(b, "]");
}

static void put_rule(const struct engine *e, struct jbuf *b, const struct erule *r) {
	const struct rule_conf *rc = r->conf;
	char events[1024];

	jb_puts(b, "{");
	jb_key(b, "name", true);
	jb_str(b, rc->name);
	jb_key(b, "paths", false);
	jb_puts(b, "[");
	for (size_t i = 0; i < rc->n_paths; i++) {
		if (i)
			jb_puts(b, ",");
		jb_str(b, rc->paths[i]);
	}
	jb_puts(b, "]");
	jb_key(b, "events", false);
	format_events(rc->events, events, sizeof(events));
	put_name_list(b, events);
	jb_key(b, "recursive", false);
	jb_bool(b, rc->recursive);
	jb_key(b, "mark", false);
	jb_str(b, (size_t)rc->mark < ELEMENTSOF(rule_mark_names) ? rule_mark_names[rc->mark] : "?");
	jb_key(b, "permission", false);
	jb_bool(b, rc->perm);
	jb_key(b, "outputs", false);
	jb_puts(b, "[");
	for (size_t i = 0; i < r->n_outputs; i++) {
		if (i)
			jb_puts(b, ",");
		jb_str(b, r->outputs[i]->name);
	}
	jb_puts(b, "]");
	jb_key(b, "marks", false);
	put_marks(e, b, r);
	jb_key(b, "counters", false);
	jb_printf(b,
		  "{\"events\":%" PRIu64 ",\"filtered\":%" PRIu64 ",\"ratelimited\":%" PRIu64
		  ",\"overflows\":%" PRIu64 ",\"rescans\":%" PRIu64 ",\"rearms\":%" PRIu64
		  ",\"symlink_refusals\":%" PRIu64 "}",
		  r->stats.events, r->stats.filtered, r->stats.ratelimited, r->stats.overflows,
		  r->stats.rescans, r->stats.rearms, r->stats.symlink_refusals);
	jb_key(b, "perm", false);
	{
		struct guard_stats gs;

		if (rc->perm && e->guard && guard_stats(e->guard, rc->name, &gs))
			jb_printf(b,
				  "{\"allowed\":%" PRIu64 ",\"denied\":%" PRIu64
				  ",\"audited\":%" PRIu64 ",\"deadline\":%" PRIu64
				  ",\"latency_p50_us\":%" PRIu64 ",\"latency_p99_us\":%" PRIu64 "}",
				  gs.allowed, gs.denied, gs.audited, gs.deadline, gs.latency_p50_us,
				  gs.latency_p99_us);
		else
			jb_puts(b, "null");
	}
	jb_puts(b, "}");
}

void engine_rules_json(const struct engine *e, struct jbuf *b) {
	jb_puts(b, "[");
	for (size_t i = 0; i < e->st.n_rules; i++) {
		if (i)
			jb_puts(b, ",");
		put_rule(e, b, &e->st.rules[i]);
	}
	jb_puts(b, "]");
}

/* The features every filesystem of the plan has, and each one's. */
static void put_filesystems(struct engine *e, struct jbuf *b) {
	bool all[_FSN_FEAT_MAX];
	bool any = false;

	for (size_t f = 0; f < _FSN_FEAT_MAX; f++)
		all[f] = true;
	jb_key(b, "filesystems", false);
	jb_puts(b, "[");
	/* (the prober is the loader's while a load runs: nothing then) */
	for (size_t i = 0; !e->loader.cur && e->prober && e->st.plan && i < e->st.plan->n_fs; i++) {
		const struct plan_fs *fs = &e->st.plan->fs[i];
		struct fsn_probe probe;
		bool first = true;

		if (!fs->root || fsn_prober_probe(e->prober, fs->root, NULL, &probe) < 0)
			continue;
		if (any)
			jb_puts(b, ",");
		any = true;
		jb_puts(b, "{");
		jb_key(b, "root", true);
		jb_str(b, fs->root);
		jb_key(b, "type", false);
		jb_str(b, fs->type);
		jb_key(b, "features", false);
		jb_puts(b, "[");
		for (size_t f = 0; f < _FSN_FEAT_MAX; f++) {
			bool ok = probe.feat[f].support == FSN_SUPPORTED;

			all[f] = all[f] && ok;
			if (!ok)
				continue;
			if (!first)
				jb_puts(b, ",");
			first = false;
			jb_str(b, fsn_feature_name((enum fsn_feature)f));
		}
		jb_puts(b, "]}");
	}
	jb_puts(b, "]");
	jb_key(b, "features", false);
	jb_puts(b, "[");
	for (size_t f = 0, n = 0; any && f < _FSN_FEAT_MAX; f++) {
		if (!all[f])
			continue;
		if (n++)
			jb_puts(b, ",");
		jb_str(b, fsn_feature_name((enum fsn_feature)f));
	}
	jb_puts(b, "]");
}

void engine_status_json(struct engine *e, struct jbuf *b) {
	struct fsn_reader_stats rs;
	uint64_t lost = 0;
	unsigned groups = 0;
	bool first = true;

	for (size_t i = 0; i < e->st.n_outputs; i++) {
		uint64_t em = 0, f = 0;

		output_counters(e->st.outputs[i]->out, &em, &f);
		lost += f;
	}
	jb_key(b, "marks", false);
	jb_u64(b, e->st.n_placed);
	jb_key(b, "queues", false);
	jb_puts(b, "[");
	for (struct fsn_group *g = NULL; (g = fsn_ctx_next_group(e->ctx, g));) {
		char words[192];
		int queued;
		struct fsn_mark_spec spec = {
			.type = FSN_MARK_INODE,
			.klass = fsn_group_get_class(g),
			.report = fsn_group_get_report(g),
			.group_tag = fsn_group_get_tag(g),
		};

		groups++;
		jb_puts(b, first ? "{" : ",{");
		first = false;
		jb_key(b, "source", true);
		jb_printf(b, "\"fanotify %s\"", plan_group_words(&spec, words, sizeof(words)));
		jb_key(b, "length", false);
		jb_u64(b, fsn_group_get_queue_max(g));
		jb_key(b, "queued", false);
		queued = fsn_group_get_queued(g);
		jb_u64(b, queued > 0 ? (uint64_t)queued : 0);
		jb_puts(b, "}");
	}
	if (fsn_ctx_has_inotify(e->ctx)) {
		int q = fsn_ctx_get_inotify_queued_bytes(e->ctx);

		jb_puts(b, first ? "{" : ",{");
		jb_puts(b, "\"source\":\"inotify\",\"length\":");
		jb_u64(b, fsn_ctx_get_inotify_queue_max(e->ctx));
		jb_puts(b, ",\"queued_bytes\":");
		jb_u64(b, q > 0 ? (uint64_t)q : 0);
		jb_puts(b, "}");
	}
	jb_puts(b, "]");
	jb_key(b, "groups", false);
	jb_u64(b, groups);
	fsn_ctx_get_reader_stats(e->ctx, &rs);
	jb_key(b, "read_buffer", false);
	jb_printf(b, "{\"bytes\":%zu,\"peak\":%zu,\"max\":%zu,\"full\":%" PRIu64 "}", rs.bytes,
		  rs.peak, rs.max, rs.n_full);
	put_filesystems(e, b);
	jb_key(b, "events", false);
	jb_u64(b, e->events);
	jb_key(b, "overflows", false);
	jb_u64(b, e->overflows);
	jb_key(b, "output_lost", false);
	jb_u64(b, lost);
	jb_key(b, "last_reload_error", false);
	jb_str(b, e->reloaded && e->reload_error[0] ? e->reload_error : NULL);
}

bool engine_loading(const struct engine *e) {
	return e->loader.cur != NULL;
}

/* ------------------------------------------------------------------------ */
/* Explain: the marks that concern one path                                 */
/* ------------------------------------------------------------------------ */

/* What the fsnotify hooks do for an access to path because of one mark of
 * kind on object (as_parent: a directory watching its children). */
static void put_hook_words(struct jbuf *b, enum fsn_mark_type kind, const char *object,
			   bool as_parent, const char *mask) {
	switch (kind) {
	case FSN_MARK_FILESYSTEM:
		jb_printf(b,
			  "a filesystem mark (on the filesystem of %s): every %s anywhere on that "
			  "filesystem is queued for fsnotifyd, which filters it in user space; "
			  "every access there pays for the check",
			  object, mask);
		break;
	case FSN_MARK_MOUNT:
		jb_printf(b,
			  "a mount mark (on the mount of %s): every %s through that mount is "
			  "queued for fsnotifyd; every access through it pays for the check",
			  object, mask);
		break;
	default:
		jb_printf(
		    b, "%s %s: %s", kind == FSN_MARK_INOTIFY ? "an inotify watch" : "an inode mark",
		    as_parent ? "on its directory" : "on it",
		    as_parent ? "accesses to it check its parent's marks too (the "
				"watched-children path of the hooks)"
			      : "accesses to it check its own marks; other files pay nothing");
	}
}

struct path_marks {
	struct jbuf marks, cost;
	bool any, reports;
};

static void path_marks_add(struct path_marks *x, const struct fsn_mark_spec *spec,
			   const char *object, bool placed, bool as_parent, bool reports) {
	char mask[1024], esc[PATH_MAX * 2];

	if (x->any) {
		jb_puts(&x->marks, ",");
		jb_puts(&x->cost, "; ");
	}
	x->any = true;
	x->reports |= reports;
	put_mark(&x->marks, spec, object, placed, NULL);
	plan_mask_words(spec, mask, sizeof(mask));
	put_hook_words(&x->cost, spec->type, text_escaped(esc, sizeof(esc), object), as_parent,
		       mask);
}

/* Whether a mark of this kind on object concerns path: the same
 * filesystem or mount (from the mount table: the path itself is never
 * touched), the object itself, or its direct entry or subtree. */
static bool concerns(const struct engine *e, enum fsn_mark_type kind, const char *object,
		     dev_t obj_dev, uint64_t obj_mnt, bool recursive, const char *path,
		     bool *as_parent) {
	uint64_t mnt = 0, omnt = 0;
	dev_t dev = 0, odev = 0;

	*as_parent = false;
	if (kind == FSN_MARK_FILESYSTEM || kind == FSN_MARK_MOUNT) {
		if (!mountwatch_lookup(e->mounts, path, &mnt, &dev))
			return false;
		if ((!obj_dev || !obj_mnt) && !mountwatch_lookup(e->mounts, object, &omnt, &odev))
			return false;
		if (kind == FSN_MARK_FILESYSTEM)
			return dev == (obj_dev ? obj_dev : odev);
		return mnt == (obj_mnt ? obj_mnt : omnt);
	}
	if (strcmp(path, object) == 0)
		return true;
	*as_parent = path_in(path, object, false, false);
	return path_in(path, object, recursive, false);
}

void engine_path_marks_json(struct engine *e, const char *path, struct jbuf *b) {
	bool first = true;

	jb_puts(b, "{\"path\":");
	jb_str(b, path);
	jb_puts(b, ",\"rules\":[");
	for (size_t i = 0; i < e->st.n_rules; i++) {
		const struct erule *r = &e->st.rules[i];
		struct path_marks x = { 0 };
		bool parent;

		if (r->conf->perm) {
			for (size_t k = 0; e->st.plan && k < e->st.plan->n_marks; k++) {
				const struct plan_mark *pm = &e->st.plan->marks[k];
				dev_t dev =
				    pm->fs < e->st.plan->n_fs ? e->st.plan->fs[pm->fs].dev : 0;

				if (pm->rule == r->conf &&
				    concerns(e, pm->spec.type, pm->path, dev, 0, r->conf->recursive,
					     path, &parent))
					path_marks_add(&x, &pm->spec, pm->path, true, parent,
						       !pathset_has(&r->excl, path));
			}
		} else {
			for (size_t k = 0; k < e->st.n_marks; k++) {
				const struct emark *m = e->st.marks[k];
				const char *obj = m->canon ? m->canon : m->path;
				bool reports;

				if (m->rule != r ||
				    !concerns(e, m->spec.type, obj, m->dev, m->mnt_id,
					      m->scope == SCOPE_SUBTREE && m->subtree_recursive,
					      path, &parent))
					continue;
				reports = !pathset_has(&r->excl, path) &&
					  (!m->subtree ||
					   path_in(path, m->subtree, m->subtree_recursive, true));
				path_marks_add(&x, &m->spec, obj, m->mark && !m->gone, parent,
					       reports);
			}
		}
		if (x.any && !x.marks.oom && !x.cost.oom) {
			jb_puts(b, first ? "{" : ",{");
			first = false;
			jb_key(b, "rule", true);
			jb_str(b, r->conf->name);
			jb_key(b, "reports", false);
			jb_bool(b, x.reports);
			jb_key(b, "marks", false);
			jb_puts(b, "[");
			jb_puts(b, x.marks.s);
			jb_puts(b, "]");
			jb_key(b, "cost", false);
			jb_str(b, x.cost.s);
			jb_puts(b, "}");
		}
		jb_free(&x.marks);
		jb_free(&x.cost);
	}
	jb_puts(b, "]}");
}
