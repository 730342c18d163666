// Replay's pieces of work per track (private to build*.cc): a thread's outermost op-like,
// communication and device slices, and the leaves of its other ranges (runtime, compile,
// Python); step slices are containers, never work. And the launches of device work: each API
// call with a correlation id, wherever it is (inside an op too).
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
};

// Per track of m (indexed like m.tracks): its work, for the processes in `wanted` (others
// left empty). `step_names`: per process, the name ids of its step slices.
std::vector<TrackWork> CollectAtoms(const model::TraceModel& m, const std::vector<bool>& wanted,
                                    const std::vector<std::set<uint32_t>>& step_names,
                                    unsigned threads, std::vector<Problem>* problems);

}  // namespace tt::analysis::replay
