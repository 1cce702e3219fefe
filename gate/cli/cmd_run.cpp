// `gate run`: measure the configured workload and write/print the latency distributions.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "common/format.hpp"
#include "report/text_report.hpp"
#include "results/result.hpp"
#include "runner/measure.hpp"

namespace gate::cli {

namespace {

struct RunArgs {
  MeasureFlags m;
  std::string out;
  std::string entry = "auto";
  std::string format = "text";
};

probe::AttachMode parse_mode(const std::string& m) {
  if (m == "uprobe_multi") return probe::AttachMode::kMulti;
  if (m == "perf_event") return probe::AttachMode::kPerProbe;
  return probe::AttachMode::kAuto;
}

// One line per function: calls per run and quantiles over all runs pooled.
std::string summary_table(const ResultFile& r) {
  std::string s;
  size_t w = 8;
  for (const auto& f : r.functions) w = std::max(w, f.name.size());
  s += pad_right("function", w) + "  " + pad_left("calls/run", 10) + "  " + pad_left("p50", 8) + "  " +
       pad_left("p90", 8) + "  " + pad_left("p99", 8) + "  " + pad_left("max", 8) + "  entry probe\n";
  for (const auto& f : r.functions) {
    if (!f.measurable) {
      s += pad_right(f.name, w) + "  not measurable: " + f.not_measurable_reason + "\n";
      continue;
    }
    LatencyHistogram all;
    uint64_t calls = 0, max_ns = 0, min_ns = UINT64_MAX, unmatched = 0, dropped = 0;
    for (const auto& run : r.runs) {
      const auto* fr = run.find(f.name);
      if (!fr) continue;
      all.merge(fr->histogram);
      calls += fr->calls;
      max_ns = std::max(max_ns, fr->max_ns);
      if (fr->calls) min_ns = std::min(min_ns, fr->min_ns);
      unmatched += fr->unmatched_entries + fr->unmatched_returns;
      dropped += fr->dropped;
    }
    // Quantiles of the pooled runs, clamped to the exact extremes the probe saw.
    auto q = [&](double p) {
      return calls ? std::clamp(all.quantile(p), double(min_ns), double(max_ns)) : all.quantile(p);
    };
    const double per_run = r.runs.empty() ? 0 : static_cast<double>(calls) / r.runs.size();
    char c[32];
    snprintf(c, sizeof c, "%.0f", per_run);
    s += pad_right(f.name, w) + "  " + pad_left(c, 10) + "  " + pad_left(report::format_duration(q(0.5)), 8) + "  " +
         pad_left(report::format_duration(q(0.9)), 8) + "  " + pad_left(report::format_duration(q(0.99)), 8) + "  " +
         pad_left(calls ? report::format_duration(static_cast<double>(max_ns)) : "-", 8) + "  " + f.entry_placement + " (" +
         f.entry_cost_class + ")";
    if (unmatched || dropped) {
      s += "  [unmatched " + std::to_string(unmatched) + ", dropped " + std::to_string(dropped) + "]";
    }
    uint64_t unmatched_returns = 0;
    for (const auto& run : r.runs)
      if (const auto* fr = run.find(f.name)) unmatched_returns += fr->unmatched_returns;
    if (unmatched_returns > calls / 100) {
      s += "\n" + pad_right("", w) + "  ^ many returns without an entry: more calls in flight than max_in_flight? (raise it in gate.yaml)";
    }
    s += "\n";
  }
  return s;
}

}  // namespace

void add_measure_flags(CLI::App& app, MeasureFlags& f) {
  app.add_option("-c,--config", f.config, "gate.yaml: binary, workload, functions, thresholds")->required();
  app.add_option("-n,--runs", f.runs, "Number of runs (default: the config's runs)")->check(CLI::Range(1, 10000));
  app.add_option("--keep-output", f.keep_output, "Keep each run's stdout/stderr in this directory");
  app.add_option("--attach-mode", f.attach_mode, "auto, uprobe_multi or perf_event")
      ->check(CLI::IsMember({"auto", "uprobe_multi", "perf_event"}));
  app.add_flag("--no-build", f.no_build, "Skip the config's build command");
}

runner::MeasureOptions measure_options(const MeasureFlags& f, const Globals& g) {
  runner::MeasureOptions mo;
  mo.runs = f.runs;
  mo.skip_build = f.no_build;
  mo.session.engine.mode = parse_mode(f.attach_mode);
  mo.session.keep_output_dir = f.keep_output;
  mo.session.log = [&g](const std::string& s) { g.log(s); };
  return mo;
}

std::function<int()> add_run(CLI::App& app, const Globals& g) {
  auto a = std::make_shared<RunArgs>();
  add_measure_flags(app, a->m);
  app.add_option("-o,--out", a->out, "Write the result JSON here (atomically)");
  app.add_option("--entry", a->entry, "Entry probe placement: auto (stack-check jump) or first (first instruction)")
      ->check(CLI::IsMember({"auto", "first"}));
  app.add_option("--format", a->format, "Output on stdout: text (table) or json (the result file)")
      ->check(CLI::IsMember({"text", "json"}));
  app.footer(
      "Examples:\n"
      "  gate run -c examples/shop/gate.yaml\n"
      "  gate run -c gate.yaml --runs 10 --out results.json --keep-output logs/\n"
      "  gate run -c gate.yaml --format json -q | jq '.runs[0].functions[0].p99_ns'");
  return [a, &g]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = runner::load_config(a->m.config);
    runner::MeasureOptions mo = measure_options(a->m, g);
    mo.entry = a->entry == "first" ? analysis::EntryPolicy::kFirstInstruction : analysis::EntryPolicy::kAuto;
    runner::Measurement m = runner::measure(cfg, mo, &signals);
    if (!a->out.empty()) {
      save_result_file(a->out, m.result);
      g.log("wrote " + a->out + (m.result.partial ? " (partial: not usable as a baseline)" : ""));
    }
    if (a->format == "json") {
      std::fputs(result_to_json_text(m.result).c_str(), stdout);
    } else if (!m.result.runs.empty()) {
      std::fputs(summary_table(m.result).c_str(), stdout);
    }
    if (m.failure) throw *m.failure;
    return 0;
  };
}

}  // namespace gate::cli
