// `tensortrace replay`: each selected step's dependency graph replayed (analysis/replay/):
// predicted against measured step time per rank, the critical path, each resource's
// utilisation, and what each --what-if would change.
#include <algorithm>
#include <iostream>
#include <set>

#include "analysis/job/job_clock.h"
#include "analysis/replay/input_waits.h"
#include "analysis/replay/predict.h"
#include "analysis/replay/suggest.h"
#include "analysis/replay/typical.h"
#include "analysis/replay/whatif_kind.h"
#include "analysis/views/stats.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json_out.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "cli/replay_print.h"
#include "core/human.h"
#include "model/model.h"

namespace tt::cli {

namespace {

namespace rp = analysis::replay;

const char kReplayHelp[] =
    R"(usage: tensortrace replay DIR... [--steps A:B] [--skip-warmup N | --include-warmup]
                          [--step-name NAME]... [--pid P]... [--what-if SPEC]... [--suggest N]
                          [--typical] [--no-graph-edges] [--no-cpu-sharing]
                          [--json | --csv [--section S]] [--top N]

Replays each selected step of the job in DIR (several directories: one job, one recording per
rank, on one clock as stats shows it; the offsets are notes) from its dependency graph: the
nodes are the work of each thread, GPU stream and communicator (ops with what they contain,
runtime work, input waits, device activity, collectives); the edges are each resource's order
with the gap measured before each node, the happens-before the trace shows (a node that followed
a wait depends on the node of another thread that ended last before it, within 0.5 ms), each
kernel's launch (correlation ids), collectives across ranks (the transfer starts when the last
rank arrived), TensorFlow's tensors sent between processes (each _Send/_Recv pair a transfer on
a link, from the later of the send and the receive's request to its arrival; a process without
steps of its own, such as a server task, is replayed within the ranks' steps), PyTorch autograd's own links (a backward op after its forward op, by sequence
number), and TensorFlow graphs' (an op after the ops that feed it in its tf.function's graph,
which the bootstrap saved; they replace the inferred happens-before of those ops). A
discrete-event simulation with one queue per resource replays it. Prints the measured and
predicted step time and the error per rank (means over the steps), the critical path (each
label's time and share), and each resource's utilisation.

  --what-if SPEC     replay with a change (repeatable; each is replayed on its own, and all
                    together when there are several), printing its predicted step time, the
                    speedup, and what moved on the critical path:
)";

const char kReplayHelpOptions[] =
    R"(  --suggest N       what would help most: the N changes a user can make with the largest
                    predicted gain, each with its uncertainty (the spread of the steps' gains)
                    and how to make it: the input pipeline (input=0) where steps wait for input,
                    the hottest side work of the program's own lines (line:FILE:LINE=0), a
                    straggler like the other ranks (rank=R:like=0), the gradient bucket size
                    where communication is exposed, mixed precision where the recording host
                    has BF16, element-wise ops fused; an op twice as fast only where none helps
  --typical         replay one typical step instead of each: the median step's graph with each
                    node's duration and each edge's gap the mean of its label's over the steps
                    (its error against the mean measured step is the model's)
)";

const OutputSpec kOutput{
    .schema = "docs/replay.md",
    .csv_rows = "",
    .sections = {{"ranks", "one row per rank: measured and predicted step, error"},
                 {"steps", "one row per step replayed"},
                 {"critical_path", "one row per label"},
                 {"resources", "one row per thread, stream or link: its utilisation"},
                 {"what_ifs", "one row per --what-if"},
                 {"suggestions", "one row per --suggest candidate"}},
    .top_rows = "critical-path labels and resources",
    .top_default = 10};

struct ReplayArgs {
  std::vector<std::string> dirs, what_ifs;
  rp::BuildOptions build;
  SelectionOptions sel;
  OutputOptions out{kOutput};
  bool typical = false;
  size_t suggest = 0;
};

double WhatIfFactor(const std::string& spec, const std::string& text) {
  return ParseNonNegativeDouble("--what-if '" + spec + "'", text, 1e6,
                                "a non-negative number (the factor)");
}

uint64_t WhatIfBytes(const std::string& spec, const std::string& text) {
  return ParseBytes("--what-if '" + spec + "'", text);
}

bool ParseReplayArgs(const std::vector<std::string>& argv, ReplayArgs* o) {
  ArgReader a("replay", argv);
  std::string v;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &o->out)) {
      if (!o->out.help) continue;
      std::cout << kReplayHelp << rp::WhatIfHelp(22) << kReplayHelpOptions << BuildOptionsHelp()
                << OutputHelp(kOutput);
      return false;
    } else if (a.Flag("--typical")) {
      o->typical = true;
    } else if (a.Option("--what-if", &v)) {
      o->what_ifs.push_back(v);
    } else if (ParseBuildOption(a, &o->sel, &o->build)) {
    } else if (a.Option("--suggest", &v)) {
      o->suggest = ParseUint("--suggest", v, 1000);
      if (o->suggest == 0) throw Error("--suggest: must be at least 1");
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      o->dirs.push_back(a.TakePositional());
    } else {
      a.Unknown();
    }
  }
  if (o->dirs.empty()) throw Error("no trace directory given (usage: tensortrace replay DIR...)");
  CheckOutput(kOutput, o->out);
  SetBuildOptions(o->sel, &o->build);
  std::set<std::string> seen;
  for (const auto& d : o->dirs)
    if (!seen.insert(d).second) throw Error(d + ": given twice");
  return true;
}

