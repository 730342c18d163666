// A synthetic training job written through the real runtime's internal emitters: steps with
// framework ops, CUDA API launches, oneDNN primitives, allocations, and the GPU kernels and
// copies they launched (with correlation and external ids). Tests know its content exactly;
// bench/ uses it to write traces of any size.
//   TENSORTRACE_DIR=DIR synthetic_job STEPS [BUSY_US] [THREADS] [varied]
// Each step on each thread: ops MatMul (external id, kernel launch, primitive, allocation),
// BiasAdd (kernel launch, frees the previous step's allocation), Relu (async copy). Device
// work is placed inside the step: sgemm 20-50 us, bias 60-70 us after the step's start, copy
// 80-90 us (queue 8). BUSY_US (default 100) keeps each step at least that long.
// "varied": MatMul's allocation in step i is (i + 1) KiB in allocator "GPU_0_bfc", and Relu
// also allocates and frees 512 * (i + 1) bytes in allocator "cpu" (for memory-over-time tests).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "runtime/device.h"
#include "runtime/emit.h"
#include "job_args.h"

using tt::Arg;
using tt::test_job::Int;
using tt::test_job::Str;
using tt::layout::Category;
namespace rt = tt::rt;

namespace {

void Job(long steps, long busy_us, int worker, bool varied) {
  rt::Anchor anchor;
  int64_t base = static_cast<int64_t>(worker) << 40;  // ids unique across workers
  uint32_t queue = 7 + 2 * static_cast<uint32_t>(worker);
  // Set up this thread's stream and the names first, so that step 0 is like every other.
  std::string name = "worker-" + std::to_string(worker);
  rt::EmitThreadName(name.c_str());
  for (const char* n : {"step", "model/dense/MatMul:MatMul", "cudaLaunchKernel", "inner_product",
                        "MemoryAllocation", "model/dense/BiasAdd:BiasAdd", "MemoryDeallocation",
                        "model/relu:Relu", "cudaMemcpyAsync", "external_id", "correlation_id",
                        "bytes", "addr"})
    rt::InternName(n);
  if (varied)
    for (const char* n : {"allocator", "GPU_0_bfc", "cpu"}) rt::InternName(n);
  for (long i = 0; i < steps; ++i) {
    Arg step[] = {Int("step", i)};
    rt::EmitBeginArgs("step", Category::kStep, step, 1);
    // Read after the step began, so the device work and the busy wait below lie inside the
    // step even when writing the begin event was slow (a new packet, a loaded machine).
    uint64_t t0 = rt::NowNs(&anchor);
    {
      Arg ext[] = {Int("external_id", base + i)};
      rt::EmitBeginArgs("model/dense/MatMul:MatMul", Category::kFrameworkOp, ext, 1);
      Arg c1[] = {Int("correlation_id", base + 3 * i + 1)};
      rt::EmitBeginArgs("cudaLaunchKernel", Category::kRuntimeApi, c1, 1);
      rt::EmitEnd();
      rt::EmitBegin("inner_product", Category::kPrimitive);
      rt::EmitEnd();
      Arg alloc[3] = {Int("bytes", varied ? 1024 * (i + 1) : 1024), Int("addr", base + 0x1000 + i)};
      if (varied) alloc[2] = Str("allocator", "GPU_0_bfc");
      rt::EmitInstant("MemoryAllocation", Category::kAllocation, alloc, varied ? 3 : 2);
      rt::EmitEnd();
    }
    {
      rt::EmitBegin("model/dense/BiasAdd:BiasAdd", Category::kFrameworkOp);
      Arg c2[] = {Int("correlation_id", base + 3 * i + 2)};
      rt::EmitBeginArgs("cudaLaunchKernel", Category::kRuntimeApi, c2, 1);
      rt::EmitEnd();
      if (i > 0) {
        Arg fr[] = {Int("addr", base + 0x1000 + i - 1)};
        rt::EmitInstant("MemoryDeallocation", Category::kAllocation, fr, 1);
      }
      rt::EmitEnd();
    }
    {
      rt::EmitBegin("model/relu:Relu", Category::kFrameworkOp);
      Arg c3[] = {Int("correlation_id", base + 3 * i + 3)};
      rt::EmitBeginArgs("cudaMemcpyAsync", Category::kRuntimeApi, c3, 1);
      rt::EmitEnd();
      if (varied) {
        Arg a[] = {Int("bytes", 512 * (i + 1)), Int("addr", base + 0x100000 + i),
                   Str("allocator", "cpu")};
        rt::EmitInstant("MemoryAllocation", Category::kAllocation, a, 3);
        Arg f[] = {Int("addr", base + 0x100000 + i)};
        rt::EmitInstant("MemoryDeallocation", Category::kAllocation, f, 1);
      }
      rt::EmitEnd();
    }
    while (busy_us > 0 && rt::NowNs(&anchor) < t0 + static_cast<uint64_t>(busy_us) * 1000) {
    }
    rt::EmitEnd();
    Arg k1[] = {Int("correlation_id", base + 3 * i + 1), Int("external_id", base + i),
                Str("grid", "128x1x1"), Str("block", "256x1x1"), Int("registers", 64),
                Int("static_shared", 1024), Int("dynamic_shared", 0)};
    rt::EmitDeviceActivity(0, queue, "volta_sgemm_128x64_nn", Category::kGpuKernel, t0 + 20000,
                           t0 + 50000, k1, 7);
    Arg k2[] = {Int("correlation_id", base + 3 * i + 2), Str("grid", "64x1x1"),
                Str("block", "128x1x1")};
    rt::EmitDeviceActivity(0, queue, "bias_add_kernel", Category::kGpuKernel, t0 + 60000,
                           t0 + 70000, k2, 3);
    Arg m1[] = {Int("correlation_id", base + 3 * i + 3), Int("bytes", 4096),
                Str("kind", "HtoD")};
    rt::EmitDeviceActivity(0, queue + 1, "memcpy", Category::kMemcpy, t0 + 80000, t0 + 90000,
                           m1, 3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s STEPS [BUSY_US] [THREADS] [varied]\n", argv[0]);
    return 2;
  }
  long steps = std::atol(argv[1]);
  long busy = argc > 2 ? std::atol(argv[2]) : 100;
  int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  bool varied = argc > 4 && std::string(argv[4]) == "varied";
  std::vector<std::thread> ts;
  for (int w = 1; w < threads; ++w) ts.emplace_back(Job, steps, busy, w, varied);
  Job(steps, busy, 0, varied);
  for (auto& t : ts) t.join();
  return 0;
}
