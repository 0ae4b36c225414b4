# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_output.py — the integration cases of outputs: the JSON file reopened
on SIGUSR1 (rotation; and a clean stop on SIGINT), a JSON file whose last
line was cut short, a hostile JSON file (a
symlink, a file or FIFO of another user, a link planted at the rotation),
--foreground's lines on stdout, a journal output without journald, exec
outputs (argv without a shell, fds, environment, capabilities, user =,
max_running and timeout). Registered in common.TESTS.
"""

import base64
import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import harness
from harness import (Fail, Skip, check, config_text, ev, record_attrs, rule, run_cmd, sha256sum,
                     stat_attrs, tail, wait_until)
from cases_metrics import parse_metrics, val
from common import NOBODY, check_process, start, test


# ---------------------------------------------------------------------------
# The JSON file: reopened on SIGUSR1, a hostile file
# ---------------------------------------------------------------------------

@test
def usr1_reopen(t):
    w = t.mkdir("w")
    d, out, _ = start(t, [rule("r-w", [w], mark="auto", events=["create"])])
    c = t.child()
    c.create(os.path.join(w, "before"))
    out.wait(ev(os.path.join(w, "before"), "create"), "the first event", daemon=d)
    rotated = out.path + ".1"
    os.rename(out.path, rotated)
    c.create(os.path.join(w, "during"))  # after the rename, before SIGUSR1: the old file
    old = t.output(rotated)
    old.offset, old.partial = out.offset, out.partial
    old.records = list(out.records)
    old.wait(ev(os.path.join(w, "during"), "create"), "the event between rename and SIGUSR1 "
             "in the renamed file", daemon=d)
    d.signal(signal.SIGUSR1)
    # The reopen creates the file at once (logrotate's copy-less rotation
    # expects it); bounded wait for that, then new events go there.
    wait_until(lambda: os.path.exists(out.path), "SIGUSR1 to create a new JSON file",
               alive=d)
    new = t.output(out.path)
    out.records = []  # the old reader is finished
    t.readers.remove(out)
    c.create(os.path.join(w, "after"))
    new.wait(ev(os.path.join(w, "after"), "create"), "an event after SIGUSR1 in the new file",
             daemon=d)
    old.poll()
    check(old.find(ev(os.path.join(w, "after"))) is None,
          "an event after SIGUSR1 went to the renamed file")
    check(old.count(ev(os.path.join(w, "before"))) == 1
          and old.count(ev(os.path.join(w, "during"))) == 1,
          "the renamed file lost or duplicated records")
    check(new.find(ev(os.path.join(w, "before"))) is None, "records duplicated into the new file")
    # one stream across the rotation, numbered on: nothing was lost
    a, z = old.records[-1].obj, new.records[0].obj
    check(a["stream"] == z["stream"] and z["seq"] == a["seq"] + 1,
          f"the rotated file ends with stream {a['stream']} seq {a['seq']}, the new one "
          f"begins with stream {z['stream']} seq {z['seq']}")
    # SIGINT stops cleanly too.
    i = d.notify.mark()
    d.signal(signal.SIGINT)
    rc = d.wait_exit(timeout=3)
    check(d.notify.find("STOPPING", "1", i) is not None, "no STOPPING=1 after SIGINT")
    check(rc == 0, f"exit status {rc} after SIGINT, expected 0")


@test
def json_cut_line(t):
    # A JSON file whose last line was cut short (as a kill -9 in the middle
    # of a write leaves it): the daemon ends that line before its first
    # record, at its start and at a reopen (SIGUSR1), and says so; the
    # records after it are whole lines (without the newline the first one
    # would be glued to the cut line, and both unreadable).
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    cut = b'{"time":"2026-12-08T00:00:00.000000Z","kind":"event","rule":"r-w","uid":0'
    with open(out.path, "wb") as f:
        f.write(cut)
    out.killed()
    d, out, _ = start(t, [rule("r-w", [w], mark="auto", events=["create"])], outputs=outputs,
                      reader=out)
    c = t.child()
    c.create(os.path.join(w, "a"))
    out.wait(ev(os.path.join(w, "a"), "create"), "the first event after the cut line", daemon=d)
    check(out.cuts == [cut], f"the cut line was not ended before the first record: {out.cuts}")
    check(re.search(r"ended in a line cut short", d.stderr()),
          f"no word of the cut line:{tail(d.stderr())}")
    with open(out.path, "ab") as f:
        f.write(cut[:40])
    out.killed()
    d.signal(signal.SIGUSR1)
    c.create(os.path.join(w, "b"))
    out.wait(ev(os.path.join(w, "b"), "create"), "the first event after the reopen", daemon=d)
    check(out.cuts == [cut, cut[:40]], f"the cut line was not ended at the reopen: {out.cuts}")


def machine_ids():
    """What this machine says its machine id (None when unknown) and boot
    id are, as records give them (32 hex digits)."""
    try:
        with open("/etc/machine-id") as f:
            m = f.read().strip() or None
    except OSError:
        m = None
    with open("/proc/sys/kernel/random/boot_id") as f:
        return m, f.read().strip().replace("-", "")


@test
def record_origin_and_order(t):
    # Every JSON line says where it was made (the host name, machine id and
    # boot id this machine gives) and its place: 100 000 records are one
    # stream numbered 1, 2, 3... without a gap; the daemon started again
    # appends a new stream, from 1, with the same origin.
    n_files = 100000
    w = t.mkdir("w")
    d, out, cfg = start(t, [rule("r", [w], events=["create"])])
    c = t.child()
    c.do("many", path=os.path.join(w, "f"), count=n_files, timeout=1200)
    out.wait(ev(os.path.join(w, f"f{n_files - 1:06d}"), "create"), "the last record",
             timeout=300, daemon=d)
    lines = [r.obj for r in out.records]
    overflowed = any(r["kind"] == "overflow" for r in lines)
    check(overflowed or sum(r["kind"] == "event" for r in lines) == n_files,
          f"{sum(r['kind'] == 'event' for r in lines)} event records of {n_files}")
    stream = lines[0]["stream"]
    check(all(r["stream"] == stream for r in lines), "more than one stream from one start")
    bad = next((i for i, r in enumerate(lines) if r["seq"] != i + 1), None)
    check(bad is None, f"line {bad} of the stream has seq {lines[bad]['seq'] if bad is not None else 0}")
    machine, boot = machine_ids()
    origin = {"host": socket.gethostname(), "machine_id": machine, "boot_id": boot}
    check(all({k: r[k] for k in origin} == origin for r in lines),
          f"a record's origin differs from {origin!r}")
    i = d.notify.mark()
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0 and d.notify.find("STOPPING", "1", i) is not None,
          "the daemon did not stop cleanly")
    d = t.daemon(cfg)
    d.wait_ready()
    c.create(os.path.join(w, "after"))
    r = out.wait(ev(os.path.join(w, "after"), "create"), "the record after the restart",
                 daemon=d).obj
    later = [x.obj for x in out.records[len(lines):]]
    check(later[0]["stream"] != stream and later[0]["seq"] == 1
          and [x["seq"] for x in later] == list(range(1, len(later) + 1))
          and {k: r[k] for k in origin} == origin,
          f"after the restart: {later!r}")


@test
def record_label(t):
    # A rule's tags and severity reach every record it makes: JSON "tags"
    # and "severity" (its events at its severity, "debug" too; its losses a
    # warning at least) and the exec template's {tags} and {severity}; a
    # rule without them: no tags, "info".
    w, v = t.mkdir("w"), t.mkdir("v")
    watched = os.path.join(v, "f")
    with open(watched, "w") as fh:
        fh.write("x\n")
    log = os.path.join(t.dir, "exec.log")
    outputs, out = t.json_setup()
    outputs["run"] = {"type": "exec", "argv": ["/bin/sh", "-c", f'echo "$1 $2 $3" >> {log}',
                                               "sh", "{rule}", "{severity}", "{tags}"]}
    d, out, _ = start(t, [rule("pci", [w], events=["create"], tags=["pci", "os:shadow"],
                               severity="err", outputs=["json", "run"]),
                          rule("quiet", [watched], events=["modify"], severity="debug"),
                          rule("plain", [w], events=["create"])], outputs=outputs, reader=out)
    c = t.child()
    x = os.path.join(w, "x")
    c.create(x)
    r = out.wait(ev(x, "create", rule="pci"), "the tagged rule's event", daemon=d)
    check(r.get("tags") == ["pci", "os:shadow"] and r.get("severity") == "err", f"{r!r}")
    r = out.wait(ev(x, "create", rule="plain"), "the plain rule's event", daemon=d)
    check("tags" not in r.obj and r.get("severity") == "info", f"{r!r}")
    c.do("write", path=watched)
    r = out.wait(ev(watched, "modify", rule="quiet"), "the quiet rule's event", daemon=d)
    check("tags" not in r.obj and r.get("severity") == "debug", f"{r!r}")
    c.do("unlink", path=watched)
    r = out.wait(lambda r: r.kind == "gone" and r.rule == "quiet", "the quiet rule's gone",
                 daemon=d)
    check(r.get("severity") == "warning", f"a loss below warning: {r!r}")
    wait_until(lambda: os.path.exists(log) and open(log).read() == "pci err pci,os:shadow\n",
               "the exec output's line", alive=d)


def cgroup2_top():
    """The top of the cgroup2 hierarchy (where a cgroup made has no
    processes above it but the root's); Skip without one."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, post = line.split(" - ", 1)
            if post.split()[0] == "cgroup2":
                return pre.split()[4]
    raise Skip("no cgroup2 hierarchy mounted")


@test
def record_who(t):
    # A rule with who: the audit login uid and session (set for the child
    # as a login would, then kept across its change of uid to nobody), its
    # executable and its parent, exactly what /proc says of them; a rule
    # without who says none of it. Then children in a *.service and a
    # docker-ID.scope cgroup: their unit, slice and container, and their
    # mount namespace.
    w = t.mkdir("w")
    os.chmod(w, 0o777)
    d, out, _ = start(t, [rule("who", [w], events=["create"], mark="inode", who=True),
                          rule("plain", [w], events=["create"], mark="inode")])
    c = t.child(uid=NOBODY, loginuid=4242)
    x = os.path.join(w, "x")
    c.create(x)
    r = out.wait(ev(x, "create", rule="who"), "the who rule's event", daemon=d)

    def proc(name):
        with open(f"/proc/{c.pid}/{name}") as f:
            v = int(f.read())
        return None if v == 4294967295 else v
    login, session = proc("loginuid"), proc("sessionid")
    if login != 4242:
        t.note(f"the kernel kept the login uid ({login}): compared with that")
    with open("/proc/self/comm") as f:
        parent_comm = f.read().rstrip("\n")
    want = {"uid": NOBODY, "login_uid": login, "session": session,
            "exe": os.readlink("/proc/self/exe"), "ppid": os.getpid(),
            "parent_comm": parent_comm}
    check({k: r.get(k) for k in want} == want, f"{r!r}, expected {want!r}")
    r = out.wait(ev(x, "create", rule="plain"), "the plain rule's event", daemon=d)
    check(not {"login_uid", "session", "exe", "ppid", "parent_comm", "unit", "mntns"}
          & set(r.obj), f"{r!r}")
    # the unit, slice and container its cgroup names (cgroups made at the
    # top of the cgroup2 hierarchy, as systemd and docker name theirs), and
    # a mount namespace of its own
    top = cgroup2_top()
    sl = os.path.join(top, f"fsnd-it-{os.getpid()}.slice")
    cid = "%064x" % os.getpid()
    made = [sl, os.path.join(sl, "fsnd-who.service"), os.path.join(sl, f"docker-{cid}.scope")]
    for m in made:
        os.mkdir(m)
    t.cleanups.append(lambda: [os.rmdir(m) for m in reversed(made)])
    for i, (cg, unit, container) in enumerate([(made[1], "fsnd-who.service", None),
                                               (made[2], f"docker-{cid}.scope",
                                                f"docker://{cid}")]):
        c = t.child(own_mntns=i == 1)
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(c.pid))
        y = os.path.join(w, f"y{i}")
        c.create(y)
        r = out.wait(ev(y, "create", rule="who"), f"the event of the child in {cg}", daemon=d)
        mntns = os.stat(f"/proc/{c.pid}/ns/mnt").st_ino
        want = {"unit": unit, "slice": os.path.basename(sl), "container": container,
                "mntns": mntns}
        check({k: r.get(k) for k in want} == want, f"{r!r}, expected {want!r}")
        check((mntns != os.stat("/proc/self/ns/mnt").st_ino) == (i == 1),
              "the child's mount namespace is not what the case made")
        c.close()


