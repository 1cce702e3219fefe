// Reads every out-of-line Go function's formal parameters from DWARF with libdw (which inflates
// Go's compressed sections itself) and checks each location at the entry against the Go ABI.
#include "analysis/args.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "common/error.hpp"

namespace gate::analysis {

namespace {

// Go's own DWARF attributes (cmd/internal/dwarf): the reflect.Kind of a type.
constexpr unsigned kAtGoKind = 0x2900;
// Types are chains of typedefs (generic shapes: ".param0" -> "[]go.shape.int"); real ones are short.
constexpr int kMaxTypeHops = 8;

// The Go internal ABI's integer argument registers on amd64, in assignment order, by DWARF number.
constexpr std::array<int, 9> kAbiDwarfRegs = {0 /*RAX*/, 3 /*RBX*/, 2 /*RCX*/, 5 /*RDI*/, 4 /*RSI*/,
                                              8 /*R8*/,  9 /*R9*/,  10 /*R10*/, 11 /*R11*/};
constexpr std::array<const char*, 9> kAbiNames = {"RAX", "RBX", "RCX", "RDI", "RSI", "R8", "R9", "R10", "R11"};

int abi_index_of(int dwarf_reg) {
  for (size_t i = 0; i < kAbiDwarfRegs.size(); ++i)
    if (kAbiDwarfRegs[i] == dwarf_reg) return static_cast<int>(i);
  return -1;
}

ArgKind kind_of(uint64_t go_kind) {
  switch (go_kind) {
    case 1: return ArgKind::kBool;
    case 2: case 3: case 4: case 5: case 6: return ArgKind::kInt;
    case 7: case 8: case 9: case 10: case 11: case 12: return ArgKind::kUint;
    case 18: return ArgKind::kChan;
    case 21: return ArgKind::kMap;
    case 22: case 26: return ArgKind::kPointer;
    case 23: return ArgKind::kSlice;
    case 24: return ArgKind::kString;
    default: return ArgKind::kOther;
  }
}

std::optional<uint64_t> udata(Dwarf_Die* d, unsigned at) {
  Dwarf_Attribute a;
  Dwarf_Word v = 0;
  if (!dwarf_attr_integrate(d, at, &a) || dwarf_formudata(&a, &v) != 0) return std::nullopt;
  return v;
}

const char* name_of(Dwarf_Die* d) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(d, DW_AT_name, &a) ? dwarf_formstring(&a) : nullptr;
}

// Calls f on each child of parent.
template <typename F>
void for_each_child(Dwarf_Die* parent, F&& f) {
  Dwarf_Die child, next;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    f(child);
    if (dwarf_siblingof(&child, &next) != 0) return;
    child = next;
  } while (true);
}

bool ref(Dwarf_Die* d, unsigned at, Dwarf_Die* out) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(d, at, &a) && dwarf_formref_die(&a, out);
}

// A map's or chan's element count: the first word of the header its pointer points at
// (runtime.hmap.count before Go 1.24, internal/runtime/maps.Map.used after, runtime.hchan.qcount).
std::optional<uint32_t> header_len_offset(Dwarf_Die typedef_die) {
  Dwarf_Die ptr, hdr;
  if (!ref(&typedef_die, DW_AT_type, &ptr) || dwarf_tag(&ptr) != DW_TAG_pointer_type) return std::nullopt;
  if (!ref(&ptr, DW_AT_type, &hdr) || dwarf_tag(&hdr) != DW_TAG_structure_type) return std::nullopt;
  std::optional<uint32_t> found;
  bool seen = false;
  for_each_child(&hdr, [&](Dwarf_Die& member) {
    const char* n = name_of(&member);
    if (seen || dwarf_tag(&member) != DW_TAG_member || !n) return;
    if (std::strcmp(n, "count") && std::strcmp(n, "used") && std::strcmp(n, "qcount")) return;
    seen = true;
    const auto off = udata(&member, DW_AT_data_member_location);
    Dwarf_Die t;
    if (off && ref(&member, DW_AT_type, &t) && dwarf_bytesize(&t) == 8) found = static_cast<uint32_t>(*off);
  });
  return found;
}

