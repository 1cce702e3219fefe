// LatencyHistogram: bucketing shared with the BPF program, sparse storage, quantiles.
#include "results/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/error.hpp"

extern "C" {
#include "gate_shared.h"
}

namespace gate {

uint32_t LatencyHistogram::bucket_of(uint64_t ns) { return gate_hist_bucket(ns); }
uint64_t LatencyHistogram::lower_ns(uint32_t b) { return gate_hist_lower(b); }
uint64_t LatencyHistogram::width_ns(uint32_t b) { return gate_hist_width(b); }
uint32_t LatencyHistogram::bucket_count() { return GATE_HIST_BUCKETS; }

void LatencyHistogram::add_bucket(uint32_t bucket, uint64_t n) {
  if (bucket >= GATE_HIST_BUCKETS) {
    throw Error::make("histogram bucket " + std::to_string(bucket), "out of range (0.." +
                      std::to_string(GATE_HIST_BUCKETS - 1) + ")",
                      "the result file was written by an incompatible gate version or is corrupt");
  }
  if (n == 0) return;
  count_ += n;
  if (buckets_.empty() || buckets_.back().first < bucket) {  // in order, as files and maps list them
    buckets_.emplace_back(bucket, n);
    return;
  }
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), bucket,
                             [](const Bucket& b, uint32_t v) { return b.first < v; });
  if (it != buckets_.end() && it->first == bucket) {
    it->second += n;
  } else {
    buckets_.insert(it, {bucket, n});
  }
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (const auto& [b, n] : other.buckets_) add_bucket(b, n);
}

double LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  const double rank = q * static_cast<double>(count_);
  double seen = 0;
  for (const auto& [b, n] : buckets_) {
    const double next = seen + static_cast<double>(n);
    if (rank <= next || &buckets_.back().first == &b) {
      const double frac = n ? std::clamp((rank - seen) / static_cast<double>(n), 0.0, 1.0) : 0.0;
      return static_cast<double>(lower_ns(b)) + frac * static_cast<double>(width_ns(b));
    }
    seen = next;
  }
  return static_cast<double>(lower_ns(buckets_.back().first) + width_ns(buckets_.back().first));
}

double LatencyHistogram::approx_mean() const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (const auto& [b, n] : buckets_) {
    s += (static_cast<double>(lower_ns(b)) + static_cast<double>(width_ns(b)) / 2.0) *
         static_cast<double>(n);
  }
  return s / static_cast<double>(count_);
}

}  // namespace gate
