# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_reload.py — the integration cases of reload and signals (issue 4):
reload without loss under a stream of events, bad reloads (no memory
growth, the old config keeps running, the log names file:line), sd_notify
messages (READY, STATUS, WATCHDOG, RELOADING, STOPPING) and a clean stop
on SIGTERM. Registered in common.TESTS.
"""

import collections
import os
import re
import signal
import time

from harness import Fail, check, config_text, ev, rule, tail
from common import check_only, reload, test


# ---------------------------------------------------------------------------
# Reload
# ---------------------------------------------------------------------------

@test
def reload_no_loss(t):
    # Three unchanged rules, one per mechanism (a filesystem mark shared
    # with a rule that comes and goes, an inode mark, an inotify watch),
    # each getting a steady stream of creates while the config is reloaded
    # eight times, adding and removing two other rules. A fourth rule
    # changes its events (create / create+delete) at each reload: the
    # creates it reports before and after must not have a gap either
    # (new marks are placed before old ones are removed) nor be doubled.
    steady = {"steady-fs": (t.mkdir("steady-fs"), dict(mark="auto", recursive=True)),
              "steady-inode": (t.mkdir("steady-inode"), dict(mark="inode")),
              "steady-inotify": (t.mkdir("steady-inotify"), dict(mark="inotify")),
              "changing": (t.mkdir("changing"), dict(mark="inode"))}
    extra = t.mkdir("extra")
    outputs, out = t.json_setup()
    r_steady = [rule(n, [p], events=["create"], **kw) for n, (p, kw) in steady.items()]
    r_changed = [rule(n, [p], events=["create", "delete"], **kw) if n == "changing" else
                 rule(n, [p], events=["create"], **kw) for n, (p, kw) in steady.items()]
    r_extra = rule("extra", [extra], mark="auto", recursive=True, events=["create"])
    r_third = rule("third", [t.mkdir("third")], mark="inotify", events=["create"])
    conf_a = config_text(r_steady, outputs, ["json"])
    conf_b = config_text([r_extra] + r_changed + [r_third], outputs, ["json"])
    cfg = t.write_file("fsnotifyd.conf", conf_a)
    d = t.daemon(cfg)
    d.wait_ready()
    writer = t.child(comm="fsnd-writer")
    poker = t.child(comm="fsnd-poker")
    interval = 0.005
    stop = os.path.join(t.dir, "stop-writer")
    writer.start("steady", paths=[os.path.join(p, "f") for p, _ in steady.values()],
                 interval=interval, stop=stop)
    # the stream is flowing before the first reload
    out.wait(ev(os.path.join(steady["steady-fs"][0], "f0010")), "the writer's stream", daemon=d)
    shown, hidden = [], []
    for k in range(8):
        with_extra = k % 2 == 0
        reload(d, t, cfg, conf_b if with_extra else conf_a)
        p = os.path.join(extra, f"x{k}")
        poker.create(p)
        if with_extra:
            out.wait(ev(p, "create", "extra"), f"create of extra/x{k} after reload {k} added "
                     "the rule", daemon=d)
            shown.append(p)
        else:
            hidden.append(p)
        time.sleep(0.1)  # pacing only: more creates between reloads (which are quick)
    with open(stop, "w"):
        pass
    N = writer.reply(timeout=30)
    check(N > 100, f"only {N} creates during the reloads")
    if os.environ.get("FSND_IT_VERBOSE"):
        t.note(f"{N} creates per rule during 8 reloads")
    for name, (dd, _) in steady.items():
        t.marker(poker, out, dd, d, rule=name)
    expected = []
    creates = collections.Counter((r.rule, r.path) for r in out.records
                                  if r.kind == "event" and "create" in r.events)
    for name, (dd, _) in steady.items():
        paths = [os.path.join(dd, "f%04d" % i) for i in range(N)]
        expected += paths
        bad = [(p, n) for p in paths for n in [creates[(name, os.fsencode(p))]] if n != 1]
        if bad:
            raise Fail(f"rule {name}: {len(bad)} of {N} creates not reported exactly once "
                       f"across 8 reloads (first: {os.path.basename(bad[0][0])}, "
                       f"{bad[0][1]} times)")
    for p in shown:
        check(out.count(ev(p)) == 1, f"{p} reported {out.count(ev(p))} times, expected once")
    for p in hidden:
        check(out.count(ev(p)) == 0, f"{p} reported after its rule was removed by a reload")
    markers = [r.path for r in out.records if b"zz-marker" in (r.path or b"")]
    check_only(out, len(out.records), expected + shown + markers, "reload")


@test
def reload_bad_no_growth(t):
    # libconfig leaks what its parser had read when a file does not parse
    # (here a 256 KiB string where a setting should be): 200 reloads of such a
    # file must not grow the daemon (it parses a file first in a child).
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    good = config_text([rule("r-w", [w], events=["create"])], outputs, ["json"])
    cfg = t.write_file("fsnotifyd.conf", good)
    # (a daemon built with ASan keeps freed memory in quarantine: not here)
    asan = os.environ.get("ASAN_OPTIONS", "")
    d = t.daemon(cfg, env={"ASAN_OPTIONS": (asan + ":" if asan else "") +
                           "quarantine_size_mb=0"})
    d.wait_ready()
    t.write_file(cfg, good + '"' + "a" * (256 << 10) + '"\n')  # a string, no setting

    def rss():
        with open(f"/proc/{d.pid}/status") as f:
            return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:"))
    sizes = []
    for k in range(200):
        i = d.notify.mark()
        d.signal(signal.SIGHUP)
        j = d.wait_notify("RELOADING", "1", start=i)
        d.wait_notify("READY", "1", start=j + 1)
        if k in (9, 199):
            sizes.append(rss())
    grown = sizes[1] - sizes[0]
    check(grown < 8 << 10, f"190 failed reloads grew the daemon by {grown} KiB "
          f"({sizes[0]} -> {sizes[1]} KiB)")
    check("syntax error" in d.stderr(), f"no syntax error logged:{tail(d.stderr())}")
    t.write_file(cfg, good)
    i = d.notify.mark()
    d.signal(signal.SIGHUP)
    d.wait_notify("STATUS", start=i, pred=lambda v: "last reload ok" in v)
    c = t.child()
    p = os.path.join(w, "after")
    c.create(p)
    out.wait(ev(p, "create", "r-w"), "an event after the good reload", daemon=d)


@test
def reload_bad_keeps_old(t):
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    good = config_text([rule("r-w", [w], mark="auto", events=["create"])], outputs, ["json"])
    cfg = t.write_file("fsnotifyd.conf", good)
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child(comm="fsnd-bad")
    # hostile includes: libconfig's scanner would exit(2) on a directory
    # (or ""), and block for good opening a FIFO
    os.mkdir(os.path.join(t.dir, "incdir"))
    os.mkfifo(os.path.join(t.dir, "incfifo"))
    bad = {
        "syntax error": good.replace("rules = (", "rules = ( oops", 1),
        "unknown key": good.replace("rules = (", "frobnicate = 1;\nrules = (", 1),
        "bad value": good.replace('mark = "auto"', 'mark = "sideways"'),
        "include of a directory": good + '\n@include "incdir"\n',
        "empty include": good + '\n  @include ""\n',
        "include of a FIFO": good + '\n@include "incfifo"\n',
    }
    for k, (what, text) in enumerate(bad.items()):
        t.write_file(cfg, text)
        line = next(n + 1 for n, ln in enumerate(text.split("\n"))
                    if re.search("oops|frobnicate|sideways|@include", ln))
        logged = len(d.stderr())
        i = d.notify.mark()
        d.signal(signal.SIGHUP)
        d.wait_notify("STATUS", start=i, pred=lambda v: re.search(
            r"reload.*(fail|error|invalid|reject)|(fail|error|invalid|reject).*reload", v,
            re.I) is not None)
        rl = d.notify.find("RELOADING", "1", i)
        if rl is not None:
            # RELOADING=1 must always be closed by READY=1, or systemd
            # thinks the reload never ends.
            d.wait_notify("READY", "1", start=rl + 1)
        err = d.stderr()[logged:]
        check(f"{cfg}:{line}:" in err,
              f"bad reload ({what}): the log does not name {cfg}:{line}:{tail(err)}")
        p = os.path.join(w, f"after-bad-{k}")
        c.create(p)
        out.wait(ev(p, "create", "r-w"), f"an event after a bad reload ({what}): the old "
                 "config must keep running", daemon=d)
    # The config path replaced by a directory: an error, the old config on.
    os.rename(cfg, cfg + ".away")
    os.mkdir(cfg)
    logged = len(d.stderr())
    i = d.notify.mark()
    d.signal(signal.SIGHUP)
    d.wait_notify("STATUS", start=i, pred=lambda v: "last reload failed" in v)
    err = d.stderr()[logged:]
    check(f"{cfg}: cannot read: a directory" in err,
          f"reload of a directory: the log does not say so:{tail(err)}")
    p = os.path.join(w, "after-dir")
    c.create(p)
    out.wait(ev(p, "create", "r-w"), "an event after the reload of a directory", daemon=d)
    os.rmdir(cfg)
    os.rename(cfg + ".away", cfg)
    # A good reload after bad ones works.
    w2 = t.mkdir("w2")
    reload(d, t, cfg, config_text([rule("r-w", [w], mark="auto", events=["create"]),
                                   rule("r-w2", [w2], mark="auto", events=["create"])],
                                  outputs, ["json"]))
    c.create(os.path.join(w2, "x"))
    out.wait(ev(os.path.join(w2, "x"), "create", "r-w2"), "an event of a rule added by a good "
             "reload after bad ones", daemon=d)


# ---------------------------------------------------------------------------
# sd_notify and signals
# ---------------------------------------------------------------------------

@test
def notify_and_stop(t):
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    cfg = t.write_file("fsnotifyd.conf", config_text(
        [rule("r-w", [w], mark="auto", events=["create"])], outputs, ["json"],
        top="limits = { status_interval = 1; };"))
    d = t.daemon(cfg, watchdog_usec=400000)
    d.wait_ready()
    check(d.notify.find("READY", "1") == d.notify.find("READY"), "READY without =1")
    d.wait_notify("STATUS", pred=lambda v: v.strip() != "", timeout=3)
    # WATCHDOG_USEC=400000: a ping at least every 400 ms (systemd advises
    # half of it); wait for three.
    w0 = d.wait_notify("WATCHDOG", "1", timeout=2)
    w1 = d.wait_notify("WATCHDOG", "1", start=w0 + 1, timeout=2)
    d.wait_notify("WATCHDOG", "1", start=w1 + 1, timeout=2)
    pings = [d.notify.msgs[i][2] for i, _ in d.notify.all("WATCHDOG")]
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    check(max(gaps) < 0.4, f"watchdog pings {['%.3f' % g for g in gaps]} s apart, "
          "WATCHDOG_USEC=400000 asks for less than 0.4 s")
    c = t.child()
    for n in ("a", "b", "c"):
        c.create(os.path.join(w, n))
    out.wait(ev(os.path.join(w, "c"), "create"), "an event", daemon=d)
    # A periodic STATUS line (status_interval = 1) counts what happened:
    # three events reported.
    i = d.notify.mark()
    d.wait_notify("STATUS", start=i, timeout=3)
    d.wait_notify("STATUS", start=i, timeout=3, pred=lambda v: re.search(r"\b3\b", v))
    reload(d, t, cfg, open(cfg).read())
    i = d.notify.mark()
    t0 = time.monotonic()
    d.signal(signal.SIGTERM)
    rc = d.wait_exit(timeout=3)
    el = time.monotonic() - t0
    check(d.notify.find("STOPPING", "1", i) is not None, "no STOPPING=1 after SIGTERM")
    check(rc == 0, f"exit status {rc} after SIGTERM, expected 0")
    check(el < 2, f"SIGTERM took {el:.2f}s to stop the daemon (expected within 2 s)")
