// Independent references for the analysis tests: what binutils objdump and `go tool objdump` say
// about a function, and the Go test programs built with each installed toolchain.
#pragma once

#include <cstdint>
#include <climits>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/shell.hpp"
#include "support/go_build.hpp"

namespace gate::testing {

// Runs a shell command (test-only: paths come from the build tree) and returns its stdout.
inline std::string run_stdout(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw Error::make(command, "popen failed", "");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) throw Error::make(command, "failed:\n" + out, "");
  return out;
}

struct RefInsn {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
  std::string text;  // AT&T for objdump ("ret", "jbe 47b04b <...>"), Go syntax for go tool objdump
  std::string mnemonic() const { return text.substr(0, text.find_first_of(" \t")); }
};

// Parses binutils objdump -d lines: "  491380:\t49 3b 66 10          \tcmp    0x10(%r14),%rsp".
inline std::vector<RefInsn> parse_objdump(const std::string& out, uint64_t lo = 0, uint64_t hi = UINT64_MAX) {
  std::vector<RefInsn> insns;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(":\t");
    if (colon == std::string::npos || line.empty() || line[0] != ' ') continue;
    RefInsn in;
    try {
      in.address = std::stoull(line.substr(0, colon), nullptr, 16);
    } catch (...) {
      continue;
    }
    if (in.address < lo || in.address >= hi) continue;
    const auto tab2 = line.find('\t', colon + 2);
    std::istringstream hex(line.substr(colon + 2, tab2 == std::string::npos ? std::string::npos : tab2 - colon - 2));
    for (std::string b; hex >> b;) in.bytes.push_back(static_cast<uint8_t>(std::stoul(b, nullptr, 16)));
    if (tab2 != std::string::npos) in.text = line.substr(tab2 + 1);
    insns.push_back(in);
  }
  return insns;
}

// The whole .text of a binary, in address order.
inline std::vector<RefInsn> objdump_all(const std::string& binary) {
  return parse_objdump(run_stdout("objdump -d --insn-width=16 " + shell_quote(binary)));
}

// binutils objdump over one symbol, restricted to [address, address + size).
inline std::vector<RefInsn> objdump_function(const std::string& binary, const std::string& symbol, uint64_t address,
                                             uint64_t size) {
  return parse_objdump(run_stdout("objdump -d --insn-width=16 --disassemble=" + shell_quote(symbol) + " " +
                                  shell_quote(binary)),
                       address, address + size);
}

// `go tool objdump -s REGEX`, function by function ("TEXT pkg.Map[go.shape.int](SB) file" opens
// each), in Go's syntax. Go reads its own names: from .symtab, or from .gopclntab when stripped
// (where stripped 1.18-1.19 binaries repeat "pkg.Map[...]": hence a list, not a map).
struct GoObjdumpFunction {
  std::string name;
  std::vector<RefInsn> insns;
};

inline std::vector<GoObjdumpFunction> go_objdump_functions(const GoToolchain& tc, const std::string& binary,
                                                           const std::string& symbol_regex = ".") {
  const std::string out = run_stdout(tc.go + " tool objdump -s " + shell_quote(symbol_regex) + " " + shell_quote(binary));
  std::vector<GoObjdumpFunction> fns;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("TEXT ")) {
      fns.push_back({line.substr(5, line.find("(SB)") - 5), {}});
      continue;
    }
    std::istringstream fields(line);  // "  main.go:17\t\t0x491380\t\t493b6610\t\tCMPQ SP, 0x10(R14)"
    std::string where, addr, code;
    if (fns.empty() || !(fields >> where >> addr >> code) || !addr.starts_with("0x")) continue;
    RefInsn in;
    in.address = std::stoull(addr, nullptr, 16);
    for (size_t i = 0; i + 1 < code.size(); i += 2) in.bytes.push_back(static_cast<uint8_t>(std::stoul(code.substr(i, 2), nullptr, 16)));
    std::getline(fields, in.text);
    in.text.erase(0, in.text.find_first_not_of(" \t"));
    in.text.erase(in.text.find_last_not_of(" \t") + 1);
    fns.back().insns.push_back(in);
  }
  return fns;
}

// `go tool objdump` (Go's own disassembler: works for arm64, which binutils here cannot read): the
// instructions of every function matching the regex, in address order of the listing.
inline std::vector<RefInsn> go_objdump_function(const GoToolchain& tc, const std::string& binary,
                                                const std::string& symbol_regex) {
  std::vector<RefInsn> insns;
  for (auto& f : go_objdump_functions(tc, binary, symbol_regex)) insns.insert(insns.end(), f.insns.begin(), f.insns.end());
  return insns;
}

// The analysis test program (tests/go/analysis_targets) built with `tc`.
inline std::string build_targets(const GoToolchain& tc, std::vector<std::string> flags = {},
                                 std::vector<std::string> env = {}) {
  return build_go(GoBuild{"tests/go/analysis_targets", "./cmd/targets", tc, std::move(flags), std::move(env)});
}

// gtest prints a failing parameter with this instead of its bytes.
inline void PrintTo(const GoToolchain& tc, std::ostream* os) { *os << "go" << tc.version << " (" << tc.go << ")"; }

// gtest parameter names: "1.21" -> "go1_21".
inline std::string toolchain_name(const GoToolchain& tc) {
  std::string n = "go" + tc.version;
  for (char& c : n)
    if (c == '.') c = '_';
  return n;
}

}  // namespace gate::testing
