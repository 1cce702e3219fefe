// Atomic file writes: a result or baseline is either wholly written or the old file is left as it
// was (a temporary file beside it, fsync, rename, fsync of the directory).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "common/error.hpp"
#include "results/result.hpp"

namespace gate {

namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    throw Error::make(path, std::string("cannot create a temporary file beside it (") +
                                std::strerror(errno) + ")",
                      "check that " + dir.string() + " exists and is writable", ExitCode::kMeasure);
  }
  auto fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Error::make(path, std::string(what) + " (" + std::strerror(err) + "); the old file is unchanged",
                       "free disk space or fix permissions, then run again", ExitCode::kMeasure);
  };
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("write failed");
    }
    off += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) throw fail("chmod failed");
  if (::fsync(fd) != 0) throw fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw Error::make(path, "close failed; the old file is unchanged", "", ExitCode::kMeasure);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw Error::make(path, std::string("rename failed (") + std::strerror(err) + "); the old file is unchanged",
                      "check permissions of " + dir.string(), ExitCode::kMeasure);
  }
  // Make the rename itself durable.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace gate
