#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-man.sh PAGE...: each man page renders at 80 columns without a groff
# warning (a table wider than the line, an unknown macro, a bad escape), as
# `man --warnings` would show it on a terminal of that width.
rc=0
for page in "$@"; do
	out=$(groff -t -man -Tutf8 -ww -rLL=80n -rLT=80n -z "$page" 2>&1)
	if [ -n "$out" ]; then
		printf '%s: groff warnings at 80 columns:\n%s\n' "$page" "$out"
		rc=1
	fi
done
[ $rc = 0 ] && echo "$# man pages render at 80 columns without warnings"
exit $rc
