#!/usr/bin/env python3
"""Runs every example of gate's --help pages and of README.md against the shop example, so that
none can go stale (issue 31).

An example is a line that starts with "  gate " after "Examples:" in a --help page (a line ending
in a backslash continues on the next), or a line that starts with "gate " in a ```sh block of
README.md. Each runs through sh in a scratch directory W set up like a user's checkout:
  gate.yaml          the shop example's config with the smallest settings that still exercise every
                     path: a short workload (-orders 300), 5 runs (the statistics' minimum) and no
                     more (max_runs, suspect_max_runs), one execution a unit (min_unit_seconds: 0);
                     an example's own --runs N above 5 runs with --runs 5 (the line says so)
  examples/shop/     W itself (so "examples/shop/gate.yaml" is gate.yaml too)
  W is a git repository: v1.4.0 (the example), a commit that changes a comment, and HEAD, which
  makes pricing.Apply 1.5x slower (so ab and check may exit 1, and bisect has a commit to find);
  origin/main is HEAD plus baselines/shop.json (for --baseline-ref)
  bin/shop, base/shop   the head build and v1.4.0's build
  base.json, head.json  results of `gate run` on each, for the compare examples
  .gate/history.db      results of v1.4.0 and HEAD~2
  shard1-3.json, partials/   a 3-shard gate ab of base/shop against bin/shop (6 pairs, 2 a shard), for
                        the gate merge examples; the gate ab --shard example itself runs as any other
Examples run two at a time (GATE_EXAMPLES_JOBS), except those that change W's state (record,
check, history add, bisect, git, --force, writing baselines/): each of those runs alone, in the
order the pages give, after every example before it finished.
An example passes when it exits 0 or 1 (1: a verdict, e.g. a regression found by chance) and, when
it pipes into jq, prints a value that is not null. An example that needs a tool this machine does
not have is skipped, loudly, naming the tool. Exit 0 when all ran and passed; 77 when not root.

Environment (set by ctest): GATE_ROOT, GATE_BIN, GATE_GO.
Usage: examples_test.py [--only SUBSTRING] [--keep]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.environ["GATE_ROOT"]
GATE = os.environ["GATE_BIN"]
GO = os.environ.get("GATE_GO", "")

HELP_PAGES = ["", "run", "record", "check", "compare", "ab", "merge", "functions", "calibrate", "doctor", "bisect",
              "history", "history add", "history changes", "history show", "history check", "history trend"]

# Examples that need something W cannot hold: the reason is printed with the skip.
NEEDS_TOOL = {"flamegraph.pl": "flamegraph.pl (Brendan Gregg's FlameGraph scripts) is not installed"}

# Exit codes other than 0/1 that an example may give in W, and why (checked against its output).
EXPECTED_OTHER = {
    "--from-change": (2, "no change point", "a history of two commits has no change point to bisect: the error says so"),
}


# The smallest settings that still run every path of an example (gate.yaml in W).
SMALLEST = {"workload": "bin/shop -orders 300 -q", "runs": "5", "max_runs": "5", "suspect_max_runs": "5",
            "min_unit_seconds": "0"}
MIN_RUNS = 5  # the statistics' minimum (stats::CompareOptions::min_runs)

# Examples that change W (baselines, the history, git, worktrees): each runs alone, in order.
STATEFUL = re.compile(r"^gate (record|check|bisect|history add)\b|--force|\bgit\b|baselines/")


def smallest(cmd):
    """cmd with --runs N and --max-runs N (N > MIN_RUNS) as MIN_RUNS (an example is run, not
    decided: `gate check --max-runs 30` ran 25 s at 30), and a shard's partial written beside the
    set-up's (example-shard2.json for shard2.json): the merge examples read the set-up's partials,
    which hold the same binaries, where an example's shard, run after bin/shop was rebuilt (gate
    run's build step, a bisect), would hold another build id and make gate merge refuse them (as
    it must: a fresh machine's run failed so)."""
    cmd = re.sub(r"--partial-out[ =](\S+)", lambda m: "--partial-out " + os.path.join(
        os.path.dirname(m.group(1)), "example-" + os.path.basename(m.group(1))), cmd)
    cmd = re.sub(r"--max-runs[ =](\d+)", lambda m: f"--max-runs {min(int(m.group(1)), MIN_RUNS)}", cmd)
    return re.sub(r"--runs[ =](\d+)", lambda m: f"--runs {min(int(m.group(1)), MIN_RUNS)}", cmd)