// The Go type of a parameter: through typedefs that carry no kind (generic shapes) to the DIE
// that does; the name is the first real one on the way.
void resolve_type(Dwarf_Die t, Argument& a) {
  for (int hop = 0; hop < kMaxTypeHops; ++hop) {
    const char* n = name_of(&t);
    if (a.type.empty() && n && n[0] != '.') a.type = n;
    if (const auto k = udata(&t, kAtGoKind)) {
      a.kind = kind_of(*k);
      if (a.type.empty() && n) a.type = n;
      const int size = dwarf_bytesize(&t);
      // Go writes no byte size on pointer types; map and chan values are pointers (amd64: 8 bytes).
      const bool pointer = a.kind == ArgKind::kMap || a.kind == ArgKind::kChan || a.kind == ArgKind::kPointer;
      a.size = pointer ? 8 : size > 0 ? static_cast<uint32_t>(size) : 0;
      if (a.kind == ArgKind::kMap || a.kind == ArgKind::kChan) a.len_offset = header_len_offset(t);
      return;
    }
    Dwarf_Die next;
    if (dwarf_tag(&t) != DW_TAG_typedef || !ref(&t, DW_AT_type, &next)) return;
    t = next;
  }
}

// "DWARF register 17 (not an integer register of the Go ABI)" for a piece outside RAX..R11.
std::string outside_abi(int dwarf_reg) {
  return "DWARF register " + std::to_string(dwarf_reg) + " (not an integer register of the Go ABI)";
}

// The pieces of a location expression, when every piece is an integer register of the Go ABI;
// otherwise a.where says what DWARF said instead.
void read_registers(const Dwarf_Op* ops, size_t n, Argument& a) {
  std::vector<RegisterPiece> regs;
  int pending = -1;  // the register of the piece being described
  auto close_piece = [&](uint32_t size) {
    if (abi_index_of(pending) < 0) {
      a.where = outside_abi(pending);
      return false;
    }
    regs.push_back({abi_index_of(pending), size});
    pending = -1;
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    const uint8_t op = ops[i].atom;
    if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
      pending = op - DW_OP_reg0;
    } else if (op == DW_OP_regx) {
      pending = static_cast<int>(ops[i].number);
    } else if (op == DW_OP_piece && pending < 0) {
      a.where = "partly not in registers at entry";
      return;
    } else if (op == DW_OP_piece) {
      if (!close_piece(static_cast<uint32_t>(ops[i].number))) return;
    } else {
      a.where = op == DW_OP_fbreg || op == DW_OP_call_frame_cfa ? "stack" : "not in registers at entry";
      return;
    }
  }
  if (pending >= 0 && !close_piece(a.size)) return;
  if (regs.empty()) {
    a.where = "not in registers at entry";
    return;
  }
  // The ABI assigns one value's words to consecutive integer registers: anything else means gate
  // and the compiler disagree on the ABI, and no register can be trusted.
  for (size_t i = 1; i < regs.size(); ++i) {
    if (regs[i].abi_index != regs[i - 1].abi_index + 1) {
      a.where = "registers not consecutive in the Go ABI";
      return;
    }
  }
  a.where.clear();
  for (const auto& r : regs) a.where += (a.where.empty() ? "" : ",") + std::string(kAbiNames[r.abi_index]);
  a.registers = std::move(regs);
}

// The location at `entry` (a location list's range holding it, or a single expression).
void read_location(Dwarf_Die* param, uint64_t entry, uint64_t end, Argument& a) {
  a.where = "no location at entry";
  Dwarf_Attribute attr;
  if (!dwarf_attr(param, DW_AT_location, &attr)) return;
  Dwarf_Addr base, start, stop;
  Dwarf_Op* ops;
  size_t n;
  ptrdiff_t off = 0;
  while ((off = dwarf_getlocations(&attr, off, &base, &start, &stop, &ops, &n)) > 0) {
    if (entry < start || entry >= stop) continue;
    a.valid_until = std::min<uint64_t>(stop, end);
    read_registers(ops, n, a);
    return;
  }
}

}  // namespace

