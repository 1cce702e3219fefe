// Native (C, C++) functions in the probe plan: in the workload binary ({native: GLOB}) or in a
// shared library ({library: NAME_OR_PATH, symbol: GLOB}) found the way ld.so will find it. Each
// gets an entry uprobe and either a uretprobe or a uprobe on every RET, paired by thread and
// stack pointer in the kernel (bpf/gate.bpf.c, GATE_SITE_NATIVE_*).
#pragma once

#include <string>
#include <vector>

#include "plan/probe_plan.hpp"

namespace gate::plan {

struct NativeRequest {
  std::string library;  // "": the workload binary; else a file name ("libc.so.6") or a path
  std::string pattern;  // exact demangled name or fnmatch glob (analysis/native_functions.hpp)
  std::string origin;   // "gate.yaml:12", for errors
};

// How a native function's return is seen.
enum class NativeReturns {
  // uretprobe for C functions; RET sites for C++ ones, through which an exception may unwind: the
  // C++ unwinder finds the uretprobe trampoline where the return address was and calls
  // std::terminate (measured: a throwing call under a uretprobe kills the program).
  kAuto,
  kUretprobe,  // always the uretprobe (the cheapest here: no single-stepped instruction)
  kRetSites,   // always a uprobe on every RET (Capstone), as for Go functions
};
NativeReturns parse_native_returns(const std::string& text);  // throws gate::Error on anything else

struct NativeOptions {
  NativeReturns returns = NativeReturns::kAuto;
  // The workload's LD_LIBRARY_PATH (its env: in gate.yaml, else gate's own): searched like ld.so.
  std::string ld_library_path;
};

// The file ld.so would load for `name` when `binary` asks for it: a name containing '/' is that
// path; else DT_RPATH (when there is no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN
// expanded), /etc/ld.so.cache (ldconfig -p), then the default directories. Also what a dlopen()
// of that name from the binary finds. Throws gate::Error naming the places searched.
std::string resolve_library(const std::string& name, const std::string& binary, const std::string& ld_library_path);

// Warnings for one run: each native function of a library with no calls whose library the
// workload never mapped (a library the binary does not link, whose DT_INIT never ran), or could
// not be watched (no DT_INIT). loads: ProbeEngine::take_library_loads() after the run.
std::vector<std::string> unmapped_library_notes(const ProbePlan& t, const std::vector<uint64_t>& loads,
                                                const std::vector<FunctionRun>& run);

// Whether the binary finds shared libraries relative to its own place (DT_RUNPATH or DT_RPATH
// with $ORIGIN): a copy of it elsewhere would not start (runner/measure.hpp's fresh copy per run).
bool loads_from_origin(const std::string& binary);

// Appends the requested native functions to t (functions, sites with their file, warnings).
// Throws gate::Error: no such library, no such function, a function that cannot be probed.
void add_native_functions(ProbePlan& t, const std::vector<NativeRequest>& requests, const NativeOptions& options);

// The whole plan: make_plan's Go functions when `patterns` names any, then the native ones. With
// native functions only, the binary may be any x86-64 ELF program (C, C++, Rust, Go).
ProbePlan make_mixed_plan(const std::string& binary, const std::vector<std::string>& patterns,
                          analysis::EntryPolicy policy, const std::vector<BucketRequest>& buckets,
                          const std::vector<NativeRequest>& natives, const NativeOptions& options);

// `gate functions --native / --library`: the native functions of the binary (library "") or of
// a library it would load, those matching `patterns` (none: all), each placed as gate run would
// place it (measurable or why not). Also returns the file listed and whether it has a symtab.
struct NativeListing {
  std::string file;
  bool has_symtab = false;
  size_t total = 0;
  std::vector<FunctionInfo> functions;
};
NativeListing list_native_functions(const std::string& binary, const std::string& library,
                                    const std::vector<std::string>& patterns, const NativeOptions& options);

// "native_spin" or "qsort@libc.so.6": how a native function is named in results and reports.
std::string native_display_name(const std::string& function, const std::string& library);

}  // namespace gate::plan
