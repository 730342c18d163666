// Warm-up steps: those that hold tracing or compilation (tf.function tracing, XLA/JAX and
// torch.compile compilation: model::Meaning::kCompile). Time of a compilation that is also an
// input wait (a tf.data pipeline traced while the step waits for it) is the wait's, as the step
// view's breakdown counts it, and does not make a step warm-up.
#pragma once
#include <vector>

#include "model/job/steps.h"

namespace tt::model {

// One process's compilation and input-wait slices, from its host tracks' step scans.
struct WarmupIntervals {
  std::vector<Window> compile, input;
  void Add(const std::vector<Window>& c, const std::vector<Window>& i) {
    compile.insert(compile.end(), c.begin(), c.end());
    input.insert(input.end(), i.begin(), i.end());
  }
};

// Sets Step::warmup on every step from its process's intervals (indexed by process).
void MarkWarmup(std::vector<WarmupIntervals> per_process, std::vector<Step>* steps);

}  // namespace tt::model
