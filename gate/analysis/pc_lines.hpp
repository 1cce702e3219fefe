// What a program counter means in a Go binary, read from .gopclntab alone (stripped binaries too):
// its function, file and line, the functions inlined at it (from the inline tree), and the SP delta
// that tells where the return address lies when the frame pointer is not set up yet (or never is).
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/pclntab.hpp"
#include "elf/elf_file.hpp"

namespace gate::analysis {

// One source frame at a PC. Several for one PC when calls were inlined there.
struct SourceFrame {
  std::string function;  // Go symbol name, as .symtab spells it
  std::string file;      // as the compiler recorded it ("/src/shop/pricing/apply.go")
  int line = 0;
  int start_line = 0;    // line of the func keyword (Go >= 1.20; 0 before)
  bool inlined = false;  // inlined into the next frame of the list
};

class PcLines {
 public:
  // Reads the table once (throws gate::Error as read_pclntab does). The inline tree needs the
  // address of go:func.* (moduledata.gofunc), found by checking candidate moduledata words against
  // inline-tree records; has_inline_tree() is false when it cannot be found or the layout is
  // Go 1.16-1.17 (inlined frames then show as their container only).
  static PcLines load(const elf::ElfFile& elf);

  // Frames at pc, innermost first (an inlined callee before the function whose code holds it);
  // empty when pc is in no Go function. For a return address, pass pc - 1 (the call instruction).
  std::vector<SourceFrame> frames(uint64_t pc) const;
  // Bytes from SP to the return address at pc (the pc-to-SP table): 0 at the entry and in a
  // frameless function. nullopt when pc is in no Go function.
  std::optional<int64_t> sp_delta(uint64_t pc) const;
  // The pc-to-SP table of every function at once, for an unwinder that walks without frame
  // pointers (profile/unwind.hpp): from each `pc` on, up to the next range's, the return address
  // lies `delta` bytes above SP. Sorted by pc; adjacent ranges with one delta merged; a range of
  // kNoFunction starts where a function's code ends and no function's begins (padding). A delta
  // can be negative: syscall.rawVforkSyscall pops its own return address (vfork's child must not
  // overwrite it).
  struct SpRange {
    uint64_t pc = 0;
    int32_t delta = 0;
  };
  static constexpr int32_t kNoFunction = INT32_MIN;
  std::vector<SpRange> sp_ranges() const;
  // Whether the function at pc is where a walk of one stack ends: Go's TOPFRAME functions
  // (runtime.goexit under every goroutine, runtime.mstart and rt0_go under a thread's g0,
  // runtime.sigtramp under a signal's), and the runtime's switches to the g0 stack (mcall,
  // morestack, systemstack, asmcgocall: what runs on g0 above them is the runtime's own, and its
  // frame-pointer chain starts there). A walk that reaches one has reached the stack's root.
  bool stack_root(uint64_t pc) const;
  // The function containing pc, or nullptr.
  const Function* function_at(uint64_t pc) const;
  bool has_inline_tree() const { return gofunc_ != 0; }
  PclntabVersion version() const { return version_; }
  // Every function of the table, sorted by address, sized to its code (no padding).
  const std::vector<Function>& functions() const { return functions_; }

 private:
  struct FuncRecord {
    uint64_t offset = 0;  // of the _func record in the table
  };
  uint64_t table_end(uint64_t entry, uint32_t table) const;  // first PC a pc-value table does not cover
  std::optional<int32_t> pc_value(uint64_t entry, uint32_t table, uint64_t pc) const;
  std::string file_name(uint64_t func, int32_t file_index) const;
  std::string name_at(uint32_t nameoff) const;
  uint32_t field(uint64_t func, unsigned index) const;  // the index-th uint32 field after the entry
  std::optional<uint32_t> funcdata(uint64_t func, unsigned index) const;
  uint32_t pcdata(uint64_t func, unsigned index) const;
  uint64_t find_gofunc(const elf::ElfFile& elf, uint64_t header);
  bool plausible_inline_tree(const elf::ElfFile& elf, uint64_t gofunc) const;

  PclntabVersion version_ = PclntabVersion::kGo120;
  std::vector<uint8_t> table_;  // a copy of .gopclntab
  unsigned quantum_ = 1, entry_size_ = 4;
  uint64_t funcnametab_ = 0, cutab_ = 0, filetab_ = 0, pctab_ = 0;
  std::vector<Function> functions_;    // sorted by address, as read_pclntab gives them
  std::vector<FuncRecord> records_;    // parallel to functions_
  uint64_t gofunc_ = 0;                // address of go:func.*, 0 when unknown
  std::vector<uint8_t> gofunc_bytes_;  // from gofunc_ to the end of its section
  std::string path_;
};

}  // namespace gate::analysis
