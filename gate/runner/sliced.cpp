// gate ab --slice-ms: one round of both workloads alternated slice by slice, and the notes a
// sliced measurement adds to the report.
#include "runner/sliced.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "common/error.hpp"
#include "runner/coverage.hpp"
#include "runner/measure.hpp"

namespace gate::runner {

namespace {

// The round's units of one side summed per function: what require_some_call checks (a single
// slice may well time no call; a whole round must).
RunResult round_total(const std::vector<RunResult>& units) {
  RunResult t;
  if (units.empty()) return t;
  t.functions = units.front().functions;
  for (size_t u = 1; u < units.size(); ++u)
    for (size_t f = 0; f < t.functions.size() && f < units[u].functions.size(); ++f)
      t.functions[f].calls += units[u].functions[f].calls;
  return t;
}

void add_to_extra(ResultFile& r, const char* key, double v) {
  const auto it = r.extra.find(key);
  const double before = it == r.extra.end() ? 0 : std::atof(it->second.c_str());
  char b[48];
  snprintf(b, sizeof b, std::floor(v) == v ? "%.0f" : "%.3f", before + v);
  r.extra[key] = b;
}

// The losses of a side into its result (extra is free-form; the per-unit figure is
// RunResult::straddled_calls).
void record_losses(Measurer& m, double slice_ms, const SliceLosses& l) {
  ResultFile& r = m.mutable_result();
  char b[32];
  snprintf(b, sizeof b, "%g", slice_ms);
  r.extra["slice_ms"] = b;
  add_to_extra(r, "straddled_calls", static_cast<double>(l.straddled_calls));
  add_to_extra(r, "unpaired_calls", static_cast<double>(l.unpaired_calls));
  add_to_extra(r, "unpaired_seconds", l.unpaired_s);
}

std::string describe(const SlicedRound& s, int round, double slice_ms) {
  char b[400];
  snprintf(b, sizeof b,
           "round %d: %d pairs of %g ms slices; calls dropped for straddling a switch: base %llu, head %llu", round,
           s.pairs, slice_ms, static_cast<unsigned long long>(s.base.straddled_calls),
           static_cast<unsigned long long>(s.head.straddled_calls));
  std::string out = b;
  for (const auto& [side, l] : {std::pair{"base", &s.base}, std::pair{"head", &s.head}}) {
    if (l->unpaired_s <= 0) continue;
    snprintf(b, sizeof b, "; %s: %.2f s at the end unpaired or in a short last pair (%llu calls, dropped)", side,
             l->unpaired_s, static_cast<unsigned long long>(l->unpaired_calls));
    out += b;
  }
  return out;
}

std::string fmt_ms(double ms) {
  char b[32];
  snprintf(b, sizeof b, "%g", ms);
  return b;
}

// The last pair ends with the workloads; when one of its slices ran less than half a slice, it is
// dropped (counted as unpaired): its few calls would leave a function without enough calls in
// that unit (and speed normalization then off for every unit), and its two slices met the machine
// for different lengths of time.
void drop_short_last_pair(std::vector<RunResult> (&units)[2], SliceLosses (&loss)[2], double slice_s) {
  if (units[0].empty() || units[1].empty()) return;
  if (units[0].back().duration_s >= slice_s / 2 && units[1].back().duration_s >= slice_s / 2) return;
  for (int k = 0; k < 2; ++k) {
    const RunResult& r = units[k].back();
    loss[k].unpaired_calls += r.total_calls() + r.straddled_calls;
    loss[k].unpaired_s += r.duration_s;
    units[k].pop_back();
  }
}

}  // namespace

bool run_sliced_round(Measurer& base, Measurer& head, double slice_ms, std::mt19937_64& rng, SignalWatch* signals,
                      SlicedRound* out) {
  if (base.failed() || head.failed()) return false;
  Measurer* m[2] = {&base, &head};
  const char* variant[2] = {"base", "head"};
  RunSession* s[2] = {nullptr, nullptr};
  SliceLosses loss[2];
  std::vector<RunResult> units[2];
  int current = 0;  // the side whose step is running: an error is its failure
  const double seconds = slice_ms / 1000;
  try {
    for (current = 0; current < 2; ++current) s[current] = &m[current]->session_for_round();
    const int round = head.rounds_started();
    for (current = 0; current < 2; ++current) s[current]->start_sliced(round, variant[current], signals);
    bool done[2] = {false, false};
    int index = head.runs_done() + 1;
    while (!done[0] && !done[1]) {
      const int first = static_cast<int>(rng() & 1);
      for (const int k : {first, 1 - first}) {
        current = k;
        done[k] = s[k]->run_slice(seconds, signals);
        RunResult r = s[k]->end_slice(index);
        loss[k].straddled_calls += r.straddled_calls;
        units[k].push_back(std::move(r));
      }
      ++index;
    }
    // One side is done: the rest of the other has no partner.
    for (current = 0; current < 2; ++current) {
      if (done[current]) continue;
      const RunResult rest = s[current]->run_to_end(index, signals);
      loss[current].unpaired_calls = rest.total_calls() + rest.straddled_calls;
      loss[current].straddled_calls += rest.straddled_calls;
      loss[current].unpaired_s = rest.duration_s;
    }
    drop_short_last_pair(units, loss, seconds);
    if (units[0].empty()) {
      current = 2;
      throw Error::make("--slice-ms " + fmt_ms(slice_ms), "the workloads ended within their first pair of slices",
                        "use a shorter --slice-ms, or a workload that runs for several slices", ExitCode::kUsage);
    }
    for (current = 0; current < 2; ++current) {
      require_some_call(round_total(units[current]), m[current]->result().functions,
                        "round " + std::to_string(round) + " (" + variant[current] + ")", false);
    }
  } catch (const Error& e) {
    m[current < 2 ? current : 1]->fail(e);  // an error of the round itself (2) goes on head
    for (RunSession* session : s)
      if (session) session->stop_sliced();
    return false;
  }
  SlicedRound summary;
  summary.pairs = static_cast<int>(units[0].size());
  summary.base = loss[0];
  summary.head = loss[1];
  for (int k = 0; k < 2; ++k) {
    record_losses(*m[k], slice_ms, loss[k]);
    m[k]->add_units(std::move(units[k]));
  }
  if (const auto& log = head.options().session.log) log(describe(summary, head.rounds_started(), slice_ms));
  if (out) *out = summary;
  return true;
}

SliceNotes slice_notes(const ResultFile& r, double slice_ms, const std::string& side) {
  SliceNotes notes{side, slice_ms, {}, 0};
  const double quarter_ns = slice_ms * 1e6 / 4;
  for (size_t f = 0; f < r.functions.size(); ++f) {
    LatencyHistogram pooled;
    for (const auto& run : r.runs)
      if (f < run.functions.size()) pooled.merge(run.functions[f].histogram);
    if (pooled.count() == 0) continue;
    const double p50 = pooled.quantile(0.5);
    if (p50 > quarter_ns) notes.long_calls.push_back({r.functions[f].name, p50});
  }
  // record_losses wrote it ("%.0f": a whole number)
  if (const auto it = r.extra.find("straddled_calls"); it != r.extra.end())
    notes.straddled_calls = static_cast<uint64_t>(std::atof(it->second.c_str()));
  return notes;
}

}  // namespace gate::runner
