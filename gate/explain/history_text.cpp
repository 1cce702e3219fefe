// The history commands' words (explain/history_text.hpp), moved from history/queries.cpp (issue 57):
// history/ returns values, the CLI prints these lines.
#include "explain/history_text.hpp"

namespace gate::explain {

std::string speed_note(bool normalized, size_t raw_machines) {
  if (!normalized) return "values as measured (--raw)\n";
  std::string s = "values speed-normalized per run over the run's other functions, as gate ab does (a change "
                  "common to most functions is taken out: see it with --raw)";
  if (raw_machines > 0) s += "; " + std::to_string(raw_machines) + " machine(s) left raw (fewer than 5 functions per run)";
  return s + "\n";
}

}  // namespace gate::explain
