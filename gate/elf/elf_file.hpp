// ElfFile: a read-only view of an ELF executable (via libelf): function symbols, PT_LOAD
// segments and virtual-address -> file-offset mapping (what uprobes need), notes, Go build info.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gate::elf {

enum class Arch { kX86_64, kArm64, kOther };

struct Symbol {
  std::string name;
  uint64_t address = 0;  // virtual address
  uint64_t size = 0;
};

struct LoadSegment {
  uint64_t vaddr = 0, memsz = 0, file_offset = 0, filesz = 0;
  bool executable = false;
};

struct Section {
  std::string name;
  uint64_t address = 0;  // sh_addr (0 for non-allocated sections)
  uint64_t file_offset = 0;
  uint64_t size = 0;
  std::span<const uint8_t> bytes;  // empty for SHT_NOBITS
  uint32_t type = 0;               // sh_type (SHT_PROGBITS, ...)
  uint64_t flags = 0;              // sh_flags (SHF_COMPRESSED: bytes start with an Elf64_Chdr)
};

class ElfFile {
 public:
  // Throws gate::Error (exit 2) naming the path: missing, unreadable, not ELF, not 64-bit, truncated.
  static ElfFile open(const std::string& path);
  // Parses an in-memory image (fuzzing, tests). `name` is used in error messages.
  static ElfFile from_bytes(std::vector<uint8_t> bytes, const std::string& name);

  ElfFile(ElfFile&&) noexcept;
  ElfFile& operator=(ElfFile&&) noexcept;
  ~ElfFile();

  const std::string& path() const;
  Arch arch() const;
  bool is_pie() const;  // ET_DYN
  bool has_symtab() const;
  // STT_FUNC symbols of .symtab with nonzero address, sorted by address. Empty when stripped.
  const std::vector<Symbol>& function_symbols() const;
  const std::vector<LoadSegment>& load_segments() const;
  std::optional<Section> section(const std::string& name) const;
  const std::vector<Section>& sections() const;  // in section-header order

  // File offset of a virtual address: vaddr - p_vaddr + p_offset of the PT_LOAD containing it
  // (within its file-backed part). nullopt when no segment contains it.
  std::optional<uint64_t> file_offset(uint64_t vaddr) const;
  // The file bytes for [vaddr, vaddr+len); empty when not wholly inside one PT_LOAD's file part.
  std::span<const uint8_t> read(uint64_t vaddr, uint64_t len) const;

  std::string gnu_build_id() const;  // hex of NT_GNU_BUILD_ID, "" if none
  std::string go_build_id() const;   // from .note.go.buildid, "" if none
  // "go1.21.13" from .go.buildinfo (Go >= 1.18 inline layout, and the older pointer layout);
  // "" when the binary is not Go or has no build info.
  std::string go_version() const;

 private:
  struct Impl;
  explicit ElfFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gate::elf
