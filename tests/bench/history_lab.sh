#!/usr/bin/env bash
# The history's acceptance (issue 40 moved it out of ctest, where it took 322 of the suite's
# seconds): the shop over 16 commits (c01-c08 the base, c09-c16 with pricing.Apply slowed) whose
# change points must name c09, and gate bisect over a git repository of 8 commits that must name
# the 5th in 3 steps (each commit's gate run: 5 runs of 1,000 orders, where ctest's takes 4 of 400);
# then, with --all, the ctest cases too (12 commits, bisect from a change point). Runs
# history_e2e_test's own cases, so it passes or fails as they do; prints each case's figures and
# wall time. Root (BPF). docs/development.md ("Suite time") records its output.
#
# Usage: tests/bench/history_lab.sh [--all]
# Environment: GATE_BUILD (default build), the build holding tests/history/history_e2e_test;
#   HISTORY_LAB_REPEAT (default 1), how many times to run the cases.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
source "$here/ci/env.sh"
filter='HistoryE2E.ShopOverCommits*:HistoryE2E.BisectNamesTheSlowedCommitOfEight'
[[ "${1:-}" == --all ]] && filter='HistoryE2E.*'
[[ "${1:-}" =~ ^(|--all)$ ]] || { sed -n '2,10p' "$0"; exit 2; }
repeat="${HISTORY_LAB_REPEAT:-1}"
[[ $(id -u) -eq 0 ]] || { echo "history_lab: needs root (gate run loads BPF); run as root" >&2; exit 2; }
exe="$GATE_BUILD/tests/history/history_e2e_test"
[[ -x "$exe" ]] || { echo "history_lab: no $exe: build it (ci/build.sh -DGATE_BUILD_TESTS=ON)" >&2; exit 2; }
start=$(date +%s)
rc=0
GATE_HISTORY_COMMITS=16 GATE_HISTORY_ORDERS=1000 GATE_HISTORY_RUNS=5 "$exe" --gtest_filter="$filter" --gtest_repeat="$repeat" || rc=$?
echo "history_lab: $repeat repeat(s) of $filter: exit $rc, $(( $(date +%s) - start )) s wall"
exit "$rc"
