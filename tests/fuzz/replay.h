/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h — what a fuzz target gives replay.c (and libFuzzer): one input,
 * checked; < 0 when a check failed.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* In fuzz_one(): a failed check says which and makes it return -1. */
#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

int fuzz_one(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
