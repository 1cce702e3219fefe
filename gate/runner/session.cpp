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

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/version.hpp"
#include "runner/listeners.hpp"
#include "probe/pid_namespace.hpp"
#include "runner/rounds.hpp"
#include "truetime/true_time.hpp"

namespace gate::runner {

namespace fs = std::filesystem;

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // the clock bpf_ktime_get_ns reads
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

int signal_number(const std::string& name) {
  if (name == "SIGINT") return SIGINT;
  if (name == "SIGKILL") return SIGKILL;
  return SIGTERM;
}

namespace {

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
  // /proc must number processes as gate does: a service's listener and a sliced workload's
  // process group are read there.
  probe::require_usable_pid_namespace("workload '" + (cfg_.service ? cfg_.service->command : cfg_.workload) + "'", true);
  run_as_ = run_as_of(cfg_);
  cpu_quota_ = read_cpu_quota();
  for (const auto& [k, v] : run_as_env(run_as_, cfg_.env)) env_[k] = v;
  env_["GATE_BINARY"] = target_.binary;  // the binary under test, for workload scripts
  auto engine_opts = opts_.engine;
  engine_opts.g_stack_hi_offset = target_.g_stack_hi_offset;  // from the binary's DWARF when it has one
  if (cfg_.max_in_flight) engine_opts.max_in_flight = cfg_.max_in_flight;
  engine_opts.arg_buckets = target_.arg_buckets;  // bucket_by
  if (!engine_opts.progress && opts_.log) engine_opts.progress = opts_.log;
  if (!opts_.clean)
    engine_ = std::make_unique<probe::ProbeEngine>(target_.binary, static_cast<uint32_t>(target_.functions.size()),
                                                 target_.sites, engine_opts);
}

RunSession::~RunSession() {
  if (live_ && live_->service) live_->service->stop(SIGKILL, 0);  // an error left a unit's service up
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

// run_failure and interrupted are shared with rounds.cpp (declared in runner/rounds.hpp).
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

RunResult RunSession::run_once(int index, const std::string& variant, SignalWatch* signals) {
  const double t0 = now_s();
  const std::string started_at = iso_now();
  if (engine_) {
    engine_->untrack_all();
    engine_->collect_and_reset();  // nothing from before this run counts
    engine_->set_run_start(monotonic_ns());
  }
  RunFiles files{index, variant, output_path(index, variant, "stdout"), output_path(index, variant, "stderr"),
                 "run " + std::to_string(index) + (variant.empty() ? "" : " (" + variant + ")")};
  throttling_mark_ = read_cpu_throttling(cpu_quota_);
  last_stdout_ = files.out;
  last_cpu_s_ = -1;
  if (cfg_.service) {
    run_service(files, signals);
  } else {
    run_workload(files, signals);
  }
  return collect(index, variant, t0, started_at);
}

void RunSession::track(pid_t pid, const std::string& variant) {
  // A clean session attaches no probe; the CPU sampler may follow it (Measurer::execute_sampled).
  if (engine_) {
    engine_->track(pid);
    awaiting_ = {pid, engine_->followed()};
  }
  if (opts_.on_tracked) opts_.on_tracked(pid, variant);
}

void RunSession::run_workload(const RunFiles& f, SignalWatch* signals) {
  SpawnOptions so{command_for(cfg_.workload), cfg_.dir, env_, f.out, f.err, true};
  so.as = credentials();
  Child child = Child::spawn(so, [this, &f](pid_t pid) { track(pid, f.variant); });
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
  last_cpu_s_ = child.cpu_seconds();
  if (child.status() != 0) {
    throw run_failure("workload '" + cfg_.workload + "'", f.label, "exited with status " + std::to_string(child.status()),
                      f.err, "run the command by hand in " + cfg_.dir + " to see why; a failed run is never recorded");
  }
}

// The service form with {port} replaced by a port nothing listens on now, fresh for every run,
// and {url} by http://<ready_tcp>.
ServiceSpec with_free_port(const ServiceSpec& sv) {
  const std::string ph = kPortPlaceholder;
  auto fill = [](std::string s, const std::string& what, const std::string& by) {
    for (size_t at; (at = s.find(what)) != std::string::npos;) s.replace(at, what.size(), by);
    return s;
  };
  ServiceSpec out = sv;
  if ((sv.command + sv.ready_tcp + sv.load).find(ph) != std::string::npos) {
    const std::string port = std::to_string(free_tcp_port());
    out.command = fill(sv.command, ph, port);
    out.ready_tcp = fill(sv.ready_tcp, ph, port);
    out.load = fill(sv.load, ph, port);
  }
  const std::string url = "http://" + out.ready_tcp;
  out.command = fill(out.command, kUrlPlaceholder, url);
  out.load = fill(out.load, kUrlPlaceholder, url);
  return out;
}

namespace {

const char* kPortFix =
    "choose a free port in service.command, ready_tcp and load, or write {port} in all three: gate then "
    "picks a free port for every run";

// Before the service starts: nothing may listen on ready_tcp yet, or the readiness check and the
// load would reach that process (with SO_REUSEPORT the kernel even splits the load between them).
void require_free_address(const std::string& ready_tcp, const std::string& label) {
  const auto ls = listeners_for(ready_tcp);
  if (ls.empty()) return;
  std::string pids;
  for (const auto& l : ls)
    for (const pid_t p : l.pids) pids += " " + std::to_string(p);
  throw Error::make("service.ready_tcp " + ready_tcp + " (" + label + ")",
                    "another process already listens there, before gate started the service:\n" +
                        describe_listeners(ls) +
                        "\n  the readiness check and the load would reach it instead of the service gate probes",
                    (pids.empty() ? std::string("stop it") : "stop it (kill" + pids + ")") + ", or " + kPortFix,
                    ExitCode::kMeasure);
}

// Once ready: every listener on ready_tcp must belong to the service's process tree, and one must.
void require_own_listener(const std::string& ready_tcp, pid_t service, const std::string& command,
                          const std::string& label) {
  const auto ls = listeners_for(ready_tcp);
  const auto foreign = foreign_listeners(ls, process_tree(service));
  if (foreign.empty() && ls.size() > foreign.size()) return;
  const std::string object = "service.ready_tcp " + ready_tcp + " (" + label + ")";
  if (!foreign.empty()) {
    throw Error::make(object,
                      "accepts connections for processes outside the service gate started (pid " +
                          std::to_string(service) + ": " + command + "):\n" + describe_listeners(foreign) +
                          "\n  the load would reach them, unmeasured",
                      "stop that process, or " + std::string(kPortFix),
                      ExitCode::kMeasure);
  }
  throw Error::make(object,
                    "accepted a connection, but no process of the service gate started (pid " +
                        std::to_string(service) + ") listens there now",
                    "make service.ready_tcp the address the service listens on", ExitCode::kMeasure);
}

}  // namespace

// The service is probed and must come up (ready_tcp), on a socket of its own, before the load
// driver, which is not probed.
void RunSession::run_service(const RunFiles& f, SignalWatch* signals) {
  const ServiceSpec sv = with_free_port(*cfg_.service);
  std::unique_ptr<Child> service = start_service(f, sv, signals);
  run_load(f, sv, *service, signals);
}

std::unique_ptr<Child> RunSession::start_service(const RunFiles& f, const ServiceSpec& sv, SignalWatch* signals) {
  if (!sv.ready_tcp.empty()) require_free_address(sv.ready_tcp, f.label);
  SpawnOptions so{command_for(sv.command), cfg_.dir, env_, f.out, f.err, true};
  so.as = credentials();
  auto owned = std::make_unique<Child>(Child::spawn(so, [this, &f](pid_t pid) { track(pid, f.variant); }));
  Child& service = *owned;
  const std::string what = "service '" + sv.command + "' (pid " + std::to_string(service.pid()) + ")";
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
      throw run_failure(what, f.label,
                        died ? "exited with status " + std::to_string(service.status()) + " before accepting connections"
                             : "did not accept connections on " + sv.ready_tcp + " within " +
                                   std::to_string(static_cast<int>(sv.ready_timeout_s)) + " s",
                        f.err, "check service.command and service.ready_tcp in gate.yaml");
    }
    try {
      require_own_listener(sv.ready_tcp, service.pid(), sv.command, f.label);
    } catch (const Error&) {
      service.stop(SIGTERM, 2);
      throw;
    }
  }
  return owned;
}

