// benchmark_source: the runs' clean_executions and probed_executions, summed, in words.
#include "gobench/source.hpp"

namespace gate::gobench {

std::string benchmark_source(const std::vector<RunResult>& runs) {
  int with = 0, clean_runs = 0, probed = 0, clean = 0;
  for (const auto& r : runs) {
    if (r.benchmarks.empty()) continue;
    ++with;
    if (r.clean_executions > 0) {
      ++clean_runs;
      clean += r.clean_executions;
      probed += r.probed_executions;
    }
  }
  if (with == 0) return "";
  if (clean_runs == 0)
    return "benchmark figures from probed executions (a result recorded before gate ran benchmarks "
           "without probes): they include the probes' cost";
  std::string out = "benchmark figures from " + std::to_string(clean) + " clean execution" + (clean == 1 ? "" : "s") +
                    " (no probe attached)";
  out += probed > 0 ? "; function figures from " + std::to_string(probed) + " probed one" + (probed == 1 ? "" : "s")
                    : "; no function probed (benchmarks only)";
  if (clean_runs < with)
    out += "; " + std::to_string(with - clean_runs) + " run" + (with - clean_runs == 1 ? "" : "s") +
           " read from probed executions (an older result)";
  return out;
}

}  // namespace gate::gobench
