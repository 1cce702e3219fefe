// A double as a JSON value for every JSON gate writes (the report and its benchmark section): NaN
// and infinities are not JSON numbers, so null says "undefined".
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace gate::report {

inline nlohmann::ordered_json json_number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace gate::report
