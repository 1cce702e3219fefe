#!/usr/bin/env python3
"""One version (issue 56): CMakeLists.txt's `project(gate VERSION X.Y.Z)` is its one home, and
everything else agrees with it: `gate --version` (GATE_BIN), the release assets ci/build-static.sh
--dist made (gate-X.Y.Z-linux-amd64.tar.gz and the gate inside it, gate_X.Y.Z_amd64.deb, SHA256SUMS;
checked when GATE_STATIC_DIR/dist exists: ci/test.sh makes it), and every copy a file must carry
itself (the files `ci/set-version.sh --files` lists: the action's default `version`, which a commit-SHA
pin relies on; GATE_VERSION of the GitLab template and the Jenkinsfiles; the docs' examples).
Then the check of the check: ci/set-version.sh moves a copy of the tree to another version and the
same rules pass there, and fail once one file is left behind.
Usage: version_test.py GATE_SOURCE_DIR   Env: GATE_BIN, GATE_STATIC_DIR (default build/static)."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
V = r"(\d+\.\d+\.\d+)"
# Where a file names gate's version: the forms the templates and docs use.
CONTEXTS = [rf"gate/ci/github@v{V}", rf"releases/download/v{V}", rf"GATE_VERSION\s*[:=]\s*'?v{V}",
            rf"gate-{V}-linux-amd64", rf"gate_{V}_amd64\.deb", rf"\(gate {V}\)", rf"\bref: v{V}"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    return ok


def project_version(root):
    m = re.search(r"^project\(gate VERSION (\d+\.\d+\.\d+)", open(os.path.join(root, "CMakeLists.txt")).read(), re.M)
    return m.group(1) if m else None


def copies_disagree(root, version):
    """(file, found) for every copy that is not `version`, and files that name no version at all."""
    files = subprocess.run(["bash", os.path.join(root, "ci/set-version.sh"), "--files"], capture_output=True,
                           text=True, check=True).stdout.split()
    bad = []
    for rel in files:
        text = open(os.path.join(root, rel)).read()
        found = [m.group(1) for c in CONTEXTS for m in re.finditer(c, text)]
        if not found:
            bad.append((rel, "no version named: drop it from ci/set-version.sh's list, or the test's forms miss one"))
        bad += [(rel, f) for f in found if f != version]
    default = str(yaml.safe_load(open(os.path.join(root, "ci/github/action.yml")))["inputs"]["version"].get("default", ""))
    if default != "v" + version:
        bad.append(("ci/github/action.yml inputs.version.default", default))
    return files, bad


version = project_version(ROOT)
if not check(version is not None, f"CMakeLists.txt has project(gate VERSION X.Y.Z): {version}"):
    sys.exit(1)
files, bad = copies_disagree(ROOT, version)
check(not bad, f"the {len(files)} files of ci/set-version.sh --files and the action's default say {version}"
      + (f": these do not: {bad}" if bad else ""))

gate = os.environ.get("GATE_BIN")
if gate:
    out = subprocess.run([gate, "--version"], capture_output=True, text=True).stdout.strip()
    check(out.split()[-1:] == [version], f"gate --version prints {version} ({out!r})")
else:
    print("note: GATE_BIN not set: gate --version not checked (ctest sets it)")

static = os.environ.get("GATE_STATIC_DIR") or os.path.join(ROOT, "build", "static")
dist = os.path.join(static, "dist")
if os.path.isdir(dist):
    tarballs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(dist, "gate-*-linux-amd64.tar.gz")))
    debs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(dist, "gate_*_amd64.deb")))
    check(tarballs == [f"gate-{version}-linux-amd64.tar.gz"], f"the release tarball is named for {version}: {tarballs}")
    check(debs == [f"gate_{version}_amd64.deb"], f"the .deb is named for {version}: {debs}")
    sums = open(os.path.join(dist, "SHA256SUMS")).read() if os.path.exists(os.path.join(dist, "SHA256SUMS")) else ""
    check(all(n in sums for n in tarballs + debs + ["get-gate.sh"]), "SHA256SUMS lists the tarball, the .deb and get-gate.sh")
    if tarballs:
        tmp = tempfile.mkdtemp(prefix="gate-version-")
        try:
            subprocess.run(["tar", "-C", tmp, "-xzf", os.path.join(dist, tarballs[0])], check=True)
            inner = os.path.join(tmp, f"gate-{version}-linux-amd64", "gate")
            out = subprocess.run([inner, "--version"], capture_output=True, text=True).stdout.strip() if os.path.exists(inner) else ""
            check(out.split()[-1:] == [version], f"the tarball's gate --version prints {version} ({out!r})")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
else:
    print(f"note: {dist} does not exist (ci/build-static.sh --dist makes it; ci/test.sh runs it): asset names not checked")

# The check of the check, on a copy of the files: set-version moves every copy, one left behind fails.
tmp = tempfile.mkdtemp(prefix="gate-set-version-")
try:
    for rel in ["CMakeLists.txt", "ci/set-version.sh"] + files:
        os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, rel), os.path.join(tmp, rel))
    r = subprocess.run(["bash", os.path.join(tmp, "ci/set-version.sh"), "v9.8.7"], capture_output=True, text=True)
    _, bad = copies_disagree(tmp, "9.8.7")
    check(r.returncode == 0 and project_version(tmp) == "9.8.7" and not bad,
          f"ci/set-version.sh v9.8.7 moves CMakeLists.txt and every copy ({r.stderr.strip() or r.stdout.strip()}; {bad})")
    stale = files[-1]
    shutil.copy(os.path.join(ROOT, stale), os.path.join(tmp, stale))
    _, bad = copies_disagree(tmp, "9.8.7")
    check(any(f == stale for f, _ in bad), f"a copy left at {version} ({stale}) is caught: {bad}")
    r = subprocess.run(["bash", os.path.join(tmp, "ci/set-version.sh"), "1.2"], capture_output=True, text=True)
    check(r.returncode == 2 and "not a version X.Y.Z" in r.stderr, "ci/set-version.sh refuses '1.2' (exit 2, says why)")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
