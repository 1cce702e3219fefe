// Loader of bpf/profile.bpf.c: open -> read-only config -> load -> attach (fork/exit tracking and
// one cpu-clock perf event per CPU) -> read the counts per side -> destroy.
#include "profile/sampler.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "probe/pid_namespace.hpp"
#include "probe/probe_engine.hpp"
#include "profile.skel.h"
#include "profile_shared.h"

namespace gate::profile {
namespace {

Error bpf_error(const std::string& what, int err) {
  const bool perm = err == EPERM || err == EACCES;
  const std::string missing = perm ? probe::missing_bpf_privileges() : "";  // the message gate's probes give
  if (!missing.empty())
    return Error::make("CPU profile (bpf/profile.bpf.c)", what + ": " + std::strerror(err), missing, ExitCode::kMeasure);
  return Error::make("CPU profile (bpf/profile.bpf.c)", what + ": " + std::strerror(err),
                     perm ? "run gate as root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN); check "
                            "kernel.perf_event_paranoid and kernel.unprivileged_bpf_disabled"
                          : "the kernel needs BPF, BTF (/sys/kernel/btf/vmlinux) and perf events "
                            "(CONFIG_PERF_EVENTS); or run without --profile",
                     ExitCode::kMeasure);
}

int open_cpu_clock(int cpu, int hz) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1'000'000'000ull / static_cast<uint64_t>(hz);  // cpu-clock counts ns
  attr.disabled = 1;  // libbpf enables it once the program is attached
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

// The unwind entries into their array map, in batches (one syscall per 64 Ki entries, where the
// kernel has batched updates of arrays: 5.6 and later), else one by one.
void fill_unwind(gate_profile_bpf* s, const std::vector<gate_unwind_entry>& entries) {
  const int fd = bpf_map__fd(s->maps.unwind_entries);
  constexpr size_t kBatch = 65536;
  std::vector<uint32_t> keys;
  for (size_t at = 0; at < entries.size(); at += kBatch) {
    const size_t n = std::min(kBatch, entries.size() - at);
    keys.resize(n);
    for (size_t i = 0; i < n; ++i) keys[i] = static_cast<uint32_t>(at + i);
    uint32_t count = static_cast<uint32_t>(n);
    if (bpf_map_update_batch(fd, keys.data(), &entries[at], &count, nullptr) == 0 && count == n) continue;
    for (size_t i = 0; i < n; ++i)
      if (bpf_map_update_elem(fd, &keys[i], &entries[at + i], BPF_ANY) != 0)
        throw bpf_error("storing the unwind table", errno);
  }
}

}  // namespace

struct Sampler::Impl {
  gate_profile_bpf* skel = nullptr;
  std::vector<bpf_link*> links;
  std::vector<int> perf_fds;
  int hz = kDefaultHz;
  // Drained samples per side, merged by everything a RawStack holds but its count.
  using StackKey = std::tuple<std::vector<uint64_t>, std::vector<uint64_t>, uint32_t, bool, uint64_t>;
  struct Drained {
    std::map<StackKey, uint64_t> stacks;
    uint64_t samples = 0, no_user_stack = 0, map_full = 0;
  };
  std::map<uint32_t, Drained> drained;

