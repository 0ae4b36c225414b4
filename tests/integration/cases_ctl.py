# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_ctl.py — the integration cases of fsnotifyctl(1) against the real
daemon's control socket (issue 18): status and rules (the table fits 80
columns), --json status and rules parse and agree with the daemon,
watch --json gets every record of its filter while a writer runs (the
json output's very lines), watch prints the console's lines, reload with
a good and a bad config (exit 1, file:line on stderr, the old config still
running), explain and metrics (skipped while the daemon answers
MethodNotFound), an unknown rule (skipped while the daemon does not answer
NoSuchRule), a refusal (every slot taken: exit 2, the reason, never
"Broken pipe"), and no socket (exit 2, the path in the message).
Registered in common.TESTS.

The cases that need the daemon's control socket are skipped ("control
socket not built") while fsnotifyd does not know the config section
`control` (its --check-config refuses a config with one); the usage and
connection cases run always.

The client is FSNOTIFYCTL (tests/integration/meson.build sets it), else
ctl/fsnotifyctl next to daemon/ in the build directory.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time

from harness import (RAW_STEERING, Fail, Skip, WAIT, check, config_text, ev, lc, proc_wait, rule,
                     run_cmd, tail, validate_record, wait_until)
from common import start, test

_SUPPORTED = {}


def ctl_binary(t):
    p = os.environ.get("FSNOTIFYCTL") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(t.binary))), "ctl", "fsnotifyctl")
    if not os.access(p, os.X_OK):
        raise Skip(f"fsnotifyctl not built ({p})")
    return p


def control_top(sock):
    return f'control = {{ socket = "{sock}"; }};'


def need_control(t):
    """Skip unless this fsnotifyd knows the config section control."""
    if t.binary not in _SUPPORTED:
        sock = os.path.join(t.dir, "probe.sock")
        cfg = t.write_file("probe.conf", config_text(
            [rule("probe", [t.fs], events=["create"])],
            {"json": {"type": "json", "file": "/dev/null"}}, ["json"], control_top(sock)))
        rc, _, _ = run_cmd([t.binary, "--check-config", cfg])
        _SUPPORTED[t.binary] = rc == 0
    if not _SUPPORTED[t.binary]:
        raise Skip("control socket not built")


def ctl(t, sock, *args, env=None, timeout=20):
    """fsnotifyctl --socket sock args...: (rc, stdout, stderr)."""
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    if env:
        e.update(env)
    return run_cmd([ctl_binary(t), "--socket", sock, *args], timeout=timeout, env=e)


def start_ctl(t, rules, **kw):
    """A daemon on rules with a control socket: (daemon, reader, config, socket)."""
    need_control(t)
    sock = os.path.join(t.dir, "control.sock")
    d, out, cfg = start(t, rules, top=control_top(sock), **kw)
    wait_until(lambda: os.path.exists(sock), f"the control socket {sock}", alive=d)
    return d, out, cfg, sock


def ctl_json(t, sock, *args):
    rc, so, se = ctl(t, sock, "--json", *args)
    check(rc == 0, f"fsnotifyctl --json {' '.join(args)}: exit {rc}:{tail(se)}")
    try:
        return json.loads(so)
    except ValueError as e:
        raise Fail(f"fsnotifyctl --json {' '.join(args)}: not JSON ({e}):"
                             f"{tail(so)}") from None


LONG = "a-rule-whose-name-is-longer-than-any-terminal-line-" + "x" * 60