// The service's death outranks the load's failure: a load fails when its service dies, and the
// service's stderr says why.
constexpr double kServiceDeathGraceS = 1.0;
void RunSession::run_load(const RunFiles& f, const ServiceSpec& sv, Child& service, SignalWatch* signals,
                          bool keep_service) {
  const std::string load_err = output_path(f.index, f.variant, "load.stderr");
  SpawnOptions lo{sv.load, cfg_.dir, env_, output_path(f.index, f.variant, "load.stdout"), load_err, true};
  lo.as = credentials();
  Child load = Child::spawn(lo, nullptr);
  const std::string load_what = "load '" + sv.load + "' (pid " + std::to_string(load.pid()) + ")";
  const std::string service_what = "service '" + sv.command + "' (pid " + std::to_string(service.pid()) + ")";
  const auto end = load.wait(cfg_.timeout_s, signals);
  // A load that failed because its service is dying can see the closed connection before the
  // service's exit is visible (seen under a loaded CI machine): let a failing load's service finish
  // dying, briefly, before deciding which of the two to blame.
  if (end != Child::WaitEnd::kSignal && (end == Child::WaitEnd::kTimeout || load.status() != 0) && service.running())
    service.wait(kServiceDeathGraceS, nullptr);
  const bool service_died = !service.running();
  if (!keep_service || service_died || end != Child::WaitEnd::kExited || load.status() != 0)
    service.stop(signal_number(sv.stop_signal), sv.stop_timeout_s);
  if (end == Child::WaitEnd::kSignal) {
    load.stop(SIGTERM, 2);
    throw interrupted(signals->received(), f.label);
  }
  if (end == Child::WaitEnd::kTimeout) load.stop(SIGTERM, 2);
  if (service_died) {
    const std::string load_end = end == Child::WaitEnd::kTimeout ? "; the load then timed out"
                                 : load.status() != 0 ? "; the load then exited with status " + std::to_string(load.status())
                                                      : "";
    throw run_failure(service_what, f.label,
                      "exited (status " + std::to_string(service.status()) + ") during the load" + load_end, f.err,
                      "the service must keep serving until gate stops it; run it by hand with the load to see why");
  }
  if (end == Child::WaitEnd::kTimeout) {
    throw run_failure(load_what, f.label, "did not finish within the timeout", load_err, "raise timeout: in gate.yaml");
  }
  if (load.status() != 0) {
    throw run_failure(load_what, f.label, "exited with status " + std::to_string(load.status()), load_err,
                      sv.ready_tcp.empty()
                          ? "set service.ready_tcp so that gate waits for the service before starting the load; "
                            "run the service and the load by hand to see why"
                          : "run the service and the load by hand to see why");
  }
}

