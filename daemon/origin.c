/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * origin.c — the host's name, machine id and boot id every JSON line
 * carries (origin.h), and stream ids. The ids are sd-id128's (libsystemd),
 * in the form the journal gives them (_MACHINE_ID, _BOOT_ID), so a
 * collector can join the two.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-id128.h>

#include "escape.h"
#include "log.h"
#include "origin.h"

static struct record_origin origin;
static bool origin_read;

static void id_text(int (*get)(sd_id128_t *), const char *what, char out[33]) {
	sd_id128_t id;
	int r = get(&id);

	out[0] = '\0';
	if (r < 0) {
		log_warning("cannot read the %s (%s): records say null", what, strerror(-r));
		return;
	}
	sd_id128_to_string(id, out);
}

void origin_refresh(void) {
	char host[sizeof(origin.host)];

	if (!origin_read) {
		id_text(sd_id128_get_machine, "machine id", origin.machine_id);
		id_text(sd_id128_get_boot, "boot id", origin.boot_id);
		origin_read = true;
	}
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	memcpy(origin.host, host, sizeof(host));
	record_origin_seal(&origin);
}

const struct record_origin *origin_get(void) {
	if (!origin_read)
		origin_refresh();
	return &origin;
}

void origin_new_stream(char id[33]) {
	sd_id128_t r;

	if (sd_id128_randomize(&r) < 0) {
		/* (no getrandom(): cannot happen on the kernels we run on) the
		 * pid and the time keep streams of one host apart */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(id, 33, "%08x%08x%016llx", (unsigned)getpid(), (unsigned)ts.tv_nsec,
			 (unsigned long long)ts.tv_sec);
		return;
	}
	sd_id128_to_string(r, id);
}
