# SPDX-License-Identifier: GPL-2.0-or-later
"""
harness.py — the machinery of the integration suite: a private tmpfs per
test, the daemon under test with a NOTIFY_SOCKET this process owns, a
reader of its JSON lines output, child processes that perform file
operations with a chosen comm/uid (so the reported pid, comm and uid can be
checked), config text builders, and bounded waits. Python standard library
only. Every wait has a deadline; nothing sleeps to synchronise.
"""

import base64
import calendar
import ctypes
import datetime
import errno
import json
import os
import random
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import time

# Default bound for one wait (seconds). Generous: a wait normally ends in
# milliseconds, the bound only matters when the daemon is broken.
WAIT = 5.0

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
MNT_DETACH = 2
# struct timespec receive timestamps (asm-generic/socket.h; not in Python's socket)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
MS_BIND = 4096
PR_SET_CHILD_SUBREAPER = 36


class Fail(Exception):
    """A test assertion failed."""


class Skip(Exception):
    """The test cannot run here (the reason says why)."""


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def b(path):
    """A path as bytes."""
    return os.fsencode(path)


def mount(source, target, fstype, flags=0, data=None):
    r = _libc.mount(b(source) if source else None, b(target), b(fstype) if fstype else None,
                    flags, data.encode() if data else None)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount {source} on {target}: {os.strerror(e)}")


def umount(target):
    if _libc.umount2(b(target), MNT_DETACH) < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"umount {target}: {os.strerror(e)}")


