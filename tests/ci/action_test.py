#!/usr/bin/env python3
"""The composite action (ci/github/action.yml), its steps run in order as a runner runs them
(tests/ci/action_runner.py), with the real gate on the shop example, a pull_request event, and
GITHUB_API_URL pointing at a local HTTP server that plays GitHub's issue-comment API and records every
request (tests/ci/api_stub.py). The regression path (a 1.3x head caught, the comment posted and then
updated, the base cached for the second push) runs from a release tarball in adopt_test.py; here:

  - two matrix cells of one run upload under distinct default names, while a fixed name taken twice
    in a run is refused (the runner's 409), which is what the unique names prevent;
  - the release path through the version input: download, verify, save at once, restore in the next
    job with no download;
  - a pull request whose head is the same program (a README change): verdict=pass and, with comment:
    on-change, nothing is posted or patched.
Needs root (gate attaches uprobes): exit 77 (skipped) otherwise. Env: GATE_ROOT, GATE_BIN (the gate
to run), GATE_GO."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import action_runner  # noqa: E402
import api_stub  # noqa: E402

ROOT = os.environ.get("GATE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GATE = os.environ.get("GATE_BIN") or os.path.join(ROOT, "build", "gate", "cli", "gate")
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def main():
    if os.geteuid() != 0:
        print("SKIP: action_test needs root (gate attaches uprobes)")
        return 77
    go = os.environ.get("GATE_GO") or shutil.which("go")
    if not go or not os.access(GATE, os.X_OK):
        print(f"FAIL: needs go ({go}) and gate ({GATE})")
        return 1
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="gate-action-test-")
    stub = api_stub.Stub()
    try:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "GITHUB_", "RUNNER_"))}
        env.update(HOME=home, GIT_CONFIG_NOSYSTEM="1", PATH=os.path.dirname(go) + ":" + env.get("PATH", "/usr/bin:/bin"))
        # Go's build cache: the machine's (HOME moves to a scratch folder, which would leave Go a
        # cold cache and every job compiling the runtime again).
        gocache = os.environ.get("GOCACHE") or subprocess.run([go, "env", "GOCACHE"], capture_output=True, text=True).stdout.strip()
        env["GOCACHE"] = gocache if gocache and os.access(gocache, os.W_OK) else os.path.join(tmp, "go-build")

        def git(*a, cwd):
            subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *a], cwd=cwd, env=env,
                           check=True, capture_output=True)

        # The repository: the shop example with a quicker workload on main; origin holds main.
        repo = os.path.join(tmp, "repo")
        shutil.copytree(os.path.join(ROOT, "examples", "shop"), os.path.join(repo, "shop"),
                        ignore=shutil.ignore_patterns("bin"))
        cfg = os.path.join(repo, "shop", "gate.yaml")
        text = open(cfg).read()
        # A shorter workload. All the example's functions stay: gate ab's speed normalization reads
        # the machine's drift from the other functions (with the pricing package alone, Apply 1.3x
        # read 1.28x [1.00, 1.63] here under a load average of 14: inconclusive).
        text = re.sub(r"(?m)^workload: .*$", "workload: bin/shop -orders 500 -q", text)
        open(cfg, "w").write(text)
        open(os.path.join(repo, "shop", ".gitignore"), "w").write("bin/\n")
        open(os.path.join(repo, ".gitignore"), "w").write("gate-report/\n")
        git("init", "-q", "-b", "main", cwd=repo)
        git("add", "-A", cwd=repo)
        git("commit", "-q", "-m", "shop", cwd=repo)
        git("init", "-q", "--bare", os.path.join(tmp, "origin.git"), cwd=tmp)
        git("remote", "add", "origin", os.path.join(tmp, "origin.git"), cwd=repo)
        git("push", "-q", "origin", "main", cwd=repo)
        git("fetch", "-q", "origin", cwd=repo)

        api = stub.url
        state = os.path.join(tmp, "runner-state")

        def job(pr, inputs, job_index, what, run_id, action_repository=""):
            event = os.path.join(tmp, f"event-{pr}.json")
            json.dump({"action": "synchronize", "number": pr, "pull_request": {"number": pr, "base": {"ref": "main"}}},
                      open(event, "w"))
            jenv = dict(env, GITHUB_API_URL=api, GITHUB_REPOSITORY="acme/shop", GITHUB_BASE_REF="main",
                        GITHUB_EVENT_NAME="pull_request", GITHUB_EVENT_PATH=event, GITHUB_SERVER_URL=api,
                        RUNNER_TEMP_PARENT=tmp)
            runner = action_runner.Runner(os.path.join(ROOT, "ci", "github"), repo, jenv, state)
            given = {"config": "shop/gate.yaml", "gate-binary": GATE, "runs": "5", "max-runs": "8", "layouts": "1",
                     "github-token": "test-token"}
            given.update(inputs)
            t = time.time()
            r = runner.run(given, {"token": "gh-default", "job": "perf", "action_ref": "", "action_repository": action_repository,
                                   "repository": "acme/shop"}, {"job-index": job_index}, run_id=run_id)
            print(f"=== {what}: {r['status']} in {time.time() - t:.0f} s; outputs {r['outputs']}; steps "
                  + ", ".join(f"{n}: {s}" for n, s in r["steps"]), flush=True)
            return r

        def requests(method=None):
            return stub.made(method)

        # Matrix cells of one workflow run: each uploads under its own name; a fixed name taken
        # twice in a run is refused, as upload-artifact v4 does (what the default names avoid).
        # (mode: nope stops before measuring, with report-dir set, so the upload step runs.)
        before = len(requests())
        names = []
        for cell in (0, 1):
            r = job(7, {"comment": "never", "mode": "nope"}, cell, f"matrix cell {cell}", "3")
            names.append(r["outputs"]["artifact-name"])
            check(("Upload the reports", "success") in r["steps"], f"matrix cell {cell}: its reports are uploaded as {names[-1]}")
        check(names == ["gate-report-perf-shop-gate.yaml-0", "gate-report-perf-shop-gate.yaml-1"], f"matrix cells get distinct artifact names: {names}")
        for attempt in (1, 2):
            r = job(7, {"artifact-name": "gate-report", "comment": "never", "mode": "nope"}, 0, f"fixed artifact name, upload {attempt}", "3")
        check(("Upload the reports", "failure") in r["steps"], "a second artifact of one fixed name in a run is refused (409)")
        check(len(requests()) == before, "comment: never: no API call")

        # The release path: version v0.1.0 from the action's repository (acme/gate) on the server:
        # the first job downloads and verifies it and saves it in the cache at once; the second job
        # restores it and downloads nothing. (mode: nope: no measuring needed here.)
        rel = os.path.join(tmp, "release", "v0.1.0")
        os.makedirs(os.path.join(rel, "gate-0.1.0-linux-amd64"))
        shutil.copy(GATE, os.path.join(rel, "gate-0.1.0-linux-amd64", "gate"))
        subprocess.run(["tar", "-C", rel, "-czf", os.path.join(rel, "gate-0.1.0-linux-amd64.tar.gz"), "gate-0.1.0-linux-amd64"], check=True)
        subprocess.run("sha256sum gate-0.1.0-linux-amd64.tar.gz > SHA256SUMS", shell=True, cwd=rel, check=True)
        stub.release_dir = os.path.join(tmp, "release")
        got = []
        for attempt in (1, 2):
            before = len(requests())
            r = job(7, {"gate-binary": "", "version": "v0.1.0", "comment": "never", "mode": "nope"}, 0,
                    f"release v0.1.0, job {attempt}", f"r{attempt}", action_repository="acme/gate")
            got.append([q["path"] for q in requests()[before:]])
            check(("Get gate", "success") in r["steps"] and r["outputs"]["host"].startswith("Linux "),
                  f"release job {attempt}: gate got and doctor ran ({r['steps']})")
        check(sorted(got[0]) == ["/acme/gate/releases/download/v0.1.0/SHA256SUMS",
                                 "/acme/gate/releases/download/v0.1.0/gate-0.1.0-linux-amd64.tar.gz"],
              f"release job 1: the tarball and SHA256SUMS downloaded ({got[0]})")
        check(got[1] == [] and os.path.isdir(os.path.join(state, "cache", "gate-v0.1.0-" + os.uname().machine)),
              f"release job 2: restored from the cache saved by job 1, nothing downloaded ({got[1]})")

        # --- 3. PR #8: the head is the same program ---
        git("checkout", "-q", "-b", "docs", "main", cwd=repo)
        open(os.path.join(repo, "README.md"), "w").write("docs only\n")
        git("add", "-A", cwd=repo)
        git("commit", "-q", "-m", "docs", cwd=repo)
        before = len(requests())
        r4 = job(8, {}, 0, "PR #8 (same program)", "4")
        o = r4["outputs"]
        new = requests()[before:]
        check(o["verdict"] == "pass" and r4["status"] == "success", f"same program: verdict pass, job passes ({o['verdict']}, {r4['status']})")
        check(not [q for q in new if q["method"] in ("POST", "PATCH")],
              f"same program, comment: on-change: nothing posted ({[(q['method'], q['path']) for q in new]})")
    finally:
        stub.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"action_test: {time.time() - t0:.0f} s")
    print(f"action_test: {len(failures)} check(s) failed" if failures else "action_test: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
