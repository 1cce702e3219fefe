#!/usr/bin/env python3
"""The three CI templates as a team adopting gate runs them (issue 56): a fresh git repository that
holds only the shop example and its gate.yaml (no gate source, no ci/ scripts), the release served
from a local folder (the tarball, get-gate.sh and SHA256SUMS that ci/build-static.sh --dist made),
and local stubs of GitHub's and GitLab's APIs (tests/ci/api_stub.py). A pull request makes
pricing.Apply 1.3x slower (the demo's head); each template must:
  - download gate and verify it against SHA256SUMS (the stub's log shows the requests);
  - run gate doctor before any build (doctor's "gate can run here" before the first build);
  - measure, and exit 1 (GitHub: verdict=regression, the job fails; GitLab: the job exits 1 and its
    dotenv says GATE_VERDICT=regression; Jenkins: the stage's sh exits 1, gate-report/gate.env says so);
  - post its comment (GitHub) or merge-request note (GitLab) through the API stub.
Then a second push of the same pull request, the caches kept as each CI keeps them (GitHub's cache
store, GitLab's cache: entries restored into a fresh clone, the Jenkins agent's ~/.cache/gate): the
base is not built again (one Go build, the head's), and the comment or note is updated in place.

  GitHub: the composite action's steps (tests/ci/action_runner.py) from a folder holding only
          ci/github/action.yml and ci/get-gate.sh, as `uses:` fetches the action; its default version
          is the release's; every other script must come from the release tarball.
  GitLab: the `.gate` job's script with its variables, predefined CI variables of a merge request
          pipeline and its cache: entries, in a fresh clone each push.
  Jenkins: the Jenkinsfile's two sh steps (Get gate, Performance gate), with its environment block.

Usage: adopt_test.py github|gitlab|jenkins   (one ctest each). Needs root (gate attaches uprobes) and
the release assets: exit 77 (skipped, loudly) without them. The three share one Go build cache,
kept in /var/tmp/gate-adopt-go-build ($GATE_ADOPT_GOCACHE), so the suite compiles the shop once;
GitLab's job restores it as the default branch's (its cache: fallback key). GATE_ADOPT_FULL=1: the second push
measures as the first, each job starts with empty Go caches (a fresh runner) and the config's own
layouts, and both wall times are printed (tests/bench/results/adopt-second-push.txt, docs/ci.md).
Env: GATE_ROOT, GATE_GO, GATE_STATIC_DIR (default build/static)."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import action_runner  # noqa: E402
import api_stub  # noqa: E402

PART = sys.argv[1] if len(sys.argv) > 1 else ""
ROOT = os.environ.get("GATE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STATIC = os.environ.get("GATE_STATIC_DIR") or os.path.join(ROOT, "build", "static")
FULL = os.environ.get("GATE_ADOPT_FULL") == "1"
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def version():
    return re.search(r"^project\(gate VERSION ([0-9.]+)", open(os.path.join(ROOT, "CMakeLists.txt")).read(), re.M).group(1)


class World:
    """The release, the API stub, the team's repository and a `go` that logs its builds."""

    def __init__(self, tmp, go):
        self.tmp, self.v = tmp, version()
        dist = os.path.join(STATIC, "dist")
        self.download = os.path.join(tmp, "download")
        shutil.copytree(dist, os.path.join(self.download, "v" + self.v))
        self.stub = api_stub.Stub(release_dir=self.download)
        self.release_url = f"{self.stub.url}/acme/gate/releases/download/v{self.v}"
        # `go` that logs every build (the base's and the head's) before running the real one.
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        self.events = os.path.join(tmp, "go-builds")
        with open(os.path.join(bindir, "go"), "w") as f:
            f.write(f'#!/bin/sh\n[ "$1" = build ] && echo "go $*" >> "{self.events}"\nexec "{go}" "$@"\n')
        os.chmod(os.path.join(bindir, "go"), 0o755)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "GITHUB_", "RUNNER_", "CI_", "GO"))}
        self.env.update(HOME=os.path.join(tmp, "home"), GIT_CONFIG_NOSYSTEM="1", GOTOOLCHAIN="local", GOPROXY="off",
                        GOFLAGS="-mod=mod", PATH=bindir + ":" + os.path.dirname(go) + ":" + self.env.get("PATH", "/usr/bin:/bin"))
        os.makedirs(self.env["HOME"])
        # Go's caches: FULL, this test's alone, emptied for each job; else one build cache the three
        # tests share and keep (/var/tmp), so that the suite compiles the shop's packages once. Not the
        # machine's own GOCACHE: the action would copy it whole into its cache.
        if FULL:
            self.env.update(GOCACHE=os.path.join(tmp, "go-build"), GOMODCACHE=os.path.join(tmp, "go-mod"))
        else:
            self.env.update(GOCACHE=os.environ.get("GATE_ADOPT_GOCACHE", "/var/tmp/gate-adopt-go-build"),
                            GOMODCACHE=os.path.join(tmp, "go-mod"))
        # The team's repository: the shop example and its gate.yaml, nothing of gate's.
        self.origin = os.path.join(tmp, "origin.git")
        work = os.path.join(tmp, "team")
        shutil.copytree(os.path.join(ROOT, "examples", "shop"), work, ignore=shutil.ignore_patterns("bin"))
        cfg = os.path.join(work, "gate.yaml")
        text = open(cfg).read()
        # A shorter workload (as ci_action's): all the example's functions stay, for the speed normalization.
        text = re.sub(r"(?m)^workload: .*$", "workload: bin/shop -orders 500 -q", text)
        if not FULL:
            text += "layouts: 1                                      # the suite: one build a side\n"
        open(cfg, "w").write(text)
        open(os.path.join(work, ".gitignore"), "w").write("bin/\ngate-report/\n.gate-cache/\n.gate-go/\ngate.env\n")
        self.git("init", "-q", "-b", "main", cwd=work)
        self.git("add", "-A", cwd=work)
        self.git("commit", "-q", "-m", "the shop", cwd=work)
        self.git("init", "-q", "--bare", self.origin, cwd=tmp)
        self.git("push", "-q", self.origin, "main", cwd=work)
        self.git("checkout", "-q", "-b", "feature", cwd=work)
        open(os.path.join(work, "cmd", "shop", "zz_slow.go"), "w").write(
            'package main\n\nimport "os"\n\n// The change under test: pricing.Apply got 1.3x slower.\n'
            'func init() { os.Setenv("SHOP_SLOW", "example.com/shop/pricing.Apply=1.3") }\n')
        self.git("add", "-A", cwd=work)
        self.git("commit", "-q", "-m", "slower Apply", cwd=work)
        self.git("push", "-q", self.origin, "feature", cwd=work)
        self.work = work
        self.jobs = 0
        self.per_side = self.layouts(go)

    def git(self, *a, cwd):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *a], cwd=cwd,
                              env=self.env, check=True, capture_output=True, text=True).stdout

    def push2(self):
        open(os.path.join(self.work, "NOTES.md"), "w").write("push 2\n")
        self.git("add", "-A", cwd=self.work)
        self.git("commit", "-q", "-m", "push 2", cwd=self.work)
        self.git("push", "-q", self.origin, "feature", cwd=self.work)

    def checkout(self, name):
        """A fresh clone of the pull request's head, as a job's runner makes one."""
        self.jobs += 1
        d = os.path.join(self.tmp, f"{name}-{self.jobs}")
        subprocess.run(["git", "clone", "-q", "--branch", "feature", self.origin, d], env=self.env, check=True)
        if FULL:  # a fresh runner: Go's caches empty but for what the CI cache restores
            for sub in ("go-build", "go-mod"):
                subprocess.run(["rm", "-rf", os.path.join(self.tmp, sub)], check=True)
        return d

    def layouts(self, go):
        """Builds a side: the config's layouts (default 3) with Go >= 1.23 (-randlayout), else 1."""
        m = re.search(r"(?m)^layouts: (\d+)", open(os.path.join(self.work, "gate.yaml")).read())
        minor = re.search(r"go1\.(\d+)", subprocess.run([go, "version"], capture_output=True, text=True).stdout)
        return int(m.group(1)) if m else (3 if minor and int(minor.group(1)) >= 23 else 1)

    def builds(self):
        n = len(open(self.events).read().splitlines()) if os.path.exists(self.events) else 0
        if os.path.exists(self.events):
            os.remove(self.events)
        return n

    def downloaded(self, since):
        return sorted(os.path.basename(q["path"]) for q in self.stub.made("GET", since) if "/releases/download/" in q["path"])


