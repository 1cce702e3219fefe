// Shared set-up of the BPF probe tests: builds tests/go/probetarget with the Go toolchain chosen
// by GATE_TEST_GO_VERSION (one ctest entry per installed version), runs one of its modes under
// gate's measuring step, and returns what gate measured next to what the program counted itself.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "analysis/probe_sites.hpp"
#include "probe/probe_engine.hpp"
#include "results/result.hpp"
#include "runner/measure.hpp"
#include "support/go_build.hpp"

namespace gate::testing {

// The toolchain for this test process: $GATE_TEST_GO_VERSION if set (e.g. "1.19"), else default.
GoToolchain probe_toolchain();
// probetarget built with that toolchain (cached).
const std::string& probetarget_binary();
// tests/go/truetime (parents of known duration with traced helpers) built the same way.
const std::string& truetime_binary();

struct Measured {
  ResultFile result;
  std::map<std::string, uint64_t> truth;  // the program's own GATE_CALLS counts (last run)
  std::map<std::string, std::string> lines;  // other GATE_* lines of the last run, by key
  std::string stdout_text;

  const FunctionRun& fn(const std::string& name, size_t run = 0) const;
  const FunctionInfo& info(const std::string& name) const;
};

struct MeasureArgs {
  std::string binary;  // default: probetarget_binary()
  std::string args;    // e.g. "spin -n 200 -us 500"
  std::vector<std::string> functions;
  int runs = 1;
  probe::AttachMode mode = probe::AttachMode::kAuto;
  analysis::EntryPolicy entry = analysis::EntryPolicy::kAuto;
  std::map<std::string, std::string> env;
  ProbeCalibration calibration;  // absent: raw times
  bool true_time = true;         // false: no per-goroutine accounting in BPF (--raw-times)
  bool exclude_preemption = false;
};

Measured measure_workload(const MeasureArgs& a);

// Skips (loudly, so that it shows in the ctest output) when not root; CI runs as root.
#define GATE_REQUIRE_ROOT()                                                                        \
  do {                                                                                             \
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: NOT ROOT: BPF probe tests need root (CI runs them as root)"; \
  } while (0)

}  // namespace gate::testing
