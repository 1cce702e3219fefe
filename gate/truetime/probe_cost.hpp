// Probe-cost calibration (issue 9): measures on this host, through gate's own BPF program, what
// each probe site kind costs and what part of it lands inside a call's window, on a Go target
// the project builds (calibtarget/); cached per host, kernel and gate version.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results/result.hpp"

namespace gate::truetime {

struct CalibrationOptions {
  std::string target;       // the calibration target binary; "" = find_calibration_target()
  int rounds = 5;           // each round runs every site configuration once, in rotated order
  int blocks = 40;          // alternating traced/untraced blocks per process
  int calls_per_block = 100;
  bool force = false;       // measure even when a fresh cache exists
  double max_age_days = 7;  // older caches are measured again
  std::string cache_dir;    // "" = default_cache_dir()
  std::function<void(const std::string&)> progress;
};

// $XDG_CACHE_HOME/gate, else $HOME/.cache/gate, else /var/cache/gate.
std::string default_cache_dir();
// The cache file for this host, kernel and gate version inside dir.
std::string cache_file(const std::string& dir);

// gate-probe-calibration next to the running executable (an install), else the one the build
// made. Throws gate::Error (exit 3) naming both places and the fix when neither exists.
std::string find_calibration_target();

// Median and range of per-round figures (pure: unit-tested). Empty input: all zero.
CostFigure summarize(std::vector<double> rounds);

// Measures now (root: loads BPF). Throws gate::Error (exit 3) when the target cannot be traced.
ProbeCalibration measure_probe_costs(const CalibrationOptions& o);

// The cached calibration when fresh (from_cache = true), else measures and writes the cache
// (a cache that cannot be written is only a lost speed-up, not an error).
ProbeCalibration probe_calibration(const CalibrationOptions& o);

// "entry 0.7 us (0.6-0.8), return 6.1 us (5.9-7.0), own bias 3.2 us (3.0-3.5); 5 rounds, cached"
std::string describe(const ProbeCalibration& c);

}  // namespace gate::truetime
