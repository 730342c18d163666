// A loop for on-demand and windowed recordings (tests/cli/capture_test.cc):
//   ondemand_job STOP_FILE MAX_SECONDS
// each iteration: the slice "iteration" holding the framework op "model/dense:MatMul" of 200 us
// (busy), then 300 us of sleep inside the slice; until STOP_FILE exists or MAX_SECONDS passed.
// Prints "iterations N" at the end.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "runtime/emit.h"

using tt::layout::Category;
namespace rt = tt::rt;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: ondemand_job STOP_FILE MAX_SECONDS\n");
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  auto limit = std::chrono::duration<double>(std::atof(argv[2]));
  rt::Anchor anchor;
  long n = 0;
  while (access(argv[1], F_OK) != 0 && std::chrono::steady_clock::now() - start < limit) {
    rt::EmitBegin("iteration", Category::kUser);
    uint64_t t = rt::NowNs(&anchor);
    while (rt::NowNs(&anchor) < t + 200'000) {
    }
    rt::EmitComplete("model/dense:MatMul", Category::kFrameworkOp, 200'000, nullptr, 0);
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    rt::EmitEnd();
    ++n;
  }
  std::printf("iterations %ld\n", n);
  return 0;
}
