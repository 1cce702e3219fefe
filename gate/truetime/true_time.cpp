// Conversions between the probe engine's true-time counters, the result file's fields and the
// calibration's costs.
#include "truetime/true_time.hpp"

#include <algorithm>

namespace gate::truetime {

TrueTimeRun true_time_of(const probe::FunctionCounters& c, const std::vector<FunctionInfo>& functions) {
  TrueTimeRun t;
  t.present = true;
  t.raw_sum_ns = c.raw_sum_ns;
  t.raw_min_ns = c.raw_min_ns;
  t.raw_max_ns = c.raw_max_ns;
  t.descendants = c.descendants;
  t.self_sum_ns = c.self_sum_ns;
  for (const auto& [b, n] : c.self_buckets) t.self_histogram.add_bucket(b, n);
  t.clamped = c.clamped;
  t.uncompensated = c.uncompensated;
  for (const auto& e : c.callers) {
    const auto it = std::find_if(functions.begin(), functions.end(), [&](const FunctionInfo& f) { return f.id == e.caller; });
    t.callers.push_back({it == functions.end() ? "#" + std::to_string(e.caller) : it->name, e.calls, e.sum_ns});
  }
  return t;
}

probe::ProbeCosts costs_from(const ProbeCalibration& c) {
  probe::ProbeCosts k;
  if (!c.present) return k;
  k.entry_jcc_full_ns = c.entry_jcc_full.median_ns;
  k.entry_first_full_ns = c.entry_first_full.median_ns;
  k.return_full_ns = c.return_full.median_ns;
  k.bias_jcc_ns = c.bias_jcc.median_ns;
  k.bias_first_ns = c.bias_first.median_ns;
  return k;
}

}  // namespace gate::truetime
