# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases.py — the integration test cases. Issue 4's list: events per mark
type (inode, mount, filesystem, inotify, auto) with the right path and
process, exclusions, process filters and the daemon's own activity, reload
without loss under a stream of events and bad reloads, sd_notify messages
and clean stop, SIGUSR1 reopening, overflow, hostile filenames through jq,
config errors with file:line, --check-config on the shipped configs, exec
outputs, rules that cannot be placed. Beyond it: recursive inotify, auto
on a filesystem without fanotify file ids (ramfs), limits.max_marks,
--foreground, a journal output without journald, the default config,
create = true, rate limits accounted by "dropped" records, exec bounds.
Each case gets a harness.TestEnv (own directory, own tmpfs).
"""

import base64
import collections
import ctypes
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import harness
from harness import (WAIT, Fail, Skip, check, config_text, ev, rule, run_cmd, tail,
                     wait_until)

TESTS = []


def test(fn):
    TESTS.append((fn.__name__.replace("_", "-"), fn))
    return fn


NOBODY = 65534

# The default events of most cases: dirent events and close_write.
DIRENT = ["create", "delete", "moved_from", "moved_to", "close_write"]


def start(t, rules, outputs=None, reader=None, top="", wait=True, **kw):
    """Write a config with rules (rule() strings), outputs (default: the
    JSON output "json", the default output of the rules), start the daemon
    with **kw, wait for READY=1 (unless wait is False: the caller does).
    Returns (daemon, reader, config path)."""
    if outputs is None:
        outputs, reader = t.json_setup()
    cfg = t.write_file("fsnotifyd.conf", config_text(rules, outputs, ["json"], top))
    d = t.daemon(cfg, **kw)
    if wait:
        d.wait_ready()
    return d, reader, cfg


def check_process(r, child, what):
    """r was caused by child: pid, comm and uid are the child's."""
    check(r["pid"] == child.pid, f"{what}: pid {r['pid']}, expected {child.pid} (the child "
          f"that did it): {r!r}")
    check(r["comm"] == child.comm, f"{what}: comm {r['comm']!r}, expected {child.comm!r}: {r!r}")
    check(r["uid"] == child.uid, f"{what}: uid {r['uid']!r}, expected {child.uid}: {r!r}")


def check_events_subset(out, allowed, upto=None):
    """Every event record names only events the rule asked for."""
    allowed = set(allowed) | {"ondir"}
    for r in out.records[:upto]:
        if r.kind == "event":
            check(r.events <= allowed, f"record with events the rule did not ask for "
                  f"(allowed {sorted(allowed)}): {r!r}")


def check_only(out, upto, allowed_paths, what):
    """Records [0, upto) are events whose path is one of allowed_paths
    (bytes or str) and nothing else."""
    allowed = {os.fsencode(p) for p in allowed_paths}
    for r in out.records[:upto]:
        check(r.kind == "event" and r.path in allowed,
              f"{what}: unexpected record before the marker: {r!r}")


# ---------------------------------------------------------------------------
# Events for each mark type, with the right path and process
# ---------------------------------------------------------------------------

@test
def mark_inode(t):
    d0 = t.mkdir("d")
    d, out, _ = start(t, [rule("r-inode", [d0], mark="inode", events=["create", "close_write"])])
    c = t.child(comm="fsnd-inode")
    f = os.path.join(d0, "file")
    c.create(f)
    r = out.wait(ev(f, "create", "r-inode"), "create of d/file", daemon=d)
    check_process(r, c, "create d/file")
    r = out.wait(ev(f, "close_write", "r-inode"), "close_write of d/file", daemon=d)
    check_process(r, c, "close_write d/file")
    # A subdirectory is a direct child (reported, ondir defaults to true);
    # what happens inside it is not (an inode mark, recursive = false).
    sub = os.path.join(d0, "sub")
    c.do("mkdir", path=sub)
    deep = os.path.join(sub, "deep")
    c.create(deep)
    c.create(t.path("outside"))
    m = t.marker(c, out, d0, d)
    check(out.find(ev(sub, "create")) is not None, "mkdir d/sub not reported (ondir = true)")
    check_only(out, m, [f, sub], "inode mark on d, recursive = false")
    check_events_subset(out, ["create", "close_write"])


@test
def mark_mount(t):
    # r-mount names the mount point of this test's tmpfs: a mount mark
    # sees every file of that mount (recursive), and only through it.
    # r-mount-sub names a directory on it: the same kind of mark, but only
    # what is below that directory is reported.
    t.mkdir("a", "b")
    t.mkdir("z")
    d, out, _ = start(t, [rule("r-mount", [t.fs], mark="mount", recursive=True,
                               events=["close_write"]),
                          rule("r-mount-sub", [t.path("a")], mark="mount", recursive=True,
                               events=["close_write"])])
    c = t.child(comm="fsnd-mount")
    f = t.path("a", "b", "file")
    c.create(f)
    for rn in ("r-mount", "r-mount-sub"):
        r = out.wait(ev(f, "close_write", rn), f"close_write of a/b/file ({rn})", daemon=d)
        check_process(r, c, f"close_write a/b/file ({rn})")
    z = t.path("z", "file")
    c.create(z)
    out.wait(ev(z, "close_write", "r-mount"), "close_write of z/file (r-mount)", daemon=d)
    # The same files through a bind mount elsewhere: another mount, not
    # reported by a mount mark. A file on another filesystem: neither.
    bind = t.mount_fs("bind", t.path("a"), None, harness.MS_BIND)
    c.do("write", path=os.path.join(bind, "b", "file"), data="via bind\n")
    other = os.path.join(t.dir, "not-watched")
    c.create(other)
    m = t.marker(c, out, t.fs, d, event="close_write")
    check_only(out, m, [f, z], "mount mark")
    check(out.count(ev(z, rule="r-mount-sub")) == 0,
          "r-mount-sub (mount mark on a/) reported z/file, outside a/")
    check(out.count(ev(f, "close_write")) == 2,
          "a write through a bind mount (another mount) was reported by a mount mark")
    check_events_subset(out, ["close_write"])


@test
def mark_filesystem(t):
    tree = t.mkdir("tree")
    t.mkdir("outside")
    d, out, _ = start(t, [rule("r-fs", [tree], mark="filesystem", recursive=True, events=DIRENT)])
    c = t.child(comm="fsnd-fs")
    a = os.path.join(tree, "a")
    f = os.path.join(a, "f")
    g = os.path.join(a, "g")
    c.do("mkdir", path=a)
    c.create(f)
    c.do("rename", path=f, to=g)
    c.do("unlink", path=g)
    for p, e in ((a, "create"), (f, "create"), (f, "close_write"), (f, "moved_from"),
                 (g, "moved_to"), (g, "delete")):
        r = out.wait(ev(p, e, "r-fs"), f"{e} of {p}", daemon=d)
        check_process(r, c, f"{e} {p}")
    # Outside the rule's subtree on the same filesystem: not reported.
    c.create(t.path("outside", "x"))
    c.create(t.path("tree-sibling"))
    # Through a bind mount of the tree: the same filesystem, so reported,
    # with the path under the rule's directory.
    bind = t.mount_fs("bind", tree, None, harness.MS_BIND)
    c.create(os.path.join(bind, "via-bind"))
    r = out.wait(ev(os.path.join(tree, "via-bind"), "create", "r-fs"),
                 "create of tree/via-bind done through a bind mount", daemon=d)
    check_process(r, c, "create through a bind mount")
    m = t.marker(c, out, tree, d)
    check_only(out, m, [a, f, g, os.path.join(tree, "via-bind")], "filesystem mark on tree/")
    check_events_subset(out, DIRENT)


