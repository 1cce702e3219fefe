#!/usr/bin/python3
"""The noise lab: how noisy is this machine, and which verdict method decides best on it.

Characterizes the machine (the size and timescale of its speed swings, from a Go SHA-256 loop
and a floating-point loop timed by their own clock), then measures the shop example through the
real probe path with `gate ab`: A/A (the same code both sides) and A/B with one function slowed 1.1x, 1.25x and 1.5x
through the example's SHOP_SLOW knob. Every trial is one real `gate ab` session with the default
method (paired + fitted speed), band 5% at p50: scenarios in --sequential (A/A and 1.1x by
default) run as gate ab does in CI, --pairs pairs first and then one more pair at a time while a
verdict is inconclusive, up to --max-pairs; the others run exactly --pairs pairs. The runs each
trial measured are then judged by `gate compare` under every method (config keys pairing and
speed_normalization), so all methods see the same runs. Prints one side-by-side table with the
pairs and wall time each trial needed.

Usage (root, after ci/build.sh):  sudo tests/bench/noise_lab.py [--trials 30] [--pairs 10] [--max-pairs 30]
On a quiet day, --swings 4 adds this machine kind's noise (busy threads switched on and off in
0.1-1 s spells), or --steal 30 a busy host's (the CPU taken away in 2 ms real-time bursts in
such spells); --keep DIR keeps every trial's results for tests/bench/noise_replay.py.
Figures, not pass/fail: the README quotes its table with the command line that made it.
"""
import argparse
import atexit
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
METHODS = [  # name, pairing, speed_normalization (config value)
    ("unpaired (gate 0.1)", "off", "false"),
    ("paired", "auto", "false"),
    ("speed-normalized", "off", "true"),
    ("paired + speed-normalized", "auto", "true"),
    ("paired + fitted speed", "auto", "fitted"),
]
DEFAULT_METHOD = "paired + fitted speed"  # what gate ab decides and stops by


def go_env():
    env = dict(os.environ, GOTOOLCHAIN="local", GOPROXY="off", GOFLAGS="-mod=mod")
    env.setdefault("HOME", "/root")
    env.setdefault("GOCACHE", os.path.join(env["HOME"], ".cache", "go-build"))
    return env


def find_go():
    for v in ("1.23", "1.22", "1.21", "1.19"):
        p = f"/usr/lib/go-{v}/bin/go"
        if os.path.exists(p):
            return p
    return shutil.which("go") or sys.exit("noise_lab: no Go toolchain (run ci/setup.sh)")


