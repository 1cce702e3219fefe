#!/usr/bin/env python3
"""One name, one meaning (issue 57): no two source files under gate/ in different folders share a
name, so `probe_cost.cpp` or `units.hpp` says which one without its folder. Usage: unique_names_test.py GATE_ROOT

A name is the file name without its extensions (`units.cpp` and `units.hpp` are one name): a .cpp and
its .hpp live side by side, but `main.cpp` in cli/ and `main.go` in truetime/calibtarget/ collide."""
import collections
import os
import sys

root = sys.argv[1]
SOURCE = (".cpp", ".hpp", ".h", ".c", ".go", ".hpp.in", ".cpp.in")
folders = collections.defaultdict(set)
for dirpath, _, files in os.walk(os.path.join(root, "gate")):
    for f in files:
        if f.endswith(SOURCE):
            folders[f.split(".", 1)[0]].add(os.path.relpath(dirpath, root))
clashes = {name: sorted(d) for name, d in folders.items() if len(d) > 1}
if clashes:
    for name, dirs in sorted(clashes.items()):
        print(f"FAIL: {name}.* exists in {len(dirs)} folders: {', '.join(dirs)}; rename all but one "
              f"to a name that says its job (git mv, then fix the includes and CMake lists)")
    sys.exit(1)
print(f"ok: {sum(len(d) for d in folders.values())} source names under gate/, each in one folder")
