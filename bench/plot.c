/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.c — PNG plots of result files with gnuplot: `fsn-bench plot
 * RESULTS.json OUT.png`, `--plot FILE.png` of hooks and perm, and `compare
 * --plot` of two hooks or two perm files.
 *
 * A hooks file gives one point per (workload, scenario): the paired ratio to
 * "none" (ops per CPU-second, geometric mean over rounds) with its 95 %
 * interval as an error bar. A perm file gives one point per latency ratio
 * (floor / none, fsnotifyd / none, fsnotifyd / floor, ..., at p50 and p99)
 * and the line of its p99 target against the floor. A point is filled when its interval excludes 1
 * and coloured by verdict; with two files, coloured by file. The ratio axis is logarithmic, so 0.5
 * and 2 are as far from the line at 1.0.
 *
 * gnuplot runs as a child process (no shell) on a script and a data file in
 * a temporary directory; every label goes into the script as a gnuplot
 * single-quoted string, in which nothing is expanded. Without gnuplot on
 * PATH nothing is plotted: "gnuplot not installed: no plot" on stderr.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsn-bench.h"
#include "fsn-util.h"
#include "json.h"
#include "plot.h"
#include "result.h"
#include "util.h"

#define PLOT_MAX_SERIES 2
#define PLOT_WIDTH 1100

enum verdict { V_NOISE = 0, V_WORSE, V_BETTER, V_NO_CI, _V_MAX };

struct plot_row {
	char group[64];
	char label[64];
	double y; /* line on the plot, from the top; a group heading takes one */
	double v[PLOT_MAX_SERIES], lo[PLOT_MAX_SERIES], hi[PLOT_MAX_SERIES]; /* NAN: no point */
};

struct plot {
	bool lower_is_better; /* perm: latency ratios */
	double target;        /* a dashed line there, NAN: none */
	const char *target_label;
	const char *title;
	char detail[512]; /* second title line: parameters and machine */
	const char *xlabel;
	unsigned nseries;
	char series[PLOT_MAX_SERIES][PATH_MAX + 64];
	struct plot_row *rows;
	size_t n;
};

/* A temporary directory for the script, the data, gnuplot's log and (for a
 * run without --json) the results. */
struct plot_dir {
	char path[256];
};

/* A file in it: the directory and one of plot_files[] */
#define PLOT_FILE_MAX (sizeof(((struct plot_dir *)0)->path) + 16)

static const char *const plot_files[] = { "results.json", "plot.dat", "plot.gp", "gnuplot.log" };

static int plot_dir_make(struct plot_dir *d) {
	const char *tmp = getenv("TMPDIR");

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(d->path, sizeof(d->path), "%s/fsn-bench-plot.XXXXXX", tmp) >=
	    sizeof(d->path))
		return -ENAMETOOLONG;
	if (!mkdtemp(d->path)) {
		d->path[0] = '\0';
		return negative_errno();
	}
	return 0;
}

static void plot_dir_file(const struct plot_dir *d, const char *name, char buf[PLOT_FILE_MAX]) {
	snprintf(buf, PLOT_FILE_MAX, "%s/%.15s", d->path, name);
}

static void plot_dir_remove(struct plot_dir *d) {
	char p[PLOT_FILE_MAX];

	if (!d->path[0])
		return;
	for (size_t i = 0; i < ELEMENTSOF(plot_files); i++) {
		plot_dir_file(d, plot_files[i], p);
		unlink(p);
	}
	rmdir(d->path);
	d->path[0] = '\0';
}

