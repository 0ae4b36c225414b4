# SPDX-License-Identifier: GPL-2.0-or-later
"""
common.py — what the integration cases share: the list of cases (TESTS;
@test adds a function under its name with "-" for "_"; run.py runs them
in the order they were added: the order in which it imports the cases_*.py
files, and in each the order of the functions), starting a daemon on a
config of rules (start()), checks of a record's process and of what was
reported (check_process(), check_events_subset(), check_only()), a reload
that waits for RELOADING=1 and READY=1 (reload()) and --check-config on
bad configs (bad_config_problems()). The rest (configs, records, children,
waits) is harness.py's.
"""

import os
import re
import signal

from harness import WAIT, check, config_text, run_cmd, tail

TESTS = []
SRCDIR = None  # the source tree (run.py sets it)


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


def reload(d, t, cfg, text, timeout=WAIT):
    """Write the config, SIGHUP, wait for RELOADING=1 then READY=1."""
    t.write_file(cfg, text)
    i = d.notify.mark()
    d.signal(signal.SIGHUP)
    j = d.wait_notify("RELOADING", "1", start=i, timeout=timeout)
    d.wait_notify("READY", "1", start=j + 1, timeout=timeout)


# Bad configs (cases_config.py's BAD_CONFIGS, cases_perm.py's) are built on
# a valid head and rule, so that each has exactly one problem.
_GOOD_HEAD = """\
log_level = "info";
outputs = ["json"];
output = {
  json = { type = "json"; file = "/dev/null"; };
};
"""
_R = '{ name = "r"; paths = ["/tmp"]; mark = "auto"; events = ["create"]; }'


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
