// gate doctor's checks: read the host once, judge each reading with its fix, then the config's
// binary, its maps' memory and a trial attach of one declared function.
#include "doctor/doctor.hpp"

#include "doctor/container.hpp"

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>
#include <fstream>

#include "common/error.hpp"
#include "common/format.hpp"
#include "elf/elf_file.hpp"
#include "plan/cookie.hpp"
#include "plan/dwarf.hpp"
#include "plan/probe_plan.hpp"
#include "probe/kernel_memory.hpp"
#include "probe/probe_engine.hpp"
#include "runner/process.hpp"

namespace gate::doctor {
namespace {

// Why 5.15: the BPF program reads its function id from the attach cookie (bpf_get_attach_cookie,
// 5.15 for uprobes) and hooks tp_btf tracepoints (BTF).
constexpr int kMinMajor = 5, kMinMinor = 15;

std::string read_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<int> read_int(const char* path) {
  const std::string s = read_line(path);
  if (s.empty()) return std::nullopt;
  try {
    return std::stoi(s);
  } catch (...) {
    return std::nullopt;
  }
}

bool has_effective_cap(int cap) {
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &hdr, data) != 0) return false;
  return (data[cap / 32].effective >> (cap % 32)) & 1u;
}


Check fail_from(const std::string& name, const Error& e) {
  return {name, Status::kFail, e.summary(), e.fix()};
}

// What a run does with its workload, once: gate itself (`gate --version`, present in any container
// gate runs in) started held, tracked by its PID in gate's namespace, and followed by the BPF side
// at its exec. A namespace gate cannot see through fails here, not as "timed no call" in a run.
Check follow_trial(probe::ProbeEngine& engine) {
  const uint64_t before = engine.followed();
  runner::SpawnOptions so;
  so.command = "/proc/self/exe --version";
  so.cwd = "/";
  try {
    runner::Child child = runner::Child::spawn(so, [&](pid_t pid) { engine.track(pid); });
    child.wait(10, nullptr);
  } catch (const Error& e) {
    return fail_from("follow", e);
  }
  engine.untrack_all();
  const std::string ns = "PID namespace " + engine.pid_namespace().text();
  if (engine.followed() > before)
    return {"follow", Status::kOk, "a process gate started was followed from its exec (" + ns + ")", ""};
  return {"follow", Status::kFail,
          "a process gate started and tracked was never seen by the BPF program at its exec (" + ns + ")",
          "gate follows its workload with bpf_get_ns_current_pid_tgid (Linux >= 5.7) and /proc/self/ns/pid; "
          "report this kernel and container engine (gate doctor --format json)"};
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kWarn: return "warn";
    case Status::kFail: return "fail";
  }
  return "?";
}

HostFacts read_host() {
  HostFacts h;
  utsname u{};
  if (uname(&u) == 0) {
    h.kernel_release = u.release;
    sscanf(u.release, "%d.%d", &h.kernel_major, &h.kernel_minor);
  }
  h.btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
  h.uprobe_multi_errno = probe::uprobe_multi_errno();
  h.root = geteuid() == 0;
  h.missing_privileges = probe::missing_bpf_privileges();
  constexpr int kCapSysAdmin = 21, kCapSysResource = 24, kCapPerfmon = 38;
  h.perfmon = has_effective_cap(kCapPerfmon) || has_effective_cap(kCapSysAdmin);
  h.can_raise_memlock = has_effective_cap(kCapSysResource);
  const std::string lock = read_line("/sys/kernel/security/lockdown");  // "[none] integrity confidentiality"
  if (auto a = lock.find('['), b = lock.find(']'); a != std::string::npos && b > a) h.lockdown = lock.substr(a + 1, b - a - 1);
  h.perf_event_paranoid = read_int("/proc/sys/kernel/perf_event_paranoid");
  h.unprivileged_bpf_disabled = read_int("/proc/sys/kernel/unprivileged_bpf_disabled");
  read_container(h);
  rlimit r{};
  if (getrlimit(RLIMIT_MEMLOCK, &r) == 0) {
    h.memlock_soft = r.rlim_cur == RLIM_INFINITY ? UINT64_MAX : r.rlim_cur;
    h.memlock_hard = r.rlim_max == RLIM_INFINITY ? UINT64_MAX : r.rlim_max;
  }
  return h;
}

