# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_lifecycle.py — the integration cases of watched objects that go away
and come back: a watched file replaced by a rename over it or moved away,
a watched directory deleted and made again, a path missing at start, a
filesystem unmounted (plain and lazy) and mounted again, a path covered by
a mount ("gone", "unmounted", "rearmed" and "rescan" records); a
filesystem-mark rule does not keep its filesystem busy. Registered in
common.TESTS.
"""

import ctypes
import os
import re
import signal
import time

import harness
from harness import Fail, check, ev, rule, tail, wait_until
from common import NOBODY, reload, start, test


# ---------------------------------------------------------------------------
# Watched objects replaced, deleted, unmounted, covered
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# A rule's path in a directory another user owns (issue 28)
# ---------------------------------------------------------------------------

def user_dir(t, *parts, uid=NOBODY):
    """A directory of this test's filesystem owned by uid (mode 0755)."""
    p = t.mkdir(*parts)
    os.chown(p, uid, uid)
    return p


def refused(d, since, rule, path):
    """The daemon's log since offset since says rule's path was refused at
    a symlink (naming the rule, the path and the component)."""
    return re.search(rf"rule '{re.escape(rule)}': \"{re.escape(path)}\": .*symlink "
                     rf"\"{re.escape(path)}\" .*not followed", d.stderr()[since:])


@test
def symlink_swap_refused(t):
    # A rule's path in a directory another user owns: the user replaces the
    # watched directory with a symlink to a root-only (0700) directory. A
    # re-arm (the watched object went), a SIGHUP reload and a re-arm after
    # the user made the directory again and swapped it once more all refuse
    # the symlink (logged, naming the rule, the path and the component) and
    # place no mark on what it names: nothing done in the root-only
    # directory is reported, for an inode mark, an inotify watch and a
    # recursive filesystem mark (whose filter would follow the symlink). A
    # real directory made there is watched again.
    home = user_dir(t, "home")
    up = user_dir(t, "home", "up")
    secret = t.mkdir("secret", mode=0o700)
    mk = t.mkdir("mk")
    kinds = {"inode": dict(mark="inode"), "ino": dict(mark="inotify"),
             "fs": dict(mark="filesystem", recursive=True)}
    rules = [rule(f"r-{k}", [up], events=["create"], **kw) for k, kw in kinds.items()]
    # markers: the same kind of mark (so the same kernel queue) elsewhere
    rules += [rule(f"m-{k}", [mk], events=["create"], **kw) for k, kw in kinds.items()]
    outputs, out = t.json_setup()
    prom = os.path.join(t.dir, "fsnotifyd.prom")
    outputs["prom"] = {"type": "metrics", "file": prom, "interval": 1}
    d, _, cfg = start(t, rules, outputs=outputs, reader=out)
    user = t.child(comm="fsnd-user", uid=NOBODY)

    def marker():
        i = len(out.records)
        p = os.path.join(mk, f"zz-{i}")
        os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
        for k in kinds:
            out.wait(ev(p, "create", f"m-{k}"), f"the marker of m-{k}", start=i, daemon=d)

    def reported_in(path, start):
        return [r for r in out.records[start:] if r.path and (
            r.path == os.fsencode(path) or r.path.startswith(os.fsencode(path + "/")))]

    user.create(os.path.join(up, "a"))
    for k in kinds:
        out.wait(ev(os.path.join(up, "a"), "create", f"r-{k}"), f"rule r-{k}: a create in "
                 "the user's directory", daemon=d)
    n = 0
    for how in ("re-arm", "SIGHUP", "re-arm after the directory came back"):
        logged, i0 = len(d.stderr()), len(out.records)
        if how == "SIGHUP":
            reload(d, t, cfg, open(cfg).read())
        else:
            user.do("rename", path=up, to=os.path.join(home, f"old-{n}"))
            user.do("symlink", path=up, to=secret)
            wait_until(lambda: "re-armed" in d.stderr()[logged:], f"{how}: the re-arm",
                       alive=d)
        n += 1
        with open(os.path.join(secret, f"x-{n}"), "w") as f:
            f.write("root's\n")
        marker()
        leaked = reported_in(secret, i0) + [r for r in out.records[i0:]
                                            if r.kind in ("rearmed", "rescan")]
        check(not leaked, f"{how}: records from the root-only directory the symlink names: "
              f"{leaked[:3]!r}")
        for k in kinds:
            wait_until(lambda k=k: refused(d, logged, f"r-{k}", up), f"{how}: rule r-{k}: "
                       "the symlink refused (logged naming the rule, the path, the component)",
                       alive=d)
        if how == "SIGHUP":
            # the user makes the directory again: watched again
            i = len(out.records)
            user.do("unlink", path=up)
            user.do("mkdir", path=up)
            for k in kinds:
                if k != "fs":  # (its filesystem mark never went)
                    out.wait(lambda x, k=k: x.kind == "rearmed" and x.rule == f"r-{k}",
                             f"rule r-{k}: rearmed on the directory made again", start=i,
                             daemon=d)
            user.create(os.path.join(up, "b"))
            for k in kinds:
                out.wait(ev(os.path.join(up, "b"), "create", f"r-{k}"), f"rule r-{k}: a "
                         "create in the directory made again", start=i, daemon=d)

    # each refusal counted once per rule (fsnotifyd_rule_symlink_refusals_total)
    def refusals():
        try:
            with open(prom) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        got = {k: re.search(rf'^fsnotifyd_rule_symlink_refusals_total{{rule="r-{k}"}} (\d+)$',
                            text, re.M) for k in kinds}
        return {k: int(m[1]) if m else None for k, m in got.items()}
    wait_until(lambda: refusals() == {k: 3 for k in kinds}, "three symlink refusals counted "
               "per rule in the metrics file", alive=d)


