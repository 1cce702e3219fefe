// ProbeEngine implementation: skeleton life cycle (open -> size maps -> load -> attach -> read ->
// destroy), one uprobe_multi link when the kernel has it, one perf-event link per site otherwise.
#include "probe/probe_engine.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "common/error.hpp"
#include "gate.skel.h"

extern "C" {
#include "gate_shared.h"
}

namespace gate::probe {

namespace {

// Not in Debian 12's 6.1 UAPI headers; values from the kernel's BTF (stable ABI since 6.6).
constexpr uint32_t kBpfTraceUprobeMulti = 48;

// BPF_LINK_CREATE attributes for uprobe_multi, laid out as in the kernel's union bpf_attr.
struct UprobeMultiLinkAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t multi_flags;
  uint32_t pid;
  uint32_t pad;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// libbpf's own messages go to a buffer (library code does not print); errors quote its tail.
std::mutex g_log_mu;
std::string g_libbpf_log;
int libbpf_print(enum libbpf_print_level level, const char* fmt, va_list ap) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[1024];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  std::lock_guard lock(g_log_mu);
  g_libbpf_log.append(buf, n > 0 ? std::min<size_t>(n, sizeof buf - 1) : 0);
  if (g_libbpf_log.size() > 16384) g_libbpf_log.erase(0, g_libbpf_log.size() - 8192);
  return 0;
}
std::string libbpf_log_tail() {
  std::lock_guard lock(g_log_mu);
  std::string t = g_libbpf_log.size() > 1500 ? g_libbpf_log.substr(g_libbpf_log.size() - 1500)
                                             : g_libbpf_log;
  return t;
}

bool has_cap(const __user_cap_data_struct (&d)[2], int cap) {
  return (d[cap / 32].effective & (1u << (cap % 32))) != 0;
}

Error load_error(const std::string& what, int err) {
  std::string missing = missing_bpf_privileges();
  if (err == EPERM || err == EACCES) {
    return Error::make("BPF program", what + ": permission denied (" + std::strerror(err) + ")",
                       missing.empty() ? "run gate as root; check kernel.unprivileged_bpf_disabled and lockdown"
                                       : missing,
                       ExitCode::kMeasure);
  }
  return Error::make("BPF program", what + ": " + std::strerror(err) + "\n" + libbpf_log_tail(),
                     "the kernel needs BPF, BTF (/sys/kernel/btf/vmlinux) and uprobes (CONFIG_UPROBE_EVENTS)",
                     ExitCode::kMeasure);
}

}  // namespace

const char* to_string(AttachMode m) {
  switch (m) {
    case AttachMode::kAuto: return "auto";
    case AttachMode::kMulti: return "uprobe_multi";
    case AttachMode::kPerProbe: return "perf_event";
  }
  return "?";
}

std::string missing_bpf_privileges() {
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &hdr, data) != 0) return "";
  constexpr int kCapSysAdmin = 21, kCapPerfmon = 38, kCapBpf = 39;
  if (has_cap(data, kCapSysAdmin)) return "";
  std::vector<std::string> missing;
  if (!has_cap(data, kCapBpf)) missing.push_back("CAP_BPF");
  if (!has_cap(data, kCapPerfmon)) missing.push_back("CAP_PERFMON");
  if (missing.empty()) return "";
  std::string names;
  for (const auto& m : missing) names += (names.empty() ? "" : " and ") + m;
  return "gate needs " + names +
         " (or CAP_SYS_ADMIN) to load BPF programs and attach uprobes: run it as root (sudo gate ...), "
         "or grant them with `setcap cap_bpf,cap_perfmon,cap_sys_admin+ep $(command -v gate)`";
}

struct ProbeEngine::Impl {
  std::string binary;
  uint32_t nfuncs = 0;
  std::vector<SiteSpec> sites;
  EngineOptions opts;
  gate_bpf* skel = nullptr;
  AttachMode mode = AttachMode::kAuto;
  int multi_link_fd = -1;
  std::vector<bpf_link*> per_probe;
  bpf_link* fork_link = nullptr;
  bpf_link* exit_link = nullptr;
  double attach_s = 0;
  int ncpus = 0;

