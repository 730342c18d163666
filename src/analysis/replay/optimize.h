// dPRO's optimizer, in small: searches the what-ifs that a user applies as settings (a
// gradient bucket size, fusing element-wise ops) and keeps what the replay predicts helps.
#pragma once
#include <string>
#include <vector>

#include "analysis/replay/predict.h"

namespace tt::analysis::replay {

struct PlanStep {
  WhatIf what_if;
  double predicted = 0;  // the job's mean step with this and the steps before it applied
  std::string setting;   // how to apply it ("DDP bucket_cap_mb=4; Horovod ...")
};

struct Plan {
  std::string search = "greedy";        // the search that made it: greedy or mcmc
  double base = 0;                      // the unchanged replay's mean step
  std::vector<PlanStep> steps;          // applied in order, each one helping
  std::vector<std::string> tried;       // every what-if replayed (for the report)
  std::vector<double> tried_predicted;  // its predicted step (alone on top of the plan)
};

struct SearchOptions {
  bool mcmc = false;    // after the greedy search, dPRO's Metropolis search seeded from its plan
  size_t budget = 200;  // the Metropolis search's proposals (each a replay, unless seen before)
  uint64_t seed = 1;    // its random numbers: the same seed, the same plan
};

// Greedy: the best tensor-fusion bucket size (1 MiB to 256 MiB, by powers of 2, and 25 MiB,
// when collectives give their bytes), then op-fusion=auto, each kept when it shortens the
// predicted step by at least 0.5%. With o.mcmc, then the Metropolis search (optimize_mcmc.cc);
// its plan replaces the greedy one when it predicts a shorter step by at least 0.5%.
Plan Optimize(const std::vector<StepGraph>& steps, const SearchOptions& o = {});

// The search's pieces (optimize.cc), shared by the Metropolis search (optimize_mcmc.cc).
std::vector<WhatIf> BucketSizes();
WhatIf OpFusion(const std::string& pattern, const std::string& spec);
// The predicted mean step with `ws` applied; < 0 when a what-if matches nothing.
double TryPlan(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& ws);
std::string SettingOf(const WhatIf& w);
// Starting from `greedy`'s plan: simulated annealing over the bucket size (or none) and, for
// op-fusion=auto and each element-wise label on the critical path, whether it is fused.
Plan SearchMcmc(const std::vector<StepGraph>& steps, const Plan& greedy, const SearchOptions& o);

}  // namespace tt::analysis::replay
