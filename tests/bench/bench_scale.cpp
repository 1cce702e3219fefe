// Scale benchmark (figures, not pass/fail; root): for 100, 1,000 and 10,000 traced functions of
// a generated Go program, 1. attach and detach time, kernel memory, added cost per call with 1, 2
// and all CPUs of goroutines calling at once, and the time to read and reset the maps after a run;
// 2. the size of a result file of the largest count over --runs runs, and `gate compare` on it.
// A control row per count splits the added cost into the kernel's uprobe machinery (the probes
// attached, the process untracked) and gate's own map work, each with its all-CPUs/one ratio.
// Usage: bench_scale [--funcs 100,1000,10000] [--calls N] [--reps R] [--runs 20]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "results/result.hpp"
#include "support/gate_cli.hpp"
#include "probe/many_funcs.hpp"
#include "probe/probe_fixture.hpp"
#include "probe/probe_engine.hpp"
#include "runner/process.hpp"
#include "runner/target.hpp"

using namespace gate;
using namespace gate::testing;

namespace {

namespace fs = std::filesystem;

struct Loop {
  uint64_t wall_ns = 0;  // GATE_LOOP_NS: what the program feels
  uint64_t cpu_ns = 0;   // GATE_LOOP_CPU_NS: less disturbed by other processes on a shared machine,
                         // but blind to time the hypervisor takes (a VM's single-step traps)
};

uint64_t field(const std::string& text, const std::string& tag) {
  const auto pos = text.find(tag + " ");
  if (pos == std::string::npos) throw std::runtime_error("no " + tag + " line");
  return std::stoull(text.substr(pos + tag.size() + 1));
}

// CPU time of this thread: the read-and-reset without the time other processes took the CPU.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Runs the program once (tracked by `engine` when given) and returns its loop's times.
Loop run_loop(const std::string& binary, const std::string& args, probe::ProbeEngine* engine) {
  const std::string out = fs::temp_directory_path() / ("gate-bench-scale-" + std::to_string(getpid()) + ".out");
  runner::SpawnOptions so{binary + " " + args, "/", {}, out, "", true};
  auto child = runner::Child::spawn(so, [&](pid_t pid) {
    if (engine) engine->track(pid);
  });
  child.wait(600, nullptr);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(out);
  const std::string text = ss.str();
  if (child.status() != 0) throw std::runtime_error(binary + " " + args + " failed");
  return {field(text, "GATE_LOOP_NS"), field(text, "GATE_LOOP_CPU_NS")};
}

// Glob that matches exactly the first n functions main.f00000 ... (n a power of ten <= 10^5).
std::string glob_for(int n) {
  std::string digits = std::to_string(n - 1);  // "99" -> main.f000??
  return "main.f" + std::string(5 - digits.size(), '0') + std::string(digits.size(), '?');
}

struct Costs {
  std::vector<double> wall_ns, cpu_ns;  // added per call, by goroutine count
  double read_reset_ms = 0;         // the last run's, wall
  double read_reset_cpu_ms = 0;     // and CPU time of the reading thread (syscalls included)
  probe::KernelMemory memory;       // after the last run, before its read-and-reset
};

// How the goroutines call: how many, and whether each starts at its own part of the function
// list (spread: no two update the same function's map values at once) or all in step (the
// worst case for shared values).
struct Setting {
  int goroutines = 1;
  bool spread = false;
};

std::string loop_args(int n, int per_fn, const Setting& s) {
  return "-count " + std::to_string(n) + " -n " + std::to_string(per_fn) + " -goroutines " +
         std::to_string(s.goroutines) + (s.spread ? " -spread" : "");
}

// The loop's best times without probes, per goroutine count. Run before attaching: a uprobe traps
// in every process that maps the binary, tracked or not.
std::vector<Loop> plain_loops(const std::string& binary, int n, int per_fn, int reps, const std::vector<Setting>& settings) {
  std::vector<Loop> out;
  for (const Setting& g : settings) {
    Loop best{UINT64_MAX, UINT64_MAX};
    for (int r = 0; r < reps; ++r) {
      const Loop l = run_loop(binary, loop_args(n, per_fn, g), nullptr);
      best = {std::min(best.wall_ns, l.wall_ns), std::min(best.cpu_ns, l.cpu_ns)};
    }
    out.push_back(best);
  }
  return out;
}

// Added time per call for each goroutine count, best of `reps` each (the least disturbed run on
// a shared machine): wall time per call of one goroutine (they run side by side), CPU time per
// call of all. Contention between CPUs on shared map values shows as higher figures with more
// goroutines. Every run's traced calls must equal the calls made.
Costs per_call(const std::string& binary, int n, int per_fn, int reps, const std::vector<Setting>& settings,
               const std::vector<Loop>& plain, probe::ProbeEngine& engine) {
  Costs c;
  const uint64_t per_goroutine = uint64_t(per_fn) * n;
  for (size_t i = 0; i < settings.size(); ++i) {
    const int g = settings[i].goroutines;
    Loop probed{UINT64_MAX, UINT64_MAX};
    for (int r = 0; r < reps; ++r) {
      const Loop l = run_loop(binary, loop_args(n, per_fn, settings[i]), &engine);
      probed = {std::min(probed.wall_ns, l.wall_ns), std::min(probed.cpu_ns, l.cpu_ns)};
      c.memory = engine.kernel_memory();
      const auto t0 = std::chrono::steady_clock::now();
      const double cpu0 = thread_cpu_ms();
      const auto counters = engine.collect_and_reset();
      c.read_reset_cpu_ms = thread_cpu_ms() - cpu0;
      c.read_reset_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      uint64_t total = 0;
      for (const auto& f : counters) total += f.calls;
      if (total != per_goroutine * g) {
        throw std::runtime_error("traced " + std::to_string(total) + " calls, the program made " +
                                 std::to_string(per_goroutine * g));
      }
    }
    c.wall_ns.push_back((double(probed.wall_ns) - double(plain[i].wall_ns)) / double(per_goroutine));
    c.cpu_ns.push_back((double(probed.cpu_ns) - double(plain[i].cpu_ns)) / double(per_goroutine * g));
  }
  return c;
}

std::string mib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f MiB", bytes / 1048576.0);
  return b;
}

