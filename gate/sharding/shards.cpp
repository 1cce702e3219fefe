// A comparison's shards: the plan of one shard, its partial file, and the merge of all of them.
#include "sharding/shards.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "runner/coverage.hpp"
#include "explain/explain.hpp"
#include "explain/run_notes_text.hpp"
#include "stats/benchmark_tests.hpp"
#include "stats/distributions.hpp"
#include "stats/layout_variance.hpp"
#include "verdict/benchmark_family.hpp"
#include "verdict/judge.hpp"
#include "verdict/layouts.hpp"
#include "verdict/config_options.hpp"

namespace gate::sharding {

namespace {

Error usage(const std::string& object, const std::string& cause, const std::string& fix) {
  return Error::make(object, cause, fix, ExitCode::kUsage);
}

// splitmix64's finaliser: neighbouring K give unrelated seeds.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  ShardSpec s;
  char slash = 0;
  std::istringstream in(text);
  const auto bad = [&](const std::string& cause) {
    return usage("--shard " + text, cause, "write K/N, this shard's number K from 1 to N, e.g. --shard 2/3");
  };
  if (!(in >> s.index >> slash >> s.count) || slash != '/' || !in.eof()) throw bad("is not K/N");
  if (s.count < 1 || s.index < 1 || s.index > s.count) throw bad("K must lie between 1 and N");
  return s;
}

uint64_t shard_seed(uint64_t seed, const ShardSpec& s) { return mix(seed ^ mix(static_cast<uint64_t>(s.index))); }

int shard_pairs(int total, const ShardSpec& s) {
  const int share = total / s.count + (s.index <= total % s.count ? 1 : 0);
  if (share < 1)
    throw usage("--shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " of " + std::to_string(total) +
                    " pairs",
                "leaves this shard no pair to measure",
                "ask for at least as many pairs (--runs, or --max-runs) as shards");
  return share;
}

std::vector<std::string> shard_layouts(const std::vector<std::string>& binaries, const ShardSpec& s) {
  std::vector<std::string> out = binaries;
  if (!out.empty()) std::rotate(out.begin(), out.begin() + (s.index - 1) % out.size(), out.end());
  return out;
}

void unrotate_layouts(ResultFile& r, size_t layouts, const ShardSpec& s) {
  if (layouts < 2) return;
  for (auto& run : r.runs)
    if (run.layout >= 0) run.layout = static_cast<int>((run.layout + (s.index - 1)) % layouts);
}

Partial partial_of(verdict::AbJudged& j, const ShardSpec& shard, uint64_t seed, uint64_t shard_seed, size_t base_layouts,
                   size_t head_layouts, const runner::Config& cfg, const std::string& runner,
                   const std::string& runner_label) {
  Partial p;
  p.shard = shard;
  p.seed = seed;
  p.shard_seed = shard_seed;
  p.runner = runner;
  p.runner_label = runner_label;
  p.hostname = j.head.result.context.hostname;
  p.config_hash = cfg.hash;
  p.base_build_id = j.base.result.context.build_id;
  p.head_build_id = j.head.result.context.build_id;
  p.base_executions_per_unit = j.notes.base_executions_per_unit;
  p.head_executions_per_unit = j.notes.head_executions_per_unit;
  p.base = std::move(j.base.result);
  p.head = std::move(j.head.result);
  unrotate_layouts(p.base, base_layouts, shard);
  unrotate_layouts(p.head, head_layouts, shard);
  return p;
}

namespace {

// The first partial is the reference the others must match.
void require_same(const std::string& what, const std::string& ref, const std::string& ref_path, const std::string& v,
                  const std::string& path, const std::string& fix) {
  if (v == ref) return;
  throw usage("partial " + path, "has another " + what + " (" + v + ") than " + ref_path + " (" + ref + ")", fix);
}

}  // namespace

void require_one_comparison(const std::vector<Partial>& parts, const std::vector<std::string>& paths,
                            const runner::Config& cfg) {
  if (parts.empty()) throw usage("gate merge", "was given no partial", "name every shard's --partial-out file");
  const Partial& ref = parts.front();
  const std::string& ref_path = paths.front();
  const std::string fix_remeasure =
      "measure every shard of one comparison with the same config and binaries (the same build artifacts), then merge "
      "those partials";
  // Go stamps the checkout's state into a build (vcs.modified): a shard that builds for itself
  // beside one untracked file another shard's checkout lacks makes another build id.
  const std::string fix_rebuild = fix_remeasure +
                                  "; build the binaries once and pass them to every shard (gate ab --no-build): Go "
                                  "stamps the checkout's state (vcs.modified) into each build";
  std::map<int, std::string> seen;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Partial& p = parts[i];
    const std::string& path = paths[i];
    require_same("config", ref.config_hash, ref_path, p.config_hash, path, fix_remeasure);
    require_same("base binary (build id)", ref.base_build_id, ref_path, p.base_build_id, path, fix_rebuild);
    require_same("head binary (build id)", ref.head_build_id, ref_path, p.head_build_id, path, fix_rebuild);
    require_same("shard count", std::to_string(ref.shard.count), ref_path, std::to_string(p.shard.count), path,
                 "merge the partials of one matrix: every shard given --shard K/N with the same N");
    require_same("--seed", std::to_string(ref.seed), ref_path, std::to_string(p.seed), path,
                 "give every shard the same --seed (each derives its own from it and K)");
    if (p.base.partial || p.head.partial)
      throw usage("partial " + path, "holds an interrupted measurement (" +
                                         (p.base.partial ? p.base.partial_reason : p.head.partial_reason) + ")",
                  "run shard " + std::to_string(p.shard.index) + " again");
    if (p.base.runs.size() != p.head.runs.size() || p.base.runs.empty())
      throw usage("partial " + path, "has " + std::to_string(p.base.runs.size()) + " base and " +
                                         std::to_string(p.head.runs.size()) + " head runs, not pairs",
                  "run shard " + std::to_string(p.shard.index) + " again");
    if (auto [it, fresh] = seen.emplace(p.shard.index, path); !fresh)
      throw usage("shard " + std::to_string(p.shard.index) + "/" + std::to_string(p.shard.count),
                  "is given twice (" + it->second + " and " + path + ")", "give each shard's partial once");
  }
  for (int k = 1; k <= ref.shard.count; ++k)
    if (!seen.count(k))
      throw usage("shard " + std::to_string(k) + "/" + std::to_string(ref.shard.count), "is missing",
                  "download every shard's partial (a failed shard: run it again), or merge a matrix of fewer shards");
  if (ref.config_hash != cfg.hash)
    throw usage("config " + cfg.path, "is not the config the shards measured (" + cfg.hash + ", the shards " +
                                          ref.config_hash + ")",
                "merge with the gate.yaml of the commit the shards ran");
}

