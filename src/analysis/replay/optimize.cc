// dPRO's optimizer, in small (optimize.h).
#include "analysis/replay/optimize.h"

#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

double TryPlan(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& ws) {
  try {
    return Predict(Changed(steps, ws)).predicted;
  } catch (const Error&) {
    return -1;
  }
}

std::vector<WhatIf> BucketSizes() { return WhatIfNamed("tensor-fusion").settings(); }

WhatIf OpFusion(const std::string& pattern, const std::string& spec) {
  return MakeWhatIf("op-fusion", spec, pattern);
}

std::string SettingOf(const WhatIf& w) { return w.kind->setting_of(w); }

namespace {

constexpr double kMinGain = 0.005;

// Tries each candidate on top of the plan; applies the best when it helps enough.
void Best(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& candidates,
          std::vector<WhatIf>* applied, Plan* plan) {
  double now = plan->steps.empty() ? plan->base : plan->steps.back().predicted;
  int best = -1;
  double best_t = now * (1 - kMinGain);
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::vector<WhatIf> ws = *applied;
    ws.push_back(candidates[i]);
    double t = TryPlan(steps, ws);
    if (t < 0) continue;
    plan->tried.push_back(candidates[i].spec);
    plan->tried_predicted.push_back(t);
    if (t < best_t) best = static_cast<int>(i), best_t = t;
  }
  if (best < 0) return;
  applied->push_back(candidates[static_cast<size_t>(best)]);
  plan->steps.push_back({applied->back(), best_t, SettingOf(applied->back())});
}

}  // namespace

Plan Optimize(const std::vector<StepGraph>& steps, const SearchOptions& o) {
  Plan plan;
  plan.base = Predict(steps).predicted;
  std::vector<WhatIf> applied;
  for (const WhatIfKind* k : WhatIfKinds())  // tensor-fusion's bucket sizes, then op-fusion
    if (k->settings) Best(steps, k->settings(), &applied, &plan);
  if (!o.mcmc) return plan;
  Plan m = SearchMcmc(steps, plan, o);
  double greedy = plan.steps.empty() ? plan.base : plan.steps.back().predicted;
  double mcmc = m.steps.empty() ? m.base : m.steps.back().predicted;
  if (mcmc < greedy * (1 - kMinGain)) return m;
  plan.search = "mcmc";  // searched, and nothing better found
  plan.tried = m.tried;
  plan.tried_predicted = m.tried_predicted;
  return plan;
}

}  // namespace tt::analysis::replay
