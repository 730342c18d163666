// The floating-point operations and output bytes of a PyTorch op execution, from the shapes
// Kineto records with record_shapes ("Input Dims", "Input type", "Concrete Inputs"): the
// formulas torch.profiler(with_flops=True) uses where it has one (aten::mm, addmm, bmm,
// baddbmm, conv2d, add, mul), the same convolution formula for conv1d/conv3d and the
// backward convolution, and Kineto's own "flops" when the program profiled with with_flops.
#pragma once
#include <cstdint>
#include <string_view>

#include "format/import/kineto/json_args.h"

namespace tt::kineto {

struct OpCost {
  int64_t float_ops = -1;       // -1: unknown
  bool from_framework = false;  // Kineto's "flops" (else a shape formula)
  int64_t output_bytes = -1;    // -1: unknown
  int64_t input_bytes = -1;     // its tensor inputs' (-1: unknown)
};

// name: the op's name ("aten::mm"); args: its event's "args" object.
OpCost TorchOpCost(std::string_view name, const json& args);

}  // namespace tt::kineto