class ArgWalker {
 public:
  ArgWalker(Dwarf* dbg, ArgIndex& out) : dbg_(dbg), out_(out) {}

  int run() {
    Dwarf_CU* cu = nullptr;
    Dwarf_Die unit;
    int rc;
    while ((rc = dwarf_get_units(dbg_, cu, &cu, nullptr, nullptr, &unit, nullptr)) == 0) {
      for_each_child(&unit, [&](Dwarf_Die& child) {
        if (dwarf_tag(&child) == DW_TAG_subprogram) function(child);
      });
    }
    return rc;
  }

 private:
  void function(Dwarf_Die& sub) {
    Dwarf_Addr low = 0, high = 0;
    const char* name = name_of(&sub);
    if (!name || dwarf_lowpc(&sub, &low) != 0 || dwarf_highpc(&sub, &high) != 0) return;  // abstract
    FunctionArgs f{name, low, {}};
    for_each_child(&sub, [&](Dwarf_Die& p) {
      if (dwarf_tag(&p) != DW_TAG_formal_parameter) return;
      Dwarf_Attribute va;
      bool is_result = false;
      if (dwarf_attr_integrate(&p, DW_AT_variable_parameter, &va)) dwarf_formflag(&va, &is_result);
      const char* pn = name_of(&p);
      // ".dict": the dictionary of a generic shape instantiation, the compiler's, not the user's.
      if (is_result || !pn || std::strcmp(pn, ".dict") == 0) return;
      Argument a;
      a.name = pn;
      Dwarf_Die t;
      if (ref(&p, DW_AT_type, &t)) resolve_type(t, a);
      read_location(&p, low, high, a);
      f.args.push_back(std::move(a));
    });
    out_.functions_.emplace(f.function, std::move(f));
  }

  Dwarf* dbg_;
  ArgIndex& out_;
};

const char* to_string(ArgKind k) {
  switch (k) {
    case ArgKind::kInt: return "int";
    case ArgKind::kUint: return "uint";
    case ArgKind::kBool: return "bool";
    case ArgKind::kPointer: return "pointer";
    case ArgKind::kString: return "string";
    case ArgKind::kSlice: return "slice";
    case ArgKind::kMap: return "map";
    case ArgKind::kChan: return "chan";
    default: return "other";
  }
}

const char* abi_register_name(int abi_index) {
  return abi_index >= 0 && abi_index < static_cast<int>(kAbiNames.size()) ? kAbiNames[abi_index] : "?";
}

std::optional<ArgIndex> ArgIndex::load(const elf::ElfFile& elf) {
  bool has_info = false;
  for (const auto& s : elf.sections()) has_info |= s.name == ".debug_info" || s.name == ".zdebug_info";
  if (!has_info) return std::nullopt;
  const int fd = ::open(elf.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Error::make(elf.path(), std::string("cannot be opened to read its arguments: ") + std::strerror(errno),
                      "check the file's permissions");
  elf_version(EV_CURRENT);
  Elf* e = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  Dwarf* dbg = e ? dwarf_begin_elf(e, DWARF_C_READ, nullptr) : nullptr;
  ArgIndex index;
  const int rc = dbg ? ArgWalker(dbg, index).run() : -1;
  const char* why = rc < 0 ? dwarf_errmsg(-1) : nullptr;
  if (dbg) dwarf_end(dbg);
  if (e) elf_end(e);
  ::close(fd);
  if (rc < 0)
    throw Error::make(elf.path(), std::string("libdw cannot read the arguments from its DWARF: ") + (why ? why : "?"),
                      "if `readelf --debug-dump=info` reads the binary, report this to gate with its Go version");
  return index;
}

const FunctionArgs* ArgIndex::find(std::string_view function) const {
  const auto it = functions_.find(function);
  return it == functions_.end() ? nullptr : &it->second;
}

}  // namespace gate::analysis
