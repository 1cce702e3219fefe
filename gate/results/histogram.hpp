// LatencyHistogram: a sparse log-linear histogram of nanoseconds, bucketed exactly as the BPF
// side buckets them (bpf/gate_shared.h), with quantiles interpolated inside a bucket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gate {

class LatencyHistogram {
 public:
  using Bucket = std::pair<uint32_t, uint64_t>;  // (bucket index, count), sorted by index

  static uint32_t bucket_of(uint64_t ns);
  static uint64_t lower_ns(uint32_t bucket);  // inclusive lower bound
  static uint64_t width_ns(uint32_t bucket);
  static uint32_t bucket_count();              // number of bucket indexes (1216)

  void add(uint64_t ns, uint64_t n = 1) { add_bucket(bucket_of(ns), n); }
  void add_bucket(uint32_t bucket, uint64_t n);  // throws gate::Error on an index out of range
  void merge(const LatencyHistogram& other);
  void clear() { buckets_.clear(); count_ = 0; }
  void reserve(std::size_t buckets) { buckets_.reserve(buckets); }

  uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  const std::vector<Bucket>& buckets() const { return buckets_; }

  // q in [0, 1]. The value at rank q*count, interpolated linearly inside its bucket (the
  // bucket's calls are taken as spread evenly over it). NaN when the histogram is empty.
  double quantile(double q) const;
  // Mean from bucket midpoints (use FunctionRun::sum_ns for the exact mean when you have it).
  double approx_mean() const;

  bool operator==(const LatencyHistogram&) const = default;

 private:
  std::vector<Bucket> buckets_;
  uint64_t count_ = 0;
};

}  // namespace gate
