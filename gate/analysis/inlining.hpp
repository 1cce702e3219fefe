// Where the Go compiler inlined a function, read from the binary's DWARF (elfutils' libdw): an inlined
// call has no entry to probe, so gate must say which calls of a function it cannot time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "elf/elf_file.hpp"

namespace gate::analysis {

// One inlined copy of a function (a DW_TAG_inlined_subroutine).
struct InlineSite {
  std::string caller;     // the function whose source line makes the call; when inlining is
                          // nested, the inlined function that contains it
  std::string container;  // the out-of-line function whose machine code holds the copy
  uint64_t address = 0;   // lowest address of the copy's code
  std::string file;       // the call's source file (DW_AT_call_file), as the line table names it
  int line = 0;           // DW_AT_call_line
};

// "main.callerB (main.go:46)"; "main.g (main.go:12, inlined into main.f)" when nested.
std::string describe(const InlineSite& site);

// Every inlined call in a Go binary, by inlined function. Names are Go symbol names as .symtab
// spells them ("example.com/shop.(*Cart).Add"): Go writes full names into DW_AT_name.
class InlineIndex {
 public:
  // Reads .debug_info (SHF_COMPRESSED .debug_* and old .zdebug_* sections are inflated in memory
  // first). nullopt when the binary has no DWARF (-ldflags=-w, or stripped). Throws gate::Error
  // naming the file when DWARF is there but cannot be read.
  static std::optional<InlineIndex> load(const elf::ElfFile& elf);

  // The inlined copies of `function`, sorted by (file, line, address); empty when none.
  std::vector<InlineSite> sites_of(std::string_view function) const;
  size_t count_of(std::string_view function) const;
  // DWARF describes the function at all (as an abstract origin or with code of its own).
  bool knows(std::string_view function) const;
  // DWARF describes an out-of-line copy of it (a DW_TAG_subprogram with code).
  bool has_out_of_line_copy(std::string_view function) const;
  size_t inlined_call_count() const { return total_sites_; }
  // Functions with inlined copies and no out-of-line one, sorted by name.
  std::vector<std::string> inlined_only() const;
  // offsetof(runtime.g, stack) + offsetof(runtime.stack, hi): where the BPF side reads the top of
  // the goroutine's stack. nullopt when the DWARF does not describe runtime.g (read in the same
  // pass as the inlining, so it costs nothing extra).
  std::optional<uint32_t> g_stack_hi_offset() const { return g_stack_hi_offset_; }

 private:
  friend class DwarfWalker;
  struct Site {  // names are indices into names_: a big binary has ~10^5 sites
    uint32_t caller = 0, container = 0, file = 0;
    int line = 0;
    uint64_t address = 0;
  };
  struct Entry {
    bool out_of_line = false;
    std::vector<Site> sites;
  };
  uint32_t intern(std::string_view s);

  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;  // function and file names
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> name_ids_;
  std::map<std::string, Entry, std::less<>> functions_;
  size_t total_sites_ = 0;
  std::optional<uint32_t> g_stack_hi_offset_;
};

}  // namespace gate::analysis
