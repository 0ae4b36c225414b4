# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_perm.py — the integration cases of permission rules (issue 5):
allow / deny / deny(ERRNO) of open, read and execve on inode, mount and
filesystem marks with their decision records; decisions matching on paths,
uids, comms, exes and events, first match wins, the default; the deadline;
kill -9 and reload while a process is blocked; an event whose path leads
into a FUSE mount that never answers; outputs and config on the
guarded filesystem; two permission rules on one filesystem; what a
permission rule does not cover; rules that cannot be placed; config errors. Registered in common.TESTS (run.py imports
this module after the general cases' modules).

A blocked process is recognised by its state (the kernel holds it in a
killable sleep in fanotify: harness.blocked_in_fanotify()), not by waiting
a while. A "try" of the child (harness.Child, op "try") reports the errno
of its open/read/execve instead of raising it.
"""

import contextlib
import os
import re
import resource
import select
import shutil
import signal
import struct
import subprocess
import time

import harness
from harness import WAIT, Fail, Skip, check, config_text, outcome, rule, run_cmd, tail
from common import NOBODY, _GOOD_HEAD, bad_config_problems, reload, start, test

# The runner's executable: its forked children (harness.Child) have it too.
EXE = os.readlink("/proc/self/exe")


def need_deny_errno():
    """deny(ERRNO) other than EPERM needs FAN_DENY_ERRNO (Linux 6.14)."""
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    if m and (int(m[1]), int(m[2])) < (6, 14):
        raise Skip(f"kernel {os.uname().release}: deny(ERRNO) needs Linux 6.14+")


def new_tmpfs(t, name):
    """One more tmpfs of this test's own, under t.dir."""
    p = os.path.join(t.dir, name)
    os.mkdir(p)
    harness.mount("tmpfs", p, "tmpfs", 0, "mode=0755,size=64m")
    t.mounts.append(p)
    return p


def new_ext4(t, name):
    """A small ext4 on a loop device (pre-content events need a filesystem
    that allows them; tmpfs does not), or None and the reason."""
    mkfs = shutil.which("mkfs.ext4")
    if not mkfs:
        return None, "mkfs.ext4 is missing (Debian package e2fsprogs)"
    img = os.path.join(t.dir, name + ".img")
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    t.cleanups.append(lambda: os.unlink(img))
    rc, so, se = run_cmd([mkfs, "-q", "-F", "-E", "nodiscard", img])
    if rc != 0:
        return None, f"mkfs.ext4 failed: {(so + se).strip()}"
    p = os.path.join(t.dir, name)
    os.mkdir(p)
    rc, so, se = run_cmd(["mount", "-o", "loop", img, p])
    if rc != 0:
        return None, f"cannot mount an ext4 loop image: {(so + se).strip()}"
    t.mounts.append(p)
    os.chmod(p, 0o755)
    return p, None


def make_file(path, text="hello\n", mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def dec(path, rule=None, event=None):
    """A predicate: a decision record for path, of rule, having event."""
    pb = os.fsencode(path)

    def pred(r):
        return (r.kind == "decision" and r.path == pb and (rule is None or r.rule == rule)
                and (event is None or event in r.events))
    return pred


def stats_of(out, rule):
    """The last stats record of rule, or None."""
    out.poll()
    got = [r for r in out.records if r.kind == "stats" and r.rule == rule]
    return got[-1] if got else None


def check_decision(r, what, verdict, errno=None, by="decision", index=None, event=None,
                   pid=None, comm=None, uid=None, exe=None, audit=False):
    """The fields of decision record r; None for pid/comm/uid/exe: not
    checked."""
    want = {"verdict": verdict, "errno": errno, "by": by, "decision": index, "audit": audit}
    for k, v in want.items():
        check(r.get(k) == v, f"{what}: {k} {r.get(k)!r}, expected {v!r}: {r!r}")
    if event is not None:
        check(r.events == {event}, f"{what}: events {sorted(r.events)}, expected "
              f"[{event!r}]: {r!r}")
    for k, v in (("pid", pid), ("comm", comm), ("uid", uid), ("exe", exe)):
        if v is not None:
            check(r.get(k) == v, f"{what}: {k} {r.get(k)!r}, expected {v!r}: {r!r}")


def try_(c, path, how="open"):
    """The child tries an access (harness "try" op), bounded by WAIT."""
    return c.do("try", path=path, how=how, timeout=WAIT)


def perm_rule(name, paths, events, **kw):
    return rule(name, paths, events=list(events), **kw)


def self_blocked(d):
    """Why a daemon that does not answer may hang: the ids of its threads
    waiting in fanotify for a permission answer (their own event)."""
    try:
        tids = os.listdir(f"/proc/{d.pid}/task")
    except FileNotFoundError:
        return []
    return [int(x) for x in tids if harness.blocked_in_fanotify(f"{d.pid}/task/{x}")]


def diagnose(d, fn, *a, **kw):
    """fn(*a, **kw); a Fail names the daemon's threads blocked on a
    permission event (the daemon waiting on its own access)."""
    try:
        return fn(*a, **kw)
    except Fail as e:
        stuck = self_blocked(d)
        if stuck:
            first, _, rest = str(e).partition("\n")
            raise Fail(f"{first}: the daemon's thread(s) {stuck} are blocked in a permission "
                       "event (waiting for their own answer?)" + (rest and "\n" + rest)) from None
        raise


def pstart(t, rules, top=""):
    """common.start() for permission rules: a daemon that blocks on its own
    permission event is named as such."""
    d, out, cfg = start(t, rules, top=top, wait=False)
    diagnose(d, d.wait_ready)
    return d, out, cfg


def stop(d, out=None):
    """SIGTERM, a clean exit; the reader sees everything written."""
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc} after SIGTERM, expected 0:{tail(d.stderr())}")
    if out is not None:
        out.poll()


# ---------------------------------------------------------------------------
# allow / deny / deny(EIO) of open, read and execve on each mark type
# ---------------------------------------------------------------------------

# event, how the child accesses the file (also the step a denial fails)
ACCESSES = [("open_perm", "open"), ("access_perm", "read"), ("open_exec_perm", "exec")]
# verdict, decision index (in perm_verdicts' decisions), errno of the record,
# errno the process sees
VERDICTS = [("deny", 1, None, "EPERM"),
            ("deny(EIO)", 2, "EIO", "EIO"),
            ("allow", 3, None, None)]


@test
def perm_verdicts(t):
    # One rule per (mark type, permission event); each rule's decisions
    # give each of its three files one verdict. Every access is tried by
    # a real process and gets exactly that outcome and one decision record
    # (the allow decision has log = true).
    need_deny_errno()
    where = {"inode": t.mkdir("in-dir"),          # an inode mark on the files' directory
             "mount": new_tmpfs(t, "mnt"),        # a mount mark on a mount of its own
             "filesystem": new_tmpfs(t, "sb")}    # a filesystem mark on a filesystem too
    rules, rows = [], []
    for mark, top in where.items():
        for event, how in ACCESSES:
            name = f"{mark}-{how}"
            files = {}
            for verdict, _, _, _ in VERDICTS:
                f = os.path.join(top, f"{how}-{verdict.replace('(', '-').rstrip(')')}")
                if how == "exec":
                    shutil.copy("/bin/true", f)
                    os.chmod(f, 0o755)
                else:
                    make_file(f)
                files[verdict] = f
            decisions = tuple({"paths": [files[v]], "verdict": v, "log": v == "allow" or None}
                              for v, _, _, _ in VERDICTS)
            kw = dict(mark="inode") if mark == "inode" else dict(mark=mark, recursive=True)
            rules.append(perm_rule(name, [top], [event], decisions=decisions, default="allow",
                                   **kw))
            rows += [(name, event, how, files[v], v, i, rec_errno, seen)
                     for v, i, rec_errno, seen in VERDICTS]
    d, out, _ = pstart(t, rules)
    c = t.child(comm="fsnd-verdict")
    problems, done = [], []
    for name, event, how, f, verdict, i, rec_errno, seen in rows:
        res = try_(c, f, how)
        want = "ok" if seen is None else f"{how}: {seen}"
        if outcome(res) != want:
            problems.append(f"{name}: {how} of {os.path.basename(f)} ({verdict}): "
                            f"{outcome(res)}, expected {want}")
        done.append(res)
    if problems:
        raise Fail(f"{len(problems)} of {len(rows)} accesses wrong:\n" + "\n".join(problems))
    # Then the records (all written by the time the daemon has stopped).
    stop(d, out)
    for (name, event, how, f, verdict, i, rec_errno, seen), res in zip(rows, done):
        got = [r for r in out.records if dec(f)(r)]
        if len(got) != 1 or got[0].rule != name:
            problems.append(f"{name}: decision records for {f}: {got!r}, expected one of {name}")
            continue
        # A failed exec is gone at once and a good one is /bin/true: its
        # comm/exe depend on when they were read; its pid does not.
        proc = (dict(pid=res["pid"]) if how == "exec" else
                dict(pid=c.pid, comm=c.comm, uid=0, exe=EXE))
        try:
            check_decision(got[0], f"{name} {verdict}", "allow" if verdict == "allow" else "deny",
                           rec_errno, "decision", i, event, **proc)
        except Fail as e:
            problems.append(str(e))
    if problems:
        raise Fail(f"{len(problems)} of {len(rows)} decision records wrong:\n"
                   + "\n".join(problems))


@test
def perm_decision_who(t):
    # A permission rule with who: its decision records also say who (the
    # audit login uid and session the child's login set, its parent, its
    # mount namespace), read of /proc after the answer, exactly what /proc
    # says; a rule without who, on the same file, says none of it.
    w = t.mkdir("w")
    f = os.path.join(w, "f")
    make_file(f)
    logged = ({"paths": [f], "verdict": "allow", "log": True},)
    d, out, _ = pstart(t, [perm_rule("who", [w], ["open_perm"], mark="inode", who=True,
                                     decisions=logged, default="allow"),
                           perm_rule("plain", [w], ["open_perm"], mark="inode",
                                     decisions=logged, default="allow")])
    c = t.child(loginuid=4242)
    res = try_(c, f, "open")
    check(outcome(res) == "ok", f"the open: {outcome(res)}")
    stop(d, out)

    def proc(name):
        with open(f"/proc/{c.pid}/{name}") as fh:
            v = int(fh.read())
        return None if v == 4294967295 else v
    with open("/proc/self/comm") as fh:
        parent_comm = fh.read().rstrip("\n")
    want = {"login_uid": proc("loginuid"), "session": proc("sessionid"), "ppid": os.getpid(),
            "parent_comm": parent_comm, "mntns": os.stat(f"/proc/{c.pid}/ns/mnt").st_ino,
            "exe": EXE}
    got = [r for r in out.records if dec(f, rule="who")(r)]
    check(len(got) == 1, f"decision records of the who rule: {got!r}")
    check({k: got[0].get(k) for k in want} == want, f"{got[0]!r}, expected {want!r}")
    got = [r for r in out.records if dec(f, rule="plain")(r)]
    check(len(got) == 1 and "login_uid" not in got[0].obj, f"the plain rule's: {got!r}")


# ---------------------------------------------------------------------------
# What decisions match on
# ---------------------------------------------------------------------------

@test
def perm_decisions(t):
    need_deny_errno()
    P = t.fs
    p = lambda *a: os.path.join(P, *a)  # noqa: E731
    for f in ("allowed/x.secret", "sub/deep/y.secret", "allowedx", "byuid/f", "plain",
              "byexe/f", "byexe2/f", "reads/f", "audited", "quiet"):
        make_file(p(f))
    decisions = (
        {"paths": [p("allowed")], "verdict": "allow", "log": True},                    # 1
        {"paths": [P + "/*.secret"], "verdict": "deny"},                                # 2
        {"paths": [p("byuid")], "uids": [NOBODY], "verdict": "deny(EBUSY)"},            # 3
        {"comms": ["fsnd-evil"], "verdict": "deny(EAGAIN)"},                            # 4
        {"paths": [p("byexe")], "exes": ["/nonexistent/*", EXE], "verdict": "deny(ENOSPC)"},
        {"paths": [p("byexe2")], "exes": [os.path.dirname(EXE) + "/*"],                 # 6
         "verdict": "deny(EDQUOT)"},
        {"paths": [p("plain")], "exes": ["/nonexistent/*"], "verdict": "deny(EIO)"},    # 7
        {"paths": [p("reads")], "events": ["access_perm"], "verdict": "deny(EIO)"},     # 8
        {"paths": [p("reads")], "verdict": "allow"},                                    # 9
        {"paths": [p("audited")], "verdict": "audit", "log": True},                     # 10
        {"paths": [p("quiet")], "verdict": "deny", "log": False},                       # 11
    )
    d, out, _ = pstart(t, [perm_rule("r-dec", [P], ["open_perm", "access_perm"],
                                     mark="filesystem", recursive=True, decisions=decisions,
                                     default="deny(ETXTBSY)")])
    root, nobody = t.child(comm="fsnd-perm"), t.child(comm="fsnd-perm", uid=NOBODY)
    evil = t.child(comm="fsnd-evil")
    D = "default"
    # child, how, file, outcome, the record of the open (by: decision
    # index or D, errno), why. None: no record.
    rows = [
        (root, "open", "allowed/x.secret", "ok", (1, None), "prefix; first match wins over 2"),
        (root, "open", "sub/deep/y.secret", "open: EPERM", (2, None), "glob, '*' matches '/'"),
        (root, "open", "allowedx", "open: ETXTBSY", (D, "ETXTBSY"), "a prefix is a directory"),
        (nobody, "open", "byuid/f", "open: EBUSY", (3, "EBUSY"), "uid 65534"),
        (root, "open", "byuid/f", "open: ETXTBSY", (D, "ETXTBSY"), "uid 0: the paths alone no"),
        (evil, "open", "plain", "open: EAGAIN", (4, "EAGAIN"), "comm"),
        (root, "open", "plain", "open: ETXTBSY", (D, "ETXTBSY"), "exes does not match"),
        (root, "open", "byexe/f", "open: ENOSPC", (5, "ENOSPC"), "exe, second element"),
        (root, "open", "byexe2/f", "open: EDQUOT", (6, "EDQUOT"), "exe glob"),
        (root, "read", "reads/f", "read: EIO", None, "events: the open is allowed by 9"),
        (root, "open", "audited", "ok", (10, None), "audit"),
        (root, "open", "quiet", "open: EPERM", None, "log = false"),
    ]
    problems = []
    for c, how, f, want, rec, why in rows:
        res = try_(c, p(f), how)
        if outcome(res) != want:
            problems.append(f"{how} {f} by {c.comm} uid {c.uid} ({why}): {outcome(res)}, "
                            f"expected {want}")
    if problems:
        raise Fail(f"{len(problems)} of {len(rows)} accesses wrong:\n" + "\n".join(problems))
    # One record per logged answer: the read of reads/f by decision 8 is
    # logged (access_perm), its open (decision 9, allow) is not.
    stop(d, out)
    decs = [r for r in out.records if r.kind == "decision"]
    expect = []
    for c, how, f, want, rec, why in rows:
        if rec is not None:
            expect.append((c, p(f), "open_perm", rec, "allow" if want == "ok" else "deny", why))
        if f == "reads/f":
            expect.append((c, p(f), "access_perm", (8, "EIO"), "deny", why))
    for c, f, event, (by, errno), verdict, why in expect:
        got = [r for r in decs if r.path == os.fsencode(f) and r.get("pid") == c.pid
               and event in r.events]
        check(len(got) == 1, f"{len(got)} {event} decision records for {f} by {c.comm} uid "
              f"{c.uid} ({why}), expected 1: {got!r}")
        check_decision(got[0], f"{f} ({why})", verdict,
                       errno, "default" if by == D else "decision", None if by == D else by,
                       event, pid=c.pid, comm=c.comm, uid=c.uid, exe=EXE,
                       audit=f == p("audited"))
        check(got[0].rule == "r-dec", f"rule {got[0].rule!r}: {got[0]!r}")
    check(len(decs) == len(expect), f"{len(decs)} decision records, expected {len(expect)} "
          "(log = false, and allow without log = true, are not reported): "
          + "\n".join(repr(r) for r in decs))
    # Counters at stop: every answer once. allowed/denied split all of
    # them; audited and deadline count among them.
    s = stats_of(out, "r-dec")
    check(s is not None, "no stats record of r-dec at stop")
    allowed = 3  # allowed/x.secret, the open of reads/f, audited
    denied = len(rows) - 2  # all other rows (the read of reads/f is the denial there)
    got = {k: s.get(k) for k in ("allowed", "denied", "audited", "deadline")}
    check(got == {"allowed": allowed, "denied": denied, "audited": 1, "deadline": 0},
          f"stats at stop {got}, expected allowed {allowed}, denied {denied}, audited 1, "
          f"deadline 0: {s!r}")


# ---------------------------------------------------------------------------
# What a permission rule does not cover: allowed at once, not reported
# ---------------------------------------------------------------------------

@test
def perm_scope(t):
    g = t.mkdir("guarded")
    for f in ("guarded/f", "guarded/excluded/x", "guarded/y.ok", "outside"):
        make_file(t.path(f))
    d, out, _ = pstart(t, [perm_rule("r-scope", [g], ["open_perm"], mark="auto",
                                     recursive=True, default="deny", comms=["fsnd-target"],
                                     exclude=[t.path("guarded", "excluded"), "*.ok"])])
    target, other = t.child(comm="fsnd-target"), t.child(comm="fsnd-other")
    rows = [(target, "guarded/f", "open: EPERM", "denied by default"),
            (target, "outside", "ok", "outside the rule's subtree (same filesystem)"),
            (target, "guarded/excluded/x", "ok", "excluded directory"),
            (target, "guarded/y.ok", "ok", "excluded glob"),
            (other, "guarded/f", "ok", "not the rule's comm")]
    for c, f, want, why in rows:
        res = try_(c, t.path(f))
        check(outcome(res) == want, f"open of {f} by {c.comm} ({why}): {outcome(res)}, "
              f"expected {want}")
    stop(d, out)
    decs = [r for r in out.records if r.kind == "decision"]
    check(len(decs) == 1 and decs[0].path == os.fsencode(t.path("guarded", "f"))
          and decs[0]["pid"] == target.pid,
          f"expected one decision record (guarded/f by {target.pid}), got {decs!r}")
    check_decision(decs[0], "guarded/f", "deny", by="default", event="open_perm")


@test
def perm_shared_filesystem(t):
    # Two permission rules on one filesystem: placing the second one's
    # mark must not wait on an event of the first one's (the daemon's own
    # access, which nobody answers yet) — when a reload adds them, and at
    # start.
    f, g = make_file(t.path("f")), make_file(t.path("g"))
    fs = dict(mark="filesystem", recursive=True)
    rules = [perm_rule("no-open", [t.fs], ["open_perm"], **fs,
                       decisions=({"paths": [f], "verdict": "deny"},)),
             perm_rule("no-read", [t.fs], ["access_perm"], **fs,
                       decisions=({"paths": [g], "verdict": "deny"},))]
    outputs, out = t.json_setup()
    cfg = t.write_file("fsnotifyd.conf", config_text(
        [rule("notify", [t.fs], events=["create"], **fs)], outputs, ["json"]))
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child()
    for when in ("after a reload adding them", "at start"):
        if when == "at start":
            stop(d)
            d = t.daemon(cfg)
            diagnose(d, d.wait_ready)
        else:
            diagnose(d, reload, d, t, cfg, config_text(rules, outputs, ["json"]))
        for p, how, want in ((f, "open", "open: EPERM"), (g, "read", "read: EPERM"),
                             (f, "read", "open: EPERM"), (g, "open", "ok")):
            res = try_(c, p, how)
            check(outcome(res) == want, f"two permission rules on one filesystem, {when}: "
                  f"{how} of {os.path.basename(p)}: {outcome(res)}, expected {want}")


# ---------------------------------------------------------------------------
# Deadline, kill -9, reload while a process is blocked
# ---------------------------------------------------------------------------

@test
def perm_deadline(t):
    f = make_file(t.path("f"))
    d, out, _ = pstart(t, [perm_rule("r-late", [t.fs], ["open_perm"], mark="filesystem",
                                     recursive=True, default="deny", deadline_ms=200,
                                     deadline_verdict="deny", debug_delay_ms=2000)],
                       top="limits = { status_interval = 1; };")
    c = t.child(comm="fsnd-late")
    res = try_(c, f)
    el = res["t1"] - res["t0"]
    check(outcome(res) == "open: EPERM", f"open with the decision 2 s late and deadline_ms = "
          f"200 (deadline_verdict deny): {outcome(res)}, expected open: EPERM")
    check(0.19 <= el < 1.5, f"the open was answered after {el:.3f}s; deadline_ms = 200, the "
          "decision 2 s late")
    r = out.wait(dec(f, "r-late"), "the decision record of the deadline", daemon=d)
    check_decision(r, "deadline", "deny", None, "deadline", None, "open_perm", pid=c.pid,
                   comm=c.comm, uid=0)
    check(190000 <= r["latency_us"] < 1500000, f"latency_us {r['latency_us']} for an answer "
          f"{el:.3f}s after the open")
    d.wait_notify("STATUS", pred=lambda v: re.search(
        r"rule 'r-late': 0 allowed, 1 denied, 1 on deadline", v), timeout=3)
    s = out.wait(lambda r: r.kind == "stats" and r.rule == "r-late" and r.get("deadline"),
                 "a stats record counting the deadline (status_interval = 1)", timeout=3,
                 daemon=d)
    got = {k: s.get(k) for k in ("allowed", "denied", "deadline")}
    check(got == {"allowed": 0, "denied": 1, "deadline": 1}, f"stats {got}, expected "
          f"0 allowed, 1 denied, 1 on deadline: {s!r}")
    # The late decision must not answer (or report) the event a second time.
    stop(d, out)
    check(out.count(dec(f)) == 1, f"{out.count(dec(f))} decision records for one open")
    s = stats_of(out, "r-late")
    check(s is not None and s["denied"] == 1 and s["deadline"] == 1 and s["allowed"] == 0,
          f"stats at stop: {s!r}, expected 0 allowed, 1 denied, 1 on deadline")


@test
def perm_out_of_fds(t):
    # Every permission event the daemon reads comes with an fd; a read()
    # with room for more events than the daemon has free fds makes the
    # kernel deny the rest (EPERM) without asking anyone. The daemon runs
    # with RLIMIT_NOFILE 96 (soft = hard: it cannot raise it), holds each
    # event 300 ms (debug_delay_ms), and 150 processes open files at once:
    # more pending events than it has fds. Every open is allowed, by the
    # rule's default, none denied for want of an event fd, and the daemon
    # says once that events waited for fds.
    n = 150
    files = [make_file(t.path(f"f{i}")) for i in range(n)]

    def low_nofile():
        resource.setrlimit(resource.RLIMIT_NOFILE, (96, 96))

    d, out, _ = start(t, [perm_rule("r-fds", [t.fs], ["open_perm"], mark="filesystem",
                                    recursive=True, default="allow", debug_delay_ms=300)],
                      wait=False, preexec=low_nofile)
    diagnose(d, d.wait_ready)
    lim = open(f"/proc/{d.pid}/limits").read()
    check(re.search(r"Max open files\s+96\s+96", lim), f"the daemon's RLIMIT_NOFILE:\n{lim}")
    rfd, wfd = os.pipe()
    go_r, go_w = os.pipe()
    pids = []
    for i in range(n):
        pid = os.fork()
        if pid == 0:
            code = 0
            os.close(go_w)
            os.read(go_r, 1)  # all start at once: EOF when the parent closes go_w
            try:
                os.close(os.open(files[i], os.O_RDONLY))
            except OSError as e:
                code = e.errno
            os.write(wfd, struct.pack("HB", i, code & 0xff))
            os._exit(0)
        pids.append(pid)
    os.close(wfd)
    os.close(go_r)
    os.close(go_w)
    got, buf, deadline = {}, b"", time.monotonic() + 30
    try:
        while len(got) < n and time.monotonic() < deadline:
            if not select.select([rfd], [], [], 1)[0]:
                continue
            chunk = os.read(rfd, 4096)
            if not chunk:
                break
            buf += chunk
            while len(buf) >= 3:
                i, code = struct.unpack("HB", buf[:3])
                got[i] = code
                buf = buf[3:]
    finally:
        os.close(rfd)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    check(len(got) == n, f"{n - len(got)} of {n} opens not answered within 30 s")
    bad = {i: os.strerror(c) for i, c in got.items() if c}
    check(not bad, f"{len(bad)} of {n} opens failed (denied for want of an event fd?): "
          f"{sorted(bad.items())[:5]}")
    stop(d, out)
    err = d.stderr()
    check(err.count("no free file descriptor for the fds of permission events") == 1,
          f"the daemon should say once that events waited for fds:{tail(err)}")
    s = stats_of(out, "r-fds")
    check(s is not None and s["allowed"] == n and s["denied"] == 0,
          f"stats at stop: {s!r}, expected {n} allowed, 0 denied")


@test
def perm_kill9(t):
    # kill -9 while a process waits for an answer: the kernel answers
    # allow when the daemon's fanotify fds close (it must not keep them
    # alive in another process).
    f = make_file(t.path("f"))
    d, out, _ = pstart(t, [perm_rule("r-kill", [t.fs], ["open_perm"], mark="filesystem",
                                     recursive=True, default="deny", deadline_ms=60000,
                                     debug_delay_ms=60000)])
    c = t.child(comm="fsnd-kill")
    c.start("try", path=f, how="open")
    c.wait_blocked("the open to block in the permission event", daemon=d)
    tk = time.monotonic()
    d.proc.kill()
    d.proc.wait()
    res = c.reply(timeout=WAIT)
    check(outcome(res) == "ok", f"open after kill -9 of the daemon: {outcome(res)}, expected "
          "ok (the kernel answers allow)")
    el = res["t1"] - tk
    check(el < 1.0, f"the blocked open returned {el:.3f}s after kill -9, expected within 1 s")


def reload_guarded(t, hold):
    """perm-reload-*: an open waits in rule guard-a (default deny) while a
    reload replaces it (renamed) with guard-b (default deny(EIO)). hold:
    the permission thread is held still (ptrace) from before the open
    until the reload is done, so the open is not read yet when the commit
    comes; else the open's decision is deferred (debug_delay_ms) across
    the reload. Either way the old rule's policy answers it (EPERM) and
    reports it, and the next open is the new rule's."""
    need_deny_errno()
    f1, f2 = make_file(t.path("f1")), make_file(t.path("f2"))
    outputs, out = t.json_setup()
    common = dict(mark="filesystem", recursive=True, deadline_ms=10000)
    delay = {} if hold else dict(debug_delay_ms=1500)
    conf_a = config_text([perm_rule("guard-a", [t.fs], ["open_perm"], default="deny",
                                    **delay, **common)], outputs, ["json"])
    conf_b = config_text([perm_rule("guard-b", [t.fs], ["open_perm"], default="deny(EIO)",
                                    **common)], outputs, ["json"])
    cfg = t.write_file("fsnotifyd.conf", conf_a)
    d = t.daemon(cfg)
    d.wait_ready()
    c1, c2 = t.child(comm="fsnd-blocked"), t.child(comm="fsnd-after")
    with (harness.ThreadStopped(harness.thread_of(d.pid, "fsnd-guard")) if hold
          else contextlib.nullcontext()):
        c1.start("try", path=f1, how="open")
        c1.wait_blocked("the open of f1 to block" + (" (the permission thread held still)"
                        if hold else " (debug_delay_ms = 1500)"), daemon=d)
        diagnose(d, reload, d, t, cfg, conf_b)
    res = c1.reply(timeout=WAIT)
    check(outcome(res) == "open: EPERM", f"the open blocked during the reload: "
          f"{outcome(res)}, expected open: EPERM (the old rule's policy answers its "
          "queue, not the close of its group: the kernel's allow)")
    r = out.wait(dec(f1), "the decision record of the open blocked during the reload",
                 daemon=d)
    check(r.rule == "guard-a", f"the open blocked during the reload is reported by "
          f"{r.rule!r}: {r!r}")
    check_decision(r, "blocked during the reload", "deny", None, "default", None, "open_perm",
                   pid=c1.pid, comm=c1.comm)
    res = try_(c2, f2)
    check(outcome(res) == "open: EIO", f"an open after the reload: {outcome(res)}, expected "
          "open: EIO (the new default)")
    r = out.wait(dec(f2), "the decision record of the open after the reload", daemon=d)
    check(r.rule == "guard-b", f"the open after the reload is reported by {r.rule!r}: {r!r}")
    check_decision(r, "after the reload", "deny", "EIO", "default", None, "open_perm",
                   pid=c2.pid)


@test
def perm_reload_blocked(t):
    # SIGHUP while a process waits for a decision deferred across it.
    reload_guarded(t, hold=False)


@test
def perm_reload_queued(t):
    # SIGHUP while a process waits in a queue its permission thread has not
    # read: a busy machine may leave that thread unscheduled from the open
    # to the commit, which it then finds together with the open (libev runs
    # the commit first). CI once saw the open allowed so.
    reload_guarded(t, hold=True)


# ---------------------------------------------------------------------------
# A path walk the permission thread never does (issue 15)
# ---------------------------------------------------------------------------

FUSE_LOOKUP, FUSE_INIT = 1, 26
FUSE_OPS = {1: "LOOKUP", 3: "GETATTR", 14: "OPEN", 17: "STATFS", 22: "GETXATTR",
            27: "OPENDIR", 34: "ACCESS"}
MS_NOSUID, MS_NODEV = 2, 4


class StalledFuse:
    """A FUSE filesystem of the test's own on path whose server (this
    process, through its /dev/fuse fd) answers FUSE_INIT and nothing else:
    whatever walks into it waits for an answer that never comes. Used as
    a context manager: the end closes the fd, which aborts the connection
    (what waits fails with ECONNABORTED), so nothing is left hanging for
    the end of the case. The fd must be this process's only one: open it
    after forking the case's children (the daemon gets none, close_fds)."""

    def __init__(self, t, path):
        self.path = path
        try:
            self.fd = os.open("/dev/fuse", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            raise Skip(f"no FUSE: /dev/fuse: {e.strerror}") from None
        try:
            harness.mount("fsnd-stall", path, "fuse", MS_NOSUID | MS_NODEV,
                          f"fd={self.fd},rootmode=40000,user_id=0,group_id=0,allow_other")
        except OSError as e:
            os.close(self.fd)
            raise Skip(f"no FUSE: {e}") from None
        t.mounts.append(path)
        try:
            init = self.requests(WAIT)
            check(init and init[0][0] == FUSE_INIT, f"the FUSE mount on {path} sent "
                  f"{self.describe(init) or 'nothing'}, expected FUSE_INIT")
            _, unique, _, body = init[0]
            major, minor, readahead = struct.unpack_from("=III", body)
            # struct fuse_init_out: the kernel's own protocol, no features
            out = struct.pack("=IIIIHHIIHHI7I", major, minor, readahead, 0, 0, 0, 4096, 0, 0,
                              0, 0, *[0] * 7)
            os.write(self.fd, struct.pack("=IiQ", 16 + len(out), 0, unique) + out)
        except BaseException:
            self.abort()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.abort()

    def abort(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def requests(self, timeout=0):
        """The requests sent to the server since the last call, never
        answered: [(opcode, unique, pid, body)]; waits up to timeout for
        the first one. (A request read here waits for its answer or the
        abort even through SIGKILL.)"""
        got = []
        while got or select.select([self.fd], [], [], timeout)[0]:
            try:
                buf = os.read(self.fd, 1 << 17)
            except BlockingIOError:
                break
            # struct fuse_in_header: len, opcode, unique, nodeid, uid, gid, pid
            _, op, unique, _, _, _, pid = struct.unpack_from("=IIQQIII", buf)
            got.append((op, unique, pid, buf[40:]))
        return got

    @staticmethod
    def describe(reqs):
        """Requests as text: "LOOKUP 'name' by PID", ..."""

        def one(op, pid, body):
            name = body.split(b"\0")[0].decode(errors="replace")
            return f"{FUSE_OPS.get(op, op)}" + (f" {name!r}" if op == FUSE_LOOKUP else "") \
                + f" by {pid}"
        return ", ".join(one(op, pid, body) for op, _, pid, body in reqs)

    def stalled(self, d):
        """Why the daemon may not answer: what it asked this server (read
        now) and its threads waiting for a FUSE answer."""
        reqs = self.requests()
        mine = [r for r in reqs if os.path.exists(f"/proc/{d.pid}/task/{r[2]}")]
        waiting = []
        for tid in os.listdir(f"/proc/{d.pid}/task"):
            try:
                with open(f"/proc/{d.pid}/task/{tid}/wchan") as f:
                    w = f.read().strip()
            except OSError:
                continue
            if "fuse" in w or w == "request_wait_answer":
                waiting.append(f"{tid} ({w})")
        why = []
        if mine:
            why.append(f"the daemon's thread(s) asked the FUSE server on {self.path}: "
                       + self.describe(mine))
        if waiting:
            why.append(f"its thread(s) {', '.join(waiting)} wait for a FUSE answer")
        if len(reqs) > len(mine):
            why.append("others asked: " + self.describe([r for r in reqs if r not in mine]))
        return "; ".join(why) or "nothing was asked of the FUSE server"


@test
def perm_fuse_stall(t):
    # Issue 15, item 8: the permission thread never looks a path up, so a
    # path a user steers into a FUSE server that never answers cannot
    # stall it. A file is opened through a bind mount M (a directory of the
    # guarded tmpfs), its name there is unlinked while a hard link keeps
    # the file (st_nlink 1: the kernel's path of it is "M/f (deleted)"),
    # and a FUSE filesystem whose server answers only FUSE_INIT is mounted
    # on M. The holder reopens the file through /proc/self/fd/N (a magic
    # link: no walk for it): the event fd's path is "M/f (deleted)", and a
    # lookup of it (the fstatat() before a55c5a0) would wait for the FUSE
    # server forever. That open must be answered by its decision, with that
    # path, and meanwhile the opens of another process by theirs, each
    # well within the deadline; no request reaches the FUSE server. Last, a
    # walk of that path by a process of the test does reach the server: the
    # trap was armed.
    sub, m = t.mkdir("sub"), t.mkdir("m")
    f = make_file(os.path.join(sub, "f"))
    os.link(f, t.path("keep"))
    others = [make_file(t.path("other", f"o{i}")) for i in range(5)]
    harness.mount(sub, m, None, harness.MS_BIND)
    t.mounts.append(m)
    mf = os.path.join(m, "f")
    gone = mf + " (deleted)"
    decisions = ({"paths": [mf], "verdict": "allow", "log": True},                # 1
                 {"paths": [m], "verdict": "deny"},                               # 2
                 {"paths": [t.path("other")], "verdict": "allow", "log": True})   # 3
    deadline = 2.0
    d, out, _ = pstart(t, [perm_rule("guard", [t.fs], ["open_perm"], mark="filesystem",
                                     recursive=True, decisions=decisions, default="allow",
                                     deadline_ms=int(deadline * 1000),
                                     deadline_verdict="allow")])
    holder, other = t.child(comm="fsnd-holder"), t.child(comm="fsnd-other")
    walker = t.child(comm="fsnd-walker")
    n = holder.do("open", path=mf, timeout=WAIT)
    r = out.wait(dec(mf, "guard"), f"the decision record of the first open of {mf}", daemon=d)
    check_decision(r, f"the first open of {mf}", "allow", None, "decision", 1, "open_perm",
                   pid=holder.pid)
    holder.do("unlink", path=mf, timeout=WAIT)
    with StalledFuse(t, m) as fuse:
        def answered(c, what):
            try:
                res = c.reply(timeout=WAIT)
            except Fail as e:
                raise Fail(f"{what}: not answered within {WAIT:g} s, the permission thread is "
                           f"stalled: {fuse.stalled(d)} ({e})") from None
            el = res["t1"] - res["t0"]
            check(el < deadline / 2, f"{what}: answered after {el:.3f}s (deadline_ms = "
                  f"{int(deadline * 1000)})")
            return res

        reopen = f"the reopen by {holder.comm} of {gone} (through /proc/self/fd/{n}; a FUSE " \
            "server that never answers on its directory)"
        holder.start("try", path=f"/proc/self/fd/{n}")
        for o in others:
            other.start("try", path=o)
            res = answered(other, f"an open of {o} by {other.comm} during {reopen}")
            check(outcome(res) == "ok", f"an open of {o} during {reopen}: {outcome(res)}, "
                  "expected ok (decision 3)")
        res = answered(holder, reopen)
        check(outcome(res) == "open: EPERM", f"{reopen}: {outcome(res)}, expected open: EPERM "
              f"(decision 2: its path is {gone!r}; ok: the deadline answered)")
        r = out.wait(dec(gone, "guard"), f"the decision record of {reopen}", daemon=d)
        check_decision(r, reopen, "deny", None, "decision", 2, "open_perm", pid=holder.pid,
                       comm=holder.comm, uid=0, exe=EXE)
        for o in others:
            r = out.wait(dec(o, "guard"), f"the decision record of the open of {o}", daemon=d)
            check_decision(r, f"the open of {o}", "allow", None, "decision", 3, "open_perm",
                           pid=other.pid, comm=other.comm)
        reqs = fuse.requests()
        check(not reqs, f"nothing may walk into the FUSE mount on {m}, but its server was "
              f"asked: {fuse.describe(reqs)}")
        # The trap: a walk of that path does wait for the server.
        walker.start("try", path=gone)
        reqs = fuse.requests(WAIT)
        check(any(op == FUSE_LOOKUP and body.split(b"\0")[0] == b"f (deleted)"
                  and pid == walker.pid for op, _, pid, body in reqs),
              f"an open of {gone!r} by {walker.comm} ({walker.pid}) asked the FUSE server "
              f"{fuse.describe(reqs) or 'nothing'}, expected LOOKUP 'f (deleted)': a path "
              "walk would not have stalled")
    stop(d, out)
    s = stats_of(out, "guard")
    got = s and {k: s.get(k) for k in ("allowed", "denied", "deadline")}
    check(got == {"allowed": 1 + len(others), "denied": 1, "deadline": 0},
          f"stats at stop: {s!r}, expected {1 + len(others)} allowed, 1 denied, 0 on deadline")


# ---------------------------------------------------------------------------
# Config and outputs on the guarded filesystem
# ---------------------------------------------------------------------------

def guarded_output(t, path):
    """A reader of a JSON file on a guarded filesystem. This process's
    opens there wait for the daemon's answer in a sleep no signal but
    SIGKILL ends, so a daemon that no longer answers would hang the suite:
    it reads through tail(1), killed after a bound."""
    def read(p, offset):
        try:
            r = subprocess.run(["tail", "-c", f"+{offset + 1}", p], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=3)
        except subprocess.TimeoutExpired:
            raise Fail(f"reading {p} (on the guarded filesystem) blocked for 3 s: permission "
                       "events not answered") from None
        return r.stdout if r.returncode == 0 else None
    r = harness.JsonLines(path, read=read)
    t.readers.append(r)
    return r


@test
def perm_guarded_outputs(t):
    # The daemon's own files (config, JSON output) are on the filesystem
    # it guards, with open_perm + access_perm (+ pre_access, which its
    # own writes trigger, on ext4) on everything: reopening (SIGUSR1),
    # reloading (SIGHUP) and stopping must not wait on its own events.
    need_deny_errno()
    g, why = new_ext4(t, "guarded")
    pre = g is not None
    if not pre:
        t.note(f"pre_access not tested ({why}; tmpfs has no pre-content events)")
        g = t.fs
    events = ["open_perm", "access_perm"] + (["pre_access"] if pre else [])
    secret, secret2, public = (make_file(os.path.join(g, n)) for n in ("secret", "secret2",
                                                                         "public"))
    prefile = make_file(os.path.join(g, "prefile"))
    os.makedirs(os.path.join(g, "out"))
    os.makedirs(os.path.join(g, "etc"))
    jpath = os.path.join(g, "out", "events.json")
    outputs = {"json": {"type": "json", "file": jpath}}
    out = guarded_output(t, jpath)

    def conf(deny):
        decisions = tuple({"paths": [p], "verdict": "deny"} for p in deny)
        if pre:
            decisions += ({"paths": [prefile], "events": ["pre_access"],
                           "verdict": "deny(EIO)"},)
        return config_text([perm_rule("guard", [g], events, mark="filesystem",
                                      recursive=True, default="allow", decisions=decisions)],
                           outputs, ["json"], top="limits = { status_interval = 1; };")
    cfg = t.write_file(os.path.join(g, "etc", "fsnotifyd.conf"), conf([secret]))
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child(comm="fsnd-guarded")

    def expect(path, how, want, what, reader):
        res = try_(c, path, how)
        check(outcome(res) == want, f"{what}: {how} of {os.path.basename(path)}: "
              f"{outcome(res)}, expected {want}")
        if want != "ok":
            reader.wait(dec(path, "guard"), f"the decision record ({what})", daemon=d)

    expect(secret, "open", "open: EPERM", "at start", out)
    expect(public, "read", "ok", "at start", out)
    if pre:
        expect(prefile, "read", "read: EIO", "pre_access at start", out)
    # SIGUSR1: the new file is created on the guarded filesystem, and
    # every write to it is a pre_access event of the daemon's own.
    os.rename(jpath, jpath + ".1")
    d.signal(signal.SIGUSR1)
    harness.wait_until(lambda: os.path.exists(jpath), "SIGUSR1 to create a new JSON file "
                       "on the guarded filesystem", alive=d)
    new = guarded_output(t, jpath)
    t.readers.remove(out)
    expect(secret, "open", "open: EPERM", "after SIGUSR1", new)
    expect(public, "read", "ok", "after SIGUSR1", new)
    if pre:
        expect(prefile, "read", "read: EIO", "pre_access after SIGUSR1", new)
    # SIGHUP: the config is read from the guarded filesystem (written by
    # the child: an open there must not hang this process).
    c.do("create", path=cfg + ".new", data=conf([secret, secret2]), timeout=WAIT)
    c.do("rename", path=cfg + ".new", to=cfg, timeout=WAIT)
    i = d.notify.mark()
    d.signal(signal.SIGHUP)
    j = diagnose(d, d.wait_notify, "RELOADING", "1", start=i)
    diagnose(d, d.wait_notify, "READY", "1", start=j + 1)
    expect(secret2, "open", "open: EPERM", "a decision added by the reload", new)
    expect(public, "read", "ok", "after SIGHUP", new)
    d.wait_notify("STATUS", pred=lambda v: "rule 'guard'" in v, timeout=3)
    # Stopping writes the last stats record to the guarded filesystem.
    t0 = time.monotonic()
    stop(d, new)
    check(time.monotonic() - t0 < 3, f"the stop took {time.monotonic() - t0:.2f}s")
    check(stats_of(new, "guard") is not None, "no stats record at stop in the JSON file on the "
          "guarded filesystem")
    for rd in (out, new):
        mine = [r for r in rd.records if r.kind == "decision" and r.get("pid") == d.pid]
        check(not mine, f"the daemon reported its own accesses: {mine[:3]!r}")
        late = [r for r in rd.records if r.kind == "decision" and r.get("by") == "deadline"]
        check(not late, f"answers on deadline (something waited on the daemon's own "
              f"events?): {late[:3]!r}")


# ---------------------------------------------------------------------------
# Rules that cannot be placed, config errors
# ---------------------------------------------------------------------------

@test
def perm_required(t):
    # Permission rules are required by default: one that cannot be placed
    # stops the start, and a reload to such a config keeps the old one.
    ok = t.mkdir("ok")
    secret = make_file(t.path("ok", "secret"))
    missing = t.path("missing")
    outputs, out = t.json_setup()
    good = perm_rule("r-ok", [ok], ["open_perm"], mark="inode",
                     decisions=({"paths": [secret], "verdict": "deny"},))
    cases = [("r-missing", perm_rule("r-missing", [missing], ["open_perm"]), missing),
             # tmpfs has no pre-content events (EOPNOTSUPP)
             ("r-pre", perm_rule("r-pre", [t.fs], ["pre_access"], mark="filesystem",
                                 recursive=True), t.fs)]
    for name, r, path in cases:
        cfg = t.write_file(f"{name}.conf", config_text([good, r], outputs, ["json"]))
        d = t.daemon(cfg)
        rc = d.wait_exit()
        check(rc != 0, f"the daemon started although permission rule {name} cannot be placed")
        check(d.notify.find("READY") is None, f"READY=1 although permission rule {name} "
              "cannot be placed")
        check(name in d.stderr() and path in d.stderr(), f"the error does not name {name} "
              f"and {path}:{tail(d.stderr())}")
    cfg = t.write_file("fsnotifyd.conf", config_text([good], outputs, ["json"]))
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child()
    check(outcome(try_(c, secret)) == "open: EPERM", "not denied at start")
    t.write_file(cfg, config_text([good.replace("r-ok", "r-ok2"), cases[0][1]], outputs,
                                  ["json"]))
    i = d.notify.mark()
    logged = len(d.stderr())
    d.signal(signal.SIGHUP)
    failed = re.compile(r"reload.*(fail|error|invalid|reject)|(fail|error|invalid|reject)"
                        r".*reload", re.I)

    def done():  # a STATUS saying so, or the end of the reload (READY after RELOADING)
        rl = d.notify.find("RELOADING", "1", i)
        return (d.notify.find("STATUS", start=i, pred=failed.search) is not None
                or (rl is not None and d.notify.find("READY", "1", rl + 1) is not None))
    harness.wait_until(done, "the end of the reload", alive=d)
    check(failed.search(d.stderr()[logged:]), "the log does not say that the reload failed:"
          f"{tail(d.stderr()[logged:])}")
    if d.notify.find("STATUS", start=i, pred=failed.search) is None:
        t.note("no STATUS= saying that the reload failed (a rule that cannot be placed)")
    res = try_(c, secret)
    check(outcome(res) == "open: EPERM", f"after a reload to a config whose permission rule "
          f"cannot be placed: {outcome(res)}, expected the old rule's open: EPERM")
    stop(d, out)
    rules = {r.rule for r in out.records if r.kind == "decision"}
    check(rules == {"r-ok"}, f"decision records of rules {sorted(rules)}, expected only r-ok "
          "(the old config kept running)")


# (name, text with "@@" before the line the error must name, regexes the
# message must match). Each rule is on one line: which of its settings an
# error points at is the daemon's choice, its line is not.
_P = 'name = "p"; paths = ["/tmp"]; mark = "filesystem"; recursive = true;'
PERM_BAD_CONFIGS = [
    ("perm-mixed-events", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm", "create"]; }\n);\n', [r"notification|another rule"]),
    ("perm-deny-ebadf", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; decisions = ( { verdict = "deny(EBADF)"; } ); }\n);\n',
     [r"EBADF"] + [r"\b%s\b" % e for e in harness.DENY_ERRNOS]),
    ("perm-default-ebadf", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; default = "deny(EBADF)"; }\n);\n', [r"EBADF"]),
    ("perm-decisions-notification", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["create"]; decisions = ( { verdict = "deny"; } ); }\n);\n', [r"decisions?"]),
    ("perm-inotify", _GOOD_HEAD + 'rules = (\n  @@{ name = "p"; paths = ["/tmp"]; '
     'mark = "inotify"; events = ["open_perm"]; }\n);\n', [r"inotify"]),
    ("perm-bad-verdict", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; decisions = ( { verdict = "maybe"; } ); }\n);\n', [r"maybe"]),
    ("perm-no-verdict", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; decisions = ( { uids = [0]; } ); }\n);\n', [r"verdict"]),
    ("perm-decision-event", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; decisions = ( { events = ["access_perm"]; verdict = "deny"; }'
     ' ); }\n);\n', [r"access_perm"]),
    ("perm-deadline-0", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; deadline_ms = 0; }\n);\n', [r"deadline_ms"]),
    ("perm-deadline-big", _GOOD_HEAD + "rules = (\n  @@{ " + _P +
     ' events = ["open_perm"]; deadline_ms = 60001; }\n);\n', [r"deadline_ms"]),
]


