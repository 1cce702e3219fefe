// Who owns the socket behind a service's ready_tcp: the TCP listeners on an address (from
// /proc/net/tcp and tcp6), the processes holding them (socket inodes in /proc/PID/fd), and a
// service's process tree. So gate never drives load at a process other than the one it started.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gate::runner {

// A listening TCP socket and, when gate could see it, the process holding it.
struct TcpListener {
  std::array<uint8_t, 16> addr{};  // IPv4 as ::ffff:a.b.c.d, so one comparison covers both tables
  uint16_t port = 0;
  uint64_t inode = 0;
  std::vector<pid_t> pids;  // every process with the socket open (empty: none gate can read)
  std::string text() const;  // "127.0.0.1:8080", "[::]:8080"
};

// The LISTEN sockets in the text of /proc/net/tcp (`v6` false) or /proc/net/tcp6 on `port`.
std::vector<TcpListener> parse_proc_net_tcp(const std::string& text, bool v6, uint16_t port);

// The listeners that accept connections made to host:port ("127.0.0.1:8080", "[::1]:8080",
// "localhost:8080"): those bound to one of its addresses or to a wildcard, with their owners.
// Throws gate::Error (exit 2) when host_port is not host:port or does not resolve.
std::vector<TcpListener> listeners_for(const std::string& host_port);

// `root`, its descendants and the members of its process group: the processes a service command
// (possibly a shell that starts the real server) is made of.
std::set<pid_t> process_tree(pid_t root);

// "1234 (python3 -m http.server 8080)": a process as an error message names it.
std::string describe_process(pid_t pid);

// The listeners in `ls` held by no process of `tree` (a listener shared with the tree counts as
// foreign when any holder is outside it).
std::vector<TcpListener> foreign_listeners(const std::vector<TcpListener>& ls, const std::set<pid_t>& tree);

// One line per listener: "127.0.0.1:8080 held by pid 1234 (python3 -m http.server 8080)".
std::string describe_listeners(const std::vector<TcpListener>& ls);

// A TCP port on 127.0.0.1 that nothing listens on now (bound to port 0, then released).
uint16_t free_tcp_port();

}  // namespace gate::runner
