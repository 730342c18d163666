// The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched)
// laying out what analysis/report/report_data.h assembled: the run summary, step-time breakdown, top
// ops and kernels, memory over time, copies, communication across ranks, a timeline of the
// median step and the findings.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/report/report_data.h"
#include "export/sink.h"

namespace tt::exporter {

using analysis::ReportData;
using analysis::RunSummary;

// Writes the whole page to `out` (the caller commits it).
void WriteReportHtml(const ReportData& d, Sink& out);

}  // namespace tt::exporter
