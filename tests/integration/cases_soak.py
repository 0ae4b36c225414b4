# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_soak.py — the soak: the daemon for FSN_SOAK_SECONDS (default 120;
600 by hand) under everything at once, a steady storm of creates, a
reload every 5 s (by turns SIGHUP and the control socket's Reload), 50
subscribers connecting and leaving, the metrics asked for every second,
and a rule's directory deleted and made again every 10 s. At the end:
not one event of the storm lost (it runs at a pace a plain reader keeps
up with), every reload applied, every deleted directory watched again,
RSS and fd count flat (the last minute's peak against the first's), no
flood of log lines. Prints the figures doc/performance.md quotes.

Not in common.TESTS: run.py --soak runs these (meson's "soak" suite).
"""

import json
import os
import shutil
import signal
import socket
import statistics
import threading
import time

from harness import Fail, check, rule, config_text, wait_until
from common import reload as sighup_reload
from cases_control import Client, params
from cases_metrics import parse_metrics, val

SOAK_TESTS = []


def soak_test(fn):
    SOAK_TESTS.append((fn.__name__.replace("_", "-"), fn))
    return fn


def soak_seconds():
    return int(os.environ.get("FSN_SOAK_SECONDS", "120"))


class FifoReader(threading.Thread):
    """Reads the JSON output from a FIFO (held open for reading and
    writing, so the daemon never finds it without a reader and we never
    see an end): counts the storm's create records, keeps the others."""

    def __init__(self, path):
        super().__init__(daemon=True)
        os.mkfifo(path, 0o600)
        self.fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        self.storm = 0
        self.others = []
        self.bad = []
        self.lock = threading.Lock()
        self.stop = False

    def run(self):
        buf = b""
        while not self.stop:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                try:
                    r = json.loads(line)
                except ValueError:
                    self.bad.append(line[:200])
                    continue
                with self.lock:
                    if r.get("rule") == "storm" and r.get("kind") == "event":
                        self.storm += 1
                    else:
                        self.others.append(r)

    def find(self, pred, start=0):
        with self.lock:
            for i in range(start, len(self.others)):
                if pred(self.others[i]):
                    return i
        return None

    def mark(self):
        with self.lock:
            return len(self.others)


def generator(directory, rate, stop_path, count_path):
    """A forked process: creates (and unlinks) one file every 1/rate s in
    directory until stop_path exists; writes the count to count_path."""
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        n = 0
        t0 = time.monotonic()
        while not os.path.exists(stop_path):
            for _ in range(10):
                p = os.path.join(directory, f"f{n % 1000:03d}")
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644))
                os.unlink(p)
                n += 1
            d = t0 + n / rate - time.monotonic()
            if d > 0:
                time.sleep(d)
        with open(count_path, "w") as f:
            f.write(str(n))
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def churning_subscriber(sock, stop, stats, i):
    """Connects, watches the storm for 0.2 to 2 s, leaves; again."""
    k = 0
    while not stop.is_set():
        k += 1
        try:
            c = Client(sock, timeout=1.0)
            c.call("io.fsnotifyd.Watch", {"rule": "storm"}, more=True)
            until = time.monotonic() + 0.2 + ((i * 7919 + k * 104729) % 1800) / 1000
            while time.monotonic() < until and not stop.is_set():
                try:
                    m = c.recv()
                except socket.timeout:
                    continue
                if m is None:
                    break
                if "error" in m:
                    stats["errors"].append(m["error"])
                    break
                stats["records"] += 1
            c.close()
            stats["sessions"] += 1
        except OSError as e:
            stats["errors"].append(repr(e))
            time.sleep(0.1)


