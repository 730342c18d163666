// One rank of a job whose two ranks run real all-reduces over two FIFOs
// (tests/analysis/comm/comm_clock_test.cc, CommClock): in each, a rank enters, writes a byte to its
// peer, reads the peer's byte and leaves, so no rank leaves before both entered. The ranks take
// turns at arriving last (the other sleeps 300 us first). Each all-reduce is a communication slice
// timed by the runtime's own clock, which TENSORTRACE_TEST_CLOCK_SHIFT_NS shifts. Each iteration is
// a slice too.
//   TENSORTRACE_DIR=DIR RANK=R TT_CLOCK_FIFOS=DIR2 clock_job N
// DIR2 holds the FIFOs `0to1` and `1to0` (made by the test). Exits 2 on a bad start.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "job_args.h"
#include "runtime/emit.h"

using tt::Arg;
using tt::layout::Category;
using tt::test_job::Int;
using tt::test_job::Str;
namespace rt = tt::rt;

int main(int argc, char** argv) {
  const char* rank_text = std::getenv("RANK");
  const char* fifos = std::getenv("TT_CLOCK_FIFOS");
  if (!rank_text || !fifos || argc != 2) return 2;
  int rank = std::atoi(rank_text), n = std::atoi(argv[1]);
  std::string dir = fifos;
  // Rank 0 opens its writing end first, rank 1 its reading end first: no deadlock.
  std::string out = dir + (rank == 0 ? "/0to1" : "/1to0"),
              in = dir + (rank == 0 ? "/1to0" : "/0to1");
  int wfd = -1, rfd = -1;
  if (rank == 0) {
    wfd = open(out.c_str(), O_WRONLY);
    rfd = open(in.c_str(), O_RDONLY);
  } else {
    rfd = open(in.c_str(), O_RDONLY);
    wfd = open(out.c_str(), O_WRONLY);
  }
  if (wfd < 0 || rfd < 0) return 2;
  rt::EmitThreadName("main");
  for (int i = 0; i < n; ++i) {
    uint64_t begin = rt::ThreadNowNs();
    if (i % 2 == rank) {
      timespec d{0, 300 * 1000};
      nanosleep(&d, nullptr);
    }
    uint64_t enter = rt::ThreadNowNs();
    char b = static_cast<char>(i);
    if (write(wfd, &b, 1) != 1 || read(rfd, &b, 1) != 1) return 2;
    uint64_t exit = rt::ThreadNowNs();
    Arg args[5] = {Str("collective", "all_reduce"), Str("process_group", "0"), Int("bytes", 1),
                   Int("nranks", 2), Int("rank", rank)};
    rt::EmitComplete("allreduce", Category::kCommunication, exit - enter, args, 5, exit);
    // The iteration, for replay's --step-name.
    Arg step[1] = {Int("step", i)};
    uint64_t end = rt::ThreadNowNs();  // given: the emit's own time is later
    rt::EmitComplete("iteration", Category::kUser, end - begin, step, 1, end);
  }
  close(wfd);
  close(rfd);
  return 0;
}