def drop_cap_kill():
    """(preexec) CAP_KILL out of the bounding set: the daemon runs without."""
    libc = ctypes.CDLL(None, use_errno=True)
    PR_CAPBSET_DROP, CAP_KILL = 24, 5
    if libc.prctl(PR_CAPBSET_DROP, CAP_KILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP, CAP_KILL)")


@test
def record_who_gone(t):
    # A rule with who has the kernel give a pidfd with each event
    # (FAN_REPORT_PIDFD): a process that exited before the daemon read its
    # event is reported as gone (who_skipped), with no comm, uid or who,
    # never with what /proc says of whatever has its pid by then; one that
    # still runs, with its own. An inotify rule with who says its records
    # have no process.
    # (the daemon without CAP_KILL, as the shipped unit's bounding set has
    # it: telling a running process of another user from a gone one must
    # need no right to signal it)
    w = t.mkdir("w")
    os.chmod(w, 0o777)
    d, out, _ = start(t, [rule("who", [w], events=["create"], mark="inode", who=True),
                          rule("ino", [w], events=["create"], mark="inotify", who=True)],
                      preexec=drop_cap_kill)
    x = os.path.join(w, "x")
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    try:
        # (touch has exited and been waited for before the daemon reads)
        rc, _, se = run_cmd(["touch", x])
    finally:
        d.signal(signal.SIGCONT)
    check(rc == 0, se)
    r = out.wait(ev(x, "create", rule="who"), "the gone process's event", daemon=d)
    check(r.get("who_skipped") == "gone" and r.get("pid", 0) > 0 and
          all(r.get(k, 0) is None for k in ("comm", "uid", "exe", "ppid", "login_uid")),
          f"a process gone before its event was read: {r!r}")
    c = t.child(uid=NOBODY)
    y = os.path.join(w, "y")
    c.create(y)
    r = out.wait(ev(y, "create", rule="who"), "the running child's event", daemon=d)
    check_process(r, c, "a running process of another user")
    check("who_skipped" not in r.obj and r.get("exe") == os.readlink(f"/proc/{c.pid}/exe"),
          f"{r!r}")
    r = out.wait(ev(y, "create", rule="ino"), "the inotify rule's event", daemon=d)
    check(r.get("who_skipped") == "inotify" and r.get("pid") is None, f"{r!r}")