def machine(lab, go, seconds):
    """Speed of a SHA-256 loop per 50 ms window: spread, slow-state share, and how long states last;
    then two copies at once, one per vCPU, as a two-thread workload runs: what they cost each other;
    then a floating-point loop (the shape of the shop's authorize()), whose slow state can be deeper
    than the integer loop's: a per-run speed factor read from integer functions under-corrects it."""
    exe = os.path.join(lab, "noiseloop")
    subprocess.run([go, "build", "-o", exe, "."], cwd=os.path.join(ROOT, "tests/bench/noiseloop"),
                   env=go_env(), check=True)
    loop = [exe, "-window", "50ms", "-for", f"{seconds}s"]
    env1 = dict(os.environ, GOMAXPROCS="1")

    def windows(text):
        return [float(line.split()[1]) for line in text.splitlines() if line.strip()]

    def slow_pct(xs, med):  # share of windows more than 1.2x slower than med
        return 100 * sum(x > 1.2 * med for x in xs) / len(xs)

    def depth(xs, med):  # how slow the slow state is: the median of the slow windows over med
        slow = [x for x in xs if x > 1.2 * med]
        return statistics.median(slow) / med if slow else 1.0

    ns = windows(subprocess.run(loop, capture_output=True, text=True, env=env1, check=True).stdout)
    med = statistics.median(ns)
    print(f"machine: {len(ns)} windows of 50 ms over {seconds} s: median {med / 1000:.2f} us per 4 KiB hash; "
          f"slow windows (> 1.2x median) {slow_pct(ns, med):.0f}%, {depth(ns, med):.2f}x the median")
    logs = [math.log(x) for x in ns]
    for k in (1, 4, 20):  # 50, 200, 1000 ms slices
        sl = [statistics.fmean(logs[i:i + k]) for i in range(0, len(logs) - k + 1, k)]
        if len(sl) > 3:
            adj = [b - a for a, b in zip(sl, sl[1:])]
            print(f"  {50 * k:5d} ms slices: sd of log speed {statistics.stdev(sl):.3f}, "
                  f"sd of adjacent-slice log ratio {statistics.stdev(adj):.3f}")
    # Two copies at once: what two busy vCPUs cost each other (a shared core or memory bandwidth on
    # the host), which a one-thread loop cannot see and a two-worker workload would meet.
    procs = [subprocess.Popen(loop, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env1)
             for _ in range(2)]
    pair = [windows(p.communicate()[0]) for p in procs]
    n = min(len(pair[0]), len(pair[1]))
    if n > 3:
        both = pair[0][:n] + pair[1][:n]
        med2 = statistics.median(both)
        gap = [math.log(a / b) for a, b in zip(pair[0][:n], pair[1][:n])]
        print(f"  two copies at once: median {med2 / 1000:.2f} us per hash ({med2 / med:.2f}x one alone); "
              f"slow windows (> 1.2x that median) {slow_pct(both, med2):.0f}%; "
              f"sd of the log ratio between the two copies' windows {statistics.stdev(gap):.3f}")
    fp = windows(subprocess.run(loop + ["-kernel", "fp"], capture_output=True, text=True, env=env1,
                                check=True).stdout)
    if fp:
        fmed = statistics.median(fp)
        print(f"  floating-point loop (16x16 dense net, 100 rounds): median {fmed / 1000:.1f} us; "
              f"slow windows (> 1.2x median) {slow_pct(fp, fmed):.0f}%, {depth(fp, fmed):.2f}x the median")


INJECTOR = r"""
import os, random, sys, time
policy, level = sys.argv[1], int(sys.argv[2])
duty, burst, low, high, on_share = (float(x) for x in sys.argv[3:8])
# Set here, before the forks, so that a refusal (no CAP_SYS_NICE) ends this process and the lab sees it.
if policy == "fifo":
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(level))
else:
    os.nice(level)
for cpu in range(os.cpu_count()):
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        rng = random.Random(7)  # one schedule for every CPU: the host slows them all at once
        while True:
            on = rng.random() < on_share
            period = low * (high / low) ** rng.random()
            end = time.monotonic() + period
            if not on:
                time.sleep(period)
                continue
            while time.monotonic() < end:  # busy for `burst` s, then idle so that busy is `duty` of the time
                stop = min(end, time.monotonic() + burst)
                while time.monotonic() < stop:
                    pass
                if duty < 1:
                    time.sleep(burst * (1 - duty) / duty)
os.wait()  # until killed with its process group
"""


def start_injector(code, args, what):
    """Runs an injector script in its own session, killed with it when the lab exits (also early).
    An injector that dies at once (e.g. refused real-time scheduling) stops the lab: its figures
    would otherwise be read as measured under noise that was never there."""
    p = subprocess.Popen([sys.executable, "-c", code] + [str(x) for x in args], start_new_session=True)

    def stop():
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass

    atexit.register(stop)
    try:
        p.wait(timeout=0.5)
        sys.exit(f"noise_lab: the injector for {what} exited at once (status {p.returncode}); see its error "
                 f"above (real-time scheduling needs root with CAP_SYS_NICE)")
    except subprocess.TimeoutExpired:
        pass
    print(f"injected {what} (pid {p.pid})", flush=True)
    return p


