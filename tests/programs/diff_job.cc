// Six steps on one thread with framework ops of exact durations, for `tensortrace diff`
// (tests/analysis/diff/diff_test.cc):
//   TENSORTRACE_DIR=DIR diff_job SCALE [extra]
// each step: "model/dense:MatMul" of SCALE * 200 us, "model/act:Relu" of 50 us, with `extra`
// also "model/norm:Softmax" of 80 us; an allocation of SCALE MiB held through the step.
#include <cstdlib>
#include <cstring>

#include "job_args.h"
#include "runtime/emit.h"

using tt::Arg;
using tt::layout::Category;
using tt::test_job::Int;
namespace rt = tt::rt;

namespace {

rt::Anchor anchor;

// A framework op of exactly `us` microseconds, from now.
void Op(const char* name, uint64_t us) {
  uint64_t t = rt::NowNs(&anchor);
  while (rt::NowNs(&anchor) < t + us * 1000) {
  }
  rt::EmitComplete(name, Category::kFrameworkOp, us * 1000, nullptr, 0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int64_t scale = std::atoi(argv[1]);
  bool extra = argc > 2 && std::strcmp(argv[2], "extra") == 0;
  rt::EmitThreadName("main");
  for (int64_t i = 0; i < 6; ++i) {
    Arg step[] = {Int("step", i)};
    rt::EmitBeginArgs("train_step", Category::kStep, step, 1);
    Arg alloc[] = {Int("bytes", scale << 20), Int("addr", 0x1000 + i)};
    rt::EmitInstant("MemoryAllocation", Category::kAllocation, alloc, 2);
    Op("model/dense:MatMul", static_cast<uint64_t>(scale) * 200);
    Op("model/act:Relu", 50);
    if (extra) Op("model/norm:Softmax", 80);
    Arg fr[] = {Int("addr", 0x1000 + i)};
    rt::EmitInstant("MemoryDeallocation", Category::kAllocation, fr, 1);
    rt::EmitEnd();
  }
  return 0;
}
