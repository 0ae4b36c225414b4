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

from harness import Skip, check, free_port, rule, tail, wait_until
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


@test
def journal_to_remote(t):
    journald = systemd_program("systemd-journald")
    remote = systemd_program("systemd-journal-remote")
    upload = systemd_program("systemd-journal-upload")
    if not shutil.which("journalctl"):
        raise Skip("journalctl not found (Debian package systemd)")
    if not os.path.exists("/etc/machine-id"):
        raise Skip("no /etc/machine-id: journald cannot name its journal")

    # journald by hand: its sockets and its journal on tmpfs, so nothing of
    # the machine's journal is touched; its configuration and upload's and
    # remote's are the test's own (a tmpfs on /etc/systemd in this mount
    # namespace: whatever the host's say, Storage=volatile, nothing
    # forwarded or filtered)
    t.mount_at("/etc/systemd")
    with open("/etc/systemd/journald.conf", "w") as f:
        f.write("[Journal]\nStorage=volatile\nRateLimitBurst=0\nForwardToSyslog=no\n"
                "ForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\n"
                "MaxLevelStore=debug\nReadKMsg=no\nAudit=no\n")
    for name in ("journal-upload.conf", "journal-remote.conf"):
        with open(os.path.join("/etc/systemd", name), "w") as f:
            f.write("")
    t.mount_at("/run/systemd/journal")
    t.mount_at("/run/log/journal")
    jd = t.spawn([journald], "journald")
    wait_until(lambda: os.path.exists("/run/systemd/journal/socket") or jd.poll() is not None,
               "journald's socket")
    check(jd.poll() is None, f"systemd-journald exited:{tail(t.log_of('journald'))}")

    # journal-remote on 127.0.0.1, one output file; journal-upload sends
    # it the local journal (journald's) as it grows
    port = free_port()
    rfile = os.path.join(t.dir, "remote.journal")
    rm = t.spawn([remote, f"--listen-http=127.0.0.1:{port}", "--split-mode=none",
                   f"--output={rfile}"], "remote")

    def listening():
        if rm.poll() is not None:
            return True
        with socket.socket() as c:
            return c.connect_ex(("127.0.0.1", port)) == 0
    wait_until(listening, f"systemd-journal-remote on 127.0.0.1:{port}")
    check(rm.poll() is None, f"systemd-journal-remote exited:{tail(t.log_of('remote'))}")
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
    got = wait_until(arrived, "the event in the remote journal", alive=d)
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
