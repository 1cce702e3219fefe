#!/usr/bin/env bash
# Local pre-merge performance check, also usable as a git pre-push hook: builds the merge-base of
# HEAD and the target branch in a temporary git worktree, builds the working tree in place (both
# with the config's build command), runs `gate ab` between the two binaries and prints its report.
#
# Usage: ci/pre-merge.sh [-c CONFIG] [--base REF] [--build CMD] [--gate PATH] [-- GATE_AB_ARGS...]
#   -c, --config CONFIG  gate.yaml (default: $GATE_CONFIG, `git config gate.config`, else gate.yaml at the root)
#   --base REF           the target branch (default: $GATE_BASE_REF, `git config gate.base`, the
#                        remote's default branch, origin/main, origin/master, main, master)
#   --build CMD          the build command (default: the config's `build:`), run in the config's directory
#   --gate PATH          the gate binary (default: $GATE, gate on PATH, build/gate/cli/gate)
#   after --             passed to `gate ab`, e.g. -- --runs 10 --report-dir gate-report
#   --build-only DIR     build both sides (and their layouts), copy the binaries into DIR with the
#                        gate ab arguments naming them (DIR/binaries.args) and the merge-base whose
#                        thresholds judge (DIR/thresholds-ref, for gate merge --thresholds-ref), and
#                        stop: a CI matrix's build job, whose DIR its shard jobs download (docs/sharding.md)
#   --binaries DIR       measure the binaries a --build-only wrote into DIR instead of building
#   --shard K/N --partial-out FILE   one shard of a CI matrix: gate ab --shard K/N writes its pairs
#                        to FILE and decides nothing; gate merge judges every shard's FILE
#   --base-cache DIR     keep the base's binaries in DIR (default: $GATE_BASE_CACHE), keyed by the
#                        merge-base commit, the build command, the Go version (and GOFLAGS, the
#                        layouts): a later run of the same base builds only the head
#   --base-key           print that key (empty when there is nothing to compare) and stop: the
#                        name of a CI cache entry, computed before the cache is restored
# As a hook:  ln -s ../../ci/pre-merge.sh .git/hooks/pre-push
#             git config gate.config path/to/gate.yaml      # once per clone
#             git push --no-verify   (or GATE_SKIP=1 git push) skips it once.
# Layouts: each side is built K times with -ldflags=-randlayout=SEED (through GOFLAGS; Go >= 1.23),
# K from the config's `layouts:` (default 3), $GATE_LAYOUTS overrides, 1 builds one binary a side.
# gate ab spreads its units over the variants, so that where the linker placed a function reads as
# noise, not as a change (docs/units-and-layouts.md). With an older Go: one build a side, and a warning.
# gate ab needs root (BPF): when not root it runs through sudo ($GATE_SUDO, default sudo).
# Exit codes are gate's: 0 no regression, 1 regression, 2 usage/config error, 3 could not measure.
set -euo pipefail

die() { echo "pre-merge: error: $1" >&2; [[ -n "${2:-}" ]] && echo "  fix: $2" >&2; exit 2; }
say() { echo "pre-merge: $*" >&2; }

hook=0
[[ "$(basename "$0")" == "pre-push" ]] && hook=1
if [[ -n "${GATE_SKIP:-}" ]]; then say "GATE_SKIP is set: skipped"; exit 0; fi

config="${GATE_CONFIG:-}"
base_ref="${GATE_BASE_REF:-}"
build=""
gate="${GATE:-}"
remote="origin"
ab_args=()
build_only=""
binaries_dir=""
base_cache="${GATE_BASE_CACHE:-}"
only_key=0
shard=""
partial_out=""
if [[ $hook -eq 1 ]]; then
  remote="${1:-origin}"        # git passes: remote name, url; the refs being pushed on stdin
  cat >/dev/null || true
  set --
