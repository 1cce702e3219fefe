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

The same table governs CMake's links (issue 57): every `gate_X` a `target_link_libraries` of
gate/FOLDER/CMakeLists.txt names is FOLDER's own library, common's, or a folder FOLDER's rows list
(any of them: a link is per library, so the file and name limits do not apply); and FOLDER links
gate_X only when one of its files includes X/ (a link nothing uses is a dependency the table cannot
see). gate_cli may link everything, as cli may include it.

The arrow diagram (the ```text block of the section) is drawn there only: each of its arrows
(`A -> B, C -> D`: A to B and C, B and C to D; parentheses are comments) is one the table allows,
every folder of gate/ is drawn, the table's arrows have no cycle, and no other Markdown page or
CMakeLists.txt draws an arrow between two folders (they link to the section instead).

Each violation: gate/FOLDER/FILE:LINE includes FOLDER2/X.hpp: FOLDER may include only A, B, ...
or gate/FOLDER/CMakeLists.txt:LINE links gate_X: FOLDER may include only A, B, ...
or gate/FOLDER/CMakeLists.txt:LINE links gate_X, but no file of gate/FOLDER/ includes X/"""
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

# The folders each folder's files include (for the unused-link check).
included = {folder: set() for folder in folders}
for folder in folders:
    for dirpath, _, files in os.walk(os.path.join(gate, folder)):
        for name in files:
            if name.endswith((".cpp", ".hpp", ".h", ".cc")):
                for inc in re.findall(r'(?m)^\s*#\s*include\s+"([^"]+)"', open(os.path.join(dirpath, name), errors="replace").read()):
                    included[folder].add(target_of(folder, inc))


def links_of(cmake_text):
    """(line, target, [(line, linked gate_X name)]) for each target_link_libraries call; comments dropped."""
    text = "\n".join(line.split("#", 1)[0] for line in cmake_text.splitlines())
    out = []
    for m in re.finditer(r"\btarget_link_libraries\s*\(", text):
        end = text.index(")", m.end())
        body_start = m.end()
        words = [(text.count("\n", 0, body_start + w.start()) + 1, w.group(0))
                 for w in re.finditer(r"[A-Za-z0-9_:$<>.-]+", text[body_start:end])]
        if not words:
            continue
        out.append((words[0][0], words[0][1], [(n, w) for n, w in words[1:] if re.fullmatch(r"gate_[a-z]+", w)]))
    return out


links = 0
for folder in folders:
    cmake = os.path.join(gate, folder, "CMakeLists.txt")
    if not os.path.exists(cmake):
        continue
    rel = os.path.relpath(cmake, root)
    allowed = {a.folder for _, arrows in rules[folder] for a in arrows} | {folder, "common"}
    for _, target, linked in links_of(open(cmake).read()):
        for n, lib in linked:
            links += 1
            dep = lib[len("gate_"):]
            if dep not in folders:
                violations.append(f"{rel}:{n} links {lib}, which is no folder's library (gate/{dep}/ does not exist)")
            elif dep not in allowed:
                rule = ", ".join(["common"] + sorted(allowed - {folder, "common", BPF}))
                violations.append(f"{rel}:{n} links {lib}: {folder} may include only {rule}")
            elif dep not in (folder, "common") and dep not in included[folder]:
                violations.append(f"{rel}:{n} links {lib}, but no file of gate/{folder}/ includes {dep}/: "
                                  "drop the link")

# The diagram: its arrows are the table's, every folder is in it, it is drawn nowhere else.
def may_include(a, b):
    return b in (a, "common") or any(x.folder == b for _, arrows in rules.get(a, []) for x in arrows)


block = re.search(r"(?ms)^```text\n(.*?)^```", section.group(1))
diagram = block.group(1) if block else ""
if not block:
    violations.append("docs/development.md's Layout section has no ```text block: the arrow diagram")
drawn = set()
node_names = set(folders) | {BPF}
for line in diagram.splitlines():
    for statement in re.sub(r"\([^()]*\)", "", line).split(";"):
        if "->" not in statement:
            continue
        segments = [[w.strip().rstrip("/") for w in s.split(",") if w.strip()] for s in statement.split("->")]
        for seg in segments:
            for w in seg:
                if w not in node_names:
                    violations.append(f"docs/development.md's diagram: {w!r} in {statement.strip()!r} is not a folder of gate/ (or bpf/)")
                drawn.add(w)
        for left, right in zip(segments, segments[1:]):
            for a in left:
                for b in right:
                    if a in rules and not may_include(a, b):
                        violations.append(f"docs/development.md's diagram: {a} -> {b}, which the 'may include' column does not allow")
for f in folders:
    if f not in drawn:
        violations.append(f"docs/development.md's diagram does not draw gate/{f}/")

# No cycle among the table's arrows (cli, "everything above", is left out: nothing includes it).
graph = {f: {x.folder for _, arrows in rules[f] for x in arrows if x.folder in folders and x.folder not in (f, "common")}
         for f in folders if f != "cli"}
state = {}


def visit(f, path):
    state[f] = "open"
    for g in sorted(graph.get(f, ())):
        if g == "cli":
            continue
        if state.get(g) == "open":
            violations.append("docs/development.md's 'may include' column has a cycle: " + " -> ".join(path[path.index(g):] + [g]))
        elif g not in state:
            visit(g, path + [g])
    state[f] = "done"


for f in sorted(graph):
    if f not in state:
        visit(f, [f])

# Drawn elsewhere: a line of another Markdown page or CMakeLists.txt with an arrow between folders.
arrow = re.compile(r"\b(" + "|".join(sorted(folders)) + r")/? -> (" + "|".join(sorted(node_names)) + r")\b")
layout_span = section.span(1)
for dirpath, dirs, files in os.walk(root):
    dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build") and d != "out"]
    for name in files:
        if not (name.endswith(".md") or name == "CMakeLists.txt"):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        body = open(path, errors="replace").read()
        seen_lines = set()
        for m in arrow.finditer(body):
            if rel == os.path.join("docs", "development.md") and layout_span[0] <= m.start() < layout_span[1]:
                continue
            n = body.count("\n", 0, m.start()) + 1
            if n in seen_lines:
                continue
            seen_lines.add(n)
            violations.append(f"{rel}:{n} draws {m.group(0)!r}: the diagram lives in docs/development.md's Layout only; link to it")

if violations:
    print("\n".join(violations))
    sys.exit(f"FAIL: {len(violations)} includes, links or arrows that docs/development.md's Layout forbids "
             "(fix the code, the CMake link or the drawing, or the table where the dependency is right)")
print(f"ok: {checked} includes and {links} CMake links under gate/ keep docs/development.md's 'may include' column; "
      f"its diagram draws {len(drawn & set(folders))} folders, each arrow allowed, drawn nowhere else")
