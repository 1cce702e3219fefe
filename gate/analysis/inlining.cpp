// Reads a Go binary's DWARF (versions 2-5) with elfutils' libdw: the sections gate needs are
// inflated here (Go compresses them) into a small in-memory ELF image that libdw opens, then one
// walk over every compile unit collects the inlined calls and the layout of runtime.g.
#include "analysis/inlining.hpp"

#include <dwarf.h>  // elfutils' (DW_TAG_*, DW_AT_*, DW_FORM_*)
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/version.h>
#include <libelf.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "common/bytes.hpp"
#include "common/error.hpp"
#include "common/format.hpp"

namespace gate::analysis {
namespace {

// zlib cannot expand more than ~1032:1; anything claiming more is corrupt, and a section above
// 1 GiB is no Go binary's.
constexpr uint64_t kMaxInflateRatio = 1100;
constexpr uint64_t kMaxInflated = uint64_t{1} << 30;
// DW_TAG_lexical_block / DW_TAG_inlined_subroutine nesting: real code nests a few levels; the
// limit keeps a malicious file from exhausting the stack.
constexpr unsigned kMaxDepth = 128;
// The only sections the walk reads; .debug_loc and .debug_frame (most of the bytes) stay packed.
constexpr std::array<std::string_view, 9> kWanted = {".debug_info",      ".debug_abbrev",      ".debug_line",
                                                     ".debug_str",       ".debug_line_str",    ".debug_ranges",
                                                     ".debug_rnglists",  ".debug_str_offsets", ".debug_addr"};

// What an unreadable DWARF takes away, and what it does not: every message says so.
constexpr const char* kStillWorks =
    "functions are still listed, resolved and probed (from .symtab/.gopclntab) and their calls timed; "
    "only the inlined-call check is off, and the goroutine stack layout falls back to Go's (stack.hi at 8)";

std::string libdw_name() {
  return "libdw " + std::to_string(_ELFUTILS_VERSION / 1000) + "." + std::to_string(_ELFUTILS_VERSION % 1000);
}

// Damage gate verified itself (a zlib stream that does not inflate, impossible sizes): the file is
// corrupt, so say so.
Error corrupt(const std::string& path, const std::string& section, const std::string& what) {
  return Error::make(path, "DWARF section " + section + " is corrupt: " + what + "; " + kStillWorks,
                     "rebuild the binary (an interrupted build or copy?); to skip the check, build with "
                     "-ldflags=-w (no DWARF: gate then cannot report inlined calls)");
}

// libdw refused something: that is the library's verdict, not proof of damage (new DWARF forms
// reach a library before its distribution ships the release that reads them).
Error unreadable(const std::string& path, const std::string& section, const std::string& what) {
  const char* words = dwarf_errmsg(-1);
  return Error::make(path,
                     libdw_name() + " cannot read DWARF section " + section + " (" + what +
                         "): libdw says \"" + (words ? words : "no reason given") +
                         "\"; the binary is not necessarily damaged; " + kStillWorks,
                     "if `readelf --debug-dump=info` reads the binary, report this to gate with its Go version; "
                     "to silence it, build with -ldflags=-w");
}

std::vector<uint8_t> inflate(const std::string& path, const std::string& name, std::span<const uint8_t> packed,
                             uint64_t size) {
  if (size > kMaxInflated || size / kMaxInflateRatio > packed.size())
    throw corrupt(path, name, "claims " + std::to_string(size) + " bytes once inflated from " +
                                  std::to_string(packed.size()));
  std::vector<uint8_t> out(size);
  uLongf got = size;
  const int rc = uncompress(out.data(), &got, packed.data(), packed.size());
  if (rc != Z_OK || got != size)
    throw corrupt(path, name, std::string("its zlib stream does not inflate (zlib: ") +
                                  (rc == Z_OK ? "size mismatch" : zError(rc)) + ")");
  return out;
}

// The DWARF sections, uncompressed; entries[0] is the reserved null section of the ELF image.
struct SectionSet {
  struct Entry {
    std::string name;
    std::span<const uint8_t> bytes;
  };
  std::vector<Entry> entries{Entry{}};
  std::vector<std::vector<uint8_t>> inflated;

