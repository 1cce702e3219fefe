// Native functions into the plan: find the file (the binary, or a library as ld.so would),
// resolve the names over its symbols, place an entry probe and the return probes, and give
// every site its file and cookie.
#include "plan/native_plan.hpp"

#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "analysis/native_entry.hpp"
#include "analysis/native_functions.hpp"
#include "analysis/probe_sites.hpp"
#include "common/error.hpp"
#include "common/subprocess.hpp"
#include "elf/elf_file.hpp"
#include "plan/cookie.hpp"

namespace gate::plan {

namespace fs = std::filesystem;

namespace {

struct DynamicPaths {
  std::vector<std::string> rpath, runpath;
  bool origin = false;  // some entry used $ORIGIN
  std::vector<std::string> needed;  // DT_NEEDED
  uint64_t init = 0;                // DT_INIT (vaddr), 0 = none
};

std::vector<std::string> split_paths(const std::string& s, const std::string& origin) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string p; std::getline(in, p, ':');) {
    if (p.empty()) continue;
    for (const char* tok : {"${ORIGIN}", "$ORIGIN"})
      for (size_t at; (at = p.find(tok)) != std::string::npos;) p.replace(at, std::strlen(tok), origin);
    out.push_back(p);
  }
  return out;
}

// DT_RPATH and DT_RUNPATH of the binary, from .dynamic over .dynstr.
DynamicPaths dynamic_paths(const std::string& binary) {
  DynamicPaths d;
  const auto elf = elf::ElfFile::open(binary);
  const auto dyn = elf.section(".dynamic");
  const auto str = elf.section(".dynstr");
  if (!dyn || !str) return d;
  const std::string origin = fs::path(binary).parent_path().string();
  for (size_t off = 0; off + sizeof(Elf64_Dyn) <= dyn->bytes.size(); off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn e;
    std::memcpy(&e, dyn->bytes.data() + off, sizeof e);
    if (e.d_tag == DT_NULL) break;
    if (e.d_tag == DT_INIT) d.init = e.d_un.d_ptr;
    if (e.d_tag == DT_NEEDED && e.d_un.d_val < str->bytes.size()) {
      const char* s = reinterpret_cast<const char*>(str->bytes.data()) + e.d_un.d_val;
      d.needed.emplace_back(s, strnlen(s, str->bytes.size() - e.d_un.d_val));
    }
    if ((e.d_tag != DT_RPATH && e.d_tag != DT_RUNPATH) || e.d_un.d_val >= str->bytes.size()) continue;
    const char* s = reinterpret_cast<const char*>(str->bytes.data()) + e.d_un.d_val;
    d.origin = d.origin || std::string_view(s, strnlen(s, str->bytes.size() - e.d_un.d_val)).find("ORIGIN") != std::string_view::npos;
    (e.d_tag == DT_RPATH ? d.rpath : d.runpath) = split_paths(std::string(s, strnlen(s, str->bytes.size() - e.d_un.d_val)), origin);
  }
  return d;
}

// name -> path of the x86-64 entries of the ld.so cache, as `ldconfig -p` prints them.
std::map<std::string, std::string> ld_cache() {
  std::map<std::string, std::string> out;
  for (const char* ldconfig : {"/sbin/ldconfig", "/usr/sbin/ldconfig"}) {
    if (::access(ldconfig, X_OK) != 0) continue;
    const auto r = run_process({.argv = {ldconfig, "-p"}});
    std::stringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      const size_t arrow = line.find(" => ");
      const size_t paren = line.find(" (");
      if (arrow == std::string::npos || paren == std::string::npos) continue;
      const std::string flags = line.substr(paren, arrow - paren);
      if (flags.find("x86-64") == std::string::npos) continue;
      const size_t start = line.find_first_not_of(" \t");
      out.try_emplace(line.substr(start, paren - start), line.substr(arrow + 4));
    }
    break;
  }
  return out;
}

// Every library the binary loads at start: DT_NEEDED, and theirs, as ld.so resolves them.
std::vector<std::string> linked_closure(const std::string& binary, const std::string& ld_library_path) {
  std::vector<std::string> out, todo{binary};
  while (!todo.empty() && out.size() < 512) {
    const std::string f = todo.back();
    todo.pop_back();
    DynamicPaths d;
    try {
      d = dynamic_paths(f);
    } catch (const Error&) {
      continue;
    }
    for (const auto& n : d.needed) {
      std::string p;
      try {
        p = resolve_library(n, binary, ld_library_path);
      } catch (const Error&) {
        continue;  // the workload will say so itself when it starts
      }
      if (std::find(out.begin(), out.end(), p) == out.end()) {
        out.push_back(p);
        todo.push_back(p);
      }
    }
  }
  return out;
}

