#!/usr/bin/env python3
"""Issue 54's acceptance on a real upstream change: two `go test -c` binaries of an open-source Go
library (its commit before a change and the change), given as paths. It measures
  1. the paired bare truth over processes: PAIRS pairs, base and head alternated (ABBA), each side one
     process per --run line, GOMAXPROCS=2, no gate; per sub-benchmark and unit the head/base ratio of
     the processes' geometric means with a paired t interval (95%) over the pairs, and the modes
     across each side's processes (the same rule as gate's stats/benchmark_modes.cpp);
  2. gate's verdicts: `gate ab` of a benchmarks-only config (`benchmarks: go`, band 5%) running the
     same lines, TRIALS times, and its A/A (base against a copy of itself) AA times;
then says per sub-benchmark whether gate agrees with the truth: no regression (improvement) where
the truth's interval does not lie above (below) 1, no "unchanged" where it lies wholly outside the
band, a benchmark with modes named as such; and whether every A/A exited 0. Root (gate ab). The
library is not part of gate: fetch it, build its two test binaries yourself, and pass them here.

Usage: tests/bench/upstream_change.py --base BASE.test --head HEAD.test --run 'REGEX=BENCHTIME' ...
         [--label TEXT] [--pairs 24] [--trials 5] [--aa 5] [--band 0.05] [--cpu] [--gate build/gate/cli/gate]
  e.g. --run '^BenchmarkSum64/(4B|16B|100B)$=2000000x' --run '^BenchmarkSum64/4KB$=50000x'
"""
import argparse
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r'^(Benchmark\S+)\s+(\d+)\s+(.*)$')


def parse(out):
    """{(name, unit): value} of every result line of `go test -bench` output."""
    res = {}
    for line in out.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        fields = m.group(3).split()
        for v, unit in zip(fields[0::2], fields[1::2]):
            try:
                res[(m.group(1), unit)] = float(v)
            except ValueError:
                pass
    return res


def execute(binary, runs, cpu):
    """One process per run line; with `cpu` also cpu-ns/op as gate's benchmark_cpu takes it (the
    process's user + system time over its b.N: one benchmark a line), from the reaped children's
    rusage before and after it (one child at a time)."""
    res = {}
    for regex, benchtime in runs:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([binary, '-test.run', '^$', '-test.bench', regex, '-test.benchtime', benchtime,
                            '-test.count', '1'], capture_output=True, text=True, env=dict(os.environ, GOMAXPROCS='2'))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.exit('upstream_change: %s -test.bench %s exited %d: %s' % (binary, regex, p.returncode, p.stderr[-500:]))
        res.update(parse(p.stdout))
        if cpu:
            lines = [m for m in (LINE.match(l.strip()) for l in p.stdout.splitlines()) if m]
            if len(lines) != 1:
                sys.exit('upstream_change: --cpu needs one benchmark a --run line; %s printed %d' % (regex, len(lines)))
            seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            res[(lines[0].group(1), 'cpu-ns/op')] = seconds * 1e9 / int(lines[0].group(2))
    return res


def higher_is_better(unit):
    return unit.endswith('/s')


def find_modes(values, min_ratio):
    """gate's rule (stats/benchmark_modes.cpp): the best 2-group split of the log values, kept when
    each group has >= max(4, 10%) values, Ashman's D >= 3.5, <= 5% of the values lie in the middle
    half between the centers, and the centers are min_ratio apart. Returns the split or None."""
    x = sorted(math.log(v) for v in values if v > 0)
    n = len(x)
    least = max(4, math.ceil(0.10 * n))
    if n < 8 or 2 * least > n:
        return None
    best = None
    for i in range(least, n - least + 1):
        a, b = x[:i], x[i:]
        ss = sum((v - statistics.fmean(a)) ** 2 for v in a) + sum((v - statistics.fmean(b)) ** 2 for v in b)
        if best is None or ss < best[0]:
            best = (ss, i)
    i = best[1]
    a, b = x[:i], x[i:]
    m1, m2 = statistics.fmean(a), statistics.fmean(b)
    pooled = math.sqrt((statistics.pvariance(a) + statistics.pvariance(b)) / 2)
    d = (m2 - m1) / pooled if pooled > 0 else math.inf
    lo, hi = m1 + (m2 - m1) / 4, m2 - (m2 - m1) / 4
    valley = sum(1 for v in x if lo < v < hi)
    if d >= 3.5 and valley <= 0.05 * n and m2 - m1 >= math.log(min_ratio):
        return (x[i - 1] + x[i]) / 2
    return None


T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 12: 2.18,
        15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04, 40: 2.02, 60: 2.00}


