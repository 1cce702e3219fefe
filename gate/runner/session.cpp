// RunSession: attach once, then for every run: spawn (tracked before exec), wait, stop, collect.
#include "runner/session.hpp"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/error.hpp"
#include "common/version.hpp"
#include "truetime/true_time.hpp"

namespace gate::runner {

namespace fs = std::filesystem;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int signal_number(const std::string& name) {
  if (name == "SIGINT") return SIGINT;
  if (name == "SIGKILL") return SIGKILL;
  return SIGTERM;
}

std::string indent_tail(const std::string& tail) {
  if (tail.empty()) return "  (no output)";
  std::string out = "  | ";
  for (char c : tail) {
    out += c;
    if (c == '\n') out += "  | ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '|')) out.pop_back();
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

RunContext host_context() {
  RunContext c;
  utsname u{};
  if (uname(&u) == 0) c.kernel = u.release;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) c.hostname = host;
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);) {
    if (line.rfind("model name", 0) == 0 && c.cpu_model.empty()) {
      auto p = line.find(':');
      if (p != std::string::npos) c.cpu_model = line.substr(p + 2);
    }
  }
  c.cpu_count = std::thread::hardware_concurrency();
  c.gate_version = kVersion;
  return c;
}

RunSession::RunSession(const Config& cfg, const plan::ProbePlan& target, const SessionOptions& opts)
    : cfg_(cfg), target_(target), opts_(opts) {
  char tmpl[] = "/tmp/gate-run-XXXXXX";
  if (!mkdtemp(tmpl)) {
    throw Error::make("/tmp", "cannot create a temporary directory", "check free space in /tmp", ExitCode::kMeasure);
  }
  tmp_dir_ = tmpl;
  if (!opts_.keep_output_dir.empty()) fs::create_directories(opts_.keep_output_dir);
  env_ = cfg_.env;
  for (const auto& [k, v] : opts_.extra_env) env_[k] = v;
  env_["GATE_BINARY"] = target_.binary;  // the binary under test, for workload scripts
  auto engine_opts = opts_.engine;
  engine_opts.g_stack_hi_offset = target_.g_stack_hi_offset;  // from the binary's DWARF when it has one
  if (cfg_.max_in_flight) engine_opts.max_in_flight = cfg_.max_in_flight;
  if (!engine_opts.progress && opts_.log) engine_opts.progress = opts_.log;
  engine_ = std::make_unique<probe::ProbeEngine>(target_.binary, static_cast<uint32_t>(target_.functions.size()),
                                                 target_.sites, engine_opts);
}

RunSession::~RunSession() {
  std::error_code ec;
  fs::remove_all(tmp_dir_, ec);
}

std::string RunSession::output_path(int index, const std::string& variant, const char* stream) const {
  const std::string dir = opts_.keep_output_dir.empty() ? tmp_dir_ : opts_.keep_output_dir;
  std::string name = "run-" + std::to_string(index) + (variant.empty() ? "" : "-" + variant) + "." + stream;
  return (fs::path(dir) / name).string();
}

std::string RunSession::command_for(const std::string& cmd) const {
  if (target_.binary == cfg_.binary) return cmd;
  const size_t start = cmd.find_first_not_of(" \t");
  if (start == std::string::npos) return cmd;
  const size_t end = cmd.find_first_of(" \t", start);
  const std::string prog = cmd.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const fs::path resolved = fs::path(prog).is_absolute() ? fs::path(prog) : fs::path(cfg_.dir) / prog;
  if (resolved.lexically_normal() != fs::path(cfg_.binary).lexically_normal()) return cmd;
  return cmd.substr(0, start) + target_.binary + (end == std::string::npos ? "" : cmd.substr(end));
}

namespace {

Error run_failure(const std::string& what, const std::string& label, const std::string& cause,
                  const std::string& stderr_path, const std::string& fix) {
  return Error::make(what + " (" + label + ")", cause + "; its stderr ends with:\n" + indent_tail(file_tail(stderr_path)),
                     fix, ExitCode::kMeasure);
}

Error interrupted(int sig, const std::string& label) {
  return Error(std::string("interrupted by ") + strsignal(sig) + " during " + label +
                   "; the workload was stopped and the probes removed",
               ExitCode::kMeasure);
}

}  // namespace

RunResult RunSession::run_once(int index, const std::string& variant, SignalWatch* signals) {
  const double t0 = now_s();
  const std::string started_at = iso_now();
  engine_->untrack_all();
  engine_->collect_and_reset();  // nothing from before this run counts
  RunFiles files{index, variant, output_path(index, variant, "stdout"), output_path(index, variant, "stderr"),
                 "run " + std::to_string(index) + (variant.empty() ? "" : " (" + variant + ")")};
  last_stdout_ = files.out;
  if (cfg_.service) {
    run_service(files, signals);
  } else {
    run_workload(files, signals);
  }
  return collect(index, variant, t0, started_at);
}

