// Builds Go test programs with a chosen installed toolchain, offline and reproducibly, caching
// each binary under GATE_BINARY_DIR/gobin/ by a hash of everything that can change the output.
#include "support/go_build.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "common/subprocess.hpp"

extern char** environ;

namespace gate::testing {
namespace {

namespace fs = std::filesystem;

// FNV-1a, 64 bit: a cache key only has to change when an input changes, not resist attackers.
struct Fnv64 {
  uint64_t h = 1469598103934665603ull;
  void add(const void* data, size_t n) {
    auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  // Length-prefixed so that ("ab","c") and ("a","bc") differ.
  void add(const std::string& s) {
    uint64_t n = s.size();
    add(&n, sizeof n);
    add(s.data(), s.size());
  }
};

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

fs::path source_dir_of(const std::string& src_dir) {
  fs::path p(src_dir);
  return p.is_absolute() ? p : fs::path(GATE_SOURCE_DIR) / p;
}

// Every regular file under the source directory (sorted, so the key is stable), its relative
// path and contents. Hidden directories (.git) and Go's own output cannot change the build.
void hash_tree(Fnv64& h, const fs::path& root) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename().string().starts_with(".")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    h.add(fs::relative(f, root).string());
    std::ifstream in(f, std::ios::binary);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    h.add(content);
  }
}

std::map<std::string, std::string> build_environment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  const std::string bin = GATE_BINARY_DIR;
  env["GOTOOLCHAIN"] = "local";  // never download another toolchain: tests run offline
  env["GOFLAGS"] = "-mod=mod";
  // ci/env.sh points GOCACHE at $HOME/.cache/go-build: compiled standard libraries (minutes per
  // toolchain and configuration) then outlive a fresh build directory. Else: inside the build tree.
  if (env["GOCACHE"].empty()) env["GOCACHE"] = bin + "/gocache";
  env["GOPATH"] = bin + "/gopath";
  if (!env.count("HOME") || env["HOME"].empty()) env["HOME"] = bin;
  for (const auto& kv : extra) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

struct RunResult {
  int status = -1;
  std::string output;  // stdout and stderr interleaved
};

// Not system(): arguments (-ldflags=-s -w) must not go through a shell.
RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              const fs::path& cwd) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.env = env;
  spec.clear_env = true;
  spec.merge_stderr = true;
  spec.cwd = cwd.string();
  const ProcessResult p = run_process(spec);
  return {p.status, p.out};
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

// Debian's own toolchains live in /usr/lib/go-1.XX; those of later suites, which ci/setup.sh
// unpacks rather than installs, in GATE_GO_PREFIX/1.XX/usr/lib/go-1.XX (tests/CMakeLists.txt
// globs the same two places to make one ctest entry per version).
std::vector<GoToolchain> go_toolchains() {
  std::map<int, GoToolchain> found;  // by minor version: the system's copy wins over the prefix's
  static const std::regex dir_re(R"(go-(1\.[0-9]+))");
  auto scan = [&](const fs::path& dir) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (!std::regex_match(name, m, dir_re)) continue;
      const fs::path go = entry.path() / "bin" / "go";
      if (access(go.c_str(), X_OK) == 0) {
        GoToolchain tc{m[1].str(), go.string()};
        found.emplace(tc.minor(), tc);
      }
    }
  };
  scan("/usr/lib");
  std::error_code ec;
  for (const auto& v : fs::directory_iterator(GATE_GO_PREFIX, ec)) scan(v.path() / "usr" / "lib");
  std::vector<GoToolchain> out;
  for (auto& [minor, tc] : found) out.push_back(std::move(tc));
  return out;
}

bool is_representative(const GoToolchain& tc) {
  const char* full = std::getenv("GATE_TEST_GO_FULL");
  if (full && std::string(full) == "1") return true;
  const auto all = go_toolchains();
  return !all.empty() && (tc.minor() == all.front().minor() || tc.minor() == all.back().minor() || tc.minor() == 26);
}

std::vector<GoToolchain> representative_toolchains() {
  std::vector<GoToolchain> out;
  for (const auto& tc : go_toolchains())
    if (is_representative(tc)) out.push_back(tc);
  return out;
}

GoToolchain default_go() {
  auto all = go_toolchains();
  const std::string configured = GATE_DEFAULT_GO;
  if (!configured.empty()) {
    std::error_code ec;
    auto want = fs::canonical(configured, ec);
    for (const auto& t : all)
      if (!ec && fs::canonical(t.go, ec) == want) return t;
    // A go outside /usr/lib/go-1.*: ask it for its version.
    auto r = run({configured, "env", "GOVERSION"}, build_environment({}), "/");
    std::smatch m;
    static const std::regex ver_re(R"(go(1\.[0-9]+))");
    if (r.status == 0 && std::regex_search(r.output, m, ver_re)) return {m[1].str(), configured};
  }
  if (all.empty())
    throw Error::make("Go toolchain", "none found under /usr/lib/go-1.*/bin/go or " GATE_GO_PREFIX "/1.*",
                      "run ci/setup.sh, or configure with -DGATE_GO=/path/to/go");
  return all.back();
}

std::string build_go(const GoBuild& b) {
  const fs::path src = source_dir_of(b.src_dir);
  if (!fs::exists(src / "go.mod"))
    throw Error::make(src.string(), "no go.mod in the Go source directory",
                      "pass the directory that holds go.mod as GoBuild::src_dir");

  Fnv64 h;
  hash_tree(h, src);
  h.add(b.toolchain.go);
  h.add(b.toolchain.version);
  h.add(b.package);
  for (const auto& f : b.flags) h.add(f);
  for (const auto& e : b.env) h.add(e);

  const fs::path out_dir = fs::path(GATE_BINARY_DIR) / "gobin";
  fs::create_directories(out_dir);
  const fs::path out = out_dir / (src.filename().string() + "-go" + b.toolchain.version + "-" + hex16(h.h));
  if (fs::exists(out)) return out.string();

  // Build to a private name, then rename: tests run in parallel and may build the same binary.
  static std::atomic<int> counter{0};
  const fs::path tmp = out.string() + ".tmp" + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::vector<std::string> argv = {b.toolchain.go, "build", "-o", tmp.string()};
  argv.insert(argv.end(), b.flags.begin(), b.flags.end());
  argv.push_back(b.package);
  auto r = run(argv, build_environment(b.env), src);
  if (r.status != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw Error::make(src.string(),
                      "`" + join(argv) + "` failed (exit " + std::to_string(r.status) + "):\n" + r.output,
                      "fix the Go program or the build flags; the toolchain is " + b.toolchain.go);
  }
  fs::rename(tmp, out);
  return out.string();
}

std::string build_shop_example() {
  GoBuild b;
  b.src_dir = std::string(GATE_SOURCE_DIR) + "/examples/shop";
  b.package = "./cmd/shop";
  return build_go(b);
}

}  // namespace gate::testing