  bool has(std::string_view name) const {
    return std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == name; });
  }
};

// SHF_COMPRESSED sections start with an Elf64_Chdr (Go >= 1.11 writes these); .zdebug_* ones
// (older Go) with "ZLIB" and a big-endian 64-bit size.
SectionSet dwarf_sections(const elf::ElfFile& elf) {
  SectionSet set;
  for (const auto& s : elf.sections()) {
    const bool old_style = s.name.starts_with(".zdebug_");
    const std::string name = old_style ? ".debug_" + s.name.substr(8) : s.name;
    if (std::find(kWanted.begin(), kWanted.end(), name) == kWanted.end() || s.bytes.empty()) continue;
    if (set.has(name)) throw corrupt(elf.path(), name, "the binary has two of them");
    std::span<const uint8_t> bytes = s.bytes;
    if (s.flags & SHF_COMPRESSED) {
      if (bytes.size() < sizeof(Elf64_Chdr)) throw corrupt(elf.path(), s.name, "shorter than its compression header");
      const uint32_t type = static_cast<uint32_t>(load_le(bytes.data(), 4));
      if (type != ELFCOMPRESS_ZLIB)
        throw Error::make(elf.path(), s.name + " uses compression type " + std::to_string(type) + ", not zlib",
                          "link without --compress-debug-sections=zstd (Go itself writes zlib)");
      set.inflated.push_back(inflate(elf.path(), s.name, bytes.subspan(sizeof(Elf64_Chdr)),
                                     load_le(bytes.data() + offsetof(Elf64_Chdr, ch_size), 8)));
      bytes = set.inflated.back();
    } else if (old_style && bytes.size() >= 12 && std::memcmp(bytes.data(), "ZLIB", 4) == 0) {
      set.inflated.push_back(inflate(elf.path(), s.name, bytes.subspan(12), load_be(bytes.data() + 4, 8)));
      bytes = set.inflated.back();
    }
    if (!bytes.empty()) set.entries.push_back({name, bytes});
  }
  return set;
}

// ---- an in-memory ELF image of the inflated sections, for libdw ---------------------------
// libdw opens an Elf handle. Handing it the inflated sections (and only those) keeps gate's
// inflation limits in force and leaves .debug_loc and .debug_frame, most of the bytes, packed.

uint16_t machine_of(elf::Arch arch) {
  switch (arch) {
    case elf::Arch::kX86_64: return EM_X86_64;
    case elf::Arch::kArm64: return EM_AARCH64;
    default: return EM_NONE;
  }
}

// Layout: ELF header | section bytes (8-aligned) | .shstrtab | section headers.
std::vector<uint8_t> dwarf_image(const SectionSet& set, elf::Arch arch) {
  const auto align8 = [](size_t v) { return (v + 7) & ~size_t{7}; };
  std::string names(1, '\0');
  std::vector<Elf64_Shdr> headers(1, Elf64_Shdr{});
  size_t end = sizeof(Elf64_Ehdr);
  auto add = [&](const std::string& name, uint32_t type, size_t size) {
    Elf64_Shdr h{};
    h.sh_name = static_cast<uint32_t>(names.size());
    h.sh_type = type;
    h.sh_offset = end = align8(end);
    h.sh_size = size;
    h.sh_addralign = 1;
    names += name + '\0';
    headers.push_back(h);
    end += size;
  };
  for (size_t i = 1; i < set.entries.size(); ++i) add(set.entries[i].name, SHT_PROGBITS, set.entries[i].bytes.size());
  add(".shstrtab", SHT_STRTAB, names.size() + sizeof(".shstrtab"));
  const size_t shoff = align8(end);
  std::vector<uint8_t> image(shoff + headers.size() * sizeof(Elf64_Shdr));
  for (size_t i = 1; i < set.entries.size(); ++i)
    std::memcpy(&image[headers[i].sh_offset], set.entries[i].bytes.data(), set.entries[i].bytes.size());
  std::memcpy(&image[headers.back().sh_offset], names.data(), names.size());
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;  // amd64 and arm64
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;  // no relocations to apply
  eh.e_machine = machine_of(arch);
  eh.e_version = EV_CURRENT;
  eh.e_shoff = shoff;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(headers.size());
  eh.e_shstrndx = static_cast<uint16_t>(headers.size() - 1);
  std::memcpy(image.data(), &eh, sizeof eh);
  std::memcpy(&image[shoff], headers.data(), headers.size() * sizeof(Elf64_Shdr));
  return image;
}

