// A training loop for `tensortrace top` (tests/analysis/live/top_test.cc), through the public C
// API: each step is a range "train_step" (give `--step-name train_step`) holding two ops, a MatMul
// of about 3 ms and a Relu of about 0.2 ms. It runs until STOPFILE exists (then a few more steps)
// or MAX_S seconds have passed, so a test can watch it live without depending on timing. With
// "fresh", each step also runs a range of a name never used before (each a new name and a new event
// class in the process stream while the recording runs); with "stall", it stops stepping after 20
// steps and waits for STOPFILE (a job that hangs).
//   top_job STOPFILE MAX_S [fresh|stall]
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

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

void Step(bool fresh) {
  static int n = 0;
  tt_range_push("train_step");
  Op("model/dense:MatMul", 3000);
  Op("model/act:Relu", 200);
  if (fresh) Op(("model/fresh_" + std::to_string(n++) + ":Fresh").c_str(), 10);
  tt_range_pop();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  struct stat st;
  auto deadline = Clock::now() + std::chrono::seconds(std::atoi(argv[2]));
  bool fresh = argc > 3 && std::strcmp(argv[3], "fresh") == 0;
  bool stall = argc > 3 && std::strcmp(argv[3], "stall") == 0;
  tt_set_thread_name("trainer");
  for (int i = 0; stat(argv[1], &st) != 0 && Clock::now() < deadline; ++i) {
    if (stall && i >= 20)
      Spin(10000);
    else
      Step(fresh);
  }
  if (!stall)
    for (int i = 0; i < 3; ++i) Step(fresh);
  return 0;
}
