// The measuring step: build, analyse, attach, N runs with progress, partial results on failure.
#include "runner/measure.hpp"

#include <cstdio>

#include "common/format.hpp"

namespace gate::runner {

void run_build(const Config& cfg, const std::function<void(const std::string&)>& log, SignalWatch* signals) {
  if (cfg.build.empty()) return;
  if (log) log("building: " + cfg.build);
  std::string out;
  int rc = run_shell(cfg.build, cfg.dir, cfg.env, &out, signals);
  if (rc == -1) throw Error("gate: interrupted during the build step", ExitCode::kMeasure);
  if (rc != 0) {
    throw Error::make("build command '" + cfg.build + "'",
                      "exited with status " + std::to_string(rc) + "; its output ends with:\n" + out,
                      "run it by hand in " + cfg.dir + " and fix the build", ExitCode::kMeasure);
  }
}

ResultFile new_result(const Config& cfg, const Target& t, const RunSession* session) {
  ResultFile r;
  r.context = host_context();
  r.context.binary_path = t.binary;
  r.context.build_id = t.build_id;
  r.context.go_version = t.go_version;
  r.context.config_path = cfg.path;
  r.context.config_hash = cfg.hash;
  r.context.started_at = iso_now();
  if (session) r.context.attach_mode = probe::to_string(const_cast<RunSession*>(session)->engine().attach_mode());
  r.functions = t.functions;
  r.extra["config_name"] = cfg.name;
  r.extra["symbol_source"] = t.symbol_source;
  return r;
}

namespace {

std::string run_line(const RunResult& r, double total_calls_hint) {
  (void)total_calls_hint;
  uint64_t calls = 0;
  for (const auto& f : r.functions) calls += f.calls;
  char b[128];
  snprintf(b, sizeof b, "%.2f s, %llu traced calls", r.duration_s, static_cast<unsigned long long>(calls));
  return b;
}

}  // namespace

Measurement measure(const Config& cfg, const MeasureOptions& opts, SignalWatch* signals) {
  const auto& log = opts.session.log;
  if (!opts.skip_build) run_build(cfg, log, signals);
  const Target target = prepare_target(opts.binary_override.empty() ? cfg.binary : opts.binary_override,
                                       cfg.patterns(), opts.entry);
  for (const auto& w : target.warnings)
    if (log) log("warning: " + w);
  RunSession session(cfg, target, opts.session);
  if (log) {
    char b[160];
    snprintf(b, sizeof b, "attached %zu probes on %zu functions in %.0f ms (%s)", target.sites.size(),
             target.measurable_count(), session.engine().attach_seconds() * 1000,
             probe::to_string(session.engine().attach_mode()));
    log(b);
  }
  Measurement m;
  m.result = new_result(cfg, target, &session);
  const int runs = opts.runs > 0 ? opts.runs : cfg.runs;
  const int warmups = static_cast<int>(cfg.warmup_runs);
  try {
    for (int w = 1; w <= warmups; ++w) {
      if (log) log("warm-up " + std::to_string(w) + "/" + std::to_string(warmups));
      session.run_once(-w, "warmup", signals);
    }
    for (int i = 1; i <= runs; ++i) {
      if (log) log("run " + std::to_string(i) + "/" + std::to_string(runs) + " ...");
      RunResult r = session.run_once(i, "", signals);
      if (log) log("run " + std::to_string(i) + "/" + std::to_string(runs) + " done: " + run_line(r, 0));
      m.result.runs.push_back(std::move(r));
    }
  } catch (const Error& e) {
    m.failure = e;
    m.result.partial = true;
    m.result.partial_reason = e.what();
  }
  const double detach_s = session.engine().detach();
  if (log && detach_s > 0.5) {
    char b[96];
    snprintf(b, sizeof b, "detached probes in %.1f s", detach_s);
    log(b);
  }
  m.result.context.ended_at = iso_now();
  return m;
}

}  // namespace gate::runner
