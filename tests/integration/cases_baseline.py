# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_baseline.py — rules with baseline: what changed while the daemon was
not running is reported at its next start, each change once, with what
stat(1) and sha256sum(1) say before and after; what it saw while running
is not reported again; a SIGKILL in a storm loses nothing and repeats
nothing; a database that is not one is set aside and made anew.
"""

import json
import os
import re
import shutil
import signal

from common import DIRENT, start, test
from harness import (Skip, check, config_text, lc, record_attrs, rule, run_cmd, sha256sum,
                     stat_attrs, tail, validate_record, wait_until)

EVENTS = DIRENT + ["attrib"]


def baseline_setup(t, name="b", **kw):
    """A tree w and a state directory of the test's own, and the rule
    (recursive, hash, baseline) and top-level settings for them."""
    w = t.mkdir("w")
    state = t.mkdir("state", mode=0o700)
    top = f"state_directory = {lc(state)};"
    r = rule(name, [w], recursive=True, baseline=True, hash=True, events=EVENTS, **kw)
    return w, state, top, r


def logged(d, pattern, start=0):
    """The daemon's log has a line matching pattern (after start chars):
    the match, else None."""
    return re.search(pattern, d.stderr()[start:])


def wait_compared(d, name="b", start=0):
    """Wait until the daemon says rule name's baseline was made or compared:
    the log line's match (made: group 1 "made")."""
    pat = rf"baseline of rule '{name}' (made|compared \(\w+\)): [^\n]*"
    return wait_until(lambda: logged(d, pat, start), f"rule '{name}''s baseline compared",
                      alive=d)


def restart(t, cfg, out, name="b"):
    """Start the daemon on cfg again, wait for its comparison: (daemon, the
    baseline records it made, the log line)."""
    mark = len(out.records)
    d = t.daemon(cfg)
    d.wait_ready()
    m = wait_compared(d, name)
    # its records went out before it said so: read them
    out.poll()
    return d, [x for x in out.records[mark:] if x.kind == "baseline"], m.group(0)


def restart_quiet(t, cfg, out, what):
    """Start the daemon on cfg again: its comparison reports nothing (what:
    why nothing is due); stopped again. Its log line."""
    d, recs, line = restart(t, cfg, out)
    check(not recs, f"{what}: {recs!r}")
    check("0 created, 0 deleted, 0 renamed, 0 changed" in line, line)
    stop(d)
    return line


def stop(d):
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc}:{tail(d.stderr())}")


# The tree of baseline-offline and baseline-aide (13 objects), and what is
# done to it while nothing watches: content changed with its size and mtime
# kept (touch -r), a mode, an owner, a deletion, a creation, a rename, a
# hard link, a symbolic link retargeted, a directory replaced by a file, a
# rename over another file.
TREE = ("content", "mode", "owner", "gone", "old-name", "hard", "over-src", "over-dst", "same")


def make_tree(t, w):
    for n in TREE:
        t.write_file(os.path.join(w, n), f"{n}\n")
    os.mkdir(os.path.join(w, "dir"))
    t.write_file(os.path.join(w, "dir", "inner"), "i\n")
    os.symlink("content", os.path.join(w, "link"))


def change_tree(t, w):
    p = lambda n: os.path.join(w, n)  # noqa: E731
    st = os.stat(p("content"))
    with open(p("content"), "w") as f:
        f.write("CONTENT\n")
    os.utime(p("content"), ns=(st.st_atime_ns, st.st_mtime_ns))
    os.chmod(p("mode"), 0o4755)
    os.chown(p("owner"), 65534, 65534)
    os.unlink(p("gone"))
    t.write_file(p("new"), "new\n")
    os.rename(p("old-name"), p("new-name"))
    os.link(p("hard"), p("hard2"))
    os.unlink(p("link"))
    os.symlink("new", p("link"))
    shutil.rmtree(p("dir"))
    t.write_file(p("dir"), "now a file\n")
    os.rename(p("over-src"), p("over-dst"))