void RunSession::run_workload(const RunFiles& f, SignalWatch* signals) {
  SpawnOptions so{command_for(cfg_.workload), cfg_.dir, env_, f.out, f.err, true};
  Child child = Child::spawn(so, [this](pid_t pid) { engine_->track(pid); });
  switch (child.wait(cfg_.timeout_s, signals)) {
    case Child::WaitEnd::kSignal:
      child.stop(SIGTERM, 2);
      throw interrupted(signals->received(), f.label);
    case Child::WaitEnd::kTimeout:
      child.stop(SIGTERM, 2);
      throw run_failure("workload '" + cfg_.workload + "'", f.label,
                        "did not finish within the timeout of " + std::to_string(static_cast<int>(cfg_.timeout_s)) + " s",
                        f.err, "raise timeout: in gate.yaml, or make the workload shorter");
    case Child::WaitEnd::kExited:
      break;
  }
  if (child.status() != 0) {
    throw run_failure("workload '" + cfg_.workload + "'", f.label, "exited with status " + std::to_string(child.status()),
                      f.err, "run the command by hand in " + cfg_.dir + " to see why; a failed run is never recorded");
  }
}

// The service is probed and must come up (ready_tcp) before the load driver, which is not probed.
void RunSession::run_service(const RunFiles& f, SignalWatch* signals) {
  const ServiceSpec& sv = *cfg_.service;
  SpawnOptions so{command_for(sv.command), cfg_.dir, env_, f.out, f.err, true};
  Child service = Child::spawn(so, [this](pid_t pid) { engine_->track(pid); });
  if (!sv.ready_tcp.empty()) {
    bool ready = wait_tcp_ready(sv.ready_tcp, sv.ready_timeout_s, [&] {
      return service.running() && !(signals && signals->poll_signal());
    });
    if (signals && signals->received()) {
      service.stop(SIGTERM, 2);
      throw interrupted(signals->received(), f.label);
    }
    if (!ready) {
      const bool died = !service.running();
      service.stop(SIGTERM, 2);
      throw run_failure("service '" + sv.command + "'", f.label,
                        died ? "exited with status " + std::to_string(service.status()) + " before accepting connections"
                             : "did not accept connections on " + sv.ready_tcp + " within " +
                                   std::to_string(static_cast<int>(sv.ready_timeout_s)) + " s",
                        f.err, "check service.command and service.ready_tcp in gate.yaml");
    }
  }
  run_load(f, service, signals);
}

void RunSession::run_load(const RunFiles& f, Child& service, SignalWatch* signals) {
  const ServiceSpec& sv = *cfg_.service;
  const std::string load_err = output_path(f.index, f.variant, "load.stderr");
  SpawnOptions lo{sv.load, cfg_.dir, env_, output_path(f.index, f.variant, "load.stdout"), load_err, true};
  Child load = Child::spawn(lo, nullptr);
  const auto end = load.wait(cfg_.timeout_s, signals);
  const bool service_died = !service.running();
  service.stop(signal_number(sv.stop_signal), sv.stop_timeout_s);
  if (end == Child::WaitEnd::kSignal) {
    load.stop(SIGTERM, 2);
    throw interrupted(signals->received(), f.label);
  }
  if (end == Child::WaitEnd::kTimeout) {
    load.stop(SIGTERM, 2);
    throw run_failure("load '" + sv.load + "'", f.label, "did not finish within the timeout", load_err,
                      "raise timeout: in gate.yaml");
  }
  if (load.status() != 0) {
    throw run_failure("load '" + sv.load + "'", f.label, "exited with status " + std::to_string(load.status()), load_err,
                      "run the service and the load by hand to see why");
  }
  if (service_died) {
    throw run_failure("service '" + sv.command + "'", f.label,
                      "exited (status " + std::to_string(service.status()) + ") during the load", f.err,
                      "the service must keep serving until gate stops it");
  }
}

RunResult RunSession::collect(int index, const std::string& variant, double started, const std::string& started_at) {
  RunResult r;
  r.index = index;
  r.variant = variant;
  r.started_at = started_at;
  r.duration_s = now_s() - started;
  const auto counters = engine_->collect_and_reset();
  engine_->untrack_all();
  if (!counters.empty()) r.lost_call_edges = counters[0].lost_edges;
  for (const auto& fi : target_.functions) {
    FunctionRun fr;
    fr.name = fi.name;
    const auto& c = counters.at(fi.id);
    fr.calls = c.calls;
    fr.sum_ns = c.sum_ns;
    fr.min_ns = c.min_ns;
    fr.max_ns = c.max_ns;
    for (const auto& [b, n] : c.buckets) fr.histogram.add_bucket(b, n);
    fr.unmatched_entries = c.open_entries + c.abandoned_entries;
    fr.unmatched_returns = c.unmatched_returns;
    fr.diverted_entries = c.diverted_entries;
    fr.dropped = c.dropped;
    if (opts_.engine.true_time) fr.true_time = truetime::true_time_of(c, target_.functions);
    r.functions.push_back(std::move(fr));
  }
  return r;
}

}  // namespace gate::runner
