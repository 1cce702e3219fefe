// Reads .gopclntab's per-function tables as the Go runtime does (runtime/symtab.go pcvalue,
// funcline; runtime/symtabinl.go for the inline tree): pc-value tables for SP delta, file, line
// and inline-tree index, and the inlinedCall records in go:func.*.
#include "analysis/pc_lines.hpp"

#include <algorithm>
#include <string_view>

#include "analysis/pclntab_table.hpp"
#include "common/error.hpp"

namespace gate::analysis {
namespace {

using pclntab_detail::TableReader;

// runtime/symtab.go: PCDATA_InlTreeIndex and FUNCDATA_InlTree.
constexpr unsigned kPcdataInlTreeIndex = 2;
constexpr unsigned kFuncdataInlTree = 3;
// _func fields after the entry (uint32 each): nameOff, args, deferreturn, pcsp, pcfile, pcln,
// npcdata, cuOffset, then startLine from Go 1.20.
constexpr unsigned kNameOff = 0, kPcsp = 3, kPcfile = 4, kPcln = 5, kNpcdata = 6, kCuOffset = 7, kStartLine = 8;
// inlinedCall records: Go 1.20+ {funcID u8, pad [3], nameOff, parentPc, startLine int32}: 16 bytes;
// Go 1.18-1.19 {parent int16, funcID u8, pad, file, line, func_, parentPc int32}: 20 bytes.
constexpr unsigned kInlinedCall120 = 16, kInlinedCall118 = 20;
// Inlining nests a few levels; the bound keeps a corrupt tree from looping.
constexpr int kMaxInlineDepth = 64;

uint32_t le32(const std::vector<uint8_t>& b, uint64_t off) {
  if (off + 4 > b.size()) return UINT32_MAX;
  return uint32_t{b[off]} | uint32_t{b[off + 1]} << 8 | uint32_t{b[off + 2]} << 16 | uint32_t{b[off + 3]} << 24;
}

}  // namespace

PcLines PcLines::load(const elf::ElfFile& elf) {
  const auto open = pclntab_detail::open_table(elf);
  const auto& l = open.layout;
  PcLines p;
  p.path_ = elf.path();
  p.version_ = l.version;
  p.table_.assign(open.bytes.begin(), open.bytes.end());
  p.quantum_ = l.quantum;
  p.entry_size_ = l.func_entry_size;
  p.funcnametab_ = l.funcnametab, p.cutab_ = l.cutab, p.filetab_ = l.filetab, p.pctab_ = l.pctab;
  const TableReader& r = open.reader;
  p.functions_.reserve(l.nfunc);
  p.records_.reserve(l.nfunc);
  for (uint64_t i = 0; i < l.nfunc; ++i) {
    const uint64_t entry = pclntab_detail::functab_pc(r, l, i), next = pclntab_detail::functab_pc(r, l, i + 1);
    if (next < entry) r.fail("function table is not sorted by address");
    const uint64_t rec = pclntab_detail::func_record(r, l, i);
    p.records_.push_back({rec});
    p.functions_.push_back({p.name_at(r.u32(rec + l.func_entry_size)), entry, next - entry});
    // The code ends where the pc-to-SP table ends (the padding after it is no function's).
    p.functions_.back().size = std::min(next, p.table_end(entry, p.field(rec, kPcsp))) - entry;
  }
  if (l.version != PclntabVersion::kGo116) p.gofunc_ = p.find_gofunc(elf, open.address);
  if (p.gofunc_ != 0) {
    for (const auto& s : elf.sections())
      if (s.address <= p.gofunc_ && p.gofunc_ < s.address + s.bytes.size())
        p.gofunc_bytes_.assign(s.bytes.begin() + static_cast<ptrdiff_t>(p.gofunc_ - s.address), s.bytes.end());
    if (p.gofunc_bytes_.empty()) p.gofunc_ = 0;
  }
  return p;
}

std::string PcLines::name_at(uint32_t nameoff) const {
  const uint64_t off = funcnametab_ + nameoff;
  if (off >= table_.size()) return "?";
  const auto* begin = reinterpret_cast<const char*>(table_.data() + off);
  const auto* end = static_cast<const char*>(std::memchr(begin, 0, table_.size() - off));
  std::string name(begin, end ? end : begin);
  static constexpr std::string_view kMiddleDot = "\xc2\xb7";  // as read_pclntab spells it
  for (size_t at = name.find(kMiddleDot); at != std::string::npos; at = name.find(kMiddleDot, at + 1))
    name.replace(at, kMiddleDot.size(), ".");
  return name;
}

uint32_t PcLines::field(uint64_t func, unsigned index) const { return le32(table_, func + entry_size_ + 4 * index); }

uint32_t PcLines::pcdata(uint64_t func, unsigned index) const {
  if (index >= field(func, kNpcdata)) return 0;
  const unsigned fixed = version_ == PclntabVersion::kGo120 ? 9 : 8;  // uint32 fields after the entry
  return le32(table_, func + entry_size_ + 4 * fixed + 4 + 4 * index);
}

std::optional<uint32_t> PcLines::funcdata(uint64_t func, unsigned index) const {
  if (version_ == PclntabVersion::kGo116) return std::nullopt;  // pointers, not offsets: not read
  const unsigned fixed = version_ == PclntabVersion::kGo120 ? 9 : 8;
  const uint64_t flags = func + entry_size_ + 4 * fixed;  // funcID, flag, pad, nfuncdata
  if (flags + 4 > table_.size() || index >= table_[flags + 3]) return std::nullopt;
  const uint32_t off = le32(table_, flags + 4 + 4 * uint64_t{field(func, kNpcdata)} + 4 * index);
  if (off == UINT32_MAX) return std::nullopt;
  return off;
}

// runtime.pcvalue: a table of (value delta, pc delta) varint pairs, the value starting at -1.
std::optional<int32_t> PcLines::pc_value(uint64_t entry, uint32_t table, uint64_t pc) const {
  if (table == 0) return std::nullopt;
  const TableReader r(table_, false, path_);
  uint64_t off = pctab_ + table, at = entry;
  int32_t value = -1;
  for (bool first = true;; first = false) {
    const uint32_t uv = r.varint(off);
    if (uv == 0 && !first) return std::nullopt;
    value += (uv & 1) ? static_cast<int32_t>(~(uv >> 1)) : static_cast<int32_t>(uv >> 1);
    at += uint64_t{r.varint(off)} * quantum_;
    if (pc < at) return value;
  }
}

uint64_t PcLines::table_end(uint64_t entry, uint32_t table) const {
  if (table == 0) return UINT64_MAX;
  const TableReader r(table_, false, path_);
  uint64_t off = pctab_ + table, at = entry;
  for (bool first = true;; first = false) {
    if (r.varint(off) == 0 && !first) return at;
    at += uint64_t{r.varint(off)} * quantum_;
  }
}

std::string PcLines::file_name(uint64_t func, int32_t file_index) const {
  if (file_index < 0) return "?";
  const uint32_t off = le32(table_, cutab_ + 4 * (uint64_t{field(func, kCuOffset)} + static_cast<uint32_t>(file_index)));
  if (off == UINT32_MAX || filetab_ + off >= table_.size()) return "?";
  const auto* begin = reinterpret_cast<const char*>(table_.data() + filetab_ + off);
  const auto* end = static_cast<const char*>(std::memchr(begin, 0, table_.size() - filetab_ - off));
  return std::string(begin, end ? end : begin);
}

const Function* PcLines::function_at(uint64_t pc) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), pc,
                             [](uint64_t v, const Function& f) { return v < f.address; });
  if (it == functions_.begin()) return nullptr;
  --it;
  return pc - it->address < it->size ? &*it : nullptr;
}

