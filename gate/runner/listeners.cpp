// Listening sockets and their owners from /proc: the tables of /proc/net/tcp{,6} give the socket
// inode of each listener, /proc/PID/fd links ("socket:[INODE]") give the processes holding it.
#include "runner/listeners.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "common/files.hpp"

namespace gate::runner {

namespace {

constexpr const char* kListenState = "0A";  // TCP_LISTEN in include/net/tcp_states.h

std::array<uint8_t, 16> v4_mapped(const uint8_t* v4) {
  std::array<uint8_t, 16> a{};
  a[10] = a[11] = 0xff;
  std::memcpy(a.data() + 12, v4, 4);
  return a;
}

// The kernel prints each 32-bit word of the address as it lies in memory, in host byte order
// (%08X of the raw word), so parsing a word and storing it back in host order gives the bytes.
bool parse_hex_addr(const std::string& hex, bool v6, std::array<uint8_t, 16>& out) {
  const size_t words = v6 ? 4 : 1;
  if (hex.size() != words * 8) return false;
  uint8_t bytes[16];
  for (size_t i = 0; i < words; ++i) {
    char* end = nullptr;
    const std::string part = hex.substr(i * 8, 8);
    const uint32_t w = static_cast<uint32_t>(std::strtoul(part.c_str(), &end, 16));
    if (!end || *end) return false;
    std::memcpy(bytes + 4 * i, &w, 4);
  }
  if (v6) {
    std::memcpy(out.data(), bytes, 16);
  } else {
    out = v4_mapped(bytes);
  }
  return true;
}

bool is_wildcard(const std::array<uint8_t, 16>& a) {
  static const std::array<uint8_t, 16> any6{};
  static const uint8_t zero4[4] = {0, 0, 0, 0};
  return a == any6 || a == v4_mapped(zero4);
}

bool all_digits(const char* s) {
  if (!*s) return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

// Every numeric entry of a /proc directory.
std::vector<std::string> numeric_entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = readdir(d))
    if (all_digits(e->d_name)) out.push_back(e->d_name);
  closedir(d);
  return out;
}

// Socket inode -> the pids holding it, for the inodes asked about. Processes gate may not read
// (not root, other users) are skipped: their sockets stay without an owner.
void find_owners(std::vector<TcpListener>& ls) {
  std::map<uint64_t, TcpListener*> by_inode;
  for (auto& l : ls) by_inode[l.inode] = &l;
  if (by_inode.empty()) return;
  char link[64];
  for (const auto& pid : numeric_entries("/proc")) {
    const std::string fd_dir = "/proc/" + pid + "/fd";
    for (const auto& fd : numeric_entries(fd_dir)) {
      const ssize_t n = readlink((fd_dir + "/" + fd).c_str(), link, sizeof link - 1);
      if (n <= 9 || std::strncmp(link, "socket:[", 8) != 0) continue;
      link[n] = '\0';
      const auto it = by_inode.find(std::strtoull(link + 8, nullptr, 10));
      if (it == by_inode.end()) continue;
      auto& pids = it->second->pids;
      const pid_t p = static_cast<pid_t>(std::atoi(pid.c_str()));
      if (pids.empty() || pids.back() != p) pids.push_back(p);
    }
  }
}

// host:port split; "[v6]:port" keeps the address without brackets.
std::pair<std::string, std::string> split_host_port(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos || colon + 1 == host_port.size()) {
    throw Error::make("service.ready_tcp '" + host_port + "'", "is not host:port", "e.g. 127.0.0.1:8080");
  }
  std::string host = host_port.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, host_port.substr(colon + 1)};
}

}  // namespace

std::string TcpListener::text() const {
  char buf[INET6_ADDRSTRLEN] = "?";
  const bool v4 = addr[10] == 0xff && addr[11] == 0xff &&
                  std::all_of(addr.begin(), addr.begin() + 10, [](uint8_t b) { return b == 0; });
  if (v4) {
    inet_ntop(AF_INET, addr.data() + 12, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(port);
  }
  inet_ntop(AF_INET6, addr.data(), buf, sizeof buf);
  return "[" + std::string(buf) + "]:" + std::to_string(port);
}

std::vector<TcpListener> parse_proc_net_tcp(const std::string& text, bool v6, uint16_t port) {
  std::vector<TcpListener> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string sl, local, remote, state, txrx, timer, retr, uid, timeout, inode;
    if (!(f >> sl >> local >> remote >> state >> txrx >> timer >> retr >> uid >> timeout >> inode)) continue;
    if (state != kListenState) continue;
    const auto colon = local.find(':');
    if (colon == std::string::npos) continue;
    TcpListener l;
    l.port = static_cast<uint16_t>(std::strtoul(local.c_str() + colon + 1, nullptr, 16));
    if (l.port != port || !parse_hex_addr(local.substr(0, colon), v6, l.addr)) continue;
    l.inode = std::strtoull(inode.c_str(), nullptr, 10);
    out.push_back(l);
  }
  return out;
}

