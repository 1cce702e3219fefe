// The sampled instrument's figure per function (issue 39): of a symbolised profile, the samples
// whose stack holds a function, outside gate's own probe handling (its CPU time, without probes)
// and inside it (the probes' share of its time). Pure: testable without a kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace gate::profile {

struct FunctionSamples {
  uint64_t cpu = 0;    // stacks holding the function, not in [gate probe]: its inclusive CPU time
  uint64_t self = 0;   // ... of which it is the innermost of the asked functions: its CPU time less
                       //     the time in asked functions it calls (those are measured on their own)
  uint64_t probe = 0;  // stacks holding it with a [gate probe] leaf: probe hits inside its window
  // Samples it may have lost: stacks whose walk ended before their root (Location::root) holding
  // no asked function, whose outermost function in the binary was seen under this one in stacks
  // walked whole. An upper bound: such a sample counts for every function its code was seen under;
  // code never seen in a whole stack counts for none (the run's Profile::not_to_root has it).
  uint64_t lost = 0;
};

// Per name of `names` (Go symbol names, as FunctionInfo and pclntab spell them), in that order. A
// sample counts once per function however often the function is on its stack (recursion), and
// inlined copies count as the function (their frames carry its name). `self`: the innermost asked
// function of a stack outside the probes (its frames are innermost first: leaf to root). `lost`:
// see FunctionSamples.
std::vector<FunctionSamples> samples_by_function(const Profile& p, const std::vector<std::string>& names);

}  // namespace gate::profile