@test
def mark_inotify(t):
    d0 = t.mkdir("ino")
    d, out, _ = start(t, [rule("r-inotify", [d0], mark="inotify",
                               events=["create", "close_write", "delete"])])
    c = t.child(comm="fsnd-inotify")
    f = os.path.join(d0, "file")
    c.create(f)
    c.do("unlink", path=f)
    for e in ("create", "close_write", "delete"):
        r = out.wait(ev(f, e, "r-inotify"), f"{e} of ino/file", daemon=d)
        # inotify does not say which process did it: unknown, not made up.
        check(r["pid"] is None and r["comm"] is None and r["uid"] is None,
              f"inotify cannot know the process, expected pid/comm/uid null: {r!r}")
    sub = os.path.join(d0, "sub")
    c.do("mkdir", path=sub)
    c.create(os.path.join(sub, "deep"))
    m = t.marker(c, out, d0, d)
    check_only(out, m, [f, sub], "inotify watch on ino/, recursive = false")
    check_events_subset(out, ["create", "close_write", "delete"])


@test
def mark_auto(t):
    tree = t.mkdir("auto")
    single = t.mkdir("single")
    one = os.path.join(single, "one.txt")
    with open(one, "w") as f:
        f.write("x\n")
    rules = [rule("r-tree", [tree], mark="auto", recursive=True, events=DIRENT),
             rule("r-file", [one], mark="auto", events=["close_write"])]
    outputs, out = t.json_setup()
    cfg = t.write_file("fsnotifyd.conf", config_text(rules, outputs, ["json"]))
    # The plan explains the choice: a recursive tree is a filesystem mark
    # (filtered to the subtree), a single file an inode mark.
    rc, so, se = run_cmd([t.binary, "--check-config", cfg])
    check(rc == 0, f"--check-config on a good config: exit {rc}: {tail(so + se)}")
    check(re.search(r"filesystem", so, re.I), f"the plan of a recursive auto rule does not say "
          f"'filesystem':{tail(so, 40)}")
    check(re.search(r"inode", so, re.I), f"the plan of an auto rule on one file does not say "
          f"'inode':{tail(so, 40)}")
    os.chmod(tree, 0o777)
    deep = os.path.join(tree, "x", "y")
    os.makedirs(deep)
    os.chmod(deep, 0o777)
    os.chmod(one, 0o666)
    os.chmod(single, 0o777)
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child(comm="fsnd-auto", uid=NOBODY)
    f = os.path.join(deep, "file")
    c.create(f)
    for e in ("create", "close_write"):
        r = out.wait(ev(f, e, "r-tree"), f"{e} of auto/x/y/file", daemon=d)
        check_process(r, c, f"{e} auto/x/y/file")
    c.do("write", path=one, data="more\n")
    r = out.wait(ev(one, "close_write", "r-file"), "close_write of single/one.txt", daemon=d)
    check_process(r, c, "close_write of single/one.txt")
    c.create(os.path.join(single, "two.txt"))  # next to the file: not reported
    m = t.marker(c, out, tree, d)
    check_only(out, m, [f, one], "auto rules on a tree and a file")


@test
def inotify_recursive(t):
    # inotify is per directory: a recursive rule watches every directory,
    # including ones created while it runs (once their creation has been
    # reported, what happens inside them is reported too).
    top = t.mkdir("top")
    old = t.mkdir("top", "old", "older")
    d, out, _ = start(t, [rule("r-rec", [top], mark="inotify", recursive=True,
                               events=["create", "close_write"])])
    c = t.child()
    f = os.path.join(old, "f")
    c.create(f)
    out.wait(ev(f, "create", "r-rec"), "create in an existing subdirectory", daemon=d)
    new = os.path.join(top, "new")
    c.do("mkdir", path=new)
    out.wait(ev(new, "create", "r-rec"), "mkdir of top/new", daemon=d)
    g = os.path.join(new, "g")
    c.create(g)
    out.wait(ev(g, "create", "r-rec"), "create in a directory made after the start", daemon=d)


@test
def auto_without_fanotify_fid(t):
    # ramfs cannot encode file handles: fanotify marks with FID reporting
    # are refused there (EOPNOTSUPP). "auto" must then pick inotify (the
    # issue: "inotify where fanotify is not available") and say so.
    rfs = t.mount_fs("ramfs", "ramfs", "ramfs", 0, "mode=0755")
    tree = os.path.join(rfs, "tree")
    os.makedirs(os.path.join(tree, "sub"))
    flat = os.path.join(rfs, "flat")
    os.mkdir(flat)
    rules = [rule("r-tree", [tree], mark="auto", recursive=True, events=["create"]),
             rule("r-flat", [flat], mark="auto", events=["create", "close_write"])]
    outputs, out = t.json_setup()
    cfg = t.write_file("fsnotifyd.conf", config_text(rules, outputs, ["json"]))
    rc, so, se = run_cmd([t.binary, "--check-config", cfg])
    check(rc == 0, f"--check-config: exit {rc}:{tail(so + se)}")
    check(re.search(r"inotify", so, re.I), "the plan for auto rules on ramfs does not choose "
          f"inotify:{tail(so + se)}")
    d = t.daemon(cfg)
    d.wait_ready()
    c = t.child()
    for p, r in ((os.path.join(tree, "sub", "x"), "r-tree"), (os.path.join(flat, "y"), "r-flat")):
        c.create(p)
        out.wait(ev(p, "create", r), f"create of {p} on ramfs (auto rule {r})", daemon=d)


@test
def max_marks_bound(t):
    # limits.max_marks bounds the marks and watches: a rule needing more
    # than allowed is refused with a clear message naming the rule and the
    # limit; the rules within the limit run.
    many = [t.mkdir("many", f"d{i}") for i in range(10)]
    ok = t.mkdir("ok")
    d, out, _ = start(t, [rule("r-ok", [ok], mark="inode", events=["create"]),
                          rule("r-many", many, mark="inode", events=["create"])],
                      top="limits = { max_marks = 5; };")
    c = t.child()
    c.create(os.path.join(ok, "x"))
    out.wait(ev(os.path.join(ok, "x"), "create", "r-ok"), "an event of the rule within the "
             "limit", daemon=d)
    err = d.stderr()
    check("r-many" in err and re.search(r"max_marks", err),
          f"no message naming rule r-many and the max_marks limit:{tail(err)}")
    # Marks beyond the limit were not placed: at most 5 in total.
    for dd in many:
        c.create(os.path.join(dd, "y"))
    t.marker(c, out, ok, d)
    n = out.count(lambda r: r.rule == "r-many" and r.kind == "event")
    check(n <= 4, f"{n} directories of r-many reported events, but max_marks = 5 with r-ok "
          "holding one")


@test
def max_marks_hostile_name(t):
    # The max_marks message names the directory a recursive inotify rule
    # could not watch: a directory created after the start, so a name
    # from an attacker, which must reach the log escaped.
    top = t.mkdir("top")
    d, out, _ = start(t, [rule("r-rec", [top], mark="inotify", recursive=True,
                               events=["create"])],
                      top="limits = { max_marks = 1; };")
    c = t.child()
    for i in range(3):
        c.do("mkdir", path=os.path.join(os.fsencode(top), b"d%d\n\x1b[31mevil" % i))
    t.marker(c, out, top, d)
    err = d.stderr()
    check(re.search(r"max_marks \(1\) reached", err),
          f"no max_marks message:{tail(err)}")
    check("\x1b" not in err and "\\x1b[31mevil" in err,
          f"the directory name is not escaped in the log:{tail(err)}")


# ---------------------------------------------------------------------------
# Exclusions
# ---------------------------------------------------------------------------

