// `export --format parquet`: the job's meaning as a few tables (slices, steps, collectives,
// allocations, processes, threads, clocks), each a Parquet dataset partitioned by rank under
// OUT/ (docs/tables.md), written through Apache Arrow's C++ library. Built only where Arrow was
// found (CMakeLists.txt: the pyarrow wheel's libraries); elsewhere the format says so in one
// line (parquet_missing.cc).
#pragma once
#include <string>
#include <vector>

#include "export/formats.h"

namespace tt::exporter {

// The format's paragraph of `export --help` (built without Arrow: that it is unavailable).
const char* ParquetHelp();

// Writes the dataset under a temporary name beside `dir` and renames it into place when whole;
// an existing, non-empty `dir` is refused.
ExportOutcome WriteParquetDataset(const model::TraceModel& m, const Selection& sel,
                                  const std::string& dir, bool gzip,
                                  std::vector<Problem>* problems);

}  // namespace tt::exporter
