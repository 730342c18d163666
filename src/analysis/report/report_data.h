// Everything the HTML report shows, assembled from the trace: the run summary, the step, op,
// kernel and copy views (one pass), memory over time, the timeline of the median step, the
// collectives matched across ranks (comm.h) and the findings. The export module only lays it out
// (export/report_html.h).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/comm/comm.h"
#include "analysis/comm/p2p.h"
#include "analysis/memory/memory.h"
#include "analysis/report/findings.h"
#include "analysis/report/report_suggest.h"
#include "analysis/report/timeline.h"
#include "analysis/views/stats.h"
#include "model/inventory.h"
#include "model/model.h"

namespace tt::analysis {

struct RunSummary {
  std::string title;
  std::string trace;
  std::vector<std::string> commands;  // "rank R of N (pid P): command line" ("pid P: ..." where
                                      // no launcher gave a rank), per process that traced events
                                      // (a pid that exec'd: the image it became)
  size_t quiet_processes = 0;     // left out of commands: exec'd shims and helpers with no events
  size_t unlisted_processes = 0;  // ... and those with fewer events than the listed few
  std::vector<std::string> hosts;
  std::vector<std::pair<std::string, std::string>> versions;  // source -> detail (version)
  uint64_t duration_ns = 0, events = 0, dropped = 0;
  size_t processes = 0, threads = 0, devices = 0, device_streams = 0;
  size_t steps_found = 0, steps_selected = 0;
  size_t warmup_steps = 0;  // selected steps holding tracing or compilation, left out of the
  uint64_t warmup_ns = 0;   // step chart, averages and findings (unless include_warmup)
  std::string selection;    // how steps were selected, "" for all
};

struct ReportData {
  RunSummary run;
  Result steps, ops, kernels, copies;
  Result code;  // the code view (its tree), for the hottest lines of the program
  MemoryResult memory;
  CommView comm;                              // the whole trace's collectives (no ranks: none)
  P2pView p2p;                                // its socket traffic (no connections: none)
  std::vector<model::RecordingClock> clocks;  // several recordings: each one's clock as applied
  std::optional<Timeline> timeline;
  int64_t timeline_step = -1;
  uint64_t timeline_pid = 0;
  std::vector<Finding> findings;
  std::vector<std::string> problems;  // damaged parts skipped, as one line each
  size_t top = 20;                    // rows per table
  std::string memory_note;  // with no allocation event: why, and which option captures them
  // Replay of the job's steps: measured and predicted (unchanged) step, and the what-ifs that
  // would help most, best first; suggestions_note says why there are none.
  double replay_measured_ns = 0, replay_predicted_ns = 0;
  std::vector<ReportSuggestion> suggestions;
  std::string suggestions_note;
  std::vector<std::string> replay_notes;  // what replay said of the job (CPU sharing, ...)
};

struct ReportOptions {
  std::string title;
  Options selection;  // steps, warm-up, step names (its view is ignored)
  size_t top = 20;
  bool include_warmup = false;  // warm-up steps in the step chart, averages and findings
  // Framework versions found elsewhere (the profiler captures), as (framework, version).
  std::vector<std::pair<std::string, std::string>> versions;
  std::function<void(const char*)> progress;  // told before each long part
};

// Throws tt::Error for a step selection that keeps nothing.
ReportData BuildReport(const model::TraceModel& m, const model::TraceSummary& inventory,
                       const ReportOptions& o);

}  // namespace tt::analysis
