// The stack unwinder's table for bpf/profile.bpf.c (walk_user): a Go binary's pc-to-SP ranges from
// .gopclntab, as code offsets, so that the kernel side can walk past frames whose frame pointer is
// not theirs (frameless leaves, prologues, assembly that uses BP for data: issue 54).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/pc_lines.hpp"

namespace gate::profile {

struct UnwindTable {
  uint64_t text_lo = 0, text_hi = 0;  // the binary's Go code: [first function, end of the last)
  // (pc - text_lo, SP delta): from that offset on, up to the next entry's, the return address lies
  // delta bytes above SP; delta < 0: no walk from there (analysis::PcLines::kNoFunction: no Go
  // function). Sorted by offset.
  std::vector<std::pair<uint32_t, int32_t>> entries;
};

// Throws gate::Error when the code spans 4 GiB or more, or the table is larger than the kernel
// side's search covers (2^GATE_UNWIND_SEARCH_STEPS entries).
UnwindTable unwind_table(const analysis::PcLines& lines);

}  // namespace gate::profile