@test
def record_attributes(t):
    # A rule with attributes: what the file is now and what it was, for
    # changes made by the real tools (chmod, chown, truncate, touch -d, ln,
    # rm), each equal to what stat(1) says before and after; "changed"
    # names what differs. A file there before the start is known from the
    # start (the mark's directory read when it is placed); one just created
    # has no before; a rule without attributes says none of it.
    # (A link count's attrib reaches the file's own mark only: the kernel
    # does not tell its directory.)
    w = t.mkdir("w")
    f = os.path.join(w, "f")
    with open(f, "w") as fh:
        fh.write("hello\n")
    os.chmod(f, 0o644)
    events = ["create", "close_write", "attrib", "modify", "moved_to", "delete"]
    d, out, _ = start(t, [rule("attrs", [w], events=events, attributes=True),
                          rule("self", [f], events=["attrib"], attributes=True),
                          rule("plain", [w], events=["attrib"])])
    # (a file there before the start: known from the mark's placing)
    before = stat_attrs(f)
    rc, _, se = run_cmd(["sh", "-c", f"printf 'more\\n' >> '{f}'"])
    check(rc == 0, se)
    r = out.wait(ev(f, "modify", rule="attrs"), "the first write's modify", daemon=d)
    check(record_attrs(r.get("attrs_before")) == before,
          f"the first change of a file there before the start: {r!r}, stat said {before!r}")
    # (its close_write: the same record, or one after it)
    r = out.wait(ev(f, "close_write", rule="attrs"), "the first write's close_write", daemon=d)
    now = stat_attrs(f)
    check(record_attrs(r.get("attrs")) == now, f"attrs {r.get('attrs')!r}, stat says {now!r}")
    g = os.path.join(w, "g")
    rc, _, se = run_cmd(["sh", "-c", f"umask 022; printf 'new\\n' > '{g}'"])
    check(rc == 0, se)
    r = out.wait(ev(g, "create", rule="attrs"), "the new file's create", daemon=d)
    check(r.get("attrs_before", "absent") is None and "changed" not in r.obj,
          f"a new file with a before: {r!r}")
    c = t.child()
    n = 0
    for argv, event, rl, key in (
            (["chmod", "4755", f], "attrib", "attrs", "mode"),
            (["chown", "4242:4343", f], "attrib", "attrs", "uid"),
            (["truncate", "-s", "100", f], "modify", "attrs", "size"),
            (["touch", "-d", "2020-01-02 03:04:05.123456789", f], "attrib", "attrs", "mtime"),
            (["ln", f, f + ".link"], "attrib", "self", "nlink"),
            (["rm", f + ".link"], "attrib", "self", "nlink")):
        before = stat_attrs(f)
        mark = len(out.records)
        rc, _, se = run_cmd(argv)
        check(rc == 0, f"{argv}: {se}")
        what = " ".join(argv[:-1])
        # every record of the command handled (a truncate's close_write
        # too) before the next command changes the file again
        end = t.marker(c, out, w, d, rule="attrs")
        # (the file's own mark: its path is one of its names, told by its
        # handle, when it has two)
        pred = ev(f, event, rule=rl) if rl == "attrs" else \
            lambda r: r.kind == "event" and r.rule == rl and event in r.events
        recs = [r for r in out.records[mark:end] if pred(r)]
        check(recs, f"no {event} record of rule {rl} for {what}")
        r = recs[0]
        now = stat_attrs(f)
        check(record_attrs(r.get("attrs")) == now,
              f"{what}: attrs {r.get('attrs')!r}, stat says {now!r}")
        check(record_attrs(r.get("attrs_before")) == before,
              f"{what}: attrs_before {r.get('attrs_before')!r}, stat said {before!r}")
        differ = [k for k in before if before[k] != now[k]]
        check(r.get("changed") == differ and key in differ,
              f"{what}: changed {r.get('changed')!r}, stat says {differ!r}")
        n += 1
    r = out.wait(ev(f, "attrib", rule="plain"), "the plain rule's attrib", daemon=d)
    check(not {"attrs", "attrs_before", "changed"} & set(r.obj), f"{r!r}")
    t.note(f"{n} changes, each equal to stat(1) before and after")


def content(path, event=None, rule="h", start_at=0):
    """A predicate: a content record of rule's for path (after event)."""
    pb = path.encode() if isinstance(path, str) else path

    def pred(r):
        return (r.kind == "content" and r.path == pb and r.rule == rule
                and (event is None or event in r.events))
    return pred


@test
def record_content(t):
    # A rule with hash: a content record follows a change with what the
    # file holds, equal to sha256sum(1) of it: a file written, a 0-byte
    # file, a file renamed over the watched name (also while the hasher is
    # busy: each record keeps its own name); a file over
    # limits.hash_max_size (1 MiB here) is not hashed (too_big, its size);
    # a symbolic link is not_regular; a file removed before the daemon got
    # to it is gone. A rule without hash has no content records.
    w = t.mkdir("w")
    events = ["create", "close_write", "moved_to"]
    d, out, _ = start(t, [rule("h", [w], events=events, mark="inode", hash=True),
                          rule("plain", [w], events=events, mark="inode")],
                      top="limits = { hash_max_size = 1; hash_rate = 1; };")
    c = t.child()
    n = 0
    f = os.path.join(w, "f")
    for what, cmd, path, event in (
            ("a file written", f"printf 'hello\\n' > '{f}'", f, "close_write"),
            ("a 0-byte file", f"touch '{w}/empty'", os.path.join(w, "empty"), "close_write"),
            ("a file renamed over another", f"printf 'other\\n' > '{w}/.new' && "
             f"mv '{w}/.new' '{f}'", f, "moved_to")):
        mark = len(out.records)
        rc, _, se = run_cmd(["sh", "-c", cmd])
        check(rc == 0, f"{cmd}: {se}")
        end = t.marker(c, out, w, d, rule="h")
        want = sha256sum(path)
        r = out.wait(content(path, event), f"the content record of {what}", start=mark,
                     daemon=d)
        check((r.get("sha256"), r.get("size")) == want,
              f"{what}: {r!r}, sha256sum says {want!r}")
        check("hash_skipped" not in r.obj and r.get("event_time") <= r.get("time"), f"{r!r}")
        # (every content record of it before the marker is of that content,
        # or of the file as it was being made: the empty file of its
        # create, or one read while it was written, changing)
        for x in out.records[mark:end]:
            if content(path)(x) and x.get("sha256") not in (want[0], EMPTY_SHA256) and \
                    x.get("hash_skipped") != "changing":
                raise Fail(f"{what}: a content record of another content: {x!r}")
        n += 1
    # written and renamed over f while the hasher reads a slow file (at
    # limits.hash_rate, a second): the write's file still waits when the
    # rename's comes, and each record keeps its own name
    slow, new = os.path.join(w, "slow"), os.path.join(w, ".new")
    mark = len(out.records)
    with open(slow, "wb") as fh:
        fh.write(b"s" * 1000000)
    out.wait(ev(slow, "close_write", rule="h"), "the slow file's close_write", start=mark,
             daemon=d)
    with open(new, "w") as fh:
        fh.write("again\n")
    out.wait(ev(new, "close_write", rule="h"), "the close_write of .new", start=mark, daemon=d)
    os.rename(new, f)
    want = sha256sum(f)
    r = out.wait(content(f, "moved_to"), "the content record of f after the rename",
                 start=mark, daemon=d)
    check((r.get("sha256"), r.get("size")) == want, f"renamed: {r!r}, sha256sum says {want!r}")
    r = out.wait(content(new, "close_write"), "the content record of .new", start=mark,
                 daemon=d)
    check(r.get("sha256") == want[0] or r.get("hash_skipped") == "gone", f".new: {r!r}")
    r = out.wait(content(slow, "close_write"), "the slow file's content record", start=mark,
                 daemon=d)
    check(r.get("size") == 1000000 and r.get("sha256"), f"the slow file: {r!r}")
    n += 1
    big = os.path.join(w, "big")
    mark = len(out.records)
    rc, _, se = run_cmd(["sh", "-c", f"head -c 2097152 /dev/zero > '{big}'"])
    check(rc == 0, se)
    r = out.wait(content(big, "close_write"), "the big file's content record", start=mark,
                 daemon=d)
    check(r.get("sha256") is None and r.get("hash_skipped") == "too_big"
          and r.get("size") == 2097152, f"a file over hash_max_size: {r!r}")
    link = os.path.join(w, "link")
    os.symlink("f", link)
    r = out.wait(content(link, "create"), "the symbolic link's content record", daemon=d)
    check(r.get("sha256") is None and r.get("hash_skipped") == "not_regular", f"{r!r}")
    # gone: made and removed while the daemon is stopped (SIGSTOP), so that
    # it looks for the file after it went
    g = os.path.join(w, "g")
    d.signal(signal.SIGSTOP)
    try:
        rc, _, se = run_cmd(["sh", "-c", f"printf 'x' > '{g}' && rm '{g}'"])
    finally:
        d.signal(signal.SIGCONT)
    check(rc == 0, se)
    r = out.wait(content(g, "close_write"), "the removed file's content record", daemon=d)
    check(r.get("sha256") is None and r.get("hash_skipped") == "gone", f"{r!r}")
    end = t.marker(c, out, w, d, rule="plain")
    check(not [x for x in out.records[:end] if x.kind == "content" and x.rule == "plain"],
          "a rule without hash has content records")
    t.note(f"{n} contents equal to sha256sum(1); too_big, not_regular, gone")


EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@test
def record_content_changing(t):
    # A file that changes while the daemon reads it is reported as
    # changing, never with a hash: limits.hash_rate (1 MiB/s) makes the
    # read of a 32 MiB file last; inotifywait(1) sees the daemon's first
    # read (IN_ACCESS), then the file is truncated under it. The content
    # record after the truncate's own change is sha256sum's again.
    if not shutil.which("inotifywait"):
        raise Skip("no inotifywait (inotify-tools)")
    w = t.mkdir("w")
    f = os.path.join(w, "f")
    with open(f, "w"):
        pass
    d, out, _ = start(t, [rule("h", [w], events=["close_write"], mark="inode", hash=True)],
                      top="limits = { hash_rate = 1; };")
    watcher = subprocess.Popen(["inotifywait", "-q", "-e", "access", f],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.cleanups.append(lambda: watcher.kill())
    # (inotifywait says nothing when its watch is placed with -q: its own
    # open of nothing; wait for the watch itself, in /proc)
    wait_until(lambda: inotify_watching(watcher.pid), "inotifywait's watch", alive=d)
    mark = len(out.records)
    rc, _, se = run_cmd(["sh", "-c", f"head -c 33554432 /dev/zero > '{f}'"])
    check(rc == 0, se)
    wait_until(lambda: watcher.poll() is not None, "the daemon's first read of the file",
               alive=d)
    rc, _, se = run_cmd(["truncate", "-s", "1000", f])
    check(rc == 0, se)
    i = out.wait_index(content(f, "close_write"), "the content record of the 32 MiB write",
                       start=mark, daemon=d)
    r = out.records[i]
    check(r.get("sha256") is None and r.get("hash_skipped") == "changing",
          f"a file truncated while it was read: {r!r}")
    r = out.wait(content(f, "close_write"), "the content record of the truncate", start=i + 1,
                 daemon=d)
    want = sha256sum(f)
    check((r.get("sha256"), r.get("size")) == want, f"{r!r}, sha256sum says {want!r}")


def build_deb(t, name, files, version="1.0", conffiles=()):
    """A Debian package name, version, holding files {absolute path:
    bytes} (those in conffiles its conffiles, left out of its md5sums, as
    dh_md5sums does), built with dpkg-deb --build: its path."""
    root = os.path.join(t.dir, f"debroot-{name}-{version}")
    os.makedirs(os.path.join(root, "DEBIAN"))
    sums = []
    for path, data in files.items():
        p = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        if path not in conffiles:
            sums.append(f"{hashlib.md5(data).hexdigest()}  {path.lstrip('/')}\n")
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: {name}\nVersion: {version}\nArchitecture: all\n"
                "Maintainer: fsnotifyd tests <tests@fsnotifyd.invalid>\n"
                "Description: a package of the integration suite\n")
    with open(os.path.join(root, "DEBIAN", "md5sums"), "w") as f:
        f.write("".join(sums))
    if conffiles:
        with open(os.path.join(root, "DEBIAN", "conffiles"), "w") as f:
            f.write("".join(c + "\n" for c in conffiles))
    deb = os.path.join(t.dir, f"{name}_{version}.deb")
    rc, _, se = run_cmd(["dpkg-deb", "--root-owner-group", "--build", root, deb])
    check(rc == 0, f"dpkg-deb --build: {se}")
    return deb


def package_dir(t, top, prefix):
    """A package name of the test's and its directory under top (made;
    removed, the package purged, at the end), or Skip without dpkg."""
    if not shutil.which("dpkg-deb") or not os.path.isdir("/var/lib/dpkg/info"):
        raise Skip("no dpkg")
    name = f"{prefix}-{os.getpid()}"
    w = os.path.join(top, name)
    os.makedirs(w)
    t.cleanups.append(lambda: shutil.rmtree(w, ignore_errors=True))
    t.cleanups.append(lambda: run_cmd(["dpkg", "--purge", name]))
    return name, w


@test
def record_packages(t):
    # Rules with packages, against the real dpkg: a package built with
    # dpkg-deb --build and installed with dpkg -i. "verify": its file's
    # content record names the package and says verified; "drop": nothing
    # of the install is reported (dpkg's create, write and rename of the
    # file, held until dpkg wrote its md5sums, then dropped: counted in the
    # metrics). A file of the package changed by hand afterwards: not
    # verified, in both; a file no package lists: an ordinary change. The
    # package is purged at the end.
    name, w = package_dir(t, "/opt", "fsnd-it")
    tool = os.path.join(w, "tool")
    deb = build_deb(t, name, {tool: os.urandom(3000)})
    textdir = t.mkdir("textfile")
    prom = os.path.join(textdir, "m.prom")
    outputs, out = t.json_setup()
    outputs["prom"] = {"type": "metrics", "file": prom, "interval": 3600}
    events = ["create", "close_write", "moved_to"]
    state = t.mkdir("state", mode=0o700)  # (its held records' spool: the test's own)
    d, out, _ = start(t, [rule("verify", [w], events=events, mark="inode", packages="verify"),
                          rule("drop", [w], events=events, mark="inode", packages="drop")],
                      outputs=outputs, reader=out, top=f'state_directory = "{state}";')
    mark = len(out.records)
    rc, _, se = run_cmd(["dpkg", "-i", deb], timeout=120)
    check(rc == 0, f"dpkg -i: {se}")
    r = out.wait(lambda r: r.kind == "content" and r.rule == "verify" and r.path == tool.encode(),
                 "the verify rule's content record of the installed file", start=mark, daemon=d)
    want = sha256sum(tool)
    check(r.get("package") == name and r.get("package_verified") is True and
          (r.get("sha256"), r.get("size")) == want, f"{r!r}, sha256sum says {want!r}")
    c = t.child()
    end = t.marker(c, out, w, d, rule="drop")
    installed = [x for x in out.records[mark:end]
                 if x.rule == "drop" and x.path and x.path.startswith(tool.encode())]
    check(not installed, f"the drop rule reported dpkg's install: {installed!r}")
    dpkg_events = [x for x in out.records[mark:end] if x.rule == "verify" and x.kind == "event"
                   and x.get("comm") == "dpkg"]
    check(dpkg_events, "the verify rule reported none of dpkg's changes")
    # by hand: not what the package lists
    mark = len(out.records)
    with open(tool, "ab") as f:
        f.write(b"tampered\n")
    for rl in ("verify", "drop"):
        r = out.wait(ev(tool, "close_write", rule=rl), f"the {rl} rule's event of the change",
                     start=mark, daemon=d)
        r = out.wait(lambda r, rl=rl: r.kind == "content" and r.rule == rl and
                     r.path == tool.encode(), f"the {rl} rule's content record of the change",
                     start=mark, daemon=d)
        check(r.get("package") == name and r.get("package_verified") is False and
              r.get("sha256") == sha256sum(tool)[0], f"a change by hand: {r!r}")
    # an upgrade (2.0: the file anew, 19 more): dpkg writes each file as
    # NAME.dpkg-new, links the old one as NAME.dpkg-tmp and renames the new
    # ones over their names at the end, then writes the md5sums. "verify":
    # each is verified; "drop": none of it is reported.
    files2 = {tool: os.urandom(3000)}
    files2.update({os.path.join(w, f"f{i:02d}"): os.urandom(100 + i) for i in range(19)})
    deb2 = build_deb(t, name, files2, version="2.0")
    mark = len(out.records)
    rc, _, se = run_cmd(["dpkg", "-i", deb2], timeout=120)
    check(rc == 0, f"dpkg -i (upgrade): {se}")
    for p in files2:
        r = out.wait(lambda r, p=p: r.kind == "content" and r.rule == "verify" and
                     r.path == p.encode(), f"the verify rule's content record of {p}",
                     start=mark, daemon=d)
        check(r.get("package") == name and r.get("package_verified") is True,
              f"the upgrade's {p}: {r!r}")
    end = t.marker(c, out, w, d, rule="drop")
    upgrade = [x for x in out.records[mark:end]
               if x.rule == "drop" and x.path and not os.path.basename(x.path).startswith(b"zz-")]
    check(not upgrade, f"the drop rule reported the upgrade: {upgrade[:5]!r}")
    # a file no package lists: no package fields, no content record
    other = os.path.join(w, "other")
    c.create(other)
    end = t.marker(c, out, w, d, rule="drop")
    check(not [x for x in out.records[mark:end] if x.kind == "content" and x.path == other.encode()],
          "a content record of a file no package lists")
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc}:{tail(d.stderr())}")
    s, _ = parse_metrics(open(prom).read())
    dropped = val(s, "fsnotifyd_package_changes_dropped_total")
    check(dropped and dropped >= 3 + 20 * 3, f"changes dropped: {dropped} (dpkg's create, "
          "close_write and rename of each file, at the install and the upgrade)")
    t.note(f"{int(dropped)} of dpkg's changes dropped as verified")


