// `gate bisect GOOD BAD`: the commit that made a function slower, in about log2(n) steps. Each step
// builds a commit with the config's `build:` in a temporary git worktree and runs `gate ab` (this
// same gate, as a child) between GOOD's binary and that commit's: the verdict's statistics decide
// whether the commit is bad (a regression) or good. It can start from a change point of the history.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "baselines/git_ref.hpp"
#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/subprocess.hpp"
#include "history/series.hpp"
#include "runner/config.hpp"

namespace gate::cli {
namespace {

namespace fs = std::filesystem;

struct BisectArgs {
  std::string config, good, bad, function, from_change, db = "sqlite:.gate/history.db", work;
  int runs = 0, max_runs = 0;
  bool keep = false;
};

std::string git_line(const std::vector<std::string>& args, const std::string& dir, const std::string& what) {
  const auto r = baselines::run_git(args, dir);
  if (r.status != 0)
    throw Error::make(what, "git " + args.front() + " failed: " + tail_lines(r.err, 400),
                      "check that it names a commit of the repository at " + dir);
  return r.out.substr(0, r.out.find('\n'));
}

// Builds commits in temporary worktrees; each binary is copied out and kept for the whole bisect.
class Builder {
 public:
  Builder(std::string repo, std::string config_rel, std::string work, const Globals& g)
      : repo_(std::move(repo)), config_rel_(std::move(config_rel)), work_(std::move(work)), g_(g) {}

