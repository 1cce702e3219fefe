#!/usr/bin/env python3
"""The test of include_rules_test.py: on a temporary copy of gate/, bpf/ and docs/development.md it
passes as the tree is, and fails, naming the file, the line and the rule, when a forbidden include
is added: a folder the table does not list (stats -> verdict), a file-limited arrow used by another
file (a bpf header in plan/buckets.cpp), a name-limited arrow used for another name (verdict's
report::headline_counts); and, for CMake's links (issue 57), a link to a folder the table does not
list (stats -> gate_verdict, history -> gate_runner) and a link the table allows that no file uses
(stats -> gate_elf, with elf added to stats' row); and for the diagram, an arrow the table forbids,
a folder left out, a cycle in the table, a second drawing elsewhere. Usage:
include_rules_selftest.py GATE_ROOT"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include_rules_test.py")


def run(tree):
    p = subprocess.run([sys.executable, checker, tree], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


touched = {}  # path -> its text before the case changed it


def keep(path):
    touched.setdefault(path, open(path).read())


def append(tree, rel, text):
    """Appends text to tree/rel; returns the report's prefix for its first line ("rel:N")."""
    path = os.path.join(tree, rel)
    keep(path)
    lines = open(path).read().count("\n") + 1
    with open(path, "a") as f:
        f.write(text)
    return f"{rel}:{lines} "


def edit_doc(tree, pattern, replacement):
    """Rewrites the copy's docs/development.md (a row of the table, or the diagram)."""
    path = os.path.join(tree, "docs", "development.md")
    keep(path)
    text = open(path).read()
    changed = re.sub(pattern, replacement, text, count=1, flags=re.M)
    assert changed != text, f"docs/development.md: {pattern!r} not found"
    open(path, "w").write(changed)
    return ""


def row(folder, cell_end, new_end):
    """The 'may include' cell of gate/FOLDER/'s row ending in cell_end, made to end in new_end."""
    return (rf"^(\|[^|\n]*\| `gate/{folder}/` \|.*\| [^|\n]*){re.escape(cell_end)}( \|)$", rf"\g<1>{new_end}\2")


# (what is added, how it is added to the copy (returns the report's prefix), what the report must say)
cases = [
    ("stats includes verdict", lambda t: append(t, "gate/stats/compare.cpp", '#include "verdict/judge.hpp"\n'),
     "includes verdict/judge.hpp: stats may include only common, results"),
    ("a bpf header in plan/buckets.cpp", lambda t: append(t, "gate/plan/buckets.cpp", '#include "gate_shared.h"\n'),
     "includes gate_shared.h: plan may include only"),
    ("verdict uses report::headline_counts",
     lambda t: append(t, "gate/verdict/threshold_diff.cpp", '#include "report/report_util.hpp"\n'
                      "static auto unused_for_the_test = &gate::report::headline_counts;\n"),
     "includes report/report_util.hpp: verdict may include only"),
    # CMake's links (issue 57).
    ("stats links gate_verdict",
     lambda t: append(t, "gate/stats/CMakeLists.txt", "target_link_libraries(gate_stats PRIVATE gate_verdict)\n"),
     "links gate_verdict: stats may include only common, results"),
    ("history links gate_runner",
     lambda t: append(t, "gate/history/CMakeLists.txt", "target_link_libraries(gate_history PRIVATE gate_runner)\n"),
     "links gate_runner: history may include only"),
    ("stats links gate_elf, allowed by the table, used by no file",
     lambda t: edit_doc(t, *row("stats", "results, common", "results, elf, common"))
     + append(t, "gate/stats/CMakeLists.txt", "target_link_libraries(gate_stats PRIVATE gate_elf)\n"),
     "links gate_elf, but no file of gate/stats/ includes elf/: drop the link"),
    # The diagram (issue 57): drawn in one place, from the table.
    ("the diagram draws results -> verdict",
     lambda t: edit_doc(t, r"plan -> results$", "plan -> results -> verdict"),
     "docs/development.md's diagram: results -> verdict, which the 'may include' column does not allow"),
    ("the diagram leaves gobench out",
     lambda t: edit_doc(t, r"runner -> truetime, gobench -> results", "runner -> truetime -> results"),
     "docs/development.md's diagram does not draw gate/gobench/"),
    ("the table lets results include stats (a cycle)",
     lambda t: edit_doc(t, *row("results", "common, bpf header (bucketing)", "common, stats, bpf header (bucketing)")),
     "'may include' column has a cycle: results -> stats -> results"),
    ("a second drawing in gate/stats/CMakeLists.txt",
     lambda t: append(t, "gate/stats/CMakeLists.txt", "# stats -> results (pure)\n"),
     "draws 'stats -> results': the diagram lives in docs/development.md's Layout only"),
]
failures = []
with tempfile.TemporaryDirectory() as tmp:
    tree = tmp
    for d in ("gate", "bpf", "docs"):
        shutil.copytree(os.path.join(root, d), os.path.join(tree, d))
    code, out = run(tree)
    if code != 0:
        failures.append(f"the unchanged copy fails:\n{out}")
    for what, change, want in cases:
        prefix = change(tree)
        code, out = run(tree)
        if code == 0:
            failures.append(f"{what}: passed, should fail")
        elif prefix + want not in out:
            failures.append(f"{what}: the report lacks {prefix + want!r}:\n{out}")
        for path, text in touched.items():
            open(path, "w").write(text)
        touched.clear()

if failures:
    sys.exit("FAIL: " + "\n".join(failures))
print(f"ok: the include-rule test passes on the tree and fails on each of {len(cases)} forbidden includes, links and drawings")
