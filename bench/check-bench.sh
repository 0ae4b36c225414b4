#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The 'bench' suite: fsn-bench hooks --quick runs, writes JSON that parses,
# and compare reads it back; fsn-bench consumers --quick runs against the
# daemon and writes JSON naming every consumer; inotifywait and fatrace must
# have run when installed (not installed fails with FSN_TESTS_MUST_RUN=1, as
# in CI; tools/install-deps --tests installs them); fsn-bench perm --quick
# measures all four scenarios (none, floor, floor-old, fsnotifyd: a skipped
# fsnotifyd fails the check) and compare reads that back too; the other
# workloads, decisions, the deny verdict, two openers and a storm (with
# fsnotifyd-calm) run; compare reads two
# consumers files; fsn-bench config runs every step against the daemon at two
# small sizes and writes JSON with a figure for each, and against a stand-in
# daemon that never answers its steps time out (the stand-in is killed, the
# rest is skipped) instead of hanging; fsn-bench hash --quick runs against the
# daemon (every content record checked on the way) and writes its JSON;
# fsn-bench baseline --quick runs the daemon's --baseline-init and
# --baseline-check against aide (each check must name exactly the files the
# bench changed) and writes its JSON (aide not installed: skipped, and a
# failure with FSN_TESTS_MUST_RUN=1); record-instructions counts the
# daemon's loop per record under valgrind (not installed: skipped, and a
# failure with FSN_TESTS_MUST_RUN=1). When gnuplot is installed, `plot`
# and `--plot` write PNGs (checked by their signature); without it those
# checks are skipped, and
# `plot` with gnuplot hidden from PATH must say so and exit 77. Pass/fail is
# about the tool working, never speed.
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
skip=0
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot=yes
else
	gnuplot=
fi
skipped() {
	echo "skip: $1"
	skip=$((skip + 1))
}
# FILE exists and starts with the PNG signature
png_ok() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}
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
# a workload for every hook family, each in every scenario
wl = {r["workload"] for r in d["results"]}
fam = {"pwrite", "pipe-pingpong", "open-close", "pread", "create-unlink", "rename", "chmod",
       "ftruncate", "fallocate", "mmap-fault", "sendfile", "splice", "copy-file-range", "readdir",
       "execve", "pipe-pairs"}
assert wl == fam, wl ^ fam
sc = {r["scenario"] for r in d["results"]}
assert len(d["results"]) == len(wl) * len(sc), len(d["results"])
' "$tmp/r.json"
fi
# fs A as an ext4 on a loop device: the pre-content scenario runs where the
# kernel has pre-content events (6.14), else it is left out with its reason
if command -v mkfs.ext4 >/dev/null 2>&1 || [ -x /usr/sbin/mkfs.ext4 ] || [ -x /sbin/mkfs.ext4 ]; then
	check hooks-ext4 "$bench" hooks --quick --fs ext4 --workloads open-close,pread \
		--json "$tmp/h.json"
	if command -v python3 >/dev/null 2>&1; then
		check hooks-ext4-json python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["parameters"]["fs"] == "ext4", d["parameters"]
sc = {r["scenario"] for r in d["results"]}
assert {"none", "perm-same-fs"} <= sc, sc
left = {x["scenario"]: x["reason"] for x in d["skipped"]}
assert ("hsm-same-fs" in sc) != ("hsm-same-fs" in left), (sc, left)
assert "hsm-same-fs" in sc or "FAN_PRE_ACCESS" in left["hsm-same-fs"], left
print("hsm-same-fs:", "measured" if "hsm-same-fs" in sc else left["hsm-same-fs"])
' "$tmp/h.json"
	fi
else
	skipped "hooks-ext4, hooks-ext4-json (no mkfs.ext4: e2fsprogs)"
fi
check compare "$bench" compare "$tmp/r.json" "$tmp/r.json"
check compare-nothing-moved grep -q "^nothing moved beyond the rounds' spread" "$tmp/compare.out"
if command -v python3 >/dev/null 2>&1; then
	# one cell twice as expensive in B: listed as moved, exit status 3
	check compare-moved sh -c "python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d[\"results\"] if x[\"scenario\"] != \"none\"][0]
