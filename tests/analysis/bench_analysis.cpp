// Micro benchmark of the analysis a `gate run` starts with, on the largest Go binary that builds
// offline here (cmd/compile from the newest toolchain's GOROOT), with .symtab and stripped.
// First prints the README's figure in one line ("resolve 50 globs in a NN MB stripped binary");
// `bench_analysis --summary` prints only that line.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/functions.hpp"
#include "analysis/inlining.hpp"
#include "analysis/probe_sites.hpp"
#include "common/error.hpp"
#include "support/go_build.hpp"

namespace {

using gate::analysis::FunctionTable;
using gate::elf::ElfFile;

// cmd/compile built from source, once per flags, cached like every test binary. The cmd module
// vendors its dependencies: -mod=vendor overrides the helper's GOFLAGS=-mod=mod (no network).
std::string compile_binary(bool stripped) {
  static std::map<bool, std::string> built;
  if (auto it = built.find(stripped); it != built.end()) return it->second;
  const auto tc = gate::testing::default_go();
  const auto goroot = std::filesystem::path(tc.go).parent_path().parent_path();
  std::vector<std::string> flags = {"-mod=vendor"};
  if (stripped) flags.push_back("-ldflags=-s -w");
  return built[stripped] = gate::testing::build_go({(goroot / "src" / "cmd").string(), "./compile", tc, flags, {}});
}

// 50 globs over the binary's own packages: the 45 largest as "pkg.*", and five that exercise
// '**', '?', a pointer receiver and generics.
std::vector<std::string> fifty_globs(const FunctionTable& table) {
  std::map<std::string, size_t> per_package;
  for (const auto& f : table.all()) {
    const size_t slash = f.name.rfind('/', f.name.find('['));
    const size_t dot = f.name.find('.', slash == std::string::npos ? 0 : slash);
    if (dot != std::string::npos && f.name.find_first_of("[( ") > dot) ++per_package[f.name.substr(0, dot)];
  }
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const auto& [pkg, n] : per_package) ranked.emplace_back(n, pkg);
  std::sort(ranked.rbegin(), ranked.rend());
  std::vector<std::string> globs = {"cmd/compile/**.String", "runtime.new?bject", "runtime.(*mheap).*",
                                    "cmd/compile/internal/ssa.rewriteValueAMD64_Op*", "slices.*[...]"};
  for (size_t i = 0; i < ranked.size() && globs.size() < 50; ++i) globs.push_back(ranked[i].second + ".*");
  return globs;
}

void set_counters(benchmark::State& state, const ElfFile& elf, const FunctionTable& table) {
  state.counters["functions"] = static_cast<double>(table.all().size());
  state.counters["binary_MB"] = static_cast<double>(std::filesystem::file_size(elf.path())) / 1e6;
  state.SetLabel(table.source());
}

void BM_OpenElf(benchmark::State& state) {
  const std::string path = compile_binary(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ElfFile::open(path));
}

void BM_BuildFunctionTable(benchmark::State& state) {
  const ElfFile elf = ElfFile::open(compile_binary(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(FunctionTable::from_elf(elf));
  set_counters(state, elf, FunctionTable::from_elf(elf));
}

void BM_Resolve50Globs(benchmark::State& state) {
  const ElfFile elf = ElfFile::open(compile_binary(state.range(0)));
  const FunctionTable table = FunctionTable::from_elf(elf);
  const auto globs = fifty_globs(table);
  size_t matched = 0;
  for (auto _ : state) {
    auto fns = gate::analysis::resolve(table, globs);
    matched = fns.size();
    benchmark::DoNotOptimize(fns);
  }
  set_counters(state, elf, table);
  state.counters["matched"] = static_cast<double>(matched);
}

// Open + table + 50 globs: what `gate run` pays before attaching.
void BM_OpenTableAndResolve(benchmark::State& state) {
  const std::string path = compile_binary(state.range(0));
  std::vector<std::string> globs;
  {
    const ElfFile elf = ElfFile::open(path);
    globs = fifty_globs(FunctionTable::from_elf(elf));
  }
  for (auto _ : state) {
    const ElfFile elf = ElfFile::open(path);
    const FunctionTable table = FunctionTable::from_elf(elf);
    benchmark::DoNotOptimize(gate::analysis::resolve(table, globs));
  }
}

// Probe sites for every function of the binary, per function.
void BM_ProbeSitesPerFunction(benchmark::State& state) {
  const ElfFile elf = ElfFile::open(compile_binary(state.range(0)));
  const FunctionTable table = FunctionTable::from_elf(elf);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(gate::analysis::find_probe_sites(elf, table, table.all()[i]));
    i = (i + 1) % table.all().size();
  }
  set_counters(state, elf, table);
}

// Inlined calls from DWARF (inflate + libdw walk): what `gate run` and `gate functions` add
// when the binary has DWARF (only the unstripped build does).
void BM_LoadInlineIndex(benchmark::State& state) {
  const ElfFile elf = ElfFile::open(compile_binary(false));
  size_t sites = 0;
  for (auto _ : state) {
    auto index = gate::analysis::InlineIndex::load(elf);
    sites = index ? index->inlined_call_count() : 0;
    benchmark::DoNotOptimize(index);
  }
  state.counters["inlined_calls"] = static_cast<double>(sites);
}
BENCHMARK(BM_LoadInlineIndex)->Unit(benchmark::kMillisecond);

// Argument: 0 = with .symtab, 1 = stripped (-ldflags='-s -w': the table comes from .gopclntab).
BENCHMARK(BM_OpenElf)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildFunctionTable)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resolve50Globs)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OpenTableAndResolve)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeSitesPerFunction)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The README figure: open the stripped binary, build its table from .gopclntab and resolve 50
// globs, as `gate run` does before attaching; the best of 5 (the first run also warms the cache).
void print_summary() {
  const std::string path = compile_binary(true);
  std::vector<std::string> globs;
  {
    const ElfFile elf = ElfFile::open(path);
    globs = fifty_globs(FunctionTable::from_elf(elf));
  }
  double best_ms = 1e9;
  size_t matched = 0, functions = 0;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const ElfFile elf = ElfFile::open(path);
    const FunctionTable table = FunctionTable::from_elf(elf);
    matched = gate::analysis::resolve(table, globs).size();
    functions = table.all().size();
    best_ms = std::min(best_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::printf("resolve 50 globs in a %.0f MB stripped binary: %.0f ms (open + .gopclntab table of %zu functions + "
              "matching; %zu matched)\n",
              mb, best_ms, functions, matched);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  print_summary();
  if (argc > 1 && std::strcmp(argv[1], "--summary") == 0) return 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
