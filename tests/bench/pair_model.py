#!/usr/bin/python3
"""A model of gate ab's paired test, for trying a change to it on a lab run's kept trials in seconds.

Reads the result files `tests/bench/noise_lab.py --keep DIR` kept, takes each run's p50 per
function from its histogram, and redoes what stats::paired_ratio does with fitted speed: per run
the speed offset (the median, over the run's other functions, of each one's log p50 minus its own
median over all runs), per pair the log ratio, the fitted power of the speed factor (least
squares), winsorizing at SIGMAS robust SDs of the pair differences, and a t interval. A function
reads unchanged when its 90% interval lies inside the band (two one-sided tests), a regression
when the lower end of the 90% interval is above it. Every trial is judged at its full length.

A model, not gate: no within-run variance floor, no Holm adjustment, no sequential looks, p50
only. On run 6's trials (README "How it decides") it reads 83% unchanged where the lab read 84%.
Use it to rank variants of the estimator; measure the winner with gate itself (noise_replay.py).

Usage: tests/bench/pair_model.py --keep /tmp/keep6 [--sigmas 4,3,2,1.5] [--band 0.05] [--per-function]
       tests/bench/pair_model.py --keep /tmp/keep7 --show 'example.com/shop.(*Store).CheckoutBatch'
"""
import argparse
import glob
import json
import math
import os
import statistics
import sys

import numpy as np
from scipy import stats


def bucket_bounds(i):
    """Lower bound and width in ns of histogram bucket i, as bpf/gate_shared.h defines them: exact
    1 ns buckets below 64 ns, then 32 sub-buckets per power of two."""
    if i < 64:
        return float(i), 1.0
    e = i // 32 + 4
    return float((32 + i % 32) << (e - 5)), float(1 << (e - 5))


def runs_p50(path):
    """Per run, {function: (p50 ns, calls)} from one kept result file."""
    with open(path) as f:
        d = json.load(f)
    names = [fn["name"] for fn in d["functions"]]
    out = []
    for r in d["runs"]:
        fr, pos, res = r["functions"], 0, {}
        for j, fid in enumerate(fr["id"]):
            nb = fr["buckets"][j]
            h = fr["histogram"][pos:pos + 2 * nb]
            pos += 2 * nb
            n = sum(h[1::2])
            if n == 0:
                continue
            seen = 0  # the p50 as LatencyHistogram::quantile reads it: interpolated inside its bucket
            for b, c in zip(h[0::2], h[1::2]):
                if seen + c >= n / 2:
                    lower, width = bucket_bounds(b)
                    res[names[fid]] = (lower + (n / 2 - seen) / c * width, n)
                    break
                seen += c
        out.append(res)
    return out