std::optional<int64_t> PcLines::sp_delta(uint64_t pc) const {
  const Function* f = function_at(pc);
  if (!f) return std::nullopt;
  const uint64_t rec = records_[static_cast<size_t>(f - functions_.data())].offset;
  return pc_value(f->address, field(rec, kPcsp), pc);
}

bool PcLines::stack_root(uint64_t pc) const {
  const Function* f = function_at(pc);
  if (!f) return false;
  // runtime/symtab.go funcFlag_TOPFRAME, in the flag byte after funcID (Go >= 1.17; 1.16 has
  // padding there, so its roots are known by name).
  constexpr uint8_t kTopFrame = 1;
  const uint64_t rec = records_[static_cast<size_t>(f - functions_.data())].offset;
  const unsigned fixed = version_ == PclntabVersion::kGo120 ? 9 : 8;
  const uint64_t flag = rec + entry_size_ + 4 * fixed + 1;
  if (flag < table_.size() && (table_[flag] & kTopFrame)) return true;
  std::string_view name = f->name;
  if (name.size() > 5 && name.substr(name.size() - 5) == ".abi0") name.remove_suffix(5);
  return name == "runtime.goexit" || name == "runtime.mstart" || name == "runtime.rt0_go" || name == "runtime.sigtramp" ||
         name == "runtime.mcall" || name == "runtime.morestack" || name == "runtime.systemstack" ||
         name == "runtime.asmcgocall";
}

