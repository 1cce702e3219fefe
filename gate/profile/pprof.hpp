// Writes a Profile as pprof's profile.proto (github.com/google/pprof/proto/profile.proto), gzipped:
// the few fields Go's CPU profiles use, encoded by hand (varints and length-delimited fields).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profile/profile.hpp"

namespace gate::profile {

struct PprofMeta {
  std::string binary;      // the profiled executable (the mapping's file name)
  std::string build_id;    // its Go or GNU build id ("" when none)
  int64_t time_nanos = 0;  // when sampling started (Unix ns)
  int64_t duration_nanos = 0;
};

// Sample types samples/count and cpu/nanoseconds (count x period), period type cpu/nanoseconds;
// one mapping with has_functions/filenames/line_numbers/inline_frames set (pprof then trusts the
// lines given and does not look for the binary); a location per address with its frames as a Line
// chain, innermost first.
std::string encode_pprof(const Profile& p, const PprofMeta& meta);

// RFC 1952 gzip of bytes (zlib). Throws gate::Error if zlib fails.
std::string gzip(std::string_view bytes);

// encode_pprof + gzip written to path. Throws gate::Error naming the path when it cannot be written.
void write_pprof(const std::string& path, const Profile& p, const PprofMeta& meta);

// The reverse, for a baseline's profile (gate record --profile, read by gate check): gunzip (gzip or
// zlib), then the samples (first value: the count), locations with their Line chains, functions
// and the period (hz = 1e9 / period). Throws gate::Error for malformed input.
std::string gunzip(std::string_view bytes);
Profile decode_pprof(std::string_view proto);
// read + gunzip + decode; throws gate::Error naming the path.
Profile read_pprof(const std::string& path);

}  // namespace gate::profile