@test
def baseline_offline(t):
    # Every kind of change made while the daemon is stopped, reported at
    # its start as AIDE would (and renames, which AIDE cannot): created,
    # deleted, content changed with size and mtime kept (touch -r), mode,
    # owner, a hard link, a rename, a symbolic link retargeted, a directory
    # replaced by a file, a file replaced by a rename over it. Each once,
    # with attrs equal to stat(1) and sha256 to sha256sum(1); nothing else;
    # nothing at the next start.
    w, state, top, r = baseline_setup(t)
    p = lambda n: os.path.join(w, n)  # noqa: E731
    make_tree(t, w)
    outputs, out = t.json_setup()
    d, out, cfg = start(t, [r], outputs=outputs, reader=out, top=top)
    m = wait_compared(d)
    check(m.group(1) == "made" and "13 objects" in m.group(0), f"the first start: {m.group(0)}")
    stop(d)
    before = {n: stat_attrs(p(n)) for n in ("content", "mode", "owner", "gone", "old-name",
                                            "hard", "over-src", "over-dst", "link", "dir")}
    sums = {n: sha256sum(p(n))[0] for n in ("content", "gone", "over-src", "over-dst")}

    change_tree(t, w)  # (while it is stopped)

    d, recs, line = restart(t, cfg, out)
    got = sorted((x["change"], os.path.basename(x.path.decode()),
                  os.path.basename(x.old_path.decode()) if x.old_path else None) for x in recs)
    want = sorted([("changed", "w", None), ("changed", "content", None),
                   ("changed", "mode", None), ("changed", "owner", None),
                   ("deleted", "gone", None), ("created", "new", None),
                   ("renamed", "new-name", "old-name"), ("created", "hard2", None),
                   ("changed", "hard", None), ("changed", "link", None),
                   ("changed", "dir", None), ("deleted", "inner", None),
                   ("renamed", "over-dst", "over-src"), ("deleted", "over-dst", None)])
    check(got == want, f"baseline records {got}, expected {want}; log: {line}")
    by = {(x["change"], os.path.basename(x.path.decode())): x for x in recs}
    for x in recs:
        check(x["reason"] == "offline", f"reason: {x!r}")

    def now_and_before(change, n, before_name=None, changed=None):
        x = by[(change, n)]
        now = stat_attrs(p(n))
        check(record_attrs(x["attrs"]) == now, f"{n}: attrs {x['attrs']!r}, stat says {now!r}")
        was = before[before_name or n]
        check(record_attrs(x["attrs_before"]) == was,
              f"{n}: attrs_before {x['attrs_before']!r}, stat said {was!r}")
        if changed is not None:
            check(x.get("changed") == changed, f"{n}: changed {x.get('changed')!r}, "
                  f"expected {changed!r}")
        return x

    x = now_and_before("changed", "content", changed=["ctime", "content"])
    check(x["sha256_before"] == sums["content"] and x["sha256"] == sha256sum(p("content"))[0],
          f"content: {x!r}")
    now_and_before("changed", "mode", changed=["mode", "ctime"])
    now_and_before("changed", "owner", changed=["uid", "gid", "ctime"])
    now_and_before("changed", "hard", changed=["ctime", "nlink"])
    x = now_and_before("renamed", "new-name", before_name="old-name", changed=["ctime"])
    x = now_and_before("renamed", "over-dst", before_name="over-src", changed=["ctime"])
    check(x["sha256"] == x["sha256_before"] == sums["over-src"], f"over-dst: {x!r}")
    x = by[("deleted", "over-dst")]
    check(x["attrs"] is None and record_attrs(x["attrs_before"]) == before["over-dst"] and
          x["sha256_before"] == sums["over-dst"], f"the file renamed over: {x!r}")
    x = by[("changed", "link")]
    check(x["target"] == "new" and x["target_before"] == "content" and
          "target" in x["changed"], f"link: {x!r}")
    x = by[("changed", "dir")]
    check(x["attrs"]["type"] == "file" and x["attrs_before"]["type"] == "directory" and
          "type" in x["changed"], f"dir: {x!r}")
    x = by[("deleted", "gone")]
    check(x["attrs"] is None and record_attrs(x["attrs_before"]) == before["gone"] and
          x["sha256_before"] == sums["gone"], f"gone: {x!r}")
    x = by[("created", "new")]
    check(x["attrs_before"] is None and record_attrs(x["attrs"]) == stat_attrs(p("new")) and
          x["sha256"] == sha256sum(p("new"))[0], f"new: {x!r}")
    stop(d)

    # recorded: nothing at the next start
    t.note(restart_quiet(t, cfg, out, "records at a start after nothing changed"))


