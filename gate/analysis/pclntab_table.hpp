// Internals of the .gopclntab reader shared by pclntab.cpp (the function table) and
// pc_lines.cpp (lines, SP deltas and inlined frames at a PC): bounds-checked reads and the header.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "analysis/pclntab.hpp"
#include "common/error.hpp"
#include "elf/elf_file.hpp"

namespace gate::analysis::pclntab_detail {

// Header magics, one per layout change (debug/gosym names them the same way).
constexpr uint32_t kMagicGo12 = 0xfffffffb;   // Go 1.2 - 1.15: not read (no toolchain to test it)
constexpr uint32_t kMagicGo116 = 0xfffffffa;  // Go 1.16 - 1.17
constexpr uint32_t kMagicGo118 = 0xfffffff0;  // Go 1.18 - 1.19
constexpr uint32_t kMagicGo120 = 0xfffffff1;  // Go 1.20 and later

// Every offset in the table comes from the file: reads are bounds-checked and a bad one is an
// error naming the binary, never a crash.
class TableReader {
 public:
  TableReader(std::span<const uint8_t> bytes, bool big_endian, std::string path)
      : bytes_(bytes), big_endian_(big_endian), path_(std::move(path)) {}

  uint64_t uint(uint64_t off, unsigned size) const {
    need(off, size, "a field");
    uint64_t v = 0;
    for (unsigned i = 0; i < size; ++i) v |= uint64_t{bytes_[off + (big_endian_ ? size - 1 - i : i)]} << (8 * i);
    return v;
  }
  uint32_t u32(uint64_t off) const { return static_cast<uint32_t>(uint(off, 4)); }

  std::string cstring(uint64_t off) const {
    need(off, 1, "a function name");
    const void* end = std::memchr(bytes_.data() + off, 0, bytes_.size() - off);
    if (!end) fail("a function name runs past the end of the table");
    return {reinterpret_cast<const char*>(bytes_.data() + off), static_cast<const char*>(end)};
  }

  // Go's varint (unsigned LEB128, at most 32 bits here).
  uint32_t varint(uint64_t& off) const {
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
      need(off, 1, "a pc-value table");
      const uint8_t b = bytes_[off++];
      v |= uint32_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    fail("a varint in a pc-value table is longer than 5 bytes");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error::make(path_, "corrupt .gopclntab: " + what,
                      "rebuild the binary; if it is intact, report this with its `go version` output");
  }

 private:
  void need(uint64_t off, uint64_t n, const char* what) const {
    if (off > bytes_.size() || n > bytes_.size() - off)
      fail(std::string(what) + " at offset " + std::to_string(off) + " lies outside the " +
           std::to_string(bytes_.size()) + "-byte table");
  }

  std::span<const uint8_t> bytes_;
  bool big_endian_;
  std::string path_;
};

// Where the header says each sub-table starts (offsets from the header).
struct Layout {
  PclntabVersion version;
  unsigned quantum = 1, ptr_size = 8;
  uint64_t nfunc = 0, text_start = 0;
  uint64_t funcnametab = 0, cutab = 0, filetab = 0, pctab = 0, functab = 0;
  unsigned functab_field = 4;  // bytes per functab field: uint32 offsets since 1.18, uintptr before
  unsigned func_entry_size = 4;  // first _func field: uint32 entryoff since 1.18, uintptr entry before
};

// Entry PC of function i of the function table (i == nfunc: the table's end PC).
inline uint64_t functab_pc(const TableReader& r, const Layout& l, uint64_t i) {
  const uint64_t v = r.uint(l.functab + 2 * i * l.functab_field, l.functab_field);
  return l.version == PclntabVersion::kGo116 ? v : l.text_start + v;
}
// Offset in the table of function i's _func record.
inline uint64_t func_record(const TableReader& r, const Layout& l, uint64_t i) {
  return l.functab + r.uint(l.functab + (2 * i + 1) * l.functab_field, l.functab_field);
}

// The table located, its header read and its text base resolved (Go >= 1.26 via moduledata).
struct OpenTable {
  std::span<const uint8_t> bytes;
  uint64_t address = 0;  // virtual address of the header
  Layout layout;
  TableReader reader;
};
// Throws gate::Error naming the file (no table, unknown magic, impossible header).
OpenTable open_table(const elf::ElfFile& elf);

// The first module's moduledata (runtime/symtab.go) as 64-bit words, found as the data word that
// points at the header (literally, or through an R_*_RELATIVE relocation in PIE builds); empty
// when not found. Words a relocation does not cover read 0 in a PIE build.
std::vector<uint64_t> moduledata_words(const elf::ElfFile& elf, uint64_t header, unsigned count);

}  // namespace gate::analysis::pclntab_detail
