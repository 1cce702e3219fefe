#!/usr/bin/env python3
"""The composite action (ci/github/action.yml) end to end, its steps run in order as a runner runs
them (tests/ci/action_runner.py), with the real gate on the shop example, a pull_request event,
and GITHUB_API_URL pointing at a local HTTP server that plays GitHub's issue-comment API and
records every request.

  1. push 1 of PR #7: the head makes pricing.Apply 1.3x slower (the example's SHOP_SLOW knob, set
     in an init function as a code change would be). verdict=regression, regressions >= 1, the job
     summary holds the report, one comment is POSTed with the hidden marker, the job fails, the
     report is uploaded under a name unique to the job, config and matrix cell;
  2. push 2 of PR #7 (one more commit), fail-on-regression: false: the same comment is PATCHed
     (no second POST), the job passes (report only);
  3. PR #8 whose head is the same program (a README change): verdict=pass and, with comment:
     on-change, nothing is posted or patched.
Also: two matrix cells of one run upload under distinct default names, while a fixed name taken
twice in a run is refused (the runner's 409), which is what the unique names prevent; the release path (version input) through the action: download,
verify, save at once, restore in the next job with no download.
`action_test.py regression` runs 1 and 2, `action_test.py quiet` the rest (two ctests, each within
its time), no argument all. Needs root (gate attaches uprobes): exit 77 (skipped) otherwise.
Env: GATE_ROOT, GATE_BIN (the gate to run), GATE_GO."""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import action_runner  # noqa: E402

PART = sys.argv[1] if len(sys.argv) > 1 else "all"   # regression (1, 2) | quiet (the rest) | all
ROOT = os.environ.get("GATE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GATE = os.environ.get("GATE_BIN") or os.path.join(ROOT, "build", "gate", "cli", "gate")
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


class GitHubAPI(http.server.BaseHTTPRequestHandler):
    """Issue comments: GET .../issues/N/comments, POST .../issues/N/comments,
    PATCH .../issues/comments/ID. Every request is recorded (method, path, token, body)."""
    comments = {}   # id -> {"id", "issue", "body"}
    release_dir = None  # serves /acme/gate/releases/download/... from here (a release's assets)
    requests = []
    next_id = [1000]

    def log_message(self, *a):
        pass

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n)) if n else None

    def _send(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self, method):
        body = self._body() if method in ("POST", "PATCH") else None
        self.requests.append({"method": method, "path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        prefix = "/acme/gate/releases/download/"
        if method == "GET" and self.path.startswith(prefix) and self.release_dir:
            f = os.path.join(self.release_dir, os.path.normpath(self.path[len(prefix):]).lstrip("/."))
            if not os.path.isfile(f):
                return self._send(404, {"message": "Not Found"})
            data = open(f, "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if self.headers.get("Authorization") != "Bearer test-token":
            return self._send(401, {"message": "Bad credentials"})
        m = re.fullmatch(r"/repos/acme/shop/issues/(\d+)/comments(\?.*)?", self.path)
        if m and method == "GET":
            return self._send(200, [c for c in self.comments.values() if c["issue"] == int(m.group(1))])
        if m and method == "POST":
            cid = self.next_id[0]
            self.next_id[0] += 1
            self.comments[cid] = {"id": cid, "issue": int(m.group(1)), "body": body["body"]}
            return self._send(201, self.comments[cid])
        m = re.fullmatch(r"/repos/acme/shop/issues/comments/(\d+)", self.path)
        if m and method == "PATCH" and int(m.group(1)) in self.comments:
            self.comments[int(m.group(1))]["body"] = body["body"]
            return self._send(200, self.comments[int(m.group(1))])
        return self._send(404, {"message": "Not Found"})

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PATCH(self):
        self._handle("PATCH")


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
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), GitHubAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
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

        api = f"http://127.0.0.1:{server.server_port}"
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
            return [q for q in GitHubAPI.requests if method is None or q["method"] == method]

        if PART in ("all", "regression"):
            # --- 1. PR #7, push 1: Apply 1.3x slower ---
            git("checkout", "-q", "-b", "feature", cwd=repo)
            open(os.path.join(repo, "shop", "cmd", "shop", "zz_slow.go"), "w").write(
                'package main\n\nimport "os"\n\n// The change under test: pricing.Apply got 1.3x slower.\n'
                'func init() { os.Setenv("SHOP_SLOW", "example.com/shop/pricing.Apply=1.3") }\n')
            git("add", "-A", cwd=repo)
            git("commit", "-q", "-m", "slower Apply", cwd=repo)
            r1 = job(7, {}, 0, "PR #7 push 1 (Apply 1.3x)", "1")
            o = r1["outputs"]
            check(o["verdict"] == "regression" and o["exit-code"] == "1", f"push 1: verdict regression, exit-code 1 ({o['verdict']}, {o['exit-code']})")
            check(o["regressions"].isdigit() and int(o["regressions"]) >= 1, f"push 1: regressions output >= 1 ({o['regressions']!r})")
            check(o["suspects"].isdigit(), f"push 1: suspects output is a count ({o['suspects']!r})")
            check(r1["status"] == "failure" and r1["steps"][-1] == ("Verdict", "failure (1)"), "push 1: the job fails on the regression")
            check("pricing.Apply" in r1["summary"] and "regression" in r1["summary"], "push 1: the job summary holds the report naming pricing.Apply")
            check(o["host"].startswith("Linux ") and "probe hit" in o["host"], f"push 1: the host output is doctor's host line ({o['host']!r})")
            posts = requests("POST")
            check(len(posts) == 1 and posts[0]["path"] == "/repos/acme/shop/issues/7/comments", f"push 1: one comment POSTed on PR #7 ({len(posts)})")
            check(all(q["auth"] == "Bearer test-token" for q in requests()), "push 1: every API call carries the github-token")
            body = posts[0]["body"]["body"] if posts else ""
            check("<!-- gate-report config=shop/gate.yaml -->" in body and "pricing.Apply" in body, "push 1: the comment has the marker and the report")
            art1 = o["artifact-name"]
            check(art1 == "gate-report-perf-shop-gate.yaml-0" and os.path.isfile(os.path.join(state, "artifacts", "1", art1, "report.html")),
                  f"push 1: reports uploaded as {art1}")

            # --- 2. PR #7, push 2: one more commit; report only ---
            open(os.path.join(repo, "shop", "NOTES.md"), "w").write("push 2\n")
            git("add", "-A", cwd=repo)
            git("commit", "-q", "-m", "push 2", cwd=repo)
            before = len(requests())
            r2 = job(7, {"fail-on-regression": "false"}, 0, "PR #7 push 2 (report only)", "2")
            o = r2["outputs"]
            new = requests()[before:]
            check(o["verdict"] == "regression", f"push 2: verdict regression ({o['verdict']})")
            check(r2["status"] == "success", "push 2: fail-on-regression false: the job passes (report only)")
            first_id = next(iter(GitHubAPI.comments), None)
            check([q["method"] for q in new] == ["GET", "PATCH"] and new[-1]["path"] == f"/repos/acme/shop/issues/comments/{first_id}",
                  f"push 2: the same comment is updated, none added ({[(q['method'], q['path']) for q in new]})")
            check(len(GitHubAPI.comments) == 1, f"push 2: the pull request holds one gate comment ({len(GitHubAPI.comments)})")

        if PART in ("all", "quiet"):
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
            GitHubAPI.release_dir = os.path.join(tmp, "release")
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
        server.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"action_test ({PART}): {time.time() - t0:.0f} s")
    print(f"action_test: {len(failures)} check(s) failed" if failures else "action_test: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
