// Reading a whole file: the config, result files, the working-tree copy of a baseline. Writing is
// results/write_file_atomically (a result must never be half written).
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace gate {

// The file's bytes; nullopt when it cannot be opened (errno says why).
inline std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gate