std::vector<Check> judge_host(const HostFacts& h) {
  std::vector<Check> out;
  const bool new_enough = h.kernel_major > kMinMajor || (h.kernel_major == kMinMajor && h.kernel_minor >= kMinMinor);
  out.push_back({"kernel", new_enough ? Status::kOk : Status::kFail,
                 "Linux " + h.kernel_release + " (gate needs >= 5.15: BPF attach cookies on uprobes)",
                 new_enough ? "" : "use a runner with Linux >= 5.15 (Debian 12, Ubuntu 22.04 and later, RHEL 9)"});
  out.push_back({"btf", h.btf ? Status::kOk : Status::kFail,
                 h.btf ? "/sys/kernel/btf/vmlinux present" : "/sys/kernel/btf/vmlinux missing",
                 h.btf ? "" : "gate's BPF program reads task fields through BTF (CO-RE, tp_btf): use a kernel built "
                              "with CONFIG_DEBUG_INFO_BTF=y (every major distribution's since 2021)"});
  const int e = h.uprobe_multi_errno;
  if (e == 0) {
    out.push_back({"uprobe_multi", Status::kOk, "the kernel has uprobe_multi links (one link for all probes)", ""});
  } else if (e == EPERM || e == EACCES) {
    out.push_back({"uprobe_multi", Status::kFail, "feature probe refused: " + std::string(std::strerror(e)),
                   "BPF is not allowed to this process: see privileges, capabilities and seccomp"});
  } else {
    out.push_back({"uprobe_multi", Status::kOk,
                   "fallback: one perf_event uprobe link per probe (feature probe: " + std::string(std::strerror(e)) +
                       "; uprobe_multi needs Linux >= 6.6: attaching is slower, measuring the same)",
                   ""});
  }
  std::string who = h.root ? "root" : "uid " + std::to_string(geteuid());
  if (h.unprivileged_bpf_disabled) who += ", kernel.unprivileged_bpf_disabled=" + std::to_string(*h.unprivileged_bpf_disabled);
  out.push_back({"privileges", h.missing_privileges.empty() ? Status::kOk : Status::kFail,
                 h.missing_privileges.empty() ? who + ": may load BPF programs and attach uprobes"
                                              : who + ": lacks the capabilities BPF needs",
                 h.missing_privileges});
  if (h.lockdown.empty() || h.lockdown == "none") {
    out.push_back({"lockdown", Status::kOk, h.lockdown.empty() ? "no lockdown LSM" : "none", ""});
  } else if (h.lockdown == "integrity") {
    out.push_back({"lockdown", Status::kOk, "integrity (BPF may read kernel memory: gate's program loads)", ""});
  } else {
    out.push_back({"lockdown", Status::kFail, h.lockdown + ": the kernel refuses BPF reads of kernel memory",
                   "gate's program reads task fields (BPF_CORE_READ): boot with lockdown=integrity or none "
                   "(kernel command line), e.g. a runner without Secure Boot's lockdown"});
  }
  const std::string para = h.perf_event_paranoid ? std::to_string(*h.perf_event_paranoid) : "unknown";
  if (h.perfmon || (h.perf_event_paranoid && *h.perf_event_paranoid <= -1)) {
    out.push_back({"perf_event_paranoid", Status::kOk,
                   para + (h.perfmon ? " (not applied: CAP_PERFMON or CAP_SYS_ADMIN held)" : " (uprobe events open to all)"),
                   ""});
  } else {
    out.push_back({"perf_event_paranoid", Status::kFail,
                   para + ": uprobe perf events need CAP_PERFMON at this level",
                   "run gate as root or grant CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep $(command -v gate)); "
                   "`sysctl kernel.perf_event_paranoid=-1` opens the events but BPF still needs CAP_BPF"});
  }
  judge_container(h, out);
  return out;
}

Check judge_memory(const HostFacts& h, uint64_t worst, uint32_t functions) {
  const std::string need = "the config's maps (" + std::to_string(functions) + " functions) take at most " + mib(worst);
  // Since 5.11 the kernel charges BPF maps to the memory cgroup and ignores RLIMIT_MEMLOCK;
  // before, libbpf raises the limit to unlimited, which works when the hard limit allows it.
  const bool memcg = h.kernel_major > 5 || (h.kernel_major == 5 && h.kernel_minor >= 11);
  const std::string limit = "RLIMIT_MEMLOCK " + mib(h.memlock_soft) + " (hard " + mib(h.memlock_hard) + ")";
  if (memcg) return {"memlock", Status::kOk, need + "; " + limit + " not used: Linux >= 5.11 charges BPF maps to the memory cgroup", ""};
  if (h.memlock_soft >= worst || h.memlock_hard == UINT64_MAX || h.memlock_hard >= worst || h.can_raise_memlock)
    return {"memlock", Status::kOk, need + "; " + limit + " is enough or can be raised", ""};
  return {"memlock", Status::kFail, need + "; " + limit + " is below it and cannot be raised (Linux < 5.11 charges maps to it)",
          "raise it: `ulimit -l unlimited` as root before gate, LimitMEMLOCK=infinity in a systemd unit, "
          "or `docker run --ulimit memlock=-1:-1`"};
}