def paired(d, s, sigmas, confidence=0.90):
    """The fitted paired estimate of paired_ratio: (log ratio, half-width of its interval)."""
    d, s = np.asarray(d), np.asarray(s)
    n = len(d)
    if n >= 4 and np.var(s) > 1e-12:
        raw = d + s
        beta = np.cov(s, raw, bias=True)[0, 1] / np.var(s)
        d = raw - beta * s
        dof, leverage = n - 2, 1 / n + s.mean() ** 2 / ((s - s.mean()) ** 2).sum()
    else:
        dof, leverage = n - 1, 1 / n
    med = np.median(d)
    sd = 1.4826 * np.median(abs(d - med)) or 1.2533 * np.mean(abs(d - med))
    d = np.clip(d, med - sigmas * sd, med + sigmas * sd)
    m = d.mean()
    se = math.sqrt(((d - m) ** 2).sum() / dof * leverage)
    return m, stats.t.ppf(1 - (1 - confidence) / 2, dof) * se


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", required=True, help="a directory noise_lab.py --keep filled")
    ap.add_argument("--sigmas", default="4,3,2,1.5", help="winsorizing bounds to compare, in robust SDs (gate: 4)")
    ap.add_argument("--band", type=float, default=0.05)
    ap.add_argument("--function", default="example.com/shop/pricing.Apply",
                    help="the function the lab slowed in its A/B trials (noise_lab.py --function)")
    ap.add_argument("--min-calls", type=int, default=20, help="functions with fewer calls a run (median) are left out")
    ap.add_argument("--per-function", action="store_true", help="also the A/A share unchanged per function")
    ap.add_argument("--show", metavar="FUNCTION", help="only print FUNCTION's per-run p50, base/head in ms, a line "
                    "per trial (e.g. the fan-out's levels: example.com/shop.(*Store).CheckoutBatch)")
    a = ap.parse_args()
    bases = sorted(glob.glob(os.path.join(a.keep, "*_base.json")))
    if not bases:
        sys.exit(f"pair_model: {a.keep} holds no *_base.json: give the directory noise_lab.py --keep DIR wrote")
    if a.show:
        for b in bases:
            base, head = runs_p50(b), runs_p50(b.replace("_base.json", "_head.json"))
            pairs = [f"{x[a.show][0] / 1e6:.0f}/{y[a.show][0] / 1e6:.0f}" for x, y in zip(base, head)
                     if a.show in x and a.show in y]
            if not pairs:
                sys.exit(f"pair_model: {a.show} has no calls in {b}: give a function name as the results spell it")
            print(os.path.basename(b)[:-len("_base.json")], " ".join(pairs))
        return
    sigmas = [float(x) for x in a.sigmas.split(",")]
    band = math.log(1 + a.band)
    verdicts = {}  # (sigmas, scenario, function) -> [(unchanged, regression)]
    for b in bases:
        scenario = os.path.basename(b).split("_")[0]
        base, head = runs_p50(b), runs_p50(b.replace("_base.json", "_head.json"))
        names = [f for f in base[0] if statistics.median([r[f][1] for r in base if f in r]) >= a.min_calls]
        ref = {f: statistics.median([math.log(r[f][0]) for r in base + head if f in r]) for f in names}

        def offset(run, skip):
            return statistics.median([math.log(run[f][0]) - ref[f] for f in names if f in run and f != skip])

        for f in names:
            d, s = [], []
            for x, y in zip(base, head):
                if f in x and f in y:
                    ob, oh = offset(x, f), offset(y, f)
                    d.append((math.log(y[f][0]) - oh) - (math.log(x[f][0]) - ob))
                    s.append(oh - ob)
            if len(d) < 4:
                continue
            for k in sigmas:
                m, half = paired(d, s, k)
                verdicts.setdefault((k, scenario, f), []).append((abs(m) + half < band, m - half > band))
    scenarios = sorted({sc for _, sc, _ in verdicts}, key=lambda x: (x != "AA", x))
    print(f"{len(bases)} trials in {a.keep}; unchanged: 90% interval inside +-{a.band:.0%}; regression: above it")
    for k in sigmas:
        parts = []
        for sc in scenarios:
            mine = [(f, v) for (kk, s2, f), vs in verdicts.items() if kk == k and s2 == sc for v in vs]
            if not mine:
                continue
            slowed = a.function if sc != "AA" else None  # the rest of an A/B trial counts as A/A
            rest = [v for f, v in mine if f != slowed]
            part = (f"{sc}: unchanged {100 * sum(u for u, _ in rest) / len(rest):.0f}%, "
                    f"false regressions {sum(r for _, r in rest)}/{len(rest)}")
            if slowed:
                hit = [r for f, (_, r) in mine if f == slowed]
                if not hit:
                    sys.exit(f"pair_model: --function {slowed} has no {sc} trial with enough calls: give the "
                             f"function noise_lab.py slowed (its --function), as the results spell it")
                part += f", caught {sum(hit)}/{len(hit)} ({slowed.rsplit('/', 1)[-1]})"
            parts.append(part)
        print(f"winsorized at {k:g} robust SDs: " + "; ".join(parts))
    if a.per_function:
        print("A/A share unchanged per function, at " + " / ".join(f"{k:g}" for k in sigmas) + " robust SDs:")
        for f in sorted({f for _, sc, f in verdicts if sc == "AA"}):
            shares = [verdicts.get((k, "AA", f), []) for k in sigmas]
            print("  " + " / ".join(f"{100 * sum(u for u, _ in v) / len(v):3.0f}%" for v in shares if v) + "  " + f)


if __name__ == "__main__":
    main()
