#!/usr/bin/env python3
"""baselines/schema.json describes what gate writes: the example baseline validates against it, a
file missing a required key or with a negative call count does not, and gate reads the example
(compare of the example with itself: exit 0, every function compared). Fresh results of this gate
are validated by tests/ci/examples_test.py (root: it measures).
Environment: GATE_ROOT, GATE_BIN. Needs python3-jsonschema (ci/setup.sh installs it)."""
import copy
import json
import os
import subprocess
import sys

import jsonschema

root = os.environ["GATE_ROOT"]
gate = os.environ["GATE_BIN"]
schema = json.load(open(os.path.join(root, "baselines", "schema.json")))
example_path = os.path.join(root, "baselines", "example-shop.json")
example = json.load(open(example_path))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(example, schema)
for key in schema["required"]:
    broken = copy.deepcopy(example)
    del broken[key]
    try:
        jsonschema.validate(broken, schema)
        sys.exit(f"FAIL: the schema accepts a result without {key!r}")
    except jsonschema.ValidationError:
        pass
broken = copy.deepcopy(example)
broken["runs"][0]["functions"]["calls"][0] = -1
try:
    jsonschema.validate(broken, schema)
    sys.exit("FAIL: the schema accepts a negative call count")
except jsonschema.ValidationError:
    pass
# Units and layouts (docs/units-and-layouts.md): optional per-run fields, executions at least 1.
units = copy.deepcopy(example)
units["runs"][0]["executions"] = 4
units["runs"][0]["layout"] = 2
jsonschema.validate(units, schema)
units["runs"][0]["executions"] = 0
try:
    jsonschema.validate(units, schema)
    sys.exit("FAIL: the schema accepts a run of 0 executions")
except jsonschema.ValidationError:
    pass
r = subprocess.run([gate, "compare", example_path, example_path, "--format", "json"], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"FAIL: gate compare of the example with itself exited {r.returncode}: {r.stderr}")
report = json.loads(r.stdout)
names = {f["name"] for f in report["functions"]}
if not set(example["run_functions"]) <= names:
    sys.exit(f"FAIL: gate compare lost functions: {set(example['run_functions']) - names}")
print(f"ok: the example validates, {len(schema['required'])} required keys enforced, gate reads it "
      f"({len(names)} functions compared)")
