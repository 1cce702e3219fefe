// Bucket series names and the checks that turn a bucket_by request and the function's DWARF
// arguments into what the kernel reads at the entry (register, width, how to read it, bounds).
#include "plan/buckets.hpp"

#include <optional>
#include <stdexcept>

#include "common/error.hpp"
#include "common/format.hpp"

namespace gate::plan {

namespace {

// The expression a bucket name shows: "len(b)", "n", "p".
std::string subject(const BucketBy& s) { return s.by == "len" ? "len(" + s.arg + ")" : s.arg; }

std::string arg_list(const analysis::FunctionArgs& f) {
  std::string out;
  for (const auto& a : f.args) out += (out.empty() ? "" : ", ") + a.name + " " + a.type;
  return out.empty() ? "none" : out;
}

// How `by` reads an argument of this kind, and which of its registers: a string's or slice's
// length is its second word; everything else its first.
std::optional<std::pair<probe::ArgBucketSpec::Read, size_t>> reading(const std::string& by,
                                                                     const analysis::Argument& a) {
  using R = probe::ArgBucketSpec::Read;
  using K = analysis::ArgKind;
  if (by == "len" && (a.kind == K::kString || a.kind == K::kSlice)) return std::pair{R::kSigned, size_t{1}};
  if (by == "len" && (a.kind == K::kMap || a.kind == K::kChan) && a.len_offset) return std::pair{R::kDeref, size_t{0}};
  if (by == "value" && a.kind == K::kInt) return std::pair{R::kSigned, size_t{0}};
  if (by == "value" && (a.kind == K::kUint || a.kind == K::kBool)) return std::pair{R::kUnsigned, size_t{0}};
  if (by == "nil" && (a.kind == K::kPointer || a.kind == K::kMap || a.kind == K::kChan))
    return std::pair{R::kNil, size_t{0}};
  return std::nullopt;
}

}  // namespace

std::vector<std::string> bucket_names(const std::string& function, const BucketBy& s) {
  std::vector<std::string> out;
  if (s.by == "nil") return {function + "{" + s.arg + "==nil}", function + "{" + s.arg + "!=nil}"};
  const std::string x = subject(s);
  const auto& b = s.bound_texts;
  for (size_t i = 0; i <= b.size(); ++i) {
    if (i == 0) out.push_back(function + "{" + x + "<" + b[0] + "}");
    else if (i == b.size()) out.push_back(function + "{" + x + ">=" + b[i - 1] + "}");
    else out.push_back(function + "{" + b[i - 1] + "<=" + x + "<" + b[i] + "}");
  }
  return out;
}

int64_t parse_bound(const std::string& text) {
  size_t used = 0;
  const long long v = std::stoll(text, &used, 10);
  const std::string unit = text.substr(used);
  const int shift = unit.empty() ? 0 : unit == "KiB" ? 10 : unit == "MiB" ? 20 : unit == "GiB" ? 30 : -1;
  if (shift < 0) throw std::invalid_argument("unknown unit '" + unit + "'");
  if (v > (INT64_MAX >> shift) || v < (INT64_MIN >> shift)) throw std::out_of_range(text);
  return static_cast<int64_t>(v) * (int64_t{1} << shift);
}

probe::ArgBucketSpec bucket_spec(const BucketRequest& req, const analysis::FunctionArgs& f, uint64_t probe_address) {
  const std::string what = req.origin + ": bucket_by of " + req.function;
  const analysis::Argument* arg = nullptr;
  for (const auto& a : f.args)
    if (a.name == req.spec.arg) arg = &a;
  if (!arg)
    throw Error::make(what, "has no argument \"" + req.spec.arg + "\"; its arguments are: " + arg_list(f),
                      "use one of them (`gate functions BINARY --match '" + req.function + "' --args` lists them)");
  const auto how = reading(req.spec.by, *arg);
  if (!how)
    throw Error::make(what, "cannot bucket " + arg->name + " (type " + arg->type + ", kind " + to_string(arg->kind) +
                                ") by " + req.spec.by,
                      "by: len takes a string, slice, map or chan; by: value an integer or bool; by: nil a "
                      "pointer, map or chan; bucket by another argument");
  if (how->second >= arg->registers.size() || probe_address >= arg->valid_until)
    throw Error::make(what, "argument " + arg->name + " is not in registers at the entry probe (" + hex(probe_address) +
                                "): DWARF says " + arg->where,
                      "bucket by an argument `gate functions --args` shows in registers");
  probe::ArgBucketSpec out;
  out.read = how->first;
  out.abi_register = static_cast<uint8_t>(arg->registers[how->second].abi_index);
  out.size = static_cast<uint8_t>(how->first == probe::ArgBucketSpec::Read::kSigned && how->second == 1
                                      ? 8 : std::min<uint32_t>(arg->size, 8));
  out.offset = arg->len_offset.value_or(0);
  out.bounds = req.spec.by == "nil" ? std::vector<int64_t>{1} : req.spec.bounds;
  return out;
}

}  // namespace gate::plan
