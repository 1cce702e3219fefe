// Loads the reference values in tests/stats/fixtures (JSON written by make_fixtures.py from
// numpy/scipy), so the tests compare gate against an independent implementation.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace gate::testing {

inline nlohmann::json load_fixture(const std::string& name) {
  const std::string path = std::string(GATE_STATS_FIXTURES) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open (regenerate with tests/stats/make_fixtures.py)");
  return nlohmann::json::parse(in);
}

// One non-empty member of a fixture, by value: `for (auto& c : fixture(f, k))` then keeps it alive
// (iterating over load_fixture(f)[k] would iterate a destroyed temporary).
inline nlohmann::json fixture(const std::string& name, const std::string& key) {
  nlohmann::json all = load_fixture(name);
  if (!all.contains(key) || all[key].empty())
    throw std::runtime_error(name + ": no \"" + key + "\" (regenerate with tests/stats/make_fixtures.py)");
  return all[key];
}

}  // namespace gate::testing
