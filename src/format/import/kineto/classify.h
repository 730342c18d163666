// What a Kineto trace event is in tensortrace's terms, from its category and name: an aten op
// or autograd node, a collective, a step marker, an optimizer step, the DataLoader, a Python
// function, CUDA activity, or another annotation.
#pragma once
#include <cstdint>
#include <string_view>

#include "format/layout.h"

namespace tt {

struct KinetoKind {
  layout::Category category = layout::Category::kUser;
  bool skip = false;    // not an event of the job (Kineto's own spans, flows)
  bool device = false;  // on a GPU stream's timeline (pid: device, tid: stream)
  bool op = false;      // an aten op or autograd node: op_name and op_type are its name
  bool step = false;    // ProfilerStep#N
  int64_t step_number = -1;
  bool optimizer_step = false;  // "Optimizer.step#SGD.step": the loop's step, when no ProfilerStep
  bool module = false;          // "nn.Module: <path>", the bootstrap's range of one module call
  bool comm = false;  // record_param_comms, or a backend's range ("gloo:all_reduce"): a collective
};

KinetoKind ClassifyKineto(std::string_view cat, std::string_view name);

}  // namespace tt