fi
while [[ $# -gt 0 ]]; do
  case "$1" in
    -c|--config) config="${2:?}"; shift 2 ;;
    --base) base_ref="${2:?}"; shift 2 ;;
    --build) build="${2:?}"; shift 2 ;;
    --gate) gate="${2:?}"; shift 2 ;;
    --build-only) build_only="${2:?}"; shift 2 ;;
    --binaries) binaries_dir="${2:?}"; shift 2 ;;
    --shard) shard="${2:?}"; shift 2 ;;
    --partial-out) partial_out="${2:?}"; shift 2 ;;
    --base-cache) base_cache="${2:?}"; shift 2 ;;
    --base-key) only_key=1; shift ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; ab_args=("$@"); break ;;
    *) die "unknown argument '$1'" "see ci/pre-merge.sh --help" ;;
  esac
done

[[ $only_key -eq 0 || -z "$binaries_dir" ]] || die "--base-key with --binaries" "the key names a base build: give it with the options of the job that builds"
[[ -z "$build_only" || -z "$binaries_dir" ]] || die "--build-only and --binaries together" "build in one job (--build-only DIR), measure in others (--binaries DIR)"
[[ -z "$build_only" || -z "$shard" ]] || die "--build-only with --shard" "--build-only builds and measures nothing: give --shard to the jobs that measure"
if [[ -n "$shard" || -n "$partial_out" ]]; then
  [[ -n "$shard" && -n "$partial_out" ]] || die "--shard and --partial-out go together" "give both: --shard K/N --partial-out FILE"
  partial_out="$(cd "$(dirname "$partial_out")" && pwd)/$(basename "$partial_out")"  # gate may run through sudo elsewhere
  ab_args+=(--shard "$shard" --partial-out "$partial_out")
fi

root="$(git rev-parse --show-toplevel 2>/dev/null)" || die "not inside a git repository" "run it from your clone"
cd "$root"
[[ -n "$config" ]] || config="$(git config --get gate.config || true)"
[[ -n "$config" ]] || config="gate.yaml"
[[ -f "$config" ]] || die "config $config does not exist" "pass -c path/to/gate.yaml or run: git config gate.config path/to/gate.yaml"
config_abs="$(cd "$(dirname "$config")" && pwd)/$(basename "$config")"
config_rel="${config_abs#"$root"/}"
[[ "$config_rel" != "$config_abs" ]] || die "config $config is outside the repository $root" "keep gate.yaml in the repository"
config_dir_rel="$(dirname "$config_rel")"

# The binaries a --build-only job wrote: no build, no merge-base (the build job had them).
if [[ -n "$binaries_dir" ]]; then
  [[ -d "$binaries_dir" ]] || die "--binaries $binaries_dir is not a directory" "download the build job's artifact into it first"
  binaries_dir="$(cd "$binaries_dir" && pwd)"
  if [[ -f "$binaries_dir/nothing-to-compare" ]]; then say "$(cat "$binaries_dir/nothing-to-compare")"; exit 0; fi
  [[ -f "$binaries_dir/binaries.args" ]] || die "$binaries_dir has no binaries.args" "fill it with ci/pre-merge.sh --build-only $binaries_dir"
fi

# The target branch and the merge-base.
if [[ -n "$binaries_dir" ]]; then :
elif [[ -z "$base_ref" ]]; then base_ref="$(git config --get gate.base || true)"; fi
if [[ -z "$base_ref" ]]; then
  candidates=("$(git symbolic-ref -q --short "refs/remotes/$remote/HEAD" 2>/dev/null || true)" "$remote/main" "$remote/master" main master)
  for c in "${candidates[@]}"; do
    if [[ -n "$c" ]] && git rev-parse --verify -q "$c^{commit}" >/dev/null; then base_ref="$c"; break; fi
  done
fi
if [[ -z "$binaries_dir" ]]; then
[[ -n "$base_ref" ]] || die "no target branch found" "pass --base REF (e.g. --base origin/main) or run: git config gate.base origin/main"
git rev-parse --verify -q "$base_ref^{commit}" >/dev/null || die "--base $base_ref does not name a commit" "git fetch it first, or pass an existing branch"
merge_base="$(git merge-base HEAD "$base_ref")" || die "HEAD and $base_ref have no common ancestor" "pass another --base"
if [[ "$merge_base" == "$(git rev-parse HEAD)" && -z "$(git status --porcelain --untracked-files=normal)" ]]; then
  [[ $only_key -eq 1 ]] && exit 0  # no base to build: no key
  say "HEAD is the merge-base with $base_ref and the working tree is clean: nothing to compare"
  if [[ -n "$build_only" ]]; then
    mkdir -p "$build_only" && echo "HEAD was the merge-base with $base_ref: nothing to compare" > "$build_only/nothing-to-compare"
  fi
  exit 0