@test
def record_packages_conffiles(t):
    # A package's conffile (in dpkg's status, not its md5sums), against the
    # real dpkg: installed with dpkg -i, then upgraded as apt does it (dpkg
    # --unpack writes conf.dpkg-new and exits; dpkg --configure renames it
    # over conf and writes the status with the new MD5). "verify": each
    # time the content record names the package and says verified; "drop":
    # nothing of it is reported. Changed by hand: not verified. The "drop"
    # rule keeps a baseline: what it dropped as verified is recorded all the
    # same, so its next start reports nothing of the package.
    name, w = package_dir(t, "/etc", "fsnd-itc")
    conf = os.path.join(w, "conf")
    debs = [build_deb(t, name, {conf: f"v{v} {os.urandom(8).hex()}\n".encode()},
                      version=f"{v}.0", conffiles=(conf,)) for v in (1, 2, 3)]
    outputs, out = t.json_setup()
    events = ["create", "close_write", "moved_to"]
    state = t.mkdir("state", mode=0o700)
    d, out, cfg = start(t, [rule("verify", [w], events=events, mark="inode", packages="verify"),
                            rule("drop", [w], events=events, mark="inode", packages="drop",
                                 baseline=True)],
                        outputs=outputs, reader=out, top=f'state_directory = "{state}";')
    wait_until(lambda: "baseline of rule 'drop' made" in d.stderr(), "the drop rule's baseline",
               alive=d)
    c = t.child()
    for step, cmds in (("install", [["dpkg", "-i", debs[0]]]),
                       ("upgrade", [["dpkg", "--unpack", debs[1]], ["dpkg", "--configure", name]])):
        mark = len(out.records)
        for cmd in cmds:
            rc, _, se = run_cmd(cmd, timeout=120)
            check(rc == 0, f"{' '.join(cmd)}: {se}")
        r = out.wait(lambda r: r.kind == "content" and r.rule == "verify" and
                     r.path == conf.encode(), f"the verify rule's content record of the "
                     f"{step}'s conffile", start=mark, daemon=d)
        want = sha256sum(conf)
        check(r.get("package") == name and r.get("package_verified") is True and
              (r.get("sha256"), r.get("size")) == want, f"{step}: {r!r}, sha256sum says {want!r}")
        end = t.marker(c, out, w, d, rule="drop")
        dropped = [x for x in out.records[mark:end]
                   if x.rule == "drop" and x.path and x.path.startswith(conf.encode())]
        check(not dropped, f"the drop rule reported the {step}: {dropped!r}")
    # what the drop rule dropped is recorded: its next start reports nothing
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc}:{tail(d.stderr())}")
    mark = len(out.records)
    d = t.daemon(cfg)
    d.wait_ready()
    wait_until(lambda: "baseline of rule 'drop' compared" in d.stderr(),
               "the drop rule's comparison", alive=d)
    out.poll()
    again = [x for x in out.records[mark:] if x.kind == "baseline"]
    check(not again, f"the next start reports what was dropped as verified: {again!r}")
    # an upgrade while the daemon is stopped: at its start, the drop rule's
    # comparison checks the conffile against dpkg's word, and drops it
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0, "exit status after SIGTERM")
    rc, _, se = run_cmd(["dpkg", "-i", debs[2]], timeout=120)
    check(rc == 0, f"dpkg -i (3.0, the daemon stopped): {se}")
    mark = len(out.records)
    d = t.daemon(cfg)
    d.wait_ready()
    m = wait_until(lambda: re.search(r"baseline of rule 'drop' compared[^\n]*", d.stderr()),
                   "the drop rule's comparison", alive=d)
    out.poll()
    again = [x for x in out.records[mark:] if x.kind == "baseline"]
    # (found: its directory and it changed; only the directory is reported)
    check([x.path for x in again] == [w.encode()] and "2 changed" in m.group(0),
          f"the upgrade made while stopped, verified: {again!r}; {m.group(0)}")
    mark = len(out.records)
    with open(conf, "ab") as f:
        f.write(b"an admin's line\n")
    for rl in ("verify", "drop"):
        r = out.wait(lambda r, rl=rl: r.kind == "content" and r.rule == rl and
                     r.path == conf.encode(), f"the {rl} rule's content record of the change",
                     start=mark, daemon=d)
        check(r.get("package") == name and r.get("package_verified") is False and
              r.get("sha256") == sha256sum(conf)[0], f"a change by hand: {r!r}")
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc}:{tail(d.stderr())}")


@test
def record_packages_held_kill(t):
    # A record a drop rule holds for dpkg's word survives the daemon's
    # SIGKILL: dpkg --unpack writes a conffile's conf.dpkg-new and exits
    # (the temporary waits for --configure's rename); the daemon, killed
    # meanwhile, reports the held records at its next start, as they stood
    # (hash_skipped "restart"), and its spool (STATE_DIRECTORY/held) is
    # empty once nothing is held.
    name, w = package_dir(t, "/etc", "fsnd-ith")
    conf = os.path.join(w, "conf")
    debs = [build_deb(t, name, {conf: f"v{v} {os.urandom(8).hex()}\n".encode()},
                      version=f"{v}.0", conffiles=(conf,)) for v in (1, 2)]
    t.cleanups.append(lambda: run_cmd(["dpkg", "--configure", name]))
    outputs, out = t.json_setup()
    state = t.mkdir("state", mode=0o700)
    spool = os.path.join(state, "held")
    d, out, cfg = start(t, [rule("drop", [w], events=["create", "close_write", "moved_to"],
                                 mark="inode", packages="drop")],
                        outputs=outputs, reader=out, top=f'state_directory = "{state}";')
    c = t.child()
    rc, _, se = run_cmd(["dpkg", "-i", debs[0]], timeout=120)
    check(rc == 0, f"dpkg -i: {se}")
    t.marker(c, out, w, d, rule="drop")
    wait_until(lambda: os.path.getsize(spool) == 0, "the spool emptied after the install",
               alive=d)
    rc, _, se = run_cmd(["dpkg", "--unpack", debs[1]], timeout=120)
    check(rc == 0, f"dpkg --unpack: {se}")
    mark = t.marker(c, out, w, d, rule="drop")
    held = [x for x in out.records[:mark] if x.rule == "drop" and x.path and
            x.path.startswith(conf.encode())]
    check(not held, f"the unpack reported before dpkg's word: {held!r}")
    with open(spool) as f:
        lines = f.read().splitlines()
    check(len([x for x in lines if x.startswith("H ")]) >= 1,
          f"nothing held in the spool after the unpack: {lines!r}")
    st = os.stat(spool)
    check(st.st_uid == 0 and st.st_mode & 0o777 == 0o600, f"the spool's owner and mode: {st!r}")
    d.signal(signal.SIGKILL)
    d.wait_exit()
    mark = len(out.records)
    d = t.daemon(cfg)
    d.wait_ready()
    r = out.wait(lambda r: r.kind == "event" and r.rule == "drop" and
                 r.path == (conf + ".dpkg-new").encode(), "the held record at the next start",
                 start=mark, daemon=d)
    check(r.get("hash_skipped") == "restart" and r.get("comm") is None,
          f"the held record, reported at the next start: {r!r}")
    check(os.path.getsize(spool) == 0, "the spool after the next start holds something")
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0, "exit status after SIGTERM")


def inotify_watching(pid):
    """Whether process pid has an inotify watch placed (its fdinfo)."""
    try:
        for fd in os.listdir(f"/proc/{pid}/fdinfo"):
            with open(f"/proc/{pid}/fdinfo/{fd}") as fh:
                if "inotify wd:" in fh.read():
                    return True
    except OSError:
        return False
    return False


