// Rounds of a service: one start per unit, warm-up rounds, measured rounds (runner/rounds.hpp).
#include "runner/rounds.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "common/clock.hpp"
#include "common/numbers.hpp"
#include "runner/unit_size.hpp"

namespace gate::runner {

std::string service_alternation(const ServiceSpec& sv) {
  if (sv.alternate == "rounds" || sv.alternate == "units") return sv.alternate;
  return sv.ready_tcp.find(kPortPlaceholder) != std::string::npos ? "rounds" : "units";
}

std::string describe_service_units(const ServiceSpec& sv, bool ab) {
  std::string out = "service units: one start, " + std::to_string(sv.warmup_rounds) + " warm-up round" +
                    (sv.warmup_rounds == 1 ? "" : "s") + ", " + std::to_string(sv.rounds) + " measured round" +
                    (sv.rounds == 1 ? "" : "s");
  if (!ab) return out;
  return out + (service_alternation(sv) == "rounds"
                    ? "; the sides alternating round by round (both services up, each on its own port)"
                    : "; the sides alternating unit by unit (one service up at a time)");
}

std::string round_label(int unit, int round, int rounds, const std::string& variant, bool warmup) {
  return "unit " + std::to_string(unit) + ", " + (warmup ? "warm-up round " : "round ") + std::to_string(round) +
         " of " + std::to_string(rounds) + (variant.empty() ? "" : " (" + variant + ")");
}

std::vector<RoundCalls> round_call_notes(const std::vector<RunResult>& rounds, double calls_change, int unit,
                                         const std::string& variant) {
  std::vector<RoundCalls> out;
  if (rounds.size() < 2) return out;
  std::vector<uint64_t> calls;
  for (const auto& r : rounds) calls.push_back(r.total_calls());
  for (size_t i = 0; i < calls.size(); ++i) {
    std::vector<double> others;
    for (size_t j = 0; j < calls.size(); ++j)
      if (j != i) others.push_back(static_cast<double>(calls[j]));
    const double median = gate::median(others);
    if (!(median > 0)) continue;
    const double change = static_cast<double>(calls[i]) / median - 1;
    if (std::fabs(change) <= calls_change + 1e-12) continue;
    RoundCalls note;
    note.round = round_label(unit, static_cast<int>(i) + 1, static_cast<int>(rounds.size()), variant);
    note.calls = calls[i];
    note.median = median;
    note.change = change;
    note.calls_change = calls_change;
    out.push_back(std::move(note));
  }
  return out;
}

// One note a line of ResultFile::extra: the values first (%.17g reads back the same double), the
// round's label last (it holds spaces). A file written before the values holds the sentence.
void add_round_call_notes(ResultFile& r, const std::vector<RoundCalls>& notes) {
  std::string& all = r.extra[kRoundCallsKey];
  for (const auto& n : notes) {
    char b[160];
    snprintf(b, sizeof b, "calls=%llu median=%.17g change=%.17g calls_change=%.17g round=",
             static_cast<unsigned long long>(n.calls), n.median, n.change, n.calls_change);
    all += (all.empty() ? "" : "\n") + std::string(b) + n.round;
  }
  if (all.empty()) r.extra.erase(kRoundCallsKey);
}

std::vector<RoundCalls> recorded_round_calls(const ResultFile& r, const std::string& side) {
  std::vector<RoundCalls> out;
  const auto it = r.extra.find(kRoundCallsKey);
  if (it == r.extra.end()) return out;
  std::istringstream in(it->second);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    RoundCalls n;
    n.side = side;
    unsigned long long calls = 0;
    int label = -1;
    if (sscanf(line.c_str(), "calls=%llu median=%lf change=%lf calls_change=%lf round=%n", &calls, &n.median,
               &n.change, &n.calls_change, &label) == 4 &&
        label > 0) {
      n.calls = calls;
      n.round = line.substr(static_cast<size_t>(label));
    } else {
      n.recorded = line;
    }
    out.push_back(std::move(n));
  }
  return out;
}