def doctor_first(out, what):
    i, j = out.find("gate can run here"), out.find("building the merge-base")
    check(i >= 0 and (j < 0 or i < j), f"{what}: gate doctor passed before any build ({i} < {j} in the log)")


def github(w):
    # The action as `uses:` fetches it, less everything a release ships: only action.yml and get-gate.sh.
    act = os.path.join(w.tmp, "action", "ci")
    os.makedirs(os.path.join(act, "github"))
    shutil.copy(os.path.join(ROOT, "ci/github/action.yml"), os.path.join(act, "github"))
    shutil.copy(os.path.join(ROOT, "ci/get-gate.sh"), act)
    state = os.path.join(w.tmp, "github-state")
    times = []
    for push in (1, 2):
        ws = w.checkout("github")
        event = os.path.join(w.tmp, "event.json")
        json.dump({"action": "synchronize", "number": 7, "pull_request": {"number": 7, "base": {"ref": "main"}}}, open(event, "w"))
        env = dict(w.env, GITHUB_API_URL=w.stub.url, GITHUB_SERVER_URL=w.stub.url, GITHUB_REPOSITORY="acme/shop",
                   GITHUB_BASE_REF="main", GITHUB_EVENT_NAME="pull_request", GITHUB_EVENT_PATH=event, RUNNER_TEMP_PARENT=w.tmp)
        inputs = {"config": "gate.yaml", "github-token": "test-token", "runs": "5", "max-runs": "8"}
        if push == 2:
            inputs["fail-on-regression"] = "false"
            if not FULL:
                inputs.update(runs="3", **{"max-runs": "3"})
        n, t = len(w.stub.requests), time.time()
        r = action_runner.Runner(os.path.join(act, "github"), ws, env, state).run(
            inputs, {"token": "gh-default", "job": "perf", "action_repository": "acme/gate", "repository": "acme/shop"},
            run_id=str(push))
        times.append(time.time() - t)
        o, steps = r["outputs"], [s for s, _ in r["steps"]]
        print(f"=== GitHub push {push}: {r['status']} in {times[-1]:.0f} s; outputs {o}; steps {r['steps']}", flush=True)
        builds = w.builds()
        if push == 1:
            check(w.downloaded(n) == ["SHA256SUMS", f"gate-{w.v}-linux-amd64.tar.gz"],
                  f"GitHub push 1: the action's default version v{w.v} downloaded from the action's repository's release ({w.downloaded(n)})")
            check(dict(r["steps"]).get("gate doctor") == "success" and steps.index("gate doctor") < steps.index("gate"),
                  "GitHub push 1: the gate doctor step passed, before the step that builds")
            check(o["verdict"] == "regression" and o["exit-code"] == "1" and r["status"] == "failure",
                  f"GitHub push 1: verdict regression, exit-code 1, the job fails ({o['verdict']}, {o['exit-code']}, {r['status']})")
            check(o["base-cached"] == "false" and builds == 2 * w.per_side, f"GitHub push 1: base and head built ({builds} go builds, {w.per_side} a side)")
            posts = w.stub.made("POST", n)
            check(len(posts) == 1 and posts[0]["path"] == "/repos/acme/shop/issues/7/comments" and
                  "<!-- gate-report config=gate.yaml -->" in posts[0]["body"]["body"] and "pricing.Apply" in posts[0]["body"]["body"],
                  f"GitHub push 1: one comment posted on PR #7 through the API, with the marker and the report ({len(posts)})")
        else:
            check(w.downloaded(n) == [], f"GitHub push 2: gate from the cache, nothing downloaded ({w.downloaded(n)})")
            check(o["base-cached"] == "true" and builds == w.per_side, f"GitHub push 2: the base from the cache, only the head built ({builds} go builds)")
            new = [(q["method"], q["path"]) for q in w.stub.requests[n:] if q["path"].startswith("/repos/")]
            check([m for m, _ in new] == ["GET", "PATCH"] and len(w.stub.comments) == 1,
                  f"GitHub push 2: the same comment updated in place ({new})")
            check(r["status"] == "success" and o["verdict"] in ("regression", "pass"), f"GitHub push 2: report only passes ({o['verdict']})")
    return times


