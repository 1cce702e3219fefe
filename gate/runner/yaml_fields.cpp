// The typed readers of gate.yaml's values (runner/yaml_fields.hpp): one YAML node each, the error
// at its line.
#include "runner/yaml_fields.hpp"

#include <array>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "common/numbers.hpp"

namespace gate::runner::yaml {

namespace fs = std::filesystem;

std::string key_text(const Ctx& c, const YAML::Node& k) {
  if (!k.IsScalar()) throw c.err(k, "?", "is not a plain key", "keys are names, e.g. runs: 5");
  return k.as<std::string>();
}

void check_keys(const Ctx& c, const YAML::Node& map, const std::string& what,
                const std::set<std::string>& allowed) {
  for (const auto& kv : map) {
    const std::string k = key_text(c, kv.first);
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw c.err(kv.first, k, "is not a known key of " + what, "use one of: " + list);
    }
  }
}

bool boolean(const Ctx& c, const YAML::Node& n, const std::string& key) {
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    throw c.err(n, key, "must be true or false, got '" + (n.IsScalar() ? n.as<std::string>() : "a list or map") + "'",
                "write " + key + ": true or " + key + ": false");
  }
}

std::optional<bool> bool_or(const Ctx& c, const YAML::Node& n, const std::string& key, const std::string& word,
                            const std::string& fix) {
  if (n.IsScalar() && n.Scalar() == word) return std::nullopt;
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    throw c.err(n, key,
                "must be true, false or " + word + ", got '" + (n.IsScalar() ? n.Scalar() : std::string("a list or map")) +
                    "'",
                fix);
  }
}

std::string str(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) throw c.err(n, key, "must be a string", "write it as key: value");
  return n.as<std::string>();
}

double number(const Ctx& c, const YAML::Node& n, const std::string& key, double lo, double hi) {
  double v;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    throw c.err(n, key, "must be a number, got '" + (n.IsScalar() ? n.as<std::string>() : "?") + "'", "");
  }
  if (!(v >= lo && v <= hi)) {
    std::ostringstream r;
    r << "must be between " << lo << " and " << hi << ", got " << v;
    throw c.err(n, key, r.str(), "");
  }
  return v;
}

std::string one_of(const Ctx& c, const YAML::Node& n, const std::string& key, std::initializer_list<const char*> choices) {
  const std::string v = str(c, n, key);
  std::string list;
  for (const char* ch : choices) {
    if (v == ch) return v;
    list += (list.empty() ? "" : ", ") + std::string(ch);
  }
  throw c.err(n, key, "is \"" + v + "\"", "use one of: " + list);
}

double duration_s(const Ctx& c, const YAML::Node& n, const std::string& key) {
  std::string s = str(c, n, key);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string unit = s.substr(i);
  double v = 0;
  try {
    v = std::stod(s.substr(0, i));
  } catch (...) {
    throw c.err(n, key, "is not a duration: '" + s + "'", "write e.g. 90s, 2m, 500ms");
  }
  double mul = unit.empty() || unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (mul < 0) throw c.err(n, key, "has an unknown unit '" + unit + "'", "use ms, s, m or h");
  if (v * mul <= 0) throw c.err(n, key, "must be positive", "");
  return v * mul;
}

double threshold(const Ctx& c, const YAML::Node& n, const std::string& key, bool below_one) {
  std::string s = str(c, n, key);
  const std::optional<double> parsed = parse_fraction(s);
  if (!parsed) throw c.err(n, key, "is not a threshold: '" + s + "'", "write a fraction (0.1) or a percentage (10%)");
  const double v = *parsed;
  // A threshold bands both ways: improvements too, and nothing gets 100% faster, so 100% or more is
  // refused here, not by gate ab after it measured (the options' check would).
  if (!below_one && !(v > 0 && v < 10)) throw c.err(n, key, "must be above 0% and below 1000%", "write e.g. 50% (or 0.5)");
  if (below_one && !(v > 0 && v < 1))
    throw c.err(n, key, "must be above 0% and below 100%: it is the band both ways, and nothing gets 100% faster",
                "write e.g. 10% (or 0.1); a noisy quantile takes a wider one, e.g. thresholds: {p99: 50%}");
  return v;
}

namespace {

const std::array<std::string, 4> kQuantiles = {"p50", "p90", "p99", "mean"};

}  // namespace

void check_quantile(const Ctx& c, const YAML::Node& n, const std::string& q) {
  for (const auto& k : kQuantiles)
    if (k == q) return;
  throw c.err(n, q, "is not a supported quantile", "use p50, p90, p99 or mean");
}

std::map<std::string, double> quantile_map(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) throw c.err(n, key, "must be a map of quantile: threshold", "e.g. {p50: 5%, p99: 20%}");
  std::map<std::string, double> out;
  for (const auto& kv : n) {
    std::string q = key_text(c, kv.first);
    check_quantile(c, kv.first, q);
    out[q] = threshold(c, kv.second, key + "." + q);
  }
  return out;
}

std::string absolute(const std::string& dir, const std::string& p) {
  return fs::path(p).is_absolute() ? p : (fs::path(dir) / p).lexically_normal().string();
}

}  // namespace gate::runner::yaml
