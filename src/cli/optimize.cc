// `tensortrace optimize`: dPRO's optimizer, in small (analysis/replay/optimize.h): the settings
// that replay predicts shorten the step, best first, each with its predicted gain.
#include "analysis/replay/optimize.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/csv_rows.h"
#include "cli/json_out.h"
#include "cli/option_groups.h"
#include "cli/replay_print.h"
#include "core/human.h"

namespace tt::cli {

namespace {

namespace rp = analysis::replay;
using analysis::HumanDuration;
using nlohmann::json;

const char kOptimizeHelp[] =
    R"(usage: tensortrace optimize DIR... [--steps A:B] [--skip-warmup N | --include-warmup]
                            [--step-name NAME]... [--pid P]... [--no-graph-edges]
                            [--no-cpu-sharing] [--search greedy|mcmc] [--budget N] [--seed N]
                            [--json | --csv [--section S]]

Searches what-ifs of `tensortrace replay` that a user applies as settings, and prints the plan
the replay predicts best, each step with its predicted step time and speedup and how to apply
it: the gradient bucket size (tensor-fusion=1M..256M, where the job's collectives give their
bytes: PyTorch DDP's bucket_cap_mb, Horovod's HOROVOD_FUSION_THRESHOLD), then fusing chains of
element-wise ops (op-fusion=auto: XLA through jit_compile, JAX's jit, torch.compile). Each is
kept when it shortens the predicted step by at least 0.5%. Then the changes that would help
most, as `replay --suggest 5` names them (the input pipeline, a line's side work, a straggler,
the bucket size, mixed precision, fusion), each with its gain, uncertainty and how to make it.
The predictions are replay's (see docs/replay.md for what each what-if assumes and how far it
was checked).

options (the steps replayed as in `tensortrace replay`):
)";

const char kOptimizeSearchHelp[] =
    R"(  --search S        greedy (default), or mcmc: after the greedy search, dPRO's Metropolis
                    search (simulated annealing) over the bucket size and which element-wise
                    ops of the critical path to fuse, seeded from the greedy plan; its plan is
                    kept when it predicts a step at least 0.5% shorter
  --budget N        the Metropolis search's proposals (default 200; each one replay at most)
  --seed N          its random seed (default 1): the same seed gives the same plan
)";

const OutputSpec kOutput{.schema = "docs/replay.md",
                         .csv_rows = "",
                         .sections = {{"plan", "one row per setting of the plan, in its order"},
                                      {"tried", "one row per plan replayed"},
                                      {"suggestions", "one row per change that would help most"}}};

struct OptimizeArgs {
  std::vector<std::string> dirs;
  rp::BuildOptions build;
  rp::SearchOptions search;
  SelectionOptions sel;
  OutputOptions out{kOutput};
};

bool ParseOptimizeArgs(const std::vector<std::string>& argv, OptimizeArgs* o) {
  ArgReader a("optimize", argv);
  std::string v;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &o->out)) {
      if (!o->out.help) continue;
      std::cout << kOptimizeHelp << BuildOptionsHelp() << kOptimizeSearchHelp
                << OutputHelp(kOutput);
      return false;
    } else if (a.Option("--search", &v)) {
      if (v != "greedy" && v != "mcmc")
        throw Error("--search '" + v + "': expected greedy or mcmc");
      o->search.mcmc = v == "mcmc";
    } else if (a.Option("--budget", &v)) {
      o->search.budget = ParseUint("--budget", v, 1'000'000);
      if (o->search.budget == 0) throw Error("--budget must be at least 1");
    } else if (a.Option("--seed", &v)) {
      o->search.seed = ParseUint("--seed", v);
    } else if (ParseBuildOption(a, &o->sel, &o->build)) {
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      o->dirs.push_back(a.TakePositional());
    } else {
      a.Unknown();
    }
  }
  if (o->dirs.empty()) throw Error("no trace directory given (usage: tensortrace optimize DIR...)");
  CheckOutput(kOutput, o->out);
  SetBuildOptions(o->sel, &o->build);
  return true;
}

// The changes replay's suggestions name (analysis/replay/suggest.h), as optimize's JSON lists
// them: each one's kind, what-if, predicted step, gain, uncertainty and how to make it.
json SuggestionsJson(const std::vector<WhatIfResult>& s) {
  json out = json::array();
  auto ns = [](double x) { return static_cast<int64_t>(std::llround(x)); };
  for (const auto& w : s)
    out.push_back({{"kind", w.change},
                   {"what_if", w.spec},
                   {"predicted_ns", ns(w.p.predicted)},
                   {"gain_ns", ns(w.gain)},
                   {"uncertainty_ns", ns(w.uncertainty)},
                   {"how", w.how}});
  return out;
}

json PlanJson(const rp::Plan& p, const std::vector<std::string>& dirs) {
  json steps = json::array(), tried = json::array();
  auto ns = [](double x) { return static_cast<int64_t>(std::llround(x)); };
  for (const auto& s : p.steps)
    steps.push_back({{"spec", s.what_if.spec},
                     {"predicted_ns", ns(s.predicted)},
                     {"speedup", s.predicted > 0 ? p.base / s.predicted : 0.0},
                     {"setting", s.setting}});
  for (size_t i = 0; i < p.tried.size(); ++i)
    tried.push_back({{"spec", p.tried[i]}, {"predicted_ns", ns(p.tried_predicted[i])}});
  return {{"schema", "tensortrace.optimize/1"}, {"traces", dirs}, {"search", p.search},
          {"predicted_ns", ns(p.base)},         {"plan", steps},  {"tried", tried}};
}

void PrintPlan(const rp::Plan& p) {
  std::printf("predicted step (unchanged): %s; search: %s, %zu plan(s) replayed\n",
              HumanDuration(p.base).c_str(), p.search.c_str(), p.tried.size());
  if (p.steps.empty()) {
    std::printf("no setting found that shortens the predicted step by 0.5%% or more (%zu tried)\n",
                p.tried.size());
    return;
  }
  std::printf("plan (each on top of the ones before):\n");
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const auto& s = p.steps[i];
    std::printf("  %zu. %-22s predicted %s, %.3fx\n     %s\n", i + 1, s.what_if.spec.c_str(),
                HumanDuration(s.predicted).c_str(), s.predicted > 0 ? p.base / s.predicted : 0.0,
                s.setting.c_str());
  }
}

}  // namespace

int Optimize(const std::vector<std::string>& argv) {
  OptimizeArgs o;
  if (!ParseOptimizeArgs(argv, &o)) return 0;
  std::vector<Problem> problems;
  std::vector<analysis::RankGaps> gaps;
  rp::Job job = LoadReplayJob(o.dirs, o.sel.Chosen(), o.build, &problems, &gaps);
  rp::Plan plan = rp::Optimize(job.steps, o.search);
  std::vector<WhatIfResult> changes = SuggestionResults(job, rp::Predict(job.steps), 5, gaps);
  json j = PlanJson(plan, o.dirs);
  j["suggestions"] = SuggestionsJson(changes);
  if (o.out.json) {
    PrintCommandJson(j);
  } else if (o.out.csv) {
    PrintCsvRows(j[o.out.section], {"spec", "what_if", "predicted_ns", "speedup", "setting"});
  } else {
    PrintPlan(plan);
    if (!changes.empty()) PrintSuggestions(changes, plan.base);
  }
  return 0;
}

}  // namespace tt::cli
