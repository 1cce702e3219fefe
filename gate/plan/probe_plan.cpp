// The plan's stages: open and check the binary, resolve the declared names, refuse what exists
// only inlined, place each function's probes and give every site its cookie.
#include "plan/probe_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "analysis/inlining.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "elf/elf_file.hpp"
#include "plan/cookie.hpp"
#include "plan/dwarf.hpp"

namespace gate::plan {

namespace {

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
    const auto p = NamePattern::parse(text);
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

// The binary must exist and be an x86-64 Go >= 1.17 program (R14 holds the goroutine).
elf::ElfFile open_go_binary(ProbePlan& t) {
  namespace fs = std::filesystem;
  if (!fs::exists(t.binary)) {
    throw Error::make(t.binary, "does not exist",
                      "build it first (set build: in gate.yaml) or fix binary: in gate.yaml", ExitCode::kUsage);
  }
  elf::ElfFile elf = elf::ElfFile::open(t.binary);
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
  return elf;
}

// A function's inlined copies are calls gate cannot time: recorded, and warned about.
void note_inlined_sites(const analysis::InlineIndex& inl, FunctionInfo& info, std::vector<std::string>& warnings) {
  const auto sites = inl.sites_of(info.name);
  for (const auto& s : sites) info.inlined_at.push_back(analysis::describe(s));
  if (!sites.empty())
    warnings.push_back(info.name + " is also inlined at " + std::to_string(sites.size()) + " site" +
                       (sites.size() == 1 ? "" : "s") + " (callers: " + callers_of(sites) +
                       "): those calls are not timed");
}

// Placement: the entry probe (stack-check jump or first instruction) and a probe on every RET,
// each at its file offset with its cookie. A function without them is recorded as not measurable.
void place_probes(const elf::ElfFile& elf, const analysis::ProbeSites& ps, FunctionInfo& info, ProbePlan& t) {
  info.measurable = ps.measurable;
  info.not_measurable_reason = ps.reason;
  if (!ps.measurable) {
    t.warnings.push_back(info.name + ": not measurable: " + ps.reason);
    return;
  }
  info.entry_placement = analysis::to_string(ps.placement);
  info.entry_instruction = ps.entry.instruction;
  info.entry_cost_class = analysis::to_string(ps.entry.cost);
  info.entry_address = ps.entry.address;
  std::vector<probe::SiteSpec> sites;
  auto add = [&](uint64_t vaddr, SiteKind kind, int cond) {
    auto off = elf.file_offset(vaddr);
    if (!off) {
      throw Error::make(info.name + " at " + hex(vaddr), "is not inside any loadable segment of the file",
                        "the binary looks damaged; rebuild it");
    }
    sites.push_back({*off, encode_cookie({info.id, kind, static_cast<uint8_t>(cond)})});
  };
  if (ps.placement == analysis::EntryPlacement::kStackCheckJump) {
    add(ps.entry.address, SiteKind::kEntryJump, ps.jump_condition);
  } else {
    add(ps.entry.address, SiteKind::kEntry, 0);
  }
  for (const auto& r : ps.returns) {
    add(r.address, SiteKind::kReturn, 0);
    info.return_addresses.push_back(r.address);
  }
  t.sites.insert(t.sites.end(), sites.begin(), sites.end());
}

// Latency by argument: per bucket_by, the kernel's reading of the argument and one statistics
// series per bucket, appended after the functions (a bucket series is a copy of its function's
// info under the bucket's name, so results, reports and the verdict treat it as one more function).
void add_buckets(const elf::ElfFile& elf, const std::vector<BucketRequest>& buckets, ProbePlan& t) {
  if (buckets.empty()) return;
  const auto args = analysis::ArgIndex::load(elf);
  if (!args)
    throw Error::make(t.binary, "has no DWARF, and bucket_by (" + buckets.front().origin +
                                    ") needs it to find the argument " + buckets.front().spec.arg + " of " +
                                    buckets.front().function,
                      "build the binary without -ldflags=-w or -s (and do not strip it), or remove bucket_by");
  const size_t declared = t.functions.size();
  for (const auto& req : buckets) {
    size_t i = 0;
    while (i < declared && t.functions[i].name != req.function) ++i;
    if (i == declared || !t.functions[i].measurable)
      throw Error::make(req.origin + ": bucket_by of " + req.function,
                        i == declared ? "names no function of the binary" : "is on a function that cannot be measured",
                        "put bucket_by on an exact, measurable function name (see `gate functions " + t.binary + "`)");
    const auto* fa = args->find(req.function);
    if (!fa)
      throw Error::make(req.origin + ": bucket_by of " + req.function, "DWARF does not describe its arguments",
                        "rebuild the binary with DWARF (no -ldflags=-w), or remove bucket_by");
    probe::ArgBucketSpec spec = bucket_spec(req, *fa, t.functions[i].entry_address);
    spec.function_id = t.functions[i].id;
    spec.first_id = static_cast<uint32_t>(t.functions.size());
    for (const auto& name : bucket_names(req.function, req.spec)) {
      FunctionInfo series = t.functions[i];
      series.id = static_cast<uint32_t>(t.functions.size());
      series.name = name;
      t.functions.push_back(std::move(series));
    }
    t.arg_buckets.push_back(std::move(spec));
  }
}

}  // namespace

size_t ProbePlan::measurable_count() const {
  size_t n = 0;
  for (const auto& f : functions) n += f.measurable;
  return n;
}

std::pair<int, int> parse_go_version(const std::string& v) {
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str(), "go%d.%d", &major, &minor) >= 2) return {major, minor};
  return {0, 0};
}

