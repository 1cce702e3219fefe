#!/usr/bin/env python3
"""Checks the CI integrations under ci/: the YAML parses, the keys each CI system needs are there,
the shell inside them is valid bash, exit codes 1, 2 and 3 are told apart, and the Jenkinsfile uses
`junit` and `archiveArtifacts`. Usage: check_templates.py GATE_SOURCE_DIR (exit 0 when all pass)."""
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


# --- GitHub: the composite action ---
rel = "ci/github/action.yml"
action, text = load(rel)
if action:
    for key in ("name", "description", "inputs", "outputs", "runs"):
        check(key in action, f"{rel}: missing top-level key '{key}'")
    inputs = action.get("inputs", {})
    for name in ("config", "baseline", "baseline-ref", "runs", "formats"):
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
    check("--report-dir" in scripts, f"{rel}: reports are not written")
    check("apt-get install" in scripts, f"{rel}: installs nothing")
    check("cmake --build" in scripts, f"{rel}: does not build gate")
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
            check("baseline-ref" in s.get("with", {}), f"{rel}: the example should show baseline-ref")
        checkout = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
        check(checkout and checkout[0].get("with", {}).get("fetch-depth") == 0,
              f"{rel}: checkout needs fetch-depth: 0 for baseline-ref")
        for s in steps:
            if "run" in s:
                bash_syntax(rel, f"step '{s.get('name')}'", s["run"])

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
    tells_exit_codes_apart(rel, body)

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
tells_exit_codes_apart(rel, code)

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
print("ci templates: all checks passed (action.yml, example-workflow.yml, gate.gitlab-ci.yml, Jenkinsfile, pre-merge.sh)")
