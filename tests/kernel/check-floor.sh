#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A regression cannot hide as a skip: with the feature probe made to say
# that this kernel refuses filesystem marks (FSN_SELFTEST_BREAK, as a
# kernel that broke FAN_MARK_FILESYSTEM would), the cases that need them
# fail, naming the floor (floors.c), instead of skipping; and with the
# floor waived (FSN_SELFTEST_NO_FLOOR, a kernel built without it) they skip.
# The legacy halves of cases that need a newer feature for one part only
# run and pass with the newer features refused and their floors waived (a
# kernel before them), and such a part fails its case above the floor.
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

# The legacy halves: on a kernel before FAN_MARK_IGNORE, evictable marks,
# TARGET_FID and FAN_RENAME (the four refused, their floors waived) the
# cases that need them for one half only still run the other, and pass;
# the new-style twins skip.
older="mark_ignore,mark_evictable,report_target_fid,event_rename"
FSN_SELFTEST_BREAK=$older FSN_SELFTEST_NO_FLOOR=$older "$selftest" --fs tmpfs \
	--filter 'ig03_*' --filter 'ig06_evictable_evicted*' --filter 'ig07_*' \
	--filter ov03_mark_dir_bits_on_file --filter ov04_mark_churn_race >"$out" 2>&1
rc=$?
ok=0
for c in ig03_mount_ignore_bind_legacy ig07_open_perm_vs_exec_perm_legacy \
	ig07_mount_ignore_open_exec ig07_parent_mark_open_exec ov03_mark_dir_bits_on_file \
	ov04_mark_churn_race; do
	grep -q "^PASS tmpfs:$c " "$out" || { echo "  $c did not pass"; ok=1; }
done
grep -q '^SKIP tmpfs:ig03_mount_ignore_bind .*FAN_MARK_IGNORE' "$out" || ok=1
[ $rc = 0 ] && [ $ok = 0 ]
verdict $? "before FAN_MARK_IGNORE, evictable marks and TARGET_FID the legacy halves run"
FSN_SELFTEST_BREAK=mark_ignore FSN_SELFTEST_NO_FLOOR=mark_ignore "$selftest" --fs tmpfs \
	--filter 'ig06_evictable_evicted*' >"$out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^PASS tmpfs:ig06_evictable_evicted_legacy ' "$out" &&
	grep -q '^SKIP tmpfs:ig06_evictable_evicted .*FAN_MARK_IGNORE' "$out"
verdict $? "evictable marks with legacy ignore masks run before FAN_MARK_IGNORE"
# ...and a part left out only below its floor: refused above it, it fails
FSN_SELFTEST_BREAK=mark_evictable "$selftest" --fs tmpfs --filter ov04_mark_churn_race \
	>"$out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^FAIL tmpfs:ov04_mark_churn_race .*regression: needs evictable' "$out"
verdict $? "a refused feature of an optional part fails the case above its floor"
echo "$passed passed, $failed failed, 0 skipped"
[ $failed = 0 ]
