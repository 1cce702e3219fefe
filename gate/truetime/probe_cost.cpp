// Probe-cost calibration: three copies of one function traced three ways (entry jump + RET, RET
// alone, first instruction + RET) and an untraced twin, timed in interleaved blocks inside one
// process; per round the median of block-to-block differences, then median and range of rounds.
#include "truetime/probe_cost.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/numbers.hpp"
#include "common/subprocess.hpp"
#include "common/version.hpp"
#include "plan/cookie.hpp"
#include "plan/probe_plan.hpp"
#include "probe/probe_engine.hpp"

namespace gate::truetime {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTargetName = "gate-probe-calibration";

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "unknown";
}

std::string host_name() {
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
}

// What one process of the target gave: per block, ns per call of each function, and gate's p50
// of the windows of the two functions with an entry probe.
struct Sample {
  std::map<std::string, std::vector<double>> blocks;  // "jump", "ret", "first", "twin"
  double jump_window_p50_ns = 0;
  double first_window_p50_ns = 0;
};

double p50_of(const probe::FunctionCounters& c) {
  LatencyHistogram h;
  for (const auto& [b, n] : c.buckets) h.add_bucket(b, n);
  return c.calls ? h.quantile(0.5) : 0;
}

// The sites of the three traced functions: ids 0 (main.jump, entry jump + RET), 1 (main.ret, RET
// only) and 2 (main.first, first instruction + RET).
struct Layout {
  std::string binary;
  uint32_t g_stack_hi_offset = 8;
  std::vector<probe::SiteSpec> sites;
};

Layout layout_of(const std::string& target) {
  const plan::ProbePlan jr = plan::make_plan(target, {"main.jump", "main.ret"});
  const plan::ProbePlan first = plan::make_plan(target, {"main.first"}, analysis::EntryPolicy::kFirstInstruction);
  Layout l{jr.binary, jr.g_stack_hi_offset, {}};
  auto add = [&](const plan::ProbePlan& p, const std::string& name, uint32_t id, bool entry) {
    const auto fi = std::find_if(p.functions.begin(), p.functions.end(), [&](const FunctionInfo& f) { return f.name == name; });
    if (fi == p.functions.end() || !fi->measurable)
      throw Error::make("calibration target " + target, name + " cannot be probed", "rebuild gate", ExitCode::kMeasure);
    for (const auto& s : p.sites) {
      plan::Cookie c = plan::decode_cookie(s.cookie);
      if (c.function_id != fi->id || (!entry && c.kind != plan::SiteKind::kReturn)) continue;
      c.function_id = id;
      l.sites.push_back({s.file_offset, plan::encode_cookie(c)});
    }
  };
  add(jr, "main.jump", 0, true);
  add(jr, "main.ret", 1, false);
  add(first, "main.first", 2, true);
  return l;
}

Sample run_once(const Layout& l, const CalibrationOptions& o) {
  probe::EngineOptions eo;
  eo.g_stack_hi_offset = l.g_stack_hi_offset;
  eo.max_in_flight = 4096;
  eo.max_goroutines = 1024;
  probe::ProbeEngine engine(l.binary, 3, l.sites, eo);
  const fs::path start = fs::temp_directory_path() / ("gate-calibration-" + std::to_string(getpid()) + "-" +
                                                      std::to_string(std::rand()));
  ProcessSpec spec;
  spec.argv = {l.binary, "-start", start.string(), "-blocks", std::to_string(o.blocks), "-n",
               std::to_string(o.calls_per_block)};
  spec.during = [&](pid_t pid) {
    engine.track(pid);
    std::ofstream(start.string()) << "go\n";
  };
  const ProcessResult pr = run_process(spec);
  std::error_code ec;
  fs::remove(start, ec);
  const auto counters = engine.collect_and_reset();
  const auto pos = pr.out.find("GATE_CALIB ");
  if (pr.status != 0 || pos == std::string::npos)
    throw Error::make("calibration target " + l.binary,
                      "exited with status " + std::to_string(pr.status) + " without its figures:\n" +
                          tail_lines(pr.out + pr.err, 500),
                      "rebuild gate, or run with --raw-times", ExitCode::kMeasure);
  Sample s;
  s.blocks = nlohmann::json::parse(pr.out.substr(pos + 11, pr.out.find('\n', pos) - pos - 11))
                 .get<std::map<std::string, std::vector<double>>>();
  s.jump_window_p50_ns = p50_of(counters.at(0));
  s.first_window_p50_ns = p50_of(counters.at(2));
  return s;
}

