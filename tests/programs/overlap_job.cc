// A rank whose steps each hold one all-reduce, with compute beside it at exact times
// (tests/analysis/comm/comm_overlap_test.cc, CommOverlap): per step of 9 ms, from its start (ms):
//   main thread:   the all-reduce [2, 6], a MatMul [3, 5] inside it (its own thread: not
//                  overlap), the step [0, 9];
//   worker thread: a Conv2D [1, 2.5] and a Relu [5, 5.5] (overlap: 0.5 + 0.5 ms).
// So each step communicates 4 ms, 1 ms of it overlapped by compute and 3 ms exposed.
//   TENSORTRACE_DIR=DIR RANK=0 overlap_job STEPS
#include <time.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "job_args.h"
#include "runtime/emit.h"

using tt::Arg;
using tt::layout::Category;
using tt::test_job::Int;
using tt::test_job::Str;
namespace rt = tt::rt;

namespace {

constexpr uint64_t kUs = 1000, kMs = 1000000, kStepMs = 10;

// A slice of `name` from `from` to `to` us after `base`.
void Slice(const char* name, Category c, uint64_t base, uint64_t from, uint64_t to,
           const Arg* args = nullptr, uint32_t nargs = 0) {
  rt::EmitComplete(name, c, (to - from) * kUs, args, nargs, base + to * kUs);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || !std::getenv("RANK")) return 2;
  int steps = std::atoi(argv[1]);
  // Every event lies ahead of the clock, each thread's in its stream's order; the process
  // waits past the last one before it exits.
  uint64_t t0 = rt::ThreadNowNs() + 20 * kMs;
  rt::EmitThreadName("main");
  std::thread worker([&] {
    rt::EmitThreadName("worker");
    for (int i = 0; i < steps; ++i) {
      uint64_t base = t0 + static_cast<uint64_t>(i) * kStepMs * kMs;
      Slice("Conv2D", Category::kFrameworkOp, base, 1000, 2500);
      Slice("Relu", Category::kFrameworkOp, base, 5000, 5500);
    }
  });
  for (int i = 0; i < steps; ++i) {
    uint64_t base = t0 + static_cast<uint64_t>(i) * kStepMs * kMs;
    Arg comm[4] = {Str("collective", "all_reduce"), Str("process_group", "0"), Int("bytes", 4096),
                   Int("rank", 0)};
    Arg step[1] = {Int("step", i)};
    Slice("MatMul", Category::kFrameworkOp, base, 3000, 5000);
    Slice("gloo:all_reduce", Category::kCommunication, base, 2000, 6000, comm, 4);
    Slice("train_step", Category::kStep, base, 0, 9000, step, 1);
  }
  worker.join();
  uint64_t end = t0 + static_cast<uint64_t>(steps) * kStepMs * kMs;
  while (rt::ThreadNowNs() < end) {
    timespec d{0, 2 * 1000000};
    nanosleep(&d, nullptr);
  }
  return 0;
}