  void progress(const std::string& s) const {
    if (opts.progress) opts.progress(s);
  }

  // open -> configure -> load. want_multi: also load the uprobe_multi copy of the program.
  int open_and_load(bool want_multi) {
    skel = gate_bpf::open();
    if (!skel) return errno ? errno : EINVAL;
    skel->rodata->g_stack_hi_offset = opts.g_stack_hi_offset;
    bpf_map__set_max_entries(skel->maps.func_stats, std::max<uint32_t>(nfuncs, 1));
    bpf_map__set_max_entries(skel->maps.frames, std::max<uint32_t>(opts.max_in_flight, 1024));
    if (want_multi) {
      bpf_program__set_expected_attach_type(skel->progs.gate_site_multi,
                                            static_cast<bpf_attach_type>(kBpfTraceUprobeMulti));
      bpf_program__set_autoload(skel->progs.gate_site_single, false);
    } else {
      bpf_program__set_autoload(skel->progs.gate_site_multi, false);
    }
    int err = gate_bpf::load(skel);
    if (err) {
      gate_bpf::destroy(skel);
      skel = nullptr;
      return -err;
    }
    return 0;
  }

  // One link for every site. Returns 0 or the errno the kernel gave.
  int attach_multi() {
    std::vector<uint64_t> offsets, cookies;
    offsets.reserve(sites.size());
    cookies.reserve(sites.size());
    for (const auto& s : sites) {
      offsets.push_back(s.file_offset);
      cookies.push_back(s.cookie);
    }
    UprobeMultiLinkAttr attr{};
    attr.prog_fd = bpf_program__fd(skel->progs.gate_site_multi);
    attr.attach_type = kBpfTraceUprobeMulti;
    attr.path = reinterpret_cast<uint64_t>(binary.c_str());
    attr.offsets = reinterpret_cast<uint64_t>(offsets.data());
    attr.cookies = reinterpret_cast<uint64_t>(cookies.data());
    attr.cnt = static_cast<uint32_t>(sites.size());
    long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr);
    if (fd < 0) return errno;
    multi_link_fd = static_cast<int>(fd);
    return 0;
  }

  void attach_per_probe() {
    auto t0 = std::chrono::steady_clock::now();
    double last_report = 0;
    per_probe.reserve(sites.size());
    for (size_t i = 0; i < sites.size(); ++i) {
      LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = sites[i].cookie, .retprobe = false);
      bpf_link* l = bpf_program__attach_uprobe_opts(skel->progs.gate_site_single, -1,
                                                    binary.c_str(), sites[i].file_offset, &uo);
      if (!l) {
        int err = errno;
        char off[32];
        snprintf(off, sizeof off, "0x%llx", static_cast<unsigned long long>(sites[i].file_offset));
        throw Error::make("uprobe at file offset " + std::string(off) + " in " + binary,
                          std::string("attach failed: ") + std::strerror(err) + "\n" + libbpf_log_tail(),
                          err == EPERM ? missing_bpf_privileges()
                                       : "check that the binary was not rebuilt between analysis and attach",
                          ExitCode::kMeasure);
      }
      per_probe.push_back(l);
      double el = seconds_since(t0);
      if (el - last_report > 2.0) {
        last_report = el;
        progress("attached " + std::to_string(i + 1) + "/" + std::to_string(sites.size()) +
                 " probes (per-probe links: ~" +
                 std::to_string(static_cast<int>(el * 1000 / (i + 1))) + " ms each)");
      }
    }
  }

  void attach_tree_tracking() {
    fork_link = bpf_program__attach(skel->progs.gate_fork);
    if (!fork_link) throw load_error("attach to sched_process_fork", errno);
    exit_link = bpf_program__attach(skel->progs.gate_exit);
    if (!exit_link) throw load_error("attach to sched_process_exit", errno);
  }

  double detach_all() {
    auto t0 = std::chrono::steady_clock::now();
    if (multi_link_fd >= 0) {
      ::close(multi_link_fd);
      multi_link_fd = -1;
    }
    if (!per_probe.empty()) {
      // Each perf-event uprobe waits for an RCU grace period when it goes; in parallel the
      // waits overlap instead of adding up.
      std::atomic<size_t> next{0};
      auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < per_probe.size();) bpf_link__destroy(per_probe[i]);
      };
      std::vector<std::thread> pool;
      size_t n = std::min<size_t>(32, per_probe.size());
      for (size_t t = 0; t < n; ++t) pool.emplace_back(worker);
      for (auto& th : pool) th.join();
      per_probe.clear();
    }
    if (fork_link) bpf_link__destroy(fork_link);
    if (exit_link) bpf_link__destroy(exit_link);
    fork_link = exit_link = nullptr;
    if (skel) gate_bpf::destroy(skel);
    skel = nullptr;
    return seconds_since(t0);
  }
};

