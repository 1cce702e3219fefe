// gate doctor's host line: what one uprobe hit costs on this host, measured on gate itself, no Go
// binary needed. x86-64 uprobes run the probed instruction one of two ways: emulated in the kernel
// (nop, jmp, call, jcc: the cheap path) or single-stepped out of line (anything else, e.g. a mov:
// a second trap). gate's entry probes sit on either kind depending on the function's first
// instruction (`gate functions` shows which), so both costs are measured: two tiny functions of
// gate's own text, one starting with a nop and one with a mov, each timed over N calls without and
// with a uprobe carrying a do-nothing BPF program (as gate's probes carry its programs), per round
// the difference per call, then the median of the rounds.
#pragma once

#include <string>

namespace gate::doctor {

struct ProbeCost {
  bool measured = false;
  double emulated_ns = 0;        // per hit of a probe on an emulated instruction (nop)
  double single_stepped_ns = 0;  // per hit of a probe on a single-stepped instruction (mov)
  int rounds = 0, calls = 0;
  std::string why_not;           // when !measured: the reason (no privileges, no uprobe PMU, ...)
};

// Measures now (loads a BPF program and attaches uprobes to gate's own executable: needs the
// privileges gate itself needs). Never throws: a failure is reported in why_not. 5 x 2000 hits of
// each kind: ~0.1 s on a quiet machine, ~1 s at a load average of 16 on 2 cores.
ProbeCost measure_probe_cost(int rounds = 5, int calls = 2000);

// "Linux 6.1.0-18-amd64 x86_64, 2 CPUs; probe hit: emulated 1.1 us, single-stepped 1.6 us
// (median of 5 rounds x 2000 calls)"; without figures: "...; probe hit: not measured (reason)".
std::string host_line(const std::string& kernel_release, const ProbeCost& c);

}  // namespace gate::doctor
