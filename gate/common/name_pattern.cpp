// Name patterns: parsing and matching globs over Go symbol names (common/name_pattern.hpp).
#include "common/name_pattern.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace gate {
namespace {

constexpr std::string_view kGenericToken = "[...]";

// End (one past) of the balanced "[...]" that starts at `pos`, or npos.
size_t balanced_end(std::string_view name, size_t pos) {
  if (pos >= name.size() || name[pos] != '[') return std::string_view::npos;
  int depth = 0;
  for (size_t i = pos; i < name.size(); ++i) {
    if (name[i] == '[') ++depth;
    if (name[i] == ']' && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

}  // namespace

NamePattern NamePattern::parse(std::string_view text) {
  NamePattern p;
  p.text_ = std::string(text);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 == text.size())
        throw Error::make("pattern \"" + p.text_ + "\"", "ends with a lone '\\'",
                          "escape a literal backslash as \\\\, or remove it");
      p.tokens_.push_back({Token::kChar, text[++i]});
    } else if (c == '*' && i > 0 && text[i - 1] == '(') {
      p.tokens_.push_back({Token::kChar, '*'});  // "(*T)": a pointer receiver, not a wildcard
    } else if (c == '*') {
      const bool slash = i + 1 < text.size() && text[i + 1] == '*';
      p.tokens_.push_back({slash ? Token::kRunWithSlash : Token::kRun, 0});
      i += slash ? 1 : 0;
      ++p.runs_;
    } else if (c == '?') {
      p.tokens_.push_back({Token::kOne, 0});
    } else if (text.substr(i).starts_with(kGenericToken)) {
      p.tokens_.push_back({Token::kGeneric, 0});
      i += kGenericToken.size() - 1;
    } else {
      p.tokens_.push_back({Token::kChar, c});
    }
  }
  auto is_char = [](const Token& t) { return t.kind == Token::kChar; };
  p.glob_ = !std::all_of(p.tokens_.begin(), p.tokens_.end(), is_char);
  for (const auto& t : p.tokens_) {
    if (!is_char(t)) break;
    p.prefix_ += t.c;
  }
  for (auto it = p.tokens_.rbegin(); p.glob_ && it != p.tokens_.rend() && is_char(*it); ++it) p.suffix_.insert(0, 1, it->c);
  if (!p.glob_) p.literal_ = p.prefix_;
  return p;
}

bool NamePattern::match_from(size_t ti, std::string_view name, size_t ni, std::vector<uint8_t>* failed) const {
  while (ti < tokens_.size()) {
    const Token& t = tokens_[ti];
    if (t.kind == Token::kRun || t.kind == Token::kRunWithSlash) {
      const size_t memo = ti * (name.size() + 1) + ni;
      if (failed && (*failed)[memo]) return false;
      for (size_t k = ni;; ++k) {
        if (match_from(ti + 1, name, k, failed)) return true;
        if (k == name.size() || (t.kind == Token::kRun && name[k] == '/')) break;
      }
      if (failed) (*failed)[memo] = 1;
      return false;
    }
    if (t.kind == Token::kGeneric) {
      ni = balanced_end(name, ni);
      if (ni == std::string_view::npos) return false;
    } else {
      if (ni >= name.size()) return false;
      if (t.kind == Token::kChar ? name[ni] != t.c : name[ni] == '/') return false;
      ++ni;
    }
    ++ti;
  }
  return ni == name.size();
}

bool NamePattern::matches(std::string_view name) const {
  if (!glob_) return name == literal_;
  // Most names fail on the literal ends; test those before any backtracking.
  if (name.size() < prefix_.size() + suffix_.size() || !name.starts_with(prefix_) || !name.ends_with(suffix_))
    return false;
  if (runs_ < 2) return match_from(0, name, 0, nullptr);
  std::vector<uint8_t> failed((tokens_.size() + 1) * (name.size() + 1), 0);
  return match_from(0, name, 0, &failed);
}

}  // namespace gate