  std::string binary_of(const std::string& sha) {
    if (auto it = built_.find(sha); it != built_.end()) return it->second;
    const std::string wt = work_ + "/wt-" + sha.substr(0, 12);
    const auto add = baselines::run_git({"worktree", "add", "--detach", "--force", wt, sha}, repo_);
    if (add.status != 0)
      throw Error::make("commit " + sha, "git worktree add failed: " + tail_lines(add.err, 400),
                        "check the repository at " + repo_ + " (git worktree prune may help)");
    struct Remove {
      std::string repo, wt;
      ~Remove() { baselines::run_git({"worktree", "remove", "--force", wt}, repo); }
    } remove{repo_, wt};
    const runner::Config cfg = runner::load_config(wt + "/" + config_rel_);
    if (cfg.build.empty())
      throw Error::make("config " + config_rel_ + " at " + sha.substr(0, 12), "has no build: command",
                        "bisect builds each commit with the config's build: step; add one (e.g. go build -o bin/app .)");
    g_.log("building " + sha.substr(0, 12) + ": " + cfg.build);
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", cfg.build};
    spec.cwd = cfg.dir;
    spec.env = cfg.env;
    spec.merge_stderr = true;
    const auto r = run_process(spec);
    if (r.status != 0)
      throw Error::make("commit " + sha.substr(0, 12), "its build failed (exit " + std::to_string(r.status) +
                                                           "):\n" + tail_lines(r.out, 2000),
                        "fix the build, or bisect a range whose commits build (git bisect skip has no twin here yet)",
                        ExitCode::kMeasure);
    const std::string out = work_ + "/bin-" + sha.substr(0, 12);
    std::error_code ec;
    fs::copy_file(cfg.binary, out, fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw Error::make("commit " + sha.substr(0, 12), "its build made no " + cfg.binary + ": " + ec.message(),
                        "the config's build: must write the binary: path");
    built_[sha] = out;
    return out;
  }

 private:
  std::string repo_, config_rel_, work_;
  const Globals& g_;
  std::map<std::string, std::string> built_;
};

// GOOD and BAD from the latest change point of FUNCTION's p50 in the history.
void from_change_point(BisectArgs& a) {
  auto store = history::Store::open(a.db, false);
  const auto runs = history::load_runs(store, false);
  const auto it = runs.by_function.find(a.from_change);
  if (it == runs.by_function.end())
    throw Error::make("--from-change " + a.from_change, "is not in the history",
                      "give a function's full name as gate history changes prints it");
  const auto series = history::build_series(a.from_change, it->second, {"p50"});
  const history::Change* last = nullptr;
  std::vector<history::Change> all;
  for (const auto& s : series)
    for (auto& c : history::changes_in(s, {})) all.push_back(c);
  for (const auto& c : all)
    if (!last || c.point.index > last->point.index) last = &c;
  if (!last)
    throw Error::make("--from-change " + a.from_change, "the history shows no change point of its p50",
                      "see gate history show '" + a.from_change + "', or give GOOD and BAD");
  a.good = last->before_commit;
  a.bad = last->commit;
  if (a.function.empty()) a.function = a.from_change;
}

// true: the head is slower: a regression in gate ab's report (of --function when given). Good
// needs every judged function unchanged or improved; an inconclusive or too-little-data verdict
// decides nothing, so the bisect stops and says what would decide it instead of guessing.
bool is_bad(const BisectArgs& a, const std::string& good_bin, const std::string& bin, const std::string& json,
            const Globals& g) {
  ProcessSpec spec;
  spec.argv = {"/proc/self/exe", "ab", "-c", a.config, "--base-binary", good_bin, "--head-binary", bin, "--format",
               "json", "--output", json, "-q"};
  if (a.runs) spec.argv.insert(spec.argv.end(), {"--runs", std::to_string(a.runs)});
  if (a.max_runs) spec.argv.insert(spec.argv.end(), {"--max-runs", std::to_string(a.max_runs)});
  const auto r = run_process(spec);
  if (r.status != 0 && r.status != 1)
    throw Error::make("gate ab " + good_bin + " " + bin, "could not measure (exit " + std::to_string(r.status) +
                                                             "):\n" + tail_lines(r.err, 2000),
                      "fix what it names, then run gate bisect again", ExitCode::kMeasure);
  const auto text = read_file(json);
  const auto j = nlohmann::json::parse(text ? *text : "{}", nullptr, false);
  if (!j.is_object() || !j.contains("functions"))
    throw Error::make("gate ab's report " + json, "is not the JSON report bisect reads", "report this as a bug",
                      ExitCode::kMeasure);
  bool any_bad = false, all_good = true, found = a.function.empty();
  std::string undecided;
  for (const auto& f : j["functions"]) {
    const std::string name = f.value("name", ""), verdict = f.value("verdict", "");
    if (!a.function.empty() && name != a.function) continue;
    found = true;
    if (verdict != "unchanged" || g.verbose) g.log("  " + name + ": " + verdict + " (" + f.value("reason", "") + ")");
    any_bad |= verdict == "regression";
    if (verdict != "unchanged" && verdict != "improvement" && verdict != "regression") {
      all_good = false;
      undecided += (undecided.empty() ? "" : ", ") + name + " " + verdict;
    }
  }
  if (!found)
    throw Error::make("--function " + a.function, "is not in gate ab's report",
                      "give a function the config probes (its full name as the report prints it)");
  if (any_bad) return true;
  if (all_good) return false;
  throw Error::make("gate ab " + good_bin + " " + bin, "decided nothing: " + undecided,
                    "give more runs (--runs, --max-runs), or --function to decide on one function",
                    ExitCode::kMeasure);
}

}  // namespace

std::function<int()> add_bisect(CLI::App& app, const Globals& g) {
  auto a = std::make_shared<BisectArgs>();
  app.add_option("GOOD", a->good, "A commit before the slowdown");
  app.add_option("BAD", a->bad, "A commit with it");
  app.add_option("-c,--config", a->config, "The gate.yaml to measure with (its build: builds each commit)")->required();
  app.add_option("--function", a->function, "Decide on this function's verdict alone (default: gate ab's exit code)");
  app.add_option("--from-change", a->from_change,
                 "Start from FUNCTION's latest change point in the history (GOOD and BAD are the commits around it)");
  app.add_option("--db", a->db, "The history for --from-change")->envname("GATE_HISTORY_DB")->capture_default_str();
  app.add_option("--runs", a->runs, "Runs per side in each gate ab (default: the config's)");
  app.add_option("--max-runs", a->max_runs, "At most this many runs per side while inconclusive");
  app.add_option("--work", a->work, "Directory for the worktrees and binaries (default: a temporary one)");
  app.add_flag("--keep", a->keep, "Keep the work directory (the built binaries and each step's report)");
  app.footer(
      "Each step builds one commit in a temporary git worktree with the config's build: and runs gate ab\n"
      "between GOOD's binary and it; a regression makes the commit bad. GOOD must be an ancestor of BAD.\n"
      "Examples:\n"
      "  gate bisect v1.4.0 HEAD -c gate.yaml --function 'example.com/shop/pricing.Apply' --runs 6\n"
      "    (one function: a step is decided when it is; over every function, when all of them are)\n"
      "  gate bisect --from-change 'example.com/shop/pricing.Apply' -c gate.yaml --db sqlite:.gate/history.db\n"
      "Exit codes: 0 the first bad commit was named, 2 bad input, 3 a build or a measurement failed.");
  return [a, &g]() -> int {
    if (!a->from_change.empty()) from_change_point(*a);
    if (a->good.empty() || a->bad.empty())
      throw Error::make("gate bisect", "needs GOOD and BAD", "give both commits, or --from-change FUNCTION");
    const runner::Config cfg = runner::load_config(a->config);
    a->config = cfg.path;
    const std::string repo = git_line({"rev-parse", "--show-toplevel"}, cfg.dir, "config " + cfg.path);
    const std::string rel = fs::relative(fs::canonical(cfg.path), fs::canonical(repo)).string();
    const std::string good = git_line({"rev-parse", "--verify", a->good + "^{commit}"}, repo, "GOOD " + a->good);
    const std::string bad = git_line({"rev-parse", "--verify", a->bad + "^{commit}"}, repo, "BAD " + a->bad);
    const auto list = baselines::run_git({"rev-list", "--reverse", "--first-parent", "--ancestry-path", good + ".." + bad}, repo);
    std::vector<std::string> commits;
    for (size_t p = 0, e; p < list.out.size(); p = e + 1) {
      e = list.out.find('\n', p);
      if (e == std::string::npos) e = list.out.size();
      if (e > p) commits.push_back(list.out.substr(p, e - p));
    }
    if (list.status != 0 || commits.empty())
      throw Error::make("gate bisect " + a->good + " " + a->bad, "GOOD is not an ancestor of BAD (no commits between)",
                        "give an older commit as GOOD");
    std::string work = a->work;
    if (work.empty()) {
      char tmpl[] = "/tmp/gate-bisect-XXXXXX";
      if (!mkdtemp(tmpl)) throw Error("cannot create a temporary directory: " + std::string(strerror(errno)));
      work = tmpl;
    }
    fs::create_directories(work);
    struct Cleanup {
      std::string dir;
      bool keep;
      ~Cleanup() {
        std::error_code ec;
        if (!keep) fs::remove_all(dir, ec);
      }
    } cleanup{work, a->keep};
    Builder builder(repo, rel, work, g);
    const std::string good_bin = builder.binary_of(good);
    // commits[hi] is bad (BAD itself is taken as bad), everything up to lo is good (-1: GOOD).
    long lo = -1, hi = static_cast<long>(commits.size()) - 1;
    const int expected = static_cast<int>(std::ceil(std::log2(static_cast<double>(commits.size()))));
    int step = 0;
    std::printf("bisecting %zu commits after %s up to %s (~%d steps)\n", commits.size(), good.substr(0, 12).c_str(),
                bad.substr(0, 12).c_str(), expected);
    while (hi - lo > 1) {
      const long mid = lo + (hi - lo) / 2;
      const std::string& sha = commits[static_cast<size_t>(mid)];
      ++step;
      const bool bad_mid = is_bad(*a, good_bin, builder.binary_of(sha), work + "/step" + std::to_string(step) + ".json", g);
      const std::string subject = git_line({"log", "-1", "--format=%s", sha}, repo, "commit " + sha);
      std::printf("step %d: %s %s: %s\n", step, sha.substr(0, 12).c_str(), subject.c_str(),
                  bad_mid ? "slower than GOOD (bad)" : "not slower (good)");
      std::fflush(stdout);
      (bad_mid ? hi : lo) = mid;
    }
    const std::string& first = commits[static_cast<size_t>(hi)];
    std::printf("first bad commit: %s %s (%d steps for %zu commits)\n", first.c_str(),
                git_line({"log", "-1", "--format=%s", first}, repo, "commit " + first).c_str(), step, commits.size());
    if (a->keep) std::printf("binaries and reports kept in %s\n", work.c_str());
    return 0;
  };
}

}  // namespace gate::cli