void check_config(const runner::Config& cfg, const HostFacts& h, bool attach, std::vector<Check>& out) {
  plan::ProbePlan target;
  try {
    target = plan::make_plan(cfg.binary, cfg.patterns(), analysis::EntryPolicy::kAuto, cfg.bucket_requests());
  } catch (const Error& e) {
    Check c = fail_from("binary", e);
    if (!cfg.build.empty() && access(cfg.binary.c_str(), F_OK) != 0)
      c.fix = "build it first (the config's build: " + cfg.build + "), then run gate doctor again";
    out.push_back(c);
    return;
  }
  const elf::ElfFile elf = elf::ElfFile::open(target.binary);
  const std::string symbols = target.symbol_source == "symtab" ? "symbols from .symtab"
                                                               : "stripped: symbols from .gopclntab";
  out.push_back({"binary", Status::kOk,
                 target.binary + ": Go " + target.go_version + ", x86-64, " + symbols + ", " +
                     std::to_string(target.measurable_count()) + " declared functions measurable",
                 ""});
  const plan::Inlining inl = plan::load_inlining(elf);
  size_t inlined = 0;
  for (const auto& f : target.functions) inlined += !f.inlined_at.empty();
  if (!inl.index) {
    out.push_back({"inlining", Status::kWarn, inl.note + ": calls the compiler inlined are not timed and cannot be named",
                   "keep DWARF in the binary under test (no -ldflags=-w, no strip) to see inlined calls"});
  } else {
    out.push_back({"inlining", Status::kOk,
                   "DWARF read: " + std::to_string(inlined) + " declared functions also inlined somewhere (those calls are not timed)",
                   ""});
  }
  for (const auto& w : target.warnings) out.push_back({"binary", Status::kWarn, w, ""});

  const uint32_t nfunc = static_cast<uint32_t>(target.functions.size());
  probe::EngineOptions engine;
  const uint32_t in_flight = cfg.max_in_flight ? cfg.max_in_flight : engine.max_in_flight;
  const probe::MapPlan maps = probe::plan_maps(nfunc, in_flight, engine.max_goroutines);
  try {
    probe::check_maps_fit(maps, engine.max_kernel_memory, probe::cgroup_memory_room());
    out.push_back(judge_memory(h, maps.worst_case_bytes, nfunc));
  } catch (const Error& e) {
    out.push_back(fail_from("memlock", e));
  }

  if (!attach) return;
  // One declared function's probes (all of its entry and return sites), attached and detached.
  const auto* first = [&]() -> const FunctionInfo* {
    for (const auto& f : target.functions)
      if (f.measurable) return &f;
    return nullptr;
  }();
  if (!first) return;
  std::vector<probe::SiteSpec> sites;
  for (const auto& s : target.sites)
    if (plan::decode_cookie(s.cookie).function_id == first->id) sites.push_back(s);
  try {
    probe::EngineOptions opts;
    opts.max_in_flight = 1024;  // a trial: the maps' size is checked above
    opts.max_goroutines = 1024;
    opts.g_stack_hi_offset = target.g_stack_hi_offset;
    probe::ProbeEngine trial(target.binary, nfunc, sites, opts);
    char ms[32];
    snprintf(ms, sizeof ms, "%.0f ms", trial.attach_seconds() * 1000);
    out.push_back({"attach", Status::kOk,
                   first->name + ": " + std::to_string(sites.size()) + " probes attached in " + ms + " (" +
                       probe::to_string(trial.attach_mode()) + ") and detached",
                   ""});
    out.push_back(follow_trial(trial));
  } catch (const Error& e) {
    out.push_back(fail_from("attach", e));
  }
}

int exit_code(const std::vector<Check>& checks) {
  for (const auto& c : checks)
    if (c.status == Status::kFail) return static_cast<int>(ExitCode::kMeasure);
  return 0;
}

}  // namespace gate::doctor