// Median over blocks of a[i] - b[i]: blocks next to each other saw the same machine speed.
double paired_median(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d.push_back(a[i] - b[i]);
  return median(d);
}

}  // namespace

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gate";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gate";
  return "/var/cache/gate";
}

std::string cache_file(const std::string& dir) {
  std::string name = "probe-costs-" + host_name() + "-" + kernel_release() + "-" + kVersion + ".json";
  for (char& ch : name)
    if (ch == '/' || ch == ' ') ch = '_';
  return dir + "/" + name;
}

std::string find_calibration_target() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = self.parent_path() / kTargetName;
  if (!ec && fs::exists(installed)) return installed.string();
#ifdef GATE_CALIBRATION_TARGET
  if (fs::exists(GATE_CALIBRATION_TARGET)) return GATE_CALIBRATION_TARGET;
  const std::string built = GATE_CALIBRATION_TARGET;
#else
  const std::string built = "(not built: no Go toolchain at configure time)";
#endif
  throw Error::make("probe calibration", "no calibration target at " + installed.string() + " nor " + built,
                    "build gate with a Go toolchain (cmake -DGATE_GO=/path/to/go) and install " +
                        std::string(kTargetName) + " next to gate, or pass --raw-times",
                    ExitCode::kMeasure);
}

CostFigure summarize(std::vector<double> rounds) {
  if (rounds.empty()) return {};
  const auto [lo, hi] = std::minmax_element(rounds.begin(), rounds.end());
  return CostFigure{median(rounds), *lo, *hi};
}

ProbeCalibration measure_probe_costs(const CalibrationOptions& o) {
  const Layout layout = layout_of(o.target.empty() ? find_calibration_target() : o.target);
  std::vector<double> full_jump, full_first, full_ret, bias_jump, bias_first;
  for (int r = 0; r < o.rounds; ++r) {
    if (o.progress) o.progress("calibrating probe costs: round " + std::to_string(r + 1) + "/" + std::to_string(o.rounds));
    const Sample s = run_once(layout, o);
    const auto& b = s.blocks;
    full_ret.push_back(paired_median(b.at("ret"), b.at("twin")));
    full_jump.push_back(paired_median(b.at("jump"), b.at("ret")));
    full_first.push_back(paired_median(b.at("first"), b.at("ret")));
    // A window holds the body (~ the twin's whole call) and the bias.
    const double body = median(b.at("twin"));
    bias_jump.push_back(s.jump_window_p50_ns - body);
    bias_first.push_back(s.first_window_p50_ns - body);
  }
  ProbeCalibration cal;
  cal.present = true;
  cal.entry_jcc_full = summarize(full_jump);
  cal.entry_first_full = summarize(full_first);
  cal.return_full = summarize(full_ret);
  cal.bias_jcc = summarize(bias_jump);
  cal.bias_first = summarize(bias_first);
  cal.rounds = o.rounds;
  cal.measured_at = iso_now();
  cal.kernel = kernel_release();
  cal.gate_version = kVersion;
  return cal;
}

ProbeCalibration probe_calibration(const CalibrationOptions& o) {
  const std::string dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  const std::string file = cache_file(dir);
  std::error_code ec;
  if (!o.force && fs::exists(file, ec)) {
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(file, ec);
    const double days = std::chrono::duration<double>(age).count() / 86400;
    if (!ec && days < o.max_age_days) {
      try {
        ProbeCalibration c = calibration_from_json_text(read_file(file).value_or(""), file);
        c.from_cache = true;
        c.cache_file = file;
        return c;
      } catch (const Error&) {
        // corrupt: measured again and overwritten below
      }
    }
  }
  ProbeCalibration c = measure_probe_costs(o);
  try {
    fs::create_directories(dir, ec);
    c.cache_file = file;
    write_file_atomically(file, calibration_to_json_text(c));
  } catch (const Error&) {
    c.cache_file.clear();
  }
  return c;
}

std::string describe(const ProbeCalibration& c) {
  if (!c.present) return "raw times (no probe calibration)";
  auto fig = [](const char* what, const CostFigure& f) {
    char b[128];
    std::snprintf(b, sizeof b, "%s %.2f us (%.2f-%.2f)", what, f.median_ns / 1000, f.low_ns / 1000, f.high_ns / 1000);
    return std::string(b);
  };
  return fig("entry jump", c.entry_jcc_full) + ", " + fig("first-instruction entry", c.entry_first_full) + ", " +
         fig("return", c.return_full) + ", own bias " + fig("(jump entry)", c.bias_jcc) + "; median (range) of " +
         std::to_string(c.rounds) + " rounds" + (c.from_cache ? ", cached " + c.measured_at : ", measured now");
}

}  // namespace gate::truetime
