// Builds the Go programs the tests trace (real binaries, built by a real Go toolchain), once per
// (source, toolchain, flags) in a cache under the build tree.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace gate::testing {

// Go toolchains found on this machine: {"1.19", "/usr/lib/go-1.19/bin/go"}, ...,
// {"1.27", "/opt/gate-go/1.27/usr/lib/go-1.27/bin/go"}; one per minor version, newest last.
struct GoToolchain {
  std::string version;  // "1.21"
  std::string go;       // path of the go command
  // 21 for "1.21": versions compare by it ("1.9" < "1.19" < "1.21").
  int minor() const {
    const auto dot = version.find('.');
    return dot == std::string::npos ? 0 : std::atoi(version.c_str() + dot + 1);
  }
};
std::vector<GoToolchain> go_toolchains();
// The slow configurations (arm64 cross builds, -gcflags=all=-l, which recompile the standard library
// for each toolchain) run on a representative set to keep the suite short: the oldest and newest
// installed toolchains and Go 1.26 (the last pclntab layout change). GATE_TEST_GO_FULL=1 makes every
// installed toolchain representative. README.md ("Supported Go") lists what runs where.
std::vector<GoToolchain> representative_toolchains();
bool is_representative(const GoToolchain& tc);

// The toolchain used by default (GATE_GO at configure time, else the newest found). Throws
// gate::Error when none is installed (fix: run ci/setup.sh).
GoToolchain default_go();

struct GoBuild {
  std::string src_dir;             // a directory with go.mod (absolute or relative to the repo root)
  std::string package = ".";       // what to build inside it
  GoToolchain toolchain = default_go();
  std::vector<std::string> flags;  // extra `go build` flags, e.g. {"-ldflags=-s -w"} or {"-buildmode=pie"}
  std::vector<std::string> env;    // extra environment, e.g. {"CGO_ENABLED=1", "GOARCH=arm64"}
};
// Returns the absolute path of the built binary; rebuilds only when the inputs changed.
// Throws gate::Error with go's output when the build fails.
std::string build_go(const GoBuild& b);
// The bundled example's driver (examples/shop, ./cmd/shop) built with the default toolchain.
std::string build_shop_example();

}  // namespace gate::testing
