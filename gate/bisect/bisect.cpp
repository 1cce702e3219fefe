#include "bisect/bisect.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "baselines/git_ref.hpp"
#include "common/error.hpp"
#include "common/files.hpp"
#include "common/subprocess.hpp"
#include "runner/config.hpp"

namespace gate::bisect {
namespace {

namespace fs = std::filesystem;

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
  Builder(std::string repo, std::string config_rel, std::string work, std::function<void(const std::string&)> log)
      : repo_(std::move(repo)), config_rel_(std::move(config_rel)), work_(std::move(work)), log_(std::move(log)) {}

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
    log_("building " + sha.substr(0, 12) + ": " + cfg.build);
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
  std::function<void(const std::string&)> log_;
  std::map<std::string, std::string> built_;
};

// What one gate ab report says of the step: bad (a regression; of --function when given), good
// (every judged function unchanged or improved), or undecided (an inconclusive or too-little-data
// verdict; `undecided` names them). `fn` gets --function's entry of the report.
enum class Step { kGood, kBad, kUndecided };
Step read_step(const Options& a, const std::string& json, const std::function<void(const std::string&)>& log,
               std::string& undecided, nlohmann::json* fn = nullptr) {
  const auto text = read_file(json);
  const auto j = nlohmann::json::parse(text ? *text : "{}", nullptr, false);
  if (!j.is_object() || !j.contains("functions"))
    throw Error::make("gate ab's report " + json, "is not the JSON report bisect reads", "report this as a bug",
                      ExitCode::kMeasure);
  bool any_bad = false, all_good = true, found = a.function.empty();
  undecided.clear();
  for (const auto& f : j["functions"]) {
    const std::string name = f.value("name", ""), verdict = f.value("verdict", "");
    if (!a.function.empty() && name != a.function) continue;
    found = true;
    if (fn) *fn = f;
    if (verdict != "unchanged" || a.verbose) log("  " + name + ": " + verdict + " (" + f.value("reason", "") + ")");
    any_bad |= verdict == "regression";
    if (verdict != "unchanged" && verdict != "improvement" && verdict != "regression") {
      all_good = false;
      undecided += (undecided.empty() ? "" : ", ") + name + " " + verdict;
    }
  }
  if (!found)
    throw Error::make("--function " + a.function, "is not in gate ab's report",
                      "give a function the config probes (its full name as the report prints it)");
  return any_bad ? Step::kBad : all_good ? Step::kGood : Step::kUndecided;
}

// One gate ab between two binaries, its JSON report written to `json`; `attempt` picks the run order
// (--seed) and the runs at most (the first: the config's or --max-runs; the second: twice).
void run_ab(const Options& a, int max_runs, int attempt, const std::string& base_bin, const std::string& head_bin,
            const std::string& json) {
  const int at_most = attempt == 0 ? a.max_runs : 2 * max_runs;
  ProcessSpec spec;
  spec.argv = {a.gate, "ab", "-c", a.config, "--base-binary", base_bin, "--head-binary", head_bin, "--format",
               "json", "--output", json, "-q", "--seed", std::to_string(attempt + 1)};
  if (a.runs) spec.argv.insert(spec.argv.end(), {"--runs", std::to_string(a.runs)});
  if (at_most) spec.argv.insert(spec.argv.end(), {"--max-runs", std::to_string(at_most)});
  const auto r = run_process(spec);
  if (r.status != 0 && r.status != 1)
    throw Error::make("gate ab " + base_bin + " " + head_bin, "could not measure (exit " + std::to_string(r.status) +
                                                                   "):\n" + tail_lines(r.err, 2000),
                      "fix what it names, then run gate bisect again", ExitCode::kMeasure);
}

// BAD's regression of --function: gate ab of BAD against GOOD (a second time with more runs when
// the first does not flag it). A step that no verdict decides is placed against it: bisect asks on
// which side of the regression a commit lies, not whether it is unchanged within the band, which a
// function whose window is mostly gate's probes (its latency may not vouch for its code) or whose
// samples are sparse cannot reach in a bisect's runs.
Reference measure_reference(const Options& a, int max_runs, const std::string& good_bin, const std::string& bad_bin,
                            const std::string& json, const std::function<void(const std::string&)>& log) {
  log("  placing the step: measuring BAD against GOOD once, for the size of its regression");
  std::string undecided;
  for (int attempt = 0; attempt < 2; ++attempt) {
    run_ab(a, max_runs, attempt, good_bin, bad_bin, json);
    nlohmann::json fn;
    read_step(a, json, [](const std::string&) {}, undecided, &fn);
    if (const auto r = reference_of(fn)) {
      char b[160];
      std::snprintf(b, sizeof b, "  BAD against GOOD: %s %.3fx (regression); a step is placed by its %s against %.3fx",
                    r->test.c_str(), r->ratio, r->test.c_str(), r->midway());
      log(b);
      return *r;
    }
  }
  throw Error::make("gate bisect", "BAD is not measured slower than GOOD for " + a.function +
                                       " (gate ab found no regression of it, twice), so an undecided step cannot be placed",
                    "check the range (is BAD's regression of this function?), or give more runs (--runs, --max-runs)",
                    ExitCode::kMeasure);
}

Step placed(const Reference& ref, const nlohmann::json& fn, const std::function<void(const std::string&)>& log) {
  const Side side = place(ref, fn);
  for (const auto& q : fn.value("quantiles", nlohmann::json::array()))
    if (q.value("name", "") == ref.test && q.contains("ci_unadjusted_low")) {
      char b[200];
      std::snprintf(b, sizeof b, "  its %s %.3fx [%.3f, %.3f] lies %s %.3fx, midway to BAD's %.3fx", ref.test.c_str(),
                    q.value("ratio", 0.0), q.value("ci_unadjusted_low", 0.0), q.value("ci_unadjusted_high", 0.0),
                    side == Side::kGood ? "below" : side == Side::kBad ? "above" : "across", ref.midway(), ref.ratio);
      log(b);
    }
  return side == Side::kGood ? Step::kGood : side == Side::kBad ? Step::kBad : Step::kUndecided;
}

// true: the head is slower. With --function, a step no verdict decides is placed at once against
// BAD's regression (measured once, `ref`, when a step first needs it). Still undecided (or without
// --function), it is measured again, once, with twice the runs at most (and another run order),
// since one inconclusive verdict on a noisy machine is common and a bisect that stops there wastes
// its builds; still undecided, the bisect stops and says what would decide it instead of guessing.
// `max_runs`: the runs at most the first time (the config's).
bool is_bad(const Options& a, int max_runs, const std::string& good_bin,
            const std::function<std::string()>& bad_bin, const std::string& bin, const std::string& json, std::optional<Reference>& ref,
            const std::function<void(const std::string&)>& log) {
  std::string undecided;
  for (int attempt = 0; attempt < 2; ++attempt) {
    run_ab(a, max_runs, attempt, good_bin, bin, json);
    nlohmann::json fn;
    Step step = read_step(a, json, log, undecided, &fn);
    if (step == Step::kUndecided && !a.function.empty()) {
      if (!ref) ref = measure_reference(a, max_runs, good_bin, bad_bin(), json + ".bad.json", log);
      step = placed(*ref, fn, log);
    }
    if (step != Step::kUndecided) return step == Step::kBad;
    if (attempt == 0)
      log("  undecided (" + undecided + "): measuring this step again with at most " + std::to_string(2 * max_runs) +
          " runs a side");
  }
  throw Error::make("gate ab " + good_bin + " " + bin, "decided nothing, twice: " + undecided,
                    a.function.empty() ? "give more runs (--runs, --max-runs), or --function to decide on one function"
                                       : "give more runs (--runs, --max-runs)",
                    ExitCode::kMeasure);
}

}  // namespace

