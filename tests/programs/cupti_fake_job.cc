// A "CUDA job" against the stand-in libcupti (fake_cupti.cc) named by TENSORTRACE_CUPTI_LIB:
// calls InitializeInjection as the driver would, then launches two kernels inside an op, and
// exits (the CUDA source's final flush delivers the kernels). Prints "rc N".
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "tensortrace/tensortrace.h"

int main() {
  auto init = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
  if (!init) return 2;
  int rc = init();
  std::printf("rc %d\n", rc);
  const char* path = std::getenv("TENSORTRACE_CUPTI_LIB");
  void* h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto launch = h ? reinterpret_cast<void (*)(unsigned)>(dlsym(h, "fake_cupti_launch")) : nullptr;
  if (!launch) return 0;
  tt_range_push("train_step");
  launch(42);
  launch(43);
  tt_range_pop();
  return 0;
}