def proc_sample(pid):
    """(RSS in bytes, fds that are not sockets, sockets)."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    fds, socks = [], 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            socks += 1
        else:
            fds.append(f"{fd}:{target}")
    return rss * 1024, len(fds), socks, fds


@soak_test
def soak(t):
    secs = soak_seconds()
    check(secs >= 30, f"FSN_SOAK_SECONDS={secs}: a soak takes at least 30 s")
    rate = int(os.environ.get("FSN_SOAK_RATE", "1000"))
    storm_dir = t.mkdir("storm")
    re_dir = os.path.join(t.fs, "re")
    os.mkdir(re_dir)
    extra = t.mkdir("extra")
    sock = os.path.join(t.mkdir("run"), "control")
    fifo = FifoReader(os.path.join(t.dir, "events.fifo"))
    fifo.start()
    outputs = {"json": {"type": "json", "file": os.path.join(t.dir, "events.fifo")}}
    top = f'control = {{ socket = "{sock}"; }};'
    base = [rule("storm", [storm_dir], events=["create"]),
            rule("re", [re_dir], events=["create"])]
    texts = [config_text(base, outputs, ["json"], top),
             config_text(base + [rule("extra", [extra], events=["create"])], outputs,
                         ["json"], top)]
    cfg = t.write_file("fsnotifyd.conf", texts[0])
    d = t.daemon(cfg)
    d.wait_ready(timeout=60)
    stop_path = os.path.join(t.dir, "stop")
    count_path = os.path.join(t.dir, "count")
    gen = generator(storm_dir, rate, stop_path, count_path)
    stop = threading.Event()
    stats = {"records": 0, "sessions": 0, "errors": []}
    subs = [threading.Thread(target=churning_subscriber, args=(sock, stop, stats, i), daemon=True)
            for i in range(50)]
    for th in subs:
        th.start()
    samples = []  # (t, rss, fds but sockets, sockets)
    reloads = rearms = scrapes = 0
    last_events = -1
    t0 = time.monotonic()
    next_reload, next_rearm = t0 + 5, t0 + 10
    err_lines0 = len(d.stderr().splitlines())
    try:
        while time.monotonic() - t0 < secs:
            now = time.monotonic()
            d.check_alive("the soak")
            samples.append((now - t0, *proc_sample(d.pid)))
            m = params(Client(sock).ask("io.fsnotifyd.GetMetrics", {}), "GetMetrics")
            series, _ = parse_metrics(m["text"])
            ev = val(series, "fsnotifyd_rule_events_total", rule="storm") or 0
            check(ev >= last_events, f"the storm's event counter went back: {last_events} -> {ev}")
            last_events = ev
            scrapes += 1
            if now >= next_reload:
                reloads += 1
                text = texts[reloads % 2]
                if reloads % 2:
                    sighup_reload(d, t, cfg, text, timeout=60)
                else:
                    t.write_file(cfg, text)
                    params(Client(sock, timeout=60).ask("io.fsnotifyd.Reload", {}), "Reload")
                names = [r["name"] for r in params(Client(sock).ask("io.fsnotifyd.ListRules", {}),
                                                   "ListRules")["rules"]]
                check(("extra" in names) == bool(reloads % 2),
                      f"reload {reloads} not applied: rules {names}")
                next_reload += 5
            if now >= next_rearm:
                rearms += 1
                i = fifo.mark()
                shutil.rmtree(re_dir)
                os.mkdir(re_dir)
                wait_until(lambda: fifo.find(lambda r: r.get("kind") == "rearmed"
                                             and r.get("rule") == "re", i) is not None,
                           f"re-arm {rearms} of {re_dir}", timeout=60, alive=d)
                p = os.path.join(re_dir, f"m{rearms}")
                open(p, "w").close()
                wait_until(lambda: fifo.find(lambda r: r.get("kind") == "event"
                                             and r.get("path") == p, i) is not None,
                           f"the event of {p} after re-arm {rearms}", timeout=60, alive=d)
                next_rearm += 10
            time.sleep(max(0.0, 1.0 - (time.monotonic() - now)))
    finally:
        with open(stop_path, "w"):
            pass
        _, status = os.waitpid(gen, 0)
        stop.set()
    for th in subs:
        th.join(5)
    check(os.waitstatus_to_exitcode(status) == 0, "the generator failed")
    with open(count_path) as f:
        n = int(f.read())
    wait_until(lambda: fifo.storm >= n, f"{n} storm records", timeout=120, alive=d)
    d.signal(signal.SIGTERM)
    check(d.wait_exit(timeout=60) == 0, "the daemon did not stop cleanly")
    fifo.stop = True
    check(not fifo.bad, f"{len(fifo.bad)} bad JSON lines; first: {fifo.bad[:1]}")
    lost = [r for r in fifo.others if r.get("kind") in ("overflow", "dropped")]
    check(fifo.storm == n and not lost,
          f"{fifo.storm} of {n} storm events reported; loss records: {lost[:3]}")
    check(not [e for e in stats["errors"] if "SubscriberTooSlow" not in e],
          f"subscriber errors: {stats['errors'][:5]}")
    # flat: after a warm-up (the first reload and re-arm), the last
    # minute against the first (or the two halves of a shorter soak): RSS
    # peaks, the fewest fds that are not sockets (a leak raises that floor;
    # a reload's, a scrape's or a re-arm's passing fd does not), sockets
    # bounded
    warm = 20.0
    span = min(60.0, (secs - warm) / 2)
    first = [s for s in samples if warm <= s[0] < warm + span]
    last = [s for s in samples if s[0] >= secs - span]
    check(first and last, f"{secs} s is too short for a soak")
    rss_first, rss_last = max(s[1] for s in first), max(s[1] for s in last)
    fd_first, fd_last = min(s[2] for s in first), min(s[2] for s in last)
    socks = max(s[3] for s in last)
    lines = len(d.stderr().splitlines()) - err_lines0
    figures = (f"{secs} s at {rate}/s: {n} events, 0 lost; {reloads} reloads, {rearms} re-arms, "
               f"{scrapes} scrapes, {stats['sessions']} subscriber sessions "
               f"({stats['records']} records); RSS peak {rss_first >> 10} KiB first, "
               f"{rss_last >> 10} KiB last; fds (not sockets) at least {fd_first} first, {fd_last} "
               f"last, sockets {socks}; "
               f"{lines} log lines ({lines / secs:.2f}/s); median RSS "
               f"{int(statistics.median(s[1] for s in samples)) >> 10} KiB")
    t.note(figures)
    check(rss_last <= rss_first * 1.10 + (2 << 20), f"RSS grew: {figures}")
    check(fd_last <= fd_first, f"fds grew: {figures}; first "
          f"{min(first, key=lambda s: s[2])[4]}, last {min(last, key=lambda s: s[2])[4]}")
    # 50 subscribers, a scrape and a reload at most, the listening socket,
    # the journal's and sd_notify's
    check(socks <= 60, f"sockets left open: {figures}")
    check(lines <= 4 * (reloads + rearms) + 20, f"log flood: {figures}")


soak.timeout = 3 * 3600
