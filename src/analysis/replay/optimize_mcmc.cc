// dPRO's Metropolis search (optimize.h): simulated annealing over the joint space of the
// settings, from the greedy plan. A state is a bucket size (or the job's own buckets) and,
// for op-fusion=auto and each element-wise label on the critical path, whether it is fused; a
// proposal changes one of them; a longer predicted step is accepted with probability
// exp(-(longer by) / temperature), the temperature falling from 2% of the unchanged step to 0
// over the budget. Deterministic: std::mt19937_64 from the given seed; a state already replayed
// is not replayed again.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "analysis/replay/optimize.h"
#include "analysis/replay/suggest.h"

namespace tt::analysis::replay {

namespace {

constexpr size_t kMaxLabels = 8;  // element-wise labels of the critical path tried one by one

struct State {
  int bucket = -1;         // index in BucketSizes(); -1: the job's own buckets
  std::vector<char> fuse;  // [0]: op-fusion=auto; [1..]: each label
  bool operator<(const State& o) const {
    return bucket != o.bucket ? bucket < o.bucket : fuse < o.fuse;
  }
};

// The element-wise labels on base's critical path, heaviest first.
std::vector<std::string> FusionLabels(const Prediction& base, const std::vector<StepGraph>& steps) {
  std::set<std::string> elementwise;
  for (const StepGraph& sg : steps)
    for (const Node& n : sg.graph.nodes)
      if (IsElementWise(sg.graph, n)) elementwise.insert(sg.graph.Label(n.label));
  std::vector<std::string> out;
  for (const PathItem& it : base.path)
    if (elementwise.count(it.label) && out.size() < kMaxLabels) out.push_back(it.label);
  return out;
}

class Mcmc {
 public:
  Mcmc(const std::vector<StepGraph>& steps, const SearchOptions& o, double base)
      : steps_(steps), o_(o), rng_(o.seed), buckets_(BucketSizes()) {
    labels_ = FusionLabels(Predict(steps), steps);
    if (TryPlan(steps, {buckets_[0]}) < 0) buckets_.clear();  // no transfer with its bytes
    temp0_ = 0.02 * base;
  }
  State Seed(const Plan& greedy) const;
  State Run(State cur, Plan* plan);
  std::vector<WhatIf> WhatIfs(const State& s) const;

 private:
  double Eval(const State& s, Plan* plan);
  State Propose(const State& s);

  const std::vector<StepGraph>& steps_;
  const SearchOptions& o_;
  std::mt19937_64 rng_;
  std::vector<WhatIf> buckets_;
  std::vector<std::string> labels_;
  double temp0_ = 0;
  std::map<State, double> seen_;
};

State Mcmc::Seed(const Plan& greedy) const {
  State s;
  s.fuse.assign(1 + labels_.size(), 0);
  for (const PlanStep& p : greedy.steps) {
    if (p.what_if.Is("op-fusion")) s.fuse[0] = 1;
    for (size_t i = 0; i < buckets_.size(); ++i)
      if (p.what_if.Is("tensor-fusion") && buckets_[i].bucket == p.what_if.bucket)
        s.bucket = static_cast<int>(i);
  }
  return s;
}

std::vector<WhatIf> Mcmc::WhatIfs(const State& s) const {
  std::vector<WhatIf> ws;
  if (s.bucket >= 0) ws.push_back(buckets_[static_cast<size_t>(s.bucket)]);
  if (s.fuse[0]) {
    ws.push_back(OpFusion("auto", "op-fusion=auto"));
    return ws;  // it fuses every label below too
  }
  std::string alt;
  for (size_t i = 0; i < labels_.size(); ++i)
    if (s.fuse[i + 1]) alt += (alt.empty() ? "" : "|") + RegexQuote(labels_[i]);
  if (!alt.empty()) ws.push_back(OpFusion("^(?:" + alt + ")$", "op-fusion=^(?:" + alt + ")$"));
  return ws;
}

double Mcmc::Eval(const State& s, Plan* plan) {
  auto it = seen_.find(s);
  if (it != seen_.end()) return it->second;
  std::vector<WhatIf> ws = WhatIfs(s);
  double t = ws.empty() ? plan->base : TryPlan(steps_, ws);
  seen_[s] = t;
  if (t >= 0 && !ws.empty()) {
    std::string spec;
    for (const WhatIf& w : ws) spec += (spec.empty() ? "" : " + ") + w.spec;
    plan->tried.push_back(spec);
    plan->tried_predicted.push_back(t);
  }
  return t;
}

// One change: a bucket size (any other, or the job's own), or one fusion choice flipped.
State Mcmc::Propose(const State& s) {
  State n = s;
  size_t moves = (buckets_.empty() ? 0 : 1) + n.fuse.size();
  size_t m = std::uniform_int_distribution<size_t>(0, moves - 1)(rng_);
  if (!buckets_.empty() && m == 0) {
    int k = std::uniform_int_distribution<int>(-1, static_cast<int>(buckets_.size()) - 2)(rng_);
    n.bucket = k >= n.bucket ? k + 1 : k;  // any value but the current one
  } else {
    size_t i = m - (buckets_.empty() ? 0 : 1);
    n.fuse[i] = !n.fuse[i];
  }
  return n;
}

State Mcmc::Run(State cur, Plan* plan) {
  double cur_t = Eval(cur, plan);
  State best = cur;
  double best_t = cur_t;
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < o_.budget; ++i) {
    State next = Propose(cur);
    double t = Eval(next, plan);
    if (t < 0) continue;
    double temp = temp0_ * (1 - static_cast<double>(i) / static_cast<double>(o_.budget));
    if (t <= cur_t || (temp > 0 && u(rng_) < std::exp((cur_t - t) / temp))) cur = next, cur_t = t;
    if (t < best_t) best = next, best_t = t;
  }
  return best;
}

}  // namespace

Plan SearchMcmc(const std::vector<StepGraph>& steps, const Plan& greedy, const SearchOptions& o) {
  Plan plan;
  plan.search = "mcmc";
  plan.base = greedy.base;
  Mcmc mc(steps, o, greedy.base);
  State best = mc.Run(mc.Seed(greedy), &plan);
  std::vector<WhatIf> ws = mc.WhatIfs(best), applied;
  for (const WhatIf& w : ws) {  // the plan's steps, each on top of the ones before
    applied.push_back(w);
    plan.steps.push_back({w, TryPlan(steps, applied), SettingOf(w)});
  }
  return plan;
}

}  // namespace tt::analysis::replay