ProbeEngine::ProbeEngine(const std::string& binary_path, uint32_t function_count,
                         const std::vector<SiteSpec>& sites, const EngineOptions& options)
    : impl_(std::make_unique<Impl>()) {
  static std::once_flag once;
  std::call_once(once, [] { libbpf_set_print(libbpf_print); });
  Impl& m = *impl_;
  m.binary = binary_path;
  m.nfuncs = function_count;
  m.sites = sites;
  m.opts = options;
  m.ncpus = libbpf_num_possible_cpus();
  if (m.ncpus <= 0) throw Error("cannot count possible CPUs (/sys/devices/system/cpu/possible)", ExitCode::kMeasure);
  if (sites.empty()) {
    throw Error::make(binary_path, "no probe sites to attach", "declare at least one measurable function");
  }
  if (::access(binary_path.c_str(), R_OK) != 0) {
    throw Error::make(binary_path, std::string("cannot be read (") + std::strerror(errno) + ")",
                      "check the path in gate.yaml");
  }

  auto t0 = std::chrono::steady_clock::now();
  const bool try_multi = options.mode != AttachMode::kPerProbe;
  int err = m.open_and_load(try_multi);
  if (err && try_multi && options.mode == AttachMode::kAuto && err != EPERM && err != EACCES) {
    err = m.open_and_load(false);  // this kernel does not know the uprobe_multi attach type
  } else if (try_multi && !err) {
    int lerr = m.attach_multi();
    if (lerr == 0) {
      m.mode = AttachMode::kMulti;
    } else if (options.mode == AttachMode::kMulti || lerr == EPERM) {
      gate_bpf::destroy(m.skel);
      m.skel = nullptr;
      throw Error::make("uprobe_multi link on " + binary_path, std::string("refused: ") + std::strerror(lerr),
                        lerr == EPERM ? missing_bpf_privileges()
                                      : "use --attach-mode perf_event (kernel < 6.6 has no uprobe_multi)",
                        ExitCode::kMeasure);
    } else {
      gate_bpf::destroy(m.skel);  // reload with the per-probe copy of the program
      m.skel = nullptr;
      err = m.open_and_load(false);
    }
  }
  if (err) throw load_error("load", err);
  if (m.mode != AttachMode::kMulti) {
    m.mode = AttachMode::kPerProbe;
    try {
      m.attach_per_probe();
    } catch (...) {
      m.detach_all();
      throw;
    }
  }
  try {
    m.attach_tree_tracking();
  } catch (...) {
    m.detach_all();
    throw;
  }
  m.attach_s = seconds_since(t0);
}

ProbeEngine::~ProbeEngine() { impl_->detach_all(); }

double ProbeEngine::detach() { return impl_->detach_all(); }

AttachMode ProbeEngine::attach_mode() const { return impl_->mode; }
double ProbeEngine::attach_seconds() const { return impl_->attach_s; }
size_t ProbeEngine::site_count() const { return impl_->sites.size(); }