// A what-if that removes most of the steps' waits for their input: the work after each wait
// keeps its measured time, and a thread back from a wait can run slower than one that never
// waited (docs/replay.md, "A thread comes back slower after a wait"), which the trace cannot
// tell; "" where the waits it removed are under a millisecond or a quarter of the step.
std::string WaitsGoneNote(const std::vector<rp::StepGraph>& before,
                          const std::vector<rp::StepGraph>& after, const rp::Prediction& base) {
  std::vector<const rp::Graph*> b, a;
  for (const auto& s : before) b.push_back(&s.graph);
  for (const auto& s : after) a.push_back(&s.graph);
  double gone = before.empty() ? 0 : rp::InputWaitGone(b, a) / static_cast<double>(before.size());
  if (gone < 1e6 || gone < 0.25 * base.measured) return "";
  return "the steps' waits for input (" + analysis::HumanDuration(gone) +
         " a step) are gone, but the work right after each wait keeps its measured time; a "
         "thread back from a wait can run slower than one that never waited (about 1.5x on a "
         "2-vCPU VM: docs/replay.md), so this prediction can be high";
}

WhatIfResult RunWhatIf(const std::string& spec, const std::vector<rp::WhatIf>& ws,
                       const rp::Job& job, const rp::Prediction& base) {
  WhatIfResult r;
  r.spec = spec;
  std::vector<rp::StepGraph> changed = rp::Changed(job.steps, ws);
  r.p = rp::Predict(changed);
  r.moved = rp::MovedOnPath(base, r.p, 5);
  r.note = WaitsGoneNote(job.steps, changed, base);
  return r;
}

}  // namespace

const SelectionSpec kBuildSelection{.steps = true,
                                    .step_name = true,
                                    .pid = true,
                                    .skip_warmup = true,
                                    .skip_default = 1,
                                    .warmup = WarmupDefault::kFirstStepsOut};

std::string BuildOptionsHelp() {
  return SelectionHelp(kBuildSelection) +
         OptionHelp("--no-graph-edges",
                    "leave the TensorFlow graphs out: ops ordered by the trace alone (inferred), "
                    "for comparison") +
         OptionHelp("--no-cpu-sharing",
                    "where a step has no GPU work (a CPU-only job, or collectives on the CPU), "
                    "its threads (and transfers) share their hosts' cores (each node's work, "
                    "replayed at its share of a core); this leaves that out, for comparison");
}

bool ParseBuildOption(ArgReader& a, SelectionOptions* sel, rp::BuildOptions* b) {
  if (ParseSelectionOption(a, kBuildSelection, sel))
    return true;
  else if (a.Flag("--no-graph-edges"))
    b->graph_edges = false;
  else if (a.Flag("--no-cpu-sharing"))
    b->cpu_sharing = false;
  else
    return false;
  return true;
}

void SetBuildOptions(const SelectionOptions& sel, rp::BuildOptions* b) {
  b->range = sel.steps;
  b->skip_warmup = sel.SkipWarmup(kBuildSelection);
  b->step_names = sel.step_names;
}

