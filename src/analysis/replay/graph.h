// Replay's dependency graph: nodes are pieces of work (ops, runtime work, input waits, device
// activity, collectives), each on one resource (a thread, a GPU stream, a communicator) of one
// rank; edges say that a node starts no earlier than `gap` after another ends (a resource's own
// order, a happens-before inferred from the trace, a collective's arrivals, a tensor sent from
// one process to another, autograd's forward-to-backward links, a TensorFlow graph's
// producer-to-consumer links), or after another
// starts (a launch inside it, to its kernel). Plain data: built
// from a trace (build.h) or by hand (tests), changed by what-ifs (whatif.h), replayed by
// simulate.h.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tt::analysis::replay {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

enum class NodeKind : uint8_t {
  kOp,         // a compute op (framework op, annotation)
  kRuntime,    // framework runtime work (dispatch, executor, eager)
  kInputWait,  // the step waiting for its data (IteratorGetNext, infeed)
  kInput,      // the input pipeline's own work
  kDevice,     // GPU kernels, copies
  kComm,       // a collective as one rank saw it (unmatched), its transfer (matched), or a
               // tensor's transfer from one process to another (point-to-point)
  kMarker,     // a step's start or end (no duration)
};
const char* NodeKindName(NodeKind k);

enum class EdgeKind : uint8_t {
  kResource,  // the resource's own order
  kInferred,  // happens-before inferred from the trace (the latest end before a wait)
  kFlow,      // a launch to its kernel: from the launching node's start (from_start)
  kCollective,
  // the framework's own dependency: a backward op after the forward op that recorded it
  // (autograd's sequence numbers), a gradient bucket's transfer after its gradients
  kAutograd,
  // the framework's own dependency: a TensorFlow op after the ops its graph says feed it (the
  // tf.function graphs the bootstrap saved), in place of an inferred one
  kGraph,
  // a point-to-point transfer after its send and its receive's request (both from their
  // start), and the receive's completion after the transfer
  kP2p,
};

struct Node {
  uint64_t duration = 0;  // ns
  uint64_t release = 0;   // the earliest start (ns from the graph's time 0): sources
  uint64_t measured = 0;  // its measured start, ns from the graph's time 0 (for reports)
  uint32_t resource = 0;  // index in Graph::resources
  uint32_t label = 0;     // its name: index in Graph::names
  NodeKind kind = NodeKind::kOp;
  // The CPU time its thread used during its measured time (ns; the Python sampler's reads,
  // analysis/pass/thread_cpu.h), -1: not recorded; and the share of a core it asks for while it
  // runs where CPUs are shared (cpu_share.h: 1, a core, where its CPU time is not recorded).
  double cpu = -1, demand = 1;
  // The time its thread held the GIL during its measured time (ns, python.gil: its read
  // intervals' time spread over it, then its op's share over the job's steps times its own
  // time, cpu_share.h's SpreadGilByOp), -1: not recorded; and the share of the GIL it asks for
  // while it runs (cpu_share.h: at most its demand; 0 where not recorded).
  double gil = -1, gil_demand = 0;
  int64_t bytes = -1;         // a transfer: its bytes; a gradient's accumulation: the gradient's
  bool grad = false;          // autograd's AccumulateGrad: a parameter's gradient ready at its end
  uint64_t took = 0;          // its measured duration (ns); `duration` is its work where CPUs are
                              // shared (cpu_share.h)
  uint32_t scope = kNoIndex;  // its nn.Module path (a label), kNoIndex: none
  uint32_t stack = kNoIndex;  // the Python stack behind it (LabelTable::stacks), kNoIndex: none
  // PyTorch: its own input shapes (LabelTable::dims; kNoIndex: none) and FLOPs (-1: unknown)
  uint32_t dims = kNoIndex;
  int64_t flops = -1;
  // Its floating-point operations and the bytes its ops read and wrote, over the ops in it that
  // give them (the op view's float_ops, input_bytes + output_bytes); -1: none gives them.
  int64_t float_ops = -1, moved_bytes = -1;
};

// The share of its work a node kept after what-ifs (`now` against `was`, the same node), at
// most 1: a node made slower keeps its measured share; 1 where it had no work.
inline double KeptShare(const Node& was, const Node& now) {
  if (was.duration == 0) return 1;
  double kept = static_cast<double>(now.duration) / static_cast<double>(was.duration);
  return kept < 1 ? kept : 1;
}

// A slice that ran inside a node (an op nested in the outermost op that is the node, at any
// depth): what-ifs that reach nested ops change the node by the share of it the slice held.
struct Inner {
  uint32_t node = 0;
  uint32_t parent = kNoIndex;  // the inner slice around it (index in InnerSlices), kNoIndex: none
  uint32_t label = 0;
  uint32_t scope = kNoIndex, stack = kNoIndex;  // as Node's
  uint32_t dims = kNoIndex;                     // as Node's
  int64_t flops = -1;                           // as Node's
  double share = 0;                             // its measured duration over its node's
};

// A graph's inner slices, by node, each node's in the order they began (a parent before its
// children); shared by a graph's copies (what-ifs change nodes, not these).
struct InnerSlices {
  std::vector<Inner> slices;
  // (inner slice, device node): the device work launched inside an inner slice
  std::vector<std::pair<uint32_t, uint32_t>> launches;
  // PyTorch autograd: a backward op's node and the forward op that made it (the last op of the
  // step with its sequence number: a node, or an inner slice of `node`), which a what-if that
  // removes that op removes with it.
  struct Backward {
    uint32_t node = 0, inner = kNoIndex;  // the forward op
    uint32_t backward = 0;                // the backward op's node
  };
  std::vector<Backward> backwards;
};