def start_swings(nice):
    """--swings NICE: a busy thread per CPU at that nice level, on and off together for periods drawn
    log-uniformly from 0.1 to 1 s, on 40% of the time: the workload loses the CPU share the busy
    threads' weight takes (nice 4: ~29%, i.e. 1.4x slower) in spells of the length this machine
    kind's own swings have. What a noisy CI runner does, on demand, so that a quiet day can test it."""
    return start_injector(INJECTOR, ["nice", nice, 1.0, 1.0, 0.1, 1.0, 0.4],
                          f"swings: a nice-{nice} busy thread per CPU, on 40% of the time in spells of 0.1-1 s")


def start_steal(pct):
    """--steal PCT: what a busy host does to a VM, imitated inside it. In spells drawn as --swings draws
    them (0.1-1 s, on 40% of the time), a real-time (SCHED_FIFO) thread per CPU takes PCT% of the CPU
    in 2 ms bursts: every thread on that CPU stops, whatever its weight, placement or nice level,
    as a vCPU does when the host runs another guest (steal time). Unlike --swings it leaves the
    scheduler's placement alone, so it is a slower CPU seen from the workload, not a neighbour to
    share with. Caveat: the kernel counts the bursts as preemptions, which the host's steal is not, so
    it says nothing about exclude_preemption either."""
    return start_injector(INJECTOR, ["fifo", 1, pct / 100, 0.002, 0.1, 1.0, 0.4],
                          f"steal: a real-time thread per CPU takes {pct}% of it in 2 ms bursts "
                          f"({100 / (100 - pct):.2f}x slower), on 40% of the time in spells of 0.1-1 s")


def shop(lab, go, orders):
    src = os.path.join(ROOT, "examples", "shop")
    base = os.path.join(lab, "base")
    subprocess.run([go, "build", "-o", base, "./cmd/shop"], cwd=src, env=go_env(), check=True)
    shutil.copy(base, os.path.join(lab, "head"))
    with open(os.path.join(src, "gate.yaml")) as f:
        text = f.read()
    lines = []
    for line in text.splitlines():
        if line.startswith("build:"):
            continue
        if line.startswith("binary:"):
            line = f"binary: {base}"
        if line.startswith("workload:"):
            line = ('workload: SHOP_SLOW="$(cat $GATE_BINARY_ORIGINAL.slow 2>/dev/null)" $GATE_BINARY '
                    f"-orders {orders} -q")
        lines.append(line)
    cfg = os.path.join(lab, "lab.yaml")
    with open(cfg, "w") as f:
        f.write("\n".join(lines) + "\n")
    return cfg


def with_method(cfg, lab, name, pairing, normalize, threshold):
    path = os.path.join(lab, "method-" + name.replace(" ", "_").replace("+", "").replace("(", "").replace(")", "") + ".yaml")
    with open(cfg) as f:
        text = f.read()
    text = "\n".join(l for l in text.splitlines() if not l.startswith("threshold:"))
    text += f"\npairing: {pairing}\nspeed_normalization: {normalize}\nthreshold: {threshold}\n"
    with open(path, "w") as f:
        f.write(text)
    return path


def with_variant(cfg, lab, index, yaml_text):
    """The config with top-level keys replaced (or added) by yaml_text (one "key: value" a line;
    a key's indented block in cfg goes with it)."""
    new = [l for l in yaml_text.split(";") if l.strip()]
    keys = {l.split(":", 1)[0].strip() for l in new}
    out, skipping = [], False
    with open(cfg) as f:
        for line in f.read().splitlines():
            if line and not line[0].isspace():
                skipping = line.split(":", 1)[0].strip() in keys
            elif not line.strip():
                skipping = False
            if not skipping:
                out.append(line)
    path = os.path.join(lab, f"variant-{index}.yaml")
    with open(path, "w") as f:
        f.write("\n".join(out + [l.strip() for l in new]) + "\n")
    return path


