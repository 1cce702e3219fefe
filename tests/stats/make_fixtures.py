#!/usr/bin/env python3
# Reference values for tests/stats, computed independently of gate with numpy/scipy, written as
# JSON to tests/stats/fixtures/. Regenerate: /usr/bin/python3 tests/stats/make_fixtures.py
"""Independent reference values for gate's statistics.

Every value here comes from numpy/scipy or from a straightforward re-implementation in Python of
a definition (histogram bucketing, Holm, the bootstrap procedure), never from gate's C++ code.
Deterministic: fixed seeds, so re-running rewrites identical files.
"""

import json
import math
import os

import numpy as np
from scipy import special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

# ---- histogram bucketing (bpf/gate_shared.h, re-implemented) ----------------------------------
SUB_BITS = 5
SUB = 1 << SUB_BITS
MAX_EXP = 41
BUCKETS = (MAX_EXP - SUB_BITS + 2) * SUB


def bucket_of(ns):
    if ns < 2 * SUB:
        return int(ns)
    e = int(ns).bit_length() - 1
    if e > MAX_EXP:
        return BUCKETS - 1
    sub = (int(ns) >> (e - SUB_BITS)) & (SUB - 1)
    return (e - SUB_BITS + 1) * SUB + sub


def lower_of(b):
    if b < 2 * SUB:
        return b
    e = b // SUB + SUB_BITS - 1
    return (SUB + b % SUB) << (e - SUB_BITS)


def width_of(b):
    if b < 2 * SUB:
        return 1
    e = b // SUB + SUB_BITS - 1
    return 1 << (e - SUB_BITS)


def histogram(samples):
    counts = {}
    for s in samples:
        b = bucket_of(int(s))
        counts[b] = counts.get(b, 0) + 1
    return sorted(counts.items())


def hist_quantile(hist, q):
    """G^-1(q): the calls of a bucket spread evenly over it; rank q * count."""
    total = sum(n for _, n in hist)
    rank = q * total
    seen = 0
    for i, (b, n) in enumerate(hist):
        if rank <= seen + n or i == len(hist) - 1:
            frac = min(max((rank - seen) / n, 0.0), 1.0)
            return lower_of(b) + frac * width_of(b)
        seen += n
    raise AssertionError("unreachable")


def write(name, data):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


# ---- distributions ----------------------------------------------------------------------------
def distributions():
    normal_cdf = [{"z": z, "cdf": stats.norm.cdf(z), "upper": stats.norm.sf(z)}
                  for z in [-38.0, -12.0, -8.5, -5.0, -3.3, -1.96, -1.0, -0.1, 0.0, 0.3, 1.5, 2.5, 4.0, 7.0, 9.5]]
    normal_quantile = [{"p": p, "z": stats.norm.ppf(p)}
                       for p in [1e-300, 1e-100, 1e-15, 1e-8, 1e-4, 0.001, 0.01, 0.02425, 0.025, 0.1, 0.3, 0.5,
                                 0.7, 0.9, 0.975, 0.97575, 0.999, 1 - 1e-6, 1 - 1e-12]]
    incomplete_beta = []
    for a, b in [(0.5, 0.5), (1, 1), (2.5, 0.5), (9, 0.5), (0.5, 7), (5, 5), (50, 0.5), (20, 30), (490, 10.5)]:
        for x in [1e-6, 0.01, 0.2, 0.5, 0.8, 0.97, 0.999999]:
            incomplete_beta.append({"x": x, "a": a, "b": b, "value": special.betainc(a, b, x)})
    student_t = []
    for nu in [1, 2.5, 4, 8.7, 17.9, 38, 200, 1e6]:
        for t in [-30, -6, -2.1, -0.5, 0, 0.7, 1.96, 3.3, 5, 12, 40]:
            student_t.append({"t": t, "nu": nu, "cdf": stats.t.cdf(t, nu), "upper": stats.t.sf(t, nu)})
    student_t_quantile = []
    for nu in [1, 2.5, 4, 8.7, 17.9, 38, 200, 1e6]:
        for p in [1e-9, 1e-5, 0.001, 0.0125, 0.025, 0.3, 0.5, 0.8, 0.975, 0.9995, 1 - 1e-7]:
            student_t_quantile.append({"p": p, "nu": nu, "t": stats.t.ppf(p, nu)})
    beta_quantile = []
    # The Beta distributions of a run's order statistic: a = q (n + 1), b = (1 - q)(n + 1), for the
    # calls per run gate accepts (>= 10 calls beyond the quantile), plus a few outside that range.
    for n, q in [(20, 0.5), (25, 0.5), (100, 0.9), (150, 0.9), (1000, 0.99), (2000, 0.5), (2000, 0.9),
                 (2000, 0.99), (10000, 0.999), (100000, 0.99), (12, 0.5)]:
        a, b = q * (n + 1), (1 - q) * (n + 1)
        for p in [0.005, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, 0.995]:
            beta_quantile.append({"p": p, "a": a, "b": b, "x": stats.beta.ppf(p, a, b),
                                  "sd": stats.beta.std(a, b)})
    write("distributions.json", {
        "normal_cdf": normal_cdf, "normal_quantile": normal_quantile, "incomplete_beta": incomplete_beta,
        "student_t": student_t, "student_t_quantile": student_t_quantile, "beta_quantile": beta_quantile,
    })


