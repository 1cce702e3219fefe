// The sentences of a measurement's own notes, from runner/'s values (see results/run_notes.hpp).
#include "explain/run_notes_text.hpp"

#include "common/format.hpp"

namespace gate::explain {

std::string inlining_status(const UncalledFunction& f) {
  if (f.native)
    return "a native function: gate does not look for inlined copies of C/C++ code (a call the compiler inlined "
           "is not timed)";
  if (f.inlined_at.empty()) return "no inlined copies found";
  std::string sites;
  for (size_t i = 0; i < f.inlined_at.size() && i < 3; ++i) sites += (i ? "; " : "") + f.inlined_at[i];
  if (f.inlined_at.size() > 3) sites += "; ...";
  return "also inlined at " + plural(f.inlined_at.size(), "site") + " (" + sites + "): calls there are not timed";
}

std::string uncalled(const UncalledFunction& f) {
  const std::string runs = f.runs == 1 ? "the 1 run" : "any of the " + std::to_string(f.runs) + " runs";
  return f.name + ": no calls in " + runs + (f.side.empty() ? "" : " of " + f.side) + "; " + inlining_status(f);
}

std::string round_calls(const RoundCalls& r) {
  if (!r.recorded.empty()) return r.recorded;
  return r.round + " timed " + std::to_string(r.calls) + " calls of the declared functions, the unit's other rounds " +
         fmt("%.0f", r.median) + " (median): " + signed_percent(r.change) + ", past calls_change (" +
         signed_percent(r.calls_change).substr(1) +
         "); a load driver that failed part of its requests, or traffic that is not the load's (a health "
         "check, retries), changes what a round measures; make every round send the same requests (a "
         "bounded count, not a duration)";
}

std::string round_calls_warning(const RoundCalls& r) {
  return "calls per round" + (r.side.empty() ? "" : " (" + r.side + ")") + ": " + round_calls(r);
}

std::string throttled(const ThrottledRuns& t) {
  const double share = t.periods ? static_cast<double>(t.throttled_periods) / static_cast<double>(t.periods) : 0;
  return (t.side.empty() ? "" : t.side + ": ") + "the cgroup's CPU quota held the workload back in " +
         std::to_string(t.throttled_runs) + " of " + plural(t.runs, "run") + " (" + fmt("%.0f%%", 100 * share) +
         " of their enforcement periods ran out of quota, up to " + fmt("%.0f%%", 100 * t.max_share) +
         " in one run; " + fmt("%.1f s", t.throttled_s) +
         " held): a CFS quota stalls the whole container until its next period, which stretches wall time by "
         "whatever the quota allows, so a slowdown there may be the quota's; give the job more CPU than it "
         "uses, or no CPU limit (docs/ci.md, Containers)";
}

std::string root_workload(const RootWorkload& r) {
  return (r.side.empty() ? "" : r.side + ": ") + "the workload, its build and its load driver ran as root (" + r.who +
         "): the code under test had gate's privileges; set run_as: USER in gate.yaml or --run-as USER (under sudo "
         "gate uses SUDO_UID by default; docs/ci.md, Fork pull requests)";
}

std::vector<std::string> slice_notes(const SliceNotes& s) {
  std::vector<std::string> out;
  for (const auto& f : s.long_calls) {
    char b[160];
    snprintf(b, sizeof b, ": p50 call %.1f ms on %s is longer than a quarter of the %g ms slice", f.p50_ns / 1e6,
             s.side.c_str(), s.slice_ms);
    out.push_back(f.name + b +
                  ": most of its calls straddle a switch and are dropped, which leaves the shorter ones; "
                  "compare it without --slice-ms (whole runs), or with a longer slice");
  }
  if (s.straddled_calls > 0)
    out.push_back(std::to_string(s.straddled_calls) + " calls on " + s.side +
                  " straddled a switch between time slices and were dropped");
  return out;
}

}  // namespace gate::explain