@test
def ctl_status_rules(t):
    w, v = t.mkdir("w"), t.mkdir("v")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create"]),
                                      rule(LONG, [v], events=["create"])])
    rc, so, se = ctl(t, sock, "status")
    check(rc == 0, f"status: exit {rc}:{tail(se)}")
    for want in ("fsnotifyd ", cfg, "r-w", "RULE", "MARKS"):
        check(want in so, f"status does not show {want!r}:{tail(so, 30)}")
    check(str(d.pid) in so, f"status does not show the pid {d.pid}:{tail(so, 30)}")
    # not a terminal: whole names
    rc, so, se = ctl(t, sock, "rules")
    check(rc == 0, f"rules: exit {rc}:{tail(se)}")
    lines = so.rstrip("\n").split("\n")
    check(len(lines) == 3, f"rules: {len(lines)} lines, expected a header and 2:{tail(so)}")
    check(any(ln.startswith("r-w ") for ln in lines), f"rules: no line for r-w:{tail(so)}")
    check(any(ln.startswith(LONG + " ") for ln in lines),
          f"rules (not a terminal): the long name is not whole:{tail(so)}")
    # at 80 columns: every line fits
    rc, so, se = ctl(t, sock, "rules", env={"COLUMNS": "80"})
    check(rc == 0, f"rules (COLUMNS=80): exit {rc}:{tail(se)}")
    wide = [ln for ln in so.rstrip("\n").split("\n") if len(ln) > 80]
    check(not wide, f"rules (COLUMNS=80): {len(wide)} lines wider than 80:{tail(so)}")
    check("..." in so, f"rules (COLUMNS=80): the long name is not cut:{tail(so)}")


@test
def ctl_json_status(t):
    w = t.mkdir("w")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create"])])
    c = t.child(comm="fsnd-ctl")
    c.create(os.path.join(w, "one"))
    out.wait(ev(os.path.join(w, "one"), "create", "r-w"), "the create", daemon=d)
    s = ctl_json(t, sock, "status")
    check(s.get("pid") == d.pid, f"--json status: pid {s.get('pid')}, expected {d.pid}")
    check(s.get("config_file") == cfg, f"--json status: config_file {s.get('config_file')!r}")
    for k in ("version", "uptime_usec", "config_loaded", "marks", "groups", "read_buffer",
              "features", "rules", "subscribers"):
        check(k in s, f"--json status: no {k!r} in {sorted(s)}")
    names = [r.get("name") for r in s.get("rules", [])]
    check(names == ["r-w"], f"--json status: rules {names}, expected ['r-w']")
    r = s["rules"][0]
    check(r["counters"]["events"] >= 1, f"--json status: r-w counted no event: {r['counters']}")
    check(any(m.get("placed") for m in r.get("marks", [])), f"--json status: no mark of r-w "
          f"placed: {r.get('marks')}")
    lr = ctl_json(t, sock, "rules")
    check([x.get("name") for x in lr.get("rules", [])] == ["r-w"],
          f"--json rules: {lr}")


@test
def ctl_metrics(t):
    w = t.mkdir("w")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create"])])
    c = t.child()
    for name in ("a", "b"):
        c.create(os.path.join(w, name))
        out.wait(ev(os.path.join(w, name), "create"), f"the event of {name}", daemon=d)
    rc, so, se = ctl(t, sock, "--json", "metrics")
    check(rc == 0, f"--json metrics: exit {rc}:{tail(se)}")
    m = json.loads(so)
    check("fsnotifyd_" in m.get("text", ""), f"--json metrics: no fsnotifyd_ series: {m}")
    check('fsnotifyd_rule_events_total{rule="r-w"} 2\n' in m["text"],
          f"GetMetrics: not 2 events for r-w:{tail(m['text'], 40)}")
    rc, so, se = ctl(t, sock, "metrics")
    check(rc == 0 and 'fsnotifyd_rule_events_total{rule="r-w"} 2\n' in so,
          f"metrics: exit {rc}, or not the same series:{tail(so)}")
    promtool = shutil.which("promtool")
    if promtool:
        prc, pso, pse = run_cmd([promtool, "check", "metrics"], input=so, timeout=30)
        check(prc == 0, f"promtool check metrics:{tail(pso + pse)}")
    elif os.environ.get("FSN_TESTS_MUST_RUN") == "1":
        raise Fail("promtool is not installed (tools/install-deps --tests)")