# ---- multiplicity -----------------------------------------------------------------------------
def holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def multiplicity():
    rng = np.random.default_rng(11)
    cases = []
    vectors = [
        [0.01, 0.04, 0.03, 0.005],
        [0.5],
        [1e-9, 0.2, 1e-6, 0.049, 0.7, 0.0004, 0.9, 0.003, 0.02, 0.011],
        [0.01, 0.01, 0.01, 0.2, 0.2],  # ties
        list(rng.uniform(0, 1, 60)),
        list(np.concatenate([rng.uniform(0, 1e-4, 3), rng.uniform(0, 1, 37)])),
    ]
    for p in vectors:
        p = [float(x) for x in p]
        cases.append({"p": p, "holm": holm(p), "bonferroni": [min(1.0, x * len(p)) for x in p]})
    write("multiplicity.json", {"cases": cases})


# ---- histogram quantiles ----------------------------------------------------------------------
def histogram_quantiles():
    rng = np.random.default_rng(5)
    datasets = [
        ("lognormal 50us", np.floor(rng.lognormal(math.log(50000), 0.5, 3000))),
        ("lognormal 300ns wide", np.floor(rng.lognormal(math.log(300), 1.2, 2000))),
        ("tiny latencies", np.floor(rng.uniform(0, 200, 500))),
        ("bimodal", np.floor(np.concatenate([rng.normal(20000, 500, 900), rng.normal(2e6, 1e5, 100)]))),
        ("few calls", np.floor(rng.lognormal(math.log(8000), 0.3, 21))),
    ]
    levels = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0]
    out = []
    for name, x in datasets:
        x = np.maximum(x, 0).astype(np.int64)
        xs = np.sort(x)
        hist = histogram(x)
        out.append({
            "name": name,
            "samples": [int(v) for v in x],
            "buckets": [[int(b), int(n)] for b, n in hist],
            "levels": levels,
            # numpy on the raw calls, and the buckets of the calls around rank q * n: the histogram's
            # answer must lie between them (numpy's too, except that it interpolates across gaps)
            "numpy": [float(np.quantile(x, q)) for q in levels],
            "bracket_low": [float(lower_of(bucket_of(int(xs[max(0, math.floor(q * len(xs)) - 1)]))))
                            for q in levels],
            "bracket_high": [float(lower_of(b) + width_of(b))
                             for b in (bucket_of(int(xs[min(len(xs) - 1, math.ceil(q * len(xs)))])) for q in levels)],
            # the same definition gate uses (interpolated inside the bucket), computed here
            "interpolated": [hist_quantile(hist, q) for q in levels],
        })
    write("histogram_quantiles.json", {"datasets": out})


# ---- the within-run level of the bootstrap ----------------------------------------------------
def within_run():
    """Brute force: draw n calls from the histogram (a bucket by count, then uniform inside it),
    take their q-quantile (Weibull positions, (n+1)q: unbiased for the level), many times."""
    rng = np.random.default_rng(9)
    cases = []
    for n, q, sigma in [(2000, 0.5, 0.5), (2000, 0.9, 0.5), (2000, 0.99, 0.5), (1000, 0.99, 0.8),
                        (200, 0.9, 0.3), (25, 0.5, 0.4), (5000, 0.5, 0.05)]:
        x = np.floor(rng.lognormal(math.log(40000), sigma, n)).astype(np.int64)
        hist = histogram(x)
        b = np.array([lower_of(k) for k, _ in hist], dtype=float)
        w = np.array([width_of(k) for k, _ in hist], dtype=float)
        c = np.array([v for _, v in hist], dtype=float)
        reps = 20000
        idx = rng.choice(len(hist), size=(reps, n), p=c / c.sum())
        draws = b[idx] + rng.uniform(0, 1, (reps, n)) * w[idx]
        qs = np.quantile(draws, q, axis=1, method="weibull")
        lq = np.log(np.maximum(qs, 1.0))
        cases.append({
            "n": n, "q": q, "buckets": [[int(k), int(v)] for k, v in hist],
            "point": hist_quantile(hist, q),
            "log_mean": float(lq.mean()), "log_sd": float(lq.std()),
            "log_percentiles": {str(p): float(np.percentile(lq, p)) for p in [5, 25, 50, 75, 95]},
        })
    write("within_run.json", {"cases": cases})


