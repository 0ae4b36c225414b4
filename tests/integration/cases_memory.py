# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_memory.py — the daemon's memory is bounded, and the unit's
MemoryMax= fits the bound: in a memory cgroup of the case's own with the
limit systemd/fsnotifyd.service.in sets, the daemon with the default
limits takes a 4-writer storm, 50 live subscribers, one that never reads
and a client that pipelines calls without ever reading its answers; it is
never OOM-killed, its peak stays below the limit, and every event is
either reported or counted in an overflow record. Registered in
common.TESTS.
"""

import json
import os
import re
import select
import socket
import threading
import time

from harness import Skip, check, rule, wait_until
import common
from common import test
from cases_control import Client, control_start, params

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def unit_memory_max():
    """MemoryMax= of the shipped unit, in bytes."""
    path = os.path.join(common.SRCDIR, "systemd", "fsnotifyd.service.in")
    with open(path) as f:
        m = re.search(r"^MemoryMax=(\d+)([KMGT]?)\s*$", f.read(), re.M)
    check(m is not None, f"{path} sets no MemoryMax= of bytes (K, M, G or T)")
    return int(m.group(1)) * UNITS[m.group(2)]


class MemCgroup:
    """A memory cgroup of our own below ours, cgroup v1 or v2, with a
    limit; join() puts the calling process in it."""

    def __init__(self, t, limit):
        self.dir = None
        v1 = v2 = None
        with open("/proc/self/mountinfo") as f:
            for line in f:
                pre, post = line.split(" - ", 1)
                fstype, _src, opts = post.split()[:3]
                mnt = pre.split()[4]
                if fstype == "cgroup" and "memory" in opts.split(","):
                    v1 = mnt
                elif fstype == "cgroup2" and v2 is None:
                    v2 = mnt
        own = {}
        with open("/proc/self/cgroup") as f:
            for line in f:
                _id, ctrl, path = line.rstrip("\n").split(":", 2)
                for c in ctrl.split(",") if ctrl else [""]:
                    own[c] = path
        if v1 and "memory" in own:
            self.v = 1
            base = v1 + own["memory"]
        elif v2 and "" in own:
            self.v = 2
            base = v2 + own[""]
            try:
                with open(os.path.join(base, "cgroup.subtree_control")) as f:
                    if "memory" not in f.read().split():
                        raise Skip("cgroup v2 without the memory controller for our children")
            except OSError as e:
                raise Skip(f"cgroup v2: {e}")
        else:
            raise Skip("no memory cgroup mounted")
        d = os.path.join(base, f"fsn-it-memory-{os.getpid()}")
        try:
            os.mkdir(d)
        except OSError as e:
            raise Skip(f"cannot make a memory cgroup below {base}: {e}")
        self.dir = d
        t.cleanups.append(self.remove)
        self.write("memory.limit_in_bytes" if self.v == 1 else "memory.max", str(limit))
        if self.v == 1:
            try:  # no swap beyond it either
                self.write("memory.memsw.limit_in_bytes", str(limit))
            except OSError:
                pass
        else:
            self.write("memory.swap.max", "0")

    def write(self, name, value):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(value)

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def join(self):
        self.write("cgroup.procs", str(os.getpid()))

    def oom_kills(self):
        text = self.read("memory.oom_control" if self.v == 1 else "memory.events")
        m = re.search(r"^oom_kill (\d+)$", text, re.M)
        return int(m.group(1)) if m else 0

    def usage(self):
        return int(self.read("memory.usage_in_bytes" if self.v == 1 else "memory.current"))

    def peak(self):
        name = "memory.max_usage_in_bytes" if self.v == 1 else "memory.peak"
        try:
            return int(self.read(name))
        except OSError:
            return None

    def remove(self):
        if self.dir is None:
            return
        for _ in range(100):
            try:
                os.rmdir(self.dir)
                return
            except FileNotFoundError:
                return
            except OSError:  # a process still in it: the case's end kills it
                time.sleep(0.05)


def reading_subscriber(sock, stop, counts, i):
    """A Watch subscriber that reads all it gets until stop is set."""
    try:
        c = Client(sock, timeout=1.0)
        c.call("io.fsnotifyd.Watch", {"rule": "r"}, more=True)
        while not stop.is_set():
            try:
                m = c.recv()
            except (socket.timeout, OSError):
                continue
            if m is None:
                break
            counts[i] += 1
        c.close()
    except OSError:
        counts[i] = -1


def pipelining_client(sock, stop, sent):
    """Calls GetStatus again and again and never reads an answer; stops
    when the daemon no longer takes its calls (or hangs up)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(0.5)
    msg = (json.dumps({"method": "io.fsnotifyd.GetStatus", "parameters": {}}) + "\0").encode()
    batch = msg * 64
    try:
        while not stop.is_set():
            try:
                s.sendall(batch)
                sent[0] += 64
            except socket.timeout:
                continue
    except OSError:
        pass
    s.close()


