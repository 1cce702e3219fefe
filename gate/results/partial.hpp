// A shard's partial result (issue 44): what `gate ab --shard K/N` measured, with what makes shards
// comparable, as the file `gate merge` reads. The format, its JSON and its atomic write live here
// with the result format it embeds; the shard's plan and the merge are sharding/'s.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "results/result.hpp"

namespace gate {

// Shard `index` (1-based) of `count`.
struct ShardSpec {
  int index = 0;
  int count = 0;
};

// What one shard measured. Every pair's values are both sides' runs (base.runs[i] with head.runs[i]),
// in the result format gate writes anyway.
struct Partial {
  ShardSpec shard;
  uint64_t seed = 0;        // the comparison's --seed
  uint64_t shard_seed = 0;  // the order this shard ran
  std::string runner;       // machine fingerprint, as history keeps machines (history::machine_of)
  std::string runner_label; // CPU model / kernel / Go / gate, for the reader
  std::string hostname;
  std::string config_hash;  // fnv1a64_fingerprint of the config bytes (runner::Config::hash)
  std::string base_build_id, head_build_id;
  int base_executions_per_unit = 1, head_executions_per_unit = 1;
  ResultFile base, head;
  // The pairs that count: a pilot pair (RunResult::pilot) is in no test, so in no count (issue 54).
  int pairs() const;
};
std::string partial_to_json_text(const Partial& p);
// Throws gate::Error (exit 2) naming `origin` when the text is not a partial.
Partial partial_from_json_text(const std::string& text, const std::string& origin);
void save_partial(const std::string& path, const Partial& p);  // atomically (write_file_atomically)
// Throws gate::Error (exit 2) naming the path when it cannot be read or is not a partial.
Partial load_partial(const std::string& path);

}  // namespace gate
