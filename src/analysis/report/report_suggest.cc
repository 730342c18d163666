// The report's "what would help most": the job's steps replayed (analysis/replay/), then the
// candidates replay's --suggest tries (the critical path's heaviest labels twice as fast, the
// input pipeline gone, communication faster or overlapped), each replayed, best first.
#include "analysis/report/report_suggest.h"

#include <algorithm>

#include "analysis/replay/predict.h"
#include "analysis/replay/suggest.h"
#include "analysis/report/report_data.h"
#include "core/error.h"

namespace tt::analysis {

namespace rp = replay;

void AddSuggestions(const model::TraceModel& m, const Options& sel, size_t n, ReportData* d,
                    std::vector<Problem>* problems) {
  rp::BuildOptions o;
  o.range = sel.steps;
  if (sel.skip_warmup) o.skip_warmup = sel.skip_warmup;
  o.step_names = sel.step_names;
  o.threads = sel.threads;
  rp::Job job;
  try {
    job = rp::BuildJob({&m}, o, problems);
  } catch (const Error& e) {
    d->suggestions_note = std::string("no replay: ") + e.what();
    return;
  }
  d->replay_notes = job.notes;
  rp::Prediction base = rp::Predict(job.steps);
  d->replay_measured_ns = base.measured;
  d->replay_predicted_ns = base.predicted;
  for (const rp::WhatIf& w : rp::Candidates(base, job.steps, n)) {
    try {
      d->suggestions.push_back({w.spec, rp::Predict(rp::Changed(job.steps, {w})).predicted});
    } catch (const Error&) {
      // A candidate that matches nothing in some step: not a suggestion.
    }
  }
  std::stable_sort(d->suggestions.begin(), d->suggestions.end(),
                   [](const ReportSuggestion& a, const ReportSuggestion& b) {
                     return a.predicted_ns < b.predicted_ns;
                   });
  if (d->suggestions.empty()) d->suggestions_note = "replay found nothing to try";
}

}  // namespace tt::analysis
