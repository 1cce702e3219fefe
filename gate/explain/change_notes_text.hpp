// The sentences of the why-annotations beside a verdict, from their values (results/annotations.hpp):
// a function's machine code against the base's, where its CPU time went by the profiles, and a Go
// name without its import path's directories. report/ shows them in every format, verdict/ logs
// them when it fills the annotations.
#pragma once

#include <cstddef>
#include <string>

#include "results/annotations.hpp"

namespace gate::explain {

// "code changed, moved 1952 bytes" / "same code (moved 1952 bytes), callees same: the change may
// come from layout or data, not its own code" / "same code (moved 0 bytes); callees changed: a, b".
std::string code_sentence(const CodeNote& n);

// "pricing.Apply +11.3us/call (base 38.1us, head 49.4us; 812 -> 1,050 samples): [outside ...]
// +8.1us (instr.(*Func).exit, time.Since, runtime.nanotime), ..." (significant frames, at most 4).
std::string profile_sentence(const std::string& function, const ProfileNote& n, size_t max_frames = 4);

// The name without its import path's directories: "example.com/shop/internal/instr.(*Func).exit"
// -> "instr.(*Func).exit".
std::string short_name(const std::string& function);

}  // namespace gate::explain
