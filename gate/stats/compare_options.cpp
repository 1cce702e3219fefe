// The comparison's settings: quantile names, per-function thresholds, and their validation.
#include "common/format.hpp"
#include "stats/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

namespace gate::stats {

namespace {

}  // namespace

QuantileSpec QuantileSpec::parse(const std::string& name) {
  if (name == "mean") return {name, 0, true};
  auto bad = [&] {
    return Error::make("quantile \"" + name + "\"", "not a quantile name",
                       "use p50, p90, p95, p99, p99.9 (or p999) or mean");
  };
  if (name.size() < 2 || name[0] != 'p') throw bad();
  const std::string digits = name.substr(1);
  if (digits.find_first_not_of("0123456789.") != std::string::npos || digits.front() == '.' ||
      digits.back() == '.' || std::count(digits.begin(), digits.end(), '.') > 1)
    throw bad();
  double q;
  if (digits.find('.') != std::string::npos || digits.size() <= 2) {
    q = std::stod(digits) / 100;  // p99.9, p50, p5
  } else if (digits.rfind("99", 0) == 0) {
    q = std::stod("0." + digits);  // p999, p9999
  } else {
    throw bad();
  }
  if (!(q > 0 && q < 1)) throw bad();
  return {name, q, false};
}

uint64_t min_calls_per_run(const QuantileSpec& spec, double min_tail_calls) {
  const double need = spec.is_mean ? 2 * min_tail_calls : min_tail_calls / (1 - spec.q);
  // The epsilon keeps 10 / (1 - 0.99) = 1000.0000000000009 at 1000.
  return static_cast<uint64_t>(std::ceil(need - 1e-6));
}

Band Thresholds::lookup(const std::string& function, const std::string& quantile) const {
  if (auto f = per_function_quantile.find(function); f != per_function_quantile.end())
    if (auto q = f->second.find(quantile); q != f->second.end()) return q->second;
  if (auto f = per_function.find(function); f != per_function.end()) return f->second;
  if (auto q = per_quantile.find(quantile); q != per_quantile.end()) return q->second;
  return defaults;
}

void CompareOptions::validate() const {
  auto bad = [](const std::string& what, const std::string& cause, const std::string& fix) {
    return Error::make("comparison option " + what, cause, fix);
  };
  if (quantiles.empty()) throw bad("quantiles", "is empty", "list at least one, e.g. p50");
  std::set<std::string> seen;
  for (const auto& q : quantiles) {
    if (!seen.insert(q.name).second) throw bad("quantiles", "lists " + q.name + " twice", "list each once");
    if (!q.is_mean && !(q.q > 0 && q.q < 1))
      throw bad("quantile " + q.name, "q = " + fmt("%g", q.q) + " is outside (0, 1)", "use p50, p90, p99 or mean");
  }
  if (!(confidence >= 0.5 && confidence <= 0.9999))
    throw bad("confidence", fmt("%g", confidence) + " is outside [0.5, 0.9999]", "use 0.95");
  if (first_look < 0 || last_look < 0 || last_look > 100000)
    throw bad("looks", std::to_string(first_look) + ".." + std::to_string(last_look) + " is out of range",
              "give the runs before the first comparison and max_runs, e.g. 10 and 30");
  if (!(equivalence_alpha > 0 && equivalence_alpha <= 0.25))
    throw bad("equivalence_alpha", fmt("%g", equivalence_alpha) + " is outside (0, 0.25]", "use 0.05");
  if (resamples < 100 || resamples > 1000000)
    throw bad("resamples", std::to_string(resamples) + " is outside [100, 1000000]", "use 2000");
  if (min_runs < 2) throw bad("min_runs", std::to_string(min_runs) + " is below 2", "use 5 or more");
  if (!(min_tail_calls >= 1)) throw bad("min_tail_calls", fmt("%g", min_tail_calls) + " is below 1", "use 10");
  if (!(outlier_sigmas >= 1)) throw bad("outlier_sigmas", fmt("%g", outlier_sigmas) + " is below 1", "use 3");
  if (!(calls_ratio_threshold > 1))
    throw bad("calls_ratio_threshold", fmt("%g", calls_ratio_threshold) + " is not above 1", "use 1.5");
  if (!(max_lost_fraction >= 0)) throw bad("max_lost_fraction", "is negative", "use 0.01");
  auto check_band = [&](const std::string& where, const Band& b) {
    if (!(b.regression >= 0 && b.regression < 10))
      throw bad("threshold " + where, "regression " + fmt("%g", b.regression) + " is outside [0, 10)",
                "give a fraction: 0.05 for 5%");
    if (!(b.improvement >= 0 && b.improvement < 1))
      throw bad("threshold " + where, "improvement " + fmt("%g", b.improvement) + " is outside [0, 1)",
                "give a fraction: 0.05 for 5%");
  };
  check_band("default", thresholds.defaults);
  for (const auto& [k, b] : thresholds.per_quantile) check_band("for " + k, b);
  for (const auto& [k, b] : thresholds.per_function) check_band("for " + k, b);
  for (const auto& [f, m] : thresholds.per_function_quantile)
    for (const auto& [q, b] : m) check_band("for " + f + " " + q, b);
}

}  // namespace gate::stats