@test
def exclusions(t):
    ex = t.mkdir("ex")
    os.makedirs(os.path.join(ex, "private"))
    os.makedirs(os.path.join(ex, "privateer"))
    os.makedirs(os.path.join(ex, "cache", "deep"))
    os.makedirs(os.path.join(ex, "deep"))
    for name in ("secret.txt", "secret.txt.bak", "public.txt"):
        with open(os.path.join(ex, name), "w") as f:
            f.write("x\n")
    j = lambda *p: os.path.join(ex, *p)  # noqa: E731
    excl = [j("secret.txt"), j("new-secret"), j("private"), "*.tmp", j("cache") + "/*"]
    d, out, _ = start(t, [rule("r-ex", [ex], mark="auto", recursive=True, events=DIRENT,
                               exclude=excl)])
    c = t.child(comm="fsnd-ex")
    hidden = [
        ("write", j("secret.txt")),          # an exact path (exists: kernel ignore mark)
        ("create", j("new-secret")),         # an exact path that did not exist at start
        ("create", j("a.tmp")),              # glob
        ("create", j("deep", "b.tmp")),      # glob, deeper ('*' matches '/')
        ("create", j("cache", "c")),         # glob on a directory's contents
        ("create", j("cache", "deep", "d")),
        ("create", j("private", "p")),       # an excluded directory: its contents too
    ]
    shown = [
        ("write", j("secret.txt.bak")),      # exact path, not a prefix
        ("write", j("public.txt")),
        ("create", j("a.tmpx")),             # glob does not match
        ("create", j("tmp")),
        ("create", j("privateer", "q")),     # a sibling whose name starts like it
        ("create", j("deep", "e")),
    ]
    for op, p in hidden + shown:
        if op == "write":
            c.do("write", path=p, data="y\n")
        else:
            c.create(p)
    for op, p in shown:
        e = "close_write"
        out.wait(ev(p, e, "r-ex"), f"{e} of {p} (not excluded)", daemon=d)
    m = t.marker(c, out, ex, d)
    for op, p in hidden:
        i = out.find(lambda r, p=p: r.path == os.fsencode(p))
        check(i is None, f"excluded {p} was reported (exclude = {excl}): {out.records[i]!r}"
              if i is not None else "")
    check_only(out, m, [p for _, p in shown], "exclusions")


# ---------------------------------------------------------------------------
# Process filters and the daemon's own activity
# ---------------------------------------------------------------------------

@test
def process_filters(t):
    dc, du, dp = t.mkdir("by-comm"), t.mkdir("by-uid", mode=0o777), t.mkdir("by-pid")
    # The pid filter needs the pid before the config is written.
    cp = t.child(comm="fsnd-pid")
    rules = [rule("r-comm", [dc], mark="auto", events=["create"], comms=["fsnd-yes"]),
             rule("r-uid", [du], mark="auto", events=["create"], uids=[NOBODY]),
             rule("r-pid", [dp], mark="auto", events=["create"], pids=[cp.pid])]
    d, out, _ = start(t, rules)
    yes, no = t.child(comm="fsnd-yes"), t.child(comm="fsnd-no")
    nobody, root = t.child(comm="fsnd-u", uid=NOBODY), t.child(comm="fsnd-u")
    other = t.child(comm="fsnd-pid")  # same comm, another pid
    ops = [(yes, dc, True), (no, dc, False),
           (nobody, du, True), (root, du, False),
           (cp, dp, True), (other, dp, False)]
    for i, (c, dd, _) in enumerate(ops):
        c.create(os.path.join(dd, f"f{i}"))
    markers = {dc: yes, du: nobody, dp: cp}
    for dd, c in markers.items():
        t.marker(c, out, dd, d)
    for i, (c, dd, shown) in enumerate(ops):
        p = os.path.join(dd, f"f{i}")
        n = out.count(ev(p))
        if shown:
            check(n == 1, f"{p} by pid {c.pid} comm {c.comm} uid {c.uid}: {n} records, "
                  "expected 1 (it matches the filter)")
            check_process(out.records[out.find(ev(p))], c, p)
        else:
            check(n == 0, f"{p} by pid {c.pid} comm {c.comm} uid {c.uid} was reported "
                  "although the rule's process filter excludes it")


@test
def own_activity(t):
    # The JSON file is inside the watched tree, and the rule asks for
    # everything: the daemon's writes to it and its opens of watched files
    # (resolving paths) must never be reported — nor loop.
    w = t.mkdir("w")
    outdir = t.mkdir("w", "out")
    p = os.path.join(outdir, "events.json")
    outputs = {"json": {"type": "json", "file": p}}
    out = t.output(p)
    events = ["create", "delete", "modify", "close_write", "close_nowrite", "open", "access",
              "attrib", "moved_from", "moved_to"]
    d, _, _ = start(t, [rule("r-all", [w], mark="auto", recursive=True, events=events)],
                    outputs=outputs, reader=out)
    c = t.child(comm="fsnd-own")
    for i in range(5):
        c.create(os.path.join(w, f"f{i}"))
        c.do("read", path=os.path.join(w, f"f{i}"))
    t.marker(c, out, w, d)
    # The daemon wrote records for all that: a second marker shows whether
    # it reported its own writes.
    m = t.marker(c, out, w, d)
    me = os.getpid()  # this runner reads the JSON file: that is reported, rightly
    theirs = [r for r in out.records[:m + 1] if r.get("pid") != me]
    for r in theirs:
        check(r.get("pid") != d.pid, f"the daemon's own activity was reported: {r!r}")
        check(not (r.path or b"").startswith(os.fsencode(outdir)),
              f"the daemon's writes to its JSON file were reported: {r!r}")
        check(r.get("pid") == c.pid, f"a record not caused by the test's child: {r!r}")
    check(len(theirs) < 200, f"{len(theirs)} records for a handful of operations: "
          "a feedback loop?")


@test
def own_activity_inotify_rotation(t):
    # inotify reports no pid: the daemon knows its own files by name and
    # identity. An inotify rule on the directory of the JSON output: after
    # the file was moved away (rotation, by someone else: reported), the
    # daemon's re-creation of it on SIGUSR1 and its writes to it are not.
    outdir = t.mkdir("out")
    p = os.path.join(outdir, "events.json")
    outputs = {"json": {"type": "json", "file": p}}
    out = t.output(p)
    d, _, _ = start(t, [rule("r-dir", [outdir], mark="inotify",
                             events=["create", "close_write", "modify", "moved_to"])],
                    outputs=outputs, reader=out)
    c = t.child(comm="fsnd-own")
    c.create(os.path.join(outdir, "before"))
    out.wait(ev(os.path.join(outdir, "before"), "create"), "a create before the rotation",
             daemon=d)
    os.rename(p, p + ".1")
    out.path = p + ".1"  # the same file: the reader follows it
    out.wait(ev(p + ".1", "moved_to"), "the rotation's rename", daemon=d)
    d.signal(signal.SIGUSR1)
    wait_until(lambda: os.path.exists(p), "the reopened output file", alive=d)
    new = t.output(p)
    c.create(os.path.join(outdir, "after"))
    new.wait(ev(os.path.join(outdir, "after"), "create"), "a create after SIGUSR1", daemon=d)
    t.marker(c, new, outdir, d)
    mine = [r for r in out.records + new.records if r.path == os.fsencode(p)]
    check(not mine, f"the daemon's re-creation of / writes to its output were reported: "
          f"{mine[:3]!r}")


# ---------------------------------------------------------------------------
# Reload
# ---------------------------------------------------------------------------

def reload(d, t, cfg, text, timeout=WAIT):
    """Write the config, SIGHUP, wait for RELOADING=1 then READY=1."""
    t.write_file(cfg, text)
    i = d.notify.mark()
    d.signal(signal.SIGHUP)
    j = d.wait_notify("RELOADING", "1", start=i, timeout=timeout)
    d.wait_notify("READY", "1", start=j + 1, timeout=timeout)


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
    # SIGINT stops cleanly too.
    i = d.notify.mark()
    d.signal(signal.SIGINT)
    rc = d.wait_exit(timeout=3)
    check(d.notify.find("STOPPING", "1", i) is not None, "no STOPPING=1 after SIGINT")
    check(rc == 0, f"exit status {rc} after SIGINT, expected 0")


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


