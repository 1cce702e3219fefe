// The measuring step: build, analyse, attach, runs with progress, partial results on failure.
#include "runner/measure.hpp"

#include <cstdio>

namespace gate::runner {

void run_build(const Config& cfg, const std::function<void(const std::string&)>& log, SignalWatch* signals) {
  if (cfg.build.empty()) return;
  if (log) log("building: " + cfg.build);
  std::string out;
  int rc = run_shell(cfg.build, cfg.dir, cfg.env, &out, signals);
  if (rc == -1) throw Error("interrupted during the build step", ExitCode::kMeasure);
  if (rc != 0) {
    throw Error::make("build command '" + cfg.build + "'",
                      "exited with status " + std::to_string(rc) + "; its output ends with:\n" + out,
                      "run it by hand in " + cfg.dir + " and fix the build", ExitCode::kMeasure);
  }
}

Measurer::Measurer(const Config& cfg, const MeasureOptions& opts) : cfg_(cfg), opts_(opts) {
  const auto& log = opts_.session.log;
  const plan::ProbePlan target = plan::make_plan(opts.binary_override.empty() ? cfg.binary : opts.binary_override,
                                       cfg.patterns(), opts.entry);
  const std::string who = opts_.variant.empty() ? "" : opts_.variant + ": ";
  for (const auto& w : target.warnings)
    if (log) log(who + "warning: " + w);
  session_ = std::make_unique<RunSession>(cfg, target, opts_.session);
  if (log) {
    char b[200];
    snprintf(b, sizeof b, "%sattached %zu probes on %zu functions in %.0f ms (%s)", who.c_str(), target.sites.size(),
             target.measurable_count(), session_->engine().attach_seconds() * 1000,
             probe::to_string(session_->engine().attach_mode()));
    log(b);
  }
  ResultFile& r = m_.result;
  r.context = host_context();
  r.context.binary_path = target.binary;
  r.context.build_id = target.build_id;
  r.context.go_version = target.go_version;
  r.context.config_path = cfg.path;
  r.context.config_hash = cfg.hash;
  r.context.started_at = iso_now();
  r.context.attach_mode = probe::to_string(session_->engine().attach_mode());
  r.functions = target.functions;
  r.extra["config_name"] = cfg.name;
  r.extra["symbol_source"] = target.symbol_source;
  if (!opts_.variant.empty()) r.extra["variant"] = opts_.variant;
}

Measurer::~Measurer() = default;

bool Measurer::run(int count, SignalWatch* signals) {
  if (failed()) return false;
  const auto& log = opts_.session.log;
  const std::string who = opts_.variant.empty() ? "" : " (" + opts_.variant + ")";
  try {
    for (int k = 0; k < count; ++k) {
      const int i = runs_done() + 1;
      if (log) log("run " + std::to_string(i) + who + " ...");
      RunResult r = session_->run_once(i, opts_.variant, signals);
      if (log) {
        uint64_t calls = 0;
        for (const auto& f : r.functions) calls += f.calls;
        char b[160];
        snprintf(b, sizeof b, "run %d%s done: %.2f s, %llu traced calls", i, who.c_str(), r.duration_s,
                 static_cast<unsigned long long>(calls));
        log(b);
      }
      m_.result.runs.push_back(std::move(r));
    }
  } catch (const Error& e) {
    m_.failure = e;
    m_.result.partial = true;
    m_.result.partial_reason = e.what();
    return false;
  }
  return true;
}

bool Measurer::warm_up(int count, SignalWatch* signals) {
  for (int k = 1; k <= count && !failed(); ++k) {
    if (opts_.session.log) opts_.session.log("warm-up run " + std::to_string(k) + "/" + std::to_string(count));
    try {
      session_->run_once(k, "warmup", signals);  // measured and discarded
    } catch (const Error& e) {
      m_.failure = e;
      m_.result.partial = true;
      m_.result.partial_reason = e.what();
    }
  }
  return !failed();
}

Measurement Measurer::finish() {
  if (session_) {
    const double detach_s = session_->engine().detach();
    if (opts_.session.log && detach_s > 0.5) {
      char b[96];
      snprintf(b, sizeof b, "detached probes in %.1f s", detach_s);
      opts_.session.log(b);
    }
    session_.reset();
  }
  m_.result.context.ended_at = iso_now();
  return m_;
}

Measurement measure(const Config& cfg, const MeasureOptions& opts, SignalWatch* signals) {
  if (!opts.skip_build) run_build(cfg, opts.session.log, signals);
  Measurer m(cfg, opts);
  if (m.warm_up(cfg.warmup_runs, signals)) m.run(opts.runs > 0 ? opts.runs : cfg.runs, signals);
  return m.finish();
}

}  // namespace gate::runner