for x in r[\"rounds\"]:
    x[\"ops_per_s\"] /= 2
r[\"summary\"][\"median_ops_per_s\"] /= 2
json.dump(d, open(sys.argv[2], \"w\"))
' '$tmp/r.json' '$tmp/r2.json'; '$bench' compare '$tmp/r.json' '$tmp/r2.json' >'$tmp/moved.out'
test \$? = 3 && grep -q '^ *-50.00%  .*: median ops/s' '$tmp/moved.out'"
fi
check compare-rejects-garbage sh -c "echo '{\"version\":' >'$tmp/bad.json'; ! '$bench' compare '$tmp/bad.json' '$tmp/r.json'"
if [ -n "$gnuplot" ]; then
	check plot-hooks "$bench" plot "$tmp/r.json" "$tmp/r.png"
	check plot-hooks-png png_ok "$tmp/r.png"
	check compare-plot "$bench" compare "$tmp/r.json" "$tmp/r.json" --plot "$tmp/cmp.png"
	check compare-plot-png png_ok "$tmp/cmp.png"
	# --plot without --json: the results go through a temporary file
	check hooks-plot "$bench" hooks --rounds 2 --ops 1000 --workloads pread \
		--scenarios ino-same-fs --plot "$tmp/h.png"
	check hooks-plot-png png_ok "$tmp/h.png"
else
	skipped "plot-hooks, compare-plot, hooks-plot (gnuplot not installed)"
fi
check plot-without-gnuplot sh -c "PATH=/nonexistent '$bench' plot '$tmp/r.json' '$tmp/none.png' \
	2>'$tmp/nognuplot.err'; [ \$? = 77 ] && grep -q '^gnuplot not installed: no plot$' \
	'$tmp/nognuplot.err' && [ ! -e '$tmp/none.png' ]"
if [ -n "$fsnotifyd" ]; then
	check consumers-quick "$bench" consumers --quick --fsnotifyd "$fsnotifyd" \
		--json "$tmp/c.json"
else
	check consumers-quick "$bench" consumers --quick --json "$tmp/c.json"
fi
check consumers-table grep -q '^fsnotifyd ' "$tmp/consumers-quick.out"
iw=yes fa=yes
command -v inotifywait >/dev/null 2>&1 || iw=no
command -v fatrace >/dev/null 2>&1 || fa=no
if command -v python3 >/dev/null 2>&1; then
	check consumers-json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["tool"] == "fsn-bench consumers"
c = {x["consumer"]: x for x in d["consumers"]}
assert set(c) == {"none", "floor", "floor-count", "floor-old", "fsnotifyd", "inotifywait",
                  "fatrace"}, set(c)
for name in ("none", "floor", "floor-count", "floor-old", "fsnotifyd"):
    assert c[name]["ran"], name
    assert len(c[name]["rounds"]) == d["parameters"]["rounds"], name
for name in ("floor", "floor-count", "floor-old", "fsnotifyd"):
    s = c[name]["summary"]
    assert s["exited_rounds"] == 0, name
    assert s["generated"] > 0 and s["delivered"] > 0, name
    assert s["delivered"] + s["lost"] >= s["generated"], name
for name in ("inotifywait", "fatrace"):
    x = c[name]
    if sys.argv[2 if name == "inotifywait" else 3] == "no":
        assert not x["ran"] and x["note"] == "not installed", (name, x["note"])
        continue
    assert x["ran"], "%s: %s" % (name, x["note"])
    assert len(x["rounds"]) == d["parameters"]["rounds"], name
    s = x["summary"]
    assert s["generated"] > 0 and s["delivered"] > 0, name
    assert s["delivered"] + s["lost"] >= s["generated"], name
    assert s["latency_samples"] > 0 and s["exited_rounds"] == 0, name
n_a = {t for t, v in c["fatrace"]["rounds"][0]["types"].items() if not v["countable"]} \
    if c["fatrace"]["ran"] else set()
assert n_a in (set(), {"create", "modify", "moved_from", "moved_to", "delete"}), n_a
assert "targets" in d
assert set(d["targets"]) >= {"cpu_vs_floor", "cpu_vs_floor_count", "cpu_vs_floor_old"}, d["targets"]
# the kernel memory of the queues: measured wherever a memory cgroup can be made
memcg = any(l.split()[0] == "memory" and l.split()[-1] == "1"
            for l in open("/proc/cgroups") if not l.startswith("#"))
for name in ("floor", "fsnotifyd"):
    k = c[name]["summary"]["peak_kmem_mb"]
    assert (k is not None and k >= 0) or not memcg, (name, k)
    assert all((r["peak_kmem_bytes"] is None) == (k is None) for r in c[name]["rounds"]), name
' "$tmp/c.json" "$iw" "$fa"
fi
# record-instructions: the daemon's loop under callgrind, a figure per record
if [ -z "$fsnotifyd" ]; then
	skipped "record-instructions (no fsnotifyd given)"
elif command -v valgrind >/dev/null 2>&1; then
	check record-instructions "$(dirname "$0")/record-instructions" --ops 200 --top 3 "$fsnotifyd"
	check record-instructions-figure grep -Eq \
		': [1-9][0-9]* records, [1-9][0-9]* instructions, [1-9][0-9]* per record$' \
		"$tmp/record-instructions.out"
elif [ "${FSN_TESTS_MUST_RUN:-}" = 1 ]; then
	check record-instructions sh -c "echo 'valgrind: not installed (tools/install-deps --tests)'; false"
else
	skipped "record-instructions (no valgrind)"
fi
for tool in inotifywait fatrace; do
	if ! command -v "$tool" >/dev/null 2>&1 && [ "${FSN_TESTS_MUST_RUN:-}" = 1 ]; then
		check "$tool-installed" sh -c "echo '$tool: not installed (tools/install-deps --tests)'; false"
	fi
done
check consumers-compare "$bench" compare "$tmp/c.json" "$tmp/c.json"
check consumers-compare-table sh -c "grep -q '^fsnotifyd\$' '$tmp/consumers-compare.out' &&
	grep -q '^  cpu_us/ev ' '$tmp/consumers-compare.out' &&
	grep -q '^  p99_ms ' '$tmp/consumers-compare.out'"
check compare-rejects-mixed sh -c "! '$bench' compare '$tmp/c.json' '$tmp/r.json'"
check plot-rejects-consumers sh -c "! '$bench' plot '$tmp/c.json' '$tmp/c.png'"
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
assert set(r) == {"none", "floor", "floor-old", "fsnotifyd"}, set(r)
for name, x in r.items():
    assert x["ran"], "%s: %s" % (name, x["note"])
    assert len(x["rounds"]) == n, name
    s = x["summary"]
    assert s["samples"] == n * d["parameters"]["ops"], name
    assert 0 < s["p50_us"] <= s["p90_us"] <= s["p99_us"], name
assert {(x["a"], x["b"]) for x in d["ratios"]} == \
    {("floor", "none"), ("floor-old", "none"), ("fsnotifyd", "none"),
     ("fsnotifyd", "floor"), ("fsnotifyd", "floor-old"), ("floor", "floor-old")}
assert set(d["targets"]) == {"p50_vs_floor", "p99_vs_floor"}
' "$tmp/p.json"
fi
check perm-compare "$bench" compare "$tmp/p.json" "$tmp/p.json"
# the other workloads, decisions, verdicts, two openers and a storm run too
check perm-variants sh -c "'$bench' perm --rounds 2 --ops 200 --workload exec --decision proc \
	${fsnotifyd:+--fsnotifyd '$fsnotifyd'} && '$bench' perm --rounds 2 --ops 200 \
	--workload read --verdict deny --openers 2 ${fsnotifyd:+--fsnotifyd '$fsnotifyd'} &&
	'$bench' perm --rounds 2 --ops 200 --storm 2 --decision path \
	${fsnotifyd:+--fsnotifyd '$fsnotifyd'} --json '$tmp/ps.json'"
if command -v python3 >/dev/null 2>&1; then
	check perm-storm-json python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["scenario"]: x for x in d["results"]}
assert set(r) == {"none", "floor", "floor-old", "fsnotifyd", "fsnotifyd-calm"}, set(r)
assert all(x["ran"] for x in r.values()), [(k, x["note"]) for k, x in r.items()]
assert set(d["targets"]) == {"p50_vs_floor", "p99_vs_floor", "p99_storm_vs_calm"}
assert d["parameters"]["storm"] == 2 and d["parameters"]["decision"] == "path"
' "$tmp/ps.json"
fi
if [ -n "$gnuplot" ]; then
	check plot-perm "$bench" plot "$tmp/p.json" "$tmp/p.png"
	check plot-perm-png png_ok "$tmp/p.png"
else
	skipped "plot-perm (gnuplot not installed)"
fi
check config-small "$bench" config --paths 10,20 --rounds 1 \
	${fsnotifyd:+--fsnotifyd "$fsnotifyd"} --json "$tmp/g.json"
check config-table grep -q '^10 .* reload-changed ' "$tmp/config-small.out"
if command -v python3 >/dev/null 2>&1; then
	check config-json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["tool"] == "fsn-bench config"
assert d["machine"]["nproc"] >= 1 and d["parameters"]["paths"] == [10, 20]
steps = [s["step"] for s in d["steps"]]
assert steps == ["floor", "check", "start", "reload", "reload-changed", "stop"], steps
assert [x["paths"] for x in d["sizes"]] == [10, 20]
for x in d["sizes"]:
    assert len(x["rounds"]) == 1
    for name, st in x["rounds"][0]["steps"].items():
        assert st["status"] == "ok" and st["ns"] > 0, (x["paths"], name, st, x["rounds"][0]["note"])
    for name in steps:
        s = x["summary"][name]
        assert s["ok"] == 1 and s["us_per_path"] > 0 and s["ratio_to_floor"] > 0, (name, s)
    for point in ("start", "reload", "reload-changed"):
        m = x["rounds"][0]["daemon"][point]
        assert m["vmhwm_kib"] >= m["vmrss_kib"] > 0 and m["marks"] > 0, (point, m)
assert set(d["linearity"]) == set(steps)
for name, l in d["linearity"].items():
    assert (l["from_paths"], l["to_paths"]) == (10, 20) and l["ratio"] > 0, (name, l)
    assert l["verdict"] in ("linear", "sublinear", "superlinear"), l
' "$tmp/g.json"
fi
# a stand-in daemon that never answers: check and start time out after 1 s,
# the other steps are not run, and in round 2 nothing is run again
printf '#!/bin/sh\nexec sleep 3141\n' >"$tmp/sleepy"
chmod +x "$tmp/sleepy"
check config-timeout "$bench" config --paths 10 --rounds 2 --timeout 1 \
	--fsnotifyd "$tmp/sleepy" --json "$tmp/gt.json"
check config-timeout-table grep -q '^10 .* check .* TIMEOUT x1  skipped x1' \
	"$tmp/config-timeout.out"
if command -v python3 >/dev/null 2>&1; then
	check config-timeout-json python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["sizes"][0]["rounds"]
st = [{k: v["status"] for k, v in x["steps"].items()} for x in r]
assert st[0] == {"floor": "ok", "check": "timeout", "start": "timeout", "reload": "not-run",
                 "reload-changed": "not-run", "stop": "not-run"}, st[0]
assert st[1] == dict(st[0], check="skipped", start="skipped", reload="skipped",
                     **{"reload-changed": "skipped", "stop": "skipped"}), st[1]
' "$tmp/gt.json"
fi
check config-no-sleepers sh -c "! pgrep -f '^sleep 3141\$' >/dev/null"
check config-rejects-ops sh -c "'$bench' config --ops 5 2>/dev/null; [ \$? = 2 ]"
check hash-quick "$bench" hash --quick ${fsnotifyd:+--fsnotifyd "$fsnotifyd"} \
	--json "$tmp/h.json"
check hash-table grep -q '^fsnotifyd ' "$tmp/hash-quick.out"
if command -v python3 >/dev/null 2>&1; then
	check hash-json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["tool"] == "fsn-bench hash"
assert (d["files"], d["size_mib"], d["rounds"]) == (8, 4, 1), d
t = d["throughput"]
for name in ("sha256sum", "fsnotifyd"):
    assert t[name]["ran"] and t[name]["median_mbps"] > 0, name
    assert len(t[name]["rounds_mbps"]) == d["rounds"], name
assert t["openssl"]["ran"] or t["openssl"]["note"] == "not installed"
assert d["ratio_sha256sum"] > 0
for run in ("calm", "hashing"):
    x = d["delay"][run]
    assert x["samples"] == d["delay"]["probes"] * d["rounds"], run
    assert 0 < x["p50_us"] <= x["p99_us"] <= x["max_us"], run
assert d["delay"]["ratio_p99"] > 0
assert set(d["targets"]) == {"throughput_vs_sha256sum", "p99_hashing_vs_calm"}
' "$tmp/h.json"
fi
if command -v aide >/dev/null 2>&1; then
	check baseline-quick "$bench" baseline --quick ${fsnotifyd:+--fsnotifyd "$fsnotifyd"} \
		--json "$tmp/b.json"
	check baseline-table grep -q '^2000 *fsnotifyd-check ' "$tmp/baseline-quick.out"
	if command -v python3 >/dev/null 2>&1; then
		check baseline-json-valid python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["tool"] == "fsn-bench baseline"
p = d["parameters"]
assert (p["sizes"], p["rounds"], p["quick"]) == ([2000], 1, True), p
steps = ["aide-init", "fsnotifyd-init", "aide-check", "fsnotifyd-check"]
assert d["steps"] == steps, d["steps"]
[x] = d["sizes"]
assert (x["files"], x["dirs"], x["changed"]) == (2000, 20, 20), x
assert len(x["rounds"]) == 1
for s in steps:
    assert x["rounds"][0][s]["wall_ms"] > 0, s
    assert x["summary"][s]["wall_ms"]["median"] > 0, s
for pair in ("init", "check"):
    assert x["ratios"][pair]["wall"] > 0, pair
assert set(d["targets"]) == {"init_vs_aide", "check_vs_aide"}
' "$tmp/b.json"
	fi
	check baseline-rejects-ops sh -c "'$bench' baseline --ops 5 2>/dev/null; [ \$? = 2 ]"
elif [ "${FSN_TESTS_MUST_RUN:-}" = 1 ]; then
	check aide-installed sh -c "echo 'aide: not installed (tools/install-deps --tests)'; false"
else
	skipped "baseline-quick (aide not installed)"
fi
# fsn-bench vm: its errors, before anything boots (tests/vm/check-vm-bench.sh
# boots a kernel when FSN_VM_KERNEL is set)
vm_err() { # vm_err EXPECTED-TEXT ARGS...: exit status 2 and the message
	want=$1
	shift
	out=$("$bench" vm "$@" 2>&1)
	[ $? = 2 ] && printf '%s' "$out" | grep -q "$want"
}
check vm-no-image vm_err "no KERNEL_IMAGE"
check vm-missing-image vm_err "nosuch.bzImage: No such file" "$tmp/nosuch.bzImage"
check vm-compare-json-alone vm_err "needs --compare" "$tmp/r.json" --compare-json "$tmp/x.json"
check vm-bad-runner vm_err "VM runner $tmp/none" "$tmp/r.json" --runner "$tmp/none"
check vm-dynamic-guest vm_err "not a statically linked" "$tmp/r.json" --guest-bench /bin/sh
# every long option that --help and vm --help print is in the man page
# (written \-\- there); no root needed for this one
man_options() {
	page=$(dirname "$0")/../doc/man/fsn-bench.1
	help=$("$bench" --help && "$bench" vm --help) || return 1
	opts=$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9]*(-[a-z0-9]+)*' | sort -u)
	[ -n "$opts" ] || { echo "no long options in --help"; return 1; }
	text=$(sed 's/\\-/-/g' "$page") || return 1
	missing=
	for opt in $opts; do
		printf '%s\n' "$text" | grep -qE -- "$opt([^A-Za-z0-9-]|\$)" ||
			missing="$missing $opt"
	done
	[ -z "$missing" ] || { echo "not in $page:$missing"; return 1; }
}
check man-options man_options
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