std::string round_advice(const ResultFile& measured, const ServiceSpec& sv, double min_unit_seconds) {
  const auto per_round = seconds_per_execution(measured);
  if (!per_round) return "no round measured";
  const double one = *per_round;
  const int k = baseline_executions_per_unit(measured);
  const double target = min_unit_seconds > 0 ? min_unit_seconds : kDefaultMinUnitSeconds;
  const int want = std::max(executions_per_unit(target, one, 1000), kDefaultServiceRounds);
  char b[400];
  snprintf(b, sizeof b,
           "service: %d measured round%s per start after %d warm-up round%s (one round: %.2f s, a unit: %.2f s of "
           "load)",
           k, k == 1 ? "" : "s", sv.warmup_rounds, sv.warmup_rounds == 1 ? "" : "s", one, one * k);
  std::string out = b;
  if (k < want) {
    snprintf(b, sizeof b,
             "; rounds: %d would make a unit of at least %.1f s (the unit length that averages the machine's speed "
             "swings), with one start a unit",
             want, target);
    out += b;
  } else if (sv.warmup_rounds == 0) {
    out += "; warmup_rounds: 0 measures the first round after each start (cold caches, pools, GC pacing)";
  } else {
    out += "; enough rounds for a unit of the target length: more units (runs) decide faster than longer ones";
  }
  return out;
}

// The unit's service is started (and warmed up) by its first round, and stays up until end_rounds.
RunResult RunSession::run_round(int unit, int round, int rounds, const std::string& variant, SignalWatch* signals) {
  const ServiceSpec& spec = *cfg_.service;
  if (!live_ || live_->unit != unit || !live_->service) {
    end_rounds();
    engine_->untrack_all();
    engine_->collect_and_reset();  // nothing from before this unit counts
    engine_->set_slice_start(0);
    auto live = std::make_unique<LiveService>();
    live->unit = unit;
    live->sv = with_free_port(spec);
    live->files = {unit, variant, output_path(unit, variant, "stdout"), output_path(unit, variant, "stderr"),
                   "unit " + std::to_string(unit) + (variant.empty() ? "" : " (" + variant + ")")};
    last_stdout_ = live->files.out;
    live->service = start_service(live->files, live->sv, signals);  // stops it itself on a failure
    live_ = std::move(live);
    for (int w = 1; w <= spec.warmup_rounds; ++w) {
      RunFiles wf = live_->files;
      wf.label = round_label(unit, w, spec.warmup_rounds, variant, true);
      try {
        run_load(wf, live_->sv, *live_->service, signals, true);
      } catch (...) {
        live_.reset();  // run_load stopped the service
        throw;
      }
    }
  }
  LiveService& live = *live_;
  RunFiles rf = live.files;
  rf.label = round_label(unit, round, rounds, variant);
  if (!live.service->running()) {
    const int status = live.service->status();
    const std::string what = "service '" + live.sv.command + "' (pid " + std::to_string(live.service->pid()) + ")";
    live_.reset();
    throw run_failure(what, rf.label,
                      "exited (status " + std::to_string(status) + ") between two load rounds", rf.err,
                      "the service must keep serving until gate stops it; run it by hand with the load, several times "
                      "in a row, to see why");
  }
  // What came before this round (start-up, warm-up rounds, the idle time since the last round) is
  // dropped; a call entered before the round and returning inside it is dropped too (straddled).
  engine_->collect_slice();
  if (opts_.on_measure_start) opts_.on_measure_start(variant);
  engine_->set_slice_start(monotonic_ns());
  engine_->set_run_start(monotonic_ns());
  const double t0 = now_s();
  const std::string started_at = iso_now();
  try {
    run_load(rf, live.sv, *live.service, signals, true);
  } catch (...) {
    live_.reset();
    throw;
  }
  RunResult r = collect(unit, variant, t0, started_at, false);
  return r;
}

void RunSession::end_rounds() {
  if (!live_) return;
  std::unique_ptr<LiveService> live = std::move(live_);
  if (live->service && live->service->running())
    live->service->stop(signal_number(live->sv.stop_signal), live->sv.stop_timeout_s);
  engine_->set_slice_start(0);
  engine_->collect_and_reset();  // its shut-down is in no round
  engine_->untrack_all();
}

}  // namespace gate::runner