def session(gate, cfg, lab, label, slow_spec, runs, max_runs, extra=()):
    """One trial: a gate ab session of `runs` pairs, then more while a verdict is inconclusive."""
    for side in ("base", "head"):
        p = os.path.join(lab, side + ".slow")
        if os.path.exists(p):
            os.remove(p)
    if slow_spec:
        with open(os.path.join(lab, "head.slow"), "w") as f:
            f.write(slow_spec)
    ob, oh = os.path.join(lab, label + "_base.json"), os.path.join(lab, label + "_head.json")
    t0 = time.time()
    r = subprocess.run([gate, "ab", "-q", "-c", cfg, "--base-binary", os.path.join(lab, "base"), "--head-binary",
                        os.path.join(lab, "head"), "--runs", str(runs), "--max-runs", str(max_runs), "--out-base", ob,
                        "--out-head", oh, *extra], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"noise_lab: gate ab failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return json.load(open(ob)), json.load(open(oh)), time.time() - t0


def judge(gate, lab, cfg, base, head):
    pb, ph = os.path.join(lab, "trial_base.json"), os.path.join(lab, "trial_head.json")
    json.dump(base, open(pb, "w"))
    json.dump(head, open(ph, "w"))
    r = subprocess.run([gate, "compare", pb, ph, "-c", cfg, "--format", "json"], capture_output=True, text=True)
    if r.returncode not in (0, 1, 3):
        sys.exit(f"noise_lab: gate compare failed ({r.returncode}): {r.stderr[-1000:]}")
    return json.loads(r.stdout)


def tally(st, rep, slowed, function):
    """Adds one trial's p50 verdicts under one method to `st`."""
    st["trials"] += 1
    # Any false regression in any test of the trial (every quantile, not only p50): what the
    # family-wise error bar is about.
    st["trials_false"] += any(q["verdict"] == "regression" for f in rep["functions"] for q in f["quantiles"]
                              if not (slowed and f["name"] == function))
    for f in rep["functions"]:
        p50 = next((q for q in f["quantiles"] if q["name"] == "p50"), None)
        if not p50 or p50["verdict"] == "insufficient data":
            continue
        if p50.get("noise"):
            st["noise"].append(p50["noise"])
        reg = p50["verdict"] == "regression"
        sus = p50["verdict"] == "suspect"
        if slowed and f["name"] == function:
            st["caught"] += reg
            st["caught_suspect"] += sus
        else:
            st["fn_trials"] += 1
            st["false_reg"] += reg
            st["false_suspect"] += sus
            st["unchanged"] += p50["verdict"] == "unchanged"
            # gate's earlier rule: the 95% interval inside the band
            band = p50["threshold"]
            lo, hi = p50.get("ci_unadjusted_low", p50["ci_low"]), p50.get("ci_unadjusted_high", p50["ci_high"])
            st["unchanged95"] += (p50["verdict"] in ("unchanged", "inconclusive", "suspect") and
                                  lo >= 1 - band["improvement"] and hi <= 1 + band["regression"])
            per = st["per_function"].setdefault(f["name"], [0, 0, [], []])
            per[0] += p50["verdict"] == "unchanged"
            per[1] += 1
            if p50.get("noise"):
                per[2].append(p50["noise"])
            per[3].append((f.get("calls") or {}).get("base_per_run") or 0)


def print_per_function(st):
    """One line per function of a tally, least often unchanged first: share unchanged, trials,
    median noise per unit, median calls per run."""
    for fn, (u, n, noise, calls) in sorted(st["per_function"].items(), key=lambda kv: kv[1][0] / kv[1][1]):
        nz = f"{100 * statistics.median(noise):5.1f}%" if noise else "    -"
        cl = f"{statistics.median(calls):9.0f}" if calls else "        -"
        print(f"  {100 * u / n:4.0f}%  {n:3d}  {nz}  {cl}  {fn}")


def new_stats():
    return dict(trials=0, trials_false=0, fn_trials=0, false_reg=0, false_suspect=0, unchanged=0, unchanged95=0, caught=0,
                caught_suspect=0, noise=[], per_function={})


def trials_for(spec, label):
    """--trials: one count for every scenario, or scenario=count pairs (unnamed scenarios: 10)."""
    if "=" not in spec:
        return int(spec)
    counts = dict(item.split("=") for item in spec.split(","))
    return int(counts.get(label, 10))


def sliced_rows(a, lab, scenarios, sequential, default_cfg):
    """Time-sliced interleaving: per T in --slice-ms and scenario, trials that are each one real
    `gate ab --slice-ms T` session (runs and max runs then count pairs of slices), judged under the
    default method (paired + fitted speed) only. Rows "time-sliced T ms"."""
    rows = []
    for t_ms in (x for x in a.slice_ms.split(",") if x):
        name = f"time-sliced {t_ms} ms"
        for label, spec in scenarios:
            st = new_stats()
            pairs_used, walls = [], []
            first = a.slice_pairs or a.pairs
            most = (a.slice_max_pairs or a.max_pairs) if label in sequential else first
            trials = trials_for(a.slice_trials or a.trials, label)
            if trials == 0:
                continue
            for t in range(trials):
                base, head, wall = session(a.gate, default_cfg, lab, label.replace("/", "") + f"_slice{t_ms}", spec,
                                           first, most, ("--slice-ms", t_ms))
                pairs_used.append(len(head["runs"]))
                walls.append(wall)
                tally(st, judge(a.gate, lab, default_cfg, base, head), spec is not None, a.function)
                dropped = sum(int(r["extra"].get("straddled_calls", 0)) for r in (base, head))
                print(f"{label} {name} trial {t + 1}/{trials}: {pairs_used[-1]} pairs of slices, {wall:.0f} s, "
                      f"{dropped} calls straddled a switch; so far: {st['false_reg']} false regressions, caught "
                      f"{st['caught']}/{st['trials']}", flush=True)
            rows.append((label, name, st, pairs_used, walls, most))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gate", default=os.path.join(ROOT, "build", "gate", "cli", "gate"))
    ap.add_argument("--trials", default="30", help="trials a scenario: N, or per scenario, e.g. A/A=30,1.1x=20")
    ap.add_argument("--pairs", type=int, default=10, help="pairs of runs per trial (the first look when sequential)")
    ap.add_argument("--max-pairs", type=int, default=30, help="pairs at most in a sequential trial")
    ap.add_argument("--sequential", default="A/A,1.1x", help="scenarios run until decided, up to --max-pairs")
    ap.add_argument("--orders", type=int, default=1000,
                    help="orders per run of the shop workload (1000: ~2 s a run, long enough to average over "
                    "the machine's 0.1-1 s swings; runs 1-4 in the README used 300)")
    ap.add_argument("--function", default="example.com/shop/pricing.Apply", help="the function slowed in A/B")
    ap.add_argument("--slowdowns", default="1.1,1.25,1.5")
    ap.add_argument("--threshold", default="5%", help="the p50 band")
    ap.add_argument("--machine-seconds", type=int, default=20)
    ap.add_argument("--slice-pairs", type=int, default=0, help="pairs of slices per sliced trial (the first look): "
                    "default --pairs; raise it (and --slice-max-pairs) to compare slices with whole runs at equal "
                    "wall time, e.g. 20 and 60 at 500 ms")
    ap.add_argument("--slice-max-pairs", type=int, default=0, help="pairs of slices at most (default --max-pairs)")
    ap.add_argument("--slice-trials", default="", help="trials a scenario for the sliced rows (default --trials)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=YAML",
                    help="also run each trial with the config's top-level keys changed (\"; \" between "
                    "lines), interleaved trial by trial with the default so that both meet the same load; "
                    "rows NAME, default method only. E.g. --variant 'preemption excluded=exclude_preemption: true' "
                    "--variant 'GOGC=off=env: {GOMAXPROCS: \"2\", GOGC: \"off\"}'; a value starting with -- is gate ab options "
                    "instead, e.g. --variant 'sliced 500 ms=--slice-ms 500' (runs then count pairs of slices)")
    ap.add_argument("--keep", default="", metavar="DIR",
                    help="also keep each trial's two result files in DIR (<scenario>_<trial>_base.json, "
                    "_head.json), so that other statistics can be tried on the same runs later with gate compare")
    ap.add_argument("--swings", type=int, default=None, metavar="NICE",
                    help="inject this machine kind's noise on a quiet day: a busy thread per CPU at nice NICE, "
                    "switched on and off together in spells of 0.1-1 s (nice 4: ~1.4x slower while on)")
    ap.add_argument("--steal", type=int, default=None, metavar="PCT",
                    help="inject a busy host's noise (alone or with --swings): in the same spells, a real-time thread per CPU "
                    "takes PCT%% of it in 2 ms bursts (30: 1.43x slower while on), every thread on it stopped "
                    "alike, as steal time does to a VM")
    ap.add_argument("--slice-ms", default="", help="also gate ab --slice-ms T for each T, e.g. 100,500 (rows "
                    "\"time-sliced T ms\", default method only)")
    a = ap.parse_args()
    if a.swings is not None and not 0 <= a.swings <= 19:
        ap.error(f"--swings {a.swings}: the busy threads' nice level must be 0-19 (4 takes ~29% of each CPU "
                 f"from a nice-0 workload, 1.4x slower while on; 0 takes half)")
    if a.steal is not None and not 5 <= a.steal <= 80:
        ap.error(f"--steal {a.steal}: the share of each CPU the bursts take must be 5-80 percent (30 makes the "
                 f"workload 1.43x slower while on; near 95 the kernel's real-time throttling would cut in)")
    if a.keep and glob.glob(os.path.join(a.keep, "*_base.json")):
        ap.error(f"--keep {a.keep}: already holds trials of an earlier lab run (*_base.json); the new ones would "
                 f"overwrite some and mix with the rest: give an empty or new directory")
    if os.geteuid() != 0:
        sys.exit("noise_lab: needs root (gate attaches BPF uprobes)")
    go = find_go()
    lab = tempfile.mkdtemp(prefix="gate-noise-lab-")
    print(f"noise lab in {lab}: trials {a.trials}, {a.pairs} pairs (sequential: {a.sequential}, up to "
          f"{a.max_pairs}), shop -orders {a.orders}, band {a.threshold}, `{' '.join(sys.argv)}`", flush=True)
    if a.swings is not None:
        start_swings(a.swings)
    if a.steal is not None:
        start_steal(a.steal)
    machine(lab, go, a.machine_seconds)
    cfg = shop(lab, go, a.orders)
    methods = [(n, with_method(cfg, lab, n, p, s, a.threshold)) for n, p, s in METHODS]
    default_cfg = dict(methods)[DEFAULT_METHOD]
    scenarios = [("A/A", None)] + [(f"{x}x", f"{a.function}={x}") for x in a.slowdowns.split(",")]
    sequential = set(a.sequential.split(","))
    variants = []
    for i, v in enumerate(a.variant):
        name, _, yaml_text = v.partition("=")
        if not yaml_text:
            sys.exit(f"noise_lab: --variant {v!r}: expected NAME=YAML")
        if yaml_text.startswith("--"):  # gate ab options, e.g. --slice-ms 500: the default config
            variants.append((name, default_cfg, tuple(yaml_text.split())))
        else:
            variants.append((name, with_variant(default_cfg, lab, i, yaml_text), ()))
    rows = []
    for label, spec in scenarios:
        stats = {name: new_stats() for name, _ in methods}
        vstats = {name: new_stats() for name, *_ in variants}
        vpairs = {name: [] for name, *_ in variants}
        vwalls = {name: [] for name, *_ in variants}
        pairs_used, walls = [], []
        most = a.max_pairs if label in sequential else a.pairs
        trials = trials_for(a.trials, label)
        if trials == 0:  # e.g. --trials A/A=0,1.1x=10: that scenario is left out
            continue
        for t in range(trials):
            base, head, wall = session(a.gate, default_cfg, lab, label.replace("/", ""), spec, a.pairs, most)
            pairs_used.append(len(head["runs"]))
            walls.append(wall)
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                for side, data in (("base", base), ("head", head)):
                    with open(os.path.join(a.keep, f"{label.replace('/', '')}_{t + 1:02d}_{side}.json"), "w") as f:
                        json.dump(data, f)
            for name, mcfg in methods:
                tally(stats[name], judge(a.gate, lab, mcfg, base, head), spec is not None, a.function)
            d = stats[DEFAULT_METHOD]
            print(f"{label} trial {t + 1}/{trials}: {pairs_used[-1]} pairs, {wall:.0f} s; default method so far: "
                  f"{d['false_reg']} false regressions, {d['unchanged']}/{d['fn_trials']} unchanged, caught "
                  f"{d['caught']}/{d['trials']}", flush=True)
            for name, vcfg, vargs in variants:
                vb, vh, vwall = session(a.gate, vcfg, lab, label.replace("/", "") + "_variant", spec, a.pairs, most,
                                        vargs)
                vpairs[name].append(len(vh["runs"]))
                vwalls[name].append(vwall)
                tally(vstats[name], judge(a.gate, lab, vcfg, vb, vh), spec is not None, a.function)
                v = vstats[name]
                print(f"{label} trial {t + 1}/{trials}, {name}: {vpairs[name][-1]} pairs, {vwall:.0f} s; so far: "
                      f"{v['false_reg']} false regressions, {v['unchanged']}/{v['fn_trials']} unchanged, caught "
                      f"{v['caught']}/{v['trials']}", flush=True)
        for name, _ in methods:
            rows.append((label, name, stats[name], pairs_used, walls, most))
        for name, *_ in variants:
            rows.append((label, name, vstats[name], vpairs[name], vwalls[name], most))
    rows += sliced_rows(a, lab, scenarios, sequential, default_cfg)
    print()
    width = max([27] + [len(n) for _, n, *_ in rows])
    print(f"{'scenario':8s} {'method':{width}s} {'false reg':>10s} {'unchanged':>10s} {'(95% rule)':>10s} {'caught':>8s} "
          f"{'noise p50':>10s} {'pairs (med/max)':>16s} {'wall/trial':>10s}")
    for label, name, st, pairs_used, walls, most in rows:
        fr = f"{st['false_reg']}/{st['fn_trials']}"
        un = f"{100 * st['unchanged'] / max(1, st['fn_trials']):.0f}%"
        un95 = f"{100 * st['unchanged95'] / max(1, st['fn_trials']):.0f}%"
        caught = f"{st['caught']}/{st['trials']}" if label != "A/A" else "-"
        noise = f"{100 * statistics.median(st['noise']):.1f}%" if st["noise"] else "-"
        pu = f"{statistics.median(pairs_used):.0f}/{max(pairs_used)} of {most}"
        print(f"{label:8s} {name:{width}s} {fr:>10s} {un:>10s} {un95:>10s} {caught:>8s} {noise:>10s} {pu:>16s} "
              f"{statistics.median(walls):>9.0f}s")
    for label, name, st, *_ in rows:
        if label == "A/A" and (name in ("paired + speed-normalized", DEFAULT_METHOD) or name in {v[0] for v in variants}) \
                and st["per_function"]:
            print(f"\nA/A, {name}: per function, the share of trials unchanged, trials, median noise per "
                  f"unit and calls per run")
            print_per_function(st)
    print(f"\n(false reg: p50 regressions among function-trials of functions not slowed; unchanged: their share "
          f"read unchanged (the 90% interval inside the band, two one-sided tests at 5%); (95% rule): their share "
          f"whose 95% interval lay inside the band, gate's earlier rule; caught: trials flagging {a.function}; noise: median per-unit log-sd; pairs: what the "
          f"default method's gate ab session measured per trial, every method judged on those runs)")
    shutil.rmtree(lab, ignore_errors=True)


if __name__ == "__main__":
    main()
