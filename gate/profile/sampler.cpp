// Loader of bpf/profile.bpf.c: open -> read-only config -> load -> attach (fork/exit tracking and
// one cpu-clock perf event per CPU) -> read the counts per side -> destroy.
#include "profile/sampler.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "profile.skel.h"
#include "profile_shared.h"

namespace gate::profile {
namespace {

Error bpf_error(const std::string& what, int err) {
  const bool perm = err == EPERM || err == EACCES;
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

}  // namespace

struct Sampler::Impl {
  gate_profile_bpf* skel = nullptr;
  std::vector<bpf_link*> links;
  std::vector<int> perf_fds;
  int hz = kDefaultHz;

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
  s->rodata->text_lo = o.text_lo;
  s->rodata->text_hi = o.text_hi;
  bpf_map__set_max_entries(s->maps.stacks, o.max_stacks);
  bpf_map__set_max_entries(s->maps.counts, o.max_keys);
  if (int err = gate_profile_bpf__load(s)) throw bpf_error("loading the BPF program", -err);
  impl_->attach(s->progs.gate_profile_fork, "the fork tracepoint");
  impl_->attach(s->progs.gate_profile_exit, "the exit tracepoint");
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

void Sampler::track(pid_t pid, uint32_t side) {
  const uint32_t key = static_cast<uint32_t>(pid);
  if (bpf_map__update_elem(impl_->skel->maps.tracked, &key, sizeof key, &side, sizeof side, BPF_ANY) != 0)
    throw Error::make("process " + std::to_string(pid), std::string("cannot be profiled: ") + std::strerror(errno),
                      "", ExitCode::kMeasure);
}

RawProfile Sampler::collect(uint32_t side) {
  auto* s = impl_->skel;
  RawProfile out;
  out.hz = impl_->hz;
  const int stacks_fd = bpf_map__fd(s->maps.stacks), counts_fd = bpf_map__fd(s->maps.counts);
  auto read_stack = [&](int32_t id) {
    std::vector<uint64_t> pcs;
    if (id < 0) return pcs;
    uint64_t buf[GATE_PROFILE_MAX_DEPTH] = {};
    if (bpf_map_lookup_elem(stacks_fd, &id, buf) != 0) return pcs;
    for (uint64_t pc : buf) {
      if (pc == 0) break;
      pcs.push_back(pc);
    }
    return pcs;
  };
  std::vector<gate_profile_key> mine;
  gate_profile_key key{}, next{};
  void* prev = nullptr;
  while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
    key = next;
    prev = &key;
    uint64_t count = 0;
    if (key.side != side || bpf_map_lookup_elem(counts_fd, &key, &count) != 0) continue;
    mine.push_back(key);
    out.samples += count;
    if (key.user_stack < 0) {
      out.no_user_stack += count;
      continue;
    }
    RawStack st;
    st.user = read_stack(key.user_stack);
    st.kernel = read_stack(key.kernel_stack);
    st.sp_word0 = key.sp_word0, st.sp_word1 = key.sp_word1;
    st.in_probe = key.flags & GATE_PROFILE_IN_PROBE;
    st.probe_addr = key.probe_addr;
    st.count = count;
    out.stacks.push_back(std::move(st));
  }
  for (const auto& k : mine) bpf_map_delete_elem(counts_fd, &k);
  // Keys the kernel could not store (map full) are per CPU and not per side: charged to each collect.
  const uint32_t which = GATE_PROFILE_KEY_DROPPED;
  std::vector<uint64_t> per_cpu(static_cast<size_t>(libbpf_num_possible_cpus()));
  if (bpf_map_lookup_elem(bpf_map__fd(s->maps.counters), &which, per_cpu.data()) == 0)
    for (uint64_t v : per_cpu) out.dropped += v;
  return out;
}

}  // namespace gate::profile
