// A comparison's exit code from its values (verdict/exit_code.hpp).
#include "verdict/exit_code.hpp"

namespace gate::verdict {

ExitCode exit_code(const stats::Comparison& c, bool fail_on_suspect) {
  if (c.regressed() || (fail_on_suspect && c.suspected())) return ExitCode::kRegression;
  return c.measured_too_little ? ExitCode::kMeasure : ExitCode::kOk;
}

}  // namespace gate::verdict