// One libdw session over the image; the image and the Elf handle must outlive the Dwarf handle.
class Session {
 public:
  Session(const SectionSet& sections, const elf::ElfFile& file) : image_(dwarf_image(sections, file.arch())) {
    elf_version(EV_CURRENT);
    elf_ = elf_memory(reinterpret_cast<char*>(image_.data()), image_.size());
    if (!elf_)
      throw Error::make(file.path(), std::string("libelf cannot open the DWARF sections: ") + elf_errmsg(-1),
                        "report this to gate: the image is gate's own");
    dbg_ = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
    if (!dbg_) {
      elf_end(elf_);
      throw unreadable(file.path(), ".debug_info", "opening the DWARF");
    }
  }
  ~Session() {
    dwarf_end(dbg_);
    elf_end(elf_);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Dwarf* get() const { return dbg_; }

 private:
  std::vector<uint8_t> image_;
  ::Elf* elf_ = nullptr;
  Dwarf* dbg_ = nullptr;
};

}  // namespace

// ---- the walk ------------------------------------------------------------------------------

// Collects offsets during the walk and turns them into names at the end: an abstract origin may
// live in a compile unit read later (cross-package inlining).
class DwarfWalker {
 public:
  DwarfWalker(Dwarf* dbg, std::string path, InlineIndex& out) : dbg_(dbg), path_(std::move(path)), out_(out) {}

  void run() {
    Dwarf_CU* cu = nullptr;
    for (;;) {
      Dwarf_CU* next = nullptr;
      Dwarf_Half version = 0;
      uint8_t unit_type = 0;
      Dwarf_Die unit;
      const int rc = dwarf_get_units(dbg_, cu, &next, &version, &unit_type, &unit, nullptr);
      if (rc > 0) break;
      if (rc < 0)
        throw unreadable(path_, ".debug_info",
                         cu ? "the unit header after the unit at " + hex(unit_offset_) : std::string("the first unit header"));
      cu = next;
      unit_ = {version, false, {}};
      unit_offset_ = dwarf_dieoffset(&unit);
      if (dwarf_tag(&unit) != DW_TAG_compile_unit) continue;  // Go writes only compile units
      for_each_child(unit, [&](Dwarf_Die& child, int tag) {
        if (tag == DW_TAG_subprogram) subprogram(child, unit);
        if (tag == DW_TAG_structure_type) structure(child);
        if (tag == DW_TAG_typedef) typedef_of(child);
      });
    }
    resolve();
  }

 private:
  struct Pending {
    Dwarf_Off origin, caller, container;
    uint32_t file;
    int line;
    uint64_t address;
  };
  struct Member {
    uint64_t offset;
    Dwarf_Off type;
  };
  struct Struct {
    Dwarf_Off offset;
    std::map<std::string, Member, std::less<>> members;
  };
  struct Unit {
    Dwarf_Half version;
    bool files_read;
    std::vector<uint32_t> files;  // DW_AT_call_file value -> interned name (libdw numbers as the unit does)
  };

  std::string at(Dwarf_Die& d) { return "DIE at " + hex(dwarf_dieoffset(&d)) + " in the unit at " + hex(unit_offset_); }

