// Native probe figures (not pass/fail), as root: the time one traced C call adds, by the C
// program's own clock (tests/native/targets/cprog bench), for a uretprobe return and for RET-site
// probes, with the entry on a single-stepped first instruction (tiny_leaf: mov) and on an emulated
// one (tiny_frame: push); then a Go call's (probetarget main.small, entry on the emulated
// stack-check jump, RET single-stepped) in the same run, interleaved, for comparison. tiny_cet
// (built with -fcf-protection: endbr64, then push) shows the entry moved past endbr64.
// Usage: sudo build/tests/bench/bench_native [--calls N] [--reps R]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/error.hpp"
#include "probe/probe_fixture.hpp"
#include "runner/measure.hpp"

using namespace gate;
using namespace gate::testing;

namespace {

namespace fs = std::filesystem;

const std::string kCprog = std::string(NATIVE_TARGETS) + "/cprog";

uint64_t loop_ns(const std::string& out) {
  const auto pos = out.find("GATE_LOOP_NS ");
  if (pos == std::string::npos) throw std::runtime_error("the target printed no GATE_LOOP_NS: " + out);
  return std::stoull(out.substr(pos + 13));
}

std::string run_plain(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (p) pclose(p);
  return out;
}

// One traced run of `cprog bench calls which` with tiny_<which> traced, its returns as `returns`:
// the loop's time, and how the function was probed.
uint64_t traced_native(int calls, const std::string& which, const std::string& returns, std::string* how) {
  const fs::path dir = fs::temp_directory_path() / ("gate-bench-native-" + std::to_string(getpid()));
  fs::create_directories(dir);
  runner::Config cfg;
  cfg.path = (dir / "gate.yaml").string();
  cfg.dir = dir.string();
  cfg.name = "bench-native";
  cfg.binary = kCprog;
  cfg.workload = kCprog + " bench " + std::to_string(calls) + " " + which;
  cfg.runs = 1;
  cfg.timeout_s = 300;
  cfg.native_returns = returns;
  runner::FunctionSpec f;
  f.pattern = f.symbol = "tiny_" + which;
  f.native = true;
  cfg.functions.push_back(f);
  runner::MeasureOptions mo;
  mo.skip_build = true;
  mo.session.keep_output_dir = (dir / "out").string();
  runner::Measurement m = runner::measure(cfg, mo, nullptr);
  if (m.failure) throw *m.failure;
  const auto* fr = m.result.runs.at(0).find(f.pattern);
  if (!fr || fr->calls != static_cast<uint64_t>(calls))
    throw std::runtime_error("tiny_" + which + ": " + std::to_string(fr ? fr->calls : 0) + " calls counted, not " +
                             std::to_string(calls));
  const auto* info = m.result.find_function(f.pattern);
  *how = info->entry_placement + ", entry `" + info->entry_instruction + "` (" + info->entry_cost_class + ")";
  std::ifstream in(dir / "out" / "run-1.stdout");
  std::stringstream ss;
  ss << in.rdbuf();
  std::error_code ec;
  fs::remove_all(dir, ec);
  return loop_ns(ss.str());
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  if (geteuid() != 0) {
    std::fprintf(stderr, "bench_native: run as root (it attaches uprobes)\n");
    return 2;
  }
  try {
    std::printf("added time per traced call, best of %d runs of %d calls (program's own clock)\n", reps, calls);
    for (const std::string which : {"leaf", "frame", "cet"}) {
      const std::string cmd = kCprog + " bench " + std::to_string(calls) + " " + which;
      uint64_t plain = UINT64_MAX, uret = UINT64_MAX, ret = UINT64_MAX;
      std::string how_uret, how_ret;
      // Interleaved: the machine's speed swings hit the three alike.
      for (int r = 0; r < reps; ++r) {
        plain = std::min(plain, loop_ns(run_plain(cmd)));
        uret = std::min(uret, traced_native(calls, which, "uretprobe", &how_uret));
        ret = std::min(ret, traced_native(calls, which, "ret_sites", &how_ret));
      }
      std::printf("  C tiny_%-5s untraced %6.0f ns/call\n", which.c_str(), double(plain) / calls);
      std::printf("  C tiny_%-5s %8.2f us  %s\n", which.c_str(), (double(uret) - double(plain)) / calls / 1000,
                  how_uret.c_str());
      std::printf("  C tiny_%-5s %8.2f us  %s\n", which.c_str(), (double(ret) - double(plain)) / calls / 1000,
                  how_ret.c_str());
    }
    // The Go figure beside them: probetarget's main.small as bench_probe measures it.
    const std::string args = "fast -fn small -n " + std::to_string(calls);
    uint64_t plain = UINT64_MAX, probed = UINT64_MAX;
    std::string how;
    for (int r = 0; r < reps; ++r) {
      plain = std::min(plain, loop_ns(run_plain(probetarget_binary() + " " + args)));
      auto m = measure_workload({.args = args, .functions = {"main.small"}});
      probed = std::min(probed, loop_ns(m.stdout_text));
      how = m.info("main.small").entry_placement + " `" + m.info("main.small").entry_instruction + "` (" +
            m.info("main.small").entry_cost_class + "), RET sites";
    }
    std::printf("  Go main.small %8.2f us  %s\n", (double(probed) - double(plain)) / calls / 1000, how.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_native: %s\n", e.what());
    return 1;
  }
  return 0;
}
