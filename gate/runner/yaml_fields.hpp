// The typed readers of gate.yaml's values (runner/ only: config*.cpp): each turns one YAML node into
// a bool, a string, a number, a duration or a threshold, or throws an error that names the file,
// the line, the key and the fix. Declared here so that every config_*.cpp reads alike.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/error.hpp"

namespace gate::runner::yaml {

// The file an error names (its label: a path, or e.g. "origin/main:gate.yaml"), and the error at
// a node's line.
struct Ctx {
  std::string file;
  Error err(const YAML::Node& n, const std::string& key, const std::string& cause,
            const std::string& fix) const {
    std::string where = file;
    if (n.IsDefined() && n.Mark().line >= 0) where += ":" + std::to_string(n.Mark().line + 1);
    return Error::make(where + ": '" + key + "'", cause, fix);
  }
};

// A map key as text; a key that is itself a list or map is an error at its line.
std::string key_text(const Ctx& c, const YAML::Node& k);

// Every key of `map` is in `allowed`, else an error listing them (`what` names the map).
void check_keys(const Ctx& c, const YAML::Node& map, const std::string& what,
                const std::set<std::string>& allowed);

bool boolean(const Ctx& c, const YAML::Node& n, const std::string& key);

// A key that takes true, false or one word (speed_normalization: fitted, exclude_preemption:
// auto): nullopt for the word; anything else is an error naming the three and `fix`.
std::optional<bool> bool_or(const Ctx& c, const YAML::Node& n, const std::string& key, const std::string& word,
                            const std::string& fix);

std::string str(const Ctx& c, const YAML::Node& n, const std::string& key);

double number(const Ctx& c, const YAML::Node& n, const std::string& key, double lo, double hi);

// A string from a fixed list: the error names the key, the value and the choices.
std::string one_of(const Ctx& c, const YAML::Node& n, const std::string& key, std::initializer_list<const char*> choices);

// "90s", "2m", "500ms", "1h" or a plain number of seconds.
double duration_s(const Ctx& c, const YAML::Node& n, const std::string& key);

// A threshold: 0.1, "10%". below_one: a band (it bands improvements too); else a change ratio
// (calls_change: 50% = 1.5x more or fewer calls), up to 10.
double threshold(const Ctx& c, const YAML::Node& n, const std::string& key, bool below_one = true);

// `q` is a quantile a verdict may test (p50, p90, p99, mean), else an error at n's line.
void check_quantile(const Ctx& c, const YAML::Node& n, const std::string& q);

// {quantile: threshold, ...}, each quantile checked, each threshold a band.
std::map<std::string, double> quantile_map(const Ctx& c, const YAML::Node& n, const std::string& key);

// A path of the config: relative ones start at the config's directory `dir`.
std::string absolute(const std::string& dir, const std::string& p);

}  // namespace gate::runner::yaml
