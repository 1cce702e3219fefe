// unwind_table: PcLines::sp_ranges as offsets from the first function, bounded for the BPF search.
#include "profile/unwind.hpp"

#include "common/error.hpp"
#include "profile_shared.h"

namespace gate::profile {

UnwindTable unwind_table(const analysis::PcLines& lines) {
  UnwindTable t;
  const auto& fns = lines.functions();
  if (fns.empty()) return t;
  t.text_lo = fns.front().address;
  t.text_hi = fns.back().address + fns.back().size;
  if (t.text_hi - t.text_lo >= (uint64_t{1} << 32))
    throw Error::make("CPU profile's unwinder", "the binary's Go code spans 4 GiB or more",
                      "profile a smaller binary, or run without --profile and with measure: probes");
  const auto ranges = lines.sp_ranges();
  if (ranges.size() >= (size_t{1} << GATE_UNWIND_SEARCH_STEPS))
    throw Error::make("CPU profile's unwinder",
                      "the binary's pc-to-SP table has " + std::to_string(ranges.size()) +
                          " ranges, more than the kernel side's search covers",
                      "raise GATE_UNWIND_SEARCH_STEPS in bpf/profile_shared.h, or run with measure: probes");
  t.entries.reserve(ranges.size());
  for (const auto& r : ranges)
    if (r.pc >= t.text_lo && r.pc <= t.text_hi) t.entries.emplace_back(static_cast<uint32_t>(r.pc - t.text_lo), r.delta);
  return t;
}

}  // namespace gate::profile
