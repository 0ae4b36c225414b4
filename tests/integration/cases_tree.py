# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_tree.py — the integration cases of recursive rules (issue 8,
"Subtrees without races, full paths"), each run with both backends of a
recursive rule where it applies: fanotify (mark = "filesystem") and inotify
(mark = "inotify", one watch per directory). A burst of nested mkdirs
reported exactly once each, renamed directories reported under their new
name (and the rename with both names), deletes deep in the tree with full
paths, a tree of 100 000 directories (start-up time, memory) and a tree
larger than fs.inotify.max_user_watches. Registered in common.TESTS (run.py
imports this module after the general cases' modules).
"""

import collections
import os
import re
import signal
import time

import harness
from harness import Skip, check, config_text, ev, rule, tail
from common import NOBODY, TESTS, start, test

# The two ways to watch a tree: the rule's mark and recursive settings.
BACKENDS = {
    "fanotify": dict(mark="filesystem", recursive=True),
    "inotify": dict(mark="inotify", recursive=True),
}

MAX_USER_WATCHES = "/proc/sys/fs/inotify/max_user_watches"


def per_backend(fn):
    """Register fn(t, backend) as NAME-fanotify and NAME-inotify."""
    base = fn.__name__.replace("_", "-")
    for be in BACKENDS:
        TESTS.append((f"{base}-{be}", lambda t, fn=fn, be=be: fn(t, be)))
    return fn


def under(p, top):
    """p (bytes or None) is below the directory top (str)."""
    return p is not None and p.startswith(os.fsencode(top) + b"/")


def proc_status(pid, *keys):
    """Values (kB) of keys (VmRSS, VmHWM, ...) in /proc/PID/status."""
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in keys:
                vals[k] = int(v.split()[0])
    return vals


def read_sysctl(path):
    with open(path) as f:
        return int(f.read())


def write_sysctl(path, value):
    with open(path, "w") as f:
        f.write(f"{value}\n")


def set_watches(t, value, restore=True):
    """Set fs.inotify.max_user_watches (global: every user of the machine)
    for this case; the old value comes back when the case ends (restore
    False: the caller puts it back itself). Returns the old value. Skip if
    it cannot be written."""
    old = read_sysctl(MAX_USER_WATCHES)
    try:
        write_sysctl(MAX_USER_WATCHES, value)
    except OSError as e:
        raise Skip(f"cannot set fs.inotify.max_user_watches to {value} (it is {old}): {e}")
    if restore:
        t.cleanups.append(lambda: write_sysctl(MAX_USER_WATCHES, old))
    return old


def note(t, msg):
    """A figure for whoever reads the log: in the result line and on
    stderr, labelled with the case."""
    t.note(msg)
    harness.stderr_print(f"# {t.name}: {msg}")


def ready_after(d, wall0, timeout):
    """Wait for READY=1; seconds from wall0 (time.time() before the spawn)
    to the kernel's receive time of READY=1."""
    i = d.wait_notify("READY", "1", timeout=timeout)
    return d.notify.msgs[i][2] - wall0


# ---------------------------------------------------------------------------
# A burst of nested directories
# ---------------------------------------------------------------------------

@per_backend
def tree_burst(t, backend):
    # `mkdir -p a/b/c && touch a/b/c/f`, 20 times without a pause: every
    # create is reported once with its full path. inotify must watch a
    # before b appears in it, or find b when it looks (and then not report
    # it a second time when the kernel's event comes too).
    top = t.mkdir("top")
    d, out, _ = start(t, [rule("r-tree", [top], events=["create", "close_write"],
                               **BACKENDS[backend])])
    c = t.child()
    want = []
    for i in range(20):
        a = os.path.join(top, f"a{i}")
        c3 = os.path.join(a, "b", "c")
        f = os.path.join(c3, "f")
        if i % 2 == 0:
            # in this process: the whole burst before the daemon wakes up
            os.makedirs(c3)
            os.close(os.open(f, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
        else:
            # by the child, one step per request: as slow as the daemon
            # placing a watch, so the steps interleave with it
            for p in (a, os.path.join(a, "b"), c3):
                c.do("mkdir", path=p)
            c.create(f)
        want += [a, os.path.join(a, "b"), c3, f]
    m = t.marker(c, out, top, d)
    creates = collections.Counter(r.path for r in out.records[:m]
                                  if r.kind == "event" and "create" in r.events)
    wb = {os.fsencode(p) for p in want}
    rel = lambda p: os.path.relpath(os.fsdecode(p), top)  # noqa: E731
    missing = [rel(p) for p in want if creates[os.fsencode(p)] == 0]
    dups = [f"{rel(p)} x{n}" for p, n in creates.items() if n > 1]
    other = [rel(p) for p in creates if p not in wb]
    for p, n in creates.items():
        if n > 1:  # the whole round of the first duplicate, in order
            a = os.fsencode(os.path.join(top, rel(p).split("/")[0]))
            t.note("records of its round: " + " | ".join(
                f"{rel(r.path)} {','.join(sorted(r.events))}" for r in out.records[:m]
                if r.path == a or under(r.path, os.fsdecode(a))))
            break
    check(not missing and not dups and not other,
          f"{backend}: 20 bursts of mkdir -p a/b/c + touch a/b/c/f (80 creates): "
          f"{len(missing)} not reported {missing[:8]}, {len(dups)} reported more than once "
          f"{dups[:8]}, {len(other)} unexpected paths {other[:8]}")


# ---------------------------------------------------------------------------
# A renamed directory
# ---------------------------------------------------------------------------

@per_backend
def tree_rename_dir(t, backend):
    # d/x, d renamed to e, then e/y created and e/x written: reported as
    # e/y and e/x, never under the old name. The rename itself carries both
    # names: fanotify as moved_from d, moved_to e and rename d -> e; inotify
    # as one record pairing IN_MOVED_FROM and IN_MOVED_TO by their cookie.
    top = t.mkdir("top")
    old, new = t.mkdir("top", "d"), os.path.join(top, "e")
    events = ["create", "close_write", "moved_from", "moved_to"]
    if backend == "fanotify":
        events.append("rename")
    d, out, _ = start(t, [rule("r-tree", [top], events=events, **BACKENDS[backend])])
    c = t.child(comm="fsnd-rename")
    # (d is there before the start: inotify watches it, so the close_write
    # of d/x is not lost to a directory watched a moment too late)
    c.create(os.path.join(old, "x"))
    i0 = out.wait_index(ev(os.path.join(old, "x"), "close_write", "r-tree"),
                        "close_write of d/x", daemon=d) + 1
    c.do("rename", path=old, to=new)
    c.create(os.path.join(new, "y"))
    c.do("write", path=os.path.join(new, "x"), data="more\n")
    out.wait(ev(os.path.join(new, "y"), "create", "r-tree"), "create of e/y (after d -> e)",
             start=i0, daemon=d)
    out.wait(ev(os.path.join(new, "x"), "close_write", "r-tree"),
             "close_write of e/x (after d -> e)", start=i0, daemon=d)
    m = t.marker(c, out, top, d)
    recs = out.records[i0:m]
    stale = [r for r in recs if under(r.path, old) or under(r.old_path, old)]
    check(not stale, f"{backend}: records under the old name d/ after d was renamed to e: "
          f"{stale[:4]}")
    ob, nb = os.fsencode(old), os.fsencode(new)
    moves = [r for r in recs if r.events & {"moved_from", "moved_to", "rename"}]
    if backend == "fanotify":
        for what, pred in (
                ("moved_from with path d", lambda r: "moved_from" in r.events and r.path == ob),
                ("moved_to with path e", lambda r: "moved_to" in r.events and r.path == nb),
                ("rename with path e and old_path d",
                 lambda r: "rename" in r.events and r.path == nb
                 and r.old_path == ob)):
            check(any(pred(r) for r in moves),
                  f"fanotify: no {what} for the rename d -> e; move records: {moves}")
    else:
        check(len(moves) == 1 and moves[0].path == nb and moves[0].old_path == ob
              and moves[0].events & {"moved_to", "rename"},
              f"inotify: expected the rename d -> e as ONE record (IN_MOVED_FROM and "
              f"IN_MOVED_TO paired by cookie) with events moved_to (or rename), path e and "
              f"old_path d; saw {len(moves)} move record(s): {moves}")


@per_backend
def tree_rename_ancestor(t, backend):
    # A rule that asks only for creates: a/b/c/f1 is reported (the daemon
    # knows where a/b/c is), then a is renamed to z, twice back and forth,
    # each time followed by a create deep below: always the current path
    # (the daemon's directory paths stay right across moves of a directory
    # above them, moves it was not asked to report).
    top = t.mkdir("top")
    a = t.mkdir("top", "a")
    os.makedirs(os.path.join(a, "b", "c"))
    d, out, _ = start(t, [rule("r-anc", [top], events=["create"], **BACKENDS[backend])])
    c = t.child(comm="fsnd-anc")
    names = ["a", "z", "a", "z"]
    for i, name in enumerate(names):
        if i > 0:
            c.do("rename", path=os.path.join(top, names[i - 1]), to=os.path.join(top, name))
        f = os.path.join(top, name, "b", "c", "f%d" % i)
        c.create(f)
        out.wait(ev(f, "create", "r-anc"), f"{backend}: create of {f} after the renames",
                 daemon=d)
    m = t.marker(c, out, top, d)
    want = {os.fsencode(os.path.join(top, n, "b", "c", "f%d" % i)) for i, n in enumerate(names)}
    bad = [r for r in out.records[:m] if r.kind == "event" and b"/b/c/f" in (r.path or b"")
           and r.path not in want]
    check(not bad, f"{backend}: creates under a stale directory path: {bad[:4]}")


# ---------------------------------------------------------------------------
# Deletes deep in the tree
# ---------------------------------------------------------------------------

@per_backend
def tree_delete(t, backend):
    # A file deep in the tree from before the start, and one (in a
    # directory) made after it: their deletes have the full path.
    top = t.mkdir("top")
    deep = t.mkdir("top", "p", "q", "r")
    before = os.path.join(deep, "old")
    with open(before, "w") as f:
        f.write("x\n")
    d, out, _ = start(t, [rule("r-tree", [top], events=["create", "delete"],
                               **BACKENDS[backend])])
    c = t.child()
    nd = os.path.join(deep, "s")
    after = os.path.join(nd, "new")
    c.do("mkdir", path=nd)
    c.create(after)
    i0 = out.wait_index(ev(after, "create", "r-tree"), "create of p/q/r/s/new", daemon=d) + 1
    c.do("unlink", path=before)
    c.do("unlink", path=after)
    c.do("rmdir", path=nd)
    for p, what in ((before, "a file from before the start"),
                    (after, "a file made after the start"), (nd, "a directory")):
        out.wait(ev(p, "delete", "r-tree"), f"delete of {p} ({what})", start=i0, daemon=d)
    m = t.marker(c, out, top, d)
    dels = [r for r in out.records[i0:m] if "delete" in r.events]
    want = {os.fsencode(p) for p in (before, after, nd)}
    check(len(dels) == 3 and {r.path for r in dels} == want,
          f"{backend}: expected 3 delete records (p/q/r/old, p/q/r/s/new, p/q/r/s): {dels}")


# ---------------------------------------------------------------------------
# A directory swapped for a symlink before the daemon follows it (issue 28)
# ---------------------------------------------------------------------------

def inotify_watches(pid):
    """The inodes that pid's inotify fds watch, as {(sdev, ino)} from
    /proc/PID/fdinfo (sdev in the kernel's encoding: see kernel_dev())."""
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                for line in f:
                    m = re.match(r"inotify wd:\S+ ino:([0-9a-f]+) sdev:([0-9a-f]+)", line)
                    if m:
                        found.add((int(m.group(2), 16), int(m.group(1), 16)))
        except OSError:
            continue
    return found


def kernel_dev(st):
    """st's device as the kernel's fdinfo prints it (major << 20 | minor)."""
    return (os.major(st.st_dev) << 20) | os.minor(st.st_dev)


def swap_run(t, old, new, target, after):
    """The user (nobody) of a watched tree makes top/p/d, renames top/OLD
    (p or p/d) to top/NEW and puts a symlink top/OLD -> secret/TARGET, where
    secret is a root-only (0700) directory holding a d of its own, with
    files and a directory named root-only-*. All of it is done while the
    daemon is stopped (SIGSTOP), so it always reads the create of p/d after
    the swap. Then root writes in its own d, and the user makes a marker in
    top. Before the marker: exactly the records of what the user did (the
    create of p/d, the rename OLD -> NEW as one record, the create of the
    symlink OLD), none naming a root-only entry, and no inotify watch of
    the daemon on secret/d or below it. Last, a create in top/AFTER (the
    user's d where it is now) is reported under that name."""
    top = t.mkdir("top")
    p = t.mkdir("top", "p")
    for x in (top, p):
        os.chown(x, NOBODY, NOBODY)
    secret = t.mkdir("secret", mode=0o700)
    sd = t.mkdir("secret", "d", mode=0o700)
    t.mkdir("secret", "d", "root-only-dir", mode=0o700)
    for n in ("root-only-1", "root-only-2"):
        with open(os.path.join(sd, n), "w") as f:
            f.write("secret\n")
    d, out, _ = start(t, [rule("r-swap", [top], mark="inotify", recursive=True,
                               events=["create", "delete", "moved_from", "moved_to",
                                       "close_write"])])
    c = t.child(comm="fsnd-swap", uid=NOBODY)
    old, new = os.path.join(top, old), os.path.join(top, new)
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    c.do("mkdir", path=os.path.join(p, "d"))
    c.do("rename", path=old, to=new)
    c.do("symlink", path=old, to=os.path.join(secret, target))
    d.signal(signal.SIGCONT)

    with open(os.path.join(sd, "root-only-3"), "w") as f:
        f.write("x\n")
    os.mkdir(os.path.join(sd, "root-only-dir2"))
    with open(os.path.join(sd, "root-only-dir", "root-only-4"), "w") as f:
        f.write("x\n")
    m = t.marker(c, out, top, d)
    recs = out.records[:m]
    leaked = [r for r in recs if b"root-only" in (r.path or b"") + (r.old_path or b"")]
    check(not leaked, f"records naming entries of the root-only directory {sd} (the user "
          f"swapped a directory of the tree for a symlink into {secret}): {leaked[:6]}")
    roots = {(kernel_dev(os.stat(x)), os.stat(x).st_ino)
             for x in (sd, os.path.join(sd, "root-only-dir"),
                       os.path.join(sd, "root-only-dir2"))}
    watched = inotify_watches(d.pid) & roots
    check(not watched, f"the daemon has {len(watched)} inotify watch(es) in the root-only "
          f"directory {sd} (fdinfo of its inotify fd: (sdev, ino) {sorted(watched)})")
    want = [(os.path.join(p, "d"), None, {"create", "ondir"}),
            (new, old, {"moved_from", "moved_to", "ondir"}),
            (old, None, {"create"})]
    got = [(r.path, r.old_path, r.events) for r in recs if r.kind == "event"]
    ok = len(got) == len(want) and all(
        gp == os.fsencode(wp) and go == (os.fsencode(wo) if wo else None) and we <= ge
        for (gp, go, ge), (wp, wo, we) in zip(got, want))
    rel = lambda x: os.path.relpath(os.fsdecode(x), top)  # noqa: E731
    check(ok, "the records do not say what the user did: expected " + ", ".join(
        f"{sorted(we)} {rel(wp)}" + (f" (from {rel(wo)})" if wo else "")
        for wp, wo, we in want) + "; got " + ", ".join(
        f"{sorted(ge)} {rel(gp)}" + (f" (from {rel(go)})" if go else "")
        for gp, go, ge in got))

    f = os.path.join(top, after, "after")
    c.create(f)
    out.wait(ev(f, "create", "r-swap"), f"the create of {rel(f)} (the user's d, watched "
             "where it is now)", start=m, daemon=d)


@test
def tree_swap_parent(t):
    # p, where the user made d, becomes a symlink to secret (which holds
    # root's d): the daemon must follow p/d through the directory the
    # watch of p is on, never by the path p/d, and find the user's d at
    # q/d once it reads the rename (fails on the old code: it watched and
    # listed root's d as p/d, then called it q/d).
    swap_run(t, "p", "q", ".", "q/d")


@test
def tree_swap_dir(t):
    # The new directory itself becomes a symlink to root's d: not followed;
    # p/e is watched when its move is read.
    swap_run(t, "p/d", "p/e", "d", "p/e")


# ---------------------------------------------------------------------------
# 100 000 directories
# ---------------------------------------------------------------------------

@test
def tree_100k(t):
    # fanotify: one filesystem mark, nothing to walk: READY=1 well under a
    # second. inotify: 100 101 watches; start-up time and memory are
    # printed, and the watches are proved there by creates deep in it.
    top = t.mkdir("big")
    NT, ND = 100, 1000
    t0 = time.monotonic()
    for i in range(NT):
        ti = os.path.join(top, f"t{i:02d}")
        os.mkdir(ti)
        for j in range(ND):
            os.mkdir(f"{ti}/d{j:03d}")
    note(t, f"{NT * ND} directories made in {time.monotonic() - t0:.2f} s")
    c = t.child()
    # deep directories, one per top directory, spread over the second level
    sample = [os.path.join(top, f"t{i:02d}", f"d{(i * 379) % ND:03d}") for i in range(NT)]

    def run(name, rl, extra_top, timeout):
        outputs, out = t.json_setup(f"{name}.json")
        cfg = t.write_file(f"{name}.conf", config_text([rl], outputs, ["json"], extra_top))
        wall0 = time.time()
        d = t.daemon(cfg, name=name)
        secs = ready_after(d, wall0, timeout)
        st = proc_status(d.pid, "VmRSS", "VmHWM")
        return d, out, secs, st

    d, out, secs, st = run("fan", rule("r-fan", [top], mark="filesystem", recursive=True,
                                       events=["create"]), "", 5)
    note(t, f"fanotify start {secs:.3f} s, VmHWM {st['VmHWM'] / 1024:.1f} MB")
    f = os.path.join(sample[-1], "f-fan")
    c.create(f)
    out.wait(ev(f, "create", "r-fan"), "a create deep in the tree (fanotify)", daemon=d)
    d.kill()
    check(secs < 1.0, f"fanotify recursive rule on {NT * ND} directories: READY=1 after "
          f"{secs:.3f} s, expected < 1 s (one filesystem mark, nothing to walk)")

    try:
        have = read_sysctl(MAX_USER_WATCHES)
    except OSError as e:
        raise Skip(f"cannot read {MAX_USER_WATCHES}: {e}")
    if have < 110000:
        set_watches(t, 200000)
    d, out, secs, st = run("ino", rule("r-ino", [top], mark="inotify", recursive=True,
                                       events=["create"]),
                           "limits = { max_marks = 200000; };", 15)
    note(t, f"inotify start {secs:.2f} s, VmRSS {st['VmRSS'] / 1024:.1f} MB, "
         f"VmHWM {st['VmHWM'] / 1024:.1f} MB")
    err = d.stderr()
    check(not re.search(r"max_marks|max_user_watches|cannot place|cannot watch", err),
          f"inotify on {NT * ND + NT + 1} directories: the daemon did not place every "
          f"watch:{tail(err)}")
    files = [os.path.join(p, "f-ino") for p in sample]
    newdir = os.path.join(sample[0], "new")
    for p in files:
        c.create(p)
    c.do("mkdir", path=newdir)
    files.append(os.path.join(newdir, "g"))
    c.create(files[-1])
    m = t.marker(c, out, sample[-1], d)
    # (reported at all: duplicates are tree-burst's business)
    seen = {r.path for r in out.records[:m] if "create" in r.events}
    missing = [os.path.relpath(p, top) for p in files if os.fsencode(p) not in seen]
    check(not missing, f"inotify on {NT * ND} directories: creates in {len(files)} deep "
          f"directories, {len(missing)} not reported: {missing[:8]}")


# ---------------------------------------------------------------------------
# A tree beyond fs.inotify.max_user_watches
# ---------------------------------------------------------------------------

@test
def tree_watch_limit(t):
    # A recursive inotify rule on 331 directories with max_user_watches =
    # 200: the daemon says so, naming the rule, the watches it needs and
    # the limit, and runs the other rules. The sysctl is global (per user
    # of the whole machine): it is set only while the daemon starts.
    top = t.mkdir("big")
    for i in range(30):
        for j in range(10):
            os.makedirs(os.path.join(top, f"t{i:02d}", f"d{j}"))
    ndirs = 1 + 30 + 30 * 10
    ok = t.mkdir("ok")
    limit = 200
    if read_sysctl(MAX_USER_WATCHES) < ndirs:
        raise Skip(f"fs.inotify.max_user_watches is already below {ndirs}")
    old = set_watches(t, limit, restore=False)
    try:
        d, out, _ = start(t, [rule("r-big", [top], mark="inotify", recursive=True,
                                   events=["create"]),
                              rule("r-ok", [ok], mark="inode", events=["create"])])
    finally:
        write_sysctl(MAX_USER_WATCHES, old)
    c = t.child()
    c.create(os.path.join(ok, "x"))
    out.wait(ev(os.path.join(ok, "x"), "create", "r-ok"), "an event of the other rule",
             daemon=d)
    err = d.stderr()
    lines = [ln for ln in err.split("\n") if "max_user_watches" in ln]
    check(lines, f"no log line naming fs.inotify.max_user_watches ({ndirs} directories, "
          f"limit {limit}):{tail(err)}")
    good = [ln for ln in lines if "r-big" in ln and re.search(rf"\b{ndirs}\b", ln)
            and re.search(rf"\b{limit}\b", ln)]
    check(good, f"the max_user_watches message does not name the rule r-big, the watches "
          f"needed ({ndirs}) and the limit ({limit}): {lines}")


# ---------------------------------------------------------------------------
# Overflow recovery
# ---------------------------------------------------------------------------

QUEUE_LIMITS = {
    "fanotify": "/proc/sys/fs/fanotify/max_queued_events",
    "inotify": "/proc/sys/fs/inotify/max_queued_events",
}


@per_backend
def overflow(t, backend):
    """A queue overflow during a burst: the overflow is reported for the
    rule, then a rescan reports what was created in the gap (a new
    directory, a file in it, and the burst's last file), each as
    "created", and the directories whose entries changed as "changed"; a
    recursive inotify rule also watches the new directory again."""
    system_qmax = read_sysctl(QUEUE_LIMITS[backend])
    qmax = 1000  # (limits.kernel_queue: the queue's length, whatever the sysctl says)
    top = t.mkdir("ovt")
    sub = os.path.join(top, "sub")
    os.mkdir(sub)
    d, out, _ = start(t, [rule("r-ov", [top], events=["create", "delete"],
                               **BACKENDS[backend])],
                      top=f"limits = {{ status_interval = 1; kernel_queue = {qmax}; }};")
    check(read_sysctl(QUEUE_LIMITS[backend]) == system_qmax,
          f"{QUEUE_LIMITS[backend]} not restored after the daemon created its queue")
    c = t.child(comm="fsnd-ov")
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    c.do("many", path=os.path.join(top, "f"), count=qmax + 500, timeout=60)
    gapdir = os.path.join(sub, "gap")
    c.do("mkdir", path=gapdir)
    c.create(os.path.join(gapdir, "inside"))
    d.signal(signal.SIGCONT)
    ov = out.wait(lambda r: r.kind == "overflow", "an overflow record", timeout=20, daemon=d)
    check(ov.rule == "r-ov", f"the overflow record does not name the rule r-ov: {ov!r}")

    def rescan(path, change):
        want = os.fsencode(path)
        return lambda r: (r.kind == "rescan" and r.rule == "r-ov" and r.path == want
                          and r.get("change") == change)

    last = os.path.join(top, "f%06d" % (qmax + 499))
    for path, change in ((gapdir, "created"), (os.path.join(gapdir, "inside"), "created"),
                         (last, "created"), (sub, "changed"), (top, "changed")):
        out.wait(rescan(path, change), f"a rescan record: {change} {path}", timeout=15,
                 daemon=d)
    # one record per object at most: files of the burst, the two new
    # objects, the two directories (and the new directory changed)
    n = out.count(lambda r: r.kind == "rescan")
    check(n <= qmax + 500 + 8, f"{n} rescan records for {qmax + 500 + 2} new objects")
    # the rule goes on, also in the directory made during the gap (inotify:
    # its watch was placed by the rescan)
    c.create(os.path.join(gapdir, "after"))
    out.wait(ev(os.path.join(gapdir, "after"), "create", rule="r-ov"),
             "the create of a file in the gap's directory, after the rescan", daemon=d)
