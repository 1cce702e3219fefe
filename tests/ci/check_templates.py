#!/usr/bin/env python3
"""Checks the CI integrations under ci/: the YAML parses, the keys each CI system needs are there,
the shell inside them is valid bash, exit codes 1, 2 and 3 are told apart, the Jenkinsfile uses
`junit` and `archiveArtifacts`, and the packages the templates install are exactly what CMake
requires. Usage: check_templates.py GATE_SOURCE_DIR (exit 0 when all pass)."""
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("FAIL: python3-yaml is missing: apt-get install python3-yaml (ci/setup.sh installs it)")
    sys.exit(1)

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def load(rel):
    path = os.path.join(ROOT, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return yaml.safe_load(text), text
    except yaml.YAMLError as e:
        failures.append(f"{rel}: not valid YAML: {e}")
        return None, text


def bash_syntax(rel, where, script):
    """bash -n on a script; GitHub ${{ ... }} expressions become a plain word first."""
    script = re.sub(r"\$\{\{.*?\}\}", "EXPR", script)
    r = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
    check(r.returncode == 0, f"{rel}: {where}: bash syntax error: {r.stderr.strip()}")


def tells_exit_codes_apart(rel, text):
    for code in ("1", "2", "3"):
        check(re.search(rf"^\s*{code}\)", text, re.M) or re.search(rf"rc == {code}\b", text),
              f"{rel}: no branch for gate exit code {code}")


# --- packages: what CMake requires vs what the templates install ---
# CMake requirement -> Debian/Ubuntu package (the same name on Debian 12, Ubuntu 24.04 and 26.04).
# None: satisfied by what every template installs anyway (libc's threads).
PACKAGE_OF = {
    "pkg:libbpf": "libbpf-dev", "pkg:libelf": "libelf-dev", "pkg:capstone": "libcapstone-dev",
    "pkg:libdw": "libdw-dev", "find:PkgConfig": "pkg-config", "find:nlohmann_json": "nlohmann-json3-dev",
    "find:simdjson": "libsimdjson-dev",
    "find:yaml-cpp": "libyaml-cpp-dev", "find:CLI11": "libcli11-dev", "find:ZLIB": "zlib1g-dev",
    "find:Threads": None, "prog:clang": "clang", "prog:bpftool": "bpftool",
    "pkg:sqlite3": "libsqlite3-dev", "pkg:libpq": "libpq-dev",
    "find:GTest": "libgtest-dev", "find:benchmark": "libbenchmark-dev",
}
# One DWARF library (libdw): a second one must not come back through a template.
FORBIDDEN = {"libdwarf-dev"}


def cmakelists_under(*dirs):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            if "CMakeLists.txt" in files:
                yield os.path.join(base, "CMakeLists.txt")


def cmake_requirements(paths):
    """REQUIRED pkg_check_modules / find_package / find_program of these CMakeLists files."""
    reqs = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#.*", "", f.read())
        for m in re.finditer(r"pkg_check_modules\(\s*\w+\s+([^)]*)\)", text):
            words = m.group(1).split()
            if "REQUIRED" in words:
                reqs |= {"pkg:" + w for w in words if w not in ("REQUIRED", "IMPORTED_TARGET", "QUIET")}
        for m in re.finditer(r"find_package\(\s*([\w-]+)([^)]*)\)", text):
            if "REQUIRED" in m.group(2).split():
                reqs.add("find:" + m.group(1))
        for m in re.finditer(r"find_program\(\s*\w+\s+NAMES\s+([\w+.-]+)([^)]*)\)", text):
            if "REQUIRED" in m.group(2).split():
                reqs.add("prog:" + m.group(1))
    return reqs


def packages_for(reqs, what):
    out = set()
    for r in sorted(reqs):
        if check(r in PACKAGE_OF, f"{what}: CMake requires {r}, which tests/ci/check_templates.py cannot map to a "
                                  "package: add it to PACKAGE_OF and to the templates' install lists"):
            if PACKAGE_OF[r]:
                out.add(PACKAGE_OF[r])
    return out


# The action builds gate alone (GATE_BUILD_TESTS=OFF); ci/setup.sh also serves the test suite.
build_reqs = cmake_requirements([os.path.join(ROOT, "CMakeLists.txt"), *cmakelists_under("bpf", "gate")])
test_reqs = cmake_requirements(cmakelists_under("tests"))
check("pkg:libdw" in build_reqs, "CMakeLists.txt: libdw (the DWARF library) is not a REQUIRED dependency")
build_pkgs = packages_for(build_reqs, "gate's build")
test_pkgs = packages_for(test_reqs, "the tests' build")


def apt_install_words(script):
    """Package names of every `apt-get install` in a shell script (continuation lines joined)."""
    words = set()
    for m in re.finditer(r"apt-get install((?:[^\n]*\\\n)*[^\n]*)", script):
        for w in m.group(1).replace("\\\n", " ").split():
            if re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", w) and not w.startswith("-"):
                words.add(w)
    return words


with open(os.path.join(ROOT, "ci/setup.sh"), encoding="utf-8") as f:
    setup_text = f.read()


def setup_list(name):
    m = re.search(rf"^{name}=\((.*?)^\)", setup_text, re.M | re.S)
    check(m is not None, f"ci/setup.sh: no {name}=( ... ) list")
    return set(re.sub(r"#.*", "", m.group(1)).split()) if m else set()


setup_build, setup_test = setup_list("build_pkgs"), setup_list("test_pkgs")
# --build-only (what the templates run) installs build_pkgs: exactly CMake's build requirements.
dev = {p for p in setup_build if p.endswith("-dev")}
want_dev = {p for p in build_pkgs if p.endswith("-dev")}
check(dev == want_dev, f"ci/setup.sh: build_pkgs' libraries differ from CMake's requirements: "
                       f"missing {sorted(want_dev - dev)}, not required {sorted(dev - want_dev)}")
check(not build_pkgs - setup_build, f"ci/setup.sh: build_pkgs misses {sorted(build_pkgs - setup_build)}")
check(not test_pkgs - setup_build - setup_test,
      f"ci/setup.sh: misses packages the tests' CMake requires: {sorted(test_pkgs - setup_build - setup_test)}")
check(not (setup_build | setup_test) & FORBIDDEN,
      f"ci/setup.sh: installs {sorted((setup_build | setup_test) & FORBIDDEN)}: gate reads DWARF with libdw only")
check(re.search(r"--build-only\)", setup_text) is not None, "ci/setup.sh: no --build-only option")

# --- GitHub: the composite action ---
rel = "ci/github/action.yml"
action, text = load(rel)
if action:
    for key in ("name", "description", "inputs", "outputs", "runs"):
        check(key in action, f"{rel}: missing top-level key '{key}'")
    inputs = action.get("inputs", {})
    for name in ("config", "mode", "base-ref", "baseline", "baseline-ref", "runs", "formats"):
        check(name in inputs, f"{rel}: missing input '{name}'")
        check("description" in inputs.get(name, {}), f"{rel}: input '{name}' has no description")
    check(inputs.get("config", {}).get("required") is True, f"{rel}: input 'config' must be required")
    check("exit-code" in action.get("outputs", {}), f"{rel}: missing output 'exit-code'")
    runs = action.get("runs", {})
    check(runs.get("using") == "composite", f"{rel}: runs.using must be 'composite'")
    steps = runs.get("steps", [])
    check(len(steps) >= 4, f"{rel}: expected install, build, check, summary, upload and verdict steps")
    uses = [s.get("uses", "") for s in steps]
    check(any(u.startswith("actions/upload-artifact@") for u in uses), f"{rel}: no actions/upload-artifact step")
    scripts = ""
    for i, s in enumerate(steps):
        if "run" in s:
            check("shell" in s, f"{rel}: step {i} ({s.get('name')}) has run: but no shell: (required in composite actions)")
            bash_syntax(rel, f"step '{s.get('name')}'", s["run"])
            scripts += s["run"] + "\n"
    check("GITHUB_STEP_SUMMARY" in scripts and "report.md" in scripts, f"{rel}: the Markdown report does not reach the job summary")
    check(re.search(r"\bcheck -c\b", scripts) is not None, f"{rel}: gate check is not run")
    check(inputs.get("mode", {}).get("default") == "ab", f"{rel}: mode must default to ab (base and head built in the job)")
    check(re.search(r'"\$GATE_SCRIPTS/pre-merge\.sh" -c "\$GATE_CONFIG" --base "\$base" --gate "\$GATE_BIN" "\$\{cache\[@\]\}" --', scripts) is not None,
          f"{rel}: mode ab does not run the release's ci/pre-merge.sh with the config, the base, the gate binary and the base cache")
    # Issue 56: the base's build and Go's caches kept (restore before, save after, keyed by pre-merge.sh --base-key).
    restores = [s for s in steps if s.get("uses", "").startswith("actions/cache/restore@")]
    saves = [s for s in steps if s.get("uses", "").startswith("actions/cache/save@")]
    check(len(restores) == 3 and len(saves) == 3, f"{rel}: gate, the base's build and Go's caches each need a restore and a save step")
    check("--base-key" in scripts and any("steps.plan.outputs.base-key" in str(s.get("with", {}).get("key", "")) for s in restores),
          f"{rel}: the base cache's key must be ci/pre-merge.sh --base-key's")
    check(str(inputs.get("version", {}).get("default", "")).startswith("v"),
          f"{rel}: the version input's default must be the release this file belongs to (ci/set-version.sh writes it)")
    check("--report-dir" in scripts, f"{rel}: reports are not written")
    # The self-contained gate (ci/get-gate.sh): no package installed and nothing compiled on the runner.
    check("apt-get" not in scripts and "setup.sh" not in scripts and "cmake " not in scripts,
          f"{rel}: installs packages or compiles gate on the runner: use ci/get-gate.sh")
    check("get-gate.sh" in scripts, f"{rel}: does not get gate through ci/get-gate.sh")
    check(re.search(r'"\$GATE_BIN" doctor', scripts) is not None, f"{rel}: does not run gate doctor before measuring")
    upload = next((s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")), {})
    check("always()" in str(upload.get("if", "")), f"{rel}: the report upload must run even when gate failed (if: always())")
    verdict = steps[-1] if steps else {}
    check("always()" in str(verdict.get("if", "")), f"{rel}: the last step must decide the verdict with if: always()")
    tells_exit_codes_apart(rel, verdict.get("run", ""))
    check(len(set(re.findall(r"title=([^:]+)::", verdict.get("run", "")))) >= 4,
          f"{rel}: exit codes 1, 2 and 3 need distinct error titles")

rel = "ci/github/example-workflow.yml"
wf, text = load(rel)
if wf:
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    check(on is not None, f"{rel}: no 'on' trigger")
    jobs = wf.get("jobs", {})
    check(len(jobs) >= 1, f"{rel}: no jobs")
    for job_name, job in jobs.items():
        check("runs-on" in job, f"{rel}: job {job_name} has no runs-on")
        steps = job.get("steps", [])
        gate_steps = [s for s in steps if re.search(r"(^\./ci/github$|/ci/github@)", s.get("uses", ""))]
        check(len(gate_steps) == 1, f"{rel}: job {job_name} does not use the gate action")
        for s in gate_steps:
            check("config" in s.get("with", {}), f"{rel}: the gate step sets no config")
            w = s.get("with", {})
            check(w.get("mode", "ab") == "ab" and "base-ref" in w or w.get("mode") == "check" and "baseline-ref" in w,
                  f"{rel}: the example should show mode ab with base-ref (or check with baseline-ref)")
        checkout = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
        check(checkout and checkout[0].get("with", {}).get("fetch-depth") == 0,
              f"{rel}: checkout needs fetch-depth: 0 for baseline-ref")
        for s in steps:
            if "run" in s:
                bash_syntax(rel, f"step '{s.get('name')}'", s["run"])

# --- GitHub: the sharded example (issue 44): build once, N shards, one merge ---
rel = "ci/github/example-matrix-workflow.yml"
wf, text = load(rel)
if wf:
    jobs = wf.get("jobs", {})
    check(set(jobs) == {"build", "shard", "merge"}, f"{rel}: jobs must be build, shard and merge, are {sorted(jobs)}")
    for job_name, job in jobs.items():
        for s in job.get("steps", []):
            if "run" in s:
                bash_syntax(rel, f"job {job_name} step '{s.get('name')}'", s["run"])
    shard_runs = " ".join(s.get("run", "") for s in jobs.get("shard", {}).get("steps", []))
    check("matrix" in jobs.get("shard", {}).get("strategy", {}), f"{rel}: the shard job has no matrix")
    check("--binaries gate-binaries" in shard_runs and "--shard" in shard_runs and "--partial-out" in shard_runs,
          f"{rel}: the shards must measure the build job's binaries with --shard and --partial-out")
    check("--build-only gate-binaries" in " ".join(s.get("run", "") for s in jobs.get("build", {}).get("steps", [])),
          f"{rel}: the build job must build the binaries once (ci/pre-merge.sh --build-only)")
    merge_steps = jobs.get("merge", {}).get("steps", [])
    check(any("gate merge" in s.get("run", "") or " merge -c" in s.get("run", "") for s in merge_steps),
          f"{rel}: the merge job does not run gate merge")
    verdict = merge_steps[-1] if merge_steps else {}
    check("always()" in str(verdict.get("if", "")), f"{rel}: the merge job's last step must decide with if: always()")
    tells_exit_codes_apart(rel, verdict.get("run", ""))

# --- GitLab: the includable template job ---
rel = "ci/gitlab/gate.gitlab-ci.yml"
gl, text = load(rel)
if gl:
    check(".gate" in gl, f"{rel}: no hidden template job '.gate'")
    job = gl.get(".gate", {})
    for key in ("script", "artifacts", "variables", "image"):
        check(key in job, f"{rel}: .gate has no '{key}'")
    art = job.get("artifacts", {})
    check(art.get("when") == "always", f"{rel}: artifacts.when must be 'always' (the reports matter most when gate fails)")
    junit = art.get("reports", {}).get("junit")
    check(junit == "gate-report/junit.xml", f"{rel}: artifacts.reports.junit must be gate-report/junit.xml, is {junit!r}")
    check(any(p.rstrip("/") == "gate-report" for p in art.get("paths", [])), f"{rel}: artifacts.paths must keep gate-report/")
    check("GATE_CONFIG" in job.get("variables", {}), f"{rel}: no GATE_CONFIG variable")
    script = job.get("script", [])
    check(isinstance(script, list) and script, f"{rel}: script must be a list of commands")
    body = "\n".join(script) if isinstance(script, list) else ""
    bash_syntax(rel, ".gate script", body)
    check("--report-dir gate-report" in body, f"{rel}: the script does not write the reports to gate-report")
    check("--baseline-ref" in body, f"{rel}: the script does not use a trusted baseline")
    check(job.get("variables", {}).get("GATE_MODE") == "ab", f"{rel}: GATE_MODE must default to ab")
    check(re.search(r'"\$scripts/pre-merge\.sh" -c "\$GATE_CONFIG" --base "\$base" --gate "\$GATE_BIN" "\$\{cached\[@\]\}" --', body) is not None,
          f"{rel}: GATE_MODE ab does not run the release's ci/pre-merge.sh with the config, the base, the gate binary and the base cache")
    tells_exit_codes_apart(rel, body)
    # The job's image is Debian 12: ci/get-gate.sh --here builds the self-contained gate in it (the
    # job's container, never the runner host) unless GATE_BIN gives one; doctor runs first.
    # (issue 41: an image with Go, git and curl; still Debian 12, for the --here build.)
    check(re.fullmatch(r"golang:[0-9.]+-bookworm", str(job.get("image"))) is not None,
          f"{rel}: .gate image must be a golang:X-bookworm image (Go, git, curl; Debian 12: ci/build-static.sh's system)")
    caches = job.get("cache", [])
    caches = caches if isinstance(caches, list) else [caches]
    check(caches and all(c.get("when") == "always" for c in caches), f"{rel}: every cache needs when: always (a failing job keeps them)")
    cached_paths = " ".join(p for c in caches for p in c.get("paths", []))
    check(".gate-cache/base/" in cached_paths and ".gate-go/" in cached_paths and ".gate-cache/gate-" in cached_paths,
          f"{rel}: the caches must keep gate, the base's build (.gate-cache/base/) and Go's caches (.gate-go/)")
    check(art.get("reports", {}).get("dotenv") == "gate.env", f"{rel}: the verdict must be a dotenv report (gate.env)")
    check("GATE_GITLAB_TOKEN" in job.get("variables", {}) and 'comment.py" gitlab' in body,
          f"{rel}: the merge-request note (ci/comment.py gitlab with GATE_GITLAB_TOKEN) is missing")
    check(any("merge_request_event" in str(r.get("if", "")) for r in job.get("rules", [])), f"{rel}: no rules: for merge requests")
    for knob in ("GATE_RUNS", "GATE_MAX_RUNS", "GATE_FORMATS", "GATE_LAYOUTS", "GATE_ARGS", "GATE_FAIL_ON_REGRESSION", "GATE_VERSION"):
        check(knob in job.get("variables", {}), f"{rel}: no {knob} variable (parity with the action's inputs)")
    check(re.search(r'for f in get-gate\.sh SHA256SUMS; do\s+curl [^\n]*"\$url/\$f"', body) is not None and "sha256sum -c" in body and 'bash "$cache/get-gate.sh"' in body,
          f"{rel}: does not get gate through the release's get-gate.sh, verified against SHA256SUMS")
    check("setup.sh" not in body and not {w for w in apt_install_words(body) if w.endswith("-dev")},
          f"{rel}: installs build packages beside ci/get-gate.sh")
    check(re.search(r'"\$GATE_BIN" doctor', body) is not None, f"{rel}: does not run gate doctor before measuring")

# --- Jenkins ---
rel = "ci/jenkins/Jenkinsfile"
with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
    jf = f.read()
code = re.sub(r"//.*", "", jf)
check(code.count("{") == code.count("}"), f"{rel}: unbalanced braces")
check(re.search(r"^pipeline\s*\{", code, re.M) is not None, f"{rel}: not a declarative pipeline")
check(re.search(r"stage\('Performance gate'\)", code) is not None, f"{rel}: no 'Performance gate' stage")
check(re.search(r"\bjunit\s+(testResults:\s*)?'gate-report/junit\.xml'", code) is not None, f"{rel}: no junit step for gate-report/junit.xml")
check(re.search(r"\barchiveArtifacts\s+(artifacts:\s*)?'gate-report/\*\*'", code) is not None, f"{rel}: no archiveArtifacts of gate-report")
check(re.search(r"post\s*\{\s*always\s*\{", code) is not None, f"{rel}: reports must be published in post {{ always {{ }} }}")
check("returnStatus: true" in code, f"{rel}: gate's exit code is not captured (returnStatus: true)")
check("--report-dir gate-report" in code and "--baseline-ref" in code, f"{rel}: gate check does not write reports or use a trusted baseline")
check(re.search(r"GATE_MODE\s*=\s*'ab'", code) is not None, f"{rel}: GATE_MODE must default to 'ab'")
check(re.search(r'"\$scripts/pre-merge\.sh" -c "\$GATE_CONFIG" --base "\$base" --gate "\$GATE_BIN"', code) is not None,
      f"{rel}: GATE_MODE ab does not run the release's ci/pre-merge.sh with the config, the base and the gate binary")
check("get-gate.sh" in code and "setup.sh" not in code and "apt-get" not in code,
      f"{rel}: must get gate through ci/get-gate.sh, not install packages or compile it on the agent")
check(re.search(r'"\$GATE_BIN" doctor', code) is not None, f"{rel}: does not run gate doctor before measuring")
# issue 41: doctor with the measurement's privilege (root, else sudo, as pre-merge.sh runs gate ab),
# and the action's knobs.
check(re.search(r'as_root "\$GATE_BIN" doctor', code) is not None and "sudo" in code,
      f"{rel}: gate doctor must run with the measurement's privilege (root, else sudo)")
for knob in ("GATE_RUNS", "GATE_MAX_RUNS", "GATE_FORMATS", "GATE_LAYOUTS", "GATE_ARGS", "GATE_FAIL_ON_REGRESSION", "GATE_VERSION"):
    check(re.search(knob + r"\s*=", code) is not None, f"{rel}: no {knob} (parity with the action's inputs)")
tells_exit_codes_apart(rel, code)

# --- Jenkins, sharded (issue 44): a parallel stage of shards, then gate merge ---
rel = "ci/jenkins/Jenkinsfile.shards"
with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
    code = re.sub(r"//.*", "", f.read())
check(code.count("{") == code.count("}"), f"{rel}: unbalanced braces")
check(re.search(r"^pipeline\s*\{", code, re.M) is not None, f"{rel}: not a declarative pipeline")
check(re.search(r"\bparallel\s+shards\b", code) is not None, f"{rel}: the shards do not run in a parallel step")
check("--build-only" in code and "--binaries gate-binaries" in code and "--shard" in code and "--partial-out" in code,
      f"{rel}: build once (--build-only), shards measure those binaries (--binaries, --shard, --partial-out)")
check(re.search(r"gate merge -c", code) is not None, f"{rel}: no gate merge")
check(re.search(r"\bjunit\s+(testResults:\s*)?'gate-report/junit\.xml'", code) is not None, f"{rel}: no junit step")
tells_exit_codes_apart(rel, code)

# --- Issue 56: every template runs from a team's repository, at parity ---
def code_of(rel):
    text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
    return "\n".join(re.sub(r"(^|\s)(#|//).*$", "", line) for line in text.splitlines())


templates = ["ci/github/action.yml", "ci/github/example-workflow.yml", "ci/github/example-matrix-workflow.yml",
             "ci/gitlab/gate.gitlab-ci.yml", "ci/jenkins/Jenkinsfile", "ci/jenkins/Jenkinsfile.shards"]
for rel in templates:
    code = code_of(rel)
    # Nothing of gate's source: no ci/ script run from the workspace, no GATE_SRC or GATE_SOURCE checkout.
    check(re.search(r"""(^|[\s"'(])\.?/?ci/(get-gate|pre-merge|comment|github/comment)\.(sh|py)""", code) is None and
          not re.search(r"GATE_SRC\b|GATE_SOURCE", code),
          f"{rel}: runs a ci/ script from the workspace (a checkout of gate's source): take it from the release, beside gate")
    # Doctor before any build.
    builds = [m.start() for m in re.finditer(r'pre-merge\.sh"? -c', code)]
    i = code.find(" doctor")
    if re.search(r"uses: (\./ci/github|\S+/ci/github@)", code):
        pass  # the action runs doctor as its own step, before its build step (run_templates.py checks it)
    else:
        check(i >= 0 and all(i < j for j in builds), f"{rel}: gate doctor must run before any build (doctor at {i}, builds at {builds})")
    # Third-party actions pinned by commit SHA, the tag in a comment.
    for line in open(os.path.join(ROOT, rel), encoding="utf-8"):
        m = re.match(r"\s*(?:-\s*)?uses:\s*(\S+)(.*)", line)
        if m and m.group(1).startswith("actions/"):
            check(re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", m.group(1)) is not None and re.search(r"#\s*v\d+\.\d+\.\d+", m.group(2)),
                  f"{rel}: {m.group(1)} is not pinned by commit SHA with its tag in a comment")
for rel in ("ci/jenkins/Jenkinsfile", "ci/jenkins/Jenkinsfile.shards"):
    code = code_of(rel)
    check("GATE_FAIL_ON_REGRESSION" in code and "unstable(" in code, f"{rel}: no report-only mode (GATE_FAIL_ON_REGRESSION, unstable)")
    check("currentBuild.description" in code and "gate-report/gate.env" in code,
          f"{rel}: the verdict must be the build's description and environment variables (gate-report/gate.env)")

# --- the pre-merge script ---
rel = "ci/pre-merge.sh"
path = os.path.join(ROOT, rel)
check(os.access(path, os.X_OK), f"{rel}: not executable (a git hook must be)")
with open(path, encoding="utf-8") as f:
    bash_syntax(rel, "script", f.read())

if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print("ci templates: all checks passed (action.yml, example-workflow.yml, example-matrix-workflow.yml, gate.gitlab-ci.yml, Jenkinsfile, Jenkinsfile.shards, pre-merge.sh)")