@test
def perm_config_errors(t):
    problems, bad = bad_config_problems(t, PERM_BAD_CONFIGS)
    # The same permission rule, valid, is accepted.
    ok = _GOOD_HEAD + "rules = (\n  { " + _P + (' events = ["open_perm", "access_perm"]; '
                                                'decisions = ( { uids = [0]; verdict = '
                                                '"deny(EIO)"; log = true; audit = false; } ); '
                                                'default = "audit"; deadline_ms = 60000; '
                                                'deadline_verdict = "deny"; }\n);\n')
    p = t.write_file("good-perm.conf", ok)
    rc, so, se = run_cmd([t.binary, "--check-config", p])
    if rc != 0:
        problems.append(f"a valid permission rule: exit {rc}:{tail(so + se, 5)}")
    if problems:
        raise Fail(f"{len(bad)} of {len(PERM_BAD_CONFIGS)} bad configs wrong "
                   f"({', '.join(sorted(bad))}):\n" + "\n".join(problems))


# ---------------------------------------------------------------------------
# A rule's path in a directory another user owns (issue 28)
# ---------------------------------------------------------------------------

@test
def perm_symlink_swap(t):
    # A recursive deny rule on a user's upload directory: the user replaces
    # the directory with a symlink to a directory of root's programs. The
    # re-arm that follows (a notification rule's object went) and a SIGHUP
    # reload refuse the symlink: the rule does not move onto root's
    # directory, whose program root still runs; the user's own directory,
    # made again, is guarded again.
    home = t.mkdir("home")
    up = t.mkdir("home", "up")
    for p in (home, up):
        os.chown(p, NOBODY, NOBODY)
    bindir = t.mkdir("bin")
    prog = os.path.join(bindir, "prog")
    shutil.copy("/bin/true", prog)
    os.chmod(prog, 0o755)
    d, out, cfg = pstart(t, [
        perm_rule("no-exec", [up], ["open_exec_perm"], mark="auto", recursive=True,
                  default="deny", required=False),
        rule("n", [up], mark="inode", events=["create"])])
    user, root = t.child(comm="fsnd-user", uid=NOBODY), t.child(comm="fsnd-root")
    mine = os.path.join(up, "prog")
    user.do("create", path=mine, data="")
    user.do("chmod", path=mine, mode=0o755)
    check(outcome(try_(user, mine, "exec")) == "exec: EPERM", "the user's program in the "
          "guarded directory was not denied")
    check(outcome(try_(root, prog, "exec")) == "ok", "root's program denied before the swap")
    n = 0
    for how in ("re-arm", "SIGHUP"):
        logged = len(d.stderr())
        if how == "SIGHUP":
            diagnose(d, reload, d, t, cfg, open(cfg).read())
        else:
            user.do("rename", path=up, to=os.path.join(home, f"old-{n}"))
            user.do("symlink", path=up, to=bindir)
            harness.wait_until(lambda: "re-armed" in d.stderr()[logged:],
                               f"{how}: the re-arm", alive=d)
        n += 1
        res = try_(root, prog, "exec")
        check(outcome(res) == "ok", f"{how}: root's program in the directory the user's "
              f"symlink names: {outcome(res)}, expected ok (the deny rule moved there)")
        check(re.search(rf"rule 'no-exec': \"{re.escape(up)}\": .*symlink .*not followed",
                        d.stderr()[logged:]),
              f"{how}: the symlink's refusal is not logged:{tail(d.stderr()[logged:], 6)}")
    user.do("unlink", path=up)
    user.do("mkdir", path=up)
    harness.wait_until(lambda: out.find(lambda x: x.kind == "rearmed" and x.rule == "n")
                       is not None, "the user's directory made again: rearmed", alive=d)
    user.do("create", path=mine, data="")
    user.do("chmod", path=mine, mode=0o755)
    check(outcome(try_(user, mine, "exec")) == "exec: EPERM", "the user's directory made "
          "again is not guarded again")
    check(outcome(try_(root, prog, "exec")) == "ok", "root's program denied at the end")
