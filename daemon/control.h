/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h — the control socket (control.c): io.fsnotifyd on a varlink
 * server (varlink.c); doc/io.fsnotifyd.varlink says what each method does.
 * fsnotifyd.c makes it once the first config runs, applies every config
 * that takes over, and tells it how a reload it asked for went.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct config;
struct engine;
struct ev_loop;
struct control;

struct control_hooks {
	/* Reload the config, as SIGHUP: 0 (control_reload_done() follows),
	 * -EBUSY (a load runs). */
	int (*reload)(void *userdata);
	void *userdata;
};

/* Open the socket c names (none when control.socket is ""). 0, or -errno
 * (logged, with why). */
int control_new(struct ev_loop *loop, struct engine *e, const char *config_path,
		const struct config *c, const struct control_hooks *hooks, struct control **ret);
struct control *control_free(struct control *ctl);
/* A new config runs: its limits from now on; another socket path or group
 * opens the socket anew (its clients are disconnected). */
void control_apply(struct control *ctl, const struct config *c);
/* A reload is over (r = 0, or -errno and why): Reload callers get their
 * answer. */
void control_reload_done(struct control *ctl, int r, const char *why);
/* Watch subscribers now. */
unsigned control_subscribers(const struct control *ctl);
