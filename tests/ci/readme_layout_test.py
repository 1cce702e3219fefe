#!/usr/bin/env python3
"""README.md's layout table matches the tree (issue 31): every path in its first column exists, and
every top-level folder and every folder of gate/ is named there (or a path inside it is). The table
is in the README section whose heading contains "Layout". Usage: readme_layout_test.py GATE_ROOT"""
import os
import re
import sys

root = sys.argv[1]
text = open(os.path.join(root, "README.md")).read()
m = re.search(r"(?ms)^#+ [^\n]*Layout[^\n]*\n(.*?)(?=^#+ |\Z)", text)
if not m:
    sys.exit("FAIL: README.md has no section whose heading contains 'Layout'")
# The first column of the table's rows: `path/` (or a file, `.ci/run`); the rest is description.
named = {t.rstrip("/") for t in re.findall(r"(?m)^\|\s*`([A-Za-z0-9_.\-/]+)`\s*\|", m.group(1))}
missing_on_disk = sorted(p for p in named if not os.path.exists(os.path.join(root, p)))
tracked = lambda p: not p.startswith(".") and p not in ("build", "out") and not p.startswith("build")
want = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and tracked(d)}
want |= {"gate/" + d for d in os.listdir(os.path.join(root, "gate")) if os.path.isdir(os.path.join(root, "gate", d))}
# A folder is named by itself or by a path inside it (`examples/shop/` names examples/).
unnamed = sorted(w for w in want if w not in named and not any(n.startswith(w + "/") for n in named))
if missing_on_disk or unnamed:
    sys.exit(f"FAIL: README layout names folders that do not exist: {missing_on_disk}; "
             f"folders it does not name: {unnamed}")
print(f"ok: the layout names all {len(want)} folders ({len(named)} named)")
