#!/usr/bin/python3
"""Replays gate ab's measure-until-decided loop on trials the noise lab kept, to try a statistic
or a stopping rule on the very same runs.

`noise_lab.py --keep DIR --pairs 30 --max-pairs 30` keeps each trial's 30 pairs of runs. This
script judges every trial as gate ab would have judged it had it run with --runs FIRST and
--max-runs the trial's length: the first FIRST pairs, then one more pair at a time while a
verdict is inconclusive (Comparison::need_more_runs, read from the report), with the looks
FIRST..LAST stored in the result so that gate compare applies the same sequential p-values. Each
look is a real `gate compare` of the truncated results, so a rebuilt gate or a changed config
key (--set) is tried on the runs without measuring again.

Usage:  tests/bench/noise_replay.py --keep DIR --config CFG [--first 10] [--set 'key: value'] ...
        [--gate build/gate/cli/gate] [--function example.com/shop/pricing.Apply]
CFG: a gate config naming the same functions (the lab's method-paired__fitted_speed.yaml).
No root needed: it reads files and runs gate compare only.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import noise_lab  # noqa: E402  (tally, new_stats, with_variant, print_per_function)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def truncated(result, pairs, looks):
    r = dict(result)
    r["runs"] = result["runs"][:pairs]
    r["extra"] = dict(result.get("extra", {}), looks=looks)
    return r


def compare(gate, cfg, work, base, head):
    pb, ph = os.path.join(work, "b.json"), os.path.join(work, "h.json")
    with open(pb, "w") as f:
        json.dump(base, f)
    with open(ph, "w") as f:
        json.dump(head, f)
    r = subprocess.run([gate, "compare", pb, ph, "-c", cfg, "--format", "json"], capture_output=True, text=True)
    if r.returncode not in (0, 1, 3):
        sys.exit(f"noise_replay: gate compare failed ({r.returncode}): {r.stderr[-1000:]}")
    return json.loads(r.stdout)


def need_more(rep, max_units):
    """Comparison::need_more_runs, from the report."""
    if rep["exit_code"] == 1 and rep.get("paired"):
        return False

    def helps(q):
        u = q.get("units_to_decide") or 0
        return bool(q.get("more_runs_would_help")) and (u == 0 or u <= 4 * max_units)

    if rep.get("common_shift_tested") and helps(rep["common_shift"]):
        return True
    return any(helps(q) for f in rep["functions"] for q in f["quantiles"])


def suspects_decidable(rep, within):
    """Comparison::suspects_decidable_within, from the report: past the regression threshold,
    not decided, predicted to decide within `within` units."""
    if rep["exit_code"] == 1 and rep.get("paired"):
        return False

    def worth(q):
        u = q.get("units_to_decide") or 0
        return (q["verdict"] in ("inconclusive", "suspect") and q.get("ratio") is not None and
                q["ratio"] > 1 + q["threshold"]["regression"] and 0 < u <= within)

    return any(worth(q) for f in rep["functions"] for q in f["quantiles"])


def replay(gate, cfg, work, base, head, first, last, max_runs=0):
    """gate ab's loop: max_runs (default last) bounds the inconclusive; past it, up to last
    (suspect_max_runs), only a test past its threshold that looks decidable by then goes on. The
    looks first..last are the whole plan, as gate records them."""
    max_runs = max_runs or last
    looks = f"{first}..{last}"
    n = min(len(base["runs"]), len(head["runs"]), last)
    for k in range(first, n + 1):
        rep = compare(gate, cfg, work, truncated(base, k, looks), truncated(head, k, looks))
        if k < max_runs:
            if not need_more(rep, max_runs):
                break
        elif not suspects_decidable(rep, last):
            break
    return rep, k


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", required=True, help="the noise lab's --keep directory")
    ap.add_argument("--config", required=True)
    ap.add_argument("--gate", default=os.path.join(ROOT, "build", "gate", "cli", "gate"))
    ap.add_argument("--first", type=int, default=10, help="pairs before the first look (gate ab --runs)")
    ap.add_argument("--last", type=int, default=30, help="pairs at most (gate ab --suspect-max-runs; --max-runs "
                    "too unless --max-runs is given)")
    ap.add_argument("--max-runs", type=int, default=0, help="gate ab --max-runs, when below --last: past it only "
                    "suspects that look decidable by --last go on")
    ap.add_argument("--set", action="append", default=[], metavar="YAML",
                    help="config keys to change, as noise_lab.py --variant takes them (\"; \" between lines)")
    ap.add_argument("--function", default="example.com/shop/pricing.Apply", help="the function slowed in A/B")
    ap.add_argument("--scenarios", default="AA,1.1x")
    a = ap.parse_args()
    if not glob.glob(os.path.join(a.keep, "*_base.json")):
        sys.exit(f"noise_replay: {a.keep} holds no kept trials (*_base.json): give the directory a "
                 f"noise_lab.py --keep run wrote")
    if not os.path.exists(a.config):
        sys.exit(f"noise_replay: --config {a.config}: no such file: give a gate config naming the shop's functions "
                 f"(the lab's method-paired__fitted_speed.yaml, copied before the lab ends and deletes its directory)")
    work = tempfile.mkdtemp(prefix="gate-replay-")
    cfg = a.config
    for i, s in enumerate(a.set):
        cfg = noise_lab.with_variant(cfg, work, i, s)
    for label in a.scenarios.split(","):
        bases = sorted(glob.glob(os.path.join(a.keep, f"{label}_*_base.json")))
        if not bases:
            continue
        st, pairs = noise_lab.new_stats(), []
        for pb in bases:
            base = json.load(open(pb))
            head = json.load(open(pb.replace("_base.json", "_head.json")))
            rep, k = replay(a.gate, cfg, work, base, head, a.first, a.last, a.max_runs)
            pairs.append(k)
            noise_lab.tally(st, rep, label != "AA", a.function)
        un = 100 * st["unchanged"] / max(1, st["fn_trials"])
        print(f"{label}: {len(bases)} trials, pairs median {statistics.median(pairs):.0f} max {max(pairs)}; "
              f"trials with a false regression {st['trials_false']}/{st['trials']}; p50 false regressions "
              f"{st['false_reg']}/{st['fn_trials']}, false suspects {st['false_suspect']}, unchanged {un:.0f}% "
              f"({st['unchanged']}/{st['fn_trials']})" +
              ("" if label == "AA" else f", caught {st['caught']}/{st['trials']} (+{st['caught_suspect']} suspect)"))
        if label == "AA":
            noise_lab.print_per_function(st)


if __name__ == "__main__":
    main()
