/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * origin.h — where the daemon's records come from (the host's name, the
 * machine id, the boot id: struct record_origin) and the ids of output
 * streams, so that a collector can tell hosts, boots and streams apart and
 * count the records it lacks (a stream's seq goes 1, 2, 3, ...).
 */
#pragma once

#include "fsn-record.h"

/* The origin of this daemon's records: read at the first call, the host's
 * name again at each origin_refresh(). Main thread only. */
const struct record_origin *origin_get(void);

/* Read the host's name again (a config reload: hostnamectl may have
 * changed it). The machine and boot ids cannot change while we run. */
void origin_refresh(void);

/* A new stream id: 128 random bits as 32 lower case hex digits. */
void origin_new_stream(char id[33]);
