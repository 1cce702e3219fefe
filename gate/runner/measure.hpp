// measure(): the whole measuring step shared by run/record/check: build (once), analyse the
// binary, attach, run the workload N times, and assemble a ResultFile. A failure or interruption
// still returns what was measured, marked partial, with the error beside it.
#pragma once

#include <optional>

#include "common/error.hpp"
#include "runner/config.hpp"
#include "runner/session.hpp"

namespace gate::runner {

struct MeasureOptions {
  int runs = 0;  // 0 = the config's
  bool skip_build = false;
  std::string binary_override;  // measure this binary instead of the config's
  analysis::EntryPolicy entry = analysis::EntryPolicy::kAuto;
  SessionOptions session;
};

struct Measurement {
  ResultFile result;
  std::optional<Error> failure;  // set => result.partial
};

// Runs the config's build command; throws gate::Error (exit 3) with the output tail on failure.
void run_build(const Config& cfg, const std::function<void(const std::string&)>& log, SignalWatch* signals);

// The ResultFile skeleton for a target: context, functions, no runs yet.
ResultFile new_result(const Config& cfg, const Target& t, const RunSession* session);

Measurement measure(const Config& cfg, const MeasureOptions& opts, SignalWatch* signals);

}  // namespace gate::runner