@test
def output_file_hostile(t):
    # The json output file as a hostile local user would prepare it: a
    # symlink to a file root owns, a 0666 file of their own, a FIFO of
    # their own. Each is refused at start (exit 1, no READY, the message
    # says why) and the link's target is untouched; on SIGUSR1 a link
    # planted after the rotation is refused and the daemon keeps writing
    # to the file it has. A directory others can write to is warned about.
    w = t.mkdir("w")
    victim = t.write_file("victim", "root's\n")
    shared = os.path.join(t.dir, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    problems = []

    def plant(kind, path):
        if kind == "symlink":
            os.symlink(victim, path)
        elif kind == "file of another user":
            with open(path, "w"):
                pass
            os.chmod(path, 0o666)
            os.chown(path, 65534, 65534)
        else:
            os.mkfifo(path, 0o666)
            os.chown(path, 65534, 65534)

    for kind, why in (("symlink", "symbolic link"), ("file of another user", "belongs to uid"),
                      ("FIFO of another user", "FIFO")):
        out = os.path.join(shared, kind.replace(" ", "-") + ".json")
        plant(kind, out)
        cfg = t.write_file("o.conf", config_text([rule("r", [w], events=["create"])],
                                                 {"j": {"type": "json", "file": out}}, ["j"]))
        d = t.daemon(cfg, name="hostile")
        rc = d.wait_exit(timeout=10)
        err = d.stderr()
        if rc == 0 or d.notify.find("READY") is not None:
            problems.append(f"{kind}: started (exit {rc})")
        if not ("output 'j'" in err and why in err):
            problems.append(f"{kind}: the error does not say '{why}':{tail(err, 3)}")
    with open(victim) as f:
        if f.read() != "root's\n":
            problems.append("the symlink's target was written to")

    # rotation: the daemon's own file, then a planted link at its path
    out = os.path.join(shared, "events.json")
    cfg = t.write_file("o.conf", config_text([rule("r", [w], events=["create"])],
                                             {"j": {"type": "json", "file": out}}, ["j"]))
    d = t.daemon(cfg)
    d.wait_ready()
    if "writable by everyone" not in d.stderr():
        problems.append(f"no warning about the world-writable directory:{tail(d.stderr(), 3)}")
    os.rename(out, out + ".1")
    os.symlink(victim, out)
    logged = len(d.stderr())
    d.signal(signal.SIGUSR1)
    c = t.child()
    rd = t.output(out + ".1")
    wait_until(lambda: "cannot reopen" in d.stderr()[logged:], "the refused reopen", alive=d)
    if "symbolic link" not in d.stderr()[logged:]:
        problems.append(f"reopen onto a symlink: not said why:{tail(d.stderr(), 3)}")
    p = os.path.join(w, "after-rotation")
    c.create(p)
    rd.wait(ev(p, "create", "r"), "the create, still in the rotated file", daemon=d)
    with open(victim) as f:
        if f.read() != "root's\n":
            problems.append("after SIGUSR1, the planted link's target was written to")
    if problems:
        raise Fail("\n".join(problems))


PROTECTED_HARDLINKS = "/proc/sys/fs/protected_hardlinks"


def as_nobody(*cmd):
    r = run_cmd(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                 *cmd])
    check(r[0] == 0, f"{' '.join(cmd)} as uid {NOBODY}: exit {r[0]}:{tail(r[2], 3)}")


@test
def output_file_hardlink(t):
    # A hard link another user planted at the json output's path, to a
    # file root owns (issue 28, F2): where fs.protected_hardlinks is 0
    # anyone may link to any file, and the link has the daemon's uid. It is
    # refused at start (exit 1, no READY, the message says why) and on
    # SIGUSR1 after a rotation (the daemon keeps its file); its target is
    # never written. The sysctl (global) is 0 only while the links are
    # made; renaming one into place later needs no privilege.
    w = t.mkdir("w")
    shared = t.mkdir("shared", mode=0o1777)
    attacker = t.mkdir("attacker")
    os.chown(attacker, NOBODY, NOBODY)
    victim = t.path("victim")
    with open(victim, "w") as f:
        f.write("root's\n")
    os.chmod(victim, 0o600)
    out = os.path.join(shared, "events.json")
    spare = os.path.join(attacker, "spare")
    try:
        with open(PROTECTED_HARDLINKS) as f:
            old = f.read().strip()
    except OSError as e:
        raise Skip(f"cannot read {PROTECTED_HARDLINKS}: {e}") from None
    try:
        with open(PROTECTED_HARDLINKS, "w") as f:
            f.write("0\n")
    except OSError as e:
        raise Skip(f"cannot set fs.protected_hardlinks to 0 (it is {old}): {e}") from None
    try:
        as_nobody("ln", victim, out)
        as_nobody("ln", victim, spare)
    finally:
        with open(PROTECTED_HARDLINKS, "w") as f:
            f.write(old + "\n")
    check(os.stat(out).st_nlink == 3 and os.stat(out).st_uid == 0,
          "the planted links are not links to root's file")
    problems = []
    cfg = t.write_file("o.conf", config_text([rule("r", [w], events=["create"])],
                                             {"j": {"type": "json", "file": out}}, ["j"]))
    d = t.daemon(cfg, name="hardlink")
    wait_until(lambda: d.proc.poll() is not None or d.notify.find("READY") is not None,
               "the daemon to exit (or start)", timeout=10)
    if d.notify.find("READY") is not None:
        # (what it then does: a record appended to root's file)
        p = os.path.join(w, "through-the-link")
        t.child().create(p)
        t.output(out).wait(ev(p, "create", "r"), "the create", daemon=d)
        raise Fail("a hard link to a file of root's at the json output's path: the daemon "
                   "started and appended records to root's file")
    rc, err = d.wait_exit(timeout=10), d.stderr()
    if rc == 0:
        problems.append(f"a hard link to root's file: exit {rc}")
    if not ("output 'j'" in err and "hard link" in err):
        problems.append(f"the error does not say 'hard link':{tail(err, 3)}")
    # rotation: the daemon's own file, then the spare link renamed to its path
    os.unlink(out)
    d = t.daemon(cfg)
    d.wait_ready()
    os.rename(out, out + ".1")
    as_nobody("mv", "-T", spare, out)
    logged = len(d.stderr())
    d.signal(signal.SIGUSR1)
    rd = t.output(out + ".1")
    wait_until(lambda: "cannot reopen" in d.stderr()[logged:], "the refused reopen", alive=d)
    if "hard link" not in d.stderr()[logged:]:
        problems.append(f"reopen onto a hard link: not said why:{tail(d.stderr(), 3)}")
    p = os.path.join(w, "after-rotation")
    t.child().create(p)
    rd.wait(ev(p, "create", "r"), "the create, still in the rotated file", daemon=d)
    with open(victim) as f:
        if f.read() != "root's\n":
            problems.append("the hard link's target was written to")
    if problems:
        raise Fail("\n".join(problems))


# ---------------------------------------------------------------------------
# --foreground and the journal
# ---------------------------------------------------------------------------

@test
def foreground(t):
    # --foreground: events also human-readably on stdout, one line each,
    # filenames escaped (no raw control characters on a terminal).
    w = t.mkdir("w")
    d, out, _ = start(t, [rule("r-fg", [w], mark="auto", events=["create"])],
                      args=["--foreground"])
    c = t.child(comm="fsnd-fg")
    name = b"fg\nname\x1b[2J\ttab"
    p = os.fsencode(w) + b"/" + name
    c.create(p)
    out.wait(ev(p, "create"), "the JSON record", daemon=d)

    def lines():
        with open(d.stdout_path, "rb") as f:
            return [ln for ln in f.read().split(b"\n") if b"r-fg" in ln]
    got = wait_until(lines, "the event on stdout (--foreground)", alive=d)
    check(len(got) == 1, f"{len(got)} lines for one event on stdout: {got!r}")
    check(b"fg" in got[0] and b"name" in got[0] and os.fsencode(w) in got[0],
          f"the stdout line does not show the path: {got[0]!r}")
    check(not re.search(rb"[\x00-\x1f\x7f]", got[0]),
          f"raw control characters in the --foreground line: {got[0]!r}")
    check(str(c.pid).encode() in got[0], f"the --foreground line does not show pid {c.pid}: "
          f"{got[0]!r}")