namespace {

// Pairs stay pairs: shard after shard, base run i and head run i of a shard land at the same index.
void append_runs(ResultFile& to, const ResultFile& from) {
  for (RunResult r : from.runs) {
    r.index = static_cast<int>(to.runs.size()) + 1;
    to.runs.push_back(std::move(r));
  }
}

// The noise of one shard's pairs: gate's own paired comparison on them alone, each function's p50
// noise (the log-sd of a pair's head/base), the median over functions.
double shard_noise(const Partial& p, stats::CompareOptions o) {
  if (p.pairs() < 2) return 0;
  o.min_runs = 2;
  o.first_look = o.last_look = 0;
  o.resamples = 200;  // the noise is read from the spread of pairs, not from the resampled interval
  std::vector<RunResult> base, head;  // a pilot pair is in no test (RunResult::pilot)
  const bool pilots = without_pilot_pairs(p.base.runs, p.head.runs, base, head);
  const stats::Comparison c =
      stats::compare(pilots ? base : p.base.runs, pilots ? head : p.head.runs, p.base, p.head, o);
  std::vector<double> noise;
  for (const auto& f : c.functions)
    if (!f.quantiles.empty() && f.quantiles.front().tested() && f.quantiles.front().noise > 0)
      noise.push_back(f.quantiles.front().noise);
  return noise.empty() ? 0 : upper_median(noise);
}

// A runner much noisier than the others: say so beside the verdicts, with what it weighed.
void warn_noisy_shard(Merged& m) {
  std::vector<double> n;
  for (const auto& s : m.shards)
    if (s.noise > 0) n.push_back(s.noise);
  if (n.size() < 2) return;
  const double median = upper_median(n);
  for (const auto& s : m.shards)
    if (s.noise > 2 * median) {
      const bool alone = s.stratum.size() == 1 && m.strata > 1;  // its own stratum: its weight says it
      m.notes.warnings.push_back(explain::noisy_shard(s.index, s.hostname, s.noise / median, alone ? s.weight : -1));
    }
}

int layouts_of(const ResultFile& r) {
  int n = 0;
  for (const auto& run : r.runs) n = std::max(n, run.layout + 1);
  return std::max(n, 1);
}

// A stratum's own comparison: its pairs alone, at one look. Its min_runs is kMinOwnPairs (the whole
// comparison's min_runs decides whether a test is made at all: the pooled one's).
stats::Comparison judge_stratum(const std::vector<const Partial*>& parts, stats::CompareOptions o) {
  ResultFile base = parts.front()->base, head = parts.front()->head;
  base.runs.clear();
  head.runs.clear();
  for (const Partial* p : parts) {
    append_runs(base, p->base);
    append_runs(head, p->head);
  }
  o.min_runs = std::min(o.min_runs, kMinOwnPairs);
  int looked = 0;
  for (const Partial* p : parts) looked += p->pairs();
  o.first_look = o.last_look = looked;
  return verdict::compare_with_benchmarks(base.runs, head.runs, base, head, o);
}

const stats::QuantileComparison* find_test(const stats::Comparison& c, const std::string& function,
                                           const std::string& quantile) {
  for (const auto& f : c.functions)
    if (f.name == function) return f.find(quantile);
  return nullptr;
}

// Every test of `c` (the pooled comparison) that every stratum estimated the same way replaced by
// the strata's combination; the rest keep the pooled interval (counted). Returns per stratum its
// shares over the tests.
std::vector<std::vector<double>> stratify(stats::Comparison& c, const std::vector<stats::Comparison>& strata,
                                          const stats::CompareOptions& o, int* pooled_tests) {
  std::vector<std::vector<double>> shares(strata.size());
  for (auto& f : c.functions)
    for (auto& q : f.quantiles) {
      if (!q.tested()) continue;
      std::vector<double> centers, scales, dfs;
      for (const auto& s : strata) {
        const stats::QuantileComparison* t = find_test(s, f.name, q.name);
        if (!t || !t->tested() || !(t->log_scale > 0) || !(t->df > 0) || t->window.used != q.window.used) break;
        centers.push_back(t->log_center);
        scales.push_back(t->log_scale);
        dfs.push_back(t->df);
      }
      if (centers.size() != strata.size()) {
        ++*pooled_tests;
        continue;
      }
      const StratifiedEstimate e = combine_strata(centers, scales, dfs);
      stats::RatioInterval r;
      r.log_center = e.log_center;
      r.log_scale = e.log_scale;
      r.df = e.df;
      r.base_ns = q.base_ns;
      r.ratio = std::exp(e.log_center);
      r.head_ns = q.base_ns * r.ratio;
      r.elasticity = q.elasticity;
      const double t = stats::student_t_quantile(1 - (1 - o.confidence) / 2, e.df);
      r.ci_low = std::exp(e.log_center - t * e.log_scale);
      r.ci_high = std::exp(e.log_center + t * e.log_scale);
      stats::fill_interval(q, r, true);
      for (size_t k = 0; k < strata.size(); ++k) shares[k].push_back(e.shares[k]);
    }
  return shares;
}

}  // namespace