  // Children in order. Each sibling must start after the previous one: a DW_AT_sibling that
  // points backwards would otherwise loop forever.
  template <typename F>
  void for_each_child(Dwarf_Die& parent, F&& f) {
    Dwarf_Die child;
    int rc = dwarf_child(&parent, &child);
    if (rc < 0) throw unreadable(path_, ".debug_info", "the children of the " + at(parent));
    if (rc > 0) return;
    Dwarf_Off last = dwarf_dieoffset(&parent);
    for (;;) {
      const Dwarf_Off off = dwarf_dieoffset(&child);
      if (off <= last) throw corrupt(path_, ".debug_info", "the DIE at " + hex(off) + " does not follow its sibling");
      last = off;
      f(child, dwarf_tag(&child));
      Dwarf_Die next;
      rc = dwarf_siblingof(&child, &next);
      if (rc < 0) throw unreadable(path_, ".debug_info", "the sibling of the " + at(child));
      if (rc > 0) break;
      child = next;
    }
  }

  // Names are strings in .debug_str (DWARF 5: through .debug_str_offsets) or inline.
  const char* name_of(Dwarf_Die& d) {
    const char* name = dwarf_diename(&d);
    if (!name && dwarf_hasattr(&d, DW_AT_name))
      throw unreadable(path_, unit_.version >= 5 ? ".debug_str_offsets" : ".debug_str", "the name of the " + at(d));
    return name;
  }

  // A reference (DW_FORM_ref*, ref_addr) as a global .debug_info offset.
  std::optional<Dwarf_Off> reference(Dwarf_Die& d, unsigned attribute) {
    Dwarf_Attribute a;
    if (!dwarf_attr(&d, attribute, &a)) return std::nullopt;
    Dwarf_Die target;
    if (!dwarf_formref_die(&a, &target)) throw unreadable(path_, ".debug_info", "a reference of the " + at(d));
    return dwarf_dieoffset(&target);
  }

  std::optional<uint64_t> constant(Dwarf_Die& d, unsigned attribute) {
    Dwarf_Attribute a;
    if (!dwarf_attr(&d, attribute, &a)) return std::nullopt;
    const unsigned form = dwarf_whatform(&a);
    if (form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block2 || form == DW_FORM_block4 ||
        form == DW_FORM_block)
      return std::nullopt;  // a location expression, not a constant: not what Go writes
    Dwarf_Word v = 0;
    if (dwarf_formudata(&a, &v) != 0) throw unreadable(path_, ".debug_info", "a constant of the " + at(d));
    return v;
  }

