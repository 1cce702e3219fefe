// The sentences of the why-annotations beside a verdict, from their values (results/annotations.hpp):
// a function's machine code against the base's, where its CPU time went by the profiles, and a Go
// name without its import path's directories. report/ shows them in every format; annotate/ logs
// them, and its own progress lines below, when it fills the annotations.
#pragma once

#include <cstddef>
#include <cstdint>
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

// annotate/'s log lines while it fills the annotations:
// "code of main.f: <code_sentence>".
std::string code_log_line(const std::string& function, const CodeNote& n);
// "warning: machine code not compared: <why>".
std::string code_not_compared(const std::string& why);
// "why main.f got slower: <profile_sentence>".
std::string profile_log_line(const std::string& function, const ProfileNote& n);
// "compare them with: go tool pprof -top -diff_base BASE HEAD" (the paths quoted by the caller).
std::string compare_profiles_hint(const std::string& base_file_quoted, const std::string& head_file_quoted);
// No profile beside the baseline: what was looked for and how to record one.
std::string no_baseline_profile(const std::string& base_file);
// "warning: the baseline's CPU profile is not compared: <why>".
std::string baseline_profile_not_compared(const std::string& why);
// gate calibrate --profile: a frame the sampling-noise test flagged between two runs of one binary,
// and the count of such frames over all the compared functions'.
std::string aa_frame_flagged(const std::string& function, const std::string& frame, double p_value);
std::string aa_frames_summary(size_t flagged_frames, size_t frames);

}  // namespace gate::explain
