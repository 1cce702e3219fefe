#!/usr/bin/env bash
# How much code layout alone moves tests/go/layoutsens's functions: builds the same source with
# Go >= 1.23 and -ldflags=-randlayout=SEED for N seeds (function order shuffled by the linker),
# then times every candidate function by its own clock (layoutsens -bench: median ns per call
# over timed repeats), the seeds' binaries taking turns round after round so that each meets the
# machine's slow and fast spells alike. A round's figure is its fastest repeat (on a shared machine
# the slower repeats measure the neighbours more than the code). Prints per seed the median of the
# rounds' figures, and per function
# the spread max/min over seeds, next to the same spread between two copies of one binary (the
# noise floor: identical code, identical layout).
#
# Usage: tests/bench/layout_spread.sh [N [SEEDS]]   N seeds (default 8), SEEDS the first seed or a
#        comma list (default 1); env ROUNDS (default 5), REPS (default 31), MS (default 5),
#        GO (default /opt/gate-go/1.27/usr/lib/go-1.27/bin/go), KEEP=DIR keeps the binaries.
# Example: tests/bench/layout_spread.sh 8 1      (seeds 1..8; ~2 min on a 2-vCPU VM)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/ci/env.sh"
n="${1:-8}"
seeds_arg="${2:-1}"
rounds="${ROUNDS:-5}"; reps="${REPS:-31}"; ms="${MS:-5}"
go="${GO:-}"
if [[ -z "$go" ]]; then
  for cand in /opt/gate-go/1.27/usr/lib/go-1.27/bin/go /opt/gate-go/1.27/bin/go /usr/lib/go-1.27/bin/go; do
    [[ -x "$cand" ]] && { go="$cand"; break; }
  done
fi
if [[ -z "$go" || ! -x "$go" ]]; then
  echo "layout_spread: no Go 1.27 toolchain (looked in /opt/gate-go/1.27); cause: ci/setup.sh has not fetched it;" \
       "fix: run ci/setup.sh, or set GO=/path/to/go (1.23 or later, for -randlayout)" >&2
  exit 2
fi
if [[ "$("$go" tool link -help 2>&1)" != *randlayout* ]]; then
  echo "layout_spread: $go ($("$go" version)) has no -randlayout; cause: Go older than 1.23; fix: set GO to Go 1.23 or later" >&2
  exit 2
fi
if [[ "$seeds_arg" == *,* ]]; then
  IFS=, read -r -a seeds <<<"$seeds_arg"
else
  seeds=(); for ((i = 0; i < n; i++)); do seeds+=($((seeds_arg + i))); done
fi
dir="${KEEP:-$(mktemp -d /tmp/layout-spread.XXXXXX)}"
mkdir -p "$dir"
[[ -z "${KEEP:-}" ]] && trap 'rm -rf "$dir"' EXIT
src="$root/tests/go/layoutsens"
echo "# layout_spread: $("$go" version), seeds ${seeds[*]}, $rounds rounds x $reps repeats x >= $ms ms per function"
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load:$(uptime | sed 's/.*load average//')"
for s in "${seeds[@]}"; do
  (cd "$src" && "$go" build -ldflags="-randlayout=$s" -o "$dir/seed-$s" .)
done
cp "$dir/seed-${seeds[0]}" "$dir/copy-${seeds[0]}"   # the noise floor: the same binary twice
bins=("${seeds[@]/#/seed-}" "copy-${seeds[0]}")
for b in "${bins[@]}"; do
  addr=$("$go" tool nm "$dir/$b" | awk '$3 == "main.dispatch" || $3 == "main.interp" || $3 == "main.chain" || $3 == "main.tight" {printf "%s=%s ", $3, $1}')
  echo "# $b: $addr"
done
out="$dir/times.txt"; : >"$out"
for ((r = 1; r <= rounds; r++)); do
  for b in "${bins[@]}"; do
    "$dir/$b" -bench -reps "$reps" -ms "$ms" | sed "s/^/$b $r /" >>"$out"
  done
done
python3 - "$out" "${bins[@]}" <<'PY'
import statistics, sys
path, bins = sys.argv[1], sys.argv[2:]
t = {}  # (bin, fn) -> [each round's fastest repeat, ns per call]
for line in open(path):
    b, r, fn, med, mn = line.split()
    t.setdefault((b, fn), []).append(float(mn))
fns = []
for (b, fn) in t:
    if fn not in fns:
        fns.append(fn)
print("| binary | " + " | ".join(f"{fn} (us/call)" for fn in fns) + " |")
print("|---|" + "---:|" * len(fns))
for b in bins:
    print(f"| {b} | " + " | ".join(f"{statistics.median(t[(b, fn)]) / 1000:.1f}" for fn in fns) + " |")
seeds = [b for b in bins if b.startswith("seed-")]
copy = [b for b in bins if b.startswith("copy-")][0]
twin = "seed-" + copy[len("copy-"):]
print()
print("| function | spread max/min over seeds | slowest seed | fastest seed | noise floor (same binary twice) | round-to-round sd of a seed |")
print("|---|---:|---|---|---:|---:|")
for fn in fns:
    med = {b: statistics.median(t[(b, fn)]) for b in seeds}
    hi, lo = max(med, key=med.get), min(med, key=med.get)
    a, c = statistics.median(t[(twin, fn)]), statistics.median(t[(copy, fn)])
    sds = [statistics.stdev(t[(b, fn)]) / statistics.fmean(t[(b, fn)]) for b in seeds if len(t[(b, fn)]) > 1]
    sd = f"{100 * statistics.median(sds):.1f}%" if sds else "-"
    print(f"| {fn} | {med[hi] / med[lo]:.2f} | {hi} | {lo} | {max(a, c) / min(a, c):.2f} | {sd} |")
PY
