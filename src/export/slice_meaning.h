// Each slice's meaning where it runs and its time as an op, decided as the aggregation pass
// decides them (analysis/pass/host_pass.cc), so that the Parquet tables' ops add up to the op
// view: an annotation named after the op it runs in is that op's runtime, a range inside a
// compilation is compilation, and an op's own time is its duration less its nearest op-like
// descendants' (runtime ranges inside it stay its own). One per track, told every slice in
// order (Begin when it opens, End when it closes).
#pragma once
#include <cstdint>
#include <vector>

#include "model/model.h"
#include "model/scan.h"

namespace tt::exporter {

class SliceMeaning {
 public:
  explicit SliceMeaning(const model::Process& p) : proc_(p) {}
  struct Closed {
    model::Meaning meaning = model::Meaning::kAnnotation;
    uint64_t self = 0;   // op-like slices: as an op; others: less their direct children
    bool is_op = false;  // counted by the op view: a compute op or annotated range, not a step
  };
  void Begin(const model::Slice& s);
  Closed End(const model::Slice& s);

 private:
  struct Open {
    model::Meaning meaning;
    bool op_like, in_compile;
    int32_t ancestor;  // the nearest op-like slice open around it (-1: none)
    uint64_t op_child;
  };
  model::Meaning MeaningIn(const model::Slice& s) const;
  const model::Process& proc_;
  std::vector<Open> open_;
};

}  // namespace tt::exporter
