// Working-tree baselines: default path, validation, loading, overwrite protection.
#include "baselines/baseline_file.hpp"

#include <filesystem>

#include "common/error.hpp"

namespace gate::baselines {

namespace fs = std::filesystem;

std::string repository_root(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(dir.empty() ? "." : dir, ec), ec);
  for (; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return p.string();
    if (p == p.root_path()) break;
  }
  return "";
}

std::string default_path(const std::string& config_name, const std::string& configured,
                         const std::string& config_dir) {
  if (!configured.empty()) return configured;
  const std::string root = repository_root(config_dir);
  std::error_code ec;
  const fs::path dir = root.empty() ? fs::weakly_canonical(fs::absolute(config_dir.empty() ? "." : config_dir, ec), ec)
                                    : fs::path(root);
  const fs::path path = dir / "baselines" / (config_name + ".json");
  const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
  const fs::path rel = path.lexically_relative(cwd);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return path.string();
}

void require_usable(const ResultFile& r, const std::string& where, const std::string& record_again) {
  if (r.partial) {
    throw Error::make("baseline " + where, "is a partial result (" + r.partial_reason + ")",
                      "a failed or interrupted run is never a baseline: " + record_again);
  }
  if (r.runs.empty()) throw Error::make("baseline " + where, "holds no runs", record_again);
}

ResultFile load(const std::string& path, const std::string& config_path) {
  if (!std::filesystem::exists(path)) {
    throw Error::make("baseline " + path, "does not exist",
                      "record one first: gate record -c " + (config_path.empty() ? "gate.yaml" : config_path) +
                          " --baseline " + path);
  }
  ResultFile r = load_result_file(path);
  require_usable(r, path, "record it again with gate record");
  return r;
}

void require_common_functions(const ResultFile& base, const ResultFile& head, const std::string& base_path) {
  if (base.functions.empty() && head.functions.empty()) return;  // benchmarks only (benchmarks: go, no functions)
  for (const auto& f : head.functions)
    if (base.find_function(f.name)) return;
  auto names = [](const ResultFile& r) {
    std::string s;
    for (size_t i = 0; i < r.functions.size() && i < 4; ++i) s += (i ? ", " : "") + r.functions[i].name;
    if (r.functions.size() > 4) s += ", ...";
    return s.empty() ? std::string("none") : s;
  };
  throw Error::make("baseline " + base_path,
                    "shares no function with the measured result (baseline: " + names(base) + "; now: " + names(head) +
                        "); it was recorded from another binary (" + base.context.binary_path + ") or config",
                    "record a baseline for this config: gate record -c <gate.yaml> --force");
}

void require_same_time_basis(bool base_excluded, bool head_excluded, const std::string& base_path) {
  if (base_excluded == head_excluded) return;
  auto basis = [](bool excluded) { return excluded ? "with preemption excluded" : "as wall time (preemption in)"; };
  throw Error::make("baseline " + base_path,
                    std::string("was measured ") + basis(base_excluded) + ", the head " + basis(head_excluded) +
                        ": the two differ by the machine's load, not by the code",
                    base_excluded ? "drop --no-exclude-preemption / exclude_preemption: false (gate check then "
                                    "measures as the baseline was), or re-record the baseline as wall time (gate "
                                    "record --force --no-exclude-preemption)"
                                  : "drop --exclude-preemption / exclude_preemption: true (gate check then measures "
                                    "as the baseline was), or re-record the baseline with it (gate record --force "
                                    "--exclude-preemption)");
}

bool check_overwrite(const std::string& path, bool force) {
  if (!std::filesystem::exists(path)) return false;
  if (force) return true;
  std::string when;
  try {
    when = " (recorded " + load_result_file(path).context.started_at + ")";
  } catch (const Error&) {
    when = " (unreadable)";
  }
  throw Error::make("baseline " + path, "already exists" + when,
                    "pass --force to replace it, or --baseline to write another file");
}

}  // namespace gate::baselines