std::vector<std::vector<size_t>> shard_strata(const std::vector<int>& pairs) {
  std::vector<std::vector<size_t>> strata;
  std::vector<size_t> small;
  int small_pairs = 0;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (pairs[i] >= kMinOwnPairs) {
      strata.push_back({i});
    } else {
      small.push_back(i);
      small_pairs += pairs[i];
    }
  if (small.empty()) return strata;
  if (small_pairs >= kMinOwnPairs || strata.empty()) {
    strata.push_back(small);
  } else {  // still too few: into the smallest stratum that has enough, where it moves that one least
    auto smallest = std::min_element(strata.begin(), strata.end(),
                                     [&](const auto& a, const auto& b) { return pairs[a.front()] < pairs[b.front()]; });
    smallest->insert(smallest->end(), small.begin(), small.end());
    std::sort(smallest->begin(), smallest->end());
  }
  return strata;
}

StratifiedEstimate combine_strata(const std::vector<double>& centers, const std::vector<double>& scales,
                                  const std::vector<double>& dfs) {
  StratifiedEstimate e;
  double sum_w = 0, sum_wc = 0;
  for (size_t k = 0; k < centers.size(); ++k) {
    const double w = 1 / (scales[k] * scales[k]);
    e.shares.push_back(w);
    sum_w += w;
    sum_wc += w * centers[k];
  }
  e.log_center = sum_wc / sum_w;
  double meier = 0, satterthwaite = 0;
  for (size_t k = 0; k < centers.size(); ++k) {
    const double w = e.shares[k];
    e.shares[k] = w / sum_w;
    // Weights from estimated variances are themselves noisy; 1 / sum_w alone understates the
    // variance (most with few degrees of freedom, where a stratum's variance read low by chance
    // takes the weight). Meier's first-order correction: 1 + 4 sum a_k (1 - a_k) / df_k.
    meier += e.shares[k] * (1 - e.shares[k]) / dfs[k];
    satterthwaite += w * w / dfs[k];
  }
  e.log_scale = std::sqrt((1 + 4 * meier) / sum_w);
  e.df = sum_w * sum_w / satterthwaite;  // Welch-Satterthwaite for sum_k a_k^2 se_k^2 = 1 / sum_w
  return e;
}

