// The measuring step: build, analyse, attach, runs with progress, partial results on failure.
#include "runner/measure.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "common/clock.hpp"
#include "runner/coverage.hpp"
#include "runner/benchmark_results.hpp"
#include "runner/rounds.hpp"
#include "results/unit_merge.hpp"
#include "runner/run_as.hpp"
#include "runner/unit_size.hpp"
#include "truetime/true_time.hpp"

namespace gate::runner {

void run_build(const Config& cfg, const std::function<void(const std::string&)>& log, SignalWatch* signals) {
  if (cfg.build.empty()) return;
  if (log) log("building: " + cfg.build);
  std::string out;
  const RunAs as = run_as_of(cfg);  // the build is the pull request's code too: not as root
  std::map<std::string, std::string> env = cfg.env;
  for (const auto& [k, v] : run_as_env(as, cfg.env)) env[k] = v;
  int rc = run_shell(cfg.build, cfg.dir, env, &out, signals, as.drop ? &*as.drop : nullptr);
  if (rc == -1) throw Error("interrupted during the build step", ExitCode::kMeasure);
  if (rc != 0) {
    throw Error::make("build command '" + cfg.build + "'",
                      "exited with status " + std::to_string(rc) + "; its output ends with:\n" + out,
                      "run it by hand in " + cfg.dir + " and fix the build", ExitCode::kMeasure);
  }
}

namespace {

// True when every command that starts the program under test visibly starts `binary`: its
// first word is the config's binary or `binary` (gate substitutes the side's binary there), or
// it reads $GATE_BINARY. A probe on a copy of the binary only sees a workload that runs the copy.
bool starts_binary_under_test(const Config& cfg, const std::string& binary) {
  namespace fs = std::filesystem;
  auto starts = [&](const std::string& cmd) {
    if (cmd.find("GATE_BINARY") != std::string::npos) return true;
    const size_t start = cmd.find_first_not_of(" \t");
    if (start == std::string::npos) return false;
    const size_t end = cmd.find_first_of(" \t", start);
    const fs::path prog(cmd.substr(start, end == std::string::npos ? std::string::npos : end - start));
    const fs::path resolved = (prog.is_absolute() ? prog : fs::path(cfg.dir) / prog).lexically_normal();
    return resolved == fs::path(cfg.binary).lexically_normal() || resolved == fs::path(binary).lexically_normal();
  };
  return cfg.service ? starts(cfg.service->command) : starts(cfg.workload);
}

}  // namespace

// Copies the original binary to copy_dir_/run-N/NAME (same file name: the program sees the same
// argv[0] basename) and points the target at it; the previous copy is removed.
void Measurer::use_fresh_copy(int run) {
  namespace fs = std::filesystem;
  // run-N/<the original's directory name>/<its file name>: a workload script that tells the sides
  // apart by the end of $GATE_BINARY (*/head/shop) still can.
  const fs::path original(original_binary_);
  const fs::path dir = fs::path(copy_dir_) / ("run-" + std::to_string(run)) / original.parent_path().filename();
  const fs::path copy = dir / original.filename();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec) fs::copy_file(original_binary_, copy, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    throw Error::make("copy of " + original_binary_ + " in " + dir.string(), ec.message(),
                      "free space in " + copy_dir_ + " (or set TMPDIR elsewhere)", ExitCode::kMeasure);
  }
  if (target_.binary != original_binary_) fs::remove_all(fs::path(target_.binary).parent_path().parent_path(), ec);
  target_.binary = copy.string();
}