# ---- the bootstrap on plain per-run values ----------------------------------------------------
def robust_sd(abs_dev):
    mad = 1.4826 * np.median(abs_dev)
    return mad if mad > 0 else 1.2533 * np.mean(abs_dev)


def winsorize_pair(xb, xh, sigmas=4.0):
    """Clip each side to its median +- sigmas * s, s = max(own robust sd, pooled robust sd)
    (runs known exactly: no within-run sd)."""
    mb, mh = np.median(xb), np.median(xh)
    db, dh = np.abs(xb - mb), np.abs(xh - mh)
    pooled = robust_sd(np.concatenate([db, dh]))
    out = []
    for x, m, d in ((xb, mb, db), (xh, mh, dh)):
        s = max(robust_sd(d), pooled)
        out.append(np.clip(x, m - sigmas * s, m + sigmas * s))
    return out


def bootstrap_reference(base_ns, head_ns, confidence, reps, rng):
    """gate's procedure for runs known exactly (no within-run level), written from its definition:
    winsorized mean of log values per side; replicates = mean of runs drawn with replacement,
    rescaled around the estimate to the unbiased variance; Welch df; percentile levels of a t
    interval."""
    sides = []
    clipped = winsorize_pair(np.log(np.asarray(base_ns, dtype=float)), np.log(np.asarray(head_ns, dtype=float)))
    for x in clipped:
        n = len(x)
        est = x.mean()
        between = ((x - est) ** 2).mean()
        target = between * n / (n - 1)
        shrink = math.sqrt(target / between) if between > 0 else 0.0
        rep = x[rng.integers(0, n, size=(reps, n))].mean(axis=1)
        sides.append({"x": x, "n": n, "est": est, "var": target / n, "rep": est + shrink * (rep - est)})
    b, h = sides
    den = b["var"] ** 2 / (b["n"] - 1) + h["var"] ** 2 / (h["n"] - 1)
    df = (b["var"] + h["var"]) ** 2 / den if den > 0 else b["n"] + h["n"] - 2
    df = max(1.0, df)
    diffs = h["rep"] - b["rep"]
    t_crit = stats.t.ppf(1 - (1 - confidence) / 2, df)
    level = stats.norm.cdf(-t_crit)
    lo, hi = np.percentile(diffs, [100 * level, 100 * (1 - level)])
    # Textbook Welch t interval on the same winsorized log values: an independent check.
    se = math.sqrt(b["var"] + h["var"])
    d = h["est"] - b["est"]
    return {
        "ratio": math.exp(d), "df": df, "ci_low": math.exp(lo), "ci_high": math.exp(hi),
        "welch_low": math.exp(d - t_crit * se), "welch_high": math.exp(d + t_crit * se),
    }


def bootstrap_plain():
    rng = np.random.default_rng(21)
    cases = []
    specs = [
        ("10 runs, 3% noise, +10%", 10, 10, 0.03, 1.10, None),
        ("10 runs, 5% noise, unchanged", 10, 10, 0.05, 1.00, None),
        ("5 vs 8 runs, 4% noise, -7%", 5, 8, 0.04, 0.93, None),
        ("20 runs, 2% noise, +3%", 20, 20, 0.02, 1.03, None),
        ("10 runs with a 2x outlier run in head", 10, 10, 0.03, 1.00, 2.0),
    ]
    for name, nb, nh, sigma, shift, outlier in specs:
        base = 50000 * np.exp(rng.normal(0, sigma, nb))
        head = 50000 * shift * np.exp(rng.normal(0, sigma, nh))
        if outlier:
            head[3] *= outlier
        ref = bootstrap_reference(base, head, 0.95, 200000, rng)
        cases.append({"name": name, "base_ns": [float(v) for v in base], "head_ns": [float(v) for v in head],
                      "confidence": 0.95, **ref})
    write("bootstrap_plain.json", {"cases": cases})


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    distributions()
    multiplicity()
    histogram_quantiles()
    within_run()
    bootstrap_plain()
