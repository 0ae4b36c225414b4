# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_overflow.py — the integration cases of events the daemon cannot
report, never lost silently: a fanotify queue overflow (an overflow
record, the STATUS counter, a prompt stop with a full queue), a rule's
rate limit and an output whose filesystem is full ("dropped" records and
the counters add up). Registered in common.TESTS.
"""

import os
import re
import signal
import time

from harness import (Fail, Skip, check, ev, record_attrs, rule, sha256sum, stat_attrs, tail,
                     wait_until)
from common import start, test


# ---------------------------------------------------------------------------
# Overflow
# ---------------------------------------------------------------------------

@test
def overflow(t):
    # limits.kernel_queue bounds each kernel queue exactly: with the daemon
    # stopped, qmax + 1000 creates leave qmax events and an overflow in the
    # queue; all qmax are reported, then the overflow record, and the global
    # sysctl is as it was before the daemon created its group.
    ov = t.mkdir("ov")
    sysctl = "/proc/sys/fs/fanotify/max_queued_events"
    try:
        with open(sysctl) as f:
            system_qmax = int(f.read())
    except OSError as e:
        raise Skip(f"cannot read max_queued_events: {e}")
    qmax = 1000
    d, out, _ = start(t, [rule("r-ov", [ov], mark="filesystem", recursive=True,
                               events=["create"])],
                      top=f"limits = {{ status_interval = 1; kernel_queue = {qmax}; }};")
    with open(sysctl) as f:
        check(int(f.read()) == system_qmax, "max_queued_events not restored")
    c = t.child(comm="fsnd-ov")
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    c.do("many", path=os.path.join(ov, "f"), count=qmax + 1000, timeout=60)
    d.signal(signal.SIGCONT)
    r = out.wait(lambda r: r.kind == "overflow", "an overflow record", timeout=20, daemon=d)
    check(r.rule == "r-ov", f"the overflow record does not name the rule r-ov: {r!r}")
    # The daemon goes on: a later event is reported.
    t.marker(c, out, ov, d)
    n = out.count(lambda r: r.kind == "event")
    check(n == qmax + 1, f"{n} events reported (the marker's included), but the queue held "
          f"exactly {qmax}")
    # ... and counted: STATUS= says so (engine.h: "..., 0 overflows, ...").
    d.wait_notify("STATUS", pred=lambda v: re.search(r"\b[1-9]\d* overflows?\b", v),
                  timeout=3)
    # SIGTERM with a full queue waiting: still a prompt, clean stop.
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    c.do("many", path=os.path.join(ov, "g"), count=qmax + 1000, timeout=60)
    i = d.notify.mark()
    d.signal(signal.SIGTERM)
    t0 = time.monotonic()
    d.signal(signal.SIGCONT)
    rc = d.wait_exit(timeout=5)
    el = time.monotonic() - t0
    check(rc == 0 and d.notify.find("STOPPING", "1", i) is not None,
          f"SIGTERM with a full queue: exit {rc}, STOPPING=1 "
          f"{'seen' if d.notify.find('STOPPING', '1', i) is not None else 'not seen'}")
    check(el < 2, f"SIGTERM with a full queue took {el:.2f}s to stop the daemon")


@test
def overflow_rescan_attributes(t):
    # A rule with attributes and hash: the rescan after an overflow says
    # what each file it reports is, as stat(1) says, and a content record
    # (without events) follows each with what sha256sum(1) says it holds
    # (the records validate against the schema as every record does).
    ov = t.mkdir("ov")
    qmax = 100
    d, out, _ = start(t, [rule("r-ov", [ov], mark="filesystem", recursive=True,
                               events=["create", "close_write"], attributes=True,
                               hash=True)],
                      top=f"limits = {{ kernel_queue = {qmax}; hash_queue = 1000; }};")
    c = t.child(comm="fsnd-ov")
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    c.do("many", path=os.path.join(ov, "f"), count=qmax + 200, timeout=60)
    d.signal(signal.SIGCONT)
    out.wait(lambda r: r.kind == "overflow", "an overflow record", timeout=20, daemon=d)
    r = out.wait(lambda r: r.kind == "rescan" and r.rule == "r-ov", "a rescan record", daemon=d)
    t.marker(c, out, ov, d)
    recs = [r for r in out.records if r.kind == "rescan" and r.rule == "r-ov"]
    files = 0
    for r in recs:
        p = os.fsdecode(r.path)
        got, now = record_attrs(r.get("attrs")), stat_attrs(p)
        if now["type"] == "directory":
            # (the marker has changed it since: the same directory)
            check(got and got["ino"] == now["ino"] and got["type"] == "directory",
                  f"rescan record {r!r}: stat says {now!r}")
            continue
        check(got == now, f"rescan record {r!r}: stat says {now!r}")
        files += 1
    check(files > 0, f"no rescan record of a file: {recs!r}")
    # a content record after each file's rescan record, in their order
    rescanned = [r.path for r in recs if r.get("attrs", {}).get("type") == "file"]

    def after_rescans():
        return [r for r in out.records if r.kind == "content" and "events" not in r.obj]
    wait_until(lambda: len(after_rescans()) >= len(rescanned),
               f"{len(rescanned)} content records after the rescan records", alive=d)
    got = after_rescans()
    check([r.path for r in got] == rescanned,
          f"content records of {[r.path for r in got]!r}, rescanned {rescanned!r}")
    for r in got:
        want = sha256sum(os.fsdecode(r.path))
        check((r.get("sha256"), r.get("size")) == want, f"{r!r}: sha256sum says {want!r}")
    t.note(f"{len(recs)} rescan records, those of the {files} files with what stat(1) and "
           "sha256sum(1) say")


# ---------------------------------------------------------------------------
# Rate limits and outputs that cannot write, accounted
# ---------------------------------------------------------------------------

@test
def rate_limit_accounted(t):
    # A rule's rate limit drops events, but never silently: reported plus
    # the counts of "dropped" records naming the rule add up to what
    # happened, within a few seconds.
    w = t.mkdir("w")
    d, out, _ = start(t, [rule("r-rl", [w], mark="auto", events=["create"], rate_limit=5)])
    c = t.child()
    N = 300
    c.do("many", path=os.path.join(w, "f"), count=N)

    def acc():
        n_ev = out.count(lambda r: r.kind == "event" and r.rule == "r-rl")
        n_dr = sum(r.get("count") or 0 for r in out.records if r.kind == "dropped")
        return (n_ev, n_dr) if n_ev + n_dr >= N else None
    try:
        n_ev, n_dr = wait_until(acc, "dropped records accounting for every event", timeout=6,
                                alive=d)
    except Fail:
        n_ev = out.count(lambda r: r.kind == "event")
        n_dr = sum(r.get("count") or 0 for r in out.records if r.kind == "dropped")
        raise Fail(f"{N} events, rate_limit = 5: {n_ev} reported + {n_dr} counted as dropped "
                   "after 6 s (the rest is lost silently)") from None
    check(n_ev + n_dr == N, f"{n_ev} reported + {n_dr} dropped != {N} events")
    check(n_ev < N / 2, f"{n_ev} of {N} events reported in about a second with rate_limit = 5")
    for r in out.records:
        if r.kind == "dropped":
            check(r.rule == "r-rl", f"a dropped record for a rate limit does not name the "
                  f"rule: {r!r}")
    # The counters say the same, by the same names: the stop summary of
    # the rule, and the status line.
    d.signal(signal.SIGTERM)
    d.wait_exit()
    err = d.stderr()
    check(re.search(rf"rule 'r-rl': {n_ev} events reported, 0 filtered, {n_dr} rate-limited",
                    err), f"the rule's stop summary does not say {n_ev} reported, {n_dr} "
          f"rate-limited:{tail(err, 4)}")
    check(re.search(rf"stopped \(Terminated\):.* {n_ev} events, 0 overflows, {n_dr} "
                    r"rate-limited, 0 lost by outputs", err),
          f"the stop line does not count {n_dr} rate-limited:{tail(err, 2)}")


@test
def output_loss_accounted(t):
    # The JSON output's filesystem fills up: what it cannot write is lost,
    # but never silently: once writing works again a "dropped" record
    # without a rule gives the count, and the status line's "lost by
    # outputs" says the same number (the rule's own counters do not: the
    # rule reported those events).
    w = t.mkdir("w")
    full = t.mount_fs("full", "tmpfs", "tmpfs", 0, "size=128k")
    ballast = os.path.join(full, "ballast")
    with open(ballast, "wb") as f:
        f.write(b"x" * (96 << 10))
    p = os.path.join(full, "events.json")
    out = t.output(p)
    d, _, _ = start(t, [rule("r", [w], events=["create"])],
                    outputs={"json": {"type": "json", "file": p}}, reader=out,
                    top="limits = { status_interval = 1; };")
    c = t.child()
    N = 1500  # about 300 KiB of records: most do not fit in 32 KiB
    c.do("many", path=os.path.join(w, "f"), count=N)
    # every event handled (and most lost) before there is room again
    d.wait_notify("STATUS", timeout=10, pred=lambda v: f" {N} events" in v)
    check("No space" in d.stderr(), f"the output's failure is not logged:{tail(d.stderr())}")
    os.unlink(ballast)  # room again (a torn last line is completed)
    c.create(os.path.join(w, "after"))
    r = out.wait(lambda r: r.kind == "dropped", "a dropped record once writing works",
                 daemon=d)
    check(r.rule is None, f"an output's loss names a rule: {r!r}")
    out.wait(ev(os.path.join(w, "after"), "create", "r"), "the create once there is room",
             daemon=d)
    lost = sum(x.get("count") or 0 for x in out.records if x.kind == "dropped")
    d.signal(signal.SIGTERM)
    d.wait_exit()
    err = d.stderr()
    m = re.search(r"stopped \(Terminated\):.* (\d+) events, 0 overflows, 0 rate-limited, "
                  r"(\d+) lost by outputs", err)
    check(m, f"no stop line with the counters:{tail(err, 2)}")
    check(int(m.group(1)) == N + 1 and int(m.group(2)) == lost,
          f"the stop line says {m.group(1)} events, {m.group(2)} lost by outputs; the stream "
          f"said {lost} dropped of {N + 1} events")
    check(re.search(rf"rule 'r': {N + 1} events reported, 0 filtered, 0 rate-limited", err),
          f"the rule's summary:{tail(err, 4)}")
