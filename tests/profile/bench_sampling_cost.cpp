// What sampling costs the profiled program (root): tests/profile/target does a fixed amount of
// work (-rounds) alone and under the sampler at each rate, in interleaved pairs (the machine's
// speed drifts; a pair sees the same drift), and the median per-pair ratios of wall time and CPU
// time (getrusage of the children) are printed with the samples taken. Run by hand:
//   build/tests/profile/bench_sampling_cost [pairs=8] [rounds=6000] [hz...=199 997]
// docs/profile.md records its output.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "analysis/pc_lines.hpp"
#include "elf/elf_file.hpp"
#include "profile/profile_test_support.hpp"
#include "profile/sampler.hpp"
#include "profile/unwind.hpp"
#include "runner/process.hpp"

using namespace gate;

namespace {

struct Cost {
  double wall_s = 0, cpu_s = 0;
  uint64_t samples = 0;
};

double children_cpu() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

Cost run(const std::string& bin, long rounds, int hz, const analysis::PcLines& lines) {
  std::unique_ptr<profile::Sampler> sampler;
  if (hz > 0) {
    profile::SamplerOptions o;
    o.hz = hz;
    o.unwind[0] = std::make_shared<const profile::UnwindTable>(profile::unwind_table(lines));
    sampler = std::make_unique<profile::Sampler>(o);
  }
  runner::SpawnOptions so;
  so.command = bin + " -mode shares -rounds " + std::to_string(rounds);
  so.env["GOMAXPROCS"] = "2";
  const double cpu0 = children_cpu();
  const auto t0 = std::chrono::steady_clock::now();
  auto child = runner::Child::spawn(so, [&](pid_t pid) {
    if (sampler) sampler->track(pid, 0);
  });
  child.wait(0, nullptr);
  Cost c;
  c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.cpu_s = children_cpu() - cpu0;
  if (sampler) c.samples = sampler->collect(0).samples;
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 8;
  const long rounds = argc > 2 ? std::atol(argv[2]) : 6000;
  std::vector<int> rates;
  for (int i = 3; i < argc; ++i) rates.push_back(std::atoi(argv[i]));
  if (rates.empty()) rates = {199, 997};
  const std::string bin = testing::build_profiletarget(testing::default_go());
  const auto lines = analysis::PcLines::load(elf::ElfFile::open(bin));
  std::printf("target %s, %ld rounds, GOMAXPROCS=2, %d interleaved pairs per rate\n", bin.c_str(), rounds, pairs);
  for (int hz : rates) {
    std::vector<double> wall, cpu, per_sample_us;
    uint64_t samples = 0;
    for (int i = 0; i < pairs; ++i) {
      Cost off, on;
      if (i % 2) {
        on = run(bin, rounds, hz, lines);
        off = run(bin, rounds, 0, lines);
      } else {
        off = run(bin, rounds, 0, lines);
        on = run(bin, rounds, hz, lines);
      }
      wall.push_back(on.wall_s / off.wall_s);
      cpu.push_back(on.cpu_s / off.cpu_s);
      per_sample_us.push_back(on.samples ? (on.cpu_s - off.cpu_s) / static_cast<double>(on.samples) * 1e6 : 0);
      samples += on.samples;
      std::printf("  %4d Hz pair %d: off %.3f s wall %.3f s CPU, on %.3f s wall %.3f s CPU, %lu samples\n", hz, i,
                  off.wall_s, off.cpu_s, on.wall_s, on.cpu_s, static_cast<unsigned long>(on.samples));
    }
    std::printf("%4d Hz: median wall ratio %.4f, CPU ratio %.4f, %.2f us CPU per sample (median), %lu samples\n", hz,
                median(wall), median(cpu), median(per_sample_us), static_cast<unsigned long>(samples));
  }
  return 0;
}