  ~Impl() {
    for (auto* l : links) bpf_link__destroy(l);
    for (int fd : perf_fds) close(fd);
    gate_profile_bpf__destroy(skel);
  }
  void attach(bpf_program* prog, const char* what) {
    bpf_link* l = bpf_program__attach(prog);
    if (!l) throw bpf_error(std::string("attaching ") + what, errno);
    links.push_back(l);
  }
};

Sampler::Sampler(const SamplerOptions& o) : impl_(std::make_unique<Impl>()) {
  if (o.hz <= 0 || o.hz > 10000)
    throw Error::make("--profile=" + std::to_string(o.hz), "is not a sampling rate gate takes",
                      "give a rate in Hz per CPU between 1 and 10000 (default " + std::to_string(kDefaultHz) + ")");
  impl_->hz = o.hz;
  impl_->skel = gate_profile_bpf__open();
  if (!impl_->skel) throw bpf_error("opening the BPF object", errno);
  auto* s = impl_->skel;
  bpf_map__set_max_entries(s->maps.stacks, o.max_stacks);
  const probe::PidNamespace ns = probe::require_usable_pid_namespace("CPU profile (bpf/profile.bpf.c)", false);
  s->rodata->pidns_dev = ns.dev;  // track() is given PIDs of gate's namespace
  s->rodata->pidns_ino = ns.ino;
  bpf_map__set_max_entries(s->maps.counts, o.max_keys);
  // The unwind tables, one after another (a table shared by sides once), and each side's place.
  std::vector<gate_unwind_entry> entries;
  std::map<const UnwindTable*, gate_unwind_binary> placed;
  for (const auto& [side, table] : o.unwind) {
    if (!table || placed.count(table.get())) continue;
    gate_unwind_binary b{table->text_lo, table->text_hi, static_cast<uint32_t>(entries.size()),
                         static_cast<uint32_t>(table->entries.size())};
    for (const auto& [pc, delta] : table->entries) entries.push_back({pc, delta});
    placed.emplace(table.get(), b);
  }
  bpf_map__set_max_entries(s->maps.unwind_entries, static_cast<uint32_t>(std::max<size_t>(1, entries.size())));
  bpf_map__set_max_entries(s->maps.unwind_binaries, static_cast<uint32_t>(std::max<size_t>(1, o.unwind.size())));
  if (int err = gate_profile_bpf__load(s)) throw bpf_error("loading the BPF program", -err);
  fill_unwind(s, entries);
  for (const auto& [side, table] : o.unwind) {
    if (!table) continue;
    const uint32_t key = side;
    if (bpf_map__update_elem(s->maps.unwind_binaries, &key, sizeof key, &placed.at(table.get()),
                             sizeof(gate_unwind_binary), BPF_ANY) != 0)
      throw bpf_error("storing side " + std::to_string(side) + "'s unwind table", errno);
  }
  impl_->attach(s->progs.gate_profile_fork, "the fork tracepoint");
  impl_->attach(s->progs.gate_profile_exit, "the exit tracepoint");
  impl_->attach(s->progs.gate_profile_exec, "the exec tracepoint");
  const int cpus = libbpf_num_possible_cpus();
  for (int cpu = 0; cpu < cpus; ++cpu) {
    const int fd = open_cpu_clock(cpu, o.hz);
    if (fd < 0) {
      if (errno == ENODEV || errno == ENOENT) continue;  // a possible CPU that is offline
      throw bpf_error("opening a cpu-clock perf event on CPU " + std::to_string(cpu), errno);
    }
    impl_->perf_fds.push_back(fd);
    bpf_link* l = bpf_program__attach_perf_event(s->progs.gate_profile_sample, fd);
    if (!l) throw bpf_error("attaching to the cpu-clock event of CPU " + std::to_string(cpu), errno);
    impl_->links.push_back(l);
  }
  if (impl_->perf_fds.empty()) throw bpf_error("opening cpu-clock perf events (no CPU online)", ENODEV);
}

Sampler::~Sampler() = default;

int Sampler::hz() const { return impl_->hz; }

void Sampler::pause(bool paused) {
  for (int fd : impl_->perf_fds)
    if (ioctl(fd, paused ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0) != 0)
      throw bpf_error(std::string(paused ? "pausing" : "restarting") + " a cpu-clock perf event", errno);
}

void Sampler::track(pid_t pid, uint32_t side) {
  const uint32_t key = static_cast<uint32_t>(pid);
  // pid is gate's namespace's: pending until its exec names its initial-namespace tgid.
  if (bpf_map__update_elem(impl_->skel->maps.pending, &key, sizeof key, &side, sizeof side, BPF_ANY) != 0)
    throw Error::make("process " + std::to_string(pid), std::string("cannot be profiled: ") + std::strerror(errno),
                      "", ExitCode::kMeasure);
}

void Sampler::drain() {
  auto* s = impl_->skel;
  const int stacks_fd = bpf_map__fd(s->maps.stacks), counts_fd = bpf_map__fd(s->maps.counts);
  std::set<uint64_t> ids;
  auto read_stack = [&](uint64_t id) {
    std::vector<uint64_t> pcs;
    if (id == 0) return pcs;
    ids.insert(id);
    gate_profile_stack buf{};
    if (bpf_map_lookup_elem(stacks_fd, &id, &buf) != 0) return pcs;
    for (uint64_t pc : buf.pcs) {
      if (pc == 0) break;
      pcs.push_back(pc);
    }
    return pcs;
  };
  std::vector<gate_profile_key> keys;
  gate_profile_key key{}, next{};
  void* prev = nullptr;
  while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
    key = next;
    prev = &key;
    keys.push_back(key);
  }
  for (const auto& k : keys) {
    uint64_t count = 0;
    // Read and delete one key at a time: a sample counted in between is lost, not doubled.
    if (bpf_map_lookup_elem(counts_fd, &k, &count) != 0) continue;
    bpf_map_delete_elem(counts_fd, &k);
    auto& d = impl_->drained[k.side];
    d.samples += count;
    std::vector<uint64_t> user = read_stack(k.user_stack);
    if (user.empty()) {  // no user stack: the walk failed, or the stacks map was full
      d.no_user_stack += count;
      if (k.user_error == -E2BIG) d.map_full += count;
      continue;
    }
    d.stacks[{std::move(user), read_stack(k.kernel_stack), k.flags & (GATE_PROFILE_UNWIND_TABLE | GATE_PROFILE_FP_DIFFERED),
              (k.flags & GATE_PROFILE_IN_PROBE) != 0, k.probe_addr}] += count;
  }
  for (uint64_t id : ids) bpf_map_delete_elem(stacks_fd, &id);
}

RawProfile Sampler::collect(uint32_t side) {
  drain();
  auto* s = impl_->skel;
  RawProfile out;
  out.hz = impl_->hz;
  auto& d = impl_->drained[side];
  out.samples = d.samples;
  out.no_user_stack = d.no_user_stack;
  out.stack_map_full = d.map_full;
  for (auto& [k, count] : d.stacks) {
    RawStack st;
    uint32_t unwind = 0;
    std::tie(st.user, st.kernel, unwind, st.in_probe, st.probe_addr) = k;
    st.by_table = (unwind & GATE_PROFILE_UNWIND_TABLE) != 0;
    st.fp_differed = (unwind & GATE_PROFILE_FP_DIFFERED) != 0;
    st.count = count;
    out.stacks.push_back(std::move(st));
  }
  impl_->drained.erase(side);
  // Keys the kernel could not store (map full) are per CPU and not per side: charged to each collect.
  const uint32_t which = GATE_PROFILE_KEY_DROPPED;
  std::vector<uint64_t> per_cpu(static_cast<size_t>(libbpf_num_possible_cpus()));
  if (bpf_map_lookup_elem(bpf_map__fd(s->maps.counters), &which, per_cpu.data()) == 0)
    for (uint64_t v : per_cpu) out.dropped += v;
  return out;
}

}  // namespace gate::profile
