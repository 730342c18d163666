// The events an export writes: every track of every process, limited to the selected steps
// and, with --max-events, to the earliest events up to that count. Streams track by track.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/steps.h"
#include "model/scan.h"

namespace tt::exporter {

struct Selection {
  std::optional<analysis::StepRange> steps;
  uint64_t skip_warmup = 0;
  std::vector<std::string> step_names;
  uint64_t max_events = 0;  // 0: all
};

struct WalkResult {
  uint64_t events = 0;      // slices, instants and counters written
  uint64_t left_out = 0;    // selected but cut by max_events
};

// What exporters implement. Slices arrive when they end (children before parents).
class EventVisitor {
 public:
  virtual ~EventVisitor() = default;
  virtual void BeginProcess(const model::Process&) {}
  virtual void BeginTrack(const model::Process&, const model::Track&) {}
  virtual void OnSlice(const model::Process&, const model::Track&, const model::Slice&) = 0;
  virtual void OnPoint(const model::Process&, const model::Track&, const model::Point&) = 0;
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
