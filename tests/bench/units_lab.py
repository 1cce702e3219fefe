#!/usr/bin/python3
"""The units and layouts lab (issue 29): how well `gate ab` decides on a short workload, and
whether a change of code layout alone reads as a change.

Each trial is one real `gate ab` session on a lab workload (tests/go/shortwork, ~0.3 s a run, or
tests/go/layoutsens), with the workload's own gate.yaml (band 5% at p50) and the gate binary given.
Scenarios: A/A (a no-op change: the same source on both sides) and A/B with one function slowed
1.1x, 1.25x and 1.35x. The slowdown is compiled into the head (-ldflags "-X main.slow=FUNC=F"
multiplies that function's work), so the head is another binary run by the same command.
Scenarios take turns trial by trial, so that each meets the machine's load alike.

Layouts (Go >= 1.23, -ldflags=-randlayout=SEED):
  --layouts 0  (default) plain builds; an A/A's head is a copy of its base (identical binary).
  --matched-seeds  with --layouts K: the head's builds take the base's seeds (pair i: one seed).
  --code-change    every head also built with -tags gatenoop (two added functions: the same seed no
                   longer gives the same layout).
  --slow-tag TAG   the slowed head built with -tags TAG (layoutsens: gateslowcode, dispatch 1.25x
                   in its own code) instead of -X main.slow (a change of data only).
  --layouts K  K builds per side with random function order, new seeds every trial and side, so
               that a no-op change differs in layout only. K = 1 is "one layout per side" (what a
               CI job building base and head does, with any gate); K > 1 passes --base-binary and
               --head-binary K times each (a gate with layout variants, issue 29 part 2).

Per scenario it reports: function-verdicts of the functions not slowed (unchanged share of the
decidable ones, i.e. all but "insufficient data"; inconclusive; false regressions and suspects;
improvements), trials with any false flag, the slowed function's catch rate (regression, and
suspect), pairs of runs and wall time per trial. Reads gate's JSON report (--report-dir, report.json).

Usage (root):
  tests/bench/units_lab.py --gate build/gate/cli/gate --trials 'A/A=5,1.1x=5,1.25x=5' --slowdowns 1.1,1.25
  tests/bench/units_lab.py --workload layoutsens --layouts 1 --trials A/A=10 --slowdowns ''
  tests/bench/units_lab.py --workload layoutsens --layouts 3 --trials 'A/A=10,1.25x=10' --slowdowns 1.25
  ... --set 'min_unit_seconds: 0'     (a config override: top-level key replaced in a temp copy)
  tests/bench/units_lab.py --suite after --gate GATE   (the "after" measurements, one command; ~25 min)
  tests/bench/units_lab.py --gate OLD --gate NEW --trials A/A=5 --slowdowns ''   (two gates, trials in turns)
Figures, not pass/fail. --keep DIR keeps every trial's reports.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKLOADS = {  # name: (source dir, function slowed by default)
    "shortwork": ("tests/go/shortwork", "main.hashLoop"),
    "layoutsens": ("tests/go/layoutsens", "main.dispatch"),
}
FLAGS = ("regression", "suspect", "improvement")  # verdicts that flag a function


def fail(what, cause, fix):
    sys.exit(f"units_lab: {what}: {cause}; {fix}")


def go_env():
    env = dict(os.environ, GOTOOLCHAIN="local", GOPROXY="off", GOFLAGS="-mod=mod")
    env.setdefault("HOME", "/root")
    env.setdefault("GOCACHE", os.path.join(env["HOME"], ".cache", "go-build"))
    return env


def find_go(given, need_randlayout):
    cands = [given] if given else ["/opt/gate-go/1.27/usr/lib/go-1.27/bin/go", "/opt/gate-go/1.27/bin/go",
                                   shutil.which("go") or ""]
    for g in cands:
        if g and os.access(g, os.X_OK):
            if need_randlayout:
                h = subprocess.run([g, "tool", "link", "-help"], capture_output=True, text=True, env=go_env())
                if "randlayout" not in h.stderr + h.stdout:
                    fail(f"--go {g}", "this Go has no -ldflags=-randlayout (Go older than 1.23)",
                         "give --go a Go 1.23 or later, e.g. /opt/gate-go/1.27/usr/lib/go-1.27/bin/go (ci/setup.sh fetches it)")
            return g
    fail("the Go toolchain", f"none of {', '.join(c for c in cands if c)} is an executable go",
         "run ci/setup.sh, or give --go PATH")


class Builder:
    """Builds the workload, once per (slowdown, layout seed), cached."""

    def __init__(self, go, src, lab):
        self.go, self.src, self.lab, self.cache = go, src, lab, {}

    def get(self, slow, seed, tags=""):
        key = (slow or "", seed, tags)
        if key in self.cache:
            return self.cache[key]
        name = ("bin-" + (slow.split(".")[-1].replace("=", "x") if slow else "base") + (f"-L{seed}" if seed else "")
                + (f"-T{tags.replace(',', '+')}" if tags else ""))
        out = os.path.join(self.lab, name)
        ld = []
        if slow:
            ld.append(f"-X main.slow={slow}")
        if seed:
            ld.append(f"-randlayout={seed}")
        cmd = ([self.go, "build", "-o", out] + (["-tags", tags] if tags else []) + (["-ldflags", " ".join(ld)] if ld else [])
               + ["."])
        r = subprocess.run(cmd, cwd=self.src, env=go_env(), capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"building {self.src} ({' '.join(cmd)})", f"go build failed: {r.stderr.strip()[-800:]}",
                 "fix the build (does the workload build with this Go by hand?)")
        self.cache[key] = out
        return out


def lab_config(src, lab, binary, overrides):
    """The workload's gate.yaml, in the lab dir: no build step, binary: the base, and top-level keys
    replaced or added by --set ("key: value"; a key's indented block goes with it)."""
    path = os.path.join(src, "gate.yaml")
    if not os.path.exists(path):
        fail(path, "the workload has no gate.yaml", f"restore it (git checkout -- {os.path.relpath(path, ROOT)})")
    keys = set()
    for o in overrides:
        if ":" not in o:
            fail(f"--set {o!r}", "is not 'key: value'", "give a top-level config key, e.g. --set 'min_unit_seconds: 0'")
        keys.add(o.split(":", 1)[0].strip())
    out, skipping = [], False
    for line in open(path).read().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            k = line.split(":", 1)[0].strip()
            skipping = k in keys or k in ("build", "binary")
        if not skipping:
            out.append(line)
    out.append(f"binary: {binary}")
    out += overrides
    cfg = os.path.join(lab, "lab.yaml")
    with open(cfg, "w") as f:
        f.write("\n".join(out) + "\n")
    return cfg


def gate_ab(gate, cfg, bases, heads, report_dir, seed):
    cmd = [gate, "ab", "-q", "-c", cfg]
    for b in bases:
        cmd += ["--base-binary", b]
    for h in heads:
        cmd += ["--head-binary", h]
    cmd += ["--seed", str(seed), "--report-dir", report_dir]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    if r.returncode not in (0, 1):
        hint = ("this gate does not take --base-binary/--head-binary more than once (a gate before issue 29's layouts)"
                if len(bases) > 1 and ("only" in r.stderr or "--base-binary" in r.stderr) else "see gate's message")
        fail(f"gate ab (exit {r.returncode}): {' '.join(cmd)}", f"{r.stderr.strip()[-1500:]}",
             f"{hint}; use --layouts 1 with this gate, or give --gate a newer one")
    rep_path = os.path.join(report_dir, "report.json")
    try:
        rep = json.load(open(rep_path))
    except (OSError, ValueError) as e:
        fail(rep_path, f"gate ab wrote no readable JSON report ({e})", "check that this gate writes report.json in --report-dir")
    return rep, wall, cmd


def unit_keys(j, path=""):
    """Keys about units and layouts anywhere in a report (executions per unit, layout variants),
    as "path=value": newer gates report them, older ones do not."""
    out = []
    if isinstance(j, dict):
        for k, v in j.items():
            if ("execution" in k or "layout" in k) and not isinstance(v, (dict, list)):
                out.append(f"{path}{k}={v}")
            elif k not in ("functions",):
                out += unit_keys(v, f"{path}{k}.")
    return out


def new_stats():
    return dict(trials=0, verdicts={}, fn_verdicts=0, false_flag_trials=0, caught=0, caught_suspect=0,
                p50={}, walls=[], pairs=[], flagged_fn=0, per_function={}, extra={},
                slowed_reads=[])


def tally(st, rep, slowed, watch, wall):
    """One trial's function-verdicts into st. slowed: the function slowed in this scenario, or None;
    watch: a function whose flags an A/A counts separately (the layout-sensitive one)."""
    st["trials"] += 1
    st["walls"].append(wall)
    st["pairs"].append(min(rep.get("base_runs", 0), rep.get("head_runs", 0)))
    false_flag = False
    for f in rep["functions"]:
        v = f["verdict"]
        if slowed and f["name"] == slowed:
            q = next((q for q in f.get("quantiles", []) if q["name"] == "p50"), None)
            if q and None not in (q.get("ratio"), q.get("ci_low"), q.get("ci_high")):
                st["slowed_reads"].append(f"{v} {q['ratio']:.3f} [{q['ci_low']:.3f}, {q['ci_high']:.3f}]")
            st["caught"] += v == "regression"
            st["caught_suspect"] += v == "suspect"
            continue
        st["verdicts"][v] = st["verdicts"].get(v, 0) + 1
        p50 = next((q for q in f.get("quantiles", []) if q["name"] == "p50"), None)
        if p50:
            st["p50"][p50["verdict"]] = st["p50"].get(p50["verdict"], 0) + 1
        st["per_function"].setdefault(f["name"], []).append(
            (v, p50 and p50.get("ratio"), p50 and p50.get("ci_low"), p50 and p50.get("ci_high")))
        if v in ("regression", "suspect"):
            false_flag = True
        if watch and f["name"] == watch and v in FLAGS:
            st["flagged_fn"] += 1
    st["false_flag_trials"] += false_flag


def pct(a, b):
    return f"{100 * a / b:.0f}%" if b else "-"


def table(rows, watch):
    print("| scenario | trials | unchanged / decidable (others) | inconclusive | false regression | false suspect | "
          "improvement | trials with a false flag | " + (f"{watch} flagged | " if watch else "") +
          "slowed function caught (regression + suspect) | pairs per trial (median, max) | wall per trial (median, max) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if watch else "") + "---:|---:|---:|")
    for label, st in rows:
        v = st["verdicts"]
        decidable = sum(n for k, n in v.items() if k != "insufficient data")
        caught = (f"{st['caught']}/{st['trials']} + {st['caught_suspect']}" if not label.endswith("A/A") else "-")
        print(f"| {label} | {st['trials']} | {v.get('unchanged', 0)}/{decidable} ({pct(v.get('unchanged', 0), decidable)}) | "
              f"{v.get('inconclusive', 0)} | {v.get('regression', 0)} | {v.get('suspect', 0)} | {v.get('improvement', 0)} | "
              f"{st['false_flag_trials']}/{st['trials']} | " + (f"{st['flagged_fn']}/{st['trials']} | " if watch else "") +
              f"{caught} | {statistics.median(st['pairs']):.0f}, {max(st['pairs'])} | "
              f"{statistics.median(st['walls']):.0f} s, {max(st['walls']):.0f} s |")


def trials_for(spec, label):
    if "=" not in spec:
        return int(spec)
    counts = dict(item.split("=") for item in spec.split(",") if item)
    return int(counts.get(label, 0))


SUITES = {  # name: [(output file stem, arguments)]: the lab's standard measurements, one command each
    "before": [
        ("before-shortwork", ["--trials", "A/A=8,1.1x=6,1.25x=6,1.35x=6"]),
        ("before-layouts", ["--workload", "layoutsens", "--layouts", "1", "--trials", "A/A=10,1.25x=5",
                            "--slowdowns", "1.25"]),
    ],
    "after": [
        ("after-shortwork", ["--trials", "A/A=6,1.1x=5,1.25x=5,1.35x=5"]),
        ("after-layouts3", ["--workload", "layoutsens", "--layouts", "3", "--trials", "A/A=10,1.25x=10",
                            "--slowdowns", "1.25"]),
        ("after-layouts1", ["--workload", "layoutsens", "--layouts", "1", "--trials", "A/A=10",
                            "--slowdowns", ""]),
    ],
}


def run_suite(a):
    """--suite NAME: each of its configurations as its own run of this script, with the same --gate,
    its output shown and written to tests/bench/results/STEM.txt (the command line and uptime first)."""
    out_dir = os.path.join(ROOT, "tests", "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    for stem, args in SUITES[a.suite]:
        cmd = [sys.executable, os.path.abspath(__file__), *[x for g in a.gate for x in ("--gate", g)], *args,
               "--label", f"{a.suite}: {stem}"]
        cmd += [x for o in a.set for x in ("--set", o)]
        path = os.path.join(out_dir, stem + ".txt")
        shown = " ".join(c if c and " " not in c and "=" not in c[1:] else repr(c) for c in cmd[1:])
        print(f"== {stem}: {shown}\n   output: {os.path.relpath(path, ROOT)}", flush=True)
        with open(path, "w") as f:
            up = subprocess.run(["uptime"], capture_output=True, text=True).stdout
            f.write(f"$ {shown}\n{up}")
            f.flush()
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in p.stdout:
                sys.stdout.write(line)
                f.write(line)
            rc = p.wait()
            f.write(subprocess.run(["uptime"], capture_output=True, text=True).stdout)
        if rc != 0:
            fail(f"--suite {a.suite}, configuration {stem}", f"its run exited {rc} (message above)",
                 "fix that and run the suite again (finished configurations' files are kept)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gate", action="append", default=[], help="the gate binary (default build/gate/cli/gate); "
                    "repeat it to compare gates: their trials take turns on the same builds, so that each meets "
                    "the machine's load alike (rows GATE: scenario)")
    ap.add_argument("--workload", default="shortwork", choices=sorted(WORKLOADS))
    ap.add_argument("--trials", default="5", help="trials a scenario: N, or per scenario, e.g. A/A=5,1.1x=5,1.25x=5 "
                    "(a scenario not named: 0)")
    ap.add_argument("--slowdowns", default="1.1,1.25,1.35", help="A/B scenarios ('' for A/A only)")
    ap.add_argument("--function", default="", help="the function slowed (default: main.hashLoop for shortwork, "
                    "main.dispatch for layoutsens)")
    ap.add_argument("--watch", default=None, help="count an A/A's flags of this function separately (default: "
                    "the slowed function for layoutsens)")
    ap.add_argument("--set", action="append", default=[], metavar="'KEY: VALUE'",
                    help="config override, repeatable: the top-level key replaced in a temp copy of gate.yaml")
    ap.add_argument("--layouts", type=int, default=0, help="K -randlayout builds per side, new seeds each trial (0: plain builds)")
    ap.add_argument("--matched-seeds", action="store_true", help="with --layouts K: the head's K builds use the "
                    "base's K seeds (as ci/pre-merge.sh does), so that pair i compares two builds of one layout "
                    "seed; default: new seeds for the head")
    ap.add_argument("--code-change", action="store_true", help="build every head with -tags gatenoop (the workload's "
                    "noop_gatenoop.go adds two functions): a no-op code change, after which the same seed no longer "
                    "gives the same layout")
    ap.add_argument("--slow-tag", default="", metavar="TAG", help="build a slowed head with -tags TAG instead of "
                    "-X main.slow (layoutsens: gateslowcode makes dispatch 1.25x in its own code); the scenario "
                    "keeps its --slowdowns label")
    ap.add_argument("--go", default="", help="the Go toolchain (default Go 1.27 from /opt/gate-go, else go on PATH)")
    ap.add_argument("--keep", default="", metavar="DIR", help="keep every trial's report dir here")
    ap.add_argument("--label", default="", help="a name for this configuration, printed with the table")
    ap.add_argument("--suite", choices=sorted(SUITES), help="run the lab's standard set of configurations with "
                    "--gate, each written to tests/bench/results/<configuration>.txt: before (shortwork A/A and "
                    "1.1x/1.25x/1.35x; layoutsens with one layout per side), after (the same shortwork set; "
                    "layoutsens with 3 layouts per side, A/A and 1.25x, 10 trials each; and one layout per side)")
    a = ap.parse_args()
    a.gate = a.gate or [os.path.join(ROOT, "build", "gate", "cli", "gate")]
    if a.suite:
        return run_suite(a)
    if os.geteuid() != 0:
        fail("units_lab", "needs root", "run it as root (gate attaches BPF uprobes)")
    versions = []
    for g in a.gate:
        if not (os.path.isfile(g) and os.access(g, os.X_OK)):
            fail(f"--gate {g}", "is not an executable file",
                 "build gate (cmake --build build --target gate) or give --gate PATH to a gate binary")
        ver = subprocess.run([g, "--version"], capture_output=True, text=True)
        if ver.returncode != 0:
            fail(f"--gate {g}", f"`gate --version` failed: {ver.stderr.strip()[-300:]}", "give a working gate binary")
        versions.append(f"{g} ({ver.stdout.strip()})")
    gnames = [os.path.basename(g) for g in a.gate]
    if len(set(gnames)) != len(gnames):
        gnames = [f"gate{i + 1}" for i in range(len(a.gate))]
    if a.layouts < 0:
        fail(f"--layouts {a.layouts}", "must be 0 (plain builds) or a count of variants per side", "give e.g. --layouts 3")
    src_rel, default_fn = WORKLOADS[a.workload]
    src = os.path.join(ROOT, src_rel)
    if a.code_change and not os.path.exists(os.path.join(src, "noop_gatenoop.go")):
        fail(f"--code-change with --workload {a.workload}", f"{src_rel} has no noop_gatenoop.go (the no-op change)",
             "use --workload layoutsens, or add a //go:build gatenoop file with an unused function to the workload")
    if a.slow_tag and not any(f"//go:build {a.slow_tag}" in open(os.path.join(src, n)).read()
                              for n in os.listdir(src) if n.endswith(".go")):
        fail(f"--slow-tag {a.slow_tag}", f"no file of {src_rel} is built under that tag, so the head would not be "
             "slowed at all", "use --slow-tag gateslowcode with --workload layoutsens, or add a //go:build "
             f"{a.slow_tag} file that slows the function")
    if a.matched_seeds and a.layouts < 1:
        fail("--matched-seeds", "needs layout builds", "give --layouts K (K >= 1)")
    fn = a.function or default_fn
    watch = a.watch if a.watch is not None else (fn if a.workload == "layoutsens" else "")
    go = find_go(a.go, a.layouts > 0)
    gover = subprocess.run([go, "version"], capture_output=True, text=True).stdout.strip()
    lab = tempfile.mkdtemp(prefix="gate-units-lab-")
    builder = Builder(go, src, lab)
    base0 = builder.get(None, 1 if a.layouts else 0)
    cfg = lab_config(src, lab, base0, a.set)
    scenarios = [("A/A", None)] + [(f"{x}x", f"{fn}={x}") for x in a.slowdowns.split(",") if x]
    counts = {label: trials_for(a.trials, label) for label, _ in scenarios}
    scenarios = [s for s in scenarios if counts[s[0]] > 0]
    if not scenarios:
        fail(f"--trials {a.trials}", "leaves no scenario with a trial", "give e.g. --trials 5 or A/A=5,1.25x=5")
    print(f"# units_lab: {' '.join(sys.argv)}")
    print(f"# gate: {', '.join(versions)}; {gover}; workload {src_rel}; layouts per side: {a.layouts}; "
          f"overrides: {a.set or 'none'}; head seeds: {'matched' if a.matched_seeds else 'new'}; "
          f"head code change: {'-tags gatenoop' if a.code_change else 'none'}; "
          f"slowdown: {'-tags ' + a.slow_tag if a.slow_tag else '-X main.slow'}; lab dir {lab}")
    print(f"# start {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; load:{open('/proc/loadavg').read().strip()}", flush=True)

    def row(g, label):
        return label if len(a.gate) == 1 else f"{gnames[g]}: {label}"

    def head_tags(slow):
        tags = (["gatenoop"] if a.code_change else []) + ([a.slow_tag] if slow and a.slow_tag else [])
        return ",".join(tags)

    rows = [row(g, label) for label, _ in scenarios for g in range(len(a.gate))]
    stats = {r: new_stats() for r in rows}
    t_start = time.time()
    for t in range(max(counts.values())):
        for label, slow in scenarios:
            if t >= counts[label]:
                continue
            if a.layouts:
                seed0 = 1000 * (t + 1) + 100 * scenarios.index((label, slow))
                bases = [builder.get(None, seed0 + i) for i in range(a.layouts)]
                head_seed0 = seed0 if a.matched_seeds else seed0 + 50
                heads = [builder.get(None if (slow and a.slow_tag) else slow, head_seed0 + i, head_tags(slow))
                         for i in range(a.layouts)]
            else:
                bases = [builder.get(None, 0)]
                heads = [builder.get(slow, 0)] if slow else [os.path.join(lab, "bin-base-copy")]
                if not slow and not os.path.exists(heads[0]):
                    shutil.copy(bases[0], heads[0])
            for g, gpath in enumerate(a.gate):
                r = row(g, label)
                rdir = os.path.join(a.keep or lab, f"{r.replace('/', '').replace(': ', '-')}-{t + 1}")
                os.makedirs(rdir, exist_ok=True)
                rep, wall, cmd = gate_ab(gpath, cfg, bases, heads, rdir, t + 1)
                tally(stats[r], rep, fn if slow else None, watch, wall)
                vs = {f["name"].replace("main.", ""): f["verdict"] for f in rep["functions"]}
                short = ", ".join(f"{k} {v}" for k, v in sorted(vs.items()) if v != "unchanged")
                units = unit_keys(rep)
                print(f"{r} trial {t + 1}/{counts[label]}: exit {rep.get('exit_code')}, {rep.get('base_runs')}+"
                      f"{rep.get('head_runs')} runs, {wall:.0f} s; not unchanged: {short or 'none'}"
                      + (f"; {', '.join(units)}" if units else ""), flush=True)
                if t == 0 and label == scenarios[0][0]:
                    print(f"#   command: {' '.join(cmd)}", flush=True)
    print()
    if a.label:
        print(f"**{a.label}**\n")
    table([(r, stats[r]) for r in rows], watch)
    print(f"\n# end {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {time.time() - t_start:.0f} s; "
          f"load:{open('/proc/loadavg').read().strip()}")
    print("# p50 verdicts of functions not slowed: " + "; ".join(
        f"{r}: " + ", ".join(f"{k} {n}" for k, n in sorted(stats[r]['p50'].items())) for r in rows))
    for label in rows:
        worst = []
        for name, vs in sorted(stats[label]["per_function"].items()):
            flags = [f"{v} {r:.3f} [{lo:.3f}, {hi:.3f}]" for v, r, lo, hi in vs if v != "unchanged" and r]
            if flags:
                worst.append(f"{name.replace('main.', '')}: {'; '.join(flags)}")
        if worst:
            print(f"# {label} not unchanged (p50 ratio [interval]): " + " | ".join(worst))
        if stats[label]["slowed_reads"]:
            print(f"# {label} the slowed function {fn} read (p50 ratio [interval]): " + "; ".join(stats[label]["slowed_reads"]))
    if not a.keep:
        shutil.rmtree(lab, ignore_errors=True)


if __name__ == "__main__":
    main()
