// The report's "what would help most" (report_suggest.cc): AddSuggestions.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/views/stats.h"
#include "model/model.h"

namespace tt::analysis {

struct ReportData;  // report_data.h

// One change of replay's "what would help most" (analysis/replay/suggest.h), as the report
// shows it: its kind, the what-if, the step time replay predicts with it, the gain and its
// uncertainty (ns), and how to make it.
struct ReportSuggestion {
  std::string change, spec;
  double predicted_ns = 0, gain_ns = 0, uncertainty_ns = 0;
  std::string how;
};

// Replay's "what would help most" for the report (report_suggest.cc): the job's steps replayed
// and up to n changes, the largest predicted gain first; a trace replay cannot take leaves a
// note.
void AddSuggestions(const model::TraceModel& m, const Options& sel, size_t n, ReportData* d,
                    std::vector<Problem>* problems);

}  // namespace tt::analysis