std::vector<PcLines::SpRange> PcLines::sp_ranges() const {
  std::vector<SpRange> out;
  auto add = [&](uint64_t pc, int32_t delta) {
    if (!out.empty() && out.back().pc == pc) out.pop_back();  // an empty range: the later one holds
    if (out.empty() || out.back().delta != delta) out.push_back({pc, delta});
  };
  const TableReader r(table_, false, path_);
  for (size_t i = 0; i < functions_.size(); ++i) {
    const Function& f = functions_[i];
    const uint32_t table = field(records_[i].offset, kPcsp);
    const uint64_t end = f.address + f.size;
    if (table == 0 || f.size == 0) {
      add(f.address, kNoFunction);
      continue;
    }
    // runtime.pcvalue's walk (pc_value above), every step kept.
    uint64_t off = pctab_ + table, at = f.address;
    int32_t value = -1;
    for (bool first = true; at < end; first = false) {
      const uint32_t uv = r.varint(off);
      if (uv == 0 && !first) break;
      value += (uv & 1) ? static_cast<int32_t>(~(uv >> 1)) : static_cast<int32_t>(uv >> 1);
      const uint64_t from = at;
      at += uint64_t{r.varint(off)} * quantum_;
      add(from, value);
    }
    if (i + 1 == functions_.size() || functions_[i + 1].address > end) add(end, kNoFunction);
  }
  return out;
}

std::vector<SourceFrame> PcLines::frames(uint64_t pc) const {
  std::vector<SourceFrame> out;
  const Function* f = function_at(pc);
  if (!f) return out;
  const uint64_t rec = records_[static_cast<size_t>(f - functions_.data())].offset;
  auto position = [&](SourceFrame& frame, uint64_t at) {
    frame.file = file_name(rec, pc_value(f->address, field(rec, kPcfile), at).value_or(-1));
    frame.line = pc_value(f->address, field(rec, kPcln), at).value_or(0);
  };
  uint64_t at = pc;
  const auto tree = gofunc_ ? funcdata(rec, kFuncdataInlTree) : std::nullopt;
  const uint32_t index_table = pcdata(rec, kPcdataInlTreeIndex);
  if (tree && index_table) {
    const bool go120 = version_ == PclntabVersion::kGo120;
    const uint64_t size = go120 ? kInlinedCall120 : kInlinedCall118;
    auto ix = pc_value(f->address, index_table, at);
    for (int depth = 0; ix && *ix >= 0 && depth < kMaxInlineDepth; ++depth) {
      const uint64_t call = *tree + static_cast<uint64_t>(*ix) * size;
      if (call + size > gofunc_bytes_.size()) break;
      SourceFrame frame;
      frame.function = name_at(le32(gofunc_bytes_, call + (go120 ? 4 : 12)));
      if (go120) frame.start_line = static_cast<int32_t>(le32(gofunc_bytes_, call + 12));
      frame.inlined = true;
      position(frame, at);
      out.push_back(std::move(frame));
      at = f->address + static_cast<uint32_t>(le32(gofunc_bytes_, call + (go120 ? 8 : 16)));
      ix = pc_value(f->address, index_table, at);
    }
  }
  SourceFrame outer;
  outer.function = f->name;
  if (version_ == PclntabVersion::kGo120) outer.start_line = static_cast<int32_t>(field(rec, kStartLine));
  position(outer, at);
  out.push_back(std::move(outer));
  return out;
}

// An inline tree's first records read right at a candidate address: padding zero (1.20+), a name
// offset that starts a name, a parent PC inside the function. Checked on a few dozen functions.
bool PcLines::plausible_inline_tree(const elf::ElfFile& elf, uint64_t gofunc) const {
  const bool go120 = version_ == PclntabVersion::kGo120;
  int checked = 0;
  for (size_t i = 0; i < records_.size() && checked < 40; ++i) {
    const auto tree = funcdata(records_[i].offset, kFuncdataInlTree);
    if (!tree) continue;
    const auto bytes = elf.read(gofunc + *tree, 20);
    if (bytes.empty()) return false;
    const std::vector<uint8_t> rec(bytes.begin(), bytes.end());
    const uint32_t nameoff = le32(rec, go120 ? 4 : 12), parent_pc = le32(rec, go120 ? 8 : 16);
    const uint64_t name = funcnametab_ + nameoff;
    if (go120 && (rec[1] | rec[2] | rec[3])) return false;
    if (!go120 && static_cast<int32_t>(le32(rec, 8)) <= 0) return false;  // line of the call
    if (name >= table_.size() || (nameoff != 0 && table_[name - 1] != 0) || table_[name] == 0) return false;
    if (parent_pc >= functions_[i].size) return false;
    ++checked;
  }
  return checked >= 3;
}

uint64_t PcLines::find_gofunc(const elf::ElfFile& elf, uint64_t header) {
  // moduledata: pcHeader, 6 slices, findfunctab, minpc, maxpc, text..: gofunc comes after the
  // segment bounds, at a word index that moved between releases (30s to 40s).
  const auto words = pclntab_detail::moduledata_words(elf, header, 64);
  uint64_t found = 0;
  for (size_t i = 24; i < words.size() && !found; ++i)
    if (words[i] != 0 && !elf.read(words[i], 16).empty() && plausible_inline_tree(elf, words[i])) found = words[i];
  return found;
}

}  // namespace gate::analysis
