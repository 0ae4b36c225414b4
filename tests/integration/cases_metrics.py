# SPDX-License-Identifier: GPL-2.0-or-later
"""
cases_metrics.py — the integration cases of the metrics output: the real
daemon writes its metrics file (type "metrics") into a directory of the
test; promtool accepts it; prometheus-node-exporter's textfile collector
serves it, and its scrape has the series with the values the test
caused (events of a rule whose name has every kind of character a rule
name may have, permission verdicts and the decision latency histogram,
the outputs' records); the write at stop; a symlinked or missing
directory refused at start, a world-writable one warned about; the
config errors (a rule naming a metrics output, a metrics output without
a file, interval out of range, interval on a json output) at file:line.
Hostile bytes cannot reach a label through the config (rule names are
letters, digits, '_', '.', '-'; output names libconfig's), so their
escaping is the unit suite's (tests/unit/test-metrics.c). Registered in
common.TESTS.
"""

import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request

from harness import Fail, Skip, check, config_text, ev, free_port, rule, tail, wait_until
from common import bad_config_problems, start, test

# A rule name with each kind of character a rule name may hold.
ODD = "r.a-b_9"

_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """{(name, frozenset of (label, value)): float} of a text exposition
    (label values unescaped), and the families' types {name: type}."""
    series, types = {}, {}
    for line in text.split("\n"):
        if not line:
            continue
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            types[name] = typ
            continue
        if line.startswith("#"):
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$", line)
        if not m:
            raise Fail(f"not a series line: {line!r}")
        labels = frozenset(
            (k, re.sub(r"\\(.)", lambda x: "\n" if x.group(1) == "n" else x.group(1), v))
            for k, v in _LABEL.findall(m.group(3) or ""))
        series[(m.group(1), labels)] = float(m.group(4))
    return series, types


def val(series, name, **labels):
    return series.get((name, frozenset(labels.items())))


def read_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def tool(name, package):
    p = shutil.which(name)
    if not p:
        raise Skip(f"{name} is missing (Debian package {package})")
    return p


