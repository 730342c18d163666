// One framework op (external id 7) that launches three kernels, each carrying the op's external
// id and its launch's correlation id: the one-op-to-many-kernels case of cuDNN and cuBLAS calls.
//   TENSORTRACE_DIR=DIR shared_external_id
#include "runtime/device.h"
#include "runtime/emit.h"
#include "job_args.h"

using tt::Arg;
using tt::test_job::Int;
using tt::layout::Category;
namespace rt = tt::rt;

int main() {
  rt::Anchor anchor;
  uint64_t t0 = rt::NowNs(&anchor);
  Arg ext[] = {Int("external_id", 7)};
  rt::EmitBeginArgs("model/conv:Conv2D", Category::kFrameworkOp, ext, 1);
  for (int i = 1; i <= 3; ++i) {
    Arg c[] = {Int("correlation_id", i)};
    rt::EmitBeginArgs("cudaLaunchKernel", Category::kRuntimeApi, c, 1);
    rt::EmitEnd();
  }
  rt::EmitEnd();
  for (int i = 1; i <= 3; ++i) {
    Arg k[] = {Int("correlation_id", i), Int("external_id", 7)};
    uint64_t start = t0 + 100000 + 20000 * static_cast<uint64_t>(i);
    rt::EmitDeviceActivity(0, 7, "conv_kernel", Category::kGpuKernel, start, start + 10000, k, 2);
  }
  return 0;
}
