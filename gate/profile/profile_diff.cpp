// Per-call self time of each frame under a function, base against head, with a noise test.
#include "profile/profile_diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/format.hpp"

namespace gate::profile {
namespace {

bool holds(const Profile& p, const Sample& s, const std::string& function) {
  for (uint32_t id : s.locations)
    for (const auto& fr : p.locations[id].frames)
      if (fr.function == function) return true;
  return false;
}

// Self samples by leaf function, within the function's subtree.
std::map<std::string, uint64_t> leaves_under(const Profile& p, const std::string& function, uint64_t* total) {
  std::map<std::string, uint64_t> out;
  for (const auto& s : p.samples) {
    if (s.locations.empty() || !holds(p, s, function)) continue;
    out[p.locations[s.locations[0]].frames.front().function] += s.count;
    *total += s.count;
  }
  return out;
}

double log_pmf(uint64_t k, uint64_t n, double p) {
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  if (p <= 0) return k == 0 ? 0 : -INFINITY;
  if (p >= 1) return k == n ? 0 : -INFINITY;
  return std::lgamma(nd + 1) - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) + kd * std::log(p) +
         (nd - kd) * std::log1p(-p);
}


}  // namespace

double binomial_two_sided(uint64_t k, uint64_t n, double p) {
  if (n == 0) return 1;
  const double at = log_pmf(k, n, p) + 1e-9;  // ties count as "no likelier"
  double sum = 0;
  for (uint64_t i = 0; i <= n; ++i) {
    const double l = log_pmf(i, n, p);
    if (l <= at) sum += std::exp(l);
  }
  return std::min(1.0, sum);
}

SubtreeDiff diff_subtree(const Profile& base, const Profile& head, const std::string& function, uint64_t base_calls,
                         uint64_t head_calls, double fdr, double dispersion) {
  SubtreeDiff d;
  d.function = function;
  d.base_calls = base_calls, d.head_calls = head_calls;
  const auto b = leaves_under(base, function, &d.base_samples);
  const auto h = leaves_under(head, function, &d.head_samples);
  const double bp = static_cast<double>(base.period_ns()), hp = static_cast<double>(head.period_ns());
  auto per_call = [](uint64_t samples, double period, uint64_t calls) {
    return calls ? static_cast<double>(samples) * period / static_cast<double>(calls) : 0.0;
  };
  d.base_ns_per_call = per_call(d.base_samples, bp, base_calls);
  d.head_ns_per_call = per_call(d.head_samples, hp, head_calls);
  // Under "same time per call", a frame's samples fall on each side in proportion to calls/period.
  const double eb = bp > 0 ? static_cast<double>(base_calls) / bp : 0, eh = hp > 0 ? static_cast<double>(head_calls) / hp : 0;
  const double head_share = eb + eh > 0 ? eh / (eb + eh) : 0.5;
  // The quasi-binomial test's counts: each side's divided by the dispersion (see kSampleDispersion).
  const auto scaled = [dispersion](uint64_t n) {
    return static_cast<uint64_t>(std::llround(static_cast<double>(n) / std::max(1.0, dispersion)));
  };
  std::map<std::string, std::pair<uint64_t, uint64_t>> both;
  for (const auto& [f, n] : b) both[f].first = n;
  for (const auto& [f, n] : h) both[f].second = n;
  for (const auto& [f, counts] : both) {
    FrameChange c;
    c.frame = f;
    c.base_samples = counts.first, c.head_samples = counts.second;
    c.base_ns_per_call = per_call(c.base_samples, bp, base_calls);
    c.head_ns_per_call = per_call(c.head_samples, hp, head_calls);
    c.p_value = binomial_two_sided(scaled(c.head_samples), scaled(c.head_samples) + scaled(c.base_samples), head_share);
    d.frames.push_back(std::move(c));
  }
  // Benjamini-Hochberg: the largest rank r with p(r) <= r/m * q, and every smaller p.
  std::vector<FrameChange*> by_p;
  for (auto& c : d.frames) by_p.push_back(&c);
  std::sort(by_p.begin(), by_p.end(), [](auto* x, auto* y) { return x->p_value < y->p_value; });
  size_t cut = 0;
  for (size_t r = 1; r <= by_p.size(); ++r)
    if (by_p[r - 1]->p_value <= static_cast<double>(r) / static_cast<double>(by_p.size()) * fdr) cut = r;
  for (size_t r = 0; r < cut; ++r) by_p[r]->significant = true;
  std::sort(d.frames.begin(), d.frames.end(), [](const FrameChange& x, const FrameChange& y) {
    return std::abs(x.delta_ns_per_call()) > std::abs(y.delta_ns_per_call());
  });
  return d;
}

std::string describe(const SubtreeDiff& d, size_t max_frames) {
  std::string s = d.function + " " + signed_micros(d.head_ns_per_call - d.base_ns_per_call) + "/call in samples";
  size_t shown = 0;
  for (const auto& f : d.frames) {
    if (!f.significant || shown == max_frames) continue;
    s += (shown++ ? ", " : ": ") + f.frame + " " + signed_micros(f.delta_ns_per_call());
  }
  if (shown == 0) s += ": no frame changed beyond sampling noise";
  return s;
}

}  // namespace gate::profile
