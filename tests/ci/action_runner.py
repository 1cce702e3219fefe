"""Runs a GitHub composite action's steps in order, as the runner does (imported by
action_test.py): each `run:` step through `bash --noprofile --norc -eo pipefail FILE` with a fresh
GITHUB_OUTPUT file, GITHUB_ENV carried to later steps, GITHUB_STEP_SUMMARY, GITHUB_ACTION_PATH and
GITHUB_EVENT_PATH; `${{ }}` expressions in if:, env:, with: and the outputs evaluated against the
inputs (defaults filled in), github.*, runner.*, strategy.* and steps.*; `if:` with the runner's
implicit success() when it names no status function. The `uses:` steps the action calls are played
locally: actions/cache/restore and actions/cache/save against a folder (key -> copy of each path;
restore-keys by prefix),
actions/upload-artifact against a folder, refusing a name already uploaded in the run (v4 does).
Any other `uses:` is an error: the test must be taught it."""
import os
import re
import shutil
import subprocess
import tempfile

GITHUB_BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]


class ActionError(Exception):
    pass


def _tokenize(expr):
    tokens, i = [], 0
    pat = re.compile(r"\s+|'(?:[^']|'')*'|&&|\|\||==|!=|\(|\)|!|[A-Za-z_][\w.-]*(?:\(\))?|\d+")
    while i < len(expr):
        m = pat.match(expr, i)
        if not m:
            raise ActionError(f"cannot parse expression at {expr[i:]!r}")
        if not m.group(0).isspace():
            tokens.append(m.group(0))
        i = m.end()
    return tokens


class Expr:
    """The subset of GitHub's expression language the action uses: literals, context paths, ==,
    !=, !, &&, || (returning operands, as GitHub does), parentheses, success(), failure(), always()."""

    def __init__(self, ctx, status):
        self.ctx, self.status = ctx, status

    def eval(self, expr):
        self.t, self.i = _tokenize(expr), 0
        v = self._or()
        if self.i != len(self.t):
            raise ActionError(f"trailing tokens in {expr!r}")
        return v

    def _peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def _or(self):
        v = self._and()
        while self._peek() == "||":
            self.i += 1
            r = self._and()
            v = v if truthy(v) else r
        return v

    def _and(self):
        v = self._cmp()
        while self._peek() == "&&":
            self.i += 1
            r = self._cmp()
            v = r if truthy(v) else v
        return v

    def _cmp(self):
        v = self._unary()
        while self._peek() in ("==", "!="):
            op = self.t[self.i]
            self.i += 1
            r = self._unary()
            eq = str(v).lower() == str(r).lower() if isinstance(v, str) and isinstance(r, str) else v == r
            v = eq if op == "==" else not eq
        return v

    def _unary(self):
        tok = self._peek()
        self.i += 1
        if tok == "!":
            return not truthy(self._unary())
        if tok == "(":
            v = self._or()
            self.i += 1
            return v
        if tok.startswith("'"):
            return tok[1:-1].replace("''", "'")
        if tok.isdigit():
            return int(tok)
        if tok in ("true", "false"):
            return tok == "true"
        if tok in ("success()", "failure()", "always()", "cancelled()"):
            return {"success()": self.status == "success", "failure()": self.status == "failure",
                    "always()": True, "cancelled()": False}[tok]
        v = self.ctx
        for part in tok.split("."):
            v = v.get(part, "") if isinstance(v, dict) else ""
        return v


def truthy(v):
    return v not in ("", 0, False, None)


def substitute(text, ev):
    def one(m):
        v = ev.eval(m.group(1))
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def parse_outputs(path):
    out, lines = {}, open(path).read().splitlines() if os.path.exists(path) else []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([\w-]+)<<(.+)$", line)
        if m:
            j, val = i + 1, []
            while j < len(lines) and lines[j] != m.group(2):
                val.append(lines[j])
                j += 1
            out[m.group(1)] = "\n".join(val)
            i = j + 1
            continue
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
        i += 1
    return out