bool is_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

struct Placed {
  FunctionInfo info;
  std::vector<probe::SiteSpec> sites;
};

// The entry probe and the return probes of one native function of `file` (site paths: "" for the
// binary itself).
Placed place_native(const elf::ElfFile& elf, const analysis::NativeFunction& fn, const std::string& site_path,
                    NativeReturns mode, uint32_t id) {
  Placed p;
  p.info.id = id;
  p.info.address = fn.address;
  p.info.size = fn.size;
  const bool uret = mode == NativeReturns::kUretprobe || (mode == NativeReturns::kAuto && !fn.cxx);
  // Without a size (hand-written assembly) only the first instruction can be decoded: enough for
  // a uretprobe, not for RET sites.
  const analysis::Function body{fn.symbol, fn.address, fn.size ? fn.size : (uret ? 16 : 0)};
  const analysis::FunctionTable one({body}, "native");
  const auto ps = analysis::find_probe_sites(elf, one, body, analysis::EntryPolicy::kFirstInstruction);
  p.info.entry_instruction = ps.entry.instruction;
  p.info.entry_cost_class = analysis::to_string(ps.entry.cost);
  p.info.entry_address = fn.address;
  p.info.entry_placement = uret ? "native entry + uretprobe" : "native entry + RET sites";
  std::string why;
  if (ps.entry.instruction.empty()) why = ps.reason.empty() ? "its first instruction cannot be decoded" : ps.reason;
  else if (ps.entry.cost == analysis::CostClass::kUnprobeable)
    why = "the entry instruction `" + ps.entry.instruction + "` cannot carry a uprobe (the kernel refuses it)";
  else if (!uret && !ps.measurable)
    why = ps.reason + (fn.cxx ? " (C++ and Rust functions are timed at their RET instructions: a uretprobe would "
                                "make the unwinder abort the program when an exception or a panic passes through)"
                              : "");
  if (!why.empty()) {
    p.info.measurable = false;
    p.info.not_measurable_reason = why;
    return p;
  }
  // A later emulated instruction with the same [RSP] costs far less than a single-stepped first one.
  uint64_t entry = fn.address;
  if (const auto later = analysis::cheaper_native_entry(elf, fn.address, fn.size)) {
    const analysis::Function rest{fn.symbol, *later, fn.address + fn.size - *later};
    const auto at = analysis::find_probe_sites(elf, analysis::FunctionTable({rest}, "native"), rest,
                                               analysis::EntryPolicy::kFirstInstruction);
    entry = *later;
    p.info.entry_instruction = at.entry.instruction + " (+" + std::to_string(*later - fn.address) + ", after `" +
                               ps.entry.instruction + "`)";
    p.info.entry_cost_class = analysis::to_string(at.entry.cost);
    p.info.entry_address = entry;
  }
  auto site = [&](uint64_t vaddr, SiteKind kind, bool uretprobe) {
    const auto off = elf.file_offset(vaddr);
    if (!off)
      throw Error::make(elf.path() + ": " + fn.name, "is not inside any loadable segment of the file",
                        "the file looks damaged; rebuild it");
    p.sites.push_back({*off, encode_cookie({id, kind, 0}), site_path, uretprobe});
  };
  site(entry, SiteKind::kNativeEntry, false);
  if (uret) {
    site(entry, SiteKind::kNativeUretprobe, true);
  } else {
    for (const auto& r : ps.returns) {
      site(r.address, SiteKind::kNativeReturn, false);
      p.info.return_addresses.push_back(r.address);
    }
  }
  return p;
}

}  // namespace