Measurer::Measurer(const Config& cfg, const MeasureOptions& opts) : cfg_(cfg), opts_(opts) {
  const auto& log = opts_.session.log;
  const std::string& binary = opts.binary_override.empty() ? cfg.binary : opts.binary_override;
  target_ = cfg.benchmarks_only() ? clean_plan(binary)
                                  : plan::make_mixed_plan(binary, cfg.patterns(), opts.entry, cfg.bucket_requests(),
                                                          cfg.native_requests(), native_options(cfg));
  {  // calls: entry: those functions' calls are counted by their entry probe alone (issue 39)
    std::set<uint32_t> entry_only;
    for (const auto& f : target_.functions)
      if (cfg.calls_of(f.name) == "entry") entry_only.insert(f.id);
    if (!entry_only.empty()) plan::count_calls_only(target_, entry_only);
  }
  const plan::ProbePlan& target = target_;
  original_binary_ = target_.binary;
  // For workload scripts: the file gate was given (GATE_BINARY is the copy that is probed), and
  // which side of gate ab this is.
  opts_.session.extra_env["GATE_BINARY_ORIGINAL"] = original_binary_;
  opts_.session.extra_env["GATE_SIDE"] = opts_.variant;
  // A layout variant's processes are sampled as a side of their own (its code lies elsewhere).
  if (opts_.layout >= 0 && opts_.session.on_tracked)
    opts_.session.on_tracked = [f = opts_.session.on_tracked, l = opts_.layout](pid_t pid, const std::string& v) {
      f(pid, sample_label(v, l));
    };
  if (opts_.layout >= 0 && opts_.session.on_measure_start)
    opts_.session.on_measure_start = [f = opts_.session.on_measure_start, l = opts_.layout](const std::string& v) {
      f(sample_label(v, l));
    };
  // A binary that finds its libraries through $ORIGIN would not start as a copy elsewhere.
  const bool origin = plan::loads_from_origin(original_binary_);
  if (origin && opts_.fresh_copy_each_run && log)
    log(original_binary_ + " finds its libraries through $ORIGIN: probed in place, not as a fresh copy per run");
  if (opts_.fresh_copy_each_run && !origin && starts_binary_under_test(cfg, original_binary_)) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gate-binary-XXXXXX").string();
    if (mkdtemp(tmpl.data())) {
      ::chmod(tmpl.c_str(), 0711);  // mkdtemp's 0700 would keep a workload run as another user (run_as) out
      copy_dir_ = tmpl;
      use_fresh_copy(1);
    }
  }
  const std::string who = opts_.variant.empty() ? "" : opts_.variant + ": ";
  for (const auto& w : target.warnings)
    if (log) log(who + "warning: " + w);
  // Kept in opts_ (not a local copy): every re-attach between runs builds its session from it, and
  // a session without the costs would record raw times from run 2 on.
  opts_.session.engine.costs = truetime::costs_from(opts_.calibration);  // zero without: raw times
  opts_.session.engine.exclude_preemption = exclude_preemption(cfg, opts_.exclude_preemption, opts_.preemption_default);
  opts_.session.clean = cfg.benchmarks_only();  // no function: no BPF at all
  session_ = std::make_unique<RunSession>(cfg, target, opts_.session);
  if (cfg.service) opts_.executions_per_unit = cfg.service->rounds;  // a service's unit: one start, k rounds
  if (log && !session_->probed())
    log(who + "benchmarks only (no functions: declared): no probe attached, no BPF loaded, every execution clean");
  if (log && session_->probed()) {
    char b[400];
    snprintf(b, sizeof b, "%sattached %zu probes on %zu functions in %.0f ms (%s: %s)", who.c_str(),
             target.sites.size(), target.measurable_count(), session_->engine().attach_seconds() * 1000,
             probe::to_string(session_->engine().attach_mode()), session_->engine().attach_mode_reason().c_str());
    log(b);
  }
  ResultFile& r = m_.result;
  r.context = host_context();
  r.context.binary_path = original_binary_;
  r.context.build_id = target.build_id;
  r.context.go_version = target.go_version;
  r.context.config_path = cfg.path;
  r.context.config_hash = cfg.hash;
  r.context.started_at = iso_now();
  r.context.attach_mode = session_->probed() ? probe::to_string(session_->engine().attach_mode()) : "";
  r.context.calibration = opts_.calibration;
  r.context.preemption_excluded = opts_.session.engine.exclude_preemption;
  if (opts_.calibration.present)
    r.context.probe_cost_ns = opts_.calibration.entry_jcc_full.median_ns + opts_.calibration.return_full.median_ns;
  else if (opts_.probe_hit_ns > 0)
    r.context.probe_cost_ns = opts_.probe_hit_ns;
  if (session_->probed()) r.extra["attach_mode_reason"] = session_->engine().attach_mode_reason();
  r.functions = target.functions;
  r.extra["config_name"] = cfg.name;
  record_run_as(session_->run_as(), r);  // a report names a workload that ran as root
  r.extra["symbol_source"] = target.symbol_source;
  if (!opts_.variant.empty()) r.extra["variant"] = opts_.variant;
  if (cfg.clean_benchmarks()) r.extra[kBenchmarkFoldKey] = kBenchmarkFoldFastest;
}

