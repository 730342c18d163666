// Replay's graphs from a trace: one graph per selected step (the k-th selected step of every
// rank together), built from each track's pieces of work in that step. A thread's work is its
// outermost ops (an op, annotation or input range is one node with what it contains) and the
// leaves of its runtime ranges; a GPU stream's work is its kernels and copies; collectives
// matched across ranks (comm.h) join their ranks. Edges: each resource's order with the gap
// measured before each node; where a node followed a wait, the node of another resource of the
// same rank that ended last before it (within kWakeNs, or in the gap's last quarter) is its
// predecessor instead, with the
// measured wake-up as the gap; a collective's transfer starts when the last rank arrived.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/job/steps.h"
#include "analysis/replay/graph.h"
#include "format/hardware.h"
#include "model/model.h"

namespace tt::analysis::replay {

// The longest wake-up always taken as a wait for another resource's node (0.5 ms); a longer one
// only when the other node ended in the last quarter of the gap. Otherwise the gap is the
// resource's own untraced work, replayed as measured.
inline constexpr uint64_t kWakeNs = 500'000;

struct BuildOptions {
  std::optional<StepRange> range;
  uint64_t skip_warmup = 1;  // each rank's first steps left out (tracing, compilation)
  std::vector<std::string> step_names;
  unsigned threads = 0;
  bool graph_edges = true;  // TensorFlow graphs' edges (false: inferred ones instead)
  bool cpu_sharing = true;  // CPU sharing in steps with no device work (cpu_share.h)
};

struct StepGraph {
  Graph graph;
  std::vector<int64_t> numbers;  // by rank: the step's number
  // The job's measured step (its slowest rank's) where it is not this graph's own: a typical
  // step's is the mean over the steps (typical.h). 0: the graph's.
  uint64_t measured = 0;
};

// What the recording hosts can do that a what-if assumes (format/hardware.h's hardware.json).
struct Hardware {
  bool gpu_half = false;  // a GPU with BF16/FP16 tensor cores
  double cpu_half = 0;    // CPU: the BF16 peak's time over FP32's (0.5: twice as fast); 0: none
  std::string source;     // what said so
  CpuPeak cpu;            // the peaks (hardware.json), 0 where unknown
  GpuPeak gpu;
};
// The hardware of the recordings of m's processes (the first that says; none where none does;
// suggest.cc).
Hardware HardwareOf(const model::TraceModel& m);

struct Job {
  std::vector<StepGraph> steps;
  std::vector<std::string> notes;
  size_t collectives = 0;  // collective instances that joined ranks
  // Processes without steps of their own that exchanged tensors with the ranks (RankStep's
  // participants), by label, and the tensors sent between processes over all steps (TensorFlow's
  // _Send and _Recv pairs: point-to-point transfers).
  std::vector<std::string> participants;
  size_t transfers = 0;
  // PyTorch autograd over all steps: backward ops linked to their forward op on another
  // thread, and parameters' gradients (AccumulateGrad) whose ready time tensor-fusion uses.
  size_t autograd_edges = 0, gradients = 0;
  // TensorFlow graphs over all steps: producer-to-consumer edges between ops that ran, and the
  // distinct links they made (producer's label, consumer's label), sorted, at most kMaxLinks.
  size_t graph_edges = 0;
  std::vector<std::pair<std::string, std::string>> graph_links;
  static constexpr size_t kMaxLinks = 1000;
  Hardware hardware;  // the first trace's
};

// Throws tt::Error when no trace has steps, or the selection keeps none.
Job BuildJob(const std::vector<const model::TraceModel*>& traces, const BuildOptions& o,
             std::vector<Problem>* problems);

}  // namespace tt::analysis::replay
