#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The 'bench' suite: fsn-bench hooks --quick runs, writes JSON that parses,
# and compare reads it back; fsn-bench consumers --quick runs against the
# daemon and writes JSON naming every consumer; fsn-bench perm --quick
# measures all three scenarios (none, floor, fsnotifyd: a skipped fsnotifyd
# fails the check) and compare reads that back too. Pass/fail is about the
# tool working, never speed.
# Usage: check-bench.sh FSN_BENCH [FSNOTIFYD]
set -u
bench=$1
fsnotifyd=${2:-}
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
if [ -n "$fsnotifyd" ]; then
	check consumers-quick "$bench" consumers --quick --fsnotifyd "$fsnotifyd" \
		--json "$tmp/c.json"
else
	check consumers-quick "$bench" consumers --quick --json "$tmp/c.json"
fi
check consumers-table grep -q '^fsnotifyd ' "$tmp/consumers-quick.out"
if command -v python3 >/dev/null 2>&1; then
	check consumers-json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["tool"] == "fsn-bench consumers"
c = {x["consumer"]: x for x in d["consumers"]}
assert set(c) == {"none", "floor", "fsnotifyd", "inotifywait", "fatrace"}, set(c)
for name in ("none", "floor", "fsnotifyd"):
    assert c[name]["ran"], name
    assert len(c[name]["rounds"]) == d["parameters"]["rounds"], name
for name in ("floor", "fsnotifyd"):
    s = c[name]["summary"]
    assert s["generated"] > 0 and s["delivered"] > 0, name
    assert s["delivered"] + s["lost"] >= s["generated"], name
for name in ("inotifywait", "fatrace"):
    assert c[name]["ran"] or c[name]["note"], name
assert "targets" in d
' "$tmp/c.json"
fi
check perm-quick "$bench" perm --quick ${fsnotifyd:+--fsnotifyd "$fsnotifyd"} \
	--json "$tmp/p.json"
check perm-table grep -q '^floor ' "$tmp/perm-quick.out"
if command -v python3 >/dev/null 2>&1; then
	check perm-json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["tool"] == "fsn-bench perm"
n = d["parameters"]["rounds"]
r = {x["scenario"]: x for x in d["results"]}
assert set(r) == {"none", "floor", "fsnotifyd"}, set(r)
for name, x in r.items():
    assert x["ran"], "%s: %s" % (name, x["note"])
    assert len(x["rounds"]) == n, name
    s = x["summary"]
    assert s["samples"] == n * d["parameters"]["ops"], name
    assert 0 < s["p50_us"] <= s["p90_us"] <= s["p99_us"], name
assert {(x["a"], x["b"]) for x in d["ratios"]} == \
    {("floor", "none"), ("fsnotifyd", "none"), ("fsnotifyd", "floor")}
assert set(d["targets"]) == {"p50_vs_floor", "p99_vs_floor"}
' "$tmp/p.json"
fi
check perm-compare "$bench" compare "$tmp/p.json" "$tmp/p.json"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
