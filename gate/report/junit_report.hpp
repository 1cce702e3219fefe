// The JUnit XML report, for CI systems that show test results (Jenkins `junit`, GitLab
// `artifacts:reports:junit`): one testcase per function; a regression is a failure whose message
// carries the numbers, insufficient data is skipped, everything else passes.
#pragma once

#include <string>

#include "report/report_inputs.hpp"
#include "stats/compare.hpp"

namespace gate::report {

// One <testsuites> holding one <testsuite> ("gate check shop"). Valid against tests/report/junit.xsd
// (the subset of the Ant/Surefire format that Jenkins and GitLab both read). Functions found on one
// side only are skipped testcases, so that nothing disappears silently.
std::string render_junit(const stats::Comparison& c, const ReportInputs& in);

}  // namespace gate::report