Measurer::~Measurer() {
  session_.reset();  // detach before the copy it probes goes
  clean_.reset();
  if (!copy_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(copy_dir_, ec);
  }
}

std::string Measurer::who() const {
  if (opts_.variant.empty()) return "";
  return " (" + opts_.variant + (opts_.layout >= 0 ? " layout " + std::to_string(opts_.layout + 1) : "") + ")";
}

bool Measurer::run(int count, SignalWatch* signals) {
  if (!cfg_.service && opts_.min_unit_seconds > 0 && opts_.executions_per_unit == 1 && runs_done() == 0 && count > 0) {
    if (!execute(signals)) return false;
    set_executions_per_unit(runner::executions_per_unit(opts_.min_unit_seconds, last_execution_s_));
    if (opts_.session.log)
      opts_.session.log(describe_units(opts_.executions_per_unit, last_execution_s_, opts_.min_unit_seconds));
  }
  for (int k = 0; k < count; ++k) {
    while (!failed() && executions_in_unit() < opts_.executions_per_unit) execute(signals);
    if (!close_unit()) return false;
  }
  return !failed();
}

bool Measurer::execute(SignalWatch* signals) {
  if (failed()) return false;
  const auto& log = opts_.session.log;
  const int i = runs_done() + 1;
  const int e = executions_in_unit() + 1;
  const bool units = opts_.executions_per_unit > 1;
  // "run 3 (base)", or with units "unit 3 execution 2 (base)".
  const std::string name = (units ? "unit " + std::to_string(i) + " execution " + std::to_string(e) : "run " + std::to_string(i)) + who();
  try {
    if (e == 1 && (i > 1 || replanned_)) reattach(i > 1 ? i : 0);  // 0: a copy apart from run 1's
    if (!session_) {  // detached for a clean one: attached afresh, with the plan as it is now
      session_ = std::make_unique<RunSession>(cfg_, target_, opts_.session);
      replanned_ = false;
    }
    if (log && !units) log(name + " ...");
    RunResult r = cfg_.service ? session_->run_round(i, e, opts_.executions_per_unit, opts_.variant, signals)
                               : session_->run_once(i, opts_.variant, signals);
    r.layout = opts_.layout;
    if (!cfg_.service) r.cpu_s = session_->last_cpu_seconds();
    for (auto& f : r.functions)
      if (const auto it = fixed_calls_.find(f.name); it != fixed_calls_.end()) {
        f.calls = it->second;
        f.fixed_calls_per_execution = it->second;
      }
    if (opts_.session.on_collected) opts_.session.on_collected(r);
    if (!target_.libraries.empty() && log)
      for (const auto& w : plan::unmapped_library_notes(target_, session_->engine().take_library_loads(), r.functions))
        log("warning: " + name + ": " + w);
    require_some_call(r, target_.functions, name, cfg_.service.has_value());
    last_execution_s_ = r.duration_s;
    if (session_->probed() && cfg_.clean_benchmarks()) {
      RunResult c = run_clean(i, name, signals);
      last_execution_s_ += c.duration_s;  // a unit's planning counts both
      open_clean_.push_back(std::move(c));
    } else {
      read_benchmarks(cfg_, session_->last_stdout(), name, r, log, session_->last_cpu_seconds());
    }
    open_unit_.push_back(std::move(r));
  } catch (const Error& ex) {
    return fail_unit(ex);
  }
  return true;
}

