// Holm (plain and weighted), Bonferroni and Benjamini-Hochberg adjusted p-values, and the levels
// that agree with their rejections. Holm 1979: step-down over the sorted p-values (weighted: over
// p / w, each step at alpha w_i / the weight still in play), made monotone so that an adjusted
// p-value never falls below that of a smaller one. Benjamini & Hochberg 1995: step-up, m p / rank.
#include "stats/multiplicity.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gate::stats {
namespace {

std::vector<size_t> tested(const std::vector<double>& p) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) idx.push_back(i);
  return idx;
}

// Weights summing to 1 over the tested indices: equal, or kPrimaryShare over the primary tests
// and the rest over the others (all equal when either group is empty).
std::vector<double> weights(const std::vector<size_t>& idx, size_t n, Multiplicity method,
                            const std::vector<bool>& primary) {
  std::vector<double> w(n, 0.0);
  size_t primaries = 0;
  if (method == Multiplicity::kHolmPrimaryFirst && primary.size() == n)
    for (size_t i : idx) primaries += primary[i];
  const size_t others = idx.size() - primaries;
  for (size_t i : idx) {
    if (primaries == 0 || others == 0)
      w[i] = 1.0 / static_cast<double>(idx.size());
    else
      w[i] = primary[i] ? kPrimaryShare / static_cast<double>(primaries)
                        : (1 - kPrimaryShare) / static_cast<double>(others);
  }
  return w;
}

}  // namespace

std::string_view to_string(Multiplicity m) {
  switch (m) {
    case Multiplicity::kHolm: return "Holm";
    case Multiplicity::kBonferroni: return "Bonferroni";
    case Multiplicity::kNone: return "none";
    case Multiplicity::kHolmPrimaryFirst: return "Holm, p50 first";
    case Multiplicity::kBenjaminiHochberg: return "Benjamini-Hochberg";
  }
  return "?";
}

bool parse_multiplicity(std::string_view word, Multiplicity* out) {
  if (word == "holm") *out = Multiplicity::kHolm;
  else if (word == "bonferroni") *out = Multiplicity::kBonferroni;
  else if (word == "none") *out = Multiplicity::kNone;
  else if (word == "p50-first") *out = Multiplicity::kHolmPrimaryFirst;
  else if (word == "fdr") *out = Multiplicity::kBenjaminiHochberg;
  else return false;
  return true;
}

std::vector<double> adjust_p_values(const std::vector<double>& p, Multiplicity method, const std::vector<bool>& primary) {
  std::vector<double> out(p.size(), std::nan(""));
  std::vector<size_t> idx = tested(p);
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
    case Multiplicity::kHolmPrimaryFirst: {
      const std::vector<double> w = weights(idx, p.size(), method, primary);
      // stable_sort: equal keys keep input order, so the result never depends on sort luck.
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] / w[a] < p[b] / w[b]; });
      double remaining = 0;
      for (size_t i : idx) remaining += w[i];
      double running = 0;
      for (size_t i : idx) {
        const double adj = std::min(1.0, std::max(p[i], 0.0) / w[i] * remaining);
        running = std::max(running, adj);
        out[i] = running;
        remaining -= w[i];
      }
      break;
    }
    case Multiplicity::kBenjaminiHochberg: {
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
      double running = 1;
      for (size_t k = idx.size(); k-- > 0;) {
        const double adj = std::min(1.0, std::max(p[idx[k]], 0.0) * m / static_cast<double>(k + 1));
        running = std::min(running, adj);
        out[idx[k]] = running;
      }
      break;
    }
  }
  return out;
}

std::vector<double> rejection_levels(const std::vector<double>& p, const std::vector<double>& adjusted,
                                     Multiplicity method, double alpha, const std::vector<bool>& primary) {
  const std::vector<size_t> idx = tested(p);
  std::vector<double> level(p.size(), alpha);
  size_t rejected = 0;
  for (size_t i : idx) rejected += adjusted[i] < alpha;
  const double m = static_cast<double>(idx.size());
  switch (method) {
    case Multiplicity::kNone:
      break;
    case Multiplicity::kBonferroni:
      for (size_t i : idx) level[i] = alpha / m;
      break;
    case Multiplicity::kHolm:
    case Multiplicity::kHolmPrimaryFirst: {
      const std::vector<double> w = weights(idx, p.size(), method, primary);
      double left = 0;  // the weight of the tests not rejected
      for (size_t i : idx)
        if (!(adjusted[i] < alpha)) left += w[i];
      for (size_t i : idx) level[i] = left > 0 ? alpha * w[i] / left : alpha;
      break;
    }
    case Multiplicity::kBenjaminiHochberg:
      for (size_t i : idx) level[i] = alpha * static_cast<double>(std::max<size_t>(rejected, 1)) / m;
      break;
  }
  return level;
}

}  // namespace gate::stats
