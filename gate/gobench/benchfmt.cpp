// The benchfmt reader: line classification and field parsing, with a warning naming every line that
// starts like a benchmark result but is not one (interleaved prints, truncated output).
#include "gobench/benchfmt.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gate::gobench {
namespace {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// benchfmt: "Benchmark" followed by the end of the name or a character that is not a lower-case
// letter (BenchmarkFoo yes, Benchmarking no).
bool is_result_line(std::string_view line) {
  constexpr std::string_view kPrefix = "Benchmark";
  if (line.substr(0, kPrefix.size()) != kPrefix) return false;
  return line.size() == kPrefix.size() || !std::islower(static_cast<unsigned char>(line[kPrefix.size()]));
}

// benchfmt: a key starts with a lower-case letter and has no spaces or upper-case letters; the
// value is the rest of the line after ':', trimmed.
bool config_line(std::string_view line, std::string* key, std::string* value) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0 || !std::islower(static_cast<unsigned char>(line[0]))) return false;
  const std::string_view k = line.substr(0, colon);
  if (std::any_of(k.begin(), k.end(), [](char c) {
        return std::isspace(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c));
      }))
    return false;
  std::string_view v = line.substr(colon + 1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  *key = k;
  *value = v;
  return true;
}

bool parse_count(std::string_view s, uint64_t* out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_value(std::string_view s, double* out) {
  const std::string z(s);
  char* end = nullptr;
  *out = std::strtod(z.c_str(), &end);
  return !z.empty() && end == z.c_str() + z.size() && std::isfinite(*out);
}

// The result on one line, or the reason it is not one.
std::string parse_result(std::string_view line, BenchmarkRun* b) {
  const auto f = fields(line);
  if (f.size() < 2) return "no iteration count after the name";
  b->name = f[0];
  if (!parse_count(f[1], &b->iterations))
    return "iteration count \"" + std::string(f[1]) + "\" is not a whole number (did the benchmark print to stdout?)";
  if (f.size() < 4) return "no measurement (value and unit) after the iteration count";
  if (f.size() % 2 != 0) return "measurement \"" + std::string(f.back()) + "\" has no unit";
  for (size_t i = 2; i + 1 < f.size(); i += 2) {
    double v = 0;
    if (!parse_value(f[i], &v))
      return "value \"" + std::string(f[i]) + "\" of unit \"" + std::string(f[i + 1]) + "\" is not a finite number";
    b->metrics.emplace_back(std::string(f[i + 1]), v);
  }
  return "";
}

}  // namespace

std::string_view base_name(std::string_view name) {
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == name.size()) return name;
  const std::string_view digits = name.substr(dash + 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return name;
  return name.substr(0, dash);
}

bool higher_is_better(std::string_view unit, const std::vector<std::string>& declared_higher) {
  if (std::find(declared_higher.begin(), declared_higher.end(), unit) != declared_higher.end()) return true;
  return unit.size() > 2 && unit.substr(unit.size() - 2) == "/s";
}

Parsed parse(std::string_view text, const std::string& origin) {
  Parsed out;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string key, value;
    if (is_result_line(line)) {
      BenchmarkRun b;
      const std::string why = parse_result(line, &b);
      if (!why.empty()) {
        out.warnings.push_back(origin + ":" + std::to_string(line_no) + ": \"" + std::string(line.substr(0, 160)) +
                               "\" is not a benchmark result: " + why + "; skipped");
        continue;
      }
      const auto pkg = out.config.find("pkg");
      if (pkg != out.config.end()) b.pkg = pkg->second;
      out.benchmarks.push_back(std::move(b));
    } else if (line.substr(0, 5) == "Unit " || line.substr(0, 5) == "Unit\t") {
      const auto f = fields(line);
      if (f.size() >= 2 && std::find(f.begin() + 2, f.end(), std::string_view("better=higher")) != f.end())
        out.higher_is_better.emplace_back(f[1]);
    } else if (config_line(line, &key, &value)) {
      out.config[key] = value;
    }
  }
  return out;
}

}  // namespace gate::gobench
