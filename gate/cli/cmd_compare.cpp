// `gate compare BASE.json HEAD.json`: the verdict on two result files, offline (no root).
#include "cli/commands.hpp"
#include "cli/verdict.hpp"

namespace gate::cli {

std::function<int()> add_compare(CLI::App& app, const Globals& g) {
  struct Args {
    std::string base, head, config;
  };
  auto a = std::make_shared<Args>();
  app.add_option("base", a->base, "Baseline result (gate record / gate run --out)")->required();
  app.add_option("head", a->head, "Result to judge")->required();
  app.add_option("-c,--config", a->config, "gate.yaml whose thresholds and quantiles apply (default: built-in)");
  app.footer(
      "Examples:\n"
      "  gate compare baselines/shop.json head.json\n"
      "  gate compare base.json head.json -c gate.yaml");
  return [a, &g]() -> int {
    const ResultFile base = load_baseline(a->base, a->config);
    const ResultFile head = load_result_file(a->head);
    if (head.partial) {
      throw Error::make(a->head, "is a partial result (" + head.partial_reason + ")",
                        "compare only complete runs: re-run gate run/check", ExitCode::kMeasure);
    }
    std::optional<runner::Config> cfg;
    if (!a->config.empty()) cfg = runner::load_config(a->config);
    const auto opts = compare_options(cfg ? &*cfg : nullptr, head.functions);
    const auto c = stats::compare(base.runs, head.runs, base, head, opts);
    return print_report(c, g);
  };
}

}  // namespace gate::cli
