// Two processes exchanging known messages over TCP on 127.0.0.1, for the socket source's tests
// (net_test.cc): the client sends each size of kNetSizes (net_job.h) with a different call
// (send, write, sendmsg with two buffers, writev with three, sendto) on a non-blocking socket,
// so that large messages go out in partial writes; the server takes
// each message with small buffers (recv, read, recvmsg, readv, recvfrom: partial reads), after
// one peek (MSG_PEEK, not data), checks every byte, and answers each with an 8-byte
// acknowledgement that the client reads.
//   net_job pair               both, the client a forked child
//   net_job pair6              the same over ::1 (exit 4 where there is no IPv6 loopback)
//   net_job serve PORT_FILE    the server: writes its port into PORT_FILE
//   net_job connect PORT_FILE  the client: waits for PORT_FILE, connects
// Exit 0 when every byte arrived as sent.
#include "net_job.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool g_v6 = false;  // over ::1 instead of 127.0.0.1

// The loopback address of the family in use, port `port`.
socklen_t Loopback(sockaddr_storage* out, uint16_t port) {
  *out = {};
  if (g_v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(out);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    a->sin6_addr = in6addr_loopback;
    return sizeof *a;
  }
  auto* a = reinterpret_cast<sockaddr_in*>(out);
  a->sin_family = AF_INET;
  a->sin_port = htons(port);
  a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return sizeof *a;
}

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::exit(2);
}

uint8_t ByteOf(size_t msg, size_t i) { return static_cast<uint8_t>(msg * 131 + i * 7); }

void WaitFor(int fd, short ev) {
  pollfd p{fd, ev, 0};
  if (poll(&p, 1, 30000) != 1) Die("poll");
}

// One write call of message `msg` (the call picked by its index) of what is left.
ssize_t WriteSome(int fd, size_t msg, const uint8_t* p, size_t n) {
  switch (msg % 5) {
    case 0:
      return send(fd, p, n, MSG_NOSIGNAL);
    case 1:
      return write(fd, p, n);
    case 2: {
      iovec iov[2] = {{const_cast<uint8_t*>(p), n / 2},
                      {const_cast<uint8_t*>(p + n / 2), n - n / 2}};
      msghdr m{};
      m.msg_iov = iov;
      m.msg_iovlen = 2;
      return sendmsg(fd, &m, MSG_NOSIGNAL);
    }
    case 3: {
      iovec iov[3] = {{const_cast<uint8_t*>(p), n / 3},
                      {const_cast<uint8_t*>(p + n / 3), n / 3},
                      {const_cast<uint8_t*>(p + 2 * (n / 3)), n - 2 * (n / 3)}};
      return writev(fd, iov, 3);
    }
    default:
      return sendto(fd, p, n, MSG_NOSIGNAL, nullptr, 0);
  }
}

// Sends all of `buf` on the non-blocking `fd`, waiting where the socket is full.
void SendAll(int fd, size_t msg, const std::vector<uint8_t>& buf) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t r = WriteSome(fd, msg, buf.data() + done, buf.size() - done);
    if (r > 0) {
      done += static_cast<size_t>(r);
    } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      WaitFor(fd, POLLOUT);
    } else if (r < 0 && errno != EINTR) {
      Die("send");
    }
  }
}

// One read call of message `msg` into `p` (at most n bytes; small buffers: partial reads).
ssize_t ReadSome(int fd, size_t msg, uint8_t* p, size_t n) {
  switch (msg % 5) {
    case 0:
      return recv(fd, p, std::min<size_t>(n, 1000), 0);
    case 1:
      return read(fd, p, std::min<size_t>(n, 4096));
    case 2: {
      size_t k = std::min<size_t>(n, 3000);
      iovec iov[2] = {{p, std::min<size_t>(k, 7)},
                      {p + std::min<size_t>(k, 7), k - std::min<size_t>(k, 7)}};
      msghdr m{};
      m.msg_iov = iov;
      m.msg_iovlen = 2;
      return recvmsg(fd, &m, 0);
    }
    case 3: {
      size_t k = std::min<size_t>(n, 65536), a = k / 3;
      iovec iov[3] = {{p, a}, {p + a, a}, {p + 2 * a, k - 2 * a}};
      return readv(fd, iov, 3);
    }
    default:
      return recvfrom(fd, p, std::min<size_t>(n, 8192), 0, nullptr, nullptr);
  }
}