def set_child_subreaper():
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def cpu_stalled_usec():
    """Microseconds in which some task waited for a CPU since boot
    (/proc/pressure/cpu, "some" total), or None without PSI."""
    try:
        with open("/proc/pressure/cpu") as f:
            for line in f:
                if line.startswith("some "):
                    return int(line.rsplit("total=", 1)[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


class Budget:
    """A bound of `seconds` of the machine's attention, for waits that
    must hold on a busy machine: wall time minus the time in which some
    task waited for a CPU (pressure stall information), and never more
    than STRETCH times `seconds` of wall time. On a quiet machine it is
    the wall clock; with a CPU hog on every core (a task always waiting)
    a wait of 5 s may last up to 50 s. What a test waits for is progress
    (an event, a state); the budget only bounds a daemon that is broken."""
    STRETCH = 10

    def __init__(self, seconds):
        self.seconds = seconds
        self.t0 = time.monotonic()
        self.p0 = cpu_stalled_usec()

    def used(self):
        """Seconds of attention spent so far."""
        wall = time.monotonic() - self.t0
        p = cpu_stalled_usec() if self.p0 is not None else None
        stalled = (p - self.p0) / 1e6 if p is not None else 0.0
        return max(wall - stalled, wall / self.STRETCH)

    def left(self):
        """Seconds of attention left (0 when expired): no wait ends
        sooner in wall time."""
        return max(0.0, self.seconds - self.used())

    def expired(self):
        return self.left() <= 0.0

    def wall(self):
        return time.monotonic() - self.t0

    def stretch(self):
        """How much slower than a quiet machine's the wall clock ran since
        the start (wall time / attention: 1 on a quiet machine, at most
        STRETCH): a bound on how quickly something happens, measured in
        wall time over that span, is multiplied by it."""
        wall = self.wall()
        return min(self.STRETCH, max(1.0, wall / max(self.used(), 1e-6))) if wall > 0 else 1.0


def wait_until(fn, what, timeout=WAIT, alive=None, every=0.02):
    """Poll fn() until it returns a true value (returned), or fail after
    timeout seconds of the machine's attention (Budget). alive: a Daemon
    that must keep running meanwhile. every: the longest pause between two
    calls (longer for an fn that costs, so that polling does not take the
    CPU from what it waits for)."""
    budget = Budget(timeout)
    delay = min(0.002, every)
    while True:
        v = fn()
        if v:
            return v
        if alive is not None:
            alive.check_alive(what)
        if budget.expired():
            raise Fail(f"timed out after {timeout:g}s ({budget.wall():.1f}s of wall time) "
                       f"waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 2, every)


# ---------------------------------------------------------------------------
# libconfig text
# ---------------------------------------------------------------------------

def lc(v):
    """A Python value as libconfig text: str, bool, int, list (array),
    tuple (list) or dict (group)."""
    if isinstance(v, dict):
        return group(**v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (str, bytes)):
        raw = v if isinstance(v, bytes) else v.encode()
        out = []
        for c in raw:
            if c == 0x22:
                out.append('\\"')
            elif c == 0x5c:
                out.append("\\\\")
            elif c < 0x20 or c >= 0x7f:
                out.append("\\x%02x" % c)
            else:
                out.append(chr(c))
        return '"' + "".join(out) + '"'
    if isinstance(v, list):
        return "[" + ", ".join(lc(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(lc(x) for x in v) + ")"
    raise TypeError(f"no libconfig form for {v!r}")


def group(**kw):
    """One group on one line: { key = value; ... }. Keys with a value of
    None are left out; '_' in a key stays '_'."""
    return "{ " + " ".join(f"{k} = {lc(v)};" for k, v in kw.items() if v is not None) + " }"


def rule(name, paths, **kw):
    """A rule group on one line."""
    return group(name=name, paths=list(paths), **kw)


def config_text(rules, outputs, default_outputs=None, top=""):
    """A whole config: outputs is {name: {key: value}}, rules a list of
    rule() strings (one per line), top extra global lines."""
    lines = ["# fsnotifyd integration test config"]
    if top:
        lines.append(top.rstrip("\n"))
    if default_outputs is not None:
        lines.append(f"outputs = {lc(list(default_outputs))};")
    lines.append("output = {")
    for name, o in outputs.items():
        lines.append(f"  {name} = {group(**o)};")
    lines.append("};")
    lines.append("rules = (")
    lines.append(",\n".join("  " + r for r in rules))
    lines.append(");")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# The NOTIFY_SOCKET end
# ---------------------------------------------------------------------------

class Notify:
    """A unix datagram socket the daemon's sd_notify() writes to. Every
    message is split into its KEY=VALUE lines; self.msgs holds them all in
    arrival order as (key, value, time): the kernel's receive timestamp
    (SO_TIMESTAMPNS, CLOCK_REALTIME seconds), so gaps between messages are
    exact however late the test reads them."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            pass  # then the time of reading
        self.sock.bind(path)
        self.sock.setblocking(False)
        self.msgs = []

    def poll(self):
        while True:
            try:
                data, anc, _, _ = self.sock.recvmsg(65536, 256)
            except BlockingIOError:
                return
            when = time.time()
            for level, typ, val in anc:
                if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("@ll", val[:struct.calcsize("@ll")])
                    when = sec + nsec / 1e9
            for line in data.decode("utf-8", "replace").split("\n"):
                if line:
                    k, _, v = line.partition("=")
                    self.msgs.append((k, v, when))

    def mark(self):
        """The index the next message will have."""
        self.poll()
        return len(self.msgs)

    def find(self, key, value=None, start=0, pred=None):
        """Index of the first message key[=value] at index >= start, or None."""
        self.poll()
        for i in range(start, len(self.msgs)):
            k, v, _ = self.msgs[i]
            if k == key and (value is None or v == value) and (pred is None or pred(v)):
                return i
        return None

    def all(self, key, start=0):
        self.poll()
        return [(i, v) for i, (k, v, _) in enumerate(self.msgs) if k == key and i >= start]

    def stamps(self, key, value=None, start=0, end=None):
        """Receive times of the messages key[=value] with index in
        [start, end) (end None: all received so far)."""
        self.poll()
        return [w for k, v, w in self.msgs[start:end]
                if k == key and (value is None or v == value)]

    def close(self):
        self.sock.close()


# ---------------------------------------------------------------------------
# JSON lines output
# ---------------------------------------------------------------------------

RFC3339_USEC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
# What must never be raw in a JSON line or on a terminal (shared/escape.h):
# C0 and C1 controls, DEL, U+2028 U+2029 (a line end for JavaScript) and
# the bidirectional controls.
RAW_STEERING = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e"
                          "\u2066-\u2069]")


class Record:
    """One parsed JSON line of the daemon's output."""

    def __init__(self, raw, obj):
        self.raw = raw  # the line's bytes, without the '\n'
        self.obj = obj

    def __getitem__(self, k):
        return self.obj[k]

    def get(self, k, d=None):
        return self.obj.get(k, d)

    @property
    def kind(self):
        return self.obj.get("kind")

    @property
    def rule(self):
        return self.obj.get("rule")

    @property
    def events(self):
        return set(self.obj.get("events") or [])

    def bytes_of(self, key):
        """The exact bytes of a path field (key, e.g. "path" or "old_path":
        key + "_b64" when present), or None."""
        if self.obj.get(key + "_b64") is not None:
            return base64.b64decode(self.obj[key + "_b64"])
        p = self.obj.get(key)
        return None if not isinstance(p, str) else p.encode("utf-8", "surrogatepass")

    @property
    def timestamp(self):
        """The record's time field as seconds since the epoch (float)."""
        t = datetime.datetime.strptime(self.obj["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
        return t.replace(tzinfo=datetime.timezone.utc).timestamp()

    @property
    def path(self):
        """The path's exact bytes (path_b64 when present), or None."""
        return self.bytes_of("path")

    @property
    def old_path(self):
        """The old path's exact bytes (old_path_b64 when present), or None."""
        return self.bytes_of("old_path")

    def __repr__(self):
        return self.raw.decode("utf-8", "replace")


KINDS = ("event", "overflow", "dropped", "decision", "stats", "rescan", "gone", "unmounted",
         "rearmed")

# The record contract: doc/record.schema.json, checked with python3-jsonschema
# (Debian 12: 4.10). Validating costs about half a millisecond a record, and
# the scale cases write hundreds of thousands: records are validated once
# per skeleton, the record with every value the schema constrains only by
# type, minimum or pattern replaced by a representative that meets exactly
# the same constraints (see _skeleton()). A constraint added to the schema
# on such a value (a path's length...) must be added to _skeleton() too.
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "doc",
                           "record.schema.json")
try:
    import jsonschema
except ImportError:  # pragma: no cover (install-deps --tests installs it)
    jsonschema = None
_FREE_TEXT = ("rule", "path", "old_path", "comm", "exe", "mount", "host")
_ID128 = re.compile(r"^[0-9a-f]{32}$")
_validator = None
_verdicts = {}


def _skeleton(obj):
    """obj with free text as "x", ids and times as one valid value, and
    counts as 0, 1 or 2 (the schema's minimums are 0 and 1)."""
    sk = {}
    for k, v in obj.items():
        if k in _FREE_TEXT and isinstance(v, str):
            v = "x"
        elif k in ("machine_id", "boot_id", "stream") and isinstance(v, str) and _ID128.match(v):
            v = "0" * 32
        elif k == "time" and isinstance(v, str) and RFC3339_USEC.match(v):
            v = "2000-01-01T00:00:00.000000Z"
        elif isinstance(v, int) and not isinstance(v, bool) and v > 2:
            v = 2
        sk[k] = v
    return json.dumps(sk, sort_keys=True)


def schema_problems(obj):
    """The schema's complaints about one decoded record (empty: it follows
    doc/record.schema.json)."""
    global _validator
    if jsonschema is None:
        return ["python3-jsonschema is not installed (tools/install-deps --tests): "
                "cannot check the record contract"]
    if _validator is None:
        with open(SCHEMA_PATH) as f:
            schema = json.load(f)
        cls = jsonschema.Draft202012Validator
        cls.check_schema(schema)
        _validator = cls(schema)
    key = _skeleton(obj)
    got = _verdicts.get(key)
    if got is None:
        got = [f"{'/'.join(str(p) for p in e.absolute_path) or 'record'}: {e.message}"
               for e in _validator.iter_errors(obj)]
        if len(_verdicts) < 100000:
            _verdicts[key] = got
    return got


def validate_record(obj, stream=False):
    """Problems with one decoded JSON record, as a list of strings (empty:
    the record follows the contract: doc/record.schema.json, and what a
    schema cannot say). stream: a json output's line (a stream and its seq)."""
    if not isinstance(obj, dict):
        return ["not a JSON object"]
    bad = schema_problems(obj)
    if stream and "stream" not in obj:
        bad.append("a json output's line without a stream and seq")
    for k in ("rule", "path", "old_path", "comm", "exe", "mount", "host"):
        v = obj.get(k)
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                bad.append(f"{k} has a lone surrogate escape (not Unicode text)")
    for p in ("path", "old_path", "exe", "mount"):
        b64 = obj.get(p + "_b64")
        if isinstance(b64, str):
            try:
                raw = base64.b64decode(b64, validate=True)
            except ValueError:
                continue  # (the schema says so)
            try:
                raw.decode("utf-8")
                bad.append(f"{p}_b64 present although the path is valid UTF-8")
            except UnicodeDecodeError:
                pass
    if obj.get("kind") == "stats":
        lat = [obj.get("latency_p50_us"), obj.get("latency_p99_us")]
        if all(isinstance(x, int) for x in lat) and lat[0] > lat[1]:
            bad.append(f"latency_p50_us {lat[0]} > latency_p99_us {lat[1]}")
    return bad


# The errnos a permission rule may answer with (FAN_DENY_ERRNO, Linux 6.14+).
DENY_ERRNOS = ("EIO", "EPERM", "EBUSY", "ETXTBSY", "EAGAIN", "ENOSPC", "EDQUOT")


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


class JsonLines:
    """Reads the JSON lines file the daemon appends to. Every complete line
    must be valid UTF-8 JSON following the record contract; a line that is
    not is kept in self.errors (the runner fails the test for it). The
    lines of each stream must number on without a gap, but for the records
    the daemon itself says it dropped (a "dropped" line of no rule):
    gap_problems(). A line a kill cut short is excused once: killed()."""

    def __init__(self, path, read=None):
        self.path = path
        self.read = read  # read(path, offset) -> bytes from offset, None: no file
        self.offset = 0
        self.partial = b""
        self.records = []
        self.errors = []
        self.streams = {}  # stream -> [last seq, missing numbers, dropped counted]
        self.cut = None  # the line a kill cut short (killed()), if any
        self.cuts = []   # ... seen ended, as it was cut

    def _number(self, obj, line):
        st = self.streams.setdefault(obj.get("stream"), [None, 0, 0])
        seq = obj.get("seq")
        if not isinstance(seq, int):
            return
        if st[0] is not None and seq <= st[0]:
            self.errors.append(f"{self.path}: seq {seq} after {st[0]} in its stream: {line!r}")
        elif st[0] is not None:
            st[1] += seq - st[0] - 1
        st[0] = seq
        if obj.get("kind") == "dropped" and obj.get("rule") is None:
            st[2] += obj.get("count", 0)

    def killed(self):
        """The daemon writing this file was killed (SIGKILL): the line it
        was writing may be cut short (a write spanning pages stops at one),
        and its next start ends that line before its first record. That
        line, exactly as the kill left it, is then not an error; any other
        bad line still is."""
        self.poll()
        self.cut = self.partial or None

    def gap_problems(self):
        """Streams with more numbers missing than their dropped lines count."""
        self.poll()
        return [f"{self.path}: stream {k}: {v[1]} line(s) missing from the numbering, "
                f"{v[2]} said dropped" for k, v in self.streams.items() if v[1] > v[2]]

    def poll(self):
        if self.read is not None:
            data = self.read(self.path, self.offset)
            if data is None:
                return
        else:
            try:
                with open(self.path, "rb") as f:
                    f.seek(self.offset)
                    data = f.read()
            except FileNotFoundError:
                return
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            if self.cut is not None and line == self.cut:
                self.cuts.append(line)
                self.cut = None
                continue
            try:
                text = line.decode("utf-8")
                obj = json.loads(text, parse_constant=_no_constant)
            except (UnicodeDecodeError, ValueError) as e:
                self.errors.append(f"{self.path}: invalid JSON line {line!r}: {e}")
                continue
            if RAW_STEERING.search(text):
                self.errors.append(f"{self.path}: a raw control, line separator or "
                                   f"bidirectional control in {line!r}")
            bad = validate_record(obj, stream=True)
            if bad:
                self.errors.append(f"{self.path}: {'; '.join(bad)}: {line!r}")
            elif isinstance(obj, dict):
                self._number(obj, line)
            self.records.append(Record(line, obj))

    def find(self, pred, start=0):
        self.poll()
        for i in range(start, len(self.records)):
            if pred(self.records[i]):
                return i
        return None

    def count(self, pred):
        self.poll()
        return sum(1 for r in self.records if pred(r))

    def wait(self, pred, what, timeout=WAIT, start=0, daemon=None):
        """Wait for a record matching pred; returns it."""
        i = wait_until(lambda: (lambda j: j + 1 if j is not None else None)(
            self.find(pred, start)), what, timeout, daemon)
        return self.records[i - 1]

    def wait_index(self, pred, what, timeout=WAIT, start=0, daemon=None):
        return wait_until(lambda: (lambda j: j + 1 if j is not None else None)(
            self.find(pred, start)), what, timeout, daemon) - 1


def stat_attrs(path):
    """What stat(1) says of path, as a record's attrs would (the times as
    nanoseconds since the epoch)."""
    rc, so, se = run_cmd(["stat", "-c", "%F|%a|%u|%g|%s|%.9Y|%.9Z|%i|%h", path])
    check(rc == 0, f"stat {path}: {se}")
    f = so.strip().split("|")
    types = {"regular file": "file", "regular empty file": "file", "directory": "directory",
             "symbolic link": "symlink"}
    ns = lambda x: int(x.replace(".", ""))  # noqa: E731
    return {"type": types.get(f[0], f[0]), "mode": "%04o" % int(f[1], 8), "uid": int(f[2]),
            "gid": int(f[3]), "size": int(f[4]), "mtime": ns(f[5]), "ctime": ns(f[6]),
            "ino": int(f[7]), "nlink": int(f[8])}


def sha256sum(path):
    """What sha256sum(1) says of path: (hex digest, size)."""
    rc, so, se = run_cmd(["sha256sum", "--", path])
    check(rc == 0, f"sha256sum {path}: {se}")
    return so.split()[0], os.stat(path).st_size


def record_attrs(a):
    """A record's attrs object with its times as nanoseconds since the
    epoch (None stays None)."""
    if a is None:
        return None

    def ns(s):
        sec, frac = s.rstrip("Z").split(".")
        t = time.strptime(sec, "%Y-%m-%dT%H:%M:%S")
        return int(calendar.timegm(t)) * 10**9 + int(frac)
    return {**a, "mtime": ns(a["mtime"]), "ctime": ns(a["ctime"])}


def ev(path, event=None, rule=None):
    """A predicate: an event record for path (bytes or str), having event in
    its events, from rule."""
    pb = b(path)

    def pred(r):
        return (r.kind == "event" and r.path == pb and (event is None or event in r.events)
                and (rule is None or r.rule == rule))
    return pred


# ---------------------------------------------------------------------------
# Child processes doing file operations
# ---------------------------------------------------------------------------

def _do(op):
    """Perform one operation (in the child)."""
    kind = op["op"]
    p = lambda k="path": base64.b64decode(op[k])  # noqa: E731
    if kind == "create":
        fd = os.open(p(), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        if op.get("data"):
            os.write(fd, op["data"].encode())
        os.close(fd)
    elif kind == "write":
        fd = os.open(p(), os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        os.write(fd, op.get("data", "x").encode())
        os.close(fd)
    elif kind == "read":
        fd = os.open(p(), os.O_RDONLY | os.O_CLOEXEC)
        os.read(fd, 4096)
        os.close(fd)
    elif kind == "open":
        # opened (O_RDONLY) and kept until the child ends: its fd number
        return os.open(p(), os.O_RDONLY | os.O_CLOEXEC)
    elif kind == "mkdir":
        os.mkdir(p(), 0o755)
    elif kind == "unlink":
        os.unlink(p())
    elif kind == "rmdir":
        os.rmdir(p())
    elif kind == "rename":
        os.rename(p(), p("to"))
    elif kind == "symlink":
        os.symlink(p("to"), p())  # path: the link, to: what it points to
    elif kind == "chmod":
        os.chmod(p(), op["mode"])
    elif kind == "many":
        # count files prefix%06d, created (and closed) as fast as possible
        pre = p()
        for i in range(op["count"]):
            os.close(os.open(pre + b"%06d" % i, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
    elif kind == "try":
        # One access that a permission rule may deny: open (O_RDONLY),
        # read (open, then one read()) or exec (execve in a forked
        # process). The outcome is returned, not raised: {"pid": the
        # process that did it, "step": where it failed or None, "err": the
        # errno name or None, "t0"/"t1": CLOCK_MONOTONIC around it}.
        path = p()
        res = {"pid": os.getpid(), "step": None, "err": None, "t0": time.monotonic()}
        if op.get("how") == "exec":
            res.update(_try_exec(path))
        else:
            step = "open"
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                try:
                    if op.get("how") == "read":
                        step = "read"
                        os.read(fd, 4096)
                finally:
                    os.close(fd)
            except OSError as e:
                res["step"], res["err"] = step, errno.errorcode.get(e.errno, str(e.errno))
        res["t1"] = time.monotonic()
        return res
    elif kind == "steady":
        # files prefix%04d for each prefix, one round every interval
        # seconds (a steady pace for the reload tests: pacing, not
        # synchronisation) until the file stop exists or limit rounds
        # (default 10000) are done; returns the count of rounds, or with
        # times: {"count": rounds, "times": [time.time() just before each
        # round's first create]} (CLOCK_REALTIME, the clock of the records'
        # time and of the notify timestamps).
        pres = [base64.b64decode(x) for x in op["paths"]]
        stop = p("stop")
        limit = op.get("limit", 10000)
        times = [] if op.get("times") else None
        t0 = time.monotonic()
        i = 0
        while not os.path.exists(stop) and i < limit:
            if times is not None:
                times.append(time.time())
            for pre in pres:
                os.close(os.open(pre + b"%04d" % i, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC,
                                 0o644))
            i += 1
            d = t0 + i * op["interval"] - time.monotonic()
            if d > 0:
                time.sleep(d)
        return i if times is None else {"count": i, "times": times}
    else:
        raise ValueError(f"unknown op {kind}")


def _try_exec(path):
    """execve(path) in a forked process (in the child): its pid and where
    it failed. The exec error comes back through a close-on-exec pipe."""
    r, w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.execv(path, [path])
        except OSError as e:
            os.write(w, str(e.errno).encode())
        finally:
            os._exit(127)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 64)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if data:
        e = int(data)
        return {"pid": pid, "step": "exec", "err": errno.errorcode.get(e, str(e))}
    if os.waitstatus_to_exitcode(status) != 0:
        return {"pid": pid, "step": "run", "err": f"exit status {status:#x}"}
    return {"pid": pid}


def outcome(res):
    """A "try" result as text: "ok", or "STEP: ERRNO" ("open: EPERM")."""
    return "ok" if res.get("err") is None else f"{res['step']}: {res['err']}"


def blocked_in_fanotify(pid):
    """pid (or "pid/task/tid") waits for the answer to a permission event:
    the kernel holds it in a killable sleep (state D) in fanotify's wait
    (wchan, when shown)."""
    if proc_state(pid) != "D":
        return False
    try:
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read().strip()
    except OSError:
        return True
    return wchan in ("", "0") or "fanotify" in wchan


_PTRACE_DETACH, _PTRACE_SEIZE, _PTRACE_INTERRUPT, _WALL = 17, 0x4206, 0x4207, 0x40000000
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
_libc.ptrace.restype = ctypes.c_long


def thread_of(pid, comm, timeout=WAIT):
    """The id of pid's thread named comm (waited for)."""
    def find():
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    if f.read().strip() == comm:
                        return int(tid)
            except OSError:
                pass
        return None
    return wait_until(find, f"process {pid}'s thread {comm}", timeout)


class ThreadStopped:
    """One thread of a process held still while the others run: a context
    manager that seizes it with ptrace and interrupts it (it stops where
    it is, in a system call or not), and lets it go at the end. For a race
    that a busy machine makes (a thread that does not run while others
    do) made every time."""

    def __init__(self, tid):
        self.tid = tid

    def __enter__(self):
        for req in (_PTRACE_SEIZE, _PTRACE_INTERRUPT):
            if _libc.ptrace(req, self.tid, None, None) < 0:
                e = ctypes.get_errno()
                if req == _PTRACE_INTERRUPT:
                    _libc.ptrace(_PTRACE_DETACH, self.tid, None, None)
                raise Skip(f"ptrace of thread {self.tid}: {os.strerror(e)}")
        _, status = os.waitpid(self.tid, _WALL)
        if not os.WIFSTOPPED(status):
            raise Fail(f"thread {self.tid} did not stop: wait status {status:#x}")
        return self

    def __exit__(self, *exc):
        if _libc.ptrace(_PTRACE_DETACH, self.tid, None, None) < 0:
            raise Fail(f"ptrace detach of thread {self.tid}: "
                       f"{os.strerror(ctypes.get_errno())}")


def _enc(x):
    return base64.b64encode(b(x)).decode()


class Child:
    """A forked process that performs file operations on request. It sets
    its comm (and optionally a mount namespace of its own, its audit login
    uid, then uid/gid) first, and stays alive until closed,
    so the daemon can still read its /proc entry when it reports the event
    (the comm of a process that is gone is unknown)."""

    def __init__(self, t, comm="fsnd-it-child", uid=None, gid=None, loginuid=None,
                 own_mntns=False):
        self.comm = comm
        self.uid = uid if uid is not None else 0
        r1, w1 = os.pipe2(os.O_CLOEXEC)
        r2, w2 = os.pipe2(os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(w1)
                os.close(r2)
                with open("/proc/self/comm", "wb") as f:
                    f.write(comm.encode() if isinstance(comm, str) else comm)
                if own_mntns and _libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
                    raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
                if loginuid is not None:
                    # as a login would (pam_loginuid): a new audit session;
                    # refused where the kernel keeps the login uid
                    # immutable (the caller reads /proc/PID/loginuid)
                    try:
                        with open("/proc/self/loginuid", "w") as f:
                            f.write(str(loginuid))
                    except OSError:
                        pass
                if uid is not None:
                    os.setgroups([])
                    g = gid if gid is not None else uid
                    os.setresgid(g, g, g)
                    os.setresuid(uid, uid, uid)
                rf = os.fdopen(r1, "rb")
                for line in rf:
                    try:
                        v = _do(json.loads(line))
                        reply = b"ok\n" if v is None else f"ok {json.dumps(v)}\n".encode()
                    except Exception as e:  # noqa: BLE001 — reported to the parent
                        reply = f"error {e!r}\n".encode()
                    os.write(w2, reply)
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        os.close(r1)
        os.close(w2)
        self.pid = pid
        self.w = w1
        self.r = os.fdopen(r2, "rb")
        t.children.append(self)

    def do(self, op, timeout=30.0, **kw):
        """Perform op in the child and wait until it is done."""
        self.start(op, **kw)
        return self.reply(timeout)

    def start(self, op, **kw):
        """Start op in the child; reply() waits for its end. Paths (path,
        to, paths) may be str or bytes."""
        msg = {"op": op}
        for k, v in kw.items():
            if k in ("path", "to", "stop"):
                v = _enc(v)
            elif k in ("paths",):
                v = [_enc(x) for x in v]
            msg[k] = v
        os.write(self.w, (json.dumps(msg) + "\n").encode())

    def reply(self, timeout=30.0):
        budget = Budget(timeout)
        while True:
            rl, _, _ = select.select([self.r], [], [], max(budget.left(), 0.05))
            if rl:
                break
            if budget.expired():
                raise Fail(f"child {self.pid} did not finish its operation in {timeout}s "
                           f"({budget.wall():.1f}s of wall time)")
        line = self.r.readline()
        if not line.startswith(b"ok"):
            raise Fail(f"child {self.pid} ({self.comm}): {line.decode(errors='replace').strip()}")
        v = line[2:].strip()
        return json.loads(v) if v else None

    def wait_blocked(self, what=None, timeout=WAIT, daemon=None):
        """Wait until the child's current operation (start()ed) is blocked
        waiting for a permission answer."""
        wait_until(lambda: blocked_in_fanotify(self.pid),
                   what or f"child {self.pid} to block in a permission event", timeout, daemon)

    def create(self, path, data="hello\n"):
        return self.do("create", path=path, data=data)

    def close(self):
        if self.pid is None:
            return
        try:
            os.close(self.w)
        except OSError:
            pass
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.r.close()
        self.pid = None


# ---------------------------------------------------------------------------
# The daemon
# ---------------------------------------------------------------------------

def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    return data[data.rindex(b")") + 2:].split()[0].decode()


class Daemon:
    """fsnotifyd started on a config with a NOTIFY_SOCKET of our own; its
    stdout and stderr go to files in the test directory."""

    def __init__(self, t, config, args=(), env=None, watchdog_usec=None, name="daemon",
                 preexec=None):
        self.t = t
        self.name = name
        n = len(t.daemons)
        self.notify = Notify(os.path.join(t.dir, f"notify{n}.sock"))
        self.stdout_path = os.path.join(t.dir, f"{name}{n}.stdout")
        self.stderr_path = os.path.join(t.dir, f"{name}{n}.stderr")
        e = {k: v for k, v in os.environ.items()
             if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
                          "LISTEN_PID", "JOURNAL_STREAM", "INVOCATION_ID")}
        e["NOTIFY_SOCKET"] = self.notify.path
        if watchdog_usec:
            e["WATCHDOG_USEC"] = str(watchdog_usec)
        if env:
            e.update(env)
        argv = [t.binary, "--config", config, *args]
        # CLOCK_REALTIME just before the start (the clock of the notify
        # timestamps): "the first watchdog ping within N s of the start"
        self.started_at = time.time()
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                         env=e, cwd=t.dir, close_fds=True, preexec_fn=preexec)
        self.pid = self.proc.pid
        self.started = time.monotonic()
        t.daemons.append(self)

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def stdout(self):
        try:
            with open(self.stdout_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def check_alive(self, what="the daemon"):
        """Fail if the daemon has exited. Also reads its NOTIFY_SOCKET: at
        net.unix.max_dgram_qlen (10) unread datagrams, sd_notify() blocks
        the daemon (a watchdog ping every 0.2 s fills that in 2 s), so every
        wait for the daemon (daemon=/alive=) keeps the queue empty."""
        self.notify.poll()
        rc = self.proc.poll()
        if rc is not None:
            err = self.stderr().strip()
            last = err.split("\n")[-1] if err else "(nothing on stderr)"
            raise Fail(f"the daemon exited (status {rc}) while waiting for {what}: {last}"
                       f"\nstderr:{tail(err)}")

    def wait_notify(self, key, value=None, start=0, timeout=WAIT, pred=None):
        """Wait for key[=value] on the notify socket at index >= start;
        returns its index."""
        what = f"{key}={value if value is not None else '...'} on the NOTIFY_SOCKET"
        return wait_until(lambda: (lambda i: i + 1 if i is not None else None)(
            self.notify.find(key, value, start, pred)), what, timeout, self) - 1

    def wait_ready(self, timeout=WAIT):
        return self.wait_notify("READY", "1", timeout=timeout)

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait_exit(self, timeout=WAIT):
        try:
            return proc_wait(self.proc, timeout)
        except subprocess.TimeoutExpired:
            raise Fail(f"the daemon did not exit within {timeout:g}s of the machine's "
                       "attention") from None

    def wait_stopped(self, timeout=WAIT):
        """After SIGSTOP: wait until the kernel has stopped it."""
        wait_until(lambda: proc_state(self.pid) == "T", "the daemon to stop (SIGSTOP)", timeout)

    def kill(self):
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGCONT)
                self.proc.kill()
            except ProcessLookupError:
                pass
            self.proc.wait()
            for r in self.t.readers:
                r.killed()
        self.notify.close()


def tail(text, n=15):
    lines = text.rstrip("\n").split("\n")
    return "\n    " + "\n    ".join(lines[-n:]) if text.strip() else "(empty)"


def free_port():
    """A TCP port of 127.0.0.1 free just now, below the ephemeral range
    (ip_local_port_range), so that no outgoing connection takes it while
    its server is down (a client reconnecting during an outage)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(10000, max(low, 10001))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_cmd(argv, timeout=20, input=None, **kw):
    """Run a command, with input (bytes or str) on its stdin (else
    /dev/null); returns (returncode, stdout, stderr) as text. It is killed,
    and subprocess.TimeoutExpired raised, after timeout seconds of the
    machine's attention (Budget)."""
    budget = Budget(timeout)
    if isinstance(input, str):
        input = input.encode()
    with subprocess.Popen(argv, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw) as p:
        while True:
            try:
                # (the input goes with the first call only; a retry goes on
                # with what is left of it)
                so, se = p.communicate(input, timeout=max(budget.left(), 0.05))
                break
            except subprocess.TimeoutExpired:
                input = None
                if budget.expired():
                    p.kill()
                    p.communicate()
                    raise
    return (p.returncode, so.decode("utf-8", "replace"), se.decode("utf-8", "replace"))


def proc_wait(p, timeout=WAIT):
    """p.wait() for a subprocess.Popen, bounded by timeout seconds of the
    machine's attention (Budget); subprocess.TimeoutExpired after it."""
    budget = Budget(timeout)
    while True:
        try:
            return p.wait(max(budget.left(), 0.05))
        except subprocess.TimeoutExpired:
            if budget.expired():
                raise


# ---------------------------------------------------------------------------
# One test's environment
# ---------------------------------------------------------------------------

class TestEnv:
    """What a test gets: dir (its own directory, not watched by anyone),
    fs (a fresh tmpfs mounted for this test only: filesystem and mount
    marks on it see only this test's activity), the binary, the source
    tree, and helpers. close() kills everything the test started."""

    def __init__(self, runner, name, index):
        self.binary = runner.binary
        self.srcdir = runner.srcdir
        self.name = name
        self.dir = os.path.join(runner.base, f"{index:02d}-{name}")
        os.mkdir(self.dir, 0o755)
        self.fs = os.path.join(self.dir, "fs")
        os.mkdir(self.fs, 0o755)
        mount("tmpfs", self.fs, "tmpfs", 0, "mode=0755,size=256m")
        self.mounts = [self.fs]
        self.daemons = []
        self.children = []
        self.readers = []
        self.notes = []
        self.cleanups = []  # callables run last by close()
        self._marker = 0

    def path(self, *parts):
        return os.path.join(self.fs, *parts)

    def mkdir(self, *parts, mode=0o755):
        p = self.path(*parts)
        os.makedirs(p, exist_ok=True)
        os.chmod(p, mode)
        return p

    def write_file(self, name, text, mode=0o644):
        p = name if os.path.isabs(name) else os.path.join(self.dir, name)
        tmp = p + ".tmp~"
        with open(tmp, "w") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.rename(tmp, p)  # atomic: a reload never reads half a file
        return p

    def output(self, path):
        r = JsonLines(path)
        self.readers.append(r)
        return r

    def json_setup(self, name="events.json"):
        """The usual JSON output: (outputs dict, reader)."""
        p = os.path.join(self.dir, name)
        return {"json": {"type": "json", "file": p}}, self.output(p)

    def mount_fs(self, name, source, fstype, flags=0, data=None):
        """A new directory name in self.dir with source mounted on it,
        unmounted at the end of the test; its path."""
        target = os.path.join(self.dir, name)
        os.mkdir(target)
        return self.mount_at(target, source, fstype, flags, data)

    def mount_at(self, target, source="tmpfs", fstype="tmpfs", flags=0, data="mode=0755"):
        """source (default: a tmpfs) mounted on target, made if missing,
        anywhere in this test's mount namespace (e.g. over /etc/systemd),
        unmounted at the end of the test; target."""
        os.makedirs(target, exist_ok=True)
        mount(source, target, fstype, flags, data)
        self.mounts.append(target)
        return target

    def spawn(self, argv, name):
        """A helper program (its stdout and stderr in NAME.log in the test
        directory), killed at the end of the test; its Popen."""
        with open(os.path.join(self.dir, f"{name}.log"), "wb") as log:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                 cwd=self.dir, close_fds=True)

        def end():
            if p.poll() is None:
                p.kill()
            p.wait()
        self.cleanups.append(end)
        return p

    def log_of(self, name):
        """What the helper spawn()ed as name printed."""
        with open(os.path.join(self.dir, f"{name}.log"), "rb") as f:
            return f.read().decode("utf-8", "replace")

    def daemon(self, config, **kw):
        return Daemon(self, config, **kw)

    def child(self, **kw):
        return Child(self, **kw)

    def marker(self, child, out, directory, daemon=None, rule=None, event="create"):
        """Create a marker file in directory with child and wait for its
        record (event: the one the rule reports for it); returns the
        record's index. Everything the test did before the marker has been
        reported (or dropped) by then: the kernel queues events in order and
        the daemon reports them in order."""
        self._marker += 1
        p = os.path.join(directory, f"zz-marker-{self._marker}")
        child.create(p)
        return out.wait_index(ev(p, event, rule), f"the marker record {p}", daemon=daemon)

    def note(self, msg):
        self.notes.append(msg)

    def close(self):
        for d in self.daemons:
            d.kill()
        for c in self.children:
            c.close()
        reap_strays()
        for m in reversed(self.mounts):
            try:
                umount(m)
            except OSError:
                pass
        for fn in self.cleanups:
            fn()


def reap_strays():
    """Kill and reap every remaining child of this process (we are a child
    subreaper, so orphans of the daemon, e.g. exec children, are ours)."""
    me = os.getpid()
    for _ in range(50):
        kids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            fields = data[data.rindex(b")") + 2:].split()
            if int(fields[1]) == me:
                kids.append(int(d))
        if not kids:
            return
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for k in kids:
            try:
                os.waitpid(k, 0)
            except ChildProcessError:
                pass


def stderr_print(*a):
    print(*a, file=sys.stderr, flush=True)