void ProbeEngine::track(pid_t pid) {
  uint32_t key = static_cast<uint32_t>(pid);
  uint8_t one = 1;
  if (bpf_map__update_elem(impl_->skel->maps.tracked, &key, sizeof key, &one, sizeof one, BPF_ANY) != 0) {
    throw Error::make("process " + std::to_string(pid), std::string("cannot be tracked: ") + std::strerror(errno),
                      "", ExitCode::kMeasure);
  }
}

void ProbeEngine::untrack_all() {
  bpf_map* map = impl_->skel->maps.tracked;
  uint32_t key, next;
  std::vector<uint32_t> keys;
  for (int r = bpf_map__get_next_key(map, nullptr, &next, sizeof next); r == 0;
       r = bpf_map__get_next_key(map, &key, &next, sizeof next)) {
    keys.push_back(next);
    key = next;
  }
  for (uint32_t k : keys) bpf_map__delete_elem(map, &k, sizeof k, 0);
}

std::vector<FunctionCounters> ProbeEngine::collect_and_reset() {
  Impl& m = *impl_;
  std::vector<FunctionCounters> out(m.nfuncs);

  // In-flight entries: calls that never returned before their process ended.
  bpf_map* frames = m.skel->maps.frames;
  gate_frame_key key{}, next{};
  std::vector<gate_frame_key> stale;
  for (int r = bpf_map__get_next_key(frames, nullptr, &next, sizeof next); r == 0;
       r = bpf_map__get_next_key(frames, &key, &next, sizeof next)) {
    stale.push_back(next);
    key = next;
  }
  for (const auto& k : stale) {
    if (k.func < m.nfuncs) out[k.func].open_entries++;
    bpf_map__delete_elem(frames, &k, sizeof k, 0);
  }

  const size_t value_size = bpf_map__value_size(m.skel->maps.func_stats);
  const size_t stride = (value_size + 7) / 8 * 8;
  std::vector<uint8_t> buf(stride * m.ncpus);
  std::vector<uint8_t> zeros(stride * m.ncpus, 0);
  std::vector<uint64_t> merged(GATE_HIST_BUCKETS);
  for (uint32_t f = 0; f < m.nfuncs; ++f) {
    if (bpf_map__lookup_elem(m.skel->maps.func_stats, &f, sizeof f, buf.data(), buf.size(), 0) != 0) {
      throw Error::make("statistics of function #" + std::to_string(f),
                        std::string("cannot be read: ") + std::strerror(errno), "", ExitCode::kMeasure);
    }
    FunctionCounters& c = out[f];
    std::fill(merged.begin(), merged.end(), 0);
    bool have_min = false;
    for (int cpu = 0; cpu < m.ncpus; ++cpu) {
      const auto* s = reinterpret_cast<const gate_func_stats*>(buf.data() + cpu * stride);
      if (s->count) {
        c.min_ns = have_min ? std::min<uint64_t>(c.min_ns, s->min_ns) : s->min_ns;
        have_min = true;
        c.max_ns = std::max<uint64_t>(c.max_ns, s->max_ns);
      }
      c.calls += s->count;
      c.sum_ns += s->sum_ns;
      c.unmatched_returns += s->unmatched_returns;
      c.abandoned_entries += s->abandoned_entries;
      c.diverted_entries += s->diverted_entries;
      c.dropped += s->dropped;
      for (uint32_t b = 0; b < GATE_HIST_BUCKETS; ++b) merged[b] += s->buckets[b];
    }
    for (uint32_t b = 0; b < GATE_HIST_BUCKETS; ++b)
      if (merged[b]) c.buckets.emplace_back(b, merged[b]);
    if (bpf_map__update_elem(m.skel->maps.func_stats, &f, sizeof f, zeros.data(), zeros.size(), BPF_ANY) != 0) {
      throw Error::make("statistics of function #" + std::to_string(f),
                        std::string("cannot be reset: ") + std::strerror(errno), "", ExitCode::kMeasure);
    }
  }
  return out;
}

}  // namespace gate::probe
