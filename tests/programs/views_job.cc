// A small trace whose every view has known numbers (tests/analysis/views/views_test.cc): two steps
// on one thread, each holding three framework ops written with exact durations, one op with a
// oneDNN primitive, two launches and allocations inside it, the GPU work those launched at known
// times, and an op whose inner op runs inside a runtime range (a thread pool's ParallelFor).
//   TENSORTRACE_DIR=DIR views_job
#include "job_args.h"
#include "runtime/device.h"
#include "runtime/emit.h"

using tt::Arg;
using tt::layout::Category;
using tt::test_job::Int;
using tt::test_job::Str;
namespace rt = tt::rt;

namespace {

rt::Anchor anchor;

// Waits until `us` microseconds after t.
void SpinUntil(uint64_t t, uint64_t us) {
  while (rt::NowNs(&anchor) < t + us * 1000) {
  }
}
// A complete slice of exactly `us` microseconds that ends now, after waiting long enough that
// it starts after the previous event.
void Complete(const char* name, Category cat, uint64_t us, const Arg* args = nullptr,
              uint32_t nargs = 0) {
  SpinUntil(rt::NowNs(&anchor), us + 1);
  rt::EmitComplete(name, cat, us * 1000, args, nargs);
}

void Step(int64_t i) {
  Arg step[] = {Int("step", i)};
  rt::EmitBeginArgs("step", Category::kStep, step, 1);
  Arg ext[] = {Int("external_id", 100 + i)};
  Complete("a/b/x:MatMul", Category::kFrameworkOp, 100, ext, 1);
  Complete("a/y:MatMul", Category::kFrameworkOp, 50);
  Complete("a/b/z:Relu", Category::kFrameworkOp, 30);
  rt::EmitBegin("a/w:Conv2D", Category::kFrameworkOp);
  uint64_t tw = rt::NowNs(&anchor);
  Arg alloc[] = {Int("bytes", i == 0 ? 1000 : 3000), Int("addr", 0x1000 + i)};
  rt::EmitInstant("MemoryAllocation", Category::kAllocation, alloc, 2);
  if (i > 0) {
    Arg fr[] = {Int("addr", 0x1000 + i - 1)};
    rt::EmitInstant("MemoryDeallocation", Category::kAllocation, fr, 1);
  }
  Complete("inner_product", Category::kPrimitive, 10);
  Arg c1[] = {Int("correlation_id", 10 * i + 1)};
  Complete("cudaLaunchKernel", Category::kRuntimeApi, 5, c1, 1);
  Arg c2[] = {Int("correlation_id", 10 * i + 2)};
  Complete("cudaMemcpyAsync", Category::kRuntimeApi, 5, c2, 1);
  rt::EmitEnd();
  // An op whose inner op runs inside a thread-pool region: the region is the outer op's own
  // time, the inner op is not.
  rt::EmitBegin("a/loop:While", Category::kFrameworkOp);
  rt::EmitBegin("ParallelFor", Category::kUser);
  Complete("a/loop/body:AddV2", Category::kFrameworkOp, 30);
  rt::EmitEnd();
  rt::EmitEnd();
  SpinUntil(tw, 250);
  rt::EmitEnd();
  Arg k1[] = {Int("correlation_id", 10 * i + 1), Str("grid", "8x1x1"), Str("block", "64x1x1")};
  rt::EmitDeviceActivity(0, 7, "k_conv", Category::kGpuKernel, tw, tw + 20000, k1, 3);
  Arg k2[] = {Int("external_id", 100 + i), Int("registers", 32)};
  rt::EmitDeviceActivity(0, 7, "k_mm", Category::kGpuKernel, tw + 30000, tw + 70000, k2, 2);
  Arg m1[] = {Int("correlation_id", 10 * i + 2), Int("bytes", 8192), Str("kind", "HtoD")};
  rt::EmitDeviceActivity(0, 8, "memcpy", Category::kMemcpy, tw + 80000, tw + 90000, m1, 3);
}

}  // namespace

int main() {
  rt::EmitThreadName("main");
  for (int64_t i = 0; i < 2; ++i) Step(i);
  return 0;
}
