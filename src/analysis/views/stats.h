// tfprof-style statistics over any trace: the views of analysis/views/ (op type, op name,
// scope, GPU kernel, API call, copy kind, oneDNN primitive, step, thread, ...), each finished
// from one aggregation pass (analysis/pass/aggregate.h): one streaming scan of the host tracks and
// one of the device tracks, however many views are asked for.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/pass/op_costs.h"
#include "analysis/pass/op_names.h"
#include "analysis/job/steps.h"
#include "analysis/pass/summary.h"
#include "model/model.h"

namespace tt::analysis {

struct Options {
  std::string view = "op";  // a name in Views() (analysis/views/view.h)
  std::optional<StepRange> steps;
  uint64_t skip_warmup = 0;
  std::vector<std::string> step_names;  // user annotations that mark steps
  unsigned threads = 0;                 // 0: one per core
  bool all_frames = false;              // the code view: library frames unfolded
  bool breakdowns_only = false;         // the step view: Result::steps alone, no rows (tables)
};

struct Row {
  std::string name;
  Summary incl;  // inclusive duration of each instance, ns
  uint64_t self_ns = 0, cpu_ns = 0, accel_ns = 0;
  int64_t bytes = 0, peak_bytes = 0, residual_bytes = 0;
  OpCosts costs;                                          // ops: FLOPs and output bytes where known
  double share = 0;                                       // of the view's total, 0..1
  std::vector<std::pair<std::string, std::string>> text;  // view-specific text columns
  std::vector<std::pair<std::string, double>> numbers;    // view-specific numeric columns
  std::vector<Row> children;                              // the scope view's tree
};

struct StepBreakdown {
  int64_t number = 0;
  size_t process = 0;
  int64_t rank = -1;  // its process's rank, as its launcher gave it (-1: none)
  uint64_t start = 0, end = 0;
  // The step's own time: end - start, less (JAX) the time between its call's end and the start
  // of the XLA execution it caused, when the host ran other steps' calls.
  uint64_t duration = 0;
  uint64_t Duration() const { return duration ? duration : end - start; }
  // Host time, each instant counted once, in this order of precedence: waiting for input,
  // compiling, computing (ops, primitives, Python), communicating, the framework's runtime;
  // host_idle is what none of them covers.
  uint64_t input = 0, compile = 0, host_compute = 0, runtime = 0, host_idle = 0;
  uint64_t host_comm = 0;  // communicating on the host (after computing in the precedence)
  uint64_t device_compute = 0, copies = 0, communication = 0;
  uint64_t device_idle_host_bound = 0, device_idle_waiting = 0;
  // host_idle (the gaps: no op, range or Python slice on any of its host threads) by the
  // Python line the sampler saw on the main thread then (code_index.h's StacksDuring and
  // LineOfStack; "(no Python stack)" where none was sampled), most first; empty without samples.
  std::vector<std::pair<std::string, uint64_t>> gap_lines;
  bool has_device = false;
  bool warmup = false;  // it holds tracing or compilation
  OpCosts costs;        // the FLOPs of the ops that started in the step, where known
};

struct Result {
  std::string view;
  std::vector<Row> rows;
  std::vector<StepBreakdown> steps;       // the step view
  uint64_t total_ns = 0;                  // the denominator of `share`
  std::vector<std::string> notes;         // plain-language remarks (no data of this kind, ...)
  std::map<std::string, uint64_t> links;  // correlation method -> links made
  uint64_t unlinked = 0;                  // device activities linked to no launch or op
  uint64_t device_activities = 0;         // kernels, copies and sets seen
  uint64_t events = 0;                    // events scanned
};

// Throws tt::Error for an unknown view, or a selection that cannot be made (steps asked for,
// none in the trace).
Result Compute(const model::TraceModel& m, const Options& o, std::vector<Problem>* problems);

class TrackRider;  // aggregate.h
using TrackRiders = std::vector<TrackRider*>;

// Several views from one pass (o.view is ignored). steps: the trace's steps when the caller
// has found them (nullptr: found here when needed). riders: visitors the pass drives along its
// scan of each track (aggregate.h; nullptr: none).
std::vector<Result> ComputeViews(const model::TraceModel& m, const std::vector<std::string>& views,
                                 const Options& o, const std::vector<Step>* steps,
                                 std::vector<Problem>* problems,
                                 const TrackRiders* riders = nullptr);

// The view names, comma-separated (for messages).
std::string ViewList();

}  // namespace tt::analysis
