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
# The GitLab and Jenkins templates' knobs: every variable of the GitLab `.gate` job and every
# environment entry of the Jenkinsfile is named in its section of docs/ci.md (issue 41: parity).
checks = 2


def section(title):
    m = re.search(r"^### " + re.escape(title) + r"\n(.*?)(?=^#)", doc, re.S | re.M)
    return m.group(1) if m else ""


gitlab = yaml.safe_load(open(os.path.join(ROOT, "ci/gitlab/gate.gitlab-ci.yml")))[".gate"]["variables"]
jenkins = re.findall(r"^\s+(GATE_[A-Z_]+)\s*=", re.search(r"environment \{(.*?)\n  \}",
                     open(os.path.join(ROOT, "ci/jenkins/Jenkinsfile")).read(), re.S).group(1), re.M)
for title, names in (("GitLab CI", [v for v in gitlab if v.startswith("GATE_")]), ("Jenkins", jenkins)):
    checks += 1
    text = section(title)
    missing = [n for n in names if f"`{n}`" not in text and not re.search(rf"\b{n}\b", text)]
    if not text:
        failures.append(f"docs/ci.md has no '### {title}' section")
    elif missing:
        failures.append(f"docs/ci.md's {title} section does not name the template's {', '.join(missing)}")
for f in failures:
    print("FAIL:", f)
n_in, n_out = len(action["inputs"]), len(action.get("outputs", {}))
print(f"{checks - len(failures)} passed, {len(failures)} failed ({n_in} inputs, {n_out} outputs, "
      f"{len([v for v in gitlab if v.startswith('GATE_')])} GitLab variables, {len(jenkins)} Jenkins knobs)")
sys.exit(1 if failures else 0)