Merged merge_shards(const runner::Config& cfg, std::vector<Partial> parts, const std::vector<std::string>& paths) {
  require_one_comparison(parts, paths, cfg);
  std::sort(parts.begin(), parts.end(), [](const Partial& a, const Partial& b) { return a.shard.index < b.shard.index; });
  Merged m;
  m.base = parts.front().base;
  m.head = parts.front().head;
  m.base.runs.clear();
  m.head.runs.clear();
  std::vector<int> pairs;
  for (const auto& p : parts) {
    append_runs(m.base, p.base);
    append_runs(m.head, p.head);
    pairs.push_back(p.pairs());
  }
  stats::CompareOptions o = verdict::compare_options(&cfg, m.head.functions);
  // One look at every pair, as a fixed gate ab (its pilot pairs are in no test).
  int looked = 0;
  for (const auto& p : parts) looked += p.pairs();
  o.first_look = o.last_look = looked;
  for (const auto& p : parts)
    m.shards.push_back({p.shard.index, p.runner_label, p.hostname, p.pairs(), shard_noise(p, o), 1, {p.shard.index}});
  int total_pairs = 0;
  for (int n : pairs) total_pairs += n;
  const auto strata = shard_strata(pairs);
  m.strata = static_cast<int>(strata.size());
  if (m.strata < 2) {
    m.comparison = verdict::judge_with_layouts(m.base.runs, m.head.runs, m.base, m.head, o, &m.notes);
    for (auto& s : m.shards) {
      s.weight = static_cast<double>(s.pairs) / static_cast<double>(std::max(total_pairs, 1));
      s.stratum.clear();
      for (const auto& p : parts) s.stratum.push_back(p.shard.index);
    }
  } else {
    // gate ab's comparison of all pairs gives every test and what is not a function's interval
    // (calls, the common shift, benchmarks); the strata replace the intervals of the tests.
    m.comparison = verdict::compare_with_benchmarks(m.base.runs, m.head.runs, m.base, m.head, o);
    std::vector<stats::Comparison> judged;
    for (const auto& stratum : strata) {
      std::vector<const Partial*> members;
      for (size_t i : stratum) members.push_back(&parts[i]);
      judged.push_back(judge_stratum(members, o));
    }
    const auto shares = stratify(m.comparison, judged, o, &m.pooled_tests);
    for (size_t k = 0; k < strata.size(); ++k) {
      int stratum_pairs = 0;
      std::vector<int> indexes;
      for (size_t i : strata[k]) {
        stratum_pairs += pairs[i];
        indexes.push_back(parts[i].shard.index);
      }
      for (size_t i : strata[k]) {
        m.shards[i].weight = shares[k].empty() ? 0 : upper_median(shares[k]) * pairs[i] / stratum_pairs;
        m.shards[i].stratum = indexes;
      }
    }
    std::vector<RunResult> tested_base, tested_head;  // the pilot pairs left out, as in every test
    const bool pilots = without_pilot_pairs(m.base.runs, m.head.runs, tested_base, tested_head);
    const auto layout_shares = stats::widen_for_layouts(m.comparison, pilots ? tested_base : m.base.runs,
                                                        pilots ? tested_head : m.head.runs, o);
    for (auto& [name, f] : m.notes.functions) f.layout_share.reset();
    for (const auto& [name, share] : layout_shares) m.notes.functions[name].layout_share = share;
    verdict::redecide(m.comparison, o);
  }
  for (const auto& [r, side] : {std::pair{&m.base, "base"}, std::pair{&m.head, "head"}})
    for (const auto& f : runner::uncalled_functions(*r, side)) m.notes.warnings.push_back(explain::uncalled(f));
  warn_noisy_shard(m);
  m.notes.base_executions_per_unit = parts.front().base_executions_per_unit;
  m.notes.head_executions_per_unit = parts.front().head_executions_per_unit;
  m.notes.base_layouts = layouts_of(m.base);
  m.notes.head_layouts = layouts_of(m.head);
  return m;
}

}  // namespace gate::sharding
