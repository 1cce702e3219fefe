// Reads a Go binary's DWARF with libdwarf through an in-memory object interface: the sections
// gate needs are inflated here (Go compresses them), then one walk over every compile unit
// collects the inlined calls (DW_TAG_inlined_subroutine) and the layout of runtime.g.
#include "analysis/inlining.hpp"

#include <elf.h>
#include <zlib.h>

// libdwarf.h needs dwarf.h's constants first.
#include <dwarf.h>
#include <libdwarf.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "common/error.hpp"

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

constexpr const char* kCorruptFix =
    "rebuild the binary; if it is intact, report this. To skip the check, build with -ldflags=-w "
    "(no DWARF: gate then cannot report inlined calls)";

Error corrupt(const std::string& path, const std::string& what) {
  return Error::make(path, "unreadable DWARF: " + what, kCorruptFix);
}

uint64_t load_le(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

uint64_t load_be(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

std::vector<uint8_t> inflate(const std::string& path, const std::string& name, std::span<const uint8_t> packed,
                             uint64_t size) {
  if (size > kMaxInflated || size / kMaxInflateRatio > packed.size())
    throw corrupt(path, name + " claims " + std::to_string(size) + " bytes once inflated from " +
                            std::to_string(packed.size()));
  std::vector<uint8_t> out(size);
  uLongf got = size;
  const int rc = uncompress(out.data(), &got, packed.data(), packed.size());
  if (rc != Z_OK || got != size)
    throw corrupt(path, name + " does not inflate (zlib: " + (rc == Z_OK ? "size mismatch" : zError(rc)) + ")");
  return out;
}

// The DWARF sections, uncompressed, in libdwarf's ELF-like numbering: index 0 is reserved.
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

// ---- guards for libdwarf 20210528 -------------------------------------------------------------
// Debian 12's libdwarf has memory-safety bugs on some malformed input (found by tests/fuzz). Each
// guard below checks, before libdwarf sees a section, exactly what the buggy path trips on, and
// turns it into an ordinary "unreadable DWARF" error.

// dwarf_load_rnglists (run for every unit header) frees its list twice when a .debug_rnglists
// header cannot be read: require every header to be complete and valid.
std::optional<std::string> rnglists_problem(std::span<const uint8_t> b) {
  for (uint64_t off = 0; off < b.size();) {
    const uint64_t left = b.size() - off;
    if (left < 4) return "truncated unit length at " + std::to_string(off);
    uint64_t length = load_le(&b[off], 4), length_size = 4;
    if (length == 0xffffffff) {
      if (left < 12) return "truncated 64-bit unit length at " + std::to_string(off);
      length = load_le(&b[off + 4], 8);
      length_size = 12;
    } else if (length >= 0xfffffff0) {
      return "reserved unit length at " + std::to_string(off);
    }
    if (length > b.size()) return "unit at " + std::to_string(off) + " longer than the section";
    // version (2), address_size (1), segment_selector_size (1), offset_entry_count (4)
    if (left - length_size < 8) return "truncated header at " + std::to_string(off);
    const uint8_t* h = &b[off + length_size];
    if (load_le(h, 2) != 5) return "version is not 5 at " + std::to_string(off);
    if (h[2] != 2 && h[2] != 4 && h[2] != 8) return "bad address size at " + std::to_string(off);
    off += length_size + length;
  }
  return std::nullopt;
}

void guard_libdwarf(const SectionSet& set, const std::string& path) {
  for (const auto& e : set.entries)
    if (e.name == ".debug_rnglists")
      if (auto problem = rnglists_problem(e.bytes)) throw corrupt(path, ".debug_rnglists: " + *problem);
}

// SHF_COMPRESSED sections start with an Elf64_Chdr (Go >= 1.11 writes these); .zdebug_* ones
// (older Go) with "ZLIB" and a big-endian 64-bit size.
SectionSet dwarf_sections(const elf::ElfFile& elf) {
  SectionSet set;
  for (const auto& s : elf.sections()) {
    const bool old_style = s.name.starts_with(".zdebug_");
    const std::string name = old_style ? ".debug_" + s.name.substr(8) : s.name;
    if (std::find(kWanted.begin(), kWanted.end(), name) == kWanted.end() || s.bytes.empty()) continue;
    if (set.has(name)) throw corrupt(elf.path(), "two " + name + " sections");
    std::span<const uint8_t> bytes = s.bytes;
    if (s.flags & SHF_COMPRESSED) {
      if (bytes.size() < sizeof(Elf64_Chdr)) throw corrupt(elf.path(), s.name + " is shorter than its header");
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

// ---- libdwarf object interface over a SectionSet -------------------------------------------

SectionSet& set_of(void* obj) { return *static_cast<SectionSet*>(obj); }

int get_section_info(void* obj, Dwarf_Half index, Dwarf_Obj_Access_Section* out, int* error) {
  const auto& set = set_of(obj);
  if (index >= set.entries.size()) {
    *error = DW_DLE_SECTION_INDEX_BAD;
    return DW_DLV_ERROR;
  }
  const auto& e = set.entries[index];
  *out = {};
  out->type = index == 0 ? SHT_NULL : SHT_PROGBITS;
  out->size = e.bytes.size();
  out->name = e.name.c_str();
  return DW_DLV_OK;
}

Dwarf_Endianness get_byte_order(void*) { return DW_OBJECT_LSB; }  // amd64 and arm64
Dwarf_Small get_length_size(void*) { return 4; }
Dwarf_Small get_pointer_size(void*) { return 8; }
Dwarf_Unsigned get_section_count(void* obj) { return set_of(obj).entries.size(); }

int load_section(void* obj, Dwarf_Half index, Dwarf_Small** data, int* error) {
  const auto& set = set_of(obj);
  if (index == 0 || index >= set.entries.size()) {
    *error = DW_DLE_SECTION_INDEX_BAD;
    return DW_DLV_ERROR;
  }
  // libdwarf only reads through this pointer.
  *data = const_cast<Dwarf_Small*>(set.entries[index].bytes.data());
  return DW_DLV_OK;
}

constexpr Dwarf_Obj_Access_Methods kMethods = {get_section_info, get_byte_order,    get_length_size,
                                               get_pointer_size, get_section_count, load_section,
                                               nullptr};

// One libdwarf session; the interface struct must outlive it (libdwarf keeps a pointer).
class Session {
 public:
  Session(SectionSet& sections, const std::string& path) : iface_{&sections, &kMethods} {
    Dwarf_Error err = nullptr;
    const int rc = dwarf_object_init_b(&iface_, nullptr, nullptr, DW_GROUPNUMBER_ANY, &dbg_, &err);
    if (rc == DW_DLV_ERROR) {
      const std::string msg = err ? dwarf_errmsg(err) : "unknown error";
      dwarf_dealloc_error(nullptr, err);
      throw corrupt(path, msg);
    }
    if (rc != DW_DLV_OK) dbg_ = nullptr;
  }
  ~Session() {
    if (!dbg_) return;
    Dwarf_Error err = nullptr;
    if (dwarf_object_finish(dbg_, &err) == DW_DLV_ERROR) dwarf_dealloc_error(nullptr, err);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Dwarf_Debug get() const { return dbg_; }

 private:
  Dwarf_Obj_Access_Interface iface_;
  Dwarf_Debug dbg_ = nullptr;
};

// A DIE released on every path.
class Die {
 public:
  Die() = default;
  explicit Die(Dwarf_Die d) : d_(d) {}
  Die(Die&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  Die& operator=(Die&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }
  ~Die() {
    if (d_) dwarf_dealloc_die(d_);
  }
  Dwarf_Die get() const { return d_; }
  Dwarf_Die* out() { return &d_; }
  explicit operator bool() const { return d_ != nullptr; }

 private:
  Dwarf_Die d_ = nullptr;
};

class Attribute {
 public:
  Attribute() = default;
  Attribute(const Attribute&) = delete;
  Attribute& operator=(const Attribute&) = delete;
  ~Attribute() {
    if (a_) dwarf_dealloc_attribute(a_);
  }
  Dwarf_Attribute get() const { return a_; }
  Dwarf_Attribute* out() { return &a_; }

 private:
  Dwarf_Attribute a_ = nullptr;
};

}  // namespace

// ---- the walk ------------------------------------------------------------------------------

// Collects offsets during the walk and turns them into names at the end: an abstract origin may
// live in a compile unit read later (cross-package inlining).
class DwarfWalker {
 public:
  DwarfWalker(Dwarf_Debug dbg, std::string path, InlineIndex& out) : dbg_(dbg), path_(std::move(path)), out_(out) {}

  void run() {
    for (;;) {  // ends at DW_DLV_NO_ENTRY (no more units) or an error
      Dwarf_Unsigned header_length = 0, type_offset = 0, next = 0;
      Dwarf_Half version = 0, address_size = 0, length_size = 0, extension_size = 0, unit_type = 0;
      Dwarf_Off abbrev_offset = 0;
      Dwarf_Sig8 signature;
      Dwarf_Error err = nullptr;
      const int rc = dwarf_next_cu_header_d(dbg_, true, &header_length, &version, &abbrev_offset, &address_size,
                                            &length_size, &extension_size, &signature, &type_offset, &next,
                                            &unit_type, &err);
      if (!check(rc, err, "a compile unit header")) break;
      Die unit;
      if (!check(dwarf_siblingof_b(dbg_, nullptr, true, unit.out(), &err), err, "a compile unit")) continue;
      unit_ = {version, 0, false, {}};
      Dwarf_Addr base = 0;
      if (check(dwarf_lowpc(unit.get(), &base, &err), err, "a compile unit's low_pc")) unit_.base = base;
      for_each_child(unit, [&](Die& child, Dwarf_Half tag) {
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
    uint64_t base;
    bool files_read;
    std::vector<uint32_t> files;  // line-table file index -> interned name
  };

  // DW_DLV_OK: true; DW_DLV_NO_ENTRY: false; DW_DLV_ERROR: the whole read fails, naming `what`.
  bool check(int rc, Dwarf_Error& err, const char* what) {
    if (rc == DW_DLV_OK) return true;
    if (rc == DW_DLV_NO_ENTRY) return false;
    const std::string msg = err ? dwarf_errmsg(err) : "unknown error";
    dwarf_dealloc_error(dbg_, err);
    err = nullptr;
    throw corrupt(path_, std::string("reading ") + what + ": " + msg);
  }

  Dwarf_Off offset_of(const Die& d) {
    Dwarf_Off off = 0;
    Dwarf_Error err = nullptr;
    check(dwarf_dieoffset(d.get(), &off, &err), err, "a DIE offset");
    return off;
  }

  // Children in order. Each sibling must start after the previous one: a DW_AT_sibling that
  // points backwards would otherwise loop forever.
  template <typename F>
  void for_each_child(const Die& parent, F&& f) {
    Dwarf_Error err = nullptr;
    Die child;
    if (!check(dwarf_child(parent.get(), child.out(), &err), err, "a DIE's children")) return;
    Dwarf_Off last = offset_of(parent);
    while (child) {
      const Dwarf_Off off = offset_of(child);
      if (off <= last) throw corrupt(path_, "DIE at " + std::to_string(off) + " does not follow its sibling");
      last = off;
      Dwarf_Half tag = 0;
      check(dwarf_tag(child.get(), &tag, &err), err, "a DIE tag");
      f(child, tag);
      Die next;
      if (!check(dwarf_siblingof_b(dbg_, child.get(), true, next.out(), &err), err, "a DIE's sibling")) break;
      child = std::move(next);
    }
  }

  const char* name_of(const Die& d) {
    char* name = nullptr;
    Dwarf_Error err = nullptr;
    return check(dwarf_diename(d.get(), &name, &err), err, "a DIE name") ? name : nullptr;
  }

  // A reference (DW_FORM_ref*, ref_addr, sec_offset) as a global offset.
  std::optional<Dwarf_Off> reference(const Die& d, Dwarf_Half at) {
    Attribute a;
    Dwarf_Error err = nullptr;
    if (!check(dwarf_attr(d.get(), at, a.out(), &err), err, "an attribute")) return std::nullopt;
    Dwarf_Off off = 0;
    if (!check(dwarf_global_formref(a.get(), &off, &err), err, "a reference")) return std::nullopt;
    return off;
  }

  std::optional<uint64_t> constant(const Die& d, Dwarf_Half at) {
    Attribute a;
    Dwarf_Error err = nullptr;
    if (!check(dwarf_attr(d.get(), at, a.out(), &err), err, "an attribute")) return std::nullopt;
    Dwarf_Half form = 0;
    check(dwarf_whatform(a.get(), &form, &err), err, "an attribute form");
    if (form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block2 || form == DW_FORM_block4 ||
        form == DW_FORM_block)
      return std::nullopt;  // a location expression, not a constant: not what Go writes
    Dwarf_Unsigned v = 0;
    if (!check(dwarf_formudata(a.get(), &v, &err), err, "a constant")) return std::nullopt;
    return v;
  }

  // The lowest address of a DIE's code: DW_AT_low_pc, else the first range of DW_AT_ranges.
  std::optional<uint64_t> low_address(const Die& d) {
    Dwarf_Addr pc = 0;
    Dwarf_Error err = nullptr;
    if (check(dwarf_lowpc(d.get(), &pc, &err), err, "a low_pc")) return pc;
    Attribute a;
    if (!check(dwarf_attr(d.get(), DW_AT_ranges, a.out(), &err), err, "DW_AT_ranges")) return std::nullopt;
    Dwarf_Off off = 0;
    if (!check(dwarf_global_formref(a.get(), &off, &err), err, "DW_AT_ranges")) return std::nullopt;
    Dwarf_Ranges* ranges = nullptr;
    Dwarf_Signed count = 0;
    Dwarf_Unsigned bytes = 0;
    Dwarf_Off real = 0;
    if (!check(dwarf_get_ranges_b(dbg_, off, d.get(), &real, &ranges, &count, &bytes, &err), err, "a range list"))
      return std::nullopt;
    // DWARF 4 .debug_ranges entries are offsets from the unit's base address.
    uint64_t base = unit_.base, low = UINT64_MAX;
    for (Dwarf_Signed i = 0; i < count; ++i) {
      const Dwarf_Ranges& r = ranges[i];
      if (r.dwr_type == DW_RANGES_ADDRESS_SELECTION) base = r.dwr_addr2;
      if (r.dwr_type == DW_RANGES_ENTRY && r.dwr_addr1 < r.dwr_addr2) low = std::min<uint64_t>(low, base + r.dwr_addr1);
    }
    dwarf_ranges_dealloc(dbg_, ranges, count);
    if (low == UINT64_MAX) return std::nullopt;
    return low;
  }

  // DW_AT_call_file -> interned file name; the unit's line table is read on first use.
  uint32_t call_file(const Die& unit, uint64_t index) {
    if (!unit_.files_read) {
      unit_.files_read = true;
      char** files = nullptr;
      Dwarf_Signed count = 0;
      Dwarf_Error err = nullptr;
      if (check(dwarf_srcfiles(unit.get(), &files, &count, &err), err, "a line table's files")) {
        for (Dwarf_Signed i = 0; i < count; ++i) {
          unit_.files.push_back(out_.intern(files[i] ? files[i] : ""));
          dwarf_dealloc(dbg_, files[i], DW_DLA_STRING);
        }
        dwarf_dealloc(dbg_, files, DW_DLA_LIST);
      }
    }
    // DWARF 2-4 number files from 1 (0: none); DWARF 5 from 0.
    if (unit_.version < 5) {
      if (index == 0) return out_.intern("");
      --index;
    }
    return index < unit_.files.size() ? unit_.files[index] : out_.intern("");
  }

  void subprogram(const Die& d, const Die& unit) {
    const Dwarf_Off off = offset_of(d);
    if (const char* name = name_of(d)) names_[off] = out_.intern(name);
    if (auto origin = reference(d, DW_AT_abstract_origin)) origins_[off] = *origin;
    Dwarf_Addr pc = 0;
    Dwarf_Error err = nullptr;
    if (check(dwarf_lowpc(d.get(), &pc, &err), err, "a low_pc")) concrete_.push_back(off);
    scope(d, unit, off, off, 1);
  }

  // Inlined calls nest in lexical blocks and in other inlined calls.
  void scope(const Die& parent, const Die& unit, Dwarf_Off caller, Dwarf_Off container, unsigned depth) {
    if (depth > kMaxDepth) throw corrupt(path_, "inlined calls nested deeper than " + std::to_string(kMaxDepth));
    for_each_child(parent, [&](Die& child, Dwarf_Half tag) {
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
  void structure(const Die& d) {
    const char* name = name_of(d);
    if (!name || (std::strcmp(name, "runtime.g") != 0 && std::strcmp(name, "runtime.stack") != 0)) return;
    Struct s{offset_of(d), {}};
    for_each_child(d, [&](Die& child, Dwarf_Half tag) {
      if (tag != DW_TAG_member) return;
      const char* member = name_of(child);
      const auto at = constant(child, DW_AT_data_member_location);
      const auto type = reference(child, DW_AT_type);
      if (member && at && type) s.members[member] = {*at, *type};
    });
    structs_[name] = std::move(s);
  }

  // Go names each struct twice: DW_TAG_typedef "runtime.stack" -> DW_TAG_structure_type of the
  // same name; members refer to the typedef.
  void typedef_of(const Die& d) {
    const char* name = name_of(d);
    if (!name || std::strcmp(name, "runtime.stack") != 0) return;
    if (auto type = reference(d, DW_AT_type)) stack_typedefs_[offset_of(d)] = *type;
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

  Dwarf_Debug dbg_;
  std::string path_;
  InlineIndex& out_;
  Unit unit_{};
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
  if (!sections.has(".debug_abbrev")) throw corrupt(elf.path(), ".debug_info without .debug_abbrev");
  guard_libdwarf(sections, elf.path());
  Session session(sections, elf.path());
  if (!session.get()) return std::nullopt;  // libdwarf found no DWARF in them
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
