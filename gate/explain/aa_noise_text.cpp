// gate calibrate's text from the A/A noise figures (explain/aa_noise_text.hpp).
#include "explain/aa_noise_text.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "common/format.hpp"
#include "explain/explain.hpp"
#include "explain/verdict_text.hpp"
#include "stats/sequential.hpp"

namespace gate::explain {

using stats::Calibration;
using stats::CalibrationRow;

namespace {

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  big.pop_back();
  out += big;
}

std::string ratio_change(double ratio) { return ratio > 0 ? signed_percent(ratio - 1) : "-"; }

std::string runs_text(int units, int max_units) {
  if (units <= 0) return "-";
  return units > max_units ? "> " + std::to_string(max_units) : std::to_string(units);
}

std::string share_text(const CalibrationRow& r) {
  if (!(r.sources.sampling > 0)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * r.sampling_share());
  return b;
}

std::string moment_text(const CalibrationRow& r) {
  if (r.sources.moment_mean < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%+-%.0f%%", 100 * r.sources.moment_mean, 100 * r.sources.moment_sd);
  return b;
}

// The functions short of their target within max_runs, grouped by what would help them, and why.
void advice_text(std::string& out, const Calibration& cal, int max_runs) {
  using Advice = CalibrationRow::Advice;
  bool any = false;
  for (const auto& r : cal.rows) any |= r.advice != Advice::kNone;
  if (!any) return;
  appendf(out, "\nshort of the slowdown within max_runs (%d pairs); what would help:\n", max_runs);
  auto group = [&](Advice advice, const char* why, auto&& line) {
    bool header = false;
    for (const auto& r : cal.rows) {
      if (r.advice != advice) continue;
      if (!header) appendf(out, "%s", why);
      header = true;
      line(r);
    }
  };
  const auto state_line = [&out](const CalibrationRow& r) {
    appendf(out, "    %s %s: %.1f%% per pair, %.0f%% of it from its %.0f calls' sampling; calls at %s of the run\n",
                r.function.c_str(), r.quantile.c_str(), 100 * r.noise, 100 * r.sampling_share(), r.sources.calls_per_run,
                moment_text(r).c_str());
  };
  group(Advice::kLongerRuns,
        "  longer runs: most of the noise is which calls a run happened to make; with 4x the calls a run\n"
        "  (a longer workload, if it makes more of these calls):\n",
        [&out](const CalibrationRow& r) {
          appendf(out, "    %s %s: %.1f%% -> ~%.1f%% per pair (%.0f calls a run)\n", r.function.c_str(),
                      r.quantile.c_str(), 100 * r.noise, 100 * r.noise_with_calls(4), r.sources.calls_per_run);
        });
  group(Advice::kLongerOrMoreRuns,
        "  longer runs or more runs: less than half of the noise is the calls' sampling; the rest is the state\n"
        "  calls met (the machine's speed swings over 0.1-1 s). These calls are spread over the run, so a\n"
        "  longer run averages more of the swings into each run:\n",
        state_line);
  group(Advice::kMoreRuns,
        "  more runs (max_runs): less than half of the noise is the calls' sampling; the rest is the state\n"
        "  calls met, once per run: these calls are made in a burst (start-up work), or when is not known,\n"
        "  and a longer run would not average it:\n",
        state_line);
}

}  // namespace

std::string calibration_text(const stats::Comparison& c, const Calibration& cal, const CalibrationSetting& s) {
  std::string out;
  const int runs = s.runs, max_runs = s.max_runs;
  appendf(out, "%-48s %-5s %10s %10s %11s %14s %14s %18s\n", "function", "", "noise/pair", "from calls", "calls at",
              ("caught @" + std::to_string(runs)).c_str(), ("caught @" + std::to_string(max_runs)).c_str(),
              "pairs for the slowdown");
  for (const auto& r : cal.rows)
    appendf(out, "%-48s %-5s %9.1f%% %10s %11s %14s %14s %11s (%s)\n", r.function.c_str(), r.quantile.c_str(),
                100 * r.noise, share_text(r).c_str(), moment_text(r).c_str(), ratio_change(r.caught_at_runs).c_str(),
                ratio_change(r.caught_at_max).c_str(),
                runs_text(r.pairs_for_target, Calibration::kMaxPairs).c_str(), ratio_change(r.target).c_str());
  advice_text(out, cal, max_runs);
  appendf(out, "\n%d pairs of A/A runs; %s\n", s.pairs, method_short(c).c_str());
  appendf(out, "units: %s\n", s.units.c_str());
  if (c.common_shift.tested())
    appendf(out, "run-to-run speed of the machine (%s): %.1f%% per pair\n", common_shift_label().c_str(),
            100 * c.common_shift.noise);
  if (cal.false_regressions)
    appendf(out, "WARNING: %d test(s) read 'regression' in this A/A: the machine is noisier than the runs can "
                "show; calibrate again with more runs (--runs)\n",
                cal.false_regressions);
  if (cal.rows.empty()) {
    appendf(out, "no function had enough calls per run to be tested: see 'insufficient data' in gate compare\n");
  } else if (cal.suggested_runs > 0) {
    appendf(out, "suggested: runs: %d, max_runs: %d (half of the tests decide by %d pairs, 90%% by %d; gate ab adds "
                "pairs while a verdict is inconclusive)\n",
                cal.suggested_runs, cal.suggested_max_runs, cal.suggested_runs, cal.suggested_max_runs);
    if (cal.suggested_max_runs > stats::SequentialLooks::kMaxIntegratedLast)
      appendf(out, "note: with max_runs past %d each look's p-value is multiplied by the number of looks (Bonferroni;\n"
                  "  README: How it decides), so pairs beyond that buy less than their count suggests: for the\n"
                  "  functions that need them, a longer workload per run or a wider threshold costs less\n",
                  stats::SequentialLooks::kMaxIntegratedLast);
  }
  return out;
}

}  // namespace gate::explain
