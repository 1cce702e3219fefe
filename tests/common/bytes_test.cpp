// gate/common/bytes.hpp: n-byte loads in either byte order, whatever the host's.
#include "common/bytes.hpp"

#include <gtest/gtest.h>

namespace gate {
namespace {

TEST(Bytes, LittleAndBigEndianLoads) {
  const uint8_t b[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  EXPECT_EQ(load_le(b, 4), 0x04030201u);
  EXPECT_EQ(load_le(b, 8), 0x0807060504030201ull);
  EXPECT_EQ(load_be(b, 4), 0x01020304u);
  EXPECT_EQ(load_be(b, 8), 0x0102030405060708ull);
  EXPECT_EQ(load_le(b, 0), 0u);
}

}  // namespace
}  // namespace gate
