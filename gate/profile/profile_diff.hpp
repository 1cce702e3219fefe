// Why a function got slower, from the two sides' CPU profiles: the samples whose stack holds the
// function, split by their leaf frame (self time), normalised per call of the function (gate counts
// calls exactly), base against head, each frame tested against sampling noise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace gate::profile {

struct FrameChange {
  std::string frame;                       // the leaf function ("[gate probe]" included)
  uint64_t base_samples = 0, head_samples = 0;
  double base_ns_per_call = 0, head_ns_per_call = 0;
  double delta_ns_per_call() const { return head_ns_per_call - base_ns_per_call; }
  // Two-sided exact binomial test of the head's share of this frame's samples against the share
  // the two sides' exposure gives under "same time per call" (calls / period on each side), on
  // the counts divided by the dispersion (see kSampleDispersion).
  double p_value = 1;
  bool significant = false;  // Benjamini-Hochberg over the frames at the false discovery rate (1%)
};

struct SubtreeDiff {
  std::string function;
  uint64_t base_calls = 0, head_calls = 0;
  uint64_t base_samples = 0, head_samples = 0;  // samples with the function on the stack
  double base_ns_per_call = 0, head_ns_per_call = 0;
  std::vector<FrameChange> frames;  // largest |delta per call| first
};

// How far the frame test trusts its samples. A frame's samples vary more than a binomial draw's:
// the timer's phase against a workload's periodic work, and each side's CPU running at its own
// speed, move whole frames. Measured: base against base (profile_accuracy_test, 8 runs of 3
// CPU-seconds a side, 997 Hz, this 2-vCPU machine), the frames' per-call ratios spread with an SD
// 1.26x the binomial's (variance 1.6x), and the plain binomial test at 5% flagged a frame in 2 of
// the 8 runs. So the test takes a variance twice the binomial's (each side's count is divided by
// this before the exact test: a quasi-binomial test), and names frames at a 1% false discovery
// rate: a named frame is a claim a developer acts on. A real change of a frame's time per call
// still reads p < 1e-40 in the accuracy test (childB doubled, ~2,000 samples).
inline constexpr double kSampleDispersion = 2.0;
inline constexpr double kFrameFalseDiscoveryRate = 0.01;

// The function's subtree, base against head. calls: the function's calls on each side (from the
// measurement). Frames with no samples on either side are left out.
SubtreeDiff diff_subtree(const Profile& base, const Profile& head, const std::string& function, uint64_t base_calls,
                         uint64_t head_calls, double false_discovery_rate = kFrameFalseDiscoveryRate,
                         double dispersion = kSampleDispersion);

// Two-sided exact binomial p-value of k successes in n trials at probability p (sum of the
// outcomes no likelier than k).
double binomial_two_sided(uint64_t k, uint64_t n, double p);

// "pricing.Apply +11.3us/call: knob.busy +10.9us (time.Since), ..." for a log or report line:
// the significant frames, largest change first, at most `max_frames`.
std::string describe(const SubtreeDiff& d, size_t max_frames = 4);

}  // namespace gate::profile
