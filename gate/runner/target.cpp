// Resolves a binary's declared functions and turns each into probe sites with cookies.
#include "runner/target.hpp"

#include <cstdio>
#include <filesystem>

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
  const auto resolved = analysis::resolve(table, patterns);
  for (const auto& fn : resolved) {
    FunctionInfo info;
    info.id = static_cast<uint32_t>(t.functions.size());
    info.name = fn.name;
    info.address = fn.address;
    info.size = fn.size;
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
