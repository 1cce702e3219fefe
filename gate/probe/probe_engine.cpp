// ProbeEngine implementation: skeleton life cycle (check sizes -> decide attach mode -> open ->
// size maps -> load -> attach -> read -> destroy), one uprobe_multi link when a feature probe says
// the kernel has it, one perf-event link per site otherwise.
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
#include <fstream>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "probe/kernel_memory.hpp"
#include "probe/pid_namespace.hpp"

extern "C" {
#include "gate_shared.h"  // before the skeleton: its .data/.bss fields have these types
}
#include "gate.skel.h"

namespace gate::probe {

namespace {

// Not in Debian 12's 6.1 UAPI headers; values from the kernel's BTF (stable ABI since 6.6).
constexpr uint32_t kBpfTraceUprobeMulti = 48;
// Threads of the workload followed at once for exclude_preemption (LRU: an evicted thread's
// calls in flight then exclude nothing and are counted in thread_changed_calls).
constexpr uint32_t kMaxThreads = 16384;

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

// A per-probe uprobe (a perf event of the uprobe PMU) refused: the capabilities, else what was seen
// here: Linux 6.18 refused it (EACCES) to a container holding CAP_BPF and CAP_PERFMON but not
// CAP_SYS_ADMIN, while its uprobe_multi links attached (tests/ci/podman_test.sh).
std::string per_probe_refused() {
  const std::string missing = missing_bpf_privileges();
  if (!missing.empty()) return missing;
  return "the kernel refuses a perf-event uprobe without CAP_SYS_ADMIN (seen with CAP_BPF and CAP_PERFMON "
         "in a container): add --cap-add SYS_ADMIN, or use --attach-mode auto on a kernel with uprobe_multi "
         "links (>= 6.6), which need only CAP_BPF and CAP_PERFMON";
}

// /proc/self/status "Seccomp: 2": a seccomp filter decides which syscalls this process may make.
bool seccomp_filtered() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Seccomp:", 0) == 0) return std::atoi(line.c_str() + 8) == 2;
  return false;
}

Error load_error(const std::string& what, int err) {
  std::string missing = missing_bpf_privileges();
  // EACCES with every privilege held is the verifier refusing the program: its log says why.
  if (err == EACCES && missing.empty() && geteuid() == 0) {
    return Error::make("BPF program", what + ": the kernel's verifier rejected it (" + std::strerror(err) + ")\n" +
                           libbpf_log_tail(),
                       "a BPF compiler or kernel gate was not tested with: build with the clang and libbpf of "
                       "ci/setup.sh (Debian 12), or report the verifier's log (gate run prints it)",
                       ExitCode::kMeasure);
  }
  if (err == EPERM || err == EACCES) {
    // Every capability held and still refused: in a container, its seccomp profile (podman's and
    // Docker's default profiles allow bpf() only with CAP_SYS_ADMIN in some versions).
    const std::string fix = !missing.empty()   ? missing
                            : seccomp_filtered() ? kSeccompRefusesBpf
                                                 : "run gate as root; check kernel.unprivileged_bpf_disabled and lockdown";
    return Error::make("BPF program", what + ": permission denied (" + std::strerror(err) + ")", fix,
                       ExitCode::kMeasure);
  }
  return Error::make("BPF program", what + ": " + std::strerror(err) + "\n" + libbpf_log_tail(),
                     "the kernel needs BPF, BTF (/sys/kernel/btf/vmlinux) and uprobes (CONFIG_UPROBE_EVENTS)",
                     ExitCode::kMeasure);
}

// BPF_F_UPROBE_MULTI_RETURN: the link's offsets are function entries whose returns fire (uretprobes).
constexpr uint32_t kUprobeMultiReturn = 1;

long link_create_multi(int prog_fd, const char* path, const uint64_t* offsets, const uint64_t* cookies, size_t n,
                       uint32_t multi_flags = 0) {
  UprobeMultiLinkAttr attr{};
  attr.multi_flags = multi_flags;
  attr.prog_fd = static_cast<uint32_t>(prog_fd);
  attr.attach_type = kBpfTraceUprobeMulti;
  attr.path = reinterpret_cast<uint64_t>(path);
  attr.offsets = reinterpret_cast<uint64_t>(offsets);
  attr.cookies = reinterpret_cast<uint64_t>(cookies);
  attr.cnt = static_cast<uint32_t>(n);
  return syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr);
}