def watch(t, sock, *args):
    """fsnotifyctl watch args in the background, its stdout to a file:
    (process, path of the file)."""
    path = os.path.join(t.dir, f"watch-{len(t.cleanups)}.out")
    e = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    with open(path, "wb") as f, open(path + ".err", "wb") as err:
        p = subprocess.Popen([ctl_binary(t), "--socket", sock, "watch", *args],
                             stdin=subprocess.DEVNULL, stdout=f, stderr=err, env=e)

    def stop():
        if p.poll() is None:
            p.kill()
            p.wait()
    t.cleanups.append(stop)
    return p, path


def read_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.split(b"\n")[:-1] if data else []


def wait_subscribed(t, sock, d, n=1):
    wait_until(lambda: ctl_json(t, sock, "status").get("subscribers", 0) >= n,
               f"{n} Watch subscriber(s) in GetStatus", alive=d)


def stop_watch(p, path, what):
    p.send_signal(signal.SIGINT)
    try:
        rc = proc_wait(p, WAIT)
    except subprocess.TimeoutExpired:
        raise Fail(f"{what}: fsnotifyctl watch did not end on SIGINT") from None
    with open(path + ".err", "rb") as f:
        err = f.read().decode("utf-8", "replace")
    check(rc == 0, f"{what}: exit {rc} after SIGINT, expected 0:{tail(err)}")


@test
def ctl_watch_json(t):
    w, o = t.mkdir("w"), t.mkdir("o")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create", "delete"]),
                                      rule("r-o", [o], events=["create"])])
    p, path = watch(t, sock, "--json", "--rule", "r-w", "--events", "create")
    wait_subscribed(t, sock, d)
    c = t.child(comm="fsnd-writer")
    n = 300
    c.do("many", path=os.path.join(w, "f"), count=n)
    c.do("many", path=os.path.join(o, "g"), count=20)
    c.do("unlink", path=os.path.join(w, "f000000"))
    last = os.path.join(w, "f%06d" % (n - 1))
    out.wait(ev(last, "create", "r-w"), "the writer's last create (json output)", daemon=d)
    out.wait(ev(os.path.join(w, "f000000"), "delete", "r-w"), "the delete", daemon=d)
    # the json output's lines, but for their stream and seq (a subscriber's
    # records are filtered: they have none)
    want = [re.sub(rb',"stream":"[0-9a-f]{32}","seq":[0-9]+\}$', b"}", r.raw)
            for r in out.records
            if r.kind == "event" and r.rule == "r-w" and "create" in r.events]
    check(len(want) == n, f"the json output has {len(want)} creates of r-w, expected {n}")
    got = wait_until(lambda: (lambda ls: ls if len(ls) >= n else None)(read_lines(path)),
                     f"{n} lines from fsnotifyctl watch --json", alive=d)
    time.sleep(0.2)  # (anything more that would come: nothing should)
    got = read_lines(path)
    stop_watch(p, path, "watch --json")
    bad = [ln for ln in got if ln not in set(want)]
    check(not bad, f"watch --json: {len(bad)} lines that are not the json output's create "
          f"lines of r-w (first: {bad[:1]!r})")
    diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                min(len(got), len(want)))
    check(got == want, f"watch --json: {len(got)} lines, not the json output's {len(want)} "
          f"lines in order (first difference at line {diff})")


@test
def ctl_watch_text(t):
    # without --json: the lines --foreground prints, escapes and all
    w = t.mkdir("w")
    d, out, cfg, sock = start_ctl(t, [rule("r-fg", [w], events=["create"])],
                                  args=["--foreground"])
    p, path = watch(t, sock, "--path", os.path.join(w, "*"))
    wait_subscribed(t, sock, d)
    c = t.child(comm="fsnd-ctl\x1b")
    names = [b"plain", b"fg\nname\x1b[2J\ttab", b"bad\xff\xfeutf8", b"rtl\xe2\x80\xaeevil"] + STEERING
    for nm in names:
        c.create(os.fsencode(w) + b"/" + nm)
    for nm in names:
        out.wait(ev(os.fsencode(w) + b"/" + nm, "create"), "the JSON record", daemon=d)

    def console():
        with open(d.stdout_path, "rb") as f:
            ls = [ln for ln in f.read().split(b"\n") if b" r-fg " in ln]
        return ls if len(ls) >= len(names) else None
    want = wait_until(console, "the records on the daemon's stdout (--foreground)", alive=d)
    got = wait_until(lambda: (lambda ls: ls if len(ls) >= len(names) else None)(
        read_lines(path)), "the records from fsnotifyctl watch", alive=d)
    stop_watch(p, path, "watch")
    check(got == want, f"watch does not print the console's lines:\n  watch:   {got!r}\n"
          f"  console: {want!r}")
    check(not any(RAW_STEERING.search(ln.decode("utf-8", "replace")) for ln in got),
          f"raw control characters in the watch lines: {got!r}")


