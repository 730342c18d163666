// The events an export writes: every track of every process, limited to the selected steps
// and, with --max-events, to the earliest events up to that count. Streams track by track.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/job/steps.h"
#include "model/scan.h"

namespace tt::exporter {

struct Selection {
  std::optional<analysis::StepRange> steps;
  uint64_t skip_warmup = 0;
  std::vector<std::string> step_names;
  uint64_t max_events = 0;  // 0: all
  // Parquet: take the per-process tables record --tables wrote into each recording where they
  // are current (export/parquet_reuse.h); set where nothing else is selected.
  bool reuse_recorded_tables = false;
};

struct WalkResult {
  uint64_t events = 0;    // slices, instants and counters written
  uint64_t left_out = 0;  // selected but cut by max_events
};

// Which events a walk keeps: those of the selected steps, up to the max_events cut-off.
struct Chosen {
  const analysis::Windows* windows = nullptr;  // per process; null or empty: every step
  uint64_t cutoff = UINT64_MAX;
  bool Keep(size_t process, uint64_t ts) const {
    if (windows && !windows->empty() && !analysis::InWindows((*windows)[process], ts)) return false;
    return ts <= cutoff;
  }
};

// What exporters implement. Slices arrive when they end (children before parents); OnBegin
// announces a kept slice when it opens (its end and children not known yet).
class EventVisitor {
 public:
  virtual ~EventVisitor() = default;
  virtual void BeginProcess(const model::Process&) {}
  virtual void BeginTrack(const model::Process&, const model::Track&) {}
  virtual void OnBegin(const model::Process&, const model::Track&, const model::Slice&) {}
  // After the last track of a process; `chosen` tells which times the selection keeps.
  virtual void EndProcess(const model::Process&, size_t /*index*/, const Chosen& /*chosen*/) {}
  virtual void OnSlice(const model::Process&, const model::Track&, const model::Slice&) = 0;
  virtual void OnPoint(const model::Process&, const model::Track&, const model::Point&) = 0;
  // One end of a flow, right after the slice it binds to opened (model/scan.h).
  virtual void OnFlow(const model::Process&, const model::Track&, const model::Flow&) {}
};

// Throws tt::Error when steps are asked for and none can be selected, or when the selection is
// empty.
WalkResult Walk(const model::TraceModel& m, const Selection& sel, EventVisitor& v,
                std::vector<Problem>* problems);

// JSON string literal (quotes included) of arbitrary bytes.
std::string JsonString(std::string_view s);

// "key=value" text of an event's arguments, names resolved, for CSV and JSON.
std::string ArgValueText(const model::Process& p, const Arg& a);
std::vector<Arg> ArgList(const model::ArgsView& a);

}  // namespace tt::exporter