// Part 2: `runs` runs of the whole program (every function called 2-8 times per run) measured as
// gate run does, written as a result file; then `gate compare` of the file against itself (the
// comparison does the same work whatever the numbers are).
void result_file_figures(const std::string& binary, int n, int runs) {
  const auto m = measure_workload(
      {.binary = binary, .args = "-count " + std::to_string(n) + " -n 2 -vary", .functions = {glob_for(n)}, .runs = runs});
  const fs::path dir = fs::temp_directory_path() / ("gate-bench-scale-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "result.json").string();
  save_result_file(file, m.result);
  const auto l0 = std::chrono::steady_clock::now();
  const ResultFile loaded = load_result_file(file);  // the part of compare that reads the file
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count();
  const auto t0 = std::chrono::steady_clock::now();
  const auto cmp = run_gate({"compare", file, file, "-q"});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (cmp.code != 0) throw std::runtime_error("gate compare exited " + std::to_string(cmp.code) + ": " + cmp.err);
  std::printf("\n2. Result file: %zu functions x %d runs: %.1f MiB as written (%.1f MiB without indentation); "
              "loading it: %.2f s; `gate compare` of it with itself: %.2f s wall\n",
              loaded.functions.size(), runs, fs::file_size(file) / 1048576.0,
              result_to_json_text(loaded, -1).size() / 1048576.0, load_s, secs);
  fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000, reps = 3, runs = 20;
  std::vector<int> counts = {100, 1000, 10000};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--funcs")) {
      counts.clear();
      std::stringstream ss(argv[i + 1]);
      for (std::string t; std::getline(ss, t, ',');) counts.push_back(std::stoi(t));
    }
  }
  if (geteuid() != 0) {
    std::fprintf(stderr, "bench_scale: needs root (BPF)\n");
    return 2;
  }
  try {
    const int ncpu = static_cast<int>(std::thread::hardware_concurrency());
    std::vector<Setting> settings = {{1, false}, {2, false}};
    if (ncpu > 2) settings.push_back({ncpu, false});
    settings.push_back({std::max(ncpu, 2), true});
    const std::string binary = manyfuncs_binary(*std::max_element(counts.begin(), counts.end()));
    std::printf("gate scale benchmark (%s, %d CPUs)\n", binary.c_str(), ncpu);
    std::printf("1. Traced functions (added time per call: %d calls per goroutine, best of %d)\n", calls, reps);
    std::printf("%7s %7s %10s %10s %12s %12s %17s", "funcs", "sites", "attach ms", "detach ms", "kernel mem",
                "histograms", "reset ms wall/cpu");
    auto head = [&](const char* what) {
      for (const Setting& g : settings) std::printf("  %s/call %d%s", what, g.goroutines, g.spread ? "s" : "g");
      std::printf("  all/1 all/s");
    };
    head("wall");
    head("cpu");
    std::printf("\n");
    for (int n : counts) {
      const int per_fn = std::max(1, calls / n);
      const auto plain = plain_loops(binary, n, per_fn, reps, settings);
      const auto target = runner::prepare_target(binary, {glob_for(n)});
      probe::ProbeEngine engine(target.binary, static_cast<uint32_t>(target.functions.size()), target.sites, {});
      const Costs c = per_call(binary, n, per_fn, reps, settings, plain, engine);
      // Control: the same loops with the probes attached but the process not tracked, so every hit
      // pays the kernel's uprobe machinery (trap, single-step or emulation, the BPF program's entry
      // and its first map lookup) and none of gate's map work. Its all/1 ratio is what the
      // platform charges for trapping on every CPU at once; gate's own work is the rest.
      const auto untracked = plain_loops(binary, n, per_fn, reps, settings);
      const double attach = engine.attach_seconds() * 1000;
      const double detach = engine.detach() * 1000;
      std::printf("%7zu %7zu %10.1f %10.1f %12s %12s %8.1f / %5.1f", target.functions.size(), target.sites.size(),
                  attach, detach, mib(c.memory.total_bytes).c_str(), mib(c.memory.histogram_bytes).c_str(),
                  c.read_reset_ms, c.read_reset_cpu_ms);
      // all/1: every CPU busy in step vs one goroutine; all/s: in step vs spread (the sharing alone).
      const size_t all = c.wall_ns.size() - 2, spread = c.wall_ns.size() - 1;
      for (const auto* v : {&c.wall_ns, &c.cpu_ns}) {
        for (double x : *v) std::printf("  %9.0f ns", x);
        std::printf("  %5.2f %5.2f", (*v)[all] / (*v)[0], (*v)[all] / (*v)[spread]);
      }
      std::printf("\n");
      const double per_goroutine = double(per_fn) * n;
      for (const bool cpu : {false, true}) {
        std::vector<double> machinery, own;
        for (size_t i = 0; i < settings.size(); ++i) {
          const double u = double(cpu ? untracked[i].cpu_ns : untracked[i].wall_ns);
          const double p0 = double(cpu ? plain[i].cpu_ns : plain[i].wall_ns);
          // CPU time sums all goroutines' CPUs: per call of all of them, as c.cpu_ns is.
          machinery.push_back((u - p0) / (cpu ? per_goroutine * settings[i].goroutines : per_goroutine));
          own.push_back((cpu ? c.cpu_ns[i] : c.wall_ns[i]) - machinery.back());
        }
        std::printf("%7s control, %s/call:", "", cpu ? "cpu" : "wall");
        for (size_t i = 0; i < settings.size(); ++i)
          std::printf("  %dg%s machinery %.0f ns + gate %.0f ns", settings[i].goroutines, settings[i].spread ? "s" : "",
                      machinery[i], own[i]);
        std::printf("; all/1: machinery %.2f, gate's own %.2f\n", machinery[all] / machinery[0], own[all] / own[0]);
      }
      std::fflush(stdout);
    }
    if (runs > 0) result_file_figures(binary, *std::max_element(counts.begin(), counts.end()), runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_scale: %s\n", e.what());
    return 3;
  }
  return 0;
}
