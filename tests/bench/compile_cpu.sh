#!/usr/bin/env bash
# A compiler launcher that logs each compile's CPU seconds (user + system, which a shared machine's
# load moves far less than wall time), wall seconds and object file, one line each, then exits as
# the compiler did. Where the build's time goes (docs/development.md, "Suite time"):
#   cmake -S . -B build -DGATE_BUILD_TESTS=ON -DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/tests/bench/compile_cpu.sh
#   cmake --build build -j2 && sort -rn /tmp/compile-cpu.log | head -20
# Environment: COMPILE_CPU_LOG (default /tmp/compile-cpu.log); COMPILE_CPU_CCACHE=1 compiles through
# ccache (hits then log ~0 s: clear the cache, or leave it off, to measure).
set -uo pipefail
log="${COMPILE_CPU_LOG:-/tmp/compile-cpu.log}"
out=? prev=
for a in "$@"; do [[ $prev == -o ]] && out=$a; prev=$a; done
times=$(mktemp)
start=$(date +%s.%N)
if [[ -n "${COMPILE_CPU_CCACHE:-}" ]]; then
  /usr/bin/time -f "%U %S" -o "$times" ccache "$@"
else
  /usr/bin/time -f "%U %S" -o "$times" "$@"
fi
rc=$?
read -r user sys < <(tail -n 1 "$times")
rm -f "$times"
awk -v u="$user" -v s="$sys" -v t0="$start" -v t1="$(date +%s.%N)" -v o="$out" \
  'BEGIN { printf "%.2f %.1f %s\n", u + s, t1 - t0, o }' >> "$log"
exit "$rc"
