// A shop function's own and probed time and its noise, measured where the test runs (noise.hpp).
#include "support/noise.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "results/result.hpp"
#include "support/gate_cli.hpp"

namespace gate::testing {

namespace fs = std::filesystem;

double FunctionCost::probed_ns() const {
  if (probed_p50_ns.empty()) return 0;
  std::vector<double> v = probed_p50_ns;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double FunctionCost::cv() const {
  const size_t n = probed_p50_ns.size();
  if (n < 2) return 0;
  const double mean = std::accumulate(probed_p50_ns.begin(), probed_p50_ns.end(), 0.0) / n;
  double ss = 0;
  for (double x : probed_p50_ns) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / (n - 1)) / mean;
}

std::string FunctionCost::figures() const {
  char b[512];
  std::snprintf(b, sizeof b, "%s: own time %.2f us (SHOP_TIMING p50), through the probes %.2f us (median of %zu "
                "runs' p50), run-to-run cv %.1f%%", function.c_str(), body_ns / 1000, probed_ns() / 1000,
                probed_p50_ns.size(), 100 * cv());
  return b;
}

namespace {

// A Go time.Duration as printed ("1.234µs", "850ns", "1.2ms", "1.5s") in ns; -1 when not one.
double go_duration_ns(const std::string& s) {
  static const std::regex re(R"(^([0-9]+(?:\.[0-9]+)?)(ns|µs|us|ms|s)$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return -1;
  const double v = std::stod(m[1]);
  const std::string u = m[2];
  return u == "ns" ? v : u == "ms" ? v * 1e6 : u == "s" ? v * 1e9 : v * 1e3;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

FunctionCost measure_shop_function(const ShopMeasure& m, const std::string& function) {
  FunctionCost c;
  c.function = function;
  // 1. Its own time: the shop's clock around its body (SHOP_TIMING=1 prints a table on stderr:
  //    function, calls, mean, p50, p90, p99), no probes attached.
  std::vector<std::string> argv = {"sh", "-c", quote(m.binary) + " " + m.args};
  auto env = m.env;
  env["SHOP_TIMING"] = "1";
  const auto own = run_program(argv, fs::temp_directory_path().string(), env);
  if (own.code != 0) throw std::runtime_error("SHOP_TIMING=1 " + m.binary + " " + m.args + " failed: " + own.err);
  std::istringstream in(own.err);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string name, calls, mean, p50;
    if (f >> name >> calls >> mean >> p50 && name == function) c.body_ns = go_duration_ns(p50);
  }
  if (c.body_ns <= 0) throw std::runtime_error("no SHOP_TIMING p50 for " + function + " in:\n" + own.err);
  // 2. Through gate's probes: `gate run` with the test's traced set, one p50 per run.
  const fs::path dir = fs::temp_directory_path() / ("gate-noise-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cfg = (dir / "gate.yaml").string(), out = (dir / "cost.json").string();
  std::ofstream y(cfg);
  y << "name: measure\nbinary: " << m.binary << "\nworkload: exec " << quote(m.binary) << " " << m.args
    << "\nruns: " << m.runs << "\n";
  if (!m.env.empty()) {
    y << "env:\n";
    for (const auto& [k, v] : m.env) y << "  " << k << ": \"" << v << "\"\n";
  }
  y << "functions:\n";
  for (const auto& f : m.functions) y << "  - \"" << f << "\"\n";
  y.close();
  const auto r = run_gate({"run", "-q", "-c", cfg, "--out", out});
  if (r.code != 0) throw std::runtime_error("gate run (measuring " + function + ") exit " + std::to_string(r.code) + ": " + r.err);
  const ResultFile res = load_result_file(out);
  for (const auto& run : res.runs)
    if (const auto* f = run.find(function); f && f->calls > 0) c.probed_p50_ns.push_back(f->quantile_ns(0.5));
  fs::remove_all(dir);
  if (c.probed_p50_ns.empty()) throw std::runtime_error("gate run measured no call of " + function);
  std::printf("measured here: %s\n", c.figures().c_str());
  return c;
}

double shop_factor_for(const FunctionCost& c, double ratio) {
  if (c.body_ns <= 0) return 0;
  const double f = 1 + (ratio - 1) * c.probed_ns() / c.body_ns;
  return f > 1000 ? 0 : std::max(f, 1.01);
}

double interval_half_width(double cv, int runs) { return 3 * cv * std::sqrt(2.0 / std::max(runs, 1)); }

}  // namespace gate::testing
