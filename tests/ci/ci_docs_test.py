#!/usr/bin/env python3
"""docs/ci.md's inputs and outputs tables are generated from ci/github/action.yml: the text between
<!-- action-inputs:begin --> and <!-- action-inputs:end --> (and the same for outputs) must be what
this script renders from the action, so an input added, renamed or redescribed without the docs
fails the suite. `ci_docs_test.py --update` rewrites the two tables in place.
Usage: ci_docs_test.py [--update] [GATE_SOURCE_DIR]"""
import os
import re
import sys

import yaml

args = [a for a in sys.argv[1:] if a != "--update"]
update = "--update" in sys.argv[1:]
ROOT = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
action = yaml.safe_load(open(os.path.join(ROOT, "ci/github/action.yml")))
doc_path = os.path.join(ROOT, "docs/ci.md")
doc = open(doc_path).read()


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def inputs_table():
    rows = ["| input | default | what |", "| --- | --- | --- |"]
    for name, spec in action["inputs"].items():
        default = "(required)" if spec.get("required") else (f"`{spec.get('default')}`" if str(spec.get("default", "")) else "")
        rows.append(f"| `{name}` | {cell(default)} | {cell(spec.get('description', ''))} |")
    return "\n".join(rows)


def outputs_table():
    rows = ["| output | what |", "| --- | --- |"]
    for name, spec in action.get("outputs", {}).items():
        rows.append(f"| `{name}` | {cell(spec.get('description', ''))} |")
    return "\n".join(rows)


failures = []
for what, render in (("inputs", inputs_table), ("outputs", outputs_table)):
    begin, end = f"<!-- action-{what}:begin -->", f"<!-- action-{what}:end -->"
    m = re.search(re.escape(begin) + r"\n(.*?)\n?" + re.escape(end), doc, re.S)
    if not m:
        failures.append(f"docs/ci.md has no {begin} ... {end} block")
        continue
    want = render()
    if m.group(1).strip() != want:
        if update:
            doc = doc[:m.start(1)] + want + "\n" + doc[m.end(1):]
        else:
            failures.append(f"docs/ci.md's {what} table differs from ci/github/action.yml: run tests/ci/ci_docs_test.py --update")
if update:
    open(doc_path, "w").write(doc)
    print("docs/ci.md: tables rewritten from ci/github/action.yml")
    sys.exit(0)
for f in failures:
    print("FAIL:", f)
n_in, n_out = len(action["inputs"]), len(action.get("outputs", {}))
print(f"{0 if failures else 2} passed, {len(failures)} failed ({n_in} inputs, {n_out} outputs)")
sys.exit(1 if failures else 0)
