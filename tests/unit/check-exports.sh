#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every symbol the shared library defines and exports starts with fsn_,
# (with a man page given) libfsn(3) documents each with its signature, and
# (with a symbols file given) the Debian package's symbols file lists each
# (dpkg-gensymbols only warns of one it lacks).
# Usage: check-exports.sh LIBFSN.so [libfsn.3 [libfsn0.symbols]]
set -eu
lib=$1
man=${2:-}
symfile=${3:-}
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
if [ -n "$man" ]; then
	undoc=""
	for s in $(printf "%s\n" $syms | sed "s/@.*//"); do
		# a bold signature: \fB<type> <name>(
		grep -q "^\\\\fB.*[ *]$s(" "$man" || undoc="$undoc $s"
	done
	if [ -n "$undoc" ]; then
		echo "exported but without a signature in $man:"
		printf '  %s\n' $undoc
		echo "1 passed, 1 failed, 0 skipped"
		exit 1
	fi
	unlisted=""
	for s in $(printf "%s\n" $syms | sed "s/@.*//"); do
		[ -z "$symfile" ] || grep -q "^ $s@" "$symfile" || unlisted="$unlisted $s"
	done
	if [ -n "$unlisted" ]; then
		echo "exported but not in $symfile:"
		printf '  %s\n' $unlisted
		echo "2 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "$count exported symbols, all fsn_*, each with its signature in libfsn(3)${symfile:+ and in the symbols file}"
	echo "3 passed, 0 failed, 0 skipped"
	exit 0
fi
echo "$count exported symbols, all fsn_*"
echo "1 passed, 0 failed, 0 skipped"
