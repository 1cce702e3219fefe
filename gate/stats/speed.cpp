// Per-run speed factors: each function's deviation from its own median over all runs, then per
// run the median of those deviations, with one function left out at a time.
#include "stats/speed.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/numbers.hpp"

namespace gate::stats {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// The median of sorted v without its element at index `skip`: index i of the shortened list is
// v[i] below skip and v[i + 1] from it on, so no copy is needed.
double median_without(const std::vector<double>& v, size_t skip) {
  const size_t m = v.size() - 1;
  if (m == 0) return 0;
  auto at = [&](size_t i) { return v[i < skip ? i : i + 1]; };
  return m % 2 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2;
}

}  // namespace

double SpeedFactors::leave_out(int side, size_t run, size_t function) const {
  if (!usable) return 0;
  const auto& v = sorted[side][run];
  const size_t p = position[side][run][function];
  if (p != kNone) return median_without(v, p);
  return v.empty() ? 0 : median_of_sorted(v);
}

SpeedFactors estimate_speed(const std::vector<std::vector<double>> values[2]) {
  SpeedFactors s;
  size_t functions = 0;
  for (int side = 0; side < 2; ++side)
    for (const auto& run : values[side]) functions = std::max(functions, run.size());
  // Each function's reference: its median over every run of both sides.
  std::vector<double> ref(functions, std::numeric_limits<double>::quiet_NaN());
  for (size_t f = 0; f < functions; ++f) {
    std::vector<double> seen;
    for (int side = 0; side < 2; ++side)
      for (const auto& run : values[side])
        if (f < run.size() && !std::isnan(run[f])) seen.push_back(run[f]);
    std::sort(seen.begin(), seen.end());
    if (!seen.empty()) ref[f] = median_of_sorted(seen);
  }
  s.usable = true;
  for (int side = 0; side < 2; ++side) {
    for (size_t r = 0; r < values[side].size(); ++r) {
      const auto& run = values[side][r];
      std::vector<std::pair<double, size_t>> dev;
      for (size_t f = 0; f < run.size(); ++f)
        if (!std::isnan(run[f]) && !std::isnan(ref[f])) dev.emplace_back(run[f] - ref[f], f);
      std::sort(dev.begin(), dev.end());
      std::vector<double> sorted(dev.size());
      std::vector<size_t> position(functions, kNone);
      for (size_t i = 0; i < dev.size(); ++i) {
        sorted[i] = dev[i].first;
        position[dev[i].second] = i;
      }
      if (s.usable && dev.size() < SpeedFactors::kMinFunctions) {
        s.usable = false;
        s.why_not = {SpeedNotUsed::Kind::kTooFewFunctions, side ? "head" : "base", r + 1, dev.size(),
                     SpeedFactors::kMinFunctions};
      }
      s.all[side].push_back(sorted.empty() ? 0 : median_of_sorted(sorted));  // 0: usable is false
      s.sorted[side].push_back(std::move(sorted));
      s.position[side].push_back(std::move(position));
    }
  }
  if (values[0].empty() || values[1].empty()) {
    s.usable = false;
    s.why_not = {SpeedNotUsed::Kind::kNoRuns};
  }
  return s;
}

}  // namespace gate::stats