# File names with what can steer a terminal or a parser (issue 28, finding
# 9): C1 controls (NEL, CSI), U+2028 and U+2029, bidirectional controls.
STEERING = [b"c1\xc2\x85nel\xc2\x9b[31mcsi", b"sep\xe2\x80\xa8line\xe2\x80\xa9para",
            b"evil\xe2\x80\xaetxt.exe", b"iso\xe2\x81\xa6late\xe2\x81\xa9",
            b"alm\xd8\x9c-lrm\xe2\x80\x8e-rlm\xe2\x80\x8f-lre\xe2\x80\xaa-pdf\xe2\x80\xac"]


@test
def ctl_watch_json_controls(t):
    # watch --json: the json output's lines, with every such character as
    # \uXXXX (no raw one reaches the terminal), decoding to the exact name
    w = t.mkdir("w")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create"])])
    p, path = watch(t, sock, "--json", "--path", os.path.join(w, "*"))
    wait_subscribed(t, sock, d)
    c = t.child()
    want = [os.fsencode(w) + b"/" + nm for nm in STEERING]
    for nm in want:
        c.create(nm)
    for nm in want:
        out.wait(ev(nm, "create"), "the JSON record", daemon=d)
    got = wait_until(lambda: (lambda ls: ls if len(ls) >= len(want) else None)(
        read_lines(path)), "the records from fsnotifyctl watch --json", alive=d)
    stop_watch(p, path, "watch --json")
    raw = [ln for ln in got if RAW_STEERING.search(ln.decode("utf-8", "replace"))]
    check(not raw, f"watch --json printed {len(raw)} lines with a raw C1 control, line "
          f"separator or bidirectional control: {raw[:1]!r}")
    recs = [json.loads(ln) for ln in got]
    for r in recs:
        bad = validate_record(r)
        check(not bad, f"watch --json: a record breaks the contract: {bad}: {r!r}")
    check([r["path"].encode("utf-8") for r in recs] == want and
          not any("path_b64" in r for r in recs),
          f"watch --json: the paths do not decode to the names: {got!r}")
    check(rb"\u2028" in got[1] and rb"\u202e" in got[2] and rb"\u0085" in got[0],
          f"watch --json: not escaped as \\uXXXX: {got[:3]!r}")