@test
def journal_without_journald(t):
    # No journald here: a journal output must degrade gracefully (the
    # daemon runs, other outputs work, the log is not flooded).
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    outputs["j"] = {"type": "journal"}
    d, _, _ = start(t, [rule("r-j", [w], mark="auto", events=["create"],
                             outputs=["j", "json"])], outputs=outputs, reader=out)
    c = t.child()
    for i in range(20):
        c.create(os.path.join(w, f"f{i}"))
    out.wait(ev(os.path.join(w, "f19"), "create"), "the JSON record of the last event",
             daemon=d)
    check(out.count(lambda r: r.kind == "event") == 20, "not 20 JSON records for 20 events")
    n = len(d.stderr().strip().split("\n"))
    check(n < 15, f"{n} lines on stderr for 20 events with an unreachable journal:"
          f"{tail(d.stderr())}")
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0, "exit status after SIGTERM is not 0")


# ---------------------------------------------------------------------------
# exec output
# ---------------------------------------------------------------------------

def json_log(path):
    """The JSON lines a command appended to path (none before it ran)."""
    try:
        with open(path, "rb") as f:
            return [json.loads(x) for x in f.read().split(b"\n") if x]
    except FileNotFoundError:
        return []


def check_no_caps(caps):
    """A command's /proc status capability fields: none at all, NoNewPrivs."""
    check(all(int(caps[k], 16) == 0 for k in ("CapInh", "CapPrm", "CapEff", "CapAmb"))
          and caps["NoNewPrivs"] == "1", f"the command's capabilities: {caps}")


RECORDER = """#!{python}
# argv and open fds of each run, one JSON line each (O_APPEND: atomic)
import base64, json, os, sys
fds = sorted(int(x) for x in os.listdir("/proc/self/fd"))
status = dict(ln.split(":", 1) for ln in open("/proc/self/status").read().splitlines()
              if ":" in ln)
line = json.dumps({{"argv": [base64.b64encode(os.fsencode(a)).decode() for a in sys.argv],
                   "fds": fds, "notify": os.environ.get("NOTIFY_SOCKET"),
                   "env": {{k: base64.b64encode(os.fsencode(v)).decode()
                           for k, v in os.environ.items()}},
                   "caps": {{k: status[k].strip() for k in ("CapInh", "CapPrm", "CapEff",
                                                           "CapAmb", "NoNewPrivs")}},
                   "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups()}})
fd = os.open({log!r}, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (line + "\\n").encode())
os.close(fd)
# output for the daemon's log: one line each, one with a terminal escape
os.write(1, b"recorder-stdout says hello\\n")
os.write(2, b"recorder-stderr \\x1b[31mred\\n")
"""


@test
def exec_output(t):
    e = t.mkdir("e")
    log = os.path.join(t.dir, "exec.log")
    rec = t.write_file("recorder.py", RECORDER.format(python=sys.executable, log=log),
                       mode=0o755)
    outputs, out = t.json_setup()
    outputs["scan"] = {"type": "exec",
                       "argv": [rec, "{path}", "{rule}", "--", "{events}", "--file={path}",
                                "{pid}"]}
    d, _, _ = start(t, [rule("r-exec", [e], mark="auto", events=["create"],
                             outputs=["scan", "json"])], outputs=outputs, reader=out)
    c = t.child()
    names = [b"$(touch pwned) `touch pwned2`; x\n*.txt", b"-rf", b"sp ace'\"\\", b"inv\xffalid"]
    for n in names:
        c.create(os.fsencode(e) + b"/" + n)

    runs = lambda: json_log(log)  # noqa: E731
    got = wait_until(lambda: (lambda r: r if len(r) >= len(names) else None)(runs()),
                     f"{len(names)} runs of the exec output", alive=d)
    argvs = [[base64.b64decode(a) for a in r["argv"]] for r in got]
    for n in names:
        p = os.fsencode(e) + b"/" + n
        mine = [a for a in argvs if len(a) > 1 and a[1] == p]
        check(len(mine) == 1, f"exec runs with argv[1] == {p!r}: {len(mine)}, expected 1 "
              f"(all argv[1]: {[a[1] if len(a) > 1 else None for a in argvs]})")
        a = mine[0]
        check(a[0] == os.fsencode(rec), f"argv[0] {a[0]!r}, expected {rec!r}")
        want = [b"r-exec", b"--", b"create", b"--file=" + p, b"%d" % c.pid]
        check(a[2:] == want, f"argv {a!r}, expected [{rec}, path, *{want}]")
    check(not os.path.exists(os.path.join(t.dir, "pwned"))
          and not os.path.exists(os.path.join(t.dir, "pwned2")), "a shell ran the filename")
    for r in got:
        check(r["fds"][:3] == [0, 1, 2] and len(r["fds"]) <= 4,
              f"the exec child inherited fds {r['fds']} (expected 0, 1, 2 and the listing's)")
    check(len(runs()) == len(names), f"{len(runs())} exec runs, expected {len(names)}")
    # A command's stdout and stderr go to the log (the journal under
    # systemd; stderr here), line by line, escaped.
    wait_until(lambda: "recorder-stdout says hello" in d.stderr()
               and "recorder-stderr" in d.stderr(), "the commands' output in the log", alive=d)
    with open(d.stderr_path, "rb") as f:
        err = f.read()
    check(b"\x1b" not in err, "a command's raw terminal escape reached the log unescaped")
    # What the command gets of the daemon: a minimal environment (PATH,
    # LANG, FSN_* of the record), no capabilities and NoNewPrivs, root's
    # ids (no user configured).
    for r in got:
        env = {k: base64.b64decode(v) for k, v in r["env"].items()}
        path = [base64.b64decode(a) for a in r["argv"]][1]
        extra = sorted(k for k in env if k not in ("PATH", "LANG") and not k.startswith("FSN_")
                       and k not in ("PWD", "SHLVL", "_", "LC_CTYPE"))
        check(not extra, f"the command inherited {extra} of the daemon's environment")
        check(env.get("FSN_PATH") == path and env.get("FSN_RULE") == b"r-exec"
              and env.get("FSN_EVENTS") == b"create" and env.get("FSN_KIND") == b"event"
              and env.get("FSN_PID") == b"%d" % c.pid and "FSN_OLD_PATH" not in env,
              f"the FSN_* variables: { {k: v for k, v in env.items() if k.startswith('FSN_')} }")
        check_no_caps(r["caps"])
        check(r["uid"] == 0, f"uid {r['uid']}, expected the daemon's (0)")
    # The daemon's NOTIFY_SOCKET is its own (sd_notify(3) suggests unsetting
    # it for children); harmless with the unit's NotifyAccess=main, so
    # only noted.
    if any(r["notify"] is not None for r in got):
        t.note("exec commands inherit NOTIFY_SOCKET")
    # Every placeholder daemon/output.h documents (exec_template_check())
    # is accepted by the config.
    bad = []
    for ph in ("{path}", "{old_path}", "{rule}", "{events}", "{kind}", "{pid}", "{comm}",
               "{uid}", "{time}"):
        o = {"x": {"type": "exec", "argv": ["/bin/true", "--x=" + ph]}}
        cfg = t.write_file("ph.conf", config_text([rule("r", [e])], o, ["x"]))
        rc, so, se = run_cmd([t.binary, "--check-config", cfg])
        if rc != 0:
            bad.append((ph, (so + se).strip().splitlines()[0]))
    check(not bad, "placeholders of daemon/output.h refused by the config: "
          + " ".join(ph for ph, _ in bad) + "".join(f"\n{ph}: {m}" for ph, m in bad))


