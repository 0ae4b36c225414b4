#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/fsn-gaps on crafted arrivals: the three forms a record travels in
(fsnotifyd's record, a journal entry, an ECS document), mixed; a gap, a
duplicate, a stream whose start is missing, two hosts, lines that are no
record; --expect. Ends with "N passed, N failed, 0 skipped"."""
import json
import os
import subprocess
import sys
import tempfile

GAPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "fsn-gaps")
passed = failed = 0


def run(lines, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write("".join(x if isinstance(x, str) else json.dumps(x) + "\n" for x in lines))
    try:
        p = subprocess.run([sys.executable, GAPS, "--json", *args, f.name],
                           stdout=subprocess.PIPE, check=False)
        return p.returncode, json.loads(p.stdout)
    finally:
        os.unlink(f.name)


def case(name, ok, detail):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


def rec(seq, host="a", stream="s1"):
    return {"kind": "event", "host": host, "boot_id": "b1", "stream": stream, "seq": seq}


def journal(seq, host="a", stream="s1"):
    return {"_HOSTNAME": host, "_BOOT_ID": "b1", "FSN_STREAM": stream, "FSN_SEQ": str(seq)}


def ecs(seq, host="a", stream="s1"):
    return {"event": {"sequence": seq}, "host": {"name": host, "boot": {"id": "b1"}},
            "fsnotifyd": {"stream": stream}}


rc, r = run([rec(1), journal(2), ecs(3), rec(4), "not json\n", {"MESSAGE": "started"}])
case("three forms, one stream, complete", rc == 0 and r["total"] == {
    "records": 4, "missing": 0, "duplicates": 0, "skipped": 2} and len(r["streams"]) == 1, r)
rc, r = run([rec(1), rec(2), rec(5), rec(5), rec(6), rec(9)])
s = r["streams"][0]
case("gaps and a duplicate", rc == 1 and s["gaps"] == [[3, 4], [7, 8]] and s["missing"] == 4
     and s["duplicates"] == 1 and (s["first"], s["last"]) == (1, 9), r)
rc, r = run([rec(3), rec(4)])
case("a stream whose start did not arrive", rc == 1 and r["streams"][0]["gaps"] == [[1, 2]], r)
rc, r = run([rec(1), rec(2), rec(1, host="b"), rec(1, stream="s2"), rec(2, stream="s2")])
case("streams of two hosts and two daemon starts",
     rc == 0 and len(r["streams"]) == 3 and r["total"]["records"] == 5, r)
rc, r = run([rec(1), rec(2)], "--expect", "3")
case("fewer than expected", rc == 1 and not r["ok"], r)
rc, r = run([rec(1), rec(2), rec(3)], "--expect", "3")
case("as many as expected", rc == 0 and r["ok"], r)
print(f"{passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