// Does this kernel have uprobe_multi links? 0 if yes, else the errno that says no. Like libbpf's
// and retsnoop's probe: a two-instruction program of that attach type, linked on "/", which a
// kernel that knows the link rejects with EBADF (not a regular file) and any other with EINVAL.
int probe_uprobe_multi() {
  const bpf_insn insns[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .src_reg = 0, .off = 0, .imm = 0},
      {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
  };
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = static_cast<bpf_attach_type>(kBpfTraceUprobeMulti));
  const int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "gate_feature", "GPL", insns, 2, &opts);
  if (prog < 0) return errno;
  const uint64_t offset = 0;
  const long link = link_create_multi(prog, "/", &offset, nullptr, 1);
  const int err = link < 0 ? errno : 0;
  if (link >= 0) ::close(static_cast<int>(link));
  ::close(prog);
  return err == EBADF ? 0 : (err ? err : EINVAL);
}

void set_costs(gate_probe_costs& out, const ProbeCosts& c) {
  auto ns = [](double v) { return v > 0 ? static_cast<uint64_t>(v + 0.5) : uint64_t{0}; };
  out = {};
  out.full_ns[GATE_SITE_ENTRY_JCC] = ns(c.entry_jcc_full_ns);
  out.full_ns[GATE_SITE_ENTRY] = ns(c.entry_first_full_ns);
  out.full_ns[GATE_SITE_RETURN] = ns(c.return_full_ns);
  out.bias_ns[GATE_SITE_ENTRY_JCC] = ns(c.bias_jcc_ns);
  out.bias_ns[GATE_SITE_ENTRY] = ns(c.bias_first_ns);
}

struct AttachDecision {
  AttachMode mode;
  std::string reason;
};

// The attach mode, decided once before anything is loaded: what was asked, else what the kernel
// can do. Throws when uprobe_multi was asked for and the kernel has none, or BPF is not allowed.
AttachDecision decide_attach_mode(AttachMode requested) {
  if (requested == AttachMode::kPerProbe) return {AttachMode::kPerProbe, "requested"};
  const int err = probe_uprobe_multi();
  if (err == 0) {
    return {AttachMode::kMulti, requested == AttachMode::kMulti ? "requested"
                                                                 : "the kernel has uprobe_multi links (feature probe)"};
  }
  if (err == EPERM || err == EACCES) throw load_error("feature probe (uprobe_multi)", err);
  if (requested == AttachMode::kMulti) {
    throw Error::make("uprobe_multi", std::string("this kernel has no uprobe_multi links (feature probe: ") +
                                          std::strerror(err) + ")",
                      "use --attach-mode auto or perf_event (uprobe_multi needs Linux >= 6.6)", ExitCode::kMeasure);
  }
  return {AttachMode::kPerProbe,
          std::string("the kernel has no uprobe_multi links (feature probe: ") + std::strerror(err) + ")"};
}

// The kernel's accounting of one map's memory (memlock: in /proc/self/fdinfo).
uint64_t map_memlock(const bpf_map* map) {
  std::ifstream in("/proc/self/fdinfo/" + std::to_string(bpf_map__fd(map)));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("memlock:", 0) == 0) return std::stoull(line.substr(8));
  return 0;
}

// Keys of a hash map (user space walk; the maps are small when this is used).
template <typename Key>
std::vector<Key> map_keys(const bpf_map* map) {
  std::vector<Key> keys;
  Key key{}, next{};
  for (int r = bpf_map__get_next_key(map, nullptr, &next, sizeof next); r == 0;
       r = bpf_map__get_next_key(map, &key, &next, sizeof next)) {
    keys.push_back(next);
    key = next;
  }
  return keys;
}

