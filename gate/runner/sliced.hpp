// Time-sliced interleaving for gate ab --slice-ms (issue 11): both sides' workloads run at once,
// gate lets one run at a time for T ms and pairs each base slice with the head slice next to it.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "results/result.hpp"
#include "results/run_notes.hpp"

namespace gate::runner {

class Measurer;
class SignalWatch;

// What one side lost in a round, besides its paired slices.
struct SliceLosses {
  uint64_t straddled_calls = 0;  // calls whose window held a switch: dropped in BPF (in the units too)
  uint64_t unpaired_calls = 0;   // calls (straddled ones included) of the time it ran alone at the end
  double unpaired_s = 0;         // how long that was
};

struct SlicedRound {
  int pairs = 0;
  SliceLosses base, head;
};

// One round: both workloads are spawned stopped (no instruction of them runs before its first
// slice), then alternated: SIGCONT one side's process group, T ms, SIGSTOP, wait until every
// thread is stopped, read and reset its maps into one unit, then the other side; which side goes
// first in each pair is drawn from `rng`. A side that exits mid-slice ends its pair with a
// partial slice; the other side then runs to its end alone and that remainder is dropped
// (counted in SliceLosses), as is a last pair with a slice shorter than half a slice. The paired units (RunResults, index = pair index) are added to both
// Measurers. Returns false when a side failed: the failure is on that side's Measurer, the
// other side's workload is killed, and no unit of the round is kept.
bool run_sliced_round(Measurer& base, Measurer& head, double slice_ms, std::mt19937_64& rng, SignalWatch* signals,
                      SlicedRound* out);

// Notes for the report of a sliced measurement, as values (explain::slice_notes words them):
// functions whose calls are long for the slice (p50 over all its slices above a quarter of it: most
// calls straddle a switch and are dropped, so what is left is biased towards the short ones), and
// how many calls straddled switches.
SliceNotes slice_notes(const ResultFile& r, double slice_ms, const std::string& side);

}  // namespace gate::runner