  // The lowest address of a DIE's code: DW_AT_low_pc, else the lowest of DW_AT_ranges (libdw
  // reads DWARF 4 .debug_ranges and DWARF 5 .debug_rnglists alike, base addresses included).
  std::optional<uint64_t> low_address(Dwarf_Die& d) {
    Dwarf_Addr pc = 0;
    if (dwarf_lowpc(&d, &pc) == 0) return pc;
    if (dwarf_hasattr(&d, DW_AT_low_pc))
      throw unreadable(path_, unit_.version >= 5 ? ".debug_addr" : ".debug_info", "the low_pc of the " + at(d));
    if (!dwarf_hasattr(&d, DW_AT_ranges)) return std::nullopt;
    Dwarf_Addr base = 0, start = 0, end = 0;
    uint64_t low = UINT64_MAX;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(&d, off, &base, &start, &end)) > 0)
      if (start < end) low = std::min<uint64_t>(low, start);
    if (off < 0)
      throw unreadable(path_, unit_.version >= 5 ? ".debug_rnglists" : ".debug_ranges", "the ranges of the " + at(d));
    if (low == UINT64_MAX) return std::nullopt;
    return low;
  }

  // DW_AT_call_file -> interned file name; the unit's line table is read on first use. libdw
  // numbers files as the unit's DWARF version does (from 1 before DWARF 5, from 0 in 5).
  uint32_t call_file(Dwarf_Die& unit, uint64_t index) {
    if (!unit_.files_read) {
      unit_.files_read = true;
      Dwarf_Files* files = nullptr;
      size_t count = 0;
      if (dwarf_getsrcfiles(&unit, &files, &count) != 0)
        throw unreadable(path_, ".debug_line", "the file names of the unit at " + hex(unit_offset_));
      for (size_t i = 0; i < count; ++i) {
        const char* name = dwarf_filesrc(files, i, nullptr, nullptr);
        unit_.files.push_back(out_.intern(name ? name : ""));
      }
    }
    if (unit_.version < 5 && index == 0) return out_.intern("");  // 0: no file before DWARF 5
    return index < unit_.files.size() ? unit_.files[index] : out_.intern("");
  }

  void subprogram(Dwarf_Die& d, Dwarf_Die& unit) {
    const Dwarf_Off off = dwarf_dieoffset(&d);
    if (const char* name = name_of(d)) names_[off] = out_.intern(name);
    if (auto origin = reference(d, DW_AT_abstract_origin)) origins_[off] = *origin;
    if (dwarf_hasattr(&d, DW_AT_low_pc) || dwarf_hasattr(&d, DW_AT_ranges)) concrete_.push_back(off);
    scope(d, unit, off, off, 1);
  }

  // Inlined calls nest in lexical blocks and in other inlined calls.
  void scope(Dwarf_Die& parent, Dwarf_Die& unit, Dwarf_Off caller, Dwarf_Off container, unsigned depth) {
    if (depth > kMaxDepth)
      throw corrupt(path_, ".debug_info", "inlined calls nested deeper than " + std::to_string(kMaxDepth));
    for_each_child(parent, [&](Dwarf_Die& child, int tag) {
      if (tag == DW_TAG_lexical_block) scope(child, unit, caller, container, depth + 1);
      if (tag != DW_TAG_inlined_subroutine) return;
      const auto origin = reference(child, DW_AT_abstract_origin);
      if (!origin) return;
      const auto file = constant(child, DW_AT_call_file);
      const auto line = constant(child, DW_AT_call_line);
      pending_.push_back({*origin, caller, container, file ? call_file(unit, *file) : out_.intern(""),
                          line && *line <= INT32_MAX ? static_cast<int>(*line) : 0,
                          low_address(child).value_or(0)});
      scope(child, unit, *origin, container, depth + 1);
    });
  }

  // runtime.g and runtime.stack: member offsets and types.
  void structure(Dwarf_Die& d) {
    const char* name = name_of(d);
    if (!name || (std::strcmp(name, "runtime.g") != 0 && std::strcmp(name, "runtime.stack") != 0)) return;
    Struct s{dwarf_dieoffset(&d), {}};
    for_each_child(d, [&](Dwarf_Die& child, int tag) {
      if (tag != DW_TAG_member) return;
      const char* member = name_of(child);
      const auto offset = constant(child, DW_AT_data_member_location);
      const auto type = reference(child, DW_AT_type);
      if (member && offset && type) s.members[member] = {*offset, *type};
    });
    structs_[name] = std::move(s);
  }

  // Go names each struct twice: DW_TAG_typedef "runtime.stack" -> DW_TAG_structure_type of the
  // same name; members refer to the typedef.
  void typedef_of(Dwarf_Die& d) {
    const char* name = name_of(d);
    if (!name || std::strcmp(name, "runtime.stack") != 0) return;
    if (auto type = reference(d, DW_AT_type)) stack_typedefs_[dwarf_dieoffset(&d)] = *type;
  }

  // The name of a subprogram or abstract origin; a concrete copy is named by its origin.
  std::optional<uint32_t> name_at(Dwarf_Off off) const {
    for (int hops = 0; hops < 4; ++hops) {
      if (auto it = names_.find(off); it != names_.end()) return it->second;
      auto o = origins_.find(off);
      if (o == origins_.end()) return std::nullopt;
      off = o->second;
    }
    return std::nullopt;
  }

  void resolve() {
    // Entries by name id: one map lookup per function, not per site.
    std::vector<InlineIndex::Entry*> entry(out_.names_.size(), nullptr);
    for (const auto& [off, id] : names_) entry[id] = &out_.functions_[out_.names_[id]];
    for (Dwarf_Off off : concrete_)
      if (auto id = name_at(off)) entry[*id]->out_of_line = true;
    const uint32_t none = out_.intern("");
    for (const auto& p : pending_) {
      const auto fn = name_at(p.origin);
      if (!fn) continue;
      entry[*fn]->sites.push_back(
          {name_at(p.caller).value_or(none), name_at(p.container).value_or(none), p.file, p.line, p.address});
      ++out_.total_sites_;
    }
    auto g = structs_.find("runtime.g"), stack = structs_.find("runtime.stack");
    if (g != structs_.end() && stack != structs_.end()) {
      auto field = g->second.members.find("stack");
      auto hi = stack->second.members.find("hi");
      const Dwarf_Off want = stack->second.offset;
      auto td = stack_typedefs_.find(field == g->second.members.end() ? 0 : field->second.type);
      const bool is_stack = field != g->second.members.end() &&
                            (field->second.type == want || (td != stack_typedefs_.end() && td->second == want));
      if (is_stack && hi != stack->second.members.end() && field->second.offset + hi->second.offset <= UINT32_MAX)
        out_.g_stack_hi_offset_ = static_cast<uint32_t>(field->second.offset + hi->second.offset);
    }
  }

  Dwarf* dbg_;
  std::string path_;
  InlineIndex& out_;
  Unit unit_{};
  Dwarf_Off unit_offset_ = 0;
  std::unordered_map<Dwarf_Off, uint32_t> names_;        // subprogram DIE -> DW_AT_name
  std::unordered_map<Dwarf_Off, Dwarf_Off> origins_;     // concrete subprogram -> abstract origin
  std::vector<Dwarf_Off> concrete_;                      // subprograms with code
  std::vector<Pending> pending_;
  std::map<std::string, Struct, std::less<>> structs_;
  std::map<Dwarf_Off, Dwarf_Off> stack_typedefs_;  // typedef "runtime.stack" -> its struct
};

