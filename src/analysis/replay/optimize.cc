// dPRO's optimizer, in small (optimize.h).
#include "analysis/replay/optimize.h"

#include "core/error.h"

namespace tt::analysis::replay {

namespace {

constexpr double kMinGain = 0.005;

// The predicted mean step with `ws` applied; < 0 when a what-if matches nothing.
double Try(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& ws) {
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

std::string Setting(const WhatIf& w) {
  if (w.kind == WhatIf::Kind::kTensorFusion)
    return "PyTorch DDP: DistributedDataParallel(..., bucket_cap_mb=" +
           std::to_string(w.bucket >> 20) +
           "); Horovod: HOROVOD_FUSION_THRESHOLD=" + std::to_string(w.bucket);
  return "fuse element-wise ops: TensorFlow @tf.function(jit_compile=True) (XLA), JAX jit "
         "(XLA fuses them), PyTorch torch.compile";
}

// Tries each candidate on top of the plan; applies the best when it helps enough.
void Best(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& candidates,
          std::vector<WhatIf>* applied, Plan* plan) {
  double now = plan->steps.empty() ? plan->base : plan->steps.back().predicted;
  int best = -1;
  double best_t = now * (1 - kMinGain);
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::vector<WhatIf> ws = *applied;
    ws.push_back(candidates[i]);
    double t = Try(steps, ws);
    if (t < 0) continue;
    plan->tried.push_back(candidates[i].spec);
    plan->tried_predicted.push_back(t);
    if (t < best_t) best = static_cast<int>(i), best_t = t;
  }
  if (best < 0) return;
  applied->push_back(candidates[static_cast<size_t>(best)]);
  plan->steps.push_back({applied->back(), best_t, Setting(applied->back())});
}

}  // namespace

Plan Optimize(const std::vector<StepGraph>& steps) {
  Plan plan;
  plan.base = Predict(steps).predicted;
  std::vector<WhatIf> applied;
  Best(steps, BucketSizes(), &applied, &plan);
  WhatIf fuse;
  fuse.kind = WhatIf::Kind::kOpFusion;
  fuse.pattern = "auto";
  fuse.spec = "op-fusion=auto";
  Best(steps, {fuse}, &applied, &plan);
  return plan;
}

}  // namespace tt::analysis::replay
