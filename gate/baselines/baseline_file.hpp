// Baselines in the working tree: where a config's baseline lives, loading one for a comparison,
// the one check that a result may serve as a baseline, and refusing to overwrite one by accident.
// May include results/ and common/ only.
#pragma once

#include <string>

#include "results/result.hpp"

namespace gate::baselines {

// A config's baseline: its `baseline:` key when set; else baselines/<name>.json in the top-level
// baselines/ folder of the git repository that holds the config (config_dir); else, outside any
// repository, baselines/<name>.json beside the config. Relative to the current directory when it
// lies below it ("baselines/shop.json" from the repository's root), else absolute.
std::string default_path(const std::string& config_name, const std::string& configured,
                         const std::string& config_dir);

// The root of the git repository holding `dir` (a directory with a .git entry, a worktree's file
// included), or "" outside any. Reads the file system only.
std::string repository_root(const std::string& dir);

// Throws gate::Error (exit 2) when `r` cannot be a baseline: a partial result (a failed or
// interrupted run) or one without runs. `where` names it in the message; `record_again` is the fix
// (how to record and store it again).
void require_usable(const ResultFile& r, const std::string& where, const std::string& record_again);

// The baseline at `path` for a comparison. Throws gate::Error (exit 2) with the fix when it is
// missing, corrupt or not usable. `config_path` (may be empty) goes into the suggested record command.
ResultFile load(const std::string& path, const std::string& config_path);

// A baseline and a head that share no function cannot be compared: throws gate::Error (exit 2)
// naming both sides' functions (the baseline was recorded from another binary or config).
void require_common_functions(const ResultFile& base, const ResultFile& head, const std::string& base_path);

// Times with the threads' preemption excluded and wall times differ by the load, not the code:
// throws gate::Error (exit 2) when the baseline was measured one way and the head the other.
void require_same_time_basis(bool base_excluded, bool head_excluded, const std::string& base_path);

// Before recording to `path`: throws gate::Error (exit 2) when a baseline is there and `force` is
// not set, saying when it was recorded. Returns whether one is replaced.
bool check_overwrite(const std::string& path, bool force);

}  // namespace gate::baselines
