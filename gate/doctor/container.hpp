// gate doctor's view of a container or pod: the PID namespace, the capabilities held, seccomp, the
// cgroup's CPU quota and throttling, and who the workload runs as; each line with the fix for the
// CI systems it names (docs/ci.md, Containers).
#pragma once

#include <vector>

#include "doctor/doctor.hpp"

namespace gate::doctor {

// Fills HostFacts' container fields.
void read_container(HostFacts& h);
// Appends the pid_namespace, capabilities, seccomp and cpu_quota checks.
void judge_container(const HostFacts& h, std::vector<Check>& out);

}  // namespace gate::doctor