class Runner:
    """One job's workspace: `state` holds the cache store and artifact folder across jobs."""

    def __init__(self, action_dir, workspace, env, state_dir, log=print):
        self.action_dir, self.workspace, self.env, self.log = action_dir, workspace, dict(env), log
        self.cache_store = os.path.join(state_dir, "cache")
        self.artifacts = os.path.join(state_dir, "artifacts")
        os.makedirs(self.cache_store, exist_ok=True)
        os.makedirs(self.artifacts, exist_ok=True)

    def run(self, inputs, github, strategy=None, run_id="1"):
        import yaml
        action = yaml.safe_load(open(os.path.join(self.action_dir, "action.yml")))
        vals = {k: v.get("default", "") for k, v in action["inputs"].items()}
        for k, v in action["inputs"].items():
            if v.get("required") and k not in inputs:
                raise ActionError(f"input {k} is required")
        temp = tempfile.mkdtemp(prefix="runner-temp-", dir=self.env.get("RUNNER_TEMP_PARENT"))
        self.run_artifacts = os.path.join(self.artifacts, run_id)  # artifact names are per workflow run
        os.makedirs(self.run_artifacts, exist_ok=True)
        ctx = {"github": github, "runner": {"temp": temp, "arch": "X64", "os": "Linux"},
               "strategy": strategy or {"job-index": 0}, "steps": {}, "inputs": {}}
        # Defaults may be expressions (github.token): evaluate them, then take the given inputs.
        ev0 = Expr(ctx, "success")
        ctx["inputs"] = {k: substitute(v, ev0) for k, v in vals.items()}
        ctx["inputs"].update({k: str(v) for k, v in inputs.items()})
        job_env = dict(self.env, RUNNER_TEMP=temp, GITHUB_ACTION_PATH=self.action_dir, GITHUB_WORKSPACE=self.workspace,
                       GITHUB_JOB=github.get("job", "gate"), GITHUB_RUN_ID=run_id)
        summary = os.path.join(temp, "step_summary.md")
        github_env = os.path.join(temp, "github_env")
        open(summary, "w").close()
        open(github_env, "w").close()
        status, record = "success", []
        for n, step in enumerate(action["runs"]["steps"]):
            name = step.get("name", f"step {n}")
            cond = str(step.get("if", "success()"))
            cond = cond[3:-2] if cond.startswith("${{") else cond
            if not re.search(r"\b(success|failure|always|cancelled)\(\)", cond):
                cond = f"success() && ({cond})"
            ev = Expr(ctx, status)
            sid = step.get("id")
            if not truthy(ev.eval(cond)):
                record.append((name, "skipped"))
                if sid:
                    ctx["steps"][sid] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
                continue
            env = dict(job_env, **parse_outputs(github_env))
            env.update({k: substitute(v, ev) for k, v in (step.get("env") or {}).items()})
            outputs, ok = {}, True
            if "uses" in step:
                with_ = {k: substitute(v, ev) for k, v in (step.get("with") or {}).items()}
                ok, outputs = self._uses(step["uses"], with_, name)
            else:
                out_file = os.path.join(temp, f"output-{n}")
                open(out_file, "w").close()
                env.update(GITHUB_OUTPUT=out_file, GITHUB_STEP_SUMMARY=summary, GITHUB_ENV=github_env)
                script = os.path.join(temp, f"step-{n}.sh")
                with open(script, "w") as f:
                    f.write(substitute(step["run"], ev))
                r = subprocess.run(GITHUB_BASH + [script], cwd=self.workspace, env=env, capture_output=True, text=True)
                self.log(f"--- step '{name}': exit {r.returncode}\n{r.stdout}{r.stderr}".rstrip())
                ok = r.returncode == 0
                outputs = parse_outputs(out_file)
                record.append((name, "success" if ok else f"failure ({r.returncode})"))
            if "uses" in step:
                record.append((name, "success" if ok else "failure"))
            if sid:
                ctx["steps"][sid] = {"outputs": outputs, "outcome": "success" if ok else "failure",
                                     "conclusion": "success" if ok else "failure"}
            if not ok:
                status = "failure"
        ev = Expr(ctx, status)
        outs = {k: substitute(v.get("value", ""), ev) for k, v in (action.get("outputs") or {}).items()}
        return {"status": status, "outputs": outs, "steps": record, "summary": open(summary).read(),
                "temp": temp, "ctx": ctx}

    def _uses(self, uses, with_, name):
        action = uses.split("@")[0]
        if action in ("actions/cache/restore", "actions/cache/save"):
            # `path` may list several paths, one a line; each is kept as <entry>/<i> (a missing one is
            # skipped on save, as actions/cache warns and goes on); restore-keys match by prefix,
            # the newest entry first, and leave cache-hit false.
            paths = [p.strip() for p in with_["path"].splitlines() if p.strip()]
            store = lambda key: os.path.join(self.cache_store, re.sub(r"[^\w.-]", "_", key))
            if action.endswith("restore"):
                src, hit = store(with_["key"]), os.path.isdir(store(with_["key"]))
                if not hit:
                    for prefix in [p.strip() for p in with_.get("restore-keys", "").splitlines() if p.strip()]:
                        cands = [os.path.join(self.cache_store, d) for d in os.listdir(self.cache_store)
                                 if d.startswith(re.sub(r"[^\w.-]", "_", prefix))]
                        if cands:
                            src = max(cands, key=os.path.getmtime)
                            break
                matched = os.path.isdir(src)
                if matched:
                    for i, path in enumerate(paths):
                        if os.path.isdir(os.path.join(src, str(i))):
                            subprocess.run(["mkdir", "-p", path], check=True)
                            subprocess.run(["cp", "-a", os.path.join(src, str(i)) + "/.", path], check=True)
                self.log(f"--- step '{name}' ({uses}): key {with_['key']}: {'hit' if hit else 'restored ' + os.path.basename(src) if matched else 'miss'}")
                return True, {"cache-hit": "true" if hit else "false", "cache-primary-key": with_["key"],
                              "cache-matched-key": os.path.basename(src) if matched else ""}
            src = store(with_["key"])
            if os.path.isdir(src):  # caches are immutable: a second save of a key is refused
                self.log(f"--- step '{name}' ({uses}): key {with_['key']} exists already: not saved")
                return True, {}
            os.makedirs(src)
            for i, path in enumerate(paths):
                if os.path.isdir(path):
                    subprocess.run(["cp", "-a", path, os.path.join(src, str(i))], check=True)
            self.log(f"--- step '{name}' ({uses}): saved {', '.join(paths)} as {with_['key']}")
            return True, {}
        if action == "actions/upload-artifact":
            dest = os.path.join(self.run_artifacts, with_["name"])
            if os.path.exists(dest):
                self.log(f"--- step '{name}' ({uses}): an artifact named {with_['name']} exists already (409 Conflict)")
                return False, {}
            path = os.path.join(self.workspace, with_["path"])
            if os.path.isdir(path):
                shutil.copytree(path, dest)
            else:
                os.makedirs(dest)
            self.log(f"--- step '{name}' ({uses}): uploaded {with_['path']} as {with_['name']}")
            return True, {"artifact-id": "1"}
        raise ActionError(f"the test runner does not know {uses}: teach tests/ci/action_runner.py")
