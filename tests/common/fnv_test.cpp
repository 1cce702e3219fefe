// gate/common/fnv.hpp: FNV-1a 64 against the reference vectors, chaining, and the fingerprint text
// baselines and the history store keep (a change here changes stored ids and bootstrap seeds).
#include "common/fnv.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

TEST(Fnv, ReferenceVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Fnv, ChainsThroughTheSeed) { EXPECT_EQ(fnv1a64("bar", fnv1a64("foo")), fnv1a64("foobar")); }

TEST(Fnv, Fingerprint) {
  EXPECT_EQ(fnv1a64_fingerprint(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(fnv1a64_fingerprint("foobar"), "fnv1a64:85944171f73967e8");
}

}  // namespace
}  // namespace gate
