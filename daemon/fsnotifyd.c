/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsnotifyd.c — the daemon's entry point. For now a stub: it reads the
 * configuration, reports for each rule's paths which fanotify/inotify
 * mechanisms this kernel and filesystem offer (libfsn's feature probe),
 * and exits. Rules, outputs, the event loop and systemd integration come
 * with the daemon issue; README.md says so.
 */
#include <errno.h>
#include <getopt.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "fsn.h"

#define DEFAULT_CONFIG FSN_SYSCONFDIR "/fsnotifyd/fsnotifyd.conf"

static void help(void) {
	printf("Usage: fsnotifyd [OPTIONS]\n\n"
	       "Filesystem watching daemon (fanotify and inotify).\n\n"
	       "  -c, --config FILE   configuration file (default %s)\n"
	       "  -h, --help          show this help\n"
	       "      --version       show the version\n\n"
	       "Status: stub. It reads the configuration and reports, for every path of\n"
	       "every rule, which kernel mechanisms are available there; it does not\n"
	       "watch anything yet.\n",
	       DEFAULT_CONFIG);
}

/* Probe one path and print the result, indented. */
static int report_path(const char *rule, const char *path) {
	struct fsn_probe p;
	char buf[4096];
	int r;

	r = fsn_probe_path(path, &p);
	if (r < 0) {
		printf("rule '%s': path %s: cannot probe: %s\n", rule, path, strerror(-r));
		return r;
	}
	fsn_probe_describe(&p, buf, sizeof(buf));
	printf("rule '%s': path %s:\n", rule, path);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		printf("    %s\n", line);
	return 0;
}

static int run(int argc, char **argv) {
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_path = DEFAULT_CONFIG;
	config_setting_t *rules;
	config_t cfg;
	int c, r = 0;

	while ((c = getopt_long(argc, argv, "c:h", options, NULL)) >= 0) {
		switch (c) {
		case 'c': config_path = optarg; break;
		case 'h': help(); return 0;
		case 'V':
			printf("fsnotifyd %s (libfsn %s)\n", FSN_VERSION, fsn_version());
			return 0;
		default: return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fsnotifyd: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}

	config_init(&cfg);
	if (!config_read_file(&cfg, config_path)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			fprintf(stderr, "fsnotifyd: %s: cannot read the file\n", config_path);
		else
			fprintf(stderr, "fsnotifyd: %s:%d: %s\n",
				config_error_file(&cfg) ? config_error_file(&cfg) : config_path,
				config_error_line(&cfg), config_error_text(&cfg));
		config_destroy(&cfg);
		return -EINVAL;
	}

	printf(
	    "fsnotifyd %s: stub — reading %s and probing the kernel; no events are watched yet.\n",
	    FSN_VERSION, config_path);
	rules = config_lookup(&cfg, "rules");
	for (int i = 0; rules && i < config_setting_length(rules); i++) {
		config_setting_t *rule = config_setting_get_elem(rules, i);
		config_setting_t *paths = config_setting_lookup(rule, "paths");
		const char *name = NULL;
		int create = 0;

		if (!config_setting_lookup_string(rule, "name", &name))
			name = "(unnamed)";
		config_setting_lookup_bool(rule, "create", &create);
		for (int j = 0; paths && j < config_setting_length(paths); j++) {
			const char *path = config_setting_get_string_elem(paths, j);

			if (path && create && mkdir(path, 0755) < 0 && errno != EEXIST)
				fprintf(stderr, "fsnotifyd: rule '%s': cannot create %s: %s\n",
					name, path, strerror(errno));
			if (path && report_path(name, path) < 0)
				r = -ENOENT;
		}
	}
	config_destroy(&cfg);
	return r;
}

int main(int argc, char **argv) {
	int r = run(argc, argv);

	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
