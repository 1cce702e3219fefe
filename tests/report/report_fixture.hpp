// The comparison every report test renders: deterministic synthetic runs (fixed seeds) with one
// function of every verdict, names that need escaping, a calls change, functions on one side only,
// a context warning, a notice and next steps; and Go benchmarks: a regression, a constant, and one
// whose executions run at two speeds that moved apart.
#pragma once

#include <string>

#include "report/report_inputs.hpp"
#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::testing {

struct ReportSample {
  ResultFile base;  // with runs
  ResultFile head;
  stats::CompareOptions options;
  stats::Comparison comparison;
  report::ReportInputs inputs;  // points into this object: do not copy a ReportSample
  ReportSample() = default;
  ReportSample(const ReportSample&) = delete;
  ReportSample& operator=(const ReportSample&) = delete;
};

// Fills s (about 0.1 s of bootstrap).
void make_report_sample(ReportSample& s);
// The sample, made once per test process and shared by every test that only reads it.
const ReportSample& sample();

// Test helpers every report test uses: a file's bytes ("" when missing) and substring checks.
std::string slurp(const std::string& path);
inline bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// The function names used, for assertions.
inline const char* kRegressed = "example.com/shop.(*Cart).Checkout";
inline const char* kImproved = "example.com/shop/pricing.Apply";
inline const char* kTricky = "example.com/x.Pair[go.shape.string,go.shape.struct { F string \"tag:\\\"<&>'\\\"\" }].Swap";
inline const char* kFewCalls = "main.tail";

}  // namespace gate::testing
