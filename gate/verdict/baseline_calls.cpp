// A baseline refuses declared functions no run called, unless the config marks them optional.
#include "verdict/baseline_calls.hpp"

#include "common/error.hpp"
#include "common/format.hpp"
#include "explain/run_notes_text.hpp"
#include "runner/coverage.hpp"

namespace gate::verdict {

void require_calls_for_baseline(const ResultFile& r, const runner::Config& cfg, const std::string& baseline_path) {
  std::vector<UncalledFunction> missing;
  for (auto& f : runner::uncalled_functions(r))
    if (!runner::is_optional(cfg, f.name)) missing.push_back(std::move(f));
  if (missing.empty()) return;
  std::string cause = "not written: " + plural(missing.size(), "declared function") + " had no calls in " +
                      plural(r.runs.size(), "run") + ", and a baseline without calls cannot guard them:";
  for (const auto& f : missing) cause += "\n  - " + f.name + " (" + explain::inlining_status(f) + ")";
  throw Error::make("baseline " + baseline_path, cause,
                    "make the workload reach them, remove them from functions: in " + cfg.path +
                        ", or mark the entry optional (functions: [{name: " + missing.front().name +
                        ", optional: true}])",
                    ExitCode::kMeasure);
}

}  // namespace gate::verdict
