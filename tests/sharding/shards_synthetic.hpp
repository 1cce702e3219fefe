// Synthetic shards of one gate ab (Partial) for the merge's tests: 8 functions "main.f00"..,
// runners of given speed and noise, a head whose main.f03 may be slowed. Header-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synthetic.hpp"
#include "sharding/shards.hpp"

namespace gate::sharding::testing {

struct SyntheticShard {
  int index = 1;
  int shards = 3;
  int pairs = 6;
  double speed = 1.0;       // the runner this many times slower
  double head_scale = 1.0;  // the head's main.f03 this many times slower
  double sigma = 0.03;      // each run's log-sd
  bool shared = true;       // one factor per run for all its functions (speed normalisation takes it out),
                            // else one per function and run (noise no normalisation removes: a noisy runner)
  uint64_t salt = 0;        // another draw of the same runner
  std::string config_hash = "fnv1a64:00000000000000aa";
};

inline std::vector<gate::testing::SyntheticFunction> shard_functions(double runner_speed, double slowed_scale = 1.0) {
  auto fs = gate::testing::synthetic_functions(8);
  for (auto& f : fs) f.scale = runner_speed;
  fs[3].scale *= slowed_scale;  // "main.f03": the function a head may slow
  return fs;
}

// Both sides of a pair meet the same machine state (machine_seed), as gate ab's back-to-back runs do.
inline Partial synthetic_partial(const SyntheticShard& s) {
  Partial p;
  p.shard = {s.index, s.shards};
  p.seed = 1;
  p.shard_seed = shard_seed(1, p.shard);
  p.runner = "fnv1a64:runner" + std::to_string(s.index);
  p.hostname = "runner-" + std::to_string(s.index);
  p.config_hash = s.config_hash;
  p.base_build_id = "base-id";
  p.head_build_id = "head-id";
  gate::testing::SyntheticNoise noise;
  noise.run_sigma = s.sigma;
  noise.shared_per_run = s.shared;
  noise.slow_fraction = 0.3;  // a CI runner's two speed states
  noise.machine_seed = 100 + s.index + 1000 * s.salt;
  const auto base = shard_functions(s.speed), head = shard_functions(s.speed, s.head_scale);
  p.base = gate::testing::synthetic_meta(base);
  p.head = gate::testing::synthetic_meta(head);
  p.base.context.config_hash = p.head.context.config_hash = p.config_hash;
  p.base.runs = gate::testing::synthetic_runs(base, s.pairs, noise, 10 * s.index + 1 + 1000 * s.salt, "base");
  p.head.runs = gate::testing::synthetic_runs(head, s.pairs, noise, 10 * s.index + 2 + 1000 * s.salt, "head");
  return p;
}

}  // namespace gate::sharding::testing
