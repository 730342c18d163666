// `tensortrace replay`'s output (replay_print.cc): the human tables and the JSON
// (docs/replay.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/replay/predict.h"
#include "analysis/report/rank_gaps.h"
#include "cli/args.h"
#include "cli/option_groups.h"

namespace tt::cli {

// One what-if's answer.
struct WhatIfResult {
  std::string spec;
  analysis::replay::Prediction p;
  std::vector<analysis::replay::Moved> moved;
  // A suggestion's (analysis/replay/suggest.h): its kind of change, the gain (ns per step)
  // and its uncertainty, and how to make it; change is empty for a --what-if.
  std::string change, how;
  double gain = 0, uncertainty = 0;
  double samples = 1;  // its step's samples over the measured step's (batch=2: 2)
  std::string note;    // what the prediction cannot see (a what-if's), "" when nothing
  double PerSample() const { return p.predicted / samples; }  // the measured step's samples' time
};

struct ReplayOutput {
  std::vector<std::string> dirs;
  uint64_t skip_warmup = 0;
  size_t collectives = 0;
  size_t transfers = 0;                      // point-to-point (TensorFlow's _Send/_Recv pairs)
  std::vector<std::string> participants;     // processes without steps replayed with the ranks
  size_t autograd_edges = 0, gradients = 0;  // over the replayed steps (docs/replay.md)
  size_t graph_edges = 0;                    // TensorFlow graphs' edges (docs/replay.md)
  std::vector<std::pair<std::string, std::string>> graph_links;
  bool typical = false;  // one typical step replayed (analysis/replay/typical.h)
  size_t steps = 0;      // steps selected per rank
  analysis::replay::Prediction base;
  std::vector<WhatIfResult> what_ifs;
  std::vector<WhatIfResult> suggestions;  // --suggest: the largest predicted gain first
  std::vector<std::string> notes;
  analysis::replay::Hardware hardware;  // the peaks precision= and op-fusion= are bounded by
};

// The job in `dirs` as replay's graphs (the traces are read once; the graphs keep no reference
// to them).
// Consumes one of the options replay and optimize share if it is next: the selection group
// (--steps A:B, --skip-warmup N (default 1), --include-warmup, --step-name NAME, --pid P,
// --rank R; option_groups.h) into *sel, --no-graph-edges and --no-cpu-sharing into *b.
bool ParseBuildOption(ArgReader& a, SelectionOptions* sel, analysis::replay::BuildOptions* b);
// After the loop: the selection's steps into *b.
void SetBuildOptions(const SelectionOptions& sel, analysis::replay::BuildOptions* b);
// The help lines of those options.
std::string BuildOptionsHelp();

analysis::replay::Job LoadReplayJob(const std::vector<std::string>& dirs,
                                    const model::ProcessChoice& chosen,
                                    const analysis::replay::BuildOptions& build,
                                    std::vector<Problem>* problems,
                                    std::vector<analysis::RankGaps>* gaps);

nlohmann::json ReplayJson(const ReplayOutput& o);
void PrintReplay(const ReplayOutput& o, size_t top);
// The suggestions' table (change, what-if, predicted step, gain, uncertainty, speedup against
// `base`, the unchanged prediction) and how to make each; optimize prints them too.
void PrintSuggestions(const std::vector<WhatIfResult>& s, double base);
// The suggestions of `steps` (analysis/replay/suggest.h) as results; a straggler's says where
// its extra time went where `gaps` (the ranks' gaps in their steps) say.
std::vector<WhatIfResult> SuggestionResults(const analysis::replay::Job& job,
                                            const analysis::replay::Prediction& base, size_t n,
                                            const std::vector<analysis::RankGaps>& gaps);
// --csv: the rows of one section of the JSON (ranks, steps, critical_path, resources,
// what_ifs, suggestions) as CSV.
void PrintReplayCsv(const ReplayOutput& o, const std::string& section);

}  // namespace tt::cli
