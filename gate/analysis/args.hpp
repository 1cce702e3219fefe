// The arguments of a Go function as its DWARF describes them (elfutils' libdw): name, Go type and
// where each lives at the function's entry, checked against the Go register ABI (amd64, Go >= 1.17).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.hpp"

namespace gate::analysis {

// What gate can bucket a call by, from the argument's Go kind (DW_AT_go_kind).
enum class ArgKind { kInt, kUint, kBool, kPointer, kString, kSlice, kMap, kChan, kOther };
const char* to_string(ArgKind k);  // "int", "uint", "bool", "pointer", "string", "slice", "map", "chan", "other"

// One 8-byte (or smaller) piece of an argument in a register at entry.
struct RegisterPiece {
  int abi_index = -1;  // position in the Go ABI's integer registers (0 = RAX ... 8 = R11)
  uint32_t size = 0;   // bytes (DW_OP_piece), the whole value when it has one piece
};

struct Argument {
  std::string name;    // receivers count ("s" of (s *Store).Get); the generic ".dict" is left out
  std::string type;    // Go type as DWARF names it: "[]uint8", "*main.Item", "[]go.shape.int"
  ArgKind kind = ArgKind::kOther;
  uint32_t size = 0;   // bytes of the value (the int's width for integers)
  // Registers holding the value at entry, in piece order; empty when it is not wholly in integer
  // registers of the Go ABI there (`where` says why).
  std::vector<RegisterPiece> registers;
  std::string where;   // "RBX,RCX" or why not: "stack", "not in registers at entry", ...
  // The registers are valid from the entry up to (not including) this address (location list).
  uint64_t valid_until = 0;
  // Map or chan: the offset of the element count in the header the pointer points at, from
  // DWARF (hmap.count, maps.Map.used, hchan.qcount); nullopt when DWARF does not confirm it.
  std::optional<uint32_t> len_offset;
};

struct FunctionArgs {
  std::string function;
  uint64_t entry = 0;
  std::vector<Argument> args;
};

// The register's name for an ABI index: 0 -> "RAX", 8 -> "R11".
const char* abi_register_name(int abi_index);

class ArgIndex {
 public:
  // Every out-of-line Go function of the binary with its arguments. nullopt when the binary has
  // no DWARF (-ldflags=-w, stripped). Throws gate::Error naming the file when libdw cannot read it.
  static std::optional<ArgIndex> load(const elf::ElfFile& elf);
  const FunctionArgs* find(std::string_view function) const;

 private:
  std::map<std::string, FunctionArgs, std::less<>> functions_;
  friend class ArgWalker;
};

}  // namespace gate::analysis
