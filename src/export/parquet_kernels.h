// The kernels table of `export --format parquet`: every GPU kernel, copy and set (the slices
// whose meaning is `device`, and communication kernels) with its launch (the runtime API call
// of the same correlation id), the op that launch ran in (or the op its external id names) and
// that op's step, one file per process under kernels/rank=R/ (docs/tables.md).
#pragma once
#include <string>
#include <vector>

#include "analysis/job/steps.h"
#include "export/walk.h"

namespace tt::exporter {

// Writes root/kernels; returns the rows written. The links are the aggregation pass's
// (analysis/pass/correlate.h), so each row's launch and op are those the kernel view counts.
uint64_t WriteKernelTable(const model::TraceModel& m, const Selection& sel,
                          const std::vector<model::Step>& steps, const std::string& root,
                          std::vector<Problem>* problems);

}  // namespace tt::exporter
