#!/usr/bin/env python3
"""Runs the shell inside the CI templates, as their CI system would, on a temporary git repository
with a stub gate (it records its arguments and exits as told): check_templates.py reads the
templates, this runs them.

- GitHub (ci/github/action.yml): the `gate` step in mode ab builds the merge-base of HEAD and
  origin/<GITHUB_BASE_REF> and HEAD through ci/pre-merge.sh and calls `gate ab` with both binaries
  and the report options; mode check calls `gate check` with the trusted baseline; exit codes reach
  the step's output, the verdict step fails on 1, 2 and 3, the summary step copies report.md; an
  unknown mode and an ab without a base are exit 2 with a message.
- GitLab (ci/gitlab/gate.gitlab-ci.yml): the `.gate` script in both modes, gate and its scripts from a
  local release (get-gate.sh and a tarball holding the stub gate, with SHA256SUMS); it insists on
  root, as its runner must be: run only as root, and says so loudly otherwise.
- Jenkins (ci/jenkins/Jenkinsfile): the Get gate stage's `sh` (the same local release) and the
  Performance gate stage's `sh` script in both modes.
- The first pull request in check mode (its target has no gate.yaml, so no baseline): every template
  measures it in ab mode against its base instead, and says so.
- Getting gate (ci/get-gate.sh, GitHub's Get gate step): a given binary is used as is; none given,
  it is built once with ci/build-static.sh in a debian:12 container (a stub docker leaves the stub
  gate) and the next job of the same gate source takes it from the cache. Every template runs `gate
  doctor` first and measures nothing when it fails. apt-get, apt, dpkg and cmake are stubs that fail
  and record: no path may run them on the host runner.

The stub stands for gate because gate's part (BPF, root) is tested for real by ci_pre_merge and
the e2e tests; what is tested here is the templates' glue. When not root, a `sudo` that runs its
command as is stands in for sudo (the action calls it for gate when not root).
Usage: run_templates.py GATE_SOURCE_DIR (exit 0 when all pass)."""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

try:
    import yaml
except ImportError:
    print("FAIL: python3-yaml is missing: apt-get install python3-yaml (ci/setup.sh installs it)")
    sys.exit(1)

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_stub  # noqa: E402

failures = []


# How GitHub runs a composite action's `shell: bash` step.
GITHUB_BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def sh(cmd, cwd, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"run_templates: {' '.join(cmd)} failed: {r.stderr}")
    return r.stdout


