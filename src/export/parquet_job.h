// The job-wide tables of `export --format parquet`: steps (the step view's breakdown),
// collectives (matched across ranks, as `comm` matches them: one row per rank's arrival),
// processes and clocks (docs/tables.md).
#pragma once
#include <string>
#include <vector>

#include "export/walk.h"

namespace tt::exporter {

struct JobTablesCounts {
  uint64_t steps = 0, collectives = 0, processes = 0, clocks = 0;
};

void WriteJobTables(const model::TraceModel& m, const Selection& sel,
                    const std::vector<model::Step>& steps, const std::string& root,
                    std::vector<Problem>* problems, JobTablesCounts* counts);

// The tables of the whole job alone (collectives, processes, clocks): what export computes over
// the recordings when it takes their per-process tables from record --tables
// (parquet_reuse.h).
void WriteJobWideTables(const model::TraceModel& m, const std::string& root,
                        std::vector<Problem>* problems, JobTablesCounts* counts);

}  // namespace tt::exporter
