#!/usr/bin/env bash
# The long tier (ctest label `long`), run alone in a built tree, its record printed: the machine, the
# commit, each test's result and seconds, and ctest_summary.py's closing line. ci/test.sh leaves
# these tests out unless GATE_LONG=1 (docs/development.md, "Suite time": why each is long and which
# default test covers its feature); the docs cite this script's last output,
# tests/bench/results/long-tier.txt.
# Usage: tests/bench/long_tier.sh [BUILD_DIR] > tests/bench/results/long-tier.txt   (as root)
set -uo pipefail
source "$(dirname "$0")/../../ci/env.sh"
build="${1:-$GATE_BUILD}"
cd "$build" || { echo "long_tier.sh: no build folder $build: run ci/build.sh or ci/test.sh first" >&2; exit 2; }
build=$(pwd)
echo "# tests/bench/long_tier.sh $build"
echo "# $(date -u +%FT%TZ), gate $(git -C "$GATE_ROOT" rev-parse --short HEAD), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $("$build/gate/cli/gate" --version 2>/dev/null | head -n1)"
junit="$build/long-tier-junit.xml"
rm -f "$junit"
start=$(date +%s)
rc=0
log="$build/long-tier.log"
ctest -L long -j"${GATE_TEST_JOBS:-2}" -V --output-junit "$junit" --timeout 900 > "$log" 2>&1
ctest_rc=$?
# Each test's result and seconds, then the figures behind its verdicts (ctest -V prefixes a test's
# lines with its number): the hog A/A's slowdown and merges, the adopt tests' steps, the chroot's checks.
grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|Total Test' "$log"
echo "# the figures, by test number:"
grep -E '^[0-9]+: (--- |Apply own|gate: [0-9]+ regression|ok: |FAIL: |=== |adopt_test [a-z]+: )' "$log" | cut -c1-400
python3 "$GATE_ROOT/tests/ci/ctest_summary.py" "$junit" $(( $(date +%s) - start )) || rc=$?
echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $ctest_rc -ne 0 ]] && rc=$ctest_rc
exit "$rc"
