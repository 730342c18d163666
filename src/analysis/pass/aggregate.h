// The one pass that every statistics view reads: each host track is scanned once (ops, API
// calls, primitives, allocations, launches, step intervals), the ids that link device work to
// its launches and ops are built (analysis/pass/correlate.h), then each device track is scanned
// once (kernels, copies, what each was linked to). A view (analysis/views/) only finishes rows from
// these aggregates; several views (the report's) share one pass. Memory grows with the number
// of distinct names (and 4 bytes per instance where samples are kept, for exact medians).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/job/steps.h"
#include "analysis/pass/allocations.h"
#include "analysis/pass/code_index.h"
#include "analysis/pass/correlate.h"
#include "analysis/pass/intervals.h"
#include "analysis/pass/op_costs.h"
#include "analysis/pass/summary.h"
#include "analysis/pass/thread_ops.h"
#include "model/model.h"

namespace tt::analysis {

// What a pass must collect beyond the counts every view gets.
struct Needs {
  bool op_samples = false;       // per-instance durations of ops (medians), and allocations
  bool runtime_samples = false;  // ... of runtime, compile, input and communication ranges
  bool api_samples = false;      // ... of API calls
  bool prim_samples = false;     // ... of primitives
  bool dev_samples = false;      // ... of kernels and copies
  bool intervals = false;        // host, device, copy and communication intervals (step view)
  bool steps = false;            // the steps themselves
  bool code = false;             // op time by the Python stack behind each op (code view)
  bool samples = false;          // the Python stacks alone (Aggregates::code), for the gaps
  bool scopes = false;           // ops per (module, name): PyTorch's module hierarchy
  bool links = false;            // the ids that link device work to launches and ops, kept
  void Add(const Needs& o) {
    op_samples |= o.op_samples;
    runtime_samples |= o.runtime_samples;
    api_samples |= o.api_samples;
    prim_samples |= o.prim_samples;
    dev_samples |= o.dev_samples;
    intervals |= o.intervals;
    steps |= o.steps;
    code |= o.code;
    samples |= o.samples;
    scopes |= o.scopes;
    links |= o.links;
  }
};

struct Selection {
  std::optional<StepRange> steps;
  uint64_t skip_warmup = 0;
  std::vector<std::string> step_names;  // user annotations that mark steps
  unsigned threads = 0;                 // 0: one per core
  bool all_frames = false;              // the code view: library frames unfolded
  bool breakdowns_only = false;         // the step view: no rows (Options::breakdowns_only)
  bool active() const { return steps.has_value() || skip_warmup > 0; }
};

// One name's numbers.
struct Agg {
  Summary incl;
  uint64_t self = 0, cpu = 0, accel = 0;
  int64_t bytes = 0, peak = 0, residual = 0;
  uint64_t payload = 0;                // memcpy bytes
  std::map<std::string, uint64_t> by;  // who launched / ran it -> count
  std::string grid, block;
  int64_t registers = -1, shared_static = -1, shared_dynamic = -1;
  model::Meaning meaning = model::Meaning::kOp;  // runtime ranges: which kind
  OpCosts costs;                                 // ops: FLOPs and output bytes
  void Merge(const Agg& o);
};

// Aggregates keyed by a process's interned ids, which are small and dense: a slot per id.
class DenseAggs {
 public:
  Agg& Get(uint32_t id, bool samples);
  std::vector<std::pair<uint32_t, Agg>>& items() { return items_; }
  const std::vector<std::pair<uint32_t, Agg>>& items() const { return items_; }

