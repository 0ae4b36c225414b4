# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_fleet.py — the journal route to a central place, with the real
programs: fsnotifyd's journal output -> systemd-journald (run by hand, its
sockets and files on tmpfs in this private mount namespace) ->
systemd-journal-upload -> systemd-journal-remote on 127.0.0.1, writing one
journal file; what arrives there is read with journalctl --file and
selected by MESSAGE_ID. Registered in common.TESTS.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

from harness import WAIT, Fail, Skip, check, free_port, rule, run_cmd, tail, wait_until
from common import start, test

# daemon/log.h
MID_START = "9a1e3c3f0b2d4b8c8f2e5a6d7c1b0a01"
MID_EVENT = "466805a6b38f40649f08fd745e1e6b81"

SYSTEMD_DIRS = ("/lib/systemd", "/usr/lib/systemd")


def systemd_program(name):
    for d in SYSTEMD_DIRS:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    raise Skip(f"{name} not found in {' or '.join(SYSTEMD_DIRS)} (Debian packages systemd, "
               "systemd-journal-remote)")


def field_bytes(v):
    """journalctl -o json: a string, or an array of bytes for a value that
    is not printable UTF-8."""
    return bytes(v) if isinstance(v, list) else v.encode()


def start_journald(t):
    """systemd-journald by hand: its sockets and its journal on tmpfs, so
    nothing of the machine's journal is touched; its configuration and
    upload's and remote's are the test's own (a tmpfs on /etc/systemd in
    this mount namespace: whatever the host's say, Storage=volatile,
    nothing forwarded or filtered, no rate limit). Its Popen."""
    journald = systemd_program("systemd-journald")
    if not os.path.exists("/etc/machine-id"):
        raise Skip("no /etc/machine-id: journald cannot name its journal")
    t.mount_at("/etc/systemd")
    with open("/etc/systemd/journald.conf", "w") as f:
        f.write("[Journal]\nStorage=volatile\nRateLimitBurst=0\nForwardToSyslog=no\n"
                "ForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\n"
                "MaxLevelStore=debug\nReadKMsg=no\nAudit=no\nRuntimeMaxUse=1G\n")
    for name in ("journal-upload.conf", "journal-remote.conf"):
        with open(os.path.join("/etc/systemd", name), "w") as f:
            f.write("")
    t.mount_at("/run/systemd/journal")
    t.mount_at("/run/log/journal")
    if os.path.isdir("/var/log/journal"):
        # (the host's persistent journal hidden too: imjournal and
        # journal-upload read from the start, and the host's entries are
        # not this test's; never made where it is missing, which would
        # turn the host's journald persistent)
        t.mount_at("/var/log/journal")
    jd = t.spawn([journald], "journald")
    wait_until(lambda: os.path.exists("/run/systemd/journal/socket") or jd.poll() is not None,
               "journald's socket")
    check(jd.poll() is None, f"systemd-journald exited:{tail(t.log_of('journald'))}")
    return jd


def spawn_listening(t, argv, name, port, what):
    """t.spawn(argv, name), then wait until it listens on 127.0.0.1:port
    (what: the program, for messages): its Popen."""
    p = t.spawn(argv, name)

    def listening():
        if p.poll() is not None:
            return True
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0
    wait_until(listening, f"{what} on 127.0.0.1:{port}")
    check(p.poll() is None, f"{what} exited:{tail(t.log_of(name))}")
    return p


def journal_route_programs():
    """systemd-journal-remote and systemd-journal-upload, or Skip."""
    if not shutil.which("journalctl"):
        raise Skip("journalctl not found (Debian package systemd)")
    return (systemd_program("systemd-journal-remote"),
            systemd_program("systemd-journal-upload"))