std::vector<std::string> unmapped_library_notes(const ProbePlan& t, const std::vector<uint64_t>& loads,
                                                const std::vector<FunctionRun>& run) {
  std::vector<std::string> out;
  for (const auto& lib : t.libraries) {
    if (lib.linked) continue;
    const std::string suffix = "@" + fs::path(lib.name).filename().string();
    std::string uncalled;
    for (const auto& f : run)
      if (f.calls == 0 && f.name.str().ends_with(suffix)) uncalled += (uncalled.empty() ? "" : ", ") + f.name.str();
    if (uncalled.empty()) continue;
    if (lib.watched < 0) {
      out.push_back(lib.path + " is not linked by the binary and has no DT_INIT to watch: gate cannot tell whether "
                    "the workload opened it (dlopen); " + uncalled + " had no calls");
    } else if (lib.watched < static_cast<int>(loads.size()) && loads[lib.watched] == 0) {
      out.push_back(lib.path + " was never mapped by the workload (not linked, and no dlopen() of it ran): " + uncalled +
                    " had no calls because nothing could call them");
    }
  }
  return out;
}

bool loads_from_origin(const std::string& binary) {
  try {
    return dynamic_paths(binary).origin;
  } catch (const Error&) {
    return false;  // not readable as ELF: the plan says so elsewhere
  }
}

NativeReturns parse_native_returns(const std::string& text) {
  if (text == "auto" || text.empty()) return NativeReturns::kAuto;
  if (text == "uretprobe") return NativeReturns::kUretprobe;
  if (text == "ret" || text == "ret_sites") return NativeReturns::kRetSites;
  throw Error::make("native_returns: " + text, "is not a way to probe native returns",
                    "use auto (uretprobe for C, RET sites for C++), uretprobe or ret_sites");
}

std::string native_display_name(const std::string& function, const std::string& library) {
  if (library.empty()) return function;
  return function + "@" + fs::path(library).filename().string();
}

std::string resolve_library(const std::string& name, const std::string& binary, const std::string& ld_library_path) {
  if (name.find('/') != std::string::npos) {
    if (is_file(name)) return fs::canonical(name).string();
    throw Error::make("library " + name, "does not exist", "give the path of the shared library file, or its file name (e.g. libc.so.6) to search like ld.so");
  }
  const auto d = dynamic_paths(binary);
  std::vector<std::string> searched;
  auto try_dirs = [&](const std::vector<std::string>& dirs, const std::string& what) -> std::string {
    for (const auto& dir : dirs) {
      const std::string p = dir + "/" + name;
      if (is_file(p)) return fs::canonical(p).string();
    }
    if (!dirs.empty()) searched.push_back(what);
    return "";
  };
  std::string found;
  if (d.runpath.empty()) found = try_dirs(d.rpath, "DT_RPATH of " + binary);
  if (found.empty()) found = try_dirs(split_paths(ld_library_path, ""), "LD_LIBRARY_PATH");
  if (found.empty()) found = try_dirs(d.runpath, "DT_RUNPATH of " + binary);
  if (found.empty()) {
    const auto cache = ld_cache();
    if (auto it = cache.find(name); it != cache.end() && is_file(it->second)) found = fs::canonical(it->second).string();
    searched.push_back("the ld.so cache");
  }
  if (found.empty())
    found = try_dirs({"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"},
                     "the default directories (/lib, /usr/lib and their x86_64-linux-gnu and 64 forms)");
  if (!found.empty()) return found;
  std::string where;
  for (const auto& s : searched) where += (where.empty() ? "" : ", ") + s;
  throw Error::make("library " + name, "is not where ld.so would look for it (searched: " + where + ")",
                    "give its path (library: ./lib/" + name + "), or set LD_LIBRARY_PATH in env: of gate.yaml as the "
                    "workload needs it");
}

