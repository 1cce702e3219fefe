// Function table of a Go binary (.symtab, else .gopclntab) and the name patterns users write:
// parsing and matching globs over Go symbol names, exact lookup, nearest-name suggestions.
#include "analysis/functions.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "analysis/pclntab.hpp"
#include "common/error.hpp"
#include "common/fnv.hpp"

namespace gate::analysis {
namespace {

constexpr std::string_view kAbi0Suffix = ".abi0";

// The package of a Go symbol: "example.com/x/v2.(*T).M" -> "example.com/x/v2".
std::string_view package_of(std::string_view name) {
  const size_t slash = name.rfind('/', name.find('['));
  const size_t dot = name.find('.', slash == std::string_view::npos ? 0 : slash);
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

// The last element of a Go symbol: "pkg.(*T).Method" -> "Method".
std::string_view leaf_of(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// Levenshtein distance in half-units: a substitution that only changes case costs 1, any
// other edit 2 ("main.spinfor" is closer to "main.spinFor" than to "main.spinFoo").
int edit_distance2(std::string_view a, std::string_view b, std::vector<int>& row) {
  row.resize(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(2 * j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diag = row[0];
    row[0] = static_cast<int>(2 * i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const char x = a[i - 1], y = b[j - 1];
      const int sub = x == y ? 0 : (std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)) ? 1 : 2);
      const int best = std::min({row[j] + 2, row[j - 1] + 2, diag + sub});
      diag = row[j];
      row[j] = best;
    }
  }
  return row[b.size()];
}

int nearness_bonus(std::string_view wanted, std::string_view candidate) {
  int bonus = 0;
  if (package_of(wanted) == package_of(candidate)) bonus += 4;
  if (leaf_of(wanted) == leaf_of(candidate)) bonus += 4;
  return bonus;
}

// Each name on a line of its own, indented under the message's line.
std::string one_per_line(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += "\n    " + n;
  return s;
}

}  // namespace

// ---- FunctionTable -----------------------------------------------------------------------

FunctionTable::FunctionTable(std::vector<Function> functions, std::string source)
    : functions_(std::move(functions)), source_(std::move(source)) {
  std::stable_sort(functions_.begin(), functions_.end(),
                   [](const Function& a, const Function& b) { return a.address < b.address; });
  by_name_.reserve(functions_.size());
  for (uint32_t i = 0; i < functions_.size(); ++i) by_name_.emplace_back(fnv1a64(functions_[i].name), i);
  std::sort(by_name_.begin(), by_name_.end());
}

namespace {

// On arm64 both Go's symbol sizes and its pc tables may include the zero words that pad a
// function to 16 bytes (amd64 sizes stop before the INT3 padding). A zero word is no instruction
// (udf #0), and Go never puts a zero in a literal pool: drop trailing ones.
std::vector<Function> trimmed(const elf::ElfFile& elf, std::vector<Function> fns) {
  if (elf.arch() != elf::Arch::kArm64) return fns;
  for (auto& f : fns) {
    const auto bytes = elf.read(f.address, f.size);
    if (bytes.size() != f.size) continue;
    auto is_zero_word = [&](uint64_t end) {
      return std::all_of(bytes.begin() + static_cast<ptrdiff_t>(end - 4), bytes.begin() + static_cast<ptrdiff_t>(end),
                         [](uint8_t b) { return b == 0; });
    };
    while (f.size >= 4 && is_zero_word(f.size)) f.size -= 4;
  }
  return fns;
}

}  // namespace

FunctionTable FunctionTable::from_elf(const elf::ElfFile& elf) {
  const auto& symbols = elf.function_symbols();
  if (!symbols.empty()) {
    std::vector<Function> fns;
    fns.reserve(symbols.size());
    for (const auto& s : symbols) fns.push_back({s.name, s.address, s.size});
    return FunctionTable(trimmed(elf, std::move(fns)), "symtab");
  }
  if (has_pclntab(elf)) return FunctionTable(trimmed(elf, read_pclntab(elf).functions), "gopclntab");
  throw Error::make(elf.path(), "no functions: no .symtab and no .gopclntab (not a Go binary?)",
                    "point gate at a Go executable built by `go build`");
}

const Function* FunctionTable::find_exact(std::string_view name) const {
  auto lookup = [this](std::string_view n) -> const Function* {
    const uint64_t h = fnv1a64(n);
    auto it = std::lower_bound(by_name_.begin(), by_name_.end(), std::pair<uint64_t, uint32_t>{h, 0});
    for (; it != by_name_.end() && it->first == h; ++it)
      if (functions_[it->second].name == n) return &functions_[it->second];
    return nullptr;
  };
  if (const Function* f = lookup(name)) return f;
  return lookup(std::string(name) + std::string(kAbi0Suffix));
}

const Function* FunctionTable::find_containing(uint64_t address) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), address,
                             [](uint64_t a, const Function& f) { return a < f.address; });
  while (it != functions_.begin()) {
    --it;
    if (address - it->address < it->size) return &*it;
    if (it->size != 0) break;  // a zero-size marker (runtime.text) may share an address: look past it
  }
  return nullptr;
}

std::vector<std::string> FunctionTable::nearest(std::string_view name, size_t k) const {
  std::vector<std::pair<int, uint32_t>> best;  // (score, index), the k lowest so far
  std::vector<int> row;
  for (uint32_t i = 0; i < functions_.size(); ++i) {
    const std::string& cand = functions_[i].name;
    const int length_gap = 2 * std::abs(static_cast<int>(cand.size()) - static_cast<int>(name.size())) - 8;
    if (best.size() == k && length_gap >= best.back().first) continue;  // cannot beat the k-th
    const int score = edit_distance2(name, cand, row) - nearness_bonus(name, cand);
    if (best.size() == k && score >= best.back().first) continue;
    best.insert(std::upper_bound(best.begin(), best.end(), std::pair{score, i}), {score, i});
    if (best.size() > k) best.pop_back();
  }
  std::vector<std::string> names;
  for (const auto& [score, i] : best)
    if (std::find(names.begin(), names.end(), functions_[i].name) == names.end()) names.push_back(functions_[i].name);
  return names;
}

// ---- resolve -----------------------------------------------------------------------------

std::vector<Function> resolve(const FunctionTable& table, const std::vector<std::string>& patterns) {
  std::vector<Function> out;
  std::unordered_set<const Function*> seen;
  auto add = [&](const Function& f) {
    if (seen.insert(&f).second) out.push_back(f);
  };
  for (const auto& text : patterns) {
    const NamePattern p = NamePattern::parse(text);
    bool matched = false;
    if (!p.is_glob()) {
      const Function* f = table.find_exact(p.literal());
      if (f) add(*f);
      matched = f != nullptr;
    } else {
      for (const auto& f : table.all()) {
        if (!p.matches(f.name)) continue;
        add(f);
        matched = true;
      }
    }
    if (matched) continue;
    const std::string what = p.is_glob() ? "matches no function" : "no such function";
    throw Error::make("function pattern \"" + text + "\"",
                      what + " among the " + std::to_string(table.all().size()) + " functions of the binary (" +
                          table.source() +
                          "); nearest names:" + one_per_line(table.nearest(p.is_glob() ? text : p.literal())),
                      "use one of the names above (Go names are case-sensitive), or a glob such as \"" +
                          std::string(package_of(text)) + ".*\"; list them with `gate functions`");
  }
  return out;
}

}  // namespace gate::analysis