namespace {

// The unit's sampled figures from its sampled executions (Measurer::execute_sampled), in place of
// the probed executions'.
void take_sampled(RunResult& unit, const std::vector<RunResult>& sampled) {
  for (size_t i = 0; i < unit.functions.size(); ++i) {
    FunctionRun& f = unit.functions[i];
    f.cpu_samples = f.probe_samples = f.self_samples = 0;
    for (const auto& s : sampled) {
      if (i >= s.functions.size()) continue;
      f.cpu_samples += s.functions[i].cpu_samples;
      f.probe_samples += s.functions[i].probe_samples;
      f.self_samples += s.functions[i].self_samples;
    }
  }
  unit.sampled_executions = static_cast<int>(sampled.size());
  unit.sampled_duration_s = 0;
  for (const auto& s : sampled) {
    unit.sampled_duration_s += s.duration_s;
    if (s.sample_period_ns) unit.sample_period_ns = s.sample_period_ns;
  }
}

// The trial executions' self samples (Measurer::execute_sampled, keep false): kept apart from the
// unit's figures, for measure: auto's counts (FunctionRun::trial_self_samples).
void take_trial(RunResult& unit, const std::vector<RunResult>& trial) {
  for (size_t i = 0; i < unit.functions.size(); ++i) {
    FunctionRun& f = unit.functions[i];
    f.trial_self_samples = 0;
    for (const auto& s : trial)
      if (i < s.functions.size()) f.trial_self_samples += s.functions[i].self_samples;
  }
  unit.trial_executions = static_cast<int>(trial.size());
  unit.trial_cpu_s = 0;
  for (const auto& s : trial) unit.trial_cpu_s = unit.trial_cpu_s >= 0 && s.cpu_s >= 0 ? unit.trial_cpu_s + s.cpu_s : -1;
}

}  // namespace

bool Measurer::close_unit() {
  if (failed()) return false;
  if (open_unit_.empty()) return true;
  if (cfg_.service) {  // rounds/runner/rounds.hpp: stop the unit's service, check its calls per round
    session_->end_rounds();
    const auto notes = round_call_notes(open_unit_, cfg_.calls_change, runs_done() + 1, opts_.variant);
    for (const auto& n : notes)
      if (opts_.session.on_round_calls) opts_.session.on_round_calls(n);
    add_round_call_notes(m_.result, notes);
  }
  RunResult r = merge_executions(open_unit_);
  open_unit_.clear();
  r.probed_executions = r.executions;
  if (!open_clean_.empty()) take_clean_benchmarks(r, merge_executions(open_clean_));
  else if (!session_->probed()) mark_all_clean(r);
  open_clean_.clear();
  if (!open_sampled_.empty()) take_sampled(r, open_sampled_);
  open_sampled_.clear();
  if (!open_trial_.empty()) take_trial(r, open_trial_);
  open_trial_.clear();
  r.index = runs_done() + 1;
  r.layout = opts_.layout;
  if (const auto& log = opts_.session.log) {
    uint64_t calls = 0;
    for (const auto& f : r.functions) calls += f.calls;
    char b[200];
    if (r.executions > 1)
      snprintf(b, sizeof b, "unit %d%s done: %d executions, %.2f s, %llu traced calls", r.index, who().c_str(),
               r.executions, r.duration_s, static_cast<unsigned long long>(calls));
    else
      snprintf(b, sizeof b, "run %d%s done: %.2f s, %llu traced calls", r.index, who().c_str(), r.duration_s,
               static_cast<unsigned long long>(calls));
    char sampled[100] = "";
    if (r.sampled_executions > 0)
      snprintf(sampled, sizeof sampled, "; samples from %d executions without probes, %.2f s", r.sampled_executions,
               r.sampled_duration_s);
    log(std::string(b) + clean_note(r) + sampled);
  }
  m_.result.runs.push_back(std::move(r));
  return true;
}

void Measurer::count_calls_only(const std::set<std::string>& functions) {
  std::set<uint32_t> ids;
  for (const auto& f : target_.functions)
    if (functions.count(f.name)) ids.insert(f.id);
  if (ids.empty()) return;
  const size_t removed = plan::count_calls_only(target_, ids);
  replanned_ = true;
  if (opts_.session.log)
    opts_.session.log("calls: entry" + who() + ": " + std::to_string(ids.size()) +
                      " sampled functions keep an entry probe that counts calls; " + std::to_string(removed) +
                      " return probes removed");
}

void Measurer::stop_probing(const std::map<std::string, uint64_t>& calls_per_execution) {
  std::set<uint32_t> ids;
  std::set<std::string> names;
  for (const auto& f : target_.functions)
    if (calls_per_execution.count(f.name)) {
      ids.insert(f.id);
      names.insert(f.name);
    }
  if (ids.empty()) return;
  plan::ProbePlan trial = target_;
  const size_t removed = plan::stop_probing(trial, ids);
  if (trial.sites.empty()) {  // nothing left to attach: keep counting at their entries
    count_calls_only(names);
    return;
  }
  target_ = std::move(trial);
  for (const auto& n : names) fixed_calls_[n] = calls_per_execution.at(n);
  replanned_ = true;
  if (opts_.session.log)
    opts_.session.log("calls: auto" + who() + ": " + std::to_string(ids.size()) +
                      " sampled functions made the same calls in both sides' first executions: their " +
                      std::to_string(removed) + " probes removed, their calls taken from the first pair");
}

