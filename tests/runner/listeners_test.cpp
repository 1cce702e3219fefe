// Who holds a TCP listener: /proc/net/tcp{,6} parsing, the owner lookup through /proc/PID/fd
// against real sockets of this test process, process trees, and the messages. No root needed.
#include "runner/listeners.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.hpp"

namespace gate::runner {
namespace {

// A listening socket of this process, on `addr` (AF_INET or AF_INET6 wildcard), port chosen by the kernel.
struct OwnListener {
  int fd = -1;
  uint16_t port = 0;
  explicit OwnListener(bool v6_wildcard = false) {
    if (v6_wildcard) {
      fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      socklen_t len = sizeof a;
      if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(fd, 1) == 0 &&
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin6_port);
    } else {
      fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof a;
      if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(fd, 1) == 0 &&
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    }
  }
  ~OwnListener() { ::close(fd); }
};

TEST(Listeners, ParsesListenLinesOfBothTables) {
  const std::string v4 =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0\n"
      "   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 4243 1 0 20 4 30 10 -1\n"
      "   2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4244 1 0 100 0 0 10 0\n";
  auto ls = parse_proc_net_tcp(v4, false, 8080);
  ASSERT_EQ(ls.size(), 1u) << "only LISTEN (0A) on the port: not the established connection, not :8081";
  EXPECT_EQ(ls[0].inode, 4242u);
  EXPECT_EQ(ls[0].text(), "127.0.0.1:8080");
  EXPECT_EQ(parse_proc_net_tcp(v4, false, 8081).at(0).text(), "0.0.0.0:8081");

  const std::string v6 =
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
      "tm->when retrnsmt   uid  timeout inode\n"
      "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 "
      "00:00000000 00000000     0        0 777 1 0 100 0 0 10 0\n"
      "   1: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 "
      "00:00000000 00000000     0        0 778 1 0 100 0 0 10 0\n";
  ls = parse_proc_net_tcp(v6, true, 8080);
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[0].text(), "[::1]:8080");
  EXPECT_EQ(ls[1].text(), "[::]:8080");
  EXPECT_EQ(ls[1].inode, 778u);
}

TEST(Listeners, FindsThisProcessAsTheOwnerOfItsSocket) {
  OwnListener own;
  ASSERT_NE(own.port, 0);
  const std::string at = "127.0.0.1:" + std::to_string(own.port);
  const auto ls = listeners_for(at);
  ASSERT_EQ(ls.size(), 1u);
  ASSERT_EQ(ls[0].pids.size(), 1u);
  EXPECT_EQ(ls[0].pids[0], getpid());
  EXPECT_EQ(ls[0].text(), at);
  // In the tree of this process it is its own; seen from another tree it is foreign, and named.
  EXPECT_TRUE(foreign_listeners(ls, process_tree(getpid())).empty());
  const auto foreign = foreign_listeners(ls, {1});
  ASSERT_EQ(foreign.size(), 1u);
  const std::string text = describe_listeners(foreign);
  EXPECT_NE(text.find(at + " held by pid " + std::to_string(getpid()) + " ("), std::string::npos) << text;
  EXPECT_NE(text.find("runner_test"), std::string::npos) << "the command line: " << text;
  // Another address of the same port reaches no listener.
  EXPECT_TRUE(listeners_for("127.0.0.2:" + std::to_string(own.port)).empty());
}

TEST(Listeners, AWildcardListenerCountsForEveryAddress) {
  OwnListener any6(true);
  ASSERT_NE(any6.port, 0);
  const auto ls = listeners_for("127.0.0.1:" + std::to_string(any6.port));
  ASSERT_EQ(ls.size(), 1u) << "[::] without V6ONLY accepts IPv4 connections too";
  EXPECT_EQ(ls[0].text(), "[::]:" + std::to_string(any6.port));
}

TEST(Listeners, ProcessTreeHasDescendantsButNotTheParent) {
  int to_child[2];
  ASSERT_EQ(pipe(to_child), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(to_child[1]);
    char c;
    (void)!read(to_child[0], &c, 1);  // until the test has looked
    _exit(0);
  }
  const auto mine = process_tree(getpid());
  EXPECT_TRUE(mine.count(child));
  const auto its = process_tree(child);
  EXPECT_TRUE(its.count(child));
  EXPECT_FALSE(its.count(getpid()));
  close(to_child[1]);
  waitpid(child, nullptr, 0);
}

TEST(Listeners, FreePortIsFreeAndBadAddressesAreConfigErrors) {
  const uint16_t p = free_tcp_port();
  EXPECT_GT(p, 0);
  EXPECT_TRUE(listeners_for("127.0.0.1:" + std::to_string(p)).empty());
  try {
    listeners_for("localhost");
    FAIL() << "no port";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("host:port"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gate::runner
