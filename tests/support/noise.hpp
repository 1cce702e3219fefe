// What a verdict test measures before it asserts a verdict, on the machine it runs on: a shop
// function's own time (the shop's SHOP_TIMING clock, no probes), its p50 through gate's probes per
// run (probes included) and the run-to-run noise of that p50. From them: the SHOP_SLOW factor that
// makes the function read a chosen ratio through the probes (the knob stretches the body only, and
// a uprobe hit on a Go `ret` costs ~6-22 us on a KVM guest, so a factor copied from a quiet host
// reads diluted elsewhere), and the threshold and slowdown that the measured noise decides within
// the runs a test allows, or "too noisy to decide" (a loud GTest skip with the figures).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gate::testing {

struct FunctionCost {
  std::string function;
  double body_ns = 0;                 // p50 of the function's own clock (SHOP_TIMING=1), no probes
  std::vector<double> probed_p50_ns;  // p50 through gate's probes, one per run of `gate run`
  double probed_ns() const;           // the median of probed_p50_ns
  double cv() const;                  // sd / mean of probed_p50_ns: the raw run-to-run noise
  std::string figures() const;        // one line: body, probed, cv, runs
};

struct ShopMeasure {
  std::string binary;                       // the shop built by build_shop_example() (or alike)
  std::string args;                         // the workload's arguments, e.g. "-orders 400 -workers 1 -q"
  std::map<std::string, std::string> env;   // e.g. {{"GOMAXPROCS", "1"}}
  std::vector<std::string> functions;       // gate.yaml's functions (the traced set changes the windows)
  int runs = 5;
};

// Measures `function` (one of m.functions) as described above; throws std::runtime_error with gate's
// output when a step fails.
FunctionCost measure_shop_function(const ShopMeasure& m, const std::string& function);

// The SHOP_SLOW factor that makes c.function read `ratio` times its probed p50 through the probes:
// the knob adds (factor - 1) x body, so factor = 1 + (ratio - 1) x probed / body (at most 1000, the
// knob's limit; 0 when even that cannot reach the ratio). Exact for a function whose callees are not
// traced (pricing.Apply: 3.14x read for 2.90x sized); a lower bound where traced callees run inside
// its body, since the knob's clock then times their probes too and stretches them ((*Cart).Add
// around a traced (*Store).Get: 3.31x read for 1.36x sized): the regression is only more decided.
double shop_factor_for(const FunctionCost& c, double ratio);

// The half-width (as a fraction) of a ratio's interval between two sides of n runs each, from the raw
// per-run noise cv: z x cv x sqrt(2 / n), z = 3 (a multiplicity-corrected two-sided level). gate's
// pairing and speed normalization only narrow it: an upper bound for sizing.
double interval_half_width(double cv, int runs);

// The marker ci/test.sh's closing line counts (tests/ci/ctest_summary.py): print it with the figures
// before FAIL() when the measured noise cannot decide what the test asserts. A test that could not
// decide has failed (issue 54): a skip names a missing requirement of the machine, never noise.
inline constexpr const char* kTooNoisy = "TOO NOISY TO DECIDE";

}  // namespace gate::testing
