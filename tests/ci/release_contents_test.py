#!/usr/bin/env python3
"""Every file the GitHub action calls beside itself ($GITHUB_ACTION_PATH/X, $GITHUB_ACTION_PATH/../X)
is shipped where a release puts the action: in the release tarball that ci/build-static.sh --dist
packs (ci/github/action.yml of gate-VERSION-linux-amd64/) and in the .deb that cmake/package.cmake
installs (/usr/share/gate/ci/github/action.yml). Issue 41: the .deb once lacked ci/get-gate.sh,
which the action calls. The GitLab template's release mode runs the tarball's ci/pre-merge.sh: also
required. Read from the scripts' text (the suite does not build the release assets); when
build/static/dist or the .deb exist, their real contents are checked too.
Usage: release_contents_test.py GATE_SOURCE_DIR"""
import glob
import os
import re
import subprocess
import sys
import tarfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
read = lambda rel: open(os.path.join(ROOT, rel), encoding="utf-8").read()
action = read("ci/github/action.yml")
# Paths relative to ci/, e.g. github/comment.py, get-gate.sh.
needed = set()
for ref in re.findall(r"\$\{?GITHUB_ACTION_PATH\}?/([A-Za-z0-9_./-]+)", action):
    needed.add(os.path.normpath(os.path.join("github", ref)))
needed.add("pre-merge.sh")  # gate.gitlab-ci.yml, release mode: "$src/ci/pre-merge.sh" of the tarball
needed.add("github/action.yml")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok:", what)
    else:
        failed += 1
        print("FAIL:", what)


for rel in sorted(needed):
    check(os.path.exists(os.path.join(ROOT, "ci", rel)), f"ci/{rel} (called by the action or the GitLab template) exists")
# The tarball: build-static.sh --dist copies files into "$dist/$name/ci/" and "$dist/$name/ci/github/".
dist = read("ci/build-static.sh")
packed = set()
for dest, files in ((m.group(2), m.group(1)) for m in re.finditer(r'^\s*cp ((?:"\$GATE_ROOT/ci/[^"]+" )+)"\$dist/\$name/ci/([a-z/]*)"', dist, re.M)):
    for f in re.findall(r'"\$GATE_ROOT/ci/([^"]+)"', files):
        packed.add(os.path.normpath(os.path.join(dest.strip("/"), os.path.basename(f))) if dest.strip("/") else os.path.basename(f))
check(bool(packed), f"ci/build-static.sh --dist packs ci/ files into the tarball ({', '.join(sorted(packed)) or 'none found: update this test'})")
for rel in sorted(needed):
    check(rel in packed, f"the release tarball holds ci/{rel}")
# The .deb: install(FILES|PROGRAMS ... DESTINATION share/gate/ci[/sub]).
pkg = read("cmake/package.cmake")
installed = set()
for m in re.finditer(r"install\((?:FILES|PROGRAMS)\s+(.*?)\s+DESTINATION\s+share/gate/ci/?([a-z/]*)\)", pkg, re.S):
    for f in re.findall(r"\$\{PROJECT_SOURCE_DIR\}/ci/(\S+)", m.group(1)):
        installed.add(os.path.join(m.group(2), os.path.basename(f)) if m.group(2) else os.path.basename(f))
for rel in sorted(needed):
    check(rel in installed, f"the .deb installs /usr/share/gate/ci/{rel}")
# The built assets, when this tree has them (ci/build-static.sh --dist).
for tgz in glob.glob(os.path.join(ROOT, "build/static/dist/gate-*-linux-amd64.tar.gz")):
    names = {n.split("/", 1)[1] for n in tarfile.open(tgz).getnames() if "/" in n}
    for rel in sorted(needed):
        check(f"ci/{rel}" in names, f"{os.path.basename(tgz)} (built) holds ci/{rel}")
for deb in glob.glob(os.path.join(ROOT, "build/static/dist/gate_*_amd64.deb")):
    listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
    for rel in sorted(needed):
        check(f"./usr/share/gate/ci/{rel}" in listing, f"{os.path.basename(deb)} (built) holds /usr/share/gate/ci/{rel}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
