// A training loop for `tensortrace top` (tests/top_test.cc), through the public C API: each
// step is a range "train_step" (give `--step-name train_step`) holding two ops, a MatMul of
// about 3 ms and a Relu of about 1 ms. It runs until STOPFILE exists (then a few more steps)
// or MAX_S seconds have passed, so a test can watch it live without depending on timing.
//   top_job STOPFILE MAX_S
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>

#include "tensortrace/tensortrace.h"

namespace {

using Clock = std::chrono::steady_clock;

void Spin(int us) {
  auto end = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < end) {
  }
}

void Op(const char* name, int us) {
  tt_range_push(name);
  Spin(us);
  tt_range_pop();
}

void Step() {
  tt_range_push("train_step");
  Op("model/dense:MatMul", 3000);
  Op("model/act:Relu", 1000);
  tt_range_pop();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  struct stat st;
  auto deadline = Clock::now() + std::chrono::seconds(std::atoi(argv[2]));
  tt_set_thread_name("trainer");
  while (stat(argv[1], &st) != 0 && Clock::now() < deadline) Step();
  for (int i = 0; i < 3; ++i) Step();
  return 0;
}