// Reads and deletes every entry of a hash map in batches (one syscall per `chunk` entries, the
// kernel walks its buckets), calling visit(key, value) for each.
template <typename Key, typename Value, typename Visit>
void drain(const bpf_map* map, const char* what, Visit visit) {
  constexpr uint32_t kChunk = 8192;
  std::vector<Key> keys(kChunk);
  std::vector<Value> values(kChunk);
  uint32_t in = 0, out = 0;
  for (bool first = true;; first = false) {
    uint32_t n = kChunk;
    const int r = bpf_map_lookup_and_delete_batch(bpf_map__fd(map), first ? nullptr : &in, &out, keys.data(),
                                                  values.data(), &n, nullptr);
    const int err = r < 0 ? -r : 0;
    if (err && err != ENOENT) {
      throw Error::make(std::string("BPF map ") + what, std::string("cannot be read: ") + std::strerror(err), "",
                        ExitCode::kMeasure);
    }
    for (uint32_t i = 0; i < n; ++i) visit(keys[i], values[i]);
    if (err == ENOENT) return;  // every bucket visited
    in = out;
  }
}

using Buckets = std::vector<std::pair<uint32_t, uint64_t>>;

// The self-time histogram: the time histogram plus the difference (signed counts, unsorted).
Buckets self_from_difference(const Buckets& time, Buckets diff) {
  if (diff.empty()) return time;  // no call had its self time in another bucket than its time
  std::sort(diff.begin(), diff.end());
  Buckets self;
  self.reserve(time.size() + diff.size());
  size_t i = 0, j = 0;
  while (i < time.size() || j < diff.size()) {
    const uint32_t b = j == diff.size() || (i < time.size() && time[i].first < diff[j].first) ? time[i].first : diff[j].first;
    uint64_t n = 0;  // modulo 2^64: the sum of a bucket's time count and its difference is >= 0
    if (i < time.size() && time[i].first == b) n += time[i++].second;
    for (; j < diff.size() && diff[j].first == b; ++j) n += diff[j].second;
    if (n != 0) self.emplace_back(b, n);
  }
  return self;
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
  return bpf_privileges_fix(has_cap(data, kCapBpf), has_cap(data, kCapPerfmon), has_cap(data, kCapSysAdmin),
                            geteuid() == 0, !own_pid_namespace().initial());
}

std::string bpf_privileges_fix(bool bpf, bool perfmon, bool sys_admin, bool root, bool container) {
  if (sys_admin) return "";
  std::vector<std::string> missing;
  if (!bpf) missing.push_back("CAP_BPF");
  if (!perfmon) missing.push_back("CAP_PERFMON");
  if (missing.empty()) return "";
  std::string names;
  for (const auto& m : missing) names += (names.empty() ? "" : " and ") + m;
  // Root in a container holds only the capabilities its engine granted: the fix is the container's.
  if (root || container) {
    // Outside a container, root lacks them when its bounding set dropped them (a systemd unit's
    // CapabilityBoundingSet=, setpriv, capsh), which no file capability (setcap) can add back.
    return "gate needs " + names + " (or CAP_SYS_ADMIN) to load BPF programs and attach uprobes, and this " +
           (container ? std::string("container")
                      : std::string("root process (its capability bounding set drops them: a systemd unit's "
                                    "CapabilityBoundingSet=, setpriv or capsh; setcap cannot add them back)")) +
           " lacks them: start gate with them kept; in a container, start it with `--cap-add BPF --cap-add PERFMON` (docker, podman run; "
           "GitHub `container: options:`; GitLab [runners.docker] cap_add = [\"BPF\", \"PERFMON\"]), in "
           "Kubernetes securityContext.capabilities.add: [\"BPF\", \"PERFMON\"], or run it --privileged "
           "(docs/ci.md, Containers)";
  }
  return "gate needs " + names +
         " (or CAP_SYS_ADMIN) to load BPF programs and attach uprobes: run it as root (sudo gate ...), "
         "or grant them with `setcap cap_bpf,cap_perfmon,cap_sys_admin+ep $(command -v gate)`";
}

int uprobe_multi_errno() { return probe_uprobe_multi(); }

