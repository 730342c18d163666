// What-if input=FACTOR: the step's waits for its data and the input pipeline's own work,
// durations x factor (0: the data is there when asked for).
#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"

namespace tt::analysis::replay {

namespace {

size_t ApplyInput(const WhatIf& w, Graph* g) {
  std::vector<char> changed(g->nodes.size(), 0);
  size_t n = 0;
  for (uint32_t v = 0; v < g->nodes.size(); ++v) {
    NodeKind k = g->nodes[v].kind;
    if (k != NodeKind::kInputWait && k != NodeKind::kInput) continue;
    ScaleNode(g, v, w.factor);
    changed[v] = 1;
    ++n;
  }
  if (w.factor == 0) ZeroGapsInto(g, changed);
  return n;
}

}  // namespace

namespace {

bool ParseInput(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  return ParseNamedFactor("input", spec, numbers, w);
}

std::string NoInput(const WhatIf&) { return "no input wait or input pipeline work"; }

std::vector<WhatIf> SuggestInputs(const SuggestInput& in) {
  if (!AnyNode(in.steps, [](const Graph&, const Node& n) {
        return n.kind == NodeKind::kInputWait || n.kind == NodeKind::kInput;
      }))
    return {};
  return {MakeWhatIf("input", "input=0", "input", 0)};
}

// How to have the data ready when the step asks for it, in the job's framework.
std::string HowInput(const WhatIf&, const SuggestInput& in) {
  std::string f = FrameworkOf(in.steps);
  std::string common = "the steps wait for their input: ";
  if (f == "pytorch")
    return common +
           "load batches in parallel and ahead: DataLoader(num_workers=N, pin_memory=True, "
           "persistent_workers=True, prefetch_factor=2), and cache what every epoch recomputes";
  if (f == "tensorflow")
    return common +
           "tf.data: map(f, num_parallel_calls=tf.data.AUTOTUNE), .cache() after the costly map, "
           ".prefetch(tf.data.AUTOTUNE) at the end; move tf.py_function work into TensorFlow ops "
           "or do it once ahead";
  return common +
         "prepare batches ahead of the step and in parallel (tf.data's num_parallel_calls, "
         "cache and prefetch; a DataLoader's num_workers and pin_memory), or cache them";
}

}  // namespace

const WhatIfKind& InputWhatIf() {
  static const WhatIfKind k{
      .name = "input",
      .syntax = "input=FACTOR",
      .help = "input waits and input pipeline work x FACTOR",
      .parse = ParseInput,
      .apply = ApplyInput,
      .nothing = NoInput,
      .suggest = SuggestInputs,
      .change = "input",
      .how = HowInput,
  };
  return k;
}

}  // namespace tt::analysis::replay
