// Importing XSpace files (the TensorFlow/JAX/XLA profiler's .xplane.pb) into a recorded
// trace: each host thread line becomes an imported stream of the process, each device line a
// device stream, on the trace clock and with names in the process's name space, so every
// reader of runtime streams reads them the same way.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tt {

struct XSpaceImport {
  uint64_t files = 0;   // files imported (at least in part)
  uint64_t events = 0;  // slices and instants written
  uint64_t tracks = 0;  // streams written (lines, allocator counters)
  uint64_t steps = 0;   // step slices written
  // Per file (capture window), in order: the time it covers on the trace clock (the profile's
  // start and stop where the file says, else its events' extent); 0, 0 when unknown.
  std::vector<std::pair<uint64_t, uint64_t>> windows;
  std::vector<std::string> errors;  // one line each: a file skipped and why, or what was lost
};

// Steps A..B inclusive (the capture's "steps"); other step markers are not imported.
struct XSpaceStepFilter {
  int64_t first = 0;
  int64_t last = INT64_MAX;
};

// <logdir>/plugins/profile/<run>/*.xplane.pb, sorted (one run directory per capture window).
std::vector<std::string> FindXSpaceFiles(const std::string& logdir);

// Converts `files` into streams of the newest image of process `pid` in `trace_dir`. A file
// that cannot be read or parsed becomes an error entry and the others are still imported.
// Throws tt::Error when the trace holds no process `pid`.
XSpaceImport ImportXSpace(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<XSpaceStepFilter>& steps);

}  // namespace tt