struct Edge {
  uint32_t from = 0, to = 0;
  uint64_t gap = 0;  // ns between from's end and to's start (measured dispatch delay)
  EdgeKind kind = EdgeKind::kResource;
  bool from_start = false;  // the gap runs from from's start (a launch within it to its kernel)
};

struct Resource {
  std::string name;      // "thread 1234 (python3)", "GPU 0 stream 7", "allreduce group 0"
  int32_t rank = -1;     // index in Graph::ranks; -1: shared by ranks (a communicator)
  bool markers = false;  // holds a rank's step markers only (no work)
  bool link = false;     // a point-to-point link between two processes (rank -1)
  // A thread the interpreter made (the main thread, a threading.Thread: named as the process's
  // main thread), whose gaps between nodes are its own Python, which needs the GIL; a
  // framework's pool thread (tf_Compute, tf_data_...) waits for work in its gaps.
  bool python = false;
  // Where the graph's CPUs are shared (Graph::hosts): the cores its work takes, by host
  // (index in Graph::hosts, cores): a thread one on its rank's host; a collective's transfer
  // on the CPU one on the host of each of its ranks. Empty: none (a GPU stream, markers).
  std::vector<std::pair<uint32_t, uint32_t>> cpus;
};

// A host whose cores its CPU resources share (cpu_share.h).
struct Host {
  std::string name;
  uint32_t cores = 0;
};

// One rank's step in the graph: where it starts and ends, and what was measured.
struct RankStep {
  std::string label;              // "rank 0", "pid 1234"
  uint32_t source = 0, sink = 0;  // marker nodes
  uint64_t measured = 0;          // the step's measured duration (ns)
  // A process without steps of its own (a TensorFlow server task) that exchanged tensors with
  // the ranks: its work within the ranks' step (their earliest start to their latest end) is
  // replayed, but its window is no step: the job's step time leaves it out.
  bool participant = false;
};

// The names of nodes (labels) and their op types (model::OpTypeOf), interned; shared by the
// graphs of one job's steps and by their copies (what-ifs change durations, not names).
struct LabelTable {
  std::vector<std::string> labels, types;
  std::unordered_map<std::string, uint32_t> index;
  // The Python stacks behind nodes (code_index.h), each its frames outermost first: a file (in
  // `files`) and a line.
  struct Frame {
    uint32_t file = 0;
    int64_t line = 0;
  };
  std::vector<std::string> files;
  std::vector<std::vector<Frame>> stacks;
  // PyTorch: ops' input shapes as the trace gives them ("[[32,256],[1024,256],[]]"), interned.
  std::vector<std::string> dims;
  std::unordered_map<std::string, uint32_t> dims_index;
  // One core's FP32 peak on the recording host (hardware.json), FLOPs a nanosecond; 0: unknown.
  double core_flops_per_ns = 0;
};

// The roof of the hardware that ran a graph's work (the recording's hardware.json, read as the
// step view's mfu and the report's roofline read it; roofline.h): FLOP/s at FP32 and at BF16/FP16,
// and memory bandwidth in bytes/s; 0: unknown.
struct Roof {
  double fp32 = 0, half = 0, bandwidth = 0;
};

// A node a precision or fusion what-if changed, against the roofline (roofline.h).
struct Bounded {
  uint32_t node = 0;
  int64_t float_ops = -1;  // the FLOPs it keeps (-1: unknown)
  uint64_t before = 0;     // its time before the change (ns; a fused chain: its members')
  uint64_t roof = 0;     // the least time its FLOPs and bytes take on its hardware (ns; 0: unknown)
  bool raised = false;   // the what-if's time was below `roof`: raised to it
  double peak = 0;       // the FLOP/s `roof` is measured against (0: none)
  double bandwidth = 0;  // ... and the bytes/s (0: no memory roof)
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Resource> resources;
  std::vector<RankStep> ranks;
  // Non-empty: resources with `cpus` share these hosts' cores, and the simulation slows the
  // work on a host whose running work asks for more cores than it has (processor sharing).
  std::vector<Host> hosts;
  std::shared_ptr<LabelTable> names = std::make_shared<LabelTable>();
  std::shared_ptr<InnerSlices> inner = std::make_shared<InnerSlices>();
  // The trace's time (ns) of the graph's time 0 (its ranks' earliest step start): graphs of one
  // job's steps on one clock. 0 in a graph built by hand.
  uint64_t origin = 0;
  Roof cpu_roof, gpu_roof;       // a thread's work runs under the first, device work the second
  std::vector<Bounded> bounded;  // set by precision= and op-fusion= (roofline.h)
  const std::string& Label(uint32_t label) const { return names->labels[label]; }
  const std::string& Type(uint32_t label) const { return names->types[label]; }

  uint32_t AddLabel(const std::string& name);  // interned in `names`
  uint32_t AddResource(const std::string& name, int32_t rank);
  uint32_t AddNode(uint32_t resource, uint32_t label, NodeKind kind, uint64_t duration,
                   uint64_t measured = 0);
  void AddEdge(uint32_t from, uint32_t to, uint64_t gap, EdgeKind kind = EdgeKind::kResource,
               bool from_start = false);
  // A rank's step: a start marker released at `start` and an end marker (callers add edges).
  size_t AddRank(const std::string& label, uint64_t start, uint64_t measured);
  // The job's measured step: its slowest rank's (participants left out).
  uint64_t MeasuredStep() const;
};

// Whether n is a collective's transfer that joined ranks (not a rank's own view of a
// collective, not a point-to-point transfer).
inline bool IsCollectiveTransfer(const Graph& g, const Node& n) {
  const Resource& r = g.resources[n.resource];
  return n.kind == NodeKind::kComm && r.rank < 0 && !r.link;
}

}  // namespace tt::analysis::replay