// A new attach (and copy of the binary) for the next run: see reattach_each_run.
void Measurer::reattach(int copy_index) {
  if (!session_) return;  // detached for a clean execution: execute() attaches afresh
  if (!session_->probed()) {  // benchmarks only: a fresh copy per unit all the same
    if (copy_dir_.empty()) return;
    session_.reset();
    use_fresh_copy(copy_index);
    session_ = std::make_unique<RunSession>(cfg_, target_, opts_.session);
    return;
  }
  const bool replanned = std::exchange(replanned_, false);
  if (!replanned && (!opts_.reattach_each_run || session_->engine().attach_mode() != probe::AttachMode::kMulti))
    return;
  session_->engine().detach();
  session_.reset();
  if (!copy_dir_.empty()) use_fresh_copy(copy_index);
  session_ = std::make_unique<RunSession>(cfg_, target_, opts_.session);
}

// One clean execution of unit `unit` (see clean_): its benchmark figures, no function figure;
// `sampled`: followed by the CPU sampler as the side's probed executions are (execute_sampled).
RunResult Measurer::run_clean(int unit, const std::string& name, SignalWatch* signals, bool sampled) {
  namespace fs = std::filesystem;
  const auto& log = opts_.session.log;
  if (copy_dir_.empty()) {
    // The workload runs the probed file itself: the probes go for the clean execution (they come
    // back, attached afresh, before the next probed one).
    if (session_ && log && !clean_) log("clean executions: the probes are detached for each (no copy of the binary)");
    session_.reset();
    clean_binary_ = target_.binary;
  } else if (!clean_ || (open_clean_.empty() && open_sampled_.empty())) {  // a fresh copy per unit, as for the probed ones
    const fs::path original(original_binary_);
    const fs::path dir = fs::path(copy_dir_) / ("clean-" + std::to_string(unit)) / original.parent_path().filename();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) fs::copy_file(original_binary_, dir / original.filename(), fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw Error::make("copy of " + original_binary_ + " in " + dir.string(), ec.message(),
                        "free space in " + copy_dir_ + " (or set TMPDIR elsewhere)", ExitCode::kMeasure);
    clean_.reset();
    if (!clean_binary_.empty() && clean_binary_ != target_.binary)
      fs::remove_all(fs::path(clean_binary_).parent_path().parent_path(), ec);
    clean_binary_ = (dir / original.filename()).string();
  }
  if (!clean_ || clean_->target().binary != clean_binary_ || clean_sampled_ != sampled) {
    SessionOptions so = opts_.session;
    so.clean = true;
    // The CPU sampler follows probed executions, and sampled ones, whose samples are collected
    // right after them (execute_sampled): an untracked clean one's samples stay out of both.
    so.on_tracked = nullptr;
    if (sampled && opts_.session.on_tracked)
      so.on_tracked = [f = opts_.session.on_tracked, v = opts_.variant](pid_t pid, const std::string&) { f(pid, v); };
    so.on_collected = nullptr;
    so.on_measure_start = nullptr;
    so.pause_sampling = nullptr;
    clean_sampled_ = sampled;
    so.extra_env["GATE_CLEAN"] = "1";  // workload scripts may tell a clean execution apart
    clean_ = std::make_unique<RunSession>(cfg_, clean_plan(clean_binary_), so);
  }
  // Its own output files ("run-3-base-clean.stdout"): a kept output directory keeps both.
  const std::string label = opts_.variant.empty() ? "clean" : opts_.variant + "-clean";
  // An unsampled one runs with the CPU sampler paused: its interrupts would slow it (~9% on a KVM
  // guest at 4999 Hz), and its benchmark figures are meant to be the bare binary's.
  const auto pause = sampled ? nullptr : opts_.session.pause_sampling;
  if (pause) pause(true);
  RunResult c;
  try {
    c = clean_->run_once(unit, label, signals);
  } catch (...) {
    if (pause) pause(false);
    throw;
  }
  if (pause) pause(false);
  c.variant = opts_.variant;
  if (!sampled) read_benchmarks(cfg_, clean_->last_stdout(), name + " clean", c, log, clean_->last_cpu_seconds());
  return c;
}

