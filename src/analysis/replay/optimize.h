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
  double base = 0;                      // the unchanged replay's mean step
  std::vector<PlanStep> steps;          // applied in order, each one helping
  std::vector<std::string> tried;       // every what-if replayed (for the report)
  std::vector<double> tried_predicted;  // its predicted step (alone on top of the plan)
};

// Greedy: the best tensor-fusion bucket size (1 MiB to 256 MiB, by powers of 2, and 25 MiB,
// when collectives give their bytes), then op-fusion=auto, each kept when it shortens the
// predicted step by at least 0.5%.
Plan Optimize(const std::vector<StepGraph>& steps);

}  // namespace tt::analysis::replay
