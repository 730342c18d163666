// tfprof-style statistics over any trace: views by op type, op name, scope, GPU kernel, API
// call, copy kind, oneDNN primitive, step and thread. One streaming pass over the host tracks
// and one over the device tracks; memory grows with the number of distinct names (and 4 bytes
// per instance, for exact medians), not with the trace.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/steps.h"
#include "analysis/summary.h"
#include "model/model.h"

namespace tt::analysis {

enum class View { kOp, kName, kScope, kKernel, kApi, kMemcpy, kPrimitive, kStep, kThread };
bool ParseView(const std::string& s, View* v);
const char* ViewName(View v);
std::string ViewList();

struct Options {
  View view = View::kOp;
  std::optional<StepRange> steps;
  uint64_t skip_warmup = 0;
  std::vector<std::string> step_names;  // user annotations that mark steps
  unsigned threads = 0;                 // 0: one per core
};

struct Row {
  std::string name;
  Summary incl;  // inclusive duration of each instance, ns
  uint64_t self_ns = 0, cpu_ns = 0, accel_ns = 0;
  int64_t bytes = 0, peak_bytes = 0, residual_bytes = 0;
  double share = 0;  // of the view's total, 0..1
  std::vector<std::pair<std::string, std::string>> text;  // view-specific text columns
  std::vector<std::pair<std::string, double>> numbers;    // view-specific numeric columns
  std::vector<Row> children;                              // the scope view's tree
};

struct StepBreakdown {
  int64_t number = 0;
  size_t process = 0;
  uint64_t start = 0, end = 0;
  uint64_t host_compute = 0, device_compute = 0, copies = 0, communication = 0;
  uint64_t device_idle_host_bound = 0, device_idle_waiting = 0;
  bool has_device = false;
};

struct Result {
  View view = View::kOp;
  std::vector<Row> rows;
  std::vector<StepBreakdown> steps;  // the step view
  uint64_t total_ns = 0;             // the denominator of `share`
  std::vector<std::string> notes;    // plain-language remarks (no data of this kind, ...)
  std::map<std::string, uint64_t> links;  // correlation method -> links made
  uint64_t unlinked = 0;                  // device activities linked to no launch or op
  uint64_t device_activities = 0;         // kernels, copies and sets seen
  uint64_t events = 0;                    // events scanned
};

// Throws tt::Error for a selection that cannot be made (steps asked for, none in the trace).
Result Compute(const model::TraceModel& m, const Options& o, std::vector<Problem>* problems);

// Op type of a framework op name "scope/node:OpType" (or "node:OpType#shape=...#"); the whole
// name when there is no type.
std::string OpType(const std::string& name);
// The scope path of an op name: "a/b/c:T" -> {"a", "b", "c"}.
std::vector<std::string> ScopePath(const std::string& name);

}  // namespace tt::analysis
