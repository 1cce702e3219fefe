// Probe-cost calibration: three site configurations on calibtarget's main.probed (entry jump +
// RET, RET alone, first instruction + RET), each timed against its untraced twin in alternating
// blocks inside one process, over interleaved rounds; medians and ranges over the rounds.
#include "truetime/calibration.hpp"

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
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/files.hpp"
#include "common/subprocess.hpp"
#include "common/version.hpp"
#include "plan/cookie.hpp"
#include "plan/probe_plan.hpp"
#include "probe/probe_engine.hpp"

namespace gate::truetime {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTargetName = "gate-probe-calibration";
constexpr const char* kFunction = "main.probed";

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "unknown";
}

std::string host_name() {
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
}

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One process of the target under one site configuration.
struct Sample {
  double traced_ns = 0;    // median ns per call of the traced function's blocks
  double untraced_ns = 0;  // same for its untraced twin
  double window_p50_ns = 0;  // gate's p50 of the traced function's windows (0 without entry probe)
};

std::vector<double> json_numbers(const std::string& out, const std::string& key) {
  const auto pos = out.find(key + " ");
  if (pos == std::string::npos)
    throw Error::make("calibration target", "printed no " + key + " line:\n" + tail_lines(out, 500),
                      "rebuild gate (the target is built with it)", ExitCode::kMeasure);
  const auto end = out.find('\n', pos);
  return nlohmann::json::parse(out.substr(pos + key.size() + 1, end - pos - key.size() - 1)).get<std::vector<double>>();
}

Sample run_once(const plan::ProbePlan& plan, const std::vector<probe::SiteSpec>& sites, const CalibrationOptions& o) {
  probe::EngineOptions eo;
  eo.g_stack_hi_offset = plan.g_stack_hi_offset;
  eo.max_in_flight = 4096;
  eo.max_goroutines = 1024;
  probe::ProbeEngine engine(plan.binary, static_cast<uint32_t>(plan.functions.size()), sites, eo);
  const fs::path start = fs::temp_directory_path() / ("gate-calibration-" + std::to_string(getpid()) + "-" +
                                                      std::to_string(std::rand()));
  ProcessSpec spec;
  spec.argv = {plan.binary, "-start", start.string(), "-blocks", std::to_string(o.blocks), "-n",
               std::to_string(o.calls_per_block)};
  spec.during = [&](pid_t pid) {
    engine.track(pid);
    std::ofstream(start.string()) << "go\n";
  };
  const ProcessResult pr = run_process(spec);
  std::error_code ec;
  fs::remove(start, ec);
  const auto counters = engine.collect_and_reset();
  if (pr.status != 0)
    throw Error::make("calibration target " + plan.binary, "exited with status " + std::to_string(pr.status) + ":\n" +
                                                               tail_lines(pr.err, 500),
                      "rebuild gate, or run with --raw-times", ExitCode::kMeasure);
  Sample s;
  s.traced_ns = median(json_numbers(pr.out, "GATE_CALIB_PROBED"));
  s.untraced_ns = median(json_numbers(pr.out, "GATE_CALIB_TWIN"));
  const auto& c = counters.at(0);
  if (c.calls > 0) {
    LatencyHistogram h;
    for (const auto& [b, n] : c.buckets) h.add_bucket(b, n);
    s.window_p50_ns = h.quantile(0.5);
  }
  return s;
}

std::vector<probe::SiteSpec> returns_only(const std::vector<probe::SiteSpec>& sites) {
  std::vector<probe::SiteSpec> out;
  for (const auto& s : sites)
    if (plan::decode_cookie(s.cookie).kind == plan::SiteKind::kReturn) out.push_back(s);
  return out;
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
  const std::string target = o.target.empty() ? find_calibration_target() : o.target;
  const plan::ProbePlan jump = plan::make_plan(target, {kFunction});
  const plan::ProbePlan first = plan::make_plan(target, {kFunction}, analysis::EntryPolicy::kFirstInstruction);
  const auto ret_sites = returns_only(jump.sites);
  std::vector<double> full_jump, full_first, full_ret, bias_jump, bias_first;
  for (int r = 0; r < o.rounds; ++r) {
    if (o.progress) o.progress("calibrating probe costs: round " + std::to_string(r + 1) + "/" + std::to_string(o.rounds));
    Sample a, b, c;
    // Rotate the order so that a slow spell does not always hit the same configuration.
    for (int k = 0; k < 3; ++k) {
      switch ((r + k) % 3) {
        case 0: a = run_once(jump, jump.sites, o); break;
        case 1: b = run_once(jump, ret_sites, o); break;
        case 2: c = run_once(first, first.sites, o); break;
      }
    }
    const double ret = b.traced_ns - b.untraced_ns;
    full_ret.push_back(ret);
    full_jump.push_back(a.traced_ns - a.untraced_ns - ret);
    full_first.push_back(c.traced_ns - c.untraced_ns - ret);
    // The window holds the body (~ the twin's whole call) and the bias.
    bias_jump.push_back(a.window_p50_ns - a.untraced_ns);
    bias_first.push_back(c.window_p50_ns - c.untraced_ns);
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
