// Shell helper of the profile tests.
#include "profile/profile_test_support.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>

namespace gate::testing {

std::string run_capture(const std::string& command, int* status) {
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run: " + command);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  const int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  if (status)
    *status = code;
  else if (code != 0)
    throw std::runtime_error("`" + command + "` exited " + std::to_string(code) + ":\n" + out);
  return out;
}

}  // namespace gate::testing
