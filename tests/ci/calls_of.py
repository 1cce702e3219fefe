#!/usr/bin/env python3
"""Calls per execution of each function in gate result files (gate run --out, gate ab --out-base /
--out-head): `calls_of.py A.json [B.json]` prints them, and with two files exits 1 unless both hold
the same functions with the same calls per execution (what a PID namespace must not change)."""
import json
import sys


def calls(path):
    r = json.load(open(path))
    names = {f["id"]: f["name"] for f in r["functions"]}
    total, executions = {}, 0
    for run in r.get("runs", []):
        # A unit of several executions sums their calls; executions without probes add none.
        executions += run.get("probed_executions", run.get("executions", 1))
        cols = run["functions"]
        for i, c in zip(cols["id"], cols["calls"]):
            total[names[i]] = total.get(names[i], 0) + c
    return {n: c / executions for n, c in total.items() if c > 0}, executions


def main():
    a, na = calls(sys.argv[1])
    print(f"{sys.argv[1]}: {len(a)} functions called, {sum(a.values()):.0f} calls per execution ({na} executions)")
    if len(sys.argv) < 3:
        return 0 if a else 1
    b, nb = calls(sys.argv[2])
    print(f"{sys.argv[2]}: {len(b)} functions called, {sum(b.values()):.0f} calls per execution ({nb} executions)")
    bad = 0
    for n in sorted(set(a) | set(b)):
        same = abs(a.get(n, 0) - b.get(n, 0)) < 1e-9
        bad += not same
        print(f"  {'same' if same else 'DIFFERENT'}  {n}: {a.get(n, 0):g} vs {b.get(n, 0):g}")
    return 0 if a and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
