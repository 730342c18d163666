// dPRO's optimizer, in small (optimize.h).
#include "analysis/replay/optimize.h"

#include "core/error.h"

namespace tt::analysis::replay {

double TryPlan(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& ws) {
  try {
    return Predict(Changed(steps, ws)).predicted;
  } catch (const Error&) {
    return -1;
  }
}

std::vector<WhatIf> BucketSizes() {
  std::vector<WhatIf> v;
  for (int64_t mib : {1, 2, 4, 8, 16, 25, 32, 64, 128, 256}) {
    WhatIf w;
    w.kind = WhatIf::Kind::kTensorFusion;
    w.pattern = "tensor-fusion";
    w.bucket = mib << 20;
    w.spec = "tensor-fusion=" + std::to_string(mib) + "M";
    v.push_back(w);
  }
  return v;
}

WhatIf OpFusion(const std::string& pattern, const std::string& spec) {
  WhatIf w;
  w.kind = WhatIf::Kind::kOpFusion;
  w.pattern = pattern;
  w.spec = spec;
  return w;
}

std::string SettingOf(const WhatIf& w) {
  if (w.kind == WhatIf::Kind::kTensorFusion)
    return "PyTorch DDP: DistributedDataParallel(..., bucket_cap_mb=" +
           std::to_string(w.bucket >> 20) +
           "); Horovod: HOROVOD_FUSION_THRESHOLD=" + std::to_string(w.bucket);
  std::string which = w.pattern == "auto" ? "element-wise ops" : "the ops " + w.pattern;
  return "fuse " + which +
         ": TensorFlow @tf.function(jit_compile=True) (XLA), JAX jit (XLA fuses them), PyTorch "
         "torch.compile";
}

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
  Best(steps, BucketSizes(), &applied, &plan);
  Best(steps, {OpFusion("auto", "op-fusion=auto")}, &applied, &plan);
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
