// The per-process tables of `export --format parquet`: slices (every slice with its meaning as
// the views decide it, op type, step, the program's line behind it, and its time as an op), allocations and threads, one file
// per process under each table's rank=R/ folder (docs/tables.md).
#pragma once
#include <string>
#include <vector>

#include "analysis/job/steps.h"
#include "analysis/pass/code_index.h"
#include "export/walk.h"

namespace tt::exporter {

// Rows written per table.
struct SliceTablesCounts {
  uint64_t slices = 0, allocations = 0, threads = 0;
};

// Walks the selection (walk.h) into root/slices, root/allocations and root/threads.
// steps: the job's steps (model::FindSteps), to number each slice's step; code: the Python
// stacks (analysis::LoadCodeIndex), for each op's line.
WalkResult WriteSliceTables(const model::TraceModel& m, const Selection& sel,
                            const std::vector<model::Step>& steps,
                            const analysis::CodeIndex& code, const std::string& root,
                            std::vector<Problem>* problems, SliceTablesCounts* counts);

// root/TABLE/rank=R/part-PID.parquet (rank -1: a process no launcher gave a rank), its
// folder made.
std::string PartPath(const std::string& root, const char* table, int64_t rank,
                     const std::string& part);

}  // namespace tt::exporter