def cpu_seconds(pid):
    """The CPU time (user + system) process pid has used so far."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@test
def dangling_symlink_quiet(t):
    # A rule's path replaced by a dangling symlink: another user's (not
    # followed) and root's in root's directory (followed, its target
    # missing). Each is missing or refused once, logged once, and waited
    # for: the daemon does not plan again and again (over a window of 3 s
    # it uses less than 10 % of it in CPU time and logs at most a few
    # lines). A real directory made there is watched again.
    user_dir(t, "home")
    up = user_dir(t, "home", "up")
    rdir = t.mkdir("rdir")
    rup = t.mkdir("rdir", "up")
    d, out, _ = start(t, [rule("r-user", [up], events=["create"]),
                          rule("r-root", [rup], mark="inotify", events=["create"])])
    user = t.child(comm="fsnd-user", uid=NOBODY)
    logged = len(d.stderr())
    user.do("rmdir", path=up)
    user.do("symlink", path=up, to=t.path("nowhere", "x"))
    os.rmdir(rup)
    os.symlink(t.path("nowhere", "y"), rup)
    for r in ("r-user", "r-root"):
        out.wait(lambda x, r=r: x.kind == "gone" and x.rule == r, f"rule {r}: gone", daemon=d)
    wait_until(lambda: "re-armed" in d.stderr()[logged:], "the re-arm", alive=d)
    window = 3.0
    lines0, cpu0, t0 = d.stderr().count("\n"), cpu_seconds(d.pid), time.monotonic()
    time.sleep(window)  # (a measurement over a window of wall time)
    cpu, spent = cpu_seconds(d.pid) - cpu0, time.monotonic() - t0
    lines = d.stderr().count("\n") - lines0
    d.check_alive("the window")
    check(cpu < 0.1 * spent, f"the daemon used {cpu:.2f} s of CPU in {spent:.2f} s with a "
          f"dangling symlink on two rule paths:{tail(d.stderr(), 6)}")
    check(lines <= 4, f"the daemon logged {lines} lines in {spent:.2f} s with a dangling "
          f"symlink on two rule paths:{tail(d.stderr(), 6)}")
    check(refused(d, logged, "r-user", up), f"rule r-user: the user's symlink not refused:"
          f"{tail(d.stderr()[logged:], 6)}")
    check(re.search(rf"rule 'r-root': \"{re.escape(rup)}\": does not exist",
                    d.stderr()[logged:]),
          f"rule r-root: not said to be missing:{tail(d.stderr()[logged:], 6)}")
    # made again: watched again
    i = len(out.records)
    user.do("unlink", path=up)
    user.do("mkdir", path=up)
    os.unlink(rup)
    os.mkdir(rup)
    for r, p in (("r-user", up), ("r-root", rup)):
        out.wait(lambda x, r=r: x.kind == "rearmed" and x.rule == r, f"rule {r}: rearmed",
                 start=i, daemon=d)
        user_or_root = user if r == "r-user" else t.child()
        user_or_root.create(os.path.join(p, "a"))
        out.wait(ev(os.path.join(p, "a"), "create", r), f"rule {r}: a create in the "
                 "directory made again", start=i, daemon=d)
