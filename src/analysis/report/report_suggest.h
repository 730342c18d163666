// The report's "what would help most" (report_suggest.cc): AddSuggestions.
#pragma once
#include <cstddef>
#include <vector>

#include "analysis/views/stats.h"
#include "model/model.h"

namespace tt::analysis {

struct ReportData;  // report_data.h

// Replay's "what would help most" for the report (report_suggest.cc): the job's steps replayed
// and up to n candidate what-ifs, best first; a trace replay cannot take leaves a note.
void AddSuggestions(const model::TraceModel& m, const Options& sel, size_t n, ReportData* d,
                    std::vector<Problem>* problems);

}  // namespace tt::analysis
