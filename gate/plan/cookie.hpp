// The BPF attach cookie of a probe site: which function it belongs to, what kind of site it is
// and, for the stack-check jump, the jump's condition. The one place that knows the BPF layout
// (bpf/gate_shared.h); everything else passes Cookie values.
#pragma once

#include <cstdint>

namespace gate::plan {

enum class SiteKind : uint8_t {
  kEntryJump = 1,  // the prologue's stack-check jump: a call only when the jump is not taken
  kEntry = 2,      // the first instruction of a function without a stack check
  kReturn = 3,     // a RET instruction
  // Native (C, C++) functions, paired by thread and stack pointer (plan/native_plan.hpp).
  kNativeEntry = 4,      // the first instruction
  kNativeUretprobe = 5,  // a uretprobe (the kernel replaces the return address)
  kNativeReturn = 6,     // a RET instruction
  kLibraryLoaded = 7,    // a library's DT_INIT (jump_condition: which library): no function
};

// Libraries whose loads one engine can count (GATE_MAX_WATCHED_LIBRARIES).
constexpr int kMaxWatchedLibraries = 16;

struct Cookie {
  uint32_t function_id = 0;  // index into the BPF statistics map (FunctionInfo::id)
  SiteKind kind = SiteKind::kEntry;
  uint8_t jump_condition = 0;  // kEntryJump only: analysis::ProbeSites::jump_condition
  // Entry sites: count the call, time nothing (a function whose time is sampled: `calls: entry`).
  bool count_only = false;
  bool operator==(const Cookie&) const = default;
};

uint64_t encode_cookie(const Cookie& c);
Cookie decode_cookie(uint64_t cookie);

}  // namespace gate::plan