// ---- InlineIndex ---------------------------------------------------------------------------

uint32_t InlineIndex::intern(std::string_view s) {
  if (auto it = name_ids_.find(s); it != name_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(s);
  name_ids_.emplace(std::string(s), id);
  return id;
}

std::optional<InlineIndex> InlineIndex::load(const elf::ElfFile& elf) {
  SectionSet sections = dwarf_sections(elf);
  if (!sections.has(".debug_info")) return std::nullopt;
  if (!sections.has(".debug_abbrev")) throw corrupt(elf.path(), ".debug_abbrev", "missing, but .debug_info is there");
  Session session(sections, elf);
  InlineIndex index;
  DwarfWalker(session.get(), elf.path(), index).run();
  for (auto& [name, entry] : index.functions_) {
    std::sort(entry.sites.begin(), entry.sites.end(), [&](const Site& a, const Site& b) {
      return std::tie(index.names_[a.file], a.line, a.address) < std::tie(index.names_[b.file], b.line, b.address);
    });
  }
  return index;
}

std::vector<InlineSite> InlineIndex::sites_of(std::string_view function) const {
  std::vector<InlineSite> out;
  auto it = functions_.find(function);
  if (it == functions_.end()) return out;
  for (const auto& s : it->second.sites)
    out.push_back({names_[s.caller], names_[s.container], s.address, names_[s.file], s.line});
  return out;
}

size_t InlineIndex::count_of(std::string_view function) const {
  auto it = functions_.find(function);
  return it == functions_.end() ? 0 : it->second.sites.size();
}

bool InlineIndex::knows(std::string_view function) const { return functions_.find(function) != functions_.end(); }

bool InlineIndex::has_out_of_line_copy(std::string_view function) const {
  auto it = functions_.find(function);
  return it != functions_.end() && it->second.out_of_line;
}

std::vector<std::string> InlineIndex::inlined_only() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : functions_)
    if (!entry.out_of_line && !entry.sites.empty()) out.push_back(name);
  return out;
}

std::string describe(const InlineSite& site) {
  const size_t slash = site.file.rfind('/');
  std::string where = slash == std::string::npos ? site.file : site.file.substr(slash + 1);
  if (where.empty()) where = "?";
  where += ":" + std::to_string(site.line);
  if (!site.container.empty() && site.container != site.caller) where += ", inlined into " + site.container;
  return (site.caller.empty() ? std::string("?") : site.caller) + " (" + where + ")";
}

}  // namespace gate::analysis