void add_native_functions(ProbePlan& t, const std::vector<NativeRequest>& requests, const NativeOptions& options) {
  // Requests grouped by file, in the order first named.
  std::vector<std::pair<std::string, std::vector<const NativeRequest*>>> files;
  for (const auto& r : requests) {
    const std::string path = r.library.empty() ? t.binary : resolve_library(r.library, t.binary, options.ld_library_path);
    auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.first == path; });
    if (it == files.end()) it = files.insert(files.end(), {path, {}});
    it->second.push_back(&r);
  }
  const auto linked = files.size() > 1 || (files.size() == 1 && files[0].first != t.binary)
                          ? linked_closure(t.binary, options.ld_library_path)
                          : std::vector<std::string>{};
  int watched = 0;
  for (const auto& [path, reqs] : files) {
    const elf::ElfFile elf = elf::ElfFile::open(path);
    if (path != t.binary) {
      NativeLibrary lib{reqs.front()->library, path, std::find(linked.begin(), linked.end(), path) != linked.end()};
      // Not linked: only a dlopen() maps it. ld.so runs its DT_INIT then; a probe there counts it.
      const uint64_t init = lib.linked ? 0 : dynamic_paths(path).init;
      const auto off = init ? elf.file_offset(init) : std::nullopt;
      if (off && watched < kMaxWatchedLibraries) {
        lib.watched = watched++;
        t.sites.push_back({*off, encode_cookie({0, SiteKind::kLibraryLoaded, static_cast<uint8_t>(lib.watched)}), path, false});
      }
      t.libraries.push_back(lib);
    }
    if (elf.arch() != elf::Arch::kX86_64)
      throw Error::make(path, "is not an x86-64 ELF file; gate attaches probes on x86-64 only",
                        "point library: at the x86-64 build of the library");
    const auto symbols = analysis::native_functions(elf);
    std::vector<std::string> patterns;
    for (const auto* r : reqs) patterns.push_back(r->pattern);
    const std::string label = (path == t.binary ? "binary " : "library ") + path;
    const std::string library = reqs.front()->library;
    if (!symbols.has_symtab)
      t.warnings.push_back(path + " has no symbol table (stripped): only its exported (.dynsym) functions can be named");
    for (const auto& fn : analysis::resolve_native(symbols, patterns, label)) {
      auto placed = place_native(elf, fn, path == t.binary ? "" : path, options.returns,
                                 static_cast<uint32_t>(t.functions.size()));
      placed.info.name = native_display_name(fn.name, library);
      if (!placed.info.measurable)
        t.warnings.push_back(placed.info.name + ": not measurable: " + placed.info.not_measurable_reason);
      t.sites.insert(t.sites.end(), placed.sites.begin(), placed.sites.end());
      t.functions.push_back(std::move(placed.info));
    }
  }
}

NativeListing list_native_functions(const std::string& binary, const std::string& library,
                                    const std::vector<std::string>& patterns, const NativeOptions& options) {
  NativeListing out;
  const std::string abs = fs::absolute(binary).lexically_normal().string();
  out.file = library.empty() ? abs : resolve_library(library, abs, options.ld_library_path);
  const elf::ElfFile elf = elf::ElfFile::open(out.file);
  const auto symbols = analysis::native_functions(elf);
  out.has_symtab = symbols.has_symtab;
  out.total = symbols.functions.size();
  const auto chosen = analysis::resolve_native(symbols, patterns.empty() ? std::vector<std::string>{"*"} : patterns,
                                               (library.empty() ? "binary " : "library ") + out.file);
  for (const auto& fn : chosen) {
    auto placed = place_native(elf, fn, "", options.returns, static_cast<uint32_t>(out.functions.size()));
    placed.info.name = native_display_name(fn.name, library);
    out.functions.push_back(std::move(placed.info));
  }
  return out;
}

ProbePlan make_mixed_plan(const std::string& binary, const std::vector<std::string>& patterns,
                          analysis::EntryPolicy policy, const std::vector<BucketRequest>& buckets,
                          const std::vector<NativeRequest>& natives, const NativeOptions& options) {
  if (natives.empty() || !patterns.empty()) {
    ProbePlan t = make_plan(binary, patterns, policy, buckets);
    add_native_functions(t, natives, options);
    return t;
  }
  ProbePlan t;
  t.binary = fs::absolute(binary).lexically_normal().string();
  if (!fs::exists(t.binary))
    throw Error::make(t.binary, "does not exist",
                      "build it first (set build: in gate.yaml) or fix binary: in gate.yaml", ExitCode::kUsage);
  {
    const auto elf = elf::ElfFile::open(t.binary);
    if (elf.arch() != elf::Arch::kX86_64)
      throw Error::make(t.binary, "is not an x86-64 binary; gate attaches probes on x86-64 only",
                        "build the workload for x86-64");
    t.go_version = elf.go_version();
    t.build_id = elf.go_build_id().empty() ? elf.gnu_build_id() : elf.go_build_id();
  }
  t.symbol_source = "native";
  if (!buckets.empty())
    throw Error::make(buckets.front().origin, "bucket_by is for Go functions, and no Go function is declared",
                      "remove bucket_by");
  add_native_functions(t, natives, options);
  if (t.measurable_count() == 0) {
    std::string why;
    for (const auto& w : t.warnings) why += "\n  " + w;
    throw Error::make(t.binary, "none of the declared functions can be measured:" + why,
                      "declare functions that return normally (see `gate functions " + t.binary + " --native`)");
  }
  return t;
}

}  // namespace gate::plan
