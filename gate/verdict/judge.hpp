// The work of check, ab and compare between parsing and printing: measure (until decided) and
// compare, then the checks that make a comparison trustworthy. The CLI parses flags, calls one of
// these and prints the reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/annotations.hpp"
#include "results/result.hpp"
#include "runner/measure.hpp"
#include "stats/compare.hpp"

namespace gate::verdict {

struct Checked {
  runner::Measurement head;  // head.failure set: a run failed (the result is partial)
  stats::Comparison comparison;
  // Facts beside the verdicts (code, profile, units, layouts): every report shows them.
  Annotations notes;
};
// gate check: build (unless skipped), warm up, then measure head until decided against `base`,
// between opts.runs (or the config's) and max_runs (or the config's). Does not throw for a failed run.
Checked check(const runner::Config& cfg, const ResultFile& base, const runner::MeasureOptions& opts, int max_runs,
              runner::SignalWatch* signals);
// After check: a failed run is its error (exit 3); a baseline sharing no function with head is an
// error (exit 2); a config changed since the baseline becomes a warning of the comparison.
void settle(Checked& c, const ResultFile& base, const std::string& base_path);

struct AbJudged {
  runner::Measurement base, head;
  stats::Comparison comparison;
  // Facts beside the verdicts: executions per unit and layouts (filled by ab()), code and profile
  // notes (filled by the CLI after ab(), from the binaries and the profiler). Never a verdict.
  Annotations notes;
};
// gate ab: the two binaries with the same config (no build), runs in pairs in a seeded order until
// decided. Does not throw for a failed run: the caller saves what was measured, then throw_failure().
// slice_ms > 0: time-sliced interleaving (runner/sliced.hpp); runs and max_runs then count pairs
// of slices. Throws gate::Error (exit 2) for a config that cannot be sliced (benchmarks, a service
// on a fixed address).
// Several binaries a side are layout variants of one source (-ldflags=-randlayout=SEED builds):
// unit u of a side runs variant u mod K, and each function's interval is widened for the
// variance between layouts (stats/layout_variance.hpp). Units: a unit pair lasts at least the config's
// min_unit_seconds (default runner::kDefaultMinUnitSeconds), planned from the first pair.
AbJudged ab(const runner::Config& cfg, const std::vector<std::string>& base_binaries,
            const std::vector<std::string>& head_binaries, const runner::MeasureOptions& opts, uint64_t seed,
            int max_runs, runner::SignalWatch* signals, double slice_ms = 0);
inline AbJudged ab(const runner::Config& cfg, const std::string& base_binary, const std::string& head_binary,
                   const runner::MeasureOptions& opts, uint64_t seed, int max_runs, runner::SignalWatch* signals,
                   double slice_ms = 0) {
  return ab(cfg, std::vector{base_binary}, std::vector{head_binary}, opts, seed, max_runs, signals, slice_ms);
}
// Throws gate::Error (exit 2) when --slice-ms cannot be used with this config.
void require_sliceable(const runner::Config& cfg, double slice_ms);
void throw_failure(const AbJudged& j);

// gate compare: two result files; head must be complete and share a function with base. cfg may be
// nullptr (the default settings); fail_on_suspect, when set, overrides the config's. notes, when
// given, receives the results' own warnings (functions never called, a service's rounds).
stats::Comparison compare_files(const ResultFile& base, const std::string& base_path, const ResultFile& head,
                                const std::string& head_path, const runner::Config* cfg,
                                std::optional<bool> fail_on_suspect = std::nullopt,
                                Annotations* notes = nullptr);

}  // namespace gate::verdict
