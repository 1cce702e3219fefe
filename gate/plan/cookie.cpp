// Cookie <-> the 64-bit value the BPF program reads with bpf_get_attach_cookie().
#include "plan/cookie.hpp"

extern "C" {
#include "gate_shared.h"
}

namespace gate::plan {

static_assert(static_cast<int>(SiteKind::kEntryJump) == GATE_SITE_ENTRY_JCC);
static_assert(static_cast<int>(SiteKind::kEntry) == GATE_SITE_ENTRY);
static_assert(static_cast<int>(SiteKind::kReturn) == GATE_SITE_RETURN);
static_assert(static_cast<int>(SiteKind::kNativeEntry) == GATE_SITE_NATIVE_ENTRY);
static_assert(static_cast<int>(SiteKind::kNativeUretprobe) == GATE_SITE_NATIVE_URETPROBE);
static_assert(static_cast<int>(SiteKind::kNativeReturn) == GATE_SITE_NATIVE_RETURN);
static_assert(static_cast<int>(SiteKind::kLibraryLoaded) == GATE_SITE_LIBRARY_LOADED);
static_assert(kMaxWatchedLibraries == GATE_MAX_WATCHED_LIBRARIES);

uint64_t encode_cookie(const Cookie& c) {
  const uint64_t flags = c.count_only ? GATE_SITE_FLAG_COUNT_ONLY : 0;
  return GATE_COOKIE(c.function_id, static_cast<int>(c.kind), c.jump_condition) | (flags << GATE_COOKIE_FLAGS_SHIFT);
}

Cookie decode_cookie(uint64_t cookie) {
  return {static_cast<uint32_t>(cookie), static_cast<SiteKind>((cookie >> 32) & 0xff),
          static_cast<uint8_t>((cookie >> 40) & 0xff),
          (((cookie >> GATE_COOKIE_FLAGS_SHIFT) & 0xff) & GATE_SITE_FLAG_COUNT_ONLY) != 0};
}

}  // namespace gate::plan