fi
# The pull request that adds gate.yaml: the base has no config. Both sides are built and measured
# with the head's config (copied into the base's worktree), so the first PR measures too.
config_from_head=0
if ! git cat-file -e "$merge_base:$config_rel" 2>/dev/null; then
  config_from_head=1
  say "$config_rel does not exist at the merge-base ${merge_base:0:12} (this change adds it):"
  say "  using the head's $config_rel for both sides: the base is built and measured with it"
fi
fi

# The build command and the binary from the config: top-level `build:` and `binary:` scalars.
yaml_value() {
  sed -n "s/^$1:[[:space:]]*//p" "$config_abs" | head -n1 | sed -e 's/[[:space:]]#.*$//' -e 's/[[:space:]]*$//' \
    -e "s/^\"\(.*\)\"$/\1/" -e "s/^'\(.*\)'$/\1/"
}
[[ -n "$build" ]] || build="$(yaml_value build)"
binary="$(yaml_value binary)"
[[ -n "$build" || -n "$binaries_dir" ]] || die "$config_rel has no build: command" "add one, or pass --build 'go build -o bin/app ./cmd/app'"
[[ -n "$binary" || -n "$binaries_dir" ]] || die "$config_rel has no binary:" "name the Go binary the build writes"
binary_in() { if [[ "$binary" == /* ]]; then echo "$binary"; else echo "$1/$config_dir_rel/$binary"; fi; }

# The gate binary.
if [[ -z "$gate" ]]; then
  if command -v gate >/dev/null 2>&1; then gate="$(command -v gate)"
  else
    here="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"
    for g in "$root/build/gate/cli/gate" "$here/../build/gate/cli/gate"; do [[ -x "$g" ]] && { gate="$g"; break; }; done
  fi
fi
[[ -n "$build_only" || $only_key -eq 1 || ( -n "$gate" && -x "$gate" ) ]] || die "no gate binary found" "build it (ci/build.sh), put it on PATH, or pass --gate PATH"

# The two binaries are kept (in the git directory) so that the report's "reproduce" command works
# after this script has removed its worktree.
keep="$(cd "$(git rev-parse --git-common-dir)" && pwd)/gate-pre-merge"
mkdir -p "$keep"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/gate-pre-merge.XXXXXX")"
worktree="$tmp/base"
cleanup() {
  git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true
  rm -rf "$tmp"
  git -C "$root" worktree prune >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# How many layout variants a side: GATE_LAYOUTS, else the config's layouts:, else 3; 1 when the Go
# toolchain the build uses has no -randlayout (before 1.23).
layouts="${GATE_LAYOUTS:-$(yaml_value layouts)}"
layouts="${layouts:-3}"
[[ "$layouts" =~ ^[0-9]+$ && "$layouts" -ge 1 && "$layouts" -le 64 ]] ||
  die "layouts '$layouts' (GATE_LAYOUTS or layouts: in $config_rel) is not a number from 1 to 64" "set 3, or 1 to build one binary a side"
go_version=""
[[ -n "$binaries_dir" ]] || go_version="$(cd "$root/$config_dir_rel" && go env GOVERSION 2>/dev/null || true)"
if [[ "$layouts" -gt 1 && -z "$binaries_dir" ]]; then
  go_minor="$(sed -n 's/^go1\.\([0-9]*\).*/\1/p' <<<"$go_version")"
  if [[ -z "$go_minor" || "$go_minor" -lt 23 ]]; then
    if [[ $only_key -eq 0 ]]; then
      say "warning: ${go_version:-the Go toolchain (go env GOVERSION failed)} has no -ldflags=-randlayout (Go >= 1.23): one layout a side."
      say "  risk: a function's speed follows where the linker placed it, and a layout shift can read as a change of up to ~30%"
      say "  (0.80-0.89x measured on unchanged code); use Go >= 1.23 so that several random layouts a side average it out"
    fi
    layouts=1
  fi
fi

# The base build's cache key (issue 56): everything the base's binaries follow from. The same
# merge-base, build command, Go toolchain (version, target, cgo), GOFLAGS, layouts, config path and
# binary give the same binaries, so a second push of a pull request builds only its head.
base_key=""
if [[ -z "$binaries_dir" ]]; then
  go_env="$(cd "$root/$config_dir_rel" && go env GOOS GOARCH CGO_ENABLED 2>/dev/null | tr '\n' ' ' || true)"
  base_key="$(printf '%s\n' "gate-base-1" "$merge_base" "$build" "$binary" "$config_rel" "$config_from_head" \
                "${go_version:-no-go}" "$go_env" "${GOFLAGS:-}" "$layouts" | sha256sum | cut -c1-24)"
fi
if [[ $only_key -eq 1 ]]; then echo "$base_key"; exit 0; fi

# Builds side $1 ("base" or "head") in directory $2, $layouts times with seeds from $3 on.
build_side() {
  local side="$1" dir="$2" seed="$3" i out=()
  for ((i = 1; i <= layouts; i++)); do
    local flags="${GOFLAGS:-}"
    if [[ "$layouts" -gt 1 ]]; then
      flags="${flags:+$flags }-ldflags=-randlayout=$((seed + i - 1))"
      say "building the $side ($i/$layouts, -ldflags=-randlayout=$((seed + i - 1)))"
    fi
    if ! (cd "$dir/$config_dir_rel" && GOFLAGS="$flags" sh -c "$build"); then
      echo "pre-merge: error: the build of the $side failed" >&2; exit 3
    fi
    # Copied out at once: a build that writes outside its tree would overwrite it with the next build.
    local built
    built="$(binary_in "$dir")"
    [[ -f "$built" ]] || die "the $side build did not produce $built" "check binary: in $config_rel"
    local kept="$keep/$side"
    [[ "$layouts" -gt 1 ]] && kept="$keep/$side-$i"
    cp "$built" "$kept"
    out+=(--"$side"-binary "$kept")
  done
  side_args+=("${out[@]}")
}

side_args=()
if [[ -n "$binaries_dir" ]]; then
  # One argument a line, paths relative to the directory (the artifact may land anywhere).
  while IFS= read -r arg; do
    if [[ "$arg" == --* ]]; then side_args+=("$arg"); continue; fi
    [[ -f "$binaries_dir/$arg" ]] || die "$binaries_dir/$arg (in binaries.args) is missing" "download the whole build artifact"
    chmod +x "$binaries_dir/$arg"  # artifact stores (actions/upload-artifact) drop the mode
    side_args+=("$binaries_dir/$arg")
  done < "$binaries_dir/binaries.args"
  say "config $config_rel; the binaries of $binaries_dir (built once by ci/pre-merge.sh --build-only)"
else
  say "target $base_ref, merge-base ${merge_base:0:12}; config $config_rel$([[ $config_from_head -eq 1 ]] && echo " (the head's, for both sides)"); build: $build; layouts: $layouts a side"
  cached=""
  [[ -n "$base_cache" ]] && cached="$base_cache/base-$base_key"
  if [[ -n "$cached" && -f "$cached/binaries.args" ]]; then
    # The base's binaries as a previous run of this merge-base built them: only the head is built.
    while IFS= read -r arg; do
      if [[ "$arg" == --* ]]; then side_args+=("$arg"); continue; fi
      [[ -f "$cached/$arg" ]] || die "the base cache $cached lacks $arg" "delete $cached (a partial copy) and run again"
      cp "$cached/$arg" "$keep/$arg" && chmod +x "$keep/$arg"
      side_args+=("$keep/$arg")
    done < "$cached/binaries.args"
    touch "$cached"  # recently used: kept by the pruning below
    say "the base (merge-base ${merge_base:0:12}) is in the base cache (key $base_key): building only the head"
  else
    git worktree add --quiet --detach "$worktree" "$merge_base" || die "cannot create a worktree of $merge_base in $worktree" ""
    if [[ $config_from_head -eq 1 ]]; then
      mkdir -p "$worktree/$config_dir_rel" && cp "$config_abs" "$worktree/$config_rel"
    fi
    say "building the merge-base in $worktree"
    build_side base "$worktree" 1
    if [[ -n "$cached" ]]; then
      # Written under a temporary name and renamed: a job killed half-way leaves no partial entry.
      mkdir -p "$base_cache" && rm -rf "$cached.tmp" && mkdir "$cached.tmp"
      : > "$cached.tmp/binaries.args"
      for arg in "${side_args[@]}"; do
        if [[ "$arg" == --* ]]; then echo "$arg" >> "$cached.tmp/binaries.args"
        else cp "$arg" "$cached.tmp/" && basename "$arg" >> "$cached.tmp/binaries.args"; fi
      done
      rm -rf "$cached" && mv "$cached.tmp" "$cached"
      # A cache that lives on (a Jenkins agent's folder) keeps the bases used in the last 14 days.
      find "$base_cache" -mindepth 1 -maxdepth 1 -name 'base-*' -mtime +14 -exec rm -rf {} + 2>/dev/null || true
      say "kept the base's binaries in the base cache (key $base_key)"
    fi
  fi
  say "building the working tree"
  # The head takes the base's seeds: pair i of gate ab compares two builds linked with one seed. When
  # the change leaves the list of functions alone, their order is the same on both sides and the
  # layout's effect cancels out of the pair (common random numbers); when it adds or removes one, the
  # orders differ and gate's between-layout widening covers it (docs/units-and-layouts.md).
  build_side head "$root" 1
fi
if [[ -n "$build_only" ]]; then
  mkdir -p "$build_only"
  : > "$build_only/binaries.args"
  for arg in "${side_args[@]}"; do
    if [[ "$arg" == --* ]]; then echo "$arg" >> "$build_only/binaries.args"
    else cp "$arg" "$build_only/" && basename "$arg" >> "$build_only/binaries.args"; fi
  done
  # The merge-base whose config's verdict settings judge (issue 56): gate merge --thresholds-ref
  # "$(cat DIR/thresholds-ref)" in the matrix's merge job. None when this change adds the config.
  rm -f "$build_only/thresholds-ref"
  if [[ $config_from_head -eq 0 ]]; then echo "$merge_base" > "$build_only/thresholds-ref"; fi
  say "built: $(grep -c -- '-binary' "$build_only/binaries.args") binaries in $build_only (measure them with --binaries $build_only)"
  exit 0
fi

# The verdict settings are the base's when the merge-base has the config (issue 56): a change cannot
# loosen its own gate; gate ab says so when the head's differ. (The first pull request: the head's.)
thresholds=()
if [[ -z "$binaries_dir" && $config_from_head -eq 0 ]]; then thresholds=(--thresholds-ref "$merge_base"); fi
if [[ -n "$binaries_dir" && -s "$binaries_dir/thresholds-ref" ]]; then thresholds=(--thresholds-ref "$(cat "$binaries_dir/thresholds-ref")"); fi
run=("$gate" ab -c "$config_abs" "${side_args[@]}" "${thresholds[@]}" "${ab_args[@]}")
if [[ $(id -u) -ne 0 ]]; then
  sudo_cmd="${GATE_SUDO-sudo}"
  [[ -n "$sudo_cmd" ]] || die "gate ab needs root (BPF) and GATE_SUDO is empty" "run as root, or allow sudo"
  say "gate ab needs root (BPF): running it with $sudo_cmd"
  run=("$sudo_cmd" "${run[@]}")
fi
say "gate ab${shard:+ --shard $shard}: ${binaries_dir:+the base and head binaries of $binaries_dir}${merge_base:+merge-base ${merge_base:0:12} (base) vs working tree (head)}"
set +e
"${run[@]}"
rc=$?
set -e
case $rc in
  0) if [[ -n "$shard" ]]; then say "shard $shard measured: its pairs are in $partial_out (gate merge decides)"
     else say "no regression against $base_ref"; fi ;;
  1) if [[ $hook -eq 1 ]]; then say "REGRESSION against $base_ref (see the report above); push anyway with git push --no-verify"
     else say "REGRESSION against $base_ref (see the report above)"; fi ;;
  2) say "gate could not start (usage or config error, exit 2)" ;;
  3) say "gate could not measure (exit 3)" ;;
  *) say "gate exited $rc" ;;
esac
exit $rc
