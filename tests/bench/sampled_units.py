#!/usr/bin/env python3
"""Per function, how noisy the sampled instrument is at its sample count, from one gate ab's results.

Usage: tests/bench/sampled_units.py BASE.json HEAD.json
  BASE.json, HEAD.json: `gate ab ... --out-base BASE.json --out-head HEAD.json` (an A/A for noise).
Prints per function: self samples a unit (median over units after the first pair), the per-pair SD of
log(head cpu/call / base cpu/call) over the pairs after the first (the first pair runs with every
probe attached), and what binomial counting alone would give (sqrt(1/n_base + 1/n_head)).
cpu-clock samples come from a regular timer: a function with a large share of the run is counted
more evenly than binomial; one with a few scattered samples a unit is not.
"""
import json
import math
import statistics
import sys


def per_unit(result, name):
    i = result["run_functions"].index(name)
    out = []
    for run in result["runs"]:
        f = run["functions"]
        out.append((f["self_samples"][i], f["calls"][i]))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, head = (json.load(open(p)) for p in sys.argv[1:3])
    print(f"{'function':<24} {'samples/unit':>12} {'pairs':>5} {'sd/pair':>8} {'binomial':>8}")
    for name in base["run_functions"]:
        if name not in head["run_functions"]:
            continue
        b, h = per_unit(base, name)[1:], per_unit(head, name)[1:]
        logs = [math.log((y[0] / y[1]) / (x[0] / x[1])) for x, y in zip(b, h) if x[0] and y[0] and x[1] and y[1]]
        if len(logs) < 3:
            print(f"{name:<24} {'-':>12} {len(logs):>5}  too few sampled pairs")
            continue
        nb = statistics.median(x[0] for x in b)
        nh = statistics.median(y[0] for y in h)
        binom = math.sqrt(1 / nb + 1 / nh) if nb and nh else float("nan")
        print(f"{name:<24} {statistics.median([nb, nh]):>12.0f} {len(logs):>5} {statistics.stdev(logs):>8.3f} {binom:>8.3f}")


if __name__ == "__main__":
    main()
