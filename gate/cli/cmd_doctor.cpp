// gate doctor: can gate measure here? Prints each check (ok / warn / fail, with the fix) as text or
// JSON. Exit 0 when gate can run, 3 when it cannot, 2 when the config cannot be read.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sys/utsname.h>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "common/error.hpp"
#include "common/version.hpp"
#include "doctor/doctor.hpp"
#include "doctor/uprobe_hit_cost.hpp"
#include "runner/run_as.hpp"

namespace gate::cli {
namespace {

struct DoctorFlags {
  std::string config;
  std::string format = "text";
  bool no_attach = false;
  bool host_line = false;
  std::string run_as;  // as gate run's --run-as: who the workload would run as
};

void print_text(const std::vector<doctor::Check>& checks, int rc, const std::string& host) {
  std::printf("gate doctor (gate %s)\n", kVersion);
  std::printf("  host  %s\n", host.c_str());
  for (const auto& c : checks) {
    std::printf("  %-4s  %-19s %s\n", doctor::to_string(c.status), c.name.c_str(), c.detail.c_str());
    if (!c.fix.empty()) std::printf("        %-19s fix: %s\n", "", c.fix.c_str());
  }
  int failed = 0;
  for (const auto& c : checks) failed += c.status == doctor::Status::kFail;
  if (rc == 0)
    std::printf("gate can run here\n");
  else
    std::printf("gate cannot run here: %d check%s failed (fixes above)\n", failed, failed == 1 ? "" : "s");
}

void print_json(const std::vector<doctor::Check>& checks, int rc, const std::string& host, const doctor::ProbeCost& cost) {
  nlohmann::json j;
  j["gate_version"] = kVersion;
  j["host"] = host;
  j["probe_cost"] = cost.measured ? nlohmann::json{{"emulated_ns", cost.emulated_ns}, {"single_stepped_ns", cost.single_stepped_ns},
                                                   {"rounds", cost.rounds}, {"calls", cost.calls}}
                                  : nlohmann::json{{"not_measured", cost.why_not}};
  j["can_run"] = rc == 0;
  j["exit_code"] = rc;
  j["checks"] = nlohmann::json::array();
  for (const auto& c : checks)
    j["checks"].push_back({{"name", c.name}, {"status", doctor::to_string(c.status)}, {"detail", c.detail}, {"fix", c.fix}});
  std::printf("%s\n", j.dump(2).c_str());
}

}  // namespace

std::function<int()> add_doctor(CLI::App& app, const Globals&) {
  auto f = std::make_shared<DoctorFlags>();
  const Rerun no_report = Rerun::kNoReport;
  option(app, "-c,--config", no_report, f->config, "gate.yaml: also check its binary, its maps and a trial attach");
  option(app, "--format", no_report, f->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  flag(app, "--no-attach", no_report, f->no_attach, "Skip the trial attach of one declared function");
  option(app, "--run-as", no_report, f->run_as,
         "Check the user the workload would run as (a name or uid), as the measuring commands' --run-as");
  flag(app, "--host-line", no_report, f->host_line,
       "Print only the one-line host report (kernel, CPUs, measured cost of an emulated and of a "
       "single-stepped probe hit) and exit 0; for CI logs and summaries");
  return [f]() {
    const doctor::HostFacts host = doctor::read_host();
    // Probe costs only where BPF may be loaded: elsewhere the privileges check says why.
    doctor::ProbeCost cost;
    if (host.missing_privileges.empty())
      cost = doctor::measure_probe_cost();
    else
      cost.why_not = "no BPF privileges: see privileges";
    const std::string line = doctor::host_line(host.kernel_release, cost);
    if (f->host_line) {
      std::printf("%s\n", line.c_str());
      return 0;
    }
    std::vector<doctor::Check> checks = doctor::judge_host(host);
    int rc = 0;
    runner::Config cfg;
    if (!f->config.empty()) {
      try {
        cfg = runner::load_config(f->config);
        doctor::check_config(cfg, host, !f->no_attach, checks);
      } catch (const Error& e) {
        checks.push_back({"config", doctor::Status::kFail, e.summary(), e.fix()});
        rc = static_cast<int>(ExitCode::kUsage);
      }
    }
    if (!f->run_as.empty()) {
      cfg.run_as = f->run_as;
      cfg.run_as_from_flag = true;
    }
    try {
      checks.push_back(doctor::judge_run_as(runner::run_as_of(cfg)));
    } catch (const Error& e) {
      checks.push_back({"run_as", doctor::Status::kFail, e.summary(), e.fix()});
    }
    if (rc == 0) rc = doctor::exit_code(checks);
    if (f->format == "json")
      print_json(checks, rc, line, cost);
    else
      print_text(checks, rc, line);
    return rc;
  };
}

}  // namespace gate::cli
