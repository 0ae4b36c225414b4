/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h — what a fuzz target gives replay.c (and libFuzzer): one input,
 * checked; < 0 when a check failed.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

int fuzz_one(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
