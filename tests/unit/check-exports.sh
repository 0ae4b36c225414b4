#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every symbol the shared library defines and exports starts with fsn_.
# Usage: check-exports.sh LIBFSN.so
set -eu
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')
count=$(printf '%s\n' "$syms" | grep -c . || true)
bad=$(printf '%s\n' "$syms" | grep -v '^fsn_' | grep . || true)
if [ "$count" -lt 10 ]; then
	echo "only $count exported symbols in $lib: the version script or visibility is broken"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
if [ -n "$bad" ]; then
	echo "symbols exported without the fsn_ prefix:"
	printf '  %s\n' $bad
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
echo "$count exported symbols, all fsn_*"
echo "1 passed, 0 failed, 0 skipped"
