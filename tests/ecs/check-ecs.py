#!/usr/bin/env python3
"""Hold Elastic Common Schema documents (fsnotifyd's json output with
"format = ecs": one JSON object per line) against ECS's own definitions
of its fields (ecs-fields.json, made from ECS's generated/ecs/ecs_flat.yml
by extract-fields.py).

Every field outside "fsnotifyd" (the source's own namespace) must be one
ECS defines, of a JSON type its ECS type takes (keyword: a string, long: an
integer, date: an RFC 3339 time...), an array where ECS says it always is
one; event.kind, event.category and event.type of their allowed values,
each event.type one that one of the event's categories expects; and
@timestamp, ecs.version (this file's ECS version), event.kind,
event.category, event.type, event.action, event.module and event.dataset
always there.

    check-ecs.py FILE...           the lines of FILEs ("-": standard input)
    check-ecs.py --run PROGRAM     the lines PROGRAM prints (ecs-samples)

Prints each document with a problem and its problems, then one line "N
passed, N failed, 0 skipped" (documents); exits 1 on a problem. Importable: problems(doc) for the integration suite."""
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "ecs-fields.json")) as _f:
    _ECS = json.load(_f)
FIELDS = _ECS["fields"]
VERSION = _ECS["version"]
REQUIRED = ("@timestamp", "ecs.version", "event.kind", "event.category", "event.type",
            "event.action", "event.module", "event.dataset")
OWN = "fsnotifyd"

_STRINGS = {"keyword", "constant_keyword", "wildcard", "text", "match_only_text", "ip",
            "version"}
_INTEGERS = {"long", "integer", "short", "byte", "unsigned_long"}
_NUMBERS = {"float", "double", "scaled_float", "half_float"}


def _flatten(obj, prefix, out, bad):
    for k, v in obj.items():
        name = prefix + k
        if name == OWN:
            if not isinstance(v, dict):
                bad.append(f"{OWN}: not an object")
            continue
        if "." in k:
            bad.append(f"{name}: a dotted key (ECS documents nest their objects)")
        if isinstance(v, dict) and FIELDS.get(name, {}).get("type") not in ("object",
                                                                               "flattened"):
            _flatten(v, name + ".", out, bad)
        else:
            out[name] = v


def _is_time(v):
    if not isinstance(v, str) or not v.endswith("Z"):
        return False
    main, _, frac = v[:-1].partition(".")
    try:
        datetime.datetime.strptime(main, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return frac == "" or (frac.isdigit() and len(frac) <= 9)


def _type_ok(etype, v):
    if etype in _STRINGS:
        return isinstance(v, str)
    if etype in _INTEGERS:
        return isinstance(v, int) and not isinstance(v, bool)
    if etype in _NUMBERS:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if etype == "boolean":
        return isinstance(v, bool)
    if etype in ("date", "date_nanos"):
        return _is_time(v)
    if etype in ("object", "flattened"):
        return isinstance(v, dict)
    return False  # (a type fsnotifyd has no business writing: nested, geo_point...)


def problems(doc):
    """What in one decoded document ECS does not define or allow (empty:
    nothing)."""
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    flat, bad = {}, []
    _flatten(doc, "", flat, bad)
    for name in REQUIRED:
        if name not in flat:
            bad.append(f"{name}: missing")
    if flat.get("ecs.version") not in (None, VERSION):
        bad.append(f"ecs.version: {flat['ecs.version']!r}, the definitions are of {VERSION}")
    for name, v in flat.items():
        d = FIELDS.get(name)
        if d is None:
            bad.append(f"{name}: not an ECS {VERSION} field")
            continue
        values = v if isinstance(v, list) else [v]
        if d.get("array") and not isinstance(v, list):
            bad.append(f"{name}: ECS keeps it an array, got {v!r}")
        for x in values:
            if not _type_ok(d["type"], x):
                bad.append(f"{name}: {x!r} is not of ECS type {d['type']}")
            elif "allowed" in d and x not in d["allowed"]:
                bad.append(f"{name}: {x!r} is not one of ECS's {sorted(d['allowed'])}")
    cats = flat.get("event.category")
    cats = cats if isinstance(cats, list) else [cats]
    expected = set()
    for c in cats:
        expected.update(FIELDS["event.category"]["allowed"].get(c, []))
    types = flat.get("event.type")
    for t in types if isinstance(types, list) else [types]:
        if t is not None and t not in expected:
            bad.append(f"event.type {t!r}: none of the categories {cats} expects it")
    return bad


def _lines(args):
    if args[:1] == ["--run"]:
        out = subprocess.run(args[1:], check=True, stdout=subprocess.PIPE).stdout
        yield from out.decode("utf-8").splitlines()
        return
    for path in args or ["-"]:
        f = sys.stdin if path == "-" else open(path, encoding="utf-8")
        with f:
            yield from (line.rstrip("\n") for line in f)


def main():
    n = n_bad = 0
    for n, line in enumerate(_lines(sys.argv[1:]), 1):
        try:
            bad = problems(json.loads(line))
        except ValueError as e:
            bad = [f"not JSON: {e}"]
        if bad:
            n_bad += 1
            print(f"FAIL line {n}: {line[:200]}")
            for p in bad:
                print(f"  {p}")
    if n == 0:
        print("FAIL no documents")
    print(f"{n - n_bad} passed, {n_bad + (n == 0)} failed, 0 skipped")
    return 1 if n_bad or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