std::vector<WhatIfResult> SuggestionResults(const rp::Job& job, const rp::Prediction& base,
                                            size_t n, const std::vector<analysis::RankGaps>& gaps) {
  std::vector<WhatIfResult> out;
  for (rp::Suggestion& s : rp::Suggest(base, job.steps, job.hardware, n)) {
    WhatIfResult r;
    r.spec = s.what_if.spec;
    r.moved = rp::MovedOnPath(base, s.p, 5);
    r.p = std::move(s.p);
    r.change = s.change;
    r.how = s.how;
    // A straggler's, where its extra time went, as the report says it (rank_gaps.h).
    if (s.change == "straggler")
      if (std::string g = analysis::GapSentence(gaps, s.what_if.rank); !g.empty())
        r.how += ". Its steps: " + g;
    r.gain = s.gain;
    r.uncertainty = s.uncertainty;
    r.samples = s.samples;
    out.push_back(std::move(r));
  }
  return out;
}

rp::Job LoadReplayJob(const std::vector<std::string>& dirs, const model::ProcessChoice& chosen,
                      const rp::BuildOptions& build, std::vector<Problem>* problems,
                      std::vector<analysis::RankGaps>* gaps) {
  // Several recordings as one job on one clock (job_clock.h): each rank's ops and its arrivals
  // at the collectives must be read on the same clock, or a step's collective lands elsewhere.
  model::TraceModel m = LoadJob(dirs, chosen);
  problems->insert(problems->end(), m.problems.begin(), m.problems.end());
  rp::Job job = rp::BuildJob({&m}, build, problems);
  if (gaps) {  // the ranks' gaps in their steps (the step view's), for a straggler's suggestion
    analysis::Options o;
    o.view = "step";
    std::vector<Problem> seen;  // the same damage BuildJob reported
    *gaps = analysis::GapsByRank(analysis::Compute(m, o, &seen).steps);
  }
  std::vector<std::string> clocks = analysis::ClockNotes(m);
  job.notes.insert(job.notes.begin(), clocks.begin(), clocks.end());
  // The load and BuildJob's scans meet the same damage: each problem once.
  std::vector<Problem> once;
  for (auto& p : *problems)
    if (std::none_of(once.begin(), once.end(), [&](const Problem& q) {
          return q.file == p.file && q.offset == p.offset && q.what == p.what;
        }))
      once.push_back(std::move(p));
  *problems = std::move(once);
  return job;
}

int Replay(const std::vector<std::string>& argv) {
  ReplayArgs o;
  if (!ParseReplayArgs(argv, &o)) return 0;
  std::vector<rp::WhatIf> ws;
  for (const auto& s : o.what_ifs)
    ws.push_back(rp::ParseWhatIf(s, rp::WhatIfNumbers{WhatIfFactor, WhatIfBytes}));
  std::vector<Problem> problems;
  std::vector<analysis::RankGaps> gaps;
  rp::Job job =
      LoadReplayJob(o.dirs, o.sel.Chosen(), o.build, &problems, o.suggest ? &gaps : nullptr);
  size_t replayed = job.steps.size();
  if (o.typical) job.steps = rp::Typical(job.steps);
  ReplayOutput out;
  out.typical = o.typical;
  out.steps = replayed;
  out.dirs = o.dirs;
  out.skip_warmup = o.build.skip_warmup;
  out.collectives = job.collectives;
  out.transfers = job.transfers;
  out.participants = job.participants;
  out.autograd_edges = job.autograd_edges;
  out.gradients = job.gradients;
  out.graph_edges = job.graph_edges;
  out.graph_links = job.graph_links;
  out.notes = job.notes;
  out.hardware = job.hardware;
  out.base = rp::Predict(job.steps);
  for (const auto& w : ws) out.what_ifs.push_back(RunWhatIf(w.spec, {w}, job, out.base));
  if (ws.size() > 1) out.what_ifs.push_back(RunWhatIf("all together", ws, job, out.base));
  if (o.suggest) out.suggestions = SuggestionResults(job, out.base, o.suggest, gaps);
  if (o.out.json)
    PrintCommandJson(ReplayJson(out));
  else if (o.out.csv)
    PrintReplayCsv(out, o.out.section);
  else
    PrintReplay(out, o.out.top);
  if (!o.out.json && !o.out.csv)
    for (const auto& n : out.notes) std::cout << "note: " << TerminalSafe(n) << "\n";
  return 0;
}

}  // namespace tt::cli