def t975(df):
    keys = sorted(k for k in T975 if k <= df)
    return T975[keys[-1]] if keys else T975[1]


def paired(base, head):
    """head/base geometric-mean ratio with a paired t 95% interval over the pairs."""
    d = [math.log(h / b) for b, h in zip(base, head) if b > 0 and h > 0]
    mean = statistics.fmean(d)
    half = t975(len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.inf
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def verdict_of(ratio_worse_lo, ratio_worse_hi, band):
    if ratio_worse_lo > 1 + band:
        return 'regression'
    if ratio_worse_hi < 1 - band:
        return 'improvement'
    if ratio_worse_lo >= 1 - band and ratio_worse_hi <= 1 + band:
        return 'unchanged'
    return 'inconclusive'


def truth(args, runs, base, head):
    print('## bare truth: %d pairs, base and head alternated (ABBA), one process per line a side, GOMAXPROCS=2; load %s'
          % (args.pairs, open('/proc/loadavg').read().split()[0]), flush=True)
    values = {}  # (name, unit) -> ([base...], [head...])
    for i in range(args.pairs):
        order = [(0, base), (1, head)] if i % 2 == 0 else [(1, head), (0, base)]
        got = [None, None]
        for side, binary in order:
            got[side] = execute(binary, runs, args.cpu)
        for key in got[0].keys() & got[1].keys():
            values.setdefault(key, ([], []))
            values[key][0].append(got[0][key])
            values[key][1].append(got[1][key])
    out = {}
    for key in sorted(values):
        b, h = values[key]
        r, lo, hi = paired(b, h)
        worse = (1 / r, 1 / hi, 1 / lo) if higher_is_better(key[1]) else (r, lo, hi)
        modes = {}
        for side, vs in (('base', b), ('head', h)):
            split = find_modes(vs, 1 + args.band)
            if split is not None:
                low = [v for v in vs if math.log(v) < split]
                high = [v for v in vs if math.log(v) >= split]
                modes[side] = '%d at %.4g-%.4g, %d at %.4g-%.4g' % (len(low), min(low), max(low), len(high), min(high), max(high))
        out[key] = dict(ratio=r, lo=lo, hi=hi, verdict=verdict_of(worse[1], worse[2], args.band), modes=modes,
                        base=b, head=h)
        print('%-28s %-6s head/base %.3f [%.3f, %.3f] %-12s base %s | head %s%s' % (
            key[0], key[1], r, lo, hi, out[key]['verdict'], ' '.join('%.4g' % v for v in sorted(b)),
            ' '.join('%.4g' % v for v in sorted(h)),
            ''.join('; modes in %s: %s' % (s, m) for s, m in modes.items())), flush=True)
    return out


def config(path, binary, runs, band, cpu):
    lines = '\n'.join('  "$GATE_BINARY" -test.run \'^$\' -test.bench \'%s\' -test.benchtime %s -test.count 1' % r for r in runs)
    with open(path, 'w') as f:
        f.write('name: upstream-change\nbinary: %s\nworkload: |\n%s\nbenchmarks: go\nruns: 5\nmax_runs: 20\n'
                'timeout: 600s\nenv: {GOMAXPROCS: "2"}\nthreshold: %g%%\n%s' % (binary, lines, band * 100,
                                                                      'benchmark_cpu: true\n' if cpu else ''))


def gate_trial(args, cfg, base, head, kind, k, tmp, part=''):
    report = os.path.join(tmp, 'r-%s-%d%s' % (kind, k, part))
    t0 = time.time()
    p = subprocess.run([args.gate, 'ab', '-c', cfg, '--base-binary', base, '--head-binary', head, '-q', '--report-dir',
                        report], capture_output=True, text=True)
    secs = time.time() - t0
    try:
        r = json.load(open(os.path.join(report, 'report.json')))
    except OSError:
        print('%s %d: exit %d, no report (%.0f s): %s' % (kind, k, p.returncode, secs, p.stderr[-300:]), flush=True)
        return p.returncode, {}
    got = {}
    for m in r['benchmarks']['metrics']:
        got[(m['benchmark'], m['unit'])] = m
    print('%s %d: exit %d at %d pairs, %.0f s, load %s; last line: %s' % (
        kind, k, p.returncode, r['base_runs'], secs, open('/proc/loadavg').read().split()[0], r['summary']), flush=True)
    for key, m in sorted(got.items()):
        modes = m.get('modes')
        print('  %-28s %-6s %-12s %s%s' % (key[0], key[1], m['verdict'], m['change'],
                                          '; ' + modes['note'] if modes else ''), flush=True)
    return p.returncode, got


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True)
    ap.add_argument('--head', required=True)
    ap.add_argument('--run', action='append', required=True, help="REGEX=BENCHTIME, e.g. '^BenchmarkX$=1000x'")
    ap.add_argument('--label', default='')
    ap.add_argument('--pairs', type=int, default=24)
    ap.add_argument('--trials', type=int, default=5)
    ap.add_argument('--aa', type=int, default=5)
    ap.add_argument('--band', type=float, default=0.05)
    ap.add_argument('--cpu', action='store_true', help='benchmark_cpu: true (cpu-ns/op beside ns/op; one benchmark a --run line)')
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--gate', default=os.environ.get('GATE', os.path.join(here, 'build/gate/cli/gate')))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('upstream_change: needs root (gate ab); run as root')
    runs = [tuple(r.rsplit('=', 1)) for r in args.run]
    tmp = tempfile.mkdtemp(prefix='gate-upstream-')
    try:
        base, head, copy = (os.path.join(tmp, n) for n in ('base.test', 'head.test', 'base-copy.test'))
        shutil.copy(args.base, base)
        shutil.copy(args.head, head)
        shutil.copy(args.base, copy)
        gate_version = subprocess.run([args.gate, '--version'], capture_output=True, text=True).stdout.strip()
        print('upstream_change: %s; %s; band %g%%%s; runs %s' % (
            args.label, gate_version, 100 * args.band, '; benchmark_cpu: true' if args.cpu else '',
            ', '.join('%s at %s' % r for r in runs)), flush=True)
        t = truth(args, runs, base, head)
        # benchmark_cpu needs one benchmark an execution: with --cpu each run line is a gate of its own.
        groups = [[r] for r in runs] if args.cpu else [runs]
        cfgs = []
        for g, lines in enumerate(groups):
            cfgs.append(os.path.join(tmp, 'gate-%d.yaml' % g))
            config(cfgs[-1], base, lines, args.band, args.cpu)

        def trial(head_binary, kind, k):
            code, got = 0, {}
            for g, cfg in enumerate(cfgs):
                c, m = gate_trial(args, cfg, base, head_binary, kind, k, tmp, '' if len(cfgs) == 1 else '-%d' % g)
                code = max(code, c)
                got.update(m)
            return code, got
        print('## gate ab, head against base, %d trials%s' % (args.trials, ', a gate ab per line' if len(cfgs) > 1 else ''),
              flush=True)
        trials = [trial(head, 'head', k + 1) for k in range(args.trials)]
        print('## gate ab, A/A (base against a copy of itself), %d trials' % args.aa, flush=True)
        aas = [trial(copy, 'aa', k + 1) for k in range(args.aa)]
        print('## acceptance, per sub-benchmark and unit: the truth, gate\'s verdicts over the trials', flush=True)
        agree = True
        for key, tr in sorted(t.items()):
            verdicts, named = [], 0
            lo_worse, hi_worse = (1 / tr['hi'], 1 / tr['lo']) if higher_is_better(key[1]) else (tr['lo'], tr['hi'])
            bad = []
            for code, got in trials:
                m = got.get(key)
                if not m:
                    continue
                verdicts.append(m['verdict'])
                named += 'modes' in m
                if m['verdict'] == 'regression' and not lo_worse > 1:
                    bad.append('regression where the truth shows no slowdown')
                if m['verdict'] == 'improvement' and not hi_worse < 1:
                    bad.append('improvement where the truth shows no speed-up')
                if m['verdict'] == 'unchanged' and (lo_worse > 1 + args.band or hi_worse < 1 - args.band):
                    bad.append('unchanged where the truth lies outside the band')
            if tr['modes'] and named == 0:
                bad.append('modes in the truth, named in no trial')
            agree &= not bad
            print('%-28s %-6s truth %.3f [%.3f, %.3f] %-12s gate: %s%s%s' % (
                key[0], key[1], tr['ratio'], tr['lo'], tr['hi'], tr['verdict'],
                ', '.join('%s %d' % (v, verdicts.count(v)) for v in sorted(set(verdicts))),
                '; modes named in %d of %d trials' % (named, len(verdicts)) if named or tr['modes'] else '',
                '; DISAGREES: ' + '; '.join(sorted(set(bad))) if bad else ''), flush=True)
        aa_ok = all(code == 0 for code, _ in aas)
        print('A/A: exit %s' % ', '.join(str(code) for code, _ in aas))
        print('acceptance: gate agrees with the truth for every sub-benchmark: %s; every A/A passed: %s'
              % ('yes' if agree else 'NO', 'yes' if aa_ok else 'NO'))
        return 0 if agree and aa_ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
