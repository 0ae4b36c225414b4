#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# doc/semantics.md stays true to the suite: every case fsn-selftest lists is
# named there, and every semantics ID a case covers has its own section.
# Usage: check-doc.sh FSN_SELFTEST doc/semantics.md
set -u
selftest=$1
doc=$2
list=$("$selftest" --list) || { echo "fsn-selftest --list failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
# case lines; the indented lines under a case are the commits it guards
cases=$(printf '%s\n' "$list" | grep -v '^[[:space:]]')
ok=0
bad=0
for c in $(printf '%s\n' "$cases" | awk '{ print $1 }'); do
	if grep -q "\`$c\`" "$doc"; then ok=$((ok + 1)); else echo "case $c is not described in $doc"; bad=$((bad + 1)); fi
done
for id in $(printf '%s\n' "$cases" | awk '{ print $2 }' | tr ',' '\n' | sort -u); do
	if grep -q "^### $id " "$doc"; then ok=$((ok + 1)); else echo "ID $id has no '### $id' section in $doc"; bad=$((bad + 1)); fi
done
echo "$ok passed, $bad failed, 0 skipped"
[ "$bad" = 0 ]
