#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The 'bench' suite: fsn-bench hooks --quick runs, writes JSON that parses,
# and compare reads it back. Pass/fail is about the tool working, never speed.
# Usage: check-bench.sh FSN_BENCH
set -u
bench=$1
if [ "$(id -u)" != 0 ]; then
	echo "skip: fsn-bench hooks needs root (mount namespace, fanotify)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {
	name=$1
	shift
	if "$@" >"$tmp/$name.out" 2>&1; then
		echo "ok: $name"
		pass=$((pass + 1))
	else
		echo "FAIL: $name"
		sed 's/^/  | /' "$tmp/$name.out"
		fail=$((fail + 1))
	fi
}
check hooks-quick "$bench" hooks --quick --json "$tmp/r.json"
check table-has-control grep -q '^none-ctl ' "$tmp/hooks-quick.out"
if command -v python3 >/dev/null 2>&1; then
	check json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["machine"]["nproc"] >= 1
assert d["parameters"]["rounds"] >= 2
for r in d["results"]:
    assert len(r["rounds"]) == d["parameters"]["rounds"]
    assert r["summary"]["median_ops_per_s"] > 0
' "$tmp/r.json"
fi
check compare "$bench" compare "$tmp/r.json" "$tmp/r.json"
check compare-rejects-garbage sh -c "echo '{\"version\":' >'$tmp/bad.json'; ! '$bench' compare '$tmp/bad.json' '$tmp/r.json'"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