@test
def default_config_runs(t):
    # The README run command: the default config shows live events at
    # once (JSON lines on stdout). Its demo directory gets a tmpfs of its
    # own in this mount namespace, so nothing is left behind.
    conf = os.path.join(t.srcdir, "conf", "fsnotifyd.conf")
    demo = "/tmp/fsnotifyd-demo"
    if not os.path.isdir(demo):
        os.mkdir(demo)
        t.cleanups.append(lambda: os.rmdir(demo))
    harness.mount("tmpfs", demo, "tmpfs", 0, "mode=0755")
    t.mounts.append(demo)
    d = t.daemon(conf)
    out = t.output(d.stdout_path)
    d.wait_ready()
    c = t.child(comm="fsnd-demo")
    p = os.path.join(demo, "hello.txt")
    c.create(p)
    r = out.wait(ev(p, "create", "demo"), "the create in /tmp/fsnotifyd-demo on stdout",
                 daemon=d)
    check_process(r, c, "the demo event")
    out.wait(ev(p, "close_write", "demo"), "close_write of the demo file", daemon=d)
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0, "exit status after SIGTERM is not 0")


@test
def create_missing(t):
    # create = true: a missing directory is created at start and watched.
    p = t.path("made", "by", "daemon")
    d, out, _ = start(t, [rule("r-create", [p], mark="auto", recursive=True, create=True,
                               events=["create"])])
    check(os.path.isdir(p), f"{p} was not created (create = true)")
    c = t.child()
    c.create(os.path.join(p, "x"))
    out.wait(ev(os.path.join(p, "x"), "create", "r-create"), "an event in the created "
             "directory", daemon=d)


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


# ---------------------------------------------------------------------------
# Overflow
# ---------------------------------------------------------------------------

@test
def overflow(t):
    ov = t.mkdir("ov")
    try:
        with open("/proc/sys/fs/fanotify/max_queued_events") as f:
            qmax = int(f.read())
    except OSError as e:
        raise Skip(f"cannot read max_queued_events: {e}")
    if qmax > 200000:
        raise Skip(f"max_queued_events is {qmax}: too many files to create for an overflow")
    d, out, _ = start(t, [rule("r-ov", [ov], mark="filesystem", recursive=True,
                               events=["create"])], top="limits = { status_interval = 1; };")
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
    check(n <= qmax + 1, f"{n} events reported, but the queue holds at most {qmax}")
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


# ---------------------------------------------------------------------------
# Hostile filenames
# ---------------------------------------------------------------------------

HOSTILE = [
    b"new\nline",
    b'double"quote',
    b"single'quote",
    b"back\\slash",
    b"\\u0041 not an escape",
    b"tab\tcr\rctl\x01\x1b[31m\x7f",
    b"-starts-with-dash",
    b"  spaces  ",
    b"%s%n%x",
    b"utf8-\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80",
    b"\xe2\x80\xa8line-separator",
    b"invalid-\xff\xfe",
    b"truncated-\xc3",
    b"overlong-\xc0\xaf",
    b"surrogate-\xed\xa0\x80",
    b"above-max-\xf4\x90\x80\x80",
    b"x" * 255,
    "é".encode() * 127 + b"x",  # 255 bytes of valid UTF-8
    b"\xff" * 255,
]


def valid_utf8(bs):
    try:
        bs.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@test
def hostile_filenames(t):
    jq = shutil.which("jq")
    if not jq:
        raise Skip("jq is missing (Debian package jq)")
    h = t.mkdir("h")
    outputs, out = t.json_setup()
    d, out, cfg = start(t, [rule("r-h", [h], mark="auto", recursive=True, events=["create"])],
                        outputs=outputs, reader=out)
    comm = 'q"b\\t\tx'  # a hostile comm too (15 bytes max)
    c = t.child(comm=comm)
    for name in HOSTILE:
        assert len(name) <= 255
        c.create(os.fsencode(h) + b"/" + name)
    for name in HOSTILE:
        p = os.fsencode(h) + b"/" + name
        r = out.wait(ev(p, "create", "r-h"), f"create of {name!r}", daemon=d)
        check(r["comm"] == comm, f"comm {r['comm']!r}, expected {comm!r}")
        if valid_utf8(p):
            check("path_b64" not in r.obj, f"path_b64 for a valid UTF-8 name: {r!r}")
            got = subprocess.run([jq, "-j", ".path"], input=r.raw + b"\n",
                                 capture_output=True, check=False)
        else:
            check("path_b64" in r.obj, f"no path_b64 for the invalid UTF-8 name {name!r}: {r!r}")
            check("\ufffd" in r["path"], f"path of an invalid UTF-8 name has no U+FFFD: {r!r}")
            j = subprocess.run([jq, "-j", ".path_b64"], input=r.raw + b"\n",
                               capture_output=True, check=False)
            check(j.returncode == 0, f"jq failed on {r.raw!r}: {j.stderr!r}")
            got = subprocess.run(["base64", "-d"], input=j.stdout, capture_output=True,
                                 check=False)
        check(got.returncode == 0, f"jq/base64 failed on {r.raw!r}: {got.stderr!r}")
        check(got.stdout == p, f"jq gives {got.stdout!r}, expected {p!r} (line {r.raw!r})")
    # A rename (FAN_RENAME) carries both names: old_path too.
    mv = t.mkdir("mv")
    src, dst = os.fsencode(mv) + b"/old\xff\nname", os.fsencode(mv) + b'/new"\\name\t'
    with open(src, "wb"):
        pass
    reload(d, t, cfg, config_text([rule("r-h", [h], mark="auto", recursive=True,
                                        events=["create"]),
                                   rule("r-mv", [mv], mark="auto", events=["rename"])],
                                  outputs, ["json"]))
    c.do("rename", path=src, to=dst)
    r = out.wait(lambda r: r.rule == "r-mv" and r.path == dst, "the rename record", daemon=d)
    old = r.get("old_path_b64")
    check(old is not None and base64.b64decode(old) == src,
          f"the rename record does not carry the old name {src!r} in old_path_b64: {r!r}")
    j = subprocess.run([jq, "-j", ".path"], input=r.raw + b"\n", capture_output=True)
    check(j.stdout == dst, f"jq -j .path gives {j.stdout!r}, expected {dst!r}")
    # The whole file, every line, parses with jq.
    with open(out.path, "rb") as f:
        j = subprocess.run([jq, "-c", "."], stdin=f, capture_output=True, check=False)
    check(j.returncode == 0, f"jq cannot parse the whole JSON lines file: {j.stderr!r}")
    check(len(j.stdout.split(b"\n")) - 1 == len(out.records),
          "jq sees a different number of records than lines (a raw newline in a line?)")


# ---------------------------------------------------------------------------
# Config errors and --check-config
# ---------------------------------------------------------------------------

# Each bad config: (name, text with "@@" marking the line the error must
# name, regexes the message must match, case-insensitive). The rest of the
# text is valid, so exactly that one problem is in each.
_GOOD_HEAD = """\
log_level = "info";
outputs = ["json"];
output = {
  json = { type = "json"; file = "/dev/null"; };
};
"""
_R = '{ name = "r"; paths = ["/tmp"]; mark = "auto"; events = ["create"]; }'

