#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fsn-selftest --ktap is what kernel CI systems read: the kernel's own KTAP
# parser (tools/testing/kunit/kunit.py parse, from a kernel source tree)
# takes it without an error, finds a subtest per filesystem holding the
# cases, and counts what fsn-selftest counted. Three runs: every case
# passing (the parser says success); FAN_MARK_FILESYSTEM made to be refused
# (FSN_SELFTEST_BREAK, as check-floor.sh does) so that the cases needing it
# fail (the parser must say failure, with as many FAIL as fsn-selftest);
# and the same with the floor waived, so that they skip (SKIP counted).
#
# The parser: $FSN_KUNIT_DIR (a kernel tree's tools/testing/kunit), else an
# unpacked /usr/src/linux-source-*/, else its files taken from Debian's
# /usr/src/linux-source-*.tar.xz (package linux-source-6.1; tools/install-deps
# --tests installs it). None: skipped, and a failure under FSN_TESTS_MUST_RUN=1.
# Usage: check-ktap.sh FSN_SELFTEST
set -u
selftest=$1
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: fsn-selftest needs root (fanotify, mounts, loop devices)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

kunit=${FSN_KUNIT_DIR:-}
if [ -z "$kunit" ]; then
	for d in /usr/src/linux-source-*/tools/testing/kunit; do
		[ -f "$d/kunit.py" ] && kunit=$d
	done
fi
if [ -z "$kunit" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)
	if [ -n "$tarball" ]; then
		top=$(basename "$tarball" .tar.xz)
		if tar -xJf "$tarball" -C "$tmp" --wildcards "$top/tools/testing/kunit/*.py"; then
			kunit=$tmp/$top/tools/testing/kunit
		fi
	fi
fi
if [ -z "$kunit" ] || [ ! -f "$kunit/kunit.py" ]; then
	why="no kernel KTAP parser: set FSN_KUNIT_DIR or install linux-source-6.1 (tools/install-deps --tests)"
	if [ "${FSN_TESTS_MUST_RUN:-}" = 1 ]; then
		echo "FAIL: $why"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "SKIP: $why"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
echo "# the parser: $kunit/kunit.py"

# run NAME WANT_SELFTEST_RC WANT_PARSER_RC [VAR=VALUE...]: fsn-selftest
# --ktap on tmpfs and ext4 (an inotify group and the filesystem-mark group),
# parsed; the parser's JSON must hold the two subtests and fsn-selftest's
# counts, with at least one case of the status the run is about.
run() {
	name=$1 want=$2 want_parse=$3
	shift 3
	env "$@" "$selftest" --ktap --fs tmpfs,ext4 --filter 'in01_*' --filter 'fp05_*' \
		>"$tmp/$name.ktap" 2>"$tmp/$name.err"
	rc=$?
	python3 "$kunit/kunit.py" parse --json="$tmp/$name.json" "$tmp/$name.ktap" \
		>"$tmp/$name.parse" 2>&1
	prc=$?
	if [ $rc = "$want" ] && [ $prc = "$want_parse" ] && python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert text.startswith("KTAP version 1\n"), "no KTAP version line first"
want = {}
for fs, n, p, f, s in re.findall(
        r"^    # (\w+): (\d+) cases in .*: (\d+) passed, (\d+) failed, (\d+) skipped", text, re.M):
    want[fs] = (int(n), int(p), int(f), int(s))
groups = d["sub_groups"]
assert [g["name"] for g in groups] == ["tmpfs", "ext4"], [g["name"] for g in groups]
for g in groups:
    st = [c["status"] for c in g["test_cases"]]
    got = (len(st), st.count("PASS"), st.count("FAIL"), st.count("SKIP"))
    assert got == want[g["name"]], (g["name"], got, want[g["name"]])
    assert all(not c["name"].startswith(g["name"] + ":") for c in g["test_cases"])
total = [sum(w[i] for w in want.values()) for i in range(4)]
key = {"pass": 1, "fail": 2, "skip": 3}[sys.argv[3]]
assert total[key] > 0, ("no case of status", sys.argv[3], total)
if sys.argv[3] == "pass":
    assert total[2] == total[3] == 0, total
' "$tmp/$name.json" "$tmp/$name.ktap" "$name" >"$tmp/$name.check" 2>&1; then
		echo "PASS $name: fsn-selftest exit $rc, kunit.py parse exit $prc, counts agree"
		passed=$((passed + 1))
	else
		echo "FAIL $name: fsn-selftest exit $rc (want $want), kunit.py parse exit $prc (want $want_parse)"
		sed 's/^/  | /' "$tmp/$name.check" "$tmp/$name.parse" | tail -30
		sed 's/^/  > /' "$tmp/$name.ktap" | head -40
		failed=$((failed + 1))
	fi
}
run pass 0 0
run fail 1 1 FSN_SELFTEST_BREAK=mark_filesystem
run skip 0 0 FSN_SELFTEST_BREAK=mark_filesystem FSN_SELFTEST_NO_FLOOR=mark_filesystem
echo "$passed passed, $failed failed, 0 skipped"
[ $failed = 0 ]
