#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A regression cannot hide as a skip: with the feature probe made to say
# that this kernel refuses filesystem marks (FSN_SELFTEST_BREAK, as a
# kernel that broke FAN_MARK_FILESYSTEM would), the cases that need them
# fail, naming the floor (floors.c), instead of skipping; and with the
# floor waived (FSN_SELFTEST_NO_FLOOR, a kernel built without it) they skip.
# doc/kernel-testing.md's table of floors is fsn-selftest --floors.
# Usage: check-floor.sh FSN_SELFTEST KERNEL_TESTING_MD
set -u
selftest=$1
doc=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0 failed=0

# verdict STATUS WHAT: a PASS line, or a FAIL line with fsn-selftest's
# last lines
verdict() {
	if [ "$1" = 0 ]; then
		echo "PASS $2"
		passed=$((passed + 1))
	else
		echo "FAIL $2 (exit $rc):"
		sed 's/^/  /' "$out" | tail -20
		failed=$((failed + 1))
	fi
}
missing=$("$selftest" --floors | while read -r feat fs rel _; do
	[ "$fs" = "*" ] && fs=any
	grep -qF "| \`$feat\` | $fs | $rel |" "$doc" || echo "$feat $fs $rel"
done)
rows=$(grep -c '^| `[a-z_]*` | [a-z0-9,]* | [0-9.]* |' "$doc")
if [ -z "$missing" ] && [ "$rows" = "$("$selftest" --floors | wc -l)" ]; then
	echo "PASS $doc's table of floors is fsn-selftest --floors"
	passed=$((passed + 1))
else
	echo "FAIL $doc's table of floors differs from fsn-selftest --floors ($rows rows); missing:"
	echo "$missing" | sed 's/^/  /'
	failed=$((failed + 1))
fi
FSN_SELFTEST_BREAK=mark_filesystem "$selftest" --fs tmpfs --filter 'fp05_*' >"$out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: fsn-selftest skipped everything (not root?)"
	echo "$passed passed, $failed failed, 1 skipped"
	[ $failed = 0 ] && exit 77
	exit 1
fi
[ $rc = 1 ] && grep -q 'regression: needs filesystem marks.*Linux 4.20 and later.*d54f4fba889b' "$out" &&
	! grep -q '^SKIP' "$out"
verdict $? "a refused FAN_MARK_FILESYSTEM fails the cases that need it"
FSN_SELFTEST_BREAK=mark_filesystem FSN_SELFTEST_NO_FLOOR=mark_filesystem \
	"$selftest" --fs tmpfs --filter 'fp05_*' >"$out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^SKIP.*needs filesystem marks' "$out" && ! grep -q '^FAIL' "$out"
verdict $? "with the floor waived, they skip"
echo "$passed passed, $failed failed, 0 skipped"
[ $failed = 0 ]
