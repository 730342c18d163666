// The thread view: busy time per host thread and per GPU stream. The smallest view: a model for
// a new one (docs/views.md).
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

Row TrackRow(const TrackAgg& t, std::string name) {
  Row row;
  row.name = std::move(name);
  row.self_ns = t.busy;
  uint64_t span = t.last > t.first && t.first != UINT64_MAX ? t.last - t.first : 0;
  row.numbers = {{"events", static_cast<double>(t.events)},
                 {"span_micros", static_cast<double>(span) / 1e3},
                 {"busy_share", span ? static_cast<double>(t.busy) / span : 0}};
  return row;
}

void Finish(Aggregates& a, Result* r) {
  const model::TraceModel& m = *a.m;
  for (auto& t : a.host) {
    const model::Track& track = m.tracks[t.track];
    std::string pid = std::to_string(m.processes[track.process].meta.pid);
    Row row = TrackRow(t, pid + "/" + std::to_string(track.id) +
                              (t.thread_name.empty() ? "" : " " + t.thread_name));
    row.cpu_ns = t.busy;
    row.numbers.push_back({"rank", RankNumber(m.processes[track.process])});
    r->rows.push_back(std::move(row));
  }
  for (auto& t : a.device) {
    const model::Track& track = m.tracks[t.track];
    Row row = TrackRow(t, std::to_string(m.processes[track.process].meta.pid) + "/" + track.name);
    row.accel_ns = t.busy;
    row.numbers.push_back({"rank", RankNumber(m.processes[track.process])});
    r->rows.push_back(std::move(row));
  }
  uint64_t total = 0;
  for (auto& row : r->rows) total += row.self_ns;
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) r->notes.push_back("no threads with events in this trace");
}

}  // namespace

extern const ViewDef kThreadView = {
    .name = "thread",
    .help = "busy time per thread and per GPU stream",
    .fields = {{"events", ColumnKind::kCount},
               {"span_micros", ColumnKind::kMicros},
               {"busy_share", ColumnKind::kRatio},
               {"rank", ColumnKind::kCount}},
    .columns = {"name", "events", "micros", "span_micros", "busy_share"},
    .common_fields = false,
    .finish = Finish,
};

}  // namespace tt::analysis