@test
def baseline_live(t):
    # What the daemon reported while it ran (files made, written, moved,
    # removed, a directory made with what is in it) is recorded: the next
    # start reports nothing; a change made after the stop is.
    w, state, top, r = baseline_setup(t)
    t.write_file(os.path.join(w, "keep"), "k\n")
    os.mkdir(os.path.join(w, "sub"))
    t.write_file(os.path.join(w, "sub", "x"), "x\n")
    outputs, out = t.json_setup()
    d, out, cfg = start(t, [r], outputs=outputs, reader=out, top=top)
    wait_compared(d)
    c = t.child()
    c.create(os.path.join(w, "a"), "a\n")
    c.do("rename", path=os.path.join(w, "a"), to=os.path.join(w, "sub", "a2"))
    c.do("unlink", path=os.path.join(w, "sub", "x"))
    c.do("mkdir", path=os.path.join(w, "d2"))
    c.create(os.path.join(w, "d2", "inside"), "in\n")
    c.do("chmod", path=os.path.join(w, "keep"), mode=0o600)
    t.marker(c, out, w, d)
    stop(d)
    t.write_file(os.path.join(w, "after"), "after the stop\n")
    d, recs, line = restart(t, cfg, out)
    got = sorted((x["change"], x.path.decode()) for x in recs)
    want = [("changed", w), ("created", os.path.join(w, "after"))]
    check(got == want, f"after a run that saw its changes: {got}, expected {want}; {line}")
    stop(d)


@test
def baseline_kill9(t):
    # A storm of changes, SIGKILL in the middle of it, more changes while the
    # daemon is dead: the next start reports what its baseline had not
    # recorded, each path once; the start after reports nothing (the
    # baseline is what is there).
    w, state, top, r = baseline_setup(t)
    for i in range(50):
        t.write_file(os.path.join(w, f"f{i:03d}"), "0\n")
    outputs, out = t.json_setup()
    d, out, cfg = start(t, [r], outputs=outputs, reader=out, top=top)
    wait_compared(d)
    c = t.child()
    for i in range(50):
        c.do("write", path=os.path.join(w, f"f{i:03d}"), data=f"{i}\n" * 3)
        if i % 10 == 0:
            c.create(os.path.join(w, f"n{i:03d}"), "n\n")
    d.kill()
    for i in range(0, 50, 5):
        os.unlink(os.path.join(w, f"f{i:03d}"))
    t.write_file(os.path.join(w, "after-kill"), "k\n")
    d, recs, line = restart(t, cfg, out)
    paths = [x.path for x in recs]
    check(len(paths) == len(set(paths)), f"a path reported twice: {sorted(paths)}")
    for i in range(0, 50, 5):
        p = os.path.join(w, f"f{i:03d}").encode()
        check(any(x.path == p and x["change"] == "deleted" for x in recs),
              f"the deletion of {p} after the kill is not reported; {line}")
    check(any(x.path == os.path.join(w, "after-kill").encode() and x["change"] == "created"
              for x in recs), f"the file made after the kill is not reported; {line}")
    stop(d)
    t.note(restart_quiet(t, cfg, out, "reported again at the start after"))


