#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# meson test "vm-bench": `fsn-bench vm --quick` on FSN_VM_KERNEL, compared
# with itself: the guest runs, its JSON comes back in the hooks schema with
# "clock": "icount", `fsn-bench compare` reads it, and the report is
# printed. Never a pass/fail on the figures themselves (doc/performance.md
# has the method). Skips (77) as check-vm.sh does.
# Usage: check-vm-bench.sh FSN_BENCH(static)
set -u
here=$(dirname "$0")

# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

vm_require

bench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# a usage error says so, before anything boots
"$bench" vm >"$tmp/usage" 2>&1 && fail "fsn-bench vm without an image succeeded"
grep -q "no KERNEL_IMAGE" "$tmp/usage" || fail "no usage error: $(cat "$tmp/usage")"

"$bench" vm "$kernel" --compare "$kernel" --quick --workloads pwrite,open-close \
	--scenarios ino-same-fs,fan-fs-nomatch,perm-same-fs --runner "$here/run-on-kernel" \
	${FSN_VM_MODULES:+--modules "$FSN_VM_MODULES"} \
	--json "$tmp/a.json" --compare-json "$tmp/b.json" >"$tmp/report" 2>"$tmp/log" ||
	fail "fsn-bench vm failed: $(tail -n 30 "$tmp/log")"
cat "$tmp/report"
for f in a b; do
	python3 - "$tmp/$f.json" <<'PY' || fail "$f.json is not a hooks --icount result"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "fsn-bench hooks" and d["parameters"]["clock"] == "icount", d["parameters"]
cells = {(r["scenario"], r["workload"]) for r in d["results"]}
want = {(s, w) for s in ("none", "ino-same-fs", "fan-fs-nomatch", "perm-same-fs")
        for w in ("pwrite", "open-close")}
assert cells == want, cells ^ want
for r in d["results"]:
    assert len(r["rounds"]) == 2 and all(x["wall_ns"] > 0 for x in r["rounds"]), r
PY
done
for row in "pwrite         fan-fs-nomatch" "open-close     perm-same-fs"; do
	grep -q "^$row " "$tmp/report" || fail "the report has no row '$row'"
done
grep -q "^largest spread between rounds: " "$tmp/report" || fail "no spread line in the report"
# 0: nothing moved, 3: a cell moved (exact counts can differ by a few
# instructions between boots); anything else is a failure to read them
rc=0
"$(dirname "$bench")/fsn-bench" compare "$tmp/a.json" "$tmp/b.json" >"$tmp/cmp" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] ||
	fail "fsn-bench compare of the two VM results failed ($rc): $(cat "$tmp/cmp")"
grep -q "fan-fs-nomatch" "$tmp/cmp" || fail "compare shows no fan-fs-nomatch"
echo "1 passed, 0 failed, 0 skipped"
