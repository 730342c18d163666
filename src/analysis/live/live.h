// The live view (`tensortrace top`): one snapshot of a trace, possibly still being written.
// Steps, step time and its breakdown, the top ops overall and in the last window, memory in
// use, drops, per process (and rank), and how old the framework profiler's data are (they are
// imported into the trace only when a capture window closes or `record` ends). Every number is
// the one `stats` gives for the same steps and ops: the snapshot runs the same views.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/views/stats.h"
#include "model/inventory.h"
#include "model/model.h"

namespace tt::analysis {

struct LiveOptions {
  std::vector<std::string> step_names;  // --step-name
  // The last window: the steps that ended in the last window_s seconds, up to now_ns (else the
  // trace's last event).
  double window_s = 10;
  size_t top = 5;  // ops listed
  unsigned threads = 0;
  // The trace clock's "now" (CLOCK_MONOTONIC ns) while the recording runs on this host, so
  // that ages count the time since the data were written; 0: the trace's last event.
  uint64_t now_ns = 0;
  bool recording = false;  // `record` has not finished (the caller knows its directories)
};

struct LiveOp {
  std::string name;  // op type, as the op view names it
  uint64_t count = 0;
  uint64_t total_ns = 0, self_ns = 0;
  double share = 0;  // of the view's total self time, 0..1
};

// Mean step time and its parts over a set of steps (non-warm-up ones where there are any).
struct LiveSteps {
  uint64_t count = 0, warmup = 0;
  double mean_ns = 0;
  // The steps that ended in the window, over the part of the window since the first of them
  // started (0 once a job has stopped stepping for a whole window).
  double steps_per_s = 0;
  uint64_t last_ns = 0;  // the last complete step's duration
  int64_t last_number = -1;
  // Mean parts of the window's steps, ns: host time, then the device's.
  double input = 0, compile = 0, host_compute = 0, host_comm = 0, runtime = 0, host_idle = 0;
  double device_compute = 0, copies = 0, communication = 0, device_idle = 0;
  bool has_device = false;
  uint64_t window_steps = 0;
};

struct LiveFramework {
  std::string name;               // what imported data say ("xspace", "kineto"), "" when none
  bool pending = false;           // a capture exists on disk, not imported yet
  uint64_t imported_last_ns = 0;  // the latest imported event (0: none)
  // How old the newest framework data are: now - imported_last_ns, else (pending, nothing
  // imported yet) now - the process's first event. None without framework data.
  std::optional<double> age_s;
};

struct LiveProcess {
  size_t process = SIZE_MAX;  // its index in the model (TraceModel::processes)
  int64_t pid = 0, rank = -1, world_size = -1;
  std::string command, host, state;  // state: the metadata's end_state
  uint64_t events = 0, dropped = 0, threads = 0;
  uint64_t last_event_ns = 0;
  LiveSteps steps;
  int64_t memory_bytes = 0;  // in use at its last allocation event, all allocators
  bool has_memory = false;
  LiveFramework framework;
};

struct LiveSnapshot {
  std::string path;
  bool recording = false;  // as LiveOptions::recording
  uint64_t now_ns = 0, first_ns = 0, last_ns = 0;
  uint64_t events = 0, dropped = 0;
  LiveSteps steps;                          // every process's steps together
  std::vector<LiveOp> top_ops, window_ops;  // the whole trace; the window's steps
  double window_s = 0;
  int64_t window_first_step = -1, window_last_step = -1;
  int64_t memory_bytes = 0;
  bool has_memory = false;
  std::vector<LiveProcess> processes;
  std::vector<std::string> notes;
  size_t problems = 0;        // damaged parts skipped
  std::string first_problem;  // the first of them (file, offset, what), "" when none
};

// The snapshot of a loaded trace; `inv` from the same read (model::LoadModel with inventory).
LiveSnapshot TakeSnapshot(const model::TraceModel& m, const model::TraceSummary& inv,
                          const LiveOptions& o);

}  // namespace tt::analysis