@test
def ctl_reload(t):
    w, v = t.mkdir("w"), t.mkdir("v")
    outputs, out = t.json_setup()
    need_control(t)
    sock = os.path.join(t.dir, "control.sock")
    one = [rule("r-w", [w], mark="auto", events=["create"])]
    good = config_text(one, outputs, ["json"], control_top(sock))
    cfg = t.write_file("fsnotifyd.conf", good)
    d = t.daemon(cfg)
    d.wait_ready()
    wait_until(lambda: os.path.exists(sock), "the control socket", alive=d)
    # a good one: a second rule
    t.write_file(cfg, config_text(one + [rule("r-v", [v], mark="auto", events=["create"])],
                                  outputs, ["json"], control_top(sock)))
    rc, so, se = ctl(t, sock, "reload")
    check(rc == 0, f"reload: exit {rc}:{tail(se)}")
    check(re.fullmatch(r"reloaded: 2 rules, \d+ marks\n", so), f"reload printed {so!r}")
    c = t.child(comm="fsnd-ctl")
    c.create(os.path.join(v, "new"))
    out.wait(ev(os.path.join(v, "new"), "create", "r-v"), "an event of the reloaded rule",
             daemon=d)
    # a bad one: refused, the errors named, the old config still running
    text = good.replace('mark = "auto"', 'mark = "sideways"')
    line = next(n + 1 for n, ln in enumerate(text.split("\n")) if "sideways" in ln)
    t.write_file(cfg, text)
    rc, so, se = ctl(t, sock, "reload")
    check(rc == 1, f"reload of a bad config: exit {rc}, expected 1:{tail(so + se)}")
    check(f"{cfg}:{line}:" in se, f"reload of a bad config: stderr does not name "
          f"{cfg}:{line}:{tail(se)}")
    c.create(os.path.join(v, "after-bad"))
    out.wait(ev(os.path.join(v, "after-bad"), "create", "r-v"), "an event after the bad "
             "reload: the old config must keep running", daemon=d)
    s = ctl_json(t, sock, "status")
    check([r["name"] for r in s["rules"]] == ["r-w", "r-v"], f"after the bad reload: rules "
          f"{[r['name'] for r in s['rules']]}")
    check(s.get("last_reload_error"), "after the bad reload: no last_reload_error in status")


@test
def ctl_explain(t):
    w = t.mkdir("w")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create"])])
    rc, so, se = ctl(t, sock, "explain", os.path.join(w, "file"))
    check(rc == 0, f"explain: exit {rc}:{tail(se)}")
    check("r-w" in so and "cost" in so, f"explain does not name r-w and its cost:{tail(so)}")


@test
def ctl_unknown_rule(t):
    w = t.mkdir("w")
    d, out, cfg, sock = start_ctl(t, [rule("r-w", [w], events=["create"])])
    rc, so, se = ctl(t, sock, "watch", "--rule", "no-such-rule", timeout=WAIT)
    check(rc == 1, f"watch --rule no-such-rule: exit {rc}, expected 1:{tail(se)}")
    check("no-such-rule" in se, f"watch --rule no-such-rule: the rule is not named:{tail(se)}")


@test
def ctl_refused(t):
    # Every slot taken (control.max_clients = 2, held by root's idle
    # connections): fsnotifyctl says the daemon refused it and why, exit 2,
    # whether the refusal came before its call was written (the old client
    # printed "Broken pipe" then) or after (a generic failure).
    need_control(t)
    w = t.mkdir("w")
    sock = os.path.join(t.dir, "control.sock")
    d, out, cfg = start(t, [rule("r-w", [w], events=["create"])],
                        top=f'control = {{ socket = "{sock}"; max_clients = 2; }};')
    held = []
    for _ in range(2):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(WAIT)
        s.connect(sock)
        s.sendall(b'{"method":"org.varlink.service.GetInfo"}\0')
        check(s.recv(65536).endswith(b"\0"), "a held connection got no answer")
        held.append(s)
    for args in (["status"], ["watch"]) * 5:
        rc, so, se = ctl(t, sock, *args, timeout=WAIT)
        check(rc == 2 and "refused this client" in se and "control.max_clients" in se
              and "Broken pipe" not in se,
              f"fsnotifyctl {args[0]} with every slot taken: exit {rc}, expected 2 and the "
              f"refusal:{tail(se)}")
    for s in held:
        s.close()


