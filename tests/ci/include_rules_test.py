#!/usr/bin/env python3
"""docs/development.md's "may include" column holds (issue 43): every `#include "..."` of a file
under gate/ names a folder that the table lets the file's folder include. Usage:
include_rules_test.py GATE_ROOT (the tree to check: tests/ci/include_rules_selftest.py runs it on a
copy with a forbidden include added and expects a failure).

How the table is read (the rows whose folder cell names a `gate/X/` folder):
- a folder may always include itself and `common`; `-` means nothing more; `everything above`: any
  folder of gate/.
- `bpf` or `bpf header`: the C headers of bpf/ (`gate_shared.h`), and the skeletons generated from
  bpf/ (`gate.skel.h`), both included without a folder.
- a parenthesised, backticked file name limits the arrow to that file of the including folder:
  `bpf header (`cookie.cpp` only)` lets only cookie.cpp include a bpf header. In the folder cell it
  limits the row to those files: `gate/runner/` (`config.*`) is the rule of runner/config.*, the
  other gate/runner/ row the rule of the rest.
- a parenthesised, backticked name that is not a file limits what the file may use from the folder:
  `report (`band_text`)` passes when every `report::NAME` the including file writes is band_text
  (and `probe (`SiteSpec` only)` when every `probe::NAME` is SiteSpec).
- parentheses without backticks are descriptions: `bpf header (bucketing)`, `baselines (git refs)`.
Includes without a folder that are not bpf headers or skeletons (a file beside the includer, or the
generated `version.hpp`, which is common's) are the folder's own.

Each violation: gate/FOLDER/FILE:LINE includes FOLDER2/X.hpp: FOLDER may include only A, B, ..."""
import fnmatch
import os
import re
import sys

root = os.path.abspath(sys.argv[1])
gate = os.path.join(root, "gate")
folders = sorted(d for d in os.listdir(gate) if os.path.isdir(os.path.join(gate, d)))
BPF = "bpf"

text = open(os.path.join(root, "docs", "development.md")).read()
section = re.search(r"(?ms)^## Layout\n(.*?)(?=^## |\Z)", text)
if not section:
    sys.exit("FAIL: docs/development.md has no '## Layout' section")


class Arrow:
    """One entry of a "may include" cell: a folder, with an optional limit."""

    def __init__(self, folder, files=None, names=None):
        self.folder, self.files, self.names = folder, files, names

    def __str__(self):
        limit = self.files or self.names
        return self.folder + (f" ({', '.join(limit)} only)" if limit else "")


def parse_cell(cell):
    cell = cell.strip()
    if cell in ("", "-"):
        return []
    if cell == "everything above":
        return [Arrow(f) for f in folders] + [Arrow(BPF)]
    arrows = []
    # Split on commas outside parentheses.
    for part in re.split(r",\s*(?![^()]*\))", cell):
        m = re.fullmatch(r"([a-z]+)(?: header)?\s*(?:\((.*)\))?", part.strip())
        if not m:
            sys.exit(f"FAIL: docs/development.md: cannot read the 'may include' entry {part!r}")
        folder, paren = m.group(1), m.group(2) or ""
        ticked = re.findall(r"`([^`]+)`", paren)
        files = [t for t in ticked if re.search(r"\.(cpp|hpp|h|\*)$", t)]
        names = [t for t in ticked if t not in files]
        if folder != BPF and folder not in folders:
            sys.exit(f"FAIL: docs/development.md: 'may include' names {folder!r}, which is not a folder of gate/")
        arrows.append(Arrow(folder, files or None, names or None))
    return arrows


# rules[folder] = [(file patterns or None, [Arrow])]: a row with file patterns first.
rules = {}
for line in section.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 4:
        continue
    m = re.search(r"`gate/([a-z]+)/`\s*(?:\((.*)\))?", cells[1])
    if not m:
        continue
    patterns = re.findall(r"`([^`]+)`", m.group(2) or "") or None
    rules.setdefault(m.group(1), []).append((patterns, parse_cell(cells[3])))
for f in folders:
    if f not in rules:
        sys.exit(f"FAIL: docs/development.md's layout table has no row for gate/{f}/")


def arrows_of(folder, filename):
    rows = sorted(rules[folder], key=lambda r: r[0] is None)
    for patterns, arrows in rows:
        if patterns is None or any(fnmatch.fnmatch(filename, p) for p in patterns):
            return arrows
    return []


def target_of(folder_dir, inc):
    """The folder an include names: its first component, bpf for bpf/'s headers and skeletons."""
    if "/" in inc:
        return inc.split("/")[0]
    if inc.endswith(".skel.h") or os.path.exists(os.path.join(root, "bpf", inc)):
        return BPF
    return None  # beside the includer, or generated (version.hpp): the folder's own


violations = []
checked = 0
for folder in folders:
    for dirpath, _, files in os.walk(os.path.join(gate, folder)):
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".h", ".cc")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            source = open(path, errors="replace").read()
            arrows = arrows_of(folder, name)
            for n, line in enumerate(source.splitlines(), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                checked += 1
                inc = m.group(1)
                target = target_of(folder, inc)
                if target in (None, folder, "common"):
                    continue
                allowed = [a for a in arrows if a.folder == target]
                ok = False
                for a in allowed:
                    if a.files and not any(fnmatch.fnmatch(name, p) for p in a.files):
                        continue
                    if a.names:
                        used = set(re.findall(rf"\b{target}::(\w+)", source))
                        if not used <= set(a.names):
                            continue
                    ok = True
                if not ok:
                    rule = ", ".join(["common"] + [str(a) for a in arrows if a.folder != "common"])
                    violations.append(f"{rel}:{n} includes {inc}: {folder} may include only {rule}")

if violations:
    print("\n".join(violations))
    sys.exit(f"FAIL: {len(violations)} includes that docs/development.md's 'may include' column forbids "
             "(fix the code, or the table where the dependency is right)")
print(f"ok: {checked} includes under gate/ keep docs/development.md's 'may include' column")
