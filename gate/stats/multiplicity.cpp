// Holm and Bonferroni adjusted p-values (Holm 1979: step-down over the sorted p-values, made
// monotone so that an adjusted p-value never falls below that of a smaller raw p-value).
#include "stats/multiplicity.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gate::stats {

std::string_view to_string(Multiplicity m) {
  switch (m) {
    case Multiplicity::kHolm: return "Holm";
    case Multiplicity::kBonferroni: return "Bonferroni";
    case Multiplicity::kNone: return "none";
  }
  return "?";
}

std::vector<double> adjust_p_values(const std::vector<double>& p, Multiplicity method) {
  std::vector<double> out(p.size(), std::nan(""));
  std::vector<size_t> idx;
  for (size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) idx.push_back(i);
  const double m = static_cast<double>(idx.size());
  switch (method) {
    case Multiplicity::kNone:
      for (size_t i : idx) out[i] = std::clamp(p[i], 0.0, 1.0);
      break;
    case Multiplicity::kBonferroni:
      for (size_t i : idx) out[i] = std::clamp(p[i] * m, 0.0, 1.0);
      break;
    case Multiplicity::kHolm: {
      // stable_sort: equal p-values keep input order, so the result never depends on sort luck.
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
      double running = 0;
      for (size_t rank = 0; rank < idx.size(); ++rank) {
        const double adj = std::min(1.0, (m - static_cast<double>(rank)) * std::max(p[idx[rank]], 0.0));
        running = std::max(running, adj);
        out[idx[rank]] = running;
      }
      break;
    }
  }
  return out;
}

}  // namespace gate::stats