@test
def journal_to_remote(t):
    remote, upload = journal_route_programs()
    jd = start_journald(t)

    # journal-remote on 127.0.0.1, one output file; journal-upload sends
    # it the local journal (journald's) as it grows
    port = free_port()
    rfile = os.path.join(t.dir, "remote.journal")
    rm = spawn_listening(t, [remote, f"--listen-http=127.0.0.1:{port}", "--split-mode=none",
                             f"--output={rfile}"], "remote", port, "systemd-journal-remote")
    up = t.spawn([upload, f"--url=http://127.0.0.1:{port}",
                   f"--save-state={os.path.join(t.dir, 'upload.state')}"], "upload")

    # the daemon, with a journal output; a hostile name
    w = t.mkdir("w")
    outputs, out = t.json_setup()
    outputs["j"] = {"type": "journal"}
    d, _, cfg = start(t, [rule("r-fleet", [w], mark="auto", events=["create"],
                               outputs=["j"])], outputs=outputs, reader=out)
    c = t.child(comm="fsnd-fleet")
    name = b"a\nb\xff c"
    p = os.path.join(os.fsencode(w), name)
    c.create(p)

    def remote_entries(*match):
        r = subprocess.run(["journalctl", f"--file={rfile}", "-o", "json", "--no-pager",
                            *match], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return [json.loads(ln) for ln in r.stdout.split(b"\n") if ln.strip()]

    def arrived():
        for x in (rm, up, jd):
            if x.poll() is not None:
                return True
        return [e for e in remote_entries(f"MESSAGE_ID={MID_EVENT}", "FSN_RULE=r-fleet")
                if field_bytes(e.get("FSN_PATH", "")) == p]
    got = wait_until(arrived, "the event in the remote journal", alive=d, every=0.2)
    for x, n in ((jd, "journald"), (rm, "remote"), (up, "upload")):
        check(x.poll() is None, f"systemd-journal-{n} exited:{tail(t.log_of(n))}")
    check(len(got) == 1, f"{len(got)} remote entries for one event: {got!r}")
    e = got[0]
    want = {"MESSAGE_ID": MID_EVENT, "FSN_KIND": "event", "FSN_RULE": "r-fleet",
            "FSN_EVENTS": "create", "FSN_PID": str(c.pid), "FSN_COMM": c.comm,
            "FSN_UID": str(c.uid), "SYSLOG_IDENTIFIER": "fsnotifyd", "PRIORITY": "6"}
    bad = {k: (e.get(k), v) for k, v in want.items() if e.get(k) != v}
    check(not bad, f"remote entry fields (got, expected): {bad}; entry: {e!r}")

    # the daemon's own start message, selected remotely by its MESSAGE_ID
    starts = [x for x in remote_entries(f"MESSAGE_ID={MID_START}")
              if x.get("FSN_CONFIG") == cfg and x.get("_PID") == str(d.pid)]
    check(len(starts) == 1, f"{len(starts)} remote start entries of this daemon (FSN_CONFIG="
          f"{cfg}, _PID={d.pid})")


# ---------------------------------------------------------------------------
# The routes through an outage of the collector: every record arrives
# ---------------------------------------------------------------------------

# The size of the outage cases: records in all (a third before the outage,
# a third during it, a third after) and the seconds the collector is away.
# CI runs them small; doc/fleet.md's figures are of FSN_FLEET_RECORDS=100000
# FSN_FLEET_OUTAGE=60.
FLEET_RECORDS = int(os.environ.get("FSN_FLEET_RECORDS", "15000"))
FLEET_OUTAGE = float(os.environ.get("FSN_FLEET_OUTAGE", "4"))
BATCH = 1000
# a case's time limit and the bound of a wait for n records through a
# route: generous (at least 500 records a second; a busy machine stretches
# both, harness.Budget)
FLEET_TIMEOUT = int(60 + FLEET_OUTAGE + FLEET_RECORDS / 250)


def route_wait(n):
    return WAIT * 4 + n / 500


def stop(p, what):
    """SIGTERM, then wait for the exit (as long as the machine's attention
    allows, Budget); SIGKILL if it does not come."""
    p.terminate()
    try:
        wait_until(lambda: p.poll() is not None, f"{what} to exit", timeout=WAIT * 2, every=0.05)
    except Fail:
        p.kill()
        p.wait()


# fsn-gaps over every record that came: a process and a parse each time,
# so polled at most twice a second (the CPU is the route's)
GAPS_EVERY = 0.5


def fsn_gaps(t, *args):
    """tools/fsn-gaps --json ARGS: its report."""
    import common
    r = subprocess.run([sys.executable, os.path.join(common.SRCDIR, "tools", "fsn-gaps"),
                        "--json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(r.returncode in (0, 1), f"fsn-gaps: {r.stderr.decode(errors='replace')}")
    return json.loads(r.stdout)


def fleet_daemon(t, w):
    """fsnotifyd with a journal output "j" and the usual json output, a
    rule of creates in w to both: (daemon, json reader)."""
    outputs, out = t.json_setup()
    outputs["j"] = {"type": "journal"}
    d, _, _ = start(t, [rule("fleet", [w], mark="inode", events=["create"],
                             outputs=["j", "json"])], outputs=outputs, reader=out)
    return d, out


def generate(t, c, out, d, w, n, start_at):
    """n files created in w, BATCH at a time, each batch's records read
    back from the json output before the next (the pace is the daemon's:
    progress, not time)."""
    done = 0
    while done < n:
        k = min(BATCH, n - done)
        c.do("many", path=os.path.join(w, f"f{start_at + done:07d}-"), count=k)
        done += k
        want = start_at + done
        wait_until(lambda: out.poll() or sum(1 for r in out.records if r.kind == "event")
                   >= want, f"{want} event records in the json output", alive=d)


def outage(t, what, stop_collector, start_collector, arrived, w):
    """The daemon makes FLEET_RECORDS records, a third of them while the
    collector is away (stop_collector() .. FLEET_OUTAGE seconds ..
    start_collector()); every record reached the daemon's own json output
    meanwhile (it never waits for the route); then every one arrives
    (arrived(): the lines that came, as files for fsn-gaps), none missing.
    Returns fsn-gaps' report."""
    d, out = fleet_daemon(t, w)
    c = t.child(comm="fsnd-fleet")
    third = FLEET_RECORDS // 3
    t0 = time.monotonic()
    generate(t, c, out, d, w, third, 0)
    wait_until(lambda: fsn_gaps(t, "--expect", str(third), *arrived())["ok"],
               f"the first {third} records through {what}", timeout=route_wait(third), alive=d,
               every=GAPS_EVERY)
    steady = (third, time.monotonic() - t0)
    stop_collector()
    t0 = time.monotonic()
    generate(t, c, out, d, w, third, third)
    left = FLEET_OUTAGE - (time.monotonic() - t0)
    if left > 0:
        time.sleep(left)  # (the outage's length: not a synchronisation)
    start_collector()
    t1 = time.monotonic()
    before = fsn_gaps(t, *arrived())["total"]["records"]
    generate(t, c, out, d, w, FLEET_RECORDS - 2 * third, 2 * third)
    n = sum(1 for r in out.records if r.kind == "event")

    def complete():
        rep = fsn_gaps(t, "--expect", str(n), *arrived())
        return rep if rep["ok"] else None
    rep = wait_until(complete, f"all {n} records through {what}", timeout=route_wait(n),
                     alive=d, every=GAPS_EVERY)
    check(len(rep["streams"]) == 1 and rep["total"]["missing"] == 0,
          f"{what}: fsn-gaps: {rep!r}")
    # (what came after the collector was back, the backlog first: the
    # route's rate, for doc/fleet.md)
    rep["after"] = (n - before, time.monotonic() - t1)
    rep["steady"] = steady
    rep["late"] = journal_lateness(out, third)
    # A daemon that waited for the route would be late by about the
    # outage; a busy machine makes it a little late anyway (the figures
    # go to the report, doc/fleet.md), so the bound is half the outage.
    calm, away = rep["late"]
    check(away <= max(2 * calm + 0.05, FLEET_OUTAGE / 2),
          f"{what}: the journal output was late while the collector was away: p99 "
          f"{away * 1e3:.1f} ms, {calm * 1e3:.1f} ms before")
    return rep


def journal_lateness(out, third):
    """How late the daemon's journal entries were, before the outage and
    during it: the p99 of (journald's receive time - the json record's
    time) of the same file, over the first third of the files and the
    second (made while the collector was away)."""
    made = {}
    for r in out.records:
        if r.kind == "event":
            made[r.path] = record_seconds(r["time"])
    p = subprocess.run(["journalctl", "-o", "json", "--no-pager", "FSN_RULE=fleet",
                        "--output-fields=FSN_PATH,__REALTIME_TIMESTAMP"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lag = ([], [])
    for line in p.stdout.splitlines():
        e = json.loads(line)
        path = field_bytes(e.get("FSN_PATH", ""))
        name = os.path.basename(path)
        if path not in made or not name.startswith(b"f"):
            continue
        i = int(name[1:8])
        if i < 2 * third:
            lag[i // third].append(int(e["__REALTIME_TIMESTAMP"]) / 1e6 - made[path])
    check(all(lag), f"journal entries of both thirds: {[len(x) for x in lag]}")
    return tuple(sorted(x)[int(len(x) * 0.99)] for x in lag)


def record_seconds(stamp):
    """A record's time ("2026-12-07T06:13:00.186318Z") as seconds."""
    import datetime
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def note_outage(t, rep, more=""):
    n, sec = rep["after"]
    calm, away = rep["late"]
    t.note(f"{rep['steady'][0]} records made and delivered in {rep['steady'][1]:.1f} s "
           f"({rep['steady'][0] / rep['steady'][1]:.0f}/s); "
           f"{rep['total']['records']} records through an outage of {FLEET_OUTAGE:g} s, "
           f"0 missing, {rep['total']['duplicates']} duplicates{more}; after it {n} in "
           f"{sec:.1f} s ({n / sec:.0f}/s); journal entries' p99 lateness {calm * 1e3:.1f} ms "
           f"before, {away * 1e3:.1f} ms during the outage")


def central_dir(t):
    """Where the collector writes: a tmpfs of its own (the suite's work
    tmpfs is small, and a large run's arrivals are 100 MB)."""
    return t.mount_fs("central", "tmpfs", "tmpfs", 0, "size=2g,mode=0755")


def rsyslog_modules():
    """rsyslogd and its RELP modules, or Skip."""
    rsyslogd = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
    if not os.access(rsyslogd, os.X_OK):
        raise Skip("rsyslogd not found (Debian packages rsyslog, rsyslog-relp)")
    mods = [os.path.join(d, m) for d in ("/usr/lib/x86_64-linux-gnu/rsyslog",
                                          "/usr/lib/aarch64-linux-gnu/rsyslog",
                                          "/usr/lib/rsyslog")
            for m in ("omrelp.so", "imrelp.so")]
    if not any(os.path.exists(m) for m in mods):
        raise Skip("rsyslog's RELP modules not found (Debian package rsyslog-relp)")
    return rsyslogd


def rsyslog_conf(t, name, example, subs):
    """conf/fleet/EXAMPLE with subs (old text: new text, each must be
    there) and a work directory of its own before it: its path, checked
    with rsyslogd -N1."""
    import common
    with open(os.path.join(common.SRCDIR, "conf", "fleet", example)) as f:
        text = f.read()
    for old, new in subs.items():
        check(old in text, f"conf/fleet/{example} has no {old!r}")
        text = text.replace(old, new)
    work = t.mkdir(f"{name}.d", mode=0o700)
    return t.write_file(f"{name}.conf", f'global(workDirectory="{work}")\n' + text)


@test
def fleet_rsyslog_relp(t):
    # The rsyslog route with the shipped configurations (conf/fleet): the
    # daemon's journal output -> journald (by hand) -> rsyslog's imjournal
    # -> RELP -> a collector rsyslog (imrelp) on 127.0.0.1 writing the
    # host's file. The collector is stopped a while in the middle: every
    # record still arrives (the node's queue holds them), in order within
    # its stream, none missing (tools/fsn-gaps); duplicates are counted.
    rsyslogd = rsyslog_modules()
    start_journald(t)
    port = free_port()
    spool = central_dir(t)
    ccfg = rsyslog_conf(t, "collector", "rsyslog-collector.conf",
                        {'port="2514"': f'port="{port}" address="127.0.0.1"',
                         "/var/log/fsnotifyd-fleet/": spool + "/"})
    ncfg = rsyslog_conf(t, "node", "rsyslog-node.conf",
                        {'target="collector.example.com" port="2514"':
                         f'target="127.0.0.1" port="{port}"'})
    for cfg in (ccfg, ncfg):
        r = run_cmd([rsyslogd, "-N1", "-f", cfg])
        check(r[0] == 0, f"rsyslogd -N1 -f {cfg}: {r[2] or r[1]}")
    runs = {"n": 0}

    def start_collector():
        runs["n"] += 1
        runs["p"] = spawn_listening(t, [rsyslogd, "-n", "-iNONE", "-f", ccfg],
                                    f"collector{runs['n']}", port, "the collector rsyslogd")

    def stop_collector():
        stop(runs["p"], "the collector rsyslogd")

    start_collector()
    node = t.spawn([rsyslogd, "-n", "-iNONE", "-f", ncfg], "node")
    rep = outage(t, "rsyslog and RELP", stop_collector, start_collector,
                 lambda: [os.path.join(spool, f) for f in os.listdir(spool)], t.mkdir("w"))
    check(node.poll() is None, f"the node rsyslogd exited:{tail(t.log_of('node'))}")
    hosts = os.listdir(spool)
    check(hosts == [socket.gethostname() + ".jsonl"], f"the collector's files: {hosts}")
    note_outage(t, rep)


@test
def fleet_journal_upload(t):
    # The journal route through an outage: systemd-journal-remote stopped a
    # while in the middle; systemd-journal-upload, restarted as its unit
    # would be (Restart=on-failure) when it gave up, resumes from its saved
    # cursor: every record arrives, none missing (tools/fsn-gaps on
    # journalctl -o json of the remote journal).
    remote, upload = journal_route_programs()
    start_journald(t)
    port = free_port()
    rdir = central_dir(t)
    state = os.path.join(t.dir, "upload.state")
    procs = {"n": 0}

    def start_remote():
        procs["n"] += 1
        name = f"remote{procs['n']}"
        # (one file per run: a journal file is not appended to by a second
        # writer)
        procs["remote"] = spawn_listening(
            t, [remote, f"--listen-http=127.0.0.1:{port}", "--split-mode=none",
                f"--output={os.path.join(rdir, name + '.journal')}"], name, port,
            "systemd-journal-remote")
        uploader()

    def uploader():
        up = procs.get("upload")
        if up is None or up.poll() is not None:
            procs["uploads"] = procs.get("uploads", 0) + 1
            procs["upload"] = t.spawn([upload, f"--url=http://127.0.0.1:{port}",
                                       f"--save-state={state}"],
                                      f"upload{procs['uploads']}")

    def stop_remote():
        stop(procs["remote"], "systemd-journal-remote")

    def arrived():
        uploader()  # (systemd's Restart=on-failure)
        out = os.path.join(rdir, "arrived.jsonl")
        with open(out, "wb") as f:
            for j in sorted(os.listdir(rdir)):
                if j.endswith(".journal"):
                    subprocess.run(["journalctl", f"--file={os.path.join(rdir, j)}", "-o",
                                    "json", "--no-pager", "FSN_RULE=fleet"], stdout=f,
                                   stderr=subprocess.DEVNULL)
        return [out]

    start_remote()
    rep = outage(t, "journal-upload and journal-remote", stop_remote, start_remote, arrived,
                 t.mkdir("w"))
    note_outage(t, rep, f", journal-upload started {procs['uploads']} times")


fleet_rsyslog_relp.timeout = FLEET_TIMEOUT
fleet_journal_upload.timeout = FLEET_TIMEOUT
