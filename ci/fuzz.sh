#!/usr/bin/env bash
# Builds gate's libFuzzer target (tests/fuzz: the ELF, function-table, probe-site and DWARF readers
# under ASan + UBSan) with clang and runs it over the seed corpus tests/fuzz/corpus/.
# Usage: ci/fuzz.sh [--seconds N] [--jobs J] [--build-dir DIR] [--no-build] [--fresh] [-- libFuzzer args...]
#   --seconds N   total fuzzing time (default 60); --jobs J: J parallel fuzzing processes
#   New inputs go to DIR/corpus-work (kept between runs, so long runs build on each other; --fresh:
#   a scratch directory instead, so a short run starts from the seeds), crashes to DIR/artifacts/.
#   The committed corpus is never changed.
#   Exit status: 0 clean, 1 crash/leak/timeout found (see the artifact it names), 2 usage/build error.
set -euo pipefail
source "$(dirname "$0")/env.sh"

seconds=60 jobs=1 build="$GATE_BUILD/fuzz" do_build=1 fresh=0 extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --fresh) fresh=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "ci/fuzz.sh: unknown argument '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done

if [[ $do_build -eq 1 ]]; then
  cxx=$(command -v clang++-14 || command -v clang++ || true)
  if [[ -z "$cxx" ]]; then
    echo "ci/fuzz.sh: no clang++: install clang-14 and libclang-rt-14-dev (ci/setup.sh)" >&2
    exit 2
  fi
  cmake -S "$GATE_ROOT/tests/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$(nproc)"
fi
fuzzer="$build/fuzz_binary"
if [[ ! -x "$fuzzer" ]]; then
  echo "ci/fuzz.sh: $fuzzer was not built (clang++ with the libFuzzer runtime: libclang-rt-14-dev)" >&2
  exit 2
fi

work="$build/corpus-work"
if [[ $fresh -eq 1 ]]; then
  work=$(mktemp -d "$build/corpus-fresh.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work" "$build/artifacts"
# -max_len: libFuzzer's default caps inputs at 1 MB and would cut the stripped Go 1.27 seed (1.2 MB)
# short of its section headers.
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -max_len=1400000
      -artifact_prefix="$build/artifacts/")
if [[ $jobs -gt 1 ]]; then
  # -fork: one supervisor, J workers sharing the corpus; stops at the first crash.
  args+=(-fork="$jobs" -ignore_crashes=0)
fi
echo "ci/fuzz.sh: $fuzzer for ${seconds}s, $jobs job(s), seeds: tests/fuzz/corpus ($(ls "$GATE_ROOT/tests/fuzz/corpus" | wc -l) files)"
set +e
"$fuzzer" "${args[@]}" "${extra[@]}" "$work" "$GATE_ROOT/tests/fuzz/corpus"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "ci/fuzz.sh: FOUND A BUG (exit $rc): reproduce with $fuzzer $build/artifacts/<the file named above>" >&2
  exit 1
fi
echo "ci/fuzz.sh: no crash, hang or sanitizer report in ${seconds}s"
