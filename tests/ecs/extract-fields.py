#!/usr/bin/env python3
"""Make ecs-fields.json, the Elastic Common Schema's definitions of the
fields fsnotifyd's "ecs" format may write, from ECS's own
generated/ecs/ecs_flat.yml (github.com/elastic/ecs, at a release tag):

    git -C ecs show v9.4.0:generated/ecs/ecs_flat.yml > ecs_flat.yml
    python3 extract-fields.py ecs_flat.yml v9.4.0 > ecs-fields.json

Kept of each field: its type, whether it is an array (normalize), and the
allowed values of the categorisation fields (event.kind, event.category,
event.type) with the event types each category expects. Needs PyYAML
(python3-yaml) to run; the tests read only its JSON output."""
import json
import sys

import yaml

NAMESPACES = ("agent.", "container.", "ecs.", "event.", "file.", "host.", "log.", "package.",
              "process.", "rule.", "user.")
BASE = ("@timestamp", "labels", "message", "tags")


def main():
    src, tag = sys.argv[1], sys.argv[2]
    with open(src) as f:
        flat = yaml.safe_load(f)
    fields = {}
    for name, d in sorted(flat.items()):
        if not (name in BASE or name.startswith(NAMESPACES)):
            continue
        out = {"type": d["type"]}
        if "array" in (d.get("normalize") or []):
            out["array"] = True
        if d.get("allowed_values"):
            out["allowed"] = {v["name"]: v.get("expected_event_types", [])
                              for v in d["allowed_values"]}
        fields[name] = out
    json.dump({"source": f"github.com/elastic/ecs {tag} generated/ecs/ecs_flat.yml",
               "version": tag.lstrip("v"), "fields": fields}, sys.stdout, indent=1,
              sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
