#!/usr/bin/env python3
"""How a benchmark's unit should fold its executions, measured: alternating units of K executions of
a base and a head `go test -c` binary (BenchmarkHot of tests/go/hotloop unless told), each
execution's ns/op (Go's own) and cpu-ns/op (the process's user + system time over b.N, as gate's
benchmark_cpu takes it); then, for a unit of its first k executions, k = 1, 3, 5, 7, 10, K, folded
as the fastest, the mean, the median and gate's fold per mode (each mode's fastest execution weighed by
its share of the unit, the modes found over each side's executions as gate finds them; the fastest
when there are none): the pairs' head/base geometric mean ratio and the log ratio's sd a pair (what
decides how many pairs a verdict needs). Figures, not pass/fail. Run it with the load you want to know
about beside it (tests/bench/bursty_load.py, a build).

Usage: tests/bench/unit_spread.py BASE.test HEAD.test [K [PAIRS [BENCH]]]   (defaults 14, 14, BenchmarkHot)
  e.g. (cd tests/go/hotloop && go test -c -o /tmp/b.test . && go test -c -tags gateslow8 -o /tmp/h.test .)
       tests/bench/unit_spread.py /tmp/b.test /tmp/h.test
"""
import math
import os
import re
import statistics
import subprocess
import sys

if len(sys.argv) < 3 or sys.argv[1] in ('-h', '--help'):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ('-h', '--help') else 2)
base, head = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
K = int(sys.argv[3]) if len(sys.argv) > 3 else 14
pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 14
bench = sys.argv[5] if len(sys.argv) > 5 else 'BenchmarkHot'


def execute(binary):
    args = [binary, '-test.run', '^$', '-test.bench', '^%s$' % bench, '-test.benchtime', '100000x', '-test.count', '1']
    p = subprocess.Popen(args, stdout=subprocess.PIPE, env=dict(os.environ, GOMAXPROCS='2'))
    out = p.stdout.read().decode()
    _, status, ru = os.wait4(p.pid, 0)
    m = re.search(r'^%s\S*\s+(\d+)\s+([\d.]+) ns/op' % bench, out, re.M)
    if status != 0 or not m:
        sys.exit('unit_spread: %s printed no %s result (status %d)' % (binary, bench, status))
    n = int(m.group(1))
    return float(m.group(2)), (ru.ru_utime + ru.ru_stime) * 1e9 / n


print('unit_spread: K=%d executions a unit, %d pairs, %s; load %s' % (K, pairs, bench, open('/proc/loadavg').read().split()[0]))
data = []
for i in range(pairs):
    order = [(0, base), (1, head)] if i % 2 == 0 else [(1, head), (0, base)]
    unit = {}
    for side, binary in order:
        unit[side] = [execute(binary) for _ in range(K)]
    data.append(unit)
    print('pair %d: fastest ns/op base %.0f head %.0f; cpu-ns/op base %.0f head %.0f' %
          (i + 1, min(x[0] for x in unit[0]), min(x[0] for x in unit[1]), min(x[1] for x in unit[0]),
           min(x[1] for x in unit[1])), flush=True)


def find_modes(values, min_ratio=1.05):
    """gate's detector (stats/benchmark_modes.cpp): the split of the log values, or None."""
    x = sorted(math.log(v) for v in values if v > 0)
    n = len(x)
    least = max(4, math.ceil(0.10 * n))
    if n < 8 or 2 * least > n:
        return None
    best = min(range(least, n - least + 1), key=lambda i: sum((v - statistics.fmean(x[:i])) ** 2 for v in x[:i]) +
               sum((v - statistics.fmean(x[i:])) ** 2 for v in x[i:]))
    a, b = x[:best], x[best:]
    m1, m2 = statistics.fmean(a), statistics.fmean(b)
    pooled = math.sqrt((statistics.pvariance(a) + statistics.pvariance(b)) / 2)
    d = (m2 - m1) / pooled if pooled > 0 else math.inf
    valley = sum(1 for v in x if m1 + (m2 - m1) / 4 < v < m2 - (m2 - m1) / 4)
    return (x[best - 1] + x[best]) / 2 if d >= 3.5 and valley <= 0.05 * n and m2 - m1 >= math.log(min_ratio) else None


def per_mode(split):
    """gate's fold_per_mode: each mode's fastest execution weighed by its share of the unit."""
    def fold(values):
        if split is None:
            return min(values)
        modes = [[v for v in values if math.log(v) < split], [v for v in values if math.log(v) >= split]]
        return math.exp(sum(len(m) * math.log(min(m)) for m in modes if m) / len(values))
    return fold


folds = {'fastest': lambda side: min, 'mean': lambda side: statistics.mean, 'median': lambda side: statistics.median}
for metric, name in ((0, 'ns/op'), (1, 'cpu-ns/op')):
    # The modes' fold as gate takes it: each side's split found over all its executions (k = K).
    splits = [find_modes([x[metric] for u in data for x in u[side]]) for side in (0, 1)]
    splits = [s if s is not None else splits[1 - side] for side, s in enumerate(splits)]
    print('%-9s modes: base %s, head %s' % (name, 'split at %.4g' % math.exp(splits[0]) if splits[0] else 'none',
                                             'split at %.4g' % math.exp(splits[1]) if splits[1] else 'none'))
    folds['modes'] = lambda side, splits=splits: per_mode(splits[side])
    for fold, f in folds.items():
        row = []
        for k in sorted({1, 3, 5, 7, 10, K}):
            if k > K:
                continue
            lr = [math.log(f(1)([x[metric] for x in u[1][:k]]) / f(0)([x[metric] for x in u[0][:k]])) for u in data]
            row.append('k=%d %.3fx sd %.1f%%' % (k, math.exp(statistics.mean(lr)), 100 * statistics.stdev(lr)))
        print('%-9s %-7s ' % (name, fold) + '  '.join(row))
