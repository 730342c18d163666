// The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched)
// with the run summary, step-time breakdown, top ops and kernels, memory over time, copies,
// a timeline of the median step and the findings.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/findings.h"
#include "analysis/memory.h"
#include "analysis/stats.h"
#include "analysis/timeline.h"
#include "export/sink.h"

namespace tt::exporter {

struct RunSummary {
  std::string title;
  std::string trace;
  std::vector<std::string> commands;  // "pid N: command line", per process
  std::vector<std::string> hosts;
  std::vector<std::pair<std::string, std::string>> versions;  // source -> detail (version)
  uint64_t duration_ns = 0, events = 0, dropped = 0;
  size_t processes = 0, threads = 0, devices = 0, device_streams = 0;
  size_t steps_found = 0, steps_selected = 0;
  std::string selection;  // how steps were selected, "" for all
};

struct ReportData {
  RunSummary run;
  analysis::Result steps, ops, kernels, copies;
  analysis::MemoryResult memory;
  std::optional<analysis::Timeline> timeline;
  int64_t timeline_step = -1;
  uint64_t timeline_pid = 0;
  std::vector<analysis::Finding> findings;
  std::vector<std::string> problems;  // damaged parts skipped, as one line each
  size_t top = 20;                    // rows per table
};

// Writes the whole page to `out` (the caller commits it).
void WriteReportHtml(const ReportData& d, Sink& out);

}  // namespace tt::exporter
