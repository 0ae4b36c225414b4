# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_scale.py — the integration cases of a server-sized config: 1000
rules of 10 paths each (5 directories, 5 regular files; every 10th rule
recursive), 10 000 paths in all. scale-start-10000-paths: the start
reaches READY=1 (a generous bound: correctness, not timing) while feeding
the watchdog, and the first and the last rule report. scale-reload-keeps-
events-flowing: a reload that gives half of the rules new paths keeps the
unchanged rules' events flowing (each reported once, within 200 ms) and
the watchdog fed, and the changed rules report their new paths only.
scale-signals-during-start: a SIGHUP while loading is a reload after the
start, a SIGTERM while loading a clean stop.

FSND_IT_SCALE_PATHS=200 scales the config down (a multiple of 10; default
10000) to develop the cases against a slow daemon: rule r999 becomes the
last rule, r500..r999 the second half, r750 a recursive rule in it.
Registered in common.TESTS (run.py imports this module last).
"""

import collections
import os
import signal
import time

from harness import Budget, Fail, check, config_text, ev, rule, tail
from common import check_process, test

PER_RULE = 10        # paths per rule: 5 directories, 5 regular files
EVENTS = ["create", "delete", "close_write", "modify"]
BOUND = 60.0         # READY=1 after a start or a reload (s): a correctness bound
WATCHDOG_USEC = 400000
# The pings may be apart at most WATCHDOG_USEC/2, plus this much for the
# jitter of a timer that fires exactly every WATCHDOG_USEC/2 (systemd's
# advice): its gaps are 0.2 s +- 0.5 ms on an idle machine, more on a
# busy one (s).
WATCHDOG_SLACK = 0.02
MAX_LATENCY = 0.2    # creation to the record's time, during a reload (s)
INTERVAL = 0.005     # the stream: one create every 5 ms


def scale_paths():
    v = os.environ.get("FSND_IT_SCALE_PATHS", "10000")
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n < 4 * PER_RULE or n % PER_RULE:
        raise Fail(f"FSND_IT_SCALE_PATHS={v!r}: expected a multiple of {PER_RULE}, at least "
                   f"{4 * PER_RULE}")
    return n


class Scale:
    """The rules r0..r{n-1}, each in its own directory rNNNN/ of t.fs:
    d0..d4 (directories) and f0..f4 (empty files), or with new=True nd0..nd4
    and nf0..nf4 (the paths a reload gives). Every 10th rule is recursive."""

    def __init__(self, t, n_paths):
        self.t = t
        self.n = n_paths // PER_RULE
        self.last = self.n - 1
        self.half = self.n // 2
        # r750 at full scale: three quarters in, recursive like it
        mid = self.n * 3 // 4 // 10 * 10
        self.mid = mid if mid >= self.half else self.n * 3 // 4
        self.outputs, self.out = t.json_setup()
        self.cfg = os.path.join(t.dir, "fsnotifyd.conf")

    def dirs_files(self, i, new=False):
        pre = "n" if new else ""
        top = self.t.path(f"r{i:04d}")
        return ([os.path.join(top, f"{pre}d{k}") for k in range(PER_RULE // 2)],
                [os.path.join(top, f"{pre}f{k}") for k in range(PER_RULE // 2)])

    def paths(self, i, new=False):
        dirs, files = self.dirs_files(i, new)
        return dirs + files

    def create(self, i, new=False):
        dirs, files = self.dirs_files(i, new)
        for p in dirs:
            os.makedirs(p)
        for p in files:
            with open(p, "wb"):
                pass

    def text(self, new_from=None):
        """The config; rules i >= new_from have their new paths."""
        rules = [rule(f"r{i}", self.paths(i, new_from is not None and i >= new_from),
                      recursive=True if i % 10 == 0 else None, events=EVENTS)
                 for i in range(self.n)]
        return config_text(rules, self.outputs, ["json"],
                           top="limits = { max_marks = 100000; };")

    def dir(self, i, k=0, new=False):
        """Directory k of rule i."""
        return self.dirs_files(i, new)[0][k]


def gaps(stamps):
    """(gap, from, to) of consecutive times."""
    return [(b - a, a, b) for a, b in zip(stamps, stamps[1:])]


def check_gaps(pings, t0, what, stretch=1.0):
    """Every gap between consecutive pings (times) is within
    WATCHDOG_USEC/2 (+ WATCHDOG_SLACK), times stretch (harness.Budget:
    how much a busy machine slowed the wall clock over the span); t0 is
    the time the message counts from (the daemon's start)."""
    limit = WATCHDOG_USEC / 2e6
    bad = [g for g in gaps(pings) if g[0] > (limit + WATCHDOG_SLACK) * stretch]
    if bad:
        g = max(bad)
        raise Fail(f"{what}: {len(bad)} watchdog gap(s) longer than WATCHDOG_USEC/2 = "
                   f"{limit:g} s (+{WATCHDOG_SLACK:g} s of jitter, x {stretch:.2f} for a busy "
                   f"machine); the longest {g[0]:.3f} s "
                   f"(from {g[1] - t0:.3f} s to {g[2] - t0:.3f} s after the start)")
    return max((g[0] for g in gaps(pings)), default=0.0)


def wait_ready_after(d, start, timeout, what):
    """READY=1 at an index >= start; on a timeout the failure says how
    long the daemon has been silent on the watchdog."""
    try:
        return d.wait_notify("READY", "1", start=start, timeout=timeout)
    except Fail as e:
        pings = d.notify.stamps("WATCHDOG", "1", start)
        last = max([d.started_at] + d.notify.stamps("WATCHDOG", "1"))
        raise Fail(f"{e} ({what}; {len(pings)} WATCHDOG=1 meanwhile, the last ping or the "
                   f"start {time.time() - last:.1f} s ago)") from None


def start_scale(t, sc, extra_paths=False):
    """Create every path (and the new ones too, with extra_paths), write the
    config, start the daemon with the watchdog and wait for READY=1.
    Returns (daemon, READY's index)."""
    for i in range(sc.n):
        sc.create(i)
        if extra_paths and i >= sc.half:
            sc.create(i, new=True)
    t.write_file(sc.cfg, sc.text())
    d = t.daemon(sc.cfg, watchdog_usec=WATCHDOG_USEC)
    ready = wait_ready_after(d, 0, BOUND, f"the start with {sc.n * PER_RULE} paths")
    ext = d.notify.stamps("EXTEND_TIMEOUT_USEC", None, 0, ready)
    t.note(f"READY=1 {d.notify.msgs[ready][2] - d.started_at:.2f} s after the start "
           f"({sc.n * PER_RULE} paths" + (f", {len(ext)} EXTEND_TIMEOUT_USEC" if ext else "")
           + ")")
    return d, ready


def check_touch(t, sc, d, c, i, name):
    """A file created in a directory of rule i is reported by rule i only:
    its create and close_write, by the child, and nothing else for it."""
    f = os.path.join(sc.dir(i, 1), name)
    c.create(f, data="")
    for e in ("create", "close_write"):
        r = sc.out.wait(ev(f, e, f"r{i}"), f"{e} of {f} (rule r{i})", daemon=d)
        check_process(r, c, f"{e} {f}")
    t.marker(c, sc.out, sc.dir(i, 1), d, rule=f"r{i}")
    recs = [r for r in sc.out.records if r.path == os.fsencode(f)]
    # (one record each, or one with both: fanotify merges a queued event
    # of the same file and process)
    got = sorted((r.rule, r.kind, e) for r in recs for e in r.events)
    want = [(f"r{i}", "event", "close_write"), (f"r{i}", "event", "create")]
    check(got == want, f"the records of {f}: {recs}; expected one create and one close_write "
          f"of rule r{i}, nothing else")


# ---------------------------------------------------------------------------

@test
def scale_start_10000_paths(t):
    # 10 000 paths: READY=1 within a generous bound, the watchdog fed from
    # the process start on (EXTEND_TIMEOUT_USEC is not required: a short
    # start needs none), the first and the last rule report.
    sc = Scale(t, scale_paths())
    busy = Budget(0)
    d, ready = start_scale(t, sc)
    stretch = busy.stretch()
    pings = [d.started_at] + d.notify.stamps("WATCHDOG", "1", 0, ready) + [
        d.notify.msgs[ready][2]]
    t.note(f"{len(pings) - 2} WATCHDOG=1 before READY=1, longest gap "
           f"{max(g[0] for g in gaps(pings)):.3f} s")
    c = t.child(comm="fsnd-scale")
    check_touch(t, sc, d, c, 0, "touched-r0")
    check_touch(t, sc, d, c, sc.last, f"touched-r{sc.last}")
    check_gaps(pings, d.started_at, "from the start to READY=1", stretch)
    err = d.stderr()
    check("max_marks" not in err, f"the daemon hit limits.max_marks:{tail(err)}")


scale_start_10000_paths.timeout = int(BOUND) + 40


@test
def scale_reload_keeps_events_flowing(t):
    # The 10 000-path config, then a reload that gives rules r500..r999
    # new paths (5000 of them) while a child creates a file every 5 ms in
    # a directory of r0 (unchanged) from before the SIGHUP until after the
    # READY=1 that ends the reload: each file reported once, within 200 ms
    # of its creation, the watchdog fed during the reload, and r750
    # reports its new paths and no longer its old ones.
    sc = Scale(t, scale_paths())
    d, _ = start_scale(t, sc, extra_paths=True)
    out = sc.out
    stream = sc.dir(0, 0)
    writer = t.child(comm="fsnd-stream")
    stop = os.path.join(t.dir, "stop-stream")
    writer.start("steady", paths=[os.path.join(stream, "s")], interval=INTERVAL, stop=stop,
                 times=True, limit=int(4 * BOUND / INTERVAL))
    name = lambda k: os.path.join(stream, "s%04d" % k)  # noqa: E731
    out.wait(ev(name(10), "create", "r0"), "the stream's 10th file before the reload",
             daemon=d)
    t.write_file(sc.cfg, sc.text(new_from=sc.half))
    i = d.notify.mark()
    busy = Budget(0)  # (how busy the machine is over the reload: bounds stretch)
    d.signal(signal.SIGHUP)
    rl = d.wait_notify("RELOADING", "1", start=i, timeout=BOUND)
    try:
        ry = wait_ready_after(d, rl + 1, BOUND, "the reload")
    except Fail as e:
        made = len([n for n in os.listdir(stream) if n.startswith("s")])
        pre = os.fsencode(os.path.join(stream, "s"))
        seen = out.count(lambda r: r.rule == "r0" and (r.path or b"").startswith(pre))
        raise Fail(f"{e}; meanwhile the stream created {made} files, {seen} records "
                   "of them") from None
    t_rl, t_ry = d.notify.msgs[rl][2], d.notify.msgs[ry][2]
    # The stream goes on after READY=1: a file that did not exist when
    # READY=1 had been received is created, then reported.
    after = len([n for n in os.listdir(stream) if n.startswith("s")]) + 10
    out.poll()
    out.wait(ev(name(after), "create", "r0"), f"the stream's file {after} (after READY=1)",
             timeout=BOUND, start=len(out.records), daemon=d)
    with open(stop, "w"):
        pass
    res = writer.reply(timeout=10)
    stretch = busy.stretch()
    n, times = res["count"], res["times"]
    poker = t.child(comm="fsnd-poker")
    t.marker(poker, out, stream, d, rule="r0")
    problems = []

    # Every created file: reported for r0 exactly once, within 200 ms.
    first = {}
    creates = collections.Counter()
    for r in out.records:
        if r.kind == "event" and "create" in r.events and r.rule == "r0":
            creates[r.path] += 1
            first.setdefault(r.path, r)
    missing = [k for k in range(n) if creates[os.fsencode(name(k))] == 0]
    doubled = [k for k in range(n) if creates[os.fsencode(name(k))] > 1]
    lat = [(first[p].timestamp - times[k], k) for k in range(n)
           for p in [os.fsencode(name(k))] if p in first]
    during = sum(1 for x in times if t_rl <= x <= t_ry)
    summary = f"{n} files created, {during} of them during the {t_ry - t_rl:.3f} s of the reload"
    if lat:
        worst, wk = max(lat)
        summary += (f"; worst latency {worst * 1000:.1f} ms: {os.path.basename(name(wk))} "
                    f"(created {times[wk] - t_rl:+.3f} s from RELOADING=1)")
    t.note(f"{summary}; the machine's stretch {stretch:.2f}")
    if missing:
        problems.append(f"{len(missing)} not reported for r0 (first: "
                        f"{os.path.basename(name(missing[0]))}, created "
                        f"{times[missing[0]] - t_rl:+.3f} s from RELOADING=1)")
    if doubled:
        problems.append(f"{len(doubled)} reported more than once (first: "
                        f"{os.path.basename(name(doubled[0]))}, "
                        f"{creates[os.fsencode(name(doubled[0]))]} times)")
    slow = [x for x in lat if x[0] > MAX_LATENCY * stretch]
    if slow:
        problems.append(f"{len(slow)} of {n} reported more than "
                        f"{MAX_LATENCY * stretch * 1000:.0f} ms after their creation "
                        f"({MAX_LATENCY * 1000:.0f} ms x {stretch:.2f} for a busy machine)")
    if problems:
        problems = [f"the stream in r0 (unchanged) across the reload: {'; '.join(problems)}; "
                    f"{summary}"]

    # The watchdog during the reload: every gap that overlaps
    # [RELOADING=1, READY=1], up to the first ping after READY=1.
    try:
        d.wait_notify("WATCHDOG", "1", start=ry + 1, timeout=5 * WATCHDOG_USEC / 1e6)
        pings = [d.started_at] + d.notify.stamps("WATCHDOG", "1")
        span = [g for g in gaps(pings) if g[2] >= t_rl and g[1] <= t_ry]
        t.note(f"longest watchdog gap around the reload {max(g[0] for g in span):.3f} s")
        check_gaps([span[0][1]] + [g[2] for g in span], d.started_at, "during the reload",
                   stretch)
    except Fail as e:
        problems.append(f"the watchdog: {e}")

    # r750 (changed): its new paths report, its old ones no longer (the
    # new path's record is the marker, and one in r0 after it).
    m = sc.mid
    old = os.path.join(sc.dir(m, 0), "after-reload")
    new = os.path.join(sc.dir(m, 0, new=True), "after-reload")
    poker.create(old)
    poker.create(new)
    out.wait(ev(new, "create", f"r{m}"), f"create of {new}, a new path of rule r{m}", daemon=d)
    t.marker(poker, out, stream, d, rule="r0")
    bad = [r for r in out.records if r.path == os.fsencode(old)]
    if bad:
        problems.append(f"{old}, an old path of r{m} (removed by the reload), reported: "
                        f"{bad[0]!r}")
    err = d.stderr()
    if "max_marks" in err:
        problems.append(f"the daemon hit limits.max_marks:{tail(err)}")
    if problems:
        raise Fail("\n".join(problems))


scale_reload_keeps_events_flowing.timeout = 3 * int(BOUND) + 40


@test
def scale_signals_during_start(t):
    # Signals while the 10 000-path config is being loaded: a SIGUSR1 does
    # no harm, a SIGHUP is remembered (one reload follows READY=1; the daemon neither dies nor
    # loses it), a SIGTERM stops at once and cleanly (exit 0, what was
    # placed removed). On a machine fast enough to finish the start before
    # the signal arrives the same must hold, so the checks are the same;
    # the note says which it was.
    sc = Scale(t, scale_paths())
    for i in range(sc.n):
        sc.create(i)
    t.write_file(sc.cfg, sc.text())
    starting = lambda v: v.startswith("Starting")  # noqa: E731

    d = t.daemon(sc.cfg, watchdog_usec=WATCHDOG_USEC)
    st = d.wait_notify("STATUS", None, timeout=BOUND, pred=starting)
    d.signal(signal.SIGUSR1)  # reopen outputs: nothing is open yet, nothing to do
    d.signal(signal.SIGHUP)
    ready = wait_ready_after(d, st + 1, BOUND, "the start")
    rl = d.wait_notify("RELOADING", "1", start=ready + 1, timeout=BOUND)
    wait_ready_after(d, rl + 1, BOUND, "the reload the SIGHUP asked for")
    check(len(d.notify.all("RELOADING", st)) == 1,
          f"one SIGHUP, {len(d.notify.all('RELOADING', st))} reloads")
    during = "while starting: it follows" in d.stderr()
    c = t.child(comm="fsnd-scale")
    check_touch(t, sc, d, c, 0, "after-hup")
    d.signal(signal.SIGTERM)
    check(d.wait_exit(timeout=BOUND) == 0, f"exit status after SIGTERM:{tail(d.stderr())}")

    d2 = t.daemon(sc.cfg, name="stopped")
    st = d2.wait_notify("STATUS", None, timeout=BOUND, pred=starting)
    t0 = time.monotonic()
    d2.signal(signal.SIGTERM)
    rc = d2.wait_exit(timeout=BOUND)
    took = time.monotonic() - t0
    err = d2.stderr()
    check(rc == 0, f"SIGTERM during the start: exit status {rc}:{tail(err)}")
    stopped_early = "stopped (Terminated) while starting" in err
    check(stopped_early or "stopped (Terminated):" in err,
          f"SIGTERM during the start: no stop message:{tail(err)}")
    check(not d2.notify.find("READY", "1") if stopped_early else True,
          "READY=1 after a start that was stopped")
    t.note(f"SIGHUP {'during' if during else 'after'} the start; SIGTERM "
           f"{'during' if stopped_early else 'after'} the start, exit 0 {took:.3f} s later")


scale_signals_during_start.timeout = 4 * int(BOUND) + 40