@test
def ctl_no_connection(t):
    # no daemon needed: a missing socket, a socket nobody listens on, usage
    missing = os.path.join(t.dir, "no", "such", "control")
    rc, so, se = ctl(t, missing, "status")
    check(rc == 2, f"a missing socket: exit {rc}, expected 2:{tail(se)}")
    check(missing in se and "No such file" in se,
          f"a missing socket: the message does not name {missing} and the cause:{tail(se)}")
    dead = os.path.join(t.dir, "dead.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(dead)
    s.close()  # bound, never listening: ECONNREFUSED
    rc, so, se = ctl(t, dead, "rules")
    check(rc == 2 and dead in se, f"a dead socket: exit {rc}, expected 2 naming it:{tail(se)}")
    for args in ([], ["frobnicate"], ["status", "extra"], ["explain"], ["rules", "--rule", "x"]):
        rc, so, se = ctl(t, missing, *args)
        check(rc == 2, f"fsnotifyctl {' '.join(args)}: exit {rc}, expected 2 (usage):{tail(se)}")


@test
def ctl_baseline_verify(t):
    # fsnotifyctl verify [RULE]: the daemon compares a rule's baseline now.
    # A rule without attrib (the warning names it) does not see a chmod
    # made while it runs; verify reports it (reason verify) and records it:
    # a second verify reports nothing, fsnotifyctl baseline PATH shows the
    # mode recorded. An unknown rule: NoSuchRule (exit 1); a rule without
    # baseline: NoBaseline (exit 1).
    w = t.mkdir("w")
    state = t.mkdir("state", mode=0o700)
    f = t.write_file(os.path.join(w, "f"), "f\n")
    events = ["create", "delete", "moved_from", "moved_to", "close_write"]
    outputs, out = t.json_setup()
    need_control(t)
    sock = os.path.join(t.dir, "control.sock")
    d, out, cfg = start(t, [rule("b", [w], recursive=True, baseline=True, events=events),
                            rule("plain", [w], events=events)],
                        outputs=outputs, reader=out,
                        top=control_top(sock) + f"\nstate_directory = {lc(state)};")
    wait_until(lambda: os.path.exists(sock), f"the control socket {sock}", alive=d)
    wait_until(lambda: "baseline of rule 'b' made" in d.stderr(), "the baseline made", alive=d)
    check("rule 'b' keeps a baseline but does not ask for attrib" in d.stderr(),
          f"no warning of the missing events:{tail(d.stderr())}")
    os.chmod(f, 0o600)
    mark = len(out.records)
    rc, so, se = ctl(t, sock, "verify", "b")
    check(rc == 0 and "comparing the baseline of b" in so, f"verify b: exit {rc}: {so}{se}")
    r = out.wait(lambda x: x.kind == "baseline" and x.path == f.encode(),
                 "the verify's baseline record", start=mark, daemon=d)
    check(r["reason"] == "verify" and r["change"] == "changed" and r["changed"] == ["mode", "ctime"]
          and r["attrs"]["mode"] == "0600" and r["attrs_before"]["mode"] == "0644", f"{r!r}")
    wait_until(lambda: d.stderr().count("baseline of rule 'b' compared (verify)") == 1,
               "the verify's end", alive=d)
    rc, so, se = ctl(t, sock, "--json", "verify")
    check(rc == 0 and json.loads(so) == {"rules": ["b"]}, f"verify: exit {rc}: {so}{se}")
    wait_until(lambda: d.stderr().count("baseline of rule 'b' compared (verify)") == 2,
               "the second verify's end", alive=d)
    check("compared (verify): 2 objects, 0 created, 0 deleted, 0 renamed, 0 changed" in
          d.stderr(), f"the second verify:{tail(d.stderr())}")
    # what the baseline holds now: the mode verify recorded
    got = ctl_json(t, sock, "baseline", f, "b")
    check(got["rule"] == "b" and got["object"]["path"] == f and
          got["object"]["attrs"]["mode"] == "0600" and got["object"]["sha256"] is None,
          f"baseline {f}: {got!r}")
    rc, so, se = ctl(t, sock, "baseline", f)
    check(rc == 0 and f"{f} (rule b)" in so and "file 0600" in so, f"baseline: {so}{se}")
    check(ctl_json(t, sock, "baseline", os.path.join(w, "none")) == {},
          "a path no baseline holds")
    rc, so, se = ctl(t, sock, "verify", "nope")
    check(rc == 1 and "no such rule: nope" in se, f"verify nope: exit {rc}: {so}{se}")
    rc, so, se = ctl(t, sock, "verify", "plain")
    check(rc == 1 and "rule plain keeps no baseline" in se, f"verify plain: exit {rc}: {so}{se}")
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0, "exit status after SIGTERM")