@test
def memory_bounded(t):
    limit = unit_memory_max()
    cg = MemCgroup(t, limit)
    w = t.mkdir("w")
    d, out, cfg, sock = control_start(t, [rule("r", [w], events=["create"])],
                                      preexec=cg.join)
    with open(os.path.join(cg.dir, "cgroup.procs")) as f:
        check(str(d.pid) in f.read().split(), "the daemon is not in the memory cgroup")
    stop = threading.Event()
    counts = [0] * 50
    subs = [threading.Thread(target=reading_subscriber, args=(sock, stop, counts, i), daemon=True)
            for i in range(50)]
    for th in subs:
        th.start()
    wait_until(lambda: params(Client(sock).ask("io.fsnotifyd.GetStatus", {}),
                              "GetStatus")["subscribers"] == 50, "50 subscribers", alive=d,
               timeout=60)
    # one subscriber that never reads, a client that pipelines calls
    silent = Client(sock)
    silent.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    silent.call("io.fsnotifyd.Watch", {"rule": "r"}, more=True)
    sent = [0]
    pipe = threading.Thread(target=pipelining_client, args=(sock, stop, sent), daemon=True)
    pipe.start()
    n = 40000
    writers = [t.child(comm=f"fsnd-w{i}") for i in range(4)]
    for i, c in enumerate(writers):
        c.start("many", path=os.path.join(w, f"g{i}-"), count=n)
    peak = 0
    done = 0
    deadline = time.monotonic() + 600
    while done < len(writers):
        peak = max(peak, cg.usage())
        d.check_alive("the storm")
        check(cg.oom_kills() == 0, "the daemon's cgroup saw an OOM kill")
        check(time.monotonic() < deadline, "the writers did not finish in 600 s")
        done = 0
        for c in writers:
            if select.select([c.r], [], [], 0)[0]:
                done += 1
        time.sleep(0.05)
    for c in writers:
        c.reply()
    last = [os.fsencode(os.path.join(w, f"g{i}-{n - 1:06d}")) for i in range(4)]

    def settled():
        out.poll()
        seen = {r.path for r in out.records if r.kind == "event"} & set(last)
        return seen == set(last) or any(r.kind == "overflow" for r in out.records)
    # the daemon may hold a queue's worth behind a slow output: wait on it
    wait_until(settled, "the writers' last events or an overflow record", alive=d, timeout=300)
    # what the pipelining client caused is bounded too: a few more seconds
    t_end = time.monotonic() + 3
    while time.monotonic() < t_end:
        peak = max(peak, cg.usage())
        time.sleep(0.05)
    stop.set()
    pipe.join(5)
    for th in subs:
        th.join(5)
    d.check_alive("the storm, the subscribers and the clients")
    check(cg.oom_kills() == 0, "the daemon's cgroup saw an OOM kill")
    peak = max(peak, cg.peak() or 0)
    ev_n = out.count(lambda r: r.kind == "event")
    overflows = out.count(lambda r: r.kind == "overflow")
    check(ev_n == 4 * n or overflows > 0,
          f"{ev_n} of {4 * n} events reported and no overflow record: lost silently")
    check(all(x > 0 for x in counts), f"a reading subscriber got nothing: {counts}")
    t.note(f"limit {limit >> 20} MiB, peak {peak >> 20} MiB, {ev_n} events, "
           f"{overflows} overflows, {sent[0]} pipelined calls")
    check(peak < limit, f"peak {peak} bytes reached the limit {limit}")


memory_bounded.timeout = 900
