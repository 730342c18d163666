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

// A step as the kernels table reads it (24 of model::Step's 96 bytes): a kernel's step is the
// one its launch, else itself, started in.
struct StepSpan {
  uint64_t start, end;
  int64_t number;
};

// What the kernels table keeps of the steps, so that the caller can free them before it runs:
// per process, the steps sorted by start, and the windows a selection (--steps,
// --skip-warmup) keeps, empty where none.
struct KernelSteps {
  std::vector<std::vector<StepSpan>> spans;
  analysis::Windows windows;
};
KernelSteps KernelStepsOf(const model::TraceModel& m, const Selection& sel,
                          const std::vector<model::Step>& steps);

// Writes root/kernels; returns the rows written. The links are the aggregation pass's
// (analysis/pass/correlate.h), so each row's launch and op are those the kernel view counts.
// Memory: the links (8 bytes a launch), each launch's track and start (12 bytes), the steps'
// spans; the rows stream.
uint64_t WriteKernelTable(const model::TraceModel& m, const KernelSteps& steps,
                          const std::string& root, const std::vector<std::string>& step_names);

}  // namespace tt::exporter