double Reference::midway() const { return std::sqrt(ratio); }

std::optional<Reference> reference_of(const nlohmann::json& fn) {
  if (!fn.is_object() || fn.value("verdict", "") != "regression") return std::nullopt;
  for (const auto& q : fn.value("quantiles", nlohmann::json::array()))
    if (q.value("verdict", "") == "regression" && q.value("ratio", 0.0) > 1)
      return Reference{q.value("name", ""), q.value("ratio", 0.0)};
  return std::nullopt;
}

// The test's own interval, not the family's Holm-corrected one: with --function the question is one
// function's, and the answer is a side of a measured change, not a verdict.
Side place(const Reference& ref, const nlohmann::json& fn) {
  for (const auto& q : fn.value("quantiles", nlohmann::json::array())) {
    if (q.value("name", "") != ref.test || !q.contains("ci_unadjusted_low") || !q.contains("ci_unadjusted_high"))
      continue;
    const double lo = q.value("ci_unadjusted_low", 0.0), hi = q.value("ci_unadjusted_high", 0.0);
    return hi < ref.midway() ? Side::kGood : lo > ref.midway() ? Side::kBad : Side::kAcross;
  }
  return Side::kAcross;
}

Result run(const Options& opts, const std::function<void(const std::string&)>& log,
           const std::function<void(const std::string&)>& out) {
  const runner::Config cfg = runner::load_config(opts.config);
  Options o = opts;
  o.config = cfg.path;  // each step's gate ab child runs elsewhere: give it the config's full path
  const std::string repo = git_line({"rev-parse", "--show-toplevel"}, cfg.dir, "config " + cfg.path);
  const std::string rel = fs::relative(fs::canonical(cfg.path), fs::canonical(repo)).string();
  const std::string good = git_line({"rev-parse", "--verify", o.good + "^{commit}"}, repo, "GOOD " + o.good);
  const std::string bad = git_line({"rev-parse", "--verify", o.bad + "^{commit}"}, repo, "BAD " + o.bad);
  const auto list = baselines::run_git({"rev-list", "--reverse", "--first-parent", "--ancestry-path", good + ".." + bad}, repo);
  std::vector<std::string> commits;
  for (size_t p = 0, e; p < list.out.size(); p = e + 1) {
    e = list.out.find('\n', p);
    if (e == std::string::npos) e = list.out.size();
    if (e > p) commits.push_back(list.out.substr(p, e - p));
  }
  if (list.status != 0 || commits.empty())
    throw Error::make("gate bisect " + o.good + " " + o.bad, "GOOD is not an ancestor of BAD (no commits between)",
                      "give an older commit as GOOD");
  std::string work = o.work;
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
  } cleanup{work, o.keep};
  Builder builder(repo, rel, work, log);
  const std::string good_bin = builder.binary_of(good);
  // commits[hi] is bad (BAD itself is taken as bad), everything up to lo is good (-1: GOOD).
  long lo = -1, hi = static_cast<long>(commits.size()) - 1;
  const int expected = static_cast<int>(std::ceil(std::log2(static_cast<double>(commits.size()))));
  int step = 0;
  std::optional<Reference> reference;  // BAD's regression, measured when a step first needs it
  out("bisecting " + std::to_string(commits.size()) + " commits after " + good.substr(0, 12) + " up to " +
      bad.substr(0, 12) + " (~" + std::to_string(expected) + " steps)");
  while (hi - lo > 1) {
    const long mid = lo + (hi - lo) / 2;
    const std::string& sha = commits[static_cast<size_t>(mid)];
    ++step;
    const bool bad_mid = is_bad(o, std::max({o.max_runs, cfg.max_runs, cfg.runs, o.runs}), good_bin,
                                [&] { return builder.binary_of(bad); }, builder.binary_of(sha),
                                work + "/step" + std::to_string(step) + ".json", reference, log);
    const std::string subject = git_line({"log", "-1", "--format=%s", sha}, repo, "commit " + sha);
    out("step " + std::to_string(step) + ": " + sha.substr(0, 12) + " " + subject + ": " +
        (bad_mid ? "slower than GOOD (bad)" : "not slower (good)"));
    (bad_mid ? hi : lo) = mid;
  }
  const std::string& first = commits[static_cast<size_t>(hi)];
  Result r{first, git_line({"log", "-1", "--format=%s", first}, repo, "commit " + first), step, commits.size()};
  out("first bad commit: " + r.first_bad + " " + r.subject + " (" + std::to_string(step) + " steps for " +
      std::to_string(commits.size()) + " commits)");
  if (o.keep) out("binaries and reports kept in " + work);
  return r;
}

}  // namespace gate::bisect