void RecvAll(int fd, size_t msg, std::vector<uint8_t>* buf) {
  size_t done = 0;
  while (done < buf->size()) {
    ssize_t r = ReadSome(fd, msg, buf->data() + done, buf->size() - done);
    if (r > 0)
      done += static_cast<size_t>(r);
    else if (r == 0)
      Die("recv: connection closed early");
    else if (errno != EINTR)
      Die("recv");
  }
}

int Serve(int listener) {
  int fd = accept(listener, nullptr, nullptr);
  if (fd < 0) Die("accept");
  close(listener);
  uint8_t first;
  if (recv(fd, &first, 1, MSG_PEEK) != 1) Die("peek");  // a peek is not data
  for (size_t m = 0; m < std::size(kNetSizes); ++m) {
    std::vector<uint8_t> buf(kNetSizes[m]);
    RecvAll(fd, m, &buf);
    uint64_t sum = 0;
    for (size_t i = 0; i < buf.size(); ++i) {
      if (buf[i] != ByteOf(m, i)) {
        std::fprintf(stderr, "message %zu byte %zu differs\n", m, i);
        return 1;
      }
      sum += buf[i];
    }
    if (send(fd, &sum, kNetAckBytes, MSG_NOSIGNAL) != static_cast<ssize_t>(kNetAckBytes))
      Die("ack");
  }
  close(fd);
  return 0;
}

int Client(uint16_t port) {
  int fd = socket(g_v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_storage a;
  socklen_t len = Loopback(&a, port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), len) != 0) Die("connect");
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  for (size_t m = 0; m < std::size(kNetSizes); ++m) {
    std::vector<uint8_t> buf(kNetSizes[m]);
    uint64_t sum = 0;
    for (size_t i = 0; i < buf.size(); ++i) sum += buf[i] = ByteOf(m, i);
    SendAll(fd, m, buf);
    uint64_t ack = 0;
    size_t got = 0;
    while (got < sizeof ack) {
      WaitFor(fd, POLLIN);
      ssize_t r = recv(fd, reinterpret_cast<uint8_t*>(&ack) + got, sizeof ack - got, 0);
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) Die("ack");
      if (r > 0) got += static_cast<size_t>(r);
    }
    if (ack != sum) Die("ack differs");
  }
  close(fd);
  return 0;
}

// A listening socket on the loopback address; -1 where the family has none.
int Listener(uint16_t* port) {
  int fd = socket(g_v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  sockaddr_storage a;
  socklen_t len = Loopback(&a, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0) return -1;
  if (listen(fd, 1) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    Die("listen");
  *port = ntohs(g_v6 ? reinterpret_cast<sockaddr_in6*>(&a)->sin6_port
                     : reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  return fd;
}

uint16_t ReadPort(const char* file) {
  for (int i = 0; i < 3000; ++i) {
    if (FILE* f = std::fopen(file, "r")) {
      unsigned p = 0;
      int n = std::fscanf(f, "%u", &p);
      std::fclose(f);
      if (n == 1 && p) return static_cast<uint16_t>(p);
    }
    usleep(10000);
  }
  Die("no port file");
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "pair";
  if (mode == "connect" && argc > 2) return Client(ReadPort(argv[2]));
  g_v6 = mode == "pair6";
  if (g_v6) mode = "pair";
  uint16_t port = 0;
  int listener = Listener(&port);
  if (listener < 0) {
    if (g_v6) return 4;
    Die("bind");
  }
  if (mode == "serve" && argc > 2) {
    std::string tmp = std::string(argv[2]) + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) Die("port file");
    std::fprintf(f, "%u\n", port);
    std::fclose(f);
    if (rename(tmp.c_str(), argv[2]) != 0) Die("rename");
    return Serve(listener);
  }
  if (mode != "pair") {
    std::fprintf(stderr, "usage: net_job [pair | pair6 | serve PORT_FILE | connect PORT_FILE]\n");
    return 2;
  }
  pid_t child = fork();
  if (child == 0) {
    close(listener);
    _exit(Client(port));
  }
  int rc = Serve(listener);
  int status = 0;
  waitpid(child, &status, 0);
  return rc != 0 ? rc : WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
