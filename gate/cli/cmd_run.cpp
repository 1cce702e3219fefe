// `gate run`: measure the configured workload and write/print the latency distributions.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/profile_flags.hpp"
#include "common/error.hpp"
#include "explain/run_notes_text.hpp"
#include "report/call_graph.hpp"
#include "report/run_table.hpp"
#include "report/true_time_section.hpp"
#include "results/result.hpp"
#include "runner/cgroup_cpu.hpp"
#include "runner/coverage.hpp"
#include "runner/measure.hpp"
#include "runner/run_as.hpp"

namespace gate::cli {

namespace {

struct RunArgs {
  MeasureFlags m;
  std::string out;
  std::string entry = "auto";
  std::string format = "text";
  bool summary = false;
  std::string folded;
  ProfileFlags profile;
  std::string profile_out = "profile.pb.gz";
};

}  // namespace

void write_folded(const std::string& path, const ResultFile& r, const Globals& g) {
  const std::string text = report::render_folded(r);
  if (text.empty()) {
    throw Error::make(path, "no call graph to write: the runs were measured without true time or timed no call",
                      "drop --raw-times (the call graph comes with true time), or check the run table above",
                      ExitCode::kUsage);
  }
  write_file_atomically(path, text);
  g.log("wrote " + path + " (folded stacks: self time in ns)");
}

std::function<int()> add_run(CLI::App& app, const Globals& g) {
  auto a = std::make_shared<RunArgs>();
  add_measure_flags(app, a->m);
  const Rerun no_report = Rerun::kNoReport;
  option(app, "-o,--out", no_report, a->out, "Write the result JSON here (atomically)");
  option(app, "--entry", no_report, a->entry,
         "Entry probe placement: auto (stack-check jump) or first (first instruction)")
      ->check(CLI::IsMember({"auto", "first"}));
  option(app, "--format", no_report, a->format, "Output on stdout: text (table) or json (the result file)")
      ->check(CLI::IsMember({"text", "json"}));
  flag(app, "--summary", no_report, a->summary,
       "Print per function calls, total, self time and probe share, worst first (text format)");
  option(app, "--folded", no_report, a->folded,
         "Write the traced call graph as folded stacks (self time in ns) for flamegraph.pl, "
         "inferno or speedscope");
  add_profile_flag(app, a->profile);
  option(app, "--profile-out", no_report, a->profile_out,
         "Where --profile writes the pprof file (default profile.pb.gz)");
  app.footer(
      "Examples:\n"
      "  gate run -c examples/shop/gate.yaml\n"
      "  gate run -c gate.yaml --profile && go tool pprof -top profile.pb.gz\n"
      "  gate run -c gate.yaml --runs 10 --out results.json --keep-output logs/\n"
      "  gate run -c gate.yaml --format json -q | jq '.runs[].duration_s'           # each run's seconds\n"
      "  gate run -c gate.yaml --format json -q | jq '.runs[0].functions.calls | add'  # calls timed in run 1\n"
      "  gate run -c gate.yaml --summary          # where the time goes: total, self, probe share\n"
      "  gate run -c gate.yaml --folded calls.folded && flamegraph.pl calls.folded > calls.svg");
  return [a, &g]() -> int {
    runner::SignalWatch signals;
    runner::Config cfg = load_measured_config(a->m);
    runner::MeasureOptions mo = measure_options(a->m, g);
    mo.entry = a->entry == "first" ? analysis::EntryPolicy::kFirstInstruction : analysis::EntryPolicy::kAuto;
    const Sampling sampling = start_sampling_built(profile_hz(a->profile, cfg), cfg, mo, &signals);
    runner::Measurement m = runner::measure(cfg, mo, &signals);
    if (auto* profiler = sampling.for_profiles()) {
      const std::string line = profiler->write("", a->profile_out);
      g.log("wrote " + a->profile_out + " (CPU profile: " + line + "); read it with: go tool pprof -top " + a->profile_out);
    }
    if (!a->out.empty()) {
      save_result_file(a->out, m.result);
      g.log("wrote " + a->out + (m.result.partial ? " (partial: not usable as a baseline)" : ""));
    }
    if (a->format == "json") {
      std::fputs(result_to_json_text(m.result).c_str(), stdout);
    } else if (!m.result.runs.empty()) {
      std::map<std::string, std::string> measure;
      for (const auto& f : m.result.functions) measure[f.name] = cfg.measure_of(f.name);
      std::fputs(report::render_run_table(m.result, measure).c_str(), stdout);
      if (a->summary) std::fputs(("\n" + report::render_summary(m.result)).c_str(), stdout);
    }
    if (m.result.context.preemption_excluded) g.log(report::preemption_line(m.result, "run"));
    if (m.failure) throw *m.failure;
    if (!a->folded.empty()) write_folded(a->folded, m.result, g);
    // Printed even with -q: a table with a row of zeros must not pass for a measurement of it.
    for (const auto& f : runner::uncalled_functions(m.result))
      std::fprintf(stderr, "gate: warning: %s\n", explain::uncalled(f).c_str());
    if (const auto t = runner::throttled_runs(m.result))
      std::fprintf(stderr, "gate: warning: %s\n", explain::throttled(*t).c_str());
    // A note on privileges, not on what was measured: -q keeps it out (doctor and reports say it too).
    if (const auto root = runner::root_workload(m.result)) g.log("warning: " + explain::root_workload(*root));
    return 0;
  };
}

}  // namespace gate::cli