int bench_plot_check_path(const char *png) {
	_cleanup_free_ char *dir = strdup(png);
	char *slash;

	if (!dir)
		return -ENOMEM;
	for (const unsigned char *p = (const unsigned char *)png; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(stderr, "fsn-bench: plot file: a control character in the name\n");
			return -EINVAL;
		}
	slash = strrchr(dir, '/');
	if (!png[0] || (slash && !slash[1])) {
		fprintf(stderr, "fsn-bench: plot file '%s': not a file name\n", png);
		return -EINVAL;
	}
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	if (access(slash ? dir : ".", W_OK) < 0) {
		fprintf(stderr, "fsn-bench: plot file %s: %s: %s\n", png, slash ? dir : ".",
			strerror(errno));
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Rows from result documents                                               */
/* ------------------------------------------------------------------------ */

/* Series 0 adds rows; a later series only fills the rows series 0 has, so
 * a comparison shows what both files measured. */
static int plot_add(struct plot *p, unsigned series, const char *group, const char *label, double v,
		    double lo, double hi) {
	struct plot_row *row = NULL;

	for (size_t i = 0; i < p->n && !row; i++)
		if (strcmp(p->rows[i].group, group) == 0 && strcmp(p->rows[i].label, label) == 0)
			row = &p->rows[i];
	if (!row) {
		struct plot_row *rows;

		if (series > 0)
			return 0;
		rows = realloc(p->rows, (p->n + 1) * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		p->rows = rows;
		row = &p->rows[p->n++];
		snprintf(row->group, sizeof(row->group), "%s", group);
		snprintf(row->label, sizeof(row->label), "%s", label);
		for (unsigned s = 0; s < PLOT_MAX_SERIES; s++)
			row->v[s] = row->lo[s] = row->hi[s] = NAN;
	}
	row->v[series] = v;
	row->lo[series] = lo;
	row->hi[series] = hi;
	return 0;
}

/* hooks: workload after workload (in the order the file first names them),
 * every scenario but the baseline. */
static int hooks_rows(struct plot *p, unsigned series, const struct json *doc) {
	const struct json *res = json_get(doc, "results");
	int r;

	for (size_t i = 0; i < res->n; i++) {
		const char *w = json_get_string(res->values[i], "workload");
		bool seen = false;

		for (size_t j = 0; j < i && w && !seen; j++) {
			const char *x = json_get_string(res->values[j], "workload");

			seen = x && strcmp(x, w) == 0;
		}
		if (!w || seen)
			continue;
		for (size_t k = i; k < res->n; k++) {
			const struct json *x = res->values[k], *sm = json_get(x, "summary");
			const char *s = json_get_string(x, "scenario");
			const char *xw = json_get_string(x, "workload");

			if (!s || !xw || strcmp(xw, w) != 0 || strcmp(s, "none") == 0 ||
			    !bench_result_ran(x))
				continue;
			r = plot_add(p, series, w, s, json_get_number(sm, "ratio", NAN),
				     json_get_number(sm, "ci_low", NAN),
				     json_get_number(sm, "ci_high", NAN));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* perm: the latency ratios between scenarios, p50 and p99 of each. */
static int perm_rows(struct plot *p, unsigned series, const struct json *doc) {
	static const char *const qs[] = { "p50", "p99" };
	const struct json *ratios = json_get(doc, "ratios");
	int r;

	for (size_t i = 0; ratios && ratios->type == JSON_ARRAY && i < ratios->n; i++) {
		const struct json *x = ratios->values[i];
		const char *a = json_get_string(x, "a"), *b = json_get_string(x, "b");
		char group[64];

		if (!a || !b)
			continue;
		snprintf(group, sizeof(group), "%s / %s", a, b);
		for (size_t q = 0; q < ELEMENTSOF(qs); q++) {
			const struct json *rt = json_get(x, qs[q]);

			r = plot_add(p, series, group, qs[q], json_get_number(rt, "ratio", NAN),
				     json_get_number(rt, "ci_low", NAN),
				     json_get_number(rt, "ci_high", NAN));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int plot_fill(struct plot *p, enum bench_kind kind, const struct json *const *docs,
		     const char *const *names, unsigned ndocs) {
	const struct json *par = json_get(docs[0], "parameters");
	const struct json *m = json_get(docs[0], "machine");
	const char *cpu = json_get_string(m, "cpu_model");
	const struct json *quick = json_get(par, "quick");
	size_t kept = 0;
	int r;

	p->target = NAN;
	p->nseries = ndocs;
	if (kind == BENCH_KIND_HOOKS) {
		p->title = "fsn-bench hooks: ops per CPU-second relative to 'none' in the same "
			   "round";
		p->xlabel = "ratio to 'none' (below 1: costlier), geometric mean over rounds "
			    "with 95% t-interval";
	} else {
		const struct json *t = json_get(json_get(docs[0], "targets"), "p99_vs_floor");
		static char label[64];

		p->lower_is_better = true;
		/* (the file's own: with a decision or a storm it is another) */
		p->target = json_get_number(t, "limit", 1.3);
		snprintf(label, sizeof(label), "target: fsnotifyd / floor p99 <= %.1f", p->target);
		p->target_label = label;
		p->title = "fsn-bench perm: latency ratios between scenarios";
		p->xlabel = "latency ratio (above 1: slower), geometric mean of per-round ratios "
			    "with 95% t-interval";
	}
	if (ndocs > 1)
		snprintf(p->detail, sizeof(p->detail),
			 "filled: the 95%% interval excludes 1; rows measured in both files");
	else
		snprintf(p->detail, sizeof(p->detail),
			 "%.0f rounds x %.0f ops%s; kernel %s; %s, %.0f CPUs; filled: the 95%% "
			 "interval excludes 1",
			 json_get_number(par, "rounds", NAN), json_get_number(par, "ops", NAN),
			 quick && quick->type == JSON_BOOL && quick->boolean ? " (--quick)" : "",
			 bench_result_release(docs[0]), cpu ? cpu : "?",
			 json_get_number(m, "nproc", NAN));
	for (unsigned s = 0; s < ndocs; s++) {
		snprintf(p->series[s], sizeof(p->series[s]), "%s (%s)", names[s],
			 bench_result_release(docs[s]));
		r = kind == BENCH_KIND_HOOKS ? hooks_rows(p, s, docs[s]) : perm_rows(p, s, docs[s]);
		if (r < 0)
			return r;
	}
	/* keep the rows with a ratio in every file: a comparison shows what
	 * both measured */
	for (size_t i = 0; i < p->n; i++) {
		bool all = true;

		for (unsigned s = 0; s < ndocs; s++)
			all &= isfinite(p->rows[i].v[s]) && p->rows[i].v[s] > 0;
		if (all)
			p->rows[kept++] = p->rows[i];
	}
	p->n = kept;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The gnuplot script                                                        */
/* ------------------------------------------------------------------------ */

/* s as a gnuplot single-quoted string: nothing in it is expanded (no
 * backquote or macro substitution); ' is doubled, control bytes become '?'. */
static void gp_string(FILE *f, const char *s) {
	fputc('\'', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '\'')
			fputs("''", f);
		else
			fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, f);
	}
	fputc('\'', f);
}

static enum verdict verdict_of(const struct plot *p, double v, double lo, double hi) {
	if (!isfinite(lo) || !isfinite(hi))
		return V_NO_CI;
	if (lo <= 1.0 && hi >= 1.0)
		return V_NOISE;
	return (v < 1.0) == p->lower_is_better ? V_BETTER : V_WORSE;
}

static bool new_group(const struct plot *p, size_t i) {
	return i == 0 || strcmp(p->rows[i].group, p->rows[i - 1].group) != 0;
}

/* Lines from the top: each group's heading, then its rows. */
static void layout(struct plot *p) {
	double y = -1;

	for (size_t i = 0; i < p->n; i++) {
		y += new_group(p, i) ? 2 : 1;
		p->rows[i].y = y;
	}
}

static void range_of(const struct plot *p, double *ret_min, double *ret_max) {
	double lo = 1.0, hi = 1.0;

	if (isfinite(p->target))
		hi = fmax(hi, p->target);
	for (size_t i = 0; i < p->n; i++)
		for (unsigned s = 0; s < p->nseries; s++) {
			const double x[] = { p->rows[i].v[s], p->rows[i].lo[s], p->rows[i].hi[s] };

			for (size_t k = 0; k < ELEMENTSOF(x); k++)
				if (isfinite(x[k]) && x[k] > 0) {
					lo = fmin(lo, x[k]);
					hi = fmax(hi, x[k]);
				}
		}
	/* room for the value printed right of each point */
	*ret_min = lo / 1.08 / pow(hi / lo, 0.03);
	*ret_max = hi * pow(hi / lo, 0.12) * 1.05;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Tics on the log axis: 1, and candidates at least 1/10 of the range apart
 * going outwards from 1. */
static void write_xtics(FILE *f, double xmin, double xmax) {
	static const double mant[] = { 1, 1.5, 2, 3, 5, 7 };
	static const double near1[] = { 0.8, 0.9, 0.95, 1.05, 1.1, 1.25 };
	double cand[64], gap = log(xmax / xmin) / 10, last;
	size_t n = 0;

	for (int e = -3; e <= 3; e++)
		for (size_t i = 0; i < ELEMENTSOF(mant); i++)
			cand[n++] = mant[i] * pow(10, e);
	for (size_t i = 0; i < ELEMENTSOF(near1); i++)
		cand[n++] = near1[i];
	qsort(cand, n, sizeof(*cand), cmp_double);
	fputs("set xtics nomirror (1", f);
	last = 1;
	for (size_t i = 0; i < n; i++)
		if (cand[i] > 1 && cand[i] <= xmax && log(cand[i] / last) >= gap) {
			fprintf(f, ", %g", cand[i]);
			last = cand[i];
		}
	last = 1;
	for (size_t i = n; i-- > 0;)
		if (cand[i] < 1 && cand[i] >= xmin && log(last / cand[i]) >= gap) {
			fprintf(f, ", %g", cand[i]);
			last = cand[i];
		}
	fputs(")\n", f);
}

static int write_data(const struct plot *p, const char *path, bool present[][_V_MAX]) {
	double off = p->nseries > 1 ? 0.2 : 0;
	FILE *f = fopen(path, "we");

	if (!f)
		return negative_errno();
	/* one block per series: y v lo hi verdict */
	for (unsigned s = 0; s < p->nseries; s++) {
		fprintf(f, "%s# series %u: y ratio low high verdict\n", s ? "\n\n" : "", s);
		for (size_t i = 0; i < p->n; i++) {
			const struct plot_row *row = &p->rows[i];
			double v = row->v[s], lo = row->lo[s], hi = row->hi[s];
			enum verdict vd;

			if (!isfinite(v) || v <= 0)
				continue;
			vd = verdict_of(p, v, lo, hi);
			if (vd == V_NO_CI)
				lo = hi = v;
			present[s][vd] = true;
			fprintf(f, "%g %g %g %g %d\n", row->y + (s ? off : -off), v, lo, hi,
				(int)vd);
		}
	}
	return bench_fclose(f);
}

static void write_headings(FILE *f, const struct plot *p) {
	for (size_t i = 0; i < p->n; i++) {
		double y = p->rows[i].y;

		if (new_group(p, i)) {
			if (i > 0)
				fprintf(f,
					"set arrow from graph 0, first %g to graph 1, first %g "
					"nohead lc '#aaaaaa' dt 3\n",
					y - 1.5, y - 1.5);
			fputs("set label ", f);
			gp_string(f, p->rows[i].group);
			fprintf(f, " at graph 0.005, first %g left font ',11:Bold' boxed front\n",
				y - 1);
		}
		fputs("set ytics add (", f);
		gp_string(f, p->rows[i].label);
		fprintf(f, " %g)\n", y);
	}
}

static void write_plot_cmd(FILE *f, const struct plot *p, const char *data,
			   bool present[][_V_MAX]) {
	static const char *const colours[_V_MAX] = {
		[V_NOISE] = "#5d6d7e",
		[V_WORSE] = "#c0392b",
		[V_BETTER] = "#1e8449",
		[V_NO_CI] = "#2e86c1",
	};
	static const char *const series_colours[PLOT_MAX_SERIES] = { "#2e86c1", "#e67e22" };
	const char *titles[_V_MAX] = {
		[V_NOISE] = "within noise",
		[V_WORSE] = p->lower_is_better ? "significant: slower" : "significant: costlier",
		[V_BETTER] = p->lower_is_better ? "significant: faster" : "significant: cheaper",
		[V_NO_CI] = "no interval (< 2 rounds)",
	};
	const char *sep = "plot ";

	/* one element per series and verdict present; with two series the
	 * colour is the file's and only its first element has a key entry */
	for (unsigned s = 0; s < p->nseries; s++) {
		bool titled = false;

		for (unsigned vd = 0; vd < _V_MAX; vd++) {
			bool filled = vd == V_WORSE || vd == V_BETTER;

			if (!present[s][vd])
				continue;
			fputs(sep, f);
			sep = ", \\\n     ";
			gp_string(f, data);
			fprintf(f,
				" index %u using ($5 == %u ? $2 : 1/0):1:3:4 with xerrorbars "
				"pt %d ps 1.3 lw 1.5 lc rgb '%s' ",
				s, vd, filled ? 7 : 6,
				p->nseries > 1 ? series_colours[s] : colours[vd]);
			if (p->nseries > 1 && titled) {
				fputs("notitle", f);
				continue;
			}
			fputs("title ", f);
			gp_string(f, p->nseries > 1 ? p->series[s] : titles[vd]);
			titled = true;
		}
	}
	for (unsigned s = 0; s < p->nseries; s++) {
		bool any = false;

		for (unsigned vd = 0; vd < _V_MAX; vd++)
			any |= present[s][vd];
		if (!any)
			continue;
		fputs(sep, f);
		gp_string(f, data);
		fprintf(f,
			" index %u using 4:1:(sprintf(\"%%.3f\", $2)) with labels left "
			"offset 0.7,0 font ',8' tc rgb '%s' notitle",
			s, p->nseries > 1 ? series_colours[s] : "#333333");
	}
	fputc('\n', f);
}

static unsigned key_entries(const struct plot *p, bool present[][_V_MAX]) {
	unsigned n = 0;

	for (unsigned vd = 0; vd < _V_MAX; vd++)
		for (unsigned s = 0; s < p->nseries; s++)
			if (present[s][vd]) {
				n++;
				break;
			}
	return p->nseries > 1 ? p->nseries : n ? n : 1;
}

static int write_script(const struct plot *p, const char *script, const char *data, const char *png,
			bool present[][_V_MAX]) {
	double xmin, xmax, ylast = p->rows[p->n - 1].y;
	int row_px = p->nseries > 1 ? 30 : 20;
	int height = 190 + (int)(ylast + 1) * row_px;
	FILE *f = fopen(script, "we");

	if (!f)
		return negative_errno();
	range_of(p, &xmin, &xmax);
	fprintf(f,
		"# generated by fsn-bench plot\n"
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"\tset terminal pngcairo size %d,%d noenhanced font 'sans,10'\n"
		"} else {\n"
		"\tset terminal png size %d,%d noenhanced\n"
		"}\n"
		"set output ",
		PLOT_WIDTH, height, PLOT_WIDTH, height);
	gp_string(f, png);
	fputs("\nset title ", f);
	gp_string(f, p->title);
	fputs(".\"\\n\".", f);
	gp_string(f, p->detail);
	fputs("\nset xlabel ", f);
	gp_string(f, p->xlabel);
	fprintf(f,
		"\nset logscale x\n"
		"set xrange [%g:%g]\n"
		"set yrange [%g:-1.6]\n"
		"set grid xtics lc '#dddddd'\n"
		"set key outside bottom center horizontal maxcols %u\n"
		"set style textbox opaque noborder\n"
		"set ytics nomirror scale 0 ('' -100)\n"
		"set arrow from 1, graph 0 to 1, graph 1 nohead lw 1.5 lc 'black'\n",
		xmin, xmax, ylast + 0.8, key_entries(p, present));
	write_xtics(f, xmin, xmax);
	if (isfinite(p->target)) {
		fprintf(f,
			"set arrow from %g, graph 0 to %g, graph 1 nohead lw 1.5 dt 2 "
			"lc '#c0392b'\nset label ",
			p->target, p->target);
		gp_string(f, p->target_label);
		fprintf(f, " at %g, graph 1 left offset 0.5,-1 tc '#c0392b'\n", p->target);
	}
	write_headings(f, p);
	write_plot_cmd(f, p, data, present);
	return bench_fclose(f);
}

static int render(struct plot *p, const struct plot_dir *d, const char *png) {
	bool present[PLOT_MAX_SERIES][_V_MAX] = { { false } };
	char data[PLOT_FILE_MAX], script[PLOT_FILE_MAX], logf[PLOT_FILE_MAX];
	char *argv[] = { (char *)"gnuplot", script, NULL };
	struct stat st;
	pid_t pid;
	int r;

	if (p->n == 0) {
		fprintf(stderr, "fsn-bench: no ratios to plot\n");
		return -ENODATA;
	}
	plot_dir_file(d, "plot.dat", data);
	plot_dir_file(d, "plot.gp", script);
	plot_dir_file(d, "gnuplot.log", logf);
	layout(p);
	r = write_data(p, data, present);
	if (r == 0)
		r = write_script(p, script, data, png, present);
	if (r == 0)
		r = bench_spawn(argv, logf, NULL, &pid);
	if (r < 0)
		return r;
	if (bench_wait_pid(pid) < 0 || stat(png, &st) < 0 || st.st_size == 0) {
		fprintf(stderr, "fsn-bench: gnuplot did not write %s:\n", png);
		bench_show_log(logf, 0); /* gnuplot's complaints */
		return -EIO;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

static int plot_in(const struct plot_dir *d, enum bench_kind kind, const struct json *const *docs,
		   const char *const *names, unsigned ndocs, const char *png) {
	struct plot p = { 0 };
	int r;

	if (kind != BENCH_KIND_HOOKS && kind != BENCH_KIND_PERM) {
		fprintf(stderr, "fsn-bench: only hooks and perm results have a plot\n");
		return -EINVAL;
	}
	r = plot_fill(&p, kind, docs, names, ndocs);
	if (r == 0)
		r = render(&p, d, png);
	free(p.rows);
	if (r == 0)
		printf("plot: %s\n", png);
	return r;
}

/* 77 without gnuplot (said on stderr), else 0 and a fresh directory. */
static int plot_begin(struct plot_dir *d) {
	if (!bench_in_path("gnuplot", "/usr/local/bin:/usr/bin:/bin")) {
		fprintf(stderr, "gnuplot not installed: no plot\n");
		return 77;
	}
	return plot_dir_make(d);
}

int bench_plot_docs(enum bench_kind kind, const struct json *a, const char *a_name,
		    const struct json *b, const char *b_name, const char *png) {
	const struct json *docs[] = { a, b };
	const char *names[] = { a_name, b_name };
	struct plot_dir d;
	int r;

	r = plot_begin(&d);
	if (r != 0)
		return r;
	r = plot_in(&d, kind, docs, names, b ? 2 : 1, png);
	plot_dir_remove(&d);
	return r;
}

int bench_plot_run(const char *png, const char *json_path,
		   int (*write_json)(const char *path, const void *userdata),
		   const void *userdata) {
	char results[PLOT_FILE_MAX];
	struct json *doc = NULL;
	enum bench_kind kind;
	struct plot_dir d;
	int r;

	r = plot_begin(&d);
	if (r != 0)
		return r == 77 ? 0 : r; /* the plot is optional */
	if (!json_path) {
		plot_dir_file(&d, "results.json", results);
		r = write_json(results, userdata);
		json_path = results;
	}
	if (r == 0)
		r = bench_result_load(json_path, &doc, &kind);
	if (r == 0)
		r = plot_in(&d, kind, (const struct json *const[]){ doc }, (const char *[]){ "" },
			    1, png);
	json_free(doc);
	plot_dir_remove(&d);
	return r;
}

int bench_plot_main(int argc, char **argv) {
	struct json *doc = NULL;
	enum bench_kind kind;
	int r;

	if (argc != 3) {
		fprintf(stderr, "Usage: fsn-bench plot RESULTS.json OUT.png\n");
		return -EINVAL;
	}
	r = bench_plot_check_path(argv[2]);
	if (r < 0)
		return r;
	r = bench_result_load(argv[1], &doc, &kind);
	if (r < 0)
		return r;
	if (kind == BENCH_KIND_CONSUMERS) {
		fprintf(stderr,
			"fsn-bench: %s: a consumers result; only hooks and perm results "
			"have a plot\n",
			argv[1]);
		json_free(doc);
		return -EINVAL;
	}
	r = bench_plot_docs(kind, doc, argv[1], NULL, NULL, argv[2]);
	json_free(doc);
	return r;
}
