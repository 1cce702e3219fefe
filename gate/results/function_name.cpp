// FunctionName's intern table: one node per distinct name, never freed (names outlive any one
// result: reports and baselines keep them), guarded by a mutex (two results load in parallel).
#include "results/function_name.hpp"

#include <mutex>
#include <unordered_set>

namespace gate {

namespace {

struct Hash {
  using is_transparent = void;  // look up a string_view without making a std::string first
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};

struct Table {
  std::mutex mutex;
  std::unordered_set<std::string, Hash, std::equal_to<>> names;  // node-based: addresses never change
};

Table& table() {
  static Table* t = new Table;  // never destroyed: names may be read during static destruction
  return *t;
}

const std::string* empty_name() {
  static const std::string* e = new std::string;
  return e;
}

const std::string* intern(std::string_view name) {
  if (name.empty()) return empty_name();  // every default-made FunctionRun: no lock
  Table& t = table();
  std::lock_guard lock(t.mutex);
  if (auto it = t.names.find(name); it != t.names.end()) return &*it;
  return &*t.names.emplace(name).first;
}

}  // namespace

FunctionName::FunctionName() : text_(empty_name()) {}
FunctionName::FunctionName(std::string_view name) : text_(intern(name)) {}

}  // namespace gate
