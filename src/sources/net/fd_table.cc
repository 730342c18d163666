// The socket source's descriptor table and connection announcements (fd_table.h).
#include "sources/net/fd_table.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sources/net/net_events.h"

namespace tt::net {

FdEntry g_fds[kMaxFd];

namespace {

std::atomic<uint64_t> g_next_conn{1};
// Bumped in a forked child: its trace holds none of the parent's announcements, so each
// connection it inherited is announced again (with its offsets carried on).
std::atomic<uint32_t> g_generation{1};
void NewGeneration() { g_generation.fetch_add(1, std::memory_order_relaxed); }
[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, NewGeneration);

// "1.2.3.4:80" or "[::1]:80" (an IPv4-mapped IPv6 address as IPv4, so that both ends of a
// connection name it alike); false for another family.
bool Format(const sockaddr_storage& a, char* out, size_t n) {
  char ip[INET6_ADDRSTRLEN];
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    if (!inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof ip)) return false;
    snprintf(out, n, "%s:%u", ip, ntohs(v4->sin_port));
    return true;
  }
  if (a.ss_family != AF_INET6) return false;
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
  if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
    if (!inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], ip, sizeof ip)) return false;
    snprintf(out, n, "%s:%u", ip, ntohs(v6->sin6_port));
  } else {
    if (!inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof ip)) return false;
    snprintf(out, n, "[%s]:%u", ip, ntohs(v6->sin6_port));
  }
  return true;
}

// Both ends of `fd`'s connection; false if it has none (or not an IP one).
bool Ends(int fd, char* local, char* peer, size_t n) {
  sockaddr_storage a{}, b{};
  socklen_t la = sizeof a, lb = sizeof b;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &la) != 0) return false;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&b), &lb) != 0) return false;
  return Format(a, local, n) && Format(b, peer, n);
}

void Announce(FdEntry* e, int fd, uint32_t gen) {
  char local[64], peer[64];
  if (!Ends(fd, local, peer, sizeof local)) return;
  if (tt_net_conn_(e->conn, fd, local, peer)) e->announced.store(gen, std::memory_order_relaxed);
}

}  // namespace

FdEntry* Classify(int fd) {
  int saved = errno;
  FdEntry* e = &g_fds[fd];
  int type = 0;
  socklen_t len = sizeof type;
  sockaddr_storage a{};
  socklen_t la = sizeof a;
  FdEntry* out = nullptr;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) {
    // Not a socket; a closed descriptor (EBADF) stays unknown for whatever opens it next.
    if (errno == ENOTSOCK) e->kind.store(kOther, std::memory_order_release);
  } else if (type != SOCK_STREAM || getsockname(fd, reinterpret_cast<sockaddr*>(&a), &la) != 0 ||
             (a.ss_family != AF_INET && a.ss_family != AF_INET6)) {
    e->kind.store(kOther, std::memory_order_release);
  } else if (la = sizeof a; getpeername(fd, reinterpret_cast<sockaddr*>(&a), &la) == 0) {
    // Connected: a connection of its own from here on.
    e->conn = g_next_conn.fetch_add(1, std::memory_order_relaxed);
    e->offset[kSend].store(0, std::memory_order_relaxed);
    e->offset[kRecv].store(0, std::memory_order_relaxed);
    e->announced.store(0, std::memory_order_relaxed);
    e->kind.store(kTcp, std::memory_order_release);
    out = e;
  }
  errno = saved;
  return out;
}

void Record(FdEntry* e, int fd, Dir d, uint64_t bytes, uint64_t start) {
  uint64_t offset = e->offset[d].fetch_add(bytes, std::memory_order_relaxed);
  uint32_t gen = g_generation.load(std::memory_order_relaxed);
  if (__builtin_expect(e->announced.load(std::memory_order_relaxed) != gen, 0))
    Announce(e, fd, gen);
  tt_net_io_(d == kRecv, e->conn, offset, bytes, start);
}

}  // namespace tt::net
