// Probe-engine figures (not pass/fail), printed side by side in one run, as root:
//  1. added ns per traced call, entry probe on the stack-check jump vs on the first instruction;
//  2. the same with and without true time's per-goroutine accounting in the BPF program (issue 9);
//  3. attach and detach time for 1, 100 and 1,000 probe sites, uprobe_multi vs per-probe links.
// Usage: bench_probe [--calls N] [--reps R] [--sites 1,100,1000]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/probe_sites.hpp"
#include "common/error.hpp"
#include "probe/probe_fixture.hpp"
#include "runner/target.hpp"

extern "C" {
#include "gate_shared.h"
}

using namespace gate;
using namespace gate::testing;

namespace {

uint64_t loop_ns(const std::string& out) {
  auto pos = out.find("GATE_LOOP_NS ");
  if (pos == std::string::npos) throw std::runtime_error("probetarget printed no GATE_LOOP_NS");
  return std::stoull(out.substr(pos + 13));
}

std::string run_plain(const std::string& args) {
  std::string out;
  FILE* p = popen((probetarget_binary() + " " + args).c_str(), "r");
  char buf[4096];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (p) pclose(p);
  return out;
}

// Best of `reps` (the least disturbed run): cost per call in ns.
double per_call_cost(const std::string& fn, analysis::EntryPolicy entry, int calls, int reps, std::string* placement,
                     bool true_time = true) {
  const std::string args = "fast -fn small -n " + std::to_string(calls);
  uint64_t plain = UINT64_MAX, probed = UINT64_MAX;
  for (int r = 0; r < reps; ++r) plain = std::min(plain, loop_ns(run_plain(args)));
  for (int r = 0; r < reps; ++r) {
    auto m = measure_workload({.args = args, .functions = {fn}, .entry = entry, .true_time = true_time});
    if (m.fn(fn).calls != static_cast<uint64_t>(calls)) throw std::runtime_error("call count mismatch for " + fn);
    probed = std::min(probed, loop_ns(m.stdout_text));
    *placement = m.info(fn).entry_placement + " `" + m.info(fn).entry_instruction + "` (" +
                 m.info(fn).entry_cost_class + ")";
  }
  return (double(probed) - double(plain)) / calls;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 50000, reps = 3;
  std::vector<size_t> counts = {1, 100, 1000};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--sites")) {
      counts.clear();
      std::stringstream ss(argv[i + 1]);
      for (std::string t; std::getline(ss, t, ',');) counts.push_back(std::stoul(t));
    }
  }
  if (geteuid() != 0) {
    std::fprintf(stderr, "bench_probe: needs root (BPF)\n");
    return 2;
  }
  try {
    std::printf("gate probe benchmark (Go %s, %s)\n\n", probe_toolchain().version.c_str(), probetarget_binary().c_str());
    std::printf("1. Added cost per traced call (main.small, %d calls, best of %d; entry + RET probes)\n", calls, reps);
    std::string p1, p2;
    const double jump = per_call_cost("main.small", analysis::EntryPolicy::kAuto, calls, reps, &p1);
    const double first = per_call_cost("main.small", analysis::EntryPolicy::kFirstInstruction, calls, reps, &p2);
    std::printf("   %-60s %8.0f ns/call\n", p1.c_str(), jump);
    std::printf("   %-60s %8.0f ns/call\n", p2.c_str(), first);
    std::printf("   the stack-check jump saves %.0f ns per call (%.1fx cheaper)\n\n", first - jump,
                jump > 0 ? first / jump : 0.0);

    // Interleaved (off, on, off, on, ...) so that a slow spell hits both; each figure is the best
    // of its runs, and the per-pair differences show the spread.
    std::printf("2. True time's extra BPF work (per-goroutine accounting, raw/self figures), main.small, entry jump\n");
    std::vector<double> off, on;
    std::string p3;
    for (int r = 0; r < reps; ++r) {
      off.push_back(per_call_cost("main.small", analysis::EntryPolicy::kAuto, calls, 1, &p3, false));
      on.push_back(per_call_cost("main.small", analysis::EntryPolicy::kAuto, calls, 1, &p3, true));
    }
    const double best_off = *std::min_element(off.begin(), off.end());
    const double best_on = *std::min_element(on.begin(), on.end());
    std::printf("   without (--raw-times) %8.0f ns/call   with %8.0f ns/call   extra %+.0f ns (%+.1f%%), best of %d each\n",
                best_off, best_on, best_on - best_off, best_off > 0 ? 100 * (best_on / best_off - 1) : 0.0, reps);
    std::printf("   pairs (without / with):");
    for (int r = 0; r < reps; ++r) std::printf(" %.0f/%.0f", off[r], on[r]);
    std::printf("\n\n");

    // Sites: entries and RETs of every function of the binary, as many as asked.
    const auto target = runner::prepare_target(probetarget_binary(), {"**"});
    std::printf("3. Attach / detach time (%zu candidate sites in %s)\n", target.sites.size(), probetarget_binary().c_str());
    std::printf("   %6s  %-13s %12s %12s\n", "sites", "mode", "attach ms", "detach ms");
    for (size_t n : counts) {
      std::vector<probe::SiteSpec> sites(target.sites.begin(),
                                         target.sites.begin() + std::min(n, target.sites.size()));
      for (auto mode : {probe::AttachMode::kMulti, probe::AttachMode::kPerProbe}) {
        probe::EngineOptions o;
        o.mode = mode;
        probe::ProbeEngine e(target.binary, static_cast<uint32_t>(target.functions.size()), sites, o);
        const double attach = e.attach_seconds() * 1000;
        const double detach = e.detach() * 1000;
        std::printf("   %6zu  %-13s %12.1f %12.1f\n", sites.size(), probe::to_string(mode), attach, detach);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_probe: %s\n", e.what());
    return 3;
  }
  return 0;
}
