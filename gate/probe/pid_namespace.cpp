// PID namespace facts from /proc: the namespace's device and inode (for the BPF programs'
// bpf_get_ns_current_pid_tgid) and whether /proc is this namespace's.
#include "probe/pid_namespace.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.hpp"

namespace gate::probe {

std::string PidNamespace::text() const {
  if (!ino) return "unknown (" + error + ")";
  return std::to_string(ino) + (initial() ? " (the host's)" : " (not the host's: a container, a pod or unshare --pid)");
}

PidNamespace own_pid_namespace() {
  PidNamespace ns;
  struct stat st {};
  if (::stat("/proc/self/ns/pid", &st) != 0) {
    ns.error = std::string("/proc/self/ns/pid: ") + std::strerror(errno);
  } else {
    // The kernel compares its internal dev_t (major << 20 | minor); stat gives the user-space
    // encoding, which differs once the minor number passes 255.
    ns.dev = (static_cast<uint64_t>(major(st.st_dev)) << 20) | minor(st.st_dev);
    ns.ino = st.st_ino;
  }
  char link[32] = {};
  const ssize_t n = ::readlink("/proc/self", link, sizeof link - 1);
  if (n > 0) ns.proc_self = static_cast<pid_t>(std::atoi(link));
  ns.proc_matches = ns.proc_self == ::getpid();
  return ns;
}

PidNamespace require_usable_pid_namespace(const std::string& who, bool need_proc) {
  PidNamespace ns = own_pid_namespace();
  if (!ns.ino) {
    throw Error::make(who, "cannot read gate's PID namespace (" + ns.error + ")",
                      "mount /proc in the container or chroot (`mount -t proc proc /proc`): gate follows its "
                      "workload through it",
                      ExitCode::kMeasure);
  }
  if (need_proc && !ns.proc_matches) {
    throw Error::make(who,
                      "/proc shows another PID namespace's processes (/proc/self is " +
                          (ns.proc_self ? std::to_string(ns.proc_self) : std::string("missing")) + ", gate is pid " +
                          std::to_string(::getpid()) + " in its own namespace " + std::to_string(ns.ino) +
                          "): gate would read the wrong processes' groups and sockets",
                      "mount a /proc of gate's own PID namespace: `unshare --pid --fork --mount-proc`, or "
                      "`mount -t proc proc /proc` inside it (container engines do this)",
                      ExitCode::kMeasure);
  }
  return ns;
}

}  // namespace gate::probe