@test
def baseline_foreign_database(t):
    # A file in the state directory that is not a baseline database: the
    # daemon starts its rules all the same, says so, sets it aside as .bad
    # and makes the baseline anew (silently); the next start compares.
    w, state, top, r = baseline_setup(t)
    t.write_file(os.path.join(w, "a"), "a\n")
    t.write_file(os.path.join(state, "baseline.db"), "not a database, whatever it claims\n" * 20,
                 mode=0o600)
    outputs, out = t.json_setup()
    d, out, cfg = start(t, [r], outputs=outputs, reader=out, top=top)
    m = wait_compared(d)
    check(m.group(1) == "made", f"{m.group(0)}")
    check(re.search(r"baseline: .*set aside as baseline\.db\.bad and made anew", d.stderr()),
          f"no word of the file set aside:{tail(d.stderr())}")
    check(os.path.exists(os.path.join(state, "baseline.db.bad")), "no baseline.db.bad")
    c = t.child()
    c.create(os.path.join(w, "b"), "b\n")
    t.marker(c, out, w, d)
    stop(d)
    t.write_file(os.path.join(w, "a"), "A\n")
    d, recs, line = restart(t, cfg, out)
    got = sorted((x["change"], os.path.basename(x.path.decode())) for x in recs)
    check(got == [("changed", "a"), ("changed", "w")], f"{got}; {line}")
    stop(d)


def aide_conf(t, tree, rules="p+i+n+u+g+s+m+c+sha256+ftype+l"):
    """An AIDE configuration of the test's own (its database in the test
    directory, a JSON report on stdout) for tree, with those attributes."""
    return t.write_file("aide.conf", "\n".join([
        f"database_in=file:{t.dir}/aide.db",
        f"database_out=file:{t.dir}/aide.db.new",
        "gzip_dbout=no",
        "report_format=json",
        "report_url=stdout",
        f"Check = {rules}",
        f"{tree} Check",
    ]) + "\n")


@test
def baseline_aide(t):
    # Side by side with AIDE (Debian's aide) on the same tree, the same
    # attributes and sha256 only: both made while nothing runs (aide --init,
    # fsnotifyd --baseline-init), the same changes (those of
    # baseline-offline), then aide --check and fsnotifyd --baseline-check:
    # every path AIDE reports added, removed or changed, fsnotifyd reports
    # (a rename: its old path and its new one), and nothing AIDE does not;
    # fsnotifyd also says which are renames, which AIDE cannot. Exit
    # statuses: differences 1 (AIDE's non-zero), none 0 after an init.
    if not shutil.which("aide"):
        raise Skip("no aide (Debian package aide)")
    w, state, top, r = baseline_setup(t)
    p = lambda n: os.path.join(w, n)  # noqa: E731
    make_tree(t, w)
    outputs, _ = t.json_setup()
    cfg = t.write_file("fsnotifyd.conf", config_text([r], outputs, ["json"], top))
    conf = aide_conf(t, w)
    rc, _, se = run_cmd(["aide", "--init", f"--config={conf}"], timeout=120)
    check(rc == 0, f"aide --init: {se}")
    os.rename(os.path.join(t.dir, "aide.db.new"), os.path.join(t.dir, "aide.db"))
    rc, _, se = run_cmd([t.binary, "--config", cfg, "--baseline-init"], timeout=120)
    check(rc == 0, f"fsnotifyd --baseline-init: exit {rc}: {se}")

    change_tree(t, w)

    rc, so, se = run_cmd(["aide", "--check", f"--config={conf}"], timeout=120)
    check(rc != 0, f"aide --check found nothing (exit {rc}): {se}")
    rep = json.loads(so)
    aide = {("added", x) for x in rep.get("added", {})} | \
        {("removed", x) for x in rep.get("removed", {})} | \
        {("changed", x) for x in rep.get("changed", {})}
    rc, so, se = run_cmd([t.binary, "--config", cfg, "--baseline-check"], timeout=120)
    check(rc == 1, f"fsnotifyd --baseline-check: exit {rc}, expected 1: {se}")
    recs = [json.loads(line) for line in so.splitlines()]
    for x in recs:
        problems = validate_record(x)
        check(not problems, f"{x!r}: {problems}")
        check(x["kind"] == "baseline" and x["reason"] == "verify", f"{x!r}")
    ours = set()
    renames = []
    replaced = {x["path"] for x in recs if x["change"] == "deleted"} & \
        {x["path"] for x in recs if x["change"] == "renamed"}
    for x in recs:
        if x["change"] == "created":
            ours.add(("added", x["path"]))
        elif x["change"] == "deleted" and x["path"] not in replaced:
            ours.add(("removed", x["path"]))
        elif x["change"] == "changed":
            ours.add(("changed", x["path"]))
        elif x["change"] == "renamed":
            renames.append((x["old_path"], x["path"]))
            ours.add(("removed", x["old_path"]))
            # (a rename over a file AIDE had: that one changed)
            ours.add(("changed" if x["path"] in replaced else "added", x["path"]))
    check(aide == ours, f"AIDE only: {sorted(aide - ours)}; fsnotifyd only: "
          f"{sorted(ours - aide)}")
    check(sorted(renames) == sorted([(p("old-name"), p("new-name")),
                                     (p("over-src"), p("over-dst"))]),
          f"renames: {renames}")
    rc, so, se = run_cmd([t.binary, "--config", cfg, "--baseline-init"], timeout=120)
    check(rc == 0, f"fsnotifyd --baseline-init: exit {rc}: {se}")
    rc, so, se = run_cmd([t.binary, "--config", cfg, "--baseline-check"], timeout=120)
    check(rc == 0 and not so, f"after --baseline-init: exit {rc}, {so!r}: {se}")
    t.note(f"{len(aide)} changes AIDE reports, each reported by fsnotifyd; and which of them "
           f"are renames ({len(renames)}), which AIDE cannot say")