 private:
  std::vector<int32_t> slot_;
  std::vector<std::pair<uint32_t, Agg>> items_;
};

// A primitive or launch with no op on its own track, linked once every track of its thread has
// been read.
struct Pending {
  uint64_t start, end, self;
  uint32_t name;
  uint64_t corr;  // launches: their correlation id
};

// A primitive slice (a oneDNN primitive's ITT task), counted once every host track has been
// read: an execution, or a pool thread's share of an execution on another thread.
struct PrimSpan {
  uint64_t start, end, self;
  uint32_t name, op;  // op: the innermost op open on its thread (0: none yet)
  uint32_t domain;    // its ITT domain's name id (0: not recorded)
};

// Tags of TrackAgg::kernel_by: an op id, or the API that launched it, or nothing.
constexpr uint64_t kTagApi = uint64_t{1} << 32, kTagNone = uint64_t{2} << 32;

// What one track's scan collected.
struct TrackAgg {
  size_t track = 0;
  ThreadOps op_spans;  // only on threads with several tracks
  std::vector<Pending> pending_launches;
  std::vector<PrimSpan> prim_spans;  // until ResolvePrimitives
  // Executions linked to an op by nesting on their thread; pool threads' tasks folded into an
  // execution (with an op, and in all).
  uint64_t prims_in_op = 0, pool_linked = 0, pool_tasks = 0;
  // Per (primitive, op): the pool threads' tasks of its executions and their time (ns).
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>> prim_pool;
  std::map<uint32_t, std::set<uint32_t>> prim_domains;  // primitive -> ITT domain ids
  DenseAggs ops, apis, kernels;
  DenseAggs runtime;  // runtime, compile, input and communication ranges by name
  std::unordered_map<uint64_t, Agg> scoped;              // module << 32 | op name (needs.scopes)
  std::map<std::pair<uint32_t, uint32_t>, Agg> prims;    // (primitive, op)
  std::unordered_map<std::string, Agg> copies;           // kind -> agg
  std::vector<std::pair<uint64_t, uint64_t>> launches;   // correlation id -> api << 32 | op
  std::vector<std::pair<uint64_t, uint64_t>> externals;  // external id -> op
  // Device pass: what each activity was linked to.
  std::unordered_map<uint32_t, uint64_t> accel_by_op;
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> kernel_by;  // (kernel, tag) -> count
  uint64_t linked_corr = 0, linked_ext = 0, linked_nesting = 0, unlinked = 0, activities = 0;
  std::vector<AllocEvent> allocs;
  std::vector<Interval> host, comm, device, copy;    // the step view's intervals
  std::vector<FlopsAt> flops;                        // ... and its ops' FLOPs
  std::vector<Interval> input, compile, runtime_iv;  // ... by meaning (host tracks)
  uint64_t busy = 0, events = 0, first = UINT64_MAX, last = 0;
  std::string thread_name;
  // The code view: op self time and count by the Python stack (code_index.h) behind each op.
  std::unordered_map<uint32_t, Summary> code;
  // ... by the exact stack a framework's Python tracer gave: its slices' names, '\n'-ended.
  std::unordered_map<std::string, Summary> code_exact;
  // The step's other phases outside ops, by (stack, phase name): input waits.
  std::map<std::pair<uint32_t, std::string>, Summary> code_phase;
  // ... and compilations (outermost), kept as intervals: one that another thread's covers (XLA's
  // pool compiling for the thread that asked) is that compilation again, dropped on merging.
  struct CodeCompile {
    uint64_t start, end;
    uint32_t stack;
  };
  std::vector<CodeCompile> code_compile;
};

struct Aggregates {
  const model::TraceModel* m = nullptr;
  Needs needs;
  Selection sel;
  std::vector<TrackAgg> host, device;
  // Per process: ops from every host track, with their device time and memory.
  std::vector<std::unordered_map<uint32_t, Agg>> ops;
  // Per process, with needs.scopes: ops by module (its `module` argument, 0: none) and name.
  std::vector<std::unordered_map<uint64_t, Agg>> scoped;
  std::vector<Step> steps;                // when needed or selecting
  CodeIndex code;                         // with needs.code or samples: the Python stacks
  std::map<std::string, uint64_t> links;  // correlation method -> links made
  std::vector<LinkTables> link_tables;    // per process, with needs.links (correlate.h)
  uint64_t unlinked = 0, device_activities = 0, events = 0;
};

// A visitor that rides along the pass's scan of one track, so that one read of the track
// serves another consumer too (the report's facts and timeline). It is told every event of
// the track in order, whatever the selection; riders of different tracks run on different
// threads.
class TrackRider {
 public:
  virtual ~TrackRider() = default;
  virtual void OnBegin(const model::Slice&) {}
  virtual void OnSlice(const model::Slice&) {}
  virtual void OnPoint(const model::Point&) {}
};
// Per track (indexed like m.tracks): its rider, or nullptr.
using TrackRiders = std::vector<TrackRider*>;

// Scans every track once. steps: the trace's steps when the caller has found them already
// (nullptr: found here when needed). riders: visitors to drive along the scans (nullptr:
// none). Throws tt::Error for a selection that cannot be made.
Aggregates Aggregate(const model::TraceModel& m, const Needs& needs, const Selection& sel,
                     const std::vector<Step>* steps, std::vector<Problem>* problems,
                     const TrackRiders* riders = nullptr);

}  // namespace tt::analysis
