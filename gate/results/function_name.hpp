// FunctionName: a Go function's name as results hold it, stored once per process. A 10,000-function,
// 20-run result otherwise held 200,000 copies of its names (and as many more in its call graph).
#pragma once

#include <compare>
#include <ostream>
#include <string>
#include <string_view>

namespace gate {

// Immutable and interned: copies are one pointer, equal names are the same object. Reads as a
// `const std::string&` wherever one is expected. The intern table lives as long as the process
// (a name costs its bytes once, however many results load it); interning is thread-safe.
class FunctionName {
 public:
  FunctionName();
  FunctionName(std::string_view name);  // NOLINT: a name is written as its text
  FunctionName(const std::string& name) : FunctionName(std::string_view(name)) {}  // NOLINT
  FunctionName(const char* name) : FunctionName(std::string_view(name)) {}         // NOLINT

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }  // NOLINT
  operator std::string_view() const { return *text_; }    // NOLINT
  const char* c_str() const { return text_->c_str(); }
  size_t size() const { return text_->size(); }
  bool empty() const { return text_->empty(); }

  friend bool operator==(const FunctionName& a, const FunctionName& b) { return a.text_ == b.text_; }
  friend bool operator==(const FunctionName& a, std::string_view b) { return *a.text_ == b; }
  friend bool operator==(const FunctionName& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator==(const FunctionName& a, const char* b) { return *a.text_ == b; }
  friend std::strong_ordering operator<=>(const FunctionName& a, const FunctionName& b) {
    return a.text_ == b.text_ ? std::strong_ordering::equal : *a.text_ <=> *b.text_;
  }
  friend std::strong_ordering operator<=>(const FunctionName& a, std::string_view b) { return std::string_view(*a.text_) <=> b; }
  friend std::string operator+(const FunctionName& a, std::string_view b) { return *a.text_ + std::string(b); }
  friend std::string operator+(std::string_view a, const FunctionName& b) { return std::string(a) + *b.text_; }
  friend std::string operator+(const FunctionName& a, const char* b) { return *a.text_ + b; }
  friend std::string operator+(const char* a, const FunctionName& b) { return a + *b.text_; }
  friend std::string operator+(const FunctionName& a, const std::string& b) { return *a.text_ + b; }
  friend std::string operator+(const std::string& a, const FunctionName& b) { return a + *b.text_; }
  friend std::ostream& operator<<(std::ostream& os, const FunctionName& n) { return os << *n.text_; }

 private:
  const std::string* text_;
};

}  // namespace gate

template <>
struct std::hash<gate::FunctionName> {
  size_t operator()(const gate::FunctionName& n) const noexcept { return std::hash<std::string>()(n.str()); }
};
