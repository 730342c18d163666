// Findings: plain-language statements about a trace, each with the numbers behind it and
// printed only when its condition holds (device idle while the host works, many tiny kernels,
// synchronous copies inside steps, the memory peak, dropped events, a straggler rank, ...).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/comm/comm.h"
#include "analysis/memory/memory.h"
#include "analysis/views/stats.h"
#include "analysis/job/steps.h"
#include "model/model.h"

namespace tt::analysis {

// Counts over the selected steps (the whole trace when windows is empty) that no statistics
// view keeps: kernel durations against a threshold, and synchronous copies on the host.
struct TraceFacts {
  uint64_t kernels = 0, short_kernels = 0;     // short: below kShortKernelNs
  uint64_t sync_copies = 0, sync_copy_ns = 0;  // blocking memcpy API calls inside steps
  uint64_t syncs = 0, sync_ns = 0;             // synchronisation calls inside steps
  bool in_steps = false;                       // counted inside step windows only
};
inline constexpr uint64_t kShortKernelNs = 10000;

// The facts of one track, as its scan meets its slices (ScanFacts' visitor).
struct FactsTrackScan {
  const model::Process* proc;
  const std::vector<Window>* w;  // its process's windows; null: the whole trace
  TraceFacts f;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s);
};

// ScanFacts in two halves, for a caller that scans the tracks itself (with other visitors): a
// FactsTrackScan per track (`tracks`, indexed like m.tracks, each to be scanned exactly once),
// then Finish().
class FactsScans {
 public:
  FactsScans(const model::TraceModel& m, Windows windows);
  FactsScans(const FactsScans&) = delete;
  FactsScans& operator=(const FactsScans&) = delete;
  std::vector<FactsTrackScan> tracks;
  TraceFacts Finish() const;

 private:
  Windows windows_;
};

TraceFacts ScanFacts(const model::TraceModel& m, const Windows& windows, unsigned threads,
                     std::vector<Problem>* problems);

struct FindingInputs {
  std::vector<StepBreakdown> steps;  // the step view's rows (selected steps)
  std::vector<Row> ops;              // the op view's rows
  uint64_t op_total_ns = 0;          // the op view's total self time
  uint64_t unlinked = 0, device_activities = 0;
  TraceFacts facts;
  const MemoryResult* memory = nullptr;
  uint64_t dropped = 0;
  const CommView* comm = nullptr;  // the collectives matched across ranks (null: none)
  uint64_t run_ns = 0;             // the trace's duration (communication's share without steps)
};

struct Finding {
  std::string id;    // stable key: host_bound, short_kernels, ...
  std::string text;  // one sentence with its numbers
};

std::vector<Finding> Findings(const FindingInputs& in);

}  // namespace tt::analysis
