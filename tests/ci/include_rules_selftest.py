#!/usr/bin/env python3
"""The test of include_rules_test.py: on a temporary copy of gate/, bpf/ and docs/development.md it
passes as the tree is, and fails, naming the file, the line and the rule, when a forbidden include
is added: a folder the table does not list (stats -> verdict), a file-limited arrow used by another
file (a bpf header in plan/buckets.cpp), a name-limited arrow used for another name (verdict's
report::headline_counts). Usage: include_rules_selftest.py GATE_ROOT"""
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include_rules_test.py")


def run(tree):
    p = subprocess.run([sys.executable, checker, tree], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


failures = []
cases = [
    # (file to change, text appended, what the report must say)
    ("gate/stats/compare.cpp", '#include "verdict/judge.hpp"\n',
     "includes verdict/judge.hpp: stats may include only common, results"),
    ("gate/plan/buckets.cpp", '#include "gate_shared.h"\n',
     "includes gate_shared.h: plan may include only"),
    ("gate/verdict/threshold_diff.cpp", '#include "report/report_util.hpp"\n'
     "static auto unused_for_the_test = &gate::report::headline_counts;\n",
     "includes report/report_util.hpp: verdict may include only"),
]
with tempfile.TemporaryDirectory() as tmp:
    for d in ("gate", "bpf", "docs"):
        shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
    code, out = run(tmp)
    if code != 0:
        failures.append(f"the unchanged copy fails:\n{out}")
    for rel, text, want in cases:
        path = os.path.join(tmp, rel)
        original = open(path).read()
        append(path, text)
        lines = original.count("\n") + 1
        code, out = run(tmp)
        if code == 0:
            failures.append(f"{rel} + {text.strip()!r}: passed, should fail")
        elif f"{rel}:{lines} {want}" not in out:
            failures.append(f"{rel} + {text.strip()!r}: the report lacks {rel}:{lines} {want!r}:\n{out}")
        open(path, "w").write(original)

if failures:
    sys.exit("FAIL: " + "\n".join(failures))
print(f"ok: the include-rule test passes on the tree and fails on each of {len(cases)} forbidden includes")