bool Measurer::execute_sampled(SignalWatch* signals, bool keep) {
  if (failed()) return false;
  if (open_unit_.empty() || !opts_.session.on_collected) return true;  // nothing to sample for
  const int i = runs_done() + 1;
  const std::string name = "unit " + std::to_string(i) + (keep ? " sampled execution " : " trial execution ") +
                           std::to_string(open_sampled_.size() + 1) + who();
  try {
    const RunResult c = run_clean(i, name, signals, true);
    RunResult s;  // the probed unit's functions, for their samples
    s.variant = opts_.variant;
    s.layout = opts_.layout;
    s.duration_s = c.duration_s;
    s.cpu_s = clean_->last_cpu_seconds();
    last_sampled_s_ = c.duration_s;
    s.functions.reserve(open_unit_.front().functions.size());
    for (const auto& f : open_unit_.front().functions) {
      FunctionRun fr;
      fr.name = f.name;
      s.functions.push_back(std::move(fr));
    }
    opts_.session.on_collected(s);
    (keep ? open_sampled_ : open_trial_).push_back(std::move(s));
  } catch (const Error& ex) {
    return fail_unit(ex);
  }
  return true;
}



RunSession& Measurer::session_for_round() {
  if (++rounds_ > 1) reattach(rounds_);
  return *session_;
}

void Measurer::add_units(std::vector<RunResult> units) {
  for (auto& u : units) m_.result.runs.push_back(std::move(u));
}

void Measurer::fail(const Error& e) {
  if (failed()) return;
  m_.failure = e;
  m_.result.partial = true;
  m_.result.partial_reason = e.what();
}

bool Measurer::fail_unit(const Error& e) {
  open_unit_.clear();
  open_clean_.clear();
  open_sampled_.clear();
  open_trial_.clear();
  fail(e);
  return false;
}

bool Measurer::warm_up(int count, SignalWatch* signals) {
  for (int k = 1; k <= count && !failed(); ++k) {
    if (opts_.session.log) opts_.session.log("warm-up run " + std::to_string(k) + "/" + std::to_string(count));
    try {
      // Measured and discarded, but a warm-up that reached none of the functions says the runs won't.
      RunResult r = session_->run_once(k, "warmup", signals);
      r.layout = opts_.layout;
      if (opts_.session.on_collected) opts_.session.on_collected(r);  // drains the warm-up's samples
      require_some_call(r, target_.functions, "warm-up run " + std::to_string(k), cfg_.service.has_value());
    } catch (const Error& e) {
      m_.failure = e;
      m_.result.partial = true;
      m_.result.partial_reason = e.what();
    }
  }
  return !failed();
}

Measurement Measurer::finish() {
  clean_.reset();
  if (session_ && session_->probed()) {
    const double detach_s = session_->engine().detach();
    if (opts_.session.log && detach_s > 0.5) {
      char b[96];
      snprintf(b, sizeof b, "detached probes in %.1f s", detach_s);
      opts_.session.log(b);
    }
  }
  session_.reset();
  if (!copy_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(copy_dir_, ec);
    copy_dir_.clear();
  }
  m_.result.context.ended_at = iso_now();
  return m_;
}

Measurement measure(const Config& cfg, const MeasureOptions& opts, SignalWatch* signals) {
  if (!opts.skip_build) run_build(cfg, opts.session.log, signals);
  MeasureOptions o = opts;  // gate run and record: one execution a unit unless the config sets min_unit_seconds
  if (o.min_unit_seconds == 0) o.min_unit_seconds = min_unit_seconds(cfg, UnitCommand::kRun);
  Measurer m(cfg, o);
  if (m.warm_up(cfg.warmup_runs, signals)) m.run(opts.runs > 0 ? opts.runs : cfg.runs, signals);
  return m.finish();
}

std::string sample_label(const std::string& variant, int layout) {
  return layout < 0 ? variant : variant + "@" + std::to_string(layout);
}

}  // namespace gate::runner
