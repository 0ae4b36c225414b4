# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_config.py — the integration cases of the config and the start
(issue 4): config errors with file:line (--check-config, drop-ins, at
start, an output that cannot be opened), --check-config of a directory or a
FIFO, unprivileged, and on the shipped configs; rules that cannot be placed
(and required = true); the default config runs, create = true, the
daemon's capabilities, a start with fds 0, 1 and 2 closed. Registered in
common.TESTS.
"""

import glob
import os
import re
import shutil
import signal

from harness import Fail, Skip, check, config_text, ev, rule, run_cmd, tail
from common import _GOOD_HEAD, _R, _bad_config, bad_config_problems, check_process, start, test


# ---------------------------------------------------------------------------
# Config errors and --check-config
# ---------------------------------------------------------------------------

# Each bad config: (name, text with "@@" marking the line the error must
# name, regexes the message must match, case-insensitive). The rest of the
# text is valid, so exactly that one problem is in each.
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
    confs = [os.path.join(t.srcdir, "conf", n) for n in ("fsnotifyd.conf", "demo.conf")]
    examples = sorted(glob.glob(os.path.join(t.srcdir, "conf", "examples", "*.conf")))
    check(examples, "no conf/examples/*.conf")
    confs += examples
    problems = []
    for c in confs:
        # The demo config creates its demo directory (create = true):
        # run it with a private /tmp so the check leaves nothing behind.
        argv = [t.binary, "--check-config", c]
        if not any(x.startswith("/tmp/") for x in (t.binary, c)):
            argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                    'mount -t tmpfs tmpfs /tmp && exec "$@"', "sh", *argv]
        rc, so, se = run_cmd(argv)
        # an example's paths need not exist here (3: valid, some rules
        # cannot be placed here); the default's and the demo's do
        if rc != 0 and not (rc == 3 and c not in confs[:2]):
            first = next((ln for ln in (so + se).split("\n") if ln.strip()), "")
            problems.append(f"{os.path.relpath(c, t.srcdir)}: exit {rc}: {first}"
                            f"{tail(so + se, 8)}")
            continue
        # the installed default is cheap: no mark that makes accesses
        # elsewhere on a filesystem reach the daemon
        if c == confs[0] and re.search(r"(filesystem|mount) marks?\b", so):
            problems.append(f"conf/fsnotifyd.conf: the plan has a filesystem or mount mark:"
                            f"{tail(so, 8)}")
        text = open(c, encoding="utf-8").read()
        for name in re.findall(r'^\s*(?:\{\s*)?name\s*=\s*"([^"]+)"', text, re.M):
            if name not in so:
                problems.append(f"{os.path.relpath(c, t.srcdir)}: the plan does not name rule "
                                f"{name}:{tail(so, 8)}")
    if problems:
        raise Fail(f"{len(problems)} problem(s): " + "\n".join(problems))


@test
def explain_costs(t):
    # --explain on the installed default: a block per rule with its costs in
    # numbers, every line within 80 columns; --measure takes the figures
    # from fsn-bench hooks run now (the build tree's, next to the daemon).
    # The config is read from a path long enough that a line naming it
    # must be wrapped too (a source tree in a deeper directory did that).
    # (but a word no longer than a line: about 75 columns).
    deep = os.path.join(t.dir, "d" * max(1, 58 - len(t.dir)))
    os.mkdir(deep)
    conf = os.path.join(deep, "fsnotifyd.conf")
    shutil.copyfile(os.path.join(t.srcdir, "conf", "fsnotifyd.conf"), conf)
    runs = {"shipped": [t.binary, "--explain", conf],
            "measured": [t.binary, "--explain", "--measure", conf]}
    bench = os.path.join(os.path.dirname(os.path.dirname(t.binary)), "bench", "fsn-bench")
    if not os.access(bench, os.X_OK):
        del runs["measured"]
        if os.environ.get("FSN_TESTS_MUST_RUN") == "1":
            raise Fail(f"no fsn-bench at {bench} for --explain --measure")
    for what, argv in runs.items():
        rc, so, se = run_cmd(argv, timeout=120)
        check(rc == 0, f"--explain ({what}): exit {rc}:{tail(so + se)}")
        long = [ln for ln in so.split("\n") if len(ln) > 80]
        check(not long, f"--explain ({what}): {len(long)} lines over 80 columns: {long[:3]}")
        for name in ("etc", "binaries"):
            block = so[so.index(f"rule '{name}': "):]
            costs = re.search(r"cost: CPU per write / open / read.*?\n(.*?)(?:\nrule |\n\d+ marks)",
                              block, re.S)
            check(costs and re.search(r"elsewhere on the filesystem +~?\d+\.\d\dx +~?\d+\.\d\dx "
                                      r"+~?\d+\.\d\dx +\[ino-same-fs\]", costs.group(1)),
                  f"--explain ({what}): rule {name} has no cost figures:{tail(so, 20)}")
        src = "on this machine now" if what == "measured" else "the table shipped with"
        check(src in " ".join(so.split()), f"--explain ({what}): the figures' source "
              f"({src!r}) is not named:{tail(so, 8)}")


explain_costs.timeout = 150  # fsn-bench hooks --quick: a few seconds, more under ASan


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


# ---------------------------------------------------------------------------
# Start: the default config, create = true, capabilities, std fds
# ---------------------------------------------------------------------------

@test
def installed_default_runs(t):
    # conf/fsnotifyd.conf as installed, its outputs turned to a JSON file
    # by a drop-in (top-level settings of a drop-in override): a file made
    # and removed in /etc, and a program in /usr/sbin whose mode is set
    # (to what it is: an attrib event, nothing changes), are reported with
    # their rules; the program's with the process that did it.
    src = os.path.join(t.srcdir, "conf", "fsnotifyd.conf")
    conf = t.write_file("fsnotifyd.conf", open(src, encoding="utf-8").read())
    events = os.path.join(t.dir, "events.json")
    os.mkdir(os.path.join(t.dir, "conf.d"))
    # (its baselines in the test's directory, not /var/lib/fsnotifyd)
    t.write_file(os.path.join(t.dir, "conf.d", "json.conf"),
                 f'outputs = ["test"];\noutput = {{ test = {{ type = "json"; file = "{events}"; }}; }};\n'
                 f'state_directory = "{t.dir}/state";\n')
    out = t.output(events)
    prog = next(os.path.join("/usr/sbin", n) for n in sorted(os.listdir("/usr/sbin"))
                if os.path.isfile(os.path.join("/usr/sbin", n))
                and not os.path.islink(os.path.join("/usr/sbin", n)))
    mode = os.stat(prog).st_mode & 0o7777
    if not all(os.access(x, os.W_OK) for x in ("/etc", prog)) or any(
            os.statvfs(x).f_flag & os.ST_RDONLY for x in ("/etc", prog)):
        raise Skip("/etc or /usr/sbin is read-only here: the case changes both (a mode set to "
                   "what it is, a file made and removed)")
    d = t.daemon(conf)
    d.wait_ready()
    c = t.child(comm="fsnd-default")
    c.do("chmod", path=prog, mode=mode)
    r = out.wait(ev(prog, "attrib", "binaries"), f"attrib of {prog}", daemon=d)
    check_process(r, c, "the attrib in /usr/sbin")
    f = f"/etc/.fsnotifyd-test-{os.getpid()}"
    t.cleanups.append(lambda: os.path.exists(f) and os.unlink(f))
    c.create(f)
    out.wait(ev(f, "create", "etc"), f"the create of {f}", daemon=d)
    c.do("unlink", path=f)
    out.wait(ev(f, "delete", "etc"), f"the delete of {f}", daemon=d)
    d.signal(signal.SIGTERM)
    check(d.wait_exit() == 0, "exit status after SIGTERM is not 0")


@test
def demo_config_runs(t):
    # The README run command: the demo config shows live events at
    # once (JSON lines on stdout). Its demo directory gets a tmpfs of its
    # own in this mount namespace, so nothing is left behind.
    conf = os.path.join(t.srcdir, "conf", "demo.conf")
    demo = "/tmp/fsnotifyd-demo"
    if not os.path.isdir(demo):
        os.mkdir(demo)
        t.cleanups.append(lambda: os.rmdir(demo))
    t.mount_at(demo)
    d = t.daemon(conf)
    out = t.output(d.stdout_path)
    d.wait_ready()
    c = t.child(comm="fsnd-demo")
    p = os.path.join(demo, "hello.txt")
    c.create(p)
    r = out.wait(ev(p, "create", "demo"), "the create in /tmp/fsnotifyd-demo on stdout",
                 daemon=d)
    check_process(r, c, "the demo event")
    check(r.get("exe") == os.readlink("/proc/self/exe") and r.get("ppid") == os.getpid(),
          f"the demo event does not say who: {r!r}")
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
