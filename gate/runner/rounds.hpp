// Rounds of a service (issue 42): a measured unit of a service is one start of the service,
// service.warmup_rounds load rounds driven and not measured, then service.rounds load rounds, each
// measured on its own (the probe statistics are read and dropped at every round boundary, so that
// start-up, warm-up, the idle time between rounds and the shut-down are in no figure) and merged
// into the unit as the executions of a command's unit are. RunSession::run_round and end_rounds
// are defined in rounds.cpp; what is here is pure (no root): which way gate ab alternates the
// sides, and the check of calls per round.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "results/result.hpp"
#include "results/run_notes.hpp"
#include "runner/config.hpp"
#include "runner/session.hpp"

namespace gate::runner {

// gate ab's alternation for a service config: "rounds" (both sides' services up at once, each on
// its own {port}, the sides alternating round by round in a seeded order) or "units" (one side's
// whole unit, then the other's). service.alternate, where "auto" is rounds when ready_tcp uses
// {port} (two services cannot share a fixed address), else units.
std::string service_alternation(const ServiceSpec& sv);

// One line for gate ab's log: "service units: one start, 1 warm-up round, 3 measured rounds; the
// sides alternating round by round (both services up, each on its own port)".
std::string describe_service_units(const ServiceSpec& sv, bool ab);

// "unit 2, round 3 of 5 (base)", "unit 2, warm-up round 1 of 1 (base)": how errors and notes name a round.
std::string round_label(int unit, int round, int rounds, const std::string& variant, bool warmup = false);

// The check of calls per round: the rounds of one unit, each against the median of the unit's
// other rounds, by the total of calls of the declared functions. A round past `calls_change`
// (the config's, 0.5 = 50%) gives one note naming the round with both counts (explain::round_calls
// words it, with the likely causes). Empty with fewer than 2 rounds.
std::vector<RoundCalls> round_call_notes(const std::vector<RunResult>& rounds, double calls_change, int unit,
                                         const std::string& variant);

// Where a Measurer keeps those notes in its result (ResultFile::extra, one per line), and the notes
// read back for a side's report (explain::round_calls_warning: "calls per round (base): ...").
inline constexpr const char* kRoundCallsKey = "round_calls";
void add_round_call_notes(ResultFile& r, const std::vector<RoundCalls>& notes);
std::vector<RoundCalls> recorded_round_calls(const ResultFile& r, const std::string& side);

// gate calibrate on a service config: the rounds a unit has now, one round's duration, and what
// to change ("rounds: 5 would make a unit of ~1.2 s" ...), from a side measured with them.
std::string round_advice(const ResultFile& measured, const ServiceSpec& sv, double min_unit_seconds);

// Shared with session.cpp (defined there): a failed process, its stderr's tail quoted; a signal.
Error run_failure(const std::string& what, const std::string& label, const std::string& cause,
                  const std::string& stderr_path, const std::string& fix);
Error interrupted(int sig, const std::string& label);
// The service form with {port} filled with a free port and {url} with http://<ready_tcp>.
ServiceSpec with_free_port(const ServiceSpec& sv);
// Shared by session.cpp and rounds.cpp (defined once, in session.cpp): the monotonic clock BPF reads
// (bpf_ktime_get_ns) and a stop_signal name as its number. The steady clock in seconds: common/clock.hpp.
uint64_t monotonic_ns();
int signal_number(const std::string& name);

// A unit's service between its rounds.
struct RunSession::LiveService {
  std::unique_ptr<Child> service;
  ServiceSpec sv;  // {port} and {url} filled
  RunFiles files;  // the service's output files; label "unit 2 (base)"
  int unit = 0;
};

}  // namespace gate::runner
