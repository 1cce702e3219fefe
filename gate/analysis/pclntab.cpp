// Reads .gopclntab (layouts of Go 1.16, 1.18 and 1.20+; see debug/gosym and runtime/symtab.go):
// the header, the function table, each _func's name and the end of its pc-to-SP table.
#include "analysis/pclntab.hpp"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <span>

#include "analysis/pclntab_table.hpp"
#include "common/bytes.hpp"
#include "common/error.hpp"
#include "common/format.hpp"

namespace gate::analysis {
namespace pclntab_detail {
namespace {

// Does a pcHeader start here? Magic, zero padding, a sane quantum and pointer size, and
// sub-table offsets that increase and stay inside the data: a stray 0xfffffff1 fails this.
bool plausible_header(std::span<const uint8_t> b) {
  if (b.size() < 8 + 8 * 8) return false;
  const uint32_t magic = static_cast<uint32_t>(load_le(b.data(), 4));
  if (magic != kMagicGo116 && magic != kMagicGo118 && magic != kMagicGo120) return false;
  if (b[4] != 0 || b[5] != 0 || (b[6] != 1 && b[6] != 2 && b[6] != 4) || b[7] != 8) return false;
  auto word = [&](unsigned i) { return load_le(b.data() + 8 + 8 * i, 8); };
  const unsigned first = magic == kMagicGo116 ? 2 : 3;  // funcnametab .. functab
  if (word(0) == 0 || word(0) > b.size() / 8) return false;
  for (unsigned i = first; i < first + 5; ++i)
    if (word(i) >= b.size() || (i > first && word(i) <= word(i - 1))) return false;
  return true;
}

// Little-endian 64-bit only: the targets gate probes (amd64, arm64).
std::optional<std::span<const uint8_t>> scan_for_header(std::span<const uint8_t> data) {
  for (size_t off = 0; off + 8 <= data.size(); off += 8)
    if (data[off + 1] == 0xff && plausible_header(data.subspan(off))) return data.subspan(off);
  return std::nullopt;
}

// The table's bytes and the virtual address they are loaded at.
struct Located {
  std::span<const uint8_t> bytes;
  uint64_t address = 0;
};

// The internal linker writes a .gopclntab section (.data.rel.ro.gopclntab for PIE); an external
// link (cgo, -linkmode=external) before Go 1.26 merges it into .data.rel.ro or .rodata: find its
// header there.
std::optional<Located> pclntab_bytes(const elf::ElfFile& elf) {
  for (const char* name : {".gopclntab", ".data.rel.ro.gopclntab"})
    if (auto s = elf.section(name); s && !s->bytes.empty()) return Located{s->bytes, s->address};
  for (const char* name : {".data.rel.ro", ".rodata"})
    if (auto s = elf.section(name))
      if (auto found = scan_for_header(s->bytes))
        return Located{*found, s->address + static_cast<uint64_t>(found->data() - s->bytes.data())};
  return std::nullopt;
}

// ---- Go >= 1.26: the header no longer holds textStart ----------------------------------------
// The runtime reads runtime.text from its moduledata instead (runtime/symtab.go): the first
// module's moduledata starts with a pointer to the pclntab header, and its `text` field sits after
// that pointer, six slices, findfunctab, minpc and maxpc; `etext` follows.
constexpr uint64_t kModuledataText = 8 + 6 * 24 + 3 * 8;

// Pointers as the file holds them: literally (ET_EXEC), or, in PIE builds, as the addends of
// R_*_RELATIVE dynamic relocations (the file's own bytes there may be zero).
std::vector<uint64_t> moduledata_by_value(const elf::ElfFile& elf, uint64_t header, unsigned count) {
  for (const auto& s : elf.sections()) {
    if (s.bytes.size() < 8 * uint64_t{count} || !(s.flags & SHF_WRITE)) continue;
    for (uint64_t off = 0; off + 8 * uint64_t{count} <= s.bytes.size(); off += 8)
      if (load_le(&s.bytes[off], 8) == header) {
        std::vector<uint64_t> words(count);
        for (unsigned i = 0; i < count; ++i) words[i] = load_le(&s.bytes[off + 8 * i], 8);
        return words;
      }
  }
  return {};
}

std::vector<uint64_t> moduledata_by_relocation(const elf::ElfFile& elf, uint64_t header, unsigned count) {
  std::map<uint64_t, uint64_t> relative;  // relocated address -> addend (the pointer's value)
  uint64_t at = UINT64_MAX;
  for (const auto& s : elf.sections()) {
    if (s.type != SHT_RELA) continue;
    for (uint64_t off = 0; off + 24 <= s.bytes.size(); off += 24) {
      const uint32_t type = static_cast<uint32_t>(load_le(&s.bytes[off + 8], 4));
      if (type != R_X86_64_RELATIVE && type != R_AARCH64_RELATIVE) continue;
      const uint64_t where = load_le(&s.bytes[off], 8), addend = load_le(&s.bytes[off + 16], 8);
      relative[where] = addend;
      if (addend == header && at == UINT64_MAX) at = where;
    }
  }
  if (at == UINT64_MAX) return {};
  std::vector<uint64_t> words(count);
  for (unsigned i = 0; i < count; ++i)
    if (auto w = relative.find(at + 8 * uint64_t{i}); w != relative.end()) words[i] = w->second;
  return words;
}

bool in_executable_segment(const elf::ElfFile& elf, uint64_t address) {
  const auto& segs = elf.load_segments();
  return std::any_of(segs.begin(), segs.end(), [&](const elf::LoadSegment& s) {
    return s.executable && address >= s.vaddr && address - s.vaddr < s.memsz;
  });
}

// runtime.text for a header without textStart. Go's own tools (cmd/internal/objfile) take the
// .text section's address, which is wrong after an external link: the C start-up code comes first.
std::optional<uint64_t> text_start_from_moduledata(const elf::ElfFile& elf, uint64_t header) {
  constexpr unsigned kText = kModuledataText / 8;
  for (const auto& words : {moduledata_by_value(elf, header, kText + 2), moduledata_by_relocation(elf, header, kText + 2)})
    if (!words.empty() && words[kText + 1] > words[kText] && in_executable_segment(elf, words[kText]))
      return words[kText];
  return std::nullopt;
}

PclntabVersion version_of(uint32_t magic, const std::string& path) {
  switch (magic) {
    case kMagicGo116: return PclntabVersion::kGo116;
    case kMagicGo118: return PclntabVersion::kGo118;
    case kMagicGo120: return PclntabVersion::kGo120;
    case kMagicGo12:
      throw Error::make(path, "its .gopclntab has the Go 1.2-1.15 layout (magic 0xfffffffb), which gate does not read",
                        "build with Go 1.16 or later, or keep the symbol table (drop -ldflags=-s)");
    default:
      throw Error::make(path,
                        "unknown .gopclntab magic " + hex32(magic) +
                            " (a Go release newer than this gate knows, or not a Go binary)",
                        "keep the symbol table (build without -ldflags=-s), or update gate");
  }
}

Error layout_error(const elf::ElfFile& elf, const std::string& what) {
  return Error::make(elf.path(),
                     "its .gopclntab header has a known magic but " + what +
                         ": a layout this gate does not know (a newer Go release?)",
                     "keep the symbol table (build without -ldflags=-s), or update gate");
}

Layout read_layout(const TableReader& r, std::span<const uint8_t> bytes, const elf::ElfFile& elf) {
  if (bytes.size() < 16) r.fail("the header is shorter than 16 bytes");
  Layout l{version_of(r.u32(0), elf.path())};  // the reader already applied the byte order
  l.quantum = bytes[6];
  l.ptr_size = bytes[7];
  if (bytes[4] != 0 || bytes[5] != 0 || (l.quantum != 1 && l.quantum != 2 && l.quantum != 4) ||
      (l.ptr_size != 4 && l.ptr_size != 8))
    r.fail("bad header (padding, pc quantum or pointer size)");
  auto word = [&](unsigned i) { return r.uint(8 + uint64_t{i} * l.ptr_size, l.ptr_size); };
  l.nfunc = word(0);
  // A known magic over a changed layout (a field added or removed) shows as sub-table offsets
  // that stop increasing: refuse it by name rather than read garbage.
  const unsigned first = l.version == PclntabVersion::kGo116 ? 2 : 3;  // funcnametab .. functab
  for (unsigned i = first; i < first + 5; ++i)
    if (word(i) >= bytes.size() || (i > first && word(i) <= word(i - 1)))
      throw layout_error(elf, "its sub-table offsets are not increasing");
  if (l.nfunc == 0 || l.nfunc > bytes.size() / 8) throw layout_error(elf, "its function count is implausible");
  if (l.version == PclntabVersion::kGo116) {
    l.funcnametab = word(2), l.cutab = word(3), l.filetab = word(4), l.pctab = word(5), l.functab = word(6);
    l.functab_field = l.func_entry_size = l.ptr_size;
  } else {
    l.text_start = word(2), l.funcnametab = word(3), l.cutab = word(4), l.filetab = word(5), l.pctab = word(6);
    l.functab = word(7);
  }
  return l;
}

// The runtime's table keeps the middle dot of some runtime names ("runtime.untracedG·4"); the
// ELF symbol table writes '.' instead. Users copy names from nm/objdump: spell them that way.
std::string symtab_spelling(std::string name) {
  static constexpr std::string_view kMiddleDot = "\xc2\xb7";
  for (size_t at = name.find(kMiddleDot); at != std::string::npos; at = name.find(kMiddleDot, at + 1))
    name.replace(at, kMiddleDot.size(), ".");
  return name;
}

// The pc-to-SP table covers exactly the function's code: its end is where the code ends.
uint64_t pcsp_end(const TableReader& r, const Layout& l, uint64_t entry, uint32_t pcsp) {
  uint64_t off = l.pctab + pcsp, pc = entry;
  for (bool first = true;; first = false) {
    const uint32_t value_delta = r.varint(off);
    if (value_delta == 0 && !first) return pc;
    pc += uint64_t{r.varint(off)} * l.quantum;
  }
}

Function read_function(const TableReader& r, const Layout& l, uint64_t i) {
  const uint64_t entry = functab_pc(r, l, i);
  const uint64_t next = functab_pc(r, l, i + 1);  // entry i+1; the table's end PC for the last one
  const uint64_t func = func_record(r, l, i);
  // _func: entry, nameoff, args, deferreturn, pcsp, ... (fields after the entry are 4 bytes)
  const uint32_t nameoff = r.u32(func + l.func_entry_size);
  const uint32_t pcsp = r.u32(func + l.func_entry_size + 12);
  uint64_t end = next;
  if (pcsp != 0) end = std::min(next, pcsp_end(r, l, entry, pcsp));
  if (end < entry) r.fail("function table is not sorted by address");
  return {symtab_spelling(r.cstring(l.funcnametab + nameoff)), entry, end - entry};
}

}  // namespace

OpenTable open_table(const elf::ElfFile& elf) {
  auto found = pclntab_bytes(elf);
  if (!found)
    throw Error::make(elf.path(), "no .gopclntab: not a Go binary (or its section headers were removed)",
                      "point gate at a Go executable built by `go build`");
  // The byte order is whichever one makes the magic a known value.
  const auto b = found->bytes;
  const bool big_endian = b.size() >= 4 && (b[0] == 0xff && b[1] == 0xff && b[2] == 0xff) && b[3] != 0xff;
  TableReader r(b, big_endian, elf.path());
  Layout l = read_layout(r, b, elf);
  // 0: Go >= 1.26 (the field is unused) or a linker that left it unrelocated. The moduledata
  // knows; failing that, .text starts at runtime.text in an internal link.
  if (l.version != PclntabVersion::kGo116 && l.text_start == 0) {
    if (auto text = text_start_from_moduledata(elf, found->address))
      l.text_start = *text;
    else if (auto section = elf.section(".text"))
      l.text_start = section->address;
  }
  return {b, found->address, l, r};
}

std::vector<uint64_t> moduledata_words(const elf::ElfFile& elf, uint64_t header, unsigned count) {
  if (auto words = moduledata_by_value(elf, header, count); !words.empty()) return words;
  return moduledata_by_relocation(elf, header, count);
}

}  // namespace pclntab_detail

const char* to_string(PclntabVersion v) {
  switch (v) {
    case PclntabVersion::kGo116: return "go1.16";
    case PclntabVersion::kGo118: return "go1.18";
    case PclntabVersion::kGo120: return "go1.20";
  }
  return "?";
}

bool has_pclntab(const elf::ElfFile& elf) { return pclntab_detail::pclntab_bytes(elf).has_value(); }

Pclntab read_pclntab(const elf::ElfFile& elf) {
  using namespace pclntab_detail;
  const OpenTable open = open_table(elf);
  const TableReader& r = open.reader;
  const Layout& l = open.layout;
  Pclntab t{l.version, l.text_start, {}};
  t.functions.reserve(l.nfunc);
  for (uint64_t i = 0; i < l.nfunc; ++i) {
    Function f = read_function(r, l, i);
    // Go >= 1.24 brackets the FIPS 140 module's code with one-byte markers that the table lists
    // like functions (with no pc-to-SP table, so no size of their own): they are not code to probe.
    if (f.name == "go:textfipsstart" || f.name == "go:textfipsend") continue;
    t.functions.push_back(std::move(f));
  }
  if (!in_executable_segment(elf, t.functions.front().address))
    throw layout_error(elf, "its first function entry is not in executable code");
  return t;
}

}  // namespace gate::analysis
