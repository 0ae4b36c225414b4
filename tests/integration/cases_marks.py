# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_marks.py — the integration cases of what a rule sees (issue 4):
events for each mark type (inode, mount, filesystem, inotify, auto) with
the right path and process, recursive inotify, auto on a filesystem
without fanotify file ids (ramfs), limits.max_marks; exclusions; process
filters and the daemon's own activity; hostile filenames through jq.
Registered in common.TESTS (run.py imports this module first).
"""

import base64
import os
import re
import shutil
import signal
import subprocess

import harness
from harness import Skip, check, config_text, ev, rule, run_cmd, tail, wait_until
from common import (DIRENT, NOBODY, check_events_subset, check_only, check_process, reload, start,
                    test)


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