RunResult RunSession::collect(int index, const std::string& variant, double started, const std::string& started_at,
                              bool end_of_run) {
  RunResult r;
  r.index = index;
  r.variant = variant;
  r.started_at = started_at;
  r.duration_s = now_s() - started;
  // The cgroup's quota held the run back: noise the report names (explain/, verdict/judge.cpp).
  const CpuThrottling now = read_cpu_throttling(cpu_quota_);
  if (now.known && throttling_mark_.known && now.throttled > throttling_mark_.throttled) {
    r.cpu_periods = now.periods - throttling_mark_.periods;
    r.throttled_periods = now.throttled - throttling_mark_.throttled;
    r.throttled_s = now.throttled_s - throttling_mark_.throttled_s;
  }
  throttling_mark_ = now;  // a service's next round counts from here
  if (!engine_) return r;  // a clean session: no function figures
  require_followed();
  const auto counters = end_of_run ? engine_->collect_and_reset() : engine_->collect_slice();
  if (end_of_run) engine_->untrack_all();
  const probe::EngineCounters& whole = engine_->engine_counters();
  r.lost_call_edges = whole.lost_edges;
  r.straddled_calls = whole.straddled_calls;
  r.preempted_calls = whole.preempted_calls;
  r.thread_changed_calls = whole.thread_changed_calls;
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
    fr.sum_start_us = c.sum_start_us;
    fr.sum_start_ms2 = c.sum_start_ms2;
    if (opts_.engine.true_time) fr.true_time = truetime::true_time_of(c, target_.functions);
    r.functions.push_back(std::move(fr));
  }
  return r;
}

