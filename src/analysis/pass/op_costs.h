// An op's floating-point operations and output bytes, summed over its executions (the
// aggregation pass's Agg, a view's Row).
#pragma once
#include <cstdint>

namespace tt::analysis {

// An op's floating-point operations and output bytes over its executions that had them
// (format/keys.h kFloatOps, kOutputBytes), and how many executions each sum covers.
struct OpCosts {
  uint64_t float_ops = 0, flops_known = 0;  // the sum, and the executions it covers
  uint64_t output_bytes = 0, output_known = 0;
  uint8_t methods = 0;  // kFlopsByFramework | kFlopsByShape
  // Over the executions whose FLOPs, input and output bytes are all known: the arithmetic
  // intensity's numerator and denominator (bytes read and written).
  uint64_t moved_flops = 0, moved_bytes = 0;
  void Merge(const OpCosts& o) {
    float_ops += o.float_ops;
    flops_known += o.flops_known;
    output_bytes += o.output_bytes;
    output_known += o.output_known;
    methods |= o.methods;
    moved_flops += o.moved_flops;
    moved_bytes += o.moved_bytes;
  }
};
constexpr uint8_t kFlopsByFramework = 1, kFlopsByShape = 2;

// One op execution's FLOPs at its start (the step view's sum per step).
struct FlopsAt {
  uint64_t start, float_ops;
  uint8_t methods;
};

}  // namespace tt::analysis