def gitlab(w):
    doc = yaml.safe_load(open(os.path.join(ROOT, "ci/gitlab/gate.gitlab-ci.yml")))
    job = doc[".gate"]
    store = os.path.join(w.tmp, "gitlab-cache")
    base_sha = w.git("merge-base", "feature", "main", cwd=w.work).strip()
    if not FULL and os.path.isdir(w.env["GOCACHE"]):
        # The default branch's Go cache, as its pushes leave it (the key the template falls back to).
        seed = os.path.join(store, "gate-go-main", ".gate-go")
        os.makedirs(seed)
        subprocess.run(["cp", "-a", w.env["GOCACHE"], os.path.join(seed, "build")], check=True)
    times = []
    for push in (1, 2):
        proj = w.checkout("gitlab")
        variables = {k: str(v) for k, v in job["variables"].items()}
        variables.update(GATE_CONFIG="gate.yaml", GATE_RELEASE_URL=w.release_url, GATE_GITLAB_TOKEN="gl-token")
        if push == 2:
            variables["GATE_FAIL_ON_REGRESSION"] = "false"
            if not FULL:
                variables.update(GATE_RUNS="3", GATE_MAX_RUNS="3")
        predefined = {"CI_PROJECT_DIR": proj, "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "5",
                      "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_MERGE_REQUEST_DIFF_BASE_SHA": base_sha,
                      "CI_COMMIT_BEFORE_SHA": "0" * 40, "CI_COMMIT_REF_SLUG": "feature", "CI_DEFAULT_BRANCH": "main",
                      "CI_API_V4_URL": w.stub.url + "/api/v4", "CI_PROJECT_ID": "42", "CI_JOB_ID": str(100 + push)}
        env = dict(w.env, **variables, **predefined)
        expand = lambda s: re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), ""), s)
        for c in job["cache"]:  # restored into the fresh clone before the script, as the runner does
            for key in [expand(c["key"])] + [expand(k) for k in c.get("fallback_keys", [])]:
                if os.path.isdir(os.path.join(store, key)):
                    subprocess.run(["cp", "-a", os.path.join(store, key) + "/.", proj], check=True)
                    break
        n, t = len(w.stub.requests), time.time()
        r = subprocess.run(["bash", "-c", "\n".join(job["script"])], cwd=proj, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        times.append(time.time() - t)
        for c in job["cache"]:  # when: always: saved whatever the exit code
            dest = os.path.join(store, expand(c["key"]))
            shutil.rmtree(dest, ignore_errors=True)
            for pattern in c["paths"]:
                for p in glob.glob(os.path.join(proj, pattern)):
                    rel = os.path.relpath(p, proj)
                    os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                    subprocess.run(["cp", "-a", p, os.path.join(dest, rel)], check=True)
        print(f"=== GitLab push {push}: exit {r.returncode} in {times[-1]:.0f} s\n{r.stdout[-3000:]}", flush=True)
        dotenv = open(os.path.join(proj, "gate.env")).read() if os.path.exists(os.path.join(proj, "gate.env")) else ""
        builds = w.builds()
        notes = [q for q in w.stub.requests[n:] if q["path"].startswith("/api/v4/")]
        if push == 1:
            check(w.downloaded(n) == ["SHA256SUMS", "SHA256SUMS", f"gate-{w.v}-linux-amd64.tar.gz", "get-gate.sh"],
                  f"GitLab push 1: the release's get-gate.sh, verified, then the tarball and SHA256SUMS ({w.downloaded(n)})")
            doctor_first(r.stdout, "GitLab push 1")
            check(r.returncode == 1, f"GitLab push 1: the job exits 1 on the 1.3x head ({r.returncode})")
            check("GATE_VERDICT=regression" in dotenv and "GATE_EXIT_CODE=1" in dotenv and
                  re.search(r"GATE_REGRESSIONS=[1-9]", dotenv) is not None, f"GitLab push 1: the dotenv carries the verdict ({dotenv!r})")
            check(os.path.exists(os.path.join(proj, "gate-report", "junit.xml")), "GitLab push 1: gate-report/junit.xml for the test widget")
            check(builds == 2 * w.per_side, f"GitLab push 1: base and head built ({builds} go builds, {w.per_side} a side)")
            check([q["method"] for q in notes] == ["GET", "POST"] and all(q["private_token"] == "gl-token" for q in notes) and
                  "<!-- gate-report config=gate.yaml -->" in notes[-1]["body"]["body"],
                  f"GitLab push 1: one merge-request note posted with GATE_GITLAB_TOKEN ({[(q['method'], q['path']) for q in notes]})")
        else:
            check(f"gate-{w.v}-linux-amd64.tar.gz" not in w.downloaded(n), f"GitLab push 2: gate from the cache ({w.downloaded(n)})")
            check("building only the head" in r.stdout and builds == w.per_side, f"GitLab push 2: the base from the cache, only the head built ({builds} go builds)")
            check([q["method"] for q in notes] == ["GET", "PUT"] and len(w.stub.notes) == 1,
                  f"GitLab push 2: the same note updated in place ({[(q['method'], q['path']) for q in notes]})")
            check(r.returncode == 0 and "GATE_VERDICT=" in dotenv, f"GitLab push 2: report only passes ({r.returncode}, {dotenv!r})")
    return times


def jenkins(w):
    text = open(os.path.join(ROOT, "ci/jenkins/Jenkinsfile")).read()
    block = re.search(r"environment \{(.*?)\n  \}", text, re.S).group(1)
    env = dict(w.env)
    for name, value in re.findall(r"^\s+(GATE_\w+) = '([^']*)'", block, re.M):
        env[name] = value
    env.update(GATE_CONFIG="gate.yaml", GATE_RELEASE_URL=w.release_url, GATE_BASE_REF="origin/main")  # CHANGE_TARGET main

    def sh_step(stage):
        m = re.search(r"stage\('" + re.escape(stage) + r"'\).*?script: '''(.*?)'''", text, re.S)
        # A Groovy ''' string: \\ is one backslash.
        return m.group(1).replace("\\\\", "\\") if m else None

    ws = w.checkout("jenkins")
    n, t = len(w.stub.requests), time.time()
    get = subprocess.run(["sh", "-xe", "-c", sh_step("Get gate")], cwd=ws, env=env, capture_output=True, text=True)
    env["GATE_BIN"] = get.stdout.strip()
    print(f"=== Jenkins, Get gate: exit {get.returncode}: {env['GATE_BIN']}\n{get.stderr[-1500:]}", flush=True)
    check(get.returncode == 0 and env["GATE_BIN"].endswith(f"gate-{w.v}-linux-amd64/gate"),
          f"Jenkins: Get gate gives the release's gate ({env['GATE_BIN']})")
    check(w.downloaded(n) == ["SHA256SUMS", "SHA256SUMS", f"gate-{w.v}-linux-amd64.tar.gz", "get-gate.sh"],
          f"Jenkins: the release's get-gate.sh, verified, then the tarball and SHA256SUMS ({w.downloaded(n)})")
    r = subprocess.run(["sh", "-xe", "-c", sh_step("Performance gate")], cwd=ws, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    took = time.time() - t
    print(f"=== Jenkins, Performance gate: exit {r.returncode} in {took:.0f} s\n{r.stdout[-3000:]}", flush=True)
    doctor_first(r.stdout, "Jenkins")
    genv = open(os.path.join(ws, "gate-report", "gate.env")).read() if os.path.exists(os.path.join(ws, "gate-report", "gate.env")) else ""
    check(r.returncode == 1 and "GATE_VERDICT=regression" in genv and "GATE_EXIT_CODE=1" in genv,
          f"Jenkins: the stage exits 1 on the 1.3x head, gate-report/gate.env says regression ({r.returncode}, {genv!r})")
    check(w.builds() == 2 * w.per_side and glob.glob(os.path.join(env["HOME"], ".cache/gate/base/base-*/binaries.args")),
          "Jenkins: base and head built, the base kept in the agent's cache (~/.cache/gate/base)")
    return [took]


def main():
    if PART not in ("github", "gitlab", "jenkins"):
        print("usage: adopt_test.py github|gitlab|jenkins")
        return 2
    if os.geteuid() != 0:
        print("SKIP: adopt_test needs root (gate attaches uprobes; the GitLab job insists on root)")
        return 77
    v = version()
    if not os.path.exists(os.path.join(STATIC, "dist", f"gate-{v}-linux-amd64.tar.gz")):
        print(f"SKIP: NO RELEASE ASSETS: {STATIC}/dist/gate-{v}-linux-amd64.tar.gz is missing: run bash ci/build-static.sh --dist "
              "(ci/test.sh does); the templates' glue is also tested by ci_templates_run")
        return 77
    go = os.environ.get("GATE_GO") or shutil.which("go")
    if not go:
        print("FAIL: no Go toolchain (GATE_GO)")
        return 1
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix=f"gate-adopt-{PART}-")
    w = None
    try:
        w = World(tmp, go)
        times = {"github": github, "gitlab": gitlab, "jenkins": jenkins}[PART](w)
        print(f"adopt_test {PART}: wall time to the verdict: " + ", ".join(f"push {i + 1} {s:.0f} s" for i, s in enumerate(times))
              + f" ({'full: cold Go caches, the config layouts' if FULL else 'suite settings'}; {subprocess.run(['go', 'version'], env=w.env, capture_output=True, text=True).stdout.strip()})")
    finally:
        if w:
            w.stub.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"adopt_test {PART}: {time.time() - t0:.0f} s; " + (f"{len(failures)} check(s) failed" if failures else "all checks passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
