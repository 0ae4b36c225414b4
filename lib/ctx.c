/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ctx.c — placeholder, being written. */
#include "fsn-private.h"
