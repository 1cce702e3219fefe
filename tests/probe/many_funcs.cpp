// Generates and builds the many-function program: `go run generate.go` writes the sources under
// the build tree, build_go compiles and caches them like every other test program.
#include "probe/many_funcs.hpp"

#include <cstdio>
#include <filesystem>

#include "common/error.hpp"
#include "runner/process.hpp"

namespace gate::testing {

namespace fs = std::filesystem;

std::string manyfuncs_name(int k) {
  char b[32];
  std::snprintf(b, sizeof b, "main.f%05d", k);
  return b;
}

std::string manyfuncs_binary(int functions, const GoToolchain& toolchain) {
  const fs::path src = fs::path(GATE_BINARY_DIR) / "manyfuncs" / (std::to_string(functions) + "-go" + toolchain.version);
  const std::string gen = std::string(GATE_SOURCE_DIR) + "/tests/go/manyfuncs/generate.go";
  const std::string bin = GATE_BINARY_DIR;
  // Regenerated every time (cheap); build_go rebuilds only when the generated text changed.
  const std::map<std::string, std::string> env = {
      {"GOTOOLCHAIN", "local"}, {"GOFLAGS", "-mod=mod"}, {"GOCACHE", bin + "/gocache"},
      {"GOPATH", bin + "/gopath"}, {"HOME", bin}};
  std::string log;
  const std::string cmd = toolchain.go + " run " + gen + " -n " + std::to_string(functions) + " -out " + src.string();
  if (runner::run_shell(cmd, bin, env, &log, nullptr) != 0) {
    throw Error::make(gen, "failed: " + log, "run `" + cmd + "` by hand");
  }
  GoBuild b;
  b.src_dir = src.string();
  b.toolchain = toolchain;
  return build_go(b);
}

}  // namespace gate::testing
