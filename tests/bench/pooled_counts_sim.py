#!/usr/bin/env python3
"""The pooled cpu/call test's level on sparse, overdispersed counts (gate/stats/instrument.hpp,
pooled_count_ratio), simulated: A/As of N pairs whose base and head units count Poisson samples of
mean M x speed x gamma noise (sd 20%), the pair's speed 1.4x in 30% of pairs (shared by both sides,
as gate ab's pairs are). Per setting, the share of A/As whose 95% interval excludes 1, with the
interval's sd floored at half the counts' Poisson sd (gate's rule) and at the whole of it (the rule
tried first). Pure Python, deterministic (seed 1); ~1 min.

Usage: tests/bench/pooled_counts_sim.py [--trials 3000]
"""
import argparse
import math
import random

T975 = {4: 2.776, 9: 2.262, 19: 2.093}  # Student t, 97.5%, by degrees of freedom


def poisson(rng, mean):
    if mean <= 0:
        return 0
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p < limit:
            return k
        k += 1


def interval(b, h, floor_share):
    n = len(b)
    bm, hm = sum(b) / n, sum(h) / n
    var = sum((y / hm - x / bm) ** 2 for x, y in zip(b, h)) / (n - 1) / n
    counting = 1 / sum(b) + 1 / sum(h)
    se = math.sqrt(max(var, counting * floor_share))
    c = math.log(hm / bm)
    t = T975[n - 1]
    return c - t * se, c + t * se


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=3000)
    a = ap.parse_args()
    rng = random.Random(1)
    print("samples/unit pairs  excluded(floor sd/2)  excluded(floor sd)  A/As with a side at 0")
    for mean in (0.5, 1, 2, 5, 20):
        for n in (5, 10, 20):
            ex = {0.25: 0, 1.0: 0}
            valid = skipped = 0
            for _ in range(a.trials):
                b, h = [], []
                for _ in range(n):
                    speed = 1.4 if rng.random() < 0.3 else 1.0
                    b.append(poisson(rng, mean * speed * rng.gammavariate(25, 1 / 25)))
                    h.append(poisson(rng, mean * speed * rng.gammavariate(25, 1 / 25)))
                if sum(b) == 0 or sum(h) == 0:  # gate: too few sampled runs, no ratio
                    skipped += 1
                    continue
                valid += 1
                for share in ex:
                    lo, hi = interval(b, h, share)
                    ex[share] += lo > 0 or hi < 0
            print(f"{mean:12g} {n:5d}  {ex[0.25] / valid:20.4f}  {ex[1.0] / valid:18.4f}  {skipped:6d}")


if __name__ == "__main__":
    main()
