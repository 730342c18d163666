// Replay's pieces of work per track (private to build*.cc): a thread's outermost op-like,
// communication and device slices (with the slices inside them, which what-ifs reach), and the
// leaves of its other ranges (runtime, compile, Python); step slices are containers, never work.
// And the launches of device work: each API call with a correlation id, wherever it is (inside an
// op too).
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/replay/graph.h"
#include "model/model.h"

namespace tt::analysis::replay {

struct Atom {
  uint64_t start = 0, end = 0;
  uint32_t name = 0;  // name id in its process
  NodeKind kind = NodeKind::kOp;
  int64_t corr = -1;  // device work: the correlation id of its launch (-1: none)
  // PyTorch autograd: a backward op's sequence number (that of the forward op it belongs to;
  // -1: none), and the bytes of the gradient an AccumulateGrad inside it made ready (-1: none)
  int64_t backward_seq = -1, grad_bytes = -1;
  // TensorFlow: the op's node name and its producers in its tf.function's graph ("a,b"), name
  // ids in its process (keys::kOpName, keys::kTfInputs); 0: none (no saved graph holds it).
  uint32_t tf_node = 0, tf_inputs = 0;
  uint32_t module = 0;  // PyTorch: its nn.Module path (keys::kModule), a name id; 0: none
  int64_t seq = -1;     // PyTorch: a forward op's autograd sequence number (-1: none)
  // PyTorch: its input shapes (keys::kInputDims, a name id; 0: none) and FLOPs (-1: unknown)
  uint32_t dims = 0;
  int64_t flops = -1;
  // The slices that ran inside it: [inner_begin, inner_end) of its TrackWork::inner.
  uint32_t inner_begin = 0, inner_end = 0;
  // Its floating-point operations and the bytes its ops read and wrote (keys::kFloatOps,
  // kInputBytes + kOutputBytes), summed over it and the slices inside it that give them, as
  // the op view counts them; -1: none gives them.
  int64_t float_ops = -1, moved_bytes = -1;
};

// A slice inside an atom (any depth), in the order slices began.
struct InnerSlice {
  uint64_t start = 0, end = 0;
  uint32_t name = 0, module = 0;  // as Atom's
  uint32_t parent = kNoIndex;     // the inner slice around it (index in TrackWork::inner)
  int64_t seq = -1;               // as Atom's
  uint32_t dims = 0;              // as Atom's
  int64_t flops = -1;             // as Atom's
};

// A forward op's sequence number, and the start of the atom it ran in.
struct ForwardSeq {
  int64_t seq = 0;
  uint64_t atom_start = 0;
};

struct Launch {
  uint64_t ts = 0;  // the API call's start
  int64_t corr = 0;
};

struct TrackWork {
  std::vector<Atom> atoms;           // sorted by start
  std::vector<Launch> launches;      // sorted by ts
  std::vector<ForwardSeq> forwards;  // sorted by seq, then atom_start
  std::vector<InnerSlice> inner;     // the atoms' inner slices
};

// Per track of m (indexed like m.tracks): its work, for the processes in `wanted` (others
// left empty). `step_names`: per process, the name ids of its step slices.
std::vector<TrackWork> CollectAtoms(const model::TraceModel& m, const std::vector<bool>& wanted,
                                    const std::vector<std::set<uint32_t>>& step_names,
                                    unsigned threads, std::vector<Problem>* problems);

}  // namespace tt::analysis::replay