tmp = tempfile.mkdtemp(prefix="gate-run-templates-")
try:
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "GITHUB_", "CI_", "RUNNER_"))}
    base_env.update(HOME=home, GIT_CONFIG_NOSYSTEM="1")
    git = lambda *a, cwd: sh(["git", *a], cwd, base_env)

    # A repository: main with the app at version 1, the branch `feature` at version 2; origin has main.
    repo = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(repo, "svc"))
    # Commit 0 (tag pre-gate): the service before it adopted gate, no gate.yaml: the first pull request's target.
    with open(os.path.join(repo, "svc", "version.txt"), "w") as f:
        f.write("version 1\n")
    git("init", "-q", "-b", "main", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "before gate", cwd=repo)
    git("tag", "pre-gate", cwd=repo)
    with open(os.path.join(repo, "svc", "gate.yaml"), "w") as f:
        f.write("name: svc\nbuild: mkdir -p bin && cp version.txt bin/app\nbinary: bin/app\nworkload: bin/app\n"
                "functions: [main.main]\n")
    with open(os.path.join(repo, "svc", ".gitignore"), "w") as f:
        f.write("bin/\n")
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write(".gate-cache/\n.gate-go/\ngate.env\ngate-report/\n")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "v1", cwd=repo)
    git("init", "-q", "--bare", os.path.join(tmp, "origin.git"), cwd=tmp)
    git("remote", "add", "origin", os.path.join(tmp, "origin.git"), cwd=repo)
    git("push", "-q", "origin", "main", cwd=repo)
    git("fetch", "-q", "origin", cwd=repo)
    git("checkout", "-q", "-b", "feature", cwd=repo)
    with open(os.path.join(repo, "svc", "version.txt"), "w") as f:
        f.write("version 2\n")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "v2", cwd=repo)
    keep = os.path.join(repo, ".git", "gate-pre-merge")

    # The stub gate: every call's first word in $STUB_CALLS; `doctor` exits $STUB_DOCTOR_EXIT; any
    # other call writes its arguments one a line, a report.md in --report-dir, and exits $STUB_EXIT.
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    # The stub sits where a release's gate does: in gate-V-linux-amd64/, its helper scripts in ci/.
    version = re.search(r"^project\(gate VERSION ([0-9.]+)", open(os.path.join(ROOT, "CMakeLists.txt")).read(), re.M).group(1)
    relname = f"gate-{version}-linux-amd64"
    os.makedirs(os.path.join(tmp, "tree", relname, "ci"))
    for script in ("get-gate.sh", "pre-merge.sh", "comment.py"):
        shutil.copy(os.path.join(ROOT, "ci", script), os.path.join(tmp, "tree", relname, "ci"))
    stub = os.path.join(tmp, "tree", relname, "gate")
    args_file = os.path.join(tmp, "args")
    calls_file = os.path.join(tmp, "calls")
    with open(stub, "w") as f:
        f.write('#!/usr/bin/env bash\necho "${1:-}" >> "$STUB_CALLS"\n'
                'case "${1:-}" in doctor) echo "stub doctor"; echo "  host  Linux stub; probe hit: emulated 1 us, single-stepped 2 us"; exit "${STUB_DOCTOR_EXIT:-0}" ;; --version) echo "gate stub"; exit 0 ;; esac\n'
                'printf "%s\\n" "$@" > "$STUB_ARGS"\nprev=\nfor a in "$@"; do\n'
                '  if [ "$prev" = --report-dir ]; then mkdir -p "$a" && echo "stub report" > "$a/report.md"; fi\n'
                '  prev="$a"\ndone\nexit "${STUB_EXIT:-0}"\n')
    os.chmod(stub, 0o755)
    # A release of the stub (the tarball, get-gate.sh, SHA256SUMS), served as a release's download folder.
    reldir = os.path.join(tmp, "download", "v" + version)
    os.makedirs(reldir)
    with tarfile.open(os.path.join(reldir, relname + ".tar.gz"), "w:gz") as tf:
        tf.add(os.path.join(tmp, "tree", relname), arcname=relname)
    shutil.copy(os.path.join(ROOT, "ci/get-gate.sh"), reldir)
    subprocess.run(f"sha256sum {relname}.tar.gz get-gate.sh > SHA256SUMS", shell=True, cwd=reldir, check=True)
    server = api_stub.Stub(release_dir=os.path.join(tmp, "download"))
    release_url = f"{server.url}/acme/gate/releases/download/v{version}"
    # Package managers that must never run on the host runner: they record the call and fail.
    host_installs = os.path.join(tmp, "host-installs")
    for tool in ("apt-get", "apt", "dpkg", "cmake"):
        with open(os.path.join(bindir, tool), "w") as f:
            f.write(f'#!/usr/bin/env bash\necho "{tool} $*" >> "{host_installs}"\nexit 1\n')
        os.chmod(os.path.join(bindir, tool), 0o755)
    # A container engine: records its arguments and, as ci/build-static.sh would inside debian:12,
    # leaves build/static/gate (the stub) in the source copy mounted at /src.
    docker_log = os.path.join(tmp, "docker-calls")
    with open(os.path.join(bindir, "docker"), "w") as f:
        f.write(f'#!/usr/bin/env bash\necho "$*" >> "{docker_log}"\nprev=\nfor a in "$@"; do\n'
                f'  if [ "$prev" = -v ] && [ "${{a#*:}}" = /src ]; then mkdir -p "${{a%%:*}}/build/static" && '
                f'cp "{stub}" "${{a%%:*}}/build/static/gate"; fi\n  prev="$a"\ndone\n')
    os.chmod(os.path.join(bindir, "docker"), 0o755)
    if os.geteuid() != 0:  # the action runs gate through sudo when not root
        with open(os.path.join(bindir, "sudo"), "w") as f:
            f.write('#!/usr/bin/env bash\nwhile [[ "${1:-}" == -* ]]; do shift; done\nexec "$@"\n')
        os.chmod(os.path.join(bindir, "sudo"), 0o755)
    base_env["PATH"] = bindir + ":" + base_env.get("PATH", "/usr/bin:/bin")
    base_env["STUB_ARGS"] = args_file
    base_env["STUB_CALLS"] = calls_file

    def lines(path):
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().splitlines()

    def measuring_calls():  # gate's calls but --version (get-gate.sh's and the jobs' own check that it runs)
        return [c for c in lines(calls_file) if c != "--version"]

    def stub_args():
        with open(args_file) as f:
            return f.read().splitlines()

    def reset():
        for p in (args_file, calls_file):
            if os.path.exists(p):
                os.remove(p)
        shutil.rmtree(os.path.join(repo, "gate-report"), ignore_errors=True)
        shutil.rmtree(keep, ignore_errors=True)

    def built_from(side):
        with open(os.path.join(keep, side)) as f:
            return f.read().strip()

    def run_script(shell, script, env, what):
        r = subprocess.run(shell, input=script, cwd=repo, env=env, capture_output=True, text=True)
        print(f"--- {what}: exit {r.returncode}\n{r.stdout}{r.stderr}".rstrip(), flush=True)
        return r

    def ab_called_right(what, doctor_first=True):
        a = stub_args()
        want = ["ab", "-c", os.path.join(repo, "svc", "gate.yaml"), "--base-binary", os.path.join(keep, "base"),
                "--head-binary", os.path.join(keep, "head")]
        check(a[:len(want)] == want, f"{what}: gate was not called as `gate ab -c CONFIG --base-binary "
                                     f"BASE --head-binary HEAD`: {a}")
        check(built_from("base") == "version 1" and built_from("head") == "version 2",
              f"{what}: base and head were not built from the merge-base and HEAD")
        check(git("worktree", "list", cwd=repo).count("\n") == 1, f"{what}: a worktree was left behind")
        if doctor_first:
            check(measuring_calls()[:1] == ["doctor"], f"{what}: gate doctor did not run before measuring: {lines(calls_file)}")
        return a

    def called_right(what, mode):
        """GitLab's and Jenkins' gate call: ab through pre-merge.sh, or check with the trusted
        baseline from origin/main; reports to gate-report either way."""
        a = stub_args()
        if mode == "ab":
            ab_called_right(what)
        else:
            check(a[:3] == ["check", "-c", "svc/gate.yaml"] and "--baseline-ref" in a and
                  a[a.index("--baseline-ref") + 1] == "origin/main", f"{what}: gate check not called right: {a}")
            check(measuring_calls()[:1] == ["doctor"], f"{what}: gate doctor did not run before measuring")
        check("--report-dir" in a and a[a.index("--report-dir") + 1] == "gate-report",
              f"{what}: reports not written to gate-report: {a}")

    # --- GitHub: the composite action's steps, with its inputs' defaults ---
    action = yaml.safe_load(open(os.path.join(ROOT, "ci/github/action.yml")))
    steps = {s.get("name"): s for s in action["runs"]["steps"]}
    gate_step, verdict, summary = steps["gate"], steps["Verdict"], steps["Job summary"]
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}

    plan_step = steps["What to build"]

    def step_env(step, vals, plan):
        """A step's env: `${{ inputs.X }}` from vals, `${{ steps.plan.outputs.X }}` from plan."""
        env = {}
        for key, expr in step["env"].items():
            m = re.fullmatch(r"\$\{\{ (inputs|steps\.plan\.outputs)\.([\w-]+) \}\}", str(expr))
            check(m is not None, f"action.yml: the {step['name']} step's env {key} is not an input or a plan output: {expr}")
            if m:
                env[key] = vals[m.group(2)] if m.group(1) == "inputs" else plan.get(m.group(2), "")
        return env

    def github_env(extra_env=None, **inputs):
        """The gate step's environment: the What to build step run first (its outputs feed the gate step)."""
        vals = dict(defaults, config="svc/gate.yaml", **inputs)
        env = dict(base_env, GITHUB_ACTION_PATH=os.path.join(ROOT, "ci/github"), RUNNER_TEMP=tmp,
                   GITHUB_OUTPUT=os.path.join(tmp, "github_output"), GATE_BIN=stub,
                   GATE_SCRIPTS=os.path.join(os.path.dirname(stub), "ci"), **(extra_env or {}))
        open(env["GITHUB_OUTPUT"], "w").close()
        r = run_script(GITHUB_BASH, plan_step["run"], dict(env, **step_env(plan_step, vals, {})), "GitHub, What to build")
        check(r.returncode == 0, f"GitHub: the What to build step failed: {r.stderr}")
        plan = outputs(env)
        open(env["GITHUB_OUTPUT"], "w").close()
        env.update(step_env(gate_step, vals, plan))
        env["PLAN_STDOUT"] = r.stdout
        return env

    def outputs(env):
        with open(env["GITHUB_OUTPUT"]) as f:
            return dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)

    for stub_exit in ("0", "1"):
        reset()
        env = dict(github_env({"GITHUB_BASE_REF": "main"}, runs="7"), STUB_EXIT=stub_exit)
        r = run_script(GITHUB_BASH, gate_step["run"], env, f"GitHub, mode ab, gate exits {stub_exit}")
        check(r.returncode == 0, "GitHub mode ab: the gate step itself must not fail (the verdict step decides)")
        out = outputs(env)
        check(re.fullmatch(r"gate-base-[0-9a-f]{24}", env.get("GATE_BASE_KEY", "")) is not None,
              f"GitHub mode ab: no base cache key from ci/pre-merge.sh --base-key: {env.get('GATE_BASE_KEY')!r}")
        check(out.get("base-cached") == ("true" if stub_exit == "1" else "false"),  # the second job: the first's base
              f"GitHub mode ab: base-cached is {out.get('base-cached')!r} in job {int(stub_exit) + 1}")
        check(out.get("exit-code") == stub_exit, f"GitHub mode ab: exit-code output {out.get('exit-code')}, gate exited {stub_exit}")
        check(out.get("report-dir") == "gate-report", f"GitHub mode ab: report-dir output {out.get('report-dir')}")
        a = ab_called_right("GitHub mode ab", doctor_first=False)  # the action's doctor is a step of its own
        check(a[-6:] == ["--report-dir", "gate-report", "--format", "markdown,html,junit,json", "--runs", "7"],
              f"GitHub mode ab: report and runs options not passed to gate ab: {a}")
    # The summary step copies the report, the verdict step fails as gate did.
    sm = os.path.join(tmp, "summary.md")
    r = run_script(GITHUB_BASH, summary["run"], dict(base_env, GATE_REPORT_DIR="gate-report", GITHUB_STEP_SUMMARY=sm),
                   "GitHub, job summary")
    check(r.returncode == 0 and "stub report" in open(sm).read(), "GitHub: the job summary does not hold report.md")
    r = run_script(GITHUB_BASH, verdict["run"], dict(base_env, GATE_EXIT="1", GATE_ARTIFACT="gate-report", GATE_FAIL_ON_REGRESSION="false"),
                   "GitHub, verdict of exit 1 with fail-on-regression false")
    check(r.returncode == 0 and "::warning title=Performance regression (report only)" in r.stdout,
          "GitHub verdict step: fail-on-regression false must pass the step with a warning")
    for code in ("0", "1", "2", "3", ""):
        r = run_script(GITHUB_BASH, verdict["run"], dict(base_env, GATE_EXIT=code, GATE_ARTIFACT="gate-report", GATE_FAIL_ON_REGRESSION="true"),
                       f"GitHub, verdict of exit '{code}'")
        want = {"0": 0, "1": 1, "2": 2, "3": 3, "": 2}[code]
        check(r.returncode == want, f"GitHub verdict step: gate exit '{code}' became step exit {r.returncode}, not {want}")
        check(code == "0" or "::error title=" in r.stdout, f"GitHub verdict step: exit '{code}' has no ::error")

    reset()
    env = github_env({"GITHUB_BASE_REF": "main"}, mode="check", **{"baseline-ref": "origin/main"})
    run_script(GITHUB_BASH, gate_step["run"], env, "GitHub, mode check")
    a = stub_args()
    check(a[:3] == ["check", "-c", "svc/gate.yaml"] and "--baseline-ref" in a and
          a[a.index("--baseline-ref") + 1] == "origin/main", f"GitHub mode check: gate check not called right: {a}")
    check(outputs(env).get("exit-code") == "0", "GitHub mode check: exit-code output missing")

    # The first pull request in check mode: its target (pre-gate) has no svc/gate.yaml, so no baseline:
    # measured in ab mode against that base instead, with a notice.
    reset()
    env = github_env({"GITHUB_BASE_REF": "main"}, mode="check", **{"baseline-ref": "pre-gate"})
    run_script(GITHUB_BASH, gate_step["run"], env, "GitHub, mode check, the first pull request")
    a = stub_args()
    check("::notice title=gate: the first pull request::" in env["PLAN_STDOUT"] and a[:1] == ["ab"] and
          built_from("base") == "version 1" and built_from("head") == "version 2",
          f"GitHub mode check, first pull request: not measured in ab mode against its base with a notice: {a}")

    for what, inputs, extra_env in (("an unknown mode", {"mode": "abc"}, {"GITHUB_BASE_REF": "main"}),
                                    ("mode ab without a base", {}, {})):
        reset()
        env = github_env(extra_env, **inputs)
        r = run_script(GITHUB_BASH, gate_step["run"], env, f"GitHub, {what}")
        check(outputs(env).get("exit-code") == "2" and "::error title=" in r.stdout and not os.path.exists(args_file),
              f"GitHub, {what}: expected exit-code 2 and an ::error before gate runs")

    # The doctor step comes first: a runner that cannot load BPF gets exit-code 3 and an ::error, and
    # the gate step (if: can-run) does not run; a runner that can gets can-run and the host line.
    doctor_step = steps["gate doctor"]
    check(str(gate_step.get("if", "")).replace(" ", "") == "steps.doctor.outputs.can-run=='true'",
          "GitHub: the gate step must run only when gate doctor passed")
    for doctor_exit in ("3", "0"):
        reset()
        env = dict(github_env(), GATE_BIN=stub, STUB_DOCTOR_EXIT=doctor_exit)
        r = run_script(GITHUB_BASH, doctor_step["run"], env, f"GitHub, gate doctor exits {doctor_exit}")
        out = outputs(env)
        if doctor_exit == "3":
            check(r.returncode == 0 and out.get("exit-code") == "3" and out.get("verdict") == "error" and "can-run" not in out
                  and "::error title=gate cannot run" in r.stdout, f"GitHub: a failed gate doctor is not exit-code 3 with an ::error: {out}")
        else:
            check(out.get("can-run") == "true" and out.get("host", "").startswith("Linux stub"),
                  f"GitHub: a passing gate doctor does not set can-run and the host line: {out}")
        check(not os.path.exists(args_file), "GitHub: the doctor step measured something")

    # --- GitHub: getting gate: the binary given, else built once in a debian:12 container, cached ---
    get_step = steps["Get gate"]

    def get_gate(binary, what):
        env = dict(base_env, GITHUB_ACTION_PATH=os.path.join(ROOT, "ci/github"), RUNNER_TEMP=tmp,
                   GITHUB_ENV=os.path.join(tmp, "github_env"), GATE_BINARY=binary)
        open(env["GITHUB_ENV"], "w").close()
        r = run_script(GITHUB_BASH, get_step["run"], env, what)
        return r, dict(l.split("=", 1) for l in lines(env["GITHUB_ENV"]) if "=" in l).get("GATE_BIN")

    r, got = get_gate(stub, "GitHub, get gate: the gate-binary input (a path)")
    check(r.returncode == 0 and got == stub and not lines(docker_log),
          f"GitHub: a given gate-binary is not used as is (GATE_BIN={got}, container calls {lines(docker_log)})")
    r, _ = get_gate(os.path.join(tmp, "no-such-gate"), "GitHub, get gate: a gate-binary that does not exist")
    check(r.returncode == 2 and "::error title=" in r.stdout, "GitHub: a missing gate-binary is not exit 2 with an ::error")
    src_hash = subprocess.run([os.path.join(ROOT, "ci/get-gate.sh"), "--hash"], capture_output=True, text=True,
                              env=base_env).stdout.strip()
    check(re.fullmatch(r"[0-9a-f]{16}", src_hash) is not None, f"GitHub: no source hash for the cache key: {src_hash!r}")
    r, got = get_gate("", "GitHub, get gate: none given: built in a debian:12 container")
    built = lines(docker_log)
    check(r.returncode == 0 and got == os.path.join(tmp, "gate-cache", f"gate-src-{src_hash}", "gate") and got and os.access(got, os.X_OK)
          and os.access(os.path.join(os.path.dirname(got), "ci", "pre-merge.sh"), os.X_OK),
          f"GitHub: the container build did not leave gate-src-<source hash>/gate and its ci/ scripts in the cache: {got}")
    check(len(built) == 1 and re.search(r"(^| )debian:12 .*ci/build-static\.sh", built[0]) is not None,
          f"GitHub: gate was not built with ci/build-static.sh in a debian:12 container: {built}")
    r, again = get_gate("", "GitHub, get gate: the same gate source again (the cache)")
    check(again == got and len(lines(docker_log)) == 1, "GitHub: the cached gate of the same source was built again")

    # --- Jenkins: the Get gate stage: the release's get-gate.sh, verified, then the release's gate ---
    jf = open(os.path.join(ROOT, "ci/jenkins/Jenkinsfile")).read()

    def jenkins_sh(stage):
        m = re.search(r"stage\('" + re.escape(stage) + r"'\).*?script: '''(.*?)'''", jf, re.S)
        check(m is not None, f"Jenkinsfile: no sh script in the {stage} stage")
        return m.group(1).replace("\\\\", "\\") if m else "exit 99"  # a Groovy ''' string: two backslashes are one

    if os.path.exists(docker_log):
        os.remove(docker_log)
    jenv = dict(base_env, GATE_RELEASE_URL=release_url, GATE_VERSION="v" + version, GATE_CACHE_DIR=os.path.join(tmp, "jenkins-cache"))
    r = run_script(["sh", "-e", "-c", jenkins_sh("Get gate")], "", jenv, "Jenkins, Get gate from the release")
    got = r.stdout.strip()
    check(r.returncode == 0 and got == os.path.join(tmp, "jenkins-cache", relname, "gate") and os.access(got, os.X_OK)
          and os.path.exists(os.path.join(os.path.dirname(got), "ci", "pre-merge.sh")) and not lines(docker_log),
          f"Jenkins: Get gate does not give the release's gate with its ci/ scripts: {got!r}")
    with open(os.path.join(tmp, "download", "v" + version, "get-gate.sh"), "a") as f:
        f.write("# altered\n")
    r = run_script(["sh", "-e", "-c", jenkins_sh("Get gate")], "", dict(jenv, GATE_CACHE_DIR=os.path.join(tmp, "jenkins-cache2")),
                   "Jenkins, Get gate: an altered get-gate.sh")
    check(r.returncode == 4 and "does not match the release's SHA256SUMS" in r.stderr,
          "Jenkins: a get-gate.sh that does not match SHA256SUMS is not refused (exit 4)")
    shutil.copy(os.path.join(ROOT, "ci/get-gate.sh"), os.path.join(tmp, "download", "v" + version, "get-gate.sh"))

    # --- GitLab: the .gate job's script (the job runs as root) ---
    if os.geteuid() != 0:
        print("SKIPPED: NOT ROOT: the GitLab job's script insists on root (its runner runs BPF); CI runs this as "
              "root. The GitHub and Jenkins parts ran.", file=sys.stderr, flush=True)
    else:
        job = yaml.safe_load(open(os.path.join(ROOT, "ci/gitlab/gate.gitlab-ci.yml")))[".gate"]
        script = "\n".join(job["script"])
        variables = {k: str(v) for k, v in job["variables"].items()}
        for mode, stub_exit, baseline_ref in (("ab", "0", ""), ("ab", "1", ""), ("check", "0", ""), ("check", "0", "pre-gate")):
            reset()
            env = {**base_env, **variables, "GATE_MODE": mode, "GATE_CONFIG": "svc/gate.yaml", "GATE_RELEASE_URL": release_url,
                   "GATE_BASELINE_REF": baseline_ref, "CI_PROJECT_DIR": repo, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                   "CI_DEFAULT_BRANCH": "main", "STUB_EXIT": stub_exit}
            what = f"GitLab, GATE_MODE {mode}, gate exits {stub_exit}" + (", the first merge request" if baseline_ref else "")
            r = run_script(["bash", "-eo", "pipefail"], script, env, what)
            check(r.returncode == int(stub_exit), f"{what}: job exit {r.returncode}, gate exited {stub_exit}")
            if baseline_ref:
                check("this merge request is measured in ab mode against its base" in r.stdout, f"{what}: no notice")
                ab_called_right(what)
            else:
                called_right(what, mode)
            dotenv = open(os.path.join(repo, "gate.env")).read() if os.path.exists(os.path.join(repo, "gate.env")) else ""
            check(f"GATE_EXIT_CODE={stub_exit}" in dotenv and ("GATE_VERDICT=regression" in dotenv) == (stub_exit == "1"),
                  f"{what}: the dotenv does not carry the verdict: {dotenv!r}")
            if stub_exit == "1":
                check("PERFORMANCE REGRESSION" in r.stderr, "GitLab: a regression is not announced")

    # --- Jenkins: the Performance gate stage's sh script (sh -e, as Jenkins runs it) ---
    script = jenkins_sh("Performance gate")
    for mode, stub_exit, base_ref in (("ab", "1", "origin/main"), ("check", "0", "origin/main"), ("nope", "0", "origin/main"),
                                      ("check", "0", "pre-gate")):
        reset()
        env = dict(base_env, GATE_MODE=mode, GATE_CONFIG="svc/gate.yaml", GATE_BASE_REF=base_ref, GATE_BIN=stub,
                   STUB_EXIT=stub_exit)
        what = f"Jenkins, GATE_MODE {mode}, gate exits {stub_exit}" + (", the first pull request" if base_ref == "pre-gate" else "")
        r = run_script(["sh", "-e"], script, env, what)
        genv = open(os.path.join(repo, "gate-report", "gate.env")).read() if os.path.exists(os.path.join(repo, "gate-report", "gate.env")) else ""
        if mode == "nope":
            check(r.returncode == 2 and not os.path.exists(args_file) and "GATE_EXIT_CODE=2" in genv, f"{what}: not exit 2")
            continue
        check(r.returncode == int(stub_exit) and f"GATE_EXIT_CODE={stub_exit}" in genv,
              f"{what}: script exit {r.returncode}, gate exited {stub_exit}; gate.env {genv!r}")
        if base_ref == "pre-gate":
            check("this pull request is measured in ab mode against its base" in r.stdout, f"{what}: no notice")
            ab_called_right(what)
        else:
            called_right(what, mode)
    # Neither path ran a package manager or a compiler on the host runner.
    check(not lines(host_installs), f"templates ran on the host: {lines(host_installs)}")
finally:
    server.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"\n{len(failures)} failure(s)")
    sys.exit(1)
print("ci templates run: GitHub (ab, check, the first pull request, verdicts, summary, doctor first, gate given / built in a "
      "container / cached), GitLab" + (" (ab, check, the first merge request, dotenv; gate from a release)" if os.geteuid() == 0 else
                                       " (SKIPPED: not root)") +
      ", Jenkins (ab, check, the first pull request, gate.env; gate from a release, an altered get-gate.sh refused); "
      "no package installed on the host: all passed")