struct ProbeEngine::Impl {
  std::string binary;
  uint32_t nfuncs = 0;
  std::vector<SiteSpec> sites;
  EngineOptions opts;
  gate_bpf* skel = nullptr;
  AttachMode mode = AttachMode::kAuto;
  std::string mode_reason;
  std::vector<int> multi_link_fds;  // one per (file, uretprobe or not): native functions add some
  std::vector<bpf_link*> per_probe;
  bpf_link* fork_link = nullptr;
  bpf_link* exit_link = nullptr;
  bpf_link* switch_link = nullptr;  // exclude_preemption only
  bpf_link* exec_link = nullptr;
  PidNamespace pidns;  // gate's: the PIDs track() is given are this namespace's
  double attach_s = 0;
  int ncpus = 0;
  EngineCounters last;  // of the last collect

  void progress(const std::string& s) const {
    if (opts.progress) opts.progress(s);
  }

  // open -> configure -> load, with the copy of the program the attach mode needs. Returns 0 or
  // the error libbpf gave.
  int open_and_load() {
    skel = gate_bpf::open();
    if (!skel) return errno ? errno : EINVAL;
    skel->rodata->g_stack_hi_offset = opts.g_stack_hi_offset;
    skel->rodata->pidns_dev = pidns.dev;
    skel->rodata->pidns_ino = pidns.ino;
    set_costs(skel->rodata->costs, opts.costs);
    skel->rodata->true_time = opts.true_time ? 1 : 0;
    skel->rodata->arg_buckets_on = opts.arg_buckets.empty() ? 0 : 1;
    skel->rodata->exclude_preemption = opts.exclude_preemption ? 1 : 0;
    // Every context switch of the machine runs the sched_switch program: load it only when asked.
    bpf_program__set_autoload(skel->progs.gate_switch, opts.exclude_preemption);
    bpf_map__set_max_entries(skel->maps.threads, opts.exclude_preemption ? kMaxThreads : 64);
    const int ncpus = libbpf_num_possible_cpus();
    bpf_map__set_max_entries(skel->maps.cpus, opts.exclude_preemption && ncpus > 0 ? ncpus : 1);
    const uint32_t funcs = std::max<uint32_t>(nfuncs, 1);
    bpf_map__set_max_entries(skel->maps.func_stats, funcs);
    bpf_map__set_max_entries(skel->maps.func_hist, funcs * GATE_HIST_GROUPS * GATE_HIST_KINDS);  // never full
    bpf_map__set_max_entries(skel->maps.goroutines, std::max<uint32_t>(opts.max_goroutines, 1024));
    bpf_map__set_max_entries(skel->maps.call_edges, max_call_edges(funcs));
    bpf_map__set_max_entries(skel->maps.frames, std::max<uint32_t>(opts.max_in_flight, 1024));
    bpf_map__set_max_entries(skel->maps.arg_buckets, std::max<uint32_t>(opts.arg_buckets.size(), 1));
    if (mode == AttachMode::kMulti) {
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
    if (int e = fill_arg_buckets()) {
      gate_bpf::destroy(skel);
      skel = nullptr;
      return e;
    }
    return 0;
  }

  // Latency by argument: one gate_arg_spec per bucketed function, before any probe fires.
  int fill_arg_buckets() {
    for (const auto& a : opts.arg_buckets) {
      gate_arg_spec v{};
      v.first_id = a.first_id;
      v.read = static_cast<uint8_t>(a.read);
      v.reg = a.abi_register;
      v.size = a.size;
      v.offset = a.offset;
      v.nbounds = static_cast<uint8_t>(std::min<size_t>(a.bounds.size(), GATE_ARG_MAX_BOUNDS));
      for (size_t i = 0; i < v.nbounds; ++i) v.bounds[i] = a.bounds[i];
      if (bpf_map__update_elem(skel->maps.arg_buckets, &a.function_id, sizeof a.function_id, &v, sizeof v, BPF_ANY))
        return errno ? errno : EINVAL;
    }
    return 0;
  }

  const std::string& path_of(const SiteSpec& s) const { return s.path.empty() ? binary : s.path; }

  // One link for every site of one file and kind (plain uprobes, or uretprobes of native
  // functions). Returns 0 or the errno the kernel gave; *failed names the file.
  int attach_multi(std::string* failed) {
    std::vector<std::pair<std::string, bool>> groups;
    for (const auto& s : sites)
      if (std::find(groups.begin(), groups.end(), std::pair{path_of(s), s.uretprobe}) == groups.end())
        groups.emplace_back(path_of(s), s.uretprobe);
    for (const auto& [path, ret] : groups) {
      std::vector<uint64_t> offsets, cookies;
      for (const auto& s : sites) {
        if (path_of(s) != path || s.uretprobe != ret) continue;
        offsets.push_back(s.file_offset);
        cookies.push_back(s.cookie);
      }
      long fd = link_create_multi(bpf_program__fd(skel->progs.gate_site_multi), path.c_str(), offsets.data(),
                                  cookies.data(), offsets.size(), ret ? kUprobeMultiReturn : 0);
      if (fd < 0) {
        *failed = path + (ret ? " (uretprobes)" : "");
        return errno;
      }
      multi_link_fds.push_back(static_cast<int>(fd));
    }
    return 0;
  }

  void attach_per_probe() {
    auto t0 = std::chrono::steady_clock::now();
    double last_report = 0;
    per_probe.reserve(sites.size());
    for (size_t i = 0; i < sites.size(); ++i) {
      LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = sites[i].cookie, .retprobe = sites[i].uretprobe);
      bpf_link* l = bpf_program__attach_uprobe_opts(skel->progs.gate_site_single, -1,
                                                    path_of(sites[i]).c_str(), sites[i].file_offset, &uo);
      if (!l) {
        int err = errno;
        throw Error::make("uprobe at file offset " + hex(sites[i].file_offset) + " in " + path_of(sites[i]),
                          std::string("attach failed: ") + std::strerror(err) + "\n" + libbpf_log_tail(),
                          err == EPERM || err == EACCES ? per_probe_refused()
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
    exec_link = bpf_program__attach(skel->progs.gate_exec);
    if (!exec_link) throw load_error("attach to sched_process_exec", errno);
    if (opts.exclude_preemption) {
      switch_link = bpf_program__attach(skel->progs.gate_switch);
      if (!switch_link) throw load_error("attach to sched_switch (exclude_preemption)", errno);
    }
  }

  double detach_all() {
    auto t0 = std::chrono::steady_clock::now();
    for (int fd : multi_link_fds) ::close(fd);
    multi_link_fds.clear();
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
    if (switch_link) bpf_link__destroy(switch_link);
    if (exec_link) bpf_link__destroy(exec_link);
    fork_link = exit_link = switch_link = exec_link = nullptr;
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
  check_maps_fit(plan_maps(function_count, options.max_in_flight, options.max_goroutines), options.max_kernel_memory, cgroup_memory_room());
  m.pidns = require_usable_pid_namespace("BPF probes on " + binary_path, false);

  auto t0 = std::chrono::steady_clock::now();
  const AttachDecision decision = decide_attach_mode(options.mode);
  m.mode = decision.mode;
  m.mode_reason = decision.reason;
  if (int err = m.open_and_load()) throw load_error("load", err);
  try {
    if (m.mode == AttachMode::kMulti) {
      std::string failed;
      if (int err = m.attach_multi(&failed)) {
        throw Error::make("uprobe_multi link on " + failed, std::string("refused: ") + std::strerror(err),
                          err == EPERM ? missing_bpf_privileges()
                                       : "check that the binary was not rebuilt between analysis and attach; "
                                         "--attach-mode perf_event names the offset that fails",
                          ExitCode::kMeasure);
      }
    } else {
      m.attach_per_probe();
    }
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
const std::string& ProbeEngine::attach_mode_reason() const { return impl_->mode_reason; }
double ProbeEngine::attach_seconds() const { return impl_->attach_s; }
size_t ProbeEngine::site_count() const { return impl_->sites.size(); }

// The PID is gate's namespace's; the BPF side knows processes by the initial namespace's tgid,
// which only the process itself can tell in a container: it is pending until it execs (or hits a
// probe, when it is tracked after its exec), and then followed under that tgid.
void ProbeEngine::track(pid_t pid) {
  uint32_t key = static_cast<uint32_t>(pid);
  uint8_t one = 1;
  if (bpf_map__update_elem(impl_->skel->maps.pending, &key, sizeof key, &one, sizeof one, BPF_ANY) != 0) {
    throw Error::make("process " + std::to_string(pid), std::string("cannot be tracked: ") + std::strerror(errno),
                      "", ExitCode::kMeasure);
  }
  __atomic_store_n(&impl_->skel->bss->pending_on, 1u, __ATOMIC_SEQ_CST);
}

void ProbeEngine::untrack_all() {
  __atomic_store_n(&impl_->skel->bss->pending_on, 0u, __ATOMIC_SEQ_CST);
  for (bpf_map* map : {impl_->skel->maps.tracked, impl_->skel->maps.pending})
    for (uint32_t k : map_keys<uint32_t>(map)) bpf_map__delete_elem(map, &k, sizeof k, 0);
}

uint64_t ProbeEngine::followed() const { return __atomic_load_n(&impl_->skel->bss->followed, __ATOMIC_SEQ_CST); }

const PidNamespace& ProbeEngine::pid_namespace() const { return impl_->pidns; }

std::vector<FunctionCounters> ProbeEngine::collect_and_reset() { return collect(true); }

std::vector<FunctionCounters> ProbeEngine::collect_slice() { return collect(false); }

void ProbeEngine::set_slice_start(uint64_t monotonic_ns) {
  __atomic_store_n(&impl_->skel->bss->slice_start_ns, monotonic_ns, __ATOMIC_SEQ_CST);
}

void ProbeEngine::set_run_start(uint64_t monotonic_ns) {
  __atomic_store_n(&impl_->skel->bss->run_start_ns, monotonic_ns, __ATOMIC_SEQ_CST);
}

const EngineCounters& ProbeEngine::engine_counters() const { return impl_->last; }

std::vector<FunctionCounters> ProbeEngine::collect(bool end_of_run) {
  Impl& m = *impl_;
  std::vector<FunctionCounters> out(m.nfuncs);

  // In-flight entries: calls that never returned before their process ended.
  bpf_map* frames = m.skel->maps.frames;
  for (const auto& k : end_of_run ? map_keys<gate_frame_key>(frames) : std::vector<gate_frame_key>{}) {
    if (k.func < m.nfuncs) out[k.func].open_entries++;
    bpf_map__delete_elem(frames, &k, sizeof k, 0);
  }

  drain<uint32_t, gate_func_stats>(m.skel->maps.func_stats, "func_stats", [&](uint32_t f, const gate_func_stats& s) {
    if (f >= m.nfuncs) return;
    FunctionCounters& c = out[f];
    c.calls = s.count;
    c.sum_ns = s.sum_ns;
    c.min_ns = s.count ? s.min_ns : 0;
    c.max_ns = s.max_ns;
    c.unmatched_returns = s.unmatched_returns;
    c.abandoned_entries = s.abandoned_entries;
    c.diverted_entries = s.diverted_entries;
    c.dropped = s.dropped;
    c.raw_sum_ns = s.raw_sum_ns;
    c.raw_min_ns = s.count ? s.raw_min_ns : 0;
    c.raw_max_ns = s.raw_max_ns;
    c.descendants = s.descendants;
    c.self_sum_ns = s.self_sum_ns;
    c.clamped = s.clamped;
    c.uncompensated = s.uncompensated;
    c.sum_start_us = s.sum_start_us;
    c.sum_start_ms2 = s.sum_start_ms2;
  });
  // The self-time histogram comes as its difference from the time histogram (bpf/gate.bpf.c,
  // record()): collected into self_buckets as signed counts first, then added to the time's.
  drain<gate_hist_key, gate_hist_group>(m.skel->maps.func_hist, "func_hist",
                                        [&](const gate_hist_key& k, const gate_hist_group& g) {
                                          if (k.func >= m.nfuncs) return;
                                          const uint32_t group = k.group % GATE_HIST_GROUPS;
                                          auto& into = k.group / GATE_HIST_GROUPS == GATE_HIST_SELF
                                                           ? out[k.func].self_buckets
                                                           : out[k.func].buckets;
                                          for (uint32_t i = 0; i < GATE_HIST_GROUP; ++i)
                                            if (g.counts[i]) into.emplace_back(group * GATE_HIST_GROUP + i, g.counts[i]);
                                        });
  for (auto& c : out) {  // groups come in hash order
    std::sort(c.buckets.begin(), c.buckets.end());
    if (m.opts.true_time) c.self_buckets = self_from_difference(c.buckets, std::move(c.self_buckets));
  }
  drain<gate_edge_key, gate_edge>(m.skel->maps.call_edges, "call_edges", [&](const gate_edge_key& k, const gate_edge& e) {
    if (k.callee < m.nfuncs) out[k.callee].callers.push_back({k.caller, e.calls, e.sum_ns});
  });
  for (auto& c : out)
    std::sort(c.callers.begin(), c.callers.end(), [](const auto& a, const auto& b) { return a.caller < b.caller; });
  m.last.lost_edges = __atomic_exchange_n(&m.skel->bss->lost_edges, 0, __ATOMIC_SEQ_CST);
  m.last.straddled_calls = __atomic_exchange_n(&m.skel->bss->straddled_calls, 0, __ATOMIC_SEQ_CST);
  m.last.preempted_calls = __atomic_exchange_n(&m.skel->bss->preempted_calls, 0, __ATOMIC_SEQ_CST);
  m.last.thread_changed_calls = __atomic_exchange_n(&m.skel->bss->thread_changed_calls, 0, __ATOMIC_SEQ_CST);
  // The goroutines' accumulators matter only within a call; the workload's processes are gone.
  if (end_of_run)
    for (const auto& k : map_keys<gate_g_key>(m.skel->maps.goroutines))
      bpf_map__delete_elem(m.skel->maps.goroutines, &k, sizeof k, 0);
  if (end_of_run && m.opts.exclude_preemption)
    for (const auto& k : map_keys<uint32_t>(m.skel->maps.threads))
      bpf_map__delete_elem(m.skel->maps.threads, &k, sizeof k, 0);

  // Calls of a function whose record could not be created were counted nowhere else.
  const uint64_t lost = __atomic_exchange_n(&m.skel->bss->lost_no_record, 0, __ATOMIC_SEQ_CST);
  if (lost) {
    throw Error::make("BPF maps", std::to_string(lost) + " probe hits found no kernel memory for a statistics record",
                      "the cgroup's memory limit was reached during the run: raise memory.max or trace fewer functions",
                      ExitCode::kMeasure);
  }
  return out;
}

std::vector<uint64_t> ProbeEngine::take_library_loads() {
  std::vector<uint64_t> out(GATE_MAX_WATCHED_LIBRARIES);
  if (!impl_->skel) return out;
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = __atomic_exchange_n(&impl_->skel->bss->library_loads[i], 0, __ATOMIC_SEQ_CST);
  return out;
}

KernelMemory ProbeEngine::kernel_memory() const {
  const auto& maps = impl_->skel->maps;
  KernelMemory k;
  k.histogram_bytes = map_memlock(maps.func_stats) + map_memlock(maps.func_hist);
  k.total_bytes = k.histogram_bytes + map_memlock(maps.frames) + map_memlock(maps.goroutines) +
                  map_memlock(maps.call_edges) + map_memlock(maps.tracked) + map_memlock(maps.pending) + map_memlock(maps.threads) +
                  map_memlock(maps.cpus) + map_memlock(maps.rodata) + map_memlock(maps.bss) + map_memlock(maps.data);
  k.functions = map_keys<uint32_t>(maps.func_stats).size();
  k.groups = map_keys<gate_hist_key>(maps.func_hist).size();
  return k;
}

std::vector<uint32_t> ProbeEngine::functions_in_kernel() const {
  const auto& maps = impl_->skel->maps;
  std::vector<uint32_t> ids = map_keys<uint32_t>(maps.func_stats);
  for (const auto& k : map_keys<gate_hist_key>(maps.func_hist)) ids.push_back(k.func);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace gate::probe