// The BPF side follows a tracked process once it names its tgid (bpf/gate.bpf.c, `pending`): a
// run in which that never happened counted nothing of it, whatever its functions did. Said as
// what it is, not as "timed no call".
void RunSession::require_followed() {
  if (!awaiting_) return;
  const auto [pid, before] = *awaiting_;
  if (engine_->followed() > before) {
    awaiting_.reset();
    return;
  }
  awaiting_.reset();
  const probe::PidNamespace& ns = engine_->pid_namespace();
  throw Error::make("workload process " + std::to_string(pid) + " (PID namespace " + ns.text() + ")",
                    "gate's BPF program never saw it start (its exec in that namespace), so none of its calls "
                    "could be counted",
                    "run `gate doctor -c CONFIG`: its pid_namespace line follows a process the same way and says "
                    "what fails; gate needs Linux >= 5.15 (bpf_get_ns_current_pid_tgid) and /proc of its own "
                    "namespace",
                    ExitCode::kMeasure);
}

void RunSession::start_sliced(int round, const std::string& variant, SignalWatch* signals) {
  engine_->untrack_all();
  engine_->collect_and_reset();  // nothing from before this round counts
  engine_->set_slice_start(0);
  sliced_ = std::make_unique<Sliced>();
  sliced_->files = {round, variant, output_path(round, variant, "stdout"), output_path(round, variant, "stderr"),
                    "round " + std::to_string(round) + " (" + variant + ")"};
  last_stdout_ = sliced_->files.out;
  if (cfg_.service) {
    Sliced& sl = *sliced_;
    sl.sv = with_free_port(*cfg_.service);
    sl.service = start_service(sl.files, sl.sv, signals);
    sl.service->pause();
    engine_->collect_slice();  // its start-up belongs to no slice
    const RunFiles& f = sl.files;
    SpawnOptions lo{sl.sv.load, cfg_.dir, env_, output_path(f.index, f.variant, "load.stdout"),
                    output_path(f.index, f.variant, "load.stderr"), true, true};
    lo.as = credentials();
    try {
      sl.child = std::make_unique<Child>(Child::spawn(lo, nullptr));
    } catch (...) {
      sl.service->stop(SIGKILL, 0);
      throw;
    }
    return;
  }
  SpawnOptions so{command_for(cfg_.workload), cfg_.dir, env_, sliced_->files.out, sliced_->files.err, true, true};
  so.as = credentials();
  sliced_->child = std::make_unique<Child>(
      Child::spawn(so, [this](pid_t pid) { track(pid, sliced_->files.variant); }));
}

