// LatencyHistogram and the shared bucketing (bpf/gate_shared.h): every value lands in the bucket
// whose bounds hold it, buckets are at most 1/32 of their value wide from 64 ns up, contiguous,
// and quantiles interpolate inside buckets.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/error.hpp"
#include "results/histogram.hpp"

namespace gate {
namespace {

TEST(Histogram, EveryValueLandsInsideItsBucket) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    const int bits = static_cast<int>(rng() % 43);
    const uint64_t v = bits == 0 ? 0 : (rng() >> (64 - bits));
    const uint32_t b = LatencyHistogram::bucket_of(v);
    ASSERT_LT(b, LatencyHistogram::bucket_count());
    if (b == LatencyHistogram::bucket_count() - 1) continue;  // the overflow bucket
    ASSERT_GE(v, LatencyHistogram::lower_ns(b)) << v;
    ASSERT_LT(v, LatencyHistogram::lower_ns(b) + LatencyHistogram::width_ns(b)) << v;
  }
}

TEST(Histogram, BucketsAreContiguousAndNarrow) {
  for (uint32_t b = 0; b + 1 < LatencyHistogram::bucket_count(); ++b) {
    EXPECT_EQ(LatencyHistogram::lower_ns(b) + LatencyHistogram::width_ns(b), LatencyHistogram::lower_ns(b + 1)) << b;
    if (LatencyHistogram::lower_ns(b) >= 64) {
      EXPECT_LE(double(LatencyHistogram::width_ns(b)) / double(LatencyHistogram::lower_ns(b)), 1.0 / 32 + 1e-12) << b;
    }
  }
  // Range: 100 ns is resolved to 1/32, and an hour is still below the overflow bucket.
  EXPECT_LT(LatencyHistogram::bucket_of(3600ull * 1000 * 1000 * 1000), LatencyHistogram::bucket_count() - 1);
  EXPECT_EQ(LatencyHistogram::bucket_of(~0ull), LatencyHistogram::bucket_count() - 1);
}

TEST(Histogram, ExactBelow64ns) {
  for (uint64_t v = 0; v < 64; ++v) {
    EXPECT_EQ(LatencyHistogram::lower_ns(LatencyHistogram::bucket_of(v)), v);
    EXPECT_EQ(LatencyHistogram::width_ns(LatencyHistogram::bucket_of(v)), 1u);
  }
}

TEST(Histogram, QuantilesOfAKnownDistribution) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100000; ++v) h.add(v * 10);  // uniform on [10 ns, 1 ms]
  EXPECT_EQ(h.count(), 100000u);
  for (double q : {0.1, 0.5, 0.9, 0.99}) {
    const double want = q * 1e6;
    EXPECT_NEAR(h.quantile(q), want, want * 0.032) << q;  // within one bucket width
  }
  EXPECT_NEAR(h.approx_mean(), 500005.0, 500005.0 * 0.016);
  EXPECT_TRUE(std::isnan(LatencyHistogram{}.quantile(0.5)));
}

TEST(Histogram, MergeAndSparseStorage) {
  LatencyHistogram a, b;
  a.add(1000, 3);
  b.add(1000, 2);
  b.add(5000000);
  a.merge(b);
  EXPECT_EQ(a.count(), 6u);
  ASSERT_EQ(a.buckets().size(), 2u);
  EXPECT_EQ(a.buckets()[0].second, 5u);
  EXPECT_LT(a.buckets()[0].first, a.buckets()[1].first);
}

TEST(Histogram, OutOfRangeBucketIsAnError) {
  LatencyHistogram h;
  EXPECT_THROW(h.add_bucket(LatencyHistogram::bucket_count(), 1), Error);
}

}  // namespace
}  // namespace gate
