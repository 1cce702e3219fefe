// The PID namespace gate runs in: how BPF recognises the workload's PIDs (which gate knows as its
// own namespace numbers them) when gate runs in a container, a pod or under `unshare --pid`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace gate::probe {

// The inode of the initial (host) PID namespace (PROC_PID_INIT_INO, include/linux/proc_ns.h).
inline constexpr uint64_t kInitialPidNamespaceInode = 0xEFFFFFFCu;

struct PidNamespace {
  // /proc/self/ns/pid's device, in the kernel's own dev_t encoding (MKDEV: what
  // bpf_get_ns_current_pid_tgid compares), and inode. 0 when it could not be read (no /proc).
  uint64_t dev = 0, ino = 0;
  bool initial() const { return ino == kInitialPidNamespaceInode; }
  // /proc numbers processes as this namespace does (/proc/self is getpid()): false when /proc was
  // mounted by another namespace (`unshare --pid --fork` without --mount-proc), where gate's
  // /proc readings (process groups, a port's owner) would name other processes.
  bool proc_matches = false;
  pid_t proc_self = 0;  // what /proc/self points to (0: nothing)
  std::string error;    // why dev/ino are 0: "" when read
  // "4026532291 (not the host's: a container, a pod or unshare --pid)" / "4026531836 (the host's)".
  std::string text() const;
};

// Read once per call from /proc/self/ns/pid and /proc/self.
PidNamespace own_pid_namespace();

// Throws gate::Error (exit 3) when gate cannot follow its workload's PIDs in this namespace: no
// /proc/self/ns/pid (what the BPF programs need), or, with `need_proc`, a /proc that shows another
// namespace's processes (what gate's process groups and a service's sockets are read from). `who`
// names the caller ("BPF probes on BINARY", "CPU profile", "workload").
PidNamespace require_usable_pid_namespace(const std::string& who, bool need_proc);

}  // namespace gate::probe