// A sliced service's slice ended with `end` (the load exited, or timed out over its slices, or a
// signal came): stops the service and throws what failed, as run_load does; true when the load
// ended well. kTimeout within the budget (the slice is over) returns false and stops nothing.
bool RunSession::end_sliced_service(Child::WaitEnd end, SignalWatch* signals) {
  Sliced& sl = *sliced_;
  const RunFiles& f = sl.files;
  const ServiceSpec& sv = sl.sv;
  const bool over_time = cfg_.timeout_s > 0 && sl.active_s >= cfg_.timeout_s;
  const bool service_died = !sl.service->running();
  if (end == Child::WaitEnd::kTimeout && !over_time && !service_died) return false;
  const std::string load_err = output_path(f.index, f.variant, "load.stderr");
  const std::string load_what = "load '" + sv.load + "' (pid " + std::to_string(sl.child->pid()) + ")";
  const std::string service_what = "service '" + sv.command + "' (pid " + std::to_string(sl.service->pid()) + ")";
  if (end != Child::WaitEnd::kExited) sl.child->stop(SIGTERM, 2);
  sl.service->stop(signal_number(sv.stop_signal), sv.stop_timeout_s);
  sl.exited = true;
  if (end == Child::WaitEnd::kSignal) throw interrupted(signals->received(), f.label);
  if (service_died) {
    throw run_failure(service_what, f.label, "exited (status " + std::to_string(sl.service->status()) + ") during the load",
                      f.err, "the service must keep serving until gate stops it; run it by hand with the load to see why");
  }
  if (end == Child::WaitEnd::kTimeout) {
    throw run_failure(load_what, f.label,
                      "did not finish within the timeout of " + std::to_string(static_cast<int>(cfg_.timeout_s)) +
                          " s of its own slices",
                      load_err, "raise timeout: in gate.yaml");
  }
  if (sl.child->status() != 0) {
    throw run_failure(load_what, f.label, "exited with status " + std::to_string(sl.child->status()), load_err,
                      "run the service and the load by hand to see why");
  }
  return true;
}

bool RunSession::run_slice(double seconds, SignalWatch* signals) {
  Sliced& sl = *sliced_;
  const RunFiles& f = sl.files;
  if (sl.exited) return true;
  sl.slice_started = now_s();
  sl.slice_started_at = iso_now();
  const double left = cfg_.timeout_s > 0 ? cfg_.timeout_s - sl.active_s : 0;
  // Calls already in flight now hold the stop (and the other side's slice) in their window.
  engine_->set_slice_start(monotonic_ns());
  engine_->set_run_start(monotonic_ns());  // a slice's calls: their moments in the slice
  throttling_mark_ = read_cpu_throttling(cpu_quota_);
  if (sl.service) sl.service->resume();
  sl.child->resume();
  const auto end = sl.child->wait(left > 0 ? std::min(seconds, left) : seconds, signals);
  sl.slice_s = now_s() - sl.slice_started;
  sl.active_s += sl.slice_s;
  if (sl.service) return end_sliced_service(end, signals);
  switch (end) {
    case Child::WaitEnd::kSignal:
      sl.child->stop(SIGTERM, 2);
      throw interrupted(signals->received(), f.label);
    case Child::WaitEnd::kTimeout:
      if (cfg_.timeout_s > 0 && sl.active_s >= cfg_.timeout_s) {
        sl.child->stop(SIGTERM, 2);
        throw run_failure("workload '" + cfg_.workload + "'", f.label,
                          "did not finish within the timeout of " + std::to_string(static_cast<int>(cfg_.timeout_s)) +
                              " s of its own slices",
                          f.err, "raise timeout: in gate.yaml, or make the workload shorter");
      }
      return false;
    case Child::WaitEnd::kExited:
      break;
  }
  sl.exited = true;
  if (sl.child->status() != 0) {
    throw run_failure("workload '" + cfg_.workload + "'", f.label,
                      "exited with status " + std::to_string(sl.child->status()), f.err,
                      "run the command by hand in " + cfg_.dir + " to see why; a failed run is never recorded");
  }
  return true;
}

RunResult RunSession::end_slice(int index) {
  Sliced& sl = *sliced_;
  if (!sl.exited) {
    sl.child->pause();
    if (sl.service) sl.service->pause();  // after the load: it finishes no request the load sent later
  }
  RunResult r = collect(index, sl.files.variant, sl.slice_started, sl.slice_started_at, sl.exited);
  r.duration_s = sl.slice_s;  // the time it ran, not the stop and the reading after it
  return r;
}

RunResult RunSession::run_to_end(int index, SignalWatch* signals) {
  while (!run_slice(3600, signals)) {
  }
  return end_slice(index);
}

void RunSession::stop_sliced() {
  if (sliced_ && sliced_->child && !sliced_->exited) sliced_->child->stop(SIGKILL, 0);
  if (sliced_ && sliced_->service && !sliced_->exited) sliced_->service->stop(SIGKILL, 0);
  sliced_.reset();
}

}  // namespace gate::runner
