// The report's "what would help most": the job's steps replayed (analysis/replay/), then the
// changes replay's --suggest tries (analysis/replay/suggest.h), each replayed, the largest
// predicted gain first; a straggler's with where its extra time went (rank_gaps.h).
#include "analysis/report/report_suggest.h"

#include "analysis/replay/predict.h"
#include "analysis/replay/roofline.h"
#include "analysis/replay/suggest.h"
#include "analysis/report/rank_gaps.h"
#include "analysis/report/report_data.h"
#include "core/error.h"
#include "core/human.h"

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
  // A straggler's suggestion also says where its extra time went, where its gaps say
  // (rank_gaps.h: the step view's host idle, at the line the sampler saw).
  std::vector<RankGaps> gaps = GapsByRank(d->steps.steps);
  for (const rp::Suggestion& s : rp::Suggest(base, job.steps, job.hardware, n)) {
    std::string how = s.how;
    if (s.change == "straggler")
      if (std::string g = GapSentence(gaps, s.what_if.rank); !g.empty()) how += ". Its steps: " + g;
    if (std::string r = rp::RooflineSentence(s.p.roofline); !r.empty()) how += ". " + r;
    if (s.samples != 1)  // the row's step is the measured step's samples' share
      how += ". Its step of " + std::to_string(static_cast<int>(s.samples)) +
             " times the samples is predicted at " + HumanDuration(s.p.predicted);
    d->suggestions.push_back({s.change, s.what_if.spec, s.Predicted(), s.gain, s.uncertainty, how});
  }
  if (d->suggestions.empty())
    d->suggestions_note = "replay found no change that shortens the step by 0.5% or more";
}

}  // namespace tt::analysis