def sh(cmd, cwd, env, timeout=900):
    return subprocess.run(["sh", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def must(cmd, cwd, env):
    r = sh(cmd, cwd, env)
    if r.returncode != 0:
        sys.exit(f"FAIL: set-up step failed ({r.returncode}): {cmd}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
    return r.stdout


def help_examples(env):
    out = []
    for page in HELP_PAGES:
        r = subprocess.run([GATE] + page.split() + ["--help"], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            sys.exit(f"FAIL: gate {page} --help exited {r.returncode}: {r.stderr}")
        lines = r.stdout.splitlines()
        if not any(l.startswith("Example") for l in lines):
            continue
        start = next(i for i, l in enumerate(lines) if l.startswith("Example"))
        i = start + 1
        while i < len(lines):
            line = lines[i]
            if line.startswith("  gate "):
                cmd = line.strip()
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
                out.append((f"gate {page} --help".replace("  ", " "), clean(cmd)))
            i += 1
    return out


def readme_examples():
    out = []
    in_sh = False
    lines = open(os.path.join(ROOT, "README.md")).read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_sh = (not in_sh) and line.strip() in ("```sh", "```bash", "```console")
        elif in_sh and line.startswith("gate "):
            cmd = line.strip()
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
            if "# not run:" not in cmd:
                out.append(("README.md", clean(cmd)))
        i += 1
    return out


def clean(cmd):
    # A trailing "   (explanation)" is prose, not shell.
    return re.sub(r"\s{2,}\([^()]*\)\s*$", "", cmd).strip()


def setup(w, env):
    shutil.copytree(os.path.join(ROOT, "examples", "shop"), w, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("bin", "baselines"))
    cfg = os.path.join(w, "gate.yaml")
    text = open(cfg).read()
    for key, value in SMALLEST.items():
        text, n = re.subn(rf"(?m)^{key}: .*$", f"{key}: {value}", text)
        if n == 0:
            text += f"{key}: {value}\n"
        elif n != 1:
            sys.exit(f"FAIL: gate.yaml sets {key} {n} times")
    open(cfg, "w").write(text)
    os.makedirs(os.path.join(w, "examples"))
    os.symlink(w, os.path.join(w, "examples", "shop"))
    open(os.path.join(w, ".gitignore"), "w").write("bin/\nbase/\nexamples/\n.gate/\n")
    must("git init -q && git add -A && git commit -q -m 'shop example' && git tag v1.4.0", w, env)
    # base/shop and base.json: v1.4.0, as a CI job builds the base commit.
    must("go build -o bin/shop ./cmd/shop && mkdir -p base && cp bin/shop base/shop && "
         "gate run -c gate.yaml -q --no-build --out base.json", w, env)
    # Two commits more; the last makes pricing.Apply 1.5x slower (the example's SHOP_SLOW knob, set
    # in an init function as a code change would), so that bisect has a commit to find.
    must("echo '// a comment' >> cart.go && git commit -qam 'a comment'", w, env)
    open(os.path.join(w, "cmd", "shop", "slow.go"), "w").write(
        'package main\n\nimport "os"\n\nfunc init() { os.Setenv("SHOP_SLOW", "example.com/shop/pricing.Apply=1.5") }\n')
    must("git add -A && git commit -qm 'pricing.Apply 1.5x slower' && go build -o bin/shop ./cmd/shop && "
         "gate run -c gate.yaml -q --no-build --out head.json", w, env)
    # The partials of a CI matrix of 3 shards, for gate merge's examples (shard1.json ... and partials/*.json).
    # --no-build: a matrix measures the binaries built once (docs/sharding.md); the config's build:
    # step per shard rebuilt bin/shop, and a clean clone's shards then held different build ids
    # (gate merge refused them, as it must).
    must("for k in 1 2 3; do gate ab -q -c gate.yaml --no-build --base-binary base/shop --head-binary bin/shop --runs 6 "
         "--shard $k/3 --partial-out shard$k.json || exit 1; done && mkdir -p partials && cp shard?.json partials/",
         w, env)
    # origin/main holds a baseline (for --baseline-ref); the working tree starts without one, so
    # that the record examples record afresh.
    must("gate record -c gate.yaml -q --no-build && git add baselines && git commit -qm baseline && "
         "git update-ref refs/remotes/origin/main HEAD && rm -f baselines/shop.json", w, env)
    # What this gate writes is what baselines/schema.json says a result is.
    import json
    import jsonschema
    schema = json.load(open(os.path.join(ROOT, "baselines", "schema.json")))
    for result in ("base.json", "head.json"):
        jsonschema.validate(json.load(open(os.path.join(w, result))), schema)
    for ref, result in (("v1.4.0", "base.json"), ("HEAD~2", "head.json")):
        must(f"gate history add {result} --commit \"$(git rev-parse {ref})\" "
             f"--time \"$(git log -1 --format=%cI {ref})\" --branch main --db sqlite:.gate/history.db", w, env)

def main():
    if os.geteuid() != 0:
        print("SKIP: examples_test needs root (the examples attach BPF probes)", file=sys.stderr)
        return 77
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    keep = "--keep" in sys.argv
    w = tempfile.mkdtemp(prefix="gate-examples-")
    bindir = os.path.join(w, ".bin")
    os.makedirs(bindir)
    os.symlink(GATE, os.path.join(bindir, "gate"))
    home = os.path.join(w, ".home")
    os.makedirs(home)
    env = dict(os.environ)
    env["PATH"] = bindir + ":" + (os.path.dirname(GO) + ":" if GO else "") + env["PATH"]
    env.update(HOME=home, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="gate test", GIT_AUTHOR_EMAIL="gate@example.com",
               GIT_COMMITTER_NAME="gate test", GIT_COMMITTER_EMAIL="gate@example.com", NO_COLOR="1")
    if not shutil.which("go", path=env["PATH"]):
        sys.exit("FAIL: no Go toolchain (run ci/setup.sh)")
    must("git config --global init.defaultBranch main", w, env)
    t0 = time.time()
    try:
        setup(w, env)
        print(f"set up {w} in {time.time() - t0:.0f} s", flush=True)
        examples, seen = [], set()
        for source, cmd in help_examples(env) + readme_examples():
            if cmd not in seen:
                seen.add(cmd)
                examples.append((source, cmd))
        if only:
            examples = [e for e in examples if only in e[1]]
        failed, skipped, passed = [], [], 0
        jobs = max(1, int(os.environ.get("GATE_EXAMPLES_JOBS", "2")))

        def run_one(n, source, cmd):
            ran = smallest(cmd)
            if ran.startswith("gate record") and "--force" not in ran and "--baseline" not in ran:
                p = os.path.join(w, "baselines", "shop.json")
                if os.path.exists(p):
                    os.remove(p)  # a record example records a first baseline
            t = time.time()
            if ran.startswith("gate bisect") and " HEAD " in ran:
                # A bisect must decide each step: at -orders 300 a pair's noise (~10%) left a step
                # undecided twice at the 10% band; it runs alone, so its config can be longer. And on
                # p50 alone, as history_e2e's bisects do: with another test beside ci_examples, Apply's
                # p99 read 42% noise a pair and a clean step stayed undecided twice (exit 3).
                cfg = os.path.join(w, "gate.yaml")
                saved = open(cfg).read()
                assert "\nquantiles:" not in saved, "the example config now sets quantiles: update this"
                longer = saved.replace("bin/shop -orders 300 -q", "bin/shop -orders 1200 -q")
                open(cfg, "w").write(longer.rstrip("\n") + "\nquantiles: [p50]\n")
                try:
                    r = sh(ran, w, env)
                finally:
                    open(cfg, "w").write(saved)
            else:
                r = sh(ran, w, env)
            out = r.stdout + r.stderr
            ok = r.returncode in (0, 1)
            why = f"exit {r.returncode}"
            for key, (code, must_say, _) in EXPECTED_OTHER.items():
                if key in ran and r.returncode == code and must_say in out:
                    ok = True
            if ok and "| jq" in ran:
                values = [l for l in r.stdout.splitlines() if l.strip()]
                if not values or any(v.strip() == "null" for v in values):
                    ok, why = False, "jq printed no value (or null)"
            as_run = f"   (run as: {ran})" if ran != cmd else ""
            print(f"[{n}/{len(examples)}] {'ok  ' if ok else 'FAIL'} {time.time() - t:5.1f} s  exit {r.returncode}  "
                  f"{cmd}   ({source}){as_run}", flush=True)
            return ok, (source, cmd, why, out[-3000:])

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            pending = []

            def drain():
                nonlocal passed
                for f in pending:
                    ok, failure = f.result()
                    if ok:
                        passed += 1
                    else:
                        failed.append(failure)
                pending.clear()

            for n, (source, cmd) in enumerate(examples, 1):
                tool = next((t for t in NEEDS_TOOL if t in cmd and not shutil.which(t, path=env["PATH"])), None)
                if tool:
                    skipped.append((source, cmd, NEEDS_TOOL[tool]))
                    print(f"[{n}/{len(examples)}] SKIP ({NEEDS_TOOL[tool]}): {cmd}", flush=True)
                    continue
                if STATEFUL.search(cmd):
                    drain()  # everything before it has finished; it runs alone
                    pending.append(pool.submit(run_one, n, source, cmd))
                    drain()
                else:
                    pending.append(pool.submit(run_one, n, source, cmd))
            drain()
        print(f"\n{passed} examples passed, {len(failed)} failed, {len(skipped)} skipped, in {time.time() - t0:.0f} s")
        for source, cmd, reason in skipped:
            print(f"SKIPPED ({reason}): {cmd}   ({source})")
        for source, cmd, why, out in failed:
            print(f"\nFAILED ({why}): {cmd}   ({source})\n{out}")
        return 1 if failed else 0
    finally:
        if keep:
            print(f"kept {w}")
        else:
            shutil.rmtree(w, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
