// Synthetic results for the history tests: real ResultFile objects (the gate.result JSON a run
// writes), with chosen p50 levels per function and seeded run-to-run noise; and a temporary
// directory removed at the end of a test.
#pragma once

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>

#include "common/error.hpp"
#include "results/result.hpp"

namespace gate::testing {

struct SyntheticRun {
  std::map<std::string, double> p50_ns;  // function -> its level in this result
  int runs = 5;
  double noise = 0.02;  // run-to-run sd of log latency
  uint64_t seed = 1;
  std::string cpu_model = "Synthetic CPU @ 3.0GHz";
  std::string kernel = "6.1.0-test";
  std::string go_version = "go1.19.8";
};

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& what = "history") {
    std::string t = "/tmp/gate-" + what + "-XXXXXX";
    path = mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// The message of the gate::Error fn throws ("" when it throws none).
inline std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline ResultFile synthetic_result(const SyntheticRun& s) {
  ResultFile r;
  r.context.cpu_model = s.cpu_model;
  r.context.cpu_count = 2;
  r.context.kernel = s.kernel;
  r.context.go_version = s.go_version;
  r.context.gate_version = "0.0.test";
  r.context.config_hash = "fnv1a64:0000000000000001";
  r.context.started_at = "2026-11-26T12:00:00Z";
  r.extra["config_name"] = "synthetic";
  uint32_t id = 0;
  for (const auto& [name, _] : s.p50_ns) {
    FunctionInfo fi;
    fi.id = id++;
    fi.name = name;
    r.functions.push_back(fi);
  }
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<double> n01(0, 1);
  for (int i = 1; i <= s.runs; ++i) {
    RunResult run;
    run.index = i;
    run.started_at = r.context.started_at;
    for (const auto& [name, level] : s.p50_ns) {
      const double v = level * std::exp(s.noise * n01(rng));
      FunctionRun f;
      f.name = FunctionName(name);
      // 1000 calls spread +-2% around v: the p50 is v to within the histogram's bucket.
      for (int k = 0; k < 1000; ++k) {
        const uint64_t ns = static_cast<uint64_t>(v * (0.98 + 0.04 * k / 999.0));
        f.histogram.add(ns);
        f.sum_ns += ns;
        f.min_ns = k == 0 ? ns : std::min(f.min_ns, ns);
        f.max_ns = std::max(f.max_ns, ns);
      }
      f.calls = 1000;
      run.functions.push_back(std::move(f));
    }
    r.runs.push_back(std::move(run));
  }
  return r;
}

}  // namespace gate::testing
