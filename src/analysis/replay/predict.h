// Replay's answer for a job: each step's graph replayed, averaged over the steps: per rank the
// measured and predicted step time and the error; the critical path by label; each resource's
// utilisation. And what a what-if changes: the same with the graphs changed.
#pragma once
#include <string>
#include <vector>

#include "analysis/replay/build.h"
#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

struct RankPrediction {
  std::string label;
  double measured = 0, predicted = 0;  // mean ns per step
  double error = 0;                    // (predicted - measured) / measured
};

struct PathItem {
  std::string label;
  NodeKind kind = NodeKind::kOp;
  double ns = 0;     // mean per step on the critical path
  double share = 0;  // of the predicted step time
  double count = 0;  // mean nodes per step
};

struct ResourceUse {
  std::string name;
  double utilisation = 0;  // mean over the steps it worked in
};

struct StepPrediction {
  std::vector<int64_t> numbers;          // by rank
  uint64_t measured = 0, predicted = 0;  // the slowest rank's
};

// What precision= and op-fusion= changed, against the roofline (roofline.h): mean per step.
struct RooflineUse {
  size_t steps = 0;                    // steps with changed nodes (0: none changed)
  double nodes = 0, with_flops = 0;    // nodes changed (a fused chain: one), those with FLOPs
  double float_ops = 0;                // the FLOPs they keep
  double before_ns = 0, after_ns = 0;  // their time before the change and predicted
  // Of those with FLOPs: their time before and predicted, and the least the roofline allows
  double flops_before_ns = 0, flops_after_ns = 0, roof_ns = 0;
  double raised = 0;     // nodes whose prediction was below the roofline's: raised to it
  double peak = 0;       // the FLOP/s the roofline is measured against (the highest used)
  double bandwidth = 0;  // ... and the memory bandwidth, bytes/s (0: no memory roof)
  bool no_peak = false;  // some node with FLOPs ran where the recording names no peak
};

struct Prediction {
  std::vector<RankPrediction> ranks;
  double measured = 0, predicted = 0, error = 0;  // the job's step: the slowest rank's, mean
  // The medians of the same (steps an odd machine hiccup lengthened weigh less).
  double measured_median = 0, predicted_median = 0;
  std::vector<PathItem> path;  // longest first
  double path_gaps = 0;        // mean ns per step of gaps (dispatch delays, wake-ups) on the path
  std::vector<ResourceUse> resources;  // busiest first
  std::vector<StepPrediction> steps;
  RooflineUse roofline;
};

Prediction Predict(const std::vector<StepGraph>& steps);

// The job's graphs changed by `w`; throws tt::Error when w matches nothing in any step.
std::vector<StepGraph> Changed(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& w);

// What moved on the critical path from `before` to `after`: labels by the change of their
// time on it, largest first (at most n).
struct Moved {
  std::string label;
  double before = 0, after = 0;  // mean ns per step on the path
};
std::vector<Moved> MovedOnPath(const Prediction& before, const Prediction& after, size_t n);

}  // namespace tt::analysis::replay
