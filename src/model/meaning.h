// The job's meaning: what each event is, decided once from its category and name, so that every
// view, the report and replay agree. A TensorFlow runtime range (EagerExecute,
// ExecutorState::Process, a thread-pool ParallelFor) is not an op; tf.function tracing and
// XLA/JAX compilation, the input pipeline (tf.data iterators) and communication are their own
// kinds; an eager op's dispatch is its own kind too (xprof does not count it as an op); an
// op's type is split cleanly from its name ("scope/node:Type", eager "EagerLocalExecute: Type",
// XLA "fusion.3").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "format/layout.h"

namespace tt::model {

enum class Meaning : uint8_t {
  kOp,             // a compute op of a framework (graph, eager or XLA)
  kRuntime,        // framework runtime: dispatch, executor, eager, handles, thread-pool regions
  kCompile,        // tracing and compilation (tf.function graph building, XLA/JAX compile)
  kInput,          // the input pipeline (tf.data iterators and their work, infeed)
  kCommunication,  // collectives, sends and receives
  kStep,
  kPrimitive,   // oneDNN primitives (and other ITT tasks)
  kMemory,      // allocation instants and memory counters
  kDevice,      // GPU kernels, copies, sets, syncs
  kApi,         // CUDA runtime and driver API calls
  kPython,      // Python frames
  kAnnotation,  // the program's own ranges (C API, NVTX, ITT), and TraceMes not known above
  kEagerOp,     // TensorFlow's eager dispatch of one op ("EagerLocalExecute: Type")
};

const char* MeaningName(Meaning m);

// The meaning of an event of category c named `name`.
Meaning MeaningOf(layout::Category c, std::string_view name);

// Whether slices of this meaning are ops for nesting: an op's own (self) time is its duration
// less its nearest op-like descendants; runtime ranges inside it are its own time.
inline bool IsOpLike(Meaning m) {
  return m == Meaning::kOp || m == Meaning::kAnnotation || m == Meaning::kInput;
}

// An input range in which the step waits for its data (an IteratorGetNext op, its kernel's
// range, an infeed dequeue), as opposed to the pipeline's own work on its threads.
bool IsInputWait(std::string_view name);

// An op's type: "scope/node:Type#k=v#" -> "Type", "EagerLocalExecute: Type" -> "Type", an XLA
// instruction "fusion.3" -> "fusion"; the whole name otherwise (a label "what: detail" too).
std::string OpTypeOf(std::string_view name);

}  // namespace tt::model
