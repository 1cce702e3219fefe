// The trend page: one self-contained HTML file (inline SVG, no script, no server) with, per
// function and machine, p50 and p99 over commits, each commit's run-to-run spread as a band,
// change points marked and commits labelled; and the same series as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "history/render.hpp"

namespace gate::history {

struct TrendFunction {
  std::string function;
  std::vector<Series> series;   // p50 and p99 (any quantiles), one per machine
  std::vector<Change> changes;  // of those series
};

std::string trend_html(const std::vector<TrendFunction>& fns, const Machines& machines, const std::string& source);
nlohmann::json trend_json(const std::vector<TrendFunction>& fns, const Machines& machines, const ChangePointParams& p);

}  // namespace gate::history
