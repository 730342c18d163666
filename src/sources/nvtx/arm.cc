// Arming the NVTX collector for `record` (see sources/registry.h).
#include <cstdlib>
#include <iostream>

#include "sources/registry.h"

namespace tt::sources {

// NVTX: every NVTX v3 client (NCCL, CUDA libraries, TensorFlow/JAX/XLA, PyTorch) loads the
// injection library this names at its first NVTX call; ours lives in the runtime library.
void ArmNvtx(const ArmOptions& o) {
  if (const char* nvtx = std::getenv("NVTX_INJECTION64_PATH"); nvtx && *nvtx) {
    if (!o.quiet)
      std::cerr << "tensortrace: NVTX_INJECTION64_PATH is set, our NVTX collector stays off\n";
  } else {
    setenv("NVTX_INJECTION64_PATH", o.runtime_lib.c_str(), 1);
  }
}

}  // namespace tt::sources
