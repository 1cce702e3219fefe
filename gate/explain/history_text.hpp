// The words of the history commands' text outputs (gate history ...), from the values history/
// returns: how the values were read.
#pragma once

#include <cstddef>
#include <string>

namespace gate::explain {

// The text outputs' last line: speed-normalized (as gate ab) or as measured (--raw), and how many
// machines were left raw (fewer than 5 functions per run). Ends in a newline.
std::string speed_note(bool normalized, size_t raw_machines);

}  // namespace gate::explain