@test
def baseline_overflow(t):
    # After an overflow, a rule with baseline compares its inventory instead
    # of rescanning (no rescan records): the files made in the gap are
    # created, those deleted in it deleted, one by one (a rescan can only
    # say their directory changed); every new file is reported, as an event
    # or a baseline record or both (what the events before the loss named
    # is not recorded silently: a sync would record the gap's changes too),
    # each once among the baseline records.
    w, state, top, r = baseline_setup(t, mark="filesystem")
    old = [os.path.join(w, f"old{i:03d}") for i in range(200)]
    for p in old:
        t.write_file(p, "old\n")
    qmax = 100
    outputs, out = t.json_setup()
    d, out, cfg = start(t, [r], outputs=outputs, reader=out,
                        top=top + f"\nlimits = {{ kernel_queue = {qmax}; }};")
    wait_compared(d)
    c = t.child(comm="fsnd-ov")
    d.signal(signal.SIGSTOP)
    d.wait_stopped()
    c.do("many", path=os.path.join(w, "f"), count=qmax + 200, timeout=60)
    gone = old[::4]
    for p in gone:
        c.do("unlink", path=p)
    d.signal(signal.SIGCONT)
    out.wait(lambda x: x.kind == "overflow", "an overflow record", daemon=d)
    m = wait_until(lambda: logged(d, r"baseline of rule 'b' compared \(overflow\)[^\n]*"),
                   "the comparison after the overflow", alive=d)
    t.marker(c, out, w, d)
    recs = [x for x in out.records if x.kind == "baseline"]
    check(not [x for x in out.records if x.kind == "rescan"], "rescan records for a rule with "
          "baseline")
    check(all(x["reason"] == "overflow" for x in recs), f"reasons: {recs[:3]!r}")
    deleted = sorted(x.path.decode() for x in recs if x["change"] == "deleted")
    check(deleted == sorted(gone), f"deleted {len(deleted)}: {deleted[:5]}..., expected the "
          f"{len(gone)} unlinked in the gap")
    made = [os.path.join(w, n) for n in os.listdir(w) if n.startswith("f")]
    created = [x.path.decode() for x in recs if x["change"] == "created"]
    evs = [x.path.decode() for x in out.records
           if x.kind == "event" and x.path and "create" in x["events"] and
           os.path.basename(x.path.decode()).startswith("f")]
    check(len(created) == len(set(created)), f"a file reported twice: {sorted(created)[:5]}")
    check(sorted(set(created) | set(evs)) == sorted(made),
          f"{len(created)} created records and {len(evs)} events for {len(made)} files made")
    t.note(f"{m.group(0)}; {len(evs)} of the files made were events, {len(created)} baseline "
           "records")
