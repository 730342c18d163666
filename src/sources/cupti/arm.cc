// Arming the CUDA (CUPTI) source for `record` (see sources/registry.h).
#include <cstdlib>
#include <iostream>

#include "sources/registry.h"

namespace tt::sources {

// Names the runtime library (which holds the CUPTI injection entry point) in
// CUDA_INJECTION64_PATH, unless the variable is set already (then one warning unless quiet) or
// the library was built without the CUDA headers (TT_HAVE_CUPTI unset: nothing to arm).
void ArmCuda(const ArmOptions& o) {
#ifdef TT_HAVE_CUPTI
  if (const char* old = std::getenv("CUDA_INJECTION64_PATH"); old && *old) {
    if (!o.quiet)
      std::cerr << "tensortrace: CUDA_INJECTION64_PATH is set, our CUDA (CUPTI) source stays off\n";
    return;
  }
  // The CUDA driver loads this library and calls its InitializeInjection at cuInit; a process
  // that never initialises CUDA never runs any of it.
  setenv("CUDA_INJECTION64_PATH", o.runtime_lib.c_str(), 1);
#else
  (void)o;
#endif
}

}  // namespace tt::sources