@test
def exec_user(t):
    # An exec output with user = "nobody": the command runs as nobody, in
    # nobody's primary group, with no supplementary groups and still no
    # capabilities.
    import pwd
    import tempfile
    nobody = pwd.getpwnam("nobody")
    e = t.mkdir("e")
    d0 = tempfile.mkdtemp(prefix="fsnd-it-exec-", dir="/tmp")
    try:
        os.chmod(d0, 0o755)
        logdir = os.path.join(d0, "log")
        os.mkdir(logdir)
        os.chmod(logdir, 0o777)
        log = os.path.join(logdir, "exec.log")
        rec = os.path.join(d0, "recorder.py")
        # (an interpreter nobody may run: not one below /root)
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else None
        if not python:
            raise Skip("no /usr/bin/python3 for a command run as nobody")
        with open(rec, "w") as f:
            f.write(RECORDER.format(python=python, log=log))
        os.chmod(rec, 0o755)
        outputs, out = t.json_setup()
        outputs["as-nobody"] = {"type": "exec", "argv": [rec, "{path}"], "user": "nobody"}
        d, _, _ = start(t, [rule("r-exec", [e], events=["create"],
                                 outputs=["as-nobody", "json"])], outputs=outputs, reader=out)
        c = t.child()
        c.create(os.path.join(e, "x"))

        runs = lambda: json_log(log)  # noqa: E731
        got = wait_until(runs, "a run of the exec output as nobody", alive=d)
        r = got[0]
        check(r["uid"] == nobody.pw_uid and r["gid"] == nobody.pw_gid and r["groups"] == [],
              f"ids: uid {r['uid']} gid {r['gid']} groups {r['groups']}, expected "
              f"{nobody.pw_uid}, {nobody.pw_gid}, []")
        check_no_caps(r["caps"])
    finally:
        shutil.rmtree(d0, ignore_errors=True)


SLEEPER = """#!{python}
# logs its start (pid, argv[1]) and sleeps: for the exec bounds
import json, os, sys, time
fd = os.open({log!r}, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (json.dumps({{"pid": os.getpid(), "arg": sys.argv[1],
                          "at": time.monotonic()}}) + "\\n").encode())
os.close(fd)
time.sleep(30)
"""


@test
def exec_bounded(t):
    # max_running = 1: a second event while one command runs is not run
    # (dropped and counted); timeout = 1: the command is killed after a
    # second; stopping the daemon ends a running command (no orphans).
    e = t.mkdir("e")
    log = os.path.join(t.dir, "sleeper.log")
    prog = t.write_file("sleeper.py", SLEEPER.format(python=sys.executable, log=log),
                        mode=0o755)
    outputs, out = t.json_setup()
    outputs["slow"] = {"type": "exec", "argv": [prog, "{path}"], "max_running": 1,
                       "timeout": 1}
    d, _, _ = start(t, [rule("r-slow", [e], mark="auto", events=["create"],
                             outputs=["slow", "json"])], outputs=outputs, reader=out)
    c = t.child()

    runs = lambda: json_log(log)  # noqa: E731
    for n in ("a", "b", "c"):
        c.create(os.path.join(e, n))
    out.wait(ev(os.path.join(e, "c")), "the JSON record of the third create", daemon=d)
    first = wait_until(lambda: runs(), "the first command to start", alive=d)[0]
    check(first["arg"] == os.path.join(e, "a"), f"the first command ran for {first['arg']}")
    # gone, not only dead: reaped by the daemon, whose slot is then free
    wait_until(lambda: harness.proc_state(first["pid"]) is None,
               "the command to be killed after timeout = 1 and reaped", timeout=4, alive=d)
    el = time.monotonic() - first["at"]  # CLOCK_MONOTONIC: one clock for all processes
    check(el > 0.3, f"the command was killed {el:.2f}s after it started, before its timeout")
    c.create(os.path.join(e, "d"))
    last = wait_until(lambda: [r for r in runs() if r["arg"] == os.path.join(e, "d")],
                      "a command for a create after the first one ended", alive=d)[0]
    args = [r["arg"] for r in runs()]
    check(args == [os.path.join(e, "a"), os.path.join(e, "d")],
          f"commands ran for {args}; with max_running = 1, b and c (created while a ran) "
          "must not run")
    check("slow" in d.stderr(), f"the dropped commands are not reported in the log:"
          f"{tail(d.stderr())}")
    d.signal(signal.SIGTERM)
    t0 = time.monotonic()
    check(d.wait_exit(timeout=4) == 0, "exit status after SIGTERM is not 0")
    check(time.monotonic() - t0 < 2, "the daemon took 2 s or more to stop with a command "
          "running")
    wait_until(lambda: harness.proc_state(last["pid"]) in (None, "Z"),
               "the running command to end when the daemon stops", timeout=2)


def load_check_ecs():
    """tests/ecs/check-ecs.py as a module: problems(doc)."""
    import importlib.util
    import common
    spec = importlib.util.spec_from_file_location(
        "check_ecs", os.path.join(common.SRCDIR, "tests", "ecs", "check-ecs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@test
def output_ecs(t):
    # A json output with format = "ecs" beside one of fsnotifyd's records,
    # both every rule's: each record has its document, in the same order
    # (its seq as event.sequence), of the same kind, rule and path, and
    # every document holds against ECS's own field definitions
    # (tests/ecs/check-ecs.py): the events of a rule with who, attributes
    # and hash and their content records, a name that is not UTF-8, a
    # permission rule's deny, a rule's path gone.
    check_ecs = load_check_ecs()
    w, gone = t.mkdir("w"), t.mkdir("gone")
    guarded = os.path.join(t.mkdir("guarded"), "secret")
    with open(guarded, "w") as f:
        f.write("x\n")
    outputs, out = t.json_setup()
    ecs_path = os.path.join(t.dir, "events.ecs.json")
    outputs["ecs"] = {"type": "json", "file": ecs_path, "format": "ecs"}
    rules = [rule("files", [w], events=["create", "close_write", "moved_from", "moved_to",
                                        "delete"],
                  mark="inode", who=True, attributes=True, hash=True, tags=["fim"]),
             rule("guard", [os.path.dirname(guarded)], events=["open_perm"], mark="inode",
                  decisions=({"paths": [guarded], "verdict": "deny"},)),
             rule("gone", [gone], events=["create"], mark="inode")]
    cfg = t.write_file("fsnotifyd.conf", config_text(rules, outputs, ["json", "ecs"]))
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child()
    f, f2, odd = (os.path.join(w, n) for n in ("f", "f2", "odd\udcff"))
    c.create(f)
    c.do("rename", path=f, to=f2)
    c.do("unlink", path=f2)
    c.create(odd)
    res = c.do("try", path=guarded, how="open")
    check(res.get("err") == "EPERM", f"the guarded open: {res!r}")
    os.rmdir(gone)
    for p, what in ((f, "content"), (odd, "content")):
        out.wait(lambda r, p=p: r.kind == "content" and r.path == os.fsencode(p),
                 f"the content record of {p!r}", daemon=d)
    out.wait(lambda r: r.kind == "gone", "the gone record", daemon=d)
    out.wait(lambda r: r.kind == "decision", "the decision record", daemon=d)
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc}:{tail(d.stderr())}")
    out.poll()
    with open(ecs_path, "rb") as fh:
        docs = [json.loads(line) for line in fh]
    check(len(docs) == len(out.records),
          f"{len(docs)} ECS documents for {len(out.records)} records")
    kinds = set()
    for r, doc in zip(out.records, docs):
        bad = check_ecs.problems(doc)
        check(not bad, f"not ECS: {bad}: {doc!r}")
        own = doc.get("fsnotifyd", {})
        kinds.add(own.get("kind"))
        check(own.get("kind") == r.kind and doc.get("rule", {}).get("name") == r.rule and
              doc["event"].get("sequence") == r.get("seq"),
              f"the document of {r!r} is another's: {doc!r}")
        if r.get("path") is not None:
            check(doc.get("file", {}).get("path") == r.get("path") and
                  own.get("path_b64") == r.get("path_b64"),
                  f"the document of {r!r} names another file: {doc!r}")
        if r.kind == "content" and r.get("sha256"):
            check(doc["file"]["hash"]["sha256"] == r["sha256"], f"{doc!r} for {r!r}")
        if r.kind == "decision":
            check(doc["event"]["type"] == ["access", "denied"] and
                  own.get("verdict") == "deny", f"the deny: {doc!r}")
        if r.kind == "event" and r.rule == "files" and r.get("attrs"):
            a = r["attrs"]
            check((doc["file"]["mode"], doc["file"]["uid"], doc["file"]["inode"]) ==
                  (a["mode"], str(a["uid"]), str(a["ino"])), f"{doc!r} for {r!r}")
    want = {"event", "content", "decision", "gone"}
    check(want <= kinds, f"kinds seen: {sorted(kinds)}, expected at least {sorted(want)}")
    t.note(f"{len(docs)} documents of kinds {', '.join(sorted(kinds))}: ECS {check_ecs.VERSION}")
