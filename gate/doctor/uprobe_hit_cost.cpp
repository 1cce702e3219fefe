// gate doctor's probe cost: a uprobe with a do-nothing BPF program on two functions of gate's own
// text (first instruction emulated, first instruction single-stepped), timed against no probe.
#include "doctor/uprobe_hit_cost.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "common/numbers.hpp"

// Two functions whose first instruction is known: a nop (emulated by the kernel's x86 uprobe code,
// as jmp/call/jcc are) and a mov (single-stepped out of line). Both return their argument.
asm(R"(
  .pushsection .text.gate_doctor_probe, "ax", @progbits
  .p2align 4
  .globl gate_doctor_probe_emulated
  .type gate_doctor_probe_emulated, @function
gate_doctor_probe_emulated:
  nop
  mov %rdi, %rax
  ret
  .size gate_doctor_probe_emulated, .-gate_doctor_probe_emulated
  .p2align 4
  .globl gate_doctor_probe_stepped
  .type gate_doctor_probe_stepped, @function
gate_doctor_probe_stepped:
  mov %rdi, %rax
  ret
  .size gate_doctor_probe_stepped, .-gate_doctor_probe_stepped
  .popsection
)");
extern "C" long gate_doctor_probe_emulated(long);
extern "C" long gate_doctor_probe_stepped(long);

namespace gate::doctor {
namespace {

using Fn = long (*)(long);

struct FileOffset {
  std::string path;
  uint64_t offset = 0;
};

// Where the function's first byte lies in the executable file that maps it (/proc/self/maps).
bool file_offset_of(const void* addr, FileOffset& out, std::string& why) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto a = reinterpret_cast<uint64_t>(addr);
  while (std::getline(maps, line)) {
    uint64_t lo = 0, hi = 0, off = 0;
    char perms[8] = {};
    int path_at = 0;
    if (sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &lo, &hi, perms, &off, &path_at) < 4) continue;
    if (a < lo || a >= hi) continue;
    if (path_at <= 0 || static_cast<size_t>(path_at) >= line.size() || line[path_at] != '/') {
      why = "gate's text is not mapped from a file";
      return false;
    }
    out.path = line.substr(path_at);
    out.offset = a - lo + off;
    return true;
  }
  why = "gate's own text is not in /proc/self/maps";
  return false;
}

int uprobe_pmu_type(std::string& why) {
  std::ifstream in("/sys/bus/event_source/devices/uprobe/type");
  int t = -1;
  if (!(in >> t)) why = "no uprobe PMU (/sys/bus/event_source/devices/uprobe/type): a kernel without CONFIG_UPROBE_EVENTS";
  return t;
}

// A BPF program that returns 0: the smallest thing gate's probes run.
int load_noop_program(std::string& why) {
  const bpf_insn insns[] = {
      {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},  // r0 = 0
      {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},                   // exit
  };
  const int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "gate_doctor", "GPL", insns, 2, nullptr);
  if (fd < 0) why = std::string("BPF program refused: ") + std::strerror(errno) + " (see privileges)";
  return fd;
}

// A uprobe on path+offset for this process, carrying prog_fd; -1 and why on failure.
int attach(int pmu, const FileOffset& at, int prog_fd, std::string& why) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = static_cast<uint32_t>(pmu);
  attr.config = 0;  // entry probe (bit 0 would make it a return probe)
  attr.uprobe_path = reinterpret_cast<uint64_t>(at.path.c_str());
  attr.probe_offset = at.offset;
  attr.disabled = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0 /* this process */, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    const int e = errno;
    why = std::string("uprobe refused: ") + std::strerror(e) +
          (e == EACCES || e == EPERM ? " (a perf-event uprobe: CAP_SYS_ADMIN on some kernels)" : "");
    return -1;
  }
  if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    why = std::string("uprobe with a BPF program refused: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

// ns per call of fn over `calls` calls (through a volatile pointer: never inlined nor folded).
double time_calls(Fn fn, int calls) {
  volatile Fn f = fn;
  long sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) sink += f(i);
  const auto t1 = std::chrono::steady_clock::now();
  asm volatile("" : : "r"(sink));
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / calls;
}

// Microseconds to two decimals below 10 us, whole above: "0.85 us", "12 us" (the host line).
std::string micros_2dp(double ns) {
  char b[32];
  snprintf(b, sizeof b, ns < 10000 ? "%.2f us" : "%.0f us", ns / 1000);
  return b;
}

}  // namespace

ProbeCost measure_probe_cost(int rounds, int calls) {
  ProbeCost c;
  c.rounds = rounds;
  c.calls = calls;
  const int pmu = uprobe_pmu_type(c.why_not);
  if (pmu < 0) return c;
  FileOffset emu, step;
  if (!file_offset_of(reinterpret_cast<const void*>(&gate_doctor_probe_emulated), emu, c.why_not) ||
      !file_offset_of(reinterpret_cast<const void*>(&gate_doctor_probe_stepped), step, c.why_not))
    return c;
  const int prog = load_noop_program(c.why_not);
  if (prog < 0) return c;
  struct Kind {
    Fn fn;
    const FileOffset* at;
    std::vector<double> diffs;
  } kinds[2] = {{gate_doctor_probe_emulated, &emu, {}}, {gate_doctor_probe_stepped, &step, {}}};
  for (int r = 0; r < rounds; ++r) {
    for (auto& k : kinds) {
      const double clean = time_calls(k.fn, calls);
      const int fd = attach(pmu, *k.at, prog, c.why_not);
      if (fd < 0) {
        close(prog);
        return c;
      }
      const double probed = time_calls(k.fn, calls);
      close(fd);
      const double clean_after = time_calls(k.fn, calls);
      k.diffs.push_back(probed - (clean + clean_after) / 2);
    }
  }
  close(prog);
  if (kinds[0].diffs.empty() || kinds[1].diffs.empty()) {  // rounds <= 0: nothing timed
    c.why_not = "no round measured (rounds " + std::to_string(rounds) + ")";
    return c;
  }
  c.emulated_ns = std::max(0.0, median(kinds[0].diffs));
  c.single_stepped_ns = std::max(0.0, median(kinds[1].diffs));
  c.measured = true;
  c.why_not.clear();
  return c;
}

std::string host_line(const std::string& kernel_release, const ProbeCost& c) {
  utsname u{};
  const std::string machine = uname(&u) == 0 ? u.machine : "?";
  std::ostringstream s;
  s << "Linux " << kernel_release << " " << machine << ", " << std::thread::hardware_concurrency() << " CPUs; probe hit: ";
  if (c.measured)
    s << "emulated " << micros_2dp(c.emulated_ns) << ", single-stepped " << micros_2dp(c.single_stepped_ns) << " (median of " << c.rounds
      << " rounds x " << c.calls << " calls)";
  else
    s << "not measured (" << c.why_not << ")";
  return s.str();
}

}  // namespace gate::doctor
