// ProfileRecorder: one sampler for every side, symbolised per side at the end.
#include "profile/recorder.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "analysis/pc_lines.hpp"
#include "common/error.hpp"
#include "elf/elf_file.hpp"
#include "profile/symbolize.hpp"
#include "profile/unwind.hpp"

namespace gate::profile {
namespace {

// Warm-ups are sampled as a side of their own, whose samples are dropped.
constexpr uint32_t kWarmupSide = 0xffff;

}  // namespace

struct ProfileRecorder::Impl {
  // A side's sampler id: its place among the profiled sides ("" for `gate run`, "base", "head", or
  // "base@1" for a layout variant); a label starting "warmup" (a warm-up run of any side): dropped.
  uint32_t side_of(const std::string& label) const {
    if (label.rfind("warmup", 0) == 0) return kWarmupSide;
    uint32_t i = 0;
    for (const auto& [name, side] : sides) {
      if (name == label) return i;
      ++i;
    }
    throw Error("CPU profile: no side \"" + label + "\" was profiled");
  }
  struct Side {
    std::string binary, build_id;
    std::unique_ptr<analysis::PcLines> lines;
    std::optional<Profile> profile;
    RawProfile collected;  // executions collected one by one (collect_execution), for the side's profile
  };
  static const KernelSymbols& ksyms() {
    static const KernelSymbols k = read_kallsyms();
    return k;
  }
  std::map<std::string, Side> sides;
  std::unique_ptr<Sampler> sampler;
  int64_t started_ns = 0;
  std::chrono::steady_clock::time_point started;
};

ProfileRecorder::ProfileRecorder(int hz, const std::map<std::string, std::string>& binaries)
    : impl_(std::make_unique<Impl>()) {
  SamplerOptions o;
  o.hz = hz;
  std::map<std::string, std::shared_ptr<const UnwindTable>> tables;  // one per binary, shared by its sides
  for (const auto& [variant, binary] : binaries) {
    const auto elf = elf::ElfFile::open(binary);
    if (elf.is_pie())
      throw Error::make(binary, "is position-independent (-buildmode=pie): gate's CPU profiles read non-PIE "
                                "addresses only so far",
                        "build the profiled binary without -buildmode=pie, or run without --profile");
    auto& s = impl_->sides[variant];
    s.binary = binary;
    s.build_id = elf.go_build_id();
    s.lines = std::make_unique<analysis::PcLines>(analysis::PcLines::load(elf));
    auto& table = tables[binary];
    if (!table) table = std::make_shared<const UnwindTable>(unwind_table(*s.lines));
  }
  // Side ids are places in the sorted map of sides: known once every side is in.
  for (const auto& [variant, side] : impl_->sides) o.unwind[impl_->side_of(variant)] = tables.at(side.binary);
  impl_->sampler = std::make_unique<Sampler>(o);
  impl_->started = std::chrono::steady_clock::now();
  impl_->started_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
}

ProfileRecorder::~ProfileRecorder() = default;

int ProfileRecorder::hz() const { return impl_->sampler->hz(); }

void ProfileRecorder::pause(bool paused) { impl_->sampler->pause(paused); }

std::function<void(pid_t, const std::string&)> ProfileRecorder::tracker() {
  // A new process of a run is about to start, the previous run's are gone: the moment to empty the
  // kernel's stack map, so that it holds one run's stacks, never a session's (see Sampler::drain).
  return [this](pid_t pid, const std::string& variant) {
    impl_->sampler->drain();
    impl_->sampler->track(pid, impl_->side_of(variant));
  };
}

namespace {

// One execution's raw stacks added to what a side collected before. The kernel's dropped counter
// is cumulative (Sampler::collect reads it each time): the latest reading stands.
void add_raw(RawProfile& into, RawProfile&& more) {
  into.hz = more.hz;
  into.samples += more.samples;
  into.no_user_stack += more.no_user_stack;
  into.stack_map_full += more.stack_map_full;
  into.dropped = std::max(into.dropped, more.dropped);
  for (auto& s : more.stacks) into.stacks.push_back(std::move(s));
}

}  // namespace

ExecutionSamples ProfileRecorder::collect_execution(const std::string& variant, const std::vector<std::string>& names) {
  RawProfile raw = impl_->sampler->collect(impl_->side_of(variant));
  ExecutionSamples out;
  out.functions.resize(names.size());
  if (impl_->side_of(variant) == kWarmupSide) return out;
  auto it = impl_->sides.find(variant);
  if (it == impl_->sides.end()) throw Error("CPU profile: no side \"" + variant + "\" was profiled");
  const Profile p = symbolize(raw, *it->second.lines, Impl::ksyms());
  out.samples = raw.samples;
  out.no_stack = raw.no_user_stack;
  out.not_to_root = p.not_to_root;
  out.no_caller = p.no_caller;
  out.fp_differed = p.fp_differed;
  add_raw(it->second.collected, std::move(raw));
  out.functions = samples_by_function(p, names);
  return out;
}

uint64_t ProfileRecorder::period_ns() const {
  const int hz = impl_->sampler->hz();
  return hz > 0 ? 1'000'000'000ull / static_cast<uint64_t>(hz) : 0;
}

const Profile& ProfileRecorder::finish(const std::string& variant) {
  auto it = impl_->sides.find(variant);
  if (it == impl_->sides.end()) throw Error("CPU profile: no side \"" + variant + "\" was profiled");
  if (!it->second.profile) {
    RawProfile raw = std::move(it->second.collected);
    add_raw(raw, impl_->sampler->collect(impl_->side_of(variant)));
    it->second.profile = symbolize(raw, *it->second.lines, Impl::ksyms());
  }
  return *it->second.profile;
}

std::string ProfileRecorder::write(const std::string& variant, const std::string& path) {
  const Profile& p = finish(variant);
  const auto& side = impl_->sides.at(variant);
  PprofMeta meta{side.binary, side.build_id, impl_->started_ns,
                 std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - impl_->started).count()};
  write_pprof(path, p, meta);
  return describe(p);
}

std::string describe(const Profile& p) {
  char b[200];
  const double probe = p.total ? 100.0 * static_cast<double>(p.in_gate_probe) / static_cast<double>(p.total) : 0;
  std::snprintf(b, sizeof b, "%llu samples at %d Hz; %.1f%% in [gate probe]; %llu lost",
                static_cast<unsigned long long>(p.total), p.hz, probe, static_cast<unsigned long long>(p.lost));
  std::string s = b;
  if (p.lost_map_full > 0) s += " (" + std::to_string(p.lost_map_full) + ": the stacks map was full)";
  if (p.not_to_root > 0) s += "; " + std::to_string(p.not_to_root) + " not walked to their root";
  return s;
}

}  // namespace gate::profile
