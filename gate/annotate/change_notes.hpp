// Why a function's verdict came out as it did, beside the verdict: whether its machine code (and
// its callees') changed between the two binaries, and, when the runs were profiled, where its extra
// CPU time went per call (its profile subtree, base against head) and the pprof files and command
// that show it. Fills Annotations from a comparison's values and the two sides' results; never
// changes a verdict (verdict/ decides, annotate/ says why, explain/ words it).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "profile/profile.hpp"
#include "results/annotations.hpp"
#include "results/result.hpp"
#include "stats/compare.hpp"

namespace gate::profile {
class ProfileRecorder;
}

namespace gate::annotate {

using WhyLog = std::function<void(const std::string&)>;

// The code note of every compared function (normalised machine code, its callees to a bounded
// depth). A binary that cannot be read or decoded is logged as a warning and leaves code unset.
void note_code(Annotations& notes, const stats::Comparison& c, const std::string& base_binary,
               const std::string& head_binary, const WhyLog& log);

struct ProfilePair {
  const profile::Profile* base = nullptr;  // nullptr: that side was not profiled
  const profile::Profile* head = nullptr;
  std::string base_file, head_file;        // the pprof files written (for the command)
};

// The profile note of each regressed or suspect function: its subtree per call (calls from the
// results: gate counts them exactly), the frames whose self time per call changed, tested against
// sampling noise, and the `go tool pprof -diff_base` command. Logs one line per function.
void note_profiles(Annotations& notes, const stats::Comparison& c, const ResultFile& base,
                   const ResultFile& head, const ProfilePair& profiles, const WhyLog& log);

// gate ab --profile, after the two sides' profiles were written to base_file and head_file
// (profile/profile_files.hpp): the profile note of each flagged function, the files in notes;
// when none is flagged, logs the command that compares the files.
void note_ab_profiles(Annotations& notes, const stats::Comparison& c, const ResultFile& base, const ResultFile& head,
                      profile::ProfileRecorder& rec, const std::string& base_file, const std::string& head_file,
                      const WhyLog& log);

// gate check --profile, after the head's profile (side "") was written to head_file: when the
// baseline has a profile beside it, fills the profile notes of flagged functions against it, else
// says how to record one. No code notes: a baseline keeps no binary.
void note_check_profiles(Annotations& notes, const stats::Comparison& c, const ResultFile& base,
                         const ResultFile& head, const std::string& baseline, profile::ProfileRecorder& rec,
                         const std::string& head_file, const WhyLog& log);

// gate calibrate --profile, after the A/A's two profiles were written: per compared function how
// many frames the sampling-noise test flags between two runs of one binary (expected: none at its
// false discovery rate).
void note_aa_profiles(const stats::Comparison& c, const ResultFile& base, const ResultFile& head,
                      profile::ProfileRecorder& rec, const WhyLog& log);

// The function's calls over the result's runs.
uint64_t total_calls(const ResultFile& r, const std::string& function);

// A Go symbol name as a literal in pprof's regular expressions ('.', '(', '*', '[' are special).
std::string regex_quote(const std::string& name);

// "go tool pprof -diff_base B -show_from='^F$' H" (the paths shell-quoted when they need it).
std::string pprof_diff_command(const std::string& base_file, const std::string& head_file,
                               const std::string& function);

}  // namespace gate::annotate
