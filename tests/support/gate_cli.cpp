// run_gate: the gate binary of this build tree through gate's own run_process.
#include "support/gate_cli.hpp"

#include <regex>
#include <sstream>

#include "common/subprocess.hpp"

namespace gate::testing {

CliOutcome run_gate(const std::vector<std::string>& args, const CliOptions& options) {
  ProcessSpec spec;
  spec.argv = options.prefix;
  spec.argv.push_back(GATE_BINARY_DIR "/gate/cli/gate");
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = options.cwd;
  spec.env = options.env;
  spec.during = options.during;
  const ProcessResult r = run_process(spec);
  return {r.status, r.out, r.err};
}

CliOutcome run_program(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::map<std::string, std::string>& env) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.env = env;
  const ProcessResult r = run_process(spec);
  return {r.status, r.out, r.err};
}

std::vector<std::string> regressions(const std::string& report) {
  std::vector<std::string> out;
  std::istringstream in(report);
  static const std::regex line(R"(^regression\s+(\S+))");
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) out.push_back(m[1]);
  }
  return out;
}

}  // namespace gate::testing