std::vector<TcpListener> listeners_for(const std::string& host_port) {
  const auto [host, port_text] = split_host_port(host_port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), port_text.c_str(), &hints, &res) != 0 || !res) {
    throw Error::make("service.ready_tcp '" + host_port + "'", "does not resolve", "use a numeric loopback address");
  }
  std::vector<std::array<uint8_t, 16>> targets;
  uint16_t port = 0;
  for (const addrinfo* a = res; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* s = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      targets.push_back(v4_mapped(reinterpret_cast<const uint8_t*>(&s->sin_addr)));
      port = ntohs(s->sin_port);
    } else if (a->ai_family == AF_INET6) {
      const auto* s = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      std::array<uint8_t, 16> t;
      std::memcpy(t.data(), &s->sin6_addr, 16);
      targets.push_back(t);
      port = ntohs(s->sin6_port);
    }
  }
  freeaddrinfo(res);
  std::vector<TcpListener> out;
  for (const bool v6 : {false, true}) {
    const auto text = read_file(v6 ? "/proc/net/tcp6" : "/proc/net/tcp");
    if (!text) continue;  // no IPv6 in this kernel
    for (auto& l : parse_proc_net_tcp(*text, v6, port)) {
      bool hit = is_wildcard(l.addr);
      for (const auto& t : targets) hit = hit || l.addr == t;
      if (hit) out.push_back(l);
    }
  }
  find_owners(out);
  return out;
}

std::set<pid_t> process_tree(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  std::set<pid_t> tree{root};
  for (const auto& pid : numeric_entries("/proc")) {
    const auto stat = read_file("/proc/" + pid + "/stat");
    if (!stat) continue;
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const auto close = stat->rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream f(stat->substr(close + 1));
    std::string state;
    pid_t ppid = 0, pgrp = 0;
    if (!(f >> state >> ppid >> pgrp)) continue;
    const pid_t p = static_cast<pid_t>(std::atoi(pid.c_str()));
    children.emplace(ppid, p);
    if (pgrp == root) tree.insert(p);  // gate starts every service in its own process group
  }
  std::vector<pid_t> todo(tree.begin(), tree.end());
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it)
      if (tree.insert(it->second).second) todo.push_back(it->second);
  }
  return tree;
}

std::string describe_process(pid_t pid) {
  std::string cmd = read_file("/proc/" + std::to_string(pid) + "/cmdline").value_or("");
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd)
    if (c == '\0') c = ' ';
  if (cmd.empty()) {
    cmd = read_file("/proc/" + std::to_string(pid) + "/comm").value_or("?");
    while (!cmd.empty() && cmd.back() == '\n') cmd.pop_back();
    cmd = "[" + cmd + "]";
  }
  if (cmd.size() > 200) cmd = cmd.substr(0, 200) + "...";
  return std::to_string(pid) + " (" + cmd + ")";
}

std::vector<TcpListener> foreign_listeners(const std::vector<TcpListener>& ls, const std::set<pid_t>& tree) {
  std::vector<TcpListener> out;
  for (const auto& l : ls) {
    bool foreign = l.pids.empty();  // nobody gate can see holds it: not the service gate started
    for (const pid_t p : l.pids) foreign = foreign || !tree.count(p);
    if (foreign) out.push_back(l);
  }
  return out;
}

std::string describe_listeners(const std::vector<TcpListener>& ls) {
  std::string out;
  for (const auto& l : ls) {
    if (!out.empty()) out += "\n";
    out += "  " + l.text() + " held by ";
    if (l.pids.empty()) {
      out += "a process gate cannot see (socket inode " + std::to_string(l.inode) +
             "; another network namespace, or gate is not root)";
    }
    for (size_t i = 0; i < l.pids.size(); ++i) out += (i ? ", pid " : "pid ") + describe_process(l.pids[i]);
  }
  return out;
}

uint16_t free_tcp_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const int e = errno;
    if (s >= 0) ::close(s);
    throw Error::make("a free port for {port}", std::string("cannot be found: ") + std::strerror(e),
                      "write a fixed port in service: instead of {port}", ExitCode::kMeasure);
  }
  ::close(s);
  return ntohs(a.sin_port);
}

}  // namespace gate::runner