def scrape(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.read().decode("utf-8")
    except OSError:
        return None


def node_exporter(t, directory):
    """prometheus-node-exporter with only the textfile collector on
    directory, on a free port of 127.0.0.1 (killed at the end of the test);
    the URL of its /metrics once it answers."""
    exe = tool("prometheus-node-exporter", "prometheus-node-exporter")
    for attempt in range(3):
        port = free_port()
        p = t.spawn([exe, "--collector.disable-defaults", "--collector.textfile",
                     f"--collector.textfile.directory={directory}",
                     f"--web.listen-address=127.0.0.1:{port}"], f"node-exporter{attempt}")
        url = f"http://127.0.0.1:{port}/metrics"

        def up():
            if p.poll() is not None:
                return "exited"
            return scrape(url) is not None and "up"
        if wait_until(up, "node_exporter to answer", timeout=10) == "up":
            return url
    raise Fail(f"node_exporter did not start:{tail(t.log_of('node-exporter2'), 5)}")


@test
def metrics_textfile(t):
    promtool = tool("promtool", "prometheus")
    tool("prometheus-node-exporter", "prometheus-node-exporter")
    w = t.mkdir("w")
    g = t.mkdir("g")
    for name in ("ok", "no"):
        with open(os.path.join(g, name), "w") as f:
            f.write("x\n")
    textdir = os.path.join(t.dir, "textfile")
    os.mkdir(textdir, 0o755)
    prom = os.path.join(textdir, "fsnotifyd.prom")
    outputs, out = t.json_setup()
    outputs["prom"] = {"type": "metrics", "file": prom, "interval": 1}
    d, out, _ = start(t, [rule(ODD, [w], mark="inotify", events=["create"]),
                          rule("p", [g], mark="auto", events=["open_perm"],
                               decisions=({"paths": [os.path.join(g, "no")],
                                           "verdict": "deny"},))],
                      outputs=outputs, reader=out)
    # written once the config runs, before any interval passed
    first = wait_until(lambda: read_file(prom), "the metrics file after the start", alive=d)
    s, _ = parse_metrics(first)
    check(val(s, "fsnotifyd_rule_events_total", rule=ODD) == 0,
          f"the first file: events of {ODD} not 0:\n{first}")
    check(not [n for n in os.listdir(textdir) if n != "fsnotifyd.prom"],
          f"files besides the metrics file: {os.listdir(textdir)}")
    check(os.stat(prom).st_mode & 0o7777 == 0o644, f"mode {os.stat(prom).st_mode:o}")

    n = 5
    c = t.child()
    for i in range(n):
        c.create(os.path.join(w, f"f{i}"))
    for i in range(n):
        out.wait(ev(os.path.join(w, f"f{i}"), "create", ODD), f"the create of f{i}", daemon=d)
    outcomes = [harness_try(c, os.path.join(g, f)) for f in ("ok", "ok", "ok", "no", "no")]
    check(outcomes == ["ok"] * 3 + ["open: EPERM"] * 2, f"the opens: {outcomes}")

    def shows_all():
        text = read_file(prom)
        s, _ = parse_metrics(text)
        return (val(s, "fsnotifyd_rule_events_total", rule=ODD) == n
                and val(s, "fsnotifyd_permission_decision_seconds_count", rule="p") == 5
                and text)
    text = wait_until(shows_all, f"the metrics file to show {n} events and 5 decisions",
                      alive=d)
    p = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True,
                       timeout=20)
    check(p.returncode == 0, f"promtool check metrics: exit {p.returncode}:"
          f"{tail((p.stdout + p.stderr).decode(errors='replace'), 10)}\n{text}")

    url = node_exporter(t, textdir)

    def scraped():
        body = scrape(url)
        if not body:
            return None
        s, types = parse_metrics(body)
        return val(s, "fsnotifyd_rule_events_total", rule=ODD) == n and (s, types)
    s, types = wait_until(scraped, "the scrape to show the rule's events", alive=d)
    check(val(s, "node_textfile_scrape_error") == 0, "node_textfile_scrape_error is not 0")
    want = {
        ("fsnotifyd_permission_verdicts_total", (("rule", "p"), ("verdict", "allow"))): 3,
        ("fsnotifyd_permission_verdicts_total", (("rule", "p"), ("verdict", "deny"))): 2,
        ("fsnotifyd_permission_verdicts_total", (("rule", "p"), ("verdict", "deadline"))): 0,
        ("fsnotifyd_permission_decision_seconds_count", (("rule", "p"),)): 5,
        ("fsnotifyd_permission_decision_seconds_bucket", (("rule", "p"), ("le", "+Inf"))): 5,
        ("fsnotifyd_rule_filtered_total", (("rule", ODD),)): 0,
        ("fsnotifyd_rule_overflows_total", (("rule", ODD),)): 0,
        ("fsnotifyd_rules", ()): 2,
        ("fsnotifyd_config_last_reload_ok", ()): 1,
        ("fsnotifyd_subscribers", ()): 0,
    }
    for (name, labels), v in want.items():
        got = val(s, name, **dict(labels))
        check(got == v, f"{name}{dict(labels)}: {got}, expected {v}")
    recs = val(s, "fsnotifyd_output_records_total", output="json", type="json")
    check(recs is not None and recs >= n, f"json records {recs}, expected at least {n}")
    check(val(s, "fsnotifyd_output_records_total", output="prom", type="metrics") >= 1,
          "the metrics output counts no writes")
    check(val(s, "fsnotifyd_marks") >= 2 and val(s, "fsnotifyd_fanotify_groups") >= 1,
          "marks or groups not counted")
    check(val(s, "fsnotifyd_resident_memory_bytes") > 0, "no resident memory")
    check(val(s, "fsnotifyd_start_time_seconds") <= time.time() + 1, "start time in the future")
    builds = [k for k in s if k[0] == "fsnotifyd_build_info"]
    check(len(builds) == 1 and dict(builds[0][1]).get("version") and s[builds[0]] == 1,
          f"build info: {builds}")
    # cumulative buckets, in the order of their bounds
    buckets = sorted((float(dict(k[1])["le"]), v) for k, v in s.items()
                     if k[0] == "fsnotifyd_permission_decision_seconds_bucket")
    check(len(buckets) >= 2 and all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])),
          f"buckets not cumulative: {buckets}")
    for name, typ in (("fsnotifyd_rule_events_total", "counter"),
                      ("fsnotifyd_permission_decision_seconds", "histogram"),
                      ("fsnotifyd_marks", "gauge")):
        check(types.get(name) == typ, f"# TYPE of {name}: {types.get(name)}, expected {typ}")


def harness_try(child, path):
    res = child.do("try", path=path, how="open")
    return "ok" if res.get("err") is None else f"{res['step']}: {res['err']}"


