#include "format/import/kineto/classify.h"

#include <charconv>

namespace tt {

using layout::Category;

namespace {

constexpr std::string_view kProfilerStep = "ProfilerStep#";
constexpr std::string_view kModulePrefix = "nn.Module: ";

}  // namespace

KinetoKind ClassifyKineto(std::string_view cat, std::string_view name) {
  KinetoKind k;
  bool backend = name.starts_with("gloo:") || name.starts_with("nccl:");
  if (name.starts_with(kModulePrefix)) {
    // A Python call (Kineto's Python tracer names its own module frames so too), not an op.
    k.category = Category::kPython;
    k.module = true;
    return k;
  }
  if ((cat == "cpu_op" || cat == "operator") && !backend) {
    k.category = Category::kFrameworkOp;
    k.op = true;
    if (name == "record_param_comms") {
      k.category = Category::kCommunication;
      k.op = false;
      k.comm = true;
    }
  } else if (backend && (cat == "user_annotation" || cat == "cpu_op")) {
    // The backend's own range of one collective, on its worker thread: its input's shape and
    // element type give the bytes.
    k.category = Category::kCommunication;
    k.comm = true;
  } else if (cat == "user_annotation" || cat == "gpu_user_annotation") {
    k.device = cat == "gpu_user_annotation";
    if (name.starts_with(kProfilerStep)) {
      int64_t n = -1;
      std::string_view num = name.substr(kProfilerStep.size());
      auto r = std::from_chars(num.data(), num.data() + num.size(), n);
      k.category = Category::kStep;
      k.step = true;
      k.step_number = r.ec == std::errc() && r.ptr == num.data() + num.size() ? n : -1;
    }
    k.optimizer_step = name.starts_with("Optimizer.step#");
  } else if (cat == "python_function") {
    k.category = Category::kPython;
  } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
    k.category = Category::kRuntimeApi;
  } else if (cat == "kernel") {
    k.category = Category::kGpuKernel;
    k.device = true;
  } else if (cat == "gpu_memcpy") {
    k.category = Category::kMemcpy;
    k.device = true;
  } else if (cat == "gpu_memset") {
    k.category = Category::kMemset;
    k.device = true;
  } else if (cat == "Trace" || cat == "fwdbwd" || cat == "ac2g" || cat.empty()) {
    k.skip = true;
  }
  return k;
}

}  // namespace tt
