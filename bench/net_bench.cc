// The socket source's cost per call (bench/run_net_bench.sh runs it untraced, recorded without
// the source, and recorded with it): a loopback TCP connection within one thread, 64-byte
// send() on one end then recv() on the other (each returns at once: loopback delivers into the
// receive queue during the send), and write() of 64 bytes to /dev/null (a descriptor that is
// not a socket: what every other call pays), each in a run of its own (a run that records
// sockets leaves the runtime's buffers and preparer busy, which a following loop would pay).
// Prints the median over repetitions of the thread's CPU ns per send+recv pair or per write.
//
//   tt_bench_net [send|write [ITERATIONS [REPS]]]     (default send 200000 9)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

// The thread's CPU time: the machine's other load does not count (the calls do not block).
double NowNs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::exit(2);
}

// A connected pair of TCP sockets on 127.0.0.1.
void Connect(int* a, int* b) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(l, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(l, 1) != 0 ||
      getsockname(l, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    Die("listen");
  *a = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(*a, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Die("connect");
  *b = accept(l, nullptr, nullptr);
  if (*b < 0) Die("accept");
  close(l);
  int one = 1;
  setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One repetition of `iters` calls of the loop: ns of the thread's CPU per iteration.
template <typename F>
double Time(long iters, F body) {
  double t0 = NowNs();
  for (long i = 0; i < iters; ++i) body();
  return (NowNs() - t0) / static_cast<double>(iters);
}

}  // namespace

int main(int argc, char** argv) {
  std::string_view mode = argc > 1 ? argv[1] : "send";
  long iters = argc > 2 ? std::atol(argv[2]) : 200000;
  int reps = argc > 3 ? std::atoi(argv[3]) : 9;
  int a, b;
  Connect(&a, &b);
  int null = open("/dev/null", O_WRONLY);
  char buf[64] = {};
  auto exchange = [&] {
    if (send(a, buf, sizeof buf, 0) != sizeof buf) Die("send");
    size_t got = 0;
    while (got < sizeof buf) {
      ssize_t n = recv(b, buf + got, sizeof buf - got, 0);
      if (n <= 0) Die("recv");
      got += static_cast<size_t>(n);
    }
  };
  auto write_null = [&] {
    if (write(null, buf, sizeof buf) != sizeof buf) Die("write");
  };
  std::vector<double> v;
  for (int r = 0; r < reps; ++r)
    v.push_back(mode == "write" ? Time(iters, write_null) : Time(iters, exchange));
  std::printf("%s %.1f\n", mode == "write" ? "write_devnull_ns" : "send_recv_ns", Median(v));
  return 0;
}
