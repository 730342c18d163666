// What changed between two recordings (`tensortrace diff A B`): per side the mean step and its
// breakdown, op types' time per step, kernels, collectives and memory peaks; then, for each op
// type and each non-op part of the step, its contribution to the step-time difference.
//
// A step's host time is a partition (analysis/views/stats.h, StepBreakdown): waiting for input,
// compiling, computing, the framework's runtime, idle. The computing part is shared among op
// types by their self time (ops on several threads at once share the wall time they overlap
// in), so each type's "step share" is its part of the step's wall time and the shares of all
// types and parts add up to the step time on each side; the contributions (B's share less A's)
// add up to the step-time difference.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/views/stats.h"
#include "model/model.h"

namespace tt::analysis {

struct DiffOptions {
  bool include_warmup = false;  // warm-up steps (tracing, compilation) count too
  uint64_t skip_warmup = 0;     // else: the first N steps of each process left out (0: those
                                // marked warm-up)
  std::vector<std::string> step_names;
  unsigned threads = 0;
};

// One recording, per step (the mean over its selected steps).
struct DiffSide {
  std::string path;
  size_t steps = 0;
  double step_ns = 0;
  std::map<std::string, double> parts;     // input, compile, compute, runtime, idle: ns per step
  std::map<std::string, double> op_self;   // op type -> self ns per step
  std::map<std::string, double> op_share;  // op type -> its share of the step's wall time, ns
  std::set<std::string> kernels, collectives;
  std::map<std::string, int64_t> memory_peak;  // allocator -> peak bytes
};

struct DiffRow {
  std::string name;
  bool op = true;                 // an op type; false: a part of the step (input, idle...)
  double a = 0, b = 0;            // step share on each side, ns per step
  double a_self = 0, b_self = 0;  // ops: self time per step
  double contribution = 0;        // b - a
};

struct DiffResult {
  DiffSide a, b;
  std::vector<DiffRow> rows;  // by |contribution|, largest first
  double explained = 0;       // the contributions added up
  std::vector<std::string> only_a_ops, only_b_ops, only_a_kernels, only_b_kernels,
      only_a_collectives, only_b_collectives;
  std::vector<std::string> notes;
};

// One side from its trace. Throws tt::Error (one line) when it has no steps, or none left once
// warm-up steps are left out.
DiffSide MeasureSide(const model::TraceModel& m, const DiffOptions& o,
                     std::vector<Problem>* problems);

DiffResult CompareSides(DiffSide a, DiffSide b);

}  // namespace tt::analysis
