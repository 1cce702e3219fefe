#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine, as root: install dependencies, build,
# run every test (unit, BPF probe tests against real Go binaries, end to end).
# Usage: bash ci/test.sh [ctest args...]   e.g. bash ci/test.sh -L unit   (as root; else through sudo)
# The long tier (ctest label `long`: longer checks whose features a default test also covers, listed in
# docs/development.md "Suite time") is left out unless GATE_LONG=1; `GATE_LONG=1 bash ci/test.sh -L long`
# runs it alone (its recorded results: tests/bench/results/long-tier.txt).
# ctest runs two tests at a time (-j2; GATE_TEST_JOBS overrides): the tests that measure time carry
# RUN_SERIAL and the label `timing`, so ctest runs each of them alone. The last lines: ctest's own
# ("100% tests passed, 0 tests failed out of N"), then "gate tests: ..." with the counts and the
# slowest ten tests (tests/ci/ctest_summary.py, from ctest's JUnit file). Before ctest, a line
# with the set-up's and the build's seconds (docs/development.md, "Suite time").
set -euo pipefail
source "$(dirname "$0")/env.sh"
t0=$(date +%s)
"$GATE_ROOT/ci/setup.sh"
t1=$(date +%s)
# The static build (~6 min alone) runs beside the main build, into its own log: the two share the
# two cores, and each fills the other's idle moments (configure, links, the fuzzer's own project,
# gtest discovery). ci_static_chroot and ci_glibc_floor need it, and its release assets (--dist: the
# tarball, the .deb, SHA256SUMS) serve ci_version and the template tests ci_adopt_*; its failure
# (e.g. no deb-src reachable for simdjson) leaves them skipping loudly.
static_pid=
static_log="$GATE_BUILD/build-static.log"
mkdir -p "$GATE_BUILD"
if [[ $(id -u) -ne 0 ]]; then
  echo "ci/test.sh: WARNING: not root: the BPF probe tests will SKIP; run as root (sudo bash ci/test.sh) for the full suite" >&2
elif [[ -z "${GATE_NO_STATIC:-}" ]]; then
  "$GATE_ROOT/ci/build-static.sh" --dist >"$static_log" 2>&1 &
  static_pid=$!
fi
# Test build flags (docs/development.md, "Suite time"): line tables only (-g1: backtraces keep
# file:line) instead of full debug info, which took ~30% of each compile; tests/CMakeLists.txt
# compiles the test code itself at GATE_TEST_OPTIMIZATION (-O1), gate's libraries stay at -O2.
# GATE_TEST_DEBUG_INFO=-g keeps full debug info. A unity build (CMAKE_UNITY_BUILD: up to 8 sources
# of a target compiled as one, so the headers they share are parsed and their inline code emitted
# once) and the tests' precompiled header (GATE_PCH) cut the build's CPU (docs/development.md,
# "Suite time"); GATE_UNITY_BUILD=OFF compiles each source alone.
g="${GATE_TEST_DEBUG_INFO:--g1}"
build_rc=0
"$GATE_ROOT/ci/build.sh" -DGATE_BUILD_TESTS=ON "-DCMAKE_UNITY_BUILD=${GATE_UNITY_BUILD:-ON}" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 $g -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 $g -DNDEBUG" || build_rc=$?
t2=$(date +%s)
static_note=off
if [[ -n "$static_pid" ]]; then
  if wait "$static_pid"; then
    static_note="ok, waited $(( $(date +%s) - t2 )) s after the build"
    tail -n 1 "$static_log"
  else
    static_note="FAILED"
    tail -n 20 "$static_log" >&2
    echo "ci/test.sh: WARNING: ci/build-static.sh failed ($static_log): ci_static_chroot will SKIP (GATE_NO_STATIC=1 skips the build)" >&2
  fi
fi
[[ $build_rc -eq 0 ]] || { echo "ci/test.sh: ci/build.sh failed (exit $build_rc)" >&2; exit "$build_rc"; }
t3=$(date +%s)
echo "ci/test.sh: set-up $(( t1 - t0 )) s, build $(( t2 - t1 )) s, static build $static_note; $(( t3 - t0 )) s before ctest"
cd "$GATE_BUILD"
junit="$GATE_BUILD/ctest-junit.xml"
rm -f "$junit"
start=$(date +%s)
rc=0
tier=(-LE long)
# GATE_LONG=1, or ctest asked for the tier by its label (-L long), runs it.
if [[ -n "${GATE_LONG:-}" || " $* " == *" -L long "* ]]; then
  tier=()
else
  long=$(ctest -N -L long | sed -n 's/^Total Tests: //p')
  echo "ci/test.sh: the long tier's ${long:-0} tests are left out (GATE_LONG=1 runs them; docs/development.md, \"Suite time\")"
fi
ctest -j"${GATE_TEST_JOBS:-2}" --output-on-failure --timeout 900 --output-junit "$junit" "${tier[@]}" "$@" || rc=$?
# The summary fails too where a test printed TOO NOISY TO DECIDE inside a whole-binary ctest entry
# (ctest counts such an entry as passed): a test that could not decide has not passed (issue 54).
summary_rc=0
python3 "$GATE_ROOT/tests/ci/ctest_summary.py" "$junit" $(( $(date +%s) - start )) || summary_rc=$?
[[ $rc -eq 0 && $summary_rc -ne 0 ]] && rc=$summary_rc
exit "$rc"