@test
def metrics_written_at_stop(t):
    # interval = 3600: after the first write (the start), only the stop
    # writes again
    w = t.mkdir("w")
    textdir = os.path.join(t.dir, "textfile")
    os.mkdir(textdir, 0o755)
    prom = os.path.join(textdir, "m.prom")
    outputs, out = t.json_setup()
    outputs["prom"] = {"type": "metrics", "file": prom, "interval": 3600}
    d, out, _ = start(t, [rule("r", [w], mark="inotify", events=["create"])],
                      outputs=outputs, reader=out)
    first = wait_until(lambda: read_file(prom), "the metrics file after the start", alive=d)
    c = t.child()
    for i in range(3):
        c.create(os.path.join(w, f"f{i}"))
    for i in range(3):
        out.wait(ev(os.path.join(w, f"f{i}"), "create", "r"), f"the create of f{i}", daemon=d)
    check(read_file(prom) == first, "the file changed before the interval or the stop")
    d.signal(signal.SIGTERM)
    rc = d.wait_exit()
    check(rc == 0, f"exit status {rc}:{tail(d.stderr())}")
    s, _ = parse_metrics(read_file(prom))
    check(val(s, "fsnotifyd_rule_events_total", rule="r") == 3,
          f"the file at stop: {val(s, 'fsnotifyd_rule_events_total', rule='r')} events")
    check(os.listdir(textdir) == ["m.prom"], f"left in the directory: {os.listdir(textdir)}")


@test
def metrics_directory(t):
    w = t.mkdir("w")
    real = os.path.join(t.dir, "real")
    os.mkdir(real, 0o755)
    link = os.path.join(t.dir, "link")
    os.symlink(real, link)
    shared = os.path.join(t.dir, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    problems = []
    for name, file, why in (("symlink", os.path.join(link, "m.prom"), "not a directory"),
                            ("missing", os.path.join(t.dir, "none", "m.prom"),
                             "No such file or directory")):
        cfg = t.write_file("m.conf", config_text(
            [rule("r", [w], events=["create"])],
            {"j": {"type": "json", "file": "/dev/null"},
             "prom": {"type": "metrics", "file": file}}, ["j"]))
        d = t.daemon(cfg, name=name)
        rc = d.wait_exit(timeout=10)
        err = d.stderr()
        if rc == 0 or d.notify.find("READY") is not None:
            problems.append(f"{name}: started (exit {rc})")
        if not ("output 'prom'" in err and why in err):
            problems.append(f"{name}: the error does not say '{why}':{tail(err, 3)}")
    check(not os.listdir(real), f"written through the symlink: {os.listdir(real)}")
    prom = os.path.join(shared, "m.prom")
    cfg = t.write_file("m.conf", config_text(
        [rule("r", [w], events=["create"])],
        {"j": {"type": "json", "file": "/dev/null"}, "prom": {"type": "metrics", "file": prom}},
        ["j"]))
    d = t.daemon(cfg)
    d.wait_ready()
    wait_until(lambda: read_file(prom), "the metrics file in the shared directory", alive=d)
    if "writable by everyone" not in d.stderr():
        problems.append(f"no warning about the world-writable directory:{tail(d.stderr(), 3)}")
    check(not problems, "\n".join(problems))


_HEAD = """\
outputs = ["json"];
output = {
  json = { type = "json"; file = "/dev/null"; };
"""
_RULE = '{ name = "r"; paths = ["/tmp"]; events = ["create"]; }'
_PROM = 'prom = { type = "metrics"; file = "/tmp/fsnotifyd-test.prom"; };'

BAD = [
    ("metrics-named-by-rule",
     _HEAD + f"  {_PROM}\n}};\nrules = (\n"
     '  { name = "r"; paths = ["/tmp"]; outputs = ["prom"]; }@@\n);\n',
     [r"rule 'r': outputs: 'prom' is a metrics output", r"no rule names it"]),
    ("metrics-in-default-outputs",
     'outputs = ["json", "prom"];@@\noutput = {\n'
     '  json = { type = "json"; file = "/dev/null"; };\n'
     f"  {_PROM}\n}};\nrules = (\n  {_RULE}\n);\n",
     [r"outputs: 'prom' is a metrics output"]),
    ("metrics-without-file",
     _HEAD + '  prom = { type = "metrics"; };@@\n};\n' + f"rules = (\n  {_RULE}\n);\n",
     [r"metrics outputs need 'file'"]),
    ("metrics-interval-range",
     _HEAD + '  prom = { type = "metrics"; file = "/tmp/x.prom"; interval = 0; };@@\n};\n'
     + f"rules = (\n  {_RULE}\n);\n",
     [r"interval: 0 is out of range \(1 to 3600\)"]),
    ("interval-on-json",
     _HEAD + '  j2 = { type = "json"; file = "/dev/null"; interval = 5; };@@\n};\n'
     + f"rules = (\n  {_RULE}\n);\n",
     [r"'interval' is only valid for metrics outputs"]),
]


@test
def metrics_config_errors(t):
    problems, _ = bad_config_problems(t, BAD)
    check(not problems, "\n".join(problems))
