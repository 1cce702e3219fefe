// Folded stacks from call edges: unfold the traced call graph from its roots, splitting each
// function's time among its callees and its own code by the sums the kernel recorded.
#include "report/call_graph.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace gate::report {

namespace {

struct Node {
  double total_ns = 0;  // compensated time of all its calls
  double self_ns = 0;
  double under_callers_ns = 0;          // the part of total_ns spent under a traced caller
  std::map<std::string, double> callees;  // callee -> its time under this function
};

std::map<std::string, Node> graph_of(const ResultFile& r, const std::string& side) {
  std::map<std::string, Node> g;
  for (const auto& run : r.runs) {
    if (!side.empty() && !run.variant.empty() && run.variant != side) continue;
    for (const auto& f : run.functions) {
      if (!f.true_time.present || f.calls == 0) continue;
      Node& n = g[f.name];
      n.total_ns += static_cast<double>(f.sum_ns);
      n.self_ns += static_cast<double>(f.true_time.self_sum_ns);
      for (const auto& c : f.true_time.callers) {
        g[c.name].callees[f.name] += static_cast<double>(c.sum_ns);
        n.under_callers_ns += static_cast<double>(c.sum_ns);
      }
    }
  }
  return g;
}

class Folder {
 public:
  explicit Folder(const std::map<std::string, Node>& g) : g_(g) {}

  // Emits `weight` ns of `name`'s time reached through `path`, split into self and callees.
  void unfold(const std::string& name, double weight, std::vector<std::string>& path) {
    const auto it = g_.find(name);
    const bool recursive = std::find(path.begin(), path.end(), name) != path.end();
    path.push_back(name);
    if (it == g_.end() || it->second.total_ns <= 0 || recursive || path.size() > kMaxDepth) {
      add(path, weight);  // the whole weight stays in this frame
    } else {
      const Node& n = it->second;
      double to_callees = 0;
      for (const auto& [callee, ns] : n.callees) {
        const double w = weight * ns / n.total_ns;
        to_callees += w;
        if (w >= kMinNs) unfold(callee, w, path);
      }
      // Self time, and whatever the callees' sums leave (clamped calls, lost edges).
      add(path, std::max(weight - to_callees, 0.0));
    }
    path.pop_back();
  }

  std::string text() const {
    std::string out;
    for (const auto& [stack, ns] : lines_) {
      const auto v = static_cast<unsigned long long>(ns + 0.5);
      if (v == 0) continue;
      out += stack + " " + std::to_string(v) + "\n";
    }
    return out;
  }

 private:
  static constexpr size_t kMaxDepth = 64;
  static constexpr double kMinNs = 0.5;  // below half a ns a path would print as 0

  void add(const std::vector<std::string>& path, double ns) {
    std::string key;
    for (const auto& p : path) {
      if (!key.empty()) key += ';';
      key += p;  // Go names hold no ';' (folded stacks' separator)
    }
    lines_[key] += ns;
  }

  const std::map<std::string, Node>& g_;
  std::map<std::string, double> lines_;
};

}  // namespace

std::string render_folded(const ResultFile& r, const std::string& side) {
  const auto g = graph_of(r, side);
  Folder folder(g);
  std::vector<std::string> path;
  for (const auto& [name, n] : g) {
    // The part of a function's time that no traced caller accounts for starts a stack.
    const double root_ns = n.total_ns - n.under_callers_ns;
    if (root_ns >= 0.5) folder.unfold(name, root_ns, path);
  }
  return folder.text();
}

}  // namespace gate::report