ProbePlan make_plan(const std::string& binary, const std::vector<std::string>& patterns,
                    analysis::EntryPolicy policy, const std::vector<BucketRequest>& buckets) {
  ProbePlan t;
  t.binary = std::filesystem::absolute(binary).lexically_normal().string();
  const elf::ElfFile elf = open_go_binary(t);
  const auto table = analysis::FunctionTable::from_elf(elf);
  t.symbol_source = table.source();
  const Inlining inlining = load_inlining(elf);
  if (!inlining.note.empty()) t.warnings.push_back(inlining.note);
  if (inlining.index) {
    refuse_inlined_only(table, *inlining.index, patterns);
    if (auto off = inlining.index->g_stack_hi_offset()) t.g_stack_hi_offset = *off;
  }
  for (const auto& fn : analysis::resolve(table, patterns)) {
    FunctionInfo info;
    info.id = static_cast<uint32_t>(t.functions.size());
    info.name = fn.name;
    info.address = fn.address;
    info.size = fn.size;
    if (inlining.index) note_inlined_sites(*inlining.index, info, t.warnings);
    place_probes(elf, analysis::find_probe_sites(elf, table, fn, policy), info, t);
    t.functions.push_back(std::move(info));
  }
  if (t.measurable_count() == 0) {
    std::string why;
    for (const auto& w : t.warnings) why += "\n  " + w;
    throw Error::make(t.binary, "none of the declared functions can be measured:" + why,
                      "declare functions that return normally (see `gate functions " + t.binary + "`)");
  }
  add_buckets(elf, buckets, t);
  return t;
}

size_t count_calls_only(ProbePlan& plan, const std::set<uint32_t>& ids) {
  const size_t before = plan.sites.size();
  std::vector<probe::SiteSpec> kept;
  for (auto& site : plan.sites) {
    Cookie c = decode_cookie(site.cookie);
    if (!ids.count(c.function_id) || !site.path.empty()) {
      kept.push_back(site);
      continue;
    }
    if (c.kind == SiteKind::kReturn) continue;
    if (c.kind == SiteKind::kEntryJump || c.kind == SiteKind::kEntry) {
      c.count_only = true;
      site.cookie = encode_cookie(c);
    }
    kept.push_back(site);
  }
  plan.sites = std::move(kept);
  return before - plan.sites.size();
}

size_t stop_probing(ProbePlan& plan, const std::set<uint32_t>& ids) {
  return std::erase_if(plan.sites, [&](const probe::SiteSpec& site) {
    return site.path.empty() && ids.count(decode_cookie(site.cookie).function_id) > 0;
  });
}

}  // namespace gate::plan
