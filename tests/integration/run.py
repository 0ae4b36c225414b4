#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
run.py — the integration suite of fsnotifyd: the real daemon, temporary
configs, a NOTIFY_SOCKET the suite owns, a private tmpfs per test.

    run.py FSNOTIFYD SOURCE_ROOT [-k SUBSTRING]... [--list] [--soak]

Needs root (fanotify): exits 77 otherwise. Re-executes itself once under
`unshare --mount --propagation private`, mounts a tmpfs for its work
directory and one more per test, so marks see only the suite's activity and
nothing is left behind. Prints one line per test (PASS/FAIL/SKIP name:
reason), details of failures on stderr, and last `N passed, N failed, N
skipped`; exits 0 (all passed), 1 (a failure) or 77 (everything skipped).
FSN_TESTS_MUST_RUN=1 turns a skipped test into a failure (CI). --soak runs
the soak (cases_soak.py, FSN_SOAK_SECONDS) instead of the cases.
"""

import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import Fail, Skip  # noqa: E402
import common  # noqa: E402
import cases_marks  # noqa: E402
import cases_reload  # noqa: E402
import cases_output  # noqa: E402
import cases_baseline  # noqa: E402
import cases_config  # noqa: E402
import cases_overflow  # noqa: E402
import cases_lifecycle  # noqa: E402
import cases_perm  # noqa: E402
import cases_tree  # noqa: E402
import cases_scale  # noqa: E402
import cases_control  # noqa: E402
import cases_ctl  # noqa: E402
import cases_metrics  # noqa: E402
import cases_fleet  # noqa: E402
import cases_memory  # noqa: E402
import cases_soak  # noqa: E402

# Each module registers its cases in common.TESTS when imported: the cases
# run in the order of these imports, and in a module in its order.
CASE_MODULES = (cases_marks, cases_reload, cases_output, cases_baseline, cases_config,
                cases_overflow, cases_lifecycle, cases_perm, cases_tree, cases_scale, cases_ctl,
                cases_metrics, cases_fleet, cases_memory)

INNER_ENV = "FSND_IT_NAMESPACE"
TEST_TIMEOUT = 40  # seconds of the machine's attention (harness.Budget), for one
# test (a hung daemon must not hang the suite); a case function's attribute
# "timeout" overrides it (cases_scale.py)


class Timeout(Exception):
    pass


# the running test's budget: the alarm looks at it, and raises only once
# it is spent (a busy machine stretches it, up to Budget.STRETCH times)
current_budget = None


def on_alarm(signum, frame):
    if current_budget is not None and not current_budget.expired():
        signal.alarm(max(1, int(current_budget.left() + 0.999)))
        return
    raise Timeout("the test took longer than its time limit")


class Runner:
    def __init__(self, binary, srcdir, base):
        self.binary = binary
        self.srcdir = srcdir
        self.base = base


def run_one(runner, index, name, fn):
    t = harness.TestEnv(runner, name, index)
    t0 = time.monotonic()
    global current_budget
    limit = getattr(fn, "timeout", TEST_TIMEOUT)
    current_budget = harness.Budget(limit)
    signal.alarm(limit)
    status, reason = "PASS", ""
    try:
        fn(t)
        for r in t.readers:
            r.poll()
            if r.errors:
                raise Fail(f"{len(r.errors)} bad JSON line(s); first: {r.errors[0]}")
            gaps = r.gap_problems()
            if gaps:
                raise Fail("; ".join(gaps))
    except Skip as e:
        status, reason = "SKIP", str(e)
    except Fail as e:
        status, reason = "FAIL", str(e)
    except Timeout:
        status, reason = "FAIL", (f"the test took longer than {limit}s "
                                  f"({current_budget.wall():.0f}s of wall time)")
        harness.stderr_print(traceback.format_exc())
    except Exception as e:  # noqa: BLE001 — a harness bug is a failure too
        status, reason = "FAIL", f"{type(e).__name__}: {e}"
        harness.stderr_print(traceback.format_exc())
    finally:
        signal.alarm(0)
        current_budget = None
        try:
            t.close()
        except Exception as e:  # noqa: BLE001
            harness.stderr_print(f"# {name}: cleanup: {e!r}")
    if status == "SKIP" and os.environ.get("FSN_TESTS_MUST_RUN") == "1":
        status, reason = "FAIL", f"skipped although FSN_TESTS_MUST_RUN=1: {reason}"
    if status == "FAIL":
        # Details for whoever reads the log: first line of the reason is
        # the summary line; the daemon's stderr and output tails follow.
        harness.stderr_print(f"# ---- {name} failed after {time.monotonic() - t0:.2f}s")
        for line in reason.split("\n"):
            harness.stderr_print(f"#   {line}")
        for d in t.daemons:
            harness.stderr_print(f"#   daemon {d.pid} stderr:{harness.tail(d.stderr(), 25)}")
            harness.stderr_print(f"#   notify: {[(k, v) for k, v, _ in d.notify.msgs][-20:]}")
        for r in t.readers:
            harness.stderr_print(f"#   {r.path}: {len(r.records)} records; last:")
            for rec in r.records[-10:]:
                harness.stderr_print(f"#     {rec!r}")
        for n in t.notes:
            harness.stderr_print(f"#   note: {n}")
    harness.stderr_print(f"# {name}: {status} in {time.monotonic() - t0:.2f}s")
    summary = reason.split("\n")[0]
    line = f"{status} {name}" + (f": {summary}" if summary else "")
    if status == "PASS" and t.notes:
        line += f" (note: {'; '.join(t.notes)})"
    print(line, flush=True)
    if status != "FAIL":
        # (the suite's work tmpfs, 64 MiB, is shared by every case: what
        # a passed case wrote goes; a failed one's stays until the end)
        shutil.rmtree(t.dir, ignore_errors=True)
    return status


def inner(argv):
    binary = os.path.abspath(argv[0])
    srcdir = os.path.abspath(argv[1])
    common.SRCDIR = srcdir
    filters = []
    listing = False
    registry = common.TESTS
    rest = argv[2:]
    while rest:
        a = rest.pop(0)
        if a == "-k" and rest:
            filters.append(rest.pop(0))
        elif a == "--list":
            listing = True
        elif a == "--soak":
            registry = cases_soak.SOAK_TESTS
        else:
            print(f"run.py: unknown argument {a!r}", file=sys.stderr)
            return 2
    tests = [(n, f) for n, f in registry if not filters or any(s in n for s in filters)]
    if listing:
        for n, _ in tests:
            print(n)
        return 0
    if not os.access(binary, os.X_OK):
        print(f"FAIL setup: {binary} is not an executable", flush=True)
        print("0 passed, 1 failed, 0 skipped", flush=True)
        return 1

    harness.set_child_subreaper()
    signal.signal(signal.SIGALRM, on_alarm)
    base = tempfile.mkdtemp(prefix="fsnd-it.")
    harness.mount("tmpfs", base, "tmpfs", 0, "mode=0755,size=64m")
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    try:
        for i, (name, fn) in enumerate(tests):
            counts[run_one(Runner(binary, srcdir, base), i, name, fn)] += 1
    finally:
        harness.reap_strays()
        harness.umount(base)
        os.rmdir(base)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped",
          flush=True)
    if counts["FAIL"]:
        return 1
    if counts["PASS"] == 0 and counts["SKIP"]:
        return 77
    return 0


def main():
    argv = sys.argv[1:]
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if "--list" in argv:
        return inner(argv)
    if os.geteuid() != 0:
        print("SKIP integration: needs root (fanotify, mounts)", flush=True)
        print("0 passed, 0 failed, 1 skipped", flush=True)
        return 77
    if os.environ.get(INNER_ENV) != "1":
        unshare = shutil.which("unshare")
        if not unshare:
            print("SKIP integration: unshare(1) from util-linux is missing", flush=True)
            print("0 passed, 0 failed, 1 skipped", flush=True)
            return 77
        env = dict(os.environ, **{INNER_ENV: "1"})
        os.execve(unshare, [unshare, "--mount", "--propagation", "private", "--",
                            sys.executable, os.path.abspath(__file__), *argv], env)
    return inner(argv)


if __name__ == "__main__":
    sys.exit(main())
