// Each slice's meaning where it runs and its time as an op, decided as the aggregation pass
// decides them (model/open_slices.h, which analysis/pass/host_pass.cc uses too), so that the
// Parquet tables' ops add up to the op view. One per track, told every slice in order (Begin
// when it opens, End when it closes).
#pragma once
#include <cstdint>
#include <vector>

#include "model/model.h"
#include "model/open_slices.h"
#include "model/scan.h"

namespace tt::exporter {

class SliceMeaning {
 public:
  explicit SliceMeaning(const model::Process& p) : p_(p), open_(p) {}
  struct Closed {
    model::Meaning meaning = model::Meaning::kAnnotation;
    uint64_t self = 0;   // op-like slices: as an op; others: less their direct children
    bool is_op = false;  // counted by the op view: a compute op or annotated range, not a step
    // An eager op (TensorFlow's dispatch of one op) that the code view counts as its caller
    // line's op time (analysis/pass/host_pass.cc's CodeEagerOp): not inside another eager op
    // or a compilation, no framework op ran inside it, not a tf.function's call.
    bool eager_line = false;
  };
  void Begin(const model::Slice& s);
  Closed End(const model::Slice& s);

 private:
  bool CountedEager(const model::Slice& s, bool holds_op) const;
  const model::Process& p_;
  model::OpenSlices open_;
  std::vector<char> holds_op_;  // beside each open frame: an eager op that ran a framework op
};

}  // namespace tt::exporter