BAD_CONFIGS = [
    ("syntax", _GOOD_HEAD + "rules = (\n  " + _R + "\n  @@{ name = \"x\" paths = [\"/\"]; }\n);\n",
     [r"syntax|parse|expected"]),
    ("unknown-top-key", _GOOD_HEAD + "@@frobnicate = 1;\nrules = ( " + _R + " );\n",
     [r"frobnicate", r"unknown"]),
    ("unknown-rule-key", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    paths = [\"/tmp\"];"
     "\n    @@colour = \"red\";\n  }\n);\n", [r"colour", r"unknown"]),
    ("bad-mark", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    paths = [\"/tmp\"];"
     "\n    @@mark = \"inodes\";\n  }\n);\n", [r"inodes"]),
    ("bad-event", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    paths = [\"/tmp\"];"
     "\n    @@events = [\"create\", \"opne\"];\n  }\n);\n", [r"opne"]),
    ("relative-path", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n"
     "    @@paths = [\"relative/dir\"];\n  }\n);\n", [r"relative/dir", r"absolute"]),
    ("unknown-output", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    paths = [\"/tmp\"];"
     "\n    @@outputs = [\"nosuch\"];\n  }\n);\n", [r"nosuch"]),
    ("duplicate-rule", _GOOD_HEAD + "rules = (\n  " + _R + ",\n  @@" + _R + "\n);\n",
     [r"duplicate|already|twice|more than once", r"\br\b"]),
    ("wrong-type", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    paths = [\"/tmp\"];"
     "\n    @@recursive = \"yes\";\n  }\n);\n", [r"recursive", r"bool"]),
    ("missing-paths", _GOOD_HEAD + "rules = (\n  @@{ name = \"r\"; mark = \"auto\"; }\n);\n",
     [r"paths"]),
    ("missing-name", _GOOD_HEAD + "rules = (\n  @@{ paths = [\"/tmp\"]; }\n);\n", [r"name"]),
    ("bad-log-level", "@@log_level = \"loud\";\n" + _GOOD_HEAD.split("\n", 1)[1]
     + "rules = ( " + _R + " );\n", [r"loud"]),
    ("unknown-output-type", "outputs = [\"j\"];\noutput = {\n  @@j = { type = \"syslog\"; };\n};"
     "\nrules = ( " + _R + " );\n", [r"syslog"]),
    ("json-relative-file", "outputs = [\"j\"];\noutput = {\n  @@j = { type = \"json\"; "
     "file = \"events.json\"; };\n};\nrules = ( " + _R + " );\n", [r"events\.json", r"absolute"]),
    ("exec-relative-argv0", "outputs = [\"x\"];\noutput = {\n  @@x = { type = \"exec\"; "
     "argv = [\"scan\", \"{path}\"]; };\n};\nrules = ( " + _R + " );\n",
     [r"absolute|scan"]),
    ("exec-bad-placeholder", "outputs = [\"x\"];\noutput = {\n  @@x = { type = \"exec\"; "
     "argv = [\"/bin/echo\", \"{paht}\"]; };\n};\nrules = ( " + _R + " );\n", [r"paht"]),
    ("empty-paths", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    @@paths = [];\n  }\n);\n",
     [r"paths"]),
    ("negative-uid", _GOOD_HEAD + "rules = (\n  {\n    name = \"r\";\n    paths = [\"/tmp\"];"
     "\n    @@uids = [-5];\n  }\n);\n", [r"uids?"]),
]


def _bad_config(t, name, text):
    lines = text.split("\n")
    line = next(i + 1 for i, ln in enumerate(lines) if "@@" in ln)
    p = t.write_file(f"bad-{name}.conf", text.replace("@@", ""))
    return p, line


def bad_config_problems(t, configs):
    """--check-config on each (name, text with @@ at the bad line, patterns):
    exit 1 and a message naming FILE:LINE that matches every pattern.
    Returns (problems, names of the configs with problems)."""
    problems, bad = [], set()
    for name, text, pats in configs:
        p, line = _bad_config(t, name, text)
        rc, so, se = run_cmd([t.binary, "--check-config", p])
        both = so + se
        want = f"{p}:{line}:"
        hit = [ln for ln in both.split("\n") if ln.startswith(want) or f" {want}" in ln]
        n = len(problems)
        if rc != 1:
            problems.append(f"{name}: exit {rc}, expected 1")
        if not hit:
            problems.append(f"{name}: no message naming {want} in:{tail(both, 5)}")
        else:
            missing = [pt for pt in pats if not any(re.search(pt, h, re.I) for h in hit)]
            if missing:
                problems.append(f"{name}: message {hit[0]!r} does not match {missing}")
        if len(problems) > n:
            bad.add(name)
    return problems, bad


@test
def config_errors(t):
    problems, bad = bad_config_problems(t, BAD_CONFIGS)
    check(len(BAD_CONFIGS) >= 10, "fewer than 10 bad configs")
    if problems:
        raise Fail(f"{len(bad)} of {len(BAD_CONFIGS)} bad configs wrong "
                   f"({', '.join(sorted(bad))}):\n" + "\n".join(problems))


@test
def config_error_dropin(t):
    # conf.d/*.conf drop-ins: an error in one names the drop-in and its line.
    main = t.write_file("fsnotifyd.conf", _GOOD_HEAD + "rules = ( " + _R + " );\n")
    os.mkdir(os.path.join(t.dir, "conf.d"))
    t.write_file("conf.d/10-ok.conf",
                 'rules = ( { name = "r2"; paths = ["/tmp"]; events = ["create"]; } );\n')
    drop = t.write_file("conf.d/20-bad.conf",
                        'rules = (\n  {\n    name = "r3";\n    paths = ["/tmp"];\n'
                        '    bogus_key = 1;\n  }\n);\n')
    rc, so, se = run_cmd([t.binary, "--check-config", main])
    check(rc == 1, f"exit {rc} with a bad drop-in, expected 1:{tail(so + se)}")
    check(f"{drop}:5:" in so + se, f"no message naming {drop}:5:{tail(so + se)}")
    os.unlink(drop)
    rc, so, se = run_cmd([t.binary, "--check-config", main])
    check(rc == 0, f"exit {rc} with good drop-ins:{tail(so + se)}")
    check("r2" in so, f"the plan does not show the drop-in's rule r2:{tail(so, 30)}")


@test
def config_error_at_start(t):
    problems = []
    for name, text, _ in BAD_CONFIGS[:3]:
        p, line = _bad_config(t, "start-" + name, text)
        d = t.daemon(p)
        try:
            rc = d.wait_exit(timeout=5)
        except Fail as e:
            problems.append(f"{name}: {e}")
            continue
        if rc == 0:
            problems.append(f"{name}: the daemon exited 0 on a bad config")
        if f"{p}:{line}:" not in d.stderr():
            problems.append(f"{name}: stderr does not name {p}:{line}:{tail(d.stderr(), 5)}")
        if d.notify.find("READY") is not None:
            problems.append(f"{name}: READY=1 sent for a bad config")
    # A valid config whose JSON file cannot be opened: no start, and the
    # message names the output, the file and the cause.
    missing = os.path.join(t.dir, "no-such-dir", "x.json")
    p = t.write_file("unopenable.conf", config_text(
        [rule("r", [t.fs], events=["create"])], {"j": {"type": "json", "file": missing}},
        ["j"]))
    d = t.daemon(p)
    rc = d.wait_exit(timeout=5)
    err = d.stderr()
    if rc == 0 or d.notify.find("READY") is not None:
        problems.append(f"unopenable output: exit {rc}, READY sent: "
                        f"{d.notify.find('READY') is not None}")
    if not ("'j'" in err and missing in err and re.search(r"no such file", err, re.I)):
        problems.append(f"unopenable output: the message does not name output 'j', {missing} "
                        f"and the cause:{tail(err, 5)}")
    if problems:
        raise Fail("\n".join(problems))


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


@test
def file_replaced_rearmed(t):
    # A watched file replaced by a rename over it (editors, vipw, package
    # upgrades write a new file and rename it into place): the rule watched
    # the old inode; it is re-armed on the new one at once: a "gone" record
    # (reason "deleted"), a "rearmed" record, then a "modified" rescan record
    # (the new content was written unwatched), each once, and a log line
    # each way, for a fanotify inode mark and an inotify watch. A file moved
    # away is "gone" (reason "moved") and the rule's other paths go on.
    w = t.mkdir("w")
    f = os.path.join(w, "passwd")
    other = os.path.join(w, "other")
    with open(f, "w") as fh:
        fh.write("old\n")
    with open(other, "w") as fh:
        fh.write("x\n")
    d, out, _ = start(t, [rule("r-fan", [f, other], events=["modify", "close_write"]),
                          rule("r-ino", [f], mark="inotify",
                               events=["modify", "close_write"])])
    c = t.child()
    c.create(f + ".new", data="new\n")
    logged = len(d.stderr())
    i = d.notify.mark()
    c.do("rename", path=f + ".new", to=f)
    # a SIGHUP now meets the re-arming (before or during it): neither is lost
    d.signal(signal.SIGHUP)
    j = d.wait_notify("RELOADING", "1", start=i)
    d.wait_notify("READY", "1", start=j + 1)
    for r in ("r-fan", "r-ino"):
        wait_until(lambda: f"rule '{r}': \"{f}\" is watched again" in d.stderr()[logged:],
                   f"rule {r}: the replaced file watched again", alive=d)
    check(re.search(r"rule 'r-fan': .*passwd is gone \(deleted\)", d.stderr()[logged:]),
          f"the replaced file's going is not logged:{tail(d.stderr(), 4)}")
    # what was written to the new file before it took the name: a rescan
    # record says it changed, once per rule, after the gone and rearmed
    # records
    for r in ("r-fan", "r-ino"):
        i_gone = out.wait_index(lambda x, r=r: x.kind == "gone" and x.rule == r and
                                x.path == os.fsencode(f) and x.get("reason") == "deleted"
                                and x.get("ondir") is False,
                                f"rule {r}: a 'gone' record for the replaced file", daemon=d)
        i_re = out.wait_index(lambda x, r=r: x.kind == "rearmed" and x.rule == r and
                              x.path == os.fsencode(f), f"rule {r}: a 'rearmed' record",
                              daemon=d)
        i_scan = out.wait_index(lambda x, r=r: x.kind == "rescan" and x.rule == r and
                                x.path == os.fsencode(f) and x.get("change") == "modified",
                                f"rule {r}: a 'modified' rescan record for the replaced file",
                                daemon=d)
        check(i_gone < i_re < i_scan, f"rule {r}: gone at {i_gone}, rearmed at {i_re}, "
              f"rescan at {i_scan}: not in that order")
    c.do("write", path=f, data="more\n")
    for r in ("r-fan", "r-ino"):
        out.wait(ev(f, "modify", r), f"rule {r}: a write to the new file", daemon=d)
    # the rule's other path kept its mark all along
    c.do("write", path=other, data="y\n")
    out.wait(ev(other, "modify", "r-fan"), "a write to the rule's other path", daemon=d)
    # moved away: gone, and not re-armed on the file elsewhere
    logged = len(d.stderr())
    c.do("rename", path=f, to=f + ".away")
    wait_until(lambda: "does not exist" in d.stderr()[logged:]
               and "re-armed: the rules are placed again" in d.stderr()[logged:],
               "the moved file missing, the rules placed again", alive=d)
    c.do("write", path=f + ".away", data="z\n")
    # marker: a write to the other path, reported after anything before it
    start_at = len(out.records)
    c.do("write", path=other, data="y\n")
    out.wait(ev(other, "modify", "r-fan"), "the marker write to the other path",
             start=start_at, daemon=d)
    away = [r for r in out.records[start_at:] if r.kind == "event" and
            r.path in (os.fsencode(f + ".away"), os.fsencode(f))]
    check(not away, f"the moved-away file is still reported: {away[:2]!r}")
    for r in ("r-fan", "r-ino"):
        n = out.count(lambda x, r=r: x.kind == "rescan" and x.rule == r)
        check(n == 1, f"rule {r}: {n} rescan records, expected one (the replacement)")
        n = out.count(lambda x, r=r: x.kind == "rearmed" and x.rule == r)
        check(n == 1, f"rule {r}: {n} rearmed records, expected one (the replacement)")
        gone = [x.get("reason") for x in out.records if x.kind == "gone" and x.rule == r]
        check(gone == ["deleted", "moved"], f"rule {r}: gone records {gone}, expected "
              "deleted (the replacement) and moved (moved away)")


@test
def missing_path_rearmed(t):
    # A watched directory deleted, then made again: "gone" (deleted), then
    # watched again once it exists (the daemon waits in its parent), with a
    # "rearmed" and a "created" rescan record, for a fanotify inode mark and
    # an inotify watch. A path missing two levels deep at start is watched
    # once it exists ("rearmed" too).
    w = t.mkdir("w")
    dd = os.path.join(w, "d")
    os.mkdir(dd)
    deep = os.path.join(w, "p", "q")
    d, out, _ = start(t, [rule("r-fan", [dd], events=["create"]),
                          rule("r-ino", [dd], mark="inotify", events=["create"]),
                          rule("r-deep", [deep], events=["create"]),
                          # an inotify rule on the directory the daemon waits
                          # in for r-deep: one kernel watch for both
                          rule("r-w", [w], mark="inotify", events=["create"])])
    check("does not exist" in d.stderr(), "the missing path is not said to be missing")
    c = t.child()
    logged = len(d.stderr())
    c.do("rmdir", path=dd)
    wait_until(lambda: d.stderr()[logged:].count("does not exist") >= 2
               and "re-armed" in d.stderr()[logged:], "the deleted directory missing",
               alive=d)
    for r in ("r-fan", "r-ino"):
        out.wait(lambda x, r=r: x.kind == "gone" and x.rule == r and x.path == os.fsencode(dd)
                 and x.get("reason") == "deleted" and x.get("ondir") is True,
                 f"rule {r}: a 'gone' record for the deleted directory", daemon=d)
    c.do("mkdir", path=dd)
    for r in ("r-fan", "r-ino"):
        out.wait(lambda x, r=r: x.kind == "rearmed" and x.rule == r and
                 x.path == os.fsencode(dd) and x.get("ondir") is True,
                 f"rule {r}: a 'rearmed' record for the directory made again", daemon=d)
        out.wait(lambda x, r=r: x.kind == "rescan" and x.rule == r and
                 x.path == os.fsencode(dd) and x.get("change") == "created",
                 f"rule {r}: a 'created' rescan record for the directory made again",
                 daemon=d)
    c.create(os.path.join(dd, "x"))
    for r in ("r-fan", "r-ino"):
        out.wait(ev(os.path.join(dd, "x"), "create", r), f"rule {r}: a create in the "
                 "directory made again", daemon=d)
    c.do("mkdir", path=os.path.dirname(deep))
    out.wait(ev(os.path.dirname(deep), "create", "r-w"), "rule r-w: the create in the "
             "directory waited in", daemon=d)
    c.do("mkdir", path=deep)
    out.wait(lambda x: x.kind == "rearmed" and x.rule == "r-deep" and
             x.path == os.fsencode(deep), "rule r-deep: rearmed, the path came to exist",
             daemon=d)
    out.wait(lambda x: x.kind == "rescan" and x.rule == "r-deep" and
             x.path == os.fsencode(deep), "rule r-deep: the path that came to exist",
             daemon=d)
    c.create(os.path.join(deep, "y"))
    out.wait(ev(os.path.join(deep, "y"), "create", "r-deep"), "a create in the path that "
             "came to exist", daemon=d)


@test
def umount_not_busy(t):
    # A filesystem with a filesystem-mark rule (whose event paths the
    # daemon resolves through an fd on the mount) can be unmounted while
    # the daemon runs: a plain umount, not a lazy one, does not fail with
    # EBUSY (the daemon keeps that fd only while it handles events).
    m = t.mount_fs("m", "tmpfs", "tmpfs", 0, "size=1m")
    w = os.path.join(m, "w")
    os.mkdir(w)
    d, out, _ = start(t, [rule("r", [w], mark="filesystem", recursive=True,
                               events=["create"])])
    c = t.child()
    c.create(os.path.join(w, "x"))
    out.wait(ev(os.path.join(w, "x"), "create", "r"), "a create (resolved by handle)", daemon=d)
    fds = [os.readlink(f"/proc/{d.pid}/fd/{n}") for n in os.listdir(f"/proc/{d.pid}/fd")]
    held = [f for f in fds if f == m or f.startswith(m + "/")]
    check(not held, f"between events the daemon holds {held} on the filesystem")
    c.close()  # (the child's cwd is elsewhere; its fds closed)
    if harness._libc.umount2(harness.b(m), 0) < 0:
        e = ctypes.get_errno()
        raise Fail(f"umount {m} while the daemon runs: {os.strerror(e)}")
    t.mounts.remove(m)
    d.check_alive("after the umount")


@test
def unmounted_rearmed(t):
    # A rule's path on a filesystem that is unmounted: an "unmounted" record
    # naming the mount point, for a filesystem mark, a mount mark, a fanotify
    # inode mark and an inotify watch; a new filesystem mounted there: the
    # path is waited for and "rearmed", and its events are reported. Once
    # with a plain umount (the daemon keeps nothing busy), once with a lazy
    # one while a file on it is open (the filesystem lives on, detached: no
    # inotify IN_UNMOUNT, only the mount table tells).
    m = t.mount_fs("m", "tmpfs", "tmpfs", 0, "size=1m")
    w = os.path.join(m, "w")
    os.mkdir(w)
    kinds = {"r-fs": "filesystem", "r-mnt": "mount", "r-inode": "inode", "r-ino": "inotify"}
    # (close_write: what a mount mark can report)
    d, out, _ = start(t, [rule(r, [w], mark=k, events=["close_write"])
                          for r, k in kinds.items()])
    c = t.child()

    def created(name):
        p = os.path.join(w, name)
        c.create(p)
        for r in kinds:
            out.wait(ev(p, "close_write", r), f"rule {r}: the file {name} written",
                     daemon=d)

    created("a")
    for lazy in (False, True):
        start_at = len(out.records)
        # (b: written in the first round, on the filesystem mounted then)
        held = os.open(os.path.join(w, "b"), os.O_RDONLY | os.O_CLOEXEC) if lazy else None
        if lazy:
            harness.umount(m)
        elif harness._libc.umount2(harness.b(m), 0) < 0:
            e = ctypes.get_errno()
            raise Fail(f"umount {m} while the daemon runs: {os.strerror(e)}")
        t.mounts.remove(m)
        for r in kinds:
            out.wait(lambda x, r=r: x.kind == "unmounted" and x.rule == r and
                     x.path == os.fsencode(w) and x.get("mount") == m and x.get("ondir"),
                     f"rule {r}: an 'unmounted' record ({'lazy' if lazy else 'plain'})",
                     start=start_at, daemon=d)
        if held is not None:
            os.close(held)
        harness.mount("tmpfs", m, "tmpfs", 0, "size=1m")
        t.mounts.append(m)
        c.do("mkdir", path=w)
        for r in kinds:
            out.wait(lambda x, r=r: x.kind == "rearmed" and x.rule == r and
                     x.path == os.fsencode(w), f"rule {r}: rearmed on the new filesystem",
                     start=start_at, daemon=d)
        created("b" if not lazy else "c")
    for r in kinds:
        n = {k: out.count(lambda x, r=r, k=k: x.kind == k and x.rule == r)
             for k in ("unmounted", "rearmed", "gone")}
        check(n == {"unmounted": 2, "rearmed": 2, "gone": 0},
              f"rule {r}: {n}, expected 2 unmounted, 2 rearmed, no gone")


@test
def covered_rearmed(t):
    # A filesystem mounted over a rule's path: the path now names the new
    # filesystem's root, so the rule's mark is "gone" (reason "covered")
    # and "rearmed" there, and its events are reported. A bind mount of the
    # directory on itself changes nothing an inode mark or an inotify watch
    # sees (the same object): no record.
    w = t.mkdir("w")
    kinds = {"r-inode": "inode", "r-ino": "inotify"}
    d, out, _ = start(t, [rule(r, [w], mark=k, events=["create"]) for r, k in kinds.items()])
    c = t.child()
    harness.mount(w, w, None, harness.MS_BIND)
    t.mounts.append(w)
    i = t.marker(c, out, w, daemon=d, rule="r-ino")
    check(out.count(lambda x: x.kind in ("gone", "rearmed")) == 0,
          f"a bind mount of the directory on itself: {out.records[:i]!r}")
    harness.mount("tmpfs", w, "tmpfs", 0, "size=1m")
    t.mounts.append(w)
    for r in kinds:
        out.wait(lambda x, r=r: x.kind == "gone" and x.rule == r and x.path == os.fsencode(w)
                 and x.get("reason") == "covered", f"rule {r}: gone, covered", daemon=d)
        out.wait(lambda x, r=r: x.kind == "rearmed" and x.rule == r and
                 x.path == os.fsencode(w), f"rule {r}: rearmed on the new filesystem",
                 daemon=d)
    p = os.path.join(w, "x")
    c.create(p)
    for r in kinds:
        out.wait(ev(p, "create", r), f"rule {r}: a create on the new filesystem", daemon=d)
        # (one of each: the bind mount said nothing, also when the daemon
        # read the mount table only after the second mount)
        n = [x.kind for x in out.records if x.rule == r and x.kind in ("gone", "rearmed")]
        check(n == ["gone", "rearmed"], f"rule {r}: {n}, expected one gone, one rearmed")


@test
def daemon_capabilities(t):
    # The daemon keeps only the capabilities it can use (fsnotifyd(8)):
    # SYS_ADMIN, DAC_READ_SEARCH, SYS_PTRACE, AUDIT_WRITE, IPC_LOCK, SETUID,
    # SETGID, KILL; none inheritable or ambient; NoNewPrivs. And it works.
    kept = sum(1 << b for b in (21, 2, 19, 29, 14, 7, 6, 5))
    w = t.mkdir("w")
    d, out, _ = start(t, [rule("r", [w], events=["create"])])
    with open(f"/proc/{d.pid}/status") as f:
        st = dict(ln.split(":", 1) for ln in f.read().splitlines() if ":" in ln)
    caps = {k: int(st[k], 16) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    check(caps["CapPrm"] & ~kept == 0 and caps["CapEff"] & ~kept == 0,
          f"the daemon kept capabilities it cannot use: {', '.join(f'{k} {v:#x}' for k, v in caps.items())}")
    check(caps["CapInh"] == 0 and caps["CapAmb"] == 0, f"inheritable/ambient: {caps}")
    check(st["NoNewPrivs"].strip() == "1", "NoNewPrivs is not set")
    c = t.child()
    c.create(os.path.join(w, "x"))
    out.wait(ev(os.path.join(w, "x"), "create", "r"), "a create", daemon=d)


@test
def std_fds_closed(t):
    # Started with fds 0, 1 and 2 closed, the daemon's first fds must not
    # take their numbers (its epoll fd became "standard output", and the
    # "-" output wrote into it): they are /dev/null, "-" writes there
    # without failing, and the rule reports to its file output.
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    outputs["stdout"] = {"type": "json", "file": "-"}
    cfg = t.write_file("fsnotifyd.conf", config_text(
        [rule("r", [w], events=["create"])], outputs, ["json", "stdout"],
        top="limits = { status_interval = 1; };"))

    def close_std():
        for fd in (0, 1, 2):
            os.close(fd)
    d = t.daemon(cfg, preexec=close_std)
    d.wait_ready()
    fds = {fd: os.readlink(f"/proc/{d.pid}/fd/{fd}") for fd in (0, 1, 2)}
    check(all(v == "/dev/null" for v in fds.values()),
          f"started with 0, 1, 2 closed, they are {fds}, not /dev/null")
    c = t.child()
    p = os.path.join(w, "x")
    c.create(p)
    out.wait(ev(p, "create", "r"), "the create, in the file output", daemon=d)
    i = d.wait_notify("STATUS", timeout=5, pred=lambda v: " 1 events" in v)
    st = d.notify.msgs[i][1]
    check(", 0 lost by outputs" in st, f"the \"-\" output failed: STATUS={st}")


@test
def check_config_not_a_file(t):
    # --check-config of a directory or a FIFO: exit 1 (not 2, the usage
    # error) at once, with the reason; the FIFO is not waited on.
    d = t.mkdir("confdir")
    fifo = os.path.join(t.dir, "conffifo")
    os.mkfifo(fifo)
    for p, what in ((d, "a directory"), (fifo, "a FIFO")):
        rc, so, se = run_cmd([t.binary, "--check-config", p], timeout=10)
        check(rc == 1, f"--check-config {what}: exit {rc}, expected 1:{tail(so + se)}")
        check(f"{p}: cannot read: {what}, not a regular file" in se,
              f"--check-config {what}: no reason:{tail(so + se)}")


@test
def check_config_unprivileged(t):
    # Without CAP_SYS_ADMIN (user nobody): a fanotify rule's problem names
    # the missing capability and what still works; a config whose other
    # rules can run is valid but not fully placeable (exit 3); with the
    # fanotify rule required, not valid (exit 1). inotify rules plan fine.
    import tempfile
    d = tempfile.mkdtemp(prefix="fsnd-it-nobody-", dir="/tmp")
    try:
        os.chmod(d, 0o755)
        w = os.path.join(d, "w")
        os.mkdir(w)
        rules = [rule("r-inode", [w], mark="inode", events=["create"]),
                 rule("r-auto", [w], events=["create"])]
        results = {}
        for name, req in (("optional", None), ("required", True)):
            if req:
                rules[0] = rule("r-inode", [w], mark="inode", events=["create"], required=True)
            cfg = os.path.join(d, f"{name}.conf")
            with open(cfg, "w") as f:
                f.write(config_text(rules, {"j": {"type": "journal"}}, ["j"]))
            os.chmod(cfg, 0o644)

            def nobody():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            results[name] = run_cmd([t.binary, "--check-config", cfg], preexec_fn=nobody)
        rc, so, se = results["optional"]
        check(rc == 3, f"unprivileged, a non-required fanotify rule: exit {rc}, expected 3 "
              f"(valid, some rules cannot be placed here):{tail(so + se)}")
        check("valid, but some rules cannot be placed here" in so,
              f"the last line does not say so:{tail(so + se)}")
        check(re.search(r"problem: rule 'r-inode': .*not permitted \(EPERM\): needs "
                        r"CAP_SYS_ADMIN.*inotify rules", so),
              f"the problem does not name CAP_SYS_ADMIN and what works:{tail(so + se)}")
        check(re.search(r"rule 'r-auto': 1 path, 1 mark\n  1 inotify watch", so),
              f"the auto rule is not planned as an inotify watch:{tail(so + se)}")
        rc, so, se = results["required"]
        check(rc == 1, f"unprivileged, a required fanotify rule: exit {rc}, expected 1:"
              f"{tail(so + se)}")
    finally:
        shutil.rmtree(d, ignore_errors=True)


@test
def check_config_shipped(t):
    confs = [os.path.join(t.srcdir, "conf", "fsnotifyd.conf")]
    examples = sorted(glob.glob(os.path.join(t.srcdir, "conf", "examples", "*.conf")))
    check(examples, "no conf/examples/*.conf")
    confs += examples
    problems = []
    for c in confs:
        # The default config creates its demo directory (create = true):
        # run it with a private /tmp so the check leaves nothing behind.
        argv = [t.binary, "--check-config", c]
        if not any(x.startswith("/tmp/") for x in (t.binary, c)):
            argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                    'mount -t tmpfs tmpfs /tmp && exec "$@"', "sh", *argv]
        rc, so, se = run_cmd(argv)
        # an example's paths need not exist here (3: valid, some rules
        # cannot be placed here); the default config's do
        if rc != 0 and not (rc == 3 and c != confs[0]):
            first = next((ln for ln in (so + se).split("\n") if ln.strip()), "")
            problems.append(f"{os.path.relpath(c, t.srcdir)}: exit {rc}: {first}"
                            f"{tail(so + se, 8)}")
            continue
        text = open(c, encoding="utf-8").read()
        for name in re.findall(r'^\s*(?:\{\s*)?name\s*=\s*"([^"]+)"', text, re.M):
            if name not in so:
                problems.append(f"{os.path.relpath(c, t.srcdir)}: the plan does not name rule "
                                f"{name}:{tail(so, 8)}")
    if problems:
        raise Fail(f"{len(problems)} problem(s): " + "\n".join(problems))


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


# ---------------------------------------------------------------------------
# Rules that cannot be placed
# ---------------------------------------------------------------------------

@test
def unplaceable_rule(t):
    ok = t.mkdir("ok")
    missing = t.path("does-not-exist")
    # ramfs refuses fanotify marks that report file ids (no file handles).
    rfs = t.mount_fs("ramfs", "ramfs", "ramfs", 0, "mode=0755")
    rules = [rule("r-ok", [ok], mark="auto", events=["create"]),
             rule("r-missing", [missing], mark="auto", events=["create"]),
             rule("r-refused", [rfs], mark="filesystem", recursive=True, events=["create"])]
    d, out, cfg = start(t, rules)
    c = t.child()
    c.create(os.path.join(ok, "x"))
    out.wait(ev(os.path.join(ok, "x"), "create", "r-ok"), "an event of the rule that works",
             daemon=d)
    err = d.stderr()
    check("r-missing" in err and missing in err
          and re.search(r"no such file|does not exist|missing|not found", err, re.I),
          f"the rule that cannot be placed is not reported with rule, path and reason:"
          f"{tail(err)}")
    check(re.search(r"r-refused.*" + re.escape(rfs) + r".*(filesystem|EOPNOTSUPP)", err),
          f"the filesystem mark ramfs refuses is not reported with rule, path and reason:"
          f"{tail(err)}")
    rc, so, se = run_cmd([t.binary, "--check-config", cfg])
    check(rc == 3, f"--check-config: exit {rc} for a rule that cannot be placed but is not "
          f"required (expected 3: valid, but some rules cannot be placed here):"
          f"{tail(so + se)}")
    check(missing in so + se, f"--check-config does not show the problem with {missing}:"
          f"{tail(so + se)}")
    d.signal(signal.SIGTERM)
    d.wait_exit()

    # required = true: fatal at start, without READY=1.
    outputs, _ = t.json_setup("events2.json")
    cfg2 = t.write_file("required.conf", config_text(
        [rule("r-ok", [ok], mark="auto", events=["create"]),
         rule("r-req", [missing], mark="auto", events=["create"], required=True)],
        outputs, ["json"]))
    d2 = t.daemon(cfg2)
    rc = d2.wait_exit(timeout=5)
    check(rc != 0, "the daemon started although a required rule cannot be placed")
    check(d2.notify.find("READY") is None, "READY=1 although a required rule failed")
    check("r-req" in d2.stderr() and missing in d2.stderr(),
          f"the fatal error does not name the rule and path:{tail(d2.stderr())}")
    # --check-config predicts it (interpretation: a config that cannot
    # start is not a valid config).
    rc, so, se = run_cmd([t.binary, "--check-config", cfg2])
    check(rc == 1, f"--check-config: exit {rc} for a required rule that cannot be placed, "
          f"expected 1:{tail(so + se)}")
