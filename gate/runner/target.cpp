// Resolves a binary's declared functions and turns each into probe sites with cookies.
#include "runner/target.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "analysis/inlining.hpp"
#include "common/error.hpp"
#include "elf/elf_file.hpp"

extern "C" {
#include "gate_shared.h"
}

namespace gate::runner {

namespace {

std::string hex(uint64_t v) {
  char b[32];
  snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// "main.a, main.b and 3 more": the distinct callers of a function's inlined copies.
std::string callers_of(const std::vector<analysis::InlineSite>& sites) {
  std::vector<std::string> names;
  for (const auto& s : sites)
    if (std::find(names.begin(), names.end(), s.caller) == names.end()) names.push_back(s.caller);
  constexpr size_t kShown = 5;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
  return out;
}

// An exact name with no symbol that DWARF knows only as inlined code: say so, and how to get a
// probe-able copy, instead of "no such function".
void refuse_inlined_only(const analysis::FunctionTable& table, const analysis::InlineIndex& inl,
                         const std::vector<std::string>& patterns) {
  for (const auto& text : patterns) {
    const auto p = analysis::NamePattern::parse(text);
    if (p.is_glob() || table.find_exact(p.literal())) continue;
    const std::string& name = p.literal();
    const auto sites = inl.sites_of(name);
    if (sites.empty() || inl.has_out_of_line_copy(name)) continue;
    throw Error::make("function \"" + name + "\"",
                      "exists only inlined: the compiler inlined it at " + std::to_string(sites.size()) +
                          " site(s) (callers: " + callers_of(sites) +
                          ") and kept no out-of-line copy, so it has no entry to probe",
                      "add //go:noinline on the line above `func` of " + name +
                          " to time it as a call of its own, or build the test binary with -gcflags=all=-l "
                          "(no inlining anywhere: slower code, but every function probe-able)");
  }
}

}  // namespace

size_t Target::measurable_count() const {
  size_t n = 0;
  for (const auto& f : functions) n += f.measurable;
  return n;
}

std::pair<int, int> parse_go_version(const std::string& v) {
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str(), "go%d.%d", &major, &minor) >= 2) return {major, minor};
  return {0, 0};
}

Target prepare_target(const std::string& binary, const std::vector<std::string>& patterns,
                      analysis::EntryPolicy policy) {
  namespace fs = std::filesystem;
  Target t;
  t.binary = fs::absolute(binary).lexically_normal().string();
  if (!fs::exists(t.binary)) {
    throw Error::make(t.binary, "does not exist",
                      "build it first (set build: in gate.yaml) or fix binary: in gate.yaml", ExitCode::kUsage);
  }
  const elf::ElfFile elf = elf::ElfFile::open(t.binary);
  t.go_version = elf.go_version();
  if (t.go_version.empty()) {
    throw Error::make(t.binary, "is not a Go binary (it has no Go build information)",
                      "point binary: at the Go program (or `go test -c` output) whose functions you declare");
  }
  const auto [major, minor] = parse_go_version(t.go_version);
  if (major == 1 && minor < 17) {
    throw Error::make(t.binary, "was built by " + t.go_version +
                                    "; gate needs Go >= 1.17 (the register ABI keeps the goroutine in R14)",
                      "rebuild with Go 1.17 or newer");
  }
  if (elf.arch() != elf::Arch::kX86_64) {
    throw Error::make(t.binary, "is not an x86-64 binary; gate attaches probes on x86-64 only",
                      "build the workload for GOARCH=amd64 (`gate functions` can still analyse it)");
  }
  t.build_id = elf.go_build_id().empty() ? elf.gnu_build_id() : elf.go_build_id();

  const auto table = analysis::FunctionTable::from_elf(elf);
  t.symbol_source = table.source();
  std::optional<analysis::InlineIndex> inlining;
  try {
    inlining = analysis::InlineIndex::load(elf);
    if (!inlining) t.warnings.push_back("DWARF absent: inlining cannot be checked");
  } catch (const Error& e) {
    t.warnings.push_back(std::string("DWARF unreadable: inlining cannot be checked: ") + e.what());
  }
  if (inlining) {
    refuse_inlined_only(table, *inlining, patterns);
    if (auto off = inlining->g_stack_hi_offset()) t.g_stack_hi_offset = *off;
  }
  const auto resolved = analysis::resolve(table, patterns);
  for (const auto& fn : resolved) {
    FunctionInfo info;
    info.id = static_cast<uint32_t>(t.functions.size());
    info.name = fn.name;
    info.address = fn.address;
    info.size = fn.size;
    if (inlining) {
      const auto sites = inlining->sites_of(fn.name);
      for (const auto& s : sites) info.inlined_at.push_back(analysis::describe(s));
      if (!sites.empty())
        t.warnings.push_back(fn.name + " is also inlined at " + std::to_string(sites.size()) + " site" +
                             (sites.size() == 1 ? "" : "s") + " (callers: " + callers_of(sites) +
                             "): those calls are not timed");
    }
    const auto ps = analysis::find_probe_sites(elf, table, fn, policy);
    info.measurable = ps.measurable;
    info.not_measurable_reason = ps.reason;
    if (ps.measurable) {
      info.entry_placement = analysis::to_string(ps.placement);
      info.entry_instruction = ps.entry.instruction;
      info.entry_cost_class = analysis::to_string(ps.entry.cost);
      info.entry_address = ps.entry.address;
      std::vector<probe::SiteSpec> sites;
      auto add = [&](uint64_t vaddr, int kind, int cond) {
        auto off = elf.file_offset(vaddr);
        if (!off) {
          throw Error::make(fn.name + " at " + hex(vaddr), "is not inside any loadable segment of the file",
                            "the binary looks damaged; rebuild it");
        }
        sites.push_back({*off, GATE_COOKIE(info.id, kind, cond)});
      };
      if (ps.placement == analysis::EntryPlacement::kStackCheckJump) {
        add(ps.entry.address, GATE_SITE_ENTRY_JCC, ps.jump_condition);
      } else {
        add(ps.entry.address, GATE_SITE_ENTRY, 0);
      }
      for (const auto& r : ps.returns) {
        add(r.address, GATE_SITE_RETURN, 0);
        info.return_addresses.push_back(r.address);
      }
      t.sites.insert(t.sites.end(), sites.begin(), sites.end());
    } else {
      t.warnings.push_back(fn.name + ": not measurable: " + ps.reason);
    }
    t.functions.push_back(std::move(info));
  }
  if (t.measurable_count() == 0) {
    std::string why;
    for (const auto& w : t.warnings) why += "\n  " + w;
    throw Error::make(t.binary, "none of the declared functions can be measured:" + why,
                      "declare functions that return normally (see `gate functions " + t.binary + "`)");
  }
  return t;
}

}  // namespace gate::runner
