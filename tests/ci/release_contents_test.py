#!/usr/bin/env python3
"""Every file the templates run is shipped beside gate, where a release puts it: in the release
tarball that ci/build-static.sh --dist packs (gate-VERSION-linux-amd64/ci/) and in the .deb that
cmake/package.cmake installs (/usr/share/gate/ci/). Those are the files the GitHub action calls beside
itself ($GITHUB_ACTION_PATH/../X) and the helper scripts every template runs from beside gate
($GATE_SCRIPTS/X, "$scripts/X": issue 56, nothing from a checkout of gate's source). Issue 41: the
.deb once lacked ci/get-gate.sh. The release also ships get-gate.sh and the GitLab template alone,
listed in SHA256SUMS: what the GitLab and Jenkins templates fetch first. Read from the scripts' text;
when build/static/dist or the .deb exist, their real contents are checked too.
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
for ref in re.findall(r"\$\{?GITHUB_ACTION_PATH\}?/([A-Za-z0-9_./-]+\.(?:sh|py|yml))", action):
    needed.add(os.path.normpath(os.path.join("github", ref)))
# The helper scripts the templates run from beside gate.
for rel in ("ci/github/action.yml", "ci/github/example-matrix-workflow.yml", "ci/gitlab/gate.gitlab-ci.yml",
            "ci/jenkins/Jenkinsfile", "ci/jenkins/Jenkinsfile.shards"):
    for ref in re.findall(r'(?:\$GATE_SCRIPTS|\$scripts|/ci)/([a-z-]+\.(?:sh|py))', read(rel)):
        needed.add(ref)
check_needed = {"pre-merge.sh", "comment.py", "get-gate.sh"}
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


check(check_needed <= needed, f"the templates run {', '.join(sorted(check_needed))} from beside gate ({sorted(needed)})")
for rel in sorted(needed):
    check(os.path.exists(os.path.join(ROOT, "ci", rel)), f"ci/{rel} (run by a template) exists")
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
alone = re.search(r'cp "\$GATE_ROOT/ci/get-gate\.sh" "\$GATE_ROOT/ci/gitlab/gate\.gitlab-ci\.yml" "\$dist/"', dist) is not None
check(alone and re.search(r"sha256sum .*get-gate\.sh gate\.gitlab-ci\.yml > SHA256SUMS", dist) is not None,
      "the release ships get-gate.sh and gate.gitlab-ci.yml alone, in SHA256SUMS")
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
