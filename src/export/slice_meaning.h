// Each slice's meaning where it runs and its time as an op, decided as the aggregation pass
// decides them (model/open_slices.h, which analysis/pass/host_pass.cc uses too), so that the
// Parquet tables' ops add up to the op view. One per track, told every slice in order (Begin
// when it opens, End when it closes).
#pragma once
#include <cstdint>

#include "model/model.h"
#include "model/open_slices.h"
#include "model/scan.h"

namespace tt::exporter {

class SliceMeaning {
 public:
  explicit SliceMeaning(const model::Process& p) : open_(p) {}
  struct Closed {
    model::Meaning meaning = model::Meaning::kAnnotation;
    uint64_t self = 0;   // op-like slices: as an op; others: less their direct children
    bool is_op = false;  // counted by the op view: a compute op or annotated range, not a step
  };
  void Begin(const model::Slice& s) { open_.Push(s); }
  Closed End(const model::Slice& s);

 private:
  model::OpenSlices open_;
};

}  // namespace tt::exporter
