// Arming the NCCL source for `record` (see sources/registry.h).
#include <cstdlib>
#include <iostream>
#include <string>

#include "sources/registry.h"

namespace tt::sources {

// Names our profiler plugin (libtensortrace_nccl.so, beside the runtime's library) in
// NCCL_PROFILER_PLUGIN, unless the variable is set already (then one warning unless quiet: the
// user's plugin, or "none", wins). NCCL opens it at its first communicator's init; a process
// that never loads NCCL never runs any of it. The plugin sets NCCL's event mask itself.
void ArmNccl(const ArmOptions& o) {
  if (const char* old = std::getenv("NCCL_PROFILER_PLUGIN"); old && *old) {
    if (!o.quiet)
      std::cerr << "tensortrace: NCCL_PROFILER_PLUGIN is set (" << old
                << "), our NCCL source stays off\n";
    return;
  }
  const std::string& lib = o.runtime_lib;
  size_t slash = lib.rfind('/');
  std::string plugin =
      lib.substr(0, slash == std::string::npos ? 0 : slash + 1) + "libtensortrace_nccl.so";
  setenv("NCCL_PROFILER_PLUGIN", plugin.c_str(), 1);
}

}  // namespace tt::sources
