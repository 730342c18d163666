// Arming the ITT collector for `record` (see sources/registry.h).
#include <cstdlib>
#include <iostream>

#include "sources/registry.h"

namespace tt::sources {

// ITT: instrumented libraries (oneDNN, TBB...) load the collector this names; ours lives in
// the runtime library. Groups "all" lets older static parts fill every function; oneDNN's
// task level 2 reports every primitive, on every thread.
void ArmItt(const ArmOptions& o) {
  if (const char* itt = std::getenv("INTEL_LIBITTNOTIFY64"); itt && *itt) {
    if (!o.quiet)
      std::cerr << "tensortrace: INTEL_LIBITTNOTIFY64 is set, our ITT collector stays off\n";
  } else {
    setenv("INTEL_LIBITTNOTIFY64", o.runtime_lib.c_str(), 1);
  }
  setenv("INTEL_ITTNOTIFY_GROUPS", "all", 0);
  setenv("ONEDNN_ITT_TASK_LEVEL", "2", 0);
}

}  // namespace tt::sources
